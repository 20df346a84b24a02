/* Benchmark B2 (`rtcosim bench coupling`): coupling accuracy on the two-mass
 * oscillator against the exact solution exp(A t) z0, swept over macro steps,
 * extrapolations (ZOH/FOH/SOH), corrections (none, NEPCE dead time, NEPCE
 * integrator), Jacobi and Gauss-Seidel, and both damping cases. Prints a
 * table, machine lines and writes the sweep as CSV for a log-log plot. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../examples/oscillator/oscillator.h"
#include "bench.h"
#include "rtcosim/plot.h"

typedef struct coupling_variant {
    const char *name;
    rtcosim_extrapolation extrapolation;
    rtcosim_correction correction;
} coupling_variant;

static const coupling_variant variants[] = {
    {"zoh", RTCOSIM_EXTRAPOLATION_ZOH, RTCOSIM_CORRECTION_NONE},
    {"zoh-nepce", RTCOSIM_EXTRAPOLATION_ZOH, RTCOSIM_CORRECTION_DEAD_TIME},
    {"zoh-nepce-int", RTCOSIM_EXTRAPOLATION_ZOH, RTCOSIM_CORRECTION_INTEGRATOR},
    {"foh", RTCOSIM_EXTRAPOLATION_FOH, RTCOSIM_CORRECTION_NONE},
    {"foh-nepce", RTCOSIM_EXTRAPOLATION_FOH, RTCOSIM_CORRECTION_DEAD_TIME},
    {"foh-nepce-int", RTCOSIM_EXTRAPOLATION_FOH, RTCOSIM_CORRECTION_INTEGRATOR},
    {"soh", RTCOSIM_EXTRAPOLATION_SOH, RTCOSIM_CORRECTION_NONE},
    {"soh-nepce", RTCOSIM_EXTRAPOLATION_SOH, RTCOSIM_CORRECTION_DEAD_TIME},
    {"soh-nepce-int", RTCOSIM_EXTRAPOLATION_SOH, RTCOSIM_CORRECTION_INTEGRATOR},
};
#define VARIANTS (sizeof variants / sizeof variants[0])

typedef struct step_size {
    const char *label;
    rtcosim_time_ns ns;
    bool in_sweep; /* false: only probed for the largest stable step */
} step_size;

static const step_size steps[] = {
    {"1e-4", 100000, true},     {"3e-4", 300000, true},     {"1e-3", 1000000, true},
    {"3e-3", 3000000, true},    {"1e-2", 10000000, true},   {"2e-2", 20000000, false},
    {"3e-2", 30000000, false},  {"5e-2", 50000000, false},
};
#define STEPS (sizeof steps / sizeof steps[0])

static const char *const order_names[] = {"jacobi", "gauss-seidel"};

/* Least-squares slope of log(error) over log(H) on the stable sweep points. */
static double convergence_order(const rtcosim_oscillator_result *r)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int n = 0;
    for (size_t s = 0; s < STEPS; s++) {
        if (!steps[s].in_sweep || !r[s].stable || !(r[s].rms_error > 0))
            continue;
        double x = log((double)steps[s].ns * 1e-9), y = log(r[s].rms_error);
        sx += x, sy += y, sxx += x * x, sxy += x * y;
        n++;
    }
    if (n < 2)
        return NAN;
    return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

/* RMS errors of the sweep, kept for the error-over-H plots. */
static double sweep_rms[2][2][VARIANTS][STEPS];

/* One log-log plot of RMS error over H per case and order: a wide CSV (h, then
 * one column per coupling) next to the table, drawn by the plot layer. */
static int write_sweep_plots(const char *table_path, bool quick)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s", table_path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    static const size_t plotted[] = {0, 1, 3, 4, 6, 7}; /* without the integrator variants */
    const size_t n = sizeof plotted / sizeof plotted[0];
    for (int cs = 1; cs <= (quick ? 1 : 2); cs++)
        for (int o = 0; o < 2; o++) {
            char csv_path[600], svg_path[600], title[128];
            snprintf(csv_path, sizeof csv_path, "%s/coupling_case%d_%s.csv", dir, cs, order_names[o]);
            snprintf(svg_path, sizeof svg_path, "%s/coupling_case%d_%s.svg", dir, cs, order_names[o]);
            FILE *f = fopen(csv_path, "w");
            if (!f) {
                fprintf(stderr, "rtcosim: %s: cannot open for writing\n", csv_path);
                return 1;
            }
            fprintf(f, "h");
            for (size_t i = 0; i < n; i++)
                fprintf(f, ",%s", variants[plotted[i]].name);
            fprintf(f, "\n");
            for (size_t s = 0; s < STEPS; s++) {
                if (!steps[s].in_sweep || (quick && steps[s].ns < 1000000))
                    continue;
                fprintf(f, "%s", steps[s].label);
                for (size_t i = 0; i < n; i++)
                    fprintf(f, ",%.6g", sweep_rms[cs - 1][o][plotted[i]][s]);
                fprintf(f, "\n");
            }
            if (fclose(f) != 0) {
                fprintf(stderr, "rtcosim: %s: cannot write\n", csv_path);
                return 1;
            }
            const char *columns[sizeof plotted / sizeof plotted[0]];
            for (size_t i = 0; i < n; i++)
                columns[i] = variants[plotted[i]].name;
            snprintf(title, sizeof title, "B2 case %d, %s: RMS error of x1, x2 over the macro step", cs,
                     order_names[o]);
            rtcosim_plot_options po = {.title = title, .x = "h", .x_label = "macro step H [s]",
                                       .y_label = "RMS error [m]", .log_x = true, .log_y = true};
            rtcosim_error err = {0};
            if (rtcosim_plot_csv(csv_path, columns, n, svg_path, &po, &err) != RTCOSIM_OK) {
                fprintf(stderr, "rtcosim: bench coupling: %s\n", err.message);
                return 1;
            }
            printf("plot written to %s\n", svg_path);
        }
    return 0;
}

/* One FOH + dead-time-correction run of a case, Jacobi; step control at
 * rtol (atol = rtol * 1e-2) when rtol > 0, else fixed H. */
static int foh_run(int cs, rtcosim_time_ns h, double rtol, rtcosim_time_ns stop,
                   rtcosim_oscillator_result *r)
{
    rtcosim_oscillator_params p;
    rtcosim_oscillator_case(cs, &p);
    rtcosim_oscillator_setup setup;
    rtcosim_oscillator_setup_init(&setup);
    setup.stop = stop;
    setup.macro_step = h;
    setup.coupling.extrapolation = RTCOSIM_EXTRAPOLATION_FOH;
    setup.coupling.correction = RTCOSIM_CORRECTION_DEAD_TIME;
    if (rtol > 0) {
        setup.step_control.enabled = true;
        setup.step_control.rtol = rtol;
        setup.step_control.atol = rtol * 1e-2;
    }
    rtcosim_error err = {0};
    if (rtcosim_oscillator_run(&p, &setup, r, &err) != RTCOSIM_OK) {
        fprintf(stderr, "rtcosim: bench coupling: %s\n", err.message);
        return 1;
    }
    return 0;
}

/* The adaptive row: FOH + correction, the loosest tolerance whose RMS error
 * over time (each step weighted by its length; referee exp(At) z0) is within
 * 1.2x of the fixed H = 1e-3 run's, and its steps against that run's. Case 3
 * (dampers 5 N s/m) decays, so the controller can widen the step; case 1
 * (undamped) never quiets: there the adaptive run is set against the fixed
 * runs of at least its accuracy. */
static int adaptive_rows(rtcosim_time_ns stop)
{
    static const double tols[] = {1e-1, 3e-2, 1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 3e-5, 1e-5};
    int failures = 0;
    for (int cs = 3; cs >= 1; cs -= 2) {
        rtcosim_oscillator_result ref, r, best = {0};
        if ((failures += foh_run(cs, 1000000, 0, stop, &ref)))
            return failures;
        printf("\nadaptive macro step, case %d, FOH + dead-time correction, Jacobi; fixed H = 1e-3: "
               "%llu steps, rms %.4g m (over time)\n", cs, (unsigned long long)ref.steps,
               ref.rms_error_time);
        printf("%-8s %10s %12s\n", "rtol", "steps", "rms");
        double best_tol = 0;
        for (size_t i = 0; i < sizeof tols / sizeof *tols; i++) {
            if ((failures += foh_run(cs, 1000000, tols[i], stop, &r)))
                return failures;
            printf("%-8g %10llu %12.4g\n", tols[i], (unsigned long long)r.steps, r.rms_error_time);
            if (r.stable && r.rms_error_time <= 1.2 * ref.rms_error_time) {
                best = r, best_tol = tols[i];
                break;
            }
        }
        char name[160];
        if (best_tol == 0) {
            printf("no tolerance reached the fixed run's accuracy\n");
            continue;
        }
        snprintf(name, sizeof name, "coupling.case%d.adaptive.steps", cs);
        bench_figure(name, (double)best.steps, "steps");
        snprintf(name, sizeof name, "coupling.case%d.adaptive.rms_error", cs);
        bench_figure(name, best.rms_error_time, "m");
        snprintf(name, sizeof name, "coupling.case%d.adaptive.rtol", cs);
        bench_figure(name, best_tol, "");
        snprintf(name, sizeof name, "coupling.case%d.fixed_h1e-3.rms_error", cs);
        bench_figure(name, ref.rms_error_time, "m");
        snprintf(name, sizeof name, "coupling.case%d.adaptive.steps_ratio", cs);
        bench_figure(name, (double)best.steps / (double)ref.steps, "");
        /* The fewest fixed steps that reach the adaptive run's accuracy:
         * the largest fixed H (to 1 us, by bisection over [10 us, 10 ms];
         * the error grows with H) whose run is as accurate. */
        rtcosim_time_ns good = 10000, bad = 10000000;
        uint64_t fixed_steps = 0;
        if ((failures += foh_run(cs, good, 0, stop, &r)))
            return failures;
        if (r.stable && r.rms_error_time <= best.rms_error_time) {
            fixed_steps = r.steps;
            while (bad - good > 1000) {
                rtcosim_time_ns mid = (good + bad) / 2 / 1000 * 1000;
                if ((failures += foh_run(cs, mid, 0, stop, &r)))
                    return failures;
                if (r.stable && r.rms_error_time <= best.rms_error_time)
                    good = mid, fixed_steps = r.steps;
                else
                    bad = mid;
            }
        }
        printf("rtol %g: %llu steps, rms %.4g m; fewest fixed steps as accurate: %llu (H = %g s)\n",
               best_tol, (unsigned long long)best.steps, best.rms_error_time,
               (unsigned long long)fixed_steps, rtcosim_time_to_seconds(good));
        snprintf(name, sizeof name, "coupling.case%d.fixed_equal_accuracy.steps", cs);
        bench_figure(name, (double)fixed_steps, "steps");
        snprintf(name, sizeof name, "coupling.case%d.adaptive_vs_fixed_equal_accuracy", cs);
        bench_figure(name, fixed_steps ? (double)best.steps / (double)fixed_steps : 0, "");
    }
    return failures;
}

static int run_coupling(int argc, char **argv)
{
    bool quick = false;
    const char *csv_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = true;
        else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc)
            csv_path = argv[++i];
        else {
            fprintf(stderr, "usage: rtcosim bench coupling [--quick] [--csv FILE]\n");
            return 2;
        }
    }
    char default_csv[512];
    if (!csv_path) {
        snprintf(default_csv, sizeof default_csv, "%s/coupling.csv", bench_scratch_dir());
        csv_path = default_csv;
    }
    FILE *csv = fopen(csv_path, "w");
    if (!csv) {
        fprintf(stderr, "rtcosim: %s: cannot open for writing\n", csv_path);
        return 1;
    }
    fprintf(csv, "case,order,coupling,h,rms_error,rms_x1,rms_x2,max_x1,max_x2,energy_drift,"
                 "stable,force_error_rms,force_error_max,bond_energy_residual\n");
    rtcosim_time_ns stop = quick ? RTCOSIM_NS_PER_S : 10 * RTCOSIM_NS_PER_S;
    printf("B2 two-mass oscillator, %g s, error of x1 and x2 against exp(A t) z0\n",
           rtcosim_time_to_seconds(stop));
    printf("%-6s %-13s %-14s %-6s %12s %12s %12s %12s %12s\n", "case", "order", "coupling", "H",
           "rms", "max x1", "max x2", "drift", "bond res J");
    int failures = 0;
    for (int cs = 1; cs <= 2; cs++) {
        if (quick && cs == 2)
            break;
        rtcosim_oscillator_params p;
        rtcosim_oscillator_case(cs, &p);
        for (int o = 0; o < 2; o++) {
            rtcosim_oscillator_result zoh[STEPS];
            for (size_t v = 0; v < VARIANTS; v++) {
                rtcosim_oscillator_result res[STEPS];
                memset(res, 0, sizeof res);
                for (size_t s = 0; s < STEPS; s++) {
                    if (quick && steps[s].ns < 1000000)
                        continue;
                    rtcosim_oscillator_setup setup;
                    rtcosim_oscillator_setup_init(&setup);
                    setup.macro_step = steps[s].ns;
                    setup.stop = stop;
                    setup.order = o ? RTCOSIM_ORDER_GAUSS_SEIDEL : RTCOSIM_ORDER_JACOBI;
                    setup.coupling.extrapolation = variants[v].extrapolation;
                    setup.coupling.correction = variants[v].correction;
                    rtcosim_error err = {0};
                    rtcosim_oscillator_result *r = &res[s];
                    if (rtcosim_oscillator_run(&p, &setup, r, &err) != RTCOSIM_OK) {
                        fprintf(stderr, "rtcosim: bench coupling: %s\n", err.message);
                        failures++;
                        continue;
                    }
                    sweep_rms[cs - 1][o][v][s] = r->rms_error;
                    fprintf(csv, "case%d,%s,%s,%s,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%d,%.6g,%.6g,%.6g\n",
                            cs, order_names[o], variants[v].name, steps[s].label, r->rms_error,
                            r->rms_x1, r->rms_x2, r->max_x1, r->max_x2, r->energy_drift, r->stable,
                            r->coupling[2].error_rms, r->coupling[2].error_max,
                            r->bond.energy_residual);
                    if (!steps[s].in_sweep)
                        continue;
                    printf("case%-2d %-13s %-14s %-6s %12.4g %12.4g %12.4g %12.4g %12.4g%s\n", cs,
                           order_names[o], variants[v].name, steps[s].label, r->rms_error,
                           r->max_x1, r->max_x2, r->energy_drift, r->bond.energy_residual,
                           r->stable ? "" : "  unstable");
                    char name[160];
                    snprintf(name, sizeof name, "coupling.case%d.%s.%s.h%s.rms_error", cs,
                             order_names[o], variants[v].name, steps[s].label);
                    bench_figure(name, r->rms_error, "m");
                    snprintf(name, sizeof name, "coupling.case%d.%s.%s.h%s.max_error", cs,
                             order_names[o], variants[v].name, steps[s].label);
                    bench_figure(name, fmax(r->max_x1, r->max_x2), "m");
                    if (cs == 1 && steps[s].ns == 1000000) {
                        snprintf(name, sizeof name, "coupling.case1.%s.%s.energy_drift_h1e-3",
                                 order_names[o], variants[v].name);
                        bench_figure(name, r->energy_drift, "ratio");
                    }
                    if (v > 0 && zoh[s].rms_error > 0) {
                        snprintf(name, sizeof name, "coupling.case%d.%s.%s.h%s.reduction_vs_zoh",
                                 cs, order_names[o], variants[v].name, steps[s].label);
                        bench_figure(name, zoh[s].rms_error / r->rms_error, "x");
                    }
                }
                if (v == 0)
                    memcpy(zoh, res, sizeof zoh);
                char name[160];
                snprintf(name, sizeof name, "coupling.case%d.%s.%s.convergence_order", cs,
                         order_names[o], variants[v].name);
                bench_figure(name, convergence_order(res), "");
                double largest = 0;
                for (size_t s = 0; s < STEPS; s++)
                    if (res[s].stable && res[s].steps > 0 && (double)steps[s].ns * 1e-9 > largest)
                        largest = (double)steps[s].ns * 1e-9;
                snprintf(name, sizeof name, "coupling.case%d.%s.%s.largest_stable_h", cs,
                         order_names[o], variants[v].name);
                bench_figure(name, largest, "s");
            }
        }
    }
    /* Adaptive macro step (PI controller on the coupling error), case 1, Jacobi. */
    printf("\nadaptive macro step, case 1, Jacobi, PI controller (rtol, atol = rtol * 1e-2)\n");
    printf("%-14s %-8s %10s %12s %12s\n", "coupling", "rtol", "steps", "rms", "drift");
    const size_t adaptive_variants[] = {1, 6, 7};
    const double rtols[] = {1e-2, 1e-3};
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 2; j++) {
            const coupling_variant *cv = &variants[adaptive_variants[i]];
            rtcosim_oscillator_params p;
            rtcosim_oscillator_case(1, &p);
            rtcosim_oscillator_setup setup;
            rtcosim_oscillator_setup_init(&setup);
            setup.stop = stop;
            setup.coupling.extrapolation = cv->extrapolation;
            setup.coupling.correction = cv->correction;
            setup.step_control.enabled = true;
            setup.step_control.rtol = rtols[j];
            setup.step_control.atol = rtols[j] * 1e-2;
            rtcosim_oscillator_result r;
            rtcosim_error err = {0};
            if (rtcosim_oscillator_run(&p, &setup, &r, &err) != RTCOSIM_OK) {
                fprintf(stderr, "rtcosim: bench coupling: %s\n", err.message);
                failures++;
                continue;
            }
            printf("%-14s %-8g %10llu %12.4g %12.4g\n", cv->name, rtols[j],
                   (unsigned long long)r.steps, r.rms_error, r.energy_drift);
            char name[160];
            snprintf(name, sizeof name, "coupling.case1.adaptive.%s.rtol%g.steps", cv->name, rtols[j]);
            bench_figure(name, (double)r.steps, "steps");
            snprintf(name, sizeof name, "coupling.case1.adaptive.%s.rtol%g.rms_error", cv->name,
                     rtols[j]);
            bench_figure(name, r.rms_error, "m");
        }
    failures += adaptive_rows(stop);
    if (fclose(csv) != 0) {
        fprintf(stderr, "rtcosim: %s: cannot write\n", csv_path);
        return 1;
    }
    printf("table written to %s\n", csv_path);
    failures += write_sweep_plots(csv_path, quick);
    return failures ? 1 : 0;
}

const rtcosim_bench rtcosim_bench_coupling = {
    "coupling", "B2: coupling accuracy on the two-mass oscillator (ZOH/FOH/SOH, NEPCE correction)",
    run_coupling};
