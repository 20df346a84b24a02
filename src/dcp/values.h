/* Conversion between DCP wire values (spec 3.1.10 data types, 3.1.20
 * conversions) and rtcosim component values, for data and parameter PDUs. */
#ifndef RTCOSIM_DCP_VALUES_H
#define RTCOSIM_DCP_VALUES_H

#include <stdbool.h>
#include <stdint.h>

#include "rtcosim/component.h"

/* The DCP type that carries a variable of rtcosim type t (BOOLEAN as uint8);
 * false for types DCP data PDUs do not carry here (string, binary, clock). */
bool dcp_type_of(rtcosim_type t, uint8_t *dcp_type);
/* Decode a wire value of dcp_type at p and store it converted into slot (a
 * value of rtcosim type t, as passed to component set). False when the
 * conversion is not allowed (e.g. float into an integer variable). */
bool dcp_value_from_wire(uint8_t dcp_type, const uint8_t *p, rtcosim_type t, void *slot);
/* Encode a component value (slot of rtcosim type t) at p as the variable's own
 * DCP type (dcp_type_of). */
void dcp_value_to_wire(rtcosim_type t, const void *slot, uint8_t *p);

#endif
