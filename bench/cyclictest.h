/* The platform floor: cyclictest (Debian rt-tests) run on the benchmark's own
 * CPU, priority and period right before a real-time measurement, and the
 * parser of its `-q -h` output, so that every real-time figure can be printed
 * beside what the bare machine achieves (shared BENCHMARKS.md, B3-B5). */
#ifndef RTCOSIM_BENCH_CYCLICTEST_H
#define RTCOSIM_BENCH_CYCLICTEST_H

#include <stddef.h>
#include <stdint.h>

typedef struct bench_cyclictest {
    uint64_t samples;   /* wake-ups measured ("# Total") */
    uint64_t overflows; /* wake-ups later than the histogram's limit */
    uint64_t late;      /* wake-ups at least one frame late (bins >= frame, and overflows) */
    double min_us, avg_us, max_us;
    double p50_us, p99_us, p999_us; /* nearest rank over the histogram; overflows count as max */
} bench_cyclictest;

/* Parse the output of `cyclictest -q -h LIMIT` (one or more threads; their
 * columns are added up). frame_us: the period, for `late`. Returns 0, or -1
 * when the text holds no histogram and no "# Total" line (cyclictest failed). */
int bench_cyclictest_parse(const char *text, size_t len, double frame_us, bench_cyclictest *out);

/* Run cyclictest for `seconds` with one thread of the given period, priority
 * (0: SCHED_OTHER) and CPU (-1: not pinned), memory locked. Returns 0; 1 when
 * cyclictest is not installed; -1 when it ran but gave no result (why holds
 * its first output line). */
int bench_cyclictest_run(int cpu, int priority, double period_s, double seconds,
                         bench_cyclictest *out, char *why, size_t why_size);

/* What a real-time benchmark calls right before its measurement: runs
 * cyclictest (unless disabled), prints one table line, and returns 1 with *out
 * filled when it measured, 0 otherwise (after one line saying why). */
int bench_cyclictest_floor(int cpu, int priority, double period_s, double seconds,
                           bench_cyclictest *out);

/* The figures beside rtcosim's: <prefix>.cyclictest_{p50,p99,p999,max}_us,
 * <prefix>.cyclictest_late_wakeups, and when own_p99_us >= 0
 * <prefix>.lateness_p99_over_cyclictest. */
void bench_cyclictest_figures(const char *prefix, const bench_cyclictest *ct, double own_p99_us);

/* a / b, as a ratio figure: inf when only b is 0, 0 when both are. */
double bench_ratio(double a, double b);

#endif
