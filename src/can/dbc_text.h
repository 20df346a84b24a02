/* The DBC text reader's shared parts (dbc.c: BO_ and SG_, the file;
 * dbc_text.c: the cursor over the text and its tokens; dbc_attr.c: the
 * statements that refine messages and signals: BA_DEF_/BA_DEF_DEF_/BA_,
 * VAL_, SIG_VALTYPE_, SG_MUL_VAL_). */
#ifndef RTCOSIM_DBC_TEXT_H
#define RTCOSIM_DBC_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dbc_internal.h"

/* Longest name (message, signal, transmitter) and multiplexer indicator. */
#define DBC_NAME_MAX 255

typedef struct cursor {
    const char *p;   /* NUL-terminated text */
    int line;
    const char *name;
    rtcosim_error *err;
    bool overlong;   /* the last dbc_ident() was longer than its buffer */
    /* The enums of BA_DEF_ BO_ "VFrameFormat" and "CANFD_BRS" and their
     * BA_DEF_DEF_ defaults (NULL: none given) */
    char *formats[32], *brs_values[8], *format_default, *brs_default;
    bool protocol_j1939; /* BA_ "ProtocolType" "J1939": a J1939 database */
    size_t format_count, brs_count;
} cursor;

/* Vector's pseudo-message for signals outside any message. */
#define DBC_INDEPENDENT_ID UINT64_C(0xC0000000)

#pragma GCC visibility push(hidden)

/* Tokens (dbc_text.c). fail: a one-line FILE:LINE error (the overlong-name
 * one when the last ident was cut); ident: a C identifier (false and
 * c->overlong when longer than out); quoted: a "..." string (malloc'ed);
 * skip_statement: past the next ';'; split_id: the id as written (bit 31
 * marks an extended id), false when out of range. */
rtcosim_status dbc_fail(cursor *c, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void dbc_skip_blank(cursor *c);
bool dbc_ident(cursor *c, char *out, size_t size);
bool dbc_expect(cursor *c, char ch);
bool dbc_number(cursor *c, double *out);
bool dbc_unsigned_number(cursor *c, uint64_t *out);
bool dbc_signed_number(cursor *c, int64_t *out);
bool dbc_quoted(cursor *c, char **out);
void dbc_next_line(cursor *c);
rtcosim_status dbc_skip_statement(cursor *c);
bool dbc_at_line_end(cursor *c);
bool dbc_split_id(uint64_t raw, uint32_t *id, bool *extended);
/* The message (and signal, unless NULL) a statement names by id: *m NULL for
 * Vector's independent-signals pseudo-message, an error when not there. */
rtcosim_status dbc_lookup(cursor *c, rtcosim_dbc *d, int line, uint64_t raw, const char *signal, message_build **m, rtcosim_dbc_signal **s);

/* Statements (dbc_attr.c). */
rtcosim_status dbc_parse_frame_format_definition(cursor *c, bool definition);
void dbc_free_frame_formats(cursor *c);
void dbc_resolve_frame_formats(cursor *c, rtcosim_dbc *d);
rtcosim_status dbc_parse_attribute(cursor *c, rtcosim_dbc *d);
rtcosim_status dbc_parse_values(cursor *c, rtcosim_dbc *d);
rtcosim_status dbc_parse_value_type(cursor *c, rtcosim_dbc *d);
rtcosim_status dbc_parse_mux_values(cursor *c, rtcosim_dbc *d);
rtcosim_status dbc_check_mux_loops(cursor *c, const message_build *m);

#pragma GCC visibility pop

#endif
