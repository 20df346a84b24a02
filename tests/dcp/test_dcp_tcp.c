/* DCP over TCP/IPv4: an NRT session over TCP gives bit-identical results to
 * the model run locally (and to UDP on the same slave, served by the same
 * event loop); the stream framing (4-byte little-endian length not counting
 * itself, DCPLib's TcpHelper) is checked from raw bytes: requests written
 * one byte at a time and several frames coalesced in one write are all
 * answered in order, and the answers carry the expected prefix bytes; a
 * broken length closes only that connection and the slave keeps serving. */
#include <arpa/inet.h>
#include <math.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "rtcosim/dcp.h"
#include "rtcosim/log.h"
#include "session.h"
#include "util/test_util.h"

static void test_tcp_nrt_matches_local(void **state)
{
    (void)state;
    static double local_x[200], tcp_x[200], udp_x[200];
    static int32_t local_n[200], tcp_n[200], udp_n[200];
    rtcosim_component *local = NULL;
    assert_int_equal(factory(NULL, &local, NULL), RTCOSIM_OK);
    run(local, local_x, local_n);
    rtcosim_component_free(local);

    served s;
    start_slave_on(&s, factory, 0, true, true);
    assert_true(rtcosim_dcp_slave_tcp_port(s.slave) != 0);
    rtcosim_component *c = remote_via(RTCOSIM_DCP_TCP_IPV4, rtcosim_dcp_slave_tcp_port(s.slave), 0, 0);
    run(c, tcp_x, tcp_n);
    rtcosim_component_free(c);
    c = remote_via(RTCOSIM_DCP_UDP_IPV4, rtcosim_dcp_slave_port(s.slave), 0, 0);
    run(c, udp_x, udp_n);
    rtcosim_component_free(c);
    assert_int_equal(rtcosim_dcp_slave_sessions(s.slave), 2);
    stop_slave(&s);

    assert_memory_equal(local_x, tcp_x, sizeof local_x);
    assert_memory_equal(local_n, tcp_n, sizeof local_n);
    assert_memory_equal(local_x, udp_x, sizeof local_x);
    assert_int_equal(tcp_n[199], 200);
    assert_true(fabs(tcp_x[199] - exp(-5.0)) > 0.01); /* the input moved the model */
}

static int tcp_client(uint16_t port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(port)};
    inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
    assert_int_equal(connect(fd, (struct sockaddr *)&to, sizeof to), 0);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct timeval tv = {.tv_sec = 5};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return fd;
}

/* Append one framed PDU to buf at *n. */
static void frame(uint8_t *buf, size_t *n, const rtcosim_dcp_pdu *p)
{
    size_t size;
    assert_int_equal(rtcosim_dcp_pdu_encode(p, buf + *n + 4, 256, &size, NULL), RTCOSIM_OK);
    buf[*n] = (uint8_t)size;
    buf[*n + 1] = (uint8_t)(size >> 8);
    buf[*n + 2] = buf[*n + 3] = 0;
    *n += 4 + size;
}

static void read_all(int fd, uint8_t *buf, size_t n)
{
    for (size_t got = 0; got < n;) {
        ssize_t r = recv(fd, buf + got, n - got, 0);
        assert_true(r > 0);
        got += (size_t)r;
    }
}

/* The next response (RSP_*), skipping notifications; checks the prefix. */
static rtcosim_dcp_pdu next_response(int fd, uint8_t *raw, size_t *raw_size)
{
    for (;;) {
        uint8_t prefix[4];
        read_all(fd, prefix, 4);
        uint32_t len = prefix[0] | prefix[1] << 8 | (uint32_t)prefix[2] << 16 | (uint32_t)prefix[3] << 24;
        assert_true(len > 0 && len <= 64);
        read_all(fd, raw, len);
        rtcosim_dcp_pdu p;
        assert_int_equal(rtcosim_dcp_pdu_decode(raw, len, &p, NULL, NULL), RTCOSIM_OK);
        if (p.type >= RTCOSIM_DCP_RSP_ACK && p.type <= RTCOSIM_DCP_RSP_LOG_ACK) {
            *raw_size = len;
            return p;
        }
    }
}

static void sleep_us(long us)
{
    struct timespec ts = {.tv_sec = 0, .tv_nsec = us * 1000};
    nanosleep(&ts, NULL);
}

static void test_tcp_split_and_coalesced(void **state)
{
    (void)state;
    served s;
    start_slave_on(&s, factory, 0, false, true);
    assert_int_equal(rtcosim_dcp_slave_port(s.slave), 0); /* TCP only */
    int fd = tcp_client(rtcosim_dcp_slave_tcp_port(s.slave));
    uint8_t buf[512], raw[64];
    size_t n = 0, raw_size;

    /* STC_register, one byte per write with a pause, so that the slave sees
     * every partial prefix and partial PDU. */
    rtcosim_dcp_pdu reg = {.type = RTCOSIM_DCP_STC_REGISTER, .seq_id = 0, .receiver = 1,
                           .state_id = RTCOSIM_DCP_ALIVE, .op_mode = RTCOSIM_DCP_OP_NRT,
                           .major_version = 1};
    frame(buf, &n, &reg);
    assert_int_equal(n, 4 + 24); /* STC_register is 24 bytes (spec 3.3) */
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(send(fd, buf + i, 1, 0), 1);
        sleep_us(300);
    }
    rtcosim_dcp_pdu r = next_response(fd, raw, &raw_size);
    assert_int_equal(r.type, RTCOSIM_DCP_RSP_ACK);
    assert_int_equal(r.seq_id, 0);
    assert_int_equal(raw_size, 4); /* RSP_ack: type, resp_seq_id, sender */
    assert_int_equal(rtcosim_dcp_slave_state(s.slave), RTCOSIM_DCP_CONFIGURATION);

    /* Three requests coalesced in one write, the third split in the middle
     * of its length prefix across two writes: answered in order. */
    n = 0;
    rtcosim_dcp_pdu q1 = {.type = RTCOSIM_DCP_CFG_TIME_RES, .seq_id = 1, .receiver = 1,
                          .numerator = 1, .denominator = 1000};
    rtcosim_dcp_pdu q2 = {.type = RTCOSIM_DCP_INF_STATE, .seq_id = 2, .receiver = 1};
    rtcosim_dcp_pdu q3 = {.type = RTCOSIM_DCP_CFG_TIME_RES, .seq_id = 3, .receiver = 1,
                          .numerator = 1, .denominator = 3}; /* 1/3 s: no whole ns */
    frame(buf, &n, &q1);
    frame(buf, &n, &q2);
    frame(buf, &n, &q3);
    size_t cut = n - 12 - 2; /* two bytes into the third frame's prefix */
    assert_int_equal(send(fd, buf, cut, 0), (ssize_t)cut);
    sleep_us(2000);
    assert_int_equal(send(fd, buf + cut, n - cut, 0), (ssize_t)(n - cut));
    r = next_response(fd, raw, &raw_size);
    assert_int_equal(r.type, RTCOSIM_DCP_RSP_ACK);
    assert_int_equal(r.seq_id, 1);
    r = next_response(fd, raw, &raw_size);
    assert_int_equal(r.type, RTCOSIM_DCP_RSP_STATE_ACK);
    assert_int_equal(r.seq_id, 2);
    assert_int_equal(r.state_id, RTCOSIM_DCP_CONFIGURATION);
    r = next_response(fd, raw, &raw_size);
    assert_int_equal(r.type, RTCOSIM_DCP_RSP_NACK);
    assert_int_equal(r.seq_id, 3);
    assert_int_equal(r.error_code, RTCOSIM_DCP_ERR_INVALID_TIME_RESOLUTION);
    /* The wire bytes of that NACK: length 8 = 08 00 00 00 before it. */
    assert_int_equal(raw_size, 8);

    /* Deregister and close: the slave is ALIVE for the next master. */
    n = 0;
    rtcosim_dcp_pdu dereg = {.type = RTCOSIM_DCP_STC_DEREGISTER, .seq_id = 4, .receiver = 1,
                             .state_id = RTCOSIM_DCP_CONFIGURATION};
    frame(buf, &n, &dereg);
    assert_int_equal(send(fd, buf, n, 0), (ssize_t)n);
    r = next_response(fd, raw, &raw_size);
    assert_int_equal(r.type, RTCOSIM_DCP_RSP_ACK);
    close(fd);
    stop_slave(&s);
}

/* True when the slave closed the connection (recv gives 0) within 5 s. */
static bool closed_by_peer(int fd)
{
    uint8_t b[64];
    for (;;) {
        ssize_t r = recv(fd, b, sizeof b, 0);
        if (r == 0)
            return true;
        if (r < 0)
            return false;
    }
}

static void test_tcp_malformed_stream(void **state)
{
    (void)state;
    served s;
    start_slave_on(&s, factory, 0, false, true);
    uint16_t port = rtcosim_dcp_slave_tcp_port(s.slave);
    uint8_t buf[256], raw[64];
    size_t n, raw_size;

    /* A well-framed PDU of an unknown type: dropped (spec table 107, check
     * 1), the stream stays usable: the next request is answered. */
    int fd = tcp_client(port);
    const uint8_t unknown[] = {5, 0, 0, 0, 0x55, 7, 0, 1, 0};
    assert_int_equal(send(fd, unknown, sizeof unknown, 0), (ssize_t)sizeof unknown);
    /* A length the PDU type does not have (INF_state is 4 bytes, sent as 6). */
    const uint8_t wrong[] = {6, 0, 0, 0, RTCOSIM_DCP_INF_STATE, 8, 0, 1, 0, 0};
    assert_int_equal(send(fd, wrong, sizeof wrong, 0), (ssize_t)sizeof wrong);
    rtcosim_dcp_pdu r = next_response(fd, raw, &raw_size);
    assert_int_equal(r.type, RTCOSIM_DCP_RSP_NACK);
    assert_int_equal(r.seq_id, 8);
    assert_int_equal(r.error_code, RTCOSIM_DCP_ERR_INVALID_LENGTH);
    /* Then a length beyond any PDU (16 MiB): the stream cannot be
     * resynchronized; the slave closes this connection. */
    const uint8_t huge[] = {0, 0, 0, 1, 0x80, 0, 0};
    assert_int_equal(send(fd, huge, sizeof huge, 0), (ssize_t)sizeof huge);
    assert_true(closed_by_peer(fd));
    close(fd);

    /* A zero length is refused the same way. */
    fd = tcp_client(port);
    const uint8_t zero[] = {0, 0, 0, 0, 1, 2, 3, 4};
    assert_int_equal(send(fd, zero, sizeof zero, 0), (ssize_t)sizeof zero);
    assert_true(closed_by_peer(fd));
    close(fd);

    /* A client that dies in the middle of a frame leaves nothing behind. */
    fd = tcp_client(port);
    const uint8_t half[] = {24, 0, 0, 0, RTCOSIM_DCP_STC_REGISTER, 0};
    assert_int_equal(send(fd, half, sizeof half, 0), (ssize_t)sizeof half);
    close(fd);

    /* Pseudo-random garbage in random chunk sizes: whatever the slave makes
     * of it, it neither crashes nor hangs, and then serves a real master. */
    uint32_t seed = 12345;
    for (int round = 0; round < 20; round++) {
        fd = tcp_client(port);
        for (int chunk = 0; chunk < 8; chunk++) {
            seed = seed * 1103515245u + 12345u;
            size_t len = 1 + (seed >> 16) % 40;
            for (size_t i = 0; i < len; i++) {
                seed = seed * 1103515245u + 12345u;
                buf[i] = (uint8_t)(seed >> 16);
            }
            /* Small lengths most of the time, so that frames complete. */
            if (chunk == 0) {
                buf[0] = (uint8_t)(4 + (seed >> 8) % 20);
                buf[1] = buf[2] = buf[3] = 0;
            }
            if (send(fd, buf, len, MSG_NOSIGNAL) < 0)
                break;
        }
        close(fd);
    }

    static double x[200];
    static int32_t counts[200];
    rtcosim_component *c = remote_via(RTCOSIM_DCP_TCP_IPV4, port, 0, 0);
    run(c, x, counts);
    rtcosim_component_free(c);
    assert_int_equal(counts[199], 200);
    (void)n;
    stop_slave(&s);
}

static void test_tcp_slave_gone(void **state)
{
    (void)state;
    /* Nobody listens: the master's instantiate fails naming the address. */
    served s;
    start_slave_on(&s, factory, 0, false, true);
    uint16_t port = rtcosim_dcp_slave_tcp_port(s.slave);
    stop_slave(&s);
    rtcosim_component *c = remote_via(RTCOSIM_DCP_TCP_IPV4, port, 10 * RTCOSIM_NS_PER_MS, 5);
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_component_instantiate(c, "decay", &err), RTCOSIM_EIO);
    assert_non_null(strstr(err.message, "cannot connect to TCP 127.0.0.1:"));
    rtcosim_component_free(c);
}

/* Issue 27 item 12: connections that never send a PDU must not lock masters
 * out. Eight idle connections take every slot; a master connecting then is
 * served at once (the idlest one makes room), and the idle ones are closed
 * after the slave's timeout (here 300 ms). */
static void test_tcp_idle_connections(void **state)
{
    (void)state;
    served s;
    start_slave_on(&s, factory, 300 * RTCOSIM_NS_PER_MS, false, true);
    uint16_t port = rtcosim_dcp_slave_tcp_port(s.slave);
    int idle[8];
    for (int i = 0; i < 8; i++)
        idle[i] = tcp_client(port);
    static double xs[200];
    static int32_t ns[200];
    rtcosim_component *c = remote_via(RTCOSIM_DCP_TCP_IPV4, port, 0, 0);
    run(c, xs, ns);
    rtcosim_component_free(c);
    assert_int_equal(rtcosim_dcp_slave_sessions(s.slave), 1);
    assert_int_equal(ns[199], 200);
    for (int i = 0; i < 8; i++) {
        assert_true(closed_by_peer(idle[i]));
        close(idle[i]);
    }
    stop_slave(&s);
}

/* A master that closes its TCP connection mid-session (a killed DCPLib
 * master): the slave ends the session (ALIVE again for the next master)
 * and says why, a closed connection, not a missed heartbeat (it had armed
 * none). */
static void test_tcp_master_closes(void **state)
{
    (void)state;
    served s;
    start_slave_on(&s, factory, 0, false, true);
    int fd = tcp_client(rtcosim_dcp_slave_tcp_port(s.slave));
    uint8_t buf[128], raw[64];
    size_t n = 0, raw_size;
    rtcosim_dcp_pdu reg = {.type = RTCOSIM_DCP_STC_REGISTER, .seq_id = 0, .receiver = 1,
                           .state_id = RTCOSIM_DCP_ALIVE, .op_mode = RTCOSIM_DCP_OP_NRT,
                           .major_version = 1};
    rtcosim_dcp_pdu res = {.type = RTCOSIM_DCP_CFG_TIME_RES, .seq_id = 1, .receiver = 1,
                           .numerator = 1, .denominator = 1000};
    frame(buf, &n, &reg);
    frame(buf, &n, &res);
    tu_log_capture(RTCOSIM_LOG_WARNING);
    assert_int_equal(send(fd, buf, n, 0), (ssize_t)n);
    assert_int_equal(next_response(fd, raw, &raw_size).type, RTCOSIM_DCP_RSP_ACK);
    assert_int_equal(next_response(fd, raw, &raw_size).type, RTCOSIM_DCP_RSP_ACK);
    close(fd);
    int64_t until = tu_now_ns() + 5000000000LL;
    while (rtcosim_dcp_slave_state(s.slave) != RTCOSIM_DCP_ALIVE && tu_now_ns() < until)
        sleep_us(1000);
    assert_int_equal(rtcosim_dcp_slave_state(s.slave), RTCOSIM_DCP_ALIVE);
    stop_slave(&s);
    const char *log = tu_log_text();
    assert_non_null(strstr(log, "master closed the connection (PROTOCOL_ERROR_GENERIC) in"
                                " CONFIGURATION"));
    assert_null(strstr(log, "HEARTBEAT_MISSED"));
    tu_log_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tcp_nrt_matches_local),
        cmocka_unit_test(test_tcp_split_and_coalesced),
        cmocka_unit_test(test_tcp_malformed_stream),
        cmocka_unit_test(test_tcp_slave_gone),
        cmocka_unit_test(test_tcp_idle_connections),
        cmocka_unit_test(test_tcp_master_closes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
