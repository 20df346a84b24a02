/* A MAT result file as an input table (rtcosim_csv_read_mat): read by
 * src/results/result_table.c, built with csv_from_series; and the choice
 * between it and CSV by a file's ending (rtcosim_csv_read_input_file). */
#include <stdlib.h>

#include "csv/csv_values.h"
#include "results/result_table.h"
#include "rtcosim/csv.h"
#include "util/text.h"

rtcosim_status rtcosim_csv_read_input_file(const char *path,
                                           bool (*is_text)(void *context, const char *column),
                                           void *context, rtcosim_csv **out,
                                           rtcosim_error *err)
{
    return util_path_has_ending(path, ".mat")
               ? rtcosim_csv_read_mat(path, out, err)
               : rtcosim_csv_read_file_text(path, is_text, context, out, err);
}

rtcosim_status rtcosim_csv_read_mat(const char *path, rtcosim_csv **out, rtcosim_error *err)
{
    *out = NULL;
    result_table *r = NULL;
    rtcosim_status st = result_table_read_mat(path, &r, err);
    if (st != RTCOSIM_OK)
        return st;
    const char **names = calloc(r->column_count + 1, sizeof *names);
    const double **values = calloc(r->column_count + 1, sizeof *values);
    if (!names || !values) {
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    } else {
        for (size_t c = 0; c < r->column_count; c++) {
            names[c] = r->columns[c].name;
            values[c] = r->columns[c].values;
        }
        st = csv_from_series(path, r->rows, r->time, r->column_count, names, values, out, err);
    }
    free(names);
    free(values);
    result_table_free(r);
    return st;
}
