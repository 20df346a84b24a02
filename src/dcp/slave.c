/* DCP slave: serves one rtcosim component per session over UDP/IPv4 and
 * walks the DCP 1.0 state machine (spec 3.2). Requests that the current
 * state does not allow get RSP_nack PROTOCOL_ERROR_PDU_NOT_ALLOWED_IN_THIS_STATE;
 * every state the slave enters is announced with NTF_state_changed (3.4.4),
 * under the slave id the master gave in STC_register. A master that started
 * a heartbeat (INF_state) and then falls silent past the timeout is dropped
 * and the slave is ALIVE for the next session. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dcp/slave_internal.h"
#include "util/le.h"
#include "rtcosim/log.h"

rtcosim_time_ns dcp_slave_now(const rtcosim_dcp_slave *s)
{
    return dcp_now_ns() + s->clock_skew;
}

static void set_state(rtcosim_dcp_slave *s, uint8_t state)
{
    s->state = state;
    atomic_store(&s->state_pub, state);
}

static void send_pdu(rtcosim_dcp_slave *s, const rtcosim_dcp_pdu *p, bool remember)
{
    uint8_t buf[32];
    size_t n;
    if (rtcosim_dcp_pdu_encode(p, buf, sizeof buf, &n, NULL) != RTCOSIM_OK)
        return;
    dcp_link_send(&s->link, &s->master, buf, n);
    if (remember) {
        memcpy(s->last_rsp, buf, n);
        s->last_rsp_size = n;
    }
}

/* Enter `state` and tell the master (3.4.4: as soon as a state change is
 * finished; the field sender is the slave id, 3.3.3.2). */
static void notify(rtcosim_dcp_slave *s, uint8_t state)
{
    set_state(s, state);
    rtcosim_dcp_pdu p = {.type = RTCOSIM_DCP_NTF_STATE_CHANGED, .receiver = s->slave_id,
                         .state_id = state};
    send_pdu(s, &p, false);
}

static void ack(rtcosim_dcp_slave *s, uint16_t seq)
{
    rtcosim_dcp_pdu p = {.type = RTCOSIM_DCP_RSP_ACK, .seq_id = seq, .receiver = s->slave_id};
    send_pdu(s, &p, true);
}

/* A transition that completes at once: the state holds before the
 * acknowledgement leaves (so the master can never see the old one after
 * RSP_ack), then the notification follows (3.4.3, 3.4.4). */
static void ack_entered(rtcosim_dcp_slave *s, uint16_t seq, uint8_t state)
{
    set_state(s, state);
    ack(s, seq);
    notify(s, state);
}

static void nack_to(rtcosim_dcp_slave *s, const dcp_peer *to, uint16_t seq,
                    uint16_t code)
{
    rtcosim_dcp_pdu p = {.type = RTCOSIM_DCP_RSP_NACK, .seq_id = seq, .receiver = s->slave_id,
                         .exp_seq_id = (uint16_t)(s->have_seq ? s->last_seq + 1 : seq + 1),
                         .error_code = code};
    uint8_t buf[16];
    size_t n;
    if (rtcosim_dcp_pdu_encode(&p, buf, sizeof buf, &n, NULL) != RTCOSIM_OK)
        return;
    dcp_link_send(&s->link, to, buf, n);
    if (to == &s->master) {
        memcpy(s->last_rsp, buf, n);
        s->last_rsp_size = n;
    }
}

static void end_session(rtcosim_dcp_slave *s)
{
    rtcosim_component_free(s->comp);
    s->comp = NULL;
    s->in_init = false;
    s->stepping = false;
    s->error_code = 0;
    s->set_failed = false;
    s->heartbeat_armed = false;
    s->link.keep_conn = -1;
    dcp_slave_clear_config(s);
    /* The response cache survives: a repeated STC_deregister whose
     * acknowledgement was lost is answered again, not refused. */
}

/* Why the slave fails, to a master that asked for logging on notification
 * (template RTCOSIM_DCP_SLAVE_LOG_FAILURE of its DCPX, level error: one
 * "%string"; the absolute time in seconds, 3.3.3.30). */
static void log_failure(rtcosim_dcp_slave *s, const char *why)
{
    if (s->log_mode != 2 || s->log_level < 1)
        return;
    size_t n = strlen(why);
    uint8_t args[RTCOSIM_ERROR_MESSAGE_MAX + 8];
    if (n > sizeof args - 4)
        n = sizeof args - 4;
    le_put32(args, (uint32_t)n);
    memcpy(args + 4, why, n);
    rtcosim_dcp_pdu p = {.type = RTCOSIM_DCP_NTF_LOG, .receiver = s->slave_id,
                         .start_time = (int64_t)time(NULL),
                         .log_template_id = RTCOSIM_DCP_SLAVE_LOG_FAILURE, .payload = args,
                         .payload_size = 4 + n};
    uint8_t buf[sizeof args + 16];
    size_t size;
    if (rtcosim_dcp_pdu_encode(&p, buf, sizeof buf, &size, NULL) == RTCOSIM_OK)
        dcp_link_send(&s->link, &s->master, buf, size);
}

/* SIG_error: ERRORHANDLING, release the model, ERRORRESOLVED (3.2.5.23-24). */
static void fail(rtcosim_dcp_slave *s, uint16_t code, const char *why)
{
    /* a refused input set before makes the component fail later: its
     * error is the reason */
    char first[RTCOSIM_ERROR_MESSAGE_MAX];
    if (s->set_failed) {
        snprintf(first, sizeof first, "%s", s->set_error.message);
        why = first;
        s->set_failed = false;
    }
    rtcosim_log(RTCOSIM_LOG_WARNING, "dcp", "slave %s: %s (%s) in %s", s->name, why,
                rtcosim_dcp_error_code_name(code), rtcosim_dcp_state_name(s->state));
    log_failure(s, why);
    s->error_code = code;
    s->step_held = false;
    notify(s, RTCOSIM_DCP_ERRORHANDLING);
    rtcosim_component_free(s->comp);
    s->comp = NULL;
    s->in_init = false;
    s->stepping = false;
    notify(s, RTCOSIM_DCP_ERRORRESOLVED);
}

static bool start_component(rtcosim_dcp_slave *s, rtcosim_error *err)
{
    rtcosim_component *c = NULL;
    if (s->cfg.factory(s->cfg.factory_context, &c, err) != RTCOSIM_OK)
        return false;
    if (rtcosim_component_instantiate(c, s->name, err) != RTCOSIM_OK ||
        rtcosim_component_setup(c, 0, 0, -1, err) != RTCOSIM_OK) {
        rtcosim_component_free(c);
        return false;
    }
    s->comp = c;
    s->t = 0;
    return true;
}

static void step(rtcosim_dcp_slave *s, uint32_t steps)
{
    rtcosim_time_ns h;
    rtcosim_error err;
    rtcosim_step_result r;
    if (rtcosim_dcp_steps_to_ns(steps, s->tick_ns, &h, &err) != RTCOSIM_OK ||
        dcp_slave_apply_pending(s, &err) != RTCOSIM_OK ||
        rtcosim_component_do_step(s->comp, s->t, h, &r, &err) != RTCOSIM_OK) {
        fail(s, RTCOSIM_DCP_ERR_PROTOCOL_ERROR_GENERIC, err.message);
        return;
    }
    s->t += h;
}

/* SRT: STC_run's start_time is absolute time, UNIX seconds (spec 3.1.14.1);
 * the slave enters its state at once and starts the simulated time when the
 * wall clock reaches it (3.2.5.12), i.e. under the master's clock. 0 or a
 * time already past: now. Returned on the monotonic clock the loop uses. */
static rtcosim_time_ns srt_start(const rtcosim_dcp_slave *s, int64_t start_time)
{
    struct timespec real;
    clock_gettime(CLOCK_REALTIME, &real);
    rtcosim_time_ns now = dcp_slave_now(s);
    if (start_time <= 0)
        return now;
    if (start_time > INT64_MAX / RTCOSIM_NS_PER_S)
        return INT64_MAX; /* past 2262: never, as a time just before it */
    rtcosim_time_ns ahead = start_time * RTCOSIM_NS_PER_S -
                            ((rtcosim_time_ns)real.tv_sec * RTCOSIM_NS_PER_S + real.tv_nsec);
    return ahead <= 0 ? now : ahead > INT64_MAX - now ? INT64_MAX : now + ahead;
}

/* SRT: when the step after the one due at `at` is due. Saturated: a start
 * time years ahead plus a period of years (both the master's) is a step that
 * never comes, not an overflow of the clock. */
static rtcosim_time_ns next_rt_step_after(const rtcosim_dcp_slave *s, rtcosim_time_ns at)
{
    rtcosim_time_ns period;
    if (rtcosim_dcp_steps_to_ns(s->rt_steps, s->tick_ns, &period, NULL) != RTCOSIM_OK ||
        period > INT64_MAX - at)
        return INT64_MAX;
    return at + period;
}

/* The computation of STC_do_step, announced with NTF COMPUTED. */
static void compute(rtcosim_dcp_slave *s, uint32_t steps)
{
    s->step_held = false;
    step(s, steps);
    dcp_slave_inputs_consumed(s);
    if (s->state == RTCOSIM_DCP_COMPUTING)
        notify(s, RTCOSIM_DCP_COMPUTED);
}

/* STC_* requests, already checked against the state table: acknowledge,
 * then walk the transition, announcing each state entered (3.4.3). */
static void state_change(rtcosim_dcp_slave *s, const rtcosim_dcp_pdu *p)
{
    rtcosim_error err;
    switch (p->type) {
    case RTCOSIM_DCP_STC_DEREGISTER:
        end_session(s);
        ack_entered(s, p->seq_id, RTCOSIM_DCP_ALIVE);
        return;
    case RTCOSIM_DCP_STC_PREPARE: {
        uint16_t code = dcp_slave_check_config(s);
        if (!code)
            code = dcp_slave_connect_targets(s);
        if (code) {
            nack_to(s, &s->master, p->seq_id, code);
            return;
        }
        ack(s, p->seq_id);
        notify(s, RTCOSIM_DCP_PREPARING);
        notify(s, RTCOSIM_DCP_PREPARED);
        return;
    }
    case RTCOSIM_DCP_STC_CONFIGURE:
        ack(s, p->seq_id);
        notify(s, RTCOSIM_DCP_CONFIGURING);
        if (rtcosim_component_enter_init(s->comp, &err) != RTCOSIM_OK) {
            fail(s, RTCOSIM_DCP_ERR_PROTOCOL_ERROR_GENERIC, err.message);
            return;
        }
        s->in_init = true;
        if (dcp_slave_apply_params(s, &err) != RTCOSIM_OK) {
            fail(s, RTCOSIM_DCP_ERR_PROTOCOL_ERROR_GENERIC, err.message);
            return;
        }
        notify(s, RTCOSIM_DCP_CONFIGURED);
        return;
    case RTCOSIM_DCP_STC_INITIALIZE:
        ack(s, p->seq_id);
        notify(s, RTCOSIM_DCP_INITIALIZING);
        notify(s, RTCOSIM_DCP_INITIALIZED);
        return;
    case RTCOSIM_DCP_STC_SEND_OUTPUTS: {
        bool init = s->state == RTCOSIM_DCP_INITIALIZED;
        uint8_t back = init ? RTCOSIM_DCP_CONFIGURED : s->before_sending_d;
        ack(s, p->seq_id);
        notify(s, init ? RTCOSIM_DCP_SENDING_I : RTCOSIM_DCP_SENDING_D);
        if (dcp_slave_send_outputs(s, 0, &err) != RTCOSIM_OK) {
            fail(s, RTCOSIM_DCP_ERR_PROTOCOL_ERROR_GENERIC, err.message);
            return;
        }
        notify(s, back);
        return;
    }
    case RTCOSIM_DCP_STC_RUN:
        ack(s, p->seq_id);
        if (s->state == RTCOSIM_DCP_CONFIGURED) {
            if (s->in_init && rtcosim_component_exit_init(s->comp, &err) != RTCOSIM_OK) {
                fail(s, RTCOSIM_DCP_ERR_PROTOCOL_ERROR_GENERIC, err.message);
                return;
            }
            s->in_init = false;
            s->stepping = true;
            dcp_slave_inputs_begin_run(s);
            notify(s, RTCOSIM_DCP_SYNCHRONIZING);
            /* No transient to wait for: synchronized at once (3.2.5.21). */
            notify(s, RTCOSIM_DCP_SYNCHRONIZED);
        } else {
            set_state(s, RTCOSIM_DCP_RUNNING);
            notify(s, RTCOSIM_DCP_RUNNING);
        }
        if (s->mode != RTCOSIM_DCP_OP_NRT) {
            if (s->state != RTCOSIM_DCP_RUNNING)
                s->rt_step_count = 0;
            /* Simulated time follows the wall clock from the start: the
             * step to h is taken (and its outputs sent) when start + h is
             * reached, never ahead of real time, so that inputs the master
             * sent for time 0 are there for it. */
            s->next_rt_step = next_rt_step_after(s, srt_start(s, p->start_time));
        }
        return;
    case RTCOSIM_DCP_STC_DO_STEP:
        if (p->steps == 0) {
            nack_to(s, &s->master, p->seq_id, RTCOSIM_DCP_ERR_INVALID_STEPS);
            return;
        }
        ack(s, p->seq_id);
        s->before_sending_d = s->state;
        notify(s, RTCOSIM_DCP_COMPUTING);
        if (dcp_slave_inputs_ready(s)) {
            compute(s, p->steps);
        } else {
            /* The inputs sent before this request are still on their way:
             * COMPUTING waits for them (or for input_wait_ns). */
            s->step_held = true;
            s->held_steps = p->steps;
            s->held_since = dcp_slave_now(s);
        }
        return;
    case RTCOSIM_DCP_STC_STOP:
        ack(s, p->seq_id);
        s->step_held = false;
        notify(s, RTCOSIM_DCP_STOPPING);
        /* Terminate only a component past initialization (STC_run): FMI
         * allows fmi2Terminate/fmi3Terminate only there; one stopped
         * earlier is released by free at STC_deregister or STC_reset. */
        if (s->comp && s->stepping)
            (void)rtcosim_component_terminate(s->comp, NULL);
        s->stepping = false;
        notify(s, RTCOSIM_DCP_STOPPED);
        return;
    case RTCOSIM_DCP_STC_RESET:
        ack(s, p->seq_id);
        bool armed = s->heartbeat_armed; /* the same master keeps its heartbeat */
        end_session(s);
        s->heartbeat_armed = armed;
        if (!start_component(s, &err)) {
            fail(s, RTCOSIM_DCP_ERR_PROTOCOL_ERROR_GENERIC, err.message);
            return;
        }
        notify(s, RTCOSIM_DCP_CONFIGURATION);
        return;
    default:
        return;
    }
}

/* STC_register in ALIVE: the checks in the order of spec table 110
 * (state_id, slave_uuid, op_mode, major, minor), then a fresh component. The
 * receiver becomes this slave's id for the session. */
static void do_register(rtcosim_dcp_slave *s, const rtcosim_dcp_pdu *p, const dcp_peer *from)
{
    uint16_t code = 0;
    bool nil_uuid = rtcosim_dcp_uuid_is_nil(p->uuid);
    s->slave_id = p->receiver; /* answer under the id the master chose (3.4.4) */
    if (p->state_id != RTCOSIM_DCP_ALIVE)
        code = RTCOSIM_DCP_ERR_INVALID_STATE_ID;
    else if (!nil_uuid && memcmp(p->uuid, s->uuid, 16) != 0)
        code = RTCOSIM_DCP_ERR_INVALID_UUID;
    else if (p->op_mode != RTCOSIM_DCP_OP_NRT &&
             (p->op_mode != RTCOSIM_DCP_OP_SRT || s->cfg.nrt_only))
        code = RTCOSIM_DCP_ERR_INVALID_OP_MODE;
    else if (p->major_version != 1)
        code = RTCOSIM_DCP_ERR_INVALID_MAJOR_VERSION;
    else if (p->minor_version != 0)
        code = RTCOSIM_DCP_ERR_INVALID_MINOR_VERSION;
    if (code) {
        if (code == RTCOSIM_DCP_ERR_INVALID_UUID) {
            char got[37], want[37];
            rtcosim_dcp_uuid_format(p->uuid, got);
            rtcosim_dcp_uuid_format(s->uuid, want);
            rtcosim_log(RTCOSIM_LOG_WARNING, "dcp", "slave %s: STC_register for uuid %s, this slave is %s",
                        s->name, got, want);
        }
        nack_to(s, from, p->seq_id, code);
        return;
    }
    if (nil_uuid)
        /* Lenient for a master that has no DCPX (rtcosim's --dcp HOST:PORT). */
        rtcosim_log(RTCOSIM_LOG_WARNING, "dcp",
                    "slave %s: STC_register with the nil uuid: accepted unchecked", s->name);
    rtcosim_error err;
    s->master = *from;
    s->mode = p->op_mode;
    s->have_seq = true;
    s->last_seq = p->seq_id;
    s->last_req_type = p->type;
    s->heartbeat_armed = false;
    s->session_pdus = 0;
    s->busy_logged = (dcp_peer){.conn = -2};
    s->link.keep_conn = from->conn; /* a TCP master's connection is never closed as idle */
    dcp_slave_clear_config(s);
    if (!start_component(s, &err)) {
        rtcosim_log(RTCOSIM_LOG_WARNING, "dcp", "slave %s: %s", s->name, err.message);
        nack_to(s, from, p->seq_id, RTCOSIM_DCP_ERR_PROTOCOL_ERROR_GENERIC);
        s->have_seq = false;
        return;
    }
    atomic_fetch_add(&s->sessions, 1);
    ack_entered(s, p->seq_id, RTCOSIM_DCP_CONFIGURATION);
}

static bool same_peer(const dcp_peer *a, const dcp_peer *b) { return dcp_peer_same(a, b); }

/* RSP_state_ack or RSP_error_ack for INF_state / INF_error, to whoever asked. */
static void answer_info(rtcosim_dcp_slave *s, const rtcosim_dcp_pdu *p, const dcp_peer *to,
                        bool remember)
{
    rtcosim_dcp_pdu r = {.type = p->type == RTCOSIM_DCP_INF_STATE ? RTCOSIM_DCP_RSP_STATE_ACK
                                                                 : RTCOSIM_DCP_RSP_ERROR_ACK,
                         .seq_id = p->seq_id, .state_id = s->state, .error_code = s->error_code,
                         /* In ALIVE the slave has no id yet: the one asked for (as DCPLib). */
                         .receiver = s->state == RTCOSIM_DCP_ALIVE ? p->receiver : s->slave_id};
    uint8_t buf[8];
    size_t n;
    if (rtcosim_dcp_pdu_encode(&r, buf, sizeof buf, &n, NULL) != RTCOSIM_OK)
        return;
    dcp_link_send(&s->link, to, buf, n);
    if (remember) {
        memcpy(s->last_rsp, buf, n);
        s->last_rsp_size = n;
    }
}

/* One received PDU, checked in the order of spec table 107: type id
 * (unknown: dropped), receiver (not this slave: dropped), sequence id
 * (INVALID_SEQUENCE_ID), support and length (the decoder), state
 * (PDU_NOT_ALLOWED_IN_THIS_STATE), then each request's own semantics. */
static void handle(rtcosim_dcp_slave *s, size_t size, const dcp_peer *from)
{
    rtcosim_dcp_pdu p;
    uint16_t code;
    bool registered = s->state != RTCOSIM_DCP_ALIVE;
    rtcosim_error derr;
    if (rtcosim_dcp_pdu_decode(s->rx, size, &p, &code, &derr) != RTCOSIM_OK) {
        rtcosim_log(RTCOSIM_LOG_DEBUG, "dcp", "slave %s: %s", s->name, derr.message);
        /* Answer a broken request only when its type is known and its
         * sequence id can be read; an unknown type id is dropped. */
        if (code == RTCOSIM_DCP_ERR_INVALID_LENGTH && size >= 3 && s->rx[0] < RTCOSIM_DCP_RSP_ACK)
            nack_to(s, from, (uint16_t)(s->rx[1] | s->rx[2] << 8), code);
        return;
    }
    bool from_master = registered && same_peer(from, &s->master);
    bool request = p.type < RTCOSIM_DCP_RSP_ACK;
    /* Receiver (table 105): a request for another slave id is not for this
     * session; in ALIVE any id but 0 (the master's) may be this slave's,
     * and the answers go out under it. */
    if (request && registered && from_master && p.receiver != s->slave_id)
        return;
    if (request && !registered) {
        if (p.receiver == 0)
            return;
        s->slave_id = p.receiver;
    }
    /* A retransmitted request (same id and type as the last one from this
     * master) is answered again from the cache, never executed twice (UDP
     * loses responses; the spec would call it INVALID_SEQUENCE_ID). */
    if (request && s->have_seq && same_peer(from, &s->master) &&
        p.seq_id == s->last_seq && p.type == s->last_req_type && s->last_rsp_size) {
        if (registered)
            s->last_heard = dcp_slave_now(s);
        dcp_link_send(&s->link, &s->master, s->last_rsp, s->last_rsp_size);
        return;
    }
    /* An older request from the master (its pdu_seq_id behind the last one,
     * mod 2^16) is a retransmission that UDP delivered after the next
     * request: the master has its answer already; executing it again would
     * repeat a step. */
    if (request && p.type != RTCOSIM_DCP_STC_REGISTER && from_master && s->have_seq &&
        (uint16_t)(p.seq_id - s->last_seq) >= 0x8000)
        return;
    if (p.type == RTCOSIM_DCP_DAT_INPUT_OUTPUT || p.type == RTCOSIM_DCP_DAT_PARAMETER) {
        if (registered && rtcosim_dcp_request_allowed(s->state, p.type, s->mode)) {
            if (p.type == RTCOSIM_DCP_DAT_INPUT_OUTPUT) {
                dcp_slave_take_data(s, &p);
                if (s->step_held && dcp_slave_inputs_ready(s))
                    compute(s, s->held_steps);
            } else { /* NRT Run superstate: at the next step; else at once */
                dcp_slave_take_params(s, &p, s->mode != RTCOSIM_DCP_OP_NRT || s->in_init);
            }
            if (s->error_code == RTCOSIM_DCP_ERR_PROTOCOL_ERROR_PROPERTY_VIOLATED &&
                s->state != RTCOSIM_DCP_ERRORRESOLVED)
                fail(s, s->error_code, "more data PDUs lost in a row than maxConsecMissedPdus");
        }
        return;
    }
    if (!request)
        return; /* responses and notifications are for masters (3.4.7) */
    if (registered && !from_master) {
        /* Another master while a session runs: its state on request, else busy. */
        if (p.type == RTCOSIM_DCP_INF_STATE) {
            answer_info(s, &p, from, false);
            return;
        }
        nack_to(s, from, p.seq_id, RTCOSIM_DCP_ERR_PROTOCOL_ERROR_PDU_NOT_ALLOWED_IN_THIS_STATE);
        if (p.type == RTCOSIM_DCP_STC_REGISTER && !same_peer(from, &s->busy_logged)) {
            char who[32], master[32];
            inet_ntop(AF_INET, &from->addr.sin_addr, who, sizeof who);
            inet_ntop(AF_INET, &s->master.addr.sin_addr, master, sizeof master);
            rtcosim_log(RTCOSIM_LOG_WARNING, "dcp",
                        "slave %s: STC_register from %s:%u refused: busy with the master at %s:%u",
                        s->name, who, (unsigned)ntohs(from->addr.sin_port), master,
                        (unsigned)ntohs(s->master.addr.sin_port));
            s->busy_logged = *from;
        }
        return;
    }
    if (from_master) {
        s->last_heard = dcp_slave_now(s);
        s->session_pdus++;
        /* Control PDU sequence (3.4.1.1): the last valid one + 1. */
        if ((uint16_t)(p.seq_id - s->last_seq) != 1 && p.type != RTCOSIM_DCP_STC_REGISTER) {
            nack_to(s, from, p.seq_id, RTCOSIM_DCP_ERR_INVALID_SEQUENCE_ID);
            return;
        }
    }
    /* Support (table 107, before state): logging on notification only, so
     * INF_log is an unsupported PDU (3.4.7.4, note to table 130). */
    if (p.type == RTCOSIM_DCP_INF_LOG) {
        nack_to(s, from, p.seq_id, RTCOSIM_DCP_ERR_NOT_SUPPORTED_PDU);
        if (from_master) {
            s->last_seq = p.seq_id;
            s->last_req_type = p.type;
        }
        return;
    }
    if (p.type == RTCOSIM_DCP_INF_STATE ||
        (p.type == RTCOSIM_DCP_INF_ERROR && rtcosim_dcp_request_allowed(s->state, p.type, s->mode))) {
        if (from_master) {
            s->last_seq = p.seq_id;
            s->last_req_type = p.type;
            /* INF_state from the master is its heartbeat (3.4.9.2). */
            if (p.type == RTCOSIM_DCP_INF_STATE)
                s->heartbeat_armed = true;
        }
        answer_info(s, &p, from, from_master);
        return;
    }
    if (!rtcosim_dcp_request_allowed(s->state, p.type, registered ? s->mode : RTCOSIM_DCP_OP_NRT)) {
        nack_to(s, from, p.seq_id, RTCOSIM_DCP_ERR_PROTOCOL_ERROR_PDU_NOT_ALLOWED_IN_THIS_STATE);
        /* STC_register is exempt from the sequence check: one that is not
         * the next in the session's sequence is most often a retransmission
         * of the session's own that UDP delivered late, which must not take
         * the expected sequence id back to it (the master's next request
         * would be refused as INVALID_SEQUENCE_ID). */
        if (from_master && (p.type != RTCOSIM_DCP_STC_REGISTER ||
                            (uint16_t)(p.seq_id - s->last_seq) == 1)) {
            s->last_seq = p.seq_id;
            s->last_req_type = p.type;
        }
        return;
    }
    if (p.type == RTCOSIM_DCP_STC_REGISTER) {
        do_register(s, &p, from);
        s->last_heard = dcp_slave_now(s);
        return;
    }
    s->last_seq = p.seq_id;
    s->last_req_type = p.type;
    if (p.type >= RTCOSIM_DCP_STC_REGISTER && p.type <= RTCOSIM_DCP_STC_RESET) {
        /* STC_*: state_id names the state the master believes the slave in. */
        if (p.state_id != s->state) {
            nack_to(s, &s->master, p.seq_id, RTCOSIM_DCP_ERR_INVALID_STATE_ID);
            return;
        }
        state_change(s, &p);
        return;
    }
    /* CFG_* in CONFIGURATION. */
    code = dcp_slave_configure_pdu(s, &p);
    if (code)
        nack_to(s, &s->master, p.seq_id, code);
    else
        ack(s, p.seq_id);
}

/* Soft real time: step the model on the wall clock and send outputs at the
 * periods of CFG_steps; a late step is taken at once, never skipped. */
static void real_time_step(rtcosim_dcp_slave *s)
{
    step(s, s->rt_steps);
    if (s->state != RTCOSIM_DCP_ERRORRESOLVED) {
        rtcosim_error err;
        s->rt_step_count++;
        if (dcp_slave_send_outputs(s, s->rt_step_count, &err) != RTCOSIM_OK)
            fail(s, RTCOSIM_DCP_ERR_PROTOCOL_ERROR_GENERIC, err.message);
    }
    s->next_rt_step = next_rt_step_after(s, s->next_rt_step);
}

static bool real_time_active(const rtcosim_dcp_slave *s)
{
    return s->mode != RTCOSIM_DCP_OP_NRT &&
           (s->state == RTCOSIM_DCP_SYNCHRONIZED || s->state == RTCOSIM_DCP_RUNNING ||
            s->state == RTCOSIM_DCP_SYNCHRONIZING);
}

bool dcp_slave_timers(rtcosim_dcp_slave *s, rtcosim_time_ns now, rtcosim_time_ns *timeout)
{
    if (s->state != RTCOSIM_DCP_ALIVE) {
        rtcosim_time_ns silent = now - s->last_heard;
        /* A master on TCP that closed its control connection is gone at
         * once; one that started a heartbeat, after the timeout
         * (3.4.9.2). A master that never sent INF_state set no heartbeat
         * and may be silent (DCPLib's master in SRT until STC_stop). */
        bool lost = s->heartbeat_armed && silent >= s->cfg.heartbeat_timeout_ns;
        /* A registration followed by nothing at all for the timeout is
         * no master (a stray or replayed STC_register): it must not
         * hold the slave. Every master configures right after it. */
        if (!s->heartbeat_armed && s->session_pdus == 0 && s->state == RTCOSIM_DCP_CONFIGURATION &&
            silent >= s->cfg.heartbeat_timeout_ns) {
            char who[32];
            inet_ntop(AF_INET, &s->master.addr.sin_addr, who, sizeof who);
            rtcosim_log(RTCOSIM_LOG_WARNING, "dcp",
                        "slave %s: %s:%u registered and sent nothing for %.3g s: session dropped",
                        s->name, who, (unsigned)ntohs(s->master.addr.sin_port),
                        (double)silent / 1e9);
            end_session(s);
            notify(s, RTCOSIM_DCP_ALIVE);
            return true;
        }
        if (lost || !dcp_link_peer_open(&s->link, &s->master)) {
            /* The master vanished: error, resolve, deregister (ALIVE). */
            /* (a closed TCP connection is no missed heartbeat: generic) */
            if (s->state != RTCOSIM_DCP_ERRORRESOLVED)
                fail(s, lost ? RTCOSIM_DCP_ERR_PROTOCOL_ERROR_HEARTBEAT_MISSED
                             : RTCOSIM_DCP_ERR_PROTOCOL_ERROR_GENERIC,
                     lost ? "master silent after its heartbeat began" : "master closed the connection");
            end_session(s);
            set_state(s, RTCOSIM_DCP_ALIVE);
            return true;
        }
        if (s->heartbeat_armed && s->cfg.heartbeat_timeout_ns - silent < *timeout)
            *timeout = s->cfg.heartbeat_timeout_ns - silent;
    }
    /* TCP connections that carry nothing (not the master's) are closed
     * after the same timeout, so that they cannot fill every slot. */
    if (s->link.listen_fd >= 0)
        (void)dcp_link_close_idle(&s->link, s->cfg.heartbeat_timeout_ns);
    if (s->link.idle_closed != s->idle_logged) {
        uint32_t n = s->link.idle_closed - s->idle_logged;
        if (n == 1)
            rtcosim_log(RTCOSIM_LOG_WARNING, "dcp", "slave %s: %s", s->name, s->link.idle_closed_what);
        else
            rtcosim_log(RTCOSIM_LOG_WARNING, "dcp", "slave %s: %u idle TCP connections closed (last: %s)",
                        s->name, (unsigned)n, s->link.idle_closed_what);
        s->idle_logged = s->link.idle_closed;
    }
    if (s->step_held) {
        rtcosim_time_ns due = s->held_since + s->cfg.input_wait_ns;
        if (now >= due) {
            uint16_t code = dcp_slave_inputs_missed(s);
            if (code)
                fail(s, code, "more data PDUs lost in a row than maxConsecMissedPdus");
            else
                compute(s, s->held_steps);
            return true;
        }
        if (due - now < *timeout)
            *timeout = due - now;
    }
    if (real_time_active(s)) {
        if (now >= s->next_rt_step) {
            real_time_step(s);
            return true;
        }
        if (s->next_rt_step - now < *timeout)
            *timeout = s->next_rt_step - now;
    }
    return false;
}

void dcp_slave_handle_datagram(rtcosim_dcp_slave *s, const uint8_t *data, size_t size,
                               const dcp_peer *from)
{
    if (size == 0 || size > sizeof s->rx)
        return;
    memcpy(s->rx, data, size);
    handle(s, size, from);
}

rtcosim_status rtcosim_dcp_slave_run(rtcosim_dcp_slave *s, rtcosim_error *err)
{
    (void)err;
    while (!atomic_load(&s->stop)) {
        rtcosim_time_ns timeout = 100 * RTCOSIM_NS_PER_MS;
        /* Something was due: one more look at the sockets, without waiting,
         * before the next. A loop behind the SRT period (a model slower than
         * the steps the master asked for) must still hear STC_stop. */
        if (dcp_slave_timers(s, dcp_slave_now(s), &timeout))
            timeout = 0;
        dcp_peer from;
        long n = dcp_link_recv(&s->link, s->rx, sizeof s->rx, &from, timeout, s->cfg.spin_ns);
        if (n > 0)
            handle(s, (size_t)n, &from);
    }
    return RTCOSIM_OK;
}

static rtcosim_status probe_factory(rtcosim_dcp_slave *s, rtcosim_error *err)
{
    return s->cfg.factory(s->cfg.factory_context, &s->probe, err);
}

rtcosim_status rtcosim_dcp_slave_create(const rtcosim_dcp_slave_config *config,
                                        rtcosim_dcp_slave **out, rtcosim_error *err)
{
    *out = NULL;
    if (!config || !config->factory || (!config->host && !config->tcp_host))
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "DCP slave: a factory and a UDP or TCP host are required");
    rtcosim_dcp_slave *s = calloc(1, sizeof *s);
    if (!s)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "DCP slave: out of memory");
    s->cfg = *config;
    snprintf(s->host, sizeof s->host, "%s", config->host ? config->host : "");
    snprintf(s->tcp_host, sizeof s->tcp_host, "%s", config->tcp_host ? config->tcp_host : "");
    s->cfg.host = config->host ? s->host : NULL;
    s->cfg.tcp_host = config->tcp_host ? s->tcp_host : NULL;
    if (s->cfg.heartbeat_timeout_ns <= 0)
        s->cfg.heartbeat_timeout_ns = 2 * RTCOSIM_NS_PER_S;
    if (s->cfg.max_consec_missed_pdus == 0)
        s->cfg.max_consec_missed_pdus = 10;
    if (s->cfg.spin_ns <= 0)
        s->cfg.spin_ns = 200 * RTCOSIM_NS_PER_US;
    if (s->cfg.input_wait_ns <= 0)
        s->cfg.input_wait_ns = 10 * RTCOSIM_NS_PER_MS;
    rtcosim_status st = dcp_link_init(&s->link, err);
    if (st == RTCOSIM_OK)
        st = probe_factory(s, err);
    if (st == RTCOSIM_OK && s->cfg.host)
        st = dcp_link_open_udp(&s->link, s->host, config->port, err);
    if (st == RTCOSIM_OK && s->cfg.tcp_host)
        st = dcp_link_listen_tcp(&s->link, s->tcp_host, config->tcp_port, err);
    if (st != RTCOSIM_OK) {
        rtcosim_dcp_slave_free(s);
        return st;
    }
    snprintf(s->name, sizeof s->name, "%s",
             config->name ? config->name : rtcosim_component_model_name(s->probe));
    s->cfg.name = s->name;
    rtcosim_dcp_uuid_of_name(s->name, s->uuid);
    dcp_slave_clear_config(s);
    set_state(s, RTCOSIM_DCP_ALIVE);
    *out = s;
    return RTCOSIM_OK;
}

uint16_t rtcosim_dcp_slave_port(const rtcosim_dcp_slave *s) { return s->link.udp_port; }
uint16_t rtcosim_dcp_slave_tcp_port(const rtcosim_dcp_slave *s) { return s->link.tcp_port; }
uint8_t rtcosim_dcp_slave_state(const rtcosim_dcp_slave *s)
{
    return (uint8_t)atomic_load(&((rtcosim_dcp_slave *)s)->state_pub);
}
uint32_t rtcosim_dcp_slave_sessions(const rtcosim_dcp_slave *s)
{
    return atomic_load(&((rtcosim_dcp_slave *)s)->sessions);
}

void rtcosim_dcp_slave_stop(rtcosim_dcp_slave *s)
{
    atomic_store(&s->stop, true);
    dcp_link_wake(&s->link);
}

void rtcosim_dcp_slave_free(rtcosim_dcp_slave *s)
{
    if (!s)
        return;
    rtcosim_component_free(s->comp);
    rtcosim_component_free(s->probe);
    dcp_link_close(&s->link);
    dcp_slave_free_tables(s);
    free(s);
}

rtcosim_status rtcosim_dcp_slave_write_dcpx(const rtcosim_dcp_slave *s, const char *path,
                                            rtcosim_error *err)
{
    return rtcosim_dcpx_write(rtcosim_component_description(s->probe), s->name,
                              s->cfg.host, s->link.udp_port, s->cfg.tcp_host, s->link.tcp_port,
                              s->cfg.heartbeat_timeout_ns, !s->cfg.nrt_only, path, err);
}
