/* Benchmark B1 (`rtcosim bench step`): per-step overhead of one FMU run
 * through rtcosim_simulate — the Dahlquist FMU (FMI 2.0) for 100 s at 1e-4 s
 * (1,000,000 steps) with (a) a CSV row every step (on a writer thread, as
 * `rtcosim simulate` writes it where a second CPU is free, and without one)
 * and (b) every 100th step.
 * Reports medians over repeats, peak memory at 10x fewer and at all steps
 * (it must not grow with the number of steps), and checks that the CSV
 * reads back bit for bit against values fetched from the FMU directly. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cpu_pair.h"
#include "rtcosim/fmu.h"
#include "rtcosim/results.h"
#include "rtcosim/simulate.h"

enum { SAMPLE_EVERY = 997 }; /* a prime, so samples fall on all kinds of times */

static const rtcosim_time_ns step_ns = 100000; /* 1e-4 s */

typedef struct bench_config {
    const char *fmu;
    const char *fmusim; /* the peer, or NULL */
    uint64_t steps;
    int repeats;
} bench_config;

static int64_t cpu_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* CPU seconds (all threads) of the last run_once: on a machine shared with
 * other jobs wall time includes waiting for a core, CPU time does not. */
static double last_cpu_s;

/* One simulate run; returns wall seconds of rtcosim_simulate or -1. */
static double run_once(const bench_config *cfg, uint64_t steps, uint32_t record_every,
                       const char *output_file, bool writer_thread)
{
    rtcosim_component *c = NULL;
    rtcosim_error err;
    if (rtcosim_fmu_load(cfg->fmu, NULL, &c, &err) != RTCOSIM_OK) {
        fprintf(stderr, "rtcosim: %s\n", err.message);
        return -1;
    }
    rtcosim_simulate_options o = {.start_time = 0, .stop_time = (rtcosim_time_ns)steps * step_ns,
                                  .output_interval = step_ns, .output_file = output_file,
                                  .record_every = record_every, .writer_thread = writer_thread};
    rtcosim_simulate_result res = {0};
    int64_t c0 = cpu_now_ns(), t0 = bench_now_ns();
    rtcosim_status st = rtcosim_simulate(c, &o, &res, &err);
    int64_t t1 = bench_now_ns(), c1 = cpu_now_ns();
    last_cpu_s = (double)(c1 - c0) * 1e-9;
    rtcosim_component_free(c);
    if (st != RTCOSIM_OK || res.steps != steps) {
        fprintf(stderr, "rtcosim: %s\n", st != RTCOSIM_OK ? err.message : "wrong number of steps");
        return -1;
    }
    return (double)(t1 - t0) * 1e-9;
}

/* Median wall seconds over the repeats (or -1) and median CPU seconds. */
static double median_run(const bench_config *cfg, uint64_t steps, uint32_t record_every,
                         const char *output_file, bool writer_thread, double *cpu_s)
{
    double walls[64], cpus[64];
    int n = cfg->repeats < 64 ? cfg->repeats : 64;
    for (int i = 0; i < n; i++) {
        if ((walls[i] = run_once(cfg, steps, record_every, output_file, writer_thread)) < 0)
            return -1;
        cpus[i] = last_cpu_s;
    }
    *cpu_s = bench_median(cpus, (size_t)n);
    return bench_median(walls, (size_t)n);
}

/* The peer: the Reference FMUs' fmusim on the same FMU and grid with a CSV
 * row every step (the whole process: unpacking and start-up are
 * milliseconds against the run's second); false when it failed. */
static bool run_fmusim(const bench_config *cfg, uint64_t steps, double *wall_s, double *cpu_s)
{
    char stop[48], csv[4200], out[4096];
    snprintf(stop, sizeof stop, "%.17g", (double)steps * 1e-4);
    snprintf(csv, sizeof csv, "%s/fmusim.csv", bench_scratch_dir());
    char *argv[] = {(char *)cfg->fmusim, "--interface-type", "cs", "--stop-time", stop,
                    "--output-interval", "1e-4", "--output-file", csv, (char *)cfg->fmu, NULL};
    int rc = bench_run_peer(argv, NULL, wall_s, cpu_s, out, sizeof out);
    unlink(csv);
    if (rc != 0)
        fprintf(stderr, "rtcosim: bench step: %s exited with %d: %.200s\n", cfg->fmusim, rc, out);
    return rc == 0;
}

/* Step the FMU directly (no recorder, no formatting) and compare x at every
 * SAMPLE_EVERY-th step with the CSV row read back by strtod, bit for bit;
 * also check the time column is the exact decimal of the step. Returns the
 * number of mismatches (or -1 on error) and the number of samples. */
static long check_round_trip(const bench_config *cfg, const char *csv, uint64_t steps,
                             long *samples)
{
    FILE *f = fopen(csv, "r");
    rtcosim_component *c = NULL;
    rtcosim_error err;
    if (!f || rtcosim_fmu_load(cfg->fmu, NULL, &c, &err) != RTCOSIM_OK) {
        fprintf(stderr, "rtcosim: cannot check %s\n", csv);
        if (f)
            fclose(f);
        return -1;
    }
    const rtcosim_variable *x = rtcosim_component_find_variable(c, "x");
    rtcosim_component_instantiate(c, "check", NULL);
    rtcosim_component_setup(c, 0, 0, (rtcosim_time_ns)steps * step_ns, NULL);
    rtcosim_component_enter_init(c, NULL);
    rtcosim_component_exit_init(c, NULL);
    char line[256];
    long mismatches = 0;
    *samples = 0;
    if (!fgets(line, sizeof line, f))
        mismatches++;
    for (uint64_t n = 0; n <= steps && x; n++) {
        if (!fgets(line, sizeof line, f)) {
            mismatches++;
            break;
        }
        if (n % SAMPLE_EVERY == 0 || n == steps) {
            double direct;
            rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &x->value_reference, 1, &direct, NULL);
            char *comma = strchr(line, ',');
            rtcosim_time_ns t = -1;
            if (comma)
                *comma = '\0';
            rtcosim_time_parse_seconds(line, &t, NULL);
            double back = comma ? strtod(comma + 1, NULL) : 0;
            if (t != (rtcosim_time_ns)n * step_ns || memcmp(&back, &direct, sizeof back) != 0)
                mismatches++;
            (*samples)++;
        }
        if (n < steps)
            rtcosim_component_do_step(c, (rtcosim_time_ns)n * step_ns, step_ns, NULL, NULL);
    }
    fclose(f);
    rtcosim_component_free(c);
    return x ? mismatches : -1;
}

static int run_bench_step(int argc, char **argv)
{
    static char fmu_path[4096];
    bench_config cfg = {.steps = 1000000, .repeats = 5, .fmusim = getenv("RTCOSIM_FMUSIM")};
    for (int i = 1; i < argc; i++) {
        const char *value;
        if (strcmp(argv[i], "--quick") == 0) {
            cfg.steps = 100000;
            cfg.repeats = 3;
        } else if (bench_option(argc, argv, &i, "--repeats", &value)) {
            cfg.repeats = atoi(value);
            if (cfg.repeats < 1 || cfg.repeats > 64) {
                fprintf(stderr, "rtcosim: bench step: --repeats must be 1..64\n");
                return 1;
            }
        } else if (bench_option(argc, argv, &i, "--fmu", &value)) {
            cfg.fmu = value;
        } else if (bench_option(argc, argv, &i, "--fmusim", &value)) {
            cfg.fmusim = value;
        } else {
            printf("usage: rtcosim bench step [--quick] [--repeats N] [--fmu Dahlquist.fmu]\n"
                   "                          [--fmusim FMUSIM]\n"
                   "B1: Dahlquist FMU, steps of 1e-4 s, 1e6 steps (1e5 with --quick).\n"
                   "--fmusim: the Reference FMUs' fmusim (default $RTCOSIM_FMUSIM), run on the\n"
                   "same FMU with CSV every step after each run of (a), as its same-run peer.\n");
            return strcmp(argv[i], "--help") == 0 ? 0 : 1;
        }
    }
    if (cfg.fmusim && !*cfg.fmusim)
        cfg.fmusim = NULL;
    if (cfg.fmusim && access(cfg.fmusim, X_OK) != 0) {
        fprintf(stderr, "rtcosim: bench step: --fmusim %s: not an executable program\n", cfg.fmusim);
        return 2;
    }
    rtcosim_error err;
    if (!cfg.fmu) {
        if (rtcosim_example_fmu_path("Dahlquist-fmi2.fmu", fmu_path, sizeof fmu_path, &err) != RTCOSIM_OK) {
            fprintf(stderr, "rtcosim: %s\n", err.message);
            return 1;
        }
        cfg.fmu = fmu_path;
    }
    char csv[4200];
    snprintf(csv, sizeof csv, "%s/step.csv", bench_scratch_dir());
    bench_print_load();
    uint64_t fewer = cfg.steps / 10;

    /* (a) as `rtcosim simulate` writes it by default: on a writer thread
     * (the stepping thread formatting part of the rows while it is behind)
     * where the process may use two CPUs; the other way beside it. */
    bool threaded = rtcosim_recorder_writer_thread_pays();
    /* Memory first at 10x fewer steps, then at all steps: ru_maxrss only grows. */
    if (run_once(&cfg, fewer, 1, csv, threaded) < 0)
        return 1;
    double peak_fewer = bench_peak_rss_mib();
    double cpu_csv = 0, cpu_other = 0, cpu_decimated = 0, cpu_bare = 0;
    /* (a) and the peer alternately, so that the machine's noise hits both */
    double walls[64], cpus[64], peer_walls[64], peer_cpus[64];
    int runs = cfg.repeats < 64 ? cfg.repeats : 64, peer_runs = 0;
    /* the two CPUs' distance around each threaded run (bench/cpu_pair.h):
     * the writer thread's rows cross between them */
    double apart[128];
    int probes = 0;
    for (int i = 0; i < runs; i++) {
        if (threaded)
            apart[probes++] = cpu_pair_latency_ns();
        if ((walls[i] = run_once(&cfg, cfg.steps, 1, csv, threaded)) < 0)
            return 1;
        if (threaded)
            apart[probes++] = cpu_pair_latency_ns();
        cpus[i] = last_cpu_s;
        if (cfg.fmusim && run_fmusim(&cfg, cfg.steps, &peer_walls[peer_runs], &peer_cpus[peer_runs]))
            peer_runs++;
    }
    double wall_csv = bench_median(walls, (size_t)runs);
    cpu_csv = bench_median(cpus, (size_t)runs);
    double wall_peer = peer_runs ? bench_median(peer_walls, (size_t)peer_runs) : 0;
    double cpu_peer = peer_runs ? bench_median(peer_cpus, (size_t)peer_runs) : 0;
    double peak = bench_peak_rss_mib();
    long samples = 0;
    long mismatches = wall_csv < 0 ? -1 : check_round_trip(&cfg, csv, cfg.steps, &samples);
    double wall_other = median_run(&cfg, cfg.steps, 1, csv, !threaded, &cpu_other);
    double wall_decimated = median_run(&cfg, cfg.steps, 100, csv, false, &cpu_decimated);
    double wall_bare = median_run(&cfg, cfg.steps, 1, NULL, false, &cpu_bare);
    unlink(csv);
    rmdir(bench_scratch_dir());
    if (wall_csv < 0 || wall_other < 0 || wall_decimated < 0 || wall_bare < 0 || mismatches < 0)
        return 1;

    double n = (double)cfg.steps;
    printf("B1 step overhead: %s, %llu steps of 1e-4 s, median of %d runs\n", cfg.fmu,
           (unsigned long long)cfg.steps, cfg.repeats);
    printf("  %-34s %10s %12s %14s\n", "run", "wall s", "ns/step", "CPU ns/step");
    double wall_thread = threaded ? wall_csv : wall_other, cpu_thread = threaded ? cpu_csv : cpu_other;
    double wall_alone = threaded ? wall_other : wall_csv, cpu_alone = threaded ? cpu_other : cpu_csv;
    struct { const char *name; double wall, cpu; } rows[] = {
        {threaded ? "(a) CSV every step (default)" : "(a) CSV, writer thread", wall_thread,
         cpu_thread},
        {threaded ? "(a) CSV, stepping thread only" : "(a) CSV every step (default)", wall_alone,
         cpu_alone},
        {"(b) every 100th step", wall_decimated, cpu_decimated},
        {"steps only, no output", wall_bare, cpu_bare},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        printf("  %-34s %10.4f %12.1f %14.1f\n", rows[i].name, rows[i].wall, rows[i].wall * 1e9 / n,
               rows[i].cpu * 1e9 / n);
    if (peer_runs)
        printf("  %-34s %10.4f %12.1f %14.1f  (%s, %d runs)\n", "fmusim, CSV every step", wall_peer,
               wall_peer * 1e9 / n, cpu_peer * 1e9 / n, cfg.fmusim, peer_runs);
    else
        printf("  fmusim: %s\n", cfg.fmusim ? "did not run" : "not given (--fmusim or $RTCOSIM_FMUSIM)");
    double apart_min = 0, apart_max = 0; /* over the probes that gave a figure */
    for (int i = 0; i < probes; i++) {
        if (apart[i] <= 0)
            continue;
        apart_min = apart_min == 0 || apart[i] < apart_min ? apart[i] : apart_min;
        apart_max = apart[i] > apart_max ? apart[i] : apart_max;
    }
    if (probes && apart_min > 0)
        printf("  the writer thread's CPUs: a cache line %.0f-%.0f ns one way around the runs (the "
               "host places the vCPUs near or apart)\n", apart_min, apart_max);
    printf("  peak memory: %.1f MiB after %llu steps, %.1f MiB after %llu steps\n", peak_fewer,
           (unsigned long long)fewer, peak, (unsigned long long)cfg.steps);
    printf("  round trip: %ld of %ld sampled rows differ from the FMU's values\n", mismatches, samples);
    bench_figure("step.csv_wall_s", wall_csv, "s");
    bench_figure("step.csv_ns_per_step", wall_csv * 1e9 / n, "ns");
    bench_figure("step.csv_thread_ns_per_step", wall_thread * 1e9 / n, "ns");
    bench_figure("step.csv_thread_cpu_ns_per_step", cpu_thread * 1e9 / n, "ns");
    bench_figure("step.csv_unthreaded_ns_per_step", wall_alone * 1e9 / n, "ns");
    bench_figure("step.csv_unthreaded_cpu_ns_per_step", cpu_alone * 1e9 / n, "ns");
    bench_figure("step.csv_thread_over_unthreaded", wall_thread / wall_alone, "x");
    bench_figure("step.csv_default_threaded", threaded, "bool");
    bench_figure("step.decimated_wall_s", wall_decimated, "s");
    bench_figure("step.decimated_ns_per_step", wall_decimated * 1e9 / n, "ns");
    bench_figure("step.bare_ns_per_step", wall_bare * 1e9 / n, "ns");
    bench_figure("step.csv_cpu_ns_per_step", cpu_csv * 1e9 / n, "ns");
    bench_figure("step.decimated_cpu_ns_per_step", cpu_decimated * 1e9 / n, "ns");
    if (peer_runs) {
        bench_figure("step.fmusim_csv_ns_per_step", wall_peer * 1e9 / n, "ns");
        bench_figure("step.fmusim_csv_cpu_ns_per_step", cpu_peer * 1e9 / n, "ns");
        bench_figure("step.csv_over_fmusim", wall_csv / wall_peer, "x");
        bench_figure("step.csv_cpu_over_fmusim", cpu_csv / cpu_peer, "x");
    }
    if (probes && apart_min > 0) {
        bench_figure("step.cpu_pair_min_ns", apart_min, "ns");
        bench_figure("step.cpu_pair_max_ns", apart_max, "ns");
    }
    bench_figure("step.peak_mib", peak, "MiB");
    bench_figure("step.peak_mib_10x_fewer_steps", peak_fewer, "MiB");
    bench_figure("step.roundtrip_mismatches", (double)mismatches, "rows");
    return mismatches == 0 ? 0 : 1;
}

const rtcosim_bench rtcosim_bench_step = {"step", "B1: per-step overhead of one FMU with CSV output",
                                          run_bench_step};
