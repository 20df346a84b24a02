/* A results file or measurement converted to another results format
 * (results.h: rtcosim_results_convert, `rtcosim convert`): read as `rtcosim
 * plot` reads it (rtcosim's or fmusim's CSV with or without a units row, a
 * Modelica/Dymola MAT file, an ASAM MDF 4 or 3 measurement; only the named
 * variables when some are named), cut to a time window, and written by the
 * results recorder as a run writes its results (CSV as fmusim's, the Dymola
 * MAT layout, ASAM MDF 4.10), units kept. What an engineer does to hand a
 * logger's measurement to a spreadsheet, or a CSV to Dymola or CANape. A
 * CSV is read twice a line at a time (its columns, then its rows straight
 * to the recorder), so a file of any length converts in little memory. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plot/plot_internal.h"
#include "rtcosim/results.h"

enum { STOP_EVERY = 4096 }; /* rows between looks at the stop function */

typedef struct converting {
    const char *in;
    const rtcosim_results_convert_options *o;
    const result_select *sel;
    const result_table *t; /* the columns (a CSV's: no values, the rows come in a scan) */
    const size_t *cols;    /* the columns written, in t */
    size_t count;
    rtcosim_value *row;
    rtcosim_recorder *rec;
    size_t *file_col; /* a scanned CSV: each of t's columns' place in the file's rows */
    size_t line;      /* rows of the input seen */
    size_t rows;      /* rows written */
    bool stopped;
} converting;

/* One row of the input, its values in c->row: written when inside the
 * window; RTCOSIM_ECANCELED with c->stopped when the stop function says so. */
static rtcosim_status put_row(converting *c, double s, rtcosim_error *err)
{
    size_t k = c->line++;
    const rtcosim_results_convert_options *o = c->o;
    if ((!isnan(o->from) && s < o->from) || (!isnan(o->to) && s > o->to))
        return RTCOSIM_OK;
    rtcosim_time_ns time;
    if (rtcosim_time_from_seconds(s, &time, NULL) != RTCOSIM_OK)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: row %zu: time %g s is not a time "
                                 "rtcosim can hold (ns, up to about 292 years either way)", c->in,
                                 k + 1, s);
    if (c->rows % STOP_EVERY == 0 && c->rows && o->stop && o->stop(o->stop_context)) {
        c->stopped = true;
        return RTCOSIM_ECANCELED;
    }
    rtcosim_status st = rtcosim_recorder_push_row_always(c->rec, time, c->row, err);
    c->rows += st == RTCOSIM_OK;
    return st;
}

/* ---- a CSV's rows taken in a second scan (the first found its columns) ---- */

static rtcosim_status scan_header(void *context, const char *first, size_t count,
                                  char *const *names, rtcosim_error *err)
{
    (void)first;
    converting *c = context;
    size_t kept = 0;
    for (size_t f = 0; f < count; f++)
        if (result_select_has(c->sel, names[f])) {
            if (kept == c->t->column_count || strcmp(names[f], c->t->columns[kept].name) != 0)
                return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: the file changed while it "
                                         "was read", c->in);
            c->file_col[kept++] = f;
        }
    return RTCOSIM_OK;
}

static rtcosim_status scan_row(void *context, double time, char *const *cells, rtcosim_error *err)
{
    converting *c = context;
    for (size_t i = 0; i < c->count; i++)
        plot_csv_number(cells[c->file_col[c->cols[i]]], &c->row[i].f64);
    return put_row(c, time, err);
}

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
    /* a CSV is read twice a line at a time (its columns and which are text,
     * then its rows straight into the recorder): no whole file held */
    bool scan = plot_csv_streams(in);
    if ((st = scan ? plot_csv_read_kinds(in, &sel, o->stop, o->stop_context, &t, err)
                   : plot_table_read_select(in, &sel, &t, err)) != RTCOSIM_OK) {
        if (st == RTCOSIM_ECANCELED && scan && stats)
            stats->stopped = true; /* (in the first pass: nothing written) */
        return st;
    }
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
    size_t *file_col = scan ? calloc(t->column_count + 1, sizeof *file_col) : NULL;
    if (st == RTCOSIM_OK && (!cols || !columns || !row || (scan && !file_col)))
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
    converting c = {.in = in, .o = o, .sel = &sel, .t = t, .cols = cols, .count = count,
                    .row = row, .file_col = file_col};
    if (st == RTCOSIM_OK) {
        rtcosim_recorder_options ro = {.path = out, .columns = columns, .column_count = count,
                                       .csv_units = o->csv_units};
        st = rtcosim_recorder_open(&ro, &c.rec, err);
    }
    if (st == RTCOSIM_OK && scan) {
        plot_csv_sink sink = {.context = &c, .header = scan_header, .row = scan_row};
        st = plot_csv_scan(in, &sink, NULL, err);
    }
    for (size_t k = 0; st == RTCOSIM_OK && !scan && k < t->rows; k++) {
        for (size_t i = 0; i < count; i++)
            row[i].f64 = t->columns[cols[i]].values[k];
        st = put_row(&c, t->time[k], err);
    }
    if (c.stopped)
        st = RTCOSIM_OK; /* (what was written is kept) */
    if (c.rec) {
        rtcosim_error closing;
        rtcosim_status cs = rtcosim_recorder_close(c.rec, NULL, &closing);
        if (st == RTCOSIM_OK && cs != RTCOSIM_OK) {
            st = cs;
            if (err)
                *err = closing;
        }
        if (st != RTCOSIM_OK)
            unlink(out); /* no half-written results (a stop keeps its rows) */
    }
    if (stats) {
        stats->rows = c.rows;
        stats->columns = count;
        stats->text_columns_left_out = text;
        stats->stopped = c.stopped;
    }
    free(cols);
    free(columns);
    free(row);
    free(file_col);
    result_table_free(t);
    return st == RTCOSIM_OK && c.stopped ? RTCOSIM_ECANCELED : st;
}
