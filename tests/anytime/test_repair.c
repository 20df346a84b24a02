/* Escalate's start rules, the timer's fallback and the repair of a coarse
 * period's state, on a virtual clock with injected costs and a real
 * integrator: dx/dt = lambda x
 * (lambda = -100 1/s, period h = 1 ms) integrated by Euler in 1 step
 * (minimal), Euler in 10 steps (medium) and the exact solution (accurate), so
 * that every decision, every delivered value and its error against exp(lambda
 * t) are computed by hand. Period 1000 us, safety margin 50 us (cutoff 950),
 * no idle reserve, costs minimal 100, medium 300, accurate 500 us. Also the
 * wake-up lateness a set measures at start, on the monotonic clock. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "anytime/anytime_internal.h"
#include "anytime_test_util.h"
#include "rtcosim/anytime.h"

enum { MINIMAL, MEDIUM, ACCURATE };

#define LAMBDA (-100.0)
#define H 1e-3

typedef struct decay_variant {
    rtcosim_clock *clock;
    int steps;                 /* Euler steps per period; 0: the exact solution */
    rtcosim_time_ns cost_ns;   /* per period, spent in 1 us slices */
    rtcosim_time_ns next_cost_ns; /* > 0: the cost of the next call only */
} decay_variant;

static rtcosim_status decay_fn(void *user, rtcosim_anytime_ctx *ctx, rtcosim_time_ns t,
                               rtcosim_time_ns h, const double *inputs, void *state,
                               double *outputs, rtcosim_error *err)
{
    (void)t, (void)inputs;
    decay_variant *v = user;
    rtcosim_time_ns cost = v->next_cost_ns > 0 ? v->next_cost_ns : v->cost_ns;
    v->next_cost_ns = 0;
    for (rtcosim_time_ns spent = 0; spent < cost; spent += US) {
        if (rtcosim_anytime_should_abort(ctx))
            return rtcosim_error_set(err, RTCOSIM_ECANCELED, "aborted");
        rtcosim_clock_advance(v->clock, US);
    }
    double *x = state, hs = rtcosim_time_to_seconds(h);
    if (v->steps == 0)
        *x *= exp(LAMBDA * hs);
    else
        for (int s = 0; s < v->steps; s++)
            *x += hs / v->steps * LAMBDA * *x;
    outputs[0] = *x;
    return RTCOSIM_OK;
}

typedef struct fixture {
    rtcosim_clock *clock;
    rtcosim_anytime *set;
    decay_variant v[3];
} fixture;

static void setup_strategy(fixture *f, rtcosim_anytime_strategy strategy, bool repair)
{
    memset(f, 0, sizeof *f);
    rtcosim_error err;
    assert_int_equal(rtcosim_clock_create_virtual(0, &f->clock, &err), RTCOSIM_OK);
    rtcosim_anytime_config cfg;
    rtcosim_anytime_config_init(&cfg);
    cfg.name = "decay";
    cfg.output_count = 1;
    cfg.state_size = sizeof(double);
    const double x0 = 1.0;
    cfg.initial_state = &x0;
    cfg.period_ns = 1000 * US;
    cfg.safety_margin_ns = 50 * US;
    cfg.strategy = strategy;
    cfg.timer_fallback = true;
    cfg.calibration_runs = 4;
    cfg.record_capacity = 16;
    cfg.idle_reserve = 0;
    cfg.repair = repair;
    assert_true(cfg.start_quantile == 0.999); /* the documented default */
    assert_int_equal(rtcosim_anytime_create(&cfg, f->clock, &f->set, &err), RTCOSIM_OK);
    const rtcosim_anytime_variant_info infos[3] = {
        {"euler1", 1, 1000 * US, RTCOSIM_ANYTIME_SOLVER_EULER},
        {"euler10", 2, 100 * US, RTCOSIM_ANYTIME_SOLVER_EULER},
        {"exact", 3, 0, RTCOSIM_ANYTIME_SOLVER_OTHER},
    };
    const int steps[3] = {1, 10, 0};
    const rtcosim_time_ns cost[3] = {100 * US, 300 * US, 500 * US};
    for (int i = 0; i < 3; i++) {
        f->v[i] = (decay_variant){.clock = f->clock, .steps = steps[i], .cost_ns = cost[i]};
        assert_int_equal(rtcosim_anytime_add_native(f->set, &infos[i], decay_fn, &f->v[i], &err),
                         RTCOSIM_OK);
    }
    /* calibration runs leave the committed state alone (x stays 1) */
    assert_int_equal(rtcosim_anytime_start(f->set, NULL, &err), RTCOSIM_OK);
}

static void setup(fixture *f, bool repair)
{
    setup_strategy(f, RTCOSIM_ANYTIME_ESCALATE, repair);
}

static void teardown(fixture *f)
{
    rtcosim_anytime_free(f->set);
    rtcosim_clock_free(f->clock);
}

static rtcosim_anytime_period run(fixture *f, int64_t load_us, double *y)
{
    rtcosim_error err;
    rtcosim_anytime_period rec;
    rtcosim_anytime_wait_release(f->set);
    rtcosim_clock_advance(f->clock, load_us * US);
    assert_int_equal(rtcosim_anytime_run_period(f->set, NULL, y, &rec, &err), RTCOSIM_OK);
    return rec;
}

static double committed_x(fixture *f)
{
    return *(const double *)rtcosim_anytime_state(f->set);
}

/* One period's factors: exact, Euler 1 step, Euler 10 steps. */
static const double e1 = 1 + LAMBDA * H;   /* 0.9 */
#define E10 pow(1 + LAMBDA * H / 10, 10)    /* 0.99^10 */
#define EX exp(LAMBDA * H)                  /* exp(-0.1) */

/* Periods 0-2 with and without the repair:
 * P0, no load: minimal 0-100, medium 100-400, exact 400-900 (its 500 us fits
 *   950): exact delivered, x1 = EX.
 * P1, 600 us load: minimal 600-700; medium's slowest run (300) would end at
 *   1000 > 950: not started (escalate's start rule); exact neither. Minimal
 *   delivered: y1 = EX * 0.9, margin 300.
 * P2, no load: with the repair, medium fits twice with minimal after it
 *   (2 * 300 + 100 <= 950; exact's 2 * 500 + 100 does not): it recomputes P1
 *   from x1 in 0-300 (state EX * E10), then minimal 300-400, medium 400-700,
 *   exact (700 + 500 > 950) not started: y2 = EX * E10 * E10, margin 300.
 *   Without it: minimal 0-100, medium 100-400, exact 400-900:
 *   y2 = EX * 0.9 * EX, margin 100. */
static void repair_replaces_a_coarse_state_and_cuts_the_error(void **unused)
{
    (void)unused;
    fixture f;
    setup(&f, true);
    double y;
    rtcosim_anytime_period r = run(&f, 0, &y);
    assert_int_equal(r.delivered, ACCURATE);
    assert_int_equal(r.repaired, -1);
    assert_double_equal(y, EX, 1e-15);

    r = run(&f, 600, &y);
    assert_int_equal(r.delivered, MINIMAL);
    assert_int_equal(r.outcome[MEDIUM], RTCOSIM_ANYTIME_NOT_RUN);
    assert_int_equal(r.outcome[ACCURATE], RTCOSIM_ANYTIME_NOT_RUN);
    assert_int_equal(r.margin_ns, 300 * US);
    assert_double_equal(y, EX * e1, 1e-15);
    assert_double_equal(committed_x(&f), EX * e1, 1e-15);

    r = run(&f, 0, &y);
    assert_int_equal(r.repaired, MEDIUM);
    assert_int_equal(r.repair_ns, 300 * US);
    assert_int_equal(r.delivered, MEDIUM);
    assert_int_equal(r.outcome[MINIMAL], RTCOSIM_ANYTIME_COMPLETED);
    assert_int_equal(r.outcome[MEDIUM], RTCOSIM_ANYTIME_COMPLETED);
    assert_int_equal(r.outcome[ACCURATE], RTCOSIM_ANYTIME_NOT_RUN);
    assert_int_equal(r.margin_ns, 300 * US);
    double repaired = EX * E10 * E10;
    assert_double_equal(y, repaired, 1e-15);
    /* error against the exact solution exp(-100 t) at t = 3 ms */
    double exact = exp(3 * LAMBDA * H);
    double err_repaired = fabs(repaired - exact);

    rtcosim_anytime_summary s;
    assert_int_equal(rtcosim_anytime_summary_get(f.set, &s, NULL), RTCOSIM_OK);
    assert_int_equal(s.repairs, 1);
    assert_int_equal(s.repairs_aborted, 0);
    assert_int_equal(s.misses, 0);
    /* the repair is a completed run of medium, not a delivery */
    assert_int_equal(s.variants[MEDIUM].delivered, 1);
    teardown(&f);

    setup(&f, false);
    run(&f, 0, &y);
    run(&f, 600, &y);
    r = run(&f, 0, &y);
    assert_int_equal(r.repaired, -1);
    assert_int_equal(r.delivered, ACCURATE);
    assert_int_equal(r.margin_ns, 100 * US);
    double kept = EX * e1 * EX;
    assert_double_equal(y, kept, 1e-15);
    /* by hand: |exp(-0.1) 0.99^20 - exp(-0.3)| = 7.454e-4 with the repair,
     * |exp(-0.2) 0.9 - exp(-0.3)| = 3.9605e-3 without: the coarse step's
     * error carried on is 5.3 times the repaired one, although without the
     * repair the last period had time for the exact variant */
    assert_double_equal(err_repaired, 7.4542e-4, 1e-8);
    assert_double_equal(fabs(kept - exact), 3.96054e-3, 1e-8);
    teardown(&f);
}

/* A repair that does not fit twice is skipped, and one that runs past its
 * abort time (cutoff - medium's 300 - minimal's 100 = 550 us) is aborted and
 * the coarse state kept:
 * P0, 700 us load: minimal 700-800, medium (800 + 300 > 950) not started.
 * P1, 500 us load: repair needs 500 + 600 + 100 > 950: skipped; minimal
 *   500-600, medium 600-900 delivered from the coarse state: y = 0.9 E10.
 * P2, 800 us load: minimal 800-900 delivered: y = 0.9 E10 0.9.
 * P3, no load: the repair with medium this time costs 700 us, is aborted at
 *   550 and the state stays 0.9 E10 0.9; minimal 550-650, medium 650-950 (it
 *   just fits the cutoff): y = 0.9 E10 0.9 E10, margin 50. */
static void repair_is_skipped_or_aborted_when_it_does_not_fit(void **unused)
{
    (void)unused;
    fixture f;
    setup(&f, true);
    double y;
    rtcosim_anytime_period r = run(&f, 700, &y);
    assert_int_equal(r.delivered, MINIMAL);

    r = run(&f, 500, &y);
    assert_int_equal(r.repaired, -1);
    assert_int_equal(r.repair_ns, 0);
    assert_int_equal(r.delivered, MEDIUM);
    assert_double_equal(y, e1 * E10, 1e-15);

    r = run(&f, 800, &y);
    assert_int_equal(r.delivered, MINIMAL);
    assert_double_equal(y, e1 * E10 * e1, 1e-15);

    f.v[MEDIUM].next_cost_ns = 700 * US;
    r = run(&f, 0, &y);
    assert_int_equal(r.repaired, -1);
    assert_int_equal(r.repair_ns, 550 * US);
    assert_int_equal(r.delivered, MEDIUM);
    assert_int_equal(r.margin_ns, 50 * US);
    assert_double_equal(y, e1 * E10 * e1 * E10, 1e-15);
    rtcosim_anytime_summary s;
    assert_int_equal(rtcosim_anytime_summary_get(f.set, &s, NULL), RTCOSIM_OK);
    assert_int_equal(s.repairs, 0);
    assert_int_equal(s.repairs_aborted, 1);
    assert_int_equal(s.misses, 0);
    teardown(&f);
}

/* Escalate's two quantiles: medium's window becomes 300 x 4 (calibration)
 * and 700 us.
 * P0: minimal 0-100; only the minimal result in hand, so medium's median
 *   (300) decides: started, needs 700 this time, 100-800; exact, with medium
 *   in hand, needs its slowest run (500) to fit: 800 + 500 > 950, not
 *   started. Medium delivered at 800: y = E10, margin 200.
 * P1, 500 us load: minimal 500-600; medium's median 300 fits (900 <= 950)
 *   though its slowest run 700 would not: started, 600-900, delivered,
 *   margin 100. Under the slowest-run rule it would not have started and the
 *   minimal result would have been delivered. */
static void escalate_starts_the_first_refinement_by_its_median(void **unused)
{
    (void)unused;
    fixture f;
    setup(&f, true);
    double y;
    f.v[MEDIUM].next_cost_ns = 700 * US;
    rtcosim_anytime_period r = run(&f, 0, &y);
    assert_int_equal(r.delivered, MEDIUM);
    assert_int_equal(r.exec_ns[MEDIUM], 700 * US);
    assert_int_equal(r.outcome[ACCURATE], RTCOSIM_ANYTIME_NOT_RUN);
    assert_int_equal(r.margin_ns, 200 * US);
    assert_double_equal(y, E10, 1e-15);

    r = run(&f, 500, &y);
    assert_int_equal(r.delivered, MEDIUM);
    assert_int_equal(r.outcome[MEDIUM], RTCOSIM_ANYTIME_COMPLETED);
    assert_int_equal(r.margin_ns, 100 * US);
    assert_double_equal(y, E10 * E10, 1e-15);
    teardown(&f);
}

/* Timer with fallback: its abort time is 1000 - (minimal 100 + 50) = 850 us,
 * and exact (mean 500) with medium's slowest 300 after it fits 850: the pair.
 * First run: medium first, slower than ever (450 us, 0-450); exact (450 + 500
 * is not below 850) is not started: medium delivered at 450, margin 550. (The
 * first choice first would have been aborted at 550 and medium after it at
 * 850: minimal delivered.)
 * Second run, P0: medium needs 900 us, is aborted at 850 (its floor: 850 *
 *   5 / 4 + 1 us), minimal runs 850-950 and is delivered (margin 50).
 * P1, 100 us load: the repair with medium (100 + 2 * 300 + 100 <= 950) runs
 *   100-400 and completes below its floor, which lifts it; the budget left is
 *   850 - 400 = 450: exact (500) does not fit, medium (300) does: 400-700,
 *   margin 300. With the floor kept, medium would be barred and minimal
 *   delivered. */
static void timer_runs_its_fallback_first_and_a_repair_lifts_a_floor(void **unused)
{
    (void)unused;
    fixture f;
    setup_strategy(&f, RTCOSIM_ANYTIME_TIMER, true);
    double y;
    f.v[MEDIUM].next_cost_ns = 450 * US;
    rtcosim_anytime_period r = run(&f, 0, &y);
    assert_int_equal(r.delivered, MEDIUM);
    assert_int_equal(r.outcome[MEDIUM], RTCOSIM_ANYTIME_COMPLETED);
    assert_int_equal(r.outcome[ACCURATE], RTCOSIM_ANYTIME_NOT_RUN);
    assert_int_equal(r.outcome[MINIMAL], RTCOSIM_ANYTIME_NOT_RUN);
    assert_int_equal(r.margin_ns, 550 * US);
    assert_double_equal(y, E10, 1e-15);
    teardown(&f);

    setup_strategy(&f, RTCOSIM_ANYTIME_TIMER, true);
    f.v[MEDIUM].next_cost_ns = 900 * US;
    r = run(&f, 0, &y);
    assert_int_equal(r.outcome[MEDIUM], RTCOSIM_ANYTIME_ABORTED);
    assert_int_equal(r.exec_ns[MEDIUM], 850 * US);
    assert_int_equal(r.outcome[ACCURATE], RTCOSIM_ANYTIME_NOT_RUN);
    assert_int_equal(r.delivered, MINIMAL);
    assert_int_equal(r.margin_ns, 50 * US);
    assert_double_equal(y, e1, 1e-15);

    r = run(&f, 100, &y);
    assert_int_equal(r.repaired, MEDIUM);
    assert_int_equal(r.repair_ns, 300 * US);
    assert_int_equal(r.delivered, MEDIUM);
    assert_int_equal(r.outcome[ACCURATE], RTCOSIM_ANYTIME_NOT_RUN);
    assert_int_equal(r.margin_ns, 300 * US);
    assert_double_equal(y, E10 * E10, 1e-15);
    teardown(&f);
}

/* Timer with fallback, no repair. P0, 400 us load: budget 850 - 400 = 450:
 *   exact (500) does not fit, medium (300) does and has no fallback below it:
 *   alone, needs 900, aborted at 850: the learned abort time and medium's
 *   floor become 850 - 400 = 450 us; minimal 850-950 delivered.
 * P1: the plain choice finds nothing below the learned 450 (medium 450 is
 *   not below it, exact 500 neither): minimal alone, before. The fallback's
 *   choice uses each variant's own floor: exact's worst 500 fits 850, medium
 *   (its floor 450) fits too and runs first, 0-300, then exact (300 + 500 <
 *   850), 300-800: exact delivered, margin 200. */
static void timer_fallback_choice_when_the_learned_limit_bars_all(void **unused)
{
    (void)unused;
    fixture f;
    setup_strategy(&f, RTCOSIM_ANYTIME_TIMER, false);
    double y;
    f.v[MEDIUM].next_cost_ns = 900 * US;
    rtcosim_anytime_period r = run(&f, 400, &y);
    assert_int_equal(r.outcome[MEDIUM], RTCOSIM_ANYTIME_ABORTED);
    assert_int_equal(r.outcome[ACCURATE], RTCOSIM_ANYTIME_NOT_RUN);
    assert_int_equal(r.delivered, MINIMAL);
    rtcosim_anytime_summary s;
    assert_int_equal(rtcosim_anytime_summary_get(f.set, &s, NULL), RTCOSIM_OK);
    assert_int_equal(s.learned_abort_ns, 450 * US);

    r = run(&f, 0, &y);
    assert_int_equal(r.outcome[MEDIUM], RTCOSIM_ANYTIME_COMPLETED);
    assert_int_equal(r.outcome[ACCURATE], RTCOSIM_ANYTIME_COMPLETED);
    assert_int_equal(r.outcome[MINIMAL], RTCOSIM_ANYTIME_NOT_RUN);
    assert_int_equal(r.delivered, ACCURATE);
    assert_int_equal(r.margin_ns, 200 * US);
    assert_double_equal(y, e1 * EX, 1e-15);
    teardown(&f);
}

/* The pure rules with hand-picked figures. */
static void start_and_repair_rules(void **unused)
{
    (void)unused;
    /* escalate: fits when now + need <= cutoff; unknown cost is tried */
    assert_true(anytime_escalate_fits(300e3, 600 * US, 900 * US));
    assert_false(anytime_escalate_fits(300e3 + 1, 600 * US, 900 * US));
    assert_true(anytime_escalate_fits(NAN, 900 * US, 900 * US));
    /* repair: ranks 1, 2, 3 with needs 100, 300, 500 us */
    const double need[3] = {100e3, 300e3, 500e3};
    const int rank[3] = {1, 2, 3};
    /* from 0 to 1100: exact needs 2 * 500 + 100 = 1100: chosen */
    assert_int_equal(anytime_repair_choose(need, rank, 3, 1, 0, 1100 * US), 2);
    /* 1099: exact does not fit, medium (700) does */
    assert_int_equal(anytime_repair_choose(need, rank, 3, 1, 0, 1099 * US), 1);
    /* only variants ranked above the delivered one */
    assert_int_equal(anytime_repair_choose(need, rank, 3, 2, 0, 1099 * US), -1);
    /* 350 us left: nothing fits */
    assert_int_equal(anytime_repair_choose(need, rank, 3, 1, 600 * US, 950 * US), -1);
    /* a variant without completed runs is never chosen */
    const double unknown[3] = {100e3, NAN, 500e3};
    assert_int_equal(anytime_repair_choose(unknown, rank, 3, 1, 0, 1099 * US), -1);
}

/* A variant that only adds one to its state. */
static rtcosim_status add_one_fn(void *user, rtcosim_anytime_ctx *ctx, rtcosim_time_ns t,
                                 rtcosim_time_ns h, const double *inputs, void *state,
                                 double *outputs, rtcosim_error *err)
{
    (void)user, (void)ctx, (void)t, (void)h, (void)inputs, (void)err;
    outputs[0] = ++*(double *)state;
    return RTCOSIM_OK;
}

static rtcosim_anytime *wakeup_set(rtcosim_clock *clock, int samples, double quantile,
                                   rtcosim_error *err)
{
    rtcosim_anytime_config cfg;
    rtcosim_anytime_config_init(&cfg);
    cfg.output_count = 1;
    cfg.state_size = sizeof(double);
    cfg.period_ns = 2 * MS;
    cfg.idle_reserve = 0;
    cfg.wakeup_samples = samples;
    cfg.wakeup_quantile = quantile;
    rtcosim_anytime *set = NULL;
    if (rtcosim_anytime_create(&cfg, clock, &set, err) != RTCOSIM_OK)
        return NULL;
    rtcosim_anytime_variant_info info = {"only", 1, 0, RTCOSIM_ANYTIME_SOLVER_OTHER};
    assert_int_equal(rtcosim_anytime_add_native(set, &info, add_one_fn, NULL, err), RTCOSIM_OK);
    return set;
}

/* At start on the monotonic clock the set measures its own wake-ups: 50
 * timed waits one 2 ms period apart take at least 100 ms; every wait wakes
 * after its time, so p50 > 0, p50 <= p99 <= max, and with wakeup_quantile
 * 0.5 the lead is the p50 (nearest rank 25 of 50 both). On a virtual clock,
 * or with 0 samples, nothing is measured; a quantile of 0 is refused. */
static void wakeup_lateness_is_measured_at_start(void **unused)
{
    (void)unused;
    rtcosim_clock *clock;
    rtcosim_error err;
    assert_int_equal(rtcosim_clock_create_monotonic(0, &clock, NULL), RTCOSIM_OK);
    rtcosim_anytime *set = wakeup_set(clock, 50, 0.5, &err);
    assert_non_null(set);
    rtcosim_time_ns before = rtcosim_clock_now(clock);
    assert_int_equal(rtcosim_anytime_start(set, NULL, &err), RTCOSIM_OK);
    assert_true(rtcosim_clock_now(clock) - before >= 100 * MS);
    rtcosim_anytime_summary s;
    assert_int_equal(rtcosim_anytime_summary_get(set, &s, &err), RTCOSIM_OK);
    assert_true(s.wakeup_p50_ns > 0);
    assert_true(s.wakeup_p50_ns <= s.wakeup_p99_ns && s.wakeup_p99_ns <= s.wakeup_max_ns);
    assert_true(s.wakeup_lead_ns == s.wakeup_p50_ns || s.wakeup_lead_ns == 2 * MS / 4);
    rtcosim_anytime_free(set);
    set = wakeup_set(clock, 0, 0.99, &err);
    assert_int_equal(rtcosim_anytime_start(set, NULL, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_anytime_summary_get(set, &s, &err), RTCOSIM_OK);
    assert_true(s.wakeup_p50_ns == 0 && s.wakeup_max_ns == 0 && s.wakeup_lead_ns == 0);
    rtcosim_anytime_free(set);
    rtcosim_clock_free(clock);
    assert_int_equal(rtcosim_clock_create_virtual(0, &clock, NULL), RTCOSIM_OK);
    set = wakeup_set(clock, 50, 0.99, &err);
    assert_int_equal(rtcosim_anytime_start(set, NULL, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_anytime_summary_get(set, &s, &err), RTCOSIM_OK);
    assert_true(s.wakeup_max_ns == 0 && s.wakeup_lead_ns == 0);
    rtcosim_anytime_free(set);
    assert_null(wakeup_set(clock, 50, 0, &err));
    assert_string_equal(err.message, "anytime set 'anytime': wakeup_samples 50 must be "
                                     "0..100000 and wakeup_quantile 0 in (0, 1]");
    rtcosim_clock_free(clock);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(repair_replaces_a_coarse_state_and_cuts_the_error),
        cmocka_unit_test(repair_is_skipped_or_aborted_when_it_does_not_fit),
        cmocka_unit_test(escalate_starts_the_first_refinement_by_its_median),
        cmocka_unit_test(timer_runs_its_fallback_first_and_a_repair_lifts_a_floor),
        cmocka_unit_test(timer_fallback_choice_when_the_learned_limit_bars_all),
        cmocka_unit_test(start_and_repair_rules),
        cmocka_unit_test(wakeup_lateness_is_measured_at_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
