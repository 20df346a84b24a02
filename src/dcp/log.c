/* DCP log entries (DCP 1.0 section 3.1.23, NTF_log): a template's message
 * with its arguments filled in. Placeholders are "%" and a data type name
 * of section 3.1.10 ("uint8" .. "float64", "string", "binary"); "%%" is a
 * percent sign. The arguments are the placeholders' values in order, as
 * in data PDUs (values.c). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util/le.h"
#include "rtcosim/dcp.h"

static const struct {
    const char *name;
    uint8_t type;
} types[] = {
    {"uint8", RTCOSIM_DCP_UINT8},     {"uint16", RTCOSIM_DCP_UINT16},  {"uint32", RTCOSIM_DCP_UINT32},
    {"uint64", RTCOSIM_DCP_UINT64},   {"int8", RTCOSIM_DCP_INT8},      {"int16", RTCOSIM_DCP_INT16},
    {"int32", RTCOSIM_DCP_INT32},     {"int64", RTCOSIM_DCP_INT64},    {"float32", RTCOSIM_DCP_FLOAT32},
    {"float64", RTCOSIM_DCP_FLOAT64}, {"string", RTCOSIM_DCP_STRING},  {"binary", RTCOSIM_DCP_BINARY},
};

typedef struct out_text {
    char *out;
    size_t cap, at;
} out_text;

static void put(out_text *o, const char *s, size_t n)
{
    for (size_t i = 0; i < n && o->at + 1 < o->cap; i++)
        o->out[o->at++] = s[i];
    o->out[o->at] = '\0';
}

/* The placeholder's type at msg (after the "%"): the longest name that
 * matches; its length in *len. */
static bool placeholder(const char *msg, uint8_t *type, size_t *len)
{
    *len = 0;
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
        size_t n = strlen(types[k].name);
        if (n > *len && strncmp(msg, types[k].name, n) == 0) {
            *type = types[k].type;
            *len = n;
        }
    }
    return *len > 0;
}

/* One argument of `type` at args[*used]; false when it does not fit. */
static bool argument(out_text *o, uint8_t type, const uint8_t *args, size_t size, size_t *used)
{
    const uint8_t *p = args + *used;
    size_t left = size - *used;
    char num[64];
    if (type == RTCOSIM_DCP_STRING || type == RTCOSIM_DCP_BINARY) {
        if (left < 4 || le_get32(p) > left - 4)
            return false;
        size_t n = le_get32(p);
        if (type == RTCOSIM_DCP_STRING) {
            put(o, (const char *)p + 4, strnlen((const char *)p + 4, n));
        } else {
            for (size_t i = 0; i < n; i++) {
                snprintf(num, sizeof num, "%02x", p[4 + i]);
                put(o, num, 2);
            }
        }
        *used += 4 + n;
        return true;
    }
    size_t width = rtcosim_dcp_data_type_size(type);
    if (width == 0 || left < width)
        return false;
    switch (type) {
    case RTCOSIM_DCP_UINT8: snprintf(num, sizeof num, "%u", p[0]); break;
    case RTCOSIM_DCP_UINT16: snprintf(num, sizeof num, "%u", le_get16(p)); break;
    case RTCOSIM_DCP_UINT32: snprintf(num, sizeof num, "%" PRIu32, le_get32(p)); break;
    case RTCOSIM_DCP_UINT64: snprintf(num, sizeof num, "%" PRIu64, le_get64(p)); break;
    case RTCOSIM_DCP_INT8: snprintf(num, sizeof num, "%d", (int8_t)p[0]); break;
    case RTCOSIM_DCP_INT16: snprintf(num, sizeof num, "%d", (int16_t)le_get16(p)); break;
    case RTCOSIM_DCP_INT32: snprintf(num, sizeof num, "%" PRId32, (int32_t)le_get32(p)); break;
    case RTCOSIM_DCP_INT64: snprintf(num, sizeof num, "%" PRId64, (int64_t)le_get64(p)); break;
    case RTCOSIM_DCP_FLOAT32: {
        uint32_t b = le_get32(p);
        float f;
        memcpy(&f, &b, sizeof f);
        snprintf(num, sizeof num, "%.9g", (double)f);
        break;
    }
    default: {
        uint64_t b = le_get64(p);
        double f;
        memcpy(&f, &b, sizeof f);
        snprintf(num, sizeof num, "%.17g", f);
        break;
    }
    }
    put(o, num, strlen(num));
    *used += width;
    return true;
}

bool rtcosim_dcp_log_format(const char *msg, const uint8_t *args, size_t size, char *out, size_t cap)
{
    out_text o = {out, cap, 0};
    if (!cap)
        return false;
    out[0] = '\0';
    size_t used = 0;
    for (const char *m = msg ? msg : ""; *m;) {
        const char *pct = strchr(m, '%');
        if (!pct) {
            put(&o, m, strlen(m));
            break;
        }
        put(&o, m, (size_t)(pct - m));
        if (pct[1] == '%') {
            put(&o, "%", 1);
            m = pct + 2;
            continue;
        }
        uint8_t type;
        size_t len;
        if (!placeholder(pct + 1, &type, &len)) {
            put(&o, "%", 1); /* not a placeholder: as written */
            m = pct + 1;
            continue;
        }
        if (!argument(&o, type, args, size, &used)) {
            put(&o, "<?>", 3);
            return false;
        }
        m = pct + 1 + len;
    }
    return used == size;
}
