/* The anytime layer's pure decisions: running statistics (nearest-rank
 * quantile over a window), delivery by criterion, the parallel strategy's
 * selection at its cutoff from injected completion times, and the timer
 * strategy's choice under a budget and a learned abort limit. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "anytime/anytime_internal.h"
#include "anytime_test_util.h"

static void stats_give_mean_max_and_windowed_quantile(void **unused)
{
    (void)unused;
    anytime_stats s;
    assert_true(anytime_stats_init(&s, 4));
    assert_true(isnan(anytime_stats_quantile(&s, 0.5)));
    assert_true(isinf(anytime_stats_estimate(&s, RTCOSIM_ANYTIME_ESTIMATE_MEAN, 0.5)));
    const double samples[6] = {6, 1, 5, 2, 4, 3};
    for (int i = 0; i < 6; i++)
        anytime_stats_add(&s, samples[i]);
    assert_int_equal(s.count, 6);
    assert_double_equal(s.mean, 3.5, 1e-15);
    assert_double_equal(s.max, 6, 0);
    /* window holds the last four: 5 2 4 3 -> sorted 2 3 4 5 */
    assert_double_equal(anytime_stats_quantile(&s, 0.5), 3, 0);  /* ceil(2) = 2nd */
    assert_double_equal(anytime_stats_quantile(&s, 0.95), 5, 0); /* ceil(3.8) = 4th */
    assert_double_equal(anytime_stats_quantile(&s, 0.01), 2, 0); /* ceil(0.04) = 1st */
    assert_double_equal(anytime_stats_quantile(&s, 0.95), 5, 0); /* asking again */
    anytime_stats_add(&s, 1); /* window 2 4 3 1: the sorted copy follows */
    assert_double_equal(anytime_stats_quantile(&s, 0.95), 4, 0);
    /* estimates are over the window 1 2 3 4; mean and max of all stay 3.5, 6 */
    assert_double_equal(anytime_stats_estimate(&s, RTCOSIM_ANYTIME_ESTIMATE_MAX, 0.5), 4, 0);
    assert_double_equal(anytime_stats_estimate(&s, RTCOSIM_ANYTIME_ESTIMATE_MEAN, 0.5), 2.5, 0);
    assert_double_equal(anytime_stats_window_min(&s), 1, 0);
    assert_double_equal(s.max, 6, 0);
    /* window 1 2 3 4: ceil(0.75 * 4) = 3rd */
    assert_double_equal(anytime_stats_estimate(&s, RTCOSIM_ANYTIME_ESTIMATE_QUANTILE, 0.75), 3, 0);
    anytime_stats_release(&s);
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The sorted copy kept per sample against qsort of the last 16 samples, over
 * 500 seeded samples with many repeats (values 0..19). */
static void stats_quantiles_match_a_sort_of_the_window(void **unused)
{
    (void)unused;
    enum { W = 16, N = 500 };
    anytime_stats s;
    assert_true(anytime_stats_init(&s, W));
    double all[N], last[W];
    uint64_t x = 12345;
    for (int i = 0; i < N; i++) {
        x = x * 6364136223846793005u + 1442695040888963407u; /* Knuth's MMIX LCG */
        all[i] = (double)((x >> 33) % 20);
        anytime_stats_add(&s, all[i]);
        int n = i + 1 < W ? i + 1 : W;
        for (int j = 0; j < n; j++)
            last[j] = all[i + 1 - n + j];
        qsort(last, (size_t)n, sizeof last[0], compare_doubles);
        const double qs[4] = {0.01, 0.5, 0.95, 1.0};
        for (int k = 0; k < 4; k++) {
            int rank = (int)ceil(qs[k] * n);
            assert_double_equal(anytime_stats_quantile(&s, qs[k]), last[rank - 1], 0);
        }
        assert_double_equal(anytime_stats_window_min(&s), last[0], 0);
        assert_double_equal(anytime_stats_estimate(&s, RTCOSIM_ANYTIME_ESTIMATE_MAX, 0.5),
                            last[n - 1], 0);
    }
    anytime_stats_release(&s);
}

static anytime_candidate cand(bool completed, int rank, rtcosim_time_ns step,
                              rtcosim_anytime_solver solver, rtcosim_time_ns exec,
                              rtcosim_time_ns finish)
{
    return (anytime_candidate){completed, rank, step, solver, exec, finish};
}

static void pick_follows_each_criterion(void **unused)
{
    (void)unused;
    anytime_candidate c[4] = {
        cand(true, 1, 1000, RTCOSIM_ANYTIME_SOLVER_EULER, 50, 0),
        cand(true, 2, 100, RTCOSIM_ANYTIME_SOLVER_RK4, 400, 0),
        cand(true, 3, 500, RTCOSIM_ANYTIME_SOLVER_RK4, 300, 0),
        cand(false, 4, 10, RTCOSIM_ANYTIME_SOLVER_VARIABLE, 900, 0),
    };
    assert_int_equal(anytime_pick(c, 4, RTCOSIM_ANYTIME_PICK_RANK), 2);
    assert_int_equal(anytime_pick(c, 4, RTCOSIM_ANYTIME_PICK_LONGEST), 1);
    assert_int_equal(anytime_pick(c, 4, RTCOSIM_ANYTIME_PICK_SMALLEST_STEP), 1);
    /* rk4 twice: the smaller step (100) wins */
    assert_int_equal(anytime_pick(c, 4, RTCOSIM_ANYTIME_PICK_SOLVER), 1);
    c[3].completed = true;
    assert_int_equal(anytime_pick(c, 4, RTCOSIM_ANYTIME_PICK_SOLVER), 3);
    /* step 0 (one step per period) is the coarsest */
    c[3].step_ns = 0;
    assert_int_equal(anytime_pick(c, 4, RTCOSIM_ANYTIME_PICK_SMALLEST_STEP), 1);
    for (int i = 0; i < 4; i++)
        c[i].completed = false;
    assert_int_equal(anytime_pick(c, 4, RTCOSIM_ANYTIME_PICK_RANK), -1);
}

/* Three periods of the parallel strategy, release at 0, cutoff at 950 us:
 * the completion times are injected, the expected choices follow by hand. */
static void parallel_selects_most_accurate_ready_by_cutoff(void **unused)
{
    (void)unused;
    const rtcosim_time_ns cutoff = 950;
    /* period 1: everything ready in time -> accurate */
    anytime_candidate p1[3] = {
        cand(true, 1, 0, RTCOSIM_ANYTIME_SOLVER_EULER, 100, 100),
        cand(true, 2, 0, RTCOSIM_ANYTIME_SOLVER_RK4, 400, 400),
        cand(true, 3, 0, RTCOSIM_ANYTIME_SOLVER_VARIABLE, 900, 900),
    };
    assert_int_equal(anytime_parallel_select(p1, 3, cutoff, RTCOSIM_ANYTIME_PICK_RANK), 2);
    /* period 2: accurate would be ready at 1200: abandoned -> medium */
    p1[2].finish_at = 1200;
    assert_int_equal(anytime_parallel_select(p1, 3, cutoff, RTCOSIM_ANYTIME_PICK_RANK), 1);
    /* period 3: medium ready exactly at the cutoff still counts; accurate
     * busy (not completed) */
    p1[1].finish_at = 950;
    p1[2].completed = false;
    assert_int_equal(anytime_parallel_select(p1, 3, cutoff, RTCOSIM_ANYTIME_PICK_RANK), 1);
    /* period 4: only the minimal one in time */
    p1[1].finish_at = 951;
    assert_int_equal(anytime_parallel_select(p1, 3, cutoff, RTCOSIM_ANYTIME_PICK_RANK), 0);
    /* longest criterion among the ready ones */
    p1[1].finish_at = 500;
    assert_int_equal(anytime_parallel_select(p1, 3, cutoff, RTCOSIM_ANYTIME_PICK_LONGEST), 1);
    /* the minimal one late (it has no cutoff) and medium too: minimal, the
     * guaranteed result; not even the minimal completed: none */
    p1[0].finish_at = 1000;
    p1[1].finish_at = 990;
    assert_int_equal(anytime_parallel_select(p1, 3, cutoff, RTCOSIM_ANYTIME_PICK_RANK), 0);
    p1[0].completed = false;
    assert_int_equal(anytime_parallel_select(p1, 3, cutoff, RTCOSIM_ANYTIME_PICK_RANK), -1);
}

static void timer_choice_respects_budget_floor_and_limit(void **unused)
{
    (void)unused;
    const double estimate[4] = {100, 300, 500, 700};
    const int rank[4] = {1, 2, 3, 4};
    rtcosim_time_ns floor_ns[4] = {0, 0, 0, 0};
    assert_int_equal(anytime_timer_choose(estimate, floor_ns, rank, 4, 850, 0), 3);
    assert_int_equal(anytime_timer_choose(estimate, floor_ns, rank, 4, 700, 0), 2); /* 700 not < 700 */
    assert_int_equal(anytime_timer_choose(estimate, floor_ns, rank, 4, 300, 0), 0);
    assert_int_equal(anytime_timer_choose(estimate, floor_ns, rank, 4, 850, 500), 1);
    floor_ns[3] = 800; /* variant 3 was aborted after 800 */
    assert_int_equal(anytime_timer_choose(estimate, floor_ns, rank, 4, 850, 800), 2);
    assert_int_equal(anytime_timer_choose(estimate, NULL, rank, 4, 1e9, 0), 3);
    const double unknown[3] = {100, INFINITY, 200};
    assert_int_equal(anytime_timer_choose(unknown, NULL, rank, 3, 850, 0), 2);
}

/* Linux default 950000 of 1000000 us: 5 % throttled plus the 2 % margin. */
static void idle_reserve_follows_the_kernel_throttling_limits(void **unused)
{
    (void)unused;
    assert_double_equal(anytime_idle_reserve_from_limits(true, 950000, 1000000), 0.07, 1e-12);
    assert_double_equal(anytime_idle_reserve_from_limits(true, 900000, 1000000), 0.12, 1e-12);
    assert_double_equal(anytime_idle_reserve_from_limits(true, -1, 1000000), 0, 0);
    assert_double_equal(anytime_idle_reserve_from_limits(false, 950000, 1000000), 0, 0);
    /* unreadable or inconsistent: the kernel default */
    assert_double_equal(anytime_idle_reserve_from_limits(true, -2, -2), 0.07, 1e-12);
    assert_double_equal(anytime_idle_reserve_from_limits(true, 2000000, 1000000), 0.07, 1e-12);
    assert_int_equal(anytime_idle_reserve_ns(0.07, 1000000), 70000);
    assert_int_equal(anytime_idle_reserve_ns(0.25, 1000), 250);
    assert_int_equal(anytime_idle_reserve_ns(0, 1000000), 0);
}

/* SCHED_DEADLINE, runtime R per period P: the unreserved share plus the
 * 2 % margin, as for the real-time throttling limits. */
static void idle_reserve_keeps_the_delivery_inside_a_deadline_reservation(void **unused)
{
    (void)unused;
    const rtcosim_time_ns ms = 1000000;
    /* B5's old reservation R 900 us of 1 ms: 12 %, with a margin of 100 us
     * the cutoff at 780 us, 120 us of the runtime left for the delivery */
    double r = anytime_idle_reserve_from_deadline(900000, ms);
    assert_double_equal(r, 0.12, 1e-12);
    assert_int_equal(ms - 100000 - anytime_idle_reserve_ns(r, ms), 780000);
    assert_double_equal(anytime_idle_reserve_from_deadline(950000, ms), 0.07, 1e-12);
    /* over another period: the share is what counts */
    assert_double_equal(anytime_idle_reserve_from_deadline(90000, 100000), 0.12, 1e-12);
    /* unreadable or inconsistent: the kernel's default throttling */
    assert_double_equal(anytime_idle_reserve_from_deadline(-1, -1), 0.07, 1e-12);
    assert_double_equal(anytime_idle_reserve_from_deadline(2 * ms, ms), 0.07, 1e-12);
    assert_double_equal(anytime_idle_reserve_from_deadline(0, ms), 0.07, 1e-12);
}

/* A period measured in B5 (us): entered 413.2, waited from 418.4 to 1058.6
 * for a cutoff at 830 (blocked by intent 411.6), delivered at 1059.9 with
 * 455.5 us of thread CPU time of which 449.2 were charged inside the wait:
 * 6.3 us of work, so the thread lost 646.7 - 6.3 - 411.6 = 228.8 us, more
 * than its 59.9 us of lateness (without the wait's CPU time taken out:
 * -220.4, no stall). */
static void cpu_time_inside_waits_is_not_work(void **unused)
{
    (void)unused;
    assert_int_equal(anytime_stalled_ns(646700, 455500, 449200, 411600), 228800);
    assert_int_equal(anytime_classify_miss(1000000, 900000, 413200, 1059900,
                                           anytime_stalled_ns(646700, 455500, 449200, 411600)),
                     RTCOSIM_ANYTIME_MISS_STALLED);
    /* no wait: wall less CPU */
    assert_int_equal(anytime_stalled_ns(1000, 700, 0, 0), 300);
    /* never negative, whatever the clocks' granularity gives */
    assert_int_equal(anytime_stalled_ns(1000, 900, 0, 500), 0);
    assert_int_equal(anytime_stalled_ns(1000, 100, 400, 500), 500);
}

/* deadline 1000, latest start 850 */
static void misses_are_classified_by_start_and_lost_time(void **unused)
{
    (void)unused;
    assert_int_equal(anytime_classify_miss(1000, 850, 900, 1000, 0), RTCOSIM_ANYTIME_ON_TIME);
    assert_int_equal(anytime_classify_miss(1000, 850, 851, 1100, 500),
                     RTCOSIM_ANYTIME_MISS_LATE_START);
    assert_int_equal(anytime_classify_miss(1000, 850, 850, 1100, 100),
                     RTCOSIM_ANYTIME_MISS_STALLED);
    assert_int_equal(anytime_classify_miss(1000, 850, 0, 1100, 99),
                     RTCOSIM_ANYTIME_MISS_STRATEGY);
    assert_int_equal(anytime_classify_miss(1000, 850, 850, 1001, 0),
                     RTCOSIM_ANYTIME_MISS_STRATEGY);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(idle_reserve_follows_the_kernel_throttling_limits),
        cmocka_unit_test(idle_reserve_keeps_the_delivery_inside_a_deadline_reservation),
        cmocka_unit_test(misses_are_classified_by_start_and_lost_time),
        cmocka_unit_test(cpu_time_inside_waits_is_not_work),
        cmocka_unit_test(stats_give_mean_max_and_windowed_quantile),
        cmocka_unit_test(stats_quantiles_match_a_sort_of_the_window),
        cmocka_unit_test(pick_follows_each_criterion),
        cmocka_unit_test(parallel_selects_most_accurate_ready_by_cutoff),
        cmocka_unit_test(timer_choice_respects_budget_floor_and_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
