/* `rtcosim bench master`: the master's own cost per component per macro step,
 * with two trivial native components coupled in a loop and no output. The
 * components' own do_step cost (measured by calling them directly) is
 * subtracted to give the overhead; target under 50 ns. Single-threaded runs
 * are timed in thread CPU time, which a shared, oversubscribed machine
 * distorts far less than wall time; the threaded run in wall time. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <time.h>

#include "bench.h"
#include "rtcosim/master.h"
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

/* Components doing about 20 us of arithmetic per step: where the pool pays. */
static const config heavy[] = {
    {"jacobi.heavy.threads1", RTCOSIM_ORDER_JACOBI, RTCOSIM_EXTRAPOLATION_ZOH, RTCOSIM_CORRECTION_NONE, 1, "20000", false},
    {"jacobi.heavy.threads2", RTCOSIM_ORDER_JACOBI, RTCOSIM_EXTRAPOLATION_ZOH, RTCOSIM_CORRECTION_NONE, 2, "20000", false},
};

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
static double time_components(int64_t n)
{
    rtcosim_component *c[2] = {NULL, NULL};
    double result = -1;
    for (int i = 0; i < 2; i++) {
        if (rtcosim_native_create_model(&pass_model, &c[i], NULL) != RTCOSIM_OK ||
            rtcosim_component_instantiate(c[i], i ? "b" : "a", NULL) != RTCOSIM_OK ||
            rtcosim_component_setup(c[i], 0, 0, -1, NULL) != RTCOSIM_OK ||
            rtcosim_component_enter_init(c[i], NULL) != RTCOSIM_OK ||
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

static int run_master_bench(int argc, char **argv)
{
    bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    if (argc > 1 && !quick) {
        fprintf(stderr, "usage: rtcosim bench master [--quick]\n");
        return 2;
    }
    int64_t n = quick ? 200000 : 2000000;
    enum { REPEATS = 5 };
    double own[REPEATS];
    for (int r = 0; r < REPEATS; r++)
        own[r] = time_components(n);
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
    double wall[2];
    for (int i = 0; i < 2; i++) {
        double t[REPEATS];
        for (int r = 0; r < REPEATS; r++)
            if ((t[r] = time_master(&heavy[i], quick ? 200 : 2000, true)) < 0)
                return 1;
        wall[i] = bench_median(t, REPEATS);
        printf("%-22s %14.1f %14s  (wall)\n", heavy[i].name, wall[i], "-");
    }
    bench_figure("master.jacobi.heavy.speedup_threads2", wall[0] / wall[1], "x");
    return 0;
}

const rtcosim_bench rtcosim_bench_master = {
    "master", "master overhead per component per macro step (two native components, no output)",
    run_master_bench};
