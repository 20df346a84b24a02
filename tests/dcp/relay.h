/* A UDP relay for tests (this machine has no netem): sits between a DCP
 * master and slave on loopback and delays, jitters (hence reorders) and
 * drops datagrams as a test asks. */
#ifndef RTCOSIM_TEST_RELAY_H
#define RTCOSIM_TEST_RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/time.h"

/* Return true to drop this datagram (to_slave: master -> slave direction). */
typedef bool (*relay_drop_fn)(void *context, bool to_slave, const uint8_t *pdu, size_t size);

typedef struct relay_config {
    uint16_t slave_port;          /* slave on 127.0.0.1 */
    rtcosim_time_ns delay_ns;     /* added to every datagram */
    rtcosim_time_ns jitter_to_slave_ns, jitter_to_master_ns; /* uniform extra delay */
    relay_drop_fn drop;           /* may be NULL */
    void *drop_context;
    unsigned seed;
} relay_config;

/* A drop rule that cuts the network: after `cut` datagrams (both
 * directions) nothing passes. Pass relay_cut with a relay_cutter. */
typedef struct relay_cutter {
    unsigned seen, cut;
} relay_cutter;
bool relay_cut(void *context, bool to_slave, const uint8_t *pdu, size_t size);

typedef struct relay relay;

/* Start the relay thread; *front_port is where the master sends. */
relay *relay_start(const relay_config *config, uint16_t *front_port);
/* Datagrams forwarded and dropped so far. */
void relay_counts(relay *r, uint64_t *forwarded, uint64_t *dropped, uint64_t *reordered);
void relay_stop(relay *r);

#endif
