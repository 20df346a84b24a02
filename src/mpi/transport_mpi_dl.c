/* The MPI transport in a build with MPI: libmpi (with Open MPI's runtime,
 * hwloc, libevent and udev behind it) is linked only into the module
 * librtcosim_mpi.so beside this library, loaded when a transport is opened,
 * i.e. under mpirun. Linked into every process it cost about 1 ms of dynamic
 * linking at each start of `rtcosim` (src/events/README.md). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launched.h"
#include "rtcosim/mpi.h"

static struct {
    rtcosim_status (*open)(rtcosim_transport *, rtcosim_error *);
    void (*close)(rtcosim_transport *);
    void (*abort)(int);
    long (*peer_pid)(int);
} mod;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char failure[4400];

bool rtcosim_mpi_launched(void) { return mpi_env_launched(); }
bool rtcosim_mpi_available(void) { return true; }

/* The module in the directory of this library (build tree or installed). */
static bool load(void)
{
    pthread_mutex_lock(&lock);
    if (!mod.open && !failure[0]) {
        Dl_info self;
        char path[4096];
        const char *slash = NULL;
        if (dladdr((void *)rtcosim_mpi_launched, &self) && self.dli_fname)
            slash = strrchr(self.dli_fname, '/');
        if (slash)
            snprintf(path, sizeof path, "%.*s/librtcosim_mpi.so", (int)(slash - self.dli_fname),
                     self.dli_fname);
        else
            snprintf(path, sizeof path, "librtcosim_mpi.so");
        /* global: Open MPI's own components resolve libmpi's symbols */
        void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
        if (h) {
            *(void **)&mod.open = dlsym(h, "rtcosim_mpi_module_transport_open");
            *(void **)&mod.close = dlsym(h, "rtcosim_mpi_module_transport_close");
            *(void **)&mod.abort = dlsym(h, "rtcosim_mpi_module_abort");
            *(void **)&mod.peer_pid = dlsym(h, "rtcosim_mpi_module_peer_pid");
            if (!mod.open || !mod.close || !mod.abort || !mod.peer_pid) {
                memset(&mod, 0, sizeof mod);
                snprintf(failure, sizeof failure, "mpi: %s lacks the transport's functions", path);
            }
        } else {
            const char *why = dlerror();
            snprintf(failure, sizeof failure, "mpi: cannot load the MPI transport: %s",
                     why ? why : path);
        }
    }
    bool ok = mod.open != NULL;
    pthread_mutex_unlock(&lock);
    return ok;
}

rtcosim_status rtcosim_mpi_transport_open(rtcosim_transport *out, rtcosim_error *err)
{
    if (!load())
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "%s", failure);
    return mod.open(out, err);
}

void rtcosim_mpi_transport_close(rtcosim_transport *t)
{
    if (mod.close)
        mod.close(t);
}

void rtcosim_mpi_abort(int code)
{
    if (mod.abort)
        mod.abort(code);
    exit(code);
}

long rtcosim_mpi_peer_pid(int rank) { return mod.peer_pid ? mod.peer_pid(rank) : -1; }
