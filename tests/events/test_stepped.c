/* The stepped run (rtcosim_events_begin / advance / inject / end): the
 * sequential scheduler's order, whatever the steps. PHOLD (its checksum
 * hashes every LP's sequence of processed events) run in one sequential run
 * and in uneven steps must agree; an injected event reaches its LP at its
 * time, in order with the LP's own events; bad calls are errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rtcosim/events.h"

#define MS RTCOSIM_NS_PER_MS

static const rtcosim_phold_config phold = {.lps = 8, .events_per_lp = 4, .remote_fraction = 0.5,
                                           .lookahead = 100 * RTCOSIM_NS_PER_US,
                                           .mean_increment = MS};

static void steps_give_the_sequential_runs_events_in_order(void **state)
{
    (void)state;
    rtcosim_error err;
    rtcosim_events *sim = NULL;
    rtcosim_phold *p = NULL;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_phold_build(sim, &phold, &p, &err), RTCOSIM_OK);
    rtcosim_run_options o = {.scheduler = RTCOSIM_SCHEDULER_SEQUENTIAL, .stop_time = 200 * MS,
                             .seed = 7};
    assert_int_equal(rtcosim_events_run(sim, &o, NULL, &err), RTCOSIM_OK);
    uint64_t whole = rtcosim_phold_checksum(p);
    rtcosim_phold_reset(p);
    assert_int_equal(rtcosim_events_begin(sim, &o, &err), RTCOSIM_OK);
    /* steps of 0.7 ms (not aligned with anything), then to the end */
    for (rtcosim_time_ns t = 0; t < 200 * MS; t += 700 * RTCOSIM_NS_PER_US) {
        assert_int_equal(rtcosim_events_advance(sim, t, &err), RTCOSIM_OK);
        assert_true(rtcosim_events_next_time(sim) > t);
    }
    assert_int_equal(rtcosim_events_advance(sim, 200 * MS, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_events_end(sim, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_phold_checksum(p), whole);
    rtcosim_phold_free(p);
    rtcosim_events_free(sim);
}

typedef struct seen {
    rtcosim_time_ns times[8];
    uint16_t types[8];
    int n;
} seen;

static rtcosim_status seen_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    (void)state;
    return rtcosim_lp_send(lp, rtcosim_lp_self(lp), 2 * MS, 1, 0, NULL, 0, err);
}

static rtcosim_status seen_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                 rtcosim_error *err)
{
    (void)lp, (void)err;
    seen *s = state;
    if (s->n < 8) {
        s->times[s->n] = ev->time;
        s->types[s->n++] = ev->type;
    }
    return RTCOSIM_OK;
}

static const rtcosim_lp_model seen_model = {.kind = "seen", .init = seen_init,
                                            .event = seen_event};

static void injected_events_come_at_their_time(void **state)
{
    (void)state;
    rtcosim_error err;
    rtcosim_events *sim = NULL;
    seen s = {.n = 0};
    rtcosim_lp_id lp;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_events_add_lp(sim, "seen", &seen_model, &s, RTCOSIM_LP_NO_GROUP, &lp,
                                           &err), RTCOSIM_OK);
    rtcosim_run_options o = {.stop_time = 10 * MS};
    /* not begun yet */
    assert_int_equal(rtcosim_events_advance(sim, MS, &err), RTCOSIM_ESTATE);
    assert_int_equal(rtcosim_events_begin(sim, &o, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_events_begin(sim, &o, &err), RTCOSIM_ESTATE);
    assert_int_equal(rtcosim_events_next_time(sim), 2 * MS);
    assert_int_equal(rtcosim_events_inject(sim, lp, MS, 5, NULL, 0, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_events_next_time(sim), MS);
    assert_int_equal(rtcosim_events_advance(sim, MS, &err), RTCOSIM_OK);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.times[0], MS);
    assert_int_equal(s.types[0], 5);
    /* before the LP's clock: refused */
    assert_int_equal(rtcosim_events_inject(sim, lp, MS / 2, 5, NULL, 0, &err), RTCOSIM_EINVAL);
    assert_int_equal(rtcosim_events_inject(sim, lp, 3 * MS, 6, NULL, 0, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_events_advance(sim, 10 * MS, &err), RTCOSIM_OK);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.times[1], 2 * MS);
    assert_int_equal(s.types[1], 1);
    assert_int_equal(s.times[2], 3 * MS);
    assert_int_equal(s.types[2], 6);
    assert_int_equal(rtcosim_events_next_time(sim), RTCOSIM_TIME_MAX);
    if (rtcosim_events_end(sim, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    rtcosim_events_free(sim);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(steps_give_the_sequential_runs_events_in_order),
        cmocka_unit_test(injected_events_come_at_their_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
