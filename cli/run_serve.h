/* --serve, --serve-token, --serve-read-only for the commands that run a
 * system (run, run --real-time, events, demo): the live view (rtcosim/
 * serve.h) opened, fed and closed around a run, with small hooks for each. */
#ifndef RTCOSIM_CLI_RUN_SERVE_H
#define RTCOSIM_CLI_RUN_SERVE_H

#include <stdbool.h>
#include <stdio.h>

#include <pthread.h>
#include <stdatomic.h>

#include "rtcosim/can.h"
#include "rtcosim/events.h"
#include "rtcosim/serve.h"
#include "rtcosim/system.h"
#include "rtcosim/system_rt.h"

typedef struct cli_serve {
    const char *listen; /* --serve [HOST:]PORT; NULL: no live view */
    const char *token;  /* --serve-token */
    bool read_only;     /* --serve-read-only */
    rtcosim_serve *server;
    int paced_cpu; /* real time: the paced thread's CPU (-1: not pinned), kept off by the server */
    /* rtcosim events: a thread of ours samples the run (the kernel's
     * threads are left alone) */
    rtcosim_events *sim;
    rtcosim_can_bus *bus;
    /* rtcosim run --can-bus: the buses' bridges, counted at each step */
    struct rtcosim_lsbus_can_bridge *bridges[8];
    size_t bridge_count;
    pthread_t monitor;
    bool monitor_started;
    atomic_int monitor_run;
} cli_serve;

/* One of the options at argv[*i] (1: taken, *i advanced past its value;
 * 0: not one of them; -1: bad, message printed). */
int cli_serve_option(cli_serve *sv, int argc, char **argv, int *i);
/* Their lines for a command's --help. */
void cli_serve_usage(FILE *out);
/* A token or read-only mode without --serve: message, non-zero. */
int cli_serve_check(const cli_serve *sv);

/* Creates the server (nothing when --serve was not given): 0 or an exit code. */
int cli_serve_create(cli_serve *sv, rtcosim_serve_mode mode, const char *title);
/* Starts it and prints "live view: URL" on stderr: 0 or an exit code. */
int cli_serve_start(cli_serve *sv);

/* rtcosim run --can-bus: each bus's frames per second on the page (before
 * cli_serve_start). 0 or an exit code. */
struct cli_can_buses;
int cli_serve_add_can_buses(cli_serve *sv, const struct cli_can_buses *buses,
                            const rtcosim_master *m);

/* An offline run's step boundary (the master's thread): publish the row,
 * apply the tuning, wait while paused. */
void cli_serve_step(cli_serve *sv, rtcosim_time_ns t, const double *values);

/* A real-time run: the hooks into the executor and the system's parts. */
void cli_serve_hook_real_time(cli_serve *sv, rtcosim_system_rt_options *so);

/* After rtcosim_system_rt_create: the live view of its results columns,
 * tuning both parts (not the inputs the description connects), titled with
 * the system's name, started. 0 or an exit code. */
int cli_serve_attach_real_time(cli_serve *sv, rtcosim_system_rt *srt,
                               const rtcosim_system_desc *desc);
/* After its run: as cli_serve_finish, the log also in report_dir/tuning.csv. */
int cli_serve_finish_real_time(cli_serve *sv, const rtcosim_system_rt *srt,
                               const char *results, const char *report_dir);

/* rtcosim events: the live view of the simulated time and the bus's frames,
 * sampled by a thread of ours; its stop ends the run. 0 or an exit code. */
int cli_serve_events_start(cli_serve *sv, rtcosim_events *sim, rtcosim_can_bus *bus);
/* After the run: the final values, the server closed. */
void cli_serve_events_finish(cli_serve *sv, rtcosim_time_ns reached);

/* After the run: the final row, the tuning log written to `tuning_path`
 * (NULL: none) and listed on stdout; 0 or an exit code. */
int cli_serve_finish(cli_serve *sv, rtcosim_time_ns t, const double *values,
                     const char *tuning_path);
void cli_serve_close(cli_serve *sv);

/* `<results without .csv/.mat>.tuning.csv` into buf, or NULL without results. */
const char *cli_serve_tuning_path(const char *results, char *buf, size_t size);

#endif
