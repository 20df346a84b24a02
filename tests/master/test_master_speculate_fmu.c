/* Speculation over FMUs: the oscillator halves as FMI 2.0 and 3.0 FMUs, whose
 * states the rollback table saves and restores through fmi2GetFMUstate /
 * fmi3GetFMUState; with threshold 0 the speculative run reproduces the plain
 * run bit for bit, in Jacobi and Gauss-Seidel order, on two threads, while a
 * slow mass2 (20 us more per step) makes mass1 speculate and roll back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/clock.h"
#include "rtcosim/fmu.h"
#include "rtcosim/master_speculate.h"
#include "rtcosim/realtime.h"
#include "rtcosim_test_fmus.h"

#define STEPS 200

typedef struct trajectory {
    double v[STEPS + 1][4];
    size_t rows;
} trajectory;

static rtcosim_status keep(void *context, rtcosim_time_ns t, const double *values, size_t n,
                           rtcosim_error *err)
{
    (void)t;
    trajectory *tr = context;
    if (n != 4 || tr->rows > STEPS)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "unexpected row");
    memcpy(tr->v[tr->rows++], values, sizeof tr->v[0]);
    return RTCOSIM_OK;
}

static rtcosim_master *fmu_oscillator(const char *mass1, const char *mass2, rtcosim_order order,
                                      rtcosim_clock *slow)
{
    const rtcosim_time_ns burn = 20000;
    rtcosim_delay_options d = {.clock = slow, .schedule = &burn, .schedule_length = 1};
    rtcosim_master *m = NULL;
    rtcosim_component *c = NULL;
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_master_create(RTCOSIM_NS_PER_MS, &m, &err), RTCOSIM_OK);
    if (rtcosim_fmu_load(mass1, NULL, &c, &err) != RTCOSIM_OK ||
        rtcosim_master_add_component(m, "mass1", c, 1, &err) != RTCOSIM_OK ||
        rtcosim_fmu_load(mass2, NULL, &c, &err) != RTCOSIM_OK ||
        (slow && rtcosim_delay_wrap(c, &d, &c, &err) != RTCOSIM_OK) ||
        rtcosim_master_add_component(m, "mass2", c, 1, &err) != RTCOSIM_OK ||
        rtcosim_master_connect(m, "mass1.x", "mass2.x1", NULL, &err) != RTCOSIM_OK ||
        rtcosim_master_connect(m, "mass1.v", "mass2.v1", NULL, &err) != RTCOSIM_OK ||
        rtcosim_master_connect(m, "mass2.F", "mass1.F", NULL, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    const char *observed[] = {"mass1.x", "mass1.v", "mass2.x", "mass2.v"};
    for (int i = 0; i < 4; i++)
        assert_int_equal(rtcosim_master_observe(m, observed[i], &err), RTCOSIM_OK);
    /* A wrapped mass2 is no longer an FMU to the master: declare what its
     * ModelStructure says (F depends on x1 and v1). */
    const char *inputs[] = {"x1", "v1"};
    if (slow)
        assert_int_equal(rtcosim_master_set_feedthrough(m, "mass2.F", inputs, 2, &err), RTCOSIM_OK);
    rtcosim_master_set_order(m, order);
    if (rtcosim_master_initialize(m, 0, STEPS * RTCOSIM_NS_PER_MS, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    return m;
}

static void check_identical(const char *mass1, const char *mass2)
{
    rtcosim_clock *slow = NULL;
    rtcosim_error cerr;
    assert_int_equal(rtcosim_clock_create_monotonic(RTCOSIM_NS_PER_S, &slow, &cerr), RTCOSIM_OK);
    for (int o = 0; o < 2; o++) {
        const rtcosim_order order = o ? RTCOSIM_ORDER_GAUSS_SEIDEL : RTCOSIM_ORDER_JACOBI;
        trajectory *plain = calloc(1, sizeof *plain), *spec = calloc(1, sizeof *spec);
        assert_non_null(plain);
        assert_non_null(spec);
        rtcosim_error err = {0};
        rtcosim_master *m = fmu_oscillator(mass1, mass2, order, NULL);
        assert_int_equal(rtcosim_master_run(m, STEPS * RTCOSIM_NS_PER_MS, keep, plain, &err),
                         RTCOSIM_OK);
        rtcosim_master_free(m);
        /* Whether mass1 gets ahead of the slow mass2 depends on the two
         * threads getting CPUs: on a loaded machine one run may never
         * speculate, so up to five runs, each bit-identical, until one has
         * speculated and rolled back through the FMU's state. */
        rtcosim_speculation_stats stats[2];
        for (int attempt = 0; attempt < 5; attempt++) {
            spec->rows = 0;
            m = fmu_oscillator(mass1, mass2, order, slow);
            rtcosim_speculation_options opt = {.threads = 2, .horizon = 8};
            if (rtcosim_master_run_speculative(m, STEPS * RTCOSIM_NS_PER_MS, &opt, keep, spec,
                                               stats, &err) != RTCOSIM_OK)
                fail_msg("%s", err.message);
            rtcosim_master_free(m);
            assert_int_equal(spec->rows, STEPS + 1);
            assert_memory_equal(spec->v, plain->v, sizeof plain->v);
            if (stats[0].speculated_steps > 0 && stats[0].rollbacks > 0)
                break;
        }
        /* mass1's state travels through the FMU's own get/set state. */
        assert_true(stats[0].speculated);
        assert_false(stats[1].speculated); /* F depends on x1, v1 */
        assert_true(stats[0].speculated_steps > 0);
        assert_true(stats[0].rollbacks > 0);
        assert_int_equal(plain->rows, STEPS + 1);
        free(plain);
        free(spec);
    }
    rtcosim_clock_free(slow);
}

static void fmi2_speculation_is_bit_identical_at_threshold_zero(void **state)
{
    (void)state;
    check_identical(RTCOSIM_FMU_OSCILLATORMASS1_FMI2, RTCOSIM_FMU_OSCILLATORMASS2_FMI2);
}

static void fmi3_speculation_is_bit_identical_at_threshold_zero(void **state)
{
    (void)state;
    check_identical(RTCOSIM_FMU_OSCILLATORMASS1_FMI3, RTCOSIM_FMU_OSCILLATORMASS2_FMI3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fmi2_speculation_is_bit_identical_at_threshold_zero),
        cmocka_unit_test(fmi3_speculation_is_bit_identical_at_threshold_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
