/* Locates the example FMUs that come with rtcosim, so that `rtcosim demo`
 * and the benchmarks need no file from the user, installed or not. */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtcosim/simulate.h"

static bool exists(const char *path)
{
    return access(path, R_OK) == 0;
}

rtcosim_status rtcosim_example_fmu_path(const char *file_name, char *out, size_t capacity,
                                        rtcosim_error *err)
{
    char dirs[4][PATH_MAX];
    size_t n = 0;
    const char *env = getenv("RTCOSIM_FMU_DIR");
    if (env && *env)
        snprintf(dirs[n++], PATH_MAX, "%s", env);
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            snprintf(dirs[n++], PATH_MAX, "%.*s/../share/rtcosim/fmus", PATH_MAX - 32, exe);
        }
    }
    /* A binary run from the build tree uses the FMUs built with it, never an
     * older installed copy; an installed binary found its own above. */
    snprintf(dirs[n++], PATH_MAX, "%s", RTCOSIM_BUILD_FMU_DIR);
    snprintf(dirs[n++], PATH_MAX, "%s", RTCOSIM_INSTALLED_FMU_DIR);
    for (size_t i = 0; i < n; i++) {
        char candidate[2 * PATH_MAX], resolved[PATH_MAX];
        int len = snprintf(candidate, sizeof candidate, "%s/%s", dirs[i], file_name);
        if (len < 0 || (size_t)len >= sizeof candidate || !exists(candidate))
            continue;
        /* Show users a clean path ("/usr/share/...", not "/usr/bin/../share/..."). */
        const char *path = realpath(candidate, resolved) ? resolved : candidate;
        int w = snprintf(out, capacity, "%s", path);
        if (w > 0 && (size_t)w < capacity)
            return RTCOSIM_OK;
    }
    if (capacity)
        out[0] = '\0';
    char looked[RTCOSIM_ERROR_MESSAGE_MAX] = "";
    size_t used = 0;
    for (size_t i = 0; i < n && used < sizeof looked; i++) {
        int w = snprintf(looked + used, sizeof looked - used, "%s%s", i ? ", " : "", dirs[i]);
        used += w > 0 ? (size_t)w : 0;
    }
    return rtcosim_error_set(err, RTCOSIM_ENOTFOUND,
                             "example FMU %s not found (looked in %s; set RTCOSIM_FMU_DIR)",
                             file_name, looked);
}
