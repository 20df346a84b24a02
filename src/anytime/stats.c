/* Running execution-time statistics of anytime variants: mean (Welford's
 * update) and max over all samples, and a nearest-rank quantile over a ring
 * of recent samples, so that estimates follow the machine's current load.
 * A sorted copy of the ring is kept up to date per sample (one removal and
 * one insertion), so that the several quantiles asked per period cost a
 * lookup each. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anytime/anytime_internal.h"

bool anytime_stats_init(anytime_stats *s, size_t window_size)
{
    memset(s, 0, sizeof *s);
    if (window_size == 0)
        window_size = 1;
    s->window = calloc(window_size, sizeof *s->window);
    s->sorted = calloc(window_size, sizeof *s->sorted);
    if (!s->window || !s->sorted) {
        anytime_stats_release(s);
        return false;
    }
    s->window_size = window_size;
    return true;
}

void anytime_stats_release(anytime_stats *s)
{
    free(s->window);
    free(s->sorted);
    s->window = s->sorted = NULL;
}

/* First index of sorted v[0..n) whose value is not below x. */
static size_t lower_bound(const double *v, size_t n, double x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void anytime_stats_add(anytime_stats *s, double ns)
{
    s->count++;
    s->mean += (ns - s->mean) / (double)s->count; /* Welford, mean part */
    if (s->count == 1 || ns > s->max)
        s->max = ns;
    size_t n = s->window_len;
    double *sorted = s->sorted;
    if (n == s->window_size) {
        /* the ring's oldest sample leaves the sorted copy */
        size_t out = lower_bound(sorted, n, s->window[s->window_next]);
        memmove(sorted + out, sorted + out + 1, (n - out - 1) * sizeof *sorted);
        n--;
    }
    size_t in = lower_bound(sorted, n, ns);
    memmove(sorted + in + 1, sorted + in, (n - in) * sizeof *sorted);
    sorted[in] = ns;
    s->window[s->window_next] = ns;
    s->window_next = (s->window_next + 1) % s->window_size;
    if (s->window_len < s->window_size)
        s->window_len++;
}

double anytime_stats_quantile(anytime_stats *s, double q)
{
    size_t n = s->window_len;
    if (n == 0)
        return NAN;
    size_t rank = (size_t)ceil(q * (double)n);
    if (rank < 1)
        rank = 1;
    if (rank > n)
        rank = n;
    return s->sorted[rank - 1];
}

/* Mean of the window (one pass; min and max come from the sorted copy). */
static double window_mean(const anytime_stats *s)
{
    double sum = 0;
    for (size_t i = 0; i < s->window_len; i++)
        sum += s->window[i];
    return sum / (double)s->window_len;
}

double anytime_stats_window_min(const anytime_stats *s)
{
    return s->window_len ? s->sorted[0] : INFINITY;
}

double anytime_stats_estimate(anytime_stats *s, rtcosim_anytime_estimate kind, double q)
{
    if (s->window_len == 0)
        return INFINITY;
    switch (kind) {
    case RTCOSIM_ANYTIME_ESTIMATE_QUANTILE:
        return anytime_stats_quantile(s, q);
    case RTCOSIM_ANYTIME_ESTIMATE_MAX:
        return s->sorted[s->window_len - 1];
    case RTCOSIM_ANYTIME_ESTIMATE_MEAN:
    default:
        return window_mean(s);
    }
}
