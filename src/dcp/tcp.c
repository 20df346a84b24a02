/* TCP/IPv4 transport of DCP (transport protocol 0x04). The stream carries
 * each PDU behind a 4-byte little-endian length that does not count itself:
 * DCP 1.0 section 4.2.3.2 "Length Prefix Framing" (a uint32 before each PDU,
 * excluding the length field itself; little-endian as every DCP integer,
 * 3.1.11), which DCPLib implements the same way (PDU_LENGTH_INDICATOR_SIZE
 * 4). Connections are non-blocking in the link's epoll set; a stream whose
 * length field is 0 or larger than the largest PDU cannot be
 * resynchronized and is closed. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "dcp/link.h"
#include "util/le.h"
#include "rtcosim/dcp.h"

#define CONN_BUF (RTCOSIM_DCP_TCP_PREFIX + RTCOSIM_DCP_MAX_PDU)

int rtcosim_dcp_tcp_frame(const uint8_t *buf, size_t size, size_t max_pdu, size_t *pdu_size)
{
    if (size < RTCOSIM_DCP_TCP_PREFIX)
        return 0;
    uint32_t len = le_get32(buf);
    if (len == 0 || len > max_pdu)
        return -1;
    *pdu_size = len;
    return size - RTCOSIM_DCP_TCP_PREFIX >= len ? 1 : 0;
}

rtcosim_status dcp_link_listen_tcp(dcp_link *l, const char *host, uint16_t port,
                                   rtcosim_error *err)
{
    struct sockaddr_in addr;
    rtcosim_status st = dcp_address(host, port, &addr, err);
    if (st != RTCOSIM_OK)
        return st;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return rtcosim_error_set(err, RTCOSIM_EIO, "DCP: socket: %s", strerror(errno));
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, DCP_TCP_MAX_CONNS) != 0) {
        int e = errno;
        close(fd);
        return rtcosim_error_set(err, RTCOSIM_EIO, "DCP: cannot listen on TCP %s:%u: %s", host,
                                 (unsigned)port, strerror(e));
    }
    l->listen_fd = fd;
    l->tcp_port = dcp_link_bound_port(fd);
    dcp_link_watch(l, fd);
    return RTCOSIM_OK;
}

/* Close accepted connection i for idleness, saying so in the link. */
static void close_idle_conn(dcp_link *l, int i, int64_t idle_ns, const char *why)
{
    dcp_tcp_conn *c = &l->conns[i];
    char where[32];
    inet_ntop(AF_INET, &c->addr.sin_addr, where, sizeof where);
    snprintf(l->idle_closed_what, sizeof l->idle_closed_what,
             "closed the TCP connection from %s:%u: no PDU for %.3g s%s", where,
             (unsigned)ntohs(c->addr.sin_port), (double)idle_ns / 1e9, why);
    l->idle_closed++;
    dcp_peer p = {.conn = i, .serial = c->serial};
    dcp_link_close_conn(l, &p);
}

int dcp_link_close_idle(dcp_link *l, int64_t idle_ns)
{
    int closed = 0;
    int64_t now = dcp_now_ns();
    for (int i = 0; i < DCP_TCP_MAX_CONNS; i++) {
        dcp_tcp_conn *c = &l->conns[i];
        if (c->fd >= 0 && c->accepted && i != l->keep_conn && now - c->last_active_ns >= idle_ns) {
            close_idle_conn(l, i, now - c->last_active_ns, "");
            closed++;
        }
    }
    return closed;
}

/* Take a connected socket into a free slot. With every slot taken, a new
 * connection from a peer replaces the accepted one idle longest (never
 * keep_conn), so that idle connections cannot lock masters out; -1 (socket
 * closed) when none can go. */
static int adopt(dcp_link *l, int fd, const struct sockaddr_in *addr, bool accepted)
{
    int free_slot = -1, idlest = -1;
    for (int i = 0; i < DCP_TCP_MAX_CONNS && free_slot < 0; i++) {
        dcp_tcp_conn *c = &l->conns[i];
        if (c->fd < 0)
            free_slot = i;
        else if (c->accepted && i != l->keep_conn &&
                 (idlest < 0 || c->last_active_ns < l->conns[idlest].last_active_ns))
            idlest = i;
    }
    if (free_slot < 0 && idlest >= 0) {
        close_idle_conn(l, idlest, dcp_now_ns() - l->conns[idlest].last_active_ns,
                        " (all connections taken: room for a new one)");
        free_slot = idlest;
    }
    dcp_tcp_conn *c = free_slot >= 0 ? &l->conns[free_slot] : NULL;
    if (!c || (!c->buf && !(c->buf = malloc(CONN_BUF)))) {
        close(fd);
        return -1;
    }
    int one = 1; /* PDUs are small and each one is awaited: no Nagle delay */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c->fd = fd;
    c->serial = ++l->next_serial;
    c->addr = *addr;
    c->accepted = accepted;
    c->last_active_ns = dcp_now_ns();
    c->start = c->have = 0;
    dcp_link_watch(l, fd);
    return free_slot;
}

int dcp_tcp_accept(dcp_link *l)
{
    if (l->listen_fd < 0)
        return 0;
    struct sockaddr_in addr;
    socklen_t len = sizeof addr;
    int fd = accept4(l->listen_fd, (struct sockaddr *)&addr, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0)
        return 0;
    adopt(l, fd, &addr, true);
    return 1;
}

rtcosim_status dcp_link_connect_tcp(dcp_link *l, const struct sockaddr_in *to,
                                    rtcosim_time_ns timeout_ns, dcp_peer *peer, rtcosim_error *err)
{
    char where[32];
    inet_ntop(AF_INET, &to->sin_addr, where, sizeof where);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return rtcosim_error_set(err, RTCOSIM_EIO, "DCP: socket: %s", strerror(errno));
    int e = 0;
    if (connect(fd, (const struct sockaddr *)to, sizeof *to) != 0) {
        e = errno;
        if (e == EINPROGRESS) {
            struct pollfd pfd = {.fd = fd, .events = POLLOUT};
            int r = poll(&pfd, 1, (int)(timeout_ns / RTCOSIM_NS_PER_MS));
            socklen_t len = sizeof e;
            if (r == 1)
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len);
            else
                e = ETIMEDOUT;
        }
    }
    if (e != 0) {
        close(fd);
        return rtcosim_error_set(err, RTCOSIM_EIO, "DCP: cannot connect to TCP %s:%u: %s", where,
                                 (unsigned)ntohs(to->sin_port), strerror(e));
    }
    int i = adopt(l, fd, to, false);
    if (i < 0)
        return rtcosim_error_set(err, RTCOSIM_EIO, "DCP: more than %d TCP connections",
                                 DCP_TCP_MAX_CONNS);
    *peer = (dcp_peer){.addr = *to, .conn = i, .serial = l->conns[i].serial};
    return RTCOSIM_OK;
}

bool dcp_link_peer_open(const dcp_link *l, const dcp_peer *p)
{
    return p->conn < 0 ||
           (p->conn < DCP_TCP_MAX_CONNS && l->conns[p->conn].fd >= 0 &&
            l->conns[p->conn].serial == p->serial);
}

void dcp_link_close_conn(dcp_link *l, const dcp_peer *p)
{
    if (p->conn < 0 || !dcp_link_peer_open(l, p))
        return;
    dcp_tcp_conn *c = &l->conns[p->conn];
    epoll_ctl(l->epoll_fd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->fd = -1;
    c->start = c->have = 0;
}

static void broken_stream(dcp_link *l, int i, const char *why)
{
    dcp_tcp_conn *c = &l->conns[i];
    char where[32];
    inet_ntop(AF_INET, &c->addr.sin_addr, where, sizeof where);
    snprintf(l->stream_error, sizeof l->stream_error, "DCP: TCP stream from %s:%u closed: %s",
             where, (unsigned)ntohs(c->addr.sin_port), why);
    l->stream_errors++;
    dcp_peer p = {.conn = i, .serial = c->serial};
    dcp_link_close_conn(l, &p);
}

/* One whole frame of connection i into buf: its size, 0 when none yet. */
static long take_one(dcp_link *l, int i, uint8_t *buf, size_t cap, dcp_peer *from)
{
    dcp_tcp_conn *c = &l->conns[i];
    if (c->fd < 0 || c->have == c->start)
        return 0;
    size_t n;
    int r = rtcosim_dcp_tcp_frame(c->buf + c->start, c->have - c->start, RTCOSIM_DCP_MAX_PDU, &n);
    if (r < 0) {
        char why[64];
        snprintf(why, sizeof why, "PDU length %u is not 1..%u", (unsigned)le_get32(c->buf + c->start),
                 (unsigned)RTCOSIM_DCP_MAX_PDU);
        broken_stream(l, i, why);
        return 0;
    }
    if (r == 0)
        return 0;
    if (n > cap) {
        broken_stream(l, i, "PDU larger than the receive buffer");
        return 0;
    }
    memcpy(buf, c->buf + c->start + RTCOSIM_DCP_TCP_PREFIX, n);
    c->start += RTCOSIM_DCP_TCP_PREFIX + n;
    if (c->start == c->have)
        c->start = c->have = 0;
    *from = (dcp_peer){.addr = c->addr, .conn = i, .serial = c->serial};
    return (long)n;
}

long dcp_tcp_take(dcp_link *l, uint8_t *buf, size_t cap, dcp_peer *from)
{
    for (int k = 0; k < DCP_TCP_MAX_CONNS; k++) {
        int i = (int)((l->scan + (unsigned)k) % DCP_TCP_MAX_CONNS);
        long n = take_one(l, i, buf, cap, from);
        if (n > 0) {
            l->scan = (unsigned)i + 1; /* fairness: the next call starts after it */
            return n;
        }
    }
    return 0;
}

long dcp_tcp_read_fd(dcp_link *l, int fd, uint8_t *buf, size_t cap, dcp_peer *from)
{
    int i = 0;
    while (i < DCP_TCP_MAX_CONNS && l->conns[i].fd != fd)
        i++;
    if (i == DCP_TCP_MAX_CONNS)
        return 0;
    dcp_tcp_conn *c = &l->conns[i];
    if (c->start > 0) {
        memmove(c->buf, c->buf + c->start, c->have - c->start);
        c->have -= c->start;
        c->start = 0;
    }
    ssize_t n = recv(c->fd, c->buf + c->have, CONN_BUF - c->have, MSG_DONTWAIT);
    if (n > 0) {
        /* acknowledge at once (Linux clears it again as it sees fit): a
         * peer that writes a PDU's length and its body apart without
         * TCP_NODELAY (DCPLib) holds the body back for our ACK, which
         * would otherwise be delayed some 40 ms, every PDU */
        int one = 1;
        (void)setsockopt(c->fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof one);
        c->have += (size_t)n;
        c->last_active_ns = dcp_now_ns();
        return take_one(l, i, buf, cap, from);
    }
    if (n == 0) {
        dcp_peer p = {.conn = i, .serial = c->serial};
        dcp_link_close_conn(l, &p); /* closed by the peer */
    } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        broken_stream(l, i, strerror(errno));
    }
    return 0;
}

bool dcp_tcp_send(dcp_link *l, const dcp_peer *to, const uint8_t *buf, size_t size)
{
    if (!dcp_link_peer_open(l, to) || size == 0 || size > RTCOSIM_DCP_MAX_PDU)
        return false;
    dcp_tcp_conn *c = &l->conns[to->conn];
    uint8_t prefix[RTCOSIM_DCP_TCP_PREFIX];
    le_put32(prefix, (uint32_t)size);
    struct iovec iov[2] = {{prefix, sizeof prefix}, {(void *)buf, size}};
    size_t left = sizeof prefix + size;
    while (left > 0) {
        struct msghdr msg = {.msg_iov = iov, .msg_iovlen = 2};
        ssize_t n = sendmsg(c->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                /* The peer's window is full: wait a bounded time for room
                 * rather than drop half a frame, which would break the stream. */
                struct pollfd pfd = {.fd = c->fd, .events = POLLOUT};
                if (poll(&pfd, 1, 1000) == 1)
                    continue;
            }
            broken_stream(l, to->conn, "send failed");
            return false;
        }
        left -= (size_t)n;
        for (int k = 0; k < 2 && n > 0; k++) {
            size_t d = (size_t)n < iov[k].iov_len ? (size_t)n : iov[k].iov_len;
            iov[k].iov_base = (uint8_t *)iov[k].iov_base + d;
            iov[k].iov_len -= d;
            n -= (ssize_t)d;
        }
    }
    return true;
}
