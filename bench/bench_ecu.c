/* B7 `rtcosim bench ecu`: N = 2, 4, 8, 16 ECU emulators with their plants on
 * a 500 kbit/s CAN bus (the example vehicle), 10 s simulated. Each
 * configuration runs on the lockstep baseline (every LP visited every 1 us,
 * the finest lookahead-safe resolution), the sequential event scheduler, and
 * the conservative scheduler on 1 and 2 threads and the speculative one on 2
 * (Tc = 0, the adaptive optimism window, each plant on its ECU's thread as
 * `rtcosim events --scheduler speculative` places them: a second vehicle
 * built with pair_plants, the same model and results). Figures: simulated seconds per wall second of
 * the conservative 2-thread run, its speedup over lockstep and over the
 * sequential scheduler, the speculative run's speedup over sequential, and
 * whether all results (ECU states, CAN log) are bit-identical. Medians over
 * repeats. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../examples/ecus/vehicle.h"
#include "bench.h"

enum { CASE_LOCKSTEP, CASE_SEQUENTIAL, CASE_THREADS1, CASE_THREADS2, CASE_SPECULATIVE,
       CASE_COUNT };

static const char *const case_names[CASE_COUNT] = {"lockstep 1 us", "sequential",
                                                   "conservative 1 thread",
                                                   "conservative 2 threads",
                                                   "speculative 2 threads"};

static int usage(void)
{
    fprintf(stderr, "usage: rtcosim bench ecu [--quick] [--repeats N] [--stop-time T]\n");
    return 2;
}

static int run_ecu_bench(int argc, char **argv)
{
    unsigned repeats = 3;
    rtcosim_time_ns stop = 10 * RTCOSIM_NS_PER_S;
    rtcosim_error err = {0};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            repeats = 1;
            stop = RTCOSIM_NS_PER_S;
        } else if (strcmp(argv[i], "--repeats") == 0 && i + 1 < argc) {
            repeats = (unsigned)strtoul(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--stop-time") == 0 && i + 1 < argc) {
            if (rtcosim_time_parse_seconds(argv[++i], &stop, &err) != RTCOSIM_OK || stop <= 0)
                return usage();
        } else {
            return usage();
        }
    }
    if (repeats == 0 || repeats > 50)
        return usage();
    const unsigned sizes[] = {2, 4, 8, 16};
    double sim_s = rtcosim_time_to_seconds(stop);
    printf("multi-ECU vehicle, CAN 500 kbit/s, %.6g s simulated, median of %u\n", sim_s, repeats);
    /* cpu s: all threads; windows: scheduler rounds (lockstep: ticks); blocked:
     * thread-seconds spent waiting for other threads */
    printf("%4s %-24s %9s %9s %9s %8s %9s %8s %7s %17s\n", "ECUs", "scheduler", "events",
           "wall s", "cpu s", "sim s/s", "windows", "blocked", "sleeps", "checksum");
    int rc = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        unsigned n = sizes[k];
        rtcosim_events *sims[2] = {NULL, NULL};
        rtcosim_ecu_vehicle *vs[2] = {NULL, NULL};
        for (int paired = 0; paired < 2; paired++) {
            rtcosim_ecu_vehicle_config vc = {.ecus = n, .log_frames = true,
                                             .pair_plants = paired};
            if (rtcosim_events_create(&sims[paired], &err) != RTCOSIM_OK ||
                rtcosim_ecu_vehicle_build(sims[paired], &vc, &vs[paired], &err) != RTCOSIM_OK) {
                fprintf(stderr, "rtcosim: %s\n", err.message);
                for (int k = 0; k < 2; k++) {
                    rtcosim_ecu_vehicle_free(vs[k]);
                    rtcosim_events_free(sims[k]);
                }
                return 1;
            }
        }
        double wall[CASE_COUNT][50], cpu[CASE_COUNT][50], blocked[CASE_COUNT][50];
        uint64_t sums[CASE_COUNT] = {0}, events[CASE_COUNT] = {0}, windows[CASE_COUNT] = {0},
                 sleeps[CASE_COUNT] = {0};
        for (unsigned r = 0; r < repeats; r++)
            for (int c = 0; c < CASE_COUNT; c++) {
                rtcosim_run_options o = {.stop_time = stop, .lockstep_tick = RTCOSIM_NS_PER_US};
                o.scheduler = c == CASE_LOCKSTEP ? RTCOSIM_SCHEDULER_LOCKSTEP
                            : c == CASE_SEQUENTIAL ? RTCOSIM_SCHEDULER_SEQUENTIAL
                            : c == CASE_SPECULATIVE ? RTCOSIM_SCHEDULER_SPECULATIVE
                                                   : RTCOSIM_SCHEDULER_CONSERVATIVE;
                o.threads = c == CASE_THREADS2 || c == CASE_SPECULATIVE ? 2 : 1;
                int paired = c == CASE_SPECULATIVE;
                rtcosim_run_stats stats;
                if (rtcosim_events_run(sims[paired], &o, &stats, &err) != RTCOSIM_OK) {
                    fprintf(stderr, "rtcosim: %s\n", err.message);
                    for (int k = 0; k < 2; k++) {
                        rtcosim_ecu_vehicle_free(vs[k]);
                        rtcosim_events_free(sims[k]);
                    }
                    return 1;
                }
                wall[c][r] = stats.wall_s;
                cpu[c][r] = stats.cpu_s;
                blocked[c][r] = stats.blocked_s;
                events[c] = stats.events;
                windows[c] = stats.rounds;
                sleeps[c] = stats.sleeps;
                uint64_t sum = rtcosim_ecu_vehicle_checksum(vs[paired]);
                if (r > 0 && sum != sums[c])
                    rc = 1;
                sums[c] = sum;
            }
        double median[CASE_COUNT];
        for (int c = 0; c < CASE_COUNT; c++) {
            median[c] = bench_median(wall[c], repeats);
            printf("%4u %-24s %9" PRIu64 " %9.4f %9.4f %8.1f %9" PRIu64 " %8.4f %7" PRIu64
                   " %17" PRIx64 "\n", n, case_names[c], events[c], median[c],
                   bench_median(cpu[c], repeats), sim_s / median[c], windows[c],
                   bench_median(blocked[c], repeats), sleeps[c], sums[c]);
        }
        bool identical = sums[CASE_THREADS1] == sums[CASE_THREADS2] &&
                         sums[CASE_SEQUENTIAL] == sums[CASE_THREADS2] &&
                         sums[CASE_LOCKSTEP] == sums[CASE_THREADS2] &&
                         sums[CASE_SPECULATIVE] == sums[CASE_THREADS2];
        if (!identical)
            rc = 1;
        char name[64];
        snprintf(name, sizeof name, "ecu.n%u.sim_s_per_wall_s", n);
        bench_figure(name, sim_s / median[CASE_THREADS2], "s/s");
        snprintf(name, sizeof name, "ecu.n%u.speedup", n);
        bench_figure(name, median[CASE_LOCKSTEP] / median[CASE_THREADS2], "x");
        snprintf(name, sizeof name, "ecu.n%u.sequential_sim_s_per_wall_s", n);
        bench_figure(name, sim_s / median[CASE_SEQUENTIAL], "s/s");
        snprintf(name, sizeof name, "ecu.n%u.threads2_over_threads1", n);
        bench_figure(name, median[CASE_THREADS1] / median[CASE_THREADS2], "x");
        snprintf(name, sizeof name, "ecu.n%u.speedup_vs_sequential", n);
        bench_figure(name, median[CASE_SEQUENTIAL] / median[CASE_THREADS2], "x");
        snprintf(name, sizeof name, "ecu.n%u.speculative_speedup_vs_sequential", n);
        bench_figure(name, median[CASE_SEQUENTIAL] / median[CASE_SPECULATIVE], "x");
        snprintf(name, sizeof name, "ecu.n%u.identical_1_2_threads", n);
        bench_figure(name, identical ? 1 : 0, "bool");
        for (int k = 0; k < 2; k++) {
            rtcosim_ecu_vehicle_free(vs[k]);
            rtcosim_events_free(sims[k]);
        }
    }
    return rc;
}

const rtcosim_bench rtcosim_bench_ecu = {"ecu", "B7: multi-ECU vehicle on the parallel event kernel",
                                         run_ecu_bench};
