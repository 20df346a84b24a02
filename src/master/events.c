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

/* The event iteration's state, allocated at init so that no event
 * allocates. A round touches only the marked components (those with an
 * event, whose inputs changed or whose clocks ticked) and what they drive:
 * on a bus whose frames reach one node at a time the others stay in Step
 * Mode (FMI 3.0 section 4.2.2 lets the importer enter Event Mode only for
 * the FMUs with an event). */
typedef struct master_event_state {
    bool *marked;           /* per component: updates in the next round */
    bool *entered;          /* per component: in Event Mode in this iteration */
    size_t *todo, todo_n;   /* the marked components */
    size_t *round, round_n; /* the components updating in this round */
    size_t *in_event, in_event_n; /* the components that entered Event Mode */
    size_t *rank;           /* per component: its position in order_list */
    rtcosim_time_ns *next;  /* per component: the event time it announced (-1: none) */
    /* Per component (CSR): the step connections out of it into event-mode
     * components; and every non-Float connection into an event-mode one
     * (input events after a step). */
    size_t *out_start, *out;
    size_t *discrete, discrete_n;
} master_event_state;

static bool uses_events(const master_component *mc)
{
    return rtcosim_component_capabilities(mc->c)->event_mode_used;
}

static bool is_float(rtcosim_type type)
{
    return type == RTCOSIM_TYPE_FLOAT64 || type == RTCOSIM_TYPE_FLOAT32;
}

void master_events_free(rtcosim_master *m)
{
    master_event_state *e = m->ev;
    if (!e)
        return;
    free(e->marked);
    free(e->entered);
    free(e->todo);
    free(e->round);
    free(e->in_event);
    free(e->rank);
    free(e->next);
    free(e->out_start);
    free(e->out);
    free(e->discrete);
    free(e);
    m->ev = NULL;
}

static rtcosim_status events_alloc(rtcosim_master *m, rtcosim_error *err)
{
    const size_t n = m->comp_count;
    master_event_state *e = m->ev = calloc(1, sizeof *e);
    if (!e)
        return master_oom(err);
    e->marked = calloc(n, sizeof *e->marked);
    e->entered = calloc(n, sizeof *e->entered);
    e->todo = calloc(n, sizeof *e->todo);
    e->round = calloc(n, sizeof *e->round);
    e->in_event = calloc(n, sizeof *e->in_event);
    e->rank = calloc(n, sizeof *e->rank);
    e->next = calloc(n, sizeof *e->next);
    e->out_start = calloc(n + 1, sizeof *e->out_start);
    e->out = calloc(m->conn_count + 1, sizeof *e->out);
    e->discrete = calloc(m->conn_count + 1, sizeof *e->discrete);
    if (!e->marked || !e->entered || !e->todo || !e->round || !e->in_event || !e->rank ||
        !e->next || !e->out_start || !e->out || !e->discrete)
        return master_oom(err);
    for (size_t i = 0; i < n; i++) {
        e->rank[m->order_list[i]] = i;
        e->next[i] = -1;
    }
    for (size_t i = 0; i < m->conn_count; i++) {
        const master_connection *k = &m->conns[i];
        if (!uses_events(&m->comps[k->to]))
            continue;
        e->out_start[k->from + 1]++;
        if (!is_float(k->type))
            e->discrete[e->discrete_n++] = i;
    }
    for (size_t c = 0; c < n; c++)
        e->out_start[c + 1] += e->out_start[c];
    size_t *fill = e->todo; /* scratch: the next free slot per component */
    for (size_t c = 0; c < n; c++)
        fill[c] = e->out_start[c];
    for (size_t i = 0; i < m->conn_count; i++)
        if (uses_events(&m->comps[m->conns[i].to]))
            e->out[fill[m->conns[i].from]++] = i;
    memset(e->todo, 0, n * sizeof *e->todo);
    return RTCOSIM_OK;
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
    if ((st = events_alloc(m, err)) != RTCOSIM_OK)
        return st;
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
        mc->in_type_mask = 0;
        for (unsigned j = 0; j < mc->in_type_count; j++)
            if (is_float((rtcosim_type)mc->in_types[j])) {
                mc->in_type_mask |= 1u << mc->in_types[j];
                mc->in_types[kept++] = mc->in_types[j];
            }
        mc->in_type_count = kept;
    }
    if ((st = master_links_init(m, err)) != RTCOSIM_OK)
        return st;
    m->events = true;
    /* Section 4.2.2: with eventModeUsed a component leaves initialization in
     * Event Mode; the first iteration runs at the start time over all. */
    for (size_t c = 0; c < m->comp_count; c++)
        if (uses_events(&m->comps[c]) && (st = master_event_mark(m, c, err)) != RTCOSIM_OK)
            return st;
    return master_event_iteration(m, m->start, err);
}

/* The value connection k delivers now, into the consumer's input slot: 1
 * when it changed the slot, 0 when equal, -1 out of memory (String, Binary). */
static int connection_value(rtcosim_master *m, const master_connection *k)
{
    size_t elem = rtcosim_type_size(k->type);
    const master_component *from = &m->comps[k->from];
    const unsigned char *src = from->out[k->type].values + k->out_slot * elem;
    unsigned char *dst = m->comps[k->to].in[k->type].values + k->in_slot * elem;
    unsigned char value[sizeof(rtcosim_value)];
    if (master_type_owned(k->type))
        return master_text_deliver(&m->comps[k->to], k->type, k->in_slot, src);
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
        return 0;
    memcpy(dst, value, elem);
    return 1;
}

static rtcosim_status failed_at(rtcosim_status st, const master_component *mc, rtcosim_time_ns t,
                                rtcosim_error *err)
{
    (void)t; /* callers (rtcosim run) say the time */
    rtcosim_error_prefix(err, "master: event iteration: '%s': ", mc->name);
    return st;
}

rtcosim_status master_event_mark(rtcosim_master *m, size_t comp, rtcosim_error *err)
{
    master_event_state *e = m->ev;
    if (e->marked[comp])
        return RTCOSIM_OK;
    master_component *mc = &m->comps[comp];
    if (!e->entered[comp]) {
        rtcosim_status st;
        if (!rtcosim_component_in_event_mode(mc->c) &&
            (st = rtcosim_component_enter_event_mode(mc->c, err)) != RTCOSIM_OK)
            return failed_at(st, mc, m->time, err);
        e->entered[comp] = true;
        e->in_event[e->in_event_n++] = comp;
    }
    e->marked[comp] = true;
    e->todo[e->todo_n++] = comp;
    return RTCOSIM_OK;
}

/* One line naming the components that still changed in the last round. */
static rtcosim_status not_settled(rtcosim_master *m, rtcosim_error *err)
{
    char names[400] = "";
    size_t used = 0;
    const master_event_state *e = m->ev;
    for (size_t i = 0; i < m->comp_count && used < sizeof names - 40; i++)
        if (e->marked[m->order_list[i]]) /* in the system's order */
            used += (size_t)snprintf(names + used, sizeof names - used, "%s'%s'",
                                     used ? ", " : "", m->comps[m->order_list[i]].name);
    return rtcosim_error_set(err, RTCOSIM_ECOMPONENT,
                             "master: event iteration did not settle after %d rounds: %s "
                             "kept changing discrete states or connected inputs",
                             EVENT_ROUNDS_MAX, names);
}

/* Every input of the marked components, Event Mode's types included. */
static rtcosim_status set_event_inputs(rtcosim_master *m, rtcosim_time_ns t, rtcosim_error *err)
{
    const master_event_state *e = m->ev;
    for (size_t i = 0; i < e->todo_n; i++) {
        master_component *mc = &m->comps[e->todo[i]];
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

/* The marked components become this round's, in the system's order (as a
 * round over all of them would take them); the marks are cleared. */
static void take_round(master_event_state *e)
{
    size_t n = 0;
    for (size_t i = 0; i < e->todo_n; i++) {
        size_t c = e->todo[i], j = n++;
        e->marked[c] = false;
        for (; j > 0 && e->rank[e->round[j - 1]] > e->rank[c]; j--)
            e->round[j] = e->round[j - 1];
        e->round[j] = c;
    }
    e->round_n = n;
    e->todo_n = 0;
}

rtcosim_status master_event_iteration(rtcosim_master *m, rtcosim_time_ns t, rtcosim_error *err)
{
    rtcosim_status st;
    master_event_state *e = m->ev;
    /* The discrete inputs the steps held back (Step Mode sets only Float
     * ones): their values from the step's start, before the first round. */
    if ((st = set_event_inputs(m, t, err)) != RTCOSIM_OK)
        return st;
    const master_component *terminating = NULL;
    for (int round = 0;; round++) {
        if (round == EVENT_ROUNDS_MAX)
            return not_settled(m, err);
        take_round(e);
        bool changed = false;
        /* clocks and what they clock first, then the updates (FMI 3.0
         * section 2.2.8 and the standard's event-mode sequence) */
        if ((st = master_links_exchange(m, t, e->round, e->round_n, &changed, err)) != RTCOSIM_OK)
            return st;
        for (size_t i = 0; i < e->round_n; i++) {
            size_t c = e->round[i];
            master_component *mc = &m->comps[c];
            rtcosim_event_update u;
            if ((st = rtcosim_component_update_discrete_states(mc->c, &u, err)) != RTCOSIM_OK)
                return failed_at(st, mc, t, err);
            if (u.terminate_requested && !terminating)
                terminating = mc;
            e->next[c] = u.next_event_time_defined && u.next_event_time > t ? u.next_event_time
                                                                             : -1;
            if (u.discrete_states_need_update) {
                if ((st = master_event_mark(m, c, err)) != RTCOSIM_OK)
                    return st;
                changed = true;
            }
        }
        /* The outputs after this round, and what they change downstream. */
        for (size_t i = 0; i < e->round_n; i++)
            if ((st = master_publish_at(m, e->round[i], t, err)) != RTCOSIM_OK)
                return failed_at(st, &m->comps[e->round[i]], t, err);
        if (terminating)
            break;
        for (size_t i = 0; i < e->round_n; i++) {
            size_t c = e->round[i];
            for (size_t j = e->out_start[c]; j < e->out_start[c + 1]; j++) {
                const master_connection *k = &m->conns[e->out[j]];
                int delivered = connection_value(m, k);
                if (delivered < 0)
                    return master_oom(err);
                if (delivered) {
                    if ((st = master_event_mark(m, k->to, err)) != RTCOSIM_OK)
                        return st;
                    changed = true;
                }
            }
        }
        if ((st = master_links_after_update(m, t, e->round, e->round_n, &changed, err)) !=
            RTCOSIM_OK)
            return st;
        if (!changed && e->todo_n == 0)
            break;
        if ((st = set_event_inputs(m, t, err)) != RTCOSIM_OK)
            return st;
    }
    /* The next event: the earliest any component announced (those that did
     * not update keep their announcement). */
    rtcosim_time_ns next = -1;
    for (size_t c = 0; c < m->comp_count; c++)
        if (e->next[c] > t && (next < 0 || e->next[c] < next))
            next = e->next[c];
    m->next_event = master_links_next_event(m, next, t);
    for (size_t i = 0; i < e->todo_n; i++)
        e->marked[e->todo[i]] = false;
    e->todo_n = 0;
    if (terminating) {
        /* Section 4.2.2: terminateSimulation; the components are terminated
         * from Event Mode. */
        master_step_ended(m, terminating, false);
        return RTCOSIM_OK;
    }
    for (size_t i = 0; i < e->in_event_n; i++) {
        master_component *mc = &m->comps[e->in_event[i]];
        e->entered[e->in_event[i]] = false;
        if (rtcosim_component_in_event_mode(mc->c) &&
            (st = rtcosim_component_enter_step_mode(mc->c, err)) != RTCOSIM_OK)
            return failed_at(st, mc, t, err);
    }
    e->in_event_n = 0;
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
    /* The components with an event: a step that asked for it, a time
     * event they announced, a non-Float input that would change (an input
     * event, FMI 3.0 section 4.2.2). Only they enter Event Mode at first. */
    master_event_state *e = m->ev;
    const rtcosim_time_ns now = m->time;
    bool event = m->next_event == now; /* some announced time, or a countdown clock */
    for (size_t c = 0; c < m->comp_count; c++) {
        const master_component *mc = &m->comps[c];
        if (uses_events(mc) && (mc->step_result.event_handling_needed || e->next[c] == now)) {
            event = true;
            e->marked[c] = true; /* entered below, after the row before the event */
            e->todo[e->todo_n++] = c;
        }
    }
    for (size_t i = 0; i < e->discrete_n; i++) {
        const master_connection *k = &m->conns[e->discrete[i]];
        /* taken now: the iteration sets it before the first round */
        int delivered = connection_value(m, k);
        if (delivered < 0)
            return master_oom(err);
        if (delivered) {
            event = true;
            if (!e->marked[k->to]) {
                e->marked[k->to] = true;
                e->todo[e->todo_n++] = k->to;
            }
        }
    }
    if (!event || m->terminate_requested) {
        for (size_t i = 0; i < e->todo_n; i++)
            e->marked[e->todo[i]] = false;
        e->todo_n = 0;
        return RTCOSIM_OK;
    }
    /* fmusim's rows: the values before the event, then (the caller's row
     * after the tick) those after it, at the same time. */
    if (m->observer) {
        const double *v = rtcosim_master_observed_values(m);
        if ((st = m->observer(m->observer_context, m->time, v, m->observed_count, err)) !=
            RTCOSIM_OK)
            return st;
    }
    m->event_count++;
    /* Enter Event Mode, then mark anew (marking enters it). */
    size_t n = e->todo_n;
    e->todo_n = 0;
    for (size_t i = 0; i < n; i++)
        e->marked[e->todo[i]] = false;
    for (size_t i = 0; i < n; i++)
        if ((st = master_event_mark(m, e->todo[i], err)) != RTCOSIM_OK)
            return st;
    return master_event_iteration(m, m->time, err);
}
