/* The master's builder API and initialization: components, connections with
 * their checks, options, start values, observed variables, and the
 * initialization that propagates values through the connections until they
 * are consistent. Everything the hot path needs is sized and resolved here. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "master/master_internal.h"
#include "rtcosim/log.h"
#include "rtcosim/native.h"

#define INIT_MAX_PASSES 100

static bool grow(void **array, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t n = *cap ? *cap * 2 : 8;
    while (n < need)
        n *= 2;
    void *p = realloc(*array, n * elem);
    if (!p)
        return false;
    memset((char *)p + *cap * elem, 0, (n - *cap) * elem);
    *array = p;
    *cap = n;
    return true;
}

static rtcosim_status oom(rtcosim_error *err)
{
    return rtcosim_error_set(err, RTCOSIM_ENOMEM, "master: out of memory");
}

static rtcosim_status after_init(const rtcosim_master *m, const char *call, rtcosim_error *err)
{
    return m->initialized ? rtcosim_error_set(err, RTCOSIM_ESTATE,
                                              "master: %s is not allowed after initialize", call)
                          : RTCOSIM_OK;
}

rtcosim_status rtcosim_master_create(rtcosim_time_ns macro_step, rtcosim_master **out,
                                     rtcosim_error *err)
{
    *out = NULL;
    if (macro_step <= 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "master: macro step %" PRId64 " ns is not positive", macro_step);
    rtcosim_master *m = calloc(1, sizeof *m);
    if (!m)
        return oom(err);
    m->macro_step = macro_step;
    m->threads = 1;
    m->thread_fallback = true;
    rtcosim_coupling_options_init(&m->defaults);
    rtcosim_step_control_init(&m->step_control);
    *out = m;
    return RTCOSIM_OK;
}

static void batch_free(typed_batch *b)
{
    free(b->vrs);
    free(b->values);
}

void rtcosim_master_free(rtcosim_master *m)
{
    if (!m)
        return;
    master_sched_free(m);
    for (size_t i = 0; i < m->comp_count; i++) {
        master_component *mc = &m->comps[i];
        rtcosim_component_free(mc->c);
        free(mc->name);
        for (int t = 0; t < RTCOSIM_TYPE_COUNT_; t++) {
            batch_free(&mc->out[t]);
            batch_free(&mc->in[t]);
        }
        free(mc->d1);
        free(mc->d2);
        free(mc->conns_in);
        free(mc->conns_out);
    }
    for (size_t i = 0; i < m->conn_count; i++)
        free(m->conns[i].name);
    for (size_t i = 0; i < m->start_count; i++)
        free(m->starts[i].text);
    for (size_t i = 0; i < m->feed_count; i++)
        free(m->feeds[i].inputs);
    for (size_t i = 0; i < m->observed_count; i++)
        free(m->observed[i].name);
    free(m->comps);
    free(m->conns);
    free(m->bonds);
    free(m->starts);
    free(m->feeds);
    free(m->observed);
    free(m->observed_values);
    free(m->order_list);
    free(m->active);
    free(m);
}

static int find_component(const rtcosim_master *m, const char *name, size_t len)
{
    for (size_t i = 0; i < m->comp_count; i++)
        if (strlen(m->comps[i].name) == len && strncmp(m->comps[i].name, name, len) == 0)
            return (int)i;
    return -1;
}

rtcosim_status rtcosim_master_add_component(rtcosim_master *m, const char *name,
                                            rtcosim_component *component, unsigned step_multiple,
                                            rtcosim_error *err)
{
    rtcosim_status st = after_init(m, "add_component", err);
    if (st == RTCOSIM_OK && (!name || !*name || strchr(name, '.')))
        st = rtcosim_error_set(err, RTCOSIM_EINVAL,
                               "master: component name '%s' is empty or contains '.'",
                               name ? name : "");
    if (st == RTCOSIM_OK && !component)
        st = rtcosim_error_set(err, RTCOSIM_EINVAL, "master: component '%s' is NULL", name);
    if (st == RTCOSIM_OK && find_component(m, name, strlen(name)) >= 0)
        st = rtcosim_error_set(err, RTCOSIM_EINVAL, "master: duplicate component name '%s'", name);
    if (st == RTCOSIM_OK && !grow((void **)&m->comps, &m->comp_cap, m->comp_count + 1,
                                  sizeof *m->comps))
        st = oom(err);
    char *copy = st == RTCOSIM_OK ? strdup(name) : NULL;
    if (st == RTCOSIM_OK && !copy)
        st = oom(err);
    if (st != RTCOSIM_OK) {
        rtcosim_component_free(component);
        return st;
    }
    master_component *mc = &m->comps[m->comp_count++];
    memset(mc, 0, sizeof *mc);
    mc->name = copy;
    mc->c = component;
    mc->multiple = step_multiple;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_master_set_component_step(rtcosim_master *m, const char *name,
                                                 rtcosim_time_ns step, rtcosim_error *err)
{
    rtcosim_status st = after_init(m, "set_component_step", err);
    if (st != RTCOSIM_OK)
        return st;
    int i = name ? find_component(m, name, strlen(name)) : -1;
    if (i < 0)
        return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "master: no component '%s'",
                                 name ? name : "");
    if (step <= 0 || step % m->macro_step != 0 || step / m->macro_step > UINT32_MAX)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "master: component '%s': step %.9g s is not a positive integer "
                                 "multiple of the macro step %.9g s", name,
                                 rtcosim_time_to_seconds(step),
                                 rtcosim_time_to_seconds(m->macro_step));
    m->comps[i].multiple = (unsigned)(step / m->macro_step);
    return RTCOSIM_OK;
}

/* Resolve "comp.var" to indices; errors name the text and what is missing. */
static rtcosim_status resolve(const rtcosim_master *m, const char *what, const char *text,
                              size_t *comp, size_t *var, rtcosim_error *err)
{
    const char *dot = text ? strchr(text, '.') : NULL;
    if (!dot)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "%s: '%s' is not of the form component.variable", what,
                                 text ? text : "");
    int ci = find_component(m, text, (size_t)(dot - text));
    if (ci < 0)
        return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "%s: no component '%.*s'", what,
                                 (int)(dot - text), text);
    const rtcosim_variable *v = rtcosim_component_find_variable(m->comps[ci].c, dot + 1);
    if (!v)
        return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "%s: component '%s' has no variable '%s'",
                                 what, m->comps[ci].name, dot + 1);
    *comp = (size_t)ci;
    *var = (size_t)(v - rtcosim_component_variable(m->comps[ci].c, 0));
    return RTCOSIM_OK;
}

static const rtcosim_variable *var_of(const rtcosim_master *m, size_t comp, size_t var)
{
    return rtcosim_component_variable(m->comps[comp].c, var);
}

static bool is_type_connectable(rtcosim_type t)
{
    return rtcosim_type_is_numeric(t);
}

rtcosim_status rtcosim_master_connect(rtcosim_master *m, const char *from, const char *to,
                                      const rtcosim_coupling_options *opts, rtcosim_error *err)
{
    rtcosim_status st = after_init(m, "connect", err);
    if (st != RTCOSIM_OK)
        return st;
    char what[300];
    snprintf(what, sizeof what, "connection %s -> %s", from ? from : "?", to ? to : "?");
    size_t fc, fv, tc, tv;
    if ((st = resolve(m, what, from, &fc, &fv, err)) != RTCOSIM_OK ||
        (st = resolve(m, what, to, &tc, &tv, err)) != RTCOSIM_OK)
        return st;
    const rtcosim_variable *a = var_of(m, fc, fv), *b = var_of(m, tc, tv);
    if (a->causality != RTCOSIM_CAUSALITY_OUTPUT)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: '%s' is not an output (it is %s)", what,
                                 from, rtcosim_causality_name(a->causality));
    if (b->causality != RTCOSIM_CAUSALITY_INPUT)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: '%s' is not an input (it is %s)", what,
                                 to, rtcosim_causality_name(b->causality));
    if (a->type != b->type)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: incompatible types %s and %s", what,
                                 rtcosim_type_name(a->type), rtcosim_type_name(b->type));
    if (!is_type_connectable(a->type))
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                 "%s: %s variables cannot be connected", what,
                                 rtcosim_type_name(a->type));
    bool transform = opts && opts->has_transformation;
    if (transform && a->type != RTCOSIM_TYPE_FLOAT64)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "%s: a linear transformation needs Float64 variables", what);
    if (a->unit && b->unit && *a->unit && *b->unit && strcmp(a->unit, b->unit) != 0 && !transform)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "%s: units differ ('%s' and '%s') and no transformation is given",
                                 what, a->unit, b->unit);
    if (opts && ((unsigned)opts->extrapolation > RTCOSIM_EXTRAPOLATION_SOH ||
                 (unsigned)opts->correction > RTCOSIM_CORRECTION_INTEGRATOR ||
                 (unsigned)opts->multirate > RTCOSIM_MULTIRATE_HOLD ||
                 (unsigned)opts->quadrature > RTCOSIM_QUADRATURE_QUADRATIC))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: invalid coupling options", what);
    for (size_t i = 0; i < m->conn_count; i++)
        if (m->conns[i].to == tc && m->conns[i].to_var == tv)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: input '%s' is already connected (%s)",
                                     what, to, m->conns[i].name);
    if (!grow((void **)&m->conns, &m->conn_cap, m->conn_count + 1, sizeof *m->conns))
        return oom(err);
    char *name = strdup(what + strlen("connection "));
    if (!name)
        return oom(err);
    master_connection *c = &m->conns[m->conn_count++];
    memset(c, 0, sizeof *c);
    c->name = name;
    c->from = fc;
    c->from_var = fv;
    c->to = tc;
    c->to_var = tv;
    c->type = a->type;
    c->continuous = a->type == RTCOSIM_TYPE_FLOAT64;
    c->default_opts = opts == NULL;
    if (opts)
        c->opts = *opts;
    return RTCOSIM_OK;
}

static int find_connection_to(const rtcosim_master *m, size_t comp, size_t var)
{
    for (size_t i = 0; i < m->conn_count; i++)
        if (m->conns[i].to == comp && m->conns[i].to_var == var)
            return (int)i;
    return -1;
}

rtcosim_status rtcosim_master_add_power_bond(rtcosim_master *m, const char *effort_input,
                                             const char *flow_input, rtcosim_error *err)
{
    rtcosim_status st = after_init(m, "add_power_bond", err);
    if (st != RTCOSIM_OK)
        return st;
    size_t ec, ev, fc, fv;
    if ((st = resolve(m, "power bond", effort_input, &ec, &ev, err)) != RTCOSIM_OK ||
        (st = resolve(m, "power bond", flow_input, &fc, &fv, err)) != RTCOSIM_OK)
        return st;
    int e = find_connection_to(m, ec, ev), f = find_connection_to(m, fc, fv);
    if (e < 0 || f < 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "power bond: input '%s' is not connected",
                                 e < 0 ? effort_input : flow_input);
    if (!m->conns[e].continuous || !m->conns[f].continuous)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "power bond %s / %s: both connections must be Float64",
                                 effort_input, flow_input);
    if (!(m->conns[e].from == m->conns[f].to && m->conns[f].from == m->conns[e].to))
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "power bond %s / %s: the effort and flow connections must run in "
                                 "opposite directions between the same two components",
                                 effort_input, flow_input);
    if (!grow((void **)&m->bonds, &m->bond_cap, m->bond_count + 1, sizeof *m->bonds))
        return oom(err);
    master_bond *b = &m->bonds[m->bond_count++];
    memset(b, 0, sizeof *b);
    b->effort = (size_t)e;
    b->flow = (size_t)f;
    return RTCOSIM_OK;
}

void rtcosim_master_set_order(rtcosim_master *m, rtcosim_order order) { m->order = order; }
void rtcosim_master_set_tolerance(rtcosim_master *m, double tolerance) { m->tolerance = tolerance; }

void rtcosim_master_set_coupling_defaults(rtcosim_master *m, const rtcosim_coupling_options *opts)
{
    if (opts)
        m->defaults = *opts;
    else
        rtcosim_coupling_options_init(&m->defaults);
}

rtcosim_status rtcosim_master_set_threads(rtcosim_master *m, unsigned threads, rtcosim_error *err)
{
    rtcosim_status st = after_init(m, "set_threads", err);
    if (st != RTCOSIM_OK)
        return st;
    if (threads > 256)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "master: %u threads is outside 1..256 (0: auto)", threads);
    m->threads_auto = threads == RTCOSIM_MASTER_THREADS_AUTO;
    m->threads = m->threads_auto ? 1 : threads;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_master_set_step_control(rtcosim_master *m, const rtcosim_step_control *sc,
                                               rtcosim_error *err)
{
    rtcosim_status st = after_init(m, "set_step_control", err);
    if (st != RTCOSIM_OK)
        return st;
    if (!sc)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "master: step control options are NULL");
    if (sc->enabled && (!(sc->rtol >= 0) || !(sc->atol >= 0) || (sc->rtol == 0 && sc->atol == 0) ||
                        sc->min_step < 0 || sc->max_step < 0 ||
                        (sc->max_step > 0 && sc->min_step > sc->max_step) ||
                        !(sc->safety > 0) || !(sc->max_increase >= 1) ||
                        !(sc->max_decrease > 0 && sc->max_decrease <= 1)))
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "master: step control: tolerances must be >= 0 and not both 0, "
                                 "0 <= min_step <= max_step, safety > 0, max_increase >= 1, "
                                 "0 < max_decrease <= 1");
    m->step_control = *sc;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_master_set_feedthrough(rtcosim_master *m, const char *output,
                                              const char *const *inputs, size_t n,
                                              rtcosim_error *err)
{
    rtcosim_status st = after_init(m, "set_feedthrough", err);
    if (st != RTCOSIM_OK)
        return st;
    size_t comp, var;
    if ((st = resolve(m, "feedthrough", output, &comp, &var, err)) != RTCOSIM_OK)
        return st;
    if (var_of(m, comp, var)->causality != RTCOSIM_CAUSALITY_OUTPUT)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "feedthrough: '%s' is not an output", output);
    size_t *list = calloc(n ? n : 1, sizeof *list);
    if (!list)
        return oom(err);
    for (size_t i = 0; i < n; i++) {
        const rtcosim_variable *v = inputs && inputs[i]
                                        ? rtcosim_component_find_variable(m->comps[comp].c, inputs[i])
                                        : NULL;
        if (!v || v->causality != RTCOSIM_CAUSALITY_INPUT) {
            free(list);
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "feedthrough of '%s': '%s' is not an input of component '%s'",
                                     output, inputs && inputs[i] ? inputs[i] : "", m->comps[comp].name);
        }
        list[i] = (size_t)(v - rtcosim_component_variable(m->comps[comp].c, 0));
    }
    if (!grow((void **)&m->feeds, &m->feed_cap, m->feed_count + 1, sizeof *m->feeds)) {
        free(list);
        return oom(err);
    }
    m->feeds[m->feed_count++] = (master_feedthrough){comp, var, list, n};
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_master_set_start_value(rtcosim_master *m, const char *name, const char *text,
                                              rtcosim_error *err)
{
    rtcosim_status st = after_init(m, "set_start_value", err);
    if (st != RTCOSIM_OK)
        return st;
    size_t comp, var;
    if ((st = resolve(m, "start value", name, &comp, &var, err)) != RTCOSIM_OK)
        return st;
    const rtcosim_variable *v = var_of(m, comp, var);
    if (!rtcosim_type_is_numeric(v->type) && v->type != RTCOSIM_TYPE_STRING)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "start value for '%s': %s not supported",
                                 name, rtcosim_type_name(v->type));
    char *copy = strdup(text ? text : "");
    if (!copy)
        return oom(err);
    rtcosim_value value;
    st = rtcosim_value_parse(v->type, copy, &value, err);
    if (st != RTCOSIM_OK) {
        free(copy);
        return rtcosim_error_prefix(err, "start value for '%s': ", name);
    }
    if (!grow((void **)&m->starts, &m->start_cap, m->start_count + 1, sizeof *m->starts)) {
        free(copy);
        return oom(err);
    }
    m->starts[m->start_count++] = (master_start_value){comp, var, value, copy};
    return RTCOSIM_OK;
}

static rtcosim_status add_observed(rtcosim_master *m, size_t comp, size_t var, rtcosim_error *err)
{
    if (!grow((void **)&m->observed, &m->observed_cap, m->observed_count + 1, sizeof *m->observed))
        return oom(err);
    const char *vn = var_of(m, comp, var)->name;
    size_t len = strlen(m->comps[comp].name) + strlen(vn) + 2;
    char *name = malloc(len);
    if (!name)
        return oom(err);
    snprintf(name, len, "%s.%s", m->comps[comp].name, vn);
    m->observed[m->observed_count++] = (master_observed){-1, comp, var, 0, name};
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_master_observe_coupling_error(rtcosim_master *m, const char *input,
                                                     rtcosim_error *err)
{
    rtcosim_status st = after_init(m, "observe_coupling_error", err);
    size_t comp, var;
    if (st != RTCOSIM_OK ||
        (st = resolve(m, "observed coupling error", input, &comp, &var, err)) != RTCOSIM_OK)
        return st;
    int k = find_connection_to(m, comp, var);
    if (k < 0 || !m->conns[k].continuous)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "observed coupling error: '%s' is not the input of a Float64 "
                                 "connection", input);
    if (!grow((void **)&m->observed, &m->observed_cap, m->observed_count + 1, sizeof *m->observed))
        return oom(err);
    size_t len = strlen(input) + sizeof ".coupling_error";
    char *name = malloc(len);
    if (!name)
        return oom(err);
    snprintf(name, len, "%s.coupling_error", input);
    m->observed[m->observed_count++] = (master_observed){k, comp, var, 0, name};
    m->observe_explicit = true;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_master_observe(rtcosim_master *m, const char *name, rtcosim_error *err)
{
    rtcosim_status st = after_init(m, "observe", err);
    if (st != RTCOSIM_OK)
        return st;
    size_t comp, var;
    if ((st = resolve(m, "observed variable", name, &comp, &var, err)) != RTCOSIM_OK)
        return st;
    if (!rtcosim_type_is_numeric(var_of(m, comp, var)->type))
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                 "observed variable '%s': only numeric variables can be observed", name);
    m->observe_explicit = true;
    return add_observed(m, comp, var, err);
}

/* ---- initialization ---- */

static size_t batch_slot(typed_batch *b, uint32_t vr, size_t elem, bool *fail)
{
    for (size_t i = 0; i < b->n; i++)
        if (b->vrs[i] == vr)
            return i;
    size_t old = b->cap;
    if (!grow((void **)&b->vrs, &b->cap, b->n + 1, sizeof *b->vrs)) {
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

static rtcosim_status build_batches(rtcosim_master *m, rtcosim_error *err)
{
    bool fail = false;
    if (!m->observe_explicit)
        for (size_t c = 0; c < m->comp_count && !fail; c++)
            for (size_t v = 0; v < rtcosim_component_variable_count(m->comps[c].c); v++) {
                const rtcosim_variable *var = var_of(m, c, v);
                if (var->causality == RTCOSIM_CAUSALITY_OUTPUT && rtcosim_type_is_numeric(var->type) &&
                    add_observed(m, c, v, err) != RTCOSIM_OK)
                    return RTCOSIM_ENOMEM;
            }
    for (size_t i = 0; i < m->conn_count && !fail; i++) {
        master_connection *k = &m->conns[i];
        size_t elem = rtcosim_type_size(k->type);
        k->out_slot = batch_slot(&m->comps[k->from].out[k->type], var_of(m, k->from, k->from_var)->value_reference,
                                 elem, &fail);
        k->in_slot = batch_slot(&m->comps[k->to].in[k->type], var_of(m, k->to, k->to_var)->value_reference,
                                elem, &fail);
    }
    for (size_t i = 0; i < m->observed_count && !fail; i++) {
        master_observed *o = &m->observed[i];
        if (o->conn >= 0)
            continue;
        const rtcosim_variable *v = var_of(m, o->comp, o->var);
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
            if (mc->in[t].n)
                mc->in_types[mc->in_type_count++] = (unsigned char)t;
        }
        for (size_t i = 0; i < m->conn_count && !fail; i++) {
            if (m->conns[i].to == c)
                mc->conns_in[mc->conns_in_count++] = i;
            if (m->conns[i].from == c && m->conns[i].continuous)
                mc->conns_out[mc->conns_out_count++] = i;
        }
    }
    m->observed_values = calloc(m->observed_count ? m->observed_count : 1, sizeof(double));
    m->order_list = calloc(m->comp_count, sizeof(size_t));
    m->active = calloc(m->comp_count, sizeof(size_t));
    if (fail || !m->observed_values || !m->order_list || !m->active)
        return oom(err);
    return RTCOSIM_OK;
}

static rtcosim_status get_outputs(rtcosim_master *m, size_t c, rtcosim_error *err)
{
    master_component *mc = &m->comps[c];
    for (int t = 0; t < RTCOSIM_TYPE_COUNT_; t++)
        if (mc->out[t].n) {
            rtcosim_status st = rtcosim_component_get(mc->c, (rtcosim_type)t, mc->out[t].vrs,
                                                      mc->out[t].n, mc->out[t].values, err);
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
 * the size of the change (0 when unchanged). */
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
    if (memcmp(dst, src, elem) == 0)
        return 0;
    memcpy(dst, src, elem);
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

static rtcosim_status apply_start_values(rtcosim_master *m, rtcosim_error *err)
{
    for (size_t i = 0; i < m->start_count; i++) {
        const master_start_value *s = &m->starts[i];
        const rtcosim_variable *v = var_of(m, s->comp, s->var);
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
    for (size_t c = 0; c < m->comp_count; c++) {
        master_component *mc = &m->comps[c];
        mc->can_vary = rtcosim_component_capabilities(mc->c)->can_handle_variable_step;
        int order = rtcosim_component_capabilities(mc->c)->max_input_derivative_order;
        mc->derivative_order = order > 2 ? 2 : (order < 0 ? 0 : order);
        mc->variable = sc->enabled && mc->multiple == RTCOSIM_MASTER_VARIABLE_STEP;
        if (mc->variable && !mc->can_vary)
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "master: component '%s' cannot handle variable steps but is set "
                                     "to follow the adaptive macro step (give it a fixed step multiple)",
                                     mc->name);
        if (mc->multiple == 0)
            mc->multiple = 1;
    }
    if (sc->enabled) {
        if (sc->min_step == 0)
            sc->min_step = m->macro_step / 1000 > 0 ? m->macro_step / 1000 : 1;
        if (sc->max_step == 0)
            sc->max_step = 10 * m->macro_step;
        if (sc->resolution <= 0)
            sc->resolution = 1;
        if (sc->resolution > sc->min_step)
            sc->resolution = sc->min_step;
        rtcosim_step_controller_init(&m->controller, sc);
    }
    return RTCOSIM_OK;
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
    rtcosim_status st = after_init(m, "initialize", err);
    if (st != RTCOSIM_OK)
        return st;
    if (m->failed)
        return rtcosim_error_set(err, RTCOSIM_ESTATE, "master: an earlier initialize failed");
    if (m->comp_count == 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "master: no components");
    if (stop >= 0 && stop < start)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "master: stop time before start time");
    m->failed = true; /* until everything below succeeds */
    if ((st = check_steps(m, err)) != RTCOSIM_OK || (st = build_batches(m, err)) != RTCOSIM_OK)
        return st;
    setup_couplings(m);
    for (size_t c = 0; c < m->comp_count; c++) {
        master_component *mc = &m->comps[c];
        if ((st = rtcosim_component_instantiate(mc->c, mc->name, err)) != RTCOSIM_OK ||
            (st = rtcosim_component_setup(mc->c, m->tolerance, start, stop, err)) != RTCOSIM_OK ||
            (st = rtcosim_component_enter_init(mc->c, err)) != RTCOSIM_OK)
            return st;
    }
    if ((st = apply_start_values(m, err)) != RTCOSIM_OK ||
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
    for (size_t i = 0; i < m->comp_count; i++)
        if ((st = master_publish_at(m, m->order_list[i], start, err)) != RTCOSIM_OK)
            return st;
    if ((st = master_sched_init(m, err)) != RTCOSIM_OK)
        return st;
    m->failed = false;
    m->initialized = true;
    return RTCOSIM_OK;
}

/* ---- running ---- */

static rtcosim_status check_stop(rtcosim_master *m, rtcosim_time_ns stop, rtcosim_error *err)
{
    if (!m->initialized)
        return rtcosim_error_set(err, RTCOSIM_ESTATE, "master: run before initialize");
    if (m->failed)
        return rtcosim_error_set(err, RTCOSIM_ESTATE, "master: an earlier step failed");
    if (m->stop >= 0 && stop > m->stop)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "master: run to %.9g s is past the stop time %.9g s given at "
                                 "initialize", rtcosim_time_to_seconds(stop),
                                 rtcosim_time_to_seconds(m->stop));
    for (size_t c = 0; c < m->comp_count; c++) {
        const master_component *mc = &m->comps[c];
        rtcosim_time_ns h = (rtcosim_time_ns)mc->multiple * m->macro_step;
        if (!mc->can_vary && !mc->variable && (stop - m->start) % h != 0)
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "master: component '%s' steps %.9g s and cannot shorten its "
                                     "last step, but the stop time %.9g s is not on its grid",
                                     mc->name, rtcosim_time_to_seconds(h),
                                     rtcosim_time_to_seconds(stop));
    }
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_master_step(rtcosim_master *m, rtcosim_error *err)
{
    rtcosim_time_ns stop = m->stop >= 0 ? m->stop : RTCOSIM_TIME_MAX;
    if (!m->initialized)
        return rtcosim_error_set(err, RTCOSIM_ESTATE, "master: step before initialize");
    if (m->failed)
        return rtcosim_error_set(err, RTCOSIM_ESTATE, "master: an earlier step failed");
    if (m->time >= stop)
        return rtcosim_error_set(err, RTCOSIM_ESTATE, "master: already at the stop time");
    rtcosim_status st = master_tick(m, stop, err);
    if (st != RTCOSIM_OK)
        m->failed = true;
    return st;
}

rtcosim_status rtcosim_master_run(rtcosim_master *m, rtcosim_time_ns stop,
                                  rtcosim_master_observer observer, void *context,
                                  rtcosim_error *err)
{
    rtcosim_status st = check_stop(m, stop, err);
    if (st != RTCOSIM_OK)
        return st;
    if (observer && m->time == m->start && m->steps == 0) {
        const double *v = rtcosim_master_observed_values(m);
        if ((st = observer(context, m->time, v, m->observed_count, err)) != RTCOSIM_OK)
            return st;
    }
    while (m->time < stop && !m->terminate_requested) {
        if ((st = master_tick(m, stop, err)) != RTCOSIM_OK) {
            m->failed = true;
            return st;
        }
        if (observer) {
            const double *v = rtcosim_master_observed_values(m);
            if ((st = observer(context, m->time, v, m->observed_count, err)) != RTCOSIM_OK)
                return st;
        }
    }
    if (m->terminate_requested)
        rtcosim_log(RTCOSIM_LOG_INFO, "master", "a component requested termination at %.9g s",
                    rtcosim_time_to_seconds(m->time));
    return RTCOSIM_OK;
}

/* ---- accessors ---- */

rtcosim_time_ns rtcosim_master_time(const rtcosim_master *m) { return m->time; }
uint64_t rtcosim_master_step_count(const rtcosim_master *m) { return m->steps; }
rtcosim_time_ns rtcosim_master_next_step(const rtcosim_master *m)
{
    return m->step_control.enabled ? m->adaptive_step : m->macro_step;
}
size_t rtcosim_master_observed_count(const rtcosim_master *m) { return m->observed_count; }
const char *rtcosim_master_observed_name(const rtcosim_master *m, size_t i)
{
    return i < m->observed_count ? m->observed[i].name : NULL;
}

static double as_double(rtcosim_type type, const unsigned char *p)
{
    switch (type) {
    case RTCOSIM_TYPE_FLOAT64: { double v; memcpy(&v, p, sizeof v); return v; }
    case RTCOSIM_TYPE_FLOAT32: { float v; memcpy(&v, p, sizeof v); return v; }
    case RTCOSIM_TYPE_INT8: return *(const int8_t *)p;
    case RTCOSIM_TYPE_UINT8: return *(const uint8_t *)p;
    case RTCOSIM_TYPE_INT16: { int16_t v; memcpy(&v, p, sizeof v); return v; }
    case RTCOSIM_TYPE_UINT16: { uint16_t v; memcpy(&v, p, sizeof v); return v; }
    case RTCOSIM_TYPE_INT32: { int32_t v; memcpy(&v, p, sizeof v); return v; }
    case RTCOSIM_TYPE_UINT32: { uint32_t v; memcpy(&v, p, sizeof v); return v; }
    case RTCOSIM_TYPE_INT64: { int64_t v; memcpy(&v, p, sizeof v); return (double)v; }
    case RTCOSIM_TYPE_UINT64: { uint64_t v; memcpy(&v, p, sizeof v); return (double)v; }
    case RTCOSIM_TYPE_BOOLEAN: return *(const bool *)p ? 1.0 : 0.0;
    default: return NAN;
    }
}

const double *rtcosim_master_observed_values(rtcosim_master *m)
{
    for (size_t i = 0; i < m->observed_count; i++) {
        const master_observed *o = &m->observed[i];
        if (o->conn >= 0) {
            m->observed_values[i] = m->conns[o->conn].stats.last_error;
            continue;
        }
        rtcosim_type t = var_of(m, o->comp, o->var)->type;
        m->observed_values[i] = as_double(t, m->comps[o->comp].out[t].values +
                                                  o->slot * rtcosim_type_size(t));
    }
    return m->observed_values;
}

size_t rtcosim_master_component_count(const rtcosim_master *m) { return m->comp_count; }
rtcosim_component *rtcosim_master_component(const rtcosim_master *m, const char *name)
{
    int i = name ? find_component(m, name, strlen(name)) : -1;
    return i < 0 ? NULL : m->comps[i].c;
}
const char *rtcosim_master_order_name(const rtcosim_master *m, size_t position)
{
    return m->initialized && position < m->comp_count ? m->comps[m->order_list[position]].name : NULL;
}
size_t rtcosim_master_connection_count(const rtcosim_master *m) { return m->conn_count; }
const char *rtcosim_master_connection_name(const rtcosim_master *m, size_t i)
{
    return i < m->conn_count ? m->conns[i].name : NULL;
}

rtcosim_status rtcosim_master_coupling_stats(const rtcosim_master *m, size_t i,
                                             rtcosim_coupling_stats *out, rtcosim_error *err)
{
    if (i >= m->conn_count)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "master: no connection %zu", i);
    *out = m->conns[i].stats;
    out->error_rms = out->intervals ? sqrt(m->conns[i].error_sum_sq / (double)out->intervals) : 0;
    return RTCOSIM_OK;
}

size_t rtcosim_master_bond_count(const rtcosim_master *m) { return m->bond_count; }
rtcosim_status rtcosim_master_bond_stats(const rtcosim_master *m, size_t i, rtcosim_bond_stats *out,
                                         rtcosim_error *err)
{
    if (i >= m->bond_count)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "master: no power bond %zu", i);
    *out = m->bonds[i].stats;
    return RTCOSIM_OK;
}
