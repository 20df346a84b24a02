/* Shared pieces of the flat API's files (flat.h): the results table's
 * layout and builders, and the throttled progress report. */
#ifndef RTCOSIM_FLAT_INTERNAL_H
#define RTCOSIM_FLAT_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "rtcosim/flat.h"

#define RTCOSIM_ROWS_MAX_STATS 48

struct rtcosim_rows {
    size_t columns, count, capacity;
    char **names;
    rtcosim_type *types;
    char **units, **descriptions; /* per column, NULL where none */
    bool *parameters;
    rtcosim_time_ns *times;
    rtcosim_value *values;
    size_t stat_count;
    char stat_names[RTCOSIM_ROWS_MAX_STATS][40];
    double stat_values[RTCOSIM_ROWS_MAX_STATS];
    size_t released_from; /* rows from here on given back (rtcosim_rows_release_rows); SIZE_MAX: none */
};


rtcosim_status rtcosim_rows_create(const char *const *names, const rtcosim_type *types,
                                   size_t columns, rtcosim_rows **out, rtcosim_error *err);
rtcosim_status rtcosim_rows_append(rtcosim_rows *r, rtcosim_time_ns t, const rtcosim_value *values,
                                   rtcosim_error *err);
/* A column's unit, description and whether it is a parameter or constant
 * (copied; NULL texts stay NULL). */
rtcosim_status rtcosim_rows_set_column_meta(rtcosim_rows *r, size_t column, const char *unit,
                                            const char *description, bool parameter,
                                            rtcosim_error *err);
rtcosim_status rtcosim_rows_add_stat(rtcosim_rows *r, const char *name, double value,
                                     rtcosim_error *err);

typedef struct rtcosim_flat_progress_state {
    rtcosim_flat_progress fn;
    void *context;
    rtcosim_time_ns start, stop;
    int reported; /* whole percent reported last (0: none yet) */
} rtcosim_flat_progress_state;

rtcosim_status rtcosim_flat_report(rtcosim_flat_progress_state *p, rtcosim_time_ns t,
                                   rtcosim_error *err);

#endif
