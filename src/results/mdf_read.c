/* ASAM MDF 4 measurement files read into a result table (result_table.h),
 * for `rtcosim plot` and as a stimulus (--input-file, table components):
 * what CANape, CANoe, INCA and asammdf record, and what rtcosim writes
 * (mdf.c, whose header lists the blocks).
 *
 * Read: versions 4.00-4.2x, finalized; every data group, sorted (no record
 * ids) or unsorted (1, 2, 4 or 8-byte record ids, VLSD records skipped);
 * data in DT blocks, DZ blocks (deflate, and transposed deflate), DL lists
 * and HL headers; numeric channels (unsigned and signed integers of 1 to 64
 * bits at any bit offset, IEEE half, single and double floats, either byte
 * order) with invalidation bits (an invalid sample is NaN), virtual
 * channels, and conversions none, linear and rational (other conversions
 * give the raw values, said in one warning); units from TX or MD blocks,
 * else the conversion's. Each channel group's master channel is its time;
 * several groups are put on the union of their times, each channel holding
 * its last sample (NaN before its first). Left out, said in one warning:
 * string, byte-array and structure channels, groups without a master.
 * Refused with one line naming the file: MDF 3, unfinalized files, blocks
 * out of the file or of the wrong kind, loops in block lists, data shorter
 * than its records, more than 1 GiB of data or table, or more data than
 * deflate could have packed into the file (a block listed twice). */
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "results/result_table.h"
#include "rtcosim/log.h"
#include "rtcosim/results.h"
#include "util/le.h"

#define MDF_MAX_BYTES ((size_t)1 << 30)

typedef struct rd {
    const uint8_t *d;
    size_t n;
    const char *path;
    rtcosim_error *err;
    size_t skipped, raw_conversions, masterless;
} rd;

typedef struct blk {
    uint64_t nlinks;
    const uint8_t *links, *data;
    size_t size; /* data bytes */
} blk;

static double f64(const uint8_t *p)
{
    uint64_t bits = le_get64(p);
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

static rtcosim_status fail(rd *r, const char *what, uint64_t at)
{
    return rtcosim_error_set(r->err, RTCOSIM_EFORMAT, "%s: MDF block at %llu: %s", r->path,
                             (unsigned long long)at, what);
}

/* The block at `at`: its kind must be id (NULL: any, then *kind is set). */
static rtcosim_status block(rd *r, uint64_t at, const char *id, char kind[3], blk *b)
{
    if (at < 64 || at > r->n || r->n - at < 24)
        return fail(r, "outside the file", at);
    const uint8_t *p = r->d + at;
    uint64_t len = le_get64(p + 8), nlinks = le_get64(p + 16);
    if (p[0] != '#' || p[1] != '#')
        return fail(r, "not a block (no \"##\")", at);
    if (id && (p[2] != id[0] || p[3] != id[1])) {
        char what[48];
        snprintf(what, sizeof what, "##%c%c where ##%s belongs",
                 p[2] >= 32 && p[2] < 127 ? p[2] : '?', p[3] >= 32 && p[3] < 127 ? p[3] : '?', id);
        return fail(r, what, at);
    }
    if (len < 24 || len > r->n - at || nlinks > (len - 24) / 8)
        return fail(r, "its length or link count runs past the file", at);
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

typedef struct bytes {
    uint8_t *p;
    size_t len, cap;
} bytes;

static rtcosim_status append(rd *r, bytes *out, const uint8_t *p, size_t n)
{
    /* deflate packs at most 1032 bytes in one: a data group holds no more
     * than 1100 times the file (else a block is used twice) */
    size_t most = r->n < MDF_MAX_BYTES / 1100 ? r->n * 1100 : MDF_MAX_BYTES;
    if (n > most - out->len)
        return rtcosim_error_set(r->err, RTCOSIM_EFORMAT, "%s: more data in a data group than"
                                 " %s (a data block used twice?)", r->path,
                                 most == MDF_MAX_BYTES ? "1 GiB" : "the file can hold");
    if (out->len + n > out->cap) {
        size_t cap = out->cap ? out->cap : 4096;
        while (cap < out->len + n)
            cap *= 2;
        uint8_t *q = realloc(out->p, cap);
        if (!q)
            return rtcosim_error_set(r->err, RTCOSIM_ENOMEM, "%s: out of memory", r->path);
        out->p = q;
        out->cap = cap;
    }
    if (n && p) /* (NULL: room only) */
        memcpy(out->p + out->len, p, n);
    out->len += n;
    return RTCOSIM_OK;
}

/* A DZ block's data inflated (and transposed back) onto out. */
static rtcosim_status inflate_dz(rd *r, uint64_t at, const blk *b, bytes *out)
{
    if (b->size < 24 || b->data[0] != 'D' || b->data[1] != 'T')
        return fail(r, "a DZ block without its header or not of DT data", at);
    uint8_t type = b->data[2];
    uint32_t columns = le_get32(b->data + 4);
    uint64_t original = le_get64(b->data + 8), packed = le_get64(b->data + 16);
    if (type > 1 || packed > b->size - 24 || original > MDF_MAX_BYTES ||
        (type == 1 && columns == 0))
        return fail(r, "a DZ block of an unknown kind or with sizes past it", at);
    if (original == 0)
        return RTCOSIM_OK; /* no records */
    size_t start = out->len;
    rtcosim_status st = append(r, out, NULL, (size_t)original);
    if (st != RTCOSIM_OK)
        return st;
    uLongf got = (uLongf)original;
    if (uncompress(out->p + start, &got, b->data + 24, (uLong)packed) != Z_OK || got != original)
        return fail(r, "a DZ block whose deflate data are corrupt", at);
    size_t lines = type == 1 ? (size_t)original / columns : 0, whole = lines * columns;
    if (lines > 1) { /* transposed: the first lines x columns bytes column by column */
        uint8_t *tmp = malloc(whole ? whole : 1);
        if (!tmp)
            return rtcosim_error_set(r->err, RTCOSIM_ENOMEM, "%s: out of memory", r->path);
        for (size_t j = 0; j < columns; j++)
            for (size_t i = 0; i < lines; i++)
                tmp[i * columns + j] = out->p[start + j * lines + i];
        memcpy(out->p + start, tmp, whole);
        free(tmp);
    }
    return RTCOSIM_OK;
}

/* The data behind a DG's data link (DT, DZ, DL, HL) appended to out;
 * depth bounds lists in lists, and steps every block visited. */
static rtcosim_status gather(rd *r, uint64_t at, bytes *out, int depth, size_t *steps)
{
    while (at) {
        if (++*steps > r->n / 24 + 1 || depth > 4)
            return fail(r, "a loop in a data list", at);
        blk b;
        char kind[3];
        rtcosim_status st = block(r, at, NULL, kind, &b);
        if (st != RTCOSIM_OK)
            return st;
        if (strcmp(kind, "DT") == 0 || strcmp(kind, "DV") == 0)
            return append(r, out, b.data, b.size);
        if (strcmp(kind, "DZ") == 0)
            return inflate_dz(r, at, &b, out);
        if (strcmp(kind, "HL") == 0)
            return gather(r, link_at(&b, 0), out, depth + 1, steps);
        if (strcmp(kind, "DL") != 0)
            return fail(r, "a data link to a block that holds no records", at);
        for (uint64_t k = 1; k < b.nlinks; k++)
            if ((st = gather(r, link_at(&b, k), out, depth + 1, steps)) != RTCOSIM_OK)
                return st;
        at = link_at(&b, 0); /* the next DL */
    }
    return RTCOSIM_OK;
}

typedef struct conv {
    int type; /* 0 none, 1 linear, 2 rational */
    double v[6];
} conv;

/* A channel's conversion; other kinds than none, linear and rational give
 * the raw value (counted). */
static void read_conversion(rd *r, uint64_t at, conv *c, char **unit)
{
    blk b;
    *c = (conv){0};
    if (!at || block(r, at, "CC", NULL, &b) != RTCOSIM_OK || b.size < 24)
        return;
    uint8_t type = b.data[0];
    uint16_t vals = (uint16_t)(b.data[6] | b.data[7] << 8);
    size_t need = type == 1 ? 2 : type == 2 ? 6 : 0;
    if (!*unit)
        *unit = text_of(r, link_at(&b, 1));
    if (type == 0)
        return;
    if (!need || vals < need || b.size < 24 + 8 * need) {
        r->raw_conversions++;
        return;
    }
    c->type = type;
    for (size_t i = 0; i < need; i++)
        c->v[i] = f64(b.data + 24 + 8 * i);
}

static double convert(const conv *c, double x)
{
    if (c->type == 1)
        return c->v[0] + c->v[1] * x;
    if (c->type == 2)
        return (c->v[0] * x * x + c->v[1] * x + c->v[2]) / (c->v[3] * x * x + c->v[4] * x + c->v[5]);
    return x;
}

static double half_to_double(uint16_t h)
{
    int exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
    double v = exp == 0 ? ldexp(mant, -24) : exp == 31 ? (mant ? NAN : INFINITY)
                                                         : ldexp(mant | 0x400, exp - 25);
    return h & 0x8000 ? -v : v;
}

typedef struct chan {
    char *name, *unit;
    uint8_t type, dtype, bit_offset;
    uint32_t byte_offset, bits, flags, inval_pos;
    conv cc;
} chan;

/* Channel c's value in record rec (record index k, inval: its invalidation bytes). */
static double value(const chan *c, const uint8_t *rec, const uint8_t *inval, size_t k)
{
    if ((c->flags & 2) && inval && (inval[c->inval_pos / 8] >> (c->inval_pos % 8) & 1))
        return NAN;
    if (c->type == 3 || c->type == 6) /* virtual: the record index */
        return convert(&c->cc, (double)k);
    bool big = c->dtype & 1;
    size_t n = (c->bit_offset + c->bits + 7) / 8;
    const uint8_t *p = rec + c->byte_offset;
    unsigned __int128 raw = 0;
    for (size_t i = 0; i < n; i++)
        raw |= (unsigned __int128)p[big ? n - 1 - i : i] << (8 * i);
    raw >>= c->bit_offset;
    uint64_t v = (uint64_t)raw;
    if (c->bits < 64)
        v &= ((uint64_t)1 << c->bits) - 1;
    double x;
    if (c->dtype >= 4) {
        if (c->bits == 16) {
            x = half_to_double((uint16_t)v);
        } else if (c->bits == 32) {
            float f;
            uint32_t w = (uint32_t)v;
            memcpy(&f, &w, sizeof f);
            x = f;
        } else {
            memcpy(&x, &v, sizeof x);
        }
    } else if (c->dtype >= 2 && c->bits < 64 && (v >> (c->bits - 1) & 1)) {
        x = (double)(int64_t)(v | ~(((uint64_t)1 << c->bits) - 1)); /* sign-extended */
    } else {
        x = c->dtype >= 2 ? (double)(int64_t)v : (double)v;
    }
    return convert(&c->cc, x);
}

typedef struct group {
    uint64_t record_id;
    uint32_t data_bytes, inval_bytes;
    bool vlsd;
    chan *chans;
    size_t nchan;
    ptrdiff_t master;
    size_t *offsets, count, cap; /* its records' places in the data group's bytes */
    double *time, **values;      /* values: one array per channel (the master's NULL) */
} group;

static void group_free(group *g)
{
    for (size_t i = 0; i < g->nchan; i++) {
        free(g->chans[i].name);
        free(g->chans[i].unit);
        if (g->values)
            free(g->values[i]);
    }
    free(g->chans);
    free(g->values);
    free(g->offsets);
    free(g->time);
}

/* The channels of a channel group (numeric ones; the rest counted). */
static rtcosim_status read_channels(rd *r, uint64_t at, group *g)
{
    size_t steps = 0;
    g->master = -1;
    while (at) {
        blk b;
        rtcosim_status st = block(r, at, "CN", NULL, &b);
        if (st != RTCOSIM_OK)
            return st;
        if (++steps > r->n / 24 || b.size < 24 || b.nlinks < 8)
            return fail(r, steps > r->n / 24 ? "a loop in a channel list" : "a short CN block",
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
        if ((c.type == 0 || c.type == 2 || c.type == 3 || c.type == 6) && !link_at(&b, 1) &&
            (numeric || c.type == 3 || c.type == 6) && fits && inval_fits) {
            c.name = text_of(r, link_at(&b, 2));
            c.unit = text_of(r, link_at(&b, 6));
            read_conversion(r, link_at(&b, 4), &c.cc, &c.unit);
            chan *grown = realloc(g->chans, (g->nchan + 1) * sizeof *grown);
            if (!c.name || !grown) {
                free(c.name);
                free(c.unit);
                if (grown)
                    g->chans = grown;
                if (!grown)
                    return rtcosim_error_set(r->err, RTCOSIM_ENOMEM, "%s: out of memory",
                                             r->path);
                r->skipped++; /* a channel without a name */
            } else {
                g->chans = grown;
                if ((c.type == 2 || c.type == 3) && g->master < 0)
                    g->master = (ptrdiff_t)g->nchan;
                g->chans[g->nchan++] = c;
            }
        } else if (c.type != 1 && c.type != 4 && c.type != 5) {
            r->skipped++; /* strings, byte arrays, structures, odd layouts */
        }
        at = link_at(&b, 0);
    }
    return RTCOSIM_OK;
}

static rtcosim_status add_offset(rd *r, group *g, size_t at)
{
    if (g->count == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 1024;
        size_t *p = realloc(g->offsets, cap * sizeof *p);
        if (!p)
            return rtcosim_error_set(r->err, RTCOSIM_ENOMEM, "%s: out of memory", r->path);
        g->offsets = p;
        g->cap = cap;
    }
    g->offsets[g->count++] = at;
    return RTCOSIM_OK;
}

/* The records of a data group's groups g[0..ng) in its bytes. */
static rtcosim_status find_records(rd *r, uint64_t dg_at, uint8_t id_size, group *g, size_t ng,
                                   const bytes *data)
{
    rtcosim_status st = RTCOSIM_OK;
    size_t pos = 0;
    while (st == RTCOSIM_OK && pos < data->len) {
        if (data->len - pos < id_size)
            return fail(r, "its data end inside a record id", dg_at);
        uint64_t id = 0;
        for (size_t i = 0; i < id_size; i++)
            id |= (uint64_t)data->p[pos + i] << (8 * i);
        group *hit = NULL;
        for (size_t k = 0; k < ng && !hit; k++)
            hit = id_size == 0 || g[k].record_id == id ? &g[k] : NULL;
        if (!hit) {
            char what[64];
            snprintf(what, sizeof what, "record id %llu of no channel group",
                     (unsigned long long)id);
            return fail(r, what, dg_at);
        }
        pos += id_size;
        size_t size = (size_t)hit->data_bytes + hit->inval_bytes;
        if (hit->vlsd) {
            if (data->len - pos < 4)
                return fail(r, "its data end inside a variable-length record", dg_at);
            size = 4 + (size_t)le_get32(data->p + pos);
        }
        if (data->len - pos < size)
            break; /* a record cut short at the end: the records before it count */
        if (!hit->vlsd)
            st = add_offset(r, hit, pos);
        if (size == 0 && id_size == 0)
            break; /* records of no bytes: none read */
        pos += size;
    }
    return st;
}

static rtcosim_status group_values(rd *r, group *g, const bytes *data)
{
    g->values = calloc(g->nchan + 1, sizeof *g->values);
    g->time = malloc((g->count ? g->count : 1) * sizeof *g->time);
    if (!g->values || !g->time)
        return rtcosim_error_set(r->err, RTCOSIM_ENOMEM, "%s: out of memory", r->path);
    for (size_t i = 0; i < g->nchan; i++) {
        double *v = (ptrdiff_t)i == g->master ? g->time
                                              : (g->values[i] = malloc((g->count ? g->count : 1) *
                                                                       sizeof(double)));
        if (!v)
            return rtcosim_error_set(r->err, RTCOSIM_ENOMEM, "%s: out of memory", r->path);
        for (size_t k = 0; k < g->count; k++) {
            const uint8_t *rec = data->p + g->offsets[k];
            v[k] = value(&g->chans[i], rec, g->inval_bytes ? rec + g->data_bytes : NULL, k);
        }
    }
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
        return fail(r, "a record id size other than 0, 1, 2, 4 or 8 bytes", at);
    size_t first = *ng, steps = 0;
    for (uint64_t cg_at = link_at(&dg, 1); cg_at && st == RTCOSIM_OK;) {
        blk cg;
        if ((st = block(r, cg_at, "CG", NULL, &cg)) != RTCOSIM_OK)
            break;
        if (++steps > r->n / 24 || cg.size < 32)
            return fail(r, steps > r->n / 24 ? "a loop in a channel group list" : "a short CG"
                        " block", cg_at);
        group *grown = realloc(*groups, (*ng + 1) * sizeof *grown);
        if (!grown)
            return rtcosim_error_set(r->err, RTCOSIM_ENOMEM, "%s: out of memory", r->path);
        *groups = grown;
        group *g = &grown[(*ng)++];
        *g = (group){.record_id = le_get64(cg.data), .vlsd = (cg.data[16] & 1) != 0,
                     .data_bytes = le_get32(cg.data + 24), .inval_bytes = le_get32(cg.data + 28),
                     .master = -1};
        if (!g->vlsd)
            st = read_channels(r, link_at(&cg, 1), g);
        cg_at = link_at(&cg, 0);
    }
    if (st != RTCOSIM_OK)
        return st;
    if (id_size == 0 && *ng - first > 1)
        return fail(r, "several channel groups in a data group without record ids", at);
    bytes data = {0};
    size_t visits = 0;
    st = gather(r, link_at(&dg, 2), &data, 0, &visits);
    if (st == RTCOSIM_OK && *ng > first)
        st = find_records(r, at, id_size, *groups + first, *ng - first, &data);
    for (size_t k = first; st == RTCOSIM_OK && k < *ng; k++)
        st = group_values(r, &(*groups)[k], &data);
    free(data.p);
    return st;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The table: one group's times as they are when they do not decrease, else
 * the union of every group's times (each channel holding its last sample). */
static rtcosim_status build_table(rd *r, group *g, size_t ng, result_table **out)
{
    size_t columns = 0, total = 0, with_master = 0;
    for (size_t k = 0; k < ng; k++) {
        if (g[k].master < 0) {
            r->masterless += g[k].nchan > 0;
            continue;
        }
        with_master++;
        columns += g[k].nchan - 1;
        total += g[k].count;
    }
    if (!with_master)
        return rtcosim_error_set(r->err, RTCOSIM_EFORMAT, "%s: no channel group of numeric"
                                 " channels with a master (time) channel", r->path);
    double *times = malloc((total ? total : 1) * sizeof *times);
    if (!times)
        return rtcosim_error_set(r->err, RTCOSIM_ENOMEM, "%s: out of memory", r->path);
    size_t rows = 0;
    for (size_t k = 0; k < ng; k++)
        for (size_t i = 0; g[k].master >= 0 && i < g[k].count; i++)
            if (!isnan(g[k].time[i]))
                times[rows++] = g[k].time[i];
    bool sorted = with_master == 1;
    for (size_t i = 1; sorted && i < rows; i++)
        sorted = times[i - 1] <= times[i];
    bool direct = sorted && rows == total; /* one group, times in order, none NaN */
    if (!sorted) {
        qsort(times, rows, sizeof *times, compare_double);
        size_t u = 0;
        for (size_t i = 0; i < rows; i++)
            if (u == 0 || times[i] != times[u - 1])
                times[u++] = times[i];
        rows = u;
    }
    if (columns && rows > MDF_MAX_BYTES / sizeof(double) / columns) {
        free(times);
        return rtcosim_error_set(r->err, RTCOSIM_EFORMAT, "%s: %zu channels x %zu time stamps"
                                 " make a table of over 1 GiB", r->path, columns, rows);
    }
    result_table *t = result_table_new(r->path, rows, columns);
    if (!t) {
        free(times);
        return rtcosim_error_set(r->err, RTCOSIM_ENOMEM, "%s: out of memory", r->path);
    }
    memcpy(t->time, times, rows * sizeof *times);
    free(times);
    size_t c = 0;
    bool ok = true;
    for (size_t k = 0; ok && k < ng; k++) {
        if (g[k].master < 0)
            continue;
        if (!t->first_name)
            ok = (t->first_name = strdup(g[k].chans[g[k].master].name)) != NULL;
        for (size_t i = 0; ok && i < g[k].nchan; i++) {
            if ((ptrdiff_t)i == g[k].master)
                continue;
            result_column *col = &t->columns[c++];
            const chan *ch = &g[k].chans[i];
            bool taken = false;
            for (size_t e = 0; e + 1 < c && !taken; e++)
                taken = strcmp(t->columns[e].name, ch->name) == 0;
            size_t len = strlen(ch->name) + 24;
            ok = (col->name = malloc(len)) != NULL &&
                 (!ch->unit || (col->unit = strdup(ch->unit)) != NULL);
            if (ok)
                snprintf(col->name, len, taken ? "%s (group %zu)" : "%s", ch->name, k + 1);
            if (direct) { /* the one group's rows as they are */
                if (ok)
                    memcpy(col->values, g[k].values[i], rows * sizeof(double));
                continue;
            }
            /* hold the group's last sample at or before each time */
            size_t j = 0;
            for (size_t row = 0; ok && row < rows; row++) {
                while (j < g[k].count && !(g[k].time[j] > t->time[row]))
                    j++;
                col->values[row] = j ? g[k].values[i][j - 1] : NAN;
            }
        }
    }
    if (!ok) {
        result_table_free(t);
        return rtcosim_error_set(r->err, RTCOSIM_ENOMEM, "%s: out of memory", r->path);
    }
    *out = t;
    return RTCOSIM_OK;
}

/* The file's identification checked and every data group read. */
static rtcosim_status read_file(rd *r, group **groups, size_t *ng)
{
    const uint8_t *data = r->d;
    size_t size = r->n;
    if (size < 64 || memcmp(data, "MDF     ", 8) != 0) {
        if (size >= 8 && memcmp(data, "UnFinMF ", 8) == 0)
            return rtcosim_error_set(r->err, RTCOSIM_EFORMAT, "%s: an unfinalized MDF file (its"
                                     " recorder did not close it); finalize it first", r->path);
        return rtcosim_error_set(r->err, RTCOSIM_EFORMAT, "%s: not an MDF file (no \"MDF     \""
                                 " identification)", r->path);
    }
    unsigned version = (unsigned)(data[28] | data[29] << 8);
    if (version < 400 || version >= 500) {
        char text[9] = "";
        for (size_t i = 0; i < 8 && data[8 + i] > ' ' && data[8 + i] < 127; i++)
            text[i] = (char)data[8 + i];
        return rtcosim_error_set(r->err, RTCOSIM_EUNSUPPORTED, "%s: MDF version %s (%u): only"
                                 " MDF 4 files are read (convert it, e.g. with asammdf)", r->path,
                                 text, version);
    }
    if (data[60] | data[61] | data[62] | data[63])
        return rtcosim_error_set(r->err, RTCOSIM_EFORMAT, "%s: an unfinalized MDF file (its"
                                 " recorder did not close it); finalize it first", r->path);
    blk hd;
    rtcosim_status st = block(r, 64, "HD", NULL, &hd);
    size_t steps = 0;
    for (uint64_t at = st == RTCOSIM_OK ? link_at(&hd, 0) : 0; at && st == RTCOSIM_OK;) {
        if (++steps > size / 24)
            return fail(r, "a loop in the data group list", at);
        blk dg;
        if ((st = read_data_group(r, at, groups, ng)) == RTCOSIM_OK &&
            (st = block(r, at, "DG", NULL, &dg)) == RTCOSIM_OK)
            at = link_at(&dg, 0);
    }
    return st;
}

static void free_groups(group *groups, size_t ng)
{
    for (size_t k = 0; k < ng; k++)
        group_free(&groups[k]);
    free(groups);
}

rtcosim_status result_table_read_mdf_bytes(const uint8_t *data, size_t size, const char *path,
                                           result_table **out, rtcosim_error *err)
{
    *out = NULL;
    rd r = {.d = data, .n = size, .path = path, .err = err};
    group *groups = NULL;
    size_t ng = 0;
    rtcosim_status st = read_file(&r, &groups, &ng);
    if (st == RTCOSIM_OK)
        st = build_table(&r, groups, ng, out);
    free_groups(groups, ng);
    if (st == RTCOSIM_OK && (r.skipped || r.raw_conversions || r.masterless))
        rtcosim_log(RTCOSIM_LOG_WARNING, "results",
                    "%s: %zu channels left out (not numbers: strings, byte arrays, structures), "
                    "%zu with a conversion other than linear or rational read as raw values, %zu "
                    "channel groups without a master channel left out",
                    path, r.skipped, r.raw_conversions, r.masterless);
    return st;
}

/* The file mapped for fn (size 0 or unmappable: an error). */
static rtcosim_status with_file(const char *path,
                                rtcosim_status (*fn)(const uint8_t *, size_t, void *),
                                void *context, rtcosim_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0) {
        if (fd >= 0)
            close(fd);
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot open the MDF file", path);
    }
    size_t size = (size_t)sb.st_size;
    void *map = size ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    close(fd);
    if (map == MAP_FAILED)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: not an MDF file (%s)", path,
                                 size ? "cannot map it" : "empty");
    rtcosim_status st = fn(map, size, context);
    munmap(map, size);
    return st;
}

typedef struct table_job {
    const char *path;
    result_table **out;
    rtcosim_error *err;
} table_job;

static rtcosim_status table_of(const uint8_t *data, size_t size, void *context)
{
    table_job *j = context;
    return result_table_read_mdf_bytes(data, size, j->path, j->out, j->err);
}

rtcosim_status result_table_read_mdf(const char *path, result_table **out, rtcosim_error *err)
{
    *out = NULL;
    table_job j = {path, out, err};
    return with_file(path, table_of, &j, err);
}

typedef struct print_job {
    const char *path;
    FILE *out;
    rtcosim_error *err;
} print_job;

static rtcosim_status print_of(const uint8_t *data, size_t size, void *context)
{
    print_job *j = context;
    rd r = {.d = data, .n = size, .path = j->path, .err = j->err};
    group *g = NULL;
    size_t ng = 0, channels = 0;
    rtcosim_status st = read_file(&r, &g, &ng);
    if (st != RTCOSIM_OK) {
        free_groups(g, ng);
        return st;
    }
    for (size_t k = 0; k < ng; k++)
        channels += g[k].nchan - (g[k].master >= 0);
    blk hd;
    int64_t start = 0;
    if (block(&r, 64, "HD", NULL, &hd) == RTCOSIM_OK && hd.size >= 8)
        start = (int64_t)le_get64(hd.data);
    time_t secs = (time_t)(start / 1000000000);
    struct tm tm;
    char when[40] = "-";
    if (start > 0 && gmtime_r(&secs, &tm))
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
    char program[9] = "";
    for (size_t i = 0; i < 8 && data[16 + i] >= ' ' && data[16 + i] < 127; i++)
        program[i] = (char)data[16 + i];
    for (size_t i = strlen(program); i > 0 && program[i - 1] == ' '; i--)
        program[i - 1] = '\0';
    fprintf(j->out, "%-20s %s (MDF %.4s, written by %s)\n%-20s %s\n%-20s %zu, %zu numeric "
            "channels", "measurement", j->path, (const char *)data + 8, program, "start", when,
            "channel groups", ng, channels);
    if (r.skipped || r.raw_conversions)
        fprintf(j->out, " (%zu more left out: not numbers; %zu with raw values: a conversion"
                " other than linear or rational)", r.skipped, r.raw_conversions);
    fprintf(j->out, "\n\n%-5s %8s %-25s %-32s %-8s %12s %12s %s\n", "group", "records",
            "master: from .. to", "channel", "unit", "min", "max", "invalid");
    for (size_t k = 0; k < ng; k++) {
        char span[64] = "(no master: left out)";
        if (g[k].master >= 0 && g[k].count)
            snprintf(span, sizeof span, "%.6g .. %.6g %s", g[k].time[0],
                     g[k].time[g[k].count - 1], g[k].chans[g[k].master].unit
                                                    ? g[k].chans[g[k].master].unit : "");
        for (size_t i = 0; i < g[k].nchan; i++) {
            if ((ptrdiff_t)i == g[k].master)
                continue;
            double lo = INFINITY, hi = -INFINITY;
            size_t invalid = 0;
            for (size_t n = 0; n < g[k].count; n++) {
                double v = g[k].values[i][n];
                invalid += isnan(v);
                lo = v < lo ? v : lo;
                hi = v > hi ? v : hi;
            }
            fprintf(j->out, "%-5zu %8zu %-25s %-32s %-8s %12.6g %12.6g %zu\n", k + 1, g[k].count,
                    span, g[k].chans[i].name, g[k].chans[i].unit ? g[k].chans[i].unit : "-",
                    lo, hi, invalid);
        }
    }
    free_groups(g, ng);
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_results_print_mdf(const char *path, FILE *out, rtcosim_error *err)
{
    print_job j = {path, out, err};
    return with_file(path, print_of, &j, err);
}
