/* The --isolate channel (channel.h): a memfd shared mapping and a futex
 * handshake. The waiting side spins ~20 us (a step of a small FMU answers
 * within that) when a CPU is free for it, then sleeps with FUTEX_WAIT; the
 * parent wakes every 10 ms to check that the child is alive (waitpid
 * WNOHANG), the run was not interrupted and the call's timeout has not
 * passed, so a crashed, exited, hung or stopped child is an error, never a
 * hang. */
#include "isolate/channel.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { SPIN_ROUNDS = 4000 };

size_t channel_data_bytes(void) { return CHANNEL_BYTES - sizeof(channel); }

static void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static void futex_wait(_Atomic uint32_t *word, uint32_t value, long timeout_ns)
{
    struct timespec ts = {timeout_ns / 1000000000L, timeout_ns % 1000000000L};
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, value, timeout_ns ? &ts : NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *word)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, 1, NULL, NULL, 0);
}

channel *channel_create(int *fd)
{
    *fd = memfd_create("rtcosim-isolate", 0);
    if (*fd < 0)
        return NULL;
    if (ftruncate(*fd, CHANNEL_BYTES) != 0) {
        close(*fd);
        return NULL;
    }
    channel *ch = channel_map(*fd);
    if (!ch) {
        close(*fd);
        return NULL;
    }
    ch->magic = CHANNEL_MAGIC;
    ch->parent = (int32_t)getpid();
    atomic_store(&ch->parent_cpu, -1);
    atomic_store(&ch->child_cpu, -1);
    return ch;
}

channel *channel_map(int fd)
{
    void *p = mmap(NULL, CHANNEL_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return p == MAP_FAILED ? NULL : p;
}

channel *channel_check_and_map(int fd, char *why, size_t why_size)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(why, why_size, "fd %d: %s", fd, strerror(errno));
        return NULL;
    }
    /* A mapping past the end of a shorter file would be SIGBUS on access. */
    if (!S_ISREG(st.st_mode) || st.st_size != CHANNEL_BYTES) {
        snprintf(why, why_size, "fd %d is not an isolation channel (a %s of %lld bytes)", fd,
                 S_ISREG(st.st_mode) ? "file" : "non-regular file", (long long)st.st_size);
        return NULL;
    }
    channel *ch = channel_map(fd);
    if (!ch) {
        snprintf(why, why_size, "fd %d: cannot map it: %s", fd, strerror(errno));
        return NULL;
    }
    if (ch->magic != CHANNEL_MAGIC || ch->parent != (int32_t)getppid()) {
        snprintf(why, why_size, "fd %d is not an isolation channel of the parent process (pid %ld)",
                 fd, (long)getppid());
        channel_unmap(ch);
        return NULL;
    }
    return ch;
}

void channel_unmap(channel *ch)
{
    if (ch)
        munmap(ch, CHANNEL_BYTES);
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static bool answered(channel *ch, uint32_t seq)
{
    return atomic_load_explicit(&ch->response, memory_order_acquire) == seq;
}

channel_result channel_call(channel *ch, pid_t pid, int *wait_status, int64_t timeout_ns,
                            const _Atomic int *interrupt, bool may_spin)
{
    uint32_t seq = atomic_load_explicit(&ch->request, memory_order_relaxed) + 1;
    int cpu = sched_getcpu();
    atomic_store_explicit(&ch->parent_cpu, cpu, memory_order_relaxed);
    atomic_store(&ch->request, seq); /* seq_cst: ordered before the sleeper check */
    if (atomic_load(&ch->child_sleeping))
        futex_wake(&ch->request);
    /* Spin only while the child can run elsewhere: on this CPU it is queued
     * behind us, and spinning would only delay it. */
    if (may_spin && (cpu < 0 || atomic_load_explicit(&ch->child_cpu, memory_order_relaxed) != cpu))
        for (int i = 0; i < SPIN_ROUNDS; i++) {
            if (answered(ch, seq))
                return CHANNEL_ANSWERED;
            cpu_relax();
        }
    int64_t start = timeout_ns > 0 ? now_ns() : 0;
    for (;;) {
        atomic_store(&ch->parent_sleeping, 1);
        uint32_t seen = atomic_load(&ch->response);
        if (seen != seq)
            futex_wait(&ch->response, seen, 10 * 1000 * 1000);
        atomic_store_explicit(&ch->parent_sleeping, 0, memory_order_relaxed);
        if (answered(ch, seq))
            return CHANNEL_ANSWERED;
        if (interrupt && atomic_load(interrupt))
            return CHANNEL_INTERRUPTED;
        pid_t r = waitpid(pid, wait_status, WNOHANG);
        if (r == pid || (r < 0 && errno == ECHILD))
            return CHANNEL_ENDED;
        if (timeout_ns > 0 && now_ns() - start > timeout_ns) {
            *wait_status = 0;
            waitpid(pid, wait_status, WNOHANG | WUNTRACED); /* stopped (SIGSTOP)? */
            return CHANNEL_TIMEOUT;
        }
    }
}

uint32_t channel_next(channel *ch, uint32_t last)
{
    int cpu = sched_getcpu();
    atomic_store_explicit(&ch->child_cpu, cpu, memory_order_relaxed);
    if (atomic_load_explicit(&ch->child_may_spin, memory_order_relaxed) &&
        (cpu < 0 || atomic_load_explicit(&ch->parent_cpu, memory_order_relaxed) != cpu))
        for (int i = 0; i < SPIN_ROUNDS; i++) {
            uint32_t seq = atomic_load_explicit(&ch->request, memory_order_acquire);
            if (seq != last)
                return seq;
            cpu_relax();
        }
    for (;;) {
        atomic_store(&ch->child_sleeping, 1);
        uint32_t seq = atomic_load(&ch->request);
        if (seq == last)
            futex_wait(&ch->request, last, 0);
        atomic_store_explicit(&ch->child_sleeping, 0, memory_order_relaxed);
        seq = atomic_load_explicit(&ch->request, memory_order_acquire);
        if (seq != last)
            return seq;
    }
}

void channel_answer(channel *ch, uint32_t seq)
{
    atomic_store(&ch->response, seq);
    if (atomic_load(&ch->parent_sleeping))
        futex_wake(&ch->response);
}
