/* B8, co-simulation case (`rtcosim bench speculate-cosim`, and
 * bench_speculate_cosim() for `rtcosim bench speculate`): the two-mass
 * oscillator in Gauss-Seidel order with a slow mass2 (a fixed amount of CPU
 * work per step, calibrated to 400 us) and mass1 doing 200 us of work per
 * step. The plain run is strictly sequential; the speculative run lets mass1
 * predict mass2's force and run ahead on a second thread. Wall time of the
 * plain run and of the speculative runs with Tc = 0 (checked bit-identical)
 * and Tc > 0, and the error of the committed results against the plain run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../examples/oscillator/oscillator.h"
#include "bench.h"
#include "rtcosim/master_speculate.h"

#define SLOW_US 400.0
#define OTHER_US 200.0
#define STEPS 400
#define THRESHOLD 0.05 /* N: mass2's force is ~1e2..1e3 N, its LS prediction error ~1e-2 N */

/* ---- a component that does a fixed amount of work per step ---- */

static volatile uint64_t burn_sink;

static void burn(uint64_t iterations)
{
    uint64_t x = burn_sink;
    for (uint64_t i = 0; i < iterations; i++)
        x = x * 6364136223846793005u + 1442695040888963407u;
    burn_sink = x;
}

/* Iterations per microsecond, best of a few tries (least disturbed). */
static double calibrate(void)
{
    double best = 0;
    for (int i = 0; i < 5; i++) {
        const uint64_t n = 2000000;
        const int64_t t0 = bench_now_ns();
        burn(n);
        const double per_us = (double)n / ((double)(bench_now_ns() - t0) * 1e-3);
        if (per_us > best)
            best = per_us;
    }
    return best;
}

typedef struct busy {
    rtcosim_component *inner;
    uint64_t iterations;
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
    burn(((busy *)self)->iterations);
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

/* One run: plain when o is NULL. Returns the wall time in s, < 0 on failure. */
static double run_once(double *per_us, rtcosim_order order, unsigned threads,
                       const rtcosim_speculation_options *o, trajectory *tr,
                       rtcosim_speculation_stats *stats)
{
    rtcosim_oscillator_params p;
    rtcosim_oscillator_case(2, &p);
    rtcosim_oscillator_setup s;
    rtcosim_oscillator_setup_init(&s);
    s.order = order;
    s.stop = STEPS * RTCOSIM_NS_PER_MS;
    s.power_bond = false;
    s.threads = threads;
    s.wrap = wrap_busy;
    s.wrap_context = per_us;
    rtcosim_master *m = NULL;
    rtcosim_error err;
    rtcosim_error_clear(&err);
    tr->rows = 0;
    double wall = -1;
    if (rtcosim_oscillator_build(&p, &s, &m, &err) == RTCOSIM_OK &&
        rtcosim_master_initialize(m, 0, s.stop, &err) == RTCOSIM_OK) {
        const int64_t t0 = bench_now_ns();
        rtcosim_status st = o ? rtcosim_master_run_speculative(m, s.stop, o, keep, tr, stats, &err)
                              : rtcosim_master_run(m, s.stop, keep, tr, &err);
        if (st == RTCOSIM_OK)
            wall = (double)(bench_now_ns() - t0) * 1e-9;
    }
    if (wall < 0)
        fprintf(stderr, "rtcosim: bench speculate-cosim: %s\n", err.message);
    rtcosim_master_free(m);
    return wall;
}

static void max_error(const trajectory *a, const trajectory *ref, double *abs_error,
                      double *rel_error)
{
    double worst = 0, amplitude = 0;
    for (size_t i = 0; i < ref->rows && i < a->rows; i++)
        for (int j = 0; j < 2; j++) {
            worst = fmax(worst, fabs(a->x[i][j] - ref->x[i][j]));
            amplitude = fmax(amplitude, fabs(ref->x[i][j]));
        }
    *abs_error = worst;
    *rel_error = amplitude > 0 ? worst / amplitude : 0;
}

int bench_speculate_cosim(FILE *out)
{
    double per_us = calibrate();
    trajectory *plain = calloc(1, sizeof *plain), *exact0 = calloc(1, sizeof *exact0),
               *loose = calloc(1, sizeof *loose), *jacobi = calloc(1, sizeof *jacobi);
    int rc = 1;
    if (!plain || !exact0 || !loose || !jacobi)
        goto done;
    rtcosim_speculation_stats s0[2], s1[2];
    rtcosim_speculation_options o0 = {.threshold = 0, .horizon = 4, .threads = 2};
    rtcosim_speculation_options o1 = {.threshold = THRESHOLD, .horizon = 4, .threads = 2};
    const double w_plain = run_once(&per_us, RTCOSIM_ORDER_GAUSS_SEIDEL, 1, NULL, plain, NULL);
    const double w_jacobi = run_once(&per_us, RTCOSIM_ORDER_JACOBI, 2, NULL, jacobi, NULL);
    const double w0 = run_once(&per_us, RTCOSIM_ORDER_GAUSS_SEIDEL, 1, &o0, exact0, s0);
    const double w1 = run_once(&per_us, RTCOSIM_ORDER_GAUSS_SEIDEL, 1, &o1, loose, s1);
    if (w_plain < 0 || w_jacobi < 0 || w0 < 0 || w1 < 0)
        goto done;
    const bool identical = exact0->rows == plain->rows &&
                           memcmp(exact0->x, plain->x, plain->rows * sizeof plain->x[0]) == 0;
    double abs1, rel1, abs0, rel0;
    max_error(loose, plain, &abs1, &rel1);
    max_error(exact0, plain, &abs0, &rel0);
    fprintf(out,
            "speculate.cosim: oscillator, Gauss-Seidel, H = 1 ms, %d steps; mass2 slow (%.0f us of "
            "work per step), mass1 %.0f us\n", STEPS, SLOW_US, OTHER_US);
    fprintf(out, "  %-34s %9s %8s %10s %9s %12s\n", "run", "wall [s]", "speedup", "rollbacks",
            "reexec", "max |dx| [m]");
    fprintf(out, "  %-34s %9.3f %8.2f %10s %9s %12s\n", "plain Gauss-Seidel (1 thread)", w_plain,
            1.0, "-", "-", "reference");
    fprintf(out, "  %-34s %9.3f %8.2f %10s %9s %12s\n", "plain Jacobi (2 threads, other scheme)",
            w_jacobi, w_plain / w_jacobi, "-", "-", "-");
    fprintf(out, "  %-34s %9.3f %8.2f %10llu %9llu %12.3g%s\n", "speculative Tc = 0 (2 threads)",
            w0, w_plain / w0, (unsigned long long)s0[0].rollbacks,
            (unsigned long long)s0[0].reexecuted_steps, abs0, identical ? " (bit-identical)" : "");
    fprintf(out, "  %-34s %9.3f %8.2f %10llu %9llu %12.3g\n", "speculative Tc = 0.05 N (2 threads)",
            w1, w_plain / w1, (unsigned long long)s1[0].rollbacks,
            (unsigned long long)s1[0].reexecuted_steps, abs1);
    fprintf(out, "speculate.cosim.plain_wall_s %.6g s\n", w_plain);
    fprintf(out, "speculate.cosim.jacobi2_wall_s %.6g s\n", w_jacobi);
    fprintf(out, "speculate.cosim.tc0_wall_s %.6g s\n", w0);
    fprintf(out, "speculate.cosim.tc0_speedup %.6g x\n", w_plain / w0);
    fprintf(out, "speculate.cosim.tc0_identical %d bool\n", identical ? 1 : 0);
    fprintf(out, "speculate.cosim.tc_wall_s %.6g s\n", w1);
    fprintf(out, "speculate.cosim.tc_speedup %.6g x\n", w_plain / w1);
    fprintf(out, "speculate.cosim.tc_threshold %.6g N\n", THRESHOLD);
    fprintf(out, "speculate.cosim.tc_max_abs_error %.6g m\n", abs1);
    fprintf(out, "speculate.cosim.tc_max_rel_error %.6g ratio\n", rel1);
    fprintf(out, "speculate.cosim.tc_rollbacks %llu count\n", (unsigned long long)s1[0].rollbacks);
    fprintf(out, "speculate.cosim.tc_prediction_error_rms %.6g N\n", s1[0].prediction_error_rms);
    fflush(out);
    rc = identical ? 0 : 1;
    if (!identical)
        fprintf(stderr, "rtcosim: bench speculate-cosim: Tc = 0 differs from the plain run\n");
done:
    free(plain);
    free(exact0);
    free(loose);
    free(jacobi);
    return rc;
}

static int run_bench(int argc, char **argv)
{
    (void)argv;
    if (argc > 1) {
        fprintf(stderr, "usage: rtcosim bench speculate-cosim\n");
        return 2;
    }
    return bench_speculate_cosim(stdout);
}

const rtcosim_bench rtcosim_bench_speculate_cosim = {
    "speculate-cosim", "B8 co-simulation case: oscillator with a slow component, speculative vs plain",
    run_bench};
