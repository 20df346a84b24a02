/* Characteristic maps for the error handling system: 1-D and 2-D lookup
 * tables read from CSV and interpolated (bi)linearly, so that a late
 * partner's output can be estimated from other current signals. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtcosim/estimate.h"
#include "util/read_file.h"

#define MAP_NAME_MAX 256

struct rtcosim_map {
    char name[MAP_NAME_MAX]; /* file name, for messages */
    size_t dims;             /* 1 or 2 */
    char input_names[2][MAP_NAME_MAX];
    size_t rows, cols;       /* 1-D: rows breakpoints, cols = 1 */
    double *row_breaks;      /* rows */
    double *col_breaks;      /* cols (2-D only) */
    double *values;          /* rows * cols, row-major */
};

/* A cursor over the text, one line at a time. */
typedef struct line_reader {
    const char *p, *end;
    size_t line_no;
    char line[4096];
} line_reader;

/* Next non-empty, non-comment line (trimmed) into r->line; false at the end.
 * Lines longer than the buffer are an error reported by the caller. */
static int next_line(line_reader *r)
{
    while (r->p < r->end) {
        const char *eol = memchr(r->p, '\n', (size_t)(r->end - r->p));
        const char *stop = eol ? eol : r->end;
        size_t len = (size_t)(stop - r->p);
        const char *start = r->p;
        r->p = eol ? eol + 1 : r->end;
        r->line_no++;
        while (len > 0 && (start[len - 1] == '\r' || start[len - 1] == ' ' ||
                           start[len - 1] == '\t'))
            len--;
        while (len > 0 && (*start == ' ' || *start == '\t'))
            start++, len--;
        if (len == 0 || *start == '#')
            continue;
        if (len >= sizeof r->line)
            return -1;
        memcpy(r->line, start, len);
        r->line[len] = '\0';
        return 1;
    }
    return 0;
}

/* Split a line in place at commas; trims each cell. Returns the cell count
 * (at most max). */
static size_t split_cells(char *line, char **cells, size_t max)
{
    size_t n = 0;
    char *p = line;
    while (n < max) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        while (*p == ' ' || *p == '\t')
            p++;
        char *e = p + strlen(p);
        while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
            *--e = '\0';
        cells[n++] = p;
        if (!comma)
            return n;
        p = comma + 1;
    }
    return n + 1; /* more cells than allowed: the caller reports it */
}

static int parse_number(const char *cell, double *out)
{
    if (!*cell)
        return -1;
    char *end;
    errno = 0;
    double v = strtod(cell, &end);
    if (*end || errno == ERANGE || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

void rtcosim_map_free(rtcosim_map *map)
{
    if (!map)
        return;
    free(map->row_breaks);
    free(map->col_breaks);
    free(map->values);
    free(map);
}

#define MAP_MAX_CELLS 1024
#define MAP_MAX_ROWS 100000

static int copy_name(char *dst, const char *src)
{
    size_t n = strlen(src);
    if (n == 0 || n >= MAP_NAME_MAX)
        return -1;
    memcpy(dst, src, n + 1);
    return 0;
}

/* Grow the row arrays of m to hold `capacity` rows. */
static int reserve_rows(rtcosim_map *m, size_t capacity)
{
    double *rb = realloc(m->row_breaks, capacity * sizeof(double));
    if (!rb)
        return -1;
    m->row_breaks = rb;
    double *v = realloc(m->values, capacity * m->cols * sizeof(double));
    if (!v)
        return -1;
    m->values = v;
    return 0;
}

rtcosim_status rtcosim_map_parse_csv(const char *text, size_t length, const char *name,
                                     rtcosim_map **out, rtcosim_error *err)
{
    if (!out || (!text && length))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "map: NULL argument");
    *out = NULL;
    if (!name)
        name = "map";
    rtcosim_map *m = calloc(1, sizeof *m);
    if (!m)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", name);
    snprintf(m->name, sizeof m->name, "%s", name);
    line_reader r = {.p = text, .end = text + length};
    char *cells[MAP_MAX_CELLS + 1];
    char what[160];
    int got = next_line(&r);
    if (got <= 0) {
        snprintf(what, sizeof what, "%s", got < 0 ? "line too long" : "empty map (no header)");
        goto format_error;
    }
    size_t ncells = split_cells(r.line, cells, MAP_MAX_CELLS);
    if (ncells > MAP_MAX_CELLS) {
        snprintf(what, sizeof what, "more than %d columns", MAP_MAX_CELLS);
        goto format_error;
    }
    char *backslash = strchr(cells[0], '\\');
    if (backslash) {
        /* 2-D: ROW\COL,c1,c2,... */
        *backslash = '\0';
        m->dims = 2;
        m->cols = ncells - 1;
        if (copy_name(m->input_names[0], cells[0]) || copy_name(m->input_names[1], backslash + 1)) {
            snprintf(what, sizeof what, "2-D header must start with ROWINPUT\\COLINPUT");
            goto format_error;
        }
        if (m->cols < 2) {
            snprintf(what, sizeof what, "2-D map needs at least 2 column breakpoints");
            goto format_error;
        }
        m->col_breaks = malloc(m->cols * sizeof(double));
        if (!m->col_breaks)
            goto out_of_memory;
        for (size_t c = 0; c < m->cols; c++) {
            if (parse_number(cells[c + 1], &m->col_breaks[c])) {
                snprintf(what, sizeof what, "column breakpoint '%.60s' is not a finite number",
                         cells[c + 1]);
                goto format_error;
            }
            if (c > 0 && !(m->col_breaks[c] > m->col_breaks[c - 1])) {
                snprintf(what, sizeof what, "column breakpoints are not strictly increasing");
                goto format_error;
            }
        }
    } else {
        m->dims = 1;
        m->cols = 1;
        if (ncells != 2 || copy_name(m->input_names[0], cells[0]) || !*cells[1]) {
            snprintf(what, sizeof what,
                     "header must be INPUT,OUTPUT (1-D) or ROWINPUT\\COLINPUT,c1,c2,... (2-D)");
            goto format_error;
        }
    }
    size_t capacity = 16;
    if (reserve_rows(m, capacity))
        goto out_of_memory;
    while ((got = next_line(&r)) != 0) {
        if (got < 0) {
            snprintf(what, sizeof what, "line too long");
            goto format_error;
        }
        ncells = split_cells(r.line, cells, MAP_MAX_CELLS);
        if (ncells != m->cols + 1) {
            snprintf(what, sizeof what, "expected %zu values, found %s%zu", m->cols + 1,
                     ncells > MAP_MAX_CELLS ? "more than " : "",
                     ncells > MAP_MAX_CELLS ? (size_t)MAP_MAX_CELLS : ncells);
            goto format_error;
        }
        if (m->rows == MAP_MAX_ROWS) {
            snprintf(what, sizeof what, "more than %d rows", MAP_MAX_ROWS);
            goto format_error;
        }
        if (m->rows == capacity) {
            capacity *= 2;
            if (reserve_rows(m, capacity))
                goto out_of_memory;
        }
        for (size_t c = 0; c <= m->cols; c++) {
            double v;
            if (parse_number(cells[c], &v)) {
                snprintf(what, sizeof what, "'%.60s' is not a finite number", cells[c]);
                goto format_error;
            }
            if (c == 0)
                m->row_breaks[m->rows] = v;
            else
                m->values[m->rows * m->cols + c - 1] = v;
        }
        if (m->rows > 0 && !(m->row_breaks[m->rows] > m->row_breaks[m->rows - 1])) {
            snprintf(what, sizeof what, "%s are not strictly increasing",
                     m->dims == 1 ? "input values" : "row breakpoints");
            goto format_error;
        }
        m->rows++;
    }
    if (m->rows < 2) {
        snprintf(what, sizeof what, "map needs at least 2 rows of data");
        goto format_error;
    }
    *out = m;
    return RTCOSIM_OK;

format_error:
    rtcosim_map_free(m);
    return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s:%zu: %s", name, r.line_no, what);
out_of_memory:
    rtcosim_map_free(m);
    return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", name);
}

rtcosim_status rtcosim_map_load_csv(const char *path, rtcosim_map **out, rtcosim_error *err)
{
    if (!path || !out)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "map: NULL argument");
    char *buf = NULL;
    size_t len = 0;
    rtcosim_status st = util_read_text_file(path, path, "map", &buf, &len, err);
    if (st != RTCOSIM_OK)
        return st;
    st = rtcosim_map_parse_csv(buf, len, path, out, err);
    free(buf);
    return st;
}

size_t rtcosim_map_input_count(const rtcosim_map *map)
{
    return map->dims;
}

const char *rtcosim_map_input_name(const rtcosim_map *map, size_t index)
{
    return index < map->dims ? map->input_names[index] : NULL;
}

const char *rtcosim_map_name(const rtcosim_map *map)
{
    return map->name;
}

/* Interval index i with breaks[i] <= x <= breaks[i+1] (x already clamped)
 * and the fraction of the way from breaks[i] to breaks[i+1]. Binary search:
 * O(log n), no allocation. */
static size_t locate(const double *breaks, size_t n, double x, double *fraction)
{
    size_t lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (breaks[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    *fraction = (x - breaks[lo]) / (breaks[lo + 1] - breaks[lo]);
    return lo;
}

rtcosim_status rtcosim_map_lookup(const rtcosim_map *map, const double *inputs,
                                  rtcosim_map_range_policy policy, double *out, bool *clamped,
                                  rtcosim_error *err)
{
    double x[2];
    bool was_clamped = false;
    rtcosim_status st = RTCOSIM_OK;
    for (size_t d = 0; d < map->dims; d++) {
        const double *breaks = d == 0 ? map->row_breaks : map->col_breaks;
        size_t n = d == 0 ? map->rows : map->cols;
        double lo = breaks[0], hi = breaks[n - 1];
        x[d] = inputs[d];
        if (!(x[d] >= lo && x[d] <= hi)) { /* also catches NaN */
            was_clamped = true;
            if (policy == RTCOSIM_MAP_RANGE_ERROR && st == RTCOSIM_OK)
                st = rtcosim_error_set(err, RTCOSIM_EINVAL,
                                       "%s: input %s = %g outside the map range [%g, %g]",
                                       map->name, map->input_names[d], inputs[d], lo, hi);
            x[d] = isnan(x[d]) ? lo : (x[d] < lo ? lo : hi);
        }
    }
    double fr, fc;
    size_t r = locate(map->row_breaks, map->rows, x[0], &fr);
    if (map->dims == 1) {
        const double *v = map->values;
        *out = v[r] + fr * (v[r + 1] - v[r]);
    } else {
        size_t c = locate(map->col_breaks, map->cols, x[1], &fc);
        const double *v = map->values;
        size_t w = map->cols;
        double top = v[r * w + c] + fc * (v[r * w + c + 1] - v[r * w + c]);
        double bottom = v[(r + 1) * w + c] + fc * (v[(r + 1) * w + c + 1] - v[(r + 1) * w + c]);
        *out = top + fr * (bottom - top);
    }
    if (clamped)
        *clamped = was_clamped;
    return st;
}
