/* rtcosim_lp_floor keeps its promise under every scheduler: no event is
 * processed (or processed again after a rollback) earlier than a floor any
 * LP was told before, and the floor moves with the run (so a model can free
 * what only earlier events used; the CAN bus's frame bytes do). The model:
 * 12 LPs on 2 threads where possible, each event sending one on to a random
 * LP 20 us plus an exponential delay later, every LP reading the floor at
 * every event. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rtcosim/events.h"

enum { LPS = 12 };
#define LOOKAHEAD (20 * RTCOSIM_NS_PER_US)

static _Atomic rtcosim_time_ns highest_floor;
static _Atomic uint64_t below_floor, events;

typedef struct hop {
    uint64_t count; /* the saved state */
} hop;

static rtcosim_status hop_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    (void)state;
    return rtcosim_lp_send(lp, rtcosim_lp_self(lp), LOOKAHEAD, 1, 0, NULL, 0, err);
}

static rtcosim_status hop_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                rtcosim_error *err)
{
    hop *h = state;
    h->count++;
    atomic_fetch_add(&events, 1);
    /* every floor told so far lies at or before this event */
    if (ev->time < atomic_load(&highest_floor))
        atomic_fetch_add(&below_floor, 1);
    rtcosim_time_ns f = rtcosim_lp_floor(lp);
    if (f > ev->time) /* nor the one told now */
        atomic_fetch_add(&below_floor, 1);
    rtcosim_time_ns old = atomic_load(&highest_floor);
    while (f > old && !atomic_compare_exchange_weak(&highest_floor, &old, f)) {
    }
    rtcosim_lp_id to = rtcosim_lp_random_below(lp, LPS);
    rtcosim_time_ns delay =
        LOOKAHEAD + (rtcosim_time_ns)rtcosim_lp_random_exponential(lp, 50e3);
    return rtcosim_lp_send(lp, to, delay, 1, 0, NULL, 0, err);
}

static const rtcosim_lp_model hop_model = {.kind = "hop", .init = hop_init,
                                           .event = hop_event, .state_size = sizeof(hop)};

static void run(rtcosim_scheduler scheduler, unsigned threads, bool rounds)
{
    rtcosim_error err;
    rtcosim_events *sim = NULL;
    static hop lps[LPS];
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    for (int i = 0; i < LPS; i++) {
        lps[i] = (hop){0};
        rtcosim_lp_id id;
        assert_int_equal(rtcosim_events_add_lp(sim, "hop", &hop_model, &lps[i],
                                               RTCOSIM_LP_NO_GROUP, &id, &err), RTCOSIM_OK);
    }
    assert_int_equal(rtcosim_events_link_all(sim, LOOKAHEAD, &err), RTCOSIM_OK);
    atomic_store(&highest_floor, INT64_MIN);
    atomic_store(&below_floor, 0);
    atomic_store(&events, 0);
    const rtcosim_time_ns stop = 200 * RTCOSIM_NS_PER_MS;
    rtcosim_run_options ro = {.scheduler = scheduler, .threads = threads,
                              .conservative_rounds = rounds, .stop_time = stop, .seed = 7};
    if (rtcosim_events_run(sim, &ro, NULL, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    rtcosim_events_free(sim);
    assert_true(atomic_load(&events) > 10000);
    assert_int_equal(atomic_load(&below_floor), 0);
    /* and it moved with the run: past half of it by the end */
    assert_true(atomic_load(&highest_floor) > stop / 2);
}

static void sequential(void **state) { (void)state; run(RTCOSIM_SCHEDULER_SEQUENTIAL, 1, false); }
static void conservative(void **state)
{
    (void)state;
    run(RTCOSIM_SCHEDULER_CONSERVATIVE, 2, false);
    run(RTCOSIM_SCHEDULER_CONSERVATIVE, 2, true);
}
static void global(void **state) { (void)state; run(RTCOSIM_SCHEDULER_GLOBAL, 1, false); }
static void lockstep(void **state) { (void)state; run(RTCOSIM_SCHEDULER_LOCKSTEP, 1, false); }
static void speculative(void **state)
{
    (void)state;
    for (int i = 0; i < 3; i++)
        run(RTCOSIM_SCHEDULER_SPECULATIVE, 2, false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sequential), cmocka_unit_test(conservative),
        cmocka_unit_test(global),     cmocka_unit_test(lockstep),
        cmocka_unit_test(speculative),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
