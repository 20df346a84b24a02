/* The DBC reader's cursor over the text and its tokens (dbc_text.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dbc_text.h"

rtcosim_status dbc_fail(cursor *c, int line, const char *fmt, ...)
{
    char text[RTCOSIM_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (c->overlong) /* the cause of the failure that follows a cut name */
        return rtcosim_error_set(c->err, RTCOSIM_EFORMAT,
                                 "%s:%d: a name or multiplexer indicator longer than %d characters",
                                 c->name, line, DBC_NAME_MAX);
    return rtcosim_error_set(c->err, RTCOSIM_EFORMAT, "%s:%d: %.400s", c->name, line, text);
}

void dbc_skip_blank(cursor *c)
{
    while (*c->p == ' ' || *c->p == '\t' || *c->p == '\r')
        c->p++;
}

/* A C identifier; false (and c->overlong) when it does not fit out: a cut
 * name would make two long names one. */
bool dbc_ident(cursor *c, char *out, size_t size)
{
    dbc_skip_blank(c);
    size_t n = 0;
    if (!(isalpha((unsigned char)*c->p) || *c->p == '_'))
        return false;
    while (isalnum((unsigned char)*c->p) || *c->p == '_') {
        if (n + 1 >= size) {
            c->overlong = true;
            return false;
        }
        out[n++] = *c->p++;
    }
    out[n] = '\0';
    return true;
}

bool dbc_expect(cursor *c, char ch)
{
    dbc_skip_blank(c);
    if (*c->p != ch)
        return false;
    c->p++;
    return true;
}

bool dbc_number(cursor *c, double *out)
{
    dbc_skip_blank(c);
    if (!(isdigit((unsigned char)*c->p) || *c->p == '-' || *c->p == '+' || *c->p == '.'))
        return false;
    char *end;
    errno = 0;
    *out = strtod(c->p, &end);
    if (end == c->p || errno == ERANGE || !isfinite(*out))
        return false;
    c->p = end;
    return true;
}

bool dbc_unsigned_number(cursor *c, uint64_t *out)
{
    dbc_skip_blank(c);
    if (!isdigit((unsigned char)*c->p))
        return false;
    char *end;
    errno = 0;
    *out = strtoull(c->p, &end, 10);
    if (errno == ERANGE)
        return false;
    c->p = end;
    return true;
}

bool dbc_signed_number(cursor *c, int64_t *out)
{
    dbc_skip_blank(c);
    bool negative = *c->p == '-';
    if (negative)
        c->p++;
    uint64_t u;
    if (!dbc_unsigned_number(c, &u) || u > (uint64_t)INT64_MAX)
        return false;
    *out = negative ? -(int64_t)u : (int64_t)u;
    return true;
}

/* A quoted string on one line; *out is malloc'd. */
bool dbc_quoted(cursor *c, char **out)
{
    dbc_skip_blank(c);
    if (*c->p != '"')
        return false;
    const char *start = ++c->p;
    while (*c->p && *c->p != '"' && *c->p != '\n')
        c->p++;
    if (*c->p != '"')
        return false;
    size_t n = (size_t)(c->p - start);
    c->p++;
    if (!(*out = malloc(n + 1)))
        return false;
    memcpy(*out, start, n);
    (*out)[n] = '\0';
    return true;
}

void dbc_next_line(cursor *c)
{
    while (*c->p && *c->p != '\n')
        c->p++;
    if (*c->p == '\n') {
        c->p++;
        c->line++;
    }
}

/* Read over a statement up to its ';' (outside quotes, across lines). */
rtcosim_status dbc_skip_statement(cursor *c)
{
    int start = c->line;
    bool in_quotes = false;
    for (; *c->p; c->p++) {
        if (*c->p == '\n')
            c->line++;
        else if (*c->p == '"')
            in_quotes = !in_quotes;
        else if (*c->p == ';' && !in_quotes) {
            c->p++;
            return RTCOSIM_OK;
        }
    }
    return dbc_fail(c, start, "statement without its closing ';'%s", in_quotes ? " (a quote is open)" : "");
}

bool dbc_at_line_end(cursor *c)
{
    dbc_skip_blank(c);
    return *c->p == '\0' || *c->p == '\n';
}

/* The id as written: bit 31 marks an extended id. */
bool dbc_split_id(uint64_t raw, uint32_t *id, bool *extended)
{
    *extended = (raw & 0x80000000u) != 0;
    *id = (uint32_t)(raw & 0x7FFFFFFFu);
    return raw <= 0xFFFFFFFFu && *id <= (*extended ? 0x1FFFFFFFu : 0x7FFu);
}

/* The message and signal a BA_/VAL_ statement names. */
rtcosim_status dbc_lookup(cursor *c, rtcosim_dbc *d, int line, uint64_t raw, const char *signal,
                             message_build **m, rtcosim_dbc_signal **s)
{
    uint32_t id;
    bool extended;
    *m = NULL;
    if (raw == DBC_INDEPENDENT_ID)
        return RTCOSIM_OK;
    if (!dbc_split_id(raw, &id, &extended) || !(*m = dbc_find(d, id, extended))) {
        return dbc_fail(c, line, "no message with id %llu (BO_ must come first)",
                    (unsigned long long)raw);
    }
    if (!signal)
        return RTCOSIM_OK;
    for (size_t i = 0; i < (*m)->pub.signal_count; i++)
        if (strcmp((*m)->signals[i].name, signal) == 0) {
            *s = &(*m)->signals[i];
            return RTCOSIM_OK;
        }
    return dbc_fail(c, line, "no signal '%s' in that message", signal);
}
