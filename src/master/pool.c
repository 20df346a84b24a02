/* A persistent pool of worker threads for the master's parallel steps:
 * started once at initialize, never creating threads on the hot path. The
 * hand-off is one word per direction and worker: the caller writes the run's
 * sequence number into a worker's `go` word, the worker writes it into its
 * `done` word when its components are stepped. Each side spins while the
 * other is expected soon and sleeps on a futex only for long waits (see
 * util/spin_wait.h), so that no condition-variable wake-up sits on the
 * critical path of a macro step. Only workers with components in a run are
 * signalled. Every component computes only from its own inputs, set before
 * the run, so results are bit-identical to the sequential run whatever the
 * assignment (balance.c chooses it). */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "master/master_internal.h"
#include "util/spin_wait.h"

/* One thread's words, each direction on a cache line of its own, so that
 * the caller polling `done` does not steal the line the worker polls. */
typedef struct pool_slot {
    _Alignas(64) _Atomic uint32_t go;
    _Atomic uint32_t go_sleepers;
    _Atomic int64_t go_at;        /* when go changed with a sleeper (see spin_wait.h) */
    _Atomic int64_t worker_hint;  /* the worker's expected wait for go, ns */
    _Alignas(64) _Atomic uint32_t done;
    _Atomic uint32_t done_sleepers;
    _Atomic int64_t done_at;
    _Atomic int cpu;              /* the CPU the thread last ran on */
    _Atomic uint64_t sleeps;      /* the worker's wait.sleeps, readable by the caller */
    _Alignas(64) spin_wait wait;  /* the worker's own budget (slot 0: the caller's) */
    size_t *list;                 /* components of the run */
    size_t count;
    bool signalled;
    bool sample;
} pool_slot;

typedef struct worker_arg {
    struct master_pool *pool;
    unsigned id;
} worker_arg;

struct master_pool {
    rtcosim_master *m;
    unsigned threads;   /* participants including the calling thread */
    pool_slot *slots;   /* threads */
    pthread_t *workers; /* threads - 1 */
    worker_arg *args;
    unsigned started;
    uint32_t seq;       /* the caller's run counter */
    atomic_bool quit;
};

/* Whether the thread waited for last ran on this thread's CPU: then it is
 * queued behind this one (fewer free cores than threads) and spinning would
 * only delay it. */
static bool may_spin(pool_slot *me, const pool_slot *other)
{
    int cpu = sched_getcpu();
    atomic_store_explicit(&me->cpu, cpu, memory_order_relaxed);
    return cpu < 0 || atomic_load_explicit(&other->cpu, memory_order_relaxed) != cpu;
}

static void run_list(master_pool *pool, pool_slot *s)
{
    rtcosim_master *m = pool->m;
    for (size_t i = 0; i < s->count; i++)
        master_step_sampled(m, &m->comps[s->list[i]], s->sample);
}

static void *worker_main(void *arg)
{
    master_pool *pool = ((worker_arg *)arg)->pool;
    pool_slot *s = &pool->slots[((worker_arg *)arg)->id];
    uint32_t seen = 0;
    if (pool->m->idle_workers) {
        /* Any runnable normal thread preempts a SCHED_IDLE one at once
         * (sched(7)): the worker only fills CPU time left idle. Refused, the
         * worker runs as created; the measured hand-off still applies. */
        struct sched_param none = {0};
        pthread_setschedparam(pthread_self(), SCHED_IDLE, &none);
    }
    for (;;) {
        uint32_t go;
        int64_t hint = atomic_load_explicit(&s->worker_hint, memory_order_relaxed);
        while ((go = atomic_load_explicit(&s->go, memory_order_acquire)) == seen) {
            spin_wait_for_change(&s->wait, &s->go, seen, &s->go_sleepers, &s->go_at,
                                 may_spin(s, &pool->slots[0]), hint, false);
            hint = 0; /* it slept: the next run is not coming soon (sequential plan) */
        }
        seen = go;
        atomic_store_explicit(&s->sleeps, s->wait.sleeps, memory_order_relaxed);
        if (atomic_load_explicit(&pool->quit, memory_order_acquire))
            return NULL;
        run_list(pool, s);
        /* Sequentially consistent store, then the sleepers check: pairs with
         * the waiter's increment before its futex wait rechecks the word, so
         * that a wake-up is never lost. */
        atomic_store(&s->done, go);
        if (atomic_load(&s->done_sleepers)) {
            atomic_store_explicit(&s->done_at, spin_wait_now_ns(), memory_order_relaxed);
            spin_wait_wake(&s->done);
        }
    }
}

void master_pool_assign(master_pool *pool, unsigned t, size_t comp)
{
    pool_slot *s = &pool->slots[t];
    s->list[s->count++] = comp;
}

static void signal_go(pool_slot *s, uint32_t seq)
{
    atomic_store(&s->go, seq);
    if (atomic_load(&s->go_sleepers)) {
        atomic_store_explicit(&s->go_at, spin_wait_now_ns(), memory_order_relaxed);
        spin_wait_wake(&s->go);
    }
}

void master_pool_run(master_pool *pool, bool sample, int64_t wait_hint_ns, int64_t worker_hint_ns)
{
    uint32_t seq = ++pool->seq;
    if (seq == 0) /* the workers start having seen 0 */
        seq = pool->seq = 1;
    pool_slot *me = &pool->slots[0];
    /* where the caller runs, for workers deciding whether to spin (it may
     * never wait itself when the workers finish first) */
    atomic_store_explicit(&me->cpu, sched_getcpu(), memory_order_relaxed);
    for (unsigned t = 1; t < pool->threads; t++) {
        pool_slot *s = &pool->slots[t];
        s->signalled = s->count > 0;
        if (!s->signalled)
            continue;
        s->sample = sample;
        atomic_store_explicit(&s->worker_hint, worker_hint_ns, memory_order_relaxed);
        signal_go(s, seq);
    }
    me->sample = sample;
    run_list(pool, me);
    me->count = 0;
    for (unsigned t = 1; t < pool->threads; t++) {
        pool_slot *s = &pool->slots[t];
        if (!s->signalled)
            continue;
        uint32_t done;
        while ((done = atomic_load_explicit(&s->done, memory_order_acquire)) != seq)
            spin_wait_for_change(&me->wait, &s->done, done, &s->done_sleepers, &s->done_at,
                                 may_spin(me, s), wait_hint_ns, true);
        s->count = 0;
    }
}

uint64_t master_pool_sleeps(const master_pool *pool)
{
    uint64_t n = pool->slots[0].wait.sleeps;
    for (unsigned t = 1; t < pool->threads; t++)
        n += atomic_load_explicit(&pool->slots[t].sleeps, memory_order_relaxed);
    return n;
}

rtcosim_status master_pool_create(rtcosim_master *m, unsigned threads, master_pool **out,
                                  rtcosim_error *err)
{
    *out = NULL;
    master_pool *pool = calloc(1, sizeof *pool);
    if (pool) {
        pool->slots = aligned_alloc(64, threads * sizeof *pool->slots);
        pool->workers = calloc(threads, sizeof *pool->workers);
        pool->args = calloc(threads, sizeof *pool->args);
    }
    bool ok = pool && pool->slots && pool->workers && pool->args;
    if (ok)
        memset(pool->slots, 0, threads * sizeof *pool->slots);
    for (unsigned t = 0; ok && t < threads; t++) {
        pool_slot *s = &pool->slots[t];
        atomic_init(&s->go, 0);
        atomic_init(&s->done, 0);
        atomic_init(&s->go_sleepers, 0);
        atomic_init(&s->done_sleepers, 0);
        atomic_init(&s->go_at, 0);
        atomic_init(&s->done_at, 0);
        atomic_init(&s->worker_hint, 0);
        atomic_init(&s->cpu, -1);
        atomic_init(&s->sleeps, 0);
        spin_wait_init(&s->wait, 10 * SPIN_WAIT_MIN_NS);
        ok = (s->list = malloc((m->comp_count ? m->comp_count : 1) * sizeof *s->list)) != NULL;
    }
    if (!ok) {
        if (pool) {
            for (unsigned t = 0; pool->slots && t < threads; t++)
                free(pool->slots[t].list);
            free(pool->slots);
            free(pool->workers);
            free(pool->args);
        }
        free(pool);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "master: out of memory for the worker pool");
    }
    pool->m = m;
    pool->threads = threads;
    atomic_init(&pool->quit, false);
    for (unsigned i = 1; i < threads; i++) {
        pool->args[i] = (worker_arg){pool, i};
        if (pthread_create(&pool->workers[i - 1], NULL, worker_main, &pool->args[i]) != 0) {
            master_pool_free(pool);
            return rtcosim_error_set(err, RTCOSIM_EIO, "master: cannot start worker thread %u", i);
        }
        pool->started++;
    }
    *out = pool;
    return RTCOSIM_OK;
}

void master_pool_free(master_pool *pool)
{
    if (!pool)
        return;
    /* Release the started workers with the quit flag set. */
    atomic_store(&pool->quit, true);
    uint32_t seq = ++pool->seq ? pool->seq : ++pool->seq;
    for (unsigned i = 0; i < pool->started; i++)
        signal_go(&pool->slots[i + 1], seq);
    for (unsigned i = 0; i < pool->started; i++)
        pthread_join(pool->workers[i], NULL);
    for (unsigned t = 0; t < pool->threads; t++)
        free(pool->slots[t].list);
    free(pool->slots);
    free(pool->workers);
    free(pool->args);
    free(pool);
}
