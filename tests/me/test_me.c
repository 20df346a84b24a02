/* Model-exchange FMUs integrated by rtcosim, against closed-form truth:
 * Dahlquist's x' = -k x is e^{-kt} (CVODE) and (1 - k dt)^n exactly (explicit
 * Euler); the bouncing ball first hits the ground at sqrt(2 h0 / |g|), and
 * after the k-th bounce its apex h + v^2 / (2|g|) is h0 e^{2k}. Also FMU state
 * snapshots, and the errors for FMUs that cannot be used for model exchange. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/fmu.h"
#include "rtcosim_test_fmus.h"

#define MS RTCOSIM_NS_PER_MS
#define S RTCOSIM_NS_PER_S

enum { DAHLQUIST_X = 1, BALL_H = 1, BALL_V = 3 };
static const double G = 9.81, E = 0.7, H0 = 1.0;

static rtcosim_component *start(const char *fmu, rtcosim_me_solver solver,
                                rtcosim_time_ns max_step, double tolerance)
{
    rtcosim_fmu_options o = {.interface_type = RTCOSIM_FMI_MODEL_EXCHANGE,
                             .solver = solver,
                             .max_solver_step = max_step};
    rtcosim_component *c = NULL;
    rtcosim_error err;
    if (rtcosim_fmu_load(fmu, &o, &c, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(rtcosim_fmu_info_of(c)->interface_type, RTCOSIM_FMI_MODEL_EXCHANGE);
    assert_int_equal(rtcosim_component_instantiate(c, "me", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_setup(c, tolerance, 0, -1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_enter_init(c, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
    return c;
}

static double get(rtcosim_component *c, uint32_t vr)
{
    double value = NAN;
    rtcosim_error err;
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &vr, 1, &value, &err),
                     RTCOSIM_OK);
    return value;
}

static void step(rtcosim_component *c, rtcosim_time_ns t, rtcosim_time_ns h)
{
    rtcosim_error err;
    rtcosim_step_result r;
    if (rtcosim_component_do_step(c, t, h, &r, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_false(r.terminate_requested);
}

static rtcosim_me_stats stats(const rtcosim_component *c)
{
    rtcosim_me_stats s;
    rtcosim_error err;
    assert_int_equal(rtcosim_fmu_me_stats(c, &s, &err), RTCOSIM_OK);
    return s;
}

/* ---- Dahlquist ---- */

static void dahlquist_cvode_follows_exp(const char *fmu)
{
    rtcosim_component *c = start(fmu, RTCOSIM_ME_SOLVER_CVODE, 0, 1e-10);
    assert_int_equal(rtcosim_fmu_info_of(c)->state_count, 1);
    assert_float_equal(get(c, DAHLQUIST_X), 1.0, 0.0);
    double worst = 0;
    for (rtcosim_time_ns t = 0; t < 5 * S; t += 100 * MS) {
        step(c, t, 100 * MS);
        double tt = rtcosim_time_to_seconds(t + 100 * MS);
        worst = fmax(worst, fabs(get(c, DAHLQUIST_X) - exp(-tt)));
    }
    assert_true(worst < 1e-6);
    rtcosim_me_stats s = stats(c);
    assert_true(s.solver_steps > 0 && s.rhs_evaluations >= s.solver_steps);
    assert_int_equal(s.state_events + s.time_events + s.step_events, 0);
    rtcosim_component_free(c);
}

static void dahlquist_fmi2_with_cvode_follows_exp(void **state)
{
    (void)state;
    dahlquist_cvode_follows_exp(RTCOSIM_FMU_DAHLQUIST_FMI2);
}

static void dahlquist_fmi3_with_cvode_follows_exp(void **state)
{
    (void)state;
    dahlquist_cvode_follows_exp(RTCOSIM_FMU_DAHLQUIST_FMI3);
}

/* Explicit Euler with dt = 1 ms: x_n = (1 - dt)^n, to rounding. */
static void dahlquist_with_euler_is_the_euler_recursion(void **state)
{
    (void)state;
    rtcosim_component *c = start(RTCOSIM_FMU_DAHLQUIST_FMI3, RTCOSIM_ME_SOLVER_EULER, MS, 0);
    for (rtcosim_time_ns t = 0; t < S; t += 100 * MS)
        step(c, t, 100 * MS);
    assert_float_equal(get(c, DAHLQUIST_X), pow(1.0 - 1e-3, 1000), 1e-12);
    assert_int_equal(stats(c).solver_steps, 1000);
    rtcosim_component_free(c);
}

/* ---- BouncingBall ---- */

static void first_impact_is_located_by_root_finding(const char *fmu)
{
    rtcosim_component *c = start(fmu, RTCOSIM_ME_SOLVER_CVODE, 0, 1e-10);
    assert_int_equal(rtcosim_fmu_info_of(c)->state_count, 2);
    assert_int_equal(rtcosim_fmu_info_of(c)->event_indicator_count, 1);
    for (rtcosim_time_ns t = 0; t < 500 * MS; t += 10 * MS)
        step(c, t, 10 * MS);
    const double impact = sqrt(2 * H0 / G);
    rtcosim_me_stats s = stats(c);
    assert_int_equal(s.state_events, 1);
    assert_float_equal(s.last_event_time, impact, 1e-6);
    /* After the bounce: a parabola from (impact, 0) with v = e g t_impact. */
    const double dt = 0.5 - impact, v1 = E * G * impact;
    assert_float_equal(get(c, BALL_H), v1 * dt - 0.5 * G * dt * dt, 1e-6);
    assert_float_equal(get(c, BALL_V), v1 - G * dt, 1e-6);
    rtcosim_component_free(c);
}

static void ball_fmi2_first_impact_is_located_by_root_finding(void **state)
{
    (void)state;
    first_impact_is_located_by_root_finding(RTCOSIM_FMU_BOUNCINGBALL_FMI2);
}

static void ball_fmi3_first_impact_is_located_by_root_finding(void **state)
{
    (void)state;
    first_impact_is_located_by_root_finding(RTCOSIM_FMU_BOUNCINGBALL_FMI3);
}

/* Each bounce keeps e^2 of the energy: apex_k = h0 e^{2k}, seen at any time
 * of the k-th flight as h + v^2 / (2|g|). */
static void apex_heights_scale_with_e_squared(void **state)
{
    (void)state;
    rtcosim_component *c = start(RTCOSIM_FMU_BOUNCINGBALL_FMI3, RTCOSIM_ME_SOLVER_CVODE, 0, 1e-10);
    uint64_t seen = 0;
    for (rtcosim_time_ns t = 0; t < 2300 * MS; t += 10 * MS) {
        step(c, t, 10 * MS);
        uint64_t k = stats(c).state_events;
        double h = get(c, BALL_H), v = get(c, BALL_V);
        assert_float_equal(h + v * v / (2 * G), H0 * pow(E, 2.0 * (double)k), 1e-6);
        seen = k;
    }
    assert_true(seen >= 6); /* impacts at 0.45, 1.08, 1.53, 1.84, 2.05, 2.21 s */
    rtcosim_component_free(c);
}

static void euler_finds_the_impact_within_a_micro_step(void **state)
{
    (void)state;
    rtcosim_component *c =
        start(RTCOSIM_FMU_BOUNCINGBALL_FMI2, RTCOSIM_ME_SOLVER_EULER, MS / 10, 0);
    for (rtcosim_time_ns t = 0; t < 500 * MS; t += 10 * MS)
        step(c, t, 10 * MS);
    rtcosim_me_stats s = stats(c);
    assert_int_equal(s.state_events, 1);
    /* Euler's h lags by g t dt / 2 ~ 2e-4 m, i.e. 5e-5 s; plus one micro step. */
    assert_float_equal(s.last_event_time, sqrt(2 * H0 / G), 2e-4);
    rtcosim_component_free(c);
}

/* A snapshot before the impact, restored after it: the solver restarts from
 * the FMU's states and the rerun meets the same closed-form values. */
static void restored_state_reruns_the_impact(void **state)
{
    (void)state;
    rtcosim_component *c = start(RTCOSIM_FMU_BOUNCINGBALL_FMI2, RTCOSIM_ME_SOLVER_CVODE, 0, 1e-10);
    rtcosim_error err;
    for (rtcosim_time_ns t = 0; t < 300 * MS; t += 10 * MS)
        step(c, t, 10 * MS);
    rtcosim_state snapshot = NULL;
    assert_int_equal(rtcosim_component_get_state(c, &snapshot, &err), RTCOSIM_OK);
    const double impact = sqrt(2 * H0 / G), dt = 0.6 - impact, v1 = E * G * impact;
    for (int run = 0; run < 2; run++) {
        for (rtcosim_time_ns t = 300 * MS; t < 600 * MS; t += 10 * MS)
            step(c, t, 10 * MS);
        assert_float_equal(get(c, BALL_H), v1 * dt - 0.5 * G * dt * dt, 1e-6);
        assert_float_equal(get(c, BALL_V), v1 - G * dt, 1e-6);
        assert_float_equal(stats(c).last_event_time, impact, 1e-6);
        assert_int_equal(rtcosim_component_set_state(c, snapshot, &err), RTCOSIM_OK);
    }
    assert_int_equal(stats(c).state_events, 2);
    rtcosim_component_free_state(c, snapshot);
    rtcosim_component_free(c);
}

static void step_from_the_wrong_time_is_refused(void **state)
{
    (void)state;
    rtcosim_component *c = start(RTCOSIM_FMU_DAHLQUIST_FMI2, RTCOSIM_ME_SOLVER_CVODE, 0, 1e-6);
    rtcosim_error err;
    rtcosim_step_result r;
    assert_int_equal(rtcosim_component_do_step(c, 5 * MS, MS, &r, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "but the model is at t=0"));
    rtcosim_component_free(c);
}

/* ---- Bad inputs ---- */

static void load_fails(const char *fmu, rtcosim_status expected, const char *expected_text)
{
    rtcosim_fmu_options o = {.interface_type = RTCOSIM_FMI_MODEL_EXCHANGE};
    rtcosim_component *c = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_fmu_load(fmu, &o, &c, &err), expected);
    assert_null(c);
    assert_non_null(strstr(err.message, fmu));
    if (!strstr(err.message, expected_text))
        fail_msg("'%s' lacks '%s'", err.message, expected_text);
    assert_null(strchr(err.message, '\n'));
}

static void fmu_without_model_exchange_element_is_refused(void **state)
{
    (void)state;
    load_fails(RTCOSIM_FMU_FEEDTHROUGH_FMI2, RTCOSIM_EUNSUPPORTED,
               "does not support model exchange (no ModelExchange element)");
    load_fails(RTCOSIM_FMU_FEEDTHROUGH_FMI3, RTCOSIM_EUNSUPPORTED,
               "does not support model exchange (no ModelExchange element)");
}

static void missing_model_exchange_function_is_named(void **state)
{
    (void)state;
    load_fails(RTCOSIM_FMU_DAHLQUISTNODERIVATIVES_FMI2, RTCOSIM_ENOTFOUND,
               "binary lacks fmi2GetDerivatives");
    load_fails(RTCOSIM_FMU_DAHLQUISTNODERIVATIVES_FMI3, RTCOSIM_ENOTFOUND,
               "binary lacks fmi3GetContinuousStateDerivatives");
}

static void co_simulation_component_has_no_solver_statistics(void **state)
{
    (void)state;
    rtcosim_component *c = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_fmu_load(RTCOSIM_FMU_DAHLQUIST_FMI2, NULL, &c, &err), RTCOSIM_OK);
    rtcosim_me_stats s;
    assert_int_equal(rtcosim_fmu_me_stats(c, &s, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "not a model-exchange FMU"));
    rtcosim_component_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dahlquist_fmi2_with_cvode_follows_exp),
        cmocka_unit_test(dahlquist_fmi3_with_cvode_follows_exp),
        cmocka_unit_test(dahlquist_with_euler_is_the_euler_recursion),
        cmocka_unit_test(ball_fmi2_first_impact_is_located_by_root_finding),
        cmocka_unit_test(ball_fmi3_first_impact_is_located_by_root_finding),
        cmocka_unit_test(apex_heights_scale_with_e_squared),
        cmocka_unit_test(euler_finds_the_impact_within_a_micro_step),
        cmocka_unit_test(restored_state_reruns_the_impact),
        cmocka_unit_test(step_from_the_wrong_time_is_refused),
        cmocka_unit_test(fmu_without_model_exchange_element_is_refused),
        cmocka_unit_test(missing_model_exchange_function_is_named),
        cmocka_unit_test(co_simulation_component_has_no_solver_statistics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
