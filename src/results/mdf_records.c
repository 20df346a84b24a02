/* The records of an MDF 4 data group read a data block at a time
 * (mdf_read_internal.h): the bytes of its DT, DZ (inflated when reached)
 * and listed blocks in order, a record that spans two blocks copied, so
 * that a data group of any size reads in the memory of one block (an MDF 3
 * data group's records are one piece of the file, walked as one block).
 * For the bus logs (mdf_bus_read.c), `info` of a measurement (mdf_info.c)
 * and its table (mdf_table.c: mdf_walk_values below). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/mdf_read_internal.h"
#include "util/le.h"
#include "util/pages.h"

rtcosim_status mdf_seq_open(mdf_seq *s, rd *r, uint64_t link)
{
    *s = (mdf_seq){.r = r};
    rtcosim_status st = mdf4_data_blocks(r, link, &s->list);
    uint64_t plain = 0;
    for (size_t i = 0; st == RTCOSIM_OK && i < s->list.count; i++)
        if (!s->list.blocks[i].dz && (plain += s->list.blocks[i].size) > r->n)
            st = mdf_fail(r, "a data list whose blocks hold more than the file (a data block "
                          "used twice?)", link);
    return st;
}

void mdf_seq_rewind(mdf_seq *s)
{
    s->next = 0;
    s->cur = NULL;
    s->plain = false;
    s->len = s->pos = s->given = 0;
    s->inflated = 0;
}

void mdf_seq_free(mdf_seq *s)
{
    free(s->list.blocks);
    free(s->dz.p);
    free(s->carry.p);
    *s = (mdf_seq){0};
}

/* The pages of the open block (in the mapped file) below `upto` given
 * back: walked past, they would stay resident, and a walk of a big file
 * would hold the file; needed again, they come back from the page cache. */
static void give_back(mdf_seq *s, size_t upto)
{
    if (!s->r->mapped || !s->plain || upto <= s->given)
        return;
    util_release_pages(s->cur + s->given, s->cur + upto);
    s->given = upto;
}

/* Every 8 MiB walked in a block: its pages given back. */
static inline void walked(mdf_seq *s)
{
    if (s->pos - s->given >= ((size_t)8 << 20))
        give_back(s, s->pos);
}

/* Open the next block that holds bytes (*more false: none is left). */
static rtcosim_status mdf_seq_next_block(mdf_seq *s, bool *more)
{
    *more = false;
    give_back(s, s->len); /* (the block walked: no piece of it is in use) */
    while (s->next < s->list.count) {
        const mdf_block_ref *b = &s->list.blocks[s->next++];
        if (b->dz) {
            s->dz.len = 0;
            rtcosim_status st = mdf4_block_bytes(s->r, b, &s->dz);
            if (st != RTCOSIM_OK)
                return st;
            /* deflate packs at most 1032 bytes in one */
            if ((s->inflated += s->dz.len) / 1100 > s->r->n)
                return mdf_fail(s->r, "a data list that inflates to more than the file can hold"
                                " (a data block used twice?)", b->at);
            s->cur = s->dz.p;
            s->len = s->dz.len;
        } else {
            s->cur = b->data;
            s->len = b->size;
        }
        s->plain = !b->dz;
        s->pos = s->given = 0;
        if (s->len) {
            *more = true;
            return RTCOSIM_OK;
        }
    }
    return RTCOSIM_OK;
}

/* Have the data ended? */
static rtcosim_status mdf_seq_at_end(mdf_seq *s, bool *end)
{
    bool more = true;
    rtcosim_status st = s->pos == s->len ? mdf_seq_next_block(s, &more) : RTCOSIM_OK;
    *end = !more;
    return st;
}

/* Up to `most` bytes from where the reader is, from one block (*got 0: the
 * data have ended). */
rtcosim_status mdf_seq_some(mdf_seq *s, size_t most, const uint8_t **p, size_t *got)
{
    *got = 0;
    walked(s);
    if (s->pos == s->len) {
        bool more;
        rtcosim_status st = mdf_seq_next_block(s, &more);
        if (st != RTCOSIM_OK || !more)
            return st;
    }
    size_t n = s->len - s->pos < most ? s->len - s->pos : most;
    *p = s->cur + s->pos;
    s->pos += n;
    *got = n;
    return RTCOSIM_OK;
}

/* The next n bytes in one piece (*p valid until the next call); *got < n:
 * the data ended after *got of them. */
rtcosim_status mdf_seq_take(mdf_seq *s, size_t n, const uint8_t **p, size_t *got)
{
    walked(s);
    if (s->len - s->pos >= n) {
        *p = s->cur ? s->cur + s->pos : (const uint8_t *)"";
        s->pos += n;
        *got = n;
        return RTCOSIM_OK;
    }
    s->carry.len = 0;
    while (s->carry.len < n) {
        const uint8_t *q;
        size_t k;
        rtcosim_status st = mdf_seq_some(s, n - s->carry.len, &q, &k);
        if (st == RTCOSIM_OK && k)
            st = mdf_append(s->r, &s->carry, q, k);
        if (st != RTCOSIM_OK)
            return st;
        if (!k)
            break;
    }
    *p = s->carry.p ? s->carry.p : (const uint8_t *)"";
    *got = s->carry.len;
    return RTCOSIM_OK;
}

/* ---- the records of a data group, one at a time ---- */

rtcosim_status mdf_recs_open(mdf_recs *c, rd *r, const group *groups, size_t ng)
{
    *c = (mdf_recs){.groups = groups, .ng = ng};
    if (!groups[0].mdf3)
        return mdf_seq_open(&c->s, r, groups[0].data_link);
    /* MDF 3: the records in one piece of the file (bounded by mdf3_read.c) */
    c->s = (mdf_seq){.r = r};
    if (!groups[0].data_len)
        return RTCOSIM_OK;
    if (!(c->s.list.blocks = malloc(sizeof *c->s.list.blocks)))
        return mdf_oom(r);
    c->s.list.blocks[0] = (mdf_block_ref){.at = groups[0].data_link,
                                          .data = r->d + groups[0].data_link,
                                          .size = (size_t)groups[0].data_len};
    c->s.list.count = c->s.list.cap = 1;
    return RTCOSIM_OK;
}

void mdf_recs_rewind(mdf_recs *c)
{
    mdf_seq_rewind(&c->s);
    c->done = false;
}

/* The next record: its group (*hit) and bytes (*p, valid until the next
 * call; a VLSD record's bytes after its length); 0 at the end (a record
 * cut short ends the records), -1 on an error (*st). */
int mdf_recs_next(mdf_recs *c, const group **hit, const uint8_t **p, size_t *size,
                     rtcosim_status *st)
{
    rd *r = c->s.r;
    uint8_t id_size = c->groups[0].id_size;
    uint64_t dg = c->groups[0].dg_at;
    const uint8_t *q;
    size_t got;
    if (c->done)
        return 0;
    uint64_t id = 0;
    if (id_size) {
        if ((*st = mdf_seq_take(&c->s, id_size, &q, &got)) != RTCOSIM_OK)
            return -1;
        if (got == 0) {
            c->done = true;
            return 0;
        }
        if (got < id_size) {
            *st = mdf_fail(r, "its data end inside a record id", dg);
            return -1;
        }
        for (size_t i = 0; i < id_size; i++)
            id |= (uint64_t)q[i] << (8 * i);
    } else {
        bool end;
        if ((*st = mdf_seq_at_end(&c->s, &end)) != RTCOSIM_OK)
            return -1;
        if (end) {
            c->done = true;
            return 0;
        }
    }
    const group *h = NULL;
    for (size_t k = 0; k < c->ng && !h; k++)
        h = id_size == 0 || c->groups[k].record_id == id ? &c->groups[k] : NULL;
    if (!h) {
        char what[64];
        snprintf(what, sizeof what, "record id %llu of no channel group", (unsigned long long)id);
        *st = mdf_fail(r, what, dg);
        return -1;
    }
    size_t n = (size_t)h->data_bytes + h->inval_bytes + (h->id_after ? id_size : 0);
    if (h->vlsd) {
        if ((*st = mdf_seq_take(&c->s, 4, &q, &got)) != RTCOSIM_OK)
            return -1;
        if (got < 4) {
            *st = mdf_fail(r, "its data end inside a variable-length record", dg);
            return -1;
        }
        n = le_get32(q);
    }
    if ((*st = mdf_seq_take(&c->s, n, &q, &got)) != RTCOSIM_OK)
        return -1;
    if (got < n) {
        c->done = true; /* cut short at the end: the records before it count */
        return 0;
    }
    if (n == 0 && id_size == 0)
        c->done = true; /* records of no bytes: this one read */
    *hit = h;
    *p = q;
    *size = n;
    return 1;
}

/* ---- the values of the groups read ---- */

/* The most records a data group's bytes can hold for g (its records
 * stride bytes apart, id included): what its arrays are first sized to at
 * most, whatever its CG block says. */
static uint64_t most_records(const mdf_recs *c, const group *g)
{
    uint64_t bytes = 0;
    for (size_t i = 0; i < c->s.list.count; i++) {
        const mdf_block_ref *b = &c->s.list.blocks[i];
        /* a DZ block's inflated size (its header's, bounded when inflated) */
        bytes += b->dz ? (b->size >= 24 ? le_get64(b->data + 8) % ((uint64_t)1 << 40) : 0)
                       : b->size;
    }
    uint64_t stride = (uint64_t)g->data_bytes + g->inval_bytes +
                      (uint64_t)g->id_size * (g->id_after ? 2 : 1);
    return stride ? bytes / stride : 1;
}

/* Room for g's next record: its arrays sized to `want` records. */
static rtcosim_status room(rd *r, group *g, size_t want)
{
    if (g->master >= 0) {
        double *p = realloc(g->time, want * sizeof *p);
        if (!p)
            return mdf_oom(r);
        g->time = p;
    }
    for (size_t i = 0; i < g->nchan; i++) {
        if (!g->values[i])
            continue;
        double *p = realloc(g->values[i], want * sizeof *p);
        if (!p)
            return mdf_oom(r);
        g->values[i] = p;
    }
    g->cap = want;
    return RTCOSIM_OK;
}

/* Held values past a table's bound (1 GiB of doubles)? */
static rtcosim_status too_many(rd *r, const group *g, size_t wanted)
{
    return rtcosim_error_set(r->err, RTCOSIM_EFORMAT, "%s: %zu channels x over %zu records of "
                             "the channel group at %llu make a table of over 1 GiB (read fewer "
                             "channels)", r->path, wanted, g->count,
                             (unsigned long long)g->at);
}

/* A group's room grown from cap to want records of `more` values each
 * (and a time), within a table's bound: its cells held by all groups
 * (*cells, added to) and its time stamps 1 GiB at most; cap when there is
 * none left. */
static size_t grown(uint64_t *cells, size_t more, size_t cap, size_t want)
{
    const uint64_t most = MDF_MAX_BYTES / sizeof(double);
    if (want > most)
        want = (size_t)most;
    if (more && (uint64_t)(want - cap) * more > most - *cells)
        want = cap + (size_t)((most - *cells) / more);
    *cells += (uint64_t)(want - cap) * more;
    return want;
}

/* One data group's records walked into its read groups g[0..ng). */
static rtcosim_status walk_data_group(rd *r, group *g, size_t ng, uint64_t *cells)
{
    mdf_recs c;
    rtcosim_status st = mdf_recs_open(&c, r, g, ng);
    /* per group its wanted channels' count and indexes (which[k][0..)):
     * a record decodes those, not a test per channel of the group */
    size_t *wanted = st == RTCOSIM_OK ? calloc(ng, sizeof *wanted) : NULL;
    size_t **which = st == RTCOSIM_OK ? calloc(ng, sizeof *which) : NULL;
    if (st == RTCOSIM_OK && (!wanted || !which))
        st = mdf_oom(r);
    for (size_t k = 0; st == RTCOSIM_OK && k < ng; k++) {
        if (!g[k].read)
            continue;
        if (!(g[k].values = calloc(g[k].nchan + 1, sizeof *g[k].values)) ||
            !(which[k] = malloc((g[k].nchan + 1) * sizeof *which[k])))
            st = mdf_oom(r);
        for (size_t i = 0; st == RTCOSIM_OK && i < g[k].nchan; i++) {
            if (!g[k].chans[i].want || (ptrdiff_t)i == g[k].master)
                continue;
            which[k][wanted[k]++] = i;
            if (!(g[k].values[i] = malloc(sizeof(double))))
                st = mdf_oom(r);
        }
        /* sized once for the records the CG block counts, when its data
         * can hold them (and the table's bound allows) */
        uint64_t most = most_records(&c, &g[k]), first = g[k].cycles < most ? g[k].cycles : most;
        size_t cap = grown(cells, wanted[k], 0, first < 1 ? 1 : (size_t)first);
        if (st == RTCOSIM_OK)
            st = room(r, &g[k], cap ? cap : 1); /* (none left: the first record says so) */
    }
    const group *h;
    const uint8_t *rec;
    size_t size;
    while (st == RTCOSIM_OK && mdf_recs_next(&c, &h, &rec, &size, &st) > 0) {
        group *w = &g[h - g];
        if (!w->read || w->vlsd)
            continue;
        size_t n = w->count, more = wanted[w - g];
        const size_t *idx = which[w - g];
        if (n == w->cap) {
            size_t cap = grown(cells, more, n, n < 512 ? 1024 : 2 * n);
            if (cap <= n) {
                st = too_many(r, w, more);
                break;
            }
            if ((st = room(r, w, cap)) != RTCOSIM_OK)
                break;
        }
        const uint8_t *inval = w->inval_bytes ? rec + w->data_bytes : NULL;
        if (w->master >= 0)
            w->time[n] = mdf_value(&w->chans[w->master], rec, inval, n);
        for (size_t j = 0; j < more; j++)
            w->values[idx[j]][n] = mdf_value(&w->chans[idx[j]], rec, inval, n);
        w->count = n + 1;
    }
    for (size_t k = 0; which && k < ng; k++)
        free(which[k]);
    free(which);
    free(wanted);
    mdf_seq_free(&c.s);
    return st;
}

rtcosim_status mdf_walk_values(rd *r, group *g, size_t ng)
{
    rtcosim_status st = RTCOSIM_OK;
    uint64_t cells = 0;
    for (size_t first = 0, last; st == RTCOSIM_OK && first < ng; first = last) {
        bool read = false;
        for (last = first; last < ng && g[last].dg_at == g[first].dg_at; last++)
            read = read || g[last].read;
        if (read)
            st = walk_data_group(r, g + first, last - first, &cells);
    }
    return st;
}
