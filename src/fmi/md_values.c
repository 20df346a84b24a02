/* XML Schema value syntax of modelDescription.xml attributes (xs:double,
 * xs:int, xs:unsignedLong, xs:boolean, FMI 3.0 Binary hex), strict and
 * decimal: the generic value parser also takes C's octal and hex forms. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fmi/md_internal.h"

static bool text_trimmed(const char *text, char *buf, size_t size)
{
    while (*text == ' ' || *text == '\t' || *text == '\n' || *text == '\r')
        text++;
    size_t len = strlen(text);
    while (len && (text[len - 1] == ' ' || text[len - 1] == '\t' || text[len - 1] == '\n' ||
                   text[len - 1] == '\r'))
        len--;
    if (len == 0 || len >= size)
        return false;
    memcpy(buf, text, len);
    buf[len] = '\0';
    return true;
}

bool md_parse_double(const char *text, double *out)
{
    char buf[128];
    if (!text_trimmed(text, buf, sizeof buf))
        return false;
    char *end = NULL;
    errno = 0;
    double v = strtod(buf, &end);
    if (end == buf || *end != '\0')
        return false;
    /* Underflow to a subnormal or zero is fine; overflow is not a number we can hold. */
    if (errno == ERANGE && isinf(v))
        return false;
    *out = v;
    return true;
}

bool md_parse_int(const char *text, int64_t lo, int64_t hi, int64_t *out)
{
    char buf[64];
    if (!text_trimmed(text, buf, sizeof buf))
        return false;
    char *end = NULL;
    errno = 0;
    long long v = strtoll(buf, &end, 10);
    if (end == buf || *end != '\0' || errno == ERANGE || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

bool md_parse_uint(const char *text, uint64_t hi, uint64_t *out)
{
    char buf[64];
    if (!text_trimmed(text, buf, sizeof buf) || buf[0] == '-')
        return false;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(buf, &end, 10);
    if (end == buf || *end != '\0' || errno == ERANGE || v > hi)
        return false;
    *out = v;
    return true;
}

bool md_parse_bool(const char *text, bool *out)
{
    char buf[16];
    if (!text_trimmed(text, buf, sizeof buf))
        return false;
    if (strcmp(buf, "true") == 0 || strcmp(buf, "1") == 0)
        *out = true;
    else if (strcmp(buf, "false") == 0 || strcmp(buf, "0") == 0)
        *out = false;
    else
        return false;
    return true;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* FMI 3.0 Binary start values are hex digit pairs (section 2.4.7.6). */
static bool parse_binary(md_parser *p, const char *text, rtcosim_binary *out)
{
    size_t len = strlen(text);
    if (len >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        text += 2;
        len -= 2;
    }
    if (len % 2 != 0)
        return false;
    char *bytes = (char *)md_keep_n(p, text, len); /* storage of at least len/2 bytes */
    if (!bytes)
        return true; /* out of memory is reported by the caller */
    for (size_t i = 0; i < len / 2; i++) {
        int hi = hex_digit(text[2 * i]), lo = hex_digit(text[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        bytes[i] = (char)(hi * 16 + lo);
    }
    out->data = (const uint8_t *)bytes;
    out->size = len / 2;
    return true;
}

/* Parse a start value of the given type; false when it is not valid for it. */
bool md_parse_start(md_parser *p, rtcosim_type type, const char *text, rtcosim_value *out)
{
    switch (type) {
    case RTCOSIM_TYPE_FLOAT64: return md_parse_double(text, &out->f64);
    case RTCOSIM_TYPE_FLOAT32: {
        double v;
        if (!md_parse_double(text, &v) || (isfinite(v) && fabs(v) > FLT_MAX))
            return false;
        out->f32 = (float)v;
        return true;
    }
    case RTCOSIM_TYPE_INT8: return md_parse_int(text, INT8_MIN, INT8_MAX, &out->i64);
    case RTCOSIM_TYPE_INT16: return md_parse_int(text, INT16_MIN, INT16_MAX, &out->i64);
    case RTCOSIM_TYPE_INT32: return md_parse_int(text, INT32_MIN, INT32_MAX, &out->i64);
    case RTCOSIM_TYPE_INT64: return md_parse_int(text, INT64_MIN, INT64_MAX, &out->i64);
    case RTCOSIM_TYPE_UINT8: return md_parse_uint(text, UINT8_MAX, &out->u64);
    case RTCOSIM_TYPE_UINT16: return md_parse_uint(text, UINT16_MAX, &out->u64);
    case RTCOSIM_TYPE_UINT32: return md_parse_uint(text, UINT32_MAX, &out->u64);
    case RTCOSIM_TYPE_UINT64: return md_parse_uint(text, UINT64_MAX, &out->u64);
    case RTCOSIM_TYPE_BOOLEAN:
    case RTCOSIM_TYPE_CLOCK: return md_parse_bool(text, &out->b);
    case RTCOSIM_TYPE_STRING: out->s = text; return true;
    case RTCOSIM_TYPE_BINARY: return parse_binary(p, text, &out->bin);
    default: return false;
    }
}


const char *md_next_token(const char **c, size_t *len)
{
    const char *t = *c + strspn(*c, " \t\r\n");
    *len = strcspn(t, " \t\r\n");
    *c = t + *len;
    return *len ? t : NULL;
}


void md_read_range(md_parser *p, xmlNode *typed, const md_type_unit *declared, rtcosim_variable *v)
{
    if (!rtcosim_type_is_numeric(v->type) || v->type == RTCOSIM_TYPE_BOOLEAN)
        return;
    const char *min = md_attr(p, typed, "min"), *max = md_attr(p, typed, "max");
    if (!min && declared)
        min = declared->min;
    if (!max && declared)
        max = declared->max;
    if (min && !(v->has_min = md_parse_start(p, v->type, min, &v->min)))
        md_lenient(p, "variable '%s': min '%s' is not a valid %s value; no lower bound", v->name,
                   min, rtcosim_type_name(v->type));
    if (max && !(v->has_max = md_parse_start(p, v->type, max, &v->max)))
        md_lenient(p, "variable '%s': max '%s' is not a valid %s value; no upper bound", v->name,
                   max, rtcosim_type_name(v->type));
}
