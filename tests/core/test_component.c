/* The component wrapper enforces the lifecycle order, finds variables by name,
 * rejects duplicate names, and forwards batched get/set and steps to the kind;
 * after an Error only a saved state may be set (then it is usable again),
 * after a Fatal nothing. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/component_call.h"
#include "rtcosim/component.h"

/* A counter component: y = number of steps taken times input u. */
typedef struct counter {
    double u, y;
    int steps;
    int *destroyed;
} counter;

static rtcosim_status counter_step(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                   rtcosim_step_result *r, rtcosim_error *err)
{
    (void)t, (void)h, (void)r, (void)err;
    counter *c = self;
    c->steps++;
    c->y += c->u;
    return RTCOSIM_OK;
}

static rtcosim_status counter_get(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                                  void *values, rtcosim_error *err)
{
    counter *c = self;
    if (type != RTCOSIM_TYPE_FLOAT64)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "bad type");
    for (size_t i = 0; i < n; i++)
        ((double *)values)[i] = vrs[i] == 0 ? c->u : c->y;
    return RTCOSIM_OK;
}

static rtcosim_status counter_set(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                                  const void *values, rtcosim_error *err)
{
    counter *c = self;
    if (type != RTCOSIM_TYPE_FLOAT64)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "bad type");
    for (size_t i = 0; i < n; i++)
        if (vrs[i] == 0)
            c->u = ((const double *)values)[i];
    return RTCOSIM_OK;
}

static void counter_destroy(void *self)
{
    counter *c = self;
    (*c->destroyed)++;
    free(c);
}

static const rtcosim_component_ops counter_ops = {
    .kind = "native",
    .do_step = counter_step,
    .get = counter_get,
    .set = counter_set,
    .destroy = counter_destroy,
};

static const rtcosim_variable counter_vars[] = {
    {.name = "u", .value_reference = 0, .type = RTCOSIM_TYPE_FLOAT64,
     .causality = RTCOSIM_CAUSALITY_INPUT, .variability = RTCOSIM_VARIABILITY_CONTINUOUS,
     .derivative_of = -1},
    {.name = "y", .value_reference = 1, .type = RTCOSIM_TYPE_FLOAT64,
     .causality = RTCOSIM_CAUSALITY_OUTPUT, .variability = RTCOSIM_VARIABILITY_CONTINUOUS,
     .derivative_of = -1},
};

static rtcosim_component *make_counter(int *destroyed, const rtcosim_variable *vars, size_t n,
                                       rtcosim_status *status, rtcosim_error *err)
{
    counter *c = calloc(1, sizeof *c);
    c->destroyed = destroyed;
    rtcosim_component_desc desc = {.model_name = "counter", .variables = vars, .variable_count = n};
    rtcosim_component *comp = NULL;
    *status = rtcosim_component_create(&counter_ops, c, &desc, &comp, err);
    return comp;
}

static void steps_and_exchanges_values_in_order(void **state)
{
    (void)state;
    int destroyed = 0;
    rtcosim_status st;
    rtcosim_error err;
    rtcosim_component *c = make_counter(&destroyed, counter_vars, 2, &st, &err);
    assert_int_equal(st, RTCOSIM_OK);
    assert_int_equal(rtcosim_component_instantiate(c, "cnt", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_setup(c, 0, 0, RTCOSIM_NS_PER_S, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_enter_init(c, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
    uint32_t vr_u = 0, vr_y = 1;
    double u = 2.5, y = 0;
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &vr_u, 1, &u, &err), RTCOSIM_OK);
    for (int i = 0; i < 4; i++)
        assert_int_equal(rtcosim_component_do_step(c, i * 1000, 1000, NULL, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &vr_y, 1, &y, &err), RTCOSIM_OK);
    assert_true(y == 10.0); /* 4 steps x 2.5 */
    rtcosim_component_free(c);
    assert_int_equal(destroyed, 1);
}

static void refuses_step_before_initialization(void **state)
{
    (void)state;
    int destroyed = 0;
    rtcosim_status st;
    rtcosim_error err;
    rtcosim_component *c = make_counter(&destroyed, counter_vars, 2, &st, &err);
    assert_int_equal(rtcosim_component_instantiate(c, "early", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_do_step(c, 0, 1000, NULL, &err), RTCOSIM_ESTATE);
    assert_non_null(strstr(err.message, "early"));
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_ESTATE);
    rtcosim_component_free(c);
    assert_int_equal(destroyed, 1);
}

static void finds_variables_by_name(void **state)
{
    (void)state;
    int destroyed = 0;
    rtcosim_status st;
    rtcosim_component *c = make_counter(&destroyed, counter_vars, 2, &st, NULL);
    const rtcosim_variable *v = rtcosim_component_find_variable(c, "y");
    assert_non_null(v);
    assert_int_equal(v->value_reference, 1);
    assert_null(rtcosim_component_find_variable(c, "z"));
    rtcosim_component_free(c);
}

static void rejects_duplicate_variable_names(void **state)
{
    (void)state;
    rtcosim_variable dup[2] = {counter_vars[0], counter_vars[0]};
    int destroyed = 0;
    rtcosim_status st;
    rtcosim_error err;
    rtcosim_component *c = make_counter(&destroyed, dup, 2, &st, &err);
    assert_null(c);
    assert_int_equal(st, RTCOSIM_EFORMAT);
    assert_non_null(strstr(err.message, "'u'"));
    assert_int_equal(destroyed, 1);
}

static void state_snapshot_unsupported_without_ops(void **state)
{
    (void)state;
    int destroyed = 0;
    rtcosim_status st;
    rtcosim_error err;
    rtcosim_component *c = make_counter(&destroyed, counter_vars, 2, &st, &err);
    assert_int_equal(rtcosim_component_instantiate(c, "s", &err), RTCOSIM_OK);
    rtcosim_state snap = NULL;
    assert_int_equal(rtcosim_component_get_state(c, &snap, &err), RTCOSIM_EUNSUPPORTED);
    rtcosim_component_free(c);
}

/* The counter with its state saved and set: a step fails with an Error
 * on u < 0, a Fatal on a NaN u. */
static rtcosim_status picky_step(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                 rtcosim_step_result *r, rtcosim_error *err)
{
    counter *c = self;
    if (isnan(c->u))
        return rtcosim_error_set(err, RTCOSIM_EFATAL, "u is NaN");
    if (c->u < 0) {
        c->y = -1e300; /* what a failed step leaves is undefined */
        return rtcosim_error_set(err, RTCOSIM_ECOMPONENT, "u < 0");
    }
    return counter_step(self, t, h, r, err);
}

static rtcosim_status counter_get_state(void *self, rtcosim_state *state, rtcosim_error *err)
{
    (void)err;
    counter *copy = malloc(sizeof *copy);
    *copy = *(counter *)self;
    *state = copy;
    return RTCOSIM_OK;
}

static rtcosim_status counter_set_state(void *self, rtcosim_state state, rtcosim_error *err)
{
    (void)err;
    *(counter *)self = *(counter *)state;
    return RTCOSIM_OK;
}

static void counter_free_state(void *self, rtcosim_state state)
{
    (void)self;
    free(state);
}

static const rtcosim_component_ops picky_ops = {
    .kind = "native", .do_step = picky_step, .get = counter_get, .set = counter_set,
    .get_state = counter_get_state, .set_state = counter_set_state,
    .free_state = counter_free_state, .destroy = counter_destroy};

static void after_an_error_a_saved_state_makes_it_usable_again(void **state)
{
    (void)state;
    for (int fatal = 0; fatal < 2; fatal++) {
        int destroyed = 0;
        counter *cs = calloc(1, sizeof *cs);
        cs->destroyed = &destroyed;
        rtcosim_component_desc desc = {.model_name = "picky", .variables = counter_vars,
                                       .variable_count = 2,
                                       .capabilities = {.can_get_set_state = true}};
        rtcosim_component *c = NULL;
        rtcosim_error err;
        assert_int_equal(rtcosim_component_create(&picky_ops, cs, &desc, &c, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_component_instantiate(c, "p", &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_component_setup(c, 0, 0, RTCOSIM_NS_PER_S, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_component_enter_init(c, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
        uint32_t vr_u = 0, vr_y = 1;
        double u = 2.0, y = 0;
        assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &vr_u, 1, &u, &err),
                         RTCOSIM_OK);
        assert_int_equal(rtcosim_component_do_step(c, 0, 1000, NULL, &err), RTCOSIM_OK);
        rtcosim_state saved = NULL;
        assert_int_equal(rtcosim_component_get_state(c, &saved, &err), RTCOSIM_OK); /* y = 2 */
        u = fatal ? NAN : -1.0;
        assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &vr_u, 1, &u, &err),
                         RTCOSIM_OK);
        assert_int_equal(rtcosim_component_do_step(c, 1000, 1000, NULL, &err),
                         fatal ? RTCOSIM_EFATAL : RTCOSIM_ECOMPONENT);
        /* failed: nothing but setting a saved state, and that only after an Error */
        assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &vr_y, 1, &y, &err),
                         RTCOSIM_ESTATE);
        assert_non_null(strstr(err.message, "state 'failed'"));
        assert_int_equal(rtcosim_component_do_step(c, 1000, 1000, NULL, &err), RTCOSIM_ESTATE);
        if (fatal) {
            assert_int_equal(rtcosim_component_set_state(c, saved, &err), RTCOSIM_ESTATE);
        } else {
            assert_int_equal(rtcosim_component_set_state(c, saved, &err), RTCOSIM_OK);
            assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &vr_y, 1, &y, &err),
                             RTCOSIM_OK);
            assert_true(y == 2.0); /* the saved state's, u = 2 with it */
            assert_int_equal(rtcosim_component_do_step(c, 1000, 1000, NULL, &err), RTCOSIM_OK);
            assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &vr_y, 1, &y, &err),
                             RTCOSIM_OK);
            assert_true(y == 4.0);
        }
        rtcosim_component_free_state(c, saved);
        rtcosim_component_free(c);
        assert_int_equal(destroyed, 1);
    }
}

/* A crash inside a state call is named by the fatal-signal handler through
 * rtcosim_component_current_call (a hostile FMU state file crashed the
 * Reference FMUs in fmi3SetFMUState, reported as "outside any component
 * call"): the call is known while it runs, and not after. */
static char seen_call[2][32];

static rtcosim_status seeing_get_state(void *self, rtcosim_state *state, rtcosim_error *err)
{
    const char *instance = NULL, *call = NULL;
    if (rtcosim_component_current_call(&instance, &call))
        snprintf(seen_call[0], sizeof seen_call[0], "%s:%s", instance, call);
    return counter_get_state(self, state, err);
}

static rtcosim_status seeing_set_state(void *self, rtcosim_state state, rtcosim_error *err)
{
    const char *instance = NULL, *call = NULL;
    if (rtcosim_component_current_call(&instance, &call))
        snprintf(seen_call[1], sizeof seen_call[1], "%s:%s", instance, call);
    return counter_set_state(self, state, err);
}

static const rtcosim_component_ops seeing_ops = {
    .kind = "native", .do_step = counter_step, .get = counter_get, .set = counter_set,
    .get_state = seeing_get_state, .set_state = seeing_set_state,
    .free_state = counter_free_state, .destroy = counter_destroy};

static void state_calls_are_known_while_they_run(void **state)
{
    (void)state;
    int destroyed = 0;
    counter *cs = calloc(1, sizeof *cs);
    cs->destroyed = &destroyed;
    rtcosim_component_desc desc = {.model_name = "seeing", .variables = counter_vars,
                                   .variable_count = 2,
                                   .capabilities = {.can_get_set_state = true}};
    rtcosim_component *c = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_component_create(&seeing_ops, cs, &desc, &c, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_instantiate(c, "s", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_setup(c, 0, 0, RTCOSIM_NS_PER_S, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_enter_init(c, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
    rtcosim_state saved = NULL;
    assert_int_equal(rtcosim_component_get_state(c, &saved, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_set_state(c, saved, &err), RTCOSIM_OK);
    assert_string_equal(seen_call[0], "s:get_state");
    assert_string_equal(seen_call[1], "s:set_state");
    const char *instance = NULL, *call = NULL;
    assert_false(rtcosim_component_current_call(&instance, &call));
    rtcosim_component_free_state(c, saved);
    rtcosim_component_free(c);
    assert_int_equal(destroyed, 1);
}

/* A layer's own path into its implementation (the model-exchange FMU state
 * files) marks its call the same way, nested or not, and puts back the one
 * before. */
static void a_marked_call_is_known_until_it_is_left(void **state)
{
    (void)state;
    counter *cs = calloc(1, sizeof *cs);
    int destroyed = 0;
    cs->destroyed = &destroyed;
    rtcosim_component_desc desc = {.model_name = "marked", .variables = counter_vars,
                                   .variable_count = 2};
    rtcosim_component *c = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_component_create(&seeing_ops, cs, &desc, &c, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_instantiate(c, "m", &err), RTCOSIM_OK);
    const char *instance = NULL, *call = NULL;
    component_call_mark outer = component_call_enter(c, RTCOSIM_CALL_GET_STATE);
    component_call_mark inner = component_call_enter(c, RTCOSIM_CALL_DESERIALIZE_STATE);
    assert_true(rtcosim_component_current_call(&instance, &call));
    assert_string_equal(instance, "m");
    assert_string_equal(call, "deserialize_state");
    component_call_leave(inner);
    assert_true(rtcosim_component_current_call(&instance, &call));
    assert_string_equal(call, "get_state");
    component_call_leave(outer);
    assert_false(rtcosim_component_current_call(&instance, &call));
    rtcosim_component_free(c);
    assert_int_equal(destroyed, 1);
}

static void parses_typed_values_with_range_checks(void **state)
{
    (void)state;
    rtcosim_value v;
    assert_int_equal(rtcosim_value_parse(RTCOSIM_TYPE_INT8, "127", &v, NULL), RTCOSIM_OK);
    assert_true(v.i64 == 127);
    assert_int_equal(rtcosim_value_parse(RTCOSIM_TYPE_INT8, "128", &v, NULL), RTCOSIM_EINVAL);
    assert_int_equal(rtcosim_value_parse(RTCOSIM_TYPE_UINT16, "-1", &v, NULL), RTCOSIM_EINVAL);
    assert_int_equal(rtcosim_value_parse(RTCOSIM_TYPE_FLOAT64, "1.5e3", &v, NULL), RTCOSIM_OK);
    assert_true(v.f64 == 1500.0);
    assert_int_equal(rtcosim_value_parse(RTCOSIM_TYPE_FLOAT64, "1.5x", &v, NULL), RTCOSIM_EINVAL);
    /* Not finite, or overflowing the type: refused with a message saying so. */
    const char *not_finite[] = {"nan", "NaN", "inf", "-Infinity", "1e999", "-1e400"};
    for (size_t i = 0; i < sizeof not_finite / sizeof not_finite[0]; i++) {
        rtcosim_error err;
        assert_int_equal(rtcosim_value_parse(RTCOSIM_TYPE_FLOAT64, not_finite[i], &v, &err),
                         RTCOSIM_EINVAL);
        assert_non_null(strstr(err.message, "is not a finite Float64 value"));
    }
    assert_int_equal(rtcosim_value_parse(RTCOSIM_TYPE_FLOAT32, "1e39", &v, NULL), RTCOSIM_EINVAL);
    assert_int_equal(rtcosim_value_parse(RTCOSIM_TYPE_FLOAT32, "3e38", &v, NULL), RTCOSIM_OK);
    /* Underflow is not an error: 1e-320 is a subnormal double. */
    assert_int_equal(rtcosim_value_parse(RTCOSIM_TYPE_FLOAT64, "1e-320", &v, NULL), RTCOSIM_OK);
    assert_true(v.f64 > 0 && v.f64 < 1e-300);
    assert_int_equal(rtcosim_value_parse(RTCOSIM_TYPE_BOOLEAN, "true", &v, NULL), RTCOSIM_OK);
    assert_true(v.b);
    assert_int_equal(rtcosim_value_parse(RTCOSIM_TYPE_BOOLEAN, "yes", &v, NULL), RTCOSIM_EINVAL);
    /* Leading zeros are decimal, not octal; 0x is hexadecimal. */
    assert_int_equal(rtcosim_value_parse(RTCOSIM_TYPE_INT32, "010", &v, NULL), RTCOSIM_OK);
    assert_true(v.i64 == 10);
    assert_int_equal(rtcosim_value_parse(RTCOSIM_TYPE_INT32, "-0x1F", &v, NULL), RTCOSIM_OK);
    assert_true(v.i64 == -31);
    assert_int_equal(rtcosim_value_parse(RTCOSIM_TYPE_UINT8, "09", &v, NULL), RTCOSIM_OK);
    assert_true(v.u64 == 9);
    assert_int_equal(rtcosim_value_parse(RTCOSIM_TYPE_UINT64, "18446744073709551615", &v, NULL),
                     RTCOSIM_OK);
    assert_true(v.u64 == UINT64_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(steps_and_exchanges_values_in_order),
        cmocka_unit_test(refuses_step_before_initialization),
        cmocka_unit_test(finds_variables_by_name),
        cmocka_unit_test(rejects_duplicate_variable_names),
        cmocka_unit_test(state_snapshot_unsupported_without_ops),
        cmocka_unit_test(after_an_error_a_saved_state_makes_it_usable_again),
        cmocka_unit_test(parses_typed_values_with_range_checks),
        cmocka_unit_test(state_calls_are_known_while_they_run),
        cmocka_unit_test(a_marked_call_is_known_until_it_is_left),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
