/* `rtcosim bench soak`: long runs must not grow. The multi-ECU vehicle on the
 * event kernel (conservative scheduler, 2 threads) for 24 h of simulated
 * time, and B4's real-time system with its late partner for 10 min of wall
 * time (without B4's per-frame traces: see run_late_partner); each beside
 * a short run of the same (10 s simulated, 5 s of wall time). Every run is a child process of its own, so that its peak memory is
 * its own: peak RSS, open file descriptors and threads at the end of the
 * short run ("start") and of the long one ("end"). Targets: equal. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../examples/ecus/vehicle.h"
#include "bench.h"
#include "rtcosim/realtime.h"

/* Light models from bench_realtime.c. */
rtcosim_component *rt_bench_model(const char *which);
int rt_bench_start(rtcosim_component *c, const char *name);

typedef struct soak_usage {
    double peak_rss_mib, wall_s;
    long fds, threads;
    int status; /* 0: the run succeeded */
} soak_usage;

static long open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    long n = 0;
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n - 1; /* the directory stream's own descriptor */
}

static long threads(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long n = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "Threads:", 8) == 0)
            n = strtol(line + 8, NULL, 10);
    if (f)
        fclose(f);
    return n;
}

static int run_vehicle(double seconds)
{
    rtcosim_ecu_vehicle_config vc = {.ecus = 4};
    rtcosim_run_options ro = {.scheduler = RTCOSIM_SCHEDULER_CONSERVATIVE, .threads = 2,
                              .stop_time = (rtcosim_time_ns)(seconds * 1e9)};
    rtcosim_events *sim = NULL;
    rtcosim_ecu_vehicle *v = NULL;
    rtcosim_error err = {0};
    int rc = rtcosim_events_create(&sim, &err) != RTCOSIM_OK ||
             rtcosim_ecu_vehicle_build(sim, &vc, &v, &err) != RTCOSIM_OK ||
             rtcosim_events_run(sim, &ro, NULL, &err) != RTCOSIM_OK;
    if (rc)
        fprintf(stderr, "rtcosim: bench soak: vehicle: %s\n", err.message);
    rtcosim_ecu_vehicle_free(v);
    rtcosim_events_free(sim);
    return rc;
}

/* B4's system (bench_late_partner.c): setpoint + plant paced at H = 1 ms,
 * the PI controller as the late partner (compute 40 % of H on average, 5 %
 * of its steps 2-5 H), on the monotonic clock. Not B4 itself: B4 keeps every
 * frame of three runs to compare them, which grows with the run by design;
 * a soak run keeps what a long run would (no frame log, a fixed budget of
 * estimate records), so that any growth left is the executor's own. */
static const rtcosim_rt_connection soak_connections[] = {
    {.from_component = 0, .from_vr = 2, .to_component = 2, .to_vr = 2},
    {.from_component = 1, .from_vr = 1, .to_component = 2, .to_vr = 1},
    {.from_component = 2, .from_vr = 0, .to_component = 1, .to_vr = 0},
};

static int run_late_partner(double seconds)
{
    rtcosim_clock *clock = NULL;
    rtcosim_rt *rt = NULL;
    rtcosim_error err = {0};
    int rc = 1;
    rtcosim_component *comps[3] = {rt_bench_model("setpoint"), rt_bench_model("plant"), NULL};
    rtcosim_component *controller = rt_bench_model("controller");
    if (rtcosim_clock_create_monotonic(0, &clock, &err) != RTCOSIM_OK) {
        rtcosim_component_free(controller);
        goto done;
    }
    rtcosim_delay_options d = {.clock = clock, .seed = 20261121u, .mean_fraction = 0.4,
                               .late_share = 0.05, .late_min = 2, .late_max = 5};
    /* The wrapper owns the controller from here, even when it fails. */
    if (!controller || rtcosim_delay_wrap(controller, &d, &comps[2], &err) != RTCOSIM_OK)
        goto done;
    if (!comps[0] || !comps[1] || rt_bench_start(comps[0], "setpoint") ||
        rt_bench_start(comps[1], "plant") || rt_bench_start(comps[2], "controller"))
        goto done;
    rtcosim_rt_options o;
    rtcosim_rt_options_init(&o);
    o.clock = clock;
    o.stop_time = (rtcosim_time_ns)llround(seconds * 1000) * RTCOSIM_NS_PER_MS;
    o.overrun = RTCOSIM_OVERRUN_CATCH_UP;
    o.non_realtime = "controller";
    o.frame_log = 0;
    o.record_capacity = 10000;
    o.partner_timeout = 0; /* the delays are bounded: never declare it lost */
    o.queue_capacity = 4096;
    o.lock_memory = true; /* as B4: every page it keeps is resident */
    if (rtcosim_rt_create(comps, 3, soak_connections, 3, &o, &rt, &err) != RTCOSIM_OK ||
        rtcosim_rt_run(rt, &err) != RTCOSIM_OK)
        goto done;
    rc = 0;
done:
    if (rc)
        fprintf(stderr, "rtcosim: bench soak: real-time: %s\n", err.message);
    rtcosim_rt_free(rt);
    for (int i = 0; i < 3; i++)
        rtcosim_component_free(comps[i]);
    rtcosim_clock_free(clock);
    return rc;
}

/* One run in a child: its peak RSS (wait4), and its fds and threads at the
 * end, sent back through a pipe. */
static soak_usage in_child(int (*run)(double), double seconds)
{
    soak_usage u = {.status = 1, .fds = -1, .threads = -1};
    int p[2];
    if (pipe(p) != 0)
        return u;
    fflush(stdout);
    int64_t t0 = bench_now_ns();
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        int rc = run(seconds);
        long counts[2] = {open_fds() - 1 /* the pipe */, threads()};
        ssize_t ignored = write(p[1], counts, sizeof counts);
        (void)ignored;
        _exit(rc ? 1 : 0);
    }
    close(p[1]);
    long counts[2] = {-1, -1};
    if (pid > 0 && read(p[0], counts, sizeof counts) == (ssize_t)sizeof counts) {
        u.fds = counts[0];
        u.threads = counts[1];
    }
    close(p[0]);
    int status = 1;
    struct rusage r;
    if (pid > 0 && wait4(pid, &status, 0, &r) == pid) {
        u.peak_rss_mib = (double)r.ru_maxrss / 1024.0;
        u.status = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    }
    u.wall_s = (double)(bench_now_ns() - t0) * 1e-9;
    return u;
}

static void report(const char *part, const char *when, double amount, const char *unit,
                   const soak_usage *u)
{
    char name[96];
    printf("%-9s %-5s %10.6g %-10s %8.1f s %9.1f MiB %5ld fds %4ld threads%s\n", part, when,
           amount, unit, u->wall_s, u->peak_rss_mib, u->fds, u->threads,
           u->status ? "  (FAILED)" : "");
    snprintf(name, sizeof name, "soak.%s.%s.peak_rss_mib", part, when);
    bench_figure(name, u->peak_rss_mib, "MiB");
    snprintf(name, sizeof name, "soak.%s.%s.fds", part, when);
    bench_figure(name, (double)u->fds, "count");
    snprintf(name, sizeof name, "soak.%s.%s.threads", part, when);
    bench_figure(name, (double)u->threads, "count");
}

static int usage(int code)
{
    fprintf(code ? stderr : stdout,
            "usage: rtcosim bench soak [--quick] [--sim-time S] [--wall-time S]\n"
            "  the vehicle on the event kernel for S simulated seconds (default 86400)\n"
            "  and B4's real-time system with its late partner for S wall seconds\n"
            "  (default 600; no frame log, 10000 estimate records kept), each against a\n"
            "  short run (10 s simulated, 5 s wall), each run a child process of its own;\n"
            "  --quick: 1000 s simulated and 20 s wall\n");
    return code;
}

static int run_soak(int argc, char **argv)
{
    double sim_s = 86400, wall_s = 600;
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (strcmp(argv[i], "--quick") == 0) {
            sim_s = 1000;
            wall_s = 20;
        } else if (strcmp(argv[i], "--sim-time") == 0 && i + 1 < argc) {
            sim_s = strtod(argv[++i], &end);
            if (*end || !(sim_s >= 10 && sim_s <= 1e7))
                return usage(1);
        } else if (strcmp(argv[i], "--wall-time") == 0 && i + 1 < argc) {
            wall_s = strtod(argv[++i], &end);
            if (*end || !(wall_s >= 5 && wall_s <= 86400))
                return usage(1);
        } else {
            return usage(strcmp(argv[i], "--help") == 0 ? 0 : 1);
        }
    }
    bench_print_load();
    printf("%-9s %-5s %21s %10s %13s %9s %12s\n", "part", "run", "length", "wall", "peak RSS",
           "fds", "threads");
    soak_usage a = in_child(run_vehicle, 10);
    report("events", "start", 10, "sim s", &a);
    soak_usage b = in_child(run_vehicle, sim_s);
    report("events", "end", sim_s, "sim s", &b);
    soak_usage c = in_child(run_late_partner, 5);
    report("realtime", "start", 5, "wall s", &c);
    soak_usage d = in_child(run_late_partner, wall_s);
    report("realtime", "end", wall_s, "wall s", &d);
    return a.status || b.status || c.status || d.status;
}

const rtcosim_bench rtcosim_bench_soak = {
    "soak", "long runs: vehicle 24 h simulated, real-time 10 min; peak memory, fds, threads",
    run_soak};
