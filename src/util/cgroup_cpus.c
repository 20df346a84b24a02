/* The CPU quota of a process's cgroup (cgroup_cpus.h). */
#include "util/cgroup_cpus.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PATH_MAX_TEXT = 4096 };

/* The first line of path, or false. */
static bool read_line(const char *path, char *line, size_t size)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool ok = fgets(line, (int)size, f) != NULL;
    fclose(f);
    return ok;
}

/* The quota of directory dir in CPUs (0: none or unknown). */
static double quota_v2(const char *dir)
{
    char path[PATH_MAX_TEXT + 16], line[128];
    snprintf(path, sizeof path, "%s/cpu.max", dir);
    double quota, period;
    if (!read_line(path, line, sizeof line) || strncmp(line, "max", 3) == 0 ||
        sscanf(line, "%lf %lf", &quota, &period) != 2 || quota <= 0 || period <= 0)
        return 0;
    return quota / period;
}

static double quota_v1(const char *dir)
{
    char path[PATH_MAX_TEXT + 24], line[64];
    snprintf(path, sizeof path, "%s/cpu.cfs_quota_us", dir);
    double quota, period;
    if (!read_line(path, line, sizeof line) || sscanf(line, "%lf", &quota) != 1 || quota <= 0)
        return 0;
    snprintf(path, sizeof path, "%s/cpu.cfs_period_us", dir);
    if (!read_line(path, line, sizeof line) || sscanf(line, "%lf", &period) != 1 || period <= 0)
        return 0;
    return quota / period;
}

/* The smallest quota from base + cgroup up to base. */
static double smallest_along(const char *base, const char *cgroup, bool v2)
{
    char dir[PATH_MAX_TEXT];
    int n = snprintf(dir, sizeof dir, "%s%s", base, strcmp(cgroup, "/") == 0 ? "" : cgroup);
    if (n < 0 || (size_t)n >= sizeof dir)
        return 0;
    size_t keep = strlen(base);
    double smallest = 0;
    for (;;) {
        double q = v2 ? quota_v2(dir) : quota_v1(dir);
        if (q > 0 && (smallest == 0 || q < smallest))
            smallest = q;
        char *slash = strrchr(dir, '/');
        if (!slash || (size_t)(slash - dir) < keep)
            break;
        *slash = '\0';
    }
    return smallest;
}

/* Whether a v1 line's controller list ("cpu,cpuacct") names cpu. */
static bool lists_cpu(const char *controllers)
{
    size_t n = strlen(controllers);
    for (const char *c = controllers; c < controllers + n; c += strcspn(c, ",") + 1)
        if (strcspn(c, ",") == 3 && strncmp(c, "cpu", 3) == 0)
            return true;
    return false;
}

double util_cgroup_cpus_in(const char *proc_cgroup, const char *root)
{
    double smallest = 0;
    for (const char *line = proc_cgroup; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char text[PATH_MAX_TEXT];
        if (len < sizeof text) {
            memcpy(text, line, len);
            text[len] = '\0';
            /* "ID:CONTROLLERS:PATH" */
            char *first = strchr(text, ':'), *second = first ? strchr(first + 1, ':') : NULL;
            if (second && second[1] == '/') {
                *second = '\0';
                const char *controllers = first + 1, *cgroup = second + 1;
                char base[PATH_MAX_TEXT];
                double q = 0;
                if (!*controllers) { /* v2 */
                    snprintf(base, sizeof base, "%s", root);
                    q = smallest_along(base, cgroup, true);
                } else {
                    if (lists_cpu(controllers)) { /* v1: mounted as the list or as cpu alone */
                        snprintf(base, sizeof base, "%s/%s", root, controllers);
                        q = smallest_along(base, cgroup, false);
                        if (q == 0) {
                            snprintf(base, sizeof base, "%s/cpu", root);
                            q = smallest_along(base, cgroup, false);
                        }
                    }
                }
                if (q > 0 && (smallest == 0 || q < smallest))
                    smallest = q;
            }
        }
        line = end ? end + 1 : NULL;
    }
    return smallest;
}

double util_cgroup_cpus(void)
{
    char text[PATH_MAX_TEXT];
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f)
        return 0;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    return util_cgroup_cpus_in(text, "/sys/fs/cgroup");
}
