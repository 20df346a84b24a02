/* CAN bus logs read from ASAM MDF 4 files (mdf_bus.h), a data block at a
 * time. The MDF 4 reader in bus mode (mdf_read_internal.h, rd.bus) gives
 * the channel groups' layout (structures as their components, byte arrays
 * fixed or variable-length in SD blocks or a VLSD channel group); the
 * records are walked here block by block, sorted or unsorted data groups,
 * DT and DZ blocks through DL and HL lists: every group with a
 * CAN_DataFrame.ID or CAN_RemoteFrame.ID channel is a source of frames; an
 * ID's bit 31 (set by some loggers for an extended identifier) counts as
 * IDE, as does an identifier above 0x7FF.
 *
 * What is held at once: per source the block being read (inflated when
 * deflated), a record that spans two blocks, and the variable-length bytes
 * its records point into from the lowest offset still to come (all of them
 * once a record points back, which writers do not do). So a log of any
 * length reads in the memory of a few blocks; the whole-file reader of
 * measurements (mdf_read.c) stays bounded at 1 GiB per data group. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/mdf_bus.h"
#include "results/mdf_read_internal.h"
#include "util/le.h"

/* ---- the variable-length bytes a byte-array channel points into ---- */

typedef struct vstream {
    const group *vg; /* a VLSD channel group's records (NULL: SD blocks) */
    mdf_recs rc;
    mdf_seq sd;
    bytes win;          /* the stream's bytes [base, base + win.len) */
    uint64_t base;
    bool keep_all;      /* a record pointed back: keep every byte from the start */
} vstream;

static void vs_rewind(vstream *v)
{
    if (v->vg)
        mdf_recs_rewind(&v->rc);
    else
        mdf_seq_rewind(&v->sd);
    v->win.len = 0;
    v->base = 0;
}

/* The stream's bytes [at, at + n) at *p; *p NULL when the stream ends before. */
static rtcosim_status vs_need(rd *r, vstream *v, uint64_t at, uint64_t n, const uint8_t **p)
{
    *p = NULL;
    if (n > UINT64_MAX - at)
        return RTCOSIM_OK;
    if (at < v->base) { /* back: from the start again, and keep what is read */
        v->keep_all = true;
        vs_rewind(v);
    }
    uint64_t drop = at - v->base < v->win.len ? at - v->base : v->win.len;
    if (!v->keep_all && drop >= 65536 && drop * 2 >= v->win.len) {
        memmove(v->win.p, v->win.p + drop, v->win.len - drop);
        v->win.len -= drop;
        v->base += drop;
    }
    rtcosim_status st = RTCOSIM_OK;
    while (v->base + v->win.len < at + n) {
        const uint8_t *q;
        size_t got;
        if (v->vg) {
            const group *hit;
            int k;
            while ((k = mdf_recs_next(&v->rc, &hit, &q, &got, &st)) > 0 && hit != v->vg)
                ;
            if (k < 0)
                return st;
            if (k == 0)
                return RTCOSIM_OK;
            uint8_t len[4];
            le_put32(len, (uint32_t)got);
            if ((st = mdf_append(r, &v->win, len, 4)) != RTCOSIM_OK)
                return st;
        } else {
            if ((st = mdf_seq_some(&v->sd, (size_t)1 << 20, &q, &got)) != RTCOSIM_OK)
                return st;
            if (got == 0)
                return RTCOSIM_OK;
        }
        if ((st = mdf_append(r, &v->win, q, got)) != RTCOSIM_OK)
            return st;
        if (!v->keep_all && at - v->base > v->win.len) { /* far ahead: nothing to keep yet */
            v->base += v->win.len;
            v->win.len = 0;
        }
    }
    *p = v->win.p + (at - v->base);
    return RTCOSIM_OK;
}

/* ---- sources of frames: the CAN_DataFrame and CAN_RemoteFrame groups ---- */

/* (loggers write a few per data group: data, remote and error frames per bus) */
#define MAX_SOURCES_PER_DG 256
#define MAX_SOURCES_TEXT "256"

typedef struct source {
    const group *g;
    size_t index; /* the group's place among the file's groups (from 0) */
    bool remote;
    ptrdiff_t id, ide, bus, dlc, len, bytes, edl, brs, esi;
    mdf_recs rc;
    vstream vs;
    bool has_vs;
    size_t k;           /* records of the group read (the index of virtual channels) */
    size_t valid, base; /* its frames so far; the frames of the sources before it */
    mdf_can_frame f;    /* the frame last read */
    int64_t key;        /* its time in ns, as a log keeps it (the order of the merge) */
    uint8_t data[64];
} source;

/* The channel STRUCTURE.FIELD of g, or -1. */
static ptrdiff_t field_of(const group *g, const char *structure, const char *field)
{
    size_t n = strlen(structure);
    for (size_t i = 0; i < g->nchan; i++) {
        const char *name = g->chans[i].name;
        if (strncmp(name, structure, n) == 0 && name[n] == '.' && strcmp(name + n + 1, field) == 0)
            return (ptrdiff_t)i;
    }
    return -1;
}

/* Does g hold channels of a structure of this name? */
static bool has_structure(const group *g, const char *structure)
{
    size_t n = strlen(structure);
    for (size_t i = 0; i < g->nchan; i++)
        if (strncmp(g->chans[i].name, structure, n) == 0 && g->chans[i].name[n] == '.')
            return true;
    return false;
}

/* The groups of g's data group: g[first, last). */
static void data_group_of(const group *g, size_t ng, size_t k, size_t *first, size_t *last)
{
    *first = k;
    while (*first > 0 && g[*first - 1].dg_at == g[k].dg_at)
        (*first)--;
    *last = k + 1;
    while (*last < ng && g[*last].dg_at == g[k].dg_at)
        (*last)++;
}

static rtcosim_status source_open(rd *r, source *s, const group *all, size_t ng, size_t k,
                                  bool remote)
{
    const group *g = &all[k];
    const char *name = remote ? "CAN_RemoteFrame" : "CAN_DataFrame";
    *s = (source){.g = g, .index = k, .remote = remote, .id = field_of(g, name, "ID"),
                  .ide = field_of(g, name, "IDE"), .bus = field_of(g, name, "BusChannel"),
                  .dlc = field_of(g, name, "DLC"), .len = field_of(g, name, "DataLength"),
                  .bytes = field_of(g, name, "DataBytes"), .edl = field_of(g, name, "EDL"),
                  .brs = field_of(g, name, "BRS"), .esi = field_of(g, name, "ESI")};
    if (g->master < 0)
        return rtcosim_error_set(r->err, RTCOSIM_EFORMAT, "%s: channel group %zu (%s): no time"
                                 " (master) channel", r->path, k + 1, name);
    if (s->id >= 0 && g->chans[s->id].raw)
        s->id = -1;
    if (s->bytes >= 0 && (remote || !g->chans[s->bytes].raw))
        s->bytes = -1;
    if (s->id < 0 || (!remote && s->bytes < 0 && s->len < 0 && s->dlc < 0))
        return rtcosim_error_set(r->err, RTCOSIM_EFORMAT, "%s: channel group %zu: %s without %s",
                                 r->path, k + 1, name, s->id < 0 ? "a numeric ID" : "DataBytes");
    size_t first, last;
    data_group_of(all, ng, k, &first, &last);
    rtcosim_status st = mdf_recs_open(&s->rc, r, all + first, last - first);
    if (st != RTCOSIM_OK || s->bytes < 0 || g->chans[s->bytes].raw != 2)
        return st;
    /* variable-length DataBytes: a VLSD channel group of the same data
     * group, or SD blocks */
    const chan *c = &g->chans[s->bytes];
    s->has_vs = true;
    for (size_t j = first; j < last && !s->vs.vg; j++)
        if (all[j].at == c->data_link && all[j].vlsd)
            s->vs.vg = &all[j];
    if (s->vs.vg)
        return mdf_recs_open(&s->vs.rc, r, all + first, last - first);
    char kind[4] = "";
    if (c->data_link < r->n && r->n - c->data_link >= 4)
        memcpy(kind, r->d + c->data_link, 4);
    if (memcmp(kind, "##CG", 4) == 0)
        return mdf_fail(r, "a VLSD channel group not in its channel's data group", c->data_link);
    return mdf_seq_open(&s->vs.sd, r, c->data_link);
}

static void source_free(source *s)
{
    mdf_seq_free(&s->rc.s);
    if (s->vs.vg)
        mdf_seq_free(&s->vs.rc.s);
    else
        mdf_seq_free(&s->vs.sd);
    free(s->vs.win.p);
}

static void source_rewind(source *s)
{
    mdf_recs_rewind(&s->rc);
    if (s->has_vs) {
        vs_rewind(&s->vs);
        s->vs.keep_all = false;
    }
    s->k = s->valid = 0;
}

/* A numeric field's value in the record (missing, or invalid: dflt). */
static double num(const source *s, ptrdiff_t i, const uint8_t *rec, double dflt)
{
    const group *g = s->g;
    if (i < 0 || g->chans[i].raw)
        return dflt;
    double v = mdf_value(&g->chans[i], rec, g->inval_bytes ? rec + g->data_bytes : NULL, s->k);
    return isnan(v) ? dflt : v;
}

/* A field's value as a whole number in [0, most] (below: 0, above: most). */
static uint64_t whole(const source *s, ptrdiff_t i, const uint8_t *rec, uint64_t most)
{
    double v = num(s, i, rec, 0);
    return !(v > 0) ? 0 : v >= (double)most ? most : (uint64_t)v;
}

/* The record's frame into s->f: 1, 0 for an invalid record (no time or
 * identifier), -1 on an error (*st). */
static int decode(rd *r, source *s, const uint8_t *rec, rtcosim_status *st)
{
    const group *g = s->g;
    size_t k = s->k + 1; /* (the record's number in errors) */
    double t = num(s, g->master, rec, NAN), raw_id = num(s, s->id, rec, NAN);
    if (isnan(t) || isnan(raw_id))
        return 0;
    if (!(raw_id >= 0 && raw_id <= 0xFFFFFFFF)) {
        *st = rtcosim_error_set(r->err, RTCOSIM_EFORMAT, "%s: channel group %zu, record %zu: ID "
                                "%g is no identifier", r->path, s->index + 1, k, raw_id);
        return -1;
    }
    uint64_t idv = (uint64_t)raw_id;
    mdf_can_frame f = {.time = t, .has_channel = s->bus >= 0,
                       .channel = (unsigned)whole(s, s->bus, rec, 255),
                       .id = (uint32_t)(idv & 0x1FFFFFFFu), .remote = s->remote,
                       .fd = num(s, s->edl, rec, 0) != 0,
                       .dlc = (uint8_t)whole(s, s->dlc, rec, 15)};
    f.extended = num(s, s->ide, rec, 0) != 0 || (idv >> 31 & 1) || f.id > 0x7FF;
    f.brs = f.fd && num(s, s->brs, rec, 0) != 0;
    f.esi = f.fd && num(s, s->esi, rec, 0) != 0;
    uint32_t have = 0;
    const uint8_t *bytes = NULL;
    if (s->bytes >= 0) {
        const chan *c = &g->chans[s->bytes];
        bytes = rec + c->byte_offset;
        have = c->bits / 8;
        if (c->raw == 2) {
            uint64_t at = le_get64(bytes);
            const uint8_t *p;
            if ((*st = vs_need(r, &s->vs, at, 4, &p)) != RTCOSIM_OK)
                return -1;
            if (p) {
                have = le_get32(p);
                if ((*st = vs_need(r, &s->vs, at, 4 + (uint64_t)have, &p)) != RTCOSIM_OK)
                    return -1;
            }
            if (!p) {
                *st = rtcosim_error_set(r->err, RTCOSIM_EFORMAT, "%s: channel '%s': record %zu"
                                        " points past its variable-length data", r->path,
                                        c->name, k);
                return -1;
            }
            bytes = p + 4;
        }
    }
    if (s->len >= 0)
        f.length = (uint32_t)whole(s, s->len, rec, UINT32_MAX);
    else if (s->bytes >= 0 && !f.fd && s->dlc < 0)
        f.length = have;
    else if (f.fd)
        f.length = f.dlc <= 8 ? f.dlc : f.dlc >= 15 ? 64
                                           : (uint32_t[]){12, 16, 20, 24, 32, 48}[f.dlc - 9];
    else
        f.length = f.dlc < 8 ? f.dlc : 8;
    if (s->remote)
        f.length = 0;
    if (f.length > have && !s->remote) {
        *st = rtcosim_error_set(r->err, RTCOSIM_EFORMAT, "%s: channel group %zu, record %zu: %u "
                                "data bytes but DataBytes holds %u", r->path, s->index + 1, k,
                                (unsigned)f.length, (unsigned)have);
        return -1;
    }
    if (bytes)
        memcpy(s->data, bytes, have < sizeof s->data ? have : sizeof s->data);
    f.data = bytes ? s->data : NULL;
    s->f = f;
    return 1;
}

/* The source's next frame into s->f: 1, 0 at its end, -1 on an error (*st). */
static int source_next(rd *r, source *s, rtcosim_status *st)
{
    for (;;) {
        const group *hit;
        const uint8_t *rec;
        size_t size;
        int n = mdf_recs_next(&s->rc, &hit, &rec, &size, st);
        if (n <= 0)
            return n;
        if (hit != s->g)
            continue;
        int d = decode(r, s, rec, st);
        s->k++;
        if (d < 0)
            return -1;
        if (d > 0) {
            s->f.number = s->base + ++s->valid;
            double t = s->f.time;
            s->key = t > -9.2e9 && t < 9.2e9 ? llround(t * 1e9) : t < 0 ? INT64_MIN : INT64_MAX;
            return 1;
        }
    }
}

/* Does the group hold any record? */
static rtcosim_status has_records(rd *r, const group *all, size_t ng, size_t k, bool *any)
{
    size_t first, last;
    data_group_of(all, ng, k, &first, &last);
    mdf_recs c;
    rtcosim_status st = mdf_recs_open(&c, r, all + first, last - first);
    const group *hit = NULL;
    const uint8_t *p;
    size_t size;
    int n = 0;
    while (st == RTCOSIM_OK && (n = mdf_recs_next(&c, &hit, &p, &size, &st)) > 0 && hit != &all[k])
        ;
    *any = n > 0;
    mdf_seq_free(&c.s);
    return st;
}

/* ---- the order of the frames ---- */

/* The first pass of by_time: every frame read (and checked), each source's
 * counted; *ordered: each source's frames in time order (to the ns, as a log
 * keeps them: frames apart by less sort as the log's sort would, by number). */
static rtcosim_status first_pass(rd *r, source *src, size_t ns, mdf_bus_info *info,
                                 bool *ordered)
{
    rtcosim_status st = RTCOSIM_OK;
    *ordered = true;
    size_t base = 0;
    for (size_t i = 0; i < ns && *ordered; i++) {
        source *s = &src[i];
        int64_t last = INT64_MIN;
        int n;
        while ((n = source_next(r, s, &st)) > 0) {
            if (s->key < last) {
                *ordered = false;
                break;
            }
            last = s->key;
            info->channel_zero = info->channel_zero || (s->f.has_channel && s->f.channel == 0);
        }
        if (n < 0)
            return st;
        s->base = base;
        base += s->valid;
    }
    info->frames = base;
    for (size_t i = 0; i < ns; i++)
        source_rewind(&src[i]);
    return RTCOSIM_OK;
}

/* Does source a's frame come before b's? (ties: the earlier group) */
static bool before(const source *a, const source *b)
{
    return a->key < b->key || (a->key == b->key && a->index < b->index);
}

static void sift_down(source **h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && before(h[l], h[m]))
            m = l;
        if (l + 1 < n && before(h[l + 1], h[m]))
            m = l + 1;
        if (m == i)
            return;
        source *t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

/* Every source's frames merged in time order. */
static rtcosim_status merge(rd *r, source *src, size_t ns,
                            rtcosim_status (*fn)(void *, const mdf_can_frame *, rtcosim_error *),
                            void *context)
{
    source **h = malloc((ns ? ns : 1) * sizeof *h);
    if (!h)
        return mdf_oom(r);
    rtcosim_status st = RTCOSIM_OK;
    size_t n = 0;
    for (size_t i = 0; i < ns; i++) {
        int k = source_next(r, &src[i], &st);
        if (k < 0)
            break;
        if (k > 0)
            h[n++] = &src[i];
    }
    for (size_t i = n / 2; st == RTCOSIM_OK && i-- > 0;)
        sift_down(h, n, i);
    while (st == RTCOSIM_OK && n) {
        if ((st = fn(context, &h[0]->f, r->err)) != RTCOSIM_OK)
            break;
        int k = source_next(r, h[0], &st);
        if (k < 0)
            break;
        if (k == 0)
            h[0] = h[--n];
        sift_down(h, n, 0);
    }
    free(h);
    return st;
}

/* Every source's frames, one source after another. */
static rtcosim_status in_group_order(rd *r, source *src, size_t ns,
                                     rtcosim_status (*fn)(void *, const mdf_can_frame *,
                                                          rtcosim_error *),
                                     void *context)
{
    rtcosim_status st = RTCOSIM_OK;
    size_t base = 0;
    for (size_t i = 0; i < ns; i++) {
        src[i].base = base;
        int k;
        while ((k = source_next(r, &src[i], &st)) > 0)
            if ((st = fn(context, &src[i].f, r->err)) != RTCOSIM_OK)
                return st;
        if (k < 0)
            return st;
        base += src[i].valid;
    }
    return RTCOSIM_OK;
}

static rtcosim_status attached_database(rd *r, mdf_bus_info *info)
{
    bytes dbc = {0};
    rtcosim_status st = mdf4_attachment(r, ".dbc", &dbc, &info->database_name);
    if (st == RTCOSIM_OK && info->database_name) {
        if ((st = mdf_append(r, &dbc, (const uint8_t *)"", 1)) == RTCOSIM_OK) { /* (its NUL) */
            info->database = (char *)dbc.p;
            info->database_size = dbc.len - 1;
            dbc.p = NULL;
        }
    }
    free(dbc.p);
    if (st != RTCOSIM_OK) {
        free(info->database_name);
        info->database_name = NULL;
    }
    return st;
}

rtcosim_status mdf_bus_database(const uint8_t *data, size_t size, const char *path,
                                mdf_bus_info *info, rtcosim_error *err)
{
    *info = (mdf_bus_info){0};
    if (size < 64 || (memcmp(data, "MDF     ", 8) != 0 && memcmp(data, "UnFinMF ", 8) != 0) ||
        (unsigned)(data[28] | data[29] << 8) / 100 != 4)
        return RTCOSIM_OK; /* (not MDF 4: no attachments) */
    rd r = {.d = data, .n = size, .path = path, .err = err, .bus = true};
    return attached_database(&r, info);
}

rtcosim_status mdf_bus_read(const uint8_t *data, size_t size, const char *path, bool by_time,
                            rtcosim_status (*fn)(void *context, const mdf_can_frame *frame,
                                                 rtcosim_error *err),
                            void *context, mdf_bus_info *info, rtcosim_error *err)
{
    *info = (mdf_bus_info){0};
    if (size >= 64 && memcmp(data, "MDF     ", 8) == 0) {
        unsigned version = (unsigned)(data[28] | data[29] << 8);
        if (version >= 300 && version < 400)
            return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "%s: an MDF 3 file: CAN bus "
                                     "logs are read from MDF 4 files (MDF 3 has no bus-logging "
                                     "layout)", path);
    }
    rd r = {.d = data, .n = size, .path = path, .err = err, .bus = true};
    group *g = NULL;
    size_t ng = 0, ns = 0;
    source *src = NULL;
    rtcosim_status st = mdf_read_groups(&r, &g, &ng);
    if (st == RTCOSIM_OK && !(src = calloc(ng ? ng : 1, sizeof *src)))
        st = mdf_oom(&r);
    for (size_t k = 0; st == RTCOSIM_OK && k < ng; k++) {
        if (g[k].vlsd)
            continue;
        bool remote = has_structure(&g[k], "CAN_RemoteFrame");
        if (has_structure(&g[k], "CAN_DataFrame") || remote) {
            /* each group walks its data group's records on its own: a bound,
             * so that a file of many groups cannot make the walks endless */
            size_t same = 0;
            for (size_t j = 0; j < ns; j++)
                same += src[j].g->dg_at == g[k].dg_at;
            if (same == MAX_SOURCES_PER_DG) {
                st = mdf_fail(&r, "more than " MAX_SOURCES_TEXT " channel groups of CAN frames in"
                              " one data group", g[k].dg_at);
                break;
            }
            st = source_open(&r, &src[ns], g, ng, k, remote);
            ns++; /* (freed with the others whatever it holds) */
        }
    }
    info->start_ns = r.start_ns;
    /* (the database before the frames: a reader has it at the first) */
    if (st == RTCOSIM_OK)
        st = attached_database(&r, info);
    bool ordered = false;
    if (st == RTCOSIM_OK && by_time)
        st = first_pass(&r, src, ns, info, &ordered);
    info->by_time = ordered;
    if (st == RTCOSIM_OK)
        st = ordered ? merge(&r, src, ns, fn, context) : in_group_order(&r, src, ns, fn, context);
    size_t frames = 0;
    for (size_t i = 0; i < ns; i++)
        frames += src[i].k;
    for (size_t k = 0; st == RTCOSIM_OK && !frames && !info->error_frames && k < ng; k++)
        if (!g[k].vlsd && has_structure(&g[k], "CAN_ErrorFrame"))
            st = has_records(&r, g, ng, k, &info->error_frames);
    for (size_t i = 0; i < ns; i++)
        source_free(&src[i]);
    free(src);
    mdf_groups_free(g, ng);
    if (st == RTCOSIM_OK && !frames && !info->error_frames)
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: an MDF file without CAN frames (no "
                               "channel group of CAN_DataFrame records: not a CAN bus log)", path);
    if (st == RTCOSIM_OK) /* (a measurement read as a log first says nothing twice) */
        mdf_warn_unfinalized(&r);
    return st;
}
