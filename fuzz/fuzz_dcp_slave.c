/* libFuzzer target for the DCP slave's session (src/dcp/slave.c handle() and
 * the timers of its run loop, slave_data.c's configuration and data
 * handling), driven the way a hostile or broken master on the network
 * would: any sequence of PDUs, from the registered master or from another
 * peer, with the clock jumping between them (heartbeat loss, a held NRT
 * step's input wait, SRT steps). Each input is a fresh slave (UDP and a TCP
 * listener on 127.0.0.1, free ports) serving a native model with inputs,
 * outputs and parameters of every numeric type (so the wire conversions of
 * values.c are reached), freed at the end: no crash, sanitizer report, leak
 * or hang.
 *
 * Input: records of [flags:1][size:2 LE][PDU: size bytes] (the last one
 * takes what is left). A PDU that decodes is patched by the flags, then
 * encoded again (byte for byte what came, fuzz_dcp_pdu checks that):
 *   bit 0  requests: pdu_seq_id = the next one the slave expects, receiver =
 *          the slave's id (once registered); DAT_*: the data id's next seq
 *   bit 1  sent from a second peer (not the registered master); with bit 3,
 *          from a TCP peer whose connection is closed (a master that left)
 *   bit 2  STC_*: state_id = the slave's state
 *   bit 3  afterwards, the slave reads what reached its own sockets (output
 *          PDUs a target pointed at its own UDP port) and handles it
 *   bits 4-6  afterwards, the fake clock jumps by 0, 1 ms, 10 ms, 100 ms,
 *          1 s, 3 s, 10 s or 1000 s, and the due timers run (at most 16 times)
 *   bit 7  no patching (bits 0 and 2 ignored)
 * Network information always names 127.0.0.1 (an address that is not 0)
 * and, for a target, a port of the harness (a UDP socket it drains, or a
 * TCP port that refuses) or, on an odd port, the slave's own UDP port: no
 * input makes the slave connect anywhere else or wait on a connect. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dcp/slave_internal.h"
#include "rtcosim/dcp.h"
#include "rtcosim/log.h"
#include "rtcosim/native.h"

/* ---- The model: every numeric type as input, output and parameter ---- */

typedef struct fz_model {
    double o_f64, i_f64, p_f64, t_f64;
    float o_f32, i_f32, t_f32;
    int8_t o_i8, i_i8;
    uint8_t o_u8, i_u8;
    int16_t o_i16, i_i16;
    uint16_t o_u16, i_u16, t_u16;
    int32_t o_i32, i_i32, p_i32;
    uint32_t o_u32, i_u32;
    int64_t o_i64, i_i64, t_i64;
    uint64_t o_u64, i_u64;
    bool o_b, i_b, t_b;
} fz_model;

#define V(name_, vr_, type_, caus_, var_)                                                     \
    {#name_, (vr_), RTCOSIM_TYPE_##type_, RTCOSIM_CAUSALITY_##caus_, RTCOSIM_VARIABILITY_##var_, \
     offsetof(fz_model, name_), 0, NULL, NULL, NULL}
static const rtcosim_native_variable fz_vars[] = {
    V(o_f64, 0, FLOAT64, OUTPUT, CONTINUOUS), V(i_f64, 1, FLOAT64, INPUT, CONTINUOUS),
    V(o_f32, 2, FLOAT32, OUTPUT, DISCRETE),   V(i_f32, 3, FLOAT32, INPUT, DISCRETE),
    V(o_i8, 4, INT8, OUTPUT, DISCRETE),       V(i_i8, 5, INT8, INPUT, DISCRETE),
    V(o_u8, 6, UINT8, OUTPUT, DISCRETE),      V(i_u8, 7, UINT8, INPUT, DISCRETE),
    V(o_i16, 8, INT16, OUTPUT, DISCRETE),     V(i_i16, 9, INT16, INPUT, DISCRETE),
    V(o_u16, 10, UINT16, OUTPUT, DISCRETE),   V(i_u16, 11, UINT16, INPUT, DISCRETE),
    V(o_i32, 12, INT32, OUTPUT, DISCRETE),    V(i_i32, 13, INT32, INPUT, DISCRETE),
    V(o_u32, 14, UINT32, OUTPUT, DISCRETE),   V(i_u32, 15, UINT32, INPUT, DISCRETE),
    V(o_i64, 16, INT64, OUTPUT, DISCRETE),    V(i_i64, 17, INT64, INPUT, DISCRETE),
    V(o_u64, 18, UINT64, OUTPUT, DISCRETE),   V(i_u64, 19, UINT64, INPUT, DISCRETE),
    V(o_b, 20, BOOLEAN, OUTPUT, DISCRETE),    V(i_b, 21, BOOLEAN, INPUT, DISCRETE),
    V(p_f64, 22, FLOAT64, PARAMETER, FIXED),  V(p_i32, 23, INT32, PARAMETER, FIXED),
    V(t_f64, 24, FLOAT64, PARAMETER, TUNABLE), V(t_i64, 25, INT64, PARAMETER, TUNABLE),
    V(t_b, 26, BOOLEAN, PARAMETER, TUNABLE),  V(t_u16, 27, UINT16, PARAMETER, TUNABLE),
    V(t_f32, 28, FLOAT32, PARAMETER, TUNABLE),
};
#undef V

/* p_i32 = INT32_MIN fails initialization's end, i_i8 = INT8_MIN a step: the
 * slave's ways of failing are reached too. */
static rtcosim_status fz_init(void *data, const rtcosim_native_context *ctx, rtcosim_error *err)
{
    (void)ctx;
    if (((fz_model *)data)->p_i32 == INT32_MIN)
        return rtcosim_error_set(err, RTCOSIM_ECOMPONENT, "fuzz model: refused p_i32");
    return RTCOSIM_OK;
}

static rtcosim_status fz_step(void *data, const rtcosim_native_context *ctx, double t, double h,
                              rtcosim_error *err)
{
    (void)ctx, (void)t;
    fz_model *m = data;
    if (m->i_i8 == INT8_MIN)
        return rtcosim_error_set(err, RTCOSIM_ECOMPONENT, "fuzz model: refused i_i8");
    m->o_f64 = m->i_f64 + m->p_f64 * h + m->t_f64;
    m->o_f32 = m->i_f32 + m->t_f32;
    m->o_i8 = m->i_i8;
    m->o_u8 = m->i_u8;
    m->o_i16 = m->i_i16;
    m->o_u16 = (uint16_t)(m->i_u16 ^ m->t_u16);
    m->o_i32 = m->i_i32;
    m->o_u32 = m->i_u32;
    m->o_i64 = m->i_i64 ^ m->t_i64;
    m->o_u64 = m->i_u64;
    m->o_b = m->i_b != m->t_b;
    return RTCOSIM_OK;
}

static const rtcosim_native_model fz_model_desc = {
    .name = "fuzz.dcp.slave", .data_size = sizeof(fz_model), .variables = fz_vars,
    .variable_count = sizeof fz_vars / sizeof fz_vars[0], .integrator = RTCOSIM_NATIVE_OWN_STEP,
    .init = fz_init, .step = fz_step,
};

static rtcosim_status fz_factory(void *ctx, rtcosim_component **out, rtcosim_error *err)
{
    (void)ctx;
    return rtcosim_native_create_model(&fz_model_desc, out, err);
}

/* ---- The harness's sockets (kept across inputs) ---- */

static int master_fd = -1, other_fd = -1, refuse_fd = -1;
static dcp_peer master_peer, other_peer;
static uint16_t refuse_port; /* TCP, bound and never listening: connect is refused */

static void quiet(void *ctx, rtcosim_log_level level, const char *category, const char *message)
{
    (void)ctx, (void)level, (void)category, (void)message;
}

static int bound_socket(int type, dcp_peer *peer, uint16_t *port)
{
    int fd = socket(AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof addr;
    if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 ||
        getsockname(fd, (struct sockaddr *)&addr, &len) != 0)
        abort();
    if (peer)
        *peer = (dcp_peer){.addr = addr, .conn = -1};
    if (port)
        *port = ntohs(addr.sin_port);
    return fd;
}

static void setup_once(void)
{
    if (master_fd >= 0)
        return;
    rtcosim_log_set_handler(quiet, NULL);
    rtcosim_log_set_level(RTCOSIM_LOG_TRACE); /* every message formatted, none shown */
    master_fd = bound_socket(SOCK_DGRAM, &master_peer, NULL);
    other_fd = bound_socket(SOCK_DGRAM, &other_peer, NULL);
    refuse_fd = bound_socket(SOCK_STREAM, NULL, &refuse_port);
}

static void drain(int fd)
{
    uint8_t buf[RTCOSIM_DCP_MAX_PDU];
    while (recv(fd, buf, sizeof buf, MSG_DONTWAIT) >= 0 || errno == EINTR) {
    }
}

/* ---- One input ---- */

static const rtcosim_time_ns jumps[8] = {
    0, RTCOSIM_NS_PER_MS, 10 * RTCOSIM_NS_PER_MS, 100 * RTCOSIM_NS_PER_MS, RTCOSIM_NS_PER_S,
    3 * RTCOSIM_NS_PER_S, 10 * RTCOSIM_NS_PER_S, 1000 * RTCOSIM_NS_PER_S,
};

static bool is_network_info(uint8_t type)
{
    return type == RTCOSIM_DCP_CFG_TARGET_NETWORK_INFORMATION ||
           type == RTCOSIM_DCP_CFG_SOURCE_NETWORK_INFORMATION ||
           type == RTCOSIM_DCP_CFG_PARAM_NETWORK_INFORMATION;
}

static void patch(rtcosim_dcp_slave *s, rtcosim_dcp_pdu *p, uint8_t flags)
{
    bool request = p->type < RTCOSIM_DCP_RSP_ACK;
    if ((flags & 1) && request) {
        if (s->have_seq)
            p->seq_id = (uint16_t)(s->last_seq + 1);
        if (s->state != RTCOSIM_DCP_ALIVE)
            p->receiver = s->slave_id;
        else if (p->receiver == 0)
            p->receiver = 1;
    }
    if ((flags & 1) && (p->type == RTCOSIM_DCP_DAT_INPUT_OUTPUT || p->type == RTCOSIM_DCP_DAT_PARAMETER)) {
        dcp_data_id *t = p->type == RTCOSIM_DCP_DAT_INPUT_OUTPUT ? s->ids : s->pids;
        size_t n = p->type == RTCOSIM_DCP_DAT_INPUT_OUTPUT ? s->n_ids : s->n_pids;
        for (size_t i = 0; i < n; i++)
            if (t[i].id == p->data_id && !t[i].is_output && t[i].seen)
                p->seq_id = (uint16_t)(t[i].last_seq + 1);
    }
    if ((flags & 4) && p->type >= RTCOSIM_DCP_STC_REGISTER && p->type <= RTCOSIM_DCP_STC_RESET)
        p->state_id = s->state;
}

/* Never a connect or a datagram outside the harness. */
static void confine(rtcosim_dcp_slave *s, rtcosim_dcp_pdu *p)
{
    if (!is_network_info(p->type) || (p->transport_protocol != RTCOSIM_DCP_UDP_IPV4 &&
                                      p->transport_protocol != RTCOSIM_DCP_TCP_IPV4))
        return;
    if (p->ip_address != 0)
        p->ip_address = INADDR_LOOPBACK;
    if (p->type != RTCOSIM_DCP_CFG_TARGET_NETWORK_INFORMATION || p->port == 0)
        return;
    if (p->transport_protocol == RTCOSIM_DCP_TCP_IPV4)
        p->port = refuse_port;
    else
        p->port = (p->port & 1) ? s->link.udp_port : ntohs(master_peer.addr.sin_port);
}

static void deliver(rtcosim_dcp_slave *s, const uint8_t *pdu, size_t size, uint8_t flags)
{
    static uint8_t buf[RTCOSIM_DCP_MAX_PDU];
    rtcosim_dcp_pdu p;
    size_t n = size;
    const uint8_t *send = pdu;
    if (rtcosim_dcp_pdu_decode(pdu, size, &p, NULL, NULL) == RTCOSIM_OK) {
        if (!(flags & 0x80))
            patch(s, &p, flags);
        confine(s, &p);
        if (rtcosim_dcp_pdu_encode(&p, buf, sizeof buf, &n, NULL) != RTCOSIM_OK)
            abort(); /* what decodes encodes */
        send = buf;
    }
    /* bits 1 and 3 together: a TCP peer whose connection is gone (the slave
     * never connects to the harness; its slot 0 is never open) */
    static const dcp_peer gone_tcp = {.conn = 0, .serial = 0};
    const dcp_peer *from = (flags & 0x0A) == 0x0A ? &gone_tcp
                           : (flags & 2)         ? &other_peer
                                                 : &master_peer;
    dcp_slave_handle_datagram(s, send, n, from);
}

static void own_sockets(rtcosim_dcp_slave *s)
{
    for (int i = 0; i < 8; i++) {
        dcp_peer from;
        long n = dcp_link_recv(&s->link, s->rx, sizeof s->rx, &from, 0, 0);
        if (n <= 0)
            return;
        uint8_t copy[RTCOSIM_DCP_MAX_PDU];
        memcpy(copy, s->rx, (size_t)n);
        dcp_slave_handle_datagram(s, copy, (size_t)n, &from);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup_once();
    rtcosim_dcp_slave_config cfg = {.host = "127.0.0.1", .tcp_host = "127.0.0.1",
                                    .factory = fz_factory, .name = "fuzz"};
    rtcosim_dcp_slave *s = NULL;
    if (rtcosim_dcp_slave_create(&cfg, &s, NULL) != RTCOSIM_OK)
        abort();
    size_t at = 0;
    for (int records = 0; at + 3 <= size && records < 512; records++) {
        uint8_t flags = data[at];
        size_t n = (size_t)data[at + 1] | (size_t)data[at + 2] << 8;
        at += 3;
        if (n > size - at)
            n = size - at;
        /* A private copy, so that ASan sees a read one past the PDU. */
        uint8_t *pdu = malloc(n ? n : 1);
        if (!pdu)
            abort();
        memcpy(pdu, data + at, n);
        at += n;
        deliver(s, pdu, n, flags);
        free(pdu);
        if (flags & 8)
            own_sockets(s);
        unsigned jump = (flags >> 4) & 7;
        if (jump) {
            s->clock_skew += jumps[jump]; /* the slave's clock jumps ahead */
            for (int i = 0; i < 16; i++) {
                rtcosim_time_ns timeout = 100 * RTCOSIM_NS_PER_MS;
                if (!dcp_slave_timers(s, dcp_slave_now(s), &timeout))
                    break;
            }
        }
    }
    rtcosim_dcp_slave_free(s);
    drain(master_fd);
    drain(other_fd);
    return 0;
}
