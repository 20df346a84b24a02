/* A shared library loaded on first use instead of at every start of the
 * program: libmatio (HDF5, libcurl, GnuTLS, Kerberos, LDAP behind it) and
 * libzip (OpenSSL's libcrypto, liblzma, libbz2 behind it) cost milliseconds of
 * dynamic linking in every `rtcosim` process, also in runs that never read a
 * MAT file or an archive, such as `rtcosim events` (src/events/README.md).
 * A user lists the functions it calls and their slots; the first load fills
 * the slots or fails with an error naming the library and what is missing. */
#ifndef RTCOSIM_UTIL_LAZY_LIB_H
#define RTCOSIM_UTIL_LAZY_LIB_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include "rtcosim/status.h"

typedef struct util_lazy_symbol {
    void **slot;
    const char *name;
} util_lazy_symbol;

typedef struct util_lazy_lib {
    const char *soname;     /* e.g. "libzip.so.4" */
    const char *purpose;    /* for the error: "for MAT files" */
    const util_lazy_symbol *symbols;
    size_t count;
    pthread_mutex_t lock;   /* PTHREAD_MUTEX_INITIALIZER */
    atomic_int state;       /* 0 not tried, 1 loaded, -1 failed */
    char failure[320];
} util_lazy_lib;

/* Loads lib once (thread-safe; cheap once loaded). The library stays loaded
 * for the life of the process. */
rtcosim_status util_lazy_lib_load(util_lazy_lib *lib, rtcosim_error *err);

#endif
