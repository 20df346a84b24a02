/* A results file or measurement converted to another results format
 * (results.h: rtcosim_results_convert, `rtcosim convert`): read as `rtcosim
 * plot` reads it (rtcosim's or fmusim's CSV with or without a units row, a
 * Modelica/Dymola MAT file, an ASAM MDF 4 or 3 measurement; only the named
 * variables when some are named), cut to a time window, and written by the
 * results recorder as a run writes its results (CSV as fmusim's, the Dymola
 * MAT layout, ASAM MDF 4.10), units kept. What an engineer does to hand a
 * logger's measurement to a spreadsheet, or a CSV to Dymola or CANape. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plot/plot_internal.h"
#include "rtcosim/results.h"

enum { STOP_EVERY = 4096 }; /* rows between looks at the stop function */

rtcosim_status rtcosim_results_convert(const char *in, const char *out,
                                       const rtcosim_results_convert_options *o,
                                       rtcosim_results_convert_stats *stats, rtcosim_error *err)
{
    rtcosim_results_convert_options none = {.from = NAN, .to = NAN};
    if (!o)
        o = &none;
    if (stats)
        *stats = (rtcosim_results_convert_stats){0};
    if (!in || !out)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "convert: an input and an output file");
    if (!isnan(o->from) && !isnan(o->to) && o->from > o->to)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "convert: the window %g .. %g s is empty "
                                 "(from after to)", o->from, o->to);
    rtcosim_results_format format;
    rtcosim_status st = rtcosim_results_format_of(out, &format, err);
    if (st != RTCOSIM_OK)
        return st;
    result_select sel = {o->variables, o->variable_count};
    result_table *t = NULL;
    if ((st = plot_table_read_select(in, &sel, &t, err)) != RTCOSIM_OK)
        return st;
    for (size_t i = 0; i < o->variable_count && st == RTCOSIM_OK; i++)
        if (result_table_find(t, o->variables[i]) < 0) {
            char near[160];
            plot_nearest_column(&in, &t, 1, true, o->variables[i], near, sizeof near);
            st = rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: no variable '%s' in the results%s%s%s",
                                   in, o->variables[i], near[0] ? "; did you mean '" : "", near,
                                   near[0] ? "'?" : "");
        }
    /* the columns in the order named (else the file's), text ones left out */
    size_t n = o->variable_count ? o->variable_count : t->column_count, count = 0, text = 0;
    size_t *cols = calloc(n ? n : 1, sizeof *cols);
    rtcosim_column *columns = calloc(n ? n : 1, sizeof *columns);
    rtcosim_value *row = calloc(n ? n : 1, sizeof *row);
    if (st == RTCOSIM_OK && (!cols || !columns || !row))
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", in);
    for (size_t i = 0; i < n && st == RTCOSIM_OK; i++) {
        size_t c = o->variable_count ? (size_t)result_table_find(t, o->variables[i]) : i;
        if (t->columns[c].text) {
            text++;
            continue;
        }
        bool twice = false; /* (a variable named twice goes once) */
        for (size_t k = 0; k < count && !twice; k++)
            twice = cols[k] == c;
        if (twice)
            continue;
        cols[count] = c;
        columns[count++] = (rtcosim_column){.name = t->columns[c].name,
                                            .type = RTCOSIM_TYPE_FLOAT64,
                                            .unit = t->columns[c].unit};
    }
    rtcosim_recorder *rec = NULL;
    if (st == RTCOSIM_OK) {
        rtcosim_recorder_options ro = {.path = out, .columns = columns, .column_count = count,
                                       .csv_units = o->csv_units};
        st = rtcosim_recorder_open(&ro, &rec, err);
    }
    size_t rows = 0;
    bool stopped = false;
    for (size_t k = 0; k < t->rows && st == RTCOSIM_OK; k++) {
        double s = t->time[k];
        if ((!isnan(o->from) && s < o->from) || (!isnan(o->to) && s > o->to))
            continue;
        rtcosim_time_ns time;
        if (rtcosim_time_from_seconds(s, &time, NULL) != RTCOSIM_OK) {
            st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: row %zu: time %g s is not a time "
                                   "rtcosim can hold (ns, up to about 292 years either way)", in, k + 1, s);
            break;
        }
        if (rows % STOP_EVERY == 0 && rows && o->stop && o->stop(o->stop_context)) {
            stopped = true;
            break;
        }
        for (size_t i = 0; i < count; i++)
            row[i].f64 = t->columns[cols[i]].values[k];
        st = rtcosim_recorder_push_row_always(rec, time, row, err);
        rows += st == RTCOSIM_OK;
    }
    if (rec) {
        rtcosim_error closing;
        rtcosim_status cs = rtcosim_recorder_close(rec, NULL, &closing);
        if (st == RTCOSIM_OK && cs != RTCOSIM_OK) {
            st = cs;
            if (err)
                *err = closing;
        }
        if (st != RTCOSIM_OK)
            unlink(out); /* no half-written results (a stop keeps its rows) */
    }
    if (stats) {
        stats->rows = rows;
        stats->columns = count;
        stats->text_columns_left_out = text;
        stats->stopped = stopped;
    }
    free(cols);
    free(columns);
    free(row);
    result_table_free(t);
    return st == RTCOSIM_OK && stopped ? RTCOSIM_ECANCELED : st;
}
