/* Two result tables compared value by value (the MDF test and the MDF and
 * MAT fuzz targets compare a selected read with the whole one). */
#ifndef RTCOSIM_TESTS_TABLE_MATCH_H
#define RTCOSIM_TESTS_TABLE_MATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "results/result_table.h"

/* The same bits, or both NaN. */
static inline bool table_same_value(double a, double b)
{
    return (a != a && b != b) || memcmp(&a, &b, sizeof a) == 0;
}

/* The last row of t at time x (-1: none). */
static inline ptrdiff_t table_row_at(const result_table *t, double x)
{
    size_t lo = 0, hi = t->rows;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->time[mid] <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo && t->time[lo - 1] == x ? (ptrdiff_t)lo - 1 : -1;
}

#endif
