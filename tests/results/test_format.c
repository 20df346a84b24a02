/* Number formatting for result files: every double and float reads back bit
 * for bit (strtod/strtof as the independent reader), the texts are the
 * shortest ones for hand-checked cases, integers and tick times are exact. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/results.h"

static uint64_t bits_of(double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

static void assert_round_trips(double v)
{
    char buf[RTCOSIM_FORMAT_MAX];
    size_t n = rtcosim_format_double(v, buf);
    assert_int_equal(n, strlen(buf));
    char *end = NULL;
    double back = strtod(buf, &end);
    assert_ptr_equal(end, buf + n);
    if (bits_of(back) != bits_of(v))
        fail_msg("%.17g formatted as '%s' reads back as %.17g", v, buf, back);
}

static void hand_picked_doubles_read_back_bit_for_bit(void **state)
{
    (void)state;
    const double cases[] = {0.1, 1.0 / 3.0, 5e-324, 1.7976931348623157e308, -0.0, 0.0, 1e21,
                            123456789012345680000.0, 2.2250738585072014e-308, -1.5, 1e-7,
                            9007199254740993.0, 0.30000000000000004, 4.35, 1e23};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_round_trips(cases[i]);
}

static void shortest_texts_match_hand_computed_ones(void **state)
{
    (void)state;
    struct { double v; const char *text; } cases[] = {
        {0.1, "0.1"},
        {100.0, "100"},
        {1e-7, "1e-7"},
        {0.000001, "0.000001"},
        {1.0 / 3.0, "0.3333333333333333"},
        {5e-324, "5e-324"},
        {1.7976931348623157e308, "1.7976931348623157e+308"},
        {-0.0, "-0"},
        {0.0, "0"},
        {1e21, "1e+21"},
        {123456789012345680000.0, "123456789012345680000"},
        {0.1 + 0.2, "0.30000000000000004"},
        {-2.5, "-2.5"},
        {12.5, "12.5"},
        {1.5e300, "1.5e+300"},
        {1e100, "1e+100"},
        {-1.2345e-7, "-1.2345e-7"},
        {2.5e-10, "2.5e-10"},
        {0.00012, "0.00012"},
        {1e20, "100000000000000000000"},
        {INFINITY, "inf"},
        {-INFINITY, "-inf"},
    };
    char buf[RTCOSIM_FORMAT_MAX];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rtcosim_format_double(cases[i].v, buf);
        assert_string_equal(buf, cases[i].text);
    }
    rtcosim_format_double(NAN, buf);
    assert_string_equal(buf, "nan");
    rtcosim_format_float(0.1f, buf);
    assert_string_equal(buf, "0.1");
    rtcosim_format_float(16777216.0f, buf);
    assert_string_equal(buf, "16777216");
}

/* xorshift64*: a fixed-seed generator so the property test is reproducible. */
static uint64_t next_random(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

static void random_bit_patterns_read_back_bit_for_bit(void **state)
{
    (void)state;
    uint64_t seed = UINT64_C(0x9E3779B97F4A7C15);
    for (int i = 0; i < 200000; i++) {
        uint64_t b = next_random(&seed);
        double v;
        memcpy(&v, &b, sizeof v);
        if (isnan(v))
            continue;
        assert_round_trips(v);
        /* Also values of ordinary magnitude, where most results live. */
        assert_round_trips((double)(b >> 11) * 0x1.0p-40);
    }
    for (int i = 0; i < 100000; i++) {
        uint32_t b = (uint32_t)next_random(&seed);
        float v;
        memcpy(&v, &b, sizeof v);
        if (isnan(v))
            continue;
        char buf[RTCOSIM_FORMAT_MAX];
        rtcosim_format_float(v, buf);
        float back = strtof(buf, NULL);
        assert_memory_equal(&back, &v, sizeof v);
    }
}

static void integers_format_exactly(void **state)
{
    (void)state;
    char buf[RTCOSIM_FORMAT_MAX];
    struct { int64_t v; const char *text; } s[] = {
        {0, "0"}, {7, "7"}, {10, "10"}, {99, "99"}, {100, "100"}, {-1, "-1"},
        {1234567890123, "1234567890123"}, {INT64_MAX, "9223372036854775807"},
        {INT64_MIN, "-9223372036854775808"},
    };
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
        assert_int_equal(rtcosim_format_int64(s[i].v, buf), strlen(s[i].text));
        assert_string_equal(buf, s[i].text);
    }
    rtcosim_format_uint64(UINT64_MAX, buf);
    assert_string_equal(buf, "18446744073709551615");
    /* each length's edges (10^k - 1, 10^k, 10^k + 1, 2^b - 1, 2^b) against printf */
    char want[32];
    uint64_t p = 1;
    for (int k = 0; k <= 19; k++, p *= 10) {
        uint64_t around[3] = {p - 1, p, p + 1};
        for (int j = 0; j < 3; j++) {
            snprintf(want, sizeof want, "%llu", (unsigned long long)around[j]);
            assert_int_equal(rtcosim_format_uint64(around[j], buf), strlen(want));
            assert_string_equal(buf, want);
        }
    }
    for (int b = 1; b < 64; b++) {
        uint64_t around[2] = {(UINT64_C(1) << b) - 1, UINT64_C(1) << b};
        for (int j = 0; j < 2; j++) {
            snprintf(want, sizeof want, "%llu", (unsigned long long)around[j]);
            assert_int_equal(rtcosim_format_uint64(around[j], buf), strlen(want));
            assert_string_equal(buf, want);
        }
    }
}

static void tick_times_format_as_exact_decimal_seconds(void **state)
{
    (void)state;
    char buf[RTCOSIM_FORMAT_MAX];
    struct { rtcosim_time_ns t; const char *text; } s[] = {
        {0, "0"}, {1500000000, "1.5"}, {100000, "0.0001"}, {-1, "-0.000000001"},
        {100 * RTCOSIM_NS_PER_S, "100"}, {3 * 100000, "0.0003"}, {1, "0.000000001"},
        {INT64_MAX, "9223372036.854775807"},
    };
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
        rtcosim_format_time(s[i].t, buf);
        assert_string_equal(buf, s[i].text);
    }
}

/* Against a plain reference (printf's nine digits, trailing zeros cut one by
 * one): every position of the last nonzero fraction digit, each digit value
 * there, zeros and nines around it, and random times of either sign. */
static void times_match_printf_with_trailing_zeros_cut(void **state)
{
    (void)state;
    char buf[RTCOSIM_FORMAT_MAX], ref[64];
    uint64_t x = 0x2545F4914F6CDD1Du;
    for (int i = 0; i < 200000; i++) {
        rtcosim_time_ns t;
        if (i < 9 * 10 * 4) { /* digit d at position p over a filler */
            int p = i / 40, d = i / 4 % 10, filler = i % 4;
            int64_t scale = 1;
            for (int k = 0; k < 8 - p; k++)
                scale *= 10;
            int64_t below = filler == 1 ? scale - 1 : 0; /* nines after it */
            int64_t above = filler >= 2 ? 7 * RTCOSIM_NS_PER_S : 0;
            t = above + d * scale + below;
            if (filler == 3)
                t = -t;
        } else {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            t = (rtcosim_time_ns)(x % 100000000000000u);
            if (x >> 63)
                t = -t;
        }
        uint64_t m = t < 0 ? 0u - (uint64_t)t : (uint64_t)t;
        int n = snprintf(ref, sizeof ref, "%s%" PRIu64 ".%09" PRIu64, t < 0 ? "-" : "",
                         m / 1000000000u, m % 1000000000u);
        while (ref[n - 1] == '0')
            ref[--n] = '\0';
        if (ref[n - 1] == '.')
            ref[--n] = '\0';
        size_t len = rtcosim_format_time(t, buf);
        assert_string_equal(buf, ref);
        assert_int_equal(len, (size_t)n);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hand_picked_doubles_read_back_bit_for_bit),
        cmocka_unit_test(shortest_texts_match_hand_computed_ones),
        cmocka_unit_test(random_bit_patterns_read_back_bit_for_bit),
        cmocka_unit_test(integers_format_exactly),
        cmocka_unit_test(tick_times_format_as_exact_decimal_seconds),
        cmocka_unit_test(times_match_printf_with_trailing_zeros_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
