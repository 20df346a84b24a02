/* Shared libraries on first use (lazy_lib.h). */
#include "util/lazy_lib.h"

#include <dlfcn.h>
#include <stdio.h>

static void load(util_lazy_lib *lib)
{
    void *handle = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        snprintf(lib->failure, sizeof lib->failure, "cannot load %s %s: %s", lib->soname,
                 lib->purpose, why ? why : "unknown error");
        atomic_store(&lib->state, -1);
        return;
    }
    for (size_t i = 0; i < lib->count; i++) {
        void *f = dlsym(handle, lib->symbols[i].name);
        if (!f) {
            snprintf(lib->failure, sizeof lib->failure, "%s (%s) has no %s", lib->soname,
                     lib->purpose, lib->symbols[i].name);
            atomic_store(&lib->state, -1);
            return; /* kept open: a slot filled before may already be in use elsewhere */
        }
        *lib->symbols[i].slot = f;
    }
    atomic_store(&lib->state, 1);
}

rtcosim_status util_lazy_lib_load(util_lazy_lib *lib, rtcosim_error *err)
{
    int state = atomic_load(&lib->state);
    if (state == 0) {
        pthread_mutex_lock(&lib->lock);
        if (atomic_load(&lib->state) == 0)
            load(lib);
        pthread_mutex_unlock(&lib->lock);
        state = atomic_load(&lib->state);
    }
    if (state < 0)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s", lib->failure);
    return RTCOSIM_OK;
}
