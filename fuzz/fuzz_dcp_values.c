/* libFuzzer target for the DCP data payload codec (src/dcp/values.c), as
 * the slave and the master walk a DAT_input_output or DAT_parameter PDU: the
 * first byte is the number of values (1-16), the next ones their DCP types
 * (taken mod 12: every fixed type, string and binary), the rest the payload.
 * Every value's extent is found without reading past the payload; a payload
 * its values fill exactly decodes, and what decodes encodes again to the
 * same bytes (a string with a NUL byte excepted: it is refused; and a
 * Float32 NaN, which the conversion may quiet). */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dcp/values.h"
#include "rtcosim/dcp.h"

static rtcosim_type type_for(uint8_t d)
{
    switch (d) {
    case RTCOSIM_DCP_UINT8: return RTCOSIM_TYPE_UINT8;
    case RTCOSIM_DCP_UINT16: return RTCOSIM_TYPE_UINT16;
    case RTCOSIM_DCP_UINT32: return RTCOSIM_TYPE_UINT32;
    case RTCOSIM_DCP_UINT64: return RTCOSIM_TYPE_UINT64;
    case RTCOSIM_DCP_INT8: return RTCOSIM_TYPE_INT8;
    case RTCOSIM_DCP_INT16: return RTCOSIM_TYPE_INT16;
    case RTCOSIM_DCP_INT32: return RTCOSIM_TYPE_INT32;
    case RTCOSIM_DCP_INT64: return RTCOSIM_TYPE_INT64;
    case RTCOSIM_DCP_FLOAT32: return RTCOSIM_TYPE_FLOAT32;
    case RTCOSIM_DCP_FLOAT64: return RTCOSIM_TYPE_FLOAT64;
    case RTCOSIM_DCP_STRING: return RTCOSIM_TYPE_STRING;
    default: return RTCOSIM_TYPE_BINARY;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t n = (size_t)(data[0] % 16) + 1;
    if (size < 1 + n)
        return 0;
    uint8_t types[16];
    for (size_t i = 0; i < n; i++)
        types[i] = data[1 + i] % 12;
    size_t payload_size = size - 1 - n;
    /* a private copy: ASan sees a read one past the payload */
    uint8_t *payload = malloc(payload_size ? payload_size : 1);
    if (!payload)
        return 0;
    memcpy(payload, data + 1 + n, payload_size);
    size_t used = 0, extents[16];
    bool whole = true;
    for (size_t i = 0; i < n; i++) {
        extents[i] = dcp_value_wire_extent(types[i], payload + used, payload_size - used);
        if (extents[i] == 0) {
            whole = false;
            break;
        }
        used += extents[i];
    }
    if (whole && used == payload_size) {
        dcp_bytes keep[16] = {{0}};
        rtcosim_value values[16];
        uint8_t *again = malloc(payload_size ? payload_size : 1);
        size_t at = 0, again_size = 0;
        bool refused = false;
        for (size_t i = 0; i < n && again; i++) {
            rtcosim_type t = type_for(types[i]);
            dcp_decode_result r = dcp_value_decode(types[i], payload + at, extents[i], t,
                                                   &values[i], &keep[i]);
            if (r == DCP_DECODE_NUL && types[i] == RTCOSIM_DCP_STRING) {
                refused = true;
                break;
            }
            if (r != DCP_DECODE_OK)
                abort(); /* an extent found is always decodable into its own type */
            if (t == RTCOSIM_TYPE_FLOAT32 && isnan(values[i].f32))
                refused = true; /* a signaling NaN comes back quiet (float -> double -> float) */
            if (dcp_value_wire_size(t, &values[i]) != extents[i])
                abort();
            again_size += dcp_value_to_wire(t, &values[i], again + again_size);
            at += extents[i];
        }
        if (again && !refused && (again_size != payload_size || memcmp(again, payload, payload_size) != 0))
            abort();
        for (size_t i = 0; i < n; i++)
            dcp_bytes_free(&keep[i]);
        free(again);
    }
    free(payload);
    return 0;
}
