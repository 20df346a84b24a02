/* The calibration's verdict from measured frame times: the median and the
 * 99th percentile (nearest rank) against the budget, so that one OS stall
 * among fast frames passes and a part whose slow frames are not isolated is
 * refused (synthetic samples; the percentiles hand-computed). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "realtime/rt_internal.h"

#define US 1000
#define MS 1000000

static void one_12ms_stall_among_7us_frames_passes(void **state)
{
    (void)state;
    rtcosim_time_ns t[100];
    for (int i = 0; i < 99; i++)
        t[i] = 7 * US;
    t[99] = 12 * MS; /* sorted: the stall last */
    rtcosim_time_ns median, p99;
    assert_true(rtcosim_rt_calibration_fits(t, 100, 0.9 * MS, &median, &p99));
    assert_int_equal(median, 7 * US);
    assert_int_equal(p99, 7 * US); /* rank ceil(99) = 99: the last fast frame */
}

static void p99_over_budget_refuses(void **state)
{
    (void)state;
    rtcosim_time_ns t[100];
    for (int i = 0; i < 98; i++)
        t[i] = 7 * US;
    t[98] = 950 * US; /* two slow frames in 100: p99 is one of them */
    t[99] = 12 * MS;
    rtcosim_time_ns median, p99;
    assert_false(rtcosim_rt_calibration_fits(t, 100, 0.9 * MS, &median, &p99));
    assert_int_equal(median, 7 * US);
    assert_int_equal(p99, 950 * US);
}

static void median_over_budget_refuses(void **state)
{
    (void)state;
    rtcosim_time_ns t[5] = {800 * US, 850 * US, 950 * US, 960 * US, 990 * US};
    rtcosim_time_ns median, p99;
    assert_false(rtcosim_rt_calibration_fits(t, 5, 0.9 * MS, &median, &p99));
    assert_int_equal(median, 950 * US);
    assert_int_equal(p99, 990 * US); /* ceil(4.95) = 5 */
}

static void frames_exactly_at_the_budget_fit(void **state)
{
    (void)state;
    rtcosim_time_ns t[3] = {900 * US, 900 * US, 900 * US};
    rtcosim_time_ns median, p99;
    assert_true(rtcosim_rt_calibration_fits(t, 3, 0.9 * MS, &median, &p99));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_12ms_stall_among_7us_frames_passes),
        cmocka_unit_test(p99_over_budget_refuses),
        cmocka_unit_test(median_over_budget_refuses),
        cmocka_unit_test(frames_exactly_at_the_budget_fit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
