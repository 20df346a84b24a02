/* A MAT result file or an MDF 4 file as an input table
 * (rtcosim_csv_read_mat, rtcosim_csv_read_mdf): read by
 * src/results/result_table.c or mdf_read.c, built with csv_from_series; and
 * the choice between them and CSV by a file's ending
 * (rtcosim_csv_read_input_file). */
#include <math.h>
#include <stdlib.h>

#include "csv/csv_values.h"
#include "results/result_table.h"
#include "rtcosim/csv.h"
#include "rtcosim/log.h"
#include "util/text.h"

rtcosim_status rtcosim_csv_read_input_file(const char *path,
                                           bool (*is_text)(void *context, const char *column),
                                           void *context, rtcosim_csv **out,
                                           rtcosim_error *err)
{
    if (util_path_has_ending(path, ".mat"))
        return rtcosim_csv_read_mat(path, out, err);
    if (util_path_is_mdf(path))
        return rtcosim_csv_read_mdf(path, out, err);
    return rtcosim_csv_read_file_text(path, is_text, context, out, err);
}

/* A measurement's gaps (invalid samples, a channel not yet sampled on the
 * union of several groups' times) filled for a stimulus: the last valid
 * sample held, the first one taken before it. false: no valid sample. */
static bool fill_gaps(double *v, size_t rows)
{
    size_t first = 0;
    while (first < rows && isnan(v[first]))
        first++;
    if (first == rows)
        return false;
    for (size_t r = 0; r < first; r++)
        v[r] = v[first];
    for (size_t r = first + 1; r < rows; r++)
        if (isnan(v[r]))
            v[r] = v[r - 1];
    return true;
}

static rtcosim_status from_result_table(const char *path,
                                        rtcosim_status (*read)(const char *, result_table **,
                                                               rtcosim_error *),
                                        bool fill, rtcosim_csv **out, rtcosim_error *err)
{
    *out = NULL;
    result_table *r = NULL;
    rtcosim_status st = read(path, &r, err);
    if (st != RTCOSIM_OK)
        return st;
    const char **names = calloc(r->column_count + 1, sizeof *names);
    const double **values = calloc(r->column_count + 1, sizeof *values);
    if (!names || !values) {
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    } else {
        size_t n = 0;
        for (size_t c = 0; c < r->column_count; c++) {
            if (fill && !fill_gaps(r->columns[c].values, r->rows)) {
                rtcosim_log(RTCOSIM_LOG_WARNING, "csv", "%s: '%s' left out: no valid sample",
                            path, r->columns[c].name);
                continue;
            }
            /* A recording's channel with an infinite (or, in a MAT file, NaN)
             * sample cannot drive an input; the file's other channels can
             * (measurement tools record such channels: a hyperbolic
             * conversion at its pole). */
            size_t bad = 0;
            while (bad < r->rows && isfinite(r->columns[c].values[bad]))
                bad++;
            if (bad < r->rows) {
                rtcosim_log(RTCOSIM_LOG_WARNING, "csv", "%s: '%s' left out: point %zu is %g, not "
                            "a finite number", path, r->columns[c].name, bad + 1,
                            r->columns[c].values[bad]);
                continue;
            }
            names[n] = r->columns[c].name;
            values[n++] = r->columns[c].values;
        }
        st = csv_from_series(path, r->rows, r->time, n, names, values, out, err);
    }
    free(names);
    free(values);
    result_table_free(r);
    return st;
}

rtcosim_status rtcosim_csv_read_mat(const char *path, rtcosim_csv **out, rtcosim_error *err)
{
    return from_result_table(path, result_table_read_mat, false, out, err);
}

rtcosim_status rtcosim_csv_read_mdf(const char *path, rtcosim_csv **out, rtcosim_error *err)
{
    return from_result_table(path, result_table_read_mdf, true, out, err);
}
