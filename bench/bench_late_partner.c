/* B4 `rtcosim bench late-partner`: a real-time part (setpoint + first-order
 * plant, H = 1 ms) coupled to a non-real-time PI controller whose compute
 * time per step is drawn from a seeded distribution (mean 40 % of H, 5 % of
 * steps 2-5 H). The wall-clock run gives deadline misses, the share of
 * estimated steps, resynchronization and the error of the coupled signals
 * against the same system without delay, and a control run with the partner
 * on time gives the machine's own overrun rate; each overrun is classified
 * (late wake-up, execution, backlog) and counted against the partner only
 * when its doing (realtime.h). Deterministic virtual-clock runs with the
 * same delays compare the estimators with and without adaptation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "cyclictest.h"
#include "rtcosim/realtime.h"

/* Light models from bench_realtime.c. */
rtcosim_component *rt_bench_model(const char *which);
int rt_bench_start(rtcosim_component *c, const char *name);

/* setpoint.r -> controller.r, plant.x -> controller.x, controller.u -> plant.u */
static const rtcosim_rt_connection connections[] = {
    {.from_component = 0, .from_vr = 2, .to_component = 2, .to_vr = 2},
    {.from_component = 1, .from_vr = 1, .to_component = 2, .to_vr = 1},
    {.from_component = 2, .from_vr = 0, .to_component = 1, .to_vr = 0},
};

#define SEED 20261121u

typedef struct run_result {
    double *trace; /* frames x signals (controller.u, setpoint.r, plant.x) */
    size_t frames, signals;
    rtcosim_rt_summary summary;
    rtcosim_estimator_stats stats;
    double lateness_p99_us, lateness_max_us;
    double error_median; /* median |estimation error| of the resolved estimates */
    bool fifo;
} run_result;

/* One run: real (monotonic clocks, partner thread) or virtual; delayed or
 * not; with the estimator spec given. */
static int run_system(bool real, bool delayed, const rtcosim_estimator_spec *spec,
                      double seconds, int fifo, const char *report, run_result *out)
{
    memset(out, 0, sizeof *out);
    rtcosim_clock *clock = NULL, *partner_clock = NULL;
    rtcosim_error err;
    int rc = 1;
    rtcosim_component *comps[3] = {rt_bench_model("setpoint"), rt_bench_model("plant"), NULL};
    rtcosim_rt *rt = NULL;
    if (real ? rtcosim_clock_create_monotonic(0, &clock, &err)
             : (rtcosim_clock_create_virtual(0, &clock, &err) ||
                rtcosim_clock_create_virtual(0, &partner_clock, &err)))
        goto done;
    static const rtcosim_time_ns no_delay[] = {0};
    rtcosim_delay_options d = {.clock = real ? clock : partner_clock, .seed = SEED,
                               .mean_fraction = 0.4, .late_share = 0.05, .late_min = 2,
                               .late_max = 5};
    if (!delayed)
        d.schedule = no_delay, d.schedule_length = 1;
    rtcosim_component *controller = rt_bench_model("controller");
    if (!controller || rtcosim_delay_wrap(controller, &d, &comps[2], &err) != RTCOSIM_OK)
        goto done;
    if (!comps[0] || !comps[1] || rt_bench_start(comps[0], "setpoint") ||
        rt_bench_start(comps[1], "plant") || rt_bench_start(comps[2], "controller"))
        goto done;
    rtcosim_rt_options o;
    rtcosim_rt_options_init(&o);
    o.clock = clock;
    o.partner_clock = partner_clock;
    o.stop_time = (rtcosim_time_ns)llround(seconds * 1000) * RTCOSIM_NS_PER_MS;
    o.overrun = RTCOSIM_OVERRUN_CATCH_UP;
    o.non_realtime = "controller";
    o.estimator = *spec;
    o.frame_log = 100000000;
    o.partner_timeout = 0; /* the delays are bounded: never declare it lost */
    o.queue_capacity = 4096;
    o.fifo_priority = real ? fifo : 0;
    o.lock_memory = real; /* no page faults on the paced thread */
    o.cpu_dma_latency_us = real ? 0 : -1; /* as cyclictest */
    /* The paced thread and the partner on CPUs of their own, so that the
     * partner's computing never shares the paced thread's core. */
    if (real && sysconf(_SC_NPROCESSORS_ONLN) >= 2) {
        o.cpu = 1;
        o.partner_cpu = 0;
    }
    if (rtcosim_rt_create(comps, 3, connections, 3, &o, &rt, &err) != RTCOSIM_OK ||
        rtcosim_rt_run(rt, &err) != RTCOSIM_OK)
        goto done;
    if (report && rtcosim_rt_write_report(rt, report, &err) != RTCOSIM_OK)
        goto done;
    out->frames = rtcosim_rt_frame_count(rt);
    out->signals = rtcosim_rt_signal_count(rt);
    out->trace = malloc(out->frames * out->signals * sizeof(double) + 1);
    if (!out->trace) {
        rtcosim_error_set(&err, RTCOSIM_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < out->frames; i++)
        memcpy(out->trace + i * out->signals, rtcosim_rt_frame_signals(rt, i),
               out->signals * sizeof(double));
    size_t records = rtcosim_rt_record_count(rt), resolved = 0;
    double *errors = malloc((records + 1) * sizeof(double));
    for (size_t i = 0; errors && i < records; i++) {
        double e = rtcosim_rt_record_at(rt, i)->error;
        if (!isnan(e))
            errors[resolved++] = fabs(e);
    }
    out->error_median = errors && resolved ? bench_median(errors, resolved) : 0;
    free(errors);
    out->summary = *rtcosim_rt_get_summary(rt);
    out->fifo = out->summary.fifo_applied;
    rtcosim_estimator_get_stats(rtcosim_rt_estimator(rt, 0), &out->stats);
    out->lateness_p99_us = (double)rtcosim_histogram_percentile(rtcosim_rt_lateness(rt), 99) / 1e3;
    out->lateness_max_us = (double)rtcosim_rt_lateness(rt)->max / 1e3;
    rc = 0;
done:
    if (rc)
        fprintf(stderr, "rtcosim: bench late-partner: %s\n", err.message);
    rtcosim_rt_free(rt);
    for (int i = 0; i < 3; i++)
        rtcosim_component_free(comps[i]);
    rtcosim_clock_free(clock);
    rtcosim_clock_free(partner_clock);
    return rc;
}

/* RMS over frames of the difference to the reference, for one signal or
 * (signal < 0) pooled over the coupled signals u and x. */
static double rms_against(const run_result *r, const run_result *ref, int signal)
{
    size_t n = r->frames < ref->frames ? r->frames : ref->frames;
    double sum = 0;
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t s = 0; s < r->signals; s++) {
            if (signal >= 0 ? (int)s != signal : s == 1) /* r is the same in both runs */
                continue;
            double e = r->trace[i * r->signals + s] - ref->trace[i * ref->signals + s];
            sum += e * e;
            count++;
        }
    return count ? sqrt(sum / (double)count) : 0;
}

/* The P part of the controller as a 2-D characteristic map u(r, x) =
 * kp (r - x) on a 9 x 9 grid; it ignores the integral state, as a map
 * measured on a test bench would. */
static int write_map(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "# controller output u = 4 (r - x): P part of the PI controller\n");
    fprintf(f, "setpoint.r\\plant.x");
    for (int c = 0; c <= 8; c++)
        fprintf(f, ",%g", -2.0 + 0.5 * c);
    fputc('\n', f);
    for (int r = 0; r <= 8; r++) {
        double rv = -2.0 + 0.5 * r;
        fprintf(f, "%g", rv);
        for (int c = 0; c <= 8; c++)
            fprintf(f, ",%g", 4 * (rv - (-2.0 + 0.5 * c)));
        fputc('\n', f);
    }
    return fclose(f);
}

static int usage(int code)
{
    fprintf(code ? stderr : stdout,
            "usage: rtcosim bench late-partner [--quick] [--duration SECONDS] [--estimator SPEC]\n"
            "                                  [--no-fifo] [--report DIR] [--no-cyclictest]\n"
            "  wall-clock run of 60 s (--quick: 5 s) plus virtual-clock estimator comparison;\n"
            "  SPEC: zoh|foh|soh|map:FILE[,modifiers] (default foh,jump=8,horizon=0.005,\n"
            "  adapt=order). Right before the wall-clock run, cyclictest (Debian rt-tests)\n"
            "  runs as long on the paced thread's CPU and priority, if installed.\n");
    return code;
}

static int run(int argc, char **argv)
{
    double seconds = 60;
    const char *spec_text = "foh,jump=8,horizon=0.005,adapt=order";
    const char *report = NULL;
    int fifo = 80;
    bool with_cyclictest = true;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            seconds = 5;
        else if (strcmp(argv[i], "--no-fifo") == 0)
            fifo = 0;
        else if (strcmp(argv[i], "--no-cyclictest") == 0)
            with_cyclictest = false;
        else if (strcmp(argv[i], "--duration") == 0 && i + 1 < argc) {
            char *end;
            seconds = strtod(argv[++i], &end);
            if (*end || !(seconds >= 0.01) || seconds > 86400) {
                fprintf(stderr, "rtcosim: --duration '%s' must be 0.01..86400 seconds\n", argv[i]);
                return 1;
            }
        } else if (strcmp(argv[i], "--estimator") == 0 && i + 1 < argc)
            spec_text = argv[++i];
        else if (strcmp(argv[i], "--report") == 0 && i + 1 < argc)
            report = argv[++i];
        else if (strcmp(argv[i], "--help") == 0)
            return usage(0);
        else {
            fprintf(stderr, "rtcosim: bench late-partner: unknown option '%s'\n", argv[i]);
            return usage(1);
        }
    }
    rtcosim_estimator_spec spec;
    rtcosim_error err;
    if (rtcosim_estimator_spec_parse(spec_text, &spec, &err) != RTCOSIM_OK) {
        fprintf(stderr, "rtcosim: %s\n", err.message);
        return 1;
    }
    char map_path[RTCOSIM_ESTIMATOR_PATH_MAX - 64];
    snprintf(map_path, sizeof map_path, "%s/controller-map.csv", bench_scratch_dir());
    if (write_map(map_path)) {
        fprintf(stderr, "rtcosim: %s: cannot write the map\n", map_path);
        return 1;
    }

    printf("B4 late non-real-time partner: setpoint + plant real-time at 1 ms, PI controller\n"
           "non-real-time with compute time mean 40 %% of H, 5 %% of steps 2-5 H (seed %u), "
           "%.0f s\n\n",
           SEED, seconds);
    bench_print_load();
    rtcosim_estimator_spec none;
    rtcosim_estimator_spec_init(&none);
    run_result ref, live;
    if (run_system(false, false, &none, seconds, 0, NULL, &ref))
        return 1;
    char live_dir[4200];
    if (report)
        snprintf(live_dir, sizeof live_dir, "%s/wall-clock", report);
    /* the floor right before the wall-clock run, on its CPU and priority */
    bench_cyclictest floor;
    bool have_floor = with_cyclictest &&
                      bench_cyclictest_floor(sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? 1 : -1, fifo,
                                             1e-3, seconds, &floor);
    if (run_system(true, true, &spec, seconds, fifo, report ? live_dir : NULL, &live)) {
        free(ref.trace);
        return 1;
    }
    /* Control: the same wall-clock run with the partner on time, for the
     * machine's own rate of overruns (wake-up stalls of the paced thread). */
    run_result control;
    if (run_system(true, false, &spec, seconds, fifo, NULL, &control)) {
        free(ref.trace);
        free(live.trace);
        return 1;
    }
    const rtcosim_rt_summary *s = &live.summary;
    double share = s->exchanges ? (double)s->estimated_exchanges / (double)s->exchanges : 0;
    double rms = rms_against(&live, &ref, -1);
    printf("wall-clock run (estimator %s, %s):\n", spec_text,
           live.fifo ? "real-time thread SCHED_FIFO 80" : "normal scheduling");
    printf("  frames %llu, lateness p99 %.1f us, max %.1f us\n", (unsigned long long)s->frames,
           live.lateness_p99_us, live.lateness_max_us);
    printf("  overruns %llu: late wake-up %llu, execution %llu, backlog %llu; while the partner "
           "was late %llu\n",
           (unsigned long long)s->overruns, (unsigned long long)s->overruns_wakeup,
           (unsigned long long)s->overruns_execution, (unsigned long long)s->overruns_backlog,
           (unsigned long long)s->overruns_while_late);
    printf("  real-time misses caused by the partner: %llu (paced thread %s)\n",
           (unsigned long long)s->overruns_partner,
           s->partner_isolated ? "isolated from it by SCHED_FIFO or its own CPU"
                               : "NOT isolated: its late wake-ups while the partner was late count");
    printf("  control run, partner on time: overruns %llu (late wake-up %llu, execution %llu, "
           "backlog %llu), lateness p99 %.1f us, max %.1f us\n",
           (unsigned long long)control.summary.overruns,
           (unsigned long long)control.summary.overruns_wakeup,
           (unsigned long long)control.summary.overruns_execution,
           (unsigned long long)control.summary.overruns_backlog, control.lateness_p99_us,
           control.lateness_max_us);
    printf("  estimated exchanges %llu of %llu (%.2f %%), late episodes %llu, longest lag %.1f ms\n",
           (unsigned long long)s->estimated_exchanges, (unsigned long long)s->exchanges,
           100 * share, (unsigned long long)s->late_episodes, (double)s->max_lag / 1e6);
    printf("  resynchronization: median %llu, max %llu steps\n",
           (unsigned long long)s->resync_frames_median, (unsigned long long)s->resync_frames_max);
    printf("  RMS error against the undelayed run: u %.4g, x %.4g, pooled %.4g\n",
           rms_against(&live, &ref, 0), rms_against(&live, &ref, 2), rms);
    printf("  estimation error of controller.u: median %.4g, rms %.4g, max %.4g\n\n",
           live.error_median, live.stats.rms_error, live.stats.max_abs_error);

    /* Deterministic comparison of the estimators on the virtual clock:
     * plain, with the safeguards (jump detection, 5 ms horizon), with the
     * safeguards plus order adaptation, and plus bias correction too. */
    static const char *const kinds[] = {"zoh", "foh", "soh", "map"};
    static const struct {
        const char *label, *suffix, *figure;
    } configs[] = {
        {"plain", "", ""},
        {"guarded", ",jump=8,horizon=0.005", "_guarded"},
        {"adaptive", ",jump=8,horizon=0.005,adapt=order", "_adaptive"},
        {"adapt+bias", ",jump=8,horizon=0.005,adapt=order+bias", "_adaptive_bias"},
    };
    printf("virtual-clock runs, same delays (deterministic):\n");
    printf("%-6s %-10s %10s %13s %13s %13s %13s\n", "kind", "config", "estimated", "est. err p50",
           "est. err rms", "est. err max", "RMS vs ref");
    for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++)
        for (int k = 0; k < 4; k++) {
            char text[RTCOSIM_ESTIMATOR_PATH_MAX];
            snprintf(text, sizeof text, "%s%s%s", k == 3 ? "map:" : kinds[k],
                     k == 3 ? map_path : "", configs[c].suffix);
            rtcosim_estimator_spec v;
            run_result r;
            if (rtcosim_estimator_spec_parse(text, &v, &err) != RTCOSIM_OK) {
                fprintf(stderr, "rtcosim: %s\n", err.message);
                free(ref.trace);
                free(live.trace);
                free(control.trace);
                return 1;
            }
            char dir[4200];
            if (report)
                snprintf(dir, sizeof dir, "%s/virtual-%s-%s", report, kinds[k], configs[c].label);
            if (run_system(false, true, &v, seconds, 0, report ? dir : NULL, &r)) {
                free(ref.trace);
                free(live.trace);
                free(control.trace);
                return 1;
            }
            double share_v = r.summary.exchanges ? (double)r.summary.estimated_exchanges /
                                                       (double)r.summary.exchanges
                                                 : 0;
            printf("%-6s %-10s %9.2f%% %13.4g %13.4g %13.4g %13.4g\n", kinds[k], configs[c].label,
                   100 * share_v, r.error_median, r.stats.rms_error, r.stats.max_abs_error,
                   rms_against(&r, &ref, -1));
            char name[64];
            snprintf(name, sizeof name, "late-partner.est_rms_%s%s", kinds[k], configs[c].figure);
            bench_figure(name, r.stats.rms_error, "");
            snprintf(name, sizeof name, "late-partner.est_p50_%s%s", kinds[k], configs[c].figure);
            bench_figure(name, r.error_median, "");
            free(r.trace);
        }
    printf("\n");
    bench_figure("late-partner.rt_misses", (double)s->overruns_partner, "count");
    bench_figure("late-partner.rt_overruns", (double)s->overruns, "count");
    bench_figure("late-partner.rt_overruns_wakeup", (double)s->overruns_wakeup, "count");
    bench_figure("late-partner.rt_overruns_execution", (double)s->overruns_execution, "count");
    bench_figure("late-partner.rt_overruns_while_late", (double)s->overruns_while_late, "count");
    bench_figure("late-partner.control_overruns", (double)control.summary.overruns, "count");
    if (have_floor) {
        bench_cyclictest_figures("late-partner", &floor, live.lateness_p99_us);
        bench_figure("late-partner.rt_overruns_over_cyclictest_late",
                     bench_ratio((double)s->overruns, (double)floor.late), "ratio");
    }
    bench_figure("late-partner.estimated_share", share, "");
    bench_figure("late-partner.resync_steps_median", (double)s->resync_frames_median, "steps");
    bench_figure("late-partner.resync_steps_max", (double)s->resync_frames_max, "steps");
    bench_figure("late-partner.rms_error", rms, "");
    bench_figure("late-partner.rms_error_u", rms_against(&live, &ref, 0), "");
    bench_figure("late-partner.rms_error_x", rms_against(&live, &ref, 2), "");
    bench_figure("late-partner.est_rms", live.stats.rms_error, "");
    free(ref.trace);
    free(live.trace);
    free(control.trace);
    remove(map_path);
    return 0;
}

const rtcosim_bench rtcosim_bench_late_partner = {
    "late-partner", "B4: real-time plant with a late non-real-time partner; estimates, resync",
    run};
