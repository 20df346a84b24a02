/* FMI 3.0 scheduled execution inside a paced real-time frame (rtcosim/clock.h's
 * paced frame, as the paced loop of src/realtime sets it), on a virtual clock
 * so that release times and lateness are exact: the Tasks FMU (models/tasks)
 * has slow (priority 0) every 10 s from 0.25 s, fast (priority 1) every 1 s
 * from 0.5 s and trigger (priority 2) ticked by the importer. A frame [t, t + h) runs each tick at deadline + (tick - te):
 * the paced thread sleeps until fast's 0.5 s, a late wake-up of 200 us is
 * 200 us of lateness, a tick at t + h waits for the next frame, and
 * partitions released together run in priority order (fast, trigger,
 * countdown at 2.5 s, as in test_simulate_se.c's hand-computed rows). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtcosim/clock.h"
#include "rtcosim/fmu.h"
#include "rtcosim/fmu_clocks.h"
#include "rtcosim_test_fmus.h"

#define MS (RTCOSIM_NS_PER_S / 1000)

static int32_t get_int(rtcosim_component *c, const char *name)
{
    const rtcosim_variable *v = rtcosim_component_find_variable(c, name);
    int32_t x = -1;
    rtcosim_error err;
    if (rtcosim_component_get(c, RTCOSIM_TYPE_INT32, &v->value_reference, 1, &x, &err))
        fail_msg("%s", err.message);
    return x;
}

static rtcosim_se_partition_stats stats_of(rtcosim_component *c, const char *clock)
{
    const rtcosim_variable *v = rtcosim_component_find_variable(c, clock);
    long k = rtcosim_fmu_clock_index(rtcosim_fmu_clocks_of(c),
                                     (size_t)(v - rtcosim_component_variable(c, 0)));
    assert_true(k >= 0);
    rtcosim_se_partition_stats ps;
    rtcosim_error err;
    assert_int_equal(rtcosim_fmu_se_partition_stats(c, (size_t)k, &ps, &err), RTCOSIM_OK);
    return ps;
}

/* One frame: deadline on the clock, simulation time te, step [te, te + h),
 * the frame ending `length` after its deadline. */
static void frame_of(rtcosim_component *c, rtcosim_clock *clk, rtcosim_time_ns deadline,
                     rtcosim_time_ns te, rtcosim_time_ns h, rtcosim_time_ns length)
{
    rtcosim_clock_sleep_until(clk, deadline);
    rtcosim_paced_frame pf = {clk, deadline, te, 1.0, deadline + length};
    rtcosim_paced_frame_set(&pf);
    rtcosim_step_result sr;
    rtcosim_error err;
    rtcosim_status st = rtcosim_component_do_step(c, te, h, &sr, &err);
    rtcosim_paced_frame_set(NULL);
    if (st != RTCOSIM_OK)
        fail_msg("%s", err.message);
}

static void frame(rtcosim_component *c, rtcosim_clock *clk, rtcosim_time_ns deadline,
                  rtcosim_time_ns te, rtcosim_time_ns h)
{
    frame_of(c, clk, deadline, te, h, h);
}

static void partitions_run_at_their_release_times_in_a_paced_frame(void **state)
{
    (void)state;
    rtcosim_fmu_options fo = {.interface_type = RTCOSIM_FMI_SCHEDULED_EXECUTION};
    rtcosim_component *c;
    rtcosim_clock *clk;
    rtcosim_error err;
    assert_int_equal(rtcosim_fmu_load(RTCOSIM_FMU_TASKS_FMI3SE, &fo, &c, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_clock_create_virtual(0, &clk, &err), RTCOSIM_OK);
    /* Sleeps that wait: to slow's 0.25 s, to fast's 0.5 s, to the frame at
     * 1 s, to fast's 1.5 s (200 us late). */
    const rtcosim_time_ns delays[] = {0, 0, 0, 200 * 1000};
    assert_int_equal(rtcosim_clock_set_wakeup_delays(clk, delays, 4, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_instantiate(c, "tasks", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_setup(c, 0, 0, -1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_enter_init(c, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);

    /* [0, 1): slow (priority 0) at 0.25 s, fast at 0.5 s; the thread sleeps
     * until each; on time. */
    frame(c, clk, 0, 0, RTCOSIM_NS_PER_S);
    assert_int_equal(get_int(c, "fast_count"), 1);
    assert_int_equal(stats_of(c, "slow").activations, 1);
    assert_int_equal(rtcosim_clock_now(clk), 500 * MS);
    rtcosim_se_partition_stats ps = stats_of(c, "fast");
    assert_int_equal(ps.released, 1);
    assert_int_equal(ps.lateness_max_ns, 0);

    /* [1, 2): fast at 1.5 s, its wake-up 200 us late. */
    frame(c, clk, RTCOSIM_NS_PER_S, RTCOSIM_NS_PER_S, RTCOSIM_NS_PER_S);
    assert_int_equal(get_int(c, "fast_count"), 2);
    assert_int_equal(rtcosim_clock_now(clk), 1500 * MS + 200 * 1000);
    ps = stats_of(c, "fast");
    assert_int_equal(ps.released, 2);
    assert_int_equal(ps.lateness_max_ns, 200 * 1000);
    assert_true(ps.lateness_p99_ns <= 200 * 1000 && ps.lateness_p99_ns > 150 * 1000);

    /* [2, 2.5): fast's tick at 2.5 s is the next frame's, at its start. */
    frame(c, clk, 2 * RTCOSIM_NS_PER_S, 2 * RTCOSIM_NS_PER_S, 500 * MS);
    assert_int_equal(get_int(c, "fast_count"), 2);
    /* [2.5, 3) with trigger set: released at 2.5 s with fast and the
     * countdown fast's 1.5 s tick started with 1 s; in priority order. */
    const rtcosim_variable *trigger = rtcosim_component_find_variable(c, "trigger");
    bool tick = true;
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_CLOCK, &trigger->value_reference, 1,
                                           &tick, &err), RTCOSIM_OK);
    frame(c, clk, 2500 * MS, 2500 * MS, 500 * MS);
    assert_int_equal(get_int(c, "fast_count"), 3);
    assert_int_equal(get_int(c, "trigger_count"), 1);
    assert_int_equal(get_int(c, "countdown_count"), 1);
    assert_int_equal(get_int(c, "order"), 123);
    assert_int_equal(stats_of(c, "trigger").lateness_max_ns, 0);
    /* A step of 2 s in a frame of 250 ms (a multi-rate part's master): fast's
     * 3.5 and 4.5 s ticks lie past the frame's end and run at once, without
     * a lateness, instead of holding the paced thread for frames. */
    frame_of(c, clk, 3 * RTCOSIM_NS_PER_S, 3 * RTCOSIM_NS_PER_S, 2 * RTCOSIM_NS_PER_S, 250 * MS);
    assert_int_equal(get_int(c, "fast_count"), 5);
    assert_int_equal(rtcosim_clock_now(clk), 3 * RTCOSIM_NS_PER_S);
    assert_int_equal(stats_of(c, "fast").released, 3);
    /* Nothing preempted: nothing ran while another partition did. */
    assert_int_equal(stats_of(c, "fast").preemptions, 0);
    rtcosim_component_free(c);
    rtcosim_clock_free(clk);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(partitions_run_at_their_release_times_in_a_paced_frame),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
