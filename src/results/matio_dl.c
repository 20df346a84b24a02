/* libmatio on first use (matio_dl.h says why). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <matio.h>

#include "matio_dl.h"

#ifndef RTCOSIM_MATIO_SONAME
#define RTCOSIM_MATIO_SONAME "libmatio.so.11"
#endif

rtcosim_matio_api rtcosim_matio;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[256]; /* empty once loaded */

static void load(void)
{
    void *lib = dlopen(RTCOSIM_MATIO_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        snprintf(failure, sizeof failure, "cannot load %s for MAT files: %s", RTCOSIM_MATIO_SONAME,
                 why ? why : "unknown error");
        return;
    }
    rtcosim_matio_api m;
    struct { void **slot; const char *name; } want[] = {
        {(void **)&m.CreateVer, "Mat_CreateVer"}, {(void **)&m.Open, "Mat_Open"},
        {(void **)&m.Close, "Mat_Close"},         {(void **)&m.VarCreate, "Mat_VarCreate"},
        {(void **)&m.VarWrite, "Mat_VarWrite"},   {(void **)&m.VarRead, "Mat_VarRead"},
        {(void **)&m.VarFree, "Mat_VarFree"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        *want[i].slot = dlsym(lib, want[i].name);
        if (!*want[i].slot) {
            snprintf(failure, sizeof failure, "%s has no %s", RTCOSIM_MATIO_SONAME, want[i].name);
            dlclose(lib);
            return;
        }
    }
    rtcosim_matio = m; /* kept loaded for the life of the process */
}

rtcosim_status rtcosim_matio_load(rtcosim_error *err)
{
    pthread_once(&once, load);
    if (failure[0])
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s", failure);
    return RTCOSIM_OK;
}
