/* `rtcosim info RESULT.csv|.mat` (rtcosim_results_print_table): a results
 * file read as `plot` reads it (plot_data.c), summed up as `info` sums up an
 * MDF measurement: its rows, time span and step, and per column its unit,
 * minimum, maximum and cells that are no number. A CSV is summed up in one
 * pass a line at a time (plot_csv.c), no column held: a run's results of
 * gigabytes cost the longest line; a Dymola-layout MAT v4 file a slab of
 * time points at a time (result_mat_stream_select). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "plot_internal.h"
#include "rtcosim/results.h"

/* What info prints of a table, summed up as its rows come. */
typedef struct column_sum {
    char *name, *unit;
    bool text, empty; /* (empty: a CSV's, no cell holds anything) */
    size_t numbers, words, missing;
    double lo, hi; /* of the cells that are numbers and not NaN */
    /* a CSV's: the cells that are integer literals, their extremes exactly
     * (a double rounds past 2^53, %g past 6 digits) */
    size_t ints;
    __int128 ilo, ihi;
    bool fractional; /* a number that is not whole (else the extremes print whole) */
} column_sum;

typedef struct table_sum {
    const char *path;
    char *first_name;
    size_t rows, count;
    double first, last, step_lo, step_hi;
    column_sum *columns;
} table_sum;

static rtcosim_status sum_header(void *context, const char *first, size_t count,
                                 char *const *names, rtcosim_error *err)
{
    table_sum *s = context;
    s->step_lo = INFINITY, s->step_hi = 0;
    if (!(s->first_name = strdup(first)) || !(s->columns = calloc(count + 1, sizeof *s->columns)))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", s->path);
    s->count = count;
    for (size_t c = 0; c < count; c++) {
        s->columns[c].lo = INFINITY, s->columns[c].hi = -INFINITY;
        if (!(s->columns[c].name = strdup(names[c])))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", s->path);
    }
    return RTCOSIM_OK;
}

/* A number of a column taken into its sums. */
static void sum_value(column_sum *col, double v)
{
    if (isnan(v)) {
        col->missing++;
        return;
    }
    col->lo = v < col->lo ? v : col->lo;
    col->hi = v > col->hi ? v : col->hi;
    col->fractional = col->fractional || v != nearbyint(v);
}

static rtcosim_status sum_row(void *context, double time, char *const *cells, rtcosim_error *err)
{
    (void)err;
    table_sum *s = context;
    if (s->rows == 0) {
        s->first = time;
    } else {
        double d = time - s->last;
        s->step_lo = d < s->step_lo ? d : s->step_lo;
        s->step_hi = d > s->step_hi ? d : s->step_hi;
    }
    s->last = time;
    s->rows++;
    for (size_t c = 0; c < s->count; c++) {
        column_sum *col = &s->columns[c];
        double v;
        plot_cell kind = plot_csv_number(cells[c], &v);
        col->numbers += kind == PLOT_CELL_NUMBER;
        col->words += kind == PLOT_CELL_WORD;
        bool negative;
        uint64_t m;
        if (kind == PLOT_CELL_NUMBER && plot_csv_integer(cells[c], &negative, &m)) {
            __int128 i = negative ? -(__int128)m : (__int128)m;
            col->ilo = col->ints == 0 || i < col->ilo ? i : col->ilo;
            col->ihi = col->ints == 0 || i > col->ihi ? i : col->ihi;
            col->ints++;
        }
        sum_value(col, v);
    }
    return RTCOSIM_OK;
}

/* A row's time and a number of column c taken into the sums. */
static void sum_time(table_sum *s, double time)
{
    if (s->rows > 0) {
        double d = time - s->last;
        s->step_lo = d < s->step_lo ? d : s->step_lo;
        s->step_hi = d > s->step_hi ? d : s->step_hi;
    } else {
        s->first = time;
    }
    s->last = time;
    s->rows++;
}

static void sum_free(table_sum *s)
{
    for (size_t c = 0; s->columns && c < s->count; c++) {
        free(s->columns[c].name);
        free(s->columns[c].unit);
    }
    free(s->columns);
    free(s->first_name);
}

/* A results CSV summed up in one scan. */
static rtcosim_status sum_csv(const char *path, table_sum *s, rtcosim_error *err)
{
    *s = (table_sum){.path = path};
    plot_csv_sink sink = {.context = s, .header = sum_header, .row = sum_row};
    char *row = NULL, **units = NULL;
    rtcosim_status st = plot_csv_scan(path, &sink, &row, err);
    if (st == RTCOSIM_OK && !(units = calloc(s->count + 1, sizeof *units)))
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    if (st == RTCOSIM_OK)
        st = plot_csv_units(path, row, s->count, units, err);
    for (size_t c = 0; st == RTCOSIM_OK && c < s->count; c++) {
        s->columns[c].unit = units[c];
        s->columns[c].text = s->columns[c].words > 0 && s->columns[c].numbers == 0;
        s->columns[c].empty = s->columns[c].words == 0 && s->columns[c].numbers == 0;
    }
    free(units);
    free(row);
    if (st != RTCOSIM_OK)
        sum_free(s);
    return st;
}

/* The sums of a table's columns begun: names, units, text kinds. */
static rtcosim_status sum_columns(table_sum *s, const result_table *t, rtcosim_error *err)
{
    char **names = calloc(t->column_count + 1, sizeof *names);
    if (!names)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", s->path);
    for (size_t c = 0; c < t->column_count; c++)
        names[c] = t->columns[c].name;
    rtcosim_status st =
        sum_header(s, t->first_name ? t->first_name : "time", t->column_count, names, err);
    free(names);
    for (size_t c = 0; st == RTCOSIM_OK && c < t->column_count; c++) {
        s->columns[c].text = t->columns[c].text;
        s->columns[c].empty = t->columns[c].empty;
        if (t->columns[c].unit && !(s->columns[c].unit = strdup(t->columns[c].unit)))
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", s->path);
    }
    return st;
}

/* A table read whole (a MAT file, or a CSV with RTCOSIM_CSV_WHOLE=1)
 * summed up the same way. */
static rtcosim_status sum_table(const char *path, table_sum *s, rtcosim_error *err)
{
    *s = (table_sum){.path = path};
    plot_table *t = NULL;
    rtcosim_status st = plot_table_read(path, &t, err);
    if (st != RTCOSIM_OK)
        return st;
    st = sum_columns(s, t, err);
    for (size_t k = 0; st == RTCOSIM_OK && k < t->rows; k++) {
        sum_time(s, t->time[k]);
        for (size_t c = 0; c < t->column_count; c++)
            sum_value(&s->columns[c], t->columns[c].values[k]);
    }
    plot_table_free(t);
    if (st != RTCOSIM_OK)
        sum_free(s);
    return st;
}

/* ---- a MAT file's rows summed up as its slabs are read ---- */

static rtcosim_status stream_sum_columns(void *context, result_table *t, rtcosim_error *err)
{
    rtcosim_status st = sum_columns(context, t, err);
    result_table_free(t);
    return st;
}

static rtcosim_status stream_sum_row(void *context, double time, const double *values,
                                     const uint64_t *bits, rtcosim_error *err)
{
    (void)bits, (void)err; /* (a summary in doubles) */
    table_sum *s = context;
    sum_time(s, time);
    for (size_t c = 0; c < s->count; c++)
        sum_value(&s->columns[c], values[c]);
    return RTCOSIM_OK;
}

/* A MAT file summed up as its rows are read; *streamed false (nothing
 * done) when its data_2 is not read so (sum_table then). */
static rtcosim_status sum_mat(const char *path, table_sum *s, bool *streamed, rtcosim_error *err)
{
    *s = (table_sum){.path = path};
    result_row_sink sink = {.context = s, .columns = stream_sum_columns, .row = stream_sum_row};
    result_stream_outcome outcome;
    rtcosim_status st = result_mat_stream_select(path, NULL, &sink, &outcome, err);
    *streamed = outcome == RESULT_STREAMED;
    if (st != RTCOSIM_OK)
        sum_free(s);
    return st;
}

/* i (-2^63 .. 2^64 - 1) in decimal into buf[24]; buf. */
static const char *integer_text(__int128 i, char *buf)
{
    if (i < 0)
        snprintf(buf, 24, "%" PRId64, (int64_t)i);
    else
        snprintf(buf, 24, "%" PRIu64, (uint64_t)i);
    return buf;
}

rtcosim_status rtcosim_results_print_table(const char *path, FILE *out, rtcosim_error *err)
{
    table_sum s;
    const char *dot = strrchr(path, '.');
    bool mat = dot && strcasecmp(dot, ".mat") == 0, streamed = false;
    rtcosim_status st = plot_csv_streams(path) ? sum_csv(path, &s, err)
                        : mat                  ? sum_mat(path, &s, &streamed, err)
                                               : sum_table(path, &s, err);
    if (st == RTCOSIM_OK && mat && !streamed)
        st = sum_table(path, &s, err);
    if (st != RTCOSIM_OK)
        return st;
    size_t text = 0, empty = 0;
    for (size_t c = 0; c < s.count; c++) {
        text += s.columns[c].text;
        empty += s.columns[c].empty;
    }
    fprintf(out, "%-20s %s (%s)\n%-20s %zu", "results", path,
            mat ? "Modelica/Dymola MAT" : "CSV", "rows", s.rows);
    if (s.rows) {
        fprintf(out, ", %s %.9g .. %.9g", s.first_name, s.first, s.last);
        if (s.rows > 1 && s.step_hi - s.step_lo <= 1e-9 * s.step_hi)
            fprintf(out, ", step %.9g", s.step_hi);
        else if (s.rows > 1)
            fprintf(out, ", steps %.9g .. %.9g (events, variable steps)", s.step_lo, s.step_hi);
    }
    fprintf(out, "\n%-20s %zu numeric", "columns", s.count - text - empty);
    if (text)
        fprintf(out, ", %zu text (String, Binary)", text);
    if (empty)
        fprintf(out, ", %zu without a value", empty);
    fprintf(out, "\n\n%-40s %-10s %14s %14s %s\n", "column", "unit", "min", "max", "no number");
    for (size_t c = 0; c < s.count; c++) {
        const column_sum *col = &s.columns[c];
        if (col->text) {
            fprintf(out, "%-40s %-10s %14s\n", col->name, col->unit ? col->unit : "-", "(text)");
            continue;
        }
        char lo[24], hi[24];
        if (col->empty)
            fprintf(out, "%-40s %-10s %14s\n", col->name, col->unit ? col->unit : "-",
                    "(no value)");
        else if (col->missing == s.rows)
            fprintf(out, "%-40s %-10s %14s %14s %zu\n", col->name, col->unit ? col->unit : "-",
                    "-", "-", col->missing);
        else if (col->ints && col->ints == col->numbers)
            fprintf(out, "%-40s %-10s %14s %14s %zu\n", col->name, col->unit ? col->unit : "-",
                    integer_text(col->ilo, lo), integer_text(col->ihi, hi), col->missing);
        else if (!col->fractional && fabs(col->lo) < 1e15 && fabs(col->hi) < 1e15)
            fprintf(out, "%-40s %-10s %14.0f %14.0f %zu\n", col->name,
                    col->unit ? col->unit : "-", col->lo, col->hi, col->missing);
        else
            fprintf(out, "%-40s %-10s %14.6g %14.6g %zu\n", col->name,
                    col->unit ? col->unit : "-", col->lo, col->hi, col->missing);
    }
    sum_free(&s);
    return RTCOSIM_OK;
}
