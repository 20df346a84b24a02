/* The master's builder API: components, connections with their checks,
 * options, start values (whole FMI 3.0 arrays as lists), observed variables.
 * The initialization is in init.c, running and the accessors in run.c. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "master/master_internal.h"
#include "rtcosim/fmu_clocks.h"
#include "rtcosim/log.h"
#include "rtcosim/native.h"

bool master_grow(void **array, size_t *cap, size_t need, size_t elem)
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

rtcosim_status master_oom(rtcosim_error *err)
{
    return rtcosim_error_set(err, RTCOSIM_ENOMEM, "master: out of memory");
}

rtcosim_status master_after_init(const rtcosim_master *m, const char *call, rtcosim_error *err)
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
        return master_oom(err);
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
    master_exchange_free(m);
    for (size_t i = 0; i < m->comp_count; i++) {
        master_component *mc = &m->comps[i];
        if (mc->rollback)
            rtcosim_component_free_state(mc->c, mc->rollback);
        rtcosim_component_free(mc->c);
        free(mc->name);
        master_text_free(mc); /* (sized by the batches) */
        for (int t = 0; t < RTCOSIM_TYPE_COUNT_; t++) {
            batch_free(&mc->out[t]);
            batch_free(&mc->in[t]);
        }
        free(mc->d1);
        free(mc->d2);
        free(mc->conns_in);
        free(mc->conns_out);
    }
    for (size_t i = 0; i < m->conn_count; i++) {
        free(m->conns[i].name);
        free(m->conns[i].map);
    }
    for (size_t i = 0; i < m->start_count; i++)
        free(m->starts[i].text);
    for (size_t i = 0; i < m->feed_count; i++)
        free(m->feeds[i].inputs);
    for (size_t i = 0; i < m->observed_count; i++)
        free(m->observed[i].name);
    for (size_t i = 0; i < m->text_observed_count; i++)
        free(m->text_observed[i].name);
    free(m->text_observed);
    free(m->comps);
    free(m->conns);
    free(m->bonds);
    free(m->starts);
    free(m->feeds);
    free(m->observed);
    free(m->observed_values);
    free(m->order_list);
    free(m->active);
    free(m->publish_list);
    free(m->returned);
    free(m->rest);
    master_events_free(m);
    master_links_free(m);
    free(m);
}

rtcosim_status rtcosim_master_add_component(rtcosim_master *m, const char *name,
                                            rtcosim_component *component, unsigned step_multiple,
                                            rtcosim_error *err)
{
    rtcosim_status st = master_after_init(m, "add_component", err);
    if (st == RTCOSIM_OK && (!name || !*name || name[0] == '.' || name[strlen(name) - 1] == '.'))
        st = rtcosim_error_set(err, RTCOSIM_EINVAL,
                               "master: component name '%s' is empty or starts or ends with '.'",
                               name ? name : "");
    if (st == RTCOSIM_OK && !component)
        st = rtcosim_error_set(err, RTCOSIM_EINVAL, "master: component '%s' is NULL", name);
    if (st == RTCOSIM_OK && master_find_component(m, name, strlen(name)) >= 0)
        st = rtcosim_error_set(err, RTCOSIM_EINVAL, "master: duplicate component name '%s'", name);
    if (st == RTCOSIM_OK && !master_grow((void **)&m->comps, &m->comp_cap, m->comp_count + 1,
                                  sizeof *m->comps))
        st = master_oom(err);
    char *copy = st == RTCOSIM_OK ? strdup(name) : NULL;
    if (st == RTCOSIM_OK && !copy)
        st = master_oom(err);
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
    rtcosim_status st = master_after_init(m, "set_component_step", err);
    if (st != RTCOSIM_OK)
        return st;
    int i = name ? master_find_component(m, name, strlen(name)) : -1;
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

const rtcosim_variable *master_var_of(const rtcosim_master *m, size_t comp, size_t var)
{
    return rtcosim_component_variable(m->comps[comp].c, var);
}

static bool is_type_connectable(rtcosim_type t)
{
    return rtcosim_type_is_numeric(t) || master_type_owned(t);
}

static bool is_clocked(const rtcosim_master *m, size_t comp, size_t var)
{
    const rtcosim_fmu_clocks *k = master_clocks_of(m->comps[comp].c);
    return k && k->clocked_start && k->clocked_start[var] != k->clocked_start[var + 1];
}

/* A Binary connection passes in the event iteration's links (events_links.c)
 * when it is clocked at either end (LS-BUS Tx_Data/Rx_Data) or both ends use
 * Event Mode; else as the other discrete values: at the communication points
 * (FMI 3.0 lets an FMU without Event Mode take any input in Step Mode), into
 * an event-mode consumer as an input event. */
static bool binary_by_links(const rtcosim_master *m, size_t fc, size_t fv, size_t tc, size_t tv)
{
    return is_clocked(m, fc, fv) || is_clocked(m, tc, tv) ||
           (rtcosim_component_capabilities(m->comps[fc].c)->event_mode_used &&
            rtcosim_component_capabilities(m->comps[tc].c)->event_mode_used);
}

rtcosim_status rtcosim_master_connect(rtcosim_master *m, const char *from, const char *to,
                                      const rtcosim_coupling_options *opts, rtcosim_error *err)
{
    rtcosim_status st = master_after_init(m, "connect", err);
    if (st != RTCOSIM_OK)
        return st;
    char what[300];
    snprintf(what, sizeof what, "connection %s -> %s", from ? from : "?", to ? to : "?");
    size_t fc, fv, tc, tv;
    if ((st = master_resolve(m, what, from, &fc, &fv, err)) != RTCOSIM_OK ||
        (st = master_resolve(m, what, to, &tc, &tv, err)) != RTCOSIM_OK)
        return st;
    const rtcosim_variable *a = master_var_of(m, fc, fv), *b = master_var_of(m, tc, tv);
    if (a->type == RTCOSIM_TYPE_CLOCK && b->type == RTCOSIM_TYPE_CLOCK &&
        a->causality == RTCOSIM_CAUSALITY_INPUT && b->causality == RTCOSIM_CAUSALITY_INPUT)
        return master_links_connect(m, what, fc, fv, tc, tv, err); /* input to input: LS-BUS */
    if (a->causality != RTCOSIM_CAUSALITY_OUTPUT)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: '%s' is not an output (it is %s)", what,
                                 from, rtcosim_causality_name(a->causality));
    if (b->causality != RTCOSIM_CAUSALITY_INPUT)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: '%s' is not an input (it is %s)", what,
                                 to, rtcosim_causality_name(b->causality));
    if (a->type != b->type)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: incompatible types %s and %s", what,
                                 rtcosim_type_name(a->type), rtcosim_type_name(b->type));
    if (a->type == RTCOSIM_TYPE_CLOCK ||
        (a->type == RTCOSIM_TYPE_BINARY && binary_by_links(m, fc, fv, tc, tv)))
        return master_links_connect(m, what, fc, fv, tc, tv, err);
    if (!is_type_connectable(a->type))
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                 "%s: %s variables cannot be connected", what,
                                 rtcosim_type_name(a->type));
    bool transform = opts && opts->has_transformation;
    if (transform && a->type != RTCOSIM_TYPE_FLOAT64)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "%s: a linear transformation needs Float64 variables", what);
    size_t map_count = opts ? opts->map_count : 0;
    if (map_count && (a->type == RTCOSIM_TYPE_FLOAT64 || a->type == RTCOSIM_TYPE_FLOAT32 ||
                      master_type_owned(a->type) || !opts->map_from || !opts->map_to))
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "%s: a value map needs integer, enumeration or Boolean variables",
                                 what);
    if (a->unit && b->unit && *a->unit && *b->unit && strcmp(a->unit, b->unit) != 0 && !transform)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "%s: units differ ('%s' and '%s') and no transformation is given",
                                 what, a->unit, b->unit);
    if (opts && ((unsigned)opts->extrapolation > RTCOSIM_EXTRAPOLATION_SOH ||
                 (unsigned)opts->correction > RTCOSIM_CORRECTION_INTEGRATOR ||
                 (unsigned)opts->multirate > RTCOSIM_MULTIRATE_HOLD ||
                 (unsigned)opts->quadrature > RTCOSIM_QUADRATURE_QUADRATIC ||
                 (unsigned)opts->step_input > RTCOSIM_STEP_INPUT_START))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: invalid coupling options", what);
    for (size_t i = 0; i < m->conn_count; i++)
        if (m->conns[i].to == tc && m->conns[i].to_var == tv)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: input '%s' is already connected (%s)",
                                     what, to, m->conns[i].name);
    if (!master_grow((void **)&m->conns, &m->conn_cap, m->conn_count + 1, sizeof *m->conns))
        return master_oom(err);
    char *name = strdup(what + strlen("connection "));
    if (!name)
        return master_oom(err);
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
    c->opts.map_from = c->opts.map_to = NULL;
    c->opts.map_count = 0;
    if (map_count) {
        if (!(c->map = malloc(2 * map_count * sizeof *c->map)))
            return master_oom(err);
        memcpy(c->map, opts->map_from, map_count * sizeof *c->map);
        memcpy(c->map + map_count, opts->map_to, map_count * sizeof *c->map);
        c->opts.map_from = c->map;
        c->opts.map_to = c->map + map_count;
        c->opts.map_count = map_count;
    }
    return RTCOSIM_OK;
}

/* Read the integer at p of type t, map it, write it back (SSP 1.0 mapping
 * transformations; the table is small, a linear search allocates nothing). */
void master_map_value(const master_connection *k, unsigned char *dst)
{
    size_t n = k->opts.map_count;
    if (n == 0)
        return;
    int64_t v;
    switch (k->type) {
    case RTCOSIM_TYPE_INT8: { int8_t x; memcpy(&x, dst, 1); v = x; break; }
    case RTCOSIM_TYPE_UINT8: { uint8_t x; memcpy(&x, dst, 1); v = x; break; }
    case RTCOSIM_TYPE_INT16: { int16_t x; memcpy(&x, dst, 2); v = x; break; }
    case RTCOSIM_TYPE_UINT16: { uint16_t x; memcpy(&x, dst, 2); v = x; break; }
    case RTCOSIM_TYPE_INT32: { int32_t x; memcpy(&x, dst, 4); v = x; break; }
    case RTCOSIM_TYPE_UINT32: { uint32_t x; memcpy(&x, dst, 4); v = x; break; }
    case RTCOSIM_TYPE_INT64: memcpy(&v, dst, 8); break;
    case RTCOSIM_TYPE_UINT64: { uint64_t x; memcpy(&x, dst, 8); v = (int64_t)x; break; }
    case RTCOSIM_TYPE_BOOLEAN: { bool x; memcpy(&x, dst, sizeof x); v = x; break; }
    default: return;
    }
    size_t i = 0;
    while (i < n && k->opts.map_from[i] != v)
        i++;
    if (i == n)
        return;
    v = k->opts.map_to[i];
    switch (k->type) {
    case RTCOSIM_TYPE_INT8: { int8_t x = (int8_t)v; memcpy(dst, &x, 1); break; }
    case RTCOSIM_TYPE_UINT8: { uint8_t x = (uint8_t)v; memcpy(dst, &x, 1); break; }
    case RTCOSIM_TYPE_INT16: { int16_t x = (int16_t)v; memcpy(dst, &x, 2); break; }
    case RTCOSIM_TYPE_UINT16: { uint16_t x = (uint16_t)v; memcpy(dst, &x, 2); break; }
    case RTCOSIM_TYPE_INT32: { int32_t x = (int32_t)v; memcpy(dst, &x, 4); break; }
    case RTCOSIM_TYPE_UINT32: { uint32_t x = (uint32_t)v; memcpy(dst, &x, 4); break; }
    case RTCOSIM_TYPE_INT64: memcpy(dst, &v, 8); break;
    case RTCOSIM_TYPE_UINT64: { uint64_t x = (uint64_t)v; memcpy(dst, &x, 8); break; }
    case RTCOSIM_TYPE_BOOLEAN: { bool x = v != 0; memcpy(dst, &x, sizeof x); break; }
    default: break;
    }
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
    rtcosim_status st = master_after_init(m, "add_power_bond", err);
    if (st != RTCOSIM_OK)
        return st;
    size_t ec, ev, fc, fv;
    if ((st = master_resolve(m, "power bond", effort_input, &ec, &ev, err)) != RTCOSIM_OK ||
        (st = master_resolve(m, "power bond", flow_input, &fc, &fv, err)) != RTCOSIM_OK)
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
    if (!master_grow((void **)&m->bonds, &m->bond_cap, m->bond_count + 1, sizeof *m->bonds))
        return master_oom(err);
    master_bond *b = &m->bonds[m->bond_count++];
    memset(b, 0, sizeof *b);
    b->effort = (size_t)e;
    b->flow = (size_t)f;
    return RTCOSIM_OK;
}

void rtcosim_master_set_order(rtcosim_master *m, rtcosim_order order) { m->order = order; }
rtcosim_order rtcosim_master_get_order(const rtcosim_master *m) { return m->order; }
const rtcosim_coupling_options *rtcosim_master_coupling_defaults(const rtcosim_master *m)
{
    return &m->defaults;
}
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
    rtcosim_status st = master_after_init(m, "set_threads", err);
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
    rtcosim_status st = master_after_init(m, "set_step_control", err);
    if (st != RTCOSIM_OK)
        return st;
    if (!sc)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "master: step control options are NULL");
    if (sc->enabled && (!(sc->rtol >= 0) || !(sc->atol >= 0) || (sc->rtol == 0 && sc->atol == 0) ||
                        sc->min_step < 0 || sc->max_step < 0 ||
                        (sc->max_step > 0 && sc->min_step > sc->max_step) ||
                        !(sc->target >= 0 && sc->target <= 1) || !(sc->order >= 0) ||
                        !(sc->max_increase >= 1) ||
                        !(sc->max_decrease > 0 && sc->max_decrease <= 1)))
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "master: step control: tolerances must be >= 0 and not both 0, "
                                 "0 <= min_step <= max_step, 0 <= target <= 1, order >= 0, max_increase >= 1, "
                                 "0 < max_decrease <= 1");
    m->step_control = *sc;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_master_set_step_grid(rtcosim_master *m, rtcosim_time_ns interval,
                                           rtcosim_error *err)
{
    rtcosim_status st = master_after_init(m, "set_step_grid", err);
    if (st != RTCOSIM_OK)
        return st;
    if (interval < 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "master: step grid interval below 0");
    m->step_grid = interval;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_master_set_feedthrough(rtcosim_master *m, const char *output,
                                              const char *const *inputs, size_t n,
                                              rtcosim_error *err)
{
    rtcosim_status st = master_after_init(m, "set_feedthrough", err);
    if (st != RTCOSIM_OK)
        return st;
    size_t comp, var;
    if ((st = master_resolve(m, "feedthrough", output, &comp, &var, err)) != RTCOSIM_OK)
        return st;
    if (master_var_of(m, comp, var)->causality != RTCOSIM_CAUSALITY_OUTPUT)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "feedthrough: '%s' is not an output", output);
    size_t *list = calloc(n ? n : 1, sizeof *list);
    if (!list)
        return master_oom(err);
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
    if (!master_grow((void **)&m->feeds, &m->feed_cap, m->feed_count + 1, sizeof *m->feeds)) {
        free(list);
        return master_oom(err);
    }
    m->feeds[m->feed_count++] = (master_feedthrough){comp, var, list, n};
    return RTCOSIM_OK;
}

static rtcosim_status set_array_start_value(rtcosim_master *m, const char *name, const char *text,
                                            rtcosim_error *err);

void rtcosim_master_set_strict_ranges(rtcosim_master *m, bool strict)
{
    if (m)
        m->strict_ranges = strict;
}

rtcosim_status rtcosim_master_set_start_value(rtcosim_master *m, const char *name, const char *text,
                                              rtcosim_error *err)
{
    rtcosim_status st = master_after_init(m, "set_start_value", err);
    if (st != RTCOSIM_OK)
        return st;
    size_t comp, var;
    if ((st = master_resolve(m, "start value", name, &comp, &var, err)) != RTCOSIM_OK) {
        rtcosim_status array = st == RTCOSIM_ENOTFOUND ? set_array_start_value(m, name, text, err)
                                                       : RTCOSIM_ENOTFOUND;
        return array == RTCOSIM_ENOTFOUND ? st : array;
    }
    const rtcosim_variable *v = master_var_of(m, comp, var);
    if (!rtcosim_type_is_numeric(v->type) && v->type != RTCOSIM_TYPE_STRING &&
        v->type != RTCOSIM_TYPE_BINARY)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "start value for '%s': %s not supported",
                                 name, rtcosim_type_name(v->type));
    char *copy = strdup(text ? text : "");
    if (!copy)
        return master_oom(err);
    rtcosim_value value;
    size_t bad = 0;
    /* Binary in hex, as fmusim takes it; decoded in place (half the length). */
    if (v->type == RTCOSIM_TYPE_BINARY)
        st = rtcosim_binary_from_hex(copy, (uint8_t *)copy, &value.bin.size, &bad)
                 ? (value.bin.data = (const uint8_t *)copy, RTCOSIM_OK)
                 : rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "'%s' is not a Binary value (hex digits, two per byte)", text);
    else
        st = rtcosim_value_parse(v->type, copy, &value, err);
    if (st != RTCOSIM_OK) {
        free(copy);
        return rtcosim_error_prefix(err, "start value for '%s': ", name);
    }
    char why[160];
    if (!rtcosim_variable_in_range(v, &value, why, sizeof why)) {
        if (m->strict_ranges) {
            free(copy);
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "start value for '%s': %s", name, why);
        }
        rtcosim_log(RTCOSIM_LOG_WARNING, "master",
                    "start value for '%s': %s; the model may refuse it (--strict makes this an error)",
                    name, why);
    }
    if (!master_grow((void **)&m->starts, &m->start_cap, m->start_count + 1, sizeof *m->starts)) {
        free(copy);
        return master_oom(err);
    }
    m->starts[m->start_count++] = (master_start_value){comp, var, value, copy};
    return RTCOSIM_OK;
}

/* "comp.arr" naming an FMI 3.0 array: its elements arr[i,j], consecutive in
 * the component's table (src/fmi/md_arrays.c): the component, the first
 * element's index and how many; 0 when the name is no array. */
static size_t array_span(const rtcosim_master *m, const char *name, char *comp_name, size_t size,
                         const rtcosim_component **c, size_t *first)
{
    int ci = -1;
    const char *dot = master_split_name(m, name, &ci);
    if (!dot || (size_t)(dot - name) >= size)
        return 0;
    memcpy(comp_name, name, (size_t)(dot - name));
    comp_name[dot - name] = '\0';
    *c = rtcosim_master_component(m, comp_name);
    const char *base = dot + 1;
    size_t len = strlen(base), count = 0;
    for (size_t i = 0; *c && i < rtcosim_component_variable_count(*c); i++) {
        const char *e = rtcosim_component_variable(*c, i)->name;
        if (strncmp(e, base, len) != 0 || e[len] != '[')
            continue;
        if (count == 0)
            *first = i;
        if (i != *first + count)
            break;
        count++;
    }
    return count;
}

/* "comp.arr[i,j]" for element k of the array `name` names. */
static bool element_name(const rtcosim_component *c, const char *comp_name, const char *name,
                         size_t first, size_t k, char *out, size_t size)
{
    const char *base = name + strlen(comp_name) + 1; /* name is "comp_name.arr" */
    const char *suffix = rtcosim_component_variable(c, first + k)->name + strlen(base);
    return (size_t)snprintf(out, size, "%s%s", name, suffix) < size;
}

/* A start value for a whole FMI 3.0 array: the text lists every element,
 * white-space separated, row-major (FMI 3.0 section 2.4.7.5).
 * RTCOSIM_ENOTFOUND without a message when the name is no array, so that
 * the caller's error stands. */
static rtcosim_status set_array_start_value(rtcosim_master *m, const char *name, const char *text,
                                            rtcosim_error *err)
{
    char comp_name[256];
    const rtcosim_component *c = NULL;
    size_t first = 0, count = text ? array_span(m, name, comp_name, sizeof comp_name, &c, &first) : 0;
    if (count == 0)
        return RTCOSIM_ENOTFOUND;
    size_t given = 0;
    for (const char *t = text; *(t += strspn(t, " \t"));) {
        given++;
        t += strcspn(t, " \t");
    }
    if (given != count)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "start value for '%s': the array has %zu elements, %zu values given "
                                 "(separated by spaces, row-major)",
                                 name, count, given);
    const char *t = text;
    for (size_t k = 0; k < count; k++) {
        t += strspn(t, " \t");
        size_t n = strcspn(t, " \t");
        char element[512], token[128];
        if (n >= sizeof token || !element_name(c, comp_name, name, first, k, element, sizeof element))
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "start value for '%s': too long", name);
        memcpy(token, t, n);
        token[n] = '\0';
        t += n;
        rtcosim_status st = rtcosim_master_set_start_value(m, element, token, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

rtcosim_status master_add_observed(rtcosim_master *m, size_t comp, size_t var, rtcosim_error *err)
{
    if (!master_grow((void **)&m->observed, &m->observed_cap, m->observed_count + 1, sizeof *m->observed))
        return master_oom(err);
    const char *vn = master_var_of(m, comp, var)->name;
    size_t len = strlen(m->comps[comp].name) + strlen(vn) + 2;
    char *name = malloc(len);
    if (!name)
        return master_oom(err);
    snprintf(name, len, "%s.%s", m->comps[comp].name, vn);
    m->observed[m->observed_count++] = (master_observed){-1, comp, var, 0, name, false};
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_master_observe_coupling_error(rtcosim_master *m, const char *input,
                                                     rtcosim_error *err)
{
    rtcosim_status st = master_after_init(m, "observe_coupling_error", err);
    size_t comp, var;
    if (st != RTCOSIM_OK ||
        (st = master_resolve(m, "observed coupling error", input, &comp, &var, err)) != RTCOSIM_OK)
        return st;
    int k = find_connection_to(m, comp, var);
    if (k < 0 || !m->conns[k].continuous)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "observed coupling error: '%s' is not the input of a Float64 "
                                 "connection", input);
    if (!master_grow((void **)&m->observed, &m->observed_cap, m->observed_count + 1, sizeof *m->observed))
        return master_oom(err);
    size_t len = strlen(input) + sizeof ".coupling_error";
    char *name = malloc(len);
    if (!name)
        return master_oom(err);
    snprintf(name, len, "%s.coupling_error", input);
    m->observed[m->observed_count++] = (master_observed){k, comp, var, 0, name, false};
    m->observe_explicit = true;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_master_observe(rtcosim_master *m, const char *name, rtcosim_error *err)
{
    rtcosim_status st = master_after_init(m, "observe", err);
    if (st != RTCOSIM_OK)
        return st;
    size_t comp, var;
    if ((st = master_resolve(m, "observed variable", name, &comp, &var, err)) != RTCOSIM_OK) {
        /* A whole FMI 3.0 array: each of its elements. */
        char comp_name[256], element[512];
        const rtcosim_component *c = NULL;
        size_t first = 0, count = st == RTCOSIM_ENOTFOUND
                                      ? array_span(m, name, comp_name, sizeof comp_name, &c, &first)
                                      : 0;
        for (size_t k = 0; k < count; k++) {
            if (!element_name(c, comp_name, name, first, k, element, sizeof element))
                return rtcosim_error_set(err, RTCOSIM_EINVAL, "observed variable '%s': too long", name);
            rtcosim_status est = rtcosim_master_observe(m, element, err);
            if (est != RTCOSIM_OK)
                return est;
        }
        return count ? RTCOSIM_OK : st;
    }
    rtcosim_type type = master_var_of(m, comp, var)->type;
    m->observe_explicit = true;
    if (type == RTCOSIM_TYPE_STRING || type == RTCOSIM_TYPE_BINARY)
        return master_add_text_observed(m, comp, var, err);
    if (!rtcosim_type_is_numeric(type))
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                 "observed variable '%s': only numeric, String and Binary variables "
                                 "can be observed", name);
    return master_add_observed(m, comp, var, err);
}

rtcosim_status master_add_text_observed(rtcosim_master *m, size_t comp, size_t var,
                                        rtcosim_error *err)
{
    const char *var_name = master_var_of(m, comp, var)->name;
    size_t size = strlen(m->comps[comp].name) + strlen(var_name) + 2;
    char *name = malloc(size);
    if (!name || !master_grow((void **)&m->text_observed, &m->text_observed_cap,
                              m->text_observed_count + 1, sizeof *m->text_observed)) {
        free(name);
        return master_oom(err);
    }
    snprintf(name, size, "%s.%s", m->comps[comp].name, var_name);
    m->text_observed[m->text_observed_count++] = (struct master_text_observed){comp, var, name};
    return RTCOSIM_OK;
}

size_t rtcosim_master_text_observed_count(const rtcosim_master *m)
{
    return m->text_observed_count;
}

const char *rtcosim_master_text_observed_name(const rtcosim_master *m, size_t index)
{
    return index < m->text_observed_count ? m->text_observed[index].name : NULL;
}

rtcosim_type rtcosim_master_text_observed_type(const rtcosim_master *m, size_t index)
{
    if (index >= m->text_observed_count)
        return RTCOSIM_TYPE_COUNT_;
    const struct master_text_observed *o = &m->text_observed[index];
    return master_var_of(m, o->comp, o->var)->type;
}

rtcosim_status rtcosim_master_text_observed_values(rtcosim_master *m, rtcosim_value *values,
                                                   rtcosim_error *err)
{
    for (size_t i = 0; i < m->text_observed_count; i++) {
        const struct master_text_observed *o = &m->text_observed[i];
        const rtcosim_variable *v = master_var_of(m, o->comp, o->var);
        void *slot = v->type == RTCOSIM_TYPE_STRING ? (void *)&values[i].s : (void *)&values[i].bin;
        rtcosim_status st = rtcosim_component_get(m->comps[o->comp].c, v->type, &v->value_reference,
                                                  1, slot, err);
        if (st != RTCOSIM_OK)
            return rtcosim_error_prefix(err, "observed variable '%s': ", o->name);
    }
    return RTCOSIM_OK;
}
