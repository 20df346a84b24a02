/* Clocks: the virtual clock jumps to deadlines and sums injected compute
 * times exactly (also from two threads); the monotonic clock never returns
 * from an absolute sleep before its deadline. No wall-clock bounds asserted. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/clock.h"

static void virtual_clock_starts_at_given_time_and_jumps_to_later_deadlines(void **state)
{
    (void)state;
    rtcosim_clock *c = NULL;
    assert_int_equal(rtcosim_clock_create_virtual(500, &c, NULL), RTCOSIM_OK);
    assert_true(rtcosim_clock_is_virtual(c));
    assert_int_equal(rtcosim_clock_now(c), 500);
    rtcosim_clock_sleep_until(c, 2000);
    assert_int_equal(rtcosim_clock_now(c), 2000);
    rtcosim_clock_sleep_until(c, 1000); /* in the past: no change */
    assert_int_equal(rtcosim_clock_now(c), 2000);
    rtcosim_clock_advance(c, 250);
    assert_int_equal(rtcosim_clock_now(c), 2250);
    rtcosim_clock_advance(c, -5); /* negative compute time is ignored */
    assert_int_equal(rtcosim_clock_now(c), 2250);
    rtcosim_clock_free(c);
}

static void *advance_many(void *arg)
{
    for (int i = 0; i < 100000; i++)
        rtcosim_clock_advance(arg, 3);
    return NULL;
}

static void virtual_clock_sums_advances_from_two_threads_exactly(void **state)
{
    (void)state;
    rtcosim_clock *c = NULL;
    assert_int_equal(rtcosim_clock_create_virtual(0, &c, NULL), RTCOSIM_OK);
    pthread_t a, b;
    assert_int_equal(pthread_create(&a, NULL, advance_many, c), 0);
    assert_int_equal(pthread_create(&b, NULL, advance_many, c), 0);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    assert_int_equal(rtcosim_clock_now(c), 2 * 100000 * 3);
    rtcosim_clock_free(c);
}

static void monotonic_clock_wakes_at_or_after_absolute_deadline(void **state)
{
    (void)state;
    for (rtcosim_time_ns busy = 0; busy <= 200000; busy += 200000) {
        rtcosim_clock *c = NULL;
        assert_int_equal(rtcosim_clock_create_monotonic(busy, &c, NULL), RTCOSIM_OK);
        assert_false(rtcosim_clock_is_virtual(c));
        rtcosim_time_ns t0 = rtcosim_clock_now(c);
        rtcosim_time_ns deadline = t0 + 2 * RTCOSIM_NS_PER_MS;
        rtcosim_clock_sleep_until(c, deadline);
        assert_true(rtcosim_clock_now(c) >= deadline);
        rtcosim_clock_sleep_until(c, t0 - RTCOSIM_NS_PER_S); /* past: returns at once */
        rtcosim_clock_advance(c, RTCOSIM_NS_PER_S * 100);    /* no-op on a real clock */
        assert_true(rtcosim_clock_now(c) < t0 + RTCOSIM_NS_PER_S * 50);
        rtcosim_clock_free(c);
    }
}

static void monotonic_clock_rejects_negative_or_huge_busy_wait(void **state)
{
    (void)state;
    rtcosim_clock *c = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_clock_create_monotonic(-1, &c, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "busy-wait"));
    assert_int_equal(rtcosim_clock_create_monotonic(2 * RTCOSIM_NS_PER_S, &c, &err),
                     RTCOSIM_EINVAL);
    assert_int_equal(rtcosim_clock_create_virtual(0, NULL, &err), RTCOSIM_EINVAL);
}

static void virtual_clock_wakes_late_by_the_injected_delays_only_when_it_sleeps(void **state)
{
    (void)state;
    rtcosim_clock *c = NULL;
    assert_int_equal(rtcosim_clock_create_virtual(0, &c, NULL), RTCOSIM_OK);
    const rtcosim_time_ns delays[] = {0, 700, 50};
    assert_int_equal(rtcosim_clock_set_wakeup_delays(c, delays, 3, NULL), RTCOSIM_OK);
    rtcosim_clock_sleep_until(c, 1000); /* delay 0 */
    assert_int_equal(rtcosim_clock_now(c), 1000);
    rtcosim_clock_sleep_until(c, 1000); /* does not wait: takes no delay */
    assert_int_equal(rtcosim_clock_now(c), 1000);
    rtcosim_clock_sleep_until(c, 2000); /* 700 late */
    assert_int_equal(rtcosim_clock_now(c), 2700);
    rtcosim_clock_sleep_until(c, 2500); /* passed already: no delay taken */
    assert_int_equal(rtcosim_clock_now(c), 2700);
    rtcosim_clock_sleep_until(c, 3000); /* 50 late */
    assert_int_equal(rtcosim_clock_now(c), 3050);
    rtcosim_clock_sleep_until(c, 4000); /* past the list: on time */
    assert_int_equal(rtcosim_clock_now(c), 4000);
    rtcosim_clock_free(c);
}

static void wakeup_delays_are_refused_for_monotonic_clocks_and_negative_values(void **state)
{
    (void)state;
    rtcosim_clock *c = NULL;
    rtcosim_error err;
    const rtcosim_time_ns bad[] = {10, -5};
    assert_int_equal(rtcosim_clock_create_virtual(0, &c, NULL), RTCOSIM_OK);
    assert_int_equal(rtcosim_clock_set_wakeup_delays(c, bad, 2, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "wake-up delay 1 is negative"));
    rtcosim_clock_free(c);
    assert_int_equal(rtcosim_clock_create_monotonic(0, &c, NULL), RTCOSIM_OK);
    assert_int_equal(rtcosim_clock_set_wakeup_delays(c, bad, 1, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "virtual clock"));
    rtcosim_clock_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(virtual_clock_starts_at_given_time_and_jumps_to_later_deadlines),
        cmocka_unit_test(virtual_clock_sums_advances_from_two_threads_exactly),
        cmocka_unit_test(monotonic_clock_wakes_at_or_after_absolute_deadline),
        cmocka_unit_test(monotonic_clock_rejects_negative_or_huge_busy_wait),
        cmocka_unit_test(virtual_clock_wakes_late_by_the_injected_delays_only_when_it_sleeps),
        cmocka_unit_test(wakeup_delays_are_refused_for_monotonic_clocks_and_negative_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
