/* The two-CPU cache-line ping-pong of cpu_pair.h. */
#include "cpu_pair.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "bench.h"

enum { SAMPLES = 512, TRIPS = 16 };
#define GIVE_UP_NS 1000000000LL

typedef struct pair_line {
    _Alignas(128) _Atomic int64_t word; /* odd: the main thread's turn handed over */
    int cpu;
} pair_line;

static void *echo_main(void *arg)
{
    pair_line *l = arg;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(l->cpu, &set);
    (void)pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    for (;;) {
        int64_t v = atomic_load_explicit(&l->word, memory_order_acquire);
        if (v < 0)
            return NULL;
        if (v & 1)
            atomic_store_explicit(&l->word, v + 1, memory_order_release);
    }
}

double cpu_pair_latency_ns(void)
{
    cpu_set_t saved, set;
    if (sched_getaffinity(0, sizeof saved, &saved) != 0 || CPU_COUNT(&saved) < 2)
        return -1;
    int cpu[2], found = 0;
    for (int c = 0; c < CPU_SETSIZE && found < 2; c++)
        if (CPU_ISSET(c, &saved))
            cpu[found++] = c;
    static pair_line line;
    atomic_store(&line.word, 0);
    line.cpu = cpu[1];
    pthread_t echo;
    if (pthread_create(&echo, NULL, echo_main, &line) != 0)
        return -1;
    CPU_ZERO(&set);
    CPU_SET(cpu[0], &set);
    (void)sched_setaffinity(0, sizeof set, &set);
    double sample[SAMPLES];
    int64_t v = 0, start = bench_now_ns();
    bool answered = true;
    for (int s = -8; s < SAMPLES && answered; s++) { /* 8 warm-up samples */
        int64_t t0 = bench_now_ns();
        for (int i = 0; i < TRIPS && answered; i++) {
            atomic_store_explicit(&line.word, ++v, memory_order_release);
            ++v;
            /* an echo thread that never runs (its CPU held by a real-time
             * task) gives no figure after a second, not a hang */
            for (unsigned spins = 1; atomic_load_explicit(&line.word, memory_order_acquire) != v;
                 spins++)
                if (spins % 65536 == 0 && bench_now_ns() - start > GIVE_UP_NS) {
                    answered = false;
                    break;
                }
        }
        if (s >= 0 && answered)
            sample[s] = (double)(bench_now_ns() - t0) / (2.0 * TRIPS);
    }
    atomic_store_explicit(&line.word, -1, memory_order_release);
    if (answered)
        pthread_join(echo, NULL);
    else
        pthread_detach(echo); /* it ends when it runs */
    (void)sched_setaffinity(0, sizeof saved, &saved);
    if (!answered)
        return -1;
    return bench_median(sample, SAMPLES);
}
