/* Waiting for another thread: spin while it is expected soon, then sleep on
 * a futex. Shared by the event kernel's conservative scheduler and the
 * master's worker pool, whose waits are both a few microseconds of the other
 * side's work, shorter than a futex hand-off (a system call and a scheduler
 * round trip on each side), except when the awaited thread is not running. */
#ifndef RTCOSIM_UTIL_SPIN_WAIT_H
#define RTCOSIM_UTIL_SPIN_WAIT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

enum {
    SPIN_WAIT_MIN_NS = 1000,   /* the smallest adaptive budget */
    SPIN_WAIT_MAX_NS = 100000, /* waits longer than this are not worth spinning for, */
    SPIN_WAIT_HINT_MAX_NS = 1000000, /* unless the caller expects them (hint_ns) */
};

/* One waiter's adaptive spin budget and what its waits cost. */
typedef struct spin_wait {
    int64_t spin_ns;     /* spin this long before sleeping */
    uint64_t blocked_ns; /* total time spent waiting */
    uint64_t sleeps;     /* waits that ended in a futex sleep */
} spin_wait;

static inline void spin_wait_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

#pragma GCC visibility push(hidden)

int64_t spin_wait_now_ns(void); /* CLOCK_MONOTONIC */
unsigned spin_wait_cpus(void);   /* the CPUs this process may run on (at least 1) */
/* The tasks running on the machine now: the kernel's count in /proc/loadavg,
 * read through the file spin_wait_load_open gave (-1 when it could not
 * open it); 0 when it cannot be read. */
int spin_wait_load_open(void);
unsigned spin_wait_running(int fd);

void spin_wait_init(spin_wait *s, int64_t initial_ns);

/* Returns once *word differs from `seen`, or after one bounded sleep (the
 * caller re-checks its condition). may_spin false sleeps at once (the awaited
 * thread is known to share this CPU). hint_ns > 0 is the caller's own
 * estimate of the wait (from measured work): the spin covers at least that,
 * up to SPIN_WAIT_HINT_MAX_NS (a sleeper's wake-up takes 50-150 us on a
 * virtual machine: a wait that is expected is cheaper spun). `sleepers` (may be NULL) counts the threads asleep
 * on the word, so that wakers can skip the system call; `changed_at` (may be
 * NULL) is the monotonic time of the change, written by wakers that saw a
 * sleeper, so that a sleeper's wake-up latency does not read as a long wait.
 * bounded: the sleep ends after 2 ms at the latest (a safety net where a
 * wake-up might be missed); else it lasts until a wake-up (the caller's
 * protocol never misses one), so that an idle thread costs nothing. */
void spin_wait_for_change(spin_wait *s, _Atomic uint32_t *word, uint32_t seen,
                          _Atomic uint32_t *sleepers, _Atomic int64_t *changed_at, bool may_spin,
                          int64_t hint_ns, bool bounded);

/* Wakes every thread asleep on word (a system call: call it only when a
 * sleeper may be there). */
void spin_wait_wake(_Atomic uint32_t *word);

#pragma GCC visibility pop

#endif
