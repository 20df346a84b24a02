/* DCP wire values <-> rtcosim component values (see values.h). Integers
 * convert to integers and floats, floats only to floats (spec 3.1.20: no
 * conversion that silently loses a fraction). */
#include "dcp/values.h"

#include <string.h>

#include "dcp/wire.h"
#include "rtcosim/dcp.h"

bool dcp_type_of(rtcosim_type t, uint8_t *d)
{
    switch (t) {
    case RTCOSIM_TYPE_FLOAT64: *d = RTCOSIM_DCP_FLOAT64; return true;
    case RTCOSIM_TYPE_FLOAT32: *d = RTCOSIM_DCP_FLOAT32; return true;
    case RTCOSIM_TYPE_INT8: *d = RTCOSIM_DCP_INT8; return true;
    case RTCOSIM_TYPE_UINT8: case RTCOSIM_TYPE_BOOLEAN: *d = RTCOSIM_DCP_UINT8; return true;
    case RTCOSIM_TYPE_INT16: *d = RTCOSIM_DCP_INT16; return true;
    case RTCOSIM_TYPE_UINT16: *d = RTCOSIM_DCP_UINT16; return true;
    case RTCOSIM_TYPE_INT32: *d = RTCOSIM_DCP_INT32; return true;
    case RTCOSIM_TYPE_UINT32: *d = RTCOSIM_DCP_UINT32; return true;
    case RTCOSIM_TYPE_INT64: *d = RTCOSIM_DCP_INT64; return true;
    case RTCOSIM_TYPE_UINT64: *d = RTCOSIM_DCP_UINT64; return true;
    default: return false;
    }
}

static bool is_float_type(rtcosim_type t)
{
    return t == RTCOSIM_TYPE_FLOAT64 || t == RTCOSIM_TYPE_FLOAT32;
}

bool dcp_value_from_wire(uint8_t d, const uint8_t *p, rtcosim_type t, void *slot)
{
    double f = 0;
    int64_t i = 0;
    bool wire_float = false;
    switch (d) {
    case RTCOSIM_DCP_UINT8: i = p[0]; break;
    case RTCOSIM_DCP_UINT16: i = dcp_get16(p); break;
    case RTCOSIM_DCP_UINT32: i = dcp_get32(p); break;
    case RTCOSIM_DCP_UINT64: i = (int64_t)dcp_get64(p); break;
    case RTCOSIM_DCP_INT8: i = (int8_t)p[0]; break;
    case RTCOSIM_DCP_INT16: i = (int16_t)dcp_get16(p); break;
    case RTCOSIM_DCP_INT32: i = (int32_t)dcp_get32(p); break;
    case RTCOSIM_DCP_INT64: i = (int64_t)dcp_get64(p); break;
    case RTCOSIM_DCP_FLOAT32: {
        uint32_t b = dcp_get32(p);
        float v;
        memcpy(&v, &b, 4);
        f = v;
        wire_float = true;
        break;
    }
    case RTCOSIM_DCP_FLOAT64: {
        uint64_t b = dcp_get64(p);
        memcpy(&f, &b, 8);
        wire_float = true;
        break;
    }
    default:
        return false;
    }
    if (wire_float && !is_float_type(t))
        return false;
    if (!wire_float)
        f = (double)i;
    switch (t) {
    case RTCOSIM_TYPE_FLOAT64: *(double *)slot = f; return true;
    case RTCOSIM_TYPE_FLOAT32: *(float *)slot = (float)f; return true;
    case RTCOSIM_TYPE_INT8: *(int8_t *)slot = (int8_t)i; return true;
    case RTCOSIM_TYPE_UINT8: *(uint8_t *)slot = (uint8_t)i; return true;
    case RTCOSIM_TYPE_BOOLEAN: *(bool *)slot = i != 0; return true;
    case RTCOSIM_TYPE_INT16: *(int16_t *)slot = (int16_t)i; return true;
    case RTCOSIM_TYPE_UINT16: *(uint16_t *)slot = (uint16_t)i; return true;
    case RTCOSIM_TYPE_INT32: *(int32_t *)slot = (int32_t)i; return true;
    case RTCOSIM_TYPE_UINT32: *(uint32_t *)slot = (uint32_t)i; return true;
    case RTCOSIM_TYPE_INT64: *(int64_t *)slot = i; return true;
    case RTCOSIM_TYPE_UINT64: *(uint64_t *)slot = (uint64_t)i; return true;
    default: return false;
    }
}

void dcp_value_to_wire(rtcosim_type t, const void *slot, uint8_t *p)
{
    switch (t) {
    case RTCOSIM_TYPE_FLOAT64: { uint64_t b; memcpy(&b, slot, 8); dcp_put64(p, b); break; }
    case RTCOSIM_TYPE_FLOAT32: { uint32_t b; memcpy(&b, slot, 4); dcp_put32(p, b); break; }
    case RTCOSIM_TYPE_INT8: case RTCOSIM_TYPE_UINT8: p[0] = *(const uint8_t *)slot; break;
    case RTCOSIM_TYPE_BOOLEAN: p[0] = *(const bool *)slot ? 1 : 0; break;
    case RTCOSIM_TYPE_INT16: case RTCOSIM_TYPE_UINT16: dcp_put16(p, *(const uint16_t *)slot); break;
    case RTCOSIM_TYPE_INT32: case RTCOSIM_TYPE_UINT32: dcp_put32(p, *(const uint32_t *)slot); break;
    case RTCOSIM_TYPE_INT64: case RTCOSIM_TYPE_UINT64: dcp_put64(p, *(const uint64_t *)slot); break;
    default: break;
    }
}
