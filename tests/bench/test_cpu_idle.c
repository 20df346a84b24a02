/* B5's own-CPU stall evidence (bench/cpu_idle.c, anytime_attribution.c): a
 * late wake-up counts as a stall of the task's own CPU for what the CPU
 * idled through (its lateness less the CPU's other work during the sleep
 * beyond the slack), and time lost while running only when the thread did
 * not wait on its run queue (where the kernel puts throttling: checked
 * live); timelines computed by hand. Then the live
 * readings: the CPU's idle residency over a sleep never exceeds the sleep,
 * and a thread alone on its CPU does not wait on its run queue for long. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "anytime_attribution.h"
#include "cpu_idle.h"
#include "util/run_queue.h"

#define US 1000LL
#define MS 1000000LL

static void a_late_wake_up_counts_when_the_cpu_idled_through_it(void **state)
{
    (void)state;
    /* slept at 0 until 1 ms, woke at 4 ms: 3 ms late */
    sleep_probe p = {.slept_at = 0, .due = 1 * MS, .woke_at = 4 * MS, .cpu = 1};
    p.idle_ns = 4 * MS - 40 * US; /* idle but 40 us: within 50 us of slack */
    assert_int_equal(sleep_probe_idle_late_ns(&p, 50 * US, false), 3 * MS);
    /* 60 us of something else on the CPU: it can have held the wake-up
     * back by the 10 us beyond the slack, no more */
    p.idle_ns = 4 * MS - 60 * US;
    assert_int_equal(sleep_probe_idle_late_ns(&p, 50 * US, false), 3 * MS - 10 * US);
    /* ... or by nothing, when the 60 us were the woken thread waiting on its
     * run queue while nothing could hold it back (the only SCHED_DEADLINE
     * task) */
    p.wake_queued_ns = 60 * US;
    assert_int_equal(sleep_probe_idle_late_ns(&p, 50 * US, true), 3 * MS);
    p.wake_queued_ns = 0;
    /* 1 ms of other work during the 4 ms sleep: at most 950 us of the 3 ms
     * are its; the CPU idled through the other 2050 us */
    p.idle_ns = 3 * MS;
    assert_int_equal(sleep_probe_idle_late_ns(&p, 50 * US, false), 2050 * US);
    /* 3.5 ms of other work: it can explain all 3 ms */
    p.idle_ns = 500 * US;
    assert_int_equal(sleep_probe_idle_late_ns(&p, 50 * US, false), 0);
    p.idle_ns = -1; /* unknown */
    assert_int_equal(sleep_probe_idle_late_ns(&p, 50 * US, false), 0);
    p.idle_ns = 1 * MS;
    p.woke_at = 1 * MS + 20 * US; /* 20 us late, idle through it */
    assert_int_equal(sleep_probe_idle_late_ns(&p, 50 * US, false), 20 * US);
    p.woke_at = 1 * MS; /* on time: nothing to explain */
    assert_int_equal(sleep_probe_idle_late_ns(&p, 50 * US, false), 0);
}

static void time_lost_while_running_counts_without_a_run_queue_wait(void **state)
{
    (void)state;
    sleep_probe p = {.queued_ns = 0};
    assert_int_equal(sleep_probe_host_ns(&p, 4500 * US), 4500 * US);
    p.queued_ns = 1 * MS; /* another task held the CPU for 1 ms of it */
    assert_int_equal(sleep_probe_host_ns(&p, 4500 * US), 3500 * US);
    p.queued_ns = 5 * MS;
    assert_int_equal(sleep_probe_host_ns(&p, 4500 * US), 0);
    p.queued_ns = -1; /* unknown */
    assert_int_equal(sleep_probe_host_ns(&p, 4500 * US), 0);
}

/* A period started at 1 ms and delivered at 5.4 ms, 4.2 ms of it lost. */
static void a_period_lost_to_its_own_cpu_without_a_run_queue_wait(void **state)
{
    (void)state;
    rtcosim_anytime_period rec = {.started_at = 1 * MS, .delivered_at = 5400 * US,
                                  .stalled_ns = 4200 * US};
    sleep_probe p = {.slept_at = 0, .due = 1 * MS, .woke_at = 1 * MS, .idle_ns = 1 * MS,
                     .wake_queued_ns = 0, .queued_ns = 0};
    assert_int_equal(anytime_own_cpu_stall_ns(&p, &rec, true, true), 4200 * US);
    /* under SCHED_FIFO the same: a throttled thread waits on its run queue */
    assert_int_equal(anytime_own_cpu_stall_ns(&p, &rec, true, false), 4200 * US);
    /* 100 us of it waiting on the run queue: another task's, or throttling */
    p.queued_ns = 100 * US;
    assert_int_equal(anytime_own_cpu_stall_ns(&p, &rec, true, true), 4100 * US);
    /* a chain's start that woke 3 ms late through an idle CPU adds that */
    p.woke_at = 4 * MS;
    p.idle_ns = 4 * MS - 10 * US;
    assert_int_equal(anytime_own_cpu_stall_ns(&p, &rec, true, false), 3 * MS + 4100 * US);
    /* ... but not in the middle of a chain (its lateness is the backlog's) */
    assert_int_equal(anytime_own_cpu_stall_ns(&p, &rec, false, false), 4100 * US);
}

/* A period whose thread, running, went 800 us between two clock reads of
 * its abort checks (a host stall charged to it as CPU time), 100 us of it
 * runnable but not running (already in stalled_ns): 700 us more are its
 * CPU's; a gap its own work between two checks can take (40 us) is not. */
static void a_gap_between_its_clock_reads_is_its_cpus(void **state)
{
    (void)state;
    rtcosim_anytime_period rec = {.started_at = 1 * MS, .delivered_at = 2 * MS,
                                  .stalled_ns = 100 * US, .check_gap_ns = 800 * US};
    sleep_probe p = {.slept_at = 0, .due = 1 * MS, .woke_at = 1 * MS, .idle_ns = 1 * MS,
                     .wake_queued_ns = 0, .queued_ns = 0};
    assert_int_equal(anytime_own_cpu_stall_ns(&p, &rec, true, true), 800 * US);
    rec.check_gap_ns = 40 * US;
    assert_int_equal(anytime_own_cpu_stall_ns(&p, &rec, true, true), 100 * US);
    rec.stalled_ns = 0, rec.check_gap_ns = 300 * US;
    assert_int_equal(anytime_own_cpu_stall_ns(&p, &rec, false, true), 300 * US);
}

/* The kernel's side of that rule: a SCHED_DEADLINE thread that spins past
 * its runtime (200 us of each 1 ms) is throttled for the rest of each
 * period, and the kernel counts that time as a wait on its run queue, not
 * as time lost otherwise (else the attribution would take our own
 * throttling for the host's). */
typedef struct throttled_run {
    int setattr_errno;
    int64_t wall_ns, cpu_ns, queued_ns;
} throttled_run;

struct dl_attr {
    uint32_t size, policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime, deadline, period;
};

static int64_t clock_ns(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void *spin_throttled(void *arg)
{
    throttled_run *r = arg;
    struct dl_attr a = {.size = sizeof a, .policy = 6 /* SCHED_DEADLINE */,
                        .runtime = 200 * US, .deadline = 1 * MS, .period = 1 * MS};
    if (syscall(SYS_sched_setattr, 0, &a, 0) != 0) {
        r->setattr_errno = errno;
        return NULL;
    }
    int fd = run_queue_open();
    int64_t q0 = run_queue_wait_ns(fd), w0 = clock_ns(CLOCK_MONOTONIC),
            c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    while (clock_ns(CLOCK_MONOTONIC) - w0 < 50 * MS)
        ;
    r->wall_ns = clock_ns(CLOCK_MONOTONIC) - w0;
    r->cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
    r->queued_ns = q0 >= 0 ? run_queue_wait_ns(fd) - q0 : -1;
    close(fd);
    return NULL;
}

static void throttling_is_a_run_queue_wait(void **state)
{
    (void)state;
    throttled_run r = {0};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, spin_throttled, &r), 0);
    pthread_join(t, NULL);
    if (r.setattr_errno || r.queued_ns < 0) {
        skip(); /* no SCHED_DEADLINE here (not root, a container) or no schedstat */
        return;
    }
    int64_t lost = r.wall_ns - r.cpu_ns;
    assert_true(lost > 25 * MS); /* held back ~80 % of 50 ms */
    /* the host may take some of it too; throttling must not be outside */
    assert_true(lost - r.queued_ns < lost / 4);
}

static void live_readings_stay_within_the_sleep(void **state)
{
    (void)state;
    cpu_idle *ci = cpu_idle_open();
    if (!ci) {
        skip(); /* no cpuidle driver on this kernel: the probes say nothing */
        return;
    }
    rtcosim_clock *clock = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_clock_create_monotonic(20 * US, &clock, &err), RTCOSIM_OK);
    for (int i = 0; i < 5; i++) {
        sleep_probe p;
        cpu_idle_sleep_until(ci, clock, rtcosim_clock_now(clock) + 10 * MS, &p);
        assert_true(p.woke_at >= p.due);
        assert_true(p.cpu >= 0);
        /* residency has microsecond resolution: 1 us per state read */
        assert_true(p.idle_ns >= 0 && p.idle_ns <= p.woke_at - p.slept_at + 10 * US);
        assert_true(p.wake_queued_ns >= 0 && p.wake_queued_ns <= p.woke_at - p.slept_at);
        cpu_idle_work_begin(ci, &p);
        cpu_idle_work_end(ci, &p);
        assert_true(p.queued_ns >= 0 && p.queued_ns < 1000 * MS);
    }
    rtcosim_clock_free(clock);
    cpu_idle_close(ci);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_late_wake_up_counts_when_the_cpu_idled_through_it),
        cmocka_unit_test(time_lost_while_running_counts_without_a_run_queue_wait),
        cmocka_unit_test(a_period_lost_to_its_own_cpu_without_a_run_queue_wait),
        cmocka_unit_test(a_gap_between_its_clock_reads_is_its_cpus),
        cmocka_unit_test(throttling_is_a_run_queue_wait),
        cmocka_unit_test(live_readings_stay_within_the_sleep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
