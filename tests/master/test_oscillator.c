/* The two-mass oscillator (B2) against independent truth: the matrix
 * exponential against a fine RK4 integration of the monolithic system, and
 * the coupled co-simulation with a small macro step against exp(A t) z0. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../examples/oscillator/oscillator.h"

static void rk4_monolithic(const rtcosim_oscillator_params *p, double t_end, int steps, double z[4])
{
    double a[4][4];
    rtcosim_oscillator_matrix(p, a);
    double h = t_end / steps;
    z[0] = p->x1_0, z[1] = p->v1_0, z[2] = p->x2_0, z[3] = p->v2_0;
    for (int n = 0; n < steps; n++) {
        double k[4][4], tmp[4];
        const double coef[4] = {0, 0.5, 0.5, 1};
        for (int s = 0; s < 4; s++) {
            for (int i = 0; i < 4; i++)
                tmp[i] = z[i] + (s ? coef[s] * h * k[s - 1][i] : 0);
            for (int i = 0; i < 4; i++)
                k[s][i] = a[i][0] * tmp[0] + a[i][1] * tmp[1] + a[i][2] * tmp[2] + a[i][3] * tmp[3];
        }
        for (int i = 0; i < 4; i++)
            z[i] += h / 6 * (k[0][i] + 2 * k[1][i] + 2 * k[2][i] + k[3][i]);
    }
}

static void matrix_exponential_matches_fine_rk4(void **state)
{
    (void)state;
    for (int cs = 1; cs <= 2; cs++) {
        rtcosim_oscillator_params p;
        rtcosim_oscillator_case(cs, &p);
        double exact[4], ref[4];
        rtcosim_oscillator_exact(&p, 1.0, exact);
        /* RK4 with 1e-5 s: global error ~ (w h)^4 w T ~ 1e-14 relative. */
        rk4_monolithic(&p, 1.0, 100000, ref);
        for (int i = 0; i < 4; i++)
            if (fabs(exact[i] - ref[i]) > 1e-9 * (1 + fabs(ref[i])))
                fail_msg("case %d z[%d]: expm %.17g, rk4 %.17g", cs, i, exact[i], ref[i]);
    }
}

static void exponential_of_a_diagonal_matrix_is_elementwise(void **state)
{
    (void)state;
    double m[4][4] = {{1, 0, 0, 0}, {0, -2, 0, 0}, {0, 0, 30, 0}, {0, 0, 0, 0}}, e[4][4];
    rtcosim_expm4(m, e);
    /* Scaling by 2^-6 and squaring six times costs a few ulps. */
    assert_true(fabs(e[0][0] / exp(1.0) - 1) < 1e-13);
    assert_true(fabs(e[1][1] / exp(-2.0) - 1) < 1e-13);
    assert_true(fabs(e[2][2] / exp(30.0) - 1) < 1e-13);
    assert_true(e[3][3] == 1 && e[0][1] == 0);
}

static void undamped_energy_is_conserved_by_the_exact_solution(void **state)
{
    (void)state;
    rtcosim_oscillator_params p;
    rtcosim_oscillator_case(1, &p);
    double z0[4] = {0, 100, 0, -100}, z[4];
    rtcosim_oscillator_exact(&p, 10.0, z);
    double e0 = rtcosim_oscillator_energy(&p, z0);
    assert_true(e0 == 10000.0);
    assert_true(fabs(rtcosim_oscillator_energy(&p, z) - e0) < 1e-8 * e0);
}

static void small_macro_step_converges_to_the_exact_solution(void **state)
{
    (void)state;
    rtcosim_oscillator_params p;
    rtcosim_oscillator_case(2, &p);
    rtcosim_oscillator_setup s;
    rtcosim_oscillator_setup_init(&s);
    s.stop = 500 * RTCOSIM_NS_PER_MS;
    s.macro_step = 10 * RTCOSIM_NS_PER_US;
    rtcosim_oscillator_result r;
    rtcosim_error err = {0};
    /* Plain ZOH is first order: about 0.05 m per ms of H over 1 s (B2), so
     * H = 10 us must stay within 1 mm of exp(A t) z0 (amplitude ~10 m). */
    assert_int_equal(rtcosim_oscillator_run(&p, &s, &r, &err), RTCOSIM_OK);
    assert_true(r.max_x1 < 1e-3 && r.max_x2 < 1e-3);
    assert_true(r.stable);
    /* Corrected FOH at H = 100 us is much closer still. */
    s.macro_step = 100 * RTCOSIM_NS_PER_US;
    s.coupling.extrapolation = RTCOSIM_EXTRAPOLATION_FOH;
    s.coupling.correction = RTCOSIM_CORRECTION_DEAD_TIME;
    s.order = RTCOSIM_ORDER_GAUSS_SEIDEL;
    assert_int_equal(rtcosim_oscillator_run(&p, &s, &r, &err), RTCOSIM_OK);
    assert_true(r.max_x1 < 1e-5 && r.max_x2 < 1e-5);
}

static void correction_cuts_the_zoh_error_and_energy_drift(void **state)
{
    (void)state;
    rtcosim_oscillator_params p;
    rtcosim_oscillator_case(1, &p);
    rtcosim_oscillator_setup s;
    rtcosim_oscillator_setup_init(&s);
    s.stop = 2 * RTCOSIM_NS_PER_S;
    rtcosim_oscillator_result plain, corrected;
    assert_int_equal(rtcosim_oscillator_run(&p, &s, &plain, NULL), RTCOSIM_OK);
    s.coupling.correction = RTCOSIM_CORRECTION_DEAD_TIME;
    assert_int_equal(rtcosim_oscillator_run(&p, &s, &corrected, NULL), RTCOSIM_OK);
    assert_true(corrected.rms_error * 10 < plain.rms_error);
    assert_true(corrected.energy_drift < 0.01);
    assert_true(fabs(corrected.bond.energy_residual) * 10 < fabs(plain.bond.energy_residual));
}

/* The adaptive macro step on case 1 (Jacobi, FOH with the dead-time
 * correction, rtol 1e-3, atol 1e-5), started from H0 = 10 us: the master is
 * stepped by hand and every state compared with z(t) = exp(A t) z0. */
typedef struct adaptive_run {
    size_t steps;
    rtcosim_time_ns first_h, h_at_2ms; /* the first step, the last one starting before 2 ms */
    double largest_growth;              /* max h_k / h_k-1 */
    double max_error;                   /* max |x_i - x_i,exact| over the steps, m */
} adaptive_run;

static void run_adaptive(const rtcosim_step_control *sc, rtcosim_time_ns h0, rtcosim_time_ns stop,
                         adaptive_run *out)
{
    rtcosim_oscillator_params p;
    rtcosim_oscillator_case(1, &p);
    rtcosim_oscillator_setup s;
    rtcosim_oscillator_setup_init(&s);
    s.macro_step = h0;
    s.coupling.extrapolation = RTCOSIM_EXTRAPOLATION_FOH;
    s.coupling.correction = RTCOSIM_CORRECTION_DEAD_TIME;
    s.step_control = *sc;
    rtcosim_master *m = NULL;
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_oscillator_build(&p, &s, &m, &err), RTCOSIM_OK);
    if (rtcosim_master_initialize(m, 0, -1, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    memset(out, 0, sizeof *out);
    rtcosim_time_ns last_h = 0;
    while (rtcosim_master_time(m) < stop) {
        rtcosim_time_ns t0 = rtcosim_master_time(m);
        if (rtcosim_master_step(m, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        rtcosim_time_ns t = rtcosim_master_time(m), h = t - t0;
        if (out->steps++ == 0)
            out->first_h = h;
        if (t0 < 2 * RTCOSIM_NS_PER_MS)
            out->h_at_2ms = h;
        /* The last step is cut to the stop time: not the controller's. */
        if (last_h && t < stop && (double)h / (double)last_h > out->largest_growth)
            out->largest_growth = (double)h / (double)last_h;
        last_h = h;
        double z[4];
        rtcosim_oscillator_exact(&p, rtcosim_time_to_seconds(t), z);
        const double *v = rtcosim_master_observed_values(m); /* x1, v1, x2, v2 */
        double e = fmax(fabs(v[0] - z[0]), fabs(v[2] - z[2]));
        if (e > out->max_error)
            out->max_error = e;
    }
    rtcosim_master_free(m);
}

/* From H0 = 10 us, far below what the tolerance needs, the controller grows
 * the step by at most max_increase (2) per step, past 40 H0 within the
 * first 2 ms (doubling while the error is far below the target, then the
 * gentle PI law near it); the states stay within 1 mm of exp(A t) z0 (amplitude about
 * 10 m) at rtol 1e-3, and a tenth of the tolerance buys at least five times
 * the accuracy (corrected FOH is third order: the error per step scales with
 * the tolerance) for more steps. Deterministic: no clock involved. */
static void adaptive_step_grows_and_tracks_the_exact_solution(void **state)
{
    (void)state;
    rtcosim_step_control sc;
    rtcosim_step_control_init(&sc);
    sc.enabled = true;
    sc.rtol = 1e-3;
    sc.atol = 1e-5;
    sc.min_step = RTCOSIM_NS_PER_US;
    sc.max_step = 20 * RTCOSIM_NS_PER_MS;
    const rtcosim_time_ns h0 = 10 * RTCOSIM_NS_PER_US, stop = RTCOSIM_NS_PER_S;
    adaptive_run a, b;
    run_adaptive(&sc, h0, stop, &a);
    assert_int_equal(a.first_h, h0);
    if (a.h_at_2ms < 40 * h0 || a.largest_growth > sc.max_increase)
        fail_msg("step at 2 ms %lld ns, largest growth %g", (long long)a.h_at_2ms,
                 a.largest_growth);
    if (!(a.max_error < 1e-3))
        fail_msg("rtol 1e-3: max error %g m", a.max_error);
    sc.rtol = 1e-4;
    sc.atol = 1e-6;
    run_adaptive(&sc, h0, stop, &b);
    if (!(b.max_error * 5 < a.max_error) || b.steps <= a.steps)
        fail_msg("rtol 1e-4: max error %g m in %zu steps; rtol 1e-3: %g m in %zu", b.max_error,
                 b.steps, a.max_error, a.steps);
}

/* B2 case 1 (undamped: no quiet phase to widen the step in) and case 3
 * (dampers 5 N s/m: a decaying transient), FOH + dead-time correction over
 * 10 s, referee exp(A t) z0: the adaptive run is at least as accurate (RMS
 * over time) as the fixed run with as many steps (H = 10 s / its step
 * count), so a fixed run of equal accuracy needs at least its steps; on
 * case 3 it needs at most half the steps of the fixed H = 1 ms run for the
 * same accuracy within 1.2x. */
static void adaptive_steps_no_more_than_fixed_of_equal_accuracy(void **state)
{
    (void)state;
    for (int cs = 1; cs <= 3; cs += 2) {
        rtcosim_oscillator_params p;
        rtcosim_oscillator_case(cs, &p);
        rtcosim_oscillator_setup s;
        rtcosim_oscillator_setup_init(&s);
        s.stop = 10 * RTCOSIM_NS_PER_S;
        s.macro_step = RTCOSIM_NS_PER_MS;
        s.coupling.extrapolation = RTCOSIM_EXTRAPOLATION_FOH;
        s.coupling.correction = RTCOSIM_CORRECTION_DEAD_TIME;
        rtcosim_oscillator_result fixed_1ms, adaptive, fixed_same;
        assert_int_equal(rtcosim_oscillator_run(&p, &s, &fixed_1ms, NULL), RTCOSIM_OK);
        s.step_control.enabled = true;
        s.step_control.rtol = 1e-4;
        s.step_control.atol = 1e-6;
        assert_int_equal(rtcosim_oscillator_run(&p, &s, &adaptive, NULL), RTCOSIM_OK);
        s.step_control.enabled = false;
        s.macro_step = s.stop / (rtcosim_time_ns)adaptive.steps;
        assert_int_equal(rtcosim_oscillator_run(&p, &s, &fixed_same, NULL), RTCOSIM_OK);
        if (!(adaptive.stable && adaptive.rms_error_time <= fixed_same.rms_error_time))
            fail_msg("case %d: adaptive %llu steps, rms %g m; fixed H = %lld ns: rms %g m", cs,
                     (unsigned long long)adaptive.steps, adaptive.rms_error_time,
                     (long long)s.macro_step, fixed_same.rms_error_time);
        if (cs == 3 && !(adaptive.steps * 2 <= fixed_1ms.steps &&
                         adaptive.rms_error_time <= 1.2 * fixed_1ms.rms_error_time))
            fail_msg("case 3: adaptive %llu steps, rms %g m; fixed 1 ms: %llu steps, rms %g m",
                     (unsigned long long)adaptive.steps, adaptive.rms_error_time,
                     (unsigned long long)fixed_1ms.steps, fixed_1ms.rms_error_time);
    }
}

static void initial_coupling_force_is_consistent_with_initial_velocities(void **state)
{
    (void)state;
    /* Case 2: F(0) = kc (x2 - x1) + cc (v2 - v1) = 0.01 * (-100 - 100) = -2 N,
     * which needs mass1's initial velocity (a parameter v0 turned into the
     * state in initialization) to reach mass2 before the first exchange. */
    rtcosim_oscillator_params p;
    rtcosim_oscillator_case(2, &p);
    rtcosim_oscillator_setup s;
    rtcosim_oscillator_setup_init(&s);
    rtcosim_master *m = NULL;
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_oscillator_build(&p, &s, &m, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_observe(m, "mass2.F", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_initialize(m, 0, -1, &err), RTCOSIM_OK);
    const double *v = rtcosim_master_observed_values(m);
    assert_string_equal(rtcosim_master_observed_name(m, 4), "mass2.F");
    assert_true(fabs(v[4] + 2.0) < 1e-15);
    assert_true(v[1] == 100.0 && v[3] == -100.0);
    rtcosim_master_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(matrix_exponential_matches_fine_rk4),
        cmocka_unit_test(exponential_of_a_diagonal_matrix_is_elementwise),
        cmocka_unit_test(undamped_energy_is_conserved_by_the_exact_solution),
        cmocka_unit_test(small_macro_step_converges_to_the_exact_solution),
        cmocka_unit_test(adaptive_step_grows_and_tracks_the_exact_solution),
        cmocka_unit_test(adaptive_steps_no_more_than_fixed_of_equal_accuracy),
        cmocka_unit_test(correction_cuts_the_zoh_error_and_energy_drift),
        cmocka_unit_test(initial_coupling_force_is_consistent_with_initial_velocities),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
