/* A results CSV read a line at a time (plot_internal.h: plot_csv_scan), for
 * `rtcosim plot`, `rtcosim info` and read_result: the file passes through a
 * buffer that holds the longest line, and each consumer keeps only what it
 * needs (the selected columns as doubles, or running extremes). What it
 * accepts and rejects is what the whole reader (plot_data.c: the file read
 * into memory, its units row blanked, then rtcosim_csv's general table) does,
 * error texts included; fuzz_plot_results compares the two. The one
 * difference: an error is the first one in the file, where the whole reader
 * reported a NUL byte anywhere before any other. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv/csv_split.h"
#include "plot/plot_internal.h"
#include "rtcosim/time.h"
#include "util/parse_double.h"

enum {
    READ_CHUNK = 1 << 20,  /* bytes asked of the file at a time */
    QUOTE_IN_MESSAGE = 40, /* characters of a bad field shown in a message (as csv_reader.c) */
};

/* ---- numbers in the C locale, whatever the host program set ---- */

static double c_strtod(const char *text, char **end)
{
    double v;
    size_t len = strlen(text);
    if (util_parse_double(text, len, &v)) {
        *end = (char *)text + len;
        return v;
    }
    return util_strtod_c(text, end);
}

plot_cell plot_csv_number(const char *text, double *value)
{
    if (!*text) {
        *value = NAN;
        return PLOT_CELL_EMPTY;
    }
    double v;
    bool number = util_parse_double(text, strlen(text), &v);
    *value = number ? v : NAN;
    return number ? PLOT_CELL_NUMBER : PLOT_CELL_WORD;
}

static bool is_c_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* The first column as rtcosim_csv reads it: rtcosim_time_parse_seconds's
 * exact decimal, else a double rounded to the nearest tick. Both give the
 * tick of the same double; they differ only in what they accept (trailing
 * space and sub-tick fractions), which is kept here, in the C locale. */
static bool parse_time(const char *text, rtcosim_time_ns *out)
{
    char *end = NULL;
    errno = 0;
    double seconds = c_strtod(text, &end);
    bool range = errno == ERANGE && seconds != 0.0;
    if (end == text || rtcosim_time_from_seconds(seconds, out, NULL) != RTCOSIM_OK)
        return false;
    if (*end == '\0')
        return true; /* the double rounded to a tick */
    while (is_c_space(*end))
        end++;
    if (*end != '\0' || range)
        return false;
    long double ns = (long double)seconds * 1e9L;
    long double off = fabsl(ns - nearbyintl(ns));
    return !(off > 1e-6L + 1e-15L * fabsl(ns));
}

/* ---- lines ---- */

typedef struct line_reader {
    FILE *f;
    const char *path;
    char *buf;
    size_t cap, start, end; /* unread bytes [start, end); one byte kept spare */
    bool eof;
    size_t lineno; /* the number the next line gets (for an error in it) */
    char sep;      /* where a quoted field may start: after ',' (or ';', a file so
                    * separated); 0 before the header */
} line_reader;

/* The next line in place (without its '\n', which stays in the buffer;
 * line[len] may be written); 1, 0 at the end of the file, -1 on an error
 * (*st says which). A row's line breaks inside quoted fields (a String
 * value's) are part of it, *breaks of them. */
static int next_line(line_reader *r, char **line, size_t *len, bool *newline, size_t *breaks,
                     rtcosim_status *st, rtcosim_error *err)
{
    for (;;) {
        /* (scanned from the row's start again after a read: a quote's
         * meaning depends on what came before it in the row) */
        *breaks = 0;
        size_t from = r->start; /* (a byte order mark is not the first field's start) */
        if (r->lineno == 1 && r->end - r->start >= 3 && memcmp(r->buf + from, "\xEF\xBB\xBF", 3) == 0)
            from += 3;
        /* (before the header: its end found with the separator it has) */
        char *nl = NULL;
        if (r->start < r->end) {
            char sep = r->sep ? r->sep : csv_header_separator(r->buf + from, r->buf + r->end);
            nl = csv_row_end(r->buf + from, r->buf + r->end, breaks, sep);
        }
        if (nl || (r->eof && r->start < r->end)) {
            char *stop = nl ? nl : r->buf + r->end;
            *line = r->buf + r->start;
            *len = (size_t)(stop - *line);
            *newline = nl != NULL;
            r->start = (size_t)(stop - r->buf) + (nl != NULL);
            return 1;
        }
        if (r->eof)
            return 0;
        if (r->start > 0) { /* keep the line begun, drop what is read */
            memmove(r->buf, r->buf + r->start, r->end - r->start);
            r->end -= r->start, r->start = 0;
        }
        if (r->cap - r->end < READ_CHUNK / 2 + 1) { /* a line longer than the buffer */
            /* binary data (or /dev/zero) is one endless line: the NUL that
             * read_line would find, found before the buffer grows without end */
            if (r->end > r->start && memchr(r->buf + r->start, '\0', r->end - r->start)) {
                *st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s:%zu: NUL byte in a text file",
                                        r->path, r->lineno);
                return -1;
            }
            size_t cap = r->cap ? r->cap * 2 : READ_CHUNK;
            char *bigger = cap > r->cap ? realloc(r->buf, cap) : NULL;
            if (!bigger) {
                *st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", r->path);
                return -1;
            }
            r->buf = bigger, r->cap = cap;
        }
        size_t got = fread(r->buf + r->end, 1, r->cap - r->end - 1, r->f);
        r->end += got;
        if (got == 0) {
            if (ferror(r->f)) {
                *st = rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot read results file: %s",
                                        r->path, strerror(errno));
                return -1;
            }
            r->eof = true;
        }
    }
}

/* ---- fields (rtcosim_csv's rules and messages, csv_reader.c) ---- */

/* (a CR is blank too: a stray one, as old Mac line ends or a doubled CRLF
 * leave, is no cell content, the same in every reader) */
static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}


/* ---- the scan ---- */

typedef struct scan {
    const char *path;
    const plot_csv_sink *sink;
    size_t lineno;
    int seen;        /* non-blank lines as the units row's finder counts them (to 2) */
    char *units;     /* the units row as written (up to a NUL), or NULL */
    bool header;     /* read */
    size_t columns;  /* besides the first */
    char **fields;   /* columns + 1 */
    size_t rows;
    rtcosim_time_ns last_time;
    size_t last_line;
    char sep;        /* the header's separator (0 before it): ';' rows are rewritten as ',' */
    /* The header reaches the sink with the first row, whose cells say which
     * columns hold fmusim's arrays ("1 2 3": split into name[1], ...): till
     * then its names are kept here (copies: the line buffer moves). */
    bool delivered;
    char **names;    /* columns + 1: the first column's name, then the others */
    size_t *widths;  /* per column: its elements, 0 for a column of one value; NULL: no array */
    size_t total;    /* the columns the sink sees */
    char **cells;    /* total: a row's cells as the sink sees them (with widths) */
} scan;

static bool is_unit_blank(char c)
{
    return c == ' ' || c == '\r' || c == '\t';
}

/* The second non-blank line (blank: spaces, tabs and CRs) is the units row
 * when its first cell is the time column's unit ("s", "sec", "[s]" or
 * empty), as plot_data.c's find_units_row says; it is kept for the sink and
 * is no row. True when this line is it. */
static bool units_row(scan *s, const char *line, size_t len, bool newline, rtcosim_error *err,
                      rtcosim_status *st)
{
    if (s->seen >= 2)
        return false;
    size_t i = 0;
    while (i < len && is_unit_blank(line[i]))
        i++;
    if (i == len || ++s->seen < 2)
        return false;
    char first[64];
    const char *p = line;
    plot_csv_field(&p, line + len, first, sizeof first);
    if (strcmp(first, "s") != 0 && strcmp(first, "") != 0 && strcmp(first, "sec") != 0 &&
        strcmp(first, "[s]") != 0)
        return false;
    /* with its '\n' (still in the buffer), up to a NUL: as plot_data.c copies it */
    if (!(s->units = strndup(line, len + newline)))
        *st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", s->path);
    return true;
}

static rtcosim_status read_header(scan *s, char *line, rtcosim_error *err)
{
    size_t n = 0;
    rtcosim_status st = csv_split_header(s->path, s->lineno, line, &s->fields, &n, err);
    if (st != RTCOSIM_OK)
        return st;
    s->columns = n - 1;
    if ((st = csv_check_names(s->path, s->lineno, s->fields, n, err)) != RTCOSIM_OK)
        return st;
    s->header = true;
    if (!(s->names = calloc(n + 1, sizeof *s->names)))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", s->path);
    for (size_t i = 0; i < n; i++)
        if (!(s->names[i] = strdup(s->fields[i])))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", s->path);
    return RTCOSIM_OK;
}

/* The units row with each array column's unit repeated for its elements. */
static char *units_for_elements(const scan *s)
{
    size_t len = strlen(s->units), size = 2 * len + 3 * (s->total + 1) + 2;
    const char *p = s->units, *pe = s->units + len;
    char unit[128], *out = malloc(size), *o = out;
    if (!out)
        return NULL;
    for (size_t c = 0; c <= s->columns; c++) {
        if (!(p <= pe && plot_csv_field(&p, pe, unit, sizeof unit)))
            unit[0] = '\0';
        size_t repeat = c > 0 && s->widths[c - 1] ? s->widths[c - 1] : 1;
        for (size_t k = 0; k < repeat; k++) {
            if ((size_t)(o - out) + 2 * strlen(unit) + 4 > size) {
                size_t at = (size_t)(o - out);
                char *bigger = realloc(out, size = 2 * size + 2 * strlen(unit) + 4);
                if (!bigger) {
                    free(out);
                    return NULL;
                }
                out = bigger, o = out + at;
            }
            if (o > out)
                *o++ = ',';
            *o++ = '"';
            for (const char *u = unit; *u; u++) {
                if (*u == '"')
                    *o++ = '"';
                *o++ = *u;
            }
            *o++ = '"';
        }
    }
    *o++ = '\n';
    *o = '\0';
    return out;
}

/* The header to the sink, its arrays known from the first row, the line
 * [row, row_end) before it is split (row NULL: a file without rows). */
static rtcosim_status deliver_header(scan *s, const char *row, const char *row_end,
                                     rtcosim_error *err)
{
    s->delivered = true;
    s->total = s->columns;
    if (row) {
        if (!(s->widths = calloc(s->columns + 1, sizeof *s->widths)))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", s->path);
        csv_array_widths(row, row_end, s->widths, s->columns);
        for (size_t c = 0; c < s->columns; c++)
            s->total += s->widths[c] ? s->widths[c] - 1 : 0;
    }
    if (s->total == s->columns) { /* no array (widths are 0 or >= 2) */
        free(s->widths);
        s->widths = NULL;
        return s->sink->header(s->sink->context, s->names[0], s->columns, s->names + 1, err);
    }
    char **names = calloc(s->total + 1, sizeof *names);
    s->cells = calloc(s->total + 1, sizeof *s->cells);
    rtcosim_status st = names && s->cells ? RTCOSIM_OK
                                          : rtcosim_error_set(err, RTCOSIM_ENOMEM,
                                                              "%s: out of memory", s->path);
    for (size_t c = 0, o = 0; c < s->columns && st == RTCOSIM_OK; c++) {
        const char *name = s->names[c + 1];
        for (size_t k = 0; k < (s->widths[c] ? s->widths[c] : 1) && st == RTCOSIM_OK; k++, o++) {
            size_t size = strlen(name) + 24;
            if (!(names[o] = malloc(size)))
                st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", s->path);
            else if (s->widths[c])
                snprintf(names[o], size, "%s[%zu]", name, k + 1);
            else
                memcpy(names[o], name, strlen(name) + 1);
        }
    }
    if (st == RTCOSIM_OK && s->units) {
        char *units = units_for_elements(s);
        if (!units)
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", s->path);
        free(s->units);
        s->units = units;
    }
    if (st == RTCOSIM_OK)
        st = s->sink->header(s->sink->context, s->names[0], s->total, names, err);
    for (size_t o = 0; names && o < s->total; o++)
        free(names[o]);
    free(names);
    return st;
}

/* A row's cells with each array cell split into its elements (an empty
 * cell: each element empty); another count than the first row's is an
 * error. */
static rtcosim_status split_arrays(scan *s, rtcosim_error *err)
{
    for (size_t c = 0, o = 0; c < s->columns; c++) {
        char *cell = s->fields[c + 1];
        size_t w = s->widths[c];
        if (!w) {
            s->cells[o++] = cell;
            continue;
        }
        size_t n = csv_split_blanks(cell, s->cells + o, w);
        if (n == 0)
            for (size_t k = 0; k < w; k++)
                s->cells[o + k] = cell;
        else if (n != w)
            return rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                     "%s:%zu: column %zu ('%s'): %zu value%s where the first row "
                                     "has %zu (an array's elements, separated by spaces)",
                                     s->path, s->lineno, c + 2, s->names[c + 1], n,
                                     n == 1 ? "" : "s", w);
        o += w;
    }
    return RTCOSIM_OK;
}

static rtcosim_status read_row(scan *s, char *line, rtcosim_error *err)
{
    size_t expected = s->columns + 1, n = 0;
    rtcosim_status st = RTCOSIM_OK;
    if (!s->delivered) {
        if ((st = deliver_header(s, line, line + strlen(line), err)) != RTCOSIM_OK ||
            s->sink->header_only)
            return st; /* (the names only: this row was read for its arrays) */
    }
    st = csv_split_fields(s->path, s->lineno, line, s->fields, expected, &n, err);
    if (st != RTCOSIM_OK)
        return st;
    if (n != expected)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                 "%s:%zu: %zu values, expected %zu (time and the %zu columns of the header)",
                                 s->path, s->lineno, n, expected, s->columns);
    rtcosim_time_ns t;
    if (!parse_time(s->fields[0], &t))
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s:%zu: time '%.*s' is not a valid time in seconds",
                                 s->path, s->lineno, QUOTE_IN_MESSAGE, s->fields[0]);
    if (s->rows > 0 && t < s->last_time)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                 "%s:%zu: time %.*s is earlier than the time of line %zu (time must not decrease)",
                                 s->path, s->lineno, QUOTE_IN_MESSAGE, s->fields[0], s->last_line);
    s->rows++;
    s->last_time = t;
    s->last_line = s->lineno;
    if (s->widths && (st = split_arrays(s, err)) != RTCOSIM_OK)
        return st;
    return s->sink->row(s->sink->context, rtcosim_time_to_seconds(t),
                        s->widths ? s->cells : s->fields + 1, err);
}

/* One line: the units row kept, blank lines skipped, then the header, then rows. */
static rtcosim_status read_line(scan *s, char *line, size_t len, bool newline, rtcosim_error *err)
{
    rtcosim_status st = RTCOSIM_OK;
    /* UTF-8 byte order mark, as spreadsheet programs write it (a line of it
     * alone is blank, also to the units row's finder) */
    if (s->lineno == 1 && len >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0)
        line += 3, len -= 3;
    /* a spreadsheet's file separated by semicolons (decimal commas), known
     * by its header: each row read as the comma-separated one it stands for */
    if (!s->sep) {
        size_t i = 0;
        while (i < len && is_unit_blank(line[i]))
            i++;
        if (i < len)
            s->sep = csv_header_separator(line, line + len);
    }
    if (s->sep == ';' && (st = csv_semicolon_row(s->path, s->lineno, line, line + len, err)) !=
                             RTCOSIM_OK)
        return st;
    if (units_row(s, line, len, newline, err, &st))
        return st;
    if (memchr(line, '\0', len))
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s:%zu: NUL byte in a text file", s->path,
                                 s->lineno);
    if (len > 0 && line[len - 1] == '\r')
        len--;
    line[len] = '\0';
    const char *q = line;
    while (is_blank(*q))
        q++;
    if (!*q)
        return RTCOSIM_OK;
    return s->header ? read_row(s, line, err) : read_header(s, line, err);
}

rtcosim_status plot_csv_scan(const char *path, const plot_csv_sink *sink, char **units,
                             rtcosim_error *err)
{
    if (units)
        *units = NULL;
    line_reader r = {.path = path, .f = fopen(path, "rb")};
    if (!r.f)
        return rtcosim_error_set(err, errno == ENOENT ? RTCOSIM_ENOTFOUND : RTCOSIM_EIO,
                                 "%s: cannot open results file: %s", path, strerror(errno));
    scan s = {.path = path, .sink = sink};
    rtcosim_status st = RTCOSIM_OK;
    char *line;
    size_t len;
    bool newline;
    size_t breaks;
    int got;
    while (st == RTCOSIM_OK && !(sink->header_only && s.delivered) &&
           (r.lineno = s.lineno + 1,
            got = next_line(&r, &line, &len, &newline, &breaks, &st, err)) != 0) {
        if (got < 0)
            break;
        s.lineno++;
        st = read_line(&s, line, len, newline, err);
        s.lineno += breaks;
        r.sep = s.sep;
    }
    if (st == RTCOSIM_OK && s.header && !s.delivered)
        st = deliver_header(&s, NULL, NULL, err);
    if (st == RTCOSIM_OK && !s.header)
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT,
                               "%s: file is empty (expected a header row starting with \"time\")", path);
    else if (st == RTCOSIM_OK && s.rows == 0 && !sink->header_only)
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: no data rows after the header", path);
    fclose(r.f);
    free(r.buf);
    free(s.fields);
    for (size_t i = 0; s.names && i <= s.columns; i++)
        free(s.names[i]);
    free(s.names);
    free(s.widths);
    free(s.cells);
    if (st != RTCOSIM_OK || !units)
        free(s.units);
    else
        *units = s.units;
    return st;
}

rtcosim_status plot_csv_units(const char *path, const char *row, size_t count, char **units,
                              rtcosim_error *err)
{
    for (size_t c = 0; c < count; c++)
        units[c] = NULL;
    if (!row)
        return RTCOSIM_OK;
    const char *p = row, *pe = row + strlen(row);
    char unit[128];
    plot_csv_field(&p, pe, unit, sizeof unit); /* the time column's "s" */
    for (size_t c = 0; c < count; c++) {
        if (p <= pe && plot_csv_field(&p, pe, unit, sizeof unit) && unit[0] &&
            !(units[c] = strdup(unit))) {
            for (size_t k = 0; k < c; k++)
                free(units[k]);
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
        }
    }
    return RTCOSIM_OK;
}

/* ---- a table of the selected columns ---- */

typedef struct table_sink {
    const char *path;
    const result_select *select;
    bool kinds_only;  /* no values kept: rows counted, cells classified (plot_csv_read_kinds) */
    bool (*stop)(void *context); /* kinds_only: asked every 4096 rows; NULL: never */
    void *stop_context;
    plot_table *t;
    size_t count;     /* columns of the file, besides the first */
    ptrdiff_t *keep;  /* per column of the file: its column in t, or -1 */
    size_t *numbers, *words; /* per column of t */
    /* kinds_only, per column of t: cells that are integer literals, and
     * whether one is past 2^53, negative, past INT64_MAX (result_exact) */
    size_t *ints;
    uint8_t *int_flags;
    size_t capacity;  /* rows t's arrays hold */
} table_sink;

enum { INT_BIG = 1, INT_NEGATIVE = 2, INT_PAST_INT64 = 4 };

bool plot_csv_integer(const char *text, bool *negative, uint64_t *magnitude)
{
    const char *p = text;
    *negative = *p == '-';
    p += *p == '-' || *p == '+';
    if (*p < '0' || *p > '9')
        return false;
    uint64_t m = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (m > (UINT64_MAX - d) / 10)
            return false; /* past uint64 */
        m = m * 10 + d;
    }
    *magnitude = m;
    return !*p && !(*negative && m > (uint64_t)1 << 63);
}

/* Whether text is an integer literal of int64 or uint64; its flags (INT_*)
 * into *flags. */
static bool int_literal(const char *text, uint8_t *flags)
{
    bool negative;
    uint64_t m;
    if (!plot_csv_integer(text, &negative, &m))
        return false;
    *flags = (uint8_t)((m > (uint64_t)1 << 53 ? INT_BIG : 0) | (negative && m ? INT_NEGATIVE : 0) |
                       (!negative && m > (uint64_t)INT64_MAX ? INT_PAST_INT64 : 0));
    return true;
}

/* What a column of ints integer literals in rows rows carries exactly. */
static result_exact exact_kind(size_t ints, uint8_t flags, size_t rows)
{
    if (rows == 0 || ints != rows || !(flags & INT_BIG))
        return RESULT_EXACT_NONE; /* (a double holds them, or not every row has one) */
    if (flags & INT_PAST_INT64)
        return flags & INT_NEGATIVE ? RESULT_EXACT_NONE : RESULT_EXACT_UINT64;
    return RESULT_EXACT_INT64;
}

static rtcosim_status table_header(void *context, const char *first, size_t count,
                                   char *const *names, rtcosim_error *err)
{
    table_sink *k = context;
    plot_table *t = k->t;
    k->count = count;
    size_t kept = 0;
    if (!(k->keep = calloc(count + 1, sizeof *k->keep)) || !(t->first_name = strdup(first)))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", k->path);
    for (size_t c = 0; c < count; c++)
        k->keep[c] = result_select_has(k->select, names[c]) ? (ptrdiff_t)kept++ : -1;
    if (!(t->columns = calloc(kept + 1, sizeof *t->columns)) ||
        !(k->numbers = calloc(kept + 1, sizeof *k->numbers)) ||
        !(k->words = calloc(kept + 1, sizeof *k->words)) ||
        !(k->ints = calloc(kept + 1, sizeof *k->ints)) ||
        !(k->int_flags = calloc(kept + 1, sizeof *k->int_flags)))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", k->path);
    t->column_count = kept;
    for (size_t c = 0; c < count; c++)
        if (k->keep[c] >= 0 && !(t->columns[k->keep[c]].name = strdup(names[c])))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", k->path);
    return RTCOSIM_OK;
}

/* Every array of t to `rows` rows (realloc: growth doubles, the end trims). */
static bool table_resize(table_sink *k, size_t rows)
{
    plot_table *t = k->t;
    size_t n = rows ? rows : 1;
    if (n > SIZE_MAX / sizeof(double))
        return false;
    double *time = realloc(t->time, n * sizeof *time);
    if (!time)
        return false;
    t->time = time;
    for (size_t c = 0; c < t->column_count; c++) {
        double *v = realloc(t->columns[c].values, n * sizeof *v);
        if (!v)
            return false;
        t->columns[c].values = v;
    }
    k->capacity = n;
    return true;
}

static rtcosim_status table_row(void *context, double time, char *const *cells, rtcosim_error *err)
{
    table_sink *k = context;
    plot_table *t = k->t;
    if (k->kinds_only) {
        (void)time;
        if (++t->rows % 4096 == 0 && k->stop && k->stop(k->stop_context))
            return RTCOSIM_ECANCELED; /* (the caller asked: no message) */
        for (size_t c = 0; c < k->count; c++) {
            ptrdiff_t i = k->keep[c];
            double scratch;
            if (i < 0)
                continue;
            plot_cell kind = plot_csv_number(cells[c], &scratch);
            k->numbers[i] += kind == PLOT_CELL_NUMBER;
            k->words[i] += kind == PLOT_CELL_WORD;
            uint8_t flags;
            if (kind == PLOT_CELL_NUMBER && int_literal(cells[c], &flags)) {
                k->ints[i]++;
                k->int_flags[i] |= flags;
            }
        }
        return RTCOSIM_OK;
    }
    if (t->rows == k->capacity && !table_resize(k, k->capacity ? k->capacity * 2 : 1024))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory after %zu rows", k->path,
                                 t->rows);
    size_t r = t->rows++;
    t->time[r] = time;
    for (size_t c = 0; c < k->count; c++) {
        ptrdiff_t i = k->keep[c];
        if (i < 0)
            continue;
        plot_cell kind = plot_csv_number(cells[c], &t->columns[i].values[r]);
        k->numbers[i] += kind == PLOT_CELL_NUMBER;
        k->words[i] += kind == PLOT_CELL_WORD;
    }
    return RTCOSIM_OK;
}

static rtcosim_status read_table(const char *path, const result_select *select, bool header_only,
                                 bool kinds_only, bool (*stop)(void *), void *stop_context,
                                 plot_table **out, rtcosim_error *err)
{
    *out = NULL;
    table_sink k = {.path = path, .select = select, .kinds_only = kinds_only, .stop = stop,
                    .stop_context = stop_context, .t = calloc(1, sizeof *k.t)};
    if (!k.t || !(k.t->path = strdup(path))) {
        result_table_free(k.t);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    }
    plot_csv_sink sink = {.context = &k, .header = table_header, .row = table_row,
                          .header_only = header_only};
    char *row = NULL, **units = NULL;
    rtcosim_status st = plot_csv_scan(path, &sink, &row, err);
    if (st == RTCOSIM_OK && !kinds_only && !table_resize(&k, k.t->rows)) /* give back the growth's spare */
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    if (st == RTCOSIM_OK && !(units = calloc(k.count + 1, sizeof *units)))
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    if (st == RTCOSIM_OK)
        st = plot_csv_units(path, row, k.count, units, err);
    for (size_t c = 0; st == RTCOSIM_OK && c < k.count; c++) {
        ptrdiff_t i = k.keep[c];
        if (i < 0) {
            free(units[c]);
            continue;
        }
        k.t->columns[i].unit = units[c];
        k.t->columns[i].text = k.words[i] > 0 && k.numbers[i] == 0;
        k.t->columns[i].not_numbers = k.t->columns[i].text ? 0 : k.words[i];
        k.t->columns[i].empty = k.words[i] == 0 && k.numbers[i] == 0;
        k.t->columns[i].exact = exact_kind(k.ints[i], k.int_flags[i], k.t->rows);
    }
    free(units);
    free(row);
    free(k.keep);
    free(k.numbers);
    free(k.words);
    free(k.ints);
    free(k.int_flags);
    if (st != RTCOSIM_OK) {
        result_table_free(k.t);
        return st;
    }
    *out = k.t;
    return RTCOSIM_OK;
}

rtcosim_status plot_csv_read(const char *path, const result_select *select, plot_table **out,
                             rtcosim_error *err)
{
    return read_table(path, select, false, false, NULL, NULL, out, err);
}

rtcosim_status plot_csv_read_names(const char *path, plot_table **out, rtcosim_error *err)
{
    return read_table(path, NULL, true, false, NULL, NULL, out, err);
}

rtcosim_status plot_csv_read_kinds(const char *path, const result_select *select,
                                   bool (*stop)(void *context), void *stop_context,
                                   plot_table **out, rtcosim_error *err)
{
    return read_table(path, select, false, true, stop, stop_context, out, err);
}
