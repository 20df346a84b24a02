/* The cross-variable (LINEAR) estimator and per-signal estimator specs on
 * their own: recursive least squares on signals that are exact linear
 * functions of their inputs must recover the known coefficients, predict the
 * late value, and be graded like every other kind. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/estimate.h"
#include "rtcosim/realtime.h"

#define MS(x) ((rtcosim_time_ns)((x) * 1e6 + 0.5))

static rtcosim_estimator *make(const char *text)
{
    rtcosim_estimator_spec spec;
    rtcosim_error err;
    assert_int_equal(rtcosim_estimator_spec_parse(text, &spec, &err), RTCOSIM_OK);
    rtcosim_estimator *e = NULL;
    assert_int_equal(rtcosim_estimator_create("y", &spec, 8, &e, &err), RTCOSIM_OK);
    return e;
}

static void linear_spec_parses_inputs_and_refuses_bad_lists(void **state)
{
    (void)state;
    rtcosim_estimator_spec s;
    rtcosim_error err;
    assert_int_equal(rtcosim_estimator_spec_parse("linear:plant.speed+ecu.torque,max=5,forget=0.98",
                                                  &s, &err),
                     RTCOSIM_OK);
    assert_int_equal(s.kind, RTCOSIM_ESTIMATOR_LINEAR);
    assert_string_equal(s.linear_inputs, "plant.speed+ecu.torque");
    assert_int_equal(s.linear_count, 2);
    assert_true(s.forget == 0.98 && s.has_max && s.max == 5);
    assert_int_equal(rtcosim_estimator_spec_parse("linear:", &s, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "linear needs its input signals"));
    assert_int_equal(rtcosim_estimator_spec_parse("linear:a++b", &s, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "empty input name"));
    assert_int_equal(rtcosim_estimator_spec_parse("linear:a+b+a", &s, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "input 'a' given twice"));
    assert_int_equal(rtcosim_estimator_spec_parse("linear:a+b+c+d+e+f+g+h+i", &s, &err),
                     RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "more than 8 linear inputs"));
    assert_int_equal(rtcosim_estimator_spec_parse("linear:a,forget=1.5", &s, &err),
                     RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "invalid value '1.5' for forget"));
}

static void signal_estimator_text_splits_signal_from_spec(void **state)
{
    (void)state;
    rtcosim_rt_signal_estimator se;
    bool per_signal;
    rtcosim_error err;
    assert_int_equal(rtcosim_rt_signal_estimator_parse("gearbox.torque=foh,rate=50", &se,
                                                       &per_signal, &err),
                     RTCOSIM_OK);
    assert_true(per_signal);
    assert_string_equal(se.signal, "gearbox.torque");
    assert_int_equal(se.spec.kind, RTCOSIM_ESTIMATOR_FOH);
    assert_true(se.spec.rate_limit == 50);
    /* Modifiers and map paths hold '=' too: those are default specs. */
    assert_int_equal(rtcosim_rt_signal_estimator_parse("foh,max=3", &se, &per_signal, &err),
                     RTCOSIM_OK);
    assert_false(per_signal);
    assert_true(se.spec.has_max && se.spec.max == 3);
    assert_int_equal(rtcosim_rt_signal_estimator_parse("map:a=b.csv", &se, &per_signal, &err),
                     RTCOSIM_OK);
    assert_false(per_signal);
    assert_string_equal(se.spec.map_path, "a=b.csv");
    assert_int_equal(rtcosim_rt_signal_estimator_parse("=foh", &se, &per_signal, &err),
                     RTCOSIM_EINVAL);
    assert_int_equal(rtcosim_rt_signal_estimator_parse("x.y=cubic", &se, &per_signal, &err),
                     RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "unknown kind 'cubic'"));
}

/* y = 2x + 3 observed on time at x = 1..5: the fit is that line. RLS starts
 * from P = 1e6 I, so after n samples theta is the least squares solution up
 * to a regularisation of order 1e-6 relative. */
static void rls_recovers_the_coefficients_of_an_exact_line(void **state)
{
    (void)state;
    rtcosim_estimator *e = make("linear:x");
    assert_int_equal(rtcosim_estimator_input_count(e), 1);
    double c[4];
    assert_int_equal(rtcosim_estimator_linear_coefficients(e, c, 4), 2);
    assert_true(c[0] == 0 && c[1] == 0);
    for (int i = 1; i <= 5; i++) {
        double x = i;
        rtcosim_estimator_fit(e, &x, 2 * x + 3);
    }
    rtcosim_estimator_linear_coefficients(e, c, 4);
    assert_true(fabs(c[0] - 2) < 1e-5);
    assert_true(fabs(c[1] - 3) < 1e-5);
    /* y(5 ms) = 13 received; a late value at x = 10: the estimate is 23,
     * graded against 23. */
    rtcosim_estimator_observe(e, MS(5), 13);
    double x = 10, v = 0;
    assert_int_equal(rtcosim_estimator_estimate(e, MS(6), MS(5), MS(1), &x, &v, NULL),
                     RTCOSIM_OK);
    assert_true(fabs(v - 23) < 1e-4);
    rtcosim_estimate_record r;
    assert_true(rtcosim_estimator_resolve(e, MS(6), 23, &r));
    assert_int_equal(r.kind, RTCOSIM_ESTIMATOR_LINEAR);
    assert_true(fabs(r.error) < 1e-4);
    rtcosim_estimator_stats st;
    rtcosim_estimator_get_stats(e, &st);
    assert_int_equal(st.kind_count[RTCOSIM_ESTIMATOR_LINEAR], 1);
    assert_int_equal(st.used[RTCOSIM_ESTIMATOR_LINEAR], 1);
    /* ZOH graded alongside: it held 13, error 10. */
    assert_true(fabs(st.kind_rms_error[RTCOSIM_ESTIMATOR_ZOH] - 10) < 1e-12);
    rtcosim_estimator_free(e);
}

/* Two inputs, y = 2a - b + 0.5, fitted only from late values: each estimate
 * stores its inputs, and the value that arrives later fits them. The first
 * estimate has no fit yet and falls back to ZOH. */
static void rls_fits_from_late_values_with_the_inputs_of_their_estimates(void **state)
{
    (void)state;
    rtcosim_estimator *e = make("linear:a+b");
    const double in[][2] = {{1, 0}, {0, 1}, {2, 3}, {-1, 4}, {3, -2}, {5, 5}};
    for (size_t i = 0; i < 6; i++) {
        double v;
        double y = 2 * in[i][0] - in[i][1] + 0.5;
        rtcosim_estimator_estimate(e, MS(i + 1), 0, MS(1), in[i], &v, NULL);
        rtcosim_estimate_record r;
        assert_true(rtcosim_estimator_resolve(e, MS(i + 1), y, &r));
        assert_int_equal(r.kind, i == 0 ? RTCOSIM_ESTIMATOR_ZOH : RTCOSIM_ESTIMATOR_LINEAR);
        if (i >= 3) /* three samples determine three coefficients */
            assert_true(fabs(r.estimate - y) < 1e-4);
    }
    double c[3];
    assert_int_equal(rtcosim_estimator_linear_coefficients(e, c, 3), 3);
    assert_true(fabs(c[0] - 2) < 1e-5 && fabs(c[1] + 1) < 1e-5 && fabs(c[2] - 0.5) < 1e-5);
    rtcosim_estimator_free(e);
}

/* The bounds of the spec apply to the linear estimate like to any other. */
static void linear_estimate_is_bounded_by_its_spec(void **state)
{
    (void)state;
    rtcosim_estimator *e = make("linear:x,max=10");
    for (int i = 0; i < 4; i++) {
        double x = i;
        rtcosim_estimator_fit(e, &x, 4 * x);
    }
    double x = 5, v;
    rtcosim_estimator_estimate(e, MS(1), 0, MS(1), &x, &v, NULL);
    assert_true(v == 10); /* 20 predicted, clamped */
    rtcosim_estimator_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(linear_spec_parses_inputs_and_refuses_bad_lists),
        cmocka_unit_test(signal_estimator_text_splits_signal_from_spec),
        cmocka_unit_test(rls_recovers_the_coefficients_of_an_exact_line),
        cmocka_unit_test(rls_fits_from_late_values_with_the_inputs_of_their_estimates),
        cmocka_unit_test(linear_estimate_is_bounded_by_its_spec),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
