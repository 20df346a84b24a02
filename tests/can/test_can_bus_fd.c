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
#include <time.h>

#include <cmocka.h>

#include "rtcosim/can.h"
#include "can/bus_internal.h"

#define US RTCOSIM_NS_PER_US

typedef struct sender {
    rtcosim_can_bus *bus;
    uint32_t node;
    rtcosim_can_any_frame frame;
    unsigned tx_flags;
    unsigned received, received_fd_xl, bus_errors, arbitration_lost;
    rtcosim_time_ns last_error, last_lost;
    uint16_t last_length;
    uint8_t last_bytes[4];
} sender;

static rtcosim_status sender_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    sender *s = state;
    if (!s->frame.data)
        return RTCOSIM_OK;
    return rtcosim_can_transmit_any(lp, s->bus, s->node, &s->frame, RTCOSIM_NS_PER_MS,
                                    s->tx_flags, err);
}

static rtcosim_status sender_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                   rtcosim_error *err)
{
    (void)lp, (void)err;
    sender *s = state;
    const rtcosim_can_rx *rx = rtcosim_can_rx_of(ev);
    if (rtcosim_can_bus_error_of(ev)) {
        s->bus_errors++;
        s->last_error = ev->time;
    }
    if (ev->type == RTCOSIM_CAN_EVENT_ARBITRATION_LOST) {
        s->arbitration_lost++;
        s->last_lost = ev->time;
    }
    if (rx && rx->sender != s->node) {
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

typedef struct variant {
    uint32_t error_every;  /* error injection */
    bool fd_discards;      /* the FD sender discards on a lost arbitration */
} variant;

/* The log digest as rtcosim_can_bus_log_digest documents it: 64-bit FNV-1a
 * over each entry's start, end, id, extended flag, sender, format and data
 * length (8 little-endian bytes each), then its data bytes. */
static uint64_t digest_of(const rtcosim_can_log_entry *log, size_t n)
{
    uint64_t h = UINT64_C(0xCBF29CE484222325);
    for (size_t i = 0; i < n; i++) {
        const unsigned char *data = log[i].data ? log[i].data : log[i].frame.data;
        size_t length = log[i].data ? log[i].length : log[i].frame.dlc;
        uint64_t f[] = {(uint64_t)log[i].start, (uint64_t)log[i].end, log[i].frame.id,
                        log[i].frame.extended, log[i].sender, (uint64_t)log[i].format, length};
        for (size_t k = 0; k < 7; k++)
            for (int b = 0; b < 8; b++)
                h = (h ^ (unsigned char)(f[k] >> (8 * b))) * UINT64_C(0x100000001B3);
        for (size_t k = 0; k < length; k++)
            h = (h ^ data[k]) * UINT64_C(0x100000001B3);
    }
    return h;
}

/* Three nodes send 0x100 at 1 ms as a classic, a CAN FD (BRS) and a CAN XL
 * frame; a fourth, a classic controller with 0x100 in its receive
 * database, only listens. All ask for Bus Errors and Confirms. */
static void run_nodes(rtcosim_scheduler scheduler, unsigned threads, const variant *v,
                      sender *s, rtcosim_can_log_entry *log, size_t *log_count)
{
    rtcosim_error err;
    rtcosim_events *sim = NULL;
    rtcosim_can_bus *bus = NULL;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    rtcosim_can_bus_config bc = {.name = "can0", .bitrate = 500000, .fd_bitrate = 2000000,
                                 .xl_bitrate = 10000000, .log_frames = true,
                                 .error_every = v->error_every};
    assert_int_equal(rtcosim_can_bus_create(sim, &bc, &bus, &err), RTCOSIM_OK);
    const sender initial[4] = {
        {.frame = {.format = RTCOSIM_CAN_FORMAT_CLASSIC, .id = 0x100, .data = bytes}},
        {.frame = {.format = RTCOSIM_CAN_FORMAT_FD, .id = 0x100, .flags = RTCOSIM_CAN_FD_BRS,
                   .data = bytes}},
        {.frame = {.format = RTCOSIM_CAN_FORMAT_XL, .id = 0x100, .length = 1, .sdt = 3,
                   .vcid = 7, .af = 0xAABBCCDD, .data = bytes}},
        {.frame = {0}},
    };
    memcpy(s, initial, sizeof initial);
    s[1].tx_flags = v->fd_discards ? RTCOSIM_CAN_TX_DISCARD_ON_LOST : 0;
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
        assert_int_equal(rtcosim_can_bus_notify_errors(bus, s[i].node, &err), RTCOSIM_OK);
    }
    assert_int_equal(rtcosim_can_bus_connect(bus, &err), RTCOSIM_OK);
    rtcosim_run_options ro = {.scheduler = scheduler, .threads = threads,
                              .stop_time = 2 * RTCOSIM_NS_PER_MS};
    if (rtcosim_events_run(sim, &ro, NULL, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    *log_count = rtcosim_can_bus_log_count(bus);
    assert_true(*log_count <= 8);
    /* the digest (the bus's saved state, speculative rollbacks included)
     * covers exactly the entries logged */
    size_t covered = 0;
    assert_true(rtcosim_can_bus_log_digest(bus, &covered) ==
                digest_of(rtcosim_can_bus_log(bus), *log_count));
    assert_int_equal(covered, *log_count);
    memcpy(log, rtcosim_can_bus_log(bus), *log_count * sizeof *log);
    /* the bytes live in the bus's arena: take the XL frame's first now */
    for (size_t i = 0; i < *log_count; i++)
        if (log[i].format == RTCOSIM_CAN_FORMAT_XL)
            s[3].last_bytes[0] = log[i].data[0];
    rtcosim_can_bus_free(bus);
    rtcosim_events_free(sim);
}

static void run_three_formats(rtcosim_scheduler scheduler, unsigned threads)
{
    sender s[4];
    rtcosim_can_log_entry log[8];
    size_t n = 0;
    const variant plain = {0};
    run_nodes(scheduler, threads, &plain, s, log, &n);
    /* classic beats FD beats XL at one identifier (r0 dominant against
     * FDF recessive; then res dominant against XLF recessive) */
    assert_int_equal(n, 3);
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
    assert_int_equal(s[3].last_bytes[0], 0xA5);
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
}

/* Every 2nd frame started corrupted: #1 classic 1.000 .. 1.102; #2 FD
 * 1.102 .. 1.1825 fails, back in its queue at its end, where it contends
 * with XL and wins: #3 FD 1.1825 .. 1.263; #4 XL 1.263 .. 1.3484 fails;
 * #5 XL 1.3484 .. 1.4338. The FD and XL senders hear of both errors at the
 * corrupted frames' ends (and the classic sender, an LS-BUS-like node that
 * receives every frame); the classic listener of 0x100 of neither. */
static void errors_on_fd_and_xl_frames_reach_the_nodes_that_carry_them(void **state)
{
    (void)state;
    sender s[4];
    rtcosim_can_log_entry log[8];
    size_t n = 0;
    const variant errors = {.error_every = 2};
    run_nodes(RTCOSIM_SCHEDULER_SEQUENTIAL, 1, &errors, s, log, &n);
    assert_int_equal(n, 3);
    assert_int_equal(log[0].end, 1102 * US);
    assert_int_equal(log[1].format, RTCOSIM_CAN_FORMAT_FD);
    assert_int_equal(log[1].start, 1102 * US + 80500);
    assert_int_equal(log[1].end, 1263 * US);
    assert_int_equal(log[2].format, RTCOSIM_CAN_FORMAT_XL);
    assert_int_equal(log[2].start, 1263 * US + 85400);
    assert_int_equal(log[2].end, 1263 * US + 2 * 85400);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(s[i].bus_errors, 2);
        assert_int_equal(s[i].last_error, 1263 * US + 85400);
    }
    assert_int_equal(s[3].bus_errors, 0);
}

/* The FD sender discards on a lost arbitration: at 1 ms its frame loses to
 * the classic one, leaves the queue, and it hears so at the classic
 * frame's end (1.102 ms); XL follows the classic frame. */
static void a_discarding_fd_sender_gets_arbitration_lost(void **state)
{
    (void)state;
    sender s[4];
    rtcosim_can_log_entry log[8];
    size_t n = 0;
    const variant discard = {.fd_discards = true};
    run_nodes(RTCOSIM_SCHEDULER_SEQUENTIAL, 1, &discard, s, log, &n);
    assert_int_equal(n, 2);
    assert_int_equal(log[1].format, RTCOSIM_CAN_FORMAT_XL);
    assert_int_equal(log[1].start, 1102 * US);
    assert_int_equal(log[1].end, 1102 * US + 85400);
    assert_int_equal(s[1].arbitration_lost, 1);
    assert_int_equal(s[1].last_lost, 1102 * US);
    assert_int_equal(s[2].arbitration_lost, 0);
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

/* An entry for frames of any length up to a most (an AUTOSAR dynamic
 * container's): the lookahead is its empty frame's (the same as an entry of
 * 0 bytes at that identifier), a shorter frame goes, a longer one is refused
 * with one line. */
static void an_entry_up_to_a_length_takes_shorter_frames(void **state)
{
    (void)state;
    rtcosim_error err;
    rtcosim_time_ns lookahead[2];
    static const uint8_t data[20] = {1, 2, 3};
    for (int c = 0; c < 4; c++) {
        rtcosim_events *sim = NULL;
        rtcosim_can_bus *bus = NULL;
        assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
        rtcosim_can_bus_config bc = {.name = "can0", .log_frames = true};
        assert_int_equal(rtcosim_can_bus_create(sim, &bc, &bus, &err), RTCOSIM_OK);
        sender s[2] = {{.bus = bus}, {.bus = bus}};
        uint32_t node, listener;
        rtcosim_lp_id lp;
        assert_int_equal(rtcosim_events_add_lp(sim, "a", &sender_model, &s[0],
                                               RTCOSIM_LP_NO_GROUP, &lp, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_can_bus_add_node(bus, "a", lp, 0, &node, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_events_add_lp(sim, "b", &sender_model, &s[1],
                                               RTCOSIM_LP_NO_GROUP, &lp, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_can_bus_add_node(bus, "b", lp, 0, &listener, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_can_bus_add_rx_all(bus, listener, &err), RTCOSIM_OK);
        s[0].node = node;
        s[1].node = listener;
        if (c == 0)
            assert_int_equal(rtcosim_can_bus_add_tx_format(bus, node, RTCOSIM_CAN_FORMAT_FD,
                                                           0x123, false, 0, &err), RTCOSIM_OK);
        else
            assert_int_equal(rtcosim_can_bus_add_tx_upto(bus, node, RTCOSIM_CAN_FORMAT_FD, 0x123,
                                                         false, 16, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_can_bus_connect(bus, &err), RTCOSIM_OK);
        if (c < 2)
            lookahead[c] = rtcosim_can_bus_min_frame_time(bus);
        s[0].frame = (rtcosim_can_any_frame){.format = RTCOSIM_CAN_FORMAT_FD, .id = 0x123,
                                             .length = c == 3 ? 20 : 12, .data = data};
        rtcosim_run_options ro = {.stop_time = 2 * RTCOSIM_NS_PER_MS};
        rtcosim_status st = c >= 2 ? rtcosim_events_run(sim, &ro, NULL, &err) : RTCOSIM_OK;
        if (c == 2) {
            assert_int_equal(st, RTCOSIM_OK);
            assert_int_equal(s[1].received_fd_xl, 1);
            assert_int_equal(s[1].last_length, 12);
        } else if (c == 3) {
            assert_int_not_equal(st, RTCOSIM_OK);
            assert_non_null(strstr(err.message, "sends id 0x123 as a CAN FD frame of 20 bytes,"
                                                " its TX database says CAN FD, up to 16"));
        }
        rtcosim_can_bus_free(bus);
        rtcosim_events_free(sim);
    }
    assert_int_equal(lookahead[1], lookahead[0]);
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

/* Two nodes that speculate (their state is copied) send a CAN FD frame on
 * a timer whose bytes depend on what they received: a node rolled back by a
 * late frame cancels frames whose bytes it wrote, and sends others with new
 * bytes. Every scheduler must log the same frames with the same bytes as
 * the sequential one (the arena never gives a sent frame's bytes to
 * another). */
typedef struct chatter {
    rtcosim_can_bus *bus;
    uint32_t node, id;
    rtcosim_time_ns period;
    uint32_t counter, received_sum;
} chatter;

static rtcosim_status chatter_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    chatter *c = state;
    return rtcosim_lp_send(lp, rtcosim_lp_self(lp), c->period, 1, 0, NULL, 0, err);
}

static rtcosim_status chatter_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                    rtcosim_error *err)
{
    chatter *c = state;
    const rtcosim_can_rx *rx = rtcosim_can_rx_of(ev);
    if (rx) {
        for (unsigned i = 0; i < rx->length; i++)
            c->received_sum += rx->data[i];
        return RTCOSIM_OK;
    }
    uint8_t data[8];
    for (unsigned i = 0; i < 8; i++)
        data[i] = (uint8_t)(c->counter * 7 + c->received_sum + i);
    c->counter++;
    rtcosim_can_any_frame f = {.format = RTCOSIM_CAN_FORMAT_FD, .id = c->id,
                               .flags = RTCOSIM_CAN_FD_BRS, .length = 8, .data = data};
    rtcosim_status st = rtcosim_can_transmit_any(lp, c->bus, c->node, &f, 10 * US, 0, err);
    if (st != RTCOSIM_OK)
        return st;
    return rtcosim_lp_send(lp, rtcosim_lp_self(lp), c->period, 1, 0, NULL, 0, err);
}

static const rtcosim_lp_model chatter_model = {.kind = "test-chatter", .init = chatter_init,
                                               .event = chatter_event,
                                               .state_size = sizeof(chatter)};

typedef struct logged {
    rtcosim_time_ns start, end;
    uint32_t id;
    uint8_t data[8];
} logged;

static size_t run_chatter(rtcosim_scheduler scheduler, logged *out, size_t max,
                          uint64_t *rollbacks)
{
    rtcosim_error err;
    rtcosim_events *sim = NULL;
    rtcosim_can_bus *bus = NULL;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    rtcosim_can_bus_config bc = {.name = "can0", .log_frames = true};
    assert_int_equal(rtcosim_can_bus_create(sim, &bc, &bus, &err), RTCOSIM_OK);
    chatter c[2] = {{.bus = bus, .id = 0x10, .period = 300 * US},
                    {.bus = bus, .id = 0x20, .period = 340 * US}};
    for (int i = 0; i < 2; i++) {
        rtcosim_lp_id lp;
        assert_int_equal(rtcosim_events_add_lp(sim, i ? "b" : "a", &chatter_model, &c[i],
                                               RTCOSIM_LP_NO_GROUP, &lp, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_can_bus_add_node(bus, i ? "b" : "a", lp, 10 * US, &c[i].node,
                                                  &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_can_bus_add_tx_format(bus, c[i].node, RTCOSIM_CAN_FORMAT_FD,
                                                       c[i].id, false, 8, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_can_bus_add_rx_all(bus, c[i].node, &err), RTCOSIM_OK);
    }
    assert_int_equal(rtcosim_can_bus_connect(bus, &err), RTCOSIM_OK);
    rtcosim_run_options ro = {.scheduler = scheduler, .threads = 2,
                              .stop_time = 30 * RTCOSIM_NS_PER_MS};
    rtcosim_run_stats stats;
    if (rtcosim_events_run(sim, &ro, &stats, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    *rollbacks = stats.rollbacks;
    size_t n = rtcosim_can_bus_log_count(bus);
    assert_true(n <= max);
    const rtcosim_can_log_entry *log = rtcosim_can_bus_log(bus);
    for (size_t i = 0; i < n; i++) {
        out[i] = (logged){log[i].start, log[i].end, log[i].frame.id, {0}};
        assert_int_equal(log[i].length, 8);
        memcpy(out[i].data, log[i].data, 8);
    }
    rtcosim_can_bus_free(bus);
    rtcosim_events_free(sim);
    return n;
}

/* (On 2 threads the speculative runs rolled back 250-290 times each.) */
static void rolled_back_senders_never_change_a_sent_frames_bytes(void **state)
{
    (void)state;
    static logged reference[256], other[256];
    uint64_t rollbacks = 0;
    size_t n = run_chatter(RTCOSIM_SCHEDULER_SEQUENTIAL, reference, 256, &rollbacks);
    /* requests reach the bus 10 us after each timer: a's at 0.31, 0.61, ...
     * 29.71 ms (99; the 100th at 30.01 ms is past the stop), b's at 0.35 ..
     * 29.93 ms (88); 8 bytes with BRS last 108.5 us or a little more, so the
     * bus keeps up and each starts by the stop time */
    assert_int_equal(n, 99 + 88);
    const rtcosim_scheduler others[2] = {RTCOSIM_SCHEDULER_CONSERVATIVE,
                                         RTCOSIM_SCHEDULER_SPECULATIVE};
    for (int k = 0; k < 2; k++)
        for (int repeat = 0; repeat < 5; repeat++) {
            assert_int_equal(run_chatter(others[k], other, 256, &rollbacks), n);
            for (size_t i = 0; i < n; i++) {
                assert_int_equal(other[i].start, reference[i].start);
                assert_int_equal(other[i].end, reference[i].end);
                assert_int_equal(other[i].id, reference[i].id);
                assert_memory_equal(other[i].data, reference[i].data, 8);
            }
        }
}

/* A reservation allocates the chunks that hold that many bytes at once (a
 * bus on a real-time thread then allocates nothing for its first frame
 * bytes), rounded up to whole MiB and at most 64 MiB; the chunks it holds
 * are the ones frames then use. */
static void frame_bytes_are_reserved_up_front(void **state)
{
    (void)state;
    static can_arena a; /* 32 KiB of chunk pointers: not on the stack */
    memset(&a, 0, sizeof a);
    rtcosim_error err;
    assert_int_equal(can_arena_reserve(&a, 2 * 1048576 + 1, "can0", &err), RTCOSIM_OK);
    for (int i = 0; i < 3; i++)
        assert_non_null(atomic_load(&a.chunks[i]));
    assert_null(atomic_load(&a.chunks[3]));
    uint8_t *first = atomic_load(&a.chunks[0]);
    uint8_t body[64];
    for (int i = 0; i < 64; i++)
        body[i] = (uint8_t)i;
    uint64_t at;
    assert_int_equal(can_arena_put(&a, body, sizeof body, 0, &at, "can0", &err), RTCOSIM_OK);
    assert_int_equal(at, 0);
    assert_ptr_equal(can_arena_at(&a, at, sizeof body), first);
    assert_memory_equal(first, body, sizeof body);
    can_arena_free(&a);
    memset(&a, 0, sizeof a);
    assert_int_equal(can_arena_reserve(&a, (size_t)1 << 30, "can0", &err), RTCOSIM_OK);
    assert_non_null(atomic_load(&a.chunks[63]));
    assert_null(atomic_load(&a.chunks[64]));
    can_arena_free(&a);
}

/* Past the reservation, a sender writing 6 MiB of 2048-byte bodies (512 to
 * a chunk, none straddling) allocates chunks 1..5 itself; with the helper
 * started, the helper has each one ready before the sender reaches it (the
 * sender here waits, up to 2 s, for the chunk it asked for at the half of
 * the one before: a sender slower than the helper, as a real-time one
 * pacing its frames is), and the sender allocates none. The bytes read back
 * as written either way. */
static void the_helper_allocates_frame_bytes_ahead_of_the_sender(void **state)
{
    (void)state;
    static can_arena a;
    static uint8_t body[2048];
    for (int helper = 0; helper < 2; helper++) {
        memset(&a, 0, sizeof a);
        rtcosim_error err;
        assert_int_equal(can_arena_reserve(&a, 1048576, "can0", &err), RTCOSIM_OK);
        if (helper)
            assert_int_equal(can_arena_start_ahead(&a, "can0", &err), RTCOSIM_OK);
        for (uint32_t k = 0; k < 3072; k++) {
            memset(body, (int)(k & 0xff), sizeof body);
            memcpy(body, &k, sizeof k);
            uint64_t at;
            assert_int_equal(can_arena_put(&a, body, sizeof body, 0, &at, "can0", &err), RTCOSIM_OK);
            assert_int_equal(at, (uint64_t)k * sizeof body);
            uint64_t chunk = at >> CAN_ARENA_CHUNK_SHIFT;
            if (helper && (k % 512) == 256 && chunk + 1 < 6) {
                struct timespec ts = {0, 100000};
                for (int i = 0; i < 20000 && !atomic_load(&a.chunks[chunk + 1]); i++)
                    nanosleep(&ts, NULL);
            }
        }
        for (uint32_t k = 0; k < 3072; k += 97) {
            const uint8_t *p = can_arena_at(&a, (uint64_t)k * sizeof body, sizeof body);
            uint32_t first;
            memcpy(&first, p, sizeof first);
            assert_int_equal(first, k);
            assert_int_equal(p[sizeof body - 1], k & 0xff);
        }
        assert_int_equal(atomic_load(&a.inline_chunks), helper ? 0 : 5);
        if (helper)
            assert_true(atomic_load(&a.helper_chunks) >= 5);
        can_arena_free(&a);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_helper_allocates_frame_bytes_ahead_of_the_sender),
        cmocka_unit_test(classic_beats_fd_beats_xl_at_one_identifier),
        cmocka_unit_test(the_same_on_two_threads),
        cmocka_unit_test(the_same_under_speculation),
        cmocka_unit_test(errors_on_fd_and_xl_frames_reach_the_nodes_that_carry_them),
        cmocka_unit_test(a_discarding_fd_sender_gets_arbitration_lost),
        cmocka_unit_test(rolled_back_senders_never_change_a_sent_frames_bytes),
        cmocka_unit_test(the_lookahead_is_the_shortest_frame_of_any_format),
        cmocka_unit_test(frames_a_format_cannot_carry_are_refused),
        cmocka_unit_test(an_entry_up_to_a_length_takes_shorter_frames),
        cmocka_unit_test(frame_bytes_are_reserved_up_front),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
