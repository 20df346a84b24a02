/* Reads fmusim-style input CSV files into an immutable table of tick times
 * and double values, checking everything up front (header, column counts,
 * numbers, time order) so that a run never meets a bad row halfway. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "csv/csv_split.h"
#include "csv/csv_values.h"
#include "rtcosim/component.h"
#include "rtcosim/csv.h"
#include "util/read_file.h"

struct rtcosim_csv {
    char *name;
    char *first_column; /* "time" unless read as a general table */
    size_t column_count;
    char **column_names;
    size_t row_count, row_capacity;
    rtcosim_time_ns *times;
    double *values; /* row-major, column_count per row */
    /* Where a column's rows are not all its own samples (a measurement's
     * channels on the union of several rates' times, `values` holding each
     * one's last sample): the values linear interpolation between its own
     * samples gives at every row, row-major like `values`, which columns
     * sampled at every row share. NULL when every row is every column's. */
    double *linear;
    size_t *lines;
    /* Text columns (rtcosim_csv_read_file_text): their cells as written, in
     * `text` (the file, split in place); NULL when there are none. */
    bool *is_text;
    const char **cells; /* row-major like values */
    char *text;
};

typedef struct parser {
    const char *name;
    char *next;  /* start of the next line */
    char *end;   /* end of the data (a NUL is there) */
    size_t line; /* number of the (first) line of the row last returned */
    size_t last_line; /* its last line: a quoted field may hold line breaks */
    bool any_first_column; /* a general table: the first column need not be "time" */
    size_t header_line;    /* the header's line: a units row is the one right under it */
} parser;

enum { QUOTE_IN_MESSAGE = 40 }; /* characters of a bad field shown in a message */

/* (a CR is blank too: a stray one, as old Mac line ends or a doubled CRLF
 * leave, is no cell content, the same in every reader) */
static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* The next non-blank line, NUL-terminated in place (without its '\r\n'), or
 * NULL. A line break inside a quoted field (RFC 4180 2.6: a String value
 * as the results write it) belongs to the field, not the end of the row. */
static char *next_line(parser *p)
{
    while (p->next < p->end) {
        char *line = p->next;
        size_t breaks;
        char *nl = csv_row_end(line, p->end, &breaks, ',');
        char *stop = nl ? nl : p->end;
        p->next = nl ? nl + 1 : p->end;
        p->line = p->last_line + 1;
        p->last_line = p->line + breaks;
        if (stop > line && stop[-1] == '\r')
            stop--;
        *stop = '\0';
        char *q = line;
        while (is_blank(*q))
            q++;
        if (*q)
            return line;
    }
    return NULL;
}


static rtcosim_status parse_time(const parser *p, const char *text, rtcosim_time_ns *out,
                                 rtcosim_error *err)
{
    /* Exact decimal first ("0.1" is exactly 100000000 ns); otherwise round a
     * double to the nearest tick (times written with more digits than ns). */
    if (rtcosim_time_parse_seconds(text, out, NULL) == RTCOSIM_OK)
        return RTCOSIM_OK;
    char *end = NULL;
    double seconds = strtod(text, &end);
    if (*text && end && *end == '\0' && rtcosim_time_from_seconds(seconds, out, NULL) == RTCOSIM_OK)
        return RTCOSIM_OK;
    return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s:%zu: time '%.*s' is not a valid time in seconds",
                             p->name, p->line, QUOTE_IN_MESSAGE, text);
}

static rtcosim_status parse_value(const parser *p, const rtcosim_csv *t, size_t column,
                                  const char *text, double *out, rtcosim_error *err)
{
    char *end = NULL;
    errno = 0;
    double v = *text ? strtod(text, &end) : 0.0;
    if (!*text || *end != '\0' || !isfinite(v))
        return rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                 "%s:%zu: column %zu ('%s'): '%.*s' is not a finite number", p->name,
                                 p->line, column + 2, t->column_names[column], QUOTE_IN_MESSAGE,
                                 text);
    *out = v;
    return RTCOSIM_OK;
}

static rtcosim_status read_header(parser *p, rtcosim_csv *t, rtcosim_error *err)
{
    char *line = next_line(p);
    if (!line)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                 "%s: file is empty (expected a header row starting with \"time\")",
                                 p->name);
    size_t n = 0;
    char **fields = NULL;
    p->header_line = p->last_line;
    rtcosim_status st = csv_split_header(p->name, p->line, line, &fields, &n, err);
    if (st != RTCOSIM_OK)
        return st;
    if (!p->any_first_column && strcmp(fields[0], "time") != 0) {
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s:%zu: first column is \"%.*s\", expected \"time\"",
                               p->name, p->line, QUOTE_IN_MESSAGE, fields[0]);
        free(fields);
        return st;
    }
    t->column_count = n - 1;
    t->first_column = strdup(fields[0]);
    t->column_names = calloc(n, sizeof *t->column_names);
    if (!t->column_names || !t->first_column) {
        free(fields);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", p->name);
    }
    st = csv_check_names(p->name, p->line, fields, n, err);
    for (size_t i = 0; i < t->column_count && st == RTCOSIM_OK; i++)
        if (!(t->column_names[i] = strdup(fields[i + 1])))
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", p->name);
    free(fields);
    return st;
}

static rtcosim_status grow_rows(rtcosim_csv *t, rtcosim_error *err)
{
    size_t cap = t->row_capacity ? t->row_capacity * 2 : 64;
    size_t cols = t->column_count ? t->column_count : 1;
    if (cap > SIZE_MAX / sizeof(double) / cols)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: too many rows", t->name);
    rtcosim_time_ns *times = realloc(t->times, cap * sizeof *times);
    if (times)
        t->times = times;
    double *values = realloc(t->values, cap * cols * sizeof *values);
    if (values)
        t->values = values;
    size_t *lines = realloc(t->lines, cap * sizeof *lines);
    if (lines)
        t->lines = lines;
    const char **cells = NULL;
    if (t->is_text && (cells = realloc(t->cells, cap * cols * sizeof *cells)))
        t->cells = cells;
    if (!times || !values || !lines || (t->is_text && !cells))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", t->name);
    t->row_capacity = cap;
    return RTCOSIM_OK;
}

static rtcosim_status read_rows(parser *p, rtcosim_csv *t, char **fields, rtcosim_error *err)
{
    char time_text[64];
    char *line;
    while ((line = next_line(p))) {
        size_t expected = t->column_count + 1, n = 0;
        rtcosim_status st = csv_split_fields(p->name, p->line, line, fields, expected, &n, err);
        if (st != RTCOSIM_OK)
            return st;
        if (n != expected)
            return rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                     "%s:%zu: %zu values, expected %zu (time and the %zu columns of the header)",
                                     p->name, p->line, n, expected, t->column_count);
        /* a units row under the header, as `--csv-units` writes it (and
         * convert, plot and compare read it): its time cell is a unit */
        if (t->row_count == 0 && p->line == p->header_line + 1 &&
            (strcmp(fields[0], "s") == 0 || strcmp(fields[0], "sec") == 0 ||
             strcmp(fields[0], "[s]") == 0)) {
            continue;
        }
        if (t->row_count == t->row_capacity && (st = grow_rows(t, err)) != RTCOSIM_OK)
            return st;
        size_t row = t->row_count;
        if ((st = parse_time(p, fields[0], &t->times[row], err)) != RTCOSIM_OK)
            return st;
        if (row > 0 && t->times[row] < t->times[row - 1]) {
            snprintf(time_text, sizeof time_text, "%.*s", QUOTE_IN_MESSAGE, fields[0]);
            return rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                     "%s:%zu: time %s is earlier than the time of line %zu (time must not decrease)",
                                     p->name, p->line, time_text, t->lines[row - 1]);
        }
        for (size_t c = 0; c < t->column_count; c++) {
            size_t at = row * t->column_count + c;
            if (t->is_text && t->is_text[c]) {
                t->cells[at] = fields[c + 1];
                t->values[at] = NAN;
            } else if ((st = parse_value(p, t, c, fields[c + 1], &t->values[at], err)) != RTCOSIM_OK) {
                return st;
            }
        }
        t->lines[row] = p->line;
        t->row_count++;
    }
    if (t->row_count == 0)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: no data rows after the header", p->name);
    return RTCOSIM_OK;
}

/* Which columns keep text cells (none without a predicate). */
typedef struct text_columns {
    bool (*is_text)(void *context, const char *column);
    void *context;
} text_columns;

static rtcosim_status mark_text_columns(rtcosim_csv *t, const text_columns *tc, rtcosim_error *err)
{
    if (!tc || !tc->is_text)
        return RTCOSIM_OK;
    bool any = false;
    bool *marks = calloc(t->column_count + 1, sizeof *marks);
    if (!marks)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", t->name);
    for (size_t c = 0; c < t->column_count; c++)
        any |= marks[c] = tc->is_text(tc->context, t->column_names[c]);
    if (any)
        t->is_text = marks;
    else
        free(marks);
    return RTCOSIM_OK;
}

static rtcosim_status read_memory(const char *name, const void *data, size_t size,
                                  bool any_first_column, const text_columns *tc,
                                  rtcosim_csv **out, rtcosim_error *err)
{
    *out = NULL;
    if (!name)
        name = "<memory>";
    rtcosim_csv *t = calloc(1, sizeof *t);
    char *text = malloc(size + 1);
    if (!t || !text || !(t->name = strdup(name))) {
        free(text);
        rtcosim_csv_free(t);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", name);
    }
    if (size)
        memcpy(text, data, size);
    text[size] = '\0';
    parser p = {.name = t->name, .next = text, .end = text + size,
                .any_first_column = any_first_column};
    if (size >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        p.next += 3; /* UTF-8 byte order mark, as spreadsheet programs write it */
    /* A NUL byte would end fields early; it has no place in a text table. */
    const char *nul = memchr(text, '\0', size);
    rtcosim_status st = RTCOSIM_OK;
    if (nul) {
        size_t line = 1;
        for (const char *q = text; q < nul; q++)
            line += *q == '\n';
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s:%zu: NUL byte in a text file", name, line);
    }
    if (st == RTCOSIM_OK) /* (a spreadsheet's ';' and decimal commas: as ',' and '.') */
        st = csv_semicolon_file(name, text, size, err);
    if (st == RTCOSIM_OK)
        st = read_header(&p, t, err);
    if (st == RTCOSIM_OK)
        st = mark_text_columns(t, tc, err);
    char **fields = NULL;
    if (st == RTCOSIM_OK && !(fields = calloc(t->column_count + 1, sizeof *fields)))
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", name);
    if (st == RTCOSIM_OK)
        st = read_rows(&p, t, fields, err);
    free(fields);
    if (t->is_text)
        t->text = text; /* the text cells point into it */
    else
        free(text);
    if (st != RTCOSIM_OK) {
        rtcosim_csv_free(t);
        return st;
    }
    *out = t;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_csv_read_memory(const char *name, const void *data, size_t size,
                                       rtcosim_csv **out, rtcosim_error *err)
{
    return read_memory(name, data, size, false, NULL, out, err);
}

rtcosim_status rtcosim_csv_read_memory_text(const char *name, const void *data, size_t size,
                                            bool (*is_text)(void *context, const char *column),
                                            void *context, rtcosim_csv **out, rtcosim_error *err)
{
    text_columns tc = {is_text, context};
    return read_memory(name, data, size, false, &tc, out, err);
}

static rtcosim_status read_file(const char *path, bool any_first_column, const text_columns *tc,
                                rtcosim_csv **out, rtcosim_error *err)
{
    *out = NULL;
    char *data;
    size_t size;
    rtcosim_status st = util_read_text_file(path, path, "input file", &data, &size, err);
    if (st == RTCOSIM_OK)
        st = read_memory(path, data, size, any_first_column, tc, out, err);
    free(data);
    return st;
}

rtcosim_status rtcosim_csv_read_file(const char *path, rtcosim_csv **out, rtcosim_error *err)
{
    return read_file(path, false, NULL, out, err);
}

rtcosim_status rtcosim_csv_read_file_text(const char *path,
                                          bool (*is_text)(void *context, const char *column),
                                          void *context, rtcosim_csv **out, rtcosim_error *err)
{
    text_columns tc = {is_text, context};
    return read_file(path, false, &tc, out, err);
}

rtcosim_status rtcosim_csv_read_table_file(const char *path, rtcosim_csv **out,
                                           rtcosim_error *err)
{
    return read_file(path, true, NULL, out, err);
}

rtcosim_status rtcosim_csv_read_table_memory_text(const char *name, const void *data, size_t size,
                                                  bool (*is_text)(void *context, const char *column),
                                                  void *context, rtcosim_csv **out,
                                                  rtcosim_error *err)
{
    text_columns tc = {is_text, context};
    return read_memory(name, data, size, true, &tc, out, err);
}

const char *rtcosim_csv_text(const rtcosim_csv *t, size_t row, size_t column)
{
    return t->is_text && column < t->column_count && t->is_text[column] && row < t->row_count
               ? t->cells[row * t->column_count + column]
               : NULL;
}

const char *rtcosim_csv_first_column_name(const rtcosim_csv *table)
{
    return table->first_column;
}

rtcosim_status rtcosim_csv_select_columns(rtcosim_csv *t, size_t n, const char *const *from,
                                          const char *const *to, rtcosim_error *err)
{
    size_t *src = calloc(n + 1, sizeof *src);
    char **names = calloc(n + 1, sizeof *names);
    double *values = calloc((t->row_count ? t->row_count : 1) * (n ? n : 1), sizeof *values);
    bool *is_text = t->is_text ? calloc(n + 1, sizeof *is_text) : NULL;
    const char **cells = t->cells ? calloc((t->row_count ? t->row_count : 1) * (n ? n : 1),
                                           sizeof *cells)
                                  : NULL;
    double *linear = t->linear ? calloc((t->row_count ? t->row_count : 1) * (n ? n : 1),
                                        sizeof *linear)
                               : NULL;
    rtcosim_status st = RTCOSIM_OK;
    if (!src || !names || !values || (t->is_text && !is_text) || (t->cells && !cells) ||
        (t->linear && !linear))
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", t->name);
    for (size_t i = 0; i < n && st == RTCOSIM_OK; i++) {
        ptrdiff_t c = rtcosim_csv_find_column(t, from[i]);
        if (c < 0) {
            const char *near = NULL;
            size_t best = (size_t)-1;
            for (size_t k = 0; k < t->column_count; k++) {
                size_t d = rtcosim_edit_distance(from[i], t->column_names[k]);
                if (d < best && rtcosim_name_is_close(from[i], t->column_names[k], d))
                    best = d, near = t->column_names[k];
            }
            st = rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: no column '%s'%s%s%s", t->name,
                                   from[i], near ? "; did you mean '" : "", near ? near : "",
                                   near ? "'?" : "");
            break;
        }
        for (size_t j = 0; j < i && st == RTCOSIM_OK; j++)
            if (strcmp(to[j], to[i]) == 0)
                st = rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: '%s' is given two columns ('%s'"
                                       " and '%s')", t->name, to[i], from[j], from[i]);
        src[i] = (size_t)c;
        if (st == RTCOSIM_OK && !(names[i] = strdup(to[i])))
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", t->name);
    }
    if (st != RTCOSIM_OK) {
        for (size_t i = 0; i < n; i++)
            free(names ? names[i] : NULL);
        free(src);
        free(names);
        free(values);
        free(is_text);
        free(cells);
        free(linear);
        return st;
    }
    for (size_t r = 0; r < t->row_count; r++)
        for (size_t i = 0; i < n; i++) {
            values[r * n + i] = t->values[r * t->column_count + src[i]];
            if (cells)
                cells[r * n + i] = t->cells[r * t->column_count + src[i]];
            if (linear)
                linear[r * n + i] = t->linear[r * t->column_count + src[i]];
        }
    for (size_t i = 0; is_text && i < n; i++)
        is_text[i] = t->is_text[src[i]];
    for (size_t i = 0; i < t->column_count; i++)
        free(t->column_names[i]);
    free(t->column_names);
    free(t->values);
    free(t->is_text);
    free(t->cells);
    free(t->linear);
    t->linear = linear;
    t->column_names = names;
    t->values = values;
    t->is_text = is_text;
    t->cells = cells;
    t->column_count = n;
    free(src);
    return RTCOSIM_OK;
}

double csv_linear_value(const rtcosim_csv *t, size_t row, size_t column)
{
    return (t->linear ? t->linear : t->values)[row * t->column_count + column];
}

void rtcosim_csv_free(rtcosim_csv *t)
{
    if (!t)
        return;
    if (t->column_names)
        for (size_t i = 0; i < t->column_count; i++)
            free(t->column_names[i]);
    free(t->column_names);
    free(t->times);
    free(t->values);
    free(t->linear);
    free(t->lines);
    free(t->is_text);
    free(t->cells);
    free(t->text);
    free(t->name);
    free(t->first_column);
    free(t);
}

const char *rtcosim_csv_name(const rtcosim_csv *t)
{
    return t->name;
}

size_t rtcosim_csv_column_count(const rtcosim_csv *t)
{
    return t->column_count;
}

const char *rtcosim_csv_column_name(const rtcosim_csv *t, size_t column)
{
    return column < t->column_count ? t->column_names[column] : NULL;
}

ptrdiff_t rtcosim_csv_find_column(const rtcosim_csv *t, const char *name)
{
    for (size_t i = 0; i < t->column_count; i++)
        if (strcmp(t->column_names[i], name) == 0)
            return (ptrdiff_t)i;
    return -1;
}

size_t rtcosim_csv_row_count(const rtcosim_csv *t)
{
    return t->row_count;
}

rtcosim_time_ns rtcosim_csv_time(const rtcosim_csv *t, size_t row)
{
    return t->times[row];
}

double rtcosim_csv_value(const rtcosim_csv *t, size_t row, size_t column)
{
    return t->values[row * t->column_count + column];
}

size_t rtcosim_csv_line(const rtcosim_csv *t, size_t row)
{
    return t->lines[row];
}

rtcosim_status csv_from_series(const char *name, size_t rows, const double *time_s,
                               size_t columns, const char *const *names,
                               const double *const *values, const double *const *linear,
                               rtcosim_csv **out, rtcosim_error *err)
{
    *out = NULL;
    rtcosim_csv *t = calloc(1, sizeof *t);
    if (!t || !(t->name = strdup(name)) || !(t->first_column = strdup("time")) ||
        !(t->column_names = calloc(columns + 1, sizeof *t->column_names))) {
        rtcosim_csv_free(t);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", name);
    }
    t->column_count = columns;
    rtcosim_status st = RTCOSIM_OK;
    if (rows == 0)
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: no points", name);
    for (size_t c = 0; c < columns && st == RTCOSIM_OK; c++) {
        for (size_t j = 0; j < c && st == RTCOSIM_OK; j++)
            if (strcmp(names[j], names[c]) == 0)
                st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: two variables named '%s'", name,
                                       names[c]);
        if (st == RTCOSIM_OK && !(t->column_names[c] = strdup(names[c])))
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", name);
    }
    while (st == RTCOSIM_OK && t->row_capacity < rows)
        st = grow_rows(t, err);
    bool any_linear = false;
    for (size_t c = 0; linear && c < columns; c++)
        any_linear = any_linear || linear[c];
    if (st == RTCOSIM_OK && any_linear &&
        !(t->linear = malloc(t->row_capacity * (columns ? columns : 1) * sizeof *t->linear)))
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", name);
    for (size_t r = 0; r < rows && st == RTCOSIM_OK; r++) {
        if (rtcosim_time_from_seconds(time_s[r], &t->times[r], NULL) != RTCOSIM_OK)
            st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: point %zu: time %g is not a valid "
                                   "time in seconds", name, r + 1, time_s[r]);
        else if (r > 0 && t->times[r] < t->times[r - 1])
            st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: point %zu: time %g is earlier than "
                                   "the point before (time must not decrease)", name, r + 1,
                                   time_s[r]);
        for (size_t c = 0; c < columns && st == RTCOSIM_OK; c++) {
            double v = values[c][r];
            if (!isfinite(v))
                st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: point %zu: '%s' is %g, not a "
                                       "finite number", name, r + 1, names[c], v);
            t->values[r * columns + c] = v;
            if (t->linear)
                t->linear[r * columns + c] = linear[c] ? linear[c][r] : v;
        }
        t->lines[r] = r + 1;
        t->row_count = r + 1;
    }
    if (st != RTCOSIM_OK) {
        rtcosim_csv_free(t);
        return st;
    }
    *out = t;
    return RTCOSIM_OK;
}

/* ---- fmusim's array cells ---- */

rtcosim_status csv_split_array_columns(const rtcosim_csv *in, const size_t *widths,
                                       const char *const *const *names,
                                       bool (*is_text)(void *context, const char *column),
                                       void *context, rtcosim_csv **out, rtcosim_error *err)
{
    *out = NULL;
    size_t cols = 0, text_bytes = 0, widest = 1;
    for (size_t c = 0; c < in->column_count; c++) {
        if (widths[c] && !(in->is_text && in->is_text[c]))
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: column '%s' holds an array, but "
                                     "its cells were read as numbers", in->name,
                                     in->column_names[c]);
        cols += widths[c] ? widths[c] : 1;
        widest = widths[c] > widest ? widths[c] : widest;
        for (size_t r = 0; in->is_text && in->is_text[c] && r < in->row_count; r++)
            text_bytes += strlen(in->cells[r * in->column_count + c]) + 1;
    }
    rtcosim_csv *t = calloc(1, sizeof *t);
    char **tokens = malloc(widest * sizeof *tokens);
    rtcosim_status st = RTCOSIM_OK;
    if (!t || !tokens || !(t->name = strdup(in->name)) ||
        !(t->first_column = strdup(in->first_column)) ||
        !(t->column_names = calloc(cols + 1, sizeof *t->column_names)) ||
        !(t->is_text = calloc(cols + 1, sizeof *t->is_text)) ||
        !(t->text = malloc(text_bytes + 1)))
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", in->name);
    if (st == RTCOSIM_OK)
        t->column_count = cols;
    while (st == RTCOSIM_OK && t->row_capacity < in->row_count)
        st = grow_rows(t, err);
    if (st == RTCOSIM_OK && !t->cells &&
        !(t->cells = calloc(t->row_capacity * (cols ? cols : 1), sizeof *t->cells)))
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", in->name);
    /* the column names and kinds */
    for (size_t c = 0, o = 0; c < in->column_count && st == RTCOSIM_OK; c++) {
        size_t w = widths[c] ? widths[c] : 1;
        for (size_t k = 0; k < w && st == RTCOSIM_OK; k++, o++) {
            const char *name = widths[c] ? names[c][k] : in->column_names[c];
            if (!(t->column_names[o] = strdup(name)))
                st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", in->name);
            t->is_text[o] = widths[c] ? is_text && is_text(context, name)
                                      : in->is_text && in->is_text[c];
        }
    }
    /* the rows: text copied (split cells in place), elements parsed */
    char *at = t->text;
    for (size_t r = 0; r < in->row_count && st == RTCOSIM_OK; r++) {
        t->times[r] = in->times[r];
        t->lines[r] = in->lines[r];
        t->row_count = r + 1;
        for (size_t c = 0, o = 0; c < in->column_count && st == RTCOSIM_OK; c++) {
            size_t from = r * in->column_count + c, to = r * cols + o;
            if (!(in->is_text && in->is_text[c])) {
                t->values[to] = in->values[from];
                o++;
                continue;
            }
            size_t len = strlen(in->cells[from]);
            memcpy(at, in->cells[from], len + 1);
            char *cell = at;
            at += len + 1;
            if (!widths[c]) {
                t->cells[to] = cell;
                t->values[to] = NAN;
                o++;
                continue;
            }
            size_t n = csv_split_blanks(cell, tokens, widths[c]);
            if (n != widths[c]) {
                st = rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                       "%s:%zu: column %zu ('%s'): %zu value%s, but the array has "
                                       "%zu elements (separated by spaces, in row-major order)",
                                       in->name, in->lines[r], c + 2, in->column_names[c], n,
                                       n == 1 ? "" : "s", widths[c]);
                break;
            }
            for (size_t k = 0; k < n && st == RTCOSIM_OK; k++, o++) {
                t->cells[r * cols + o] = tokens[k];
                t->values[r * cols + o] = NAN;
                if (t->is_text[o])
                    continue;
                char *end = NULL;
                double v = strtod(tokens[k], &end);
                if (*end != '\0' || !isfinite(v))
                    st = rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                           "%s:%zu: column %zu ('%s'): element %zu ('%s'), "
                                           "'%.*s', is not a finite number", in->name,
                                           in->lines[r], c + 2, in->column_names[c], k + 1,
                                           names[c][k], QUOTE_IN_MESSAGE, tokens[k]);
                t->values[r * cols + o] = v;
                t->cells[r * cols + o] = NULL;
            }
        }
    }
    free(tokens);
    if (st != RTCOSIM_OK) {
        rtcosim_csv_free(t);
        return st;
    }
    *out = t;
    return RTCOSIM_OK;
}
