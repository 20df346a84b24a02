/* Declared ranges in `rtcosim simulate`: a start value or an input-file
 * value outside a variable's min/max is logged as a warning naming the
 * variable, its range, the file line and how many rows fall outside, and
 * the run goes on with the value; with strict_ranges it is an error before
 * the component sees anything. A native component with hand-set ranges:
 * gain k in [0, 5], input u in [0, 10], integer input mode in [1, 3]. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/csv.h"
#include "rtcosim/log.h"
#include "rtcosim/simulate.h"
#include "util/test_util.h"

typedef struct plant {
    double k, u;
    int32_t mode;
    int sets; /* set calls that reached the component */
} plant;

static rtcosim_status plant_step(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                 rtcosim_step_result *r, rtcosim_error *err)
{
    (void)self, (void)t, (void)h, (void)r, (void)err;
    return RTCOSIM_OK;
}

static rtcosim_status plant_get(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                                void *values, rtcosim_error *err)
{
    (void)err;
    plant *p = self;
    for (size_t i = 0; i < n; i++)
        if (type == RTCOSIM_TYPE_FLOAT64)
            ((double *)values)[i] = vrs[i] == 0 ? p->k : p->u;
        else
            ((int32_t *)values)[i] = p->mode;
    return RTCOSIM_OK;
}

static rtcosim_status plant_set(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                                const void *values, rtcosim_error *err)
{
    (void)err;
    plant *p = self;
    p->sets++;
    for (size_t i = 0; i < n; i++)
        if (type == RTCOSIM_TYPE_FLOAT64)
            *(vrs[i] == 0 ? &p->k : &p->u) = ((const double *)values)[i];
        else
            p->mode = ((const int32_t *)values)[i];
    return RTCOSIM_OK;
}

static void plant_destroy(void *self)
{
    (void)self; /* static */
}

static const rtcosim_component_ops plant_ops = {
    .kind = "native", .do_step = plant_step, .get = plant_get, .set = plant_set,
    .destroy = plant_destroy};

static const rtcosim_variable plant_vars[] = {
    {.name = "k", .value_reference = 0, .type = RTCOSIM_TYPE_FLOAT64,
     .causality = RTCOSIM_CAUSALITY_PARAMETER, .variability = RTCOSIM_VARIABILITY_FIXED,
     .initial = RTCOSIM_INITIAL_EXACT, .derivative_of = -1, .has_min = true, .has_max = true,
     .min.f64 = 0, .max.f64 = 5},
    {.name = "u", .value_reference = 1, .type = RTCOSIM_TYPE_FLOAT64,
     .causality = RTCOSIM_CAUSALITY_INPUT, .variability = RTCOSIM_VARIABILITY_CONTINUOUS,
     .derivative_of = -1, .has_min = true, .has_max = true, .min.f64 = 0, .max.f64 = 10},
    {.name = "mode", .value_reference = 2, .type = RTCOSIM_TYPE_INT32,
     .causality = RTCOSIM_CAUSALITY_INPUT, .variability = RTCOSIM_VARIABILITY_DISCRETE,
     .derivative_of = -1, .has_min = true, .has_max = true, .min.i64 = 1, .max.i64 = 3},
};

static plant the_plant;

static rtcosim_component *make_plant(void)
{
    memset(&the_plant, 0, sizeof the_plant);
    rtcosim_component_desc desc = {.model_name = "Plant", .variables = plant_vars,
                                   .variable_count = 3};
    rtcosim_component *c = NULL;
    assert_int_equal(rtcosim_component_create(&plant_ops, &the_plant, &desc, &c, NULL), RTCOSIM_OK);
    return c;
}

static char warnings[4][512];
static int warning_count;

static void collect(void *context, rtcosim_log_level level, const char *category, const char *message)
{
    (void)context, (void)category;
    if (level == RTCOSIM_LOG_WARNING && warning_count < 4)
        snprintf(warnings[warning_count++], sizeof warnings[0], "%s", message);
}

static rtcosim_status run(const char *csv, const rtcosim_start_value *sv, size_t sv_count,
                          bool strict, rtcosim_error *err)
{
    warning_count = 0;
    rtcosim_log_set_handler(collect, NULL);
    rtcosim_component *c = make_plant();
    rtcosim_csv *in = csv ? tu_csv(csv) : NULL;
    rtcosim_simulate_options o = {.start_time = 0, .stop_time = RTCOSIM_NS_PER_S,
                                  .output_interval = RTCOSIM_NS_PER_S / 2, .input = in,
                                  .start_values = sv, .start_value_count = sv_count,
                                  .strict_ranges = strict};
    rtcosim_status st = rtcosim_simulate(c, &o, NULL, err);
    rtcosim_csv_free(in);
    rtcosim_component_free(c);
    rtcosim_log_set_handler(NULL, NULL);
    return st;
}

static void input_rows_outside_the_range_warn_with_line_and_count(void **state)
{
    (void)state;
    rtcosim_error err;
    assert_int_equal(run("time,u\n0,1\n0.5,12\n1,-0.5\n", NULL, 0, false, &err), RTCOSIM_OK);
    assert_int_equal(warning_count, 1);
    assert_non_null(strstr(warnings[0], "in.csv:3: input 'u': 12 is outside the declared range "
                                        "[0, 10] (2 of 3 rows outside)"));
    /* The run went on with the file's values: 12 set at 0.5 s (the value at
     * the stop time is not set, no step follows it, as in fmusim). */
    assert_true(the_plant.u == 12);
}

static void strict_refuses_an_input_outside_before_any_set(void **state)
{
    (void)state;
    rtcosim_error err;
    assert_int_equal(run("time,mode\n0,1\n1,4\n", NULL, 0, true, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "in.csv:3: column 'mode': 4 is outside the declared range [1, 3]"));
    assert_int_equal(the_plant.sets, 0);
    assert_int_equal(run("time,mode,u\n0,1,0\n1,3,10\n", NULL, 0, true, &err), RTCOSIM_OK);
    assert_int_equal(warning_count, 0); /* the bounds themselves are inside */
}

static void start_value_outside_warns_or_is_refused(void **state)
{
    (void)state;
    rtcosim_error err;
    rtcosim_start_value k = {"k", "5.5"};
    assert_int_equal(run(NULL, &k, 1, false, &err), RTCOSIM_OK);
    assert_int_equal(warning_count, 1);
    assert_non_null(strstr(warnings[0], "start value 'k': 5.5 is outside the declared range [0, 5]"));
    assert_true(the_plant.k == 5.5);
    assert_int_equal(run(NULL, &k, 1, true, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "start value 'k': 5.5 is outside the declared range [0, 5]"));
    assert_int_equal(the_plant.sets, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(input_rows_outside_the_range_warn_with_line_and_count),
        cmocka_unit_test(strict_refuses_an_input_outside_before_any_set),
        cmocka_unit_test(start_value_outside_warns_or_is_refused),
    };
    return cmocka_run_group_tests(tests, tu_scratch_group_setup, tu_scratch_group_teardown);
}
