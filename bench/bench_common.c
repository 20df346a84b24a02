/* Helpers shared by all benchmarks: clocks, peak memory, medians, output lines. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

void bench_figure(const char *name, double value, const char *unit)
{
    printf("%s %.6g %s\n", name, value, unit);
    fflush(stdout);
}

int64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

double bench_peak_rss_mib(void)
{
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) != 0)
        return NAN;
    return (double)usage.ru_maxrss / 1024.0; /* ru_maxrss is in KiB on Linux */
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_percentile(double *values, size_t n, double p)
{
    if (n == 0)
        return NAN;
    qsort(values, n, sizeof *values, compare_doubles);
    size_t rank = (size_t)ceil(p / 100.0 * (double)n);
    if (rank < 1)
        rank = 1;
    if (rank > n)
        rank = n;
    return values[rank - 1];
}

double bench_median(double *values, size_t n)
{
    if (n == 0)
        return NAN;
    qsort(values, n, sizeof *values, compare_doubles);
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

const char *bench_scratch_dir(void)
{
    static char dir[4096];
    if (dir[0])
        return dir;
    const char *base = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/rtcosim-bench-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(dir))
        snprintf(dir, sizeof dir, "%s", base && *base ? base : "/tmp");
    return dir;
}

void bench_print_load(void)
{
    double load[3];
    if (getloadavg(load, 3) == 3)
        printf("machine load average (1, 5, 15 min): %.2f %.2f %.2f on %ld CPUs\n", load[0],
               load[1], load[2], sysconf(_SC_NPROCESSORS_ONLN));
}
