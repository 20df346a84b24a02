/* A results file read back for a language binding (flat.h:
 * rtcosim_flat_read_result): rtcosim's CSV (with its units row), a
 * Modelica/Dymola MAT file, an ASAM MDF 4 or 3 measurement, read as
 * `rtcosim plot` reads them (src/plot/plot_data.c), into the rows a run
 * returns: time and one Float64 column per numeric variable with its unit.
 * Text columns (a CSV's String and Binary results) are left out, counted in
 * the statistic "text_columns_left_out". */
#include <math.h>
#include <stdlib.h>

#include "flat_internal.h"
#include "plot/plot_internal.h"
#include "rtcosim/flat.h"

rtcosim_status rtcosim_flat_read_result(const char *path, rtcosim_rows **out, rtcosim_error *err)
{
    *out = NULL;
    if (!path)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "read_result: no file given");
    plot_table *t = NULL;
    rtcosim_status st = plot_table_read(path, &t, err);
    if (st != RTCOSIM_OK)
        return st;
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
