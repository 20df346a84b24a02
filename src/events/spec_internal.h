/* Internal structures of the speculative (Time Warp) scheduler, shared by its
 * thread loop (sched_speculative.c), messages (spec_comm.c), rollback
 * (spec_rollback.c), GVT (spec_gvt.c), rollback table (spec_table.c) and
 * predicted input streams (spec_predict.c). Not part of the public API. */
#ifndef RTCOSIM_EVENTS_SPEC_INTERNAL_H
#define RTCOSIM_EVENTS_SPEC_INTERNAL_H

#include <stddef.h>
#include <string.h>

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


/* Rollbacks by the number of events undone: 1, 2-3, 4-7, ..., >= 128. */
#define SPEC_DEPTH_BINS RTCOSIM_SPEC_DEPTH_BINS

/* One processed event of an LP and the events it sent (a chain through
 * their `next` fields), to be cancelled if it is undone; 32 bytes, written
 * for every event. A record with a snapshot (ckpt_dist 0) has the LP's
 * kernel state and model state as before the event in the byte ring at
 * state_off (a spec_kstate, then the model's bytes); the kernel state of
 * the others is rebuilt with their model state, by re-execution from the
 * snapshot before them (the kernel counts, clock and random stream follow
 * from the events as the model state does). */
typedef struct spec_record {
    rtcosim_event *ev, *sent;
    rtcosim_time_ns time; /* ev->time, read here without touching the event */
    /* with a snapshot: where it starts; without: where the live snapshot
     * bytes ended when it was made */
    uint32_t state_off;
    /* records since the last one holding a snapshot (0: this one does);
     * the first record of a table always holds one */
    uint32_t ckpt_dist;
} spec_record;

/* The head of a snapshot: the LP's kernel state before the event and the
 * length of the model's bytes that follow. */
typedef struct spec_kstate {
    rtcosim_time_ns now;
    uint64_t depth, seq, processed;
    uint64_t rng[4];
    uint64_t len;
} spec_kstate;

struct spec_stream; /* spec_predict.c */

/* An undone event waiting to be processed again, with the events it sent
 * the first time (lazy cancellation, spec_rollback.c). */
typedef struct spec_lazy {
    rtcosim_event *ev, *sent;
    rtcosim_time_ns time; /* ev->time: its sends were made at that instant */
} spec_lazy;

/* Per LP: its rollback table (a ring of records and a byte ring of state
 * snapshots, both grown by doubling, never per event) and statistics. */
typedef struct spec_lp {
    /* what every event reads or writes first, on one cache line (the
     * struct is 64-byte aligned): the ring, the newest record's copies (the
     * record itself is usually out of cache: its event's time, the end of
     * the live snapshot bytes, its distance to a snapshot), the interval
     * and its window */
    spec_record *rec;
    size_t head, count, cap; /* cap a power of two */
    rtcosim_time_ns last_time;
    size_t last_end;
    uint32_t last_ckpt_dist;
    uint32_t ckpt_interval; /* a snapshot before every k-th event */
    uint32_t win_events;    /* events in the adaptive interval's window */
    /* (the next line) undone events of this LP whose sends wait for their
     * re-processing (lazy cancellation); fossil collection: the first
     * `passed` records are known to be below the last GVT (kept for their
     * snapshot), so the next walk starts there; what it reads of the
     * streams, on the same line */
    _Alignas(64) size_t lazy_count;
    size_t passed;
    size_t stream_count;
    spec_lazy *lazy;
    size_t lazy_cap;
    unsigned char *bytes;
    size_t bytes_cap, snap_max; /* snap_max: the model's largest snapshot */
    /* adaptive interval (spec_table.c): snapshots and coasted events since
     * the window began */
    bool ckpt_adaptive;
    uint32_t win_snaps;
    uint64_t win_coasted;
    /* statistics of the run (processed: committed + undone, at the end) */
    uint64_t processed, rollbacks, rolled_back, anti_messages, predicted;
    uint64_t coasted; /* events re-executed to rebuild a state between snapshots */
    uint64_t reused;  /* sends kept by lazy cancellation */
    uint64_t failures_undone; /* handler failures a rollback undid (not the run's) */
    uint64_t depth_hist[SPEC_DEPTH_BINS];
    uint64_t checked;          /* predictions compared with their real event */
    double error_sq, error_max; /* of those */
    /* predicted input streams into this LP (stream_count above) */
    struct spec_stream **streams;
    /* An LP whose model cannot save its state runs conservatively: it
     * processes only events no straggler can precede (below the bound of
     * sched_speculative.c's conservative_bound), the others wait in `held`. */
    bool conservative;
    rtcosim_time_ns in_lookahead; /* smallest lookahead of its input links */
    event_heap held;
    /* A handler failure on an event not yet committed (sched_speculative.c):
     * the event (its record stays, so a straggler can still undo it) and
     * the error, reported once GVT shows that nothing can undo it. */
    rtcosim_event *fail_ev;
    rtcosim_error *fail_err;
} spec_lp;
_Static_assert(offsetof(spec_lp, lazy_count) == 64, "spec_lp's per-event fields fill one line");

static inline spec_record *spec_last(spec_lp *s)
{
    return &s->rec[(s->head + s->count - 1) & (s->cap - 1)];
}
static inline spec_record *spec_first(spec_lp *s) { return &s->rec[s->head]; }
/* Refresh the copies of the newest record after records were removed. */
/* The end of a record's snapshot, or of the live bytes before it. */
static inline size_t spec_record_end(const spec_lp *s, const spec_record *r)
{
    if (r->ckpt_dist)
        return r->state_off;
    uint64_t len;
    memcpy(&len, s->bytes + r->state_off + offsetof(spec_kstate, len), sizeof len);
    return r->state_off + sizeof(spec_kstate) + (size_t)len;
}
static inline void spec_sync_last(spec_lp *s)
{
    if (s->count == 0)
        return;
    const spec_record *r = spec_last(s);
    s->last_time = r->time;
    s->last_ckpt_dist = r->ckpt_dist;
    s->last_end = spec_record_end(s, r);
}

/* ---- the scheduler's threads and what they share (sched_speculative.c: the
 * thread loop and the run; spec_comm.c: rings, delivery; spec_rollback.c:
 * rollback and cancellation; spec_gvt.c: GVT, fossil collection, waiting) ---- */

enum {
    RING_CAPACITY = 1 << 14,
    BATCH_EVENTS = 16,       /* events between looks at the rings and GVT */
    GVT_INTERVAL = 2048,     /* events of thread 0 between GVT epochs */
    /* the waits of spec_wait_for_progress (spec_gvt.c says why): with CPUs
     * to themselves, a waiter spins up to SPEC_SPIN_MAX_NS while the others
     * show signs of life within SPEC_ALIVE_NS (SPEC_WAKE_NS for a sleeper);
     * sharing them, up to SPEC_SPIN_CONTENDED_NS; the load is looked at
     * every SPEC_LOAD_CHECK_NS */
    SPEC_SPIN_MAX_NS = 5000000, SPEC_ALIVE_NS = 2000000, SPEC_WAKE_NS = 3000000,
    SPEC_SPIN_CONTENDED_NS = 20000, SPEC_LOAD_CHECK_NS = 1000000,
    /* default: a snapshot before every 4th event of an LP whose snapshot is
     * larger than SMALL_SNAPSHOT bytes (the ECU's ~1 kB, a plant's), before
     * every event otherwise (copying a few words costs less than the
     * bookkeeping and the coast-forward it would save) */
    CHECKPOINT_INTERVAL = 4, SMALL_SNAPSHOT = 128,
    /* the adaptive interval (default for large snapshots): re-decided every
     * CKPT_WINDOW events of an LP, between 1 and CKPT_MAX */
    CKPT_WINDOW = 128, CKPT_MAX = 32,
    /* adaptive optimism: re-decided after ADAPT_EVENTS processed events */
    ADAPT_EVENTS = 8192,
};

/* A message in a ring: an event pointer, bit 0 set for an anti-message, bit
 * 1 the sender's colour (events are 8-byte aligned). */
typedef struct spec_ring {
    _Alignas(64) _Atomic size_t head;
    _Alignas(64) _Atomic size_t tail;
    _Alignas(64) uintptr_t *slots;
} spec_ring;

/* What each thread publishes for GVT, on a cache line of its own. */
typedef struct spec_pub {
    _Alignas(64) _Atomic uint64_t ack_epoch, report_epoch;
    _Atomic rtcosim_time_ns report, report_pred;
    /* report without its pending handler failure and the events held behind
     * it; the failure's time (RTCOSIM_TIME_MAX: none) */
    _Atomic rtcosim_time_ns report_nofail, report_fail;
    _Atomic uint64_t sent[2], recv[2];
    /* with the report: events processed, undone, waits at the bound, so far */
    _Atomic uint64_t rep_processed, rep_undone, rep_bound_waits;
    /* turns of its loop (relaxed): a waiter spins only while the others'
     * move, i.e. while they are running and can free it soon */
    _Alignas(64) _Atomic uint64_t beat;
    _Atomic int asleep; /* in the futex sleep of spec_wait_for_progress */
    _Atomic int cpu; /* the CPU of its last loop turn (sched_getcpu) */
} spec_pub;

typedef struct spec_shared {
    unsigned threads;
    spec_ring *rings; /* s -> t at s * T + t */
    spec_pub *pub;
    _Alignas(64) _Atomic uint64_t epoch, gvt_epoch;
    _Atomic rtcosim_time_ns gvt, gvt_real; /* gvt_real: without unconfirmed predictions */
    /* GVT without the pending handler failures and what waits behind them,
     * and the earliest of those failures (RTCOSIM_TIME_MAX: none) */
    _Atomic rtcosim_time_ns gvt_nofail, fail_first;
    /* GVT of epoch e at [e & 3] (written before gvt_epoch becomes e), for
     * the bound of the conservative LPs; [3] holds the start time as epoch
     * -1's. */
    _Atomic rtcosim_time_ns gvt_of[4];
    _Atomic int abort_run;
    _Alignas(64) _Atomic uint32_t wake;
    _Atomic uint32_t sleepers;
    _Atomic int64_t wake_changed_at; /* monotonic ns of a bump a sleeper waited for */
    /* the optimism bound; adapted between ahead_min and ahead_max when
     * `adaptive` (spec_gvt.c), read relaxed by every thread */
    _Atomic rtcosim_time_ns max_ahead;
    bool adaptive;
    unsigned cpus;   /* that the process may run on */
    const struct thread_place *place; /* the threads' start CPUs (util/thread_place.h) */
    int loadavg_fd;  /* /proc/loadavg, or -1 */
    rtcosim_time_ns ahead_min, ahead_max;
    /* totals at the last adaptation (only the thread completing a GVT
     * round touches them, and rounds complete one after another) */
    uint64_t adapt_processed, adapt_undone, adapt_bound_waits;
} spec_shared;

typedef struct spec_thread {
    /* the threads' structs sit in an array and are written on every event:
     * each on lines of its own, or the two threads write one line */
    _Alignas(64) worker *w;
    spec_shared *sh;
    spec_record *cur; /* record of the event being processed */
    rtcosim_event **cancel;
    size_t cancel_count, cancel_cap;
    uintptr_t *inbox; /* taken from full rings, not yet handled */
    size_t inbox_count, inbox_cap;
    size_t *ring_tail; /* producer side, unpublished */
    bool unpublished;  /* some ring_tail moved since spec_publish_rings */
    uint64_t epoch, sent[2], recv[2];
    rtcosim_time_ns min_red, fossil_gvt, fossil_real;
    unsigned color;
    uint64_t since_gvt, gvt_rounds;
    uint64_t undone, bound_waits; /* events rolled back; waits at the bound */
    uint64_t beat, others_beat; /* own loop turns and spins while waiting (signs
                                 * of life); the others' sum at the last wait */
    int64_t load_checked_at; /* spec_wait_for_progress: when it looked at the */
    unsigned loaded_looks;   /* machine's load, how many looks in a row found */
    bool contended;          /* it loaded, and the verdict */
    /* per other thread while waiting: its beat last seen, and since when */
    uint64_t *beat_seen;
    uint64_t moves;  /* off a CPU another thread was on (spec_gvt.c) */
    int *cpus_taken; /* scratch: the other threads' CPUs (spec_gvt.c) */
    int64_t *beat_at;
    rtcosim_lp_id *lps; /* the LPs of this thread */
    size_t lp_count;
    rtcosim_lp_id *cons; /* those that run conservatively (no state saving) */
    size_t cons_count;
    size_t cons_next; /* where run_held's next batch starts */
    bool streams; /* some of them have predicted input streams */
    bool coasting;  /* re-executing events after a restore: sends suppressed */
    bool lazy;      /* lazy cancellation (not over ranks, not asked off) */
    bool lazy_sender; /* the LP processing has undone events with waiting sends */
    /* the latest time of an event processed on this thread (never lowered):
     * no LP here has processed anything later, so a later event is no
     * straggler (decided without reading its receiver) */
    rtcosim_time_ns high;
    /* what the event being processed sent when it was undone, not yet sent
     * again (lazy cancellation): cancelled after it */
    rtcosim_event *lazy_old;
    /* the earliest pending handler failure of this thread's LPs (NULL:
     * none): no event that sorts after it is processed until a straggler
     * undoes it or GVT commits it */
    rtcosim_event *fail_ev;
    rtcosim_lp *fail_lp;
} spec_thread;

#pragma GCC visibility push(hidden)

/* spec_comm.c */
/* Bump `wake` and wake the sleepers on it. */
void spec_wake_all(spec_shared *sh);
/* Abort the run from this thread (its error is in th->w->err). */
void spec_fail(spec_thread *th, rtcosim_status st);
/* Make what this thread put in its rings visible to the receivers. */
void spec_publish_rings(spec_thread *th);
/* Send an event (or, anti, its anti-message) to thread `to`. */
rtcosim_status spec_ring_send(spec_thread *th, rtcosim_event *ev, bool anti, unsigned to,
                              rtcosim_error *err);
/* Handle the messages from other threads: events and anti-messages. */
rtcosim_status spec_drain_inbox(spec_thread *th, rtcosim_error *err);

/* spec_rollback.c */
/* Cancel an event the LP sent from an undone step. */
rtcosim_status spec_cancel_sent(spec_thread *th, rtcosim_lp *lp, rtcosim_event *ev,
                                rtcosim_error *err);
/* Annihilate an event of an LP of this thread (its anti-message arrived). */
rtcosim_status spec_cancel_local(spec_thread *th, rtcosim_event *ev, rtcosim_error *err);
/* Handle the same-thread cancellations queued by rollbacks. */
rtcosim_status spec_drain_cancels(spec_thread *th, rtcosim_error *err);
/* Lazy cancellation: before the LP processes `ev`, take what ev sent when
 * it was undone into th->lazy_old; after, cancel what was not sent again. */
void spec_lazy_begin(spec_thread *th, spec_lp *s, const rtcosim_event *ev);
rtcosim_status spec_lazy_end(spec_thread *th, rtcosim_lp *lp, rtcosim_error *err);
/* A send of the event being processed (the LP has waiting sends): true
 * when one in th->lazy_old equals it, which then stands (logged as sent
 * again); waiting sends with its order key but other content are cancelled
 * first (*st), so that no two live events share a key. */
bool spec_lazy_send(spec_thread *th, rtcosim_lp *lp, const rtcosim_event *ev,
                    rtcosim_status *st, rtcosim_error *err);
/* Free a cancelled event taken from the queue, cancelling what it sent
 * before it was undone. */
rtcosim_status spec_drop_cancelled(spec_thread *th, rtcosim_event *ev, rtcosim_error *err);

/* spec_gvt.c */
/* Advance this thread's part of the GVT computation as far as it can. */
void spec_gvt_step(spec_thread *th);
/* Ask for a new GVT epoch (when the last one is complete). */
void spec_start_epoch(spec_shared *sh);
/* Make ev (lp's) the thread's pending failure if it sorts before the one it
 * has. */
static inline void spec_failure_note(spec_thread *th, rtcosim_lp *lp, rtcosim_event *ev)
{
    if (!th->fail_ev || event_before(ev, th->fail_ev)) {
        th->fail_ev = ev;
        th->fail_lp = lp;
    }
}
/* Does ev sort at or after the thread's pending failure (and so wait for
 * it to be undone or committed)? */
static inline bool spec_behind_failure(const spec_thread *th, const rtcosim_event *ev)
{
    return th->fail_ev && !event_before(ev, th->fail_ev);
}
/* An LP's pending failure was undone: forget it, and find the thread's
 * earliest remaining one. */
void spec_failure_undone(spec_thread *th, spec_lp *s);
/* The thread's queue minimum for the GVT without pending failures: none of
 * the queue counts when its head waits behind the thread's failure. */
rtcosim_time_ns spec_queue_min_nofail(spec_thread *th);
/* Free what is committed: records and events below GVT. */
void spec_fossil_collect(spec_thread *th, rtcosim_time_ns gvt, rtcosim_time_ns gvt_real);
/* The base of the bound below which a conservative LP's events are safe. */
rtcosim_time_ns spec_conservative_base(spec_shared *sh, rtcosim_time_ns *prev);
/* Wait for a change of sh->wake from `seen`. */
/* Wait for a change of sh->wake from `seen`. */
void spec_wait_for_progress(spec_thread *th, uint32_t seen);
bool spec_rings_pending(const spec_thread *th);
/* The reverse of rtcosim_events_lp_speculation (spec_stats.c): an LP's
 * statistics from another rank. */
void spec_stats_set(spec_lp *s, const rtcosim_lp_speculation *in);

#pragma GCC visibility pop

/* spec_rollback.c and spec_comm.c, for spec_predict.c */
rtcosim_status spec_rollback(spec_thread *th, rtcosim_lp *lp, rtcosim_event *key, bool inclusive,
                             rtcosim_error *err);
/* After a run that ended early (a handler failed, a stop was requested), on
 * the run's thread once the workers are joined: take the LP back to its
 * state before its first event at or after `gvt` (events the run never
 * committed, which a straggler could still have undone), so that every LP
 * holds the committed result. */
rtcosim_status spec_rollback_to_committed(spec_thread *th, rtcosim_lp *lp, rtcosim_time_ns gvt,
                                          rtcosim_error *err);
/* Queue an event for an LP of this thread (a straggler rolls it back; an
 * LP that runs conservatively gets it in its own queue, spec_hold). */
rtcosim_status spec_hold(spec_lp *s, rtcosim_event *ev, rtcosim_error *err);
rtcosim_status spec_enqueue(spec_thread *th, rtcosim_event *ev, rtcosim_error *err);
event_pool *spec_pool(spec_thread *th);

/* spec_predict.c */
rtcosim_status spec_predict_setup(rtcosim_events *sim, double threshold,
                                  double correction_capacity, rtcosim_error *err);
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

/* spec_comm.c, for sched_spec_ranks.c: an event from another rank
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
/* Append a record for `ev`, before every k-th event with a snapshot of the
 * LP's kernel and model state; NULL with *err set when memory or the
 * model's save fails. spec_table_push_slow is its general case. */
spec_record *spec_table_push_slow(rtcosim_lp *lp, rtcosim_event *ev, rtcosim_error *err);
/* Write the next record (room known) and the copies of the newest one's
 * fields; `end`: where the live snapshot bytes end after it. */
static inline spec_record *spec_table_append(spec_lp *s, rtcosim_event *ev, size_t state_off,
                                             uint32_t ckpt_dist, size_t end)
{
    spec_record *r = &s->rec[(s->head + s->count) & (s->cap - 1)];
    r->ev = ev;
    r->sent = NULL;
    r->time = ev->time;
    r->state_off = (uint32_t)state_off;
    r->ckpt_dist = ckpt_dist;
    s->count++;
    /* the next record's line is usually cold (the ring is as long as the
     * events since GVT): fetch it for writing now, not at the next event */
    __builtin_prefetch(&s->rec[(s->head + s->count) & (s->cap - 1)], 1);
    s->last_time = r->time;
    s->last_ckpt_dist = ckpt_dist;
    s->last_end = end;
    return r;
}
static inline spec_record *spec_table_push(rtcosim_lp *lp, rtcosim_event *ev,
                                           rtcosim_error *err)
{
    spec_lp *s = lp->spec;
    /* the usual event, inline: no snapshot due, room in the ring, not the
     * end of the adaptive interval's window */
    if (s->count == 0 || s->last_ckpt_dist + 1 >= s->ckpt_interval || s->count == s->cap ||
        s->win_events + 1 >= CKPT_WINDOW)
        return spec_table_push_slow(lp, ev, err);
    s->win_events++;
    /* no snapshot: empty, at the tail of the live bytes */
    return spec_table_append(s, ev, s->last_end, s->last_ckpt_dist + 1, s->last_end);
}
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
