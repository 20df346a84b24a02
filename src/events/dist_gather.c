/* After a run over ranks, bring every LP's state to rank 0: each rank saves
 * its LPs through the model's own state saving (the handlers or the
 * state_size bytes the speculative scheduler uses) and sends them in one
 * batch; rank 0 restores them into its copies, so that its model objects
 * hold the whole result, as after a single-process run (reports, checksums,
 * files are then written by rank 0 alone). After a speculative run the LP's
 * statistics (rollbacks, depths, predictions) travel with its state, so that
 * rank 0's per-LP table and CSV cover every rank's LPs. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "spec_internal.h"
#include "rtcosim/events_dist.h"

typedef struct gather_head {
    uint32_t lp, has_spec; /* has_spec: its rtcosim_lp_speculation follows the state */
    uint64_t size, processed;
    int64_t now;
} gather_head;

static size_t snapshot_max(const rtcosim_lp *lp)
{
    const rtcosim_lp_model *m = lp->model;
    return m->state_size ? m->state_size : m->snapshot_max ? m->snapshot_max(lp->state) : 0;
}

static rtcosim_status save_lps(const rtcosim_events *sim, unsigned char **out, size_t *bytes,
                               rtcosim_error *err)
{
    size_t cap = 0;
    for (size_t i = 0; i < sim->lp_count; i++)
        if (rtcosim_events_owns(sim, (rtcosim_lp_id)i))
            cap += sizeof(gather_head) + ((snapshot_max(sim->lps[i]) + 7) & ~(size_t)7) +
                   (sim->lps[i]->spec ? sizeof(rtcosim_lp_speculation) : 0);
    unsigned char *buf = malloc(cap ? cap : 1);
    if (!buf)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
    size_t at = 0;
    for (size_t i = 0; i < sim->lp_count; i++) {
        const rtcosim_lp *lp = sim->lps[i];
        if (!rtcosim_events_owns(sim, lp->id))
            continue;
        const rtcosim_lp_model *m = lp->model;
        if (!m->state_size && !m->save) {
            free(buf);
            return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "events: lp '%s' (%s) has no"
                                     " state saving, so its result cannot be brought to rank 0",
                                     lp->name, m->kind ? m->kind : "model");
        }
        size_t used = m->state_size;
        unsigned char *data = buf + at + sizeof(gather_head);
        if (m->state_size) {
            memcpy(data, lp->state, m->state_size);
        } else {
            rtcosim_status st = m->save(lp->state, data, snapshot_max(lp), &used, err);
            if (st != RTCOSIM_OK) {
                free(buf);
                return rtcosim_error_prefix(err, "lp '%s' save: ", lp->name);
            }
        }
        gather_head h = {.lp = lp->id, .has_spec = lp->spec != NULL, .size = used,
                         .processed = lp->processed, .now = lp->now};
        memcpy(buf + at, &h, sizeof h);
        at += sizeof h + ((used + 7) & ~(size_t)7);
        if (lp->spec) {
            rtcosim_lp_speculation g;
            (void)rtcosim_events_lp_speculation(sim, lp->id, &g, NULL);
            memcpy(buf + at, &g, sizeof g);
            at += sizeof g;
        }
    }
    *out = buf;
    *bytes = at;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_events_gather(rtcosim_events *sim, const rtcosim_transport *t,
                                     rtcosim_error *err)
{
    if (!t || t->size == 1)
        return RTCOSIM_OK;
    size_t R = (size_t)t->size;
    unsigned char *mine = NULL, *in = NULL;
    size_t mine_bytes = 0;
    int64_t *hs = calloc(2 * R, sizeof *hs), *hr = hs ? hs + R : NULL;
    size_t *sizes = calloc(3 * R, sizeof *sizes);
    const void **send = calloc(R, sizeof *send);
    rtcosim_status st = RTCOSIM_OK;
    if (!hs || !sizes || !send) {
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
        goto done;
    }
    /* a rank that cannot save still takes part (size -1), so none hangs */
    rtcosim_error local = {0};
    bool ok = t->rank == 0 || save_lps(sim, &mine, &mine_bytes, &local) == RTCOSIM_OK;
    hs[0] = ok ? (int64_t)mine_bytes : -1;
    st = t->alltoall_i64(t->context, hs, hr, 1, err);
    if (st != RTCOSIM_OK)
        goto done;
    int64_t bad = ok ? 0 : 1;
    for (size_t r = 0; r < R; r++)
        bad |= hr[r] < 0;
    st = t->allreduce_i64(t->context, &bad, 1, RTCOSIM_REDUCE_MAX, err);
    if (st != RTCOSIM_OK)
        goto done;
    if (bad) {
        st = !ok ? (*err = local, local.status)
                 : rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "events: rank %d: another rank"
                                     " could not save its LPs", t->rank);
        goto done;
    }
    size_t *sb = sizes, *rb = sizes + R, *ro = sizes + 2 * R, total = 0;
    sb[0] = mine_bytes;
    send[0] = mine;
    for (size_t r = 0; r < R; r++) {
        rb[r] = t->rank == 0 ? (size_t)hr[r] : 0;
        ro[r] = total;
        total += rb[r];
    }
    in = malloc(total ? total : 1);
    if (!in) {
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
        goto done;
    }
    st = t->exchange(t->context, send, sb, in, rb, ro, err);
    for (size_t at = 0; st == RTCOSIM_OK && at + sizeof(gather_head) <= total;) {
        gather_head h;
        memcpy(&h, in + at, sizeof h);
        unsigned char *data = in + at + sizeof h;
        size_t padded = (h.size + 7) & ~(size_t)7, extra = h.has_spec ? sizeof(rtcosim_lp_speculation) : 0;
        if (h.lp >= sim->lp_count || h.size > total - at - sizeof h ||
            padded + extra > total - at - sizeof h) {
            st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "events: malformed LP state from"
                                   " another rank");
            break;
        }
        rtcosim_lp *lp = sim->lps[h.lp];
        if (lp->model->state_size)
            memcpy(lp->state, data, lp->model->state_size);
        else if ((st = lp->model->restore(lp->state, data, h.size, err)) != RTCOSIM_OK)
            rtcosim_error_prefix(err, "lp '%s' restore: ", lp->name);
        lp->processed = h.processed;
        lp->now = h.now;
        if (h.has_spec && lp->spec) {
            rtcosim_lp_speculation g;
            memcpy(&g, data + padded, sizeof g);
            spec_stats_set(lp->spec, &g);
        }
        at += sizeof h + padded + extra;
    }
done:
    free(mine);
    free(in);
    free(hs);
    free(sizes);
    free((void *)send);
    return st;
}
