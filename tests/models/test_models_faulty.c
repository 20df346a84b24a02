/* The Faulty FMU (FMI 2.0 and 3.0) fails on purpose from fail_time on with
 * the status fail_mode selects (1 Error, 2 Fatal, 3 Discard); the glue must
 * then follow the FMI state machine. Also: functions for capabilities the
 * models do not declare return an error with a message instead of crashing. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fmu_driver.h"

FMU_TARGETS(FAULTY)

enum { VR_TIME, VR_X, VR_DER_X, VR_K, VR_X0, VR_SOLVER_STEP, VR_FAIL_TIME, VR_FAIL_MODE };

/* Faulty with fail_time 0.5 and the mode, stepped in 0.1 s steps up to 0.5. */
static void start_until_failure(fmu *f, const fmu_target *t, int32_t mode)
{
    assert_true(fmu_open(f, t));
    assert_true(fmu_instantiate(f));
    assert_int_equal(fmu_set_real(f, VR_FAIL_TIME, 0.5), 0);
    assert_int_equal(fmu_set_int32(f, VR_FAIL_MODE, mode), 0);
    assert_int_equal(fmu_enter_init(f, 0.0, false, 0.0), 0);
    assert_int_equal(fmu_exit_init(f), 0);
    for (int i = 0; i < 5; i++)
        assert_int_equal(fmu_step(f, i * 0.1, 0.1), 0);
    /* Before failing it is the Dahlquist model: 5000 Euler steps of 1e-4. */
    assert_true(fabs(fmu_real(f, VR_X) - pow(1.0 - 1e-4, 5000)) < 1e-12);
    fmu_log_clear();
}

static void error_mode_fails_the_step_at_fail_time(void **state)
{
    fmu f;
    start_until_failure(&f, *state, 1);
    const double x_before = fmu_real(&f, VR_X);
    assert_int_equal(fmu_step(&f, 0.5, 0.1), fmi2Error);
    assert_non_null(strstr(fmu_log_text, "fail_mode 1"));
    assert_string_equal(fmu_last_category, "logStatusError");
    /* Error state: no more steps, values can still be read, reset recovers. */
    assert_int_equal(fmu_step(&f, 0.5, 0.1), fmi2Error);
    assert_non_null(strstr(fmu_log_text, "not allowed in the error state"));
    assert_true(fmu_real(&f, VR_X) == x_before);
    assert_int_equal(fmu_reset(&f), 0);
    assert_int_equal(fmu_enter_init(&f, 0.0, false, 0.0), 0);
    assert_int_equal(fmu_exit_init(&f), 0);
    assert_true(fmu_real(&f, VR_X) == 1.0);
    assert_int_equal(fmu_step(&f, 0.0, 0.1), 0); /* fail_time is back at its start 1 */
    fmu_close(&f);
}

static void fatal_mode_leaves_only_free(void **state)
{
    fmu f;
    start_until_failure(&f, *state, 2);
    assert_int_equal(fmu_step(&f, 0.5, 0.1), fmi2Fatal);
    assert_string_equal(fmu_last_category, "logStatusFatal");
    double x;
    assert_int_equal(fmu_get_real(&f, VR_X, &x), fmi2Error);
    assert_int_equal(fmu_reset(&f), fmi2Error);
    assert_int_equal(fmu_terminate(&f), fmi2Error);
    fmu_free_instance(&f); /* still frees everything (checked by LeakSanitizer) */
    fmu_close(&f);
}

static void discard_mode_reports_last_successful_time(void **state)
{
    fmu f;
    start_until_failure(&f, *state, 3);
    const double x_before = fmu_real(&f, VR_X);
    assert_int_equal(fmu_step(&f, 0.5, 0.1), fmi2Discard);
    assert_string_equal(fmu_last_category, "logStatusDiscard");
    if (f.version == 2) {
        fmi2Boolean terminated = fmi2False;
        fmi2Real last = -1.0;
        assert_int_equal(f.f2.fmi2GetBooleanStatus(f.instance, fmi2Terminated, &terminated), 0);
        assert_int_equal(f.f2.fmi2GetRealStatus(f.instance, fmi2LastSuccessfulTime, &last), 0);
        assert_true(terminated == fmi2True);
        assert_true(last == 0.5);
    } else {
        assert_true(f.terminate);
        assert_false(f.early_return);
        assert_true(f.last_successful_time == 0.5);
    }
    /* Nothing advanced. */
    assert_true(fmu_real(&f, VR_TIME) == 0.5);
    assert_true(fmu_real(&f, VR_X) == x_before);
    assert_int_equal(fmu_terminate(&f), 0);
    fmu_close(&f);
}

static void invalid_fail_mode_is_refused(void **state)
{
    fmu f;
    assert_true(fmu_open(&f, *state));
    assert_true(fmu_instantiate(&f));
    assert_int_equal(fmu_set_int32(&f, VR_FAIL_MODE, 9), 0);
    assert_int_equal(fmu_enter_init(&f, 0.0, false, 0.0), 0);
    assert_int_equal(fmu_exit_init(&f), fmi2Error);
    assert_non_null(strstr(fmu_log_text, "fail_mode must be"));
    fmu_close(&f);
}

static void undeclared_capabilities_are_errors_with_messages(void **state)
{
    fmu f;
    assert_true(fmu_open(&f, *state));
    assert_true(fmu_start(&f));
    const uint32_t vr = VR_X;
    double value = 0.0;
    fmu_log_clear();
    if (f.version == 2) {
        const fmi2Integer order = 1;
        fmi2Status st;
        assert_int_equal(f.f2.fmi2SetRealInputDerivatives(f.instance, &vr, 1, &order, &value),
                         fmi2Error);
        assert_non_null(strstr(fmu_log_text, "canInterpolateInputs"));
        assert_int_equal(f.f2.fmi2GetRealOutputDerivatives(f.instance, &vr, 1, &order, &value),
                         fmi2Error);
        assert_int_equal(f.f2.fmi2GetDirectionalDerivative(f.instance, &vr, 1, &vr, 1, &value,
                                                           &value),
                         fmi2Error);
        assert_int_equal(f.f2.fmi2CancelStep(f.instance), fmi2Error);
        assert_int_equal(f.f2.fmi2GetStatus(f.instance, fmi2DoStepStatus, &st), fmi2Error);
        assert_int_equal(f.f2.fmi2GetRealStatus(f.instance, fmi2DoStepStatus, &value), fmi2Error);
        /* Model exchange is refused at instantiation. */
        assert_null(f.f2.fmi2Instantiate("me", fmi2ModelExchange, f.token, NULL, &fmu_callbacks2,
                                         fmi2False, fmi2True));
        assert_non_null(strstr(fmu_log_text, "co-simulation only"));
    } else {
        assert_int_equal(f.f3.fmi3EnterEventMode(f.instance), fmi3Error);
        assert_non_null(strstr(fmu_log_text, "hasEventMode"));
        assert_int_equal(f.f3.fmi3EnterStepMode(f.instance), fmi3Error);
        assert_int_equal(f.f3.fmi3EnterConfigurationMode(f.instance), fmi3Error);
        fmi3Clock tick = false;
        assert_int_equal(f.f3.fmi3GetClock(f.instance, &vr, 1, &tick), fmi3Error);
        assert_non_null(strstr(fmu_log_text, "not a Clock"));
        assert_int_equal(f.f3.fmi3GetClock(f.instance, NULL, 0, NULL), fmi3OK);
        assert_int_equal(f.f3.fmi3GetDirectionalDerivative(f.instance, &vr, 1, &vr, 1, &value, 1,
                                                           &value, 1),
                         fmi3Error);
        size_t n = 0;
        assert_int_equal(f.f3.fmi3GetNumberOfVariableDependencies(f.instance, vr, &n), fmi3Error);
        /* nValues must match for scalar variables. */
        assert_int_equal(f.f3.fmi3GetFloat64(f.instance, &vr, 1, &value, 2), fmi3Error);
        assert_non_null(strstr(fmu_log_text, "nValues"));
        fmi3InstantiateModelExchangeTYPE *me =
            (fmi3InstantiateModelExchangeTYPE *)dlsym(f.handle, "fmi3InstantiateModelExchange");
        assert_non_null(me);
        assert_null(me("me", f.token, NULL, false, true, NULL, fmu_logger3));
        /* Event mode requested without hasEventMode. */
        assert_null(f.f3.fmi3InstantiateCoSimulation("ev", f.token, NULL, false, true, true,
                                                     false, NULL, 0, NULL, fmu_logger3, NULL));
        assert_non_null(strstr(fmu_log_text, "eventModeUsed"));
    }
    assert_int_equal(fmu_step(&f, 0.0, 1e-3), 0); /* still usable */
    fmu_close(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        BOTH_VERSIONS(error_mode_fails_the_step_at_fail_time, FAULTY),
        BOTH_VERSIONS(fatal_mode_leaves_only_free, FAULTY),
        BOTH_VERSIONS(discard_mode_reports_last_successful_time, FAULTY),
        BOTH_VERSIONS(invalid_fail_mode_is_refused, FAULTY),
        BOTH_VERSIONS(undeclared_capabilities_are_errors_with_messages, FAULTY),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
