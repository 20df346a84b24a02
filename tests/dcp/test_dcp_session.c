/* DCP sessions on loopback: an rtcosim slave serving a native model and the
 * "dcp" component driving it in NRT lock step must give bit-identical
 * results to the same model run locally; requests the state does not allow
 * get RSP_nack with the spec's error code (checked from raw datagrams); a
 * master that vanishes leaves the slave ALIVE for the next session. */
#include <arpa/inet.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
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
#include "rtcosim/native.h"
#include "session.h"

static void test_nrt_matches_local(void **state)
{
    (void)state;
    static double local_x[200], remote_x[200];
    static int32_t local_n[200], remote_n[200];
    rtcosim_component *local = NULL;
    assert_int_equal(factory(NULL, &local, NULL), RTCOSIM_OK);
    run(local, local_x, local_n);
    rtcosim_component_free(local);

    served s;
    start_slave(&s, 0);
    rtcosim_component *c = remote_of(&s);
    assert_string_equal(rtcosim_component_kind(c), "dcp");
    run(c, remote_x, remote_n);
    rtcosim_component_free(c);
    assert_int_equal(rtcosim_dcp_slave_sessions(s.slave), 1);
    stop_slave(&s);

    /* Bit-identical, and the model really moved (x(2 s) differs from x0 and
     * the analytic decay without input, exp(-5) = 0.0067). */
    assert_memory_equal(local_x, remote_x, sizeof local_x);
    assert_memory_equal(local_n, remote_n, sizeof local_n);
    assert_int_equal(remote_n[199], 200);
    assert_true(fabs(remote_x[199] - exp(-5.0)) > 0.01);
}


/* A raw UDP master: send one request, return the first response. */
/* Answers are waited for up to 30 s: a loaded sanitizer run is slow, and a
 * pass costs only the time the slave takes. */
static int raw_socket(void)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct timeval tv = {.tv_sec = 30};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return fd;
}

static rtcosim_dcp_pdu ask(int fd, uint16_t port, const rtcosim_dcp_pdu *req, const uint8_t *raw,
                           size_t raw_size, uint8_t want_type)
{
    static uint8_t buf[256];
    size_t n = raw_size;
    if (req) {
        /* Requests go to slave id 1: 0 is the master's (spec 3.3.3.2). */
        rtcosim_dcp_pdu to_slave = *req;
        to_slave.receiver = 1;
        assert_int_equal(rtcosim_dcp_pdu_encode(&to_slave, buf, sizeof buf, &n, NULL), RTCOSIM_OK);
    }
    else
        memcpy(buf, raw, raw_size);
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(port)};
    inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
    assert_int_equal(sendto(fd, buf, n, 0, (struct sockaddr *)&to, sizeof to), (ssize_t)n);
    for (;;) {
        ssize_t got = recv(fd, buf, sizeof buf, 0);
        assert_true(got > 0);
        rtcosim_dcp_pdu p;
        assert_int_equal(rtcosim_dcp_pdu_decode(buf, (size_t)got, &p, NULL, NULL), RTCOSIM_OK);
        if (p.type == want_type)
            return p;
    }
}

/* No datagram arrives on fd within 200 ms. */
static void assert_silent(int fd)
{
    struct timeval tv = {.tv_usec = 200000}, back = {.tv_sec = 30};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    uint8_t buf[64];
    assert_true(recv(fd, buf, sizeof buf, 0) < 0);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &back, sizeof back);
}

static void test_nack_codes(void **state)
{
    (void)state;
    served s;
    start_slave(&s, 0);
    uint16_t port = rtcosim_dcp_slave_port(s.slave);
    int fd = raw_socket();
    /* do_step while ALIVE. */
    rtcosim_dcp_pdu step = {.type = RTCOSIM_DCP_STC_DO_STEP, .seq_id = 40, .receiver = 1,
                            .state_id = 0, .steps = 1};
    rtcosim_dcp_pdu r = ask(fd, port, &step, NULL, 0, RTCOSIM_DCP_RSP_NACK);
    assert_int_equal(r.seq_id, 40);
    assert_int_equal(r.error_code, RTCOSIM_DCP_ERR_PROTOCOL_ERROR_PDU_NOT_ALLOWED_IN_THIS_STATE);
    /* An unknown type id is dropped (spec table 107, check 1); a wrong
     * length is INVALID_LENGTH. */
    const uint8_t unknown[] = {0x5A, 41, 0, 1};
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(port)};
    inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
    assert_int_equal(sendto(fd, unknown, sizeof unknown, 0, (struct sockaddr *)&to, sizeof to), 4);
    assert_silent(fd);
    const uint8_t short_res[] = {0x20, 42, 0, 1, 1, 0, 0};
    r = ask(fd, port, NULL, short_res, sizeof short_res, RTCOSIM_DCP_RSP_NACK);
    assert_int_equal(r.error_code, RTCOSIM_DCP_ERR_INVALID_LENGTH);
    /* Register with a wrong major version, then properly. */
    rtcosim_dcp_pdu reg = {.type = RTCOSIM_DCP_STC_REGISTER, .seq_id = 43, .receiver = 1, .state_id = 0,
                           .op_mode = RTCOSIM_DCP_OP_NRT, .major_version = 2};
    r = ask(fd, port, &reg, NULL, 0, RTCOSIM_DCP_RSP_NACK);
    assert_int_equal(r.error_code, RTCOSIM_DCP_ERR_INVALID_MAJOR_VERSION);
    reg.seq_id = 44;
    reg.major_version = 1;
    r = ask(fd, port, &reg, NULL, 0, RTCOSIM_DCP_RSP_ACK);
    assert_int_equal(r.seq_id, 44);
    assert_int_equal(rtcosim_dcp_slave_state(s.slave), RTCOSIM_DCP_CONFIGURATION);
    /* A resolution that is no whole number of ns; a vr the slave lacks. */
    rtcosim_dcp_pdu res = {.type = RTCOSIM_DCP_CFG_TIME_RES, .seq_id = 45, .receiver = 1,
                           .numerator = 1, .denominator = 3};
    r = ask(fd, port, &res, NULL, 0, RTCOSIM_DCP_RSP_NACK);
    assert_int_equal(r.error_code, RTCOSIM_DCP_ERR_INVALID_TIME_RESOLUTION);
    rtcosim_dcp_pdu in = {.type = RTCOSIM_DCP_CFG_INPUT, .seq_id = 46, .receiver = 1, .value_reference = 99,
                          .source_data_type = RTCOSIM_DCP_FLOAT64};
    r = ask(fd, port, &in, NULL, 0, RTCOSIM_DCP_RSP_NACK);
    assert_int_equal(r.error_code, RTCOSIM_DCP_ERR_INVALID_VALUE_REFERENCE);
    in.seq_id = 47;
    in.value_reference = 0; /* x is an output */
    r = ask(fd, port, &in, NULL, 0, RTCOSIM_DCP_RSP_NACK);
    assert_int_equal(r.error_code, RTCOSIM_DCP_ERR_INVALID_VALUE_REFERENCE);
    /* prepare without a time resolution: incomplete configuration. */
    rtcosim_dcp_pdu prep = {.type = RTCOSIM_DCP_STC_PREPARE, .seq_id = 48, .receiver = 1,
                            .state_id = RTCOSIM_DCP_CONFIGURATION};
    r = ask(fd, port, &prep, NULL, 0, RTCOSIM_DCP_RSP_NACK);
    assert_int_equal(r.error_code, RTCOSIM_DCP_ERR_INCOMPLETE_CONFIG_TIME_RESOLUTION);
    /* STC with a state_id that is not the slave's. */
    prep.seq_id = 49;
    prep.state_id = RTCOSIM_DCP_PREPARED;
    r = ask(fd, port, &prep, NULL, 0, RTCOSIM_DCP_RSP_NACK);
    assert_int_equal(r.error_code, RTCOSIM_DCP_ERR_INVALID_STATE_ID);
    /* INF_state answers with the state. */
    rtcosim_dcp_pdu inf = {.type = RTCOSIM_DCP_INF_STATE, .seq_id = 50, .receiver = 1};
    r = ask(fd, port, &inf, NULL, 0, RTCOSIM_DCP_RSP_STATE_ACK);
    assert_int_equal(r.state_id, RTCOSIM_DCP_CONFIGURATION);
    rtcosim_dcp_pdu dereg = {.type = RTCOSIM_DCP_STC_DEREGISTER, .seq_id = 51, .receiver = 1,
                             .state_id = RTCOSIM_DCP_CONFIGURATION};
    ask(fd, port, &dereg, NULL, 0, RTCOSIM_DCP_RSP_ACK);
    assert_int_equal(rtcosim_dcp_slave_state(s.slave), RTCOSIM_DCP_ALIVE);
    close(fd);
    stop_slave(&s);
}

static rtcosim_dcp_pdu await_pdu(int fd, uint8_t want_type)
{
    static uint8_t buf[256];
    for (;;) {
        ssize_t got = recv(fd, buf, sizeof buf, 0);
        assert_true(got > 0);
        rtcosim_dcp_pdu p;
        assert_int_equal(rtcosim_dcp_pdu_decode(buf, (size_t)got, &p, NULL, NULL), RTCOSIM_OK);
        if (p.type == want_type)
            return p;
    }
}

/* A raw master socket bound on loopback that registered the slave at port
 * in soft real time and configured output 4 (data id 7) every `steps` ms
 * sent to it; *seq is the next sequence id. */
static int srt_configured(uint16_t port, uint32_t steps, uint16_t *seq)
{
    int fd = raw_socket();
    struct sockaddr_in me = {.sin_family = AF_INET};
    inet_pton(AF_INET, "127.0.0.1", &me.sin_addr);
    assert_int_equal(bind(fd, (struct sockaddr *)&me, sizeof me), 0);
    socklen_t len = sizeof me;
    getsockname(fd, (struct sockaddr *)&me, &len);
    rtcosim_dcp_pdu reg = {.type = RTCOSIM_DCP_STC_REGISTER, .seq_id = (*seq)++,
                           .op_mode = RTCOSIM_DCP_OP_SRT, .major_version = 1};
    ask(fd, port, &reg, NULL, 0, RTCOSIM_DCP_RSP_ACK);
    rtcosim_dcp_pdu cfgs[] = {
        {.type = RTCOSIM_DCP_CFG_TIME_RES, .numerator = 1, .denominator = 1000},
        {.type = RTCOSIM_DCP_CFG_OUTPUT, .data_id = 7, .pos = 0, .value_reference = 4},
        {.type = RTCOSIM_DCP_CFG_STEPS, .data_id = 7, .steps = steps},
        {.type = RTCOSIM_DCP_CFG_TARGET_NETWORK_INFORMATION, .data_id = 7,
         .transport_protocol = RTCOSIM_DCP_UDP_IPV4, .port = ntohs(me.sin_port),
         .ip_address = 0x7F000001},
    };
    for (size_t i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++) {
        cfgs[i].seq_id = (*seq)++;
        ask(fd, port, &cfgs[i], NULL, 0, RTCOSIM_DCP_RSP_ACK);
    }
    return fd;
}

/* Soft real time: the slave steps on its own clock (resolution 1 ms,
 * CFG_steps 5: one 5 ms step per period) and sends the output after each
 * step with consecutive sequence ids; the model's step counter proves that
 * every period was one do_step. No wall-clock bounds are asserted. */
static void test_srt_outputs(void **state)
{
    (void)state;
    served s;
    start_slave(&s, 0);
    uint16_t port = rtcosim_dcp_slave_port(s.slave), seq = 1;
    int fd = srt_configured(port, 5, &seq);
    const uint8_t path[][2] = {{RTCOSIM_DCP_STC_PREPARE, RTCOSIM_DCP_PREPARED},
                               {RTCOSIM_DCP_STC_CONFIGURE, RTCOSIM_DCP_CONFIGURED},
                               {RTCOSIM_DCP_STC_RUN, RTCOSIM_DCP_SYNCHRONIZED}};
    uint8_t now = RTCOSIM_DCP_CONFIGURATION;
    for (size_t i = 0; i < 3; i++) {
        rtcosim_dcp_pdu p = {.type = path[i][0], .seq_id = seq++, .state_id = now};
        ask(fd, port, &p, NULL, 0, RTCOSIM_DCP_RSP_ACK);
        while (await_pdu(fd, RTCOSIM_DCP_NTF_STATE_CHANGED).state_id != path[i][1])
            ;
        now = path[i][1];
    }
    int32_t last_steps = 0;
    uint16_t last_seq = 0;
    for (int i = 0; i < 20; i++) {
        rtcosim_dcp_pdu d = await_pdu(fd, RTCOSIM_DCP_DAT_INPUT_OUTPUT);
        assert_int_equal(d.data_id, 7);
        assert_int_equal(d.payload_size, 4);
        int32_t steps = (int32_t)(d.payload[0] | d.payload[1] << 8 | d.payload[2] << 16 |
                                  (uint32_t)d.payload[3] << 24);
        if (i > 0) {
            assert_int_equal(steps, last_steps + 1);
            assert_int_equal((uint16_t)(d.seq_id - last_seq), 1);
        }
        last_steps = steps;
        last_seq = d.seq_id;
    }
    assert_int_equal(rtcosim_dcp_slave_state(s.slave), RTCOSIM_DCP_SYNCHRONIZED);
    rtcosim_dcp_pdu stop = {.type = RTCOSIM_DCP_STC_STOP, .seq_id = seq++, .state_id = now};
    ask(fd, port, &stop, NULL, 0, RTCOSIM_DCP_RSP_ACK);
    while (await_pdu(fd, RTCOSIM_DCP_NTF_STATE_CHANGED).state_id != RTCOSIM_DCP_STOPPED)
        ;
    rtcosim_dcp_pdu dereg = {.type = RTCOSIM_DCP_STC_DEREGISTER, .seq_id = seq++,
                             .state_id = RTCOSIM_DCP_STOPPED};
    ask(fd, port, &dereg, NULL, 0, RTCOSIM_DCP_RSP_ACK);
    assert_int_equal(rtcosim_dcp_slave_state(s.slave), RTCOSIM_DCP_ALIVE);
    close(fd);
    stop_slave(&s);
}

/* SRT under the master's clock: STC_run names an absolute start time (UNIX
 * seconds) up to 2 s ahead; the slave is SYNCHRONIZED at once but its first
 * output comes no earlier than that time (a lower bound only: a loaded
 * machine can make it late, never early). */
static void test_srt_start_time(void **state)
{
    (void)state;
    served s;
    start_slave(&s, 5 * RTCOSIM_NS_PER_S);
    uint16_t port = rtcosim_dcp_slave_port(s.slave), seq = 1;
    int fd = srt_configured(port, 20, &seq);
    uint8_t now = RTCOSIM_DCP_CONFIGURATION;
    const uint8_t path[][2] = {{RTCOSIM_DCP_STC_PREPARE, RTCOSIM_DCP_PREPARED},
                               {RTCOSIM_DCP_STC_CONFIGURE, RTCOSIM_DCP_CONFIGURED}};
    for (size_t i = 0; i < 2; i++) {
        rtcosim_dcp_pdu p = {.type = path[i][0], .seq_id = seq++, .state_id = now};
        ask(fd, port, &p, NULL, 0, RTCOSIM_DCP_RSP_ACK);
        while (await_pdu(fd, RTCOSIM_DCP_NTF_STATE_CHANGED).state_id != path[i][1])
            ;
        now = path[i][1];
    }
    struct timespec real;
    clock_gettime(CLOCK_REALTIME, &real);
    int64_t start = (int64_t)real.tv_sec + 2; /* 1..2 s ahead */
    rtcosim_dcp_pdu run = {.type = RTCOSIM_DCP_STC_RUN, .seq_id = seq++, .state_id = now,
                           .start_time = start};
    ask(fd, port, &run, NULL, 0, RTCOSIM_DCP_RSP_ACK);
    while (await_pdu(fd, RTCOSIM_DCP_NTF_STATE_CHANGED).state_id != RTCOSIM_DCP_SYNCHRONIZED)
        ;
    rtcosim_dcp_pdu d = await_pdu(fd, RTCOSIM_DCP_DAT_INPUT_OUTPUT);
    clock_gettime(CLOCK_REALTIME, &real);
    assert_true(real.tv_sec >= start);
    assert_int_equal(d.data_id, 7);
    rtcosim_dcp_pdu stop = {.type = RTCOSIM_DCP_STC_STOP, .seq_id = seq++,
                            .state_id = RTCOSIM_DCP_SYNCHRONIZED};
    ask(fd, port, &stop, NULL, 0, RTCOSIM_DCP_RSP_ACK);
    while (await_pdu(fd, RTCOSIM_DCP_NTF_STATE_CHANGED).state_id != RTCOSIM_DCP_STOPPED)
        ;
    rtcosim_dcp_pdu dereg = {.type = RTCOSIM_DCP_STC_DEREGISTER, .seq_id = seq++,
                             .state_id = RTCOSIM_DCP_STOPPED};
    ask(fd, port, &dereg, NULL, 0, RTCOSIM_DCP_RSP_ACK);
    close(fd);
    stop_slave(&s);
}

/* 10 steps, 3 s idle (3x the slave heartbeat timeout), 10 steps. The
 * master retries after 2 s only: a master that waits retry_ns for a state
 * notification asks INF_state, and that first INF_state starts the slave's
 * heartbeat monitor even with the master's own heartbeat off, so a slave
 * that a loaded machine lets notify late (20 ms before) armed the monitor
 * and the silent pause lost the session. */
static rtcosim_status idle_run(const served *s, rtcosim_time_ns master_heartbeat, rtcosim_error *err)
{
    rtcosim_component *probe = NULL, *c = NULL;
    assert_int_equal(factory(NULL, &probe, err), RTCOSIM_OK);
    rtcosim_dcp_remote_config cfg = {.host = "127.0.0.1", .port = rtcosim_dcp_slave_port(s->slave),
                                     .retry_ns = 2 * RTCOSIM_NS_PER_S, .attempts = 5,
                                     .heartbeat_ns = master_heartbeat};
    assert_int_equal(rtcosim_dcp_remote_create(&cfg, rtcosim_component_description(probe), &c, err),
                     RTCOSIM_OK);
    rtcosim_component_free(probe);
    const uint32_t vr_steps = 4;
    int32_t steps = 0;
    rtcosim_status st;
    if ((st = rtcosim_component_instantiate(c, "idle", err)) == RTCOSIM_OK &&
        (st = rtcosim_component_setup(c, 0, 0, -1, err)) == RTCOSIM_OK &&
        (st = rtcosim_component_enter_init(c, err)) == RTCOSIM_OK &&
        (st = rtcosim_component_exit_init(c, err)) == RTCOSIM_OK) {
        for (int i = 0; i < 20 && st == RTCOSIM_OK; i++) {
            if (i == 10)
                nanosleep(&(struct timespec){.tv_sec = 3}, NULL);
            st = rtcosim_component_do_step(c, i * RTCOSIM_NS_PER_MS, RTCOSIM_NS_PER_MS, NULL, err);
        }
        if (st == RTCOSIM_OK)
            st = rtcosim_component_get(c, RTCOSIM_TYPE_INT32, &vr_steps, 1, &steps, err);
        if (st == RTCOSIM_OK && steps != 20)
            st = rtcosim_error_set(err, RTCOSIM_EINVAL, "%d steps instead of 20", (int)steps);
    }
    rtcosim_component_free(c);
    return st;
}

/* The master's heartbeat (INF_state while idle) keeps a session through a
 * pause longer than the slave's timeout. A master that sends no INF_state at
 * all configured no heartbeat (spec 3.4.9): the slave must not declare it
 * lost for silence, so the same pause passes too (the heartbeat default). */
static void test_idle_master_heartbeat(void **state)
{
    (void)state;
    served s;
    /* 1 s: the master's heartbeat every 50 ms keeps the session unless its
     * thread is starved for 0.95 s. */
    start_slave(&s, RTCOSIM_NS_PER_S);
    rtcosim_error err = {0};
    if (idle_run(&s, 50 * RTCOSIM_NS_PER_MS, &err) != RTCOSIM_OK)
        fail_msg("with heartbeat: %s", err.message);
    assert_int_equal(rtcosim_dcp_slave_sessions(s.slave), 1);
    if (idle_run(&s, -1, &err) != RTCOSIM_OK)
        fail_msg("without heartbeat: %s", err.message);
    assert_int_equal(rtcosim_dcp_slave_sessions(s.slave), 2);
    stop_slave(&s);
}

static void test_vanished_master(void **state)
{
    (void)state;
    served s;
    start_slave(&s, 500 * RTCOSIM_NS_PER_MS); /* long enough for a loaded sanitizer run */
    uint16_t port = rtcosim_dcp_slave_port(s.slave);
    int fd = raw_socket();
    rtcosim_dcp_pdu reg = {.type = RTCOSIM_DCP_STC_REGISTER, .seq_id = 1, .receiver = 1,
                           .state_id = 0, .op_mode = RTCOSIM_DCP_OP_NRT, .major_version = 1};
    ask(fd, port, &reg, NULL, 0, RTCOSIM_DCP_RSP_ACK);
    assert_int_equal(rtcosim_dcp_slave_state(s.slave), RTCOSIM_DCP_CONFIGURATION);
    rtcosim_dcp_pdu res = {.type = RTCOSIM_DCP_CFG_TIME_RES, .seq_id = 2, .numerator = 1,
                           .denominator = 1000};
    ask(fd, port, &res, NULL, 0, RTCOSIM_DCP_RSP_ACK);
    /* A master that configures but sent no INF_state has no heartbeat:
     * three timeouts of silence keep the session. */
    nanosleep(&(struct timespec){.tv_sec = 1, .tv_nsec = 500000000}, NULL);
    assert_int_equal(rtcosim_dcp_slave_state(s.slave), RTCOSIM_DCP_CONFIGURATION);
    /* The first INF_state starts the heartbeat; then the master is gone. */
    rtcosim_dcp_pdu inf = {.type = RTCOSIM_DCP_INF_STATE, .seq_id = 3, .receiver = 1};
    assert_int_equal(ask(fd, port, &inf, NULL, 0, RTCOSIM_DCP_RSP_STATE_ACK).state_id,
                     RTCOSIM_DCP_CONFIGURATION);
    close(fd);
    await_slave_state(s.slave, RTCOSIM_DCP_ALIVE, false);
    assert_int_equal(rtcosim_dcp_slave_state(s.slave), RTCOSIM_DCP_ALIVE);
    /* The next master gets a full session. */
    static double xs[200];
    static int32_t ns[200];
    rtcosim_component *c = remote_of(&s);
    run(c, xs, ns);
    rtcosim_component_free(c);
    assert_int_equal(rtcosim_dcp_slave_sessions(s.slave), 2);
    assert_int_equal(ns[199], 200);
    stop_slave(&s);
}

/* A retransmitted STC_register that UDP delivers after the session went on
 * (seen with a reordering relay: "refused CFG_time_res: INVALID_SEQUENCE_ID")
 * is refused as not allowed in CONFIGURATION and leaves the session's
 * sequence alone: the next request, the last one's id + 1, is taken. */
static void test_late_register_duplicate_keeps_the_sequence(void **state)
{
    (void)state;
    served s;
    start_slave(&s, 0);
    uint16_t port = rtcosim_dcp_slave_port(s.slave);
    int fd = raw_socket();
    rtcosim_dcp_pdu reg = {.type = RTCOSIM_DCP_STC_REGISTER, .seq_id = 7, .receiver = 1,
                           .state_id = 0, .op_mode = RTCOSIM_DCP_OP_NRT, .major_version = 1};
    assert_int_equal(ask(fd, port, &reg, NULL, 0, RTCOSIM_DCP_RSP_ACK).seq_id, 7);
    rtcosim_dcp_pdu res = {.type = RTCOSIM_DCP_CFG_TIME_RES, .seq_id = 8, .receiver = 1,
                           .numerator = 1, .denominator = 1000};
    assert_int_equal(ask(fd, port, &res, NULL, 0, RTCOSIM_DCP_RSP_ACK).seq_id, 8);
    rtcosim_dcp_pdu r = ask(fd, port, &reg, NULL, 0, RTCOSIM_DCP_RSP_NACK); /* the late copy */
    assert_int_equal(r.seq_id, 7);
    assert_int_equal(r.error_code, RTCOSIM_DCP_ERR_PROTOCOL_ERROR_PDU_NOT_ALLOWED_IN_THIS_STATE);
    res.seq_id = 9;
    r = ask(fd, port, &res, NULL, 0, RTCOSIM_DCP_RSP_ACK);
    assert_int_equal(r.seq_id, 9);
    assert_int_equal(rtcosim_dcp_slave_state(s.slave), RTCOSIM_DCP_CONFIGURATION);
    close(fd);
    stop_slave(&s);
}

/* A request nobody answers goes out `attempts` times in all (the config's
 * "give up after `attempts` sends"), each the same PDU with the same
 * sequence id, then the call fails with RTCOSIM_ETIMEOUT. A silent socket
 * plays the slave; the count is independent of how fast the machine is. */
static void test_unanswered_request_is_sent_attempts_times(void **state)
{
    (void)state;
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    rtcosim_component *probe = NULL, *c = NULL;
    rtcosim_error err = {0};
    assert_int_equal(factory(NULL, &probe, &err), RTCOSIM_OK);
    rtcosim_dcp_remote_config cfg = {.host = "127.0.0.1", .port = ntohs(a.sin_port),
                                     .retry_ns = 30 * RTCOSIM_NS_PER_MS, .attempts = 4,
                                     .heartbeat_ns = -1};
    assert_int_equal(rtcosim_dcp_remote_create(&cfg, rtcosim_component_description(probe), &c, &err),
                     RTCOSIM_OK);
    rtcosim_component_free(probe);
    assert_int_equal(rtcosim_component_instantiate(c, "silent", &err), RTCOSIM_ETIMEOUT);
    assert_non_null(strstr(err.message, "did not answer STC_register"));
    rtcosim_component_free(c);
    unsigned char first[64], pdu[64];
    long first_size = -1;
    int sends = 0;
    for (long n; (n = recv(fd, pdu, sizeof pdu, MSG_DONTWAIT)) > 0; sends++) {
        /* STC_register: type_id 0x01, pdu_seq_id (2 bytes), receiver, ... */
        assert_int_equal(pdu[0], RTCOSIM_DCP_STC_REGISTER);
        if (first_size < 0) {
            first_size = n;
            memcpy(first, pdu, (size_t)n);
        }
        assert_int_equal(n, first_size);
        assert_memory_equal(pdu, first, (size_t)n);
    }
    close(fd);
    assert_int_equal(sends, 4);
}

/* Issue 27 item 12: a stray STC_register over UDP (one datagram, nothing
 * after it) must not lock out the real master: the slave refuses the master
 * as busy (PDU_NOT_ALLOWED_IN_THIS_STATE) only until it drops the silent
 * registration after its timeout (300 ms here), and the master, asking
 * again, gets a full session. */
static void test_stray_register(void **state)
{
    (void)state;
    served s;
    start_slave(&s, 300 * RTCOSIM_NS_PER_MS);
    int fd = raw_socket();
    rtcosim_dcp_pdu reg = {.type = RTCOSIM_DCP_STC_REGISTER, .seq_id = 9, .state_id = 0,
                           .op_mode = RTCOSIM_DCP_OP_NRT, .major_version = 1};
    ask(fd, rtcosim_dcp_slave_port(s.slave), &reg, NULL, 0, RTCOSIM_DCP_RSP_ACK);
    assert_int_equal(rtcosim_dcp_slave_state(s.slave), RTCOSIM_DCP_CONFIGURATION);
    static double xs[200];
    static int32_t ns[200];
    rtcosim_component *c = remote_of(&s);
    run(c, xs, ns);
    rtcosim_component_free(c);
    assert_int_equal(rtcosim_dcp_slave_sessions(s.slave), 2);
    assert_int_equal(ns[199], 200);
    close(fd);
    stop_slave(&s);
}

/* The slave's DCPX read back names every variable with its value reference,
 * type and causality, and a master built from the DCPX alone reproduces the
 * local run. Broken descriptions fail with the file name. */
static void test_dcpx_roundtrip(void **state)
{
    (void)state;
    char dir[] = "/tmp/rtcosim-dcp-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/decay.dcpx", dir);
    served s;
    start_slave(&s, 0);
    rtcosim_error err;
    assert_int_equal(rtcosim_dcp_slave_write_dcpx(s.slave, path, &err), RTCOSIM_OK);
    rtcosim_dcpx *d = NULL;
    if (rtcosim_dcpx_load(path, &d, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    const rtcosim_component_desc *desc = rtcosim_dcpx_component_desc(d);
    assert_string_equal(rtcosim_dcpx_slave_name(d), "test.dcp.decay");
    assert_int_equal(rtcosim_dcpx_port(d), rtcosim_dcp_slave_port(s.slave));
    assert_string_equal(rtcosim_dcpx_host(d), "127.0.0.1");
    assert_true(rtcosim_dcpx_supports(d, RTCOSIM_DCP_OP_NRT));
    assert_false(rtcosim_dcpx_supports(d, RTCOSIM_DCP_OP_HRT));
    assert_int_equal(desc->variable_count, 5);
    for (size_t i = 0; i < 5; i++) {
        assert_string_equal(desc->variables[i].name, decay_vars[i].name);
        assert_int_equal(desc->variables[i].value_reference, decay_vars[i].value_reference);
        assert_int_equal(desc->variables[i].type, decay_vars[i].type);
        assert_int_equal(desc->variables[i].causality, decay_vars[i].causality);
    }
    assert_true(desc->variables[2].has_start);
    assert_true(desc->variables[2].start.f64 == 1.0);

    static double local_x[200], remote_x[200];
    static int32_t local_n[200], remote_n[200];
    rtcosim_component *local = NULL, *c = NULL;
    assert_int_equal(factory(NULL, &local, NULL), RTCOSIM_OK);
    run(local, local_x, local_n);
    rtcosim_component_free(local);
    rtcosim_dcp_remote_config cfg = {.host = rtcosim_dcpx_host(d), .port = rtcosim_dcpx_port(d)};
    assert_int_equal(rtcosim_dcp_remote_create(&cfg, desc, &c, &err), RTCOSIM_OK);
    rtcosim_dcpx_free(d);
    run(c, remote_x, remote_n);
    rtcosim_component_free(c);
    stop_slave(&s);
    assert_memory_equal(local_x, remote_x, sizeof local_x);
    assert_memory_equal(local_n, remote_n, sizeof local_n);
    unlink(path);
    rmdir(dir);

    const char *bad[] = {
        "<dcpSlaveDescription",
        "<fmiModelDescription/>",
        "<dcpSlaveDescription dcpMajorVersion=\"2\" dcpSlaveName=\"a\"/>",
        "<dcpSlaveDescription dcpMajorVersion=\"1\" dcpSlaveName=\"a\"><Variables>"
        "<Variable name=\"x\" valueReference=\"-1\"><Output><Float64/></Output></Variable>"
        "</Variables></dcpSlaveDescription>",
        "<dcpSlaveDescription dcpMajorVersion=\"1\" dcpSlaveName=\"a\"><Variables>"
        "<Variable name=\"x\" valueReference=\"1\"><Output><Float64/></Output></Variable>"
        "<Variable name=\"y\" valueReference=\"1\"><Output><Float64/></Output></Variable>"
        "</Variables></dcpSlaveDescription>",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_not_equal(rtcosim_dcpx_parse(bad[i], strlen(bad[i]), "bad.dcpx", &d, &err), RTCOSIM_OK);
        assert_null(d);
        assert_non_null(strstr(err.message, "bad.dcpx"));
    }
    assert_int_equal(rtcosim_dcpx_load("/nonexistent/x.dcpx", &d, &err), RTCOSIM_ENOTFOUND);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nrt_matches_local),
        cmocka_unit_test(test_nack_codes),
        cmocka_unit_test(test_srt_outputs),
        cmocka_unit_test(test_srt_start_time),
        cmocka_unit_test(test_idle_master_heartbeat),
        cmocka_unit_test(test_vanished_master),
        cmocka_unit_test(test_late_register_duplicate_keeps_the_sequence),
        cmocka_unit_test(test_unanswered_request_is_sent_attempts_times),
        cmocka_unit_test(test_stray_register),
        cmocka_unit_test(test_dcpx_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
