/* CAN FD on the event kernel's bus with LS-BUS node FMUs (models/lsbus_node,
 * LsBusNodeLarge: buffers for the largest op): an FD node beside a native
 * classic node, and a second FMU that receives the FD frames with their
 * bytes. Worked out by hand (ISO 11898-1:2015; an independent stuffing
 * script outside the repository agreed): the native 0x0C8 without data is
 * 50 bits, 100 us at 500 kbit/s (tests/lsbus/test_event_node.c); the FMU's
 * CAN FD 0x123 with 16 bytes 11 22 .. 88 11 22 .. 88 and BRS: SOF..BRS 17
 * bits without stuff bits + 13 = 30 nominal bits; ESI, DLC 1010, 128 data
 * bits with one stuff bit (the first 0x88's last three 0s and the second
 * 0x11's first two), CRC field 4 + 17 + 6 = 27: 161 data bits; 30 x 2 us +
 * 161 x 0.5 us = 140.5 us at 500 kbit/s and 2 Mbit/s. Both request at 1 ms
 * and 2 ms; 0x0C8 wins, the FD frame starts at its end: 1.100 .. 1.2405 and
 * 2.100 .. 2.2405 ms. The data sum the receiver reports: 2 x (0x11 + ... +
 * 0x88) = 2 x 612 = 1224. */
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

typedef struct fmu_values {
    int32_t tx, rx, confirms, last_id, last_length, last_sum, last_code;
    double last_rx_time, last_confirm;
} fmu_values;

static void read_fmu(rtcosim_lsbus_event_node *node, fmu_values *v)
{
    rtcosim_error err;
    rtcosim_component *c = rtcosim_lsbus_event_node_component(node);
    const uint32_t ints[7] = {6, 7, 8, 12, 23, 24, 25};
    int32_t iv[7];
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_INT32, ints, 7, iv, &err), RTCOSIM_OK);
    *v = (fmu_values){iv[0], iv[1], iv[2], iv[3], iv[4], iv[5], iv[6], 0, 0};
    const uint32_t reals[2] = {13, 14};
    double rv[2];
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, reals, 2, rv, &err),
                     RTCOSIM_OK);
    v->last_rx_time = rv[0];
    v->last_confirm = rv[1];
}

/* The FD node sends 0x123 with `length` bytes; the receiver is `rx_fmu`.
 * Returns the run's status (err filled). */
static rtcosim_status run_fd(rtcosim_scheduler scheduler, unsigned length, const char *rx_fmu,
                             rtcosim_can_log_entry *log, size_t *log_count, native_node *nat,
                             fmu_values *fd, fmu_values *rx, rtcosim_error *err)
{
    rtcosim_events *sim = NULL;
    rtcosim_can_bus *bus = NULL;
    rtcosim_lsbus_event_node *fd_node = NULL, *rx_node = NULL;
    assert_int_equal(rtcosim_events_create(&sim, err), RTCOSIM_OK);
    rtcosim_can_bus_config bc = {.name = "can0", .bitrate = 500000, .fd_bitrate = 2000000,
                                 .log_frames = true};
    assert_int_equal(rtcosim_can_bus_create(sim, &bc, &bus, err), RTCOSIM_OK);
    native_node_add(sim, bus, nat, 0x0C8, 0, 0x123);
    char len_text[8];
    snprintf(len_text, sizeof len_text, "%u", length);
    const char *names[] = {"can_id", "data_length", "format", "brs", "fd_bitrate", "offset",
                           "period"};
    const char *texts[] = {"291", len_text, "1", "1", "2000000", "0.001", "0.001"};
    uint32_t tx_id = 0x123;
    uint8_t tx_dlc = 0, tx_format = RTCOSIM_CAN_FORMAT_FD;
    uint16_t tx_length = (uint16_t)length;
    rtcosim_lsbus_event_node_config nc = {
        .name = "fd", .fmu_path = RTCOSIM_FMU_LSBUSNODELARGE_FMI3, .start_names = names,
        .start_texts = texts, .start_count = 7, .tx_ids = &tx_id, .tx_dlcs = &tx_dlc,
        .tx_formats = &tx_format, .tx_lengths = &tx_length, .tx_count = 1, .start = 0,
        .stop = 2500 * US};
    if (rtcosim_lsbus_event_node_create(sim, bus, &nc, &fd_node, err) != RTCOSIM_OK)
        fail_msg("%s", err->message);
    const char *rx_names[] = {"offset"};
    const char *rx_texts[] = {"1"}; /* sends nothing before the stop time */
    rtcosim_lsbus_event_node_config rc = {
        .name = "rx", .fmu_path = rx_fmu, .start_names = rx_names, .start_texts = rx_texts,
        .start_count = 1, .start = 0, .stop = 2500 * US};
    if (rtcosim_lsbus_event_node_create(sim, bus, &rc, &rx_node, err) != RTCOSIM_OK)
        fail_msg("%s", err->message);
    assert_int_equal(rtcosim_can_bus_connect(bus, err), RTCOSIM_OK);
    rtcosim_run_options ro = {.scheduler = scheduler, .threads = 2, .stop_time = 2500 * US};
    rtcosim_status st = rtcosim_events_run(sim, &ro, NULL, err);
    if (st == RTCOSIM_OK) {
        *log_count = rtcosim_can_bus_log_count(bus);
        assert_true(*log_count <= 8);
        memcpy(log, rtcosim_can_bus_log(bus), *log_count * sizeof *log);
        read_fmu(fd_node, fd);
        read_fmu(rx_node, rx);
        /* the log's bytes live in the bus: check them before it goes */
        for (size_t i = 0; i < *log_count; i++)
            for (unsigned b = 0; log[i].format == RTCOSIM_CAN_FORMAT_FD && b < length; b++)
                assert_int_equal(log[i].data[b], 0x11 * (b % 8 + 1));
    }
    rtcosim_lsbus_event_node_free(fd_node);
    rtcosim_lsbus_event_node_free(rx_node);
    rtcosim_can_bus_free(bus);
    rtcosim_events_free(sim);
    return st;
}

static void check_frame(const rtcosim_can_log_entry *e, uint32_t id, uint8_t format,
                        rtcosim_time_ns start, rtcosim_time_ns end)
{
    expect_frame(e, id, start, end);
    assert_int_equal(e->format, format);
}

static void an_fd_node_beside_a_native_node(rtcosim_scheduler scheduler)
{
    rtcosim_can_log_entry log[8];
    size_t n = 0;
    native_node nat;
    fmu_values fd, rx;
    rtcosim_error err;
    if (run_fd(scheduler, 16, RTCOSIM_FMU_LSBUSNODELARGE_FMI3, log, &n, &nat, &fd, &rx, &err) !=
        RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(n, 4);
    check_frame(&log[0], 0x0C8, RTCOSIM_CAN_FORMAT_CLASSIC, 1000 * US, 1100 * US);
    check_frame(&log[1], 0x123, RTCOSIM_CAN_FORMAT_FD, 1100 * US, 1100 * US + 140500);
    check_frame(&log[2], 0x0C8, RTCOSIM_CAN_FORMAT_CLASSIC, 2000 * US, 2100 * US);
    check_frame(&log[3], 0x123, RTCOSIM_CAN_FORMAT_FD, 2100 * US, 2100 * US + 140500);
    assert_int_equal(log[1].flags, RTCOSIM_CAN_FD_BRS);
    assert_int_equal(log[1].length, 16);
    /* the FD node: its two frames confirmed at their ends, the native
     * node's frames received */
    assert_int_equal(fd.tx, 2);
    assert_int_equal(fd.confirms, 2);
    assert_true(fabs(fd.last_confirm - 2.2405e-3) < 1e-12);
    assert_int_equal(fd.rx, 2);
    assert_int_equal(fd.last_id, 0x0C8);
    /* the other FMU: all four frames, the latest a CAN FD Transmit with its
     * 16 bytes */
    assert_int_equal(rx.rx, 4);
    assert_int_equal(rx.last_id, 0x123);
    assert_int_equal(rx.last_code, 0x11);
    assert_int_equal(rx.last_length, 16);
    assert_int_equal(rx.last_sum, 1224);
    assert_true(fabs(rx.last_rx_time - 2.2405e-3) < 1e-12);
    /* the native node is a classic controller: it ignores the FD frames of
     * the id in its receive database */
    assert_int_equal(nat.received, 0);
}

static void an_fd_node_beside_a_native_node_sequential(void **state)
{
    (void)state;
    an_fd_node_beside_a_native_node(RTCOSIM_SCHEDULER_SEQUENTIAL);
}

static void an_fd_node_beside_a_native_node_on_two_threads(void **state)
{
    (void)state;
    an_fd_node_beside_a_native_node(RTCOSIM_SCHEDULER_CONSERVATIVE);
}

static void an_fd_node_beside_a_native_node_under_speculation(void **state)
{
    (void)state;
    an_fd_node_beside_a_native_node(RTCOSIM_SCHEDULER_SPECULATIVE);
}

/* LsBusNode's Rx_Data holds 48 bytes: a CAN FD Transmit of 64 bytes is 81,
 * refused in one line naming the node. */
static void a_receiver_too_small_for_the_frame_is_an_error(void **state)
{
    (void)state;
    rtcosim_can_log_entry log[8];
    size_t n = 0;
    native_node nat;
    fmu_values fd, rx;
    rtcosim_error err;
    assert_int_not_equal(run_fd(RTCOSIM_SCHEDULER_SEQUENTIAL, 64, RTCOSIM_FMU_LSBUSNODE_FMI3,
                                log, &n, &nat, &fd, &rx, &err),
                         RTCOSIM_OK);
    assert_non_null(strstr(err.message, "lsbus node 'rx'"));
    assert_non_null(strstr(err.message, "81 bytes is longer than its maxSize 48"));
    assert_null(strchr(err.message, '\n'));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(an_fd_node_beside_a_native_node_sequential),
        cmocka_unit_test(an_fd_node_beside_a_native_node_on_two_threads),
        cmocka_unit_test(an_fd_node_beside_a_native_node_under_speculation),
        cmocka_unit_test(a_receiver_too_small_for_the_frame_is_an_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
