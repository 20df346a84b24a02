/* util/thread_place: where a run's worker threads start, and a thread's move
 * off a CPU another one of its run is on. The truth is the kernel's own
 * account: sched_getcpu() in the thread and its affinity mask afterwards
 * (a placed or moved thread must not stay pinned). Needs two CPUs; on one
 * the cases are skipped. */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/thread_place.h"

static int allowed_cpus(cpu_set_t *all)
{
    assert_int_equal(sched_getaffinity(0, sizeof *all, all), 0);
    return CPU_COUNT(all);
}

static bool same_set(const cpu_set_t *a, const cpu_set_t *b) { return CPU_EQUAL(a, b) != 0; }

typedef struct started {
    const thread_place *place;
    int cpu_at_start;
    cpu_set_t after_release;
} started;

static void *record_start(void *arg)
{
    started *s = arg;
    s->cpu_at_start = sched_getcpu();
    thread_place_release(s->place);
    pthread_getaffinity_np(pthread_self(), sizeof s->after_release, &s->after_release);
    return NULL;
}

/* Thread 1 starts on a CPU that is not the caller's, then may run anywhere. */
static void test_second_thread_starts_on_another_cpu(void **state)
{
    (void)state;
    cpu_set_t all;
    if (allowed_cpus(&all) < 2)
        skip();
    thread_place p;
    thread_place_plan(&p, 2, 1);
    assert_true(p.active);
    assert_true(CPU_ISSET(p.cpu[0], &all)); /* where the caller ran (it may move since) */
    assert_int_not_equal(p.cpu[1], p.cpu[0]);
    assert_true(CPU_ISSET(p.cpu[1], &all));
    pthread_attr_t attr;
    assert_int_equal(pthread_attr_init(&attr), 0);
    assert_true(thread_place_attr(&p, 1, &attr));
    started s = {.place = &p, .cpu_at_start = -1};
    pthread_t t;
    assert_int_equal(pthread_create(&t, &attr, record_start, &s), 0);
    pthread_attr_destroy(&attr);
    pthread_join(t, NULL);
    assert_int_equal(s.cpu_at_start, p.cpu[1]);
    assert_true(same_set(&s.after_release, &all));
}

/* No plan where it could not help or the machine is busy: more threads than
 * CPUs, more tasks running than CPUs, an unknown count, one thread. */
static void test_no_plan_when_busy_or_oversubscribed(void **state)
{
    (void)state;
    cpu_set_t all;
    int n = allowed_cpus(&all);
    thread_place p;
    thread_place_plan(&p, (unsigned)n + 1, 1);
    assert_false(p.active);
    thread_place_plan(&p, 2, (unsigned)n + 1);
    assert_false(p.active);
    thread_place_plan(&p, 2, 0);
    assert_false(p.active);
    thread_place_plan(&p, 1, 1);
    assert_false(p.active);
    pthread_attr_t attr;
    assert_int_equal(pthread_attr_init(&attr), 0);
    assert_false(thread_place_attr(&p, 1, &attr)); /* left to the kernel */
    pthread_attr_destroy(&attr);
    assert_true(p.known); /* moving off a shared CPU still works */
}

/* A thread on CPU a that finds another of its run there moves to a CPU no
 * other one is on, and is not left pinned; with every other CPU taken it
 * stays. (Other tests run beside this one: the kernel may move the thread
 * again between the move and the look, so a move is tried a few times and
 * one look on the right CPU is enough.) */
static void test_move_off_a_shared_cpu(void **state)
{
    (void)state;
    cpu_set_t all, one, now;
    if (allowed_cpus(&all) < 2)
        skip();
    int a = -1;
    for (int c = 0; c < CPU_SETSIZE && a < 0; c++)
        if (CPU_ISSET(c, &all))
            a = c;
    thread_place p;
    thread_place_plan(&p, 2, 0);
    int taken[CPU_SETSIZE], n = 0, b = -1;
    bool seen_there = false;
    for (int attempt = 0; attempt < 20 && !seen_there; attempt++) {
        CPU_ZERO(&one);
        CPU_SET(a, &one);
        assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
        assert_int_equal(sched_getcpu(), a); /* pinned: the kernel moved it there */
        assert_int_equal(sched_setaffinity(0, sizeof all, &all), 0);
        taken[0] = a; /* the other thread, on this one's CPU */
        b = thread_place_move_off(&p, a, taken, 1);
        assert_true(b >= 0);
        assert_int_not_equal(b, a);
        assert_true(CPU_ISSET(b, &all));
        seen_there = sched_getcpu() == b;
        assert_int_equal(sched_getaffinity(0, sizeof now, &now), 0);
        assert_true(same_set(&now, &all));
    }
    assert_true(seen_there);
    /* every CPU but b taken: nowhere to go */
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &all) && c != b)
            taken[n++] = c;
    assert_int_equal(thread_place_move_off(&p, b, taken, (unsigned)n), -1);
    assert_int_equal(sched_getaffinity(0, sizeof now, &now), 0);
    assert_true(same_set(&now, &all));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_second_thread_starts_on_another_cpu),
        cmocka_unit_test(test_no_plan_when_busy_or_oversubscribed),
        cmocka_unit_test(test_move_off_a_shared_cpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
