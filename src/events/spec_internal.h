/* Internal structures of the speculative (Time Warp) scheduler, shared by the
 * scheduler (sched_speculative.c), its rollback table (spec_table.c) and the
 * predicted input streams (spec_predict.c). Not part of the public API. */
#ifndef RTCOSIM_EVENTS_SPEC_INTERNAL_H
#define RTCOSIM_EVENTS_SPEC_INTERNAL_H

#include "kernel.h"

/* Flags in rtcosim_event.reserved_ (the kernel's own field). */
enum {
    EV_PROCESSED = 1u, /* in its LP's rollback table */
    EV_CANCELLED = 2u, /* an anti-message annihilated it: freed when popped */
    EV_PREDICTED = 4u, /* made by a predicted stream, not sent by an LP */
    EV_STREAM = 8u,    /* a real event of a predicted stream, in its history */
    EV_ABSORBED = 16u, /* ... whose prediction was kept: not processed, owned by the stream */
    EV_REMOTE = 32u,   /* sent to another rank: this copy is the sender's (sched_spec_ranks.c) */
};

#define SPEC_STREAM_WIDTH_MAX (RTCOSIM_EVENT_PAYLOAD_MAX / (int)sizeof(double))

/* A declared predictable stream (rtcosim_events_add_prediction). */
typedef struct spec_prediction_decl {
    rtcosim_lp_id src, dst;
    uint16_t type;
    size_t width;
    double scale[SPEC_STREAM_WIDTH_MAX];
} spec_prediction_decl;

typedef struct spec_thread spec_thread;

/* Rollbacks by the number of events undone: 1, 2-3, 4-7, ..., >= 128. */
#define SPEC_DEPTH_BINS RTCOSIM_SPEC_DEPTH_BINS

/* One processed event of an LP: the LP's kernel state and the offset of its
 * model state as they were before the event, and the events it sent (a
 * chain through their `next` fields), to be cancelled if it is undone. */
typedef struct spec_record {
    rtcosim_event *ev, *sent;
    size_t state_off, state_len;
    rtcosim_time_ns now;
    uint64_t depth, seq, processed;
    uint64_t rng[4];
    /* records since the last one holding a snapshot (0: this one does);
     * the first record of a table always holds one */
    uint32_t ckpt_dist;
} spec_record;

struct spec_stream; /* spec_predict.c */

/* Per LP: its rollback table (a ring of records and a byte ring of state
 * snapshots, both grown by doubling, never per event) and statistics. */
typedef struct spec_lp {
    spec_record *rec;
    size_t head, count, cap; /* cap a power of two */
    unsigned char *bytes;
    size_t bytes_cap, snap_max;
    uint32_t ckpt_interval; /* a snapshot before every k-th event */
    /* statistics of the run */
    uint64_t processed, rollbacks, rolled_back, anti_messages, predicted;
    uint64_t coasted; /* events re-executed to rebuild a state between snapshots */
    uint64_t depth_hist[SPEC_DEPTH_BINS];
    uint64_t checked;          /* predictions compared with their real event */
    double error_sq, error_max; /* of those */
    /* predicted input streams into this LP */
    struct spec_stream **streams;
    size_t stream_count;
    /* An LP whose model cannot save its state runs conservatively: it
     * processes only events no straggler can precede (below the bound of
     * sched_speculative.c's conservative_bound), the others wait in `held`. */
    bool conservative;
    rtcosim_time_ns in_lookahead; /* smallest lookahead of its input links */
    event_heap held;
} spec_lp;

static inline spec_record *spec_last(spec_lp *s)
{
    return &s->rec[(s->head + s->count - 1) & (s->cap - 1)];
}
static inline spec_record *spec_first(spec_lp *s) { return &s->rec[s->head]; }

/* sched_speculative.c, for spec_predict.c */
rtcosim_status spec_rollback(spec_thread *th, rtcosim_lp *lp, rtcosim_event *key, bool inclusive,
                             rtcosim_error *err);
/* Queue an event for an LP of this thread (a straggler rolls it back). */
rtcosim_status spec_enqueue(spec_thread *th, rtcosim_event *ev, rtcosim_error *err);
event_pool *spec_pool(spec_thread *th);

/* spec_predict.c */
rtcosim_status spec_predict_setup(rtcosim_events *sim, double threshold, rtcosim_error *err);
/* After the run: free the streams' predictors and the events they own. */
void spec_predict_teardown(rtcosim_events *sim);
struct spec_stream *spec_predict_stream_of(const rtcosim_lp *lp, const rtcosim_event *ev);
/* A real event of the stream arrives (instead of being queued). */
rtcosim_status spec_predict_arrive(spec_thread *th, rtcosim_lp *lp, struct spec_stream *s,
                                   rtcosim_event *ev, rtcosim_error *err);
/* An anti-message for a real event of the stream (flag EV_STREAM). */
rtcosim_status spec_predict_cancel(spec_thread *th, rtcosim_lp *lp, rtcosim_event *ev,
                                   rtcosim_error *err);
/* A predicted event was processed: predict the next one. */
rtcosim_status spec_predict_processed(spec_thread *th, rtcosim_lp *lp, const rtcosim_event *ev,
                                      rtcosim_error *err);
/* Earliest processed or queued prediction not yet confirmed by its real
 * event (GVT may not pass it), RTCOSIM_TIME_MAX for none. */
rtcosim_time_ns spec_predict_unconfirmed(const rtcosim_lp *lp);
/* After a new GVT: withdraw predictions earlier than what any real event
 * can still be (gvt_real: GVT of the real events alone), free history below
 * gvt. */
rtcosim_status spec_predict_gvt(spec_thread *th, rtcosim_lp *lp, rtcosim_time_ns gvt_real,
                                rtcosim_time_ns gvt, rtcosim_error *err);

/* sched_speculative.c, for sched_spec_ranks.c: an event from another rank
 * (queued, or rolling back its LP) or one an anti-message from there names. */
rtcosim_status spec_take_remote(spec_thread *th, rtcosim_event *ev, bool anti,
                                rtcosim_error *err);

/* sched_spec_ranks.c: Time Warp across ranks (sim->dist set, one thread per
 * rank). send: an event for, or an anti-message to, another rank's LP into
 * its batch; poll: send the batches, take what arrived; gvt: every few
 * calls (or when forced) the GVT reduction over ranks, 1 with *gvt (and
 * *gvt_real, without unconfirmed predictions), 0 when
 * not this time, -1 when a rank failed (err set unless this one did);
 * finish: after the loop, a rank that stopped alone tells the others. */
struct dist_state;
rtcosim_status spec_ranks_send(worker *w, rtcosim_event *ev, bool anti, rtcosim_error *err);
rtcosim_status spec_ranks_poll(spec_thread *th, worker *w, rtcosim_error *err);
int spec_ranks_gvt(spec_thread *th, worker *w, bool failed, bool force, rtcosim_time_ns *gvt,
                   rtcosim_time_ns *gvt_real, rtcosim_error *err);
void spec_ranks_finish(spec_thread *th, worker *w);
rtcosim_status spec_ranks_setup(rtcosim_events *sim, const rtcosim_run_options *o,
                                rtcosim_error *err);
void spec_ranks_free(struct dist_state *d);

/* spec_table.c */
/* Append a record for `ev` with the LP's kernel state and a snapshot of its
 * model state; NULL with *err set when memory or the model's save fails. */
spec_record *spec_table_push(rtcosim_lp *lp, rtcosim_event *ev, rtcosim_error *err);
/* Write the LP's kernel state and model state back from a record that holds
 * a snapshot (ckpt_dist 0). */
rtcosim_status spec_table_restore(rtcosim_lp *lp, const spec_record *r, rtcosim_error *err);
/* Index from the front of the record `i` (< count) refers to. */
static inline spec_record *spec_at(spec_lp *s, size_t i)
{
    return &s->rec[(s->head + i) & (s->cap - 1)];
}
/* Does the LP's model save its state? */
bool spec_table_supported(const rtcosim_lp *lp);
rtcosim_status spec_table_init(rtcosim_lp *lp, rtcosim_error *err);
void spec_table_free(rtcosim_lp *lp);

#endif
