/* The thermal example's variants inside anytime sets on a virtual clock:
 * every variant settles at the plant's analytic steady state (heat flows in
 * series: T_c = T_a + P/G_ca, T_b = T_c + P/G_bc, T_h from the conduction plus
 * radiation balance solved by bisection), and on the transient the RK4
 * variant stays closer to CVODE than Euler does. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "anytime_test_util.h"
#include "thermal.h"

#define POWER 200.0

/* Run `periods` periods of `period_ns` with one variant alone; returns the
 * committed state. */
static thermal_state run_alone(rtcosim_anytime_fn fn, void *user, rtcosim_time_ns period_ns,
                               size_t periods)
{
    rtcosim_clock *clock;
    assert_int_equal(rtcosim_clock_create_virtual(0, &clock, NULL), RTCOSIM_OK);
    thermal_state initial = {{THERMAL_T_AMBIENT, THERMAL_T_AMBIENT, THERMAL_T_AMBIENT}};
    rtcosim_anytime_config cfg;
    rtcosim_anytime_config_init(&cfg);
    cfg.input_count = 1;
    cfg.output_count = 2;
    cfg.state_size = sizeof initial;
    cfg.initial_state = &initial;
    cfg.period_ns = period_ns;
    cfg.calibration_runs = 1;
    rtcosim_anytime *set;
    rtcosim_error err;
    assert_int_equal(rtcosim_anytime_create(&cfg, clock, &set, &err), RTCOSIM_OK);
    rtcosim_anytime_variant_info info = {"only", 1, 0, 0};
    assert_int_equal(rtcosim_anytime_add_native(set, &info, fn, user, &err), RTCOSIM_OK);
    const double power = POWER;
    assert_int_equal(rtcosim_anytime_start(set, &power, &err), RTCOSIM_OK);
    double y[2];
    for (size_t k = 0; k < periods; k++)
        assert_int_equal(rtcosim_anytime_run_period(set, &power, y, NULL, &err), RTCOSIM_OK);
    thermal_state out = *(const thermal_state *)rtcosim_anytime_state(set);
    assert_double_equal(y[0], out.T[0], 0);
    assert_double_equal(y[1], out.T[2], 0);
    rtcosim_anytime_free(set);
    rtcosim_clock_free(clock);
    return out;
}

/* Steady state: the same power flows through every link. The element's
 * temperature solves 5 (T_h - T_b) + sigma eps A (T_h^4 - T_b^4) = P. */
static thermal_state steady_state(void)
{
    thermal_state s;
    s.T[2] = THERMAL_T_AMBIENT + POWER / 8.0;
    s.T[1] = s.T[2] + POWER / 20.0;
    double lo = s.T[1], hi = s.T[1] + POWER / 5.0;
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        double q = 5.0 * (mid - s.T[1]) + 5.670374419e-8 * 2e-3 * (pow(mid, 4) - pow(s.T[1], 4));
        if (q > POWER)
            hi = mid;
        else
            lo = mid;
    }
    s.T[0] = 0.5 * (lo + hi);
    return s;
}

static void every_variant_settles_at_the_analytic_steady_state(void **unused)
{
    (void)unused;
    thermal_state expected = steady_state();
    thermal_cvode *solver = thermal_cvode_create(1e-10);
    assert_non_null(solver);
    /* 1500 s: the slowest mode (coolant and housing against the ambient,
     * (400 + 50) J/K / 8 W/K = 56 s) decays by e^-27. RK4 is stable for
     * steps up to 2.78 times the element's 2 ms time constant, Euler up to
     * 2 times: 20 ms periods of ten RK4 steps, 3 ms Euler steps. */
    thermal_state cvode = run_alone(thermal_cvode_step, solver, 1000 * MS, 1500);
    thermal_state rk4 = run_alone(thermal_rk4_tenth, NULL, 20 * MS, 75000);
    thermal_state euler = run_alone(thermal_euler, NULL, 3 * MS, 500000);
    for (int i = 0; i < THERMAL_STATES; i++) {
        assert_double_equal(rk4.T[i], expected.T[i], 1e-6);
        assert_double_equal(cvode.T[i], expected.T[i], 1e-6);
        assert_double_equal(euler.T[i], expected.T[i], 1e-6);
    }
    thermal_cvode_free(solver);
}

static void rk4_tracks_cvode_closer_than_euler_on_the_transient(void **unused)
{
    (void)unused;
    thermal_cvode *solver = thermal_cvode_create(1e-10);
    assert_non_null(solver);
    /* 20 ms after switching on: the element is mid-transient. */
    thermal_state cvode = run_alone(thermal_cvode_step, solver, 1 * MS, 20);
    thermal_state rk4 = run_alone(thermal_rk4_tenth, NULL, 1 * MS, 20);
    thermal_state euler = run_alone(thermal_euler, NULL, 1 * MS, 20);
    double rk4_error = fabs(rk4.T[0] - cvode.T[0]);
    double euler_error = fabs(euler.T[0] - cvode.T[0]);
    assert_true(cvode.T[0] > THERMAL_T_AMBIENT + 10);
    assert_true(rk4_error < 1e-3);
    assert_true(euler_error > 100 * rk4_error);
    thermal_cvode_free(solver);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_variant_settles_at_the_analytic_steady_state),
        cmocka_unit_test(rk4_tracks_cvode_closer_than_euler_on_the_transient),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
