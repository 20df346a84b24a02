/* The speculative (Time Warp) scheduler: committed results bit-identical to
 * the sequential scheduler at 1 and 2 threads (PHOLD, the ECU vehicle in
 * both placements; with the speculative one nothing is predicted), a
 * hand-built 3-LP case whose straggler and cascading cancellation are forced
 * (B runs ahead until A, on the other thread, sends into B's past: B rolls
 * back, its sends to C are cancelled and C rolls back too; the re-executed
 * events reproduce the sequential history exactly), the optimism bound, and
 * a predicted stream run through the scheme (exact at Tc = 0, kept with a
 * bounded, reported error at Tc > 0), a model that cannot save its state
 * run conservatively among speculative LPs, and its refusal when an input
 * has zero lookahead; the adaptive checkpoint interval (saves counted by
 * hand) and the adaptive optimism window. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "../../examples/ecus/vehicle.h"
#include "rtcosim/events.h"
#include "rtcosim/log.h"
#include "util/test_util.h"

static void phold_is_bit_identical_to_sequential_at_1_and_2_threads(void **state)
{
    (void)state;
    rtcosim_phold_config c = {.lps = 64, .events_per_lp = 4, .remote_fraction = 0.5,
                              .lookahead = RTCOSIM_NS_PER_S / 10,
                              .mean_increment = RTCOSIM_NS_PER_S};
    rtcosim_events *sim;
    rtcosim_phold *ph;
    rtcosim_error err;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_phold_build(sim, &c, &ph, &err), RTCOSIM_OK);
    rtcosim_run_options seq = {.scheduler = RTCOSIM_SCHEDULER_SEQUENTIAL,
                               .stop_time = 50 * RTCOSIM_NS_PER_S, .seed = 7};
    rtcosim_run_stats ref_stats, stats;
    assert_int_equal(rtcosim_events_run(sim, &seq, &ref_stats, &err), RTCOSIM_OK);
    uint64_t ref = rtcosim_phold_checksum(ph);
    /* max_ahead from one lookahead (little optimism) to the whole run */
    const rtcosim_time_ns ahead[] = {RTCOSIM_NS_PER_S / 10, 0, 50 * RTCOSIM_NS_PER_S};
    for (unsigned threads = 1; threads <= 2; threads++)
        for (size_t a = 0; a < sizeof ahead / sizeof ahead[0]; a++)
            for (int repeat = 0; repeat < 3; repeat++) {
                rtcosim_phold_reset(ph);
                rtcosim_run_options o = seq;
                o.scheduler = RTCOSIM_SCHEDULER_SPECULATIVE;
                o.threads = threads;
                o.max_ahead = ahead[a];
                /* a snapshot before every event, every 4th (default), every 13th */
                o.checkpoint_interval = repeat == 0 ? 1u : repeat == 1 ? 0u : 13u;
                assert_int_equal(rtcosim_events_run(sim, &o, &stats, &err), RTCOSIM_OK);
                assert_true(rtcosim_phold_checksum(ph) == ref);
                assert_int_equal(stats.events, ref_stats.events);
                assert_true(stats.processed >= stats.events);
                if (threads == 1)
                    assert_int_equal(stats.rollbacks, 0); /* one queue: nothing is late */
            }
    rtcosim_phold_free(ph);
    rtcosim_events_free(sim);
}

static void ecu_vehicle_is_bit_identical_to_conservative_at_1_and_2_threads(void **state)
{
    (void)state;
    const rtcosim_plant_mode modes[] = {RTCOSIM_PLANT_ACTIVE, RTCOSIM_PLANT_PASSIVE};
    for (size_t m = 0; m < 2; m++) {
        rtcosim_events *sim;
        rtcosim_ecu_vehicle *v;
        rtcosim_error err;
        rtcosim_ecu_vehicle_config vc = {.ecus = 4, .log_frames = true, .plant_mode = modes[m]};
        assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_ecu_vehicle_build(sim, &vc, &v, &err), RTCOSIM_OK);
        rtcosim_run_options o = {.scheduler = RTCOSIM_SCHEDULER_CONSERVATIVE, .threads = 2,
                                 .stop_time = RTCOSIM_NS_PER_S / 5};
        rtcosim_run_stats stats;
        assert_int_equal(rtcosim_events_run(sim, &o, &stats, &err), RTCOSIM_OK);
        uint64_t ref = rtcosim_ecu_vehicle_checksum(v);
        size_t frames = rtcosim_can_bus_log_count(rtcosim_ecu_vehicle_bus(v));
        assert_true(frames > 0);
        /* default bound and a generous one (more rollbacks) */
        const rtcosim_time_ns ahead[] = {0, 50 * RTCOSIM_NS_PER_MS};
        for (unsigned threads = 1; threads <= 2; threads++)
            for (size_t a = 0; a < 2; a++) {
                o.scheduler = RTCOSIM_SCHEDULER_SPECULATIVE;
                o.threads = threads;
                o.max_ahead = ahead[a];
                assert_int_equal(rtcosim_events_run(sim, &o, &stats, &err), RTCOSIM_OK);
                assert_true(rtcosim_ecu_vehicle_checksum(v) == ref);
                assert_int_equal(rtcosim_can_bus_log_count(rtcosim_ecu_vehicle_bus(v)), frames);
            }
        /* the speculative placement (a plant on its ECU's thread): the same
         * results; the plants' predicted actuation streams then never cross
         * threads, so even Tc = 0.1 predicts nothing and stays exact */
        rtcosim_events *paired_sim;
        rtcosim_ecu_vehicle *paired;
        vc.pair_plants = true;
        assert_int_equal(rtcosim_events_create(&paired_sim, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_ecu_vehicle_build(paired_sim, &vc, &paired, &err), RTCOSIM_OK);
        for (unsigned threads = 1; threads <= 2; threads++) {
            o.threads = threads;
            o.max_ahead = 0;
            o.threshold = threads == 2 ? 0.1 : 0.0;
            assert_int_equal(rtcosim_events_run(paired_sim, &o, &stats, &err), RTCOSIM_OK);
            assert_true(rtcosim_ecu_vehicle_checksum(paired) == ref);
            assert_int_equal(stats.predicted, 0);
        }
        o.threshold = 0;
        rtcosim_ecu_vehicle_free(paired);
        rtcosim_events_free(paired_sim);
        rtcosim_ecu_vehicle_free(v);
        rtcosim_events_free(sim);
    }
}

/* ---- the 3-LP case: A (thread 0) -> B -> C (thread 1) ----
 * B ticks every 100 us from 0 and forwards each tick to C 50 us later. A's
 * only event at 1 ms waits (in wall time) until B has speculatively passed
 * `wait_for`, then sends into B's past at 2 ms. B must roll back to 2 ms,
 * cancel what it sent to C after that, and C must roll back in turn. */

typedef struct tri_lp {
    int role; /* 0 A, 1 B, 2 C */
    uint64_t hash, count;
} tri_lp;

static _Atomic rtcosim_time_ns tri_b_max;  /* B's furthest time, not rolled back */
static rtcosim_time_ns tri_wait_for, tri_b_at_release;
static int64_t tri_timeout_ns = 2000000000;
static bool tri_waited_out;
/* B forwards its tick's time instead of the hash of all it saw: then A's
 * event changes nothing B sends */
static bool tri_forward_time;
/* B forwards A's event too (at 2 ms, the same instant and delay as its tick's
 * forward, so re-executed the tick's forward gets another order key and the
 * new one takes the key of what the tick sent before) */
static bool tri_forward_a;

static rtcosim_status tri_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    tri_lp *t = state;
    if (t->role == 0)
        return rtcosim_lp_send(lp, 0, RTCOSIM_NS_PER_MS, 1, 0, NULL, 0, err);
    if (t->role == 1)
        return rtcosim_lp_send(lp, 1, 0, 1, 0, NULL, 0, err);
    return RTCOSIM_OK;
}

static rtcosim_status tri_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                rtcosim_error *err)
{
    tri_lp *t = state;
    rtcosim_time_ns now = rtcosim_lp_now(lp);
    t->count++;
    t->hash = (t->hash ^ (uint64_t)ev->time) * UINT64_C(0x100000001B3);
    t->hash = (t->hash ^ ev->src) * UINT64_C(0x100000001B3);
    if (t->role == 0) {
        if (tri_wait_for > 0) {
            int64_t give_up = tu_now_ns() + tri_timeout_ns;
            while (atomic_load(&tri_b_max) < tri_wait_for && tu_now_ns() < give_up) {
            }
            tri_b_at_release = atomic_load(&tri_b_max);
            tri_waited_out = tri_b_at_release < tri_wait_for;
        }
        uint64_t value = 42;
        return rtcosim_lp_send(lp, 1, RTCOSIM_NS_PER_MS, 2, 0, &value, sizeof value, err);
    }
    if (t->role == 1) {
        if (now > atomic_load(&tri_b_max))
            atomic_store(&tri_b_max, now);
        if (ev->src == 0 && tri_forward_a) {
            uint64_t mark = UINT64_C(0xA);
            return rtcosim_lp_send(lp, 2, 50 * RTCOSIM_NS_PER_US, 3, 0, &mark, sizeof mark,
                                   err);
        }
        if (ev->src != 1)
            return RTCOSIM_OK;
        /* the hash depends on everything B saw: a wrong state shows at C */
        uint64_t payload = tri_forward_time ? (uint64_t)now : t->hash;
        rtcosim_status st = rtcosim_lp_send(lp, 2, 50 * RTCOSIM_NS_PER_US, 3, 0, &payload,
                                            sizeof payload, err);
        return st == RTCOSIM_OK ? rtcosim_lp_send(lp, 1, 100 * RTCOSIM_NS_PER_US, 1, 0, NULL, 0, err)
                                : st;
    }
    uint64_t payload;
    memcpy(&payload, ev->payload, sizeof payload);
    t->hash = (t->hash ^ payload) * UINT64_C(0x100000001B3);
    return RTCOSIM_OK;
}

static const rtcosim_lp_model tri_model = {.kind = "tri", .init = tri_init, .event = tri_event,
                                           .state_size = sizeof(tri_lp)};

/* The same handlers without state saving: an LP of this model is never
 * speculated on. */
static const rtcosim_lp_model tri_plain_model = {.kind = "tri-plain", .init = tri_init,
                                                 .event = tri_event};

static rtcosim_events *make_tri_with(tri_lp *lps, const rtcosim_lp_model *c_model)
{
    rtcosim_events *sim;
    rtcosim_error err;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    const char *names[3] = {"A", "B", "C"};
    for (int i = 0; i < 3; i++) {
        lps[i] = (tri_lp){.role = i};
        assert_int_equal(rtcosim_events_add_lp(sim, names[i], i == 2 ? c_model : &tri_model,
                                               &lps[i],
                                               i == 2 ? 1 : RTCOSIM_LP_NO_GROUP, NULL, &err),
                         RTCOSIM_OK);
    }
    assert_int_equal(rtcosim_events_add_link(sim, 0, 1, RTCOSIM_NS_PER_MS, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_events_add_link(sim, 1, 2, 50 * RTCOSIM_NS_PER_US, &err),
                     RTCOSIM_OK);
    return sim;
}

static rtcosim_events *make_tri(tri_lp *lps) { return make_tri_with(lps, &tri_model); }

static void straggler_rolls_back_and_cancels_downstream_in_cascade(void **state)
{
    (void)state;
    tri_lp lps[3];
    rtcosim_events *sim = make_tri(lps);
    rtcosim_error err;
    rtcosim_run_options o = {.scheduler = RTCOSIM_SCHEDULER_SEQUENTIAL,
                             .stop_time = 10 * RTCOSIM_NS_PER_MS};
    tri_wait_for = 0;
    assert_int_equal(rtcosim_events_run(sim, &o, NULL, &err), RTCOSIM_OK);
    tri_lp ref[3];
    memcpy(ref, lps, sizeof ref);
    /* hand count: B ticks at 0, 0.1, ..., 10 ms (101) plus A's event; C gets
     * the ticks up to 9.9 ms forwarded (+50 us <= 10 ms: 100) */
    assert_int_equal(ref[1].count, 102);
    assert_int_equal(ref[2].count, 100);
    /* a snapshot before every event of B, or only before the first one kept
     * (interval 1000 > its events): the rollback then rebuilds B's state at
     * 2 ms by coasting forward from a snapshot at or before GVT (<= 1 ms) */
    const unsigned intervals[] = {1, 1000};
    for (size_t ci = 0; ci < 2; ci++) {
        memset(lps, 0, sizeof lps);
        for (int i = 0; i < 3; i++)
            lps[i].role = i;
        atomic_store(&tri_b_max, 0);
        o.checkpoint_interval = intervals[ci];
        tri_wait_for = 5 * RTCOSIM_NS_PER_MS; /* B is 3 ms past the straggler */
        o.scheduler = RTCOSIM_SCHEDULER_SPECULATIVE;
        o.threads = 2;
        o.max_ahead = RTCOSIM_NS_PER_S;
        rtcosim_run_stats stats;
        assert_int_equal(rtcosim_events_run(sim, &o, &stats, &err), RTCOSIM_OK);
        assert_false(tri_waited_out);
        for (int i = 0; i < 3; i++) {
            assert_true(lps[i].hash == ref[i].hash);
            assert_int_equal(lps[i].count, ref[i].count);
        }
        rtcosim_lp_speculation a, b, c;
        assert_int_equal(rtcosim_events_lp_speculation(sim, 0, &a, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_events_lp_speculation(sim, 1, &b, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_events_lp_speculation(sim, 2, &c, &err), RTCOSIM_OK);
        assert_int_equal(a.rollbacks, 0);
        /* B processed at least its ticks 2.0 .. 5.0 ms beyond the straggler at
         * 2 ms (ticks after 2 ms: 2.0 sorts before A's event by source LP? no:
         * A is LP 0, so A's event at 2 ms sorts first and B's tick at 2 ms is
         * undone too) */
        assert_true(b.rollbacks >= 1);
        assert_true(b.rolled_back >= 31);    /* ticks 2.0 .. 5.0 ms */
        assert_true(b.anti_messages >= 30);  /* their forwards to C, 2.05 .. 4.95 ms */
        assert_true(c.rollbacks >= 1);       /* C had processed them: cascade */
        assert_int_equal(b.committed, ref[1].count);
        assert_int_equal(c.committed, ref[2].count);
        assert_int_equal(b.processed, b.committed + b.rolled_back);
        if (intervals[ci] == 1)
            assert_int_equal(b.coasted, 0);
        else
            assert_true(b.coasted >= 10); /* the ticks from <= 1 ms to 2 ms */
    }
    tri_wait_for = 0;
    rtcosim_events_free(sim);
}

/* Lazy cancellation (the default): when the straggler does not change what
 * B sends (B forwards its ticks' times), B's re-executed ticks send the same
 * events again, which stand: C is never rolled back and B sends no
 * anti-message. Aggressive cancellation cancels and re-sends them, and C
 * rolls back. The results are the sequential ones either way. */
static void lazy_cancellation_keeps_what_the_straggler_did_not_change(void **state)
{
    (void)state;
    tri_lp lps[3];
    rtcosim_events *sim = make_tri(lps);
    rtcosim_error err;
    tri_forward_time = true;
    tri_wait_for = 0;
    rtcosim_run_options o = {.scheduler = RTCOSIM_SCHEDULER_SEQUENTIAL,
                             .stop_time = 10 * RTCOSIM_NS_PER_MS};
    assert_int_equal(rtcosim_events_run(sim, &o, NULL, &err), RTCOSIM_OK);
    tri_lp ref[3];
    memcpy(ref, lps, sizeof ref);
    tri_lp ref_a[3]; /* with B forwarding A's event */
    tri_forward_a = true;
    memset(lps, 0, sizeof lps);
    for (int i = 0; i < 3; i++)
        lps[i].role = i;
    assert_int_equal(rtcosim_events_run(sim, &o, NULL, &err), RTCOSIM_OK);
    memcpy(ref_a, lps, sizeof ref_a);
    tri_forward_a = false;
    assert_int_equal(ref_a[2].count, ref[2].count + 1);
    for (int aggressive = 0; aggressive <= 2; aggressive++) {
        /* 2: lazy with B forwarding A's event: the forward B's tick at 2 ms
         * sent before has the new forward's key and other content, so it is
         * cancelled when the new one is sent (C must never hold both) */
        tri_forward_a = aggressive == 2;
        const tri_lp *want = tri_forward_a ? ref_a : ref;
        memset(lps, 0, sizeof lps);
        for (int i = 0; i < 3; i++)
            lps[i].role = i;
        atomic_store(&tri_b_max, 0);
        tri_wait_for = 5 * RTCOSIM_NS_PER_MS;
        o = (rtcosim_run_options){.scheduler = RTCOSIM_SCHEDULER_SPECULATIVE, .threads = 2,
                                  .stop_time = 10 * RTCOSIM_NS_PER_MS,
                                  .max_ahead = RTCOSIM_NS_PER_S,
                                  .aggressive_cancellation = aggressive == 1};
        rtcosim_run_stats stats;
        assert_int_equal(rtcosim_events_run(sim, &o, &stats, &err), RTCOSIM_OK);
        assert_false(tri_waited_out);
        for (int i = 0; i < 3; i++) {
            assert_true(lps[i].hash == want[i].hash);
            assert_int_equal(lps[i].count, want[i].count);
        }
        rtcosim_lp_speculation b, c;
        assert_int_equal(rtcosim_events_lp_speculation(sim, 1, &b, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_events_lp_speculation(sim, 2, &c, &err), RTCOSIM_OK);
        assert_true(b.rollbacks >= 1);
        assert_true(b.rolled_back >= 31); /* its ticks 2.0 .. 5.0 ms */
        if (aggressive == 2) {
            assert_true(b.anti_messages >= 1);
            assert_int_equal(c.committed, ref_a[2].count);
        } else if (aggressive) {
            assert_int_equal(b.reused, 0);
            assert_true(b.anti_messages >= 30); /* the forwards 2.05 .. 4.95 ms */
            assert_true(c.rollbacks >= 1);
        } else {
            /* each re-executed tick sent its forward and its next tick again */
            assert_true(b.reused >= 2 * 30);
            assert_int_equal(stats.reused, b.reused);
            assert_int_equal(b.anti_messages, 0);
            assert_int_equal(c.rollbacks, 0);
            assert_int_equal(c.processed, ref[2].count);
        }
    }
    tri_forward_time = false;
    tri_forward_a = false;
    tri_wait_for = 0;
    rtcosim_events_free(sim);
}

static void optimism_is_bounded_by_max_ahead(void **state)
{
    (void)state;
    tri_lp lps[3];
    rtcosim_events *sim = make_tri(lps);
    rtcosim_error err;
    const rtcosim_time_ns max_ahead = 2 * RTCOSIM_NS_PER_MS;
    atomic_store(&tri_b_max, 0);
    /* A holds GVT at its event (1 ms) while it waits: B may not pass 3 ms,
     * so A waits for 5 ms in vain (it gives up after half a wall second) */
    tri_wait_for = 5 * RTCOSIM_NS_PER_MS;
    tri_timeout_ns = 500000000;
    rtcosim_run_options o = {.scheduler = RTCOSIM_SCHEDULER_SPECULATIVE, .threads = 2,
                             .stop_time = 10 * RTCOSIM_NS_PER_MS, .max_ahead = max_ahead};
    assert_int_equal(rtcosim_events_run(sim, &o, NULL, &err), RTCOSIM_OK);
    assert_true(tri_waited_out);
    rtcosim_lp_speculation b;
    assert_int_equal(rtcosim_events_lp_speculation(sim, 1, &b, &err), RTCOSIM_OK);
    assert_int_equal(b.committed, 102);
    /* B's furthest time while A waited, sampled when A gave up: within GVT
     * (at most A's event, 1 ms) + max_ahead */
    assert_true(tri_b_at_release <= RTCOSIM_NS_PER_MS + max_ahead);
    assert_true(tri_b_at_release >= RTCOSIM_NS_PER_MS); /* but B did run ahead */
    tri_timeout_ns = 2000000000;
    rtcosim_events_free(sim);
}

/* ---- a predicted stream: S (thread 0) samples a ramp every 1 ms and sends
 * it to R (thread 1) 1 ms later; the 11th sample is off the ramp by 0.5, and
 * S sends it only once R has run ahead on predictions past it ---- */

typedef struct stream_lp {
    int role; /* 0 S, 1 R */
    double sum;
    uint64_t count, hash;
} stream_lp;

static _Atomic rtcosim_time_ns stream_r_max;
static bool stream_wait;

static rtcosim_status stream_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    stream_lp *t = state;
    return t->role == 0 ? rtcosim_lp_send(lp, 0, 0, 1, 0, NULL, 0, err) : RTCOSIM_OK;
}

static rtcosim_status stream_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                   rtcosim_error *err)
{
    stream_lp *t = state;
    rtcosim_time_ns now = rtcosim_lp_now(lp);
    if (t->role == 1) {
        double v;
        memcpy(&v, ev->payload, sizeof v);
        t->sum += v;
        t->count++;
        t->hash = (t->hash ^ (uint64_t)ev->time) * UINT64_C(0x100000001B3);
        if (now > atomic_load(&stream_r_max))
            atomic_store(&stream_r_max, now);
        return RTCOSIM_OK;
    }
    int64_t k = now / RTCOSIM_NS_PER_MS;
    double v = 10.0 + (double)k + (k == 10 ? 0.5 : 0.0);
    if (k == 10 && stream_wait) {
        int64_t give_up = tu_now_ns() + 2000000000;
        while (atomic_load(&stream_r_max) < 14 * RTCOSIM_NS_PER_MS && tu_now_ns() < give_up) {
        }
    }
    rtcosim_status st = rtcosim_lp_send(lp, 1, RTCOSIM_NS_PER_MS, 7, 0, &v, sizeof v, err);
    return st == RTCOSIM_OK ? rtcosim_lp_send(lp, 0, RTCOSIM_NS_PER_MS, 1, 0, NULL, 0, err) : st;
}

static const rtcosim_lp_model stream_model = {.kind = "stream", .init = stream_init,
                                              .event = stream_event,
                                              .state_size = sizeof(stream_lp)};

static void predicted_stream_follows_the_scheme_exact_at_tc0_bounded_above(void **state)
{
    (void)state;
    stream_lp lps[2];
    rtcosim_events *sim;
    rtcosim_error err;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    for (int i = 0; i < 2; i++) {
        lps[i] = (stream_lp){.role = i};
        assert_int_equal(rtcosim_events_add_lp(sim, i ? "R" : "S", &stream_model, &lps[i],
                                               RTCOSIM_LP_NO_GROUP, NULL, &err), RTCOSIM_OK);
    }
    assert_int_equal(rtcosim_events_add_link(sim, 0, 1, RTCOSIM_NS_PER_MS, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_events_add_prediction(sim, 0, 1, 7, 1, NULL, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_events_add_prediction(sim, 0, 1, 7, 1, NULL, &err), RTCOSIM_EINVAL);
    assert_int_equal(rtcosim_events_add_prediction(sim, 0, 1, 8, 9, NULL, &err), RTCOSIM_EINVAL);
    rtcosim_run_options o = {.scheduler = RTCOSIM_SCHEDULER_SEQUENTIAL,
                             .stop_time = 20 * RTCOSIM_NS_PER_MS};
    stream_wait = false;
    assert_int_equal(rtcosim_events_run(sim, &o, NULL, &err), RTCOSIM_OK);
    stream_lp ref = lps[1];
    /* samples 0..19 arrive at 1..20 ms: sum of 10 + k plus the 0.5 */
    assert_int_equal(ref.count, 20);
    assert_true(ref.sum == 20 * 10.0 + 190.0 + 0.5);
    const double thresholds[2] = {0.0, 100.0};
    for (int c = 0; c < 2; c++) {
        lps[1] = (stream_lp){.role = 1};
        lps[0] = (stream_lp){.role = 0};
        atomic_store(&stream_r_max, 0);
        stream_wait = true;
        o.scheduler = RTCOSIM_SCHEDULER_SPECULATIVE;
        o.threads = 2;
        o.max_ahead = RTCOSIM_NS_PER_S;
        o.threshold = thresholds[c];
        rtcosim_run_stats stats;
        assert_int_equal(rtcosim_events_run(sim, &o, &stats, &err), RTCOSIM_OK);
        rtcosim_lp_speculation r;
        assert_int_equal(rtcosim_events_lp_speculation(sim, 1, &r, &err), RTCOSIM_OK);
        assert_true(r.predicted >= 4); /* R ran to 14 ms on predictions */
        assert_int_equal(lps[1].count, ref.count);
        assert_true(lps[1].hash == ref.hash); /* a ramp's times are predicted exactly */
        assert_true(r.error_max >= 0.5);      /* the prediction of sample 10 was off by 0.5 */
        if (c == 0) {
            /* exact: the wrong prediction was rolled back, the real value used */
            assert_true(lps[1].sum == ref.sum);
            assert_true(r.rollbacks >= 1);
        } else {
            /* every error within Tc: kept, no rollback; the result is off by
             * at most the sum of the arrival errors */
            assert_int_equal(r.rollbacks, 0);
            assert_true(fabs(lps[1].sum - ref.sum) <=
                        (double)r.predictions_checked * r.error_max + 1e-9);
            assert_true(lps[1].sum != ref.sum);
        }
    }
    /* S and R on one thread: R never lacks a sample when it reaches its
     * time, so nothing is predicted, and even Tc = 100 gives the exact sum */
    lps[0] = (stream_lp){.role = 0};
    lps[1] = (stream_lp){.role = 1};
    stream_wait = false;
    o.threads = 1;
    o.threshold = 100.0;
    assert_int_equal(rtcosim_events_run(sim, &o, NULL, &err), RTCOSIM_OK);
    rtcosim_lp_speculation r;
    assert_int_equal(rtcosim_events_lp_speculation(sim, 1, &r, &err), RTCOSIM_OK);
    assert_int_equal(r.predicted, 0);
    assert_int_equal(lps[1].count, ref.count);
    assert_true(lps[1].sum == ref.sum);
    assert_true(lps[1].hash == ref.hash);
    rtcosim_events_free(sim);
}


/* ---- adaptive checkpoint interval: a ticking LP with a 256-byte state that
 * counts its saves. On one thread nothing rolls back, so with the default
 * interval (0) it saves before events 1, 5, ... of its first 128 (32 saves),
 * then every 8th, 16th and from the fourth window on every 32nd: 32 + 16 +
 * 8 + 4 per further window of 128; a fixed interval 4 saves every 4th. ---- */

typedef struct big_lp {
    uint64_t words[32];
    uint64_t saves;
} big_lp;

static size_t big_snapshot_max(const void *state)
{
    (void)state;
    return sizeof(((big_lp *)0)->words);
}

static rtcosim_status big_save(const void *state, void *buffer, size_t capacity, size_t *used,
                               rtcosim_error *err)
{
    (void)err;
    big_lp *b = (big_lp *)state;
    assert_true(capacity >= sizeof b->words);
    memcpy(buffer, b->words, sizeof b->words);
    *used = sizeof b->words;
    b->saves++; /* outside the saved words: counts every save, undone or not */
    return RTCOSIM_OK;
}

static rtcosim_status big_restore(void *state, const void *buffer, size_t size, rtcosim_error *err)
{
    (void)err;
    big_lp *b = state;
    assert_int_equal(size, sizeof b->words);
    memcpy(b->words, buffer, size);
    return RTCOSIM_OK;
}

static rtcosim_status big_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    (void)state;
    return rtcosim_lp_send(lp, rtcosim_lp_self(lp), 0, 1, 0, NULL, 0, err);
}

static rtcosim_status big_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                rtcosim_error *err)
{
    (void)ev;
    big_lp *b = state;
    uint64_t k = b->words[0];
    b->words[k % 31 + 1] += k;
    b->words[0] = k + 1;
    return rtcosim_lp_send(lp, rtcosim_lp_self(lp), RTCOSIM_NS_PER_US, 1, 0, NULL, 0, err);
}

static const rtcosim_lp_model big_model = {.kind = "big", .init = big_init, .event = big_event,
                                           .snapshot_max = big_snapshot_max, .save = big_save,
                                           .restore = big_restore};

static void checkpoint_interval_adapts_to_an_lp_that_never_rolls_back(void **state)
{
    (void)state;
    big_lp b;
    rtcosim_events *sim;
    rtcosim_error err;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_events_add_lp(sim, "big", &big_model, &b, RTCOSIM_LP_NO_GROUP, NULL,
                                           &err), RTCOSIM_OK);
    /* ticks at 0, 1, ..., 1279 us: 1280 events, 10 windows of 128 */
    rtcosim_run_options o = {.scheduler = RTCOSIM_SCHEDULER_SEQUENTIAL,
                             .stop_time = 1279 * RTCOSIM_NS_PER_US};
    memset(&b, 0, sizeof b);
    assert_int_equal(rtcosim_events_run(sim, &o, NULL, &err), RTCOSIM_OK);
    big_lp ref = b;
    assert_int_equal(ref.words[0], 1280);
    const unsigned intervals[] = {0, 4};
    const uint64_t saves[] = {32 + 16 + 8 + 4 * 7, 1280 / 4};
    for (size_t i = 0; i < 2; i++) {
        memset(&b, 0, sizeof b);
        o.scheduler = RTCOSIM_SCHEDULER_SPECULATIVE;
        o.threads = 1;
        o.max_ahead = RTCOSIM_NS_PER_S; /* no GVT round empties the table midway */
        o.checkpoint_interval = intervals[i];
        rtcosim_run_stats stats;
        assert_int_equal(rtcosim_events_run(sim, &o, &stats, &err), RTCOSIM_OK);
        assert_int_equal(stats.rollbacks, 0);
        assert_int_equal(b.saves, saves[i]);
        assert_memory_equal(b.words, ref.words, sizeof b.words);
    }
    rtcosim_events_free(sim);
}

/* ---- adaptive optimism: two LPs without links on two threads, one cheap
 * (a tick every 1 us), one costly (a tick every 10 us that spins 5 us of
 * wall time): the cheap thread keeps reaching the bound and nothing ever
 * rolls back, so the default window (1 ms without links) grows; a given
 * max_ahead stays as given. ---- */

static rtcosim_status ticker_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    (void)state;
    return rtcosim_lp_send(lp, rtcosim_lp_self(lp), 0, 1, 0, NULL, 0, err);
}

static rtcosim_status ticker_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                   rtcosim_error *err)
{
    (void)ev;
    uint64_t *ticks = state;
    bool costly = rtcosim_lp_self(lp) == 1;
    if (costly)
        for (int64_t until = tu_now_ns() + 5000; tu_now_ns() < until;) {
        }
    (*ticks)++;
    return rtcosim_lp_send(lp, rtcosim_lp_self(lp), costly ? 10 * RTCOSIM_NS_PER_US
                                                            : RTCOSIM_NS_PER_US, 1, 0, NULL, 0, err);
}

static const rtcosim_lp_model ticker_model = {.kind = "ticker", .init = ticker_init,
                                              .event = ticker_event,
                                              .state_size = sizeof(uint64_t)};

static void optimism_window_adapts_unless_given(void **state)
{
    (void)state;
    uint64_t ticks[2];
    rtcosim_events *sim;
    rtcosim_error err;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    for (int i = 0; i < 2; i++)
        assert_int_equal(rtcosim_events_add_lp(sim, i ? "costly" : "cheap", &ticker_model,
                                               &ticks[i], RTCOSIM_LP_NO_GROUP, NULL, &err),
                         RTCOSIM_OK);
    const rtcosim_time_ns given[] = {0, 3 * RTCOSIM_NS_PER_MS};
    for (size_t g = 0; g < 2; g++) {
        ticks[0] = ticks[1] = 0;
        /* 100 ms: 100001 cheap ticks, 10001 costly ones (50 ms of spinning) */
        rtcosim_run_options o = {.scheduler = RTCOSIM_SCHEDULER_SPECULATIVE, .threads = 2,
                                 .stop_time = 100 * RTCOSIM_NS_PER_MS, .max_ahead = given[g]};
        rtcosim_run_stats stats;
        assert_int_equal(rtcosim_events_run(sim, &o, &stats, &err), RTCOSIM_OK);
        assert_int_equal(ticks[0], 100001);
        assert_int_equal(ticks[1], 10001);
        assert_int_equal(stats.rollbacks, 0);
        if (g == 0) {
            assert_true(stats.max_ahead > RTCOSIM_NS_PER_MS);
            assert_true(stats.max_ahead <= 16 * RTCOSIM_NS_PER_MS);
        } else {
            assert_int_equal(stats.max_ahead, given[g]);
        }
    }
    rtcosim_events_free(sim);
}

/* What the log got, and how many events the LPs had processed by then. */
static char said[512];
static int said_after;
static tri_lp *said_lps;

static void capture_log(void *context, rtcosim_log_level level, const char *category,
                        const char *message)
{
    (void)context, (void)level, (void)category;
    if (!strstr(message, "cannot save its state"))
        return;
    snprintf(said, sizeof said, "%s", message);
    said_after = (int)(said_lps[0].count + said_lps[1].count + said_lps[2].count);
}

/* C cannot save its state: it runs conservatively while A and B speculate
 * around it, and the log says so before the first event. B still runs ahead
 * and rolls back at A's straggler; C never processes an event that is later
 * cancelled (no rollback, every processed event committed) and ends with the
 * sequential history (hash and count). */
static void model_without_state_saving_runs_conservatively_among_speculative(void **state)
{
    (void)state;
    tri_lp lps[3];
    rtcosim_events *sim = make_tri_with(lps, &tri_plain_model);
    rtcosim_error err;
    rtcosim_run_options o = {.scheduler = RTCOSIM_SCHEDULER_SEQUENTIAL,
                             .stop_time = 10 * RTCOSIM_NS_PER_MS};
    tri_wait_for = 0;
    assert_int_equal(rtcosim_events_run(sim, &o, NULL, &err), RTCOSIM_OK);
    tri_lp ref[3];
    memcpy(ref, lps, sizeof ref);
    assert_int_equal(ref[2].count, 100); /* hand count as in the cascade test */
    for (unsigned threads = 1; threads <= 2; threads++) {
        for (int i = 0; i < 3; i++)
            lps[i] = (tri_lp){.role = i};
        atomic_store(&tri_b_max, 0);
        /* on 2 threads, A holds its straggler until B is 3 ms past it */
        tri_wait_for = threads == 2 ? 5 * RTCOSIM_NS_PER_MS : 0;
        o.scheduler = RTCOSIM_SCHEDULER_SPECULATIVE;
        o.threads = threads;
        o.max_ahead = RTCOSIM_NS_PER_S;
        rtcosim_run_stats stats;
        said[0] = '\0';
        said_after = -1;
        said_lps = lps;
        rtcosim_log_set_handler(capture_log, NULL);
        assert_int_equal(rtcosim_events_run(sim, &o, &stats, &err), RTCOSIM_OK);
        rtcosim_log_set_handler(rtcosim_log_stderr_handler, NULL);
        assert_non_null(strstr(said, "lp 'C' (tri-plain) cannot save its state: it runs"
                                     " conservatively"));
        assert_int_equal(said_after, 0);
        assert_int_equal(stats.conservative_lps, 1);
        for (int i = 0; i < 3; i++) {
            assert_true(lps[i].hash == ref[i].hash);
            assert_int_equal(lps[i].count, ref[i].count);
        }
        rtcosim_lp_speculation b, c;
        assert_int_equal(rtcosim_events_lp_speculation(sim, 1, &b, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_events_lp_speculation(sim, 2, &c, &err), RTCOSIM_OK);
        assert_false(b.conservative);
        assert_true(c.conservative);
        if (threads == 2) {
            assert_false(tri_waited_out);
            assert_true(b.rollbacks >= 1);    /* B still speculated */
            assert_true(b.rolled_back >= 31); /* ticks 2.0 .. 5.0 ms */
            assert_true(b.anti_messages >= 30);
        }
        assert_int_equal(c.rollbacks, 0);
        assert_int_equal(c.processed, ref[2].count);
        assert_int_equal(c.committed, ref[2].count);
    }
    tri_wait_for = 0;
    rtcosim_events_free(sim);
}

static rtcosim_status plain_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                  rtcosim_error *err)
{
    (void)lp, (void)state, (void)ev, (void)err;
    return RTCOSIM_OK;
}

/* Without state saving and with an input of zero lookahead, nothing bounds
 * what may still arrive at the LP's own time: refused, naming the LP. */
static void unsaveable_lp_with_zero_lookahead_input_is_refused(void **state)
{
    (void)state;
    static const rtcosim_lp_model plain = {.kind = "plain", .event = plain_event};
    static const rtcosim_lp_model saved = {.kind = "saved", .event = plain_event,
                                           .state_size = sizeof(int)};
    rtcosim_events *sim;
    rtcosim_error err;
    int dummy[2] = {0, 0};
    rtcosim_lp_id a, b;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_events_add_lp(sim, "source", &saved, &dummy[0], RTCOSIM_LP_NO_GROUP,
                                           &a, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_events_add_lp(sim, "stateless", &plain, &dummy[1],
                                           RTCOSIM_LP_NO_GROUP, &b, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_events_add_link(sim, a, b, 0, &err), RTCOSIM_OK);
    rtcosim_run_options o = {.scheduler = RTCOSIM_SCHEDULER_SPECULATIVE, .threads = 2,
                             .stop_time = RTCOSIM_NS_PER_MS};
    assert_int_equal(rtcosim_events_run(sim, &o, NULL, &err), RTCOSIM_EUNSUPPORTED);
    assert_non_null(strstr(err.message, "lp 'stateless' (plain) cannot save its state"));
    assert_non_null(strstr(err.message, "zero lookahead"));
    o.max_ahead = -1;
    assert_int_equal(rtcosim_events_run(sim, &o, NULL, &err), RTCOSIM_EINVAL);
    rtcosim_events_free(sim);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(phold_is_bit_identical_to_sequential_at_1_and_2_threads),
        cmocka_unit_test(ecu_vehicle_is_bit_identical_to_conservative_at_1_and_2_threads),
        cmocka_unit_test(straggler_rolls_back_and_cancels_downstream_in_cascade),
        cmocka_unit_test(lazy_cancellation_keeps_what_the_straggler_did_not_change),
        cmocka_unit_test(optimism_is_bounded_by_max_ahead),
        cmocka_unit_test(predicted_stream_follows_the_scheme_exact_at_tc0_bounded_above),
        cmocka_unit_test(checkpoint_interval_adapts_to_an_lp_that_never_rolls_back),
        cmocka_unit_test(optimism_window_adapts_unless_given),
        cmocka_unit_test(model_without_state_saving_runs_conservatively_among_speculative),
        cmocka_unit_test(unsaveable_lp_with_zero_lookahead_input_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
