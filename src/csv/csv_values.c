/* Numbers of an input table as values of a variable's type (csv_values.h). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "csv/csv_values.h"
#include "rtcosim/results.h"

bool csv_type_is_number(rtcosim_type type)
{
    return rtcosim_type_is_numeric(type) || type == RTCOSIM_TYPE_BOOLEAN;
}

rtcosim_status csv_column_check_type(const rtcosim_csv *table, size_t column, rtcosim_type type,
                                     rtcosim_error *err)
{
    double lo, hi; /* admissible closed range; integral values only */
    switch (type) {
    case RTCOSIM_TYPE_FLOAT64:
    case RTCOSIM_TYPE_FLOAT32: return RTCOSIM_OK;
    case RTCOSIM_TYPE_INT8: lo = INT8_MIN, hi = INT8_MAX; break;
    case RTCOSIM_TYPE_UINT8: lo = 0, hi = UINT8_MAX; break;
    case RTCOSIM_TYPE_INT16: lo = INT16_MIN, hi = INT16_MAX; break;
    case RTCOSIM_TYPE_UINT16: lo = 0, hi = UINT16_MAX; break;
    case RTCOSIM_TYPE_INT32: lo = INT32_MIN, hi = INT32_MAX; break;
    case RTCOSIM_TYPE_UINT32: lo = 0, hi = UINT32_MAX; break;
    /* 2^63 and 2^64 are not representable in the types; stay strictly below. */
    case RTCOSIM_TYPE_INT64: lo = -0x1p63, hi = 0x1.fffffffffffffp62; break;
    case RTCOSIM_TYPE_UINT64: lo = 0, hi = 0x1.fffffffffffffp63; break;
    case RTCOSIM_TYPE_BOOLEAN: lo = 0, hi = 1; break;
    default:
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                 "%s: column '%s': values of type %s cannot come from CSV",
                                 rtcosim_csv_name(table), rtcosim_csv_column_name(table, column),
                                 rtcosim_type_name(type));
    }
    for (size_t r = 0; r < rtcosim_csv_row_count(table); r++) {
        double x = rtcosim_csv_value(table, r, column);
        if (x != floor(x) || x < lo || x > hi) {
            char text[RTCOSIM_FORMAT_MAX];
            rtcosim_format_double(x, text);
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "%s:%zu: column '%s': %s is not a valid %s value",
                                     rtcosim_csv_name(table), rtcosim_csv_line(table, r),
                                     rtcosim_csv_column_name(table, column), text,
                                     rtcosim_type_name(type));
        }
    }
    return RTCOSIM_OK;
}

/* One cell of an Int64 (is_signed) or UInt64 column: an integer literal
 * read exactly, else a number whose value is whole and in the type. */
static bool integer_cell(const char *text, bool is_signed, uint64_t *out)
{
    if (!*text)
        return false;
    char *end;
    errno = 0;
    if (is_signed) {
        long long i = strtoll(text, &end, 10);
        if (!*end && errno == 0) {
            int64_t v = i;
            memcpy(out, &v, sizeof v);
            return true;
        }
    } else if (!strchr(text, '-')) { /* (strtoull takes "-1" for 2^64 - 1) */
        unsigned long long u = strtoull(text, &end, 10);
        if (!*end && errno == 0) {
            *out = u;
            return true;
        }
    }
    double x = strtod(text, &end);
    if (*end || !isfinite(x) || x != floor(x))
        return false;
    if (is_signed) {
        if (x < -0x1p63 || x >= 0x1p63)
            return false;
        int64_t v = (int64_t)x;
        memcpy(out, &v, sizeof v);
    } else {
        if (x < 0 || x >= 0x1p64)
            return false;
        *out = (uint64_t)x;
    }
    return true;
}

rtcosim_status csv_column_read_integers(const rtcosim_csv *table, size_t column,
                                        const char *name, rtcosim_type type, uint64_t *cells,
                                        rtcosim_error *err)
{
    for (size_t r = 0; r < rtcosim_csv_row_count(table); r++) {
        const char *text = rtcosim_csv_text(table, r, column);
        if (!text || !integer_cell(text, type == RTCOSIM_TYPE_INT64, &cells[r]))
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "%s:%zu: column '%s': '%.40s' is not a valid %s value",
                                     rtcosim_csv_name(table), rtcosim_csv_line(table, r), name,
                                     text ? text : "", rtcosim_type_name(type));
    }
    return RTCOSIM_OK;
}

void csv_store_number(rtcosim_type type, double x, void *slot)
{
    switch (type) {
    case RTCOSIM_TYPE_FLOAT64: memcpy(slot, &x, sizeof x); break;
    case RTCOSIM_TYPE_FLOAT32: { float f = (float)x; memcpy(slot, &f, sizeof f); break; }
    case RTCOSIM_TYPE_INT8: { int8_t i = (int8_t)x; memcpy(slot, &i, sizeof i); break; }
    case RTCOSIM_TYPE_UINT8: { uint8_t i = (uint8_t)x; memcpy(slot, &i, sizeof i); break; }
    case RTCOSIM_TYPE_INT16: { int16_t i = (int16_t)x; memcpy(slot, &i, sizeof i); break; }
    case RTCOSIM_TYPE_UINT16: { uint16_t i = (uint16_t)x; memcpy(slot, &i, sizeof i); break; }
    case RTCOSIM_TYPE_INT32: { int32_t i = (int32_t)x; memcpy(slot, &i, sizeof i); break; }
    case RTCOSIM_TYPE_UINT32: { uint32_t i = (uint32_t)x; memcpy(slot, &i, sizeof i); break; }
    case RTCOSIM_TYPE_INT64: { int64_t i = (int64_t)x; memcpy(slot, &i, sizeof i); break; }
    case RTCOSIM_TYPE_UINT64: { uint64_t i = (uint64_t)x; memcpy(slot, &i, sizeof i); break; }
    default: { bool b = x != 0.0; memcpy(slot, &b, sizeof b); break; } /* BOOLEAN */
    }
}
