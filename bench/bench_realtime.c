/* B3 `rtcosim bench realtime`: two light components (a first-order plant and
 * a PI controller) paced at 1 ms to the wall clock, idle and with a CPU load
 * thread, with and without SCHED_FIFO where permitted. Reports frame start
 * lateness percentiles, overruns and the drift of te against the monotonic
 * clock. Also defines the light models the late-partner benchmark reuses. */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "cyclictest.h"
#include "rt_floor.h"
#include "rtcosim/log.h"
#include "rtcosim/realtime.h"
#include "rtcosim/serve.h"
#include "serve/serve_client.h"

/* --- Light native models (shared with bench_late_partner.c) --------------- */

enum { MODEL_PLANT, MODEL_CONTROLLER, MODEL_SETPOINT };

/* One struct for the three small models: plant x' = (u - x) / tau (exact
 * discretization for a held u); PI controller u = kp e + ki int(e) with
 * e = r - x; setpoint r = sin(2 pi f t) + 0.5 sign(sin(2 pi f t / 5)). */
typedef struct bench_model {
    int kind;
    double u, x, r, integral;
    double tau, kp, ki, frequency;
    rtcosim_time_ns time;
} bench_model;

static double setpoint_at(const bench_model *m, rtcosim_time_ns t)
{
    double s = rtcosim_time_to_seconds(t);
    double slow = sin(2 * M_PI * m->frequency * s / 5);
    return sin(2 * M_PI * m->frequency * s) + (slow >= 0 ? 0.5 : -0.5);
}

static rtcosim_status model_step(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                 rtcosim_step_result *r, rtcosim_error *err)
{
    (void)r, (void)err;
    bench_model *m = self;
    double hs = rtcosim_time_to_seconds(h);
    switch (m->kind) {
    case MODEL_PLANT:
        m->x = m->u + (m->x - m->u) * exp(-hs / m->tau);
        break;
    case MODEL_CONTROLLER:
        m->integral += (m->r - m->x) * hs;
        break;
    default:
        break;
    }
    m->time = t + h;
    if (m->kind == MODEL_SETPOINT)
        m->r = setpoint_at(m, m->time);
    if (m->kind == MODEL_CONTROLLER)
        m->u = m->kp * (m->r - m->x) + m->ki * m->integral;
    return RTCOSIM_OK;
}

/* Value references: 0 u, 1 x, 2 r (each model exposes the ones it has). */
static rtcosim_status model_get(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                                void *values, rtcosim_error *err)
{
    (void)type, (void)err;
    bench_model *m = self;
    for (size_t i = 0; i < n; i++)
        ((double *)values)[i] = vrs[i] == 0 ? m->u : vrs[i] == 1 ? m->x : m->r;
    return RTCOSIM_OK;
}

static rtcosim_status model_set(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                                const void *values, rtcosim_error *err)
{
    (void)type, (void)err;
    bench_model *m = self;
    for (size_t i = 0; i < n; i++) {
        double v = ((const double *)values)[i];
        if (vrs[i] == 0)
            m->u = v;
        else if (vrs[i] == 1)
            m->x = v;
        else
            m->r = v;
    }
    if (m->kind == MODEL_CONTROLLER) /* direct feedthrough of the P part */
        m->u = m->kp * (m->r - m->x) + m->ki * m->integral;
    return RTCOSIM_OK;
}

static rtcosim_status model_get_state(void *self, rtcosim_state *state, rtcosim_error *err)
{
    if (!*state && !(*state = malloc(sizeof(bench_model))))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    memcpy(*state, self, sizeof(bench_model));
    return RTCOSIM_OK;
}

static rtcosim_status model_set_state(void *self, rtcosim_state state, rtcosim_error *err)
{
    (void)err;
    memcpy(self, state, sizeof(bench_model));
    return RTCOSIM_OK;
}

static void model_free_state(void *self, rtcosim_state state)
{
    (void)self;
    free(state);
}

static const rtcosim_component_ops model_ops = {
    .kind = "native", .do_step = model_step, .get = model_get, .set = model_set,
    .get_state = model_get_state, .set_state = model_set_state,
    .free_state = model_free_state, .destroy = free,
};

#define VAR(n, vr, c)                                                                         \
    {.name = n, .value_reference = vr, .type = RTCOSIM_TYPE_FLOAT64,                          \
     .causality = RTCOSIM_CAUSALITY_##c, .variability = RTCOSIM_VARIABILITY_CONTINUOUS,       \
     .derivative_of = -1}
static const rtcosim_variable plant_vars[] = {VAR("u", 0, INPUT), VAR("x", 1, OUTPUT)};
static const rtcosim_variable controller_vars[] = {VAR("u", 0, OUTPUT), VAR("x", 1, INPUT),
                                                   VAR("r", 2, INPUT)};
static const rtcosim_variable setpoint_vars[] = {VAR("r", 2, OUTPUT)};

/* Create (not instantiated) one of the light models: "plant", "controller",
 * "setpoint". */
rtcosim_component *rt_bench_model(const char *which);
rtcosim_component *rt_bench_model(const char *which)
{
    bench_model *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->tau = 0.05, m->kp = 4, m->ki = 20, m->frequency = 2;
    rtcosim_component_desc desc = {.capabilities = {.can_handle_variable_step = true,
                                                    .can_get_set_state = true}};
    if (strcmp(which, "plant") == 0) {
        m->kind = MODEL_PLANT;
        desc.model_name = "plant", desc.variables = plant_vars, desc.variable_count = 2;
    } else if (strcmp(which, "controller") == 0) {
        m->kind = MODEL_CONTROLLER;
        /* Start consistent with the setpoint at t = 0 and the plant at rest. */
        m->r = setpoint_at(m, 0);
        m->u = m->kp * m->r;
        desc.model_name = "controller", desc.variables = controller_vars, desc.variable_count = 3;
    } else {
        m->kind = MODEL_SETPOINT;
        m->r = setpoint_at(m, 0);
        desc.model_name = "setpoint", desc.variables = setpoint_vars, desc.variable_count = 1;
    }
    rtcosim_component *c = NULL;
    return rtcosim_component_create(&model_ops, m, &desc, &c, NULL) == RTCOSIM_OK ? c : NULL;
}

/* Bring a component to step mode under the given instance name. */
int rt_bench_start(rtcosim_component *c, const char *name);
int rt_bench_start(rtcosim_component *c, const char *name)
{
    rtcosim_error err;
    if (rtcosim_component_instantiate(c, name, &err) || rtcosim_component_setup(c, 0, 0, -1, &err) ||
        rtcosim_component_enter_init(c, &err) || rtcosim_component_exit_init(c, &err)) {
        fprintf(stderr, "rtcosim: %s\n", err.message);
        return -1;
    }
    return 0;
}

/* --- The benchmark ---------------------------------------------------------- */

static atomic_bool load_running;

/* A CPU hog on the last core: the pacing thread competes with it for caches
 * and memory bandwidth, and for the CPU when the scheduler moves things. */
static void *load_main(void *arg)
{
    (void)arg;
    volatile double sink = 1.0;
    while (atomic_load_explicit(&load_running, memory_order_relaxed))
        for (int i = 0; i < 10000; i++)
            sink = sink * 1.0000001 + 1e-9;
    return NULL;
}

typedef struct scenario_result {
    bool ran, fifo;
    double p50, p99, p999, max, drift;
    unsigned long long overruns, frames;
    floor_tally floor; /* attribution against cyclictest beside it (headline) */
    rtcosim_rt_probes probes; /* where the frame's time goes (headline) */
    bool attributed;
} scenario_result;

/* Attribute each overrun of the logged frames against the floor's spikes:
 * its cause (a backlog chain counts from the deadline of its first frame)
 * and whether the machine time cyclictest saw covers its overshoot. */
static void attribute_overruns(const rtcosim_rt *rt, const floor_spikes *spikes, floor_tally *t)
{
    const rtcosim_rt_summary *s = rtcosim_rt_get_summary(rt);
    int64_t origin = s->run_start, H = (int64_t)RTCOSIM_NS_PER_MS;
    bool previous_overrun = false;
    int64_t previous_end = 0, chain_begin = 0;
    memset(t, 0, sizeof *t);
    t->interval_ns = H; /* cyclictest beside it wakes once a frame */
    for (size_t i = 0; i < rtcosim_rt_frame_count(rt); i++) {
        const rtcosim_rt_frame *f = rtcosim_rt_frame_at(rt, i);
        int64_t deadline = origin + f->deadline, end = deadline + f->lateness + f->exec;
        bool overrun = (f->flags & RTCOSIM_FRAME_OVERRUN) != 0;
        bool backlog = previous_overrun && deadline < previous_end;
        if (overrun) {
            floor_event e = {.begin = backlog ? chain_begin : deadline, .end = end,
                             .due = deadline + H,
                             .cause = backlog        ? FLOOR_CAUSE_BACKLOG
                                      : f->exec > H ? FLOOR_CAUSE_EXECUTION
                                                    : FLOOR_CAUSE_WAKEUP};
            if (!backlog)
                chain_begin = deadline;
            floor_tally_add(t, spikes, &e);
        }
        previous_overrun = overrun;
        previous_end = end;
    }
}

/* The live view of a scenario (--serve comparison): NULL for none. */
static rtcosim_serve *scenario_view;

static void view_frame(void *context, const rtcosim_rt_frame *frame)
{
    rtcosim_serve *view = context;
    double row[2] = {(double)frame->lateness / 1e3, (double)frame->exec / 1e3};
    rtcosim_serve_publish(view, frame->te, row);
    rtcosim_serve_publish_frame(view, frame, 0);
}

static int run_scenario(double seconds, bool load, int fifo, int cpu, rtcosim_time_ns busy_wait,
                        const char *report, floor_run *beside, bench_cyclictest *floor_hist,
                        scenario_result *out)
{
    /* beside: cyclictest started right before; stopped after the run, and
     * the overruns are attributed against its spikes (floor_hist filled,
     * out->attributed set when it measured) */
    const bool spikes = beside != NULL;
    rtcosim_component *comps[2] = {rt_bench_model("plant"), rt_bench_model("controller")};
    static const rtcosim_rt_connection conns[] = {
        {.from_component = 1, .from_vr = 0, .to_component = 0, .to_vr = 0},
        {.from_component = 0, .from_vr = 1, .to_component = 1, .to_vr = 1},
    };
    if (!comps[0] || !comps[1] || rt_bench_start(comps[0], "plant") ||
        rt_bench_start(comps[1], "controller")) {
        rtcosim_component_free(comps[0]);
        rtcosim_component_free(comps[1]);
        return 1;
    }
    rtcosim_rt_options o;
    rtcosim_rt_options_init(&o);
    o.macro_step = RTCOSIM_NS_PER_MS;
    o.stop_time = (rtcosim_time_ns)llround(seconds * 1000) * RTCOSIM_NS_PER_MS;
    o.overrun = RTCOSIM_OVERRUN_CATCH_UP;
    o.fifo_priority = fifo;
    o.cpu = cpu;
    o.lock_memory = fifo > 0;
    o.cpu_dma_latency_us = fifo > 0 ? 0 : -1; /* as cyclictest */
    o.busy_wait = busy_wait;
    o.calibrate = true;
    o.frame_log = report || spikes ? 10000000 : 0;
    if (spikes)
        o.probes = &out->probes; /* the headline run: its stages too */
    if (scenario_view) {
        o.frame_observer = view_frame;
        o.frame_observer_context = scenario_view;
    }
    rtcosim_rt *rt = NULL;
    rtcosim_error err;
    pthread_t loader;
    bool loader_started = false;
    if (load) {
        atomic_store(&load_running, true);
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        if (cpus > 1) {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET((int)(cpus - 1), &set);
            pthread_attr_setaffinity_np(&attr, sizeof set, &set);
        }
        loader_started = pthread_create(&loader, &attr, load_main, NULL) == 0;
        pthread_attr_destroy(&attr);
    }
    int rc = 0;
    if (rtcosim_rt_create(comps, 2, conns, 2, &o, &rt, &err) != RTCOSIM_OK ||
        rtcosim_rt_run(rt, &err) != RTCOSIM_OK) {
        fprintf(stderr, "rtcosim: %s\n", err.message);
        rc = 1;
    }
    if (loader_started) {
        atomic_store(&load_running, false);
        pthread_join(loader, NULL);
    }
    if (rc == 0) {
        const rtcosim_histogram *l = rtcosim_rt_lateness(rt);
        const rtcosim_rt_summary *s = rtcosim_rt_get_summary(rt);
        out->ran = true;
        out->fifo = s->fifo_applied;
        out->p50 = (double)rtcosim_histogram_percentile(l, 50) / 1e3;
        out->p99 = (double)rtcosim_histogram_percentile(l, 99) / 1e3;
        out->p999 = (double)rtcosim_histogram_percentile(l, 99.9) / 1e3;
        out->max = (double)l->max / 1e3;
        out->drift = (double)s->drift / 1e3;
        out->overruns = (unsigned long long)s->overruns;
        out->frames = (unsigned long long)s->frames;
        if (beside) {
            floor_spikes sp;
            char why[512];
            if (floor_stop(beside, floor_hist, &sp, why, sizeof why) == 0) {
                attribute_overruns(rt, &sp, &out->floor);
                out->attributed = true;
                floor_spikes_free(&sp);
            } else
                printf("platform floor: %s\n", why);
            beside = NULL;
        }
        if (report && rtcosim_rt_write_report(rt, report, &err) != RTCOSIM_OK) {
            fprintf(stderr, "rtcosim: %s\n", err.message);
            rc = 1;
        }
    }
    if (beside) { /* the run failed: stop cyclictest all the same */
        floor_spikes sp;
        char why[512];
        if (floor_stop(beside, floor_hist, &sp, why, sizeof why) == 0)
            floor_spikes_free(&sp);
    }
    rtcosim_rt_free(rt);
    rtcosim_component_free(comps[0]);
    rtcosim_component_free(comps[1]);
    return rc;
}

/* A page's stand-in: streams the view's WebSocket, reading every message. */
static atomic_bool client_running;
static atomic_long client_messages;

static void *client_main(void *arg)
{
    int port = *(int *)arg;
    serve_ws *ws = malloc(sizeof *ws);
    static char message[1 << 16];
    if (ws && serve_ws_open(ws, "127.0.0.1", port, "/api/stream", NULL)) {
        while (atomic_load(&client_running))
            if (serve_ws_read(ws, message, sizeof message, 100) > 0)
                atomic_fetch_add(&client_messages, 1);
        serve_ws_close(ws);
    }
    free(ws);
    return NULL;
}

/* B3 with a live view: the idle scenario without, then with a view streamed
 * by a WebSocket client, alternated `pairs` times; the ratio of the median
 * p99s. */
static int serve_ratio(double seconds, int fifo, int cpu, rtcosim_time_ns busy, int pairs)
{
    double without[8], with[8];
    long messages = 0;
    printf("\nB3 with a live view (--serve on 127.0.0.1, a WebSocket client reading every "
           "message), %d pairs of %.0f s\n", pairs, seconds);
    for (int k = 0; k < pairs; k++) {
        scenario_result r = {0};
        scenario_view = NULL;
        if (run_scenario(seconds, false, fifo, cpu, busy, NULL, NULL, NULL, &r))
            return 1;
        without[k] = r.p99;
        rtcosim_serve_options so = {.listen = "127.0.0.1:0", .title = "bench realtime",
                                    .mode = RTCOSIM_SERVE_REAL_TIME};
        rtcosim_serve *view = NULL;
        rtcosim_error err;
        if (rtcosim_serve_create(&so, &view, &err) != RTCOSIM_OK ||
            rtcosim_serve_add_variable(view, "lateness", "us", &err) != RTCOSIM_OK ||
            rtcosim_serve_add_variable(view, "execution", "us", &err) != RTCOSIM_OK ||
            (rtcosim_serve_avoid_cpu(view, cpu), rtcosim_serve_start(view, &err)) != RTCOSIM_OK) {
            fprintf(stderr, "rtcosim: %s\n", err.message);
            rtcosim_serve_free(view);
            return 1;
        }
        int port = rtcosim_serve_port(view);
        pthread_t client;
        atomic_store(&client_running, true);
        atomic_store(&client_messages, 0);
        bool started = pthread_create(&client, NULL, client_main, &port) == 0;
        scenario_view = view;
        int rc = run_scenario(seconds, false, fifo, cpu, busy, NULL, NULL, NULL, &r);
        scenario_view = NULL;
        atomic_store(&client_running, false);
        if (started)
            pthread_join(client, NULL);
        messages += atomic_load(&client_messages);
        rtcosim_serve_free(view);
        if (rc)
            return 1;
        with[k] = r.p99;
        printf("pair %d: p99 %.1f us without, %.1f us with the view (%ld messages)\n", k + 1,
               without[k], with[k], atomic_load(&client_messages));
    }
    double a = bench_median(without, (size_t)pairs), b = bench_median(with, (size_t)pairs);
    bench_figure("realtime.serve_p99_without_us", a, "us");
    bench_figure("realtime.serve_p99_with_us", b, "us");
    bench_figure("realtime.serve_messages", (double)messages, "count");
    bench_figure("realtime.serve_p99_ratio", bench_ratio(b, a), "ratio");
    printf("target: p99 with the view within 1.1x of without: %s\n",
           b <= 1.1 * a ? "met" : "NOT met");
    return 0;
}

static int usage(int code)
{
    fprintf(code ? stderr : stdout,
            "usage: rtcosim bench realtime [--quick] [--duration SECONDS] [--busy-wait US]\n"
            "                              [--no-load] [--no-fifo] [--report DIR] [--cpu N]\n"
            "                              [--no-cyclictest] [--no-serve] [--serve-pairs N]\n"
            "                              [--serve-only]\n"
            "  paces two light components at 1 ms; default 60 s per scenario, --quick 5 s.\n"
            "  The paced thread runs on CPU N (default: the last). Right before the headline\n"
            "  scenario (idle, SCHED_FIFO 80 where permitted) cyclictest runs beside it, if\n"
            "  installed (Debian rt-tests): the same CPU and period, one priority above,\n"
            "  its late wake-ups over 20 us time-stamped. Its p99 and wake-ups a frame\n"
            "  late are printed beside rtcosim's; every overrun is attributed (wake-up,\n"
            "  execution, backlog; the floor's when cyclictest's stalls in its window\n"
            "  cover its overshoot) and realtime.overruns_beyond_floor counts the rest.\n"
            "  Then B3 with a live view: the idle scenario alternately without and with\n"
            "  --serve streamed by a WebSocket client, N pairs (default 3; --serve-only: just\n"
            "  that), realtime.serve_p99_ratio = median p99 with / without.\n");
    return code;
}

static int run(int argc, char **argv)
{
    double seconds = 60;
    double busy_us = 0;
    bool with_load = true, with_fifo = true, with_cyclictest = true, serve_only = false;
    double floor_trigger_us = 20;
    int serve_pairs = 3;
    const char *report = NULL;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int cpu = cpus > 1 ? (int)cpus - 1 : -1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            seconds = 5;
        else if (strcmp(argv[i], "--duration") == 0 && i + 1 < argc) {
            char *end;
            seconds = strtod(argv[++i], &end);
            if (*end || !(seconds >= 0.01) || seconds > 86400) {
                fprintf(stderr, "rtcosim: --duration '%s' must be 0.01..86400 seconds\n", argv[i]);
                return 1;
            }
        } else if (strcmp(argv[i], "--busy-wait") == 0 && i + 1 < argc) {
            char *end;
            busy_us = strtod(argv[++i], &end);
            if (*end || !(busy_us >= 0) || busy_us > 1000) {
                fprintf(stderr, "rtcosim: --busy-wait '%s' must be 0..1000 us\n", argv[i]);
                return 1;
            }
        } else if (strcmp(argv[i], "--no-load") == 0)
            with_load = false;
        else if (strcmp(argv[i], "--no-fifo") == 0)
            with_fifo = false;
        else if (strcmp(argv[i], "--no-cyclictest") == 0)
            with_cyclictest = false;
        else if (strcmp(argv[i], "--no-serve") == 0)
            serve_pairs = 0;
        else if (strcmp(argv[i], "--serve-pairs") == 0 && i + 1 < argc) {
            serve_pairs = atoi(argv[++i]);
            if (serve_pairs < 1 || serve_pairs > 8) {
                fprintf(stderr, "rtcosim: --serve-pairs '%s' must be 1..8\n", argv[i]);
                return 1;
            }
        } else if (strcmp(argv[i], "--serve-only") == 0)
            serve_only = true;
        else if (strcmp(argv[i], "--cpu") == 0 && i + 1 < argc) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || end == argv[i] || v < 0 || v >= cpus) {
                fprintf(stderr, "rtcosim: --cpu '%s' must be a CPU number 0..%ld\n", argv[i],
                        cpus - 1);
                return 1;
            }
            cpu = (int)v;
        } else if (strcmp(argv[i], "--report") == 0 && i + 1 < argc)
            report = argv[++i];
        else if (strcmp(argv[i], "--help") == 0)
            return usage(0);
        else {
            fprintf(stderr, "rtcosim: bench realtime: unknown option '%s'\n", argv[i]);
            return usage(1);
        }
    }
    rtcosim_time_ns busy = (rtcosim_time_ns)llround(busy_us * 1e3);
    struct {
        const char *name;
        bool load;
        int fifo;
        scenario_result r;
    } scenarios[] = {
        {"idle", false, 0, {0}},
        {"idle + SCHED_FIFO", false, 80, {0}},
        {"load", true, 0, {0}},
        {"load + SCHED_FIFO", true, 80, {0}},
    };
    if (serve_only)
        return serve_ratio(seconds, with_fifo ? 80 : 0, cpu, busy, serve_pairs);
    printf("B3 real-time pacing: plant + PI controller, H = 1 ms, %.0f s per scenario, "
           "busy-wait %.0f us\n\n",
           seconds, busy_us);
    bench_print_load();
    printf("\n");
    /* the floor is measured right before the headline scenario */
    size_t headline = with_fifo ? 1 : 0;
    bench_cyclictest floor;
    bool have_floor = false;
    printf("%-20s %10s %10s %10s %10s %9s %10s\n", "scenario", "p50 [us]", "p99 [us]",
           "p99.9 [us]", "max [us]", "overruns", "drift [us]");
    for (size_t i = 0; i < 4; i++) {
        if ((scenarios[i].load && !with_load) || (scenarios[i].fifo && !with_fifo))
            continue;
        char dir[4096];
        if (report)
            snprintf(dir, sizeof dir, "%s/scenario-%zu", report, i);
        floor_run beside;
        bool with_beside = false;
        if (i == headline && with_cyclictest) {
            /* the floor beside the headline run: same CPU, one priority
             * above (it preempts the paced thread for its few us, so that
             * what it sees is the machine's, not the frames'), its late
             * wake-ups time-stamped (--spike) for the attribution */
            char why[512];
            int prio = scenarios[i].fifo > 0 ? scenarios[i].fifo + 1 : 0;
            printf("platform floor: cyclictest beside the run, %s %d, period 1 ms, CPU %d, "
                   "late wake-ups over %.0f us time-stamped\n",
                   prio ? "SCHED_FIFO" : "SCHED_OTHER", prio, cpu, floor_trigger_us);
            int started = floor_start(&beside, cpu, prio, 1e-3, seconds, floor_trigger_us, why,
                                      sizeof why);
            with_beside = started == 0;
            if (started == 1)
                printf("platform floor: cyclictest not installed (Debian rt-tests)\n");
            else if (started < 0)
                printf("platform floor: %s\n", why);
        }
        if (run_scenario(seconds, scenarios[i].load, scenarios[i].fifo, cpu, busy,
                         report ? dir : NULL, with_beside ? &beside : NULL, &floor,
                         &scenarios[i].r))
            return 1;
        if (with_beside && scenarios[i].r.attributed) {
            have_floor = true;
            printf("platform floor: %llu wake-ups, p50 %.0f us, p99 %.0f us, p99.9 %.0f us, "
                   "max %.0f us, %llu at least one period late\n",
                   (unsigned long long)floor.samples, floor.p50_us, floor.p99_us, floor.p999_us,
                   floor.max_us, (unsigned long long)floor.late);
        }
        const scenario_result *r = &scenarios[i].r;
        if (scenarios[i].fifo && !r->fifo) {
            printf("%-20s (SCHED_FIFO refused by the system: ran with normal scheduling)\n",
                   scenarios[i].name);
        }
        printf("%-20s %10.1f %10.1f %10.1f %10.1f %9llu %10.1f\n", scenarios[i].name, r->p50,
               r->p99, r->p999, r->max, r->overruns, r->drift);
    }
    printf("\n");
    /* Headline figures: the idle run with the best scheduling the system allowed. */
    const scenario_result *idle = scenarios[1].r.ran && scenarios[1].r.fifo ? &scenarios[1].r
                                                                            : &scenarios[0].r;
    if (!idle->ran)
        idle = &scenarios[1].r;
    bench_figure("realtime.lateness_p50_us", idle->p50, "us");
    bench_figure("realtime.lateness_p99_us", idle->p99, "us");
    bench_figure("realtime.lateness_p999_us", idle->p999, "us");
    bench_figure("realtime.lateness_max_us", idle->max, "us");
    bench_figure("realtime.overruns", (double)idle->overruns, "count");
    bench_figure("realtime.drift_us", idle->drift, "us");
    bench_figure("realtime.sched_fifo", idle->fifo, "bool");
    if (have_floor) {
        bench_cyclictest_figures("realtime", &floor, idle->p99);
        bench_figure("realtime.overruns_over_cyclictest_late",
                     bench_ratio((double)idle->overruns, (double)floor.late), "ratio");
        const floor_tally *t = &idle->floor;
        printf("overruns attributed (%llu): ", (unsigned long long)t->total);
        for (int c = 0; c < FLOOR_CAUSE_STRATEGY; c++)
            printf("%s %llu floor + %llu own%s", floor_cause_name((floor_cause)c),
                   (unsigned long long)t->floor[c], (unsigned long long)t->own[c],
                   c + 1 < FLOOR_CAUSE_STRATEGY ? ", " : "\n");
        printf("  (floor: cyclictest's late wake-ups beside the run cover the overshoot)\n");
        printf("  beyond the floor %llu, %llu of them within one cyclictest interval of a stall"
               " it saw in their window\n", (unsigned long long)t->beyond_floor,
               (unsigned long long)t->within_interval);
        bench_figure("realtime.overruns_beyond_floor", (double)t->beyond_floor, "count");
        bench_figure("realtime.overruns_beyond_floor_within_interval",
                     (double)t->within_interval, "count");
        bench_figure("realtime.overruns_floor_wakeup", (double)t->floor[FLOOR_CAUSE_WAKEUP],
                     "count");
        bench_figure("realtime.overruns_floor_execution",
                     (double)t->floor[FLOOR_CAUSE_EXECUTION], "count");
        bench_figure("realtime.overruns_floor_backlog", (double)t->floor[FLOOR_CAUSE_BACKLOG],
                     "count");
        bench_figure("realtime.overruns_own_wakeup", (double)t->own[FLOOR_CAUSE_WAKEUP], "count");
        bench_figure("realtime.overruns_own_execution", (double)t->own[FLOOR_CAUSE_EXECUTION],
                     "count");
        bench_figure("realtime.overruns_own_backlog", (double)t->own[FLOOR_CAUSE_BACKLOG],
                     "count");
        static const char *const stage[] = {"wake-up", "read", "write", "step", "bookkeeping"};
        const rtcosim_histogram *h[] = {&idle->probes.wakeup, &idle->probes.read,
                                        &idle->probes.write, &idle->probes.step,
                                        &idle->probes.bookkeeping};
        printf("where a frame goes (paced thread, ns: p50 / p99 / max):\n");
        for (int j = 0; j < 5; j++)
            printf("  %-12s %8lld %8lld %10lld\n", stage[j],
                   (long long)rtcosim_histogram_percentile(h[j], 50),
                   (long long)rtcosim_histogram_percentile(h[j], 99), (long long)h[j]->max);
        printf("  (wake-up: frames that slept; cyclictest beside it: p50 %.0f us, p99 %.0f us, "
               "the floor)\n",
               floor.p50_us, floor.p99_us);
        for (int j = 0; j < 5; j++) {
            char fname[96];
            snprintf(fname, sizeof fname, "realtime.stage_%s_p50_ns",
                     j == 0 ? "wakeup" : stage[j]);
            bench_figure(fname, (double)rtcosim_histogram_percentile(h[j], 50), "ns");
        }
        double wake_p99 = (double)rtcosim_histogram_percentile(h[0], 99) / 1e3;
        bench_figure("realtime.wakeup_p99_us", wake_p99, "us");
        bench_figure("realtime.wakeup_p99_over_cyclictest", bench_ratio(wake_p99, floor.p99_us),
                     "ratio");
        printf("target: overruns beyond the floor 0: %s\n",
               t->beyond_floor == 0 ? "met" : "NOT met");
        bool p99_ok = idle->p99 <= fmax(1.5 * floor.p99_us, floor.p99_us + 30);
        printf("target: lateness p99 within 1.5x or +30 us of cyclictest's: %s; overruns no "
               "more than cyclictest's late wake-ups: %s\n",
               p99_ok ? "met" : "NOT met", idle->overruns <= floor.late ? "met" : "NOT met");
    }
    const scenario_result *loaded = scenarios[3].r.ran && scenarios[3].r.fifo ? &scenarios[3].r
                                                                              : &scenarios[2].r;
    if (loaded->ran) {
        bench_figure("realtime.load_lateness_p99_us", loaded->p99, "us");
        bench_figure("realtime.load_lateness_max_us", loaded->max, "us");
        bench_figure("realtime.load_overruns", (double)loaded->overruns, "count");
        bench_figure("realtime.load_drift_us", loaded->drift, "us");
    }
    if (serve_pairs)
        return serve_ratio(seconds, with_fifo ? 80 : 0, cpu, busy, serve_pairs);
    return 0;
}

const rtcosim_bench rtcosim_bench_realtime = {
    "realtime", "B3: pace two light components at 1 ms; lateness, overruns, drift", run};
