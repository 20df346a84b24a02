/* Reading DBC files (dbc.h) into messages and signals: a line-oriented
 * reader for BO_/SG_ here, the statements that refine them in dbc_attr.c
 * (BA_, VAL_, SIG_VALTYPE_, SG_MUL_VAL_), the tokens in dbc_text.c; the
 * rest is read over. Every error names file and line; the reader never
 * reads past its input (fuzzed: fuzz_dbc.c). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dbc_text.h"
#include "rtcosim/log.h"
#include "util/array.h"
#include "util/read_file.h"
#include "util/text.h"

static rtcosim_status parse_message(cursor *c, rtcosim_dbc *d, message_build **current)
{
    int line = c->line;
    uint64_t raw, dlc;
    char name[DBC_NAME_MAX + 1], tx[DBC_NAME_MAX + 1];
    if (!dbc_unsigned_number(c, &raw))
        return dbc_fail(c, line, "BO_: %s", "expected the message id");
    if (raw == DBC_INDEPENDENT_ID) {
        *current = NULL; /* its SG_ lines are read over */
        dbc_next_line(c);
        return RTCOSIM_OK;
    }
    uint32_t id;
    bool extended;
    if (!dbc_split_id(raw, &id, &extended))
        return dbc_fail(c, line, "BO_: %s", "id out of range for a standard (11-bit) or extended (29-bit) id");
    if (!dbc_ident(c, name, sizeof name) || !dbc_expect(c, ':'))
        return dbc_fail(c, line, "BO_: %s", "expected 'NAME:' after the id");
    if (!dbc_unsigned_number(c, &dlc) || dlc > RTCOSIM_DBC_MESSAGE_MAX)
        return dbc_fail(c, line, "BO_ %s: expected a size of 0..%d bytes (64 in one CAN FD frame, "
                        "more for a transport protocol)", name, RTCOSIM_DBC_MESSAGE_MAX);
    if (!dbc_ident(c, tx, sizeof tx) || !dbc_at_line_end(c))
        return dbc_fail(c, line, "BO_ %s: expected the transmitter at the end of the line", name);
    size_t index;
    int rc = dbc_add_message(d, id, extended, name, (uint16_t)dlc, tx, line, &index);
    if (rc == -2)
        return dbc_fail(c, line, "BO_ %s: its id is defined twice", name);
    if (rc == -3)
        return dbc_fail(c, line, "BO_ %s: the name is defined twice", name);
    if (rc)
        return rtcosim_error_set(c->err, RTCOSIM_ENOMEM, "%s: out of memory", c->name);
    *current = &d->messages[index];
    dbc_next_line(c);
    return RTCOSIM_OK;
}

static rtcosim_status parse_signal(cursor *c, rtcosim_dbc *d, message_build *m)
{
    int line = c->line;
    char name[DBC_NAME_MAX + 1], mux[DBC_NAME_MAX + 1];
    rtcosim_dbc_signal s = {.line = line};
    if (!dbc_ident(c, name, sizeof name))
        return dbc_fail(c, line, "SG_: %s", "expected the signal name");
    if (dbc_ident(c, mux, sizeof mux)) {
        char *end = NULL;
        if (strcmp(mux, "M") == 0) {
            s.mux = RTCOSIM_DBC_MULTIPLEXOR;
            s.selects = true;
        } else if (mux[0] == 'm' && isdigit((unsigned char)mux[1]) &&
                   (errno = 0, s.mux_value = strtoull(mux + 1, &end, 10),
                    *end == '\0' || strcmp(end, "M") == 0)) {
            if (errno == ERANGE)
                return dbc_fail(c, line, "SG_ %s: multiplexer value %s beyond 64 bits", name, mux + 1);
            s.mux = RTCOSIM_DBC_MULTIPLEXED;
            s.selects = *end == 'M'; /* mNM: multiplexed, and a multiplexor in turn */
        } else
            return dbc_fail(c, line, "SG_ %s: unknown multiplexer indicator '%s' (M, mN or mNM)",
                        name, mux);
    }
    uint64_t start, length;
    double factor, offset, min, max;
    if (!dbc_expect(c, ':') || !dbc_unsigned_number(c, &start) || !dbc_expect(c, '|') ||
        !dbc_unsigned_number(c, &length) || !dbc_expect(c, '@'))
        return dbc_fail(c, line, "SG_ %s: expected ': START|LENGTH@'", name);
    if (*c->p != '0' && *c->p != '1')
        return dbc_fail(c, line, "SG_ %s: byte order must be @0 (Motorola) or @1 (Intel)", name);
    s.little_endian = *c->p++ == '1';
    if (*c->p != '+' && *c->p != '-')
        return dbc_fail(c, line, "SG_ %s: expected + (unsigned) or - (signed) after the byte order", name);
    s.is_signed = *c->p++ == '-';
    if (!dbc_expect(c, '(') || !dbc_number(c, &factor) || !dbc_expect(c, ',') || !dbc_number(c, &offset) ||
        !dbc_expect(c, ')'))
        return dbc_fail(c, line, "SG_ %s: expected (FACTOR,OFFSET)", name);
    if (!dbc_expect(c, '[') || !dbc_number(c, &min) || !dbc_expect(c, '|') || !dbc_number(c, &max) || !dbc_expect(c, ']'))
        return dbc_fail(c, line, "SG_ %s: expected [MIN|MAX]", name);
    char *unit = NULL;
    if (!dbc_quoted(c, &unit))
        return dbc_fail(c, line, "SG_ %s: expected the unit in quotes", name);
    if (length < 1 || length > 64 || start >= RTCOSIM_DBC_MESSAGE_MAX * 8) {
        free(unit);
        return dbc_fail(c, line, "SG_ %s: length must be 1..64 bits and the start bit below %d",
                        name, RTCOSIM_DBC_MESSAGE_MAX * 8);
    }
    if (factor == 0) {
        free(unit);
        return dbc_fail(c, line, "SG_ %s: factor 0", name);
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
        return dbc_fail(c, line, "SG_ %s: its bits do not fit the message's %u bytes", name,
                    (unsigned)m->pub.dlc);
    }
    for (size_t i = 0; i < m->pub.signal_count; i++) {
        if (strcmp(m->signals[i].name, name) == 0 ||
            (s.mux == RTCOSIM_DBC_MULTIPLEXOR && m->signals[i].mux == RTCOSIM_DBC_MULTIPLEXOR)) {
            free(unit);
            return dbc_fail(c, line, "SG_ %s: a second signal of that name or a second multiplexor", name);
        }
    }
    s.name = name;
    if (dbc_add_signal(d, (size_t)(m - d->messages), &s) != 0) {
        free(unit);
        return rtcosim_error_set(c->err, RTCOSIM_ENOMEM, "%s: out of memory", c->name);
    }
    dbc_next_line(c); /* receivers */
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
        if (dbc_at_line_end(c) || (c->p[0] == '/' && c->p[1] == '/')) {
            dbc_next_line(c);
            continue;
        }
        if (in_ns && indented) {
            dbc_next_line(c);
            continue;
        }
        in_ns = false;
        if (!dbc_ident(c, word, sizeof word)) {
            char what[16];
            snprintf(what, sizeof what, "%.8s", start);
            for (char *q = what; *q; q++)
                if (*q == '\n' || *q == '\r')
                    *q = '\0';
            return dbc_fail(c, c->line, "unexpected text '%s'", what);
        }
        rtcosim_status st = RTCOSIM_OK;
        if (strcmp(word, "BO_") == 0) {
            st = parse_message(c, d, &current);
            skipping_signals = current == NULL;
        } else if (strcmp(word, "SG_") == 0) {
            if (skipping_signals)
                dbc_next_line(c);
            else if (!current)
                return dbc_fail(c, c->line, "%s outside a message (BO_)", "SG_");
            else
                st = parse_signal(c, d, current);
        } else if (strcmp(word, "BA_") == 0) {
            st = dbc_parse_attribute(c, d);
        } else if (strcmp(word, "BA_DEF_") == 0 || strcmp(word, "BA_DEF_DEF_") == 0) {
            st = dbc_parse_frame_format_definition(c, strcmp(word, "BA_DEF_") == 0);
        } else if (strcmp(word, "VAL_") == 0) {
            st = dbc_parse_values(c, d);
        } else if (strcmp(word, "SIG_VALTYPE_") == 0) {
            st = dbc_parse_value_type(c, d);
        } else if (strcmp(word, "SG_MUL_VAL_") == 0) {
            st = dbc_parse_mux_values(c, d);
        } else if (strcmp(word, "NS_") == 0) {
            in_ns = true;
            dbc_next_line(c);
        } else if (strcmp(word, "VERSION") == 0 || strcmp(word, "BS_") == 0 ||
                   strcmp(word, "BU_") == 0) {
            dbc_next_line(c);
        } else {
            bool known = false;
            for (size_t i = 0; i < sizeof SKIPPED / sizeof *SKIPPED; i++)
                known = known || strcmp(word, SKIPPED[i]) == 0;
            if (!known)
                return dbc_fail(c, c->line, "unknown statement '%s'", word);
            st = dbc_skip_statement(c);
        }
        if (st != RTCOSIM_OK)
            return st;
        if (strcmp(word, "SG_") != 0 && strcmp(word, "BO_") != 0)
            current = NULL, skipping_signals = false;
    }
    dbc_resolve_frame_formats(c, d);
    if (!dbc_index_pgns(d))
        return rtcosim_error_set(c->err, RTCOSIM_ENOMEM, "%s: out of memory", c->name);
    size_t first = 0, second = 0;
    int rc = dbc_reindex_names(d, &first, &second); /* (long message names) */
    if (rc == -1)
        return rtcosim_error_set(c->err, RTCOSIM_ENOMEM, "%s: out of memory", c->name);
    if (rc == -2)
        return dbc_fail(c, d->messages[second].pub.line, "two messages named %s (the other at line"
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
                return dbc_fail(c, m->signals[k].line, "SG_ %s: multiplexed, but its message has no "
                            "multiplexor (M)", m->signals[k].name);
        rtcosim_status st = dbc_check_mux_loops(c, m);
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
    dbc_free_frame_formats(&c); /* after a failure: what resolve_frame_formats did not free */
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
    /* (an ARXML file is XML, which may be UTF-16: NUL bytes are text there) */
    rtcosim_status st = arxml ? util_read_xml_file(path, path, "ARXML file", &data, &size, err)
                              : util_read_text_file(path, path, "DBC file", &data, &size, err);
    if (st != RTCOSIM_OK)
        return st;
    st = arxml ? rtcosim_dbc_parse_arxml(data, size, path, out, err)
               : rtcosim_dbc_parse(data, size, path, out, err);
    free(data);
    return st;
}
