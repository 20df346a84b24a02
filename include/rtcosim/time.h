/* Simulation time as signed 64-bit nanosecond ticks.
 * Integer ticks make macro steps exact: 1000 steps of 1 ms end at exactly 1 s.
 * Seconds as double appear only at the edges (CLI, files, FMI calls). */
#ifndef RTCOSIM_TIME_H
#define RTCOSIM_TIME_H

#include <stdint.h>
#include "rtcosim/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int64_t rtcosim_time_ns;

#define RTCOSIM_NS_PER_S INT64_C(1000000000)
#define RTCOSIM_NS_PER_MS INT64_C(1000000)
#define RTCOSIM_NS_PER_US INT64_C(1000)
#define RTCOSIM_TIME_MAX INT64_MAX

/* Seconds (double) to ticks, rounded to the nearest nanosecond.
 * Fails with RTCOSIM_EINVAL for NaN, infinity or values beyond +-292 years. */
rtcosim_status rtcosim_time_from_seconds(double seconds, rtcosim_time_ns *out,
                                         rtcosim_error *err);

/* Parse a decimal number of seconds ("0.001", "1e-4", "10") exactly into
 * ticks. Rejects trailing garbage, NaN, infinity and sub-nanosecond fractions
 * that do not round to a whole tick within 1e-6 ns. */
rtcosim_status rtcosim_time_parse_seconds(const char *text, rtcosim_time_ns *out,
                                          rtcosim_error *err);

static inline double rtcosim_time_to_seconds(rtcosim_time_ns t)
{
    /* One division of two exact doubles is correctly rounded: the result is
     * the double nearest the decimal time (9.8 ms -> 0.0098, where multiplying
     * by the inexact 1e-9 gave 0.0098000000000000014). An FMU that refuses a
     * step ending past its stop time, as OSP's cpp-fmus do, then sees t + h
     * land on the stop time. Past 2^53 ns (104 days) t is no exact double:
     * whole seconds and the fraction are converted apart. */
    if (t < (INT64_C(1) << 53) && t > -(INT64_C(1) << 53))
        return (double)t / 1e9;
    int64_t s = t / RTCOSIM_NS_PER_S;
    int64_t ns = t % RTCOSIM_NS_PER_S;
    return (double)s + (double)ns / 1e9;
}

#ifdef __cplusplus
}
#endif
#endif
