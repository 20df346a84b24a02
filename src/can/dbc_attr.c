/* The DBC statements that refine messages and signals (dbc_text.h):
 * BA_DEF_/BA_DEF_DEF_ of the frame formats, BA_ (cycle times, start values,
 * frame formats, long names), VAL_ value tables, SIG_VALTYPE_ float
 * signals, SG_MUL_VAL_ extended multiplexing. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dbc_text.h"
#include "util/array.h"

/* BA_DEF_ BO_ "VFrameFormat" ENUM "StandardCAN",...; (and "CANFD_BRS"),
 * BA_DEF_DEF_ "VFrameFormat" "NAME"; kept for resolve_frame_formats; other
 * definitions are read over. */
rtcosim_status dbc_parse_frame_format_definition(cursor *c, bool definition)
{
    const char *p = c->p;
    char kind[16], type[16];
    char *attr = NULL;
    if (definition && (!dbc_ident(c, kind, sizeof kind) || strcmp(kind, "BO_") != 0)) {
        c->overlong = false;
        c->p = p;
        return dbc_skip_statement(c);
    }
    bool format = dbc_quoted(c, &attr) && strcmp(attr, "VFrameFormat") == 0;
    bool brs = attr && strcmp(attr, "CANFD_BRS") == 0;
    free(attr);
    if (!format && !brs) {
        c->p = p;
        return dbc_skip_statement(c);
    }
    if (!definition) {
        char *value = NULL;
        if (!dbc_quoted(c, &value)) {
            c->p = p;
            return dbc_skip_statement(c);
        }
        char **slot = format ? &c->format_default : &c->brs_default;
        free(*slot);
        *slot = value;
        return dbc_skip_statement(c);
    }
    if (!dbc_ident(c, type, sizeof type) || strcmp(type, "ENUM") != 0) {
        c->p = p;
        return dbc_skip_statement(c);
    }
    char **names = format ? c->formats : c->brs_values;
    size_t *count = format ? &c->format_count : &c->brs_count,
           max = format ? sizeof c->formats / sizeof *c->formats
                        : sizeof c->brs_values / sizeof *c->brs_values;
    while (*count < max) {
        char *name = NULL;
        if (!dbc_quoted(c, &name))
            break;
        names[(*count)++] = name;
        dbc_skip_blank(c);
        if (*c->p != ',')
            break;
        c->p++;
    }
    return dbc_skip_statement(c);
}

void dbc_free_frame_formats(cursor *c)
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
void dbc_resolve_frame_formats(cursor *c, rtcosim_dbc *d)
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
        /* a J1939 parameter group: said per message, or every extended
         * classic one of a database whose ProtocolType is J1939 (Vector's
         * J1939 template says both) */
        bool own = m->format_index >= 0 && (size_t)m->format_index < c->format_count;
        bool j1939 = (format && strcmp(format, "J1939PG") == 0) ||
                     (!own && c->protocol_j1939 && m->pub.extended && !fd);
        dbc_set_format(d, i, fd, on, j1939);
    }
    dbc_free_frame_formats(c);
}

/* BA_ "GenMsgCycleTime" BO_ ID MS;  (other attributes are read over) */
/* BA_ "GenSigStartValue" SG_ ID SIGNAL RAW; (the raw value a node sends
 * before it has another, as CANdb++ defines the attribute) */
static rtcosim_status dbc_parse_start_value(cursor *c, rtcosim_dbc *d, int line)
{
    uint64_t raw;
    double value;
    char name[DBC_NAME_MAX + 1];
    if (!dbc_unsigned_number(c, &raw) || !dbc_ident(c, name, sizeof name) || !dbc_number(c, &value) ||
        !dbc_expect(c, ';'))
        return dbc_fail(c, line, "BA_ \"GenSigStartValue\": expected SG_ ID SIGNAL RAW;");
    message_build *m;
    rtcosim_dbc_signal *s = NULL;
    rtcosim_status st = dbc_lookup(c, d, line, raw, name, &m, &s);
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
static rtcosim_status dbc_parse_long_name(cursor *c, rtcosim_dbc *d, int line, char kind)
{
    char object[16], name[DBC_NAME_MAX + 1];
    uint64_t raw = 0;
    char *full = NULL;
    const char *want = kind == 'S' ? "SG_" : kind == 'M' ? "BO_" : "BU_";
    bool ok = dbc_ident(c, object, sizeof object) && strcmp(object, want) == 0 &&
              (kind == 'N' || dbc_unsigned_number(c, &raw)) &&
              (kind == 'M' || dbc_ident(c, name, sizeof name)) && dbc_quoted(c, &full) && dbc_expect(c, ';');
    if (!ok || !*full || strlen(full) > DBC_NAME_MAX) {
        free(full);
        return dbc_fail(c, line, "BA_ \"System%sLongSymbol\": expected %s%s \"NAME\"; (a name of 1 to"
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
    st = dbc_lookup(c, d, line, raw, kind == 'S' ? name : NULL, &m, &s);
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
            st = dbc_fail(c, line, "BA_ \"SystemSignalLongSymbol\": message %s has a signal %s"
                      " already (line %d)", m->pub.name, full, m->signals[i].line);
            free(full);
            return st;
        }
    free((char *)s->name);
    s->name = full;
    return RTCOSIM_OK;
}

rtcosim_status dbc_parse_attribute(cursor *c, rtcosim_dbc *d)
{
    int line = c->line;
    const char *p = c->p;
    char *attr = NULL, kind[16];
    uint64_t raw;
    double ms;
    bool cycle = dbc_quoted(c, &attr) && strcmp(attr, "GenMsgCycleTime") == 0;
    bool start = !cycle && attr && strcmp(attr, "GenSigStartValue") == 0;
    int which = attr && strcmp(attr, "VFrameFormat") == 0 ? 1
                : attr && strcmp(attr, "CANFD_BRS") == 0 ? 2 : 0;
    char long_name = !attr                                            ? 0
                     : strcmp(attr, "SystemSignalLongSymbol") == 0  ? 'S'
                     : strcmp(attr, "SystemMessageLongSymbol") == 0 ? 'M'
                     : strcmp(attr, "SystemNodeLongSymbol") == 0    ? 'N'
                                                                    : 0;
    bool protocol = attr && strcmp(attr, "ProtocolType") == 0;
    free(attr);
    if (long_name)
        return dbc_parse_long_name(c, d, line, long_name);
    if (protocol) { /* BA_ "ProtocolType" "J1939"; (the database's) */
        char *value = NULL;
        if (dbc_quoted(c, &value))
            c->protocol_j1939 = strcmp(value, "J1939") == 0;
        free(value);
        return dbc_skip_statement(c);
    }
    if (which && dbc_ident(c, kind, sizeof kind) && strcmp(kind, "BO_") == 0) {
        uint64_t value;
        message_build *m;
        if (!dbc_unsigned_number(c, &raw) || !dbc_unsigned_number(c, &value) || !dbc_expect(c, ';'))
            return dbc_fail(c, line, "BA_ \"%s\": expected BO_ ID VALUE;",
                        which == 1 ? "VFrameFormat" : "CANFD_BRS");
        rtcosim_status st = dbc_lookup(c, d, line, raw, NULL, &m, NULL);
        if (st == RTCOSIM_OK && m) {
            int16_t v = (int16_t)(value < 32 ? value : 31);
            if (which == 1)
                m->format_index = v;
            else
                m->brs_index = v;
        }
        return st;
    }
    if (start && dbc_ident(c, kind, sizeof kind) && strcmp(kind, "SG_") == 0)
        return dbc_parse_start_value(c, d, line);
    if (!cycle || !dbc_ident(c, kind, sizeof kind) || strcmp(kind, "BO_") != 0) {
        c->overlong = false; /* a long object kind is simply not BO_ */
        c->p = p;
        return dbc_skip_statement(c);
    }
    if (!dbc_unsigned_number(c, &raw) || !dbc_number(c, &ms) || !dbc_expect(c, ';'))
        return dbc_fail(c, line, "BA_ \"GenMsgCycleTime\": expected BO_ ID MILLISECONDS;");
    message_build *m;
    rtcosim_status st = dbc_lookup(c, d, line, raw, NULL, &m, NULL);
    if (st != RTCOSIM_OK)
        return st;
    if (!(ms >= 0 && ms < 1e9))
        return dbc_fail(c, line, "BA_ \"GenMsgCycleTime\": cycle time out of range");
    if (m)
        m->pub.cycle_time = (rtcosim_time_ns)(ms * 1e6 + 0.5);
    return RTCOSIM_OK;
}

/* VAL_ ID SIGNAL (N "TEXT")* ;  (value descriptions of environment variables are read over) */
rtcosim_status dbc_parse_values(cursor *c, rtcosim_dbc *d)
{
    int line = c->line;
    uint64_t raw;
    char signal[DBC_NAME_MAX + 1];
    const char *p = c->p;
    if (!dbc_unsigned_number(c, &raw)) {
        c->p = p;
        return dbc_skip_statement(c);
    }
    if (!dbc_ident(c, signal, sizeof signal))
        return dbc_fail(c, line, "VAL_: %s", "expected the signal name after the id");
    message_build *m;
    rtcosim_dbc_signal *s = NULL;
    rtcosim_status st = dbc_lookup(c, d, line, raw, signal, &m, &s);
    if (st != RTCOSIM_OK)
        return st;
    if (!m)
        return dbc_skip_statement(c);
    if (s->value_count)
        return dbc_fail(c, line, "VAL_: signal '%s' has value descriptions twice", signal);
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
        if (!dbc_signed_number(c, &v) || !dbc_quoted(c, &text))
            return dbc_fail(c, c->line, "VAL_ %s: expected VALUE \"TEXT\" pairs and a closing ';'", signal);
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
rtcosim_status dbc_parse_value_type(cursor *c, rtcosim_dbc *d)
{
    int line = c->line;
    uint64_t raw, type;
    char signal[DBC_NAME_MAX + 1];
    if (!dbc_unsigned_number(c, &raw) || !dbc_ident(c, signal, sizeof signal) || !dbc_expect(c, ':') ||
        !dbc_unsigned_number(c, &type) || !dbc_expect(c, ';'))
        return dbc_fail(c, line, "SIG_VALTYPE_: expected ID SIGNAL : 0|1|2;");
    if (type > 2)
        return dbc_fail(c, line, "SIG_VALTYPE_ %s: value type %llu (0 integer, 1 float, 2 double)",
                    signal, (unsigned long long)type);
    message_build *m;
    rtcosim_dbc_signal *s = NULL;
    rtcosim_status st = dbc_lookup(c, d, line, raw, signal, &m, &s);
    if (st != RTCOSIM_OK || !s)
        return st;
    if (type && s->length != (type == 1 ? 32u : 64u))
        return dbc_fail(c, line, "SIG_VALTYPE_ %s: a %s needs a %u-bit signal, it has %u bits", signal,
                    type == 1 ? "float" : "double", type == 1 ? 32u : 64u, (unsigned)s->length);
    if (type && s->mux == RTCOSIM_DBC_MULTIPLEXOR)
        return dbc_fail(c, line, "SIG_VALTYPE_ %s: a multiplexor cannot be a %s", signal,
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

rtcosim_status dbc_parse_mux_values(cursor *c, rtcosim_dbc *d)
{
    int line = c->line;
    uint64_t raw;
    char signal[DBC_NAME_MAX + 1], muxer_name[DBC_NAME_MAX + 1];
    if (!dbc_unsigned_number(c, &raw) || !dbc_ident(c, signal, sizeof signal) ||
        !dbc_ident(c, muxer_name, sizeof muxer_name))
        return dbc_fail(c, line, "SG_MUL_VAL_: expected ID SIGNAL MULTIPLEXOR LO-HI, ...;");
    message_build *m;
    rtcosim_dbc_signal *s = NULL, *muxer = NULL;
    rtcosim_status st = dbc_lookup(c, d, line, raw, signal, &m, &s);
    if (st == RTCOSIM_OK && m)
        st = dbc_lookup(c, d, line, raw, muxer_name, &m, &muxer);
    if (st != RTCOSIM_OK)
        return st;
    if (!m)
        return dbc_skip_statement(c);
    if (s->mux != RTCOSIM_DBC_MULTIPLEXED)
        return dbc_fail(c, line, "SG_MUL_VAL_ %s: not a multiplexed signal (mN or mNM)", signal);
    if (!muxer->selects || muxer == s)
        return dbc_fail(c, line, "SG_MUL_VAL_ %s: %s is not a multiplexor (M or mNM) of it", signal,
                    muxer_name);
    if (s->mux_range_count)
        return dbc_fail(c, line, "SG_MUL_VAL_ %s: its value ranges given twice", signal);
    uint64_t(*ranges)[2] = NULL;
    size_t count = 0, capacity = 0;
    for (;;) {
        uint64_t lo, hi;
        if (!dbc_unsigned_number(c, &lo) || !dbc_expect(c, '-') || !dbc_unsigned_number(c, &hi)) {
            free(ranges);
            return dbc_fail(c, line, "SG_MUL_VAL_ %s: expected LO-HI ranges and a closing ';'",
                        signal);
        }
        if (lo > hi || count == MUX_RANGES_MAX) {
            free(ranges);
            return dbc_fail(c, line, lo > hi ? "SG_MUL_VAL_ %s: a range %llu-%llu runs backwards"
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
        if (dbc_expect(c, ';'))
            break;
        if (!dbc_expect(c, ',')) {
            free(ranges);
            return dbc_fail(c, line, "SG_MUL_VAL_ %s: expected LO-HI ranges and a closing ';'",
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
rtcosim_status dbc_check_mux_loops(cursor *c, const message_build *m)
{
    for (size_t k = 0; k < m->pub.signal_count; k++) {
        const rtcosim_dbc_signal *s = &m->signals[k];
        size_t steps = 0;
        while (s && s->muxer && steps++ <= m->pub.signal_count)
            s = s->muxer;
        if (steps > m->pub.signal_count)
            return dbc_fail(c, m->signals[k].line, "SG_MUL_VAL_: the multiplexors of message %s"
                        " select each other in a loop (signal %s)", m->pub.name,
                        m->signals[k].name);
    }
    return RTCOSIM_OK;
}
