/* LD_PRELOAD shim for test_lsbus_systems: counts malloc, calloc and realloc
 * calls made outside FMU binaries (callers whose object lies under a
 * binaries/ folder of an extracted FMU are counted apart) and prints both
 * counts to stderr at exit, so a test can check that the engine allocates
 * nothing per frame: the count must not grow with the run's length. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static atomic_ulong engine, fmus;
static _Thread_local int inside;

static void note(void *caller)
{
    if (inside)
        return;
    inside = 1;
    Dl_info info;
    if (dladdr(caller, &info) && info.dli_fname && strstr(info.dli_fname, "/binaries/"))
        atomic_fetch_add(&fmus, 1);
    else
        atomic_fetch_add(&engine, 1);
    inside = 0;
}

void *malloc(size_t n)
{
    note(__builtin_return_address(0));
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    note(__builtin_return_address(0));
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    note(__builtin_return_address(0));
    return __libc_realloc(p, n);
}

__attribute__((destructor)) static void report(void)
{
    fprintf(stderr, "allocations %lu outside FMUs, %lu in FMUs\n",
            (unsigned long)atomic_load(&engine), (unsigned long)atomic_load(&fmus));
}
