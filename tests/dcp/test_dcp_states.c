/* The slave's state machine on the wire: a raw master walks an rtcosim
 * slave through every resting state of a NRT session (spec 3.2.5) and, in
 * each, sends every request that table 63 does not allow there; each is
 * refused with the spec's code (PROTOCOL_ERROR_PDU_NOT_ALLOWED_IN_THIS_STATE,
 * NOT_SUPPORTED_PDU for INF_log, log on request not being offered, which
 * table 107 checks first) and leaves
 * the state alone. Also: STC_register's checks in the order of table 110,
 * the sequence check of 3.4.1.1, answers under the master's slave id, and
 * the model's lifecycle: whatever ends a session (STC_stop in
 * initialization, a lost master), the component is never terminated before
 * it left initialization (FMI 2.0 and 3.0 refuse that) and always freed. */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "rtcosim/dcp.h"
#include "session.h"

/* ---- A component that checks its call sequence as FMI 2.0 CS does ---- */

enum { LC_INSTANTIATED, LC_INIT, LC_STEPPING, LC_TERMINATED };
static atomic_int illegal_calls, terminates, destroys;

typedef struct checked {
    int phase;
    double y, u;
} checked;

static rtcosim_variable checked_vars[2] = {
    {.name = "y", .value_reference = 0, .type = RTCOSIM_TYPE_FLOAT64,
     .causality = RTCOSIM_CAUSALITY_OUTPUT, .variability = RTCOSIM_VARIABILITY_CONTINUOUS,
     .derivative_of = -1},
    {.name = "u", .value_reference = 1, .type = RTCOSIM_TYPE_FLOAT64,
     .causality = RTCOSIM_CAUSALITY_INPUT, .variability = RTCOSIM_VARIABILITY_CONTINUOUS,
     .derivative_of = -1, .has_start = true},
};

static rtcosim_status expect_phase(checked *c, int phase, int next)
{
    if (c->phase != phase)
        atomic_fetch_add(&illegal_calls, 1);
    c->phase = next;
    return RTCOSIM_OK;
}
static rtcosim_status c_instantiate(void *s, const char *n, rtcosim_error *e)
{
    (void)n, (void)e;
    ((checked *)s)->phase = LC_INSTANTIATED;
    return RTCOSIM_OK;
}
static rtcosim_status c_setup(void *s, double t, rtcosim_time_ns a, rtcosim_time_ns b, rtcosim_error *e)
{
    (void)t, (void)a, (void)b, (void)e;
    return expect_phase(s, LC_INSTANTIATED, LC_INSTANTIATED);
}
static rtcosim_status c_enter(void *s, rtcosim_error *e) { (void)e; return expect_phase(s, LC_INSTANTIATED, LC_INIT); }
static rtcosim_status c_exit(void *s, rtcosim_error *e) { (void)e; return expect_phase(s, LC_INIT, LC_STEPPING); }
static rtcosim_status c_step(void *s, rtcosim_time_ns t, rtcosim_time_ns h, rtcosim_step_result *r,
                             rtcosim_error *e)
{
    (void)t, (void)r, (void)e;
    checked *c = s;
    c->y += c->u * rtcosim_time_to_seconds(h);
    return expect_phase(c, LC_STEPPING, LC_STEPPING);
}
static rtcosim_status c_get(void *s, rtcosim_type t, const uint32_t *vrs, size_t n, void *v, rtcosim_error *e)
{
    (void)t, (void)e;
    for (size_t i = 0; i < n; i++)
        ((double *)v)[i] = vrs[i] == 0 ? ((checked *)s)->y : ((checked *)s)->u;
    return RTCOSIM_OK;
}
static rtcosim_status c_set(void *s, rtcosim_type t, const uint32_t *vrs, size_t n, const void *v,
                            rtcosim_error *e)
{
    (void)t, (void)e;
    for (size_t i = 0; i < n; i++)
        if (vrs[i] == 1)
            ((checked *)s)->u = ((const double *)v)[i];
    return RTCOSIM_OK;
}
static rtcosim_status c_terminate(void *s, rtcosim_error *e)
{
    (void)e;
    atomic_fetch_add(&terminates, 1);
    return expect_phase(s, LC_STEPPING, LC_TERMINATED); /* fmi2Terminate: only after init */
}
static void c_destroy(void *s)
{
    atomic_fetch_add(&destroys, 1);
    free(s);
}
static const rtcosim_component_ops checked_ops = {
    .kind = "test", .instantiate = c_instantiate, .setup = c_setup, .enter_init = c_enter,
    .exit_init = c_exit, .do_step = c_step, .get = c_get, .set = c_set,
    .terminate = c_terminate, .destroy = c_destroy,
};

static rtcosim_status checked_factory(void *ctx, rtcosim_component **out, rtcosim_error *err)
{
    (void)ctx;
    checked *c = calloc(1, sizeof *c);
    if (!c)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    rtcosim_component_desc d = {.model_name = "test.checked", .variables = checked_vars,
                                .variable_count = 2,
                                .capabilities = {.can_handle_variable_step = true}};
    return rtcosim_component_create(&checked_ops, c, &d, out, err);
}

/* ---- A raw master ---- */

typedef struct master {
    int fd;
    uint16_t slave_port, my_port;
    uint16_t seq;
    served s;
} master;

static void master_open(master *m, rtcosim_time_ns heartbeat)
{
    atomic_store(&illegal_calls, 0);
    atomic_store(&terminates, 0);
    atomic_store(&destroys, 0);
    start_slave_with(&m->s, checked_factory, heartbeat);
    m->slave_port = rtcosim_dcp_slave_port(m->s.slave);
    m->fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in me = {.sin_family = AF_INET};
    inet_pton(AF_INET, "127.0.0.1", &me.sin_addr);
    assert_int_equal(bind(m->fd, (struct sockaddr *)&me, sizeof me), 0);
    socklen_t len = sizeof me;
    getsockname(m->fd, (struct sockaddr *)&me, &len);
    m->my_port = ntohs(me.sin_port);
    struct timeval tv = {.tv_sec = 5};
    setsockopt(m->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    m->seq = 100;
}

static void master_close(master *m)
{
    close(m->fd);
    stop_slave(&m->s);
}

static void send_pdu(master *m, const rtcosim_dcp_pdu *p)
{
    uint8_t buf[64];
    size_t n;
    assert_int_equal(rtcosim_dcp_pdu_encode(p, buf, sizeof buf, &n, NULL), RTCOSIM_OK);
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(m->slave_port)};
    inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
    assert_int_equal(sendto(m->fd, buf, n, 0, (struct sockaddr *)&to, sizeof to), (ssize_t)n);
}

/* The last output DAT seen by next_of (its payload copied). */
static rtcosim_dcp_pdu last_dat;
static uint8_t last_dat_payload[64];

/* The next PDU of `type` (others are skipped), or type 0 after `ms`. */
static rtcosim_dcp_pdu next_of(master *m, uint8_t type, int ms)
{
    static uint8_t buf[256];
    struct timeval tv = {.tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000};
    setsockopt(m->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    for (;;) {
        ssize_t got = recv(m->fd, buf, sizeof buf, 0);
        if (got <= 0)
            return (rtcosim_dcp_pdu){0};
        rtcosim_dcp_pdu p;
        assert_int_equal(rtcosim_dcp_pdu_decode(buf, (size_t)got, &p, NULL, NULL), RTCOSIM_OK);
        if (p.type == RTCOSIM_DCP_DAT_INPUT_OUTPUT && p.payload_size <= sizeof last_dat_payload) {
            memcpy(last_dat_payload, p.payload, p.payload_size);
            last_dat = p;
            last_dat.payload = last_dat_payload;
        }
        /* RSP_ack stands for any response (RSP_*). */
        if (p.type == type || (type == RTCOSIM_DCP_RSP_ACK && p.type >= RTCOSIM_DCP_RSP_ACK &&
                               p.type <= RTCOSIM_DCP_RSP_LOG_ACK))
            return p;
    }
}

/* Send a request with the next sequence id; return its response. */
static rtcosim_dcp_pdu request(master *m, rtcosim_dcp_pdu p)
{
    p.seq_id = m->seq++;
    p.receiver = 1;
    send_pdu(m, &p);
    for (;;) {
        rtcosim_dcp_pdu r = next_of(m, RTCOSIM_DCP_RSP_ACK, 5000);
        if (r.type == 0)
            fail_msg("%s: no response", rtcosim_dcp_pdu_type_name(p.type));
        if (r.seq_id == p.seq_id) {
            assert_int_equal(r.receiver, 1); /* sender: the slave id given at registration */
            return r;
        }
    }
}

/* A state change request that must be acknowledged and end in `state`. */
static void go_with(master *m, rtcosim_dcp_pdu p, uint8_t state)
{
    rtcosim_dcp_pdu r = request(m, p);
    if (r.type != RTCOSIM_DCP_RSP_ACK)
        fail_msg("%s in %s refused: %s", rtcosim_dcp_pdu_type_name(p.type),
                 rtcosim_dcp_state_name(p.state_id), rtcosim_dcp_error_code_name(r.error_code));
    for (;;) {
        rtcosim_dcp_pdu n = next_of(m, RTCOSIM_DCP_NTF_STATE_CHANGED, 5000);
        assert_int_equal(n.type, RTCOSIM_DCP_NTF_STATE_CHANGED);
        assert_int_equal(n.receiver, 1);
        if (n.state_id == state)
            break;
    }
    assert_int_equal(rtcosim_dcp_slave_state(m->s.slave), state);
}

static void go(master *m, uint8_t type, uint8_t now, uint8_t state)
{
    go_with(m, (rtcosim_dcp_pdu){.type = type, .state_id = now, .steps = 10}, state);
}

static const uint8_t requests[] = {
    RTCOSIM_DCP_STC_REGISTER, RTCOSIM_DCP_STC_DEREGISTER, RTCOSIM_DCP_STC_PREPARE,
    RTCOSIM_DCP_STC_CONFIGURE, RTCOSIM_DCP_STC_INITIALIZE, RTCOSIM_DCP_STC_RUN,
    RTCOSIM_DCP_STC_DO_STEP, RTCOSIM_DCP_STC_SEND_OUTPUTS, RTCOSIM_DCP_STC_STOP,
    RTCOSIM_DCP_STC_RESET, RTCOSIM_DCP_INF_STATE, RTCOSIM_DCP_INF_ERROR, RTCOSIM_DCP_INF_LOG,
    RTCOSIM_DCP_CFG_TIME_RES, RTCOSIM_DCP_CFG_STEPS, RTCOSIM_DCP_CFG_INPUT, RTCOSIM_DCP_CFG_OUTPUT,
    RTCOSIM_DCP_CFG_CLEAR, RTCOSIM_DCP_CFG_TARGET_NETWORK_INFORMATION,
    RTCOSIM_DCP_CFG_SOURCE_NETWORK_INFORMATION, RTCOSIM_DCP_CFG_PARAMETER,
    RTCOSIM_DCP_CFG_TUNABLE_PARAMETER, RTCOSIM_DCP_CFG_PARAM_NETWORK_INFORMATION,
    RTCOSIM_DCP_CFG_LOGGING, RTCOSIM_DCP_CFG_SCOPE,
};

/* Every request table 63 refuses in `state` (allowed: the ones named) gets
 * its code, and the state stays. Returns how many were tried. */
static int refuse_others(master *m, uint8_t state, const uint8_t *allowed, size_t n_allowed)
{
    int tried = 0;
    for (size_t i = 0; i < sizeof requests; i++) {
        uint8_t t = requests[i];
        bool ok = false;
        for (size_t k = 0; k < n_allowed; k++)
            ok |= allowed[k] == t;
        if (ok)
            continue;
        uint8_t value[8] = {0};
        rtcosim_dcp_pdu p = {.type = t, .state_id = state, .steps = 1, .numerator = 1,
                             .denominator = 1000, .major_version = 1, .op_mode = RTCOSIM_DCP_OP_NRT,
                             .source_data_type = RTCOSIM_DCP_FLOAT64, .payload = value,
                             .payload_size = 8, .port = m->slave_port, .ip_address = 0x7F000001};
        rtcosim_dcp_pdu r = request(m, p);
        uint16_t want = t == RTCOSIM_DCP_INF_LOG /* log on request: not offered */
                            ? RTCOSIM_DCP_ERR_NOT_SUPPORTED_PDU
                            : RTCOSIM_DCP_ERR_PROTOCOL_ERROR_PDU_NOT_ALLOWED_IN_THIS_STATE;
        if (r.type != RTCOSIM_DCP_RSP_NACK || r.error_code != want)
            fail_msg("%s in %s: %s %s, expected RSP_nack %s", rtcosim_dcp_pdu_type_name(t),
                     rtcosim_dcp_state_name(state), rtcosim_dcp_pdu_type_name(r.type),
                     rtcosim_dcp_error_code_name(r.error_code), rtcosim_dcp_error_code_name(want));
        assert_int_equal(rtcosim_dcp_slave_state(m->s.slave), state);
        tried++;
    }
    return tried;
}

static void configure(master *m)
{
    const rtcosim_dcp_pdu cfgs[] = {
        {.type = RTCOSIM_DCP_CFG_TIME_RES, .numerator = 1, .denominator = 1000},
        {.type = RTCOSIM_DCP_CFG_OUTPUT, .data_id = 1, .pos = 0, .value_reference = 0},
        {.type = RTCOSIM_DCP_CFG_STEPS, .data_id = 1, .steps = 1},
        {.type = RTCOSIM_DCP_CFG_SCOPE, .data_id = 1, .scope = 0},
        {.type = RTCOSIM_DCP_CFG_TARGET_NETWORK_INFORMATION, .data_id = 1,
         .transport_protocol = RTCOSIM_DCP_UDP_IPV4, .port = m->my_port, .ip_address = 0x7F000001},
        {.type = RTCOSIM_DCP_CFG_INPUT, .data_id = 2, .pos = 0, .value_reference = 1,
         .source_data_type = RTCOSIM_DCP_FLOAT64},
        {.type = RTCOSIM_DCP_CFG_SCOPE, .data_id = 2, .scope = 0},
        /* steps for an input's data id too, as a master may send them
         * (DCPLib's slave takes them; it needs them for outputs only): no
         * output of that id, nothing missing at STC_prepare */
        {.type = RTCOSIM_DCP_CFG_STEPS, .data_id = 2, .steps = 1},
        {.type = RTCOSIM_DCP_CFG_SOURCE_NETWORK_INFORMATION, .data_id = 2,
         .transport_protocol = RTCOSIM_DCP_UDP_IPV4, .port = m->slave_port, .ip_address = 0x7F000001},
    };
    for (size_t i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++) {
        rtcosim_dcp_pdu r = request(m, cfgs[i]);
        if (r.type != RTCOSIM_DCP_RSP_ACK)
            fail_msg("%s refused: %s", rtcosim_dcp_pdu_type_name(cfgs[i].type),
                     rtcosim_dcp_error_code_name(r.error_code));
    }
}

static rtcosim_dcp_pdu registration(const master *m, const uint8_t uuid[16])
{
    (void)m;
    rtcosim_dcp_pdu p = {.type = RTCOSIM_DCP_STC_REGISTER, .state_id = RTCOSIM_DCP_ALIVE,
                         .op_mode = RTCOSIM_DCP_OP_NRT, .major_version = 1, .minor_version = 0};
    memcpy(p.uuid, uuid, 16);
    return p;
}

static void test_every_state(void **state)
{
    (void)state;
    master m;
    master_open(&m, 0);
    uint8_t uuid[16];
    rtcosim_dcp_uuid_of_name("test.checked", uuid);
    int refused = 0;

    /* ALIVE: only STC_register and INF_state (INF_state answers ALIVE). */
    const uint8_t in_alive[] = {RTCOSIM_DCP_STC_REGISTER, RTCOSIM_DCP_INF_STATE};
    refused += refuse_others(&m, RTCOSIM_DCP_ALIVE, in_alive, 2);
    assert_int_equal(request(&m, (rtcosim_dcp_pdu){.type = RTCOSIM_DCP_INF_STATE}).state_id,
                     RTCOSIM_DCP_ALIVE);
    /* STC_register, checks in the order of table 110. */
    rtcosim_dcp_pdu reg = registration(&m, uuid);
    reg.state_id = RTCOSIM_DCP_CONFIGURATION;
    reg.uuid[0] ^= 1;
    assert_int_equal(request(&m, reg).error_code, RTCOSIM_DCP_ERR_INVALID_STATE_ID);
    reg.state_id = RTCOSIM_DCP_ALIVE;
    reg.op_mode = RTCOSIM_DCP_OP_HRT;
    assert_int_equal(request(&m, reg).error_code, RTCOSIM_DCP_ERR_INVALID_UUID);
    reg.uuid[0] ^= 1;
    reg.major_version = 2;
    assert_int_equal(request(&m, reg).error_code, RTCOSIM_DCP_ERR_INVALID_OP_MODE);
    reg.op_mode = RTCOSIM_DCP_OP_NRT;
    reg.minor_version = 1;
    assert_int_equal(request(&m, reg).error_code, RTCOSIM_DCP_ERR_INVALID_MAJOR_VERSION);
    reg.major_version = 1;
    assert_int_equal(request(&m, reg).error_code, RTCOSIM_DCP_ERR_INVALID_MINOR_VERSION);
    assert_int_equal(rtcosim_dcp_slave_state(m.s.slave), RTCOSIM_DCP_ALIVE);
    reg.minor_version = 0;
    go_with(&m, reg, RTCOSIM_DCP_CONFIGURATION);

    /* Sequence (3.4.1.1): one skipped id is INVALID_SEQUENCE_ID, expecting
     * the last valid + 1; a request for another slave id is dropped. */
    m.seq++;
    rtcosim_dcp_pdu r = request(&m, (rtcosim_dcp_pdu){.type = RTCOSIM_DCP_INF_STATE});
    assert_int_equal(r.error_code, RTCOSIM_DCP_ERR_INVALID_SEQUENCE_ID);
    assert_int_equal(r.exp_seq_id, (uint16_t)(m.seq - 2));
    m.seq -= 2;
    rtcosim_dcp_pdu other = {.type = RTCOSIM_DCP_INF_STATE, .seq_id = m.seq, .receiver = 2};
    send_pdu(&m, &other);
    assert_int_equal(next_of(&m, RTCOSIM_DCP_RSP_ACK, 200).type, 0);
    assert_int_equal(next_of(&m, RTCOSIM_DCP_RSP_STATE_ACK, 1).type, 0);

    /* CONFIGURATION: every CFG_* (logging on notification too), prepare,
     * deregister. */
    const uint8_t in_configuration[] = {
        RTCOSIM_DCP_STC_DEREGISTER, RTCOSIM_DCP_STC_PREPARE, RTCOSIM_DCP_INF_STATE,
        RTCOSIM_DCP_CFG_TIME_RES, RTCOSIM_DCP_CFG_STEPS, RTCOSIM_DCP_CFG_INPUT,
        RTCOSIM_DCP_CFG_OUTPUT, RTCOSIM_DCP_CFG_CLEAR, RTCOSIM_DCP_CFG_TARGET_NETWORK_INFORMATION,
        RTCOSIM_DCP_CFG_SOURCE_NETWORK_INFORMATION, RTCOSIM_DCP_CFG_PARAMETER,
        RTCOSIM_DCP_CFG_TUNABLE_PARAMETER, RTCOSIM_DCP_CFG_PARAM_NETWORK_INFORMATION,
        RTCOSIM_DCP_CFG_SCOPE, RTCOSIM_DCP_CFG_LOGGING};
    refused += refuse_others(&m, RTCOSIM_DCP_CONFIGURATION, in_configuration,
                             sizeof in_configuration);
    /* CFG_logging's fields (tables 58-60; the DCPX declares category 1 and
     * log on notification, not on request): the codes of table 130 */
    static const struct {
        uint8_t category, level, mode;
        uint16_t code; /* 0: acknowledged */
    } logging[] = {{9, 3, 2, RTCOSIM_DCP_ERR_INVALID_LOG_CATEGORY},
                   {0, 5, 2, RTCOSIM_DCP_ERR_INVALID_LOG_LEVEL},
                   {1, 3, 3, RTCOSIM_DCP_ERR_INVALID_LOG_MODE},
                   {0, 3, 1, RTCOSIM_DCP_ERR_NOT_SUPPORTED_LOG_ON_REQUEST},
                   {1, 4, 2, 0},
                   {0, 3, 2, 0},
                   {0, 3, 0, 0}}; /* and off again: the rest of the walk as before */
    for (size_t i = 0; i < sizeof logging / sizeof logging[0]; i++) {
        rtcosim_dcp_pdu r = request(&m, (rtcosim_dcp_pdu){.type = RTCOSIM_DCP_CFG_LOGGING,
                                                          .log_category = logging[i].category,
                                                          .log_level = logging[i].level,
                                                          .log_mode = logging[i].mode});
        if (logging[i].code == 0)
            assert_int_equal(r.type, RTCOSIM_DCP_RSP_ACK);
        else if (r.type != RTCOSIM_DCP_RSP_NACK || r.error_code != logging[i].code)
            fail_msg("CFG_logging %u/%u/%u: %s %s, expected %s", logging[i].category,
                     logging[i].level, logging[i].mode, rtcosim_dcp_pdu_type_name(r.type),
                     rtcosim_dcp_error_code_name(r.error_code),
                     rtcosim_dcp_error_code_name(logging[i].code));
    }
    configure(&m);
    go(&m, RTCOSIM_DCP_STC_PREPARE, RTCOSIM_DCP_CONFIGURATION, RTCOSIM_DCP_PREPARED);
    const uint8_t in_prepared[] = {RTCOSIM_DCP_STC_CONFIGURE, RTCOSIM_DCP_STC_STOP, RTCOSIM_DCP_INF_STATE};
    refused += refuse_others(&m, RTCOSIM_DCP_PREPARED, in_prepared, 3);
    go(&m, RTCOSIM_DCP_STC_CONFIGURE, RTCOSIM_DCP_PREPARED, RTCOSIM_DCP_CONFIGURED);
    const uint8_t in_configured[] = {RTCOSIM_DCP_STC_INITIALIZE, RTCOSIM_DCP_STC_RUN,
                                     RTCOSIM_DCP_STC_STOP, RTCOSIM_DCP_INF_STATE};
    refused += refuse_others(&m, RTCOSIM_DCP_CONFIGURED, in_configured, 4);
    go(&m, RTCOSIM_DCP_STC_INITIALIZE, RTCOSIM_DCP_CONFIGURED, RTCOSIM_DCP_INITIALIZED);
    const uint8_t in_initialized[] = {RTCOSIM_DCP_STC_SEND_OUTPUTS, RTCOSIM_DCP_STC_STOP,
                                      RTCOSIM_DCP_INF_STATE};
    refused += refuse_others(&m, RTCOSIM_DCP_INITIALIZED, in_initialized, 3);
    last_dat.type = 0;
    go(&m, RTCOSIM_DCP_STC_SEND_OUTPUTS, RTCOSIM_DCP_INITIALIZED, RTCOSIM_DCP_CONFIGURED);
    /* SENDING_I sent the outputs before it announced CONFIGURED. */
    assert_int_equal(last_dat.type, RTCOSIM_DCP_DAT_INPUT_OUTPUT);
    assert_int_equal(last_dat.data_id, 1);
    go(&m, RTCOSIM_DCP_STC_RUN, RTCOSIM_DCP_CONFIGURED, RTCOSIM_DCP_SYNCHRONIZED);
    const uint8_t in_synchronized[] = {RTCOSIM_DCP_STC_RUN, RTCOSIM_DCP_STC_DO_STEP,
                                       RTCOSIM_DCP_STC_STOP, RTCOSIM_DCP_INF_STATE};
    refused += refuse_others(&m, RTCOSIM_DCP_SYNCHRONIZED, in_synchronized, 4);
    go(&m, RTCOSIM_DCP_STC_RUN, RTCOSIM_DCP_SYNCHRONIZED, RTCOSIM_DCP_RUNNING);
    const uint8_t in_running[] = {RTCOSIM_DCP_STC_DO_STEP, RTCOSIM_DCP_STC_STOP, RTCOSIM_DCP_INF_STATE};
    refused += refuse_others(&m, RTCOSIM_DCP_RUNNING, in_running, 3);
    /* u = 2 for a step of 10 ms: y = 2 * 0.01 = 0.02 comes back. */
    uint8_t dat[13] = {RTCOSIM_DCP_DAT_INPUT_OUTPUT, 0, 0, 2, 0};
    double two = 2.0;
    memcpy(dat + 5, &two, 8); /* little-endian host, as the wire (3.1.11) */
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(m.slave_port)};
    inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
    assert_int_equal(sendto(m.fd, dat, sizeof dat, 0, (struct sockaddr *)&to, sizeof to), 13);
    go(&m, RTCOSIM_DCP_STC_DO_STEP, RTCOSIM_DCP_RUNNING, RTCOSIM_DCP_COMPUTED);
    const uint8_t in_computed[] = {RTCOSIM_DCP_STC_SEND_OUTPUTS, RTCOSIM_DCP_STC_STOP,
                                   RTCOSIM_DCP_INF_STATE};
    refused += refuse_others(&m, RTCOSIM_DCP_COMPUTED, in_computed, 3);
    last_dat.type = 0;
    go(&m, RTCOSIM_DCP_STC_SEND_OUTPUTS, RTCOSIM_DCP_COMPUTED, RTCOSIM_DCP_RUNNING);
    rtcosim_dcp_pdu out = last_dat;
    assert_int_equal(out.type, RTCOSIM_DCP_DAT_INPUT_OUTPUT);
    assert_int_equal(out.payload_size, 8);
    double y;
    memcpy(&y, out.payload, 8);
    assert_true(y == 2.0 * 0.01);
    go(&m, RTCOSIM_DCP_STC_STOP, RTCOSIM_DCP_RUNNING, RTCOSIM_DCP_STOPPED);
    assert_int_equal(atomic_load(&terminates), 1); /* after initialization: legal */
    const uint8_t in_stopped[] = {RTCOSIM_DCP_STC_DEREGISTER, RTCOSIM_DCP_STC_RESET,
                                  RTCOSIM_DCP_INF_STATE};
    refused += refuse_others(&m, RTCOSIM_DCP_STOPPED, in_stopped, 3);
    go(&m, RTCOSIM_DCP_STC_RESET, RTCOSIM_DCP_STOPPED, RTCOSIM_DCP_CONFIGURATION);
    go(&m, RTCOSIM_DCP_STC_DEREGISTER, RTCOSIM_DCP_CONFIGURATION, RTCOSIM_DCP_ALIVE);
    /* 9 resting states, every refused pair of table 63 among them. */
    assert_int_equal(refused, 23 + 10 + 22 + 21 + 22 + 21 + 22 + 22 + 22);
    master_close(&m);
    assert_int_equal(atomic_load(&illegal_calls), 0);
    assert_int_equal(atomic_load(&destroys), 3); /* probe and two sessions */
}

/* STC_stop in initialization (after STC_configure, fmi2EnterInitializationMode)
 * and a master lost after it started its heartbeat: the model is freed,
 * never terminated. */
static void test_no_terminate_in_initialization(void **state)
{
    (void)state;
    master m;
    master_open(&m, 300 * RTCOSIM_NS_PER_MS);
    uint8_t uuid[16];
    rtcosim_dcp_uuid_of_name("test.checked", uuid);
    for (int round = 0; round < 2; round++) {
        go_with(&m, registration(&m, uuid), RTCOSIM_DCP_CONFIGURATION);
        configure(&m);
        go(&m, RTCOSIM_DCP_STC_PREPARE, RTCOSIM_DCP_CONFIGURATION, RTCOSIM_DCP_PREPARED);
        go(&m, RTCOSIM_DCP_STC_CONFIGURE, RTCOSIM_DCP_PREPARED, RTCOSIM_DCP_CONFIGURED);
        if (round == 0) {
            go(&m, RTCOSIM_DCP_STC_STOP, RTCOSIM_DCP_CONFIGURED, RTCOSIM_DCP_STOPPED);
            go(&m, RTCOSIM_DCP_STC_DEREGISTER, RTCOSIM_DCP_STOPPED, RTCOSIM_DCP_ALIVE);
        } else {
            request(&m, (rtcosim_dcp_pdu){.type = RTCOSIM_DCP_INF_STATE}); /* heartbeat on */
            /* ... then silence: HEARTBEAT_MISSED, ERRORHANDLING, ERRORRESOLVED, ALIVE. */
            rtcosim_dcp_pdu n;
            do
                n = next_of(&m, RTCOSIM_DCP_NTF_STATE_CHANGED, 5000);
            while (n.type && n.state_id != RTCOSIM_DCP_ERRORRESOLVED);
            assert_int_equal(n.state_id, RTCOSIM_DCP_ERRORRESOLVED);
            for (int i = 0; i < 200 && rtcosim_dcp_slave_state(m.s.slave) != RTCOSIM_DCP_ALIVE; i++)
                nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
            assert_int_equal(rtcosim_dcp_slave_state(m.s.slave), RTCOSIM_DCP_ALIVE);
        }
        m.seq += 10; /* a new registration starts its own sequence */
    }
    assert_int_equal(atomic_load(&terminates), 0);
    assert_int_equal(atomic_load(&illegal_calls), 0);
    master_close(&m);
    assert_int_equal(atomic_load(&destroys), 3);
}

/* One data id in both directions (DCPLib's example master configures a
 * slave so): output x (vr 0) goes as data id 1 to the slave itself, where
 * data id 1 is input u (vr 1); x also goes to the master as data id 2. The
 * decay model dx/dt = -k x + u (k = 1) with u = x of the step before stays
 * exactly where it is from the second step on (every RK4 stage is 0), and
 * would keep decaying if the looped data were not taken. */
static void test_same_data_id_both_ways(void **state)
{
    (void)state;
    master m;
    atomic_store(&destroys, 0);
    start_slave(&m.s, 0);
    m.slave_port = rtcosim_dcp_slave_port(m.s.slave);
    m.fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in me = {.sin_family = AF_INET};
    inet_pton(AF_INET, "127.0.0.1", &me.sin_addr);
    assert_int_equal(bind(m.fd, (struct sockaddr *)&me, sizeof me), 0);
    socklen_t len = sizeof me;
    getsockname(m.fd, (struct sockaddr *)&me, &len);
    m.my_port = ntohs(me.sin_port);
    m.seq = 1;
    uint8_t uuid[16];
    rtcosim_dcp_uuid_of_name("test.dcp.decay", uuid);
    go_with(&m, registration(&m, uuid), RTCOSIM_DCP_CONFIGURATION);
    const rtcosim_dcp_pdu cfgs[] = {
        {.type = RTCOSIM_DCP_CFG_TIME_RES, .numerator = 1, .denominator = 1000},
        {.type = RTCOSIM_DCP_CFG_OUTPUT, .data_id = 1, .pos = 0, .value_reference = 0},
        {.type = RTCOSIM_DCP_CFG_STEPS, .data_id = 1, .steps = 1},
        {.type = RTCOSIM_DCP_CFG_TARGET_NETWORK_INFORMATION, .data_id = 1,
         .transport_protocol = RTCOSIM_DCP_UDP_IPV4, .port = m.slave_port, .ip_address = 0x7F000001},
        {.type = RTCOSIM_DCP_CFG_INPUT, .data_id = 1, .pos = 0, .value_reference = 1,
         .source_data_type = RTCOSIM_DCP_FLOAT64},
        {.type = RTCOSIM_DCP_CFG_SOURCE_NETWORK_INFORMATION, .data_id = 1,
         .transport_protocol = RTCOSIM_DCP_UDP_IPV4, .port = m.slave_port, .ip_address = 0x7F000001},
        {.type = RTCOSIM_DCP_CFG_SCOPE, .data_id = 1, .scope = 0},
        {.type = RTCOSIM_DCP_CFG_OUTPUT, .data_id = 2, .pos = 0, .value_reference = 0},
        {.type = RTCOSIM_DCP_CFG_STEPS, .data_id = 2, .steps = 1},
        {.type = RTCOSIM_DCP_CFG_TARGET_NETWORK_INFORMATION, .data_id = 2,
         .transport_protocol = RTCOSIM_DCP_UDP_IPV4, .port = m.my_port, .ip_address = 0x7F000001},
    };
    for (size_t i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++) {
        rtcosim_dcp_pdu r = request(&m, cfgs[i]);
        if (r.type != RTCOSIM_DCP_RSP_ACK)
            fail_msg("%s refused: %s", rtcosim_dcp_pdu_type_name(cfgs[i].type),
                     rtcosim_dcp_error_code_name(r.error_code));
    }
    go(&m, RTCOSIM_DCP_STC_PREPARE, RTCOSIM_DCP_CONFIGURATION, RTCOSIM_DCP_PREPARED);
    go(&m, RTCOSIM_DCP_STC_CONFIGURE, RTCOSIM_DCP_PREPARED, RTCOSIM_DCP_CONFIGURED);
    go(&m, RTCOSIM_DCP_STC_RUN, RTCOSIM_DCP_CONFIGURED, RTCOSIM_DCP_SYNCHRONIZED);
    go(&m, RTCOSIM_DCP_STC_RUN, RTCOSIM_DCP_SYNCHRONIZED, RTCOSIM_DCP_RUNNING);
    double xs[5];
    for (int k = 0; k < 5; k++) {
        go(&m, RTCOSIM_DCP_STC_DO_STEP, RTCOSIM_DCP_RUNNING, RTCOSIM_DCP_COMPUTED);
        last_dat.type = 0;
        go(&m, RTCOSIM_DCP_STC_SEND_OUTPUTS, RTCOSIM_DCP_COMPUTED, RTCOSIM_DCP_RUNNING);
        assert_int_equal(last_dat.type, RTCOSIM_DCP_DAT_INPUT_OUTPUT);
        assert_int_equal(last_dat.data_id, 2);
        memcpy(&xs[k], last_dat.payload, 8);
    }
    assert_true(xs[0] < 1.0 && xs[0] > 0.98); /* first step: u = 0, x0 = 1 decays (e^-0.01) */
    for (int k = 1; k < 5; k++)
        assert_true(xs[k] == xs[0]);
    go(&m, RTCOSIM_DCP_STC_STOP, RTCOSIM_DCP_RUNNING, RTCOSIM_DCP_STOPPED);
    go(&m, RTCOSIM_DCP_STC_DEREGISTER, RTCOSIM_DCP_STOPPED, RTCOSIM_DCP_ALIVE);
    master_close(&m);
}

/* Soft real time at 1 ns a step (a master that takes the DCPX's first
 * Resolution, 1 ns, with CFG_steps 1): STC_prepare is refused with
 * INVALID_STEPS rather than a slave that spins and floods; 100 us passes. */
static void test_srt_period_floor(void **state)
{
    (void)state;
    master m;
    master_open(&m, 0);
    uint8_t uuid[16];
    rtcosim_dcp_uuid_of_name("test.checked", uuid);
    rtcosim_dcp_pdu reg = registration(&m, uuid);
    reg.op_mode = RTCOSIM_DCP_OP_SRT;
    go_with(&m, reg, RTCOSIM_DCP_CONFIGURATION);
    const uint32_t steps[2] = {1, 100000}; /* 1 ns, then 100 us */
    for (int i = 0; i < 2; i++) {
        const rtcosim_dcp_pdu cfgs[] = {
            {.type = RTCOSIM_DCP_CFG_TIME_RES, .numerator = 1, .denominator = 1000000000u},
            {.type = RTCOSIM_DCP_CFG_OUTPUT, .data_id = 1, .pos = 0, .value_reference = 0},
            {.type = RTCOSIM_DCP_CFG_STEPS, .data_id = 1, .steps = steps[i]},
            {.type = RTCOSIM_DCP_CFG_TARGET_NETWORK_INFORMATION, .data_id = 1,
             .transport_protocol = RTCOSIM_DCP_UDP_IPV4, .port = m.my_port, .ip_address = 0x7F000001},
        };
        if (i == 1)
            assert_int_equal(request(&m, (rtcosim_dcp_pdu){.type = RTCOSIM_DCP_CFG_CLEAR}).type,
                             RTCOSIM_DCP_RSP_ACK);
        for (size_t k = 0; k < sizeof cfgs / sizeof cfgs[0]; k++)
            assert_int_equal(request(&m, cfgs[k]).type, RTCOSIM_DCP_RSP_ACK);
        rtcosim_dcp_pdu r = request(&m, (rtcosim_dcp_pdu){.type = RTCOSIM_DCP_STC_PREPARE,
                                                          .state_id = RTCOSIM_DCP_CONFIGURATION});
        if (i == 0) {
            assert_int_equal(r.type, RTCOSIM_DCP_RSP_NACK);
            assert_int_equal(r.error_code, RTCOSIM_DCP_ERR_INVALID_STEPS);
        } else {
            assert_int_equal(r.type, RTCOSIM_DCP_RSP_ACK);
        }
    }
    master_close(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_state),
        cmocka_unit_test(test_no_terminate_in_initialization),
        cmocka_unit_test(test_same_data_id_both_ways),
        cmocka_unit_test(test_srt_period_floor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
