/* The speculative master's per-component statistics against values worked
 * out by hand: a source publishes y(q) = q^2 + q after q steps, a slower
 * accumulator (step multiple 2, Jacobi) adds the source's sample to its sum
 * each step. While the predictor's window is not full it extrapolates first
 * order (speculate.h), which misses a quadratic by exactly 2a = 2 one output
 * ahead (and the zero-order hold of the first output misses y(1) - y(0) = 2):
 * every prediction error is 2, so RMS and maximum are 2, and at Tc = 0 every
 * arrival that a step had used rolls back. The committed sum is the closed
 * form sum_{i<n} y(2i), also reached by the plain run. */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/master.h"
#include "rtcosim/master_speculate.h"
#include "rtcosim/native.h"

#define MS RTCOSIM_NS_PER_MS
#define SOURCE_STEPS 40 /* below window + order: the predictor never leaves FOH */
#define SUM_STEPS (SOURCE_STEPS / 2)

typedef struct source {
    double q, y;
} source;

static rtcosim_status source_step(void *data, const rtcosim_native_context *ctx, double t,
                                  double h, rtcosim_error *err)
{
    (void)ctx, (void)t, (void)h, (void)err;
    source *s = data;
    s->q += 1;
    s->y = s->q * s->q + s->q;
    return RTCOSIM_OK;
}

static const rtcosim_native_variable source_vars[] = {
    RTCOSIM_NATIVE_F64(source, q, 0, RTCOSIM_CAUSALITY_LOCAL, RTCOSIM_VARIABILITY_CONTINUOUS, 0,
                       NULL, NULL, NULL),
    RTCOSIM_NATIVE_F64(source, y, 1, RTCOSIM_CAUSALITY_OUTPUT, RTCOSIM_VARIABILITY_CONTINUOUS, 0,
                       NULL, NULL, NULL),
};

static const rtcosim_native_model source_model = {
    .name = "test.quadratic_source", .data_size = sizeof(source), .variables = source_vars,
    .variable_count = 2, .integrator = RTCOSIM_NATIVE_OWN_STEP, .step = source_step};

typedef struct accumulator {
    double u, sum;
} accumulator;

static rtcosim_status accumulator_step(void *data, const rtcosim_native_context *ctx, double t,
                                       double h, rtcosim_error *err)
{
    (void)ctx, (void)t, (void)h, (void)err;
    accumulator *a = data;
    a->sum += a->u;
    return RTCOSIM_OK;
}

static const rtcosim_native_variable accumulator_vars[] = {
    RTCOSIM_NATIVE_F64(accumulator, u, 0, RTCOSIM_CAUSALITY_INPUT, RTCOSIM_VARIABILITY_CONTINUOUS,
                       0, NULL, NULL, NULL),
    RTCOSIM_NATIVE_F64(accumulator, sum, 1, RTCOSIM_CAUSALITY_OUTPUT,
                       RTCOSIM_VARIABILITY_CONTINUOUS, 0, NULL, NULL, NULL),
};

static const rtcosim_native_model accumulator_model = {
    .name = "test.accumulator", .data_size = sizeof(accumulator), .variables = accumulator_vars,
    .variable_count = 2, .integrator = RTCOSIM_NATIVE_OWN_STEP, .step = accumulator_step};

/* The accumulator of a component that refuses an input no source output
 * can be: every real one is q^2 + q (a pronic number), the predictions are
 * off by 2 (not pronic from y(2) = 6 on). */
static bool pronic(double u)
{
    for (double q = 0; q * q + q <= u; q += 1)
        if (q * q + q == u)
            return true;
    return false;
}

static rtcosim_status picky_step(void *data, const rtcosim_native_context *ctx, double t,
                                 double h, rtcosim_error *err)
{
    accumulator *a = data;
    if (!pronic(a->u))
        return rtcosim_error_set(err, RTCOSIM_ECOMPONENT, "acc: input %g is no source output",
                                 a->u);
    return accumulator_step(data, ctx, t, h, err);
}

static const rtcosim_native_model picky_model = {
    .name = "test.picky_accumulator", .data_size = sizeof(accumulator),
    .variables = accumulator_vars, .variable_count = 2, .integrator = RTCOSIM_NATIVE_OWN_STEP,
    .step = picky_step};

static rtcosim_master *build_with(const rtcosim_native_model *acc_model)
{
    rtcosim_master *m = NULL;
    rtcosim_component *src = NULL, *acc = NULL;
    rtcosim_error err;
    rtcosim_coupling_options o;
    rtcosim_coupling_options_init(&o);
    o.extrapolation = RTCOSIM_EXTRAPOLATION_ZOH;
    o.correction = RTCOSIM_CORRECTION_NONE;
    if (rtcosim_master_create(1 * MS, &m, &err) != RTCOSIM_OK ||
        rtcosim_native_create_model(&source_model, &src, &err) != RTCOSIM_OK ||
        rtcosim_master_add_component(m, "src", src, 1, &err) != RTCOSIM_OK ||
        rtcosim_native_create_model(acc_model, &acc, &err) != RTCOSIM_OK ||
        rtcosim_master_add_component(m, "acc", acc, 2, &err) != RTCOSIM_OK ||
        rtcosim_master_connect(m, "src.y", "acc.u", &o, &err) != RTCOSIM_OK ||
        rtcosim_master_observe(m, "acc.sum", &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    rtcosim_master_set_order(m, RTCOSIM_ORDER_JACOBI);
    if (rtcosim_master_initialize(m, 0, SOURCE_STEPS * MS, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    return m;
}

typedef struct last {
    double sum;
    size_t rows;
} last;

static rtcosim_status keep_last(void *context, rtcosim_time_ns t, const double *v, size_t n,
                                rtcosim_error *err)
{
    (void)t, (void)err;
    last *l = context;
    if (n == 1)
        l->sum = v[0];
    l->rows++;
    return RTCOSIM_OK;
}

/* sum_{i<n} y(2i) = sum 4i^2 + 2i, by the closed forms of sum i^2 and sum i. */
static double closed_form_sum(unsigned n)
{
    const double k = n - 1.0;
    return 4.0 * k * (k + 1) * (2 * k + 1) / 6.0 + 2.0 * k * (k + 1) / 2.0;
}

/* The plain run of the source and this accumulator: its last sum. */
static last run_plain(const rtcosim_native_model *acc)
{
    rtcosim_master *m = build_with(acc);
    rtcosim_error err;
    last plain = {0};
    if (rtcosim_master_run(m, SOURCE_STEPS * MS, keep_last, &plain, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    rtcosim_master_free(m);
    return plain;
}

/* The speculative run (Tc = 0, horizon 4, window 64) on `threads`; the
 * returned master owns the names in st: free it after. */
static rtcosim_master *run_speculative(const rtcosim_native_model *acc, unsigned threads,
                                       last *spec, rtcosim_speculation_stats st[2])
{
    rtcosim_master *m = build_with(acc);
    rtcosim_error err;
    rtcosim_speculation_options o = {.threshold = 0, .horizon = 4, .window = 64,
                                     .threads = threads};
    *spec = (last){0};
    if (rtcosim_master_run_speculative(m, SOURCE_STEPS * MS, &o, keep_last, spec, st, &err) !=
        RTCOSIM_OK)
        fail_msg("%u threads: %s", threads, err.message);
    return m;
}

static void statistics_match_the_hand_worked_values(void **state)
{
    (void)state;
    /* The plain run reaches the closed form: the truth for both runs. */
    last plain = run_plain(&accumulator_model);
    assert_true(plain.sum == closed_form_sum(SUM_STEPS)); /* 10260 */
    assert_true(closed_form_sum(SUM_STEPS) == 10260.0);

    /* One thread: the accumulator, which needs two source outputs per step,
     * runs ahead of the source on predictions every pass (deterministic);
     * two threads: whatever the timing, the same relations hold. */
    for (unsigned threads = 1; threads <= 2; threads++) {
        rtcosim_speculation_stats st[2];
        last spec;
        rtcosim_master *m = run_speculative(&accumulator_model, threads, &spec, st);
        assert_true(spec.sum == plain.sum);
        assert_int_equal(spec.rows, plain.rows);

        /* The source has nothing to predict. */
        assert_false(st[0].speculated);
        assert_string_equal(st[0].reason, "no inputs (nothing to predict)");
        assert_int_equal(st[0].committed_steps, SOURCE_STEPS);
        assert_int_equal(st[0].speculated_steps, 0);
        assert_int_equal(st[0].rollbacks, 0);

        const rtcosim_speculation_stats *a = &st[1];
        assert_true(a->speculated);
        assert_null(a->reason);
        assert_string_equal(a->component, "acc");
        assert_int_equal(a->committed_steps, SUM_STEPS);
        if (threads == 1) {
            /* Worked by hand, pass by pass (each pass: the source steps,
             * then the accumulator takes the new output in, commits and
             * steps once). Step n reads output 2n; output p + 1 comes in
             * pass p. From pass 2 on, each even pass the accumulator steps
             * on a predicted output 2n (one past the newest) if its
             * throttle allows, and the odd pass's arrival rolls that one
             * step back (error 2 > Tc = 0). The throttle goes 4, 2, 1, 0
             * over the first three rollbacks (passes 3, 5, 7), then probes
             * with one speculated step after 1, 2, 4 and 8 arrivals
             * (rollbacks in passes 9, 13, 19, 29); the next wait of 16
             * arrivals outlasts the 40 outputs. Seven rollbacks of depth 1. */
            assert_int_equal(a->speculated_steps, 7);
            assert_int_equal(a->rollbacks, 7);
            assert_int_equal(a->rollback_depth[0], 7);
            assert_int_equal(a->reexecuted_steps, 7);
        }
        /* Every used prediction was off by exactly 2: at Tc = 0 each one
         * rolled back, and RMS and maximum are 2 exactly. */
        assert_int_equal(a->predicted_values, a->rollbacks);
        if (a->predicted_values > 0) {
            assert_true(a->prediction_error_max == 2.0);
            assert_true(a->prediction_error_rms == 2.0);
        }
        uint64_t histogram = 0;
        for (size_t b = 0; b < RTCOSIM_SPECULATION_DEPTH_BUCKETS; b++)
            histogram += a->rollback_depth[b];
        assert_int_equal(histogram, a->rollbacks);
        /* A rollback discards at least one step and at most the horizon, each
         * executed on a predicted input. */
        assert_true(a->reexecuted_steps >= a->rollbacks);
        assert_true(a->reexecuted_steps <= 4 * a->rollbacks);
        assert_true(a->speculated_steps >= a->reexecuted_steps);
        for (size_t b = 3; b < RTCOSIM_SPECULATION_DEPTH_BUCKETS; b++)
            assert_int_equal(a->rollback_depth[b], 0); /* depths > 4 impossible */
        rtcosim_master_free(m); /* owns the names in st */
    }
}

/* The picky accumulator fails on every prediction it is given from y(2) on,
 * never on a real input: the plain run succeeds, and so must the speculative
 * one, each failed step taken back and run again on the real input, with
 * the plain run's result. */
static void an_error_on_a_predicted_input_is_retried_on_the_real_one(void **state)
{
    (void)state;
    last plain = run_plain(&picky_model);
    assert_true(plain.sum == closed_form_sum(SUM_STEPS));
    for (unsigned threads = 1; threads <= 2; threads++) {
        rtcosim_speculation_stats st[2];
        last spec;
        rtcosim_master *m = run_speculative(&picky_model, threads, &spec, st);
        assert_true(spec.sum == plain.sum);
        assert_int_equal(spec.rows, plain.rows);
        assert_int_equal(st[1].committed_steps, SUM_STEPS);
        if (threads == 1)
            assert_true(st[1].errors_retried > 0); /* it did speculate, and fail */
        rtcosim_master_free(m);
    }
}

/* Bucket b holds depths up to 2^b (1, 2, 3-4, 5-8, ...), the last one the rest. */
static void depth_buckets_are_powers_of_two(void **state)
{
    (void)state;
    assert_int_equal(rtcosim_speculation_depth_bucket_max(0), 1);
    assert_int_equal(rtcosim_speculation_depth_bucket_max(1), 2);
    assert_int_equal(rtcosim_speculation_depth_bucket_max(2), 4);
    assert_int_equal(rtcosim_speculation_depth_bucket_max(6), 64);
    assert_true(rtcosim_speculation_depth_bucket_max(RTCOSIM_SPECULATION_DEPTH_BUCKETS - 1) ==
                UINT64_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(statistics_match_the_hand_worked_values),
        cmocka_unit_test(depth_buckets_are_powers_of_two),
        cmocka_unit_test(an_error_on_a_predicted_input_is_retried_on_the_real_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
