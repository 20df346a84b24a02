/* Running one variant of an anytime set: inline or on its persistent worker
 * thread with its own state copy, cancelled at its abort time and abandoned
 * when it does not return; the hot path takes no lock and allocates nothing. */
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
#include <unistd.h>

#include "anytime/anytime_internal.h"
#include "anytime/anytime_private.h"

/* ---- running one variant ------------------------------------------------ */

bool rtcosim_anytime_should_abort(rtcosim_anytime_ctx *ctx)
{
    if (atomic_load_explicit(&ctx->cancel, memory_order_relaxed))
        return true;
    if (ctx->abort_at == NEVER)
        return false;
    rtcosim_time_ns now = rtcosim_clock_now(ctx->set->clock);
    if (now - ctx->last_check_at > ctx->check_gap_ns)
        ctx->check_gap_ns = now - ctx->last_check_at;
    ctx->last_check_at = now;
    return now >= ctx->abort_at;
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
    v->ctx.last_check_at = v->started_at;
    v->ctx.check_gap_ns = 0;
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
void anytime_variant_prepare_job(variant *v, const void *state, const double *inputs,
                                 rtcosim_time_ns t, rtcosim_time_ns h, rtcosim_time_ns abort_at)
{
    rtcosim_anytime *set = v->set;
    if (set->cfg.state_size && v->fn)
        memcpy(v->state, state, set->cfg.state_size);
    if (v->component && v->needs_sync) {
        memcpy(v->sync_bytes, set->committed_bytes, set->committed_size);
        v->sync_size = set->committed_size;
    }
    if (set->cfg.input_count)
        memcpy(v->inputs, inputs, set->cfg.input_count * sizeof *inputs);
    v->job_t = t;
    v->job_h = h;
    v->ctx.abort_at = abort_at;
    atomic_store_explicit(&v->ctx.cancel, false, memory_order_relaxed);
    v->outcome = RTCOSIM_ANYTIME_NOT_RUN;
    v->dispatched_at = rtcosim_clock_now(set->clock);
}

void anytime_variant_prepare(variant *v, const double *inputs, rtcosim_time_ns abort_at)
{
    rtcosim_anytime *set = v->set;
    anytime_variant_prepare_job(v, set->state, inputs, set->sim_time, set->period_ns, abort_at);
}

void anytime_variant_dispatch(variant *v)
{
    if (v->demoted) /* it returned from an abandoned job: its class back */
        v->demoted = pthread_setschedparam(v->thread, v->run_policy, &v->run_param) != 0;
    atomic_store_explicit(&v->running, true, memory_order_relaxed);
    /* sem_post publishes the prepared job to the worker (it synchronizes
     * memory, POSIX.1-2017 section 4.12). */
    sem_post(&v->go);
}

/* sem_clockwait for `ns` of CLOCK_MONOTONIC from now: 0 or the errno. */
static int sem_timedwait_ns(sem_t *sem, int64_t ns)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t target = (int64_t)ts.tv_sec * RTCOSIM_NS_PER_S + ts.tv_nsec + ns;
    ts.tv_sec = (time_t)(target / RTCOSIM_NS_PER_S);
    ts.tv_nsec = (long)(target % RTCOSIM_NS_PER_S);
    return sem_clockwait(sem, CLOCK_MONOTONIC, &ts) == 0 ? 0 : errno;
}

/* The calling thread's CPU time (kernel time included). */
static rtcosim_time_ns thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (rtcosim_time_ns)ts.tv_sec * RTCOSIM_NS_PER_S + ts.tv_nsec;
}

/* Wait until every variant in `mask` has finished or `until` has come. On a
 * virtual clock time moves only with the variants, so wait for completion. */
void anytime_wait_for(rtcosim_anytime *set, unsigned mask, rtcosim_time_ns until)
{
    bool virtual_clock = rtcosim_clock_is_virtual(set->clock);
    rtcosim_time_ns entered = rtcosim_clock_now(set->clock);
    bool polling = false;
    rtcosim_time_ns poll_from = 0, last_poll = 0;
    for (;;) {
        bool all_done = true;
        for (size_t i = 0; i < set->variant_count; i++)
            if ((mask >> i & 1u) &&
                atomic_load_explicit(&set->variants[i].running, memory_order_acquire))
                all_done = false;
        if (all_done)
            break;
        if (until == NEVER) {
            rtcosim_time_ns cpu = thread_cpu_ns();
            while (sem_wait(&set->done) != 0 && errno == EINTR) {
            }
            set->wait_cpu_ns += thread_cpu_ns() - cpu;
            continue;
        }
        if (virtual_clock) {
            /* Time moves with the variants: wait for them, but a job that
             * has not returned after RTCOSIM_ANYTIME_VIRTUAL_HANG_NS of
             * real time never polls and runs on: it is still running at
             * `until`, where the clock is moved and the job abandoned. */
            if (sem_timedwait_ns(&set->done, RTCOSIM_ANYTIME_VIRTUAL_HANG_NS) == ETIMEDOUT) {
                rtcosim_clock_sleep_until(set->clock, until);
                entered = rtcosim_clock_now(set->clock); /* the jump is not a stall */
                break;
            }
            continue;
        }
        /* the sleep ends the measured wake-up lead before `until`; the rest
         * is polled, so that waking late cannot carry past `until` */
        rtcosim_time_ns now = rtcosim_clock_now(set->clock);
        if (now >= until)
            break;
        rtcosim_time_ns left = until - set->wakeup_lead_ns - now;
        if (left > 0) {
            rtcosim_time_ns cpu = thread_cpu_ns();
            sem_timedwait_ns(&set->done, left);
            set->wait_cpu_ns += thread_cpu_ns() - cpu;
            continue;
        }
        if (!polling) {
            polling = true;
            poll_from = now;
        } else if (now - last_poll > set->check_gap_ns) {
            set->check_gap_ns = now - last_poll; /* a stall of this thread while it polled */
        }
        last_poll = now;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    /* Blocked by intent only up to `until`: waking later is time the
     * thread was not running (the stall measure of run_period). */
    rtcosim_time_ns left_at = rtcosim_clock_now(set->clock);
    if (polling) /* polling is the thread's CPU time, not blocked time */
        left_at = poll_from;
    set->blocked_ns += (left_at < until ? left_at : until) - entered;
}

/* Wait for the one job on v's worker (escalate, timer, a repair: the
 * caller has nothing else to do) by polling its flag until it finishes or
 * `until` comes, instead of sleeping on the semaphore. Measured on this VM
 * (issue 32): a delivering thread asleep in sem_clockwait was woken 0.1-1.4
 * ms after the worker's sem_post, its idle vCPU halted, so that medium
 * finished before the cutoff and was delivered after the deadline. Polling
 * keeps the caller's CPU busy and the worker, one real-time priority below
 * the caller, is placed on another CPU by the kernel's real-time push. The
 * poll is CPU time of the caller, not blocked time: a preemption while it
 * polls counts as stalled. One CPU only, a virtual clock, or no time bound:
 * the semaphore wait. The worker's post is consumed when the flag is seen,
 * so that the semaphore count stays what the sleeping waits expect. */
void anytime_poll_for(variant *v, rtcosim_time_ns until)
{
    rtcosim_anytime *set = v->set;
    static long cpus;
    if (cpus == 0)
        cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (until == NEVER || cpus < 2 || rtcosim_clock_is_virtual(set->clock)) {
        anytime_wait_for(set, 1u << v->index, until);
        return;
    }
    rtcosim_time_ns last = rtcosim_clock_now(set->clock);
    while (atomic_load_explicit(&v->running, memory_order_acquire)) {
        rtcosim_time_ns now = rtcosim_clock_now(set->clock);
        if (now - last > set->check_gap_ns)
            set->check_gap_ns = now - last; /* (not the waiting's: a stall of this thread) */
        last = now;
        if (now >= until)
            return; /* still running: concluded as abandoned; its post comes later */
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    while (sem_trywait(&set->done) != 0 && errno == EINTR) {
    }
}

/* Classify v's finished (or unfinished) job. */
void anytime_variant_conclude(variant *v)
{
    if (v->worker_started && atomic_load_explicit(&v->running, memory_order_acquire)) {
        /* Still running: cancel it; it finishes on its own copy and its
         * result is never read. A real-time worker goes on under
         * SCHED_OTHER until it returns (a variant that never polls must not
         * hold a CPU at real-time priority); one syscall, on a miss only. */
        atomic_store_explicit(&v->ctx.cancel, true, memory_order_relaxed);
        if (v->run_policy != SCHED_OTHER && !v->demoted) {
            struct sched_param other = {0};
            v->demoted = pthread_setschedparam(v->thread, SCHED_OTHER, &other) == 0;
        }
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
        /* A whole period's run that ended below the timer's learned floor
         * (the time an abort showed it needed) disproves it: a repair or a
         * later run lifts the bar at once instead of after
         * forget_after_periods. */
        if (v->exec_ns < v->set->abort_floor_ns[v->index])
            v->set->abort_floor_ns[v->index] = 0;
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
void anytime_variant_run_job(variant *v, const void *state, const double *inputs,
                             rtcosim_time_ns t, rtcosim_time_ns h, rtcosim_time_ns abort_at)
{
    anytime_variant_prepare_job(v, state, inputs, t, h, abort_at);
    v->runs++;
    v->last_run_period = v->set->periods;
    if (v->worker_started) {
        anytime_variant_dispatch(v);
        anytime_poll_for(v, abort_at);
    } else {
        variant_execute(v);
        if (v->ctx.check_gap_ns > v->set->check_gap_ns)
            v->set->check_gap_ns = v->ctx.check_gap_ns;
    }
    anytime_variant_conclude(v);
    /* A worker's result that arrived after its abort time (it returned
     * between the runner's wake-up and this look, or the runner woke late)
     * is too late, as in the parallel strategy: the time decides, not the
     * moment of looking. Inline variants are stopped by their own check. */
    if (v->worker_started && abort_at != NEVER && v->outcome == RTCOSIM_ANYTIME_COMPLETED &&
        v->finished_at > abort_at) {
        v->outcome = RTCOSIM_ANYTIME_ABANDONED;
        v->completed--;
        v->abandoned++;
    }
}

void anytime_variant_run(variant *v, const double *inputs, rtcosim_time_ns abort_at)
{
    rtcosim_anytime *set = v->set;
    anytime_variant_run_job(v, set->state, inputs, set->sim_time, set->period_ns, abort_at);
}

/* A variant on a worker that has not returned from an abandoned period. */
bool anytime_variant_busy(variant *v)
{
    return v->worker_started && atomic_load_explicit(&v->running, memory_order_acquire);
}

/* ---- start: workers and calibration ------------------------------------ */

/* The policy of v's worker while it runs a job, from the calling thread's
 * (the kernel's policy, not glibc's cached one, which misses
 * sched_setattr). A worker whose job runs while the caller waits for it (the
 * minimal variant; every variant of escalate and timer, one at a time) takes
 * the caller's real-time class one priority below it (SCHED_FIFO 1 under a
 * SCHED_DEADLINE caller, whose reservation a worker cannot share), so that
 * load on the machine does not slow a variant that would run inline at that
 * priority; an abandoned one is moved to SCHED_OTHER until it returns
 * (anytime_variant_conclude), so that one that never returns cannot starve
 * the CPU. The parallel strategy's costlier variants run beside the caller:
 * SCHED_OTHER, so that speculative work never spends the CPUs' real-time
 * budget (see idle_reserve), cannot starve the rest of the system, and the
 * delivering thread preempts it at the cutoff at once. */
static void worker_policy(const variant *v, int *policy, struct sched_param *param)
{
    int caller = sched_getscheduler(0) & ~SCHED_RESET_ON_FORK;
    struct sched_param own = {0};
    sched_getparam(0, &own);
    *policy = SCHED_OTHER;
    param->sched_priority = 0;
    bool beside_caller = v->set->cfg.strategy == RTCOSIM_ANYTIME_PARALLEL && v->index > 0;
    if (beside_caller)
        return;
    if ((caller == SCHED_FIFO || caller == SCHED_RR) &&
        own.sched_priority > sched_get_priority_min(caller)) {
        *policy = caller;
        param->sched_priority = own.sched_priority - 1;
    } else if (caller == SCHED_DEADLINE) {
        *policy = SCHED_FIFO;
        param->sched_priority = sched_get_priority_min(SCHED_FIFO);
    }
}

static int worker_create(variant *v)
{
    int policy;
    struct sched_param param;
    worker_policy(v, &policy, &param);
    v->run_policy = policy;
    v->run_param = param;
    pthread_attr_t attr;
    if (policy != SCHED_OTHER && pthread_attr_init(&attr) == 0) {
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
        v->run_policy = SCHED_OTHER; /* refused: best effort */
    }
    return pthread_create(&v->thread, NULL, worker_main, v);
}

void anytime_workers_follow_caller(rtcosim_anytime *set)
{
    for (size_t i = 0; i < set->variant_count; i++) {
        variant *v = &set->variants[i];
        if (!v->worker_started || anytime_variant_busy(v))
            continue;
        int policy;
        struct sched_param param;
        worker_policy(v, &policy, &param);
        if (policy == v->run_policy && param.sched_priority == v->run_param.sched_priority)
            continue;
        if (pthread_setschedparam(v->thread, policy, &param) == 0) {
            v->run_policy = policy;
            v->run_param = param;
        }
    }
}

rtcosim_status anytime_start_workers(rtcosim_anytime *set, rtcosim_error *err)
{
    if (sem_init(&set->done, 0, 0) != 0)
        return rtcosim_error_set(err, RTCOSIM_EIO, "anytime set '%s': cannot create semaphore",
                                 set->name);
    set->done_ready = true;
    for (size_t i = 0; i < set->variant_count; i++) {
        variant *v = &set->variants[i];
        bool needs_worker = v->component != NULL ||
                            ((set->cfg.strategy == RTCOSIM_ANYTIME_PARALLEL ||
                              set->cfg.abandon_on_workers) &&
                             i > 0);
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
