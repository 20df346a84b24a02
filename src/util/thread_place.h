/* Where a run's worker threads start: each on a CPU of its own.
 * A thread created by pthread_create starts on its creator's CPU or a
 * neighbour the kernel picks at that instant; on the 2-vCPU machine the
 * speculative scheduler's second thread started on the first one's CPU in
 * most runs (sched_getcpu() of both, traced at every wait), and as the first
 * thread spins for the second's GVT report, the two shared one CPU for 2-13
 * ms until the load balancer moved one away. A placed thread is created
 * pinned to a free CPU and, once running there, takes back the process's
 * whole CPU set: the kernel keeps it where it is unless the load changes,
 * and it is not pinned against other work. Placement is skipped when the
 * machine is busy (more tasks running than CPUs) or the threads outnumber
 * the CPUs; then the kernel decides, as without it. */
#ifndef RTCOSIM_UTIL_THREAD_PLACE_H
#define RTCOSIM_UTIL_THREAD_PLACE_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>

typedef struct thread_place {
    bool active; /* the start CPUs are planned */
    bool known;  /* `all` is known (for thread_place_move_off) */
    cpu_set_t all; /* the process's CPUs, given back to each placed thread */
    int cpu[CPU_SETSIZE < 256 ? CPU_SETSIZE : 256]; /* thread t's start CPU */
} thread_place;

#pragma GCC visibility push(hidden)

/* Plans the start CPUs of threads 1..threads-1 (thread 0 is the caller and
 * stays where it runs). running: the tasks running on the machine now, the
 * caller included (spin_wait_running; 0 when unknown: no plan). */
void thread_place_plan(thread_place *p, unsigned threads, unsigned running);

/* Sets the start CPU of thread t in `attr` (initialized by the caller);
 * false when the plan has none for it (the attribute is left alone). */
bool thread_place_attr(const thread_place *p, unsigned t, pthread_attr_t *attr);

/* Called by a placed thread once it runs: gives it back the whole set. */
void thread_place_release(const thread_place *p);

/* Moves the calling thread, which runs on CPU `here`, to a CPU of the
 * process's set that none of the `n` CPUs in `taken` (the other threads'
 * last) is, then gives it back the whole set; returns the CPU it moved to,
 * or -1 when there is none. For a thread that finds another one of its run
 * on its own CPU while a CPU of theirs is free: a sleeper is often woken on
 * its waker's CPU (the kernel's wake-affine placement), and the two then
 * share that CPU until the load balancer notices, milliseconds later. */
int thread_place_move_off(const thread_place *p, int here, const int *taken, unsigned n);

#pragma GCC visibility pop

#endif
