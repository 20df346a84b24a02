/* The anytime runner: a variant set, its calibration, and the three
 * strategies (escalate, timer abort with learning, parallel) that deliver a
 * result by every deadline and commit the delivered variant's state.
 * Variants that may have to be abandoned (components, and the costly ones of
 * the parallel strategy) run on persistent worker threads with their own
 * state copy; the hot path takes no lock and allocates nothing. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "anytime/anytime_internal.h"
#include "anytime/anytime_private.h"

#define NEVER RTCOSIM_TIME_MAX

static double us(double ns)
{
    return ns / 1e3;
}

/* ---- configuration ---------------------------------------------------- */

void rtcosim_anytime_config_init(rtcosim_anytime_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->name = "anytime";
    cfg->minimal_max_share = 0.5;
    cfg->calibration_runs = 20;
    cfg->stats_window = 64;
    cfg->quantile = 0.95;
    cfg->forget_after_periods = 50;
    cfg->idle_reserve = -1; /* derived at start */
}

const char *rtcosim_anytime_outcome_name(rtcosim_anytime_outcome outcome)
{
    static const char *const names[] = {"not run", "completed", "aborted",
                                        "abandoned", "busy", "failed"};
    return (unsigned)outcome < sizeof names / sizeof names[0] ? names[outcome] : "?";
}

const char *rtcosim_anytime_miss_name(rtcosim_anytime_miss miss)
{
    static const char *const names[] = {"on time", "late start", "stalled", "strategy"};
    return (unsigned)miss < sizeof names / sizeof names[0] ? names[miss] : "?";
}

static const char *const strategy_names[] = {"escalate", "timer", "parallel"};

const char *rtcosim_anytime_strategy_name(rtcosim_anytime_strategy strategy)
{
    return (unsigned)strategy < 3 ? strategy_names[strategy] : "?";
}

int rtcosim_anytime_strategy_parse(const char *text, rtcosim_anytime_strategy *out)
{
    for (int i = 0; i < 3; i++)
        if (text && strcmp(text, strategy_names[i]) == 0) {
            *out = (rtcosim_anytime_strategy)i;
            return 0;
        }
    return -1;
}

rtcosim_status rtcosim_anytime_create(const rtcosim_anytime_config *cfg, rtcosim_clock *clock,
                                      rtcosim_anytime **out, rtcosim_error *err)
{
    if (!out)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "anytime: no output handle given");
    *out = NULL;
    if (!cfg || !clock)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "anytime: configuration or clock missing");
    const char *name = cfg->name && *cfg->name ? cfg->name : "anytime";
    for (size_t i = 0; cfg->output_names && i < cfg->output_count; i++)
        if (cfg->output_names[i] && strpbrk(cfg->output_names[i], ",\"\n\r"))
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "anytime set '%s': output name '%s' contains a comma, quote "
                                     "or line break",
                                     name, cfg->output_names[i]);
    if (cfg->period_ns <= 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime set '%s': period %" PRId64 " ns must be positive", name,
                                 cfg->period_ns);
    if ((unsigned)cfg->strategy > RTCOSIM_ANYTIME_PARALLEL)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "anytime set '%s': unknown strategy %d",
                                 name, (int)cfg->strategy);
    if ((unsigned)cfg->criterion > RTCOSIM_ANYTIME_PICK_SOLVER)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "anytime set '%s': unknown criterion %d",
                                 name, (int)cfg->criterion);
    if (cfg->safety_margin_ns < 0 || cfg->safety_margin_ns >= cfg->period_ns)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime set '%s': safety margin %" PRId64
                                 " ns must be in [0, period %" PRId64 " ns)",
                                 name, cfg->safety_margin_ns, cfg->period_ns);
    if (!(cfg->minimal_max_share > 0 && cfg->minimal_max_share <= 1))
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime set '%s': minimal_max_share %g must be in (0, 1]", name,
                                 cfg->minimal_max_share);
    if (!(cfg->idle_reserve < 1) || (cfg->idle_reserve >= 0 &&
                                     cfg->safety_margin_ns +
                                             anytime_idle_reserve_ns(cfg->idle_reserve,
                                                                     cfg->period_ns) >=
                                         cfg->period_ns))
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime set '%s': idle_reserve %g must be below 1 (negative: "
                                 "derived at start) and leave time for work after the safety "
                                 "margin",
                                 name, cfg->idle_reserve);
    if (!(cfg->quantile > 0 && cfg->quantile <= 1))
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime set '%s': quantile %g must be in (0, 1]", name,
                                 cfg->quantile);
    if (cfg->calibration_runs < 1 || cfg->stats_window < 1 || cfg->calibration_limit_ns < 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime set '%s': calibration_runs and stats_window must be at "
                                 "least 1 and calibration_limit_ns not negative",
                                 name);
    if (cfg->output_count == 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime set '%s': a computation needs at least one output", name);

    rtcosim_anytime *set = calloc(1, sizeof *set);
    if (!set)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "anytime set '%s': out of memory", name);
    set->cfg = *cfg;
    snprintf(set->name, sizeof set->name, "%s", name);
    set->cfg.name = set->name;
    set->cfg.output_names = NULL;
    set->clock = clock;
    if (set->cfg.safety_margin_ns == 0)
        set->cfg.safety_margin_ns = cfg->period_ns / 20;
    if (set->cfg.calibration_limit_ns == 0)
        set->cfg.calibration_limit_ns = 10 * cfg->period_ns;
    if (set->cfg.forget_after_periods == 0)
        set->cfg.forget_after_periods = 50;
    set->period_ns = cfg->period_ns;
    set->sim_time = cfg->start_time_ns;
    set->state = calloc(1, cfg->state_size ? cfg->state_size : 1);
    set->outputs = calloc(cfg->output_count, sizeof *set->outputs);
    set->inputs = calloc(cfg->input_count ? cfg->input_count : 1, sizeof *set->inputs);
    bool ok = set->state && set->outputs && set->inputs;
    if (ok && cfg->state_size && cfg->initial_state)
        memcpy(set->state, cfg->initial_state, cfg->state_size);
    if (ok && cfg->output_names) {
        set->output_names = calloc(cfg->output_count, sizeof *set->output_names);
        ok = set->output_names != NULL;
        for (size_t i = 0; ok && i < cfg->output_count; i++) {
            set->output_names[i] = strdup(cfg->output_names[i] ? cfg->output_names[i] : "");
            ok = set->output_names[i] != NULL;
        }
    }
    if (ok && cfg->record_capacity) {
        set->records = calloc(cfg->record_capacity, sizeof *set->records);
        set->record_outputs = calloc(cfg->record_capacity * cfg->output_count, sizeof(double));
        ok = set->records && set->record_outputs;
    }
    if (!ok) {
        rtcosim_anytime_free(set);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "anytime set '%s': out of memory", name);
    }
    atomic_init(&set->pending_period_ns, 0);
    set->margin_min = INFINITY;
    set->margin_max = -INFINITY;
    *out = set;
    return RTCOSIM_OK;
}

/* ---- variants ---------------------------------------------------------- */

static rtcosim_status check_variant_info(rtcosim_anytime *set,
                                         const rtcosim_anytime_variant_info *info,
                                         rtcosim_error *err)
{
    if (!set)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "anytime: no variant set given");
    if (!info || !info->name || !*info->name)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "anytime set '%s': a variant needs a name",
                                 set->name);
    if (strpbrk(info->name, ",\"\n\r") || strlen(info->name) >= sizeof set->variants[0].name)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime set '%s': variant name '%s' is too long or contains "
                                 "a comma, quote or line break",
                                 set->name, info->name);
    if (set->started)
        return rtcosim_error_set(err, RTCOSIM_ESTATE,
                                 "anytime set '%s': variant '%s' added after start", set->name,
                                 info->name);
    if (set->variant_count == RTCOSIM_ANYTIME_MAX_VARIANTS)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime set '%s': variant '%s' exceeds the maximum of %d variants",
                                 set->name, info->name, RTCOSIM_ANYTIME_MAX_VARIANTS);
    if (info->step_ns < 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime set '%s': variant '%s' has a negative step", set->name,
                                 info->name);
    for (size_t i = 0; i < set->variant_count; i++)
        if (strcmp(set->variants[i].name, info->name) == 0)
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "anytime set '%s': two variants are named '%s'", set->name,
                                     info->name);
    return RTCOSIM_OK;
}

static rtcosim_status variant_init(rtcosim_anytime *set, const rtcosim_anytime_variant_info *info,
                                   variant **out, rtcosim_error *err)
{
    variant *v = &set->variants[set->variant_count];
    memset(v, 0, sizeof *v);
    snprintf(v->name, sizeof v->name, "%s", info->name);
    v->index = set->variant_count;
    v->rank = info->rank;
    v->step_ns = info->step_ns;
    v->solver = info->solver;
    v->set = set;
    v->ctx.set = set;
    v->ctx.index = v->index;
    atomic_init(&v->ctx.cancel, false);
    atomic_init(&v->running, false);
    v->state = calloc(1, set->cfg.state_size ? set->cfg.state_size : 1);
    v->inputs = calloc(set->cfg.input_count ? set->cfg.input_count : 1, sizeof *v->inputs);
    v->outputs = calloc(set->cfg.output_count, sizeof *v->outputs);
    if (!v->state || !v->inputs || !v->outputs ||
        !anytime_stats_init(&v->stats, set->cfg.stats_window)) {
        variant_release(v);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "anytime set '%s': out of memory",
                                 set->name);
    }
    *out = v;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_anytime_add_native(rtcosim_anytime *set,
                                          const rtcosim_anytime_variant_info *info,
                                          rtcosim_anytime_fn fn, void *user, rtcosim_error *err)
{
    rtcosim_status st = check_variant_info(set, info, err);
    if (st)
        return st;
    if (!fn)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime set '%s': native variant '%s' has no function",
                                 set->name, info->name);
    variant *v;
    if ((st = variant_init(set, info, &v, err)))
        return st;
    v->fn = fn;
    v->user = user;
    set->variant_count++;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_anytime_add_component(rtcosim_anytime *set,
                                             const rtcosim_anytime_variant_info *info,
                                             rtcosim_component *component,
                                             const uint32_t *input_vrs,
                                             const uint32_t *output_vrs, rtcosim_error *err)
{
    rtcosim_status st = check_variant_info(set, info, err);
    if (st)
        return st;
    if (!component || !output_vrs || (set->cfg.input_count && !input_vrs))
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime set '%s': component variant '%s' needs a component, "
                                 "%zu input and %zu output value references",
                                 set->name, info->name, set->cfg.input_count,
                                 set->cfg.output_count);
    variant *v;
    if ((st = variant_init(set, info, &v, err)))
        return st;
    v->component = component;
    v->input_vrs = calloc(set->cfg.input_count ? set->cfg.input_count : 1, sizeof(uint32_t));
    v->output_vrs = calloc(set->cfg.output_count, sizeof(uint32_t));
    if (!v->input_vrs || !v->output_vrs) {
        variant_release(v);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "anytime set '%s': out of memory",
                                 set->name);
    }
    if (set->cfg.input_count)
        memcpy(v->input_vrs, input_vrs, set->cfg.input_count * sizeof(uint32_t));
    memcpy(v->output_vrs, output_vrs, set->cfg.output_count * sizeof(uint32_t));
    set->variant_count++;
    return RTCOSIM_OK;
}

/* ---- running one variant ------------------------------------------------ */

bool rtcosim_anytime_should_abort(rtcosim_anytime_ctx *ctx)
{
    if (atomic_load_explicit(&ctx->cancel, memory_order_relaxed))
        return true;
    return ctx->abort_at != NEVER && rtcosim_clock_now(ctx->set->clock) >= ctx->abort_at;
}

rtcosim_clock *rtcosim_anytime_ctx_clock(rtcosim_anytime_ctx *ctx)
{
    return ctx->set->clock;
}

size_t rtcosim_anytime_ctx_variant(const rtcosim_anytime_ctx *ctx)
{
    return ctx->index;
}

/* Load the committed state into a component that last ran from another
 * state. FMI allows moving state between instances only as bytes
 * (fmi2DeSerializeFMUstate, FMI 2.0 section 2.1.8), so this deserializes
 * the copy the runner made at dispatch (the runner may commit a new state
 * while an abandoned job still reads). */
static rtcosim_status component_sync(variant *v)
{
    /* Into the snapshot of the previous load, in place (component.h): a
     * component that honours that allocates nothing per period. */
    rtcosim_status st = rtcosim_component_deserialize_state(v->component, v->sync_bytes,
                                                            v->sync_size, &v->loaded, &v->err);
    if (!st)
        st = rtcosim_component_set_state(v->component, v->loaded, &v->err);
    if (!st)
        v->needs_sync = false;
    return st;
}

/* One period of a component: inputs, micro steps with a cancellation check
 * between them, outputs. */
static rtcosim_status component_execute(variant *v, rtcosim_time_ns t, rtcosim_time_ns h)
{
    rtcosim_anytime *set = v->set;
    rtcosim_status st = RTCOSIM_OK;
    if (v->needs_sync && (st = component_sync(v)))
        return st;
    v->needs_sync = true; /* stepping moves it away from the committed state */
    if (set->cfg.input_count &&
        (st = rtcosim_component_set(v->component, RTCOSIM_TYPE_FLOAT64, v->input_vrs,
                                    set->cfg.input_count, v->inputs, &v->err)))
        return st;
    rtcosim_time_ns step = v->step_ns > 0 ? v->step_ns : h;
    for (rtcosim_time_ns done = 0; done < h;) {
        if (rtcosim_anytime_should_abort(&v->ctx))
            return rtcosim_error_set(&v->err, RTCOSIM_ECANCELED, "variant '%s' aborted",
                                     v->name);
        rtcosim_time_ns micro = h - done < step ? h - done : step;
        rtcosim_step_result result;
        if ((st = rtcosim_component_do_step(v->component, t + done, micro, &result, &v->err)))
            return st;
        done += micro;
    }
    return rtcosim_component_get(v->component, RTCOSIM_TYPE_FLOAT64, v->output_vrs,
                                 set->cfg.output_count, v->outputs, &v->err);
}

/* Run the job prepared in v (inline or on v's worker) and time it. */
static void variant_execute(variant *v)
{
    rtcosim_anytime *set = v->set;
    rtcosim_error_clear(&v->err);
    v->started_at = rtcosim_clock_now(set->clock);
    if (v->fn)
        v->status = v->fn(v->user, &v->ctx, v->job_t, v->job_h, v->inputs, v->state, v->outputs,
                          &v->err);
    else
        v->status = component_execute(v, v->job_t, v->job_h);
    v->finished_at = rtcosim_clock_now(set->clock);
}

static void *worker_main(void *arg)
{
    variant *v = arg;
    for (;;) {
        while (sem_wait(&v->go) != 0 && errno == EINTR) {
        }
        if (atomic_load_explicit(&v->quit, memory_order_acquire))
            break;
        variant_execute(v);
        atomic_store_explicit(&v->running, false, memory_order_release);
        sem_post(&v->set->done);
    }
    return NULL;
}

/* Copy the committed state and the inputs into v's scratch and arm its
 * cancellation for `abort_at`. */
static void variant_prepare(variant *v, const double *inputs, rtcosim_time_ns abort_at)
{
    rtcosim_anytime *set = v->set;
    if (set->cfg.state_size && v->fn)
        memcpy(v->state, set->state, set->cfg.state_size);
    if (v->component && v->needs_sync) {
        memcpy(v->sync_bytes, set->committed_bytes, set->committed_size);
        v->sync_size = set->committed_size;
    }
    if (set->cfg.input_count)
        memcpy(v->inputs, inputs, set->cfg.input_count * sizeof *inputs);
    v->job_t = set->sim_time;
    v->job_h = set->period_ns;
    v->ctx.abort_at = abort_at;
    atomic_store_explicit(&v->ctx.cancel, false, memory_order_relaxed);
    v->outcome = RTCOSIM_ANYTIME_NOT_RUN;
    v->dispatched_at = rtcosim_clock_now(set->clock);
}

static void variant_dispatch(variant *v)
{
    atomic_store_explicit(&v->running, true, memory_order_relaxed);
    /* sem_post publishes the prepared job to the worker (it synchronizes
     * memory, POSIX.1-2017 section 4.12). */
    sem_post(&v->go);
}

/* Wait until every variant in `mask` has finished or `until` has come. On a
 * virtual clock time moves only with the variants, so wait for completion. */
static void wait_for(rtcosim_anytime *set, unsigned mask, rtcosim_time_ns until)
{
    bool virtual_clock = rtcosim_clock_is_virtual(set->clock);
    rtcosim_time_ns entered = rtcosim_clock_now(set->clock);
    for (;;) {
        bool all_done = true;
        for (size_t i = 0; i < set->variant_count; i++)
            if ((mask >> i & 1u) &&
                atomic_load_explicit(&set->variants[i].running, memory_order_acquire))
                all_done = false;
        if (all_done)
            break;
        if (virtual_clock || until == NEVER) {
            while (sem_wait(&set->done) != 0 && errno == EINTR) {
            }
            continue;
        }
        rtcosim_time_ns left = until - rtcosim_clock_now(set->clock);
        if (left <= 0)
            break;
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        int64_t target = (int64_t)ts.tv_sec * RTCOSIM_NS_PER_S + ts.tv_nsec + left;
        ts.tv_sec = (time_t)(target / RTCOSIM_NS_PER_S);
        ts.tv_nsec = (long)(target % RTCOSIM_NS_PER_S);
        sem_clockwait(&set->done, CLOCK_MONOTONIC, &ts);
    }
    /* Blocked by intent only up to `until`: waking later is time the
     * thread was not running (the stall measure of run_period). */
    rtcosim_time_ns left_at = rtcosim_clock_now(set->clock);
    set->blocked_ns += (left_at < until ? left_at : until) - entered;
}

/* Classify v's finished (or unfinished) job. */
static void variant_conclude(variant *v)
{
    if (v->worker_started && atomic_load_explicit(&v->running, memory_order_acquire)) {
        /* Still running: cancel it; it finishes on its own copy and its
         * result is never read. */
        atomic_store_explicit(&v->ctx.cancel, true, memory_order_relaxed);
        v->outcome = RTCOSIM_ANYTIME_ABANDONED;
        v->abandoned++;
        /* started_at belongs to the worker until it returns. */
        v->exec_ns = rtcosim_clock_now(v->set->clock) - v->dispatched_at;
        return;
    }
    v->exec_ns = v->finished_at - v->started_at;
    if (v->status == RTCOSIM_OK) {
        v->outcome = RTCOSIM_ANYTIME_COMPLETED;
        v->completed++;
        anytime_stats_add(&v->stats, (double)v->exec_ns);
    } else if (v->status == RTCOSIM_ECANCELED) {
        v->outcome = RTCOSIM_ANYTIME_ABORTED;
        v->aborted++;
    } else {
        v->outcome = RTCOSIM_ANYTIME_FAILED;
        v->failed++;
    }
}

/* Run v until it finishes or abort_at: inline when it is native and not
 * meant for a worker, else on its worker. */
static void variant_run(variant *v, const double *inputs, rtcosim_time_ns abort_at)
{
    variant_prepare(v, inputs, abort_at);
    v->runs++;
    v->last_run_period = v->set->periods;
    if (v->worker_started) {
        variant_dispatch(v);
        wait_for(v->set, 1u << v->index, abort_at);
    } else {
        variant_execute(v);
    }
    variant_conclude(v);
}

/* A variant on a worker that has not returned from an abandoned period. */
static bool variant_busy(variant *v)
{
    return v->worker_started && atomic_load_explicit(&v->running, memory_order_acquire);
}

/* ---- start: workers and calibration ------------------------------------ */

/* Start v's worker. Under a real-time policy the minimal variant's worker
 * runs one priority below the caller (its result is the guaranteed one) and
 * the costlier variants' workers under SCHED_OTHER: real-time workers busy
 * to the cutoff would spend the real-time budget of the CPUs they run on,
 * which the delivering thread shares (the kernel throttles every real-time
 * thread of a CPU beyond it, see idle_reserve), and would starve the rest of
 * the system; the caller preempts SCHED_OTHER workers at once. */
static int worker_create(variant *v)
{
    int policy;
    struct sched_param param;
    if (pthread_getschedparam(pthread_self(), &policy, &param) == 0 &&
        (policy == SCHED_FIFO || policy == SCHED_RR) &&
        (v->index > 0 || param.sched_priority > sched_get_priority_min(policy))) {
        pthread_attr_t attr;
        if (v->index > 0) {
            policy = SCHED_OTHER;
            param.sched_priority = 0;
        } else {
            param.sched_priority--;
        }
        if (pthread_attr_init(&attr) == 0) {
            int rc = pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
            if (!rc)
                rc = pthread_attr_setschedpolicy(&attr, policy);
            if (!rc)
                rc = pthread_attr_setschedparam(&attr, &param);
            if (!rc)
                rc = pthread_create(&v->thread, &attr, worker_main, v);
            pthread_attr_destroy(&attr);
            if (!rc)
                return 0;
        }
    }
    return pthread_create(&v->thread, NULL, worker_main, v);
}

static rtcosim_status start_workers(rtcosim_anytime *set, rtcosim_error *err)
{
    if (sem_init(&set->done, 0, 0) != 0)
        return rtcosim_error_set(err, RTCOSIM_EIO, "anytime set '%s': cannot create semaphore",
                                 set->name);
    set->done_ready = true;
    for (size_t i = 0; i < set->variant_count; i++) {
        variant *v = &set->variants[i];
        bool needs_worker = v->component != NULL ||
                            (set->cfg.strategy == RTCOSIM_ANYTIME_PARALLEL && i > 0);
        if (!needs_worker)
            continue;
        if (sem_init(&v->go, 0, 0) != 0)
            return rtcosim_error_set(err, RTCOSIM_EIO,
                                     "anytime set '%s': cannot create semaphore for '%s'",
                                     set->name, v->name);
        v->go_ready = true;
        atomic_init(&v->quit, false);
        int rc = worker_create(v);
        if (rc != 0)
            return rtcosim_error_set(err, RTCOSIM_EIO,
                                     "anytime set '%s': cannot start the worker of '%s': %s",
                                     set->name, v->name, strerror(rc));
        v->worker_started = true;
    }
    return RTCOSIM_OK;
}

/* Components: the minimal one's state becomes the committed state, and
 * every component loads it before its first run. */
static rtcosim_status start_components(rtcosim_anytime *set, rtcosim_error *err)
{
    for (size_t i = 0; i < set->variant_count; i++) {
        rtcosim_component *c = set->variants[i].component;
        const rtcosim_capabilities *caps = rtcosim_component_capabilities(c);
        if (!caps->can_get_set_state || !caps->can_serialize_state)
            return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                     "anytime set '%s': component variant '%s' (%s) cannot "
                                     "serialize its state, which is needed to continue every "
                                     "variant from the delivered one",
                                     set->name, set->variants[i].name,
                                     rtcosim_component_model_name(c));
        if (strcmp(rtcosim_component_model_name(c),
                   rtcosim_component_model_name(set->variants[0].component)) != 0)
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "anytime set '%s': component variant '%s' is model '%s' but "
                                     "'%s' is model '%s'; variants must share one model's state",
                                     set->name, set->variants[i].name,
                                     rtcosim_component_model_name(c), set->variants[0].name,
                                     rtcosim_component_model_name(set->variants[0].component));
    }
    variant *minimal = &set->variants[0];
    rtcosim_status st = rtcosim_component_get_state(minimal->component, &minimal->snapshot, err);
    size_t size = 0;
    if (!st)
        st = rtcosim_component_serialized_state_size(minimal->component, minimal->snapshot, &size,
                                                     err);
    if (st)
        return rtcosim_error_prefix(err, "anytime set '%s': ", set->name);
    /* Room for growth: serialized states of variable size must not force an
     * allocation while running. */
    set->committed_capacity = 2 * size + 256;
    set->committed_bytes = malloc(set->committed_capacity);
    bool ok = set->committed_bytes != NULL;
    for (size_t i = 0; ok && i < set->variant_count; i++) {
        set->variants[i].sync_bytes = malloc(set->committed_capacity);
        ok = set->variants[i].sync_bytes != NULL;
    }
    if (!ok)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "anytime set '%s': out of memory",
                                 set->name);
    set->committed_size = size;
    if ((st = rtcosim_component_serialize_state(minimal->component, minimal->snapshot,
                                                set->committed_bytes, size, err)))
        return rtcosim_error_prefix(err, "anytime set '%s': ", set->name);
    for (size_t i = 0; i < set->variant_count; i++)
        set->variants[i].needs_sync = true;
    return RTCOSIM_OK;
}

/* The idle reserve for the calling thread's policy and the kernel's
 * real-time throttling limits (read once, at start: not on the hot path). */
static long long read_limit(const char *path, long long fallback)
{
    FILE *f = fopen(path, "r");
    long long value;
    bool ok = f && fscanf(f, "%lld", &value) == 1;
    if (f)
        fclose(f);
    return ok ? value : fallback;
}

static double derived_idle_reserve(void)
{
    int policy;
    struct sched_param param;
    bool realtime = pthread_getschedparam(pthread_self(), &policy, &param) == 0 &&
                    (policy == SCHED_FIFO || policy == SCHED_RR);
    if (!realtime)
        return 0.0;
    /* -2 when unreadable: the pure function then takes the kernel default */
    return anytime_idle_reserve_from_limits(
        true, read_limit("/proc/sys/kernel/sched_rt_runtime_us", -2),
        read_limit("/proc/sys/kernel/sched_rt_period_us", -2));
}

static rtcosim_status calibrate(rtcosim_anytime *set, const double *inputs, rtcosim_error *err)
{
    for (int run = 0; run < set->cfg.calibration_runs; run++)
        for (size_t i = 0; i < set->variant_count; i++) {
            variant *v = &set->variants[i];
            if (variant_busy(v)) {
                v->outcome = RTCOSIM_ANYTIME_BUSY;
                continue;
            }
            variant_run(v, inputs, rtcosim_clock_now(set->clock) + set->cfg.calibration_limit_ns);
            if (v->outcome == RTCOSIM_ANYTIME_FAILED)
                return rtcosim_error_set(err, v->status,
                                         "anytime set '%s': variant '%s' failed in calibration: %s",
                                         set->name, v->name, v->err.message);
            if (i == 0 && v->outcome != RTCOSIM_ANYTIME_COMPLETED)
                return rtcosim_error_set(
                    err, RTCOSIM_ETIMEOUT,
                    "anytime set '%s': minimal variant '%s' did not finish within the "
                    "calibration limit of %.1f us; the run is refused",
                    set->name, v->name, us((double)set->cfg.calibration_limit_ns));
        }
    /* Calibration results are never committed; the counters start afresh. */
    for (size_t i = 0; i < set->variant_count; i++) {
        variant *v = &set->variants[i];
        v->runs = v->completed = v->aborted = v->abandoned = v->failed = 0;
    }
    variant *minimal = &set->variants[0];
    double limit = set->cfg.minimal_max_share * (double)set->period_ns;
    double needed = minimal->stats.max + (double)set->cfg.safety_margin_ns;
    if (needed > limit)
        return rtcosim_error_set(
            err, RTCOSIM_ETIMEOUT,
            "anytime set '%s': minimal variant '%s' worst execution time %.1f us (mean %.1f us "
            "over %d calibration runs) plus safety margin %.1f us exceeds %.0f %% of the period "
            "%.1f us (%.1f us); the run is refused",
            set->name, minimal->name, us(minimal->stats.max), us(minimal->stats.mean),
            set->cfg.calibration_runs, us((double)set->cfg.safety_margin_ns),
            100 * set->cfg.minimal_max_share, us((double)set->period_ns), us(limit));
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_anytime_start(rtcosim_anytime *set, const double *calibration_inputs,
                                     rtcosim_error *err)
{
    if (!set)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "anytime: no variant set given");
    if (set->started)
        return rtcosim_error_set(err, RTCOSIM_ESTATE, "anytime set '%s': already started",
                                 set->name);
    if (set->variant_count == 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "anytime set '%s': no variants",
                                 set->name);
    size_t components = 0;
    for (size_t i = 0; i < set->variant_count; i++)
        components += set->variants[i].component != NULL;
    if (components != 0 && components != set->variant_count)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime set '%s': mixes native and component variants; their "
                                 "states cannot be carried over between them",
                                 set->name);
    if (set->cfg.strategy == RTCOSIM_ANYTIME_PARALLEL && rtcosim_clock_is_virtual(set->clock))
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                 "anytime set '%s': the parallel strategy runs variants at the "
                                 "same time and needs the monotonic clock, not a virtual one",
                                 set->name);
    set->idle_reserve = set->cfg.idle_reserve >= 0 ? set->cfg.idle_reserve : derived_idle_reserve();
    if (set->cfg.safety_margin_ns + anytime_idle_reserve_ns(set->idle_reserve, set->period_ns) >=
        set->period_ns)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime set '%s': the idle reserve of %.1f %% of the period "
                                 "(derived from the kernel's real-time throttling) and the "
                                 "safety margin %.1f us leave no time for work in the period "
                                 "%.1f us",
                                 set->name, 100 * set->idle_reserve,
                                 us((double)set->cfg.safety_margin_ns), us((double)set->period_ns));
    set->started = true;
    rtcosim_status st = RTCOSIM_OK;
    if (components && (st = start_components(set, err)))
        return st;
    if ((st = start_workers(set, err)))
        return st;
    const double *inputs = calibration_inputs ? calibration_inputs : set->inputs;
    if ((st = calibrate(set, inputs, err)))
        return st;
    set->minimal_calibrated_ns = set->variants[0].stats.max;
    set->release = rtcosim_clock_now(set->clock);
    set->running = true;
    return RTCOSIM_OK;
}

/* ---- the strategies ---------------------------------------------------- */

/* Only completed variants' results are read: an abandoned one's fields
 * still belong to its worker. */
static void candidates_fill(rtcosim_anytime *set, anytime_candidate *c)
{
    for (size_t i = 0; i < set->variant_count; i++) {
        variant *v = &set->variants[i];
        bool completed = v->outcome == RTCOSIM_ANYTIME_COMPLETED;
        c[i] = (anytime_candidate){.completed = completed,
                                   .rank = v->rank,
                                   .step_ns = v->step_ns,
                                   .solver = v->solver,
                                   .exec_ns = v->exec_ns,
                                   .finish_at = completed ? v->finished_at : 0};
    }
}

static int strategy_escalate(rtcosim_anytime *set, const double *inputs, rtcosim_time_ns cutoff)
{
    variant_run(&set->variants[0], inputs, NEVER);
    if (set->variants[0].outcome != RTCOSIM_ANYTIME_COMPLETED)
        return -1;
    for (size_t i = 1; i < set->variant_count; i++) {
        variant *v = &set->variants[i];
        if (variant_busy(v)) {
            v->outcome = RTCOSIM_ANYTIME_BUSY;
            continue;
        }
        if (rtcosim_clock_now(set->clock) >= cutoff)
            break;
        variant_run(v, inputs, cutoff);
        if (v->outcome == RTCOSIM_ANYTIME_ABORTED || v->outcome == RTCOSIM_ANYTIME_ABANDONED)
            break;
    }
    anytime_candidate c[RTCOSIM_ANYTIME_MAX_VARIANTS];
    candidates_fill(set, c);
    return anytime_pick(c, set->variant_count, set->cfg.criterion);
}

static int strategy_timer(rtcosim_anytime *set, const double *inputs, rtcosim_time_ns deadline,
                          rtcosim_time_ns idle_reserve_ns)
{
    variant *minimal = &set->variants[0];
    /* The minimal variant's high quantile over the recent window (not its
     * worst time: one preempted run would shrink every later budget; the
     * safety margin covers the rest). */
    rtcosim_time_ns reserve =
        (rtcosim_time_ns)ceil(anytime_stats_quantile(&minimal->stats, set->cfg.quantile)) +
        set->cfg.safety_margin_ns;
    rtcosim_time_ns abort_at = deadline - idle_reserve_ns - reserve;
    rtcosim_time_ns now = rtcosim_clock_now(set->clock);
    double estimate[RTCOSIM_ANYTIME_MAX_VARIANTS];
    int rank[RTCOSIM_ANYTIME_MAX_VARIANTS];
    for (size_t i = 0; i < set->variant_count; i++) {
        variant *v = &set->variants[i];
        /* A busy variant cannot start: give it an estimate that never fits.
         * One left unrun for forget_after_periods is probed with its best
         * recent time, so that stale slow samples do not bar it for ever. */
        bool stale = set->periods - v->last_run_period >= set->cfg.forget_after_periods;
        if (variant_busy(v))
            estimate[i] = INFINITY;
        else if (stale)
            estimate[i] = anytime_stats_window_min(&v->stats);
        else
            estimate[i] = anytime_stats_estimate(&v->stats, set->cfg.estimate, set->cfg.quantile);
        rank[i] = v->rank;
        if (variant_busy(v))
            v->outcome = RTCOSIM_ANYTIME_BUSY;
    }
    size_t chosen = anytime_timer_choose(estimate, set->abort_floor_ns, rank, set->variant_count,
                                         abort_at - now, set->learned_abort_ns);
    bool aborted = false;
    if (chosen > 0) {
        variant *v = &set->variants[chosen];
        variant_run(v, inputs, abort_at);
        if (v->outcome == RTCOSIM_ANYTIME_COMPLETED)
            goto done;
        if (v->outcome == RTCOSIM_ANYTIME_ABORTED || v->outcome == RTCOSIM_ANYTIME_ABANDONED) {
            /* Learn: this variant needs more than it was given; the next
             * choice must be expected to finish before this point. */
            aborted = true;
            set->learned_abort_ns = abort_at - (v->outcome == RTCOSIM_ANYTIME_ABORTED
                                                    ? v->started_at
                                                    : v->dispatched_at);
            if (set->learned_abort_ns < 1) /* started late: nothing fits until forgotten */
                set->learned_abort_ns = 1;
            set->abort_floor_ns[chosen] = set->learned_abort_ns;
        }
    }
    variant_run(minimal, inputs, NEVER);
done:
    if (aborted) {
        set->periods_since_abort = 0;
    } else if (set->learned_abort_ns > 0 &&
               ++set->periods_since_abort >= set->cfg.forget_after_periods) {
        set->learned_abort_ns = 0;
        memset(set->abort_floor_ns, 0, sizeof set->abort_floor_ns);
    }
    return set->variants[chosen].outcome == RTCOSIM_ANYTIME_COMPLETED ? (int)chosen : 0;
}

static int strategy_parallel(rtcosim_anytime *set, const double *inputs, rtcosim_time_ns cutoff)
{
    unsigned mask = 0;
    for (size_t i = 1; i < set->variant_count; i++) {
        variant *v = &set->variants[i];
        if (variant_busy(v)) {
            v->outcome = RTCOSIM_ANYTIME_BUSY;
            continue;
        }
        variant_prepare(v, inputs, cutoff);
        v->runs++;
        v->last_run_period = set->periods;
        variant_dispatch(v);
        mask |= 1u << i;
    }
    variant_run(&set->variants[0], inputs, NEVER);
    wait_for(set, mask, cutoff);
    for (size_t i = 1; i < set->variant_count; i++)
        if (mask >> i & 1u)
            variant_conclude(&set->variants[i]);
    anytime_candidate c[RTCOSIM_ANYTIME_MAX_VARIANTS];
    candidates_fill(set, c);
    /* A worker may complete between the cutoff and its conclusion here; its
     * result came too late and is not delivered (the cutoff, not the moment
     * this thread looked, decides). */
    return anytime_parallel_select(c, set->variant_count, cutoff, set->cfg.criterion);
}

/* Make the delivered variant's result the committed one. */
static rtcosim_status commit(rtcosim_anytime *set, variant *v, rtcosim_error *err)
{
    memcpy(set->outputs, v->outputs, set->cfg.output_count * sizeof *set->outputs);
    if (v->fn) {
        if (set->cfg.state_size)
            memcpy(set->state, v->state, set->cfg.state_size);
        return RTCOSIM_OK;
    }
    size_t size = 0;
    rtcosim_status st = rtcosim_component_get_state(v->component, &v->snapshot, err);
    if (!st)
        st = rtcosim_component_serialized_state_size(v->component, v->snapshot, &size, err);
    if (!st && size > set->committed_capacity)
        st = rtcosim_error_set(err, RTCOSIM_ESTATE,
                               "serialized state of '%s' grew to %zu bytes, beyond the %zu "
                               "reserved at start",
                               v->name, size, set->committed_capacity);
    if (!st)
        st = rtcosim_component_serialize_state(v->component, v->snapshot, set->committed_bytes,
                                               size, err);
    if (st)
        return rtcosim_error_prefix(err, "anytime set '%s': committing variant '%s': ",
                                    set->name, v->name);
    set->committed_size = size;
    /* A variant still busy with an abandoned period owns its flag (already
     * true: it moved away from the committed state). */
    for (size_t i = 0; i < set->variant_count; i++)
        if (!variant_busy(&set->variants[i]))
            set->variants[i].needs_sync = i != v->index;
    return RTCOSIM_OK;
}

rtcosim_time_ns rtcosim_anytime_next_release(const rtcosim_anytime *set)
{
    return set->release;
}

void rtcosim_anytime_wait_release(rtcosim_anytime *set)
{
    rtcosim_clock_sleep_until(set->clock, set->release);
}

rtcosim_status rtcosim_anytime_run_period(rtcosim_anytime *set, const double *inputs,
                                          double *outputs, rtcosim_anytime_period *report,
                                          rtcosim_error *err)
{
    if (!set || !outputs || (!inputs && set->cfg.input_count))
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime: run_period needs a set, inputs and outputs");
    if (!set->running)
        return rtcosim_error_set(err, RTCOSIM_ESTATE,
                                 "anytime set '%s': run_period before a successful start",
                                 set->name);
    rtcosim_time_ns started_at = rtcosim_clock_now(set->clock);
    bool virtual_clock = rtcosim_clock_is_virtual(set->clock);
    struct timespec cpu_start = {0, 0}, cpu_end = {0, 0};
    if (!virtual_clock)
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu_start);
    set->blocked_ns = 0;
    rtcosim_time_ns deadline = set->release + set->period_ns;
    rtcosim_time_ns idle_reserve_ns = anytime_idle_reserve_ns(set->idle_reserve, set->period_ns);
    rtcosim_time_ns cutoff = deadline - set->cfg.safety_margin_ns - idle_reserve_ns;
    for (size_t i = 0; i < set->variant_count; i++) {
        set->variants[i].outcome = RTCOSIM_ANYTIME_NOT_RUN;
        set->variants[i].exec_ns = 0;
    }
    int delivered;
    switch (set->cfg.strategy) {
    case RTCOSIM_ANYTIME_TIMER:
        delivered = strategy_timer(set, inputs, deadline, idle_reserve_ns);
        break;
    case RTCOSIM_ANYTIME_PARALLEL:
        delivered = strategy_parallel(set, inputs, cutoff);
        break;
    case RTCOSIM_ANYTIME_ESCALATE:
    default:
        delivered = strategy_escalate(set, inputs, cutoff);
        break;
    }
    variant *minimal = &set->variants[0];
    if (delivered < 0 || minimal->outcome == RTCOSIM_ANYTIME_FAILED) {
        if (minimal->outcome == RTCOSIM_ANYTIME_FAILED)
            return rtcosim_error_set(err, minimal->status,
                                     "anytime set '%s': minimal variant '%s' failed at t = %.9g "
                                     "s: %s",
                                     set->name, minimal->name,
                                     rtcosim_time_to_seconds(set->sim_time), minimal->err.message);
        return rtcosim_error_set(err, RTCOSIM_ECOMPONENT,
                                 "anytime set '%s': no variant completed at t = %.9g s", set->name,
                                 rtcosim_time_to_seconds(set->sim_time));
    }
    variant *v = &set->variants[delivered];
    rtcosim_status st = commit(set, v, err);
    if (st)
        return st;
    memcpy(outputs, set->outputs, set->cfg.output_count * sizeof *outputs);
    v->delivered++;

    rtcosim_anytime_period rec = {.index = set->periods,
                                  .sim_time = set->sim_time,
                                  .release = set->release,
                                  .deadline = deadline,
                                  .period_ns = set->period_ns,
                                  .started_at = started_at,
                                  .delivered = delivered};
    rec.delivered_at = rtcosim_clock_now(set->clock);
    rec.margin_ns = deadline - rec.delivered_at;
    rec.missed = rec.margin_ns < 0;
    rec.cutoff = cutoff;
    rec.latest_start = deadline - set->cfg.safety_margin_ns -
                       (rtcosim_time_ns)ceil(set->minimal_calibrated_ns);
    if (!virtual_clock) {
        /* Thread CPU time leaves out the time the thread was runnable but
         * not running, hypervisor steal included (the kernel subtracts
         * steal from task time under CONFIG_PARAVIRT_TIME_ACCOUNTING). */
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu_end);
        rtcosim_time_ns cpu = (cpu_end.tv_sec - cpu_start.tv_sec) * RTCOSIM_NS_PER_S +
                              (cpu_end.tv_nsec - cpu_start.tv_nsec);
        rtcosim_time_ns lost = rec.delivered_at - started_at - cpu - set->blocked_ns;
        rec.stalled_ns = lost > 0 ? lost : 0;
    }
    rec.miss = anytime_classify_miss(deadline, rec.latest_start, started_at, rec.delivered_at,
                                     rec.stalled_ns);
    for (size_t i = 0; i < set->variant_count; i++) {
        rec.outcome[i] = (uint8_t)set->variants[i].outcome;
        rec.exec_ns[i] = set->variants[i].exec_ns;
    }
    record_period(set, &rec);
    if (report)
        *report = rec;

    /* Next period: a period change takes effect now, after this period. */
    set->sim_time += set->period_ns;
    set->release += set->period_ns;
    rtcosim_time_ns pending =
        atomic_exchange_explicit(&set->pending_period_ns, 0, memory_order_acq_rel);
    if (pending > 0)
        set->period_ns = pending;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_anytime_set_period(rtcosim_anytime *set, rtcosim_time_ns period_ns,
                                          rtcosim_error *err)
{
    if (!set)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "anytime: no variant set given");
    rtcosim_time_ns reserve_ns =
        anytime_idle_reserve_ns(set->idle_reserve > 0 ? set->idle_reserve : 0, period_ns);
    if (period_ns <= set->cfg.safety_margin_ns + reserve_ns)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime set '%s': period %" PRId64
                                 " ns must exceed the safety margin %" PRId64
                                 " ns plus the idle reserve %" PRId64 " ns",
                                 set->name, period_ns, set->cfg.safety_margin_ns, reserve_ns);
    /* The same test as at start, against the calibrated figure (fixed once
     * running, so this may run on another thread). */
    double limit = set->cfg.minimal_max_share * (double)period_ns;
    if (set->minimal_calibrated_ns > 0 &&
        set->minimal_calibrated_ns + (double)set->cfg.safety_margin_ns > limit)
        return rtcosim_error_set(
            err, RTCOSIM_ETIMEOUT,
            "anytime set '%s': period %.1f us refused: minimal variant '%s' worst calibrated "
            "time %.1f us plus safety margin %.1f us exceeds %.0f %% of it (%.1f us)",
            set->name, us((double)period_ns), set->variants[0].name,
            us(set->minimal_calibrated_ns), us((double)set->cfg.safety_margin_ns),
            100 * set->cfg.minimal_max_share, us(limit));
    atomic_store_explicit(&set->pending_period_ns, period_ns, memory_order_release);
    return RTCOSIM_OK;
}

rtcosim_time_ns rtcosim_anytime_period_ns(const rtcosim_anytime *set)
{
    return set->period_ns;
}

const void *rtcosim_anytime_state(const rtcosim_anytime *set)
{
    return set->state;
}

/* ---- teardown ---------------------------------------------------------- */

void variant_release(variant *v)
{
    if (v->snapshot)
        rtcosim_component_free_state(v->component, v->snapshot);
    if (v->loaded)
        rtcosim_component_free_state(v->component, v->loaded);
    v->snapshot = v->loaded = NULL;
    free(v->state);
    free(v->inputs);
    free(v->outputs);
    free(v->input_vrs);
    free(v->output_vrs);
    free(v->sync_bytes);
    v->sync_bytes = NULL;
    v->state = NULL;
    v->inputs = v->outputs = NULL;
    v->input_vrs = v->output_vrs = NULL;
    anytime_stats_release(&v->stats);
}

void rtcosim_anytime_free(rtcosim_anytime *set)
{
    if (!set)
        return;
    for (size_t i = 0; i < set->variant_count; i++) {
        variant *v = &set->variants[i];
        if (v->worker_started) {
            atomic_store_explicit(&v->ctx.cancel, true, memory_order_relaxed);
            atomic_store_explicit(&v->quit, true, memory_order_release);
            sem_post(&v->go);
            pthread_join(v->thread, NULL);
        }
        if (v->go_ready)
            sem_destroy(&v->go);
        variant_release(v);
    }
    if (set->done_ready)
        sem_destroy(&set->done);
    if (set->output_names)
        for (size_t i = 0; i < set->cfg.output_count; i++)
            free(set->output_names[i]);
    free(set->output_names);
    free(set->committed_bytes);
    free(set->records);
    free(set->record_outputs);
    free(set->state);
    free(set->outputs);
    free(set->inputs);
    free(set);
}
