/* Inputs of model-exchange FMUs and the events they make. FMI 2.0 section
 * 3.2.3 and FMI 3.0 section 3.2.3 let an importer set only continuous inputs
 * in Continuous-Time Mode; a discrete input changes at an event. The
 * project's FeedthroughME FMU refuses a discrete set in Continuous-Time Mode
 * as the Reference FMUs do, so each test below would fail on an integrator
 * that passed the set through. Truth: output == input at once (feedthrough),
 * and an event's row before it holds the values before the set. The
 * Integrator FMU (der(x) = u) shows how continuous inputs reach the solver,
 * against x = t^2 for u = 2t and Euler's sums by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/fmu.h"
#include "rtcosim/simulate.h"
#include "rtcosim_test_fmus.h"
#include "util/test_util.h"

#define MS RTCOSIM_NS_PER_MS

typedef struct observed {
    rtcosim_component *c;
    int before, after;
    double time[8];
    double discrete_out[8]; /* Float64_discrete_output as the observer saw it */
} observed;

static uint32_t vr_of(rtcosim_component *c, const char *name)
{
    const rtcosim_variable *v = rtcosim_component_find_variable(c, name);
    if (!v)
        fail_msg("no variable %s", name);
    return v->value_reference;
}

static double get_f64(rtcosim_component *c, const char *name)
{
    uint32_t vr = vr_of(c, name);
    double x = NAN;
    rtcosim_error err;
    if (rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &vr, 1, &x, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    return x;
}

static void set_f64(rtcosim_component *c, const char *name, double x)
{
    uint32_t vr = vr_of(c, name);
    rtcosim_error err;
    if (rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &vr, 1, &x, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
}

static rtcosim_status observe(void *context, double time, bool after, rtcosim_error *err)
{
    (void)err;
    observed *o = context;
    int k = o->before + o->after;
    if (k < 8) {
        o->time[k] = time;
        o->discrete_out[k] = get_f64(o->c, "Float64_discrete_output");
    }
    if (after)
        o->after++;
    else
        o->before++;
    return RTCOSIM_OK;
}

static rtcosim_component *start(const char *fmu, observed *o)
{
    rtcosim_fmu_options opts = {.interface_type = RTCOSIM_FMI_MODEL_EXCHANGE};
    rtcosim_component *c = NULL;
    rtcosim_error err;
    if (rtcosim_fmu_load(fmu, &opts, &c, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    *o = (observed){.c = c};
    assert_int_equal(rtcosim_fmu_me_observe_events(c, observe, o, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_instantiate(c, "ft", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_setup(c, 0, 0, -1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_enter_init(c, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
    return c;
}

static void step(rtcosim_component *c, rtcosim_time_ns t, rtcosim_time_ns h)
{
    rtcosim_error err;
    rtcosim_step_result r;
    if (rtcosim_component_do_step(c, t, h, &r, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
}

static uint64_t input_events(rtcosim_component *c)
{
    rtcosim_me_stats s;
    rtcosim_error err;
    assert_int_equal(rtcosim_fmu_me_stats(c, &s, &err), RTCOSIM_OK);
    return s.input_events;
}

/* A changed discrete input is one event: the observer sees the old output
 * before it and the new one after it, at the time reached. */
static void discrete_input_change_is_an_input_event(const char *fmu)
{
    observed o;
    rtcosim_component *c = start(fmu, &o);
    step(c, 0, 100 * MS);
    set_f64(c, "Float64_discrete_input", 2.5);
    assert_int_equal(o.before, 1);
    assert_float_equal(o.time[0], 0.1, 1e-15);
    assert_float_equal(o.discrete_out[0], 0.0, 0.0);
    assert_float_equal(get_f64(c, "Float64_discrete_output"), 2.5, 0.0);
    assert_int_equal(o.after, 1);
    assert_float_equal(o.discrete_out[1], 2.5, 0.0);
    assert_int_equal(input_events(c), 1);

    /* The same value again, or a continuous input alone: no event. */
    set_f64(c, "Float64_discrete_input", 2.5);
    set_f64(c, "Float64_continuous_input", 7.0);
    step(c, 100 * MS, 100 * MS);
    assert_int_equal(o.before + o.after, 2);
    assert_int_equal(input_events(c), 1);
    assert_float_equal(get_f64(c, "Float64_continuous_output"), 7.0, 0.0);
    rtcosim_component_free(c);
}

static void fmi2_discrete_input_change_is_an_input_event(void **state)
{
    (void)state;
    discrete_input_change_is_an_input_event(RTCOSIM_FMU_FEEDTHROUGHME_FMI2);
}

static void fmi3_discrete_input_change_is_an_input_event(void **state)
{
    (void)state;
    discrete_input_change_is_an_input_event(RTCOSIM_FMU_FEEDTHROUGHME_FMI3);
}

/* Inputs of several types changing at one instant make one event; a set
 * holding a continuous and a changed discrete input goes in whole. */
static void inputs_of_one_instant_make_one_event(void **state)
{
    (void)state;
    observed o;
    rtcosim_component *c = start(RTCOSIM_FMU_FEEDTHROUGHME_FMI3, &o);
    step(c, 0, 50 * MS);
    rtcosim_error err;
    const uint32_t f64[] = {vr_of(c, "Float64_continuous_input"), vr_of(c, "Float64_discrete_input")};
    const double values[] = {1.5, -4.0};
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, f64, 2, values, &err),
                     RTCOSIM_OK);
    const uint32_t i32 = vr_of(c, "Int32_input");
    const int32_t seven = 7;
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_INT32, &i32, 1, &seven, &err),
                     RTCOSIM_OK);
    const uint32_t str = vr_of(c, "String_input");
    const char *text = "abc";
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_STRING, &str, 1, &text, &err),
                     RTCOSIM_OK);
    assert_int_equal(o.before, 1);
    assert_int_equal(o.after, 0);
    int32_t out = 0;
    const uint32_t i32_out = vr_of(c, "Int32_output");
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_INT32, &i32_out, 1, &out, &err),
                     RTCOSIM_OK);
    assert_int_equal(out, 7);
    assert_int_equal(o.after, 1);
    assert_int_equal(input_events(c), 1);
    assert_float_equal(get_f64(c, "Float64_discrete_output"), -4.0, 0.0);
    assert_float_equal(get_f64(c, "Float64_continuous_output"), 1.5, 0.0);

    /* The same string again (another buffer): no event. */
    char again[] = "abc";
    const char *again_p = again;
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_STRING, &str, 1, &again_p, &err),
                     RTCOSIM_OK);
    step(c, 50 * MS, 50 * MS);
    assert_int_equal(input_events(c), 1);
    rtcosim_component_free(c);
}

/* A restored state holds the inputs of its time again, so setting the value
 * set after the snapshot is a change once more, and setting the one it holds
 * is none (the wrapper used to forget every value at a restore, so that the
 * same value made an input event). */
static void restored_state_makes_the_next_set_an_event(void **state)
{
    (void)state;
    observed o;
    rtcosim_component *c = start(RTCOSIM_FMU_FEEDTHROUGHME_FMI2, &o);
    rtcosim_error err;
    rtcosim_state snapshot = NULL;
    set_f64(c, "Float64_discrete_input", 1.0);
    assert_int_equal(rtcosim_component_get_state(c, &snapshot, &err), RTCOSIM_OK);
    set_f64(c, "Float64_discrete_input", 3.0);
    assert_float_equal(get_f64(c, "Float64_discrete_output"), 3.0, 0.0);
    assert_int_equal(rtcosim_component_set_state(c, snapshot, &err), RTCOSIM_OK);
    assert_float_equal(get_f64(c, "Float64_discrete_output"), 1.0, 0.0);
    set_f64(c, "Float64_discrete_input", 1.0);
    assert_int_equal(input_events(c), 2);
    set_f64(c, "Float64_discrete_input", 3.0);
    assert_float_equal(get_f64(c, "Float64_discrete_output"), 3.0, 0.0);
    assert_int_equal(input_events(c), 3);
    rtcosim_component_free_state(c, snapshot);
    rtcosim_component_free(c);
}

/* rtcosim_simulate from an input table whose discrete column changes off
 * the output grid (0.03 s, grid 0.02 s) and whose continuous one jumps there
 * (1 -> 2): the step ends at 0.03 s, a row before the event (continuous
 * input as it reaches 0.03 s from before: 1; discrete still 0) and one after
 * it (2 and 5), as fmusim records an input event; then the grid goes on. */
typedef struct kept_rows {
    int n;
    double row[8][3]; /* time, the two outputs */
} kept_rows;

static rtcosim_status keep_row(void *context, rtcosim_time_ns t, const rtcosim_value *values,
                               size_t count, rtcosim_error *err)
{
    (void)err;
    kept_rows *k = context;
    assert_int_equal(count, 2);
    if (k->n < 8) {
        k->row[k->n][0] = rtcosim_time_to_seconds(t);
        k->row[k->n][1] = values[0].f64;
        k->row[k->n][2] = values[1].f64;
    }
    k->n++;
    return RTCOSIM_OK;
}

static void simulate_records_an_input_event_off_the_grid(void **state)
{
    (void)state;
    rtcosim_csv *table = tu_csv("time,Float64_continuous_input,Float64_discrete_input\n"
                                "0,0,0\n0.03,1,0\n0.03,2,5\n0.06,2,5\n");
    rtcosim_error err;
    rtcosim_fmu_options fo = {.interface_type = RTCOSIM_FMI_MODEL_EXCHANGE};
    rtcosim_component *c = NULL;
    if (rtcosim_fmu_load(RTCOSIM_FMU_FEEDTHROUGHME_FMI3, &fo, &c, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    static const char *const outputs[] = {"Float64_continuous_output", "Float64_discrete_output"};
    kept_rows rows = {0};
    rtcosim_simulate_options o = {.start_time = 0,
                                  .stop_time = 60 * MS,
                                  .output_interval = 20 * MS,
                                  .input = table,
                                  .output_variables = outputs,
                                  .output_variable_count = 2,
                                  .on_row = keep_row,
                                  .row_context = &rows};
    rtcosim_simulate_result res = {0};
    if (rtcosim_simulate(c, &o, &res, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    const double expect[6][3] = {{0, 0, 0},    {0.02, 2.0 / 3, 0}, {0.03, 1, 0},
                                 {0.03, 2, 5}, {0.04, 2, 5},       {0.06, 2, 5}};
    assert_int_equal(rows.n, 6);
    for (int i = 0; i < 6; i++)
        for (int k = 0; k < 3; k++)
            assert_float_equal(rows.row[i][k], expect[i][k], 1e-12);
    assert_int_equal(res.events, 1);
    rtcosim_component_free(c);
    rtcosim_csv_free(table);
}

/* The Integrator FMU (der(x) = u) under rtcosim_simulate with an input
 * table: rows (time, x, u). */
typedef struct integrator_run {
    int n;
    double row[12][3];
    uint64_t events;
} integrator_run;

static rtcosim_status keep_integrator_row(void *context, rtcosim_time_ns t,
                                          const rtcosim_value *values, size_t count,
                                          rtcosim_error *err)
{
    (void)err;
    integrator_run *k = context;
    assert_int_equal(count, 2);
    if (k->n < 12) {
        k->row[k->n][0] = rtcosim_time_to_seconds(t);
        k->row[k->n][1] = values[0].f64;
        k->row[k->n][2] = values[1].f64;
    }
    k->n++;
    return RTCOSIM_OK;
}

static integrator_run run_integrator(const char *fmu, rtcosim_me_solver solver, const char *csv)
{
    rtcosim_csv *table = tu_csv(csv);
    rtcosim_fmu_options fo = {.interface_type = RTCOSIM_FMI_MODEL_EXCHANGE, .solver = solver};
    rtcosim_component *c = NULL;
    rtcosim_error err;
    if (rtcosim_fmu_load(fmu, &fo, &c, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    static const char *const outputs[] = {"x", "u"};
    integrator_run k = {0};
    rtcosim_simulate_options o = {.start_time = 0,
                                  .stop_time = 1000 * MS,
                                  .output_interval = 250 * MS,
                                  .tolerance = 1e-10,
                                  .input = table,
                                  .output_variables = outputs,
                                  .output_variable_count = 2,
                                  .on_row = keep_integrator_row,
                                  .row_context = &k};
    rtcosim_simulate_result res = {0};
    if (rtcosim_simulate(c, &o, &res, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    k.events = res.events;
    rtcosim_component_free(c);
    rtcosim_csv_free(table);
    return k;
}

/* u = 2t: x = t^2 exactly. The solver sees u at every time it evaluates
 * (fmusim's CVODE applies its input file so); holding u over the 0.25 s
 * steps would give x(1) = 0.75 (the Euler sum below). */
static void continuous_input_is_interpolated_inside_the_step(void **state)
{
    (void)state;
    const char *fmus[] = {RTCOSIM_FMU_INTEGRATOR_FMI2, RTCOSIM_FMU_INTEGRATOR_FMI3};
    for (int f = 0; f < 2; f++) {
        integrator_run k = run_integrator(fmus[f], RTCOSIM_ME_SOLVER_CVODE, "time,u\n0,0\n1,2\n");
        assert_int_equal(k.n, 5);
        for (int i = 0; i < 5; i++) {
            double t = 0.25 * i;
            assert_float_equal(k.row[i][0], t, 1e-15);
            assert_float_equal(k.row[i][1], t * t, 1e-7);
            assert_float_equal(k.row[i][2], 2 * t, 1e-15);
        }
        assert_int_equal(k.events, 0);
    }
}

/* Explicit Euler takes u at each step's start, as fmusim's Euler does:
 * x_n = sum of 0.25 * 2 t_i over the steps before, 0, 0.125, 0.375, 0.75. */
static void euler_takes_the_input_at_the_step_start(void **state)
{
    (void)state;
    integrator_run k =
        run_integrator(RTCOSIM_FMU_INTEGRATOR_FMI2, RTCOSIM_ME_SOLVER_EULER, "time,u\n0,0\n1,2\n");
    const double x[] = {0, 0, 0.125, 0.375, 0.75};
    assert_int_equal(k.n, 5);
    for (int i = 0; i < 5; i++)
        assert_float_equal(k.row[i][1], x[i], 1e-15);
}

/* u jumps from 1 to 3 at 0.5 s: an input event there (two rows, u before
 * and after the jump, x continuous), x = t, then 0.5 + 3 (t - 0.5); fmusim
 * writes these rows for this FMU and table, with CVODE and Euler. */
static void jump_of_a_continuous_input_is_an_input_event(void **state)
{
    (void)state;
    const double expect[6][3] = {{0, 0, 1},      {0.25, 0.25, 1}, {0.5, 0.5, 1},
                                 {0.5, 0.5, 3},  {0.75, 1.25, 3}, {1, 2, 3}};
    for (int solver = 0; solver < 2; solver++) {
        integrator_run k = run_integrator(
            RTCOSIM_FMU_INTEGRATOR_FMI3, solver ? RTCOSIM_ME_SOLVER_EULER : RTCOSIM_ME_SOLVER_CVODE,
            "time,u\n0,1\n0.5,1\n0.5,3\n1,3\n");
        assert_int_equal(k.n, 6);
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 3; j++)
                assert_float_equal(k.row[i][j], expect[i][j], 1e-8);
        assert_int_equal(k.events, 1);
    }
}

/* A tunable parameter changed while running (Dahlquist's k) is an input
 * event too (Event Mode): x = e^-0.5 at 0.5 s with k = 1, then
 * e^-0.5 e^-3(t - 0.5), e^-2 at 1 s. (FMI 1.0 has no tunable parameters.) */
static void tunable_parameter_change_takes_effect_at_an_event(void **state)
{
    (void)state;
    const char *fmus[] = {RTCOSIM_FMU_DAHLQUIST_FMI2, RTCOSIM_FMU_DAHLQUIST_FMI3};
    for (int f = 0; f < 2; f++) {
        rtcosim_fmu_options opts = {.interface_type = RTCOSIM_FMI_MODEL_EXCHANGE};
        rtcosim_component *c = NULL;
        rtcosim_error err;
        if (rtcosim_fmu_load(fmus[f], &opts, &c, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        assert_int_equal(rtcosim_component_instantiate(c, "d", &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_component_setup(c, 1e-10, 0, -1, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_component_enter_init(c, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
        step(c, 0, 500 * MS);
        assert_float_equal(get_f64(c, "x"), exp(-0.5), 1e-7);
        set_f64(c, "k", 3.0);
        step(c, 500 * MS, 500 * MS);
        assert_float_equal(get_f64(c, "x"), exp(-2.0), 1e-7);
        assert_int_equal(input_events(c), 1);
        rtcosim_component_free(c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fmi2_discrete_input_change_is_an_input_event),
        cmocka_unit_test(fmi3_discrete_input_change_is_an_input_event),
        cmocka_unit_test(inputs_of_one_instant_make_one_event),
        cmocka_unit_test(restored_state_makes_the_next_set_an_event),
        cmocka_unit_test(simulate_records_an_input_event_off_the_grid),
        cmocka_unit_test(continuous_input_is_interpolated_inside_the_step),
        cmocka_unit_test(euler_takes_the_input_at_the_step_start),
        cmocka_unit_test(jump_of_a_continuous_input_is_an_input_event),
        cmocka_unit_test(tunable_parameter_change_takes_effect_at_an_event),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
