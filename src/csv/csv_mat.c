/* A MAT result file or an MDF 4 file as an input table
 * (rtcosim_csv_read_mat, rtcosim_csv_read_mdf): read by
 * src/results/result_table.c or mdf_read.c, built with csv_from_series; and
 * the choice between them and CSV by a file's ending
 * (rtcosim_csv_read_input_file). */
#include <math.h>
#include <stdint.h>
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

/* What linear interpolation between a channel's own valid samples gives at
 * each of the table's times (the first and last held outside them), into
 * out: the values of a measurement's channel for an input that
 * interpolates, where the table holds it between its samples. false: no
 * valid sample. */
static bool interpolate_own(const result_table *r, const result_column *c, double *out)
{
    size_t j = 0, prev = SIZE_MAX; /* prev: the last valid own sample at or before t */
    for (size_t row = 0; row < r->rows; row++) {
        double t = r->time[row];
        while (j < c->own_rows && !(c->own_time[j] > t)) {
            if (!isnan(c->own_values[j]))
                prev = j;
            j++;
        }
        size_t next = j; /* the first valid own sample after t */
        while (next < c->own_rows && isnan(c->own_values[next]))
            next++;
        if (prev == SIZE_MAX && next == c->own_rows)
            return false;
        if (prev == SIZE_MAX)
            out[row] = c->own_values[next];
        else if (next == c->own_rows || c->own_time[prev] == t)
            out[row] = c->own_values[prev];
        else {
            double t0 = c->own_time[prev], t1 = c->own_time[next];
            double w = (t - t0) / (t1 - t0);
            out[row] = c->own_values[prev] + w * (c->own_values[next] - c->own_values[prev]);
        }
    }
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
    const double **linear = calloc(r->column_count + 1, sizeof *linear);
    double **owned = calloc(r->column_count + 1, sizeof *owned);
    if (!names || !values || !linear || !owned) {
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
            /* a channel of several rates' union: interpolated at its own
             * samples, not between the rows where the table holds it */
            if (r->columns[c].own_time) {
                if (!(owned[n] = malloc(r->rows * sizeof(double)))) {
                    st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
                    break;
                }
                interpolate_own(r, &r->columns[c], owned[n]); /* (a valid sample: filled) */
                linear[n] = owned[n];
            }
            names[n] = r->columns[c].name;
            values[n++] = r->columns[c].values;
        }
        if (st == RTCOSIM_OK)
            st = csv_from_series(path, r->rows, r->time, n, names, values, linear, out, err);
    }
    for (size_t c = 0; owned && c < r->column_count; c++)
        free(owned[c]);
    free(owned);
    free(linear);
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
