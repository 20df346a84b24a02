/* Attribution of late events against the platform floor (bench/rt_floor.c)
 * on synthetic timelines whose classes are computed by hand: cyclictest's
 * --spike lines parsed (rt-tests 2.4 format, a line copied from a real run
 * while CLOCK_MONOTONIC read 14407.01 s: TS is in us),
 * the union of stall intervals inside a window, and overruns of 1 ms frames
 * and anytime misses classified as the floor's or the program's own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rt_floor.h"

#define US 1000LL
#define MS 1000000LL

/* Real lines of `cyclictest -q --spike=40` (rt-tests 2.4): TS is the wake
 * time in us of CLOCK_MONOTONIC, the number before it the lateness in us; other lines skipped. */
static void spike_lines_are_parsed_sorted_by_due_time(void **state)
{
    (void)state;
    static const char text[] = "# /dev/cpu_dma_latency set to 0us\n"
                               "T: 0 Spike:      57: TS:  14408001057\n"
                               "000000 000000\n"
                               "T: 0 Spike:    1500: TS:  14407002500\n"
                               "T: 0 Spike: x: TS: 5\n"
                               "# Total: 000003000\n";
    floor_spikes s;
    assert_int_equal(floor_parse_spikes(text, sizeof text - 1, &s), 0);
    assert_int_equal(s.count, 2);
    /* sorted: due at 14407.001000 s (1500 us late), then 14408.001000 s */
    assert_int_equal(s.spike[0].expected_ns, 14407001000LL * 1000);
    assert_int_equal(s.spike[0].late_ns, 1500 * US);
    assert_int_equal(s.spike[1].expected_ns, 14408001000LL * 1000);
    assert_int_equal(s.spike[1].late_ns, 57 * US);
    floor_spikes_free(&s);
}

/* Stalls [0, 300], [200, 500] and [900, 1000] us: their union inside a
 * window counts overlapping time once and clips at the window's ends. */
static void machine_time_is_the_union_inside_the_window(void **state)
{
    (void)state;
    floor_spike sp[] = {{0, 300 * US}, {200 * US, 300 * US}, {900 * US, 100 * US}};
    floor_spikes s = {sp, 3};
    assert_int_equal(floor_machine_ns(&s, 0, 2 * MS), 600 * US);        /* 500 + 100 */
    assert_int_equal(floor_machine_ns(&s, 100 * US, 950 * US), 450 * US); /* 400 + 50 */
    assert_int_equal(floor_machine_ns(&s, 500 * US, 900 * US), 0);
    assert_int_equal(floor_machine_ns(&s, 250 * US, 260 * US), 10 * US);
}

/* A timeline of 1 ms frames (deadlines at k ms) and cyclictest's stalls:
 * frame 2 woke 1.2 ms late where cyclictest saw a 1.25 ms stall from 2.0 ms
 * (floor wake-up); frame 3 then started at 3.25 ms, its deadline passed
 * (backlog; the chain from 2 ms to 4.1 ms overshoots by 0.1 ms, covered by
 * the stall: floor); frame 7 woke 1.1 ms late with no stall seen (own
 * wake-up); frame 9 ran 1.3 ms with a 0.2 ms stall inside (own execution:
 * 0.2 < 0.3 overshoot); frame 12 ran 1.2 ms with a 0.5 ms stall inside
 * (floor execution); frame 13 a backlog of 12 whose chain overshoots by 0.3
 * ms with 0.5 ms of stall: floor; frame 20 a backlog of an own wake-up at
 * 19 (chain 19..21.4 ms, overshoot 0.4 ms, no stall): own. */
static void overruns_of_a_frame_timeline_get_hand_computed_classes(void **state)
{
    (void)state;
    floor_spike sp[] = {{2 * MS, 1250 * US}, {9 * MS + 500 * US, 200 * US},
                        {12 * MS + 100 * US, 500 * US}};
    floor_spikes s = {sp, 3};
    floor_event ev[] = {
        {2 * MS, 3 * MS + 250 * US, 3 * MS, FLOOR_CAUSE_WAKEUP},             /* 2 */
        {2 * MS, 4 * MS + 100 * US, 4 * MS, FLOOR_CAUSE_BACKLOG},            /* 3 */
        {7 * MS, 8 * MS + 150 * US, 8 * MS, FLOOR_CAUSE_WAKEUP},             /* 7 */
        {9 * MS, 10 * MS + 300 * US, 10 * MS, FLOOR_CAUSE_EXECUTION},        /* 9 */
        {12 * MS, 13 * MS + 200 * US, 13 * MS, FLOOR_CAUSE_EXECUTION},       /* 12 */
        {12 * MS, 14 * MS + 300 * US, 14 * MS, FLOOR_CAUSE_BACKLOG},         /* 13 */
        {19 * MS, 21 * MS + 400 * US, 21 * MS, FLOOR_CAUSE_BACKLOG},         /* 20 */
    };
    const bool expect_floor[] = {true, true, false, false, true, true, false};
    floor_tally t;
    memset(&t, 0, sizeof t);
    for (size_t i = 0; i < sizeof ev / sizeof ev[0]; i++) {
        assert_int_equal(floor_explains(&s, &ev[i]), expect_floor[i]);
        floor_tally_add(&t, &s, &ev[i]);
    }
    assert_int_equal(t.total, 7);
    assert_int_equal(t.floor[FLOOR_CAUSE_WAKEUP], 1);
    assert_int_equal(t.own[FLOOR_CAUSE_WAKEUP], 1);
    assert_int_equal(t.floor[FLOOR_CAUSE_EXECUTION], 1);
    assert_int_equal(t.own[FLOOR_CAUSE_EXECUTION], 1);
    assert_int_equal(t.floor[FLOOR_CAUSE_BACKLOG], 2);
    assert_int_equal(t.own[FLOOR_CAUSE_BACKLOG], 1);
    assert_int_equal(t.beyond_floor, 3);
}

/* Anytime misses (period 1 ms, released at k ms): a strategy's miss 40 us
 * late with a 50 us stall in its period is the floor's; one 40 us late with
 * 30 us of stall is the strategy's own; exactly covered counts as floor; a
 * stall that ended before the release does not count. */
static void anytime_misses_are_the_floor_only_when_stalls_cover_the_lateness(void **state)
{
    (void)state;
    floor_spike sp[] = {{300 * US, 50 * US}, {5 * MS + 600 * US, 30 * US},
                        {8 * MS + 100 * US, 40 * US}, {9 * MS + 900 * US, 90 * US}};
    floor_spikes s = {sp, 4};
    floor_event a = {0, 1 * MS + 40 * US, 1 * MS, FLOOR_CAUSE_STRATEGY};
    floor_event b = {5 * MS, 6 * MS + 40 * US, 6 * MS, FLOOR_CAUSE_STRATEGY};
    floor_event c = {8 * MS, 9 * MS + 40 * US, 9 * MS, FLOOR_CAUSE_STRATEGY};
    floor_event d = {10 * MS, 11 * MS + 20 * US, 11 * MS, FLOOR_CAUSE_WAKEUP};
    assert_true(floor_explains(&s, &a));
    assert_false(floor_explains(&s, &b));
    assert_true(floor_explains(&s, &c));
    assert_false(floor_explains(&s, &d)); /* the stall [9.9, 9.99] ms is before */
    floor_tally t;
    memset(&t, 0, sizeof t);
    floor_tally_add(&t, &s, &a);
    floor_tally_add(&t, &s, &b);
    floor_tally_add(&t, &s, &c);
    floor_tally_add(&t, &s, &d);
    assert_int_equal(t.floor[FLOOR_CAUSE_STRATEGY], 2);
    assert_int_equal(t.own[FLOOR_CAUSE_STRATEGY], 1);
    assert_int_equal(t.own[FLOOR_CAUSE_WAKEUP], 1);
    assert_int_equal(t.beyond_floor, 2);
}

/* cyclictest samples the CPU once an interval (1 ms here): a stall it saw
 * from its wake-up due at 5 ms may have begun as early as 4 ms. A miss due
 * at 5.5 ms delivered at 6.2 ms (0.7 ms late) beside a stall seen as [5.0,
 * 5.6] ms is own (0.6 ms of machine time in [4.5, 6.2] ms) but within one
 * interval: widened, the stall covers [4.5, 5.6] = 1.1 ms. One without any
 * stall seen in its window stays own and outside, however long the widened
 * stalls before its window; one whose widened stall still falls short too. */
static void own_events_within_one_cyclictest_interval_are_counted_apart(void **state)
{
    (void)state;
    floor_spike sp[] = {{5 * MS, 600 * US}, {20 * MS, 200 * US}, {30 * MS, 100 * US}};
    floor_spikes s = {sp, 3};
    assert_int_equal(floor_machine_ns_widened(&s, 4500 * US, 6200 * US, 1 * MS), 1100 * US);
    assert_int_equal(floor_machine_ns_widened(&s, 4500 * US, 6200 * US, 0), 600 * US);
    /* whole run: [4, 5.6] + [19, 20.2] + [29, 30.1] ms */
    assert_int_equal(floor_machine_ns_widened(&s, 0, 40 * MS, 1 * MS), 3900 * US);
    /* widened stalls that overlap count once: [4, 5.6] and [5, 6.1] are [4, 6.1] */
    floor_spike two[] = {{5 * MS, 600 * US}, {6 * MS, 100 * US}};
    floor_spikes t2 = {two, 2};
    assert_int_equal(floor_machine_ns_widened(&t2, 0, 10 * MS, 1 * MS), 2100 * US);
    floor_event near = {4500 * US, 6200 * US, 5500 * US, FLOOR_CAUSE_EXECUTION};
    floor_event none = {20500 * US, 21400 * US, 21 * MS, FLOOR_CAUSE_WAKEUP}; /* after [20, 20.2] */
    floor_event short_ = {30 * MS, 31500 * US, 31 * MS, FLOOR_CAUSE_EXECUTION};
    floor_tally t;
    memset(&t, 0, sizeof t);
    t.interval_ns = 1 * MS;
    floor_tally_add(&t, &s, &near);
    floor_tally_add(&t, &s, &none);
    floor_tally_add(&t, &s, &short_);
    assert_int_equal(t.beyond_floor, 3);
    assert_int_equal(t.within_interval, 1);
    /* without an interval nothing is counted apart */
    memset(&t, 0, sizeof t);
    floor_tally_add(&t, &s, &near);
    assert_int_equal(t.beyond_floor, 1);
    assert_int_equal(t.within_interval, 0);
}

/* Work on two CPUs (the parallel strategy's workers): a stall seen only by
 * the cyclictest on the workers' CPU explains a miss once the two lists are
 * merged; the merged list stays sorted, the union counted once where the
 * two CPUs stalled at the same time. */
static void stalls_of_two_cpus_merge_into_one_floor(void **state)
{
    (void)state;
    floor_spike task_cpu[] = {{300 * US, 50 * US}, {7 * MS, 100 * US}};
    floor_spike worker_cpu[] = {{2 * MS + 500 * US, 600 * US}, {7 * MS + 50 * US, 100 * US}};
    floor_spikes s = {malloc(sizeof task_cpu), 2}, w = {worker_cpu, 2};
    memcpy(s.spike, task_cpu, sizeof task_cpu);
    /* due at 3 ms, delivered at 3.5 ms: 500 us late, its window [2, 3.5] ms */
    floor_event miss = {2 * MS, 3 * MS + 500 * US, 3 * MS, FLOOR_CAUSE_EXECUTION};
    assert_false(floor_explains(&s, &miss));
    assert_int_equal(floor_spikes_merge(&s, &w), 0);
    assert_int_equal(s.count, 4);
    assert_int_equal(s.spike[1].expected_ns, 2 * MS + 500 * US);
    assert_int_equal(s.spike[3].expected_ns, 7 * MS + 50 * US);
    assert_true(floor_explains(&s, &miss)); /* 600 us of the workers' stall >= 500 us */
    /* [7, 7.1] and [7.05, 7.15] ms: 150 us, not 200 */
    assert_int_equal(floor_machine_ns(&s, 6 * MS, 8 * MS), 150 * US);
    floor_spikes_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spike_lines_are_parsed_sorted_by_due_time),
        cmocka_unit_test(machine_time_is_the_union_inside_the_window),
        cmocka_unit_test(overruns_of_a_frame_timeline_get_hand_computed_classes),
        cmocka_unit_test(anytime_misses_are_the_floor_only_when_stalls_cover_the_lateness),
        cmocka_unit_test(stalls_of_two_cpus_merge_into_one_floor),
        cmocka_unit_test(own_events_within_one_cyclictest_interval_are_counted_apart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
