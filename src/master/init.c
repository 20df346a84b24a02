/* The master's initialization: per-component value batches, start values,
 * step checks, coupling setup, and the propagation of values through the
 * connections until they are consistent. Everything the hot path needs is
 * sized and resolved here. */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "master/master_internal.h"
#include "rtcosim/log.h"

#define INIT_MAX_PASSES 100

static size_t batch_slot(typed_batch *b, uint32_t vr, size_t elem, bool *fail)
{
    for (size_t i = 0; i < b->n; i++)
        if (b->vrs[i] == vr)
            return i;
    size_t old = b->cap;
    if (!master_grow((void **)&b->vrs, &b->cap, b->n + 1, sizeof *b->vrs)) {
        *fail = true;
        return 0;
    }
    if (b->cap != old) {
        unsigned char *v = realloc(b->values, b->cap * elem);
        if (!v) {
            *fail = true;
            return 0;
        }
        memset(v + old * elem, 0, (b->cap - old) * elem);
        b->values = v;
    }
    b->vrs[b->n] = vr;
    return b->n++;
}

/* Some exported FMUs refuse fmi3Get* of their inputs or structural
 * parameters; importers record only what they give. Each such observed
 * variable (no connection reads it) is tried once in Initialization Mode: a
 * refusal is a warning, and the variable leaves its out batch (the slots
 * behind it move up), so that no step asks for it again. */
static void drop_refused_observed(rtcosim_master *m)
{
    for (size_t i = 0; i < m->observed_count; i++) {
        master_observed *o = &m->observed[i];
        const rtcosim_variable *v = o->conn >= 0 ? NULL : master_var_of(m, o->comp, o->var);
        if (!v || (v->causality != RTCOSIM_CAUSALITY_INPUT &&
                   v->causality != RTCOSIM_CAUSALITY_STRUCTURAL_PARAMETER))
            continue;
        bool read_by_connection = false;
        for (size_t k = 0; k < m->conn_count; k++)
            read_by_connection |= m->conns[k].from == o->comp && m->conns[k].from_var == o->var;
        typed_batch *b = &m->comps[o->comp].out[v->type];
        size_t size = rtcosim_type_size(v->type);
        rtcosim_error own = {0};
        if (read_by_connection ||
            rtcosim_component_try_get(m->comps[o->comp].c, v->type, &b->vrs[o->slot], 1,
                                      b->values + o->slot * size, &own) != RTCOSIM_ECOMPONENT)
            continue;
        rtcosim_log(RTCOSIM_LOG_WARNING, "master",
                    "%s: the FMU refuses to give %s '%s' (%s); it is not recorded", o->name,
                    v->causality == RTCOSIM_CAUSALITY_INPUT ? "input" : "structural parameter",
                    v->name, own.message);
        size_t gone = o->slot;
        memmove(&b->vrs[gone], &b->vrs[gone + 1], (b->n - gone - 1) * sizeof *b->vrs);
        memmove(b->values + gone * size, b->values + (gone + 1) * size, (b->n - gone - 1) * size);
        b->n--;
        o->refused = true;
        for (size_t k = 0; k < m->conn_count; k++)
            if (m->conns[k].from == o->comp && m->conns[k].type == v->type &&
                m->conns[k].out_slot > gone)
                m->conns[k].out_slot--;
        for (size_t j = 0; j < m->observed_count; j++) {
            master_observed *p = &m->observed[j];
            if (p->conn < 0 && !p->refused && p->comp == o->comp &&
                master_var_of(m, p->comp, p->var)->type == v->type) {
                p->refused = p->slot == gone; /* the same variable observed twice */
                p->slot -= p->slot > gone;
            }
        }
    }
}

static rtcosim_status build_batches(rtcosim_master *m, rtcosim_error *err)
{
    bool fail = false;
    if (!m->observe_explicit)
        for (size_t c = 0; c < m->comp_count && !fail; c++)
            for (size_t v = 0; v < rtcosim_component_variable_count(m->comps[c].c); v++) {
                const rtcosim_variable *var = master_var_of(m, c, v);
                if (var->causality == RTCOSIM_CAUSALITY_OUTPUT && rtcosim_type_is_numeric(var->type) &&
                    master_add_observed(m, c, v, err) != RTCOSIM_OK)
                    return RTCOSIM_ENOMEM;
            }
    for (size_t i = 0; i < m->conn_count && !fail; i++) {
        master_connection *k = &m->conns[i];
        size_t elem = rtcosim_type_size(k->type);
        k->out_slot = batch_slot(&m->comps[k->from].out[k->type], master_var_of(m, k->from, k->from_var)->value_reference,
                                 elem, &fail);
        k->in_slot = batch_slot(&m->comps[k->to].in[k->type], master_var_of(m, k->to, k->to_var)->value_reference,
                                elem, &fail);
    }
    for (size_t i = 0; i < m->observed_count && !fail; i++) {
        master_observed *o = &m->observed[i];
        if (o->conn >= 0)
            continue;
        const rtcosim_variable *v = master_var_of(m, o->comp, o->var);
        o->slot = batch_slot(&m->comps[o->comp].out[v->type], v->value_reference,
                             rtcosim_type_size(v->type), &fail);
    }
    for (size_t c = 0; c < m->comp_count && !fail; c++) {
        master_component *mc = &m->comps[c];
        size_t nf = mc->in[RTCOSIM_TYPE_FLOAT64].n;
        mc->d1 = calloc(nf ? nf : 1, sizeof(double));
        mc->d2 = calloc(nf ? nf : 1, sizeof(double));
        mc->conns_in = calloc(m->conn_count ? m->conn_count : 1, sizeof(size_t));
        mc->conns_out = calloc(m->conn_count ? m->conn_count : 1, sizeof(size_t));
        fail = !mc->d1 || !mc->d2 || !mc->conns_in || !mc->conns_out;
        for (int t = 0; t < RTCOSIM_TYPE_COUNT_; t++) {
            if (mc->out[t].n)
                mc->out_types[mc->out_type_count++] = (unsigned char)t;
            if (mc->in[t].n) {
                mc->in_types[mc->in_type_count++] = (unsigned char)t;
                mc->in_type_mask |= 1u << t;
            }
        }
        for (size_t i = 0; i < m->conn_count && !fail; i++) {
            if (m->conns[i].to == c)
                mc->conns_in[mc->conns_in_count++] = i;
            if (m->conns[i].from == c && m->conns[i].continuous)
                mc->conns_out[mc->conns_out_count++] = i;
        }
    }
    m->observed_values = calloc(m->observed_count ? m->observed_count : 1, sizeof(double));
    if (!m->order_list) /* (rtcosim_master_plan_order may have made it) */
        m->order_list = calloc(m->comp_count, sizeof(size_t));
    m->active = calloc(m->comp_count, sizeof(size_t));
    m->publish_list = calloc(m->comp_count, sizeof(size_t));
    if (fail || !m->observed_values || !m->order_list || !m->active || !m->publish_list)
        return master_oom(err);
    return RTCOSIM_OK;
}

/* FMI 3.0 early return (step.c): the components instantiated with
 * earlyReturnAllowed. Their steps end where they returned and the others
 * follow them there, which needs every component on the base step and one
 * process (as Event Mode does). */
static rtcosim_status early_return_init(rtcosim_master *m, rtcosim_error *err)
{
    m->returner_count = 0;
    const char *first = NULL;
    for (size_t c = 0; c < m->comp_count; c++) {
        master_component *mc = &m->comps[c];
        mc->returns_early = rtcosim_component_capabilities(mc->c)->early_return_allowed;
        if (mc->returns_early && !first)
            first = mc->name;
        m->returner_count += mc->returns_early;
    }
    if (!m->returner_count)
        return RTCOSIM_OK;
    if (!m->single_rate || m->xchg)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                 "master: component '%s' may return early (earlyReturnAllowed), "
                                 "which needs every component on the base macro step, without "
                                 "step control and in one process",
                                 first);
    for (size_t c = 0; c < m->comp_count; c++)
        if (!m->comps[c].can_vary)
            return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                     "master: component '%s' may return early, but '%s' cannot "
                                     "vary its step (canHandleVariableCommunicationStepSize): "
                                     "the others could not follow it to lastSuccessfulTime",
                                     first, m->comps[c].name);
    m->returned = calloc(m->comp_count, sizeof *m->returned);
    m->rest = calloc(m->comp_count, sizeof *m->rest);
    return m->returned && m->rest ? RTCOSIM_OK : master_oom(err);
}

static rtcosim_status get_outputs(rtcosim_master *m, size_t c, rtcosim_error *err)
{
    master_component *mc = &m->comps[c];
    for (int t = 0; t < RTCOSIM_TYPE_COUNT_; t++)
        if (mc->out[t].n) {
            rtcosim_status st = rtcosim_component_get(mc->c, (rtcosim_type)t, mc->out[t].vrs,
                                                      mc->out[t].n, mc->out[t].values, err);
            if (st == RTCOSIM_OK && master_type_owned((rtcosim_type)t))
                st = master_text_keep_all(mc, (rtcosim_type)t, err);
            if (st != RTCOSIM_OK)
                return st;
        }
    return RTCOSIM_OK;
}

static rtcosim_status set_inputs_raw(rtcosim_master *m, size_t c, rtcosim_error *err)
{
    master_component *mc = &m->comps[c];
    for (int t = 0; t < RTCOSIM_TYPE_COUNT_; t++)
        if (mc->in[t].n) {
            rtcosim_status st = rtcosim_component_set(mc->c, (rtcosim_type)t, mc->in[t].vrs,
                                                      mc->in[t].n, mc->in[t].values, err);
            if (st != RTCOSIM_OK)
                return st;
        }
    return RTCOSIM_OK;
}

/* Copy a connection's producer value into the consumer's input slot; return
 * the size of the change (0 when unchanged, -1 out of memory). */
static double propagate(rtcosim_master *m, master_connection *k)
{
    size_t elem = rtcosim_type_size(k->type);
    const unsigned char *src = m->comps[k->from].out[k->type].values + k->out_slot * elem;
    unsigned char *dst = m->comps[k->to].in[k->type].values + k->in_slot * elem;
    if (k->continuous) {
        double y;
        memcpy(&y, src, sizeof y);
        if (k->opts.has_transformation)
            y = k->opts.factor * y + k->opts.offset;
        double old;
        memcpy(&old, dst, sizeof old);
        memcpy(dst, &y, sizeof y);
        if (y == old)
            return 0;
        double change = fabs(y - old);
        return change > 1e-12 * (1.0 + fabs(old)) || isnan(change) ? (isnan(change) ? INFINITY : change)
                                                                     : 0;
    }
    if (master_type_owned(k->type))
        return master_text_deliver(&m->comps[k->to], k->type, k->in_slot, src);
    unsigned char mapped[16];
    memcpy(mapped, src, elem);
    master_map_value(k, mapped);
    if (memcmp(dst, mapped, elem) == 0)
        return 0;
    memcpy(dst, mapped, elem);
    return 1;
}

/* Initialization mode: Gauss-Seidel passes over the components, each taking
 * its producers' current outputs and recomputing its own, until a whole pass
 * changes nothing (values consistent through every connection). */
static rtcosim_status propagate_initial_values(rtcosim_master *m, rtcosim_error *err)
{
    rtcosim_status st;
    for (size_t c = 0; c < m->comp_count; c++)
        if ((st = get_outputs(m, c, err)) != RTCOSIM_OK)
            return st;
    for (int pass = 0; pass < INIT_MAX_PASSES; pass++) {
        double worst = 0;
        size_t worst_conn = 0;
        for (size_t c = 0; c < m->comp_count; c++) {
            bool changed = false;
            for (size_t i = 0; i < m->conn_count; i++) {
                if (m->conns[i].to != c)
                    continue;
                double change = propagate(m, &m->conns[i]);
                if (change < 0)
                    return master_oom(err);
                if (change > 0)
                    changed = true;
                if (change > worst) {
                    worst = change;
                    worst_conn = i;
                }
            }
            if (changed && ((st = set_inputs_raw(m, c, err)) != RTCOSIM_OK ||
                            (st = get_outputs(m, c, err)) != RTCOSIM_OK))
                return st;
        }
        if (worst == 0)
            return RTCOSIM_OK;
        if (pass == INIT_MAX_PASSES - 1)
            return rtcosim_error_set(err, RTCOSIM_ELOOP,
                                     "initialization did not converge after %d passes: connection "
                                     "%s still changes by %g", INIT_MAX_PASSES,
                                     m->conns[worst_conn].name, worst);
    }
    return RTCOSIM_OK;
}

/* Start values of one component (comp < SIZE_MAX) or all, either of its
 * inputs (set in initialization mode) or of everything else (set before it,
 * as fmusim and `rtcosim simulate` do: a parameter must reach the FMU before
 * fmi2EnterInitializationMode / fmi3EnterInitializationMode acts on it). */
static rtcosim_status apply_start_values(rtcosim_master *m, size_t comp, bool inputs,
                                         rtcosim_error *err)
{
    for (size_t i = 0; i < m->start_count; i++) {
        const master_start_value *s = &m->starts[i];
        const rtcosim_variable *v = master_var_of(m, s->comp, s->var);
        if ((comp != SIZE_MAX && s->comp != comp) ||
            (v->causality == RTCOSIM_CAUSALITY_INPUT) != inputs)
            continue;
        unsigned char slot[sizeof(rtcosim_value)];
        rtcosim_value_store(v->type, &s->value, slot);
        rtcosim_status st = rtcosim_component_set(m->comps[s->comp].c, v->type, &v->value_reference, 1,
                                                  slot, err);
        if (st != RTCOSIM_OK)
            return rtcosim_error_prefix(err, "start value for '%s.%s': ", m->comps[s->comp].name,
                                        v->name);
    }
    return RTCOSIM_OK;
}

static rtcosim_status check_steps(rtcosim_master *m, rtcosim_error *err)
{
    rtcosim_step_control *sc = &m->step_control;
    char names[200] = "";
    size_t refused = 0, used = 0;
    for (size_t c = 0; c < m->comp_count; c++) {
        master_component *mc = &m->comps[c];
        mc->can_vary = rtcosim_component_capabilities(mc->c)->can_handle_variable_step;
        int order = rtcosim_component_capabilities(mc->c)->max_input_derivative_order;
        mc->derivative_order = order > 2 ? 2 : (order < 0 ? 0 : order);
        mc->variable = sc->enabled && mc->multiple == RTCOSIM_MASTER_VARIABLE_STEP;
        if (mc->variable && !mc->can_vary) {
            /* Every one is named, so that one run tells what to change. */
            if (used < sizeof names)
                used += (size_t)snprintf(names + used, sizeof names - used, "%s'%s'",
                                         refused ? ", " : "", mc->name);
            refused++;
        }
        if (mc->multiple == 0)
            mc->multiple = 1;
    }
    if (refused)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "master: step control: component%s %s cannot handle variable "
                                 "communication steps (canHandleVariableCommunicationStepSize) "
                                 "but %s set to follow the adaptive macro step (give %s a fixed "
                                 "step, or run without step control)",
                                 refused > 1 ? "s" : "", names, refused > 1 ? "are" : "is",
                                 refused > 1 ? "them" : "it");
    if (sc->enabled) {
        if (sc->min_step == 0)
            sc->min_step = m->macro_step / 1000 > 0 ? m->macro_step / 1000 : 1;
        if (sc->max_step == 0)
            sc->max_step = 10 * m->macro_step;
        if (sc->resolution <= 0)
            sc->resolution = 1;
        if (sc->resolution > sc->min_step)
            sc->resolution = sc->min_step;
    }
    return RTCOSIM_OK;
}

/* The controller's order k (the norm ~ h^k) when not given: the mean
 * extrapolation error of a step is O(h^(p+1)) for a hold of order p, and a
 * corrected connection's norm carries (h / H0)^2 more (rtcosim/coupling.h);
 * the smallest k over the connections in the norm, so that no connection's
 * error grows faster than the controller expects. Power bonds (residual of
 * corrected signals) count as corrected first-order holds. */
static void setup_step_controller(rtcosim_master *m)
{
    rtcosim_step_control *sc = &m->step_control;
    if (!sc->enabled)
        return;
    if (!(sc->order > 0)) {
        double k = 0;
        for (size_t i = 0; i < m->conn_count; i++) {
            const master_connection *c = &m->conns[i];
            if (!c->continuous)
                continue;
            double ck = (double)c->opts.extrapolation + 1 +
                        (c->opts.correction != RTCOSIM_CORRECTION_NONE ? 2 : 0);
            if (k == 0 || ck < k)
                k = ck;
        }
        sc->order = k > 0 ? k : 2;
    }
    rtcosim_step_controller_init(&m->controller, sc);
}

static void setup_couplings(rtcosim_master *m)
{
    for (size_t i = 0; i < m->conn_count; i++) {
        master_connection *k = &m->conns[i];
        if (k->default_opts)
            k->opts = m->defaults;
        if (!k->continuous)
            k->opts.correction = RTCOSIM_CORRECTION_NONE;
        k->zoh = k->continuous && k->opts.extrapolation == RTCOSIM_EXTRAPOLATION_ZOH;
        if (k->continuous && !k->zoh && m->comps[k->to].derivative_order >= 1)
            m->comps[k->to].polynomial_inputs = true;
        k->quadratic = k->opts.quadrature == RTCOSIM_QUADRATURE_QUADRATIC ||
                       (k->opts.quadrature == RTCOSIM_QUADRATURE_AUTO &&
                        k->opts.extrapolation != RTCOSIM_EXTRAPOLATION_ZOH);
    }
    /* A power bond conserves energy to first order only when both of its
     * signals are corrected (see step.c): give the uncorrected side the
     * other side's correction system. */
    for (size_t b = 0; b < m->bond_count; b++) {
        master_connection *e = &m->conns[m->bonds[b].effort], *f = &m->conns[m->bonds[b].flow];
        if (e->opts.correction == RTCOSIM_CORRECTION_NONE)
            e->opts.correction = f->opts.correction;
        if (f->opts.correction == RTCOSIM_CORRECTION_NONE)
            f->opts.correction = e->opts.correction;
        e->bonded = f->bonded = true;
    }
    for (size_t i = 0; i < m->conn_count; i++) {
        master_connection *k = &m->conns[i];
        double factor = k->opts.stability_factor > 0 ? k->opts.stability_factor : 1.0;
        rtcosim_correction_init(&k->corr, k->opts.correction,
                                factor * rtcosim_time_to_seconds(m->macro_step));
    }
}

rtcosim_status rtcosim_master_initialize(rtcosim_master *m, rtcosim_time_ns start,
                                         rtcosim_time_ns stop, rtcosim_error *err)
{
    rtcosim_status st = master_after_init(m, "initialize", err);
    if (st != RTCOSIM_OK)
        return st;
    if (m->failed)
        return rtcosim_error_set(err, RTCOSIM_ESTATE, "master: an earlier initialize failed");
    if (m->comp_count == 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "master: no components");
    if (stop >= 0 && stop < start)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "master: stop time before start time");
    m->failed = true; /* until everything below succeeds */
    if ((st = check_steps(m, err)) != RTCOSIM_OK || (st = master_exchange_check(m, err)) != RTCOSIM_OK ||
        (st = build_batches(m, err)) != RTCOSIM_OK)
        return st;
    setup_couplings(m);
    setup_step_controller(m);
    for (size_t c = 0; c < m->comp_count; c++) {
        master_component *mc = &m->comps[c];
        if ((st = rtcosim_component_instantiate(mc->c, mc->name, err)) != RTCOSIM_OK ||
            (st = rtcosim_component_setup(mc->c, m->tolerance, start, stop, err)) != RTCOSIM_OK ||
            (st = apply_start_values(m, c, false, err)) != RTCOSIM_OK ||
            (st = rtcosim_component_enter_init(mc->c, err)) != RTCOSIM_OK)
            return st;
    }
    drop_refused_observed(m);
    if ((st = apply_start_values(m, SIZE_MAX, true, err)) != RTCOSIM_OK ||
        (st = propagate_initial_values(m, err)) != RTCOSIM_OK)
        return st;
    for (size_t c = 0; c < m->comp_count; c++)
        if ((st = rtcosim_component_exit_init(m->comps[c].c, err)) != RTCOSIM_OK)
            return st;
    if ((st = master_resolve_order(m, err)) != RTCOSIM_OK)
        return st;
    if (m->order == RTCOSIM_ORDER_GAUSS_SEIDEL)
        master_gs_levels(m);
    m->start = m->time = start;
    m->stop = stop;
    m->adaptive_step = m->macro_step;
    m->step_mean = (double)m->macro_step * 1e-9;
    m->single_rate = !m->step_control.enabled;
    for (size_t c = 0; c < m->comp_count; c++) {
        m->comps[c].next_time = start;
        m->comps[c].step_start = start;
        m->single_rate = m->single_rate && m->comps[c].multiple == 1;
        m->active[c] = m->order_list[c];
    }
    m->active_count = m->comp_count;
    for (size_t i = 0; i < m->conn_count; i++) {
        master_connection *k = &m->conns[i];
        k->recon_from = k->true_to = k->est_to = start;
    }
    if ((st = master_exchange_create(m, err)) != RTCOSIM_OK)
        return st;
    if (m->xchg)
        st = master_exchange_publish(m, m->order_list, m->comp_count, start, err);
    for (size_t i = 0; !m->xchg && st == RTCOSIM_OK && i < m->comp_count; i++)
        st = master_publish_at(m, m->order_list[i], start, err);
    if (st == RTCOSIM_OK)
        st = early_return_init(m, err);
    if (st == RTCOSIM_OK)
        st = master_events_init(m, err);
    if (st != RTCOSIM_OK || (st = master_sched_init(m, err)) != RTCOSIM_OK)
        return st;
    m->failed = false;
    m->initialized = true;
    return RTCOSIM_OK;
}

