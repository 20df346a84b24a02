/* Helpers of the DCP session tests (session.c). */
#ifndef RTCOSIM_TEST_DCP_SESSION_H
#define RTCOSIM_TEST_DCP_SESSION_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "rtcosim/dcp.h"
#include "rtcosim/native.h"

/* dx/dt = -k x + u, y = x: RK4, so results depend on every input bit. */
typedef struct decay {
    double x, u, k, x0;
    int32_t steps;
} decay;
extern const rtcosim_native_variable decay_vars[5];

rtcosim_status factory(void *ctx, rtcosim_component **out, rtcosim_error *err);

typedef struct served {
    rtcosim_dcp_slave *slave;
    pthread_t thread;
} served;
/* heartbeat 0: the default. */
void start_slave(served *s, rtcosim_time_ns heartbeat);
void start_slave_with(served *s, rtcosim_dcp_component_factory make, rtcosim_time_ns heartbeat);
/* udp/tcp: which transports the slave serves (on 127.0.0.1, free ports). */
void start_slave_on(served *s, rtcosim_dcp_component_factory make, rtcosim_time_ns heartbeat,
                    bool udp, bool tcp);
void start_slave_config(served *s, const rtcosim_dcp_slave_config *cfg);
void stop_slave(served *s);
/* Poll the slave's state every 5 ms until it is `state` (leave: until it is
 * no longer `state`) or SLAVE_STATE_WAIT_S seconds of wall clock passed; the
 * caller asserts the state after. A deadline, not a count of polls: far
 * beyond what the slave needs even on a loaded sanitizer run, and a pass
 * costs only the time the slave takes. */
#define SLAVE_STATE_WAIT_S 30
void await_slave_state(const rtcosim_dcp_slave *slave, uint8_t state, bool leave);
/* A slave of `make` on 127.0.0.1 (UDP, any port), its DCPX written at
 * `path` and read back into *dcpx (free it). */
void start_described_slave(served *s, rtcosim_dcp_component_factory make, const char *path,
                           rtcosim_dcpx **dcpx);

rtcosim_status run_steps(rtcosim_component *c, int steps, double *xs, int32_t *counts, int *done,
                         rtcosim_error *err);
/* run_steps with 200 steps, failing the test on error. */
void run(rtcosim_component *c, double *xs, int32_t *counts);
rtcosim_component *remote_of(const served *s);
/* A "dcp" component for the slave at 127.0.0.1:port (0: default retries). */
rtcosim_component *remote_at(uint16_t port, rtcosim_time_ns retry_ns, uint32_t attempts);
/* The same over RTCOSIM_DCP_UDP_IPV4 or RTCOSIM_DCP_TCP_IPV4. */
rtcosim_component *remote_via(uint8_t transport, uint16_t port, rtcosim_time_ns retry_ns,
                              uint32_t attempts);

#endif
