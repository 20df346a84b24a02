/* The speculative master's observer: the committed outputs of every LP
 * handed to the run's observer row by row, in time order, as the plain master
 * would (speculate.c calls spec_try_record after each commit). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "master/speculate_internal.h"

/* The time the run ends: the stop time, or the end of the tick in which a
 * committed step requested termination (each component's first
 * communication point after that tick's start; the earliest ends the tick). */
rtcosim_time_ns spec_end_time(const spec_run *run)
{
    const int_fast64_t start = atomic_load(&run->end_start);
    const int_fast64_t at = atomic_load(&run->end_at);
    rtcosim_time_ns end = at < run->stop ? at : run->stop;
    if (start == RTCOSIM_TIME_MAX)
        return end;
    for (size_t l = 0; l < run->lp_count; l++) {
        const spec_lp *lp = &run->lps[l];
        const rtcosim_time_ns next = run->t0 + ((start - run->t0) / lp->step + 1) * lp->step;
        if (next < end)
            end = next;
    }
    return end;
}

/* Steps an LP runs: to the stop time, or through the terminating tick. */
uint64_t spec_lp_end(const spec_run *run, const spec_lp *lp)
{
    const int_fast64_t start = atomic_load(&run->end_start);
    const int_fast64_t at = atomic_load(&run->end_at);
    uint64_t steps = lp->total;
    if (start != RTCOSIM_TIME_MAX && (uint64_t)((start - run->t0) / lp->step) + 1 < steps)
        steps = (uint64_t)((start - run->t0) / lp->step) + 1;
    /* Steps starting before end_at. */
    if (at != RTCOSIM_TIME_MAX && (uint64_t)((at - run->t0 + lp->step - 1) / lp->step) < steps)
        steps = (uint64_t)((at - run->t0 + lp->step - 1) / lp->step);
    return steps;
}

/* The next row: the next communication point of any component (the plain
 * master's next tick end). */
static rtcosim_time_ns next_row_time(const spec_run *run, rtcosim_time_ns row_time)
{
    rtcosim_time_ns next = RTCOSIM_TIME_MAX;
    for (size_t l = 0; l < run->lp_count; l++) {
        const spec_lp *lp = &run->lps[l];
        const rtcosim_time_ns t = run->t0 + ((row_time - run->t0) / lp->step + 1) * lp->step;
        if (t < next)
            next = t;
    }
    return next;
}

/* The output of an LP that the plain master shows at the end of the tick
 * from row_time to `next`: Jacobi publishes each component at its own
 * communication points, so the latest at or before next; Gauss-Seidel
 * publishes a component right after its step, so the one after its latest
 * step started at or before row_time. */
static uint64_t row_output(const spec_run *run, const spec_lp *lp, rtcosim_time_ns row_time,
                           rtcosim_time_ns next)
{
    if (run->m->order == RTCOSIM_ORDER_GAUSS_SEIDEL)
        return (uint64_t)((row_time - run->t0) / lp->step) + 1;
    return (uint64_t)((next - run->t0) / lp->step);
}

/* A row is ready when every LP has committed the output it shows and every
 * step that started before the row's time (a step that requests termination
 * ends the run at the end of its tick: no row may pass it unseen). */
static bool record_ready(const spec_run *run, rtcosim_time_ns row_time, rtcosim_time_ns next)
{
    if (next > spec_end_time(run))
        return false;
    for (size_t l = 0; l < run->lp_count; l++) {
        const spec_lp *lp = &run->lps[l];
        const uint64_t started = (uint64_t)((next - run->t0 + lp->step - 1) / lp->step);
        const uint64_t shown = row_output(run, lp, row_time, next);
        if (atomic_load(&lp->published) <= shown || atomic_load(&lp->decided) < started)
            return false;
    }
    return true;
}

static bool next_row_ready(const spec_run *run)
{
    const rtcosim_time_ns row_time = atomic_load(&run->row_time);
    return record_ready(run, row_time, next_row_time(run, row_time));
}

/* One thread at a time (the flag). A thread that finds a row ready but the
 * flag taken leaves it to the holder, which looks again after letting go
 * (the publication it missed is then visible), so no row is left behind. */
void spec_try_record(spec_run *run)
{
    rtcosim_master *m = run->m;
    while (!atomic_load(&run->failed) && next_row_ready(run)) {
        if (atomic_flag_test_and_set(&run->recording))
            return;
        rtcosim_time_ns row_time = atomic_load(&run->row_time);
        rtcosim_time_ns next = next_row_time(run, row_time);
        bool advanced = false;
        while (!atomic_load(&run->failed) && record_ready(run, row_time, next)) {
            /* The master's out batches are the recorder's alone during the
             * run (LPs write their outputs to their own buffers). */
            for (size_t l = 0; l < run->lp_count; l++) {
                spec_lp *lp = &run->lps[l];
                const uint64_t k = row_output(run, lp, row_time, next);
                master_component *mc = &m->comps[lp->comp];
                for (unsigned t = 0; t < RTCOSIM_TYPE_COUNT_; t++)
                    if (mc->out[t].n)
                        memcpy(mc->out[t].values, spec_ring_slot(lp, k) + lp->out_offset[t],
                               mc->out[t].n * rtcosim_type_size((rtcosim_type)t));
            }
            if (run->observer) {
                rtcosim_error err;
                rtcosim_error_clear(&err);
                const double *v = rtcosim_master_observed_values(m);
                if (run->observer(run->context, next, v, m->observed_count, &err) != RTCOSIM_OK) {
                    spec_run_fail(run, &err);
                    break;
                }
            }
            /* Later rows read these outputs or later ones. */
            for (size_t l = 0; l < run->lp_count; l++)
                atomic_store(&run->lps[l].record_need,
                             row_output(run, &run->lps[l], row_time, next));
            row_time = next;
            atomic_store(&run->row_time, row_time);
            atomic_fetch_add(&run->rows, 1);
            advanced = true;
            next = next_row_time(run, row_time);
        }
        atomic_flag_clear(&run->recording);
        if (advanced)
            spec_run_notify(run);
    }
}
