/* The parallel discrete-event kernel: logical processes (LPs) exchanging
 * time-stamped events over declared links with lookahead, run by a sequential,
 * a conservative multi-threaded, a lockstep or a Chandy-Misra-Bryant
 * "global" scheduler. The kernel is small and knows nothing of models: a model
 * is a struct of handlers (init, event, final), as in ROSS.
 *
 * Determinism: events are processed in each LP in one total order, the key
 * (time, depth, priority, source LP, the source's send order), whatever the
 * scheduler and thread count, so every run of the same model and seed is
 * identical bit for bit. `depth` counts the zero-delay sends that led to an
 * event at the same time, so an event always sorts after the event that
 * caused it. Each LP owns a random stream seeded from (seed, LP index). */
#ifndef RTCOSIM_EVENTS_H
#define RTCOSIM_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/status.h"
#include "rtcosim/time.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest payload carried inline in an event (bytes). */
#define RTCOSIM_EVENT_PAYLOAD_MAX 64
/* Longest chain of zero-delay sends at one time before the run is stopped
 * as a livelock. */
#define RTCOSIM_EVENT_DEPTH_MAX 65535

typedef uint32_t rtcosim_lp_id;

/* One event as a handler sees it (read-only). 128 bytes on two cache lines
 * of its own: events of different threads never share a line, and none
 * straddles three. */
typedef struct rtcosim_event {
    _Alignas(64) rtcosim_time_ns time;
    uint64_t tie;            /* depth << 48 | priority << 32 | source LP (ordering key) */
    uint64_t seq;            /* per-source send order among equal (time, tie) */
    struct rtcosim_event *next; /* kernel use */
    rtcosim_lp_id src, dst;
    uint16_t type;           /* model-defined kind */
    uint16_t size;           /* payload bytes used */
    uint32_t reserved_;
    struct rtcosim_event *link; /* kernel use: the pending set's bucket lists (in the first
                                 * cache line, which filing and sorting touch anyway) */
    _Alignas(8) unsigned char payload[RTCOSIM_EVENT_PAYLOAD_MAX];
} rtcosim_event;

static inline unsigned rtcosim_event_priority(const rtcosim_event *ev)
{
    return (unsigned)((ev->tie >> 32) & 0xFFFFu);
}

typedef struct rtcosim_events rtcosim_events; /* a simulation (opaque) */
typedef struct rtcosim_lp rtcosim_lp;         /* an LP, as passed to handlers (opaque) */

/* A model: handlers called with the LP's own state. Any may be NULL. A handler
 * failing stops the run; the run's error names the LP and the time. */
typedef struct rtcosim_lp_model {
    const char *kind; /* "phold", "can-bus", "ecu", ... */
    /* Once before the run at the start time: schedule the first events. */
    rtcosim_status (*init)(rtcosim_lp *lp, void *state, rtcosim_error *err);
    rtcosim_status (*event)(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                            rtcosim_error *err);
    /* Once after the run, in LP order on the calling thread: statistics. */
    rtcosim_status (*final)(rtcosim_lp *lp, void *state, rtcosim_error *err);
    /* State saving for the speculative scheduler, which saves the LP's state
     * before every event it processes and writes it back on rollback. Either
     * `state_size` > 0 with no handlers: the first state_size bytes at
     * `state` are copied; or the three handlers: snapshot_max gives the
     * largest snapshot of this LP, save writes one (at most that many bytes,
     * the size used in *used), restore writes it back. A model with neither
     * is never speculated on: its LP runs conservatively among the
     * speculative ones (it needs a positive lookahead on its inputs). */
    size_t state_size;
    size_t (*snapshot_max)(const void *state);
    rtcosim_status (*save)(const void *state, void *buffer, size_t capacity, size_t *used,
                           rtcosim_error *err);
    rtcosim_status (*restore)(void *state, const void *buffer, size_t size, rtcosim_error *err);
    /* Every event of this LP earlier than `before` is final: no rollback
     * will ever take the LP back before it, so what those events produced
     * can leave the LP (written out, freed). Called on the thread that runs
     * the LP, between its events: under the speculative scheduler at each
     * fossil collection with the GVT; under the others now and then (every
     * 1024 events of the LP, with the time of the event about to be
     * processed); and once after every run, also one that failed or was
     * stopped, with RTCOSIM_TIME_MAX (before `final`). `before` never
     * decreases during a run. A failure stops the run. */
    rtcosim_status (*commit)(rtcosim_lp *lp, void *state, rtcosim_time_ns before,
                             rtcosim_error *err);
} rtcosim_lp_model;

typedef enum rtcosim_scheduler {
    /* One global queue, one thread: the reference order. */
    RTCOSIM_SCHEDULER_SEQUENTIAL = 0,
    /* Worker threads, each owning a partition of the LPs. A thread processes
     * its events earlier than the lower bound on timestamps of what the other
     * threads can still send it: their published promise (a lower bound on
     * the time of anything they will process) plus the lookahead of their
     * links into it, a per thread-pair channel clock. Cross-thread events go
     * through lock-free single-producer rings; no barrier. With
     * `conservative_rounds` the threads instead advance in barrier-separated
     * rounds (YAWNS-style windows), for comparison. */
    RTCOSIM_SCHEDULER_CONSERVATIVE,
    /* Chandy-Misra-Bryant per LP on one thread: an LP confirms its oldest
     * event once every input link holds a message (real or null) promising
     * nothing earlier. Null messages carry each LP's promise, min(earliest
     * input time, next event time) + lookahead; with `no_null_messages` only
     * real messages advance the links (the classic scheme, for comparison: it
     * can deadlock, and then the run fails with a diagnosis of what holds each
     * LP back). */
    RTCOSIM_SCHEDULER_GLOBAL,
    /* Time-stepped baseline: every LP is visited in every tick of
     * `lockstep_tick` and processes its events of that tick. The tick must not
     * exceed the smallest lookahead between different LPs. */
    RTCOSIM_SCHEDULER_LOCKSTEP,
    /* Time Warp (Jefferson 1985) on worker threads, each owning a partition
     * of the LPs as the conservative scheduler places them: every thread
     * processes its events optimistically in timestamp order, recording each
     * event and what it sent, and the LP's state (clock, send count, random
     * stream, model state) before every k-th (checkpoint_interval); an event
     * arriving in an LP's past (a straggler) rolls that LP back, and the
     * events it sent from the undone steps that it does not send again the
     * same are cancelled (lazily by default, see aggressive_cancellation) by
     * anti-messages, which may roll back their receivers in turn. The global
     * virtual time (GVT, Mattern's two-colour cut, no barrier) bounds every
     * future rollback: state and events below it are committed and freed.
     * No LP runs more than `max_ahead` past GVT, which bounds memory and
     * cascades. Streams declared with rtcosim_events_add_prediction are
     * predicted when their events are missing (see there). Committed results
     * equal the sequential scheduler's bit for bit when `threshold` is 0. */
    RTCOSIM_SCHEDULER_SPECULATIVE
} rtcosim_scheduler;

const char *rtcosim_scheduler_name(rtcosim_scheduler s);
/* "sequential", "conservative", "global", "lockstep", "speculative".
 * Returns 0 or -1. */
int rtcosim_scheduler_parse(const char *text, rtcosim_scheduler *out);

/* Over MPI ranks (rtcosim/events_dist.h): how the ranks agree on what is
 * safe to process. REDUCTION: windows from a collective reduction of every
 * rank's earliest next time plus the smallest lookahead between ranks
 * (YAWNS); NULL_MESSAGES: Chandy-Misra-Bryant, each rank sends each other
 * rank its events with a promise (earliest time it can still send there,
 * from the per-link lookaheads) and advances as soon as its own channels
 * allow, without any collective. Both give the single-process results. */
typedef enum rtcosim_rank_sync {
    RTCOSIM_RANK_SYNC_DEFAULT = 0,
    RTCOSIM_RANK_SYNC_REDUCTION,
    RTCOSIM_RANK_SYNC_NULL_MESSAGES
} rtcosim_rank_sync;

/* "reduction" / "null" (and back); the name of DEFAULT is the one it means.
 * parse returns 0, or -1 for an unknown name. */
const char *rtcosim_rank_sync_name(rtcosim_rank_sync s);
int rtcosim_rank_sync_parse(const char *text, rtcosim_rank_sync *out);

typedef struct rtcosim_run_options {
    rtcosim_scheduler scheduler;
    unsigned threads;             /* conservative only; 0 means 1 */
    rtcosim_time_ns start_time;   /* LP clocks start here */
    rtcosim_time_ns stop_time;    /* events with time <= stop_time are processed */
    /* lockstep only; 0: 1 us, or the smallest lookahead between LPs when
     * that is shorter (an emulated core's response delay can be 135 ns) */
    rtcosim_time_ns lockstep_tick;
    uint64_t seed;                /* random streams */
    bool no_null_messages;        /* global only: see RTCOSIM_SCHEDULER_GLOBAL */
    bool conservative_rounds;     /* conservative only: barrier rounds, not channel clocks */
    /* speculative only: how far past GVT an LP may run (simulated ns);
     * 0: adapted during the run, from 256 times the smallest positive link
     * lookahead (see rtcosim_run_stats.max_ahead) */
    rtcosim_time_ns max_ahead;
    /* speculative only: threshold Tc of the cumulative prediction error of a
     * predicted stream within which a late event does not roll back to its
     * own step (see rtcosim_events_add_prediction); 0: exact */
    double threshold;
    /* speculative only: the distributed correction of a predicted stream
     * after a partial rollback (speculate.h, rtcosim_predictor_config):
     * 0 the mirrored spread, T > 0 at most T per step over as many steps as
     * |E| / T needs, then the rest; matters only with threshold > 0. */
    double correction_capacity;
    /* speculative only: an LP's model state is saved before every k-th event
     * it processes (k = checkpoint_interval); a rollback restores the last
     * snapshot at or before its target and re-executes the events between
     * (coast forward, their sends suppressed: the originals stand). 0: the
     * default, 1 for snapshots up to 128 bytes; for larger ones 4 at first,
     * then adapted per LP between 1 and 32 to its rollbacks (halved when it
     * re-executes more events than it saves snapshots, doubled when fewer
     * than half as many); 1: before every event */
    unsigned checkpoint_interval;
    /* speculative only: cancel what an undone event sent at once, when it is
     * undone (aggressive cancellation). The default is lazy cancellation
     * (Gafni 1988): the sends wait until the event is processed again, and
     * those it sends again identically (same time, order key, receiver,
     * type and payload) stand, so their receivers are not rolled back; only
     * the others are cancelled then. Results are the same either way. Over
     * MPI ranks, and into LPs with predicted streams, always aggressive. */
    bool aggressive_cancellation;
    /* over ranks: see rtcosim_rank_sync; with `threads` > 1 each rank
     * spreads its LPs over that many threads (conservative, asynchronous) */
    rtcosim_rank_sync rank_sync;
} rtcosim_run_options;

typedef struct rtcosim_run_stats {
    uint64_t events;          /* processed (= committed: no speculation) */
    uint64_t rounds;          /* conservative: barrier rounds; lockstep: ticks */
    uint64_t cross_thread;    /* events sent between threads */
    double wall_s;            /* wall-clock time of the run */
    rtcosim_time_ns end_time; /* time of the last processed event */
    /* CPU time of the process during the run (all threads): events per CPU
     * second is the kernel's cost, robust to other load on the machine. */
    double cpu_s;
    /* conservative: wall time the threads spent waiting for the others
     * (spinning or asleep), summed over threads, and how often they slept */
    double blocked_s;
    uint64_t sleeps;
    /* speculative: times a waiting thread found another of the run on its
     * CPU and moved to a free one (src/events/spec_gvt.c) */
    uint64_t moves;
    /* speculative: events processed including those undone (events counts
     * the committed ones), rollbacks, events undone by them, anti-messages,
     * GVT rounds, predicted events processed */
    uint64_t processed, rollbacks, rolled_back, anti_messages, gvt_rounds, predicted;
    /* speculative, lazy cancellation: sends of re-processed events that
     * equalled what the undone event had sent, kept instead of cancelled */
    uint64_t reused;
    /* speculative: handler failures on events a rollback then undid */
    uint64_t failures_undone;
    /* speculative: LPs whose model cannot save its state, run conservatively
     * (rtcosim_lp_speculation.conservative names them) */
    uint64_t conservative_lps;
    /* speculative: the optimism bound at the end: the given max_ahead, or
     * the default adapted to the run (between a quarter of 256 lookaheads
     * and 16 times that: grown while threads waited at it and few events
     * were undone, halved when many were) */
    rtcosim_time_ns max_ahead;
} rtcosim_run_stats;

/* A simulated time the running simulation has reached, for a progress
 * display: the clock of some LP, stored every 1024 events an LP processes
 * (under speculation it may be ahead of what is committed). Callable from any
 * thread while rtcosim_events_run runs; the start time until then. */
rtcosim_time_ns rtcosim_events_progress(const rtcosim_events *sim);
/* Ask a run in progress (or the next one) to end early, from any thread or a
 * signal handler (one lock-free atomic store: async-signal-safe). Each LP
 * looks every 1024 of its events, so the run ends within a moment; it then
 * returns RTCOSIM_ECANCELED ("stopped on request at t = ..."), with the
 * statistics, final handlers and models' results (frames logged, ...) of what
 * was processed. Stays set until rtcosim_events_request_stop(sim, false). */
void rtcosim_events_request_stop(rtcosim_events *sim, bool stop);

/* Create an empty simulation. */
rtcosim_status rtcosim_events_create(rtcosim_events **out, rtcosim_error *err);
void rtcosim_events_free(rtcosim_events *sim);

/* Add an LP. `state` is owned by the caller and passed to every handler.
 * `group`: the id of an LP this one must share a thread with (e.g. a plant
 * names its ECU); RTCOSIM_LP_NO_GROUP leaves placement to the kernel. */
#define RTCOSIM_LP_NO_GROUP UINT32_MAX
rtcosim_status rtcosim_events_add_lp(rtcosim_events *sim, const char *name,
                                     const rtcosim_lp_model *model, void *state,
                                     uint32_t group, rtcosim_lp_id *out, rtcosim_error *err);

/* Change an LP's group (see rtcosim_events_add_lp) before a run. Placement
 * decides which links cross threads, and so how far threads may run apart:
 * keep LPs joined by short lookahead cycles together. */
rtcosim_status rtcosim_events_set_group(rtcosim_events *sim, rtcosim_lp_id lp, uint32_t group,
                                        rtcosim_error *err);

/* Declare that src may send to dst, every event at least `lookahead` after
 * src's clock. Negative lookahead is refused here; zero lookahead is allowed
 * unless it closes a cycle of zero-lookahead links (refused by run, naming
 * the cycle). Declaring a link again keeps the smaller lookahead. */
rtcosim_status rtcosim_events_add_link(rtcosim_events *sim, rtcosim_lp_id src, rtcosim_lp_id dst,
                                       rtcosim_time_ns lookahead, rtcosim_error *err);
/* Let every LP send to every other LP with this lookahead (> 0), for fully
 * connected models such as PHOLD. Explicit links keep their own lookahead. */
rtcosim_status rtcosim_events_link_all(rtcosim_events *sim, rtcosim_time_ns lookahead,
                                       rtcosim_error *err);

/* Declare a predictable input stream: the events of `type` that src sends
 * to dst carry `width` (1..8) doubles as their whole payload, one event per
 * instant (a sampled signal: a plant's outputs, an ECU's actuations). Under
 * the speculative scheduler dst does not wait for them: it predicts the next
 * event's values and time from the stream's past (least squares, see
 * rtcosim/speculate.h) and processes the prediction. When the real event
 * x[n] arrives after its prediction was processed, the scheme of the
 * speculate module decides: the steps n .. n+m-1 whose cumulative error stays
 * within the run's threshold Tc are kept, dst rolls back only to the
 * prediction n+m, and the predictions after it are corrected (distributed
 * correction). A real event at another time than predicted rolls back to the
 * earlier of the two. With Tc = 0 only bit-identical predictions are kept, so
 * results equal the sequential scheduler's. value_scale: width positive
 * weights of the error of each value (NULL: all 1). Other schedulers ignore
 * it. */
rtcosim_status rtcosim_events_add_prediction(rtcosim_events *sim, rtcosim_lp_id src,
                                             rtcosim_lp_id dst, uint16_t type, size_t width,
                                             const double *value_scale, rtcosim_error *err);

/* Run from start_time to stop_time. Can be called again after a run (the LPs
 * start afresh: the caller resets model state). */
rtcosim_status rtcosim_events_run(rtcosim_events *sim, const rtcosim_run_options *options,
                                  rtcosim_run_stats *stats, rtcosim_error *err);

/* A run stepped by the caller (a co-simulation component that holds LPs:
 * `rtcosim run --can-bus` with native ECUs): the sequential scheduler's
 * order on the calling thread, advanced instant range by instant range.
 * begin: the LPs' init handlers (options: start and stop time, seed; the
 * scheduler is ignored). next_time: the earliest pending event
 * (RTCOSIM_TIME_MAX: none). advance: every event at or before t. inject: an
 * event for lp at t, as if it had sent it to itself then (t not before its
 * clock; after the stop time it is dropped). end: the final handlers. Events
 * come in the same order as in one sequential run. */
rtcosim_status rtcosim_events_begin(rtcosim_events *sim, const rtcosim_run_options *options,
                                    rtcosim_error *err);
rtcosim_time_ns rtcosim_events_next_time(const rtcosim_events *sim);
rtcosim_status rtcosim_events_advance(rtcosim_events *sim, rtcosim_time_ns t, rtcosim_error *err);
rtcosim_status rtcosim_events_inject(rtcosim_events *sim, rtcosim_lp_id lp, rtcosim_time_ns t,
                                     uint16_t type, const void *payload, size_t size,
                                     rtcosim_error *err);
rtcosim_status rtcosim_events_end(rtcosim_events *sim, rtcosim_error *err);

/* After a run that failed because no LP could progress: one line per blocked
 * LP (clock, next event, earliest input time, the link holding it back). The
 * error message carries the start of this text. Empty otherwise. */
const char *rtcosim_events_diagnosis(const rtcosim_events *sim);

size_t rtcosim_events_lp_count(const rtcosim_events *sim);
const char *rtcosim_events_lp_name(const rtcosim_events *sim, rtcosim_lp_id lp);
/* Events processed by one LP in the last run. */
uint64_t rtcosim_events_lp_processed(const rtcosim_events *sim, rtcosim_lp_id lp);
/* Speculative scheduler: one LP's statistics of the last run. */
#define RTCOSIM_SPEC_DEPTH_BINS 8
typedef struct rtcosim_lp_speculation {
    uint64_t processed;     /* events processed, those undone by rollbacks included */
    uint64_t committed;     /* events of the committed history */
    uint64_t rollbacks;     /* rollbacks of this LP (stragglers, cancellations, predictions) */
    uint64_t rolled_back;   /* events undone, then processed again */
    uint64_t coasted;       /* kept events re-executed to rebuild a state between snapshots */
    uint64_t anti_messages; /* sent events cancelled */
    uint64_t reused;        /* sends kept by lazy cancellation (see run options) */
    /* its handler failed on an event a rollback then undid (inputs only
     * speculation gave it): not the run's failure */
    uint64_t failures_undone;
    /* rollbacks by the events they undid: 1, 2-3, 4-7, 8-15, ..., >= 128 */
    uint64_t depth_hist[RTCOSIM_SPEC_DEPTH_BINS];
    uint64_t predicted;     /* predicted input events processed */
    uint64_t predictions_checked; /* real events compared with their prediction */
    double error_rms, error_max;  /* of those predictions (value units of the stream) */
    /* its model cannot save its state: never speculated on, it processed
     * only events no straggler could precede (no rollbacks, no predictions) */
    bool conservative;
} rtcosim_lp_speculation;
rtcosim_status rtcosim_events_lp_speculation(const rtcosim_events *sim, rtcosim_lp_id lp,
                                             rtcosim_lp_speculation *out, rtcosim_error *err);
/* Write every LP's speculation statistics as CSV (one header line, one line
 * per LP). */
rtcosim_status rtcosim_events_write_speculation_csv(const rtcosim_events *sim, const char *path,
                                                    rtcosim_error *err);

/* Lookahead of the link src -> dst, or -1 when there is none. */
rtcosim_time_ns rtcosim_events_link_lookahead(const rtcosim_events *sim, rtcosim_lp_id src,
                                              rtcosim_lp_id dst);

/* ---- Called from handlers ---- */

rtcosim_lp_id rtcosim_lp_self(const rtcosim_lp *lp);
const char *rtcosim_lp_name(const rtcosim_lp *lp);
rtcosim_time_ns rtcosim_lp_now(const rtcosim_lp *lp);
/* A time before which every event of the run, of every LP on every thread,
 * has been processed for good: none earlier is still queued or in flight,
 * and no rollback will process one again. For a model whose LPs share
 * something that events refer to (a bus's CAN FD bodies), to free what
 * only such events used. Called from the LP's handlers (commit included)
 * while the run goes; never decreases during a run. Sequential and stepped
 * runs: the LP's clock; conservative threads: the least of their promises
 * (rounds: the round's earliest event); global and lockstep: the earliest
 * queued event; speculative: GVT. Over ranks nothing is known:
 * INT64_MIN. */
rtcosim_time_ns rtcosim_lp_floor(const rtcosim_lp *lp);

/* Send an event to dst at now + delay. To another LP it needs a link and
 * delay >= the link's lookahead; delay < 0 (an event in the LP's past) is an
 * error naming the LP and both times. priority orders events at the same
 * time and depth (lower first); payload of `size` <= RTCOSIM_EVENT_PAYLOAD_MAX
 * bytes is copied. */
rtcosim_status rtcosim_lp_send(rtcosim_lp *lp, rtcosim_lp_id dst, rtcosim_time_ns delay,
                               uint16_t type, uint16_t priority, const void *payload,
                               size_t size, rtcosim_error *err);

/* The LP's random stream (xoshiro256**, seeded from the run seed and the LP
 * index, so independent of the scheduler and thread count). */
uint64_t rtcosim_lp_random_u64(rtcosim_lp *lp);
double rtcosim_lp_random_uniform(rtcosim_lp *lp); /* in (0, 1] */
uint32_t rtcosim_lp_random_below(rtcosim_lp *lp, uint32_t n); /* in [0, n) */
double rtcosim_lp_random_exponential(rtcosim_lp *lp, double mean);

/* ---- PHOLD, the standard synthetic benchmark model (Fujimoto 1990) ----
 * Every LP starts with `events_per_lp` events; processing one sends one new
 * event, to a uniformly chosen other LP with probability remote_fraction,
 * else to itself, at now + lookahead + exponential(mean_increment). */
typedef struct rtcosim_phold_config {
    uint32_t lps;
    uint32_t events_per_lp;
    double remote_fraction;
    rtcosim_time_ns lookahead;
    rtcosim_time_ns mean_increment;
} rtcosim_phold_config;

typedef struct rtcosim_phold rtcosim_phold;

/* Add the PHOLD LPs (and an all-to-all link) to an empty simulation. */
rtcosim_status rtcosim_phold_build(rtcosim_events *sim, const rtcosim_phold_config *config,
                                   rtcosim_phold **out, rtcosim_error *err);
/* Reset the per-LP statistics before a new run of the same simulation. */
void rtcosim_phold_reset(rtcosim_phold *phold);
/* A hash of every LP's sequence of (time, source) of processed events: equal
 * checksums mean the same events were processed in the same order. */
uint64_t rtcosim_phold_checksum(const rtcosim_phold *phold);
void rtcosim_phold_free(rtcosim_phold *phold);

#ifdef __cplusplus
}
#endif
#endif
