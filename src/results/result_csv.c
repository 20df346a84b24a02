/* A results CSV read back a row at a time for conversion at close
 * (result_csv.h). */
#include "result_csv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse_double.h"

const rtcosim_column *result_csv_meta(const rtcosim_column *columns, size_t count,
                                      const char *name)
{
    for (size_t i = 0; columns && i < count; i++)
        if (strcmp(columns[i].name, name) == 0)
            return &columns[i];
    return NULL;
}

bool result_csv_is_text(const rtcosim_column *meta)
{
    return meta && (meta->type == RTCOSIM_TYPE_STRING || meta->type == RTCOSIM_TYPE_BINARY);
}

/* The next logical row split into s->fields; 0 at the end, 1 a row, -1 an
 * error (err set). */
int result_csv_row(result_csv_stream *s, rtcosim_error *err)
{
    s->len = 0;
    bool quoted = false;
    for (;;) { /* whole lines until no quote is open */
        ssize_t n = getline(&s->chunk, &s->chunk_cap, s->f);
        char *chunk = s->chunk;
        if (n < 0) {
            if (ferror(s->f))
                return rtcosim_error_set(err, RTCOSIM_EIO, "%s: reading the results failed",
                                         s->path), -1;
            if (quoted)
                return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s:%zu: a quote left open at "
                                         "the end", s->path, s->lineno), -1;
            if (s->len == 0)
                return 0;
            break;
        }
        s->lineno++;
        for (ssize_t k = 0; k < n; k++)
            quoted ^= chunk[k] == '"';
        if (s->len + (size_t)n + 1 > s->cap) {
            size_t cap = (s->len + (size_t)n + 1) * 2;
            char *grown = realloc(s->line, cap);
            if (!grown)
                return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", s->path), -1;
            s->line = grown;
            s->cap = cap;
        }
        memcpy(s->line + s->len, chunk, (size_t)n);
        s->len += (size_t)n;
        s->line[s->len] = '\0';
        if (!quoted)
            break;
    }
    while (s->len && (s->line[s->len - 1] == '\n' || s->line[s->len - 1] == '\r'))
        s->line[--s->len] = '\0';
    /* split, unquoting in place */
    s->nfields = 0;
    char *p = s->line, *w;
    for (;;) {
        if (s->nfields == s->cap_fields) {
            size_t cap = s->cap_fields ? 2 * s->cap_fields : 16;
            char **grown = realloc(s->fields, cap * sizeof *grown);
            if (!grown)
                return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", s->path), -1;
            s->fields = grown;
            s->cap_fields = cap;
        }
        s->fields[s->nfields++] = w = p;
        if (*p == '"') {
            for (p++;; p++) {
                if (*p == '"' && p[1] == '"')
                    *w++ = '"', p++;
                else if (*p == '"' || *p == '\0')
                    break;
                else
                    *w++ = *p;
            }
            if (*p == '"')
                p++;
        } else {
            while (*p && *p != ',')
                *w++ = *p++;
        }
        char *next = p;
        while (*next && *next != ',')
            next++; /* (anything after a closing quote: read over) */
        bool more = *next == ',';
        *w = '\0';
        if (!more)
            return 1;
        p = next + 1;
    }
}

/* A cell's number; NaN for an empty or unreadable one. */
double result_csv_number(const char *text)
{
    double v;
    return util_parse_double(text, strlen(text), &v) ? v : NAN;
}

/* A row's time: the exact decimal, else a double rounded to the tick. */
bool result_csv_time(const char *text, rtcosim_time_ns *out)
{
    if (rtcosim_time_parse_seconds(text, out, NULL) == RTCOSIM_OK)
        return true;
    double seconds;
    return util_parse_double(text, strlen(text), &seconds) &&
           rtcosim_time_from_seconds(seconds, out, NULL) == RTCOSIM_OK;
}

void result_csv_stream_close(result_csv_stream *s)
{
    free(s->line);
    free(s->fields);
    free(s->chunk);
    if (s->f)
        fclose(s->f);
    *s = (result_csv_stream){0};
}
