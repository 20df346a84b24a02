/* DCP master side: a remote DCP slave wrapped as an rtcosim component (kind
 * "dcp") and driven in NRT lock step (spec 3.2: register, configure,
 * prepare, configure, initialize, send_outputs, run, then per step
 * DAT_input_output -> STC_do_step -> COMPUTED -> STC_send_outputs ->
 * DAT_input_output). Requests are retransmitted with the same pdu_seq_id
 * after a timeout; the slave answers a repeat from its cache, so a lost
 * response costs a delay, never a double step. Over UDP/IPv4 or TCP/IPv4
 * (link.h); a tunable parameter changed during the run goes out as
 * DAT_parameter ahead of the next step. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "dcp/remote_internal.h"
#include "rtcosim/log.h"
#include "dcp/values.h"
#include "util/le.h"
#include "rtcosim/dcp.h"

static void *heartbeat_loop(void *arg)
{
    remote *r = arg;
    pthread_mutex_lock(&r->lock);
    while (!r->heartbeat_stop) {
        rtcosim_time_ns due = r->last_send + r->cfg.heartbeat_ns;
        if (dcp_now_ns() >= due) {
            rtcosim_dcp_pdu q = {.type = RTCOSIM_DCP_INF_STATE}, a;
            if (dcp_remote_request(r, &q, &a, NULL) == RTCOSIM_OK && a.type == RTCOSIM_DCP_RSP_STATE_ACK)
                r->slave_state = a.state_id;
            continue;
        }
        struct timespec until = {.tv_sec = due / RTCOSIM_NS_PER_S, .tv_nsec = due % RTCOSIM_NS_PER_S};
        pthread_cond_timedwait(&r->wake, &r->lock, &until);
    }
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

static void heartbeat_start(remote *r)
{
    if (r->cfg.heartbeat_ns < 0)
        return;
    r->heartbeat_stop = false;
    r->heartbeat_running = pthread_create(&r->heartbeat, NULL, heartbeat_loop, r) == 0;
}

static void heartbeat_end(remote *r)
{
    if (!r->heartbeat_running)
        return;
    pthread_mutex_lock(&r->lock);
    r->heartbeat_stop = true;
    pthread_cond_signal(&r->wake);
    pthread_mutex_unlock(&r->lock);
    pthread_join(r->heartbeat, NULL);
    r->heartbeat_running = false;
}

/* UDP: one socket, connected so that it picks the local address the slave
 * will see; the slave's data PDUs go to it (CFG_target_network_information).
 * TCP: a connection to the slave's control port, and a listener on the
 * same local address for the connection the slave opens for outputs. */
static rtcosim_status open_transport(remote *r, rtcosim_error *err)
{
    struct sockaddr_in slave, local;
    socklen_t len = sizeof local;
    rtcosim_status st = dcp_address(r->host, r->cfg.port, &slave, err);
    if (st != RTCOSIM_OK)
        return st;
    if (r->cfg.transport == RTCOSIM_DCP_TCP_IPV4) {
        rtcosim_time_ns wait = r->cfg.retry_ns * r->cfg.attempts;
        if ((st = dcp_link_connect_tcp(&r->link, &slave, wait, &r->peer, err)) != RTCOSIM_OK)
            return st;
        getsockname(r->link.conns[r->peer.conn].fd, (struct sockaddr *)&local, &len);
        char ip[32];
        inet_ntop(AF_INET, &local.sin_addr, ip, sizeof ip);
        if ((st = dcp_link_listen_tcp(&r->link, ip, 0, err)) != RTCOSIM_OK)
            return st;
        r->data_port = r->link.tcp_port;
    } else {
        if ((st = dcp_link_open_udp(&r->link, "0.0.0.0", 0, err)) != RTCOSIM_OK)
            return st;
        r->peer = (dcp_peer){.addr = slave, .conn = -1};
        if (connect(r->link.udp_fd, (struct sockaddr *)&slave, sizeof slave) != 0 ||
            getsockname(r->link.udp_fd, (struct sockaddr *)&local, &len) != 0)
            return rtcosim_error_set(err, RTCOSIM_EIO, "DCP: cannot reach %s:%u: %s", r->host,
                                     (unsigned)r->cfg.port, strerror(errno));
        r->data_port = ntohs(local.sin_port);
    }
    r->local_ip = ntohl(local.sin_addr.s_addr);
    r->slave_ip = ntohl(slave.sin_addr.s_addr);
    return RTCOSIM_OK;
}

static rtcosim_status op_instantiate(void *self, const char *instance_name, rtcosim_error *err)
{
    remote *r = self;
    snprintf(r->name, sizeof r->name, "%s", instance_name);
    if (r->cfg.port == 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "DCP: component '%s' has no slave address (its DCPX names no "
                                 "Control host and port): bind it with --dcp %s=HOST:PORT",
                                 instance_name, instance_name);
    rtcosim_status st = open_transport(r, err);
    if (st != RTCOSIM_OK)
        return st;
    r->slave_state = RTCOSIM_DCP_ALIVE;
    if (r->cfg.soft_real_time && r->cfg.no_srt)
        rtcosim_log(RTCOSIM_LOG_INFO, "dcp",
                    "%s: the slave's DCPX offers no SoftRealTime: NRT lock step", instance_name);
    r->op_mode = r->cfg.soft_real_time && !r->cfg.no_srt ? RTCOSIM_DCP_OP_SRT : RTCOSIM_DCP_OP_NRT;
    st = dcp_remote_stc_to(r, RTCOSIM_DCP_STC_REGISTER, 0, RTCOSIM_DCP_CONFIGURATION, err);
    if (st != RTCOSIM_OK && r->op_mode == RTCOSIM_DCP_OP_SRT &&
        r->last_nack == RTCOSIM_DCP_ERR_INVALID_OP_MODE) {
        /* Spec 3.1.2: a slave without the requested mode refuses STC_register. */
        rtcosim_log(RTCOSIM_LOG_INFO, "dcp",
                    "%s: slave %s:%u refused soft real time (INVALID_OP_MODE): NRT lock step",
                    instance_name, r->host, (unsigned)r->cfg.port);
        r->op_mode = RTCOSIM_DCP_OP_NRT;
        r->slave_state = RTCOSIM_DCP_ALIVE;
        st = dcp_remote_stc_to(r, RTCOSIM_DCP_STC_REGISTER, 0, RTCOSIM_DCP_CONFIGURATION, err);
    }
    /* A slave busy with another master (or with a stray registration it
     * drops after its timeout) refuses with PDU_NOT_ALLOWED_IN_THIS_STATE:
     * ask again for three times the request budget before giving up. */
    rtcosim_time_ns busy_until = dcp_now_ns() + 3 * r->cfg.retry_ns * (rtcosim_time_ns)r->cfg.attempts;
    bool told = false;
    while (st != RTCOSIM_OK && r->last_nack == RTCOSIM_DCP_ERR_PROTOCOL_ERROR_PDU_NOT_ALLOWED_IN_THIS_STATE &&
           dcp_now_ns() < busy_until) {
        if (!told)
            rtcosim_log(RTCOSIM_LOG_INFO, "dcp", "%s: slave %s:%u is busy with another master: waiting",
                        instance_name, r->host, (unsigned)r->cfg.port);
        told = true;
        struct timespec pause = {.tv_sec = r->cfg.retry_ns / RTCOSIM_NS_PER_S,
                                 .tv_nsec = r->cfg.retry_ns % RTCOSIM_NS_PER_S};
        nanosleep(&pause, NULL);
        r->slave_state = RTCOSIM_DCP_ALIVE;
        st = dcp_remote_stc_to(r, RTCOSIM_DCP_STC_REGISTER, 0, RTCOSIM_DCP_CONFIGURATION, err);
    }
    if (st != RTCOSIM_OK)
        return st;
    r->registered = true;
    if (r->cfg.heartbeat_ns >= 0) {
        /* The first INF_state starts the slave's heartbeat monitor (3.4.9);
         * the thread keeps it going while the master is idle. */
        rtcosim_dcp_pdu q = {.type = RTCOSIM_DCP_INF_STATE}, a;
        if ((st = dcp_remote_request(r, &q, &a, err)) != RTCOSIM_OK)
            return st;
    }
    heartbeat_start(r);
    return RTCOSIM_OK;
}

static rtcosim_status op_setup(void *self, double tol, rtcosim_time_ns start, rtcosim_time_ns stop,
                               rtcosim_error *err)
{
    (void)self; (void)tol; (void)stop;
    if (start != 0)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                 "DCP: simulations on a remote slave start at time 0");
    return RTCOSIM_OK;
}

static rtcosim_status op_enter_init(void *self, rtcosim_error *err)
{
    (void)err;
    ((remote *)self)->in_init = true;
    return RTCOSIM_OK;
}

/* A list of variables the slave receives (inputs as data, tunable
 * parameters): one `type` PDU per variable with its position and data type,
 * then `network` naming the master's port they come from. */
static rtcosim_status configure_received(remote *r, uint8_t type, uint8_t network, uint16_t id,
                                         const size_t *idx, size_t n, rtcosim_error *err)
{
    rtcosim_status st;
    for (size_t i = 0; i < n; i++) {
        const rtcosim_variable *v = &r->vars[idx[i]];
        rtcosim_dcp_pdu p = {.type = type, .data_id = id, .pos = (uint16_t)i,
                             .value_reference = v->value_reference};
        dcp_type_of(v->type, &p.source_data_type);
        if ((st = dcp_remote_request(r, &p, NULL, err)) != RTCOSIM_OK)
            return st;
    }
    if (!n)
        return RTCOSIM_OK;
    /* The slave's control address and port (spec 4.2.1.2 table 135 has
     * both): DCPLib binds what it is given and shares its control socket
     * only when both equal the control endpoint. */
    rtcosim_dcp_pdu p = {.type = network, .data_id = id, .transport_protocol = r->cfg.transport,
                         .port = r->cfg.port, .ip_address = r->slave_ip};
    return dcp_remote_request(r, &p, NULL, err);
}

static rtcosim_status configure(remote *r, rtcosim_error *err)
{
    rtcosim_status st;
    rtcosim_dcp_pdu p = {.type = RTCOSIM_DCP_CFG_TIME_RES, .numerator = r->cfg.time_res_numerator,
                         .denominator = r->cfg.time_res_denominator};
    if ((st = dcp_remote_request(r, &p, NULL, err)) != RTCOSIM_OK)
        return st;
    if (r->n_templates && r->cfg.log_on_notification) {
        /* Every category up to information, on notification (3.1.23): the
         * slave's reason reaches the master. A slave that refuses is
         * driven without (said once). */
        p = (rtcosim_dcp_pdu){.type = RTCOSIM_DCP_CFG_LOGGING, .log_category = 0, .log_level = 3,
                              .log_mode = 2};
        rtcosim_error lerr;
        if (dcp_remote_request(r, &p, NULL, &lerr) != RTCOSIM_OK)
            rtcosim_log(RTCOSIM_LOG_WARNING, "dcp", "%s: logging on notification refused: %s",
                        r->name, lerr.message);
    }
    /* Every data id in every superstate (3.4.6, scope 0): a slave may refuse
     * STC_prepare with INCOMPLETE_CONFIG_SCOPE without it (DCPLib does). */
    const uint16_t ids[2] = {DATA_ID_INPUTS, DATA_ID_OUTPUTS};
    const size_t counts[2] = {r->n_in, r->n_out};
    for (int i = 0; i < 2; i++) {
        if (!counts[i])
            continue;
        p = (rtcosim_dcp_pdu){.type = RTCOSIM_DCP_CFG_SCOPE, .data_id = ids[i], .scope = 0};
        if ((st = dcp_remote_request(r, &p, NULL, err)) != RTCOSIM_OK)
            return st;
    }
    if ((st = configure_received(r, RTCOSIM_DCP_CFG_INPUT, RTCOSIM_DCP_CFG_SOURCE_NETWORK_INFORMATION,
                                 DATA_ID_INPUTS, r->in_idx, r->n_in, err)) != RTCOSIM_OK)
        return st;
    for (size_t i = 0; i < r->n_out; i++) {
        p = (rtcosim_dcp_pdu){.type = RTCOSIM_DCP_CFG_OUTPUT, .data_id = DATA_ID_OUTPUTS,
                              .pos = (uint16_t)i,
                              .value_reference = r->vars[r->out_idx[i]].value_reference};
        if ((st = dcp_remote_request(r, &p, NULL, err)) != RTCOSIM_OK)
            return st;
    }
    if (r->n_out) {
        /* SRT: the slave's real-time step and output period (spec 3.1.9). */
        uint32_t steps = r->op_mode == RTCOSIM_DCP_OP_SRT ? (uint32_t)(r->cfg.srt_step_ns / r->tick_ns) : 1;
        p = (rtcosim_dcp_pdu){.type = RTCOSIM_DCP_CFG_STEPS, .data_id = DATA_ID_OUTPUTS, .steps = steps};
        if ((st = dcp_remote_request(r, &p, NULL, err)) != RTCOSIM_OK)
            return st;
        p = (rtcosim_dcp_pdu){.type = RTCOSIM_DCP_CFG_TARGET_NETWORK_INFORMATION,
                              .data_id = DATA_ID_OUTPUTS, .transport_protocol = r->cfg.transport,
                              .port = r->data_port, .ip_address = r->local_ip};
        if ((st = dcp_remote_request(r, &p, NULL, err)) != RTCOSIM_OK)
            return st;
    }
    if ((st = configure_received(r, RTCOSIM_DCP_CFG_TUNABLE_PARAMETER,
                                 RTCOSIM_DCP_CFG_PARAM_NETWORK_INFORMATION, PARAM_ID_TUNABLES,
                                 r->tun_idx, r->n_tun, err)) != RTCOSIM_OK)
        return st;
    for (size_t i = 0; i < r->n_vars; i++) {
        if (!r->param_set[i])
            continue;
        /* CFG_parameter: 13 bytes before the value (spec 3.3) */
        size_t size = dcp_value_wire_size(r->vars[i].type, &r->values[i]);
        if (size > RTCOSIM_DCP_MAX_PDU - 13)
            return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                     "DCP slave %s:%u: parameter '%s' (%zu bytes) does not fit in "
                                     "one CFG_parameter PDU (at most %u bytes)", r->host,
                                     (unsigned)r->cfg.port, r->vars[i].name, size,
                                     RTCOSIM_DCP_MAX_PDU);
        p = (rtcosim_dcp_pdu){.type = RTCOSIM_DCP_CFG_PARAMETER,
                              .value_reference = r->vars[i].value_reference,
                              .payload = r->scratch};
        dcp_type_of(r->vars[i].type, &p.source_data_type);
        p.payload_size = dcp_value_to_wire(r->vars[i].type, &r->values[i], r->scratch);
        if ((st = dcp_remote_request(r, &p, NULL, err)) != RTCOSIM_OK) {
            rtcosim_error_prefix(err, "parameter '%s' (%s): ", r->vars[i].name,
                                 rtcosim_type_name(r->vars[i].type));
            return st;
        }
    }
    return RTCOSIM_OK;
}

/* One exchange of the Initialization superstate (spec 3.2.3.3): configure
 * once (CFG_*, prepare, configure), then inputs, STC_initialize and
 * STC_send_outputs (INITIALIZED -> SENDING_I -> CONFIGURED), as often as the
 * master's initial fixed-point iteration changes the inputs. */
static rtcosim_status init_exchange(remote *r, rtcosim_error *err)
{
    rtcosim_status st;
    if (!r->configured) {
        if ((st = configure(r, err)) != RTCOSIM_OK ||
            (st = dcp_remote_stc(r, RTCOSIM_DCP_STC_PREPARE, 0, err)) != RTCOSIM_OK ||
            (st = dcp_remote_await(r, RTCOSIM_DCP_PREPARED, false, err)) != RTCOSIM_OK ||
            (st = dcp_remote_stc(r, RTCOSIM_DCP_STC_CONFIGURE, 0, err)) != RTCOSIM_OK ||
            (st = dcp_remote_await(r, RTCOSIM_DCP_CONFIGURED, false, err)) != RTCOSIM_OK)
            return st;
        r->configured = true;
    }
    if ((st = dcp_remote_send_inputs(r, err)) != RTCOSIM_OK ||
        (st = dcp_remote_stc(r, RTCOSIM_DCP_STC_INITIALIZE, 0, err)) != RTCOSIM_OK ||
        (st = dcp_remote_await(r, RTCOSIM_DCP_INITIALIZED, false, err)) != RTCOSIM_OK)
        return st;
    r->out_fresh = false;
    if ((st = dcp_remote_stc(r, RTCOSIM_DCP_STC_SEND_OUTPUTS, 0, err)) != RTCOSIM_OK ||
        (st = dcp_remote_await(r, RTCOSIM_DCP_CONFIGURED, r->n_out > 0, err)) != RTCOSIM_OK)
        return st;
    r->exchanged = true;
    r->inputs_dirty = false;
    return RTCOSIM_OK;
}

static rtcosim_status op_exit_init_unlocked(void *self, rtcosim_error *err)
{
    remote *r = self;
    rtcosim_status st;
    if ((!r->exchanged || r->inputs_dirty) && (st = init_exchange(r, err)) != RTCOSIM_OK)
        return st;
    if (r->op_mode == RTCOSIM_DCP_OP_SRT) {
        r->in_init = false; /* STC_run at the first step: the slave's clock starts then */
        return RTCOSIM_OK;
    }
    if ((st = dcp_remote_stc(r, RTCOSIM_DCP_STC_RUN, 0, err)) != RTCOSIM_OK ||
        (st = dcp_remote_await(r, RTCOSIM_DCP_SYNCHRONIZED, false, err)) != RTCOSIM_OK)
        return st;
    r->in_init = false;
    return RTCOSIM_OK;
}

static rtcosim_status op_do_step_unlocked(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                 rtcosim_step_result *result, rtcosim_error *err)
{
    remote *r = self;
    if (r->op_mode == RTCOSIM_DCP_OP_SRT) {
        rtcosim_status st = dcp_remote_srt_step(r, t, h, err);
        if (st == RTCOSIM_OK && result)
            *result = (rtcosim_step_result){.last_successful_time = t + h};
        return st;
    }
    if (h <= 0 || h % r->tick_ns != 0 || h / r->tick_ns > UINT32_MAX)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                 "DCP: step of %" PRId64 " ns is no whole number of the slave's "
                                 "time resolution %" PRIu32 "/%" PRIu32 " s that fits "
                                 "STC_do_step's 32-bit steps", h, r->cfg.time_res_numerator,
                                 r->cfg.time_res_denominator);
    uint8_t back = r->slave_state;
    rtcosim_status st;
    r->out_fresh = false;
    if ((st = dcp_remote_send_inputs(r, err)) != RTCOSIM_OK ||
        (st = dcp_remote_stc_to(r, RTCOSIM_DCP_STC_DO_STEP, (uint32_t)(h / r->tick_ns), RTCOSIM_DCP_COMPUTING,
                     err)) != RTCOSIM_OK ||
        (st = dcp_remote_await(r, RTCOSIM_DCP_COMPUTED, false, err)) != RTCOSIM_OK ||
        (st = dcp_remote_stc_to(r, RTCOSIM_DCP_STC_SEND_OUTPUTS, 0, RTCOSIM_DCP_SENDING_D, err)) != RTCOSIM_OK)
        return st;
    if ((st = dcp_remote_await(r, back, r->n_out > 0, err)) != RTCOSIM_OK)
        return st;
    if (result)
        *result = (rtcosim_step_result){.last_successful_time = t + h};
    return RTCOSIM_OK;
}

static rtcosim_status op_get_unlocked(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                             void *values, rtcosim_error *err)
{
    remote *r = self;
    size_t size = rtcosim_type_size(type);
    if (r->in_init && (!r->exchanged || r->inputs_dirty)) {
        /* Outputs in initialization are the slave's, computed from the
         * inputs and parameters set so far. */
        rtcosim_status st = init_exchange(r, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    for (size_t k = 0; k < n; k++) {
        size_t i = 0;
        while (i < r->n_vars && !(r->vars[i].value_reference == vrs[k] && r->vars[i].type == type))
            i++;
        if (i == r->n_vars)
            return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "DCP: no %s variable with vr %" PRIu32,
                                     rtcosim_type_name(type), vrs[k]);
        memcpy((uint8_t *)values + k * size, &r->values[i], size);
    }
    return RTCOSIM_OK;
}

/* Whether the value at `value` differs from variable i's; a String or
 * Binary by content. */
static bool differs(const remote *r, size_t i, const void *value, size_t size)
{
    const rtcosim_variable *v = &r->vars[i];
    if (v->type == RTCOSIM_TYPE_STRING) {
        const char *s;
        memcpy(&s, value, sizeof s);
        return strcmp(s ? s : "", r->values[i].s ? r->values[i].s : "") != 0;
    }
    if (v->type == RTCOSIM_TYPE_BINARY) {
        rtcosim_binary b;
        memcpy(&b, value, sizeof b);
        size_t have = r->values[i].bin.data ? r->values[i].bin.size : 0;
        size_t want = b.data ? b.size : 0;
        return have != want || (want && memcmp(b.data, r->values[i].bin.data, want) != 0);
    }
    return memcmp(&r->values[i], value, size) != 0;
}

/* Store a value into variable i's slot; a String's or Binary's bytes are
 * copied (the caller's are valid only during the call). */
static rtcosim_status store(remote *r, size_t i, const void *value, size_t size, rtcosim_error *err)
{
    const rtcosim_variable *v = &r->vars[i];
    if (v->type != RTCOSIM_TYPE_STRING && v->type != RTCOSIM_TYPE_BINARY) {
        memcpy(&r->values[i], value, size);
        return RTCOSIM_OK;
    }
    const void *data;
    size_t length;
    if (v->type == RTCOSIM_TYPE_STRING) {
        const char *s;
        memcpy(&s, value, sizeof s);
        data = s;
        length = s ? strlen(s) : 0;
    } else {
        rtcosim_binary b;
        memcpy(&b, value, sizeof b);
        data = b.data;
        length = b.data ? b.size : 0;
    }
    if (length > RTCOSIM_DCP_MAX_PDU)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                 "DCP: '%s' (%zu bytes) is longer than one DCP PDU (%u bytes)",
                                 v->name, length, RTCOSIM_DCP_MAX_PDU);
    /* maxSize with the 4-byte length counted, as DCPLib's slave reads it
     * (given more, it cuts the value and misreads the rest of the PDU) */
    if (r->max_size[i] && length + 4 > r->max_size[i])
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "DCP: '%s' is %zu bytes; the slave's maxSize %" PRIu32 " leaves %"
                                 PRIu32 " for a value (its 4-byte length counted, as DCPLib does)",
                                 v->name, length, r->max_size[i],
                                 r->max_size[i] > 4 ? r->max_size[i] - 4 : 0);
    if (!dcp_bytes_set(&r->keep[i], data, length))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "DCP: out of memory");
    if (v->type == RTCOSIM_TYPE_STRING)
        r->values[i].s = (const char *)r->keep[i].data;
    else
        r->values[i].bin = (rtcosim_binary){r->keep[i].data, r->keep[i].size};
    return RTCOSIM_OK;
}

static rtcosim_status op_set_unlocked(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                             const void *values, rtcosim_error *err)
{
    remote *r = self;
    size_t size = rtcosim_type_size(type);
    for (size_t k = 0; k < n; k++) {
        size_t i = 0;
        while (i < r->n_vars && !(r->vars[i].value_reference == vrs[k] && r->vars[i].type == type))
            i++;
        if (i == r->n_vars)
            return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "DCP: no %s variable with vr %" PRIu32,
                                     rtcosim_type_name(type), vrs[k]);
        const void *value = (const uint8_t *)values + k * size;
        if (r->vars[i].causality == RTCOSIM_CAUSALITY_PARAMETER) {
            bool changed = differs(r, i, value, size);
            if (r->configured && changed) {
                /* After configuration only a tunable parameter may change:
                 * it travels in DAT_parameter before the next request. */
                if (r->vars[i].variability != RTCOSIM_VARIABILITY_TUNABLE)
                    return rtcosim_error_set(err, RTCOSIM_ESTATE,
                                             "DCP: parameter '%s' set after the slave was configured "
                                             "(CFG_parameter is only allowed in CONFIGURATION; only "
                                             "a tunable parameter may change later)",
                                             r->vars[i].name);
                r->tunables_dirty = true;
                if (r->in_init)
                    r->inputs_dirty = true; /* outputs in initialization depend on it */
            }
            r->param_set[i] = true;
        } else if (r->vars[i].causality == RTCOSIM_CAUSALITY_INPUT && differs(r, i, value, size)) {
            r->inputs_dirty = true;
        }
        rtcosim_status st = store(r, i, value, size, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

static rtcosim_status op_terminate_unlocked(void *self, rtcosim_error *err)
{
    remote *r = self;
    rtcosim_status st;
    /* A slave that left a request unanswered is most likely gone: two tries
     * each, as the best-effort cleanup of a free, not the whole request
     * budget per PDU (with the defaults 2 s for STC_stop, then as long for
     * STC_deregister, after the run had already failed). */
    if (r->unanswered && r->cfg.attempts > 2)
        r->cfg.attempts = 2;
    /* the session is ended now, or was tried to be: the destroy does not
     * send these requests again (a failure says the slave is gone or
     * refused them) */
    r->registered = false;
    if ((st = dcp_remote_stc(r, RTCOSIM_DCP_STC_STOP, 0, err)) != RTCOSIM_OK ||
        (st = dcp_remote_await(r, RTCOSIM_DCP_STOPPED, false, err)) != RTCOSIM_OK ||
        (st = dcp_remote_stc_to(r, RTCOSIM_DCP_STC_DEREGISTER, 0, RTCOSIM_DCP_ALIVE, err)) != RTCOSIM_OK)
        return st;
    return RTCOSIM_OK;
}

/* The calls that may talk to the slave, serialized with the heartbeat. */
#define LOCKED(call)                                                                    \
    do {                                                                                \
        remote *r_ = self;                                                              \
        pthread_mutex_lock(&r_->lock);                                                  \
        rtcosim_status st_ = call;                                                      \
        pthread_mutex_unlock(&r_->lock);                                                \
        return st_;                                                                     \
    } while (0)

static rtcosim_status op_exit_init(void *self, rtcosim_error *err)
{
    LOCKED(op_exit_init_unlocked(self, err));
}
static rtcosim_status op_do_step(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                 rtcosim_step_result *result, rtcosim_error *err)
{
    LOCKED(op_do_step_unlocked(self, t, h, result, err));
}
static rtcosim_status op_get(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                             void *values, rtcosim_error *err)
{
    LOCKED(op_get_unlocked(self, type, vrs, n, values, err));
}
static rtcosim_status op_set(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                             const void *values, rtcosim_error *err)
{
    LOCKED(op_set_unlocked(self, type, vrs, n, values, err));
}
static rtcosim_status op_terminate(void *self, rtcosim_error *err)
{
    heartbeat_end(self); /* nothing to keep alive after STC_stop */
    return op_terminate_unlocked(self, err);
}

static void op_destroy(void *self)
{
    remote *r = self;
    heartbeat_end(r);
    if (r->registered && dcp_link_peer_open(&r->link, &r->peer)) {
        /* Best effort, when terminate never ran: leave the slave free for
         * the next master. */
        r->cfg.attempts = 2;
        if (r->slave_state != RTCOSIM_DCP_STOPPED && r->slave_state != RTCOSIM_DCP_CONFIGURATION &&
            r->slave_state != RTCOSIM_DCP_ERRORRESOLVED) {
            if (dcp_remote_stc(r, RTCOSIM_DCP_STC_STOP, 0, NULL) == RTCOSIM_OK)
                (void)dcp_remote_await(r, RTCOSIM_DCP_STOPPED, false, NULL);
        }
        (void)dcp_remote_stc(r, RTCOSIM_DCP_STC_DEREGISTER, 0, NULL);
    }
    dcp_link_close(&r->link);
    for (size_t i = 0; i < r->n_vars; i++) {
        free((char *)r->vars[i].name);
        dcp_bytes_free(&r->keep[i]);
        dcp_bytes_free(&r->start_keep[i]);
    }
    free(r->vars);
    free(r->values);
    free(r->keep);
    free(r->start_keep);
    free(r->max_size);
    for (size_t i = 0; i < r->n_templates; i++)
        free((char *)r->templates[i].msg);
    free(r->templates);
    free(r->param_set);
    free(r->in_idx);
    free(r->out_idx);
    free(r->tun_idx);
    free(r->srt_tag);
    free(r->srt_ring);
    free(r->srt_size);
    pthread_mutex_destroy(&r->lock);
    pthread_cond_destroy(&r->wake);
    free(r);
}

rtcosim_status dcp_remote_make_srt(remote *r, rtcosim_time_ns step_ns, rtcosim_time_ns wait_ns,
                                   rtcosim_error *err)
{
    if (step_ns <= 0 || step_ns % r->tick_ns != 0 || step_ns / r->tick_ns > UINT32_MAX)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "DCP: soft real-time step of %" PRId64 " ns is no whole number "
                                 "of the slave's time resolution %" PRIu32 "/%" PRIu32 " s that "
                                 "fits CFG_steps' 32 bits", step_ns, r->cfg.time_res_numerator,
                                 r->cfg.time_res_denominator);
    /* Fixed slots, allocated once: with String or Binary outputs each
     * holds the largest payload a PDU can carry (4 MiB for the ring). */
    r->srt_stride = r->out_sized ? RTCOSIM_DCP_MAX_PDU - 5 : r->out_payload;
    if (!r->srt_ring && !(r->srt_ring = calloc(DCP_SRT_RING, r->srt_stride + 1)))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "DCP: out of memory");
    if (!r->srt_size && !(r->srt_size = calloc(DCP_SRT_RING, sizeof *r->srt_size)))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "DCP: out of memory");
    r->cfg.soft_real_time = true;
    r->cfg.srt_step_ns = step_ns;
    if (wait_ns > 0)
        r->cfg.srt_wait_ns = wait_ns;
    return RTCOSIM_OK;
}

static const rtcosim_component_ops remote_ops = {
    .kind = "dcp",
    .instantiate = op_instantiate,
    .setup = op_setup,
    .enter_init = op_enter_init,
    .exit_init = op_exit_init,
    .do_step = op_do_step,
    .get = op_get,
    .set = op_set,
    .terminate = op_terminate,
    .destroy = op_destroy,
};

rtcosim_status rtcosim_dcp_remote_create(const rtcosim_dcp_remote_config *config,
                                         const rtcosim_component_desc *desc,
                                         rtcosim_component **out, rtcosim_error *err)
{
    *out = NULL;
    remote *r = calloc(1, sizeof *r);
    if (!r)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "DCP: out of memory");
    pthread_mutex_init(&r->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&r->wake, &ca);
    pthread_condattr_destroy(&ca);
    r->cfg = *config;
    r->cfg.max_sizes = NULL; /* the caller's; copied per variable below */
    r->cfg.log_templates = NULL; /* and its templates: copied below */
    if (r->cfg.transport != RTCOSIM_DCP_UDP_IPV4 && r->cfg.transport != RTCOSIM_DCP_TCP_IPV4) {
        unsigned t = r->cfg.transport;
        pthread_mutex_destroy(&r->lock);
        pthread_cond_destroy(&r->wake);
        free(r);
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                 "DCP: transport protocol 0x%02X is not supported (UDP_IPv4 0x00 "
                                 "or TCP_IPv4 0x04)", t);
    }
    rtcosim_status lst = dcp_link_init(&r->link, err);
    if (lst != RTCOSIM_OK) {
        pthread_mutex_destroy(&r->lock);
        pthread_cond_destroy(&r->wake);
        free(r);
        return lst;
    }
    snprintf(r->host, sizeof r->host, "%s", config->host ? config->host : "127.0.0.1");
    r->cfg.host = r->host;
    if (r->cfg.retry_ns <= 0)
        r->cfg.retry_ns = 100 * RTCOSIM_NS_PER_MS;
    if (r->cfg.attempts == 0)
        r->cfg.attempts = 20;
    if (r->cfg.spin_ns <= 0)
        r->cfg.spin_ns = 200 * RTCOSIM_NS_PER_US;
    if (r->cfg.max_missed_outputs == 0)
        r->cfg.max_missed_outputs = 10;
    if (r->cfg.heartbeat_ns == 0)
        r->cfg.heartbeat_ns = 500 * RTCOSIM_NS_PER_MS;
    if (r->cfg.srt_wait_ns <= 0)
        r->cfg.srt_wait_ns = r->cfg.retry_ns * r->cfg.attempts;
    r->op_mode = RTCOSIM_DCP_OP_NRT;
    if (r->cfg.time_res_numerator == 0 && r->cfg.time_res_denominator == 0) {
        r->cfg.time_res_numerator = 1;
        r->cfg.time_res_denominator = 1000000000u;
    }
    size_t n = desc->variable_count;
    r->vars = calloc(n ? n : 1, sizeof *r->vars);
    r->values = calloc(n ? n : 1, sizeof *r->values);
    r->keep = calloc(n ? n : 1, sizeof *r->keep);
    r->start_keep = calloc(n ? n : 1, sizeof *r->start_keep);
    r->max_size = calloc(n ? n : 1, sizeof *r->max_size);
    if (config->log_template_count && config->log_templates &&
        (r->templates = calloc(config->log_template_count, sizeof *r->templates)))
        for (size_t i = 0; i < config->log_template_count; i++) {
            r->templates[i] = config->log_templates[i];
            r->templates[i].msg = strdup(config->log_templates[i].msg ? config->log_templates[i].msg : "");
            if (r->templates[i].msg)
                r->n_templates = i + 1;
        }
    r->param_set = calloc(n ? n : 1, sizeof *r->param_set);
    r->in_idx = calloc(n ? n : 1, sizeof *r->in_idx);
    r->out_idx = calloc(n ? n : 1, sizeof *r->out_idx);
    r->tun_idx = calloc(n ? n : 1, sizeof *r->tun_idx);
    r->srt_tag = calloc(DCP_SRT_RING, sizeof *r->srt_tag);
    if (!r->vars || !r->values || !r->keep || !r->start_keep || !r->max_size || !r->param_set ||
        !r->in_idx ||
        !r->out_idx || !r->tun_idx || !r->srt_tag) {
        op_destroy(r);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "DCP: out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        const rtcosim_variable *v = &desc->variables[i];
        uint8_t wt;
        r->vars[r->n_vars] = *v;
        r->vars[r->n_vars].name = strdup(v->name);
        r->vars[r->n_vars].description = NULL;
        r->vars[r->n_vars].unit = NULL;
        r->vars[r->n_vars].derivative_of = -1;
        if (!r->vars[r->n_vars].name) {
            op_destroy(r);
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "DCP: out of memory");
        }
        size_t idx = r->n_vars++;
        if (config->max_sizes && (v->type == RTCOSIM_TYPE_STRING || v->type == RTCOSIM_TYPE_BINARY))
            r->max_size[idx] = config->max_sizes[i];
        if (v->has_start && rtcosim_type_is_numeric(v->type))
            rtcosim_value_store(v->type, &v->start, &r->values[idx]);
        if (!dcp_type_of(v->type, &wt))
            continue; /* clocks do not travel */
        bool sized = dcp_type_is_sized(wt);
        if (sized) {
            /* The start value stays with the variable (a copy: the
             * description may go), the current value starts as it. */
            rtcosim_value empty = {0}, start = v->has_start ? v->start : empty;
            size_t size = rtcosim_type_size(v->type);
            bool is_string = v->type == RTCOSIM_TYPE_STRING;
            rtcosim_status sst = store(r, idx, &start, size, err);
            if (sst == RTCOSIM_OK &&
                !dcp_bytes_set(&r->start_keep[idx], r->keep[idx].data, r->keep[idx].size))
                sst = rtcosim_error_set(err, RTCOSIM_ENOMEM, "DCP: out of memory");
            if (sst != RTCOSIM_OK) {
                op_destroy(r);
                return sst;
            }
            if (v->has_start && is_string)
                r->vars[idx].start.s = (const char *)r->start_keep[idx].data;
            else if (v->has_start)
                r->vars[idx].start.bin = (rtcosim_binary){r->start_keep[idx].data,
                                                          r->start_keep[idx].size};
        }
        if (v->causality == RTCOSIM_CAUSALITY_INPUT) {
            r->in_idx[r->n_in++] = idx;
        } else if (v->causality == RTCOSIM_CAUSALITY_OUTPUT) {
            r->out_idx[r->n_out++] = idx;
            r->out_payload += sized ? 4 : rtcosim_dcp_data_type_size(wt);
            r->out_sized |= sized;
        } else if (v->causality == RTCOSIM_CAUSALITY_PARAMETER &&
                   v->variability == RTCOSIM_VARIABILITY_TUNABLE) {
            r->tun_idx[r->n_tun++] = idx;
        }
    }
    rtcosim_status rst = rtcosim_dcp_resolution_to_ns(r->cfg.time_res_numerator,
                                                      r->cfg.time_res_denominator, &r->tick_ns, err);
    if (rst != RTCOSIM_OK) {
        op_destroy(r);
        return rst;
    }
    if (r->cfg.soft_real_time) {
        rtcosim_status st = dcp_remote_make_srt(r, r->cfg.srt_step_ns, r->cfg.srt_wait_ns, err);
        if (st != RTCOSIM_OK) {
            op_destroy(r);
            return st;
        }
    }
    rtcosim_component_desc d = *desc;
    snprintf(r->model_name, sizeof r->model_name, "%s", desc->model_name ? desc->model_name : "dcp");
    d.model_name = r->model_name;
    d.variables = r->vars;
    d.variable_count = r->n_vars;
    d.capabilities = (rtcosim_capabilities){.can_handle_variable_step = true};
    return rtcosim_component_create(&remote_ops, r, &d, out, err);
}

uint8_t rtcosim_dcp_remote_op_mode(const rtcosim_component *component)
{
    if (strcmp(rtcosim_component_kind(component), remote_ops.kind) != 0)
        return RTCOSIM_DCP_OP_NRT;
    const remote *r = rtcosim_component_impl(component);
    return r->op_mode;
}
