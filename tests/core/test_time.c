/* Time ticks: seconds parse exactly into nanoseconds, and integer steps land
 * exactly on whole seconds (the reason time is int64 ticks). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/time.h"

static void parses_decimal_seconds_exactly(void **state)
{
    (void)state;
    rtcosim_time_ns t;
    assert_int_equal(rtcosim_time_parse_seconds("1e-4", &t, NULL), RTCOSIM_OK);
    assert_true(t == 100000);
    assert_int_equal(rtcosim_time_parse_seconds("0.001", &t, NULL), RTCOSIM_OK);
    assert_true(t == 1000000);
    assert_int_equal(rtcosim_time_parse_seconds("100", &t, NULL), RTCOSIM_OK);
    assert_true(t == INT64_C(100000000000));
    assert_int_equal(rtcosim_time_parse_seconds("-2.5", &t, NULL), RTCOSIM_OK);
    assert_true(t == INT64_C(-2500000000));
}

static void rejects_bad_time_text(void **state)
{
    (void)state;
    rtcosim_time_ns t;
    rtcosim_error err;
    assert_int_equal(rtcosim_time_parse_seconds("abc", &t, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "abc"));
    assert_int_equal(rtcosim_time_parse_seconds("1.0x", &t, &err), RTCOSIM_EINVAL);
    assert_int_equal(rtcosim_time_parse_seconds("nan", &t, &err), RTCOSIM_EINVAL);
    assert_int_equal(rtcosim_time_parse_seconds("inf", &t, &err), RTCOSIM_EINVAL);
    assert_int_equal(rtcosim_time_parse_seconds("1e300", &t, &err), RTCOSIM_EINVAL);
    assert_int_equal(rtcosim_time_parse_seconds("1e-12", &t, &err), RTCOSIM_EINVAL);
    assert_int_equal(rtcosim_time_parse_seconds("", &t, &err), RTCOSIM_EINVAL);
}

static void thousand_millisecond_steps_end_at_one_second(void **state)
{
    (void)state;
    rtcosim_time_ns h, t = 0;
    assert_int_equal(rtcosim_time_parse_seconds("0.001", &h, NULL), RTCOSIM_OK);
    for (int i = 0; i < 1000; i++)
        t += h;
    assert_true(t == RTCOSIM_NS_PER_S);
    assert_true(rtcosim_time_to_seconds(t) == 1.0);
    /* The double sum drifts; the tick sum does not. */
    double sum = 0;
    for (int i = 0; i < 1000; i++)
        sum += 0.001;
    assert_true(sum != 1.0);
}

static void seconds_round_to_nearest_tick(void **state)
{
    (void)state;
    rtcosim_time_ns t;
    assert_int_equal(rtcosim_time_from_seconds(0.1, &t, NULL), RTCOSIM_OK);
    assert_true(t == 100000000);
    assert_int_equal(rtcosim_time_from_seconds(1234.000000001, &t, NULL), RTCOSIM_OK);
    assert_true(t == INT64_C(1234000000001));
    assert_true(rtcosim_time_to_seconds(INT64_C(1234000000001)) == 1234.000000001);
}

/* A tick count becomes the double nearest its decimal value, as strtod reads
 * the decimal text (the independent truth): 9.8 ms is 0.0098, so that the last
 * 0.2 ms step of a 10 ms run ends on the stop time an FMU was given instead of
 * 2e-18 s past it (OSP's cpp-fmus refuse such a step). */
static void ticks_become_the_nearest_double(void **state)
{
    (void)state;
    char text[64];
    for (int64_t k = 0; k < 2000000; k += 997) {
        rtcosim_time_ns t = (rtcosim_time_ns)k * 4903 + k % 7;
        snprintf(text, sizeof text, "%" PRId64 ".%09" PRId64, t / 1000000000, t % 1000000000);
        assert_true(rtcosim_time_to_seconds(t) == strtod(text, NULL));
    }
    double stop = 0.01;
    for (rtcosim_time_ns t = 0; t < 10000000; t += 200000)
        assert_true(rtcosim_time_to_seconds(t) + rtcosim_time_to_seconds(200000) <= stop);
}

/* Decimal text made from a tick count reads back to exactly that count, at
 * every magnitude up to the 9.2e9 s limit (a double holds whole nanoseconds
 * only below 2^53 ns), in the forms results files and options use: trailing
 * zeros cut or added, a sign, spaces around. */
static void decimal_text_reads_back_to_its_ticks(void **state)
{
    (void)state;
    char text[80];
    rtcosim_time_ns t, got;
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        t = (rtcosim_time_ns)(x % UINT64_C(9200000000000000001)) >> (x >> 58); /* all scales */
        if (i & 1)
            t = -t;
        int64_t m = t < 0 ? -t : t;
        int n = snprintf(text, sizeof text, "%s%" PRId64 ".%09" PRId64, t < 0 ? "-" : "",
                         m / 1000000000, m % 1000000000);
        if (i % 3 == 0) /* the shortest form: trailing zeros and a bare point cut */
            while (text[n - 1] == '0' || text[n - 1] == '.')
                if (text[--n] == '.') {
                    text[n] = '\0';
                    break;
                } else {
                    text[n] = '\0';
                }
        else if (i % 3 == 1) /* zeros past the nanosecond, spaces */
            snprintf(text + n, sizeof text - (size_t)n, "000 ");
        got = -1;
        assert_int_equal(rtcosim_time_parse_seconds(text, &got, NULL), RTCOSIM_OK);
        if (got != t)
            fail_msg("'%s' read as %" PRId64 " ns, not %" PRId64, text, got, t);
    }
    assert_int_equal(rtcosim_time_parse_seconds(" +9200000000.000000000", &got, NULL),
                     RTCOSIM_OK);
    assert_true(got == INT64_C(9200000000000000000));
    assert_int_equal(rtcosim_time_parse_seconds("9000000000.000000001", &got, NULL), RTCOSIM_OK);
    assert_true(got == INT64_C(9000000000000000001)); /* a double would say ...000 or ...2048 */
    assert_int_equal(rtcosim_time_parse_seconds(".5", &got, NULL), RTCOSIM_OK);
    assert_true(got == 500000000);
    assert_int_equal(rtcosim_time_parse_seconds("7.", &got, NULL), RTCOSIM_OK);
    assert_true(got == INT64_C(7000000000));
    /* still refused: past the range, finer than a tick, no digits */
    assert_int_equal(rtcosim_time_parse_seconds("9200000001", &got, NULL), RTCOSIM_EINVAL);
    assert_int_equal(rtcosim_time_parse_seconds("0.0000000015", &got, NULL), RTCOSIM_EINVAL);
    assert_int_equal(rtcosim_time_parse_seconds("-", &got, NULL), RTCOSIM_EINVAL);
    assert_int_equal(rtcosim_time_parse_seconds(".", &got, NULL), RTCOSIM_EINVAL);
    assert_int_equal(rtcosim_time_parse_seconds("1.5.", &got, NULL), RTCOSIM_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_decimal_seconds_exactly),
        cmocka_unit_test(rejects_bad_time_text),
        cmocka_unit_test(thousand_millisecond_steps_end_at_one_second),
        cmocka_unit_test(seconds_round_to_nearest_tick),
        cmocka_unit_test(ticks_become_the_nearest_double),
        cmocka_unit_test(decimal_text_reads_back_to_its_ticks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
