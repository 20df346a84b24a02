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
    memcpy(s->scratch, s->window, n * sizeof *s->scratch);
    sort_small(s->scratch, n);
    size_t rank = (size_t)ceil(q * (double)n);
    if (rank < 1)
        rank = 1;
    if (rank > n)
        rank = n;
    return s->scratch[rank - 1];
}

double anytime_stats_estimate(anytime_stats *s, rtcosim_anytime_estimate kind, double q)
{
    if (s->count == 0)
        return INFINITY;
    switch (kind) {
    case RTCOSIM_ANYTIME_ESTIMATE_MEAN:
        return s->mean;
    case RTCOSIM_ANYTIME_ESTIMATE_MAX:
        return s->max;
    case RTCOSIM_ANYTIME_ESTIMATE_QUANTILE:
    default:
        return anytime_stats_quantile(s, q);
    }
}
