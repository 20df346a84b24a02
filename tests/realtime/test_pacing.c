/* The paced executor on the virtual clock: frames start at their absolute
 * deadlines, each overrun policy gives the hand-computed start times, and
 * calibration refuses a part whose worst frame does not fit. Compute times
 * are injected (delay wrapper with an explicit schedule), so every figure
 * below is exact and independent of the machine's load. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

#include "rt_models.h"
#include "util/test_util.h"

typedef struct fixture {
    rtcosim_clock *clock;
    rtcosim_component *plant;
    integrator *impl;
    rtcosim_rt *rt;
} fixture;

/* One integrator (u = 1) whose steps take the given compute times. */
static void setup_plant(fixture *f, const rtcosim_time_ns *schedule, size_t n)
{
    memset(f, 0, sizeof *f);
    assert_int_equal(rtcosim_clock_create_virtual(0, &f->clock, NULL), RTCOSIM_OK);
    rtcosim_component *c = make_integrator(1.0, &f->impl);
    f->plant = n ? with_schedule(c, f->clock, schedule, n) : c;
    assert_non_null(f->plant);
    assert_int_equal(start_component(f->plant, "plant"), RTCOSIM_OK);
}

static rtcosim_status run_plant(fixture *f, rtcosim_rt_options *o, rtcosim_error *err)
{
    o->clock = f->clock;
    assert_int_equal(rtcosim_rt_create(&f->plant, 1, NULL, 0, o, &f->rt, err), RTCOSIM_OK);
    return rtcosim_rt_run(f->rt, err);
}

static void teardown(fixture *f)
{
    rtcosim_rt_free(f->rt);
    rtcosim_component_free(f->plant);
    rtcosim_clock_free(f->clock);
}

static rtcosim_time_ns start_of(const fixture *f, size_t i)
{
    const rtcosim_rt_frame *fr = rtcosim_rt_frame_at(f->rt, i);
    assert_non_null(fr);
    return fr->deadline + fr->lateness;
}

static void frames_start_exactly_at_absolute_deadlines_without_drift(void **state)
{
    (void)state;
    fixture f;
    static const rtcosim_time_ns exec[] = {MS(0.25)};
    setup_plant(&f, exec, 1);
    rtcosim_rt_options o;
    rtcosim_rt_options_init(&o);
    o.stop_time = MS(5);
    assert_int_equal(run_plant(&f, &o, NULL), RTCOSIM_OK);
    assert_int_equal(rtcosim_rt_frame_count(f.rt), 5);
    for (size_t i = 0; i < 5; i++) {
        assert_int_equal(start_of(&f, i), MS(i));
        assert_int_equal(rtcosim_rt_frame_at(f.rt, i)->exec, MS(0.25));
        assert_int_equal(rtcosim_rt_frame_at(f.rt, i)->te, MS(i));
    }
    const rtcosim_rt_summary *s = rtcosim_rt_get_summary(f.rt);
    assert_int_equal(s->overruns, 0);
    assert_int_equal(s->drift, 0);
    assert_int_equal(rtcosim_rt_lateness(f.rt)->max, 0);
    assert_int_equal(rtcosim_rt_exec_time(f.rt)->max, MS(0.25));
    /* u = 1 integrated over 5 ms. */
    assert_true(fabs(f.impl->x - 0.005) < 1e-15);
    teardown(&f);
}

/* cpu-dma-latency is held only on the wall clock, and there exactly when the
 * PM QoS device can be written (root on Linux); never on a virtual clock. */
static void dma_latency_is_held_on_the_wall_clock_only(void **state)
{
    (void)state;
    for (int wall = 0; wall < 2; wall++) {
        fixture f;
        setup_plant(&f, NULL, 0);
        if (wall) {
            rtcosim_clock_free(f.clock);
            assert_int_equal(rtcosim_clock_create_monotonic(0, &f.clock, NULL), RTCOSIM_OK);
        }
        rtcosim_rt_options o;
        rtcosim_rt_options_init(&o);
        o.stop_time = MS(3);
        o.cpu_dma_latency_us = 0;
        assert_int_equal(run_plant(&f, &o, NULL), RTCOSIM_OK);
        bool writable = access("/dev/cpu_dma_latency", W_OK) == 0;
        assert_int_equal(rtcosim_rt_get_summary(f.rt)->dma_latency_held, wall && writable);
        teardown(&f);
    }
}

static void real_time_factor_two_halves_the_frame_period(void **state)
{
    (void)state;
    fixture f;
    setup_plant(&f, NULL, 0);
    rtcosim_rt_options o;
    rtcosim_rt_options_init(&o);
    o.stop_time = MS(4);
    o.rt_factor = 2.0;
    assert_int_equal(run_plant(&f, &o, NULL), RTCOSIM_OK);
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(start_of(&f, i), MS(0.5 * (double)i));
    /* The run ends at 4 ms / 2 on the clock. */
    assert_int_equal(rtcosim_clock_now(f.clock), MS(2));
    assert_int_equal(f.impl->end_time, MS(4));
    teardown(&f);
}

/* Frame 1 takes 2.5 ms of a 1 ms period; every other frame 0.3 ms. */
static const rtcosim_time_ns overrun_schedule[] = {MS(0.3), MS(2.5), MS(0.3), MS(0.3),
                                                   MS(0.3), MS(0.3), MS(0.3)};

static void catch_up_runs_missed_frames_back_to_back_and_classifies_their_overruns(void **state)
{
    (void)state;
    fixture f;
    setup_plant(&f, overrun_schedule, 7);
    rtcosim_rt_options o;
    rtcosim_rt_options_init(&o);
    o.stop_time = MS(6);
    o.overrun = RTCOSIM_OVERRUN_CATCH_UP;
    assert_int_equal(run_plant(&f, &o, NULL), RTCOSIM_OK);
    /* f1 ends at 3.5; f2 starts at once (3.5, ends 3.8 > 3), f3 at 3.8 (ends
     * 4.1 > 4), f4 at 4.1 (ends 4.4 < 5), f5 on time at 5. */
    const double expected[] = {0, 1, 3.5, 3.8, 4.1, 5};
    assert_int_equal(rtcosim_rt_frame_count(f.rt), 6);
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(start_of(&f, i), MS(expected[i]));
    const rtcosim_rt_summary *s = rtcosim_rt_get_summary(f.rt);
    assert_int_equal(s->overruns, 3);
    assert_int_equal(s->drift, 0);
    assert_int_equal(rtcosim_rt_lateness(f.rt)->max, MS(1.5));
    rtcosim_rt_overrun log[8];
    assert_int_equal(rtcosim_rt_overruns(f.rt, log, 8), 3);
    assert_int_equal(log[0].frame, 1);
    assert_int_equal(log[0].overshoot, MS(1.5));
    assert_int_equal(log[2].frame, 3);
    assert_int_equal(log[2].overshoot, MS(0.1));
    /* f1 executes 2.5 ms in a 1 ms frame; f2 and f3 overrun only because
     * they start behind. */
    assert_int_equal(log[0].cause, RTCOSIM_RT_CAUSE_EXECUTION);
    assert_int_equal(log[1].cause, RTCOSIM_RT_CAUSE_BACKLOG);
    assert_int_equal(log[2].cause, RTCOSIM_RT_CAUSE_BACKLOG);
    assert_int_equal(s->overruns_execution, 1);
    assert_int_equal(s->overruns_backlog, 2);
    assert_int_equal(s->overruns_wakeup, 0);
    assert_int_equal(s->overruns_partner, 0); /* no partner at all */
    teardown(&f);
}

static void soft_policy_continues_at_once_and_slips_the_schedule(void **state)
{
    (void)state;
    fixture f;
    setup_plant(&f, overrun_schedule, 7);
    rtcosim_rt_options o;
    rtcosim_rt_options_init(&o);
    o.stop_time = MS(6);
    o.overrun = RTCOSIM_OVERRUN_SOFT;
    assert_int_equal(run_plant(&f, &o, NULL), RTCOSIM_OK);
    /* f1 ends 3.5 instead of 2: the schedule slips by 1.5 ms. */
    const double expected[] = {0, 1, 3.5, 4.5, 5.5, 6.5};
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(start_of(&f, i), MS(expected[i]));
    const rtcosim_rt_summary *s = rtcosim_rt_get_summary(f.rt);
    assert_int_equal(s->overruns, 1);
    assert_int_equal(s->slip, MS(1.5));
    assert_int_equal(s->drift, MS(1.5));
    teardown(&f);
}

static void skip_policy_drops_missed_frames_and_keeps_simulation_time(void **state)
{
    (void)state;
    fixture f;
    setup_plant(&f, overrun_schedule, 7);
    rtcosim_rt_options o;
    rtcosim_rt_options_init(&o);
    o.stop_time = MS(6);
    o.overrun = RTCOSIM_OVERRUN_SKIP;
    assert_int_equal(run_plant(&f, &o, NULL), RTCOSIM_OK);
    /* f1 ends 3.5: frames 2 and 3 (deadlines 2 and 3) are dropped; the
     * plant steps over [2, 4] ms at once (0.3 ms, ends 3.8), then frame 4
     * starts at its deadline 4 and frame 5 at 5. */
    const rtcosim_rt_summary *s = rtcosim_rt_get_summary(f.rt);
    assert_int_equal(s->frames, 4);
    assert_int_equal(s->frames_dropped, 2);
    assert_int_equal(s->overruns, 1);
    const double expected_start[] = {0, 1, 4, 5};
    const double expected_te[] = {0, 1, 4, 5};
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(start_of(&f, i), MS(expected_start[i]));
        assert_int_equal(rtcosim_rt_frame_at(f.rt, i)->te, MS(expected_te[i]));
    }
    /* No simulated time is lost: 6 ms integrated, in 5 steps. */
    assert_int_equal(f.impl->end_time, MS(6));
    assert_int_equal(f.impl->steps, 5);
    assert_true(fabs(f.impl->x - 0.006) < 1e-15);
    assert_int_equal(s->drift, 0);
    teardown(&f);
}

static void fail_policy_stops_at_first_overrun_and_keeps_results(void **state)
{
    (void)state;
    fixture f;
    setup_plant(&f, overrun_schedule, 7);
    rtcosim_rt_options o;
    rtcosim_rt_options_init(&o);
    o.stop_time = MS(6);
    o.overrun = RTCOSIM_OVERRUN_FAIL;
    rtcosim_error err;
    assert_int_equal(run_plant(&f, &o, &err), RTCOSIM_ETIMEOUT);
    assert_non_null(strstr(err.message, "frame 1 "));
    assert_non_null(strstr(err.message, "1500.0 us"));
    const rtcosim_rt_summary *s = rtcosim_rt_get_summary(f.rt);
    assert_true(s->failed);
    assert_int_equal(s->frames, 2);
    assert_int_equal(rtcosim_rt_frame_count(f.rt), 2);
    assert_int_equal(s->stopped_at, MS(2));
    teardown(&f);
}

static void calibration_refuses_a_part_whose_worst_frame_exceeds_the_budget(void **state)
{
    (void)state;
    fixture f;
    static const rtcosim_time_ns exec[] = {MS(0.5), MS(0.5), MS(0.95), MS(0.5)};
    setup_plant(&f, exec, 4);
    rtcosim_rt_options o;
    rtcosim_rt_options_init(&o);
    o.stop_time = MS(4);
    o.calibrate = true;
    o.calibration_frames = 8;
    o.calibration_budget = 0.9;
    rtcosim_error err;
    assert_int_equal(run_plant(&f, &o, &err), RTCOSIM_ETIMEOUT);
    /* 8 frames of 0.5 0.5 0.95 0.5 ms repeated: median 0.5 ms; the 99th
     * percentile (rank ceil(7.92) = 8 of 8) is a 0.95 ms frame. */
    assert_non_null(strstr(err.message, "500.0 us (median) and 950.0 us (99th percentile)"));
    assert_non_null(strstr(err.message, "(--no-calibrate runs anyway)"));
    assert_non_null(strstr(err.message, "1000.0 us frame period"));
    assert_int_equal(rtcosim_rt_get_summary(f.rt)->frames, 0);
    /* The calibration restored the plant's state. */
    assert_true(f.impl->x == 0.0);
    teardown(&f);
}

static void calibration_accepts_a_fitting_part_and_restores_its_state(void **state)
{
    (void)state;
    fixture f;
    static const rtcosim_time_ns exec[] = {MS(0.5), MS(0.8)};
    setup_plant(&f, exec, 2);
    rtcosim_rt_options o;
    rtcosim_rt_options_init(&o);
    o.stop_time = MS(4);
    o.calibrate = true;
    o.calibration_frames = 6;
    assert_int_equal(run_plant(&f, &o, NULL), RTCOSIM_OK);
    const rtcosim_rt_summary *s = rtcosim_rt_get_summary(f.rt);
    assert_int_equal(s->calibration_worst, MS(0.8));
    assert_int_equal(s->frames, 4);
    /* Calibration steps were undone: the plant integrated exactly 4 ms. */
    assert_true(fabs(f.impl->x - 0.004) < 1e-15);
    assert_int_equal(f.impl->end_time, MS(4));
    teardown(&f);
}

static void calibration_without_state_support_is_refused_clearly(void **state)
{
    (void)state;
    fixture f;
    memset(&f, 0, sizeof f);
    assert_int_equal(rtcosim_clock_create_virtual(0, &f.clock, NULL), RTCOSIM_OK);
    f.plant = make_poly(0, 1, 0, NULL);
    assert_int_equal(start_component(f.plant, "source"), RTCOSIM_OK);
    rtcosim_rt_options o;
    rtcosim_rt_options_init(&o);
    o.stop_time = MS(2);
    o.calibrate = true;
    rtcosim_error err;
    assert_int_equal(run_plant(&f, &o, &err), RTCOSIM_EUNSUPPORTED);
    assert_non_null(strstr(err.message, "source cannot save its state"));
    teardown(&f);
}

static void histogram_is_exact_below_32ns_and_within_one_sixteenth_above(void **state)
{
    (void)state;
    rtcosim_histogram h;
    rtcosim_histogram_reset(&h);
    assert_int_equal(rtcosim_histogram_percentile(&h, 50), 0);
    for (int64_t v = 1; v <= 20; v++)
        rtcosim_histogram_add(&h, v);
    assert_int_equal(rtcosim_histogram_percentile(&h, 50), 10);
    assert_int_equal(rtcosim_histogram_percentile(&h, 100), 20);
    assert_true(fabs(rtcosim_histogram_mean(&h) - 10.5) < 1e-12);
    rtcosim_histogram_reset(&h);
    /* 1000 values 1 us .. 1000 us: the true p99 is 990 us. */
    for (int64_t v = 1; v <= 1000; v++)
        rtcosim_histogram_add(&h, v * 1000);
    int64_t p99 = rtcosim_histogram_percentile(&h, 99);
    assert_true(p99 >= 990000 && p99 <= 990000 + 990000 / 16);
    int64_t p50 = rtcosim_histogram_percentile(&h, 50);
    assert_true(p50 >= 500000 && p50 <= 500000 + 500000 / 16);
    assert_int_equal(rtcosim_histogram_percentile(&h, 100), 1000000);
    assert_int_equal(h.max, 1000000);
    /* Negative lateness counts in the lowest bucket; min stays exact. */
    rtcosim_histogram_add(&h, -7);
    assert_int_equal(h.min, -7);
    rtcosim_histogram_add(&h, INT64_MAX);
    assert_int_equal(rtcosim_histogram_percentile(&h, 100), INT64_MAX);
}

static void options_parse_with_clear_errors(void **state)
{
    (void)state;
    rtcosim_overrun_policy p;
    rtcosim_error err;
    assert_int_equal(rtcosim_overrun_policy_parse("catch-up", &p, NULL), RTCOSIM_OK);
    assert_int_equal(p, RTCOSIM_OVERRUN_CATCH_UP);
    assert_int_equal(rtcosim_overrun_policy_parse("skip", &p, NULL), RTCOSIM_OK);
    assert_int_equal(p, RTCOSIM_OVERRUN_SKIP);
    assert_int_equal(rtcosim_overrun_policy_parse("hard", &p, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "'hard' is not one of soft, catch-up, skip, fail"));
    rtcosim_exchange_pattern x;
    assert_int_equal(rtcosim_exchange_pattern_parse("2-1-2-1", &x, NULL), RTCOSIM_OK);
    assert_int_equal(x.length, 4);
    assert_int_equal(x.frames[0], 2);
    assert_int_equal(x.frames[3], 1);
    assert_int_equal(rtcosim_exchange_pattern_parse("4", &x, NULL), RTCOSIM_OK);
    assert_int_equal(x.length, 1);
    assert_int_equal(x.frames[0], 4);
    assert_int_equal(rtcosim_exchange_pattern_parse("2-0", &x, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "1..1000000"));
    assert_int_equal(rtcosim_exchange_pattern_parse("2,1", &x, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "unexpected ','"));
    assert_int_equal(rtcosim_exchange_pattern_parse("", &x, &err), RTCOSIM_EINVAL);
    assert_int_equal(rtcosim_exchange_pattern_parse("2-", &x, &err), RTCOSIM_EINVAL);
}

static void executor_rejects_bad_options_naming_the_problem(void **state)
{
    (void)state;
    fixture f;
    setup_plant(&f, NULL, 0);
    rtcosim_rt_options o;
    rtcosim_rt_options_init(&o);
    o.clock = f.clock;
    rtcosim_error err;
    o.stop_time = MS(2.5);
    assert_int_equal(rtcosim_rt_create(&f.plant, 1, NULL, 0, &o, &f.rt, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "not a whole number of macro steps"));
    o.stop_time = MS(2);
    o.rt_factor = 0;
    assert_int_equal(rtcosim_rt_create(&f.plant, 1, NULL, 0, &o, &f.rt, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "factor"));
    o.rt_factor = 1;
    o.non_realtime = "nosuch";
    assert_int_equal(rtcosim_rt_create(&f.plant, 1, NULL, 0, &o, &f.rt, &err), RTCOSIM_ENOTFOUND);
    assert_non_null(strstr(err.message, "'nosuch' is not in the system"));
    o.non_realtime = "plant";
    assert_int_equal(rtcosim_rt_create(&f.plant, 1, NULL, 0, &o, &f.rt, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "nothing to pace"));
    o.non_realtime = NULL;
    rtcosim_rt_connection bad = {.from_component = 0, .from_vr = 0, .to_component = 0,
                                 .to_vr = 1}; /* input -> output */
    assert_int_equal(rtcosim_rt_create(&f.plant, 1, &bad, 1, &o, &f.rt, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "plant.u -> plant.x must go from an output to an input"));
    rtcosim_rt_connection missing = {.from_component = 0, .from_vr = 9, .to_component = 0,
                                     .to_vr = 0};
    assert_int_equal(rtcosim_rt_create(&f.plant, 1, &missing, 1, &o, &f.rt, &err),
                     RTCOSIM_ENOTFOUND);
    assert_non_null(strstr(err.message, "value reference 9"));
    assert_null(f.rt);
    assert_int_equal(rtcosim_rt_create(&f.plant, 1, NULL, 0, &o, &f.rt, NULL), RTCOSIM_OK);
    assert_int_equal(rtcosim_rt_run(f.rt, NULL), RTCOSIM_OK);
    assert_int_equal(rtcosim_rt_run(f.rt, &err), RTCOSIM_ESTATE);
    teardown(&f);
}

static void command_line_options_set_the_matching_fields(void **state)
{
    (void)state;
    rtcosim_rt_options o;
    rtcosim_rt_options_init(&o);
    static const char *const pairs[][2] = {
        {"real-time-factor", "2.5"}, {"overrun", "skip"},        {"step", "0.002"},
        {"stop-time", "10"},         {"non-real-time", "a,b"},   {"exchange", "2-1"},
        {"estimator", "soh,max=3"},  {"report", "out/rt"},       {"priority", "80"},
        {"cpu", "1"},                {"lock-memory", "yes"},     {"busy-wait", "0.00005"},
        {"calibrate", "true"},       {"partner-timeout", "0.5"}, {"tv-includes-step", "1"},
        {"cpu-dma-latency", "0"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        assert_int_equal(rtcosim_rt_option_set(&o, pairs[i][0], pairs[i][1], NULL), RTCOSIM_OK);
    assert_true(o.rt_factor == 2.5);
    assert_int_equal(o.overrun, RTCOSIM_OVERRUN_SKIP);
    assert_int_equal(o.macro_step, MS(2));
    assert_int_equal(o.stop_time, 10 * RTCOSIM_NS_PER_S);
    assert_string_equal(o.non_realtime, "a,b");
    assert_int_equal(o.exchange.length, 2);
    assert_int_equal(o.estimator.kind, RTCOSIM_ESTIMATOR_SOH);
    assert_true(o.estimator.has_max && o.estimator.max == 3);
    assert_string_equal(o.report_dir, "out/rt");
    assert_int_equal(o.fifo_priority, 80);
    assert_int_equal(o.cpu, 1);
    assert_true(o.lock_memory && o.calibrate && o.tv_includes_step);
    assert_int_equal(o.busy_wait, 50000);
    assert_int_equal(o.partner_timeout, MS(500));
    assert_int_equal(o.cpu_dma_latency_us, 0);
    rtcosim_error err;
    assert_int_equal(rtcosim_rt_option_set(&o, "cpu-dma-latency", "-2", &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "--cpu-dma-latency '-2'"));
    assert_int_equal(rtcosim_rt_option_set(&o, "overrun", "later", &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "--overrun: overrun policy 'later' is not one of"));
    assert_int_equal(rtcosim_rt_option_set(&o, "estimator", "cubic", &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "--estimator: estimator 'cubic'"));
    assert_int_equal(rtcosim_rt_option_set(&o, "priority", "100", &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "--priority '100': expected an integer 1..99"));
    assert_int_equal(rtcosim_rt_option_set(&o, "real-time-factor", "-1", &err), RTCOSIM_EINVAL);
    assert_int_equal(rtcosim_rt_option_set(&o, "lock-memory", "maybe", &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "expected yes or no"));
    assert_int_equal(rtcosim_rt_option_set(&o, "step", "fast", &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "--step 'fast'"));
    assert_int_equal(rtcosim_rt_option_set(&o, "speed", "1", &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "unknown real-time option --speed"));
}

/* The lines of the report file dir/name. */
static int report_lines(const char *dir, const char *name)
{
    char path[4096], line[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *in = fopen(path, "r");
    assert_non_null(in);
    int lines = 0;
    while (fgets(line, sizeof line, in))
        lines++;
    fclose(in);
    return lines;
}

static void report_is_written_after_a_failed_run_with_the_frames_so_far(void **state)
{
    (void)state;
    fixture f;
    setup_plant(&f, overrun_schedule, 7);
    rtcosim_rt_options o;
    rtcosim_rt_options_init(&o);
    o.stop_time = MS(6);
    o.overrun = RTCOSIM_OVERRUN_FAIL;
    char *dir = tu_make_dir();
    o.report_dir = dir;
    assert_int_equal(run_plant(&f, &o, NULL), RTCOSIM_ETIMEOUT);
    char path[4096], line[256];
    assert_int_equal(report_lines(dir, "frames.csv"), 3); /* header + frames 0 and 1 */
    snprintf(path, sizeof path, "%s/overruns.csv", dir);
    FILE *in = fopen(path, "r");
    assert_non_null(in);
    assert_non_null(fgets(line, sizeof line, in));
    assert_non_null(fgets(line, sizeof line, in));
    /* 2.5 ms of execution in a 1 ms frame: its own execution, no partner. */
    assert_string_equal(line, "1,0.001,0.000,2500.000,0.000,1500.000,execution,0\n");
    fclose(in);
    /* remove() succeeding proves each file, the timing plot included, exists. */
    const char *names[] = {"frames.csv", "overruns.csv", "summary.csv", "timing.svg"};
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        assert_int_equal(remove(path), 0);
    }
    tu_drop_dir(dir);
    teardown(&f);
}

/* Stopped before its first frame (Ctrl-C at once): the report is written,
 * frames.csv its header alone, and no timing plot of frames that never ran
 * (its drawing refused an empty table: exit 1 instead of 130). */
static void report_of_a_run_stopped_before_its_first_frame(void **state)
{
    (void)state;
    fixture f;
    static const rtcosim_time_ns exec[] = {MS(0.3)};
    setup_plant(&f, exec, 1);
    rtcosim_rt_options o;
    rtcosim_rt_options_init(&o);
    o.stop_time = MS(5);
    atomic_int stop = 1;
    o.stop_request = &stop;
    char *dir = tu_make_dir();
    o.report_dir = dir;
    assert_int_equal(run_plant(&f, &o, NULL), RTCOSIM_OK);
    char path[4096];
    assert_int_equal(report_lines(dir, "frames.csv"), 1);
    snprintf(path, sizeof path, "%s/timing.svg", dir);
    assert_int_not_equal(access(path, F_OK), 0);
    const char *names[] = {"frames.csv", "overruns.csv", "summary.csv"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        assert_int_equal(remove(path), 0);
    }
    tu_drop_dir(dir);
    teardown(&f);
}

static void late_wakeup_is_classified_apart_from_execution(void **state)
{
    (void)state;
    fixture f;
    static const rtcosim_time_ns exec[] = {MS(0.3)};
    setup_plant(&f, exec, 1);
    /* The sleeps before frames 1, 2, 3: frame 2 wakes 0.9 ms late. */
    const rtcosim_time_ns wake[] = {0, MS(0.9)};
    assert_int_equal(rtcosim_clock_set_wakeup_delays(f.clock, wake, 2, NULL), RTCOSIM_OK);
    rtcosim_rt_options o;
    rtcosim_rt_options_init(&o);
    o.stop_time = MS(5);
    o.overrun = RTCOSIM_OVERRUN_CATCH_UP;
    assert_int_equal(run_plant(&f, &o, NULL), RTCOSIM_OK);
    /* f2 starts at 2.9 and ends at 3.2 > 3; f3 starts at once at 3.2 and ends
     * at 3.5 < 4: one overrun, by the wake-up, 0.2 ms over. */
    assert_int_equal(start_of(&f, 2), MS(2.9));
    assert_int_equal(start_of(&f, 3), MS(3.2));
    rtcosim_rt_overrun log[4];
    assert_int_equal(rtcosim_rt_overruns(f.rt, log, 4), 1);
    assert_int_equal(log[0].frame, 2);
    assert_int_equal(log[0].cause, RTCOSIM_RT_CAUSE_WAKEUP);
    assert_int_equal(log[0].overshoot, MS(0.2));
    assert_false(log[0].partner);
    const rtcosim_rt_summary *s = rtcosim_rt_get_summary(f.rt);
    assert_int_equal(s->overruns_wakeup, 1);
    assert_int_equal(s->overruns, 1);
    teardown(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(frames_start_exactly_at_absolute_deadlines_without_drift),
        cmocka_unit_test(real_time_factor_two_halves_the_frame_period),
        cmocka_unit_test(dma_latency_is_held_on_the_wall_clock_only),
        cmocka_unit_test(catch_up_runs_missed_frames_back_to_back_and_classifies_their_overruns),
        cmocka_unit_test(soft_policy_continues_at_once_and_slips_the_schedule),
        cmocka_unit_test(skip_policy_drops_missed_frames_and_keeps_simulation_time),
        cmocka_unit_test(fail_policy_stops_at_first_overrun_and_keeps_results),
        cmocka_unit_test(calibration_refuses_a_part_whose_worst_frame_exceeds_the_budget),
        cmocka_unit_test(calibration_accepts_a_fitting_part_and_restores_its_state),
        cmocka_unit_test(calibration_without_state_support_is_refused_clearly),
        cmocka_unit_test(histogram_is_exact_below_32ns_and_within_one_sixteenth_above),
        cmocka_unit_test(options_parse_with_clear_errors),
        cmocka_unit_test(executor_rejects_bad_options_naming_the_problem),
        cmocka_unit_test(command_line_options_set_the_matching_fields),
        cmocka_unit_test(report_is_written_after_a_failed_run_with_the_frames_so_far),
        cmocka_unit_test(report_of_a_run_stopped_before_its_first_frame),
        cmocka_unit_test(late_wakeup_is_classified_apart_from_execution),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
