/* Model-exchange FMUs integrated by rtcosim, against closed-form truth:
 * Dahlquist's x' = -k x is e^{-kt} (CVODE) and (1 - k dt)^n exactly (explicit
 * Euler); the bouncing ball first hits the ground at sqrt(2 h0 / |g|), and
 * after the k-th bounce its apex h + v^2 / (2|g|) is h0 e^{2k}. Also FMU state
 * snapshots, and the errors for FMUs that cannot be used for model exchange.
 * A small hand-written FMU (sawtooth_fmu.c, der(x) = 1) exercises time events,
 * step events and terminate requests, whose times are known exactly. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "util/test_util.h"
#include "fmi/model_description.h"
#include "rtcosim/fmu.h"
#include "rtcosim/simulate.h"
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

/* The state of one instance at 0.3 s, serialized and loaded into a second
 * instance that has run elsewhere: the second one then finds the same first
 * impact and the same post-impact trajectory (closed form), so the
 * integrator's time and event fields travel with the FMU's own bytes. */
static void serialized_state_moves_the_trajectory_to_another_instance(void **state)
{
    (void)state;
    rtcosim_component *a = start(RTCOSIM_FMU_BOUNCINGBALL_FMI2, RTCOSIM_ME_SOLVER_CVODE, 0, 1e-10);
    rtcosim_component *b = start(RTCOSIM_FMU_BOUNCINGBALL_FMI2, RTCOSIM_ME_SOLVER_CVODE, 0, 1e-10);
    rtcosim_error err;
    for (rtcosim_time_ns t = 0; t < 300 * MS; t += 10 * MS)
        step(a, t, 10 * MS);
    for (rtcosim_time_ns t = 0; t < 100 * MS; t += 10 * MS)
        step(b, t, 10 * MS);
    rtcosim_state sa = NULL, sb = NULL;
    assert_int_equal(rtcosim_component_get_state(a, &sa, &err), RTCOSIM_OK);
    size_t size = 0;
    assert_int_equal(rtcosim_component_serialized_state_size(a, sa, &size, &err), RTCOSIM_OK);
    uint8_t *bytes = malloc(size);
    assert_non_null(bytes);
    assert_int_equal(rtcosim_component_serialize_state(a, sa, bytes, size, &err), RTCOSIM_OK);
    /* Into b's own snapshot, in place. */
    assert_int_equal(rtcosim_component_get_state(b, &sb, &err), RTCOSIM_OK);
    rtcosim_state given = sb;
    assert_int_equal(rtcosim_component_deserialize_state(b, bytes, size, &sb, &err), RTCOSIM_OK);
    assert_ptr_equal(sb, given);
    assert_int_equal(rtcosim_component_set_state(b, sb, &err), RTCOSIM_OK);
    const double impact = sqrt(2 * H0 / G), dt = 0.6 - impact, v1 = E * G * impact;
    for (rtcosim_time_ns t = 300 * MS; t < 600 * MS; t += 10 * MS)
        step(b, t, 10 * MS);
    assert_float_equal(get(b, BALL_H), v1 * dt - 0.5 * G * dt * dt, 1e-6);
    assert_float_equal(get(b, BALL_V), v1 - G * dt, 1e-6);
    assert_float_equal(stats(b).last_event_time, impact, 1e-6);
    /* Foreign or damaged bytes are refused by name. */
    bytes[0] ^= 0xff;
    rtcosim_state bad = NULL;
    assert_int_equal(rtcosim_component_deserialize_state(b, bytes, size, &bad, &err),
                     RTCOSIM_EFORMAT);
    assert_non_null(strstr(err.message, "not a serialized model-exchange state"));
    assert_int_equal(rtcosim_component_deserialize_state(b, bytes, 8, &bad, &err),
                     RTCOSIM_EFORMAT);
    assert_non_null(strstr(err.message, "too short"));
    free(bytes);
    rtcosim_component_free_state(a, sa);
    rtcosim_component_free_state(b, sb);
    rtcosim_component_free(a);
    rtcosim_component_free(b);
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

/* ---- Time events, step events, terminate requests (sawtooth_fmu.c) ---- */

static char *sawtooth_dir;
static char sawtooth_fmu[1024];

static int make_sawtooth(void **state)
{
    (void)state;
    static const char xml[] =
        "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"Sawtooth\" guid=\"{saw}\" "
        "numberOfEventIndicators=\"0\">"
        "<ModelExchange modelIdentifier=\"Sawtooth\"/><ModelVariables>"
        "<ScalarVariable name=\"time\" valueReference=\"0\" causality=\"independent\"><Real/>"
        "</ScalarVariable>"
        "<ScalarVariable name=\"x\" valueReference=\"1\" causality=\"output\" initial=\"exact\">"
        "<Real start=\"0\"/></ScalarVariable>"
        "<ScalarVariable name=\"der(x)\" valueReference=\"2\"><Real derivative=\"2\"/>"
        "</ScalarVariable>"
        "<ScalarVariable name=\"period\" valueReference=\"3\" causality=\"parameter\" "
        "variability=\"fixed\"><Real start=\"0\"/></ScalarVariable>"
        "<ScalarVariable name=\"limit\" valueReference=\"4\" causality=\"parameter\" "
        "variability=\"fixed\"><Real start=\"0\"/></ScalarVariable>"
        "<ScalarVariable name=\"stop_at\" valueReference=\"5\" causality=\"parameter\" "
        "variability=\"fixed\"><Real start=\"0\"/></ScalarVariable>"
        "</ModelVariables><ModelStructure><Outputs><Unknown index=\"2\"/></Outputs>"
        "<Derivatives><Unknown index=\"3\"/></Derivatives></ModelStructure>"
        "</fmiModelDescription>";
    sawtooth_dir = tu_make_dir();
    snprintf(sawtooth_fmu, sizeof sawtooth_fmu, "%s", tu_path(sawtooth_dir, "Sawtooth.fmu"));
    const tu_entry entries[] = {{.name = "modelDescription.xml", .text = xml},
                                {.name = "binaries/linux64/Sawtooth.so", .file = SAWTOOTH_FMU_PATH}};
    tu_zip(sawtooth_fmu, entries, 2);
    return 0;
}

static int drop_sawtooth(void **state)
{
    (void)state;
    tu_drop_dir(sawtooth_dir);
    return 0;
}

static rtcosim_component *start_sawtooth(double period, double limit, double stop_at)
{
    rtcosim_fmu_options o = {.interface_type = RTCOSIM_FMI_MODEL_EXCHANGE};
    rtcosim_component *c = NULL;
    rtcosim_error err;
    if (rtcosim_fmu_load(sawtooth_fmu, &o, &c, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    const uint32_t vrs[] = {3, 4, 5};
    const double values[] = {period, limit, stop_at};
    assert_int_equal(rtcosim_component_instantiate(c, "saw", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_setup(c, 1e-8, 0, -1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, vrs, 3, values, &err),
                     RTCOSIM_OK);
    assert_int_equal(rtcosim_component_enter_init(c, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
    return c;
}

/* x = t - (last multiple of 0.25 s), and an event that falls on the end of a
 * step is handled within that step. */
static void time_events_reset_at_the_announced_times(void **state)
{
    (void)state;
    rtcosim_component *c = start_sawtooth(0.25, 0, 0);
    for (rtcosim_time_ns t = 0; t < 900 * MS; t += 100 * MS)
        step(c, t, 100 * MS);
    assert_float_equal(get(c, 1), 0.15, 1e-9);
    assert_int_equal(stats(c).time_events, 3);
    step(c, 900 * MS, 100 * MS);
    assert_float_equal(get(c, 1), 0.0, 1e-12);
    assert_int_equal(stats(c).time_events, 4);
    assert_float_equal(stats(c).last_event_time, 1.0, 1e-12);
    rtcosim_component_free(c);
}

/* rtcosim_simulate records each time event as fmusim and FMPy do: a row
 * before it and one after it at the same time (at a grid point the grid's
 * row is the one after). x = t - 0.3 k, grid 0.2 s. */
typedef struct saw_rows {
    int n;
    double t[16], x[16];
} saw_rows;

static rtcosim_status keep_saw_row(void *context, rtcosim_time_ns t, const rtcosim_value *values,
                                   size_t count, rtcosim_error *err)
{
    (void)err;
    saw_rows *r = context;
    assert_int_equal(count, 1);
    if (r->n < 16) {
        r->t[r->n] = rtcosim_time_to_seconds(t);
        r->x[r->n] = values[0].f64;
    }
    r->n++;
    return RTCOSIM_OK;
}

static void simulate_records_rows_before_and_after_time_events(void **state)
{
    (void)state;
    rtcosim_fmu_options fo = {.interface_type = RTCOSIM_FMI_MODEL_EXCHANGE};
    rtcosim_component *c = NULL;
    rtcosim_error err;
    if (rtcosim_fmu_load(sawtooth_fmu, &fo, &c, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    const rtcosim_start_value period = {"period", "0.3"};
    saw_rows rows = {0};
    rtcosim_simulate_options o = {.start_time = 0,
                                  .stop_time = S,
                                  .output_interval = 200 * MS,
                                  .tolerance = 1e-8,
                                  .start_values = &period,
                                  .start_value_count = 1,
                                  .on_row = keep_saw_row,
                                  .row_context = &rows};
    rtcosim_simulate_result res = {0};
    if (rtcosim_simulate(c, &o, &res, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    const double t[] = {0, 0.2, 0.3, 0.3, 0.4, 0.6, 0.6, 0.8, 0.9, 0.9, 1.0};
    const double x[] = {0, 0.2, 0.3, 0, 0.1, 0.3, 0, 0.2, 0.3, 0, 0.1};
    assert_int_equal(rows.n, 11);
    for (int i = 0; i < 11; i++) {
        assert_float_equal(rows.t[i], t[i], 1e-12);
        assert_float_equal(rows.x[i], x[i], 1e-9);
    }
    assert_int_equal(res.events, 3);
    rtcosim_component_free(c);
}

/* CompletedIntegratorStep asks for Event Mode once x > 0.3: at the end of the
 * step to 0.4 s, where the reset happens. */
static void step_event_is_handled_after_the_step(void **state)
{
    (void)state;
    rtcosim_component *c = start_sawtooth(0, 0.3, 0);
    for (rtcosim_time_ns t = 0; t < 400 * MS; t += 100 * MS)
        step(c, t, 100 * MS);
    assert_int_equal(stats(c).step_events, 1);
    assert_float_equal(get(c, 1), 0.0, 1e-12);
    step(c, 400 * MS, 100 * MS);
    assert_float_equal(get(c, 1), 0.1, 1e-9);
    rtcosim_component_free(c);
}

/* terminateSimulation at 0.65 s ends the step from 0.5 s there. */
static void terminate_request_ends_the_step_early(void **state)
{
    (void)state;
    rtcosim_component *c = start_sawtooth(0, 0, 0.65);
    step(c, 0, 500 * MS);
    rtcosim_error err;
    rtcosim_step_result r;
    assert_int_equal(rtcosim_component_do_step(c, 500 * MS, 500 * MS, &r, &err), RTCOSIM_OK);
    assert_true(r.terminate_requested);
    assert_true(r.early_return);
    assert_int_equal(r.last_successful_time, 650 * MS);
    assert_float_equal(get(c, 1), 0.65, 1e-9);
    /* Stepping on regardless is refused with the reason. */
    assert_int_equal(rtcosim_component_do_step(c, 650 * MS, 100 * MS, &r, &err), RTCOSIM_ESTATE);
    assert_non_null(strstr(err.message, "asked to terminate at t=0.65"));
    rtcosim_component_free(c);
}

/* ---- The ModelExchange facts of modelDescription.xml ---- */

#define FMI3_ME_HEADER                                                                     \
    "<fmiModelDescription fmiVersion=\"3.0\" modelName=\"M\" instantiationToken=\"t\">"     \
    "<ModelExchange modelIdentifier=\"m\" needsCompletedIntegratorStep=\"true\"/>"         \
    "<ModelVariables><Float64 name=\"time\" valueReference=\"0\" causality=\"independent\"/>" \
    "<Float64 name=\"x\" valueReference=\"1\" start=\"1\" initial=\"exact\"/>"             \
    "<Float64 name=\"dx\" valueReference=\"2\" derivative=\"1\"/>"                         \
    "<Float64 name=\"z\" valueReference=\"3\"/></ModelVariables><ModelStructure>"

static void state_and_indicator_counts_come_from_model_structure(void **state)
{
    (void)state;
    static const char xml[] = FMI3_ME_HEADER
        "<ContinuousStateDerivative valueReference=\"2\"/>"
        "<EventIndicator valueReference=\"3\"/><EventIndicator valueReference=\"1\"/>"
        "</ModelStructure></fmiModelDescription>";
    rtcosim_fmi_md *md = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_fmi_md_parse_for(xml, sizeof xml - 1, NULL,
                                              RTCOSIM_FMI_MD_MODEL_EXCHANGE, &md, &err),
                     RTCOSIM_OK);
    assert_int_equal(md->state_count, 1);
    assert_int_equal(md->event_indicator_count, 2);
    assert_string_equal(md->me_model_identifier, "m");
    assert_true(md->me_needs_completed_integrator_step);
    rtcosim_fmi_md_free(md);
    /* Co-simulation is still required by the plain parse. */
    assert_int_equal(rtcosim_fmi_md_parse(xml, sizeof xml - 1, NULL, &md, &err),
                     RTCOSIM_EUNSUPPORTED);
    assert_non_null(strstr(err.message, "no CoSimulation element"));
}

static void derivative_without_a_state_is_refused(void **state)
{
    (void)state;
    static const char xml[] = FMI3_ME_HEADER
        "<ContinuousStateDerivative valueReference=\"3\"/></ModelStructure></fmiModelDescription>";
    rtcosim_fmi_md *md = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_fmi_md_parse_for(xml, sizeof xml - 1, NULL,
                                              RTCOSIM_FMI_MD_MODEL_EXCHANGE, &md, &err),
                     RTCOSIM_EFORMAT);
    assert_non_null(strstr(err.message, "ModelStructure derivative '3' refers to no variable"));
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
        cmocka_unit_test(serialized_state_moves_the_trajectory_to_another_instance),
        cmocka_unit_test(step_from_the_wrong_time_is_refused),
        cmocka_unit_test(fmu_without_model_exchange_element_is_refused),
        cmocka_unit_test(missing_model_exchange_function_is_named),
        cmocka_unit_test(co_simulation_component_has_no_solver_statistics),
        cmocka_unit_test(state_and_indicator_counts_come_from_model_structure),
        cmocka_unit_test(derivative_without_a_state_is_refused),
        cmocka_unit_test_setup_teardown(time_events_reset_at_the_announced_times, make_sawtooth,
                                        drop_sawtooth),
        cmocka_unit_test_setup_teardown(step_event_is_handled_after_the_step, make_sawtooth,
                                        drop_sawtooth),
        cmocka_unit_test_setup_teardown(simulate_records_rows_before_and_after_time_events,
                                        make_sawtooth, drop_sawtooth),
        cmocka_unit_test_setup_teardown(terminate_request_ends_the_step_early, make_sawtooth,
                                        drop_sawtooth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
