/* Run-time loading of the Unicorn engine into a scope of its own (why: see
 * unicorn_api.h). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "unicorn_api.h"

#ifndef RTCOSIM_UNICORN_SONAME
#define RTCOSIM_UNICORN_SONAME "libunicorn.so.2"
#endif

#if defined(__SANITIZE_ADDRESS__)
#define VECU_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VECU_SANITIZED 1
#endif
#endif

vecu_unicorn vecu_uc;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[256];

static void load(void)
{
    int flags = RTLD_NOW | RTLD_LOCAL;
#ifndef VECU_SANITIZED
    flags |= RTLD_DEEPBIND;
#endif
    void *h = dlopen(RTCOSIM_UNICORN_SONAME, flags);
    if (!h) {
        snprintf(load_error, sizeof load_error, "%s", dlerror());
        return;
    }
    struct {
        const char *name;
        void **slot;
    } entries[] = {
        {"uc_open", (void **)&vecu_uc.open},           {"uc_close", (void **)&vecu_uc.close},
        {"uc_ctl", (void **)&vecu_uc.ctl},             {"uc_mem_map", (void **)&vecu_uc.mem_map},
        {"uc_mem_map_ptr", (void **)&vecu_uc.mem_map_ptr},
        {"uc_mem_unmap", (void **)&vecu_uc.mem_unmap}, {"uc_mem_write", (void **)&vecu_uc.mem_write},
        {"uc_mmio_map", (void **)&vecu_uc.mmio_map},   {"uc_hook_add", (void **)&vecu_uc.hook_add},
        {"uc_reg_read", (void **)&vecu_uc.reg_read},   {"uc_reg_write", (void **)&vecu_uc.reg_write},
        {"uc_emu_start", (void **)&vecu_uc.emu_start}, {"uc_emu_stop", (void **)&vecu_uc.emu_stop},
        {"uc_strerror", (void **)&vecu_uc.strerror},
    };
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
        *entries[i].slot = dlsym(h, entries[i].name);
        if (!*entries[i].slot) {
            snprintf(load_error, sizeof load_error, "%s lacks %s", RTCOSIM_UNICORN_SONAME,
                     entries[i].name);
            vecu_uc.open = NULL;
            return; /* the handle stays open: harmless, and dlclose would race */
        }
    }
}

rtcosim_status vecu_unicorn_load(rtcosim_error *err)
{
    pthread_once(&once, load);
    if (!vecu_uc.open)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "vecu: cannot load the Unicorn engine"
                                 " (%s); install libunicorn2 (scripts/deps.sh)", load_error);
    return RTCOSIM_OK;
}
