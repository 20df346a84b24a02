/* A CAN bus carrying a DBC's signals between components with signal ports
 * (can_signals.h): a component holding an event simulation with the bus LP,
 * one sender LP per DBC node that the bus sends for (its messages in its
 * TX database, each message a self event every cycle time that packs the
 * component's tx inputs into the frame) and one receiver LP that gets every
 * frame and unpacks it into the rx outputs. do_step advances the simulation
 * to the step's end (the sequential scheduler's order, as the LS-BUS kernel
 * bus component does). Nothing is allocated while stepping but the bus log
 * when it grows. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dbc_internal.h"
#include "rtcosim/can_log.h"
#include "rtcosim/log.h"
#include "rtcosim/can_signals.h"
#include "rtcosim/events.h"

#define SEND_EVENT 0xCA20u
#define CONTAINER_EVENT 0xCA21u /* a container frame assembled and sent */

typedef struct signal_bus signal_bus;

typedef struct tx_message {
    const rtcosim_dbc_message *m;
    uint32_t first_vr; /* its signals' tx inputs */
    uint32_t sender;   /* index into senders */
    uint8_t length;    /* data bytes on the bus */
    bool fd, brs;
    uint8_t nesting;       /* multiplexors below the message's M (mNM), at most 16 */
    rtcosim_time_ns cycle; /* 0: sent on change */
    double *sent;          /* on change: the values last sent, per signal */
    /* a contained PDU: its container's tx index (it is put there when due,
     * not sent itself), else -1; a container: the frame being filled */
    int32_t container;
    struct container_fill *fill;
} tx_message;

/* A container's frame being filled (IpduM's container instance): its parts
 * in the database's order (tx index; a queued PDU's occurrences in the order
 * they came), each with its bytes held from when it came (queued) or -1
 * (last is best: packed when the frame goes); the bytes filled, headers
 * included; when it goes on its timers (RTCOSIM_TIME_MAX: no timer yet) and
 * the frame's serial, which its timer event carries. */
enum { FILL_PARTS = 64 / 4 }; /* a part takes a 4-byte header at least */
typedef struct container_fill {
    struct {
        uint32_t k;
        int16_t at;
    } part[FILL_PARTS];
    uint8_t parts, filled, held;
    uint8_t bytes[64];
    uint32_t serial;
    rtcosim_time_ns due;
} container_fill;

typedef struct sender {
    signal_bus *owner;
    rtcosim_lp_id lp;
    uint32_t node;
} sender;

struct signal_bus {
    rtcosim_dbc *dbc;
    rtcosim_events *sim;
    rtcosim_can_bus *can;
    rtcosim_variable *vars;
    char **names;
    double *values; /* per value reference */
    size_t var_count;
    tx_message *tx;
    size_t tx_count;
    sender *senders;
    size_t sender_count;
    uint32_t *rx_first; /* per DBC message (its index): its rx outputs' first reference */
    rtcosim_lp_id rx_lp;
    uint32_t rx_node;
    rtcosim_time_ns start;
    uint64_t unknown;
    rtcosim_can_replay *replay;
    bool begun;
};

/* ---- the LPs ---- */

static rtcosim_status sender_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    sender *s = state;
    signal_bus *b = s->owner;
    for (uint32_t k = 0; k < b->tx_count; k++)
        if (&b->senders[b->tx[k].sender] == s && !b->tx[k].m->header_bytes) {
            /* every message once at the start (containers when their PDUs are due) */
            rtcosim_status st = rtcosim_lp_send(lp, rtcosim_lp_self(lp), 0, SEND_EVENT, 0, &k,
                                                sizeof k, err);
            if (st != RTCOSIM_OK)
                return st;
        }
    return RTCOSIM_OK;
}

/* A message's signals from its tx inputs v into data (length bytes): the
 * multiplexors first, outer before inner (a nested one, mNM, goes in once
 * the ones above it select it: a pass a level), then every signal the
 * frame's multiplexors select. */
static void pack(const tx_message *t, const double *v, uint8_t *data, size_t length)
{
    const rtcosim_dbc_message *m = t->m;
    for (unsigned pass = 0; pass < (m->multiplexor ? 1u + t->nesting : 0u); pass++)
        for (size_t i = 0; i < m->signal_count; i++) {
            const rtcosim_dbc_signal *sig = &m->signals[i];
            if (sig->selects && rtcosim_dbc_signal_present(m, sig, data, length))
                rtcosim_dbc_encode_saturated(sig, v[i], data, length);
        }
    for (size_t i = 0; i < m->signal_count; i++) {
        const rtcosim_dbc_signal *sig = &m->signals[i];
        if (!sig->selects && rtcosim_dbc_signal_present(m, sig, data, length))
            rtcosim_dbc_encode_saturated(sig, v[i], data, length);
    }
}

/* Container k's frame from its parts, each behind its header, as long as
 * they fill (CAN FD: up to a valid length) with the container's padding
 * after them; then a new frame to fill. */
static rtcosim_status send_container(rtcosim_lp *lp, sender *s, uint32_t k, rtcosim_error *err)
{
    signal_bus *b = s->owner;
    tx_message *c = &b->tx[k];
    container_fill *f = c->fill;
    uint8_t data[64];
    size_t at = 0;
    for (size_t i = 0; i < f->parts; i++) {
        const tx_message *p = &b->tx[f->part[i].k];
        rtcosim_dbc_container_put(c->m, p->m->header_id, p->m->dlc, data + at);
        at += c->m->header_bytes;
        if (f->part[i].at >= 0)
            memcpy(data + at, f->bytes + f->part[i].at, p->m->dlc);
        else {
            memset(data + at, 0, p->m->dlc);
            pack(p, b->values + p->first_vr, data + at, p->m->dlc);
        }
        at += p->m->dlc;
    }
    size_t length = c->fd ? rtcosim_can_fd_length((unsigned)at) : at;
    memset(data + at, c->m->container_padding, length - at);
    *f = (container_fill){.serial = f->serial + 1, .due = RTCOSIM_TIME_MAX};
    rtcosim_can_any_frame fr = {
        .format = c->fd ? RTCOSIM_CAN_FORMAT_FD : RTCOSIM_CAN_FORMAT_CLASSIC,
        .flags = c->brs ? RTCOSIM_CAN_FD_BRS : 0, .id = c->m->id, .extended = c->m->extended,
        .length = (uint16_t)length, .data = data};
    return rtcosim_can_transmit_any(lp, b->can, s->node, &fr, 0, 0, err);
}

/* A container's timer: its frame goes if it is still the one timed. */
typedef struct container_timer {
    uint32_t k, serial;
} container_timer;

/* Contained PDU k is due at `now`: into its container's frame (sent first,
 * at once, when k would not fit; a last-is-best PDU already in is not put
 * in again), which then goes at once on a trigger (the PDU's TRIGGER
 * ALWAYS, the container's FIRST-CONTAINED-TRIGGER on its first part, its
 * THRESHOLD-SIZE reached) or by its timers (CONTAINER-TIMEOUT from its first
 * part, the PDU's TIMEOUT from now), whichever comes first. */
static rtcosim_status contained_due(rtcosim_lp *lp, sender *s, uint32_t k, rtcosim_time_ns now,
                                    rtcosim_error *err)
{
    signal_bus *b = s->owner;
    const tx_message *t = &b->tx[k];
    uint32_t ck = (uint32_t)t->container;
    tx_message *c = &b->tx[ck];
    container_fill *f = c->fill;
    const rtcosim_dbc_message *m = t->m, *cm = c->m;
    size_t at = 0; /* its place: after the parts of lower or equal index */
    bool present = false;
    for (; at < f->parts && f->part[at].k <= k; at++)
        present = present || (f->part[at].k == k && !m->contained_queued);
    rtcosim_status st = RTCOSIM_OK;
    if (!present) {
        if (f->filled + cm->header_bytes + m->dlc > c->length || f->parts == FILL_PARTS) {
            if ((st = send_container(lp, s, ck, err)) != RTCOSIM_OK)
                return st;
            at = 0;
        }
        memmove(&f->part[at + 1], &f->part[at], (f->parts - at) * sizeof f->part[0]);
        f->part[at].k = k;
        f->part[at].at = -1;
        if (m->contained_queued) { /* its values of now */
            f->part[at].at = f->held;
            memset(f->bytes + f->held, 0, m->dlc);
            pack(t, b->values + t->first_vr, f->bytes + f->held, m->dlc);
            f->held = (uint8_t)(f->held + m->dlc);
        }
        f->parts++;
        f->filled = (uint8_t)(f->filled + cm->header_bytes + m->dlc);
    }
    bool first = f->parts == 1 && !present;
    if (m->contained_trigger || (first && cm->container_first_trigger) ||
        (cm->container_threshold && f->filled >= cm->container_threshold))
        return send_container(lp, s, ck, err);
    rtcosim_time_ns due = f->due;
    if (first)
        due = now + cm->container_timeout;
    if (m->contained_timeout >= 0 && now + m->contained_timeout < due)
        due = now + m->contained_timeout;
    if (due >= f->due)
        return RTCOSIM_OK;
    f->due = due;
    container_timer timer = {ck, f->serial};
    return rtcosim_lp_send(lp, rtcosim_lp_self(lp), due - now, CONTAINER_EVENT, 0, &timer,
                           sizeof timer, err);
}

static rtcosim_status sender_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                   rtcosim_error *err)
{
    sender *s = state;
    signal_bus *b = s->owner;
    if (ev->type == CONTAINER_EVENT) {
        container_timer timer;
        memcpy(&timer, ev->payload, sizeof timer);
        const container_fill *f = b->tx[timer.k].fill;
        return f->serial == timer.serial && f->parts ? send_container(lp, s, timer.k, err)
                                                     : RTCOSIM_OK;
    }
    uint32_t k;
    memcpy(&k, ev->payload, sizeof k);
    tx_message *t = &b->tx[k];
    const rtcosim_dbc_message *m = t->m;
    const double *v = b->values + t->first_vr;
    rtcosim_status st = RTCOSIM_OK;
    if (t->container >= 0) {
        st = contained_due(lp, s, k, ev->time, err);
    } else {
        uint8_t data[64] = {0};
        pack(t, v, data, t->length);
        rtcosim_can_any_frame f = {
            .format = t->fd ? RTCOSIM_CAN_FORMAT_FD : RTCOSIM_CAN_FORMAT_CLASSIC,
            .flags = t->brs ? RTCOSIM_CAN_FD_BRS : 0, .id = m->id, .extended = m->extended,
            .length = t->length, .data = data};
        st = rtcosim_can_transmit_any(lp, b->can, s->node, &f, 0, 0, err);
    }
    if (st != RTCOSIM_OK)
        return st;
    if (t->sent)
        memcpy(t->sent, v, m->signal_count * sizeof *v);
    else
        st = rtcosim_lp_send(lp, rtcosim_lp_self(lp), t->cycle, SEND_EVENT, 0, &k, sizeof k, err);
    return st;
}

static const rtcosim_lp_model sender_model = {.kind = "can-signal-sender", .init = sender_init,
                                              .event = sender_event};

static rtcosim_status receiver_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                     rtcosim_error *err)
{
    (void)lp;
    (void)err;
    signal_bus *b = state;
    const rtcosim_can_rx *rx = rtcosim_can_rx_of(ev);
    if (!rx || rx->format == RTCOSIM_CAN_FORMAT_XL)
        return RTCOSIM_OK;
    const rtcosim_dbc_message *m = rtcosim_dbc_find_id(b->dbc, rx->frame.id, rx->frame.extended);
    if (!m) {
        b->unknown++;
        return RTCOSIM_OK;
    }
    const uint8_t *data = rx->format == RTCOSIM_CAN_FORMAT_FD ? rx->data : rx->frame.data;
    size_t size = rx->format == RTCOSIM_CAN_FORMAT_FD ? rx->length : rx->frame.dlc;
    rtcosim_dbc_container_part part = {.data = data, .size = size, .pdu = m};
    size_t offset = 0;
    /* a container frame: each contained PDU as a message of its own */
    int more = m->header_bytes ? rtcosim_dbc_container_next(b->dbc, m, data, size, &offset, &part)
                               : 1;
    while (more == 1) {
        const rtcosim_dbc_message *pm = part.pdu;
        double *v = pm ? b->values + b->rx_first[dbc_message_index(b->dbc, pm)] : NULL;
        for (size_t i = 0; pm && i < pm->signal_count; i++)
            if (rtcosim_dbc_signal_present(pm, &pm->signals[i], part.data, part.size))
                v[i] = rtcosim_dbc_decode(&pm->signals[i], part.data, part.size);
        more = m->header_bytes
                   ? rtcosim_dbc_container_next(b->dbc, m, data, size, &offset, &part)
                   : 0;
    }
    return RTCOSIM_OK;
}

static const rtcosim_lp_model receiver_model = {.kind = "can-signal-receiver",
                                                .event = receiver_event};

/* ---- the component ---- */

static rtcosim_status nothing(void *self, rtcosim_error *err)
{
    (void)self;
    (void)err;
    return RTCOSIM_OK;
}

static rtcosim_status sb_instantiate(void *self, const char *name, rtcosim_error *err)
{
    (void)self;
    (void)name;
    (void)err;
    return RTCOSIM_OK;
}

static rtcosim_status sb_setup(void *self, double tolerance, rtcosim_time_ns start,
                               rtcosim_time_ns stop, rtcosim_error *err)
{
    (void)tolerance;
    signal_bus *b = self;
    rtcosim_run_options o = {.scheduler = RTCOSIM_SCHEDULER_SEQUENTIAL, .start_time = start,
                             .stop_time = stop >= start ? stop : RTCOSIM_TIME_MAX};
    rtcosim_can_bus_reset(b->can);
    b->start = start;
    rtcosim_status st = rtcosim_events_begin(b->sim, &o, err);
    b->begun = st == RTCOSIM_OK;
    return st;
}

static rtcosim_status sb_do_step(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                 rtcosim_step_result *result, rtcosim_error *err)
{
    signal_bus *b = self;
    /* on-change messages whose inputs changed since they were last sent go
     * now (the start's sends are the senders' init) */
    for (uint32_t k = 0; k < b->tx_count; k++) {
        const tx_message *m = &b->tx[k];
        if (!m->sent || t == b->start ||
            memcmp(m->sent, b->values + m->first_vr, m->m->signal_count * sizeof *m->sent) == 0)
            continue;
        rtcosim_status st = rtcosim_events_inject(b->sim, b->senders[m->sender].lp, t, SEND_EVENT,
                                                  &k, sizeof k, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    /* the events before the step's end: one at t + h (a message due then)
     * is the next step's, which packs the inputs of t + h */
    rtcosim_status st = rtcosim_events_advance(b->sim, t + h - 1, err);
    result->last_successful_time = t + h;
    return st;
}

static rtcosim_status sb_get(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                             void *values, rtcosim_error *err)
{
    signal_bus *b = self;
    if (type != RTCOSIM_TYPE_FLOAT64)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "can signals: Float64 variables only");
    double *out = values;
    for (size_t i = 0; i < n; i++) {
        if (vrs[i] >= b->var_count)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "can signals: no variable %u", vrs[i]);
        out[i] = b->values[vrs[i]];
    }
    return RTCOSIM_OK;
}

static rtcosim_status sb_set(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                             const void *values, rtcosim_error *err)
{
    signal_bus *b = self;
    if (type != RTCOSIM_TYPE_FLOAT64)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "can signals: Float64 variables only");
    const double *in = values;
    for (size_t i = 0; i < n; i++) {
        if (vrs[i] >= b->var_count || b->vars[vrs[i]].causality != RTCOSIM_CAUSALITY_INPUT)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "can signals: no input %u", vrs[i]);
        b->values[vrs[i]] = in[i];
    }
    return RTCOSIM_OK;
}

static rtcosim_status sb_terminate(void *self, rtcosim_error *err)
{
    signal_bus *b = self;
    if (!b->begun)
        return RTCOSIM_OK;
    b->begun = false;
    return rtcosim_events_end(b->sim, err);
}

static void sb_destroy(void *self)
{
    signal_bus *b = self;
    if (b->begun)
        rtcosim_events_end(b->sim, NULL);
    rtcosim_can_bus_free(b->can);
    rtcosim_events_free(b->sim);
    rtcosim_can_replay_free(b->replay);
    for (size_t i = 0; b->names && i < b->var_count; i++)
        free(b->names[i]);
    free(b->names);
    free(b->vars);
    free(b->values);
    for (size_t i = 0; b->tx && i < b->tx_count; i++) {
        free(b->tx[i].sent);
        free(b->tx[i].fill);
    }
    free(b->tx);
    free(b->senders);
    free(b->rx_first);
    rtcosim_dbc_free(b->dbc);
    free(b);
}

static const rtcosim_component_ops signal_bus_ops = {
    .kind = "can-signals",
    .instantiate = sb_instantiate,
    .setup = sb_setup,
    .enter_init = nothing,
    .exit_init = nothing,
    .do_step = sb_do_step,
    .get = sb_get,
    .set = sb_set,
    .terminate = sb_terminate,
    .destroy = sb_destroy,
};

/* ---- building it ---- */

static int sender_of(const rtcosim_can_signal_bus_config *c, const char *transmitter)
{
    for (size_t i = 0; transmitter && i < c->sender_count; i++)
        if (strcmp(c->senders[i], transmitter) == 0)
            return (int)i;
    return -1;
}

static rtcosim_status add_variable(signal_bus *b, const rtcosim_dbc_message *m,
                                   const rtcosim_dbc_signal *s, bool input, rtcosim_error *err)
{
    size_t vr = b->var_count;
    char *name = malloc(strlen(m->name) + strlen(s->name) + 8);
    if (!name)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can signals: out of memory");
    sprintf(name, "%s.%s.%s", input ? "tx" : "rx", m->name, s->name);
    b->names[vr] = name;
    /* before anything is sent or received: the signal's start value
     * (GenSigStartValue, INIT-VALUE) as the receiver decodes it, else raw 0 */
    /* (as long as a message may be: one a transport protocol carries is never
     * received, its start values are all the same) */
    uint8_t bytes[RTCOSIM_DBC_MESSAGE_MAX] = {0};
    if (s->has_start && s->value_type != RTCOSIM_DBC_INTEGER) /* the raw value is the number */
        rtcosim_dbc_encode_saturated(s, s->start_raw * s->factor + s->offset, bytes, sizeof bytes);
    else if (s->has_start)
        rtcosim_dbc_raw_set(s, (uint64_t)(int64_t)llround(s->start_raw), bytes, sizeof bytes);
    double start = rtcosim_dbc_decode(s, bytes, sizeof bytes);
    b->values[vr] = start;
    b->vars[vr] = (rtcosim_variable){
        .name = name,
        .unit = s->unit && *s->unit ? s->unit : NULL,
        .value_reference = (uint32_t)vr,
        .type = RTCOSIM_TYPE_FLOAT64,
        .causality = input ? RTCOSIM_CAUSALITY_INPUT : RTCOSIM_CAUSALITY_OUTPUT,
        .variability = input ? RTCOSIM_VARIABILITY_CONTINUOUS : RTCOSIM_VARIABILITY_DISCRETE,
        .initial = input ? RTCOSIM_INITIAL_NONE : RTCOSIM_INITIAL_EXACT,
        .has_start = true,
        .start = {.f64 = start},
        .derivative_of = -1,
    };
    b->var_count++;
    return RTCOSIM_OK;
}

static rtcosim_status build(signal_bus *b, const rtcosim_can_signal_bus_config *c,
                            const char *dbc_name, rtcosim_error *err)
{
    size_t mc = rtcosim_dbc_message_count(b->dbc), signals = 0;
    for (size_t i = 0; i < mc; i++)
        signals += rtcosim_dbc_message_at(b->dbc, i)->signal_count;
    for (size_t k = 0; k < c->sender_count; k++) {
        bool known = false;
        for (size_t i = 0; i < mc && !known; i++) {
            const char *t = rtcosim_dbc_message_at(b->dbc, i)->transmitter;
            known = t && strcmp(t, c->senders[k]) == 0;
        }
        if (!known)
            return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "%s: no message has transmitter"
                                     " '%s' (BO_ ... %s)", dbc_name, c->senders[k],
                                     c->senders[k]);
    }
    b->vars = calloc(2 * signals + 1, sizeof *b->vars);
    b->names = calloc(2 * signals + 1, sizeof *b->names);
    b->values = calloc(2 * signals + 1, sizeof *b->values);
    b->tx = calloc(mc + 1, sizeof *b->tx);
    b->rx_first = calloc(mc + 1, sizeof *b->rx_first);
    b->senders = calloc(c->sender_count + 1, sizeof *b->senders);
    if (!b->vars || !b->names || !b->values || !b->tx || !b->rx_first || !b->senders)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can signals: out of memory");
    rtcosim_status st = RTCOSIM_OK;
    /* tx inputs of the senders' messages */
    for (size_t i = 0; i < mc && st == RTCOSIM_OK; i++) {
        const rtcosim_dbc_message *m = rtcosim_dbc_message_at(b->dbc, i);
        int s = sender_of(c, m->transmitter);
        if (s < 0)
            continue;
        if (m->dlc > 64)
            return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "can signals: %s sends %s of %u "
                                     "bytes, more than a CAN FD frame's 64: a transport protocol "
                                     "(J1939, ISO-TP) would carry it, which the simulated bus "
                                     "does not", m->transmitter, m->name, (unsigned)m->dlc);
        tx_message *t = &b->tx[b->tx_count++];
        *t = (tx_message){.m = m, .first_vr = (uint32_t)b->var_count, .sender = (uint32_t)s,
                          .fd = m->fd || m->dlc > 8,
                          .brs = m->fd ? m->brs : m->dlc > 8,
                          .length = (uint8_t)rtcosim_can_fd_length(m->dlc),
                          .cycle = m->cycle_time > 0 ? m->cycle_time : c->default_cycle,
                          .container = -1};
        if (m->header_bytes) { /* sent when its PDUs are due: no cycle of its own */
            if (!(t->fill = calloc(1, sizeof *t->fill)))
                return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can signals: out of memory");
            t->fill->due = RTCOSIM_TIME_MAX;
            t->cycle = 0;
            continue;
        }
        if (m->contained_in) { /* its container is an earlier message (the reader's order) */
            for (size_t j = 0; j + 1 < b->tx_count; j++)
                if (b->tx[j].m == m->contained_in)
                    t->container = (int32_t)j;
            if (t->container < 0 || (size_t)m->dlc + m->contained_in->header_bytes >
                                        b->tx[t->container].length)
                return rtcosim_error_set(err, RTCOSIM_EINVAL, "can signals: contained PDU %s"
                                         " (%u bytes) does not fit its container %s", m->name,
                                         (unsigned)m->dlc, m->contained_in->name);
        }
        for (size_t k = 0; k < m->signal_count; k++)
            t->nesting += m->signals[k].selects &&
                          m->signals[k].mux == RTCOSIM_DBC_MULTIPLEXED && t->nesting < 16;
        if (t->cycle <= 0 && !(t->sent = calloc(m->signal_count + 1, sizeof *t->sent)))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can signals: out of memory");
        for (size_t k = 0; k < m->signal_count && st == RTCOSIM_OK; k++)
            st = add_variable(b, m, &m->signals[k], true, err); /* the DBC reader checked the fit */
    }
    /* rx outputs of every message */
    for (size_t i = 0; i < mc && st == RTCOSIM_OK; i++) {
        const rtcosim_dbc_message *m = rtcosim_dbc_message_at(b->dbc, i);
        b->rx_first[i] = (uint32_t)b->var_count;
        for (size_t k = 0; k < m->signal_count && st == RTCOSIM_OK; k++)
            st = add_variable(b, m, &m->signals[k], false, err);
    }
    if (st != RTCOSIM_OK)
        return st;
    /* the simulation: bus, senders, receiver */
    rtcosim_can_bus_config bc = {.name = c->name, .bitrate = c->bitrate,
                                 .log_frames = c->log_frames, .log_capacity = c->log_capacity};
    st = rtcosim_events_create(&b->sim, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_can_bus_create(b->sim, &bc, &b->can, err);
    for (size_t k = 0; k < c->sender_count && st == RTCOSIM_OK; k++) {
        sender *s = &b->senders[b->sender_count++];
        s->owner = b;
        st = rtcosim_events_add_lp(b->sim, c->senders[k], &sender_model, s, RTCOSIM_LP_NO_GROUP,
                                   &s->lp, err);
        if (st == RTCOSIM_OK)
            st = rtcosim_can_bus_add_node(b->can, c->senders[k], s->lp, 0, &s->node, err);
    }
    for (size_t i = 0; i < b->tx_count && st == RTCOSIM_OK; i++) {
        const tx_message *t = &b->tx[i];
        uint32_t node = b->senders[t->sender].node;
        if (t->container >= 0)
            continue; /* its frames are its container's */
        rtcosim_can_format format = t->fd ? RTCOSIM_CAN_FORMAT_FD : RTCOSIM_CAN_FORMAT_CLASSIC;
        st = t->fill ? rtcosim_can_bus_add_tx_upto(b->can, node, format, t->m->id, t->m->extended,
                                                   t->length, err) /* as long as its contents */
                     : rtcosim_can_bus_add_tx_format(b->can, node, format, t->m->id,
                                                     t->m->extended, t->length, err);
    }
    if (st == RTCOSIM_OK)
        st = rtcosim_events_add_lp(b->sim, "receiver", &receiver_model, b, RTCOSIM_LP_NO_GROUP,
                                   &b->rx_lp, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_can_bus_add_node(b->can, "receiver", b->rx_lp, 0, &b->rx_node, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_can_bus_add_rx_all(b->can, b->rx_node, err);
    if (st == RTCOSIM_OK && c->replay_path)
        st = rtcosim_can_replay_add_file(b->sim, b->can, c->replay_path, c->replay_bus,
                                         &b->replay, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_can_bus_connect(b->can, err);
    return st;
}

rtcosim_status rtcosim_can_signal_bus_create(const rtcosim_can_signal_bus_config *config,
                                             rtcosim_dbc *dbc, const char *dbc_name,
                                             rtcosim_component **out, rtcosim_error *err)
{
    *out = NULL;
    signal_bus *b = calloc(1, sizeof *b);
    if (!b)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "can signals: out of memory");
    b->dbc = dbc;
    rtcosim_status st = build(b, config, dbc_name, err);
    if (st != RTCOSIM_OK) {
        sb_destroy(b); /* the DBC with it */
        return st;
    }
    rtcosim_component_desc d = {.model_name = config->name, .variables = b->vars,
                                .variable_count = b->var_count,
                                .capabilities = {.can_handle_variable_step = true}};
    st = rtcosim_component_create(&signal_bus_ops, b, &d, out, err);
    return st; /* on failure destroyed, the DBC with it */
}

rtcosim_can_bus *rtcosim_can_signal_bus_can(rtcosim_component *c)
{
    return c && strcmp(rtcosim_component_kind(c), "can-signals") == 0
               ? ((signal_bus *)rtcosim_component_impl(c))->can
               : NULL;
}

const rtcosim_dbc *rtcosim_can_signal_bus_dbc(rtcosim_component *c)
{
    return rtcosim_can_signal_bus_can(c) ? ((signal_bus *)rtcosim_component_impl(c))->dbc : NULL;
}

const rtcosim_can_replay *rtcosim_can_signal_bus_replay(rtcosim_component *c)
{
    return rtcosim_can_signal_bus_can(c) ? ((signal_bus *)rtcosim_component_impl(c))->replay
                                         : NULL;
}

uint64_t rtcosim_can_signal_bus_unknown(rtcosim_component *c)
{
    return rtcosim_can_signal_bus_can(c) ? ((signal_bus *)rtcosim_component_impl(c))->unknown
                                         : 0;
}
