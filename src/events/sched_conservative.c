/* The conservative parallel scheduler: a fixed pool of worker threads, each
 * owning a partition of the LPs and one queue of their events. Rounds are
 * separated by one barrier. In a round, thread t processes its events earlier
 * than LBTS_t = min over threads s of (next_s + D(s,t)), where next_s is the
 * earliest event s holds or has been sent, and D(s,t) the shortest path from
 * s to t in the graph of threads weighted by the smallest link lookahead
 * between them (D(t,t): the shortest cycle through another thread): nothing
 * can ever reach t earlier (the lower-bound exchange of YAWNS, refined by
 * per thread-pair lookahead like CMB channel clocks). Cross-thread events travel in
 * per thread-pair mailboxes double-buffered by round parity, so the only
 * synchronization per round is the barrier. LPs joined by zero-lookahead links
 * or sharing a group are kept on one thread, so every cross-thread lookahead
 * is positive and the earliest event of all is always processed: no deadlock. */
#include <inttypes.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernel.h"

/* ---- a barrier that spins briefly, then sleeps on a futex (the machine may
 * be oversubscribed, where pure spinning would starve the other threads) ---- */

typedef struct round_barrier {
    _Atomic unsigned arrived;
    _Atomic unsigned generation;
    unsigned parties;
} round_barrier;

static void barrier_wait(round_barrier *b)
{
    unsigned gen = atomic_load_explicit(&b->generation, memory_order_acquire);
    if (atomic_fetch_add_explicit(&b->arrived, 1, memory_order_acq_rel) + 1 == b->parties) {
        atomic_store_explicit(&b->arrived, 0, memory_order_relaxed);
        atomic_fetch_add_explicit(&b->generation, 1, memory_order_acq_rel);
        syscall(SYS_futex, &b->generation, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
        return;
    }
    for (int spin = 0; spin < 4000; spin++) {
        if (atomic_load_explicit(&b->generation, memory_order_acquire) != gen)
            return;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    while (atomic_load_explicit(&b->generation, memory_order_acquire) == gen)
        syscall(SYS_futex, &b->generation, FUTEX_WAIT_PRIVATE, gen, NULL, NULL, 0);
}

typedef struct conservative_run {
    rtcosim_events *sim;
    round_barrier barrier;
    uint64_t rounds;
} conservative_run;

typedef struct thread_arg {
    conservative_run *run;
    worker *w;
} thread_arg;

static inline rtcosim_time_ns add_sat(rtcosim_time_ns a, rtcosim_time_ns b)
{
    return a > RTCOSIM_TIME_MAX - b ? RTCOSIM_TIME_MAX : a + b;
}

static void worker_loop(conservative_run *run, worker *w)
{
    rtcosim_events *sim = run->sim;
    unsigned T = sim->worker_count, me = w->index;
    int q = 1; /* parity of the previous round; the main thread published round "-1" */
    for (;;) {
        int p = q ^ 1;
        /* 1. take the events the other threads sent us last round */
        for (unsigned s = 0; s < T; s++) {
            worker *from = &sim->workers[s];
            unsigned slot = (unsigned)q * T + me;
            for (rtcosim_event *ev = from->outbox_head[slot], *next; ev; ev = next) {
                next = ev->next;
                if (!event_heap_push(&w->heap, ev) && !w->failed) {
                    w->failed = true;
                    rtcosim_error_set(&w->err, RTCOSIM_ENOMEM, "events: out of memory");
                }
            }
            from->outbox_head[slot] = from->outbox_tail[slot] = NULL;
        }
        /* 2. every thread's next event time, and our bound */
        bool failed = false;
        rtcosim_time_ns global_min = RTCOSIM_TIME_MAX, lbts = sim->stop + 1;
        for (unsigned s = 0; s < T; s++) {
            rtcosim_time_ns next_s = atomic_load_explicit(&sim->next_published[q * T + s],
                                                          memory_order_relaxed);
            for (unsigned u = 0; u < T; u++) {
                rtcosim_time_ns sent = atomic_load_explicit(
                    &sim->sent_published[((size_t)q * T + u) * T + s], memory_order_relaxed);
                if (sent < next_s)
                    next_s = sent;
            }
            failed |= atomic_load_explicit(&sim->failed_published[q * T + s],
                                           memory_order_relaxed) != 0;
            if (next_s < global_min)
                global_min = next_s;
            rtcosim_time_ns bound = add_sat(next_s, sim->lookahead_between[(size_t)s * T + me]);
            if (bound < lbts)
                lbts = bound;
        }
        if (failed || global_min > sim->stop)
            break;
        for (unsigned t = 0; t < T; t++)
            atomic_store_explicit(&sim->sent_published[((size_t)p * T + me) * T + t],
                                  RTCOSIM_TIME_MAX, memory_order_relaxed);
        w->parity = p;
        /* 3. process what is safe */
        while (!w->failed && w->heap.count && w->heap.entries[0].time < lbts) {
            rtcosim_event *ev = event_heap_pop(&w->heap);
            if (kernel_process(sim->lps[ev->dst], ev, &w->err) != RTCOSIM_OK)
                w->failed = true;
            event_pool_put(&w->pool, ev);
            w->events++;
        }
        atomic_store_explicit(&sim->next_published[p * T + me], event_heap_min_time(&w->heap),
                              memory_order_relaxed);
        atomic_store_explicit(&sim->failed_published[p * T + me], w->failed,
                              memory_order_relaxed);
        if (me == 0)
            run->rounds++;
        barrier_wait(&run->barrier);
        q = p;
    }
}

static void *thread_main(void *arg)
{
    thread_arg *a = arg;
    worker_loop(a->run, a->w);
    return NULL;
}

static size_t find_root(size_t *parent, size_t x)
{
    while (parent[x] != x)
        x = parent[x] = parent[parent[x]];
    return x;
}

static void join(size_t *parent, size_t a, size_t b)
{
    a = find_root(parent, a);
    b = find_root(parent, b);
    if (a != b)
        parent[a > b ? a : b] = a < b ? a : b; /* the root stays the smallest LP */
}

/* Union-find over groups and zero-lookahead links, then contiguous blocks of
 * the components (in order of their first LP) balanced by LP count. */
static rtcosim_status partition(rtcosim_events *sim, unsigned T, rtcosim_error *err)
{
    size_t n = sim->lp_count;
    size_t *parent = malloc(n * sizeof *parent);
    size_t *component_of_root = malloc(n * sizeof *component_of_root);
    size_t *size = calloc(n, sizeof *size);
    if (!parent || !component_of_root || !size) {
        free(parent), free(component_of_root), free(size);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
    }
    for (size_t i = 0; i < n; i++)
        parent[i] = i;
    /* an LP's group names an LP index to share a thread with */
    for (size_t i = 0; i < n; i++) {
        uint32_t g = sim->lps[i]->group;
        if (g < n && g != i)
            join(parent, i, g);
        for (size_t k = 0; k < sim->lps[i]->out_count; k++)
            if (sim->lps[i]->out[k].lookahead == 0)
                join(parent, i, sim->lps[i]->out[k].peer);
    }
    for (size_t i = 0; i < n; i++)
        size[find_root(parent, i)]++;
    /* walk components in order of their smallest LP (the root is the smallest) */
    size_t done = 0;
    for (size_t i = 0; i < n; i++) {
        if (find_root(parent, i) != i)
            continue;
        component_of_root[i] = (size_t)((done * T + size[i] / 2) / n);
        if (component_of_root[i] >= T)
            component_of_root[i] = T - 1;
        done += size[i];
    }
    for (size_t i = 0; i < n; i++)
        sim->lps[i]->thread = (unsigned)component_of_root[find_root(parent, i)];
    free(parent), free(component_of_root), free(size);
    return RTCOSIM_OK;
}

rtcosim_status sched_conservative_run(rtcosim_events *sim, const rtcosim_run_options *o,
                                      rtcosim_run_stats *stats, rtcosim_error *err)
{
    unsigned T = o->threads;
    rtcosim_status st = partition(sim, T, err);
    if (st != RTCOSIM_OK)
        return st;
    sim->worker_count = T;
    sim->workers = calloc(T, sizeof *sim->workers);
    sim->lookahead_between = malloc((size_t)T * T * sizeof *sim->lookahead_between);
    sim->next_published = malloc(2 * (size_t)T * sizeof *sim->next_published);
    sim->sent_published = malloc(2 * (size_t)T * T * sizeof *sim->sent_published);
    sim->failed_published = malloc(2 * (size_t)T * sizeof *sim->failed_published);
    pthread_t *threads = calloc(T, sizeof *threads);
    thread_arg *args = calloc(T, sizeof *args);
    conservative_run run = {.sim = sim, .barrier = {.parties = T}};
    bool ok = sim->workers && sim->lookahead_between && sim->next_published &&
              sim->sent_published && sim->failed_published && threads && args;
    for (unsigned t = 0; ok && t < T; t++) {
        worker *w = &sim->workers[t];
        w->sim = sim;
        w->index = t;
        w->outbox_head = calloc(2 * (size_t)T, sizeof *w->outbox_head);
        w->outbox_tail = calloc(2 * (size_t)T, sizeof *w->outbox_tail);
        ok = w->outbox_head && w->outbox_tail &&
             event_pool_reserve(&w->pool, sim->lp_count * 4 / T + 4096);
    }
    if (!ok) {
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
        goto done;
    }
    /* smallest lookahead from each thread to each other thread */
    for (size_t k = 0; k < (size_t)T * T; k++)
        sim->lookahead_between[k] = RTCOSIM_TIME_MAX;
    for (size_t i = 0; i < sim->lp_count; i++) {
        const rtcosim_lp *lp = sim->lps[i];
        sim->lps[i]->worker = &sim->workers[lp->thread];
        for (size_t k = 0; k < lp->out_count; k++) {
            unsigned dt = sim->lps[lp->out[k].peer]->thread;
            rtcosim_time_ns *cell = &sim->lookahead_between[(size_t)lp->thread * T + dt];
            if (dt != lp->thread && lp->out[k].lookahead < *cell)
                *cell = lp->out[k].lookahead;
        }
    }
    if (sim->link_all >= 0)
        for (unsigned s = 0; s < T; s++)
            for (unsigned t = 0; t < T; t++)
                if (s != t && sim->link_all < sim->lookahead_between[(size_t)s * T + t])
                    sim->lookahead_between[(size_t)s * T + t] = sim->link_all;
    /* Events travel over several threads across rounds (s -> u in one round,
     * u -> t in a later one, and back to t itself), so the bound uses the
     * shortest path distances (Floyd-Warshall; the diagonal becomes the
     * shortest cycle through another thread). */
    for (unsigned k = 0; k < T; k++)
        for (unsigned s = 0; s < T; s++)
            for (unsigned t = 0; t < T; t++) {
                rtcosim_time_ns via = add_sat(sim->lookahead_between[(size_t)s * T + k],
                                              sim->lookahead_between[(size_t)k * T + t]);
                if (via < sim->lookahead_between[(size_t)s * T + t])
                    sim->lookahead_between[(size_t)s * T + t] = via;
            }
    sim->route = ROUTE_THREADS;
    st = kernel_init_lps(sim, err);
    if (st != RTCOSIM_OK)
        goto done;
    /* publish round "-1" (parity 1): the heaps after init, nothing in flight */
    for (unsigned t = 0; t < T; t++) {
        atomic_init(&sim->next_published[T + t], event_heap_min_time(&sim->workers[t].heap));
        atomic_init(&sim->next_published[t], RTCOSIM_TIME_MAX);
        atomic_init(&sim->failed_published[T + t], 0);
        atomic_init(&sim->failed_published[t], 0);
    }
    for (size_t k = 0; k < 2 * (size_t)T * T; k++)
        atomic_init(&sim->sent_published[k], RTCOSIM_TIME_MAX);
    unsigned started = 1;
    for (unsigned t = 1; t < T; t++) {
        args[t] = (thread_arg){&run, &sim->workers[t]};
        if (pthread_create(&threads[t], NULL, thread_main, &args[t]) != 0)
            break;
        started++;
    }
    if (started != T) {
        /* cannot run with fewer parties than the barrier expects: stop the
         * started threads by publishing a failure they see in their first round */
        for (unsigned t = 0; t < T; t++)
            atomic_store(&sim->failed_published[T + t], 1);
        for (unsigned t = 1; t < started; t++)
            pthread_join(threads[t], NULL);
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: could not start %u threads", T);
        goto done;
    }
    worker_loop(&run, &sim->workers[0]);
    for (unsigned t = 1; t < T; t++)
        pthread_join(threads[t], NULL);
    for (unsigned t = 0; t < T; t++) {
        stats->cross_thread += sim->workers[t].cross;
        if (sim->workers[t].failed && st == RTCOSIM_OK) {
            st = sim->workers[t].err.status;
            if (err)
                *err = sim->workers[t].err;
        }
    }
    stats->rounds = run.rounds;
done:
    for (unsigned t = 0; sim->workers && t < T; t++) {
        worker *w = &sim->workers[t];
        event_heap_free(&w->heap);
        event_pool_free(&w->pool);
        free(w->outbox_head);
        free(w->outbox_tail);
    }
    free(sim->workers);
    free(sim->lookahead_between);
    free((void *)sim->next_published);
    free((void *)sim->sent_published);
    free((void *)sim->failed_published);
    sim->workers = NULL;
    sim->lookahead_between = NULL;
    sim->next_published = sim->sent_published = NULL;
    sim->failed_published = NULL;
    sim->worker_count = 0;
    free(threads);
    free(args);
    return st;
}
