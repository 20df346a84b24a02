/* Tunable parameters over DCP (CFG_tunable_parameter, CFG_param_network_
 * information, DAT_parameter): a ramp dx/dt = g whose tunable gain g is
 * changed by the master in the middle of a run. In NRT the new value comes
 * into effect at the slave's next step (spec 3.1.18.3), so x(t) is the
 * piecewise-linear ramp computed by hand, over UDP and over TCP, and equal
 * bit for bit to the same model changed locally. A fixed parameter cannot be
 * changed after configuration (clear error), and a slave refuses
 * CFG_tunable_parameter for a parameter it does not declare tunable. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/dcp.h"
#include "rtcosim/native.h"
#include "session.h"

typedef struct ramp {
    double x, g, x0;
} ramp;

static const rtcosim_native_variable ramp_vars[] = {
    RTCOSIM_NATIVE_F64(ramp, x, 0, RTCOSIM_CAUSALITY_OUTPUT, RTCOSIM_VARIABILITY_CONTINUOUS, 0, NULL, NULL, NULL),
    RTCOSIM_NATIVE_F64(ramp, g, 1, RTCOSIM_CAUSALITY_PARAMETER, RTCOSIM_VARIABILITY_TUNABLE, 1, NULL, NULL, NULL),
    RTCOSIM_NATIVE_F64(ramp, x0, 2, RTCOSIM_CAUSALITY_PARAMETER, RTCOSIM_VARIABILITY_FIXED, 0, NULL, NULL, NULL),
};

static rtcosim_status ramp_init(void *data, const rtcosim_native_context *ctx, rtcosim_error *err)
{
    (void)ctx, (void)err;
    ((ramp *)data)->x = ((ramp *)data)->x0;
    return RTCOSIM_OK;
}
static void ramp_derivatives(void *data, double t, const double *x, double *dx)
{
    (void)t, (void)x;
    dx[0] = ((ramp *)data)->g;
}
static const rtcosim_native_model ramp_model = {
    .name = "test.dcp.ramp", .data_size = sizeof(ramp), .variables = ramp_vars,
    .variable_count = sizeof ramp_vars / sizeof ramp_vars[0], .state_count = 1,
    .states_offset = offsetof(ramp, x), .integrator = RTCOSIM_NATIVE_RK4,
    .max_micro_step = 1000000, .can_handle_variable_step = true, .init = ramp_init,
    .derivatives = ramp_derivatives,
};

static rtcosim_status ramp_factory(void *ctx, rtcosim_component **out, rtcosim_error *err)
{
    (void)ctx;
    return rtcosim_native_create_model(&ramp_model, out, err);
}

static rtcosim_component *remote_ramp(uint8_t transport, uint16_t port, bool claim_x0_tunable)
{
    rtcosim_component *probe = NULL, *c = NULL;
    rtcosim_error err;
    assert_int_equal(ramp_factory(NULL, &probe, &err), RTCOSIM_OK);
    rtcosim_component_desc desc = *rtcosim_component_description(probe);
    rtcosim_variable vars[3];
    memcpy(vars, desc.variables, sizeof vars);
    if (claim_x0_tunable)
        vars[2].variability = RTCOSIM_VARIABILITY_TUNABLE;
    desc.variables = vars;
    rtcosim_dcp_remote_config cfg = {.host = "127.0.0.1", .port = port, .transport = transport};
    assert_int_equal(rtcosim_dcp_remote_create(&cfg, &desc, &c, &err), RTCOSIM_OK);
    rtcosim_component_free(probe);
    return c;
}

enum { STEPS = 100, CHANGE_AT = 50 };

/* 100 steps of 10 ms; g = 1 from the start, x0 = 0.25 in initialization,
 * g = 3 set after step CHANGE_AT. */
static void run_ramp(rtcosim_component *c, double *xs)
{
    const uint32_t vr_x = 0, vr_g = 1, vr_x0 = 2;
    const double x0 = 0.25, g2 = 3;
    rtcosim_error err = {0};
    if (rtcosim_component_instantiate(c, "ramp", &err) != RTCOSIM_OK ||
        rtcosim_component_setup(c, 0, 0, -1, &err) != RTCOSIM_OK ||
        rtcosim_component_enter_init(c, &err) != RTCOSIM_OK ||
        rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &vr_x0, 1, &x0, &err) != RTCOSIM_OK ||
        rtcosim_component_exit_init(c, &err) != RTCOSIM_OK)
        fail_msg("init: %s", err.message);
    const rtcosim_time_ns h = 10 * RTCOSIM_NS_PER_MS;
    for (int i = 0; i < STEPS; i++) {
        if (i == CHANGE_AT &&
            rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &vr_g, 1, &g2, &err) != RTCOSIM_OK)
            fail_msg("set g: %s", err.message);
        if (rtcosim_component_do_step(c, i * h, h, NULL, &err) != RTCOSIM_OK ||
            rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &vr_x, 1, &xs[i], &err) != RTCOSIM_OK)
            fail_msg("step %d: %s", i, err.message);
    }
    if (rtcosim_component_terminate(c, &err) != RTCOSIM_OK)
        fail_msg("terminate: %s", err.message);
}

static void check_ramp(const double *xs)
{
    /* By hand: x = 0.25 + 0.01 (i+1) up to t = 0.5 s, then slope 3. */
    for (int i = 0; i < STEPS; i++) {
        double t = 0.01 * (i + 1);
        double want = i < CHANGE_AT ? 0.25 + t : 0.25 + 0.5 + 3 * (t - 0.5);
        assert_true(fabs(xs[i] - want) < 1e-12);
    }
    assert_true(fabs(xs[STEPS - 1] - 2.25) < 1e-12);
}

static void test_tunable_gain_mid_run(void **state)
{
    (void)state;
    static double local[STEPS], udp[STEPS], tcp[STEPS];
    rtcosim_component *c = NULL;
    assert_int_equal(ramp_factory(NULL, &c, NULL), RTCOSIM_OK);
    run_ramp(c, local);
    rtcosim_component_free(c);
    check_ramp(local);

    served s;
    start_slave_on(&s, ramp_factory, 0, true, true);
    c = remote_ramp(RTCOSIM_DCP_UDP_IPV4, rtcosim_dcp_slave_port(s.slave), false);
    run_ramp(c, udp);
    rtcosim_component_free(c);
    c = remote_ramp(RTCOSIM_DCP_TCP_IPV4, rtcosim_dcp_slave_tcp_port(s.slave), false);
    run_ramp(c, tcp);
    rtcosim_component_free(c);
    stop_slave(&s);
    check_ramp(udp);
    check_ramp(tcp);
    assert_memory_equal(local, udp, sizeof local);
    assert_memory_equal(local, tcp, sizeof local);
}

static void test_fixed_parameter_refused(void **state)
{
    (void)state;
    served s;
    start_slave_on(&s, ramp_factory, 0, true, false);
    rtcosim_error err = {0};
    const uint32_t vr_x0 = 2;
    const double x0 = 1;

    /* The master refuses to change a fixed parameter after configuration. */
    rtcosim_component *c = remote_ramp(RTCOSIM_DCP_UDP_IPV4, rtcosim_dcp_slave_port(s.slave), false);
    assert_int_equal(rtcosim_component_instantiate(c, "ramp", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_setup(c, 0, 0, -1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_enter_init(c, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &vr_x0, 1, &x0, &err), RTCOSIM_ESTATE);
    assert_non_null(strstr(err.message, "parameter 'x0' set after the slave was configured"));
    rtcosim_component_free(c);

    /* A master that believes x0 tunable: the slave refuses its
     * CFG_tunable_parameter with INVALID_VALUE_REFERENCE. */
    c = remote_ramp(RTCOSIM_DCP_UDP_IPV4, rtcosim_dcp_slave_port(s.slave), true);
    assert_int_equal(rtcosim_component_instantiate(c, "ramp", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_setup(c, 0, 0, -1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_enter_init(c, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_ECOMPONENT);
    assert_non_null(strstr(err.message, "CFG_tunable_parameter"));
    assert_non_null(strstr(err.message, "INVALID_VALUE_REFERENCE"));
    rtcosim_component_free(c);
    stop_slave(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tunable_gain_mid_run),
        cmocka_unit_test(test_fixed_parameter_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
