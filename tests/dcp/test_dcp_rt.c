/* A remote DCP slave as the non-real-time partner of a real-time run
 * (system_rt with `--dcp` bindings): on virtual clocks, behind a relay that
 * delays, jitters and drops datagrams, the run must be bit-identical to the
 * same run with the partner in process (the network costs wall time only,
 * never virtual time), including the frames served by estimates when the
 * partner is late; a network cut makes the partner lost while the real-time
 * part runs to the stop on estimates; lost output data are held, not fatal,
 * in this mode. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "relay.h"
#include "rtcosim/dcp.h"
#include "rtcosim/native.h"
#include "rtcosim/system_rt.h"
#include "session.h"

#define MS 1000000LL
#define FRAMES 100
#define SSD RTCOSIM_SOURCE_DIR "/examples/oscillator/oscillator.ssd"

typedef struct outcome {
    double last[16];
    size_t columns;
    rtcosim_rt_summary summary;
    bool estimated[FRAMES];
} outcome;

/* Partner step n takes 2.5 ms of its virtual processor when n = 4 (mod 10):
 * the real-time part uses estimates at two frames of every ten. */
static rtcosim_time_ns schedule[10] = {0, 0, 0, 2500000, 0, 0, 0, 0, 0, 0};

static void run_rt(rtcosim_dcp_bindings *bindings, bool hold, outcome *o)
{
    rtcosim_error err = {0};
    rtcosim_system_desc *desc = NULL;
    rtcosim_clock *pacing = NULL, *partner = NULL;
    if (rtcosim_system_desc_load(SSD, &desc, &err) != RTCOSIM_OK ||
        rtcosim_clock_create_virtual(0, &pacing, &err) != RTCOSIM_OK ||
        rtcosim_clock_create_virtual(0, &partner, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    rtcosim_system_rt_options so;
    rtcosim_system_rt_options_init(&so);
    so.rt.clock = pacing;
    so.rt.partner_clock = partner;
    so.rt.start_time = 0;
    so.rt.stop_time = FRAMES * MS;
    so.rt.non_realtime = "mass1";
    so.rt.calibrate = false;
    so.rt.frame_log = FRAMES;
    so.rt.partner_timeout = 20 * MS;
    rtcosim_system_rt_delay delay = {.component = "mass1",
                                     .delay = {.schedule = schedule, .schedule_length = 10}};
    so.delays = &delay;
    so.delay_count = 1;
    if (bindings) {
        so.partner_wrap = rtcosim_dcp_bindings_wrap;
        so.partner_wrap_context = bindings;
        rtcosim_dcp_bindings_hold_lost_outputs(bindings, hold);
    }
    rtcosim_system_rt *srt = NULL;
    if (rtcosim_system_rt_create(desc, &so, &srt, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_null(rtcosim_dcp_bindings_unused(bindings));
    if (rtcosim_system_rt_run(srt, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    const rtcosim_rt *rt = rtcosim_system_rt_executor(srt);
    o->summary = *rtcosim_rt_get_summary(rt);
    o->columns = rtcosim_system_rt_column_count(srt);
    assert_true(o->columns <= 16);
    memcpy(o->last, rtcosim_system_rt_last_values(srt), o->columns * sizeof *o->last);
    assert_int_equal(rtcosim_rt_frame_count(rt), FRAMES);
    for (size_t k = 0; k < FRAMES; k++)
        o->estimated[k] = (rtcosim_rt_frame_at(rt, k)->flags & RTCOSIM_FRAME_ESTIMATED) != 0;
    rtcosim_system_rt_free(srt);
    rtcosim_clock_free(pacing);
    rtcosim_clock_free(partner);
    rtcosim_system_desc_free(desc);
}

static rtcosim_status mass1(void *ctx, rtcosim_component **out, rtcosim_error *err)
{
    (void)ctx;
    return rtcosim_native_create("rtcosim:oscillator.mass1", out, err);
}

static rtcosim_dcp_bindings *bind_mass1(uint16_t port)
{
    char spec[64];
    snprintf(spec, sizeof spec, "mass1=127.0.0.1:%u", (unsigned)port);
    rtcosim_dcp_bindings *b = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_dcp_bindings_add(&b, spec, &err), RTCOSIM_OK);
    return b;
}

/* Every 20th control PDU (either direction) is dropped: the master
 * retransmits its request or asks INF_state; the slave answers a repeat from
 * its cache. (A lost DAT PDU cannot be asked for again in DCP 1.0: see the
 * network cut below for what the partner then does.) */
static bool drop_every_20th_control(void *ctx, bool to_slave, const uint8_t *pdu, size_t size)
{
    (void)to_slave, (void)size;
    unsigned *n = ctx;
    return pdu[0] != RTCOSIM_DCP_DAT_INPUT_OUTPUT && ++*n % 20 == 0;
}

static void test_remote_partner_equals_local_partner_over_impaired_network(void **state)
{
    (void)state;
    static outcome local, remote;
    run_rt(NULL, false, &local);

    served s;
    start_slave_with(&s, mass1, 0);
    unsigned count = 0;
    relay_config cfg = {.slave_port = rtcosim_dcp_slave_port(s.slave),
                        .delay_ns = 300000,
                        .jitter_to_master_ns = 300000,
                        .drop = drop_every_20th_control,
                        .drop_context = &count,
                        .seed = 7};
    uint16_t front;
    relay *r = relay_start(&cfg, &front);
    assert_non_null(r);
    rtcosim_dcp_bindings *b = bind_mass1(front);
    run_rt(b, false, &remote);
    rtcosim_dcp_bindings_free(b);
    uint64_t forwarded, dropped, reordered;
    relay_counts(r, &forwarded, &dropped, &reordered);
    relay_stop(r);
    assert_int_equal(rtcosim_dcp_slave_sessions(s.slave), 1);
    stop_slave(&s);

    assert_true(dropped > 0);                 /* the network did lose PDUs */
    assert_false(local.summary.partner_lost);
    if (remote.summary.partner_lost)
        fail_msg("partner lost: %s", remote.summary.partner_lost_reason);
    /* Hand-computed from the schedule: frames 4, 5, 14, 15, ... estimated. */
    for (size_t k = 0; k < FRAMES; k++) {
        bool expected = k >= 4 && (k % 10 == 4 || k % 10 == 5);
        assert_int_equal(local.estimated[k], expected);
        assert_int_equal(remote.estimated[k], expected);
    }
    assert_int_equal(remote.summary.estimated_exchanges, local.summary.estimated_exchanges);
    assert_int_equal(remote.columns, local.columns);
    assert_memory_equal(remote.last, local.last, local.columns * sizeof *local.last);
}

/* After `cut` datagrams the relay forwards nothing more: the slave is gone
 * for the master. */
static void test_network_cut_makes_partner_lost_and_real_time_part_runs_on(void **state)
{
    (void)state;
    static outcome o;
    served s;
    start_slave_with(&s, mass1, 0);
    relay_cutter c = {.cut = 400}; /* configuration, initialization and some 40 steps */
    relay_config cfg = {.slave_port = rtcosim_dcp_slave_port(s.slave), .drop = relay_cut,
                        .drop_context = &c};
    uint16_t front;
    relay *r = relay_start(&cfg, &front);
    assert_non_null(r);
    rtcosim_dcp_bindings *b = bind_mass1(front);
    run_rt(b, true, &o);
    rtcosim_dcp_bindings_free(b);
    relay_stop(r);
    stop_slave(&s);

    assert_true(o.summary.partner_lost);
    assert_true(o.summary.partner_lost_at > 0 && o.summary.partner_lost_at < FRAMES * MS);
    assert_int_equal(o.summary.stopped_at, FRAMES * MS); /* the real-time part ran to the stop */
    assert_false(o.summary.failed);
    /* From the loss on, every frame is served by an estimate. */
    size_t lost_frame = (size_t)(o.summary.partner_lost_at / MS);
    for (size_t k = lost_frame; k < FRAMES; k++)
        assert_true(o.estimated[k]);
}

/* Every 30th output DAT_input_output (slave -> master) is lost. */
static bool drop_outputs(void *ctx, bool to_slave, const uint8_t *pdu, size_t size)
{
    (void)size;
    unsigned *n = ctx;
    return !to_slave && pdu[0] == RTCOSIM_DCP_DAT_INPUT_OUTPUT && ++*n % 30 == 0;
}

/* hold_lost_outputs (the partner mode): a step whose output data are lost
 * still succeeds, with exactly the previous step's outputs; every other step
 * has the outputs of the same model run in process (the slave stepped on). */
static void test_lost_output_data_are_held_for_a_real_time_partner(void **state)
{
    (void)state;
    static double local_x[200], remote_x[200];
    static int32_t local_n[200], remote_n[200];
    rtcosim_component *c = NULL;
    rtcosim_error err = {0};
    assert_int_equal(factory(NULL, &c, &err), RTCOSIM_OK);
    run(c, local_x, local_n);
    rtcosim_component_free(c);

    served s;
    start_slave(&s, 0);
    unsigned count = 0;
    relay_config cfg = {.slave_port = rtcosim_dcp_slave_port(s.slave), .drop = drop_outputs,
                        .drop_context = &count};
    uint16_t front;
    relay *r = relay_start(&cfg, &front);
    assert_non_null(r);
    rtcosim_component *probe = NULL;
    assert_int_equal(factory(NULL, &probe, &err), RTCOSIM_OK);
    /* The default retry period (100 ms): a datum merely late on a loaded
     * machine must not count as lost. */
    rtcosim_dcp_remote_config rc = {.host = "127.0.0.1", .port = front, .hold_lost_outputs = true};
    assert_int_equal(rtcosim_dcp_remote_create(&rc, rtcosim_component_description(probe), &c, &err),
                     RTCOSIM_OK);
    rtcosim_component_free(probe);
    run(c, remote_x, remote_n);
    rtcosim_component_free(c);
    uint64_t forwarded, dropped, reordered;
    relay_counts(r, &forwarded, &dropped, &reordered);
    relay_stop(r);
    stop_slave(&s);

    assert_true(dropped >= 6); /* 200 steps + initialization, every 30th */
    uint64_t held = 0;
    for (size_t i = 0; i < 200; i++) {
        if (remote_n[i] == local_n[i]) {
            assert_true(remote_x[i] == local_x[i]);
            continue;
        }
        assert_true(i > 0);
        assert_true(remote_x[i] == remote_x[i - 1] && remote_n[i] == remote_n[i - 1]);
        held++;
    }
    assert_int_equal(held, dropped);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lost_output_data_are_held_for_a_real_time_partner),
        cmocka_unit_test(test_remote_partner_equals_local_partner_over_impaired_network),
        cmocka_unit_test(test_network_cut_makes_partner_lost_and_real_time_part_runs_on),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
