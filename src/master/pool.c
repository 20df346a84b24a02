/* A persistent pool of worker threads for Jacobi steps: started once at
 * initialize, synchronized by two barrier waits per macro step (start, end),
 * never creating threads on the hot path. Component i of the tick's active
 * list always runs on worker i mod n, and every component computes only from
 * its own inputs, so results are bit-identical to the sequential run. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "master/master_internal.h"

/* A reusable barrier whose participant count can shrink when a worker could
 * not be started (pthread barriers cannot), so that a failed start unwinds.
 * Waiters spin briefly on the generation (a macro step of light components
 * takes microseconds, less than a sleep and wake-up) and then block on a
 * condition variable, so that an oversubscribed machine does not burn its
 * cores. The last arriver advances the generation, then broadcasts under the
 * lock, so a waiter that checked the generation under the lock cannot miss it. */
typedef struct pool_barrier {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    atomic_uint count;
    atomic_uint waiting;
    atomic_ulong generation;
} pool_barrier;

#define BARRIER_SPINS 4000

static void barrier_wait(pool_barrier *b)
{
    unsigned long gen = atomic_load(&b->generation);
    if (atomic_fetch_add(&b->waiting, 1) + 1 >= atomic_load(&b->count)) {
        atomic_store(&b->waiting, 0);
        pthread_mutex_lock(&b->lock);
        atomic_store(&b->generation, gen + 1);
        pthread_cond_broadcast(&b->cond);
        pthread_mutex_unlock(&b->lock);
        return;
    }
    for (int i = 0; i < BARRIER_SPINS; i++)
        if (atomic_load_explicit(&b->generation, memory_order_acquire) != gen)
            return;
    pthread_mutex_lock(&b->lock);
    while (atomic_load(&b->generation) == gen)
        pthread_cond_wait(&b->cond, &b->lock);
    pthread_mutex_unlock(&b->lock);
}

typedef struct worker_arg {
    struct master_pool *pool;
    unsigned id;
} worker_arg;

struct master_pool {
    rtcosim_master *m;
    unsigned threads;   /* participants including the calling thread */
    pthread_t *workers; /* threads - 1 */
    worker_arg *args;
    unsigned started;
    pool_barrier start, done;
    atomic_bool quit;
};

static void run_share(master_pool *pool, unsigned id)
{
    rtcosim_master *m = pool->m;
    for (size_t a = id; a < m->active_count; a += pool->threads)
        master_step_component(&m->comps[m->active[a]]);
}

static void *worker_main(void *arg)
{
    master_pool *pool = ((worker_arg *)arg)->pool;
    unsigned id = ((worker_arg *)arg)->id;
    for (;;) {
        barrier_wait(&pool->start);
        if (atomic_load(&pool->quit))
            return NULL;
        run_share(pool, id);
        barrier_wait(&pool->done);
    }
}

void master_pool_run(master_pool *pool)
{
    barrier_wait(&pool->start);
    run_share(pool, 0);
    barrier_wait(&pool->done);
}

static void barrier_init(pool_barrier *b, unsigned count)
{
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->cond, NULL);
    atomic_init(&b->count, count);
    atomic_init(&b->waiting, 0);
    atomic_init(&b->generation, 0);
}

rtcosim_status master_pool_create(rtcosim_master *m, unsigned threads, master_pool **out,
                                  rtcosim_error *err)
{
    *out = NULL;
    master_pool *pool = calloc(1, sizeof *pool);
    if (pool) {
        pool->workers = calloc(threads, sizeof *pool->workers);
        pool->args = calloc(threads, sizeof *pool->args);
    }
    if (!pool || !pool->workers || !pool->args) {
        if (pool) {
            free(pool->workers);
            free(pool->args);
        }
        free(pool);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "master: out of memory for the worker pool");
    }
    pool->m = m;
    pool->threads = threads;
    barrier_init(&pool->start, threads);
    barrier_init(&pool->done, threads);
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
    /* Release the started workers with the quit flag set. When some workers
     * could not be started, the start barrier counts only those that were
     * (the ones already waiting compared against the old count and wait on). */
    atomic_store(&pool->start.count, pool->started + 1);
    atomic_store(&pool->quit, true);
    barrier_wait(&pool->start);
    for (unsigned i = 0; i < pool->started; i++)
        pthread_join(pool->workers[i], NULL);
    pthread_mutex_destroy(&pool->start.lock);
    pthread_cond_destroy(&pool->start.cond);
    pthread_mutex_destroy(&pool->done.lock);
    pthread_cond_destroy(&pool->done.cond);
    free(pool->workers);
    free(pool->args);
    free(pool);
}
