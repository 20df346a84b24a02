/* The records of an MDF 4 data group read a data block at a time
 * (mdf_read_internal.h): the bytes of its DT, DZ (inflated when reached)
 * and listed blocks in order, a record that spans two blocks copied, so
 * that a data group of any size reads in the memory of one block. For the
 * bus logs (mdf_bus_read.c) and `info` of a measurement (mdf_read.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/mdf_read_internal.h"
#include "util/le.h"

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
    s->len = s->pos = 0;
    s->inflated = 0;
}

void mdf_seq_free(mdf_seq *s)
{
    free(s->list.blocks);
    free(s->dz.p);
    free(s->carry.p);
    *s = (mdf_seq){0};
}

/* Open the next block that holds bytes (*more false: none is left). */
static rtcosim_status mdf_seq_next_block(mdf_seq *s, bool *more)
{
    *more = false;
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
        s->pos = 0;
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
    return mdf_seq_open(&c->s, r, groups[0].data_link);
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
    size_t n = (size_t)h->data_bytes + h->inval_bytes;
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
