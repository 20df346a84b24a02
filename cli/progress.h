/* The progress line of long CLI runs (simulate, run, events): percent of simulated
 * time, speed (simulated seconds per wall second) and the estimated time
 * left, redrawn in place on standard error at most 10 times a second, only
 * when standard error is a terminal and --quiet was not given. */
#ifndef RTCOSIM_CLI_PROGRESS_H
#define RTCOSIM_CLI_PROGRESS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/time.h"

typedef struct cli_progress {
    bool enabled, drawn;
    rtcosim_time_ns start, stop;
    double wall_start, next_draw;
    uint32_t calls;
} cli_progress;

/* Enabled when not quiet, stderr is a terminal and the interval is not empty. */
void cli_progress_init(cli_progress *p, bool quiet, rtcosim_time_ns start, rtcosim_time_ns stop);
/* The run reached simulated time t (cheap: looks at the wall clock every
 * 64th call). */
void cli_progress_update(cli_progress *p, rtcosim_time_ns t);
/* Draw the line for simulated time t now (callers that pace themselves,
 * such as a thread polling a run every 100 ms). */
void cli_progress_draw(cli_progress *p, rtcosim_time_ns t);
/* Erase the line (before the summary is printed). */
void cli_progress_finish(cli_progress *p);

/* The line's text: " 42.0 %  t = 4.2 s  speed 12.3x  ETA 0:03" for fraction
 * 0.42 done at simulated time t after `simulated_s` simulated seconds in
 * `wall_s` wall seconds; speed and ETA are left out while nothing is done.
 * Returns the length (snprintf's). */
/* A thread that draws the line every 100 ms from `read(context)` while a run
 * whose own threads must not be disturbed goes on (events, real time). */
typedef struct cli_progress_watch {
    cli_progress line;
    rtcosim_time_ns (*read)(void *context);
    void *context;
    _Atomic bool done;
    bool started;
    pthread_t thread;
} cli_progress_watch;

void cli_progress_watch_start(cli_progress_watch *w, bool quiet, rtcosim_time_ns start,
                              rtcosim_time_ns stop, rtcosim_time_ns (*read)(void *context),
                              void *context);
/* Stop the thread and erase the line (idempotent). */
void cli_progress_watch_stop(cli_progress_watch *w);

int cli_progress_format(char *buf, size_t size, double fraction, double t, double simulated_s,
                        double wall_s);

#endif
