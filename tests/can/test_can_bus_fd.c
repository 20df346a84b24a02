/* CAN FD and CAN XL frames on the event kernel's bus LP (src/can/bus.c):
 * arbitration between the formats at one identifier, frame times from
 * hand-counted bits, the lookahead, and what a classic controller sees.
 * Bit counts worked out by hand (ISO 11898-1; an independent stuffing
 * script outside the repository agreed):
 * - classic 0x100, no data: 34 stuffable bits + CRC-15 with 4 stuff bits
 *   + 13 = 51 bits, 102 us at 500 kbit/s;
 * - CAN FD 0x100, no data, BRS: SOF..BRS 17 bits with 2 stuff bits (ten
 *   dominant bits from id bit 7 through IDE) + 13 = 32 nominal bits; ESI
 *   and DLC 0000 after BRS make five dominant bits: 1 stuff bit, so 5 + 27
 *   (CRC field: stuff count 4, CRC-17, 6 fixed stuff bits) + 1 = 33 data
 *   bits: 64 us + 16.5 us = 80.5 us at 500 kbit/s and 2 Mbit/s;
 * - CAN XL 0x100, 1 byte: SOF..ADH 18 bits with the same 2 stuff bits + 16
 *   (DAH..intermission) = 36 nominal bits; DH1, DH2, DL1 3, SDT..AF 76,
 *   data 8, FCRC 32, FCP 4 and a fixed stuff bit after each tenth of the
 *   117 bits DL1..FCRC (11) = 134 data bits: 72 us + 13.4 us = 85.4 us at
 *   500 kbit/s and 10 Mbit/s. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rtcosim/can.h"

#define US RTCOSIM_NS_PER_US

typedef struct sender {
    rtcosim_can_bus *bus;
    uint32_t node;
    rtcosim_can_any_frame frame;
    unsigned received, received_fd_xl;
    uint16_t last_length;
    uint8_t last_bytes[4];
} sender;

static rtcosim_status sender_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    sender *s = state;
    if (!s->frame.data)
        return RTCOSIM_OK;
    return rtcosim_can_transmit_any(lp, s->bus, s->node, &s->frame, RTCOSIM_NS_PER_MS, 0, err);
}

static rtcosim_status sender_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                   rtcosim_error *err)
{
    (void)lp, (void)err;
    sender *s = state;
    const rtcosim_can_rx *rx = rtcosim_can_rx_of(ev);
    if (rx) {
        s->received++;
        if (rx->format != RTCOSIM_CAN_FORMAT_CLASSIC) {
            s->received_fd_xl++;
            s->last_length = rx->length;
            memcpy(s->last_bytes, rx->data, rx->length < 4 ? rx->length : 4);
        }
    }
    return RTCOSIM_OK;
}

static const rtcosim_lp_model sender_model = {.kind = "test-sender", .init = sender_init,
                                              .event = sender_event};

static const uint8_t bytes[4] = {0xA5, 0x01, 0x02, 0x03};

/* Three nodes send 0x100 at 1 ms as a classic, a CAN FD (BRS) and a CAN XL
 * frame; a fourth, a classic controller with 0x100 in its receive
 * database, only listens. */
static void run_three_formats(rtcosim_scheduler scheduler, unsigned threads)
{
    rtcosim_error err;
    rtcosim_events *sim = NULL;
    rtcosim_can_bus *bus = NULL;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    rtcosim_can_bus_config bc = {.name = "can0", .bitrate = 500000, .fd_bitrate = 2000000,
                                 .xl_bitrate = 10000000, .log_frames = true};
    assert_int_equal(rtcosim_can_bus_create(sim, &bc, &bus, &err), RTCOSIM_OK);
    sender s[4] = {
        {.frame = {.format = RTCOSIM_CAN_FORMAT_CLASSIC, .id = 0x100, .data = bytes}},
        {.frame = {.format = RTCOSIM_CAN_FORMAT_FD, .id = 0x100, .flags = RTCOSIM_CAN_FD_BRS,
                   .data = bytes}},
        {.frame = {.format = RTCOSIM_CAN_FORMAT_XL, .id = 0x100, .length = 1, .sdt = 3,
                   .vcid = 7, .af = 0xAABBCCDD, .data = bytes}},
        {.frame = {0}},
    };
    const char *names[4] = {"classic", "fd", "xl", "listener"};
    for (int i = 0; i < 4; i++) {
        rtcosim_lp_id lp;
        s[i].bus = bus;
        assert_int_equal(rtcosim_events_add_lp(sim, names[i], &sender_model, &s[i],
                                               RTCOSIM_LP_NO_GROUP, &lp, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_can_bus_add_node(bus, names[i], lp, 0, &s[i].node, &err),
                         RTCOSIM_OK);
        if (i < 3) {
            assert_int_equal(rtcosim_can_bus_tx_any(bus, s[i].node, &err), RTCOSIM_OK);
            assert_int_equal(rtcosim_can_bus_add_rx_all(bus, s[i].node, &err), RTCOSIM_OK);
        } else {
            assert_int_equal(rtcosim_can_bus_add_rx(bus, s[i].node, 0x100, false, &err),
                             RTCOSIM_OK);
        }
    }
    assert_int_equal(rtcosim_can_bus_connect(bus, &err), RTCOSIM_OK);
    rtcosim_run_options ro = {.scheduler = scheduler, .threads = threads,
                              .stop_time = 2 * RTCOSIM_NS_PER_MS};
    if (rtcosim_events_run(sim, &ro, NULL, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    /* classic beats FD beats XL at one identifier (r0 dominant against
     * FDF recessive; then res dominant against XLF recessive) */
    assert_int_equal(rtcosim_can_bus_log_count(bus), 3);
    const rtcosim_can_log_entry *log = rtcosim_can_bus_log(bus);
    assert_int_equal(log[0].format, RTCOSIM_CAN_FORMAT_CLASSIC);
    assert_int_equal(log[0].start, 1000 * US);
    assert_int_equal(log[0].end, 1102 * US);
    assert_int_equal(log[1].format, RTCOSIM_CAN_FORMAT_FD);
    assert_int_equal(log[1].flags, RTCOSIM_CAN_FD_BRS);
    assert_int_equal(log[1].start, 1102 * US);
    assert_int_equal(log[1].end, 1102 * US + 80500);
    assert_int_equal(log[2].format, RTCOSIM_CAN_FORMAT_XL);
    assert_int_equal(log[2].start, 1102 * US + 80500);
    assert_int_equal(log[2].end, 1102 * US + 80500 + 85400);
    assert_int_equal(log[2].length, 1);
    assert_int_equal(log[2].data[0], 0xA5);
    assert_int_equal(log[2].sdt, 3);
    assert_int_equal(log[2].vcid, 7);
    assert_int_equal(log[2].af, 0xAABBCCDD);
    /* each sender gets the other two frames, the XL byte with it */
    assert_int_equal(s[0].received, 2);
    assert_int_equal(s[0].received_fd_xl, 2);
    assert_int_equal(s[0].last_length, 1);
    assert_int_equal(s[0].last_bytes[0], 0xA5);
    /* the classic controller ignores the CAN FD and XL frames of its id */
    assert_int_equal(s[3].received, 1);
    assert_int_equal(s[3].received_fd_xl, 0);
    rtcosim_can_bus_free(bus);
    rtcosim_events_free(sim);
}

static void classic_beats_fd_beats_xl_at_one_identifier(void **state)
{
    (void)state;
    run_three_formats(RTCOSIM_SCHEDULER_SEQUENTIAL, 1);
}

static void the_same_on_two_threads(void **state)
{
    (void)state;
    run_three_formats(RTCOSIM_SCHEDULER_CONSERVATIVE, 2);
}

static void the_same_under_speculation(void **state)
{
    (void)state;
    run_three_formats(RTCOSIM_SCHEDULER_SPECULATIVE, 2);
}

/* The lookahead from the bus is the shortest frame a node may send: with
 * BRS an empty CAN FD frame (30 nominal bits at 2 us, 32 data bits at
 * 0.5 us: 76 us) is shorter than the 47 bits (94 us) of an empty classic
 * one, and shorter than the shortest CAN XL frame (34 x 2 us + 134 x 0.1 us
 * = 81.4 us). A TX database of a 16-byte FD frame: 30 x 2 us + (5 + 128 +
 * 27) x 0.5 us = 140 us; beside an empty classic 0x0C8, 94 us. */
static void the_lookahead_is_the_shortest_frame_of_any_format(void **state)
{
    (void)state;
    rtcosim_error err;
    for (int c = 0; c < 3; c++) {
        rtcosim_events *sim = NULL;
        rtcosim_can_bus *bus = NULL;
        assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
        rtcosim_can_bus_config bc = {.name = "can0"};
        assert_int_equal(rtcosim_can_bus_create(sim, &bc, &bus, &err), RTCOSIM_OK);
        sender s[2] = {{.bus = bus}, {.bus = bus}};
        uint32_t node;
        rtcosim_lp_id lp;
        assert_int_equal(rtcosim_events_add_lp(sim, "a", &sender_model, &s[0],
                                               RTCOSIM_LP_NO_GROUP, &lp, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_can_bus_add_node(bus, "a", lp, 0, &node, &err), RTCOSIM_OK);
        if (c == 0)
            assert_int_equal(rtcosim_can_bus_tx_any(bus, node, &err), RTCOSIM_OK);
        else
            assert_int_equal(rtcosim_can_bus_add_tx_format(bus, node, RTCOSIM_CAN_FORMAT_FD,
                                                           0x123, false, 16, &err), RTCOSIM_OK);
        if (c == 2) {
            assert_int_equal(rtcosim_events_add_lp(sim, "b", &sender_model, &s[1],
                                                   RTCOSIM_LP_NO_GROUP, &lp, &err), RTCOSIM_OK);
            assert_int_equal(rtcosim_can_bus_add_node(bus, "b", lp, 0, &node, &err), RTCOSIM_OK);
            assert_int_equal(rtcosim_can_bus_add_tx(bus, node, 0x0C8, false, 0, &err),
                             RTCOSIM_OK);
        }
        assert_int_equal(rtcosim_can_bus_connect(bus, &err), RTCOSIM_OK);
        const rtcosim_time_ns expected[3] = {76 * US, 140 * US, 94 * US};
        assert_int_equal(rtcosim_can_bus_min_frame_time(bus), expected[c]);
        rtcosim_can_bus_free(bus);
        rtcosim_events_free(sim);
    }
}

/* Frames the bus cannot carry: one line naming the bus, node and rule. */
static void frames_a_format_cannot_carry_are_refused(void **state)
{
    (void)state;
    rtcosim_error err;
    rtcosim_events *sim = NULL;
    rtcosim_can_bus *bus = NULL;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    rtcosim_can_bus_config bc = {.name = "can0"};
    assert_int_equal(rtcosim_can_bus_create(sim, &bc, &bus, &err), RTCOSIM_OK);
    sender s = {.bus = bus};
    uint32_t node;
    rtcosim_lp_id lp;
    assert_int_equal(rtcosim_events_add_lp(sim, "a", &sender_model, &s, RTCOSIM_LP_NO_GROUP, &lp,
                                           &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_can_bus_add_node(bus, "a", lp, 0, &node, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_can_bus_add_tx_format(bus, node, RTCOSIM_CAN_FORMAT_FD, 0x123, false,
                                                   13, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "13 data bytes is not a CAN FD length"));
    assert_int_equal(rtcosim_can_bus_add_tx_format(bus, node, RTCOSIM_CAN_FORMAT_XL, 0x800, false,
                                                   8, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "11-bit"));
    assert_int_equal(rtcosim_can_bus_add_tx_format(bus, node, RTCOSIM_CAN_FORMAT_XL, 0x100, false,
                                                   2049, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "2049 data bytes is not a CAN XL length"));
    rtcosim_can_bus_free(bus);
    bc.fd_bitrate = 250000;
    assert_int_equal(rtcosim_can_bus_create(sim, &bc, &bus, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "below the nominal 500000 bit/s"));
    rtcosim_events_free(sim);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(classic_beats_fd_beats_xl_at_one_identifier),
        cmocka_unit_test(the_same_on_two_threads),
        cmocka_unit_test(the_same_under_speculation),
        cmocka_unit_test(the_lookahead_is_the_shortest_frame_of_any_format),
        cmocka_unit_test(frames_a_format_cannot_carry_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
