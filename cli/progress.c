/* The progress line (progress.h): formatting separated from drawing so that
 * the text is tested without a terminal. */
#include "progress.h"

#include <math.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int cli_progress_format(char *buf, size_t size, double fraction, double t, double simulated_s,
                        double wall_s)
{
    if (fraction < 0)
        fraction = 0;
    if (fraction > 1)
        fraction = 1;
    int n = snprintf(buf, size, "%5.1f %%  t = %.6g s", 100 * fraction, t);
    if (wall_s <= 0 || fraction <= 0 || n < 0 || (size_t)n >= size)
        return n;
    /* Speed over the whole run so far; the ETA assumes it stays. */
    double speed = simulated_s / wall_s;
    double left = wall_s * (1 - fraction) / fraction;
    long s = lround(left);
    return n + snprintf(buf + n, size - (size_t)n, "  speed %.3gx  ETA %ld:%02ld", speed, s / 60,
                        s % 60);
}

void cli_progress_init(cli_progress *p, bool quiet, rtcosim_time_ns start, rtcosim_time_ns stop)
{
    *p = (cli_progress){.enabled = !quiet && stop > start && isatty(STDERR_FILENO),
                        .start = start, .stop = stop};
    if (p->enabled)
        p->next_draw = p->wall_start = wall_now(); /* draw at once, then every 0.1 s */
}

void cli_progress_update(cli_progress *p, rtcosim_time_ns t)
{
    if (!p->enabled || p->calls++ % 64 != 0)
        return;
    if (wall_now() < p->next_draw)
        return;
    cli_progress_draw(p, t);
}

void cli_progress_draw(cli_progress *p, rtcosim_time_ns t)
{
    if (!p->enabled)
        return;
    double now = wall_now();
    p->next_draw = now + 0.1;
    char line[160];
    double fraction = (double)(t - p->start) / (double)(p->stop - p->start);
    cli_progress_format(line, sizeof line, fraction, rtcosim_time_to_seconds(t),
                        rtcosim_time_to_seconds(t - p->start), now - p->wall_start);
    fprintf(stderr, "\r%s\033[K", line);
    fflush(stderr);
    p->drawn = true;
}

void cli_progress_finish(cli_progress *p)
{
    if (p->drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    p->drawn = false;
}

static void *watch_main(void *arg)
{
    cli_progress_watch *w = arg;
    const struct timespec period = {0, 100000000};
    while (!atomic_load(&w->done)) {
        cli_progress_draw(&w->line, w->read(w->context));
        nanosleep(&period, NULL);
    }
    return NULL;
}

void cli_progress_watch_start(cli_progress_watch *w, bool quiet, rtcosim_time_ns start,
                              rtcosim_time_ns stop, rtcosim_time_ns (*read)(void *context),
                              void *context)
{
    w->read = read;
    w->context = context;
    atomic_init(&w->done, false);
    cli_progress_init(&w->line, quiet, start, stop);
    w->started = false;
    if (!w->line.enabled)
        return;
    /* the first line at once: a run over before the thread first runs
     * (a loaded machine) is shown all the same */
    cli_progress_draw(&w->line, start);
    w->started = pthread_create(&w->thread, NULL, watch_main, w) == 0;
    if (!w->started)
        cli_progress_finish(&w->line);
}

void cli_progress_watch_stop(cli_progress_watch *w)
{
    if (!w->started)
        return;
    atomic_store(&w->done, true);
    pthread_join(w->thread, NULL);
    w->started = false;
    cli_progress_finish(&w->line);
}
