/* The conservative parallel scheduler: a fixed pool of worker threads, each
 * owning a partition of the LPs and one queue of their events. LPs joined by
 * zero-lookahead links or sharing a group are kept on one thread, so every
 * cross-thread lookahead is positive and the earliest event of all can always
 * be processed: no deadlock. Two ways to agree on what is safe:
 *  - asynchronous (default): each thread publishes a promise and reads the
 *    others' promises as channel clocks, exchanging events through lock-free
 *    single-producer rings; no thread ever waits for all the others;
 *  - rounds (option): barrier-separated rounds; in a round thread t processes
 *    its events earlier than min over threads s of (next_s + D(s,t)), next_s
 *    the earliest event s holds or has been sent and D the shortest lookahead
 *    path between threads (D(t,t): the shortest cycle through another one),
 *    the lower-bound exchange of YAWNS refined per thread pair. Cross-thread
 *    events travel in mailboxes double-buffered by round parity.
 * In the asynchronous variant a thread works in batches of BATCH_EVENTS and
 * republishes its promise between them, so the others can proceed alongside
 * instead of waiting for its whole window (otherwise two threads take turns);
 * the events of a batch reach the rings with one tail store per ring. A
 * blocked thread spins for an adaptive budget, then sleeps (see
 * wait_for_change). The run statistics report the thread-seconds spent
 * blocked and the sleeps, next to the CPU time, to tell synchronization from
 * a lack of free cores. Measured on PHOLD and the vehicle (bench phold, bench
 * ecu) the asynchronous variant is at least as fast as rounds, and needs no
 * barrier per lookahead window. */
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernel.h"
#include "rtcosim/events_dist.h"
#include "util/spin_wait.h"

/* A thread's promise (asynchronous variant) and the CPU it last ran on, on a
 * cache line of their own. */
typedef struct padded_time {
    _Alignas(64) _Atomic rtcosim_time_ns value;
    _Atomic int cpu;
} padded_time;

/* ---- waiting: spin, then sleep on a futex (util/spin_wait.h) ----
 * A thread blocked on the others usually waits for a few microseconds of
 * their work (one lookahead window), less than a futex handoff costs. The
 * adaptive budget settles near the partner's work per window, so that B7 runs
 * without sleeping on an idle machine. A thread whose partner last ran on its
 * own CPU does not spin at all (cpu_shared): measured with both threads on
 * one CPU, any spinning made B7 3-6x slower. */

/* Note the CPU this worker runs on, and whether another worker last ran
 * there: then the thread it waits for may be queued behind it on that CPU
 * (the machine has fewer free cores than threads) and spinning would only
 * delay it. */
static bool cpu_shared(rtcosim_events *sim, unsigned me)
{
    int cpu = sched_getcpu();
    atomic_store_explicit(&sim->promises[me].cpu, cpu, memory_order_relaxed);
    for (unsigned s = 0; cpu >= 0 && s < sim->worker_count; s++)
        if (s != me && atomic_load_explicit(&sim->promises[s].cpu, memory_order_relaxed) == cpu)
            return true;
    return false;
}

/* Return once *word differs from `seen`, or after one (bounded) sleep. */
static void wait_for_change(_Atomic uint32_t *word, uint32_t seen, _Atomic uint32_t *sleepers,
                            _Atomic int64_t *changed_at, worker *w)
{
    spin_wait_for_change(&w->wait, word, seen, sleepers, changed_at,
                         !cpu_shared(w->sim, w->index), 0, true);
}

/* ---- a barrier for the rounds variant ---- */

void round_barrier_wait(round_barrier *b, worker *w)
{
    uint32_t gen = atomic_load_explicit(&b->generation, memory_order_acquire);
    if (atomic_fetch_add_explicit(&b->arrived, 1, memory_order_acq_rel) + 1 == b->parties) {
        atomic_store_explicit(&b->arrived, 0, memory_order_relaxed);
        atomic_store_explicit(&b->changed_at, spin_wait_now_ns(), memory_order_relaxed);
        atomic_fetch_add_explicit(&b->generation, 1, memory_order_acq_rel);
        spin_wait_wake(&b->generation);
        return;
    }
    while (atomic_load_explicit(&b->generation, memory_order_acquire) == gen)
        wait_for_change(&b->generation, gen, NULL, &b->changed_at, w);
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

/* Events freed here that other threads allocated go back to a thread that
 * runs short (event_queue.h): memory bounded by the model, not by time. */
static inline void share_events(rtcosim_events *sim, worker *w)
{
    event_pool_share(&w->pool, &sim->workers[0].pool, sizeof *sim->workers, sim->worker_count);
}

/* The queue ran out of memory and lost an event (a push refused, or its
 * slow path `failed`): the thread fails, once. */
static inline void queue_fail(worker *w)
{
    if (!w->failed) {
        w->failed = true;
        rtcosim_error_set(&w->err, RTCOSIM_ENOMEM, "events: out of memory for the queue");
    }
}

static inline void queue_check(worker *w)
{
    if (w->calendar.failed)
        queue_fail(w);
}

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
                if (!event_calendar_push(&w->calendar, ev))
                    queue_fail(w);
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
        w->round_floor = global_min;
        for (unsigned t = 0; t < T; t++)
            atomic_store_explicit(&sim->sent_published[((size_t)p * T + me) * T + t],
                                  RTCOSIM_TIME_MAX, memory_order_relaxed);
        w->parity = p;
        /* 3. process what is safe */
        while (!w->failed && event_calendar_min_time(&w->calendar) < lbts) {
            rtcosim_event *ev = event_calendar_pop(&w->calendar);
            if (kernel_process(sim->lps[ev->dst], ev, &w->err) != RTCOSIM_OK)
                w->failed = true;
            event_pool_put(&w->pool, ev);
            w->events++;
        }
        queue_check(w);
        atomic_store_explicit(&sim->next_published[p * T + me],
                              event_calendar_min_time(&w->calendar), memory_order_relaxed);
        atomic_store_explicit(&sim->failed_published[p * T + me], w->failed,
                              memory_order_relaxed);
        if (me == 0)
            run->rounds++;
        share_events(sim, w);
        round_barrier_wait(&run->barrier, w);
        q = p;
    }
}

rtcosim_time_ns conservative_floor(const rtcosim_events *sim, const worker *w)
{
    if (!sim->async)
        return w->round_floor;
    rtcosim_time_ns least = RTCOSIM_TIME_MAX;
    for (unsigned t = 0; t < sim->worker_count; t++) {
        rtcosim_time_ns p = atomic_load_explicit(&sim->promises[t].value, memory_order_acquire);
        if (p < least)
            least = p;
    }
    return least;
}

/* ---- asynchronous variant: channel clocks without barriers ----
 * Thread s publishes a promise P_s: nothing it processes from now on is
 * earlier. Events it sends to t are then at least P_s + L(s,t) (L: the
 * smallest direct link lookahead), and t may process what is earlier than
 * B_t = min over s of (P_s + L(s,t)). A thread reads the promises first
 * (acquire), then drains its rings: every event pushed before the promise it
 * read is then in its queue (the push happened before the release store).
 * P_t = min(earliest queued event, B_t); promises only grow, and each
 * exchange raises them by the lookahead of a cycle, as null messages would. */

typedef struct spsc_ring {
    _Alignas(64) _Atomic size_t head; /* consumer */
    _Alignas(64) _Atomic size_t tail; /* producer */
    _Alignas(64) size_t mask;
    rtcosim_event **slots;
} spsc_ring;

/* Wake threads asleep waiting for a promise (or for room in a ring). The
 * epoch increment and the sleepers check are sequentially consistent, as are
 * the sleeper's increment and the futex's own recheck of the epoch, so a
 * wake-up is never lost. */
static void wake_waiters(rtcosim_events *sim)
{
    if (atomic_load_explicit(&sim->sleepers, memory_order_relaxed))
        atomic_store_explicit(&sim->epoch_changed_at, spin_wait_now_ns(), memory_order_relaxed);
    atomic_fetch_add(&sim->epoch, 1);
    if (atomic_load(&sim->sleepers))
        spin_wait_wake(&sim->epoch);
}

/* Producer side: the event goes into the slot after the last unpublished
 * one; the tail is published by publish_rings. */
static bool ring_push(spsc_ring *r, size_t *tail, rtcosim_event *ev)
{
    if (*tail - atomic_load_explicit(&r->head, memory_order_acquire) > r->mask)
        return false;
    r->slots[*tail & r->mask] = ev;
    (*tail)++;
    return true;
}

/* Make the events this thread pushed visible to their receivers (release:
 * before the promise that follows). One store per ring per batch, not one
 * per event, keeps the tail's cache line from bouncing between cores. */
static void publish_rings(rtcosim_events *sim, worker *w)
{
    unsigned T = sim->worker_count;
    for (unsigned t = 0; t < T; t++) {
        spsc_ring *r = &sim->rings[(size_t)w->index * T + t];
        if (t != w->index &&
            atomic_load_explicit(&r->tail, memory_order_relaxed) != w->ring_tail[t])
            atomic_store_explicit(&r->tail, w->ring_tail[t], memory_order_release);
    }
}

static bool drain_rings(rtcosim_events *sim, worker *w)
{
    unsigned T = sim->worker_count;
    bool ok = true;
    for (unsigned s = 0; s < T; s++) {
        if (s == w->index)
            continue;
        spsc_ring *r = &sim->rings[(size_t)s * T + w->index];
        size_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
        size_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
        for (; head != tail; head++)
            ok &= event_calendar_push(&w->calendar, r->slots[head & r->mask]);
        atomic_store_explicit(&r->head, head, memory_order_release);
    }
    return ok;
}

rtcosim_status conservative_push(worker *w, rtcosim_event *ev, unsigned thread,
                                 rtcosim_error *err)
{
    rtcosim_events *sim = w->sim;
    spsc_ring *r = &sim->rings[(size_t)w->index * sim->worker_count + thread];
    while (!ring_push(r, &w->ring_tail[thread], ev)) {
        atomic_store_explicit(&r->tail, w->ring_tail[thread], memory_order_release);
        /* full: take in our own deliveries meanwhile, so that two threads
         * filling each other's rings cannot wait on each other (what arrives
         * now is later than anything this batch processes) */
        if (!drain_rings(sim, w))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
        if (atomic_load_explicit(&sim->abort_run, memory_order_relaxed))
            return rtcosim_error_set(err, RTCOSIM_ECANCELED, "events: run aborted");
        wake_waiters(sim); /* the receiver may be asleep: let it drain */
        sched_yield();
    }
    return RTCOSIM_OK;
}

/* Events processed between two looks at the other threads' promises. */
enum { BATCH_EVENTS = 64 };

void conservative_window(rtcosim_events *sim, worker *w, rtcosim_time_ns limit, uint64_t *rounds)
{
    unsigned T = sim->worker_count, me = w->index;
    rtcosim_time_ns promises[256];
    const unsigned batch = T > 1 ? BATCH_EVENTS : UINT_MAX; /* alone: nobody to let run */
    rtcosim_time_ns published = atomic_load_explicit(&sim->promises[me].value,
                                                     memory_order_relaxed);
    for (;;) {
        /* the last batch's events first, then the promise that covers them */
        publish_rings(sim, w);
        share_events(sim, w);
        uint32_t epoch = atomic_load(&sim->epoch);
        if (atomic_load_explicit(&sim->abort_run, memory_order_acquire))
            break;
        for (unsigned s = 0; s < T; s++)
            promises[s] = atomic_load_explicit(&sim->promises[s].value, memory_order_acquire);
        if (!drain_rings(sim, w)) {
            rtcosim_error_set(&w->err, RTCOSIM_ENOMEM, "events: out of memory");
            w->failed = true;
            atomic_store(&sim->abort_run, 1);
            wake_waiters(sim);
            break;
        }
        rtcosim_time_ns bound = limit + 1, everyone = RTCOSIM_TIME_MAX;
        for (unsigned s = 0; s < T; s++) {
            if (s == me)
                continue;
            rtcosim_time_ns b = add_sat(promises[s], sim->lookahead_direct[(size_t)s * T + me]);
            if (b < bound)
                bound = b;
            if (promises[s] < everyone)
                everyone = promises[s];
        }
        rtcosim_time_ns next = event_calendar_min_time(&w->calendar);
        if (w->calendar.failed) { /* (its events are lost: not a promise) */
            queue_check(w);
            atomic_store(&sim->abort_run, 1);
            wake_waiters(sim);
            break;
        }
        rtcosim_time_ns promise = next < bound ? next : bound;
        if (promise > published) {
            atomic_store_explicit(&sim->promises[me].value, promise, memory_order_release);
            published = promise;
            wake_waiters(sim);
        }
        if (promise > limit && everyone > limit)
            break; /* nobody will process anything up to the limit */
        if (next < bound) {
            /* a bounded batch: the promise published at the top of the loop
             * then moves while this thread works, so that the others can run
             * alongside instead of waiting for the whole window (which would
             * make the threads take turns) */
            for (unsigned n = 0; n < batch && event_calendar_min_time(&w->calendar) < bound;
                 n++) {
                rtcosim_event *ev = event_calendar_pop(&w->calendar);
                rtcosim_status st = kernel_process(sim->lps[ev->dst], ev, &w->err);
                event_pool_put(&w->pool, ev);
                w->events++;
                if (st != RTCOSIM_OK) {
                    w->failed = true;
                    atomic_store(&sim->abort_run, 1);
                    wake_waiters(sim);
                    break;
                }
            }
            if (me == 0)
                (*rounds)++;
            continue;
        }
        /* blocked on the others until a promise moves */
        wait_for_change(&sim->epoch, epoch, &sim->sleepers, &sim->epoch_changed_at, w);
    }
}

static void run_worker(conservative_run *run, worker *w)
{
    if (run->sim->async)
        conservative_window(run->sim, w, run->sim->stop, &run->rounds);
    else
        worker_loop(run, w);
}

static void *thread_main(void *arg)
{
    thread_arg *a = arg;
    run_worker(a->run, a->w);
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
rtcosim_status kernel_partition(rtcosim_events *sim, unsigned T, rtcosim_error *err)
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
    free(sim->lp_thread);
    sim->lp_thread = malloc(n);
    if (!sim->lp_thread) {
        free(parent), free(component_of_root), free(size);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        sim->lps[i]->thread = (unsigned)component_of_root[find_root(parent, i)];
        sim->lp_thread[i] = (uint8_t)sim->lps[i]->thread;
    }
    free(parent), free(component_of_root), free(size);
    return RTCOSIM_OK;
}

void conservative_teardown(rtcosim_events *sim)
{
    unsigned T = sim->worker_count;
    for (unsigned t = 0; sim->workers && t < T; t++) {
        worker *w = &sim->workers[t];
        event_calendar_free(&w->calendar);
        event_heap_free(&w->heap);
        event_pool_free(&w->pool);
        free(w->outbox_head);
        free(w->outbox_tail);
        free(w->ring_tail);
    }
    for (size_t k = 0; sim->rings && k < (size_t)T * T; k++)
        free(sim->rings[k].slots);
    free(sim->rings);
    free(sim->promises);
    free(sim->lookahead_direct);
    sim->rings = NULL;
    free(sim->lp_thread);
    sim->lp_thread = NULL;
    sim->promises = NULL;
    sim->lookahead_direct = NULL;
    sim->async = false;
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
}

rtcosim_status conservative_setup(rtcosim_events *sim, unsigned T, bool async,
                                  rtcosim_time_ns start, rtcosim_error *err)
{
    sim->worker_count = T;
    sim->workers = aligned_alloc(64, T * sizeof *sim->workers);
    if (sim->workers)
        memset(sim->workers, 0, T * sizeof *sim->workers);
    sim->lookahead_between = malloc((size_t)T * T * sizeof *sim->lookahead_between);
    sim->next_published = malloc(2 * (size_t)T * sizeof *sim->next_published);
    sim->sent_published = malloc(2 * (size_t)T * T * sizeof *sim->sent_published);
    sim->failed_published = malloc(2 * (size_t)T * sizeof *sim->failed_published);
    sim->async = async;
    sim->lookahead_direct = malloc((size_t)T * T * sizeof *sim->lookahead_direct);
    sim->promises = aligned_alloc(64, T * sizeof *sim->promises);
    sim->rings = aligned_alloc(64, (size_t)T * T * sizeof *sim->rings);
    atomic_init(&sim->abort_run, 0);
    atomic_init(&sim->epoch, 0);
    atomic_init(&sim->sleepers, 0);
    atomic_init(&sim->epoch_changed_at, 0);
    bool ok = sim->workers && sim->lookahead_between && sim->next_published &&
              sim->sent_published && sim->failed_published && sim->lookahead_direct &&
              sim->promises && sim->rings;
    /* ring capacity: generous for few threads, bounded for many */
    size_t capacity = T <= 4 ? (size_t)1 << 15 : (size_t)1 << 11;
    for (size_t k = 0; sim->rings && k < (size_t)T * T; k++) {
        spsc_ring *r = &sim->rings[k];
        atomic_init(&r->head, 0);
        atomic_init(&r->tail, 0);
        r->mask = capacity - 1;
        r->slots = NULL;
        if (ok && async && k / T != k % T)
            ok = (r->slots = malloc(capacity * sizeof *r->slots)) != NULL;
    }
    size_t owned = 0;
    for (size_t i = 0; i < sim->lp_count; i++)
        owned += rtcosim_events_owns(sim, (rtcosim_lp_id)i);
    for (unsigned t = 0; ok && t < T; t++) {
        worker *w = &sim->workers[t];
        w->sim = sim;
        w->index = t;
        w->outbox_head = calloc(2 * (size_t)T, sizeof *w->outbox_head);
        w->outbox_tail = calloc(2 * (size_t)T, sizeof *w->outbox_tail);
        w->ring_tail = kernel_calloc_lines(T, sizeof *w->ring_tail);
        spin_wait_init(&w->wait, 10 * SPIN_WAIT_MIN_NS);
        w->pool.keep = owned * 4 / T + 4096;
        ok = w->outbox_head && w->outbox_tail && w->ring_tail &&
             event_pool_reserve(&w->pool, w->pool.keep);
    }
    if (!ok) {
        conservative_teardown(sim);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
    }
    /* smallest lookahead from each thread to each other thread, over the LPs
     * this process runs (over ranks, the links to other ranks are the
     * ranks' synchronization's business) */
    for (size_t k = 0; k < (size_t)T * T; k++)
        sim->lookahead_between[k] = RTCOSIM_TIME_MAX;
    for (size_t i = 0; i < sim->lp_count; i++) {
        const rtcosim_lp *lp = sim->lps[i];
        if (!rtcosim_events_owns(sim, lp->id))
            continue;
        sim->lps[i]->worker = &sim->workers[lp->thread];
        for (size_t k = 0; k < lp->out_count; k++) {
            if (!rtcosim_events_owns(sim, lp->out[k].peer))
                continue;
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
    memcpy(sim->lookahead_direct, sim->lookahead_between,
           (size_t)T * T * sizeof *sim->lookahead_direct);
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
    for (unsigned t = 0; t < T; t++) {
        atomic_init(&sim->promises[t].value, start);
        atomic_init(&sim->promises[t].cpu, -1);
    }
    return RTCOSIM_OK;
}

void conservative_restart(rtcosim_events *sim, rtcosim_time_ns promise)
{
    for (unsigned t = 0; t < sim->worker_count; t++)
        atomic_store_explicit(&sim->promises[t].value, promise, memory_order_relaxed);
}

rtcosim_status conservative_collect(rtcosim_events *sim, rtcosim_run_stats *stats,
                                    rtcosim_error *err)
{
    rtcosim_status st = RTCOSIM_OK;
    for (unsigned t = 0; t < sim->worker_count; t++) {
        stats->cross_thread += sim->workers[t].cross;
        stats->blocked_s += (double)sim->workers[t].wait.blocked_ns * 1e-9;
        stats->sleeps += sim->workers[t].wait.sleeps;
        if (sim->workers[t].failed && st == RTCOSIM_OK) {
            st = sim->workers[t].err.status;
            if (err)
                *err = sim->workers[t].err;
        }
    }
    return st;
}

rtcosim_status sched_conservative_run(rtcosim_events *sim, const rtcosim_run_options *o,
                                      rtcosim_run_stats *stats, rtcosim_error *err)
{
    unsigned T = o->threads;
    rtcosim_status st = kernel_partition(sim, T, err);
    if (st != RTCOSIM_OK)
        return st;
    st = conservative_setup(sim, T, !o->conservative_rounds, o->start_time, err);
    if (st != RTCOSIM_OK)
        return st;
    pthread_t *threads = calloc(T, sizeof *threads);
    thread_arg *args = calloc(T, sizeof *args);
    conservative_run run = {.sim = sim, .barrier = {.parties = T}};
    if (!threads || !args) {
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: out of memory");
        goto done;
    }
    sim->route = ROUTE_THREADS;
    st = kernel_init_lps(sim, err);
    if (st != RTCOSIM_OK)
        goto done;
    /* publish round "-1" (parity 1): the queues after init, nothing in flight */
    for (unsigned t = 0; t < T; t++) {
        atomic_init(&sim->next_published[T + t],
                    event_calendar_min_time(&sim->workers[t].calendar));
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
        atomic_store(&sim->abort_run, 1);
        wake_waiters(sim);
        for (unsigned t = 1; t < started; t++)
            pthread_join(threads[t], NULL);
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "events: could not start %u threads", T);
        goto done;
    }
    run_worker(&run, &sim->workers[0]);
    for (unsigned t = 1; t < T; t++)
        pthread_join(threads[t], NULL);
    st = conservative_collect(sim, stats, err);
    stats->rounds = run.rounds;
done:
    conservative_teardown(sim);
    free(threads);
    free(args);
    return st;
}
