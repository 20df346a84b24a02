/* The co-simulation master: step orders, multi-rate exchange sequences, the
 * correction's error signal on a hand-computable case, initialization,
 * threads against the sequential run, the adaptive step bounds, and every
 * setup error with its message. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "master/test_models.h"
#include "rtcosim/master.h"

#define MS RTCOSIM_NS_PER_MS

static void add(rtcosim_master *m, const char *name, const rtcosim_native_model *model,
                unsigned multiple)
{
    rtcosim_component *c = NULL;
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_native_create_model(model, &c, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_add_component(m, name, c, multiple, &err), RTCOSIM_OK);
}

static rtcosim_master *new_master(rtcosim_time_ns h)
{
    rtcosim_master *m = NULL;
    assert_int_equal(rtcosim_master_create(h, &m, NULL), RTCOSIM_OK);
    return m;
}

static void connect(rtcosim_master *m, const char *from, const char *to,
                    const rtcosim_coupling_options *o)
{
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_master_connect(m, from, to, o, &err), RTCOSIM_OK);
}

static void expect_error(rtcosim_status got, rtcosim_status want, const rtcosim_error *err,
                         const char *text)
{
    assert_int_equal(got, want);
    if (!strstr(err->message, text))
        fail_msg("message '%s' lacks '%s'", err->message, text);
}

static const double *recorded(rtcosim_master *m, const char *name)
{
    return ((recorder_data *)rtcosim_native_data(rtcosim_master_component(m, name)))->log;
}

static void gauss_seidel_orders_a_chain_by_data_flow(void **state)
{
    (void)state;
    rtcosim_master *m = new_master(MS);
    add(m, "last", &gain_model, 1);
    add(m, "middle", &gain_model, 1);
    add(m, "source", &clock_model, 1);
    connect(m, "source.y", "middle.u", NULL);
    connect(m, "middle.y", "last.u", NULL);
    rtcosim_master_set_order(m, RTCOSIM_ORDER_GAUSS_SEIDEL);
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_master_initialize(m, 0, -1, &err), RTCOSIM_OK);
    assert_string_equal(rtcosim_master_order_name(m, 0), "source");
    assert_string_equal(rtcosim_master_order_name(m, 1), "middle");
    assert_string_equal(rtcosim_master_order_name(m, 2), "last");
    /* Through the feedthrough chain the last gain sees the clock at once. */
    for (int i = 0; i < 3; i++)
        assert_int_equal(rtcosim_master_step(m, &err), RTCOSIM_OK);
    const double *v = rtcosim_master_observed_values(m);
    assert_string_equal(rtcosim_master_observed_name(m, 0), "last.y");
    assert_true(fabs(v[0] - 0.003) < 1e-15);
    rtcosim_master_free(m);
}

/* Every component on the base step (the single-rate tick), to a stop time off
 * the grid: three steps of 1 ms, then the last one shortened to 0.5 ms (the
 * general planning). The recorder logs the clock y = t it is given: in Jacobi
 * order the value at each step's start, in Gauss-Seidel order (clock first)
 * the clock's new value at the step's end. */
static void single_rate_run_ends_on_an_off_grid_stop(rtcosim_order order, const double want[4])
{
    rtcosim_master *m = new_master(MS);
    add(m, "r", &recorder_model, 1);
    add(m, "src", &clock_model, 1);
    connect(m, "src.y", "r.u", NULL);
    rtcosim_master_set_order(m, order);
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_master_initialize(m, 0, -1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_run(m, 3 * MS + MS / 2, NULL, NULL, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_time(m), 3 * MS + MS / 2);
    assert_int_equal(rtcosim_master_step_count(m), 4);
    const double *log = recorded(m, "r");
    for (int i = 0; i < 4; i++)
        if (fabs(log[i] - want[i]) > 1e-15)
            fail_msg("step %d: recorder got %.17g, expected %.17g", i, log[i], want[i]);
    rtcosim_master_free(m);
}

static void single_rate_jacobi_ends_on_an_off_grid_stop(void **state)
{
    (void)state;
    const double want[4] = {0.0, 0.001, 0.002, 0.003};
    single_rate_run_ends_on_an_off_grid_stop(RTCOSIM_ORDER_JACOBI, want);
}

static void single_rate_gauss_seidel_ends_on_an_off_grid_stop(void **state)
{
    (void)state;
    const double want[4] = {0.001, 0.002, 0.003, 0.0035};
    single_rate_run_ends_on_an_off_grid_stop(RTCOSIM_ORDER_GAUSS_SEIDEL, want);
}

static void algebraic_loop_is_reported_with_its_variables(void **state)
{
    (void)state;
    rtcosim_master *m = new_master(MS);
    add(m, "a", &gain_model, 1);
    add(m, "b", &gain_model, 1);
    connect(m, "a.y", "b.u", NULL);
    connect(m, "b.y", "a.u", NULL);
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_master_set_start_value(m, "a.g", "0.5", &err), RTCOSIM_OK);
    rtcosim_master_set_order(m, RTCOSIM_ORDER_GAUSS_SEIDEL);
    assert_int_equal(rtcosim_master_initialize(m, 0, -1, &err), RTCOSIM_ELOOP);
    assert_non_null(strstr(err.message, "algebraic loop"));
    assert_non_null(strstr(err.message, "a.y"));
    assert_non_null(strstr(err.message, "b.u"));
    assert_non_null(strstr(err.message, "b.y"));
    assert_non_null(strstr(err.message, "a.u"));
    rtcosim_master_free(m);
}

static void diverging_initialization_names_the_connection(void **state)
{
    (void)state;
    rtcosim_master *m = new_master(MS);
    add(m, "a", &gain_model, 1);
    add(m, "b", &gain_model, 1);
    add(m, "c", &clock_model, 1);
    connect(m, "a.y", "b.u", NULL);
    connect(m, "b.y", "a.u", NULL);
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_master_set_start_value(m, "a.g", "2", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_set_start_value(m, "a.u", "1", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_initialize(m, 0, -1, &err), RTCOSIM_ELOOP);
    assert_non_null(strstr(err.message, "initialization did not converge"));
    assert_non_null(strstr(err.message, "connection"));
    rtcosim_master_free(m);
}

/* A slow clock (every 4 ms) feeding a fast black-box recorder (every 1 ms). */
static void run_multirate(rtcosim_order order, rtcosim_extrapolation ex, rtcosim_multirate_input mr,
                          const double *expected_ms, int n)
{
    rtcosim_master *m = new_master(MS);
    add(m, "slow", &clock_model, 4);
    add(m, "fast", &recorder_model, 1);
    rtcosim_coupling_options o;
    rtcosim_coupling_options_init(&o);
    o.extrapolation = ex;
    o.multirate = mr;
    connect(m, "slow.y", "fast.u", &o);
    rtcosim_master_set_order(m, order);
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_master_initialize(m, 0, -1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_run(m, n * MS, NULL, NULL, &err), RTCOSIM_OK);
    const double *log = recorded(m, "fast");
    for (int i = 0; i < n; i++) {
        if (fabs(log[i] - expected_ms[i] * 1e-3) > 1e-15)
            fail_msg("step %d: got %.17g, expected %.17g", i, log[i], expected_ms[i] * 1e-3);
    }
    rtcosim_master_free(m);
}

static void multirate_jacobi_exchanges_at_the_slow_points(void **state)
{
    (void)state;
    /* Hold: the slow value of its last communication point. */
    const double hold[] = {0, 0, 0, 0, 4, 4, 4, 4, 8, 8};
    run_multirate(RTCOSIM_ORDER_JACOBI, RTCOSIM_EXTRAPOLATION_FOH, RTCOSIM_MULTIRATE_HOLD, hold, 10);
    /* FOH estimate of the slow signal over each fast step, given to the black
     * box as its mean over the step: one sample -> 0; from 4 ms the line
     * through (0, 0) and (4, 4): means 4.5, 5.5, ... */
    const double foh[] = {0, 0, 0, 0, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5};
    run_multirate(RTCOSIM_ORDER_JACOBI, RTCOSIM_EXTRAPOLATION_FOH, RTCOSIM_MULTIRATE_INTERPOLATE, foh, 10);
}

static void multirate_gauss_seidel_interpolates_the_slow_step_ahead(void **state)
{
    (void)state;
    /* The slow clock steps first to 4 ms; the fast recorder interpolates
     * between (0, 0) and (4, 4): means 0.5, 1.5, 2.5, 3.5. */
    const double foh[] = {0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5};
    run_multirate(RTCOSIM_ORDER_GAUSS_SEIDEL, RTCOSIM_EXTRAPOLATION_FOH, RTCOSIM_MULTIRATE_INTERPOLATE,
                  foh, 8);
    const double hold[] = {4, 4, 4, 4, 8, 8, 8, 8};
    run_multirate(RTCOSIM_ORDER_GAUSS_SEIDEL, RTCOSIM_EXTRAPOLATION_FOH, RTCOSIM_MULTIRATE_HOLD, hold, 8);
}

static void correction_feeds_back_the_integrated_error(void **state)
{
    (void)state;
    /* y = t^2 with H = 0.1 s, ZOH, dead-time correction, trapezoid:
     * step 0 gets y(0) = 0; E0 = H (0 + H^2) / 2 - 0 = H^3 / 2 = 5e-4.
     * step 1 gets y(H) + E0 / H = 0.01 + 0.005 = 0.015;
     *   E1 = H (H^2 + 4 H^2) / 2 - H * H^2 = 1.5 H^3 = 1.5e-3.
     * step 2 gets 4 H^2 + E1 / H = 0.04 + 0.015 = 0.055. */
    rtcosim_time_ns h = 100 * MS;
    rtcosim_master *m = new_master(h);
    add(m, "src", &square_model, 1);
    add(m, "rec", &recorder_model, 1);
    rtcosim_coupling_options o;
    rtcosim_coupling_options_init(&o);
    o.correction = RTCOSIM_CORRECTION_DEAD_TIME;
    o.quadrature = RTCOSIM_QUADRATURE_TRAPEZOID;
    connect(m, "src.y", "rec.u", &o);
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_master_observe(m, "rec.steps", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_observe_coupling_error(m, "rec.u", &err), RTCOSIM_OK);
    expect_error(rtcosim_master_observe_coupling_error(m, "src.u", &err), RTCOSIM_EINVAL, &err,
                 "'src.u' is not the input of a Float64 connection");
    assert_int_equal(rtcosim_master_initialize(m, 0, -1, &err), RTCOSIM_OK);
    assert_string_equal(rtcosim_master_observed_name(m, 1), "rec.u.coupling_error");
    assert_int_equal(rtcosim_master_run(m, h, NULL, NULL, &err), RTCOSIM_OK);
    assert_true(fabs(rtcosim_master_observed_values(m)[1] - 5e-4) < 1e-15); /* E0 */
    assert_int_equal(rtcosim_master_run(m, 2 * h, NULL, NULL, &err), RTCOSIM_OK);
    rtcosim_coupling_stats st;
    assert_int_equal(rtcosim_master_coupling_stats(m, 0, &st, &err), RTCOSIM_OK);
    assert_int_equal(st.intervals, 2);
    assert_true(fabs(st.last_error - 1.5e-3) < 1e-15);
    assert_true(fabs(st.error_max - 1.5e-3) < 1e-15);
    assert_true(fabs(st.error_rms - sqrt((25e-8 + 225e-8) / 2)) < 1e-15);
    assert_int_equal(rtcosim_master_run(m, 3 * h, NULL, NULL, &err), RTCOSIM_OK);
    const double *log = recorded(m, "rec");
    assert_true(log[0] == 0);
    assert_true(fabs(log[1] - 0.015) < 1e-15);
    assert_true(fabs(log[2] - 0.055) < 1e-15);
    rtcosim_master_free(m);
}

static void transformation_scales_and_offsets_the_signal(void **state)
{
    (void)state;
    rtcosim_master *m = new_master(MS);
    add(m, "src", &clock_model, 1);
    add(m, "g", &gain_model, 1);
    rtcosim_coupling_options o;
    rtcosim_coupling_options_init(&o);
    o.has_transformation = true;
    o.factor = 1000; /* s -> ms */
    o.offset = 1;
    connect(m, "src.y", "g.u", &o);
    rtcosim_error err = {0};
    rtcosim_master_set_order(m, RTCOSIM_ORDER_GAUSS_SEIDEL);
    assert_int_equal(rtcosim_master_initialize(m, 0, -1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_run(m, 5 * MS, NULL, NULL, &err), RTCOSIM_OK);
    assert_true(fabs(rtcosim_master_observed_values(m)[1] - 6.0) < 1e-12); /* g.y = 1000*0.005+1 */
    rtcosim_master_free(m);
}

static void final_state(unsigned threads, double out[4])
{
    rtcosim_master *m = new_master(MS);
    rtcosim_component *c = NULL;
    const char *names[] = {"m1", "m2", "n1", "n2"};
    const char *models[] = {"rtcosim:oscillator.mass1", "rtcosim:oscillator.mass2"};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(rtcosim_native_create(models[i % 2], &c, NULL), RTCOSIM_OK);
        assert_int_equal(rtcosim_master_add_component(m, names[i], c, 1, NULL), RTCOSIM_OK);
    }
    rtcosim_coupling_options o;
    rtcosim_coupling_options_init(&o);
    o.extrapolation = RTCOSIM_EXTRAPOLATION_SOH;
    o.correction = RTCOSIM_CORRECTION_INTEGRATOR;
    connect(m, "m1.x", "m2.x1", &o);
    connect(m, "m1.v", "m2.v1", &o);
    connect(m, "m2.F", "m1.F", &o);
    connect(m, "n1.x", "n2.x1", &o);
    connect(m, "n1.v", "n2.v1", &o);
    connect(m, "n2.F", "n1.F", &o);
    assert_int_equal(rtcosim_master_set_threads(m, threads, NULL), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_set_thread_fallback(m, false, NULL), RTCOSIM_OK);
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_master_initialize(m, 0, -1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_run(m, 200 * MS, NULL, NULL, &err), RTCOSIM_OK);
    const double *v = rtcosim_master_observed_values(m);
    memcpy(out, v, 4 * sizeof *out);
    rtcosim_master_free(m);
}

static void jacobi_threads_match_the_sequential_run_bit_for_bit(void **state)
{
    (void)state;
    double seq[4], par[4], par3[4];
    final_state(1, seq);
    final_state(2, par);
    final_state(3, par3);
    assert_memory_equal(seq, par, sizeof seq);
    assert_memory_equal(seq, par3, sizeof seq);
    assert_true(seq[0] != 0);
}

static rtcosim_status check_step_bounds(void *context, rtcosim_time_ns t, const double *v, size_t n,
                                        rtcosim_error *err)
{
    (void)v, (void)n, (void)err;
    rtcosim_time_ns *last = context;
    rtcosim_time_ns dt = t - last[0];
    if (t > 0 && t < last[3] && (dt < last[1] || dt > last[2]))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "step %lld ns outside bounds", (long long)dt);
    last[0] = t;
    return RTCOSIM_OK;
}

static void adaptive_step_stays_within_its_bounds(void **state)
{
    (void)state;
    rtcosim_master *m = new_master(MS);
    add(m, "src", &square_model, RTCOSIM_MASTER_VARIABLE_STEP);
    add(m, "rec", &recorder_model, RTCOSIM_MASTER_VARIABLE_STEP);
    connect(m, "src.y", "rec.u", NULL);
    rtcosim_step_control sc;
    rtcosim_step_control_init(&sc);
    sc.enabled = true;
    sc.rtol = 1e-3;
    sc.atol = 1e-3;
    sc.min_step = 500 * RTCOSIM_NS_PER_US;
    sc.max_step = 2 * MS;
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_master_set_step_control(m, &sc, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_initialize(m, 0, -1, &err), RTCOSIM_OK);
    rtcosim_time_ns track[4] = {0, sc.min_step, sc.max_step, 1000 * MS};
    if (rtcosim_master_run(m, 1000 * MS, check_step_bounds, track, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(rtcosim_master_time(m), 1000 * MS);
    /* The error of ZOH on t^2 grows with t: the controller holds the step
     * below max_step (it settles near 1 ms; the last step, split in two
     * equal halves before the stop, no longer leaves a sliver that drove the
     * controller down to min_step). */
    assert_true(rtcosim_master_next_step(m) >= sc.min_step);
    assert_true(rtcosim_master_next_step(m) < sc.max_step);
    rtcosim_master_free(m);
}


static void setup_errors_name_what_is_wrong(void **state)
{
    (void)state;
    rtcosim_master *m = NULL;
    rtcosim_error err = {0};
    expect_error(rtcosim_master_create(0, &m, &err), RTCOSIM_EINVAL, &err, "macro step 0 ns is not positive");
    m = new_master(MS);
    expect_error(rtcosim_master_initialize(m, 0, -1, &err), RTCOSIM_EINVAL, &err, "no components");
    add(m, "a", &clock_model, 1);
    add(m, "b", &gain_model, 1);
    add(m, "n", &counter_model, 1);
    rtcosim_component *c = NULL;
    assert_int_equal(rtcosim_native_create("rtcosim:oscillator.mass1", &c, NULL), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_add_component(m, "o1", c, 1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_native_create_model(&gain_model, &c, NULL), RTCOSIM_OK);
    expect_error(rtcosim_master_add_component(m, "a", c, 1, &err), RTCOSIM_EINVAL, &err,
                 "duplicate component name 'a'");
    expect_error(rtcosim_master_connect(m, "nope.y", "b.u", NULL, &err), RTCOSIM_ENOTFOUND, &err,
                 "connection nope.y -> b.u: no component 'nope'");
    expect_error(rtcosim_master_connect(m, "a.y", "b.nope", NULL, &err), RTCOSIM_ENOTFOUND, &err,
                 "component 'b' has no variable 'nope'");
    expect_error(rtcosim_master_connect(m, "ay", "b.u", NULL, &err), RTCOSIM_EINVAL, &err,
                 "'ay' is not of the form component.variable");
    expect_error(rtcosim_master_connect(m, "n.n", "b.u", NULL, &err), RTCOSIM_EINVAL, &err,
                 "incompatible types Int32 and Float64");
    expect_error(rtcosim_master_connect(m, "a.y", "o1.F", NULL, &err), RTCOSIM_EINVAL, &err,
                 "units differ ('s' and 'N') and no transformation is given");
    expect_error(rtcosim_master_connect(m, "a.y", "b.y", NULL, &err), RTCOSIM_EINVAL, &err,
                 "'b.y' is not an input");
    expect_error(rtcosim_master_connect(m, "b.u", "a.u", NULL, &err), RTCOSIM_EINVAL, &err,
                 "'b.u' is not an output");
    connect(m, "a.y", "b.u", NULL);
    expect_error(rtcosim_master_connect(m, "o1.x", "b.u", NULL, &err), RTCOSIM_EINVAL, &err,
                 "input 'b.u' is already connected (a.y -> b.u)");
    rtcosim_coupling_options o;
    rtcosim_coupling_options_init(&o);
    o.has_transformation = true;
    o.factor = 2;
    assert_int_equal(rtcosim_master_connect(m, "a.y", "o1.F", &o, &err), RTCOSIM_OK);
    expect_error(rtcosim_master_set_component_step(m, "a", 1500 * RTCOSIM_NS_PER_US, &err),
                 RTCOSIM_EINVAL, &err, "component 'a': step 0.0015 s is not a positive integer multiple");
    expect_error(rtcosim_master_set_start_value(m, "b.g", "abc", &err), RTCOSIM_EINVAL, &err,
                 "start value for 'b.g'");
    expect_error(rtcosim_master_add_power_bond(m, "o1.F", "b.u", &err), RTCOSIM_EINVAL, &err,
                 "opposite directions");
    assert_int_equal(rtcosim_master_initialize(m, 0, -1, &err), RTCOSIM_OK);
    expect_error(rtcosim_master_connect(m, "a.y", "n.u", NULL, &err), RTCOSIM_ESTATE, &err,
                 "not allowed after initialize");
    rtcosim_master_free(m);

    m = new_master(MS);
    add(m, "r", &rigid_model, RTCOSIM_MASTER_VARIABLE_STEP);
    rtcosim_step_control sc;
    rtcosim_step_control_init(&sc);
    sc.enabled = true;
    assert_int_equal(rtcosim_master_set_step_control(m, &sc, &err), RTCOSIM_OK);
    expect_error(rtcosim_master_initialize(m, 0, -1, &err), RTCOSIM_EINVAL, &err,
                 "component 'r' cannot handle variable communication steps");
    rtcosim_master_free(m);

    m = new_master(MS);
    add(m, "r", &rigid_model, 1);
    assert_int_equal(rtcosim_master_initialize(m, 0, -1, &err), RTCOSIM_OK);
    expect_error(rtcosim_master_run(m, 2500 * RTCOSIM_NS_PER_US, NULL, NULL, &err), RTCOSIM_EINVAL,
                 &err, "component 'r' steps 0.001 s and cannot shorten its last step");
    rtcosim_master_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gauss_seidel_orders_a_chain_by_data_flow),
        cmocka_unit_test(single_rate_jacobi_ends_on_an_off_grid_stop),
        cmocka_unit_test(single_rate_gauss_seidel_ends_on_an_off_grid_stop),
        cmocka_unit_test(algebraic_loop_is_reported_with_its_variables),
        cmocka_unit_test(diverging_initialization_names_the_connection),
        cmocka_unit_test(multirate_jacobi_exchanges_at_the_slow_points),
        cmocka_unit_test(multirate_gauss_seidel_interpolates_the_slow_step_ahead),
        cmocka_unit_test(correction_feeds_back_the_integrated_error),
        cmocka_unit_test(transformation_scales_and_offsets_the_signal),
        cmocka_unit_test(jacobi_threads_match_the_sequential_run_bit_for_bit),
        cmocka_unit_test(adaptive_step_stays_within_its_bounds),
        cmocka_unit_test(setup_errors_name_what_is_wrong),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
