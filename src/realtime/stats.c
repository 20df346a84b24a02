/* Small value types of the real-time layer: the log-scale latency histogram
 * (fixed buckets, no allocation per frame), the overrun policy names and the
 * exchange pattern parser used by the CLI. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rtcosim/realtime.h"

/* Bucket layout: values 0..31 exactly; from 32 on, value v with highest bit
 * e (>= 5) falls in 32 + (e - 5) * 16 + (the 4 bits below the highest), the
 * HDR-histogram scheme with 16 sub-buckets per octave. */
#define SUB_BITS 4
#define SUB_COUNT (1 << SUB_BITS)
#define EXACT_LIMIT 32

static size_t bucket_of(uint64_t v)
{
    if (v < EXACT_LIMIT)
        return (size_t)v;
    int e = 63 - __builtin_clzll(v);
    size_t sub = (size_t)(v >> (e - SUB_BITS)) & (SUB_COUNT - 1);
    return EXACT_LIMIT + (size_t)(e - 5) * SUB_COUNT + sub;
}

/* Largest value that falls in bucket b. */
static uint64_t bucket_upper(size_t b)
{
    if (b < EXACT_LIMIT)
        return b;
    int e = (int)((b - EXACT_LIMIT) / SUB_COUNT) + 5;
    uint64_t sub = (b - EXACT_LIMIT) % SUB_COUNT;
    uint64_t lower = (uint64_t)(SUB_COUNT + sub) << (e - SUB_BITS);
    return lower + ((uint64_t)1 << (e - SUB_BITS)) - 1;
}

void rtcosim_histogram_reset(rtcosim_histogram *h)
{
    memset(h, 0, sizeof *h);
}

void rtcosim_histogram_add(rtcosim_histogram *h, int64_t value)
{
    if (h->count == 0 || value < h->min)
        h->min = value;
    if (h->count == 0 || value > h->max)
        h->max = value;
    h->count++;
    h->sum += (double)value;
    h->buckets[bucket_of(value < 0 ? 0 : (uint64_t)value)]++;
}

int64_t rtcosim_histogram_percentile(const rtcosim_histogram *h, double p)
{
    if (h->count == 0)
        return 0;
    if (p < 0)
        p = 0;
    if (p > 100)
        p = 100;
    /* Nearest rank: the smallest value with at least p % of the values at or
     * below it. */
    uint64_t rank = (uint64_t)((p / 100.0) * (double)h->count + 0.999999999);
    if (rank < 1)
        rank = 1;
    if (rank > h->count)
        rank = h->count;
    uint64_t seen = 0;
    for (size_t b = 0; b < RTCOSIM_HISTOGRAM_BUCKETS; b++) {
        seen += h->buckets[b];
        if (seen >= rank) {
            uint64_t upper = bucket_upper(b);
            if (h->max < 0)
                return h->max;
            return (int64_t)upper < h->max ? (int64_t)upper : h->max;
        }
    }
    return h->max;
}

double rtcosim_histogram_mean(const rtcosim_histogram *h)
{
    return h->count ? h->sum / (double)h->count : 0.0;
}

static const char *const policy_names[] = {"soft", "catch-up", "skip", "fail"};

const char *rtcosim_overrun_policy_name(rtcosim_overrun_policy policy)
{
    return (unsigned)policy < 4 ? policy_names[policy] : "?";
}

const char *rtcosim_rt_overrun_cause_name(rtcosim_rt_overrun_cause cause)
{
    static const char *const names[] = {"backlog", "execution", "wakeup"};
    return (unsigned)cause < 3 ? names[cause] : "?";
}

rtcosim_status rtcosim_overrun_policy_parse(const char *text, rtcosim_overrun_policy *out,
                                            rtcosim_error *err)
{
    for (int i = 0; text && i < 4; i++)
        if (strcmp(text, policy_names[i]) == 0) {
            *out = (rtcosim_overrun_policy)i;
            return RTCOSIM_OK;
        }
    return rtcosim_error_set(err, RTCOSIM_EINVAL,
                             "overrun policy '%s' is not one of soft, catch-up, skip, fail",
                             text ? text : "(null)");
}

rtcosim_status rtcosim_exchange_pattern_parse(const char *text, rtcosim_exchange_pattern *out,
                                              rtcosim_error *err)
{
    if (!text || !out)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "exchange pattern: NULL argument");
    rtcosim_exchange_pattern pattern = {0};
    const char *p = text;
    for (;;) {
        if (*p < '0' || *p > '9')
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "exchange pattern '%s': expected a frame count such as "
                                     "'1', '4' or '2-1-2-1'",
                                     text);
        char *end;
        errno = 0;
        unsigned long n = strtoul(p, &end, 10);
        if (errno || n == 0 || n > 1000000)
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "exchange pattern '%s': frame count must be 1..1000000",
                                     text);
        if (pattern.length == RTCOSIM_EXCHANGE_PATTERN_MAX)
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "exchange pattern '%s': more than %d entries", text,
                                     RTCOSIM_EXCHANGE_PATTERN_MAX);
        pattern.frames[pattern.length++] = (uint32_t)n;
        if (*end == '\0')
            break;
        if (*end != '-')
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "exchange pattern '%s': unexpected '%c' (separate counts "
                                     "with '-')",
                                     text, *end);
        p = end + 1;
    }
    *out = pattern;
    return RTCOSIM_OK;
}
