/* How a speculative run ends.
 *  - Early, it keeps only what it committed: when a handler fails, or a stop
 *    is requested (Ctrl-C in the CLI), the LPs have run past GVT, on events
 *    a straggler could still have undone; they are taken back to GVT, so
 *    the ECUs' states, statistics and the bus's frame log equal a
 *    sequential run to the time the speculative one reports (vehicle
 *    checksum: software state, task statistics, every logged frame).
 *  - A handler that fails on inputs only speculation gave it (an event
 *    processed before a straggler that sorts first) does not end it: the
 *    straggler undoes the failed event, which then succeeds, and the run
 *    gives the sequential result. */
#include <stdatomic.h>
#include <stdio.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "../../examples/ecus/vehicle.h"
#include "rtcosim/events.h"
#include "rtcosim/log.h"
#include "pair_model.h"

/* An LP on its own that fails at its one event, at fail_at. */
typedef struct failing {
    rtcosim_time_ns fail_at;
} failing;

static rtcosim_status failing_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    const failing *f = state;
    return rtcosim_lp_send(lp, rtcosim_lp_self(lp), f->fail_at, 0, 0, NULL, 0, err);
}

static rtcosim_status failing_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                    rtcosim_error *err)
{
    (void)lp, (void)state, (void)ev;
    return rtcosim_error_set(err, RTCOSIM_EIO, "deliberate failure");
}

static const rtcosim_lp_model failing_model = {
    .kind = "failing", .init = failing_init, .event = failing_event,
    .state_size = sizeof(failing),
};

typedef struct world {
    rtcosim_events *sim;
    rtcosim_ecu_vehicle *v;
    failing f;
} world;

static void world_build(world *w, rtcosim_time_ns fail_at)
{
    rtcosim_error err;
    /* the speculative placement: each plant on its ECU's thread */
    rtcosim_ecu_vehicle_config vc = {.ecus = 8, .log_frames = true, .pair_plants = true};
    assert_int_equal(rtcosim_events_create(&w->sim, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_ecu_vehicle_build(w->sim, &vc, &w->v, &err), RTCOSIM_OK);
    w->f.fail_at = fail_at;
    if (fail_at > 0) {
        rtcosim_lp_id id;
        assert_int_equal(rtcosim_events_add_lp(w->sim, "failing", &failing_model, &w->f,
                                               RTCOSIM_LP_NO_GROUP, &id, &err),
                         RTCOSIM_OK);
    }
}

static void world_free(world *w)
{
    rtcosim_ecu_vehicle_free(w->v);
    rtcosim_events_free(w->sim);
}

/* The sequential scheduler's checksum and frame count to `end`. */
static void sequential_to(rtcosim_time_ns end, uint64_t *sum, size_t *frames)
{
    world ref;
    world_build(&ref, 0);
    rtcosim_run_options o = {.scheduler = RTCOSIM_SCHEDULER_SEQUENTIAL, .stop_time = end};
    rtcosim_error err;
    assert_int_equal(rtcosim_events_run(ref.sim, &o, NULL, &err), RTCOSIM_OK);
    *sum = rtcosim_ecu_vehicle_checksum(ref.v);
    *frames = rtcosim_can_bus_log_count(rtcosim_ecu_vehicle_bus(ref.v));
    world_free(&ref);
}

static void failed_run_keeps_the_committed_result(void **state)
{
    (void)state;
    const rtcosim_time_ns fail_at = 400 * RTCOSIM_NS_PER_MS;
    world w;
    world_build(&w, fail_at);
    rtcosim_run_options o = {.scheduler = RTCOSIM_SCHEDULER_SPECULATIVE, .threads = 2,
                             .stop_time = RTCOSIM_NS_PER_S};
    rtcosim_run_stats stats;
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_events_run(w.sim, &o, &stats, &err), RTCOSIM_EIO);
    assert_non_null(strstr(err.message, "deliberate failure"));
    /* GVT stays within the optimism bound of the failing event: most of the
     * run was committed, and nothing at or after the failure was */
    assert_true(stats.end_time > fail_at / 2 && stats.end_time < fail_at);
    uint64_t ref;
    size_t frames;
    sequential_to(stats.end_time, &ref, &frames);
    assert_true(frames > 100);
    assert_int_equal(rtcosim_can_bus_log_count(rtcosim_ecu_vehicle_bus(w.v)), frames);
    assert_true(rtcosim_ecu_vehicle_checksum(w.v) == ref);
    world_free(&w);
}

/* An LP whose model cannot save its state runs conservatively among the
 * speculative ones: with no inputs, nothing holds it back, and it ticks far
 * past the failure of an LP on the other thread before GVT commits that. It
 * cannot be taken back: the run says so (a warning naming it) instead of
 * passing its state off as the committed result. */
typedef struct ticker {
    rtcosim_time_ns last;
} ticker;

static rtcosim_status ticker_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    (void)state;
    return rtcosim_lp_send(lp, rtcosim_lp_self(lp), RTCOSIM_NS_PER_US, 0, 0, NULL, 0, err);
}

static rtcosim_status ticker_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                   rtcosim_error *err)
{
    ((ticker *)state)->last = ev->time;
    return rtcosim_lp_send(lp, rtcosim_lp_self(lp), RTCOSIM_NS_PER_US, 0, 0, NULL, 0, err);
}

/* no state_size and no save: the speculative scheduler cannot snapshot it */
static const rtcosim_lp_model unsaved_ticker_model = {.kind = "unsaved", .init = ticker_init,
                                                      .event = ticker_event};

static void unsaved_lp_past_the_failure_is_named(void **state)
{
    (void)state;
    rtcosim_events *sim = NULL;
    rtcosim_error err = {0};
    ticker t = {0};
    failing f = {.fail_at = 20 * RTCOSIM_NS_PER_US};
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_events_add_lp(sim, "unsaved", &unsaved_ticker_model, &t,
                                           RTCOSIM_LP_NO_GROUP, NULL, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_events_add_lp(sim, "failing", &failing_model, &f,
                                           RTCOSIM_LP_NO_GROUP, NULL, &err), RTCOSIM_OK);
    rtcosim_run_options o = {.scheduler = RTCOSIM_SCHEDULER_SPECULATIVE, .threads = 2,
                             .stop_time = 100 * RTCOSIM_NS_PER_MS,
                             .max_ahead = RTCOSIM_NS_PER_S};
    rtcosim_run_stats stats;
    tu_log_capture(RTCOSIM_LOG_WARNING);
    assert_int_equal(rtcosim_events_run(sim, &o, &stats, &err), RTCOSIM_EIO);
    rtcosim_log_set_handler(rtcosim_log_stderr_handler, NULL);
    const char *warned = strstr(tu_log_text(), "lp 'unsaved'");
    assert_int_equal(stats.conservative_lps, 1);
    if (t.last > f.fail_at) { /* it ran ahead (on a slow machine it may not) */
        if (!warned || !strstr(warned, "not taken back to the committed time"))
            fail_msg("ran to %.9f s past the failure at %.9f s, log: '%s'",
                     rtcosim_time_to_seconds(t.last), rtcosim_time_to_seconds(f.fail_at),
                     tu_log_text());
    } else {
        assert_null(warned);
    }
    rtcosim_events_free(sim);
}

static void *request_stop_soon(void *arg)
{
    struct timespec ts = {0, 30 * 1000 * 1000};
    nanosleep(&ts, NULL);
    rtcosim_events_request_stop(arg, true);
    return NULL;
}

static void stopped_run_keeps_the_committed_result(void **state)
{
    (void)state;
    world w;
    world_build(&w, 0);
    rtcosim_run_options o = {.scheduler = RTCOSIM_SCHEDULER_SPECULATIVE, .threads = 2,
                             .stop_time = 1000 * RTCOSIM_NS_PER_S};
    pthread_t stopper;
    assert_int_equal(pthread_create(&stopper, NULL, request_stop_soon, w.sim), 0);
    rtcosim_run_stats stats;
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_events_run(w.sim, &o, &stats, &err), RTCOSIM_ECANCELED);
    pthread_join(stopper, NULL);
    rtcosim_events_request_stop(w.sim, false);
    assert_true(stats.end_time > 0 && stats.end_time < o.stop_time);
    uint64_t ref;
    size_t frames;
    sequential_to(stats.end_time, &ref, &frames);
    assert_int_equal(rtcosim_can_bus_log_count(rtcosim_ecu_vehicle_bus(w.v)), frames);
    assert_true(rtcosim_ecu_vehicle_checksum(w.v) == ref);
    world_free(&w);
}

static void failure_a_straggler_undoes_is_not_the_runs(void **state)
{
    (void)state;
    pair_lp lps[2];
    rtcosim_events *sim;
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    assert_int_equal(pair_build(sim, lps, &err), RTCOSIM_OK);
    rtcosim_run_options o = {.scheduler = RTCOSIM_SCHEDULER_SEQUENTIAL,
                             .stop_time = 10 * RTCOSIM_NS_PER_MS};
    atomic_store(&pair_b_max, RTCOSIM_TIME_MAX); /* A does not wait */
    assert_int_equal(rtcosim_events_run(sim, &o, NULL, &err), RTCOSIM_OK);
    pair_lp ref = lps[1];
    /* hand count: ticks at 0, 0.1, ..., 10 ms */
    assert_int_equal(ref.ticks, 101);
    for (int i = 0; i < 2; i++)
        lps[i] = (pair_lp){.role = i};
    atomic_store(&pair_b_max, 0);
    o.scheduler = RTCOSIM_SCHEDULER_SPECULATIVE;
    o.threads = 2;
    o.max_ahead = RTCOSIM_NS_PER_S;
    rtcosim_run_stats stats;
    rtcosim_status st = rtcosim_events_run(sim, &o, &stats, &err);
    if (st != RTCOSIM_OK)
        fail_msg("the run failed: %s", err.message);
    assert_false(pair_waited_out); /* B did reach (and fail at) its tick at 2 ms first */
    assert_int_equal(lps[1].ticks, ref.ticks);
    assert_true(lps[1].hash == ref.hash);
    rtcosim_lp_speculation b;
    assert_int_equal(rtcosim_events_lp_speculation(sim, 1, &b, &err), RTCOSIM_OK);
    assert_true(b.rollbacks >= 1); /* the failed tick was undone */
    assert_true(b.failures_undone >= 1);
    assert_int_equal(stats.failures_undone, b.failures_undone);
    rtcosim_events_free(sim);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(failed_run_keeps_the_committed_result),
        cmocka_unit_test(stopped_run_keeps_the_committed_result),
        cmocka_unit_test(failure_a_straggler_undoes_is_not_the_runs),
        cmocka_unit_test(unsaved_lp_past_the_failure_is_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
