/* util_write_target (see write_target.h). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "write_target.h"
#include "rtcosim/results.h"

bool util_target_replaceable(const char *target)
{
    struct stat sb;
    return stat(target, &sb) != 0 || S_ISREG(sb.st_mode);
}

void rtcosim_results_discard(const char *path)
{
    char *target = util_write_target(path);
    struct stat sb;
    if (target && lstat(target, &sb) == 0 && S_ISREG(sb.st_mode))
        (void)unlink(target);
    free(target);
}

char *util_write_target(const char *path)
{
    struct stat sb;
    if (lstat(path, &sb) != 0 || !S_ISLNK(sb.st_mode))
        return strdup(path);
    char *resolved = realpath(path, NULL);
    if (resolved)
        return resolved;
    /* a dangling link (its target not there yet): the target it names, a
     * relative one from the link's directory (one level: enough to write) */
    char target[PATH_MAX];
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n <= 0)
        return strdup(path);
    target[n] = '\0';
    const char *slash = strrchr(path, '/');
    if (target[0] == '/' || !slash)
        return strdup(target);
    size_t dir = (size_t)(slash - path) + 1, len = dir + (size_t)n + 1;
    char *joined = malloc(len);
    if (joined) {
        memcpy(joined, path, dir);
        memcpy(joined + dir, target, (size_t)n + 1);
    }
    return joined;
}
