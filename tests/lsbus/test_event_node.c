/* One bus for all kinds of nodes: an LS-BUS node FMU (models/lsbus_node) as
 * an LP of the event kernel on src/can's bus LP beside a native node LP.
 * Frame lengths worked out by hand (tests/lsbus/test_bridge.c's header, ISO
 * 11898-1 with stuff bits): 0x0C8 without data 50 bits = 100 us at
 * 500 kbit/s; 0x123 with 11 22 33 44 55 66 77 88 (LsBusNode's payload) 112
 * bits = 224 us. Both nodes request at 1 ms and 2 ms (LsBusNode: offset 1 ms,
 * period 1 ms; it configures 500 kbit/s at t = 0); the lower identifier wins
 * arbitration, the other frame starts when it ends. The FMU gets a Confirm of
 * each of its own frames at that frame's end. The FMU's time is a sum of
 * double step sizes (the extra steps to the Confirms round it): times within
 * 1 ps. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rtcosim/can.h"
#include "rtcosim/lsbus.h"
#include "native_node.h"
#include "rtcosim_test_fmus.h"

#define US RTCOSIM_NS_PER_US

typedef struct outcome {
    rtcosim_can_log_entry log[8];
    size_t log_count;
    native_node nat;
    int32_t fmu_tx, fmu_rx, fmu_last_id, fmu_confirms, fmu_bus_errors;
    uint64_t node_bus_errors, bus_errors;
    double fmu_last_time, fmu_last_confirm;
    uint64_t sent, received;
} outcome;

/* The FMU sends fmu_id with fmu_len bytes, the native node native_id with
 * native_len, on the given scheduler; every error_every-th frame corrupted
 * (0: none), the native node then told of each error. */
static void run_node(uint32_t fmu_id, unsigned fmu_len, uint32_t native_id, unsigned native_len,
                     rtcosim_scheduler scheduler, uint32_t error_every, bool se, outcome *o)
{
    rtcosim_error err;
    rtcosim_events *sim = NULL;
    rtcosim_can_bus *bus = NULL;
    rtcosim_lsbus_event_node *fmu = NULL;
    memset(o, 0, sizeof *o);
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    rtcosim_can_bus_config bc = {.name = "can0", .bitrate = 500000, .log_frames = true,
                                 .error_every = error_every};
    assert_int_equal(rtcosim_can_bus_create(sim, &bc, &bus, &err), RTCOSIM_OK);
    native_node_add(sim, bus, &o->nat, native_id, (uint8_t)native_len, fmu_id);
    if (error_every)
        assert_int_equal(rtcosim_can_bus_notify_errors(bus, o->nat.node, &err), RTCOSIM_OK);
    char id_text[16], len_text[8];
    snprintf(id_text, sizeof id_text, "%u", fmu_id);
    snprintf(len_text, sizeof len_text, "%u", fmu_len);
    const char *names[] = {"can_id", "data_length", "offset", "period"};
    const char *texts[] = {id_text, len_text, "0.001", "0.001"};
    uint32_t tx_id = fmu_id;
    uint8_t tx_dlc = (uint8_t)fmu_len;
    rtcosim_lsbus_event_node_config nc = {
        .name = "fmu", .fmu_path = se ? RTCOSIM_FMU_LSBUSNODE_FMI3SE : RTCOSIM_FMU_LSBUSNODE_FMI3,
        .start_names = names, .start_texts = texts, .start_count = 4, .tx_ids = &tx_id,
        .tx_dlcs = &tx_dlc, .tx_count = 1, .start = 0, .stop = 2500 * US,
        .scheduled_execution = se};
    if (rtcosim_lsbus_event_node_create(sim, bus, &nc, &fmu, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(rtcosim_can_bus_connect(bus, &err), RTCOSIM_OK);
    rtcosim_run_options ro = {.scheduler = scheduler, .threads = 2, .stop_time = 2500 * US};
    if (rtcosim_events_run(sim, &ro, NULL, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    o->log_count = rtcosim_can_bus_log_count(bus);
    assert_true(o->log_count <= 8);
    memcpy(o->log, rtcosim_can_bus_log(bus), o->log_count * sizeof *o->log);
    rtcosim_component *c = rtcosim_lsbus_event_node_component(fmu);
    const uint32_t ints[3] = {6, 7, 12}; /* tx_frames, rx_frames, last_rx_id */
    int32_t iv[3];
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_INT32, ints, 3, iv, &err), RTCOSIM_OK);
    o->fmu_tx = iv[0];
    o->fmu_rx = iv[1];
    o->fmu_last_id = iv[2];
    const uint32_t t_vr = 13; /* last_rx_time */
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &t_vr, 1, &o->fmu_last_time,
                                           &err), RTCOSIM_OK);
    const uint32_t confirms_vr = 8, confirm_time_vr = 14; /* confirms, last_confirm_time */
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_INT32, &confirms_vr, 1,
                                           &o->fmu_confirms, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &confirm_time_vr, 1,
                                           &o->fmu_last_confirm, &err), RTCOSIM_OK);
    const uint32_t bus_errors_vr = 10;
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_INT32, &bus_errors_vr, 1,
                                           &o->fmu_bus_errors, &err), RTCOSIM_OK);
    rtcosim_lsbus_event_node_counts(fmu, &o->sent, &o->received);
    o->node_bus_errors = rtcosim_lsbus_event_node_bus_errors(fmu);
    rtcosim_can_bus_stats bs;
    rtcosim_can_bus_stats_get(bus, 2500 * US, &bs);
    o->bus_errors = bs.bus_errors;
    rtcosim_lsbus_event_node_free(fmu);
    rtcosim_can_bus_free(bus);
    rtcosim_events_free(sim);
}

static void run_with_errors(uint32_t fmu_id, unsigned fmu_len, uint32_t native_id,
                            unsigned native_len, rtcosim_scheduler scheduler,
                            uint32_t error_every, outcome *o)
{
    run_node(fmu_id, fmu_len, native_id, native_len, scheduler, error_every, false, o);
}

static void run(uint32_t fmu_id, unsigned fmu_len, uint32_t native_id, unsigned native_len,
                rtcosim_scheduler scheduler, outcome *o)
{
    run_with_errors(fmu_id, fmu_len, native_id, native_len, scheduler, 0, o);
}

/* The native node's 0x0C8 wins at 1 ms: 1000-1100 us, the FMU's 0x123
 * 1100-1324 us; again at 2 ms. The FMU gets 0x0C8 at 1100 and 2100 us. */
static void a_native_node_wins_arbitration_over_the_fmu(void **state)
{
    (void)state;
    outcome o;
    run(0x123, 8, 0x0C8, 0, RTCOSIM_SCHEDULER_SEQUENTIAL, &o);
    assert_int_equal(o.log_count, 4);
    expect_frame(&o.log[0], 0x0C8, 1000 * US, 1100 * US);
    expect_frame(&o.log[1], 0x123, 1100 * US, 1324 * US);
    expect_frame(&o.log[2], 0x0C8, 2000 * US, 2100 * US);
    expect_frame(&o.log[3], 0x123, 2100 * US, 2324 * US);
    assert_int_equal(o.fmu_tx, 2);
    assert_int_equal(o.fmu_rx, 2);
    assert_int_equal(o.fmu_last_id, 0x0C8);
    assert_true(fabs(o.fmu_last_time - 0.0021) < 1e-12);
    assert_int_equal(o.sent, 2);
    assert_int_equal(o.received, 2);
    assert_int_equal(o.nat.received, 2);
    assert_int_equal(o.nat.last_rx, 2324 * US);
    assert_int_equal(o.nat.last_rx_id, 0x123);
    assert_int_equal(o.fmu_confirms, 2); /* its 0x123 ends at 1324 and 2324 us */
    assert_true(fabs(o.fmu_last_confirm - 0.002324) < 1e-12);
}

/* Swapped: the FMU's 0x0C8 wins, the native 0x123 follows it. */
static void the_fmu_wins_arbitration_over_a_native_node(void **state)
{
    (void)state;
    outcome o;
    run(0x0C8, 0, 0x123, 8, RTCOSIM_SCHEDULER_SEQUENTIAL, &o);
    assert_int_equal(o.log_count, 4);
    expect_frame(&o.log[0], 0x0C8, 1000 * US, 1100 * US);
    expect_frame(&o.log[1], 0x123, 1100 * US, 1324 * US);
    expect_frame(&o.log[2], 0x0C8, 2000 * US, 2100 * US);
    expect_frame(&o.log[3], 0x123, 2100 * US, 2324 * US);
    assert_int_equal(o.fmu_rx, 2);
    assert_int_equal(o.fmu_last_id, 0x123);
    assert_true(fabs(o.fmu_last_time - 0.002324) < 1e-12);
    assert_int_equal(o.nat.received, 2);
    assert_int_equal(o.nat.last_rx, 2100 * US);
    assert_int_equal(o.fmu_confirms, 2); /* its 0x0C8 ends at 1100 and 2100 us */
    assert_true(fabs(o.fmu_last_confirm - 0.0021) < 1e-12);
}

/* Two threads of the conservative scheduler (the FMU's LP bounded by the
 * bus's lookahead): the same frames. */
static void the_conservative_scheduler_gives_the_same_frames(void **state)
{
    (void)state;
    outcome a, b;
    run(0x123, 8, 0x0C8, 0, RTCOSIM_SCHEDULER_SEQUENTIAL, &a);
    run(0x123, 8, 0x0C8, 0, RTCOSIM_SCHEDULER_CONSERVATIVE, &b);
    assert_int_equal(a.log_count, b.log_count);
    for (size_t i = 0; i < a.log_count; i++)
        expect_frame(&b.log[i], a.log[i].frame.id, a.log[i].start, a.log[i].end);
    assert_int_equal(b.fmu_rx, 2);
    assert_int_equal(b.fmu_confirms, 2);
    assert_true(b.fmu_last_confirm == a.fmu_last_confirm);
}

/* Error injection, every 2nd frame started, CRC error (the first receiver
 * detects it). Native 0x0C8 (node 0, 100 us), FMU 0x123 (node 1, 224 us):
 *   #1 0x0C8 1000-1100 delivered;      #2 0x123 1100-1324 corrupted (the FMU
 *   gets a Bus Error as sender, the native node detects it), retransmitted:
 *   #3 0x123 1324-1548 delivered, confirmed;
 *   #4 0x0C8 2000-2100 corrupted (the FMU, first receiver, detects it), it
 *   contends again with 0x123 queued since 2000 and wins:
 *   #5 0x0C8 2100-2200 delivered;      #6 0x123 2200-2424 corrupted;
 *   #7 0x123 2424-2648 (ends after the 2500 us stop; logged at its start).
 * Corrupted frames are not logged nor received: the FMU gets 0x0C8 at 1100
 * and 2200 us, one Confirm (1548 us) and three Bus Errors (1324, 2100,
 * 2424 us); the native node 0x123 once (1548 us). */
static void injected_errors_reach_the_fmu_as_bus_errors_and_are_retransmitted(void **state)
{
    (void)state;
    outcome o;
    run_with_errors(0x123, 8, 0x0C8, 0, RTCOSIM_SCHEDULER_SEQUENTIAL, 2, &o);
    assert_int_equal(o.log_count, 4);
    expect_frame(&o.log[0], 0x0C8, 1000 * US, 1100 * US);
    expect_frame(&o.log[1], 0x123, 1324 * US, 1548 * US);
    expect_frame(&o.log[2], 0x0C8, 2100 * US, 2200 * US);
    expect_frame(&o.log[3], 0x123, 2424 * US, 2648 * US);
    assert_int_equal(o.bus_errors, 3);
    assert_int_equal(o.fmu_bus_errors, 3);
    assert_int_equal(o.node_bus_errors, 3);
    assert_int_equal(o.fmu_rx, 2);
    assert_true(fabs(o.fmu_last_time - 0.0022) < 1e-12);
    assert_int_equal(o.fmu_confirms, 1);
    assert_true(fabs(o.fmu_last_confirm - 0.001548) < 1e-12);
    assert_int_equal(o.nat.received, 1);
    assert_int_equal(o.nat.last_rx, 1548 * US);
    /* the native node heard of each error, the latest the FMU's 0x123 at
     * 2424 us: sender node 1, detected by node 0 (the first receiver) */
    assert_int_equal(o.nat.bus_errors, 3);
    assert_int_equal(o.nat.last_error_time, 2424 * US);
    assert_int_equal(o.nat.last_error.frame.id, 0x123);
    assert_int_equal(o.nat.last_error.sender, 1);
    assert_int_equal(o.nat.last_error.detector, 0);
    assert_int_equal(o.nat.last_error.code, RTCOSIM_CAN_ERROR_CRC);
    /* the conservative scheduler: the same */
    outcome c;
    run_with_errors(0x123, 8, 0x0C8, 0, RTCOSIM_SCHEDULER_CONSERVATIVE, 2, &c);
    assert_int_equal(c.log_count, 4);
    for (size_t i = 0; i < 4; i++)
        expect_frame(&c.log[i], o.log[i].frame.id, o.log[i].start, o.log[i].end);
    assert_int_equal(c.fmu_bus_errors, 3);
}

/* The same node in scheduled execution (LsBusNode-fmi3se: its 1 ms transmit
 * task and its receive partition on Rx_Clock) as an LP: its task composes
 * the Configuration at 0 and a frame at 1 and 2 ms, so the frames, the
 * receptions and Confirms are those of the Event Mode node above; the
 * partitions ran at the frames' ends (last_rx_time, last_confirm_time). */
static void a_scheduled_execution_fmu_is_a_node_too(void **state)
{
    (void)state;
    outcome o;
    run_node(0x123, 8, 0x0C8, 0, RTCOSIM_SCHEDULER_SEQUENTIAL, 0, true, &o);
    assert_int_equal(o.log_count, 4);
    expect_frame(&o.log[0], 0x0C8, 1000 * US, 1100 * US);
    expect_frame(&o.log[1], 0x123, 1100 * US, 1324 * US);
    expect_frame(&o.log[2], 0x0C8, 2000 * US, 2100 * US);
    expect_frame(&o.log[3], 0x123, 2100 * US, 2324 * US);
    assert_int_equal(o.fmu_tx, 2);
    assert_int_equal(o.fmu_rx, 2);
    assert_true(fabs(o.fmu_last_time - 0.0021) < 1e-12);
    assert_int_equal(o.fmu_confirms, 2);
    assert_true(fabs(o.fmu_last_confirm - 0.002324) < 1e-12);
    assert_int_equal(o.nat.received, 2);
    /* and the conservative scheduler on two threads alike */
    outcome c;
    run_node(0x123, 8, 0x0C8, 0, RTCOSIM_SCHEDULER_CONSERVATIVE, 0, true, &c);
    assert_int_equal(c.log_count, 4);
    for (size_t i = 0; i < 4; i++)
        expect_frame(&c.log[i], o.log[i].frame.id, o.log[i].start, o.log[i].end);
    assert_int_equal(c.fmu_confirms, 2);
}

/* A node configuring another rate than the bus's is refused, naming it. */
static void a_node_configuring_another_rate_is_an_error(void **state)
{
    (void)state;
    rtcosim_error err;
    rtcosim_events *sim = NULL;
    rtcosim_can_bus *bus = NULL;
    rtcosim_lsbus_event_node *fmu = NULL;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    rtcosim_can_bus_config bc = {.name = "can0", .bitrate = 500000};
    assert_int_equal(rtcosim_can_bus_create(sim, &bc, &bus, &err), RTCOSIM_OK);
    const char *names[] = {"bitrate"}, *texts[] = {"250000"};
    uint32_t id = 0x123;
    uint8_t dlc = 0;
    rtcosim_lsbus_event_node_config nc = {
        .name = "fmu", .fmu_path = RTCOSIM_FMU_LSBUSNODE_FMI3, .start_names = names,
        .start_texts = texts, .start_count = 1, .tx_ids = &id, .tx_dlcs = &dlc, .tx_count = 1,
        .stop = RTCOSIM_NS_PER_MS};
    assert_int_equal(rtcosim_lsbus_event_node_create(sim, bus, &nc, &fmu, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_can_bus_connect(bus, &err), RTCOSIM_OK);
    rtcosim_run_options ro = {.stop_time = RTCOSIM_NS_PER_MS};
    assert_int_equal(rtcosim_events_run(sim, &ro, NULL, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "lsbus node 'fmu': configures CAN_BAUDRATE 250000 bit/s, "
                                        "but bus 'can0' runs at 500000 bit/s"));
    rtcosim_lsbus_event_node_free(fmu);
    rtcosim_can_bus_free(bus);
    rtcosim_events_free(sim);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_native_node_wins_arbitration_over_the_fmu),
        cmocka_unit_test(the_fmu_wins_arbitration_over_a_native_node),
        cmocka_unit_test(the_conservative_scheduler_gives_the_same_frames),
        cmocka_unit_test(a_node_configuring_another_rate_is_an_error),
        cmocka_unit_test(injected_errors_reach_the_fmu_as_bus_errors_and_are_retransmitted),
        cmocka_unit_test(a_scheduled_execution_fmu_is_a_node_too),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
