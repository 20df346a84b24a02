/* `rtcosim events` (the vehicle, conservative scheduler on 2 threads) needs
 * memory bounded by the model, not by simulated time: the peak resident set
 * of a 200 s run stays within a few MB of a 10 s run's. Events flowing one
 * way between the threads used to pile up in the receiver's free list while
 * the sender allocated more (~250 KB per simulated second: +47 MB here). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

/* Peak RSS in KB of `rtcosim events --stop-time SECONDS --threads 2`. */
static long peak_rss_kb(const char *seconds)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        freopen("/dev/null", "w", stdout);
        execl(RTCOSIM_CLI_PATH, RTCOSIM_CLI_PATH, "events", "--stop-time", seconds, "--threads", "2",
              "--scheduler", "conservative", (char *)NULL);
        _exit(127);
    }
    int status;
    struct rusage usage;
    assert_int_equal(wait4(pid, &status, 0, &usage), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    return usage.ru_maxrss;
}

static void memory_does_not_grow_with_simulated_time(void **state)
{
    (void)state;
#ifdef RTCOSIM_TEST_SANITIZED
    const char *long_time = "30"; /* both runs still complete under ASan; RSS not compared */
#else
    const char *long_time = "200";
#endif
    long short_run = peak_rss_kb("10"), long_run = peak_rss_kb(long_time);
    print_message("peak RSS: 10 s simulated %ld KB, %s s simulated %ld KB\n", short_run, long_time,
                  long_run);
#ifdef RTCOSIM_TEST_SANITIZED
    skip(); /* ASan's quarantine and shadow memory: the resident set is no measure there */
#endif
    /* 190 s more at the former ~250 KB/s would be +47 MB; allow 4 MB of noise */
    assert_true(long_run <= short_run + 4096);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(memory_does_not_grow_with_simulated_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
