/* How far apart two CPUs are for threads that share memory: the one-way
 * latency of a cache line handed back and forth between two threads pinned
 * to the first two CPUs this process may run on. On a virtual machine the
 * host places the vCPUs, and the figure moves with that placement (cores
 * that share a cache, or cores on different dies) from one second to the
 * next; `rtcosim bench speculate` measures it beside each speculative run. */
#ifndef RTCOSIM_BENCH_CPU_PAIR_H
#define RTCOSIM_BENCH_CPU_PAIR_H

/* Median one-way latency in nanoseconds over 512 samples of 16 round trips
 * (about 1 ms in all); -1 when the process may not run on two CPUs, a
 * thread cannot be started or it did not answer within a second. The
 * calling thread's affinity is restored. */
double cpu_pair_latency_ns(void);

#endif
