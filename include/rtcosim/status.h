/* Status codes and error values shared by every rtcosim function.
 * Library functions return an rtcosim_status and, when given an rtcosim_error,
 * fill it with a one-line message naming the object (file, variable, component)
 * and the problem. The library never prints, exits or aborts on bad input. */
#ifndef RTCOSIM_STATUS_H
#define RTCOSIM_STATUS_H

#include <stdarg.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rtcosim_status {
    RTCOSIM_OK = 0,
    RTCOSIM_EINVAL,       /* invalid argument or option */
    RTCOSIM_ENOMEM,       /* out of memory */
    RTCOSIM_EIO,          /* file or system I/O failed */
    RTCOSIM_EFORMAT,      /* malformed input file (zip, XML, CSV, ...) */
    RTCOSIM_EUNSUPPORTED, /* valid but not supported (version, platform, capability) */
    RTCOSIM_ENOTFOUND,    /* named thing does not exist (file, variable, symbol) */
    RTCOSIM_EDISCARD,     /* component discarded the step (FMI Discard) */
    RTCOSIM_ECOMPONENT,   /* component reported an error (FMI Error) */
    RTCOSIM_EFATAL,       /* component reported a fatal error; instance unusable */
    RTCOSIM_ESTATE,       /* call not allowed in the object's current state */
    RTCOSIM_ETIMEOUT,     /* a deadline or time limit passed */
    RTCOSIM_ELOOP,        /* algebraic loop or dependency cycle */
    RTCOSIM_ECANCELED,    /* operation cancelled or aborted on request */
    RTCOSIM_STATUS_COUNT_
} rtcosim_status;

/* Short fixed text for a status code ("invalid argument", ...). Never NULL. */
const char *rtcosim_strerror(rtcosim_status status);

#define RTCOSIM_ERROR_MESSAGE_MAX 512

/* A status with its message. Callers own it (usually on the stack). */
typedef struct rtcosim_error {
    rtcosim_status status;
    char message[RTCOSIM_ERROR_MESSAGE_MAX];
} rtcosim_error;

/* Clear an error to RTCOSIM_OK with an empty message. err may be NULL. */
void rtcosim_error_clear(rtcosim_error *err);

/* Record status and a printf-style message in err (which may be NULL) and
 * return status, so that callers can write `return rtcosim_error_set(...)`. */
rtcosim_status rtcosim_error_set(rtcosim_error *err, rtcosim_status status,
                                 const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
rtcosim_status rtcosim_error_setv(rtcosim_error *err, rtcosim_status status,
                                  const char *fmt, va_list ap);

/* Prefix the existing message with context ("model.fmu: " + message).
 * Keeps the status. Returns err->status (RTCOSIM_OK when err is NULL). */
rtcosim_status rtcosim_error_prefix(rtcosim_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
