/* The Feedthrough FMU (FMI 2.0 and 3.0): every output equals its input, bit
 * for bit, for every variable type including the extremes (INT64_MIN,
 * UINT64_MAX, signed zero, infinities, NaN, subnormals, empty and long
 * Strings, Binaries with zero bytes), immediately after the set and after a
 * step; parameters have their declared start values and variability rules. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fmu_driver.h"

FMU_TARGETS(FEEDTHROUGH)

enum {
    VR_F64C_IN = 1, VR_F64C_OUT, VR_F64D_IN, VR_F64D_OUT, VR_I32_IN, VR_I32_OUT, VR_BOOL_IN,
    VR_BOOL_OUT, VR_STR_IN, VR_STR_OUT, VR_F32_IN, VR_F32_OUT, VR_I8_IN, VR_I8_OUT, VR_U8_IN,
    VR_U8_OUT, VR_I16_IN, VR_I16_OUT, VR_U16_IN, VR_U16_OUT, VR_U32_IN, VR_U32_OUT, VR_I64_IN,
    VR_I64_OUT, VR_U64_IN, VR_U64_OUT, VR_BIN_IN, VR_BIN_OUT, VR_F64_FIXED, VR_F64_TUNABLE,
    VR_F64_CALCULATED, VR_I32_PARAM, VR_BOOL_PARAM, VR_STR_PARAM, VR_BIN_PARAM
};

static void start(fmu *f, const fmu_target *t)
{
    assert_true(fmu_open(f, t));
    assert_true(fmu_start(f));
}


/* Same bits, or both NaN (a NaN's payload may legitimately change). */
static void assert_same_double(double a, double b)
{
    if (isnan(a) && isnan(b))
        return;
    assert_memory_equal(&a, &b, sizeof a);
}

static void common_types_pass_through_unchanged(void **state)
{
    fmu f;
    start(&f, *state);
    const double reals[] = {0.0, -0.0, 1.0 / 3.0, DBL_MAX, -DBL_MIN, 4.9406564584124654e-324,
                            INFINITY, -INFINITY, NAN};
    const int32_t ints[] = {INT32_MIN, INT32_MAX, 0, -1};
    static char long_text[100001];
    memset(long_text, 'x', sizeof long_text - 1);
    const char *strings[] = {"", "a", "100% %s %n ok", "\xc3\xa4\xe2\x82\xac", long_text};
    double t = 0.0;
    for (int after_step = 0; after_step < 2; after_step++) {
        for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++) {
            assert_int_equal(fmu_set_real(&f, VR_F64C_IN, reals[i]), 0);
            assert_int_equal(fmu_set_real(&f, VR_F64D_IN, reals[i]), 0);
            if (after_step) {
                assert_int_equal(fmu_step(&f, t, 0.01), 0);
                t += 0.01;
            }
            double c, d;
            assert_int_equal(fmu_get_real(&f, VR_F64C_OUT, &c), 0);
            assert_int_equal(fmu_get_real(&f, VR_F64D_OUT, &d), 0);
            assert_same_double(c, reals[i]);
            assert_same_double(d, reals[i]);
        }
        for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
            assert_int_equal(fmu_set_int32(&f, VR_I32_IN, ints[i]), 0);
            assert_int_equal(fmu_set_bool(&f, VR_BOOL_IN, i % 2 == 0), 0);
            if (after_step) {
                assert_int_equal(fmu_step(&f, t, 0.01), 0);
                t += 0.01;
            }
            int32_t out;
            bool b;
            assert_int_equal(fmu_get_int32(&f, VR_I32_OUT, &out), 0);
            assert_int_equal(out, ints[i]);
            assert_int_equal(fmu_get_bool(&f, VR_BOOL_OUT, &b), 0);
            assert_true(b == (i % 2 == 0));
        }
        for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++) {
            assert_int_equal(fmu_set_string(&f, VR_STR_IN, strings[i]), 0);
            if (after_step) {
                assert_int_equal(fmu_step(&f, t, 0.01), 0);
                t += 0.01;
            }
            const char *out = NULL;
            assert_int_equal(fmu_get_string(&f, VR_STR_OUT, &out), 0);
            assert_string_equal(out, strings[i]);
        }
    }
    fmu_close(&f);
}

static void strings_are_copied_into_the_fmu(void **state)
{
    fmu f;
    start(&f, *state);
    char buffer[16] = "first";
    assert_int_equal(fmu_set_string(&f, VR_STR_IN, buffer), 0);
    strcpy(buffer, "overwritten");
    const char *out = NULL;
    assert_int_equal(fmu_get_string(&f, VR_STR_OUT, &out), 0);
    assert_string_equal(out, "first");
    assert_int_equal(fmu_set_string(&f, VR_STR_IN, NULL), fmi2Error);
    assert_non_null(strstr(fmu_log_text, "NULL string"));
    fmu_close(&f);
}

static void fmi2_boolean_nonzero_is_true(void **state)
{
    fmu f;
    start(&f, *state);
    const uint32_t in = VR_BOOL_IN, out = VR_BOOL_OUT;
    const fmi2Boolean two = 2;
    fmi2Boolean got = 0;
    assert_int_equal(f.f2.fmi2SetBoolean(f.instance, &in, 1, &two), 0);
    assert_int_equal(f.f2.fmi2GetBoolean(f.instance, &out, 1, &got), 0);
    assert_int_equal(got, fmi2True);
    fmu_close(&f);
}

static void fmi2_sees_only_fmi2_types(void **state)
{
    fmu f;
    start(&f, *state);
    double r;
    int32_t i;
    fmu_log_clear();
    assert_int_equal(fmu_get_real(&f, VR_F32_OUT, &r), fmi2Error);
    assert_non_null(strstr(fmu_log_text, "no variable with value reference 12"));
    assert_int_equal(fmu_get_int32(&f, VR_I64_OUT, &i), fmi2Error);
    const char *s;
    assert_int_equal(fmu_get_string(&f, VR_BIN_PARAM, &s), fmi2Error);
    fmu_close(&f);
}

/* Sets one input of an FMI 3.0 integer/float type and reads the output. */
#define CHECK_FMI3(T, IN, OUT, ...)                                                          \
    do {                                                                                     \
        const fmi3##T values[] = {__VA_ARGS__};                                              \
        for (size_t k = 0; k < sizeof values / sizeof values[0]; k++) {                      \
            const uint32_t in = IN, out = OUT;                                               \
            fmi3##T got;                                                                     \
            assert_int_equal(f.f3.fmi3Set##T(f.instance, &in, 1, &values[k], 1), 0);         \
            if (step) {                                                                      \
                assert_int_equal(fmu_step(&f, t, 0.01), 0);                                  \
                t += 0.01;                                                                   \
            }                                                                                \
            assert_int_equal(f.f3.fmi3Get##T(f.instance, &out, 1, &got, 1), 0);              \
            if (!(got != got && values[k] != values[k])) /* NaN */                           \
                assert_memory_equal(&got, &values[k], sizeof got);                           \
        }                                                                                    \
    } while (0)

static void fmi3_types_pass_through_unchanged(void **state)
{
    fmu f;
    start(&f, *state);
    double t = 0.0;
    for (int step = 0; step < 2; step++) {
        CHECK_FMI3(Float32, VR_F32_IN, VR_F32_OUT, 0.0f, -0.0f, FLT_MAX, FLT_TRUE_MIN, -FLT_MIN,
                   INFINITY, -INFINITY, NAN, 0.1f);
        CHECK_FMI3(Int8, VR_I8_IN, VR_I8_OUT, INT8_MIN, INT8_MAX, 0, -1);
        CHECK_FMI3(UInt8, VR_U8_IN, VR_U8_OUT, 0, UINT8_MAX, 128);
        CHECK_FMI3(Int16, VR_I16_IN, VR_I16_OUT, INT16_MIN, INT16_MAX, 0);
        CHECK_FMI3(UInt16, VR_U16_IN, VR_U16_OUT, 0, UINT16_MAX);
        CHECK_FMI3(Int32, VR_I32_IN, VR_I32_OUT, INT32_MIN, INT32_MAX);
        CHECK_FMI3(UInt32, VR_U32_IN, VR_U32_OUT, 0, UINT32_MAX);
        CHECK_FMI3(Int64, VR_I64_IN, VR_I64_OUT, INT64_MIN, INT64_MAX, 0, -1);
        CHECK_FMI3(UInt64, VR_U64_IN, VR_U64_OUT, 0, UINT64_MAX, UINT64_C(1) << 63);
        CHECK_FMI3(Boolean, VR_BOOL_IN, VR_BOOL_OUT, true, false);
    }
    fmu_close(&f);
}

static void fmi3_binaries_pass_through_unchanged(void **state)
{
    fmu f;
    start(&f, *state);
    static unsigned char big[1 << 20];
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (unsigned char)(i * 7);
    const unsigned char zeros[] = {0, 0, 0};
    const struct {
        const unsigned char *data;
        size_t size;
    } cases[] = {{NULL, 0}, {zeros, sizeof zeros}, {big, sizeof big}, {zeros, 1}};
    const uint32_t in = VR_BIN_IN, out = VR_BIN_OUT;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(
            f.f3.fmi3SetBinary(f.instance, &in, 1, &cases[i].size, &cases[i].data, 1), 0);
        assert_int_equal(fmu_step(&f, i * 0.01, 0.01), 0);
        size_t size = 99;
        fmi3Binary got = NULL;
        assert_int_equal(f.f3.fmi3GetBinary(f.instance, &out, 1, &size, &got, 1), 0);
        assert_int_equal(size, cases[i].size);
        assert_non_null(got);
        if (size > 0)
            assert_memory_equal(got, cases[i].data, size);
    }
    /* NULL data with a nonzero size is refused. */
    const size_t three = 3;
    const fmi3Binary null_data = NULL;
    assert_int_equal(f.f3.fmi3SetBinary(f.instance, &in, 1, &three, &null_data, 1), fmi3Error);
    fmu_close(&f);
}

static void fmi3_batches_of_references_are_handled_in_order(void **state)
{
    fmu f;
    start(&f, *state);
    const uint32_t ins[] = {VR_F64D_IN, VR_F64C_IN};
    const double values[] = {-2.5, 7.25};
    assert_int_equal(f.f3.fmi3SetFloat64(f.instance, ins, 2, values, 2), 0);
    const uint32_t outs[] = {VR_F64C_OUT, VR_F64D_OUT, 0, VR_F64C_OUT};
    double got[4];
    assert_int_equal(f.f3.fmi3GetFloat64(f.instance, outs, 4, got, 4), 0);
    assert_true(got[0] == 7.25 && got[1] == -2.5 && got[2] == 0.0 && got[3] == 7.25);
    fmu_close(&f);
}

static void parameters_have_start_values_and_variability_rules(void **state)
{
    fmu f;
    assert_true(fmu_open(&f, *state));
    assert_true(fmu_instantiate(&f));
    assert_int_equal(fmu_set_real(&f, VR_F64_FIXED, 2.0), 0);
    assert_int_equal(fmu_set_real(&f, VR_F64_CALCULATED, 1.0), fmi2Error); /* calculated */
    assert_int_equal(fmu_enter_init(&f, 0.0, false, 0.0), 0);
    assert_true(fmu_real(&f, VR_F64_CALCULATED) == 4.0); /* 2 * fixed */
    assert_true(fmu_real(&f, VR_F64_TUNABLE) == 0.25);
    int32_t i;
    assert_int_equal(fmu_get_int32(&f, VR_I32_PARAM, &i), 0);
    assert_int_equal(i, -7);
    bool b;
    assert_int_equal(fmu_get_bool(&f, VR_BOOL_PARAM, &b), 0);
    assert_true(b);
    const char *s;
    assert_int_equal(fmu_get_string(&f, VR_STR_PARAM, &s), 0);
    assert_string_equal(s, "rtcosim");
    if (f.version == 3) {
        const uint32_t vr = VR_BIN_PARAM;
        size_t size = 0;
        fmi3Binary data = NULL;
        const unsigned char expected[] = {0x00, 0xff, 0x7f, 0x80}; /* start "00ff7f80" */
        assert_int_equal(f.f3.fmi3GetBinary(f.instance, &vr, 1, &size, &data, 1), 0);
        assert_int_equal(size, sizeof expected);
        assert_memory_equal(data, expected, sizeof expected);
    }
    assert_int_equal(fmu_exit_init(&f), 0);
    /* Step Mode: tunable yes, fixed and outputs no. */
    assert_int_equal(fmu_set_real(&f, VR_F64_TUNABLE, 9.0), 0);
    assert_true(fmu_real(&f, VR_F64_TUNABLE) == 9.0);
    assert_int_equal(fmu_set_string(&f, VR_STR_PARAM, "tuned"), 0);
    assert_int_equal(fmu_set_real(&f, VR_F64_FIXED, 3.0), fmi2Error);
    assert_non_null(strstr(fmu_log_text, "Float64_fixed_parameter cannot be set in Step Mode"));
    assert_int_equal(fmu_set_real(&f, VR_F64C_OUT, 3.0), fmi2Error);
    assert_true(fmu_real(&f, VR_F64_FIXED) == 2.0);
    fmu_close(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        BOTH_VERSIONS(common_types_pass_through_unchanged, FEEDTHROUGH),
        BOTH_VERSIONS(strings_are_copied_into_the_fmu, FEEDTHROUGH),
        cmocka_unit_test_prestate(fmi2_boolean_nonzero_is_true, (void *)&FEEDTHROUGH_fmi2),
        cmocka_unit_test_prestate(fmi2_sees_only_fmi2_types, (void *)&FEEDTHROUGH_fmi2),
        cmocka_unit_test_prestate(fmi3_types_pass_through_unchanged, (void *)&FEEDTHROUGH_fmi3),
        cmocka_unit_test_prestate(fmi3_binaries_pass_through_unchanged, (void *)&FEEDTHROUGH_fmi3),
        cmocka_unit_test_prestate(fmi3_batches_of_references_are_handled_in_order,
                                  (void *)&FEEDTHROUGH_fmi3),
        BOTH_VERSIONS(parameters_have_start_values_and_variability_rules, FEEDTHROUGH),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
