/* The Dahlquist FMU (FMI 2.0 and 3.0) against the explicit Euler recurrence
 * x_n = x0 (1 - k dt)^n and the exact solution x0 exp(-k t), and the shared
 * glue's lifecycle, parameter and value-reference rules, seen through it. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fmu_driver.h"

FMU_TARGETS(DAHLQUIST)
FMU_TARGETS(DAHLQUISTNODOSTEP)

enum { VR_TIME = 0, VR_X = 1, VR_DER_X = 2, VR_K = 3, VR_X0 = 4, VR_SOLVER_STEP = 5 };

static void assert_close(double actual, double expected, double rel)
{
    if (!(fabs(actual - expected) <= rel * fabs(expected)))
        fail_msg("%.17g differs from %.17g by more than %g relative", actual, expected, rel);
}

static void euler_matches_recurrence_and_exact_solution(void **state)
{
    fmu f;
    assert_true(fmu_open(&f, *state));
    assert_true(fmu_start(&f));
    const double h = 1e-4;
    for (int n = 1; n <= 2000; n++) {
        assert_int_equal(fmu_step(&f, (n - 1) * h, h), 0);
        if (n % 100 != 0)
            continue;
        const double t = n * h, x = fmu_real(&f, VR_X);
        assert_close(x, pow(1.0 - h, n), 1e-12);
        /* Euler's global error for der(x) = -k x is about k^2 h t exp(-k t) / 2
         * and always an underestimate: (1 - h)^n < exp(-n h). */
        assert_true(x < exp(-t));
        assert_true(exp(-t) - x <= 0.5 * h * t);
        assert_close(fmu_real(&f, VR_DER_X), -x, 1e-15);
    }
    fmu_close(&f);
}

/* Runs `steps` communication steps of h with the given solver_step. */
static double x_after(const fmu_target *t, double solver_step, double h, int steps)
{
    fmu f;
    assert_true(fmu_open(&f, t));
    assert_true(fmu_instantiate(&f));
    assert_int_equal(fmu_set_real(&f, VR_SOLVER_STEP, solver_step), 0);
    assert_int_equal(fmu_enter_init(&f, 0.0, false, 0.0), 0);
    assert_int_equal(fmu_exit_init(&f), 0);
    for (int i = 0; i < steps; i++)
        assert_int_equal(fmu_step(&f, i * h, h), 0);
    double x = fmu_real(&f, VR_X);
    fmu_close(&f);
    return x;
}

static void communication_step_is_split_into_equal_micro_steps(void **state)
{
    /* 1e-3 / 1e-4: ten micro steps of 1e-4 per step. */
    assert_close(x_after(*state, 1e-4, 1e-3, 10), pow(1.0 - 1e-4, 100), 1e-12);
    /* solver_step = h: one Euler step per communication step. */
    assert_close(x_after(*state, 1e-3, 1e-3, 10), pow(1.0 - 1e-3, 10), 1e-12);
    /* 2.5e-4 / 1e-4: ceil(2.5) = 3 micro steps of h/3, ending exactly at t + h. */
    assert_close(x_after(*state, 1e-4, 2.5e-4, 8), pow(1.0 - 2.5e-4 / 3.0, 24), 1e-12);
}

static void parameters_set_before_initialization_take_effect(void **state)
{
    fmu f;
    assert_true(fmu_open(&f, *state));
    assert_true(fmu_instantiate(&f));
    assert_int_equal(fmu_set_real(&f, VR_K, 2.0), 0);
    assert_int_equal(fmu_set_real(&f, VR_X0, 0.5), 0);
    assert_int_equal(fmu_enter_init(&f, 0.0, false, 0.0), 0);
    assert_true(fmu_real(&f, VR_X) == 0.5);      /* x(start) = x0 */
    assert_true(fmu_real(&f, VR_DER_X) == -1.0); /* -k x0 */
    assert_int_equal(fmu_set_real(&f, VR_X0, 0.25), 0); /* still settable in init */
    assert_true(fmu_real(&f, VR_X) == 0.25);
    assert_int_equal(fmu_exit_init(&f), 0);
    assert_int_equal(fmu_step(&f, 0.0, 1e-4), 0);
    assert_close(fmu_real(&f, VR_X), 0.25 * (1.0 - 2.0 * 1e-4), 1e-15);
    fmu_close(&f);
}

static void tunable_parameter_changes_between_steps_fixed_one_is_refused(void **state)
{
    fmu f;
    assert_true(fmu_open(&f, *state));
    assert_true(fmu_start(&f));
    assert_int_equal(fmu_step(&f, 0.0, 1e-4), 0);
    const double x1 = fmu_real(&f, VR_X);
    assert_int_equal(fmu_set_real(&f, VR_K, 3.0), 0);
    assert_close(fmu_real(&f, VR_DER_X), -3.0 * x1, 1e-15);
    assert_int_equal(fmu_step(&f, 1e-4, 1e-4), 0);
    assert_close(fmu_real(&f, VR_X), x1 * (1.0 - 3e-4), 1e-15);

    fmu_log_clear();
    assert_int_equal(fmu_set_real(&f, VR_X0, 2.0), fmi2Error);
    assert_non_null(strstr(fmu_log_text, "x0"));
    assert_non_null(strstr(fmu_log_text, "logStatusError"));
    assert_int_equal(fmu_set_real(&f, VR_X, 2.0), fmi2Error); /* an output */
    assert_int_equal(fmu_set_real(&f, VR_TIME, 2.0), fmi2Error);
    assert_non_null(strstr(fmu_log_text, "independent"));
    assert_close(fmu_real(&f, VR_X), x1 * (1.0 - 3e-4), 1e-15); /* nothing changed */
    fmu_close(&f);
}

static void bad_value_reference_is_an_error_with_message(void **state)
{
    fmu f;
    assert_true(fmu_open(&f, *state));
    assert_true(fmu_start(&f));
    fmu_log_clear();
    double x = 0;
    assert_int_equal(fmu_get_real(&f, 99, &x), fmi2Error);
    assert_non_null(strstr(fmu_log_text, "99"));
    fmu_log_clear();
    int32_t i = 0;
    assert_int_equal(fmu_get_int32(&f, VR_K, &i), fmi2Error); /* k is a Real/Float64 */
    assert_non_null(strstr(fmu_log_text, "k"));
    assert_int_equal(fmu_set_real(&f, 6, 1.0), fmi2Error);
    /* A batch with one bad reference changes nothing. */
    const uint32_t vrs[2] = {VR_K, 42};
    const double values[2] = {5.0, 5.0};
    int s = f.version == 2 ? f.f2.fmi2SetReal(f.instance, vrs, 2, values)
                           : f.f3.fmi3SetFloat64(f.instance, vrs, 2, values, 2);
    assert_int_equal(s, fmi2Error);
    assert_true(fmu_real(&f, VR_K) == 1.0);
    /* The instance stays usable after a refused call. */
    assert_int_equal(fmu_step(&f, 0.0, 1e-4), 0);
    fmu_close(&f);
}

static void wrong_token_refuses_instantiation(void **state)
{
    fmu f;
    assert_true(fmu_open(&f, *state));
    assert_false(fmu_instantiate_with(&f, "{00000000-0000-0000-0000-000000000000}", true));
    assert_non_null(strstr(fmu_log_text, "does not match"));
    assert_false(fmu_instantiate_with(&f, NULL, true));
    fmu_close(&f);
}

static void lifecycle_order_is_enforced(void **state)
{
    fmu f;
    assert_true(fmu_open(&f, *state));
    assert_true(fmu_instantiate(&f));
    assert_int_equal(fmu_step(&f, 0.0, 1e-3), fmi2Error); /* not initialized */
    assert_non_null(strstr(fmu_log_text, "not allowed in Instantiated"));
    assert_int_equal(fmu_enter_init(&f, 0.0, true, 1e-3), 0);
    assert_int_equal(fmu_step(&f, 0.0, 1e-3), fmi2Error); /* still initializing */
    assert_int_equal(fmu_exit_init(&f), 0);
    assert_int_equal(fmu_exit_init(&f), fmi2Error);

    fmu_log_clear();
    assert_int_equal(fmu_step(&f, 0.5, 1e-4), fmi2Error); /* FMU is at t = 0 */
    assert_non_null(strstr(fmu_log_text, "currentCommunicationPoint"));
    assert_int_equal(fmu_step(&f, 0.0, 0.0), fmi2Error);
    assert_int_equal(fmu_step(&f, 0.0, -1e-4), fmi2Error);
    assert_int_equal(fmu_step(&f, 0.0, 2e-3), fmi2Error); /* past stopTime 1e-3 */
    assert_non_null(strstr(fmu_log_text, "stopTime"));
    assert_int_equal(fmu_step(&f, 0.0, 1e-3), 0);          /* up to stopTime is fine */
    assert_int_equal(fmu_terminate(&f), 0);
    assert_int_equal(fmu_step(&f, 1e-3, 1e-4), fmi2Error); /* terminated */
    assert_true(fmu_real(&f, VR_X) < 1.0);                  /* getters still work */

    /* Reset: back to Instantiated with the start values. */
    assert_int_equal(fmu_reset(&f), 0);
    assert_int_equal(fmu_set_real(&f, VR_X0, 3.0), 0);
    assert_int_equal(fmu_enter_init(&f, 2.0, false, 0.0), 0);
    assert_int_equal(fmu_exit_init(&f), 0);
    assert_true(fmu_real(&f, VR_X) == 3.0);
    assert_true(fmu_real(&f, VR_K) == 1.0);
    assert_true(fmu_real(&f, VR_TIME) == 2.0);
    assert_int_equal(fmu_step(&f, 2.0, 1e-4), 0);
    fmu_close(&f);
}

static void time_variable_reads_the_communication_point(void **state)
{
    fmu f;
    assert_true(fmu_open(&f, *state));
    assert_true(fmu_instantiate(&f));
    assert_int_equal(fmu_enter_init(&f, 1.0, true, 2.0), 0);
    assert_true(fmu_real(&f, VR_TIME) == 1.0);
    assert_int_equal(fmu_exit_init(&f), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(fmu_step(&f, 1.0 + 0.25 * i, 0.25), 0);
    assert_true(fmu_real(&f, VR_TIME) == 1.75);
    fmu_close(&f);
}

static void binary_without_do_step_lacks_only_that_symbol(void **state)
{
    const fmu_target *t = *state;
    fmu f;
    assert_true(fmu_open(&f, t));
    if (t->version == 2) {
        assert_null(dlsym(f.handle, "fmi2DoStep"));
        assert_null(f.f2.fmi2DoStep);
        assert_non_null(f.f2.fmi2Instantiate);
        assert_non_null(f.f2.fmi2GetReal);
        assert_non_null(f.f2.fmi2GetRealStatus);
    } else {
        assert_null(dlsym(f.handle, "fmi3DoStep"));
        assert_non_null(f.f3.fmi3InstantiateCoSimulation);
        assert_non_null(f.f3.fmi3GetFloat64);
        assert_non_null(f.f3.fmi3EnterStepMode);
    }
    assert_true(fmu_start(&f)); /* the rest works */
    assert_true(fmu_real(&f, VR_X) == 1.0);
    fmu_close(&f);
}

static void complete_binary_exports_every_function_and_nothing_else(void **state)
{
    const fmu_target *t = *state;
    fmu f;
    assert_true(fmu_open(&f, t));
#define PRESENT2_(name) assert_non_null(f.f2.name);
#define PRESENT3_(name) assert_non_null(f.f3.name);
    if (t->version == 2) {
        RTCOSIM_FMI2_COMMON_FUNCTIONS(PRESENT2_)
        RTCOSIM_FMI2_CS_FUNCTIONS(PRESENT2_)
        assert_string_equal(f.f2.fmi2GetVersion(), "2.0");
        assert_string_equal(f.f2.fmi2GetTypesPlatform(), "default");
    } else {
        RTCOSIM_FMI3_COMMON_FUNCTIONS(PRESENT3_)
        RTCOSIM_FMI3_CS_FUNCTIONS(PRESENT3_)
        assert_string_equal(f.f3.fmi3GetVersion(), "3.0");
    }
    /* Glue internals are hidden. */
    assert_null(dlsym(f.handle, "instance_get"));
    assert_null(dlsym(f.handle, "model_definition"));
    assert_null(dlsym(f.handle, "model_log"));
    fmu_close(&f);
}

static void logging_respects_logging_on_and_categories(void **state)
{
    fmu f;
    assert_true(fmu_open(&f, *state));
    assert_true(fmu_instantiate_with(&f, f.token, false));
    assert_int_equal(fmu_enter_init(&f, 0.0, false, 0.0), 0);
    assert_int_equal(fmu_exit_init(&f), 0);
    fmu_log_clear();
    double x;
    assert_int_equal(fmu_get_real(&f, 99, &x), fmi2Error);
    /* FMI 2.0: loggingOn only switches debug logging, errors are still
     * reported; FMI 3.0: loggingOn false means no logMessage calls at all. */
    assert_int_equal(fmu_log_count, f.version == 2 ? 1 : 0);

    const char *calls[] = {"logFmiCalls", "logStatusError"};
    int s = f.version == 2 ? f.f2.fmi2SetDebugLogging(f.instance, fmi2True, 2, calls)
                           : f.f3.fmi3SetDebugLogging(f.instance, true, 2, calls);
    assert_int_equal(s, 0);
    fmu_log_clear();
    assert_int_equal(fmu_step(&f, 0.0, 1e-4), 0);
    assert_int_equal(fmu_log_count, 1);
    assert_string_equal(fmu_last_category, "logFmiCalls");
    assert_non_null(strstr(fmu_log_text, "DoStep"));

    /* The FMI 2.0 logger treats the message as a printf format: a '%' in it
     * must arrive as written (and "%n" must not be interpreted). */
    const char *unknown[] = {"log%s%n%%"};
    s = f.version == 2 ? f.f2.fmi2SetDebugLogging(f.instance, fmi2True, 1, unknown)
                       : f.f3.fmi3SetDebugLogging(f.instance, true, 1, unknown);
    assert_int_equal(s, fmi2Error);
    assert_non_null(strstr(fmu_log_text, "unknown log category \"log%s%n%%\""));

    /* All categories off. */
    s = f.version == 2 ? f.f2.fmi2SetDebugLogging(f.instance, fmi2False, 0, NULL)
                       : f.f3.fmi3SetDebugLogging(f.instance, false, 0, NULL);
    assert_int_equal(s, 0);
    fmu_log_clear();
    assert_int_equal(fmu_get_real(&f, 99, &x), fmi2Error);
    assert_int_equal(fmu_step(&f, 1e-4, 1e-4), 0);
    assert_int_equal(fmu_log_count, 0);
    fmu_close(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        BOTH_VERSIONS(euler_matches_recurrence_and_exact_solution, DAHLQUIST),
        BOTH_VERSIONS(communication_step_is_split_into_equal_micro_steps, DAHLQUIST),
        BOTH_VERSIONS(parameters_set_before_initialization_take_effect, DAHLQUIST),
        BOTH_VERSIONS(tunable_parameter_changes_between_steps_fixed_one_is_refused, DAHLQUIST),
        BOTH_VERSIONS(bad_value_reference_is_an_error_with_message, DAHLQUIST),
        BOTH_VERSIONS(wrong_token_refuses_instantiation, DAHLQUIST),
        BOTH_VERSIONS(lifecycle_order_is_enforced, DAHLQUIST),
        BOTH_VERSIONS(time_variable_reads_the_communication_point, DAHLQUIST),
        BOTH_VERSIONS(binary_without_do_step_lacks_only_that_symbol, DAHLQUISTNODOSTEP),
        BOTH_VERSIONS(complete_binary_exports_every_function_and_nothing_else, DAHLQUIST),
        BOTH_VERSIONS(logging_respects_logging_on_and_categories, DAHLQUIST),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
