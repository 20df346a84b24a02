/* Test helpers for the anytime layer: native variants whose execution time
 * is injected on a virtual clock (they spend it in 1 us slices and check for
 * cancellation before each slice, as a real variant checks in its loops), so
 * that every strategy's choice can be computed by hand. Each variant adds its
 * own increment to the shared state, which shows which result was committed. */
#ifndef ANYTIME_TEST_UTIL_H
#define ANYTIME_TEST_UTIL_H

#include <stdbool.h>
#include <math.h>
#include <stddef.h>

#include "rtcosim/anytime.h"

/* cmocka of Debian 12 has no double comparison: |a - b| <= eps, printing
 * both values on failure. Include after <cmocka.h>. */
#define assert_double_equal(a, b, eps)                                                        \
    do {                                                                                      \
        double a_ = (a), b_ = (b);                                                            \
        if (!(fabs(a_ - b_) <= (eps)))                                                        \
            print_error("%.17g != %.17g (eps %g)\n", a_, b_, (double)(eps));                \
        assert_true(fabs(a_ - b_) <= (eps));                                                  \
    } while (0)

#define US INT64_C(1000)
#define MS INT64_C(1000000)
#define TEST_PERIODS 16

/* One injected variant. The cost of period k is cost_ns[k] (calibration runs
 * use calibration_cost_ns). */
typedef struct injected_variant {
    rtcosim_clock *clock;
    double increment;
    rtcosim_time_ns calibration_cost_ns;
    rtcosim_time_ns calibration_cycle_ns[4]; /* when [0] > 0: cost of calibration run i % 4 */
    int calibration_calls;
    rtcosim_time_ns cost_ns[TEST_PERIODS];
    const bool *calibrating; /* shared flag the test clears after start */
    const size_t *period;    /* shared period counter kept by the test */
    rtcosim_time_ns last_h;  /* h of the last call */
} injected_variant;

/* state: one double x; output y = x after the increment. */
rtcosim_status injected_variant_fn(void *user, rtcosim_anytime_ctx *ctx, rtcosim_time_ns t,
                                   rtcosim_time_ns h, const double *inputs, void *state,
                                   double *outputs, rtcosim_error *err);

#endif
