/* Coupling arithmetic against hand computation: the extrapolation
 * polynomials are exact for polynomials of their order, the correction
 * systems release what they are fed as documented, and the PI step
 * controller follows its formula and respects its bounds. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/coupling.h"

#define MS RTCOSIM_NS_PER_MS

static void zoh_holds_the_last_value(void **state)
{
    (void)state;
    rtcosim_time_ns t[] = {0, MS, 2 * MS};
    double y[] = {5, 6, 7};
    rtcosim_poly p;
    rtcosim_poly_fit(RTCOSIM_EXTRAPOLATION_ZOH, t, y, 3, 2 * MS, &p);
    assert_true(p.c[0] == 7 && p.c[1] == 0 && p.c[2] == 0);
}

static void foh_is_exact_for_a_line(void **state)
{
    (void)state;
    /* y = 3 + 2 t sampled at 1 ms and 3 ms (uneven spacing), step from 3 ms. */
    rtcosim_time_ns t[] = {1 * MS, 3 * MS};
    double y[] = {3 + 2e-3, 3 + 6e-3};
    rtcosim_poly p;
    rtcosim_poly_fit(RTCOSIM_EXTRAPOLATION_FOH, t, y, 2, 3 * MS, &p);
    assert_true(fabs(rtcosim_poly_eval(&p, 0.0) - (3 + 6e-3)) < 1e-15);
    assert_true(fabs(p.c[1] - 2) < 1e-12);
    assert_true(fabs(rtcosim_poly_eval(&p, 0.01) - (3 + 2 * 0.013)) < 1e-13);
}

static void soh_is_exact_for_a_parabola_and_interpolates(void **state)
{
    (void)state;
    /* y = 1 - t + 0.5 t^2 at t = 0, 0.1, 0.3 s; fit around 0.2 s (between samples). */
    rtcosim_time_ns t[] = {0, 100 * MS, 300 * MS};
    double y[3];
    for (int i = 0; i < 3; i++) {
        double s = (double)t[i] * 1e-9;
        y[i] = 1 - s + 0.5 * s * s;
    }
    rtcosim_poly p;
    rtcosim_poly_fit(RTCOSIM_EXTRAPOLATION_SOH, t, y, 3, 200 * MS, &p);
    /* Around 0.2: y(0.2 + s) = 0.82 - 0.8 s + 0.5 s^2 */
    assert_true(fabs(p.c[0] - 0.82) < 1e-14);
    assert_true(fabs(p.c[1] + 0.8) < 1e-13);
    assert_true(fabs(p.c[2] - 0.5) < 1e-12);
    /* The integral over [0.2, 0.5]: 0.82*0.3 - 0.4*0.09 + 0.5*0.027/3 = 0.2145 */
    assert_true(fabs(rtcosim_poly_integral(&p, 0.3) - 0.2145) < 1e-14);
}

static void fewer_samples_lower_the_order(void **state)
{
    (void)state;
    rtcosim_time_ns t[] = {0};
    double y[] = {4};
    rtcosim_poly p;
    rtcosim_poly_fit(RTCOSIM_EXTRAPOLATION_SOH, t, y, 1, 0, &p);
    assert_true(p.c[0] == 4 && p.c[1] == 0 && p.c[2] == 0);
}

static void shift_moves_the_origin(void **state)
{
    (void)state;
    rtcosim_poly p = {{1, 2, 3}}, q;
    rtcosim_poly_shift(&p, 0.5, &q);
    /* 1 + 2 (s + 0.5) + 3 (s + 0.5)^2 = 2.75 + 5 s + 3 s^2 */
    assert_true(q.c[0] == 2.75 && q.c[1] == 5 && q.c[2] == 3);
}

static void dead_time_releases_the_last_error_once(void **state)
{
    (void)state;
    rtcosim_correction_state s;
    rtcosim_correction_init(&s, RTCOSIM_CORRECTION_DEAD_TIME, 0.1);
    rtcosim_correction_feed(&s, 0.2);
    assert_true(fabs(rtcosim_correction_release(&s, 0.1) - 2.0) < 1e-15); /* 0.2 / 0.1 */
    assert_true(rtcosim_correction_release(&s, 0.1) == 0);
    rtcosim_correction_init(&s, RTCOSIM_CORRECTION_NONE, 0.1);
    rtcosim_correction_feed(&s, 0.2);
    assert_true(rtcosim_correction_release(&s, 0.1) == 0);
    assert_true(s.last_error == 0.2);
}

static void integrator_releases_exponentially_and_step_consistently(void **state)
{
    (void)state;
    rtcosim_correction_state a, b;
    rtcosim_correction_init(&a, RTCOSIM_CORRECTION_INTEGRATOR, 0.1);
    rtcosim_correction_init(&b, RTCOSIM_CORRECTION_INTEGRATOR, 0.1);
    rtcosim_correction_feed(&a, 1.0);
    rtcosim_correction_feed(&b, 1.0);
    /* One step of 0.1 s releases 1 - e^-1 of the impulse. */
    double whole = rtcosim_correction_release(&a, 0.1) * 0.1;
    assert_true(fabs(whole - (1 - exp(-1.0))) < 1e-15);
    /* Two half steps release the same impulse in total. */
    double halves = rtcosim_correction_release(&b, 0.05) * 0.05 + rtcosim_correction_release(&b, 0.05) * 0.05;
    assert_true(fabs(halves - whole) < 1e-15);
    /* Whatever the steps, the pending error decays (stable for any step). */
    for (int i = 0; i < 200; i++)
        rtcosim_correction_release(&a, i % 2 ? 10.0 : 1e-6);
    assert_true(fabs(a.pending) < 1e-12);
}

static void pi_controller_follows_the_formula(void **state)
{
    (void)state;
    rtcosim_step_control sc;
    rtcosim_step_control_init(&sc);
    sc.min_step = 100 * RTCOSIM_NS_PER_US;
    sc.max_step = 3 * MS;
    rtcosim_step_controller ctl;
    rtcosim_step_controller_init(&ctl, &sc); /* target 0.5, k = 2: beta_i 0.15, beta_p 0.1 */
    /* The first step's error (the start's transient) does not settle the
     * controller: elementary law (0.5 / 2)^(1/2) = 0.5 -> 500 us. */
    rtcosim_time_ns h = rtcosim_step_controller_next(&ctl, 2.0, MS);
    assert_int_equal(h, 500 * RTCOSIM_NS_PER_US);
    /* Still unsettled: (0.5 / 0.02)^(1/2) = 5, capped at 2x -> 1000 us. */
    h = rtcosim_step_controller_next(&ctl, 0.02, h);
    assert_int_equal(h, 1000 * RTCOSIM_NS_PER_US);
    /* err 0.8 >= target settles it; PI: (0.5/0.8)^0.15 * (0.02/0.5)^0.1
     * = 0.675442 -> 675.44 us, down to 675 us. */
    h = rtcosim_step_controller_next(&ctl, 0.8, h);
    assert_int_equal(h, 675 * RTCOSIM_NS_PER_US);
    /* err 0.4 (above half the target: PI): (0.5/0.4)^0.15 * (0.8/0.5)^0.1
     * = 1.083798 -> 731.56 us -> 731 us. */
    h = rtcosim_step_controller_next(&ctl, 0.4, h);
    assert_int_equal(h, 731 * RTCOSIM_NS_PER_US);
    /* err 0.1, below half the target: elementary (0.5/0.1)^(1/2) = 2.24,
     * capped at 2x -> 1462 us; from 2 ms, max_step caps at 3 ms. */
    h = rtcosim_step_controller_next(&ctl, 0.1, h);
    assert_int_equal(h, 1462 * RTCOSIM_NS_PER_US);
    h = rtcosim_step_controller_next(&ctl, 1e-12, 2 * MS);
    assert_int_equal(h, 3 * MS);
    /* err huge: shrink capped at 0.2x, then min_step holds */
    h = rtcosim_step_controller_next(&ctl, 1e9, MS);
    assert_int_equal(h, 200 * RTCOSIM_NS_PER_US);
    h = rtcosim_step_controller_next(&ctl, 1e9, h);
    assert_int_equal(h, 100 * RTCOSIM_NS_PER_US);
}

/* A steady error settles at the target whatever the gains (Soederlind's
 * form): with err = target every step, the step stays where it is. */
static void pi_controller_holds_a_step_whose_error_is_the_target(void **state)
{
    (void)state;
    rtcosim_step_control sc;
    rtcosim_step_control_init(&sc);
    sc.beta_i = 0.3 / 4, sc.beta_p = 0.2 / 4, sc.order = 4;
    rtcosim_step_controller ctl;
    rtcosim_step_controller_init(&ctl, &sc);
    rtcosim_time_ns h = rtcosim_step_controller_next(&ctl, sc.target, MS); /* first: elementary */
    for (int i = 0; i < 5; i++)
        h = rtcosim_step_controller_next(&ctl, sc.target, MS);
    assert_int_equal(h, MS);
}

static void names_parse_and_unknown_names_are_reported(void **state)
{
    (void)state;
    rtcosim_extrapolation e;
    rtcosim_correction c;
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_extrapolation_parse("soh", &e, &err), RTCOSIM_OK);
    assert_int_equal(e, RTCOSIM_EXTRAPOLATION_SOH);
    assert_int_equal(rtcosim_correction_parse("dead-time", &c, &err), RTCOSIM_OK);
    assert_int_equal(c, RTCOSIM_CORRECTION_DEAD_TIME);
    assert_int_equal(rtcosim_extrapolation_parse("cubic", &e, &err), RTCOSIM_EINVAL);
    assert_string_equal(err.message, "unknown extrapolation 'cubic' (expected zoh, foh or soh)");
    assert_int_equal(rtcosim_correction_parse("magic", &c, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "'magic'"));
    assert_string_equal(rtcosim_extrapolation_name(RTCOSIM_EXTRAPOLATION_FOH), "foh");
    assert_string_equal(rtcosim_correction_name(RTCOSIM_CORRECTION_INTEGRATOR), "integrator");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(zoh_holds_the_last_value),
        cmocka_unit_test(foh_is_exact_for_a_line),
        cmocka_unit_test(soh_is_exact_for_a_parabola_and_interpolates),
        cmocka_unit_test(fewer_samples_lower_the_order),
        cmocka_unit_test(shift_moves_the_origin),
        cmocka_unit_test(dead_time_releases_the_last_error_once),
        cmocka_unit_test(integrator_releases_exponentially_and_step_consistently),
        cmocka_unit_test(pi_controller_follows_the_formula),
        cmocka_unit_test(pi_controller_holds_a_step_whose_error_is_the_target),
        cmocka_unit_test(names_parse_and_unknown_names_are_reported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
