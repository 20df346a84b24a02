/* The calling thread's run-queue wait: the time it stood runnable while
 * another task had its CPU (the second field of /proc/thread-self/schedstat,
 * run_delay, in ns; kernels with CONFIG_SCHED_INFO, Debian's among them).
 * A frame timed on the wall clock minus this wait is what the frame cost
 * the thread itself: other programs' turns on the CPU are left out, and the
 * thread's own waits (a pipe, a socket, a sleep) stay in. */
#ifndef RTCOSIM_UTIL_RUN_QUEUE_H
#define RTCOSIM_UTIL_RUN_QUEUE_H

#include <stdint.h>

#pragma GCC visibility push(hidden)

/* A descriptor for the calling thread's schedstat (read it from that
 * thread only), or -1 where the kernel has none. */
int run_queue_open(void);

/* The thread's run-queue wait so far in ns, or -1 (fd < 0, unreadable). */
int64_t run_queue_wait_ns(int fd);

#pragma GCC visibility pop

#endif
