/* Internals of the live view shared by its files: the object and its rings
 * (serve.c), the HTTP/WebSocket side and the server thread (serve_http.c). */
#ifndef RTCOSIM_SERVE_INTERNAL_H
#define RTCOSIM_SERVE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "realtime/spsc.h"
#include "rtcosim/serve.h"

#define SERVE_MAX_CAN_BUSES 32
#define SERVE_MAX_PARTNERS 16
#define SERVE_MAX_CLIENTS 32
#define SERVE_APPLIED_CAPACITY 4096
/* Lateness histogram bins, upper edges in microseconds (last: beyond). */
#define SERVE_LATENESS_BINS 16

typedef struct serve_variable {
    char *name, *unit;
} serve_variable;

typedef struct serve_tunable {
    char *name, *unit;
    const char *refusal; /* NULL: tunable; else why not ("an output", ...) */
    const char *kind;    /* "parameter" or "input" */
    int part;
    rtcosim_component *component;
    uint32_t vr;
    rtcosim_type type;
} serve_tunable;

typedef struct serve_set {
    uint32_t tunable;
    double value;
} serve_set;

typedef struct serve_applied {
    rtcosim_time_ns t;
    uint32_t tunable;
    double value;
} serve_applied;

typedef struct serve_frame {
    rtcosim_time_ns te, lateness, exec;
    uint32_t flags, partner;
} serve_frame;

struct rtcosim_serve {
    rtcosim_serve_options options;
    char host[64];
    int port;
    char *token, *title;
    char url[160];

    serve_variable *vars;
    size_t var_count, var_cap;
    serve_tunable *tunables;
    size_t tunable_count, tunable_cap;
    char *partners[SERVE_MAX_PARTNERS];
    size_t partner_count;
    char *can_buses[SERVE_MAX_CAN_BUSES];
    size_t can_count;

    /* Run thread -> server thread. */
    rtcosim_spsc values; /* slot: time then var_count doubles */
    _Atomic int want_values;
    rtcosim_spsc frames; /* serve_frame */
    _Atomic uint64_t can_frames[SERVE_MAX_CAN_BUSES];
    /* Server -> run threads (one ring per part), and the log of applied
     * requests each part's thread writes (published by a release store of
     * its count). */
    rtcosim_spsc sets[2];
    serve_applied *applied[2];
    _Atomic size_t applied_count[2];
    _Atomic uint64_t applied_dropped;
    uint64_t ended_first; /* accepted, then the run ended before its next step (s->lock) */
    _Atomic int paused, stop, ended;
    bool started;
    int avoid_cpu; /* the paced thread's CPU, -1: none (rtcosim_serve_avoid_cpu) */

    /* Server side: the newest sample and the statistics, under `lock`
     * (never taken by a run thread). */
    pthread_mutex_t lock;
    double *latest;
    rtcosim_time_ns latest_t;
    bool have_latest;
    double start_wall, latest_wall; /* monotonic s */
    uint64_t frames_seen, frames_dropped, overruns;
    uint64_t lateness_bins[SERVE_LATENESS_BINS];
    rtcosim_time_ns lateness_max;
    uint64_t exchanges[SERVE_MAX_PARTNERS], estimated[SERVE_MAX_PARTNERS];
    uint64_t can_last[SERVE_MAX_CAN_BUSES];
    double can_rate[SERVE_MAX_CAN_BUSES];
    double can_last_wall;
    uint64_t sets_received, sets_refused;

    /* WebSocket clients, under clients_lock (server thread and CivetWeb's). */
    pthread_mutex_t clients_lock;
    struct mg_connection *clients[SERVE_MAX_CLIENTS];
    size_t client_count;
    uint64_t messages_sent, messages_skipped;

    struct mg_context *ctx;
    pthread_t pump;
    bool pump_started;
    _Atomic int pump_run;
};

#pragma GCC visibility push(hidden)
/* serve_http.c */
rtcosim_status serve_http_start(rtcosim_serve *s, rtcosim_error *err);
void serve_http_stop(rtcosim_serve *s);
/* serve.c */
extern const double serve_lateness_edges_us[SERVE_LATENESS_BINS - 1];
double serve_now(void);
/* The index of a tunable entry by name, or -1. */
long serve_find_tunable(const rtcosim_serve *s, const char *name);
/* Checks a request to set tunable `index` to value; on refusal writes the
 * reason (naming the variable) into why. */
bool serve_check_set(const rtcosim_serve *s, long index, const char *name, double value,
                     char *why, size_t why_size);
/* Queues it for its part's thread; false when the queue is full. */
bool serve_queue_set(rtcosim_serve *s, long index, double value);
/* Drains the run's rings into the server-side state (server thread). */
void serve_collect(rtcosim_serve *s);
#pragma GCC visibility pop

#endif
