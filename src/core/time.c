/* Conversions between seconds at the edges and nanosecond ticks inside. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rtcosim/time.h"

rtcosim_status rtcosim_time_from_seconds(double seconds, rtcosim_time_ns *out,
                                         rtcosim_error *err)
{
    if (!isfinite(seconds))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "time %g s is not a finite number", seconds);
    /* 9.2e9 s is the int64 nanosecond range (about 292 years). */
    if (fabs(seconds) > 9.2e9)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "time %g s is out of range (|t| <= 9.2e9 s)",
                                 seconds);
    /* Whole seconds exactly, the fraction rounded to the nearest tick. */
    double whole = trunc(seconds);
    double frac_ns = nearbyint((seconds - whole) * 1e9);
    *out = (rtcosim_time_ns)whole * RTCOSIM_NS_PER_S + (rtcosim_time_ns)frac_ns;
    return RTCOSIM_OK;
}

/* Plain decimal text ([+-]digits[.digits], at most 9 fraction digits that
 * are not zero, |t| <= 9.2e9 s) read digit by digit into ticks: exact at any
 * magnitude (a double holds whole nanoseconds only below 2^53 ns, 104 days)
 * and without strtod, which results files read once per row. Anything else
 * (exponents, hex, finer fractions, out of range) is left to strtod. */
static bool parse_plain(const char *p, rtcosim_time_ns *out)
{
    bool negative = *p == '-';
    if (*p == '-' || *p == '+')
        p++;
    uint64_t whole = 0, fraction = 0;
    unsigned digits = 0, places = 0;
    for (; *p >= '0' && *p <= '9'; p++, digits++)
        if ((whole = whole * 10 + (uint64_t)(*p - '0')) > UINT64_C(9200000000))
            return false;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++, digits++) {
            if (places == 9) {
                if (*p != '0')
                    return false;
                continue;
            }
            fraction = fraction * 10 + (uint64_t)(*p - '0');
            places++;
        }
    if (!digits)
        return false;
    while (isspace((unsigned char)*p))
        p++;
    if (*p)
        return false;
    static const uint32_t scale[10] = {1000000000, 100000000, 10000000, 1000000, 100000,
                                       10000,      1000,      100,      10,      1};
    uint64_t ticks = whole * UINT64_C(1000000000) + fraction * scale[places];
    *out = negative ? -(rtcosim_time_ns)ticks : (rtcosim_time_ns)ticks;
    return true;
}

rtcosim_status rtcosim_time_parse_seconds(const char *text, rtcosim_time_ns *out,
                                          rtcosim_error *err)
{
    if (!text || !*text)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "empty time value");
    const char *p = text;
    while (isspace((unsigned char)*p))
        p++;
    if (parse_plain(p, out))
        return RTCOSIM_OK;
    errno = 0;
    char *end = NULL;
    double seconds = strtod(p, &end);
    if (end == p)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "'%s' is not a number of seconds", text);
    while (isspace((unsigned char)*end))
        end++;
    if (*end != '\0')
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "'%s' is not a number of seconds", text);
    if (errno == ERANGE && seconds != 0.0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "time '%s' is out of range", text);
    rtcosim_status st = rtcosim_time_from_seconds(seconds, out, err);
    if (st != RTCOSIM_OK)
        return rtcosim_error_set(err, st, "time '%s' is not finite or out of range", text);
    /* Reject values whose decimal meaning is finer than a nanosecond (the
     * product carries the binary rounding of the text, hence the tolerance). */
    long double ns = (long double)seconds * 1e9L;
    long double off = fabsl(ns - nearbyintl(ns));
    if (off > 1e-6L + 1e-15L * fabsl(ns))
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "time '%s' is not a whole number of nanoseconds", text);
    return RTCOSIM_OK;
}
