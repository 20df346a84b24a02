/* Native components: the built-in integrators against analytic solutions,
 * polynomial inputs (input derivatives), state snapshots and serialization,
 * the registry, and the checks on a model's variable table. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/native.h"

/* dx/dt = -k x + u */
typedef struct decay_data {
    double x;
    double u;
    double k, x0;
    int32_t count;
} decay_data;

static const rtcosim_native_variable decay_vars[] = {
    RTCOSIM_NATIVE_F64(decay_data, x, 0, RTCOSIM_CAUSALITY_OUTPUT, RTCOSIM_VARIABILITY_CONTINUOUS, 0, "m", NULL, NULL),
    RTCOSIM_NATIVE_F64(decay_data, u, 1, RTCOSIM_CAUSALITY_INPUT, RTCOSIM_VARIABILITY_CONTINUOUS, 0, "m/s", NULL, NULL),
    RTCOSIM_NATIVE_F64(decay_data, k, 2, RTCOSIM_CAUSALITY_PARAMETER, RTCOSIM_VARIABILITY_FIXED, 1, "1/s", NULL, NULL),
    RTCOSIM_NATIVE_F64(decay_data, x0, 3, RTCOSIM_CAUSALITY_PARAMETER, RTCOSIM_VARIABILITY_FIXED, 1, "m", NULL, NULL),
    {"count", 4, RTCOSIM_TYPE_INT32, RTCOSIM_CAUSALITY_OUTPUT, RTCOSIM_VARIABILITY_DISCRETE,
     offsetof(decay_data, count), 0, NULL, NULL, NULL},
};

static rtcosim_status decay_init(void *data, const rtcosim_native_context *ctx, rtcosim_error *err)
{
    (void)ctx, (void)err;
    decay_data *d = data;
    d->x = d->x0;
    return RTCOSIM_OK;
}

static void decay_derivatives(void *data, double t, const double *x, double *dx)
{
    (void)t;
    const decay_data *d = data;
    dx[0] = -d->k * x[0] + d->u;
}

static bool decay_event(void *data, double t, bool *terminate)
{
    (void)t, (void)terminate;
    ((decay_data *)data)->count++;
    return false;
}

static const rtcosim_native_model decay_model = {
    .name = "test.decay",
    .data_size = sizeof(decay_data),
    .variables = decay_vars,
    .variable_count = sizeof decay_vars / sizeof decay_vars[0],
    .state_count = 1,
    .states_offset = offsetof(decay_data, x),
    .integrator = RTCOSIM_NATIVE_RK4,
    .max_micro_step = 1000000, /* 1 ms */
    .can_handle_variable_step = true,
    .max_input_derivative_order = 2,
    .init = decay_init,
    .derivatives = decay_derivatives,
    .event = decay_event,
};

static rtcosim_component *start(const rtcosim_native_model *model, double k)
{
    rtcosim_component *c = NULL;
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_native_create_model(model, &c, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_instantiate(c, "d", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_setup(c, 0, 0, -1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_enter_init(c, &err), RTCOSIM_OK);
    uint32_t vr = 2;
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &vr, 1, &k, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
    return c;
}

static double get_x(rtcosim_component *c)
{
    uint32_t vr = 0;
    double x;
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &vr, 1, &x, NULL), RTCOSIM_OK);
    return x;
}

static void rk4_decay_matches_exponential(void **state)
{
    (void)state;
    rtcosim_component *c = start(&decay_model, 2.0);
    for (int i = 0; i < 100; i++)
        assert_int_equal(rtcosim_component_do_step(c, i * 10000000LL, 10000000LL, NULL, NULL), RTCOSIM_OK);
    /* x(1) = exp(-2); RK4 with 1 ms micro steps: error ~ (2e-3)^4 / 120 relative. */
    assert_true(fabs(get_x(c) - exp(-2.0)) < 1e-12);
    int32_t count;
    uint32_t vr = 4;
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_INT32, &vr, 1, &count, NULL), RTCOSIM_OK);
    assert_int_equal(count, 100); /* the event callback ran once per step */
    rtcosim_component_free(c);
}

static void quadratic_input_through_derivatives_is_integrated_exactly(void **state)
{
    (void)state;
    /* k = 0: x' = u(t) = a + b s + c s^2 / 2, so x(h) = x0 + a h + b h^2/2 + c h^3/6
     * (RK4 integrates cubics exactly, so micro steps do not matter). */
    rtcosim_component *c = start(&decay_model, 0.0);
    uint32_t vr = 1;
    double a = 2, b = -3, cc = 5, h = 0.5;
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &vr, 1, &a, NULL), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_set_input_derivatives(c, &vr, 1, 1, &b, NULL), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_set_input_derivatives(c, &vr, 1, 2, &cc, NULL), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_do_step(c, 0, 500000000LL, NULL, NULL), RTCOSIM_OK);
    double expected = 1 + a * h + b * h * h / 2 + cc * h * h * h / 6;
    assert_true(fabs(get_x(c) - expected) < 1e-13);
    /* The input keeps its end-of-step value: u(h) = 2 - 1.5 + 0.625 */
    double u;
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &vr, 1, &u, NULL), RTCOSIM_OK);
    assert_true(fabs(u - (a + b * h + cc * h * h / 2)) < 1e-15);
    rtcosim_component_free(c);
}

static void state_snapshot_restores_the_trajectory(void **state)
{
    (void)state;
    rtcosim_component *c = start(&decay_model, 1.0);
    rtcosim_state snap = NULL;
    assert_int_equal(rtcosim_component_do_step(c, 0, 100000000LL, NULL, NULL), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_get_state(c, &snap, NULL), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_do_step(c, 100000000LL, 100000000LL, NULL, NULL), RTCOSIM_OK);
    double first = get_x(c);
    assert_int_equal(rtcosim_component_set_state(c, snap, NULL), RTCOSIM_OK);
    assert_true(fabs(get_x(c) - exp(-0.1)) < 1e-12);
    assert_int_equal(rtcosim_component_do_step(c, 100000000LL, 100000000LL, NULL, NULL), RTCOSIM_OK);
    assert_memory_equal(&first, &(double){get_x(c)}, sizeof first);

    size_t size = 0;
    assert_int_equal(rtcosim_component_serialized_state_size(c, snap, &size, NULL), RTCOSIM_OK);
    uint8_t *bytes = malloc(size);
    assert_int_equal(rtcosim_component_serialize_state(c, snap, bytes, size, NULL), RTCOSIM_OK);
    rtcosim_state back = NULL;
    assert_int_equal(rtcosim_component_deserialize_state(c, bytes, size, &back, NULL), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_set_state(c, back, NULL), RTCOSIM_OK);
    assert_true(fabs(get_x(c) - exp(-0.1)) < 1e-12);
    /* Deserializing into an existing snapshot overwrites it in place: the
     * state of t = 0.2 s, then the bytes of t = 0.1 s again. */
    assert_int_equal(rtcosim_component_do_step(c, 100000000LL, 100000000LL, NULL, NULL), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_get_state(c, &back, NULL), RTCOSIM_OK);
    rtcosim_state same = back;
    assert_int_equal(rtcosim_component_deserialize_state(c, bytes, size, &back, NULL), RTCOSIM_OK);
    assert_ptr_equal(back, same);
    assert_int_equal(rtcosim_component_set_state(c, back, NULL), RTCOSIM_OK);
    assert_true(fabs(get_x(c) - exp(-0.1)) < 1e-12);

    rtcosim_error err = {0};
    assert_int_equal(rtcosim_component_deserialize_state(c, bytes, size, NULL, &err),
                     RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "NULL state pointer"));
    assert_int_equal(rtcosim_component_deserialize_state(c, bytes, size - 1, &back, &err),
                     RTCOSIM_EFORMAT);
    assert_non_null(strstr(err.message, "serialized state has"));
    bytes[0] ^= 0xff;
    rtcosim_state bad = NULL;
    assert_int_equal(rtcosim_component_deserialize_state(c, bytes, size, &bad, &err), RTCOSIM_EFORMAT);
    assert_non_null(strstr(err.message, "belongs to another model"));
    free(bytes);
    rtcosim_component_free_state(c, snap);
    rtcosim_component_free_state(c, back);
    rtcosim_component_free(c);
}

static void bad_access_names_the_variable(void **state)
{
    (void)state;
    rtcosim_component *c = start(&decay_model, 1.0);
    rtcosim_error err = {0};
    uint32_t vr = 2;
    double v = 3;
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &vr, 1, &v, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "'k'"));
    assert_non_null(strstr(err.message, "after initialization"));
    int32_t i32 = 0;
    vr = 0;
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_INT32, &vr, 1, &i32, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "'x' is Float64, not Int32"));
    vr = 77;
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &vr, 1, &v, &err), RTCOSIM_ENOTFOUND);
    assert_non_null(strstr(err.message, "value reference 77"));
    rtcosim_component_free(c);
}

static void variable_table_declares_types_units_and_causality(void **state)
{
    (void)state;
    rtcosim_component *c = NULL;
    assert_int_equal(rtcosim_native_create_model(&decay_model, &c, NULL), RTCOSIM_OK);
    const rtcosim_variable *u = rtcosim_component_find_variable(c, "u");
    assert_non_null(u);
    assert_int_equal(u->causality, RTCOSIM_CAUSALITY_INPUT);
    assert_string_equal(u->unit, "m/s");
    assert_true(rtcosim_native_is_native(c));
    assert_true(rtcosim_component_capabilities(c)->can_get_set_state);
    assert_int_equal(rtcosim_component_capabilities(c)->max_input_derivative_order, 2);
    rtcosim_component_free(c);
}

static void bad_tables_are_rejected_with_the_reason(void **state)
{
    (void)state;
    rtcosim_native_variable vars[2] = {decay_vars[0], decay_vars[1]};
    vars[1].value_reference = 0;
    rtcosim_native_model m = decay_model;
    m.variables = vars;
    m.variable_count = 2;
    rtcosim_component *c = NULL;
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_native_create_model(&m, &c, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "share value reference 0"));

    vars[1].value_reference = 1;
    vars[0].depends_on = "k";
    assert_int_equal(rtcosim_native_create_model(&m, &c, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "depends on 'k', which is not an input"));

    vars[0].depends_on = NULL;
    vars[1].offset = sizeof(decay_data);
    assert_int_equal(rtcosim_native_create_model(&m, &c, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "offset outside the data struct"));

    m = decay_model;
    m.derivatives = NULL;
    assert_int_equal(rtcosim_native_create_model(&m, &c, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "needs derivatives"));
    assert_null(c);
}

static void registry_creates_by_uri_and_rejects_unknown_names(void **state)
{
    (void)state;
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_native_register_model(&decay_model, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_native_register_model(&decay_model, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "'test.decay' is already registered"));
    rtcosim_component *c = NULL;
    assert_int_equal(rtcosim_native_create("rtcosim:test.decay", &c, &err), RTCOSIM_OK);
    assert_string_equal(rtcosim_component_model_name(c), "test.decay");
    rtcosim_component_free(c);
    assert_int_equal(rtcosim_native_create("rtcosim:no.such", &c, &err), RTCOSIM_ENOTFOUND);
    assert_string_equal(err.message, "rtcosim:no.such: no native model of this name is registered");
    /* The library's own models registered themselves at load. */
    assert_int_equal(rtcosim_native_create("rtcosim:oscillator.mass2", &c, &err), RTCOSIM_OK);
    assert_false(rtcosim_native_depends(c, 0, 2)); /* x does not depend on x1 */
    assert_true(rtcosim_native_depends(c, 4, 2));  /* F depends on x1 */
    rtcosim_component_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rk4_decay_matches_exponential),
        cmocka_unit_test(quadratic_input_through_derivatives_is_integrated_exactly),
        cmocka_unit_test(state_snapshot_restores_the_trajectory),
        cmocka_unit_test(bad_access_names_the_variable),
        cmocka_unit_test(variable_table_declares_types_units_and_causality),
        cmocka_unit_test(bad_tables_are_rejected_with_the_reason),
        cmocka_unit_test(registry_creates_by_uri_and_rejects_unknown_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
