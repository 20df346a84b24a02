/* The master's run API (rtcosim_master_step / _run, termination) and its
 * accessors: time, step count, observed values, components, connections and
 * their coupling and bond statistics. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "master/master_internal.h"
#include "rtcosim/log.h"

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
    if (m->discarded)
        return rtcosim_error_set(err, RTCOSIM_ESTATE, "master: the run has ended (a component asked to terminate)");
    rtcosim_status st = master_tick(m, stop, err);
    if (st != RTCOSIM_OK)
        m->failed = true;
    else if (m->discarded)
        /* One tick at a time cannot end short of its time: callers see it. */
        st = rtcosim_error_set(err, RTCOSIM_EDISCARD,
                               "master: component '%s' discarded its step at %.9g s and asked to terminate",
                               rtcosim_component_instance_name(m->terminated_by->c),
                               rtcosim_time_to_seconds(m->time));
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
    m->observer = observer; /* the row before an event (events.c) */
    m->observer_context = context;
    while (m->time < stop && !m->terminate_requested) {
        st = master_tick(m, stop, err);
        if (st != RTCOSIM_OK) {
            m->observer = NULL;
            m->failed = true;
            return st;
        }
        if (observer && !m->discarded) {
            const double *v = rtcosim_master_observed_values(m);
            if ((st = observer(context, m->time, v, m->observed_count, err)) != RTCOSIM_OK) {
                m->observer = NULL;
                return st;
            }
        }
    }
    m->observer = NULL;
    if (m->terminate_requested)
        rtcosim_log(RTCOSIM_LOG_INFO, "master", "component '%s' requested termination at %.9g s%s",
                    rtcosim_component_instance_name(m->terminated_by->c),
                    rtcosim_time_to_seconds(m->time), m->discarded ? " (discarded step)" : "");
    return RTCOSIM_OK;
}

bool rtcosim_master_terminated(const rtcosim_master *m, const char **component, bool *on_discard)
{
    if (component)
        *component = m->terminate_requested ? rtcosim_component_instance_name(m->terminated_by->c)
                                            : NULL;
    if (on_discard)
        *on_discard = m->discarded;
    return m->terminate_requested;
}

/* ---- accessors ---- */

rtcosim_time_ns rtcosim_master_time(const rtcosim_master *m) { return m->time; }
uint64_t rtcosim_master_step_count(const rtcosim_master *m) { return m->steps; }
uint64_t rtcosim_master_event_count(const rtcosim_master *m) { return m->event_count; }
uint64_t rtcosim_master_early_return_count(const rtcosim_master *m) { return m->early_returns; }
rtcosim_time_ns rtcosim_master_next_step(const rtcosim_master *m)
{
    return m->step_control.enabled ? m->adaptive_step : m->macro_step;
}
void rtcosim_master_step_range(const rtcosim_master *m, rtcosim_time_ns *smallest,
                               rtcosim_time_ns *largest)
{
    *smallest = m->min_tick;
    *largest = m->max_tick;
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

const rtcosim_variable *rtcosim_master_observed_variable(const rtcosim_master *m, size_t i)
{
    if (i >= m->observed_count || m->observed[i].conn >= 0)
        return NULL;
    return master_var_of(m, m->observed[i].comp, m->observed[i].var);
}

const rtcosim_variable *rtcosim_master_text_observed_variable(const rtcosim_master *m, size_t i)
{
    if (i >= m->text_observed_count)
        return NULL;
    return master_var_of(m, m->text_observed[i].comp, m->text_observed[i].var);
}

bool rtcosim_master_observed_refused(const rtcosim_master *m, size_t i)
{
    return i < m->observed_count && m->observed[i].refused;
}

const double *rtcosim_master_observed_values(rtcosim_master *m)
{
    for (size_t i = 0; i < m->observed_count; i++) {
        const master_observed *o = &m->observed[i];
        if (o->conn >= 0) {
            m->observed_values[i] = m->conns[o->conn].stats.last_error;
            continue;
        }
        if (o->refused) {
            m->observed_values[i] = NAN;
            continue;
        }
        rtcosim_type t = master_var_of(m, o->comp, o->var)->type;
        m->observed_values[i] = as_double(t, m->comps[o->comp].out[t].values +
                                                  o->slot * rtcosim_type_size(t));
    }
    return m->observed_values;
}

rtcosim_type rtcosim_master_observed_type(const rtcosim_master *m, size_t i)
{
    if (i >= m->observed_count || m->observed[i].conn >= 0 || m->observed[i].refused)
        return RTCOSIM_TYPE_FLOAT64;
    rtcosim_type t = master_var_of(m, m->observed[i].comp, m->observed[i].var)->type;
    return t == RTCOSIM_TYPE_INT64 || t == RTCOSIM_TYPE_UINT64 ? t : RTCOSIM_TYPE_FLOAT64;
}

bool rtcosim_master_observed_exact(const rtcosim_master *m, size_t i, rtcosim_value *value)
{
    rtcosim_type t = rtcosim_master_observed_type(m, i);
    if (t == RTCOSIM_TYPE_FLOAT64)
        return false;
    const master_observed *o = &m->observed[i];
    const unsigned char *p = m->comps[o->comp].out[t].values + o->slot * rtcosim_type_size(t);
    if (t == RTCOSIM_TYPE_INT64)
        memcpy(&value->i64, p, sizeof value->i64);
    else
        memcpy(&value->u64, p, sizeof value->u64);
    return true;
}

size_t rtcosim_master_component_count(const rtcosim_master *m) { return m->comp_count; }
rtcosim_component *rtcosim_master_component(const rtcosim_master *m, const char *name)
{
    int i = name ? master_find_component(m, name, strlen(name)) : -1;
    return i < 0 ? NULL : m->comps[i].c;
}
rtcosim_component *rtcosim_master_component_at(const rtcosim_master *m, size_t index)
{
    return index < m->comp_count ? m->comps[index].c : NULL;
}
const char *rtcosim_master_component_name_at(const rtcosim_master *m, size_t index)
{
    return index < m->comp_count ? m->comps[index].name : NULL;
}
const char *rtcosim_master_order_name(const rtcosim_master *m, size_t position)
{
    return (m->initialized || m->order_planned) && position < m->comp_count
               ? m->comps[m->order_list[position]].name
               : NULL;
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
    out->corrected = m->conns[i].corr.kind != RTCOSIM_CORRECTION_NONE;
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
