/* B6 `rtcosim bench phold`: the PHOLD benchmark of parallel event simulators
 * (1024 LPs, 16 events each, 10 % remote, increment 0.1 + exp(1.0), end 1000)
 * on the sequential, conservative (1 and 2 threads), global and speculative
 * (Time Warp, 1 and 2 threads) schedulers. Figures are committed events per
 * wall second, medians over repeats; every run's checksum must equal the
 * sequential one (bit-identical results). For the speculative runs also the
 * efficiency (committed / processed events) and the rollbacks. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "rtcosim/events.h"
#include "rtcosim/mpi.h"

typedef struct phold_case {
    const char *label;
    const char *figure;
    rtcosim_scheduler scheduler;
    unsigned threads;
    bool rounds;
} phold_case;

static int usage(void)
{
    fprintf(stderr, "usage: rtcosim bench phold [--quick] [--repeats N] [--lps N] [--end T]\n"
                    "                           [--threads N] [--sync reduction|null] [--ross PHOLD]\n"
                    "  --ross PHOLD: ROSS's phold program (models/phold of ROSS-org/ROSS, default\n"
                    "  $RTCOSIM_ROSS_PHOLD), run sequentially (--synch=1) on the same model in\n"
                    "  each repeat as the same-run peer of the sequential figure\n"
                    "  under `mpirun -np N`: B9, the run over N ranks against the sequential one,\n"
                    "  with each synchronization of the ranks (or only --sync), --threads per rank\n"
                    "  (default 1)\n");
    return 2;
}

/* ROSS's sequential PHOLD on the same model: its own event rate (its
 * running time, start-up excluded) and the rate per CPU second of the whole
 * process; false when it did not run or said nothing parseable. ROSS's
 * phold takes --mean as the mean of the whole increment, lookahead included
 * (it draws lookahead + exp(mean - lookahead)), ours the exponential's own
 * mean: --mean=1.1 is our 0.1 + exp(1.0), the same number of events. */
static bool run_ross(const char *ross, unsigned lps, double end, double *rate, double *cpu_rate,
                     double *events)
{
    char nlp[32], end_arg[48], out[65536];
    snprintf(nlp, sizeof nlp, "--nlp=%u", lps);
    snprintf(end_arg, sizeof end_arg, "--end=%g", end);
    char *argv[] = {(char *)ross, "--synch=1", nlp, "--start-events=16", "--remote=0.1",
                    "--lookahead=0.1", "--mean=1.1", end_arg, NULL};
    /* ROSS writes ross.csv and ross_all_lp_stats/ where it runs: a directory
     * of its own, removed after */
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/ross-XXXXXX", bench_scratch_dir());
    if (!mkdtemp(dir))
        return false;
    double wall_s, cpu_s;
    int rc = bench_run_peer(argv, dir, &wall_s, &cpu_s, out, sizeof out);
    bench_remove_tree(dir);
    if (rc != 0)
        return false;
    const char *r = strstr(out, "Event Rate (events/sec)"), *n = strstr(out, "Net Events Processed");
    if (!r || !n)
        return false;
    *rate = strtod(r + strlen("Event Rate (events/sec)"), NULL);
    *events = strtod(n + strlen("Net Events Processed"), NULL);
    *cpu_rate = cpu_s > 0 ? *events / cpu_s : 0;
    return *rate > 0;
}

static int run_phold(int argc, char **argv)
{
    unsigned repeats = 5, lps = 1024, threads = 1;
    double end = 1000.0;
    const char *ross = getenv("RTCOSIM_ROSS_PHOLD");
    rtcosim_rank_sync sync = RTCOSIM_RANK_SYNC_DEFAULT; /* DEFAULT: both, under mpirun */
    for (int i = 1; i < argc; i++) {
        const char *value;
        if (strcmp(argv[i], "--quick") == 0) {
            repeats = 3;
            end = 100.0;
        } else if (bench_option(argc, argv, &i, "--repeats", &value)) {
            repeats = (unsigned)strtoul(value, NULL, 10);
        } else if (bench_option(argc, argv, &i, "--lps", &value)) {
            lps = (unsigned)strtoul(value, NULL, 10);
        } else if (bench_option(argc, argv, &i, "--end", &value)) {
            end = strtod(value, NULL);
        } else if (bench_option(argc, argv, &i, "--threads", &value)) {
            threads = (unsigned)strtoul(value, NULL, 10);
        } else if (bench_option(argc, argv, &i, "--ross", &value)) {
            ross = value;
        } else if (bench_option(argc, argv, &i, "--sync", &value)) {
            if (rtcosim_rank_sync_parse(value, &sync) != 0)
                return usage();
        } else {
            return usage();
        }
    }
    if (repeats == 0 || repeats > 100 || lps < 2 || !(end > 0) || threads < 1 || threads > 256)
        return usage();
    /* one PHOLD time unit = 1 s = 1e9 ns */
    rtcosim_phold_config config = {.lps = lps, .events_per_lp = 16, .remote_fraction = 0.1,
                                   .lookahead = RTCOSIM_NS_PER_S / 10,
                                   .mean_increment = RTCOSIM_NS_PER_S};
    if (rtcosim_mpi_launched()) /* B9: under mpirun, the distributed run */
        return bench_phold_ranks(&config, end, repeats, threads, sync);
    rtcosim_events *sim = NULL;
    rtcosim_phold *ph = NULL;
    rtcosim_error err;
    if (rtcosim_events_create(&sim, &err) != RTCOSIM_OK ||
        rtcosim_phold_build(sim, &config, &ph, &err) != RTCOSIM_OK) {
        fprintf(stderr, "rtcosim: %s\n", err.message);
        rtcosim_events_free(sim);
        return 1;
    }
    const phold_case cases[] = {
        {"sequential", "phold.sequential.events_per_s", RTCOSIM_SCHEDULER_SEQUENTIAL, 1, false},
        {"conservative, 1 thread", "phold.threads1.events_per_s", RTCOSIM_SCHEDULER_CONSERVATIVE, 1,
         false},
        {"conservative, 2 threads", "phold.threads2.events_per_s", RTCOSIM_SCHEDULER_CONSERVATIVE, 2,
         false},
        {"conservative rounds, 2 threads", "phold.threads2_rounds.events_per_s",
         RTCOSIM_SCHEDULER_CONSERVATIVE, 2, true},
        {"global (CMB, null messages)", "phold.global.events_per_s", RTCOSIM_SCHEDULER_GLOBAL, 1,
         false},
        {"speculative, 1 thread", "phold.speculative1.events_per_s",
         RTCOSIM_SCHEDULER_SPECULATIVE, 1, false},
        {"speculative, 2 threads", "phold.speculative2.events_per_s",
         RTCOSIM_SCHEDULER_SPECULATIVE, 2, false},
    };
    enum { CASES = 7 };
    const size_t ncases = sizeof cases / sizeof cases[0];
    double rate[CASES][100], cpu_rate[CASES][100], blocked[CASES][100], median[CASES],
        cpu_median[CASES];
    uint64_t events[CASES] = {0}, rounds[CASES] = {0}, sleeps[CASES] = {0}, reference = 0;
    uint64_t processed[CASES] = {0}, rollbacks[CASES] = {0};
    bool identical = true;
    double ross_rate[100], ross_cpu_rate[100];
    unsigned ross_runs = 0;
    double ross_events = 0;
    if (ross && !*ross)
        ross = NULL;
    if (ross && access(ross, X_OK) != 0) {
        fprintf(stderr, "rtcosim: bench phold: --ross %s: not an executable program\n", ross);
        rtcosim_phold_free(ph);
        rtcosim_events_free(sim);
        return 2;
    }
    bench_print_load();
    printf("PHOLD: %u LPs, 16 events/LP, 10 %% remote, lookahead 0.1, mean 1.0, end %g, %u repeats\n",
           lps, end, repeats);
    /* interleave the cases in each repeat so that machine noise hits all alike */
    for (unsigned r = 0; r < repeats; r++)
        for (size_t c = 0; c < ncases; c++) {
            rtcosim_run_options o = {.scheduler = cases[c].scheduler, .threads = cases[c].threads,
                                     .stop_time = (rtcosim_time_ns)(end * 1e9), .seed = 42,
                                     .conservative_rounds = cases[c].rounds};
            rtcosim_run_stats stats;
            rtcosim_phold_reset(ph);
            if (rtcosim_events_run(sim, &o, &stats, &err) != RTCOSIM_OK) {
                fprintf(stderr, "rtcosim: %s\n", err.message);
                rtcosim_phold_free(ph);
                rtcosim_events_free(sim);
                return 1;
            }
            uint64_t sum = rtcosim_phold_checksum(ph);
            if (r == 0 && c == 0)
                reference = sum;
            identical &= sum == reference;
            rate[c][r] = (double)stats.events / stats.wall_s;
            cpu_rate[c][r] = stats.cpu_s > 0 ? (double)stats.events / stats.cpu_s : 0;
            blocked[c][r] = stats.wall_s > 0 ? stats.blocked_s / stats.wall_s : 0;
            events[c] = stats.events;
            rounds[c] = stats.rounds;
            sleeps[c] = stats.sleeps;
            processed[c] = stats.processed;
            rollbacks[c] = stats.rollbacks;
            if (c == 0 && ross) /* the peer right after our sequential run */
                if (run_ross(ross, lps, end, &ross_rate[ross_runs], &ross_cpu_rate[ross_runs],
                             &ross_events))
                    ross_runs++;
        }
    /* Mev/cpu-s: events per second of CPU time of all threads, the cost of
     * the kernel whatever else runs on the machine; blocked: thread-seconds
     * spent waiting for the other threads per wall second */
    printf("%-30s %12s %8s %8s %10s %8s %8s\n", "scheduler", "events", "windows", "Mev/s",
           "Mev/cpu-s", "blocked", "sleeps");
    for (size_t c = 0; c < ncases; c++) {
        median[c] = bench_median(rate[c], repeats);
        cpu_median[c] = bench_median(cpu_rate[c], repeats);
        printf("%-30s %12" PRIu64 " %8" PRIu64 " %8.3f %10.3f %8.2f %8" PRIu64 "\n",
               cases[c].label, events[c], rounds[c], median[c] / 1e6, cpu_median[c] / 1e6,
               bench_median(blocked[c], repeats), sleeps[c]);
    }
    for (size_t c = 0; c < ncases; c++)
        if (cases[c].scheduler == RTCOSIM_SCHEDULER_SPECULATIVE)
            printf("%-30s efficiency %.4f (committed %" PRIu64 " / processed %" PRIu64 "),"
                   " rollbacks %" PRIu64 "\n", cases[c].label,
                   processed[c] ? (double)events[c] / (double)processed[c] : 0.0, events[c],
                   processed[c], rollbacks[c]);
    printf("results identical across schedulers and thread counts: %s\n", identical ? "yes" : "NO");
    double ross_median = 0, ross_cpu_median = 0;
    if (ross_runs) {
        ross_median = bench_median(ross_rate, ross_runs);
        ross_cpu_median = bench_median(ross_cpu_rate, ross_runs);
        printf("ROSS sequential (%s, %u runs, each right after ours): %.3f Mev/s (its own timing),"
               " %.3f Mev/cpu-s (whole process); rtcosim sequential %.2fx\n", ross, ross_runs,
               ross_median / 1e6, ross_cpu_median / 1e6, median[0] / ross_median);
        printf("ROSS processed %.0f events, rtcosim %" PRIu64 " (%+.2f %%: the same model, its"
               " own random streams)\n", ross_events, events[0],
               100.0 * (ross_events / (double)events[0] - 1));
    } else {
        printf("ROSS sequential: %s\n", ross ? "did not run (see --ross)" :
                                        "not given (--ross PHOLD or $RTCOSIM_ROSS_PHOLD)");
    }
    for (size_t c = 0; c < ncases; c++)
        bench_figure(cases[c].figure, median[c], "events/s");
    bench_figure("phold.threads2.speedup", median[2] / median[1], "x");
    bench_figure("phold.threads2_rounds.speedup", median[3] / median[1], "x");
    bench_figure("phold.sequential.events_per_cpu_s", cpu_median[0], "events/s");
    bench_figure("phold.threads2.events_per_cpu_s", cpu_median[2], "events/s");
    bench_figure("phold.speculative2.speedup", median[6] / median[0], "x");
    bench_figure("phold.speculative2.efficiency",
                 processed[6] ? (double)events[6] / (double)processed[6] : 0.0, "ratio");
    bench_figure("phold.speculative2.rollbacks", (double)rollbacks[6], "count");
    bench_figure("phold.identical", identical ? 1 : 0, "bool");
    if (ross_runs) {
        bench_figure("phold.ross_sequential.events_per_s", ross_median, "events/s");
        bench_figure("phold.ross_sequential.events_per_cpu_s", ross_cpu_median, "events/s");
        bench_figure("phold.sequential_over_ross", median[0] / ross_median, "x");
    }
    if (ross)
        rmdir(bench_scratch_dir());
    rtcosim_phold_free(ph);
    rtcosim_events_free(sim);
    return identical ? 0 : 1;
}

const rtcosim_bench rtcosim_bench_phold = {"phold", "B6: PHOLD events per second, sequential and parallel",
                                           run_phold};
