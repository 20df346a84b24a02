/* A model for tests of the speculative scheduler's deferred handler
 * failures (test_speculative_end.c on threads, test_distributed.c over
 * ranks): A (LP 0) and B (LP 1), on different threads or ranks. B ticks
 * every 100 us and fails at a tick from 2 ms on that comes before A's
 * message, which A sends at 1 ms for 2 ms (sorting before B's tick at 2 ms:
 * A is LP 0). In the sequential order B never fails. A waits in wall time
 * (up to 2 s) until B has speculatively reached its tick at 2 ms (and
 * failed), so the message arrives as a straggler. */
#ifndef RTCOSIM_TESTS_EVENTS_PAIR_MODEL_H
#define RTCOSIM_TESTS_EVENTS_PAIR_MODEL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "rtcosim/events.h"
#include "util/test_util.h"

typedef struct pair_lp {
    int role; /* 0 A, 1 B */
    uint64_t hash, ticks;
    bool got_a;
} pair_lp;

static _Atomic rtcosim_time_ns pair_b_max;
static bool pair_waited_out;

static rtcosim_status pair_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    const pair_lp *p = state;
    return rtcosim_lp_send(lp, rtcosim_lp_self(lp), p->role == 0 ? RTCOSIM_NS_PER_MS : 0, 1, 0,
                           NULL, 0, err);
}

static rtcosim_status pair_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                 rtcosim_error *err)
{
    pair_lp *p = state;
    rtcosim_time_ns now = rtcosim_lp_now(lp);
    p->hash = (p->hash ^ (uint64_t)ev->time ^ ((uint64_t)ev->src << 56)) * UINT64_C(0x100000001B3);
    if (p->role == 0) {
        int64_t give_up = tu_now_ns() + 2000000000;
        while (atomic_load(&pair_b_max) < 2 * RTCOSIM_NS_PER_MS && tu_now_ns() < give_up) {
        }
        pair_waited_out = atomic_load(&pair_b_max) < 2 * RTCOSIM_NS_PER_MS;
        return rtcosim_lp_send(lp, 1, RTCOSIM_NS_PER_MS, 2, 0, NULL, 0, err);
    }
    if (now > atomic_load(&pair_b_max))
        atomic_store(&pair_b_max, now);
    if (ev->src == 0) {
        p->got_a = true;
        return RTCOSIM_OK;
    }
    if (now >= 2 * RTCOSIM_NS_PER_MS && !p->got_a)
        return rtcosim_error_set(err, RTCOSIM_EIO, "tick at %.4f s before A's message",
                                 rtcosim_time_to_seconds(now));
    p->ticks++;
    return rtcosim_lp_send(lp, 1, 100 * RTCOSIM_NS_PER_US, 1, 0, NULL, 0, err);
}

static const rtcosim_lp_model pair_model = {.kind = "pair", .init = pair_init,
                                            .event = pair_event, .state_size = sizeof(pair_lp)};

/* Add A and B (lps[0], lps[1]) and A's link to B. */
static rtcosim_status pair_build(rtcosim_events *sim, pair_lp lps[2], rtcosim_error *err)
{
    const char *names[2] = {"A", "B"};
    rtcosim_status st = RTCOSIM_OK;
    for (int i = 0; i < 2 && st == RTCOSIM_OK; i++) {
        lps[i] = (pair_lp){.role = i};
        st = rtcosim_events_add_lp(sim, names[i], &pair_model, &lps[i], RTCOSIM_LP_NO_GROUP,
                                   NULL, err);
    }
    return st == RTCOSIM_OK ? rtcosim_events_add_link(sim, 0, 1, RTCOSIM_NS_PER_MS, err) : st;
}

#endif
