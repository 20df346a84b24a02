/* Regressions found by fuzz/fuzz_dcp_slave.c: a hostile master's PDUs fed to
 * the slave's session directly (dcp_slave_handle_datagram, the run loop's
 * half that handles a PDU; dcp_slave_timers, its other half), the answers
 * read from the master's own UDP socket. Each was a signed overflow of the
 * SRT clock (an abort under the sanitizers) before its fix. */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "dcp/slave_internal.h"
#include "session.h"

typedef struct rig {
    rtcosim_dcp_slave *slave;
    int fd;          /* the master's socket: the slave answers here */
    dcp_peer master; /* its address, as the slave sees it */
    uint16_t seq;
} rig;

static void rig_open(rig *r)
{
    rtcosim_error err;
    rtcosim_dcp_slave_config cfg = {.host = "127.0.0.1", .factory = factory};
    assert_int_equal(rtcosim_dcp_slave_create(&cfg, &r->slave, &err), RTCOSIM_OK);
    r->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
    assert_true(r->fd >= 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof addr;
    assert_int_equal(bind(r->fd, (struct sockaddr *)&addr, sizeof addr), 0);
    assert_int_equal(getsockname(r->fd, (struct sockaddr *)&addr, &len), 0);
    r->master = (dcp_peer){.addr = addr, .conn = -1};
    r->seq = 0;
}

static void rig_close(rig *r)
{
    rtcosim_dcp_slave_free(r->slave);
    close(r->fd);
}

/* Send request p (the next sequence id, receiver 1) and return the error
 * code of its answer: 0 for RSP_ack, RSP_nack's code otherwise. */
/* A datagram's verdict on request `seq`: 0 (RSP_ack), its error code
 * (RSP_nack), or -1 when it is no answer to that request. */
static long verdict(const uint8_t *buf, long got, uint16_t seq)
{
    rtcosim_dcp_pdu a;
    if (got <= 0 || rtcosim_dcp_pdu_decode(buf, (size_t)got, &a, NULL, NULL) != RTCOSIM_OK ||
        a.seq_id != seq)
        return -1;
    return a.type == RTCOSIM_DCP_RSP_ACK ? 0 : a.type == RTCOSIM_DCP_RSP_NACK ? a.error_code : -1;
}

static uint16_t request(rig *r, rtcosim_dcp_pdu p)
{
    uint8_t buf[RTCOSIM_DCP_MAX_PDU];
    size_t n;
    p.seq_id = r->seq++;
    p.receiver = 1;
    assert_int_equal(rtcosim_dcp_pdu_encode(&p, buf, sizeof buf, &n, NULL), RTCOSIM_OK);
    dcp_slave_handle_datagram(r->slave, buf, n, &r->master);
    /* Loopback delivers a datagram before sendto returns. */
    long got;
    while ((got = recv(r->fd, buf, sizeof buf, MSG_DONTWAIT)) > 0) {
        long v = verdict(buf, got, p.seq_id);
        if (v >= 0)
            return (uint16_t)v;
    }
    fail_msg("no answer to %s", rtcosim_dcp_pdu_type_name(p.type));
    return 0xFFFF;
}

static uint16_t stc(rig *r, uint8_t type)
{
    return request(r, (rtcosim_dcp_pdu){.type = type, .state_id = rtcosim_dcp_slave_state(r->slave)});
}

/* An SRT session configured up to STC_prepare's answer: one Float64 output
 * (the decay model's x) sent every `steps` resolution steps of num/den s. */
static uint16_t srt_prepare(rig *r, uint32_t num, uint32_t den, uint32_t steps)
{
    rtcosim_dcp_pdu reg = {.type = RTCOSIM_DCP_STC_REGISTER, .state_id = RTCOSIM_DCP_ALIVE,
                           .op_mode = RTCOSIM_DCP_OP_SRT, .major_version = 1};
    assert_int_equal(request(r, reg), 0);
    assert_int_equal(request(r, (rtcosim_dcp_pdu){.type = RTCOSIM_DCP_CFG_TIME_RES,
                                                  .numerator = num, .denominator = den}), 0);
    assert_int_equal(request(r, (rtcosim_dcp_pdu){.type = RTCOSIM_DCP_CFG_OUTPUT, .data_id = 1,
                                                  .pos = 0, .value_reference = 0}), 0);
    assert_int_equal(request(r, (rtcosim_dcp_pdu){.type = RTCOSIM_DCP_CFG_TARGET_NETWORK_INFORMATION,
                                                  .data_id = 1, .transport_protocol = RTCOSIM_DCP_UDP_IPV4,
                                                  .port = ntohs(r->master.addr.sin_port),
                                                  .ip_address = INADDR_LOOPBACK}), 0);
    assert_int_equal(request(r, (rtcosim_dcp_pdu){.type = RTCOSIM_DCP_CFG_STEPS, .data_id = 1,
                                                  .steps = steps}), 0);
    return stc(r, RTCOSIM_DCP_STC_PREPARE);
}

/* CFG_steps times the resolution past 64-bit ns (fuzz seed
 * srt_period_overflow: 738197514 steps of 4261412.608 s): the SRT period
 * check multiplied them with a signed overflow. Now INVALID_STEPS. */
static void test_srt_period_overflow_refused(void **state)
{
    (void)state;
    rig r;
    rig_open(&r);
    assert_int_equal(srt_prepare(&r, 4261412608u, 1000, 738197514u), RTCOSIM_DCP_ERR_INVALID_STEPS);
    assert_int_equal(rtcosim_dcp_slave_state(r.slave), RTCOSIM_DCP_CONFIGURATION);
    rig_close(&r);
}

/* A period that fits (2^31 steps of 4 s, 272 years) and an STC_run start
 * time at the end of 64-bit ns (2262): their sum overflowed the slave's
 * clock. The first real-time step is now simply never due. A start time
 * past 2262 (INT64_MAX s) with a 1 ms period is never due either: it was
 * taken as "now", as a time in the past is, and the slave stepped at once
 * (found against DCPLib's master). */
static void test_srt_start_and_period_at_the_clock_end(void **state)
{
    (void)state;
    const struct {
        uint32_t num, den, steps;
        int64_t start;
    } cases[] = {{4, 1, 1u << 31, INT64_MAX / RTCOSIM_NS_PER_S}, {1, 1000, 1, INT64_MAX}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        rig r;
        rig_open(&r);
        assert_int_equal(srt_prepare(&r, cases[k].num, cases[k].den, cases[k].steps), 0);
        assert_int_equal(stc(&r, RTCOSIM_DCP_STC_CONFIGURE), 0);
        assert_int_equal(stc(&r, RTCOSIM_DCP_STC_INITIALIZE), 0);
        assert_int_equal(stc(&r, RTCOSIM_DCP_STC_SEND_OUTPUTS), 0);
        rtcosim_dcp_pdu run = {.type = RTCOSIM_DCP_STC_RUN, .state_id = RTCOSIM_DCP_CONFIGURED,
                               .start_time = cases[k].start};
        assert_int_equal(request(&r, run), 0);
        assert_int_equal(rtcosim_dcp_slave_state(r.slave), RTCOSIM_DCP_SYNCHRONIZED);
        rtcosim_time_ns timeout = 100 * RTCOSIM_NS_PER_MS;
        assert_false(dcp_slave_timers(r.slave, dcp_slave_now(r.slave) + RTCOSIM_NS_PER_S,
                                      &timeout));
        assert_int_equal(rtcosim_dcp_slave_state(r.slave), RTCOSIM_DCP_SYNCHRONIZED);
        rig_close(&r);
    }
}

/* ---- The run loop behind a master's SRT period ---- */

/* A model slower than the period the master asks for: a step takes 3 ms. */
typedef struct slow {
    double y, u;
} slow;
static const rtcosim_native_variable slow_vars[] = {
    RTCOSIM_NATIVE_F64(slow, y, 0, RTCOSIM_CAUSALITY_OUTPUT, RTCOSIM_VARIABILITY_CONTINUOUS, 0, NULL, NULL, NULL),
    RTCOSIM_NATIVE_F64(slow, u, 1, RTCOSIM_CAUSALITY_INPUT, RTCOSIM_VARIABILITY_CONTINUOUS, 0, NULL, NULL, NULL),
};
static rtcosim_status slow_step(void *data, const rtcosim_native_context *ctx, double t, double h,
                                rtcosim_error *err)
{
    (void)ctx, (void)t, (void)h, (void)err;
    nanosleep(&(struct timespec){.tv_nsec = 3000000}, NULL);
    ((slow *)data)->y = ((slow *)data)->u;
    return RTCOSIM_OK;
}
static const rtcosim_native_model slow_model = {
    .name = "test.dcp.slow", .data_size = sizeof(slow), .variables = slow_vars,
    .variable_count = sizeof slow_vars / sizeof slow_vars[0],
    .integrator = RTCOSIM_NATIVE_OWN_STEP, .step = slow_step,
};
static rtcosim_status slow_factory(void *ctx, rtcosim_component **out, rtcosim_error *err)
{
    (void)ctx;
    return rtcosim_native_create_model(&slow_model, out, err);
}

/* Request p of a master on socket fd to the slave at `to`: RSP_ack 0,
 * RSP_nack its code, no answer within 5 s 0xFFFF. */
static uint16_t net_request(int fd, const struct sockaddr_in *to, uint16_t *seq, rtcosim_dcp_pdu p)
{
    uint8_t buf[RTCOSIM_DCP_MAX_PDU];
    size_t n;
    p.seq_id = (*seq)++;
    p.receiver = 1;
    assert_int_equal(rtcosim_dcp_pdu_encode(&p, buf, sizeof buf, &n, NULL), RTCOSIM_OK);
    assert_int_equal(sendto(fd, buf, n, 0, (const struct sockaddr *)to, sizeof *to), (ssize_t)n);
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        long left = 5000 - ((now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000);
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        if (left <= 0 || poll(&pfd, 1, (int)left) != 1)
            return 0xFFFF;
        long v = verdict(buf, recv(fd, buf, sizeof buf, 0), p.seq_id);
        if (v >= 0)
            return (uint16_t)v;
    }
}

/* SRT steps every 1 ms (the master's CFG_time_res and CFG_steps) of a model
 * that needs 3 ms a step: the run loop took each late step at once and went
 * straight on to the next, never reading its socket again, so the master's
 * STC_stop (and every other request) went unanswered for as long as it ran.
 * Behind or not, it now looks at the socket between two steps. */
static void test_srt_behind_still_hears_the_master(void **state)
{
    (void)state;
    served sv;
    rtcosim_dcp_slave_config cfg = {.host = "127.0.0.1", .factory = slow_factory};
    start_slave_config(&sv, &cfg);
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in me = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof me;
    assert_int_equal(bind(fd, (struct sockaddr *)&me, sizeof me), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&me, &len), 0);
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
                             .sin_port = htons(rtcosim_dcp_slave_port(sv.slave))};
    uint16_t seq = 0;
    rtcosim_dcp_pdu reg = {.type = RTCOSIM_DCP_STC_REGISTER, .state_id = RTCOSIM_DCP_ALIVE,
                           .op_mode = RTCOSIM_DCP_OP_SRT, .major_version = 1};
    assert_int_equal(net_request(fd, &to, &seq, reg), 0);
    assert_int_equal(net_request(fd, &to, &seq, (rtcosim_dcp_pdu){.type = RTCOSIM_DCP_CFG_TIME_RES,
                                                                  .numerator = 1, .denominator = 1000}), 0);
    assert_int_equal(net_request(fd, &to, &seq, (rtcosim_dcp_pdu){.type = RTCOSIM_DCP_CFG_OUTPUT,
                                                                  .data_id = 1, .value_reference = 0}), 0);
    assert_int_equal(net_request(fd, &to, &seq,
                                 (rtcosim_dcp_pdu){.type = RTCOSIM_DCP_CFG_TARGET_NETWORK_INFORMATION,
                                                   .data_id = 1, .transport_protocol = RTCOSIM_DCP_UDP_IPV4,
                                                   .port = ntohs(me.sin_port), .ip_address = INADDR_LOOPBACK}), 0);
    assert_int_equal(net_request(fd, &to, &seq, (rtcosim_dcp_pdu){.type = RTCOSIM_DCP_CFG_STEPS,
                                                                  .data_id = 1, .steps = 1}), 0);
    const uint8_t walk[][2] = {{RTCOSIM_DCP_STC_PREPARE, RTCOSIM_DCP_CONFIGURATION},
                               {RTCOSIM_DCP_STC_CONFIGURE, RTCOSIM_DCP_PREPARED},
                               {RTCOSIM_DCP_STC_INITIALIZE, RTCOSIM_DCP_CONFIGURED},
                               {RTCOSIM_DCP_STC_SEND_OUTPUTS, RTCOSIM_DCP_INITIALIZED},
                               {RTCOSIM_DCP_STC_RUN, RTCOSIM_DCP_CONFIGURED}};
    for (size_t i = 0; i < sizeof walk / sizeof walk[0]; i++) {
        assert_int_equal(net_request(fd, &to, &seq, (rtcosim_dcp_pdu){.type = walk[i][0],
                                                                      .state_id = walk[i][1]}), 0);
        await_slave_state(sv.slave, walk[i][1], true);
    }
    nanosleep(&(struct timespec){.tv_nsec = 100000000}, NULL); /* 100 steps due, 33 taken */
    assert_int_equal(net_request(fd, &to, &seq, (rtcosim_dcp_pdu){.type = RTCOSIM_DCP_STC_STOP,
                                                                  .state_id = RTCOSIM_DCP_SYNCHRONIZED}), 0);
    await_slave_state(sv.slave, RTCOSIM_DCP_STOPPED, false);
    assert_int_equal(rtcosim_dcp_slave_state(sv.slave), RTCOSIM_DCP_STOPPED);
    assert_int_equal(net_request(fd, &to, &seq, (rtcosim_dcp_pdu){.type = RTCOSIM_DCP_STC_DEREGISTER,
                                                                  .state_id = RTCOSIM_DCP_STOPPED}), 0);
    close(fd);
    stop_slave(&sv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_srt_period_overflow_refused),
        cmocka_unit_test(test_srt_start_and_period_at_the_clock_end),
        cmocka_unit_test(test_srt_behind_still_hears_the_master),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
