/* `rtcosim bench master`: the master's own cost per component per macro step,
 * with two trivial native components coupled in a loop and no output. The
 * components' own do_step cost (measured by calling them directly) is
 * subtracted to give the overhead; target under 50 ns. Single-threaded runs
 * are timed in thread CPU time, which a shared, oversubscribed machine
 * distorts far less than wall time; the threaded run in wall time. Then the
 * parallel steps: Jacobi on 1 and 2 threads for components of ~20 us, ~5 us
 * and ~0 per step, a Gauss-Seidel level, and the hand-off per macro step
 * with the pool forced on light components. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>

#include "bench.h"
#include "rtcosim/master.h"
#include "rtcosim/mpi.h"
#include "rtcosim/native.h"

typedef struct pass_data {
    double u, y;
    double work; /* iterations of busy arithmetic per step (heavy variant) */
} pass_data;

static const rtcosim_native_variable pass_vars[] = {
    RTCOSIM_NATIVE_F64(pass_data, u, 0, RTCOSIM_CAUSALITY_INPUT, RTCOSIM_VARIABILITY_CONTINUOUS, 0,
                       NULL, NULL, NULL),
    RTCOSIM_NATIVE_F64(pass_data, y, 1, RTCOSIM_CAUSALITY_OUTPUT, RTCOSIM_VARIABILITY_CONTINUOUS, 0,
                       NULL, NULL, NULL),
    RTCOSIM_NATIVE_F64(pass_data, work, 2, RTCOSIM_CAUSALITY_PARAMETER, RTCOSIM_VARIABILITY_FIXED, 0,
                       NULL, NULL, NULL),
};

static rtcosim_status pass_step(void *data, const rtcosim_native_context *ctx, double t, double h,
                                rtcosim_error *err)
{
    (void)ctx, (void)t, (void)h, (void)err;
    pass_data *d = data;
    double acc = d->u;
    for (int i = 0; i < (int)d->work; i++)
        acc = acc * 0.999999 + 1e-9;
    d->y = 0.5 * acc + 1.0;
    return RTCOSIM_OK;
}

static const rtcosim_native_model pass_model = {
    .name = "bench.pass", .data_size = sizeof(pass_data), .variables = pass_vars,
    .variable_count = 3, .integrator = RTCOSIM_NATIVE_OWN_STEP, .can_handle_variable_step = true,
    .max_input_derivative_order = 2, .step = pass_step,
};

/* The same model as a black box (no input derivatives): its inputs are one
 * value per step, the path an FMU without canInterpolateInputs takes. */
static const rtcosim_native_model black_box_model = {
    .name = "bench.pass.black-box", .data_size = sizeof(pass_data), .variables = pass_vars,
    .variable_count = 3, .integrator = RTCOSIM_NATIVE_OWN_STEP, .can_handle_variable_step = true,
    .max_input_derivative_order = 0, .step = pass_step,
};

static int64_t cpu_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

typedef struct config {
    const char *name;
    rtcosim_order order;
    rtcosim_extrapolation extrapolation;
    rtcosim_correction correction;
    unsigned threads;
    const char *work; /* per-step busy iterations of each component */
    bool black_box;   /* components without input derivatives */
} config;

static const config configs[] = {
    {"jacobi.zoh", RTCOSIM_ORDER_JACOBI, RTCOSIM_EXTRAPOLATION_ZOH, RTCOSIM_CORRECTION_NONE, 1, "0", false},
    {"gauss-seidel.zoh", RTCOSIM_ORDER_GAUSS_SEIDEL, RTCOSIM_EXTRAPOLATION_ZOH, RTCOSIM_CORRECTION_NONE, 1, "0", false},
    {"jacobi.soh-nepce", RTCOSIM_ORDER_JACOBI, RTCOSIM_EXTRAPOLATION_SOH, RTCOSIM_CORRECTION_DEAD_TIME, 1, "0", false},
    {"jacobi.zoh.threads2", RTCOSIM_ORDER_JACOBI, RTCOSIM_EXTRAPOLATION_ZOH, RTCOSIM_CORRECTION_NONE, 2, "0", false},
    {"gauss-seidel.zoh.black-box", RTCOSIM_ORDER_GAUSS_SEIDEL, RTCOSIM_EXTRAPOLATION_ZOH, RTCOSIM_CORRECTION_NONE, 1, "0", true},
    {"jacobi.soh.black-box", RTCOSIM_ORDER_JACOBI, RTCOSIM_EXTRAPOLATION_SOH, RTCOSIM_CORRECTION_NONE, 1, "0", true},
};

/* A parallel run: `comps` components of `work` iterations each. Jacobi: a
 * ring. Gauss-Seidel: a light source feeding the others (one level), the
 * first of them feeding it back. fallback false forces the pool. */
typedef struct par_config {
    rtcosim_order order;
    size_t comps;
    double work;
    unsigned threads;
    bool fallback;
} par_config;

/* Wall ns per macro step of a master run of n macro steps (< 0 on error);
 * plan (256 chars, may be NULL): the run's thread summary. */
static double time_parallel(const par_config *cfg, int64_t n, char *plan)
{
    rtcosim_master *m = NULL;
    rtcosim_error err = {0};
    rtcosim_coupling_options o;
    rtcosim_coupling_options_init(&o);
    o.extrapolation = RTCOSIM_EXTRAPOLATION_ZOH;
    o.correction = RTCOSIM_CORRECTION_NONE;
    double result = -1;
    char name[32], from[40], to[40], work[32];
    bool gs = cfg->order == RTCOSIM_ORDER_GAUSS_SEIDEL;
    if (rtcosim_master_create(RTCOSIM_NS_PER_US, &m, &err) != RTCOSIM_OK)
        goto out;
    for (size_t i = 0; i < cfg->comps + gs; i++) {
        rtcosim_component *c = NULL;
        snprintf(name, sizeof name, "c%zu", i);
        snprintf(work, sizeof work, "%.0f", gs && i == 0 ? 0 : cfg->work);
        snprintf(from, sizeof from, "c%zu.work", i);
        if (rtcosim_native_create_model(&pass_model, &c, &err) != RTCOSIM_OK ||
            rtcosim_master_add_component(m, name, c, 1, &err) != RTCOSIM_OK ||
            rtcosim_master_set_start_value(m, from, work, &err) != RTCOSIM_OK)
            goto out;
    }
    for (size_t i = 0; i < cfg->comps + gs; i++) {
        if (gs) {
            snprintf(from, sizeof from, "c%zu.y", i ? (size_t)0 : (size_t)1);
            snprintf(to, sizeof to, "c%zu.u", i);
        } else {
            snprintf(from, sizeof from, "c%zu.y", i);
            snprintf(to, sizeof to, "c%zu.u", (i + 1) % cfg->comps);
        }
        if (rtcosim_master_connect(m, from, to, &o, &err) != RTCOSIM_OK)
            goto out;
    }
    rtcosim_master_set_order(m, cfg->order);
    if (rtcosim_master_set_threads(m, cfg->threads, &err) != RTCOSIM_OK ||
        rtcosim_master_set_thread_fallback(m, cfg->fallback, &err) != RTCOSIM_OK ||
        rtcosim_master_initialize(m, 0, -1, &err) != RTCOSIM_OK)
        goto out;
    int64_t t0 = bench_now_ns();
    if (rtcosim_master_run(m, n * RTCOSIM_NS_PER_US, NULL, NULL, &err) != RTCOSIM_OK)
        goto out;
    result = (double)(bench_now_ns() - t0) / (double)n;
    if (plan)
        rtcosim_master_describe_parallel(m, plan, 256);
out:
    if (result < 0)
        fprintf(stderr, "rtcosim: bench master: %s\n", err.message);
    rtcosim_master_free(m);
    return result;
}

/* Wall ns per component step of a master run of n macro steps (< 0 on error). */
static double time_master(const config *cfg, int64_t n, bool wall)
{
    rtcosim_master *m = NULL;
    rtcosim_component *a = NULL, *b = NULL;
    rtcosim_error err = {0};
    rtcosim_coupling_options o;
    rtcosim_coupling_options_init(&o);
    o.extrapolation = cfg->extrapolation;
    o.correction = cfg->correction;
    double result = -1;
    const rtcosim_native_model *model = cfg->black_box ? &black_box_model : &pass_model;
    if (rtcosim_master_create(RTCOSIM_NS_PER_US, &m, &err) != RTCOSIM_OK)
        goto out;
    if (rtcosim_native_create_model(model, &a, &err) != RTCOSIM_OK ||
        rtcosim_master_add_component(m, "a", a, 1, &err) != RTCOSIM_OK ||
        rtcosim_native_create_model(model, &b, &err) != RTCOSIM_OK ||
        rtcosim_master_add_component(m, "b", b, 1, &err) != RTCOSIM_OK ||
        rtcosim_master_connect(m, "a.y", "b.u", &o, &err) != RTCOSIM_OK ||
        rtcosim_master_connect(m, "b.y", "a.u", &o, &err) != RTCOSIM_OK ||
        rtcosim_master_set_threads(m, cfg->threads, &err) != RTCOSIM_OK ||
        rtcosim_master_set_start_value(m, "a.work", cfg->work, &err) != RTCOSIM_OK ||
        rtcosim_master_set_start_value(m, "b.work", cfg->work, &err) != RTCOSIM_OK)
        goto out;
    rtcosim_master_set_order(m, cfg->order);
    if (rtcosim_master_initialize(m, 0, -1, &err) != RTCOSIM_OK)
        goto out;
    int64_t (*now)(void) = wall ? bench_now_ns : cpu_now_ns;
    int64_t t0 = now();
    if (rtcosim_master_run(m, n * RTCOSIM_NS_PER_US, NULL, NULL, &err) != RTCOSIM_OK)
        goto out;
    result = (double)(now() - t0) / (double)(2 * n);
out:
    if (result < 0)
        fprintf(stderr, "rtcosim: bench master: %s\n", err.message);
    rtcosim_master_free(m);
    return result;
}

/* The components' own cost: do_step called directly, no exchange. */
static double time_components(int64_t n, const char *work)
{
    rtcosim_component *c[2] = {NULL, NULL};
    double result = -1;
    for (int i = 0; i < 2; i++) {
        if (rtcosim_native_create_model(&pass_model, &c[i], NULL) != RTCOSIM_OK ||
            rtcosim_component_instantiate(c[i], i ? "b" : "a", NULL) != RTCOSIM_OK ||
            rtcosim_component_setup(c[i], 0, 0, -1, NULL) != RTCOSIM_OK ||
            rtcosim_component_enter_init(c[i], NULL) != RTCOSIM_OK)
            goto out;
        const rtcosim_variable *v = rtcosim_component_find_variable(c[i], "work");
        double w = strtod(work, NULL);
        if (!v || rtcosim_component_set(c[i], RTCOSIM_TYPE_FLOAT64, &v->value_reference, 1, &w,
                                        NULL) != RTCOSIM_OK ||
            rtcosim_component_exit_init(c[i], NULL) != RTCOSIM_OK)
            goto out;
    }
    int64_t t0 = cpu_now_ns();
    for (int64_t k = 0; k < n; k++)
        for (int i = 0; i < 2; i++)
            rtcosim_component_do_step(c[i], k * RTCOSIM_NS_PER_US, RTCOSIM_NS_PER_US, NULL, NULL);
    result = (double)(cpu_now_ns() - t0) / (double)(2 * n);
out:
    rtcosim_component_free(c[0]);
    rtcosim_component_free(c[1]);
    return result;
}

/* Sequential and 2-thread runs of one case, alternated so that both see the
 * same load; medians of wall ns per macro step. */
static int speedup_case(const char *label, par_config cfg, int64_t n, int repeats, double *seq,
                        double *par)
{
    double t1[9], t2[9];
    char plan[256] = "";
    for (int r = 0; r < repeats; r++) {
        cfg.threads = 1;
        t1[r] = time_parallel(&cfg, n, NULL);
        cfg.threads = 2;
        t2[r] = time_parallel(&cfg, n, plan);
        if (t1[r] < 0 || t2[r] < 0)
            return 1;
    }
    *seq = bench_median(t1, (size_t)repeats);
    *par = bench_median(t2, (size_t)repeats);
    printf("%-26s %12.2f %12.2f %9.2fx\n", label, *seq * 1e-3, *par * 1e-3, *seq / *par);
    printf("    last 2-thread run: %s\n", plan);
    return 0;
}

static int run_master_bench(int argc, char **argv)
{
    if (rtcosim_mpi_launched()) /* B9: the distributed master's exchange */
        return bench_master_ranks(&pass_model);
    bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    if (argc > 1 && !quick) {
        fprintf(stderr, "usage: rtcosim bench master [--quick]\n");
        return 2;
    }
    int64_t n = quick ? 200000 : 2000000;
    enum { REPEATS = 5 };
    double own[REPEATS];
    for (int r = 0; r < REPEATS; r++)
        own[r] = time_components(n, "0");
    double component_ns = bench_median(own, REPEATS);
    printf("two native components in a loop, %lld macro steps, median of %d runs\n",
           (long long)n, REPEATS);
    printf("%-22s %14s %14s\n", "configuration", "ns/comp/step", "overhead ns");
    printf("%-22s %14.1f %14s\n", "do_step alone", component_ns, "-");
    bench_figure("master.component_do_step_ns", component_ns, "ns");
    for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++) {
        double t[REPEATS];
        for (int r = 0; r < REPEATS; r++)
            if ((t[r] = time_master(&configs[i], configs[i].threads > 1 ? n / 10 : n,
                                    configs[i].threads > 1)) < 0)
                return 1;
        double total = bench_median(t, REPEATS);
        printf("%-22s %14.1f %14.1f\n", configs[i].name, total, total - component_ns);
        char name[128];
        snprintf(name, sizeof name, "master.%s.overhead_ns_per_component_step", configs[i].name);
        bench_figure(name, total - component_ns, "ns");
    }

    /* Parallel steps. The busy loop is calibrated to ~20 us (heavy) and
     * ~5 us (medium) per component step on this machine. */
    double probe = time_components(quick ? 200 : 2000, "20000");
    if (probe <= 0)
        return 1;
    double per_iter = probe / 20000;
    const struct {
        const char *name;
        double us;
        size_t comps;
        rtcosim_order order;
    } cases[] = {
        {"jacobi.heavy", 20, 4, RTCOSIM_ORDER_JACOBI},
        {"jacobi.medium", 5, 4, RTCOSIM_ORDER_JACOBI},
        {"jacobi.light", 0, 4, RTCOSIM_ORDER_JACOBI},
        {"gauss-seidel.heavy", 20, 2, RTCOSIM_ORDER_GAUSS_SEIDEL},
    };
    printf("\nparallel steps, wall time per macro step (us), median of %d alternating runs\n"
           "(Gauss-Seidel: a light source feeding two components of one level)\n", REPEATS);
    printf("%-26s %12s %12s %10s\n", "case (components x cost)", "1 thread", "2 threads",
           "speedup");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        par_config cfg = {cases[i].order, cases[i].comps, cases[i].us * 1e3 / per_iter, 2, true};
        char work[32], label[64];
        snprintf(work, sizeof work, "%.0f", cfg.work);
        double cost = time_components(cases[i].us > 0 ? (quick ? 100 : 1000) : n / 10, work);
        snprintf(label, sizeof label, "%s %zux%.3gus", cases[i].name, cases[i].comps, cost * 1e-3);
        int64_t steps = cases[i].us > 0 ? (quick ? 500 : 4000) : n / 10;
        double seq, par;
        if (speedup_case(label, cfg, steps, REPEATS, &seq, &par))
            return 1;
        char name[128];
        snprintf(name, sizeof name, "master.%s.threads1_us_per_step", cases[i].name);
        bench_figure(name, seq * 1e-3, "us");
        snprintf(name, sizeof name, "master.%s.threads2_us_per_step", cases[i].name);
        bench_figure(name, par * 1e-3, "us");
        snprintf(name, sizeof name, "master.%s.speedup_threads2", cases[i].name);
        bench_figure(name, seq / par, "x");
    }
    /* The hand-off itself: light components with the pool forced (no
     * fallback), against the sequential run of the same system. */
    double hs[REPEATS], hp[REPEATS];
    for (int r = 0; r < REPEATS; r++) {
        par_config cfg = {RTCOSIM_ORDER_JACOBI, 2, 0, 1, false};
        hs[r] = time_parallel(&cfg, n / 10, NULL);
        cfg.threads = 2;
        hp[r] = time_parallel(&cfg, n / 10, NULL);
        if (hs[r] < 0 || hp[r] < 0)
            return 1;
    }
    double handoff = bench_median(hp, REPEATS) - bench_median(hs, REPEATS);
    printf("%-26s %12.2f %12.2f %10s\n", "hand-off (2 light, forced)", bench_median(hs, REPEATS) * 1e-3,
           bench_median(hp, REPEATS) * 1e-3, "-");
    bench_figure("master.handoff_ns_per_step", handoff, "ns");
    return 0;
}

const rtcosim_bench rtcosim_bench_master = {
    "master", "master overhead per component per macro step and parallel speedups",
    run_master_bench};
