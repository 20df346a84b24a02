/* The platform floor beside a real-time measurement: cyclictest's
 * time-stamped late wake-ups, and the attribution of late events to them
 * (rt_floor.h). */
#include "rt_floor.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sched.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cyclictest.h"

static int compare_spikes(const void *a, const void *b)
{
    int64_t x = ((const floor_spike *)a)->expected_ns, y = ((const floor_spike *)b)->expected_ns;
    return (x > y) - (x < y);
}

/* A non-negative decimal at *p (spaces first); false when none. */
static bool number(const char **p, const char *end, int64_t *v)
{
    while (*p < end && (**p == ' ' || **p == '\t'))
        (*p)++;
    if (*p >= end || **p < '0' || **p > '9')
        return false;
    int64_t n = 0;
    while (*p < end && **p >= '0' && **p <= '9') {
        if (n > INT64_MAX / 10 - 10)
            return false;
        n = n * 10 + (**p - '0');
        (*p)++;
    }
    *v = n;
    return true;
}

static bool literal(const char **p, const char *end, const char *word)
{
    while (*p < end && (**p == ' ' || **p == '\t'))
        (*p)++;
    size_t n = strlen(word);
    if ((size_t)(end - *p) < n || memcmp(*p, word, n) != 0)
        return false;
    *p += n;
    return true;
}

int floor_parse_spikes(const char *text, size_t len, floor_spikes *out)
{
    out->spike = NULL;
    out->count = 0;
    size_t cap = 0;
    for (const char *line = text, *end = text + len; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *le = nl ? nl : end, *p = line;
        int64_t thread, late_us, ts;
        if (literal(&p, le, "T:") && number(&p, le, &thread) && literal(&p, le, "Spike:") &&
            number(&p, le, &late_us) && literal(&p, le, ":") && literal(&p, le, "TS:") &&
            number(&p, le, &ts) && late_us <= ts &&
            ts < INT64_MAX / 1000 - 1000000) { /* room for a window past it */
            if (out->count == cap) {
                cap = cap ? 2 * cap : 256;
                floor_spike *s = realloc(out->spike, cap * sizeof *s);
                if (!s) {
                    floor_spikes_free(out);
                    return -1;
                }
                out->spike = s;
            }
            /* TS: the wake-up's CLOCK_MONOTONIC time in us */
            out->spike[out->count++] = (floor_spike){(ts - late_us) * 1000, late_us * 1000};
        }
        line = nl ? nl + 1 : end;
    }
    if (out->count)
        qsort(out->spike, out->count, sizeof *out->spike, compare_spikes);
    return 0;
}

int floor_spikes_merge(floor_spikes *into, const floor_spikes *from)
{
    if (!from->count)
        return 0;
    floor_spike *s = realloc(into->spike, (into->count + from->count) * sizeof *s);
    if (!s)
        return -1;
    memcpy(s + into->count, from->spike, from->count * sizeof *s);
    into->spike = s;
    into->count += from->count;
    qsort(into->spike, into->count, sizeof *into->spike, compare_spikes);
    return 0;
}

void floor_spikes_free(floor_spikes *s)
{
    free(s->spike);
    s->spike = NULL;
    s->count = 0;
}

int64_t floor_machine_ns(const floor_spikes *s, int64_t a, int64_t b)
{
    return floor_machine_ns_widened(s, a, b, 0);
}

int64_t floor_machine_ns_widened(const floor_spikes *s, int64_t a, int64_t b, int64_t widen)
{
    int64_t total = 0, covered_to = a; /* the union is summed left to right */
    for (size_t i = 0; i < s->count; i++) {
        int64_t hi = s->spike[i].expected_ns + s->spike[i].late_ns;
        int64_t lo = s->spike[i].expected_ns - widen; /* (sorted by due time all the same) */
        if (lo >= b)
            break;
        if (lo < covered_to)
            lo = covered_to;
        if (hi > b)
            hi = b;
        if (hi > lo) {
            total += hi - lo;
            covered_to = hi;
        }
    }
    return total;
}

bool floor_explains(const floor_spikes *s, const floor_event *e)
{
    int64_t overshoot = e->end - e->due;
    return overshoot <= 0 || floor_machine_ns(s, e->begin, e->end) >= overshoot;
}

void floor_tally_add(floor_tally *t, const floor_spikes *s, const floor_event *e)
{
    unsigned c = (unsigned)e->cause < FLOOR_CAUSES ? (unsigned)e->cause : FLOOR_CAUSE_EXECUTION;
    t->total++;
    if (floor_explains(s, e)) {
        t->floor[c]++;
        return;
    }
    t->own[c]++;
    t->beyond_floor++;
    /* (the rare own event: its machine time is looked at once more) */
    if (t->interval_ns > 0 && floor_machine_ns(s, e->begin, e->end) > 0 &&
        floor_machine_ns_widened(s, e->begin, e->end, t->interval_ns) >= e->end - e->due)
        t->within_interval++;
}

const char *floor_cause_name(floor_cause c)
{
    static const char *const names[] = {"wakeup", "execution", "backlog", "strategy"};
    return (unsigned)c < FLOOR_CAUSES ? names[c] : "?";
}

/* ---- cyclictest beside the measurement ------------------------------------ */

static bool installed(void)
{
    const char *path = getenv("PATH");
    char buf[4096];
    for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        if (n && snprintf(buf, sizeof buf, "%.*s/cyclictest", (int)n, p) < (int)sizeof buf &&
            access(buf, X_OK) == 0)
            return true;
        if (!colon)
            break;
        p = colon + 1;
    }
    return false;
}

int floor_start(floor_run *r, int cpu, int priority, double period_s, double seconds,
                double trigger_us, char *why, size_t why_size)
{
    memset(r, 0, sizeof *r);
    r->pid = -1;
    r->fd = -1;
    if (!installed())
        return 1;
    snprintf(r->path, sizeof r->path, "/tmp/rtcosim-floor-XXXXXX");
    r->fd = mkstemp(r->path);
    if (r->fd < 0) {
        snprintf(why, why_size, "cannot create a file for cyclictest's output: %s",
                 strerror(errno));
        return -1;
    }
    long interval_us = lround(period_s * 1e6);
    r->interval_us = (double)(interval_us < 1 ? 1 : interval_us);
    long limit = interval_us * 4 > 10000 ? interval_us * 4 : 10000;
    /* a safety bound: stopped by SIGINT right after the measurement */
    long duration = lround(seconds * 3 + 30);
    long nodes = lround(seconds / period_s) + 16;
    char a_interval[32], a_limit[32], a_duration[32], a_prio[32], a_cpu[32], a_spike[48],
        a_nodes[48];
    snprintf(a_interval, sizeof a_interval, "-i%ld", interval_us < 1 ? 1 : interval_us);
    snprintf(a_limit, sizeof a_limit, "-h%ld", limit);
    snprintf(a_duration, sizeof a_duration, "-D%ld", duration);
    snprintf(a_prio, sizeof a_prio, "-p%d", priority > 0 ? priority : 0);
    snprintf(a_cpu, sizeof a_cpu, "-a%d", cpu);
    snprintf(a_spike, sizeof a_spike, "--spike=%ld", lround(trigger_us));
    snprintf(a_nodes, sizeof a_nodes, "--spike-nodes=%ld", nodes);
    char *argv[16];
    int n = 0;
    argv[n++] = "cyclictest", argv[n++] = "-m", argv[n++] = "-q", argv[n++] = "-t1";
    argv[n++] = a_interval, argv[n++] = a_limit, argv[n++] = a_duration;
    argv[n++] = a_spike, argv[n++] = a_nodes;
    if (priority > 0)
        argv[n++] = a_prio;
    else
        argv[n++] = "--policy=other";
    if (cpu >= 0)
        argv[n++] = a_cpu;
    argv[n] = NULL;
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(why, why_size, "cannot start cyclictest: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        dup2(r->fd, 1);
        dup2(r->fd, 2);
        /* a child of a SCHED_FIFO or SCHED_DEADLINE parent: cyclictest sets
         * its own measuring thread's policy */
        struct sched_param other = {0};
        sched_setscheduler(0, SCHED_OTHER, &other);
        execvp("cyclictest", argv);
        _exit(127);
    }
    r->pid = pid;
    /* its thread is up and measuring after its setup (mlockall, the PM QoS) */
    struct timespec settle = {0, 300000000};
    nanosleep(&settle, NULL);
    return 0;
}

int floor_stop(floor_run *r, bench_cyclictest *hist, floor_spikes *spikes, char *why,
               size_t why_size)
{
    spikes->spike = NULL;
    spikes->count = 0;
    int rc = -1, status = 0;
    if (r->pid > 0) {
        kill(r->pid, SIGINT);
        while (waitpid(r->pid, &status, 0) < 0 && errno == EINTR) {
        }
    }
    char *text = NULL;
    struct stat st;
    if (r->fd >= 0 && fstat(r->fd, &st) == 0 && (text = malloc((size_t)st.st_size + 1))) {
        ssize_t got = pread(r->fd, text, (size_t)st.st_size, 0);
        size_t size = got > 0 ? (size_t)got : 0;
        text[size] = '\0';
        if (bench_cyclictest_parse(text, size, r->interval_us, hist) == 0 && hist->samples &&
            floor_parse_spikes(text, size, spikes) == 0)
            rc = 0;
        else
            snprintf(why, why_size, "cyclictest gave no result (exit status %d): %.200s",
                     WIFEXITED(status) ? WEXITSTATUS(status) : -1, text);
    } else
        snprintf(why, why_size, "cannot read cyclictest's output");
    free(text);
    if (r->fd >= 0)
        close(r->fd);
    if (r->path[0])
        unlink(r->path);
    r->fd = r->pid = -1;
    return rc;
}
