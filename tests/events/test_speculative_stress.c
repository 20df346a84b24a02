/* A randomized stress test of the speculative (Time Warp) scheduler: random
 * small models run sequentially (the reference), conservatively, and
 * speculatively in every combination of 2/3 threads, lazy/aggressive
 * cancellation, checkpoint interval 1/3/default and a small/adaptive optimism
 * bound; each LP hashes every event it sees into its saved state, so the
 * committed histories must equal the reference bit for bit.
 * The models: 3..12 LPs on random links (lookahead 0..3 us, zero links
 * acyclic), some grouped, a start time of 0, -5 us or 1 s, small states
 * (state_size) or large ones saved by handlers in snapshots of varying size
 * (periodic checkpoints and coasting); tokens wander, each handler sending
 * 0..3 events (zero delay to itself or over zero links, several with one
 * delay, ties in time from several sources, priorities 0..2). Four send
 * rules: from the LP's state (a rollback changes every send: cancellation),
 * from the received event only (lazy cancellation keeps them), the same on a
 * 1 us grid with equal priorities (stragglers at the instant of the
 * receiver's own events: the rule that a new send never shares the order key
 * of a waiting one), and mixed (some sends kept, some changed). One LP in
 * four worlds cannot save its state (it runs conservatively among the
 * speculative ones); a minimal case of that LP's order closes the file. */
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/events.h"

enum { MAX_LPS = 12 };


typedef enum send_rule {
    SENDS_FROM_STATE, /* what an LP sends depends on everything it saw */
    SENDS_FROM_EVENT, /* only on the event being processed */
    SENDS_ON_GRID,    /* from the event, on a coarse grid of instants */
    SENDS_MIXED       /* tokens from the event, the rest from the state */
} send_rule;

enum { RULES = 4 };
static const char *const rule_names[RULES] = {"state", "event", "grid", "mixed"};

/* One random model: topology and send rule (shared, read-only in a run). */
typedef struct world {
    send_rule rule;
    unsigned lps;
    rtcosim_time_ns unit;              /* every delay is a multiple of it */
    rtcosim_time_ns la[MAX_LPS][MAX_LPS]; /* lookahead of i -> j, -1: no link */
    unsigned out[MAX_LPS][MAX_LPS];    /* the LPs i may send to (itself first) */
    unsigned out_count[MAX_LPS];
    unsigned tokens;                   /* initial tokens per LP */
    bool big;                          /* a large state, saved by handlers */
    bool plain0;                       /* LP 0 cannot save its state */
    rtcosim_time_ns start;
} world;

/* An LP's state, saved by the kernel (state_size). */
enum { PAD_WORDS = 24 };
typedef struct stress_lp {
    const world *w;
    unsigned index;
    uint64_t hash, count, draws;
    /* big worlds: words written so far (pad[used..] stay 0) */
    uint64_t used;
    uint64_t pad[PAD_WORDS];
} stress_lp;

enum { EV_TOKEN = 1, EV_LEAF = 2, EV_TERMINAL = 3 };

static uint64_t mix64(uint64_t x)
{
    x += UINT64_C(0x9E3779B97F4A7C15);
    x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
    return x ^ (x >> 31);
}

static uint64_t fold(uint64_t h, uint64_t v) { return mix64(h ^ v) + v; }

/* A test-side generator for building the models (not the kernel's). */
static uint64_t gen_next(uint64_t *s)
{
    *s += UINT64_C(0x9E3779B97F4A7C15);
    return mix64(*s);
}

static uint64_t event_digest(const rtcosim_event *ev)
{
    uint64_t h = fold((uint64_t)ev->time, ev->src);
    h = fold(h, (uint64_t)ev->type << 32 | rtcosim_event_priority(ev) << 16 | ev->size);
    for (uint16_t i = 0; i < ev->size; i++)
        h = fold(h, ev->payload[i]);
    return h;
}

/* Draw from the decision stream `x` (advanced). */
static unsigned pick(uint64_t *x, unsigned n)
{
    *x = mix64(*x);
    return (unsigned)(*x % n);
}

static rtcosim_status send_one(rtcosim_lp *lp, const stress_lp *s, uint64_t *x, uint16_t type,
                               unsigned dst, rtcosim_time_ns extra, rtcosim_error *err)
{
    const world *w = s->w;
    bool from_state = w->rule == SENDS_FROM_STATE || (w->rule == SENDS_MIXED && type != EV_TOKEN);
    rtcosim_time_ns la = dst == s->index ? 0 : w->la[s->index][dst];
    uint16_t priority = w->rule == SENDS_ON_GRID ? 0 : (uint16_t)pick(x, 3);
    unsigned char payload[24];
    size_t size = pick(x, 4) * 8;
    for (size_t i = 0; i < size; i += 8) {
        uint64_t v = from_state ? s->hash ^ i : mix64(*x + i);
        memcpy(payload + i, &v, 8);
    }
    return rtcosim_lp_send(lp, dst, la + extra, type, priority, payload, size, err);
}

static rtcosim_status stress_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    stress_lp *s = state;
    rtcosim_status st = RTCOSIM_OK;
    for (unsigned k = 0; k < s->w->tokens && st == RTCOSIM_OK; k++) {
        uint64_t x = mix64(s->index * 131u + k);
        st = send_one(lp, s, &x, EV_TOKEN, s->index, (rtcosim_time_ns)pick(&x, 4) * s->w->unit,
                      err);
    }
    return st;
}

/* A planned failure: LP stress_fail_lp fails at its stress_fail_at-th event
 * (UINT_MAX: none), a condition of its own history, so the sequential run
 * fails at one event and a speculative run must fail there too, whatever
 * its phantom histories hit first. */
static unsigned stress_fail_lp = UINT_MAX;
static uint64_t stress_fail_at;

static rtcosim_status stress_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                   rtcosim_error *err)
{
    stress_lp *s = state;
    const world *w = s->w;
    s->count++;
    if (s->index == stress_fail_lp && s->count == stress_fail_at)
        return rtcosim_error_set(err, RTCOSIM_EIO, "planned failure at its event %" PRIu64,
                                 s->count);
    s->hash = fold(s->hash, event_digest(ev));
    /* the kernel's stream is part of the restored state: hash a draw */
    uint64_t r = rtcosim_lp_random_u64(lp);
    s->draws = fold(s->draws, r);
    s->hash = fold(s->hash, s->draws);
    /* (the depth in the tie too: a zero-delay self-send chain must end) */
    if (w->big) {
        /* a state larger than the kernel's small-snapshot size: periodic
         * checkpoints and coasting by default; snapshots of varying size */
        unsigned k = (unsigned)(s->hash % PAD_WORDS);
        s->pad[k] = fold(s->pad[k], s->hash);
        if (k + 1 > s->used)
            s->used = k + 1;
        if ((s->hash >> 40) % 8 == 0) { /* shrink now and then */
            memset(&s->pad[k + 1], 0, (PAD_WORDS - k - 1) * sizeof s->pad[0]);
            s->used = k + 1;
        }
        s->hash = fold(s->hash, s->pad[(s->hash >> 17) % PAD_WORDS]);
    }
    uint64_t x = w->rule == SENDS_FROM_STATE ? r ^ s->hash : fold(event_digest(ev), ev->tie);
    const unsigned n = w->out_count[s->index];
    const unsigned span = w->rule == SENDS_ON_GRID ? 2 : 4;
    rtcosim_status st = RTCOSIM_OK;
    if (ev->type == EV_TOKEN) {
        /* the token moves on (one self-send in 8 at the same instant) */
        unsigned dst = w->out[s->index][pick(&x, n)];
        rtcosim_time_ns extra = (rtcosim_time_ns)pick(&x, span) * w->unit;
        if (dst == s->index && extra == 0 && pick(&x, 8) != 0)
            extra = w->unit;
        st = send_one(lp, s, &x, EV_TOKEN, dst, extra, err);
        if (w->rule == SENDS_MIXED) /* a rollback may change the leaves, not the token */
            x = r ^ s->hash;
        /* and leaves 0..2 events: sometimes twice to one LP with one delay */
        unsigned leaves = pick(&x, 3);
        unsigned ldst = w->out[s->index][pick(&x, n)];
        rtcosim_time_ns lextra = (rtcosim_time_ns)pick(&x, span) * w->unit;
        bool same = pick(&x, 2) == 0;
        for (unsigned k = 0; k < leaves && st == RTCOSIM_OK; k++) {
            if (!same) {
                ldst = w->out[s->index][pick(&x, n)];
                lextra = (rtcosim_time_ns)pick(&x, span) * w->unit;
            }
            st = send_one(lp, s, &x, EV_LEAF, ldst, lextra, err);
        }
    } else if (ev->type == EV_LEAF && pick(&x, 3) == 0) {
        /* a terminal event at this instant, to itself or over a zero link */
        unsigned dst = w->out[s->index][pick(&x, n)];
        if (w->la[s->index][dst] != 0)
            dst = s->index;
        st = send_one(lp, s, &x, EV_TERMINAL, dst, 0, err);
    }
    return st;
}

static size_t big_snapshot_max(const void *state)
{
    (void)state;
    return sizeof(stress_lp);
}

static rtcosim_status big_save(const void *state, void *buffer, size_t capacity, size_t *used,
                               rtcosim_error *err)
{
    const stress_lp *s = state;
    size_t n = offsetof(stress_lp, pad) + s->used * sizeof s->pad[0];
    if (n > capacity)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "snapshot of %zu bytes > %zu", n, capacity);
    memcpy(buffer, s, n);
    *used = n;
    return RTCOSIM_OK;
}

static rtcosim_status big_restore(void *state, const void *buffer, size_t size,
                                  rtcosim_error *err)
{
    (void)err;
    stress_lp *s = state;
    memset(s, 0, sizeof *s);
    memcpy(s, buffer, size);
    return RTCOSIM_OK;
}

static const rtcosim_lp_model stress_model = {.kind = "stress", .init = stress_init,
                                              .event = stress_event,
                                              .state_size = offsetof(stress_lp, pad)};
static const rtcosim_lp_model stress_big_model = {.kind = "stress-big", .init = stress_init,
                                                  .event = stress_event,
                                                  .snapshot_max = big_snapshot_max,
                                                  .save = big_save, .restore = big_restore};
/* No state saving: run conservatively among the speculative LPs (its inputs
 * have positive lookahead: zero links only go from lower to higher index). */
static const rtcosim_lp_model stress_plain_model = {.kind = "stress-plain", .init = stress_init,
                                                    .event = stress_event};

/* Build a random world from `seed`. */
static void world_make(world *w, uint64_t seed, send_rule rule)
{
    uint64_t g = seed * UINT64_C(0x2545F4914F6CDD1D) + rule;
    memset(w, 0, sizeof *w);
    w->rule = rule;
    w->lps = rule == SENDS_ON_GRID ? 3 + (unsigned)(gen_next(&g) % 3)
                                   : 3 + (unsigned)(gen_next(&g) % 10);
    w->unit = RTCOSIM_NS_PER_US;
    w->tokens = 1 + (unsigned)(gen_next(&g) % 2);
    w->big = gen_next(&g) % 2 == 0;
    w->plain0 = gen_next(&g) % 4 == 0;
    const rtcosim_time_ns starts[] = {0, -5 * RTCOSIM_NS_PER_US, RTCOSIM_NS_PER_S};
    w->start = starts[gen_next(&g) % 3];
    for (unsigned i = 0; i < w->lps; i++) {
        for (unsigned j = 0; j < w->lps; j++)
            w->la[i][j] = -1;
        w->out[i][w->out_count[i]++] = i;
    }
    for (unsigned i = 0; i < w->lps; i++)
        for (unsigned j = 0; j < w->lps; j++) {
            if (i == j || gen_next(&g) % 3 == 0)
                continue;
            /* zero lookahead only forward (i < j): no zero cycle */
            unsigned kind = (unsigned)(gen_next(&g) % 8);
            rtcosim_time_ns la = rule == SENDS_ON_GRID ? 1 : kind == 0 && i < j ? 0 : 1 + kind % 3;
            w->la[i][j] = la * w->unit;
            w->out[i][w->out_count[i]++] = j;
        }
}

typedef struct instance {
    world w;
    stress_lp lps[MAX_LPS];
    rtcosim_events *sim;
} instance;

static void instance_build(instance *in, uint64_t seed, send_rule rule)
{
    rtcosim_error err;
    world_make(&in->w, seed, rule);
    assert_int_equal(rtcosim_events_create(&in->sim, &err), RTCOSIM_OK);
    uint64_t g = seed ^ UINT64_C(0xA5A5);
    for (unsigned i = 0; i < in->w.lps; i++) {
        char name[16];
        snprintf(name, sizeof name, "lp%u", i);
        /* one LP in four shares a thread with another */
        uint32_t group = gen_next(&g) % 4 == 0 ? (uint32_t)(gen_next(&g) % in->w.lps)
                                               : RTCOSIM_LP_NO_GROUP;
        assert_int_equal(rtcosim_events_add_lp(in->sim, name,
                                               i == 0 && in->w.plain0 ? &stress_plain_model
                                               : in->w.big            ? &stress_big_model
                                                                      : &stress_model,
                                               &in->lps[i], group,
                                               NULL, &err),
                         RTCOSIM_OK);
    }
    for (unsigned i = 0; i < in->w.lps; i++)
        for (unsigned j = 0; j < in->w.lps; j++)
            if (in->w.la[i][j] >= 0)
                assert_int_equal(rtcosim_events_add_link(in->sim, i, j, in->w.la[i][j], &err),
                                 RTCOSIM_OK);
}

static void instance_reset(instance *in)
{
    for (unsigned i = 0; i < in->w.lps; i++)
        in->lps[i] = (stress_lp){.w = &in->w, .index = i};
}

typedef struct totals {
    uint64_t runs, rollbacks, rolled_back, coasted, anti_messages;
    uint64_t reused[RULES]; /* sends kept by lazy cancellation, per send rule */
    uint64_t events, failures;
    uint64_t planned_failures; /* speculative runs that ended at the planned failure */
} totals;

/* Every difference is printed and counted (the test fails at the end), so
 * that one run shows all the configurations a seed breaks. */
#define MISMATCH(...)                                                                              \
    do {                                                                                           \
        print_error(__VA_ARGS__);                                                                  \
        print_error("\n");                                                                         \
        t->failures++;                                                                             \
    } while (0)

/* Run and compare with the reference; on a difference, say which run. */
static void run_and_compare(instance *in, const rtcosim_run_options *o, const stress_lp *ref,
                            const rtcosim_run_stats *ref_stats, uint64_t seed, totals *t)
{
    rtcosim_error err;
    rtcosim_run_stats stats;
    instance_reset(in);
    t->runs++;
    char what[200];
    snprintf(what, sizeof what,
             "seed %" PRIu64 " rule %s lps %u%s%s: %s threads %u %s checkpoint %u max_ahead %" PRId64,
             seed, rule_names[in->w.rule], in->w.lps, in->w.big ? " big" : "",
             in->w.plain0 ? " plain0" : "",
             rtcosim_scheduler_name(o->scheduler),
             o->threads, o->aggressive_cancellation ? "aggressive" : "lazy",
             o->checkpoint_interval, o->max_ahead);
    rtcosim_status st = rtcosim_events_run(in->sim, o, &stats, &err);
    if (st != RTCOSIM_OK) {
        MISMATCH("%s: run failed: %s", what, err.message);
        return;
    }
    for (unsigned i = 0; i < in->w.lps; i++)
        if (in->lps[i].hash != ref[i].hash || in->lps[i].count != ref[i].count)
            MISMATCH("%s: lp%u differs: count %" PRIu64 " (want %" PRIu64 "), hash %016" PRIx64
                     " (want %016" PRIx64 ")",
                     what, i, in->lps[i].count, ref[i].count, in->lps[i].hash, ref[i].hash);
    if (stats.events != ref_stats->events)
        MISMATCH("%s: %" PRIu64 " events committed, want %" PRIu64, what, stats.events,
                 ref_stats->events);
    if (o->scheduler != RTCOSIM_SCHEDULER_SPECULATIVE)
        return;
    uint64_t reused = 0;
    for (unsigned i = 0; i < in->w.lps; i++) {
        rtcosim_lp_speculation s;
        assert_int_equal(rtcosim_events_lp_speculation(in->sim, i, &s, &err), RTCOSIM_OK);
        if (s.committed != ref[i].count || s.processed != s.committed + s.rolled_back)
            MISMATCH("%s: lp%u: processed %" PRIu64 " committed %" PRIu64 " rolled back %" PRIu64
                     ", want committed %" PRIu64 " = processed - rolled back",
                     what, i, s.processed, s.committed, s.rolled_back, ref[i].count);
        t->rollbacks += s.rollbacks;
        t->rolled_back += s.rolled_back;
        t->coasted += s.coasted;
        t->anti_messages += s.anti_messages;
        reused += s.reused;
    }
    if (reused != stats.reused)
        MISMATCH("%s: run reused %" PRIu64 ", LPs %" PRIu64, what, stats.reused, reused);
    if (o->aggressive_cancellation && reused != 0)
        MISMATCH("%s: aggressive cancellation reused %" PRIu64 " sends", what, reused);
    t->reused[in->w.rule] += reused;
}

static void stress_seed(uint64_t seed, send_rule rule, rtcosim_time_ns stop, totals *t)
{
    instance *in = test_malloc(sizeof *in);
    instance_build(in, seed, rule);
    rtcosim_error err;
    rtcosim_run_options o = {.scheduler = RTCOSIM_SCHEDULER_SEQUENTIAL,
                             .start_time = in->w.start, .stop_time = in->w.start + stop,
                             .seed = seed};
    rtcosim_run_stats ref_stats;
    instance_reset(in);
    if (rtcosim_events_run(in->sim, &o, &ref_stats, &err) != RTCOSIM_OK)
        fail_msg("seed %" PRIu64 " rule %s: reference run failed: %s", seed, rule_names[rule],
                 err.message);
    stress_lp ref[MAX_LPS];
    memcpy(ref, in->lps, sizeof ref);
    assert_true(ref_stats.events > 0);
    t->events += ref_stats.events;
    o.scheduler = RTCOSIM_SCHEDULER_CONSERVATIVE;
    o.threads = 2;
    run_and_compare(in, &o, ref, &ref_stats, seed, t);
    const unsigned intervals[] = {1, 3, 0};
    const rtcosim_time_ns ahead[] = {4 * in->w.unit, 0};
    o.scheduler = RTCOSIM_SCHEDULER_SPECULATIVE;
    for (unsigned threads = 2; threads <= 3; threads++)
        for (int aggressive = 0; aggressive <= 1; aggressive++)
            for (size_t c = 0; c < 3; c++)
                for (size_t a = 0; a < 2; a++) {
                    o.threads = threads;
                    o.aggressive_cancellation = aggressive;
                    o.checkpoint_interval = intervals[c];
                    o.max_ahead = ahead[a];
                    run_and_compare(in, &o, ref, &ref_stats, seed, t);
                }
    /* A failure half way through one LP's committed events: the sequential
     * run fails there, and every speculative one with the same message (the
     * LP, the time), not at a failure of an uncommitted history. */
    unsigned k = (unsigned)(seed % in->w.lps);
    if (ref[k].count >= 2) {
        stress_fail_lp = k;
        stress_fail_at = ref[k].count / 2 + 1;
        o.scheduler = RTCOSIM_SCHEDULER_SEQUENTIAL;
        instance_reset(in);
        rtcosim_error want;
        rtcosim_status want_st = rtcosim_events_run(in->sim, &o, NULL, &want);
        if (want_st != RTCOSIM_EIO)
            fail_msg("seed %" PRIu64 " rule %s: the planned failure did not end the sequential"
                     " run", seed, rule_names[rule]);
        o.scheduler = RTCOSIM_SCHEDULER_SPECULATIVE;
        o.checkpoint_interval = 0;
        o.max_ahead = 0;
        for (unsigned threads = 2; threads <= 3; threads++)
            for (int aggressive = 0; aggressive <= 1; aggressive++) {
                o.threads = threads;
                o.aggressive_cancellation = aggressive;
                instance_reset(in);
                t->runs++;
                rtcosim_status got = rtcosim_events_run(in->sim, &o, NULL, &err);
                if (got != want_st || strcmp(err.message, want.message) != 0)
                    MISMATCH("seed %" PRIu64 " rule %s threads %u %s: failed with '%s', want '%s'",
                             seed, rule_names[rule], threads, aggressive ? "aggressive" : "lazy",
                             got == RTCOSIM_OK ? "(no failure)" : err.message, want.message);
                else
                    t->planned_failures++;
            }
        stress_fail_lp = UINT_MAX;
    }
    rtcosim_events_free(in->sim);
    test_free(in);
}

static void random_models_commit_the_sequential_history(void **state)
{
    (void)state;
    totals t = {0};
    /* RTCOSIM_STRESS_SEEDS=first,count hunts further (default 1,6) */
    uint64_t first = 1, count = 6;
    const char *env = getenv("RTCOSIM_STRESS_SEEDS");
    if (env && sscanf(env, "%" SCNu64 ",%" SCNu64, &first, &count) != 2)
        fail_msg("RTCOSIM_STRESS_SEEDS: want first,count, got '%s'", env);
    for (uint64_t seed = first; seed < first + count; seed++)
        for (int rule = 0; rule < RULES; rule++)
            stress_seed(seed, (send_rule)rule, 200 * RTCOSIM_NS_PER_US, &t);
    print_message("%" PRIu64 " runs, %" PRIu64 " reference events, %" PRIu64 " rollbacks, %" PRIu64
                  " undone, %" PRIu64 " coasted, %" PRIu64 " anti-messages; reused by rule"
                  " state %" PRIu64 ", event %" PRIu64 ", grid %" PRIu64 ", mixed %" PRIu64
                  "; %" PRIu64 " differences\n",
                  t.runs, t.events, t.rollbacks, t.rolled_back, t.coasted, t.anti_messages,
                  t.reused[0], t.reused[1], t.reused[2], t.reused[3], t.failures);
    assert_int_equal(t.failures, 0);
    /* not vacuous: speculation went wrong and was repaired somewhere */
    assert_true(t.rollbacks > 0);
    /* lazy cancellation kept sends where a straggler leaves some unchanged */
    assert_true(t.reused[SENDS_FROM_EVENT] > 0);
    assert_true(t.reused[SENDS_MIXED] > 0);
    assert_true(t.planned_failures > 0);
}

/* ---- minimal: a conservative LP P (no state saving) ticking every 1 us,
 * fed by a speculative LP S on the other thread (lookahead 2 us) ---- */

typedef struct pair_lp {
    unsigned role; /* 0 P, 1 S */
    uint64_t hash, count;
} pair_lp;

static rtcosim_status pair_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    (void)state;
    return rtcosim_lp_send(lp, rtcosim_lp_self(lp), 0, 1, 0, NULL, 0, err);
}

static rtcosim_status pair_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                 rtcosim_error *err)
{
    pair_lp *p = state;
    p->count++;
    p->hash = fold(p->hash, event_digest(ev));
    if (ev->src != rtcosim_lp_self(lp))
        return RTCOSIM_OK;
    rtcosim_status st = rtcosim_lp_send(lp, rtcosim_lp_self(lp), RTCOSIM_NS_PER_US, 1, 0, NULL,
                                        0, err);
    if (st == RTCOSIM_OK && p->role == 1)
        st = rtcosim_lp_send(lp, 0, 2 * RTCOSIM_NS_PER_US, 2, 0, NULL, 0, err);
    return st;
}

static const rtcosim_lp_model pair_plain = {.kind = "pair-plain", .init = pair_init,
                                            .event = pair_event};
static const rtcosim_lp_model pair_saved = {.kind = "pair", .init = pair_init,
                                            .event = pair_event, .state_size = sizeof(pair_lp)};

static void conservative_lp_gets_its_inputs_in_time_order(void **state)
{
    (void)state;
    pair_lp lps[2];
    rtcosim_events *sim;
    rtcosim_error err;
    assert_int_equal(rtcosim_events_create(&sim, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_events_add_lp(sim, "P", &pair_plain, &lps[0], RTCOSIM_LP_NO_GROUP,
                                           NULL, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_events_add_lp(sim, "S", &pair_saved, &lps[1], RTCOSIM_LP_NO_GROUP,
                                           NULL, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_events_add_link(sim, 1, 0, 2 * RTCOSIM_NS_PER_US, &err), RTCOSIM_OK);
    rtcosim_run_options o = {.scheduler = RTCOSIM_SCHEDULER_SEQUENTIAL,
                             .stop_time = 1000 * RTCOSIM_NS_PER_US};
    lps[0] = (pair_lp){.role = 0};
    lps[1] = (pair_lp){.role = 1};
    assert_int_equal(rtcosim_events_run(sim, &o, NULL, &err), RTCOSIM_OK);
    pair_lp ref[2];
    memcpy(ref, lps, sizeof ref);
    /* hand count: P ticks at 0..1000 us (1001) and gets S's ticks 0..998 us
     * forwarded (+2 us: 999) */
    assert_int_equal(ref[0].count, 1001 + 999);
    /* one thread: no timing at all, the same wrong order every run (P
     * processes S's forward at t, already in its held queue, before its own
     * tick at t, which sorts first but still waits in the thread's queue) */
    unsigned failures = 0;
    for (unsigned threads = 1; threads <= 2; threads++) {
        lps[0] = (pair_lp){.role = 0};
        lps[1] = (pair_lp){.role = 1};
        o.scheduler = RTCOSIM_SCHEDULER_SPECULATIVE;
        o.threads = threads;
        if (rtcosim_events_run(sim, &o, NULL, &err) != RTCOSIM_OK) {
            print_error("threads %u: %s\n", threads, err.message);
            failures++;
            continue;
        }
        if (lps[0].hash != ref[0].hash || lps[0].count != ref[0].count) {
            print_error("threads %u: P processed %" PRIu64 " events (want %" PRIu64
                        "), hash %016" PRIx64 " (want %016" PRIx64 ")\n",
                        threads, lps[0].count, ref[0].count, lps[0].hash, ref[0].hash);
            failures++;
        }
    }
    rtcosim_events_free(sim);
    assert_int_equal(failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_models_commit_the_sequential_history),
        cmocka_unit_test(conservative_lp_gets_its_inputs_in_time_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
