/* The oscillator halves exported as FMUs (FMI 2.0 and 3.0) couple like the
 * native models: with ZOH the native models get no input slope either, so the
 * same equations and RK4 give the same trajectory. Gauss-Seidel orders the
 * FMUs from the dependencies their modelDescription declares. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "../../examples/oscillator/oscillator.h"
#include "rtcosim/fmu.h"
#include "util/test_util.h"
#include "rtcosim_test_fmus.h"

static void run_fmus(const char *mass1, const char *mass2, rtcosim_order order, double out[4])
{
    rtcosim_master *m = NULL;
    rtcosim_component *c = NULL;
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_master_create(RTCOSIM_NS_PER_MS, &m, &err), RTCOSIM_OK);
    if (rtcosim_fmu_load(mass1, NULL, &c, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(rtcosim_master_add_component(m, "mass1", c, 1, &err), RTCOSIM_OK);
    if (rtcosim_fmu_load(mass2, NULL, &c, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(rtcosim_master_add_component(m, "mass2", c, 1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_connect(m, "mass1.x", "mass2.x1", NULL, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_connect(m, "mass1.v", "mass2.v1", NULL, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_connect(m, "mass2.F", "mass1.F", NULL, &err), RTCOSIM_OK);
    /* No feedthrough declared here: the FMUs' ModelStructure says that the
     * states do not depend on the inputs directly and F does. */
    const char *observed[] = {"mass1.x", "mass1.v", "mass2.x", "mass2.v"};
    for (int i = 0; i < 4; i++)
        assert_int_equal(rtcosim_master_observe(m, observed[i], &err), RTCOSIM_OK);
    rtcosim_master_set_order(m, order);
    if (rtcosim_master_initialize(m, 0, -1, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    if (order == RTCOSIM_ORDER_GAUSS_SEIDEL)
        assert_string_equal(rtcosim_master_order_name(m, 0), "mass1");
    assert_int_equal(rtcosim_master_run(m, 200 * RTCOSIM_NS_PER_MS, NULL, NULL, &err), RTCOSIM_OK);
    memcpy(out, rtcosim_master_observed_values(m), 4 * sizeof(double));
    rtcosim_master_free(m);
}

static void run_native(rtcosim_order order, double out[4])
{
    rtcosim_oscillator_params p;
    rtcosim_oscillator_case(1, &p);
    rtcosim_oscillator_setup s;
    rtcosim_oscillator_setup_init(&s);
    s.order = order;
    s.stop = 200 * RTCOSIM_NS_PER_MS;
    s.power_bond = false;
    rtcosim_oscillator_result r;
    assert_int_equal(rtcosim_oscillator_run(&p, &s, &r, NULL), RTCOSIM_OK);
    memcpy(out, r.final_z, sizeof r.final_z);
}

static void check_same(const double *a, const double *b)
{
    for (int i = 0; i < 4; i++)
        if (fabs(a[i] - b[i]) > 1e-10 * (1 + fabs(b[i])))
            fail_msg("value %d: fmu %.17g, native %.17g", i, a[i], b[i]);
}

static void fmi2_oscillator_matches_the_native_one(void **state)
{
    (void)state;
    double fmu[4], native[4];
    for (int o = 0; o < 2; o++) {
        rtcosim_order order = o ? RTCOSIM_ORDER_GAUSS_SEIDEL : RTCOSIM_ORDER_JACOBI;
        run_fmus(RTCOSIM_FMU_OSCILLATORMASS1_FMI2, RTCOSIM_FMU_OSCILLATORMASS2_FMI2, order, fmu);
        run_native(order, native);
        check_same(fmu, native);
    }
}

static void fmi3_oscillator_matches_the_native_one(void **state)
{
    (void)state;
    double fmu[4], native[4];
    for (int o = 0; o < 2; o++) {
        rtcosim_order order = o ? RTCOSIM_ORDER_GAUSS_SEIDEL : RTCOSIM_ORDER_JACOBI;
        run_fmus(RTCOSIM_FMU_OSCILLATORMASS1_FMI3, RTCOSIM_FMU_OSCILLATORMASS2_FMI3, order, fmu);
        run_native(order, native);
        check_same(fmu, native);
    }
}

/* Two FMUs whose outputs depend on their inputs (declared in ModelStructure,
 * or by the absent attribute's default) connected in a cycle: Gauss-Seidel
 * initialization fails with an algebraic loop naming both ends. */
static void expect_fmu_loop(const char *fmu, const char *out, const char *in,
                            const char *const names[2])
{
    rtcosim_master *m = NULL;
    rtcosim_component *c = NULL;
    rtcosim_error err = {0};
    char from[64], to[64];
    assert_int_equal(rtcosim_master_create(RTCOSIM_NS_PER_MS, &m, &err), RTCOSIM_OK);
    const char *instances[2] = {"a", "b"};
    for (int i = 0; i < 2; i++) {
        if (rtcosim_fmu_load(fmu, NULL, &c, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        assert_int_equal(rtcosim_master_add_component(m, instances[i], c, 1, &err), RTCOSIM_OK);
    }
    /* Units may differ (force into a position input): a unit transformation. */
    rtcosim_coupling_options o;
    rtcosim_coupling_options_init(&o);
    o.has_transformation = true;
    o.factor = 1.0;
    for (int i = 0; i < 2; i++) {
        snprintf(from, sizeof from, "%s.%s", instances[i], out);
        snprintf(to, sizeof to, "%s.%s", instances[1 - i], in);
        assert_int_equal(rtcosim_master_connect(m, from, to, &o, &err), RTCOSIM_OK);
    }
    rtcosim_master_set_order(m, RTCOSIM_ORDER_GAUSS_SEIDEL);
    assert_int_equal(rtcosim_master_initialize(m, 0, -1, &err), RTCOSIM_ELOOP);
    for (int i = 0; i < 2; i++)
        if (!strstr(err.message, names[i]))
            fail_msg("loop message '%s' lacks '%s'", err.message, names[i]);
    rtcosim_master_free(m);
}

static void fmu_cycle_through_declared_feedthrough_is_an_algebraic_loop(void **state)
{
    (void)state;
    const char *names[2] = {"a.F", "b.F"};
    expect_fmu_loop(RTCOSIM_FMU_OSCILLATORMASS2_FMI2, "F", "x1", names);
    expect_fmu_loop(RTCOSIM_FMU_OSCILLATORMASS2_FMI3, "F", "x1", names);
}

static void fmu_cycle_without_declared_dependencies_is_an_algebraic_loop(void **state)
{
    (void)state;
    const char *names[2] = {"a.Float64_continuous_output", "b.Float64_continuous_output"};
    expect_fmu_loop(RTCOSIM_FMU_FEEDTHROUGH_FMI3, "Float64_continuous_output",
                    "Float64_continuous_input", names);
}

/* Connected through an alias of the input (a second name for value reference
 * 3, appended so that the declared indices stay valid), the declared
 * dependency F -> x1 still closes the loop. */
static void fmu_cycle_through_an_input_alias_is_an_algebraic_loop(void **state)
{
    (void)state;
    char *dir = tu_make_dir();
    FILE *f = fopen(RTCOSIM_FMU_OSCILLATORMASS2_FMI2_DIR "/modelDescription.xml", "rb");
    assert_non_null(f);
    static char xml[65536];
    size_t len = fread(xml, 1, sizeof xml - 1, f);
    fclose(f);
    xml[len] = '\0';
    char *end = strstr(xml, "  </ModelVariables>");
    assert_non_null(end);
    static char patched[sizeof xml + 512];
    snprintf(patched, sizeof patched, "%.*s%s%s", (int)(end - xml), xml,
             "    <ScalarVariable name=\"x1_alias\" valueReference=\"3\" causality=\"input\" "
             "variability=\"continuous\"><Real start=\"0\"/></ScalarVariable>\n",
             end);
    const tu_entry entries[] = {
        {.name = "modelDescription.xml", .text = patched},
        /* "binaries/<platform>/OscillatorMass2.so": the binary's path below the layout. */
        {.name = &RTCOSIM_FMU_OSCILLATORMASS2_FMI2_BINARY[sizeof RTCOSIM_FMU_OSCILLATORMASS2_FMI2_DIR],
         .file = RTCOSIM_FMU_OSCILLATORMASS2_FMI2_BINARY},
    };
    char fmu[4096];
    snprintf(fmu, sizeof fmu, "%s", tu_path(dir, "alias.fmu"));
    tu_zip(fmu, entries, 2);
    const char *names[2] = {"a.F", "b.F"};
    expect_fmu_loop(fmu, "F", "x1_alias", names);
    tu_drop_dir(dir);
}

/* The same kind of cycle through outputs declared independent of the inputs
 * (mass 2's states) is no loop. */
static void fmu_cycle_through_independent_outputs_runs_gauss_seidel(void **state)
{
    (void)state;
    rtcosim_master *m = NULL;
    rtcosim_component *c = NULL;
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_master_create(RTCOSIM_NS_PER_MS, &m, &err), RTCOSIM_OK);
    for (int i = 0; i < 2; i++) {
        if (rtcosim_fmu_load(RTCOSIM_FMU_OSCILLATORMASS2_FMI3, NULL, &c, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        assert_int_equal(rtcosim_master_add_component(m, i ? "b" : "a", c, 1, &err), RTCOSIM_OK);
    }
    assert_int_equal(rtcosim_master_connect(m, "a.x", "b.x1", NULL, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_connect(m, "b.x", "a.x1", NULL, &err), RTCOSIM_OK);
    rtcosim_master_set_order(m, RTCOSIM_ORDER_GAUSS_SEIDEL);
    if (rtcosim_master_initialize(m, 0, -1, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(rtcosim_master_run(m, 10 * RTCOSIM_NS_PER_MS, NULL, NULL, &err), RTCOSIM_OK);
    rtcosim_master_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fmi2_oscillator_matches_the_native_one),
        cmocka_unit_test(fmi3_oscillator_matches_the_native_one),
        cmocka_unit_test(fmu_cycle_through_declared_feedthrough_is_an_algebraic_loop),
        cmocka_unit_test(fmu_cycle_without_declared_dependencies_is_an_algebraic_loop),
        cmocka_unit_test(fmu_cycle_through_an_input_alias_is_an_algebraic_loop),
        cmocka_unit_test(fmu_cycle_through_independent_outputs_runs_gauss_seidel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
