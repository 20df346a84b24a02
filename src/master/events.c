/* Events in a system (FMI 3.0 co-simulation with Event Mode, sections
 * 4.2.2-4.3): macro steps shortened to the next event time any component
 * announced, and at an event instant the event iteration over every
 * event-mode component (update discrete states, pass the outputs to the
 * connected inputs, repeat) until nothing changes: superdense time at one
 * instant, bounded, with an error naming the components that kept changing.
 * A system without event-mode components never enters this file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "master/master_internal.h"
#include "rtcosim/log.h"

/* Rounds of one event iteration before it is declared not to settle. */
#define EVENT_ROUNDS_MAX 100

static bool uses_events(const master_component *mc)
{
    return rtcosim_component_capabilities(mc->c)->event_mode_used;
}

static bool is_float(rtcosim_type type)
{
    return type == RTCOSIM_TYPE_FLOAT64 || type == RTCOSIM_TYPE_FLOAT32;
}

rtcosim_status master_events_init(rtcosim_master *m, rtcosim_error *err)
{
    rtcosim_status st;
    m->events = false;
    m->next_event = -1;
    m->event_count = 0;
    const char *first = NULL;
    for (size_t c = 0; c < m->comp_count && !first; c++)
        if (uses_events(&m->comps[c]))
            first = m->comps[c].name;
    if (!first)
        return master_links_init(m, err); /* refuses links without Event Mode */
    /* The iteration passes values between components at one instant; with
     * several rates or an adaptive step their instants differ, and over
     * ranks the exchange is collective: not supported there. */
    if (!m->single_rate || m->xchg)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                 "master: component '%s' uses Event Mode, which needs every "
                                 "component on the base macro step, without step control and "
                                 "in one process",
                                 first);
    m->event_marks = calloc(m->comp_count, sizeof *m->event_marks);
    if (!m->event_marks)
        return master_oom(err);
    m->event_shorten = true;
    for (size_t c = 0; c < m->comp_count; c++)
        if (!m->comps[c].can_vary && m->event_shorten) {
            m->event_shorten = false;
            rtcosim_log(RTCOSIM_LOG_WARNING, "master",
                        "component '%s' cannot vary its step: steps are not shortened to the "
                        "event times components announce (events then fall on step ends)",
                        m->comps[c].name);
        }
    for (size_t c = 0; c < m->comp_count; c++) {
        master_component *mc = &m->comps[c];
        memcpy(mc->event_in_types, mc->in_types, sizeof mc->in_types);
        mc->event_in_type_count = mc->in_type_count;
        if (!uses_events(mc))
            continue;
        unsigned kept = 0;
        for (unsigned j = 0; j < mc->in_type_count; j++)
            if (is_float((rtcosim_type)mc->in_types[j]))
                mc->in_types[kept++] = mc->in_types[j];
        mc->in_type_count = kept;
    }
    if ((st = master_links_init(m, err)) != RTCOSIM_OK)
        return st;
    m->events = true;
    /* Section 4.2.2: with eventModeUsed a component leaves initialization in
     * Event Mode; the first iteration runs at the start time. */
    return master_event_iteration(m, m->start, err);
}

/* The value connection k delivers now, into dst (unless only `compare`);
 * false when it equals what the consumer's input holds. */
static bool connection_value(rtcosim_master *m, const master_connection *k, unsigned char *dst,
                             bool compare)
{
    size_t elem = rtcosim_type_size(k->type);
    const master_component *from = &m->comps[k->from];
    const unsigned char *src = from->out[k->type].values + k->out_slot * elem;
    unsigned char value[sizeof(rtcosim_value)];
    if (k->continuous) {
        double y;
        memcpy(&y, src, sizeof y);
        if (k->opts.has_transformation)
            y = k->opts.factor * y + k->opts.offset;
        memcpy(value, &y, sizeof y);
    } else {
        memcpy(value, src, elem);
        master_map_value(k, value);
    }
    if (memcmp(dst, value, elem) == 0)
        return false;
    if (!compare)
        memcpy(dst, value, elem);
    return true;
}

static unsigned char *input_slot(rtcosim_master *m, const master_connection *k)
{
    return m->comps[k->to].in[k->type].values + k->in_slot * rtcosim_type_size(k->type);
}

/* An input event: a connected input of an event-mode component that only
 * Event Mode sets (not Float) would change (FMI 3.0 section 4.2.2). */
static bool discrete_input_changed(rtcosim_master *m)
{
    for (size_t i = 0; i < m->conn_count; i++) {
        const master_connection *k = &m->conns[i];
        if (!is_float(k->type) && uses_events(&m->comps[k->to]) &&
            connection_value(m, k, input_slot(m, k), true))
            return true;
    }
    return false;
}

/* Every input of the event-mode components, Event Mode's types included. */
static rtcosim_status set_event_inputs(rtcosim_master *m, bool marked_only, rtcosim_time_ns t,
                                       rtcosim_error *err);

static rtcosim_status failed_at(rtcosim_status st, const master_component *mc, rtcosim_time_ns t,
                                rtcosim_error *err)
{
    (void)t; /* callers (rtcosim run) say the time */
    rtcosim_error_prefix(err, "master: event iteration: '%s': ", mc->name);
    return st;
}

/* One line naming the components that still changed in the last round. */
static rtcosim_status not_settled(rtcosim_master *m, rtcosim_error *err)
{
    char names[400] = "";
    size_t used = 0;
    for (size_t c = 0; c < m->comp_count && used < sizeof names - 40; c++)
        if (m->event_marks[c])
            used += (size_t)snprintf(names + used, sizeof names - used, "%s'%s'",
                                     used ? ", " : "", m->comps[c].name);
    return rtcosim_error_set(err, RTCOSIM_ECOMPONENT,
                             "master: event iteration did not settle after %d rounds: %s "
                             "kept changing discrete states or connected inputs",
                             EVENT_ROUNDS_MAX, names);
}

static rtcosim_status set_event_inputs(rtcosim_master *m, bool marked_only, rtcosim_time_ns t,
                                       rtcosim_error *err)
{
    for (size_t c = 0; c < m->comp_count; c++) {
        master_component *mc = &m->comps[c];
        if (!uses_events(mc) || (marked_only && !m->event_marks[c]))
            continue;
        for (unsigned j = 0; j < mc->event_in_type_count; j++) {
            unsigned ty = mc->event_in_types[j];
            rtcosim_status st = rtcosim_component_set(mc->c, (rtcosim_type)ty, mc->in[ty].vrs,
                                                      mc->in[ty].n, mc->in[ty].values, err);
            if (st != RTCOSIM_OK)
                return failed_at(st, mc, t, err);
        }
    }
    return RTCOSIM_OK;
}

rtcosim_status master_event_iteration(rtcosim_master *m, rtcosim_time_ns t, rtcosim_error *err)
{
    rtcosim_status st;
    for (size_t c = 0; c < m->comp_count; c++) {
        master_component *mc = &m->comps[c];
        if (uses_events(mc) && !rtcosim_component_in_event_mode(mc->c) &&
            (st = rtcosim_component_enter_event_mode(mc->c, err)) != RTCOSIM_OK)
            return failed_at(st, mc, t, err);
    }
    /* The discrete inputs the steps held back (Step Mode sets only Float
     * ones): their values from the step's start, before the first round. */
    if ((st = set_event_inputs(m, false, t, err)) != RTCOSIM_OK)
        return st;
    rtcosim_time_ns next = -1;
    const master_component *terminating = NULL;
    for (int round = 0;; round++) {
        if (round == EVENT_ROUNDS_MAX)
            return not_settled(m, err);
        bool changed = false;
        for (size_t i = 0; i < m->comp_count; i++) {
            size_t c = m->order_list[i];
            master_component *mc = &m->comps[c];
            m->event_marks[c] = false;
            if (!uses_events(mc))
                continue;
            rtcosim_event_update u;
            if ((st = rtcosim_component_update_discrete_states(mc->c, &u, err)) != RTCOSIM_OK)
                return failed_at(st, mc, t, err);
            if (u.terminate_requested && !terminating)
                terminating = mc;
            if (u.next_event_time_defined && u.next_event_time > t &&
                (next < 0 || u.next_event_time < next))
                next = u.next_event_time;
            m->event_marks[c] = u.discrete_states_need_update;
            changed |= u.discrete_states_need_update;
        }
        /* The outputs after this round, and what they change downstream. */
        for (size_t i = 0; i < m->comp_count; i++)
            if ((st = master_publish_at(m, m->order_list[i], t, err)) != RTCOSIM_OK)
                return failed_at(st, &m->comps[m->order_list[i]], t, err);
        if (terminating)
            break;
        for (size_t i = 0; i < m->conn_count; i++) {
            const master_connection *k = &m->conns[i];
            master_component *to = &m->comps[k->to];
            if (!uses_events(to))
                continue;
            if (connection_value(m, k, input_slot(m, k), false)) {
                m->event_marks[k->to] = true;
                changed = true;
            }
        }
        if ((st = master_links_exchange(m, t, &changed, err)) != RTCOSIM_OK)
            return st;
        if (!changed)
            break;
        if ((st = set_event_inputs(m, true, t, err)) != RTCOSIM_OK)
            return st;
    }
    m->next_event = master_links_next_event(m, next, t);
    if (terminating) {
        /* Section 4.2.2: terminateSimulation; the components are terminated
         * from Event Mode. */
        master_step_ended(m, terminating, false);
        return RTCOSIM_OK;
    }
    for (size_t c = 0; c < m->comp_count; c++) {
        master_component *mc = &m->comps[c];
        if (rtcosim_component_in_event_mode(mc->c) &&
            (st = rtcosim_component_enter_step_mode(mc->c, err)) != RTCOSIM_OK)
            return failed_at(st, mc, t, err);
    }
    return RTCOSIM_OK;
}

rtcosim_status master_event_tick(rtcosim_master *m, rtcosim_time_ns stop, rtcosim_error *err)
{
    const rtcosim_time_ns t = m->time, H = m->macro_step;
    /* The next point of the macro-step grid start + k H: a step shortened
     * to an event does not shift the grid (as fmusim's output grid). */
    rtcosim_time_ns end = m->start + ((t - m->start) / H + 1) * H;
    if (end > stop)
        end = stop;
    if (m->event_shorten && m->next_event > t && m->next_event < end)
        end = m->next_event;
    rtcosim_status st = master_single_rate_tick(m, end - t, err);
    if (st != RTCOSIM_OK || m->discarded)
        return st;
    bool event = m->next_event == m->time;
    for (size_t c = 0; c < m->comp_count && !event; c++)
        event = uses_events(&m->comps[c]) && m->comps[c].step_result.event_handling_needed;
    if (!event)
        event = discrete_input_changed(m);
    if (!event || m->terminate_requested)
        return RTCOSIM_OK;
    /* fmusim's rows: the values before the event, then (the caller's row
     * after the tick) those after it, at the same time. */
    if (m->observer) {
        const double *v = rtcosim_master_observed_values(m);
        if ((st = m->observer(m->observer_context, m->time, v, m->observed_count, err)) !=
            RTCOSIM_OK)
            return st;
    }
    m->event_count++;
    return master_event_iteration(m, m->time, err);
}
