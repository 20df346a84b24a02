/* FMI 1.0 FMUs built from the project's models (Dahlquist, BouncingBall; co-
 * simulation and model exchange) through rtcosim_fmu_load, against closed
 * forms: Dahlquist's x' = -k x under explicit Euler is x_n = (1 - k dt)^n
 * exactly and e^{-kt} within the solver's error; the bouncing ball falls from
 * h0 = 1 under g = 9.81 and first hits the ground at sqrt(2/g), then after
 * 2 e v1 / g more (e = 0.7). Also negated aliases, start values before
 * fmiInitializeSlave, and binaries lacking functions. */
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
#include "rtcosim/fmu.h"
#include "rtcosim/log.h"
#include "rtcosim_test_fmus.h"

#define MS RTCOSIM_NS_PER_MS

/* Exact equality of doubles, both values in the failure message. */
#define assert_exact(a, b)                                                                 \
    do {                                                                                   \
        double a_ = (a), b_ = (b);                                                         \
        if (a_ != b_)                                                                      \
            fail_msg("%s = %.17g, expected %.17g", #a, a_, b_);                            \
    } while (0)

static char *tmp_dir;

static int group_setup(void **state)
{
    (void)state;
    tmp_dir = tu_make_dir();
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    tu_drop_dir(tmp_dir);
    return 0;
}

static rtcosim_component *load_with(const char *path, rtcosim_fmu_options opts, bool trace)
{
    opts.temp_dir = tmp_dir;
    opts.log_fmi_calls = trace;
    rtcosim_component *c = NULL;
    rtcosim_error err;
    if (rtcosim_fmu_load(path, &opts, &c, &err) != RTCOSIM_OK)
        fail_msg("loading %s: %s", path, err.message);
    assert_int_equal(rtcosim_component_instantiate(c, "one", &err), RTCOSIM_OK);
    return c;
}

static rtcosim_component *load_cs(const char *path, bool trace)
{
    return load_with(path, (rtcosim_fmu_options){0}, trace);
}

static uint32_t vr_of(rtcosim_component *c, const char *name)
{
    const rtcosim_variable *v = rtcosim_component_find_variable(c, name);
    if (!v)
        fail_msg("no variable %s", name);
    return v->value_reference;
}

static double get(rtcosim_component *c, const char *name)
{
    uint32_t vr = vr_of(c, name);
    double value = NAN;
    rtcosim_error err;
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &vr, 1, &value, &err),
                     RTCOSIM_OK);
    return value;
}

static void set(rtcosim_component *c, const char *name, double value)
{
    uint32_t vr = vr_of(c, name);
    rtcosim_error err;
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &vr, 1, &value, &err),
                     RTCOSIM_OK);
}

/* setup(start 0, no stop) and enter_init; parameters go in before exit_init. */
static void begin(rtcosim_component *c)
{
    rtcosim_error err;
    assert_int_equal(rtcosim_component_setup(c, 0, 0, -1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_enter_init(c, &err), RTCOSIM_OK);
}

static void step(rtcosim_component *c, rtcosim_time_ns t, rtcosim_time_ns h)
{
    rtcosim_error err;
    if (rtcosim_component_do_step(c, t, h, NULL, &err) != RTCOSIM_OK)
        fail_msg("step at %lld: %s", (long long)t, err.message);
}

static void co_simulation_dahlquist_follows_the_euler_recurrence(void **state)
{
    (void)state;
    rtcosim_component *c = load_cs(RTCOSIM_FMU_DAHLQUIST_FMI1, false);
    const rtcosim_fmu_info *info = rtcosim_fmu_info_of(c);
    assert_non_null(info);
    assert_int_equal(info->fmi_version, RTCOSIM_FMI_1);
    assert_int_equal(info->interface_type, RTCOSIM_FMI_CO_SIMULATION);
    begin(c);
    set(c, "k", 2.0);
    rtcosim_error err;
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
    assert_exact(get(c, "x"), 1.0);
    /* 100 steps of 1 ms, each 10 Euler micro steps of 1e-4 (solver_step). */
    for (int i = 0; i < 100; i++)
        step(c, i * MS, MS);
    double x = get(c, "x"), exact = pow(1.0 - 2.0 * 1e-4, 1000);
    assert_true(fabs(x - exact) <= 1e-12 * exact);
    assert_true(fabs(x - exp(-0.2)) < 2e-5); /* Euler: O(dt) */
    assert_int_equal(rtcosim_component_terminate(c, &err), RTCOSIM_OK);
    rtcosim_component_free(c);
}

static void model_exchange_dahlquist_through_euler_and_cvode(void **state)
{
    (void)state;
    /* Euler with the micro step = the communication step: (1 - k h)^n. */
    rtcosim_component *c = load_with(RTCOSIM_FMU_DAHLQUIST_FMI1ME,
                                     (rtcosim_fmu_options){.interface_type = RTCOSIM_FMI_MODEL_EXCHANGE,
                                                           .solver = RTCOSIM_ME_SOLVER_EULER},
                                     false);
    assert_int_equal(rtcosim_fmu_info_of(c)->interface_type, RTCOSIM_FMI_MODEL_EXCHANGE);
    assert_int_equal(rtcosim_fmu_info_of(c)->state_count, 1);
    begin(c);
    set(c, "k", 0.5);
    rtcosim_error err;
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
    for (int i = 0; i < 20; i++)
        step(c, i * 100 * MS, 100 * MS);
    double exact = pow(1.0 - 0.5 * 0.1, 20);
    assert_true(fabs(get(c, "x") - exact) <= 1e-12 * exact);
    rtcosim_component_free(c);

    /* CVODE: e^{-kt} within its tolerance. */
    c = load_with(RTCOSIM_FMU_DAHLQUIST_FMI1ME,
                  (rtcosim_fmu_options){.interface_type = RTCOSIM_FMI_MODEL_EXCHANGE}, false);
    assert_int_equal(rtcosim_component_setup(c, 1e-8, 0, -1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_enter_init(c, &err), RTCOSIM_OK);
    set(c, "k", 3.0);
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
    for (int i = 0; i < 10; i++)
        step(c, i * 100 * MS, 100 * MS);
    assert_true(fabs(get(c, "x") - exp(-3.0)) < 1e-6);
    assert_int_equal(rtcosim_component_terminate(c, &err), RTCOSIM_OK);
    rtcosim_component_free(c);
}

static void model_exchange_bouncing_ball_bounces_at_the_closed_form_times(void **state)
{
    (void)state;
    rtcosim_component *c = load_with(RTCOSIM_FMU_BOUNCINGBALL_FMI1ME,
                                     (rtcosim_fmu_options){.interface_type = RTCOSIM_FMI_MODEL_EXCHANGE},
                                     false);
    rtcosim_error err;
    assert_int_equal(rtcosim_component_setup(c, 1e-8, 0, -1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_enter_init(c, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
    const double g = 9.81, t1 = sqrt(2.0 / g), t2 = t1 + 2.0 * 0.7 * g * t1 / g;
    /* Before the bounce: free fall h = 1 - g t^2 / 2. */
    step(c, 0, 400 * MS);
    assert_true(fabs(get(c, "h") - (1.0 - g * 0.16 / 2)) < 1e-6);
    step(c, 400 * MS, 100 * MS); /* across t1 */
    rtcosim_me_stats stats;
    assert_int_equal(rtcosim_fmu_me_stats(c, &stats, &err), RTCOSIM_OK);
    assert_true(fabs(stats.last_event_time - t1) < 1e-6);
    assert_true(get(c, "v") > 0); /* going up again */
    for (int i = 5; i < 12; i++)
        step(c, i * 100 * MS, 100 * MS); /* to 1.2 s, across t2 = 1.0837 */
    assert_int_equal(rtcosim_fmu_me_stats(c, &stats, &err), RTCOSIM_OK);
    assert_true(fabs(stats.last_event_time - t2) < 1e-5);
    rtcosim_component_free(c);
}

static void co_simulation_bouncing_ball_falls_and_bounces(void **state)
{
    (void)state;
    rtcosim_component *c = load_cs(RTCOSIM_FMU_BOUNCINGBALL_FMI1, false);
    begin(c);
    rtcosim_error err;
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
    const double g = 9.81, t1 = sqrt(2.0 / g);
    step(c, 0, 400 * MS);
    assert_true(fabs(get(c, "h") - (1.0 - g * 0.16 / 2)) < 1e-3);
    assert_true(get(c, "v") < 0);
    step(c, 400 * MS, 100 * MS);
    /* Rising after the bounce at t1 with v = e g t1, decelerated since. */
    assert_true(fabs(get(c, "v") - (0.7 * g * t1 - g * (0.5 - t1))) < 0.05);
    rtcosim_component_free(c);
}

static void negated_aliases_read_and_write_the_negated_base(void **state)
{
    (void)state;
    rtcosim_component *c = load_cs(RTCOSIM_FMU_DAHLQUISTNEGATED_FMI1, false);
    /* Own references, distinct from the base's. */
    assert_int_not_equal(vr_of(c, "minus_k"), vr_of(c, "k"));
    begin(c);
    set(c, "minus_k", -3.0); /* k = 3 */
    rtcosim_error err;
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
    /* FMI 1.0 reads values only after initialization. */
    assert_exact(get(c, "k"), 3.0);
    assert_exact(get(c, "minus_k"), -3.0);
    for (int i = 0; i < 10; i++)
        step(c, i * MS, MS);
    double exact = pow(1.0 - 3.0 * 1e-4, 100);
    assert_true(fabs(get(c, "x") - exact) <= 1e-12 * exact);
    assert_exact(get(c, "minus_x"), -get(c, "x"));
    /* Mixed batch: base and aliases in one call. */
    uint32_t vrs[3] = {vr_of(c, "x"), vr_of(c, "minus_x"), vr_of(c, "minus_k")};
    double values[3];
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, vrs, 3, values, &err),
                     RTCOSIM_OK);
    assert_exact(values[1], -values[0]);
    assert_exact(values[2], -3.0);
    rtcosim_component_free(c);
}

static void start_values_are_set_before_initialize_slave(void **state)
{
    (void)state;
    tu_log_capture(RTCOSIM_LOG_DEBUG);
    rtcosim_component *c = load_cs(RTCOSIM_FMU_DAHLQUIST_FMI1, true);
    begin(c);
    rtcosim_error err;
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
    step(c, 0, 250 * MS);
    rtcosim_component_free(c);
    const char *log = tu_log_text();
    const char *inst = strstr(log, "one: fmiInstantiateSlave(\"one\", "
                                   "\"{6f0b9a2e-3c1d-4e57-9a8b-1d2c3e4f5a01}\", \"file://");
    const char *k = strstr(log, "one: fmiSetReal(#3=1) -> fmiOK");
    const char *x0 = strstr(log, "one: fmiSetReal(#4=1) -> fmiOK");
    const char *solver_step = strstr(log, "one: fmiSetReal(#5=0.0001) -> fmiOK");
    const char *init = strstr(log, "one: fmiInitializeSlave(tStart=0, StopTimeDefined=0, tStop=0)");
    const char *do_step = strstr(log, "one: fmiDoStep(t=0, h=0.25, newStep=true) -> fmiOK");
    const char *freed = strstr(log, "one: fmiFreeSlaveInstance");
    assert_non_null(inst);
    assert_non_null(k);
    assert_non_null(x0);
    assert_non_null(solver_step);
    assert_non_null(init);
    assert_non_null(do_step);
    assert_non_null(freed);
    assert_true(inst < k && k < init && x0 < init && solver_step < init && init < do_step &&
                do_step < freed);
    assert_non_null(strstr(inst, "\"application/x-fmu-sharedlibrary\", timeout=0"));
    rtcosim_log_set_handler(NULL, NULL);
    rtcosim_log_set_level(RTCOSIM_LOG_INFO);
}

/* Reads every String of the Strings FMU in one call. */
static void get_strings(rtcosim_component *c, const char **string_out, const char **empty_out,
                        const char **steps_out)
{
    uint32_t vrs[3] = {vr_of(c, "String_output"), vr_of(c, "Empty_output"),
                       vr_of(c, "Steps_output")};
    const char *values[3] = {NULL, NULL, NULL};
    rtcosim_error err;
    if (rtcosim_component_get(c, RTCOSIM_TYPE_STRING, vrs, 3, values, &err) != RTCOSIM_OK)
        fail_msg("get strings: %s", err.message);
    *string_out = values[0];
    *empty_out = values[1];
    *steps_out = values[2];
}

/* The Strings FMU (FMI 1.0 co-simulation) returns each fmiGetString's values
 * in a fresh buffer, overwrites and frees the previous one, and returns ""
 * as NULL. What rtcosim hands out must stay the value read until that
 * variable is read again, NULL must read as "", and a value longer than any
 * before (Steps_output gains "ab" per step: 2n bytes after n steps) must
 * arrive whole. Under ASan a kept FMU pointer is a heap-use-after-free. */
static void fmi1_strings_are_copied_when_read(void **state)
{
    (void)state;
    rtcosim_component *c = load_cs(RTCOSIM_FMU_STRINGS_FMI1, false);
    begin(c);
    rtcosim_error err;
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
    const char *string_out, *empty_out, *steps_out;
    get_strings(c, &string_out, &empty_out, &steps_out);
    assert_string_equal(string_out, "ab"); /* the description's start value of String_input */
    assert_non_null(empty_out);
    assert_string_equal(empty_out, "");
    assert_string_equal(steps_out, "");
    uint32_t vr_length = vr_of(c, "Length_output");
    int32_t length = -1;
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_INT32, &vr_length, 1, &length, &err),
                     RTCOSIM_OK);
    assert_int_equal(length, 2);

    /* A String input set to NULL reaches the FMU as "". */
    uint32_t vr_in = vr_of(c, "String_input");
    const char *none = NULL;
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_STRING, &vr_in, 1, &none, &err),
                     RTCOSIM_OK);
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_INT32, &vr_length, 1, &length, &err),
                     RTCOSIM_OK);
    assert_int_equal(length, 0);
    const char *text = "x\"y";
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_STRING, &vr_in, 1, &text, &err),
                     RTCOSIM_OK);

    char expected[128] = "";
    for (int n = 1; n <= 40; n++) {
        step(c, (n - 1) * 25 * MS, 25 * MS);
        const char *first_string_out = NULL, *ignore;
        get_strings(c, &first_string_out, &ignore, &ignore);
        /* Another read: the FMU frees the buffer of the first. */
        get_strings(c, &string_out, &empty_out, &steps_out);
        assert_string_equal(first_string_out, "x\"y");
        assert_string_equal(string_out, "x\"y");
        assert_string_equal(empty_out, "");
        strcat(expected, "ab");
        assert_string_equal(steps_out, expected);
        assert_int_equal(strlen(steps_out), 2 * n);
    }
    assert_int_equal(rtcosim_component_terminate(c, &err), RTCOSIM_OK);
    rtcosim_component_free(c);
}

static void expect_load_error(const char *path, rtcosim_fmi_interface type, const char *text)
{
    rtcosim_fmu_options opts = {.temp_dir = tmp_dir, .interface_type = type};
    rtcosim_component *c = NULL;
    rtcosim_error err;
    assert_int_not_equal(rtcosim_fmu_load(path, &opts, &c, &err), RTCOSIM_OK);
    assert_null(c);
    if (!strstr(err.message, text))
        fail_msg("expected '%s' in: %s", text, err.message);
}

static void binaries_lacking_functions_are_refused_naming_them(void **state)
{
    (void)state;
    expect_load_error(RTCOSIM_FMU_DAHLQUISTNODOSTEP_FMI1, RTCOSIM_FMI_CO_SIMULATION,
                      "DahlquistNoDoStep-fmi1.fmu: binary lacks DahlquistNoDoStep_fmiDoStep");
    expect_load_error(RTCOSIM_FMU_DAHLQUISTNODERIVATIVES_FMI1ME, RTCOSIM_FMI_MODEL_EXCHANGE,
                      "DahlquistNoDerivatives-fmi1me.fmu: binary lacks "
                      "DahlquistNoDerivatives_fmiGetDerivatives");
    /* A co-simulation FMU does not offer model exchange in 1.0. */
    expect_load_error(RTCOSIM_FMU_DAHLQUIST_FMI1, RTCOSIM_FMI_MODEL_EXCHANGE,
                      "does not support model exchange");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(co_simulation_dahlquist_follows_the_euler_recurrence),
        cmocka_unit_test(model_exchange_dahlquist_through_euler_and_cvode),
        cmocka_unit_test(model_exchange_bouncing_ball_bounces_at_the_closed_form_times),
        cmocka_unit_test(co_simulation_bouncing_ball_falls_and_bounces),
        cmocka_unit_test(negated_aliases_read_and_write_the_negated_base),
        cmocka_unit_test(start_values_are_set_before_initialize_slave),
        cmocka_unit_test(fmi1_strings_are_copied_when_read),
        cmocka_unit_test(binaries_lacking_functions_are_refused_naming_them),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
