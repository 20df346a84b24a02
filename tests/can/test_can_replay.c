/* A recorded log played onto a bus (src/can/replay.c). Truth: frame
 * durations by hand at 500 kbit/s (2 us a bit): 0x0C8 without data 50 bits
 * (100 us), extended 0x18FEF100 with 01..08 143 bits (286 us), 0x000 with
 * eight zero bytes 127 bits (254 us) (tests/can/test_can.c); a receiver
 * with every frame (rx_all) records each frame's start and end; times from
 * the logs' texts. Each case runs twice: the log parsed and given to
 * rtcosim_can_replay_add, and the log written to a file named t.log that
 * rtcosim_can_replay_add_file reads a frame at a time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "rtcosim/can_log.h"

typedef struct got {
    rtcosim_time_ns start[32], end[32];
    uint32_t id[32];
    uint8_t first[32];
    int n;
} got;

static rtcosim_status listener_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                     rtcosim_error *err)
{
    (void)err;
    got *g = state;
    const rtcosim_can_rx *rx = rtcosim_can_rx_of(ev);
    if (!rx || g->n == 32)
        return RTCOSIM_OK;
    g->start[g->n] = rx->start;
    g->end[g->n] = rtcosim_lp_now(lp);
    g->id[g->n] = rx->frame.id;
    g->first[g->n] = rx->frame.data[0];
    g->n++;
    return RTCOSIM_OK;
}
static const rtcosim_lp_model listener_model = {.kind = "test-listener",
                                                .event = listener_event};

/* A node that sends 0x000 (eight zero bytes) once at `at`, with a TX
 * database, so the replay leaves out frames of 0x000. */
typedef struct sender {
    rtcosim_can_bus *bus;
    uint32_t node;
    rtcosim_time_ns at;
} sender;
static rtcosim_status sender_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    sender *s = state;
    rtcosim_can_frame f = {.id = 0x000, .dlc = 8};
    return s->at < 0 ? RTCOSIM_OK : rtcosim_can_transmit(lp, s->bus, s->node, &f, s->at, err);
}
static const rtcosim_lp_model sender_model = {.kind = "test-sender", .init = sender_init};

static bool from_file; /* this case's run: by rtcosim_can_replay_add_file */

static rtcosim_status add_replay(rtcosim_events *sim, rtcosim_can_bus *bus, const char *text,
                                 const char *log_bus, rtcosim_can_replay **replay,
                                 rtcosim_error *err)
{
    rtcosim_can_log *log = NULL;
    rtcosim_status st;
    if (!from_file) {
        st = rtcosim_can_log_parse(text, strlen(text), "t.log", &log, err);
        if (st == RTCOSIM_OK &&
            (st = rtcosim_can_replay_add(sim, bus, log, "t.log", log_bus, replay, err)) != RTCOSIM_OK)
            rtcosim_can_log_free(log);
        return st;
    }
    char dir[] = "/tmp/rtcosim-replay-XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/t.log", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
    st = rtcosim_can_replay_add_file(sim, bus, path, log_bus, replay, err);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
    return st;
}

static rtcosim_status run(const char *text, const char *log_bus, rtcosim_time_ns send_at,
                          got *g, rtcosim_can_replay_stats *stats, rtcosim_error *err)
{
    rtcosim_events *sim = NULL;
    rtcosim_can_bus *bus = NULL;
    rtcosim_can_replay *replay = NULL;
    static sender s;
    memset(g, 0, sizeof *g);
    rtcosim_can_bus_config bc = {.name = "can0", .bitrate = 500000};
    rtcosim_lp_id lis, snd;
    uint32_t node;
    rtcosim_status st = rtcosim_events_create(&sim, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_can_bus_create(sim, &bc, &bus, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_events_add_lp(sim, "listener", &listener_model, g, RTCOSIM_LP_NO_GROUP, &lis,
                                   err);
    if (st == RTCOSIM_OK)
        st = rtcosim_can_bus_add_node(bus, "listener", lis, 1000, &node, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_can_bus_add_rx_all(bus, node, err);
    s = (sender){.bus = bus, .at = send_at};
    if (st == RTCOSIM_OK)
        st = rtcosim_events_add_lp(sim, "sender", &sender_model, &s, RTCOSIM_LP_NO_GROUP, &snd,
                                   err);
    if (st == RTCOSIM_OK)
        st = rtcosim_can_bus_add_node(bus, "sender", snd, 0, &s.node, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_can_bus_add_tx(bus, s.node, 0x000, false, 8, err);
    if (st == RTCOSIM_OK)
        st = add_replay(sim, bus, text, log_bus, &replay, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_can_bus_connect(bus, err);
    rtcosim_run_options o = {.scheduler = RTCOSIM_SCHEDULER_SEQUENTIAL,
                             .stop_time = RTCOSIM_NS_PER_S};
    rtcosim_run_stats rs;
    if (st == RTCOSIM_OK)
        st = rtcosim_events_run(sim, &o, &rs, err);
    if (replay)
        rtcosim_can_replay_stats_get(replay, stats);
    rtcosim_can_replay_free(replay);
    rtcosim_can_bus_free(bus);
    rtcosim_events_free(sim);
    return st;
}

/* candump -l times since 1970: the replay counts from the whole second of
 * the first frame, so 0x0C8 ends at 0.250000 s and starts 100 us before;
 * the extended frame ends at 0.500000 s; the remote frame is counted, not
 * sent; 0x000, which the sender's TX database holds, is left out. */
static void a_candump_log_replays_at_its_times(void **state)
{
    from_file = *state != NULL;
    const char *text = "(1436509052.250000) can0 0C8#\n"
                       "(1436509052.300000) can0 123#R\n"
                       "(1436509052.400000) can0 000#0000000000000000\n"
                       "(1436509052.500000) can0 18FEF100#0102030405060708\n";
    got g;
    rtcosim_can_replay_stats s;
    rtcosim_error err;
    if (run(text, NULL, -1, &g, &s, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(s.origin, 1436509052LL * RTCOSIM_NS_PER_S);
    assert_int_equal(s.frames, 2);
    assert_int_equal(s.remote_skipped, 1);
    assert_int_equal(s.own_skipped, 1);
    assert_int_equal(g.n, 2);
    assert_int_equal(g.id[0], 0x0C8);
    assert_int_equal(g.start[0], 250000000 - 100000);
    assert_int_equal(g.end[0], 250000000);
    assert_int_equal(g.id[1], 0x18FEF100);
    assert_int_equal(g.end[1], 500000000);
    assert_int_equal(g.start[1], 500000000 - 286000);
    assert_int_equal(g.first[1], 1);
}

/* ASC counts from its measurement start, as the replay; a frame due before
 * 0 goes at the start. The live sender's 0x000 (254 us) requested at
 * 0.4998 s holds the bus when the replayed 0x0C8 would start (0.4999 s): it
 * waits and ends 100 us after 0x000's end (0.500054 s). */
static void an_asc_log_arbitrates_with_the_live_nodes(void **state)
{
    from_file = *state != NULL;
    const char *text = "date Thu Jan 1 12:00:00.000 am 1970\n"
                       "base hex  timestamps absolute\n"
                       "   0.000050 1  C8              Rx   d 0\n"
                       "   0.500000 1  C8              Rx   d 0\n";
    got g;
    rtcosim_can_replay_stats s;
    rtcosim_error err;
    if (run(text, NULL, 499800000, &g, &s, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(s.origin, 0);
    assert_int_equal(s.early, 1);
    assert_int_equal(g.n, 3);
    assert_int_equal(g.start[0], 0);
    assert_int_equal(g.end[0], 100000);
    assert_int_equal(g.id[1], 0x000);
    assert_int_equal(g.end[1], 499800000 + 254000);
    assert_int_equal(g.id[2], 0x0C8);
    assert_int_equal(g.start[2], 499800000 + 254000);
    assert_int_equal(g.end[2], 499800000 + 254000 + 100000);
}

/* A log of two buses: one named is played, none named is refused, a name
 * not in the log is refused naming the log's buses. */
static void a_log_of_two_buses_needs_one_named(void **state)
{
    from_file = *state != NULL;
    const char *text = "(0.100000) can0 0C8#\n(0.200000) can1 0C9#\n";
    got g;
    rtcosim_can_replay_stats s;
    rtcosim_error err;
    assert_int_equal(run(text, NULL, -1, &g, &s, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "t.log: the log has frames of 2 buses (can0, can1)"));
    assert_int_equal(run(text, "can2", -1, &g, &s, &err), RTCOSIM_ENOTFOUND);
    assert_non_null(strstr(err.message, "t.log: no bus 'can2' in the log"));
    if (run(text, "can1", -1, &g, &s, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(g.n, 1);
    assert_int_equal(g.id[0], 0x0C9);
    assert_int_equal(g.end[0], 200000000);
}

/* A log out of time order is played in the order of its frames' times, each
 * ending where the log says. */
static void a_log_out_of_order_plays_in_time_order(void **state)
{
    from_file = *state != NULL;
    const char *text = "(0.300000) can0 0C9#\n(0.100000) can0 0C8#\n(0.200000) can0 0CA#\n";
    got g;
    rtcosim_can_replay_stats s;
    rtcosim_error err;
    if (run(text, NULL, -1, &g, &s, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(g.n, 3);
    assert_int_equal(g.id[0], 0x0C8);
    assert_int_equal(g.end[0], 100000000);
    assert_int_equal(g.id[1], 0x0CA);
    assert_int_equal(g.end[1], 200000000);
    assert_int_equal(g.id[2], 0x0C9);
    assert_int_equal(g.end[2], 300000000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_candump_log_replays_at_its_times),
        cmocka_unit_test(an_asc_log_arbitrates_with_the_live_nodes),
        cmocka_unit_test(a_log_of_two_buses_needs_one_named),
        cmocka_unit_test_prestate(a_candump_log_replays_at_its_times, (void *)1),
        cmocka_unit_test_prestate(an_asc_log_arbitrates_with_the_live_nodes, (void *)1),
        cmocka_unit_test_prestate(a_log_of_two_buses_needs_one_named, (void *)1),
        cmocka_unit_test(a_log_out_of_order_plays_in_time_order),
        cmocka_unit_test_prestate(a_log_out_of_order_plays_in_time_order, (void *)1),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
