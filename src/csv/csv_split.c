/* A CSV line split into fields (csv_split.h), for the stimulus reader
 * (csv_reader.c) and the results reader of plot, info and read_result
 * (src/plot/plot_csv.c). */
#include "csv_split.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse_double.h"

/* (a CR is blank too: a stray one, as old Mac line ends or a doubled CRLF
 * leave, is no cell content, the same in every reader) */
static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* The quote state of a row past the character at *p (csv_split_fields's
 * rules: a quote opens a field where the field begins, after blanks; ""
 * inside is one quote, the next one closes it), `starts` saying that the
 * character begins a field after it; *p moves past a doubled quote. True
 * when the character stands outside quotes and is not a quote that opens. */
static bool quote_step(const char **p, const char *end, bool *quoted, bool *field_start,
                       bool starts)
{
    char c = **p;
    if (*quoted) {
        if (c == '"' && *p + 1 < end && (*p)[1] == '"')
            ++*p;
        else if (c == '"')
            *quoted = false;
        return false;
    }
    if (c == '"' && *field_start) {
        *quoted = true, *field_start = false;
        return false;
    }
    *field_start = starts || (*field_start && is_blank(c));
    return true;
}

char *csv_row_end(const char *row, const char *end, size_t *breaks, char sep)
{
    *breaks = 0;
    const char *nl = memchr(row, '\n', (size_t)(end - row));
    if (!memchr(row, '"', (size_t)((nl ? nl : end) - row)))
        return (char *)nl; /* (most rows: no quote, no scan) */
    bool field_start = true, quoted = false;
    for (const char *p = row; p < end; p++) {
        char c = *p;
        if (quote_step(&p, end, &quoted, &field_start, c == sep)) {
            if (c == '\n')
                return (char *)p;
        } else if (c == '\n') {
            ++*breaks;
        }
    }
    return NULL;
}

/* Split a line into fields in place (RFC 4180 quoting). Stores up to max
 * field starts; *count is the number of fields found. */
rtcosim_status csv_split_fields(const char *path, size_t lineno, char *line, char **fields,
                                size_t max, size_t *count, rtcosim_error *err)
{
    size_t n = 0;
    char *pos = line;
    for (;;) {
        while (is_blank(*pos))
            pos++;
        char *field = pos, *field_end;
        if (*pos == '"') {
            char *dst = pos;
            pos++;
            for (;;) {
                if (*pos == '\0')
                    return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s:%zu: field %zu: missing closing quote",
                                             path, lineno, n + 1);
                if (*pos == '"') {
                    if (pos[1] != '"')
                        break;
                    pos++;
                }
                *dst++ = *pos++;
            }
            pos++; /* the closing quote */
            field_end = dst;
            while (is_blank(*pos))
                pos++;
            if (*pos != ',' && *pos != '\0')
                return rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                         "%s:%zu: field %zu: unexpected text after the closing quote",
                                         path, lineno, n + 1);
        } else {
            while (*pos != ',' && *pos != '\0')
                pos++;
            field_end = pos;
            while (field_end > field && is_blank(field_end[-1]))
                field_end--;
        }
        bool more = *pos == ',';
        *field_end = '\0';
        if (n < max)
            fields[n] = field;
        n++;
        if (!more)
            break;
        pos++;
    }
    *count = n;
    return RTCOSIM_OK;
}

rtcosim_status csv_split_header(const char *path, size_t lineno, char *line, char ***fields,
                                size_t *count, rtcosim_error *err)
{
    *fields = NULL;
    char *copy = strdup(line);
    if (!copy)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    size_t n = 0;
    rtcosim_status st = csv_split_fields(path, lineno, copy, NULL, 0, &n, err);
    free(copy);
    if (st != RTCOSIM_OK)
        return st;
    if (!(*fields = calloc(n, sizeof **fields)))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    csv_split_fields(path, lineno, line, *fields, n, count, NULL);
    /* a header of one column holding tabs: a file separated by tabs (those
     * separated by semicolons were rewritten before: csv_semicolon_row),
     * which every row would then contradict */
    if (*count == 1 && strchr((*fields)[0], '\t')) {
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s:%zu: the header is one column, \"%.40s\": "
                               "values are read separated by commas, and this file separates "
                               "them by tabs (write it with ',' between values and '.' as the "
                               "decimal point)", path, lineno, (*fields)[0]);
        free(*fields);
        *fields = NULL;
        return st;
    }
    /* a file without a header: its first row would become the column names
     * and be lost as a row */
    bool numbers = true;
    for (size_t i = 0; i < *count && numbers; i++) {
        char *end = NULL;
        const char *f = (*fields)[i];
        (void)strtod(f, &end);
        numbers = *f && end && *end == '\0';
    }
    if (numbers) {
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s:%zu: no header row: the first line holds"
                               " numbers only ('%.40s'...), where the column names belong",
                               path, lineno, (*fields)[0]);
        free(*fields);
        *fields = NULL;
        return st;
    }
    return RTCOSIM_OK;
}

typedef struct named {
    const char *name;
    size_t index;
} named;

static int by_name_then_index(const void *a, const void *b)
{
    const named *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* The index of the first name an earlier one repeats (n when none;
 * SIZE_MAX out of memory). */
static size_t first_repeat(char *const *names, size_t n)
{
    if (n < 2)
        return n;
    named *v = malloc(n * sizeof *v);
    if (!v)
        return SIZE_MAX;
    for (size_t i = 0; i < n; i++)
        v[i] = (named){names[i], i};
    qsort(v, n, sizeof *v, by_name_then_index);
    size_t first = n;
    for (size_t i = 1; i < n; i++)
        if (strcmp(v[i - 1].name, v[i].name) == 0 && v[i].index < first)
            first = v[i].index; /* (a later one of the same name: its second is earlier) */
    free(v);
    return first;
}

rtcosim_status csv_check_names(const char *path, size_t lineno, char *const *fields, size_t n,
                               rtcosim_error *err)
{
    size_t empty = 1, repeat = first_repeat(fields, n);
    while (empty < n && *fields[empty])
        empty++;
    if (repeat == SIZE_MAX)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    if (empty < n && empty <= repeat)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s:%zu: column %zu has an empty name",
                                 path, lineno, empty + 1);
    if (repeat < n)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s:%zu: column \"%.40s\" appears twice",
                                 path, lineno, fields[repeat]);
    return RTCOSIM_OK;
}

/* ---- a file separated by semicolons (decimal commas) ---- */

char csv_header_separator(const char *line, const char *end)
{
    size_t commas = 0, semicolons = 0;
    bool quoted = false, field_start = true;
    for (const char *p = line; p < end; p++) {
        char c = *p;
        if (!quote_step(&p, end, &quoted, &field_start, c == ',' || c == ';'))
            continue;
        if (c == '\n')
            break;
        commas += c == ',', semicolons += c == ';';
    }
    return semicolons && !commas ? ';' : ',';
}

/* Whether [f, e) (blanks around it allowed) is a number with a decimal
 * comma at `comma`: a sign, digits, the comma, digits, an exponent. */
static bool decimal_comma(const char *f, const char *e, const char *comma)
{
    while (f < e && is_blank(*f))
        f++;
    while (e > f && is_blank(e[-1]))
        e--;
    const char *p = f + (f < e && (*f == '+' || *f == '-'));
    const char *digits = p;
    while (p < e && *p >= '0' && *p <= '9')
        p++;
    if (p == digits || p != comma)
        return false;
    digits = ++p;
    while (p < e && *p >= '0' && *p <= '9')
        p++;
    if (p == digits)
        return false;
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        p += p < e && (*p == '+' || *p == '-');
        digits = p;
        while (p < e && *p >= '0' && *p <= '9')
            p++;
        if (p == digits)
            return false;
    }
    return p == e;
}

rtcosim_status csv_semicolon_row(const char *path, size_t lineno, char *line, char *end,
                                 rtcosim_error *err)
{
    char *p = line;
    for (size_t field = 1;; field++) {
        while (p < end && is_blank(*p))
            p++;
        if (p < end && *p == '"') { /* as it is: what is quoted is text */
            for (p++; p < end; p++)
                if (*p == '"' && !(p + 1 < end && p[1] == '"'))
                    break;
                else if (*p == '"')
                    p++;
            /* text after the closing quote: the split's error; a comma
             * there, which the comma-separated row this one becomes would
             * take for a separator (and a quote after it for one that
             * opens), is refused here so that every reader ends the rows
             * where this file's own separator does */
            char *junk = p < end ? p + 1 : p;
            while (p < end && *p != ';')
                p++;
            char *comma = junk < end ? memchr(junk, ',', (size_t)(p - junk)) : NULL;
            if (comma)
                return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s:%zu: field %zu: text after "
                                         "the closing quote holds a comma ('%.*s')", path, lineno,
                                         field, (int)(p - junk < 40 ? p - junk : 40), junk);
        } else {
            char *f = p;
            while (p < end && *p != ';')
                p++;
            char *comma = memchr(f, ',', (size_t)(p - f));
            if (comma && !decimal_comma(f, p, comma))
                return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s:%zu: field %zu: '%.*s' holds "
                                         "a comma and is no number (in a file separated by "
                                         "semicolons the comma is the decimal point: text that "
                                         "holds one is quoted)", path, lineno, field,
                                         (int)(p - f < 40 ? p - f : 40), f);
            if (comma)
                *comma = '.';
        }
        if (p >= end)
            return RTCOSIM_OK;
        *p++ = ',';
    }
}

rtcosim_status csv_semicolon_file(const char *path, char *data, size_t size, rtcosim_error *err)
{
    char *end = data + size, *row = data;
    if (size >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
        row += 3;
    size_t lineno = 1, breaks;
    /* the header: the first line that is not blank, its end found with the
     * separator it has (a quote after a ';' opens a field: a header's quoted
     * line break belongs to it, as the line at a time reader takes it) */
    char sep = 0;
    while (row < end) {
        char row_sep = sep ? sep : csv_header_separator(row, end);
        char *nl = csv_row_end(row, end, &breaks, row_sep);
        char *stop = nl ? nl : end;
        if (!sep) {
            const char *q = row;
            while (q < stop && is_blank(*q))
                q++;
            if (q < stop && (sep = row_sep) != ';')
                return RTCOSIM_OK;
        }
        if (sep) {
            rtcosim_status st = csv_semicolon_row(path, lineno, row, stop, err);
            if (st != RTCOSIM_OK)
                return st;
        }
        row = nl ? nl + 1 : end;
        lineno += 1 + breaks;
    }
    return RTCOSIM_OK;
}

/* ---- fmusim's arrays: the elements in one cell, separated by spaces ---- */

/* How many numbers [f, e) holds separated by blanks when it is two or more
 * and nothing else, else 0. */
static size_t number_list(const char *f, const char *e)
{
    size_t n = 0;
    for (;;) {
        while (f < e && is_blank(*f))
            f++;
        if (f == e)
            return n >= 2 ? n : 0;
        const char *t = f;
        while (t < e && !is_blank(*t))
            t++;
        double v;
        if (!util_parse_double(f, (size_t)(t - f), &v))
            return 0;
        n++;
        f = t;
    }
}

size_t csv_array_widths(const char *line, const char *end, size_t *widths, size_t max)
{
    for (size_t c = 0; c < max; c++)
        widths[c] = 0;
    size_t field = 0;
    for (const char *p = line;; field++) {
        const char *f = p;
        while (f < end && is_blank(*f))
            f++;
        bool quoted = f < end && *f == '"';
        const char *q = f;
        if (quoted) {
            for (q++; q < end; q++) {
                if (*q == '"' && q + 1 < end && q[1] == '"') {
                    q++;
                } else if (*q == '"') {
                    q++;
                    break;
                }
            }
        }
        while (q < end && *q != ',')
            q++;
        if (field >= 1 && field - 1 < max && !quoted)
            widths[field - 1] = number_list(f, q);
        if (q >= end)
            return field + 1;
        p = q + 1;
    }
}

size_t csv_split_blanks(char *cell, char **tokens, size_t max)
{
    size_t n = 0;
    for (char *s = cell;;) {
        while (is_blank(*s))
            s++;
        if (!*s)
            return n;
        if (n < max)
            tokens[n] = s;
        n++;
        while (*s && !is_blank(*s))
            s++;
        if (*s)
            *s++ = '\0';
    }
}
