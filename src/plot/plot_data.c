/* Results read for plotting: a CSV table (the units row of `--csv-units`
 * recognised and taken off before the table reader sees it; "nan"/"inf"
 * cells kept) or a MAT file in the Modelica/Dymola result layout, both into
 * one shape of time, names, units and values. */
#include <math.h>
#include <matio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "archive/archive.h"
#include "plot/plot_internal.h"
#include "results/matio_dl.h"
#include "rtcosim/csv.h"
#include "util/read_file.h"

void plot_table_free(plot_table *t)
{
    if (!t)
        return;
    for (size_t c = 0; t->columns && c < t->column_count; c++) {
        free(t->columns[c].name);
        free(t->columns[c].unit);
        free(t->columns[c].values);
    }
    free(t->columns);
    free(t->time);
    free(t->path);
    free(t->first_name);
    free(t);
}

ptrdiff_t plot_table_find(const plot_table *t, const char *name)
{
    for (size_t c = 0; c < t->column_count; c++)
        if (strcmp(t->columns[c].name, name) == 0)
            return (ptrdiff_t)c;
    return -1;
}

static plot_table *table_new(const char *path, size_t rows, size_t columns)
{
    plot_table *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->rows = rows;
    t->column_count = columns;
    t->path = strdup(path);
    t->time = calloc(rows ? rows : 1, sizeof *t->time);
    t->columns = calloc(columns ? columns : 1, sizeof *t->columns);
    bool ok = t->path && t->time && t->columns;
    for (size_t c = 0; ok && c < columns; c++)
        ok = (t->columns[c].values = calloc(rows ? rows : 1, sizeof(double))) != NULL;
    if (!ok) {
        plot_table_free(t);
        return NULL;
    }
    return t;
}

/* ---- CSV ---- */

static bool every_column_text(void *context, const char *name)
{
    (void)context, (void)name;
    return true;
}

/* Next field of a CSV line (RFC 4180 quotes); *p advances past the comma.
 * Writes the unquoted text into out (cut at size). false at the line's end. */
static bool next_field(const char **p, const char *end, char *out, size_t size)
{
    const char *s = *p;
    if (s > end)
        return false;
    size_t n = 0;
    if (s < end && *s == '"') {
        for (s++; s < end; s++) {
            if (*s == '"' && s + 1 < end && s[1] == '"')
                s++;
            else if (*s == '"') {
                s++;
                break;
            }
            if (n + 1 < size)
                out[n++] = *s;
        }
        while (s < end && *s != ',')
            s++;
    } else {
        while (s < end && *s == ' ')
            s++;
        for (; s < end && *s != ','; s++)
            if (n + 1 < size)
                out[n++] = *s;
    }
    while (n > 0 && (out[n - 1] == ' ' || out[n - 1] == '\r' || out[n - 1] == '\n'))
        n--;
    out[n] = '\0';
    *p = s + 1;
    return true;
}

/* The units row: the second non-blank line, when its first cell is the
 * time column's unit ("s", "sec", "[s]" or empty). Returns its start and
 * end (NULL when there is none). */
static const char *find_units_row(const char *data, size_t size, const char **row_end)
{
    const char *end = data + size, *line = data;
    int seen = 0;
    while (line < end) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *le = nl ? nl : end;
        const char *q = line;
        while (q < le && (*q == ' ' || *q == '\r' || *q == '\t'))
            q++;
        if (q < le) {
            if (++seen == 2) {
                char first[64];
                const char *p = line;
                next_field(&p, le, first, sizeof first);
                /* the time column's unit: what units rows write there; any
                 * other text stays a (bad) data row and is reported as such */
                if (strcmp(first, "s") != 0 && strcmp(first, "") != 0 &&
                    strcmp(first, "sec") != 0 && strcmp(first, "[s]") != 0)
                    return NULL;
                *row_end = nl ? nl + 1 : end;
                return line;
            }
        }
        line = nl ? nl + 1 : end;
    }
    return NULL;
}

static rtcosim_status read_csv(const char *path, plot_table **out, rtcosim_error *err)
{
    char *data;
    size_t size;
    rtcosim_status st = util_read_file(path, path, "results file", &data, &size, err);
    if (st != RTCOSIM_OK)
        return st;
    /* units row: copy its cells, then blank it (spaces keep line numbers) */
    const char *units_end = NULL;
    const char *units = find_units_row(data, size, &units_end);
    char *units_copy = NULL;
    if (units) {
        units_copy = strndup(units, (size_t)(units_end - units));
        memset((char *)units, ' ', (size_t)(units_end - units) - (units_end[-1] == '\n'));
    }
    rtcosim_csv *csv = NULL;
    /* the first column may have any name (a sweep's step size); every other
     * column as text, so that "nan" and "inf" cells read back */
    st = rtcosim_csv_read_table_memory_text(path, data, size, every_column_text, NULL, &csv, err);
    free(data);
    if (st != RTCOSIM_OK) {
        free(units_copy);
        return st;
    }
    size_t rows = rtcosim_csv_row_count(csv), cols = rtcosim_csv_column_count(csv);
    plot_table *t = table_new(path, rows, cols);
    if (!t || !(t->first_name = strdup(rtcosim_csv_first_column_name(csv)))) {
        plot_table_free(t);
        free(units_copy);
        rtcosim_csv_free(csv);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    }
    for (size_t r = 0; r < rows; r++)
        t->time[r] = rtcosim_time_to_seconds(rtcosim_csv_time(csv, r));
    const char *p = units_copy, *pe = units_copy ? units_copy + strlen(units_copy) : NULL;
    char unit[128];
    if (p)
        next_field(&p, pe, unit, sizeof unit); /* the time column's "s" */
    for (size_t c = 0; c < cols && st == RTCOSIM_OK; c++) {
        plot_column *col = &t->columns[c];
        col->name = strdup(rtcosim_csv_column_name(csv, c));
        if (p && p <= pe && next_field(&p, pe, unit, sizeof unit) && unit[0])
            col->unit = strdup(unit);
        if (!col->name)
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
        for (size_t r = 0; r < rows; r++) {
            const char *text = rtcosim_csv_text(csv, r, c);
            char *stop = NULL;
            double v = text && *text ? strtod(text, &stop) : NAN;
            col->values[r] = stop && *stop == '\0' ? v : NAN;
        }
    }
    free(units_copy);
    rtcosim_csv_free(csv);
    if (st != RTCOSIM_OK) {
        plot_table_free(t);
        return st;
    }
    *out = t;
    return RTCOSIM_OK;
}

/* ---- MAT (Dymola layout) ---- */

static double mat_number(const matvar_t *v, size_t i)
{
    switch (v->data_type) {
    case MAT_T_DOUBLE: return ((const double *)v->data)[i];
    case MAT_T_SINGLE: return ((const float *)v->data)[i];
    case MAT_T_INT32: return ((const int32_t *)v->data)[i];
    case MAT_T_UINT32: return ((const uint32_t *)v->data)[i];
    case MAT_T_INT16: return ((const int16_t *)v->data)[i];
    case MAT_T_UINT16: return ((const uint16_t *)v->data)[i];
    case MAT_T_INT8: return ((const int8_t *)v->data)[i];
    case MAT_T_UINT8: return ((const uint8_t *)v->data)[i];
    default: return NAN;
    }
}

static int mat_char(const matvar_t *v, size_t i)
{
    switch (v->data_type) {
    case MAT_T_UINT8:
    case MAT_T_INT8:
    case MAT_T_UTF8: return ((const unsigned char *)v->data)[i];
    case MAT_T_UINT16:
    case MAT_T_UTF16: return ((const uint16_t *)v->data)[i] & 0x7F;
    default: return (int)mat_number(v, i);
    }
}

static bool mat_numeric(const matvar_t *v)
{
    return v && v->data && v->rank == 2 && !v->isComplex &&
           (v->class_type == MAT_C_DOUBLE || v->class_type == MAT_C_SINGLE ||
            v->class_type == MAT_C_INT32 || v->class_type == MAT_C_UINT32 ||
            v->class_type == MAT_C_INT16 || v->class_type == MAT_C_UINT16 ||
            v->class_type == MAT_C_INT8 || v->class_type == MAT_C_UINT8);
}

static size_t mat_count(const matvar_t *v)
{
    return v && v->rank == 2 ? v->dims[0] * v->dims[1] : 0;
}

/* String k of a char matrix: a column (transposed) or a row. */
static char *mat_string(const matvar_t *v, size_t k, bool transposed)
{
    size_t len = transposed ? v->dims[0] : v->dims[1];
    size_t count = transposed ? v->dims[1] : v->dims[0];
    char *s = malloc(len + 1);
    if (!s)
        return NULL;
    for (size_t i = 0; i < len; i++) {
        int c = mat_char(v, transposed ? k * len + i : i * count + k);
        s[i] = c > 0 && c < 256 ? (char)c : ' ';
    }
    while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\0'))
        len--;
    s[len] = '\0';
    return s;
}

/* "Height of the ball [m]" -> "m"; Dymola's "[m|mm]" (unit|display unit) -> "m". */
static char *unit_of_description(const char *d)
{
    size_t n = strlen(d);
    if (n < 2 || d[n - 1] != ']')
        return NULL;
    const char *open = strrchr(d, '[');
    if (!open)
        return NULL;
    size_t len = (size_t)(d + n - 1 - (open + 1));
    const char *bar = memchr(open + 1, '|', len);
    if (bar)
        len = (size_t)(bar - (open + 1));
    return len ? strndup(open + 1, len) : NULL;
}

static rtcosim_status read_mat(const char *path, plot_table **out, rtcosim_error *err)
{
    rtcosim_status st = rtcosim_matio_load(err);
    if (st != RTCOSIM_OK)
        return st;
    mat_t *mat = Mat_Open(path, MAT_ACC_RDONLY);
    if (!mat)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: not a MAT file libmatio can open", path);
    matvar_t *aclass = Mat_VarRead(mat, "Aclass"), *name = Mat_VarRead(mat, "name");
    matvar_t *desc = Mat_VarRead(mat, "description"), *info = Mat_VarRead(mat, "dataInfo");
    matvar_t *d1 = Mat_VarRead(mat, "data_1"), *d2 = Mat_VarRead(mat, "data_2");
    plot_table *t = NULL;
    bool transposed = false;
    if (aclass && aclass->data && aclass->class_type == MAT_C_CHAR && aclass->rank == 2 &&
        aclass->dims[0] >= 4) {
        char *kind = mat_string(aclass, 3, false);
        transposed = kind && strcmp(kind, "binTrans") == 0;
        free(kind);
    }
    if (d1 && !mat_numeric(d1)) {
        Mat_VarFree(d1);
        d1 = NULL;
    }
    if (!name || !name->data || name->rank != 2 || name->class_type != MAT_C_CHAR ||
        !mat_numeric(info) || !mat_numeric(d2) || mat_count(info) == 0) {
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT,
                               "%s: not a Modelica/Dymola result file (needs Aclass, name, "
                               "dataInfo and data_2)", path);
        goto done;
    }
    size_t names = transposed ? name->dims[1] : name->dims[0];
    size_t info_rows = transposed ? info->dims[0] : info->dims[1];
    size_t info_n = transposed ? info->dims[1] : info->dims[0];
    size_t d2_vars = transposed ? d2->dims[0] : d2->dims[1];
    size_t rows = transposed ? d2->dims[1] : d2->dims[0];
    size_t d1_vars = d1 ? (transposed ? d1->dims[0] : d1->dims[1]) : 0;
    size_t d1_rows = d1 ? (transposed ? d1->dims[1] : d1->dims[0]) : 0;
    if (info_rows < 2 || info_n != names || names < 1 || d2_vars < 1 || rows < 1) {
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: name, dataInfo and data_2 do not agree "
                               "in size", path);
        goto done;
    }
    t = table_new(path, rows, names - 1);
    if (!t || !(t->first_name = strdup("time"))) {
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
        goto done;
    }
    for (size_t r = 0; r < rows; r++)
        t->time[r] = mat_number(d2, transposed ? r * d2_vars : r);
    for (size_t r = 1; r < rows; r++)
        if (!(t->time[r] >= t->time[r - 1])) {
            st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: data_2: time decreases at point %zu",
                                   path, r + 1);
            goto done;
        }
    for (size_t k = 1; k < names && st == RTCOSIM_OK; k++) {
        plot_column *col = &t->columns[k - 1];
        col->name = mat_string(name, k, transposed);
        char *d = desc && desc->data && desc->rank == 2 && desc->class_type == MAT_C_CHAR &&
                          (transposed ? desc->dims[1] : desc->dims[0]) == names
                      ? mat_string(desc, k, transposed)
                      : NULL;
        col->unit = d ? unit_of_description(d) : NULL;
        free(d);
        double matrix = mat_number(info, transposed ? k * info_rows : k);
        double where = mat_number(info, transposed ? k * info_rows + 1 : k + info_n);
        size_t index = (size_t)fabs(where); /* negative: the negated variable */
        double sign = where < 0 ? -1 : 1;
        if (!col->name) {
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
        } else if (matrix == 2 && index >= 1 && index <= d2_vars) {
            for (size_t r = 0; r < rows; r++)
                col->values[r] = sign * mat_number(d2, transposed ? r * d2_vars + index - 1
                                                                  : (index - 1) * rows + r);
        } else if ((matrix == 1 || matrix == 0) && index >= 1 && index <= d1_vars && d1_rows >= 1) {
            /* data_1: constant over the run (its first value) */
            double v = sign * mat_number(d1, transposed ? index - 1 : (index - 1) * d1_rows);
            for (size_t r = 0; r < rows; r++)
                col->values[r] = v;
        } else {
            st = rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                   "%s: dataInfo of '%s' points outside data_1/data_2", path,
                                   col->name);
        }
    }
done:
    Mat_VarFree(aclass);
    Mat_VarFree(name);
    Mat_VarFree(desc);
    Mat_VarFree(info);
    Mat_VarFree(d1);
    Mat_VarFree(d2);
    Mat_Close(mat);
    if (st != RTCOSIM_OK) {
        plot_table_free(t);
        return st;
    }
    *out = t;
    return RTCOSIM_OK;
}

rtcosim_status plot_table_read(const char *path, plot_table **out, rtcosim_error *err)
{
    *out = NULL;
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (dot && (!slash || dot > slash) && strcasecmp(dot, ".mat") == 0) {
        FILE *probe = fopen(path, "rb");
        if (!probe)
            return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "%s: cannot open", path);
        fclose(probe);
        return read_mat(path, out, err);
    }
    /* an FMU or SSP package given where results belong (`plot model.fmu`) */
    if (rtcosim_archive_is_zip(path))
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: a zip archive (an FMU or SSP package?),"
                                 " not a results file (CSV or .mat); simulate or run it first",
                                 path);
    return read_csv(path, out, err);
}
