/* `rtcosim demo`: the first thing to try after installing. Simulates the
 * example FMUs shipped with rtcosim (BouncingBall, FMI 3.0; Dahlquist, FMI
 * 2.0) briefly, then runs the vehicle example in real time with its
 * transmission non-real-time and deliberately late at times, and prints the
 * timing and estimation summary with the paths of results and plots; needs
 * no file from the user. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "run_serve.h"
#include "signals.h"
#include "rtcosim/fmu.h"
#include "rtcosim/log.h"
#include "rtcosim/plot.h"
#include "rtcosim/results.h"
#include "rtcosim/simulate.h"
#include "rtcosim/system_rt.h"

enum { MAX_SHOWN = 8 };

static void usage(FILE *out)
{
    fprintf(out, "usage: rtcosim demo [--duration S] [-o|--output-dir DIR] [--serve [[HOST:]PORT]]\n\n"
                 "Simulate the example FMUs that come with rtcosim (BouncingBall, FMI 3.0, and\n"
                 "Dahlquist, FMI 2.0), then run the vehicle example (cruise control, 6-speed\n"
                 "automatic) in real time with its transmission on a non-real-time thread that\n"
                 "is deliberately late at times (mean compute time 40 %% of the 1 ms step, 2 %%\n"
                 "of the steps 2-5 ms): the real-time part keeps every deadline on estimates.\n"
                 "Prints the timing and estimation summary, writes results, the real-time\n"
                 "report and plots.\n\n"
                 "  --duration S       wall-clock seconds of the real-time run (default 15)\n"
                 "  -o, --output-dir DIR  where results, report and plots go (default: rtcosim-demo)\n"
                 "  --serve [[HOST:]PORT]  watch and tune the vehicle in the browser while it runs\n"
                 "                     (default port: any free one; the URL is printed and opened\n"
                 "                     with xdg-open when a display is there); the run then lasts\n"
                 "                     60 s unless --duration is given. --serve-token T and\n"
                 "                     --serve-read-only as for rtcosim run\n"
                 "  --help             show this text\n\n"
                 "The FMUs are looked up in $RTCOSIM_FMU_DIR, <bindir>/../share/rtcosim/fmus, the\n"
                 "install prefix and the build tree; the vehicle in $RTCOSIM_EXAMPLES_DIR,\n"
                 "<bindir>/../share/rtcosim/examples, the install prefix and the source tree.\n");
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void print_value(const rtcosim_variable *v, const rtcosim_value *value)
{
    char text[RTCOSIM_FORMAT_MAX];
    switch (v->type) {
    case RTCOSIM_TYPE_FLOAT64: rtcosim_format_double(value->f64, text); break;
    case RTCOSIM_TYPE_FLOAT32: rtcosim_format_float(value->f32, text); break;
    case RTCOSIM_TYPE_BOOLEAN: snprintf(text, sizeof text, "%s", value->b ? "true" : "false"); break;
    case RTCOSIM_TYPE_STRING: printf("%s = \"%s\"", v->name, value->s ? value->s : ""); return;
    default:
        if (v->type == RTCOSIM_TYPE_UINT8 || v->type == RTCOSIM_TYPE_UINT16 ||
            v->type == RTCOSIM_TYPE_UINT32 || v->type == RTCOSIM_TYPE_UINT64)
            rtcosim_format_uint64(value->u64, text);
        else
            rtcosim_format_int64(value->i64, text);
    }
    printf("%s = %s", v->name, text);
}

/* The Dahlquist equation der(x) = -k*x has x(t) = x0*exp(-k*t): show how close
 * the run came. */
static void print_dahlquist_check(const rtcosim_component *c, const rtcosim_variable *const *outs,
                                  const rtcosim_value *values, size_t n, rtcosim_time_ns end)
{
    const rtcosim_variable *k = rtcosim_component_find_variable(c, "k");
    const rtcosim_variable *x0 = rtcosim_component_find_variable(c, "x0");
    if (!k || !x0 || !k->has_start || !x0->has_start || n < 1 || strcmp(outs[0]->name, "x") != 0)
        return;
    double exact = x0->start.f64 * exp(-k->start.f64 * rtcosim_time_to_seconds(end));
    printf("  exact x0*exp(-k*t) = %.6g; relative error %.2g (explicit Euler)\n", exact,
           fabs(values[0].f64 - exact) / fabs(exact));
}

static int demo_one(const char *file_name, const char *output_dir)
{
    char path[4096], out_path[4096];
    rtcosim_error err;
    if (rtcosim_example_fmu_path(file_name, path, sizeof path, &err) != RTCOSIM_OK)
        return cli_fail("demo: %s", err.message);
    rtcosim_component *c = NULL;
    if (rtcosim_fmu_load(path, NULL, &c, &err) != RTCOSIM_OK)
        return cli_fail_error(&err);
    const rtcosim_fmu_info *info = rtcosim_fmu_info_of(c);
    snprintf(out_path, sizeof out_path, "%s/%.*s.csv", output_dir,
             (int)(strlen(file_name) - strlen(".fmu")), file_name);
    rtcosim_simulate_options o = {.start_time = RTCOSIM_SIMULATE_UNSET,
                                  .stop_time = RTCOSIM_SIMULATE_UNSET,
                                  .output_interval = RTCOSIM_SIMULATE_UNSET, .tolerance = -1,
                                  .output_file = out_path};
    rtcosim_simulate_defaults(c, &o);
    const rtcosim_variable *outs[MAX_SHOWN];
    size_t n_out = 0;
    rtcosim_simulate_outputs(c, NULL, 0, outs, MAX_SHOWN, &n_out, NULL);
    rtcosim_value final[MAX_SHOWN];
    rtcosim_simulate_result res = {.final_values = final, .final_capacity = MAX_SHOWN};
    double t0 = now_seconds();
    rtcosim_status st = rtcosim_simulate(c, &o, &res, &err);
    double wall = now_seconds() - t0;
    if (st != RTCOSIM_OK) {
        rtcosim_component_free(c);
        return cli_fail("%s: %s", path, err.message);
    }
    char start[RTCOSIM_FORMAT_MAX], stop[RTCOSIM_FORMAT_MAX], step[RTCOSIM_FORMAT_MAX];
    rtcosim_format_time(o.start_time, start);
    rtcosim_format_time(res.end_time, stop);
    rtcosim_format_time(o.output_interval, step);
    printf("%s (FMI %s): %s s .. %s s, step %s s, %llu steps in %.3g ms; results: %s (%llu rows)\n",
           rtcosim_component_model_name(c), info ? info->fmi_version_text : "?", start, stop, step,
           (unsigned long long)res.steps, wall * 1e3, out_path,
           (unsigned long long)res.rows_written);
    printf("  final: ");
    size_t shown = n_out < MAX_SHOWN ? n_out : MAX_SHOWN;
    for (size_t i = 0; i < shown; i++) {
        printf(i ? ", " : "");
        print_value(outs[i], &final[i]);
    }
    printf("%s\n", n_out > shown ? ", ..." : "");
    print_dahlquist_check(c, outs, final, shown, res.end_time);
    rtcosim_component_free(c);
    return 0;
}

/* --- The vehicle in real time --------------------------------------------------- */

/* The vehicle example's vehicle.ssd: $RTCOSIM_EXAMPLES_DIR, next to the
 * binary when installed (<bindir>/../share/rtcosim/examples), the install
 * prefix, then the source tree (running from the build tree). The build
 * tree's binary prefers the source tree, so that an older installed copy
 * never shadows the one being developed. */
static int find_vehicle(char *out, size_t capacity)
{
    char dirs[4][PATH_MAX];
    size_t n = 0;
    const char *env = getenv("RTCOSIM_EXAMPLES_DIR");
    if (env && *env)
        snprintf(dirs[n++], PATH_MAX, "%s", env);
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    bool in_build_tree = false;
    if (len > 0) {
        exe[len] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = '\0';
        in_build_tree = strcmp(exe, RTCOSIM_DEMO_BUILD_BIN_DIR) == 0;
        if (in_build_tree)
            snprintf(dirs[n++], PATH_MAX, "%s", RTCOSIM_DEMO_SOURCE_EXAMPLES_DIR);
        snprintf(dirs[n++], PATH_MAX, "%.*s/../share/rtcosim/examples", PATH_MAX - 40, exe);
    }
    snprintf(dirs[n++], PATH_MAX, "%s/examples", RTCOSIM_DATADIR);
    if (!in_build_tree)
        snprintf(dirs[n++], PATH_MAX, "%s", RTCOSIM_DEMO_SOURCE_EXAMPLES_DIR);
    for (size_t i = 0; i < n; i++) {
        char candidate[PATH_MAX + 32], resolved[PATH_MAX];
        int w = snprintf(candidate, sizeof candidate, "%s/vehicle/vehicle.ssd", dirs[i]);
        if (w < 0 || (size_t)w >= sizeof candidate || access(candidate, R_OK) != 0)
            continue;
        const char *path = realpath(candidate, resolved) ? resolved : candidate;
        w = snprintf(out, capacity, "%s", path);
        if (w > 0 && (size_t)w < capacity)
            return 0;
    }
    return cli_fail("demo: the vehicle example (vehicle/vehicle.ssd) was not found in %s%s%s%s%s "
                    "(set RTCOSIM_EXAMPLES_DIR)",
                    dirs[0], n > 1 ? ", " : "", n > 1 ? dirs[1] : "", n > 2 ? ", " : "",
                    n > 2 ? dirs[2] : "");
}

static long signal_index(const rtcosim_rt *rt, const char *name)
{
    for (size_t j = 0; j < rtcosim_rt_signal_count(rt); j++)
        if (strcmp(rtcosim_rt_signal_name(rt, j), name) == 0)
            return (long)j;
    return -1;
}

/* A window of 60 ms around the longest lag: the traction force the
 * real-time part used (estimates while the transmission was late) and what
 * the transmission computed for the same instants (the late data). */
static int write_estimate_window(const rtcosim_rt *rt, const char *path, size_t *rows)
{
    *rows = 0;
    long sig = signal_index(rt, "transmission.traction_force");
    size_t frames = rtcosim_rt_frame_count(rt);
    if (sig < 0 || frames == 0)
        return cli_fail("demo: no traction force signal in the real-time log");
    size_t worst = 0;
    for (size_t i = 0; i < frames; i++)
        if (rtcosim_rt_frame_at(rt, i)->lag > rtcosim_rt_frame_at(rt, worst)->lag)
            worst = i;
    size_t first = worst > 40 ? worst - 40 : 0, last = worst + 20 < frames ? worst + 20 : frames - 1;
    FILE *f = fopen(path, "w");
    if (!f)
        return cli_fail("%s: cannot create: %s", path, strerror(errno));
    fprintf(f, "time,used by the real-time part,computed by the transmission\n");
    for (size_t i = first; i <= last; i++) {
        const rtcosim_rt_frame *fr = rtcosim_rt_frame_at(rt, i);
        double used = rtcosim_rt_frame_signals(rt, i)[sig], truth = used;
        if (fr->flags & RTCOSIM_FRAME_ESTIMATED) {
            truth = NAN;
            for (size_t r = 0; r < rtcosim_rt_record_count(rt); r++) {
                const rtcosim_estimate_record *rec = rtcosim_rt_record_at(rt, r);
                if (rec->signal == (uint32_t)sig && rec->te == fr->te)
                    truth = rec->late_value;
            }
        }
        if (isnan(truth))
            continue; /* its late data never came: the run ended first (stopped early) */
        fprintf(f, "%.9g,%.17g,%.17g\n", rtcosim_time_to_seconds(fr->te), used, truth);
        (*rows)++;
    }
    if (fclose(f) != 0)
        return cli_fail("%s: write failed", path);
    return 0;
}

static int plot(const char *csv, const char *const *columns, size_t n, const char *output,
                const char *title, const char *y_label)
{
    rtcosim_error err;
    rtcosim_plot_options po = {.title = title, .y_label = y_label};
    if (rtcosim_plot_csv(csv, columns, n, output, &po, &err) != RTCOSIM_OK)
        return cli_fail_error(&err);
    return 0;
}

/* Opens the live view's URL in the desktop's browser when there is one. */
static void open_browser(const char *url)
{
    if (!getenv("DISPLAY") && !getenv("WAYLAND_DISPLAY"))
        return;
    pid_t pid = fork();
    if (pid == 0) {
        execlp("xdg-open", "xdg-open", url, (char *)NULL);
        _exit(127);
    }
}

static int demo_vehicle(const char *output_dir, double duration, bool virtual_clock,
                        cli_serve *serve)
{
    char ssd[PATH_MAX], results[PATH_MAX], report[PATH_MAX], speed_plot[PATH_MAX],
        window_csv[PATH_MAX], window_plot[PATH_MAX];
    if (find_vehicle(ssd, sizeof ssd) != 0)
        return 1;
    snprintf(results, sizeof results, "%s/vehicle_realtime.csv", output_dir);
    snprintf(report, sizeof report, "%s/realtime", output_dir);
    snprintf(speed_plot, sizeof speed_plot, "%s/vehicle_speed.svg", output_dir);
    snprintf(window_csv, sizeof window_csv, "%s/traction_estimates.csv", output_dir);
    snprintf(window_plot, sizeof window_plot, "%s/traction_estimates.svg", output_dir);
    rtcosim_error err;
    rtcosim_system_desc *desc = NULL;
    if (rtcosim_system_desc_load(ssd, &desc, &err) != RTCOSIM_OK)
        return cli_fail_error(&err);
    static const char *const observed[] = {"scenario.v_set", "body.speed_kmh", "ecu.throttle",
                                           "engine.rpm", "transmission.traction_force"};
    rtcosim_system_rt_options so;
    rtcosim_system_rt_options_init(&so);
    so.rt.start_time = 0;
    so.rt.stop_time = (rtcosim_time_ns)llround(duration * 1e9);
    so.rt.non_realtime = "transmission";
    /* Keep the absolute schedule: a frame that starts late (the machine
     * was busy) is followed at once by the next ones until back on time,
     * so te never drifts from the wall clock. */
    so.rt.overrun = RTCOSIM_OVERRUN_CATCH_UP;
    so.rt.report_dir = report;
    /* Linear extrapolation to start with, at most 5 ms ahead (then held);
     * the error handling system then switches each signal to the order with
     * the lowest recent estimation error, and a jump in the received data (a
     * gear shift) drops the older history so that the slope of a shift is
     * not carried into the next estimates. */
    rtcosim_estimator_spec_parse("foh,adapt=order,horizon=0.005,jump=4", &so.rt.estimator, &err);
    so.build.observe = observed;
    so.build.observe_count = sizeof observed / sizeof observed[0];
    so.output_file = results;
    so.output_interval = 10 * RTCOSIM_NS_PER_MS;
    /* The transmission's compute time per 1 ms step: 40 % of it on average,
     * and 2 % of the steps take 2 to 5 steps (seeded: the same every run). */
    rtcosim_system_rt_delay delay = {.component = "transmission",
                                     .delay = {.seed = 1, .mean_fraction = 0.4,
                                               .late_share = 0.02, .late_min = 2,
                                               .late_max = 5}};
    so.delays = &delay;
    so.delay_count = 1;
    /* As on a rig: the paced thread and the late transmission on CPUs of
     * their own, and, where allowed (root), the paced thread at SCHED_FIFO
     * with its memory locked; the summary then shows the partner isolated. */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (!virtual_clock && cpus >= 2) {
        so.rt.cpu = (int)cpus - 1;
        so.rt.partner_cpu = 0;
    }
    if (!virtual_clock && geteuid() == 0) {
        so.rt.fifo_priority = 80;
        so.rt.lock_memory = true;
        so.rt.cpu_dma_latency_us = 0; /* as cyclictest */
    }
    rtcosim_clock *pacing = NULL, *partner = NULL;
    if (virtual_clock) {
        rtcosim_clock_create_virtual(0, &pacing, NULL);
        rtcosim_clock_create_virtual(0, &partner, NULL);
        so.rt.clock = pacing;
        so.rt.partner_clock = partner;
    }
    char placement[96] = "";
    if (so.rt.cpu >= 0)
        snprintf(placement, sizeof placement, "  threads: paced on CPU %d%s, transmission on CPU %d\n",
                 so.rt.cpu, so.rt.fifo_priority ? " (SCHED_FIFO 80, memory locked)" : "",
                 so.rt.partner_cpu);
    printf("\nVehicle in real time: %s\n"
           "  real-time part (paced, 1 ms frames): scenario, ecu, engine, body\n"
           "  non-real-time part (own thread): transmission, made late on purpose\n"
           "%s  running %.9g s%s ...\n\n",
           ssd, placement, duration, virtual_clock ? " on a virtual clock" : " of wall-clock time");
    fflush(stdout);
    rtcosim_system_rt *srt = NULL;
    int rc = 0;
    if (serve->listen) {
        cli_serve_hook_real_time(serve, &so);
        so.rt.stop_request = &cli_stop_signal; /* the view's stop button */
    }
    rtcosim_status st = rtcosim_system_rt_create(desc, &so, &srt, &err);
    if (st == RTCOSIM_OK && serve->listen) {
        if ((rc = cli_serve_attach_real_time(serve, srt, desc)) != 0)
            goto done;
        open_browser(rtcosim_serve_url(serve->server));
    }
    if (st == RTCOSIM_OK)
        st = rtcosim_system_rt_run(srt, &err);
    if (st != RTCOSIM_OK) {
        rc = cli_fail_error(&err);
        goto done;
    }
    const rtcosim_rt *rt = rtcosim_system_rt_executor(srt);
    rtcosim_rt_print_summary(rt, stdout);
    if ((rc = cli_serve_finish_real_time(serve, srt, results, report)) != 0)
        goto done;
    if (rtcosim_rt_frame_count(rt) == 0) { /* the view's stop came first: a stop, no failure */
        printf("\nstopped before the first real-time frame: nothing to plot\n");
        goto done;
    }
    const double *final = rtcosim_system_rt_last_values(srt);
    printf("  at %.9g s: set speed %.1f km/h, speed %.2f km/h, throttle %.3f\n", duration,
           final[0], final[1], final[2]);
    size_t window_rows = 0;
    if ((rc = write_estimate_window(rt, window_csv, &window_rows)) != 0)
        goto done;
    static const char *const speed_cols[] = {"scenario.v_set", "body.speed_kmh"};
    if ((rc = plot(results, speed_cols, 2, speed_plot,
                   "Vehicle in real time, transmission non-real-time and late at times",
                   "speed [km/h]")) != 0 ||
        (window_rows &&
         (rc = plot(window_csv, NULL, 0, window_plot,
                    "Traction force around the longest lag: estimates vs late data",
                    "traction force [N]")) != 0))
        goto done;
    if (!window_rows) /* stopped (live view) before any late data came */
        snprintf(window_plot, sizeof window_plot, "(no estimate compared: the run ended first)");
    printf("\nresults:  %s (%llu rows)\n"
           "report:   %s/ (summary.csv, frames.csv, overruns.csv, estimates.csv, "
           "estimators.csv)\n"
           "plots:    %s\n"
           "          %s (data: %s)\n"
           "          %s/timing.svg (frame lateness and execution time)\n",
           results, (unsigned long long)rtcosim_system_rt_rows_written(srt), report, speed_plot,
           window_plot, window_csv, report);
done:
    cli_serve_close(serve);
    rtcosim_system_rt_free(srt);
    rtcosim_system_desc_free(desc);
    rtcosim_clock_free(pacing);
    rtcosim_clock_free(partner);
    return rc;
}

static int run_demo(int argc, char **argv)
{
    const char *output_dir = "rtcosim-demo";
    double duration = 15;
    bool virtual_clock = false; /* hidden: deterministic runs for the tests */
    bool duration_given = false;
    static cli_serve serve; /* --serve: the live view (run_serve.c) */
    memset(&serve, 0, sizeof serve);
    int served;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--virtual-clock") == 0) {
            virtual_clock = true;
        } else if (strcmp(argv[i], "--duration") == 0) {
            char *end = NULL;
            if (i + 1 >= argc)
                return cli_fail("demo: option --duration needs seconds");
            duration = strtod(argv[++i], &end);
            if (end == argv[i] || *end || !(duration >= 0.1) || duration > 3600)
                return cli_fail("demo: --duration '%s' is not a number of seconds in [0.1, 3600]",
                                argv[i]);
            /* Whole milliseconds: the frames are 1 ms. */
            duration = round(duration * 1e3) / 1e3;
            duration_given = true;
        } else if (strcmp(argv[i], "--serve") == 0 &&
                   (i + 1 >= argc || argv[i + 1][0] == '-')) {
            serve.listen = "127.0.0.1:0"; /* --serve alone: any free port */
        } else if ((served = cli_serve_option(&serve, argc, argv, &i)) != 0) {
            if (served < 0)
                return CLI_EXIT_USAGE;
        } else if (strcmp(argv[i], "--output-dir") == 0 || strcmp(argv[i], "-o") == 0) {
            if (i + 1 >= argc)
                return cli_fail("demo: option --output-dir needs a directory");
            output_dir = argv[++i];
        } else {
            return cli_fail("demo: unknown argument '%s' (see rtcosim demo --help)", argv[i]);
        }
    }
    if (cli_serve_check(&serve))
        return CLI_EXIT_USAGE;
    if (serve.listen && !duration_given)
        duration = 60; /* time to watch and tune */
    if (mkdir(output_dir, 0777) != 0 && errno != EEXIST)
        return cli_fail("%s: cannot create the results directory: %s", output_dir, strerror(errno));
    printf("rtcosim demo: the example FMUs with their default experiments\n\n");
    static const char *const fmus[] = {"BouncingBall-fmi3.fmu", "Dahlquist-fmi2.fmu"};
    for (size_t i = 0; i < sizeof fmus / sizeof fmus[0]; i++)
        if (demo_one(fmus[i], output_dir) != 0)
            return 1;
    if (demo_vehicle(output_dir, duration, virtual_clock, &serve) != 0)
        return 1;
    printf("\nNext: `rtcosim run SYSTEM.ssd --real-time --help` for your own systems;\n"
           "`rtcosim info FMU` lists an FMU's variables.\n");
    return 0;
}

const rtcosim_cli_command rtcosim_cli_cmd_demo = {
    "demo", "simulate the example FMUs, then run the vehicle example in real time", run_demo};
