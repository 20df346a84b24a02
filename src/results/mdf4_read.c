/* ASAM MDF 4 blocks read into the shared channel groups (mdf_read.c says
 * what is read and what is refused). A block is "##XX", 4 reserved bytes,
 * its length and link count (uint64 LE), the links (absolute file offsets),
 * its data. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "results/mdf_read_internal.h"
#include "util/array.h"
#include "util/le.h"

typedef struct blk {
    uint64_t nlinks;
    const uint8_t *links, *data;
    size_t size; /* data bytes */
} blk;

/* The block at `at`: its kind must be id (NULL: any, then *kind is set). */
static rtcosim_status block(rd *r, uint64_t at, const char *id, char kind[3], blk *b)
{
    if (at < 64 || at > r->n || r->n - at < 24)
        return mdf_fail(r, "outside the file", at);
    const uint8_t *p = r->d + at;
    uint64_t len = le_get64(p + 8), nlinks = le_get64(p + 16);
    if (p[0] != '#' || p[1] != '#')
        return mdf_fail(r, "not a block (no \"##\")", at);
    if (id && (p[2] != id[0] || p[3] != id[1])) {
        char what[48];
        snprintf(what, sizeof what, "##%c%c where ##%s belongs",
                 p[2] >= 32 && p[2] < 127 ? p[2] : '?', p[3] >= 32 && p[3] < 127 ? p[3] : '?', id);
        return mdf_fail(r, what, at);
    }
    if (r->dt_to_end && p[2] == 'D' && p[3] == 'T' && (len == 24 || len > r->n - at))
        len = r->n - at; /* the last DT block of an unfinalized file: to the file's end */
    if (len < 24 || len > r->n - at || nlinks > (len - 24) / 8)
        return mdf_fail(r, "its length or link count runs past the file", at);
    if (kind)
        kind[0] = (char)p[2], kind[1] = (char)p[3], kind[2] = '\0';
    b->nlinks = nlinks;
    b->links = p + 24;
    b->data = p + 24 + 8 * nlinks;
    b->size = (size_t)(len - 24 - 8 * nlinks);
    return RTCOSIM_OK;
}

static uint64_t link_at(const blk *b, uint64_t k)
{
    return k < b->nlinks ? le_get64(b->links + 8 * k) : 0;
}

/* A TX block's text, or an MD block's first <TX> element; NULL for none. */
static char *text_of(rd *r, uint64_t at)
{
    blk b = {0};
    char kind[3];
    if (!at || block(r, at, NULL, kind, &b) != RTCOSIM_OK)
        return NULL;
    size_t n = strnlen((const char *)b.data, b.size);
    const char *s = (const char *)b.data, *end = s + n;
    if (strcmp(kind, "MD") == 0) {
        const char *open = memmem(s, n, "<TX>", 4);
        const char *close = open ? memmem(open, (size_t)(end - open), "</TX>", 5) : NULL;
        if (!close)
            return NULL;
        s = open + 4;
        end = close;
    } else if (strcmp(kind, "TX") != 0) {
        return NULL;
    }
    return strndup(s, (size_t)(end - s));
}

/* A DZ block's data inflated (and transposed back) onto out. */
static rtcosim_status inflate_dz(rd *r, uint64_t at, const uint8_t *data, size_t size, bytes *out)
{
    if (size < 24 || !((data[0] == 'D' && data[1] == 'T') || (data[0] == 'S' && data[1] == 'D')))
        return mdf_fail(r, "a DZ block without its header or not of DT or SD data", at);
    uint8_t type = data[2];
    uint32_t columns = le_get32(data + 4);
    uint64_t original = le_get64(data + 8), packed = le_get64(data + 16);
    if (type > 1 || packed > size - 24 || original > MDF_MAX_BYTES || (type == 1 && columns == 0))
        return mdf_fail(r, "a DZ block of an unknown kind or with sizes past it", at);
    if (original == 0)
        return RTCOSIM_OK; /* no records */
    size_t start = out->len;
    rtcosim_status st = mdf_append(r, out, NULL, (size_t)original);
    if (st != RTCOSIM_OK)
        return st;
    uLongf got = (uLongf)original;
    if (uncompress(out->p + start, &got, data + 24, (uLong)packed) != Z_OK || got != original)
        return mdf_fail(r, "a DZ block whose deflate data are corrupt", at);
    size_t lines = type == 1 ? (size_t)original / columns : 0, whole = lines * columns;
    if (lines > 1) { /* transposed: the first lines x columns bytes column by column */
        uint8_t *tmp = malloc(whole ? whole : 1);
        if (!tmp)
            return mdf_oom(r);
        for (size_t j = 0; j < columns; j++)
            for (size_t i = 0; i < lines; i++)
                tmp[i * columns + j] = out->p[start + j * lines + i];
        memcpy(out->p + start, tmp, whole);
        free(tmp);
    }
    return RTCOSIM_OK;
}

rtcosim_status mdf4_block_bytes(rd *r, const mdf_block_ref *b, bytes *out)
{
    return b->dz ? inflate_dz(r, b->at, b->data, b->size, out)
                 : mdf_append(r, out, b->data, b->size);
}

static rtcosim_status add_block(rd *r, mdf_block_list *l, uint64_t at, const blk *b, bool dz)
{
    if (!util_array_reserve(&l->blocks, l->count, &l->cap, sizeof *l->blocks, 16))
        return mdf_oom(r);
    l->blocks[l->count++] = (mdf_block_ref){.at = at, .data = b->data, .size = b->size, .dz = dz};
    return RTCOSIM_OK;
}

/* The blocks behind a data link (DT, DV, SD, DZ; DL and HL lists walked)
 * appended to l; depth bounds lists in lists, and steps every block visited. */
static rtcosim_status list_blocks(rd *r, uint64_t at, mdf_block_list *l, int depth, size_t *steps)
{
    while (at) {
        if (++*steps > r->n / 24 + 1 || depth > 4)
            return mdf_fail(r, "a loop in a data list", at);
        blk b;
        char kind[3];
        rtcosim_status st = block(r, at, NULL, kind, &b);
        if (st != RTCOSIM_OK)
            return st;
        if (strcmp(kind, "DT") == 0 || strcmp(kind, "DV") == 0 || strcmp(kind, "SD") == 0)
            return add_block(r, l, at, &b, false);
        if (strcmp(kind, "DZ") == 0)
            return add_block(r, l, at, &b, true);
        if (strcmp(kind, "HL") == 0)
            return list_blocks(r, link_at(&b, 0), l, depth + 1, steps);
        if (strcmp(kind, "DL") != 0)
            return mdf_fail(r, "a data link to a block that holds no records", at);
        for (uint64_t k = 1; k < b.nlinks; k++)
            if ((st = list_blocks(r, link_at(&b, k), l, depth + 1, steps)) != RTCOSIM_OK)
                return st;
        at = link_at(&b, 0); /* the next DL */
    }
    return RTCOSIM_OK;
}

rtcosim_status mdf4_data_blocks(rd *r, uint64_t at, mdf_block_list *out)
{
    size_t steps = 0;
    *out = (mdf_block_list){0};
    rtcosim_status st = list_blocks(r, at, out, 0, &steps);
    if (st != RTCOSIM_OK) {
        free(out->blocks);
        *out = (mdf_block_list){0};
    }
    return st;
}

/* A channel's conversion; other kinds than none, linear, rational and
 * value-to-value tables give the raw value (counted). */
static rtcosim_status read_conversion(rd *r, uint64_t at, conv *c, char **unit)
{
    blk b;
    *c = (conv){0};
    if (!at || block(r, at, "CC", NULL, &b) != RTCOSIM_OK || b.size < 24)
        return RTCOSIM_OK;
    uint8_t type = b.data[0];
    uint16_t vals = (uint16_t)(b.data[6] | b.data[7] << 8);
    if (!*unit)
        *unit = text_of(r, link_at(&b, 1));
    if (type == 0)
        return RTCOSIM_OK;
    size_t have = (b.size - 24) / 8 < vals ? (b.size - 24) / 8 : vals;
    if (type == 4 || type == 5 || type == 6) {
        /* tables: (key, value) pairs, or (lower, upper, value) and a default */
        size_t width = type == 6 ? 3 : 2, rows = type == 6 ? (have ? (have - 1) / 3 : 0)
                                                         : have / 2;
        bool oom = false;
        if (rows && mdf_conv_table(c, type, b.data + 24, rows, width, &oom)) {
            if (type == 6)
                c->v[0] = mdf_f64(b.data + 24 + 8 * 3 * rows);
            return RTCOSIM_OK;
        }
        if (oom)
            return mdf_oom(r);
        r->raw_conversions++;
        return RTCOSIM_OK;
    }
    size_t need = type == 1 ? 2 : type == 2 ? 6 : 0;
    if (!need || have < need) {
        r->raw_conversions++;
        return RTCOSIM_OK;
    }
    c->type = type;
    for (size_t i = 0; i < need; i++)
        c->v[i] = mdf_f64(b.data + 24 + 8 * i);
    return RTCOSIM_OK;
}

/* A channel's name, "PARENT.NAME" for a structure's component (unless
 * its name says so already); NULL out of memory or without a name. */
static char *channel_name(rd *r, uint64_t at, const char *parent)
{
    char *name = text_of(r, at);
    size_t n = parent ? strlen(parent) : 0;
    if (!name || !parent || (strncmp(name, parent, n) == 0 && name[n] == '.'))
        return name;
    char *full = malloc(n + strlen(name) + 2);
    if (full)
        sprintf(full, "%s.%s", parent, name);
    free(name);
    return full;
}

/* A bus log's channel beside the numbers: a structure read as its
 * components (appended to g), or a byte array kept raw (*raw 1 fixed, 2
 * variable-length). true: taken care of (or counted). */
static rtcosim_status bus_channel(rd *r, const blk *b, chan *c, group *g, int depth, bool fits,
                                  bool *taken);

/* The channels of a channel group (numeric ones; the rest counted); parent:
 * the structure whose components they are (rd.bus), NULL at the top. */
static rtcosim_status read_channels(rd *r, uint64_t at, group *g, const char *parent, int depth)
{
    size_t steps = 0;
    if (depth == 0)
        g->master = -1;
    while (at) {
        blk b;
        rtcosim_status st = block(r, at, "CN", NULL, &b);
        if (st != RTCOSIM_OK)
            return st;
        if (++steps > r->n / 88 + 1 || b.size < 24 || b.nlinks < 8) /* (88: 8 links) */
            return mdf_fail(r, steps > r->n / 88 + 1 ? "a loop in a channel list" : "a short CN block",
                        at);
        const uint8_t *d = b.data;
        chan c = {.type = d[0], .dtype = d[2], .bit_offset = d[3], .byte_offset = le_get32(d + 4),
                  .bits = le_get32(d + 8), .flags = le_get32(d + 12), .inval_pos = le_get32(d + 16)};
        bool numeric = c.dtype <= 5 && c.bits >= 1 && c.bits <= 64 && c.bit_offset < 8 &&
                       (c.dtype < 4 || c.bits == 16 || c.bits == 32 || c.bits == 64);
        bool stored = c.type == 0 || c.type == 2;
        bool fits = !stored || (c.byte_offset <= g->data_bytes &&
                                (c.bit_offset + c.bits + 7) / 8 <= g->data_bytes - c.byte_offset);
        bool inval_fits = !(c.flags & 2) || c.inval_pos / 8 < g->inval_bytes;
        bool taken = false;
        if (r->bus) {
            rtcosim_status bst = bus_channel(r, &b, &c, g, depth, fits && inval_fits, &taken);
            if (bst != RTCOSIM_OK)
                return bst;
        }
        if (taken && c.raw) {
            c.name = channel_name(r, link_at(&b, 2), parent);
            c.data_link = link_at(&b, 5);
            chan *grown = c.name ? mdf_chans_room(g) : NULL;
            if (!grown) {
                free(c.name);
                return mdf_oom(r);
            }
            g->chans = grown;
            g->chans[g->nchan++] = c;
        } else if (taken) {
            ;
        } else if ((c.type == 0 || c.type == 2 || c.type == 3 || c.type == 6) && !link_at(&b, 1) &&
            (numeric || c.type == 3 || c.type == 6) && fits && inval_fits) {
            c.name = channel_name(r, link_at(&b, 2), parent);
            c.unit = text_of(r, link_at(&b, 6));
            rtcosim_status cst = read_conversion(r, link_at(&b, 4), &c.cc, &c.unit);
            c.cc.int_raw = c.dtype < 4 || c.type == 3 || c.type == 6;
            chan *grown = cst == RTCOSIM_OK ? mdf_chans_room(g) : NULL;
            if (cst != RTCOSIM_OK || !c.name || !grown) {
                free(c.name);
                free(c.unit);
                free(c.cc.tab);
                if (cst != RTCOSIM_OK)
                    return cst;
                if (grown)
                    g->chans = grown;
                if (!grown)
                    return mdf_oom(r);
                r->skipped++; /* a channel without a name */
            } else {
                g->chans = grown;
                if ((c.type == 2 || c.type == 3) && g->master < 0)
                    g->master = (ptrdiff_t)g->nchan;
                g->chans[g->nchan++] = c;
            }
        } else if (c.type != 1 && c.type != 4 && c.type != 5) {
            r->skipped++; /* strings, byte arrays, structures, odd layouts */
            if (!r->can_frames && link_at(&b, 1)) { /* a bus log's frames? */
                char *name = text_of(r, link_at(&b, 2));
                r->can_frames = name && strcmp(name, "CAN_DataFrame") == 0;
                free(name);
            }
        }
        at = link_at(&b, 0);
    }
    return RTCOSIM_OK;
}

static rtcosim_status bus_channel(rd *r, const blk *b, chan *c, group *g, int depth, bool fits,
                                  bool *taken)
{
    uint64_t comp = link_at(b, 1);
    blk cb;
    char kind[3];
    if (comp && block(r, comp, NULL, kind, &cb) == RTCOSIM_OK && strcmp(kind, "CN") == 0) {
        if (depth >= 4)
            return mdf_fail(r, "structures nested more than four deep", comp);
        char *name = text_of(r, link_at(b, 2)); /* (none: the components' own names) */
        rtcosim_status st = read_channels(r, comp, g, name, depth + 1);
        free(name);
        *taken = true;
        return st;
    }
    if (c->dtype != 10 || comp) /* (an array of bytes is not a byte array) */
        return RTCOSIM_OK;
    if (c->type == 0 && c->bit_offset == 0 && c->bits % 8 == 0 && c->bits && fits)
        c->raw = 1;
    else if (c->type == 1 && c->bit_offset == 0 && c->bits == 64 && link_at(b, 5) &&
             c->byte_offset <= g->data_bytes && g->data_bytes - c->byte_offset >= 8)
        c->raw = 2; /* (the record holds the offset: a uint64) */
    *taken = c->raw != 0; /* (else counted as left out with the others) */
    return RTCOSIM_OK;
}

/* One data group: its channel groups appended to *groups. */
static rtcosim_status read_data_group(rd *r, uint64_t at, group **groups, size_t *ng)
{
    blk dg;
    rtcosim_status st = block(r, at, "DG", NULL, &dg);
    if (st != RTCOSIM_OK)
        return st;
    uint8_t id_size = dg.size ? dg.data[0] : 0;
    if (id_size != 0 && id_size != 1 && id_size != 2 && id_size != 4 && id_size != 8)
        return mdf_fail(r, "a record id size other than 0, 1, 2, 4 or 8 bytes", at);
    size_t first = *ng, steps = 0;
    for (uint64_t cg_at = link_at(&dg, 1); cg_at && st == RTCOSIM_OK;) {
        blk cg;
        if ((st = block(r, cg_at, "CG", NULL, &cg)) != RTCOSIM_OK)
            break;
        if (++steps > r->n / 56 + 1 || cg.size < 32) /* (a CG block: 56 bytes at least) */
            return mdf_fail(r, steps > r->n / 56 + 1 ? "a loop in a channel group list"
                                                     : "a short CG block", cg_at);
        group *grown = mdf_room(*groups, *ng, sizeof **groups);
        if (!grown)
            return mdf_oom(r);
        *groups = grown;
        group *g = &grown[(*ng)++];
        *g = (group){.record_id = le_get64(cg.data), .vlsd = (cg.data[16] & 1) != 0,
                     .data_bytes = le_get32(cg.data + 24), .inval_bytes = le_get32(cg.data + 28),
                     .master = -1, .at = cg_at, .cycles = le_get64(cg.data + 8)};
        if (!g->vlsd)
            st = read_channels(r, link_at(&cg, 1), g, NULL, 0);
        cg_at = link_at(&cg, 0);
    }
    if (st != RTCOSIM_OK)
        return st;
    if (id_size == 0 && *ng - first > 1)
        return mdf_fail(r, "several channel groups in a data group without record ids", at);
    for (size_t k = first; k < *ng; k++) {
        (*groups)[k].dg_at = at;
        (*groups)[k].id_size = id_size;
        (*groups)[k].data_link = link_at(&dg, 2);
    }
    /* (the records are walked a block at a time: mdf_records.c) */
    return RTCOSIM_OK;
}

rtcosim_status mdf4_attachment(rd *r, const char *ending, bytes *out, char **name)
{
    *name = NULL;
    blk hd, at;
    rtcosim_status st = block(r, 64, "HD", NULL, &hd);
    size_t steps = 0, n = strlen(ending);
    for (uint64_t a = st == RTCOSIM_OK ? link_at(&hd, 3) : 0; a && st == RTCOSIM_OK;
         a = link_at(&at, 0)) {
        if (++steps > r->n / 24)
            return mdf_fail(r, "a loop in the attachment list", a);
        if ((st = block(r, a, "AT", NULL, &at)) != RTCOSIM_OK || at.size < 40)
            return st != RTCOSIM_OK ? st : mdf_fail(r, "a short AT block", a);
        uint16_t flags = le_get16(at.data);
        uint64_t original = le_get64(at.data + 24), embedded = le_get64(at.data + 32);
        char *file = text_of(r, link_at(&at, 1));
        size_t len = file ? strlen(file) : 0;
        bool wanted = (flags & 1) && file && len >= n && strcasecmp(file + len - n, ending) == 0;
        if (!wanted) {
            free(file);
            continue;
        }
        if (embedded > at.size - 40 || original > MDF_MAX_BYTES) {
            free(file);
            return mdf_fail(r, "an attachment's sizes run past its block", a);
        }
        if (!(flags & 2)) { /* stored as it is */
            st = mdf_append(r, out, at.data + 40, (size_t)embedded);
        } else if ((st = mdf_append(r, out, NULL, (size_t)original)) == RTCOSIM_OK) {
            uLongf got = (uLongf)original;
            if (uncompress(out->p, &got, at.data + 40, (uLong)embedded) != Z_OK ||
                got != original)
                st = mdf_fail(r, "an attachment whose deflate data are corrupt", a);
        }
        if (st != RTCOSIM_OK) {
            free(file);
            return st;
        }
        *name = file;
        return RTCOSIM_OK;
    }
    return st;
}

/* The HD block's data groups, and its start time (ns since 1970, UTC). */
rtcosim_status mdf4_read_groups(rd *r, group **groups, size_t *ng)
{
    /* Unfinalized (ASAM's standard flags at 60: 1 cycle counters, 2 SR
     * blocks, 4 the last DT block's length, 8 the last RD block's, 16 the
     * last DL block of each list, 32 a VLSD channel group's sizes, 64 VLSD
     * offsets; a writer's own flags at 62): what this reader needs is the
     * data, so only unwritten VLSD offsets stop it. */
    uint16_t flags = le_get16(r->d + 60), custom = le_get16(r->d + 62);
    if (flags & 64)
        return rtcosim_error_set(r->err, RTCOSIM_EFORMAT, "%s: an unfinalized MDF file whose "
                                 "variable-length values' offsets were never written; finalize it"
                                 " first (e.g. with asammdf or the logger's tool)", r->path);
    r->unfinalized = flags || custom || memcmp(r->d, "UnFinMF ", 8) == 0;
    r->dt_to_end = (flags & 4) != 0;
    blk hd;
    rtcosim_status st = block(r, 64, "HD", NULL, &hd);
    if (st == RTCOSIM_OK && hd.size >= 8)
        mdf_start_utc(r, (int64_t)le_get64(hd.data));
    size_t steps = 0;
    for (uint64_t at = st == RTCOSIM_OK ? link_at(&hd, 0) : 0; at && st == RTCOSIM_OK;) {
        if (++steps > r->n / 24)
            return mdf_fail(r, "a loop in the data group list", at);
        blk dg;
        if ((st = read_data_group(r, at, groups, ng)) == RTCOSIM_OK &&
            (st = block(r, at, "DG", NULL, &dg)) == RTCOSIM_OK)
            at = link_at(&dg, 0);
    }
    return st;
}
