/* Signal bits of DBC signals (dbc.h): reading and writing a signal's raw
 * value in a frame's data in Intel or Motorola order, physical scaling, and
 * the multiplexing rule. No allocation: usable on a node's hot path. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtcosim/dbc.h"

/* Bit positions of a signal in order from its least significant bit
 * (Intel) or most significant bit (Motorola), CANdb++ numbering. */
static uint32_t next_position(const rtcosim_dbc_signal *s, uint32_t pos)
{
    if (s->little_endian)
        return pos + 1;
    return pos % 8 == 0 ? pos + 15 : pos - 1;
}

uint64_t rtcosim_dbc_raw_get(const rtcosim_dbc_signal *s, const uint8_t *data, size_t size)
{
    uint64_t raw = 0;
    uint32_t pos = s->start_bit;
    for (uint32_t k = 0; k < s->length && k < 64; k++, pos = next_position(s, pos)) {
        uint64_t bit = pos / 8 < size ? (data[pos / 8] >> (pos % 8)) & 1u : 0;
        if (s->little_endian)
            raw |= bit << k;
        else
            raw = raw << 1 | bit;
    }
    if (s->value_type == RTCOSIM_DBC_INTEGER && s->is_signed && s->length > 0 && s->length < 64 &&
        (raw >> (s->length - 1)) & 1u)
        raw |= ~UINT64_C(0) << s->length;
    return raw;
}

/* A float signal's number from its bits, and back. */
static double float_of(const rtcosim_dbc_signal *s, uint64_t raw)
{
    if (s->value_type == RTCOSIM_DBC_FLOAT32) {
        uint32_t bits = (uint32_t)raw;
        float f;
        memcpy(&f, &bits, sizeof f);
        return (double)f;
    }
    double d;
    memcpy(&d, &raw, sizeof d);
    return d;
}

static uint64_t bits_of(const rtcosim_dbc_signal *s, double v)
{
    if (s->value_type == RTCOSIM_DBC_FLOAT32) {
        float f = (float)v;
        uint32_t bits;
        memcpy(&bits, &f, sizeof bits);
        return bits;
    }
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return bits;
}

void rtcosim_dbc_raw_set(const rtcosim_dbc_signal *s, uint64_t raw, uint8_t *data, size_t size)
{
    uint32_t pos = s->start_bit;
    for (uint32_t k = 0; k < s->length && k < 64; k++, pos = next_position(s, pos)) {
        unsigned shift = s->little_endian ? k : s->length - 1 - k;
        uint8_t bit = (uint8_t)((raw >> shift) & 1u);
        if (pos / 8 < size)
            data[pos / 8] = (uint8_t)((data[pos / 8] & ~(1u << (pos % 8))) | (unsigned)bit << (pos % 8));
    }
}

double rtcosim_dbc_decode(const rtcosim_dbc_signal *s, const uint8_t *data, size_t size)
{
    uint64_t raw = rtcosim_dbc_raw_get(s, data, size);
    double r = s->value_type != RTCOSIM_DBC_INTEGER ? float_of(s, raw)
               : s->is_signed                       ? (double)(int64_t)raw
                                                    : (double)raw;
    return r * s->factor + s->offset;
}

int rtcosim_dbc_decimal_places(double x)
{
    if (!isfinite(x))
        return -1;
    char text[40];
    for (int precision = 1; precision <= 17; precision++) {
        snprintf(text, sizeof text, "%.*e", precision - 1, x);
        if (strtod(text, NULL) == x)
            break;
    }
    /* d.ddde[+-]XX: fractional digits of the mantissa minus the exponent */
    const char *dot = strchr(text, '.'), *e = strchr(text, 'e');
    int mantissa = dot && e ? (int)(e - dot - 1) : 0;
    int places = mantissa - atoi(e + 1);
    return places < 0 ? 0 : places > 15 ? -1 : places;
}

double rtcosim_dbc_decode_decimal(const rtcosim_dbc_signal *s, const uint8_t *data, size_t size)
{
    static const double powers[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    double v = rtcosim_dbc_decode(s, data, size);
    if (s->decimals <= 0 || s->decimals > 15)
        return v; /* integral steps are exact in binary */
    /* v * 10^d is within far less than 0.5 of the integer N the decimal is
     * (N / 10^d): rounding recovers N exactly while |N| < 2^53, and N / 10^d,
     * both exact doubles, divides to the double nearest the decimal (IEEE 754
     * division is correctly rounded). */
    double p = powers[s->decimals], n = nearbyint(v * p);
    return fabs(n) < 9007199254740992.0 ? n / p : v;
}

/* The raw range of a signal as doubles: [0, 2^n - 1] or [-2^(n-1), 2^(n-1) - 1]. */
static void raw_range(const rtcosim_dbc_signal *s, double *lo, double *hi)
{
    *lo = s->is_signed ? -ldexp(1, (int)s->length - 1) : 0;
    *hi = s->is_signed ? ldexp(1, (int)s->length - 1) - 1 : ldexp(1, (int)s->length) - 1;
}

/* r integral and inside the raw range. */
static void store(const rtcosim_dbc_signal *s, double r, uint8_t *data, size_t size)
{
    uint64_t raw;
    if (s->is_signed)
        raw = r <= -9223372036854775808.0 ? (uint64_t)INT64_MIN : (uint64_t)(int64_t)r;
    else
        raw = r >= 9223372036854775808.0 ? (uint64_t)(r - 9223372036854775808.0) | (UINT64_C(1) << 63)
                                         : (uint64_t)r;
    rtcosim_dbc_raw_set(s, raw, data, size);
}

rtcosim_status rtcosim_dbc_encode(const rtcosim_dbc_signal *s, double physical, uint8_t *data,
                                  size_t size, rtcosim_error *err)
{
    if (s->value_type != RTCOSIM_DBC_INTEGER) {
        double v = (physical - s->offset) / s->factor;
        if (s->value_type == RTCOSIM_DBC_FLOAT32 && isfinite(v) && fabs(v) > FLT_MAX)
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "signal '%s': %.17g does not fit its 32-bit float", s->name,
                                     physical);
        rtcosim_dbc_raw_set(s, bits_of(s, v), data, size);
        return RTCOSIM_OK;
    }
    double r = round((physical - s->offset) / s->factor), lo, hi;
    raw_range(s, &lo, &hi);
    if (!(r >= lo && r <= hi))
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "signal '%s': %.17g does not fit its %u-bit %s raw value", s->name,
                                 physical, (unsigned)s->length, s->is_signed ? "signed" : "unsigned");
    store(s, r, data, size);
    return RTCOSIM_OK;
}

void rtcosim_dbc_encode_saturated(const rtcosim_dbc_signal *s, double physical, uint8_t *data,
                                  size_t size)
{
    if (s->value_type != RTCOSIM_DBC_INTEGER) {
        double v = (physical - s->offset) / s->factor;
        if (s->value_type == RTCOSIM_DBC_FLOAT32 && isfinite(v) && fabs(v) > FLT_MAX)
            v = v < 0 ? -FLT_MAX : FLT_MAX;
        rtcosim_dbc_raw_set(s, bits_of(s, v), data, size);
        return;
    }
    double r = round((physical - s->offset) / s->factor), lo, hi;
    raw_range(s, &lo, &hi);
    store(s, r != r ? 0 : r < lo ? lo : r > hi ? hi : r, data, size);
}

bool rtcosim_dbc_signal_fits(const rtcosim_dbc_signal *s, size_t size)
{
    uint32_t pos = s->start_bit;
    for (uint32_t k = 0; k < s->length; k++, pos = next_position(s, pos))
        if (pos / 8 >= size)
            return false;
    return true;
}

/* depth: the readers refuse loops of multiplexors; a bound all the same */
static bool present_at(const rtcosim_dbc_message *m, const rtcosim_dbc_signal *s,
                       const uint8_t *data, size_t size, int depth)
{
    if (s->mux != RTCOSIM_DBC_MULTIPLEXED)
        return true;
    const rtcosim_dbc_signal *muxer = s->muxer ? s->muxer : m->multiplexor;
    if (!muxer || depth > 64 || !present_at(m, muxer, data, size, depth + 1))
        return false;
    uint64_t raw = rtcosim_dbc_raw_get(muxer, data, size);
    if (!s->mux_range_count)
        return raw == s->mux_value;
    for (size_t i = 0; i < s->mux_range_count; i++)
        if (raw >= s->mux_ranges[i][0] && raw <= s->mux_ranges[i][1])
            return true;
    return false;
}

bool rtcosim_dbc_signal_present(const rtcosim_dbc_message *m, const rtcosim_dbc_signal *s,
                                const uint8_t *data, size_t size)
{
    return present_at(m, s, data, size, 0);
}

const char *rtcosim_dbc_value_text_of(const rtcosim_dbc_signal *s, int64_t raw)
{
    for (size_t i = 0; i < s->value_count; i++)
        if (s->values[i].value == raw)
            return s->values[i].text;
    return NULL;
}
