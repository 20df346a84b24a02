/* DCP network endpoint (see link.h): the UDP/IPv4 socket, the shared epoll
 * set and the bounded spin-then-sleep receive that serves UDP and TCP alike. */
#include "dcp/link.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

rtcosim_time_ns dcp_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (rtcosim_time_ns)ts.tv_sec * RTCOSIM_NS_PER_S + ts.tv_nsec;
}

rtcosim_status dcp_address(const char *host, uint16_t port, struct sockaddr_in *out,
                           rtcosim_error *err)
{
    memset(out, 0, sizeof *out);
    out->sin_family = AF_INET;
    out->sin_port = htons(port);
    if (inet_pton(AF_INET, host, &out->sin_addr) != 1)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "DCP: '%s' is not an IPv4 address", host);
    return RTCOSIM_OK;
}

bool dcp_peer_same(const dcp_peer *a, const dcp_peer *b)
{
    if (a->conn != b->conn)
        return false;
    if (a->conn >= 0)
        return a->serial == b->serial;
    return a->addr.sin_addr.s_addr == b->addr.sin_addr.s_addr && a->addr.sin_port == b->addr.sin_port;
}

rtcosim_status dcp_link_init(dcp_link *l, rtcosim_error *err)
{
    memset(l, 0, sizeof *l);
    l->udp_fd = l->listen_fd = -1;
    l->keep_conn = -1;
    for (int i = 0; i < DCP_TCP_MAX_CONNS; i++)
        l->conns[i].fd = -1;
    l->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    l->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (l->epoll_fd < 0 || l->wake_fd < 0) {
        int e = errno;
        dcp_link_close(l);
        return rtcosim_error_set(err, RTCOSIM_EIO, "DCP: epoll/eventfd: %s", strerror(e));
    }
    dcp_link_watch(l, l->wake_fd);
    return RTCOSIM_OK;
}

void dcp_link_watch(dcp_link *l, int fd)
{
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};
    epoll_ctl(l->epoll_fd, EPOLL_CTL_ADD, fd, &ev);
}

uint16_t dcp_link_bound_port(int fd)
{
    struct sockaddr_in addr = {0};
    socklen_t len = sizeof addr;
    getsockname(fd, (struct sockaddr *)&addr, &len);
    return ntohs(addr.sin_port);
}

rtcosim_status dcp_link_open_udp(dcp_link *l, const char *host, uint16_t port, rtcosim_error *err)
{
    struct sockaddr_in addr;
    rtcosim_status st = dcp_address(host, port, &addr, err);
    if (st != RTCOSIM_OK)
        return st;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return rtcosim_error_set(err, RTCOSIM_EIO, "DCP: socket: %s", strerror(errno));
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        int e = errno;
        close(fd);
        return rtcosim_error_set(err, RTCOSIM_EIO, "DCP: cannot bind UDP %s:%u: %s", host,
                                 (unsigned)port, strerror(e));
    }
    l->udp_fd = fd;
    l->udp_port = dcp_link_bound_port(fd);
    dcp_link_watch(l, fd);
    return RTCOSIM_OK;
}

void dcp_link_close(dcp_link *l)
{
    for (int i = 0; i < DCP_TCP_MAX_CONNS; i++) {
        dcp_peer p = {.conn = i, .serial = l->conns[i].serial};
        dcp_link_close_conn(l, &p);
        free(l->conns[i].buf);
        l->conns[i].buf = NULL;
    }
    if (l->udp_fd >= 0) close(l->udp_fd);
    if (l->listen_fd >= 0) close(l->listen_fd);
    if (l->epoll_fd >= 0) close(l->epoll_fd);
    if (l->wake_fd >= 0) close(l->wake_fd);
    l->udp_fd = l->listen_fd = l->epoll_fd = l->wake_fd = -1;
}

bool dcp_link_send(dcp_link *l, const dcp_peer *to, const uint8_t *buf, size_t size)
{
    if (to->conn >= 0)
        return dcp_tcp_send(l, to, buf, size);
    if (l->udp_fd < 0)
        return false;
    ssize_t n;
    do
        n = sendto(l->udp_fd, buf, size, 0, (const struct sockaddr *)&to->addr, sizeof to->addr);
    while (n < 0 && errno == EINTR);
    return n == (ssize_t)size;
}

void dcp_link_wake(dcp_link *l)
{
    uint64_t one = 1;
    ssize_t r = write(l->wake_fd, &one, sizeof one);
    (void)r;
}

static long udp_try(dcp_link *l, uint8_t *buf, size_t cap, dcp_peer *from)
{
    if (l->udp_fd < 0)
        return 0;
    socklen_t len = sizeof from->addr;
    ssize_t n = recvfrom(l->udp_fd, buf, cap, MSG_DONTWAIT, (struct sockaddr *)&from->addr, &len);
    from->conn = -1;
    from->serial = 0;
    if (n > 0)
        return (long)n;
    if (n == 0 || errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
        return 0; /* an empty datagram is nothing */
    /* ICMP port unreachable from an earlier send surfaces as ECONNREFUSED on
     * Linux; it is a lost datagram, not a broken socket. */
    if (errno == ECONNREFUSED)
        return 0;
    return -1;
}

static bool drain_wake(dcp_link *l)
{
    uint64_t v;
    return read(l->wake_fd, &v, sizeof v) == (ssize_t)sizeof v;
}

/* One look at the sockets: epoll_wait (ms 0 while spinning) tells which are
 * ready, so a spin costs one system call whatever the number of sockets.
 * Level-triggered: a socket with more ready is reported again next time. */
static long poll_once(dcp_link *l, uint8_t *buf, size_t cap, dcp_peer *from, int ms, bool *woken)
{
    /* Frames already reassembled first: epoll does not report bytes that
     * were read from the socket with an earlier frame. */
    long n = dcp_tcp_take(l, buf, cap, from);
    if (n != 0)
        return n;
    struct epoll_event ev[DCP_TCP_MAX_CONNS + 3];
    int r = epoll_wait(l->epoll_fd, ev, DCP_TCP_MAX_CONNS + 3, ms);
    if (r < 0)
        return errno == EINTR ? 0 : -1;
    bool wake = false;
    for (int i = 0; i < r; i++) {
        int fd = ev[i].data.fd;
        if (fd == l->wake_fd)
            wake = true; /* drained below, only when no PDU is returned */
        else if (fd == l->udp_fd)
            n = udp_try(l, buf, cap, from);
        else if (fd == l->listen_fd)
            while (dcp_tcp_accept(l) > 0) {
            }
        else
            n = dcp_tcp_read_fd(l, fd, buf, cap, from);
        if (n != 0)
            return n;
    }
    if (wake)
        *woken = drain_wake(l) || *woken;
    return 0;
}

long dcp_link_recv(dcp_link *l, uint8_t *buf, size_t cap, dcp_peer *from,
                   rtcosim_time_ns timeout_ns, rtcosim_time_ns spin_ns)
{
    rtcosim_time_ns start = dcp_now_ns();
    for (;;) {
        rtcosim_time_ns waited = dcp_now_ns() - start;
        int ms = 0;
        if (waited >= spin_ns) {
            ms = -1;
            if (timeout_ns >= 0) {
                rtcosim_time_ns left = timeout_ns > waited ? timeout_ns - waited : 0;
                ms = (int)((left + RTCOSIM_NS_PER_MS - 1) / RTCOSIM_NS_PER_MS);
            }
        }
        bool woken = false;
        long n = poll_once(l, buf, cap, from, ms, &woken);
        if (n > 0 || n == -1)
            return n;
        if (woken)
            return 0;
        if (timeout_ns >= 0 && dcp_now_ns() - start >= timeout_ns)
            return 0;
    }
}
