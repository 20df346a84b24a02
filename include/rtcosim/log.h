/* Logging with levels and a caller-chosen sink.
 * The library never writes to stdout/stderr by itself: until a handler is
 * installed every message is dropped. The CLI installs a stderr handler. */
#ifndef RTCOSIM_LOG_H
#define RTCOSIM_LOG_H

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rtcosim_log_level {
    RTCOSIM_LOG_ERROR = 0,
    RTCOSIM_LOG_WARNING,
    RTCOSIM_LOG_INFO,
    RTCOSIM_LOG_DEBUG,
    RTCOSIM_LOG_TRACE
} rtcosim_log_level;

/* category: a short origin tag ("fmi", "master", a component instance name). */
typedef void (*rtcosim_log_handler)(void *context, rtcosim_log_level level,
                                    const char *category, const char *message);

/* Install a handler (NULL drops everything) and its context. Not thread-safe
 * with respect to concurrent logging: call it before starting a run. */
void rtcosim_log_set_handler(rtcosim_log_handler handler, void *context);

/* Messages above this level are dropped before formatting. Default: INFO. */
void rtcosim_log_set_level(rtcosim_log_level level);
rtcosim_log_level rtcosim_log_get_level(void);

/* Parse "error", "warning", "info", "debug", "trace" (or 0-4). Returns 0 on
 * success, -1 when the text is not a level. */
int rtcosim_log_level_parse(const char *text, rtcosim_log_level *out);
const char *rtcosim_log_level_name(rtcosim_log_level level);

/* True when a message of this level would reach the handler. */
int rtcosim_log_enabled(rtcosim_log_level level);

void rtcosim_log(rtcosim_log_level level, const char *category, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void rtcosim_logv(rtcosim_log_level level, const char *category, const char *fmt,
                  va_list ap);

/* A ready-made handler writing "[level] category: message" lines to the FILE*
 * given as context (stderr when context is NULL). */
void rtcosim_log_stderr_handler(void *context, rtcosim_log_level level,
                                const char *category, const char *message);

#ifdef __cplusplus
}
#endif
#endif
