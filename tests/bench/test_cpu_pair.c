/* B8's probe of how far apart the two CPUs are (bench/cpu_pair.c): on two
 * CPUs a positive latency, no less than a cache line's trip can take and no
 * more than a round trip through a sleep would, with the caller's affinity
 * as it was; on one CPU no figure (-1), as no two threads can share a line
 * across CPUs there. */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cpu_pair.h"

static void two_cpus_give_a_latency_and_keep_the_affinity(void **state)
{
    (void)state;
    cpu_set_t before, after;
    assert_int_equal(sched_getaffinity(0, sizeof before, &before), 0);
    if (CPU_COUNT(&before) < 2)
        skip();
    double ns = cpu_pair_latency_ns();
    /* a line between cores: tens to hundreds of ns; a median of 512
     * samples stays far below a scheduler tick (1 ms) */
    assert_true(ns > 1.0);
    assert_true(ns < 1e6);
    assert_int_equal(sched_getaffinity(0, sizeof after, &after), 0);
    assert_true(CPU_EQUAL(&before, &after));
}

static void one_cpu_gives_none(void **state)
{
    (void)state;
    cpu_set_t before, one;
    assert_int_equal(sched_getaffinity(0, sizeof before, &before), 0);
    int first = -1;
    for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
        if (CPU_ISSET(c, &before))
            first = c;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
    assert_true(cpu_pair_latency_ns() < 0);
    cpu_set_t after;
    assert_int_equal(sched_getaffinity(0, sizeof after, &after), 0);
    assert_true(CPU_EQUAL(&one, &after));
    assert_int_equal(sched_setaffinity(0, sizeof before, &before), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_cpus_give_a_latency_and_keep_the_affinity),
        cmocka_unit_test(one_cpu_gives_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
