/* Anytime sets as components (anytime_component.h) and the strategies'
 * additions for them, on the virtual clock with injected execution times:
 * a variant that never polls is abandoned on its worker at the cutoff and
 * the minimal result is delivered by every deadline; the timer strategy
 * starts a costlier variant after the chosen one finished early. */
#include <semaphore.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "anytime_test_util.h"
#include "rtcosim/anytime_component.h"

/* A variant that, once `hang` is set, never returns and never polls (a
 * solver stuck in a loop) until the test opens `gate`; before, it costs
 * cost_ns of virtual time. */
typedef struct stubborn {
    rtcosim_clock *clock;
    rtcosim_time_ns cost_ns;
    atomic_bool hang;
    sem_t gate;
} stubborn;

static rtcosim_status stubborn_fn(void *user, rtcosim_anytime_ctx *ctx, rtcosim_time_ns t,
                                  rtcosim_time_ns h, const double *inputs, void *state,
                                  double *outputs, rtcosim_error *err)
{
    (void)ctx, (void)t, (void)h, (void)err;
    stubborn *s = user;
    if (atomic_load(&s->hang))
        while (sem_wait(&s->gate) != 0) {
        }
    rtcosim_clock_advance(s->clock, s->cost_ns);
    double *x = state;
    *x = *x * 0.5 + inputs[0]; /* a different result from the minimal one */
    outputs[0] = *x;
    return RTCOSIM_OK;
}

/* The minimal variant: x <- x + u, 100 us. */
static rtcosim_status minimal_fn(void *user, rtcosim_anytime_ctx *ctx, rtcosim_time_ns t,
                                 rtcosim_time_ns h, const double *inputs, void *state,
                                 double *outputs, rtcosim_error *err)
{
    (void)ctx, (void)t, (void)h, (void)err;
    rtcosim_clock_advance(user, 100 * US);
    double *x = state;
    *x += inputs[0];
    outputs[0] = *x;
    return RTCOSIM_OK;
}

static void never_polling_variant_is_abandoned_and_minimal_delivered_on_time(void **unused)
{
    (void)unused;
    rtcosim_clock *clock;
    assert_int_equal(rtcosim_clock_create_virtual(0, &clock, NULL), RTCOSIM_OK);
    stubborn s = {.clock = clock, .cost_ns = 200 * US};
    atomic_init(&s.hang, false);
    assert_int_equal(sem_init(&s.gate, 0, 0), 0);
    rtcosim_anytime_component_options opts;
    rtcosim_anytime_component_options_init(&opts);
    rtcosim_anytime_config cfg = opts.config; /* abandon_on_workers set */
    assert_true(cfg.abandon_on_workers);
    cfg.input_count = 1;
    cfg.output_count = 1;
    cfg.state_size = sizeof(double);
    cfg.period_ns = MS;
    cfg.calibration_runs = 2;
    cfg.idle_reserve = 0;
    cfg.repair = false;
    cfg.record_capacity = 8;
    rtcosim_anytime *set;
    rtcosim_error err;
    assert_int_equal(rtcosim_anytime_create(&cfg, clock, &set, &err), RTCOSIM_OK);
    const rtcosim_anytime_variant_info minimal = {"minimal", 1, 0, RTCOSIM_ANYTIME_SOLVER_EULER},
                                       fine = {"fine", 2, 0, RTCOSIM_ANYTIME_SOLVER_RK4};
    assert_int_equal(rtcosim_anytime_add_native(set, &minimal, minimal_fn, clock, &err),
                     RTCOSIM_OK);
    assert_int_equal(rtcosim_anytime_add_native(set, &fine, stubborn_fn, &s, &err), RTCOSIM_OK);
    const char *in[] = {"u"}, *out[] = {"y"};
    opts.period_ns = MS;
    rtcosim_component *c;
    assert_int_equal(rtcosim_anytime_component_wrap_set(set, "Stubborn", in, out, &opts, &c, &err),
                     RTCOSIM_OK);
    assert_int_equal(rtcosim_component_instantiate(c, "s", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_setup(c, 0, 0, -1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_enter_init(c, &err), RTCOSIM_OK);
    const uint32_t u_vr = 0, y_vr = 1;
    const double u = 1.0;
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &u_vr, 1, &u, &err),
                     RTCOSIM_OK);
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK); /* calibrates */

    /* Step 0: fine completes (200 us after minimal's 100 us): x = 0*0.5+1. */
    rtcosim_time_ns t0 = rtcosim_clock_now(clock);
    double y;
    assert_int_equal(rtcosim_component_do_step(c, 0, MS, NULL, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &y_vr, 1, &y, &err),
                     RTCOSIM_OK);
    assert_double_equal(y, 1.0, 0);
    assert_int_equal(rtcosim_anytime_component_step(c, 0)->delivered, 1);
    assert_int_equal(rtcosim_clock_now(clock) - t0, 300 * US);

    /* From step 1 on fine never returns and never polls. The step's deadline
     * is now + 0.8 ms (the default budget), the cutoff 50 us (5 % margin)
     * before: fine is abandoned there and the minimal result, x + u, is
     * delivered at the cutoff, before the deadline. */
    atomic_store(&s.hang, true);
    double x = 1.0;
    for (int k = 1; k <= 3; k++) {
        rtcosim_time_ns start = rtcosim_clock_now(clock);
        assert_int_equal(rtcosim_component_do_step(c, k * MS, MS, NULL, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &y_vr, 1, &y, &err),
                         RTCOSIM_OK);
        x += u;
        assert_double_equal(y, x, 0);
        const rtcosim_anytime_step *step = rtcosim_anytime_component_step(c, (size_t)k);
        assert_int_equal(step->t, k * MS);
        assert_int_equal(step->delivered, 0);
        assert_false(step->missed);
        const rtcosim_anytime_period *rec =
            rtcosim_anytime_record(set, rtcosim_anytime_record_count(set) - 1);
        /* abandoned in the first hung step, busy (skipped) after it */
        assert_int_equal(rec->outcome[1],
                         k == 1 ? RTCOSIM_ANYTIME_ABANDONED : RTCOSIM_ANYTIME_BUSY);
        assert_int_equal(rec->deadline, start + 800 * US);
        /* step 1 waits to the cutoff; later ones only run the minimal one */
        assert_int_equal(rtcosim_clock_now(clock) - start, k == 1 ? 750 * US : 100 * US);
        assert_true(rec->delivered_at <= rec->deadline);
    }
    rtcosim_anytime_summary sum;
    assert_int_equal(rtcosim_anytime_summary_get(set, &sum, &err), RTCOSIM_OK);
    assert_int_equal(sum.misses, 0);
    assert_int_equal(sum.variants[1].abandoned, 1);
    sem_post(&s.gate); /* let it return so that the worker can be joined */
    rtcosim_component_free(c);
    rtcosim_clock_free(clock);
    sem_destroy(&s.gate);
}

/* The timer strategy chooses before the period what fits before the
 * minimal variant's reserve; when its choice ends early, a costlier one
 * whose learned cost fits before the cutoff runs too and is delivered. */
static void timer_starts_a_costlier_variant_after_an_early_finish(void **unused)
{
    (void)unused;
    rtcosim_clock *clock;
    assert_int_equal(rtcosim_clock_create_virtual(0, &clock, NULL), RTCOSIM_OK);
    for (int upgrade = 0; upgrade < 2; upgrade++) {
        bool calibrating = true;
        size_t period = 0;
        /* period 1000 us, margin 50 us, minimal 100 us: the timer's budget
         * from the release is 850 us; accurate's 850 us does not fit it,
         * medium's 300 us does. In period 0 medium takes 50 us: then 900 us
         * are left to the cutoff at 950 us and accurate's 850 fits. */
        injected_variant v[3] = {
            {.clock = clock, .increment = 1, .calibration_cost_ns = 100 * US},
            {.clock = clock, .increment = 10, .calibration_cost_ns = 300 * US},
            {.clock = clock, .increment = 100, .calibration_cost_ns = 850 * US}};
        for (int i = 0; i < 3; i++) {
            v[i].calibrating = &calibrating;
            v[i].period = &period;
        }
        v[0].cost_ns[0] = 100 * US;
        v[1].cost_ns[0] = 50 * US;
        v[2].cost_ns[0] = 850 * US;
        rtcosim_anytime_config cfg;
        rtcosim_anytime_config_init(&cfg);
        cfg.input_count = 1;
        cfg.output_count = 1;
        cfg.state_size = sizeof(double);
        cfg.period_ns = MS;
        cfg.strategy = RTCOSIM_ANYTIME_TIMER;
        cfg.calibration_runs = 3;
        cfg.idle_reserve = 0;
        cfg.repair = false;
        cfg.timer_upgrade = upgrade;
        cfg.record_capacity = 4;
        rtcosim_anytime *set;
        rtcosim_error err;
        assert_int_equal(rtcosim_anytime_create(&cfg, clock, &set, &err), RTCOSIM_OK);
        static const char *const names[3] = {"minimal", "medium", "accurate"};
        for (int i = 0; i < 3; i++) {
            rtcosim_anytime_variant_info info = {names[i], i + 1, 0, RTCOSIM_ANYTIME_SOLVER_OTHER};
            assert_int_equal(rtcosim_anytime_add_native(set, &info, injected_variant_fn, &v[i],
                                                        &err),
                             RTCOSIM_OK);
        }
        const double u = 0;
        assert_int_equal(rtcosim_anytime_start(set, &u, &err), RTCOSIM_OK);
        calibrating = false;
        rtcosim_anytime_wait_release(set);
        double y;
        rtcosim_anytime_period r;
        assert_int_equal(rtcosim_anytime_run_period(set, &u, &y, &r, &err), RTCOSIM_OK);
        assert_int_equal(r.outcome[1], RTCOSIM_ANYTIME_COMPLETED);
        assert_int_equal(r.outcome[0], RTCOSIM_ANYTIME_NOT_RUN);
        if (upgrade) {
            assert_int_equal(r.delivered, 2);
            assert_int_equal(r.outcome[2], RTCOSIM_ANYTIME_COMPLETED);
            assert_double_equal(y, 100, 0); /* accurate's increment on x = 0 */
            assert_int_equal(r.delivered_at - r.release, 900 * US);
        } else {
            assert_int_equal(r.delivered, 1);
            assert_int_equal(r.outcome[2], RTCOSIM_ANYTIME_NOT_RUN);
            assert_double_equal(y, 10, 0);
            assert_int_equal(r.delivered_at - r.release, 50 * US);
        }
        assert_false(r.missed);
        rtcosim_anytime_free(set);
    }
    rtcosim_clock_free(clock);
}

/* The text form against hand-converted nanoseconds and every refusal. */
static void variant_specs_parse_and_refuse(void **unused)
{
    (void)unused;
    rtcosim_anytime_spec spec;
    rtcosim_error err;
    assert_int_equal(rtcosim_anytime_spec_parse("steps:1e-3,1e-4,2.5e-5", &spec, &err),
                     RTCOSIM_OK);
    assert_false(spec.model_exchange);
    assert_int_equal(spec.count, 3);
    assert_int_equal(spec.step_ns[0], 1000000);
    assert_int_equal(spec.step_ns[1], 100000);
    assert_int_equal(spec.step_ns[2], 25000);
    assert_int_equal(rtcosim_anytime_spec_parse("solvers:euler:1e-4,cvode,cvode:0.001", &spec,
                                                &err),
                     RTCOSIM_OK);
    assert_true(spec.model_exchange);
    assert_int_equal(spec.count, 3);
    assert_int_equal(spec.solver[0], RTCOSIM_ANYTIME_SOLVER_EULER);
    assert_int_equal(spec.step_ns[0], 100000);
    assert_int_equal(spec.solver[1], RTCOSIM_ANYTIME_SOLVER_VARIABLE);
    assert_int_equal(spec.step_ns[1], 0);
    assert_int_equal(spec.step_ns[2], 1000000);
    static const char *const bad[] = {
        "", "steps", "steps:", "steps:1e-3,,1e-4", "steps:1e-4,1e-3", "steps:1e-3,1e-3",
        "steps:0", "steps:-1e-3", "steps:1e-3x", "solvers:euler", "solvers:rk4:1e-3",
        "solvers:cvode:", "steps:9,8,7,6,5,4,3,2,1", "Steps:1e-3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rtcosim_error_clear(&err);
        assert_int_equal(rtcosim_anytime_spec_parse(bad[i], &spec, &err), RTCOSIM_EINVAL);
        assert_true(err.message[0] != '\0');
    }
    assert_non_null(strstr((rtcosim_anytime_spec_parse("steps:1e-4,1e-3", &spec, &err), err.message),
                           "coarsest first"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(variant_specs_parse_and_refuse),
        cmocka_unit_test(never_polling_variant_is_abandoned_and_minimal_delivered_on_time),
        cmocka_unit_test(timer_starts_a_costlier_variant_after_an_early_finish),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
