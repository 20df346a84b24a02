/* The Unicorn engine, loaded at run time into a scope of its own.
 *
 * Why: libunicorn 2 exports its own copies of 85 glib functions (g_hash_table_*,
 * g_malloc, ...) with different data structures. Linked normally, they enter
 * the process's global scope and real glib, loaded later (PLplot's cairo
 * driver for `rtcosim plot`), calls them and crashes. dlopen with RTLD_LOCAL
 * keeps them out of the global scope, and RTLD_DEEPBIND makes Unicorn's own
 * calls bind to its copies (not under the sanitizers, which reject
 * DEEPBIND; their test processes load no glib). The uc_* names below are
 * macros over the loaded entry points, so the code reads as plain Unicorn. */
#ifndef RTCOSIM_VECU_UNICORN_API_H
#define RTCOSIM_VECU_UNICORN_API_H

#include <unicorn/unicorn.h>

#include "rtcosim/status.h"

typedef struct vecu_unicorn {
    uc_err (*open)(uc_arch, uc_mode, uc_engine **);
    uc_err (*close)(uc_engine *);
    uc_err (*ctl)(uc_engine *, uc_control_type, ...);
    uc_err (*mem_map)(uc_engine *, uint64_t, size_t, uint32_t);
    uc_err (*mem_map_ptr)(uc_engine *, uint64_t, size_t, uint32_t, void *);
    uc_err (*mem_unmap)(uc_engine *, uint64_t, size_t);
    uc_err (*mem_write)(uc_engine *, uint64_t, const void *, size_t);
    uc_err (*mmio_map)(uc_engine *, uint64_t, size_t, uc_cb_mmio_read_t, void *,
                       uc_cb_mmio_write_t, void *);
    uc_err (*hook_add)(uc_engine *, uc_hook *, int, void *, void *, uint64_t, uint64_t, ...);
    uc_err (*reg_read)(uc_engine *, int, void *);
    uc_err (*reg_write)(uc_engine *, int, const void *);
    uc_err (*emu_start)(uc_engine *, uint64_t, uint64_t, uint64_t, size_t);
    uc_err (*emu_stop)(uc_engine *);
    const char *(*strerror)(uc_err);
} vecu_unicorn;

extern vecu_unicorn vecu_uc;

/* Load the library once (thread-safe); an error names it and the cause. */
rtcosim_status vecu_unicorn_load(rtcosim_error *err);

#define uc_open vecu_uc.open
#define uc_close vecu_uc.close
#define uc_ctl vecu_uc.ctl
#define uc_mem_map vecu_uc.mem_map
#define uc_mem_map_ptr vecu_uc.mem_map_ptr
#define uc_mem_unmap vecu_uc.mem_unmap
#define uc_mem_write vecu_uc.mem_write
#define uc_mmio_map vecu_uc.mmio_map
#define uc_hook_add vecu_uc.hook_add
#define uc_reg_read vecu_uc.reg_read
#define uc_reg_write vecu_uc.reg_write
#define uc_emu_start vecu_uc.emu_start
#define uc_emu_stop vecu_uc.emu_stop
#define uc_strerror vecu_uc.strerror

#endif
