/* The event kernel: exact event times of a token ring, identical per-LP event
 * traces under every scheduler and thread count, and the refusals of bad
 * input (zero-lookahead cycles, negative lookahead, events in the past,
 * missing links, lookahead violations, livelock) and the deadlock diagnosis. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/events.h"

/* ---- a ring: LP i forwards the token to i+1 after (i+1) us ---- */

typedef struct ring_lp {
    uint32_t n, index;
    uint64_t received;
    rtcosim_time_ns last;
} ring_lp;

static rtcosim_status ring_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    ring_lp *r = state;
    return r->index == 0 ? rtcosim_lp_send(lp, rtcosim_lp_self(lp), 0, 0, 0, NULL, 0, err)
                         : RTCOSIM_OK;
}

static rtcosim_status ring_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                 rtcosim_error *err)
{
    ring_lp *r = state;
    r->received++;
    r->last = ev->time;
    return rtcosim_lp_send(lp, (r->index + 1) % r->n, (r->index + 1) * RTCOSIM_NS_PER_US, 0, 0,
                           NULL, 0, err);
}

static const rtcosim_lp_model ring_model = {.kind = "ring", .init = ring_init,
                                            .event = ring_event};

static rtcosim_events *make_ring(ring_lp *lps, uint32_t n)
{
    rtcosim_events *sim;
    rtcosim_error err;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    for (uint32_t i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "ring%u", i);
        lps[i] = (ring_lp){.n = n, .index = i};
        assert_int_equal(rtcosim_events_add_lp(sim, name, &ring_model, &lps[i],
                                               RTCOSIM_LP_NO_GROUP, NULL, &err), RTCOSIM_OK);
    }
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(rtcosim_events_add_link(sim, i, (i + 1) % n,
                                                 (i + 1) * RTCOSIM_NS_PER_US, &err), RTCOSIM_OK);
    return sim;
}

static void token_ring_hits_hand_computed_times_under_every_scheduler(void **state)
{
    (void)state;
    /* Delays 1, 2, 3, 4 us: the token is at LP0 at 10k us, LP1 at 1 + 10k,
     * LP2 at 3 + 10k, LP3 at 6 + 10k. Up to 1000 us inclusive: LP0 receives
     * 101 times (last 1000 us), LP1..3 100 times (last 991, 993, 996 us). */
    const uint64_t want_count[4] = {101, 100, 100, 100};
    const rtcosim_time_ns want_last[4] = {1000000, 991000, 993000, 996000};
    const struct { rtcosim_scheduler s; unsigned threads; } runs[] = {
        {RTCOSIM_SCHEDULER_SEQUENTIAL, 1}, {RTCOSIM_SCHEDULER_CONSERVATIVE, 1},
        {RTCOSIM_SCHEDULER_CONSERVATIVE, 2}, {RTCOSIM_SCHEDULER_CONSERVATIVE, 4},
        {RTCOSIM_SCHEDULER_GLOBAL, 1}, {RTCOSIM_SCHEDULER_LOCKSTEP, 1},
    };
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        ring_lp lps[4];
        rtcosim_events *sim = make_ring(lps, 4);
        rtcosim_run_options o = {.scheduler = runs[r].s, .threads = runs[r].threads,
                                 .stop_time = RTCOSIM_NS_PER_MS};
        rtcosim_run_stats stats;
        rtcosim_error err;
        assert_int_equal(rtcosim_events_run(sim, &o, &stats, &err), RTCOSIM_OK);
        assert_int_equal(stats.events, 401);
        for (int i = 0; i < 4; i++) {
            assert_int_equal(lps[i].received, want_count[i]);
            assert_int_equal(lps[i].last, want_last[i]);
        }
        rtcosim_events_free(sim);
    }
}

/* ---- traces: every LP records (time, source, sequence) of what it processed ---- */

enum { TRACE_LPS = 12, TRACE_MAX = 4096 };

typedef struct trace_lp {
    uint32_t count;
    uint64_t entries[TRACE_MAX][3];
} trace_lp;

/* Each event spawns one to another LP (random, possibly with zero delay to
 * itself) so that ties at equal times and zero-delay chains both occur. */
static rtcosim_status trace_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    (void)state;
    for (int i = 0; i < 3; i++) {
        rtcosim_status st = rtcosim_lp_send(lp, rtcosim_lp_self(lp), i * 500, 0, (uint16_t)i,
                                            NULL, 0, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

static rtcosim_status trace_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                  rtcosim_error *err)
{
    trace_lp *t = state;
    if (t->count < TRACE_MAX) {
        t->entries[t->count][0] = (uint64_t)ev->time;
        t->entries[t->count][1] = ev->src;
        t->entries[t->count][2] = ev->seq;
        t->count++;
    }
    uint32_t self = rtcosim_lp_self(lp);
    uint32_t pick = rtcosim_lp_random_below(lp, 4);
    if (pick == 0) /* zero delay to itself */
        return rtcosim_lp_send(lp, self, 0, 1, 3, NULL, 0, err);
    /* coarse delays (multiples of 1 us) so that equal times are common */
    rtcosim_time_ns delay = (rtcosim_time_ns)(1 + rtcosim_lp_random_below(lp, 5)) * 1000;
    uint32_t dst = pick == 1 ? self : (self + pick) % TRACE_LPS;
    return rtcosim_lp_send(lp, dst, delay, 0, (uint16_t)rtcosim_lp_random_below(lp, 2), NULL, 0,
                           err);
}

static const rtcosim_lp_model trace_model = {.kind = "trace", .init = trace_init,
                                             .event = trace_event};

static void run_trace(rtcosim_scheduler s, unsigned threads, bool rounds, trace_lp *lps)
{
    rtcosim_events *sim;
    rtcosim_error err;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    for (uint32_t i = 0; i < TRACE_LPS; i++) {
        char name[16];
        snprintf(name, sizeof name, "t%u", i);
        assert_int_equal(rtcosim_events_add_lp(sim, name, &trace_model, &lps[i],
                                               RTCOSIM_LP_NO_GROUP, NULL, &err), RTCOSIM_OK);
    }
    for (uint32_t i = 0; i < TRACE_LPS; i++)
        for (uint32_t k = 2; k < 4; k++)
            assert_int_equal(rtcosim_events_add_link(sim, i, (i + k) % TRACE_LPS, 1000, &err),
                             RTCOSIM_OK);
    rtcosim_run_options o = {.scheduler = s, .threads = threads, .stop_time = 300000,
                             .seed = 7, .conservative_rounds = rounds};
    assert_int_equal(rtcosim_events_run(sim, &o, NULL, &err), RTCOSIM_OK);
    rtcosim_events_free(sim);
}

static void every_scheduler_processes_each_lp_in_the_same_order(void **state)
{
    (void)state;
    trace_lp *ref = calloc(TRACE_LPS, sizeof *ref), *got = calloc(TRACE_LPS, sizeof *got);
    run_trace(RTCOSIM_SCHEDULER_SEQUENTIAL, 1, false, ref);
    uint32_t total = 0;
    for (int i = 0; i < TRACE_LPS; i++) {
        total += ref[i].count;
        assert_true(ref[i].count < TRACE_MAX);
        /* the trace itself is in the total order: time, then (for equal
         * times) never a zero-delay child before its cause */
        for (uint32_t k = 1; k < ref[i].count; k++)
            assert_true(ref[i].entries[k][0] >= ref[i].entries[k - 1][0]);
    }
    assert_true(total > 1000);
    const struct { rtcosim_scheduler s; unsigned threads; bool rounds; } runs[] = {
        {RTCOSIM_SCHEDULER_CONSERVATIVE, 1, false}, {RTCOSIM_SCHEDULER_CONSERVATIVE, 2, false},
        {RTCOSIM_SCHEDULER_CONSERVATIVE, 4, false}, {RTCOSIM_SCHEDULER_CONSERVATIVE, 2, true},
        {RTCOSIM_SCHEDULER_CONSERVATIVE, 4, true}, {RTCOSIM_SCHEDULER_GLOBAL, 1, false},
        {RTCOSIM_SCHEDULER_LOCKSTEP, 1, false},
    };
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        memset(got, 0, TRACE_LPS * sizeof *got);
        run_trace(runs[r].s, runs[r].threads, runs[r].rounds, got);
        for (int i = 0; i < TRACE_LPS; i++) {
            assert_int_equal(got[i].count, ref[i].count);
            assert_memory_equal(got[i].entries, ref[i].entries,
                                ref[i].count * sizeof ref[i].entries[0]);
        }
    }
    free(ref);
    free(got);
}

static void phold_checksum_is_independent_of_scheduler_and_threads(void **state)
{
    (void)state;
    rtcosim_events *sim;
    rtcosim_phold *ph;
    rtcosim_error err;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    rtcosim_phold_config c = {.lps = 64, .events_per_lp = 4, .remote_fraction = 0.1,
                              .lookahead = 100000, .mean_increment = 1000000};
    assert_int_equal(rtcosim_phold_build(sim, &c, &ph, &err), RTCOSIM_OK);
    uint64_t ref = 0, ref_events = 0;
    const struct { rtcosim_scheduler s; unsigned threads; } runs[] = {
        {RTCOSIM_SCHEDULER_SEQUENTIAL, 1}, {RTCOSIM_SCHEDULER_CONSERVATIVE, 2},
        {RTCOSIM_SCHEDULER_CONSERVATIVE, 4}, {RTCOSIM_SCHEDULER_GLOBAL, 1},
        {RTCOSIM_SCHEDULER_LOCKSTEP, 1},
    };
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        rtcosim_phold_reset(ph);
        rtcosim_run_options o = {.scheduler = runs[r].s, .threads = runs[r].threads,
                                 .stop_time = 50 * RTCOSIM_NS_PER_MS, .seed = 3,
                                 .lockstep_tick = 100000};
        rtcosim_run_stats stats;
        assert_int_equal(rtcosim_events_run(sim, &o, &stats, &err), RTCOSIM_OK);
        if (r == 0) {
            ref = rtcosim_phold_checksum(ph);
            ref_events = stats.events;
            /* 256 events in flight, each advancing 1.1 ms on average: about
             * 256 * 50 / 1.1 = 11600 events up to 50 ms */
            assert_in_range(stats.events, 9000, 14000);
        }
        assert_int_equal(rtcosim_phold_checksum(ph), ref);
        assert_int_equal(stats.events, ref_events);
    }
    rtcosim_phold_free(ph);
    rtcosim_events_free(sim);
}

/* ---- a burst bigger than a cross-thread ring ---- */

enum { BURST_TICKS = 10, BURST_SIZE = 3000 };

typedef struct burst_lp {
    uint32_t index;
    uint64_t received;
    uint32_t expected_next; /* receiver: payload counter of the next event */
    rtcosim_time_ns last;
    bool out_of_order;
} burst_lp;

static rtcosim_status burst_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    burst_lp *b = state;
    return b->index == 0 ? rtcosim_lp_send(lp, 0, 0, 1, 0, NULL, 0, err) : RTCOSIM_OK;
}

/* LP 0 ticks every ms for BURST_TICKS ms and sends BURST_SIZE events to the
 * last LP per tick, numbered; the last LP checks they come in that order. */
static rtcosim_status burst_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                  rtcosim_error *err)
{
    burst_lp *b = state;
    if (ev->type == 1) {
        rtcosim_status st = RTCOSIM_OK;
        for (uint32_t k = 0; k < BURST_SIZE && st == RTCOSIM_OK; k++) {
            uint32_t number = b->expected_next++;
            st = rtcosim_lp_send(lp, 7, RTCOSIM_NS_PER_MS, 2, 0, &number, sizeof number, err);
        }
        if (st == RTCOSIM_OK && ev->time < (BURST_TICKS - 1) * RTCOSIM_NS_PER_MS)
            st = rtcosim_lp_send(lp, 0, RTCOSIM_NS_PER_MS, 1, 0, NULL, 0, err);
        return st;
    }
    uint32_t number;
    memcpy(&number, ev->payload, sizeof number);
    b->out_of_order |= number != b->expected_next || ev->time < b->last;
    b->expected_next++;
    b->received++;
    b->last = ev->time;
    return RTCOSIM_OK;
}

static const rtcosim_lp_model burst_model = {.kind = "burst", .init = burst_init,
                                             .event = burst_event};

static void bursts_larger_than_a_ring_arrive_complete_and_in_order(void **state)
{
    (void)state;
    burst_lp lps[8];
    rtcosim_events *sim;
    rtcosim_error err;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    for (uint32_t i = 0; i < 8; i++) {
        char name[16];
        snprintf(name, sizeof name, "burst%u", i);
        assert_int_equal(rtcosim_events_add_lp(sim, name, &burst_model, &lps[i],
                                               RTCOSIM_LP_NO_GROUP, NULL, &err), RTCOSIM_OK);
    }
    assert_int_equal(rtcosim_events_add_link(sim, 0, 7, RTCOSIM_NS_PER_MS, &err), RTCOSIM_OK);
    /* 8 threads: one LP each, rings of 2048 slots, bursts of 3000 */
    const struct { rtcosim_scheduler s; unsigned threads; bool rounds; } runs[] = {
        {RTCOSIM_SCHEDULER_SEQUENTIAL, 1, false}, {RTCOSIM_SCHEDULER_CONSERVATIVE, 8, false},
        {RTCOSIM_SCHEDULER_CONSERVATIVE, 2, false}, {RTCOSIM_SCHEDULER_CONSERVATIVE, 8, true},
    };
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        memset(lps, 0, sizeof lps);
        for (uint32_t i = 0; i < 8; i++)
            lps[i].index = i;
        rtcosim_run_options o = {.scheduler = runs[r].s, .threads = runs[r].threads,
                                 .stop_time = 20 * RTCOSIM_NS_PER_MS,
                                 .conservative_rounds = runs[r].rounds};
        rtcosim_run_stats stats;
        assert_int_equal(rtcosim_events_run(sim, &o, &stats, &err), RTCOSIM_OK);
        assert_int_equal(lps[7].received, BURST_TICKS * BURST_SIZE);
        assert_false(lps[7].out_of_order);
        /* the last burst leaves at 9 ms and lands one lookahead later */
        assert_int_equal(lps[7].last, BURST_TICKS * RTCOSIM_NS_PER_MS);
        assert_int_equal(stats.events, BURST_TICKS * BURST_SIZE + BURST_TICKS);
        assert_true(stats.cpu_s > 0);
        if (runs[r].threads == 1) {
            /* nobody to wait for */
            assert_true(stats.blocked_s == 0.0);
            assert_int_equal(stats.sleeps, 0);
        } else if (!runs[r].rounds) {
            assert_int_equal(stats.cross_thread, BURST_TICKS * BURST_SIZE);
        }
    }
    rtcosim_events_free(sim);
}

/* ---- bad input ---- */

static rtcosim_status noop_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                 rtcosim_error *err)
{
    (void)lp, (void)state, (void)ev, (void)err;
    return RTCOSIM_OK;
}
static const rtcosim_lp_model noop_model = {.kind = "noop", .event = noop_event};

static rtcosim_events *make_named(const char *const *names, size_t n, const rtcosim_lp_model *m,
                                  void *state)
{
    rtcosim_events *sim;
    rtcosim_error err;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(rtcosim_events_add_lp(sim, names[i], m, state, RTCOSIM_LP_NO_GROUP,
                                               NULL, &err), RTCOSIM_OK);
    return sim;
}

static void zero_lookahead_cycle_is_refused_naming_the_cycle(void **state)
{
    (void)state;
    const char *names[] = {"brake", "engine", "gearbox", "body"};
    rtcosim_events *sim = make_named(names, 4, &noop_model, NULL);
    rtcosim_error err;
    assert_int_equal(rtcosim_events_add_link(sim, 3, 0, 1000, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_events_add_link(sim, 0, 1, 0, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_events_add_link(sim, 1, 2, 0, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_events_add_link(sim, 2, 0, 0, &err), RTCOSIM_OK);
    rtcosim_run_options o = {.stop_time = 1000};
    assert_int_equal(rtcosim_events_run(sim, &o, NULL, &err), RTCOSIM_ELOOP);
    assert_non_null(strstr(err.message, "'brake' -> 'engine' -> 'gearbox' -> 'brake'"));
    rtcosim_events_free(sim);
}

static void zero_lookahead_without_cycle_runs_on_threads(void **state)
{
    (void)state;
    ring_lp lps[3];
    rtcosim_events *sim = make_ring(lps, 3);
    rtcosim_error err;
    /* ring0 -> ring1 also with zero lookahead: acyclic in zero links */
    assert_int_equal(rtcosim_events_add_link(sim, 0, 1, 0, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_events_link_lookahead(sim, 0, 1), 0);
    rtcosim_run_options o = {.scheduler = RTCOSIM_SCHEDULER_CONSERVATIVE, .threads = 2,
                             .stop_time = 60 * RTCOSIM_NS_PER_US};
    assert_int_equal(rtcosim_events_run(sim, &o, NULL, &err), RTCOSIM_OK);
    /* cycle of 6 us: ring0 at 0, 6, ..., 60 */
    assert_int_equal(lps[0].received, 11);
    assert_int_equal(lps[0].last, 60000);
    rtcosim_events_free(sim);
}

static void negative_lookahead_is_refused(void **state)
{
    (void)state;
    const char *names[] = {"a", "b"};
    rtcosim_events *sim = make_named(names, 2, &noop_model, NULL);
    rtcosim_error err;
    assert_int_equal(rtcosim_events_add_link(sim, 0, 1, -5, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "'a' -> 'b' has negative lookahead -5 ns"));
    assert_int_equal(rtcosim_events_link_all(sim, 0, &err), RTCOSIM_EINVAL);
    rtcosim_events_free(sim);
}

typedef struct bad_sender {
    rtcosim_time_ns delay;
    rtcosim_lp_id dst;
    uint16_t size;
} bad_sender;

static rtcosim_status bad_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                rtcosim_error *err)
{
    (void)ev;
    const bad_sender *b = state;
    unsigned char payload[RTCOSIM_EVENT_PAYLOAD_MAX + 1] = {0};
    return rtcosim_lp_send(lp, b->dst, b->delay, 0, 0, payload, b->size, err);
}

static rtcosim_status bad_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    (void)state;
    return rtcosim_lp_self(lp) == 0 ? rtcosim_lp_send(lp, 0, 2000, 0, 0, NULL, 0, err)
                                      : RTCOSIM_OK;
}

static const rtcosim_lp_model bad_model = {.kind = "bad", .init = bad_init, .event = bad_event};

static void run_bad(bad_sender b, rtcosim_status want, const char *want_text)
{
    const char *names[] = {"ecu", "plant", "island"};
    rtcosim_events *sim = make_named(names, 3, &bad_model, &b);
    rtcosim_error err;
    assert_int_equal(rtcosim_events_add_link(sim, 0, 1, 5000, &err), RTCOSIM_OK);
    const rtcosim_scheduler all[] = {RTCOSIM_SCHEDULER_SEQUENTIAL, RTCOSIM_SCHEDULER_CONSERVATIVE,
                                     RTCOSIM_SCHEDULER_GLOBAL};
    for (size_t i = 0; i < 3; i++) {
        rtcosim_run_options o = {.scheduler = all[i], .threads = 2, .stop_time = 1000000};
        assert_int_equal(rtcosim_events_run(sim, &o, NULL, &err), want);
        if (!strstr(err.message, want_text))
            fail_msg("'%s' lacks '%s'", err.message, want_text);
    }
    rtcosim_events_free(sim);
}

static void event_in_the_past_is_refused_naming_lp_and_times(void **state)
{
    (void)state;
    run_bad((bad_sender){.delay = -500, .dst = 1}, RTCOSIM_EINVAL,
            "lp 'ecu' at t=0.000002000 s: event for lp 'plant' at t=0.000001500 s is in the past");
}

static void send_without_link_is_refused(void **state)
{
    (void)state;
    run_bad((bad_sender){.delay = 9000, .dst = 2}, RTCOSIM_EINVAL, "lp 'ecu': no link to lp 'island'");
}

static void send_below_lookahead_is_refused(void **state)
{
    (void)state;
    run_bad((bad_sender){.delay = 4999, .dst = 1}, RTCOSIM_EINVAL,
            "delay 4999 ns to lp 'plant' is below the link's lookahead 5000 ns");
}

static void oversized_payload_is_refused(void **state)
{
    (void)state;
    run_bad((bad_sender){.delay = 5000, .dst = 1, .size = RTCOSIM_EVENT_PAYLOAD_MAX + 1},
            RTCOSIM_EINVAL, "exceeds the 64-byte limit");
}

static void zero_delay_self_loop_is_stopped_as_livelock(void **state)
{
    (void)state;
    run_bad((bad_sender){.delay = 0, .dst = 0}, RTCOSIM_ELOOP, "zero-delay events in a chain");
}

/* ---- ties between one source's events go in send order ---- */

/* LP 0 sends type 1 at t = 0 for 10 us, then at 5 us (its self event) types
 * 2 and 3 for the same 10 us, same priority: LP 1 must see 1, 2, 3 (send
 * order), though 2 and 3 were sent with the smaller delay. */
typedef struct tie_state {
    uint16_t seen[8];
    size_t count;
} tie_state;

static rtcosim_status tie_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    (void)state;
    if (rtcosim_lp_self(lp) != 0)
        return RTCOSIM_OK;
    rtcosim_status st = rtcosim_lp_send(lp, 1, 10000, 1, 0, NULL, 0, err);
    return st == RTCOSIM_OK ? rtcosim_lp_send(lp, 0, 5000, 0, 0, NULL, 0, err) : st;
}

static rtcosim_status tie_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                rtcosim_error *err)
{
    tie_state *t = state;
    if (rtcosim_lp_self(lp) == 0) {
        rtcosim_status st = rtcosim_lp_send(lp, 1, 5000, 2, 0, NULL, 0, err);
        return st == RTCOSIM_OK ? rtcosim_lp_send(lp, 1, 5000, 3, 0, NULL, 0, err) : st;
    }
    if (t->count < 8)
        t->seen[t->count++] = ev->type;
    return RTCOSIM_OK;
}

static void ties_go_in_send_order_under_every_scheduler(void **state)
{
    (void)state;
    const struct { rtcosim_scheduler s; unsigned threads; } runs[] = {
        {RTCOSIM_SCHEDULER_SEQUENTIAL, 1}, {RTCOSIM_SCHEDULER_CONSERVATIVE, 2},
        {RTCOSIM_SCHEDULER_GLOBAL, 1}, {RTCOSIM_SCHEDULER_LOCKSTEP, 1},
        {RTCOSIM_SCHEDULER_SPECULATIVE, 2},
    };
    const rtcosim_lp_model m = {.kind = "tie", .init = tie_init, .event = tie_event,
                                .state_size = sizeof(tie_state)};
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        tie_state states[2] = {{{0}, 0}, {{0}, 0}};
        rtcosim_events *sim;
        rtcosim_error err;
        assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
        for (int i = 0; i < 2; i++)
            assert_int_equal(rtcosim_events_add_lp(sim, i ? "rx" : "tx", &m, &states[i],
                                                   RTCOSIM_LP_NO_GROUP, NULL, &err),
                             RTCOSIM_OK);
        assert_int_equal(rtcosim_events_add_link(sim, 0, 1, 1000, &err), RTCOSIM_OK);
        rtcosim_run_options o = {.scheduler = runs[r].s, .threads = runs[r].threads,
                                 .stop_time = 20000};
        assert_int_equal(rtcosim_events_run(sim, &o, NULL, &err), RTCOSIM_OK);
        assert_int_equal(states[1].count, 3);
        assert_int_equal(states[1].seen[0], 1);
        assert_int_equal(states[1].seen[1], 2);
        assert_int_equal(states[1].seen[2], 3);
        rtcosim_events_free(sim);
    }
}

/* More sends at one instant than the tie-break counts is refused. */
static rtcosim_status flood_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    (void)state;
    rtcosim_status st = RTCOSIM_OK;
    /* past the stop time: counted, never queued, so nothing is allocated */
    for (long i = 0; i <= (1L << 20) && st == RTCOSIM_OK; i++)
        st = rtcosim_lp_send(lp, 0, RTCOSIM_NS_PER_S, 0, 0, NULL, 0, err);
    return st;
}

static void too_many_sends_at_one_instant_are_refused(void **state)
{
    (void)state;
    const rtcosim_lp_model m = {.kind = "flood", .init = flood_init};
    const char *names[] = {"flood"};
    rtcosim_events *sim = make_named(names, 1, &m, NULL);
    rtcosim_error err;
    rtcosim_run_options o = {.stop_time = 1000};
    assert_int_equal(rtcosim_events_run(sim, &o, NULL, &err), RTCOSIM_ELOOP);
    assert_non_null(strstr(err.message, "'flood'"));
    assert_non_null(strstr(err.message, "more than 1048576 events sent at one instant"));
    rtcosim_events_free(sim);
}

/* ---- deadlock diagnosis ---- */

static rtcosim_status pair_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    (void)state;
    return rtcosim_lp_send(lp, rtcosim_lp_self(lp), 5000, 0, 0, NULL, 0, err);
}

static const rtcosim_lp_model pair_model = {.kind = "pair", .init = pair_init,
                                            .event = noop_event};

static void blocked_lps_are_diagnosed_instead_of_hanging(void **state)
{
    (void)state;
    /* a <-> b with lookahead 1 us, each with an event at 5 us and nothing
     * ever sent between them: without null messages each waits for the
     * other's channel, which stays at 0 + 1 us. */
    const char *names[] = {"a", "b"};
    rtcosim_events *sim = make_named(names, 2, &pair_model, NULL);
    rtcosim_error err;
    assert_int_equal(rtcosim_events_add_link(sim, 0, 1, 1000, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_events_add_link(sim, 1, 0, 1000, &err), RTCOSIM_OK);
    rtcosim_run_options o = {.scheduler = RTCOSIM_SCHEDULER_GLOBAL, .no_null_messages = true,
                             .stop_time = RTCOSIM_NS_PER_MS};
    assert_int_equal(rtcosim_events_run(sim, &o, NULL, &err), RTCOSIM_ETIMEOUT);
    assert_non_null(strstr(err.message, "deadlock at t=0.000005000 s, 2 LPs blocked"));
    const char *want =
        "lp 'a': clock 0.000000000 s, next event 0.000005000 s, earliest input time 0.000001000 s"
        " held back by link 'b' -> 'a'\n"
        "lp 'b': clock 0.000000000 s, next event 0.000005000 s, earliest input time 0.000001000 s"
        " held back by link 'a' -> 'b'";
    assert_string_equal(rtcosim_events_diagnosis(sim), want);
    /* with null messages the same system runs to the end */
    o.no_null_messages = false;
    rtcosim_run_stats stats;
    assert_int_equal(rtcosim_events_run(sim, &o, &stats, &err), RTCOSIM_OK);
    assert_int_equal(stats.events, 2);
    assert_string_equal(rtcosim_events_diagnosis(sim), "");
    rtcosim_events_free(sim);
}

static void lockstep_tick_above_lookahead_is_refused(void **state)
{
    (void)state;
    ring_lp lps[2];
    rtcosim_events *sim = make_ring(lps, 2);
    rtcosim_error err;
    rtcosim_run_options o = {.scheduler = RTCOSIM_SCHEDULER_LOCKSTEP, .lockstep_tick = 1500,
                             .stop_time = 1000000};
    assert_int_equal(rtcosim_events_run(sim, &o, NULL, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "lockstep tick 1500 ns exceeds the lookahead 1000 ns"
                                        " of link 'ring0' -> 'ring1'"));
    rtcosim_events_free(sim);
}

static void scheduler_names_round_trip(void **state)
{
    (void)state;
    rtcosim_scheduler s;
    for (int i = 0; i < 4; i++) {
        assert_int_equal(rtcosim_scheduler_parse(rtcosim_scheduler_name((rtcosim_scheduler)i), &s), 0);
        assert_int_equal(s, i);
    }
    assert_int_equal(rtcosim_scheduler_parse("optimistic", &s), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(token_ring_hits_hand_computed_times_under_every_scheduler),
        cmocka_unit_test(every_scheduler_processes_each_lp_in_the_same_order),
        cmocka_unit_test(phold_checksum_is_independent_of_scheduler_and_threads),
        cmocka_unit_test(zero_lookahead_cycle_is_refused_naming_the_cycle),
        cmocka_unit_test(zero_lookahead_without_cycle_runs_on_threads),
        cmocka_unit_test(bursts_larger_than_a_ring_arrive_complete_and_in_order),
        cmocka_unit_test(negative_lookahead_is_refused),
        cmocka_unit_test(event_in_the_past_is_refused_naming_lp_and_times),
        cmocka_unit_test(send_without_link_is_refused),
        cmocka_unit_test(send_below_lookahead_is_refused),
        cmocka_unit_test(oversized_payload_is_refused),
        cmocka_unit_test(zero_delay_self_loop_is_stopped_as_livelock),
        cmocka_unit_test(ties_go_in_send_order_under_every_scheduler),
        cmocka_unit_test(too_many_sends_at_one_instant_are_refused),
        cmocka_unit_test(blocked_lps_are_diagnosed_instead_of_hanging),
        cmocka_unit_test(lockstep_tick_above_lookahead_is_refused),
        cmocka_unit_test(scheduler_names_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
