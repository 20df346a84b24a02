/* The oscillator halves exported as FMUs (FMI 2.0 and 3.0) couple like the
 * native models: with ZOH the native models get no input slope either, so the
 * same equations and RK4 give the same trajectory. Also exercises declared
 * feedthrough for FMUs, whose modelDescription lists no dependencies. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../examples/oscillator/oscillator.h"
#include "rtcosim/fmu.h"
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
    /* The states do not depend on the inputs directly; F does (the default). */
    const char *states[] = {"mass1.x", "mass1.v", "mass2.x", "mass2.v"};
    for (int i = 0; i < 4; i++)
        assert_int_equal(rtcosim_master_set_feedthrough(m, states[i], NULL, 0, &err), RTCOSIM_OK);
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
    run_fmus(RTCOSIM_FMU_OSCILLATORMASS1_FMI3, RTCOSIM_FMU_OSCILLATORMASS2_FMI3,
             RTCOSIM_ORDER_JACOBI, fmu);
    run_native(RTCOSIM_ORDER_JACOBI, native);
    check_same(fmu, native);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fmi2_oscillator_matches_the_native_one),
        cmocka_unit_test(fmi3_oscillator_matches_the_native_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
