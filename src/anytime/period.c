/* One period of an anytime set: the three strategies (escalate, timer abort
 * with learning, parallel) that deliver a result by the deadline, the commit
 * of the delivered variant's state, the period's record, and period changes. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "anytime/anytime_internal.h"
#include "anytime/anytime_private.h"

/* ---- the strategies ---------------------------------------------------- */

/* Only completed variants' results are read: an abandoned one's fields
 * still belong to its worker. */
static void candidates_fill(rtcosim_anytime *set, anytime_candidate *c)
{
    for (size_t i = 0; i < set->variant_count; i++) {
        variant *v = &set->variants[i];
        bool completed = v->outcome == RTCOSIM_ANYTIME_COMPLETED;
        c[i] = (anytime_candidate){.completed = completed,
                                   .rank = v->rank,
                                   .step_ns = v->step_ns,
                                   .solver = v->solver,
                                   .exec_ns = v->exec_ns,
                                   .finish_at = completed ? v->finished_at : 0};
    }
}

/* The learned cost a start decision uses: start_quantile of v's recent
 * completed runs (NAN without any). */
static double start_need(rtcosim_anytime *set, variant *v)
{
    return anytime_stats_quantile(&v->stats, set->cfg.start_quantile);
}

/* Minimal first, then each costlier variant in order, started only when its
 * learned cost fits before the cutoff (anytime_escalate_fits): work that is
 * not expected to finish is not begun, so the thread is idle, not busy to
 * the cutoff, and a host stall then meets slack instead of pushing the
 * delivery past the deadline. While only the minimal result is in hand the
 * lower first_start_quantile decides (an abort loses nothing, and the
 * minimal result is the far coarser alternative); then start_quantile. The
 * abort at the cutoff still bounds a variant that runs longer than it ever
 * did. */
static int strategy_escalate(rtcosim_anytime *set, const double *inputs, rtcosim_time_ns cutoff)
{
    anytime_variant_run(&set->variants[0], inputs, NEVER);
    if (set->variants[0].outcome != RTCOSIM_ANYTIME_COMPLETED)
        return -1;
    for (size_t i = 1; i < set->variant_count; i++) {
        variant *v = &set->variants[i];
        if (anytime_variant_busy(v)) {
            v->outcome = RTCOSIM_ANYTIME_BUSY;
            continue;
        }
        rtcosim_time_ns now = rtcosim_clock_now(set->clock);
        if (now >= cutoff)
            break;
        /* one left unrun for forget_after_periods is probed with its fastest
         * recent run, so that slow samples (a loaded moment, calibration)
         * cannot bar it for ever */
        bool stale = set->periods - v->last_run_period >= set->cfg.forget_after_periods;
        bool better_in_hand = false;
        for (size_t j = 1; j < i; j++)
            better_in_hand |= set->variants[j].outcome == RTCOSIM_ANYTIME_COMPLETED;
        double need = stale            ? anytime_stats_window_min(&v->stats)
                      : better_in_hand ? start_need(set, v)
                                       : anytime_stats_quantile(&v->stats,
                                                                set->cfg.first_start_quantile);
        if (!anytime_escalate_fits(need, now, cutoff))
            continue;
        anytime_variant_run(v, inputs, cutoff);
        if (v->outcome == RTCOSIM_ANYTIME_ABORTED || v->outcome == RTCOSIM_ANYTIME_ABANDONED)
            break;
    }
    anytime_candidate c[RTCOSIM_ANYTIME_MAX_VARIANTS];
    candidates_fill(set, c);
    return anytime_pick(c, set->variant_count, set->cfg.criterion);
}

/* Before the strategy: recompute the previous period with the most
 * accurate variant that fits twice (anytime_repair_choose) from the state
 * and inputs it started from, and commit its state (not its outputs, which
 * were delivered). Returns the variant that repaired, or -1. */
static int repair_previous(rtcosim_anytime *set, rtcosim_time_ns cutoff, rtcosim_time_ns *exec)
{
    *exec = 0;
    if (!set->repair_pending)
        return -1;
    set->repair_pending = false;
    double need[RTCOSIM_ANYTIME_MAX_VARIANTS];
    int rank[RTCOSIM_ANYTIME_MAX_VARIANTS];
    for (size_t i = 0; i < set->variant_count; i++) {
        variant *v = &set->variants[i];
        need[i] = anytime_variant_busy(v) ? NAN : start_need(set, v);
        rank[i] = v->rank;
    }
    rtcosim_time_ns now = rtcosim_clock_now(set->clock);
    int r = anytime_repair_choose(need, rank, set->variant_count, set->repair_below_rank, now,
                                  cutoff);
    if (r < 0)
        return -1;
    variant *v = &set->variants[r];
    /* aborted in time for the same variant and the minimal one to follow */
    rtcosim_time_ns abort_at = cutoff - (rtcosim_time_ns)ceil(need[r]) -
                               (isnan(need[0]) ? 0 : (rtcosim_time_ns)ceil(need[0]));
    anytime_variant_run_job(v, set->repair_state, set->repair_inputs, set->repair_t,
                            set->repair_h, abort_at);
    *exec = v->exec_ns;
    bool done = v->outcome == RTCOSIM_ANYTIME_COMPLETED;
    if (done && set->cfg.state_size)
        memcpy(set->state, v->state, set->cfg.state_size);
    else if (!done)
        set->repairs_aborted++;
    /* the period's record shows what the strategy did with each variant */
    v->outcome = RTCOSIM_ANYTIME_NOT_RUN;
    v->exec_ns = 0;
    return done ? r : -1;
}

/* After a delivery: keep the period's starting state and inputs for a
 * repair when a variant ranked above the delivered one exists. */
static void repair_arm(rtcosim_anytime *set, const double *inputs, int delivered)
{
    bool native = set->variant_count > 0 && set->variants[0].fn != NULL;
    int below = set->variants[delivered].rank;
    bool better = false;
    for (size_t i = 0; i < set->variant_count; i++)
        better |= set->variants[i].rank > below;
    set->repair_pending = set->cfg.repair && native && better;
    if (!set->repair_pending)
        return;
    set->repair_below_rank = below;
    set->repair_t = set->sim_time;
    set->repair_h = set->period_ns;
    if (set->cfg.input_count)
        memcpy(set->repair_inputs, inputs, set->cfg.input_count * sizeof *inputs);
}

/* The timer strategy with a fallback (config timer_fallback). A pair is a
 * first choice (its estimate) and a less accurate fallback other than the
 * minimal variant (its worst recent time) that fit the budget one after
 * the other; the most accurate first choice with a pair wins. The fallback
 * then runs first and the first choice after it (see strategy_timer).
 * Without a pair, the best variant whose worst recent time fits runs alone,
 * and only without one the plain choice does. Returns the first choice;
 * *fallback is 0 when there is none. */
static size_t timer_pick_with_fallback(rtcosim_anytime *set, const double *estimate,
                                       const int *rank, rtcosim_time_ns abort_at,
                                       rtcosim_time_ns now, size_t chosen, size_t *fallback)
{
    size_t n = set->variant_count;
    double budget = (double)(abort_at - now), high[RTCOSIM_ANYTIME_MAX_VARIANTS];
    for (size_t i = 0; i < n; i++) {
        high[i] = isinf(estimate[i]) ? INFINITY
                                     : anytime_stats_estimate(&set->variants[i].stats,
                                                              RTCOSIM_ANYTIME_ESTIMATE_MAX,
                                                              set->cfg.quantile);
        if ((double)set->abort_floor_ns[i] > high[i])
            high[i] = (double)set->abort_floor_ns[i];
    }
    size_t first = 0, second = 0;
    for (size_t i = 1; i < n; i++) {
        /* a first choice aborted before is expected to need more than it had */
        double need = fmax(estimate[i], (double)set->abort_floor_ns[i]);
        if (!(need < budget) || (first && rank[i] < rank[first]))
            continue;
        for (size_t f = 1; f < n; f++)
            if (f != i && rank[f] < rank[i] && need + high[f] < budget &&
                (!second || first != i || rank[f] > rank[second]))
                first = i, second = f;
    }
    if (first) {
        *fallback = second;
        return first;
    }
    /* Pairs and the safe choice use each variant's own learned floor
     * (abort_floor_ns) rather than the set's last abort time: the fallback
     * covers exactly the case that time warns about. */
    size_t safe = anytime_timer_choose(high, NULL, rank, n, abort_at - now, 0);
    if (!safe)
        return chosen;
    /* The safe choice's worst recent time is no guarantee either: when a
     * less accurate variant other than the minimal one fits by its worst
     * time too, it runs first and the safe choice after it only while its
     * estimate still fits, so that an overrun delivers that one, not the
     * minimal result (whose error is far larger). */
    for (size_t f = 1; f < n; f++)
        if (rank[f] < rank[safe] && high[f] < budget && (!*fallback || rank[f] > rank[*fallback]))
            *fallback = f;
    return safe;
}

/* The timer strategy after a delivery that left time (config
 * timer_upgrade): with a result in hand nothing needs reserving for the
 * minimal variant any more, so a variant ranked above the one delivered,
 * not run this period and not busy, starts when its estimate (raised to its
 * learned floor, below the learned abort limit) fits before the work
 * cutoff; aborted there, it is learned from like a first choice. Returns
 * the variant to deliver. */
static int timer_upgrade(rtcosim_anytime *set, const double *inputs, const double *estimate,
                         const int *rank, rtcosim_time_ns cutoff, int best, bool *aborted)
{
    for (;;) {
        double fit[RTCOSIM_ANYTIME_MAX_VARIANTS];
        for (size_t i = 0; i < set->variant_count; i++) {
            variant *v = &set->variants[i];
            bool eligible = rank[i] > rank[best] && v->outcome == RTCOSIM_ANYTIME_NOT_RUN &&
                            !anytime_variant_busy(v);
            fit[i] = eligible ? estimate[i] : INFINITY;
        }
        rtcosim_time_ns now = rtcosim_clock_now(set->clock);
        if (now >= cutoff)
            return best;
        size_t next = anytime_timer_choose(fit, set->abort_floor_ns, rank, set->variant_count,
                                           cutoff - now, set->learned_abort_ns);
        if (next == 0)
            return best;
        variant *v = &set->variants[next];
        anytime_variant_run(v, inputs, cutoff);
        if (v->outcome == RTCOSIM_ANYTIME_COMPLETED) {
            best = (int)next;
            continue;
        }
        if (v->outcome == RTCOSIM_ANYTIME_ABORTED || v->outcome == RTCOSIM_ANYTIME_ABANDONED) {
            *aborted = true;
            set->learned_abort_ns = cutoff - (v->outcome == RTCOSIM_ANYTIME_ABORTED
                                                  ? v->started_at
                                                  : v->dispatched_at);
            if (set->learned_abort_ns < 1)
                set->learned_abort_ns = 1;
            set->abort_floor_ns[next] = set->learned_abort_ns;
        }
        return best;
    }
}

static int strategy_timer(rtcosim_anytime *set, const double *inputs, rtcosim_time_ns deadline,
                          rtcosim_time_ns idle_reserve_ns)
{
    variant *minimal = &set->variants[0];
    /* The minimal variant's high quantile over the recent window (not its
     * worst time: one preempted run would shrink every later budget; the
     * safety margin covers the rest). */
    rtcosim_time_ns reserve =
        (rtcosim_time_ns)ceil(anytime_stats_quantile(&minimal->stats, set->cfg.quantile)) +
        set->cfg.safety_margin_ns;
    rtcosim_time_ns abort_at = deadline - idle_reserve_ns - reserve;
    rtcosim_time_ns now = rtcosim_clock_now(set->clock);
    double estimate[RTCOSIM_ANYTIME_MAX_VARIANTS];
    int rank[RTCOSIM_ANYTIME_MAX_VARIANTS];
    for (size_t i = 0; i < set->variant_count; i++) {
        variant *v = &set->variants[i];
        /* A busy variant cannot start: give it an estimate that never fits.
         * One left unrun for forget_after_periods is probed with its best
         * recent time, so that stale slow samples do not bar it for ever. */
        bool stale = set->periods - v->last_run_period >= set->cfg.forget_after_periods;
        if (anytime_variant_busy(v))
            estimate[i] = INFINITY;
        else if (stale)
            estimate[i] = anytime_stats_window_min(&v->stats);
        else
            estimate[i] = anytime_stats_estimate(&v->stats, set->cfg.estimate, set->cfg.quantile);
        rank[i] = v->rank;
        if (anytime_variant_busy(v))
            v->outcome = RTCOSIM_ANYTIME_BUSY;
    }
    size_t chosen = anytime_timer_choose(estimate, set->abort_floor_ns, rank, set->variant_count,
                                         abort_at - now, set->learned_abort_ns);
    size_t fallback = 0;
    /* also when the learned abort time barred every variant: the fallback's
     * choice uses each variant's own floor instead (see above) */
    if (set->cfg.timer_fallback)
        chosen = timer_pick_with_fallback(set, estimate, rank, abort_at, now, chosen, &fallback);
    bool aborted = false;
    if (chosen > 0) {
        variant *v = &set->variants[chosen];
        if (fallback > 0) {
            /* The fallback first, so that its result is in hand when the
             * first choice has to be aborted: the first choice then gets all
             * the time left to abort_at and starts only when its estimate
             * (raised to its learned floor) still fits. */
            variant *f = &set->variants[fallback];
            anytime_variant_run(f, inputs, abort_at);
            if (f->outcome != RTCOSIM_ANYTIME_COMPLETED) {
                /* It needs more than it was given, and its window may not
                 * show it (an abort is not a sample): reserve a quarter more
                 * from now on, until the learned times are forgotten. */
                if (f->outcome == RTCOSIM_ANYTIME_ABORTED)
                    set->abort_floor_ns[fallback] = (abort_at - f->started_at) * 5 / 4 + 1;
                goto minimal_only;
            }
            double need = fmax(estimate[chosen], (double)set->abort_floor_ns[chosen]);
            if (!((double)rtcosim_clock_now(set->clock) + need < (double)abort_at)) {
                chosen = fallback;
                goto done;
            }
        }
        anytime_variant_run(v, inputs, abort_at);
        if (v->outcome == RTCOSIM_ANYTIME_COMPLETED)
            goto done;
        if (v->outcome == RTCOSIM_ANYTIME_ABORTED || v->outcome == RTCOSIM_ANYTIME_ABANDONED) {
            /* Learn: this variant needs more than it was given; the next
             * choice must be expected to finish before this point. */
            aborted = true;
            set->learned_abort_ns = abort_at - (v->outcome == RTCOSIM_ANYTIME_ABORTED
                                                    ? v->started_at
                                                    : v->dispatched_at);
            if (set->learned_abort_ns < 1) /* started late: nothing fits until forgotten */
                set->learned_abort_ns = 1;
            set->abort_floor_ns[chosen] = set->learned_abort_ns;
        }
        if (fallback > 0) {
            chosen = fallback;
            goto done;
        }
    }
minimal_only:
    anytime_variant_run(minimal, inputs, NEVER);
done:;
    int best = set->variants[chosen].outcome == RTCOSIM_ANYTIME_COMPLETED ? (int)chosen : 0;
    if (set->cfg.timer_upgrade && !aborted &&
        set->variants[best].outcome == RTCOSIM_ANYTIME_COMPLETED)
        best = timer_upgrade(set, inputs, estimate, rank, deadline - idle_reserve_ns -
                                                             set->cfg.safety_margin_ns,
                             best, &aborted);
    if (aborted) {
        set->periods_since_abort = 0;
    } else if (set->learned_abort_ns > 0 &&
               ++set->periods_since_abort >= set->cfg.forget_after_periods) {
        set->learned_abort_ns = 0;
        memset(set->abort_floor_ns, 0, sizeof set->abort_floor_ns);
    }
    return best;
}

static int strategy_parallel(rtcosim_anytime *set, const double *inputs, rtcosim_time_ns cutoff)
{
    unsigned mask = 0;
    for (size_t i = 1; i < set->variant_count; i++) {
        variant *v = &set->variants[i];
        if (anytime_variant_busy(v)) {
            v->outcome = RTCOSIM_ANYTIME_BUSY;
            continue;
        }
        anytime_variant_prepare(v, inputs, cutoff);
        v->runs++;
        v->last_run_period = set->periods;
        anytime_variant_dispatch(v);
        mask |= 1u << i;
    }
    anytime_variant_run(&set->variants[0], inputs, NEVER);
    anytime_wait_for(set, mask, cutoff);
    for (size_t i = 1; i < set->variant_count; i++)
        if (mask >> i & 1u)
            anytime_variant_conclude(&set->variants[i]);
    anytime_candidate c[RTCOSIM_ANYTIME_MAX_VARIANTS];
    candidates_fill(set, c);
    /* A worker may complete between the cutoff and its conclusion here; its
     * result came too late and is not delivered (the cutoff, not the moment
     * this thread looked, decides). */
    return anytime_parallel_select(c, set->variant_count, cutoff, set->cfg.criterion);
}

/* Make the delivered variant's result the committed one. */
static rtcosim_status commit(rtcosim_anytime *set, variant *v, rtcosim_error *err)
{
    memcpy(set->outputs, v->outputs, set->cfg.output_count * sizeof *set->outputs);
    if (v->fn) {
        if (set->cfg.state_size)
            memcpy(set->state, v->state, set->cfg.state_size);
        return RTCOSIM_OK;
    }
    size_t size = 0;
    rtcosim_status st = rtcosim_component_get_state(v->component, &v->snapshot, err);
    if (!st)
        st = rtcosim_component_serialized_state_size(v->component, v->snapshot, &size, err);
    if (!st && size > set->committed_capacity)
        st = rtcosim_error_set(err, RTCOSIM_ESTATE,
                               "serialized state of '%s' grew to %zu bytes, beyond the %zu "
                               "reserved at start",
                               v->name, size, set->committed_capacity);
    if (!st)
        st = rtcosim_component_serialize_state(v->component, v->snapshot, set->committed_bytes,
                                               size, err);
    if (st)
        return rtcosim_error_prefix(err, "anytime set '%s': committing variant '%s': ",
                                    set->name, v->name);
    set->committed_size = size;
    /* A variant still busy with an abandoned period owns its flag (already
     * true: it moved away from the committed state). */
    for (size_t i = 0; i < set->variant_count; i++)
        if (!anytime_variant_busy(&set->variants[i]))
            set->variants[i].needs_sync = i != v->index;
    return RTCOSIM_OK;
}

rtcosim_time_ns rtcosim_anytime_next_release(const rtcosim_anytime *set)
{
    return set->release;
}

void rtcosim_anytime_wait_release(rtcosim_anytime *set)
{
    rtcosim_clock_sleep_until(set->clock, set->release);
}

rtcosim_status rtcosim_anytime_run_period(rtcosim_anytime *set, const double *inputs,
                                          double *outputs, rtcosim_anytime_period *report,
                                          rtcosim_error *err)
{
    if (!set || !outputs || (!inputs && set->cfg.input_count))
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime: run_period needs a set, inputs and outputs");
    if (!set->running)
        return rtcosim_error_set(err, RTCOSIM_ESTATE,
                                 "anytime set '%s': run_period before a successful start",
                                 set->name);
    /* A new thread runs the periods (a paced thread after a calibration on
     * the main one): the workers and the idle reserve follow its policy. */
    pthread_t self = pthread_self();
    if (!set->has_runner || !pthread_equal(self, set->runner)) {
        set->runner = self;
        set->has_runner = true;
        anytime_workers_follow_caller(set);
        if (set->cfg.idle_reserve < 0)
            set->idle_reserve = anytime_derived_idle_reserve();
    }
    rtcosim_time_ns started_at = rtcosim_clock_now(set->clock);
    bool virtual_clock = rtcosim_clock_is_virtual(set->clock);
    struct timespec cpu_start = {0, 0}, cpu_end = {0, 0};
    if (!virtual_clock)
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu_start);
    set->blocked_ns = 0;
    set->wait_cpu_ns = 0;
    set->check_gap_ns = 0;
    rtcosim_time_ns deadline = set->release + set->period_ns;
    rtcosim_time_ns idle_reserve_ns = anytime_idle_reserve_ns(set->idle_reserve, set->period_ns);
    rtcosim_time_ns cutoff = deadline - set->cfg.safety_margin_ns - idle_reserve_ns;
    rtcosim_time_ns repair_ns = 0;
    int repaired = repair_previous(set, cutoff, &repair_ns);
    /* the state this period starts from, for a repair in the next one */
    if (set->cfg.repair && set->cfg.state_size)
        memcpy(set->repair_state, set->state, set->cfg.state_size);
    for (size_t i = 0; i < set->variant_count; i++) {
        set->variants[i].outcome = RTCOSIM_ANYTIME_NOT_RUN;
        set->variants[i].exec_ns = 0;
    }
    int delivered;
    switch (set->cfg.strategy) {
    case RTCOSIM_ANYTIME_TIMER:
        delivered = strategy_timer(set, inputs, deadline, idle_reserve_ns);
        break;
    case RTCOSIM_ANYTIME_PARALLEL:
        delivered = strategy_parallel(set, inputs, cutoff);
        break;
    case RTCOSIM_ANYTIME_ESCALATE:
    default:
        delivered = strategy_escalate(set, inputs, cutoff);
        break;
    }
    variant *minimal = &set->variants[0];
    if (delivered < 0 || minimal->outcome == RTCOSIM_ANYTIME_FAILED) {
        if (minimal->outcome == RTCOSIM_ANYTIME_FAILED)
            return rtcosim_error_set(err, minimal->status,
                                     "anytime set '%s': minimal variant '%s' failed at t = %.9g "
                                     "s: %s",
                                     set->name, minimal->name,
                                     rtcosim_time_to_seconds(set->sim_time), minimal->err.message);
        return rtcosim_error_set(err, RTCOSIM_ECOMPONENT,
                                 "anytime set '%s': no variant completed at t = %.9g s", set->name,
                                 rtcosim_time_to_seconds(set->sim_time));
    }
    variant *v = &set->variants[delivered];
    rtcosim_status st = commit(set, v, err);
    if (st)
        return st;
    memcpy(outputs, set->outputs, set->cfg.output_count * sizeof *outputs);
    v->delivered++;
    repair_arm(set, inputs, delivered);

    rtcosim_anytime_period rec = {.index = set->periods,
                                  .sim_time = set->sim_time,
                                  .release = set->release,
                                  .deadline = deadline,
                                  .period_ns = set->period_ns,
                                  .started_at = started_at,
                                  .delivered = delivered,
                                  .repaired = repaired,
                                  .repair_ns = repair_ns};
    rec.delivered_at = rtcosim_clock_now(set->clock);
    rec.margin_ns = deadline - rec.delivered_at;
    rec.missed = rec.margin_ns < 0;
    rec.cutoff = cutoff;
    rec.latest_start = deadline - set->cfg.safety_margin_ns -
                       (rtcosim_time_ns)ceil(set->minimal_calibrated_ns);
    if (!virtual_clock) {
        /* Thread CPU time leaves out the time the thread was runnable but
         * not running, hypervisor steal included (the kernel subtracts
         * steal from task time under CONFIG_PARAVIRT_TIME_ACCOUNTING) as
         * far as the host reports it; the CPU time charged inside the
         * waits is not the work's (anytime_stalled_ns). */
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu_end);
        rtcosim_time_ns cpu = (cpu_end.tv_sec - cpu_start.tv_sec) * RTCOSIM_NS_PER_S +
                              (cpu_end.tv_nsec - cpu_start.tv_nsec);
        rec.stalled_ns = anytime_stalled_ns(rec.delivered_at - started_at, cpu,
                                             set->wait_cpu_ns, set->blocked_ns);
    }
    rec.check_gap_ns = virtual_clock ? 0 : set->check_gap_ns;
    rec.miss = anytime_classify_miss(deadline, rec.latest_start, started_at, rec.delivered_at,
                                     rec.stalled_ns);
    for (size_t i = 0; i < set->variant_count; i++) {
        rec.outcome[i] = (uint8_t)set->variants[i].outcome;
        rec.exec_ns[i] = set->variants[i].exec_ns;
    }
    record_period(set, &rec);
    if (report)
        *report = rec;

    /* Next period: a period change takes effect now, after this period. */
    set->sim_time += set->period_ns;
    set->release += set->period_ns;
    rtcosim_time_ns pending =
        atomic_exchange_explicit(&set->pending_period_ns, 0, memory_order_acq_rel);
    if (pending > 0)
        set->period_ns = pending;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_anytime_run_period_at(rtcosim_anytime *set, rtcosim_time_ns sim_time,
                                             rtcosim_time_ns h, rtcosim_time_ns deadline,
                                             const double *inputs, double *outputs,
                                             rtcosim_anytime_period *report, rtcosim_error *err)
{
    if (!set || h <= 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime: run_period_at needs a set and a period > 0");
    set->sim_time = sim_time;
    set->period_ns = h;
    set->release = deadline - h;
    return rtcosim_anytime_run_period(set, inputs, outputs, report, err);
}

rtcosim_status rtcosim_anytime_set_period(rtcosim_anytime *set, rtcosim_time_ns period_ns,
                                          rtcosim_error *err)
{
    if (!set)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "anytime: no variant set given");
    rtcosim_time_ns reserve_ns =
        anytime_idle_reserve_ns(set->idle_reserve > 0 ? set->idle_reserve : 0, period_ns);
    if (period_ns <= set->cfg.safety_margin_ns + reserve_ns)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime set '%s': period %" PRId64
                                 " ns must exceed the safety margin %" PRId64
                                 " ns plus the idle reserve %" PRId64 " ns",
                                 set->name, period_ns, set->cfg.safety_margin_ns, reserve_ns);
    /* The same test as at start, against the calibrated figure (fixed once
     * running, so this may run on another thread). */
    double limit = set->cfg.minimal_max_share * (double)period_ns;
    if (set->minimal_calibrated_ns > 0 &&
        set->minimal_calibrated_ns + (double)set->cfg.safety_margin_ns > limit)
        return rtcosim_error_set(
            err, RTCOSIM_ETIMEOUT,
            "anytime set '%s': period %.1f us refused: minimal variant '%s' worst calibrated "
            "time %.1f us plus safety margin %.1f us exceeds %.0f %% of it (%.1f us)",
            set->name, anytime_us((double)period_ns), set->variants[0].name,
            anytime_us(set->minimal_calibrated_ns), anytime_us((double)set->cfg.safety_margin_ns),
            100 * set->cfg.minimal_max_share, anytime_us(limit));
    atomic_store_explicit(&set->pending_period_ns, period_ns, memory_order_release);
    return RTCOSIM_OK;
}

rtcosim_time_ns rtcosim_anytime_period_ns(const rtcosim_anytime *set)
{
    return set->period_ns;
}

const void *rtcosim_anytime_state(const rtcosim_anytime *set)
{
    return set->state;
}
