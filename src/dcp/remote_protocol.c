/* The master's conversation with one remote slave, shared by NRT lock step
 * (remote.c) and soft real time (remote_srt.c): requests retransmitted with
 * the same pdu_seq_id until answered, waiting for announced states (a lost
 * notification recovered with INF_state), outputs taken from data PDUs and
 * inputs and tunable parameters sent as data PDUs. */
#include <stdio.h>
#include <string.h>

#include "dcp/remote_internal.h"
#include "dcp/values.h"
#include "util/le.h"
#include "rtcosim/dcp.h"
#include "rtcosim/log.h"

/* Whether the output values fill the payload exactly: the fixed ones by
 * size, String and Binary ones by the lengths they carry. */
static bool outputs_fit(const remote *r, const uint8_t *payload, size_t size)
{
    if (!r->out_sized)
        return size == r->out_payload;
    if (size < r->out_payload)
        return false;
    size_t used = 0;
    for (size_t i = 0; i < r->n_out; i++) {
        uint8_t wt;
        dcp_type_of(r->vars[r->out_idx[i]].type, &wt);
        size_t extent = dcp_value_wire_extent(wt, payload + used, size - used);
        if (extent == 0)
            return false;
        used += extent;
    }
    return used == size;
}

static void take_outputs(remote *r, const rtcosim_dcp_pdu *p)
{
    /* a malformed PDU is dropped before it takes a sequence number (else
     * the slave's next one would count as a repeat) */
    if (p->data_id != DATA_ID_OUTPUTS || !outputs_fit(r, p->payload, p->payload_size))
        return;
    uint16_t ahead = r->out_seen ? (uint16_t)(p->seq_id - r->out_last_seq) : 1;
    if (ahead == 0 || ahead >= 0x8000)
        return; /* duplicate or overtaken */
    r->out_seen = true;
    r->out_last_seq = p->seq_id;
    if (r->srt_running) {
        dcp_remote_srt_take(r, p, ahead);
        return;
    }
    dcp_remote_decode_outputs(r, p->payload, p->payload_size);
    r->out_fresh = true;
}

void dcp_remote_decode_outputs(remote *r, const uint8_t *payload, size_t size)
{
    const uint8_t *at = payload;
    for (size_t i = 0; i < r->n_out; i++) {
        size_t k = r->out_idx[i];
        uint8_t wt;
        dcp_type_of(r->vars[k].type, &wt);
        size_t extent = dcp_value_wire_extent(wt, at, size - (size_t)(at - payload));
        /* a String with a NUL byte keeps the value before it */
        (void)dcp_value_decode(wt, at, extent, r->vars[k].type, &r->values[k], &r->keep[k]);
        at += extent;
    }
}

/* NTF_log: the entry with its template filled in, logged at the template's
 * level; a fatal or error one (the slave's failure follows, 3.3.3.7) is
 * kept for the error of that failure and logged at debug level only, so
 * that it is said once. An unknown template is said as such. */
static void take_log(remote *r, const rtcosim_dcp_pdu *p)
{
    const rtcosim_dcp_log_template *t = NULL;
    for (size_t i = 0; i < r->n_templates && !t; i++)
        if (r->templates[i].id == p->log_template_id)
            t = &r->templates[i];
    char text[512];
    if (t)
        (void)rtcosim_dcp_log_format(t->msg, p->payload, p->payload_size, text, sizeof text);
    else
        snprintf(text, sizeof text, "log template %u, which its description does not declare "
                 "(%zu bytes of arguments)", (unsigned)p->log_template_id, p->payload_size);
    unsigned level = t ? t->level : 2;
    rtcosim_log_level as = level <= 1 ? RTCOSIM_LOG_DEBUG : level == 2 ? RTCOSIM_LOG_WARNING
                           : level == 3 ? RTCOSIM_LOG_INFO : RTCOSIM_LOG_DEBUG;
    rtcosim_log(as, "dcp", "slave %s:%u: %s", r->host, (unsigned)r->cfg.port, text);
    if (t && level <= 1)
        snprintf(r->last_error_log, sizeof r->last_error_log, "%s", text);
}

rtcosim_status dcp_remote_failed(remote *r, rtcosim_error *err)
{
    if (r->last_error_log[0])
        return rtcosim_error_set(err, RTCOSIM_ECOMPONENT, "DCP slave %s:%u went to %s: %s",
                                 r->host, (unsigned)r->cfg.port,
                                 rtcosim_dcp_state_name(r->slave_state), r->last_error_log);
    return rtcosim_error_set(err, RTCOSIM_ECOMPONENT, "DCP slave %s:%u went to %s", r->host,
                             (unsigned)r->cfg.port, rtcosim_dcp_state_name(r->slave_state));
}

/* Receive for at most timeout_ns, handling notifications and data. Returns
 * the decoded response (RSP_*) in *rsp when one arrived, true then. */
bool dcp_remote_pump(remote *r, rtcosim_time_ns timeout_ns, rtcosim_dcp_pdu *rsp)
{
    dcp_peer from;
    long n = dcp_link_recv(&r->link, r->rx, sizeof r->rx, &from, timeout_ns, r->cfg.spin_ns);
    if (n <= 0)
        return false;
    rtcosim_dcp_pdu p;
    if (rtcosim_dcp_pdu_decode(r->rx, (size_t)n, &p, NULL, NULL) != RTCOSIM_OK)
        return false;
    switch (p.type) {
    case RTCOSIM_DCP_NTF_STATE_CHANGED:
        r->slave_state = p.state_id;
        return false;
    case RTCOSIM_DCP_DAT_INPUT_OUTPUT:
        take_outputs(r, &p);
        return false;
    case RTCOSIM_DCP_NTF_LOG:
        take_log(r, &p);
        return false;
    case RTCOSIM_DCP_RSP_ACK: case RTCOSIM_DCP_RSP_NACK: case RTCOSIM_DCP_RSP_STATE_ACK:
    case RTCOSIM_DCP_RSP_ERROR_ACK:
        *rsp = p;
        return true;
    default:
        return false;
    }
}

static rtcosim_status send_raw(remote *r, const rtcosim_dcp_pdu *p, size_t *size, rtcosim_error *err)
{
    rtcosim_status st = rtcosim_dcp_pdu_encode(p, r->tx, sizeof r->tx, size, err);
    if (st == RTCOSIM_OK)
        dcp_link_send(&r->link, &r->peer, r->tx, *size);
    r->last_send = dcp_now_ns();
    return st;
}

/* Send a request and wait for its response, retransmitting the same bytes. */
rtcosim_status dcp_remote_request(remote *r, rtcosim_dcp_pdu *p, rtcosim_dcp_pdu *rsp, rtcosim_error *err)
{
    p->seq_id = r->seq++;
    p->receiver = 1;
    size_t size;
    rtcosim_status st = send_raw(r, p, &size, err);
    if (st != RTCOSIM_OK)
        return st;
    for (uint32_t attempt = 0; attempt < r->cfg.attempts; attempt++) {
        rtcosim_time_ns deadline = dcp_now_ns() + r->cfg.retry_ns;
        for (rtcosim_time_ns now = dcp_now_ns(); now < deadline; now = dcp_now_ns()) {
            if (!dcp_link_peer_open(&r->link, &r->peer)) {
                r->unanswered = true;
                return rtcosim_error_set(err, RTCOSIM_EIO,
                                         "DCP slave %s:%u closed the TCP connection (%s unanswered)",
                                         r->host, (unsigned)r->cfg.port,
                                         rtcosim_dcp_pdu_type_name(p->type));
            }
            rtcosim_dcp_pdu in;
            if (!dcp_remote_pump(r, deadline - now, &in) || in.seq_id != p->seq_id)
                continue;
            r->last_nack = in.type == RTCOSIM_DCP_RSP_NACK ? in.error_code : 0;
            if (in.type == RTCOSIM_DCP_RSP_NACK)
                return rtcosim_error_set(err, RTCOSIM_ECOMPONENT,
                                         "DCP slave %s:%u refused %s: %s (0x%04X)%s", r->host,
                                         (unsigned)r->cfg.port, rtcosim_dcp_pdu_type_name(p->type),
                                         rtcosim_dcp_error_code_name(in.error_code), in.error_code,
                                         in.error_code == RTCOSIM_DCP_ERR_INVALID_UUID &&
                                                 rtcosim_dcp_uuid_is_nil(r->cfg.uuid)
                                             ? " (no uuid known: give the slave's .dcpx as the "
                                               "component's source)"
                                             : "");
            if (rsp)
                *rsp = in;
            return RTCOSIM_OK;
        }
        /* Once per unanswered attempt but the last, encoded again (other
         * PDUs may have been encoded into the buffer since), the same seq_id */
        if (attempt + 1 < r->cfg.attempts && (st = send_raw(r, p, &size, err)) != RTCOSIM_OK)
            return st;
    }
    r->unanswered = true;
    return rtcosim_error_set(err, RTCOSIM_ETIMEOUT, "DCP slave %s:%u did not answer %s",
                             r->host, (unsigned)r->cfg.port, rtcosim_dcp_pdu_type_name(p->type));
}

/* A state change request; state_id is the state the slave is in now. The
 * state the request leads to is recorded first, so that a notification that
 * overtakes the acknowledgement is not overwritten. */
rtcosim_status dcp_remote_stc_to(remote *r, uint8_t type, uint32_t steps, uint8_t next_state,
                             rtcosim_error *err)
{
    uint8_t now = r->slave_state;
    r->slave_state = next_state;
    rtcosim_dcp_pdu p = {.type = type, .state_id = now, .steps = steps,
                         .major_version = 1, .minor_version = 0, .op_mode = r->op_mode};
    if (type == RTCOSIM_DCP_STC_REGISTER)
        memcpy(p.uuid, r->cfg.uuid, sizeof p.uuid);
    rtcosim_status st = dcp_remote_request(r, &p, NULL, err);
    if (st != RTCOSIM_OK && r->slave_state == next_state)
        r->slave_state = now;
    return st;
}

/* Requests whose transition the slave announces itself (NTF_state_changed). */
rtcosim_status dcp_remote_stc(remote *r, uint8_t type, uint32_t steps, rtcosim_error *err)
{
    return dcp_remote_stc_to(r, type, steps, r->slave_state, err);
}

/* Wait until the slave announces `state` (and, with need_outputs, fresh
 * outputs arrived); a lost notification is recovered by asking INF_state. */
rtcosim_status dcp_remote_await(remote *r, uint8_t state, bool need_outputs, rtcosim_error *err)
{
    for (uint32_t attempt = 0; attempt < r->cfg.attempts; attempt++) {
        rtcosim_time_ns deadline = dcp_now_ns() + r->cfg.retry_ns;
        for (rtcosim_time_ns now = dcp_now_ns(); now < deadline; now = dcp_now_ns()) {
            if (r->slave_state == state && (!need_outputs || r->out_fresh)) {
                if (need_outputs)
                    r->outputs_missed = 0;
                return RTCOSIM_OK;
            }
            if (r->slave_state == RTCOSIM_DCP_ERRORHANDLING ||
                r->slave_state == RTCOSIM_DCP_ERRORRESOLVED)
                return dcp_remote_failed(r, err);
            rtcosim_dcp_pdu ignored;
            (void)dcp_remote_pump(r, deadline - now, &ignored);
        }
        if (r->slave_state == state && need_outputs) {
            /* The state is known; only the data are late or lost. */
            if (r->cfg.hold_lost_outputs && !r->in_init) {
                if (++r->outputs_missed > r->cfg.max_missed_outputs)
                    return rtcosim_error_set(err, RTCOSIM_EIO,
                                             "DCP slave %s:%u: output data lost %u times in a row",
                                             r->host, (unsigned)r->cfg.port,
                                             (unsigned)r->outputs_missed);
                return RTCOSIM_OK; /* the outputs of the step before are held */
            }
            continue;
        }
        rtcosim_dcp_pdu q = {.type = RTCOSIM_DCP_INF_STATE}, a;
        rtcosim_status st = dcp_remote_request(r, &q, &a, err);
        if (st != RTCOSIM_OK)
            return st;
        if (a.type == RTCOSIM_DCP_RSP_STATE_ACK)
            r->slave_state = a.state_id;
    }
    if (r->slave_state == state && need_outputs)
        return rtcosim_error_set(err, RTCOSIM_EIO, "DCP slave %s:%u: output data lost",
                                 r->host, (unsigned)r->cfg.port);
    return rtcosim_error_set(err, RTCOSIM_ETIMEOUT, "DCP slave %s:%u did not reach %s",
                             r->host, (unsigned)r->cfg.port, rtcosim_dcp_state_name(state));
}

/* One DAT_input_output or DAT_parameter with the values of `idx`; a
 * payload that does not fit in one PDU (Strings or Binaries too long) is an
 * error naming the value that overflowed it. */
static rtcosim_status send_values(remote *r, uint8_t type, uint16_t id, uint16_t seq,
                                  const size_t *idx, size_t n, rtcosim_error *err)
{
    uint8_t *at = r->tx + 5;
    for (size_t i = 0; i < n; i++) {
        const rtcosim_variable *v = &r->vars[idx[i]];
        size_t size = dcp_value_wire_size(v->type, &r->values[idx[i]]);
        if (size > (size_t)(r->tx + sizeof r->tx - at))
            return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                     "DCP slave %s:%u: '%s' (%zu bytes) does not fit in one data "
                                     "PDU (at most %u bytes, %zu taken before it)", r->host,
                                     (unsigned)r->cfg.port, v->name, size, RTCOSIM_DCP_MAX_PDU,
                                     (size_t)(at - r->tx));
        at += dcp_value_to_wire(v->type, &r->values[idx[i]], at);
    }
    r->tx[0] = type;
    le_put16(r->tx + 1, seq);
    le_put16(r->tx + 3, id);
    dcp_link_send(&r->link, &r->peer, r->tx, (size_t)(at - r->tx));
    return RTCOSIM_OK;
}

/* Changed tunable parameters go out before the inputs and the request they
 * belong to; the slave applies them at its next step (NRT, spec 3.1.18.3). */
static rtcosim_status send_tunables(remote *r, rtcosim_error *err)
{
    if (!r->tunables_dirty || r->n_tun == 0)
        return RTCOSIM_OK;
    rtcosim_status st = send_values(r, RTCOSIM_DCP_DAT_PARAMETER, PARAM_ID_TUNABLES, r->param_seq++,
                                    r->tun_idx, r->n_tun, err);
    r->tunables_dirty = false;
    return st;
}

rtcosim_status dcp_remote_send_inputs(remote *r, rtcosim_error *err)
{
    rtcosim_status st = send_tunables(r, err);
    if (st == RTCOSIM_OK && r->n_in)
        st = send_values(r, RTCOSIM_DCP_DAT_INPUT_OUTPUT, DATA_ID_INPUTS, r->in_seq++, r->in_idx,
                         r->n_in, err);
    return st;
}
