/* Status texts and the error value helpers (errors are values, see DESIGN.md). */
#include <stdio.h>
#include <string.h>

#include "rtcosim/status.h"

static const char *const status_texts[RTCOSIM_STATUS_COUNT_] = {
    [RTCOSIM_OK] = "ok",
    [RTCOSIM_EINVAL] = "invalid argument",
    [RTCOSIM_ENOMEM] = "out of memory",
    [RTCOSIM_EIO] = "input/output error",
    [RTCOSIM_EFORMAT] = "malformed input",
    [RTCOSIM_EUNSUPPORTED] = "not supported",
    [RTCOSIM_ENOTFOUND] = "not found",
    [RTCOSIM_EDISCARD] = "step discarded by component",
    [RTCOSIM_ECOMPONENT] = "component error",
    [RTCOSIM_EFATAL] = "fatal component error",
    [RTCOSIM_ESTATE] = "call not allowed in this state",
    [RTCOSIM_ETIMEOUT] = "deadline passed",
    [RTCOSIM_ELOOP] = "dependency cycle",
    [RTCOSIM_ECANCELED] = "cancelled",
};

const char *rtcosim_strerror(rtcosim_status status)
{
    if ((unsigned)status >= RTCOSIM_STATUS_COUNT_)
        return "unknown status";
    return status_texts[status];
}

void rtcosim_error_clear(rtcosim_error *err)
{
    if (!err)
        return;
    err->status = RTCOSIM_OK;
    err->message[0] = '\0';
}

rtcosim_status rtcosim_error_setv(rtcosim_error *err, rtcosim_status status,
                                  const char *fmt, va_list ap)
{
    if (err) {
        err->status = status;
        vsnprintf(err->message, sizeof err->message, fmt, ap);
    }
    return status;
}

rtcosim_status rtcosim_error_set(rtcosim_error *err, rtcosim_status status,
                                 const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rtcosim_error_setv(err, status, fmt, ap);
    va_end(ap);
    return status;
}

rtcosim_status rtcosim_error_prefix(rtcosim_error *err, const char *fmt, ...)
{
    if (!err)
        return RTCOSIM_OK;
    char prefix[RTCOSIM_ERROR_MESSAGE_MAX];
    char old[RTCOSIM_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, err->message, sizeof old);
    size_t used = strlen(prefix);
    memcpy(err->message, prefix, used + 1);
    if (used + 1 < sizeof err->message) {
        size_t room = sizeof err->message - used - 1;
        strncat(err->message + used, old, room);
    }
    return err->status;
}
