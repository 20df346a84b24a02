/* A results file read back for a language binding (flat.h:
 * rtcosim_flat_read_result): rtcosim's CSV (with its units row), a
 * Modelica/Dymola MAT file, an ASAM MDF 4 or 3 measurement, read as
 * `rtcosim plot` reads them (src/plot/plot_data.c), into the rows a run
 * returns: time and one Float64 column per numeric variable with its unit.
 * Text columns (a CSV's String and Binary results) are left out, counted in
 * the statistic "text_columns_left_out". With variables named
 * (rtcosim_flat_read_result_select) only those are read: a CSV a line at a
 * time, its other columns never held. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flat_internal.h"
#include "plot/plot_internal.h"
#include "rtcosim/flat.h"

/* A table's numeric columns into rows (the table is freed). */
static rtcosim_status rows_of_table(const char *path, plot_table *t, rtcosim_rows **out,
                                    rtcosim_error *err)
{
    rtcosim_status st = RTCOSIM_OK;
    size_t n = 0, text = 0;
    const char **names = calloc(t->column_count + 1, sizeof *names);
    rtcosim_type *types = calloc(t->column_count + 1, sizeof *types);
    size_t *cols = calloc(t->column_count + 1, sizeof *cols);
    rtcosim_value *row = calloc(t->column_count + 1, sizeof *row);
    rtcosim_rows *r = NULL;
    if (!names || !types || !cols || !row)
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    for (size_t c = 0; st == RTCOSIM_OK && c < t->column_count; c++) {
        if (t->columns[c].text) {
            text++;
            continue;
        }
        names[n] = t->columns[c].name;
        types[n] = RTCOSIM_TYPE_FLOAT64;
        cols[n++] = c;
    }
    if (st == RTCOSIM_OK)
        st = rtcosim_rows_create(names, types, n, &r, err);
    for (size_t i = 0; st == RTCOSIM_OK && i < n; i++)
        st = rtcosim_rows_set_column_meta(r, i, t->columns[cols[i]].unit, NULL, false, err);
    for (size_t k = 0; st == RTCOSIM_OK && k < t->rows; k++) {
        rtcosim_time_ns time;
        if (rtcosim_time_from_seconds(t->time[k], &time, NULL) != RTCOSIM_OK) {
            st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: point %zu: time %g s is not a time "
                                   "rtcosim can hold (ns since 0, up to about 292 years)", path,
                                   k + 1, t->time[k]);
            break;
        }
        for (size_t i = 0; i < n; i++)
            row[i].f64 = t->columns[cols[i]].values[k];
        st = rtcosim_rows_append(r, time, row, err);
    }
    if (st == RTCOSIM_OK)
        st = rtcosim_rows_add_stat(r, "text_columns_left_out", (double)text, err);
    free(names);
    free(types);
    free(cols);
    free(row);
    result_table_free(t);
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
    /* every name asked for must be there (time always is): all the missing
     * ones in one line */
    char missing[RTCOSIM_ERROR_MESSAGE_MAX] = "";
    size_t missed = 0, used = 0;
    for (size_t i = 0; i < count; i++) {
        if (result_table_find(t, names[i]) >= 0 || strcmp(names[i], "time") == 0 ||
            (t->first_name && strcmp(names[i], t->first_name) == 0))
            continue;
        bool again = false; /* a name asked for twice is said once */
        for (size_t j = 0; j < i && !again; j++)
            again = strcmp(names[j], names[i]) == 0;
        if (again)
            continue;
        int w = snprintf(missing + used, sizeof missing - used, "%s'%s'", missed ? ", " : "",
                         names[i]);
        used = w < 0 || (size_t)w >= sizeof missing - used ? sizeof missing - 1 : used + (size_t)w;
        missed++;
    }
    if (missed) {
        /* one name missed: the nearest of the file's (its header read again) */
        char near[200] = "", name[160] = "";
        for (size_t i = 0; missed == 1 && i < count && !name[0]; i++)
            if (result_table_find(t, names[i]) < 0 && strcmp(names[i], "time") != 0 &&
                !(t->first_name && strcmp(names[i], t->first_name) == 0))
                plot_nearest_column(&path, &t, 1, true, names[i], name, sizeof name);
        if (name[0])
            snprintf(near, sizeof near, "; did you mean '%s'?", name);
        result_table_free(t);
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: no variable%s %s in the results%s", path,
                                 missed > 1 ? "s" : "", missing, near);
    }
    return rows_of_table(path, t, out, err);
}
