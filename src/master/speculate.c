/* The master's speculative run (issue 10): each component is a logical
 * process on a worker thread that takes its producers' committed outputs as
 * they come, predicts the ones not there yet, runs ahead up to the horizon,
 * and on each real arrival keeps, rolls back (restoring its state from the
 * rollback table) and corrects as the scheme of speculate.h says. An LP
 * publishes an output only when the step that made it is committed (all its
 * real inputs arrived and were accepted), so rollbacks stay local. The inputs
 * are formed with the same arithmetic as the plain master (step.c), which
 * makes threshold 0 bit-identical to rtcosim_master_run. Scheduling (each LP
 * under a try-lock; publishers commit for waiting consumers; speculative
 * steps with the lock let go; idle threads take steps of the LP furthest
 * behind) keeps wake-ups off the critical path: see run_worker. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "master/speculate_internal.h"
#include "rtcosim/log.h"
#include "util/spin_wait.h"

/* Longest wait, in arrivals, between probes of an LP throttled to run
 * conservatively (speculate_internal.h, ahead_limit). */
#define PROBE_WAIT_MAX 32

/* ---- progress notification ---- */

/* Wake the threads waiting for progress. The notifier bumps the generation
 * before it looks for sleepers, a sleeper counts itself before the futex
 * compares the generation: one of them sees the other (spin_wait.h). */
void spec_run_notify(spec_run *run)
{
    atomic_fetch_add(&run->generation, 1);
    if (atomic_load(&run->sleepers)) {
        atomic_store_explicit(&run->changed_at, spin_wait_now_ns(), memory_order_relaxed);
        spin_wait_wake(&run->generation);
    }
}

/* Wait until the generation moves past `seen` (or the run failed): spin for
 * the adaptive budget, then sleep. Not sched_yield: on a loaded machine a
 * yielding thread loses its CPU for a time slice (spin_wait.c). The sleep is
 * bounded (2 ms) as a safety net. */
static void wait_progress(spec_run *run, spin_wait *sw, uint32_t seen)
{
    if (atomic_load(&run->failed))
        return;
    spin_wait_for_change(sw, &run->generation, seen, &run->sleepers, &run->changed_at, true, 0,
                         true);
}

void spec_run_fail(spec_run *run, const rtcosim_error *err)
{
    pthread_mutex_lock(&run->lock);
    if (!atomic_load(&run->failed)) {
        run->error = *err;
        run->status = err->status != RTCOSIM_OK ? err->status : RTCOSIM_ECOMPONENT;
        atomic_store(&run->failed, true);
    }
    pthread_mutex_unlock(&run->lock);
    spec_run_notify(run);
}

static unsigned char *pending_slot(const spec_lp *lp, uint64_t step)
{
    return lp->pending + (size_t)(step % lp->pending_cap) * lp->out_bytes;
}

/* ---- one LP ---- */

static void count_rollback(spec_lp *lp, size_t depth)
{
    lp->stats.rollbacks++;
    lp->stats.reexecuted_steps += depth;
    size_t b = 0;
    while (b + 1 < RTCOSIM_SPECULATION_DEPTH_BUCKETS && depth > rtcosim_speculation_depth_bucket_max(b))
        b++;
    lp->stats.rollback_depth[b]++;
}

/* The optimism throttle (ahead_limit in speculate_internal.h) after an
 * arrival that checked speculated steps: kept them all, or rolled back. */
static void throttle(spec_lp *lp, bool kept)
{
    if (kept) {
        if (lp->ahead_limit < lp->pending_cap)
            lp->ahead_limit++;
        lp->probe_backoff = 1;
        return;
    }
    if (lp->ahead_limit > 1) {
        lp->ahead_limit /= 2;
        return;
    }
    lp->ahead_limit = 0;
    lp->probe_wait = lp->probe_backoff;
    if (lp->probe_backoff < PROBE_WAIT_MAX)
        lp->probe_backoff *= 2;
}

/* Take in the producers' newly committed outputs; a speculating LP runs the
 * scheme on each and rolls back when it says so. */
static bool lp_absorb(spec_run *run, spec_lp *lp, rtcosim_error *err, bool *failed)
{
    bool progress = false;
    for (size_t s = 0; s < lp->stream_count; s++) {
        spec_stream *st = &lp->streams[s];
        const uint64_t published = atomic_load(&run->lps[st->producer].published);
        if (!st->predictor) {
            progress = progress || st->arrived != published;
            st->arrived = published;
            continue;
        }
        for (; st->arrived < published; st->arrived++) {
            const uint64_t k = st->arrived;
            for (size_t i = 0; i < st->width; i++)
                st->values[i] = spec_sample_at(run, &run->m->conns[st->conns[i]], k);
            /* The scheme counts in the producer's outputs: those from k on
             * that the executed steps read from the curve. */
            const uint64_t first = spec_first_step(st, k);
            const size_t speculated =
                lp->executed > first ? (size_t)(spec_input_index(st, lp->executed - 1) - k + 1) : 0;
            rtcosim_speculation_result r;
            rtcosim_status status = rtcosim_predictor_arrive(
                st->predictor, run->t0 + (rtcosim_time_ns)(k * st->producer_multiple) * run->h,
                st->values, speculated, run->threshold, &r, err);
            if (status != RTCOSIM_OK) {
                *failed = true;
                return progress;
            }
            if (r.predicted && speculated > 0)
                for (size_t i = 0; i < st->width; i++) {
                    const double e = fabs(r.value_error[i]);
                    lp->error_sum_sq += e * e;
                    if (e > lp->stats.prediction_error_max)
                        lp->stats.prediction_error_max = e;
                    lp->stats.predicted_values++;
                }
            if (r.rollback) {
                /* The state is restored by the owner before its next step
                 * (lp_execute); the records above `to` stay in the table
                 * until then, and commits stop below `to`. The depth counts
                 * this LP's steps discarded (the scheme's r.speculated - r.keep
                 * counts the producer's outputs, more for a slower consumer). */
                const uint64_t to = spec_first_step(st, k + r.keep);
                if (to < lp->restore_to)
                    lp->restore_to = to;
                count_rollback(lp, (size_t)(lp->executed - to));
                lp->executed = to;
                throttle(lp, false);
            } else if (r.speculated > 0) {
                throttle(lp, true);
            } else if (lp->ahead_limit == 0 && --lp->probe_wait == 0) {
                lp->ahead_limit = 1;
            }
            progress = true;
        }
    }
    return progress;
}

/* A step starting at `start` requested termination: the run ends with the
 * tick that starts there (or earlier). */
static void lower_end(spec_run *run, int_fast64_t start)
{
    int_fast64_t end = atomic_load(&run->end_start);
    while (start < end && !atomic_compare_exchange_weak(&run->end_start, &end, start))
        ;
}

/* Publish the outputs of the steps whose inputs have all arrived real and
 * been accepted, as far as the ring has room (consumers and the observer
 * release old outputs). */
static bool lp_commit(spec_run *run, spec_lp *lp)
{
    uint64_t limit = lp->executed < lp->in_flight ? lp->executed : lp->in_flight;
    for (size_t s = 0; s < lp->stream_count; s++) {
        const uint64_t real = spec_first_step(&lp->streams[s], lp->streams[s].arrived);
        if (real < limit)
            limit = real;
    }
    const uint64_t before = lp->committed;
    while (lp->committed < limit) {
        const uint64_t out = lp->committed + 1;
        if (out >= lp->ring_cap) {
            const uint64_t reused = out - lp->ring_cap;
            if (reused >= atomic_load(&run->lps[lp - run->lps].record_need))
                break;
            /* A consumer reads from the input of its first uncommitted step
             * on, and its extrapolation polynomial the HISTORY_LEN - 1
             * samples before that. */
            bool needed = false;
            for (size_t c = 0; c < lp->consumer_count && !needed; c++) {
                const spec_lp *consumer = &run->lps[lp->consumers[c].lp];
                needed = reused + (HISTORY_LEN - 1) >=
                         spec_input_index(&consumer->streams[lp->consumers[c].stream],
                                          atomic_load(&consumer->committed_shared));
            }
            if (needed)
                break;
        }
        memcpy(spec_ring_slot(lp, out), pending_slot(lp, lp->committed), lp->out_bytes);
        if (lp->pending_terminate[lp->committed % lp->pending_cap])
            lower_end(run, run->t0 + (rtcosim_time_ns)lp->committed * lp->step);
        lp->committed++;
        if (lp->speculate)
            atomic_store(&lp->decided, lp->committed);
        lp->stats.committed_steps++;
        atomic_store(&lp->committed_shared, lp->committed);
        atomic_store(&lp->published, out + 1);
    }
    if (lp->committed == before)
        return false;
    if (lp->table)
        rtcosim_rollback_commit_before(lp->table, lp->committed);
    return true;
}

/* Read the outputs of the step just taken into its pending slot. A
 * feedthrough LP (conservative) first takes the inputs of output n + 1, as
 * step.c's refresh_inputs does before a publication at t + h (the latest
 * exchanged value of each input, unfiltered): it waits for them here, after
 * its step, so that in Jacobi order it steps in parallel with its producers. */
static bool lp_finish(spec_run *run, spec_lp *lp, rtcosim_error *err, bool *failed)
{
    master_component *mc = &run->m->comps[lp->comp];
    const uint64_t n = lp->executed;
    double *in = (double *)mc->in[RTCOSIM_TYPE_FLOAT64].values;
    rtcosim_status st = RTCOSIM_OK;
    if (mc->feedthrough) {
        for (size_t s = 0; s < lp->stream_count; s++)
            if (spec_refresh_index(&lp->streams[s], n) >= lp->streams[s].arrived)
                return false;
        const rtcosim_time_ns t = run->t0 + (rtcosim_time_ns)(n + 1) * lp->step;
        for (size_t s = 0; s < lp->stream_count; s++) {
            const spec_stream *sm = &lp->streams[s];
            for (size_t i = 0; i < sm->count; i++) {
                const master_connection *k = &run->m->conns[sm->conns[i]];
                if (i < sm->width) {
                    rtcosim_time_ns ts[HISTORY_LEN];
                    double ys[HISTORY_LEN];
                    rtcosim_poly p;
                    const size_t h = spec_history_at(run, sm, i, spec_refresh_index(sm, n), ts, ys);
                    rtcosim_poly_fit(k->opts.extrapolation, ts, ys, h, t, &p);
                    in[k->in_slot] = p.c[0];
                } else {
                    spec_copy_raw_at(run, k, spec_refresh_index(sm, n));
                }
            }
        }
        st = spec_set_inputs(mc, err);
    }
    unsigned char *slot = pending_slot(lp, n);
    for (unsigned i = 0; st == RTCOSIM_OK && i < mc->out_type_count; i++) {
        const unsigned ty = mc->out_types[i];
        st = rtcosim_component_get(mc->c, (rtcosim_type)ty, mc->out[ty].vrs, mc->out[ty].n,
                                   slot + lp->out_offset[ty], err);
    }
    if (st != RTCOSIM_OK) {
        *failed = true;
        return false;
    }
    lp->stepped = false;
    lp->executed++;
    return true;
}

/* Step n did not count (a discard with a termination request, an error, on
 * inputs not yet final): back to the state before it (restored by whoever
 * steps the LP next), and n runs again only once its inputs are final. */
static void run_again_when_final(spec_lp *lp, uint64_t n)
{
    lp->final_only_step = n;
    if (n < lp->restore_to)
        lp->restore_to = n;
    if (n < lp->executed)
        lp->executed = n;
}

/* Step n of a speculating LP, whose inputs are set and state recorded, with
 * the LP's lock let go: while the component computes, a thread that
 * publishes can still take the new outputs in for this LP and commit its
 * earlier steps (help_consumers), and roll it back, step n included (the
 * step counts as executed, for the scheme, but is not committed before it
 * is done). A step rolled back in flight is discarded when done. */
static bool lp_step_unlocked(spec_run *run, spec_lp *lp, uint64_t n, rtcosim_time_ns t,
                             bool predicted, rtcosim_error *err, bool *failed)
{
    master_component *mc = &run->m->comps[lp->comp];
    lp->in_flight = n;
    lp->executed = n + 1;
    atomic_flag_clear(&lp->busy);
    rtcosim_step_result result;
    rtcosim_status st = spec_set_step_inputs(mc, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_component_do_step(mc->c, t, lp->step, &result, err);
    /* The outputs go to the step's pending slot, which no commit reads
     * while the step is in flight. */
    unsigned char *slot = pending_slot(lp, n);
    for (unsigned i = 0; st == RTCOSIM_OK && i < mc->out_type_count; i++) {
        const unsigned ty = mc->out_types[i];
        st = rtcosim_component_get(mc->c, (rtcosim_type)ty, mc->out[ty].vrs, mc->out[ty].n,
                                   slot + lp->out_offset[ty], err);
    }
    while (atomic_flag_test_and_set(&lp->busy))
        spin_wait_relax();
    lp->in_flight = UINT64_MAX;
    if (st == RTCOSIM_EDISCARD && result.terminate_requested) {
        /* The component's normal end, when final (real inputs after
         * committed steps: no rollback reaches it); else back to the state
         * before the step, which runs again once it is final. */
        rtcosim_error_clear(err);
        if (!predicted && lp->committed == n) {
            lp->executed = n;
            int_fast64_t end = atomic_load(&run->end_at);
            while (t < end && !atomic_compare_exchange_weak(&run->end_at, &end, t))
                ;
            return true;
        }
        run_again_when_final(lp, n);
        return true;
    }
    if (st == RTCOSIM_ECOMPONENT && (predicted || lp->committed != n)) {
        /* An error on inputs that are not final (predicted, or after steps
         * that may still roll back) is not the run's: the component may
         * have failed on a value the real inputs never take. Back to the
         * state before the step (FMI 2.0 section 2.1.3 and FMI 3.0 section
         * 2.2.4 allow setting a saved FMU state after an Error), which runs
         * again once final; an error then ends the run. Not after a Fatal. */
        rtcosim_log(RTCOSIM_LOG_DEBUG, mc->name, "step at t=%.9f s failed on inputs not yet"
                    " final (%s): run again with the real ones", rtcosim_time_to_seconds(t),
                    err ? err->message : "");
        rtcosim_error_clear(err);
        lp->stats.errors_retried++;
        run_again_when_final(lp, n);
        return true;
    }
    if (st != RTCOSIM_OK) {
        *failed = true;
        return false;
    }
    lp->stats.speculated_steps += predicted;
    if (lp->executed == n + 1)
        lp->pending_terminate[n % lp->pending_cap] = result.terminate_requested;
    return true;
}

/* Take the next step if its inputs are there, real or predicted, and read
 * its outputs when they can be read. */
static bool lp_execute(spec_run *run, spec_lp *lp, rtcosim_error *err, bool *failed)
{
    /* Its component is stepping on another thread (lp_step_unlocked). */
    if (lp->in_flight != UINT64_MAX)
        return false;
    if (lp->stepped)
        return lp_finish(run, lp, err, failed);
    if (lp->restore_to != UINT64_MAX) {
        if (rtcosim_rollback_restore(lp->table, lp->restore_to, err) != RTCOSIM_OK) {
            *failed = true;
            return false;
        }
        lp->restore_to = UINT64_MAX;
    }
    const rtcosim_time_ns start = run->t0 + (rtcosim_time_ns)lp->executed * lp->step;
    if (lp->executed >= lp->total || start > atomic_load(&run->end_start) ||
        start >= atomic_load(&run->end_at) ||
        lp->executed - lp->committed >= lp->pending_cap ||
        (lp->executed == lp->final_only_step && lp->committed < lp->executed))
        return false;
    for (size_t s = 0; s < lp->stream_count; s++)
        if (spec_input_index(&lp->streams[s], lp->executed) >= lp->streams[s].arrived &&
            lp->executed - lp->committed >= lp->ahead_limit)
            return false;
    rtcosim_master *m = run->m;
    master_component *mc = &m->comps[lp->comp];
    const uint64_t n = lp->executed;
    const double hs = (double)lp->step * 1e-9;
    const rtcosim_time_ns t = run->t0 + (rtcosim_time_ns)n * lp->step;
    double *in = (double *)mc->in[RTCOSIM_TYPE_FLOAT64].values;
    bool predicted = false;
    for (size_t s = 0; s < lp->stream_count; s++) {
        const spec_stream *st = &lp->streams[s];
        const uint64_t j = spec_input_index(st, n);
        const double *guess = NULL;
        if (j >= st->arrived) {
            if (!st->predictor || n == lp->final_only_step ||
                !(guess = rtcosim_predictor_values_at(st->predictor, j)))
                return false;
            predicted = true;
        }
        for (size_t i = 0; i < st->count; i++) {
            const master_connection *k = &m->conns[st->conns[i]];
            if (i >= st->width) {
                spec_copy_raw_at(run, k, j);
            } else if (k->zoh) {
                /* The held sample itself, as step.c passes it (y + -0.0). */
                in[k->in_slot] = guess ? guess[i] : spec_sample_at(run, k, j);
            } else {
                rtcosim_time_ns ts[HISTORY_LEN];
                double ys[HISTORY_LEN];
                const size_t h = spec_history_at(run, st, i, j, ts, ys);
                spec_poly_input(mc, k, st, ts, ys, h, t, hs);
            }
        }
    }
    rtcosim_status st = RTCOSIM_OK;
    if (lp->table)
        st = rtcosim_rollback_push(lp->table, n, t, in, NULL, err);
    if (st == RTCOSIM_OK && lp->speculate)
        return lp_step_unlocked(run, lp, n, t, predicted, err, failed);
    rtcosim_step_result result;
    if (st == RTCOSIM_OK && (st = spec_set_step_inputs(mc, err)) == RTCOSIM_OK)
        st = rtcosim_component_do_step(mc->c, t, lp->step, &result, err);
    if (st == RTCOSIM_EDISCARD && result.terminate_requested) {
        /* The component's normal end, when final; else back to the state
         * before the step, which runs again once it is final. */
        if (!lp->speculate || (!predicted && lp->committed == n)) {
            int_fast64_t end = atomic_load(&run->end_at);
            while (t < end && !atomic_compare_exchange_weak(&run->end_at, &end, t))
                ;
            rtcosim_error_clear(err);
            return true;
        }
        lp->final_only_step = n;
        if ((st = rtcosim_rollback_restore(lp->table, n, err)) == RTCOSIM_OK) {
            rtcosim_error_clear(err);
            return true;
        }
    }
    if (st != RTCOSIM_OK) {
        *failed = true;
        return false;
    }
    lp->pending_terminate[n % lp->pending_cap] = result.terminate_requested;
    lp->stats.speculated_steps += predicted;
    lp->stepped = true;
    if (!lp->speculate) {
        /* Real inputs: the request is final now, before the outputs (which
         * a feedthrough LP may never read when the run ends first). */
        if (result.terminate_requested)
            lower_end(run, t);
        atomic_store(&lp->decided, n + 1);
    }
    lp_finish(run, lp, err, failed);
    return true;
}

/* ---- workers ---- */

typedef struct worker_arg {
    spec_run *run;
    unsigned id;
} worker_arg;

/* Whether the owner of an LP just helped should be woken: it has a rollback
 * to redo, runs conservatively (new inputs let it step), its run-ahead
 * buffer is below half its limit, or it reached its end. Otherwise it has
 * enough speculated steps in hand, and the wake-up (a system call and an
 * interrupt to the other CPU, per macro step, on the publishing thread's
 * critical path) can wait for a later publication (or the owner's bounded
 * sleep). */
static bool owner_needed(const spec_run *run, const spec_lp *lp)
{
    if (lp->in_flight != UINT64_MAX)
        return false; /* its stepping thread looks again when done */
    return lp->restore_to != UINT64_MAX || !lp->speculate ||
           lp->executed - lp->committed < (lp->ahead_limit + 1) / 2 ||
           lp->committed >= spec_lp_end(run, lp);
}

/* The consumers of an LP that just published, on other threads, take the
 * new outputs in and commit what they now can, here and now, when their
 * owner is not working on them (it waits, or is about to). Otherwise every
 * publication would need a wake-up of the consumer's thread before its
 * commit reaches back: a slow conservative LP waiting for the commit of a
 * fast LP that ran ahead would pay a cross-thread round trip per step.
 * Returns whether a consumer's owner should be woken (owner_needed, or a
 * consumer whose lock was taken). */
static bool help_consumers(spec_run *run, const spec_lp *lp, unsigned id, rtcosim_error *err,
                           bool *failed)
{
    bool wake = false;
    for (size_t c = 0; c < lp->consumer_count && !*failed; c++) {
        spec_lp *other = &run->lps[lp->consumers[c].lp];
        if (other->thread == id)
            continue;
        if (atomic_flag_test_and_set(&other->busy)) {
            wake = true;
            continue;
        }
        lp_absorb(run, other, err, failed);
        if (!*failed && lp_commit(run, other))
            wake |= help_consumers(run, other, id, err, failed);
        wake |= owner_needed(run, other);
        atomic_flag_clear(&other->busy);
    }
    return wake;
}

/* After an LP published: its consumers commit (help_consumers), then the
 * waiting threads look, when one of them has something to do. (The
 * observer is called once the LP's lock is let go: its I/O must not hold up
 * the LP.) */
static void changed(spec_run *run, const spec_lp *lp, bool published, unsigned id,
                    rtcosim_error *err, bool *failed)
{
    if (!published || help_consumers(run, lp, id, err, failed) || *failed ||
        lp->committed >= spec_lp_end(run, lp))
        spec_run_notify(run);
}

/* One visit of an LP by a thread that holds its lock: take the new inputs
 * in, publish what is committed, take a step. Returns whether anything
 * changed. */
static bool serve(spec_run *run, spec_lp *lp, unsigned id, rtcosim_error *err, bool *failed)
{
    bool progress = lp_absorb(run, lp, err, failed);
    /* Publish before the next step, so that consumers do not wait for the
     * step's length. */
    if (!*failed && lp_commit(run, lp)) {
        progress = true;
        changed(run, lp, true, id, err, failed);
    }
    /* A step taken changes what the observer may show too (a conservative
     * LP's termination request is final once taken). */
    if (!*failed && lp_execute(run, lp, err, failed)) {
        progress = true;
        changed(run, lp, lp_commit(run, lp), id, err, failed);
    }
    return progress;
}

/* A thread whose own LPs cannot go on takes one step of the LP of another
 * thread that is furthest behind in committed time (the one the global
 * virtual time waits for), when nobody works on it and its component is not
 * stepping: the scheme's global scheduler running the LP furthest behind on
 * a free core. Typically the owner sleeps and a rollback left the step a
 * waiting LP needs to be executed again; taking it here saves the owner's
 * wake-up, which on a loaded machine can take a scheduler time slice. */
static bool steal(spec_run *run, unsigned id, rtcosim_error *err, bool *failed)
{
    spec_lp *best = NULL;
    rtcosim_time_ns best_time = RTCOSIM_TIME_MAX;
    for (size_t l = 0; l < run->lp_count; l++) {
        spec_lp *lp = &run->lps[l];
        if (lp->thread == id)
            continue;
        const rtcosim_time_ns t =
            (rtcosim_time_ns)atomic_load_explicit(&lp->committed_shared, memory_order_relaxed) *
            lp->step;
        if (t < best_time && t < run->stop - run->t0) {
            best = lp;
            best_time = t;
        }
    }
    if (!best || atomic_flag_test_and_set(&best->busy))
        return false;
    bool progress = false;
    if (best->in_flight == UINT64_MAX && best->committed < spec_lp_end(run, best))
        progress = serve(run, best, id, err, failed);
    atomic_flag_clear(&best->busy);
    if (progress) {
        spec_run_notify(run);
        spec_try_record(run);
    }
    return progress;
}

static void run_worker(spec_run *run, unsigned id)
{
    rtcosim_error err;
    rtcosim_error_clear(&err);
    spin_wait sw;
    spin_wait_init(&sw, SPIN_WAIT_MIN_NS);
    while (!atomic_load(&run->failed)) {
        const uint32_t seen = atomic_load(&run->generation);
        bool progress = false, done = true, failed = false;
        for (size_t l = id; l < run->lp_count && !failed; l += run->threads) {
            spec_lp *lp = &run->lps[l];
            if (atomic_flag_test_and_set(&lp->busy)) {
                /* Another thread works on it and notifies when it lets go. */
                done = false;
                continue;
            }
            const bool served = serve(run, lp, id, &err, &failed);
            /* Done at its last step, or when every row is shown (a
             * feedthrough LP may wait for inputs the ended run never makes). */
            const bool lp_done = lp->committed >= spec_lp_end(run, lp);
            atomic_flag_clear(&lp->busy);
            if (served && !failed)
                spec_try_record(run);
            progress |= served;
            done = done && (lp_done || atomic_load(&run->row_time) >= spec_end_time(run));
        }
        if (!failed && !done && !progress && run->threads > 1)
            progress = steal(run, id, &err, &failed);
        if (failed) {
            spec_run_fail(run, &err);
            return;
        }
        if (done)
            return;
        if (!progress)
            wait_progress(run, &sw, seen);
    }
}

static void *worker_main(void *arg)
{
    worker_arg *w = arg;
    run_worker(w->run, w->id);
    return NULL;
}

static void collect_stats(spec_run *run, rtcosim_speculation_stats *stats)
{
    for (size_t l = 0; stats && l < run->lp_count; l++) {
        spec_lp *lp = &run->lps[l];
        lp->stats.prediction_error_rms =
            lp->stats.predicted_values ? sqrt(lp->error_sum_sq / (double)lp->stats.predicted_values)
                                       : 0.0;
        stats[lp->comp] = lp->stats;
    }
}

rtcosim_status rtcosim_master_run_speculative(rtcosim_master *m, rtcosim_time_ns stop,
                                              const rtcosim_speculation_options *options,
                                              rtcosim_master_observer observer, void *context,
                                              rtcosim_speculation_stats *stats,
                                              rtcosim_error *err)
{
    rtcosim_status st = spec_check_scope(m, err);
    if (st != RTCOSIM_OK)
        return st;
    if (stop < m->time || (m->stop >= 0 && stop > m->stop) || (stop - m->time) % m->macro_step != 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "master: speculative run to %.9g s: the stop time must be on the "
                                 "macro-step grid from %.9g s and within the initialized stop time",
                                 rtcosim_time_to_seconds(stop), rtcosim_time_to_seconds(m->time));
    for (size_t c = 0; c < m->comp_count; c++)
        if ((stop - m->time) % ((rtcosim_time_ns)m->comps[c].multiple * m->macro_step) != 0)
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "master: speculative run to %.9g s: the stop time is not on the "
                                     "grid of '%s', which steps %.9g s",
                                     rtcosim_time_to_seconds(stop), m->comps[c].name,
                                     rtcosim_time_to_seconds((rtcosim_time_ns)m->comps[c].multiple *
                                                             m->macro_step));
    spec_run *run = calloc(1, sizeof *run);
    if (!run)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "master: out of memory");
    if ((st = spec_run_setup(run, m, options, err)) != RTCOSIM_OK) {
        spec_run_cleanup(run);
        free(run);
        return st;
    }
    run->stop = stop;
    atomic_init(&run->row_time, run->t0);
    for (size_t l = 0; l < run->lp_count; l++)
        run->lps[l].total = (uint64_t)((stop - run->t0) / run->lps[l].step);
    run->observer = observer;
    run->context = context;
    if (observer && m->time == m->start && m->steps == 0) {
        const double *v = rtcosim_master_observed_values(m);
        if ((st = observer(context, m->time, v, m->observed_count, err)) != RTCOSIM_OK) {
            spec_run_cleanup(run);
            free(run);
            return st;
        }
    }
    /* From here on the master's coupling history no longer follows the
     * components: only a completed run leaves it standing at `stop`. */
    m->failed = true;
    worker_arg *args = calloc(run->threads, sizeof *args);
    pthread_t *threads = calloc(run->threads, sizeof *threads);
    unsigned started = 0;
    if (!args || !threads) {
        rtcosim_error e;
        rtcosim_error_set(&e, RTCOSIM_ENOMEM, "master: out of memory");
        spec_run_fail(run, &e);
    }
    for (unsigned i = 1; args && threads && i < run->threads; i++) {
        args[i] = (worker_arg){run, i};
        if (pthread_create(&threads[i], NULL, worker_main, &args[i]) != 0) {
            rtcosim_error e;
            rtcosim_error_set(&e, RTCOSIM_EIO, "master: cannot start speculation worker %u", i);
            spec_run_fail(run, &e);
            break;
        }
        started = i;
    }
    if (!atomic_load(&run->failed))
        run_worker(run, 0);
    for (unsigned i = 1; i <= started; i++)
        pthread_join(threads[i], NULL);
    free(args);
    free(threads);
    /* A rollback decided for an LP after its last step (the run ended before
     * the steps it rolled back) still leaves the committed state behind. */
    for (size_t l = 0; l < run->lp_count && !atomic_load(&run->failed); l++) {
        spec_lp *lp = &run->lps[l];
        rtcosim_error e;
        if (lp->restore_to != UINT64_MAX &&
            rtcosim_rollback_restore(lp->table, lp->restore_to, &e) != RTCOSIM_OK)
            spec_run_fail(run, &e);
        lp->restore_to = UINT64_MAX;
    }
    spec_try_record(run);
    const rtcosim_time_ns end = spec_end_time(run);
    if (!atomic_load(&run->failed) && atomic_load(&run->row_time) != end) {
        rtcosim_error e;
        rtcosim_error_set(&e, RTCOSIM_ESTATE, "master: speculative run ended before %.9g s",
                          rtcosim_time_to_seconds(stop));
        spec_run_fail(run, &e);
    }
    collect_stats(run, stats);
    st = run->status;
    if (atomic_load(&run->failed)) {
        if (err)
            *err = run->error;
    } else {
        m->time = end;
        m->steps += atomic_load(&run->rows) - 1;
        st = RTCOSIM_OK;
        if (end < stop) {
            m->terminate_requested = true;
            rtcosim_log(RTCOSIM_LOG_INFO, "master", "a component requested termination at %.9g s",
                        rtcosim_time_to_seconds(m->time));
        }
    }
    spec_run_cleanup(run);
    free(run);
    return st;
}
