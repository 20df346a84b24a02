/* Several non-real-time parts on virtual clocks: two polynomial sources,
 * each a part of its own with its own processor clock and injected compute
 * times, feed two real-time integrators; the fast part's output also feeds
 * the slow part (through the exchange point). Every schedule, estimate,
 * resynchronization and pace figure below is worked out by hand from the
 * compute times: part sample j (sent at j ms) starts when its processor is
 * free, takes d_j, and is seen by the frame at k ms when it completed by k ms.
 *
 *   fast: y = 1 + 2 t_ms, d = 0.2 ms except d_2 = 2.5 ms: sample 2 completes
 *         at 4.5 ms, 3 and 4 follow (4.7, 4.9): frames 3 and 4 lack data valid
 *         at 3 and 4 ms (lag 1, 2 ms), frame 5 has everything: one episode of 2.
 *   slow: y = 10 + 3 t_ms, d = 0.2 ms except d_6 = 1.5 ms: sample 6 completes
 *         at 7.5 ms: frame 7 lacks data valid at 7 ms (lag 1 ms), frame 8 has
 *         it (sample 7 at 7.7 ms): one episode of 1. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "realtime/rt_internal.h"
#include "rt_models.h"
#include "util/test_util.h"

static const rtcosim_time_ns fast_times[] = {MS(0.2), MS(0.2), MS(2.5), MS(0.2), MS(0.2),
                                             MS(0.2), MS(0.2), MS(0.2), MS(0.2), MS(0.2)};
static const rtcosim_time_ns slow_times[] = {MS(0.2), MS(0.2), MS(0.2), MS(0.2), MS(0.2),
                                             MS(0.2), MS(1.5), MS(0.2), MS(0.2), MS(0.2)};

typedef struct two_parts {
    rtcosim_clock *clock, *part_clocks[2];
    rtcosim_component *components[4]; /* plant_fast, plant_slow, fast, slow */
    poly *slow;
    rtcosim_rt *rt;
    rtcosim_rt_options options;
    rtcosim_rt_signal_estimator linear;
} two_parts;

/* fast.y -> plant_fast.u and slow.w; slow.y -> plant_slow.u; plant_fast.x -> fast.w. */
static const rtcosim_rt_connection connections[] = {
    {.from_component = 2, .from_vr = 1, .to_component = 0, .to_vr = 0},
    {.from_component = 3, .from_vr = 1, .to_component = 1, .to_vr = 0},
    {.from_component = 0, .from_vr = 1, .to_component = 2, .to_vr = 0},
    {.from_component = 2, .from_vr = 1, .to_component = 3, .to_vr = 0},
};

static void setup_parts(two_parts *t)
{
    memset(t, 0, sizeof *t);
    assert_int_equal(rtcosim_clock_create_virtual(0, &t->clock, NULL), RTCOSIM_OK);
    for (int i = 0; i < 2; i++)
        assert_int_equal(rtcosim_clock_create_virtual(0, &t->part_clocks[i], NULL), RTCOSIM_OK);
    t->components[0] = make_integrator(0.0, NULL);
    t->components[1] = make_integrator(0.0, NULL);
    t->components[2] = with_schedule(make_poly(1, 2, 0, NULL), t->part_clocks[0], fast_times, 10);
    t->components[3] = with_schedule(make_poly(10, 3, 0, &t->slow), t->part_clocks[1],
                                     slow_times, 10);
    static const char *const names[] = {"plant_fast", "plant_slow", "fast", "slow"};
    for (int i = 0; i < 4; i++)
        assert_int_equal(start_component(t->components[i], names[i]), RTCOSIM_OK);
    rtcosim_rt_options_init(&t->options);
    t->options.clock = t->clock;
    t->options.partner_clocks = t->part_clocks;
    t->options.partner_clock_count = 2;
    t->options.non_realtime = "fast;slow";
}

static rtcosim_status run_parts(two_parts *t, rtcosim_time_ns stop, rtcosim_error *err)
{
    t->options.stop_time = stop;
    rtcosim_status st = rtcosim_rt_create(t->components, 4, connections, 4, &t->options, &t->rt,
                                          err);
    return st == RTCOSIM_OK ? rtcosim_rt_run(t->rt, err) : st;
}

static void teardown_parts(two_parts *t)
{
    rtcosim_rt_free(t->rt);
    for (int i = 0; i < 4; i++)
        rtcosim_component_free(t->components[i]);
    rtcosim_clock_free(t->clock);
    rtcosim_clock_free(t->part_clocks[0]);
    rtcosim_clock_free(t->part_clocks[1]);
}

/* slow.y = 10 + 3 t = 8.5 + 1.5 fast.y: predicted from fast.y when late. */
static void use_linear_estimator(two_parts *t)
{
    bool per_signal = false;
    assert_int_equal(rtcosim_rt_signal_estimator_parse("slow.y=linear:fast.y", &t->linear,
                                                       &per_signal, NULL),
                     RTCOSIM_OK);
    assert_true(per_signal);
    t->options.signal_estimators = &t->linear;
    t->options.signal_estimator_count = 1;
}

static void each_part_estimates_and_resynchronizes_on_its_own(void **state)
{
    (void)state;
    two_parts t;
    setup_parts(&t);
    use_linear_estimator(&t);
    assert_int_equal(run_parts(&t, MS(11), NULL), RTCOSIM_OK);
    assert_int_equal(rtcosim_rt_part_count(t.rt), 2);
    assert_int_equal(rtcosim_rt_signal_count(t.rt), 3);
    assert_string_equal(rtcosim_rt_signal_name(t.rt, 0), "fast.y");
    assert_string_equal(rtcosim_rt_signal_name(t.rt, 1), "slow.y");
    assert_string_equal(rtcosim_rt_signal_name(t.rt, 2), "plant_fast.x");
    for (size_t k = 0; k < 11; k++) {
        const rtcosim_rt_frame *f = rtcosim_rt_frame_at(t.rt, k);
        const rtcosim_rt_frame_part *pf = rtcosim_rt_frame_part_at(t.rt, k, 0);
        const rtcosim_rt_frame_part *ps = rtcosim_rt_frame_part_at(t.rt, k, 1);
        assert_int_equal(pf->estimated, k == 3 || k == 4);
        assert_int_equal(ps->estimated, k == 7);
        assert_int_equal(pf->lag, k == 3 ? MS(1) : k == 4 ? MS(2) : 0);
        assert_int_equal(ps->lag, k == 7 ? MS(1) : 0);
        /* The frame: the largest lag of the parts, estimated when any is. */
        assert_int_equal(f->lag, pf->lag > ps->lag ? pf->lag : ps->lag);
        assert_int_equal((f->flags & RTCOSIM_FRAME_ESTIMATED) != 0, k == 3 || k == 4 || k == 7);
        assert_int_equal(f->lateness, 0);
    }
    /* tv: the input stamp of the newest sample received. Frame 3: fast's
     * newest is sample 1, slow's sample 2; frame 7: fast's 6, slow's 5. */
    assert_int_equal(rtcosim_rt_frame_part_at(t.rt, 3, 0)->tv, MS(1));
    assert_int_equal(rtcosim_rt_frame_part_at(t.rt, 3, 1)->tv, MS(2));
    assert_int_equal(rtcosim_rt_frame_at(t.rt, 3)->tv, MS(1));
    assert_int_equal(rtcosim_rt_frame_part_at(t.rt, 7, 1)->tv, MS(5));
    assert_int_equal(rtcosim_rt_frame_at(t.rt, 7)->tv, MS(5));

    const rtcosim_rt_part_summary *fast = rtcosim_rt_part_summary_at(t.rt, 0);
    const rtcosim_rt_part_summary *slow = rtcosim_rt_part_summary_at(t.rt, 1);
    assert_string_equal(fast->name, "fast");
    assert_string_equal(slow->name, "slow");
    assert_int_equal(fast->signals_to_rt, 1);
    assert_int_equal(fast->signals_to_part, 1); /* plant_fast.x */
    assert_int_equal(slow->signals_to_part, 1); /* fast.y, through the exchange point */
    assert_int_equal(fast->estimated_exchanges, 2);
    assert_int_equal(fast->late_episodes, 1);
    assert_int_equal(fast->resync_frames_median, 2);
    assert_int_equal(fast->resync_frames_max, 2);
    assert_int_equal(fast->max_lag, MS(2));
    assert_int_equal(slow->estimated_exchanges, 1);
    assert_int_equal(slow->late_episodes, 1);
    assert_int_equal(slow->resync_frames_median, 1);
    assert_int_equal(slow->resync_frames_max, 1);
    assert_int_equal(slow->max_lag, MS(1));
    assert_false(fast->lost || slow->lost);
    /* The run: exchange points where any part was late (3, 4 and 7), two
     * episodes of 2 and 1 frames (median: the element at index 2 / 2 = 1 of
     * [1, 2]). */
    const rtcosim_rt_summary *s = rtcosim_rt_get_summary(t.rt);
    assert_int_equal(s->exchanges, 10);
    assert_int_equal(s->estimated_exchanges, 3);
    assert_int_equal(s->late_episodes, 2);
    assert_int_equal(s->resync_frames_median, 2);
    assert_int_equal(s->resync_frames_max, 2);
    assert_int_equal(s->max_lag, MS(2));
    assert_int_equal(s->nonrealtime_parts, 2);

    /* fast (ZOH): y(2) = 5 for y(3) = 7 and y(4) = 9. slow (linear in
     * fast.y, fitted on the exchanges where both arrived: 0, 1, 2, 5, 6;
     * not 3 and 4, where fast.y was an estimate): at 7 ms fast.y = 15
     * arrived on time, so slow.y = 8.5 + 1.5 * 15 = 31 = y(7). */
    assert_int_equal(rtcosim_rt_record_count(t.rt), 3);
    const rtcosim_estimate_record *r0 = rtcosim_rt_record_at(t.rt, 0);
    const rtcosim_estimate_record *r1 = rtcosim_rt_record_at(t.rt, 1);
    const rtcosim_estimate_record *r2 = rtcosim_rt_record_at(t.rt, 2);
    assert_int_equal(r0->signal, 0);
    assert_int_equal(r0->te, MS(3));
    assert_true(r0->estimate == 5.0 && r0->late_value == 7.0);
    assert_int_equal(r1->te, MS(4));
    assert_true(r1->estimate == 5.0 && r1->late_value == 9.0);
    assert_int_equal(r2->signal, 1);
    assert_int_equal(r2->te, MS(7));
    assert_int_equal(r2->tv, MS(5));
    assert_int_equal(r2->kind, RTCOSIM_ESTIMATOR_LINEAR);
    assert_true(r2->late_value == 31.0);
    assert_true(fabs(r2->estimate - 31.0) < 1e-3);
    /* Used as estimated: the frames' signals. */
    assert_true(rtcosim_rt_frame_signals(t.rt, 3)[0] == 5.0);
    assert_true(rtcosim_rt_frame_signals(t.rt, 7)[0] == 15.0);
    assert_true(fabs(rtcosim_rt_frame_signals(t.rt, 7)[1] - 31.0) < 1e-3);
    assert_true(rtcosim_rt_frame_signals(t.rt, 8)[1] == 34.0);
    teardown_parts(&t);
}

/* A map's input may be another part's signal: slow.y from fast.y through
 * the table (1, 10) - (21, 40), i.e. 10 + 1.5 (fast.y - 1). At 7 ms fast.y
 * = 15 arrived: 31 = y(7) exactly. */
static void a_map_estimator_reads_another_parts_signal(void **state)
{
    (void)state;
    two_parts t;
    setup_parts(&t);
    static const char table[] = "fast.y,slow.y\n1,10\n21,40\n";
    rtcosim_map *map = NULL;
    assert_int_equal(rtcosim_map_parse_csv(table, sizeof table - 1, "table", &map, NULL),
                     RTCOSIM_OK);
    memset(&t.linear, 0, sizeof t.linear);
    snprintf(t.linear.signal, sizeof t.linear.signal, "slow.y");
    rtcosim_estimator_spec_init(&t.linear.spec);
    t.linear.spec.kind = RTCOSIM_ESTIMATOR_MAP;
    t.linear.spec.map = map;
    t.options.signal_estimators = &t.linear;
    t.options.signal_estimator_count = 1;
    assert_int_equal(run_parts(&t, MS(9), NULL), RTCOSIM_OK);
    assert_int_equal(rtcosim_rt_record_count(t.rt), 3);
    const rtcosim_estimate_record *r = rtcosim_rt_record_at(t.rt, 2);
    assert_int_equal(r->te, MS(7));
    assert_int_equal(r->kind, RTCOSIM_ESTIMATOR_MAP);
    assert_true(r->estimate == 31.0 && r->late_value == 31.0);
    teardown_parts(&t);
    rtcosim_map_free(map);
}

/* A connection between two parts carries the value the real-time part holds
 * at the exchange: an estimate while the sending part is late. Stopping at
 * 5 ms, the last exchange (4 ms) sent slow fast.y's estimate 5 (y(4) = 9);
 * slow computed sample 3 (sent at 3 ms, the estimate 5 too) in frame 4. */
static void a_connection_between_parts_carries_the_value_used_at_the_exchange(void **state)
{
    (void)state;
    two_parts t;
    setup_parts(&t);
    assert_int_equal(run_parts(&t, MS(5), NULL), RTCOSIM_OK);
    double sent = 0;
    assert_true(rtcosim_rt_sent_value(t.rt, 3, 0, &sent));
    assert_true(sent == 5.0);
    assert_true(t.slow->w == 5.0);
    /* fast receives plant_fast.x; a real-time input is no part's. */
    assert_true(rtcosim_rt_sent_value(t.rt, 2, 0, &sent));
    assert_false(rtcosim_rt_sent_value(t.rt, 0, 0, &sent));
    teardown_parts(&t);
}

/* With windows of 1 ms each step is a window: fast's step 2 takes 2.5 ms
 * (load 2.5), slow's step 6 1.5 ms. Steps 0..9 are computed (the last
 * frame's sample is not): 10 windows each, one slow; loads 4.3 / 10 and
 * 3.3 / 10. */
static void each_part_has_its_own_pace_and_report_rows(void **state)
{
    (void)state;
    two_parts t;
    setup_parts(&t);
    t.options.partner_window = MS(1);
    assert_int_equal(run_parts(&t, MS(11), NULL), RTCOSIM_OK);
    const rtcosim_rt_part_summary *fast = rtcosim_rt_part_summary_at(t.rt, 0);
    const rtcosim_rt_part_summary *slow = rtcosim_rt_part_summary_at(t.rt, 1);
    assert_int_equal(fast->windows, 10);
    assert_int_equal(fast->slow_windows, 1);
    assert_true(fabs(fast->worst_load - 2.5) < 1e-9);
    assert_int_equal(fast->first_slow_at, MS(2));
    assert_true(fabs(fast->load - 0.43) < 1e-9);
    assert_int_equal(fast->compute_mean, MS(0.43));
    assert_int_equal(fast->compute_max, MS(2.5));
    assert_int_equal(slow->windows, 10);
    assert_int_equal(slow->slow_windows, 1);
    assert_true(fabs(slow->worst_load - 1.5) < 1e-9);
    assert_int_equal(slow->first_slow_at, MS(6));
    assert_true(fabs(slow->load - 0.33) < 1e-9);
    assert_int_equal(slow->compute_max, MS(1.5));
    /* The run's: sums, maxima and the earliest slow window. */
    const rtcosim_rt_summary *s = rtcosim_rt_get_summary(t.rt);
    assert_int_equal(s->partner_windows, 20);
    assert_int_equal(s->partner_slow_windows, 2);
    assert_true(fabs(s->partner_worst_load - 2.5) < 1e-9);
    assert_int_equal(s->partner_first_slow_at, MS(2));
    assert_true(fabs(s->partner_load - 0.43) < 1e-9);

    char *dir = tu_make_dir();
    assert_int_equal(rtcosim_rt_write_report(t.rt, dir, NULL), RTCOSIM_OK);
    char path[4200], line[1024];
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static const char *const expected[] = {
        "partner_window,0.001,s\n",
        "nonrealtime_parts,2,\n",
        "estimated_exchanges[fast],2,\n",
        "estimated_exchanges[slow],1,\n",
        "resync_frames_max[fast],2,\n",
        "resync_frames_max[slow],1,\n",
        "max_lag[fast],0.002,s\n",
        "nonrealtime_compute_mean[fast],430.000,us\n",
        "nonrealtime_compute_max[slow],1500.000,us\n",
        "nonrealtime_share_of_H[fast],0.430000,\n",
        "nonrealtime_share_of_H[slow],0.330000,\n",
        "nonrealtime_windows[slow],10,\n",
        "nonrealtime_slow_windows[slow],1,\n",
        "nonrealtime_worst_window_share[fast],2.500000,\n",
        "nonrealtime_first_slow_at[slow],0.006,s\n",
        "warning[slow],\"the non-real-time part slow was slower than real time in 1 of 10 "
        "windows of 0.001 s (worst 1.50x, first from 0.006000 s): it must be fast enough on "
        "average\",\n",
    };
    size_t n = sizeof expected / sizeof expected[0];
    bool seen[sizeof expected / sizeof expected[0]] = {0};
    while (fgets(line, sizeof line, f))
        for (size_t i = 0; i < n; i++)
            seen[i] = seen[i] || strcmp(line, expected[i]) == 0;
    fclose(f);
    for (size_t i = 0; i < n; i++)
        if (!seen[i])
            fail_msg("summary.csv lacks %s", expected[i]);
    /* frames.csv: per part its lag, tv and estimates; frame 7 (row 9 with
     * the header) has slow late by 1 ms. */
    snprintf(path, sizeof path, "%s/frames.csv", dir);
    f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    assert_non_null(strstr(line, ",fast.y,slow.y,plant_fast.x,lag_us[fast],tv[fast],"
                                 "estimated[fast],lag_us[slow],tv[slow],estimated[slow]\n"));
    for (int row = 0; row <= 7; row++)
        assert_non_null(fgets(line, sizeof line, f));
    assert_non_null(strstr(line, ",0.000,0.006,0,1000.000,0.005,1\n"));
    fclose(f);
    const char *names[] = {"estimates.csv", "frames.csv", "summary.csv", "overruns.csv",
                           "estimators.csv", "timing.svg"};
    for (size_t i = 0; i < 6; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        assert_int_equal(remove(path), 0);
    }
    tu_drop_dir(dir);
    teardown_parts(&t);
}

static void parts_named_twice_or_sharing_a_clock_are_refused(void **state)
{
    (void)state;
    two_parts t;
    rtcosim_error err;
    setup_parts(&t);
    t.options.non_realtime = "fast;slow,fast";
    assert_int_equal(run_parts(&t, MS(5), &err), RTCOSIM_EINVAL);
    assert_string_equal(err.message, "real-time: non-real-time component 'fast' is named twice");
    t.options.non_realtime = "fast;gearbox";
    assert_int_equal(run_parts(&t, MS(5), &err), RTCOSIM_ENOTFOUND);
    assert_string_equal(err.message,
                        "real-time: non-real-time component 'gearbox' is not in the system");
    t.options.non_realtime = "fast;slow";
    rtcosim_clock *own = t.part_clocks[1];
    t.part_clocks[1] = t.part_clocks[0];
    assert_int_equal(run_parts(&t, MS(5), &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "non-real-time parts 1 and 2 share a partner clock"));
    t.options.partner_clock_count = 1;
    assert_int_equal(run_parts(&t, MS(5), &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "2 non-real-time parts needs a virtual partner clock "
                                        "for each"));
    assert_null(t.rt);
    t.part_clocks[1] = own;
    teardown_parts(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_part_estimates_and_resynchronizes_on_its_own),
        cmocka_unit_test(a_map_estimator_reads_another_parts_signal),
        cmocka_unit_test(a_connection_between_parts_carries_the_value_used_at_the_exchange),
        cmocka_unit_test(each_part_has_its_own_pace_and_report_rows),
        cmocka_unit_test(parts_named_twice_or_sharing_a_clock_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
