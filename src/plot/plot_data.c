/* Results read for plotting: a CSV table or a MAT file in the
 * Modelica/Dymola result layout (or an MDF measurement), into one shape of
 * time, names, units and values. A CSV is read a line at a time keeping the
 * selected columns (plot_csv.c); the whole reader here (the file in memory,
 * the units row of `--csv-units` recognised and blanked before rtcosim_csv's
 * table reader sees it; "nan"/"inf" cells kept) is the reference it is held
 * to, and RTCOSIM_CSV_WHOLE=1 brings it back. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "archive/archive.h"
#include "csv/csv_split.h"
#include "plot/plot_internal.h"
#include "results/result_table.h"
#include "rtcosim/component.h"
#include "rtcosim/csv.h"
#include "util/read_file.h"

static bool every_column_text(void *context, const char *name)
{
    (void)context, (void)name;
    return true;
}

bool plot_csv_field(const char **p, const char *end, char *out, size_t size)
{
    const char *s = *p;
    if (s > end)
        return false;
    size_t n = 0;
    /* blanks around a cell as csv_split_fields drops them: space, tab, CR */
    while (s < end && (*s == ' ' || *s == '\t' || *s == '\r'))
        s++;
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
        for (; s < end && *s != ','; s++)
            if (n + 1 < size)
                out[n++] = *s;
        while (n > 0 && (out[n - 1] == ' ' || out[n - 1] == '\t' || out[n - 1] == '\r' ||
                         out[n - 1] == '\n'))
            n--;
    }
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
    if (size >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
        line += 3; /* a byte order mark (csv_reader.c reads past it) */
    int seen = 0;
    while (line < end) {
        size_t breaks; /* (a row's quoted line breaks are its own, as the readers take them) */
        const char *nl = csv_row_end(line, end, &breaks, ',');
        const char *le = nl ? nl : end;
        const char *q = line;
        while (q < le && (*q == ' ' || *q == '\r' || *q == '\t'))
            q++;
        if (q < le) {
            if (++seen == 2) {
                char first[64];
                const char *p = line;
                plot_csv_field(&p, le, first, sizeof first);
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

/* The first data row of the file (its units row blanked): the second line
 * that is not blank, [*row, *row_end); false when there is none. */
static bool first_data_row(const char *data, size_t size, const char **row, const char **row_end)
{
    const char *end = data + size, *line = data;
    if (size >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
        line += 3;
    int seen = 0;
    while (line < end) {
        size_t breaks;
        const char *nl = csv_row_end(line, end, &breaks, ',');
        const char *le = nl ? nl : end;
        const char *q = line;
        while (q < le && (*q == ' ' || *q == '\r' || *q == '\t'))
            q++;
        if (q < le && ++seen == 2) {
            *row = line, *row_end = le;
            return true;
        }
        line = nl ? nl + 1 : end;
    }
    return false;
}

/* A cell's value as this reader takes it: a number, NaN otherwise; *kind
 * counts it. */
static double cell_value(const char *text, size_t *numbers, size_t *words)
{
    char *stop = NULL;
    double v = text && *text ? strtod(text, &stop) : NAN;
    bool number = stop && *stop == '\0';
    *numbers += number;
    *words += text && *text && !number;
    return number ? v : NAN;
}

rtcosim_status plot_table_read_csv_whole(const char *path, const result_select *s,
                                         plot_table **out, rtcosim_error *err)
{
    *out = NULL;
    char *data;
    size_t size;
    rtcosim_status st = util_read_text_file(path, path, "results file", &data, &size, err);
    if (st != RTCOSIM_OK)
        return st;
    /* a spreadsheet's file separated by semicolons: as the ',' one it stands for */
    if ((st = csv_semicolon_file(path, data, size, err)) != RTCOSIM_OK) {
        free(data);
        return st;
    }
    /* units row: copy its cells, then blank it (spaces keep line numbers) */
    const char *units_end = NULL;
    const char *units = find_units_row(data, size, &units_end);
    char *units_copy = NULL;
    if (units) {
        units_copy = strndup(units, (size_t)(units_end - units));
        for (char *c = (char *)units; c < units_end; c++)
            if (*c != '\n')
                *c = ' ';
    }
    rtcosim_csv *csv = NULL;
    /* the first column may have any name (a sweep's step size); every other
     * column as text, so that "nan" and "inf" cells read back */
    st = rtcosim_csv_read_table_memory_text(path, data, size, every_column_text, NULL, &csv, err);
    size_t rows = csv ? rtcosim_csv_row_count(csv) : 0, cols = csv ? rtcosim_csv_column_count(csv) : 0;
    /* fmusim's arrays ("1 2 3" in an unquoted cell of the first row): a
     * column per element, name[1], ... */
    size_t *widths = st == RTCOSIM_OK ? calloc(cols + 1, sizeof *widths) : NULL, total = cols;
    const char *row, *row_end;
    if (widths && first_data_row(data, size, &row, &row_end))
        csv_array_widths(row, row_end, widths, cols);
    for (size_t c = 0; widths && c < cols; c++)
        total += widths[c] ? widths[c] - 1 : 0;
    free(data);
    if (st != RTCOSIM_OK) {
        free(units_copy);
        return st;
    }
    plot_table *t = widths ? result_table_new(path, rows, total) : NULL;
    char **tokens = widths ? calloc(total + 1, sizeof *tokens) : NULL;
    char *cell = NULL;
    size_t cell_size = 0;
    if (!t || !tokens || !(t->first_name = strdup(rtcosim_csv_first_column_name(csv)))) {
        plot_table_free(t);
        free(units_copy);
        free(widths);
        free(tokens);
        rtcosim_csv_free(csv);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    }
    for (size_t r = 0; r < rows; r++)
        t->time[r] = rtcosim_time_to_seconds(rtcosim_csv_time(csv, r));
    const char *p = units_copy, *pe = units_copy ? units_copy + strlen(units_copy) : NULL;
    char unit[128];
    if (p)
        plot_csv_field(&p, pe, unit, sizeof unit); /* the time column's "s" */
    for (size_t c = 0, o = 0; c < cols && st == RTCOSIM_OK; c++) {
        const char *name = rtcosim_csv_column_name(csv, c);
        size_t w = widths[c] ? widths[c] : 1;
        bool has_unit = p && p <= pe && plot_csv_field(&p, pe, unit, sizeof unit) && unit[0];
        for (size_t k = 0; k < w && st == RTCOSIM_OK; k++) {
            plot_column *col = &t->columns[o + k];
            size_t name_size = strlen(name) + 24;
            if ((col->name = malloc(name_size)))
                snprintf(col->name, name_size, widths[c] ? "%s[%zu]" : "%s", name, k + 1);
            if (has_unit)
                col->unit = strdup(unit);
            if (!col->name || (has_unit && !col->unit))
                st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
        }
        size_t *numbers = calloc(2 * w, sizeof *numbers), *words = numbers + w;
        if (!numbers) {
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
            break;
        }
        for (size_t r = 0; r < rows && st == RTCOSIM_OK; r++) {
            const char *text = rtcosim_csv_text(csv, r, c);
            if (!widths[c]) {
                t->columns[o].values[r] = cell_value(text, &numbers[0], &words[0]);
                continue;
            }
            size_t len = strlen(text);
            if (len + 1 > cell_size) {
                char *bigger = realloc(cell, cell_size = 2 * len + 1);
                if (!bigger) {
                    st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
                    break;
                }
                cell = bigger;
            }
            memcpy(cell, text, len + 1);
            size_t n = csv_split_blanks(cell, tokens, w);
            if (n != 0 && n != w) {
                st = rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                       "%s:%zu: column %zu ('%s'): %zu value%s where the first row "
                                       "has %zu (an array's elements, separated by spaces)",
                                       path, rtcosim_csv_line(csv, r), c + 2, name, n,
                                       n == 1 ? "" : "s", w);
                break;
            }
            for (size_t k = 0; k < w; k++) /* (an empty cell: each element empty) */
                t->columns[o + k].values[r] = cell_value(n ? tokens[k] : "", &numbers[k], &words[k]);
        }
        for (size_t k = 0; k < w; k++) {
            plot_column *col = &t->columns[o + k];
            col->text = words[k] > 0 && numbers[k] == 0;
            col->empty = words[k] == 0 && numbers[k] == 0;
            col->not_numbers = col->text ? 0 : words[k];
        }
        free(numbers);
        o += w;
    }
    free(cell);
    free(tokens);
    free(widths);
    free(units_copy);
    rtcosim_csv_free(csv);
    if (st != RTCOSIM_OK) {
        plot_table_free(t);
        return st;
    }
    result_table_keep(t, s);
    *out = t;
    return RTCOSIM_OK;
}

static bool has_extension(const char *path, const char *ext)
{
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    return dot && (!slash || dot > slash) && strcasecmp(dot, ext) == 0;
}

bool plot_path_is_csv(const char *path)
{
    return !has_extension(path, ".mat") && !has_extension(path, ".mf4") &&
           !has_extension(path, ".mdf") && !rtcosim_archive_is_zip(path);
}

static bool whole_csv(void)
{
    const char *knob = getenv("RTCOSIM_CSV_WHOLE");
    return knob && strcmp(knob, "1") == 0;
}

bool plot_csv_streams(const char *path) { return plot_path_is_csv(path) && !whole_csv(); }

rtcosim_status plot_table_read(const char *path, plot_table **out, rtcosim_error *err)
{
    return plot_table_read_select(path, NULL, out, err);
}

rtcosim_status plot_table_read_select(const char *path, const result_select *s, plot_table **out,
                                      rtcosim_error *err)
{
    *out = NULL;
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (dot && (!slash || dot > slash) && strcasecmp(dot, ".mat") == 0)
        return result_table_read_mat_select(path, s, out, err);
    if (dot && (!slash || dot > slash) && (strcasecmp(dot, ".mf4") == 0 || strcasecmp(dot, ".mdf") == 0))
        return result_table_read_mdf_select(path, s, out, err);
    /* an FMU or SSP package given where results belong (`plot model.fmu`) */
    if (rtcosim_archive_is_zip(path))
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: a zip archive (an FMU or SSP package?),"
                                 " not a results file (CSV, .mat, .mf4 or .mdf); simulate or run it first",
                                 path);
    /* a line at a time, only the selected columns kept (plot_csv.c) */
    return whole_csv() ? plot_table_read_csv_whole(path, s, out, err) : plot_csv_read(path, s, out, err);
}

rtcosim_status plot_table_read_names(const char *path, plot_table **out, rtcosim_error *err)
{
    *out = NULL;
    if (plot_csv_streams(path))
        return plot_csv_read_names(path, out, err);
    return plot_table_read(path, out, err);
}

/* The nearest column name of any file, for "did you mean"; copied into
 * near (cut at size), "" when none is close. Tables read with a selection
 * lack the other columns: their files' headers are read again for it. */
void plot_nearest_column(const char *const *paths, plot_table *const *tables, size_t file_count,
                           bool selected, const char *name, char *near, size_t size)
{
    size_t best_distance = (size_t)-1;
    near[0] = '\0';
    for (size_t f = 0; f < file_count; f++) {
        plot_table *names = NULL;
        const plot_table *t = tables[f];
        if (selected && plot_table_read_names(paths[f], &names, NULL) == RTCOSIM_OK)
            t = names;
        for (size_t c = 0; c < t->column_count; c++) {
            const char *candidate = t->columns[c].name;
            size_t d = rtcosim_edit_distance(name, candidate);
            if (d < best_distance && rtcosim_name_is_close(name, candidate, d)) {
                best_distance = d;
                snprintf(near, size, "%s", candidate);
            }
        }
        plot_table_free(names);
    }
}
