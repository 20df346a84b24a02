/* The decisions of the anytime strategies as pure functions: which completed
 * result to deliver (by criterion), which results the parallel strategy may
 * use at its cutoff, and which variant the timer strategy dares to start.
 * The runner feeds them what it observed; tests feed them injected times. */
#include <math.h>

#include "anytime/anytime_internal.h"

/* Step 0 means one step over the whole period: the coarsest possible. */
static rtcosim_time_ns effective_step(rtcosim_time_ns step_ns)
{
    return step_ns > 0 ? step_ns : RTCOSIM_TIME_MAX;
}

/* Positive when a is better than b under the criterion, negative when worse,
 * 0 when equal. */
static int compare(const anytime_candidate *a, const anytime_candidate *b,
                   rtcosim_anytime_criterion criterion)
{
    bool by_solver = criterion == RTCOSIM_ANYTIME_PICK_SOLVER;
    bool by_step = by_solver || criterion == RTCOSIM_ANYTIME_PICK_SMALLEST_STEP;
    if (criterion == RTCOSIM_ANYTIME_PICK_LONGEST && a->exec_ns != b->exec_ns)
        return a->exec_ns > b->exec_ns ? 1 : -1;
    if (by_solver && a->solver != b->solver)
        return a->solver > b->solver ? 1 : -1;
    /* Same solver (or the step criterion): the smaller step wins. */
    if (by_step && effective_step(a->step_ns) != effective_step(b->step_ns))
        return effective_step(a->step_ns) < effective_step(b->step_ns) ? 1 : -1;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

static int pick_where(const anytime_candidate *c, size_t n, rtcosim_anytime_criterion criterion,
                      bool use_cutoff, rtcosim_time_ns cutoff)
{
    int best = -1;
    for (size_t i = 0; i < n; i++) {
        if (!c[i].completed || (use_cutoff && c[i].finish_at > cutoff))
            continue;
        if (best < 0 || compare(&c[i], &c[best], criterion) >= 0)
            best = (int)i;
    }
    return best;
}

int anytime_pick(const anytime_candidate *c, size_t n, rtcosim_anytime_criterion criterion)
{
    return pick_where(c, n, criterion, false, 0);
}

int anytime_parallel_select(const anytime_candidate *c, size_t n, rtcosim_time_ns cutoff,
                            rtcosim_anytime_criterion criterion)
{
    int best = pick_where(c, n, criterion, true, cutoff);
    /* The minimal variant runs on the caller without a cutoff: its result is
     * the guaranteed one, delivered when it alone completed, even late. */
    return best < 0 && n > 0 && c[0].completed ? 0 : best;
}

size_t anytime_timer_choose(const double *estimate_ns, const rtcosim_time_ns *floor_ns,
                            const int *rank, size_t n, rtcosim_time_ns budget_ns,
                            rtcosim_time_ns limit_ns)
{
    size_t chosen = 0;
    for (size_t i = 1; i < n; i++) {
        double expected = estimate_ns[i];
        if (floor_ns && (double)floor_ns[i] > expected)
            expected = (double)floor_ns[i];
        if (!(expected < (double)budget_ns))
            continue;
        if (limit_ns > 0 && !(expected < (double)limit_ns))
            continue;
        if (chosen == 0 || rank[i] >= rank[chosen])
            chosen = i;
    }
    return chosen;
}

bool anytime_escalate_fits(double need_ns, rtcosim_time_ns now, rtcosim_time_ns cutoff)
{
    return isnan(need_ns) || (double)now + need_ns <= (double)cutoff;
}

int anytime_repair_choose(const double *need_ns, const int *rank, size_t n, int below_rank,
                          rtcosim_time_ns now, rtcosim_time_ns cutoff)
{
    int chosen = -1;
    double minimal = n > 0 && !isnan(need_ns[0]) ? need_ns[0] : 0.0;
    for (size_t i = 1; i < n; i++) {
        if (rank[i] <= below_rank || isnan(need_ns[i]))
            continue;
        if (!((double)now + 2 * need_ns[i] + minimal <= (double)cutoff))
            continue;
        if (chosen < 0 || rank[i] >= rank[chosen])
            chosen = (int)i;
    }
    return chosen;
}

double anytime_idle_reserve_from_limits(bool realtime, long long runtime_us, long long period_us)
{
    if (!realtime || runtime_us == -1)
        return 0.0;
    if (period_us <= 0 || runtime_us < 0 || runtime_us > period_us) {
        runtime_us = 950000; /* kernel default, Documentation/scheduler/sched-rt-group.rst */
        period_us = 1000000;
    }
    return 1.0 - (double)runtime_us / (double)period_us + RTCOSIM_ANYTIME_IDLE_RESERVE_MARGIN;
}

double anytime_idle_reserve_from_deadline(long long runtime_ns, long long dl_period_ns)
{
    /* the throttling limits' rule; a runtime of 0 or less (-1 means no
     * throttling there) is no reservation: the default's */
    return anytime_idle_reserve_from_limits(true, runtime_ns > 0 ? runtime_ns : -2, dl_period_ns);
}

rtcosim_time_ns anytime_idle_reserve_ns(double share, rtcosim_time_ns period_ns)
{
    return share > 0 ? (rtcosim_time_ns)llround(share * (double)period_ns) : 0;
}

rtcosim_time_ns anytime_stalled_ns(rtcosim_time_ns wall_ns, rtcosim_time_ns cpu_ns,
                                   rtcosim_time_ns wait_cpu_ns, rtcosim_time_ns blocked_ns)
{
    rtcosim_time_ns worked = cpu_ns - (wait_cpu_ns > 0 ? wait_cpu_ns : 0);
    rtcosim_time_ns lost = wall_ns - (worked > 0 ? worked : 0) - blocked_ns;
    return lost > 0 ? lost : 0;
}

rtcosim_anytime_miss anytime_classify_miss(rtcosim_time_ns deadline, rtcosim_time_ns latest_start,
                                           rtcosim_time_ns started_at,
                                           rtcosim_time_ns delivered_at,
                                           rtcosim_time_ns stalled_ns)
{
    if (delivered_at <= deadline)
        return RTCOSIM_ANYTIME_ON_TIME;
    if (started_at > latest_start)
        return RTCOSIM_ANYTIME_MISS_LATE_START;
    /* Had the thread run whenever it was runnable, the delivery would have
     * come at least this much earlier: in time. */
    if (stalled_ns >= delivered_at - deadline)
        return RTCOSIM_ANYTIME_MISS_STALLED;
    return RTCOSIM_ANYTIME_MISS_STRATEGY;
}
