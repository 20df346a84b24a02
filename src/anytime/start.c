/* Starting an anytime set: its components brought up, the idle reserve
 * derived from the kernel's real-time throttling limits, and the calibration
 * that measures every variant and refuses a set whose minimal variant cannot
 * keep its period. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "anytime/anytime_internal.h"
#include "anytime/anytime_private.h"

#ifdef SCHED_DEADLINE
#define SCHED_DEADLINE_POLICY SCHED_DEADLINE
#else
#define SCHED_DEADLINE_POLICY 6 /* linux/sched.h */
#endif

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

/* The calling thread's SCHED_DEADLINE reservation (sched_getattr(2); the
 * glibc of Debian 12 has no wrapper): runtime and period in ns; false when
 * it cannot be read. */
struct anytime_sched_attr {
    uint32_t size, sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime, sched_deadline, sched_period;
};

static bool deadline_reservation(long long *runtime_ns, long long *period_ns)
{
#ifdef SYS_sched_getattr
    struct anytime_sched_attr attr;
    memset(&attr, 0, sizeof attr);
    if (syscall(SYS_sched_getattr, 0, &attr, (unsigned)sizeof attr, 0u) != 0 ||
        attr.sched_runtime > (uint64_t)LLONG_MAX || attr.sched_period > (uint64_t)LLONG_MAX)
        return false;
    *runtime_ns = (long long)attr.sched_runtime;
    /* a period of 0 means the deadline's (sched_setattr(2)) */
    *period_ns = (long long)(attr.sched_period ? attr.sched_period : attr.sched_deadline);
    return true;
#else
    (void)runtime_ns, (void)period_ns;
    return false;
#endif
}

double anytime_derived_idle_reserve(void)
{
    /* The kernel's policy, not pthread_getschedparam's: glibc answers that
     * from what its own pthread_setschedparam last set, so a thread moved to
     * SCHED_DEADLINE by sched_setattr(2) still reads as SCHED_FIFO there.
     * SCHED_DEADLINE is not throttled by sched_rt_runtime_us, but by its own
     * reservation: a thread that used its runtime is stopped until its
     * deadline, so the cutoff must leave the delivery its budget (measured
     * in B5 with runtime 900 us of 1 ms and the cutoff at 900 us: deliveries
     * right after the cutoff found the budget spent and waited ~90 us for
     * the replenishment, 2 misses in 15 000 periods that were the program's
     * own; through the component path a period took up to 956 us of CPU). */
    int policy = sched_getscheduler(0) & ~SCHED_RESET_ON_FORK;
    if (policy == SCHED_DEADLINE_POLICY) {
        long long runtime = -1, period = -1;
        (void)deadline_reservation(&runtime, &period); /* unreadable: the default's */
        return anytime_idle_reserve_from_deadline(runtime, period);
    }
    bool realtime = policy == SCHED_FIFO || policy == SCHED_RR;
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
            if (anytime_variant_busy(v)) {
                v->outcome = RTCOSIM_ANYTIME_BUSY;
                continue;
            }
            bool wait = i == 0 && set->cfg.calibration_advisory;
            anytime_variant_run(v, inputs,
                                wait ? NEVER
                                     : rtcosim_clock_now(set->clock) +
                                           set->cfg.calibration_limit_ns);
            if (v->outcome == RTCOSIM_ANYTIME_FAILED)
                return rtcosim_error_set(err, v->status,
                                         "anytime set '%s': variant '%s' failed in calibration: %s",
                                         set->name, v->name, v->err.message);
            if (i == 0 && v->outcome != RTCOSIM_ANYTIME_COMPLETED)
                return rtcosim_error_set(
                    err, RTCOSIM_ETIMEOUT,
                    "anytime set '%s': minimal variant '%s' did not finish within the "
                    "calibration limit of %.1f us; the run is refused",
                    set->name, v->name, anytime_us((double)set->cfg.calibration_limit_ns));
        }
    /* Calibration results are never committed; the counters start afresh. */
    for (size_t i = 0; i < set->variant_count; i++) {
        variant *v = &set->variants[i];
        v->runs = v->completed = v->aborted = v->abandoned = v->failed = 0;
    }
    variant *minimal = &set->variants[0];
    double limit = set->cfg.minimal_max_share * (double)set->period_ns;
    double needed = minimal->stats.max + (double)set->cfg.safety_margin_ns;
    if (needed > limit && !set->cfg.calibration_advisory)
        return rtcosim_error_set(
            err, RTCOSIM_ETIMEOUT,
            "anytime set '%s': minimal variant '%s' worst execution time %.1f us (mean %.1f us "
            "over %d calibration runs) plus safety margin %.1f us exceeds %.0f %% of the period "
            "%.1f us (%.1f us); the run is refused",
            set->name, minimal->name, anytime_us(minimal->stats.max), anytime_us(minimal->stats.mean),
            set->cfg.calibration_runs, anytime_us((double)set->cfg.safety_margin_ns),
            100 * set->cfg.minimal_max_share, anytime_us((double)set->period_ns), anytime_us(limit));
    return RTCOSIM_OK;
}

static int compare_ns(const void *a, const void *b)
{
    rtcosim_time_ns x = *(const rtcosim_time_ns *)a, y = *(const rtcosim_time_ns *)b;
    return (x > y) - (x < y);
}

/* The calling thread's wake-up lateness from a timed semaphore wait (the
 * wait for a worker), one period apart: its p50, p99, max and the
 * configured quantile, the lead of the timed waits (anytime_wait_for).
 * 0.25 s in all: at least 20 waits, closer than a period where the period
 * is long (a 1 s period took 20 s to start). */
static void measure_wakeups(rtcosim_anytime *set)
{
    set->wakeup_p50_ns = set->wakeup_p99_ns = set->wakeup_max_ns = set->wakeup_lead_ns = 0;
    if (set->cfg.wakeup_samples <= 0 || rtcosim_clock_is_virtual(set->clock))
        return;
    const rtcosim_time_ns budget = 250 * RTCOSIM_NS_PER_MS;
    size_t n = (size_t)set->cfg.wakeup_samples;
    size_t fit = (size_t)(budget / set->period_ns);
    if (n > fit)
        n = fit > 20 ? fit : 20;
    rtcosim_time_ns interval = set->period_ns;
    if (interval * (rtcosim_time_ns)n > budget)
        interval = budget / (rtcosim_time_ns)n;
    rtcosim_time_ns *late = malloc(n * sizeof *late);
    sem_t never;
    if (!late || sem_init(&never, 0, 0) != 0) {
        free(late);
        return;
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t due = (int64_t)ts.tv_sec * RTCOSIM_NS_PER_S + ts.tv_nsec;
    for (size_t i = 0; i < n; i++) {
        due += interval;
        struct timespec at = {(time_t)(due / RTCOSIM_NS_PER_S), (long)(due % RTCOSIM_NS_PER_S)};
        while (sem_clockwait(&never, CLOCK_MONOTONIC, &at) != 0 && errno == EINTR) {
        }
        clock_gettime(CLOCK_MONOTONIC, &ts);
        int64_t now = (int64_t)ts.tv_sec * RTCOSIM_NS_PER_S + ts.tv_nsec;
        late[i] = now > due ? now - due : 0;
    }
    sem_destroy(&never);
    qsort(late, n, sizeof *late, compare_ns);
    size_t q = (size_t)ceil(set->cfg.wakeup_quantile * (double)n);
    set->wakeup_p50_ns = late[(n - 1) / 2];
    set->wakeup_p99_ns = late[(size_t)ceil(0.99 * (double)n) - 1];
    set->wakeup_max_ns = late[n - 1];
    set->wakeup_lead_ns = late[(q ? q : 1) - 1];
    /* a lead past half the work time would poll through most waits */
    if (set->wakeup_lead_ns > set->period_ns / 4)
        set->wakeup_lead_ns = set->period_ns / 4;
    free(late);
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
    set->idle_reserve =
        set->cfg.idle_reserve >= 0 ? set->cfg.idle_reserve : anytime_derived_idle_reserve();
    if (set->cfg.safety_margin_ns + anytime_idle_reserve_ns(set->idle_reserve, set->period_ns) >=
        set->period_ns)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime set '%s': the idle reserve of %.1f %% of the period "
                                 "(derived from the kernel's real-time throttling) and the "
                                 "safety margin %.1f us leave no time for work in the period "
                                 "%.1f us",
                                 set->name, 100 * set->idle_reserve,
                                 anytime_us((double)set->cfg.safety_margin_ns), anytime_us((double)set->period_ns));
    set->started = true;
    rtcosim_status st = RTCOSIM_OK;
    if (components && (st = start_components(set, err)))
        return st;
    if ((st = anytime_start_workers(set, err)))
        return st;
    measure_wakeups(set); /* on the thread that then runs the periods */
    const double *inputs = calibration_inputs ? calibration_inputs : set->inputs;
    if ((st = calibrate(set, inputs, err)))
        return st;
    set->minimal_calibrated_ns = set->variants[0].stats.max;
    set->release = rtcosim_clock_now(set->clock);
    set->running = true;
    return RTCOSIM_OK;
}
