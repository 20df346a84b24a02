/* Two real threads: the SPSC queue delivers every item exactly once and in
 * order under contention (bounded count, no timing asserted); the delay
 * wrapper draws reproducible compute times; a short mixed run on the real
 * clock with the partner on its own thread estimates exactly the frames its
 * injected late steps make late, as on the virtual clock. */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "realtime/spsc.h"
#include "rtcosim/log.h"
#include "rt_models.h"

#define ITEMS 200000

typedef struct item {
    uint64_t sequence;
    uint64_t check;
} item;

static void *produce(void *arg)
{
    rtcosim_spsc *q = arg;
    for (uint64_t i = 0; i < ITEMS;) {
        item *slot = rtcosim_spsc_reserve(q);
        if (!slot) {
            sched_yield();
            continue;
        }
        slot->sequence = i;
        slot->check = i * 2654435761u;
        rtcosim_spsc_push(q);
        i++;
    }
    return NULL;
}

static void spsc_queue_delivers_every_item_once_in_order_across_threads(void **state)
{
    (void)state;
    rtcosim_spsc q;
    assert_int_equal(rtcosim_spsc_init(&q, 50, sizeof(item), NULL), RTCOSIM_OK);
    assert_int_equal(rtcosim_spsc_capacity(&q), 64); /* rounded up to a power of two */
    pthread_t producer;
    assert_int_equal(pthread_create(&producer, NULL, produce, &q), 0);
    uint64_t expected = 0;
    while (expected < ITEMS) {
        const item *it = rtcosim_spsc_front(&q);
        if (!it) {
            sched_yield();
            continue;
        }
        if (it->sequence != expected || it->check != expected * 2654435761u)
            fail_msg("item %llu arrived as %llu", (unsigned long long)expected,
                     (unsigned long long)it->sequence);
        rtcosim_spsc_pop(&q);
        expected++;
    }
    pthread_join(producer, NULL);
    assert_null(rtcosim_spsc_front(&q));
    assert_int_equal(rtcosim_spsc_size(&q), 0);
    rtcosim_spsc_destroy(&q);
}

static void spsc_queue_reports_full_and_empty(void **state)
{
    (void)state;
    rtcosim_spsc q;
    rtcosim_error err;
    assert_int_equal(rtcosim_spsc_init(&q, 0, 8, &err), RTCOSIM_EINVAL);
    assert_int_equal(rtcosim_spsc_init(&q, 2, 8, NULL), RTCOSIM_OK);
    assert_null(rtcosim_spsc_front(&q));
    for (int i = 0; i < 2; i++) {
        double *d = rtcosim_spsc_reserve(&q);
        assert_non_null(d);
        *d = i;
        rtcosim_spsc_push(&q);
    }
    assert_null(rtcosim_spsc_reserve(&q));
    assert_true(*(const double *)rtcosim_spsc_front(&q) == 0);
    rtcosim_spsc_pop(&q);
    assert_non_null(rtcosim_spsc_reserve(&q));
    rtcosim_spsc_destroy(&q);
}

/* Draw n compute times through the wrapper on a virtual clock. */
static void draw(uint64_t seed, rtcosim_time_ns *out, size_t n)
{
    rtcosim_clock *clock = NULL;
    assert_int_equal(rtcosim_clock_create_virtual(0, &clock, NULL), RTCOSIM_OK);
    rtcosim_delay_options o = {.clock = clock, .seed = seed, .mean_fraction = 0.4,
                               .late_share = 0.05, .late_min = 2, .late_max = 5};
    rtcosim_component *c = NULL;
    assert_int_equal(rtcosim_delay_wrap(make_integrator(1, NULL), &o, &c, NULL), RTCOSIM_OK);
    assert_int_equal(start_component(c, "p"), RTCOSIM_OK);
    for (size_t i = 0; i < n; i++) {
        rtcosim_time_ns before = rtcosim_clock_now(clock);
        assert_int_equal(rtcosim_component_do_step(c, (rtcosim_time_ns)i * MS(1), MS(1), NULL,
                                                   NULL),
                         RTCOSIM_OK);
        out[i] = rtcosim_clock_now(clock) - before;
    }
    rtcosim_component_free(c);
    rtcosim_clock_free(clock);
}

static void delay_wrapper_draws_reproducible_seeded_compute_times(void **state)
{
    (void)state;
    enum { N = 20000 };
    static rtcosim_time_ns a[N], b[N], c[N];
    draw(42, a, N);
    draw(42, b, N);
    draw(43, c, N);
    assert_memory_equal(a, b, sizeof a);
    assert_memory_not_equal(a, c, sizeof a);
    size_t late = 0;
    double regular_sum = 0;
    for (size_t i = 0; i < N; i++) {
        if (a[i] >= MS(2)) {
            late++;
            assert_true(a[i] <= MS(5));
        } else {
            assert_true(a[i] >= MS(0.2) && a[i] <= MS(0.6));
            regular_sum += (double)a[i];
        }
    }
    /* 5 % late (binomial sd 0.15 %), regular mean 0.4 ms. */
    assert_true(fabs((double)late / N - 0.05) < 0.01);
    assert_true(fabs(regular_sum / (double)(N - late) - MS(0.4)) < MS(0.01));
}

static void delay_wrapper_refuses_an_instantiated_component(void **state)
{
    (void)state;
    rtcosim_clock *clock = NULL;
    assert_int_equal(rtcosim_clock_create_virtual(0, &clock, NULL), RTCOSIM_OK);
    rtcosim_component *inner = make_integrator(1, NULL);
    assert_int_equal(start_component(inner, "p"), RTCOSIM_OK);
    rtcosim_delay_options o = {.clock = clock};
    rtcosim_component *c = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_delay_wrap(inner, &o, &c, &err), RTCOSIM_ESTATE);
    assert_non_null(strstr(err.message, "before instantiating"));
    o.late_share = 2;
    assert_int_equal(rtcosim_delay_wrap(make_integrator(1, NULL), &o, &c, &err), RTCOSIM_EINVAL);
    rtcosim_clock_free(clock);
}

/* The partner's injected compute times, repeated every 8 of its steps: its
 * steps 3, 11 and 19 take 25 ms, 2.5 frames of 10 ms; the others take no
 * time. The paced thread exchanges with it at every frame; the data for
 * frame k (the partner's step k, [k-1, k] frames) is there at frame k unless
 * that step is still computing: step 3 starts at frame 2 and ends 2.5 frames
 * later, at 4.5 frames, so frames 3 and 4 (te = 30 and 40 ms) use estimates
 * with lags of 1 and 2 frames, and frame 5 has the partner's data again
 * (steps 4 and 5 take no time). The same for steps 11 and 19: frames 11,
 * 12, 19 and 20. 24 frames, 23 exchanges after the initial one, 6 of them
 * estimated in 3 episodes: exactly so on the virtual clock. On the real
 * clock a loaded machine may starve the partner's thread (more estimates) or
 * start a frame late (data there after all), so there the run is held to
 * what the pattern forces physically: the late step j cannot end before
 * (j - 1) H + 25 ms (it starts after frame j - 1's exchange and sleeps at
 * least that long), so frames j and j + 1 that started before then must use
 * estimates with lags of at least 1 and 2 frames; and the counts must agree
 * with the frames. */
static const rtcosim_time_ns late_every_8[] = {0, 0, MS(25), 0, 0, 0, 0, 0};

static void run_late_pattern(bool real_clock)
{
    rtcosim_clock *clock = NULL, *partner_clock = NULL;
    if (real_clock) {
        assert_int_equal(rtcosim_clock_create_monotonic(0, &clock, NULL), RTCOSIM_OK);
    } else {
        /* The deterministic single-thread run: the partner's compute time
         * passes on a virtual clock of its own. */
        assert_int_equal(rtcosim_clock_create_virtual(0, &clock, NULL), RTCOSIM_OK);
        assert_int_equal(rtcosim_clock_create_virtual(0, &partner_clock, NULL), RTCOSIM_OK);
    }
    rtcosim_component *comps[2];
    integrator *plant;
    comps[0] = make_integrator(0, &plant);
    rtcosim_delay_options d = {.clock = real_clock ? clock : partner_clock,
                               .schedule = late_every_8, .schedule_length = 8};
    assert_int_equal(rtcosim_delay_wrap(make_poly(1, 2, 0, NULL), &d, &comps[1], NULL),
                     RTCOSIM_OK);
    assert_int_equal(start_component(comps[0], "plant"), RTCOSIM_OK);
    assert_int_equal(start_component(comps[1], "source"), RTCOSIM_OK);
    static const rtcosim_rt_connection conns[] = {
        {.from_component = 1, .from_vr = 1, .to_component = 0, .to_vr = 0},
        {.from_component = 0, .from_vr = 1, .to_component = 1, .to_vr = 0},
    };
    rtcosim_rt_options o;
    rtcosim_rt_options_init(&o);
    o.clock = clock;
    o.partner_clock = partner_clock;
    o.macro_step = MS(10);
    o.stop_time = MS(240);
    o.non_realtime = "source";
    o.estimator.kind = RTCOSIM_ESTIMATOR_FOH;
    o.overrun = RTCOSIM_OVERRUN_CATCH_UP;
    o.frame_log = 32;
    o.calibrate = false; /* calibration frames would step the partner, shifting the pattern */
    rtcosim_rt *rt = NULL;
    rtcosim_error cerr = {0};
    if (rtcosim_rt_create(comps, 2, conns, 2, &o, &rt, &cerr) != RTCOSIM_OK)
        fail_msg("%s", cerr.message);
    assert_int_equal(rtcosim_rt_run(rt, NULL), RTCOSIM_OK);
    const rtcosim_rt_summary *s = rtcosim_rt_get_summary(rt);
    const char *clock_name = real_clock ? "real clock" : "virtual clock";
    assert_int_equal(s->frames, 24);
    assert_int_equal(plant->end_time, MS(240));
    assert_int_equal(s->exchanges, 23);
    uint64_t estimated = 0, episodes = 0;
    bool previous = false, forced_two_frames = false;
    for (size_t k = 0; k < 24; k++) {
        const rtcosim_rt_frame *f = rtcosim_rt_frame_at(rt, k);
        bool est = (f->flags & RTCOSIM_FRAME_ESTIMATED) != 0;
        estimated += est;
        episodes += est && !previous;
        previous = est;
        if (est ? f->lag < MS(10) : f->lag != 0)
            fail_msg("%s, frame %zu: estimated %d with lag %lld ns", clock_name, k, est,
                     (long long)f->lag);
        /* The late step j = k or k - 1 of the pattern (3, 11, 19). */
        size_t j = k % 8 == 3 ? k : k % 8 == 4 ? k - 1 : 0;
        bool forced = j && (real_clock ? f->deadline + f->lateness + MS(1) <
                                             (rtcosim_time_ns)(j - 1) * MS(10) + MS(25)
                                       : true);
        rtcosim_time_ns min_lag = (rtcosim_time_ns)(k - j + 1) * MS(10);
        forced_two_frames = forced_two_frames || (forced && k > j);
        if (forced && (!est || f->lag < min_lag))
            fail_msg("%s, frame %zu (started %lld ns late): estimated %d lag %lld ns, expected "
                     "an estimate with a lag of at least %lld ns",
                     clock_name, k, (long long)f->lateness, est, (long long)f->lag,
                     (long long)min_lag);
        if (!real_clock && (est != (j != 0) || f->lag != (j ? min_lag : 0)))
            fail_msg("virtual clock, frame %zu: estimated %d lag %lld ns", k, est,
                     (long long)f->lag);
    }
    assert_int_equal(s->estimated_exchanges, estimated);
    assert_int_equal(s->late_episodes, episodes);
    if (!real_clock) {
        assert_int_equal(s->estimated_exchanges, 6);
        assert_int_equal(s->late_episodes, 3);
        assert_int_equal(s->max_lag, MS(20));
    } else if (forced_two_frames) {
        assert_true(s->max_lag >= MS(20));
    }
    /* Every record that was resolved has the true ramp value. */
    for (size_t i = 0; i < rtcosim_rt_record_count(rt); i++) {
        const rtcosim_estimate_record *r = rtcosim_rt_record_at(rt, i);
        if (!isnan(r->late_value))
            assert_true(fabs(r->late_value - (1 + 2 * (double)r->te / 1e6)) < 1e-9);
    }
    rtcosim_rt_free(rt);
    rtcosim_component_free(comps[0]);
    rtcosim_component_free(comps[1]);
    rtcosim_clock_free(clock);
    rtcosim_clock_free(partner_clock);
}

/* The pattern's counts on the virtual clock (deterministic) and on the real
 * clock with the partner on its own thread: the same frames estimated. */
static void mixed_run_on_the_real_clock_estimates_the_injected_late_frames(void **state)
{
    (void)state;
    run_late_pattern(false);
    run_late_pattern(true);
}

static char logged[1024];

static void capture_log(void *context, rtcosim_log_level level, const char *category,
                        const char *message)
{
    (void)context;
    /* Keep every warning: a loaded machine may add an overrun warning. */
    size_t used = strlen(logged);
    if (level == RTCOSIM_LOG_WARNING && strcmp(category, "realtime") == 0)
        snprintf(logged + used, sizeof logged - used, "%s\n", message);
}

static void refused_cpu_affinity_warns_and_the_run_goes_on(void **state)
{
    (void)state;
    rtcosim_clock *clock = NULL;
    assert_int_equal(rtcosim_clock_create_monotonic(0, &clock, NULL), RTCOSIM_OK);
    rtcosim_component *plant = make_integrator(1, NULL);
    assert_int_equal(start_component(plant, "plant"), RTCOSIM_OK);
    rtcosim_rt_options o;
    rtcosim_rt_options_init(&o);
    o.clock = clock;
    o.stop_time = MS(3);
    o.cpu = 1000; /* no such CPU */
    rtcosim_log_set_handler(capture_log, NULL);
    rtcosim_rt *rt = NULL;
    assert_int_equal(rtcosim_rt_create(&plant, 1, NULL, 0, &o, &rt, NULL), RTCOSIM_OK);
    assert_int_equal(rtcosim_rt_run(rt, NULL), RTCOSIM_OK);
    rtcosim_log_set_handler(NULL, NULL);
    assert_non_null(strstr(logged, "pinning the paced thread to CPU 1000 refused"));
    assert_false(rtcosim_rt_get_summary(rt)->affinity_applied);
    assert_int_equal(rtcosim_rt_get_summary(rt)->frames, 3);
    rtcosim_rt_free(rt);
    rtcosim_component_free(plant);
    rtcosim_clock_free(clock);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spsc_queue_delivers_every_item_once_in_order_across_threads),
        cmocka_unit_test(spsc_queue_reports_full_and_empty),
        cmocka_unit_test(delay_wrapper_draws_reproducible_seeded_compute_times),
        cmocka_unit_test(delay_wrapper_refuses_an_instantiated_component),
        cmocka_unit_test(mixed_run_on_the_real_clock_estimates_the_injected_late_frames),
        cmocka_unit_test(refused_cpu_affinity_warns_and_the_run_goes_on),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
