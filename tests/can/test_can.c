/* CAN: frame lengths against bit counts worked out independently (an
 * ISO 11898-1 bit-level reference script, values in the comments) and the
 * published worst cases, arbitration of a hand-made contention, database and
 * payload errors, overload reporting and the log format. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/can.h"
#include "rtcosim/log.h"

static rtcosim_can_frame frame_of(uint32_t id, bool ext, uint8_t dlc, const uint8_t *data)
{
    rtcosim_can_frame f = {.id = id, .extended = ext, .dlc = dlc};
    if (data)
        memcpy(f.data, data, dlc);
    return f;
}

/* The frame geometry the ISO 11898-1 text gives, a bit at a time: the
 * stuffable bits SOF..data, the CRC-15 register (CRCNXT = bit XOR CRC[14],
 * shift left, XOR 0x4599 when CRCNXT), a complementary bit after every five
 * equal ones of SOF..CRC, stuff bits counted as bits of the stream. */
static unsigned reference_bits(const rtcosim_can_frame *f, uint8_t *bits)
{
    unsigned n = 0;
#define REF_PUT(value, count)                                                                   \
    for (int k_ = (count) - 1; k_ >= 0; k_--)                                                   \
        bits[n++] = (uint8_t)(((value) >> k_) & 1u)
    REF_PUT(0u, 1);
    if (f->extended) {
        REF_PUT(f->id >> 18, 11);
        REF_PUT(3u, 2);
        REF_PUT(f->id & 0x3FFFFu, 18);
        REF_PUT(0u, 3);
    } else {
        REF_PUT(f->id, 11);
        REF_PUT(0u, 3);
    }
    REF_PUT(f->dlc, 4);
    for (unsigned i = 0; i < f->dlc && i < 8; i++)
        REF_PUT(f->data[i], 8);
#undef REF_PUT
    return n;
}

static void classic_geometry_matches_the_bit_serial_definition(void **state)
{
    (void)state;
    uint64_t x = 0x9E3779B97F4A7C15u;
    for (int round = 0; round < 200000; round++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        rtcosim_can_frame f = {.extended = (x >> 63) != 0, .dlc = (uint8_t)((x >> 40) % 9)};
        f.id = (uint32_t)(x >> 3) & (f.extended ? 0x1FFFFFFFu : 0x7FFu);
        uint64_t y = x * 0x2545F4914F6CDD1Du;
        /* runs of equal bits are what stuffing is about: every fourth frame
         * has only 00 or FF bytes */
        for (unsigned i = 0; i < 8; i++)
            f.data[i] = round % 4 == 0 ? (uint8_t)(((y >> i) & 1u) ? 0xFF : 0x00)
                                       : (uint8_t)(y >> (8 * i));
        if (round % 16 == 1)
            f.id = f.extended ? 0 : 0x7FF;
        uint8_t bits[160];
        unsigned n = reference_bits(&f, bits);
        unsigned crc = 0;
        for (unsigned i = 0; i < n; i++) {
            unsigned next = bits[i] ^ ((crc >> 14) & 1u);
            crc = (crc << 1) & 0x7FFFu;
            if (next)
                crc ^= 0x4599u;
        }
        for (int k = 14; k >= 0; k--)
            bits[n++] = (uint8_t)((crc >> k) & 1u);
        unsigned stuff = 0, run = 0, last = 2;
        for (unsigned i = 0; i < n; i++) {
            if (bits[i] == last) {
                run++;
            } else {
                run = 1;
                last = bits[i];
            }
            if (run == 5) {
                stuff++;
                last ^= 1u;
                run = 1;
            }
        }
        assert_int_equal(rtcosim_can_crc15(&f), crc);
        assert_int_equal(rtcosim_can_stuff_bits(&f), stuff);
        assert_int_equal(rtcosim_can_frame_bits(&f, RTCOSIM_CAN_STUFFING_ACTUAL), n + 13 + stuff);
    }
}

static void frame_lengths_match_bit_level_reference(void **state)
{
    (void)state;
    /* Reference bits (SOF..CRC) of id 0x123, data 11 22 .. 88:
     * 0001001000110001000000100010010001000110011010001000101010101100
     * 1100111011110001000100001000110111 -> CRC 0x4237, one run of five
     * (the 00000 after the DLC) -> 1 stuff bit; 98 + 13 + 1 = 112 bits. */
    const uint8_t d1[8] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88};
    rtcosim_can_frame f = frame_of(0x123, false, 8, d1);
    assert_int_equal(rtcosim_can_crc15(&f), 0x4237);
    assert_int_equal(rtcosim_can_stuff_bits(&f), 1);
    assert_int_equal(rtcosim_can_frame_bits(&f, RTCOSIM_CAN_STUFFING_ACTUAL), 112);
    /* id 0 with eight zero bytes: CRC 0x145B, 16 stuff bits, 127 bits */
    const uint8_t zeros[8] = {0};
    f = frame_of(0x000, false, 8, zeros);
    assert_int_equal(rtcosim_can_crc15(&f), 0x145B);
    assert_int_equal(rtcosim_can_frame_bits(&f, RTCOSIM_CAN_STUFFING_ACTUAL), 127);
    /* id 0x7FF with eight 0xFF: 15 stuff bits, 126 bits */
    const uint8_t ones[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
    f = frame_of(0x7FF, false, 8, ones);
    assert_int_equal(rtcosim_can_frame_bits(&f, RTCOSIM_CAN_STUFFING_ACTUAL), 126);
    /* id 0x0C8, no data: CRC 0x2EF8, 3 stuff bits, 34 + 13 + 3 = 50 bits */
    f = frame_of(0x0C8, false, 0, NULL);
    assert_int_equal(rtcosim_can_crc15(&f), 0x2EF8);
    assert_int_equal(rtcosim_can_frame_bits(&f, RTCOSIM_CAN_STUFFING_ACTUAL), 50);
    /* extended 0x18FEF100, data 01..08: CRC 0x1111, 12 stuff bits, 118 + 13 + 12 = 143 */
    const uint8_t d2[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    f = frame_of(0x18FEF100, true, 8, d2);
    assert_int_equal(rtcosim_can_crc15(&f), 0x1111);
    assert_int_equal(rtcosim_can_frame_bits(&f, RTCOSIM_CAN_STUFFING_ACTUAL), 143);
}

static void worst_case_lengths_match_published_values(void **state)
{
    (void)state;
    /* Davis et al. 2007: 8-byte frames take at most 135 (standard) and 160
     * (extended) bits including the 3-bit intermission; 0 bytes: 55 and 80. */
    rtcosim_can_frame f = frame_of(0x100, false, 8, NULL);
    assert_int_equal(rtcosim_can_frame_bits(&f, RTCOSIM_CAN_STUFFING_WORST_CASE), 135);
    f.dlc = 0;
    assert_int_equal(rtcosim_can_frame_bits(&f, RTCOSIM_CAN_STUFFING_WORST_CASE), 55);
    f = frame_of(0x100, true, 8, NULL);
    assert_int_equal(rtcosim_can_frame_bits(&f, RTCOSIM_CAN_STUFFING_WORST_CASE), 160);
    f.dlc = 0;
    assert_int_equal(rtcosim_can_frame_bits(&f, RTCOSIM_CAN_STUFFING_WORST_CASE), 80);
    rtcosim_time_ns bit;
    rtcosim_error err;
    assert_int_equal(rtcosim_can_bit_time(500000, &bit, &err), RTCOSIM_OK);
    assert_int_equal(bit, 2000); /* so 135 bits last 270 us at 500 kbit/s */
    assert_int_equal(rtcosim_can_bit_time(300000, &bit, &err), RTCOSIM_EINVAL);
}

/* ---- a test node: sends scripted frames, records what it receives ---- */

typedef struct script_item {
    rtcosim_time_ns at; /* arrival at the bus */
    rtcosim_can_frame frame;
} script_item;

typedef struct rx_record {
    uint32_t id;
    rtcosim_time_ns start, end;
    uint32_t sender;
} rx_record;

typedef struct test_node {
    rtcosim_can_bus *bus;
    uint32_t node;
    const script_item *script;
    size_t script_count;
    rx_record rx[64];
    size_t rx_count;
} test_node;

#define NODE_LOOKAHEAD 1000

static rtcosim_status node_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    test_node *n = state;
    for (size_t i = 0; i < n->script_count; i++) {
        uint32_t idx = (uint32_t)i;
        /* runs start at -NODE_LOOKAHEAD so that frames can reach the bus at 0 */
        rtcosim_status st = rtcosim_lp_send(lp, rtcosim_lp_self(lp),
                                            n->script[i].at - NODE_LOOKAHEAD - rtcosim_lp_now(lp),
                                            1, 0, &idx,
                                            sizeof idx, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

static rtcosim_status node_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                 rtcosim_error *err)
{
    test_node *n = state;
    const rtcosim_can_rx *rx = rtcosim_can_rx_of(ev);
    if (rx) {
        if (n->rx_count < 64)
            n->rx[n->rx_count++] = (rx_record){rx->frame.id, rx->start, ev->time, rx->sender};
        return RTCOSIM_OK;
    }
    uint32_t idx;
    memcpy(&idx, ev->payload, sizeof idx);
    return rtcosim_can_transmit(lp, n->bus, n->node, &n->script[idx].frame, NODE_LOOKAHEAD, err);
}

static const rtcosim_lp_model node_model = {.kind = "test-node", .init = node_init,
                                            .event = node_event};

typedef struct bench_bus {
    rtcosim_events *sim;
    rtcosim_can_bus *bus;
    test_node nodes[4];
} bench_bus;

/* The log capacity of the next make_bus (0: the log grows). */
static size_t make_bus_log_capacity;

/* Nodes a, b, c send; d listens to everything declared. */
static void make_bus(bench_bus *b, rtcosim_can_stuffing stuffing, const script_item *scripts[3],
                     const size_t counts[3], uint32_t queue_capacity)
{
    rtcosim_error err;
    memset(b, 0, sizeof *b);
    assert_int_equal(rtcosim_events_create(&b->sim, &err), RTCOSIM_OK);
    rtcosim_can_bus_config c = {.name = "can0", .bitrate = 500000, .stuffing = stuffing,
                                .tx_queue_capacity = queue_capacity, .log_frames = true,
                                .log_capacity = make_bus_log_capacity};
    assert_int_equal(rtcosim_can_bus_create(b->sim, &c, &b->bus, &err), RTCOSIM_OK);
    const char *names[4] = {"a", "b", "c", "d"};
    for (int i = 0; i < 4; i++) {
        test_node *n = &b->nodes[i];
        n->bus = b->bus;
        n->script = i < 3 ? scripts[i] : NULL;
        n->script_count = i < 3 ? counts[i] : 0;
        rtcosim_lp_id lp;
        assert_int_equal(rtcosim_events_add_lp(b->sim, names[i], &node_model, n,
                                               RTCOSIM_LP_NO_GROUP, &lp, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_can_bus_add_node(b->bus, names[i], lp, NODE_LOOKAHEAD, &n->node,
                                                  &err), RTCOSIM_OK);
    }
    for (int i = 0; i < 3; i++)
        for (size_t k = 0; k < counts[i]; k++) {
            bool known = false;
            for (size_t j = 0; j < k; j++)
                known |= scripts[i][j].frame.id == scripts[i][k].frame.id;
            if (known)
                continue;
            assert_int_equal(rtcosim_can_bus_add_tx(b->bus, (uint32_t)i, scripts[i][k].frame.id,
                                                    scripts[i][k].frame.extended,
                                                    scripts[i][k].frame.dlc, &err), RTCOSIM_OK);
            assert_int_equal(rtcosim_can_bus_add_rx(b->bus, 3, scripts[i][k].frame.id,
                                                    scripts[i][k].frame.extended, &err),
                             RTCOSIM_OK);
        }
    assert_int_equal(rtcosim_can_bus_connect(b->bus, &err), RTCOSIM_OK);
}

static void free_bus(bench_bus *b)
{
    rtcosim_can_bus_free(b->bus);
    rtcosim_events_free(b->sim);
}

static void lowest_identifier_wins_when_the_bus_becomes_idle(void **state)
{
    (void)state;
    /* Worst-case stuffing: an 8-byte standard frame lasts 135 bits = 270 us.
     * t=0: a queues 0x300, b queues 0x100 -> b wins, 0..270 us.
     * t=100 us: c queues 0x050 during b's frame; at 270 us it contends
     * with a's 0x300 and wins, 270..540 us.
     * t=300 us: b queues 0x100 again, c an extended frame with the same base
     * id (0x100 << 18). At 540 us the standard one wins (RTR dominant over
     * SRR), 540..810 us; at 810 us the extended one (base 0x100) still beats
     * a's 0x300, 810..1130 us (160 bits); a's frame, waiting since 0, goes
     * last, 1130..1400 us. */
    const script_item sa[] = {{0, frame_of(0x300, false, 8, NULL)}};
    const script_item sb[] = {{0, frame_of(0x100, false, 8, NULL)},
                              {300000, frame_of(0x100, false, 8, NULL)}};
    const script_item sc[] = {{100000, frame_of(0x050, false, 8, NULL)},
                              {300000, frame_of(0x100u << 18, true, 8, NULL)}};
    const script_item *scripts[3] = {sa, sb, sc};
    const size_t counts[3] = {1, 2, 2};
    const rtcosim_scheduler all[] = {RTCOSIM_SCHEDULER_SEQUENTIAL, RTCOSIM_SCHEDULER_CONSERVATIVE,
                                     RTCOSIM_SCHEDULER_GLOBAL};
    for (int s = 0; s < 3; s++) {
        bench_bus b;
        make_bus(&b, RTCOSIM_CAN_STUFFING_WORST_CASE, scripts, counts, 0);
        rtcosim_run_options o = {.scheduler = all[s], .threads = 3, .start_time = -NODE_LOOKAHEAD,
                                 .stop_time = 10 * RTCOSIM_NS_PER_MS};
        rtcosim_error err;
        if (rtcosim_events_run(b.sim, &o, NULL, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        test_node *d = &b.nodes[3];
        assert_int_equal(d->rx_count, 5);
        const rx_record want[5] = {
            {0x100, 0, 270000, 1},
            {0x050, 270000, 540000, 2},
            {0x100, 540000, 810000, 1},
            {0x100u << 18, 810000, 1130000, 2},
            {0x300, 1130000, 1400000, 0},
        };
        for (int i = 0; i < 5; i++) {
            assert_int_equal(d->rx[i].id, want[i].id);
            assert_int_equal(d->rx[i].start, want[i].start);
            assert_int_equal(d->rx[i].end, want[i].end);
            assert_int_equal(d->rx[i].sender, want[i].sender);
        }
        /* the sender does not receive its own frame; a hears nothing it
         * has not declared */
        assert_int_equal(b.nodes[0].rx_count, 0);
        rtcosim_can_bus_stats st;
        rtcosim_can_bus_stats_get(b.bus, 10 * RTCOSIM_NS_PER_MS, &st);
        assert_int_equal(st.frames, 5);
        assert_int_equal(st.busy_ns, 1400000);
        assert_false(st.overloaded);
        free_bus(&b);
    }
}

static void log_is_written_in_candump_style(void **state)
{
    (void)state;
    const uint8_t data[2] = {0xAB, 0x01};
    const script_item sa[] = {{0, frame_of(0x0C8, false, 2, data)}};
    const script_item sb[] = {{1000000, frame_of(0x18FEF100, true, 0, NULL)}};
    const script_item *scripts[3] = {sa, sb, NULL};
    const size_t counts[3] = {1, 1, 0};
    bench_bus b;
    make_bus(&b, RTCOSIM_CAN_STUFFING_WORST_CASE, scripts, counts, 0);
    rtcosim_run_options o = {.start_time = -NODE_LOOKAHEAD, .stop_time = 10 * RTCOSIM_NS_PER_MS};
    rtcosim_error err;
    assert_int_equal(rtcosim_events_run(b.sim, &o, NULL, &err), RTCOSIM_OK);
    char path[] = "/tmp/rtcosim-can-log-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(rtcosim_can_bus_write_log(b.bus, path, &err), RTCOSIM_OK);
    FILE *f = fdopen(fd, "r");
    char text[256] = "";
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    remove(path);
    /* 2 bytes standard, worst case: 47 + 16 + floor(49 / 4) = 75 bits = 150 us;
     * extended, no data: 67 + floor(53 / 4) = 80 bits = 160 us, from 1 ms */
    assert_string_equal(text, "(0000000000.000150) can0 0C8#AB01\n"
                              "(0000000000.001160) can0 18FEF100#\n");
    /* The same frames in Vector ASC (hex ids, 'x' for extended, channel 1). */
    char asc[] = "/tmp/rtcosim-can-log-XXXXXX.asc";
    fd = mkstemps(asc, 4);
    assert_true(fd >= 0);
    assert_int_equal(rtcosim_can_bus_write_log(b.bus, asc, &err), RTCOSIM_OK);
    f = fdopen(fd, "r");
    char asc_text[1024] = "";
    n = fread(asc_text, 1, sizeof asc_text - 1, f);
    asc_text[n] = '\0';
    fclose(f);
    remove(asc);
    assert_string_equal(asc_text,
                        "date Thu Jan 1 12:00:00.000 am 1970\n"
                        "base hex  timestamps absolute\n"
                        "internal events logged\n"
                        "// version 9.0.0\n"
                        "Begin Triggerblock Thu Jan 1 12:00:00.000 am 1970\n"
                        "   0.000000 Start of measurement\n"
                        "   0.000150 1  C8              Rx   d 2 AB 01\n"
                        "   0.001160 1  18FEF100x       Rx   d 0\n"
                        "End TriggerBlock\n");
    assert_int_equal(rtcosim_can_bus_write_log(b.bus, "/nonexistent-dir/x.log", &err),
                     RTCOSIM_EIO);
    assert_non_null(strstr(err.message, "/nonexistent-dir/x.log"));
    free_bus(&b);
}

/* A log of fixed capacity (a bus stepped on a real-time thread): the
 * frames of lowest_identifier_wins_when_the_bus_becomes_idle, five in
 * order of their ends (0x100 at 270 us, 0x050 at 540, 0x100 at 810, the
 * extended one at 1130, 0x300 at 1400), in a log of three: the first three
 * logged, the other two counted as not logged, all five carried. */
static void a_fixed_log_keeps_its_first_frames_and_counts_the_rest(void **state)
{
    (void)state;
    const script_item sa[] = {{0, frame_of(0x300, false, 8, NULL)}};
    const script_item sb[] = {{0, frame_of(0x100, false, 8, NULL)},
                              {300000, frame_of(0x100, false, 8, NULL)}};
    const script_item sc[] = {{100000, frame_of(0x050, false, 8, NULL)},
                              {300000, frame_of(0x100u << 18, true, 8, NULL)}};
    const script_item *scripts[3] = {sa, sb, sc};
    const size_t counts[3] = {1, 2, 2};
    bench_bus b;
    make_bus_log_capacity = 3;
    make_bus(&b, RTCOSIM_CAN_STUFFING_WORST_CASE, scripts, counts, 0);
    make_bus_log_capacity = 0;
    rtcosim_run_options o = {.start_time = -NODE_LOOKAHEAD, .stop_time = 10 * RTCOSIM_NS_PER_MS};
    rtcosim_error err;
    assert_int_equal(rtcosim_events_run(b.sim, &o, NULL, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_can_bus_log_count(b.bus), 3);
    const rtcosim_can_log_entry *log = rtcosim_can_bus_log(b.bus);
    const uint32_t ids[3] = {0x100, 0x050, 0x100};
    const rtcosim_time_ns ends[3] = {270000, 540000, 810000};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(log[i].frame.id, ids[i]);
        assert_int_equal(log[i].end, ends[i]);
    }
    rtcosim_can_bus_stats st;
    rtcosim_can_bus_stats_get(b.bus, 10 * RTCOSIM_NS_PER_MS, &st);
    assert_int_equal(st.frames, 5);
    assert_int_equal(st.log_dropped, 2);
    free_bus(&b);
}

static void unknown_identifier_is_an_error(void **state)
{
    (void)state;
    const script_item sa[] = {{0, frame_of(0x300, false, 8, NULL)}};
    const script_item *scripts[3] = {sa, NULL, NULL};
    const size_t counts[3] = {1, 0, 0};
    bench_bus b;
    make_bus(&b, RTCOSIM_CAN_STUFFING_ACTUAL, scripts, counts, 0);
    /* a now sends 0x301, which its database does not have */
    static const script_item bad[] = {{5000, {.id = 0x301, .dlc = 8}}};
    b.nodes[0].script = bad;
    rtcosim_run_options o = {.start_time = -NODE_LOOKAHEAD, .stop_time = RTCOSIM_NS_PER_MS};
    rtcosim_error err;
    assert_int_equal(rtcosim_events_run(b.sim, &o, NULL, &err), RTCOSIM_ENOTFOUND);
    assert_non_null(strstr(err.message, "node 'a' sends id 0x301 that is not in its TX database"));
    /* a frame with nine bytes */
    static const script_item long_frame[] = {{5000, {.id = 0x300, .dlc = 9}}};
    b.nodes[0].script = long_frame;
    assert_int_equal(rtcosim_events_run(b.sim, &o, NULL, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "payload of 9 bytes exceeds the 8 bytes of classic CAN"));
    /* the databases refuse them too */
    assert_int_equal(rtcosim_can_bus_add_tx(b.bus, 0, 0x800, false, 8, &err), RTCOSIM_ESTATE);
    free_bus(&b);
    rtcosim_events *sim;
    rtcosim_can_bus *bus;
    rtcosim_can_bus_config c = {.bitrate = 500000};
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_can_bus_create(sim, &c, &bus, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_can_bus_add_node(bus, "n", 0, 1000, NULL, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_can_bus_add_tx(bus, 0, 0x800, false, 8, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "identifier beyond the 11-bit range"));
    assert_int_equal(rtcosim_can_bus_add_tx(bus, 0, 0x100, false, 12, &err), RTCOSIM_EINVAL);
    assert_int_equal(rtcosim_can_bus_add_tx(bus, 0, 0x100, false, 8, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_can_bus_add_tx(bus, 0, 0x100, false, 8, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "unique"));
    rtcosim_can_bus_free(bus);
    rtcosim_events_free(sim);
}

static char warnings[1024];
static void capture(void *ctx, rtcosim_log_level level, const char *category, const char *message)
{
    (void)ctx;
    if (level == RTCOSIM_LOG_WARNING)
        snprintf(warnings, sizeof warnings, "%s: %s", category, message);
}

static void overloaded_bus_is_reported_and_keeps_running(void **state)
{
    (void)state;
    /* a queues an 8-byte frame (270 us worst case) every 200 us: 50 requests
     * before 9.99 ms, offering 13.5 ms of frames */
    script_item sa[50];
    for (int i = 0; i < 50; i++)
        sa[i] = (script_item){(rtcosim_time_ns)i * 200000, frame_of(0x100, false, 8, NULL)};
    const script_item *scripts[3] = {sa, NULL, NULL};
    const size_t counts[3] = {50, 0, 0};
    bench_bus b;
    make_bus(&b, RTCOSIM_CAN_STUFFING_WORST_CASE, scripts, counts, 64);
    rtcosim_log_set_handler(capture, NULL);
    warnings[0] = '\0';
    /* up to just before 9.99 ms: 37 frames back to back from 0 (270 us each) */
    const rtcosim_time_ns stop = 37 * 270000;
    rtcosim_run_options o = {.start_time = -NODE_LOOKAHEAD, .stop_time = stop - 1};
    rtcosim_error err;
    assert_int_equal(rtcosim_events_run(b.sim, &o, NULL, &err), RTCOSIM_OK);
    rtcosim_log_set_handler(NULL, NULL);
    rtcosim_can_bus_stats st;
    rtcosim_can_bus_stats_get(b.bus, stop, &st);
    assert_int_equal(st.frames, 37);
    assert_int_equal(st.queued_at_end, 50 - 37);
    assert_true(st.overloaded);
    assert_float_equal(st.offered_load, 50 * 270000.0 / stop, 1e-12);
    assert_float_equal(st.load, 1.0, 1e-12);
    /* the first request waited for nothing; the 37th (queued at 7.2 ms)
     * ended at 9.99 ms */
    assert_int_equal(st.max_latency_ns, stop - 36 * 200000);
    assert_non_null(strstr(warnings, "can0: overloaded"));
    free_bus(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(frame_lengths_match_bit_level_reference),
        cmocka_unit_test(classic_geometry_matches_the_bit_serial_definition),
        cmocka_unit_test(worst_case_lengths_match_published_values),
        cmocka_unit_test(lowest_identifier_wins_when_the_bus_becomes_idle),
        cmocka_unit_test(log_is_written_in_candump_style),
        cmocka_unit_test(a_fixed_log_keeps_its_first_frames_and_counts_the_rest),
        cmocka_unit_test(unknown_identifier_is_an_error),
        cmocka_unit_test(overloaded_bus_is_reported_and_keeps_running),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
