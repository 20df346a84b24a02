/* The cyclictest parser on hand-written `cyclictest -q -h` outputs (format of
 * rt-tests 2.4): percentiles, late wake-ups and overflows counted by hand;
 * columns of several threads added; failure output rejected; a missing
 * cyclictest reported as such. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cyclictest.h"

/* 1000 wake-ups: 500 at 10 us, 490 at 20 us, 5 at 50 us, 2 at 1000 us, 1 at
 * 1500 us, 2 beyond the 2000 us limit (max 4400 us). */
static const char one_thread[] =
    "# /dev/cpu_dma_latency set to 0us\n"
    "# Histogram\n"
    "000000 000000\n"
    "000009 000000\n"
    "000010 000500\n"
    "000020 000490\n"
    "000050 000005\n"
    "000999 000000\n"
    "001000 000002\n"
    "001500 000001\n"
    "001999 000000\n"
    "# Total: 000000998\n"
    "# Min Latencies: 00010\n"
    "# Avg Latencies: 00027\n"
    "# Max Latencies: 04400\n"
    "# Histogram Overflows: 00002\n"
    "# Histogram Overflow at cycle number:\n"
    "# Thread 0: 00017 00542\n";

static void percentiles_and_late_wakeups_match_a_hand_count(void **state)
{
    (void)state;
    bench_cyclictest ct;
    assert_int_equal(bench_cyclictest_parse(one_thread, strlen(one_thread), 1000, &ct), 0);
    assert_int_equal(ct.samples, 1000); /* 998 binned + 2 overflows */
    assert_int_equal(ct.overflows, 2);
    assert_int_equal(ct.late, 5); /* 2 at 1000 us, 1 at 1500 us, 2 overflows */
    assert_float_equal(ct.min_us, 10, 0);
    assert_float_equal(ct.avg_us, 27, 0);
    assert_float_equal(ct.max_us, 4400, 0);
    assert_float_equal(ct.p50_us, 10, 0);   /* rank 500 */
    assert_float_equal(ct.p99_us, 20, 0);   /* rank 990 = 500 + 490 */
    assert_float_equal(ct.p999_us, 4400, 0); /* rank 999 falls in the overflows */
    /* with a 10 ms frame nothing binned is late, only the overflows count */
    assert_int_equal(bench_cyclictest_parse(one_thread, strlen(one_thread), 10000, &ct), 0);
    assert_int_equal(ct.late, 2);
    /* a 40 us frame: 5 + 2 + 1 binned + 2 overflows */
    assert_int_equal(bench_cyclictest_parse(one_thread, strlen(one_thread), 40, &ct), 0);
    assert_int_equal(ct.late, 10);
}

static void columns_of_several_threads_are_added(void **state)
{
    (void)state;
    static const char two[] = "# Histogram\r\n"
                              "000003 000004\t000006\r\n"
                              "000007 000000 000010\r\n"
                              "# Total: 000000004 000000016\r\n"
                              "# Max Latencies: 00003 00007\r\n"
                              "# Histogram Overflows: 00000 00000\r\n";
    bench_cyclictest ct;
    assert_int_equal(bench_cyclictest_parse(two, strlen(two), 5, &ct), 0);
    assert_int_equal(ct.samples, 20);
    assert_int_equal(ct.late, 10);
    assert_float_equal(ct.p50_us, 3, 0); /* rank 10 = 4 + 6 */
    assert_float_equal(ct.p99_us, 7, 0);
    assert_float_equal(ct.max_us, 3, 0); /* the first thread's, as printed */
}

static void output_without_a_histogram_is_rejected(void **state)
{
    (void)state;
    static const char refused[] = "Unable to change scheduling policy!\n"
                                  "Probably missing capabilities, either run as root or increase "
                                  "RLIMIT_RTPRIO limits.\n";
    bench_cyclictest ct;
    assert_int_equal(bench_cyclictest_parse(refused, strlen(refused), 1000, &ct), -1);
    assert_int_equal(bench_cyclictest_parse("", 0, 1000, &ct), -1);
    static const char junk[] = "12a 5\n-3 4\n000001\n# Histogram\n";
    assert_int_equal(bench_cyclictest_parse(junk, strlen(junk), 1000, &ct), -1);
}

static void a_missing_cyclictest_is_reported_as_not_installed(void **state)
{
    (void)state;
    char dir[] = "/tmp/rtcosim-test-ct-XXXXXX";
    assert_non_null(mkdtemp(dir));
    const char *old = getenv("PATH");
    char *saved = old ? strdup(old) : NULL;
    setenv("PATH", dir, 1);
    bench_cyclictest ct;
    char why[128];
    int rc = bench_cyclictest_run(-1, 0, 1e-3, 0.01, &ct, why, sizeof why);
    if (saved) {
        setenv("PATH", saved, 1);
        free(saved);
    }
    rmdir(dir);
    assert_int_equal(rc, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(percentiles_and_late_wakeups_match_a_hand_count),
        cmocka_unit_test(columns_of_several_threads_are_added),
        cmocka_unit_test(output_without_a_histogram_is_rejected),
        cmocka_unit_test(a_missing_cyclictest_is_reported_as_not_installed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
