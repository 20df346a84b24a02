/* The live view's HTTP and WebSocket side on CivetWeb, and its server
 * thread: the page, GET /api/info|values|stats, POST /api/set|pause|
 * resume|stop, and the stream /api/stream that the server thread feeds at
 * up to rate_hz with the newest sample and the statistics. Every request
 * passes admit() first (token, Host, Origin). */
#include "serve/serve_internal.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <sched.h>
#include <civetweb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "serve/serve_json.h"

extern const unsigned char serve_page_html[];
extern const size_t serve_page_html_size;

/* --- Replies --------------------------------------------------------------- */

static const char *status_text(int status)
{
    switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 409: return "Conflict";
    case 413: return "Payload Too Large";
    case 415: return "Unsupported Media Type";
    case 503: return "Service Unavailable";
    default: return "Error";
    }
}

static int reply(struct mg_connection *conn, int status, const char *type, const void *body,
                 size_t size)
{
    mg_printf(conn,
              "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
              "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n"
              "X-Frame-Options: DENY\r\n"
              "Content-Security-Policy: default-src 'none'; script-src 'unsafe-inline'; "
              "style-src 'unsafe-inline'; connect-src 'self'; img-src data:\r\n\r\n",
              status, status_text(status), type, size);
    mg_write(conn, body, size);
    return status;
}

static int reply_json(struct mg_connection *conn, int status, const char *json)
{
    return reply(conn, status, "application/json", json, strlen(json));
}

/* {"error": why, "name": name} */
static int reply_error(struct mg_connection *conn, int status, const char *why, const char *name)
{
    char body[1024];
    size_t len = 0;
    serve_json_appendf(body, sizeof body, &len, "{\"error\":");
    serve_json_append_string(body, sizeof body, &len, why);
    if (name) {
        serve_json_appendf(body, sizeof body, &len, ",\"name\":");
        serve_json_append_string(body, sizeof body, &len, name);
    }
    serve_json_appendf(body, sizeof body, &len, "}");
    return reply_json(conn, status, body);
}

/* --- Admission ------------------------------------------------------------- */

static bool same_secret(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    unsigned char diff = (unsigned char)(la != lb);
    for (size_t i = 0; i < lb; i++)
        diff |= (unsigned char)(a[i < la ? i : 0] ^ b[i]);
    return diff == 0;
}

static bool loopback_host(const char *host)
{
    if (!host)
        return false;
    char name[256];
    size_t n = strcspn(host, ":");
    if (host[0] == '[') /* [::1]:port */
        return strncmp(host, "[::1]", 5) == 0;
    if (n >= sizeof name)
        return false;
    memcpy(name, host, n);
    name[n] = '\0';
    return strcmp(name, "localhost") == 0 || strncmp(name, "127.", 4) == 0;
}

/* NULL when the request may proceed, else the status and reason. */
static const char *refused(const rtcosim_serve *s, const struct mg_connection *conn, int *status)
{
    const struct mg_request_info *ri = mg_get_request_info(conn);
    const char *host = mg_get_header(conn, "Host");
    if (s->token) {
        char given[256] = "";
        const char *auth = mg_get_header(conn, "Authorization");
        if (auth && strncmp(auth, "Bearer ", 7) == 0)
            snprintf(given, sizeof given, "%s", auth + 7);
        else if (ri->query_string)
            mg_get_var(ri->query_string, strlen(ri->query_string), "token", given, sizeof given);
        if (!same_secret(given, s->token)) {
            *status = 401;
            return "missing or wrong token (Authorization: Bearer TOKEN or ?token=TOKEN)";
        }
    } else if (!loopback_host(host)) {
        /* DNS rebinding: a page of another site resolving its name to
         * 127.0.0.1 sends its own Host. */
        *status = 403;
        return "Host is not a loopback name (serve with --serve-token to be reached otherwise)";
    }
    const char *origin = mg_get_header(conn, "Origin");
    if (origin && (!host || strncmp(origin, "http://", 7) != 0 || strcmp(origin + 7, host) != 0)) {
        *status = 403;
        return "request from another origin";
    }
    return NULL;
}

/* --- JSON documents -------------------------------------------------------- */

typedef struct text {
    char *buf;
    size_t len, size;
} text;

static void text_reserve(text *t, size_t more)
{
    if (t->len + more < t->size)
        return;
    size_t size = t->size ? t->size : 1024;
    while (t->len + more >= size)
        size *= 2;
    char *p = realloc(t->buf, size);
    if (p) {
        t->buf = p;
        t->size = size;
    }
}

static void put_string(text *t, const char *s)
{
    text_reserve(t, strlen(s) * 6 + 3);
    serve_json_append_string(t->buf, t->size, &t->len, s);
}

static void put_number(text *t, double v)
{
    text_reserve(t, 48);
    serve_json_append_number(t->buf, t->size, &t->len, v);
}

static void put(text *t, const char *s)
{
    text_reserve(t, strlen(s) + 1);
    serve_json_appendf(t->buf, t->size, &t->len, "%s", s);
}

static void put_uint(text *t, uint64_t v)
{
    char b[32];
    snprintf(b, sizeof b, "%llu", (unsigned long long)v);
    put(t, b);
}

static const char *state_of(const rtcosim_serve *s)
{
    if (atomic_load(&((rtcosim_serve *)s)->ended))
        return "ended";
    if (rtcosim_serve_stop_requested(s))
        return "stopping";
    return rtcosim_serve_paused(s) ? "paused" : "running";
}

static const char *mode_name(rtcosim_serve_mode mode)
{
    return mode == RTCOSIM_SERVE_REAL_TIME ? "real-time"
           : mode == RTCOSIM_SERVE_EVENTS  ? "events"
                                           : "offline";
}

/* "time", "wall", "state", "values" (under s->lock). */
static void put_values(text *t, rtcosim_serve *s)
{
    put(t, "\"time\":");
    if (s->have_latest)
        put_number(t, rtcosim_time_to_seconds(s->latest_t));
    else
        put(t, "null");
    put(t, ",\"wall\":");
    put_number(t, (s->have_latest ? s->latest_wall : serve_now()) - s->start_wall);
    put(t, ",\"state\":");
    put_string(t, state_of(s));
    put(t, ",\"values\":{");
    for (size_t i = 0; i < s->var_count; i++) {
        if (i)
            put(t, ",");
        put_string(t, s->vars[i].name);
        put(t, ":");
        if (s->have_latest)
            put_number(t, s->latest[i]);
        else
            put(t, "null");
    }
    put(t, "}");
}

/* The statistics object (under s->lock). */
static void put_stats(text *t, rtcosim_serve *s)
{
    put(t, "{\"frames\":");
    put_uint(t, s->frames_seen);
    put(t, ",\"overruns\":");
    put_uint(t, s->overruns);
    put(t, ",\"lateness_max_us\":");
    put_number(t, (double)s->lateness_max / 1e3);
    put(t, ",\"lateness_histogram\":{\"edges_us\":[");
    for (size_t i = 0; i < SERVE_LATENESS_BINS - 1; i++) {
        if (i)
            put(t, ",");
        put_number(t, serve_lateness_edges_us[i]);
    }
    put(t, "],\"counts\":[");
    for (size_t i = 0; i < SERVE_LATENESS_BINS; i++) {
        if (i)
            put(t, ",");
        put_uint(t, s->lateness_bins[i]);
    }
    put(t, "]},\"partners\":[");
    for (size_t p = 0; p < s->partner_count; p++) {
        if (p)
            put(t, ",");
        put(t, "{\"name\":");
        put_string(t, s->partners[p]);
        put(t, ",\"exchanges\":");
        put_uint(t, s->exchanges[p]);
        put(t, ",\"estimated\":");
        put_uint(t, s->estimated[p]);
        put(t, ",\"share\":");
        put_number(t, s->exchanges[p] ? (double)s->estimated[p] / (double)s->exchanges[p] : 0);
        put(t, "}");
    }
    put(t, "],\"can\":[");
    for (size_t b = 0; b < s->can_count; b++) {
        if (b)
            put(t, ",");
        put(t, "{\"bus\":");
        put_string(t, s->can_buses[b]);
        put(t, ",\"frames\":");
        put_uint(t, s->can_last[b]);
        put(t, ",\"frames_per_s\":");
        put_number(t, s->can_rate[b]);
        put(t, "}");
    }
    put(t, "],\"tuning_applied\":");
    put_uint(t, rtcosim_serve_applied_count(s));
    put(t, "}");
}

static void put_info(text *t, rtcosim_serve *s)
{
    put(t, "{\"title\":");
    put_string(t, s->title);
    put(t, ",\"mode\":");
    put_string(t, mode_name(s->options.mode));
    put(t, ",\"read_only\":");
    put(t, s->options.read_only ? "true" : "false");
    put(t, ",\"rate_hz\":");
    put_uint(t, s->options.rate_hz);
    put(t, ",\"variables\":[");
    for (size_t i = 0; i < s->var_count; i++) {
        put(t, i ? ",{\"name\":" : "{\"name\":");
        put_string(t, s->vars[i].name);
        put(t, ",\"unit\":");
        put_string(t, s->vars[i].unit);
        put(t, "}");
    }
    put(t, "],\"tunable\":[");
    bool first = true;
    for (size_t i = 0; i < s->tunable_count && !s->options.read_only; i++) {
        const serve_tunable *tu = &s->tunables[i];
        if (tu->refusal)
            continue;
        put(t, first ? "{\"name\":" : ",{\"name\":");
        first = false;
        put_string(t, tu->name);
        put(t, ",\"unit\":");
        put_string(t, tu->unit);
        put(t, ",\"kind\":");
        put_string(t, tu->kind);
        put(t, ",\"type\":");
        put_string(t, rtcosim_type_name(tu->type));
        put(t, "}");
    }
    put(t, "],\"controls\":[");
    if (!s->options.read_only)
        put(t, s->options.mode == RTCOSIM_SERVE_OFFLINE ? "\"pause\",\"resume\",\"stop\""
                                                        : "\"stop\"");
    put(t, "]}");
}

/* --- Requests -------------------------------------------------------------- */

/* The body into buf (at most max bytes); -1: too large, -2: unreadable. */
static long read_body(struct mg_connection *conn, char *buf, size_t max)
{
    const struct mg_request_info *ri = mg_get_request_info(conn);
    if (ri->content_length > (long long)max)
        return -1;
    size_t len = 0;
    for (;;) {
        char *at = len < max ? buf + len : buf;
        size_t room = len < max ? max - len : max;
        int n = mg_read(conn, at, room);
        if (n < 0)
            return -2;
        if (n == 0)
            break;
        if (len >= max)
            return -1; /* more than max (chunked or lying length) */
        len += (size_t)n;
    }
    return (long)len;
}

static int handle_set(struct mg_connection *conn, rtcosim_serve *s)
{
    const char *type = mg_get_header(conn, "Content-Type");
    if (!type || strncmp(type, "application/json", 16) != 0)
        return reply_error(conn, 415, "POST /api/set takes Content-Type: application/json", NULL);
    size_t max = s->options.max_request_bytes;
    char *body = malloc(max + 1);
    if (!body)
        return reply_error(conn, 503, "out of memory", NULL);
    long n = read_body(conn, body, max);
    if (n == -1) {
        free(body);
        char why[96];
        snprintf(why, sizeof why, "request body larger than %zu bytes", max);
        return reply_error(conn, 413, why, NULL);
    }
    char name[512], why[1024];
    double value;
    if (n < 0 || !serve_json_parse_set(body, (size_t)n, name, sizeof name, &value, why,
                                       sizeof why)) {
        free(body);
        char msg[1100];
        snprintf(msg, sizeof msg, "malformed request: %s", n < 0 ? "unreadable body" : why);
        return reply_error(conn, 400, msg, NULL);
    }
    free(body);
    long index = serve_find_tunable(s, name);
    if (!serve_check_set(s, index, name, value, why, sizeof why)) {
        pthread_mutex_lock(&s->lock);
        s->sets_refused++;
        pthread_mutex_unlock(&s->lock);
        return reply_error(conn, index < 0 ? 404 : 400, why, name);
    }
    /* one producer per ring: CivetWeb's threads take turns; and "ended"
     * looked at under the lock rtcosim_serve_finish sets it under, so a
     * request is either refused here or counted there */
    pthread_mutex_lock(&s->lock);
    if (atomic_load(&s->ended)) {
        pthread_mutex_unlock(&s->lock);
        return reply_error(conn, 409, "the run has ended", name);
    }
    bool queued = serve_queue_set(s, index, value);
    s->sets_received += queued;
    pthread_mutex_unlock(&s->lock);
    if (!queued)
        return reply_error(conn, 503, "too many tuning requests waiting for the next step", name);
    text t = {0};
    put(&t, "{\"ok\":true,\"name\":");
    put_string(&t, name);
    put(&t, ",\"value\":");
    put_number(&t, value);
    put(&t, s->options.mode == RTCOSIM_SERVE_OFFLINE ? ",\"applies\":\"at the next macro step\"}"
                                                     : ",\"applies\":\"at the next frame\"}");
    int status = t.buf ? reply_json(conn, 200, t.buf) : reply_error(conn, 503, "out of memory", NULL);
    free(t.buf);
    return status;
}

static int handle_control(struct mg_connection *conn, rtcosim_serve *s, const char *what)
{
    if (strcmp(what, "stop") == 0) {
        atomic_store(&s->stop, 1);
        if (s->options.stop_flag) {
            int expected = 0;
            atomic_compare_exchange_strong(s->options.stop_flag, &expected, s->options.stop_value);
        }
    } else if (s->options.mode != RTCOSIM_SERVE_OFFLINE) {
        return reply_error(conn, 409, "pause and resume are for offline runs (a real-time run "
                                      "only stops)", NULL);
    } else {
        atomic_store(&s->paused, strcmp(what, "pause") == 0);
    }
    char body[96];
    snprintf(body, sizeof body, "{\"ok\":true,\"state\":\"%s\"}", state_of(s));
    return reply_json(conn, 200, body);
}

static int handle_request(struct mg_connection *conn, void *cbdata)
{
    rtcosim_serve *s = cbdata;
    const struct mg_request_info *ri = mg_get_request_info(conn);
    int status;
    const char *why = refused(s, conn, &status);
    if (why)
        return reply_error(conn, status, why, NULL);
    const char *uri = ri->local_uri ? ri->local_uri : "";
    bool get = strcmp(ri->request_method, "GET") == 0 || strcmp(ri->request_method, "HEAD") == 0;
    bool post = strcmp(ri->request_method, "POST") == 0;
    if (strcmp(uri, "/") == 0 || strcmp(uri, "/index.html") == 0) {
        if (!get)
            return reply_error(conn, 405, "GET only", NULL);
        return reply(conn, 200, "text/html; charset=utf-8", serve_page_html, serve_page_html_size);
    }
    if (strcmp(uri, "/api/info") == 0 || strcmp(uri, "/api/values") == 0 ||
        strcmp(uri, "/api/stats") == 0) {
        if (!get)
            return reply_error(conn, 405, "GET only", NULL);
        text t = {0};
        pthread_mutex_lock(&s->lock);
        if (uri[5] == 'i')
            put_info(&t, s);
        else if (uri[5] == 'v') {
            put(&t, "{");
            put_values(&t, s);
            put(&t, "}");
        } else
            put_stats(&t, s);
        pthread_mutex_unlock(&s->lock);
        int st = t.buf ? reply_json(conn, 200, t.buf) : reply_error(conn, 503, "out of memory", NULL);
        free(t.buf);
        return st;
    }
    const char *controls[] = {"/api/set", "/api/pause", "/api/resume", "/api/stop"};
    for (size_t i = 0; i < 4; i++) {
        if (strcmp(uri, controls[i]) != 0)
            continue;
        if (!post)
            return reply_error(conn, 405, "POST only", NULL);
        if (s->options.read_only)
            return reply_error(conn, 403, "read-only view (--serve-read-only)", NULL);
        return i == 0 ? handle_set(conn, s) : handle_control(conn, s, controls[i] + 5);
    }
    return reply_error(conn, 404, "no such resource", NULL);
}

/* --- WebSocket ------------------------------------------------------------- */

static int ws_connect(const struct mg_connection *conn, void *cbdata)
{
    rtcosim_serve *s = cbdata;
    int status;
    if (refused(s, conn, &status))
        return 1; /* CivetWeb answers the handshake with an error */
    pthread_mutex_lock(&s->clients_lock);
    bool full = s->client_count == SERVE_MAX_CLIENTS;
    pthread_mutex_unlock(&s->clients_lock);
    return full ? 1 : 0;
}

static void ws_ready(struct mg_connection *conn, void *cbdata)
{
    rtcosim_serve *s = cbdata;
    pthread_mutex_lock(&s->clients_lock);
    if (s->client_count < SERVE_MAX_CLIENTS)
        s->clients[s->client_count++] = conn;
    pthread_mutex_unlock(&s->clients_lock);
}

static int ws_data(struct mg_connection *conn, int bits, char *data, size_t len, void *cbdata)
{
    rtcosim_serve *s = cbdata;
    (void)conn;
    (void)data;
    int opcode = bits & 0x0F;
    if (opcode == MG_WEBSOCKET_OPCODE_CONNECTION_CLOSE)
        return 0;
    /* The stream is one-way; a client may send small keep-alive texts. */
    return len <= s->options.max_request_bytes;
}

static void ws_close(const struct mg_connection *conn, void *cbdata)
{
    rtcosim_serve *s = cbdata;
    pthread_mutex_lock(&s->clients_lock);
    for (size_t i = 0; i < s->client_count; i++)
        if (s->clients[i] == conn) {
            s->clients[i] = s->clients[--s->client_count];
            break;
        }
    pthread_mutex_unlock(&s->clients_lock);
}

/* --- Server thread --------------------------------------------------------- */

static void broadcast(rtcosim_serve *s, const char *msg, size_t len)
{
    pthread_mutex_lock(&s->clients_lock);
    for (size_t i = 0; i < s->client_count;) {
        /* A stalled browser blocks this write (CivetWeb's timeout), never
         * the run: its samples meanwhile are skipped. */
        if (mg_websocket_write(s->clients[i], MG_WEBSOCKET_OPCODE_TEXT, msg, len) <= 0) {
            s->clients[i] = s->clients[--s->client_count]; /* CivetWeb closes it */
            continue;
        }
        s->messages_sent++;
        i++;
    }
    pthread_mutex_unlock(&s->clients_lock);
}

static void *pump(void *arg)
{
    rtcosim_serve *s = arg;
    long period_ns = 1000000000L / (long)s->options.rate_hz;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    bool ended_sent = false;
    while (atomic_load(&s->pump_run)) {
        next.tv_nsec += period_ns;
        while (next.tv_nsec >= 1000000000L) {
            next.tv_nsec -= 1000000000L;
            next.tv_sec++;
        }
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        /* Late by more than a period (a stalled client, a loaded machine):
         * the grid restarts now. The ticks missed are not sent back to back:
         * each sample holds the latest values, and the stream stays at
         * rate_hz at most (a burst of a second's catch-up was 50 at once). */
        if ((now.tv_sec - next.tv_sec) * 1000000000L + (now.tv_nsec - next.tv_nsec) > period_ns)
            next = now;
        serve_collect(s);
        bool ended = atomic_load(&s->ended);
        if (ended && ended_sent)
            continue;
        pthread_mutex_lock(&s->clients_lock);
        bool anyone = s->client_count > 0;
        pthread_mutex_unlock(&s->clients_lock);
        if (!anyone)
            continue;
        text t = {0};
        put(&t, "{\"type\":\"sample\",");
        pthread_mutex_lock(&s->lock);
        put_values(&t, s);
        put(&t, ",\"stats\":");
        put_stats(&t, s);
        pthread_mutex_unlock(&s->lock);
        put(&t, "}");
        if (t.buf)
            broadcast(s, t.buf, t.len);
        free(t.buf);
        ended_sent = ended;
    }
    return NULL;
}

/* Set the calling thread's CPU mask to its present one without `cpu`
 * (saved in *before); false when there is nothing to do (no CPU to avoid,
 * it is the only one allowed) or the mask cannot be read or set. */
static bool off_the_paced_cpu(int cpu, cpu_set_t *before)
{
    if (cpu < 0 || cpu >= CPU_SETSIZE ||
        pthread_getaffinity_np(pthread_self(), sizeof *before, before) != 0 ||
        !CPU_ISSET(cpu, before))
        return false;
    cpu_set_t others = *before;
    CPU_CLR(cpu, &others);
    if (CPU_COUNT(&others) == 0)
        return false;
    return pthread_setaffinity_np(pthread_self(), sizeof others, &others) == 0;
}

rtcosim_status serve_http_start(rtcosim_serve *s, rtcosim_error *err)
{
    static atomic_int library_ready;
    if (atomic_exchange(&library_ready, 1) == 0)
        mg_init_library(0);
    char ports[96], timeout[32];
    snprintf(ports, sizeof ports, "%s:%d", s->host, s->port);
    snprintf(timeout, sizeof timeout, "%d", 5000);
    const char *options[] = {"listening_ports", ports,
                             "num_threads", "8",
                             "request_timeout_ms", timeout,
                             "websocket_timeout_ms", "86400000",
                             "enable_keep_alive", "yes",
                             "enable_directory_listing", "no",
                             NULL};
    struct mg_callbacks callbacks;
    memset(&callbacks, 0, sizeof callbacks);
    struct mg_init_data init = {.callbacks = &callbacks, .user_data = s,
                                .configuration_options = options};
    struct mg_error_data error = {0};
    char message[256] = "";
    error.text = message;
    error.text_buffer_size = sizeof message;
    /* Threads inherit their creator's CPU mask: CivetWeb's (all started in
     * mg_start2) and the pump get every CPU but the paced thread's. */
    cpu_set_t before;
    bool masked = off_the_paced_cpu(s->avoid_cpu, &before);
    s->ctx = mg_start2(&init, &error);
    if (!s->ctx) {
        if (masked)
            pthread_setaffinity_np(pthread_self(), sizeof before, &before);
        return rtcosim_error_set(err, RTCOSIM_EIO, "--serve %s:%d: cannot listen: %s", s->host,
                                 s->port, message[0] ? message : "unknown error");
    }
    struct mg_server_port bound[4];
    if (mg_get_server_ports(s->ctx, 4, bound) > 0)
        s->port = bound[0].port;
    if (s->token)
        snprintf(s->url, sizeof s->url, "http://%s:%d/?token=%s", s->host, s->port, s->token);
    else
        snprintf(s->url, sizeof s->url, "http://%s:%d/", s->host, s->port);
    mg_set_request_handler(s->ctx, "/", handle_request, s);
    mg_set_websocket_handler(s->ctx, "/api/stream", ws_connect, ws_ready, ws_data, ws_close, s);
    atomic_store(&s->pump_run, 1);
    int created = pthread_create(&s->pump, NULL, pump, s);
    if (masked)
        pthread_setaffinity_np(pthread_self(), sizeof before, &before);
    if (created != 0) {
        mg_stop(s->ctx);
        s->ctx = NULL;
        return rtcosim_error_set(err, RTCOSIM_EIO, "live view: cannot start its thread");
    }
    s->pump_started = true;
    return RTCOSIM_OK;
}

typedef struct stopper {
    struct mg_context *ctx;
    atomic_int done;
} stopper;

static void *stop_server(void *arg)
{
    stopper *st = arg;
    mg_stop(st->ctx);
    atomic_store(&st->done, 1);
    return NULL;
}

void serve_http_stop(rtcosim_serve *s)
{
    if (s->pump_started) {
        atomic_store(&s->pump_run, 0);
        pthread_join(s->pump, NULL);
        s->pump_started = false;
    }
    if (!s->ctx)
        return;
    /* CivetWeb's listening thread sees the stop flag only when its poll
     * returns (a 2 s quantum in 1.15): a connection of our own wakes it. */
    stopper st = {s->ctx, 0};
    pthread_t thread;
    if (pthread_create(&thread, NULL, stop_server, &st) != 0) {
        mg_stop(s->ctx);
        s->ctx = NULL;
        return;
    }
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)s->port)};
    inet_pton(AF_INET, strcmp(s->host, "0.0.0.0") == 0 ? "127.0.0.1" : s->host, &a.sin_addr);
    while (!atomic_load(&st.done)) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd >= 0) {
            connect(fd, (struct sockaddr *)&a, sizeof a);
            close(fd);
        }
        struct timespec nap = {0, 20 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    pthread_join(thread, NULL);
    s->ctx = NULL;
}
