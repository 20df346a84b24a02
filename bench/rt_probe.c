/* Reads the kernel's files about real-time capability (see rt_probe.h): each
 * one is small and one line; a missing or malformed file leaves its fact
 * "unknown" rather than failing the check. */
#include "rt_probe.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

rt_probe_paths rt_probe_paths_default(void)
{
    return (rt_probe_paths){
        .realtime = "/sys/kernel/realtime",
        .isolated = "/sys/devices/system/cpu/isolated",
        .rt_runtime = "/proc/sys/kernel/sched_rt_runtime_us",
        .rt_period = "/proc/sys/kernel/sched_rt_period_us",
        .cpu_dir = "/sys/devices/system/cpu",
        .smt_active = "/sys/devices/system/cpu/smt/active",
        .timerslack = "/proc/self/timerslack_ns",
    };
}

/* First line of a file without its newline; false when unreadable. */
static bool read_line(const char *path, char *out, size_t size)
{
    FILE *f = path ? fopen(path, "r") : NULL;
    if (!f)
        return false;
    bool ok = fgets(out, (int)size, f) != NULL;
    fclose(f);
    if (ok)
        out[strcspn(out, "\r\n")] = '\0';
    return ok;
}

/* One integer, alone on the line (surrounding blanks allowed). */
static bool read_integer(const char *path, long long *out)
{
    char line[64];
    if (!read_line(path, line, sizeof line))
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(line, &end, 10);
    while (*end && isspace((unsigned char)*end))
        end++;
    if (end == line || *end || errno)
        return false;
    *out = v;
    return true;
}

int rt_probe_cpulist_count(const char *list, int cpu, bool *contains)
{
    int count = 0;
    if (contains)
        *contains = false;
    const char *p = list;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p == '\0' || *p == '\n')
        return 0;
    for (;;) {
        char *end;
        if (!isdigit((unsigned char)*p))
            return -1;
        long lo = strtol(p, &end, 10), hi = lo;
        p = end;
        if (*p == '-') {
            if (!isdigit((unsigned char)p[1]))
                return -1;
            hi = strtol(p + 1, &end, 10);
            p = end;
        }
        if (hi < lo || hi > 65535)
            return -1;
        count += (int)(hi - lo + 1);
        if (contains && cpu >= lo && cpu <= hi)
            *contains = true;
        if (*p == ',') {
            p++;
            continue;
        }
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
            p++;
        return *p ? -1 : count;
    }
}

void rt_probe_read(const rt_probe_paths *paths, const char *uname_version, int cpu,
                   rt_probe_facts *out)
{
    memset(out, 0, sizeof *out);
    char line[256];
    long long v;
    /* Documentation/ABI/testing/sysfs-kernel-realtime: 1 on PREEMPT_RT; older
     * RT kernels say so in their version string only. */
    out->preempt_rt = (read_integer(paths->realtime, &v) && v == 1) ||
                      (uname_version && strstr(uname_version, "PREEMPT_RT"));
    out->isolated_count = -1;
    if (read_line(paths->isolated, line, sizeof line)) {
        out->isolated_count = rt_probe_cpulist_count(line, cpu, &out->cpu_isolated);
        snprintf(out->isolated, sizeof out->isolated, "%.127s", out->isolated_count > 0 ? line : "");
    }
    out->rt_runtime_us = read_integer(paths->rt_runtime, &v) ? v : -2;
    out->rt_period_us = read_integer(paths->rt_period, &v) ? v : -2;
    char path[512];
    snprintf(path, sizeof path, "%s/cpu%d/cpufreq/scaling_governor", paths->cpu_dir,
             cpu >= 0 ? cpu : 0);
    if (!read_line(path, out->governor, sizeof out->governor))
        out->governor[0] = '\0';
    out->smt_active = read_integer(paths->smt_active, &v) && (v == 0 || v == 1) ? (int)v : -1;
    out->timerslack_ns = read_integer(paths->timerslack, &v) && v >= 0 ? v : -1;
}
