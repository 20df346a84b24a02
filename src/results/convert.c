/* A results file or measurement converted to another results format
 * (results.h: rtcosim_results_convert, `rtcosim convert`): read as `rtcosim
 * plot` reads it (rtcosim's or fmusim's CSV with or without a units row, a
 * Modelica/Dymola MAT file, an ASAM MDF 4 or 3 measurement; only the named
 * variables when some are named), cut to a time window, and written by the
 * results recorder as a run writes its results (CSV as fmusim's, the Dymola
 * MAT layout, ASAM MDF 4.10), units kept. What an engineer does to hand a
 * logger's measurement to a spreadsheet, or a CSV to Dymola or CANape. A
 * CSV is read twice a line at a time (its columns, then its rows straight
 * to the recorder), an MDF file a data block of each group at a time and a
 * Dymola-layout MAT v4 file a slab at a time, so a file of any length
 * converts in little memory. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "plot/plot_internal.h"
#include "rtcosim/log.h"
#include "rtcosim/results.h"
#include "util/array.h"

enum { STOP_EVERY = 4096 }; /* rows between looks at the stop function */

typedef struct converting {
    const char *in, *out;
    const rtcosim_results_convert_options *o;
    const result_select *sel;
    result_table *t;  /* the columns (a CSV's or a streamed MDF's: no values, the rows come
                         in a scan) */
    size_t *cols;     /* the columns written, in t */
    size_t count, text, empty; /* written; text, and (not to a CSV) empty, left out */
    bool keep_text;   /* CSV to CSV: columns of text kept (as String), else left out */
    /* an MDF file's exact column had an invalid sample (no integer type
     * holds none): redo, that column then in doubles (its name in inexact) */
    const char *redo;
    char **inexact;
    size_t inexact_count;
    bool csv_out;     /* OUT is a CSV: a column without a value stays, empty */
    rtcosim_column *columns;
    rtcosim_value *row;
    rtcosim_recorder *rec;
    const char **names; /* the variables named, patterns expanded over t */
    size_t name_count;
    size_t *file_col; /* a scanned CSV: each of t's columns' place in the file's rows */
    size_t line;      /* rows of the input seen */
    size_t rows;      /* rows written */
    bool stopped;
    /* a raster (o->raster > 0): its step and next point, the row before */
    rtcosim_time_ns step, next, to;
    bool have_to, have_prev;
    rtcosim_time_ns prev_t;
    rtcosim_value *prev, *point;
    /* the row before's text cells (the scan's cells last one row): per
     * written column a buffer, grown, never shrunk (no allocation per row) */
    char **prev_text;
    size_t *prev_text_cap;
} converting;

static bool is_text(const converting *c, size_t i)
{
    return c->columns[i].type == RTCOSIM_TYPE_STRING;
}

/* A 64-bit integer column carried exactly (result_column's exact). */
static bool is_exact(const converting *c, size_t i)
{
    return c->columns[i].type == RTCOSIM_TYPE_INT64 || c->columns[i].type == RTCOSIM_TYPE_UINT64;
}

/* The type a column of the input is written as: text a String (kept in a
 * CSV), 64-bit integers that a double would round in their type (unless the
 * raster interpolates between rows: then doubles), the rest Float64. */
static rtcosim_type column_type(const converting *c, const result_column *col)
{
    if (col->text)
        return RTCOSIM_TYPE_STRING;
    if (col->exact == RESULT_EXACT_NONE || (c->step > 0 && !c->o->hold))
        return RTCOSIM_TYPE_FLOAT64;
    for (size_t k = 0; k < c->inexact_count; k++)
        if (strcmp(c->inexact[k], col->name) == 0)
            return RTCOSIM_TYPE_FLOAT64;
    return col->exact == RESULT_EXACT_INT64 ? RTCOSIM_TYPE_INT64 : RTCOSIM_TYPE_UINT64;
}

/* An exact column's cell (an integer literal, as the first pass found it)
 * into v; false when it is not one now. */
static bool exact_cell(const char *cell, rtcosim_type type, rtcosim_value *v)
{
    char *end = NULL;
    errno = 0;
    if (type == RTCOSIM_TYPE_INT64)
        v->i64 = strtoll(cell, &end, 10);
    else if (*cell == '-')
        return false;
    else
        v->u64 = strtoull(cell, &end, 10);
    return end != cell && *end == '\0' && errno == 0;
}

/* A row to the recorder; RTCOSIM_ECANCELED with c->stopped when the stop
 * function says so. */
static rtcosim_status write_row(converting *c, rtcosim_time_ns time, const rtcosim_value *row,
                                rtcosim_error *err)
{
    const rtcosim_results_convert_options *o = c->o;
    if (c->rows % STOP_EVERY == 0 && c->rows && o->stop && o->stop(o->stop_context)) {
        c->stopped = true;
        return RTCOSIM_ECANCELED;
    }
    rtcosim_status st = rtcosim_recorder_push_row_always(c->rec, time, row, err);
    c->rows += st == RTCOSIM_OK;
    return st;
}

/* The raster's points before `until` (all that are left: until
 * INT64_MAX), from the row before them (c->prev at c->prev_t) and the row
 * after (c->row at t; NULL: none, the points at prev_t only). */
static rtcosim_status raster_points(converting *c, rtcosim_time_ns until, rtcosim_time_ns t,
                                    const rtcosim_value *after, rtcosim_error *err)
{
    rtcosim_status st = RTCOSIM_OK;
    while (st == RTCOSIM_OK && c->next < until && (!c->have_to || c->next <= c->to)) {
        if (c->next > c->prev_t && !after)
            break; /* (past the last row: no value) */
        const rtcosim_value *v = c->prev;
        if (c->next > c->prev_t && !c->o->hold) {
            double x0 = rtcosim_time_to_seconds(c->prev_t), x1 = rtcosim_time_to_seconds(t);
            double x = rtcosim_time_to_seconds(c->next);
            for (size_t i = 0; i < c->count; i++)
                if (is_text(c, i))
                    c->point[i].s = c->prev[i].s; /* text: the row before's, as --hold */
                else
                    c->point[i].f64 = result_interp(x0, c->prev[i].f64, x1, after[i].f64, x);
            v = c->point;
        }
        st = write_row(c, c->next, v, err);
        c->next += c->step;
    }
    return st;
}

/* One row of the input, its values in c->row: written when inside the
 * window, or (a raster) the raster's points up to it. */
static rtcosim_status put_row(converting *c, double s, rtcosim_error *err)
{
    size_t k = c->line++;
    const rtcosim_results_convert_options *o = c->o;
    bool raster = c->step > 0;
    if (!raster && ((!isnan(o->from) && s < o->from) || (!isnan(o->to) && s > o->to)))
        return RTCOSIM_OK;
    rtcosim_time_ns time;
    if (rtcosim_time_from_seconds(s, &time, NULL) != RTCOSIM_OK)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: row %zu: time %g s is not a time "
                                 "rtcosim can hold (ns, up to about 292 years either way)", c->in,
                                 k + 1, s);
    if (!raster)
        return write_row(c, time, c->row, err);
    rtcosim_status st = RTCOSIM_OK;
    if (!c->have_prev) {
        if (isnan(o->from))
            c->next = time; /* (the grid from the first row) */
        while (c->next < time) /* (no value before the first row) */
            c->next += c->step;
    } else {
        st = raster_points(c, time, time, c->row, err); /* (those at `time`: when it is past) */
    }
    memcpy(c->prev, c->row, c->count * sizeof *c->row);
    for (size_t i = 0; i < c->count; i++) { /* (the cells are the scan's, for this row only) */
        if (!is_text(c, i))
            continue;
        size_t n = strlen(c->row[i].s) + 1;
        if (!util_array_reserve(&c->prev_text[i], n - 1, &c->prev_text_cap[i], 1, 64))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", c->in);
        memcpy(c->prev_text[i], c->row[i].s, n);
        c->prev[i].s = c->prev_text[i];
    }
    c->prev_t = time;
    c->have_prev = true;
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
    for (size_t i = 0; i < c->count; i++) {
        const char *cell = cells[c->file_col[c->cols[i]]];
        if (is_text(c, i))
            c->row[i].s = cell;
        else if (!is_exact(c, i))
            plot_csv_number(cell, &c->row[i].f64);
        else if (!exact_cell(cell, c->columns[i].type, &c->row[i]))
            return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: the file changed while it was "
                                     "read ('%s' of row %zu is no longer a whole number)", c->in,
                                     c->columns[i].name, c->line + 1);
    }
    return put_row(c, time, err);
}

/* The error for a variable named that the input lacks (a pattern that
 * matches none of its columns). */
static rtcosim_status convert_missing(converting *c, const char *name, rtcosim_error *err)
{
    if (result_name_is_pattern(name))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: no variable matches '%s' in the "
                                 "results", c->in, name);
    char near[160];
    plot_nearest_column(&c->in, &c->t, 1, true, name, near, sizeof near);
    return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: no variable '%s' in the results%s%s%s",
                             c->in, name, near[0] ? "; did you mean '" : "", near,
                             near[0] ? "'?" : "");
}

/* The input's columns in t (taken over): the variables named checked, the
 * columns to write in the order named (else the file's), text ones kept as
 * String when c->keep_text (a CSV to a CSV) and left out otherwise, and the
 * recorder opened on them. */
static rtcosim_status prepare(converting *c, result_table *t, bool scan, rtcosim_error *err)
{
    const rtcosim_results_convert_options *o = c->o;
    c->t = t;
    /* (patterns: the columns they match, in the file's order) */
    rtcosim_status st = result_select_expand((const result_table *const *)&t, 1, o->variables,
                                             o->variable_count, &c->names, &c->name_count, err);
    for (size_t i = 0; i < c->name_count && st == RTCOSIM_OK; i++)
        if (result_table_find(t, c->names[i]) < 0)
            st = convert_missing(c, c->names[i], err);
    size_t n = o->variable_count ? c->name_count : t->column_count;
    c->cols = calloc(n ? n : 1, sizeof *c->cols);
    c->columns = calloc(n ? n : 1, sizeof *c->columns);
    c->row = calloc(n ? n : 1, sizeof *c->row);
    c->file_col = scan ? calloc(t->column_count + 1, sizeof *c->file_col) : NULL;
    if (st == RTCOSIM_OK && (!c->cols || !c->columns || !c->row || (scan && !c->file_col)))
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", c->in);
    for (size_t i = 0; i < n && st == RTCOSIM_OK; i++) {
        size_t k = o->variable_count ? (size_t)result_table_find(t, c->names[i]) : i;
        if (t->columns[k].text && !c->keep_text) {
            c->text++;
            continue;
        }
        if (t->columns[k].empty && !c->csv_out) {
            c->empty++; /* (nothing to hold: not a NaN channel of a String) */
            continue;
        }
        c->cols[c->count] = k;
        c->columns[c->count++] = (rtcosim_column){
            .name = t->columns[k].name,
            .type = column_type(c, &t->columns[k]),
            .unit = t->columns[k].unit};
    }
    if (st == RTCOSIM_OK && c->count == 0 && c->text + c->empty > 0) {
        char what[96];
        if (c->text && c->empty)
            snprintf(what, sizeof what, "%zu columns of text, %zu without a value", c->text,
                     c->empty);
        else
            snprintf(what, sizeof what, "%zu column%s %s", c->text + c->empty,
                     c->text + c->empty == 1 ? "" : "s", c->text ? "of text" : "without a value");
        st = rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: no numeric variable to convert (%s, "
                               "which convert leaves out)", c->in, what);
    }
    c->prev = calloc(n ? n : 1, sizeof *c->prev);
    c->point = calloc(n ? n : 1, sizeof *c->point);
    c->prev_text = calloc(n ? n : 1, sizeof *c->prev_text);
    c->prev_text_cap = calloc(n ? n : 1, sizeof *c->prev_text_cap);
    if (st == RTCOSIM_OK && (!c->prev || !c->point || !c->prev_text || !c->prev_text_cap))
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", c->in);
    if (st == RTCOSIM_OK) {
        rtcosim_recorder_options ro = {.path = c->out, .columns = c->columns,
                                       .column_count = c->count, .csv_units = o->csv_units,
                                       /* the reading here, the writing there (a 3 M-row
                                          CSV to CSV: 0.68 -> 0.52 s) */
                                       .writer_thread = rtcosim_recorder_writer_thread_pays(),
                                       /* (text whole: no cut at max_string_bytes) */
                                       .whole_text = true};
        st = rtcosim_recorder_open(&ro, &c->rec, err);
    }
    for (size_t i = 0; st == RTCOSIM_OK && i < c->count; i++)
        if (t->columns[c->cols[i]].empty)
            rtcosim_recorder_omit_column(c->rec, i); /* (a CSV's empty cells, as they were) */
    return st;
}

/* The recorder closed (its failure the result when st was OK), OUT removed
 * unless complete or stopped, the rest freed; the outcome. */
static rtcosim_status finish(converting *c, rtcosim_status st, rtcosim_error *err)
{
    if (c->stopped)
        st = RTCOSIM_OK; /* (what was written is kept) */
    if (c->rec) {
        rtcosim_error closing;
        rtcosim_status cs = rtcosim_recorder_close(c->rec, NULL, &closing);
        c->rec = NULL;
        if (st == RTCOSIM_OK && cs != RTCOSIM_OK) {
            st = cs;
            if (err)
                *err = closing;
        }
        if (st != RTCOSIM_OK)
            rtcosim_results_discard(c->out); /* no half-written results (a stop keeps its rows) */
    }
    free(c->names);
    free(c->cols);
    free(c->columns);
    free(c->row);
    free(c->file_col);
    free(c->prev);
    free(c->point);
    for (size_t i = 0; c->prev_text && i < c->count; i++)
        free(c->prev_text[i]);
    free(c->prev_text);
    free(c->prev_text_cap);
    result_table_free(c->t);
    c->names = NULL, c->cols = NULL, c->columns = NULL, c->row = NULL, c->file_col = NULL;
    c->t = NULL;
    c->prev = NULL, c->point = NULL, c->prev_text = NULL, c->prev_text_cap = NULL;
    return st == RTCOSIM_OK && c->stopped ? RTCOSIM_ECANCELED : st;
}

/* ---- an MDF channel group's records taken as they are read ---- */

static rtcosim_status stream_columns(void *context, result_table *t, rtcosim_error *err)
{
    return prepare(context, t, false, err);
}

static rtcosim_status stream_row(void *context, double time, const double *values,
                                 const uint64_t *bits, rtcosim_error *err)
{
    converting *c = context;
    for (size_t i = 0; i < c->count; i++) {
        if (!is_exact(c, i) || !bits) {
            c->row[i].f64 = values[c->cols[i]];
        } else if (isnan(values[c->cols[i]])) { /* (its invalidation bit) */
            c->redo = c->columns[i].name;
            return RTCOSIM_EFORMAT; /* (no message: the caller reads again) */
        } else {
            c->row[i].u64 = bits[c->cols[i]]; /* (an int64's two's complement too) */
        }
    }
    return put_row(c, time, err);
}

static void free_names(char **names, size_t count)
{
    for (size_t k = 0; k < count; k++)
        free(names[k]);
    free(names);
}

/* The ending of path's name ("" when none). */
static const char *ending(const char *path)
{
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    return dot && (!slash || dot > slash) ? dot : "";
}

/* An MDF input to stream (RTCOSIM_MDF_WHOLE=1: read its table, the
 * reference the tests compare with; a MAT file's is RTCOSIM_MAT_WHOLE=1). */
static bool streams_mdf(const char *path)
{
    const char *knob = getenv("RTCOSIM_MDF_WHOLE");
    return (strcasecmp(ending(path), ".mf4") == 0 || strcasecmp(ending(path), ".mdf") == 0) &&
           !(knob && strcmp(knob, "1") == 0);
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
    /* the raster's settings and the input: what a start again below takes */
    converting raster = {0};
    if (!(o->raster >= 0) || isinf(o->raster))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "convert: the raster must be a step in "
                                 "seconds > 0 (got %g)", o->raster);
    if (o->raster > 0) {
        if (rtcosim_time_from_seconds(o->raster, &raster.step, NULL) != RTCOSIM_OK ||
            raster.step <= 0)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "convert: a raster of %g s is not a "
                                     "step of whole nanoseconds > 0", o->raster);
        if (!isnan(o->from) &&
            rtcosim_time_from_seconds(o->from, &raster.next, NULL) != RTCOSIM_OK)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "convert: --from %g s is out of range",
                                     o->from);
        raster.have_to = !isnan(o->to) &&
                         rtcosim_time_from_seconds(o->to, &raster.to, NULL) == RTCOSIM_OK;
    }
    raster.in = in, raster.out = out, raster.o = o, raster.sel = &sel;
    raster.csv_out = format == RTCOSIM_RESULTS_CSV;
    converting c = raster;
    /* An MDF file goes straight from its records to the recorder, a data
     * block of each group held at a time (several groups merged by time on
     * the union of their times); a group whose times go back has its table
     * read (which sorts). A MAT file of binTrans data_2 (Dymola's,
     * OpenModelica's, rtcosim's) goes a slab of time points at a time. */
    result_stream_outcome outcome = RESULT_NOT_STREAMABLE;
    bool mat = strcasecmp(ending(in), ".mat") == 0;
    if (mat || streams_mdf(in)) {
        result_row_sink sink = {.context = &c, .columns = stream_columns, .row = stream_row};
        st = mat ? result_mat_stream_select(in, &sel, &sink, &outcome, err)
                 : result_mdf_stream_select(in, &sel, &sink, &outcome, err);
        while (c.redo) { /* (at most once for each 64-bit integer channel) */
            rtcosim_log(RTCOSIM_LOG_INFO, "results", "%s: '%s': an invalid sample of a 64-bit "
                        "integer channel: read again, that channel in doubles", in, c.redo);
            char **more = realloc(raster.inexact, (raster.inexact_count + 1) * sizeof *more);
            if (!more || !(more[raster.inexact_count] = strdup(c.redo))) {
                raster.inexact = more ? more : raster.inexact;
                st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", in);
                break;
            }
            raster.inexact = more;
            raster.inexact_count++;
            finish(&c, RTCOSIM_EFORMAT, NULL); /* (the rows so far dropped, OUT removed) */
            c = raster;
            st = result_mdf_stream_select(in, &sel, &sink, &outcome, err);
        }
        if (outcome == RESULT_OUT_OF_ORDER && st == RTCOSIM_OK) {
            rtcosim_log(RTCOSIM_LOG_INFO, "results", "%s: times out of order: read whole", in);
            finish(&c, RTCOSIM_EFORMAT, NULL); /* (the rows so far dropped, OUT removed) */
            c = raster; /* (the table that sorts holds doubles) */
        }
        if (st != RTCOSIM_OK && outcome != RESULT_STREAMED) {
            st = finish(&c, st, NULL);
            free_names(raster.inexact, raster.inexact_count);
            return st;
        }
    }
    if (outcome != RESULT_STREAMED) {
        /* a CSV is read twice a line at a time (its columns and which are
         * text, then its rows straight into the recorder): no whole file held */
        bool scan = plot_csv_streams(in);
        result_table *t = NULL;
        if ((st = scan ? plot_csv_read_kinds(in, &sel, o->stop, o->stop_context, &t, err)
                       : plot_table_read_select(in, &sel, &t, err)) != RTCOSIM_OK) {
            if (st == RTCOSIM_ECANCELED && scan && stats)
                stats->stopped = true; /* (in the first pass: nothing written) */
            return st;
        }
        /* a CSV's text cells come with its rows (the scan), and a CSV holds them */
        c.keep_text = scan && format == RTCOSIM_RESULTS_CSV;
        st = prepare(&c, t, scan, err);
        if (st == RTCOSIM_OK && scan) {
            plot_csv_sink sink = {.context = &c, .header = scan_header, .row = scan_row};
            st = plot_csv_scan(in, &sink, NULL, err);
        }
        for (size_t k = 0; st == RTCOSIM_OK && !scan && k < t->rows; k++) {
            for (size_t i = 0; i < c.count; i++)
                c.row[i].f64 = t->columns[c.cols[i]].values[k];
            st = put_row(&c, t->time[k], err);
        }
    }
    if (st == RTCOSIM_OK && c.step > 0 && c.have_prev) /* the raster's points at the last row */
        st = raster_points(&c, INT64_MAX, c.prev_t, NULL, err);
    if (stats) {
        stats->rows = c.rows;
        stats->columns = c.count;
        stats->text_columns_left_out = c.text;
        stats->empty_columns_left_out = c.empty;
        stats->stopped = c.stopped;
    }
    if (st == RTCOSIM_OK && !c.stopped && c.rows == 0) {
        /* a header alone is a file no reader takes (a results file has a
         * row): a window past the data is a mistake; finish removes OUT */
        char window[96] = "";
        if (!isnan(o->from) && !isnan(o->to))
            snprintf(window, sizeof window, " from %g s to %g s", o->from, o->to);
        else if (!isnan(o->from))
            snprintf(window, sizeof window, " from %g s on", o->from);
        else if (!isnan(o->to))
            snprintf(window, sizeof window, " up to %g s", o->to);
        st = rtcosim_error_set(err, RTCOSIM_EINVAL, "no row of %s%s: nothing written", in,
                               window);
    }
    st = finish(&c, st, err);
    free_names(raster.inexact, raster.inexact_count);
    return st;
}
