/* DCP wire values <-> rtcosim component values (see values.h). Integers
 * convert to integers and floats, floats only to floats (spec 3.1.20: no
 * conversion that silently loses a fraction); strings and binaries only to
 * their own type, each a uint32 length and the bytes (3.1.12.3-4). */
#include "dcp/values.h"

#include <stdlib.h>
#include <string.h>

#include "util/le.h"
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
    case RTCOSIM_TYPE_STRING: *d = RTCOSIM_DCP_STRING; return true;
    case RTCOSIM_TYPE_BINARY: *d = RTCOSIM_DCP_BINARY; return true;
    default: return false;
    }
}

bool dcp_type_is_sized(uint8_t d) { return d == RTCOSIM_DCP_STRING || d == RTCOSIM_DCP_BINARY; }

bool dcp_type_converts(uint8_t d, rtcosim_type t)
{
    if (d == RTCOSIM_DCP_STRING)
        return t == RTCOSIM_TYPE_STRING;
    if (d == RTCOSIM_DCP_BINARY)
        return t == RTCOSIM_TYPE_BINARY;
    if (rtcosim_dcp_data_type_size(d) == 0 || !rtcosim_type_is_numeric(t))
        return false;
    bool wire_float = d == RTCOSIM_DCP_FLOAT32 || d == RTCOSIM_DCP_FLOAT64;
    return !wire_float || t == RTCOSIM_TYPE_FLOAT64 || t == RTCOSIM_TYPE_FLOAT32;
}

void dcp_bytes_free(dcp_bytes *b)
{
    free(b->data);
    *b = (dcp_bytes){0};
}

bool dcp_bytes_set(dcp_bytes *b, const void *data, size_t size)
{
    if (size + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 32;
        while (cap < size + 1)
            cap *= 2;
        uint8_t *grown = realloc(b->data, cap);
        if (!grown)
            return false;
        b->data = grown;
        b->cap = cap;
    }
    if (size)
        memcpy(b->data, data, size);
    b->data[size] = 0;
    b->size = size;
    return true;
}

size_t dcp_value_wire_extent(uint8_t d, const uint8_t *p, size_t avail)
{
    if (dcp_type_is_sized(d)) {
        if (avail < 4)
            return 0;
        uint32_t length = le_get32(p);
        return length <= avail - 4 ? 4 + (size_t)length : 0;
    }
    size_t size = rtcosim_dcp_data_type_size(d);
    return size && size <= avail ? size : 0;
}

dcp_decode_result dcp_value_decode(uint8_t d, const uint8_t *p, size_t extent, rtcosim_type t,
                                   void *slot, dcp_bytes *keep)
{
    if (!dcp_type_converts(d, t))
        return DCP_DECODE_TYPE;
    if (!dcp_type_is_sized(d))
        return extent == rtcosim_dcp_data_type_size(d) && dcp_value_from_wire(d, p, t, slot)
                   ? DCP_DECODE_OK
                   : DCP_DECODE_SHORT;
    if (extent < 4 || extent - 4 != le_get32(p))
        return DCP_DECODE_SHORT;
    size_t length = extent - 4;
    if (d == RTCOSIM_DCP_STRING && length && memchr(p + 4, 0, length))
        return DCP_DECODE_NUL;
    if (!dcp_bytes_set(keep, p + 4, length))
        return DCP_DECODE_NOMEM;
    if (t == RTCOSIM_TYPE_STRING) {
        const char *s = (const char *)keep->data;
        memcpy(slot, &s, sizeof s);
    } else {
        rtcosim_binary b = {keep->data, keep->size};
        memcpy(slot, &b, sizeof b);
    }
    return DCP_DECODE_OK;
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
    case RTCOSIM_DCP_UINT16: i = le_get16(p); break;
    case RTCOSIM_DCP_UINT32: i = le_get32(p); break;
    case RTCOSIM_DCP_UINT64: i = (int64_t)le_get64(p); break;
    case RTCOSIM_DCP_INT8: i = (int8_t)p[0]; break;
    case RTCOSIM_DCP_INT16: i = (int16_t)le_get16(p); break;
    case RTCOSIM_DCP_INT32: i = (int32_t)le_get32(p); break;
    case RTCOSIM_DCP_INT64: i = (int64_t)le_get64(p); break;
    case RTCOSIM_DCP_FLOAT32: {
        uint32_t b = le_get32(p);
        float v;
        memcpy(&v, &b, 4);
        f = v;
        wire_float = true;
        break;
    }
    case RTCOSIM_DCP_FLOAT64: {
        uint64_t b = le_get64(p);
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

size_t dcp_value_wire_size(rtcosim_type t, const void *slot)
{
    if (t == RTCOSIM_TYPE_STRING) {
        const char *s;
        memcpy(&s, slot, sizeof s);
        return 4 + (s ? strlen(s) : 0);
    }
    if (t == RTCOSIM_TYPE_BINARY) {
        rtcosim_binary b;
        memcpy(&b, slot, sizeof b);
        return 4 + (b.data ? b.size : 0);
    }
    uint8_t d;
    return dcp_type_of(t, &d) ? rtcosim_dcp_data_type_size(d) : 0;
}

static size_t put_sized(uint8_t *p, const void *data, size_t size)
{
    le_put32(p, (uint32_t)size);
    if (size)
        memcpy(p + 4, data, size);
    return 4 + size;
}

size_t dcp_value_to_wire(rtcosim_type t, const void *slot, uint8_t *p)
{
    switch (t) {
    case RTCOSIM_TYPE_FLOAT64: { uint64_t b; memcpy(&b, slot, 8); le_put64(p, b); return 8; }
    case RTCOSIM_TYPE_FLOAT32: { uint32_t b; memcpy(&b, slot, 4); le_put32(p, b); return 4; }
    case RTCOSIM_TYPE_INT8: case RTCOSIM_TYPE_UINT8: p[0] = *(const uint8_t *)slot; return 1;
    case RTCOSIM_TYPE_BOOLEAN: p[0] = *(const bool *)slot ? 1 : 0; return 1;
    case RTCOSIM_TYPE_INT16: case RTCOSIM_TYPE_UINT16: le_put16(p, *(const uint16_t *)slot); return 2;
    case RTCOSIM_TYPE_INT32: case RTCOSIM_TYPE_UINT32: le_put32(p, *(const uint32_t *)slot); return 4;
    case RTCOSIM_TYPE_INT64: case RTCOSIM_TYPE_UINT64: le_put64(p, *(const uint64_t *)slot); return 8;
    case RTCOSIM_TYPE_STRING: {
        const char *s;
        memcpy(&s, slot, sizeof s);
        return put_sized(p, s, s ? strlen(s) : 0);
    }
    case RTCOSIM_TYPE_BINARY: {
        rtcosim_binary b;
        memcpy(&b, slot, sizeof b);
        return put_sized(p, b.data, b.data ? b.size : 0);
    }
    default: return 0;
    }
}
