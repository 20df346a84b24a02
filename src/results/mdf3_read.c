/* ASAM MDF 3 blocks read into the shared channel groups (mdf_read.c says
 * what is read and what is refused). Layouts (little-endian, packed; links
 * are uint32 file offsets): a block is two letters and its length (uint16).
 *   ID at 0: byte order uint16 at 24 (0 Intel), float format at 26 (0 IEEE
 *      754), version at 28 (330 for 3.30), unfinalized flags at 60 and 62;
 *   HD at 64: first DG at 4; date "DD:MM:YYYY" at 18, time "HH:MM:SS" at 28;
 *      from 3.20 (length >= 172) the start in ns since 1970 UTC at 164;
 *   DG: next DG at 4, first CG at 8, data at 16, record id bytes (0, 1:
 *      before each record, 2: before and after) uint16 at 22;
 *   CG: next CG at 4, first CN at 8, record id uint16 at 16, record size in
 *      bytes uint16 at 20, records uint32 at 22;
 *   CN: next CN at 4, CC at 8, channel type uint16 at 24 (0 value, 1
 *      master), short name char[32] at 26, first bit uint16 at 186, bits
 *      at 188, data type at 190; from length 222 a long-name TX at 218, from
 *      228 an additional byte offset uint16 at 226;
 *   CC: unit char[20] at 22, conversion type uint16 at 42, parameter count
 *      at 44, parameters (doubles) from 46: 65535 1:1, 0 linear (P1 + P2 x),
 *      9 rational, 6 polynomial, 1 and 2 (raw, physical) pairs with and
 *      without interpolation;
 *   TX: its text from 4.
 * The data of a data group are its records with no block header, as many
 * as its channel groups count: walked as one block by mdf_records.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/mdf_read_internal.h"
#include "util/le.h"

/* The block at `at` of kind id (two letters): its bytes and length. */
static rtcosim_status block(rd *r, uint64_t at, const char *id, const uint8_t **p, size_t *len)
{
    if (at < 64 || at > r->n || r->n - at < 4)
        return mdf_fail(r, "outside the file", at);
    const uint8_t *b = r->d + at;
    size_t n = le_get16(b + 2);
    if (b[0] != id[0] || b[1] != id[1]) {
        char what[48];
        snprintf(what, sizeof what, "%c%c where %s belongs", b[0] >= 32 && b[0] < 127 ? b[0] : '?',
                 b[1] >= 32 && b[1] < 127 ? b[1] : '?', id);
        return mdf_fail(r, what, at);
    }
    if (n < 4 || n > r->n - at)
        return mdf_fail(r, "its length runs past the file", at);
    *p = b;
    *len = n;
    return RTCOSIM_OK;
}

static uint32_t link_at(const uint8_t *b, size_t len, size_t off)
{
    return off + 4 <= len ? le_get32(b + off) : 0;
}

/* A TX block's text; NULL for none (or a link to something else). */
static char *text_of(rd *r, uint64_t at)
{
    const uint8_t *b;
    size_t len;
    if (!at || block(r, at, "TX", &b, &len) != RTCOSIM_OK)
        return NULL;
    return mdf_latin1(b + 4, len - 4);
}

/* A channel's conversion and unit; other kinds than 1:1, linear, rational,
 * polynomial and value tables give the raw value (counted). */
static rtcosim_status read_conversion(rd *r, uint64_t at, conv *c, char **unit)
{
    const uint8_t *b;
    size_t len;
    *c = (conv){0};
    if (!at || block(r, at, "CC", &b, &len) != RTCOSIM_OK || len < 46)
        return RTCOSIM_OK;
    char *u = mdf_latin1(b + 22, 20);
    if (!u)
        return mdf_oom(r);
    if (*u)
        *unit = u;
    else
        free(u);
    unsigned type = le_get16(b + 42), params = le_get16(b + 44);
    if (type == 65535)
        return RTCOSIM_OK;
    if (type == 1 || type == 2) { /* (raw, physical) pairs, with or without interpolation */
        size_t rows = (len - 46) / 16 < params ? (len - 46) / 16 : params;
        bool oom = false;
        if (rows && mdf_conv_table(c, type == 1 ? MDF_CONV_TABLE : MDF_CONV_NEAREST, b + 46,
                                   rows, 2, &oom))
            return RTCOSIM_OK;
        if (oom)
            return mdf_oom(r);
        r->raw_conversions++;
        return RTCOSIM_OK;
    }
    int kind = type == 0 ? 1 : type == 9 ? 2 : type == 6 ? 3 : 0;
    size_t need = kind == 1 ? 2 : kind ? 6 : 0;
    if (!kind || params < need || len < 46 + 8 * need) {
        r->raw_conversions++;
        return RTCOSIM_OK;
    }
    c->type = kind;
    for (size_t i = 0; i < need; i++)
        c->v[i] = mdf_f64(b + 46 + 8 * i);
    return RTCOSIM_OK;
}

/* MDF 3's data type as MDF 4's (0/1 unsigned LE/BE, 2/3 signed, 4/5
 * float), -1 for strings, byte arrays, VAX floats and unknown types. */
static int data_type(unsigned t, unsigned bits)
{
    static const signed char as4[17] = {0, 2, 4, 4, -1, -1, -1, -1, -1,
                                        1, 3, 5, 5, 0, 2, 4, 4};
    if (t > 16 || as4[t] < 0)
        return -1;
    bool real = t == 2 || t == 3 || t == 11 || t == 12 || t == 15 || t == 16;
    if (real && bits != 32 && bits != 64)
        return -1;
    return bits >= 1 && bits <= 64 ? as4[t] : -1;
}

/* The channels of a channel group (numeric ones; the rest counted). */
static rtcosim_status read_channels(rd *r, uint64_t at, group *g)
{
    size_t steps = 0;
    g->master = -1;
    while (at) {
        const uint8_t *b;
        size_t len;
        rtcosim_status st = block(r, at, "CN", &b, &len);
        if (st != RTCOSIM_OK)
            return st;
        if (++steps > r->n / 218 + 1 || len < 218) /* (a CN block: 218 bytes at least) */
            return mdf_fail(r, steps > r->n / 218 + 1 ? "a loop in a channel list" : "a short CN block",
                            at);
        unsigned first_bit = le_get16(b + 186), bits = le_get16(b + 188);
        uint32_t extra = len >= 228 ? le_get16(b + 226) : 0;
        int dtype = data_type(le_get16(b + 190), bits);
        chan c = {.type = le_get16(b + 24) == 1 ? 2 : 0, .dtype = (uint8_t)(dtype < 0 ? 0 : dtype),
                  .bit_offset = (uint8_t)(first_bit % 8), .byte_offset = extra + first_bit / 8,
                  .bits = bits};
        bool fits = c.byte_offset <= g->data_bytes &&
                    (c.bit_offset + c.bits + 7) / 8 <= g->data_bytes - c.byte_offset;
        if (dtype >= 0 && fits) {
            uint32_t long_name = len >= 222 ? link_at(b, len, 218) : 0;
            c.name = long_name ? text_of(r, long_name) : NULL;
            if (!c.name || !*c.name) {
                free(c.name);
                c.name = mdf_latin1(b + 26, 32);
            }
            rtcosim_status cst = read_conversion(r, link_at(b, len, 8), &c.cc, &c.unit);
            c.cc.int_raw = dtype < 4;
            bool named = c.name && *c.name;
            chan *grown = cst == RTCOSIM_OK && named
                              ? mdf_chans_room(g)
                              : NULL;
            if (!grown) {
                free(c.name);
                free(c.unit);
                free(c.cc.tab);
                if (cst != RTCOSIM_OK)
                    return cst;
                if (named)
                    return mdf_oom(r);
                r->skipped++; /* a channel without a name */
            } else {
                g->chans = grown;
                if (c.type == 2 && g->master < 0)
                    g->master = (ptrdiff_t)g->nchan;
                g->chans[g->nchan++] = c;
            }
        } else {
            r->skipped++; /* strings, byte arrays, VAX floats, odd layouts */
        }
        at = link_at(b, len, 4);
    }
    return RTCOSIM_OK;
}

/* One data group: its channel groups appended to *groups. */
static rtcosim_status read_data_group(rd *r, uint64_t at, group **groups, size_t *ng)
{
    const uint8_t *dg;
    size_t dg_len;
    rtcosim_status st = block(r, at, "DG", &dg, &dg_len);
    if (st != RTCOSIM_OK)
        return st;
    if (dg_len < 24)
        return mdf_fail(r, "a short DG block", at);
    unsigned ids = le_get16(dg + 22);
    if (ids > 2)
        return mdf_fail(r, "a record id size other than 0, 1 or 2 (before and after)", at);
    size_t first = *ng, steps = 0;
    uint64_t total = 0; /* the data group's bytes, from its channel groups */
    for (uint64_t cg_at = link_at(dg, dg_len, 8); cg_at && st == RTCOSIM_OK;) {
        const uint8_t *cg;
        size_t cg_len;
        if ((st = block(r, cg_at, "CG", &cg, &cg_len)) != RTCOSIM_OK)
            break;
        if (++steps > r->n / 26 + 1 || cg_len < 26) /* (a CG block: 26 bytes at least) */
            return mdf_fail(r, steps > r->n / 26 + 1 ? "a loop in a channel group list"
                                                     : "a short CG block", cg_at);
        group *grown = mdf_room(*groups, *ng, sizeof **groups);
        if (!grown)
            return mdf_oom(r);
        *groups = grown;
        group *g = &grown[(*ng)++];
        *g = (group){.record_id = le_get16(cg + 16), .data_bytes = le_get16(cg + 20),
                     .master = -1, .at = cg_at, .cycles = le_get32(cg + 22), .mdf3 = true,
                     .id_size = ids ? 1 : 0, .id_after = ids == 2};
        total += (uint64_t)le_get32(cg + 22) * (g->data_bytes + (ids ? ids : 0));
        st = read_channels(r, link_at(cg, cg_len, 8), g);
        cg_at = link_at(cg, cg_len, 4);
    }
    if (st != RTCOSIM_OK)
        return st;
    if (ids == 0 && *ng - first > 1)
        return mdf_fail(r, "several channel groups in a data group without record ids", at);
    uint32_t data_at = link_at(dg, dg_len, 16);
    if (total && (data_at < 64 || data_at > r->n || total > r->n - data_at)) {
        char what[96];
        snprintf(what, sizeof what, "its records (%llu bytes at %u) run past the end of the file",
                 (unsigned long long)total, data_at);
        return mdf_fail(r, what, at);
    }
    /* the records stay in the mapped file, walked as one block (mdf_records.c) */
    for (size_t k = first; k < *ng; k++) {
        (*groups)[k].dg_at = at;
        (*groups)[k].data_link = data_at;
        (*groups)[k].data_len = total;
    }
    return RTCOSIM_OK;
}

/* The start: 3.20's time stamp, else the HD block's date and time. */
static void read_start(rd *r, const uint8_t *hd, size_t len)
{
    if (len >= 172 && mdf_start_utc(r, (int64_t)le_get64(hd + 164)))
        return;
    if (len >= 36) {
        const char *d = (const char *)hd + 18, *t = (const char *)hd + 28;
        if (d[2] == ':' && d[5] == ':')
            snprintf(r->start, sizeof r->start, "%.4s-%.2s-%.2s %.8s (local time)", d + 6, d + 3,
                     d, t);
    }
}

rtcosim_status mdf3_read_groups(rd *r, group **groups, size_t *ng)
{
    unsigned order = le_get16(r->d + 24), floats = le_get16(r->d + 26);
    if (order != 0)
        return rtcosim_error_set(r->err, RTCOSIM_EUNSUPPORTED, "%s: an MDF 3 file in big-endian"
                                 " (Motorola) layout: not read (convert it, e.g. with asammdf)",
                                 r->path);
    if (floats != 0)
        return rtcosim_error_set(r->err, RTCOSIM_EUNSUPPORTED, "%s: an MDF 3 file of VAX floats"
                                 " (format %u): not read (convert it, e.g. with asammdf)",
                                 r->path, floats);
    if (r->d[60] | r->d[61] | r->d[62] | r->d[63])
        return rtcosim_error_set(r->err, RTCOSIM_EFORMAT, "%s: an unfinalized MDF file (its"
                                 " recorder did not close it); finalize it first", r->path);
    const uint8_t *hd;
    size_t len;
    rtcosim_status st = block(r, 64, "HD", &hd, &len);
    if (st != RTCOSIM_OK)
        return st;
    if (len < 8)
        return mdf_fail(r, "a short HD block", 64);
    read_start(r, hd, len);
    size_t steps = 0;
    for (uint64_t at = link_at(hd, len, 4); at && st == RTCOSIM_OK;) {
        if (++steps > r->n / 4)
            return mdf_fail(r, "a loop in the data group list", at);
        const uint8_t *dg;
        size_t dg_len;
        if ((st = read_data_group(r, at, groups, ng)) == RTCOSIM_OK &&
            (st = block(r, at, "DG", &dg, &dg_len)) == RTCOSIM_OK)
            at = link_at(dg, dg_len, 4);
    }
    return st;
}
