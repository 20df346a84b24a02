/* Running execution-time statistics of anytime variants: mean (Welford's
 * update) and max over all samples, and a nearest-rank quantile over a ring
 * of recent samples, so that estimates follow the machine's current load. */
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
    s->scratch = calloc(window_size, sizeof *s->scratch);
    if (!s->window || !s->scratch) {
        anytime_stats_release(s);
        return false;
    }
    s->window_size = window_size;
    return true;
}

void anytime_stats_release(anytime_stats *s)
{
    free(s->window);
    free(s->scratch);
    s->window = s->scratch = NULL;
}

void anytime_stats_add(anytime_stats *s, double ns)
{
    s->count++;
    s->mean += (ns - s->mean) / (double)s->count; /* Welford, mean part */
    if (s->count == 1 || ns > s->max)
        s->max = ns;
    s->window[s->window_next] = ns;
    s->window_next = (s->window_next + 1) % s->window_size;
    if (s->window_len < s->window_size)
        s->window_len++;
    s->cached = false;
}


/* Insertion sort: the window is small (tens of samples) and this runs once
 * per decision, without allocation. */
static void sort_small(double *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        double x = v[i];
        size_t j = i;
        while (j > 0 && v[j - 1] > x) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

double anytime_stats_quantile(anytime_stats *s, double q)
{
    size_t n = s->window_len;
    if (n == 0)
        return NAN;
    /* Decisions ask every period, for several quantiles; the sorted copy
     * changes only with a sample. */
    if (!s->cached) {
        memcpy(s->scratch, s->window, n * sizeof *s->scratch);
        sort_small(s->scratch, n);
        s->cached = true;
    }
    size_t rank = (size_t)ceil(q * (double)n);
    if (rank < 1)
        rank = 1;
    if (rank > n)
        rank = n;
    return s->scratch[rank - 1];
}

/* One pass over the window: its mean, minimum and maximum. */
static void window_moments(const anytime_stats *s, double *mean, double *min, double *max)
{
    double sum = 0;
    *min = INFINITY;
    *max = -INFINITY;
    for (size_t i = 0; i < s->window_len; i++) {
        sum += s->window[i];
        *min = fmin(*min, s->window[i]);
        *max = fmax(*max, s->window[i]);
    }
    *mean = sum / (double)s->window_len;
}

double anytime_stats_window_min(const anytime_stats *s)
{
    if (s->window_len == 0)
        return INFINITY;
    double mean, min, max;
    window_moments(s, &mean, &min, &max);
    return min;
}

double anytime_stats_estimate(anytime_stats *s, rtcosim_anytime_estimate kind, double q)
{
    if (s->window_len == 0)
        return INFINITY;
    double mean, min, max;
    switch (kind) {
    case RTCOSIM_ANYTIME_ESTIMATE_QUANTILE:
        return anytime_stats_quantile(s, q);
    case RTCOSIM_ANYTIME_ESTIMATE_MAX:
        window_moments(s, &mean, &min, &max);
        return max;
    case RTCOSIM_ANYTIME_ESTIMATE_MEAN:
    default:
        window_moments(s, &mean, &min, &max);
        return mean;
    }
}
