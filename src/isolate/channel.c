/* The --isolate channel (channel.h): a memfd shared mapping and a futex
 * handshake. The waiting side spins ~20 us (a step of a small FMU answers
 * within that), then sleeps with FUTEX_WAIT; the parent wakes every 10 ms to
 * check that the child is alive (waitpid WNOHANG), so a crashed or exited
 * child is an error, never a hang. */
#include "isolate/channel.h"

#include <errno.h>
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
    if (!ch)
        close(*fd);
    return ch;
}

channel *channel_map(int fd)
{
    void *p = mmap(NULL, CHANNEL_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return p == MAP_FAILED ? NULL : p;
}

void channel_unmap(channel *ch)
{
    if (ch)
        munmap(ch, CHANNEL_BYTES);
}

bool channel_call(channel *ch, pid_t pid, int *wait_status)
{
    uint32_t seq = atomic_load_explicit(&ch->request, memory_order_relaxed) + 1;
    atomic_store_explicit(&ch->request, seq, memory_order_release);
    futex_wake(&ch->request);
    for (int i = 0; i < SPIN_ROUNDS; i++) {
        if (atomic_load_explicit(&ch->response, memory_order_acquire) == seq)
            return true;
        cpu_relax();
    }
    for (;;) {
        uint32_t seen = atomic_load_explicit(&ch->response, memory_order_acquire);
        if (seen == seq)
            return true;
        futex_wait(&ch->response, seen, 10 * 1000 * 1000);
        if (atomic_load_explicit(&ch->response, memory_order_acquire) == seq)
            return true;
        pid_t r = waitpid(pid, wait_status, WNOHANG);
        if (r == pid || (r < 0 && errno == ECHILD))
            return false;
    }
}

uint32_t channel_next(channel *ch, uint32_t last)
{
    for (int i = 0; i < SPIN_ROUNDS; i++) {
        uint32_t seq = atomic_load_explicit(&ch->request, memory_order_acquire);
        if (seq != last)
            return seq;
        cpu_relax();
    }
    for (;;) {
        uint32_t seq = atomic_load_explicit(&ch->request, memory_order_acquire);
        if (seq != last)
            return seq;
        futex_wait(&ch->request, last, 0);
    }
}

void channel_answer(channel *ch, uint32_t seq)
{
    atomic_store_explicit(&ch->response, seq, memory_order_release);
    futex_wake(&ch->response);
}
