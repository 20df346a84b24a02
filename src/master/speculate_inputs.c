/* The inputs of one step of a speculating (or conservative) LP, formed with
 * the plain master's arithmetic (step.c: compute_inputs, refresh_inputs,
 * sample_value), so that a step whose samples equal the real ones gives
 * bit-identical inputs; samples come from the producers' output rings or,
 * where not arrived, from the LP's prediction curve. */
#include <string.h>

#include "master/speculate_internal.h"

/* The exchanged sample of a Float64 connection at producer output k, as
 * step.c's sample_value forms it. */
double spec_sample_at(const spec_run *run, const master_connection *k, uint64_t output)
{
    const spec_lp *p = &run->lps[k->from];
    double y;
    memcpy(&y, spec_ring_slot(p, output) + p->out_offset[RTCOSIM_TYPE_FLOAT64] + k->out_slot * sizeof y,
           sizeof y);
    return k->opts.has_transformation ? k->opts.factor * y + k->opts.offset : y;
}

void spec_copy_raw_at(const spec_run *run, const master_connection *k, uint64_t output)
{
    const spec_lp *p = &run->lps[k->from];
    const size_t elem = rtcosim_type_size(k->type);
    unsigned char *dst = run->m->comps[k->to].in[k->type].values + k->in_slot * elem;
    memcpy(dst, spec_ring_slot(p, output) + p->out_offset[k->type] + k->out_slot * elem, elem);
    master_map_value(k, dst); /* as step.c's copy_raw */
}

/* The exchanged samples of connection `slot` of stream st up to producer
 * output j, oldest first, as the plain master's history holds them (at most
 * HISTORY_LEN): real ones where they have arrived, else the curve's. */
size_t spec_history_at(const spec_run *run, const spec_stream *st, size_t slot, uint64_t j,
                         rtcosim_time_ns *ts, double *ys)
{
    const master_connection *k = &run->m->conns[st->conns[slot]];
    const size_t n = j + 1 < HISTORY_LEN ? (size_t)j + 1 : HISTORY_LEN;
    for (size_t i = 0; i < n; i++) {
        const uint64_t index = j + 1 - n + i;
        ts[i] = run->t0 + (rtcosim_time_ns)(index * st->producer_multiple) * run->h;
        ys[i] = index < st->arrived ? spec_sample_at(run, k, index)
                                    : rtcosim_predictor_values_at(st->predictor, index)[slot];
    }
    return n;
}

/* The input of a polynomial (FOH/SOH) connection without correction over the
 * step [t, t + hs], with step.c's arithmetic (master_poly_input). */
void spec_poly_input(master_component *mc, const master_connection *k, const spec_stream *st,
                       const rtcosim_time_ns *ts, const double *ys, size_t n, rtcosim_time_ns t,
                       double hs)
{
    /* A slower producer's signal is held under the hold rule (coupling.h). */
    const bool hold = k->opts.multirate == RTCOSIM_MULTIRATE_HOLD &&
                      st->producer_multiple > st->consumer_multiple;
    rtcosim_poly p;
    if (n == 1 || hold)
        p = (rtcosim_poly){{ys[n - 1], 0, 0}};
    else
        rtcosim_poly_fit(k->opts.extrapolation, ts, ys, n, t, &p);
    master_poly_input(mc, k, &p, hs, -0.0);
}

/* Set the batched inputs, and the input derivatives of a component that
 * takes them from polynomial connections (every step: a restored state does
 * not carry the derivatives set before; zeros equal none). */
rtcosim_status spec_set_inputs(master_component *mc, rtcosim_error *err)
{
    for (unsigned i = 0; i < mc->in_type_count; i++) {
        const unsigned t = mc->in_types[i];
        rtcosim_status st = rtcosim_component_set(mc->c, (rtcosim_type)t, mc->in[t].vrs,
                                                  mc->in[t].n, mc->in[t].values, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

rtcosim_status spec_set_step_inputs(master_component *mc, rtcosim_error *err)
{
    rtcosim_status st = spec_set_inputs(mc, err);
    if (st != RTCOSIM_OK || !mc->polynomial_inputs)
        return st;
    const typed_batch *f = &mc->in[RTCOSIM_TYPE_FLOAT64];
    if ((st = rtcosim_component_set_input_derivatives(mc->c, f->vrs, f->n, 1, mc->d1, err)) != RTCOSIM_OK)
        return st;
    if (mc->derivative_order >= 2)
        st = rtcosim_component_set_input_derivatives(mc->c, f->vrs, f->n, 2, mc->d2, err);
    return st;
}
