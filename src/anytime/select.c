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
    return pick_where(c, n, criterion, true, cutoff);
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
