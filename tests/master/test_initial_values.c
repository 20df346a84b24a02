/* Initialization of native components: their init() computes initial states
 * and outputs in initialization mode, from parameters and from the inputs
 * the master propagates, so that the first exchange at the start time
 * carries consistent values (not the variable tables' defaults). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rtcosim/master.h"
#include "rtcosim/native.h"

#define IN_ RTCOSIM_CAUSALITY_INPUT
#define OUT_ RTCOSIM_CAUSALITY_OUTPUT
#define PAR_ RTCOSIM_CAUSALITY_PARAMETER
#define CONT_ RTCOSIM_VARIABILITY_CONTINUOUS
#define FIX_ RTCOSIM_VARIABILITY_FIXED

/* Source: state xa = 2 a0 (set by init); outputs ya = xa (no feedthrough),
 * ra = ua + xa (feedthrough), and ua_seen, the input at each step's start. */
typedef struct source_data {
    double a0, ua, ya, ra, ua_seen, xa;
} source_data;

static const rtcosim_native_variable source_vars[] = {
    RTCOSIM_NATIVE_F64(source_data, a0, 0, PAR_, FIX_, 1.0, NULL, NULL, NULL),
    RTCOSIM_NATIVE_F64(source_data, ua, 1, IN_, CONT_, 0.0, NULL, NULL, NULL),
    RTCOSIM_NATIVE_F64(source_data, ya, 2, OUT_, CONT_, 0.0, NULL, NULL, NULL),
    RTCOSIM_NATIVE_F64(source_data, ra, 3, OUT_, CONT_, 0.0, NULL, NULL, "ua"),
    RTCOSIM_NATIVE_F64(source_data, ua_seen, 4, OUT_, CONT_, -1.0, NULL, NULL, NULL),
};

static rtcosim_status source_init(void *data, const rtcosim_native_context *ctx, rtcosim_error *err)
{
    (void)ctx, (void)err;
    source_data *d = data;
    d->xa = 2.0 * d->a0;
    return RTCOSIM_OK;
}

static void source_outputs(void *data, double t)
{
    (void)t;
    source_data *d = data;
    d->ya = d->xa;
    d->ra = d->ua + d->xa;
}

static rtcosim_status source_step(void *data, const rtcosim_native_context *ctx, double t, double h,
                                  rtcosim_error *err)
{
    (void)h, (void)err;
    rtcosim_native_inputs_at(ctx, t);
    source_data *d = data;
    d->ua_seen = d->ua;
    return RTCOSIM_OK;
}

static const rtcosim_native_model source_model = {
    .name = "test.init_source", .data_size = sizeof(source_data), .variables = source_vars,
    .variable_count = sizeof source_vars / sizeof source_vars[0],
    .integrator = RTCOSIM_NATIVE_OWN_STEP, .can_handle_variable_step = true,
    .init = source_init, .outputs = source_outputs, .step = source_step,
};

/* Follower: its state starts from a parameter and its input (an initial
 * unknown depending on an input, as FMI allows), xb = b0 + ub; output
 * yb = 3 xb has no direct feedthrough once running. */
typedef struct follower_data {
    double b0, ub, yb, xb;
} follower_data;

static const rtcosim_native_variable follower_vars[] = {
    RTCOSIM_NATIVE_F64(follower_data, b0, 0, PAR_, FIX_, 0.0, NULL, NULL, NULL),
    RTCOSIM_NATIVE_F64(follower_data, ub, 1, IN_, CONT_, 0.0, NULL, NULL, NULL),
    RTCOSIM_NATIVE_F64(follower_data, yb, 2, OUT_, CONT_, 0.0, NULL, NULL, NULL),
};

static rtcosim_status follower_init(void *data, const rtcosim_native_context *ctx,
                                    rtcosim_error *err)
{
    (void)ctx, (void)err;
    follower_data *d = data;
    d->xb = d->b0 + d->ub;
    return RTCOSIM_OK;
}

static void follower_outputs(void *data, double t)
{
    (void)t;
    follower_data *d = data;
    d->yb = 3.0 * d->xb;
}

static rtcosim_status hold_step(void *data, const rtcosim_native_context *ctx, double t, double h,
                                rtcosim_error *err)
{
    (void)data, (void)ctx, (void)t, (void)h, (void)err;
    return RTCOSIM_OK;
}

static const rtcosim_native_model follower_model = {
    .name = "test.init_follower", .data_size = sizeof(follower_data), .variables = follower_vars,
    .variable_count = sizeof follower_vars / sizeof follower_vars[0],
    .integrator = RTCOSIM_NATIVE_OWN_STEP, .can_handle_variable_step = true,
    .init = follower_init, .outputs = follower_outputs, .step = hold_step,
};

static rtcosim_master *build(rtcosim_order order)
{
    rtcosim_master *m = NULL;
    rtcosim_component *a = NULL, *b = NULL;
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_master_create(RTCOSIM_NS_PER_MS, &m, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_native_create_model(&source_model, &a, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_add_component(m, "a", a, 1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_native_create_model(&follower_model, &b, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_add_component(m, "b", b, 1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_connect(m, "a.ya", "b.ub", NULL, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_connect(m, "b.yb", "a.ua", NULL, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_set_start_value(m, "a.a0", "1.5", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_set_start_value(m, "b.b0", "0.25", &err), RTCOSIM_OK);
    const char *names[] = {"a.ya", "b.ub", "b.yb", "a.ua", "a.ra", "a.ua_seen"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        assert_int_equal(rtcosim_master_observe(m, names[i], &err), RTCOSIM_OK);
    rtcosim_master_set_order(m, order);
    assert_int_equal(rtcosim_master_initialize(m, 0, -1, &err), RTCOSIM_OK);
    return m;
}

/* By hand, with a0 = 1.5 and b0 = 0.25 (all exact in binary):
 *   xa = 2 a0 = 3 = ya = ub,  xb = b0 + ub = 3.25,  yb = 3 xb = 9.75 = ua,
 *   ra = ua + xa = 12.75.
 * With the tables' defaults instead (a0 = 1, b0 = 0, outputs 0) the first
 * exchange would carry ya = 0 and yb = 0. */
static void check_consistent_start(rtcosim_order order)
{
    rtcosim_master *m = build(order);
    const double *v = rtcosim_master_observed_values(m);
    assert_true(v[0] == 3.0);
    assert_true(v[1] == 3.0);
    assert_true(v[2] == 9.75);
    assert_true(v[3] == 9.75);
    assert_true(v[4] == 12.75);
    /* The first step starts from the consistent input (the zero-order hold
     * of yb(0)): a sees ua = 9.75 at t = 0. */
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_master_step(m, &err), RTCOSIM_OK);
    v = rtcosim_master_observed_values(m);
    assert_true(v[5] == 9.75);
    rtcosim_master_free(m);
}

static void jacobi_first_exchange_has_the_initialized_outputs(void **state)
{
    (void)state;
    check_consistent_start(RTCOSIM_ORDER_JACOBI);
}

static void gauss_seidel_first_exchange_has_the_initialized_outputs(void **state)
{
    (void)state;
    check_consistent_start(RTCOSIM_ORDER_GAUSS_SEIDEL);
}

/* Parameters given after instantiation still reach the initial outputs:
 * initialization recomputes them on every get, as an FMU does for its
 * calculated initial unknowns. */
static void direct_component_get_in_initialization_follows_set_parameters(void **state)
{
    (void)state;
    rtcosim_component *a = NULL;
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_native_create_model(&source_model, &a, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_instantiate(a, "a", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_setup(a, 0, 0, -1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_enter_init(a, &err), RTCOSIM_OK);
    const uint32_t vr_a0 = 0, vr_ua = 1, out_vrs[2] = {2, 3};
    double out[2];
    assert_int_equal(rtcosim_component_get(a, RTCOSIM_TYPE_FLOAT64, out_vrs, 2, out, &err),
                     RTCOSIM_OK);
    assert_true(out[0] == 2.0 && out[1] == 2.0); /* a0 = 1 (default), ua = 0 */
    const double a0 = 4.0, ua = 0.5;
    assert_int_equal(rtcosim_component_set(a, RTCOSIM_TYPE_FLOAT64, &vr_a0, 1, &a0, &err),
                     RTCOSIM_OK);
    assert_int_equal(rtcosim_component_set(a, RTCOSIM_TYPE_FLOAT64, &vr_ua, 1, &ua, &err),
                     RTCOSIM_OK);
    assert_int_equal(rtcosim_component_get(a, RTCOSIM_TYPE_FLOAT64, out_vrs, 2, out, &err),
                     RTCOSIM_OK);
    assert_true(out[0] == 8.0 && out[1] == 8.5);
    assert_int_equal(rtcosim_component_exit_init(a, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_get(a, RTCOSIM_TYPE_FLOAT64, out_vrs, 2, out, &err),
                     RTCOSIM_OK);
    assert_true(out[0] == 8.0 && out[1] == 8.5);
    rtcosim_component_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(jacobi_first_exchange_has_the_initialized_outputs),
        cmocka_unit_test(gauss_seidel_first_exchange_has_the_initialized_outputs),
        cmocka_unit_test(direct_component_get_in_initialization_follows_set_parameters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
