/* Spin-then-futex waiting with an adaptive spin budget (see spin_wait.h).
 * The budget adapts as adaptive mutexes do: after a wait shorter than
 * SPIN_WAIT_MAX_NS (sleep included) it grows to twice that wait, so the next
 * such wait is caught spinning; after a longer one (the awaited thread was
 * not running) it halves, down to SPIN_WAIT_MIN_NS. Then the thread sleeps.
 * It does not sched_yield in between: measured on `bench ecu` with a load of
 * 6 on 2 cores, a yielding thread often lost the CPU for a whole time slice
 * (2-6x slower runs), while a woken sleeper is scheduled again promptly. On
 * an idle machine the budget settles near the partner's work per wait; a
 * fixed 100 us budget was as fast there but 1.3-4x slower under load. */
#include "util/spin_wait.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int64_t spin_wait_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

unsigned spin_wait_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (unsigned)CPU_COUNT(&set);
    return 1;
}

int spin_wait_load_open(void) { return open("/proc/loadavg", O_RDONLY | O_CLOEXEC); }

unsigned spin_wait_running(int fd)
{
    char buf[128];
    ssize_t n = fd >= 0 ? pread(fd, buf, sizeof buf - 1, 0) : -1;
    unsigned running = 0;
    int fields = 0; /* "1-min 5-min 15-min running/total last-pid" */
    for (ssize_t i = 0; i < n && fields < 4; i++) {
        if (buf[i] == ' ')
            fields++;
        else if (fields == 3 && buf[i] >= '0' && buf[i] <= '9')
            running = 10 * running + (unsigned)(buf[i] - '0');
        else if (fields == 3)
            break; /* the '/' after the running count */
    }
    return running;
}

void spin_wait_init(spin_wait *s, int64_t initial_ns)
{
    s->spin_ns = initial_ns;
    s->blocked_ns = 0;
    s->sleeps = 0;
}

void spin_wait_wake(_Atomic uint32_t *word)
{
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
}

void spin_wait_for_change(spin_wait *s, _Atomic uint32_t *word, uint32_t seen,
                          _Atomic uint32_t *sleepers, _Atomic int64_t *changed_at, bool may_spin,
                          int64_t hint_ns, bool bounded)
{
    int64_t start = spin_wait_now_ns(), waited = 0;
    bool spun_out = false;
    int64_t budget = may_spin ? s->spin_ns : 0;
    if (may_spin && hint_ns > budget)
        budget = hint_ns < SPIN_WAIT_HINT_MAX_NS ? hint_ns : SPIN_WAIT_HINT_MAX_NS;
    for (unsigned i = 1;; i++) {
        if (atomic_load_explicit(word, memory_order_acquire) != seen)
            break;
        spin_wait_relax();
        if (i % 32)
            continue;
        waited = spin_wait_now_ns() - start;
        if (waited < budget)
            continue;
        spun_out = true;
        struct timespec limit = {0, 2000000};
        if (sleepers)
            atomic_fetch_add(sleepers, 1);
        syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, seen, bounded ? &limit : NULL, NULL, 0);
        if (sleepers)
            atomic_fetch_sub(sleepers, 1);
        s->sleeps++;
        break;
    }
    int64_t total = spin_wait_now_ns() - start;
    s->blocked_ns += (uint64_t)total;
    if (budget == 0)
        return; /* it did not spin: nothing learnt about spinning */
    /* how long the wait really was: until the change, not until this thread
     * ran again (the wake-up latency of a sleeper, 50-150 us on an idle
     * virtual machine, must not read as a long wait, or the budget would
     * shrink because it slept, and it would sleep because it shrank) */
    int64_t ready = total;
    if (spun_out && changed_at) {
        int64_t at = atomic_load_explicit(changed_at, memory_order_relaxed) - start;
        if (at >= 0 && at < ready)
            ready = at;
    }
    if (ready < SPIN_WAIT_MAX_NS) {
        /* a short wait: spinning twice as long would have caught it */
        if (2 * ready > s->spin_ns)
            s->spin_ns = 2 * ready < SPIN_WAIT_MAX_NS ? 2 * ready : SPIN_WAIT_MAX_NS;
    } else {
        /* the awaited thread was not running: spinning only wastes the CPU */
        s->spin_ns = s->spin_ns / 2 > SPIN_WAIT_MIN_NS ? s->spin_ns / 2 : SPIN_WAIT_MIN_NS;
    }
}
