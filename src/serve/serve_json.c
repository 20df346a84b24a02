/* The live view's JSON reader and writer helpers (serve_json.h). Written
 * for its few request bodies: a flat object of scalars, checked strictly
 * against RFC 8259's grammar, so that anything else is answered 400. */
#include "serve/serve_json.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtcosim/results.h"

typedef struct reader {
    const char *p, *end;
    char *why;
    size_t why_size;
} reader;

static bool fail(reader *r, const char *what)
{
    if (r->why && r->why_size)
        snprintf(r->why, r->why_size, "%s", what);
    return false;
}

static void skip_space(reader *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
        r->p++;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static bool read_hex4(reader *r, unsigned *out)
{
    if (r->end - r->p < 4)
        return fail(r, "truncated \\u escape");
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int d = hex_digit(r->p[i]);
        if (d < 0)
            return fail(r, "bad \\u escape");
        v = v * 16 + (unsigned)d;
    }
    r->p += 4;
    *out = v;
    return true;
}

/* Appends code point cp as UTF-8; false when out of room. */
static bool put_utf8(char *out, size_t size, size_t *len, unsigned cp)
{
    unsigned char b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (unsigned char)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (unsigned char)(0xC0 | (cp >> 6));
        b[1] = (unsigned char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (unsigned char)(0xE0 | (cp >> 12));
        b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (unsigned char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        b[0] = (unsigned char)(0xF0 | (cp >> 18));
        b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        b[3] = (unsigned char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    if (*len + n >= size)
        return false;
    memcpy(out + *len, b, n);
    *len += n;
    return true;
}

/* A string at r->p (the opening quote), decoded into out (NUL-terminated). */
static bool read_string(reader *r, char *out, size_t size, const char *what)
{
    if (r->p >= r->end || *r->p != '"')
        return fail(r, "expected a string");
    r->p++;
    size_t len = 0;
    while (r->p < r->end && *r->p != '"') {
        unsigned char c = (unsigned char)*r->p;
        if (c < 0x20)
            return fail(r, "control character in a string");
        if (c != '\\') {
            if (len + 1 >= size) {
                char msg[80];
                snprintf(msg, sizeof msg, "%s longer than %zu bytes", what, size - 1);
                return fail(r, msg);
            }
            out[len++] = (char)c;
            r->p++;
            continue;
        }
        r->p++;
        if (r->p >= r->end)
            return fail(r, "truncated escape");
        char e = *r->p++;
        unsigned cp;
        switch (e) {
        case '"': cp = '"'; break;
        case '\\': cp = '\\'; break;
        case '/': cp = '/'; break;
        case 'b': cp = '\b'; break;
        case 'f': cp = '\f'; break;
        case 'n': cp = '\n'; break;
        case 'r': cp = '\r'; break;
        case 't': cp = '\t'; break;
        case 'u':
            if (!read_hex4(r, &cp))
                return false;
            if (cp >= 0xD800 && cp <= 0xDBFF) { /* a surrogate pair */
                unsigned low;
                if (r->end - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u')
                    return fail(r, "unpaired surrogate in \\u escape");
                r->p += 2;
                if (!read_hex4(r, &low))
                    return false;
                if (low < 0xDC00 || low > 0xDFFF)
                    return fail(r, "unpaired surrogate in \\u escape");
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                return fail(r, "unpaired surrogate in \\u escape");
            }
            if (cp == 0)
                return fail(r, "NUL character in a string");
            break;
        default:
            return fail(r, "bad escape in a string");
        }
        if (!put_utf8(out, size, &len, cp)) {
            char msg[80];
            snprintf(msg, sizeof msg, "%s longer than %zu bytes", what, size - 1);
            return fail(r, msg);
        }
    }
    if (r->p >= r->end)
        return fail(r, "unterminated string");
    r->p++;
    out[len] = '\0';
    return true;
}

/* A number by RFC 8259's grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool read_number(reader *r, double *out)
{
    const char *s = r->p;
    const char *p = s;
    if (p < r->end && *p == '-')
        p++;
    if (p >= r->end || *p < '0' || *p > '9')
        return fail(r, "bad number");
    if (*p == '0')
        p++;
    else
        while (p < r->end && *p >= '0' && *p <= '9')
            p++;
    if (p < r->end && *p == '.') {
        p++;
        if (p >= r->end || *p < '0' || *p > '9')
            return fail(r, "bad number (no digit after '.')");
        while (p < r->end && *p >= '0' && *p <= '9')
            p++;
    }
    if (p < r->end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < r->end && (*p == '+' || *p == '-'))
            p++;
        if (p >= r->end || *p < '0' || *p > '9')
            return fail(r, "bad number (no digit in the exponent)");
        while (p < r->end && *p >= '0' && *p <= '9')
            p++;
    }
    size_t n = (size_t)(p - s);
    char copy[128];
    if (n >= sizeof copy)
        return fail(r, "number longer than 127 characters");
    memcpy(copy, s, n);
    copy[n] = '\0';
    errno = 0;
    double v = strtod(copy, NULL);
    if (errno == ERANGE && isinf(v))
        return fail(r, "number outside the range of a double");
    *out = v;
    r->p = p;
    return true;
}

static bool read_literal(reader *r, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0)
        return fail(r, "unexpected character");
    r->p += n;
    return true;
}

bool serve_json_parse_object(const char *text, size_t size, serve_json_member *members,
                             size_t *count, char *why, size_t why_size)
{
    reader r = {text, text + size, why, why_size};
    *count = 0;
    skip_space(&r);
    if (r.p >= r.end || *r.p != '{')
        return fail(&r, "expected a JSON object");
    r.p++;
    skip_space(&r);
    if (r.p < r.end && *r.p == '}') {
        r.p++;
    } else {
        for (;;) {
            if (*count == SERVE_JSON_MAX_MEMBERS)
                return fail(&r, "too many members");
            serve_json_member *m = &members[*count];
            skip_space(&r);
            if (!read_string(&r, m->key, sizeof m->key, "a key"))
                return false;
            for (size_t i = 0; i < *count; i++)
                if (strcmp(members[i].key, m->key) == 0)
                    return fail(&r, "a member given twice");
            skip_space(&r);
            if (r.p >= r.end || *r.p != ':')
                return fail(&r, "expected ':'");
            r.p++;
            skip_space(&r);
            if (r.p >= r.end)
                return fail(&r, "truncated object");
            m->text[0] = '\0';
            m->number = 0;
            char c = *r.p;
            if (c == '"') {
                m->kind = SERVE_JSON_STRING;
                if (!read_string(&r, m->text, sizeof m->text, "a string"))
                    return false;
            } else if (c == '-' || (c >= '0' && c <= '9')) {
                m->kind = SERVE_JSON_NUMBER;
                if (!read_number(&r, &m->number))
                    return false;
            } else if (c == 't' || c == 'f') {
                m->kind = SERVE_JSON_BOOL;
                m->number = c == 't';
                if (!read_literal(&r, c == 't' ? "true" : "false"))
                    return false;
            } else if (c == 'n') {
                m->kind = SERVE_JSON_NULL;
                if (!read_literal(&r, "null"))
                    return false;
            } else if (c == '{' || c == '[') {
                return fail(&r, "nested objects and arrays are not accepted");
            } else {
                return fail(&r, "unexpected character");
            }
            (*count)++;
            skip_space(&r);
            if (r.p < r.end && *r.p == ',') {
                r.p++;
                continue;
            }
            if (r.p < r.end && *r.p == '}') {
                r.p++;
                break;
            }
            return fail(&r, "expected ',' or '}'");
        }
    }
    skip_space(&r);
    if (r.p != r.end)
        return fail(&r, "text after the object");
    return true;
}

bool serve_json_parse_set(const char *text, size_t size, char *name, size_t name_size,
                          double *value, char *why, size_t why_size)
{
    serve_json_member members[SERVE_JSON_MAX_MEMBERS];
    size_t count;
    if (!serve_json_parse_object(text, size, members, &count, why, why_size))
        return false;
    const serve_json_member *n = NULL, *v = NULL;
    for (size_t i = 0; i < count; i++) {
        if (strcmp(members[i].key, "name") == 0)
            n = &members[i];
        else if (strcmp(members[i].key, "value") == 0)
            v = &members[i];
        else {
            snprintf(why, why_size, "unknown member \"%.60s\" (expected name and value)",
                     members[i].key);
            return false;
        }
    }
    if (!n || n->kind != SERVE_JSON_STRING || !n->text[0]) {
        snprintf(why, why_size, "\"name\" must be a non-empty string");
        return false;
    }
    if (!v || (v->kind != SERVE_JSON_NUMBER && v->kind != SERVE_JSON_BOOL)) {
        snprintf(why, why_size, "\"value\" must be a number (or true/false)");
        return false;
    }
    if (strlen(n->text) >= name_size) {
        snprintf(why, why_size, "\"name\" longer than %zu bytes", name_size - 1);
        return false;
    }
    strcpy(name, n->text);
    *value = v->number;
    return true;
}

bool serve_json_appendf(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
    if (*len >= size)
        return false;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, size - *len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= size - *len) {
        buf[*len] = '\0';
        return false;
    }
    *len += (size_t)n;
    return true;
}

bool serve_json_append_string(char *buf, size_t size, size_t *len, const char *s)
{
    size_t start = *len;
    bool ok = serve_json_appendf(buf, size, len, "\"");
    for (const unsigned char *p = (const unsigned char *)s; ok && *p; p++) {
        if (*p == '"' || *p == '\\')
            ok = serve_json_appendf(buf, size, len, "\\%c", *p);
        else if (*p < 0x20)
            ok = serve_json_appendf(buf, size, len, "\\u%04x", *p);
        else
            ok = serve_json_appendf(buf, size, len, "%c", *p);
    }
    ok = ok && serve_json_appendf(buf, size, len, "\"");
    if (!ok) {
        *len = start;
        buf[start] = '\0';
    }
    return ok;
}

bool serve_json_append_number(char *buf, size_t size, size_t *len, double v)
{
    if (!isfinite(v))
        return serve_json_appendf(buf, size, len, "null");
    char text[RTCOSIM_FORMAT_MAX];
    rtcosim_format_double(v, text);
    return serve_json_appendf(buf, size, len, "%s", text);
}
