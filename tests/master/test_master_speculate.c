/* The master's speculative run against independent truth: with threshold 0
 * its results equal the plain run's bit for bit (Jacobi and Gauss-Seidel, 1
 * and 2 threads) while a slow mass2 makes mass1 speculate; a state restored
 * from the rollback table reproduces a step exactly; a component that cannot
 * save its state runs conservatively; with Tc > 0 the committed trajectory
 * stays within a bound of the exact solution exp(A t) z0; systems outside
 * the scope are refused with a message naming the cause. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../examples/oscillator/oscillator.h"
#include "rtcosim/clock.h"
#include "rtcosim/master_speculate.h"
#include "rtcosim/realtime.h"
#include "rtcosim/speculate.h"

#define MS RTCOSIM_NS_PER_MS

typedef struct rows {
    double *v; /* count * width */
    rtcosim_time_ns *t;
    size_t count, cap, width;
} rows;

static rtcosim_status keep_row(void *context, rtcosim_time_ns t, const double *values, size_t n,
                               rtcosim_error *err)
{
    (void)err;
    rows *r = context;
    if (r->count == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 256;
        r->v = realloc(r->v, r->cap * n * sizeof *r->v);
        r->t = realloc(r->t, r->cap * sizeof *r->t);
        assert_non_null(r->v);
        assert_non_null(r->t);
    }
    r->width = n;
    memcpy(r->v + r->count * n, values, n * sizeof *values);
    r->t[r->count++] = t;
    return RTCOSIM_OK;
}

/* The speculative run's rows are the plain run's, times and values bit for bit. */
static void assert_same_rows(const rows *spec, const rows *plain)
{
    assert_int_equal(spec->count, plain->count);
    assert_memory_equal(spec->t, plain->t, plain->count * sizeof *plain->t);
    assert_memory_equal(spec->v, plain->v, plain->count * plain->width * sizeof *plain->v);
}

static void rows_free(rows *r)
{
    free(r->v);
    free(r->t);
    memset(r, 0, sizeof *r);
}

/* Makes mass2 (index 1) burn `burn_ns` of CPU per step: the slow producer. */
typedef struct slow {
    rtcosim_clock *clock;
    rtcosim_time_ns burn_ns[2];
} slow;

static rtcosim_status wrap_slow(void *context, int mass, rtcosim_component *inner,
                                rtcosim_component **out, rtcosim_error *err)
{
    slow *s = context;
    if (s->burn_ns[mass] == 0) {
        *out = inner;
        return RTCOSIM_OK;
    }
    rtcosim_delay_options d = {.clock = s->clock, .schedule = &s->burn_ns[mass],
                               .schedule_length = 1};
    return rtcosim_delay_wrap(inner, &d, out, err);
}

static rtcosim_master *oscillator_with(rtcosim_order order, rtcosim_extrapolation extrapolation,
                                       rtcosim_time_ns stop, slow *sl)
{
    rtcosim_oscillator_params p;
    rtcosim_oscillator_case(2, &p);
    rtcosim_oscillator_setup s;
    rtcosim_oscillator_setup_init(&s);
    s.order = order;
    s.stop = stop;
    s.power_bond = false;
    s.coupling.extrapolation = extrapolation;
    if (sl) {
        s.wrap = wrap_slow;
        s.wrap_context = sl;
    }
    rtcosim_master *m = NULL;
    rtcosim_error err;
    if (rtcosim_oscillator_build(&p, &s, &m, &err) != RTCOSIM_OK ||
        rtcosim_master_initialize(m, 0, stop, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    return m;
}

static rtcosim_master *oscillator(rtcosim_order order, rtcosim_time_ns stop, slow *sl)
{
    return oscillator_with(order, RTCOSIM_EXTRAPOLATION_ZOH, stop, sl);
}

static void run_plain_with(rtcosim_order order, rtcosim_extrapolation e, rtcosim_time_ns stop,
                           rows *out)
{
    rtcosim_master *m = oscillator_with(order, e, stop, NULL);
    rtcosim_error err;
    if (rtcosim_master_run(m, stop, keep_row, out, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    rtcosim_master_free(m);
}

static void run_plain(rtcosim_order order, rtcosim_time_ns stop, rows *out)
{
    run_plain_with(order, RTCOSIM_EXTRAPOLATION_ZOH, stop, out);
}

static void run_speculative_with(rtcosim_order order, rtcosim_extrapolation e, rtcosim_time_ns stop,
                                 slow *sl, const rtcosim_speculation_options *o, rows *out,
                                 rtcosim_speculation_stats stats[2])
{
    rtcosim_master *m = oscillator_with(order, e, stop, sl);
    rtcosim_error err;
    if (rtcosim_master_run_speculative(m, stop, o, keep_row, out, stats, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_true(rtcosim_master_time(m) == stop);
    rtcosim_master_free(m);
}

static void run_speculative(rtcosim_order order, rtcosim_time_ns stop, slow *sl,
                            const rtcosim_speculation_options *o, rows *out,
                            rtcosim_speculation_stats stats[2])
{
    run_speculative_with(order, RTCOSIM_EXTRAPOLATION_ZOH, stop, sl, o, out, stats);
}

static void threshold_zero_is_bit_identical_to_the_plain_run(void **state)
{
    (void)state;
    const rtcosim_time_ns stop = 300 * MS;
    slow sl = {.burn_ns = {0, 20000}};
    rtcosim_error err;
    assert_int_equal(rtcosim_clock_create_monotonic(RTCOSIM_NS_PER_S, &sl.clock, &err), RTCOSIM_OK);
    const rtcosim_order orders[] = {RTCOSIM_ORDER_JACOBI, RTCOSIM_ORDER_GAUSS_SEIDEL};
    /* ZOH, and the polynomials that the masses take with their derivatives. */
    const rtcosim_extrapolation extrapolations[] = {
        RTCOSIM_EXTRAPOLATION_ZOH, RTCOSIM_EXTRAPOLATION_FOH, RTCOSIM_EXTRAPOLATION_SOH};
    for (int x = 0; x < 3; x++)
    for (int o = 0; o < 2; o++) {
        rows plain = {0};
        run_plain_with(orders[o], extrapolations[x], stop, &plain);
        assert_int_equal(plain.count, 301);
        for (unsigned threads = 1; threads <= 2; threads++) {
            /* Whether mass1 runs ahead at all is up to the scheduler (on a
             * loaded machine mass2's thread may always be done first): two
             * threads get up to 10 runs to show it once, each checked in full. */
            uint64_t speculated_steps = 0;
            for (int attempt = 0; attempt < (threads == 2 ? 10 : 1) && speculated_steps == 0;
                 attempt++) {
                rows spec = {0};
                rtcosim_speculation_stats stats[2];
                rtcosim_speculation_options opt = {.threshold = 0, .horizon = 8, .threads = threads};
                run_speculative_with(orders[o], extrapolations[x], stop, &sl, &opt, &spec, stats);
                assert_int_equal(spec.count, plain.count);
                assert_int_equal(spec.width, plain.width);
                assert_memory_equal(spec.t, plain.t, plain.count * sizeof *plain.t);
                assert_memory_equal(spec.v, plain.v, plain.count * plain.width * sizeof *plain.v);
                /* mass1 speculates; mass2 has feedthrough F(x1, v1) and waits. */
                assert_true(stats[0].speculated);
                assert_false(stats[1].speculated);
                assert_non_null(strstr(stats[1].reason, "feedthrough"));
                assert_int_equal(stats[0].committed_steps, 300);
                assert_int_equal(stats[1].committed_steps, 300);
                assert_true(stats[0].reexecuted_steps >= stats[0].rollbacks);
                uint64_t hist = 0;
                for (size_t b = 0; b < RTCOSIM_SPECULATION_DEPTH_BUCKETS; b++)
                    hist += stats[0].rollback_depth[b];
                assert_int_equal(hist, stats[0].rollbacks);
                speculated_steps = stats[0].speculated_steps;
                rows_free(&spec);
            }
            /* On two threads mass1 runs ahead while mass2 burns its 20 us. */
            if (threads == 2 && speculated_steps == 0)
                fail_msg("mass1 never ran ahead in 10 runs on 2 threads");
        }
        rows_free(&plain);
    }
    rtcosim_clock_free(sl.clock);
}

static void restored_state_reproduces_the_step(void **state)
{
    (void)state;
    rtcosim_component *c = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_native_create("rtcosim:oscillator.mass1", &c, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_instantiate(c, "mass1", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_setup(c, 0, 0, -1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_enter_init(c, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
    const rtcosim_variable *F = rtcosim_component_find_variable(c, "F");
    const rtcosim_variable *x = rtcosim_component_find_variable(c, "x");
    const rtcosim_variable *v = rtcosim_component_find_variable(c, "v");
    assert_non_null(F);
    const uint32_t outs[2] = {x->value_reference, v->value_reference};
    rtcosim_rollback_config rc = {.capacity = 4, .input_count = 1, .component = c};
    rtcosim_rollback_table *t = NULL;
    assert_int_equal(rtcosim_rollback_create(&rc, &t, &err), RTCOSIM_OK);
    double first[3][2], again[2];
    rtcosim_step_result r;
    for (int n = 0; n < 3; n++) {
        const double force = 0.5 + n;
        assert_int_equal(rtcosim_rollback_push(t, (uint64_t)n, n * MS, &force, NULL, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &F->value_reference, 1, &force, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_component_do_step(c, n * MS, MS, &r, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, outs, 2, first[n], &err), RTCOSIM_OK);
    }
    /* Back to the start of step 1, and step 1 again with its recorded input. */
    assert_int_equal(rtcosim_rollback_restore(t, 1, &err), RTCOSIM_OK);
    const rtcosim_rollback_record *rec = rtcosim_rollback_get(t, 0);
    assert_non_null(rec);
    assert_null(rtcosim_rollback_get(t, 1));
    const double force = 1.5;
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &F->value_reference, 1, &force, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_do_step(c, MS, MS, &r, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, outs, 2, again, &err), RTCOSIM_OK);
    assert_memory_equal(again, first[1], sizeof again);
    /* The state before it differed: the step really moved the mass. */
    assert_true(first[1][0] != first[0][0]);
    rtcosim_rollback_free(t);
    rtcosim_component_free(c);
}

/* A pass-through wrapper that declares no state support, as an FMU without
 * canGetAndSetFMUstate does. */
static rtcosim_status st_instantiate(void *self, const char *name, rtcosim_error *err)
{
    return rtcosim_component_instantiate(self, name, err);
}
static rtcosim_status st_setup(void *self, double tol, rtcosim_time_ns start, rtcosim_time_ns stop,
                               rtcosim_error *err)
{
    return rtcosim_component_setup(self, tol, start, stop, err);
}
static rtcosim_status st_enter_init(void *self, rtcosim_error *err)
{
    return rtcosim_component_enter_init(self, err);
}
static rtcosim_status st_exit_init(void *self, rtcosim_error *err)
{
    return rtcosim_component_exit_init(self, err);
}
static rtcosim_status st_do_step(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                 rtcosim_step_result *r, rtcosim_error *err)
{
    return rtcosim_component_do_step(self, t, h, r, err);
}
static rtcosim_status st_get(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                             void *values, rtcosim_error *err)
{
    return rtcosim_component_get(self, type, vrs, n, values, err);
}
static rtcosim_status st_set(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                             const void *values, rtcosim_error *err)
{
    return rtcosim_component_set(self, type, vrs, n, values, err);
}
static rtcosim_status st_terminate(void *self, rtcosim_error *err)
{
    return rtcosim_component_terminate(self, err);
}
static void st_destroy(void *self) { rtcosim_component_free(self); }

static const rtcosim_component_ops stateless_ops = {
    .kind = "stateless", .instantiate = st_instantiate, .setup = st_setup,
    .enter_init = st_enter_init, .exit_init = st_exit_init, .do_step = st_do_step,
    .get = st_get, .set = st_set, .terminate = st_terminate, .destroy = st_destroy,
};

static rtcosim_status hide_state(void *context, int mass, rtcosim_component *inner,
                                 rtcosim_component **out, rtcosim_error *err)
{
    (void)context;
    if (mass != 0) {
        *out = inner;
        return RTCOSIM_OK;
    }
    rtcosim_component_desc desc = *rtcosim_component_description(inner);
    desc.capabilities.can_get_set_state = false;
    desc.capabilities.can_serialize_state = false;
    return rtcosim_component_create(&stateless_ops, inner, &desc, out, err);
}

static void component_without_state_runs_conservatively(void **state)
{
    (void)state;
    const rtcosim_time_ns stop = 100 * MS;
    rows plain = {0}, spec = {0};
    run_plain(RTCOSIM_ORDER_GAUSS_SEIDEL, stop, &plain);
    rtcosim_oscillator_params p;
    rtcosim_oscillator_case(2, &p);
    rtcosim_oscillator_setup s;
    rtcosim_oscillator_setup_init(&s);
    s.order = RTCOSIM_ORDER_GAUSS_SEIDEL;
    s.stop = stop;
    s.power_bond = false;
    s.wrap = hide_state;
    rtcosim_master *m = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_oscillator_build(&p, &s, &m, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_initialize(m, 0, stop, &err), RTCOSIM_OK);
    rtcosim_speculation_stats plan[2], stats[2];
    assert_int_equal(rtcosim_master_speculation_plan(m, plan, &err), RTCOSIM_OK);
    assert_false(plan[0].speculated);
    assert_string_equal(plan[0].reason, "cannot get and set its state");
    rtcosim_speculation_options opt = {.threads = 2};
    assert_int_equal(rtcosim_master_run_speculative(m, stop, &opt, keep_row, &spec, stats, &err),
                     RTCOSIM_OK);
    assert_false(stats[0].speculated);
    assert_int_equal(stats[0].speculated_steps, 0);
    assert_int_equal(stats[0].rollbacks, 0);
    assert_int_equal(spec.count, plain.count);
    assert_memory_equal(spec.v, plain.v, plain.count * plain.width * sizeof *plain.v);
    rtcosim_master_free(m);
    rows_free(&plain);
    rows_free(&spec);
}

/* mass1 behind a wrapper that asks the master to stop after its step from
 * 50 ms (and keeps mass1's state support): the speculative run must stop
 * exactly where the plain run stops, although mass1 runs ahead. */
#define END_AT (50 * MS)
static rtcosim_time_ns end_at = END_AT;
static rtcosim_status end_do_step(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                  rtcosim_step_result *r, rtcosim_error *err)
{
    rtcosim_status st = rtcosim_component_do_step(self, t, h, r, err);
    if (t >= end_at)
        r->terminate_requested = true;
    return st;
}
static rtcosim_status end_get_state(void *self, rtcosim_state *state, rtcosim_error *err)
{
    return rtcosim_component_get_state(self, state, err);
}
static rtcosim_status end_set_state(void *self, rtcosim_state state, rtcosim_error *err)
{
    return rtcosim_component_set_state(self, state, err);
}
static void end_free_state(void *self, rtcosim_state state)
{
    rtcosim_component_free_state(self, state);
}

/* The wrapped component's ops with this do_step and its state kept. */
#define STATEFUL_OPS(name, step)                                                           \
    {.kind = name, .instantiate = st_instantiate, .setup = st_setup,                     \
     .enter_init = st_enter_init, .exit_init = st_exit_init, .do_step = step,            \
     .get = st_get, .set = st_set, .get_state = end_get_state, .set_state = end_set_state, \
     .free_state = end_free_state, .terminate = st_terminate, .destroy = st_destroy}

/* mass1 slow (wrap_slow), mass2 wrapped with ops. */
static rtcosim_status wrap_mass2_with(const rtcosim_component_ops *ops, void *context, int mass,
                                      rtcosim_component *inner, rtcosim_component **out,
                                      rtcosim_error *err)
{
    if (mass == 1)
        return wrap_slow(context, mass, inner, out, err);
    return rtcosim_component_create(ops, inner, rtcosim_component_description(inner), out, err);
}

static const rtcosim_component_ops ending_ops = STATEFUL_OPS("ending", end_do_step);

static rtcosim_status wrap_ending(void *context, int mass, rtcosim_component *inner,
                                  rtcosim_component **out, rtcosim_error *err)
{
    return wrap_mass2_with(&ending_ops, context, mass, inner, out, err);
}

/* mass1 ends after its step from 45 ms; mass2 slow. */
static rtcosim_status wrap_ending_at_45(void *context, int mass, rtcosim_component *inner,
                                        rtcosim_component **out, rtcosim_error *err)
{
    end_at = 45 * MS;
    return wrap_ending(context, mass, inner, out, err);
}

static void termination_request_ends_the_run_where_the_plain_run_ends(void **state)
{
    (void)state;
    end_at = END_AT;
    const rtcosim_time_ns stop = 200 * MS;
    slow sl = {.burn_ns = {0, 20000}};
    rtcosim_error err;
    assert_int_equal(rtcosim_clock_create_monotonic(RTCOSIM_NS_PER_S, &sl.clock, &err), RTCOSIM_OK);
    const rtcosim_order orders[] = {RTCOSIM_ORDER_JACOBI, RTCOSIM_ORDER_GAUSS_SEIDEL};
    for (int o = 0; o < 2; o++) {
        rows plain = {0}, spec = {0};
        rtcosim_master *m[2];
        for (int run = 0; run < 2; run++) {
            rtcosim_oscillator_params p;
            rtcosim_oscillator_case(2, &p);
            rtcosim_oscillator_setup s;
            rtcosim_oscillator_setup_init(&s);
            s.order = orders[o];
            s.stop = stop;
            s.power_bond = false;
            s.wrap = wrap_ending;
            s.wrap_context = &sl;
            assert_int_equal(rtcosim_oscillator_build(&p, &s, &m[run], &err), RTCOSIM_OK);
            assert_int_equal(rtcosim_master_initialize(m[run], 0, stop, &err), RTCOSIM_OK);
        }
        assert_int_equal(rtcosim_master_run(m[0], stop, keep_row, &plain, &err), RTCOSIM_OK);
        rtcosim_speculation_options opt = {.threads = 2};
        rtcosim_speculation_stats stats[2];
        assert_int_equal(rtcosim_master_run_speculative(m[1], stop, &opt, keep_row, &spec, stats,
                                                        &err), RTCOSIM_OK);
        /* The step from 50 ms asks to stop: the run ends at 51 ms. */
        assert_true(rtcosim_master_time(m[0]) == END_AT + MS);
        assert_true(rtcosim_master_time(m[1]) == END_AT + MS);
        assert_same_rows(&spec, &plain);
        assert_true(stats[0].speculated);
        rtcosim_master_free(m[0]);
        rtcosim_master_free(m[1]);
        rows_free(&plain);
        rows_free(&spec);
    }
    rtcosim_clock_free(sl.clock);
}

/* One way, mass1 -> mass2 only (no force back): mass1 has no inputs and runs
 * ahead of the slow mass2 as far as the output rings let it, while mass2's
 * FOH/SOH polynomial still needs mass1's older samples. */
static rtcosim_master *one_way(rtcosim_order order, rtcosim_extrapolation e, slow *sl,
                               rtcosim_time_ns stop)
{
    rtcosim_master *m = NULL;
    rtcosim_component *c1 = NULL, *c2 = NULL;
    rtcosim_error err;
    rtcosim_coupling_options co;
    rtcosim_coupling_options_init(&co);
    co.extrapolation = e;
    const char *inputs[] = {"x1", "v1"};
    if (rtcosim_master_create(MS, &m, &err) != RTCOSIM_OK ||
        rtcosim_native_create("rtcosim:oscillator.mass1", &c1, &err) != RTCOSIM_OK ||
        rtcosim_master_add_component(m, "mass1", c1, 1, &err) != RTCOSIM_OK ||
        rtcosim_native_create("rtcosim:oscillator.mass2", &c2, &err) != RTCOSIM_OK ||
        (sl && wrap_slow(sl, 1, c2, &c2, &err) != RTCOSIM_OK) ||
        rtcosim_master_add_component(m, "mass2", c2, 1, &err) != RTCOSIM_OK ||
        rtcosim_master_connect(m, "mass1.x", "mass2.x1", &co, &err) != RTCOSIM_OK ||
        rtcosim_master_connect(m, "mass1.v", "mass2.v1", &co, &err) != RTCOSIM_OK ||
        rtcosim_master_set_feedthrough(m, "mass2.F", inputs, 2, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    rtcosim_master_set_order(m, order);
    if (rtcosim_master_initialize(m, 0, stop, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    return m;
}

static void a_producer_far_ahead_keeps_the_history_its_consumer_needs(void **state)
{
    (void)state;
    const rtcosim_time_ns stop = 200 * MS;
    slow sl = {.burn_ns = {0, 20000}};
    rtcosim_error err;
    assert_int_equal(rtcosim_clock_create_monotonic(RTCOSIM_NS_PER_S, &sl.clock, &err), RTCOSIM_OK);
    const rtcosim_extrapolation ex[] = {RTCOSIM_EXTRAPOLATION_FOH, RTCOSIM_EXTRAPOLATION_SOH};
    for (int x = 0; x < 2; x++)
        for (int o = 0; o < 2; o++) {
            const rtcosim_order order = o ? RTCOSIM_ORDER_GAUSS_SEIDEL : RTCOSIM_ORDER_JACOBI;
            rows plain = {0}, spec = {0};
            rtcosim_master *m = one_way(order, ex[x], NULL, stop);
            assert_int_equal(rtcosim_master_run(m, stop, keep_row, &plain, &err), RTCOSIM_OK);
            rtcosim_master_free(m);
            m = one_way(order, ex[x], &sl, stop);
            rtcosim_speculation_options opt = {.horizon = 2, .threads = 2};
            if (rtcosim_master_run_speculative(m, stop, &opt, keep_row, &spec, NULL, &err) != RTCOSIM_OK)
                fail_msg("%s", err.message);
            rtcosim_master_free(m);
            assert_int_equal(spec.count, plain.count);
            assert_memory_equal(spec.v, plain.v, plain.count * plain.width * sizeof *plain.v);
            rows_free(&plain);
            rows_free(&spec);
        }
    rtcosim_clock_free(sl.clock);
}

/* Multi-rate: mass1 steps 3 ms, mass2 2 ms (macro step 1 ms). Rows come at
 * every communication point of either, each mass showing its latest output,
 * as in the plain run; Tc = 0 stays bit-identical for every coupling. */
static rtcosim_master *multi_rate_of(rtcosim_order order, rtcosim_extrapolation e, bool hold,
                                     slow *sl,
                                     rtcosim_status (*wrap)(void *, int, rtcosim_component *,
                                                            rtcosim_component **, rtcosim_error *),
                                     rtcosim_time_ns step1, rtcosim_time_ns step2,
                                     rtcosim_time_ns stop)
{
    rtcosim_oscillator_params p;
    rtcosim_oscillator_case(2, &p);
    rtcosim_oscillator_setup s;
    rtcosim_oscillator_setup_init(&s);
    s.order = order;
    s.stop = stop;
    s.power_bond = false;
    s.coupling.extrapolation = e;
    s.coupling.multirate = hold ? RTCOSIM_MULTIRATE_HOLD : RTCOSIM_MULTIRATE_INTERPOLATE;
    if (wrap) {
        s.wrap = wrap;
        s.wrap_context = sl;
    }
    rtcosim_master *m = NULL;
    rtcosim_error err;
    if (rtcosim_oscillator_build(&p, &s, &m, &err) != RTCOSIM_OK ||
        rtcosim_master_set_component_step(m, "mass1", step1, &err) != RTCOSIM_OK ||
        rtcosim_master_set_component_step(m, "mass2", step2, &err) != RTCOSIM_OK ||
        rtcosim_master_initialize(m, 0, stop, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    return m;
}

static rtcosim_master *multi_rate(rtcosim_order order, rtcosim_extrapolation e, bool hold,
                                  slow *sl, rtcosim_time_ns stop)
{
    return multi_rate_of(order, e, hold, sl, sl ? wrap_slow : NULL, 3 * MS, 2 * MS, stop);
}

static void multi_rate_threshold_zero_is_bit_identical(void **state)
{
    (void)state;
    const rtcosim_time_ns stop = 120 * MS;
    slow sl = {.burn_ns = {0, 20000}};
    rtcosim_error err;
    assert_int_equal(rtcosim_clock_create_monotonic(RTCOSIM_NS_PER_S, &sl.clock, &err), RTCOSIM_OK);
    /* The last variant holds the slower producer's signal (FOH, hold rule). */
    const rtcosim_extrapolation ex[] = {RTCOSIM_EXTRAPOLATION_ZOH, RTCOSIM_EXTRAPOLATION_FOH,
                                        RTCOSIM_EXTRAPOLATION_SOH, RTCOSIM_EXTRAPOLATION_FOH};
    for (int x = 0; x < 4; x++)
        for (int o = 0; o < 2; o++)
            for (unsigned threads = 1; threads <= 2; threads++) {
                const rtcosim_order order = o ? RTCOSIM_ORDER_GAUSS_SEIDEL : RTCOSIM_ORDER_JACOBI;
                rows plain = {0}, spec = {0};
                rtcosim_master *m = multi_rate(order, ex[x], x == 3, NULL, stop);
                assert_int_equal(rtcosim_master_run(m, stop, keep_row, &plain, &err), RTCOSIM_OK);
                const uint64_t plain_steps = rtcosim_master_step_count(m);
                rtcosim_master_free(m);
                m = multi_rate(order, ex[x], x == 3, &sl, stop);
                rtcosim_speculation_options opt = {.horizon = 4, .threads = threads};
                rtcosim_speculation_stats stats[2];
                if (rtcosim_master_run_speculative(m, stop, &opt, keep_row, &spec, stats, &err) !=
                    RTCOSIM_OK)
                    fail_msg("%s", err.message);
                /* Ticks at 0, 2, 3, 4, 6, ... ms: two of every three ms. */
                assert_int_equal(plain.count, 1 + 80);
                assert_int_equal(rtcosim_master_step_count(m), plain_steps);
                assert_int_equal(stats[0].committed_steps, 40);
                assert_int_equal(stats[1].committed_steps, 60);
                rtcosim_master_free(m);
                assert_same_rows(&spec, &plain);
                rows_free(&plain);
                rows_free(&spec);
            }
    rtcosim_clock_free(sl.clock);
}

/* mass2 (feedthrough, conservative) on 10 ms, mass1 on 1 ms with a horizon of
 * one step: in Jacobi order mass2 publishes each output with mass1's output
 * at the end of its step, ten of mass1's ahead of the rows the observer
 * shows; and mass1 asking to stop after its step from 45 ms ends the run at
 * the end of that tick (46 ms), as in the plain run. */
static void multi_rate_far_apart_and_terminating(void **state)
{
    (void)state;
    const rtcosim_time_ns stop = 100 * MS;
    slow sl = {.burn_ns = {0, 20000}};
    rtcosim_error err;
    assert_int_equal(rtcosim_clock_create_monotonic(RTCOSIM_NS_PER_S, &sl.clock, &err), RTCOSIM_OK);
    for (int ending = 0; ending < 2; ending++)
        for (int o = 0; o < 2; o++) {
            const rtcosim_order order = o ? RTCOSIM_ORDER_GAUSS_SEIDEL : RTCOSIM_ORDER_JACOBI;
            rows plain = {0}, spec = {0};
            rtcosim_master *m = multi_rate_of(order, RTCOSIM_EXTRAPOLATION_ZOH, false, &sl,
                                              ending ? wrap_ending_at_45 : NULL, MS, 10 * MS, stop);
            assert_int_equal(rtcosim_master_run(m, stop, keep_row, &plain, &err), RTCOSIM_OK);
            const rtcosim_time_ns plain_end = rtcosim_master_time(m);
            rtcosim_master_free(m);
            m = multi_rate_of(order, RTCOSIM_EXTRAPOLATION_ZOH, false, &sl,
                              ending ? wrap_ending_at_45 : wrap_slow, MS, 10 * MS, stop);
            rtcosim_speculation_options opt = {.horizon = 1, .threads = 2};
            if (rtcosim_master_run_speculative(m, stop, &opt, keep_row, &spec, NULL, &err) !=
                RTCOSIM_OK)
                fail_msg("%s", err.message);
            assert_true(plain_end == (ending ? 46 * MS : stop));
            assert_true(rtcosim_master_time(m) == plain_end);
            rtcosim_master_free(m);
            assert_same_rows(&spec, &plain);
            rows_free(&plain);
            rows_free(&spec);
        }
    rtcosim_clock_free(sl.clock);
}

/* mass1 discards its step from 45 ms with a termination request (an FMU's
 * normal end, FMI 2.0 4.2.3): the run ends at 45 ms without that tick, as the
 * plain run does, although mass1 may have taken that step speculatively. */
static rtcosim_status discard_do_step(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                      rtcosim_step_result *r, rtcosim_error *err)
{
    if (t >= 45 * MS) {
        r->terminate_requested = true;
        return rtcosim_error_set(err, RTCOSIM_EDISCARD, "mass1: discarded at the end");
    }
    return rtcosim_component_do_step(self, t, h, r, err);
}

static const rtcosim_component_ops discarding_ops = STATEFUL_OPS("discarding", discard_do_step);

static rtcosim_status wrap_discarding(void *context, int mass, rtcosim_component *inner,
                                      rtcosim_component **out, rtcosim_error *err)
{
    return wrap_mass2_with(&discarding_ops, context, mass, inner, out, err);
}

static void discarded_last_step_ends_the_run_at_its_start(void **state)
{
    (void)state;
    const rtcosim_time_ns stop = 100 * MS;
    slow sl = {.burn_ns = {0, 20000}};
    rtcosim_error err;
    assert_int_equal(rtcosim_clock_create_monotonic(RTCOSIM_NS_PER_S, &sl.clock, &err), RTCOSIM_OK);
    for (int rates = 0; rates < 2; rates++)
        for (int o = 0; o < 2; o++) {
            const rtcosim_order order = o ? RTCOSIM_ORDER_GAUSS_SEIDEL : RTCOSIM_ORDER_JACOBI;
            rows plain = {0}, spec = {0};
            rtcosim_master *m[2];
            for (int run = 0; run < 2; run++)
                m[run] = multi_rate_of(order, RTCOSIM_EXTRAPOLATION_ZOH, false, &sl,
                                       wrap_discarding, MS, rates ? 5 * MS : MS, stop);
            assert_int_equal(rtcosim_master_run(m[0], stop, keep_row, &plain, &err), RTCOSIM_OK);
            rtcosim_speculation_options opt = {.horizon = 4, .threads = 2};
            if (rtcosim_master_run_speculative(m[1], stop, &opt, keep_row, &spec, NULL, &err) !=
                RTCOSIM_OK)
                fail_msg("%s", err.message);
            assert_true(rtcosim_master_time(m[0]) == 45 * MS);
            assert_true(rtcosim_master_time(m[1]) == 45 * MS);
            assert_int_equal(rtcosim_master_step_count(m[1]), rtcosim_master_step_count(m[0]));
            assert_same_rows(&spec, &plain);
            rtcosim_master_free(m[0]);
            rtcosim_master_free(m[1]);
            rows_free(&plain);
            rows_free(&spec);
        }
    rtcosim_clock_free(sl.clock);
}

static double max_error_vs_exact(const rows *r)
{
    rtcosim_oscillator_params p;
    rtcosim_oscillator_case(2, &p);
    double worst = 0;
    for (size_t i = 0; i < r->count; i++) {
        double z[4];
        rtcosim_oscillator_exact(&p, rtcosim_time_to_seconds(r->t[i]), z);
        worst = fmax(worst, fmax(fabs(r->v[i * r->width] - z[0]), fabs(r->v[i * r->width + 2] - z[2])));
    }
    return worst;
}

static void positive_threshold_stays_near_the_exact_solution(void **state)
{
    (void)state;
    const rtcosim_time_ns stop = 1000 * MS;
    slow sl = {.burn_ns = {0, 20000}};
    rtcosim_error err;
    assert_int_equal(rtcosim_clock_create_monotonic(RTCOSIM_NS_PER_S, &sl.clock, &err), RTCOSIM_OK);
    rows plain = {0}, spec = {0};
    run_plain(RTCOSIM_ORDER_GAUSS_SEIDEL, stop, &plain);
    const double plain_error = max_error_vs_exact(&plain);
    rtcosim_speculation_stats stats[2];
    rtcosim_speculation_options opt = {.threshold = 0.05, .horizon = 16, .threads = 2};
    run_speculative(RTCOSIM_ORDER_GAUSS_SEIDEL, stop, &sl, &opt, &spec, stats);
    const double spec_error = max_error_vs_exact(&spec);
    /* Every committed step of mass1 took a force within Tc of the real one
     * (|e[n]| is the first term of the cumulative error the scheme bounds).
     * A force error dF over a step h changes v1 by dF h / m1, so over T = 1 s
     * the kept errors move x1 by at most Tc T^2 / m1 = 0.05 m, to first order
     * (the feedback through the coupling is not in this estimate). The plain
     * ZOH run's own error against exp(A t) z0 is about 0.17 m at H = 1 ms. */
    const double tc = 0.05, m1 = 1.0, span = 1.0;
    if (!(spec_error <= plain_error + tc * span * span / m1))
        fail_msg("speculative error %.3g m vs plain %.3g m", spec_error, plain_error);
    assert_int_equal(stats[0].committed_steps, 1000);
    rows_free(&plain);
    rows_free(&spec);
    rtcosim_clock_free(sl.clock);
}

static void systems_outside_the_scope_are_refused(void **state)
{
    (void)state;
    rtcosim_oscillator_params p;
    rtcosim_oscillator_case(2, &p);
    rtcosim_oscillator_setup s;
    rtcosim_oscillator_setup_init(&s);
    s.stop = 10 * MS;
    s.coupling.correction = RTCOSIM_CORRECTION_DEAD_TIME;
    rtcosim_master *m = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_oscillator_build(&p, &s, &m, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_initialize(m, 0, s.stop, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_run_speculative(m, s.stop, NULL, NULL, NULL, NULL, &err),
                     RTCOSIM_EUNSUPPORTED);
    assert_non_null(strstr(err.message, "mass1.x -> mass2.x1"));
    assert_non_null(strstr(err.message, "without correction"));
    rtcosim_master_free(m);

    rtcosim_oscillator_setup_init(&s);
    s.stop = 10 * MS;
    s.step_control.enabled = true;
    assert_int_equal(rtcosim_oscillator_build(&p, &s, &m, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_initialize(m, 0, s.stop, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_run_speculative(m, s.stop, NULL, NULL, NULL, NULL, &err),
                     RTCOSIM_EUNSUPPORTED);
    assert_non_null(strstr(err.message, "step control"));
    rtcosim_master_free(m);

    /* Off the grid of mass2 (2 ms): 11 ms. */
    m = multi_rate(RTCOSIM_ORDER_JACOBI, RTCOSIM_EXTRAPOLATION_ZOH, false, NULL, 12 * MS);
    assert_int_equal(rtcosim_master_run_speculative(m, 11 * MS, NULL, NULL, NULL, NULL, &err),
                     RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "not on the grid of 'mass"));
    rtcosim_master_free(m);

    m = oscillator(RTCOSIM_ORDER_JACOBI, 10 * MS, NULL);
    assert_int_equal(rtcosim_master_run_speculative(m, 10 * MS + 1, NULL, NULL, NULL, NULL, &err),
                     RTCOSIM_EINVAL);
    rtcosim_speculation_options bad = {.threshold = -1};
    assert_int_equal(rtcosim_master_run_speculative(m, 10 * MS, &bad, NULL, NULL, NULL, &err),
                     RTCOSIM_EINVAL);
    rtcosim_master_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(threshold_zero_is_bit_identical_to_the_plain_run),
        cmocka_unit_test(restored_state_reproduces_the_step),
        cmocka_unit_test(component_without_state_runs_conservatively),
        cmocka_unit_test(termination_request_ends_the_run_where_the_plain_run_ends),
        cmocka_unit_test(a_producer_far_ahead_keeps_the_history_its_consumer_needs),
        cmocka_unit_test(multi_rate_threshold_zero_is_bit_identical),
        cmocka_unit_test(multi_rate_far_apart_and_terminating),
        cmocka_unit_test(discarded_last_step_ends_the_run_at_its_start),
        cmocka_unit_test(positive_threshold_stays_near_the_exact_solution),
        cmocka_unit_test(systems_outside_the_scope_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
