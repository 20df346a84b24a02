/* The master's hot path: one macro step (tick). Per component and exchange it
 * makes one batched get and one batched set per type (plus the input
 * derivatives when the component takes them); per connection it fits the
 * extrapolation polynomial, adds the correction signal and keeps the
 * integrals that measure the extrapolation error. No allocation, no I/O.
 *
 * Error signal of a connection (NEPCE, Benedikt et al. 2013): over each
 * common interval [a, b] of producer samples and consumer steps,
 *     E = integral of the true signal - integral of the plain estimate,
 * the true integral taken over the exchanged samples (the only values of the
 * true signal the master sees) by the trapezoid or the parabola through the
 * last three samples (see rtcosim_error_quadrature). The correction system
 * (coupling.c) releases E into the following step(s) on top of the estimate.
 *
 * Power bonds (effort e, e.g. force, into component A; flow f, e.g. velocity,
 * from A into B): the coupling creates the energy
 *     R = integral(e_applied * f_true) - integral(e_true * f_applied)
 *       ~ (I[e_applied] I[f_true] - I[e_true] I[f_applied]) / (b - a)
 * (products of interval means, first order). To first order
 *     R ~ -f_mean * E_e,applied + e_mean * E_f,applied,
 * with E_x,applied the error against what the consumer received. The
 * correction releases every E into the next step, so the sum of the applied
 * errors over a run telescopes to the last interval's error: the energy the
 * interface creates stays bounded by one step's error instead of
 * accumulating. The master therefore corrects both signals of a bond. */
#include <math.h>
#include <string.h>

#include "master/master_internal.h"

static double sample_value(const rtcosim_master *m, const master_connection *k)
{
    double y;
    memcpy(&y, m->comps[k->from].out[RTCOSIM_TYPE_FLOAT64].values + k->out_slot * sizeof y, sizeof y);
    return k->opts.has_transformation ? k->opts.factor * y + k->opts.offset : y;
}

static void bond_update(rtcosim_master *m, master_bond *b)
{
    const master_connection *e = &m->conns[b->effort], *f = &m->conns[b->flow];
    if (e->last_to != f->last_to || e->last_from != f->last_from || e->last_to == b->last_to ||
        e->last_to <= e->last_from)
        return;
    double span = (double)(e->last_to - e->last_from) * 1e-9;
    double r = (e->last_applied * f->last_true - e->last_true * f->last_applied) / span;
    b->last_to = e->last_to;
    b->stats.intervals++;
    b->stats.energy_residual += r;
    b->stats.last_residual = r;
    /* The part of R that the corrections added: the applied signals are the
     * plain estimates plus the corrections c, so R splits into the plain
     * estimates' energy and (I[c_e] I[f_true] - I[e_true] I[c_f]) / span. */
    double w = ((e->last_applied - e->last_est) * f->last_true -
                e->last_true * (f->last_applied - f->last_est)) / span;
    b->stats.correction_energy += w;
    b->stats.last_correction_energy = w;
    if (fabs(r) > b->stats.energy_residual_max)
        b->stats.energy_residual_max = fabs(r);
}

/* Close the interval when the true signal and the consumer's estimates cover
 * the same time span. Inlined: it runs for every connection every step. */
static inline __attribute__((always_inline)) void reconcile(rtcosim_master *m, size_t index)
{
    master_connection *k = &m->conns[index];
    double e = k->true_integral - k->est_integral;
    rtcosim_correction_feed(&k->corr, e);
    k->stats.intervals++;
    k->stats.last_error = e;
    k->error_sum_sq += e * e;
    if (fabs(e) > k->stats.error_max)
        k->stats.error_max = fabs(e);
    k->last_from = k->recon_from;
    k->last_to = k->true_to;
    k->last_true = k->true_integral;
    k->last_applied = k->applied_integral;
    k->last_est = k->est_integral;
    k->reconciled_ticks = m->steps;
    k->recon_from = k->true_to;
    k->true_integral = k->est_integral = k->applied_integral = 0;
    if (!k->bonded)
        return;
    for (size_t b = 0; b < m->bond_count; b++)
        if (m->bonds[b].effort == index || m->bonds[b].flow == index)
            bond_update(m, &m->bonds[b]);
}

static inline void try_reconcile(rtcosim_master *m, size_t index)
{
    const master_connection *k = &m->conns[index];
    if (k->true_to == k->est_to && k->true_to > k->recon_from)
        reconcile(m, index);
}

static void push_sample(rtcosim_master *m, size_t index, rtcosim_time_ns t)
{
    master_connection *k = &m->conns[index];
    double y = sample_value(m, k);
    if (k->hist_n && k->hist_t[k->hist_n - 1] == t) {
        k->hist_y[k->hist_n - 1] = y; /* republished at the same instant */
        return;
    }
    if (k->hist_n >= 2 && k->quadratic) {
        rtcosim_time_ns ts[3] = {k->hist_t[k->hist_n - 2], k->hist_t[k->hist_n - 1], t};
        double ys[3] = {k->hist_y[k->hist_n - 2], k->hist_y[k->hist_n - 1], y};
        rtcosim_poly q;
        rtcosim_poly_fit(RTCOSIM_EXTRAPOLATION_SOH, ts, ys, 3, ts[1], &q);
        k->true_integral += rtcosim_poly_integral(&q, (double)(t - ts[1]) * 1e-9);
    } else if (k->hist_n) {
        double dt = (double)(t - k->hist_t[k->hist_n - 1]) * 1e-9;
        k->true_integral += 0.5 * dt * (k->hist_y[k->hist_n - 1] + y);
    }
    if (k->hist_n == HISTORY_LEN) {
        for (size_t i = 1; i < HISTORY_LEN; i++) {
            k->hist_t[i - 1] = k->hist_t[i];
            k->hist_y[i - 1] = k->hist_y[i];
        }
        k->hist_n--;
    }
    /* The step controller's relative tolerance refers to the largest
     * magnitude the signal has had so far, so that the zero crossings of an
     * oscillating signal do not force tiny steps. */
    if (fabs(y) > k->last_scale)
        k->last_scale = fabs(y);
    k->hist_t[k->hist_n] = t;
    k->hist_y[k->hist_n] = y;
    k->hist_n++;
    k->true_to = t;
    try_reconcile(m, index);
}

static rtcosim_status copy_raw(rtcosim_master *m, const master_connection *k, rtcosim_error *err)
{
    size_t elem = rtcosim_type_size(k->type);
    const unsigned char *src = m->comps[k->from].out[k->type].values + k->out_slot * elem;
    if (master_type_owned(k->type))
        return master_text_deliver(&m->comps[k->to], k->type, k->in_slot, src) < 0
                   ? master_oom(err)
                   : RTCOSIM_OK;
    unsigned char *dst = m->comps[k->to].in[k->type].values + k->in_slot * elem;
    memcpy(dst, src, elem);
    master_map_value(k, dst);
    return RTCOSIM_OK;
}

/* A discrete connection's value for the consumer's next step, into a slot
 * of a type the step sets (in_type_mask); the others wait for the
 * input-event check (events.c), which must still see them change. */
static rtcosim_status step_mode_copy(rtcosim_master *m, const master_component *mc,
                                     const master_connection *k, rtcosim_error *err)
{
    if (!(mc->in_type_mask >> k->type & 1u))
        return RTCOSIM_OK;
    return copy_raw(m, k, err);
}

static rtcosim_status set_inputs(master_component *mc, rtcosim_error *err)
{
    for (unsigned i = 0; i < mc->in_type_count; i++) {
        unsigned t = mc->in_types[i];
        rtcosim_status st = rtcosim_component_set(mc->c, (rtcosim_type)t, mc->in[t].vrs, mc->in[t].n,
                                                  mc->in[t].values, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

/* Before reading a component's outputs at its communication point t, give
 * its inputs their values at t (the latest exchanged values where they exist,
 * else the estimate at t), so that outputs with direct feedthrough are
 * consistent with the exchanged data rather than with the estimate. */
static rtcosim_status refresh_inputs(rtcosim_master *m, master_component *mc, rtcosim_time_ns t,
                                     rtcosim_error *err)
{
    double *in = (double *)mc->in[RTCOSIM_TYPE_FLOAT64].values;
    for (size_t i = 0; i < mc->conns_in_count; i++) {
        const master_connection *k = &m->conns[mc->conns_in[i]];
        if (!k->continuous) {
            rtcosim_status st = step_mode_copy(m, mc, k, err);
            if (st != RTCOSIM_OK)
                return st;
            continue;
        }
        if (k->hist_n == 0)
            continue; /* producer not yet published: keep the initial value */
        rtcosim_poly p;
        rtcosim_poly_fit(k->opts.extrapolation, k->hist_t, k->hist_y, k->hist_n, t, &p);
        in[k->in_slot] = p.c[0];
    }
    return set_inputs(mc, err);
}

rtcosim_status master_publish_prepare(rtcosim_master *m, size_t comp, rtcosim_time_ns t,
                                      rtcosim_error *err)
{
    master_component *mc = &m->comps[comp];
    if (mc->feedthrough && t != m->start)
        return refresh_inputs(m, mc, t, err);
    return RTCOSIM_OK;
}

void master_publish_samples(rtcosim_master *m, size_t comp, rtcosim_time_ns t)
{
    const master_component *mc = &m->comps[comp];
    for (size_t i = 0; i < mc->conns_out_count; i++)
        push_sample(m, mc->conns_out[i], t);
}

rtcosim_status master_publish_at(rtcosim_master *m, size_t comp, rtcosim_time_ns t,
                                 rtcosim_error *err)
{
    master_component *mc = &m->comps[comp];
    rtcosim_status st;
    if (m->xchg)
        return master_exchange_publish_one(m, comp, t, err);
    if ((st = master_publish_prepare(m, comp, t, err)) != RTCOSIM_OK)
        return st;
    for (unsigned i = 0; i < mc->out_type_count; i++) {
        unsigned ty = mc->out_types[i];
        if ((st = rtcosim_component_get(mc->c, (rtcosim_type)ty, mc->out[ty].vrs, mc->out[ty].n,
                                        mc->out[ty].values, err)) != RTCOSIM_OK ||
            (master_type_owned((rtcosim_type)ty) &&
             (st = master_text_keep_all(mc, (rtcosim_type)ty, err)) != RTCOSIM_OK))
            return st;
    }
    master_publish_samples(m, comp, t);
    return RTCOSIM_OK;
}

/* Jacobi: the components list[0..n) publish at t, in list order; over ranks
 * (--distribute) in one exchange. */
static rtcosim_status publish_all(rtcosim_master *m, const size_t *list, size_t n,
                                  rtcosim_time_ns t, rtcosim_error *err)
{
    if (m->xchg)
        return master_exchange_publish(m, list, n, t, err);
    for (size_t a = 0; a < n; a++) {
        rtcosim_status st = master_publish_at(m, list[a], t, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

/* The nominal step of a component (for the multi-rate hold rule). */
static rtcosim_time_ns nominal_step(const rtcosim_master *m, const master_component *mc)
{
    return mc->variable ? m->adaptive_step : (rtcosim_time_ns)mc->multiple * m->macro_step;
}

/* Inputs of one component for its step [t, t + h]: per connection the
 * estimate polynomial plus the correction. A component that takes input
 * derivatives gets the polynomial itself; a black box gets one value per step
 * (rtcosim_step_input): by default the mean of the estimate over the step
 * (exact for the quadratic), because a constant input with the same integral
 * delivers the same impulse (and, for a power bond, the same energy to first
 * order) as the estimate, which is what the error signal and the correction
 * account for; the value at the step start (an O(h) bias on every step of a
 * sloped signal) when the connection asks for it. The integral kept for the
 * error signal is that of what the consumer received.
 *
 * A ZOH estimate is passed bit for bit: the held sample is written as is (the
 * mean of a constant is the constant, rtcosim_poly_mean), and an absent
 * correction is -0.0, the one additive identity of IEEE 754 (x + -0.0 == x
 * for every x, -0.0 included; x + +0.0 turns -0.0 into +0.0). */
static rtcosim_status compute_inputs(rtcosim_master *m, master_component *mc, rtcosim_error *err)
{
    rtcosim_time_ns t = mc->step_start, h = mc->h;
    double hs = (double)h * 1e-9;
    double *in = (double *)mc->in[RTCOSIM_TYPE_FLOAT64].values;
    bool had_d1 = mc->any_d1, had_d2 = mc->any_d2;
    mc->any_d1 = mc->any_d2 = false;
    for (size_t i = 0; i < mc->conns_in_count; i++) {
        size_t index = mc->conns_in[i];
        master_connection *k = &m->conns[index];
        if (!k->continuous) {
            rtcosim_status st = step_mode_copy(m, mc, k, err);
            if (st != RTCOSIM_OK)
                return st;
            continue;
        }
        double correction =
            k->corr.kind == RTCOSIM_CORRECTION_NONE ? -0.0 : rtcosim_correction_release(&k->corr, hs);
        size_t s = k->in_slot;
        if (k->zoh) {
            /* The common case, without the polynomial: the estimate is the
             * last sample y, its integral h y (bit-identical to the
             * polynomial path) and its derivatives zero (d1, d2 of this slot
             * stay 0). */
            double y = k->hist_y[k->hist_n - 1];
            double integral = hs * y;
            k->est_integral += integral;
            k->applied_integral += integral + correction * hs;
            k->step_est = integral;
            k->step_applied = integral + correction * hs;
            k->est_to = t + h;
            in[s] = y + correction;
            try_reconcile(m, index);
            continue;
        }
        rtcosim_poly p;
        if (k->hist_n == 1 ||
            (k->opts.multirate == RTCOSIM_MULTIRATE_HOLD && nominal_step(m, &m->comps[k->from]) > h))
            p = (rtcosim_poly){{k->hist_y[k->hist_n - 1], 0, 0}};
        else
            rtcosim_poly_fit(k->opts.extrapolation, k->hist_t, k->hist_y, k->hist_n, t, &p);
        double integral = master_poly_input(mc, k, &p, hs, correction);
        k->est_integral += integral;
        k->applied_integral += integral + correction * hs;
        k->step_est = integral;
        k->step_applied = integral + correction * hs;
        k->est_to = t + h;
        if (mc->derivative_order >= 1 && mc->d1[s] != 0)
            mc->any_d1 = true;
        if (mc->derivative_order >= 2 && mc->d2[s] != 0)
            mc->any_d2 = true;
        try_reconcile(m, index);
    }
    rtcosim_status st = set_inputs(mc, err);
    if (st != RTCOSIM_OK || !mc->polynomial_inputs)
        return st;
    const typed_batch *f = &mc->in[RTCOSIM_TYPE_FLOAT64];
    if ((mc->any_d1 || had_d1) &&
        (st = rtcosim_component_set_input_derivatives(mc->c, f->vrs, f->n, 1, mc->d1, err)) != RTCOSIM_OK)
        return st;
    if ((mc->any_d2 || had_d2) &&
        (st = rtcosim_component_set_input_derivatives(mc->c, f->vrs, f->n, 2, mc->d2, err)) != RTCOSIM_OK)
        return st;
    return RTCOSIM_OK;
}

void master_step_component(master_component *mc)
{
    mc->step_status = rtcosim_component_do_step(mc->c, mc->step_start, mc->h, &mc->step_result,
                                                &mc->step_error);
}

void master_step_ended(rtcosim_master *m, const master_component *mc, bool discarded)
{
    if (discarded) {
        m->terminate_requested = m->discarded = true;
        m->terminated_by = mc;
        m->steps--; /* the tick did not complete */
    } else if (!m->terminate_requested) {
        m->terminate_requested = true;
        m->terminated_by = mc;
    }
}

static rtcosim_status step_outcome(rtcosim_master *m, master_component *mc, rtcosim_error *err)
{
    /* FMI 2.0 section 4.2.3 / FMI 3.0 section 4.2.1: a discarded step with a
     * terminate request is the component's normal end, not a failure. */
    if (mc->step_status == RTCOSIM_EDISCARD && mc->step_result.terminate_requested) {
        master_step_ended(m, mc, true);
        return RTCOSIM_OK;
    }
    if (mc->step_status != RTCOSIM_OK) {
        if (err)
            *err = mc->step_error;
        return mc->step_status;
    }
    if (mc->step_result.terminate_requested)
        master_step_ended(m, mc, false);
    return RTCOSIM_OK;
}

/* Step sizes of this tick: fixed components their multiple (the last step
 * shortened to the stop time), adaptive ones the controller's step, cut so
 * that no fixed component's communication point is skipped. */
static void plan_steps(rtcosim_master *m, rtcosim_time_ns t, rtcosim_time_ns stop,
                       rtcosim_time_ns *variable_h)
{
    rtcosim_time_ns limit = stop;
    m->active_count = 0;
    for (size_t i = 0; i < m->comp_count; i++) {
        master_component *mc = &m->comps[m->order_list[i]];
        if (mc->next_time == t) {
            m->active[m->active_count++] = m->order_list[i];
            if (!mc->variable) {
                rtcosim_time_ns h = (rtcosim_time_ns)mc->multiple * m->macro_step;
                if (t + h > stop && mc->can_vary)
                    h = stop - t;
                mc->step_start = t;
                mc->h = h;
                mc->next_time = t + h;
            }
        }
        if (!mc->variable && mc->next_time < limit && mc->next_time > t)
            limit = mc->next_time;
    }
    /* Steps land on the output grid (rtcosim_master_set_step_grid). */
    if (m->step_grid > 0) {
        rtcosim_time_ns k = (t - m->start) / m->step_grid + 1;
        rtcosim_time_ns point = m->start + k * m->step_grid;
        if (point < limit)
            limit = point;
    }
    rtcosim_time_ns hv = m->adaptive_step, left = limit - t;
    if (hv >= left) {
        hv = left;
    } else if (m->step_control.enabled && left < 2 * hv) {
        /* No sliver before a point that must be hit (an output point, a fixed
         * component's step, the stop): stretch up to 10 % onto it, else two
         * equal steps to it. */
        rtcosim_time_ns res = m->step_control.resolution > 0 ? m->step_control.resolution : 1;
        if (left * 10 <= hv * 11)
            hv = left;
        else if (left / 2 / res * res >= m->step_control.min_step)
            hv = left / 2 / res * res;
    }
    *variable_h = hv;
    for (size_t a = 0; a < m->active_count; a++) {
        master_component *mc = &m->comps[m->active[a]];
        if (mc->variable) {
            mc->step_start = t;
            mc->h = hv;
            mc->next_time = t + hv;
        }
    }
}

/* The error norm of the tick for the step controller: the largest
 * |E| / (interval * (atol + rtol * max|y|)) over the connections reconciled in
 * this tick (E / interval is the mean error of the signal over the interval),
 * times (interval / mean interval)^2, kept within [1/4, 4], where the
 * connection is corrected (the error a correction leaves is E delayed by a
 * step: rtcosim/coupling.h), and
 * |R| / (interval * (atol + rtol * |e f|)) over power bonds. */
static bool tick_error_norm(const rtcosim_master *m, double *norm)
{
    const rtcosim_step_control *sc = &m->step_control;
    bool any = false;
    double worst = 0;
    const double href = m->step_mean;
    for (size_t i = 0; i < m->conn_count; i++) {
        const master_connection *k = &m->conns[i];
        if (!k->continuous || k->reconciled_ticks != m->steps || k->last_to <= k->last_from)
            continue;
        double span = (double)(k->last_to - k->last_from) * 1e-9;
        /* The plain extrapolation error, also with a correction: the error
         * left after the correction (E_k - E_k-1 for the dead time) jumps
         * whenever the step changes and would make the controller chatter
         * (tried on B2); the plain error is smooth and conservative. */
        double v = fabs(k->stats.last_error) / (span * (sc->atol + sc->rtol * k->last_scale));
        if (k->opts.correction != RTCOSIM_CORRECTION_NONE)
            v *= fmin(4.0, fmax(0.25, (span / href) * (span / href)));
        if (v > worst)
            worst = v;
        any = true;
    }
    for (size_t b = 0; b < m->bond_count; b++) {
        const master_bond *bond = &m->bonds[b];
        const master_connection *e = &m->conns[bond->effort], *f = &m->conns[bond->flow];
        if (e->reconciled_ticks != m->steps || bond->last_to != e->last_to)
            continue;
        double span = (double)(e->last_to - e->last_from) * 1e-9;
        double power = fabs(e->last_true * f->last_true) / (span * span);
        double v = fabs(bond->stats.last_residual) / (span * (sc->atol + sc->rtol * power));
        if (v > worst)
            worst = v;
        any = true;
    }
    *norm = worst;
    return any;
}

/* Gauss-Seidel: the end of the run of active[from..n) on one dependency
 * level (order.c), which steps as one group once all its inputs are set;
 * without parallel threads every component is a group of its own, as in
 * the plain sequential order. */
static inline size_t level_end(const rtcosim_master *m, const size_t *active, size_t from, size_t n)
{
    size_t end = from + 1;
    if (m->parallel)
        while (end < n && m->comps[active[end]].level == m->comps[active[from]].level)
            end++;
    return end;
}

/* FMI 3.0 early return (sections 4.2.1, 4.2.3; rtcosim_fmu_options
 * early_return_allowed). The standard leaves to the importer what the other
 * FMUs do when one returns early; rtcosim shortens the macro step: the
 * components that may return early step first, one after the other (with
 * the inputs of the step's start, as in Jacobi order), each to the end of
 * the step shortened so far; one that returns early at lastSuccessfulTime
 * te cuts the step to te, and the others then step only to te, so that all
 * meet there and the next step starts at te for every one (no component
 * stepped past another's event). A returner that had already stepped past
 * te is rolled back to its snapshot from before its step (FMI 3.0
 * fmi3GetFMUState/fmi3SetFMUState, taken only when several components may
 * return early) and stepped again to te; one that cannot save its state is
 * then an error naming both. */

#define EARLY_RETURNS_AT_ONE_INSTANT 100

/* The step of mc ended at te instead of t + h: its inputs' estimates cover
 * [t, te] (the share of the step past te is taken back from the integrals of
 * the error signal, exact for the constant input a black box gets). */
static void cut_step(rtcosim_master *m, master_component *mc, rtcosim_time_ns te)
{
    rtcosim_time_ns t = mc->step_start, end = t + mc->h;
    double past = mc->h > 0 ? (double)(end - te) / (double)mc->h : 0.0;
    for (size_t i = 0; i < mc->conns_in_count; i++) {
        master_connection *k = &m->conns[mc->conns_in[i]];
        if (!k->continuous || k->est_to != end)
            continue;
        k->est_integral -= past * k->step_est;
        k->applied_integral -= past * k->step_applied;
        k->est_to = te;
    }
    mc->h = te - t;
    mc->next_time = te;
}

/* One returner's step [t, t + *h] (again, after a rollback); an early return
 * before its end shortens *h. */
static rtcosim_status step_returner(rtcosim_master *m, master_component *mc, rtcosim_time_ns *h,
                                    bool again, rtcosim_error *err)
{
    const rtcosim_time_ns t = m->time;
    rtcosim_status st;
    if (again) {
        cut_step(m, mc, t + *h);
        if ((st = rtcosim_component_set_state(mc->c, mc->rollback, err)) != RTCOSIM_OK)
            return rtcosim_error_prefix(err, "master: rolling '%s' back to t=%.9f s: ", mc->name,
                                        rtcosim_time_to_seconds(t));
        if (*h == 0) { /* back at t, where another handles its event first */
            mc->step_result = (rtcosim_step_result){.last_successful_time = t};
            return RTCOSIM_OK;
        }
    } else {
        mc->step_start = t;
        mc->h = *h;
        mc->next_time = t + *h;
        if ((st = compute_inputs(m, mc, err)) != RTCOSIM_OK)
            return st;
        /* after the inputs: a rollback restores them with the state */
        if (m->returner_count > 1 && rtcosim_component_capabilities(mc->c)->can_get_set_state &&
            (st = rtcosim_component_get_state(mc->c, &mc->rollback, err)) != RTCOSIM_OK)
            return st;
    }
    const rtcosim_step_result *r = &mc->step_result;
    /* An event less than a nanosecond after t (the FMU's double time just
     * short of the instant the step started at) returns at t itself: the
     * step goes on from there, at most EARLY_RETURNS_AT_ONE_INSTANT times. */
    for (int tries = 0;; tries++) {
        master_step_component(mc);
        if ((st = step_outcome(m, mc, err)) != RTCOSIM_OK || m->discarded)
            return st;
        if (!r->early_return || r->last_successful_time > t || r->event_handling_needed)
            break;
        if (tries == EARLY_RETURNS_AT_ONE_INSTANT)
            return rtcosim_error_set(err, RTCOSIM_ECOMPONENT,
                                     "master: '%s' returned early at the start of its step "
                                     "(t=%.9f s) %d times: no progress",
                                     mc->name, rtcosim_time_to_seconds(t), tries + 1);
    }
    if (!r->early_return || r->last_successful_time >= t + *h)
        return RTCOSIM_OK;
    m->early_returns++;
    cut_step(m, mc, r->last_successful_time);
    *h = r->last_successful_time - t;
    return RTCOSIM_OK;
}

/* The returners of this tick step first; m->rest gets the others. */
static rtcosim_status step_returners(rtcosim_master *m, rtcosim_time_ns *h, rtcosim_error *err)
{
    size_t done = 0, rest = 0;
    rtcosim_status st;
    for (size_t a = 0; a < m->active_count; a++) {
        size_t c = m->active[a];
        master_component *mc = &m->comps[c];
        if (!mc->returns_early || *h == 0) { /* h 0: one stopped at t (below) */
            m->rest[rest++] = c;
            continue;
        }
        rtcosim_time_ns before = *h;
        if ((st = step_returner(m, mc, h, false, err)) != RTCOSIM_OK || m->discarded)
            return st;
        m->returned[done++] = c;
        /* The earlier ones are past the new end: back and again, until
         * none returns earlier still. */
        for (size_t i = 0; *h < before && i + 1 < done; i++) {
            master_component *p = &m->comps[m->returned[i]];
            if (p->next_time <= m->time + *h)
                continue;
            if (!p->rollback)
                return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                         "master: '%s' returned early at t=%.9f s, but '%s' had "
                                         "already stepped to %.9f s and cannot be rolled back "
                                         "(no canGetAndSetFMUState)",
                                         mc->name, rtcosim_time_to_seconds(m->time + *h), p->name,
                                         rtcosim_time_to_seconds(p->next_time));
            before = *h;
            if ((st = step_returner(m, p, h, true, err)) != RTCOSIM_OK || m->discarded)
                return st;
            if (*h < before)
                i = (size_t)-1; /* an earlier end again: recheck from the first */
        }
    }
    m->rest_count = rest;
    m->returned_count = done;
    return RTCOSIM_OK;
}

/* A tick of a single-rate run: every component steps H from t, in
 * order_list order (m->active holds it). The planning, inputs and step
 * outcome with publication are fused into one pass each, so that a run of
 * cheap components pays little per component beyond the exchange itself.
 * In Jacobi order a failed step stops the tick before the failing component
 * publishes; the master is then failed anyway. */
rtcosim_status master_single_rate_tick(rtcosim_master *m, rtcosim_time_ns h, rtcosim_error *err)
{
    const size_t *active = m->active;
    size_t n = m->active_count;
    rtcosim_status st;
    if (m->returner_count) {
        if ((st = step_returners(m, &h, err)) != RTCOSIM_OK || m->discarded)
            return st;
        active = m->rest;
        n = m->rest_count;
        if (h == 0) {
            /* An event-mode returner stopped at t itself (an event a hair
             * after t): the others stay at t and its event is handled there
             * (master_event_tick); nothing else changed. */
            for (size_t a = 0; a < n; a++) {
                master_component *mc = &m->comps[active[a]];
                mc->h = 0;
                mc->next_time = m->time;
                mc->step_result = (rtcosim_step_result){.last_successful_time = m->time};
            }
            return RTCOSIM_OK;
        }
    }
    const rtcosim_time_ns t = m->time, next = t + h;
    if (m->order == RTCOSIM_ORDER_JACOBI) {
        for (size_t a = 0; a < n; a++) {
            master_component *mc = &m->comps[active[a]];
            mc->step_start = t;
            mc->h = h;
            mc->next_time = next;
            if ((st = compute_inputs(m, mc, err)) != RTCOSIM_OK)
                return st;
        }
        master_run_group(m, active, n);
        for (size_t a = 0; a < n; a++)
            if ((st = step_outcome(m, &m->comps[active[a]], err)) != RTCOSIM_OK)
                return st;
        if (m->discarded)
            return RTCOSIM_OK;
        if (m->returner_count) /* every component, the returners too */
            active = m->active, n = m->active_count;
        if ((st = publish_all(m, active, n, next, err)) != RTCOSIM_OK)
            return st;
        if (m->discarded) /* over ranks: learnt with the exchange */
            return RTCOSIM_OK;
    } else {
        /* Gauss-Seidel: the returners' outputs at the step's end first */
        for (size_t a = 0; m->returner_count && a < m->returned_count; a++)
            if ((st = master_publish_at(m, m->returned[a], next, err)) != RTCOSIM_OK)
                return st;
        for (size_t a = 0, end; a < n; a = end) {
            end = level_end(m, active, a, n);
            for (size_t b = a; b < end; b++) {
                master_component *mc = &m->comps[active[b]];
                mc->step_start = t;
                mc->h = h;
                mc->next_time = next;
                if ((st = compute_inputs(m, mc, err)) != RTCOSIM_OK)
                    return st;
            }
            master_run_group(m, active + a, end - a);
            for (size_t b = a; b < end; b++) {
                if ((st = step_outcome(m, &m->comps[active[b]], err)) != RTCOSIM_OK)
                    return st;
                if (m->discarded)
                    return RTCOSIM_OK;
                if ((st = master_publish_at(m, active[b], next, err)) != RTCOSIM_OK)
                    return st;
                if (m->discarded) /* over ranks: learnt with the exchange */
                    return RTCOSIM_OK;
            }
        }
    }
    m->time = next;
    return RTCOSIM_OK;
}

static rtcosim_status tick(rtcosim_master *m, rtcosim_time_ns stop, rtcosim_error *err)
{
    rtcosim_time_ns t = m->time, variable_h;
    rtcosim_status st;
    m->steps++;
    if (m->events)
        return master_event_tick(m, stop, err);
    if (m->returner_count) {
        /* To the next point of the grid start + k H (after an early return
         * the step is shorter), as master_event_tick and fmusim do. */
        rtcosim_time_ns end = m->start + ((t - m->start) / m->macro_step + 1) * m->macro_step;
        return master_single_rate_tick(m, (end < stop ? end : stop) - t, err);
    }
    if (m->single_rate && t + m->macro_step <= stop)
        return master_single_rate_tick(m, m->macro_step, err);
    plan_steps(m, t, stop, &variable_h);
    if (m->order == RTCOSIM_ORDER_JACOBI) {
        for (size_t a = 0; a < m->active_count; a++)
            if ((st = compute_inputs(m, &m->comps[m->active[a]], err)) != RTCOSIM_OK)
                return st;
        master_run_group(m, m->active, m->active_count);
        for (size_t a = 0; a < m->active_count; a++)
            if ((st = step_outcome(m, &m->comps[m->active[a]], err)) != RTCOSIM_OK)
                return st;
        if (m->discarded)
            return RTCOSIM_OK;
    } else {
        const size_t *active = m->active, n = m->active_count;
        for (size_t a = 0, end; a < n; a = end) {
            end = level_end(m, active, a, n);
            for (size_t b = a; b < end; b++)
                if ((st = compute_inputs(m, &m->comps[active[b]], err)) != RTCOSIM_OK)
                    return st;
            master_run_group(m, active + a, end - a);
            for (size_t b = a; b < end; b++) {
                master_component *mc = &m->comps[active[b]];
                if ((st = step_outcome(m, mc, err)) != RTCOSIM_OK)
                    return st;
                if (m->discarded)
                    return RTCOSIM_OK;
                if ((st = master_publish_at(m, active[b], mc->next_time, err)) != RTCOSIM_OK)
                    return st;
                if (m->discarded) /* over ranks: learnt with the exchange */
                    return RTCOSIM_OK;
            }
        }
    }
    rtcosim_time_ns next = RTCOSIM_TIME_MAX;
    for (size_t c = 0; c < m->comp_count; c++)
        if (m->comps[c].next_time < next)
            next = m->comps[c].next_time;
    if (m->order == RTCOSIM_ORDER_JACOBI) {
        /* The components at their communication point publish (multi-rate:
         * only they, so that values cross ranks only at these steps). */
        size_t *list = m->publish_list, n = 0;
        for (size_t i = 0; i < m->comp_count; i++)
            if (m->comps[m->order_list[i]].next_time == next)
                list[n++] = m->order_list[i];
        if ((st = publish_all(m, list, n, next, err)) != RTCOSIM_OK)
            return st;
        if (m->discarded) /* over ranks: learnt with the exchange */
            return RTCOSIM_OK;
    }
    m->time = next;
    double norm;
    if (m->step_control.enabled && tick_error_norm(m, &norm)) {
        /* A step cut short to land on a point (output, fixed component,
         * stop) says the controller's step was right, not that it should
         * shrink to the cut: its norm is scaled to the proposed step
         * (error ~ h^k) and the controller continues from that step. */
        rtcosim_time_ns proposed = m->adaptive_step;
        if (variable_h > 0 && variable_h < proposed) {
            norm *= pow((double)proposed / (double)variable_h, m->controller.opts.order);
            variable_h = proposed;
        }
        m->adaptive_step = rtcosim_step_controller_next(&m->controller, norm, variable_h);
        /* The reference of the (h / mean h)^2 weight: a mean over the last
         * ~100 mean steps of time (each step weighs by its length, so that a
         * step grown far past the mean pulls it along at once), which follows
         * the step exactly until the controller first reaches its target. */
        double hs = (double)variable_h * 1e-9;
        double weight = fmin(1.0, 0.01 * hs / m->step_mean);
        m->step_mean = m->controller.settled ? m->step_mean + weight * (hs - m->step_mean) : hs;
    }
    return RTCOSIM_OK;
}

/* One tick, and the smallest and largest tick taken (the run summary). */
rtcosim_status master_tick(rtcosim_master *m, rtcosim_time_ns stop, rtcosim_error *err)
{
    rtcosim_time_ns t = m->time;
    rtcosim_status st = tick(m, stop, err);
    rtcosim_time_ns dt = m->time - t;
    if (st == RTCOSIM_OK && dt > 0) {
        if (m->min_tick == 0 || dt < m->min_tick)
            m->min_tick = dt;
        if (dt > m->max_tick)
            m->max_tick = dt;
    }
    return st;
}
