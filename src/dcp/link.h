/* The network endpoint of a DCP master or slave: a UDP/IPv4 socket (one PDU
 * per datagram) and/or TCP/IPv4 (a listener and up to DCP_TCP_MAX_CONNS
 * connections, each a stream of length-prefixed PDUs reassembled in a fixed
 * buffer), all non-blocking in one epoll set with an eventfd to wake it.
 * Receiving busy-polls for a bounded time before sleeping in epoll, because a
 * kernel wake-up costs ~50 us on this machine (BENCHMARKS.md). No allocation
 * per PDU: a connection's buffer is allocated when the connection opens. */
#ifndef RTCOSIM_DCP_LINK_H
#define RTCOSIM_DCP_LINK_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/status.h"
#include "rtcosim/time.h"

#define DCP_TCP_MAX_CONNS 8

/* Where a PDU came from or goes to: a UDP address, or a TCP connection. */
typedef struct dcp_peer {
    struct sockaddr_in addr; /* remote address (of the connection for TCP) */
    int conn;                /* TCP connection slot; -1: UDP datagram */
    uint32_t serial;         /* TCP: which connection held the slot */
} dcp_peer;

typedef struct dcp_tcp_conn {
    int fd; /* -1: slot free */
    uint32_t serial;
    bool accepted;            /* opened by a peer (not by dcp_link_connect_tcp) */
    int64_t last_active_ns;   /* accept or last bytes received (dcp_now_ns) */
    struct sockaddr_in addr;
    uint8_t *buf; /* reassembly: prefix + largest PDU */
    size_t start, have; /* unread bytes are buf[start, have) */
} dcp_tcp_conn;

typedef struct dcp_link {
    int epoll_fd;
    int wake_fd;   /* eventfd: dcp_link_wake makes a waiting receive return */
    int udp_fd;    /* -1: no UDP */
    uint16_t udp_port;
    int listen_fd; /* -1: no TCP listener */
    uint16_t tcp_port;
    dcp_tcp_conn conns[DCP_TCP_MAX_CONNS];
    uint32_t next_serial;
    unsigned scan; /* round-robin start over the connections */
    /* Streams closed because their framing was broken (length 0 or larger
     * than RTCOSIM_DCP_MAX_PDU), and the last such peer's complaint. */
    uint32_t stream_errors;
    char stream_error[160];
    /* Accepted connections closed for idleness (dcp_link_close_idle) or to
     * make room for a new one when every slot was taken, and the last one's
     * description; keep_conn (-1: none) is never closed for that. */
    uint32_t idle_closed;
    char idle_closed_what[160];
    int keep_conn;
} dcp_link;

/* Parse "a.b.c.d" into a sockaddr with the port. */
rtcosim_status dcp_address(const char *host, uint16_t port, struct sockaddr_in *out,
                           rtcosim_error *err);
rtcosim_time_ns dcp_now_ns(void);

/* Empty endpoint (epoll set and eventfd only). */
rtcosim_status dcp_link_init(dcp_link *l, rtcosim_error *err);
/* Bind UDP to host:port (port 0: any free port). */
rtcosim_status dcp_link_open_udp(dcp_link *l, const char *host, uint16_t port, rtcosim_error *err);
/* Listen for TCP connections on host:port (port 0: any free port). */
rtcosim_status dcp_link_listen_tcp(dcp_link *l, const char *host, uint16_t port,
                                   rtcosim_error *err);
/* Connect to `to` within timeout_ns; *peer names the connection. */
rtcosim_status dcp_link_connect_tcp(dcp_link *l, const struct sockaddr_in *to,
                                    rtcosim_time_ns timeout_ns, dcp_peer *peer, rtcosim_error *err);
void dcp_link_close_conn(dcp_link *l, const dcp_peer *peer);
/* True while the connection `peer` names is open (always true for UDP). */
bool dcp_link_peer_open(const dcp_link *l, const dcp_peer *peer);
void dcp_link_close(dcp_link *l);
/* Watch fd for input in the link's epoll set. */
void dcp_link_watch(dcp_link *l, int fd);
/* The local port a bound socket got (the one asked for, or the kernel's). */
uint16_t dcp_link_bound_port(int fd);
/* Send one PDU (a datagram, or a length-prefixed frame on the connection);
 * false when it could not be sent (the caller treats it as a lost PDU). */
bool dcp_link_send(dcp_link *l, const dcp_peer *to, const uint8_t *buf, size_t size);
/* Receive one PDU into buf within timeout_ns (< 0: wait forever), spinning
 * for at most spin_ns first. Returns its size, 0 on timeout or wake-up, -1 on
 * a broken UDP socket. Accepts connections and closes broken streams as it goes. */
long dcp_link_recv(dcp_link *l, uint8_t *buf, size_t cap, dcp_peer *from,
                   rtcosim_time_ns timeout_ns, rtcosim_time_ns spin_ns);
void dcp_link_wake(dcp_link *l);
bool dcp_peer_same(const dcp_peer *a, const dcp_peer *b);

/* tcp.c, used by link.c */
int dcp_tcp_accept(dcp_link *l);
/* Close accepted connections (but keep_conn) that received nothing for
 * idle_ns; returns how many. */
int dcp_link_close_idle(dcp_link *l, int64_t idle_ns);
long dcp_tcp_take(dcp_link *l, uint8_t *buf, size_t cap, dcp_peer *from);
long dcp_tcp_read_fd(dcp_link *l, int fd, uint8_t *buf, size_t cap, dcp_peer *from);
bool dcp_tcp_send(dcp_link *l, const dcp_peer *to, const uint8_t *buf, size_t size);

#endif
