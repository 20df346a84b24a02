/* Shared by the DCP session tests: the decay model, a slave served from a
 * thread, and one scripted run that the local and remote components share. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <cmocka.h>

#include "session.h"

const rtcosim_native_variable decay_vars[5] = {
    RTCOSIM_NATIVE_F64(decay, x, 0, RTCOSIM_CAUSALITY_OUTPUT, RTCOSIM_VARIABILITY_CONTINUOUS, 0, NULL, NULL, NULL),
    RTCOSIM_NATIVE_F64(decay, u, 1, RTCOSIM_CAUSALITY_INPUT, RTCOSIM_VARIABILITY_CONTINUOUS, 0, NULL, NULL, NULL),
    RTCOSIM_NATIVE_F64(decay, k, 2, RTCOSIM_CAUSALITY_PARAMETER, RTCOSIM_VARIABILITY_FIXED, 1, NULL, NULL, NULL),
    RTCOSIM_NATIVE_F64(decay, x0, 3, RTCOSIM_CAUSALITY_PARAMETER, RTCOSIM_VARIABILITY_FIXED, 1, NULL, NULL, NULL),
    {"steps", 4, RTCOSIM_TYPE_INT32, RTCOSIM_CAUSALITY_OUTPUT, RTCOSIM_VARIABILITY_DISCRETE,
     offsetof(decay, steps), 0, NULL, NULL, NULL},
};

static rtcosim_status decay_init(void *data, const rtcosim_native_context *ctx, rtcosim_error *err)
{
    (void)ctx, (void)err;
    ((decay *)data)->x = ((decay *)data)->x0;
    return RTCOSIM_OK;
}
static void decay_derivatives(void *data, double t, const double *x, double *dx)
{
    (void)t;
    dx[0] = -((decay *)data)->k * x[0] + ((decay *)data)->u;
}
static bool decay_event(void *data, double t, bool *terminate)
{
    (void)t, (void)terminate;
    ((decay *)data)->steps++;
    return false;
}
static const rtcosim_native_model decay_model = {
    .name = "test.dcp.decay", .data_size = sizeof(decay), .variables = decay_vars,
    .variable_count = sizeof decay_vars / sizeof decay_vars[0], .state_count = 1,
    .states_offset = offsetof(decay, x), .integrator = RTCOSIM_NATIVE_RK4,
    .max_micro_step = 1000000, .can_handle_variable_step = true, .init = decay_init,
    .derivatives = decay_derivatives, .event = decay_event,
};

rtcosim_status factory(void *ctx, rtcosim_component **out, rtcosim_error *err)
{
    (void)ctx;
    return rtcosim_native_create_model(&decay_model, out, err);
}


static void *serve(void *arg)
{
    rtcosim_dcp_slave_run(((served *)arg)->slave, NULL);
    return NULL;
}

void start_slave(served *s, rtcosim_time_ns heartbeat)
{
    start_slave_with(s, factory, heartbeat);
}

void start_slave_with(served *s, rtcosim_dcp_component_factory make, rtcosim_time_ns heartbeat)
{
    start_slave_on(s, make, heartbeat, true, false);
}

void start_slave_on(served *s, rtcosim_dcp_component_factory make, rtcosim_time_ns heartbeat,
                    bool udp, bool tcp)
{
    rtcosim_dcp_slave_config cfg = {.host = udp ? "127.0.0.1" : NULL, .port = 0,
                                    .tcp_host = tcp ? "127.0.0.1" : NULL, .factory = make,
                                    .heartbeat_timeout_ns = heartbeat};
    start_slave_config(s, &cfg);
}

void start_slave_config(served *s, const rtcosim_dcp_slave_config *cfg)
{
    rtcosim_error err;
    assert_int_equal(rtcosim_dcp_slave_create(cfg, &s->slave, &err), RTCOSIM_OK);
    assert_int_equal(pthread_create(&s->thread, NULL, serve, s), 0);
}

void start_described_slave(served *s, rtcosim_dcp_component_factory make, const char *path,
                           rtcosim_dcpx **dcpx)
{
    rtcosim_dcp_slave_config cfg = {.host = "127.0.0.1", .factory = make};
    start_slave_config(s, &cfg);
    rtcosim_error err;
    if (rtcosim_dcp_slave_write_dcpx(s->slave, path, &err) != RTCOSIM_OK ||
        rtcosim_dcpx_load(path, dcpx, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
}

void stop_slave(served *s)
{
    rtcosim_dcp_slave_stop(s->slave);
    pthread_join(s->thread, NULL);
    rtcosim_dcp_slave_free(s->slave);
}

void await_slave_state(const rtcosim_dcp_slave *slave, uint8_t state, bool leave)
{
    struct timespec now, until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += SLAVE_STATE_WAIT_S;
    for (;;) {
        if ((rtcosim_dcp_slave_state(slave) == state) != leave)
            return;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec > until.tv_sec || (now.tv_sec == until.tv_sec && now.tv_nsec >= until.tv_nsec))
            return;
        nanosleep(&(struct timespec){.tv_nsec = 5000000}, NULL);
    }
}

/* Run `steps` steps of 10 ms with u = sin(3t), k = 2.5 (set in
 * initialization); record x and the step count after each step. Returns the
 * first failure, with *done the number of steps completed. */
rtcosim_status run_steps(rtcosim_component *c, int steps, double *xs, int32_t *counts, int *done,
                         rtcosim_error *err)
{
    const uint32_t vr_x = 0, vr_u = 1, vr_k = 2, vr_steps = 4;
    const double k = 2.5;
    rtcosim_status st;
    *done = 0;
    if ((st = rtcosim_component_instantiate(c, "decay", err)) != RTCOSIM_OK ||
        (st = rtcosim_component_setup(c, 0, 0, -1, err)) != RTCOSIM_OK ||
        (st = rtcosim_component_enter_init(c, err)) != RTCOSIM_OK ||
        (st = rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &vr_k, 1, &k, err)) != RTCOSIM_OK ||
        (st = rtcosim_component_exit_init(c, err)) != RTCOSIM_OK)
        return st;
    rtcosim_time_ns h = 10 * RTCOSIM_NS_PER_MS;
    for (int i = 0; i < steps; i++) {
        rtcosim_time_ns t = i * h;
        double u = sin(3.0 * rtcosim_time_to_seconds(t));
        rtcosim_step_result r;
        if ((st = rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &vr_u, 1, &u, err)) != RTCOSIM_OK ||
            (st = rtcosim_component_do_step(c, t, h, &r, err)) != RTCOSIM_OK ||
            (st = rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &vr_x, 1, &xs[i], err)) != RTCOSIM_OK ||
            (st = rtcosim_component_get(c, RTCOSIM_TYPE_INT32, &vr_steps, 1, &counts[i], err)) != RTCOSIM_OK)
            return st;
        *done = i + 1;
    }
    return rtcosim_component_terminate(c, err);
}

void run(rtcosim_component *c, double *xs, int32_t *counts)
{
    rtcosim_error err = {0};
    int done;
    if (run_steps(c, 200, xs, counts, &done, &err) != RTCOSIM_OK)
        fail_msg("after %d steps: %s", done, err.message);
}

rtcosim_component *remote_of(const served *s)
{
    return remote_at(rtcosim_dcp_slave_port(s->slave), 0, 0);
}

rtcosim_component *remote_at(uint16_t port, rtcosim_time_ns retry_ns, uint32_t attempts)
{
    return remote_via(RTCOSIM_DCP_UDP_IPV4, port, retry_ns, attempts);
}

rtcosim_component *remote_via(uint8_t transport, uint16_t port, rtcosim_time_ns retry_ns,
                              uint32_t attempts)
{
    rtcosim_component *probe = NULL, *c = NULL;
    rtcosim_error err;
    assert_int_equal(factory(NULL, &probe, &err), RTCOSIM_OK);
    rtcosim_dcp_remote_config cfg = {.host = "127.0.0.1", .port = port, .retry_ns = retry_ns,
                                     .attempts = attempts, .transport = transport};
    assert_int_equal(rtcosim_dcp_remote_create(&cfg, rtcosim_component_description(probe), &c, &err),
                     RTCOSIM_OK);
    rtcosim_component_free(probe);
    return c;
}

