/* UDP/IPv4 endpoint of DCP: non-blocking socket, one epoll set per endpoint,
 * bounded spin-then-sleep receive (see udp.h). No allocation after open. */
#include "dcp/udp.h"

#include <arpa/inet.h>
#include <errno.h>
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

rtcosim_status dcp_udp_address(const char *host, uint16_t port, struct sockaddr_in *out,
                               rtcosim_error *err)
{
    memset(out, 0, sizeof *out);
    out->sin_family = AF_INET;
    out->sin_port = htons(port);
    if (inet_pton(AF_INET, host, &out->sin_addr) != 1)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "DCP: '%s' is not an IPv4 address", host);
    return RTCOSIM_OK;
}

rtcosim_status dcp_udp_open(dcp_udp *u, const char *host, uint16_t port, rtcosim_error *err)
{
    u->fd = u->epoll_fd = u->wake_fd = -1;
    struct sockaddr_in addr;
    rtcosim_status st = dcp_udp_address(host, port, &addr, err);
    if (st != RTCOSIM_OK)
        return st;
    u->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (u->fd < 0)
        return rtcosim_error_set(err, RTCOSIM_EIO, "DCP: socket: %s", strerror(errno));
    if (bind(u->fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        int e = errno;
        dcp_udp_close(u);
        return rtcosim_error_set(err, RTCOSIM_EIO, "DCP: cannot bind UDP %s:%u: %s", host,
                                 (unsigned)port, strerror(e));
    }
    socklen_t len = sizeof addr;
    getsockname(u->fd, (struct sockaddr *)&addr, &len);
    u->port = ntohs(addr.sin_port);
    u->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    u->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (u->epoll_fd < 0 || u->wake_fd < 0) {
        int e = errno;
        dcp_udp_close(u);
        return rtcosim_error_set(err, RTCOSIM_EIO, "DCP: epoll/eventfd: %s", strerror(e));
    }
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = u->fd};
    epoll_ctl(u->epoll_fd, EPOLL_CTL_ADD, u->fd, &ev);
    ev.data.fd = u->wake_fd;
    epoll_ctl(u->epoll_fd, EPOLL_CTL_ADD, u->wake_fd, &ev);
    return RTCOSIM_OK;
}

void dcp_udp_close(dcp_udp *u)
{
    if (u->fd >= 0) close(u->fd);
    if (u->epoll_fd >= 0) close(u->epoll_fd);
    if (u->wake_fd >= 0) close(u->wake_fd);
    u->fd = u->epoll_fd = u->wake_fd = -1;
}

bool dcp_udp_send(dcp_udp *u, const struct sockaddr_in *to, const uint8_t *buf, size_t size)
{
    ssize_t n;
    do
        n = sendto(u->fd, buf, size, 0, (const struct sockaddr *)to, sizeof *to);
    while (n < 0 && errno == EINTR);
    return n == (ssize_t)size;
}

void dcp_udp_wake(dcp_udp *u)
{
    uint64_t one = 1;
    ssize_t r = write(u->wake_fd, &one, sizeof one);
    (void)r;
}

static long try_recv(dcp_udp *u, uint8_t *buf, size_t cap, struct sockaddr_in *from)
{
    socklen_t len = sizeof *from;
    ssize_t n = recvfrom(u->fd, buf, cap, MSG_DONTWAIT, (struct sockaddr *)from, &len);
    if (n >= 0)
        return n > 0 ? (long)n : -2; /* empty datagram: ignored by callers as "nothing" */
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
        return 0;
    /* ICMP port unreachable from an earlier send surfaces as ECONNREFUSED on
     * Linux; it is a lost datagram, not a broken socket. */
    if (errno == ECONNREFUSED)
        return 0;
    return -1;
}

static bool drain_wake(dcp_udp *u)
{
    uint64_t v;
    return read(u->wake_fd, &v, sizeof v) == (ssize_t)sizeof v;
}

long dcp_udp_recv(dcp_udp *u, uint8_t *buf, size_t cap, struct sockaddr_in *from,
                  rtcosim_time_ns timeout_ns, rtcosim_time_ns spin_ns)
{
    rtcosim_time_ns start = dcp_now_ns();
    for (;;) {
        long n = try_recv(u, buf, cap, from);
        if (n > 0 || n == -1)
            return n;
        if (drain_wake(u))
            return 0;
        rtcosim_time_ns waited = dcp_now_ns() - start;
        if (timeout_ns >= 0 && waited >= timeout_ns)
            return 0;
        if (waited < spin_ns)
            continue;
        int ms = -1;
        if (timeout_ns >= 0) {
            rtcosim_time_ns left = timeout_ns - waited;
            ms = (int)((left + RTCOSIM_NS_PER_MS - 1) / RTCOSIM_NS_PER_MS);
        }
        struct epoll_event ev[2];
        int r = epoll_wait(u->epoll_fd, ev, 2, ms);
        if (r < 0 && errno != EINTR)
            return -1;
    }
}
