/* B8, co-simulation case (`rtcosim bench speculate-cosim`, and
 * bench_speculate_cosim() for `rtcosim bench speculate`): the two-mass
 * oscillator in Gauss-Seidel order with a slow mass2 (a fixed amount of CPU
 * work per step, calibrated to 400 us) and mass1 doing 200 us of work per
 * step. The plain Gauss-Seidel run is strictly sequential; plain Jacobi steps
 * both masses in parallel on 2 threads (another scheme, other results); the
 * speculative run lets mass1 predict mass2's force and run ahead on the
 * second thread while mass2 steps. Wall and CPU time of each (best of
 * --repeats), Tc = 0 checked bit-identical to plain Gauss-Seidel and Tc > 0
 * checked within a stated tolerance of it, and the per-component statistics. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../examples/oscillator/oscillator.h"
#include "bench.h"
#include "rtcosim/master_speculate.h"

#define SLOW_US 400.0
#define OTHER_US 200.0
#define STEPS 400
/* Tc in N (mass2's force, ~1e2..1e3 N; one-step prediction errors RMS ~1 N).
 * Measured under load: 0.05 N rolled back 50-100 times (each costs the slow
 * component a wait for mass1's step) for errors 2e-6..1.4e-5; 0.5 N 11-20
 * times for 1.8e-5..4e-5; 5 N exceeded the tolerance (1.4e-4). */
#define THRESHOLD 0.5
/* The committed positions of the Tc run may differ from the plain run's by
 * at most this fraction of the largest |x| (checked: the bench fails beyond).
 * For scale: plain Jacobi differs from plain Gauss-Seidel by ~2e-3. */
#define TOLERANCE_REL 1e-4
#define HORIZON 16

/* ---- a component that does a fixed amount of work per step ---- */

/* Each burner has its own sink (components burn on different threads). */
static void burn(volatile uint64_t *sink, uint64_t iterations)
{
    uint64_t x = *sink;
    for (uint64_t i = 0; i < iterations; i++)
        x = x * 6364136223846793005u + 1442695040888963407u;
    *sink = x;
}

/* Iterations per microsecond, best of a few tries (least disturbed). */
static double calibrate(void)
{
    double best = 0;
    volatile uint64_t sink = 1;
    for (int i = 0; i < 5; i++) {
        const uint64_t n = 2000000;
        const int64_t t0 = bench_now_ns();
        burn(&sink, n);
        const double per_us = (double)n / ((double)(bench_now_ns() - t0) * 1e-3);
        if (per_us > best)
            best = per_us;
    }
    return best;
}

typedef struct busy {
    rtcosim_component *inner;
    uint64_t iterations;
    volatile uint64_t sink;
} busy;

#define INNER(self) (((busy *)(self))->inner)

static rtcosim_status busy_instantiate(void *self, const char *name, rtcosim_error *err)
{
    return rtcosim_component_instantiate(INNER(self), name, err);
}
static rtcosim_status busy_setup(void *self, double tol, rtcosim_time_ns start,
                                 rtcosim_time_ns stop, rtcosim_error *err)
{
    return rtcosim_component_setup(INNER(self), tol, start, stop, err);
}
static rtcosim_status busy_enter_init(void *self, rtcosim_error *err)
{
    return rtcosim_component_enter_init(INNER(self), err);
}
static rtcosim_status busy_exit_init(void *self, rtcosim_error *err)
{
    return rtcosim_component_exit_init(INNER(self), err);
}
static rtcosim_status busy_do_step(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                   rtcosim_step_result *r, rtcosim_error *err)
{
    busy *b = self;
    burn(&b->sink, b->iterations);
    return rtcosim_component_do_step(INNER(self), t, h, r, err);
}
static rtcosim_status busy_get(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                               void *values, rtcosim_error *err)
{
    return rtcosim_component_get(INNER(self), type, vrs, n, values, err);
}
static rtcosim_status busy_set(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                               const void *values, rtcosim_error *err)
{
    return rtcosim_component_set(INNER(self), type, vrs, n, values, err);
}
static rtcosim_status busy_set_derivatives(void *self, const uint32_t *vrs, size_t n, int order,
                                           const double *values, rtcosim_error *err)
{
    return rtcosim_component_set_input_derivatives(INNER(self), vrs, n, order, values, err);
}
static rtcosim_status busy_get_state(void *self, rtcosim_state *state, rtcosim_error *err)
{
    return rtcosim_component_get_state(INNER(self), state, err);
}
static rtcosim_status busy_set_state(void *self, rtcosim_state state, rtcosim_error *err)
{
    return rtcosim_component_set_state(INNER(self), state, err);
}
static void busy_free_state(void *self, rtcosim_state state)
{
    rtcosim_component_free_state(INNER(self), state);
}
static rtcosim_status busy_terminate(void *self, rtcosim_error *err)
{
    return rtcosim_component_terminate(INNER(self), err);
}
static void busy_destroy(void *self)
{
    rtcosim_component_free(INNER(self));
    free(self);
}

static const rtcosim_component_ops busy_ops = {
    .kind = "busy", .instantiate = busy_instantiate, .setup = busy_setup,
    .enter_init = busy_enter_init, .exit_init = busy_exit_init, .do_step = busy_do_step,
    .get = busy_get, .set = busy_set, .set_input_derivatives = busy_set_derivatives,
    .get_state = busy_get_state, .set_state = busy_set_state, .free_state = busy_free_state,
    .terminate = busy_terminate, .destroy = busy_destroy,
};

static rtcosim_status wrap_busy(void *context, int mass, rtcosim_component *inner,
                                rtcosim_component **out, rtcosim_error *err)
{
    const double per_us = *(const double *)context;
    busy *b = calloc(1, sizeof *b);
    if (!b) {
        rtcosim_component_free(inner);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "bench: out of memory");
    }
    b->inner = inner;
    b->iterations = (uint64_t)(per_us * (mass == 1 ? SLOW_US : OTHER_US));
    return rtcosim_component_create(&busy_ops, b, rtcosim_component_description(inner), out, err);
}

/* ---- runs ---- */

typedef struct trajectory {
    double x[STEPS + 1][2]; /* x1, x2 per communication point */
    size_t rows;
} trajectory;

static rtcosim_status keep(void *context, rtcosim_time_ns t, const double *v, size_t n,
                           rtcosim_error *err)
{
    (void)t;
    trajectory *tr = context;
    if (n < 4 || tr->rows > STEPS)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "bench: unexpected observed values");
    tr->x[tr->rows][0] = v[0];
    tr->x[tr->rows][1] = v[2];
    tr->rows++;
    return RTCOSIM_OK;
}

static double cpu_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One configuration: its best (least disturbed) run of the repeats. */
typedef struct config {
    const char *label;
    rtcosim_order order;
    unsigned threads;                    /* plain runs */
    const rtcosim_speculation_options *o; /* NULL: plain */
    double wall, cpu;                    /* of the best run */
    trajectory *tr;
    rtcosim_speculation_stats stats[2];
} config;

/* One run of c; keeps it when its wall time is the best so far. Returns 0, or
 * -1 on failure. */
static int run_once(double *per_us, config *c, trajectory *scratch)
{
    rtcosim_oscillator_params p;
    rtcosim_oscillator_case(2, &p);
    rtcosim_oscillator_setup s;
    rtcosim_oscillator_setup_init(&s);
    s.order = c->order;
    s.stop = STEPS * RTCOSIM_NS_PER_MS;
    s.power_bond = false;
    s.threads = c->o ? 1 : c->threads;
    s.wrap = wrap_busy;
    s.wrap_context = per_us;
    rtcosim_master *m = NULL;
    rtcosim_error err;
    rtcosim_error_clear(&err);
    rtcosim_speculation_stats stats[2];
    memset(stats, 0, sizeof stats);
    scratch->rows = 0;
    double wall = -1, cpu = 0;
    if (rtcosim_oscillator_build(&p, &s, &m, &err) == RTCOSIM_OK &&
        rtcosim_master_initialize(m, 0, s.stop, &err) == RTCOSIM_OK) {
        const double c0 = cpu_now_s();
        const int64_t t0 = bench_now_ns();
        rtcosim_status st =
            c->o ? rtcosim_master_run_speculative(m, s.stop, c->o, keep, scratch, stats, &err)
                 : rtcosim_master_run(m, s.stop, keep, scratch, &err);
        if (st == RTCOSIM_OK) {
            wall = (double)(bench_now_ns() - t0) * 1e-9;
            cpu = cpu_now_s() - c0;
        }
    }
    rtcosim_master_free(m);
    if (wall < 0) {
        fprintf(stderr, "rtcosim: bench speculate-cosim: %s: %s\n", c->label, err.message);
        return -1;
    }
    if (c->wall < 0 || wall < c->wall) {
        c->wall = wall;
        c->cpu = cpu;
        memcpy(c->tr, scratch, sizeof *scratch);
        memcpy(c->stats, stats, sizeof stats);
    }
    return 0;
}

static void max_error(const trajectory *a, const trajectory *ref, double *abs_error,
                      double *rel_error)
{
    double worst = a->rows == ref->rows ? 0 : INFINITY, amplitude = 0;
    for (size_t i = 0; i < ref->rows && i < a->rows; i++)
        for (int j = 0; j < 2; j++) {
            worst = fmax(worst, fabs(a->x[i][j] - ref->x[i][j]));
            amplitude = fmax(amplitude, fabs(ref->x[i][j]));
        }
    *abs_error = worst;
    *rel_error = amplitude > 0 ? worst / amplitude : 0;
}

static void print_components(FILE *out, const config *c)
{
    static const char *const names[2] = {"mass1 (200 us)", "mass2 (400 us)"};
    fprintf(out, "  per component, %s:\n", c->label);
    fprintf(out, "    %-15s %10s %9s %9s %9s %10s %11s %11s  depths 1/2/3-4/5-8/9-16/17+\n",
            "component", "speculated", "committed", "rollbacks", "reexec", "predicted",
            "pred rms", "pred max");
    for (int i = 0; i < 2; i++) {
        const rtcosim_speculation_stats *s = &c->stats[i];
        if (!s->speculated) {
            fprintf(out, "    %-15s conservative: %s; %llu steps committed\n", names[i],
                    s->reason ? s->reason : "-", (unsigned long long)s->committed_steps);
            continue;
        }
        uint64_t deep = 0;
        for (size_t b = 5; b < RTCOSIM_SPECULATION_DEPTH_BUCKETS; b++)
            deep += s->rollback_depth[b];
        fprintf(out, "    %-15s %10llu %9llu %9llu %9llu %10llu %11.3g %11.3g  %llu/%llu/%llu/%llu/%llu/%llu\n",
                names[i], (unsigned long long)s->speculated_steps,
                (unsigned long long)s->committed_steps, (unsigned long long)s->rollbacks,
                (unsigned long long)s->reexecuted_steps, (unsigned long long)s->predicted_values,
                s->prediction_error_rms, s->prediction_error_max,
                (unsigned long long)s->rollback_depth[0], (unsigned long long)s->rollback_depth[1],
                (unsigned long long)s->rollback_depth[2], (unsigned long long)s->rollback_depth[3],
                (unsigned long long)s->rollback_depth[4], (unsigned long long)deep);
    }
}

enum { PLAIN_GS, PLAIN_JACOBI, SPEC_TC0, SPEC_TC, CONFIG_COUNT };

static int measure(FILE *out, unsigned repeats, double threshold, size_t horizon)
{
    double per_us = calibrate();
    const rtcosim_speculation_options o0 = {.threshold = 0, .horizon = horizon, .threads = 2};
    const rtcosim_speculation_options o1 = {.threshold = threshold, .horizon = horizon,
                                            .threads = 2};
    config cs[CONFIG_COUNT] = {
        [PLAIN_GS] = {.label = "plain Gauss-Seidel, 1 thread",
                      .order = RTCOSIM_ORDER_GAUSS_SEIDEL, .threads = 1},
        [PLAIN_JACOBI] = {.label = "plain Jacobi, 2 threads", .order = RTCOSIM_ORDER_JACOBI,
                          .threads = 2},
        [SPEC_TC0] = {.label = "speculative GS Tc = 0, 2 threads",
                      .order = RTCOSIM_ORDER_GAUSS_SEIDEL, .threads = 2, .o = &o0},
        [SPEC_TC] = {.label = "speculative GS Tc > 0, 2 threads",
                     .order = RTCOSIM_ORDER_GAUSS_SEIDEL, .threads = 2, .o = &o1},
    };
    trajectory *scratch = calloc(1, sizeof *scratch);
    int rc = scratch ? 0 : 1;
    for (int i = 0; i < CONFIG_COUNT; i++) {
        cs[i].wall = -1;
        if (!(cs[i].tr = calloc(1, sizeof *cs[i].tr)))
            rc = 1;
    }
    /* Interleaved, so that a burst of load hits every configuration alike. */
    for (unsigned r = 0; r < repeats && rc == 0; r++)
        for (int i = 0; i < CONFIG_COUNT && rc == 0; i++)
            if (run_once(&per_us, &cs[i], scratch) != 0)
                rc = 1;
    if (rc != 0)
        goto done;
    const config *gs = &cs[PLAIN_GS], *jac = &cs[PLAIN_JACOBI], *t0 = &cs[SPEC_TC0],
                 *t1 = &cs[SPEC_TC];
    const bool identical = t0->tr->rows == gs->tr->rows &&
                           memcmp(t0->tr->x, gs->tr->x, gs->tr->rows * sizeof gs->tr->x[0]) == 0;
    double abs1, rel1, absj, relj;
    max_error(t1->tr, gs->tr, &abs1, &rel1);
    max_error(jac->tr, gs->tr, &absj, &relj);
    const bool within = rel1 <= TOLERANCE_REL;
    /* Every component step of the run, committed once. */
    const double steps = 2.0 * STEPS;
    bench_print_load();
    fprintf(out,
            "speculate.cosim: oscillator, H = 1 ms, %d steps; mass2 slow (%.0f us of work per "
            "step), mass1 %.0f us; horizon %zu; best of %u runs each\n",
            STEPS, SLOW_US, OTHER_US, horizon, repeats);
    fprintf(out, "  %-36s %8s %8s %8s %8s %9s %9s %8s %12s\n", "run", "wall [s]", "vs GS",
            "vs Jac.", "cpu [s]", "cpu/step", "rollbacks", "reexec", "max |dx| [m]");
    for (int i = 0; i < CONFIG_COUNT; i++) {
        const config *c = &cs[i];
        char rb[24] = "-", re[24] = "-", dx[40];
        if (c->o) {
            snprintf(rb, sizeof rb, "%llu",
                     (unsigned long long)(c->stats[0].rollbacks + c->stats[1].rollbacks));
            snprintf(re, sizeof re, "%llu",
                     (unsigned long long)(c->stats[0].reexecuted_steps +
                                          c->stats[1].reexecuted_steps));
        }
        if (i == PLAIN_GS)
            snprintf(dx, sizeof dx, "reference");
        else if (i == PLAIN_JACOBI)
            snprintf(dx, sizeof dx, "%.3g (scheme)", absj);
        else if (i == SPEC_TC0)
            snprintf(dx, sizeof dx, "%s", identical ? "0 (identical)" : "DIFFERS");
        else
            snprintf(dx, sizeof dx, "%.3g", abs1);
        fprintf(out, "  %-36s %8.3f %8.2f %8.2f %8.3f %7.0fus %9s %8s %12s\n", c->label, c->wall,
                gs->wall / c->wall, jac->wall / c->wall, c->cpu, c->cpu / steps * 1e6, rb, re, dx);
    }
    fprintf(out, "  Tc run: max |dx| %.3g m = %.3g of the largest |x| (tolerance %.3g): %s\n", abs1,
            rel1, TOLERANCE_REL, within ? "within" : "EXCEEDED");
    print_components(out, t1);
    print_components(out, t0);
    fprintf(out, "speculate.cosim.plain_wall_s %.6g s\n", gs->wall);
    fprintf(out, "speculate.cosim.jacobi2_wall_s %.6g s\n", jac->wall);
    fprintf(out, "speculate.cosim.tc0_wall_s %.6g s\n", t0->wall);
    fprintf(out, "speculate.cosim.tc0_speedup %.6g x\n", gs->wall / t0->wall);
    fprintf(out, "speculate.cosim.tc0_identical %d bool\n", identical ? 1 : 0);
    fprintf(out, "speculate.cosim.tc_wall_s %.6g s\n", t1->wall);
    fprintf(out, "speculate.cosim.tc_speedup %.6g x\n", gs->wall / t1->wall);
    fprintf(out, "speculate.cosim.tc_speedup_vs_jacobi2 %.6g x\n", jac->wall / t1->wall);
    fprintf(out, "speculate.cosim.jacobi2_speedup %.6g x\n", gs->wall / jac->wall);
    fprintf(out, "speculate.cosim.plain_cpu_per_step_us %.6g us\n", gs->cpu / steps * 1e6);
    fprintf(out, "speculate.cosim.jacobi2_cpu_per_step_us %.6g us\n", jac->cpu / steps * 1e6);
    fprintf(out, "speculate.cosim.tc0_cpu_per_step_us %.6g us\n", t0->cpu / steps * 1e6);
    fprintf(out, "speculate.cosim.tc_cpu_per_step_us %.6g us\n", t1->cpu / steps * 1e6);
    fprintf(out, "speculate.cosim.tc_threshold %.6g N\n", threshold);
    fprintf(out, "speculate.cosim.tc_max_abs_error %.6g m\n", abs1);
    fprintf(out, "speculate.cosim.tc_max_rel_error %.6g ratio\n", rel1);
    fprintf(out, "speculate.cosim.tc_tolerance_rel %.6g ratio\n", TOLERANCE_REL);
    fprintf(out, "speculate.cosim.tc_within_tolerance %d bool\n", within ? 1 : 0);
    fprintf(out, "speculate.cosim.tc_rollbacks %llu count\n",
            (unsigned long long)(t1->stats[0].rollbacks + t1->stats[1].rollbacks));
    fprintf(out, "speculate.cosim.tc_prediction_error_rms %.6g N\n", t1->stats[0].prediction_error_rms);
    fflush(out);
    if (!identical) {
        fprintf(stderr, "rtcosim: bench speculate-cosim: Tc = 0 differs from the plain run\n");
        rc = 1;
    }
    if (!within) {
        fprintf(stderr,
                "rtcosim: bench speculate-cosim: Tc = %g N: error %.3g of the amplitude exceeds "
                "the tolerance %.3g\n", threshold, rel1, TOLERANCE_REL);
        rc = 1;
    }
done:
    for (int i = 0; i < CONFIG_COUNT; i++)
        free(cs[i].tr);
    free(scratch);
    return rc;
}

int bench_speculate_cosim(FILE *out)
{
    return measure(out, 3, THRESHOLD, HORIZON);
}

static int run_bench(int argc, char **argv)
{
    unsigned repeats = 3;
    double threshold = THRESHOLD;
    size_t horizon = HORIZON;
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (strcmp(argv[i], "--horizon") == 0 && i + 1 < argc) {
            const unsigned long h = strtoul(argv[++i], &end, 10);
            if (*end != '\0' || h == 0 || h > 100000) {
                fprintf(stderr, "rtcosim: bench speculate-cosim: --horizon %s: need 1..100000\n",
                        argv[i]);
                return 2;
            }
            horizon = h;
            continue;
        }
        if (strcmp(argv[i], "--threshold") == 0 && i + 1 < argc) {
            threshold = strtod(argv[++i], &end);
            if (*end != '\0' || !(threshold > 0) || !isfinite(threshold)) {
                fprintf(stderr, "rtcosim: bench speculate-cosim: --threshold %s: need a number > 0\n",
                        argv[i]);
                return 2;
            }
            continue;
        }
        if (strcmp(argv[i], "--repeats") == 0 && i + 1 < argc) {
            const unsigned long r = strtoul(argv[++i], &end, 10);
            if (*end != '\0' || r == 0 || r > 1000) {
                fprintf(stderr, "rtcosim: bench speculate-cosim: --repeats %s: need 1..1000\n",
                        argv[i]);
                return 2;
            }
            repeats = (unsigned)r;
        } else {
            fprintf(stderr, "usage: rtcosim bench speculate-cosim [--repeats N] [--threshold Tc] [--horizon M]\n");
            return 2;
        }
    }
    return measure(stdout, repeats, threshold, horizon);
}

const rtcosim_bench rtcosim_bench_speculate_cosim = {
    "speculate-cosim",
    "B8 co-simulation case: oscillator with a slow component, speculative vs plain GS and Jacobi",
    run_bench};
