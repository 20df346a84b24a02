/* Measured-cost scheduling of the master's parallel steps. On sampled ticks
 * every component's step is timed on the thread that steps it (the cost
 * clock); the medians of the last samples plan the next ticks: per group of
 * components that step together (Jacobi: the whole tick; Gauss-Seidel: one
 * dependency level), components go longest first onto the least loaded
 * thread (LPT, Graham 1969: within 4/3 of the best makespan), and the
 * thread count is the one with the smallest predicted tick, the hand-off
 * included, falling back to one thread when that is not clearly faster than
 * sequential. The hand-off is measured too (a group's wall time beyond its
 * longest thread's work): on a machine without a free CPU it grows and the
 * plan falls back, to try again later with exponential backoff. Plans are
 * revised every few sampled ticks and adopted when they balance clearly
 * better (costs drift). The assignment never changes results: each
 * component computes only from its inputs, set before the group runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "master/master_internal.h"
#include "rtcosim/log.h"
#include "util/spin_wait.h"

/* Sampling intervals are powers of two. */
enum {
    PROBE_TICKS = 8,   /* the first ticks are all measured, then planned */
    SAMPLE_EVERY = 8,  /* afterwards every 8th tick is measured, */
    SAMPLE_EVERY_SEQUENTIAL = 64, /* every 64th while one thread does (the clock
                                     reads are then the only cost of the pool), */
    SAMPLE_EVERY_LIGHT = 512,     /* every 512th while the whole step costs less
                                     than a hand-off (its growth is what matters) */
    REPLAN_EVERY = 4,  /* sampled ticks between plans */
};
/* The hand-off assumed before one is measured, and its floor: the two
 * cache-line round trips of a spinning hand-off plus the component data the
 * other thread pulls in (`rtcosim bench master`: master.handoff_ns_per_step). */
#define HANDOFF_FLOOR_NS 1000.0
/* Parallel only when the plan predicts a tick this much shorter than the
 * sequential one; once parallel, until it predicts less than STAY (the gap
 * keeps noise in the measurements from flipping the plan). */
#define GO_PARALLEL 0.85
#define STAY_PARALLEL 0.95
/* A re-balanced assignment is adopted when its span is this much shorter. */
#define REBALANCE_GAIN 0.95
/* After falling back because the hand-off grew (a loaded machine), the
 * parallel plan is tried again after RETRY_FIRST ticks, then after twice as
 * many each time it fails again, up to RETRY_MAX. */
#define RETRY_FIRST 512
#define RETRY_MAX 65536

static inline int64_t cost_now(const rtcosim_master *m)
{
    return m->cost_clock ? m->cost_clock(m->cost_clock_context) : spin_wait_now_ns();
}

void master_step_sampled(const rtcosim_master *m, master_component *mc, bool sample)
{
    if (!sample) {
        master_step_component(mc);
        return;
    }
    int64_t t0 = cost_now(m);
    master_step_component(mc);
    mc->sample_ns = cost_now(m) - t0;
}

/* The weight of a component in a tick: its step cost, averaged over the
 * ticks of its step (a component with multiple n steps every n-th tick). */
static double weight(const master_component *mc)
{
    return mc->cost_ns / (double)(mc->multiple ? mc->multiple : 1);
}

/* LPT over the components order_list[from..to) onto `threads` threads:
 * fills assign[comp] and returns the span (largest load). Ties go to the
 * component added first and to the thread with fewer components, then the
 * lower one, so that the plan is a function of the costs alone (and components of
 * unknown cost are spread by position). */
static double lpt(rtcosim_master *m, size_t from, size_t to, unsigned threads, unsigned *assign)
{
    size_t n = to - from, *idx = m->sort_scratch;
    for (size_t i = 0; i < n; i++) {
        /* insertion sort by falling weight (groups are small) */
        size_t c = m->order_list[from + i], j = i;
        double w = weight(&m->comps[c]);
        while (j > 0 && (weight(&m->comps[idx[j - 1]]) < w ||
                         (weight(&m->comps[idx[j - 1]]) == w && idx[j - 1] > c))) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = c;
    }
    double *load = m->load_scratch, *count = m->load_scratch + m->threads;
    for (unsigned t = 0; t < threads; t++)
        load[t] = count[t] = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned best = 0;
        for (unsigned t = 1; t < threads; t++)
            if (load[t] < load[best] || (load[t] == load[best] && count[t] < count[best]))
                best = t;
        assign[idx[i]] = best;
        load[best] += weight(&m->comps[idx[i]]);
        count[best]++;
    }
    double span = 0;
    for (unsigned t = 0; t < threads; t++)
        if (load[t] > span)
            span = load[t];
    return span;
}

/* The groups that step together: [from, to) ranges of order_list. */
static size_t group_end(const rtcosim_master *m, size_t from)
{
    if (m->order == RTCOSIM_ORDER_JACOBI)
        return m->comp_count;
    size_t to = from + 1;
    while (to < m->comp_count &&
           m->comps[m->order_list[to]].level == m->comps[m->order_list[from]].level)
        to++;
    return to;
}

/* The span of the current assignment (mc->thread) under the current costs,
 * summed over groups. */
static double current_span(rtcosim_master *m, unsigned threads)
{
    double span = 0, *load = m->load_scratch;
    for (size_t from = 0, to; from < m->comp_count; from = to) {
        to = group_end(m, from);
        for (unsigned t = 0; t < threads; t++)
            load[t] = 0;
        for (size_t i = from; i < to; i++) {
            const master_component *mc = &m->comps[m->order_list[i]];
            load[mc->thread < threads ? mc->thread : 0] += weight(mc);
        }
        double worst = 0;
        for (unsigned t = 0; t < threads; t++)
            if (load[t] > worst)
                worst = load[t];
        span += worst;
    }
    return span;
}

/* A plan for `threads` threads into assign[]: its predicted tick time. */
static double plan_for(rtcosim_master *m, unsigned threads, unsigned *assign, double handoff,
                       double *span)
{
    double predicted = 0;
    *span = 0;
    for (size_t from = 0, to; from < m->comp_count; from = to) {
        to = group_end(m, from);
        double s = lpt(m, from, to, to - from > 1 ? threads : 1, assign);
        *span += s;
        predicted += s + (to - from > 1 && threads > 1 ? handoff : 0);
    }
    return predicted;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of n <= 5 values (a copy is sorted). */
static double median5(const double *values, size_t n)
{
    double v[5];
    memcpy(v, values, n * sizeof *v);
    qsort(v, n, sizeof *v, compare_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The hand-off for planning: the median of the last HANDOFF_SAMPLES measured
 * (robust to a preempted one, following a lasting change within a few),
 * at least the floor; the floor alone with an injected cost clock, which
 * makes the plan a function of the injected costs. */
static double handoff_estimate(const rtcosim_master *m)
{
    size_t n = m->handoff_count < HANDOFF_SAMPLES ? m->handoff_count : HANDOFF_SAMPLES;
    if (m->cost_clock || n == 0)
        return HANDOFF_FLOOR_NS;
    double median = median5(m->handoff_samples, n);
    return median > HANDOFF_FLOOR_NS ? median : HANDOFF_FLOOR_NS;
}

static void replan(rtcosim_master *m)
{
    double work = 0;
    for (size_t c = 0; c < m->comp_count; c++)
        work += weight(&m->comps[c]);
    if (!m->parallel && m->retry_tick && m->steps >= m->retry_tick) {
        m->handoff_count = 0; /* forget the hand-off that made it fall back */
        m->retry_tick = 0;
    }
    double handoff = handoff_estimate(m);
    unsigned *cand = m->thread_scratch, best = 1;
    double best_time = work, span;
    m->parallel_best_ns = -1;
    for (unsigned t = 2; t <= m->threads; t++) {
        double predicted = plan_for(m, t, cand, handoff, &span);
        if (m->parallel_best_ns < 0 || predicted < m->parallel_best_ns)
            m->parallel_best_ns = predicted;
        if (predicted < best_time) {
            best = t;
            best_time = predicted;
        }
    }
    m->handoff_used_ns = handoff;
    if (!m->thread_fallback)
        best = m->threads;
    else if (best > 1 && best_time > work * (m->parallel ? STAY_PARALLEL : GO_PARALLEL))
        best = 1;
    m->work_ns = work;
    if (best == 1) {
        if (m->parallel || !m->planned)
            rtcosim_log(RTCOSIM_LOG_DEBUG, "master",
                        "one thread: %.3g us of component work per step, a parallel step would "
                        "take %.3g us", work * 1e-3, best_time * 1e-3);
        if (m->parallel) {
            /* Sequential ticks measure no hand-off: try the parallel plan
             * again later (the load may pass), backing off while it fails. */
            m->rebalances++;
            m->retry_interval = m->retry_interval ? 2 * m->retry_interval : RETRY_FIRST;
            if (m->retry_interval > RETRY_MAX)
                m->retry_interval = RETRY_MAX;
            m->retry_tick = m->steps + m->retry_interval;
        }
        m->parallel = false;
        m->threads_used = 1;
        m->span_ns = work;
        for (size_t c = 0; c < m->comp_count; c++)
            m->comps[c].thread = 0;
        m->planned = true;
        return;
    }
    plan_for(m, best, cand, handoff, &span);
    bool adopt = true;
    if (m->parallel && best == m->threads_used) {
        /* the same thread count: re-balance only for a clearly better span */
        double now = current_span(m, best);
        adopt = span < now * REBALANCE_GAIN;
        if (!adopt)
            span = now;
    }
    if (adopt) {
        if (m->planned)
            m->rebalances++;
        if (!m->parallel || best != m->threads_used)
            rtcosim_log(RTCOSIM_LOG_DEBUG, "master",
                        "%u threads: %.3g us of component work per step, span %.3g us", best,
                        work * 1e-3, span * 1e-3);
        for (size_t c = 0; c < m->comp_count; c++)
            m->comps[c].thread = cand[c];
        if (!m->parallel) {
            /* measure the new plan's first ticks: a hand-off that does not
             * pay (no free CPU) shows within a few of them */
            m->parallel_since = m->steps;
            m->probe_until = m->steps + PROBE_TICKS;
        }
        m->threads_used = best;
        m->parallel = true;
    }
    m->span_ns = span;
    m->planned = true;
    if (m->retry_interval && m->steps >= m->parallel_since + 8 * RETRY_FIRST)
        m->retry_interval = 0; /* parallel has held for a while: the load passed */
}

/* Folds the samples of a measured group into the costs: the median of a
 * component's last COST_SAMPLES samples, so that a preempted step or the
 * first steps on cold caches do not count, while a lasting change of cost
 * shows within three samples. */
static void fold_samples(rtcosim_master *m, const size_t *list, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        master_component *mc = &m->comps[list[i]];
        double x = (double)mc->sample_ns;
        mc->cost_samples[mc->samples++ % COST_SAMPLES] = x > 0 ? x : 0;
        mc->cost_ns = median5(mc->cost_samples,
                              mc->samples < COST_SAMPLES ? mc->samples : COST_SAMPLES);
    }
}

void master_run_group(rtcosim_master *m, const size_t *list, size_t n)
{
    if (!m->sched) {
        for (size_t i = 0; i < n; i++)
            master_step_component(&m->comps[list[i]]);
        return;
    }
    uint64_t every = m->parallel || !m->planned ? SAMPLE_EVERY
                     : m->work_ns < HANDOFF_FLOOR_NS ? SAMPLE_EVERY_LIGHT
                                                     : SAMPLE_EVERY_SEQUENTIAL;
    /* (powers of two: a mask, not a division, on every tick) */
    bool sample = m->steps <= m->probe_until || (m->steps & (every - 1)) == 0;
    if (sample && m->last_sampled_tick != m->steps) {
        /* the first group of a sampled tick: re-plan from what was measured */
        m->last_sampled_tick = m->steps;
        if (m->sampled_ticks >= PROBE_TICKS && m->sampled_ticks % REPLAN_EVERY == 0)
            replan(m);
        m->sampled_ticks++;
    }
    if (!m->parallel || n < 2) {
        for (size_t i = 0; i < n; i++)
            master_step_sampled(m, &m->comps[list[i]], sample);
        if (sample)
            fold_samples(m, list, n);
        return;
    }
    /* Expected waits from the plan: the caller's, for the other threads
     * after its own share; a worker's, for the rest of the caller's share
     * and its serial part (measured as the time since the last group ended)
     * until the next group: at most the span and the serial part. Both
     * spin that long plus a margin for the jitter of step times, since a
     * sleeper's wake-up (50-150 us on a virtual machine) would cost more. */
    double own = 0, longest = 0, load[256];
    for (unsigned t = 0; t < m->threads_used; t++)
        load[t] = 0;
    for (size_t i = 0; i < n; i++) {
        const master_component *mc = &m->comps[list[i]];
        master_pool_assign(m->pool, mc->thread, list[i]);
        load[mc->thread] += mc->cost_ns;
    }
    own = load[0];
    for (unsigned t = 1; t < m->threads_used; t++)
        if (load[t] > longest)
            longest = load[t];
    int64_t start = spin_wait_now_ns();
    int64_t serial = m->group_end_ns ? start - m->group_end_ns : 0;
    double span = own > longest ? own : longest;
    int64_t worker_hint = serial > 0 && serial < SPIN_WAIT_MAX_NS
                              ? (int64_t)(1.25 * span) + 2 * serial + 2000
                              : 0;
    int64_t wait_hint = (int64_t)((longest > own ? longest - own : 0) + 0.25 * span) + 2000;
    master_pool_run(m->pool, sample, wait_hint, worker_hint);
    m->group_end_ns = spin_wait_now_ns();
    /* the pool was idle before (sequential ticks): its workers were asleep */
    bool warm = m->last_parallel_tick + 1 >= m->steps;
    m->parallel_ticks += m->last_parallel_tick != m->steps;
    m->last_parallel_tick = m->steps;
    if (!sample)
        return;
    fold_samples(m, list, n);
    if (m->cost_clock || !warm)
        return;
    /* The hand-off: the group's wall time beyond its longest thread's work. */
    double worst = 0, work[256];
    for (unsigned t = 0; t < m->threads_used; t++)
        work[t] = 0;
    for (size_t i = 0; i < n; i++) {
        const master_component *mc = &m->comps[list[i]];
        work[mc->thread] += (double)mc->sample_ns;
    }
    for (unsigned t = 0; t < m->threads_used; t++)
        if (work[t] > worst)
            worst = work[t];
    double h = (double)(m->group_end_ns - start) - worst;
    m->handoff_samples[m->handoff_count++ % HANDOFF_SAMPLES] = h > 0 ? h : 0;
}

rtcosim_status master_sched_init(rtcosim_master *m, rtcosim_error *err)
{
    if (m->threads_auto) {
        m->threads = spin_wait_cpus();
        if (m->threads > 256)
            m->threads = 256;
    }
    if (m->threads > m->comp_count)
        m->threads = m->comp_count > 0 ? (unsigned)m->comp_count : 1;
    m->threads_used = 1;
    m->probe_until = PROBE_TICKS;
    if (m->threads < 2)
        return RTCOSIM_OK;
    m->sort_scratch = malloc(m->comp_count * sizeof *m->sort_scratch);
    m->load_scratch = malloc(2 * (size_t)m->threads * sizeof *m->load_scratch);
    m->thread_scratch = malloc(m->comp_count * sizeof *m->thread_scratch);
    if (!m->sort_scratch || !m->load_scratch || !m->thread_scratch)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "master: out of memory");
    rtcosim_status st = master_pool_create(m, m->threads, &m->pool, err);
    if (st != RTCOSIM_OK)
        return st;
    m->sched = true;
    if (!m->thread_fallback) {
        /* all threads from the first tick, by position until measured */
        replan(m);
        m->planned = false;
        m->rebalances = 0;
    }
    return RTCOSIM_OK;
}

void master_sched_free(rtcosim_master *m)
{
    master_pool_free(m->pool);
    m->pool = NULL;
    free(m->sort_scratch);
    free(m->load_scratch);
    free(m->thread_scratch);
}

/* ---- the public view ---- */

rtcosim_status rtcosim_master_set_thread_fallback(rtcosim_master *m, bool fallback,
                                                  rtcosim_error *err)
{
    if (m->initialized)
        return rtcosim_error_set(err, RTCOSIM_ESTATE,
                                 "master: set_thread_fallback is not allowed after initialize");
    m->thread_fallback = fallback;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_master_set_idle_workers(rtcosim_master *m, bool idle, rtcosim_error *err)
{
    if (m->initialized)
        return rtcosim_error_set(err, RTCOSIM_ESTATE,
                                 "master: set_idle_workers is not allowed after initialize");
    m->idle_workers = idle;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_master_set_cost_clock(rtcosim_master *m, rtcosim_master_cost_clock clock,
                                             void *context, rtcosim_error *err)
{
    if (m->initialized)
        return rtcosim_error_set(err, RTCOSIM_ESTATE,
                                 "master: set_cost_clock is not allowed after initialize");
    m->cost_clock = clock;
    m->cost_clock_context = context;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_master_get_parallel(const rtcosim_master *m, rtcosim_master_parallel *out,
                                           rtcosim_error *err)
{
    if (!out)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "master: get_parallel needs a result");
    *out = (rtcosim_master_parallel){
        .threads = m->pool ? m->threads : 1,
        .threads_used = m->threads_used ? m->threads_used : 1,
        .automatic = m->threads_auto,
        .fallback = m->thread_fallback,
        .measured_steps = m->sampled_ticks,
        .parallel_steps = m->parallel_ticks,
        .rebalances = m->rebalances,
        .work_ns = m->work_ns,
        .span_ns = m->span_ns,
        .handoff_ns = m->handoff_count ? handoff_estimate(m) : 0,
        .sleeps = m->pool ? master_pool_sleeps(m->pool) : 0,
    };
    return RTCOSIM_OK;
}

void rtcosim_master_describe_parallel(const rtcosim_master *m, char *buf, size_t size)
{
    rtcosim_master_parallel p;
    rtcosim_master_get_parallel(m, &p, NULL);
    const char *order = m->order == RTCOSIM_ORDER_JACOBI ? "Jacobi" : "Gauss-Seidel levels";
    const char *how = p.automatic ? "auto" : "set";
    if (p.threads < 2) {
        snprintf(buf, size, "threads: 1 (%s%s)", how,
                 p.automatic ? ", one CPU or one component" : "");
        return;
    }
    uint64_t steps = m->steps ? m->steps : 1;
    if (p.threads_used < 2)
        snprintf(buf, size,
                 "threads: 1 of %u (%s; fallback from measured costs: %.3g us of component work "
                 "per step sequentially, %.3g us predicted in parallel with a %.2g us hand-off; "
                 "parallel in %.0f%% of steps)",
                 p.threads, how, p.work_ns * 1e-3, m->parallel_best_ns * 1e-3,
                 m->handoff_used_ns * 1e-3, 100.0 * (double)p.parallel_steps / (double)steps);
    else
        snprintf(buf, size,
                 "threads: %u of %u (%s; %s by measured cost: %.3g us work, %.3g us span per "
                 "step, hand-off %.2g us; parallel in %.0f%% of steps, %llu re-balances)",
                 p.threads_used, p.threads, how, order, p.work_ns * 1e-3, p.span_ns * 1e-3,
                 p.handoff_ns * 1e-3, 100.0 * (double)p.parallel_steps / (double)steps,
                 (unsigned long long)p.rebalances);
}

unsigned rtcosim_master_component_thread(const rtcosim_master *m, size_t index)
{
    return index < m->comp_count && m->parallel ? m->comps[index].thread : 0;
}

double rtcosim_master_component_cost(const rtcosim_master *m, size_t index)
{
    return index < m->comp_count ? m->comps[index].cost_ns : 0;
}
