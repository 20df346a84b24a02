/* UDP/IPv4 transport of DCP (one PDU per datagram, spec 3.4 UDP_IPv4): a
 * non-blocking socket with its own epoll set and an eventfd to wake it.
 * Receiving busy-polls for a bounded time before sleeping in epoll, because a
 * kernel wake-up costs ~50 us on this machine (BENCHMARKS.md). */
#ifndef RTCOSIM_DCP_UDP_H
#define RTCOSIM_DCP_UDP_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/status.h"
#include "rtcosim/time.h"

typedef struct dcp_udp {
    int fd;
    int epoll_fd;
    int wake_fd; /* eventfd: dcp_udp_wake makes a waiting receive return */
    uint16_t port; /* bound port (host order) */
} dcp_udp;

/* Parse "a.b.c.d" into a sockaddr with the port. */
rtcosim_status dcp_udp_address(const char *host, uint16_t port, struct sockaddr_in *out,
                               rtcosim_error *err);
/* Bind to host:port (port 0: any free port). */
rtcosim_status dcp_udp_open(dcp_udp *u, const char *host, uint16_t port, rtcosim_error *err);
void dcp_udp_close(dcp_udp *u);
/* Send one datagram; false when the kernel refused it (the caller treats it
 * as a lost PDU, as UDP would). */
bool dcp_udp_send(dcp_udp *u, const struct sockaddr_in *to, const uint8_t *buf, size_t size);
/* Receive one datagram into buf within timeout_ns (< 0: wait forever),
 * spinning for at most spin_ns first. Returns its size, 0 on timeout or
 * wake-up, -1 on a socket error. */
long dcp_udp_recv(dcp_udp *u, uint8_t *buf, size_t cap, struct sockaddr_in *from,
                  rtcosim_time_ns timeout_ns, rtcosim_time_ns spin_ns);
void dcp_udp_wake(dcp_udp *u);
rtcosim_time_ns dcp_now_ns(void);

#endif
