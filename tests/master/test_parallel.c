/* Parallel stepping of the master: Jacobi and Gauss-Seidel runs on several
 * threads reproduce the sequential run bit for bit whatever the assignment;
 * the assignment follows the components' costs (longest first onto the least
 * loaded thread, re-balanced when costs drift) and the fallback to one
 * thread follows them too. Costs are injected, not timed: every component
 * advances a per-thread virtual clock by its own cost, and that clock is the
 * master's cost clock, so the plan is hand-computable and no assertion
 * depends on the machine's speed or load. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/master.h"
#include "rtcosim/native.h"

#define US RTCOSIM_NS_PER_US
#define MS RTCOSIM_NS_PER_MS

/* ---- a component with an injected cost ---- */

static _Thread_local int64_t virtual_ns;     /* advanced by the components' costs */
static _Thread_local int thread_id = -1;     /* small id of the thread that steps */
static atomic_int next_thread_id;

static int my_thread_id(void)
{
    if (thread_id < 0)
        thread_id = atomic_fetch_add(&next_thread_id, 1);
    return thread_id;
}

static int64_t virtual_clock(void *context)
{
    (void)context;
    return virtual_ns;
}

typedef struct costly_data {
    double u1, u2, y, runner;
    double cost, cost_later, later_at; /* ns per step; from later_at s on: cost_later */
    double x;
} costly_data;

static const rtcosim_native_variable costly_vars[] = {
    RTCOSIM_NATIVE_F64(costly_data, u1, 0, RTCOSIM_CAUSALITY_INPUT, RTCOSIM_VARIABILITY_CONTINUOUS, 0, NULL, NULL, NULL),
    RTCOSIM_NATIVE_F64(costly_data, u2, 1, RTCOSIM_CAUSALITY_INPUT, RTCOSIM_VARIABILITY_CONTINUOUS, 0, NULL, NULL, NULL),
    RTCOSIM_NATIVE_F64(costly_data, y, 2, RTCOSIM_CAUSALITY_OUTPUT, RTCOSIM_VARIABILITY_CONTINUOUS, 0, NULL, NULL, NULL),
    RTCOSIM_NATIVE_F64(costly_data, runner, 3, RTCOSIM_CAUSALITY_OUTPUT, RTCOSIM_VARIABILITY_DISCRETE, 0, NULL, NULL, NULL),
    RTCOSIM_NATIVE_F64(costly_data, cost, 4, RTCOSIM_CAUSALITY_PARAMETER, RTCOSIM_VARIABILITY_FIXED, 0, NULL, NULL, NULL),
    RTCOSIM_NATIVE_F64(costly_data, cost_later, 5, RTCOSIM_CAUSALITY_PARAMETER, RTCOSIM_VARIABILITY_FIXED, -1, NULL, NULL, NULL),
    RTCOSIM_NATIVE_F64(costly_data, later_at, 6, RTCOSIM_CAUSALITY_PARAMETER, RTCOSIM_VARIABILITY_FIXED, 1e9, NULL, NULL, NULL),
};

/* A nonlinear first-order lag of its inputs, so that any change in the data
 * a component sees (a wrong exchange order) shows in every later value. */
static rtcosim_status costly_step(void *data, const rtcosim_native_context *ctx, double t,
                                  double h, rtcosim_error *err)
{
    (void)ctx, (void)err;
    costly_data *d = data;
    d->x += h * (sin(d->u1) + 0.5 * d->u2 - d->x + cos(3 * t));
    d->y = d->x;
    d->runner = my_thread_id();
    virtual_ns += (int64_t)(t + 1e-12 >= d->later_at && d->cost_later >= 0 ? d->cost_later : d->cost);
    return RTCOSIM_OK;
}

static const rtcosim_native_model costly_model = {
    .name = "test.costly", .data_size = sizeof(costly_data), .variables = costly_vars,
    .variable_count = 7, .integrator = RTCOSIM_NATIVE_OWN_STEP, .can_handle_variable_step = true,
    .step = costly_step,
};

/* ---- systems ---- */

typedef struct spec {
    rtcosim_order order;
    unsigned threads;
    bool fallback;
    size_t n;
    const char *const *names;
    const double *cost, *cost_later; /* ns; cost_later may be NULL */
    double later_at;
    const char *const (*conns)[2];
    size_t conn_count;
    rtcosim_time_ns stop;
    const unsigned *multiple; /* step multiples (NULL: all 1) */
} spec;

typedef struct trace {
    double *v;
    size_t rows, cols, cap;
} trace;

static rtcosim_status record(void *context, rtcosim_time_ns t, const double *v, size_t n,
                             rtcosim_error *err)
{
    (void)t, (void)err;
    trace *tr = context;
    if ((tr->rows + 1) * n > tr->cap) {
        tr->cap = tr->cap ? 2 * tr->cap : 4096;
        tr->v = realloc(tr->v, tr->cap * sizeof *tr->v);
        assert_non_null(tr->v);
    }
    memcpy(tr->v + tr->rows * n, v, n * sizeof *v);
    tr->rows++;
    tr->cols = n;
    return RTCOSIM_OK;
}

/* Runs the system; returns the master (to inspect) and fills the trace of
 * every component's y at every step. */
static rtcosim_master *run(const spec *s, trace *tr)
{
    rtcosim_master *m = NULL;
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_master_create(MS, &m, &err), RTCOSIM_OK);
    char text[64], name[64];
    for (size_t i = 0; i < s->n; i++) {
        rtcosim_component *c = NULL;
        assert_int_equal(rtcosim_native_create_model(&costly_model, &c, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_master_add_component(m, s->names[i], c,
                                                      s->multiple ? s->multiple[i] : 1, &err),
                         RTCOSIM_OK);
        snprintf(name, sizeof name, "%s.cost", s->names[i]);
        snprintf(text, sizeof text, "%.17g", s->cost[i]);
        assert_int_equal(rtcosim_master_set_start_value(m, name, text, &err), RTCOSIM_OK);
        if (s->cost_later) {
            snprintf(name, sizeof name, "%s.cost_later", s->names[i]);
            snprintf(text, sizeof text, "%.17g", s->cost_later[i]);
            assert_int_equal(rtcosim_master_set_start_value(m, name, text, &err), RTCOSIM_OK);
            snprintf(name, sizeof name, "%s.later_at", s->names[i]);
            snprintf(text, sizeof text, "%.17g", s->later_at);
            assert_int_equal(rtcosim_master_set_start_value(m, name, text, &err), RTCOSIM_OK);
        }
    }
    rtcosim_coupling_options o;
    rtcosim_coupling_options_init(&o);
    o.extrapolation = RTCOSIM_EXTRAPOLATION_SOH;
    o.correction = RTCOSIM_CORRECTION_DEAD_TIME;
    for (size_t k = 0; k < s->conn_count; k++)
        assert_int_equal(rtcosim_master_connect(m, s->conns[k][0], s->conns[k][1], &o, &err),
                         RTCOSIM_OK);
    for (size_t i = 0; i < s->n; i++) {
        snprintf(name, sizeof name, "%s.y", s->names[i]);
        assert_int_equal(rtcosim_master_observe(m, name, &err), RTCOSIM_OK);
    }
    rtcosim_master_set_order(m, s->order);
    assert_int_equal(rtcosim_master_set_threads(m, s->threads, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_set_thread_fallback(m, s->fallback, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_set_cost_clock(m, virtual_clock, NULL, &err), RTCOSIM_OK);
    if (rtcosim_master_initialize(m, 0, s->stop, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    if (rtcosim_master_run(m, s->stop, record, tr, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    return m;
}

static void assert_same_trace(const trace *a, const trace *b)
{
    assert_int_equal(a->rows, b->rows);
    assert_int_equal(a->cols, b->cols);
    assert_memory_equal(a->v, b->v, a->rows * a->cols * sizeof *a->v);
}

/* The runner (thread id) of component i at the end. */
static double runner_of(rtcosim_master *m, const char *comp)
{
    rtcosim_component *c = rtcosim_master_component(m, comp);
    const rtcosim_variable *v = rtcosim_component_find_variable(c, "runner");
    double r = -1;
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &v->value_reference, 1, &r, NULL),
                     RTCOSIM_OK);
    return r;
}

static const char *const six[] = {"a", "b", "c", "d", "e", "f"};
/* A ring with chords: every component feeds two others. */
static const char *const ring[][2] = {
    {"a.y", "b.u1"}, {"b.y", "c.u1"}, {"c.y", "d.u1"}, {"d.y", "e.u1"}, {"e.y", "f.u1"},
    {"f.y", "a.u1"}, {"a.y", "d.u2"}, {"c.y", "f.u2"}, {"e.y", "b.u2"}, {"d.y", "a.u2"},
};

/* ---- tests ---- */

static void jacobi_is_bit_identical_across_threads_and_assignments(void **state)
{
    (void)state;
    const double even[] = {10e3, 10e3, 10e3, 10e3, 10e3, 10e3};
    const double uneven[] = {40e3, 5e3, 30e3, 5e3, 20e3, 10e3};
    const double reversed[] = {5e3, 40e3, 5e3, 30e3, 10e3, 20e3};
    spec s = {RTCOSIM_ORDER_JACOBI, 1, true, 6, six, even, NULL, 0, ring, 10, 300 * MS, NULL};
    trace seq = {0}, t2 = {0}, t3 = {0}, t2b = {0}, drift = {0};
    rtcosim_master_free(run(&s, &seq));
    s.threads = 2;
    s.fallback = false;
    s.cost = uneven;
    rtcosim_master *m2 = run(&s, &t2);
    s.cost = reversed;
    rtcosim_master *m2b = run(&s, &t2b);
    s.threads = 3;
    s.cost = uneven;
    rtcosim_master *m3 = run(&s, &t3);
    /* costs that swap halfway: the plan re-balances during the run */
    s.threads = 2;
    s.cost_later = reversed;
    s.later_at = 0.15;
    rtcosim_master *md = run(&s, &drift);
    assert_same_trace(&seq, &t2);
    assert_same_trace(&seq, &t2b);
    assert_same_trace(&seq, &t3);
    assert_same_trace(&seq, &drift);
    assert_true(seq.rows == 300 + 1 && seq.v[seq.rows * 6 - 1] != 0);
    /* the runs really were parallel, under different assignments */
    rtcosim_master_parallel p;
    assert_int_equal(rtcosim_master_get_parallel(m2, &p, NULL), RTCOSIM_OK);
    assert_int_equal(p.threads_used, 2);
    assert_int_equal(p.parallel_steps, 300);
    assert_int_equal(rtcosim_master_get_parallel(m3, &p, NULL), RTCOSIM_OK);
    assert_int_equal(p.threads_used, 3);
    bool differ = false;
    for (size_t i = 0; i < 6; i++)
        differ |= rtcosim_master_component_thread(m2, i) != rtcosim_master_component_thread(m2b, i);
    assert_true(differ);
    assert_int_equal(rtcosim_master_get_parallel(md, &p, NULL), RTCOSIM_OK);
    assert_true(p.rebalances >= 1);
    rtcosim_master_free(m2);
    rtcosim_master_free(m2b);
    rtcosim_master_free(m3);
    rtcosim_master_free(md);
    free(seq.v), free(t2.v), free(t3.v), free(t2b.v), free(drift.v);
}

/* Multi-rate ticks step a subset of the components: both orders stay
 * bit-identical on 2 and 3 threads (Jacobi: the ring; Gauss-Seidel: a
 * source feeding one level of three, two of which feed a sink). */
static void multirate_runs_are_bit_identical_across_threads(void **state)
{
    (void)state;
    static const char *const star[] = {"s", "p", "q", "r", "t"};
    static const char *const star_conns[][2] = {
        {"s.y", "p.u1"}, {"s.y", "q.u1"}, {"s.y", "r.u1"}, {"p.y", "t.u1"},
        {"q.y", "t.u2"}, {"r.y", "s.u1"},
    };
    const double costs[] = {10e3, 30e3, 20e3, 10e3, 40e3, 5e3};
    const unsigned multiple[] = {1, 2, 1, 3, 1, 2};
    const spec specs[] = {
        {RTCOSIM_ORDER_JACOBI, 1, true, 6, six, costs, NULL, 0, ring, 10, 120 * MS, multiple},
        {RTCOSIM_ORDER_GAUSS_SEIDEL, 1, true, 5, star, costs, NULL, 0, star_conns, 6, 120 * MS,
         multiple},
    };
    for (size_t o = 0; o < 2; o++) {
        spec s = specs[o];
        trace seq = {0}, t2 = {0}, t3 = {0};
        rtcosim_master_free(run(&s, &seq));
        s.threads = 2;
        s.fallback = false;
        rtcosim_master *m = run(&s, &t2);
        s.threads = 3;
        rtcosim_master_free(run(&s, &t3));
        assert_same_trace(&seq, &t2);
        assert_same_trace(&seq, &t3);
        assert_int_equal(seq.rows, 121);
        rtcosim_master_parallel p;
        assert_int_equal(rtcosim_master_get_parallel(m, &p, NULL), RTCOSIM_OK);
        assert_true(p.parallel_steps > 0);
        rtcosim_master_free(m);
        free(seq.v), free(t2.v), free(t3.v);
    }
}

/* LPT by hand for costs 40, 5, 30, 5, 20, 10 us on two threads: 40 -> 0,
 * 30 -> 1, 20 -> 1 (50), 10 -> 0 (50), 5 -> 0 (equal loads: the thread with
 * fewer components... both have 2: the lower one, 55), 5 -> 1 (55).
 * Span 55 of 110 us. Each component then runs on its planned thread. */
static void uneven_costs_are_balanced_longest_first(void **state)
{
    (void)state;
    const double uneven[] = {40e3, 5e3, 30e3, 5e3, 20e3, 10e3};
    spec s = {RTCOSIM_ORDER_JACOBI, 2, true, 6, six, uneven, NULL, 0, ring, 10, 100 * MS, NULL};
    trace tr = {0};
    rtcosim_master *m = run(&s, &tr);
    const unsigned expect[] = {0, 0, 1, 1, 1, 0}; /* a b c d e f */
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(rtcosim_master_component_thread(m, i), expect[i]);
    rtcosim_master_parallel p;
    assert_int_equal(rtcosim_master_get_parallel(m, &p, NULL), RTCOSIM_OK);
    assert_int_equal(p.threads_used, 2);
    assert_true(fabs(p.work_ns - 110e3) < 1e-6);
    assert_true(fabs(p.span_ns - 55e3) < 1e-6);
    assert_true(fabs(rtcosim_master_component_cost(m, 0) - 40e3) < 1e-6);
    assert_int_equal(p.rebalances, 0); /* constant costs: the first plan stays */
    /* the caller's thread stepped thread 0's components, one worker the rest */
    double main_id = my_thread_id();
    for (size_t i = 0; i < 6; i++)
        if (expect[i] == 0)
            assert_true(runner_of(m, six[i]) == main_id);
        else
            assert_true(runner_of(m, six[i]) != main_id &&
                        runner_of(m, six[i]) == runner_of(m, "c"));
    rtcosim_master_free(m);

    /* the costs drift to 5, 40, 5, 30, 10, 20 us: the plan above now has a
     * span of 65 us (a b f) against 45 and is re-balanced; the best split
     * of the new costs is 55 / 55 us (b e + a or c; d f + c or a), with
     * the two dearest, b and d, apart */
    const double later[] = {5e3, 40e3, 5e3, 30e3, 10e3, 20e3};
    s.cost_later = later;
    s.later_at = 0.05;
    s.stop = 400 * MS;
    trace tr2 = {0};
    m = run(&s, &tr2);
    assert_int_equal(rtcosim_master_get_parallel(m, &p, NULL), RTCOSIM_OK);
    assert_true(p.rebalances >= 1);
    double load[2] = {0, 0};
    for (size_t i = 0; i < 6; i++)
        load[rtcosim_master_component_thread(m, i)] += later[i];
    assert_true(load[0] == 55e3 && load[1] == 55e3);
    assert_int_not_equal(rtcosim_master_component_thread(m, 1), rtcosim_master_component_thread(m, 3));
    assert_true(fabs(p.span_ns - 55e3) < 1e3); /* the medians have followed */
    rtcosim_master_free(m);
    free(tr.v), free(tr2.v);
}

/* The fallback from measured (here injected) costs. With the hand-off taken
 * as 1 us and parallel only for a predicted step below 0.85 of the
 * sequential one: two 0.1 us components (0.2 us sequential, 1.1 us
 * parallel) stay on one thread; two 5 us ones (10 us against 6 us) and two
 * 20 us ones go parallel; a 50 us component beside a 1 us one (51 us against
 * 51 us) gains nothing and stays sequential. */
static void thread_count_follows_the_measured_costs(void **state)
{
    (void)state;
    static const char *const two[] = {"a", "b"};
    static const char *const loop[][2] = {{"a.y", "b.u1"}, {"b.y", "a.u1"}};
    const double light[] = {100, 100}, medium[] = {5e3, 5e3}, heavy[] = {20e3, 20e3},
                 lopsided[] = {50e3, 1e3};
    const struct {
        const double *cost;
        unsigned used;
    } cases[] = {{light, 1}, {medium, 2}, {heavy, 2}, {lopsided, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        spec s = {RTCOSIM_ORDER_JACOBI, 2, true, 2, two, cases[i].cost, NULL, 0, loop, 2, 100 * MS, NULL};
        trace tr = {0};
        rtcosim_master *m = run(&s, &tr);
        rtcosim_master_parallel p;
        assert_int_equal(rtcosim_master_get_parallel(m, &p, NULL), RTCOSIM_OK);
        assert_int_equal(p.threads, 2);
        assert_int_equal(p.threads_used, cases[i].used);
        char line[300];
        rtcosim_master_describe_parallel(m, line, sizeof line);
        if (cases[i].used == 1) {
            assert_int_equal(p.parallel_steps, 0);
            assert_non_null(strstr(line, "threads: 1 of 2"));
            assert_non_null(strstr(line, "fallback"));
        } else {
            /* sequential while measuring, parallel from the first plan */
            assert_true(p.parallel_steps > 80 && p.parallel_steps < 100);
            assert_non_null(strstr(line, "threads: 2 of 2"));
        }
        rtcosim_master_free(m);
        free(tr.v);
    }
    /* light components on threads forced (no fallback) still run parallel */
    spec s = {RTCOSIM_ORDER_JACOBI, 2, false, 2, two, light, NULL, 0, loop, 2, 100 * MS, NULL};
    trace tr = {0};
    rtcosim_master *m = run(&s, &tr);
    rtcosim_master_parallel p;
    assert_int_equal(rtcosim_master_get_parallel(m, &p, NULL), RTCOSIM_OK);
    assert_int_equal(p.parallel_steps, 100);
    rtcosim_master_free(m);
    free(tr.v);
    /* and the limits of the setting */
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_master_create(MS, &m, NULL), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_set_threads(m, 300, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "300 threads"));
    assert_int_equal(rtcosim_master_set_threads(m, RTCOSIM_MASTER_THREADS_AUTO, &err), RTCOSIM_OK);
    rtcosim_master_free(m);
}

/* Costs that change during a run change the plan: two 0.1 us components
 * that become 20 us ones at 0.5 s go parallel (sampled every 512th step
 * while light, so within about 2000 steps), and back when they become
 * light again. */
static void plan_follows_costs_that_change(void **state)
{
    (void)state;
    static const char *const two[] = {"a", "b"};
    static const char *const loop[][2] = {{"a.y", "b.u1"}, {"b.y", "a.u1"}};
    const double light[] = {100, 100}, heavy[] = {20e3, 20e3};
    spec s = {RTCOSIM_ORDER_JACOBI, 2, true, 2, two, light, heavy, 0.5, loop, 2, 3000 * MS, NULL};
    trace tr = {0};
    rtcosim_master *m = run(&s, &tr);
    rtcosim_master_parallel p;
    assert_int_equal(rtcosim_master_get_parallel(m, &p, NULL), RTCOSIM_OK);
    assert_int_equal(p.threads_used, 2);
    assert_true(p.parallel_steps > 500 && p.parallel_steps < 2500);
    rtcosim_master_free(m);
    free(tr.v);
    s.cost = heavy;
    s.cost_later = light;
    trace tr2 = {0};
    m = run(&s, &tr2);
    assert_int_equal(rtcosim_master_get_parallel(m, &p, NULL), RTCOSIM_OK);
    assert_int_equal(p.threads_used, 1);
    assert_true(p.parallel_steps > 450 && p.parallel_steps < 600);
    rtcosim_master_free(m);
    free(tr2.v);
}

/* Gauss-Seidel: s feeds p, q, r (one level, stepped together), p and q
 * feed t; r feeds s back (s sees r's previous step). Bit-identical on 1, 2
 * and 3 threads, and p, q, r spread over the threads. */
static void gauss_seidel_levels_run_in_parallel_bit_identically(void **state)
{
    (void)state;
    static const char *const names[] = {"s", "p", "q", "r", "t"};
    static const char *const conns[][2] = {
        {"s.y", "p.u1"}, {"s.y", "q.u1"}, {"s.y", "r.u1"}, {"p.y", "t.u1"},
        {"q.y", "t.u2"}, {"r.y", "s.u1"},
    };
    const double costs[] = {2e3, 20e3, 20e3, 20e3, 2e3};
    spec s = {RTCOSIM_ORDER_GAUSS_SEIDEL, 1, true, 5, names, costs, NULL, 0, conns, 6, 200 * MS, NULL};
    trace seq = {0}, t2 = {0}, t3 = {0};
    rtcosim_master_free(run(&s, &seq));
    s.threads = 2;
    rtcosim_master *m2 = run(&s, &t2);
    s.threads = 3;
    s.fallback = false;
    rtcosim_master *m3 = run(&s, &t3);
    assert_same_trace(&seq, &t2);
    assert_same_trace(&seq, &t3);
    rtcosim_master_parallel p;
    assert_int_equal(rtcosim_master_get_parallel(m2, &p, NULL), RTCOSIM_OK);
    assert_int_equal(p.threads_used, 2);
    assert_true(p.parallel_steps > 150);
    /* levels: s; p q r; t. On 3 threads p, q, r each on its own. */
    unsigned tp = rtcosim_master_component_thread(m3, 1), tq = rtcosim_master_component_thread(m3, 2),
             tr = rtcosim_master_component_thread(m3, 3);
    assert_true(tp != tq && tq != tr && tp != tr);
    assert_string_equal(rtcosim_master_order_name(m3, 0), "s");
    assert_string_equal(rtcosim_master_order_name(m3, 4), "t");
    rtcosim_master_free(m2);
    rtcosim_master_free(m3);
    free(seq.v), free(t2.v), free(t3.v);
}

/* Sorting by level only swaps components with no data between them: the
 * chains a -> b, c -> d and a -> d make the dependency order a, b, c, d
 * and the levels a, c; b, d. The run equals the one of the same system
 * added in level order (whose dependency order is a, c, b, d already),
 * column for column. */
static void gauss_seidel_level_order_changes_no_result(void **state)
{
    (void)state;
    static const char *const abcd[] = {"a", "b", "c", "d"}, *const acbd[] = {"a", "c", "b", "d"};
    static const char *const conns[][2] = {
        {"a.y", "b.u1"}, {"c.y", "d.u1"}, {"a.y", "d.u2"},
    };
    const double costs[] = {1e3, 1e3, 1e3, 1e3};
    spec s = {RTCOSIM_ORDER_GAUSS_SEIDEL, 1, true, 4, abcd, costs, NULL, 0, conns, 3, 100 * MS, NULL};
    trace x = {0}, y = {0};
    rtcosim_master *mx = run(&s, &x);
    s.names = acbd;
    rtcosim_master *my = run(&s, &y);
    for (size_t i = 0; i < 4; i++)
        assert_string_equal(rtcosim_master_order_name(mx, i), rtcosim_master_order_name(my, i));
    /* columns are in the order added: swap b and c of the second run */
    assert_int_equal(x.rows, y.rows);
    for (size_t r = 0; r < x.rows; r++) {
        const double *u = x.v + 4 * r, *v = y.v + 4 * r;
        assert_memory_equal(&u[0], &v[0], sizeof *u);
        assert_memory_equal(&u[1], &v[2], sizeof *u);
        assert_memory_equal(&u[2], &v[1], sizeof *u);
        assert_memory_equal(&u[3], &v[3], sizeof *u);
    }
    rtcosim_master_free(mx);
    rtcosim_master_free(my);
    free(x.v), free(y.v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(jacobi_is_bit_identical_across_threads_and_assignments),
        cmocka_unit_test(multirate_runs_are_bit_identical_across_threads),
        cmocka_unit_test(uneven_costs_are_balanced_longest_first),
        cmocka_unit_test(thread_count_follows_the_measured_costs),
        cmocka_unit_test(plan_follows_costs_that_change),
        cmocka_unit_test(gauss_seidel_levels_run_in_parallel_bit_identically),
        cmocka_unit_test(gauss_seidel_level_order_changes_no_result),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
