/* UDP impairment relay for the DCP tests (see relay.h): one thread, two
 * sockets (front to the master, back to the slave), a small queue of
 * datagrams each released at its own time. A datagram released before one
 * that arrived earlier in the same direction counts as reordered. */
#include "relay.h"

#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define SLOTS 1024
#define MAX_DGRAM 2048

typedef struct slot {
    bool used, to_slave;
    rtcosim_time_ns release;
    uint64_t arrival; /* per-direction arrival number */
    size_t size;
    uint8_t data[MAX_DGRAM];
} slot;

struct relay {
    relay_config cfg;
    int front, back;
    uint16_t back_port;
    struct sockaddr_in master, slave;
    bool have_master;
    pthread_t thread;
    atomic_bool stop;
    atomic_uint_fast64_t forwarded, dropped, reordered;
    uint64_t arrivals[2], last_released[2];
    unsigned rng;
    slot *slots;
};

static rtcosim_time_ns now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (rtcosim_time_ns)ts.tv_sec * RTCOSIM_NS_PER_S + ts.tv_nsec;
}

static int bound_socket(uint16_t *port)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    bind(fd, (struct sockaddr *)&a, sizeof a);
    socklen_t len = sizeof a;
    getsockname(fd, (struct sockaddr *)&a, &len);
    if (port)
        *port = ntohs(a.sin_port);
    return fd;
}

static void take(relay *r, int fd, bool to_slave)
{
    uint8_t buf[MAX_DGRAM];
    struct sockaddr_in from;
    socklen_t len = sizeof from;
    ssize_t n = recvfrom(fd, buf, sizeof buf, 0, (struct sockaddr *)&from, &len);
    if (n <= 0)
        return;
    if (to_slave) {
        r->master = from;
        r->have_master = true;
    }
    if (r->cfg.drop && r->cfg.drop(r->cfg.drop_context, to_slave, buf, (size_t)n)) {
        atomic_fetch_add(&r->dropped, 1);
        return;
    }
    /* Like a NAT that knows the protocol: a CFG_target_network_information
     * (UDP, 13 bytes) names the master's address; point it at the relay so
     * that the slave's data PDUs pass through the impairment too. */
    if (to_slave && n == 13 && buf[0] == 0x25 && buf[6] == 0) {
        buf[7] = (uint8_t)r->back_port;
        buf[8] = (uint8_t)(r->back_port >> 8);
        buf[9] = 1, buf[10] = 0, buf[11] = 0, buf[12] = 127; /* 127.0.0.1, little-endian */
    }
    /* The master knows only the relay's port; the slave takes inputs on its
     * own (CFG_source_network_information, UDP: 13 bytes, port and address
     * as in the target's, DCP 1.0 section 4.2.1.2 table 135). */
    if (to_slave && n == 13 && buf[0] == 0x26 && buf[6] == 0) {
        buf[7] = (uint8_t)r->cfg.slave_port;
        buf[8] = (uint8_t)(r->cfg.slave_port >> 8);
    }
    rtcosim_time_ns jitter = to_slave ? r->cfg.jitter_to_slave_ns : r->cfg.jitter_to_master_ns;
    rtcosim_time_ns extra = jitter > 0 ? (rtcosim_time_ns)(rand_r(&r->rng) % (unsigned)jitter) : 0;
    for (size_t i = 0; i < SLOTS; i++)
        if (!r->slots[i].used) {
            slot *s = &r->slots[i];
            s->used = true;
            s->to_slave = to_slave;
            s->release = now_ns() + r->cfg.delay_ns + extra;
            s->arrival = ++r->arrivals[to_slave];
            s->size = (size_t)n;
            memcpy(s->data, buf, (size_t)n);
            return;
        }
    atomic_fetch_add(&r->dropped, 1); /* queue full: a real router drops too */
}

static void *loop(void *arg)
{
    relay *r = arg;
    while (!atomic_load(&r->stop)) {
        rtcosim_time_ns now = now_ns(), next = now + 5 * RTCOSIM_NS_PER_MS;
        /* Release what is due in order of release time, then arrival: with
         * no jitter a direction keeps its order, as on a real link. */
        for (;;) {
            slot *first = NULL;
            for (size_t i = 0; i < SLOTS; i++) {
                slot *s = &r->slots[i];
                if (s->used && s->release <= now &&
                    (!first || s->release < first->release ||
                     (s->release == first->release && s->to_slave == first->to_slave &&
                      s->arrival < first->arrival)))
                    first = s;
            }
            if (!first)
                break;
            const struct sockaddr_in *to = first->to_slave ? &r->slave : &r->master;
            if (first->to_slave || r->have_master)
                sendto(first->to_slave ? r->back : r->front, first->data, first->size, 0,
                       (const struct sockaddr *)to, sizeof *to);
            if (first->arrival < r->last_released[first->to_slave])
                atomic_fetch_add(&r->reordered, 1);
            else
                r->last_released[first->to_slave] = first->arrival;
            atomic_fetch_add(&r->forwarded, 1);
            first->used = false;
        }
        for (size_t i = 0; i < SLOTS; i++)
            if (r->slots[i].used && r->slots[i].release < next)
                next = r->slots[i].release;
        struct pollfd p[2] = {{.fd = r->front, .events = POLLIN}, {.fd = r->back, .events = POLLIN}};
        struct timespec ts = {.tv_sec = 0, .tv_nsec = next > now ? next - now : 0};
        if (ppoll(p, 2, &ts, NULL) > 0) {
            if (p[0].revents & POLLIN)
                take(r, r->front, true);
            if (p[1].revents & POLLIN)
                take(r, r->back, false);
        }
    }
    return NULL;
}

relay *relay_start(const relay_config *config, uint16_t *front_port)
{
    relay *r = calloc(1, sizeof *r);
    r->slots = calloc(SLOTS, sizeof *r->slots);
    r->cfg = *config;
    r->rng = config->seed;
    r->front = bound_socket(front_port);
    r->back = bound_socket(&r->back_port);
    r->slave.sin_family = AF_INET;
    r->slave.sin_port = htons(config->slave_port);
    inet_pton(AF_INET, "127.0.0.1", &r->slave.sin_addr);
    pthread_create(&r->thread, NULL, loop, r);
    return r;
}

void relay_counts(relay *r, uint64_t *forwarded, uint64_t *dropped, uint64_t *reordered)
{
    if (forwarded) *forwarded = atomic_load(&r->forwarded);
    if (dropped) *dropped = atomic_load(&r->dropped);
    if (reordered) *reordered = atomic_load(&r->reordered);
}

void relay_stop(relay *r)
{
    atomic_store(&r->stop, true);
    pthread_join(r->thread, NULL);
    close(r->front);
    close(r->back);
    free(r->slots);
    free(r);
}

bool relay_cut(void *context, bool to_slave, const uint8_t *pdu, size_t size)
{
    (void)to_slave, (void)pdu, (void)size;
    relay_cutter *c = context;
    return ++c->seen > c->cut;
}
