/* The escalate and timer strategies on a virtual clock with injected
 * execution times: for each period the delivered variant, the outcome of
 * every variant, the committed state and the margin are computed by hand
 * from the injected costs (period 1000 us, safety margin 50 us). */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>

#include "anytime_test_util.h"
#include "rtcosim/anytime.h"
#include "util/test_util.h"

enum { MINIMAL, MEDIUM, ACCURATE };

static bool timer_fallback; /* the next fixture's config timer_fallback */
/* The next fixture's config repair: off for the tests whose hand-computed
 * states assume a coarse delivery's state is kept (test_repair.c has it on). */
static bool repair;

typedef struct fixture {
    rtcosim_clock *clock;
    rtcosim_anytime *set;
    injected_variant v[3];
    bool calibrating;
    size_t period;
} fixture;

static void fixture_setup_reserve(fixture *f, rtcosim_anytime_strategy strategy,
                                  rtcosim_anytime_criterion criterion, uint64_t forget_after,
                                  double idle_reserve)
{
    memset(f, 0, sizeof *f);
    rtcosim_error err;
    assert_int_equal(rtcosim_clock_create_virtual(0, &f->clock, &err), RTCOSIM_OK);
    rtcosim_anytime_config cfg;
    rtcosim_anytime_config_init(&cfg);
    cfg.name = "test";
    cfg.output_count = 1;
    cfg.state_size = sizeof(double);
    cfg.period_ns = 1000 * US;
    cfg.safety_margin_ns = 50 * US;
    cfg.strategy = strategy;
    cfg.criterion = criterion;
    cfg.calibration_runs = 4;
    cfg.forget_after_periods = forget_after;
    cfg.record_capacity = 64;
    cfg.idle_reserve = idle_reserve;
    cfg.timer_fallback = timer_fallback;
    cfg.repair = repair;
    assert_int_equal(rtcosim_anytime_create(&cfg, f->clock, &f->set, &err), RTCOSIM_OK);
    const rtcosim_anytime_variant_info infos[3] = {
        {"euler", 1, 1000 * US, RTCOSIM_ANYTIME_SOLVER_EULER},
        {"rk4", 2, 100 * US, RTCOSIM_ANYTIME_SOLVER_RK4},
        {"cvode", 3, 0, RTCOSIM_ANYTIME_SOLVER_VARIABLE},
    };
    const double increments[3] = {1, 10, 100};
    const rtcosim_time_ns calibration[3] = {100 * US, 300 * US, 500 * US};
    for (int i = 0; i < 3; i++) {
        f->v[i] = (injected_variant){.clock = f->clock,
                                     .increment = increments[i],
                                     .calibration_cost_ns = calibration[i],
                                     .calibrating = &f->calibrating,
                                     .period = &f->period};
        assert_int_equal(rtcosim_anytime_add_native(f->set, &infos[i], injected_variant_fn,
                                                    &f->v[i], &err),
                         RTCOSIM_OK);
    }
}

/* No idle reserve, whatever the policy the tests run under. */
static void fixture_setup(fixture *f, rtcosim_anytime_strategy strategy,
                          rtcosim_anytime_criterion criterion, uint64_t forget_after)
{
    fixture_setup_reserve(f, strategy, criterion, forget_after, 0);
}

static void fixture_start(fixture *f)
{
    rtcosim_error err;
    f->calibrating = true;
    assert_int_equal(rtcosim_anytime_start(f->set, NULL, &err), RTCOSIM_OK);
    f->calibrating = false;
}

static void fixture_teardown(fixture *f)
{
    rtcosim_anytime_free(f->set);
    rtcosim_clock_free(f->clock);
}

static void set_costs(fixture *f, size_t period, int64_t minimal_us, int64_t medium_us,
                      int64_t accurate_us)
{
    f->v[MINIMAL].cost_ns[period] = minimal_us * US;
    f->v[MEDIUM].cost_ns[period] = medium_us * US;
    f->v[ACCURATE].cost_ns[period] = accurate_us * US;
}

/* Wait for the release, spend `load_us` on other work, run the period. */
static rtcosim_anytime_period run(fixture *f, int64_t load_us, double *y)
{
    rtcosim_error err;
    rtcosim_anytime_period rec;
    rtcosim_anytime_wait_release(f->set);
    rtcosim_clock_advance(f->clock, load_us * US);
    assert_int_equal(rtcosim_anytime_run_period(f->set, NULL, y, &rec, &err), RTCOSIM_OK);
    f->period++;
    return rec;
}

static double committed_x(fixture *f)
{
    return *(const double *)rtcosim_anytime_state(f->set);
}

static void escalate_delivers_best_completed_and_aborts_the_running_one(void **unused)
{
    (void)unused;
    fixture f;
    fixture_setup(&f, RTCOSIM_ANYTIME_ESCALATE, RTCOSIM_ANYTIME_PICK_RANK, 0);
    set_costs(&f, 0, 100, 300, 400); /* ends 100, 400, 800 <= cutoff 950 */
    set_costs(&f, 1, 100, 300, 600); /* accurate from 400 would end 1000: aborted at 950 */
    set_costs(&f, 2, 100, 900, 100); /* medium from 100 aborted at 950; accurate not started */
    /* 500 us load: 600, 900; accurate's slowest recent run (its 500 us
     * calibration) would end at 1400 > 950: not started */
    set_costs(&f, 3, 100, 300, 100);
    fixture_start(&f);
    double y;

    rtcosim_anytime_period r = run(&f, 0, &y);
    assert_int_equal(r.delivered, ACCURATE);
    assert_int_equal(r.outcome[MINIMAL], RTCOSIM_ANYTIME_COMPLETED);
    assert_int_equal(r.outcome[MEDIUM], RTCOSIM_ANYTIME_COMPLETED);
    assert_int_equal(r.outcome[ACCURATE], RTCOSIM_ANYTIME_COMPLETED);
    assert_int_equal(r.margin_ns, 200 * US);
    assert_double_equal(y, 100, 0);

    r = run(&f, 0, &y);
    assert_int_equal(r.delivered, MEDIUM);
    assert_int_equal(r.outcome[ACCURATE], RTCOSIM_ANYTIME_ABORTED);
    assert_int_equal(r.exec_ns[ACCURATE], 550 * US);
    assert_int_equal(r.margin_ns, 50 * US);
    assert_false(r.missed);
    assert_double_equal(y, 110, 0);

    r = run(&f, 0, &y);
    assert_int_equal(r.delivered, MINIMAL);
    assert_int_equal(r.outcome[MEDIUM], RTCOSIM_ANYTIME_ABORTED);
    assert_int_equal(r.outcome[ACCURATE], RTCOSIM_ANYTIME_NOT_RUN);
    assert_double_equal(y, 111, 0);

    r = run(&f, 500, &y);
    assert_int_equal(r.delivered, MEDIUM);
    assert_int_equal(r.outcome[ACCURATE], RTCOSIM_ANYTIME_NOT_RUN);
    assert_int_equal(r.exec_ns[ACCURATE], 0);
    assert_int_equal(r.margin_ns, 100 * US);
    assert_double_equal(y, 121, 0);
    assert_double_equal(committed_x(&f), 121, 0);

    rtcosim_anytime_summary s;
    assert_int_equal(rtcosim_anytime_summary_get(f.set, &s, NULL), RTCOSIM_OK);
    assert_int_equal(s.periods, 4);
    assert_int_equal(s.misses, 0);
    assert_double_equal(s.delivered_share[MEDIUM], 0.5, 1e-15);
    assert_double_equal(s.delivered_share[ACCURATE], 0.25, 1e-15);
    assert_int_equal(s.variants[ACCURATE].aborted, 1);
    assert_double_equal(s.margin_min_ns, 50 * US, 0);
    assert_double_equal(s.margin_max_ns, 200 * US, 0);
    fixture_teardown(&f);
}

/* Costs 100, 350, 300 all complete (750 <= 950; accurate's calibrated 500
 * fits from 450 to the cutoff 950); each criterion picks its own. */
static void escalate_criterion_picks(rtcosim_anytime_criterion criterion, int expected)
{
    fixture f;
    fixture_setup(&f, RTCOSIM_ANYTIME_ESCALATE, criterion, 0);
    set_costs(&f, 0, 100, 350, 300);
    fixture_start(&f);
    double y;
    rtcosim_anytime_period r = run(&f, 0, &y);
    assert_int_equal(r.delivered, expected);
    fixture_teardown(&f);
}

static void escalate_criteria_choose_rank_longest_step_solver(void **unused)
{
    (void)unused;
    escalate_criterion_picks(RTCOSIM_ANYTIME_PICK_RANK, ACCURATE);
    escalate_criterion_picks(RTCOSIM_ANYTIME_PICK_LONGEST, MEDIUM);
    /* steps: euler 1000 us, rk4 100 us, cvode 0 (one step per period) */
    escalate_criterion_picks(RTCOSIM_ANYTIME_PICK_SMALLEST_STEP, MEDIUM);
    escalate_criterion_picks(RTCOSIM_ANYTIME_PICK_SOLVER, ACCURATE);
}

static void timer_aborts_falls_back_learns_and_forgets(void **unused)
{
    (void)unused;
    fixture f;
    /* Calibration: minimal 100 us, so the timer fires at 1000 - 100 - 50 =
     * 850 us after the release. Estimates (mean of the window): rk4 300,
     * cvode 500. Forget the learned abort after 3 quiet periods. */
    fixture_setup(&f, RTCOSIM_ANYTIME_TIMER, RTCOSIM_ANYTIME_PICK_RANK, 3);
    set_costs(&f, 0, 100, 300, 500); /* cvode chosen, completes at 500 */
    set_costs(&f, 1, 100, 300, 900); /* cvode aborted at 850, minimal to 950 */
    set_costs(&f, 2, 100, 300, 500); /* learned: cvode floor 850 not < 850 -> rk4 */
    set_costs(&f, 3, 100, 300, 500); /* 600 us load: budget 250 < 300 -> minimal */
    set_costs(&f, 4, 100, 300, 500); /* rk4 again; third quiet period: forget */
    set_costs(&f, 5, 100, 300, 400); /* cvode tried again, completes */
    fixture_start(&f);
    double y;

    rtcosim_anytime_period r = run(&f, 0, &y);
    assert_int_equal(r.delivered, ACCURATE);
    assert_int_equal(r.outcome[MINIMAL], RTCOSIM_ANYTIME_NOT_RUN);
    assert_int_equal(r.margin_ns, 500 * US);
    assert_double_equal(y, 100, 0);

    r = run(&f, 0, &y);
    assert_int_equal(r.delivered, MINIMAL);
    assert_int_equal(r.outcome[ACCURATE], RTCOSIM_ANYTIME_ABORTED);
    assert_int_equal(r.exec_ns[ACCURATE], 850 * US);
    assert_int_equal(r.outcome[MEDIUM], RTCOSIM_ANYTIME_NOT_RUN);
    assert_int_equal(r.margin_ns, 50 * US);
    assert_double_equal(y, 101, 0);
    rtcosim_anytime_summary s;
    assert_int_equal(rtcosim_anytime_summary_get(f.set, &s, NULL), RTCOSIM_OK);
    assert_int_equal(s.learned_abort_ns, 850 * US);

    r = run(&f, 0, &y);
    assert_int_equal(r.delivered, MEDIUM);
    assert_int_equal(r.outcome[ACCURATE], RTCOSIM_ANYTIME_NOT_RUN);
    assert_double_equal(y, 111, 0);

    r = run(&f, 600, &y);
    assert_int_equal(r.delivered, MINIMAL);
    assert_int_equal(r.outcome[MEDIUM], RTCOSIM_ANYTIME_NOT_RUN);
    assert_int_equal(r.margin_ns, 300 * US);
    assert_double_equal(y, 112, 0);

    r = run(&f, 0, &y);
    assert_int_equal(r.delivered, MEDIUM);
    assert_double_equal(y, 122, 0);
    assert_int_equal(rtcosim_anytime_summary_get(f.set, &s, NULL), RTCOSIM_OK);
    assert_int_equal(s.learned_abort_ns, 0);

    r = run(&f, 0, &y);
    assert_int_equal(r.delivered, ACCURATE);
    assert_double_equal(y, 222, 0);
    assert_double_equal(committed_x(&f), 222, 0);
    assert_int_equal(rtcosim_anytime_summary_get(f.set, &s, NULL), RTCOSIM_OK);
    assert_int_equal(s.misses, 0);
    assert_int_equal(s.variants[ACCURATE].aborted, 1);
    fixture_teardown(&f);
}

static void timer_with_fallback_delivers_medium_when_accurate_is_aborted(void **unused)
{
    (void)unused;
    fixture f;
    timer_fallback = true;
    fixture_setup(&f, RTCOSIM_ANYTIME_TIMER, RTCOSIM_ANYTIME_PICK_RANK, 3);
    timer_fallback = false;
    /* Calibration: minimal 100, rk4 300, cvode 500 us: the budget ends at
     * 1000 - (100 + 50) = 850 us after the release. */
    set_costs(&f, 0, 100, 300, 900); /* cvode 500 + rk4's worst 300 < 850: cvode
                                      * first, aborted at 550, rk4 to 850 */
    set_costs(&f, 1, 100, 300, 500); /* 400 us load: cvode's floor 550 no longer
                                      * fits; rk4 alone, done at 700 */
    set_costs(&f, 2, 100, 300, 500); /* cvode (floor 550) + 300 not < 850: no
                                      * pair; its worst 550 fits, but rk4's
                                      * worst fits too: rk4 first, to 300,
                                      * then cvode (300 + 550 not < 850) not */
    fixture_start(&f);
    double y;
    rtcosim_anytime_period r = run(&f, 0, &y);
    assert_int_equal(r.outcome[ACCURATE], RTCOSIM_ANYTIME_ABORTED);
    assert_int_equal(r.exec_ns[ACCURATE], 550 * US);
    assert_int_equal(r.delivered, MEDIUM);
    assert_int_equal(r.outcome[MINIMAL], RTCOSIM_ANYTIME_NOT_RUN);
    assert_int_equal(r.margin_ns, 150 * US);
    assert_double_equal(y, 10, 0);

    r = run(&f, 400, &y);
    assert_int_equal(r.delivered, MEDIUM);
    assert_int_equal(r.outcome[ACCURATE], RTCOSIM_ANYTIME_NOT_RUN);
    assert_int_equal(r.margin_ns, 300 * US);
    assert_double_equal(y, 20, 0);

    r = run(&f, 0, &y);
    assert_int_equal(r.delivered, MEDIUM);
    assert_int_equal(r.outcome[MEDIUM], RTCOSIM_ANYTIME_COMPLETED);
    assert_int_equal(r.outcome[ACCURATE], RTCOSIM_ANYTIME_NOT_RUN);
    assert_int_equal(r.margin_ns, 700 * US);
    assert_double_equal(y, 30, 0);
    assert_double_equal(committed_x(&f), 30, 0);
    rtcosim_anytime_summary s;
    assert_int_equal(rtcosim_anytime_summary_get(f.set, &s, NULL), RTCOSIM_OK);
    assert_int_equal(s.misses, 0);
    assert_int_equal(s.variants[ACCURATE].aborted, 1);
    fixture_teardown(&f);
}

static void timer_probes_a_variant_with_stale_slow_estimates(void **unused)
{
    (void)unused;
    fixture f;
    fixture_setup(&f, RTCOSIM_ANYTIME_TIMER, RTCOSIM_ANYTIME_PICK_RANK, 3);
    /* cvode calibrates at 600, 1500, 1500, 600: mean 1050 us exceeds the
     * 850 us budget, so rk4 (300) is chosen, until cvode has not run for 3
     * periods and is probed with its best time, 600. */
    const rtcosim_time_ns cycle[4] = {600 * US, 1500 * US, 1500 * US, 600 * US};
    memcpy(f.v[ACCURATE].calibration_cycle_ns, cycle, sizeof cycle);
    for (size_t k = 0; k < 5; k++)
        set_costs(&f, k, 100, 300, 500);
    fixture_start(&f);
    double y;
    for (int k = 0; k < 3; k++) {
        rtcosim_anytime_period r = run(&f, 0, &y);
        assert_int_equal(r.delivered, MEDIUM);
        assert_int_equal(r.outcome[ACCURATE], RTCOSIM_ANYTIME_NOT_RUN);
    }
    rtcosim_anytime_period r = run(&f, 0, &y); /* probe: completes in 500 */
    assert_int_equal(r.delivered, ACCURATE);
    assert_int_equal(r.margin_ns, 500 * US);
    /* fresh again: mean of 600 1500 1500 600 500 = 940 > 850 -> rk4 */
    r = run(&f, 0, &y);
    assert_int_equal(r.delivered, MEDIUM);
    assert_double_equal(y, 10 + 10 + 10 + 100 + 10, 0);
    fixture_teardown(&f);
}

static void overrunning_minimal_counts_a_miss(void **unused)
{
    (void)unused;
    fixture f;
    fixture_setup(&f, RTCOSIM_ANYTIME_ESCALATE, RTCOSIM_ANYTIME_PICK_RANK, 0);
    set_costs(&f, 0, 100, 300, 400);
    fixture_start(&f);
    double y;
    /* 950 us of load leave 50 us; the minimal one needs 100: late by 50. */
    rtcosim_anytime_period r = run(&f, 950, &y);
    assert_int_equal(r.delivered, MINIMAL);
    assert_true(r.missed);
    assert_int_equal(r.margin_ns, -50 * US);
    assert_int_equal(r.outcome[MEDIUM], RTCOSIM_ANYTIME_NOT_RUN);
    /* latest start 1000 - 50 - 100 = 850 us: started at 950, a late start */
    assert_int_equal(r.latest_start - r.release, 850 * US);
    assert_int_equal(r.miss, RTCOSIM_ANYTIME_MISS_LATE_START);
    rtcosim_anytime_summary s;
    assert_int_equal(rtcosim_anytime_summary_get(f.set, &s, NULL), RTCOSIM_OK);
    assert_int_equal(s.misses, 1);
    assert_int_equal(s.late_starts, 1);
    assert_int_equal(s.misses_strategy, 0);
    rtcosim_error err;
    assert_int_equal(rtcosim_anytime_write_csv(f.set, tu_scratch("anytime_miss.csv"), &err),
                     RTCOSIM_OK);
    FILE *in = fopen(tu_scratch("anytime_miss.csv"), "r");
    assert_non_null(in);
    char line[512];
    assert_non_null(fgets(line, sizeof line, in));
    assert_non_null(fgets(line, sizeof line, in));
    /* started 950 us after the release, delivered 50 us late */
    assert_string_equal(line, "0,1000,950,0,-50,1,1,100,1,0,0,0,0,1,0,-1,0\n");
    fclose(in);
    remove(tu_scratch("anytime_miss.csv"));
    fixture_teardown(&f);
}

/* A minimal variant that needs 1100 us although calibrated at 100 us,
 * started in time (at 0 <= latest start 850 us): its overrun is the
 * strategy's miss, not a late start; a start after 850 us is a late start.
 * The summary counts each class and their sum. */
static void misses_are_classified_as_late_start_or_strategy(void **unused)
{
    (void)unused;
    fixture f;
    fixture_setup(&f, RTCOSIM_ANYTIME_ESCALATE, RTCOSIM_ANYTIME_PICK_RANK, 0);
    set_costs(&f, 0, 1100, 300, 400);
    set_costs(&f, 1, 100, 300, 400);
    set_costs(&f, 2, 100, 300, 400);
    fixture_start(&f);
    double y;
    rtcosim_anytime_period r = run(&f, 0, &y);
    assert_int_equal(r.margin_ns, -100 * US);
    assert_int_equal(r.miss, RTCOSIM_ANYTIME_MISS_STRATEGY);
    assert_int_equal(r.stalled_ns, 0); /* not measured on a virtual clock */
    /* period 1 released at 1000 us, reached at 1100 us; 850 us of load:
     * started 950 us after the release, the minimal one ends 50 us late */
    r = run(&f, 850, &y);
    assert_int_equal(r.started_at - r.release, 950 * US);
    assert_int_equal(r.miss, RTCOSIM_ANYTIME_MISS_LATE_START);
    assert_int_equal(r.margin_ns, -50 * US);
    /* period 2 released at 2000 us, reached at 2050 us; 800 us of load:
     * exactly the latest start, the minimal one ends at 950 */
    r = run(&f, 800, &y);
    assert_int_equal(r.started_at - r.release, 850 * US);
    assert_false(r.missed);
    assert_int_equal(r.miss, RTCOSIM_ANYTIME_ON_TIME);
    rtcosim_anytime_summary s;
    assert_int_equal(rtcosim_anytime_summary_get(f.set, &s, NULL), RTCOSIM_OK);
    assert_int_equal(s.misses, 2);
    assert_int_equal(s.late_starts, 1);
    assert_int_equal(s.misses_strategy, 1);
    assert_int_equal(s.misses_stalled, 0);
    assert_string_equal(rtcosim_anytime_miss_name(RTCOSIM_ANYTIME_MISS_LATE_START), "late start");
    fixture_teardown(&f);
}

/* idle_reserve 0.25 of 1000 us: the cutoff moves from 950 to
 * 1000 - 50 - 250 = 700 us. Escalate: minimal ends at 100, medium at 200;
 * accurate's calibrated 500 us just fits (700), so it starts, needs 600 this
 * period and is aborted at 700 after 500 us; medium is delivered at 700
 * (margin 300). Timer: abort time
 * 1000 - 250 - (100 + 50) = 600 us; accurate (calibrated 500 < 600) is
 * started, needs 650 this period and is aborted at 600; the minimal one
 * then ends at 700. */
static void idle_reserve_moves_the_cutoff_of_every_strategy(void **unused)
{
    (void)unused;
    fixture f;
    fixture_setup_reserve(&f, RTCOSIM_ANYTIME_ESCALATE, RTCOSIM_ANYTIME_PICK_RANK, 0, 0.25);
    set_costs(&f, 0, 100, 100, 600);
    fixture_start(&f);
    double y;
    rtcosim_anytime_period r = run(&f, 0, &y);
    assert_int_equal(r.cutoff - r.release, 700 * US);
    assert_int_equal(r.delivered, MEDIUM);
    assert_int_equal(r.outcome[ACCURATE], RTCOSIM_ANYTIME_ABORTED);
    assert_int_equal(r.exec_ns[ACCURATE], 500 * US);
    assert_int_equal(r.margin_ns, 300 * US);
    rtcosim_anytime_summary s;
    assert_int_equal(rtcosim_anytime_summary_get(f.set, &s, NULL), RTCOSIM_OK);
    assert_double_equal(s.idle_reserve, 0.25, 0);
    assert_int_equal(s.idle_reserve_ns, 250 * US);
    fixture_teardown(&f);

    fixture_setup_reserve(&f, RTCOSIM_ANYTIME_TIMER, RTCOSIM_ANYTIME_PICK_RANK, 50, 0.25);
    set_costs(&f, 0, 100, 300, 650);
    fixture_start(&f);
    r = run(&f, 0, &y);
    assert_int_equal(r.outcome[ACCURATE], RTCOSIM_ANYTIME_ABORTED);
    assert_int_equal(r.exec_ns[ACCURATE], 600 * US);
    assert_int_equal(r.delivered, MINIMAL);
    assert_int_equal(r.margin_ns, 300 * US);
    fixture_teardown(&f);

    /* a reserve that leaves no work time is refused at create */
    rtcosim_clock *clock;
    assert_int_equal(rtcosim_clock_create_virtual(0, &clock, NULL), RTCOSIM_OK);
    rtcosim_anytime_config cfg;
    rtcosim_anytime_config_init(&cfg);
    cfg.output_count = 1;
    cfg.period_ns = 1000 * US;
    cfg.safety_margin_ns = 50 * US;
    cfg.idle_reserve = 0.95;
    rtcosim_anytime *set = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_anytime_create(&cfg, clock, &set, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "idle_reserve 0.95"));
    cfg.idle_reserve = 1;
    assert_int_equal(rtcosim_anytime_create(&cfg, clock, &set, &err), RTCOSIM_EINVAL);
    assert_null(set);
    rtcosim_clock_free(clock);
}

/* A derived idle reserve read from the calling thread's SCHED_DEADLINE
 * reservation (sched_getattr): runtime 800 us in every 1 ms: 1 - 0.8 + 0.02
 * = 0.22, so with the margin of 50 us escalate's cutoff is at 730 us. Run in
 * a thread of its own; skipped where the kernel refuses the policy. */
struct deadline_case {
    int refused; /* errno of sched_setattr, 0 when granted */
    double reserve;
    rtcosim_time_ns cutoff;
};

struct test_sched_attr {
    uint32_t size, sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime, sched_deadline, sched_period;
};

static void *deadline_thread(void *arg)
{
    struct deadline_case *c = arg;
#ifdef SYS_sched_setattr
    /* SCHED_DEADLINE (6), reset on fork (1): the set's workers are threads */
    struct test_sched_attr attr = {.size = sizeof attr, .sched_policy = 6, .sched_flags = 1,
                                   .sched_runtime = 800 * US, .sched_deadline = 1 * MS,
                                   .sched_period = 1 * MS};
    if (syscall(SYS_sched_setattr, 0, &attr, 0) != 0) {
        c->refused = errno;
        return NULL;
    }
#else
    c->refused = ENOSYS;
    return NULL;
#endif
    fixture f;
    fixture_setup_reserve(&f, RTCOSIM_ANYTIME_ESCALATE, RTCOSIM_ANYTIME_PICK_RANK, 0, -1);
    set_costs(&f, 0, 100, 100, 900);
    fixture_start(&f);
    double y;
    rtcosim_anytime_period r = run(&f, 0, &y);
    c->cutoff = r.cutoff - r.release;
    rtcosim_anytime_summary s;
    if (rtcosim_anytime_summary_get(f.set, &s, NULL) == RTCOSIM_OK)
        c->reserve = s.idle_reserve;
    fixture_teardown(&f);
    return NULL;
}

static void deadline_reservation_sets_the_derived_idle_reserve(void **unused)
{
    (void)unused;
    struct deadline_case c = {0, -1, 0};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, deadline_thread, &c), 0);
    pthread_join(t, NULL);
    if (c.refused) {
        print_message("SCHED_DEADLINE refused here (%s): not checked\n", strerror(c.refused));
        skip();
    }
    assert_double_equal(c.reserve, 0.22, 1e-12);
    assert_int_equal(c.cutoff, 730 * US);
}

static void period_change_takes_effect_after_the_current_period(void **unused)
{
    (void)unused;
    fixture f;
    fixture_setup(&f, RTCOSIM_ANYTIME_ESCALATE, RTCOSIM_ANYTIME_PICK_RANK, 0);
    set_costs(&f, 0, 100, 100, 100);
    set_costs(&f, 1, 100, 100, 100);
    set_costs(&f, 2, 100, 100, 100);
    fixture_start(&f);
    double y;
    rtcosim_time_ns start = rtcosim_anytime_next_release(f.set);
    assert_int_equal(rtcosim_anytime_set_period(f.set, 2 * MS, NULL), RTCOSIM_OK);
    assert_int_equal(rtcosim_anytime_period_ns(f.set), 1 * MS);
    rtcosim_anytime_period r0 = run(&f, 0, &y);
    assert_int_equal(r0.deadline - r0.release, 1 * MS);
    assert_int_equal(f.v[MINIMAL].last_h, 1 * MS);
    rtcosim_anytime_period r1 = run(&f, 0, &y);
    assert_int_equal(r1.release, start + 1 * MS);
    assert_int_equal(r1.deadline, start + 3 * MS);
    assert_int_equal(r1.sim_time, 1 * MS);
    assert_int_equal(f.v[MINIMAL].last_h, 2 * MS);
    rtcosim_anytime_period r2 = run(&f, 0, &y);
    assert_int_equal(r2.sim_time, 3 * MS);
    assert_int_equal(r2.release, start + 3 * MS);
    rtcosim_error err;
    assert_int_equal(rtcosim_anytime_set_period(f.set, 10 * US, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "safety margin"));
    /* minimal worst 100 us + margin 50 us > 50 % of 290 us = 145 us */
    assert_int_equal(rtcosim_anytime_set_period(f.set, 290 * US, &err), RTCOSIM_ETIMEOUT);
    assert_non_null(strstr(err.message, "period 290.0 us refused"));
    assert_non_null(strstr(err.message, "worst calibrated time 100.0 us"));
    assert_int_equal(rtcosim_anytime_set_period(f.set, 300 * US, &err), RTCOSIM_OK);
    fixture_teardown(&f);
}

static void minimal_that_does_not_fit_is_refused_with_figures(void **unused)
{
    (void)unused;
    fixture f;
    fixture_setup(&f, RTCOSIM_ANYTIME_ESCALATE, RTCOSIM_ANYTIME_PICK_RANK, 0);
    f.v[MINIMAL].calibration_cost_ns = 600 * US;
    rtcosim_error err;
    f.calibrating = true;
    assert_int_equal(rtcosim_anytime_start(f.set, NULL, &err), RTCOSIM_ETIMEOUT);
    assert_non_null(strstr(err.message, "'euler' worst execution time 600.0 us"));
    assert_non_null(strstr(err.message, "50 % of the period 1000.0 us"));
    assert_non_null(strstr(err.message, "refused"));
    double y;
    assert_int_equal(rtcosim_anytime_run_period(f.set, NULL, &y, NULL, &err), RTCOSIM_ESTATE);
    fixture_teardown(&f);
}

static void records_are_written_as_csv(void **unused)
{
    (void)unused;
    fixture f;
    fixture_setup(&f, RTCOSIM_ANYTIME_ESCALATE, RTCOSIM_ANYTIME_PICK_RANK, 0);
    set_costs(&f, 0, 100, 300, 400);
    set_costs(&f, 1, 100, 300, 600);
    fixture_start(&f);
    double y;
    run(&f, 0, &y);
    run(&f, 0, &y);
    rtcosim_error err;
    const char *path = tu_scratch("anytime_records.csv");
    assert_int_equal(rtcosim_anytime_write_csv(f.set, path, &err), RTCOSIM_OK);
    FILE *in = fopen(path, "r");
    assert_non_null(in);
    char line[512];
    assert_non_null(fgets(line, sizeof line, in));
    assert_string_equal(line, "time,period_us,start_us,delivered,margin_us,missed,y0,euler_exec_us,"
                              "euler_outcome,rk4_exec_us,rk4_outcome,cvode_exec_us,cvode_outcome,"
                              "miss,stalled_us,repaired,check_gap_us\n");
    assert_non_null(fgets(line, sizeof line, in));
    assert_string_equal(line, "0,1000,0,2,200,0,100,100,1,300,1,400,1,0,0,-1,0\n");
    assert_non_null(fgets(line, sizeof line, in));
    assert_string_equal(line, "0.001,1000,0,1,50,0,110,100,1,300,1,550,2,0,0,-1,0\n");
    assert_null(fgets(line, sizeof line, in));
    fclose(in);
    remove(path);
    assert_int_equal(rtcosim_anytime_write_csv(f.set, "no/such/dir/x.csv", &err), RTCOSIM_EIO);
    assert_non_null(strstr(err.message, "no/such/dir/x.csv"));
    fixture_teardown(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(escalate_delivers_best_completed_and_aborts_the_running_one),
        cmocka_unit_test(escalate_criteria_choose_rank_longest_step_solver),
        cmocka_unit_test(timer_aborts_falls_back_learns_and_forgets),
        cmocka_unit_test(timer_probes_a_variant_with_stale_slow_estimates),
        cmocka_unit_test(timer_with_fallback_delivers_medium_when_accurate_is_aborted),
        cmocka_unit_test(overrunning_minimal_counts_a_miss),
        cmocka_unit_test(misses_are_classified_as_late_start_or_strategy),
        cmocka_unit_test(idle_reserve_moves_the_cutoff_of_every_strategy),
        cmocka_unit_test(deadline_reservation_sets_the_derived_idle_reserve),
        cmocka_unit_test(period_change_takes_effect_after_the_current_period),
        cmocka_unit_test(minimal_that_does_not_fit_is_refused_with_figures),
        cmocka_unit_test(records_are_written_as_csv),
    };
    return cmocka_run_group_tests(tests, tu_scratch_group_setup, tu_scratch_group_teardown);
}
