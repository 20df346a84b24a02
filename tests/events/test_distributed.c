/* The event kernel over ranks, without MPI: R threads of one process play
 * the ranks through an in-process transport (barriers and shared slots,
 * mailboxes for point-to-point messages), so the distributed scheduler runs
 * under the sanitizers too. Checks: PHOLD on 1..4 ranks gives the
 * sequential run's checksum (counters combined, and states gathered on rank
 * 0), also with 2 threads per rank and with null-message synchronization,
 * and with Time Warp on every rank (Tc = 0, rollbacks across ranks seen); a
 * ring's token times are the analytic ones; a failing handler on one rank
 * stops every rank (the failing one names the LP) with either
 * synchronization and with Time Warp; no message of a run is left over; and
 * placements that break a zero-lookahead link, name a missing rank, or ask
 * Time Warp for several threads per rank are refused. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/events_dist.h"
#include "pair_model.h"

/* ---- in-process transport ---- */

enum { MAX_RANKS = 4 };

typedef struct message {
    struct message *next;
    int from;
    size_t bytes;
    unsigned char data[];
} message;

typedef struct mailbox {
    pthread_mutex_t lock;
    pthread_cond_t arrived;
    message *head, *tail;
} mailbox;

typedef struct shared {
    mailbox box[MAX_RANKS];
    int size;
    pthread_barrier_t barrier;
    const int64_t *i64[MAX_RANKS];
    const uint64_t *u64[MAX_RANKS];
    const void *const *send[MAX_RANKS];
    const size_t *send_bytes[MAX_RANKS];
    size_t per_rank;
} shared;

typedef struct rank_ctx {
    shared *s;
    int rank;
    message *current; /* the last received, freed at the next receive */
} rank_ctx;

static rtcosim_status t_send(void *c, int to, const void *head, size_t head_bytes,
                             const void *body, size_t body_bytes, rtcosim_error *err)
{
    (void)err;
    rank_ctx *r = c;
    message *m = malloc(sizeof *m + head_bytes + body_bytes);
    m->next = NULL;
    m->from = r->rank;
    m->bytes = head_bytes + body_bytes;
    memcpy(m->data, head, head_bytes);
    if (body_bytes)
        memcpy(m->data + head_bytes, body, body_bytes);
    mailbox *b = &r->s->box[to];
    pthread_mutex_lock(&b->lock);
    if (b->tail)
        b->tail->next = m;
    else
        b->head = m;
    b->tail = m;
    pthread_cond_signal(&b->arrived);
    pthread_mutex_unlock(&b->lock);
    return RTCOSIM_OK;
}

static rtcosim_status t_receive(void *c, bool wait, int *from, const void **data, size_t *bytes,
                                rtcosim_error *err)
{
    (void)err;
    rank_ctx *r = c;
    free(r->current);
    r->current = NULL;
    mailbox *b = &r->s->box[r->rank];
    pthread_mutex_lock(&b->lock);
    while (wait && !b->head)
        pthread_cond_wait(&b->arrived, &b->lock);
    message *m = b->head;
    if (m) {
        b->head = m->next;
        if (!b->head)
            b->tail = NULL;
    }
    pthread_mutex_unlock(&b->lock);
    *from = -1;
    if (m) {
        r->current = m;
        *from = m->from;
        *data = m->data;
        *bytes = m->bytes;
    }
    return RTCOSIM_OK;
}

static rtcosim_status t_alltoall(void *c, const int64_t *send, int64_t *recv, size_t per_rank,
                                 rtcosim_error *err)
{
    (void)err;
    rank_ctx *r = c;
    r->s->i64[r->rank] = send;
    pthread_barrier_wait(&r->s->barrier);
    for (int q = 0; q < r->s->size; q++)
        memcpy(recv + (size_t)q * per_rank, r->s->i64[q] + (size_t)r->rank * per_rank,
               per_rank * sizeof *recv);
    pthread_barrier_wait(&r->s->barrier);
    return RTCOSIM_OK;
}

static rtcosim_status t_exchange(void *c, const void *const *send, const size_t *send_bytes,
                                 void *recv, const size_t *recv_bytes, const size_t *recv_offset,
                                 rtcosim_error *err)
{
    rank_ctx *r = c;
    r->s->send[r->rank] = send;
    r->s->send_bytes[r->rank] = send_bytes;
    pthread_barrier_wait(&r->s->barrier);
    rtcosim_status st = RTCOSIM_OK;
    for (int q = 0; q < r->s->size; q++) {
        if (r->s->send_bytes[q][r->rank] != recv_bytes[q])
            st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "test transport: sizes differ");
        else if (recv_bytes[q])
            memcpy((char *)recv + recv_offset[q], r->s->send[q][r->rank], recv_bytes[q]);
    }
    pthread_barrier_wait(&r->s->barrier);
    return st;
}

static rtcosim_status t_reduce(void *c, const void *in, void *out_, size_t n, bool is_signed,
                               rtcosim_reduce_op op)
{
    rank_ctx *r = c;
    if (is_signed)
        r->s->i64[r->rank] = in;
    else
        r->s->u64[r->rank] = in;
    pthread_barrier_wait(&r->s->barrier);
    for (size_t i = 0; i < n; i++) {
        int64_t si = 0;
        uint64_t ui = 0;
        for (int q = 0; q < r->s->size; q++) {
            int64_t sv = is_signed ? r->s->i64[q][i] : 0;
            uint64_t uv = is_signed ? 0 : r->s->u64[q][i];
            if (q == 0) {
                si = sv, ui = uv;
            } else if (op == RTCOSIM_REDUCE_SUM) {
                si += sv, ui += uv;
            } else if (op == RTCOSIM_REDUCE_MIN) {
                si = sv < si ? sv : si, ui = uv < ui ? uv : ui;
            } else {
                si = sv > si ? sv : si, ui = uv > ui ? uv : ui;
            }
        }
        if (is_signed)
            ((int64_t *)out_)[i] = si;
        else
            ((uint64_t *)out_)[i] = ui;
    }
    pthread_barrier_wait(&r->s->barrier);
    return RTCOSIM_OK;
}

static rtcosim_status t_reduce_u64(void *c, uint64_t *v, size_t n, rtcosim_reduce_op op,
                                   rtcosim_error *err)
{
    (void)err;
    uint64_t *copy = malloc(n * sizeof *copy);
    memcpy(copy, v, n * sizeof *copy);
    rtcosim_status st = t_reduce(c, copy, v, n, false, op);
    free(copy);
    return st;
}

static rtcosim_status t_reduce_i64(void *c, int64_t *v, size_t n, rtcosim_reduce_op op,
                                   rtcosim_error *err)
{
    (void)err;
    int64_t *copy = malloc(n * sizeof *copy);
    memcpy(copy, v, n * sizeof *copy);
    rtcosim_status st = t_reduce(c, copy, v, n, true, op);
    free(copy);
    return st;
}

static rtcosim_status t_barrier(void *c, rtcosim_error *err)
{
    (void)err;
    rank_ctx *r = c;
    pthread_barrier_wait(&r->s->barrier);
    return RTCOSIM_OK;
}

/* ---- one rank's job ---- */

typedef enum job_kind { JOB_PHOLD, JOB_RING, JOB_FAIL, JOB_PAIR, JOB_AHEAD } job_kind;

typedef struct job {
    shared *s;
    int rank;
    job_kind kind;
    unsigned threads;
    rtcosim_rank_sync sync;
    rtcosim_scheduler scheduler;
    const rtcosim_phold_config *cfg; /* NULL: phold_cfg */
    rtcosim_status status;
    rtcosim_error err;
    uint64_t combined, gathered, events;
    uint64_t rollbacks, anti_messages; /* speculative, this rank's */
    rtcosim_time_ns ring_last[8];
    pair_lp pair[2]; /* JOB_PAIR: A and B, gathered on rank 0 */
} job;

static const rtcosim_phold_config phold_cfg = {.lps = 48, .events_per_lp = 8,
                                               .remote_fraction = 0.25,
                                               .lookahead = RTCOSIM_NS_PER_S / 10,
                                               .mean_increment = RTCOSIM_NS_PER_S};

/* Denser: increments of 0.1 + exp(0.05) against the lookahead of 0.1, so
 * that most events arrive close to the bound a synchronization computes (a
 * bound too late by a fraction of the lookahead breaks causality here). */
static const rtcosim_phold_config phold_dense = {.lps = 48, .events_per_lp = 8,
                                                 .remote_fraction = 0.25,
                                                 .lookahead = RTCOSIM_NS_PER_S / 10,
                                                 .mean_increment = RTCOSIM_NS_PER_S / 20};

static uint64_t phold_sequential_of(const rtcosim_phold_config *cfg, uint64_t *events)
{
    rtcosim_events *sim = NULL;
    rtcosim_phold *ph = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_phold_build(sim, cfg, &ph, &err), RTCOSIM_OK);
    rtcosim_run_options o = {.stop_time = 20 * RTCOSIM_NS_PER_S, .seed = 7};
    rtcosim_run_stats st;
    assert_int_equal(rtcosim_events_run(sim, &o, &st, &err), RTCOSIM_OK);
    *events = st.events;
    uint64_t sum = rtcosim_phold_checksum(ph);
    rtcosim_phold_free(ph);
    rtcosim_events_free(sim);
    return sum;
}

static uint64_t phold_sequential(uint64_t *events)
{
    return phold_sequential_of(&phold_cfg, events);
}

/* ring of 8 LPs: LP i forwards the token to i+1 after (i+2) us; LP 7 fails
 * at its first token in JOB_FAIL */
typedef struct ring_lp {
    uint32_t index;
    bool fail;
    rtcosim_time_ns last;
} ring_lp;

static rtcosim_status ring_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    ring_lp *r = state;
    return r->index == 0 ? rtcosim_lp_send(lp, 1, 2 * RTCOSIM_NS_PER_US, 0, 0, NULL, 0, err)
                         : RTCOSIM_OK;
}

static rtcosim_status ring_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                 rtcosim_error *err)
{
    ring_lp *r = state;
    r->last = ev->time;
    if (r->fail)
        return rtcosim_error_set(err, RTCOSIM_ECOMPONENT, "ring %u failed", r->index);
    return rtcosim_lp_send(lp, (r->index + 1) % 8, (r->index + 2) * RTCOSIM_NS_PER_US, 0, 0,
                           NULL, 0, err);
}

static const rtcosim_lp_model ring_model = {.kind = "ring", .init = ring_init,
                                            .event = ring_event, .state_size = sizeof(ring_lp)};

/* JOB_AHEAD: two LPs that tick every microsecond on their own, the second
 * failing at its tick at AHEAD_FAIL; nothing holds the first back, so under
 * Time Warp it runs far past the failure before GVT commits it */
#define AHEAD_FAIL (20 * RTCOSIM_NS_PER_US)

static rtcosim_status tick_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    (void)state;
    return rtcosim_lp_send(lp, rtcosim_lp_self(lp), RTCOSIM_NS_PER_US, 0, 0, NULL, 0, err);
}

static rtcosim_status tick_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                 rtcosim_error *err)
{
    ring_lp *r = state;
    r->last = ev->time;
    if (r->fail && ev->time >= AHEAD_FAIL)
        return rtcosim_error_set(err, RTCOSIM_ECOMPONENT, "ticker %u failed", r->index);
    return rtcosim_lp_send(lp, rtcosim_lp_self(lp), RTCOSIM_NS_PER_US, 0, 0, NULL, 0, err);
}

static const rtcosim_lp_model tick_model = {.kind = "ticker", .init = tick_init,
                                            .event = tick_event, .state_size = sizeof(ring_lp)};

static void *rank_main(void *arg)
{
    job *j = arg;
    rank_ctx ctx = {j->s, j->rank, NULL};
    rtcosim_transport t = {.rank = j->rank, .size = j->s->size, .context = &ctx,
                           .alltoall_i64 = t_alltoall, .exchange = t_exchange,
                           .allreduce_u64 = t_reduce_u64, .allreduce_i64 = t_reduce_i64,
                           .barrier = t_barrier, .send = t_send, .receive = t_receive};
    rtcosim_events *sim = NULL;
    rtcosim_phold *ph = NULL;
    ring_lp ring[8] = {{0}};
    rtcosim_events_create(&sim, &j->err);
    rtcosim_status st = rtcosim_events_set_transport(sim, &t, &j->err);
    rtcosim_run_options o = {.stop_time = 20 * RTCOSIM_NS_PER_S, .seed = 7,
                             .threads = j->threads, .rank_sync = j->sync,
                             .scheduler = j->scheduler};
    if (j->kind == JOB_PHOLD) {
        if (st == RTCOSIM_OK)
            st = rtcosim_phold_build(sim, j->cfg ? j->cfg : &phold_cfg, &ph, &j->err);
    } else if (j->kind == JOB_PAIR) {
        o.stop_time = 10 * RTCOSIM_NS_PER_MS;
        o.max_ahead = RTCOSIM_NS_PER_S;
        if (st == RTCOSIM_OK)
            st = pair_build(sim, j->pair, &j->err);
    } else if (j->kind == JOB_AHEAD) {
        o.stop_time = 100 * RTCOSIM_NS_PER_MS;
        o.max_ahead = RTCOSIM_NS_PER_S;
        for (uint32_t i = 0; i < 2 && st == RTCOSIM_OK; i++) {
            ring[i].index = i;
            ring[i].fail = i == 1;
            st = rtcosim_events_add_lp(sim, i ? "late" : "early", &tick_model, &ring[i],
                                       RTCOSIM_LP_NO_GROUP, NULL, &j->err);
        }
        if (st == RTCOSIM_OK)
            st = rtcosim_events_add_link(sim, 0, 1, RTCOSIM_NS_PER_US, &j->err);
    } else {
        o.stop_time = 1000 * RTCOSIM_NS_PER_US;
        for (uint32_t i = 0; i < 8 && st == RTCOSIM_OK; i++) {
            ring[i].index = i;
            ring[i].fail = j->kind == JOB_FAIL && i == 7;
            char name[16];
            snprintf(name, sizeof name, "ring%u", i);
            st = rtcosim_events_add_lp(sim, name, &ring_model, &ring[i], RTCOSIM_LP_NO_GROUP,
                                       NULL, &j->err);
        }
        for (uint32_t i = 0; i < 8 && st == RTCOSIM_OK; i++)
            st = rtcosim_events_add_link(sim, i, (i + 1) % 8, (i + 2) * RTCOSIM_NS_PER_US,
                                         &j->err);
    }
    rtcosim_run_stats stats = {0};
    if (st == RTCOSIM_OK)
        st = rtcosim_events_run(sim, &o, &stats, &j->err);
    j->events = stats.events;
    j->rollbacks = stats.rollbacks;
    j->anti_messages = stats.anti_messages;
    if (st == RTCOSIM_OK && ph) {
        /* every rank gets all counters ... */
        st = rtcosim_phold_combine(ph, &t, &j->err);
        j->combined = rtcosim_phold_checksum(ph);
        /* ... or, in a second run of the same simulation, rank 0 gathers the
         * states (phold copies its state_size bytes) */
        rtcosim_phold_reset(ph);
        if (st == RTCOSIM_OK)
            st = rtcosim_events_run(sim, &o, &stats, &j->err);
        if (st == RTCOSIM_OK)
            st = rtcosim_events_gather(sim, &t, &j->err);
        if (st == RTCOSIM_OK)
            j->gathered = rtcosim_phold_checksum(ph);
    }
    if (st == RTCOSIM_OK && !ph)
        st = rtcosim_events_gather(sim, &t, &j->err);
    for (int i = 0; i < 8; i++)
        j->ring_last[i] = ring[i].last;
    j->status = st;
    free(ctx.current);
    rtcosim_phold_free(ph);
    rtcosim_events_free(sim);
    return NULL;
}

static void run_ranks_full(int size, job_kind kind, const rtcosim_phold_config *cfg,
                           rtcosim_scheduler scheduler, unsigned threads, rtcosim_rank_sync sync,
                           job *jobs)
{
    shared s = {.size = size};
    pthread_barrier_init(&s.barrier, NULL, (unsigned)size);
    for (int r = 0; r < size; r++) {
        pthread_mutex_init(&s.box[r].lock, NULL);
        pthread_cond_init(&s.box[r].arrived, NULL);
    }
    pthread_t th[MAX_RANKS];
    for (int r = 0; r < size; r++) {
        jobs[r] = (job){.s = &s, .rank = r, .kind = kind, .threads = threads, .sync = sync,
                        .scheduler = scheduler, .cfg = cfg};
        assert_int_equal(pthread_create(&th[r], NULL, rank_main, &jobs[r]), 0);
    }
    for (int r = 0; r < size; r++)
        pthread_join(th[r], NULL);
    pthread_barrier_destroy(&s.barrier);
    for (int r = 0; r < size; r++) {
        /* every message of the runs was consumed: none is left for a next run */
        if (s.box[r].head)
            fail_msg("%d ranks: a message from rank %d to rank %d was left over", size,
                     s.box[r].head->from, r);
        pthread_mutex_destroy(&s.box[r].lock);
        pthread_cond_destroy(&s.box[r].arrived);
    }
}

static void run_ranks_on(int size, job_kind kind, rtcosim_scheduler scheduler, unsigned threads,
                         rtcosim_rank_sync sync, job *jobs)
{
    run_ranks_full(size, kind, NULL, scheduler, threads, sync, jobs);
}

static void run_ranks_with(int size, job_kind kind, unsigned threads, rtcosim_rank_sync sync,
                           job *jobs)
{
    run_ranks_on(size, kind, RTCOSIM_SCHEDULER_SEQUENTIAL, threads, sync, jobs);
}

static void run_ranks(int size, job_kind kind, job *jobs)
{
    run_ranks_with(size, kind, 1, RTCOSIM_RANK_SYNC_DEFAULT, jobs);
}

static void phold_is_identical_on_any_rank_count(void **state)
{
    (void)state;
    uint64_t events = 0, reference = phold_sequential(&events);
    for (int size = 1; size <= MAX_RANKS; size++) {
        job jobs[MAX_RANKS];
        run_ranks(size, JOB_PHOLD, jobs);
        for (int r = 0; r < size; r++) {
            if (jobs[r].status != RTCOSIM_OK)
                fail_msg("%d ranks, rank %d: %s", size, r, jobs[r].err.message);
            if (jobs[r].combined != reference)
                fail_msg("%d ranks, rank %d: checksum %llx, sequential %llx", size, r,
                         (unsigned long long)jobs[r].combined, (unsigned long long)reference);
            assert_int_equal(jobs[r].events, events);
        }
        assert_int_equal(jobs[0].gathered, reference); /* states brought to rank 0 */
    }
}

/* Ranks x threads x synchronization: the same checksum and event count as
 * the sequential run for 1-3 ranks, 1-2 threads, reduction and null messages. */
static void phold_is_identical_for_ranks_threads_and_sync(void **state)
{
    (void)state;
    const rtcosim_rank_sync syncs[] = {RTCOSIM_RANK_SYNC_REDUCTION,
                                       RTCOSIM_RANK_SYNC_NULL_MESSAGES};
    const rtcosim_phold_config *cfgs[] = {&phold_cfg, &phold_dense};
    for (int c = 0; c < 2; c++) {
    uint64_t events = 0, reference = phold_sequential_of(cfgs[c], &events);
    for (int size = 1; size <= 3; size++)
        for (unsigned threads = 1; threads <= 2; threads++)
            for (int k = 0; k < 2; k++) {
                job jobs[MAX_RANKS];
                run_ranks_full(size, JOB_PHOLD, cfgs[c], RTCOSIM_SCHEDULER_SEQUENTIAL, threads,
                               syncs[k], jobs);
                for (int r = 0; r < size; r++) {
                    if (jobs[r].status != RTCOSIM_OK)
                        fail_msg("%d ranks x %u threads, %s, rank %d: %s", size, threads,
                                 rtcosim_rank_sync_name(syncs[k]), r, jobs[r].err.message);
                    if (jobs[r].combined != reference || jobs[r].events != events)
                        fail_msg("%d ranks x %u threads, %s, rank %d: checksum %llx (%llu"
                                 " events), sequential %llx (%llu)", size, threads,
                                 rtcosim_rank_sync_name(syncs[k]), r,
                                 (unsigned long long)jobs[r].combined,
                                 (unsigned long long)jobs[r].events,
                                 (unsigned long long)reference, (unsigned long long)events);
                }
                assert_int_equal(jobs[0].gathered, reference);
            }
    }
}

/* Time Warp on every rank, anti-messages and GVT across ranks: with Tc = 0
 * the committed result is the sequential run's for 1-3 ranks (the tight
 * lookahead of the test's PHOLD, 0.1 against a mean of 1, and a quarter of
 * the events remote make stragglers across ranks common). */
static void speculative_is_identical_on_any_rank_count(void **state)
{
    (void)state;
    uint64_t events = 0, reference = phold_sequential(&events);
    for (int size = 1; size <= 3; size++) {
        job jobs[MAX_RANKS];
        run_ranks_on(size, JOB_PHOLD, RTCOSIM_SCHEDULER_SPECULATIVE, 1,
                     RTCOSIM_RANK_SYNC_DEFAULT, jobs);
        for (int r = 0; r < size; r++) {
            if (jobs[r].status != RTCOSIM_OK)
                fail_msg("%d ranks, rank %d: %s", size, r, jobs[r].err.message);
            if (jobs[r].combined != reference || jobs[r].events != events)
                fail_msg("%d ranks, rank %d: checksum %llx (%llu events), sequential %llx"
                         " (%llu)", size, r, (unsigned long long)jobs[r].combined,
                         (unsigned long long)jobs[r].events, (unsigned long long)reference,
                         (unsigned long long)events);
        }
        assert_int_equal(jobs[0].gathered, reference);
        uint64_t rollbacks = 0, anti = 0;
        for (int r = 0; r < size; r++)
            rollbacks += jobs[r].rollbacks, anti += jobs[r].anti_messages;
        if (size > 1 && (rollbacks == 0 || anti == 0)) /* the test tested something */
            fail_msg("%d ranks: %llu rollbacks, %llu anti-messages", size,
                     (unsigned long long)rollbacks, (unsigned long long)anti);
    }
}

static void ring_times_are_analytic_on_three_ranks(void **state)
{
    (void)state;
    for (int k = 0; k < 2; k++) {
    job jobs[3];
    run_ranks_with(3, JOB_RING, 1 + (unsigned)k,
                   k ? RTCOSIM_RANK_SYNC_NULL_MESSAGES : RTCOSIM_RANK_SYNC_REDUCTION, jobs);
    for (int r = 0; r < 3; r++)
        if (jobs[r].status != RTCOSIM_OK)
            fail_msg("rank %d: %s", r, jobs[r].err.message);
    /* the token leaves LP k after k + 2 us: LP 1 first receives it at 2 us,
     * LP i + 1 at first[i] + i + 2; a lap is sum_{k=0..7} (k + 2) = 44 us, so
     * within 1000 us the last arrival at LP i is first[i] + 44 m */
    rtcosim_time_ns first[8];
    first[1] = 2;
    for (int i = 2; i < 8; i++)
        first[i] = first[i - 1] + (i - 1) + 2;
    first[0] = first[7] + 7 + 2;
    for (int i = 0; i < 8; i++) {
        rtcosim_time_ns t = first[i];
        while (t + 44 <= 1000)
            t += 44;
        assert_int_equal(jobs[0].ring_last[i], t * RTCOSIM_NS_PER_US); /* gathered on rank 0 */
    }
    }
}

/* Over ranks as on threads (test_speculative_end.c): B, on rank 1, fails at
 * a tick it processed ahead of A's message from rank 0; the straggler undoes
 * the failure, the run succeeds with the sequential result (B's state
 * gathered on rank 0). */
static void failure_a_straggler_undoes_is_not_the_runs_over_ranks(void **state)
{
    (void)state;
    rtcosim_events *sim;
    rtcosim_error err;
    pair_lp ref[2];
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    assert_int_equal(pair_build(sim, ref, &err), RTCOSIM_OK);
    rtcosim_run_options o = {.stop_time = 10 * RTCOSIM_NS_PER_MS};
    atomic_store(&pair_b_max, RTCOSIM_TIME_MAX); /* A does not wait */
    assert_int_equal(rtcosim_events_run(sim, &o, NULL, &err), RTCOSIM_OK);
    rtcosim_events_free(sim);
    assert_int_equal(ref[1].ticks, 101); /* 0, 0.1, ..., 10 ms */
    atomic_store(&pair_b_max, 0);
    job jobs[2];
    run_ranks_on(2, JOB_PAIR, RTCOSIM_SCHEDULER_SPECULATIVE, 1, RTCOSIM_RANK_SYNC_REDUCTION, jobs);
    for (int r = 0; r < 2; r++)
        if (jobs[r].status != RTCOSIM_OK)
            fail_msg("rank %d: %s", r, jobs[r].err.message);
    assert_false(pair_waited_out); /* B did reach (and fail at) its tick at 2 ms first */
    assert_int_equal(jobs[0].pair[1].ticks, ref[1].ticks);
    assert_true(jobs[0].pair[1].hash == ref[1].hash);
    assert_true(jobs[1].rollbacks >= 1);
}

/* A speculative run over ranks that fails keeps only what GVT committed:
 * the LP on the other rank, which ran ahead of the failure, is taken back
 * to it. The sequential order processes the first LP's ticks up to and
 * including the failure's instant (it sorts first there), so the committed
 * prefix ends one tick before or at it. */
static void failed_speculative_ranks_keep_the_committed_result(void **state)
{
    (void)state;
    job jobs[2];
    run_ranks_on(2, JOB_AHEAD, RTCOSIM_SCHEDULER_SPECULATIVE, 1, RTCOSIM_RANK_SYNC_REDUCTION,
                 jobs);
    if (jobs[1].status != RTCOSIM_ECOMPONENT)
        fail_msg("rank 0: %s; rank 1: %s", jobs[0].err.message, jobs[1].err.message);
    assert_non_null(strstr(jobs[1].err.message, "ticker 1 failed"));
    assert_int_equal(jobs[0].status, RTCOSIM_ECANCELED);
    /* "early" is rank 0's, "late" rank 1's (blocks of consecutive LPs) */
    rtcosim_time_ns early = jobs[0].ring_last[0], late = jobs[1].ring_last[1];
    if (early < AHEAD_FAIL - RTCOSIM_NS_PER_US || early > AHEAD_FAIL)
        fail_msg("the LP that ran ahead was left at t = %.9f s, the failure is at %.9f s",
                 rtcosim_time_to_seconds(early), rtcosim_time_to_seconds(AHEAD_FAIL));
    /* the failing event itself is undone too (it lies at GVT, not below) */
    assert_true(late == AHEAD_FAIL - RTCOSIM_NS_PER_US);
}

/* k = 0: reduction on 2 threads per rank, 1: null messages, 2: speculative */
static void failure_on_one_rank_stops_all(void **state)
{
    (void)state;
    for (int k = 0; k < 3; k++) {
    job jobs[2];
    run_ranks_on(2, JOB_FAIL, k == 2 ? RTCOSIM_SCHEDULER_SPECULATIVE : RTCOSIM_SCHEDULER_SEQUENTIAL,
                 k == 0 ? 2 : 1,
                 k == 1 ? RTCOSIM_RANK_SYNC_NULL_MESSAGES : RTCOSIM_RANK_SYNC_REDUCTION, jobs);
    /* ring7 is on rank 1 (blocks of consecutive LPs) */
    if (jobs[1].status != RTCOSIM_ECOMPONENT)
        fail_msg("case %d: rank 0: %s; rank 1: %s", k, jobs[0].err.message, jobs[1].err.message);
    assert_int_equal(jobs[1].status, RTCOSIM_ECOMPONENT);
    assert_non_null(strstr(jobs[1].err.message, "ring7"));
    assert_int_equal(jobs[0].status, RTCOSIM_ECANCELED);
    assert_non_null(strstr(jobs[0].err.message, "another rank failed"));
    }
}

static void bad_placements_are_refused(void **state)
{
    (void)state;
    shared s = {.size = 2};
    rank_ctx ctx = {&s, 0, NULL};
    rtcosim_transport t = {.rank = 0, .size = 2, .context = &ctx};
    rtcosim_events *sim = NULL;
    rtcosim_error err;
    ring_lp ring[2] = {{0}};
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_events_set_transport(sim, &t, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_events_add_lp(sim, "a", &ring_model, &ring[0], RTCOSIM_LP_NO_GROUP,
                                           NULL, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_events_add_lp(sim, "b", &ring_model, &ring[1], RTCOSIM_LP_NO_GROUP,
                                           NULL, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_events_place(sim, 1, 2, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "rank 2"));
    assert_int_equal(rtcosim_events_add_link(sim, 0, 1, 0, &err), RTCOSIM_OK);
    /* a and b are kept together by their zero-lookahead link; forcing them
     * apart is refused before any communication */
    assert_int_equal(rtcosim_events_place(sim, 0, 0, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_events_place(sim, 1, 1, &err), RTCOSIM_OK);
    rtcosim_run_options o = {.stop_time = RTCOSIM_NS_PER_S};
    assert_int_equal(rtcosim_events_run(sim, &o, NULL, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "crosses ranks"));
    /* Time Warp over ranks runs one thread per rank: more is refused, also
     * before any communication */
    rtcosim_run_options spec = {.stop_time = RTCOSIM_NS_PER_S,
                                .scheduler = RTCOSIM_SCHEDULER_SPECULATIVE, .threads = 2};
    assert_int_equal(rtcosim_events_run(sim, &spec, NULL, &err), RTCOSIM_EUNSUPPORTED);
    assert_non_null(strstr(err.message, "one thread per rank"));
    rtcosim_events_free(sim);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(phold_is_identical_on_any_rank_count),
        cmocka_unit_test(phold_is_identical_for_ranks_threads_and_sync),
        cmocka_unit_test(speculative_is_identical_on_any_rank_count),
        cmocka_unit_test(ring_times_are_analytic_on_three_ranks),
        cmocka_unit_test(failure_on_one_rank_stops_all),
        cmocka_unit_test(failed_speculative_ranks_keep_the_committed_result),
        cmocka_unit_test(failure_a_straggler_undoes_is_not_the_runs_over_ranks),
        cmocka_unit_test(bad_placements_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
