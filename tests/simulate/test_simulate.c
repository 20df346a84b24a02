/* The single-component run against a native integrator whose results are
 * computed by hand: y(t_k+1) = y(t_k) + k * u(t_k) * h (explicit Euler with
 * the input held over the step), inputs from CSV, start values, output
 * selection, decimation, a shortened last step, a component asking to stop,
 * and a failing step that keeps the rows recorded before it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/simulate.h"
#include "util/test_util.h"

enum { VR_U, VR_K, VR_Y, VR_COUNT, VR_ODD, VR_MODE, VR_MODE_SEEN, VR_FAIL_AT, VR_STOP_AT,
       VR_NAME, VR_CALC, VR_EARLY_AT };

typedef struct integrator {
    double u, k, y, fail_at, stop_at, early_at;
    int32_t count, mode, mode_seen;
} integrator;

static rtcosim_status integ_step(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                 rtcosim_step_result *r, rtcosim_error *err)
{
    integrator *s = self;
    double ts = (double)t / 1e9, hs = (double)h / 1e9;
    if (s->fail_at >= 0 && ts >= s->fail_at)
        return rtcosim_error_set(err, RTCOSIM_ECOMPONENT, "integrator asked to fail at %g s", ts);
    /* Return early (FMI 3.0 early return) when the step crosses early_at. */
    rtcosim_time_ns early = (rtcosim_time_ns)(s->early_at * 1e9 + 0.5);
    if (s->early_at >= 0 && t < early && early < t + h) {
        hs = (double)(early - t) / 1e9;
        r->early_return = true;
        r->last_successful_time = early;
    }
    s->y += s->k * s->u * hs;
    s->count++;
    if (s->stop_at >= 0 && (double)(t + h) / 1e9 >= s->stop_at)
        r->terminate_requested = true;
    return RTCOSIM_OK;
}

static double *real_at(integrator *s, uint32_t vr)
{
    switch (vr) {
    case VR_U: return &s->u;
    case VR_K: return &s->k;
    case VR_Y: return &s->y;
    case VR_FAIL_AT: return &s->fail_at;
    case VR_STOP_AT: return &s->stop_at;
    case VR_EARLY_AT: return &s->early_at;
    default: return NULL;
    }
}

static int32_t *int_at(integrator *s, uint32_t vr)
{
    return vr == VR_COUNT ? &s->count : vr == VR_MODE ? &s->mode : vr == VR_MODE_SEEN ? &s->mode_seen : NULL;
}

static rtcosim_status integ_get(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                                void *values, rtcosim_error *err)
{
    integrator *s = self;
    for (size_t i = 0; i < n; i++) {
        if (type == RTCOSIM_TYPE_FLOAT64 && real_at(s, vrs[i]))
            ((double *)values)[i] = *real_at(s, vrs[i]);
        else if (type == RTCOSIM_TYPE_INT32 && int_at(s, vrs[i]))
            ((int32_t *)values)[i] = *int_at(s, vrs[i]);
        else if (type == RTCOSIM_TYPE_BOOLEAN && vrs[i] == VR_ODD)
            ((bool *)values)[i] = s->count % 2 == 1;
        else if (type == RTCOSIM_TYPE_STRING && vrs[i] == VR_NAME)
            ((const char **)values)[i] = "integ";
        else
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "no %s variable %u", rtcosim_type_name(type), vrs[i]);
    }
    return RTCOSIM_OK;
}

static rtcosim_status integ_set(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                                const void *values, rtcosim_error *err)
{
    integrator *s = self;
    for (size_t i = 0; i < n; i++) {
        if (type == RTCOSIM_TYPE_FLOAT64 && real_at(s, vrs[i]))
            *real_at(s, vrs[i]) = ((const double *)values)[i];
        else if (type == RTCOSIM_TYPE_INT32 && vrs[i] == VR_MODE)
            s->mode = s->mode_seen = ((const int32_t *)values)[i];
        else
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "cannot set %u", vrs[i]);
    }
    return RTCOSIM_OK;
}

static void integ_destroy(void *self)
{
    free(self);
}

static const rtcosim_component_ops integ_ops = {
    .kind = "native", .do_step = integ_step, .get = integ_get, .set = integ_set,
    .destroy = integ_destroy,
};

#define VAR(n, vr_, ty, caus, var, init) \
    {.name = n, .value_reference = vr_, .type = RTCOSIM_TYPE_##ty, \
     .causality = RTCOSIM_CAUSALITY_##caus, .variability = RTCOSIM_VARIABILITY_##var, \
     .initial = RTCOSIM_INITIAL_##init, .derivative_of = -1}

static const rtcosim_variable integ_vars[] = {
    VAR("u", VR_U, FLOAT64, INPUT, CONTINUOUS, NONE),
    VAR("k", VR_K, FLOAT64, PARAMETER, FIXED, EXACT),
    VAR("y", VR_Y, FLOAT64, OUTPUT, CONTINUOUS, CALCULATED),
    VAR("count", VR_COUNT, INT32, OUTPUT, DISCRETE, CALCULATED),
    VAR("odd", VR_ODD, BOOLEAN, OUTPUT, DISCRETE, CALCULATED),
    VAR("mode", VR_MODE, INT32, INPUT, DISCRETE, NONE),
    VAR("mode_seen", VR_MODE_SEEN, INT32, OUTPUT, DISCRETE, CALCULATED),
    VAR("fail_at", VR_FAIL_AT, FLOAT64, PARAMETER, FIXED, EXACT),
    VAR("stop_at", VR_STOP_AT, FLOAT64, PARAMETER, FIXED, EXACT),
    VAR("name", VR_NAME, STRING, OUTPUT, CONSTANT, EXACT),
    VAR("calc", VR_CALC, FLOAT64, CALCULATED_PARAMETER, FIXED, CALCULATED),
    VAR("early_at", VR_EARLY_AT, FLOAT64, PARAMETER, FIXED, EXACT),
};

static rtcosim_component *make_integrator_with(const rtcosim_component_desc *experiment)
{
    integrator *s = calloc(1, sizeof *s);
    s->k = 1;
    s->fail_at = -1;
    s->stop_at = -1;
    s->early_at = -1;
    rtcosim_component_desc desc = {0};
    if (experiment)
        desc = *experiment;
    desc.model_name = "Integrator";
    desc.variables = integ_vars;
    desc.variable_count = sizeof integ_vars / sizeof integ_vars[0];
    rtcosim_component *c = NULL;
    assert_int_equal(rtcosim_component_create(&integ_ops, s, &desc, &c, NULL), RTCOSIM_OK);
    return c;
}

static rtcosim_component *make_integrator(void)
{
    return make_integrator_with(NULL);
}

static rtcosim_simulate_options base_options(const char *out)
{
    rtcosim_simulate_options o = {.instance_name = "integrator", .start_time = 0,
                                  .stop_time = 2 * RTCOSIM_NS_PER_S,
                                  .output_interval = RTCOSIM_NS_PER_S / 2, .output_file = out};
    return o;
}

/* Start values to apply and outputs to record. */
static void set_io(rtcosim_simulate_options *o, const rtcosim_start_value *start_values,
                   size_t start_value_count, const char **outputs, size_t output_count)
{
    o->start_values = start_values;
    o->start_value_count = start_value_count;
    o->output_variables = outputs;
    o->output_variable_count = output_count;
}

static void integrates_a_csv_ramp_as_hand_computed(void **state)
{
    (void)state;
    rtcosim_component *c = make_integrator();
    rtcosim_csv *in = tu_csv("time,u\n0,0\n2,2\n"); /* u(t) = t */
    rtcosim_simulate_options o = base_options(tu_scratch("sim_ramp.csv"));
    o.input = in;
    rtcosim_simulate_result res = {0};
    rtcosim_error err;
    assert_int_equal(rtcosim_simulate(c, &o, &res, &err), RTCOSIM_OK);
    assert_int_equal(res.steps, 4);
    assert_int_equal(res.rows_written, 5);
    assert_int_equal(res.end_time, 2 * RTCOSIM_NS_PER_S);
    /* y_k+1 = y_k + t_k * 0.5: 0, 0, 0.25, 0.75, 1.5 */
    assert_string_equal(tu_read_file(tu_scratch("sim_ramp.csv"), NULL),
                        "\"time\",\"y\",\"count\",\"odd\",\"mode_seen\",\"name\"\n"
                        "0,0,0,0,0,\"integ\"\n"
                        "0.5,0,1,1,0,\"integ\"\n"
                        "1,0.25,2,0,0,\"integ\"\n"
                        "1.5,0.75,3,1,0,\"integ\"\n"
                        "2,1.5,4,0,0,\"integ\"\n");
    rtcosim_csv_free(in);
    rtcosim_component_free(c);
}

static void start_values_set_parameters_and_inputs(void **state)
{
    (void)state;
    rtcosim_component *c = make_integrator();
    rtcosim_start_value sv[] = {{"k", "2"}, {"u", "1.5"}};
    rtcosim_simulate_options o = base_options(NULL);
    o.start_values = sv;
    o.start_value_count = 2;
    rtcosim_value final[5];
    rtcosim_simulate_result res = {.final_values = final, .final_capacity = 5};
    rtcosim_error err;
    assert_int_equal(rtcosim_simulate(c, &o, &res, &err), RTCOSIM_OK);
    assert_int_equal(res.output_count, 5);
    assert_int_equal(res.rows_written, 0);
    assert_true(final[0].f64 == 6.0); /* 2 * 1.5 * 2 s */
    assert_int_equal(final[1].i64, 4);
    rtcosim_component_free(c);
}

static void expect_start_value_error(const char *name, const char *value, rtcosim_status status,
                                     const char *message)
{
    rtcosim_component *c = make_integrator();
    rtcosim_start_value sv = {name, value};
    rtcosim_simulate_options o = base_options(NULL);
    o.start_values = &sv;
    o.start_value_count = 1;
    rtcosim_error err;
    assert_int_equal(rtcosim_simulate(c, &o, NULL, &err), status);
    if (!strstr(err.message, message))
        fail_msg("message '%s' lacks '%s'", err.message, message);
    rtcosim_component_free(c);
}

static void bad_start_values_are_rejected_naming_the_variable(void **state)
{
    (void)state;
    expect_start_value_error("nope", "1", RTCOSIM_ENOTFOUND,
                             "start value 'nope': model 'Integrator' has no such variable");
    expect_start_value_error("k", "abc", RTCOSIM_EINVAL, "start value 'k': 'abc' is not a valid");
    expect_start_value_error("mode", "1.5", RTCOSIM_EINVAL, "start value 'mode': ");
    expect_start_value_error("y", "1", RTCOSIM_EINVAL, "start value 'y': cannot be set: it is an output");
    expect_start_value_error("calc", "1", RTCOSIM_EINVAL, "start value 'calc': cannot be set: it is a calculated");
    expect_start_value_error("name", "x", RTCOSIM_EINVAL, "start value 'name': cannot be set");
}

static void chosen_output_variables_are_recorded_in_order(void **state)
{
    (void)state;
    rtcosim_component *c = make_integrator();
    rtcosim_csv *in = tu_csv("time,u\n0,0\n2,2\n");
    const char *outs[] = {"count", "u"};
    rtcosim_simulate_options o = base_options(tu_scratch("sim_select.csv"));
    o.input = in;
    o.output_variables = outs;
    o.output_variable_count = 2;
    rtcosim_error err;
    assert_int_equal(rtcosim_simulate(c, &o, NULL, &err), RTCOSIM_OK);
    /* A row is taken right after the step, before the inputs of its time
     * are set (fmusim, FMPy): u shows the value of the step's start. */
    assert_string_equal(tu_read_file(tu_scratch("sim_select.csv"), NULL),
                        "\"time\",\"count\",\"u\"\n"
                                                     "0,0,0\n0.5,1,0\n1,2,0.5\n1.5,3,1\n2,4,1.5\n");
    rtcosim_component_free(c);

    c = make_integrator();
    const char *unknown[] = {"y", "nope"};
    o.output_variables = unknown;
    assert_int_equal(rtcosim_simulate(c, &o, NULL, &err), RTCOSIM_ENOTFOUND);
    assert_non_null(strstr(err.message, "output variable 'nope'"));
    rtcosim_component_free(c);
    rtcosim_csv_free(in);
}

static void integer_inputs_are_held_between_rows(void **state)
{
    (void)state;
    rtcosim_component *c = make_integrator();
    rtcosim_csv *in = tu_csv("time,mode\n0,1\n0.6,7\n");
    const char *outs[] = {"mode_seen"};
    rtcosim_simulate_options o = base_options(tu_scratch("sim_hold.csv"));
    o.stop_time = RTCOSIM_NS_PER_S;
    o.output_interval = RTCOSIM_NS_PER_S / 4;
    o.input = in;
    o.output_variables = outs;
    o.output_variable_count = 1;
    rtcosim_error err;
    assert_int_equal(rtcosim_simulate(c, &o, NULL, &err), RTCOSIM_OK);
    /* mode 7 from 0.6 s is set at the first communication point at or
     * after it (0.75 s; this component takes no shorter step) and seen in
     * the row after that step. */
    assert_string_equal(tu_read_file(tu_scratch("sim_hold.csv"), NULL),
                        "\"time\",\"mode_seen\"\n0,1\n0.25,1\n0.5,1\n0.75,1\n1,7\n");
    rtcosim_csv_free(in);
    rtcosim_component_free(c);
}

static void expect_input_error(const char *csv, const char *message)
{
    rtcosim_component *c = make_integrator();
    rtcosim_csv *in = tu_csv(csv);
    rtcosim_simulate_options o = base_options(NULL);
    o.input = in;
    rtcosim_error err;
    assert_int_not_equal(rtcosim_simulate(c, &o, NULL, &err), RTCOSIM_OK);
    if (!strstr(err.message, message))
        fail_msg("message '%s' lacks '%s'", err.message, message);
    rtcosim_csv_free(in);
    rtcosim_component_free(c);
}

static void bad_input_columns_are_rejected_with_file_and_line(void **state)
{
    (void)state;
    expect_input_error("time,v\n0,1\n", "in.csv: column 'v': model 'Integrator' has no such variable");
    expect_input_error("time,k\n0,1\n", "in.csv: column 'k': variable is not an input");
    expect_input_error("time,mode\n0,1\n1,2.5\n", "in.csv:3: column 'mode': 2.5 is not a valid Int32 value");
    expect_input_error("time,mode\n0,3e9\n", "in.csv:2: column 'mode': 3000000000 is not a valid Int32");
}

static void last_step_is_shortened_to_end_at_stop_and_decimation_keeps_it(void **state)
{
    (void)state;
    rtcosim_component *c = make_integrator();
    rtcosim_start_value sv[] = {{"u", "1"}};
    const char *outs[] = {"y", "count"};
    rtcosim_simulate_options o = base_options(tu_scratch("sim_short.csv"));
    o.stop_time = 1100000000; /* 1.1 s with 0.25 s steps: the last one is 0.1 s */
    o.output_interval = 250000000;
    set_io(&o, sv, 1, outs, 2);
    o.record_every = 2;
    rtcosim_simulate_result res = {0};
    rtcosim_error err;
    assert_int_equal(rtcosim_simulate(c, &o, &res, &err), RTCOSIM_OK);
    assert_int_equal(res.steps, 5);
    assert_int_equal(res.end_time, 1100000000);
    assert_string_equal(tu_read_file(tu_scratch("sim_short.csv"), NULL),
                        "\"time\",\"y\",\"count\"\n0,0,0\n0.5,0.5,2\n1,1,4\n1.1,1.1,5\n");
    rtcosim_component_free(c);
}

static void component_asking_to_terminate_stops_cleanly(void **state)
{
    (void)state;
    rtcosim_component *c = make_integrator();
    rtcosim_start_value sv[] = {{"stop_at", "0.5"}};
    const char *outs[] = {"count"};
    rtcosim_simulate_options o = base_options(tu_scratch("sim_terminate.csv"));
    o.output_interval = 250000000;
    set_io(&o, sv, 1, outs, 1);
    rtcosim_simulate_result res = {0};
    rtcosim_error err;
    assert_int_equal(rtcosim_simulate(c, &o, &res, &err), RTCOSIM_OK);
    assert_true(res.terminated_by_component);
    assert_int_equal(res.end_time, 500000000);
    assert_string_equal(tu_read_file(tu_scratch("sim_terminate.csv"), NULL),
                        "\"time\",\"count\"\n0,0\n0.25,1\n0.5,2\n");
    rtcosim_component_free(c);
}

static void failing_step_keeps_rows_so_far_and_names_component_and_time(void **state)
{
    (void)state;
    for (int threaded = 0; threaded <= 1; threaded++) {
        rtcosim_component *c = make_integrator();
        rtcosim_start_value sv[] = {{"fail_at", "1"}};
        const char *outs[] = {"count"};
        rtcosim_simulate_options o = base_options(tu_scratch("sim_fail.csv"));
        o.output_interval = 250000000;
        set_io(&o, sv, 1, outs, 1);
        o.writer_thread = threaded;
        rtcosim_simulate_result res = {0};
        rtcosim_error err;
        assert_int_equal(rtcosim_simulate(c, &o, &res, &err), RTCOSIM_ECOMPONENT);
        assert_string_equal(err.message, "integrator: simulation stopped at t = 1 s: "
                                         "integrator asked to fail at 1 s");
        assert_int_equal(res.steps, 4);
        assert_string_equal(tu_read_file(tu_scratch("sim_fail.csv"), NULL),
                            "\"time\",\"count\"\n0,0\n0.25,1\n0.5,2\n0.75,3\n1,4\n");
        rtcosim_component_free(c);
    }
}

static void early_return_continues_from_the_last_successful_time(void **state)
{
    (void)state;
    rtcosim_component *c = make_integrator();
    rtcosim_start_value sv[] = {{"early_at", "0.75"}, {"u", "1"}};
    const char *outs[] = {"y", "count"};
    rtcosim_simulate_options o = base_options(tu_scratch("sim_early.csv"));
    set_io(&o, sv, 2, outs, 2);
    rtcosim_simulate_result res = {0};
    rtcosim_error err;
    assert_int_equal(rtcosim_simulate(c, &o, &res, &err), RTCOSIM_OK);
    assert_int_equal(res.steps, 5);
    /* y = t with u = 1; after the early return at 0.75 the next step ends
     * at the next point of the output grid, 1 (fmusim's FMI3CSSimulation
     * counts grid points start + k * interval, so an early return does not
     * shift the grid). */
    assert_string_equal(tu_read_file(tu_scratch("sim_early.csv"), NULL),
                        "\"time\",\"y\",\"count\"\n0,0,0\n0.5,0.5,1\n"
                                                    "0.75,0.75,2\n1,1,3\n1.5,1.5,4\n2,2,5\n");
    rtcosim_component_free(c);
}

static void defaults_come_from_the_default_experiment_else_fmusim_rules(void **state)
{
    (void)state;
    rtcosim_component *c = make_integrator();
    rtcosim_simulate_options o = {.start_time = RTCOSIM_SIMULATE_UNSET,
                                  .stop_time = RTCOSIM_SIMULATE_UNSET,
                                  .output_interval = RTCOSIM_SIMULATE_UNSET, .tolerance = -1};
    rtcosim_simulate_defaults(c, &o);
    assert_int_equal(o.start_time, 0);
    assert_int_equal(o.stop_time, RTCOSIM_NS_PER_S);
    assert_int_equal(o.output_interval, 2000000); /* 1 s / 500 */
    assert_true(o.tolerance == 0.0);
    rtcosim_component_free(c);

    rtcosim_component_desc experiment = {.has_default_start = true, .default_start = 2 * RTCOSIM_NS_PER_S,
                                         .has_default_stop = true, .default_stop = 12 * RTCOSIM_NS_PER_S,
                                         .has_default_tolerance = true, .default_tolerance = 1e-6};
    c = make_integrator_with(&experiment);
    o = (rtcosim_simulate_options){.start_time = RTCOSIM_SIMULATE_UNSET,
                                   .stop_time = RTCOSIM_SIMULATE_UNSET,
                                   .output_interval = RTCOSIM_SIMULATE_UNSET, .tolerance = -1};
    rtcosim_simulate_defaults(c, &o);
    assert_int_equal(o.start_time, 2 * RTCOSIM_NS_PER_S);
    assert_int_equal(o.stop_time, 12 * RTCOSIM_NS_PER_S);
    assert_int_equal(o.output_interval, 20000000); /* 10 s / 500 */
    assert_true(o.tolerance == 1e-6);
    /* Given values stay; only the unset interval follows from them. */
    o = (rtcosim_simulate_options){.start_time = 0, .stop_time = 5 * RTCOSIM_NS_PER_S,
                                   .output_interval = RTCOSIM_SIMULATE_UNSET, .tolerance = 1e-3};
    rtcosim_simulate_defaults(c, &o);
    assert_int_equal(o.start_time, 0);
    assert_int_equal(o.stop_time, 5 * RTCOSIM_NS_PER_S);
    assert_int_equal(o.output_interval, 10000000);
    assert_true(o.tolerance == 1e-3);
    rtcosim_component_free(c);
}

static void impossible_times_are_rejected(void **state)
{
    (void)state;
    rtcosim_component *c = make_integrator();
    rtcosim_simulate_options o = base_options(NULL);
    o.output_interval = 0;
    rtcosim_error err;
    assert_int_equal(rtcosim_simulate(c, &o, NULL, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "output interval must be positive"));
    o = base_options(NULL);
    o.stop_time = -1;
    assert_int_equal(rtcosim_simulate(c, &o, NULL, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "stop time is before start time"));
    rtcosim_component_free(c);
}

/* The row hook sees the rows the file would get (same decimation, without a
 * file); the progress hook sees every step's time and can stop the run. */
typedef struct hook_log {
    rtcosim_time_ns times[16];
    double y[16];
    size_t rows, steps;
    rtcosim_time_ns step_times[16];
    rtcosim_time_ns cancel_at; /* progress returns ECANCELED from here on; 0: never */
} hook_log;

static rtcosim_status row_hook(void *context, rtcosim_time_ns t, const rtcosim_value *values,
                               size_t count, rtcosim_error *err)
{
    (void)err;
    hook_log *h = context;
    assert_int_equal(count, 2);
    h->times[h->rows] = t;
    h->y[h->rows++] = values[0].f64;
    return RTCOSIM_OK;
}

static rtcosim_status progress_hook(void *context, rtcosim_time_ns t, rtcosim_error *err)
{
    hook_log *h = context;
    h->step_times[h->steps++] = t;
    if (h->cancel_at && t >= h->cancel_at)
        return rtcosim_error_set(err, RTCOSIM_ECANCELED, "stopped by the test");
    return RTCOSIM_OK;
}

static void row_and_progress_hooks_see_the_recorded_rows_and_every_step(void **state)
{
    (void)state;
    rtcosim_component *c = make_integrator();
    rtcosim_start_value sv[] = {{"u", "1"}};
    const char *outs[] = {"y", "count"};
    rtcosim_simulate_options o = base_options(NULL);
    o.stop_time = 1100000000;
    o.output_interval = 250000000;
    set_io(&o, sv, 1, outs, 2);
    o.record_every = 2;
    hook_log h = {0};
    o.on_row = row_hook;
    o.row_context = &h;
    o.progress = progress_hook;
    o.progress_context = &h;
    rtcosim_error err;
    assert_int_equal(rtcosim_simulate(c, &o, NULL, &err), RTCOSIM_OK);
    /* As the file of last_step_is_shortened...: rows 0, 0.5, 1, 1.1 with y = t. */
    assert_int_equal(h.rows, 4);
    const rtcosim_time_ns rows[4] = {0, 500000000, 1000000000, 1100000000};
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(h.times[i], rows[i]);
        assert_true(h.y[i] == rtcosim_time_to_seconds(rows[i]));
    }
    assert_int_equal(h.steps, 5);
    assert_int_equal(h.step_times[0], 250000000);
    assert_int_equal(h.step_times[4], 1100000000);
    rtcosim_component_free(c);

    /* Cancelled at 0.5 s: the error names the time; the rows so far stay,
     * with the time reached (0.5 s, y = 0.5) as the last one. */
    c = make_integrator();
    h = (hook_log){.cancel_at = 500000000};
    assert_int_equal(rtcosim_simulate(c, &o, NULL, &err), RTCOSIM_ECANCELED);
    assert_non_null(strstr(err.message, "stopped by the test"));
    assert_non_null(strstr(err.message, "t = 0.5 s"));
    assert_int_equal(h.steps, 2);
    assert_int_equal(h.rows, 2);
    assert_int_equal(h.times[1], 500000000);
    assert_true(h.y[1] == 0.5);
    rtcosim_component_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(integrates_a_csv_ramp_as_hand_computed),
        cmocka_unit_test(start_values_set_parameters_and_inputs),
        cmocka_unit_test(bad_start_values_are_rejected_naming_the_variable),
        cmocka_unit_test(chosen_output_variables_are_recorded_in_order),
        cmocka_unit_test(integer_inputs_are_held_between_rows),
        cmocka_unit_test(bad_input_columns_are_rejected_with_file_and_line),
        cmocka_unit_test(last_step_is_shortened_to_end_at_stop_and_decimation_keeps_it),
        cmocka_unit_test(component_asking_to_terminate_stops_cleanly),
        cmocka_unit_test(failing_step_keeps_rows_so_far_and_names_component_and_time),
        cmocka_unit_test(early_return_continues_from_the_last_successful_time),
        cmocka_unit_test(defaults_come_from_the_default_experiment_else_fmusim_rules),
        cmocka_unit_test(impossible_times_are_rejected),
        cmocka_unit_test(row_and_progress_hooks_see_the_recorded_rows_and_every_step),
    };
    return cmocka_run_group_tests(tests, tu_scratch_group_setup, tu_scratch_group_teardown);
}
