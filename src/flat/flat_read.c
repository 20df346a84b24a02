/* A results file read back for a language binding (flat.h:
 * rtcosim_flat_read_result): rtcosim's CSV (with its units row), a
 * Modelica/Dymola MAT file, an ASAM MDF 4 or 3 measurement, read as
 * `rtcosim plot` reads them (src/plot/plot_data.c), into the rows a run
 * returns: time and one Float64 column per numeric variable with its unit.
 * Text columns (a CSV's String and Binary results) are left out, counted in
 * the statistic "text_columns_left_out". With variables named
 * (rtcosim_flat_read_result_select) only those are read: a CSV a line at a
 * time, its other columns never held. rtcosim_flat_read_result_columns
 * hands the reader's columns over as they are (a binding copies them out). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flat_internal.h"
#include "plot/plot_internal.h"
#include "rtcosim/flat.h"
#include "util/pages.h"

struct rtcosim_result_columns {
    plot_table *t;
    rtcosim_time_ns *ns; /* the rows' times in ticks (for rows only) */
    size_t *cols;        /* the numeric columns' indices in t, then the text ones' */
    size_t count, text;
    size_t released; /* rows from here on released (rtcosim_result_columns_release_rows) */
};

void rtcosim_result_columns_free(rtcosim_result_columns *c)
{
    if (!c)
        return;
    result_table_free(c->t);
    free(c->ns);
    free(c->cols);
    free(c);
}

size_t rtcosim_result_columns_rows(const rtcosim_result_columns *c) { return c ? c->t->rows : 0; }
size_t rtcosim_result_columns_count(const rtcosim_result_columns *c) { return c ? c->count : 0; }
size_t rtcosim_result_columns_text_left_out(const rtcosim_result_columns *c)
{
    return c ? c->text : 0;
}

const char *rtcosim_result_columns_text_name(const rtcosim_result_columns *c, size_t index)
{
    return c && index < c->text ? c->t->columns[c->cols[c->count + index]].name : NULL;
}

const char *rtcosim_result_columns_name(const rtcosim_result_columns *c, size_t column)
{
    return c && column < c->count ? c->t->columns[c->cols[column]].name : NULL;
}

size_t rtcosim_result_columns_not_numbers(const rtcosim_result_columns *c, size_t column)
{
    return c && column < c->count ? c->t->columns[c->cols[column]].not_numbers : 0;
}

const char *rtcosim_result_columns_unit(const rtcosim_result_columns *c, size_t column)
{
    return c && column < c->count ? c->t->columns[c->cols[column]].unit : NULL;
}

const double *rtcosim_result_columns_time(const rtcosim_result_columns *c)
{
    return c ? c->t->time : NULL;
}

const double *rtcosim_result_columns_values(const rtcosim_result_columns *c, size_t column)
{
    return c && column < c->count ? c->t->columns[c->cols[column]].values : NULL;
}

void rtcosim_result_columns_release_rows(rtcosim_result_columns *c, size_t row)
{
    if (!c || row >= c->released)
        return;
    util_release_pages(c->t->time + row, c->t->time + c->released);
    for (size_t i = 0; i < c->count; i++)
        util_release_pages(c->t->columns[c->cols[i]].values + row,
                           c->t->columns[c->cols[i]].values + c->released);
    c->released = row;
}

/* The table's times to whole nanoseconds (kept for rows) and back to the
 * seconds those are (as a CSV's exact decimal time reads), the numeric
 * columns indexed, and what no caller reads (text cells, a measurement
 * channel's own samples) freed; the table is the result's, freed with it. */
static rtcosim_status columns_of_table(const char *path, plot_table *t, bool keep_ns,
                                       rtcosim_result_columns **out, rtcosim_error *err)
{
    rtcosim_result_columns *c = calloc(1, sizeof *c);
    if (!c) {
        result_table_free(t);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    }
    c->t = t;
    c->released = t->rows;
    if (keep_ns)
        c->ns = malloc((t->rows ? t->rows : 1) * sizeof *c->ns);
    c->cols = malloc((t->column_count ? t->column_count : 1) * sizeof *c->cols);
    if ((keep_ns && !c->ns) || !c->cols) {
        rtcosim_result_columns_free(c);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    }
    for (size_t k = 0; k < t->rows; k++) {
        rtcosim_time_ns ns;
        if (rtcosim_time_from_seconds(t->time[k], &ns, NULL) != RTCOSIM_OK) {
            rtcosim_status st = rtcosim_error_set(
                err, RTCOSIM_EFORMAT, "%s: point %zu: time %g s is not a time rtcosim can hold "
                "(ns since 0, up to about 292 years)", path, k + 1, t->time[k]);
            rtcosim_result_columns_free(c);
            return st;
        }
        t->time[k] = (double)ns / 1e9; /* correctly rounded, as ns / 1e9 in numpy did */
        if (keep_ns)
            c->ns[k] = ns;
    }
    for (size_t i = 0; i < t->column_count; i++) {
        result_column *col = &t->columns[i];
        free(col->own_time);
        free(col->own_values);
        col->own_time = col->own_values = NULL;
        if (col->text) {
            free(col->values);
            col->values = NULL;
            c->text++;
        } else {
            c->cols[c->count++] = i;
        }
    }
    for (size_t i = 0, k = 0; i < t->column_count; i++) /* (the text ones after) */
        if (t->columns[i].text)
            c->cols[c->count + k++] = i;
    *out = c;
    return RTCOSIM_OK;
}

static rtcosim_status read_columns(const char *path, const char *const *names, size_t count,
                                   bool keep_ns, rtcosim_result_columns **out, rtcosim_error *err);

/* The columns into rows (the columns are freed). */
static rtcosim_status rows_of_columns(const char *path, rtcosim_result_columns *c,
                                      rtcosim_rows **out, rtcosim_error *err)
{
    rtcosim_status st = RTCOSIM_OK;
    size_t n = c->count;
    const char **names = calloc(n + 1, sizeof *names);
    rtcosim_type *types = calloc(n + 1, sizeof *types);
    rtcosim_value *row = calloc(n + 1, sizeof *row);
    rtcosim_rows *r = NULL;
    if (!names || !types || !row)
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    for (size_t i = 0; st == RTCOSIM_OK && i < n; i++) {
        names[i] = rtcosim_result_columns_name(c, i);
        types[i] = RTCOSIM_TYPE_FLOAT64;
    }
    if (st == RTCOSIM_OK)
        st = rtcosim_rows_create(names, types, n, &r, err);
    for (size_t i = 0; st == RTCOSIM_OK && i < n; i++)
        st = rtcosim_rows_set_column_meta(r, i, rtcosim_result_columns_unit(c, i), NULL, false,
                                          err);
    for (size_t k = 0; st == RTCOSIM_OK && k < c->t->rows; k++) {
        for (size_t i = 0; i < n; i++)
            row[i].f64 = c->t->columns[c->cols[i]].values[k];
        st = rtcosim_rows_append(r, c->ns[k], row, err);
    }
    if (st == RTCOSIM_OK)
        st = rtcosim_rows_add_stat(r, "text_columns_left_out", (double)c->text, err);
    free(names);
    free(types);
    free(row);
    rtcosim_result_columns_free(c);
    if (st != RTCOSIM_OK) {
        rtcosim_rows_free(r);
        return st;
    }
    *out = r;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_flat_read_result(const char *path, rtcosim_rows **out, rtcosim_error *err)
{
    return rtcosim_flat_read_result_select(path, NULL, 0, out, err);
}

rtcosim_status rtcosim_flat_read_result_select(const char *path, const char *const *names,
                                               size_t count, rtcosim_rows **out,
                                               rtcosim_error *err)
{
    *out = NULL;
    rtcosim_result_columns *c = NULL;
    rtcosim_status st = read_columns(path, names, count, true, &c, err);
    return st == RTCOSIM_OK ? rows_of_columns(path, c, out, err) : st;
}

rtcosim_status rtcosim_flat_read_result_columns(const char *path, const char *const *names,
                                                size_t count, rtcosim_result_columns **out,
                                                rtcosim_error *err)
{
    *out = NULL;
    return read_columns(path, names, count, false, out, err);
}

static rtcosim_status read_columns(const char *path, const char *const *names, size_t count,
                                   bool keep_ns, rtcosim_result_columns **out, rtcosim_error *err)
{
    *out = NULL;
    if (!path)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "read_result: no file given");
    if (count && !names)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: read_result: no variable names given",
                                 path);
    for (size_t i = 0; i < count; i++)
        if (!names[i])
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: read_result: variable name %zu is NULL",
                                     path, i + 1);
    result_select select = {names, count};
    plot_table *t = NULL;
    rtcosim_status st = plot_table_read_select(path, count ? &select : NULL, &t, err);
    if (st != RTCOSIM_OK)
        return st;
    /* the names as the table resolves them (a pattern, the columns it
     * matches; each once); every one must be there (time always is): all
     * the missing ones in one line */
    const char **listed = NULL;
    size_t n = 0;
    if ((st = result_select_expand((const result_table *const *)&t, 1, names, count, &listed, &n,
                                   err)) != RTCOSIM_OK) {
        result_table_free(t);
        return st;
    }
    char missing[RTCOSIM_ERROR_MESSAGE_MAX] = "";
    size_t missed = 0, used = 0;
    const char *near_for = NULL; /* the one name missed that is no pattern */
    for (size_t i = 0; i < n; i++) {
        if (result_table_find(t, listed[i]) >= 0 || strcmp(listed[i], "time") == 0 ||
            (t->first_name && strcmp(listed[i], t->first_name) == 0))
            continue;
        bool pattern = result_name_is_pattern(listed[i]);
        int w = snprintf(missing + used, sizeof missing - used, "%s%s'%s'", missed ? ", " : "",
                         pattern ? "matching " : "", listed[i]);
        used = w < 0 || (size_t)w >= sizeof missing - used ? sizeof missing - 1 : used + (size_t)w;
        missed++;
        near_for = pattern ? NULL : listed[i];
    }
    if (missed) {
        /* one name missed: the nearest of the file's (its header read again) */
        char near[200] = "", name[160] = "";
        if (missed == 1 && near_for)
            plot_nearest_column(&path, &t, 1, true, near_for, name, sizeof name);
        if (name[0])
            snprintf(near, sizeof near, "; did you mean '%s'?", name);
        free(listed);
        result_table_free(t);
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: no variable%s %s in the results%s", path,
                                 missed > 1 ? "s" : "", missing, near);
    }
    if (count) /* (the reader kept what a pattern matches, a column's name too) */
        result_table_keep_listed(t, listed, n);
    free(listed);
    return columns_of_table(path, t, keep_ns, out, err);
}
