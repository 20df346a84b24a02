/* The rollback table of an LP under the speculative scheduler: one record per
 * processed event in a ring, and before every k-th event a snapshot (the
 * LP's clock, depth, send count, processed count and random stream, then its
 * model state, all as before the event) in a byte ring beside it. Both grow
 * by doubling when full, so saving a state costs a copy, not an allocation;
 * fossil collection (below GVT) frees records from the front, a rollback
 * from the back. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spec_internal.h"

bool spec_table_supported(const rtcosim_lp *lp)
{
    const rtcosim_lp_model *m = lp->model;
    return (m->save && m->restore && m->snapshot_max && m->snapshot_max(lp->state) > 0) ||
           m->state_size > 0 || !m->event;
}

rtcosim_status spec_table_init(rtcosim_lp *lp, rtcosim_error *err)
{
    if (!lp->spec) {
        /* 64-byte aligned: the per-event fields share one cache line */
        if (!(lp->spec = aligned_alloc(64, sizeof *lp->spec)))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
        memset(lp->spec, 0, sizeof *lp->spec);
    }
    spec_lp *s = lp->spec;
    const rtcosim_lp_model *m = lp->model;
    s->head = s->count = s->passed = 0;
    s->fail_ev = NULL;
    s->snap_max = m->save ? m->snapshot_max(lp->state) : m->state_size;
    s->processed = s->rollbacks = s->rolled_back = s->anti_messages = s->predicted = 0;
    s->failures_undone = 0;
    s->coasted = s->reused = 0;
    s->lazy_count = 0;
    s->win_events = s->win_snaps = 0;
    s->win_coasted = 0;
    memset(s->depth_hist, 0, sizeof s->depth_hist);
    s->checked = 0;
    s->error_sq = s->error_max = 0;
    if (!s->rec) {
        s->cap = 64;
        s->rec = malloc(s->cap * sizeof *s->rec);
    }
    size_t want = 16 * (sizeof(spec_kstate) + s->snap_max);
    if (s->bytes_cap < want) {
        free(s->bytes);
        s->bytes = malloc(want);
        s->bytes_cap = want;
    }
    if (!s->rec || !s->bytes)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
    return RTCOSIM_OK;
}

void spec_table_free(rtcosim_lp *lp)
{
    if (!lp->spec)
        return;
    free(lp->spec->rec);
    free(lp->spec->bytes);
    free(lp->spec->streams);
    free(lp->spec->lazy);
    event_heap_free(&lp->spec->held);
    free(lp->spec->fail_err);
    free(lp->spec);
    lp->spec = NULL;
}

static bool grow_records(spec_lp *s)
{
    size_t cap = 2 * s->cap;
    spec_record *r = malloc(cap * sizeof *r);
    if (!r)
        return false;
    for (size_t i = 0; i < s->count; i++)
        r[i] = s->rec[(s->head + i) & (s->cap - 1)];
    free(s->rec);
    s->rec = r;
    s->head = 0;
    s->cap = cap;
    return true;
}

/* Where the next snapshot of up to snap_max bytes goes: after the newest
 * one, or wrapped to the start when the end has no room; the live snapshots
 * run from the oldest record's to the newest's. Grows (compacting) when the
 * ring is full. Returns false on ENOMEM. */
static bool snapshot_slot(spec_lp *s, size_t *off)
{
    size_t need = sizeof(spec_kstate) + s->snap_max;
    for (;;) {
        if (s->count == 0) {
            if (need <= s->bytes_cap) {
                *off = 0;
                return true;
            }
        } else {
            size_t oldest = spec_first(s)->state_off;
            size_t tail = s->last_end;
            if (tail >= oldest) { /* live = [oldest, tail) */
                if (tail + need <= s->bytes_cap) {
                    *off = tail;
                    return true;
                }
                if (need < oldest) { /* strictly: tail == oldest must mean "not wrapped" */
                    *off = 0;
                    return true;
                }
            } else if (tail + need < oldest) { /* live = [oldest, cap) + [0, tail) */
                *off = tail;
                return true;
            }
        }
        size_t cap = 2 * s->bytes_cap > 4 * need ? 2 * s->bytes_cap : 4 * need;
        if (cap > UINT32_MAX) /* offsets are 32-bit (records stay small) */
            return false;
        unsigned char *b = malloc(cap);
        if (!b)
            return false;
        size_t at = 0;
        for (size_t i = 0; i < s->count; i++) {
            spec_record *r = &s->rec[(s->head + i) & (s->cap - 1)];
            if (r->ckpt_dist == 0) {
                size_t len = spec_record_end(s, r) - r->state_off;
                memcpy(b + at, s->bytes + r->state_off, len);
                r->state_off = (uint32_t)at;
                at += len;
            } else {
                r->state_off = (uint32_t)at;
            }
        }
        free(s->bytes);
        s->bytes = b;
        s->bytes_cap = cap;
        s->last_end = at;
    }
}

/* Periodic checkpointing trades the copies of state saving against the
 * events re-executed to coast forward after a rollback (on average half an
 * interval per rollback). The best interval depends on how often the LP rolls
 * back (Fleischmann & Wilsey 1995; Ronngren & Ayani 1994 adapt it at run
 * time): an LP that never does should save rarely, one that often does often.
 * Here, per window of CKPT_WINDOW events: more events coasted than snapshots
 * taken halves the interval, fewer than half as many doubles it. Counting
 * events rather than timing them takes a snapshot and an event as equally
 * costly, which overrates snapshots of a plant whose step is costly; the LPs
 * that never roll back, most of them, come to CKPT_MAX either way. */
static void adapt_interval(spec_lp *s)
{
    uint64_t coasted = s->coasted - s->win_coasted;
    if (coasted > s->win_snaps && s->ckpt_interval > 1)
        s->ckpt_interval /= 2;
    else if (2 * coasted < s->win_snaps && s->ckpt_interval < CKPT_MAX)
        s->ckpt_interval *= 2;
    s->win_events = s->win_snaps = 0;
    s->win_coasted = s->coasted;
}

spec_record *spec_table_push_slow(rtcosim_lp *lp, rtcosim_event *ev, rtcosim_error *err)
{
    spec_lp *s = lp->spec;
    if (++s->win_events >= CKPT_WINDOW) {
        if (s->ckpt_adaptive)
            adapt_interval(s);
        else
            s->win_events = 0;
    }
    if (s->count == s->cap && !grow_records(s)) {
        rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory for the rollback table");
        return NULL;
    }
    /* a snapshot before every k-th event: the first record always has one */
    if (s->count > 0 && s->last_ckpt_dist + 1 < s->ckpt_interval)
        return spec_table_append(s, ev, s->last_end, s->last_ckpt_dist + 1, s->last_end);
    size_t off = 0;
    if (!snapshot_slot(s, &off)) {
        rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory for the rollback table");
        return NULL;
    }
    s->win_snaps++;
    spec_kstate k = {.now = lp->now, .depth = lp->depth, .seq = lp->seq,
                     .processed = lp->processed};
    memcpy(k.rng, lp->rng, sizeof k.rng);
    unsigned char *model = s->bytes + off + sizeof k;
    const rtcosim_lp_model *m = lp->model;
    size_t used = 0;
    if (m->save) {
        rtcosim_status st = m->save(lp->state, model, s->snap_max, &used, err);
        if (st != RTCOSIM_OK) {
            rtcosim_error_prefix(err, "lp '%s': saving its state: ", lp->name);
            return NULL;
        }
    } else if (m->state_size) {
        memcpy(model, lp->state, m->state_size);
        used = m->state_size;
    }
    k.len = used;
    memcpy(s->bytes + off, &k, sizeof k);
    return spec_table_append(s, ev, off, 0, off + sizeof k + used);
}

rtcosim_status spec_table_restore(rtcosim_lp *lp, const spec_record *r, rtcosim_error *err)
{
    spec_lp *s = lp->spec;
    spec_kstate k;
    memcpy(&k, s->bytes + r->state_off, sizeof k);
    lp->now = k.now;
    lp->depth = k.depth;
    lp->seq = k.seq;
    lp->processed = k.processed;
    memcpy(lp->rng, k.rng, sizeof lp->rng);
    const unsigned char *model = s->bytes + r->state_off + sizeof k;
    const rtcosim_lp_model *m = lp->model;
    if (m->restore) {
        rtcosim_status st = m->restore(lp->state, model, (size_t)k.len, err);
        if (st != RTCOSIM_OK)
            return rtcosim_error_prefix(err, "lp '%s': restoring its state: ", lp->name);
    } else if (m->state_size) {
        memcpy(lp->state, model, m->state_size);
    }
    return RTCOSIM_OK;
}
