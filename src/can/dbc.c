/* Reading DBC files (dbc.h) into messages and signals: a line-oriented
 * reader for BO_/SG_ and the statements that refine them (BA_
 * "GenMsgCycleTime", VAL_), reading over the rest. Every error names file
 * and line; the reader never reads past its input (fuzzed: fuzz_dbc.c). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dbc_internal.h"
#include "rtcosim/log.h"
#include "util/array.h"
#include "util/read_file.h"
#include "util/text.h"

/* Longest name (message, signal, transmitter) and multiplexer indicator. */
#define DBC_NAME_MAX 255

typedef struct cursor {
    const char *p;   /* NUL-terminated text */
    int line;
    const char *name;
    rtcosim_error *err;
    bool overlong;   /* the last ident() was longer than its buffer */
    /* The enums of BA_DEF_ BO_ "VFrameFormat" and "CANFD_BRS" and their
     * BA_DEF_DEF_ defaults (NULL: none given) */
    char *formats[32], *brs_values[8], *format_default, *brs_default;
    size_t format_count, brs_count;
} cursor;

static rtcosim_status fail(cursor *c, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static rtcosim_status fail(cursor *c, int line, const char *fmt, ...)
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

static void skip_blank(cursor *c)
{
    while (*c->p == ' ' || *c->p == '\t' || *c->p == '\r')
        c->p++;
}

/* A C identifier; false (and c->overlong) when it does not fit out: a cut
 * name would make two long names one. */
static bool ident(cursor *c, char *out, size_t size)
{
    skip_blank(c);
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

static bool expect(cursor *c, char ch)
{
    skip_blank(c);
    if (*c->p != ch)
        return false;
    c->p++;
    return true;
}

static bool number(cursor *c, double *out)
{
    skip_blank(c);
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

static bool unsigned_number(cursor *c, uint64_t *out)
{
    skip_blank(c);
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

static bool signed_number(cursor *c, int64_t *out)
{
    skip_blank(c);
    bool negative = *c->p == '-';
    if (negative)
        c->p++;
    uint64_t u;
    if (!unsigned_number(c, &u) || u > (uint64_t)INT64_MAX)
        return false;
    *out = negative ? -(int64_t)u : (int64_t)u;
    return true;
}

/* A quoted string on one line; *out is malloc'd. */
static bool quoted(cursor *c, char **out)
{
    skip_blank(c);
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

static void next_line(cursor *c)
{
    while (*c->p && *c->p != '\n')
        c->p++;
    if (*c->p == '\n') {
        c->p++;
        c->line++;
    }
}

/* Read over a statement up to its ';' (outside quotes, across lines). */
static rtcosim_status skip_statement(cursor *c)
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
    return fail(c, start, "statement without its closing ';'%s", in_quotes ? " (a quote is open)" : "");
}

static bool at_line_end(cursor *c)
{
    skip_blank(c);
    return *c->p == '\0' || *c->p == '\n';
}

/* The id as written: bit 31 marks an extended id. */
static bool split_id(uint64_t raw, uint32_t *id, bool *extended)
{
    *extended = (raw & 0x80000000u) != 0;
    *id = (uint32_t)(raw & 0x7FFFFFFFu);
    return raw <= 0xFFFFFFFFu && *id <= (*extended ? 0x1FFFFFFFu : 0x7FFu);
}

/* Vector's pseudo-message for signals outside any message. */
#define DBC_INDEPENDENT_ID UINT64_C(0xC0000000)

static rtcosim_status parse_message(cursor *c, rtcosim_dbc *d, message_build **current)
{
    int line = c->line;
    uint64_t raw, dlc;
    char name[DBC_NAME_MAX + 1], tx[DBC_NAME_MAX + 1];
    if (!unsigned_number(c, &raw))
        return fail(c, line, "BO_: %s", "expected the message id");
    if (raw == DBC_INDEPENDENT_ID) {
        *current = NULL; /* its SG_ lines are read over */
        next_line(c);
        return RTCOSIM_OK;
    }
    uint32_t id;
    bool extended;
    if (!split_id(raw, &id, &extended))
        return fail(c, line, "BO_: %s", "id out of range for a standard (11-bit) or extended (29-bit) id");
    if (!ident(c, name, sizeof name) || !expect(c, ':'))
        return fail(c, line, "BO_: %s", "expected 'NAME:' after the id");
    if (!unsigned_number(c, &dlc) || dlc > 64)
        return fail(c, line, "BO_ %s: expected a size of 0..64 bytes", name);
    if (!ident(c, tx, sizeof tx) || !at_line_end(c))
        return fail(c, line, "BO_ %s: expected the transmitter at the end of the line", name);
    size_t index;
    int rc = dbc_add_message(d, id, extended, name, (uint8_t)dlc, tx, line, &index);
    if (rc == -2)
        return fail(c, line, "BO_ %s: its id is defined twice", name);
    if (rc == -3)
        return fail(c, line, "BO_ %s: the name is defined twice", name);
    if (rc)
        return rtcosim_error_set(c->err, RTCOSIM_ENOMEM, "%s: out of memory", c->name);
    *current = &d->messages[index];
    next_line(c);
    return RTCOSIM_OK;
}

static rtcosim_status parse_signal(cursor *c, rtcosim_dbc *d, message_build *m)
{
    int line = c->line;
    char name[DBC_NAME_MAX + 1], mux[DBC_NAME_MAX + 1];
    rtcosim_dbc_signal s = {.line = line};
    if (!ident(c, name, sizeof name))
        return fail(c, line, "SG_: %s", "expected the signal name");
    if (ident(c, mux, sizeof mux)) {
        char *end = NULL;
        if (strcmp(mux, "M") == 0) {
            s.mux = RTCOSIM_DBC_MULTIPLEXOR;
            s.selects = true;
        } else if (mux[0] == 'm' && isdigit((unsigned char)mux[1]) &&
                   (errno = 0, s.mux_value = strtoull(mux + 1, &end, 10),
                    *end == '\0' || strcmp(end, "M") == 0)) {
            if (errno == ERANGE)
                return fail(c, line, "SG_ %s: multiplexer value %s beyond 64 bits", name, mux + 1);
            s.mux = RTCOSIM_DBC_MULTIPLEXED;
            s.selects = *end == 'M'; /* mNM: multiplexed, and a multiplexor in turn */
        } else
            return fail(c, line, "SG_ %s: unknown multiplexer indicator '%s' (M, mN or mNM)",
                        name, mux);
    }
    uint64_t start, length;
    double factor, offset, min, max;
    if (!expect(c, ':') || !unsigned_number(c, &start) || !expect(c, '|') ||
        !unsigned_number(c, &length) || !expect(c, '@'))
        return fail(c, line, "SG_ %s: expected ': START|LENGTH@'", name);
    if (*c->p != '0' && *c->p != '1')
        return fail(c, line, "SG_ %s: byte order must be @0 (Motorola) or @1 (Intel)", name);
    s.little_endian = *c->p++ == '1';
    if (*c->p != '+' && *c->p != '-')
        return fail(c, line, "SG_ %s: expected + (unsigned) or - (signed) after the byte order", name);
    s.is_signed = *c->p++ == '-';
    if (!expect(c, '(') || !number(c, &factor) || !expect(c, ',') || !number(c, &offset) ||
        !expect(c, ')'))
        return fail(c, line, "SG_ %s: expected (FACTOR,OFFSET)", name);
    if (!expect(c, '[') || !number(c, &min) || !expect(c, '|') || !number(c, &max) || !expect(c, ']'))
        return fail(c, line, "SG_ %s: expected [MIN|MAX]", name);
    char *unit = NULL;
    if (!quoted(c, &unit))
        return fail(c, line, "SG_ %s: expected the unit in quotes", name);
    if (length < 1 || length > 64 || start > 511) {
        free(unit);
        return fail(c, line, "SG_ %s: length must be 1..64 bits and the start bit below 512", name);
    }
    if (factor == 0) {
        free(unit);
        return fail(c, line, "SG_ %s: factor 0", name);
    }
    s.start_bit = (uint32_t)start;
    s.length = (uint32_t)length;
    s.factor = factor;
    s.offset = offset;
    s.minimum = min;
    s.maximum = max;
    s.unit = unit;
    if (!rtcosim_dbc_signal_fits(&s, m->pub.dlc)) {
        free(unit);
        return fail(c, line, "SG_ %s: its bits do not fit the message's %u bytes", name,
                    (unsigned)m->pub.dlc);
    }
    for (size_t i = 0; i < m->pub.signal_count; i++) {
        if (strcmp(m->signals[i].name, name) == 0 ||
            (s.mux == RTCOSIM_DBC_MULTIPLEXOR && m->signals[i].mux == RTCOSIM_DBC_MULTIPLEXOR)) {
            free(unit);
            return fail(c, line, "SG_ %s: a second signal of that name or a second multiplexor", name);
        }
    }
    s.name = name;
    if (dbc_add_signal(d, (size_t)(m - d->messages), &s) != 0) {
        free(unit);
        return rtcosim_error_set(c->err, RTCOSIM_ENOMEM, "%s: out of memory", c->name);
    }
    next_line(c); /* receivers */
    return RTCOSIM_OK;
}

/* The message and signal a BA_/VAL_ statement names. */
static rtcosim_status lookup(cursor *c, rtcosim_dbc *d, int line, uint64_t raw, const char *signal,
                             message_build **m, rtcosim_dbc_signal **s)
{
    uint32_t id;
    bool extended;
    *m = NULL;
    if (raw == DBC_INDEPENDENT_ID)
        return RTCOSIM_OK;
    if (!split_id(raw, &id, &extended) || !(*m = dbc_find(d, id, extended))) {
        return fail(c, line, "no message with id %llu (BO_ must come first)",
                    (unsigned long long)raw);
    }
    if (!signal)
        return RTCOSIM_OK;
    for (size_t i = 0; i < (*m)->pub.signal_count; i++)
        if (strcmp((*m)->signals[i].name, signal) == 0) {
            *s = &(*m)->signals[i];
            return RTCOSIM_OK;
        }
    return fail(c, line, "no signal '%s' in that message", signal);
}

/* BA_DEF_ BO_ "VFrameFormat" ENUM "StandardCAN",...; (and "CANFD_BRS"),
 * BA_DEF_DEF_ "VFrameFormat" "NAME"; kept for resolve_frame_formats; other
 * definitions are read over. */
static rtcosim_status parse_frame_format_definition(cursor *c, bool definition)
{
    const char *p = c->p;
    char kind[16], type[16];
    char *attr = NULL;
    if (definition && (!ident(c, kind, sizeof kind) || strcmp(kind, "BO_") != 0)) {
        c->overlong = false;
        c->p = p;
        return skip_statement(c);
    }
    bool format = quoted(c, &attr) && strcmp(attr, "VFrameFormat") == 0;
    bool brs = attr && strcmp(attr, "CANFD_BRS") == 0;
    free(attr);
    if (!format && !brs) {
        c->p = p;
        return skip_statement(c);
    }
    if (!definition) {
        char *value = NULL;
        if (!quoted(c, &value)) {
            c->p = p;
            return skip_statement(c);
        }
        char **slot = format ? &c->format_default : &c->brs_default;
        free(*slot);
        *slot = value;
        return skip_statement(c);
    }
    if (!ident(c, type, sizeof type) || strcmp(type, "ENUM") != 0) {
        c->p = p;
        return skip_statement(c);
    }
    char **names = format ? c->formats : c->brs_values;
    size_t *count = format ? &c->format_count : &c->brs_count,
           max = format ? sizeof c->formats / sizeof *c->formats
                        : sizeof c->brs_values / sizeof *c->brs_values;
    while (*count < max) {
        char *name = NULL;
        if (!quoted(c, &name))
            break;
        names[(*count)++] = name;
        skip_blank(c);
        if (*c->p != ',')
            break;
        c->p++;
    }
    return skip_statement(c);
}

static void free_frame_formats(cursor *c)
{
    for (size_t k = 0; k < c->format_count; k++)
        free(c->formats[k]);
    for (size_t k = 0; k < c->brs_count; k++)
        free(c->brs_values[k]);
    free(c->format_default);
    free(c->brs_default);
    c->format_count = c->brs_count = 0;
    c->format_default = c->brs_default = NULL;
}

/* Each message's frame format and bit rate switch from its BA_ values (as
 * the definitions' enums name them) or the BA_DEF_DEF_ defaults: CAN FD
 * for StandardCAN_FD / ExtendedCAN_FD; BRS when "1" (Vector's default). */
static void resolve_frame_formats(cursor *c, rtcosim_dbc *d)
{
    for (size_t i = 0; i < d->count; i++) {
        message_build *m = &d->messages[i];
        const char *format = m->format_index >= 0 && (size_t)m->format_index < c->format_count
                                 ? c->formats[m->format_index]
                                 : c->format_default;
        const char *brs = m->brs_index >= 0 && (size_t)m->brs_index < c->brs_count
                              ? c->brs_values[m->brs_index]
                              : c->brs_default;
        bool fd = format && strstr(format, "CAN_FD") != NULL;
        bool on = m->brs_index >= 0 && c->brs_count == 0 ? m->brs_index == 1
                                                          : !brs || strcmp(brs, "1") == 0;
        dbc_set_format(d, i, fd, on);
    }
    free_frame_formats(c);
}

/* BA_ "GenMsgCycleTime" BO_ ID MS;  (other attributes are read over) */
/* BA_ "GenSigStartValue" SG_ ID SIGNAL RAW; (the raw value a node sends
 * before it has another, as CANdb++ defines the attribute) */
static rtcosim_status parse_start_value(cursor *c, rtcosim_dbc *d, int line)
{
    uint64_t raw;
    double value;
    char name[DBC_NAME_MAX + 1];
    if (!unsigned_number(c, &raw) || !ident(c, name, sizeof name) || !number(c, &value) ||
        !expect(c, ';'))
        return fail(c, line, "BA_ \"GenSigStartValue\": expected SG_ ID SIGNAL RAW;");
    message_build *m;
    rtcosim_dbc_signal *s = NULL;
    rtcosim_status st = lookup(c, d, line, raw, name, &m, &s);
    if (st != RTCOSIM_OK || !s)
        return st;
    s->has_start = true;
    s->start_raw = value;
    return RTCOSIM_OK;
}

/* BA_ "SystemSignalLongSymbol" SG_ ID SIGNAL "NAME";, "SystemMessageLongSymbol"
 * BO_ ID "NAME";, "SystemNodeLongSymbol" BU_ NODE "NAME";: the full names of
 * objects whose DBC names were cut to CANdb++'s 32 characters (CANdb++,
 * canmatrix and the ARXML converters write them; cantools and canmatrix
 * read the long names). kind: 'S', 'M' or 'N'. */
static rtcosim_status parse_long_name(cursor *c, rtcosim_dbc *d, int line, char kind)
{
    char object[16], name[DBC_NAME_MAX + 1];
    uint64_t raw = 0;
    char *full = NULL;
    const char *want = kind == 'S' ? "SG_" : kind == 'M' ? "BO_" : "BU_";
    bool ok = ident(c, object, sizeof object) && strcmp(object, want) == 0 &&
              (kind == 'N' || unsigned_number(c, &raw)) &&
              (kind == 'M' || ident(c, name, sizeof name)) && quoted(c, &full) && expect(c, ';');
    if (!ok || !*full || strlen(full) > DBC_NAME_MAX) {
        free(full);
        return fail(c, line, "BA_ \"System%sLongSymbol\": expected %s%s \"NAME\"; (a name of 1 to"
                    " %d characters)", kind == 'S' ? "Signal" : kind == 'M' ? "Message" : "Node",
                    want, kind == 'S' ? " ID SIGNAL" : kind == 'M' ? " ID" : " NODE", DBC_NAME_MAX);
    }
    rtcosim_status st = RTCOSIM_OK;
    if (kind == 'N') { /* the node as every message's transmitter */
        for (size_t i = 0; i < d->count && st == RTCOSIM_OK; i++) {
            message_build *m = &d->messages[i];
            if (strcmp(m->pub.transmitter, name) != 0)
                continue;
            char *t = strdup(full);
            if (!t)
                st = rtcosim_error_set(c->err, RTCOSIM_ENOMEM, "%s: out of memory", c->name);
            else {
                free((char *)m->pub.transmitter);
                m->pub.transmitter = t;
            }
        }
        free(full);
        return st;
    }
    message_build *m;
    rtcosim_dbc_signal *s = NULL;
    st = lookup(c, d, line, raw, kind == 'S' ? name : NULL, &m, &s);
    if (st != RTCOSIM_OK || !m) {
        free(full);
        return st;
    }
    if (kind == 'M') {
        if (dbc_rename_message(d, dbc_message_index(d, &m->pub), full) != 0)
            st = rtcosim_error_set(c->err, RTCOSIM_ENOMEM, "%s: out of memory", c->name);
        free(full);
        return st;
    }
    for (size_t i = 0; i < m->pub.signal_count; i++)
        if (&m->signals[i] != s && strcmp(m->signals[i].name, full) == 0) {
            st = fail(c, line, "BA_ \"SystemSignalLongSymbol\": message %s has a signal %s"
                      " already (line %d)", m->pub.name, full, m->signals[i].line);
            free(full);
            return st;
        }
    free((char *)s->name);
    s->name = full;
    return RTCOSIM_OK;
}

static rtcosim_status parse_attribute(cursor *c, rtcosim_dbc *d)
{
    int line = c->line;
    const char *p = c->p;
    char *attr = NULL, kind[16];
    uint64_t raw;
    double ms;
    bool cycle = quoted(c, &attr) && strcmp(attr, "GenMsgCycleTime") == 0;
    bool start = !cycle && attr && strcmp(attr, "GenSigStartValue") == 0;
    int which = attr && strcmp(attr, "VFrameFormat") == 0 ? 1
                : attr && strcmp(attr, "CANFD_BRS") == 0 ? 2 : 0;
    char long_name = !attr                                            ? 0
                     : strcmp(attr, "SystemSignalLongSymbol") == 0  ? 'S'
                     : strcmp(attr, "SystemMessageLongSymbol") == 0 ? 'M'
                     : strcmp(attr, "SystemNodeLongSymbol") == 0    ? 'N'
                                                                    : 0;
    free(attr);
    if (long_name)
        return parse_long_name(c, d, line, long_name);
    if (which && ident(c, kind, sizeof kind) && strcmp(kind, "BO_") == 0) {
        uint64_t value;
        message_build *m;
        if (!unsigned_number(c, &raw) || !unsigned_number(c, &value) || !expect(c, ';'))
            return fail(c, line, "BA_ \"%s\": expected BO_ ID VALUE;",
                        which == 1 ? "VFrameFormat" : "CANFD_BRS");
        rtcosim_status st = lookup(c, d, line, raw, NULL, &m, NULL);
        if (st == RTCOSIM_OK && m) {
            int16_t v = (int16_t)(value < 32 ? value : 31);
            if (which == 1)
                m->format_index = v;
            else
                m->brs_index = v;
        }
        return st;
    }
    if (start && ident(c, kind, sizeof kind) && strcmp(kind, "SG_") == 0)
        return parse_start_value(c, d, line);
    if (!cycle || !ident(c, kind, sizeof kind) || strcmp(kind, "BO_") != 0) {
        c->overlong = false; /* a long object kind is simply not BO_ */
        c->p = p;
        return skip_statement(c);
    }
    if (!unsigned_number(c, &raw) || !number(c, &ms) || !expect(c, ';'))
        return fail(c, line, "BA_ \"GenMsgCycleTime\": expected BO_ ID MILLISECONDS;");
    message_build *m;
    rtcosim_status st = lookup(c, d, line, raw, NULL, &m, NULL);
    if (st != RTCOSIM_OK)
        return st;
    if (!(ms >= 0 && ms < 1e9))
        return fail(c, line, "BA_ \"GenMsgCycleTime\": cycle time out of range");
    if (m)
        m->pub.cycle_time = (rtcosim_time_ns)(ms * 1e6 + 0.5);
    return RTCOSIM_OK;
}

/* VAL_ ID SIGNAL (N "TEXT")* ;  (value descriptions of environment variables are read over) */
static rtcosim_status parse_values(cursor *c, rtcosim_dbc *d)
{
    int line = c->line;
    uint64_t raw;
    char signal[DBC_NAME_MAX + 1];
    const char *p = c->p;
    if (!unsigned_number(c, &raw)) {
        c->p = p;
        return skip_statement(c);
    }
    if (!ident(c, signal, sizeof signal))
        return fail(c, line, "VAL_: %s", "expected the signal name after the id");
    message_build *m;
    rtcosim_dbc_signal *s = NULL;
    rtcosim_status st = lookup(c, d, line, raw, signal, &m, &s);
    if (st != RTCOSIM_OK)
        return st;
    if (!m)
        return skip_statement(c);
    if (s->value_count)
        return fail(c, line, "VAL_: signal '%s' has value descriptions twice", signal);
    size_t capacity = 0;
    rtcosim_dbc_value_text *values = NULL;
    for (;;) {
        while (isspace((unsigned char)*c->p)) {
            if (*c->p == '\n')
                c->line++;
            c->p++;
        }
        if (*c->p == ';') {
            c->p++;
            return RTCOSIM_OK;
        }
        int64_t v;
        char *text = NULL;
        if (!signed_number(c, &v) || !quoted(c, &text))
            return fail(c, c->line, "VAL_ %s: expected VALUE \"TEXT\" pairs and a closing ';'", signal);
        if (!util_array_reserve(&values, s->value_count, &capacity, sizeof *values, 8)) {
            free(text);
            return rtcosim_error_set(c->err, RTCOSIM_ENOMEM, "%s: out of memory", c->name);
        }
        values[s->value_count++] = (rtcosim_dbc_value_text){v, text};
        s->values = values;
    }
}

/* SIG_VALTYPE_ ID SIGNAL : N ;  N 0 integer, 1 IEEE float (32 bits), 2
 * IEEE double (64 bits). A float's bits decoded as an integer would give
 * wrong values silently, so a length that does not match is an error. */
static rtcosim_status parse_value_type(cursor *c, rtcosim_dbc *d)
{
    int line = c->line;
    uint64_t raw, type;
    char signal[DBC_NAME_MAX + 1];
    if (!unsigned_number(c, &raw) || !ident(c, signal, sizeof signal) || !expect(c, ':') ||
        !unsigned_number(c, &type) || !expect(c, ';'))
        return fail(c, line, "SIG_VALTYPE_: expected ID SIGNAL : 0|1|2;");
    if (type > 2)
        return fail(c, line, "SIG_VALTYPE_ %s: value type %llu (0 integer, 1 float, 2 double)",
                    signal, (unsigned long long)type);
    message_build *m;
    rtcosim_dbc_signal *s = NULL;
    rtcosim_status st = lookup(c, d, line, raw, signal, &m, &s);
    if (st != RTCOSIM_OK || !s)
        return st;
    if (type && s->length != (type == 1 ? 32u : 64u))
        return fail(c, line, "SIG_VALTYPE_ %s: a %s needs a %u-bit signal, it has %u bits", signal,
                    type == 1 ? "float" : "double", type == 1 ? 32u : 64u, (unsigned)s->length);
    if (type && s->mux == RTCOSIM_DBC_MULTIPLEXOR)
        return fail(c, line, "SIG_VALTYPE_ %s: a multiplexor cannot be a %s", signal,
                    type == 1 ? "float" : "double");
    s->value_type = (rtcosim_dbc_value_type)type;
    if (type)
        s->decimals = -1;
    return RTCOSIM_OK;
}

/* SG_MUL_VAL_ ID SIGNAL MULTIPLEXOR LO-HI[, LO-HI]* ;  extended
 * multiplexing: SIGNAL (mN or mNM) is present when MULTIPLEXOR (M or mNM of
 * the same message) is, and its raw value lies in one of the ranges. */
enum { MUX_RANGES_MAX = 1024 };

static rtcosim_status parse_mux_values(cursor *c, rtcosim_dbc *d)
{
    int line = c->line;
    uint64_t raw;
    char signal[DBC_NAME_MAX + 1], muxer_name[DBC_NAME_MAX + 1];
    if (!unsigned_number(c, &raw) || !ident(c, signal, sizeof signal) ||
        !ident(c, muxer_name, sizeof muxer_name))
        return fail(c, line, "SG_MUL_VAL_: expected ID SIGNAL MULTIPLEXOR LO-HI, ...;");
    message_build *m;
    rtcosim_dbc_signal *s = NULL, *muxer = NULL;
    rtcosim_status st = lookup(c, d, line, raw, signal, &m, &s);
    if (st == RTCOSIM_OK && m)
        st = lookup(c, d, line, raw, muxer_name, &m, &muxer);
    if (st != RTCOSIM_OK)
        return st;
    if (!m)
        return skip_statement(c);
    if (s->mux != RTCOSIM_DBC_MULTIPLEXED)
        return fail(c, line, "SG_MUL_VAL_ %s: not a multiplexed signal (mN or mNM)", signal);
    if (!muxer->selects || muxer == s)
        return fail(c, line, "SG_MUL_VAL_ %s: %s is not a multiplexor (M or mNM) of it", signal,
                    muxer_name);
    if (s->mux_range_count)
        return fail(c, line, "SG_MUL_VAL_ %s: its value ranges given twice", signal);
    uint64_t(*ranges)[2] = NULL;
    size_t count = 0, capacity = 0;
    for (;;) {
        uint64_t lo, hi;
        if (!unsigned_number(c, &lo) || !expect(c, '-') || !unsigned_number(c, &hi)) {
            free(ranges);
            return fail(c, line, "SG_MUL_VAL_ %s: expected LO-HI ranges and a closing ';'",
                        signal);
        }
        if (lo > hi || count == MUX_RANGES_MAX) {
            free(ranges);
            return fail(c, line, lo > hi ? "SG_MUL_VAL_ %s: a range %llu-%llu runs backwards"
                                         : "SG_MUL_VAL_ %s: more than %llu ranges",
                        signal, (unsigned long long)(lo > hi ? lo : MUX_RANGES_MAX),
                        (unsigned long long)hi);
        }
        if (!util_array_reserve(&ranges, count, &capacity, sizeof *ranges, 4)) {
            free(ranges);
            return rtcosim_error_set(c->err, RTCOSIM_ENOMEM, "%s: out of memory", c->name);
        }
        ranges[count][0] = lo;
        ranges[count][1] = hi;
        count++;
        if (expect(c, ';'))
            break;
        if (!expect(c, ',')) {
            free(ranges);
            return fail(c, line, "SG_MUL_VAL_ %s: expected LO-HI ranges and a closing ';'",
                        signal);
        }
    }
    s->muxer = muxer;
    s->mux_ranges = (const uint64_t(*)[2])ranges;
    s->mux_range_count = count;
    return RTCOSIM_OK;
}

/* A chain of multiplexors that comes back to itself never selects
 * anything: refused, naming the message. */
static rtcosim_status check_mux_loops(cursor *c, const message_build *m)
{
    for (size_t k = 0; k < m->pub.signal_count; k++) {
        const rtcosim_dbc_signal *s = &m->signals[k];
        size_t steps = 0;
        while (s && s->muxer && steps++ <= m->pub.signal_count)
            s = s->muxer;
        if (steps > m->pub.signal_count)
            return fail(c, m->signals[k].line, "SG_MUL_VAL_: the multiplexors of message %s"
                        " select each other in a loop (signal %s)", m->pub.name,
                        m->signals[k].name);
    }
    return RTCOSIM_OK;
}

static const char *const SKIPPED[] = {
    "CM_", "BA_DEF_", "BA_DEF_DEF_", "BA_DEF_SGTYPE_", "BA_SGTYPE_", "VAL_TABLE_",
    "SIG_GROUP_", "EV_", "ENVVAR_DATA_", "BO_TX_BU_", "BA_DEF_REL_", "BA_REL_", "BA_DEF_DEF_REL_",
    "SGTYPE_", "SGTYPE_VAL_", "SIG_TYPE_REF_", "CAT_DEF_", "CAT_", "FILTER",
    "BU_SG_REL_", "BU_EV_REL_", "BU_BO_REL_", "BA_DEF_DEF_REL_"};

static rtcosim_status parse_all(cursor *c, rtcosim_dbc *d)
{
    message_build *current = NULL;
    bool in_ns = false; /* the NS_ section: indented symbol names */
    bool skipping_signals = false;
    while (*c->p) {
        bool indented = *c->p == ' ' || *c->p == '\t';
        char word[64];
        const char *start = c->p;
        if (at_line_end(c) || (c->p[0] == '/' && c->p[1] == '/')) {
            next_line(c);
            continue;
        }
        if (in_ns && indented) {
            next_line(c);
            continue;
        }
        in_ns = false;
        if (!ident(c, word, sizeof word)) {
            char what[16];
            snprintf(what, sizeof what, "%.8s", start);
            for (char *q = what; *q; q++)
                if (*q == '\n' || *q == '\r')
                    *q = '\0';
            return fail(c, c->line, "unexpected text '%s'", what);
        }
        rtcosim_status st = RTCOSIM_OK;
        if (strcmp(word, "BO_") == 0) {
            st = parse_message(c, d, &current);
            skipping_signals = current == NULL;
        } else if (strcmp(word, "SG_") == 0) {
            if (skipping_signals)
                next_line(c);
            else if (!current)
                return fail(c, c->line, "%s outside a message (BO_)", "SG_");
            else
                st = parse_signal(c, d, current);
        } else if (strcmp(word, "BA_") == 0) {
            st = parse_attribute(c, d);
        } else if (strcmp(word, "BA_DEF_") == 0 || strcmp(word, "BA_DEF_DEF_") == 0) {
            st = parse_frame_format_definition(c, strcmp(word, "BA_DEF_") == 0);
        } else if (strcmp(word, "VAL_") == 0) {
            st = parse_values(c, d);
        } else if (strcmp(word, "SIG_VALTYPE_") == 0) {
            st = parse_value_type(c, d);
        } else if (strcmp(word, "SG_MUL_VAL_") == 0) {
            st = parse_mux_values(c, d);
        } else if (strcmp(word, "NS_") == 0) {
            in_ns = true;
            next_line(c);
        } else if (strcmp(word, "VERSION") == 0 || strcmp(word, "BS_") == 0 ||
                   strcmp(word, "BU_") == 0) {
            next_line(c);
        } else {
            bool known = false;
            for (size_t i = 0; i < sizeof SKIPPED / sizeof *SKIPPED; i++)
                known = known || strcmp(word, SKIPPED[i]) == 0;
            if (!known)
                return fail(c, c->line, "unknown statement '%s'", word);
            st = skip_statement(c);
        }
        if (st != RTCOSIM_OK)
            return st;
        if (strcmp(word, "SG_") != 0 && strcmp(word, "BO_") != 0)
            current = NULL, skipping_signals = false;
    }
    resolve_frame_formats(c, d);
    size_t first = 0, second = 0;
    int rc = dbc_reindex_names(d, &first, &second); /* (long message names) */
    if (rc == -1)
        return rtcosim_error_set(c->err, RTCOSIM_ENOMEM, "%s: out of memory", c->name);
    if (rc == -2)
        return fail(c, d->messages[second].pub.line, "two messages named %s (the other at line"
                    " %d), after SystemMessageLongSymbol", d->messages[second].pub.name,
                    d->messages[first].pub.line);
    /* Multiplexed signals need the message's multiplexor. */
    for (size_t i = 0; i < d->count; i++) {
        message_build *m = &d->messages[i];
        bool has_mux = false;
        for (size_t k = 0; k < m->pub.signal_count; k++)
            has_mux = has_mux || m->signals[k].mux == RTCOSIM_DBC_MULTIPLEXOR;
        for (size_t k = 0; k < m->pub.signal_count; k++)
            if (m->signals[k].mux == RTCOSIM_DBC_MULTIPLEXED && !m->signals[k].muxer && !has_mux)
                return fail(c, m->signals[k].line, "SG_ %s: multiplexed, but its message has no "
                            "multiplexor (M)", m->signals[k].name);
        rtcosim_status st = check_mux_loops(c, m);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_dbc_parse(const char *text, size_t size, const char *name,
                                 rtcosim_dbc **out, rtcosim_error *err)
{
    *out = NULL;
    rtcosim_dbc *d = dbc_new();
    char *copy = malloc(size + 1);
    if (!d || !copy) {
        free(d);
        free(copy);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", name);
    }
    memcpy(copy, text, size);
    size = util_text_unify_line_ends(copy, size);
    if (strlen(copy) != size) {
        free(copy);
        free(d);
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: not a text file (contains NUL bytes)",
                                 name);
    }
    cursor c = {.p = copy, .line = 1, .name = name, .err = err};
    rtcosim_status st = parse_all(&c, d);
    free_frame_formats(&c); /* after a failure: what resolve_frame_formats did not free */
    free(copy);
    if (st != RTCOSIM_OK) {
        rtcosim_dbc_free(d);
        return st;
    }
    dbc_finish(d, name);
    *out = d;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_dbc_load(const char *path, rtcosim_dbc **out, rtcosim_error *err)
{
    char *data = NULL;
    size_t size = 0;
    *out = NULL;
    size_t n = strlen(path);
    bool arxml = n > 6 && strcasecmp(path + n - 6, ".arxml") == 0;
    rtcosim_status st = util_read_file(path, path, arxml ? "ARXML file" : "DBC file", &data,
                                       &size, err);
    if (st != RTCOSIM_OK)
        return st;
    st = arxml ? rtcosim_dbc_parse_arxml(data, size, path, out, err)
               : rtcosim_dbc_parse(data, size, path, out, err);
    free(data);
    return st;
}
