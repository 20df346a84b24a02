/* The partial-rollback scheme against a hand-worked example: the rollback
 * point m, the distributed correction of the curve, and the degenerate
 * threshold Tc = 0 (roll back at the first difference in value or time).
 * The history is kept short so the predictor extrapolates by FOH, which makes
 * every prediction computable by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/speculate.h"

/* x[0] = 0 at t = 0, x[1] = 1 at t = 10: FOH curve x~[2..9] = 2..9 at 20..90;
 * capacity: the distributed correction's per-step capacity T (0: mirrored). */
static rtcosim_predictor *start_with(double capacity)
{
    rtcosim_predictor_config c = {.width = 1, .order = 3, .window = 16, .horizon = 8,
                                  .correction_capacity = capacity};
    rtcosim_predictor *p = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_predictor_create(&c, &p, &err), RTCOSIM_OK);
    double v = 0;
    assert_int_equal(rtcosim_predictor_observe(p, 0, &v, &err), RTCOSIM_OK);
    v = 1;
    assert_int_equal(rtcosim_predictor_observe(p, 10, &v, &err), RTCOSIM_OK);
    assert_true(rtcosim_predictor_values_at(p, 2)[0] == 2);
    assert_true(rtcosim_predictor_values_at(p, 7)[0] == 7);
    return p;
}

static rtcosim_predictor *start(void) { return start_with(0); }

static double at(const rtcosim_predictor *p, uint64_t index)
{
    const double *v = rtcosim_predictor_values_at(p, index);
    assert_non_null(v);
    return v[0];
}

static void rollback_point_and_distributed_correction_by_hand(void **state)
{
    (void)state;
    rtcosim_predictor *p = start();
    /* The LP ran steps 2..7 (s = 6) on 2, 3, 4, ...; x[2] = 2.5 arrives.
     * e[2] = 2 - 2.5 = -0.5. New FOH (slope 1.5): x~'[3..] = 4, 5.5, 7, 8.5, 10.
     * e~[3] = 3 - 4 = -1, e~[4] = 4 - 5.5 = -1.5. Cumulative: 0.5, 1.5, 3.0;
     * with Tc = 1.6, m = 2: keep steps 2, 3, roll back to step 4.
     * Correction: x~''[4] = 5.5 - e~[3] = 6.5, x~''[5] = 7 - e[2] = 7.5,
     * x~''[6] = x~'[6] = 8.5. Curve: 3 (kept, old), 6.5, 7.5, 8.5, 10. */
    rtcosim_speculation_result r;
    rtcosim_error err;
    double v = 2.5;
    assert_int_equal(rtcosim_predictor_arrive(p, 20, &v, 6, 1.6, &r, &err), RTCOSIM_OK);
    assert_int_equal(r.index, 2);
    assert_true(r.predicted);
    assert_int_equal(r.speculated, 6);
    assert_int_equal(r.keep, 2);
    assert_true(r.rollback);
    assert_false(r.arrival_exact);
    assert_true(r.arrival_error == 0.5);
    assert_true(r.value_error[0] == -0.5);
    assert_true(r.time_error_ns == 0);
    assert_true(r.cumulative_error == 1.5);
    assert_true(at(p, 3) == 3);
    assert_true(at(p, 4) == 6.5);
    assert_true(at(p, 5) == 7.5);
    assert_true(at(p, 6) == 8.5);
    assert_true(at(p, 7) == 10);
    /* The next arrival compares against the corrected curve: x[3] = 3 equals
     * the kept x~[3], so nothing is rolled back for it. */
    v = 3;
    assert_int_equal(rtcosim_predictor_arrive(p, 30, &v, 1, 0, &r, &err), RTCOSIM_OK);
    assert_true(r.arrival_exact);
    assert_int_equal(r.keep, 1);
    assert_false(r.rollback);
    rtcosim_predictor_free(p);
}

static void smaller_threshold_rolls_back_further(void **state)
{
    (void)state;
    rtcosim_predictor *p = start();
    rtcosim_speculation_result r;
    rtcosim_error err;
    double v = 2.5;
    /* Cumulative 0.5, 1.5: Tc = 1.2 keeps only step 2; then x~''[3] = 4 - e[2] = 4.5. */
    assert_int_equal(rtcosim_predictor_arrive(p, 20, &v, 6, 1.2, &r, &err), RTCOSIM_OK);
    assert_int_equal(r.keep, 1);
    assert_true(at(p, 3) == 4.5);
    assert_true(at(p, 4) == 5.5);
    rtcosim_predictor_free(p);
}

static void zero_threshold_rolls_back_at_the_first_difference(void **state)
{
    (void)state;
    rtcosim_predictor *p = start();
    rtcosim_speculation_result r;
    rtcosim_error err;
    double v = 2.5;
    assert_int_equal(rtcosim_predictor_arrive(p, 20, &v, 6, 0, &r, &err), RTCOSIM_OK);
    assert_int_equal(r.keep, 0);
    assert_true(r.rollback);
    assert_true(at(p, 3) == 4 && at(p, 4) == 5.5); /* plain new prediction */
    rtcosim_predictor_free(p);

    /* Exact value and time: the new prediction equals the old, all kept. */
    p = start();
    v = 2;
    assert_int_equal(rtcosim_predictor_arrive(p, 20, &v, 6, 0, &r, &err), RTCOSIM_OK);
    assert_true(r.arrival_exact);
    assert_int_equal(r.keep, 6);
    assert_false(r.rollback);
    assert_true(r.cumulative_error == 0);
    rtcosim_predictor_free(p);

    /* Exact value, late by 5 ns: a time difference counts too. */
    p = start();
    assert_int_equal(rtcosim_predictor_arrive(p, 25, &v, 6, 0, &r, &err), RTCOSIM_OK);
    assert_int_equal(r.time_error_ns, -5);
    assert_true(r.arrival_error == 5e-9);
    assert_int_equal(r.keep, 0);
    rtcosim_predictor_free(p);
}

static void speculation_is_capped_by_the_curve(void **state)
{
    (void)state;
    rtcosim_predictor *p = start();
    rtcosim_speculation_result r;
    rtcosim_error err;
    double v = 2;
    assert_int_equal(rtcosim_predictor_arrive(p, 20, &v, 100, 0, &r, &err), RTCOSIM_OK);
    assert_int_equal(r.speculated, 8);
    assert_int_equal(r.keep, 8);
    rtcosim_predictor_free(p);

    /* Nothing predicted yet: m = 0, error unknown. */
    rtcosim_predictor_config c = {.width = 1};
    assert_int_equal(rtcosim_predictor_create(&c, &p, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_predictor_arrive(p, 0, &v, 3, 1.0, &r, &err), RTCOSIM_OK);
    assert_false(r.predicted);
    assert_int_equal(r.keep, 0);
    assert_true(isnan(r.arrival_error));
    rtcosim_predictor_free(p);
}

static void vector_components_and_time_combine_by_their_scales(void **state)
{
    (void)state;
    /* Width 2, value_scale (1, 0.5). x[0] = (0, 0) at 0, x[1] = (1, 2) at 10:
     * FOH x~[2] = (2, 4), x~[3] = (3, 6). x[2] = (2.5, 3.75) at 20:
     * e[2] = (-0.5, 0.25), |e[2]| = 0.5 / 1 + 0.25 / 0.5 = 1.
     * New FOH (slopes 1.5, 1.75): x~'[3] = (4, 5.5), x~'[4] = (5.5, 7.25);
     * e~[3] = (-1, 0.5), |e~[3]| = 2. Tc = 1: m = 1 (1 <= 1, 3 > 1).
     * x~''[3] = x~'[3] - e[2] = (4.5, 5.25), x~''[4] = x~'[4]. */
    const double scale[2] = {1, 0.5};
    rtcosim_predictor_config c = {.width = 2, .horizon = 6, .value_scale = scale};
    rtcosim_error err;
    for (int late = 0; late < 2; late++) {
        rtcosim_predictor *p = NULL;
        assert_int_equal(rtcosim_predictor_create(&c, &p, &err), RTCOSIM_OK);
        const double x0[2] = {0, 0}, x1[2] = {1, 2}, x2[2] = {2.5, 3.75};
        assert_int_equal(rtcosim_predictor_observe(p, 0, x0, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_predictor_observe(p, 10, x1, &err), RTCOSIM_OK);
        rtcosim_speculation_result r;
        assert_int_equal(rtcosim_predictor_arrive(p, 20 + late, x2, 4, 1.0, &r, &err), RTCOSIM_OK);
        if (late) {
            /* One ns late adds 1e-9 (time in seconds): the budget is exceeded
             * at once. */
            assert_true(r.arrival_error == 1.0 + 1e-9);
            assert_int_equal(r.keep, 0);
        } else {
            assert_true(r.arrival_error == 1.0);
            assert_true(r.value_error[0] == -0.5 && r.value_error[1] == 0.25);
            assert_int_equal(r.keep, 1);
            assert_true(r.cumulative_error == 1.0);
            const double *v3 = rtcosim_predictor_values_at(p, 3), *v4 = rtcosim_predictor_values_at(p, 4);
            assert_true(v3[0] == 4.5 && v3[1] == 5.25);
            assert_true(v4[0] == 5.5 && v4[1] == 7.25);
        }
        rtcosim_predictor_free(p);
    }
}

/* The example of rollback_point_and_distributed_correction_by_hand with the
 * capacity spread: Tc = 1.6 keeps steps 2, 3 (m = 2), the accepted error is
 * E = e[2] + e~[3] = -0.5 - 1 = -1.5, |E| = 1.5, and the new FOH curve is
 * x~'[k] = 2.5 + 1.5 (k - 2): 4, 5.5, 7, 8.5, 10, 11.5, 13, 14.5 for k = 3..10.
 * The correction subtracts E in steps of at most T from step n + m = 4 on. */
static void capacity_spreads_the_accepted_error_by_at_most_t_per_step(void **state)
{
    (void)state;
    rtcosim_speculation_result r;
    rtcosim_error err;
    double v = 2.5;
    /* T = 0.5: |E| / T = 3 full steps of +0.5 (on 4, 5, 6), no rest. */
    rtcosim_predictor *p = start_with(0.5);
    assert_int_equal(rtcosim_predictor_arrive(p, 20, &v, 6, 1.6, &r, &err), RTCOSIM_OK);
    assert_int_equal(r.keep, 2);
    assert_true(at(p, 3) == 3); /* kept step: the old curve */
    assert_true(at(p, 4) == 6);
    assert_true(at(p, 5) == 7.5);
    assert_true(at(p, 6) == 9);
    assert_true(at(p, 7) == 10);
    assert_true(at(p, 8) == 11.5);
    rtcosim_predictor_free(p);

    /* T = 0.4: floor(1.5 / 0.4) = 3 steps of +0.4, then the rest +0.3. */
    p = start_with(0.4);
    assert_int_equal(rtcosim_predictor_arrive(p, 20, &v, 6, 1.6, &r, &err), RTCOSIM_OK);
    const double expected[] = {3, 5.9, 7.4, 8.9, 10.3, 11.5, 13, 14.5};
    for (uint64_t k = 3; k <= 10; k++)
        assert_true(fabs(at(p, k) - expected[k - 3]) < 1e-12);
    rtcosim_predictor_free(p);

    /* T = 4 > |E|: the whole E on step 4 at once (mirrored: 6.5 then 7.5). */
    p = start_with(4);
    assert_int_equal(rtcosim_predictor_arrive(p, 20, &v, 6, 1.6, &r, &err), RTCOSIM_OK);
    assert_true(at(p, 4) == 7);
    assert_true(at(p, 5) == 7);
    rtcosim_predictor_free(p);

    /* T = 0.25 needs 6 steps (4 .. 9); the curve holds 3 .. 10 and the
     * corrections end where the error is taken back: 10 keeps x~'. */
    p = start_with(0.25);
    assert_int_equal(rtcosim_predictor_arrive(p, 20, &v, 6, 1.6, &r, &err), RTCOSIM_OK);
    for (uint64_t k = 4; k <= 9; k++)
        assert_true(at(p, k) == 2.5 + 1.5 * (double)(k - 2) + 0.25);
    assert_true(at(p, 10) == 14.5);
    rtcosim_predictor_free(p);

    /* T = 0.125 needs 12 steps: those past the horizon (11 .. 15) are dropped. */
    p = start_with(0.125);
    assert_int_equal(rtcosim_predictor_arrive(p, 20, &v, 6, 1.6, &r, &err), RTCOSIM_OK);
    for (uint64_t k = 4; k <= 10; k++)
        assert_true(at(p, k) == 2.5 + 1.5 * (double)(k - 2) + 0.125);
    rtcosim_predictor_free(p);

    /* Nothing accepted (Tc = 0, m = 0): no correction with any capacity. */
    p = start_with(0.5);
    assert_int_equal(rtcosim_predictor_arrive(p, 20, &v, 6, 0, &r, &err), RTCOSIM_OK);
    assert_int_equal(r.keep, 0);
    assert_true(at(p, 3) == 4 && at(p, 4) == 5.5);
    rtcosim_predictor_free(p);
}

static void capacity_scales_a_vector_error_as_a_whole(void **state)
{
    (void)state;
    /* The vector example below with T = 0.25: m = 1, E = e[2] = (-0.5, 0.25),
     * |E| = 0.5 / 1 + 0.25 / 0.5 = 1; 4 full steps of E / 4 = (-0.125, 0.0625),
     * each of magnitude 0.25, on 3 .. 6, rest 0. New FOH (slopes 1.5, 1.75):
     * x~'[3..7] = (4, 5.5), (5.5, 7.25), (7, 9), (8.5, 10.75), (10, 12.5). */
    const double scale[2] = {1, 0.5};
    rtcosim_predictor_config c = {.width = 2, .horizon = 6, .value_scale = scale,
                                  .correction_capacity = 0.25};
    rtcosim_error err;
    rtcosim_predictor *p = NULL;
    assert_int_equal(rtcosim_predictor_create(&c, &p, &err), RTCOSIM_OK);
    const double x0[2] = {0, 0}, x1[2] = {1, 2}, x2[2] = {2.5, 3.75};
    assert_int_equal(rtcosim_predictor_observe(p, 0, x0, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_predictor_observe(p, 10, x1, &err), RTCOSIM_OK);
    rtcosim_speculation_result r;
    assert_int_equal(rtcosim_predictor_arrive(p, 20, x2, 4, 1.0, &r, &err), RTCOSIM_OK);
    assert_int_equal(r.keep, 1);
    const double expected[5][2] = {{4.125, 5.4375}, {5.625, 7.1875}, {7.125, 8.9375},
                                   {8.625, 10.6875}, {10, 12.5}};
    for (uint64_t k = 3; k <= 7; k++) {
        const double *v = rtcosim_predictor_values_at(p, k);
        assert_true(v[0] == expected[k - 3][0] && v[1] == expected[k - 3][1]);
    }
    rtcosim_predictor_free(p);
}

static void capacity_must_be_finite_and_not_negative(void **state)
{
    (void)state;
    const double bad[] = {-1, NAN, INFINITY};
    for (size_t i = 0; i < 3; i++) {
        rtcosim_predictor_config c = {.width = 1, .correction_capacity = bad[i]};
        rtcosim_predictor *p = NULL;
        rtcosim_error err = {0};
        assert_int_equal(rtcosim_predictor_create(&c, &p, &err), RTCOSIM_EINVAL);
        assert_null(p);
        assert_non_null(strstr(err.message, "correction_capacity"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rollback_point_and_distributed_correction_by_hand),
        cmocka_unit_test(smaller_threshold_rolls_back_further),
        cmocka_unit_test(zero_threshold_rolls_back_at_the_first_difference),
        cmocka_unit_test(speculation_is_capped_by_the_curve),
        cmocka_unit_test(vector_components_and_time_combine_by_their_scales),
        cmocka_unit_test(capacity_spreads_the_accepted_error_by_at_most_t_per_step),
        cmocka_unit_test(capacity_scales_a_vector_error_as_a_whole),
        cmocka_unit_test(capacity_must_be_finite_and_not_negative),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
