/* Helpers shared by all benchmarks: clocks, peak memory, medians, output lines. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <ftw.h>
#include <sys/resource.h>
#include <sys/wait.h>
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

int bench_run_peer(char *const argv[], const char *cwd, double *wall_s, double *cpu_s, char *out,
                   size_t out_size)
{
    int pipe_fds[2];
    if (out_size)
        out[0] = '\0';
    if (pipe(pipe_fds) != 0)
        return -1;
    fflush(stdout);
    int64_t t0 = bench_now_ns();
    pid_t pid = fork();
    if (pid < 0) {
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(pipe_fds[1], STDOUT_FILENO);
        dup2(pipe_fds[1], STDERR_FILENO);
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        if (cwd && chdir(cwd) != 0)
            _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    close(pipe_fds[1]);
    size_t used = 0;
    char sink[4096];
    for (;;) { /* read all (the peer must not block on a full pipe); keep the start */
        char *dst = used + 1 < out_size ? out + used : sink;
        size_t room = used + 1 < out_size ? out_size - 1 - used : sizeof sink;
        ssize_t n = read(pipe_fds[0], dst, room);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (dst != sink)
            used += (size_t)n;
    }
    close(pipe_fds[0]);
    if (out_size)
        out[used] = '\0';
    int status = 0;
    struct rusage usage;
    while (wait4(pid, &status, 0, &usage) < 0)
        if (errno != EINTR)
            return -1;
    *wall_s = (double)(bench_now_ns() - t0) * 1e-9;
    *cpu_s = (double)usage.ru_utime.tv_sec + (double)usage.ru_stime.tv_sec +
             ((double)usage.ru_utime.tv_usec + (double)usage.ru_stime.tv_usec) * 1e-6;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

void bench_remove_tree(const char *dir)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

bool bench_option(int argc, char **argv, int *i, const char *name, const char **value)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0)
        return false;
    if (argv[*i][n] == '=') {
        *value = argv[*i] + n + 1;
        return true;
    }
    if (argv[*i][n] != '\0' || *i + 1 >= argc)
        return false;
    *value = argv[++*i];
    return true;
}

bool bench_parse_count(const char *text, unsigned long lo, unsigned long hi, unsigned long *out)
{
    if (!text || *text < '0' || *text > '9')
        return false;
    errno = 0;
    char *end;
    unsigned long v = strtoul(text, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}
