/* The in-memory results table of the flat API (flat.h): rows of a run kept
 * as times and rtcosim_value cells that a language binding copies out as
 * arrays, plus the run's named statistics, and the progress report throttled
 * for a binding's callback. Growth doubles the arrays, so a row costs
 * amortized O(columns); this table serves scripting, not the real-time path. */
#include "flat_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/pages.h"

rtcosim_status rtcosim_rows_create(const char *const *names, const rtcosim_type *types,
                                   size_t columns, rtcosim_rows **out, rtcosim_error *err)
{
    *out = NULL;
    rtcosim_rows *r = calloc(1, sizeof *r);
    if (!r)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory for the results");
    r->columns = columns;
    r->released_from = SIZE_MAX;
    r->names = calloc(columns + 1, sizeof *r->names);
    r->types = calloc(columns + 1, sizeof *r->types);
    r->units = calloc(columns + 1, sizeof *r->units);
    r->descriptions = calloc(columns + 1, sizeof *r->descriptions);
    r->parameters = calloc(columns + 1, sizeof *r->parameters);
    if (!r->names || !r->types || !r->units || !r->descriptions || !r->parameters) {
        rtcosim_rows_free(r);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory for the results");
    }
    for (size_t i = 0; i < columns; i++) {
        r->types[i] = types[i];
        if (!(r->names[i] = strdup(names[i]))) {
            rtcosim_rows_free(r);
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory for the results");
        }
    }
    *out = r;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_rows_append(rtcosim_rows *r, rtcosim_time_ns t, const rtcosim_value *values,
                                   rtcosim_error *err)
{
    if (r->count == r->capacity) {
        size_t cap = r->capacity ? 2 * r->capacity : 256;
        rtcosim_time_ns *times = realloc(r->times, cap * sizeof *times);
        if (times)
            r->times = times;
        rtcosim_value *cells = realloc(r->values, cap * (r->columns ? r->columns : 1) * sizeof *cells);
        if (cells)
            r->values = cells;
        if (!times || !cells)
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory after %zu result rows",
                                     r->count);
        r->capacity = cap;
    }
    rtcosim_value *row = r->values + r->count * r->columns;
    for (size_t i = 0; i < r->columns; i++) {
        row[i] = values[i];
        if (r->types[i] == RTCOSIM_TYPE_STRING &&
            !(row[i].s = strdup(values[i].s ? values[i].s : "")))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory for a String value");
        if (r->types[i] == RTCOSIM_TYPE_BINARY) { /* a copy of its own (the FMU's may change) */
            size_t size = values[i].bin.data ? values[i].bin.size : 0;
            uint8_t *copy = malloc(size ? size : 1);
            if (!copy)
                return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory for a Binary value");
            if (size)
                memcpy(copy, values[i].bin.data, size);
            row[i].bin = (rtcosim_binary){.data = copy, .size = size};
        }
    }
    r->times[r->count++] = t;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_rows_set_column_meta(rtcosim_rows *r, size_t column, const char *unit,
                                            const char *description, bool parameter,
                                            rtcosim_error *err)
{
    if (column >= r->columns)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "no result column %zu", column);
    free(r->units[column]);
    free(r->descriptions[column]);
    r->units[column] = unit && *unit ? strdup(unit) : NULL;
    r->descriptions[column] = description && *description ? strdup(description) : NULL;
    r->parameters[column] = parameter;
    if ((unit && *unit && !r->units[column]) ||
        (description && *description && !r->descriptions[column]))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory for the results");
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_rows_add_stat(rtcosim_rows *r, const char *name, double value,
                                     rtcosim_error *err)
{
    if (r->stat_count == RTCOSIM_ROWS_MAX_STATS)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "too many statistics ('%s')", name);
    snprintf(r->stat_names[r->stat_count], sizeof r->stat_names[0], "%s", name);
    r->stat_values[r->stat_count++] = value;
    return RTCOSIM_OK;
}

size_t rtcosim_rows_count(const rtcosim_rows *r) { return r->count; }
size_t rtcosim_rows_column_count(const rtcosim_rows *r) { return r->columns; }
const char *rtcosim_rows_column_name(const rtcosim_rows *r, size_t column)
{
    return column < r->columns ? r->names[column] : NULL;
}
int rtcosim_rows_column_type(const rtcosim_rows *r, size_t column)
{
    return column < r->columns ? (int)r->types[column] : -1;
}
const char *rtcosim_rows_column_unit(const rtcosim_rows *r, size_t column)
{
    return column < r->columns ? r->units[column] : NULL;
}
const char *rtcosim_rows_column_description(const rtcosim_rows *r, size_t column)
{
    return column < r->columns ? r->descriptions[column] : NULL;
}
bool rtcosim_rows_column_parameter(const rtcosim_rows *r, size_t column)
{
    return column < r->columns && r->parameters[column];
}
const rtcosim_time_ns *rtcosim_rows_times(const rtcosim_rows *r) { return r->times; }
const rtcosim_value *rtcosim_rows_values(const rtcosim_rows *r) { return r->values; }
size_t rtcosim_rows_stat_count(const rtcosim_rows *r) { return r->stat_count; }
const char *rtcosim_rows_stat_name(const rtcosim_rows *r, size_t index)
{
    return index < r->stat_count ? r->stat_names[index] : NULL;
}
double rtcosim_rows_stat_value(const rtcosim_rows *r, size_t index)
{
    return index < r->stat_count ? r->stat_values[index] : 0;
}

void rtcosim_rows_release_rows(rtcosim_rows *r, size_t row)
{
    size_t end = r && r->released_from < r->count ? r->released_from : r ? r->count : 0;
    if (row >= end)
        return;
    for (size_t i = 0; i < r->columns; i++)
        if (r->types[i] == RTCOSIM_TYPE_STRING || r->types[i] == RTCOSIM_TYPE_BINARY)
            return; /* (their cells point to copies that rtcosim_rows_free frees) */
    util_release_pages(r->times + row, r->times + end);
    util_release_pages(r->values + row * r->columns, r->values + end * r->columns);
    r->released_from = row;
}

void rtcosim_rows_free(rtcosim_rows *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->columns; i++) {
        if (r->types && r->types[i] == RTCOSIM_TYPE_STRING)
            for (size_t k = 0; k < r->count; k++)
                free((char *)r->values[k * r->columns + i].s);
        if (r->types && r->types[i] == RTCOSIM_TYPE_BINARY)
            for (size_t k = 0; k < r->count; k++)
                free((uint8_t *)r->values[k * r->columns + i].bin.data);
        if (r->names)
            free(r->names[i]);
        if (r->units)
            free(r->units[i]);
        if (r->descriptions)
            free(r->descriptions[i]);
    }
    free(r->names);
    free(r->units);
    free(r->descriptions);
    free(r->parameters);
    free(r->types);
    free(r->times);
    free(r->values);
    free(r);
}

/* Progress throttled to whole percents, so that a binding's callback costs
 * nothing per step: called when the whole percent of the interval reached
 * grew (in integers, so that 0.29 s of 1 s is 29 %, not 28.999...), hence at
 * most once per percent and once at 100 % however often the end is
 * reported (the last step, then the run's end). */
rtcosim_status rtcosim_flat_report(rtcosim_flat_progress_state *p, rtcosim_time_ns t,
                                   rtcosim_error *err)
{
    if (!p->fn)
        return RTCOSIM_OK;
    rtcosim_time_ns span = p->stop - p->start;
    int percent = 100;
    if (span > 0 && t < p->stop)
        percent = t <= p->start ? 0 : (int)((__int128)(t - p->start) * 100 / span);
    if (percent <= p->reported)
        return RTCOSIM_OK;
    p->reported = percent;
    double fraction = percent == 100 ? 1.0 : (double)(t - p->start) / (double)span;
    if (p->fn(p->context, fraction, rtcosim_time_to_seconds(t)) != 0)
        return rtcosim_error_set(err, RTCOSIM_ECANCELED, "cancelled by the progress callback");
    return RTCOSIM_OK;
}
