/* DCP time resolution (spec 3.1.16: one step is numerator/denominator
 * seconds) mapped to rtcosim's integer nanoseconds. A resolution that is no
 * whole number of nanoseconds is refused rather than rounded, so that step
 * counts and simulated times agree exactly on both sides. */
#include <inttypes.h>

#include "rtcosim/dcp.h"

rtcosim_status rtcosim_dcp_resolution_to_ns(uint32_t numerator, uint32_t denominator,
                                            rtcosim_time_ns *tick_ns, rtcosim_error *err)
{
    if (numerator == 0 || denominator == 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "DCP time resolution %" PRIu32 "/%" PRIu32 " s: zero term",
                                 numerator, denominator);
    /* numerator < 2^32, so numerator * 1e9 < 2^62 fits in uint64. */
    uint64_t scaled = (uint64_t)numerator * UINT64_C(1000000000);
    if (scaled % denominator != 0)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                 "DCP time resolution %" PRIu32 "/%" PRIu32
                                 " s is not a whole number of nanoseconds", numerator,
                                 denominator);
    *tick_ns = (rtcosim_time_ns)(scaled / denominator);
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_dcp_steps_to_ns(uint64_t steps, rtcosim_time_ns tick_ns,
                                       rtcosim_time_ns *out, rtcosim_error *err)
{
    if (tick_ns <= 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "DCP: no time resolution set");
    if (steps > (uint64_t)(INT64_MAX / tick_ns))
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "DCP: %" PRIu64 " steps of %" PRId64 " ns overflow 64-bit time",
                                 steps, tick_ns);
    *out = (rtcosim_time_ns)steps * tick_ns;
    return RTCOSIM_OK;
}
