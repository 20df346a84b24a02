/* The bridge against the other implementation of the same bus in the project:
 * src/can's bus LP on the event kernel (tested against a bit-level reference
 * of ISO 11898-1 in tests/can). Seeded random traffic (standard and extended
 * identifiers, 0-8 data bytes, requests at shared and distinct instants,
 * during frames and on an idle bus; then with CAN FD frames, with and
 * without BRS, and CAN XL frames of up to 64 bytes among them) must give
 * the same frames, senders, and end times, frame by frame. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/can.h"
#include "rtcosim/lsbus.h"

#define NODES 5
#define IDS_PER_NODE 3
#define REQUESTS 40
#define LOOKAHEAD 1000

typedef struct request {
    rtcosim_time_ns at;
    unsigned node;
    rtcosim_can_any_frame frame; /* data: bytes */
    uint8_t bytes[64];
} request;

typedef struct scenario {
    rtcosim_can_any_frame ids[NODES][IDS_PER_NODE]; /* each node's identifiers and lengths */
    request req[NODES * REQUESTS];
    size_t count;
} scenario;

typedef struct sent {
    rtcosim_time_ns end;
    uint32_t id, sender;
} sent;

static uint64_t rng;
static uint32_t next_random(void)
{
    rng = rng * 6364136223846793005u + 1442695040888963407u;
    return (uint32_t)(rng >> 33);
}

/* With fd_xl, a third of the identifiers are CAN FD frames (a random CAN
 * FD length, BRS or not) and a sixth CAN XL frames (1-64 bytes, random
 * SDT, VCID, AF, SEC). */
static void make_scenario(scenario *s, uint64_t seed, bool fd_xl)
{
    static const uint16_t fd_lengths[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 20, 24, 32, 48, 64};
    rng = seed;
    memset(s, 0, sizeof *s);
    for (unsigned n = 0; n < NODES; n++)
        for (unsigned k = 0; k < IDS_PER_NODE; k++) {
            rtcosim_can_any_frame *f = &s->ids[n][k];
            unsigned kind = fd_xl ? next_random() % 6 : 0;
            f->format = kind >= 4 ? RTCOSIM_CAN_FORMAT_FD
                        : kind == 3 ? RTCOSIM_CAN_FORMAT_XL
                                    : RTCOSIM_CAN_FORMAT_CLASSIC;
            f->extended = f->format != RTCOSIM_CAN_FORMAT_XL && next_random() % 3 == 0;
            /* distinct identifiers: the node and slot in the low bits */
            uint32_t slot = n * IDS_PER_NODE + k;
            f->id = f->extended ? ((next_random() & 0xFFFFFu) << 5 | slot) & RTCOSIM_CAN_EXT_ID_MAX
                                : ((next_random() & 0x3Fu) << 5 | slot);
            if (f->format == RTCOSIM_CAN_FORMAT_FD) {
                f->length = fd_lengths[next_random() % 16];
                f->flags = next_random() % 2 ? RTCOSIM_CAN_FD_BRS : 0;
            } else if (f->format == RTCOSIM_CAN_FORMAT_XL) {
                f->length = (uint16_t)(1 + next_random() % 64);
                f->flags = next_random() % 2 ? RTCOSIM_CAN_XL_SEC : 0;
                f->sdt = (uint8_t)next_random();
                f->vcid = (uint8_t)next_random();
                f->af = next_random();
            } else {
                f->length = (uint16_t)(next_random() % 9);
            }
        }
    for (unsigned n = 0; n < NODES; n++)
        for (unsigned r = 0; r < REQUESTS; r++) {
            request *q = &s->req[s->count++];
            q->node = n;
            /* a 50 us grid over 20 ms: many shared instants, a loaded bus */
            q->at = (rtcosim_time_ns)(next_random() % 400) * 50000;
            q->frame = s->ids[n][next_random() % IDS_PER_NODE];
            for (unsigned b = 0; b < q->frame.length; b++)
                q->bytes[b] = (uint8_t)next_random();
        }
}

/* ---- src/can's bus LP ---- */

typedef struct lp_node {
    rtcosim_can_bus *bus;
    uint32_t node;
    const scenario *s;
    unsigned index;
} lp_node;

static rtcosim_status lp_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    lp_node *n = state;
    for (uint32_t i = 0; i < n->s->count; i++) {
        if (n->s->req[i].node != n->index)
            continue;
        rtcosim_status st = rtcosim_lp_send(lp, rtcosim_lp_self(lp),
                                            n->s->req[i].at - LOOKAHEAD - rtcosim_lp_now(lp), 1, 0,
                                            &i, sizeof i, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

static rtcosim_status lp_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                               rtcosim_error *err)
{
    lp_node *n = state;
    if (rtcosim_can_rx_of(ev))
        return RTCOSIM_OK;
    uint32_t i;
    memcpy(&i, ev->payload, sizeof i);
    rtcosim_can_any_frame f = n->s->req[i].frame;
    f.data = n->s->req[i].bytes;
    return rtcosim_can_transmit_any(lp, n->bus, n->node, &f, LOOKAHEAD, 0, err);
}

static const rtcosim_lp_model lp_model = {.kind = "node", .init = lp_init, .event = lp_event};

static size_t run_bus_lp(const scenario *s, sent *out, size_t max)
{
    rtcosim_error err;
    rtcosim_events *sim = NULL;
    rtcosim_can_bus *bus = NULL;
    lp_node nodes[NODES];
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    rtcosim_can_bus_config bc = {.name = "can0", .bitrate = 500000, .log_frames = true,
                                 .tx_queue_capacity = 1000};
    assert_int_equal(rtcosim_can_bus_create(sim, &bc, &bus, &err), RTCOSIM_OK);
    for (unsigned i = 0; i < NODES; i++) {
        char name[8];
        snprintf(name, sizeof name, "n%u", i);
        nodes[i] = (lp_node){.bus = bus, .s = s, .index = i};
        rtcosim_lp_id lp;
        assert_int_equal(rtcosim_events_add_lp(sim, name, &lp_model, &nodes[i],
                                               RTCOSIM_LP_NO_GROUP, &lp, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_can_bus_add_node(bus, name, lp, LOOKAHEAD, &nodes[i].node, &err),
                         RTCOSIM_OK);
        for (unsigned k = 0; k < IDS_PER_NODE; k++)
            assert_int_equal(rtcosim_can_bus_add_tx_format(bus, nodes[i].node,
                                                           s->ids[i][k].format, s->ids[i][k].id,
                                                           s->ids[i][k].extended,
                                                           s->ids[i][k].length, &err),
                             RTCOSIM_OK);
    }
    assert_int_equal(rtcosim_can_bus_connect(bus, &err), RTCOSIM_OK);
    rtcosim_run_options o = {.scheduler = RTCOSIM_SCHEDULER_SEQUENTIAL, .start_time = -LOOKAHEAD,
                             .stop_time = RTCOSIM_NS_PER_S};
    if (rtcosim_events_run(sim, &o, NULL, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    size_t n = rtcosim_can_bus_log_count(bus);
    assert_true(n <= max);
    const rtcosim_can_log_entry *log = rtcosim_can_bus_log(bus);
    for (size_t i = 0; i < n; i++)
        out[i] = (sent){log[i].end, log[i].frame.id, log[i].sender};
    rtcosim_can_bus_free(bus);
    rtcosim_events_free(sim);
    return n;
}

/* ---- the bridge, driven as a master would ---- */

static int by_time(const void *a, const void *b)
{
    const request *x = a, *y = b;
    return (x->at > y->at) - (x->at < y->at);
}

static size_t run_bridge(const scenario *s, sent *out, size_t max)
{
    rtcosim_error err;
    rtcosim_lsbus_can_bridge_config cfg = {.node_count = NODES, .bitrate = 500000,
                                           .bus_notifications = true, .tx_queue_capacity = 1000,
                                           .xl_queue_capacity = 1000, .rx_buffer_size = 1 << 16};
    rtcosim_lsbus_can_bridge *b = NULL;
    assert_int_equal(rtcosim_lsbus_can_bridge_create(&cfg, &b, &err), RTCOSIM_OK);
    request sorted[NODES * REQUESTS];
    memcpy(sorted, s->req, s->count * sizeof *sorted);
    qsort(sorted, s->count, sizeof *sorted, by_time); /* stable enough: order within t is free */
    size_t next = 0, n = 0;
    for (;;) {
        rtcosim_time_ns t = rtcosim_lsbus_can_bridge_next_event(b);
        if (next < s->count && sorted[next].at < t)
            t = sorted[next].at;
        if (t == RTCOSIM_TIME_MAX)
            break;
        /* each node's Tx_Data at t: all its requests of t, in one buffer */
        for (unsigned node = 0; node < NODES; node++) {
            uint8_t tx[4096];
            size_t used = 0;
            for (size_t i = next; i < s->count && sorted[i].at == t; i++) {
                if (sorted[i].node != node)
                    continue;
                const rtcosim_can_any_frame *f = &sorted[i].frame;
                rtcosim_lsbus_op op = {.code = RTCOSIM_LSBUS_OP_CAN_TRANSMIT + f->format};
                op.u.transmit = (rtcosim_lsbus_can_transmit){
                    .id = f->id, .ide = f->extended, .data_length = f->length,
                    .data = sorted[i].bytes,
                    .brs = f->format == RTCOSIM_CAN_FORMAT_FD && (f->flags & RTCOSIM_CAN_FD_BRS),
                    .sec = f->format == RTCOSIM_CAN_FORMAT_XL && (f->flags & RTCOSIM_CAN_XL_SEC),
                    .sdt = f->sdt, .vcid = f->vcid, .af = f->af};
                assert_int_equal(rtcosim_lsbus_write(tx, sizeof tx, &used, &op, &err), RTCOSIM_OK);
            }
            if (used && rtcosim_lsbus_can_bridge_push(b, node, t, tx, used, &err) != RTCOSIM_OK)
                fail_msg("%s", err.message);
        }
        while (next < s->count && sorted[next].at == t)
            next++;
        if (rtcosim_lsbus_can_bridge_advance(b, t, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        /* a frame is done when its sender gets the Confirm */
        for (unsigned node = 0; node < NODES; node++) {
            size_t size;
            const uint8_t *rx = rtcosim_lsbus_can_bridge_take_rx(b, node, &size);
            rtcosim_lsbus_reader r;
            rtcosim_lsbus_op op;
            bool got;
            rtcosim_lsbus_reader_init(&r, rx, size);
            while (rtcosim_lsbus_read(&r, &op, &got, &err) == RTCOSIM_OK && got)
                if (op.code == RTCOSIM_LSBUS_OP_CAN_CONFIRM) {
                    assert_true(n < max);
                    out[n++] = (sent){t, op.u.id, node};
                }
        }
    }
    rtcosim_lsbus_can_bridge_free(b);
    return n;
}

static void compare(bool fd_xl)
{
    static scenario s;
    static sent a[NODES * REQUESTS], b[NODES * REQUESTS];
    for (uint64_t seed = 1; seed <= 25; seed++) {
        make_scenario(&s, seed, fd_xl);
        size_t na = run_bus_lp(&s, a, NODES * REQUESTS);
        size_t nb = run_bridge(&s, b, NODES * REQUESTS);
        if (na != s.count || nb != s.count)
            fail_msg("seed %u: %zu frames on the bus LP, %zu on the bridge, %zu requested",
                     (unsigned)seed, na, nb, s.count);
        for (size_t i = 0; i < na; i++)
            if (a[i].end != b[i].end || a[i].id != b[i].id || a[i].sender != b[i].sender)
                fail_msg("seed %u frame %zu: bus LP id 0x%X from %u ending %lld ns, bridge id 0x%X"
                         " from %u ending %lld ns", (unsigned)seed, i, a[i].id, a[i].sender,
                         (long long)a[i].end, b[i].id, b[i].sender, (long long)b[i].end);
    }
}

static void random_traffic_gives_the_bus_lps_frames_and_end_times(void **state)
{
    (void)state;
    compare(false);
}

static void random_fd_and_xl_traffic_gives_the_bus_lps_frames_and_end_times(void **state)
{
    (void)state;
    compare(true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_traffic_gives_the_bus_lps_frames_and_end_times),
        cmocka_unit_test(random_fd_and_xl_traffic_gives_the_bus_lps_frames_and_end_times),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
