/* Conversion between DCP wire values (spec 3.1.10 data types, 3.1.12.3-4
 * binary and string, 3.1.20 conversions) and rtcosim component values, for
 * data and parameter PDUs. */
#ifndef RTCOSIM_DCP_VALUES_H
#define RTCOSIM_DCP_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/component.h"

/* The DCP type that carries a variable of rtcosim type t (BOOLEAN as uint8,
 * STRING as string, BINARY as binary); false for clocks. */
bool dcp_type_of(rtcosim_type t, uint8_t *dcp_type);
/* string and binary: a uint32 length, then that many bytes. */
bool dcp_type_is_sized(uint8_t dcp_type);
/* Whether a wire value of dcp_type may be stored into a variable of type t
 * (3.1.20: integers into integers and floats, floats into floats, a string
 * only into a string, a binary only into a binary). */
bool dcp_type_converts(uint8_t dcp_type, rtcosim_type t);

/* The bytes of a String or Binary value received, kept NUL-terminated so
 * that a String slot can point at them; grown only for a longer value. */
typedef struct dcp_bytes {
    uint8_t *data;
    size_t size, cap;
} dcp_bytes;
void dcp_bytes_free(dcp_bytes *b);
/* Copy size bytes in (NULL data with size 0: empty). False: out of memory. */
bool dcp_bytes_set(dcp_bytes *b, const void *data, size_t size);

/* Why a value cannot be decoded. */
typedef enum dcp_decode_result {
    DCP_DECODE_OK = 0,
    DCP_DECODE_SHORT,     /* the value (or its length) runs past the payload */
    DCP_DECODE_TYPE,      /* conversion not allowed (dcp_type_converts) */
    DCP_DECODE_NUL,       /* a string with a NUL byte (not one an FMU can take) */
    DCP_DECODE_NOMEM
} dcp_decode_result;

/* The size of the value at p on the wire (avail bytes there): 0 when it
 * does not fit (a fixed type's size, or 4 plus the length for sized ones). */
size_t dcp_value_wire_extent(uint8_t dcp_type, const uint8_t *p, size_t avail);
/* Decode the value at p (of wire_extent bytes, checked before) into slot,
 * a value of rtcosim type t as passed to component set; a string or binary
 * is copied into *keep and the slot points at it. */
dcp_decode_result dcp_value_decode(uint8_t dcp_type, const uint8_t *p, size_t extent,
                                   rtcosim_type t, void *slot, dcp_bytes *keep);
/* Fixed-size types only (the caller knows the size): as dcp_value_decode. */
bool dcp_value_from_wire(uint8_t dcp_type, const uint8_t *p, rtcosim_type t, void *slot);

/* Bytes a component value (slot of rtcosim type t) takes on the wire. */
size_t dcp_value_wire_size(rtcosim_type t, const void *slot);
/* Encode it at p as the variable's own DCP type (dcp_type_of); the caller
 * checked that dcp_value_wire_size bytes fit. Returns the bytes written. */
size_t dcp_value_to_wire(rtcosim_type t, const void *slot, uint8_t *p);

#endif
