/* `rtcosim rt-check [--frame S] [--duration S] [--cpu N] [--priority P]`:
 * tells on any rig whether it can hold a frame. Measures its own wake-up
 * latency the way cyclictest does (absolute clock_nanosleep at the frame
 * period, SCHED_FIFO where permitted, one CPU) and reads what the kernel
 * offers (bench/rt_probe.c), printing what to change for each finding. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "rt_probe.h"

typedef struct wakeup_run {
    int64_t frame_ns, periods;
    int cpu, priority;
    uint64_t *bins; /* bins[i]: wake-ups i..i+1 us late; the last bin holds all beyond */
    size_t bin_count;
    int64_t max_ns;
    int fifo_error, affinity_error;
} wakeup_run;

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *measure(void *arg)
{
    wakeup_run *r = arg;
    if (r->cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(r->cpu, &set);
        r->affinity_error = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    }
    struct sched_param sp = {.sched_priority = r->priority};
    r->fifo_error = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
    int64_t start = now_ns() + r->frame_ns;
    for (int64_t k = 0; k < r->periods; k++) {
        int64_t due = start + k * r->frame_ns;
        struct timespec ts = {.tv_sec = due / 1000000000, .tv_nsec = due % 1000000000};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
        }
        int64_t late = now_ns() - due;
        if (late < 0)
            late = 0;
        size_t bin = (size_t)(late / 1000);
        r->bins[bin < r->bin_count ? bin : r->bin_count - 1]++;
        if (late > r->max_ns)
            r->max_ns = late;
    }
    return NULL;
}

/* Nearest-rank percentile of the histogram in us (the overflow bin ranks as max). */
static double percentile(const wakeup_run *r, double p)
{
    uint64_t rank = (uint64_t)ceil(p / 100.0 * (double)r->periods), seen = 0;
    for (size_t i = 0; i + 1 < r->bin_count; i++)
        if ((seen += r->bins[i]) >= (rank ? rank : 1))
            return (double)i;
    return (double)r->max_ns / 1e3;
}

static int usage(FILE *out, int code)
{
    fprintf(out,
            "usage: rtcosim rt-check [--frame S] [--duration S] [--cpu N] [--priority P]\n\n"
            "Tells whether this machine can hold a real-time frame: measures the wake-up\n"
            "latency of a thread woken every frame (absolute clock_nanosleep, SCHED_FIFO P\n"
            "where permitted, pinned to CPU N) like cyclictest, prints its histogram, and\n"
            "checks the kernel (PREEMPT_RT), isolated CPUs, RT throttling, the CPU frequency\n"
            "governor, SMT and timer slack, with what to change for each finding.\n\n"
            "  --frame S      the frame (period) to hold, seconds; default 0.001\n"
            "  --duration S   how long to measure, seconds; default 60\n"
            "  --cpu N        the CPU to measure on; default the last one\n"
            "  --priority P   SCHED_FIFO priority 1..99; default 80\n\n"
            "Verdict: holds (no wake-up later than half the frame, which leaves the other\n"
            "half to compute), marginal (later than half, none a frame late) or cannot hold\n"
            "(wake-ups a whole frame late: overruns whatever the computation costs).\n");
    return code;
}

static void print_usage(FILE *out)
{
    (void)usage(out, 0);
}

static int parse_seconds(const char *option, const char *text, double lo, double hi, double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !(v >= lo && v <= hi))
        return cli_fail("rt-check: %s '%s' must be %g..%g seconds", option, text, lo, hi);
    *out = v;
    return 0;
}

static void finding(const char *what, const char *value, const char *advice)
{
    printf("  %-14s %-34s %s%s\n", what, value, advice[0] ? "-> " : "", advice);
}

static void print_findings(const rt_probe_facts *f, const char *version, int cpu, double frame_s)
{
    char value[160];
    printf("platform:\n");
    snprintf(value, sizeof value, "%s", f->preempt_rt ? "PREEMPT_RT" : "not PREEMPT_RT");
    finding("kernel", value,
            f->preempt_rt ? ""
                          : "boot a PREEMPT_RT kernel (Debian: linux-image-rt-amd64) for "
                            "bounded latency");
    printf("  %-14s %s\n", "", version);
    if (f->isolated_count < 0)
        snprintf(value, sizeof value, "unknown");
    else if (f->isolated_count == 0)
        snprintf(value, sizeof value, "none");
    else
        snprintf(value, sizeof value, "%s (CPU %d %s)", f->isolated, cpu,
                 f->cpu_isolated ? "isolated" : "not isolated");
    char advice[200] = "";
    if (!f->cpu_isolated)
        snprintf(advice, sizeof advice,
                 "boot with isolcpus=%d nohz_full=%d rcu_nocbs=%d and run the real-time thread "
                 "there (--cpu)",
                 cpu, cpu, cpu);
    finding("isolated CPUs", value, advice);
    if (f->rt_runtime_us == -2)
        snprintf(value, sizeof value, "unknown");
    else if (f->rt_runtime_us == -1)
        snprintf(value, sizeof value, "off (sched_rt_runtime_us -1)");
    else
        snprintf(value, sizeof value, "%lld of %lld us", f->rt_runtime_us, f->rt_period_us);
    finding("RT throttling", value,
            f->rt_runtime_us >= 0
                ? "SCHED_FIFO threads are stopped after this share of each window: keep real-"
                  "time work below it (or SCHED_DEADLINE)"
                : "");
    bool fixed = !f->governor[0] || strcmp(f->governor, "performance") == 0;
    snprintf(value, sizeof value, "%s", f->governor[0] ? f->governor : "none (no cpufreq: fixed or host-set)");
    finding("CPU governor", value,
            fixed ? "" : "cpupower frequency-set -g performance (frequency changes stall)");
    snprintf(value, sizeof value, "%s",
             f->smt_active < 0 ? "unknown" : f->smt_active ? "active" : "off");
    finding("SMT", value,
            f->smt_active == 1 ? "a sibling thread shares the core: echo off > "
                                 "/sys/devices/system/cpu/smt/control, or keep the sibling idle"
                               : "");
    if (f->timerslack_ns < 0)
        snprintf(value, sizeof value, "unknown");
    else
        snprintf(value, sizeof value, "%lld ns", f->timerslack_ns);
    finding("timer slack", value,
            f->timerslack_ns > 0 && (double)f->timerslack_ns > frame_s * 1e9 / 100
                ? "applies under SCHED_OTHER only: use SCHED_FIFO, or prctl(PR_SET_TIMERSLACK, 1)"
                : "");
}

static int run_rt_check(int argc, char **argv)
{
    double frame_s = 1e-3, duration_s = 60;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int cpu = cpus > 1 ? (int)cpus - 1 : 0, priority = 80;
    for (int i = 1; i < argc; i += 2) { /* option, value */
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
            return usage(stdout, 0);
        bool known = strcmp(a, "--frame") == 0 || strcmp(a, "--duration") == 0 ||
                     strcmp(a, "--cpu") == 0 || strcmp(a, "--priority") == 0;
        if (!known)
            return cli_unknown_option("rt-check", a, print_usage);
        if (!val)
            return cli_fail("rt-check: option '%s' needs a value (see rtcosim rt-check --help)", a);
        if (strcmp(a, "--frame") == 0) {
            if (parse_seconds(a, val, 1e-5, 1, &frame_s))
                return 1;
        } else if (strcmp(a, "--duration") == 0) {
            if (parse_seconds(a, val, 0.01, 86400, &duration_s))
                return 1;
        } else if (strcmp(a, "--cpu") == 0 || strcmp(a, "--priority") == 0) {
            char *end;
            long v = strtol(val, &end, 10);
            bool is_cpu = a[2] == 'c';
            if (end == val || *end || v < (is_cpu ? 0 : 1) || v > (is_cpu ? cpus - 1 : 99))
                return cli_fail("rt-check: %s '%s' must be an integer %d..%ld", a, val,
                                is_cpu ? 0 : 1, is_cpu ? cpus - 1 : 99L);
            *(is_cpu ? &cpu : &priority) = (int)v;
        }
    }
    struct utsname u;
    char version[300] = "";
    if (uname(&u) == 0)
        snprintf(version, sizeof version, "%s %s", u.release, u.version);
    rt_probe_paths paths = rt_probe_paths_default();
    rt_probe_facts facts;
    rt_probe_read(&paths, version, cpu, &facts);

    wakeup_run r = {.frame_ns = (int64_t)llround(frame_s * 1e9), .cpu = cpu, .priority = priority};
    r.periods = (int64_t)llround(duration_s / frame_s);
    if (r.periods < 1)
        r.periods = 1;
    /* 1 us bins up to two frames (at least 10 ms), then one overflow bin */
    r.bin_count = (size_t)fmax(2 * frame_s * 1e6, 10000) + 1;
    r.bins = calloc(r.bin_count, sizeof *r.bins);
    if (!r.bins)
        return cli_fail("rt-check: out of memory");
    printf("rt-check: can this machine hold a %.4g ms frame? %lld wake-ups on CPU %d (%.4g s)\n\n",
           frame_s * 1e3, (long long)r.periods, cpu, duration_s);
    fflush(stdout);
    bool locked = mlockall(MCL_CURRENT | MCL_FUTURE) == 0;
    /* As cyclictest and rtcosim's real-time runs (rt-option cpu-dma-latency
     * 0): while this stays open, no CPU enters an idle state slower to leave. */
    int dma_fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
    int dma_errno = dma_fd < 0 ? errno : 0;
    int32_t zero = 0;
    if (dma_fd >= 0 && write(dma_fd, &zero, sizeof zero) != (ssize_t)sizeof zero) {
        dma_errno = errno;
        close(dma_fd);
        dma_fd = -1;
    }
    pthread_t t;
    if (pthread_create(&t, NULL, measure, &r) != 0) {
        free(r.bins);
        return cli_fail("rt-check: cannot start the measuring thread");
    }
    pthread_join(t, NULL);
    if (locked)
        munlockall();
    if (dma_fd >= 0)
        close(dma_fd);
    print_findings(&facts, version, cpu, frame_s);
    if (dma_fd >= 0)
        finding("idle states", "held at 0 us (/dev/cpu_dma_latency)", "");
    else
        printf("  %-14s %-34s -> run as root (or hold it in the rig's setup) so that deep\n"
               "  %-14s %-34s    idle states do not delay wake-ups\n",
               "idle states", dma_errno == ENOENT ? "no /dev/cpu_dma_latency" : strerror(dma_errno),
               "", "");
    printf("  %-14s %-34s %s%s\n", "scheduling",
           r.fifo_error ? "SCHED_OTHER (SCHED_FIFO refused)" : "SCHED_FIFO",
           r.fifo_error ? "-> run as root or raise RLIMIT_RTPRIO (ulimit -r) for " : "",
           r.fifo_error ? "SCHED_FIFO" : "");
    if (r.affinity_error)
        printf("  %-14s CPU %d refused (%s): measured unpinned\n", "affinity", cpu,
               strerror(r.affinity_error));
    if (!locked)
        printf("  %-14s %-34s -> raise RLIMIT_MEMLOCK (ulimit -l) or run as root\n", "memory",
               "not locked (page faults possible)");

    /* cyclictest-style histogram, condensed to decades 1-2-5 */
    printf("\nwake-up latency (us)   count\n");
    static const double edges[] = {10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000,
                                   50000, 100000, 200000, 500000, 1000000};
    double frame_us = frame_s * 1e6, lo = 0;
    uint64_t late = 0;
    for (size_t e = 0; e <= sizeof edges / sizeof edges[0]; e++) {
        double hi = e < sizeof edges / sizeof edges[0] ? edges[e] : INFINITY;
        uint64_t n = 0;
        for (size_t i = (size_t)lo; i < r.bin_count && (double)i < hi; i++)
            n += r.bins[i];
        if (n)
            printf("  %7.0f - %-9.0f %10llu\n", lo, hi, (unsigned long long)n);
        lo = hi;
        if (!isfinite(lo) || lo >= (double)r.bin_count)
            break;
    }
    for (size_t i = (size_t)frame_us; i < r.bin_count; i++)
        late += r.bins[i];
    double half = 0;
    for (size_t i = (size_t)(frame_us / 2); i < r.bin_count; i++)
        half += (double)r.bins[i];
    double p50 = percentile(&r, 50), p99 = percentile(&r, 99), p999 = percentile(&r, 99.9);
    printf("\np50 %.0f us, p99 %.0f us, p99.9 %.0f us, max %.1f us; %llu wake-ups later than "
           "half the frame, %llu a whole frame late\n",
           p50, p99, p999, (double)r.max_ns / 1e3, (unsigned long long)half,
           (unsigned long long)late);
    const char *verdict = late ? "CANNOT HOLD" : half ? "MARGINAL" : "HOLDS";
    printf("verdict: %s a %.4g ms frame on CPU %d", verdict, frame_s * 1e3, cpu);
    if (late)
        printf(" (%llu frames would overrun with no computation at all)",
               (unsigned long long)late);
    else if (half)
        printf(" (only computations shorter than frame - %.0f us fit every frame)",
               (double)r.max_ns / 1e3);
    printf("\n");
    printf("rt_check.wakeup_p99_us %.6g us\nrt_check.wakeup_max_us %.6g us\n"
           "rt_check.late_wakeups %llu count\n",
           p99, (double)r.max_ns / 1e3, (unsigned long long)late);
    free(r.bins);
    return 0;
}

const rtcosim_cli_command rtcosim_cli_cmd_rt_check = {
    "rt-check", "tell whether this machine can hold a real-time frame, and what to change",
    run_rt_check};
