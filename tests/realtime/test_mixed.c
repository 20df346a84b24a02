/* Mixed real-time / non-real-time runs on virtual clocks: a real-time plant
 * (integrator) fed by a non-real-time source whose output is a known
 * polynomial of time, and whose compute times are injected. Every schedule,
 * estimate and error below is computed by hand from those compute times:
 * the partner's sample j (sent at j ms) starts when its processor is free,
 * takes d_j, and is seen by the frame at k ms when it completed by k ms. */
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

typedef struct mixed {
    rtcosim_clock *clock, *partner_clock;
    rtcosim_component *components[3]; /* plant, source, [timer] */
    size_t count;
    integrator *plant;
    poly *source;
    rtcosim_rt *rt;
    rtcosim_rt_options options;
} mixed;

/* y = a + b*t_ms + c*t_ms^2 from the source, into the plant's u; the plant's
 * x back to the source's w. */
static void mixed_setup(mixed *m, double a, double b, double c, rtcosim_delay_options *delay,
                        bool with_timer)
{
    memset(m, 0, sizeof *m);
    assert_int_equal(rtcosim_clock_create_virtual(0, &m->clock, NULL), RTCOSIM_OK);
    assert_int_equal(rtcosim_clock_create_virtual(0, &m->partner_clock, NULL), RTCOSIM_OK);
    m->components[0] = make_integrator(0.0, &m->plant);
    rtcosim_component *source = make_poly(a, b, c, &m->source);
    delay->clock = m->partner_clock;
    assert_int_equal(rtcosim_delay_wrap(source, delay, &m->components[1], NULL), RTCOSIM_OK);
    m->count = 2;
    if (with_timer)
        m->components[m->count++] = make_timer();
    assert_int_equal(start_component(m->components[0], "plant"), RTCOSIM_OK);
    assert_int_equal(start_component(m->components[1], "source"), RTCOSIM_OK);
    if (with_timer)
        assert_int_equal(start_component(m->components[2], "timer"), RTCOSIM_OK);
    rtcosim_rt_options_init(&m->options);
    m->options.clock = m->clock;
    m->options.partner_clock = m->partner_clock;
    m->options.non_realtime = "source";
}

static const rtcosim_rt_connection mixed_connections[] = {
    {.from_component = 1, .from_vr = 1, .to_component = 0, .to_vr = 0},
    {.from_component = 0, .from_vr = 1, .to_component = 1, .to_vr = 0},
};

static rtcosim_status mixed_run(mixed *m, rtcosim_time_ns stop, rtcosim_error *err)
{
    m->options.stop_time = stop;
    rtcosim_status st = rtcosim_rt_create(m->components, m->count, mixed_connections, 2,
                                          &m->options, &m->rt, err);
    if (st != RTCOSIM_OK)
        return st;
    return rtcosim_rt_run(m->rt, err);
}

static void mixed_teardown(mixed *m)
{
    rtcosim_rt_free(m->rt);
    for (size_t i = 0; i < m->count; i++)
        rtcosim_component_free(m->components[i]);
    rtcosim_clock_free(m->clock);
    rtcosim_clock_free(m->partner_clock);
}

static double used_input(const mixed *m, size_t frame)
{
    return rtcosim_rt_frame_signals(m->rt, frame)[0];
}

/* d = 0.2, 0.2, 2.5, 0.2, ... ms: sample 2 (sent at 2 ms) completes at 4.5;
 * samples 3 and 4 follow at once (4.7, 4.9). Frames 3 and 4 lack data (valid
 * at 3 and 4 ms) and estimate; frame 5 has everything up to 5 ms again. */
static const rtcosim_time_ns late_once[] = {MS(0.2), MS(0.2), MS(2.5), MS(0.2), MS(0.2),
                                            MS(0.2), MS(0.2), MS(0.2), MS(0.2), MS(0.2)};

static void estimates_are_used_exactly_when_the_partner_is_late(void **state)
{
    (void)state;
    mixed m;
    rtcosim_delay_options d = {.schedule = late_once, .schedule_length = 10};
    mixed_setup(&m, 1, 2, 0, &d, false); /* y = 1 + 2 t_ms */
    assert_int_equal(mixed_run(&m, MS(8), NULL), RTCOSIM_OK);
    for (size_t k = 0; k < 8; k++) {
        const rtcosim_rt_frame *f = rtcosim_rt_frame_at(m.rt, k);
        bool estimated = (f->flags & RTCOSIM_FRAME_ESTIMATED) != 0;
        assert_int_equal(estimated, k == 3 || k == 4);
        assert_true(f->flags & RTCOSIM_FRAME_EXCHANGE);
        assert_int_equal(f->lag, k == 3 ? MS(1) : k == 4 ? MS(2) : 0);
        /* The real-time frames themselves stay on time. */
        assert_int_equal(f->lateness, 0);
    }
    const rtcosim_rt_summary *s = rtcosim_rt_get_summary(m.rt);
    assert_int_equal(s->exchanges, 7);
    assert_int_equal(s->estimated_exchanges, 2);
    assert_int_equal(s->late_episodes, 1);
    assert_int_equal(s->resync_frames_max, 2);
    assert_int_equal(s->resync_frames_median, 2);
    assert_int_equal(s->max_lag, MS(2));
    assert_int_equal(s->overruns, 0);
    assert_false(s->partner_lost);
    /* On-time data is the exact source value; estimates hold y(2 ms) = 5. */
    assert_true(used_input(&m, 2) == 5.0);
    assert_true(used_input(&m, 3) == 5.0);
    assert_true(used_input(&m, 4) == 5.0);
    assert_true(used_input(&m, 5) == 11.0);
    /* ZOH: estimate 5 for y(3) = 7 and y(4) = 9. */
    assert_int_equal(rtcosim_rt_record_count(m.rt), 2);
    const rtcosim_estimate_record *r0 = rtcosim_rt_record_at(m.rt, 0);
    const rtcosim_estimate_record *r1 = rtcosim_rt_record_at(m.rt, 1);
    assert_int_equal(r0->te, MS(3));
    assert_int_equal(r0->tv, MS(1)); /* last input consumed: stamped 1 ms */
    assert_int_equal(r0->lag, MS(1));
    assert_int_equal(r0->kind, RTCOSIM_ESTIMATOR_ZOH);
    assert_true(r0->estimate == 5.0 && r0->late_value == 7.0 && r0->error == 2.0);
    assert_int_equal(r1->te, MS(4));
    assert_int_equal(r1->lag, MS(2));
    assert_true(r1->estimate == 5.0 && r1->late_value == 9.0 && r1->error == 4.0);
    rtcosim_estimator_stats st;
    rtcosim_estimator_get_stats(rtcosim_rt_estimator(m.rt, 0), &st);
    assert_int_equal(st.estimates, 2);
    assert_int_equal(st.resolved, 2);
    assert_true(fabs(st.rms_error - sqrt(10.0)) < 1e-12);
    assert_true(st.max_abs_error == 4.0);
    /* FOH would have been exact on the ramp. */
    assert_true(st.kind_rms_error[RTCOSIM_ESTIMATOR_FOH] < 1e-12);
    mixed_teardown(&m);
}

static void tv_includes_the_step_when_configured(void **state)
{
    (void)state;
    mixed m;
    rtcosim_delay_options d = {.schedule = late_once, .schedule_length = 10};
    mixed_setup(&m, 1, 2, 0, &d, false);
    m.options.tv_includes_step = true;
    assert_int_equal(mixed_run(&m, MS(8), NULL), RTCOSIM_OK);
    assert_int_equal(rtcosim_rt_record_at(m.rt, 0)->tv, MS(2));
    assert_int_equal(rtcosim_rt_frame_at(m.rt, 6)->tv, MS(6)); /* in sync: tv == te */
    mixed_teardown(&m);
}

static void foh_and_soh_estimates_equal_hand_extrapolations(void **state)
{
    (void)state;
    /* y = t_ms^2: history (0,0) (1,1) (2,4). FOH at 3: 4 + 3 = 7, at 4: 10;
     * SOH (exact for a parabola): 9 and 16. */
    struct {
        rtcosim_estimator_kind kind;
        double at3, at4;
    } cases[] = {{RTCOSIM_ESTIMATOR_FOH, 7, 10}, {RTCOSIM_ESTIMATOR_SOH, 9, 16}};
    for (size_t i = 0; i < 2; i++) {
        mixed m;
        rtcosim_delay_options d = {.schedule = late_once, .schedule_length = 10};
        mixed_setup(&m, 0, 0, 1, &d, false);
        m.options.estimator.kind = cases[i].kind;
        assert_int_equal(mixed_run(&m, MS(8), NULL), RTCOSIM_OK);
        assert_true(fabs(used_input(&m, 3) - cases[i].at3) < 1e-9);
        assert_true(fabs(used_input(&m, 4) - cases[i].at4) < 1e-9);
        rtcosim_estimator_stats st;
        rtcosim_estimator_get_stats(rtcosim_rt_estimator(m.rt, 0), &st);
        /* Errors of every kind on the same two estimates (late: 9, 16). */
        assert_true(fabs(st.kind_rms_error[RTCOSIM_ESTIMATOR_ZOH] - sqrt((25.0 + 144.0) / 2)) <
                    1e-9);
        assert_true(fabs(st.kind_rms_error[RTCOSIM_ESTIMATOR_FOH] - sqrt((4.0 + 36.0) / 2)) <
                    1e-9);
        assert_true(st.kind_rms_error[RTCOSIM_ESTIMATOR_SOH] < 1e-9);
        mixed_teardown(&m);
    }
}

/* d repeats 0.2, 0.2, 1.3 ms: samples 2, 5, 8, 11 complete 0.3 ms after the
 * next frame, so frames 3, 6, 9, 12 estimate with a lag of one step. */
static const rtcosim_time_ns late_every_third[] = {MS(0.2), MS(0.2), MS(1.3)};

static void order_adaptation_switches_to_foh_on_a_ramp(void **state)
{
    (void)state;
    mixed m;
    rtcosim_delay_options d = {.schedule = late_every_third, .schedule_length = 3};
    mixed_setup(&m, 1, 2, 0, &d, false);
    m.options.estimator.kind = RTCOSIM_ESTIMATOR_ZOH;
    m.options.estimator.adapt = RTCOSIM_ADAPT_ORDER;
    assert_int_equal(mixed_run(&m, MS(14), NULL), RTCOSIM_OK);
    assert_int_equal(rtcosim_rt_record_count(m.rt), 4);
    const double te[] = {3, 6, 9, 12};
    for (size_t i = 0; i < 4; i++) {
        const rtcosim_estimate_record *r = rtcosim_rt_record_at(m.rt, i);
        assert_int_equal(r->te, MS(te[i]));
        /* First a ZOH estimate (error = slope * H = 2), then FOH: exact. */
        assert_int_equal(r->kind, i == 0 ? RTCOSIM_ESTIMATOR_ZOH : RTCOSIM_ESTIMATOR_FOH);
        assert_true(fabs(r->error - (i == 0 ? 2.0 : 0.0)) < 1e-9);
    }
    rtcosim_estimator_stats st;
    rtcosim_estimator_get_stats(rtcosim_rt_estimator(m.rt, 0), &st);
    assert_int_equal(st.current_kind, RTCOSIM_ESTIMATOR_FOH);
    assert_int_equal(st.used[RTCOSIM_ESTIMATOR_ZOH], 1);
    assert_int_equal(st.used[RTCOSIM_ESTIMATOR_FOH], 3);
    const rtcosim_rt_summary *s = rtcosim_rt_get_summary(m.rt);
    assert_int_equal(s->late_episodes, 4);
    assert_int_equal(s->resync_frames_max, 1);
    mixed_teardown(&m);
}

static void bias_adaptation_removes_a_constant_estimation_error(void **state)
{
    (void)state;
    mixed m;
    rtcosim_delay_options d = {.schedule = late_every_third, .schedule_length = 3};
    mixed_setup(&m, 1, 2, 0, &d, false);
    m.options.estimator.adapt = RTCOSIM_ADAPT_BIAS;
    assert_int_equal(mixed_run(&m, MS(14), NULL), RTCOSIM_OK);
    /* ZOH lags the ramp by 2 each time; after the first error the bias (2)
     * is added: estimates 5, then 11 + 2, 17 + 2, 23 + 2. */
    const double estimate[] = {5, 13, 19, 25};
    for (size_t i = 0; i < 4; i++) {
        const rtcosim_estimate_record *r = rtcosim_rt_record_at(m.rt, i);
        assert_true(fabs(r->estimate - estimate[i]) < 1e-9);
        assert_int_equal(r->kind, RTCOSIM_ESTIMATOR_ZOH);
    }
    rtcosim_estimator_stats st;
    rtcosim_estimator_get_stats(rtcosim_rt_estimator(m.rt, 0), &st);
    assert_true(fabs(st.bias - 2.0) < 1e-12);
    assert_true(fabs(st.rms_error - sqrt(4.0 / 4)) < 1e-9);
    mixed_teardown(&m);
}

static rtcosim_map *ramp_map(const char *text)
{
    rtcosim_map *map = NULL;
    assert_int_equal(rtcosim_map_parse_csv(text, strlen(text), "ramp.csv", &map, NULL),
                     RTCOSIM_OK);
    return map;
}

static void map_estimator_looks_up_the_current_real_time_signal(void **state)
{
    (void)state;
    rtcosim_map *map = ramp_map("timer.ms,y\n0,1\n10,21\n"); /* y = 1 + 2 ms */
    mixed m;
    rtcosim_delay_options d = {.schedule = late_once, .schedule_length = 10};
    mixed_setup(&m, 1, 2, 0, &d, true);
    m.options.estimator.kind = RTCOSIM_ESTIMATOR_MAP;
    m.options.estimator.map = map;
    assert_int_equal(mixed_run(&m, MS(8), NULL), RTCOSIM_OK);
    assert_true(fabs(used_input(&m, 3) - 7.0) < 1e-12);
    assert_true(fabs(used_input(&m, 4) - 9.0) < 1e-12);
    assert_int_equal(rtcosim_rt_record_at(m.rt, 1)->kind, RTCOSIM_ESTIMATOR_MAP);
    mixed_teardown(&m);
    rtcosim_map_free(map);
}

static void map_input_out_of_range_clamps_with_a_count_or_fails_when_asked(void **state)
{
    (void)state;
    rtcosim_map *map = ramp_map("timer.ms,y\n0,1\n2,5\n"); /* covers 0..2 ms only */
    mixed m;
    rtcosim_delay_options d = {.schedule = late_once, .schedule_length = 10};
    mixed_setup(&m, 1, 2, 0, &d, true);
    m.options.estimator.kind = RTCOSIM_ESTIMATOR_MAP;
    m.options.estimator.map = map;
    assert_int_equal(mixed_run(&m, MS(8), NULL), RTCOSIM_OK);
    assert_true(used_input(&m, 3) == 5.0 && used_input(&m, 4) == 5.0);
    rtcosim_estimator_stats st;
    rtcosim_estimator_get_stats(rtcosim_rt_estimator(m.rt, 0), &st);
    assert_int_equal(st.map_clamped, 2);
    mixed_teardown(&m);

    rtcosim_delay_options d2 = {.schedule = late_once, .schedule_length = 10};
    mixed_setup(&m, 1, 2, 0, &d2, true);
    m.options.estimator.kind = RTCOSIM_ESTIMATOR_MAP;
    m.options.estimator.map = map;
    m.options.estimator.map_range = RTCOSIM_MAP_RANGE_ERROR;
    rtcosim_error err;
    assert_int_equal(mixed_run(&m, MS(8), &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "ramp.csv: input timer.ms = 3 outside the map range [0, 2]"));
    /* Results so far are kept: frames 0..3 ran. */
    assert_int_equal(rtcosim_rt_frame_count(m.rt), 4);
    mixed_teardown(&m);
    rtcosim_map_free(map);
}

static void map_with_unknown_input_signal_is_refused_at_setup(void **state)
{
    (void)state;
    rtcosim_map *map = ramp_map("nosuch.signal,y\n0,1\n2,5\n");
    mixed m;
    rtcosim_delay_options d = {.schedule = late_once, .schedule_length = 10};
    mixed_setup(&m, 1, 2, 0, &d, true);
    m.options.estimator.kind = RTCOSIM_ESTIMATOR_MAP;
    m.options.estimator.map = map;
    rtcosim_error err;
    assert_int_equal(mixed_run(&m, MS(8), &err), RTCOSIM_ENOTFOUND);
    assert_non_null(strstr(err.message, "map input 'nosuch.signal' is not"));
    mixed_teardown(&m);
    rtcosim_map_free(map);
}

static void crashed_partner_is_reported_lost_and_the_plant_runs_on(void **state)
{
    (void)state;
    mixed m;
    static const rtcosim_time_ns fast[] = {MS(0.2)};
    rtcosim_delay_options d = {.schedule = fast, .schedule_length = 1, .fail_at_step = 3};
    mixed_setup(&m, 1, 2, 0, &d, false);
    assert_int_equal(mixed_run(&m, MS(10), NULL), RTCOSIM_OK);
    const rtcosim_rt_summary *s = rtcosim_rt_get_summary(m.rt);
    /* Step 3 (sample sent at 2 ms) crashes; frame 3 learns it. */
    assert_true(s->partner_lost);
    assert_int_equal(s->partner_lost_at, MS(3));
    assert_non_null(strstr(s->partner_lost_reason, "injected crash at step 3"));
    assert_int_equal(s->frames, 10);
    assert_int_equal(m.plant->end_time, MS(10));
    assert_int_equal(s->estimated_exchanges, 7); /* frames 3..9 */
    /* Every estimate is recorded, none ever resolved. */
    assert_int_equal(rtcosim_rt_record_count(m.rt), 7);
    for (size_t i = 0; i < 7; i++)
        assert_true(isnan(rtcosim_rt_record_at(m.rt, i)->late_value));
    mixed_teardown(&m);
}

static void silent_partner_is_declared_lost_after_the_timeout(void **state)
{
    (void)state;
    mixed m;
    static const rtcosim_time_ns fast[] = {MS(0.2)};
    rtcosim_delay_options d = {.schedule = fast, .schedule_length = 1, .hang_at_step = 3,
                               .hang_time = RTCOSIM_NS_PER_S};
    mixed_setup(&m, 1, 2, 0, &d, false);
    m.options.partner_timeout = MS(3);
    assert_int_equal(mixed_run(&m, MS(10), NULL), RTCOSIM_OK);
    const rtcosim_rt_summary *s = rtcosim_rt_get_summary(m.rt);
    /* Newest data valid at 2 ms; at 6 ms it is 4 ms old (> 3 ms). */
    assert_true(s->partner_lost);
    assert_int_equal(s->partner_lost_at, MS(6));
    assert_non_null(strstr(s->partner_lost_reason, "no output for 0.004 s (timeout 0.003 s)"));
    assert_int_equal(s->frames, 10);
    assert_int_equal(s->max_lag, MS(7)); /* last frame 9 ms, data of 2 ms */
    mixed_teardown(&m);
}

static void exchange_pattern_two_one_exchanges_at_hand_computed_frames(void **state)
{
    (void)state;
    mixed m;
    static const rtcosim_time_ns fast[] = {MS(0.2)};
    rtcosim_delay_options d = {.schedule = fast, .schedule_length = 1};
    mixed_setup(&m, 1, 2, 0, &d, false);
    assert_int_equal(rtcosim_exchange_pattern_parse("2-1", &m.options.exchange, NULL),
                     RTCOSIM_OK);
    assert_int_equal(mixed_run(&m, MS(9), NULL), RTCOSIM_OK);
    const bool exchange[] = {1, 0, 1, 1, 0, 1, 1, 0, 1};
    for (size_t k = 0; k < 9; k++)
        assert_int_equal((rtcosim_rt_frame_at(m.rt, k)->flags & RTCOSIM_FRAME_EXCHANGE) != 0,
                         exchange[k]);
    /* The partner steps 2 ms with the input of 0 ms (two macro steps of
     * 0.2 ms each: done at 0.4 ms), so y(2) = 5 is there at frame 2; the
     * input is held between exchanges. */
    assert_int_equal(rtcosim_rt_get_summary(m.rt)->estimated_exchanges, 0);
    assert_true(used_input(&m, 0) == 1.0 && used_input(&m, 1) == 1.0);
    assert_true(used_input(&m, 2) == 5.0 && used_input(&m, 3) == 7.0);
    assert_true(used_input(&m, 4) == 7.0 && used_input(&m, 5) == 11.0);
    mixed_teardown(&m);
}

static void correction_signal_restores_the_integral_of_the_input(void **state)
{
    (void)state;
    /* Reference: the same system with a partner that is never late. */
    mixed ref;
    static const rtcosim_time_ns fast[] = {MS(0.2)};
    rtcosim_delay_options d0 = {.schedule = fast, .schedule_length = 1};
    mixed_setup(&ref, 1, 2, 0, &d0, false);
    assert_int_equal(mixed_run(&ref, MS(8), NULL), RTCOSIM_OK);
    assert_int_equal(rtcosim_rt_get_summary(ref.rt)->estimated_exchanges, 0);

    mixed m;
    rtcosim_delay_options d = {.schedule = late_once, .schedule_length = 10};
    mixed_setup(&m, 1, 2, 0, &d, false);
    m.options.estimator.correction = true;
    assert_int_equal(mixed_run(&m, MS(8), NULL), RTCOSIM_OK);
    /* Errors 2 and 4 (1 ms each) come back at frame 5: 11 + 6 = 17. */
    assert_true(used_input(&m, 5) == 17.0);
    assert_true(used_input(&m, 6) == 13.0);
    /* The plant integrates its input: the integral matches the reference. */
    assert_true(fabs(m.plant->x - ref.plant->x) < 1e-12);
    mixed_teardown(&m);
    mixed_teardown(&ref);
}

static void virtual_mixed_run_needs_a_virtual_partner_clock(void **state)
{
    (void)state;
    mixed m;
    rtcosim_delay_options d = {.schedule = late_once, .schedule_length = 10};
    mixed_setup(&m, 1, 2, 0, &d, false);
    m.options.partner_clock = NULL;
    rtcosim_error err;
    assert_int_equal(mixed_run(&m, MS(8), &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "virtual partner clock"));
    mixed_teardown(&m);
}

static void report_files_are_written_with_estimates(void **state)
{
    (void)state;
    mixed m;
    rtcosim_delay_options d = {.schedule = late_once, .schedule_length = 10};
    mixed_setup(&m, 1, 2, 0, &d, false);
    assert_int_equal(mixed_run(&m, MS(8), NULL), RTCOSIM_OK);
    char *dir = tu_make_dir();
    char sub[4096];
    snprintf(sub, sizeof sub, "%s/a/b", dir);
    assert_int_equal(rtcosim_rt_write_report(m.rt, sub, NULL), RTCOSIM_OK);
    char path[4200], line[512];
    snprintf(path, sizeof path, "%s/estimates.csv", sub);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "te,tv,lag_us,signal,estimator,estimate,late_value,error\n");
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "0.003,0.001,1000.000,source.y,zoh,5,7,2\n");
    fclose(f);
    snprintf(path, sizeof path, "%s/frames.csv", sub);
    f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    assert_non_null(strstr(line, "time,frame,"));
    assert_non_null(strstr(line, ",source.y,plant.x\n"));
    int rows = 0;
    while (fgets(line, sizeof line, f))
        rows++;
    assert_int_equal(rows, 8);
    fclose(f);
    const char *names[] = {"estimates.csv", "frames.csv", "summary.csv", "overruns.csv",
                           "estimators.csv", "timing.svg"};
    for (size_t i = 0; i < 6; i++) {
        snprintf(path, sizeof path, "%s/%s", sub, names[i]);
        assert_int_equal(remove(path), 0);
    }
    snprintf(path, sizeof path, "%s/a", dir);
    assert_int_equal(remove(sub), 0);
    assert_int_equal(remove(path), 0);
    tu_drop_dir(dir);
    /* An unwritable directory gives a clear error. */
    rtcosim_error err;
    assert_int_equal(rtcosim_rt_write_report(m.rt, "/proc/rtcosim-no/x", &err), RTCOSIM_EIO);
    assert_non_null(strstr(err.message, "/proc/rtcosim-no"));
    mixed_teardown(&m);
}

/* The late_once run under the catch-up policy with one late wake-up of the
 * paced thread (1.2 ms) before frame `frame`; the executor stays in m. */
static void run_with_late_wakeup(mixed *m, size_t frame)
{
    rtcosim_delay_options d = {.schedule = late_once, .schedule_length = 10};
    mixed_setup(m, 1, 2, 0, &d, false);
    rtcosim_time_ns wake[8] = {0};
    wake[frame - 1] = MS(1.2); /* the sleep before frame k is the (k-1)-th */
    assert_int_equal(rtcosim_clock_set_wakeup_delays(m->clock, wake, 8, NULL), RTCOSIM_OK);
    m->options.overrun = RTCOSIM_OVERRUN_CATCH_UP;
    assert_int_equal(mixed_run(m, MS(8), NULL), RTCOSIM_OK);
}

static void late_wakeup_while_the_partner_is_late_counts_for_it_unless_isolated(void **state)
{
    (void)state;
    mixed m;
    /* Frame 3 (partner late: its sample 2 completes at 4.5 ms) starts at 4.2
     * and ends past its 4 ms deadline. On a virtual clock the paced thread
     * has neither SCHED_FIFO nor a CPU of its own, so the partner could have
     * delayed its wake-up: counted as the partner's. */
    run_with_late_wakeup(&m, 3);
    const rtcosim_rt_summary *s = rtcosim_rt_get_summary(m.rt);
    assert_false(s->partner_isolated);
    assert_int_equal(s->overruns, 1);
    assert_int_equal(s->overruns_wakeup, 1);
    assert_int_equal(s->overruns_while_late, 1);
    assert_int_equal(s->overruns_partner, 1);
    assert_true(rtcosim_rt_frame_at(m.rt, 3)->flags & RTCOSIM_FRAME_ESTIMATED);
    mixed_teardown(&m);
    /* The same stall at frame 6, when the partner is on time: not its doing. */
    run_with_late_wakeup(&m, 6);
    s = rtcosim_rt_get_summary(m.rt);
    assert_int_equal(s->overruns, 1);
    assert_int_equal(s->overruns_wakeup, 1);
    assert_int_equal(s->overruns_while_late, 0);
    assert_int_equal(s->overruns_partner, 0);
    mixed_teardown(&m);
}

/* The classification rules with hand-made figures (H = 1 ms). */
static void overrun_is_the_partners_when_its_exchange_work_decided_it(void **state)
{
    (void)state;
    const rtcosim_time_ns H = MS(1);
    /* Started 0.3 ms late, 0.9 ms of execution of which 0.25 ms exchange:
     * 0.2 ms over, so without the exchange work it would have been in time. */
    rtcosim_rt_overrun ov = {.lateness = MS(0.3), .exec = MS(0.9), .exchange = MS(0.25),
                             .overshoot = MS(0.2)};
    rtcosim_rt_classify_overrun(&ov, H, false, false, false, true, true);
    assert_int_equal(ov.cause, RTCOSIM_RT_CAUSE_WAKEUP);
    assert_true(ov.partner);
    /* Only 0.1 ms of exchange: the late start decided it; isolated, so not
     * the partner's even while it is late. */
    ov.exchange = MS(0.1);
    rtcosim_rt_classify_overrun(&ov, H, false, false, true, true, true);
    assert_false(ov.partner);
    /* Not isolated and the partner late: counted as its doing. */
    rtcosim_rt_classify_overrun(&ov, H, false, false, true, true, false);
    assert_true(ov.partner);
    /* 1.5 ms of execution with 0.1 ms of exchange: the step itself is too long. */
    rtcosim_rt_overrun ex = {.exec = MS(1.5), .exchange = MS(0.1), .overshoot = MS(0.5)};
    rtcosim_rt_classify_overrun(&ex, H, false, false, true, true, false);
    assert_int_equal(ex.cause, RTCOSIM_RT_CAUSE_EXECUTION);
    assert_false(ex.partner);
    /* A backlog frame inherits the verdict of the overrun before it. */
    rtcosim_rt_overrun bl = {.lateness = MS(0.5), .exec = MS(0.6), .overshoot = MS(0.1)};
    rtcosim_rt_classify_overrun(&bl, H, true, true, false, true, true);
    assert_int_equal(bl.cause, RTCOSIM_RT_CAUSE_BACKLOG);
    assert_true(bl.partner);
    rtcosim_rt_classify_overrun(&bl, H, true, false, false, true, true);
    assert_false(bl.partner);
    /* Without a partner nothing is the partner's. */
    rtcosim_rt_classify_overrun(&ov, H, false, false, true, false, false);
    assert_false(ov.partner);
}


/* --- Per-signal estimators, the linear estimator, the partner's pace -------- */

/* Per-signal spec over the default: source.y gets FOH with a rate limit of
 * 1000/s (1 per ms) from the last value handed out. Late at 3 and 4 ms
 * (late_once): FOH through (1, 3), (2, 5) says 7 and 9; the limit allows
 * 5 + 1 = 6 at 3 ms, then 6 + 1 = 7 at 4 ms. */
static void per_signal_estimator_overrides_the_default_with_its_limits(void **state)
{
    (void)state;
    mixed m;
    rtcosim_delay_options d = {.schedule = late_once, .schedule_length = 10};
    mixed_setup(&m, 1, 2, 0, &d, false);
    rtcosim_rt_signal_estimator se;
    bool per_signal;
    assert_int_equal(rtcosim_rt_signal_estimator_parse("source.y=foh,rate=1000", &se,
                                                       &per_signal, NULL),
                     RTCOSIM_OK);
    m.options.signal_estimators = &se;
    m.options.signal_estimator_count = 1;
    assert_int_equal(mixed_run(&m, MS(8), NULL), RTCOSIM_OK);
    assert_true(fabs(used_input(&m, 3) - 6) < 1e-9);
    assert_true(fabs(used_input(&m, 4) - 7) < 1e-9);
    assert_int_equal(rtcosim_rt_record_at(m.rt, 0)->kind, RTCOSIM_ESTIMATOR_FOH);
    mixed_teardown(&m);
}

static void per_signal_estimator_naming_an_unknown_or_repeated_signal_is_refused(void **state)
{
    (void)state;
    static const char *const cases[][3] = {
        {"nosuch.y=zoh", NULL, "estimator of 'nosuch.y': no such signal from the non-real-time"},
        {"source.y=zoh", "source.y=foh", "estimator of 'source.y' is given twice"},
        {"source.y=linear:timer.nope", NULL,
         "input 'timer.nope' is neither a real-time output nor a signal"},
        {"source.y=linear:source.y", NULL, "a signal cannot be its own linear input"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mixed m;
        rtcosim_delay_options d = {.schedule = late_once, .schedule_length = 10};
        mixed_setup(&m, 1, 2, 0, &d, true);
        rtcosim_rt_signal_estimator se[2];
        bool per_signal;
        size_t n = cases[i][1] ? 2 : 1;
        for (size_t k = 0; k < n; k++)
            assert_int_equal(rtcosim_rt_signal_estimator_parse(cases[i][k], &se[k], &per_signal,
                                                               NULL),
                             RTCOSIM_OK);
        m.options.signal_estimators = se;
        m.options.signal_estimator_count = n;
        rtcosim_error err;
        assert_int_not_equal(mixed_run(&m, MS(8), &err), RTCOSIM_OK);
        assert_null(m.rt);
        if (!strstr(err.message, cases[i][2]))
            fail_msg("case %zu: '%s'", i, err.message);
        mixed_teardown(&m);
    }
}

/* The source y = 1 + 2 t_ms is an exact linear function of the real-time
 * timer's ms: fitted on time at 0, 1, 2 ms, the linear estimator predicts
 * the late values at 3, 6, 9, 12 ms (late_every_third) as 1 + 2 te, where
 * ZOH would be 2 off, and its coefficients are (2, 1). */
static void linear_estimator_predicts_a_late_signal_from_a_real_time_one(void **state)
{
    (void)state;
    mixed m;
    rtcosim_delay_options d = {.schedule = late_every_third, .schedule_length = 3};
    mixed_setup(&m, 1, 2, 0, &d, true);
    assert_int_equal(rtcosim_estimator_spec_parse("linear:timer.ms", &m.options.estimator, NULL),
                     RTCOSIM_OK);
    assert_int_equal(mixed_run(&m, MS(14), NULL), RTCOSIM_OK);
    assert_int_equal(rtcosim_rt_record_count(m.rt), 4);
    for (size_t i = 0; i < 4; i++) {
        const rtcosim_estimate_record *r = rtcosim_rt_record_at(m.rt, i);
        double te = 3.0 * (double)(i + 1);
        assert_int_equal(r->te, MS(te));
        assert_int_equal(r->kind, RTCOSIM_ESTIMATOR_LINEAR);
        assert_true(fabs(r->estimate - (1 + 2 * te)) < 1e-4);
        assert_true(r->late_value == 1 + 2 * te);
        assert_true(fabs(used_input(&m, (size_t)te) - (1 + 2 * te)) < 1e-4);
    }
    double c[2];
    assert_int_equal(rtcosim_estimator_linear_coefficients(rtcosim_rt_estimator(m.rt, 0), c, 2),
                     2);
    assert_true(fabs(c[0] - 2) < 1e-5 && fabs(c[1] - 1) < 1e-5);
    rtcosim_estimator_stats st;
    rtcosim_estimator_get_stats(rtcosim_rt_estimator(m.rt, 0), &st);
    assert_true(fabs(st.kind_rms_error[RTCOSIM_ESTIMATOR_ZOH] - 2) < 1e-12);
    mixed_teardown(&m);
}

/* Compute times 0.2, 0.2, 1.3 ms per 1 ms step: 1.7 ms per 3 ms window, load
 * 17/30; 0.2, 0.2, 2.9: 3.3 ms per 3 ms, load 1.1, every window slow. */
static void partner_slower_than_real_time_on_average_is_reported_per_window(void **state)
{
    (void)state;
    static const rtcosim_time_ns slow[] = {MS(0.2), MS(0.2), MS(2.9)};
    mixed m;
    rtcosim_delay_options d = {.schedule = late_every_third, .schedule_length = 3};
    mixed_setup(&m, 1, 2, 0, &d, false);
    m.options.partner_window = MS(3);
    assert_int_equal(mixed_run(&m, MS(16), NULL), RTCOSIM_OK);
    const rtcosim_rt_summary *s = rtcosim_rt_get_summary(m.rt);
    /* The last frame (15 ms) sends no step: steps stamped 0..14 are
     * computed, 5 complete windows. */
    assert_int_equal(s->partner_windows, 5);
    assert_int_equal(s->partner_slow_windows, 0);
    assert_true(fabs(s->partner_worst_load - 17.0 / 30) < 1e-9);
    assert_true(fabs(s->partner_load - 17.0 / 30) < 1e-9);
    assert_int_equal(s->partner_compute_mean, 566667); /* 1.7 ms / 3, rounded to ns */
    assert_int_equal(s->partner_compute_max, MS(1.3));
    /* summary.csv carries them per part. */
    char *dir = tu_make_dir();
    assert_int_equal(rtcosim_rt_write_report(m.rt, dir, NULL), RTCOSIM_OK);
    char path[4200], line[512];
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    int found = 0;
    while (fgets(line, sizeof line, f))
        found += strcmp(line, "nonrealtime_compute_mean,566.667,us\n") == 0 ||
                 strcmp(line, "nonrealtime_share_of_H,0.566667,\n") == 0 ||
                 strcmp(line, "nonrealtime_windows,5,\n") == 0 ||
                 strcmp(line, "nonrealtime_slow_windows,0,\n") == 0 ||
                 strcmp(line, "nonrealtime_worst_window_share,0.566667,\n") == 0 ||
                 strncmp(line, "realtime_share_of_H,", 20) == 0;
    fclose(f);
    assert_int_equal(found, 6);
    const char *names[] = {"estimates.csv", "frames.csv", "summary.csv", "overruns.csv",
                           "estimators.csv", "timing.svg"};
    for (size_t i = 0; i < 6; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        assert_int_equal(remove(path), 0);
    }
    tu_drop_dir(dir);
    mixed_teardown(&m);

    rtcosim_delay_options d2 = {.schedule = slow, .schedule_length = 3};
    mixed_setup(&m, 1, 2, 0, &d2, false);
    m.options.partner_window = MS(3);
    assert_int_equal(mixed_run(&m, MS(30), NULL), RTCOSIM_OK);
    s = rtcosim_rt_get_summary(m.rt);
    assert_true(s->partner_windows >= 5);
    assert_int_equal(s->partner_slow_windows, s->partner_windows);
    assert_true(fabs(s->partner_worst_load - 1.1) < 1e-9);
    assert_int_equal(s->partner_first_slow_at, 0);
    assert_false(s->partner_lost); /* late, not lost: the timeout is 1 s */
    mixed_teardown(&m);
}

/* Issue 27's soak: what a run keeps must not be sized by its length. With
 * the frame log off and a small record budget, a run of 1e9 s (1e12 frames
 * of 1 ms) is created within a few MiB: the late-episode lengths are counted
 * in fixed bins, not listed (a list of one entry per two frames was 4 PB
 * here: out of memory). */
static void memory_of_a_run_does_not_grow_with_its_length(void **state)
{
    (void)state;
    mixed m;
    static const rtcosim_time_ns late[] = {MS(0.2), MS(0.2), MS(2.5)};
    rtcosim_delay_options d = {.schedule = late, .schedule_length = 3};
    mixed_setup(&m, 1, 2, 0, &d, false);
    m.options.frame_log = 0;
    m.options.record_capacity = 1000;
    m.options.stop_time = (rtcosim_time_ns)1000000000 * RTCOSIM_NS_PER_S;
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_rt_create(m.components, m.count, mixed_connections, 2, &m.options,
                                       &m.rt, &err),
                     RTCOSIM_OK);
    mixed_teardown(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(estimates_are_used_exactly_when_the_partner_is_late),
        cmocka_unit_test(tv_includes_the_step_when_configured),
        cmocka_unit_test(foh_and_soh_estimates_equal_hand_extrapolations),
        cmocka_unit_test(order_adaptation_switches_to_foh_on_a_ramp),
        cmocka_unit_test(bias_adaptation_removes_a_constant_estimation_error),
        cmocka_unit_test(map_estimator_looks_up_the_current_real_time_signal),
        cmocka_unit_test(map_input_out_of_range_clamps_with_a_count_or_fails_when_asked),
        cmocka_unit_test(map_with_unknown_input_signal_is_refused_at_setup),
        cmocka_unit_test(crashed_partner_is_reported_lost_and_the_plant_runs_on),
        cmocka_unit_test(silent_partner_is_declared_lost_after_the_timeout),
        cmocka_unit_test(exchange_pattern_two_one_exchanges_at_hand_computed_frames),
        cmocka_unit_test(correction_signal_restores_the_integral_of_the_input),
        cmocka_unit_test(virtual_mixed_run_needs_a_virtual_partner_clock),
        cmocka_unit_test(report_files_are_written_with_estimates),
        cmocka_unit_test(late_wakeup_while_the_partner_is_late_counts_for_it_unless_isolated),
        cmocka_unit_test(overrun_is_the_partners_when_its_exchange_work_decided_it),
        cmocka_unit_test(per_signal_estimator_overrides_the_default_with_its_limits),
        cmocka_unit_test(per_signal_estimator_naming_an_unknown_or_repeated_signal_is_refused),
        cmocka_unit_test(linear_estimator_predicts_a_late_signal_from_a_real_time_one),
        cmocka_unit_test(partner_slower_than_real_time_on_average_is_reported_per_window),
        cmocka_unit_test(memory_of_a_run_does_not_grow_with_its_length),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
