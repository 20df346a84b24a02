/* A bus's log streamed to a writer while the run goes
 * (rtcosim_can_bus_stream_log): the frames in memory stay few however long
 * the run (committed ones leave at every commit), and the file holds every
 * frame in order. A node sends one 8-byte frame every millisecond for 20 s
 * (20000 frames) carrying its number; it looks at the bus's log in memory
 * before every frame. Truth: the numbers 0 .. 19999 in order, each frame
 * ending within the millisecond it was sent in. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/can.h"
#include "rtcosim/can_log.h"
#include "util/test_util.h"

#define FRAMES 20000
#define PERIOD (RTCOSIM_NS_PER_MS)
#define TX_DELAY 1000

typedef struct sender {
    uint32_t sent;   /* the LP's state (first: what the speculative scheduler saves) */
    uint32_t node;
    rtcosim_can_bus *bus;
    size_t max_held; /* the most frames the bus held at once (kept over rollbacks) */
} sender;

static rtcosim_status sender_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    (void)state;
    return rtcosim_lp_send(lp, rtcosim_lp_self(lp), 0, 1, 0, NULL, 0, err);
}

static rtcosim_status sender_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                   rtcosim_error *err)
{
    (void)ev;
    sender *s = state;
    size_t held = rtcosim_can_bus_log_count(s->bus);
    if (held > s->max_held)
        s->max_held = held;
    rtcosim_can_frame f = {.id = 0x123, .dlc = 8};
    memcpy(f.data, &s->sent, sizeof s->sent);
    s->sent++;
    rtcosim_status st = rtcosim_can_transmit(lp, s->bus, s->node, &f, TX_DELAY, err);
    if (st == RTCOSIM_OK && s->sent < FRAMES)
        st = rtcosim_lp_send(lp, rtcosim_lp_self(lp), PERIOD, 1, 0, NULL, 0, err);
    return st;
}

static const rtcosim_lp_model sender_model = {
    .kind = "sender", .init = sender_init, .event = sender_event,
    .state_size = sizeof(uint32_t)};

/* One run on `scheduler` (one thread: the sender reads the bus's log on
 * the bus's thread), streamed to path. */
static void run_streamed(rtcosim_scheduler scheduler, const char *path)
{
    rtcosim_error err = {0};
    rtcosim_events *sim;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    rtcosim_can_bus_config c = {.name = "can0", .log_frames = true};
    rtcosim_can_bus *bus;
    assert_int_equal(rtcosim_can_bus_create(sim, &c, &bus, &err), RTCOSIM_OK);
    sender *s = calloc(1, sizeof *s);
    assert_non_null(s);
    s->bus = bus;
    rtcosim_lp_id lp;
    assert_int_equal(rtcosim_events_add_lp(sim, "sender", &sender_model, s, RTCOSIM_LP_NO_GROUP,
                                           &lp, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_can_bus_add_node(bus, "sender", lp, TX_DELAY, &s->node, &err),
                     RTCOSIM_OK);
    assert_int_equal(rtcosim_can_bus_add_tx(bus, s->node, 0x123, false, 8, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_can_bus_connect(bus, &err), RTCOSIM_OK);
    rtcosim_can_log_layout layout;
    rtcosim_can_bus_log_layout(bus, &layout);
    assert_false(layout.fd);
    assert_false(layout.xl);
    rtcosim_can_log_writer *w;
    assert_int_equal(rtcosim_can_log_writer_open(path, RTCOSIM_CAN_LOG_CANDUMP, "can0", &layout,
                                                 &w, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_can_bus_stream_log(bus, w, &err), RTCOSIM_OK);
    rtcosim_run_options o = {.scheduler = scheduler, .threads = 1,
                             .stop_time = FRAMES * PERIOD};
    rtcosim_run_stats stats;
    if (rtcosim_events_run(sim, &o, &stats, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(rtcosim_can_log_writer_close(w, &err), RTCOSIM_OK);
    print_message("%s: at most %zu frames in memory of %d\n", rtcosim_scheduler_name(scheduler),
                  s->max_held, FRAMES);
    /* the bus processes three events a frame (request, arbitration, end):
     * a commit every 1024 of them is one every ~341 frames; under
     * speculation every GVT round */
    assert_true(s->max_held < FRAMES / 20);
    /* in timestamp order the sender did look while frames were held (the
     * global and speculative schedulers may run it ahead of the bus) */
    if (scheduler == RTCOSIM_SCHEDULER_SEQUENTIAL || scheduler == RTCOSIM_SCHEDULER_CONSERVATIVE)
        assert_true(s->max_held > 0);
    assert_int_equal(rtcosim_can_bus_log_count(bus), 0);
    assert_int_equal(rtcosim_can_bus_log_written(bus), FRAMES);
    rtcosim_can_bus_free(bus);
    rtcosim_events_free(sim);
    free(s);

    rtcosim_can_log *log;
    if (rtcosim_can_log_read(path, &log, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(rtcosim_can_log_count(log), FRAMES);
    const rtcosim_can_log_record *r = rtcosim_can_log_records(log);
    for (uint32_t i = 0; i < FRAMES; i++) {
        uint32_t number;
        assert_int_equal(r[i].id, 0x123);
        assert_int_equal(r[i].size, 8);
        memcpy(&number, r[i].data, sizeof number);
        assert_int_equal(number, i);
        /* candump -l has microseconds */
        assert_true(r[i].time > (rtcosim_time_ns)i * PERIOD + TX_DELAY &&
                    r[i].time < (rtcosim_time_ns)(i + 1) * PERIOD);
    }
    rtcosim_can_log_free(log);
}

static void streamed_log_keeps_few_frames_in_memory(void **state)
{
    (void)state;
    run_streamed(RTCOSIM_SCHEDULER_SEQUENTIAL, tu_scratch("sequential.log"));
    run_streamed(RTCOSIM_SCHEDULER_CONSERVATIVE, tu_scratch("conservative.log"));
    run_streamed(RTCOSIM_SCHEDULER_SPECULATIVE, tu_scratch("speculative.log"));
    run_streamed(RTCOSIM_SCHEDULER_GLOBAL, tu_scratch("global.log"));
}

/* Without a stream the bus keeps its whole log, as before. */
static void stream_needs_a_logging_bus(void **state)
{
    (void)state;
    rtcosim_error err = {0};
    rtcosim_events *sim;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    rtcosim_can_bus_config c = {.name = "can0"};
    rtcosim_can_bus *bus;
    assert_int_equal(rtcosim_can_bus_create(sim, &c, &bus, &err), RTCOSIM_OK);
    rtcosim_can_log_writer *w;
    assert_int_equal(rtcosim_can_log_writer_open(tu_scratch("none.log"), RTCOSIM_CAN_LOG_CANDUMP,
                                                 "can0", NULL, &w, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_can_bus_stream_log(bus, w, &err), RTCOSIM_ESTATE);
    assert_non_null(strstr(err.message, "log_frames"));
    assert_int_equal(rtcosim_can_log_writer_close(w, &err), RTCOSIM_OK);
    rtcosim_can_bus_free(bus);
    rtcosim_events_free(sim);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(streamed_log_keeps_few_frames_in_memory),
        cmocka_unit_test(stream_needs_a_logging_bus),
    };
    return cmocka_run_group_tests(tests, tu_scratch_group_setup, tu_scratch_group_teardown);
}
