/* cyclictest as the floor of the real-time benchmarks: runs it with the
 * benchmark's CPU, priority and period, and parses its `-q -h` output (the
 * histogram lines "LATENCY_US COUNT..." and the "# Total/Min/Avg/Max
 * Latencies" and "# Histogram Overflows" summary lines). */
#include "cyclictest.h"

#include <errno.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

/* Sum of the unsigned numbers after the first ':' of a "# Name: a b c" line. */
static uint64_t sum_after_colon(const char *line, const char *end, double *first)
{
    const char *p = memchr(line, ':', (size_t)(end - line));
    uint64_t sum = 0;
    bool seen = false;
    if (!p)
        return 0;
    for (p++; p < end;) {
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if (p >= end || *p < '0' || *p > '9')
            break;
        uint64_t v = 0;
        while (p < end && *p >= '0' && *p <= '9' && v < UINT64_MAX / 10)
            v = v * 10 + (uint64_t)(*p++ - '0');
        while (p < end && *p >= '0' && *p <= '9') /* absurdly long: saturate */
            p++;
        if (!seen && first)
            *first = (double)v;
        seen = true;
        sum += v;
    }
    return sum;
}

static bool starts_with(const char *line, const char *end, const char *prefix)
{
    size_t n = strlen(prefix);
    return (size_t)(end - line) >= n && memcmp(line, prefix, n) == 0;
}

/* A histogram line: digits, then one or more counts. Returns false otherwise. */
static bool histogram_line(const char *p, const char *end, uint64_t *bin, uint64_t *count)
{
    if (p >= end || *p < '0' || *p > '9')
        return false;
    uint64_t b = 0;
    while (p < end && *p >= '0' && *p <= '9') {
        if (b > 100000000) /* past 100 s: not a latency bin */
            return false;
        b = b * 10 + (uint64_t)(*p++ - '0');
    }
    uint64_t c = 0;
    int columns = 0;
    while (p < end) {
        if (*p != ' ' && *p != '\t')
            return false;
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if (p >= end)
            break;
        uint64_t v = 0;
        if (*p < '0' || *p > '9')
            return false;
        while (p < end && *p >= '0' && *p <= '9' && v < UINT64_MAX / 10)
            v = v * 10 + (uint64_t)(*p++ - '0');
        if (p < end && *p >= '0' && *p <= '9')
            return false;
        c += v, columns++;
    }
    if (columns == 0)
        return false;
    *bin = b, *count = c;
    return true;
}

/* The histogram as (bin, count) pairs in the order read: cyclictest prints
 * every bin up to its limit, but hand-made or truncated outputs need not. */
typedef struct bin_count {
    uint64_t bin, count; /* count wake-ups bin..bin+1 us late */
} bin_count;

typedef struct bins {
    bin_count *pair;
    size_t size, cap;
} bins;

static int bins_add(bins *h, uint64_t bin, uint64_t count)
{
    if (h->size == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 1024;
        bin_count *p = realloc(h->pair, cap * sizeof *p);
        if (!p)
            return -1;
        h->pair = p, h->cap = cap;
    }
    h->pair[h->size++] = (bin_count){bin, count};
    return 0;
}

static int compare_bins(const void *a, const void *b)
{
    uint64_t x = ((const bin_count *)a)->bin, y = ((const bin_count *)b)->bin;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile over the sorted bins plus the overflows (which
 * rank above every bin, as the maximum). */
static double bins_percentile(const bins *h, uint64_t total, double max_us, double p)
{
    if (total == 0)
        return NAN;
    uint64_t rank = (uint64_t)ceil(p / 100.0 * (double)total), seen = 0;
    if (rank < 1)
        rank = 1;
    for (size_t i = 0; i < h->size; i++) {
        seen += h->pair[i].count;
        if (seen >= rank)
            return (double)h->pair[i].bin;
    }
    return max_us;
}

int bench_cyclictest_parse(const char *text, size_t len, double frame_us, bench_cyclictest *out)
{
    memset(out, 0, sizeof *out);
    out->min_us = out->avg_us = out->max_us = NAN;
    out->p50_us = out->p99_us = out->p999_us = NAN;
    bins h = {0};
    bool have_total = false, have_bins = false, have_max = false;
    uint64_t binned = 0;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        const char *line_end = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
        uint64_t bin, count;
        if (starts_with(p, line_end, "# Total:")) {
            out->samples = sum_after_colon(p, line_end, NULL);
            have_total = true;
        } else if (starts_with(p, line_end, "# Min Latencies:"))
            sum_after_colon(p, line_end, &out->min_us);
        else if (starts_with(p, line_end, "# Avg Latencies:"))
            sum_after_colon(p, line_end, &out->avg_us);
        else if (starts_with(p, line_end, "# Max Latencies:")) {
            sum_after_colon(p, line_end, &out->max_us);
            have_max = true;
        } else if (starts_with(p, line_end, "# Histogram Overflows:"))
            out->overflows = sum_after_colon(p, line_end, NULL);
        else if (histogram_line(p, line_end, &bin, &count)) {
            if (bins_add(&h, bin, count)) {
                free(h.pair);
                return -1;
            }
            binned += count;
            have_bins = true;
            if ((double)bin >= frame_us)
                out->late += count;
        }
        p = nl ? nl + 1 : end;
    }
    if (!have_total && !have_bins) {
        free(h.pair);
        return -1;
    }
    /* "# Total" counts the samples in the histogram (overflows excluded) in
     * rt-tests 2.x; trust the bins when both are there. */
    if (have_bins)
        out->samples = binned + out->overflows;
    if (h.size)
        qsort(h.pair, h.size, sizeof *h.pair, compare_bins);
    if (!have_max) /* the highest non-empty bin */
        for (size_t i = h.size; i-- > 0;)
            if (h.pair[i].count) {
                out->max_us = (double)h.pair[i].bin;
                break;
            }
    out->late += out->overflows;
    out->p50_us = bins_percentile(&h, out->samples, out->max_us, 50);
    out->p99_us = bins_percentile(&h, out->samples, out->max_us, 99);
    out->p999_us = bins_percentile(&h, out->samples, out->max_us, 99.9);
    free(h.pair);
    return 0;
}

/* Is `name` an executable on PATH? */
static bool on_path(const char *name)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";
    char buf[4096];
    for (const char *p = path; *p;) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        if (n > 0 && snprintf(buf, sizeof buf, "%.*s/%s", (int)n, p, name) < (int)sizeof buf &&
            access(buf, X_OK) == 0)
            return true;
        if (!colon)
            break;
        p = colon + 1;
    }
    return false;
}

int bench_cyclictest_run(int cpu, int priority, double period_s, double seconds,
                         bench_cyclictest *out, char *why, size_t why_size)
{
    if (why_size)
        why[0] = '\0';
    if (!on_path("cyclictest"))
        return 1;
    long interval_us = lround(period_s * 1e6);
    if (interval_us < 1)
        interval_us = 1;
    long long loops = llround(seconds / period_s);
    if (loops < 1)
        loops = 1;
    /* the histogram reaches well past one frame, so that late wake-ups are
     * counted in bins, not only as overflows */
    long limit = interval_us * 4 > 10000 ? interval_us * 4 : 10000;
    char command[512], affinity[32] = "", policy[32] = "";
    if (cpu >= 0)
        snprintf(affinity, sizeof affinity, " -a %d", cpu);
    if (priority > 0)
        snprintf(policy, sizeof policy, " -p %d", priority);
    else
        snprintf(policy, sizeof policy, " --policy=other");
    snprintf(command, sizeof command, "cyclictest -m -q -t 1%s%s -i %ld -l %lld -h %ld 2>&1",
             policy, affinity, interval_us, loops, limit);
    fflush(stdout);
    FILE *pipe = popen(command, "r");
    if (!pipe) {
        snprintf(why, why_size, "cannot start cyclictest: %s", strerror(errno));
        return -1;
    }
    size_t size = 0, cap = 1 << 20;
    char *text = malloc(cap);
    for (size_t n; text && (n = fread(text + size, 1, cap - size, pipe)) > 0;) {
        size += n;
        if (size == cap) {
            char *bigger = realloc(text, cap *= 2);
            if (!bigger)
                free(text);
            text = bigger;
        }
    }
    int status = pclose(pipe);
    if (!text) {
        snprintf(why, why_size, "out of memory reading cyclictest's output");
        return -1;
    }
    int rc = bench_cyclictest_parse(text, size, (double)interval_us, out);
    if (rc != 0 || out->samples == 0) {
        /* the first line that is not a comment tells what went wrong */
        const char *line = text, *end = text + size;
        while (line < end && *line == '#') {
            const char *nl = memchr(line, '\n', (size_t)(end - line));
            line = nl ? nl + 1 : end;
        }
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        int n = (int)((nl ? nl : end) - line);
        snprintf(why, why_size, "cyclictest gave no result (exit status %d)%s%.*s",
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1, n > 0 ? ": " : "", n > 200 ? 200 : n,
                 line);
        rc = -1;
    }
    free(text);
    return rc;
}

int bench_cyclictest_floor(int cpu, int priority, double period_s, double seconds,
                           bench_cyclictest *out)
{
    char why[512], where[32] = "any CPU";
    if (cpu >= 0)
        snprintf(where, sizeof where, "CPU %d", cpu);
    printf("platform floor: cyclictest, %s %d, period %.4g ms, %s, %.4g s\n",
           priority > 0 ? "SCHED_FIFO" : "SCHED_OTHER", priority, period_s * 1e3, where, seconds);
    int rc = bench_cyclictest_run(cpu, priority, period_s, seconds, out, why, sizeof why);
    if (rc == 1) {
        printf("platform floor: cyclictest not installed (Debian rt-tests): no floor measured\n");
        return 0;
    }
    if (rc != 0) {
        printf("platform floor: %s\n", why);
        return 0;
    }
    printf("platform floor: %llu wake-ups, p50 %.0f us, p99 %.0f us, p99.9 %.0f us, max %.0f us, "
           "%llu at least one period late\n",
           (unsigned long long)out->samples, out->p50_us, out->p99_us, out->p999_us, out->max_us,
           (unsigned long long)out->late);
    fflush(stdout);
    return 1;
}

void bench_cyclictest_figures(const char *prefix, const bench_cyclictest *ct, double own_p99_us)
{
    char name[128];
    snprintf(name, sizeof name, "%s.cyclictest_p50_us", prefix);
    bench_figure(name, ct->p50_us, "us");
    snprintf(name, sizeof name, "%s.cyclictest_p99_us", prefix);
    bench_figure(name, ct->p99_us, "us");
    snprintf(name, sizeof name, "%s.cyclictest_p999_us", prefix);
    bench_figure(name, ct->p999_us, "us");
    snprintf(name, sizeof name, "%s.cyclictest_max_us", prefix);
    bench_figure(name, ct->max_us, "us");
    snprintf(name, sizeof name, "%s.cyclictest_late_wakeups", prefix);
    bench_figure(name, (double)ct->late, "count");
    if (own_p99_us >= 0) {
        snprintf(name, sizeof name, "%s.lateness_p99_over_cyclictest", prefix);
        bench_figure(name, bench_ratio(own_p99_us, ct->p99_us), "ratio");
    }
}

double bench_ratio(double a, double b)
{
    if (b > 0)
        return a / b;
    return a > 0 ? INFINITY : 0;
}
