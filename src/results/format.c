/* Number formatting for result files without printf: shortest round-trip
 * doubles (libdouble-conversion, see shortest.cc), integers by two-digit table
 * lookup, and simulation time as the exact decimal of its nanosecond ticks. */
#include <string.h>

#include "results/digits8.h"
#include "results/shortest.h"
#include "rtcosim/results.h"

_Static_assert(RTCOSIM_FORMAT_MAX >= RTCOSIM_SHORTEST_MAX, "format buffer too small");

static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

size_t rtcosim_format_double(double value, char *buf)
{
    return rtcosim_shortest_double(value, buf);
}

size_t rtcosim_format_float(float value, char *buf)
{
    return rtcosim_shortest_float(value, buf);
}

/* Digits of v right-aligned into the 20 bytes ending at end; returns the
 * first digit. */
static char *digits_backwards(uint64_t v, char *end)
{
    char *p = end;
    while (v >= 100) {
        unsigned pair = (unsigned)(v % 100) * 2;
        v /= 100;
        *--p = digit_pairs[pair + 1];
        *--p = digit_pairs[pair];
    }
    if (v >= 10) {
        *--p = digit_pairs[v * 2 + 1];
        *--p = digit_pairs[v * 2];
    } else {
        *--p = (char)('0' + v);
    }
    return p;
}

/* The count of decimal digits of v (1 for 0): from its bit length, since
 * 1233 / 4096 is just above log10(2), then one comparison. */
static inline size_t decimal_length(uint64_t v)
{
    static const uint64_t powers[20] = {
        1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u,
        1000000000u, 10000000000u, 100000000000u, 1000000000000u, 10000000000000u,
        100000000000000u, 1000000000000000u, 10000000000000000u, 100000000000000000u,
        1000000000000000000u, 10000000000000000000u};
    size_t t = (size_t)(64 - __builtin_clzll(v | 1)) * 1233 >> 12;
    size_t n = t + (v >= powers[t]);
    return n ? n : 1;
}

size_t rtcosim_format_uint64(uint64_t value, char *buf)
{
    /* the digits written in place, last first (no copy of a variable length:
     * B1a's times past 9 s spent 2 % of the run in memcpy here) */
    size_t n = decimal_length(value);
    (void)digits_backwards(value, buf + n);
    buf[n] = '\0';
    return n;
}

size_t rtcosim_format_int64(int64_t value, char *buf)
{
    if (value >= 0)
        return rtcosim_format_uint64((uint64_t)value, buf);
    buf[0] = '-';
    /* Negate in unsigned arithmetic so that INT64_MIN is exact. */
    return 1 + rtcosim_format_uint64(0u - (uint64_t)value, buf + 1);
}

/* The eight fraction digits after the first, in one register (byte k the
 * k-th of them, never stored and read back: B1a, a load of bytes just
 * written as separate stores cannot be forwarded and waited for them), and
 * how many of the nine to keep: up to the last one other than '0' (from a
 * mask, not a loop whose exit the row's time decides); the first or a later
 * one is not '0' (the fraction is not zero). */
static inline uint64_t fraction_digits(uint32_t rest, size_t *len)
{
    uint64_t w = rtcosim_digits8(rest);
    const uint64_t zeros = 0x3030303030303030u, low7 = 0x7F7F7F7F7F7F7F7Fu;
    uint64_t x = w ^ zeros;                         /* 0 where '0' */
    uint64_t m = (((x & low7) + low7) | x) & ~low7; /* high bit of each byte not 0 */
    *len = m ? 2 + (size_t)(63 - __builtin_clzll(m)) / 8 : 1;
    return w;
}

size_t rtcosim_format_time(rtcosim_time_ns t, char *buf)
{
    size_t n = 0;
    uint64_t magnitude = (uint64_t)t;
    if (t < 0) {
        buf[n++] = '-';
        magnitude = 0u - magnitude;
    }
    uint64_t seconds = magnitude / 1000000000u;
    uint32_t fraction = (uint32_t)(magnitude % 1000000000u);
    if (seconds < 10) /* most rows: no call */
        buf[n++] = (char)('0' + seconds);
    else
        n += rtcosim_format_uint64(seconds, buf + n);
    if (fraction) {
        /* Nine fraction digits (one, then eight at once), written whole,
         * then the trailing zeros cut off by where the terminator goes. */
        buf[n++] = '.';
        buf[n] = (char)('0' + fraction / 100000000u);
        size_t len;
        uint64_t w = fraction_digits(fraction % 100000000u, &len);
        w = rtcosim_digits8_memory_order(w); /* the first digit at the lowest address */
        memcpy(buf + n + 1, &w, 8);
        n += len;
    }
    buf[n] = '\0';
    return n;
}

rtcosim_column rtcosim_column_of(const char *name, const rtcosim_variable *v)
{
    if (!v)
        return (rtcosim_column){.name = name, .type = RTCOSIM_TYPE_FLOAT64};
    return (rtcosim_column){.name = name, .type = v->type, .unit = v->unit,
                            .description = v->description,
                            .parameter = v->variability <= RTCOSIM_VARIABILITY_TUNABLE};
}
