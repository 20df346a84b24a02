/* The BouncingBall FMU (FMI 2.0 and 3.0) against the analytic bounce sequence:
 * first impact at sqrt(2 h0 / |g|) with speed |g| t1, each rebound e times
 * the impact speed, each flight lasting 2 w / |g|, apexes at h0 e^(2k), rest
 * once a rebound is slower than v_min. Impacts inside large communication
 * steps must be located exactly. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fmu_driver.h"

FMU_TARGETS(BOUNCINGBALL)

enum { VR_TIME, VR_H, VR_DER_H, VR_V, VR_DER_V, VR_G, VR_E, VR_H0, VR_V0, VR_V_MIN };

static const double G = 9.81, E = 0.7, H0 = 1.0, V_MIN = 0.1;

/* Height and velocity at time t from the bounce sequence (v0 = 0). */
static void reference(double t, double *h, double *v)
{
    const double t1 = sqrt(2.0 * H0 / G);
    if (t < t1) {
        *h = H0 - 0.5 * G * t * t;
        *v = -G * t;
        return;
    }
    double bounce_time = t1, w = E * G * t1;
    while (w >= V_MIN) {
        const double flight = 2.0 * w / G;
        if (t < bounce_time + flight) {
            const double tau = t - bounce_time;
            *h = w * tau - 0.5 * G * tau * tau;
            *v = w - G * tau;
            return;
        }
        bounce_time += flight;
        w *= E;
    }
    *h = 0.0;
    *v = 0.0;
}

/* Time from which the ball rests. */
static double rest_time(void)
{
    double t = sqrt(2.0 * H0 / G), w = E * G * t;
    while (w >= V_MIN) {
        t += 2.0 * w / G;
        w *= E;
    }
    return t;
}

static void start(fmu *f, const fmu_target *t)
{
    assert_true(fmu_open(f, t));
    assert_true(fmu_start(f));
}


static void assert_state(fmu *f, double t, double tolerance)
{
    double h_ref, v_ref;
    reference(t, &h_ref, &v_ref);
    const double h = fmu_real(f, VR_H), v = fmu_real(f, VR_V);
    if (!(fabs(h - h_ref) <= tolerance && fabs(v - v_ref) <= tolerance))
        fail_msg("t = %.6f: h = %.12g, v = %.12g; expected %.12g, %.12g", t, h, v, h_ref, v_ref);
}

static void first_impact_at_analytic_time(void **state)
{
    fmu f;
    start(&f, *state);
    const double t1 = sqrt(2.0 * H0 / G); /* 0.4515 s */
    assert_true(fabs(t1 - 0.4515236) < 1e-6);
    assert_true(fmu_real(&f, VR_H) == H0);
    /* Steps of 0.01 s: the impact falls inside the step from 0.45 to 0.46. */
    for (int i = 0; i < 45; i++)
        assert_int_equal(fmu_step(&f, i * 0.01, 0.01), 0);
    assert_true(fmu_real(&f, VR_H) > 0.0 && fmu_real(&f, VR_V) < 0.0);
    assert_int_equal(fmu_step(&f, 0.45, 0.01), 0);
    assert_true(fmu_real(&f, VR_V) > 0.0); /* rebounded inside the step */
    /* Position after the impact: rebound speed e*|g|*t1 for 0.46 - t1. */
    const double tau = 0.46 - t1, w = E * G * t1;
    assert_true(fabs(fmu_real(&f, VR_H) - (w * tau - 0.5 * G * tau * tau)) < 1e-12);
    assert_true(fabs(fmu_real(&f, VR_V) - (w - G * tau)) < 1e-12);
    fmu_close(&f);
}

static void trajectory_matches_bounce_sequence_at_every_step(void **state)
{
    fmu f;
    start(&f, *state);
    for (int i = 0; i < 300; i++) {
        assert_int_equal(fmu_step(&f, i * 0.01, 0.01), 0);
        assert_state(&f, (i + 1) * 0.01, 1e-9);
        assert_true(fmu_real(&f, VR_H) >= 0.0); /* never below the ground */
        assert_true(fmu_real(&f, VR_DER_H) == fmu_real(&f, VR_V));
    }
    fmu_close(&f);
}

static void apex_heights_scale_with_e_squared(void **state)
{
    fmu f;
    start(&f, *state);
    double t = 0.0, bounce_time = sqrt(2.0 * H0 / G), w = E * G * bounce_time;
    for (int k = 1; k <= 4; k++) {
        const double apex_time = bounce_time + w / G;
        assert_int_equal(fmu_step(&f, t, apex_time - t), 0); /* variable step sizes */
        t = apex_time;
        assert_true(fabs(fmu_real(&f, VR_H) - H0 * pow(E, 2 * k)) < 1e-9);
        assert_true(fabs(fmu_real(&f, VR_V)) < 1e-9);
        bounce_time += 2.0 * w / G;
        w *= E;
    }
    fmu_close(&f);
}

static void large_communication_step_locates_every_impact(void **state)
{
    fmu f;
    start(&f, *state);
    /* One step over three impacts. */
    assert_int_equal(fmu_step(&f, 0.0, 1.9), 0);
    assert_state(&f, 1.9, 1e-9);
    fmu_close(&f);
    start(&f, *state);
    /* One step over the whole bouncing phase ends at rest. */
    assert_int_equal(fmu_step(&f, 0.0, 3.0), 0);
    assert_true(fmu_real(&f, VR_H) == 0.0);
    assert_true(fmu_real(&f, VR_V) == 0.0);
    fmu_close(&f);
}

static void ball_comes_to_rest_without_chatter(void **state)
{
    fmu f;
    start(&f, *state);
    const double t_rest = rest_time(); /* about 2.5 s with v_min = 0.1 */
    assert_true(t_rest > 2.0 && t_rest < 3.0);
    double t = 0.0;
    while (t < 10.0) {
        assert_int_equal(fmu_step(&f, t, 0.01), 0);
        t += 0.01;
        if (t > t_rest + 1e-9) {
            assert_true(fmu_real(&f, VR_H) == 0.0);
            assert_true(fmu_real(&f, VR_V) == 0.0);
            assert_true(fmu_real(&f, VR_DER_V) == 0.0);
        }
    }
    fmu_close(&f);
}

static void bounces_are_logged_as_events(void **state)
{
    fmu f;
    start(&f, *state);
    fmu_log_clear();
    assert_int_equal(fmu_step(&f, 0.0, 0.5), 0);
    assert_int_equal(fmu_log_count, 1);
    assert_string_equal(fmu_last_category, "logEvents");
    assert_non_null(strstr(fmu_log_text, "bounce at t = 0.4515"));
    assert_int_equal(fmu_step(&f, 0.5, 2.5), 0);
    assert_non_null(strstr(fmu_log_text, "comes to rest"));
    fmu_close(&f);
}

static void invalid_parameters_are_refused_at_initialization(void **state)
{
    const struct {
        uint32_t vr;
        double value;
        const char *message;
    } cases[] = {{VR_E, 1.5, "e must be"},
                 {VR_G, 9.81, "g must be"},
                 {VR_H0, -1.0, "h0 must be"},
                 {VR_V_MIN, 0.0, "v_min must be"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fmu f;
        assert_true(fmu_open(&f, *state));
        assert_true(fmu_instantiate(&f));
        assert_int_equal(fmu_set_real(&f, cases[i].vr, cases[i].value), 0);
        assert_int_equal(fmu_enter_init(&f, 0.0, false, 0.0), 0);
        assert_int_equal(fmu_exit_init(&f), fmi2Error);
        assert_non_null(strstr(fmu_log_text, cases[i].message));
        assert_int_equal(fmu_step(&f, 0.0, 0.01), fmi2Error); /* in the error state */
        assert_int_equal(fmu_reset(&f), 0);                    /* reset recovers */
        assert_int_equal(fmu_enter_init(&f, 0.0, false, 0.0), 0);
        assert_int_equal(fmu_exit_init(&f), 0);
        fmu_close(&f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        BOTH_VERSIONS(first_impact_at_analytic_time, BOUNCINGBALL),
        BOTH_VERSIONS(trajectory_matches_bounce_sequence_at_every_step, BOUNCINGBALL),
        BOTH_VERSIONS(apex_heights_scale_with_e_squared, BOUNCINGBALL),
        BOTH_VERSIONS(large_communication_step_locates_every_impact, BOUNCINGBALL),
        BOTH_VERSIONS(ball_comes_to_rest_without_chatter, BOUNCINGBALL),
        BOTH_VERSIONS(bounces_are_logged_as_events, BOUNCINGBALL),
        BOTH_VERSIONS(invalid_parameters_are_refused_at_initialization, BOUNCINGBALL),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
