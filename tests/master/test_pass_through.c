/* Coupling passes values unchanged: a source through a chain of pass-throughs
 * (the Feedthrough FMUs, FMI 2.0 and 3.0, and native unit gains; all black
 * boxes without input derivatives) under zero-order hold reproduces the
 * source bit for bit, under Gauss-Seidel and Jacobi. And what a black box
 * receives of a FOH/SOH estimate per step (rtcosim_step_input): the step's
 * mean or the value at the step start, against hand-computed values. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/fmu.h"
#include "rtcosim/master.h"
#include "rtcosim/native.h"
#include "rtcosim_test_fmus.h"
#include "test_models.h"

/* Values that (h y) / h at h = 1 ms does not return unchanged (1.9998 is the
 * case of the issue), a negative zero, the smallest subnormal, the extremes
 * of the range and values with all mantissa bits in use. */
static const double table[] = {
    0.5, 1.9998, 0.1, 1.0 / 3.0, -0.0, 5e-324, -1.7976931348623157e308, 2.2250738585072014e-308,
    3.141592653589793, -2.718281828459045, 1.9998e-7, 0.7, 123456.789, 0.0, -1e-300, 0.3,
};
#define TABLE_N (sizeof table / sizeof table[0])

typedef struct table_data {
    double y, n;
} table_data;

static const rtcosim_native_variable table_vars[] = {
    RTCOSIM_NATIVE_F64(table_data, y, 0, OUT_, CONT_, 0, NULL, NULL, NULL),
};

/* y = table[n] after the n-th step (table[0] before the first). */
static rtcosim_status table_step(void *data, const rtcosim_native_context *ctx, double t, double h,
                                 rtcosim_error *err)
{
    (void)ctx, (void)t, (void)h, (void)err;
    table_data *d = data;
    d->n += 1;
    d->y = table[(size_t)d->n % TABLE_N];
    return RTCOSIM_OK;
}

static rtcosim_status table_init(void *data, const rtcosim_native_context *ctx, rtcosim_error *err)
{
    (void)ctx, (void)err;
    ((table_data *)data)->y = table[0];
    return RTCOSIM_OK;
}

static const rtcosim_native_model table_model = {
    .name = "test.table", .data_size = sizeof(table_data), .variables = table_vars,
    .variable_count = 1, .integrator = RTCOSIM_NATIVE_OWN_STEP, .can_handle_variable_step = true,
    .step = table_step, .init = table_init,
};

#define STEPS 40
typedef struct rows {
    size_t n;
    double src[STEPS + 1], out[STEPS + 1];
} rows;

static rtcosim_status keep_row(void *context, rtcosim_time_ns t, const double *values,
                               size_t count, rtcosim_error *err)
{
    (void)t, (void)err;
    rows *r = context;
    assert_int_equal(count, 2);
    assert_true(r->n <= STEPS);
    r->src[r->n] = values[0];
    r->out[r->n++] = values[1];
    return RTCOSIM_OK;
}

static void add(rtcosim_master *m, const char *name, rtcosim_component *c)
{
    rtcosim_error err = {0};
    if (rtcosim_master_add_component(m, name, c, 1, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
}

static void add_fmu(rtcosim_master *m, const char *name, const char *path)
{
    rtcosim_component *c = NULL;
    rtcosim_error err = {0};
    if (rtcosim_fmu_load(path, NULL, &c, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    add(m, name, c);
}

static void add_native(rtcosim_master *m, const char *name, const rtcosim_native_model *model)
{
    rtcosim_component *c = NULL;
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_native_create_model(model, &c, &err), RTCOSIM_OK);
    add(m, name, c);
}

static void connect(rtcosim_master *m, const char *from, const char *to)
{
    rtcosim_error err = {0};
    if (rtcosim_master_connect(m, from, to, NULL, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
}

/* src -> a -> b, observing src.y and the chain's end, at H = 1 ms. */
static void run_chain(bool fmus, rtcosim_order order, rows *r)
{
    rtcosim_master *m = NULL;
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_master_create(RTCOSIM_NS_PER_MS, &m, &err), RTCOSIM_OK);
    add_native(m, "src", &table_model);
    const char *end;
    if (fmus) {
        add_fmu(m, "a", RTCOSIM_FMU_FEEDTHROUGH_FMI2);
        add_fmu(m, "b", RTCOSIM_FMU_FEEDTHROUGH_FMI3);
        connect(m, "src.y", "a.Float64_continuous_input");
        connect(m, "a.Float64_continuous_output", "b.Float64_continuous_input");
        end = "b.Float64_continuous_output";
    } else {
        add_native(m, "a", &gain_model);
        add_native(m, "b", &gain_model);
        connect(m, "src.y", "a.u");
        connect(m, "a.y", "b.u");
        end = "b.y";
    }
    assert_int_equal(rtcosim_master_observe(m, "src.y", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_observe(m, end, &err), RTCOSIM_OK);
    rtcosim_master_set_order(m, order);
    if (rtcosim_master_initialize(m, 0, -1, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    memset(r, 0, sizeof *r);
    if (rtcosim_master_run(m, STEPS * RTCOSIM_NS_PER_MS, keep_row, r, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(r->n, STEPS + 1);
    rtcosim_master_free(m);
}

/* Row i of the chain's end is row i - delay of the source, bit for bit.
 * Gauss-Seidel steps src, a, b in turn, each taking the value its producer
 * has just published: no delay. Jacobi steps all on the values exchanged at
 * the step start, then publishes in dependency order; a, whose output feeds
 * a connection, has its input refreshed to src's new value first (step.c,
 * refresh_inputs), so it passes the value on at once; b's output feeds no
 * connection (it is only observed), so b reports the output of its step,
 * whose input was exchanged at the step start: one step of delay. */
static void check_bits(const rows *r, size_t delay, const char *what)
{
    for (size_t i = 0; i < r->n; i++) {
        if (memcmp(&r->src[i], &table[i % TABLE_N], sizeof(double)) != 0)
            fail_msg("%s: source row %zu is %.17g, not the table's %.17g", what, i, r->src[i],
                     table[i % TABLE_N]);
        const double *want = &r->src[i < delay ? 0 : i - delay];
        if (memcmp(&r->out[i], want, sizeof(double)) != 0)
            fail_msg("%s: row %zu: source %.17g (%a), end of chain %.17g (%a)", what, i, *want,
                     *want, r->out[i], r->out[i]);
    }
}

static void fmu_chain_passes_source_bit_for_bit(void **state)
{
    (void)state;
    rows r;
    run_chain(true, RTCOSIM_ORDER_GAUSS_SEIDEL, &r);
    check_bits(&r, 0, "FMUs, Gauss-Seidel");
    run_chain(true, RTCOSIM_ORDER_JACOBI, &r);
    check_bits(&r, 1, "FMUs, Jacobi");
}

static void native_chain_passes_source_bit_for_bit(void **state)
{
    (void)state;
    rows r;
    run_chain(false, RTCOSIM_ORDER_GAUSS_SEIDEL, &r);
    check_bits(&r, 0, "native, Gauss-Seidel");
    run_chain(false, RTCOSIM_ORDER_JACOBI, &r);
    check_bits(&r, 1, "native, Jacobi");
}

/* The mean and the value of a constant polynomial are its constant, bit for
 * bit, where integral / h is not: the mechanism under the pass-through. */
static void poly_mean_of_constant_is_exact(void **state)
{
    (void)state;
    for (size_t i = 0; i < TABLE_N; i++) {
        rtcosim_poly p = {{table[i], 0, 0}};
        double mean = rtcosim_poly_mean(&p, 1e-3), value = rtcosim_poly_eval(&p, 1e-3);
        assert_memory_equal(&mean, &table[i], sizeof mean);
        assert_memory_equal(&value, &table[i], sizeof value);
    }
    rtcosim_poly p = {{1.9998, 0, 0}};
    assert_true(rtcosim_poly_integral(&p, 1e-3) / 1e-3 != 1.9998); /* why the mean is needed */
    /* c0 + c1 h/2 + c2 h^2/3 for p = 1 + 2 s + 3 s^2 over h = 0.5: 1 + 0.5 + 0.25. */
    rtcosim_poly q = {{1, 2, 3}};
    assert_true(rtcosim_poly_mean(&q, 0.5) == 1.75);
}

/* y = t^2 (square_model, sampled at every second) into the recorder, a black
 * box that logs the input it is given for each step, under Jacobi with H =
 * 1 s: over step k, [k, k+1], the latest sample is at t = k.
 *   FOH, line through (k-1, (k-1)^2) and (k, k^2): p(s) = k^2 + (2k - 1) s;
 *     mean over [0, 1] = k^2 + k - 1/2, start value k^2.
 *   SOH, parabola through three samples of t^2 = t^2 itself:
 *     mean = integral of (k + s)^2 over [0, 1] = k^2 + k + 1/3, start k^2.
 * Step 0 has one sample (held: 0); step 1 has two (SOH falls back to the
 * line: 1.5 for the mean). The last interval's error E against the exact
 * integral k^2 + k + 1/3 (the quadratic error quadrature is exact for t^2):
 * FOH mean 5/6, SOH mean 0, start k + 1/3 for both: the error signal is
 * measured against what the consumer received. */
static void run_square(rtcosim_extrapolation x, rtcosim_step_input si, double log[8],
                       double *last_error)
{
    rtcosim_master *m = NULL;
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_master_create(RTCOSIM_NS_PER_S, &m, &err), RTCOSIM_OK);
    add_native(m, "sq", &square_model);
    add_native(m, "rec", &recorder_model);
    rtcosim_coupling_options o;
    rtcosim_coupling_options_init(&o);
    o.extrapolation = x;
    o.step_input = si;
    assert_int_equal(rtcosim_master_connect(m, "sq.y", "rec.u", &o, &err), RTCOSIM_OK);
    rtcosim_master_set_order(m, RTCOSIM_ORDER_JACOBI);
    if (rtcosim_master_initialize(m, 0, -1, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    if (rtcosim_master_run(m, 8 * RTCOSIM_NS_PER_S, NULL, NULL, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    recorder_data *d = rtcosim_native_data(rtcosim_master_component(m, "rec"));
    assert_true(d->steps == 8);
    memcpy(log, d->log, 8 * sizeof(double));
    rtcosim_coupling_stats st;
    assert_int_equal(rtcosim_master_coupling_stats(m, 0, &st, &err), RTCOSIM_OK);
    *last_error = st.last_error;
    rtcosim_master_free(m);
}

static void near(double got, double want, const char *what, int k)
{
    if (fabs(got - want) > 1e-12 * (1 + fabs(want)))
        fail_msg("%s, step %d: got %.17g, expected %.17g", what, k, got, want);
}

static void step_input_mean_and_start_match_hand_values(void **state)
{
    (void)state;
    double log[8], e;
    run_square(RTCOSIM_EXTRAPOLATION_FOH, RTCOSIM_STEP_INPUT_MEAN, log, &e);
    near(log[0], 0, "foh mean", 0);
    for (int k = 1; k < 8; k++)
        near(log[k], k * k + k - 0.5, "foh mean", k);
    near(e, 5.0 / 6.0, "foh mean error", 7);

    run_square(RTCOSIM_EXTRAPOLATION_SOH, RTCOSIM_STEP_INPUT_MEAN, log, &e);
    near(log[0], 0, "soh mean", 0);
    near(log[1], 1.5, "soh mean", 1);
    for (int k = 2; k < 8; k++)
        near(log[k], k * k + k + 1.0 / 3.0, "soh mean", k);
    near(e, 0, "soh mean error", 7);

    for (int x = 1; x <= 2; x++) {
        run_square((rtcosim_extrapolation)x, RTCOSIM_STEP_INPUT_START, log, &e);
        for (int k = 0; k < 8; k++)
            near(log[k], k * k, x == 1 ? "foh start" : "soh start", k);
        near(e, 7 + 1.0 / 3.0, "start error", 7);
    }
}

static void step_input_names_parse(void **state)
{
    (void)state;
    rtcosim_step_input s = RTCOSIM_STEP_INPUT_MEAN;
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_step_input_parse("start", &s, &err), RTCOSIM_OK);
    assert_int_equal(s, RTCOSIM_STEP_INPUT_START);
    assert_string_equal(rtcosim_step_input_name(s), "start");
    assert_int_equal(rtcosim_step_input_parse("middle", &s, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "'middle'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(poly_mean_of_constant_is_exact),
        cmocka_unit_test(native_chain_passes_source_bit_for_bit),
        cmocka_unit_test(fmu_chain_passes_source_bit_for_bit),
        cmocka_unit_test(step_input_mean_and_start_match_hand_values),
        cmocka_unit_test(step_input_names_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
