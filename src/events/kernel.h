/* Internal structures of the event kernel shared by the schedulers: LPs,
 * links, workers (a thread's event pool, queue and mailboxes) and the
 * simulation. Not part of the public API. */
#ifndef RTCOSIM_EVENTS_KERNEL_H
#define RTCOSIM_EVENTS_KERNEL_H

#include <stdatomic.h>
#include <stddef.h>

#include "event_calendar.h"
#include "util/spin_wait.h"
#include "rtcosim/events.h"

typedef struct lp_link {
    rtcosim_lp_id peer;
    rtcosim_time_ns lookahead;
} lp_link;

/* Where rtcosim_lp_send puts a new event. */
typedef enum event_route {
    ROUTE_WORKER_HEAP = 0, /* the executing worker's heap (stepped) */
    ROUTE_CALENDAR,        /* the executing worker's calendar (sequential) */
    ROUTE_THREADS,         /* own thread's queue or a mailbox (conservative) */
    ROUTE_LP_HEAP,         /* the destination LP's own heap (global, lockstep) */
    ROUTE_SPECULATIVE,     /* own thread's queue (straggler check) or a ring (speculative) */
    ROUTE_RANKS            /* own thread's queue or the batch of another rank (distributed) */
} event_route;

typedef struct worker worker;

/* Zeroed memory on cache lines of its own, for what one thread writes often
 * and sits next to another thread's (freed with free). */
void *kernel_calloc_lines(size_t count, size_t size);

struct rtcosim_lp {
    /* on lines of its own: written on every event of the LP, and LPs next
     * to each other in memory may run on different threads */
    _Alignas(64) rtcosim_events *sim;
    worker *worker; /* context executing this LP's handlers */
    rtcosim_lp_id id;
    uint32_t group;
    unsigned thread;
    rtcosim_time_ns now;
    uint64_t depth; /* depth of the event being processed */
    uint64_t seq; /* sends at the present instant (event_seq) */
    /* speculative: rollback table, statistics (on the line the kernel
     * reads for every event, not one more) */
    struct spec_lp *spec;
    uint64_t rng[4];
    uint64_t processed;
    char *name;
    const rtcosim_lp_model *model;
    void *state;
    lp_link *out, *in; /* out sorted by peer once a run starts */
    size_t out_count, out_capacity, in_count, in_capacity;
    event_heap heap;         /* global and lockstep schedulers */
    rtcosim_time_ns promise; /* global: lower bound of its future send times minus lookahead */
    rtcosim_time_ns *in_clock; /* global: channel clock per input link */
};

_Static_assert(sizeof(rtcosim_event) == 128, "an event is two cache lines");
_Static_assert(offsetof(struct rtcosim_lp, spec) < 64 && offsetof(struct rtcosim_lp, state) < 128,
               "the fields of an LP read for every event fill its first two lines");

struct worker {
    _Alignas(64) rtcosim_events *sim; /* workers sit in an array: no false sharing */
    unsigned index;
    event_pool pool;
    event_heap heap;
    event_calendar calendar; /* pending events (sequential, speculative, conservative,
                              * over ranks) */
    int parity;
    /* Conservative: mailboxes to each thread for the current round parity,
     * as singly linked lists (head, tail), and the earliest time put in each. */
    rtcosim_event **outbox_head, **outbox_tail; /* [2 * threads] */
    uint64_t events, cross;
    /* Asynchronous variant: producer-side ring tails not yet published (the
     * events of a batch become visible together, before the next promise). */
    size_t *ring_tail; /* [threads] */
    spin_wait wait; /* adaptive spin budget, time blocked and sleeps */
    bool failed;
    rtcosim_error err;
    /* Conservative rounds: the earliest event of the round (rtcosim_lp_floor) */
    rtcosim_time_ns round_floor;
    struct spec_thread *spec; /* speculative scheduler's per-thread state */
};

struct rtcosim_events {
    rtcosim_lp **lps;
    size_t lp_count, lp_capacity;
    rtcosim_time_ns link_all; /* -1: none */
    event_route route;
    bool running_init;
    bool track_channels; /* global without null messages: real sends advance channels */
    rtcosim_time_ns stop;
    worker *workers;
    unsigned worker_count;
    char *diagnosis;
    size_t diagnosis_size;
    /* Conservative scheduler shared state, by round parity. */
    rtcosim_time_ns *lookahead_between; /* [threads * threads]: min link lookahead s -> t */
    _Atomic rtcosim_time_ns *next_published;  /* [2 * threads] */
    _Atomic rtcosim_time_ns *sent_published;  /* [2 * threads * threads] */
    _Atomic int *failed_published;             /* [2 * threads] */
    /* Thread of each LP, compact (threads <= 256): read on every send, where
     * the destination LP's own struct would be a cache miss. */
    uint8_t *lp_thread;
    /* Asynchronous variant: lock-free rings per thread pair, promises. */
    bool async;
    struct spsc_ring *rings;                    /* [threads * threads], s -> t at s * T + t */
    struct padded_time *promises;               /* [threads] */
    rtcosim_time_ns *lookahead_direct;          /* [threads * threads] */
    struct spec_shared *spec; /* speculative scheduler's shared state */
    struct spec_prediction_decl *predictions; /* rtcosim_events_add_prediction */
    size_t prediction_count;
    struct dist_state *dist; /* rtcosim_events_set_transport (sched_distributed.c) */
    worker *stepper; /* a stepped run in progress (rtcosim_events_begin), else NULL */
    /* What the threads write while running, each on a line of its own, away
     * from the fields above that every send reads (the struct is allocated
     * 64-byte aligned): the conservative scheduler's wake-up word, bumped
     * on every promise, and the progress clock. */
    _Alignas(64) _Atomic int abort_run;
    _Atomic uint32_t epoch;    /* bumped on every promise: what blocked threads sleep on */
    _Atomic uint32_t sleepers; /* threads asleep on epoch */
    _Atomic int64_t epoch_changed_at; /* monotonic ns of a bump seen by sleepers */
    /* rtcosim_events_progress: an LP clock, stored every 1024 events of an LP */
    _Alignas(64) _Atomic rtcosim_time_ns progress_time;
    _Atomic int stop_requested; /* rtcosim_events_request_stop; read beside progress_time */
};

/* Conservative asynchronous scheduler: hand an event to another thread. */
rtcosim_status conservative_push(worker *w, rtcosim_event *ev, unsigned thread,
                                 rtcosim_error *err);
/* The thread-level conservative machinery, also run inside each rank:
 * workers, rings, promises and lookaheads for T threads over the LPs this
 * process owns (placed on threads by lp->thread); free it all again; the
 * statistics and first error of the workers. */
rtcosim_status conservative_setup(rtcosim_events *sim, unsigned T, bool async,
                                  rtcosim_time_ns start, rtcosim_error *err);
void conservative_teardown(rtcosim_events *sim);
/* rtcosim_lp_floor for a conservative run: the least promise (rounds: the
 * earliest event of w's round). */
rtcosim_time_ns conservative_floor(const rtcosim_events *sim, const worker *w);
rtcosim_status conservative_collect(rtcosim_events *sim, rtcosim_run_stats *stats,
                                    rtcosim_error *err);
/* Worker w's share of the asynchronous variant until no thread has an event
 * at or before `limit` left (every thread calls it with the same limit);
 * thread 0 counts its batches in *rounds. Between two calls every promise
 * must be lowered to a bound of the events then queued
 * (conservative_restart). */
void conservative_window(rtcosim_events *sim, worker *w, rtcosim_time_ns limit,
                         uint64_t *rounds);
void conservative_restart(rtcosim_events *sim, rtcosim_time_ns promise);

/* A spinning-then-sleeping barrier of `parties` workers. */
typedef struct round_barrier {
    _Atomic unsigned arrived;
    _Atomic uint32_t generation;
    _Atomic int64_t changed_at; /* monotonic time of the last release */
    unsigned parties;
} round_barrier;
void round_barrier_wait(round_barrier *b, worker *w);

/* Speculative scheduler: deliver an event sent by a handler (or by init). */
rtcosim_status spec_deliver(worker *w, rtcosim_event *ev, rtcosim_error *err);
/* Distributed: deliver an event to this rank's heap or another rank's
 * batch; sum the run's statistics over ranks; free the rank state. */
rtcosim_status dist_deliver(worker *w, rtcosim_event *ev, rtcosim_error *err);
rtcosim_status kernel_dist_stats(rtcosim_events *sim, rtcosim_run_stats *stats,
                                 rtcosim_error *err);
void kernel_dist_free(rtcosim_events *sim);
int kernel_dist_size(const rtcosim_events *sim);
/* Place the LPs on T threads (groups and zero-lookahead links kept
 * together); fills lp->thread and sim->lp_thread. */
rtcosim_status kernel_partition(rtcosim_events *sim, unsigned T, rtcosim_error *err);

/* Process one event in its LP (clock, handler, error context). The event is
 * not freed. */
rtcosim_status kernel_process(rtcosim_lp *lp, const rtcosim_event *ev, rtcosim_error *err);
/* Push an event into the heap that `route` selects. */
rtcosim_status kernel_deliver(worker *w, rtcosim_event *ev, rtcosim_error *err);
/* Min lookahead of a link src -> dst (link_all included), -1 when none. */
rtcosim_time_ns kernel_lookahead(const rtcosim_events *sim, const rtcosim_lp *src,
                                 rtcosim_lp_id dst);
/* Write the per-LP text of `rtcosim_events_diagnosis`. */
void kernel_diagnosis_reset(rtcosim_events *sim);
void kernel_diagnosis_append(rtcosim_events *sim, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

rtcosim_status sched_sequential_run(rtcosim_events *sim, const rtcosim_run_options *o,
                                    rtcosim_run_stats *stats, rtcosim_error *err);
rtcosim_status sched_conservative_run(rtcosim_events *sim, const rtcosim_run_options *o,
                                      rtcosim_run_stats *stats, rtcosim_error *err);
rtcosim_status sched_global_run(rtcosim_events *sim, const rtcosim_run_options *o,
                                rtcosim_run_stats *stats, rtcosim_error *err);
rtcosim_status sched_speculative_run(rtcosim_events *sim, const rtcosim_run_options *o,
                                     rtcosim_run_stats *stats, rtcosim_error *err);
/* Across the ranks of sim->dist (more than one). */
rtcosim_status sched_distributed_run(rtcosim_events *sim, const rtcosim_run_options *o,
                                     rtcosim_run_stats *stats, rtcosim_error *err);
rtcosim_status sched_lockstep_run(rtcosim_events *sim, const rtcosim_run_options *o,
                                  rtcosim_run_stats *stats, rtcosim_error *err);

/* Call every LP's init handler in LP order (the events they send are routed
 * as sim->route says). */
rtcosim_status kernel_init_lps(rtcosim_events *sim, rtcosim_error *err);
/* rtcosim_events_run's first and last parts, shared with the stepped run
 * (sched_stepped.c). prepare completes *options (threads, stop time). */
rtcosim_status kernel_run_prepare(rtcosim_events *sim, rtcosim_run_options *options,
                                  rtcosim_error *err);
rtcosim_status kernel_run_final(rtcosim_events *sim, rtcosim_error *err);
/* rtcosim_lp_model.commit (kernel_commit.c): one LP's (its handler there,
 * the error naming the LP), and every owned LP's that has one, after a run
 * (all are called; the first failure is returned, or with err NULL logged
 * as a warning). */
rtcosim_status kernel_commit_lp(rtcosim_lp *lp, rtcosim_time_ns before, rtcosim_error *err);
rtcosim_status kernel_commit_lps(rtcosim_events *sim, rtcosim_time_ns before,
                                 rtcosim_error *err);
/* The stepped run's worker (sched_stepped.c), freed with the simulation. */
void sched_stepped_free(rtcosim_events *sim);

#endif
