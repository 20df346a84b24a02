/* Linear prediction against hand-computed least squares: a 2x2 normal-equation
 * case solved by hand, a third-order recurrence reproduced, order reduction on
 * a sine (exact second-order recurrence), the ZOH/FOH fallbacks while the
 * history is short, and exact times for a periodic stream. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/speculate.h"

static rtcosim_predictor *make(size_t width, size_t order, size_t window, size_t horizon)
{
    rtcosim_predictor_config c = {.width = width, .order = order, .window = window, .horizon = horizon};
    rtcosim_predictor *p = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_predictor_create(&c, &p, &err), RTCOSIM_OK);
    return p;
}

static void observe(rtcosim_predictor *p, rtcosim_time_ns t, double v)
{
    rtcosim_error err;
    assert_int_equal(rtcosim_predictor_observe(p, t, &v, &err), RTCOSIM_OK);
}

static double at(const rtcosim_predictor *p, uint64_t index)
{
    const double *v = rtcosim_predictor_values_at(p, index);
    assert_non_null(v);
    return v[0];
}

static void two_by_two_normal_equations_solved_by_hand(void **state)
{
    (void)state;
    /* x = 1, 3, 2, 5, 4; order 2, window 3. Equations (target | row):
     * 4 | 5 2;  5 | 2 3;  2 | 3 1.  HᵀH = [38 19; 19 14], Hᵀx = [36; 25],
     * det 171: w0 = (14*36 - 19*25)/171 = 29/171, w1 = (38*25 - 19*36)/171 = 266/171. */
    rtcosim_predictor *p = make(1, 2, 3, 4);
    const double x[] = {1, 3, 2, 5, 4};
    for (int k = 0; k < 5; k++)
        observe(p, k * 10, x[k]);
    size_t order;
    assert_int_equal(rtcosim_predictor_method(p, 0, &order), RTCOSIM_PREDICT_LS);
    assert_int_equal(order, 2);
    const double w0 = 29.0 / 171, w1 = 266.0 / 171;
    const double p5 = w0 * 4 + w1 * 5, p6 = w0 * p5 + w1 * 4, p7 = w0 * p6 + w1 * p5;
    assert_true(fabs(at(p, 5) - p5) < 1e-12);
    assert_true(fabs(at(p, 6) - p6) < 1e-12);
    assert_true(fabs(at(p, 7) - p7) < 1e-12);
    assert_null(rtcosim_predictor_values_at(p, 4)); /* observed, not predicted */
    assert_null(rtcosim_predictor_values_at(p, 9)); /* beyond the horizon of 4 */
    rtcosim_predictor_free(p);
}

static void third_order_recurrence_is_reproduced(void **state)
{
    (void)state;
    /* x[k] = 1.2 x[k-1] - 0.5 x[k-2] + 0.1 x[k-3]: order 3 least squares on
     * its samples returns these coefficients, so the prediction continues it. */
    double x[40] = {1, -2, 0.5};
    for (int k = 3; k < 40; k++)
        x[k] = 1.2 * x[k - 1] - 0.5 * x[k - 2] + 0.1 * x[k - 3];
    rtcosim_predictor *p = make(1, 3, 8, 10);
    for (int k = 0; k < 20; k++)
        observe(p, k, x[k]);
    size_t order;
    assert_int_equal(rtcosim_predictor_method(p, 0, &order), RTCOSIM_PREDICT_LS);
    assert_int_equal(order, 3);
    for (int k = 20; k < 30; k++)
        assert_true(fabs(at(p, (uint64_t)k) - x[k]) <= 1e-9 * fabs(x[k]) + 1e-15);
    rtcosim_predictor_free(p);
}

static void sine_falls_back_to_its_exact_second_order(void **state)
{
    (void)state;
    /* sin(w k) = 2 cos(w) x[k-1] - x[k-2]: with order 3 HᵀH is singular, the
     * predictor reduces to order 2, which continues the sine. */
    rtcosim_predictor *p = make(1, 3, 12, 20);
    const double w = 0.3;
    for (int k = 0; k < 30; k++)
        observe(p, k, sin(w * k));
    size_t order;
    assert_int_equal(rtcosim_predictor_method(p, 0, &order), RTCOSIM_PREDICT_LS);
    assert_int_equal(order, 2);
    for (int k = 30; k < 50; k++)
        assert_true(fabs(at(p, (uint64_t)k) - sin(w * k)) < 1e-9);
    rtcosim_predictor_free(p);
}

static void short_history_uses_zoh_then_foh(void **state)
{
    (void)state;
    rtcosim_predictor *p = make(1, 3, 16, 3);
    assert_int_equal(rtcosim_predictor_method(p, 0, NULL), RTCOSIM_PREDICT_NONE);
    assert_null(rtcosim_predictor_values_at(p, 0));
    observe(p, 0, 7);
    assert_int_equal(rtcosim_predictor_method(p, 0, NULL), RTCOSIM_PREDICT_ZOH);
    assert_true(at(p, 1) == 7 && at(p, 3) == 7);
    observe(p, 10, 4);
    assert_int_equal(rtcosim_predictor_method(p, 0, NULL), RTCOSIM_PREDICT_FOH);
    assert_true(at(p, 2) == 1 && at(p, 3) == -2 && at(p, 4) == -5);
    /* Time: one interval of 10 known, held. */
    rtcosim_time_ns t;
    assert_true(rtcosim_predictor_time_at(p, 4, &t));
    assert_true(t == 40);
    rtcosim_predictor_free(p);
}

static void periodic_times_and_vectors_predicted_exactly(void **state)
{
    (void)state;
    /* Two components: a constant (order 1 exact) and a ramp (order 2 exact),
     * at a period of 250 µs from an odd start: times continue exactly. */
    rtcosim_predictor_config c = {.width = 2, .order = 3, .window = 6, .horizon = 5};
    rtcosim_predictor *p = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_predictor_create(&c, &p, &err), RTCOSIM_OK);
    const rtcosim_time_ns t0 = 1234567, period = 250000;
    for (int k = 0; k < 12; k++) {
        double v[2] = {-3.5, 2.0 + 0.25 * k};
        assert_int_equal(rtcosim_predictor_observe(p, t0 + k * period, v, &err), RTCOSIM_OK);
    }
    size_t order;
    assert_int_equal(rtcosim_predictor_method(p, 0, &order), RTCOSIM_PREDICT_LS);
    assert_int_equal(order, 1);
    assert_int_equal(rtcosim_predictor_method(p, 1, &order), RTCOSIM_PREDICT_LS);
    assert_int_equal(order, 2);
    for (int k = 12; k < 17; k++) {
        const double *v = rtcosim_predictor_values_at(p, (uint64_t)k);
        assert_non_null(v);
        assert_true(fabs(v[0] + 3.5) < 1e-12);
        assert_true(fabs(v[1] - (2.0 + 0.25 * k)) < 1e-12);
        rtcosim_time_ns t;
        assert_true(rtcosim_predictor_time_at(p, (uint64_t)k, &t));
        assert_true(t == t0 + k * period);
    }
    rtcosim_predictor_free(p);
}

static void refit_interval_reuses_weights_until_the_next_fit(void **state)
{
    (void)state;
    /* x[k] = 2^k for k <= 12, then halving: order 1 fits w = 2, then 0.5.
     * Window 4 -> 5 samples; with refit_interval 8 the fits happen at 5, 13,
     * 21 observations, so at 19 the weight of regime 2^k is still in use
     * (prediction 2 x[18]) while a predictor refitting every time has w = 0.5. */
    rtcosim_predictor_config c = {.width = 1, .order = 1, .window = 4, .horizon = 2};
    rtcosim_predictor *every = NULL, *lazy = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_predictor_create(&c, &every, &err), RTCOSIM_OK);
    c.refit_interval = 8;
    assert_int_equal(rtcosim_predictor_create(&c, &lazy, &err), RTCOSIM_OK);
    double x = 1;
    for (int k = 0; k < 21; k++) {
        if (k == 19) {
            const double *a = rtcosim_predictor_values_at(every, 19);
            const double *b = rtcosim_predictor_values_at(lazy, 19);
            assert_non_null(a);
            assert_non_null(b);
            assert_true(fabs(a[0] / x - 0.5) < 1e-12); /* x is x[18] here */
            assert_true(fabs(b[0] / x - 2.0) < 1e-12);
        }
        x = k == 0 ? 1.0 : k <= 12 ? 2 * x : 0.5 * x;
        observe(every, 1000 * k, x);
        observe(lazy, 1000 * k, x);
    }
    const double *b = rtcosim_predictor_values_at(lazy, 21); /* refitted at 21 */
    assert_non_null(b);
    assert_true(fabs(b[0] / x - 0.5) < 1e-12);
    rtcosim_predictor_free(every);
    rtcosim_predictor_free(lazy);
}

static void held_value_is_predicted_bit_exactly(void **state)
{
    (void)state;
    rtcosim_predictor_config c = {.width = 1, .order = 3, .window = 8, .horizon = 4};
    rtcosim_predictor *p = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_predictor_create(&c, &p, &err), RTCOSIM_OK);
    for (int k = 0; k < 20; k++)
        observe(p, 1000 * k, 0.1);
    size_t order;
    assert_int_equal(rtcosim_predictor_method(p, 0, &order), RTCOSIM_PREDICT_LS);
    for (uint64_t k = 20; k < 24; k++)
        assert_true(rtcosim_predictor_values_at(p, k)[0] == 0.1);
    rtcosim_predictor_free(p);
}

/* Replaying a history with record and one final observe gives the curve of
 * observing every sample (a sine: order 2 least squares, exact to rounding). */
static void record_then_observe_equals_observing_all(void **state)
{
    (void)state;
    rtcosim_predictor_config c = {.width = 1, .order = 2, .window = 8, .horizon = 4};
    rtcosim_predictor *all = NULL, *rec = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_predictor_create(&c, &all, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_predictor_create(&c, &rec, &err), RTCOSIM_OK);
    for (int k = 0; k < 16; k++) {
        double v = sin(0.3 * k);
        observe(all, 1000 * k, v);
        if (k < 15)
            assert_int_equal(rtcosim_predictor_record(rec, 1000 * k, &v, &err), RTCOSIM_OK);
        else
            observe(rec, 1000 * k, v);
        if (k < 15)
            assert_null(rtcosim_predictor_values_at(rec, (uint64_t)k + 1)); /* no curve yet */
    }
    for (uint64_t k = 16; k < 20; k++) {
        assert_true(at(all, k) == at(rec, k));
        assert_true(fabs(at(rec, k) - sin(0.3 * (double)k)) < 1e-9);
    }
    rtcosim_predictor_free(all);
    rtcosim_predictor_free(rec);
}

static void bad_config_and_time_are_refused(void **state)
{
    (void)state;
    rtcosim_predictor *p = NULL;
    rtcosim_error err;
    rtcosim_predictor_config c = {.width = 0};
    assert_int_equal(rtcosim_predictor_create(&c, &p, &err), RTCOSIM_EINVAL);
    c = (rtcosim_predictor_config){.width = 1, .order = 5, .window = 3};
    assert_int_equal(rtcosim_predictor_create(&c, &p, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "window"));
    p = make(1, 2, 4, 4);
    observe(p, 100, 1);
    double v = 2;
    assert_int_equal(rtcosim_predictor_observe(p, 99, &v, &err), RTCOSIM_EINVAL);
    rtcosim_speculation_result r;
    assert_int_equal(rtcosim_predictor_arrive(p, 200, &v, 0, -1, &r, &err), RTCOSIM_EINVAL);
    rtcosim_predictor_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_by_two_normal_equations_solved_by_hand),
        cmocka_unit_test(third_order_recurrence_is_reproduced),
        cmocka_unit_test(sine_falls_back_to_its_exact_second_order),
        cmocka_unit_test(short_history_uses_zoh_then_foh),
        cmocka_unit_test(periodic_times_and_vectors_predicted_exactly),
        cmocka_unit_test(refit_interval_reuses_weights_until_the_next_fit),
        cmocka_unit_test(held_value_is_predicted_bit_exactly),
        cmocka_unit_test(record_then_observe_equals_observing_all),
        cmocka_unit_test(bad_config_and_time_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
