/* The whole path with the project's own FMUs (models/): unzip, read the
 * description, dlopen, instantiate and step FMI 2.0 and 3.0 co-simulation
 * FMUs, compared with closed-form truth: Dahlquist's x' = -k x under explicit
 * Euler is x_n = (1 - k dt)^n exactly, and within Euler's error of e^{-kt};
 * Feedthrough copies each input to its output. Also failing FMUs, FMU state,
 * call tracing and the temporary directory's lifetime. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/test_util.h"
#include "rtcosim/fmu.h"
#include "rtcosim/log.h"
#include "rtcosim_test_fmus.h"

#define MS RTCOSIM_NS_PER_MS

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

static rtcosim_component *load(const char *path, const char *instance, bool trace)
{
    rtcosim_fmu_options opts = {.temp_dir = tmp_dir, .log_fmi_calls = trace, .fmu_logging_on = true};
    rtcosim_component *c = NULL;
    rtcosim_error err;
    rtcosim_status st = rtcosim_fmu_load(path, &opts, &c, &err);
    if (st != RTCOSIM_OK)
        fail_msg("loading %s: %s", path, err.message);
    if (instance)
        assert_int_equal(rtcosim_component_instantiate(c, instance, &err), RTCOSIM_OK);
    return c;
}

static uint32_t vr_of(rtcosim_component *c, const char *name)
{
    const rtcosim_variable *v = rtcosim_component_find_variable(c, name);
    if (!v)
        fail_msg("no variable %s", name);
    return v->value_reference;
}

static void start(rtcosim_component *c)
{
    rtcosim_error err;
    assert_int_equal(rtcosim_component_setup(c, 0, 0, -1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_enter_init(c, &err), RTCOSIM_OK);
}

static void run_dahlquist(const char *path)
{
    rtcosim_component *c = load(path, "dahlquist", false);
    rtcosim_error err;
    uint32_t k = vr_of(c, "k"), x = vr_of(c, "x");
    start(c);
    const double rate = 2.0;
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &k, 1, &rate, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
    double value = 0;
    for (int i = 0; i < 100; i++) {
        rtcosim_step_result r;
        assert_int_equal(rtcosim_component_do_step(c, i * 10 * MS, 10 * MS, &r, &err), RTCOSIM_OK);
        assert_false(r.early_return || r.terminate_requested);
        assert_int_equal(r.last_successful_time, (i + 1) * 10 * MS);
    }
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &x, 1, &value, &err), RTCOSIM_OK);
    /* 1 s in micro steps of solver_step = 1e-4: x = (1 - k dt)^10000. */
    double euler = pow(1.0 - rate * 1e-4, 10000);
    assert_true(fabs(value - euler) <= 1e-10 * euler);
    /* Euler's global error for x' = -k x at t = 1 is about k^2 dt t / 2 * e^{-kt}. */
    assert_true(fabs(value - exp(-rate)) <= 5e-5);
    assert_int_equal(rtcosim_component_terminate(c, &err), RTCOSIM_OK);
    rtcosim_component_free(c);
}

static void dahlquist_fmi2_follows_euler_and_the_exponential(void **state)
{
    (void)state;
    run_dahlquist(RTCOSIM_FMU_DAHLQUIST_FMI2);
}

static void dahlquist_fmi3_follows_euler_and_the_exponential(void **state)
{
    (void)state;
    run_dahlquist(RTCOSIM_FMU_DAHLQUIST_FMI3);
}

static void fmu_facts_and_default_experiment_come_from_the_description(void **state)
{
    (void)state;
    rtcosim_component *c = load(RTCOSIM_FMU_DAHLQUIST_FMI3, NULL, false);
    const rtcosim_fmu_info *info = rtcosim_fmu_info_of(c);
    assert_non_null(info);
    assert_int_equal(info->fmi_version, RTCOSIM_FMI_3);
    assert_string_equal(info->fmi_version_text, "3.0");
    assert_string_equal(info->model_name, "Dahlquist");
    assert_string_equal(info->model_identifier, "Dahlquist");
    assert_string_equal(info->instantiation_token, "{6f0b9a2e-3c1d-4e57-9a8b-1d2c3e4f5a01}");
    assert_int_equal(info->output_count, 1);
    assert_string_equal(rtcosim_component_variable(c, info->output_indices[0])->name, "x");
    assert_int_equal(access(info->binary_path, R_OK), 0);
    assert_non_null(strstr(info->binary_path, "/binaries/x86_64-linux/Dahlquist.so"));
    assert_string_equal(rtcosim_component_kind(c), "fmi3");
    const rtcosim_component_desc *d = rtcosim_component_description(c);
    assert_true(d->has_default_stop && d->default_stop == 10 * RTCOSIM_NS_PER_S);
    assert_true(d->has_default_step && d->default_step == 100 * RTCOSIM_NS_PER_US);
    assert_true(d->capabilities.can_get_set_state && d->capabilities.can_serialize_state);
    assert_int_equal(rtcosim_component_find_variable(c, "der(x)")->derivative_of, 1);
    rtcosim_component_free(c);
}

static void temporary_directory_lives_exactly_as_long_as_the_component(void **state)
{
    (void)state;
    rtcosim_component *c = load(RTCOSIM_FMU_DAHLQUIST_FMI2, "d", false);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", rtcosim_fmu_info_of(c)->extracted_dir);
    assert_int_equal(strncmp(dir, tmp_dir, strlen(tmp_dir)), 0);
    assert_int_equal(access(tu_path(dir, "modelDescription.xml"), R_OK), 0);
    assert_int_equal(tu_count_entries(tmp_dir), 2); /* the directory and its owner mark */
    /* A second component of the same FMU file shares the extraction (one
     * per archive and run); it stays until the last user is freed. */
    rtcosim_component *c2 = load(RTCOSIM_FMU_DAHLQUIST_FMI2, "d2", false);
    assert_string_equal(rtcosim_fmu_info_of(c2)->extracted_dir, dir);
    assert_int_equal(tu_count_entries(tmp_dir), 2);
    rtcosim_component_free(c);
    assert_int_equal(access(tu_path(dir, "modelDescription.xml"), R_OK), 0);
    rtcosim_component_free(c2);
    assert_int_not_equal(access(dir, F_OK), 0);
    assert_int_equal(tu_count_entries(tmp_dir), 0);
}

/* Feedthrough: output == input for every type of the version. */
static void feedthrough_fmi2_copies_real_integer_boolean_string(void **state)
{
    (void)state;
    rtcosim_component *c = load(RTCOSIM_FMU_FEEDTHROUGH_FMI2, "ft2", false);
    rtcosim_error err;
    start(c);
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
    uint32_t in[4] = {vr_of(c, "Float64_continuous_input"), vr_of(c, "Int32_input"),
                      vr_of(c, "Boolean_input"), vr_of(c, "String_input")};
    uint32_t out[4] = {vr_of(c, "Float64_continuous_output"), vr_of(c, "Int32_output"),
                       vr_of(c, "Boolean_output"), vr_of(c, "String_output")};
    double r = -3.25;
    int32_t i = -123456;
    bool b = true;
    const char *s = "hello FMI";
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &in[0], 1, &r, &err), 0);
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_INT32, &in[1], 1, &i, &err), 0);
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_BOOLEAN, &in[2], 1, &b, &err), 0);
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_STRING, &in[3], 1, &s, &err), 0);
    assert_int_equal(rtcosim_component_do_step(c, 0, MS, NULL, &err), RTCOSIM_OK);
    double r2 = 0;
    int32_t i2 = 0;
    const char *s2 = NULL;
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &out[0], 1, &r2, &err), 0);
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_INT32, &out[1], 1, &i2, &err), 0);
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_STRING, &out[3], 1, &s2, &err), 0);
    assert_true(r2 == r);
    assert_int_equal(i2, i);
    assert_string_equal(s2, s);
    /* A batch longer than the load-time Boolean scratch (one slot per
     * variable) goes through in chunks: 100 copies of the same reference. */
    uint32_t many_vrs[100];
    bool many[100];
    for (int k = 0; k < 100; k++) {
        many_vrs[k] = out[2];
        many[k] = false;
    }
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_BOOLEAN, many_vrs, 100, many, &err), 0);
    for (int k = 0; k < 100; k++)
        assert_true(many[k]);
    float f = 1;
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT32, &out[0], 1, &f, &err),
                     RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "ft2: FMI 2.0 has no Float32 variables"));
    rtcosim_component_free(c);
}

static void feedthrough_fmi3_copies_every_scalar_type(void **state)
{
    (void)state;
    rtcosim_component *c = load(RTCOSIM_FMU_FEEDTHROUGH_FMI3, "ft3", false);
    rtcosim_error err;
    start(c);
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
    static const struct {
        const char *in, *out;
        rtcosim_type type;
    } pairs[] = {
        {"Float64_continuous_input", "Float64_continuous_output", RTCOSIM_TYPE_FLOAT64},
        {"Float32_continuous_input", "Float32_continuous_output", RTCOSIM_TYPE_FLOAT32},
        {"Int8_input", "Int8_output", RTCOSIM_TYPE_INT8},
        {"UInt8_input", "UInt8_output", RTCOSIM_TYPE_UINT8},
        {"Int16_input", "Int16_output", RTCOSIM_TYPE_INT16},
        {"UInt16_input", "UInt16_output", RTCOSIM_TYPE_UINT16},
        {"Int32_input", "Int32_output", RTCOSIM_TYPE_INT32},
        {"UInt32_input", "UInt32_output", RTCOSIM_TYPE_UINT32},
        {"Int64_input", "Int64_output", RTCOSIM_TYPE_INT64},
        {"UInt64_input", "UInt64_output", RTCOSIM_TYPE_UINT64},
        {"Boolean_input", "Boolean_output", RTCOSIM_TYPE_BOOLEAN},
    };
    /* Extreme values of each type, written byte-wise into an 8-byte slot. */
    union {
        double f64;
        float f32;
        int8_t i8;
        uint8_t u8;
        int16_t i16;
        uint16_t u16;
        int32_t i32;
        uint32_t u32;
        int64_t i64;
        uint64_t u64;
        bool b;
    } values[] = {{.f64 = -1e300}, {.f32 = -3.25e38f}, {.i8 = INT8_MIN},   {.u8 = UINT8_MAX},
                  {.i16 = INT16_MIN}, {.u16 = UINT16_MAX}, {.i32 = INT32_MIN}, {.u32 = UINT32_MAX},
                  {.i64 = INT64_MIN}, {.u64 = UINT64_MAX}, {.b = true}};
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        uint32_t vr = vr_of(c, pairs[p].in);
        assert_int_equal(rtcosim_component_set(c, pairs[p].type, &vr, 1, &values[p], &err), 0);
    }
    const uint8_t bytes[] = {0x00, 0xFF, 0x10};
    rtcosim_binary blob = {bytes, sizeof bytes};
    uint32_t bin_in = vr_of(c, "Binary_input"), bin_out = vr_of(c, "Binary_output");
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_BINARY, &bin_in, 1, &blob, &err), 0);
    assert_int_equal(rtcosim_component_do_step(c, 0, MS, NULL, &err), RTCOSIM_OK);
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        uint32_t vr = vr_of(c, pairs[p].out);
        uint64_t slot = 0;
        assert_int_equal(rtcosim_component_get(c, pairs[p].type, &vr, 1, &slot, &err), 0);
        if (memcmp(&slot, &values[p], rtcosim_type_size(pairs[p].type)) != 0)
            fail_msg("%s differs from %s", pairs[p].out, pairs[p].in);
    }
    rtcosim_binary got = {0};
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_BINARY, &bin_out, 1, &got, &err), 0);
    assert_int_equal(got.size, 3);
    assert_memory_equal(got.data, bytes, 3);
    rtcosim_component_free(c);
}

/* Get a state mid-run, run on, restore, run the same steps again: the
 * results agree bit for bit, also through serialization. */
static void run_state_round_trip(const char *path)
{
    rtcosim_component *c = load(path, "dq", false);
    rtcosim_error err;
    uint32_t x = vr_of(c, "x");
    start(c);
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
    for (int i = 0; i < 5; i++)
        assert_int_equal(rtcosim_component_do_step(c, i * 100 * MS, 100 * MS, NULL, &err), 0);
    rtcosim_state saved = NULL;
    assert_int_equal(rtcosim_component_get_state(c, &saved, &err), RTCOSIM_OK);
    size_t size = 0;
    assert_int_equal(rtcosim_component_serialized_state_size(c, saved, &size, &err), RTCOSIM_OK);
    assert_true(size > 0);
    uint8_t *bytes = malloc(size);
    assert_int_equal(rtcosim_component_serialize_state(c, saved, bytes, size, &err), RTCOSIM_OK);
    double first = 0, second = 0, third = 0;
    for (int i = 5; i < 10; i++)
        assert_int_equal(rtcosim_component_do_step(c, i * 100 * MS, 100 * MS, NULL, &err), 0);
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &x, 1, &first, &err), 0);

    assert_int_equal(rtcosim_component_set_state(c, saved, &err), RTCOSIM_OK);
    for (int i = 5; i < 10; i++)
        assert_int_equal(rtcosim_component_do_step(c, i * 100 * MS, 100 * MS, NULL, &err), 0);
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &x, 1, &second, &err), 0);

    rtcosim_state restored = NULL;
    assert_int_equal(rtcosim_component_deserialize_state(c, bytes, size, &restored, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_set_state(c, restored, &err), RTCOSIM_OK);
    for (int i = 5; i < 10; i++)
        assert_int_equal(rtcosim_component_do_step(c, i * 100 * MS, 100 * MS, NULL, &err), 0);
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &x, 1, &third, &err), 0);
    assert_true(first == second && second == third);
    assert_true(fabs(first - pow(1.0 - 1e-4, 10000)) <= 1e-10); /* k = 1, t = 1 s */
    rtcosim_component_free_state(c, saved);
    rtcosim_component_free_state(c, restored);
    free(bytes);
    rtcosim_component_free(c);
}

static void fmi2_state_round_trip_repeats_the_run(void **state)
{
    (void)state;
    run_state_round_trip(RTCOSIM_FMU_DAHLQUIST_FMI2);
}

static void fmi3_state_round_trip_repeats_the_run(void **state)
{
    (void)state;
    run_state_round_trip(RTCOSIM_FMU_DAHLQUIST_FMI3);
}

/* Faulty fails from fail_time = 1 s on with the status chosen by fail_mode. */
static void run_faulty(const char *path, int32_t mode, rtcosim_status expect, const char *message)
{
    tu_log_capture(RTCOSIM_LOG_INFO);
    rtcosim_component *c = load(path, "faulty", false);
    rtcosim_error err;
    uint32_t fail_mode = vr_of(c, "fail_mode");
    start(c);
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_INT32, &fail_mode, 1, &mode, &err), 0);
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
    for (int i = 0; i < 2; i++)
        assert_int_equal(rtcosim_component_do_step(c, i * 500 * MS, 500 * MS, NULL, &err), 0);
    rtcosim_step_result r;
    assert_int_equal(rtcosim_component_do_step(c, 1000 * MS, 500 * MS, &r, &err), expect);
    if (!strstr(err.message, message))
        fail_msg("message \"%s\" lacks \"%s\"", err.message, message);
    if (expect == RTCOSIM_EDISCARD) {
        assert_int_equal(r.last_successful_time, 1000 * MS); /* it did not advance */
        /* and asked to terminate: fmi2Terminated / terminateSimulation */
        assert_true(r.terminate_requested);
    }
    /* The FMU's own message reached the log under the instance name. */
    assert_non_null(strstr(tu_log_text(), "|faulty|"));
    assert_non_null(strstr(tu_log_text(), "on purpose at t = 1"));
    rtcosim_component_free(c);
    rtcosim_log_set_handler(NULL, NULL);
}

static void faulty_error_maps_to_ecomponent_naming_instance_function_and_time(void **state)
{
    (void)state;
    run_faulty(RTCOSIM_FMU_FAULTY_FMI2, 1, RTCOSIM_ECOMPONENT,
               "faulty: fmi2DoStep returned fmi2Error at t=1");
    run_faulty(RTCOSIM_FMU_FAULTY_FMI3, 1, RTCOSIM_ECOMPONENT,
               "faulty: fmi3DoStep returned fmi3Error at t=1");
}

static void faulty_fatal_maps_to_efatal(void **state)
{
    (void)state;
    run_faulty(RTCOSIM_FMU_FAULTY_FMI2, 2, RTCOSIM_EFATAL, "faulty: fmi2DoStep returned fmi2Fatal");
    run_faulty(RTCOSIM_FMU_FAULTY_FMI3, 2, RTCOSIM_EFATAL, "faulty: fmi3DoStep returned fmi3Fatal");
}

static void faulty_discard_maps_to_ediscard(void **state)
{
    (void)state;
    run_faulty(RTCOSIM_FMU_FAULTY_FMI2, 3, RTCOSIM_EDISCARD, "faulty: fmi2DoStep returned fmi2Discard");
    run_faulty(RTCOSIM_FMU_FAULTY_FMI3, 3, RTCOSIM_EDISCARD, "faulty: fmi3DoStep returned fmi3Discard");
}

static void real_fmu_without_do_step_is_refused(void **state)
{
    (void)state;
    const char *paths[] = {RTCOSIM_FMU_DAHLQUISTNODOSTEP_FMI2, RTCOSIM_FMU_DAHLQUISTNODOSTEP_FMI3};
    const char *missing[] = {"binary lacks fmi2DoStep", "binary lacks fmi3DoStep"};
    for (int i = 0; i < 2; i++) {
        rtcosim_fmu_options opts = {.temp_dir = tmp_dir};
        rtcosim_component *c;
        rtcosim_error err;
        assert_int_equal(rtcosim_fmu_load(paths[i], &opts, &c, &err), RTCOSIM_ENOTFOUND);
        assert_non_null(strstr(err.message, missing[i]));
        assert_int_equal(tu_count_entries(tmp_dir), 0);
    }
}

static void call_trace_logs_each_fmi_call_with_arguments_and_status(void **state)
{
    (void)state;
    tu_log_capture(RTCOSIM_LOG_DEBUG);
    rtcosim_component *c = load(RTCOSIM_FMU_DAHLQUIST_FMI2, "traced", true);
    rtcosim_error err;
    uint32_t k = vr_of(c, "k");
    start(c);
    double rate = 0.5;
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &k, 1, &rate, &err), 0);
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_do_step(c, 0, 250 * MS, NULL, &err), RTCOSIM_OK);
    const char *log = tu_log_text();
    assert_non_null(strstr(log, "debug|fmi|traced: fmi2Instantiate(\"traced\", fmi2CoSimulation"));
    assert_non_null(strstr(log, "debug|fmi|traced: fmi2SetReal(#3=0.5) -> fmi2OK"));
    assert_non_null(strstr(log, "debug|fmi|traced: fmi2DoStep(t=0, h=0.25, "
                               "noSetFMUStatePriorToCurrentPoint=true) -> fmi2OK"));
    /* While a snapshot exists the master may roll back: the FMU must keep
     * its history (noSetFMUStatePriorToCurrentPoint=false). */
    rtcosim_state snapshot = NULL;
    assert_int_equal(rtcosim_component_get_state(c, &snapshot, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_do_step(c, 250 * MS, 250 * MS, NULL, &err), RTCOSIM_OK);
    assert_non_null(strstr(tu_log_text(), "fmi2DoStep(t=0.25, h=0.25, "
                                          "noSetFMUStatePriorToCurrentPoint=false)"));
    rtcosim_component_free_state(c, snapshot);
    assert_int_equal(rtcosim_component_do_step(c, 500 * MS, 250 * MS, NULL, &err), RTCOSIM_OK);
    assert_non_null(strstr(tu_log_text(), "fmi2DoStep(t=0.5, h=0.25, "
                                          "noSetFMUStatePriorToCurrentPoint=true)"));
    rtcosim_component_free(c);
    assert_non_null(strstr(tu_log_text(), "traced: fmi2FreeInstance() -> fmi2OK"));

    /* Off: the same run logs no FMI call. */
    tu_log_capture(RTCOSIM_LOG_DEBUG);
    c = load(RTCOSIM_FMU_DAHLQUIST_FMI2, "quiet", false);
    start(c);
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_do_step(c, 0, 250 * MS, NULL, &err), RTCOSIM_OK);
    rtcosim_component_free(c);
    assert_null(strstr(tu_log_text(), "|fmi|"));
    rtcosim_log_set_handler(NULL, NULL);
    rtcosim_log_set_level(RTCOSIM_LOG_INFO);
}

/* FMI 2.0 wants the resources as a file URI (RFC 8089, spaces escaped),
 * FMI 3.0 as a directory path ending in a separator. */
static void resource_locations_follow_each_standard(void **state)
{
    (void)state;
    char parent[4096];
    snprintf(parent, sizeof parent, "%s/with space", tmp_dir);
    assert_int_equal(mkdir(parent, 0700), 0);
    tu_log_capture(RTCOSIM_LOG_DEBUG);
    const char *paths[] = {RTCOSIM_FMU_DAHLQUIST_FMI2, RTCOSIM_FMU_DAHLQUIST_FMI3};
    for (int i = 0; i < 2; i++) {
        rtcosim_fmu_options opts = {.temp_dir = parent, .log_fmi_calls = true};
        rtcosim_component *c;
        rtcosim_error err;
        assert_int_equal(rtcosim_fmu_load(paths[i], &opts, &c, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_component_instantiate(c, "r", &err), RTCOSIM_OK);
        char expected[4200];
        const char *dir = rtcosim_fmu_info_of(c)->extracted_dir;
        const char *space = strstr(dir, "with space");
        assert_non_null(space);
        if (i == 0)
            snprintf(expected, sizeof expected, "\"file://%.*swith%%20space%s/resources\"",
                     (int)(space - dir), dir, space + strlen("with space"));
        else
            snprintf(expected, sizeof expected, "\"%s/resources/\"", dir);
        if (!strstr(tu_log_text(), expected))
            fail_msg("no %s in the trace:\n%s", expected, tu_log_text());
        rtcosim_component_free(c);
    }
    rtcosim_log_set_handler(NULL, NULL);
    rtcosim_log_set_level(RTCOSIM_LOG_INFO);
    assert_int_equal(rmdir(parent), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dahlquist_fmi2_follows_euler_and_the_exponential),
        cmocka_unit_test(dahlquist_fmi3_follows_euler_and_the_exponential),
        cmocka_unit_test(fmu_facts_and_default_experiment_come_from_the_description),
        cmocka_unit_test(temporary_directory_lives_exactly_as_long_as_the_component),
        cmocka_unit_test(feedthrough_fmi2_copies_real_integer_boolean_string),
        cmocka_unit_test(feedthrough_fmi3_copies_every_scalar_type),
        cmocka_unit_test(fmi2_state_round_trip_repeats_the_run),
        cmocka_unit_test(fmi3_state_round_trip_repeats_the_run),
        cmocka_unit_test(faulty_error_maps_to_ecomponent_naming_instance_function_and_time),
        cmocka_unit_test(faulty_fatal_maps_to_efatal),
        cmocka_unit_test(faulty_discard_maps_to_ediscard),
        cmocka_unit_test(real_fmu_without_do_step_is_refused),
        cmocka_unit_test(call_trace_logs_each_fmi_call_with_arguments_and_status),
        cmocka_unit_test(resource_locations_follow_each_standard),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
