/* The error handling system's parts on their own: Lagrange extrapolation,
 * estimator spec parsing, characteristic maps (values, malformed files),
 * rate and min/max limits, pending estimates and the correction signal.
 * Expected values are computed by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/estimate.h"

#define MS(x) ((rtcosim_time_ns)((x) * 1e6 + 0.5))

static void extrapolation_of_each_order_matches_hand_values(void **state)
{
    (void)state;
    /* Points (1, 1), (2, 4), (3, 9) of t^2 (t in ms), unevenly used. */
    rtcosim_time_ns t[] = {MS(1), MS(2), MS(3)};
    double v[] = {1, 4, 9};
    assert_true(rtcosim_extrapolate(t, v, 3, 0, MS(5)) == 9.0);
    assert_true(fabs(rtcosim_extrapolate(t, v, 3, 1, MS(5)) - (9 + 5 * 2)) < 1e-12);
    assert_true(fabs(rtcosim_extrapolate(t, v, 3, 2, MS(5)) - 25) < 1e-12);
    /* Uneven spacing: (0, 0), (1, 1), (4, 16): the parabola again. */
    rtcosim_time_ns u[] = {MS(0), MS(1), MS(4)};
    double w[] = {0, 1, 16};
    assert_true(fabs(rtcosim_extrapolate(u, w, 3, 2, MS(6)) - 36) < 1e-9);
    /* Order lowered to what the points allow. */
    assert_true(rtcosim_extrapolate(t, v, 1, 2, MS(7)) == 1.0);
    assert_true(fabs(rtcosim_extrapolate(t, v, 2, 2, MS(4)) - 10) < 1e-12);
    assert_true(rtcosim_extrapolate(t, v, 0, 1, MS(4)) == 0.0);
}

static void estimator_spec_parses_kinds_and_modifiers(void **state)
{
    (void)state;
    rtcosim_estimator_spec s;
    assert_int_equal(rtcosim_estimator_spec_parse("soh,min=-1,max=2.5,rate=100,adapt=order+bias,"
                                                  "weight=0.5,correct",
                                                  &s, NULL),
                     RTCOSIM_OK);
    assert_int_equal(s.kind, RTCOSIM_ESTIMATOR_SOH);
    assert_true(s.has_min && s.min == -1 && s.has_max && s.max == 2.5);
    assert_true(s.rate_limit == 100);
    assert_int_equal(s.adapt, RTCOSIM_ADAPT_ORDER | RTCOSIM_ADAPT_BIAS);
    assert_true(s.adapt_weight == 0.5 && s.correction);
    assert_int_equal(rtcosim_estimator_spec_parse("map:maps/torque.csv,range=error", &s, NULL),
                     RTCOSIM_OK);
    assert_int_equal(s.kind, RTCOSIM_ESTIMATOR_MAP);
    assert_string_equal(s.map_path, "maps/torque.csv");
    assert_int_equal(s.map_range, RTCOSIM_MAP_RANGE_ERROR);
    rtcosim_error err;
    assert_int_equal(rtcosim_estimator_spec_parse("cubic", &s, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "unknown kind 'cubic' (expected zoh, foh, soh, map:FILE, "
                                         "linear:NAME[+NAME...])"));
    assert_int_equal(rtcosim_estimator_spec_parse("foh,speed=3", &s, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "unknown option 'speed'"));
    assert_int_equal(rtcosim_estimator_spec_parse("foh,rate=-3", &s, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "invalid value '-3' for rate"));
    assert_int_equal(rtcosim_estimator_spec_parse("foh,min=3,max=1", &s, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "min 3 above max 1"));
    assert_int_equal(rtcosim_estimator_spec_parse("map:", &s, &err), RTCOSIM_EINVAL);
    assert_int_equal(rtcosim_estimator_spec_parse("foh,adapt=always", &s, &err), RTCOSIM_EINVAL);
}

static rtcosim_status parse(const char *text, rtcosim_map **map, rtcosim_error *err)
{
    return rtcosim_map_parse_csv(text, strlen(text), "m.csv", map, err);
}

static void one_and_two_dimensional_maps_interpolate_linearly(void **state)
{
    (void)state;
    rtcosim_map *m = NULL;
    assert_int_equal(parse("# speed to torque\nplant.speed, torque\n0,0\n10,100\n20,120\n", &m,
                           NULL),
                     RTCOSIM_OK);
    assert_int_equal(rtcosim_map_input_count(m), 1);
    assert_string_equal(rtcosim_map_input_name(m, 0), "plant.speed");
    double y;
    bool clamped;
    double x = 15;
    assert_int_equal(rtcosim_map_lookup(m, &x, RTCOSIM_MAP_RANGE_CLAMP, &y, &clamped, NULL),
                     RTCOSIM_OK);
    assert_true(fabs(y - 110) < 1e-12 && !clamped);
    x = 25;
    assert_int_equal(rtcosim_map_lookup(m, &x, RTCOSIM_MAP_RANGE_CLAMP, &y, &clamped, NULL),
                     RTCOSIM_OK);
    assert_true(y == 120 && clamped);
    rtcosim_error err;
    x = -1;
    assert_int_equal(rtcosim_map_lookup(m, &x, RTCOSIM_MAP_RANGE_ERROR, &y, &clamped, &err),
                     RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "m.csv: input plant.speed = -1 outside the map range [0, 20]"));
    rtcosim_map_free(m);

    /* z = r + 10 c on the grid; bilinear is exact for it. */
    assert_int_equal(parse("a.r\\b.c,0,1,3\n0,0,10,30\n2,2,12,32\r\n", &m, NULL), RTCOSIM_OK);
    assert_int_equal(rtcosim_map_input_count(m), 2);
    assert_string_equal(rtcosim_map_input_name(m, 1), "b.c");
    double in[2] = {0.5, 2};
    assert_int_equal(rtcosim_map_lookup(m, in, RTCOSIM_MAP_RANGE_CLAMP, &y, NULL, NULL),
                     RTCOSIM_OK);
    assert_true(fabs(y - 20.5) < 1e-12);
    /* A saddle: bilinear of corners (0,0)=0, (0,1)=10, (2,0)=2, (2,1)=12 at (1, 0.5): 6. */
    in[0] = 1, in[1] = 0.5;
    assert_int_equal(rtcosim_map_lookup(m, in, RTCOSIM_MAP_RANGE_CLAMP, &y, NULL, NULL),
                     RTCOSIM_OK);
    assert_true(fabs(y - 6) < 1e-12);
    rtcosim_map_free(m);
}

static void malformed_maps_fail_with_file_line_and_problem(void **state)
{
    (void)state;
    struct {
        const char *text, *message;
    } cases[] = {
        {"", "m.csv:0: empty map (no header)"},
        {"x,y\n0,1\n", "m.csv:2: map needs at least 2 rows of data"},
        {"x,y\n0,1\n0,2\n", "m.csv:3: input values are not strictly increasing"},
        {"x,y\n0,1\n1,abc\n", "m.csv:3: 'abc' is not a finite number"},
        {"x,y\n0,1\n1,nan\n", "m.csv:3: 'nan' is not a finite number"},
        {"x,y\n0,1\n1,2,3\n", "m.csv:3: expected 2 values, found 3"},
        {"x,y,z\n", "m.csv:1: header must be INPUT,OUTPUT"},
        {"r\\c,0\n", "m.csv:1: 2-D map needs at least 2 column breakpoints"},
        {"r\\c,0,0\n", "m.csv:1: column breakpoints are not strictly increasing"},
        {"\\c,0,1\n", "m.csv:1: 2-D header must start with ROWINPUT\\COLINPUT"},
        {"r\\c,0,1\n0,1\n", "m.csv:2: expected 3 values, found 2"},
        {"r\\c,0,1\n1,1,1\n0,1,1\n", "m.csv:3: row breakpoints are not strictly increasing"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rtcosim_map *m = (rtcosim_map *)&cases; /* must be reset to NULL */
        rtcosim_error err;
        assert_int_equal(parse(cases[i].text, &m, &err), RTCOSIM_EFORMAT);
        assert_null(m);
        if (!strstr(err.message, cases[i].message))
            fail_msg("case %zu: got '%s', expected '%s'", i, err.message, cases[i].message);
    }
    rtcosim_map *m = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_map_load_csv("/nonexistent/map.csv", &m, &err), RTCOSIM_ENOTFOUND);
    assert_non_null(strstr(err.message, "/nonexistent/map.csv: cannot open map"));
    /* A map estimator whose file is missing fails at creation. */
    rtcosim_estimator_spec spec;
    assert_int_equal(rtcosim_estimator_spec_parse("map:/nonexistent/map.csv", &spec, NULL),
                     RTCOSIM_OK);
    rtcosim_estimator *e = NULL;
    assert_int_equal(rtcosim_estimator_create("sig", &spec, 4, &e, &err), RTCOSIM_ENOTFOUND);
    assert_non_null(strstr(err.message, "sig: /nonexistent/map.csv: cannot open map"));
    assert_null(e);
}

static void rate_limit_and_bounds_shape_the_estimate(void **state)
{
    (void)state;
    rtcosim_estimator_spec spec;
    assert_int_equal(rtcosim_estimator_spec_parse("foh,rate=5000,max=18", &spec, NULL),
                     RTCOSIM_OK);
    rtcosim_estimator *e = NULL;
    assert_int_equal(rtcosim_estimator_create("sig", &spec, 4, &e, NULL), RTCOSIM_OK);
    rtcosim_estimator_observe(e, MS(0), 0);
    rtcosim_estimator_observe(e, MS(1), 10);
    double v;
    /* FOH says 20 at 2 ms; the rate allows 10 + 5000/s * 1 ms = 15. */
    assert_int_equal(rtcosim_estimator_estimate(e, MS(2), MS(1), MS(1), NULL, &v, NULL),
                     RTCOSIM_OK);
    assert_true(fabs(v - 15) < 1e-12);
    /* FOH says 30 at 3 ms; the rate allows 15 + 5 = 20, max caps at 18. */
    assert_int_equal(rtcosim_estimator_estimate(e, MS(3), MS(1), MS(1), NULL, &v, NULL),
                     RTCOSIM_OK);
    assert_true(v == 18);
    assert_int_equal(rtcosim_estimator_pending(e), 2);
    rtcosim_estimate_record r;
    assert_true(rtcosim_estimator_resolve(e, MS(2), 20, &r));
    assert_true(r.estimate == 15 && r.error == 5 && r.te == MS(2) && r.lag == MS(1));
    /* Data for 3 ms never comes; data for 4 ms abandons it. */
    assert_false(rtcosim_estimator_resolve(e, MS(4), 40, &r));
    assert_int_equal(rtcosim_estimator_pending(e), 0);
    rtcosim_estimator_stats st;
    rtcosim_estimator_get_stats(e, &st);
    assert_int_equal(st.resolved, 1);
    assert_int_equal(st.abandoned, 1);
    rtcosim_estimator_free(e);
}

static void correction_spreads_held_errors_over_the_next_hold(void **state)
{
    (void)state;
    rtcosim_estimator_spec spec;
    rtcosim_estimator_spec_init(&spec);
    spec.correction = true;
    rtcosim_estimator *e = NULL;
    assert_int_equal(rtcosim_estimator_create("sig", &spec, 4, &e, NULL), RTCOSIM_OK);
    rtcosim_estimator_observe(e, MS(0), 1);
    double v;
    rtcosim_estimator_estimate(e, MS(2), 0, MS(2), NULL, &v, NULL); /* held 2 ms */
    rtcosim_estimator_estimate(e, MS(4), 0, MS(1), NULL, &v, NULL); /* held 1 ms */
    assert_true(v == 1);
    rtcosim_estimator_resolve(e, MS(2), 4, NULL); /* error 3 over 2 ms */
    rtcosim_estimator_resolve(e, MS(4), 0, NULL); /* error -1 over 1 ms */
    /* (3 * 2 - 1 * 1) ms spread over 0.5 ms: 10. */
    assert_true(fabs(rtcosim_estimator_take_correction(e, MS(0.5)) - 10) < 1e-12);
    assert_true(rtcosim_estimator_take_correction(e, MS(0.5)) == 0);
    rtcosim_estimator_free(e);
}

static void pending_ring_abandons_the_oldest_when_full(void **state)
{
    (void)state;
    rtcosim_estimator_spec spec;
    rtcosim_estimator_spec_init(&spec);
    rtcosim_estimator *e = NULL;
    assert_int_equal(rtcosim_estimator_create("sig", &spec, 2, &e, NULL), RTCOSIM_OK);
    rtcosim_estimator_observe(e, 0, 1);
    double v;
    for (int i = 1; i <= 3; i++)
        rtcosim_estimator_estimate(e, MS(i), 0, MS(1), NULL, &v, NULL);
    assert_int_equal(rtcosim_estimator_pending(e), 2);
    rtcosim_estimate_record r;
    assert_true(rtcosim_estimator_abandon_oldest(e, &r));
    assert_int_equal(r.te, MS(2));
    assert_true(isnan(r.late_value) && isnan(r.error));
    rtcosim_estimator_stats st;
    rtcosim_estimator_get_stats(e, &st);
    assert_int_equal(st.abandoned, 2);
    rtcosim_estimator_free(e);
    rtcosim_error err;
    spec.adapt_weight = 0;
    assert_int_equal(rtcosim_estimator_create("sig", &spec, 2, &e, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "sig: adaptation weight 0 outside (0, 1]"));
}

static void horizon_holds_the_extrapolation_beyond_its_limit(void **state)
{
    (void)state;
    rtcosim_estimator_spec spec;
    assert_int_equal(rtcosim_estimator_spec_parse("foh,horizon=0.002", &spec, NULL), RTCOSIM_OK);
    assert_int_equal(spec.horizon, MS(2));
    rtcosim_estimator *e = NULL;
    assert_int_equal(rtcosim_estimator_create("sig", &spec, 8, &e, NULL), RTCOSIM_OK);
    rtcosim_estimator_observe(e, MS(0), 0);
    rtcosim_estimator_observe(e, MS(1), 1);
    double v;
    rtcosim_estimator_estimate(e, MS(2), 0, MS(1), NULL, &v, NULL);
    assert_true(fabs(v - 2) < 1e-12); /* within the horizon: slope 1 per ms */
    rtcosim_estimator_estimate(e, MS(10), 0, MS(1), NULL, &v, NULL);
    assert_true(fabs(v - 3) < 1e-12); /* held at newest (1 ms) + 2 ms */
    rtcosim_estimator_free(e);
}

static void jump_detection_drops_history_before_a_step(void **state)
{
    (void)state;
    rtcosim_estimator_spec spec;
    assert_int_equal(rtcosim_estimator_spec_parse("foh,jump=8", &spec, NULL), RTCOSIM_OK);
    rtcosim_estimator *with = NULL, *without = NULL;
    assert_int_equal(rtcosim_estimator_create("with", &spec, 8, &with, NULL), RTCOSIM_OK);
    spec.jump_factor = 0;
    assert_int_equal(rtcosim_estimator_create("without", &spec, 8, &without, NULL), RTCOSIM_OK);
    /* A ramp of slope 1 per ms with small alternating wiggles (+-0.01), then
     * a step of +100 at 12 ms. */
    for (int i = 0; i < 12; i++) {
        double v = i + (i % 2 ? 0.01 : -0.01);
        rtcosim_estimator_observe(with, MS(i), v);
        rtcosim_estimator_observe(without, MS(i), v);
    }
    rtcosim_estimator_observe(with, MS(12), 112);
    rtcosim_estimator_observe(without, MS(12), 112);
    double a, b;
    rtcosim_estimator_estimate(with, MS(13), 0, MS(1), NULL, &a, NULL);
    rtcosim_estimator_estimate(without, MS(13), 0, MS(1), NULL, &b, NULL);
    /* Without detection FOH carries the step's slope: 112 + (112 - 11.01). */
    assert_true(fabs(b - (112 + 112 - 11.01)) < 1e-9);
    /* With it, only the newest point remains: hold 112. */
    assert_true(a == 112);
    rtcosim_estimator_stats st;
    rtcosim_estimator_get_stats(with, &st);
    assert_int_equal(st.history_resets, 1);
    rtcosim_estimator_free(with);
    rtcosim_estimator_free(without);
    rtcosim_error err;
    assert_int_equal(rtcosim_estimator_spec_parse("foh,jump=1", &spec, &err), RTCOSIM_EINVAL);
    assert_int_equal(rtcosim_estimator_spec_parse("foh,horizon=-1", &spec, &err), RTCOSIM_EINVAL);
}

/* A ramp of 2 per ms estimated one step late by ZOH (raw error 2 each time),
 * then a step of +100: returns the bias learned. */
static double bias_after_step(const char *spec_text)
{
    rtcosim_estimator_spec spec;
    assert_int_equal(rtcosim_estimator_spec_parse(spec_text, &spec, NULL), RTCOSIM_OK);
    rtcosim_estimator *e = NULL;
    assert_int_equal(rtcosim_estimator_create("sig", &spec, 8, &e, NULL), RTCOSIM_OK);
    rtcosim_estimator_observe(e, 0, 0);
    double v;
    for (int i = 1; i <= 11; i++) {
        rtcosim_estimator_estimate(e, MS(i), 0, MS(1), NULL, &v, NULL);
        rtcosim_estimator_resolve(e, MS(i), 2.0 * i + (i == 11 ? 100 : 0), NULL);
    }
    rtcosim_estimator_stats st;
    rtcosim_estimator_get_stats(e, &st);
    rtcosim_estimator_free(e);
    return st.bias;
}

static void bias_ignores_step_errors_when_jump_detection_is_on(void **state)
{
    (void)state;
    /* Without detection the step error 102 pulls the bias: 2 + 0.1 * 100. */
    assert_true(fabs(bias_after_step("zoh,adapt=bias") - 12) < 1e-9);
    /* With it the step is not learned as bias. */
    assert_true(fabs(bias_after_step("zoh,adapt=bias,jump=4") - 2) < 1e-9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(extrapolation_of_each_order_matches_hand_values),
        cmocka_unit_test(estimator_spec_parses_kinds_and_modifiers),
        cmocka_unit_test(one_and_two_dimensional_maps_interpolate_linearly),
        cmocka_unit_test(malformed_maps_fail_with_file_line_and_problem),
        cmocka_unit_test(rate_limit_and_bounds_shape_the_estimate),
        cmocka_unit_test(correction_spreads_held_errors_over_the_next_hold),
        cmocka_unit_test(pending_ring_abandons_the_oldest_when_full),
        cmocka_unit_test(horizon_holds_the_extrapolation_beyond_its_limit),
        cmocka_unit_test(jump_detection_drops_history_before_a_step),
        cmocka_unit_test(bias_ignores_step_errors_when_jump_detection_is_on),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
