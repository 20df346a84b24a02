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

/* The rows an MDF stream hands over (result_mdf_stream_select's sink)
 * gathered into a table; failed when memory ran out. */
typedef struct table_gather {
    result_table *t;
    size_t cap;
    bool failed;
    size_t exact_rows;  /* rows with an exact column's bits */
    bool bits_differ;   /* an exact column's bits not its value (NaN: invalid) */
} table_gather;

static inline rtcosim_status table_gather_columns(void *context, result_table *t,
                                                  rtcosim_error *err)
{
    (void)err;
    ((table_gather *)context)->t = t;
    return RTCOSIM_OK;
}

static inline rtcosim_status table_gather_row(void *context, double time, const double *values,
                                              const uint64_t *bits, rtcosim_error *err)
{
    table_gather *g = (table_gather *)context;
    result_table *t = g->t;
    bool exact = false;
    for (size_t c = 0; bits && c < t->column_count; c++) {
        if (t->columns[c].exact == RESULT_EXACT_NONE || values[c] != values[c])
            continue;
        exact = true;
        double v = t->columns[c].exact == RESULT_EXACT_INT64 ? (double)(int64_t)bits[c]
                                                              : (double)bits[c];
        g->bits_differ = g->bits_differ || v != values[c];
    }
    g->exact_rows += exact;
    if (t->rows == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 64;
        double *p = (double *)realloc(t->time, cap * sizeof *p);
        if (p)
            t->time = p;
        for (size_t c = 0; p && c < t->column_count; c++)
            if ((p = (double *)realloc(t->columns[c].values, cap * sizeof *p)))
                t->columns[c].values = p;
        if (!p) {
            g->failed = true;
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
        }
        g->cap = cap;
    }
    t->time[t->rows] = time;
    for (size_t c = 0; c < t->column_count; c++)
        t->columns[c].values[t->rows] = values[c];
    t->rows++;
    return RTCOSIM_OK;
}

/* A stream's rows (g, outcome) against the selected table s of the same
 * file and selection: when it streamed, the gathered table is s bit for
 * bit (names, units, times, values held on a union of groups' times, NaN
 * as NaN); when a group's time went back or was NaN, s is in time order
 * (and the rows handed over until then were); else (no group read, or a
 * variable-length one) s holds no columns or is a union of times. NULL
 * when so, else what differs. */
static inline const char *table_stream_mismatch(const table_gather *g,
                                                result_stream_outcome outcome,
                                                const result_table *s)
{
    bool union_of_times = false;
    for (size_t c = 0; c < s->column_count; c++)
        union_of_times = union_of_times || s->columns[c].own_time;
    if (outcome == RESULT_OUT_OF_ORDER) {
        for (size_t r = 1; g->t && r < g->t->rows; r++)
            if (!(g->t->time[r - 1] <= g->t->time[r]))
                return "rows handed over out of order";
        for (size_t r = 1; r < s->rows; r++)
            if (!(s->time[r - 1] <= s->time[r]))
                return "a table out of time order";
        return NULL;
    }
    if (outcome != RESULT_STREAMED)
        return s->column_count == 0 || union_of_times ? NULL : "not streamed, yet one group's rows";
    const result_table *t = g->t;
    if (!t || t->rows != s->rows || t->column_count != s->column_count)
        return "another shape";
    if ((t->first_name == NULL) != (s->first_name == NULL) ||
        (t->first_name && strcmp(t->first_name, s->first_name) != 0))
        return "time named otherwise";
    for (size_t r = 0; r < t->rows; r++)
        if (!table_same_value(t->time[r], s->time[r]))
            return "another time";
    for (size_t c = 0; c < t->column_count; c++) {
        const result_column *a = &t->columns[c], *b = &s->columns[c];
        if (strcmp(a->name, b->name) != 0 || (a->unit == NULL) != (b->unit == NULL) ||
            (a->unit && strcmp(a->unit, b->unit) != 0))
            return "a column named otherwise or of another unit";
        for (size_t r = 0; r < t->rows; r++)
            if (!table_same_value(a->values[r], b->values[r]))
                return "another value";
    }
    return NULL;
}

#endif
