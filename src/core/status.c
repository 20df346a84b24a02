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

/* Length of the valid UTF-8 sequence at s (1 to 4), 0 when it is none
 * (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF). */
static size_t utf8_length(const unsigned char *s)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
             : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (!n)
        return 0;
    unsigned lo = 0x80, hi = 0xBF; /* the second byte's range */
    if (c == 0xE0)
        lo = 0xA0;
    else if (c == 0xED)
        hi = 0x9F;
    else if (c == 0xF0)
        lo = 0x90;
    else if (c == 0xF4)
        hi = 0x8F;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t k = 2; k < n; k++)
        if ((s[k] & 0xC0) != 0x80)
            return 0;
    return n;
}

/* A message quotes what it read (a token of a file, a library's text): line
 * breaks and tabs in it become spaces, other control characters (C0, DEL,
 * C1) and bytes that are no UTF-8 "\xNN", so that the one line it is stays one line and
 * shows no terminal control sequence. */
static void printable(char *message, size_t size)
{
    const unsigned char *m = (const unsigned char *)message;
    size_t i = 0;
    while (m[i] && m[i] >= 0x20 && m[i] < 0x7F)
        i++;
    if (!m[i])
        return; /* plain ASCII: most messages */
    char out[RTCOSIM_ERROR_MESSAGE_MAX];
    size_t n = i;
    memcpy(out, message, i);
    while (m[i] && n + 5 < sizeof out) {
        size_t len = m[i] >= 0x80 ? utf8_length(m + i) : 1;
        if (len == 2 && m[i] == 0xC2 && m[i + 1] < 0xA0)
            len = 0; /* a C1 control character (U+0080-U+009F): its bytes escaped */
        if (m[i] == '\n' || m[i] == '\r' || m[i] == '\t') {
            out[n++] = ' ';
            i++;
        } else if (len == 0 || m[i] < 0x20 || m[i] == 0x7F) {
            n += (size_t)snprintf(out + n, sizeof out - n, "\\x%02X", m[i]);
            i++;
        } else {
            if (n + len + 1 > sizeof out)
                break;
            memcpy(out + n, m + i, len);
            n += len;
            i += len;
        }
    }
    out[n] = '\0';
    snprintf(message, size, "%s", out);
}

rtcosim_status rtcosim_error_setv(rtcosim_error *err, rtcosim_status status,
                                  const char *fmt, va_list ap)
{
    if (err) {
        err->status = status;
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        printable(err->message, sizeof err->message);
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
    printable(err->message, sizeof err->message);
    return err->status;
}
