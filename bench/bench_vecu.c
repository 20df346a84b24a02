/* B10 `rtcosim bench vecu`: the virtual ECU's speed with timing accounting
 * on (instructions per wall second of a branchy CRC-32 kernel, block-hook
 * counting active), and the firmware vehicle example (4 ECUs, the engine on
 * its firmware) in simulated seconds per wall second on the conservative
 * scheduler with 2 threads; its results (ECU states and CAN log) compared
 * across the sequential scheduler, 1 and 2 conservative threads and the
 * speculative scheduler on 2 threads (which rolls the firmware back). The
 * board case: ARM MPS2+ AN386 firmware (CRC-32 with SysTick at 1 kHz and
 * UART0 lines) from reset to its semihosting exit, and QEMU's mps2-an386 on
 * the same ELF in the same run (its start-up, timed on exit_now.elf, taken
 * off), five runs interleaved, in wall and CPU time: under load from other
 * processes the wall figure falls with the share of a core the run gets. */
#include <inttypes.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "../examples/ecus/vehicle.h"
#include "bench.h"
#include "rtcosim/vecu.h"
#include "rtcosim/vecu_board.h"
#include "rtcosim/vecu_periph.h"

#ifndef RTCOSIM_BENCH_FIRMWARE_DIR
#define RTCOSIM_BENCH_FIRMWARE_DIR "build/release/examples/firmware"
#endif

static int usage(void)
{
    fprintf(stderr, "usage: rtcosim bench vecu [--quick] [--firmware-dir DIR]\n"
                    "  DIR holds busy.elf, engine.elf, crc_busy.elf, exit_now.elf (default " RTCOSIM_BENCH_FIRMWARE_DIR ")\n");
    return 2;
}

static int fail(const rtcosim_error *err)
{
    fprintf(stderr, "rtcosim: %s\n", err->message);
    return 1;
}

static int instruction_rate(const char *dir, double seconds, double *rate)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/busy.elf", dir);
    rtcosim_vecu_config c = {.name = "bench", .firmware = path, .clock_hz = 168000000};
    rtcosim_vecu *v = NULL;
    rtcosim_error err = {0};
    if (rtcosim_vecu_create(&c, &v, &err) != RTCOSIM_OK ||
        rtcosim_vecu_reset(v, 1000000, &err) != RTCOSIM_OK)
        return fail(&err);
    int64_t t0 = bench_now_ns(), t1 = t0;
    uint64_t i0 = rtcosim_vecu_instructions(v), cycle = 0;
    unsigned calls = 0;
    while (t1 - t0 < (int64_t)(seconds * 1e9)) {
        for (int k = 0; k < 50; k++, calls++) {
            uint64_t cycles;
            if (rtcosim_vecu_run_exception(v, 16 + VECU_IRQ_TIMER0, cycle, UINT64_C(100000000),
                                           &cycles, &err) != RTCOSIM_OK) {
                rtcosim_vecu_free(v);
                return fail(&err);
            }
            cycle += cycles;
        }
        t1 = bench_now_ns();
    }
    uint64_t n = rtcosim_vecu_instructions(v) - i0;
    *rate = (double)n / ((double)(t1 - t0) / 1e9);
    printf("CRC-32 kernel: %u calls, %" PRIu64 " instructions (%.0f per call) in %.3f s wall\n",
           calls, n, (double)n / calls, (double)(t1 - t0) / 1e9);
    rtcosim_vecu_free(v);
    return 0;
}

static void count_bytes(void *user, unsigned uart, unsigned char byte)
{
    (void)uart, (void)byte;
    ++*(uint64_t *)user;
}

/* Wall and CPU seconds (all its threads, user + system) of
 * qemu-system-arm running `elf` to its semihosting exit; false if QEMU is
 * missing or fails. */
static bool qemu_seconds(const char *elf, double *wall, double *cpu)
{
    char *argv[] = {"qemu-system-arm", "-M", "mps2-an386", "-nographic", "-semihosting-config",
                    "enable=on,target=native", "-kernel", (char *)elf, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", 0, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", 1, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", 1, 0);
    extern char **environ;
    pid_t pid;
    int64_t t0 = bench_now_ns();
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    int status = 0;
    struct rusage ru;
    if (rc != 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        return false;
    *wall = (double)(bench_now_ns() - t0) / 1e9;
    *cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    return true;
}

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

typedef struct board_figures {
    double rate, cpu_rate, qemu_rate, qemu_cpu_rate; /* instructions per second */
    bool qemu;
} board_figures;

/* The board case, `runs` times with QEMU interleaved (the same load for
 * both); medians of each figure. Our CPU time is this process's (the run is
 * one thread); QEMU's is its children's rusage, start-up taken off. */
static int board_rate(const char *dir, unsigned runs, board_figures *out)
{
    char elf[1024], empty[1024];
    snprintf(elf, sizeof elf, "%s/crc_busy.elf", dir);
    snprintf(empty, sizeof empty, "%s/exit_now.elf", dir);
    double rate[16], cpu_rate[16], q_rate[16], q_cpu_rate[16];
    unsigned q_runs = 0;
    memset(out, 0, sizeof *out);
    printf("board mps2-an386, crc_busy.elf (SysTick 1 kHz, UART0), %u runs, QEMU interleaved:\n",
           runs);
    for (unsigned k = 0; k < runs; k++) {
        uint64_t bytes = 0;
        rtcosim_board_config c = {.board = "mps2-an386", .firmware = elf, .output = count_bytes,
                                  .user = &bytes};
        rtcosim_board *b = NULL;
        rtcosim_board_result r;
        rtcosim_error err = {0};
        int64_t t0 = bench_now_ns();
        double c0 = cpu_now();
        if (rtcosim_board_create(&c, &b, &err) != RTCOSIM_OK ||
            rtcosim_board_run(b, &r, &err) != RTCOSIM_OK) {
            rtcosim_board_free(b);
            return fail(&err);
        }
        double wall = (double)(bench_now_ns() - t0) / 1e9, cpu = cpu_now() - c0;
        rtcosim_board_free(b);
        rate[k] = (double)r.instructions / wall;
        cpu_rate[k] = (double)r.instructions / cpu;
        printf("  rtcosim: %" PRIu64 " instructions, %.3f s simulated, %" PRIu64 " UART bytes,"
               " exit %d, %.3f s wall %.3f s CPU: %4.0f M/s wall %4.0f M/s CPU\n",
               r.instructions, (double)r.time_ns / 1e9, bytes, r.exit_code, wall, cpu,
               rate[k] / 1e6, cpu_rate[k] / 1e6);
        double qw, qc, q0w, q0c;
        if (!qemu_seconds(elf, &qw, &qc) || !qemu_seconds(empty, &q0w, &q0c))
            continue;
        q_rate[q_runs] = (double)r.instructions / (qw - q0w);
        q_cpu_rate[q_runs] = (double)r.instructions / (qc - q0c);
        printf("  qemu-system-arm -M mps2-an386, same ELF: %.3f s wall %.3f s CPU (start-up"
               " %.3f s wall %.3f s CPU taken off): %4.0f M/s wall %4.0f M/s CPU\n", qw, qc, q0w,
               q0c, q_rate[q_runs] / 1e6, q_cpu_rate[q_runs] / 1e6);
        q_runs++;
    }
    out->rate = bench_median(rate, runs);
    out->cpu_rate = bench_median(cpu_rate, runs);
    if (q_runs == 0) {
        printf("  qemu-system-arm -M mps2-an386: not available, no comparison\n");
        return 0;
    }
    out->qemu = true;
    out->qemu_rate = bench_median(q_rate, q_runs);
    out->qemu_cpu_rate = bench_median(q_cpu_rate, q_runs);
    printf("  medians: rtcosim %.0f M/s wall %.0f M/s CPU, QEMU %.0f M/s wall %.0f M/s CPU\n",
           out->rate / 1e6, out->cpu_rate / 1e6, out->qemu_rate / 1e6,
           out->qemu_cpu_rate / 1e6);
    return 0;
}

enum { RUN_SEQUENTIAL, RUN_THREADS1, RUN_THREADS2, RUN_SPECULATIVE, RUN_COUNT };

static int vehicle(const char *dir, rtcosim_time_ns stop, double *sim_per_wall, bool *identical)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/engine.elf", dir);
    static const char *const names[RUN_COUNT] = {"sequential", "conservative 1 thread",
                                                 "conservative 2 threads",
                                                 "speculative 2 threads"};
    uint64_t sums[RUN_COUNT];
    double wall[RUN_COUNT];
    for (int r = 0; r < RUN_COUNT; r++) {
        rtcosim_events *sim = NULL;
        rtcosim_ecu_vehicle *v = NULL;
        rtcosim_ecu_vehicle_config vc = {.ecus = 4, .log_frames = true, .firmware_ecu = "engine"};
        snprintf(vc.firmware_path, sizeof vc.firmware_path, "%s", path);
        rtcosim_run_options o = {.stop_time = stop, .threads = r == RUN_THREADS1 ? 1 : 2,
                                 .scheduler = r == RUN_SEQUENTIAL ? RTCOSIM_SCHEDULER_SEQUENTIAL
                                              : r == RUN_SPECULATIVE
                                                  ? RTCOSIM_SCHEDULER_SPECULATIVE
                                                  : RTCOSIM_SCHEDULER_CONSERVATIVE};
        rtcosim_run_stats stats;
        rtcosim_error err = {0};
        if (rtcosim_events_create(&sim, &err) != RTCOSIM_OK ||
            rtcosim_ecu_vehicle_build(sim, &vc, &v, &err) != RTCOSIM_OK ||
            rtcosim_events_run(sim, &o, &stats, &err) != RTCOSIM_OK) {
            rtcosim_ecu_vehicle_free(v);
            rtcosim_events_free(sim);
            return fail(&err);
        }
        sums[r] = rtcosim_ecu_vehicle_checksum(v);
        wall[r] = stats.wall_s;
        printf("vehicle, engine on firmware, %-24s %9" PRIu64 " events %8.4f s wall %8.1f sim s/s"
               "  checksum %016" PRIx64 " rollbacks %" PRIu64 "\n", names[r], stats.events,
               stats.wall_s, rtcosim_time_to_seconds(stop) / stats.wall_s, sums[r],
               stats.rollbacks);
        rtcosim_ecu_vehicle_free(v);
        rtcosim_events_free(sim);
    }
    *sim_per_wall = rtcosim_time_to_seconds(stop) / wall[RUN_THREADS2];
    *identical = sums[RUN_SEQUENTIAL] == sums[RUN_THREADS1] &&
                 sums[RUN_THREADS1] == sums[RUN_THREADS2] &&
                 sums[RUN_THREADS2] == sums[RUN_SPECULATIVE];
    return 0;
}

static int run_vecu_bench(int argc, char **argv)
{
    const char *dir = RTCOSIM_BENCH_FIRMWARE_DIR;
    double seconds = 2.0;
    rtcosim_time_ns stop = 10 * RTCOSIM_NS_PER_S;
    unsigned runs = 5;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            seconds = 0.3;
            stop = RTCOSIM_NS_PER_S;
            runs = 1;
        } else if (strcmp(argv[i], "--firmware-dir") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else {
            return usage();
        }
    }
    double rate = 0, speed = 0;
    board_figures board;
    bool identical = false;
    int rc = instruction_rate(dir, seconds, &rate);
    if (rc == 0)
        rc = vehicle(dir, stop, &speed, &identical);
    if (rc == 0)
        rc = board_rate(dir, runs, &board);
    if (rc != 0)
        return rc;
    bench_figure("vecu.instructions_per_s", rate, "instr/s");
    bench_figure("vecu.example_sim_s_per_wall_s", speed, "s/s");
    bench_figure("vecu.identical_threads", identical ? 1 : 0, "bool");
    bench_print_load();
    bench_figure("vecu.board_instructions_per_s", board.rate, "instr/s");
    bench_figure("vecu.board_instructions_per_cpu_s", board.cpu_rate, "instr/s");
    if (board.qemu) {
        bench_figure("vecu.board_qemu_instructions_per_s", board.qemu_rate, "instr/s");
        bench_figure("vecu.board_qemu_instructions_per_cpu_s", board.qemu_cpu_rate, "instr/s");
        bench_figure("vecu.board_vs_qemu", board.rate / board.qemu_rate, "x");
        bench_figure("vecu.board_vs_qemu_cpu", board.cpu_rate / board.qemu_cpu_rate, "x");
    }
    return identical ? 0 : 1;
}

const rtcosim_bench rtcosim_bench_vecu = {
    "vecu", "B10: emulated Cortex-M4 firmware speed and the firmware vehicle example",
    run_vecu_bench};
