/* The live view's object (serve.h): what it shows and what can be tuned,
 * the lock-free rings between the run's thread and the server thread, the
 * tuning requests applied on the run's thread and their log. */
#include "serve/serve_internal.h"

#include <arpa/inet.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rtcosim/results.h"

const double serve_lateness_edges_us[SERVE_LATENESS_BINS - 1] = {
    1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000};

double serve_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static rtcosim_status oom(rtcosim_error *err)
{
    return rtcosim_error_set(err, RTCOSIM_ENOMEM, "live view: out of memory");
}

rtcosim_status rtcosim_serve_parse_listen(const char *text, char *host, size_t host_size,
                                          int *port, rtcosim_error *err)
{
    const char *colon = text ? strrchr(text, ':') : NULL;
    const char *port_text = colon ? colon + 1 : text;
    if (!text || !*text)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "--serve: expected [HOST:]PORT");
    size_t host_len = colon ? (size_t)(colon - text) : 0;
    if (host_len >= host_size)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "--serve '%s': host too long", text);
    memcpy(host, text, host_len);
    host[host_len] = '\0';
    if (!host_len)
        snprintf(host, host_size, "127.0.0.1");
    struct in_addr addr;
    if (inet_pton(AF_INET, host, &addr) != 1)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "--serve '%s': '%s' is not an IPv4 address (e.g. 127.0.0.1, "
                                 "0.0.0.0)", text, host);
    char *end = NULL;
    long p = *port_text ? strtol(port_text, &end, 10) : -1;
    if (!end || *end || p < 0 || p > 65535)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "--serve '%s': the port must be a number 0..65535 (0: any free)",
                                 text);
    *port = (int)p;
    return RTCOSIM_OK;
}

static bool is_loopback(const char *host)
{
    struct in_addr addr;
    return inet_pton(AF_INET, host, &addr) == 1 && (ntohl(addr.s_addr) >> 24) == 127;
}

rtcosim_status rtcosim_serve_create(const rtcosim_serve_options *options, rtcosim_serve **out,
                                    rtcosim_error *err)
{
    *out = NULL;
    rtcosim_serve *s = calloc(1, sizeof *s);
    if (!s)
        return oom(err);
    s->options = *options;
    s->avoid_cpu = -1;
    rtcosim_status st = rtcosim_serve_parse_listen(options->listen, s->host, sizeof s->host,
                                                   &s->port, err);
    if (st == RTCOSIM_OK && options->token && !*options->token)
        st = rtcosim_error_set(err, RTCOSIM_EINVAL, "--serve-token: empty token");
    if (st == RTCOSIM_OK && !is_loopback(s->host) && !options->token)
        st = rtcosim_error_set(err, RTCOSIM_EINVAL,
                               "--serve %s: an address other than loopback (127.x.x.x) needs "
                               "--serve-token TOKEN", options->listen);
    if (st != RTCOSIM_OK) {
        free(s);
        return st;
    }
    if (s->options.rate_hz == 0 || s->options.rate_hz > 50)
        s->options.rate_hz = 50;
    if (s->options.max_request_bytes == 0)
        s->options.max_request_bytes = 4096;
    s->token = options->token ? strdup(options->token) : NULL;
    s->title = strdup(options->title ? options->title : "rtcosim");
    s->options.token = s->token;
    s->options.title = s->title;
    s->options.listen = NULL;
    pthread_mutex_init(&s->lock, NULL);
    pthread_mutex_init(&s->clients_lock, NULL);
    if ((options->token && !s->token) || !s->title) {
        rtcosim_serve_free(s);
        return oom(err);
    }
    *out = s;
    return RTCOSIM_OK;
}

static bool grow(void **items, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return true;
    size_t n = *cap ? *cap * 2 : 16;
    while (n < need)
        n *= 2;
    void *p = realloc(*items, n * size);
    if (!p)
        return false;
    *items = p;
    *cap = n;
    return true;
}

static rtcosim_status not_after_start(const rtcosim_serve *s, const char *what, rtcosim_error *err)
{
    return s->started ? rtcosim_error_set(err, RTCOSIM_ESTATE,
                                          "live view: %s after the server started", what)
                      : RTCOSIM_OK;
}

rtcosim_status rtcosim_serve_add_variable(rtcosim_serve *s, const char *name, const char *unit,
                                          rtcosim_error *err)
{
    rtcosim_status st = not_after_start(s, "add_variable", err);
    if (st != RTCOSIM_OK)
        return st;
    if (!grow((void **)&s->vars, &s->var_cap, s->var_count + 1, sizeof *s->vars))
        return oom(err);
    serve_variable *v = &s->vars[s->var_count];
    v->name = strdup(name);
    v->unit = strdup(unit ? unit : "");
    if (!v->name || !v->unit) {
        free(v->name);
        free(v->unit);
        return oom(err);
    }
    s->var_count++;
    return RTCOSIM_OK;
}

const char *rtcosim_serve_unit_of(const rtcosim_master *m, const char *name)
{
    /* Component names may hold dots: try every split, the first that names
     * a component with that variable wins. */
    char buffer[512];
    if (!m || strlen(name) >= sizeof buffer)
        return NULL;
    for (const char *dot = strchr(name, '.'); dot; dot = strchr(dot + 1, '.')) {
        memcpy(buffer, name, (size_t)(dot - name));
        buffer[dot - name] = '\0';
        const rtcosim_component *c = rtcosim_master_component(m, buffer);
        const rtcosim_variable *v = c ? rtcosim_component_find_variable(c, dot + 1) : NULL;
        if (v)
            return v->unit;
    }
    return NULL;
}

/* Whether "comp.var" is the input end of one of the master's connections. */
static bool connected_input(const rtcosim_master *m, const char *name)
{
    size_t len = strlen(name);
    for (size_t i = 0; i < rtcosim_master_connection_count(m); i++) {
        const char *conn = rtcosim_master_connection_name(m, i);
        const char *arrow = conn ? strstr(conn, " -> ") : NULL;
        if (arrow && strlen(arrow + 4) == len && memcmp(arrow + 4, name, len) == 0)
            return true;
    }
    return false;
}

static const char *refusal_of(const rtcosim_variable *v, bool connected)
{
    if (!rtcosim_type_is_numeric(v->type))
        return "not a number (Float, Integer or Boolean)";
    switch (v->causality) {
    case RTCOSIM_CAUSALITY_INPUT:
        return connected ? "an input fed by a connection" : NULL;
    case RTCOSIM_CAUSALITY_PARAMETER:
        return v->variability == RTCOSIM_VARIABILITY_TUNABLE ? NULL
                                                             : "a parameter that is not tunable";
    case RTCOSIM_CAUSALITY_OUTPUT:
        return "an output";
    case RTCOSIM_CAUSALITY_CALCULATED_PARAMETER:
        return "a calculated parameter";
    case RTCOSIM_CAUSALITY_STRUCTURAL_PARAMETER:
        return "a structural parameter";
    case RTCOSIM_CAUSALITY_INDEPENDENT:
        return "the independent variable";
    default:
        return "a local variable";
    }
}

rtcosim_status rtcosim_serve_add_master(rtcosim_serve *s, const rtcosim_master *m, int part,
                                        rtcosim_error *err)
{
    rtcosim_status st = not_after_start(s, "add_master", err);
    if (st != RTCOSIM_OK)
        return st;
    if (part != 0 && part != 1)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "live view: part must be 0 or 1");
    for (size_t i = 0; i < rtcosim_master_component_count(m); i++) {
        const char *comp_name = rtcosim_master_order_name(m, i);
        rtcosim_component *c = comp_name ? rtcosim_master_component(m, comp_name) : NULL;
        for (size_t k = 0; c && k < rtcosim_component_variable_count(c); k++) {
            const rtcosim_variable *v = rtcosim_component_variable(c, k);
            if (!grow((void **)&s->tunables, &s->tunable_cap, s->tunable_count + 1,
                      sizeof *s->tunables))
                return oom(err);
            size_t len = strlen(comp_name) + strlen(v->name) + 2;
            char *name = malloc(len);
            char *unit = strdup(v->unit ? v->unit : "");
            if (!name || !unit) {
                free(name);
                free(unit);
                return oom(err);
            }
            snprintf(name, len, "%s.%s", comp_name, v->name);
            s->tunables[s->tunable_count++] = (serve_tunable){
                .name = name,
                .unit = unit,
                .refusal = refusal_of(v, v->causality == RTCOSIM_CAUSALITY_INPUT &&
                                             connected_input(m, name)),
                .kind = v->causality == RTCOSIM_CAUSALITY_INPUT ? "input" : "parameter",
                .part = part,
                .component = c,
                .vr = v->value_reference,
                .type = v->type};
        }
    }
    return RTCOSIM_OK;
}

void rtcosim_serve_refuse(rtcosim_serve *s, const char *name, const char *reason)
{
    long i = serve_find_tunable(s, name);
    if (i >= 0)
        s->tunables[i].refusal = reason;
}

static rtcosim_status add_name(char **names, size_t *count, size_t max, const char *name,
                               const char *what, rtcosim_error *err)
{
    if (*count == max)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "live view: more than %zu %s", max, what);
    if (!(names[*count] = strdup(name)))
        return oom(err);
    (*count)++;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_serve_add_partner(rtcosim_serve *s, const char *name, rtcosim_error *err)
{
    rtcosim_status st = not_after_start(s, "add_partner", err);
    return st != RTCOSIM_OK ? st
                            : add_name(s->partners, &s->partner_count, SERVE_MAX_PARTNERS, name,
                                       "partners", err);
}

rtcosim_status rtcosim_serve_add_can_bus(rtcosim_serve *s, const char *name, rtcosim_error *err)
{
    rtcosim_status st = not_after_start(s, "add_can_bus", err);
    return st != RTCOSIM_OK ? st
                            : add_name(s->can_buses, &s->can_count, SERVE_MAX_CAN_BUSES, name,
                                       "CAN buses", err);
}

void rtcosim_serve_avoid_cpu(rtcosim_serve *s, int cpu)
{
    if (s && !s->started)
        s->avoid_cpu = cpu < 0 ? -1 : cpu;
}

rtcosim_status rtcosim_serve_start(rtcosim_serve *s, rtcosim_error *err)
{
    rtcosim_status st = not_after_start(s, "start", err);
    if (st != RTCOSIM_OK)
        return st;
    size_t slot = sizeof(rtcosim_time_ns) + s->var_count * sizeof(double);
    s->latest = calloc(s->var_count ? s->var_count : 1, sizeof *s->latest);
    for (int p = 0; p < 2; p++)
        s->applied[p] = calloc(SERVE_APPLIED_CAPACITY, sizeof *s->applied[p]);
    if (!s->latest || !s->applied[0] || !s->applied[1])
        return oom(err);
    /* Four samples are plenty: the server asks for one at a time. */
    if ((st = rtcosim_spsc_init(&s->values, 4, slot, err)) != RTCOSIM_OK ||
        (st = rtcosim_spsc_init(&s->frames, 8192, sizeof(serve_frame), err)) != RTCOSIM_OK ||
        (st = rtcosim_spsc_init(&s->sets[0], 256, sizeof(serve_set), err)) != RTCOSIM_OK ||
        (st = rtcosim_spsc_init(&s->sets[1], 256, sizeof(serve_set), err)) != RTCOSIM_OK)
        return st;
    atomic_store(&s->want_values, 1);
    s->start_wall = s->can_last_wall = serve_now();
    s->started = true;
    return serve_http_start(s, err);
}

int rtcosim_serve_port(const rtcosim_serve *s) { return s->port; }

const char *rtcosim_serve_url(const rtcosim_serve *s) { return s->url; }

/* --- The run's thread ------------------------------------------------------ */

void rtcosim_serve_publish(rtcosim_serve *s, rtcosim_time_ns t, const double *values)
{
    if (!atomic_load_explicit(&s->want_values, memory_order_relaxed))
        return;
    unsigned char *slot = rtcosim_spsc_reserve(&s->values);
    if (!slot)
        return; /* the server has not taken the last ones: drop */
    memcpy(slot, &t, sizeof t);
    if (s->var_count)
        memcpy(slot + sizeof t, values, s->var_count * sizeof(double));
    rtcosim_spsc_push(&s->values);
    atomic_store_explicit(&s->want_values, 0, memory_order_relaxed);
}

void rtcosim_serve_publish_frame(rtcosim_serve *s, const rtcosim_rt_frame *frame, size_t partner)
{
    serve_frame *slot = rtcosim_spsc_reserve(&s->frames);
    if (!slot)
        return; /* counted by the server as frames it did not see */
    *slot = (serve_frame){frame->te, frame->lateness, frame->exec, frame->flags,
                          (uint32_t)partner};
    rtcosim_spsc_push(&s->frames);
}

void rtcosim_serve_publish_can(rtcosim_serve *s, size_t bus, uint64_t frames)
{
    if (bus < SERVE_MAX_CAN_BUSES)
        atomic_store_explicit(&s->can_frames[bus], frames, memory_order_relaxed);
}

static void set_value(const serve_tunable *tu, double value, rtcosim_time_ns t, int part,
                      rtcosim_serve *s, uint32_t index)
{
    union {
        double f64;
        float f32;
        int8_t i8;
        uint8_t u8;
        int16_t i16;
        uint16_t u16;
        int32_t i32;
        uint32_t u32;
        int64_t i64;
        uint64_t u64;
        bool b;
    } v;
    switch (tu->type) {
    case RTCOSIM_TYPE_FLOAT64: v.f64 = value; break;
    case RTCOSIM_TYPE_FLOAT32: v.f32 = (float)value; break;
    case RTCOSIM_TYPE_INT8: v.i8 = (int8_t)value; break;
    case RTCOSIM_TYPE_UINT8: v.u8 = (uint8_t)value; break;
    case RTCOSIM_TYPE_INT16: v.i16 = (int16_t)value; break;
    case RTCOSIM_TYPE_UINT16: v.u16 = (uint16_t)value; break;
    case RTCOSIM_TYPE_INT32: v.i32 = (int32_t)value; break;
    case RTCOSIM_TYPE_UINT32: v.u32 = (uint32_t)value; break;
    case RTCOSIM_TYPE_INT64: v.i64 = (int64_t)value; break;
    case RTCOSIM_TYPE_UINT64: v.u64 = (uint64_t)value; break;
    default: v.b = value != 0; break;
    }
    rtcosim_error err;
    if (rtcosim_component_set(tu->component, tu->type, &tu->vr, 1, &v, &err) != RTCOSIM_OK) {
        atomic_fetch_add_explicit(&s->applied_dropped, 1, memory_order_relaxed);
        return;
    }
    size_t n = atomic_load_explicit(&s->applied_count[part], memory_order_relaxed);
    if (n == SERVE_APPLIED_CAPACITY) {
        atomic_fetch_add_explicit(&s->applied_dropped, 1, memory_order_relaxed);
        return;
    }
    s->applied[part][n] = (serve_applied){t, index, value};
    atomic_store_explicit(&s->applied_count[part], n + 1, memory_order_release);
}

size_t rtcosim_serve_apply(rtcosim_serve *s, int part, rtcosim_time_ns t)
{
    size_t applied = 0;
    const serve_set *req;
    while ((req = rtcosim_spsc_front(&s->sets[part])) != NULL) {
        set_value(&s->tunables[req->tunable], req->value, t, part, s, req->tunable);
        rtcosim_spsc_pop(&s->sets[part]);
        applied++;
    }
    return applied;
}

bool rtcosim_serve_paused(const rtcosim_serve *s)
{
    return atomic_load_explicit(&s->paused, memory_order_relaxed) != 0;
}

bool rtcosim_serve_stop_requested(const rtcosim_serve *s)
{
    return atomic_load_explicit(&s->stop, memory_order_relaxed) != 0;
}

void rtcosim_serve_wait_while_paused(rtcosim_serve *s, int part, rtcosim_time_ns t,
                                     const double *values, void (*beat)(void))
{
    while (rtcosim_serve_paused(s) && !rtcosim_serve_stop_requested(s)) {
        /* The view shows where it stands; tuning applies at once (the next
         * step starts from t). */
        rtcosim_serve_publish(s, t, values);
        rtcosim_serve_apply(s, part, t);
        struct timespec nap = {0, 10 * 1000 * 1000};
        nanosleep(&nap, NULL);
        if (beat)
            beat();
    }
    rtcosim_serve_apply(s, part, t);
}

/* --- The server's side ----------------------------------------------------- */

long serve_find_tunable(const rtcosim_serve *s, const char *name)
{
    for (size_t i = 0; i < s->tunable_count; i++)
        if (strcmp(s->tunables[i].name, name) == 0)
            return (long)i;
    return -1;
}

bool serve_check_set(const rtcosim_serve *s, long index, const char *name, double value,
                     char *why, size_t why_size)
{
    if (index < 0) {
        snprintf(why, why_size, "'%s' is not a variable of the system", name);
        return false;
    }
    const serve_tunable *tu = &s->tunables[index];
    if (tu->refusal) {
        snprintf(why, why_size, "'%s' is not tunable: %s", name, tu->refusal);
        return false;
    }
    if (!isfinite(value)) {
        snprintf(why, why_size, "'%s': the value must be finite", name);
        return false;
    }
    double lo = 0, hi = 0;
    switch (tu->type) {
    case RTCOSIM_TYPE_INT8: lo = INT8_MIN; hi = INT8_MAX; break;
    case RTCOSIM_TYPE_UINT8: hi = UINT8_MAX; break;
    case RTCOSIM_TYPE_INT16: lo = INT16_MIN; hi = INT16_MAX; break;
    case RTCOSIM_TYPE_UINT16: hi = UINT16_MAX; break;
    case RTCOSIM_TYPE_INT32: lo = INT32_MIN; hi = INT32_MAX; break;
    case RTCOSIM_TYPE_UINT32: hi = UINT32_MAX; break;
    case RTCOSIM_TYPE_INT64: lo = -9223372036854775808.0; hi = 9223372036854774784.0; break;
    case RTCOSIM_TYPE_UINT64: hi = 18446744073709549568.0; break;
    case RTCOSIM_TYPE_BOOLEAN: hi = 1; break;
    default: return true; /* Float64, Float32 */
    }
    if (value != floor(value) || value < lo || value > hi) {
        snprintf(why, why_size, "'%s' is %s: %.17g is not one of its values (%.17g..%.17g)",
                 name, rtcosim_type_name(tu->type), value, lo, hi);
        return false;
    }
    return true;
}

bool serve_queue_set(rtcosim_serve *s, long index, double value)
{
    rtcosim_spsc *q = &s->sets[s->tunables[index].part];
    serve_set *slot = rtcosim_spsc_reserve(q);
    if (!slot)
        return false;
    *slot = (serve_set){(uint32_t)index, value};
    rtcosim_spsc_push(q);
    return true;
}

static size_t lateness_bin(rtcosim_time_ns lateness)
{
    double us = (double)lateness / 1e3;
    for (size_t i = 0; i < SERVE_LATENESS_BINS - 1; i++)
        if (us <= serve_lateness_edges_us[i])
            return i;
    return SERVE_LATENESS_BINS - 1;
}

void serve_collect(rtcosim_serve *s)
{
    /* Outside the lock: the rings are the server thread's alone. */
    const unsigned char *slot;
    rtcosim_time_ns t = 0;
    while ((slot = rtcosim_spsc_front(&s->values)) != NULL) {
        memcpy(&t, slot, sizeof t);
        pthread_mutex_lock(&s->lock);
        memcpy(s->latest, slot + sizeof t, s->var_count * sizeof(double));
        s->latest_t = t;
        s->have_latest = true;
        s->latest_wall = serve_now();
        pthread_mutex_unlock(&s->lock);
        rtcosim_spsc_pop(&s->values);
    }
    pthread_mutex_lock(&s->lock);
    const serve_frame *f;
    while ((f = rtcosim_spsc_front(&s->frames)) != NULL) {
        s->frames_seen++;
        s->lateness_bins[lateness_bin(f->lateness)]++;
        if (f->lateness > s->lateness_max)
            s->lateness_max = f->lateness;
        if (f->flags & RTCOSIM_FRAME_OVERRUN)
            s->overruns++;
        if ((f->flags & RTCOSIM_FRAME_EXCHANGE) && f->partner < SERVE_MAX_PARTNERS) {
            s->exchanges[f->partner]++;
            if (f->flags & RTCOSIM_FRAME_ESTIMATED)
                s->estimated[f->partner]++;
        }
        rtcosim_spsc_pop(&s->frames);
    }
    double now = serve_now();
    if (now - s->can_last_wall >= 0.5) {
        for (size_t b = 0; b < s->can_count; b++) {
            uint64_t n = atomic_load_explicit(&s->can_frames[b], memory_order_relaxed);
            s->can_rate[b] = (double)(n - s->can_last[b]) / (now - s->can_last_wall);
            s->can_last[b] = n;
        }
        s->can_last_wall = now;
    }
    pthread_mutex_unlock(&s->lock);
    /* Ask the run for the next sample. */
    atomic_store_explicit(&s->want_values, 1, memory_order_relaxed);
}

/* --- After the run --------------------------------------------------------- */

void rtcosim_serve_finish(rtcosim_serve *s, rtcosim_time_ns t, const double *values)
{
    if (!s->started)
        return;
    pthread_mutex_lock(&s->lock);
    if (values && s->var_count)
        memcpy(s->latest, values, s->var_count * sizeof(double));
    s->latest_t = t;
    s->have_latest = true;
    s->latest_wall = serve_now();
    /* Requests accepted that no step took (the run ended first): counted,
     * not lost without a word. The run's threads are done, so this thread
     * is the rings' consumer now; the lock keeps new ones out (serve_http.c). */
    atomic_store(&s->ended, 1);
    for (int part = 0; part < 2; part++)
        while (rtcosim_spsc_front(&s->sets[part]) != NULL) {
            rtcosim_spsc_pop(&s->sets[part]);
            s->ended_first++;
        }
    pthread_mutex_unlock(&s->lock);
}

uint64_t rtcosim_serve_ended_first(const rtcosim_serve *s)
{
    pthread_mutex_lock(&((rtcosim_serve *)s)->lock);
    uint64_t n = s->ended_first;
    pthread_mutex_unlock(&((rtcosim_serve *)s)->lock);
    return n;
}

size_t rtcosim_serve_applied_count(const rtcosim_serve *s)
{
    return atomic_load_explicit(&((rtcosim_serve *)s)->applied_count[0], memory_order_acquire) +
           atomic_load_explicit(&((rtcosim_serve *)s)->applied_count[1], memory_order_acquire);
}

void rtcosim_serve_applied_at(const rtcosim_serve *s, size_t index, rtcosim_time_ns *t,
                              const char **name, double *value)
{
    size_t first = atomic_load_explicit(&((rtcosim_serve *)s)->applied_count[0],
                                        memory_order_acquire);
    const serve_applied *a = index < first ? &s->applied[0][index] : &s->applied[1][index - first];
    *t = a->t;
    *name = s->tunables[a->tunable].name;
    *value = a->value;
}

uint64_t rtcosim_serve_applied_dropped(const rtcosim_serve *s)
{
    return atomic_load(&((rtcosim_serve *)s)->applied_dropped);
}

rtcosim_status rtcosim_serve_write_tuning(const rtcosim_serve *s, const char *path,
                                          rtcosim_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot create the tuning log", path);
    fprintf(f, "\"time\",\"name\",\"value\"\n");
    size_t n = rtcosim_serve_applied_count(s);
    for (size_t i = 0; i < n; i++) {
        rtcosim_time_ns t;
        const char *name;
        double v;
        rtcosim_serve_applied_at(s, i, &t, &name, &v);
        char time_text[RTCOSIM_FORMAT_MAX], value_text[RTCOSIM_FORMAT_MAX];
        rtcosim_format_time(t, time_text);
        rtcosim_format_double(v, value_text);
        fputs(time_text, f);
        fputs(",\"", f);
        for (const char *p = name; *p; p++) {
            if (*p == '"')
                fputc('"', f);
            fputc(*p, f);
        }
        fprintf(f, "\",%s\n", value_text);
    }
    if (fclose(f) != 0)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot write the tuning log", path);
    return RTCOSIM_OK;
}

void rtcosim_serve_free(rtcosim_serve *s)
{
    if (!s)
        return;
    serve_http_stop(s);
    for (size_t i = 0; i < s->var_count; i++) {
        free(s->vars[i].name);
        free(s->vars[i].unit);
    }
    free(s->vars);
    for (size_t i = 0; i < s->tunable_count; i++) {
        free(s->tunables[i].name);
        free(s->tunables[i].unit);
    }
    free(s->tunables);
    for (size_t i = 0; i < s->partner_count; i++)
        free(s->partners[i]);
    for (size_t i = 0; i < s->can_count; i++)
        free(s->can_buses[i]);
    rtcosim_spsc_destroy(&s->values);
    rtcosim_spsc_destroy(&s->frames);
    rtcosim_spsc_destroy(&s->sets[0]);
    rtcosim_spsc_destroy(&s->sets[1]);
    free(s->applied[0]);
    free(s->applied[1]);
    free(s->latest);
    free(s->token);
    free(s->title);
    pthread_mutex_destroy(&s->lock);
    pthread_mutex_destroy(&s->clients_lock);
    free(s);
}
