/* The live view of a running system (C13): an embedded HTTP and WebSocket
 * server (CivetWeb) that serves a page with live plots, the current values,
 * real-time statistics and controls, a JSON API, and takes tuning requests.
 *
 * Threads. The run's own thread (the paced thread of a real-time run, the
 * master's thread of an offline one) only ever calls the producer and
 * consumer functions below: each is lock-free, allocation-free and
 * I/O-free (single-producer single-consumer rings of fixed size, one
 * relaxed atomic load when nothing is asked). A server thread samples the
 * newest values at up to rate_hz and sends them to the WebSocket clients;
 * CivetWeb's threads answer HTTP. A slow or stalled browser delays only the
 * server thread, which then skips samples: the run never waits for it.
 *
 * Security: binds 127.0.0.1 unless told otherwise; any other address needs
 * a token (checked on every request and WebSocket: `Authorization: Bearer
 * TOKEN` or `?token=TOKEN`); requests from another origin (Origin header)
 * and, without a token, with a Host that is not a loopback name are refused;
 * request bodies and WebSocket messages are size-limited; read_only has no
 * /api/set and no controls. */
#ifndef RTCOSIM_SERVE_H
#define RTCOSIM_SERVE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/component.h"
#include "rtcosim/master.h"
#include "rtcosim/realtime.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rtcosim_serve_mode {
    RTCOSIM_SERVE_OFFLINE = 0, /* pause, resume, stop */
    RTCOSIM_SERVE_REAL_TIME,   /* stop; lateness, overruns, estimates */
    RTCOSIM_SERVE_EVENTS       /* stop; CAN frames per bus */
} rtcosim_serve_mode;

typedef struct rtcosim_serve_options {
    const char *listen;  /* "[HOST:]PORT" (HOST: an IPv4 address, default 127.0.0.1; PORT 0: any free) */
    const char *token;   /* NULL: none (then HOST must be a loopback address) */
    bool read_only;      /* no /api/set, no controls */
    const char *title;   /* shown on the page (the system's name) */
    rtcosim_serve_mode mode;
    unsigned rate_hz;    /* WebSocket samples per second, 1..50 (0: 50) */
    size_t max_request_bytes; /* request bodies and WebSocket messages (0: 4096) */
    /* POST /api/stop stores stop_value here (when it is still 0), e.g. the
     * flag a real-time run reads once per frame; NULL: only
     * rtcosim_serve_stop_requested tells. */
    atomic_int *stop_flag;
    int stop_value;
} rtcosim_serve_options;

typedef struct rtcosim_serve rtcosim_serve;

/* Split "[HOST:]PORT" (host_size >= 16). Errors name the text. */
rtcosim_status rtcosim_serve_parse_listen(const char *text, char *host, size_t host_size,
                                          int *port, rtcosim_error *err);

/* Checks the options (a non-loopback address without a token is refused)
 * but opens nothing yet. */
rtcosim_status rtcosim_serve_create(const rtcosim_serve_options *options, rtcosim_serve **out,
                                    rtcosim_error *err);

/* Before rtcosim_serve_start: the published values (in this order), with
 * their units (NULL or ""); ... */
rtcosim_status rtcosim_serve_add_variable(rtcosim_serve *s, const char *name, const char *unit,
                                          rtcosim_error *err);
/* ... the variables of every component of a master (after initialize) as
 * "component.variable": tunable parameters and inputs not fed by a
 * connection can be set; the others are refused by name with the reason.
 * `part` names the thread that applies them (rtcosim_serve_apply): 0 or 1. */
rtcosim_status rtcosim_serve_add_master(rtcosim_serve *s, const rtcosim_master *m, int part,
                                        rtcosim_error *err);
/* Refuse tuning one of them from now on, with the reason (a static string),
 * e.g. an input fed across the parts of a real-time run. Unknown: ignored. */
void rtcosim_serve_refuse(rtcosim_serve *s, const char *name, const char *reason);
/* The unit of a master's variable "component.variable" (NULL: none). */
const char *rtcosim_serve_unit_of(const rtcosim_master *m, const char *name);
/* ... the partners whose estimated exchanges are counted (real-time), and
 * the CAN buses whose frames are counted (index = order added). */
rtcosim_status rtcosim_serve_add_partner(rtcosim_serve *s, const char *name, rtcosim_error *err);
rtcosim_status rtcosim_serve_add_can_bus(rtcosim_serve *s, const char *name, rtcosim_error *err);

/* Before rtcosim_serve_start: the CPU the run's paced thread is pinned to
 * (-1, the default: none). The server's threads (the HTTP workers and the
 * stream's pump) are then started on every other CPU, so that neither they
 * nor the loopback traffic they send (the kernel handles a loopback packet
 * on the sender's CPU) take that CPU from the paced thread. Nothing changes
 * on a machine with one CPU or when the mask cannot be set. */
void rtcosim_serve_avoid_cpu(rtcosim_serve *s, int cpu);
/* Allocates the rings, listens and starts the server thread. */
rtcosim_status rtcosim_serve_start(rtcosim_serve *s, rtcosim_error *err);
int rtcosim_serve_port(const rtcosim_serve *s);
/* "http://HOST:PORT/" (with ?token= when one is set). */
const char *rtcosim_serve_url(const rtcosim_serve *s);

/* --- On the run's thread (lock-free, no allocation, no I/O) ---------------- */

/* The values at t, in the order added; copied only when the server asked
 * for a sample (else one relaxed load). */
void rtcosim_serve_publish(rtcosim_serve *s, rtcosim_time_ns t, const double *values);
/* One real-time frame (lateness, overrun, estimated exchange), for its
 * statistics; dropped when the server is behind. `partner` indexes the
 * partners added (estimated exchanges count against it). */
void rtcosim_serve_publish_frame(rtcosim_serve *s, const rtcosim_rt_frame *frame, size_t partner);
/* Frames a CAN bus carried so far (a running total). */
void rtcosim_serve_publish_can(rtcosim_serve *s, size_t bus, uint64_t frames);
/* Apply the tuning requests for `part` that arrived since the last call,
 * stamped t (the next step starts from t); each applied one is logged.
 * Returns how many were applied. */
size_t rtcosim_serve_apply(rtcosim_serve *s, int part, rtcosim_time_ns t);
bool rtcosim_serve_paused(const rtcosim_serve *s);
bool rtcosim_serve_stop_requested(const rtcosim_serve *s);
/* Offline runs, at a step boundary t with the values there: sleeps (in
 * 10 ms naps, calling beat each time when given) while paused and not
 * stopped, publishing the values and applying tuning for `part` at t. */
void rtcosim_serve_wait_while_paused(rtcosim_serve *s, int part, rtcosim_time_ns t,
                                     const double *values, void (*beat)(void));

/* --- After the run --------------------------------------------------------- */

/* The final values (always taken) and the state "ended"; the page shows
 * them until rtcosim_serve_free. */
void rtcosim_serve_finish(rtcosim_serve *s, rtcosim_time_ns t, const double *values);
/* The tuning applied, in order of application per part (part 0 first). */
size_t rtcosim_serve_applied_count(const rtcosim_serve *s);
void rtcosim_serve_applied_at(const rtcosim_serve *s, size_t index, rtcosim_time_ns *t,
                              const char **name, double *value);
/* Requests refused because the log or the queue was full. */
uint64_t rtcosim_serve_applied_dropped(const rtcosim_serve *s);
/* Requests accepted (200) that the run ended before applying: a stop or the
 * stop time came before the next step (counted by rtcosim_serve_finish). */
uint64_t rtcosim_serve_ended_first(const rtcosim_serve *s);
/* tuning.csv: "time","name","value" per applied request (shortest
 * round-trip numbers). Errors name the path. */
rtcosim_status rtcosim_serve_write_tuning(const rtcosim_serve *s, const char *path,
                                          rtcosim_error *err);
/* Stops the server (closing the WebSockets) and frees everything. */
void rtcosim_serve_free(rtcosim_serve *s);

#ifdef __cplusplus
}
#endif
#endif
