/* Every failure on the way through an FMU's life tears it down as the FMI
 * state machines allow (FMI 1.0 CS section 3.4, FMI 2.0 section 4.3.3 and
 * 2.1.3, FMI 3.0 section 4.2): terminate only after initialization ended
 * successfully and never after Error or Fatal, free after every successful
 * instantiation but not after Fatal. The project's FMUs log "Illegal call
 * sequence" for any call their mode forbids (models/common/instance.c); the
 * Faulty model fails on purpose at instantiation (FaultyBadToken), entering
 * or exiting initialization (fail_phase), the first or a later step
 * (fail_time), with Error, Fatal or a Discard. Checked for `simulate`
 * (rtcosim_simulate) and `run` (the master, beside a healthy Dahlquist), in
 * FMI 1.0, 2.0 and 3.0, from the FMU calls rtcosim traces. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/fmu.h"
#include "rtcosim/log.h"
#include "rtcosim/master.h"
#include "rtcosim/simulate.h"
#include "rtcosim_test_fmus.h"
#include "util/test_util.h"

#define MS RTCOSIM_NS_PER_MS

typedef struct version {
    int number;
    const char *faulty, *bad_token, *dahlquist;
    const char *instantiate, *terminate, *free; /* the functions' names in the trace */
} version;

static const version versions[] = {
    {1, RTCOSIM_FMU_FAULTY_FMI1, RTCOSIM_FMU_FAULTYBADTOKEN_FMI1, RTCOSIM_FMU_DAHLQUIST_FMI1,
     "fmiInstantiateSlave", "fmiTerminateSlave", "fmiFreeSlaveInstance"},
    {2, RTCOSIM_FMU_FAULTY_FMI2, RTCOSIM_FMU_FAULTYBADTOKEN_FMI2, RTCOSIM_FMU_DAHLQUIST_FMI2,
     "fmi2Instantiate", "fmi2Terminate", "fmi2FreeInstance"},
    {3, RTCOSIM_FMU_FAULTY_FMI3, RTCOSIM_FMU_FAULTYBADTOKEN_FMI3, RTCOSIM_FMU_DAHLQUIST_FMI3,
     "fmi3InstantiateCoSimulation", "fmi3Terminate", "fmi3FreeInstance"},
};

/* Where and how Faulty fails, and what the teardown must then call. */
typedef struct phase {
    const char *name;
    bool bad_token;
    const char *fail_phase, *fail_time, *fail_mode;
    bool bad_terminated, bad_freed; /* calls on Faulty */
    /* On the healthy Dahlquist, added after Faulty: the master instantiates,
     * sets up and enters initialization one component after the other, so a
     * failure entering it comes before Dahlquist is instantiated, except in
     * FMI 1.0, whose fmiInitializeSlave does that and runs later. */
    bool ok_instantiated, ok_instantiated_fmi1, ok_terminated;
} phase;

static const phase phases[] = {
    {"instantiation", true, "0", "1", "1", false, false, false, false, false},
    {"entering initialization", false, "1", "1", "1", false, true, false, true, false},
    {"entering initialization (Fatal)", false, "1", "1", "2", false, false, false, true, false},
    {"exiting initialization", false, "2", "1", "1", false, true, true, true, false},
    {"first step (Error)", false, "0", "0", "1", false, true, true, true, true},
    {"later step (Error)", false, "0", "0.5", "1", false, true, true, true, true},
    {"later step (Fatal)", false, "0", "0.5", "2", false, false, true, true, true},
    {"later step (Discard)", false, "0", "0.5", "4", true, true, true, true, true},
};

static rtcosim_component *load(const char *path)
{
    rtcosim_fmu_options opts = {.log_fmi_calls = true, .temp_dir = tu_scratch(".")};
    rtcosim_component *c = NULL;
    rtcosim_error err;
    if (rtcosim_fmu_load(path, &opts, &c, &err) != RTCOSIM_OK)
        fail_msg("loading %s: %s", path, err.message);
    return c;
}

/* "<instance>: <function>(" traced (FMU call tracing at DEBUG). */
static bool called(const char *log, const char *instance, const char *function)
{
    char needle[128];
    snprintf(needle, sizeof needle, "|fmi|%s: %s(", instance, function);
    return strstr(log, needle) != NULL;
}

static void expect_call(const char *log, const version *v, const phase *p, const char *instance,
                        const char *function, bool expected)
{
    if (called(log, instance, function) != expected)
        fail_msg("FMI %d, failing at %s: %s %s %s; log:\n%s", v->number, p->name, instance,
                 expected ? "lacks" : "got", function, log);
}

static void expect_no_illegal_call(const char *log, const version *v, const phase *p)
{
    if (strstr(log, "Illegal call sequence"))
        fail_msg("FMI %d, failing at %s: an FMU saw an illegal call sequence; log:\n%s",
                 v->number, p->name, log);
}

static void simulate_one(const version *v, const phase *p)
{
    tu_log_capture(RTCOSIM_LOG_DEBUG);
    rtcosim_component *c = load(p->bad_token ? v->bad_token : v->faulty);
    rtcosim_start_value starts[] = {
        {"fail_phase", p->fail_phase}, {"fail_time", p->fail_time}, {"fail_mode", p->fail_mode}};
    rtcosim_simulate_options o = {.instance_name = "bad",
                                  .stop_time = 1000 * MS,
                                  .output_interval = 250 * MS,
                                  .start_values = starts,
                                  .start_value_count = 3};
    rtcosim_error err;
    rtcosim_status st = rtcosim_simulate(c, &o, NULL, &err);
    rtcosim_component_free(c);
    const char *log = tu_log_text();
    if (st == RTCOSIM_OK)
        fail_msg("FMI %d, failing at %s: simulate succeeded; log:\n%s", v->number, p->name, log);
    expect_no_illegal_call(log, v, p);
    expect_call(log, v, p, "bad", v->instantiate, true);
    expect_call(log, v, p, "bad", v->terminate, p->bad_terminated);
    expect_call(log, v, p, "bad", v->free, p->bad_freed);
}

static void run_two(const version *v, const phase *p)
{
    tu_log_capture(RTCOSIM_LOG_DEBUG);
    rtcosim_master *m = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_master_create(250 * MS, &m, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_add_component(m, "bad", load(p->bad_token ? v->bad_token : v->faulty), 1, &err),
                     RTCOSIM_OK);
    assert_int_equal(rtcosim_master_add_component(m, "ok", load(v->dahlquist), 1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_set_start_value(m, "bad.fail_phase", p->fail_phase, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_set_start_value(m, "bad.fail_time", p->fail_time, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_set_start_value(m, "bad.fail_mode", p->fail_mode, &err), RTCOSIM_OK);
    rtcosim_status st = rtcosim_master_initialize(m, 0, 1000 * MS, &err);
    if (st == RTCOSIM_OK)
        st = rtcosim_master_run(m, 1000 * MS, NULL, NULL, &err);
    rtcosim_master_free(m);
    const char *log = tu_log_text();
    if (st == RTCOSIM_OK)
        fail_msg("FMI %d, failing at %s: the run succeeded; log:\n%s", v->number, p->name, log);
    expect_no_illegal_call(log, v, p);
    expect_call(log, v, p, "bad", v->terminate, p->bad_terminated);
    expect_call(log, v, p, "bad", v->free, p->bad_freed);
    bool ok_instantiated = v->number == 1 ? p->ok_instantiated_fmi1 : p->ok_instantiated;
    expect_call(log, v, p, "ok", v->instantiate, ok_instantiated);
    expect_call(log, v, p, "ok", v->terminate, p->ok_terminated);
    expect_call(log, v, p, "ok", v->free, ok_instantiated);
}

static void simulate_tears_down_as_fmi_allows_at_every_phase(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++)
        for (size_t k = 0; k < sizeof phases / sizeof phases[0]; k++)
            simulate_one(&versions[i], &phases[k]);
}

static void run_tears_down_as_fmi_allows_at_every_phase(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++)
        for (size_t k = 0; k < sizeof phases / sizeof phases[0]; k++)
            run_two(&versions[i], &phases[k]);
}

/* FMI 2.0 section 2.1.3: Fatal corrupts every instance of the FMU, so a
 * second instance of the same binary, healthy itself, is neither
 * terminated nor freed either; another FMU's instance is torn down. */
static void fatal_leaves_every_instance_of_that_fmu_alone(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
        const version *v = &versions[i];
        tu_log_capture(RTCOSIM_LOG_DEBUG);
        rtcosim_master *m = NULL;
        rtcosim_error err;
        assert_int_equal(rtcosim_master_create(250 * MS, &m, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_master_add_component(m, "bad", load(v->faulty), 1, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_master_add_component(m, "twin", load(v->faulty), 1, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_master_add_component(m, "ok", load(v->dahlquist), 1, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_master_set_start_value(m, "bad.fail_time", "0.5", &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_master_set_start_value(m, "bad.fail_mode", "2", &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_master_set_start_value(m, "twin.fail_time", "100", &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_master_initialize(m, 0, 1000 * MS, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_master_run(m, 1000 * MS, NULL, NULL, &err), RTCOSIM_EFATAL);
        rtcosim_master_free(m);
        const char *log = tu_log_text();
        const phase p = {.name = "a later step (Fatal), beside a twin"};
        expect_no_illegal_call(log, v, &p);
        expect_call(log, v, &p, "bad", v->terminate, false);
        expect_call(log, v, &p, "bad", v->free, false);
        expect_call(log, v, &p, "twin", v->terminate, false);
        expect_call(log, v, &p, "twin", v->free, false);
        expect_call(log, v, &p, "ok", v->terminate, true);
        expect_call(log, v, &p, "ok", v->free, true);
    }
}

/* After an Error a state saved before it may be set (FMI 2.0 section 2.1.3,
 * FMI 3.0 section 2.2.4): the instance is usable again, steps on, and ends
 * with terminate and free as any other; after a Fatal, setting it is
 * refused without a call to the FMU. FMI 2.0 and 3.0 (FMI 1.0 has no FMU
 * state), through the importer and the component's state machine. */
static void a_saved_state_recovers_an_fmu_after_an_error(void **state)
{
    (void)state;
    for (size_t i = 1; i < sizeof versions / sizeof versions[0]; i++)
        for (int fatal = 0; fatal < 2; fatal++) {
            const version *v = &versions[i];
            tu_log_capture(RTCOSIM_LOG_DEBUG);
            rtcosim_component *c = load(v->faulty);
            rtcosim_error err;
            uint32_t vr_time = rtcosim_component_find_variable(c, "fail_time")->value_reference,
                     vr_mode = rtcosim_component_find_variable(c, "fail_mode")->value_reference,
                     vr_x = rtcosim_component_find_variable(c, "x")->value_reference;
            double fail_at = 0.5, later = 10, x1 = 0, x2 = 0;
            int32_t mode = fatal ? 2 : 1;
            assert_int_equal(rtcosim_component_instantiate(c, "bad", &err), RTCOSIM_OK);
            assert_int_equal(rtcosim_component_setup(c, 0, 0, -1, &err), RTCOSIM_OK);
            assert_int_equal(rtcosim_component_enter_init(c, &err), RTCOSIM_OK);
            assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &vr_time, 1, &fail_at,
                                                   &err), RTCOSIM_OK);
            assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_INT32, &vr_mode, 1, &mode,
                                                   &err), RTCOSIM_OK);
            assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
            assert_int_equal(rtcosim_component_do_step(c, 0, 500 * MS, NULL, &err), RTCOSIM_OK);
            rtcosim_state saved = NULL;
            assert_int_equal(rtcosim_component_get_state(c, &saved, &err), RTCOSIM_OK);
            assert_int_equal(rtcosim_component_do_step(c, 500 * MS, 100 * MS, NULL, &err),
                             fatal ? RTCOSIM_EFATAL : RTCOSIM_ECOMPONENT);
            if (fatal) {
                assert_int_equal(rtcosim_component_set_state(c, saved, &err), RTCOSIM_ESTATE);
            } else {
                assert_int_equal(rtcosim_component_set_state(c, saved, &err), RTCOSIM_OK);
                assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &vr_time, 1,
                                                       &later, &err), RTCOSIM_OK);
                assert_int_equal(rtcosim_component_do_step(c, 500 * MS, 100 * MS, NULL, &err),
                                 RTCOSIM_OK);
                assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &vr_x, 1, &x1,
                                                       &err), RTCOSIM_OK);
                /* the same step from the same state again (fail_time is part
                 * of it: set again): the same value */
                assert_int_equal(rtcosim_component_set_state(c, saved, &err), RTCOSIM_OK);
                assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &vr_time, 1,
                                                       &later, &err), RTCOSIM_OK);
                assert_int_equal(rtcosim_component_do_step(c, 500 * MS, 100 * MS, NULL, &err),
                                 RTCOSIM_OK);
                assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &vr_x, 1, &x2,
                                                       &err), RTCOSIM_OK);
                assert_true(x1 == x2 && x1 > 0);
            }
            rtcosim_component_free_state(c, saved);
            rtcosim_component_free(c);
            const char *log = tu_log_text();
            const phase p = {.name = fatal ? "a step (Fatal), then a saved state"
                                           : "a step (Error), then a saved state"};
            expect_no_illegal_call(log, v, &p);
            expect_call(log, v, &p, "bad", v->terminate, !fatal);
            expect_call(log, v, &p, "bad", v->free, !fatal);
        }
}

/* The glue's own check: a terminate in Initialization Mode is reported as
 * an illegal call sequence, so the tests above would see one. */
static void the_test_fmus_report_an_illegal_call_sequence(void **state)
{
    (void)state;
    tu_log_capture(RTCOSIM_LOG_DEBUG);
    rtcosim_component *c = load(RTCOSIM_FMU_DAHLQUIST_FMI2);
    rtcosim_error err;
    assert_int_equal(rtcosim_component_instantiate(c, "early", &err), RTCOSIM_OK);
    uint32_t vr = rtcosim_component_find_variable(c, "x")->value_reference;
    double x;
    /* Instantiated: fmi2GetReal is not allowed before initialization mode. */
    assert_int_not_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &vr, 1, &x, &err),
                         RTCOSIM_OK);
    rtcosim_component_free(c);
    /* without FMU logging shown, the FMU's message comes with the error */
    assert_non_null(strstr(err.message, "fmi2GetReal: Illegal call sequence: not allowed in Instantiated"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_test_fmus_report_an_illegal_call_sequence),
        cmocka_unit_test(simulate_tears_down_as_fmi_allows_at_every_phase),
        cmocka_unit_test(run_tears_down_as_fmi_allows_at_every_phase),
        cmocka_unit_test(fatal_leaves_every_instance_of_that_fmu_alone),
        cmocka_unit_test(a_saved_state_recovers_an_fmu_after_an_error),
    };
    int failed = cmocka_run_group_tests(tests, tu_scratch_group_setup, tu_scratch_group_teardown);
    rtcosim_log_set_handler(NULL, NULL);
    return failed;
}
