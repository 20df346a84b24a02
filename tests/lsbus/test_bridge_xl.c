/* CAN XL on the integrated bus, and CAN FD and XL frames in its log. Frame
 * lengths from tests/can/test_can_xl.c (worked out by hand there): priority
 * 0x555 with one data byte 34 nominal + 134 data-phase bits, with 2048
 * bytes 34 + 18148; priority 0x100 (SOF and two zeros, a one, eight zeros,
 * RRS, IDE: stuff bits after the 5th and the 10th zero of that run of ten)
 * 36 + 134 with one byte. Default rates: 500 kbit/s (2000 ns a bit) and
 * 10 Mbit/s (100 ns) in the XL data phase. Rx contents against the CAN XL
 * Transmit layout of LS-BUS 1.0 section 5.5.1.2 (ID u32, IDE, SEC, SDT,
 * VCID u8, AF u32, Data Length u16, Data), written out byte by byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/can_log.h"
#include "rtcosim/lsbus.h"
#include "bridge_tx.h"
#include "util/test_util.h"

#define US INT64_C(1000)

static uint8_t pattern[2048 + 8]; /* the log test reads 2048 bytes from pattern + k % 7 */

static void add_xl(tx_buf *tx, uint32_t id, uint16_t n, uint8_t sec, uint8_t sdt, uint8_t vcid,
                   uint32_t af, const uint8_t *data)
{
    rtcosim_lsbus_op op = {.code = RTCOSIM_LSBUS_OP_CANXL_TRANSMIT};
    op.u.transmit = (rtcosim_lsbus_can_transmit){.id = id, .sec = sec, .sdt = sdt, .vcid = vcid,
                                                 .af = af, .data_length = n, .data = data};
    tx_add(tx, &op);
}

static void add_classic(tx_buf *tx, uint32_t id, bool ext)
{
    rtcosim_lsbus_op op = {.code = RTCOSIM_LSBUS_OP_CAN_TRANSMIT};
    op.u.transmit = (rtcosim_lsbus_can_transmit){.id = id, .ide = ext};
    tx_add(tx, &op);
}

static void add_fd(tx_buf *tx, uint32_t id, bool brs, bool esi, uint16_t n, const uint8_t *data)
{
    rtcosim_lsbus_op op = {.code = RTCOSIM_LSBUS_OP_CANFD_TRANSMIT};
    op.u.transmit = (rtcosim_lsbus_can_transmit){.id = id, .brs = brs, .esi = esi,
                                                 .data_length = n, .data = data};
    tx_add(tx, &op);
}

static void add_rate(tx_buf *tx, uint8_t kind, uint32_t rate)
{
    rtcosim_lsbus_op op = {.code = RTCOSIM_LSBUS_OP_CAN_CONFIGURATION};
    op.u.configuration.kind = kind;
    op.u.configuration.baudrate = rate;
    tx_add(tx, &op);
}

static rtcosim_lsbus_can_bridge *make(const rtcosim_lsbus_can_bridge_config *cfg)
{
    rtcosim_lsbus_can_bridge *b = NULL;
    rtcosim_error err;
    if (rtcosim_lsbus_can_bridge_create(cfg, &b, &err) != RTCOSIM_OK)
        fail_msg("create: %s", err.message);
    return b;
}

static const uint8_t *take(rtcosim_lsbus_can_bridge *b, uint32_t node, size_t *n)
{
    return rtcosim_lsbus_can_bridge_take_rx(b, node, n);
}

static void a_2048_byte_frame_takes_its_bits_at_both_rates_and_arrives_whole(void **state)
{
    (void)state;
    rtcosim_lsbus_can_bridge_config cfg = {.name = "can0", .node_count = 2,
                                           .bus_notifications = true};
    rtcosim_lsbus_can_bridge *b = make(&cfg);
    tx_buf t = {0};
    add_xl(&t, 0x555, 2048, 1, 0x03, 0x45, 0x12345678, pattern);
    bridge_push(b, 0, 10 * US, &t);
    bridge_advance(b, 10 * US);
    /* 34 x 2000 + 18148 x 100 ns = 1882.8 us */
    assert_int_equal(rtcosim_lsbus_can_bridge_next_event(b), 10 * US + 1882800);
    bridge_advance(b, 10 * US + 1882799);
    size_t n;
    take(b, 1, &n);
    assert_int_equal(n, 0);
    bridge_advance(b, 10 * US + 1882800);
    const uint8_t *rx = take(b, 1, &n);
    /* opCode 0x12, length 22 + 2048 = 2070 = 0x816, id 0x555, IDE 0, SEC 1,
     * SDT 3, VCID 0x45, AF 0x12345678, Data Length 2048 = 0x800 */
    static const uint8_t head[] = {0x12, 0, 0, 0, 0x16, 0x08, 0, 0, 0x55, 0x05, 0, 0, 0, 1,
                                   0x03, 0x45, 0x78, 0x56, 0x34, 0x12, 0x00, 0x08};
    assert_int_equal(n, 2070);
    assert_memory_equal(rx, head, sizeof head);
    assert_memory_equal(rx + 22, pattern, 2048);
    static const uint8_t confirm[] = {0x20, 0, 0, 0, 0x0C, 0, 0, 0, 0x55, 0x05, 0, 0};
    rx = take(b, 0, &n);
    assert_int_equal(n, sizeof confirm);
    assert_memory_equal(rx, confirm, sizeof confirm);
    rtcosim_lsbus_can_bridge_stats st;
    rtcosim_lsbus_can_bridge_stats_get(b, &st);
    assert_int_equal(st.frames, 1);
    assert_int_equal(st.busy_ns, 1882800);
    rtcosim_lsbus_can_bridge_free(b);
}

static void the_xl_data_phase_runs_at_the_configured_rate(void **state)
{
    (void)state;
    rtcosim_lsbus_can_bridge_config cfg = {.name = "can0", .node_count = 2};
    rtcosim_lsbus_can_bridge *b = make(&cfg);
    tx_buf t = {0};
    add_rate(&t, RTCOSIM_LSBUS_CAN_CONFIG_CAN_BAUDRATE, 1000000);
    add_rate(&t, RTCOSIM_LSBUS_CAN_CONFIG_CANXL_BAUDRATE, 20000000);
    add_xl(&t, 0x555, 1, 0, 0, 0, 0, pattern);
    bridge_push(b, 0, 0, &t);
    bridge_advance(b, 0);
    /* 34 x 1000 + 134 x 50 ns = 40.7 us */
    assert_int_equal(rtcosim_lsbus_can_bridge_next_event(b), 40700);
    /* another node that wants another XL rate cannot share the bus */
    tx_buf c = {0};
    add_rate(&c, RTCOSIM_LSBUS_CAN_CONFIG_CANXL_BAUDRATE, 10000000);
    rtcosim_error err;
    assert_int_equal(rtcosim_lsbus_can_bridge_push(b, 1, 0, c.bytes, c.used, &err),
                     RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "node 1 configures CANXL_BAUDRATE 10000000 bit/s but"
                                        " node 0 configured 20000000 bit/s"));
    rtcosim_lsbus_can_bridge_free(b);
    /* a given rate (--can-bitrate) ignores the nodes' rates: 500 kbit/s and
     * the 10 Mbit/s default: 34 x 2000 + 134 x 100 = 81.4 us */
    cfg.bitrate = 500000;
    cfg.force_bitrate = true;
    b = make(&cfg);
    bridge_push(b, 0, 0, &t);
    bridge_advance(b, 0);
    assert_int_equal(rtcosim_lsbus_can_bridge_next_event(b), 81400);
    rtcosim_lsbus_can_bridge_free(b);
}

/* Node 3 listens; the order of what it gets is the arbitration's. */
static void same_identifier_classic_then_fd_then_xl(void **state)
{
    (void)state;
    rtcosim_lsbus_can_bridge_config cfg = {.name = "can0", .node_count = 5};
    rtcosim_lsbus_can_bridge *b = make(&cfg);
    tx_buf xl = {0}, fd = {0}, cl = {0}, ext = {0};
    add_xl(&xl, 0x100, 1, 0, 0, 0, 0, pattern);
    add_fd(&fd, 0x100, false, false, 0, NULL);
    add_classic(&cl, 0x100, false);
    add_classic(&ext, 0x100u << 18, true); /* base id 0x100: SRR recessive loses to RRS */
    bridge_push(b, 2, 0, &xl);
    bridge_push(b, 4, 0, &ext);
    bridge_push(b, 1, 0, &fd);
    bridge_push(b, 0, 0, &cl);
    bridge_advance(b, 0);
    uint32_t codes[4];
    rtcosim_time_ns ends[4];
    for (int k = 0; k < 4; k++) {
        ends[k] = rtcosim_lsbus_can_bridge_next_event(b);
        bridge_advance(b, ends[k]);
        size_t n;
        const uint8_t *rx = take(b, 3, &n);
        assert_true(n >= 12);
        codes[k] = rx[0];
        for (uint32_t i = 0; i < 5; i++)
            take(b, i, &n);
    }
    assert_int_equal(codes[0], 0x10);
    assert_int_equal(codes[1], 0x11);
    assert_int_equal(codes[2], 0x12);
    assert_int_equal(codes[3], 0x10); /* the extended frame last */
    /* the XL frame: 36 x 2000 + 134 x 100 ns = 85.4 us after the FD frame */
    assert_int_equal(ends[2] - ends[1], 85400);
    rtcosim_lsbus_can_bridge_free(b);
    /* a lower priority id wins whatever the format: XL 0x0FF before
     * classic 0x100 */
    b = make(&cfg);
    tx_buf xl2 = {0};
    add_xl(&xl2, 0x0FF, 1, 0, 0, 0, 0, pattern);
    bridge_push(b, 0, 0, &cl);
    bridge_push(b, 2, 0, &xl2);
    bridge_advance(b, 0);
    bridge_advance(b, rtcosim_lsbus_can_bridge_next_event(b));
    size_t n;
    assert_int_equal(take(b, 3, &n)[0], 0x12);
    rtcosim_lsbus_can_bridge_free(b);
}

static void xl_slots_are_bounded_and_given_back(void **state)
{
    (void)state;
    rtcosim_lsbus_can_bridge_config cfg = {.name = "can0", .node_count = 3,
                                           .bus_notifications = true, .xl_queue_capacity = 2};
    rtcosim_lsbus_can_bridge *b = make(&cfg);
    uint8_t one = 0xA1, two = 0xB2, three = 0xC3;
    tx_buf t = {0};
    add_xl(&t, 0x300, 1, 0, 0, 0, 0, &one);
    add_xl(&t, 0x301, 1, 0, 0, 0, 0, &two);
    add_xl(&t, 0x302, 1, 0, 0, 0, 0, &three); /* a third: no slot, dropped */
    bridge_push(b, 0, 0, &t);
    rtcosim_lsbus_can_bridge_stats st;
    rtcosim_lsbus_can_bridge_stats_get(b, &st);
    assert_int_equal(st.dropped, 1);
    bridge_advance(b, 0);
    size_t n;
    for (int k = 0; k < 2; k++) {
        bridge_advance(b, rtcosim_lsbus_can_bridge_next_event(b));
        const uint8_t *rx = take(b, 1, &n);
        assert_int_equal(n, 23);
        assert_int_equal(rx[22], k == 0 ? 0xA1 : 0xB2);
        take(b, 0, &n);
        take(b, 2, &n);
    }
    /* both slots free again: two more go through, data intact */
    tx_buf u = {0};
    add_xl(&u, 0x310, 1, 0, 0, 0, 0, &three);
    add_xl(&u, 0x311, 1, 0, 0, 0, 0, &one);
    rtcosim_time_ns now = rtcosim_lsbus_can_bridge_next_event(b) == RTCOSIM_TIME_MAX ? 1000 * US
                                                                                  : 0;
    bridge_push(b, 0, now, &u);
    bridge_advance(b, now);
    for (int k = 0; k < 2; k++) {
        bridge_advance(b, rtcosim_lsbus_can_bridge_next_event(b));
        const uint8_t *rx = take(b, 2, &n);
        assert_int_equal(n, 23);
        assert_int_equal(rx[22], k == 0 ? 0xC3 : 0xA1);
    }
    rtcosim_lsbus_can_bridge_stats_get(b, &st);
    assert_int_equal(st.dropped, 1);
    rtcosim_lsbus_can_bridge_free(b);
}

static void a_corrupted_xl_frame_is_retransmitted_with_its_data(void **state)
{
    (void)state;
    rtcosim_lsbus_can_bridge_config cfg = {.name = "can0", .node_count = 2,
                                           .bus_notifications = true, .error_every = 1,
                                           .error_code = RTCOSIM_LSBUS_CAN_CRC_ERROR,
                                           .xl_queue_capacity = 1};
    rtcosim_lsbus_can_bridge *b = make(&cfg);
    tx_buf t = {0};
    add_xl(&t, 0x555, 64, 0, 7, 8, 9, pattern);
    bridge_push(b, 0, 0, &t);
    bridge_advance(b, 0);
    /* every frame fails (error_every 1): three attempts of
     * 34 x 2000 + 689 x 100 ns = 136.9 us, each a Bus Error to both */
    for (int k = 1; k <= 3; k++) {
        assert_int_equal(rtcosim_lsbus_can_bridge_next_event(b), k * 136900);
        bridge_advance(b, k * 136900);
        size_t n;
        const uint8_t *rx = take(b, 1, &n);
        assert_int_equal(n, 15);
        assert_int_equal(rx[0], 0x31);
        take(b, 0, &n);
    }
    rtcosim_lsbus_can_bridge_free(b);
    /* every second frame fails: the retransmission delivers the same bytes */
    cfg.error_every = 2;
    b = make(&cfg);
    tx_buf a = {0}, c = {0};
    uint8_t first = 0x11;
    add_xl(&a, 0x010, 1, 0, 0, 0, 0, &first);
    add_xl(&c, 0x555, 64, 0, 7, 8, 9, pattern);
    bridge_push(b, 0, 0, &a);
    bridge_push(b, 1, 0, &c);
    bridge_advance(b, 0);
    size_t n;
    for (int k = 0; k < 3; k++) {
        bridge_advance(b, rtcosim_lsbus_can_bridge_next_event(b));
        const uint8_t *rx = take(b, 0, &n);
        if (k == 2) { /* 0x010 went first, 0x555 failed, then arrived */
            assert_int_equal(n, 22 + 64);
            assert_int_equal(rx[0], 0x12);
            assert_int_equal(rx[14], 7);
            assert_int_equal(rx[15], 8);
            assert_memory_equal(rx + 22, pattern, 64);
        }
        take(b, 1, &n);
    }
    rtcosim_lsbus_can_bridge_free(b);
}

static void bad_xl_transmits_are_one_line_errors(void **state)
{
    (void)state;
    rtcosim_lsbus_can_bridge_config cfg = {.name = "can0", .node_count = 2,
                                           .rx_buffer_size = 1024};
    rtcosim_lsbus_can_bridge *b = make(&cfg);
    rtcosim_error err;
    tx_buf t = {0};
    add_xl(&t, 0x555, 1500, 0, 0, 0, 0, pattern);
    assert_int_equal(rtcosim_lsbus_can_bridge_push(b, 0, 0, t.bytes, t.used, &err),
                     RTCOSIM_EINVAL);
    assert_string_equal(err.message, "LS-BUS bus 'can0': node 0: CAN XL Transmit of id 0x555:"
                                     " its 1522-byte operation does not fit the nodes' Rx buffers"
                                     " of 1024 bytes");
    t = (tx_buf){0};
    rtcosim_lsbus_op op = {.code = RTCOSIM_LSBUS_OP_CANXL_TRANSMIT};
    op.u.transmit = (rtcosim_lsbus_can_transmit){.id = 0x555, .ide = 1, .data_length = 1,
                                                 .data = pattern};
    tx_add(&t, &op);
    assert_int_equal(rtcosim_lsbus_can_bridge_push(b, 0, 0, t.bytes, t.used, &err),
                     RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "node 0: CAN XL Transmit of id 0x555: IDE 1, but a CAN"
                                        " XL frame has an 11-bit priority identifier"));
    t = (tx_buf){0};
    add_xl(&t, 0x900, 1, 0, 0, 0, 0, pattern);
    assert_int_equal(rtcosim_lsbus_can_bridge_push(b, 1, 0, t.bytes, t.used, &err),
                     RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "node 1: CAN XL Transmit: can xl frame 0x900: the"
                                        " priority identifier is beyond the 11-bit range"));
    rtcosim_lsbus_can_bridge_free(b);
}

/* The log: FD and XL entries carry their fields and data; the data arena
 * grows (100 frames of 2048 bytes: past its first 64 KiB several times)
 * and every entry still points at its own bytes. */
static void fd_and_xl_frames_are_logged_with_their_data(void **state)
{
    (void)state;
    rtcosim_lsbus_can_bridge_config cfg = {.name = "can0", .node_count = 2, .log_frames = true};
    rtcosim_lsbus_can_bridge *b = make(&cfg);
    tx_buf t = {0};
    add_fd(&t, 0x0C8, true, false, 12, pattern + 5);
    add_classic(&t, 0x0C9, false);
    bridge_push(b, 0, 0, &t);
    bridge_advance(b, 0);
    rtcosim_time_ns at = 0;
    for (int k = 0; k < 100; k++) {
        while (rtcosim_lsbus_can_bridge_next_event(b) != RTCOSIM_TIME_MAX) {
            at = rtcosim_lsbus_can_bridge_next_event(b);
            bridge_advance(b, at);
            size_t n;
            take(b, 0, &n);
            take(b, 1, &n);
        }
        tx_buf x = {0};
        add_xl(&x, 0x200 + (uint32_t)k, 2048, (uint8_t)(k & 1), (uint8_t)k, 0x45, 0xA0000000u + k,
               pattern + k % 7);
        bridge_push(b, 1, at, &x);
        bridge_advance(b, at);
    }
    bridge_advance(b, at + 10000 * US);
    assert_int_equal(rtcosim_lsbus_can_bridge_log_count(b), 102);
    const rtcosim_can_log_entry *log = rtcosim_lsbus_can_bridge_log(b);
    assert_int_equal(log[0].format, RTCOSIM_CAN_FORMAT_FD);
    assert_int_equal(log[0].flags, RTCOSIM_CAN_FD_BRS);
    assert_int_equal(log[0].length, 12);
    assert_memory_equal(log[0].data, pattern + 5, 12);
    assert_int_equal(log[1].format, RTCOSIM_CAN_FORMAT_CLASSIC);
    assert_null(log[1].data);
    for (int k = 0; k < 100; k++) {
        const rtcosim_can_log_entry *e = &log[2 + k];
        assert_int_equal(e->format, RTCOSIM_CAN_FORMAT_XL);
        assert_int_equal(e->frame.id, 0x200 + k);
        assert_int_equal(e->flags, (k & 1) ? RTCOSIM_CAN_XL_SEC : 0);
        assert_int_equal(e->sdt, k);
        assert_int_equal(e->vcid, 0x45);
        assert_int_equal(e->af, 0xA0000000u + k);
        assert_int_equal(e->length, 2048);
        assert_int_equal(e->sender, 1);
        assert_memory_equal(e->data, pattern + k % 7, 2048 - 7);
    }
    rtcosim_lsbus_can_bridge_free(b);
    /* a fixed log: 2 entries, 100 data bytes: the FD frame's 12 fit, the XL
     * frame's 2048 do not (counted), the classic frame takes the 2nd entry */
    cfg.log_capacity = 2;
    cfg.log_data_capacity = 100;
    b = make(&cfg);
    tx_buf u = {0};
    add_fd(&u, 0x0C8, false, true, 12, pattern);
    add_xl(&u, 0x0C9, 2048, 0, 0, 0, 0, pattern);
    add_classic(&u, 0x0CA, false);
    bridge_push(b, 0, 0, &u);
    bridge_advance(b, 10000 * US);
    assert_int_equal(rtcosim_lsbus_can_bridge_log_count(b), 2);
    log = rtcosim_lsbus_can_bridge_log(b);
    assert_int_equal(log[0].flags, RTCOSIM_CAN_FD_ESI);
    assert_memory_equal(log[0].data, pattern, 12);
    assert_int_equal(log[1].frame.id, 0x0CA);
    rtcosim_lsbus_can_bridge_stats st;
    rtcosim_lsbus_can_bridge_stats_get(b, &st);
    assert_int_equal(st.frames, 3);
    assert_int_equal(st.log_dropped, 1);
    rtcosim_lsbus_can_bridge_free(b);
}

int main(void)
{
    for (size_t i = 0; i < sizeof pattern; i++)
        pattern[i] = (uint8_t)(i * 7 + 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_2048_byte_frame_takes_its_bits_at_both_rates_and_arrives_whole),
        cmocka_unit_test(the_xl_data_phase_runs_at_the_configured_rate),
        cmocka_unit_test(same_identifier_classic_then_fd_then_xl),
        cmocka_unit_test(xl_slots_are_bounded_and_given_back),
        cmocka_unit_test(a_corrupted_xl_frame_is_retransmitted_with_its_data),
        cmocka_unit_test(bad_xl_transmits_are_one_line_errors),
        cmocka_unit_test(fd_and_xl_frames_are_logged_with_their_data),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
