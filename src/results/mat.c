/* Results as a MATLAB file in the Modelica/Dymola result layout, so that
 * Dymola, OMPlot, DyMat, PyFMI and scipy users open rtcosim's runs directly.
 * The recorder streams CSV (nothing lost on a crash); at close the CSV is read
 * back a row at a time (its numbers are shortest round-trip text, so the
 * values are identical) and written here with libmatio as a MAT v4 file, the version Dymola and
 * OpenModelica write ("Atrajectory" "1.1" "binTrans"):
 *   Aclass      char 4 x 11: "Atrajectory", "1.1", "", "binTrans"
 *   name        char maxlen x n (binTrans: one name per column)
 *   description char maxlen x n, the unit in brackets at the end ("Height [m]")
 *   dataInfo    int32 4 x n: (matrix, column, 0 = linear interpolation,
 *               -1 = undefined outside the time range / 0 = constant);
 *               time is (0, 1, 0, -1): the abscissa of all data matrices
 *   data_1      double n1 x 2: time (start, stop), then one row per parameter
 *   data_2      double n2 x rows: time, then one row per trajectory. */
#include <errno.h>
#include <fcntl.h>
#include <matio.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rtcosim/csv.h"
#include "rtcosim/log.h"
#include "rtcosim/results.h"
#include "matio_dl.h"
#include "mat_write_internal.h"
#include "result_csv.h"
#include "util/write_target.h"

typedef struct mat_column {
    size_t csv_column; /* index in the CSV table */
    mat_entry entry;   /* its name (owned), metadata and place */
} mat_column;

/* "Height" + "m" -> "Height [m]"; the unit alone when there is no text. */
static char *describe(const rtcosim_column *meta)
{
    const char *text = meta && meta->description ? meta->description : "";
    const char *unit = meta && meta->unit && *meta->unit ? meta->unit : NULL;
    size_t n = strlen(text) + (unit ? strlen(unit) + 4 : 0) + 1;
    char *out = malloc(n);
    if (!out)
        return NULL;
    if (unit)
        snprintf(out, n, "%s%s[%s]", text, *text ? " " : "", unit);
    else
        snprintf(out, n, "%s", text);
    return out;
}

/* A char matrix with one string per column (binTrans), blank-padded. */
static matvar_t *string_matrix(const char *name, const char *const *strings, size_t count)
{
    size_t width = 1;
    for (size_t i = 0; i < count; i++)
        if (strlen(strings[i]) > width)
            width = strlen(strings[i]);
    char *data = malloc(width * (count ? count : 1));
    if (!data)
        return NULL;
    memset(data, ' ', width * (count ? count : 1));
    for (size_t i = 0; i < count; i++)
        memcpy(data + i * width, strings[i], strlen(strings[i]));
    size_t dims[2] = {width, count};
    matvar_t *v = Mat_VarCreate(name, MAT_C_CHAR, MAT_T_UINT8, 2, dims, data, 0);
    free(data); /* Mat_VarCreate copied it (no MAT_F_DONT_COPY_DATA) */
    return v;
}

static int write_var(mat_t *mat, matvar_t *v)
{
    if (!v)
        return -1;
    int rc = Mat_VarWrite(mat, v, MAT_COMPRESSION_NONE);
    Mat_VarFree(v);
    return rc;
}

void mat_warn_text_left_out(const char *path, const char *name)
{
    /* String and Binary values have no place in a double matrix (nor in
     * Dymola's or OpenModelica's result files): said, not lost silently */
    rtcosim_log(RTCOSIM_LOG_WARNING, "results",
                "%s: '%s' is not written: the Dymola result layout holds numbers only "
                "(a .csv results file keeps String and Binary values)",
                path, name);
}

mat_t *mat_write_meta(const char *path, const mat_entry *entries, size_t n, const double *data1,
                      size_t n1, rtcosim_error *err)
{
    char **names = calloc(n + 1, sizeof *names);
    char **descriptions = calloc(n + 1, sizeof *descriptions);
    int32_t *info = calloc(4 * (n + 1), sizeof *info);
    bool ok = names && descriptions && info && (names[0] = strdup("time")) &&
              (descriptions[0] = strdup("Time [s]"));
    const int32_t time_info[4] = {0, 1, 0, -1}; /* the abscissa of all data matrices */
    if (ok)
        memcpy(info, time_info, sizeof time_info);
    for (size_t i = 0; ok && i < n; i++) {
        int32_t *d = info + 4 * (i + 1);
        d[0] = entries[i].matrix;
        d[1] = entries[i].row;
        d[2] = 0;
        d[3] = entries[i].matrix == 1 ? 0 : -1;
        ok = (names[i + 1] = strdup(entries[i].name)) &&
             (descriptions[i + 1] = describe(entries[i].meta));
    }
    mat_t *mat = NULL;
    /* (a symbolic link at path: the file is made at its target, the link
     * stays; util_write_target) */
    char *target = ok ? util_write_target(path) : NULL;
    ok = ok && target;
    /* created here first for the reason it cannot be (libmatio says none) */
    int probe = ok ? open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666) : -1;
    if (!ok) {
        rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory writing the MAT file", path);
    } else if (probe < 0) {
        rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot create results file: %s", path,
                          strerror(errno));
    } else {
        close(probe);
        (void)unlink(target); /* matio appends to nothing: start from an empty file */
        if (!(mat = Mat_CreateVer(target, NULL, MAT_FT_MAT4))) {
            rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot create the MAT file", path);
        } else {
            static const char *const aclass[4] = {"Atrajectory", "1.1", "", "binTrans"};
            /* Aclass is the one matrix not transposed: 4 rows of 11 characters */
            char ac[4 * 11];
            for (size_t r = 0; r < 4; r++)
                for (size_t k = 0; k < 11; k++)
                    ac[k * 4 + r] = k < strlen(aclass[r]) ? aclass[r][k] : ' ';
            size_t acdims[2] = {4, 11};
            size_t infodims[2] = {4, n + 1}, d1dims[2] = {n1, 2};
            int rc = write_var(mat, Mat_VarCreate("Aclass", MAT_C_CHAR, MAT_T_UINT8, 2, acdims, ac, 0));
            rc |= write_var(mat, string_matrix("name", (const char *const *)names, n + 1));
            rc |= write_var(mat, string_matrix("description", (const char *const *)descriptions, n + 1));
            rc |= write_var(mat, Mat_VarCreate("dataInfo", MAT_C_INT32, MAT_T_INT32, 2, infodims, info, 0));
            rc |= write_var(mat, Mat_VarCreate("data_1", MAT_C_DOUBLE, MAT_T_DOUBLE, 2, d1dims,
                                               (void *)data1, 0));
            if (rc != 0) {
                int e = errno;
                Mat_Close(mat);
                mat = NULL;
                mat_write_failure(path, e, err);
            }
        }
    }
    for (size_t i = 0; names && i <= n; i++)
        free(names[i]);
    for (size_t i = 0; descriptions && i <= n; i++)
        free(descriptions[i]);
    free(names);
    free(descriptions);
    free(info);
    free(target);
    return mat;
}

/* The CSV's header read: the columns written (text ones said and left
 * out), their names and metadata. */
static rtcosim_status read_header(result_csv_stream *in, const char *mat_path,
                                  const rtcosim_column *columns, size_t column_count,
                                  mat_column *cols, size_t *n, rtcosim_error *err)
{
    size_t ncsv = in->nfields - 1;
    *n = 0;
    for (size_t c = 0; c < ncsv; c++) {
        const char *cname = in->fields[1 + c];
        const rtcosim_column *meta = result_csv_meta(columns, column_count, cname);
        if (result_csv_is_text(meta)) {
            mat_warn_text_left_out(mat_path, cname);
            continue;
        }
        cols[*n] = (mat_column){.csv_column = c, .entry = {.name = strdup(cname), .meta = meta}};
        if (!cols[*n].entry.name)
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory writing the MAT "
                                     "file", mat_path);
        ++*n;
    }
    return RTCOSIM_OK;
}

/* A row's time and field count checked. */
static rtcosim_status row_time(const result_csv_stream *in, size_t ncsv, rtcosim_time_ns *t,
                               rtcosim_error *err)
{
    if (in->nfields != ncsv + 1)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s:%zu: %zu fields, expected %zu",
                                 in->path, in->lineno, in->nfields, ncsv + 1);
    if (!result_csv_time(in->fields[0], t))
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s:%zu: time '%.40s' is not a time in "
                                 "seconds", in->path, in->lineno, in->fields[0]);
    return RTCOSIM_OK;
}

/* The CSV is read a row at a time, twice: first the rows' count and which
 * parameters stay constant (data_1), then data_2's values straight into
 * its matrix, which matio writes without a copy. So a conversion holds the
 * result matrix only (a 2 000 001-row run of 3 variables: 48 MB; it held the
 * CSV's cells as text and a copy of the matrix besides, 226 MB, before).
 * (The recorder streams its .mat files instead, mat_stream.c; this stays
 * for API users and is the tests' reference for the stream.) */
rtcosim_status rtcosim_results_csv_to_mat(const char *csv_path, const char *mat_path,
                                          const rtcosim_column *columns, size_t column_count,
                                          rtcosim_error *err)
{
    rtcosim_status st = rtcosim_matio_load(err);
    if (st != RTCOSIM_OK)
        return st;
    result_csv_stream in = {.f = fopen(csv_path, "rb"), .path = csv_path};
    if (!in.f)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot open: %s", csv_path,
                                 strerror(errno));
    int got = result_csv_row(&in, err);
    if (got <= 0) {
        result_csv_stream_close(&in);
        return got == 0 ? rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: no header row", csv_path)
                        : err->status;
    }
    size_t ncsv = in.nfields - 1;
    mat_column *cols = calloc(ncsv + 1, sizeof *cols);
    mat_entry *entries = calloc(ncsv + 1, sizeof *entries);
    double *first = calloc(ncsv + 1, sizeof *first); /* the first row's values */
    bool *varies = calloc(ncsv + 1, sizeof *varies);
    double *data1 = NULL, *data2 = NULL;
    size_t n = 0, n1 = 1, n2 = 1, rows = 0;
    rtcosim_time_ns t0 = 0, t1 = 0;
    if (!cols || !entries || !first || !varies)
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory writing the MAT file",
                               mat_path);
    if (st == RTCOSIM_OK)
        st = read_header(&in, mat_path, columns, column_count, cols, &n, err);
    /* first pass: rows, times, constant parameters */
    while (st == RTCOSIM_OK && (got = result_csv_row(&in, err)) == 1) {
        rtcosim_time_ns t;
        if ((st = row_time(&in, ncsv, &t, err)) != RTCOSIM_OK)
            break;
        t0 = rows == 0 ? t : t0;
        t1 = t;
        for (size_t i = 0; i < n; i++) {
            double v = result_csv_number(in.fields[1 + cols[i].csv_column]);
            if (rows == 0)
                first[i] = v;
            else if (!(v == first[i] || (v != v && first[i] != first[i])))
                varies[i] = true;
        }
        rows++;
    }
    if (st == RTCOSIM_OK && got < 0)
        st = err->status;
    if (st == RTCOSIM_OK && rows == 0)
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: no rows", csv_path);
    if (st == RTCOSIM_OK) {
        for (size_t i = 0; i < n; i++) {
            mat_entry *e = &cols[i].entry;
            bool constant = e->meta && e->meta->parameter && !varies[i];
            e->matrix = constant ? 1 : 2;
            e->row = constant ? (int)++n1 : (int)++n2;
            entries[i] = *e;
        }
        data1 = calloc(n1 * 2, sizeof *data1);
        data2 = calloc(n2 * rows, sizeof *data2);
        if (!data1 || !data2)
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory writing the MAT "
                                   "file (%zu x %zu values)", mat_path, n2, rows);
    }
    if (st == RTCOSIM_OK) {
        /* column-major n1 x 2: first column the start values, second the stop values */
        data1[0] = (double)t0 / 1e9;
        data1[n1] = (double)t1 / 1e9;
        for (size_t i = 0; i < n; i++)
            if (entries[i].matrix == 1)
                data1[entries[i].row - 1] = data1[n1 + entries[i].row - 1] = first[i];
        /* second pass: data_2, column-major n2 x rows (a row's values together) */
        rewind(in.f);
        in.lineno = 0;
        if (result_csv_row(&in, err) != 1) /* (the header again) */
            st = rtcosim_error_set(err, RTCOSIM_EIO, "%s: reading the results again failed",
                                   csv_path);
        for (size_t r = 0; st == RTCOSIM_OK && r < rows; r++) {
            rtcosim_time_ns t;
            if (result_csv_row(&in, err) != 1 || row_time(&in, ncsv, &t, err) != RTCOSIM_OK) {
                st = rtcosim_error_set(err, RTCOSIM_EIO, "%s: changed while it was converted",
                                       csv_path);
                break;
            }
            double *col = data2 + r * n2;
            col[0] = (double)t / 1e9;
            for (size_t i = 0; i < n; i++)
                if (entries[i].matrix == 2)
                    col[entries[i].row - 1] =
                        result_csv_number(in.fields[1 + cols[i].csv_column]);
        }
    }
    result_csv_stream_close(&in);
    if (st == RTCOSIM_OK) {
        mat_t *mat = mat_write_meta(mat_path, entries, n, data1, n1, err);
        if (!mat) {
            st = err->status;
        } else {
            size_t d2dims[2] = {n2, rows};
            /* (the matrix as it is: no copy; Mat_VarFree leaves it to us) */
            int rc = write_var(mat, Mat_VarCreate("data_2", MAT_C_DOUBLE, MAT_T_DOUBLE, 2, d2dims,
                                                  data2, MAT_F_DONT_COPY_DATA));
            errno = 0;
            if (Mat_Close(mat) != 0 || rc != 0)
                st = mat_write_failure(mat_path, errno, err);
        }
    }
    for (size_t i = 0; cols && i < n; i++)
        free((char *)cols[i].entry.name);
    free(cols);
    free(entries);
    free(first);
    free(varies);
    free(data1);
    free(data2);
    return st;
}

rtcosim_status rtcosim_results_format_of(const char *path, rtcosim_results_format *out,
                                         rtcosim_error *err)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    *out = RTCOSIM_RESULTS_CSV;
    if (!dot || dot == base || strcasecmp(dot, ".csv") == 0)
        return RTCOSIM_OK;
    if (strcasecmp(dot, ".mat") == 0) {
        *out = RTCOSIM_RESULTS_MAT;
        return RTCOSIM_OK;
    }
    if (strcasecmp(dot, ".mf4") == 0) {
        *out = RTCOSIM_RESULTS_MDF;
        return RTCOSIM_OK;
    }
    return rtcosim_error_set(err, RTCOSIM_EINVAL,
                             "%s: unknown results format '%s' (use .csv, .mat or .mf4)", path, dot);
}

rtcosim_status mat_write_failure(const char *path, int saved_errno, rtcosim_error *err)
{
    rtcosim_results_discard(path); /* a MAT file cut short is no result (the link stays) */
    int e = saved_errno;
    bool known = e == ENOSPC || e == EDQUOT || e == EFBIG || e == EIO || e == EROFS;
    return rtcosim_error_set(err, RTCOSIM_EIO, "%s: writing the MAT file failed: %s", path,
                             known ? strerror(e) : "libmatio gives no reason");
}
