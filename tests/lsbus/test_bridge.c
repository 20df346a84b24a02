/* The integrated bus simulation: frame end times at the bit rate with stuff
 * bits counted by hand, arbitration winners, confirmations, arbitration lost
 * under both behaviours, bus error flags, configuration ordering, wake-up,
 * unknown and malformed operations. Rx contents are compared with byte dumps
 * written from the LS-BUS 1.0 tables (section 5.5.1.2).
 *
 * Frame lengths used (ISO 11898-1; the first worked bit by bit below, the
 * others from the bit-level reference of tests/can/test_can.c):
 * - 0x0C8, standard, no data: SOF+ID "0 00011001000", RTR/IDE/r0 "000",
 *   DLC "0000", CRC-15 0x2EF8 "010111011111000". Runs of five: the ten zeros
 *   from the ID's last three bits through the DLC give two stuff bits, the
 *   five ones in the CRC one more: 34 + 3 stuff + 13 (CRC delimiter, ACK,
 *   EOF, intermission) = 50 bits = 100 us at 500 kbit/s, 200 us at 250k.
 * - 0x123, standard, 11 22 33 44 55 66 77 88: 112 bits = 224 us at 500k.
 * - 0x18FEF100, extended, 01..08: 143 bits = 286 us at 500k. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/can_log.h"
#include "rtcosim/lsbus.h"
#include "bridge_tx.h"
#include "util/test_util.h"

#define US INT64_C(1000)

static const uint8_t d8[8] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88};
static const uint8_t d8b[8] = {1, 2, 3, 4, 5, 6, 7, 8};

static void add_frame(tx_buf *tx, uint32_t id, bool ext, const uint8_t *data, uint16_t n)
{
    rtcosim_lsbus_op op = {.code = RTCOSIM_LSBUS_OP_CAN_TRANSMIT};
    op.u.transmit = (rtcosim_lsbus_can_transmit){.id = id, .ide = ext, .data_length = n,
                                                 .data = data};
    tx_add(tx, &op);
}

static void add_config(tx_buf *tx, uint8_t kind, uint32_t value)
{
    rtcosim_lsbus_op op = {.code = RTCOSIM_LSBUS_OP_CAN_CONFIGURATION};
    op.u.configuration.kind = kind;
    if (kind == RTCOSIM_LSBUS_CAN_CONFIG_ARBITRATION_LOST_BEHAVIOR)
        op.u.configuration.arbitration_lost_behavior = (uint8_t)value;
    else
        op.u.configuration.baudrate = value;
    tx_add(tx, &op);
}

static void add_simple(tx_buf *tx, uint32_t code, uint8_t status)
{
    rtcosim_lsbus_op op = {.code = code};
    op.u.status = status;
    tx_add(tx, &op);
}

static rtcosim_lsbus_can_bridge *bridge(uint32_t nodes, bool notifications)
{
    rtcosim_lsbus_can_bridge_config cfg = {.name = "can0", .node_count = nodes,
                                           .bus_notifications = notifications};
    rtcosim_lsbus_can_bridge *b = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_lsbus_can_bridge_create(&cfg, &b, &err), RTCOSIM_OK);
    return b;
}

static void expect_rx(rtcosim_lsbus_can_bridge *b, uint32_t node, const uint8_t *bytes, size_t n)
{
    size_t size;
    const uint8_t *rx = rtcosim_lsbus_can_bridge_take_rx(b, node, &size);
    if (size != n)
        fail_msg("node %u Rx holds %zu bytes, expected %zu", node, size, n);
    if (n)
        assert_memory_equal(rx, bytes, n);
}

static void expect_no_rx(rtcosim_lsbus_can_bridge *b, uint32_t nodes)
{
    for (uint32_t i = 0; i < nodes; i++)
        expect_rx(b, i, NULL, 0);
}

/* Hand dumps of what the bus hands out. */
static const uint8_t rx_tx_0c8[] = {0x10, 0, 0, 0, 0x10, 0, 0, 0, 0xC8, 0, 0, 0, 0, 0, 0, 0};
static const uint8_t rx_confirm_0c8[] = {0x20, 0, 0, 0, 0x0C, 0, 0, 0, 0xC8, 0, 0, 0};
static const uint8_t rx_tx_123[] = {0x10, 0, 0, 0, 0x18, 0, 0, 0, 0x23, 0x01, 0, 0, 0, 0, 0x08,
                                    0, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88};
static const uint8_t rx_confirm_123[] = {0x20, 0, 0, 0, 0x0C, 0, 0, 0, 0x23, 0x01, 0, 0};
static const uint8_t rx_arb_lost_123[] = {0x30, 0, 0, 0, 0x0C, 0, 0, 0, 0x23, 0x01, 0, 0};

static void a_frame_ends_after_its_stuffed_bits_at_the_configured_rate(void **state)
{
    (void)state;
    rtcosim_lsbus_can_bridge *b = bridge(2, true);
    tx_buf tx = {0};
    add_config(&tx, RTCOSIM_LSBUS_CAN_CONFIG_CAN_BAUDRATE, 250000);
    add_frame(&tx, 0x0C8, false, NULL, 0);
    bridge_push(b, 0, 1000 * US, &tx);
    assert_int_equal(rtcosim_lsbus_can_bridge_bitrate(b), 250000);
    assert_int_equal(rtcosim_lsbus_can_bridge_next_event(b), 1000 * US);
    bridge_advance(b, 1000 * US);
    expect_no_rx(b, 2);
    assert_int_equal(rtcosim_lsbus_can_bridge_next_event(b), 1200 * US);
    bridge_advance(b, 1199 * US);
    expect_no_rx(b, 2);
    bridge_advance(b, 1200 * US);
    expect_rx(b, 1, rx_tx_0c8, sizeof rx_tx_0c8);
    expect_rx(b, 0, rx_confirm_0c8, sizeof rx_confirm_0c8);
    assert_int_equal(rtcosim_lsbus_can_bridge_next_event(b), RTCOSIM_TIME_MAX);
    rtcosim_lsbus_can_bridge_stats st;
    rtcosim_lsbus_can_bridge_stats_get(b, &st);
    assert_int_equal(st.frames, 1);
    assert_int_equal(st.confirms, 1);
    assert_int_equal(st.busy_ns, 200 * US);
    rtcosim_lsbus_can_bridge_free(b);
}

static void lowest_identifier_wins_and_the_others_follow_buffered(void **state)
{
    (void)state;
    rtcosim_lsbus_can_bridge *b = bridge(3, true);
    tx_buf t0 = {0}, t1 = {0}, t2 = {0};
    add_frame(&t0, 0x123, false, d8, 8);
    add_frame(&t1, 0x0C8, false, NULL, 0);
    add_frame(&t2, 0x18FEF100, true, d8b, 8);
    bridge_push(b, 0, 0, &t0);
    bridge_push(b, 2, 0, &t2);
    bridge_push(b, 1, 0, &t1);
    bridge_advance(b, 0);
    expect_no_rx(b, 3); /* buffer and retransmit: no Arbitration Lost */
    /* 0x0C8: 0 .. 100 us */
    assert_int_equal(rtcosim_lsbus_can_bridge_next_event(b), 100 * US);
    bridge_advance(b, 100 * US);
    expect_rx(b, 0, rx_tx_0c8, sizeof rx_tx_0c8);
    expect_rx(b, 1, rx_confirm_0c8, sizeof rx_confirm_0c8);
    expect_rx(b, 2, rx_tx_0c8, sizeof rx_tx_0c8);
    /* 0x123: 100 .. 324 us */
    assert_int_equal(rtcosim_lsbus_can_bridge_next_event(b), 324 * US);
    bridge_advance(b, 324 * US);
    expect_rx(b, 0, rx_confirm_123, sizeof rx_confirm_123);
    expect_rx(b, 1, rx_tx_123, sizeof rx_tx_123);
    expect_rx(b, 2, rx_tx_123, sizeof rx_tx_123);
    /* extended 0x18FEF100: 324 .. 610 us */
    assert_int_equal(rtcosim_lsbus_can_bridge_next_event(b), 610 * US);
    bridge_advance(b, 610 * US);
    size_t n;
    const uint8_t *rx = rtcosim_lsbus_can_bridge_take_rx(b, 1, &n);
    assert_int_equal(n, 24);
    assert_int_equal(rx[0], 0x10);
    assert_memory_equal(rx + 8, ((const uint8_t[]){0x00, 0xF1, 0xFE, 0x18, 0x01}), 5);
    rtcosim_lsbus_can_bridge_free(b);
}

static void a_standard_frame_beats_an_extended_one_of_the_same_base_id(void **state)
{
    (void)state;
    rtcosim_lsbus_can_bridge *b = bridge(2, true);
    tx_buf t0 = {0}, t1 = {0};
    add_frame(&t0, 0x123u << 18, true, NULL, 0); /* base id 0x123, extension 0 */
    add_frame(&t1, 0x123, false, d8, 8);
    bridge_push(b, 0, 0, &t0);
    bridge_push(b, 1, 0, &t1);
    bridge_advance(b, 0);
    bridge_advance(b, 224 * US);
    expect_rx(b, 0, rx_tx_123, sizeof rx_tx_123);
    expect_rx(b, 1, rx_confirm_123, sizeof rx_confirm_123);
    rtcosim_lsbus_can_bridge_free(b);
}

static void the_frame_log_is_written_as_candump_and_asc(void **state)
{
    (void)state;
    rtcosim_lsbus_can_bridge_config cfg = {.name = "can0", .node_count = 3, .log_frames = true};
    rtcosim_lsbus_can_bridge *b = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_lsbus_can_bridge_create(&cfg, &b, &err), RTCOSIM_OK);
    tx_buf t0 = {0}, t1 = {0}, t2 = {0};
    add_frame(&t0, 0x123, false, d8, 8);
    add_frame(&t1, 0x0C8, false, NULL, 0);
    add_frame(&t2, 0x18FEF100, true, d8b, 8);
    bridge_push(b, 0, 0, &t0);
    bridge_push(b, 1, 0, &t1);
    bridge_push(b, 2, 0, &t2);
    bridge_advance(b, 610 * US);
    assert_int_equal(rtcosim_lsbus_can_bridge_log_count(b), 3);
    char *dir = tu_make_dir();
    char path[512];
    snprintf(path, sizeof path, "%s/bus.log", dir);
    assert_int_equal(rtcosim_lsbus_can_bridge_write_log(b, path, &err), RTCOSIM_OK);
    /* end-of-frame times as worked out above */
    assert_string_equal(tu_read_file(path, NULL),
                        "(0000000000.000100) can0 0C8#\n"
                        "(0000000000.000324) can0 123#1122334455667788\n"
                        "(0000000000.000610) can0 18FEF100#0102030405060708\n");
    snprintf(path, sizeof path, "%s/bus.asc", dir);
    assert_int_equal(rtcosim_lsbus_can_bridge_write_log(b, path, &err), RTCOSIM_OK);
    rtcosim_can_log *log = NULL;
    assert_int_equal(rtcosim_can_log_read(path, &log, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_can_log_count(log), 3);
    const rtcosim_can_log_record *r = rtcosim_can_log_records(log);
    assert_int_equal(r[2].time, 610 * US);
    assert_int_equal(r[2].id, 0x18FEF100);
    assert_true(r[2].extended);
    rtcosim_can_log_free(log);
    tu_drop_dir(dir);
    rtcosim_lsbus_can_bridge_free(b);
}

/* A log of fixed capacity (a paced run's): the first frames by end time,
 * the rest counted, nothing allocated after create. */
static void a_fixed_log_keeps_its_first_frames_and_counts_the_rest(void **state)
{
    (void)state;
    rtcosim_lsbus_can_bridge_config cfg = {.name = "can0", .node_count = 3, .log_frames = true,
                                           .log_capacity = 2};
    rtcosim_lsbus_can_bridge *b = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_lsbus_can_bridge_create(&cfg, &b, &err), RTCOSIM_OK);
    tx_buf t0 = {0}, t1 = {0}, t2 = {0};
    add_frame(&t0, 0x123, false, d8, 8);
    add_frame(&t1, 0x0C8, false, NULL, 0);
    add_frame(&t2, 0x18FEF100, true, d8b, 8);
    bridge_push(b, 0, 0, &t0);
    bridge_push(b, 1, 0, &t1);
    bridge_push(b, 2, 0, &t2);
    bridge_advance(b, 610 * US);
    assert_int_equal(rtcosim_lsbus_can_bridge_log_count(b), 2);
    const rtcosim_can_log_entry *log = rtcosim_lsbus_can_bridge_log(b);
    assert_int_equal(log[0].end, 100 * US); /* 0x0C8 and 0x123 as worked out above */
    assert_int_equal(log[1].end, 324 * US);
    assert_int_equal(log[1].frame.id, 0x123);
    rtcosim_lsbus_can_bridge_stats st;
    rtcosim_lsbus_can_bridge_stats_get(b, &st);
    assert_int_equal(st.frames, 3);
    assert_int_equal(st.log_dropped, 1);
    rtcosim_lsbus_can_bridge_free(b);
}

/* CAN FD Transmit of id 0x0C8, BRS, 12 bytes 0x55: 31 nominal and 128
 * data-phase bits (tests/can/test_can_fd.c works them out). */
static const uint8_t rx_fd_0c8[] = {0x11, 0, 0, 0, 0x1D, 0, 0, 0, 0xC8, 0, 0, 0, 0x00, 0x01, 0x00,
                                    0x0C, 0x00, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55,
                                    0x55, 0x55, 0x55, 0x55};

static void a_can_fd_frame_switches_to_the_configured_data_rate(void **state)
{
    (void)state;
    rtcosim_lsbus_can_bridge *b = bridge(2, true);
    uint8_t d[12];
    memset(d, 0x55, sizeof d);
    tx_buf t = {0};
    rtcosim_lsbus_op fd = {.code = RTCOSIM_LSBUS_OP_CANFD_TRANSMIT};
    fd.u.transmit = (rtcosim_lsbus_can_transmit){.id = 0x0C8, .brs = 1, .data_length = 12,
                                                 .data = d};
    tx_add(&t, &fd);
    /* default rates 500 kbit/s and 2 Mbit/s: 31 * 2000 + 128 * 500 ns = 126 us */
    bridge_push(b, 0, 0, &t);
    bridge_advance(b, 0);
    assert_int_equal(rtcosim_lsbus_can_bridge_next_event(b), 126 * US);
    bridge_advance(b, 126 * US);
    expect_rx(b, 1, rx_fd_0c8, sizeof rx_fd_0c8);
    expect_rx(b, 0, rx_confirm_0c8, sizeof rx_confirm_0c8);
    /* the node configures 5 Mbit/s: 31 * 2000 + 128 * 200 ns = 87.6 us */
    tx_buf c = {0};
    add_config(&c, RTCOSIM_LSBUS_CAN_CONFIG_CANFD_BAUDRATE, 5000000);
    bridge_push(b, 0, 1000 * US, &c);
    bridge_push(b, 0, 1000 * US, &t);
    bridge_advance(b, 1000 * US);
    assert_int_equal(rtcosim_lsbus_can_bridge_next_event(b), 1000 * US + 87600);
    /* and a classic frame of a lower id wins against it */
    tx_buf t1 = {0};
    add_frame(&t1, 0x0C7, false, NULL, 0);
    bridge_push(b, 0, 2000 * US, &t);
    bridge_push(b, 1, 2000 * US, &t1);
    bridge_advance(b, 2000 * US);
    rtcosim_lsbus_can_bridge_take_rx(b, 0, &(size_t){0});
    rtcosim_lsbus_can_bridge_take_rx(b, 1, &(size_t){0});
    rtcosim_time_ns classic_end = rtcosim_lsbus_can_bridge_next_event(b);
    bridge_advance(b, classic_end);
    size_t n;
    const uint8_t *rx = rtcosim_lsbus_can_bridge_take_rx(b, 0, &n);
    assert_int_equal(n, 16);
    assert_int_equal(rx[0], 0x10); /* the classic frame reached node 0 first */
    assert_int_equal(rtcosim_lsbus_can_bridge_next_event(b), classic_end + 87600);
    /* nodes that disagree on the data rate cannot share the bus */
    tx_buf c2 = {0};
    add_config(&c2, RTCOSIM_LSBUS_CAN_CONFIG_CANFD_BAUDRATE, 2000000);
    rtcosim_error err;
    assert_int_equal(rtcosim_lsbus_can_bridge_push(b, 1, classic_end, c2.bytes, c2.used, &err),
                     RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "node 1 configures CANFD_BAUDRATE 2000000 bit/s but node 0"
                                        " configured 5000000 bit/s"));
    rtcosim_lsbus_can_bridge_free(b);
}

static void a_data_frame_beats_the_remote_frame_of_its_identifier(void **state)
{
    (void)state;
    rtcosim_lsbus_can_bridge *b = bridge(2, true);
    tx_buf t0 = {0}, t1 = {0};
    rtcosim_lsbus_op remote = {.code = RTCOSIM_LSBUS_OP_CAN_TRANSMIT};
    remote.u.transmit = (rtcosim_lsbus_can_transmit){.id = 0x0C8, .rtr = 1};
    tx_add(&t0, &remote);
    add_frame(&t1, 0x0C8, false, NULL, 0);
    bridge_push(b, 0, 0, &t0);
    bridge_push(b, 1, 0, &t1);
    bridge_advance(b, 100 * US);
    expect_rx(b, 0, rx_tx_0c8, sizeof rx_tx_0c8);
    expect_rx(b, 1, rx_confirm_0c8, sizeof rx_confirm_0c8);
    rtcosim_lsbus_can_bridge_free(b);
}

static void discard_and_notify_sends_arbitration_lost_at_the_arbitration(void **state)
{
    (void)state;
    rtcosim_lsbus_can_bridge *b = bridge(2, true);
    tx_buf t0 = {0}, t1 = {0};
    add_config(&t0, RTCOSIM_LSBUS_CAN_CONFIG_ARBITRATION_LOST_BEHAVIOR,
               RTCOSIM_LSBUS_CAN_DISCARD_AND_NOTIFY);
    add_frame(&t0, 0x123, false, d8, 8);
    add_frame(&t1, 0x0C8, false, NULL, 0);
    bridge_push(b, 0, 50 * US, &t0);
    bridge_push(b, 1, 50 * US, &t1);
    bridge_advance(b, 50 * US);
    expect_rx(b, 0, rx_arb_lost_123, sizeof rx_arb_lost_123);
    expect_rx(b, 1, NULL, 0);
    bridge_advance(b, 150 * US);
    expect_rx(b, 0, rx_tx_0c8, sizeof rx_tx_0c8);
    expect_rx(b, 1, rx_confirm_0c8, sizeof rx_confirm_0c8);
    /* discarded: nothing more on the bus */
    assert_int_equal(rtcosim_lsbus_can_bridge_next_event(b), RTCOSIM_TIME_MAX);
    rtcosim_lsbus_can_bridge_stats st;
    rtcosim_lsbus_can_bridge_stats_get(b, &st);
    assert_int_equal(st.arbitration_lost, 1);
    rtcosim_lsbus_can_bridge_free(b);
}

static void without_bus_notifications_nothing_but_frames_comes_back(void **state)
{
    (void)state;
    rtcosim_lsbus_can_bridge_config cfg = {.node_count = 2,
                                           .default_arbitration_lost_behavior =
                                               RTCOSIM_LSBUS_CAN_DISCARD_AND_NOTIFY};
    rtcosim_lsbus_can_bridge *b = NULL;
    assert_int_equal(rtcosim_lsbus_can_bridge_create(&cfg, &b, NULL), RTCOSIM_OK);
    tx_buf t0 = {0}, t1 = {0};
    add_frame(&t0, 0x123, false, d8, 8);
    add_frame(&t1, 0x0C8, false, NULL, 0);
    bridge_push(b, 0, 0, &t0);
    bridge_push(b, 1, 0, &t1);
    bridge_advance(b, 0);
    expect_no_rx(b, 2);
    bridge_advance(b, 100 * US);
    expect_rx(b, 0, rx_tx_0c8, sizeof rx_tx_0c8);
    expect_rx(b, 1, NULL, 0);
    rtcosim_lsbus_can_bridge_stats st;
    rtcosim_lsbus_can_bridge_stats_get(b, &st);
    assert_int_equal(st.arbitration_lost, 1);
    assert_int_equal(st.confirms, 0);
    rtcosim_lsbus_can_bridge_free(b);
}

static void configuration_at_the_same_instant_reaches_the_bus_before_the_frame(void **state)
{
    (void)state;
    rtcosim_lsbus_can_bridge *b = bridge(2, false);
    tx_buf t0 = {0}, t1 = {0};
    add_frame(&t0, 0x0C8, false, NULL, 0);
    add_config(&t1, RTCOSIM_LSBUS_CAN_CONFIG_CAN_BAUDRATE, 250000);
    bridge_push(b, 0, 0, &t0); /* node 0 first, node 1 configures right after init */
    bridge_push(b, 1, 0, &t1);
    bridge_advance(b, 0);
    assert_int_equal(rtcosim_lsbus_can_bridge_next_event(b), 200 * US);
    rtcosim_lsbus_can_bridge_free(b);
}

static void frames_requested_during_a_frame_contend_at_its_end(void **state)
{
    (void)state;
    rtcosim_lsbus_can_bridge *b = bridge(3, true);
    tx_buf t0 = {0}, t1 = {0}, t2 = {0};
    add_frame(&t0, 0x123, false, d8, 8);
    bridge_push(b, 0, 0, &t0);
    bridge_advance(b, 0);
    add_frame(&t1, 0x200, false, NULL, 0);
    add_frame(&t2, 0x0C8, false, NULL, 0);
    bridge_push(b, 1, 10 * US, &t1);
    bridge_push(b, 2, 20 * US, &t2);
    bridge_advance(b, 224 * US);
    expect_rx(b, 0, rx_confirm_123, sizeof rx_confirm_123);
    expect_rx(b, 1, rx_tx_123, sizeof rx_tx_123);
    expect_rx(b, 2, rx_tx_123, sizeof rx_tx_123);
    /* 0x0C8 requested later wins the arbitration at 224 us */
    assert_int_equal(rtcosim_lsbus_can_bridge_next_event(b), 324 * US);
    bridge_advance(b, 324 * US);
    expect_rx(b, 2, rx_confirm_0c8, sizeof rx_confirm_0c8);
    rtcosim_lsbus_can_bridge_free(b);
}

static void an_injected_error_flags_sender_and_primary_then_retransmits(void **state)
{
    (void)state;
    rtcosim_lsbus_can_bridge_config cfg = {.node_count = 3, .bus_notifications = true,
                                           .error_every = 2,
                                           .error_code = RTCOSIM_LSBUS_CAN_CRC_ERROR};
    rtcosim_lsbus_can_bridge *b = NULL;
    assert_int_equal(rtcosim_lsbus_can_bridge_create(&cfg, &b, NULL), RTCOSIM_OK);
    tx_buf t0 = {0};
    add_frame(&t0, 0x0C8, false, NULL, 0);
    add_frame(&t0, 0x123, false, d8, 8);
    bridge_push(b, 0, 0, &t0);
    bridge_advance(b, 100 * US);
    expect_rx(b, 0, rx_confirm_0c8, sizeof rx_confirm_0c8);
    expect_rx(b, 1, rx_tx_0c8, sizeof rx_tx_0c8);
    expect_rx(b, 2, rx_tx_0c8, sizeof rx_tx_0c8);
    bridge_advance(b, 324 * US);
    /* Bus Error id 0x123, CRC_ERROR (4): the sender flagged is_sender and
     * secondary, the first receiver primary, the other secondary */
    static const uint8_t err_sender[] = {0x31, 0, 0, 0, 0x0F, 0, 0, 0, 0x23, 0x01, 0, 0, 4, 2, 1};
    static const uint8_t err_primary[] = {0x31, 0, 0, 0, 0x0F, 0, 0, 0, 0x23, 0x01, 0, 0, 4, 1, 0};
    static const uint8_t err_other[] = {0x31, 0, 0, 0, 0x0F, 0, 0, 0, 0x23, 0x01, 0, 0, 4, 2, 0};
    expect_rx(b, 0, err_sender, sizeof err_sender);
    expect_rx(b, 1, err_primary, sizeof err_primary);
    expect_rx(b, 2, err_other, sizeof err_other);
    /* the retransmission: 324 .. 548 us */
    assert_int_equal(rtcosim_lsbus_can_bridge_next_event(b), 548 * US);
    bridge_advance(b, 548 * US);
    expect_rx(b, 0, rx_confirm_123, sizeof rx_confirm_123);
    expect_rx(b, 1, rx_tx_123, sizeof rx_tx_123);
    rtcosim_lsbus_can_bridge_stats st;
    rtcosim_lsbus_can_bridge_stats_get(b, &st);
    assert_int_equal(st.frames, 2);
    assert_int_equal(st.bus_errors, 1);
    rtcosim_lsbus_can_bridge_free(b);
}

static void error_passive_and_bus_off_nodes_are_treated_as_the_standard_says(void **state)
{
    (void)state;
    rtcosim_lsbus_can_bridge *b = bridge(3, true);
    tx_buf t0 = {0}, t1 = {0}, t2 = {0};
    add_simple(&t0, RTCOSIM_LSBUS_OP_CAN_STATUS, RTCOSIM_LSBUS_CAN_ERROR_PASSIVE);
    add_frame(&t0, 0x0C8, false, NULL, 0);
    add_frame(&t1, 0x123, false, d8, 8);
    add_simple(&t2, RTCOSIM_LSBUS_OP_CAN_STATUS, RTCOSIM_LSBUS_CAN_BUS_OFF);
    bridge_push(b, 0, 0, &t0);
    bridge_push(b, 1, 0, &t1);
    bridge_push(b, 2, 0, &t2);
    bridge_advance(b, 0);
    /* the error-active node 1 goes first although its id is higher */
    assert_int_equal(rtcosim_lsbus_can_bridge_next_event(b), 224 * US);
    bridge_advance(b, 224 * US);
    expect_rx(b, 1, rx_confirm_123, sizeof rx_confirm_123);
    expect_rx(b, 0, rx_tx_123, sizeof rx_tx_123);
    bridge_advance(b, 324 * US); /* then node 0's frame */
    expect_rx(b, 0, rx_confirm_0c8, sizeof rx_confirm_0c8);
    rtcosim_lsbus_can_bridge_free(b);
    /* every other node bus-off: the frame goes out unconfirmed */
    b = bridge(2, true);
    tx_buf s = {0}, f = {0};
    add_simple(&s, RTCOSIM_LSBUS_OP_CAN_STATUS, RTCOSIM_LSBUS_CAN_BUS_OFF);
    add_frame(&f, 0x0C8, false, NULL, 0);
    bridge_push(b, 1, 0, &s);
    bridge_push(b, 0, 0, &f);
    bridge_advance(b, 100 * US);
    expect_rx(b, 0, NULL, 0);
    /* and a bus-off node's frames are not sent */
    bridge_push(b, 1, 200 * US, &f);
    assert_int_equal(rtcosim_lsbus_can_bridge_next_event(b), RTCOSIM_TIME_MAX);
    rtcosim_lsbus_can_bridge_free(b);
    /* frames queued before a node goes bus-off wait (the bus does not hang on them) */
    b = bridge(2, true);
    tx_buf q = {0};
    add_frame(&q, 0x0C8, false, NULL, 0);
    add_simple(&q, RTCOSIM_LSBUS_OP_CAN_STATUS, RTCOSIM_LSBUS_CAN_BUS_OFF);
    bridge_push(b, 0, 0, &q);
    assert_int_equal(rtcosim_lsbus_can_bridge_next_event(b), RTCOSIM_TIME_MAX);
    bridge_advance(b, 1000 * US);
    expect_no_rx(b, 2);
    tx_buf active = {0};
    add_simple(&active, RTCOSIM_LSBUS_OP_CAN_STATUS, RTCOSIM_LSBUS_CAN_ERROR_ACTIVE);
    bridge_push(b, 0, 2000 * US, &active); /* back: its frame, requested at 0, goes at once */
    assert_int_equal(rtcosim_lsbus_can_bridge_next_event(b), 2000 * US);
    bridge_advance(b, 2000 * US);
    assert_int_equal(rtcosim_lsbus_can_bridge_next_event(b), 2100 * US);
    bridge_advance(b, 2100 * US);
    expect_rx(b, 1, rx_tx_0c8, sizeof rx_tx_0c8);
    rtcosim_lsbus_can_bridge_free(b);
}

static void wakeup_reaches_every_other_node_at_once(void **state)
{
    (void)state;
    rtcosim_lsbus_can_bridge *b = bridge(3, false);
    tx_buf t = {0};
    add_simple(&t, RTCOSIM_LSBUS_OP_CAN_WAKEUP, 0);
    bridge_push(b, 1, 5 * US, &t);
    static const uint8_t wake[] = {0x42, 0, 0, 0, 0x08, 0, 0, 0};
    expect_rx(b, 0, wake, sizeof wake);
    expect_rx(b, 1, NULL, 0);
    expect_rx(b, 2, wake, sizeof wake);
    rtcosim_lsbus_can_bridge_free(b);
}

static void an_unknown_op_is_skipped_and_answered_with_a_format_error(void **state)
{
    (void)state;
    rtcosim_lsbus_can_bridge *b = bridge(2, true);
    tx_buf t = {.bytes = {0x50, 0, 0, 0, 0x0A, 0, 0, 0, 0xAB, 0xCD}, .used = 10};
    add_frame(&t, 0x0C8, false, NULL, 0);
    bridge_push(b, 0, 0, &t);
    static const uint8_t format_error[] = {0x01, 0, 0, 0, 0x14, 0, 0, 0, 0x0A, 0, 0x50, 0, 0, 0,
                                           0x0A, 0, 0, 0, 0xAB, 0xCD};
    expect_rx(b, 0, format_error, sizeof format_error);
    bridge_advance(b, 100 * US);
    expect_rx(b, 1, rx_tx_0c8, sizeof rx_tx_0c8);
    expect_rx(b, 0, rx_confirm_0c8, sizeof rx_confirm_0c8);
    rtcosim_lsbus_can_bridge_stats st;
    rtcosim_lsbus_can_bridge_stats_get(b, &st);
    assert_int_equal(st.unknown_ops, 1);
    assert_int_equal(st.format_errors, 1);
    /* one too large to quote in the node's Rx buffer (4096 bytes) is skipped unanswered */
    static uint8_t big[5000] = {0x51, 0, 0, 0, 0x88, 0x13, 0, 0}; /* 5000 bytes */
    rtcosim_error err;
    assert_int_equal(rtcosim_lsbus_can_bridge_push(b, 0, 200 * US, big, sizeof big, &err),
                     RTCOSIM_OK);
    expect_rx(b, 0, NULL, 0);
    rtcosim_lsbus_can_bridge_stats_get(b, &st);
    assert_int_equal(st.unknown_ops, 2);
    assert_int_equal(st.format_errors, 1);
    rtcosim_lsbus_can_bridge_free(b);
}

static void expect_push_error(rtcosim_lsbus_can_bridge *b, uint32_t node, rtcosim_time_ns t,
                              const tx_buf *tx, rtcosim_status want, const char *words)
{
    rtcosim_error err;
    rtcosim_status st = rtcosim_lsbus_can_bridge_push(b, node, t, tx->bytes, tx->used, &err);
    if (st != want || !strstr(err.message, words) || strchr(err.message, '\n'))
        fail_msg("status %d, message '%s' (wanted %d with '%s')", st, err.message, want, words);
}

static void bad_input_is_a_one_line_error_naming_node_op_and_field(void **state)
{
    (void)state;
    rtcosim_lsbus_can_bridge *b = bridge(2, true);
    tx_buf t = {0};
    add_frame(&t, 0x0C8, false, NULL, 0);
    t.bytes[4] = 40; /* length runs past the buffer */
    expect_push_error(b, 0, 0, &t, RTCOSIM_EFORMAT, "node 0 Tx_Data: LS-BUS CAN Transmit");
    t = (tx_buf){0};
    rtcosim_lsbus_op xl = {.code = RTCOSIM_LSBUS_OP_CANXL_TRANSMIT};
    xl.u.transmit.id = 0x10;
    tx_add(&t, &xl);
    expect_push_error(b, 1, 0, &t, RTCOSIM_EINVAL,
                      "node 1: CAN XL Transmit: can xl frame 0x10: 0 data bytes is not a CAN XL"
                      " length (1-2048)");
    t = (tx_buf){0};
    uint8_t ten[10] = {0};
    rtcosim_lsbus_op fd = {.code = RTCOSIM_LSBUS_OP_CANFD_TRANSMIT};
    fd.u.transmit = (rtcosim_lsbus_can_transmit){.id = 0x10, .data_length = 10, .data = ten};
    tx_add(&t, &fd);
    expect_push_error(b, 1, 0, &t, RTCOSIM_EINVAL,
                      "CAN FD Transmit: can fd frame 0x10: 10 data bytes is not a CAN FD length");
    uint8_t nine[9] = {0};
    t = (tx_buf){0};
    add_frame(&t, 0x10, false, nine, 9);
    expect_push_error(b, 1, 0, &t, RTCOSIM_EUNSUPPORTED, "data length 9");
    t = (tx_buf){0};
    add_frame(&t, 0x800, false, NULL, 0);
    expect_push_error(b, 1, 0, &t, RTCOSIM_EINVAL, "identifier beyond the 11-bit range");
    t = (tx_buf){0};
    add_config(&t, RTCOSIM_LSBUS_CAN_CONFIG_CAN_BAUDRATE, 500000);
    bridge_push(b, 0, 0, &t);
    t = (tx_buf){0};
    add_config(&t, RTCOSIM_LSBUS_CAN_CONFIG_CAN_BAUDRATE, 250000);
    expect_push_error(b, 1, 0, &t, RTCOSIM_EINVAL,
                      "node 1 configures CAN_BAUDRATE 250000 bit/s but node 0 configured 500000 bit/s");
    t = (tx_buf){0};
    add_config(&t, RTCOSIM_LSBUS_CAN_CONFIG_CAN_BAUDRATE, 300000);
    expect_push_error(b, 0, 0, &t, RTCOSIM_EINVAL, "300000 bit/s does not give a whole number");
    t = (tx_buf){0};
    add_config(&t, RTCOSIM_LSBUS_CAN_CONFIG_ARBITRATION_LOST_BEHAVIOR, 7);
    expect_push_error(b, 0, 0, &t, RTCOSIM_EFORMAT, "ARBITRATION_LOST_BEHAVIOR: value 0x07");
    t = (tx_buf){0};
    add_simple(&t, RTCOSIM_LSBUS_OP_CAN_STATUS, 9);
    expect_push_error(b, 0, 0, &t, RTCOSIM_EFORMAT, "Status: value 0x09");
    t = (tx_buf){0};
    bridge_advance(b, 10 * US);
    expect_push_error(b, 0, 5 * US, &t, RTCOSIM_EINVAL, "before the bus time");
    expect_push_error(b, 2, 10 * US, &t, RTCOSIM_EINVAL, "no node 2");
    rtcosim_lsbus_can_bridge_free(b);
}

static void a_full_rx_buffer_or_queue_is_reported_not_overrun(void **state)
{
    (void)state;
    rtcosim_lsbus_can_bridge_config cfg = {.node_count = 2, .rx_buffer_size = 20,
                                           .tx_queue_capacity = 2};
    rtcosim_lsbus_can_bridge *b = NULL;
    assert_int_equal(rtcosim_lsbus_can_bridge_create(&cfg, &b, NULL), RTCOSIM_OK);
    tx_buf t = {0};
    add_frame(&t, 0x0C8, false, NULL, 0);
    add_frame(&t, 0x0C9, false, NULL, 0);
    add_frame(&t, 0x0CA, false, NULL, 0); /* third: queue of 2 is full */
    bridge_push(b, 0, 0, &t);
    rtcosim_lsbus_can_bridge_stats st;
    rtcosim_lsbus_can_bridge_stats_get(b, &st);
    assert_int_equal(st.dropped, 1);
    bridge_advance(b, 100 * US); /* 16 bytes into a 20-byte Rx */
    rtcosim_error err;
    /* the second frame's op does not fit unless the first is taken */
    rtcosim_status s = rtcosim_lsbus_can_bridge_advance(b, 300 * US, &err);
    assert_int_equal(s, RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "node 1 Rx"));
    rtcosim_lsbus_can_bridge_free(b);
    cfg = (rtcosim_lsbus_can_bridge_config){.node_count = 0};
    assert_int_equal(rtcosim_lsbus_can_bridge_create(&cfg, &b, &err), RTCOSIM_EINVAL);
    cfg = (rtcosim_lsbus_can_bridge_config){.node_count = 2, .bitrate = 300000};
    assert_int_equal(rtcosim_lsbus_can_bridge_create(&cfg, &b, &err), RTCOSIM_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_frame_ends_after_its_stuffed_bits_at_the_configured_rate),
        cmocka_unit_test(lowest_identifier_wins_and_the_others_follow_buffered),
        cmocka_unit_test(a_standard_frame_beats_an_extended_one_of_the_same_base_id),
        cmocka_unit_test(the_frame_log_is_written_as_candump_and_asc),
        cmocka_unit_test(a_fixed_log_keeps_its_first_frames_and_counts_the_rest),
        cmocka_unit_test(a_can_fd_frame_switches_to_the_configured_data_rate),
        cmocka_unit_test(a_data_frame_beats_the_remote_frame_of_its_identifier),
        cmocka_unit_test(discard_and_notify_sends_arbitration_lost_at_the_arbitration),
        cmocka_unit_test(without_bus_notifications_nothing_but_frames_comes_back),
        cmocka_unit_test(configuration_at_the_same_instant_reaches_the_bus_before_the_frame),
        cmocka_unit_test(frames_requested_during_a_frame_contend_at_its_end),
        cmocka_unit_test(an_injected_error_flags_sender_and_primary_then_retransmits),
        cmocka_unit_test(error_passive_and_bus_off_nodes_are_treated_as_the_standard_says),
        cmocka_unit_test(wakeup_reaches_every_other_node_at_once),
        cmocka_unit_test(an_unknown_op_is_skipped_and_answered_with_a_format_error),
        cmocka_unit_test(bad_input_is_a_one_line_error_naming_node_op_and_field),
        cmocka_unit_test(a_full_rx_buffer_or_queue_is_reported_not_overrun),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
