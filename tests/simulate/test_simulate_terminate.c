/* rtcosim_simulate with the project's Faulty FMU (FMI 2.0 and 3.0), whose
 * steps from fail_time = 1 s on fail with the status fail_mode chooses. With
 * fail_mode 3 the FMU discards the step and asks to terminate (FMI 2.0
 * fmi2Discard + fmi2GetBooleanStatus(fmi2Terminated), FMI 3.0 fmi3Discard +
 * terminateSimulation), as the Reference FMUs' Stair does at t = 8.8: the run
 * must end normally at the last successful time with the rows so far, each
 * equal to the FMU's explicit Euler solution x(t) = (1 - 1e-4)^(t / 1e-4).
 * With fail_mode 1 (Error), and 4 (Discard without the terminate request),
 * the run must still fail. */
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

static rtcosim_status run(const char *fmu, const char *mode, const char *out,
                          rtcosim_simulate_result *res, rtcosim_error *err)
{
    rtcosim_component *c;
    assert_int_equal(rtcosim_fmu_load(fmu, NULL, &c, err), RTCOSIM_OK);
    rtcosim_start_value sv = {"fail_mode", mode};
    rtcosim_simulate_options o = {.start_time = 0, .stop_time = 2 * RTCOSIM_NS_PER_S,
                                  .output_interval = RTCOSIM_NS_PER_S / 4,
                                  .start_values = &sv, .start_value_count = 1,
                                  .output_file = out};
    rtcosim_status st = rtcosim_simulate(c, &o, res, err);
    rtcosim_component_free(c);
    return st;
}

static void check_rows(const char *out)
{
    char *text = tu_read_file(out, NULL);
    char *line = strtok(text, "\n");
    assert_string_equal(line, "\"time\",\"x\"");
    size_t n = 0;
    while ((line = strtok(NULL, "\n"))) {
        double t, x;
        assert_int_equal(sscanf(line, "%lf,%lf", &t, &x), 2);
        assert_true(t == 0.25 * (double)n);
        double euler = pow(1 - 1e-4, 2500.0 * (double)n);
        assert_true(fabs(x - euler) <= 1e-12 * euler);
        n++;
    }
    assert_int_equal(n, 5); /* 0, 0.25, ..., 1: the last successful time */
}

static void discard_with_terminate_request_ends_normally_at_last_successful_time(void **state)
{
    (void)state;
    const char *fmus[] = {RTCOSIM_FMU_FAULTY_FMI2, RTCOSIM_FMU_FAULTY_FMI3};
    for (int i = 0; i < 2; i++) {
        char *dir = tu_make_dir();
        char out[4096];
        snprintf(out, sizeof out, "%s/out.csv", dir);
        rtcosim_simulate_result res = {0};
        rtcosim_error err;
        assert_int_equal(run(fmus[i], "3", out, &res, &err), RTCOSIM_OK);
        assert_true(res.terminated_by_component);
        assert_true(res.terminated_on_discard);
        assert_int_equal(res.end_time, RTCOSIM_NS_PER_S);
        assert_int_equal(res.steps, 4);
        assert_int_equal(res.rows_written, 5);
        check_rows(out);
        tu_drop_dir(dir);
    }
}

/* Runs both Faulty FMUs in fail_mode mode, expecting status and (per FMI
 * version) message, no termination request and the rows before the step. */
static void expect_failure(const char *mode, rtcosim_status status, const char *const messages[2])
{
    const char *fmus[] = {RTCOSIM_FMU_FAULTY_FMI2, RTCOSIM_FMU_FAULTY_FMI3};
    for (int i = 0; i < 2; i++) {
        char *dir = tu_make_dir();
        char out[4096];
        snprintf(out, sizeof out, "%s/out.csv", dir);
        rtcosim_simulate_result res = {0};
        rtcosim_error err;
        assert_int_equal(run(fmus[i], mode, out, &res, &err), status);
        if (!strstr(err.message, messages[i]))
            fail_msg("message \"%s\" lacks \"%s\"", err.message, messages[i]);
        assert_false(res.terminated_by_component);
        check_rows(out);
        tu_drop_dir(dir);
    }
}

static void error_still_fails_and_keeps_the_rows_before_it(void **state)
{
    (void)state;
    const char *const messages[] = {"fmi2DoStep returned fmi2Error at t=1",
                                    "fmi3DoStep returned fmi3Error at t=1"};
    expect_failure("1", RTCOSIM_ECOMPONENT, messages);
}

/* fail_mode 4: the step is discarded but the FMU does not ask to terminate
 * (fmi2Terminated false, terminateSimulation false): still an error. */
static void discard_without_terminate_request_fails(void **state)
{
    (void)state;
    const char *const messages[] = {
        /* the Faulty FMU's own words (models/faulty) come between */
        "fmi2DoStep returned fmi2Discard at t=1; the FMU said: logStatusDiscard: discarding on "
        "purpose at t = 1 (fail_mode 4) (without asking to terminate",
        "fmi3DoStep returned fmi3Discard at t=1; the FMU said: logStatusDiscard: discarding on "
        "purpose at t = 1 (fail_mode 4) (without asking to terminate"};
    expect_failure("4", RTCOSIM_EDISCARD, messages);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(discard_with_terminate_request_ends_normally_at_last_successful_time),
        cmocka_unit_test(error_still_fails_and_keeps_the_rows_before_it),
        cmocka_unit_test(discard_without_terminate_request_fails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
