/* DCP soft real time (op mode SRT) on the master side: a remote slave that
 * steps on its own clock and streams its outputs, taken by the partner step
 * they belong to (the slave's step count); the real-time partner over SRT
 * lost when the network is cut, with every frame kept; the fall-back to NRT
 * lock step for a slave that refuses SRT or whose DCPX does not offer it.
 * No wall-clock timing is asserted: only which data arrived and their values. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "relay.h"
#include "rtcosim/dcp.h"
#include "rtcosim/log.h"
#include "rtcosim/master.h"
#include "rtcosim/native.h"
#include "rtcosim/system_rt.h"
#include "session.h"

#define MS 1000000LL
#define STEPS 30
#define H (20 * MS)

/* The decay model, k = 0.5, u = 0.2 held (constant inputs: the slave's
 * result does not depend on when it received them), steps of 20 ms. After
 * step 10 the caller pauses 0.7 s (a partner thread descheduled): an SRT
 * slave runs on meanwhile, the master's heartbeat (every 0.5 s when idle)
 * reads the queued outputs, and the next steps must still be the slave's
 * steps 11, 12, ... (kept by step), not its newest. */
static rtcosim_status drive(rtcosim_component *c, double *xs, int32_t *counts, rtcosim_error *err)
{
    const uint32_t vr_x = 0, vr_u = 1, vr_k = 2, vr_steps = 4;
    const double k = 0.5, u = 0.2;
    rtcosim_status st;
    if ((st = rtcosim_component_instantiate(c, "decay", err)) != RTCOSIM_OK ||
        (st = rtcosim_component_setup(c, 0, 0, -1, err)) != RTCOSIM_OK ||
        (st = rtcosim_component_enter_init(c, err)) != RTCOSIM_OK ||
        (st = rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &vr_k, 1, &k, err)) != RTCOSIM_OK ||
        (st = rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &vr_u, 1, &u, err)) != RTCOSIM_OK ||
        (st = rtcosim_component_exit_init(c, err)) != RTCOSIM_OK)
        return st;
    for (int i = 0; i < STEPS; i++) {
        rtcosim_step_result r;
        if ((st = rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &vr_u, 1, &u, err)) != RTCOSIM_OK ||
            (st = rtcosim_component_do_step(c, i * H, H, &r, err)) != RTCOSIM_OK ||
            (st = rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &vr_x, 1, &xs[i], err)) != RTCOSIM_OK ||
            (st = rtcosim_component_get(c, RTCOSIM_TYPE_INT32, &vr_steps, 1, &counts[i], err)) != RTCOSIM_OK)
            return st;
        if (i == 10)
            usleep(700000);
    }
    return rtcosim_component_terminate(c, err);
}

static rtcosim_component *remote_srt(uint16_t port, bool no_srt)
{
    rtcosim_component *probe = NULL, *c = NULL;
    rtcosim_error err;
    assert_int_equal(factory(NULL, &probe, &err), RTCOSIM_OK);
    rtcosim_dcp_remote_config cfg = {.host = "127.0.0.1", .port = port, .soft_real_time = true,
                                     .no_srt = no_srt, .srt_step_ns = H};
    assert_int_equal(rtcosim_dcp_remote_create(&cfg, rtcosim_component_description(probe), &c, &err),
                     RTCOSIM_OK);
    rtcosim_component_free(probe);
    return c;
}

static void local_run(double *xs, int32_t *counts)
{
    rtcosim_component *c = NULL;
    rtcosim_error err = {0};
    assert_int_equal(factory(NULL, &c, &err), RTCOSIM_OK);
    if (drive(c, xs, counts, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    rtcosim_component_free(c);
}

/* Each partner step takes the output PDU of the slave's own step (t + h) / h:
 * its step counter is exactly the step's index, and x is the in-process RK4
 * value of that step, which is within 1e-9 of the analytic solution
 * x(t) = u/k + (x0 - u/k) e^(-k t) (RK4 error at h = 20 ms is ~1e-11). */
static void test_srt_outputs_are_the_slaves_steps_and_match_the_model(void **state)
{
    (void)state;
    double local_x[STEPS], remote_x[STEPS];
    int32_t local_n[STEPS], remote_n[STEPS];
    local_run(local_x, local_n);

    served s;
    start_slave(&s, 0);
    rtcosim_component *c = remote_srt(rtcosim_dcp_slave_port(s.slave), false);
    rtcosim_error err = {0};
    if (drive(c, remote_x, remote_n, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(rtcosim_dcp_remote_op_mode(c), RTCOSIM_DCP_OP_SRT);
    rtcosim_component_free(c);
    stop_slave(&s);

    for (int i = 0; i < STEPS; i++) {
        double t = (double)((i + 1) * H) / 1e9;
        double exact = 0.4 + (1.0 - 0.4) * exp(-0.5 * t);
        assert_int_equal(remote_n[i], i + 1);
        assert_int_equal(local_n[i], i + 1);
        assert_true(remote_x[i] == local_x[i]);
        assert_true(fabs(local_x[i] - exact) < 1e-9);
    }
}

/* Log lines of category "dcp", for the fall-back's info line. */
static char logged[512];
static void capture(void *ctx, rtcosim_log_level level, const char *category, const char *message)
{
    (void)ctx;
    if (level == RTCOSIM_LOG_INFO && strcmp(category, "dcp") == 0)
        snprintf(logged, sizeof logged, "%s", message);
}

/* A slave offering NRT only refuses STC_register in SRT (INVALID_OP_MODE)
 * and writes a DCPX without SoftRealTime; a master asked for SRT registers
 * in NRT then, says so, and its results are those of the local model. The
 * same when the master knows from the DCPX (no_srt) and never asks. */
static void test_slave_without_srt_is_driven_in_nrt_lock_step(void **state)
{
    (void)state;
    double local_x[STEPS], remote_x[STEPS];
    int32_t local_n[STEPS], remote_n[STEPS];
    local_run(local_x, local_n);

    char dir[] = "/tmp/rtcosim-dcpsrt-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/nrt.dcpx", dir);
    rtcosim_dcp_slave_config cfg = {.host = "127.0.0.1", .factory = factory, .nrt_only = true};
    served s;
    start_slave_config(&s, &cfg);
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_dcp_slave_write_dcpx(s.slave, path, &err), RTCOSIM_OK);
    rtcosim_dcpx *d = NULL;
    assert_int_equal(rtcosim_dcpx_load(path, &d, &err), RTCOSIM_OK);
    assert_false(rtcosim_dcpx_supports(d, RTCOSIM_DCP_OP_SRT));
    assert_true(rtcosim_dcpx_supports(d, RTCOSIM_DCP_OP_NRT));
    rtcosim_dcpx_free(d);
    unlink(path);
    rmdir(dir);

    rtcosim_log_set_handler(capture, NULL);
    for (int known = 0; known < 2; known++) {
        logged[0] = 0;
        rtcosim_component *c = remote_srt(rtcosim_dcp_slave_port(s.slave), known);
        if (drive(c, remote_x, remote_n, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        assert_int_equal(rtcosim_dcp_remote_op_mode(c), RTCOSIM_DCP_OP_NRT);
        rtcosim_component_free(c);
        assert_non_null(strstr(logged, known ? "DCPX offers no SoftRealTime" : "INVALID_OP_MODE"));
        assert_non_null(strstr(logged, "NRT lock step"));
        assert_memory_equal(remote_x, local_x, sizeof local_x);
        assert_memory_equal(remote_n, local_n, sizeof local_n);
    }
    rtcosim_log_set_handler(NULL, NULL);
    assert_int_equal(rtcosim_dcp_slave_sessions(s.slave), 2);
    stop_slave(&s);
}

/* A component whose source is a .dcpx, through the real-time run's partner
 * wrap (empty bindings in SRT): SRT when its DCPX offers SoftRealTime, NRT
 * lock step with the info line when it does not; results as in process. */
static void test_dcpx_component_follows_its_capability_flags(void **state)
{
    (void)state;
    double local_x[STEPS], remote_x[STEPS];
    int32_t local_n[STEPS], remote_n[STEPS];
    local_run(local_x, local_n);
    char dir[] = "/tmp/rtcosim-dcpsrt-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/slave.dcpx", dir);
    rtcosim_log_set_handler(capture, NULL);
    for (int nrt_only = 0; nrt_only < 2; nrt_only++) {
        rtcosim_dcp_slave_config cfg = {.host = "127.0.0.1", .factory = factory,
                                        .nrt_only = nrt_only};
        served s;
        start_slave_config(&s, &cfg);
        rtcosim_error err = {0};
        assert_int_equal(rtcosim_dcp_slave_write_dcpx(s.slave, path, &err), RTCOSIM_OK);
        rtcosim_component *c = NULL, *wrapped = NULL;
        assert_int_equal(rtcosim_dcp_remote_from_dcpx(path, &c, &err), RTCOSIM_OK);
        rtcosim_dcp_bindings *b = NULL;
        assert_int_equal(rtcosim_dcp_bindings_create(&b, &err), RTCOSIM_OK);
        rtcosim_dcp_bindings_soft_real_time(b, true);
        rtcosim_dcp_bindings_partner_prepare(b, H, 0);
        assert_int_equal(rtcosim_dcp_bindings_wrap(b, "decay", c, &wrapped, &err), RTCOSIM_OK);
        logged[0] = 0;
        if (drive(wrapped, remote_x, remote_n, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        assert_int_equal(rtcosim_dcp_remote_op_mode(wrapped),
                         nrt_only ? RTCOSIM_DCP_OP_NRT : RTCOSIM_DCP_OP_SRT);
        if (nrt_only)
            assert_non_null(strstr(logged, "DCPX offers no SoftRealTime"));
        else
            assert_int_equal(logged[0], 0);
        assert_memory_equal(remote_x, local_x, sizeof local_x);
        assert_memory_equal(remote_n, local_n, sizeof local_n);
        rtcosim_component_free(wrapped);
        rtcosim_dcp_bindings_free(b);
        stop_slave(&s);
        unlink(path);
    }
    rtcosim_log_set_handler(NULL, NULL);
    rmdir(dir);
}

/* --- The real-time partner over SRT (oscillator, mass1 remote, H = 1 ms) --- */

#define SSD RTCOSIM_SOURCE_DIR "/examples/oscillator/oscillator.ssd"
#define FRAMES 200

static rtcosim_status mass1(void *ctx, rtcosim_component **out, rtcosim_error *err)
{
    (void)ctx;
    return rtcosim_native_create("rtcosim:oscillator.mass1", out, err);
}

typedef struct outcome {
    rtcosim_rt_summary summary;
    size_t frames, records, records_resolved;
    bool estimated[FRAMES];
    uint8_t mode;
} outcome;

static void run_rt(uint16_t port, rtcosim_time_ns partner_timeout, outcome *o)
{
    rtcosim_error err = {0};
    rtcosim_system_desc *desc = NULL;
    if (rtcosim_system_desc_load(SSD, &desc, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    char spec[64];
    snprintf(spec, sizeof spec, "mass1=127.0.0.1:%u", (unsigned)port);
    rtcosim_dcp_bindings *b = NULL;
    assert_int_equal(rtcosim_dcp_bindings_add(&b, spec, &err), RTCOSIM_OK);
    rtcosim_dcp_bindings_hold_lost_outputs(b, true);
    rtcosim_dcp_bindings_soft_real_time(b, true);
    rtcosim_system_rt_options so;
    rtcosim_system_rt_options_init(&so);
    so.rt.start_time = 0;
    so.rt.stop_time = FRAMES * MS;
    so.rt.non_realtime = "mass1";
    so.rt.calibrate = false;
    so.rt.frame_log = FRAMES;
    so.rt.partner_timeout = partner_timeout;
    so.partner_wrap = rtcosim_dcp_bindings_wrap;
    so.partner_wrap_context = b;
    so.partner_prepare = rtcosim_dcp_bindings_partner_prepare;
    rtcosim_system_rt *srt = NULL;
    if (rtcosim_system_rt_create(desc, &so, &srt, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_null(rtcosim_dcp_bindings_unused(b));
    const rtcosim_master *partner = rtcosim_system_rt_part(srt, true);
    o->mode = rtcosim_dcp_remote_op_mode(rtcosim_master_component(partner, "mass1"));
    if (rtcosim_system_rt_run(srt, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    const rtcosim_rt *rt = rtcosim_system_rt_executor(srt);
    o->summary = *rtcosim_rt_get_summary(rt);
    o->frames = rtcosim_rt_frame_count(rt);
    for (size_t k = 0; k < o->frames && k < FRAMES; k++)
        o->estimated[k] = (rtcosim_rt_frame_at(rt, k)->flags & RTCOSIM_FRAME_ESTIMATED) != 0;
    o->records = rtcosim_rt_record_count(rt);
    for (size_t i = 0; i < o->records; i++) {
        const rtcosim_estimate_record *r = rtcosim_rt_record_at(rt, i);
        if (!isnan(r->late_value)) {
            assert_true(r->error == r->late_value - r->estimate); /* graded by the real datum */
            o->records_resolved++;
        }
    }
    rtcosim_system_rt_free(srt);
    rtcosim_dcp_bindings_free(b);
    rtcosim_system_desc_free(desc);
}

/* The relay delays every datagram by 3 ms (> H): the first outputs need
 * STC_run's round trip and their own trip (>= 9 ms) after the first frame,
 * so the first frames run on estimates (the paced loop never runs ahead of
 * the wall clock), each graded when the slave's datum for it arrives. */
static void test_srt_partner_late_data_are_estimated_and_graded(void **state)
{
    (void)state;
    static outcome o;
    served s;
    start_slave_with(&s, mass1, 0);
    relay_config cfg = {.slave_port = rtcosim_dcp_slave_port(s.slave), .delay_ns = 3 * MS};
    uint16_t front;
    relay *r = relay_start(&cfg, &front);
    assert_non_null(r);
    run_rt(front, RTCOSIM_NS_PER_S, &o);
    relay_stop(r);
    stop_slave(&s);

    assert_int_equal(o.mode, RTCOSIM_DCP_OP_SRT);
    if (o.summary.partner_lost)
        fail_msg("partner lost: %s", o.summary.partner_lost_reason);
    assert_int_equal(o.frames, FRAMES);
    assert_true(o.records > 0);
    assert_true(o.records_resolved > 0);
    printf("SRT partner: %zu estimate records, %zu graded, max lag %.3f ms\n", o.records,
           o.records_resolved, (double)o.summary.max_lag / 1e6);
}

/* After 150 datagrams (configuration, initialization, some 50 SRT steps)
 * nothing passes: the partner is lost after the partner timeout, the
 * real-time part runs to the stop on estimates, every frame is kept. */
static void test_srt_partner_behind_a_cut_network_is_lost_and_rows_are_kept(void **state)
{
    (void)state;
    static outcome o;
    served s;
    start_slave_with(&s, mass1, 0);
    relay_cutter c = {.cut = 150};
    relay_config cfg = {.slave_port = rtcosim_dcp_slave_port(s.slave), .drop = relay_cut,
                        .drop_context = &c};
    uint16_t front;
    relay *r = relay_start(&cfg, &front);
    assert_non_null(r);
    run_rt(front, 30 * MS, &o);
    relay_stop(r);
    stop_slave(&s);

    assert_int_equal(o.mode, RTCOSIM_DCP_OP_SRT);
    assert_true(c.seen > c.cut); /* the cut happened */
    assert_true(o.summary.partner_lost);
    assert_true(o.summary.partner_lost_at > 0 && o.summary.partner_lost_at < FRAMES * MS);
    assert_int_equal(o.summary.stopped_at, FRAMES * MS);
    assert_false(o.summary.failed);
    assert_int_equal(o.frames, FRAMES);
    for (size_t k = (size_t)(o.summary.partner_lost_at / MS); k < FRAMES; k++)
        assert_true(o.estimated[k]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_srt_outputs_are_the_slaves_steps_and_match_the_model),
        cmocka_unit_test(test_slave_without_srt_is_driven_in_nrt_lock_step),
        cmocka_unit_test(test_dcpx_component_follows_its_capability_flags),
        cmocka_unit_test(test_srt_partner_late_data_are_estimated_and_graded),
        cmocka_unit_test(test_srt_partner_behind_a_cut_network_is_lost_and_rows_are_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
