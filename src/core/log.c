/* The library's logger: levels, one caller-installed sink, nothing printed by
 * default (the library never prints unless asked). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/log_quiet.h"
#include "rtcosim/log.h"

static rtcosim_log_handler log_handler;
static void *log_context;
static rtcosim_log_level log_level = RTCOSIM_LOG_INFO;
static _Thread_local unsigned log_quiet; /* log_quiet_begin's depth on this thread */

static const char *const level_names[] = {"error", "warning", "info", "debug", "trace"};

void rtcosim_log_set_handler(rtcosim_log_handler handler, void *context)
{
    log_handler = handler;
    log_context = context;
}

void rtcosim_log_set_level(rtcosim_log_level level) { log_level = level; }
rtcosim_log_level rtcosim_log_get_level(void) { return log_level; }

int rtcosim_log_level_parse(const char *text, rtcosim_log_level *out)
{
    if (!text)
        return -1;
    for (int i = 0; i <= (int)RTCOSIM_LOG_TRACE; i++) {
        if (strcasecmp(text, level_names[i]) == 0 || (text[0] == '0' + i && text[1] == '\0')) {
            *out = (rtcosim_log_level)i;
            return 0;
        }
    }
    if (strcasecmp(text, "warn") == 0) {
        *out = RTCOSIM_LOG_WARNING;
        return 0;
    }
    return -1;
}

const char *rtcosim_log_level_name(rtcosim_log_level level)
{
    if ((unsigned)level > RTCOSIM_LOG_TRACE)
        return "?";
    return level_names[level];
}

int rtcosim_log_enabled(rtcosim_log_level level)
{
    return log_handler != NULL && level <= log_level && (!log_quiet || level == RTCOSIM_LOG_ERROR);
}

void log_quiet_begin(void) { log_quiet++; }
void log_quiet_end(void)
{
    if (log_quiet)
        log_quiet--;
}

void rtcosim_logv(rtcosim_log_level level, const char *category, const char *fmt, va_list ap)
{
    if (!rtcosim_log_enabled(level))
        return;
    char message[1024];
    vsnprintf(message, sizeof message, fmt, ap);
    log_handler(log_context, level, category ? category : "rtcosim", message);
}

void rtcosim_log(rtcosim_log_level level, const char *category, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rtcosim_logv(level, category, fmt, ap);
    va_end(ap);
}

void rtcosim_log_stderr_handler(void *context, rtcosim_log_level level, const char *category,
                                const char *message)
{
    FILE *out = context ? (FILE *)context : stderr;
    fprintf(out, "[%s] %s: %s\n", rtcosim_log_level_name(level), category, message);
}
