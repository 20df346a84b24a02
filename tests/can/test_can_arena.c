/* A long run of CAN FD and XL frames gives its frame bytes back
 * (src/can/bus_arena.c): under every scheduler the bus's arena returns the
 * chunks that no event or state can read any more, so its memory is what
 * the frames in flight need, not the run's length; and every byte still
 * reaches its receivers as sent, also of a frame that waited in its queue
 * while many MiB passed, through rollbacks and injected errors.
 *
 * The truth is the senders' pattern: byte i of frame k of sender s is
 * (k * 31 + i * 7 + s) mod 256 after k in the first four bytes, checked by
 * a receiver of every frame and in the bus's log after the run. Before the
 * arena gave chunks back, frame_bytes_chunks_freed was 0 and a run held
 * every byte it ever carried (4 GiB ended it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "can/bus_internal.h"
#include "rtcosim/can.h"
#include "rtcosim/can_log.h"
#include "rtcosim/events.h"
#include "util/test_util.h"

#define MS RTCOSIM_NS_PER_MS
#define SEC (1000 * RTCOSIM_NS_PER_MS)

enum { XL_BYTES = 2048, FD_BYTES = 64, FLOOD_STOP = 8, RESUME_MS = 8010, RUN_SEC = 16 };
enum { EV_START = 1, EV_WAITER = 2 };

static void pattern(uint8_t *p, size_t n, uint32_t k, uint32_t s)
{
    memcpy(p, &k, sizeof k);
    for (size_t i = sizeof k; i < n; i++)
        p[i] = (uint8_t)(k * 31u + (uint32_t)i * 7u + s);
}

static bool matches(const uint8_t *p, size_t n, uint32_t s)
{
    uint32_t k;
    memcpy(&k, p, sizeof k);
    for (size_t i = sizeof k; i < n; i++)
        if (p[i] != (uint8_t)(k * 31u + (uint32_t)i * 7u + s))
            return false;
    return true;
}

/* The saved state first (state_size: speculated on), then the setup. */
typedef struct node {
    uint32_t sent, confirmed;
    uint32_t received[3], bad;
    uint32_t waiter_at_k; /* the waiter's frame: how many flood frames came first */
    rtcosim_can_bus *bus;
    uint32_t index, id;
    uint8_t format;
    uint16_t length;
    int in_flight;          /* a flooder's frames queued at once */
    rtcosim_time_ns gap;    /* and from a Confirm to its next request */
    bool flooder, waiter, receiver;
} node;

static rtcosim_status send_next(rtcosim_lp *lp, node *n, rtcosim_time_ns delay,
                                rtcosim_error *err)
{
    uint8_t body[XL_BYTES];
    pattern(body, n->length, n->sent, n->index);
    rtcosim_can_any_frame f = {
        .format = n->format, .id = n->id, .length = n->length, .data = body,
        .flags = n->format == RTCOSIM_CAN_FORMAT_FD ? RTCOSIM_CAN_FD_BRS : 0};
    n->sent++;
    return rtcosim_can_transmit_any(lp, n->bus, n->index, &f, delay, 0, err);
}

static bool flooding(rtcosim_time_ns t)
{
    return t < FLOOD_STOP * SEC || (t >= RESUME_MS * MS && t < RUN_SEC * SEC - 100 * MS);
}

static rtcosim_status node_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    node *n = state;
    if (n->flooder) /* two in its queue: the bus never idles */
        return rtcosim_lp_send(lp, rtcosim_lp_self(lp), MS, EV_START, 0, NULL, 0, err);
    if (n->waiter)
        return rtcosim_lp_send(lp, rtcosim_lp_self(lp), SEC, EV_WAITER, 0, NULL, 0, err);
    return RTCOSIM_OK;
}

static rtcosim_status node_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                 rtcosim_error *err)
{
    node *n = state;
    rtcosim_status st = RTCOSIM_OK;
    if (ev->type == EV_START) {
        for (int i = 0; i < n->in_flight && st == RTCOSIM_OK; i++)
            st = send_next(lp, n, 10 * RTCOSIM_NS_PER_US, err);
        if (st == RTCOSIM_OK && ev->time < RESUME_MS * MS)
            st = rtcosim_lp_send(lp, rtcosim_lp_self(lp), RESUME_MS * MS - ev->time, EV_START,
                                 0, NULL, 0, err);
        return st;
    }
    if (ev->type == EV_WAITER)
        return send_next(lp, n, 10 * RTCOSIM_NS_PER_US, err);
    const rtcosim_can_rx *rx = rtcosim_can_rx_of(ev);
    if (!rx)
        return RTCOSIM_OK;
    if (rx->sender == n->index) { /* a Confirm */
        n->confirmed++;
        return n->flooder && flooding(ev->time) ? send_next(lp, n, n->gap, err)
                                                : RTCOSIM_OK;
    }
    if (!n->receiver)
        return RTCOSIM_OK;
    if (rx->sender < 3)
        n->received[rx->sender]++;
    if (!rx->data || !matches(rx->data, rx->length, rx->sender))
        n->bad++;
    if (rx->sender == 2)
        n->waiter_at_k = n->received[0] + n->received[1];
    return RTCOSIM_OK;
}

static const rtcosim_lp_model node_model = {.kind = "test-fd-node", .init = node_init,
                                            .event = node_event,
                                            .state_size = offsetof(node, bus)};

typedef struct outcome {
    uint32_t received[3], bad, waiter_at_k;
    rtcosim_can_bus_stats stats;
    size_t logged, log_bad, digested;
    uint64_t digest;
} outcome;

/* log: 0 none, 1 kept in memory, 2 for the digest alone, 3 streamed to a
 * candump file (scratch "stream.log") */
static void run(rtcosim_scheduler scheduler, unsigned threads, bool rounds, bool stepped,
                uint32_t error_every, int log, outcome *o)
{
    rtcosim_error err;
    rtcosim_events *sim = NULL;
    rtcosim_can_bus *bus = NULL;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    rtcosim_can_bus_config bc = {.name = "can0", .bitrate = 500000, .fd_bitrate = 2000000,
                                 .xl_bitrate = 10000000, .error_every = error_every,
                                 .log_frames = log == 1 || log == 3,
                                 .log_digest_only = log == 2};
    assert_int_equal(rtcosim_can_bus_create(sim, &bc, &bus, &err), RTCOSIM_OK);
    /* an XL flooder keeping two frames queued, an FD flooder of higher
     * priority sending one 1 ms after each went, the waiter (lowest
     * priority: it loses every arbitration while the XL flooder keeps
     * frames queued) and a receiver of every frame */
    static node nodes[4];
    const node initial[4] = {
        {.flooder = true, .id = 0x10, .format = RTCOSIM_CAN_FORMAT_XL, .length = XL_BYTES,
         .in_flight = 2, .gap = 10 * RTCOSIM_NS_PER_US},
        {.flooder = true, .id = 0x08, .format = RTCOSIM_CAN_FORMAT_FD, .length = FD_BYTES,
         .in_flight = 1, .gap = MS},
        {.waiter = true, .id = 0x7F0, .format = RTCOSIM_CAN_FORMAT_FD, .length = FD_BYTES},
        {.receiver = true},
    };
    memcpy(nodes, initial, sizeof nodes);
    const char *names[4] = {"xl", "fd", "waiter", "receiver"};
    for (int i = 0; i < 4; i++) {
        rtcosim_lp_id lp;
        nodes[i].bus = bus;
        assert_int_equal(rtcosim_events_add_lp(sim, names[i], &node_model, &nodes[i],
                                               RTCOSIM_LP_NO_GROUP, &lp, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_can_bus_add_node(bus, names[i], lp, 10 * RTCOSIM_NS_PER_US,
                                                  &nodes[i].index, &err), RTCOSIM_OK);
        if (i < 3) {
            assert_int_equal(rtcosim_can_bus_tx_any(bus, nodes[i].index, &err), RTCOSIM_OK);
            assert_int_equal(rtcosim_can_bus_confirm_own(bus, nodes[i].index, &err), RTCOSIM_OK);
        } else {
            assert_int_equal(rtcosim_can_bus_add_rx_all(bus, nodes[i].index, &err), RTCOSIM_OK);
        }
    }
    assert_int_equal(rtcosim_can_bus_connect(bus, &err), RTCOSIM_OK);
    rtcosim_can_log_writer *stream = NULL;
    if (log == 3) {
        rtcosim_can_log_layout layout;
        rtcosim_can_bus_log_layout(bus, &layout);
        assert_int_equal(rtcosim_can_log_writer_open(tu_scratch("stream.log"),
                                                     RTCOSIM_CAN_LOG_CANDUMP, "can0", &layout,
                                                     &stream, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_can_bus_stream_log(bus, stream, &err), RTCOSIM_OK);
    }
    rtcosim_run_options ro = {.scheduler = scheduler, .threads = threads,
                              .conservative_rounds = rounds, .stop_time = RUN_SEC * SEC};
    if (stepped) {
        assert_int_equal(rtcosim_events_begin(sim, &ro, &err), RTCOSIM_OK);
        for (rtcosim_time_ns t = 0; t <= RUN_SEC * SEC; t += 250 * MS)
            if (rtcosim_events_advance(sim, t, &err) != RTCOSIM_OK)
                fail_msg("%s", err.message);
        assert_int_equal(rtcosim_events_end(sim, &err), RTCOSIM_OK);
    } else if (rtcosim_events_run(sim, &ro, NULL, &err) != RTCOSIM_OK) {
        fail_msg("%s", err.message);
    }
    memcpy(o->received, nodes[3].received, sizeof o->received);
    o->bad = nodes[3].bad;
    o->waiter_at_k = nodes[3].waiter_at_k;
    rtcosim_can_bus_stats_get(bus, RUN_SEC * SEC, &o->stats);
    o->logged = rtcosim_can_bus_log_count(bus);
    o->log_bad = 0;
    const rtcosim_can_log_entry *e = rtcosim_can_bus_log(bus);
    for (size_t i = 0; i < o->logged; i++)
        if (!e[i].data || !matches(e[i].data, e[i].length, e[i].sender))
            o->log_bad++;
    o->digest = rtcosim_can_bus_log_digest(bus, &o->digested);
    if (stream)
        assert_int_equal(rtcosim_can_log_writer_close(stream, &err), RTCOSIM_OK);
    rtcosim_can_bus_free(bus);
    rtcosim_events_free(sim);
}

/* The sequential run: the XL flooder's 2048 bytes take about 1.9 ms on the
 * wire, the FD one's 64 about 0.36 ms; the XL flooder keeps two frames
 * queued, so the waiter's frame, queued at 1 s, goes only when the flood
 * pauses at 8 s: thousands of frames (MiB of bodies) after it was written. */
static const outcome *reference(void)
{
    static outcome ref;
    static bool done;
    if (!done) {
        run(RTCOSIM_SCHEDULER_SEQUENTIAL, 1, false, false, 0, 0, &ref);
        done = true;
    }
    return &ref;
}

static void check_against_reference(const outcome *o)
{
    const outcome *r = reference();
    assert_int_equal(o->bad, 0);
    assert_memory_equal(o->received, r->received, sizeof o->received);
    assert_int_equal(o->waiter_at_k, r->waiter_at_k);
    assert_int_equal(o->stats.frames, r->stats.frames);
    /* the bytes went back while the run went: about 1 MiB per 1.2 s of
     * flood, 14 chunks, at most a few held at once */
    assert_true(o->stats.frame_bytes_chunks_freed >= 10);
    assert_true(o->stats.frame_bytes_chunks_live_max <= 6);
}

static void sequential_runs_give_frame_bytes_back(void **state)
{
    (void)state;
    const outcome *r = reference();
    assert_int_equal(r->bad, 0);
    assert_int_equal(r->received[2], 1);
    /* an XL frame (about 1.9 ms) and an FD one (about 0.36 ms) per 2.3 ms:
     * about 3500 of each in 8 s, as many again after the pause */
    assert_true(r->received[0] > 6500 && r->received[1] > 6500);
    /* the waiter's frame went after every flood frame of the first 8 s:
     * about 6 MiB of XL bodies written after its own */
    assert_true(r->waiter_at_k > 6500 && r->waiter_at_k < r->received[0] + r->received[1]);
    assert_true(r->stats.frame_bytes_chunks_freed >= 10);
    assert_true(r->stats.frame_bytes_chunks_live_max <= 3);
}

static void stepped_runs_too(void **state)
{
    (void)state;
    outcome o;
    run(RTCOSIM_SCHEDULER_SEQUENTIAL, 1, false, true, 0, 0, &o);
    check_against_reference(&o);
}

static void conservative_threads_too(void **state)
{
    (void)state;
    outcome o;
    run(RTCOSIM_SCHEDULER_CONSERVATIVE, 2, false, false, 0, 0, &o);
    check_against_reference(&o);
    run(RTCOSIM_SCHEDULER_CONSERVATIVE, 2, true, false, 0, 0, &o);
    check_against_reference(&o);
}

static void global_and_lockstep_too(void **state)
{
    (void)state;
    outcome o;
    run(RTCOSIM_SCHEDULER_GLOBAL, 1, false, false, 0, 0, &o);
    check_against_reference(&o);
    run(RTCOSIM_SCHEDULER_LOCKSTEP, 1, false, false, 0, 0, &o);
    check_against_reference(&o);
}

static void speculation_too(void **state)
{
    (void)state;
    for (int repeat = 0; repeat < 3; repeat++) {
        outcome o;
        run(RTCOSIM_SCHEDULER_SPECULATIVE, 2, false, false, 0, 0, &o);
        check_against_reference(&o);
    }
}

/* Injected errors put the corrupted frame back into its queue at its end:
 * the bytes of the one to retransmit are held too. */
static void retransmitted_frames_keep_their_bytes(void **state)
{
    (void)state;
    outcome seq, spec;
    run(RTCOSIM_SCHEDULER_SEQUENTIAL, 1, false, false, 7, 0, &seq);
    assert_int_equal(seq.bad, 0);
    assert_true(seq.stats.bus_errors > 1000);
    assert_true(seq.stats.frame_bytes_chunks_freed >= 10);
    run(RTCOSIM_SCHEDULER_SPECULATIVE, 2, false, false, 7, 0, &spec);
    assert_int_equal(spec.bad, 0);
    assert_memory_equal(spec.received, seq.received, sizeof seq.received);
    assert_int_equal(spec.stats.bus_errors, seq.stats.bus_errors);
}

/* A log kept for after the run holds its frames' bytes itself: every entry
 * reads as sent after the run, the arena gave its chunks back all the
 * same, and speculation logs the same frames (digest). */
static void a_held_log_keeps_its_own_bytes(void **state)
{
    (void)state;
    outcome seq, spec;
    run(RTCOSIM_SCHEDULER_SEQUENTIAL, 1, false, false, 0, 1, &seq);
    assert_int_equal(seq.logged, seq.stats.frames);
    assert_int_equal(seq.log_bad, 0);
    assert_true(seq.stats.frame_bytes_chunks_freed >= 10);
    run(RTCOSIM_SCHEDULER_SPECULATIVE, 2, false, false, 0, 1, &spec);
    assert_int_equal(spec.logged, seq.logged);
    assert_int_equal(spec.log_bad, 0);
    assert_true(spec.digest == seq.digest);
}

/* A log for the digest alone (`rtcosim events --reference` compares two
 * runs' frames with it) covers every frame as the held log does, and holds
 * none of them once the run committed them. */
static void a_digest_only_log_keeps_nothing(void **state)
{
    (void)state;
    outcome held, seq, spec;
    run(RTCOSIM_SCHEDULER_SEQUENTIAL, 1, false, false, 0, 1, &held);
    run(RTCOSIM_SCHEDULER_SEQUENTIAL, 1, false, false, 0, 2, &seq);
    run(RTCOSIM_SCHEDULER_SPECULATIVE, 2, false, false, 0, 2, &spec);
    for (const outcome *o = &seq; o; o = o == &seq ? &spec : NULL) {
        assert_int_equal(o->logged, 0);
        assert_int_equal(o->digested, held.logged);
        assert_true(o->digest == held.digest);
    }
}

/* The arena's rule itself: a chunk goes back once the bump pointer has left
 * it, every time it was held for lies before the floor, and the bus's state
 * pins none of it; its memory is the next chunk's. */
static void a_chunk_goes_back_by_the_floor_its_holds_and_pins(void **state)
{
    (void)state;
    static can_arena a; /* 64 KiB of slots: not on the stack */
    static uint8_t body[XL_BYTES];
    memset(&a, 0, sizeof a);
    rtcosim_error err;
    uint64_t at;
    /* 512 bodies fill chunk 0, the k-th carried by an event at 1000 + k */
    for (uint32_t k = 0; k < 512; k++) {
        pattern(body, sizeof body, k, 0);
        assert_int_equal(can_arena_put(&a, body, sizeof body, 1000 + k, &at, "can0", &err),
                         RTCOSIM_OK);
        assert_int_equal(at, (uint64_t)k * sizeof body);
    }
    uint8_t *chunk0 = atomic_load(&a.chunks[0]);
    can_arena_reclaim(&a, 1511, UINT64_MAX); /* the last event is at 1511 */
    assert_int_equal(a.freed_chunks, 0);
    assert_true(matches(can_arena_at(&a, 511 * sizeof body, sizeof body), sizeof body, 0));
    can_arena_reclaim(&a, 1512, UINT64_MAX);
    assert_int_equal(a.freed_chunks, 1);
    assert_int_equal(atomic_load(&a.oldest), 1);
    assert_null(atomic_load(&a.chunks[0]));
    /* chunk 1 takes chunk 0's memory */
    for (uint32_t k = 512; k < 1024; k++) {
        pattern(body, sizeof body, k, 0);
        assert_int_equal(can_arena_put(&a, body, sizeof body, 2000, &at, "can0", &err),
                         RTCOSIM_OK);
    }
    assert_ptr_equal(atomic_load(&a.chunks[1]), chunk0);
    /* a hold past the floor keeps it (a body dropped at 5000), and so does
     * the bus's state naming one of its bodies */
    can_arena_hold(&a, 700 * sizeof body, sizeof body, 5000);
    can_arena_reclaim(&a, 3000, UINT64_MAX);
    assert_int_equal(a.freed_chunks, 1);
    can_arena_reclaim(&a, 5001, 900 * sizeof body);
    assert_int_equal(a.freed_chunks, 1);
    for (uint32_t k = 512; k < 1024; k += 37)
        assert_true(matches(can_arena_at(&a, (uint64_t)k * sizeof body, sizeof body),
                            sizeof body, 0));
    can_arena_reclaim(&a, 5001, UINT64_MAX);
    assert_int_equal(a.freed_chunks, 2);
    /* the chunk being written stays whatever the floor */
    assert_int_equal(can_arena_put(&a, body, 16, 6000, &at, "can0", &err), RTCOSIM_OK);
    can_arena_reclaim(&a, RTCOSIM_TIME_MAX - 1, UINT64_MAX);
    assert_int_equal(a.freed_chunks, 2);
    assert_int_equal(a.live_max, 2);
    /* a reset starts at offset 0 again, in memory it had */
    can_arena_reset(&a);
    pattern(body, sizeof body, 42, 0);
    assert_int_equal(can_arena_put(&a, body, sizeof body, 0, &at, "can0", &err), RTCOSIM_OK);
    assert_int_equal(at, 0);
    assert_true(matches(can_arena_at(&a, 0, sizeof body), sizeof body, 0));
    can_arena_free(&a);
}

/* The sender of a frame by its identifier (candump writes a CAN XL frame's
 * as its VCID, 00, and priority). */
static uint32_t sender_of(uint32_t id)
{
    return id == 0x10 ? 0 : id == 0x08 ? 1 : 2;
}

/* A log written while the run goes takes each frame's bytes at the commit
 * that makes it final, from the arena: they must still be there then (the
 * chunks go back only after the log took what it may). Every line of the
 * candump file, classic "ID#HEX", CAN FD "ID##F HEX", CAN XL
 * "VCIDPRIO#FLAGS:SDT:AF#HEX", holds its sender's pattern. */
static void a_streamed_log_takes_its_bytes_before_they_go_back(void **state)
{
    (void)state;
    for (int k = 0; k < 2; k++) {
        outcome o;
        run(k ? RTCOSIM_SCHEDULER_SPECULATIVE : RTCOSIM_SCHEDULER_SEQUENTIAL, k ? 2 : 1, false,
            false, 0, 3, &o);
        assert_int_equal(o.bad, 0);
        assert_true(o.stats.frame_bytes_chunks_freed >= 10);
        size_t size = 0;
        char *text = tu_read_file(tu_scratch("stream.log"), &size); /* (the helper's) */
        assert_non_null(text);
        size_t lines = 0, bad = 0;
        static uint8_t bytes[XL_BYTES];
        for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
            char *id = strchr(line, ' ') ? strchr(strchr(line, ' ') + 1, ' ') + 1 : NULL;
            char *hash = id ? strrchr(id, '#') : NULL;
            assert_non_null(hash);
            const char *hex = hash + 1 + (hash > id && hash[-1] == '#'); /* (FD: the flags) */
            uint32_t ident = (uint32_t)strtoul(id, NULL, 16) & 0x7FF;
            size_t n = strlen(hex) / 2;
            assert_true(n <= sizeof bytes);
            for (size_t i = 0; i < n; i++) {
                unsigned v;
                assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
                bytes[i] = (uint8_t)v;
            }
            bad += !matches(bytes, n, sender_of(ident));
            lines++;
        }
        assert_int_equal(lines, o.stats.frames);
        assert_int_equal(bad, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_chunk_goes_back_by_the_floor_its_holds_and_pins),
        cmocka_unit_test(sequential_runs_give_frame_bytes_back),
        cmocka_unit_test(stepped_runs_too),
        cmocka_unit_test(conservative_threads_too),
        cmocka_unit_test(global_and_lockstep_too),
        cmocka_unit_test(speculation_too),
        cmocka_unit_test(retransmitted_frames_keep_their_bytes),
        cmocka_unit_test(a_held_log_keeps_its_own_bytes),
        cmocka_unit_test(a_digest_only_log_keeps_nothing),
        cmocka_unit_test(a_streamed_log_takes_its_bytes_before_they_go_back),
    };
    return cmocka_run_group_tests(tests, tu_scratch_group_setup, tu_scratch_group_teardown);
}
