/* `rtcosim bench me`: cost of model exchange. The Dahlquist FMU (FMI 2.0)
 * integrated by rtcosim over 10 s in 1 ms communication steps with CVODE
 * (rtol 1e-6 and 1e-10) and with explicit Euler (1 ms), and the BouncingBall
 * FMU with CVODE (state events): wall time per do_step, solver steps and
 * derivative evaluations per do_step, and the error against the closed form.
 * Medians over repeats; --quick runs 1 s once. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "rtcosim/fmu.h"
#include "rtcosim/simulate.h"

typedef struct me_case {
    const char *label;
    const char *figure; /* figure name prefix */
    const char *fmu;    /* file name of an example FMU */
    rtcosim_me_solver solver;
    double tolerance;
    rtcosim_time_ns max_step;
} me_case;

typedef struct me_result {
    double ns_per_step, solver_steps_per_step, rhs_per_step, error;
    uint64_t events;
} me_result;

/* One run; the error is |x - e^{-t}| at the end (Dahlquist) or the first
 * impact time's distance from sqrt(2/9.81) s (BouncingBall). */
static int run_once(const me_case *mc, const char *path, rtcosim_time_ns stop, me_result *out)
{
    rtcosim_fmu_options o = {.interface_type = RTCOSIM_FMI_MODEL_EXCHANGE,
                             .solver = mc->solver,
                             .max_solver_step = mc->max_step};
    rtcosim_component *c = NULL;
    rtcosim_error err;
    const rtcosim_time_ns h = RTCOSIM_NS_PER_MS;
    bool ball = strstr(mc->fmu, "BouncingBall") != NULL;
    uint32_t vr = 1;
    double x = 0, first_impact = NAN;
    rtcosim_me_stats s;
    if (rtcosim_fmu_load(path, &o, &c, &err) != RTCOSIM_OK ||
        rtcosim_component_instantiate(c, "bench", &err) != RTCOSIM_OK ||
        rtcosim_component_setup(c, mc->tolerance, 0, -1, &err) != RTCOSIM_OK ||
        rtcosim_component_enter_init(c, &err) != RTCOSIM_OK ||
        rtcosim_component_exit_init(c, &err) != RTCOSIM_OK)
        goto fail;
    int64_t t0 = bench_now_ns();
    for (rtcosim_time_ns t = 0; t < stop; t += h) {
        if (rtcosim_component_do_step(c, t, h, NULL, &err) != RTCOSIM_OK)
            goto fail;
        if (ball && isnan(first_impact) && rtcosim_fmu_me_stats(c, &s, NULL) == RTCOSIM_OK &&
            s.state_events == 1)
            first_impact = s.last_event_time;
    }
    int64_t t1 = bench_now_ns();
    if (rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &vr, 1, &x, &err) != RTCOSIM_OK ||
        rtcosim_fmu_me_stats(c, &s, &err) != RTCOSIM_OK)
        goto fail;
    double steps = (double)(stop / h);
    out->ns_per_step = (double)(t1 - t0) / steps;
    out->solver_steps_per_step = (double)s.solver_steps / steps;
    out->rhs_per_step = (double)s.rhs_evaluations / steps;
    out->events = s.state_events + s.time_events + s.step_events;
    out->error = ball ? fabs(first_impact - sqrt(2.0 / 9.81))
                      : fabs(x - exp(-rtcosim_time_to_seconds(stop)));
    rtcosim_component_free(c);
    return 0;
fail:
    fprintf(stderr, "rtcosim: %s\n", err.message);
    rtcosim_component_free(c);
    return 1;
}

static int run(int argc, char **argv)
{
    bool quick = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = true;
        } else {
            fprintf(strcmp(argv[i], "--help") == 0 ? stdout : stderr,
                    "usage: rtcosim bench me [--quick]\n");
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    const rtcosim_time_ns stop = (quick ? 1 : 10) * RTCOSIM_NS_PER_S;
    const int repeats = quick ? 1 : 5;
    static const me_case cases[] = {
        {"Dahlquist, CVODE rtol 1e-6", "me.dahlquist_cvode", "Dahlquist-fmi2.fmu",
         RTCOSIM_ME_SOLVER_CVODE, 1e-6, 0},
        {"Dahlquist, CVODE rtol 1e-10", "me.dahlquist_cvode_tight", "Dahlquist-fmi2.fmu",
         RTCOSIM_ME_SOLVER_CVODE, 1e-10, 0},
        {"Dahlquist, Euler 1 ms", "me.dahlquist_euler", "Dahlquist-fmi2.fmu",
         RTCOSIM_ME_SOLVER_EULER, 0, RTCOSIM_NS_PER_MS},
        {"BouncingBall, CVODE rtol 1e-8", "me.ball_cvode", "BouncingBall-fmi2.fmu",
         RTCOSIM_ME_SOLVER_CVODE, 1e-8, 0},
    };
    printf("model exchange, 1 ms communication steps over %g s, median of %d\n",
           rtcosim_time_to_seconds(stop), repeats);
    printf("%-30s %12s %14s %12s %8s %12s\n", "case", "ns/step", "solver st/step", "rhs/step",
           "events", "error");
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const me_case *mc = &cases[k];
        char path[4096];
        rtcosim_error err;
        if (rtcosim_example_fmu_path(mc->fmu, path, sizeof path, &err) != RTCOSIM_OK) {
            fprintf(stderr, "rtcosim: %s\n", err.message);
            return 1;
        }
        double ns[16];
        me_result r = {0};
        for (int i = 0; i < repeats; i++) {
            if (run_once(mc, path, stop, &r))
                return 1;
            ns[i] = r.ns_per_step;
        }
        double median = bench_median(ns, (size_t)repeats);
        printf("%-30s %12.0f %14.2f %12.2f %8llu %12.3g\n", mc->label, median,
               r.solver_steps_per_step, r.rhs_per_step, (unsigned long long)r.events, r.error);
        char name[128];
        snprintf(name, sizeof name, "%s.ns_per_step", mc->figure);
        bench_figure(name, median, "ns");
        snprintf(name, sizeof name, "%s.solver_steps_per_step", mc->figure);
        bench_figure(name, r.solver_steps_per_step, "steps");
        snprintf(name, sizeof name, "%s.error", mc->figure);
        bench_figure(name, r.error, strstr(mc->fmu, "Ball") ? "s" : "1");
    }
    return 0;
}

const rtcosim_bench rtcosim_bench_me = {"me", "model exchange: CVODE and Euler cost per step",
                                        run};
