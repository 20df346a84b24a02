/* `rtcosim bench stalls`: the floor under every real-time figure of this
 * machine. A SCHED_FIFO thread pinned to one CPU paces 1 ms periods, then
 * busy-spins through a share of each period reading the clock; every gap in
 * its own clock readings longer than the threshold is time the thread did
 * not run although it was runnable at top priority. A gap that the kernel
 * charged to the thread as CPU time (CLOCK_THREAD_CPUTIME_ID advanced with the
 * wall clock) was spent on the thread's behalf (interrupts, or a hypervisor
 * that the guest cannot see); an uncharged one is time the CPU was taken
 * away (steal). No rtcosim code runs in the loop: what it counts, the engine
 * cannot do better than. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cyclictest.h"

typedef struct stall_run {
    double seconds, duty;
    int priority, cpu;
    int64_t threshold_ns;
    /* results */
    long periods, late_wakeups, gaps_charged, gaps_uncharged;
    long late_frames;  /* wake-ups at least one period late, as cyclictest's `late` */
    double *lateness;  /* per period, us (allocated before the run: no allocation in it) */
    int64_t late_max, charged_max, uncharged_max, lost_total;
    int fifo_error; /* errno of sched_setscheduler, 0 when applied */
} stall_run;

static int64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *stall_main(void *arg)
{
    stall_run *r = arg;
    if (r->cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(r->cpu, &set);
        pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    }
    struct sched_param sp = {.sched_priority = r->priority};
    r->fifo_error = r->priority > 0 ? pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) : 0;
    const int64_t H = 1000000, busy = (int64_t)(r->duty * (double)H);
    int64_t start = clock_ns(CLOCK_MONOTONIC) + H;
    r->periods = (long)(r->seconds * 1000);
    for (long k = 0; k < r->periods; k++) {
        int64_t deadline = start + k * H;
        struct timespec ts = {.tv_sec = deadline / 1000000000, .tv_nsec = deadline % 1000000000};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
        }
        int64_t now = clock_ns(CLOCK_MONOTONIC), late = now - deadline;
        if (late > r->threshold_ns)
            r->late_wakeups++;
        if (late >= H)
            r->late_frames++;
        if (r->lateness)
            r->lateness[k] = (double)late / 1e3;
        if (late > r->late_max)
            r->late_max = late;
        int64_t last = now, last_cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
        while (now < deadline + busy) {
            now = clock_ns(CLOCK_MONOTONIC);
            int64_t cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
            int64_t gap = now - last, charged = cpu - last_cpu;
            if (gap > r->threshold_ns) {
                r->lost_total += gap;
                if (charged > gap / 2) {
                    r->gaps_charged++;
                    if (gap > r->charged_max)
                        r->charged_max = gap;
                } else {
                    r->gaps_uncharged++;
                    if (gap > r->uncharged_max)
                        r->uncharged_max = gap;
                }
            }
            last = now;
            last_cpu = cpu;
        }
    }
    return NULL;
}

static int usage(int code)
{
    fprintf(code ? stderr : stdout,
            "usage: rtcosim bench stalls [--quick] [--duration S] [--duty F] [--priority P]\n"
            "                            [--cpu N] [--threshold US]\n"
            "  1 ms periods on one SCHED_FIFO thread (default priority 50, last CPU), spinning\n"
            "  through a share F of each (default 0.88); counts late wake-ups and gaps in the\n"
            "  spin longer than US microseconds (default 100); default 20 s, --quick 5 s.\n"
            "  Right before, cyclictest (Debian rt-tests) runs as long on the same CPU with\n"
            "  the same priority and period, if installed (--no-cyclictest: not).\n");
    return code;
}

static int parse_number(const char *flag, const char *text, double lo, double hi, double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !(v >= lo && v <= hi)) {
        fprintf(stderr, "rtcosim: %s '%s' must be a number in %g..%g\n", flag, text, lo, hi);
        return 1;
    }
    *out = v;
    return 0;
}

static int run(int argc, char **argv)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    stall_run r = {.seconds = 20, .duty = 0.88, .priority = 50,
                   .cpu = cpus > 1 ? (int)cpus - 1 : -1, .threshold_ns = 100000};
    bool with_cyclictest = true;
    for (int i = 1; i < argc; i++) {
        double v;
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--quick") == 0)
            r.seconds = 5;
        else if (strcmp(a, "--help") == 0)
            return usage(0);
        else if (strcmp(a, "--no-cyclictest") == 0)
            with_cyclictest = false;
        else if (!val) {
            fprintf(stderr, "rtcosim: bench stalls: unknown option or missing value '%s'\n", a);
            return usage(1);
        } else if (strcmp(a, "--duration") == 0) {
            if (parse_number(a, val, 0.01, 86400, &r.seconds))
                return 1;
            i++;
        } else if (strcmp(a, "--duty") == 0) {
            if (parse_number(a, val, 0, 0.95, &r.duty))
                return 1;
            i++;
        } else if (strcmp(a, "--priority") == 0) {
            if (parse_number(a, val, 0, 99, &v))
                return 1;
            r.priority = (int)v;
            i++;
        } else if (strcmp(a, "--cpu") == 0) {
            if (parse_number(a, val, 0, (double)(cpus > 0 ? cpus - 1 : 0), &v))
                return 1;
            r.cpu = (int)v;
            i++;
        } else if (strcmp(a, "--threshold") == 0) {
            if (parse_number(a, val, 1, 1e6, &v))
                return 1;
            r.threshold_ns = (int64_t)(v * 1000);
            i++;
        } else {
            fprintf(stderr, "rtcosim: bench stalls: unknown option '%s'\n", a);
            return usage(1);
        }
    }
    bench_print_load();
    bench_cyclictest floor;
    bool have_floor =
        with_cyclictest && bench_cyclictest_floor(r.cpu, r.priority, 1e-3, r.seconds, &floor);
    r.lateness = calloc((size_t)(r.seconds * 1000) + 1, sizeof *r.lateness);
    bool locked = mlockall(MCL_CURRENT | MCL_FUTURE) == 0;
    pthread_t t;
    if (pthread_create(&t, NULL, stall_main, &r) != 0) {
        fprintf(stderr, "rtcosim: bench stalls: cannot start the measuring thread\n");
        free(r.lateness);
        return 1;
    }
    pthread_join(t, NULL);
    if (locked)
        munlockall();
    if (r.fifo_error)
        fprintf(stderr, "[warning] SCHED_FIFO %d refused (%s); measured with normal scheduling\n",
                r.priority, strerror(r.fifo_error));
    double minutes = r.seconds / 60;
    printf("machine stalls: %ld periods of 1 ms on CPU %d, %s, spinning %.0f %% of each;"
           " gaps > %.0f us\n\n",
           r.periods, r.cpu, r.fifo_error || !r.priority ? "normal scheduling" : "SCHED_FIFO",
           100 * r.duty, (double)r.threshold_ns / 1e3);
    printf("  late wake-ups        %6ld (%.1f per minute), latest %.1f us\n", r.late_wakeups,
           (double)r.late_wakeups / minutes, (double)r.late_max / 1e3);
    printf("  gaps, CPU charged    %6ld (%.1f per minute), longest %.1f us\n", r.gaps_charged,
           (double)r.gaps_charged / minutes, (double)r.charged_max / 1e3);
    printf("  gaps, not charged    %6ld (%.1f per minute), longest %.1f us\n", r.gaps_uncharged,
           (double)r.gaps_uncharged / minutes, (double)r.uncharged_max / 1e3);
    printf("  time lost in gaps    %.3f ms\n\n", (double)r.lost_total / 1e6);
    bench_figure("stalls.late_wakeups", (double)r.late_wakeups, "count");
    bench_figure("stalls.late_wakeup_max_us", (double)r.late_max / 1e3, "us");
    bench_figure("stalls.gaps_charged", (double)r.gaps_charged, "count");
    bench_figure("stalls.gaps_uncharged", (double)r.gaps_uncharged, "count");
    int64_t gap_max = r.charged_max > r.uncharged_max ? r.charged_max : r.uncharged_max;
    bench_figure("stalls.gap_max_us", (double)gap_max / 1e3, "us");
    bench_figure("stalls.lost_ms", (double)r.lost_total / 1e6, "ms");
    double p99 = r.lateness ? bench_percentile(r.lateness, (size_t)r.periods, 99) : -1;
    free(r.lateness);
    if (p99 >= 0)
        bench_figure("stalls.late_wakeup_p99_us", p99, "us");
    bench_figure("stalls.late_frame_wakeups", (double)r.late_frames, "count");
    if (have_floor) {
        bench_cyclictest_figures("stalls", &floor, p99);
        bench_figure("stalls.late_frame_wakeups_over_cyclictest",
                     bench_ratio((double)r.late_frames, (double)floor.late), "ratio");
    }
    return 0;
}

const rtcosim_bench rtcosim_bench_stalls = {
    "stalls", "the machine's own stalls of a top-priority thread: late wake-ups, gaps in a spin",
    run};
