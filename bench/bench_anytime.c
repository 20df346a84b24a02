/* B5 `rtcosim bench anytime`: one computation (a nonlinear spring-mass chain
 * driven at one end) with three variants - Euler in one step (minimal),
 * Euler with many small steps (medium), RK4 (accurate, often but not always
 * within the period) - run in real time (1 ms by default, --period) under a
 * seeded load that varies the time left, once per strategy. Figures: deadline
 * misses (each traced), share of periods per variant, repairs, RMS error of
 * the delivered signal against the accurate-always run, and its ratio to
 * always-medium and to the best fixed variant that fits (measured in the
 * same run). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <sched.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <time.h>

#include "bench.h"
#include "anytime_attribution.h"
#include "anytime_chain.h"
#include "anytime_component_loop.h"
#include "cpu_idle.h"
#include "cyclictest.h"
#include "rt_floor.h"
#include "util/splitmix64.h"
#include "rtcosim/anytime.h"
#include "rtcosim/anytime_component.h"
#include "rtcosim/clock.h"

/* ---- seeded input and load ------------------------------------------------ */

static double uniform(uint64_t *s) { return util_splitmix64_uniform(s); }

typedef struct scenario {
    size_t periods;
    double *u;                /* input force per period */
    rtcosim_time_ns *load_ns; /* busy time before the task per period */
} scenario;

/* Input: a slow sine plus a random level changed every 0.25 s. Load: most
 * periods light, some heavy, a few very heavy (the share of the period
 * taken by other work before the anytime task starts). */
static bool scenario_make(scenario *sc, size_t periods, rtcosim_time_ns period_ns, uint64_t seed)
{
    sc->periods = periods;
    sc->u = malloc(periods * sizeof *sc->u);
    sc->load_ns = malloc(periods * sizeof *sc->load_ns);
    if (!sc->u || !sc->load_ns)
        return false;
    uint64_t s = seed;
    double level = 0;
    for (size_t k = 0; k < periods; k++) {
        if (k % 250 == 0)
            level = 4.0 * (uniform(&s) - 0.5);
        double t = (double)k * (double)period_ns * 1e-9;
        sc->u[k] = 2.0 * sin(2 * M_PI * 0.7 * t) + level;
        double r = uniform(&s), share;
        if (r < 0.70)
            share = 0.10 * uniform(&s);
        else if (r < 0.95)
            share = 0.10 + 0.25 * uniform(&s);
        else
            share = 0.35 + 0.25 * uniform(&s);
        sc->load_ns[k] = (rtcosim_time_ns)(share * (double)period_ns);
    }
    return true;
}

static void scenario_free(scenario *sc)
{
    free(sc->u);
    free(sc->load_ns);
}

/* ---- runs ------------------------------------------------------------------ */

typedef struct run_result {
    uint64_t misses, late_starts, misses_stalled, misses_strategy; /* the library's classes */
    double start_max_us;        /* latest start after the release and the load */
    double stalled_max_us;      /* most time the delivering thread lost in one period */
    double idle_reserve;        /* share of the period kept idle, as used */
    double share[3];
    double rms_vs_reference, rms_vs_minimal;
    double margin_min_us, margin_p01_us;
    uint64_t aborted[3], abandoned[3];
    uint64_t repairs, repairs_aborted;
    double worst_ns[3];   /* each variant's slowest completed run in this run */
    double work_budget_ns; /* period - margin - idle reserve - the heaviest load */
    double wakeup_p99_us, wakeup_lead_us; /* the set's own wake-ups measured at start */
    floor_tally floor;     /* misses against cyclictest beside the run */
    bool attributed;
    unsigned floor_cpus;   /* CPUs whose stalls count (1, or the workers' too) */
    bench_cyclictest beside; /* its histogram (the task's CPU) */
} run_result;

/* cyclictest beside each strategy's run (0: none) and its trigger */
static bool floor_beside = true;
static int floor_priority;

/* The offline signal of one variant used every period. */
static double *offline_signal(chain_variant *cv, const scenario *sc, rtcosim_time_ns period_ns)
{
    double *y = malloc(sc->periods * sizeof *y);
    double z[2 * MASSES];
    if (!y)
        return NULL;
    chain_initial_state(z);
    for (size_t k = 0; k < sc->periods; k++) {
        chain_integrate(cv, z, sc->u[k], (double)period_ns * 1e-9, NULL);
        y[k] = z[0];
    }
    return y;
}

static double rms_difference(const double *a, const double *b, size_t n)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += (a[i] - b[i]) * (a[i] - b[i]);
    return sqrt(sum / (double)n);
}

/* --component: the periods through the component interface */
static bool through_component;
static bool deadline_policy; /* the strategies run under SCHED_DEADLINE */

static int run_strategy(rtcosim_anytime_strategy strategy, const char *csv_prefix,
                        const int steps[3],
                        const scenario *sc, rtcosim_time_ns period_ns,
                        rtcosim_time_ns margin_ns, const double *reference,
                        const double *minimal_signal, run_result *out)
{
    rtcosim_error err;
    rtcosim_clock *clock = NULL;
    floor_run beside;
    bool with_beside = false;
    /* with the task pinned, work on other CPUs (the parallel strategy's
     * workers, the component path's abandonable ones) has their floor too */
    floor_run others[4];
    int other_count = 0;
    if (rtcosim_clock_create_monotonic(20 * RTCOSIM_NS_PER_US, &clock, &err)) {
        fprintf(stderr, "rtcosim: %s\n", err.message);
        return 1;
    }
    rtcosim_anytime_config cfg;
    rtcosim_anytime_config_init(&cfg);
    cfg.name = rtcosim_anytime_strategy_name(strategy);
    cfg.input_count = 1;
    cfg.output_count = 1;
    double initial[2 * MASSES];
    chain_initial_state(initial);
    cfg.state_size = sizeof initial;
    cfg.initial_state = initial;
    cfg.period_ns = period_ns;
    cfg.strategy = strategy;
    cfg.safety_margin_ns = margin_ns;
    cfg.timer_fallback = true; /* aborts deliver medium, not minimal */
    cfg.minimal_max_share = 0.3; /* B5: minimal guaranteed under 30 % */
    cfg.record_capacity = sc->periods;
    /* the component path runs every costlier variant where it can be
     * abandoned, as rtcosim run --variants does */
    cfg.abandon_on_workers = through_component;
    static const char *const names[3] = {"minimal", "medium", "accurate"};
    static const method methods[3] = {EULER, EULER, RK4};
    chain_variant *cv = calloc(3, sizeof *cv);
    /* each period's sleep until its release and load, with its CPU's idle
     * residency (NULL without cpuidle: the attribution then says nothing) */
    sleep_probe *probes = calloc(sc->periods, sizeof *probes);
    cpu_idle *idle = cpu_idle_open();
    rtcosim_anytime *set = NULL;
    rtcosim_component *component = NULL;
    int rc = 1;
    if (!cv || !probes || rtcosim_anytime_create(&cfg, clock, &set, &err))
        goto fail;
    for (int i = 0; i < 3; i++) {
        cv[i].method = methods[i];
        cv[i].steps = steps[i];
        rtcosim_anytime_variant_info info = {names[i], i + 1, period_ns / steps[i],
                                             i == 2 ? RTCOSIM_ANYTIME_SOLVER_RK4
                                                    : RTCOSIM_ANYTIME_SOLVER_EULER};
        if (rtcosim_anytime_add_native(set, &info, chain_variant_fn, &cv[i], &err))
            goto fail;
    }
    /* the floor beside the periods (and the calibration before them) */
    if (floor_beside) {
        char why[512];
        int started = floor_start(&beside, bench_anytime_pin_cpu, floor_priority,
                                  (double)period_ns * 1e-9,
                                  (double)sc->periods * (double)period_ns * 1e-9, 20, why,
                                  sizeof why);
        with_beside = started == 0;
        if (started < 0)
            printf("platform floor: %s\n", why);
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        bool workers = strategy == RTCOSIM_ANYTIME_PARALLEL || through_component;
        for (int c = 0; with_beside && workers && bench_anytime_pin_cpu >= 0 && c < cpus &&
                        other_count < 4;
             c++)
            if (c != bench_anytime_pin_cpu &&
                floor_start(&others[other_count], c, floor_priority, (double)period_ns * 1e-9,
                            (double)sc->periods * (double)period_ns * 1e-9, 20, why,
                            sizeof why) == 0)
                other_count++;
    }
    if (through_component) {
        rtcosim_status st = bench_anytime_component_loop(set, clock, sc->u, sc->load_ns,
                                                         sc->periods, period_ns, idle, probes,
                                                         &component, &err);
        set = NULL; /* the component's now */
        if (st)
            goto fail;
        set = rtcosim_anytime_component_set(component);
    } else if (rtcosim_anytime_start(set, sc->u, &err))
        goto fail;
    else if (bench_anytime_pin_cpu >= 0) /* after the workers were created */
        bench_anytime_pin(bench_anytime_pin_cpu);
    double y;
    for (size_t k = 0; !component && k < sc->periods; k++) {
        /* The load is time the task does not get: it sleeps through it
         * rather than spinning, so that a SCHED_FIFO run stays under the
         * kernel's real-time throttling (sched_rt_runtime_us, 95 % of each
         * second by default), which would otherwise stall it for 50 ms. */
        cpu_idle_sleep_until(idle, clock, rtcosim_anytime_next_release(set) + sc->load_ns[k],
                             &probes[k]);
        cpu_idle_work_begin(idle, &probes[k]);
        rtcosim_status st = rtcosim_anytime_run_period(set, &sc->u[k], &y, NULL, &err);
        cpu_idle_work_end(idle, &probes[k]);
        if (st)
            goto fail;
    }
    if (with_beside) {
        floor_spikes sp;
        char why[512];
        if (floor_stop(&beside, &out->beside, &sp, why, sizeof why) == 0) {
            out->attributed = true;
            for (int k = 0; k < other_count; k++) {
                bench_cyclictest hist;
                floor_spikes more;
                if (floor_stop(&others[k], &hist, &more, why, sizeof why) == 0) {
                    if (floor_spikes_merge(&sp, &more) != 0)
                        out->attributed = false;
                    floor_spikes_free(&more);
                } else {
                    printf("platform floor: %s\n", why);
                    out->attributed = false;
                }
            }
            out->floor_cpus = 1 + (unsigned)other_count;
            other_count = 0;
            if (out->attributed)
                anytime_attribute_misses(set, cfg.name, sc->periods, period_ns, &sp,
                                         idle ? probes : NULL, deadline_policy,
                                         &out->floor);
            floor_spikes_free(&sp);
        } else
            printf("platform floor: %s\n", why);
        with_beside = false;
    }
    rtcosim_anytime_summary s;
    if (rtcosim_anytime_summary_get(set, &s, &err))
        goto fail;
    if (csv_prefix) {
        char path[4096];
        snprintf(path, sizeof path, "%s-%s.csv", csv_prefix, rtcosim_anytime_strategy_name(strategy));
        if (rtcosim_anytime_write_csv(set, path, &err))
            goto fail;
    }
    double *delivered = malloc(sc->periods * sizeof *delivered);
    if (!delivered)
        goto fail;
    out->start_max_us = 0;
    out->stalled_max_us = 0;
    int traced = 0;
    rtcosim_time_ns load_max = 0;
    for (size_t k = 0; k < sc->periods; k++) {
        if (sc->load_ns[k] > load_max)
            load_max = sc->load_ns[k];
        if (rtcosim_anytime_record(set, k)->missed && traced++ < 10)
            anytime_print_miss(cfg.name, rtcosim_anytime_record(set, k), sc->load_ns[k]);
        delivered[k] = rtcosim_anytime_record_outputs(set, k)[0];
        const rtcosim_anytime_period *rec = rtcosim_anytime_record(set, k);
        /* the load itself ends at release + load: lateness beyond it */
        double start_us = (double)(rec->started_at - rec->release - sc->load_ns[k]) / 1e3;
        out->start_max_us = fmax(out->start_max_us, start_us);
        out->stalled_max_us = fmax(out->stalled_max_us, (double)rec->stalled_ns / 1e3);
    }
    out->misses = s.misses;
    out->late_starts = s.late_starts;
    out->misses_stalled = s.misses_stalled;
    out->misses_strategy = s.misses_strategy;
    out->idle_reserve = s.idle_reserve;
    out->wakeup_p99_us = (double)s.wakeup_p99_ns / 1e3;
    out->wakeup_lead_us = (double)s.wakeup_lead_ns / 1e3;
    out->repairs = s.repairs;
    out->repairs_aborted = s.repairs_aborted;
    out->work_budget_ns = (double)(period_ns - margin_ns - s.idle_reserve_ns - load_max);
    for (int i = 0; i < 3; i++) {
        out->worst_ns[i] = s.variants[i].max_ns;
        out->share[i] = s.delivered_share[i];
        out->aborted[i] = s.variants[i].aborted;
        out->abandoned[i] = s.variants[i].abandoned;
    }
    out->rms_vs_reference = rms_difference(delivered, reference, sc->periods);
    out->rms_vs_minimal = rms_difference(delivered, minimal_signal, sc->periods);
    out->margin_min_us = s.margin_min_ns / 1e3;
    out->margin_p01_us = s.margin_p01_ns / 1e3;
    free(delivered);
    rc = 0;
fail:
    free(probes);
    cpu_idle_close(idle);
    if (with_beside) {
        floor_spikes sp;
        char why[512];
        if (floor_stop(&beside, &out->beside, &sp, why, sizeof why) == 0)
            floor_spikes_free(&sp);
    }
    for (int k = 0; k < other_count; k++) { /* the run failed: stop them all the same */
        bench_cyclictest hist;
        floor_spikes sp;
        char why[512];
        if (floor_stop(&others[k], &hist, &sp, why, sizeof why) == 0)
            floor_spikes_free(&sp);
    }
    if (rc)
        fprintf(stderr, "rtcosim: %s\n", err.message);
    if (bench_anytime_pin_cpu >= 0) /* the next set's workers must not inherit it */
        bench_anytime_pin(-1);
    if (component)
        rtcosim_component_free(component);
    else
        rtcosim_anytime_free(set);
    free(cv);
    rtcosim_clock_free(clock);
    return rc;
}

/* SCHED_DEADLINE for the calling thread: a reservation of `runtime` CPU time
 * in every `period`, to be used by `deadline` (sched_setattr(2); the
 * glibc of Debian 12 has no wrapper). Not throttled by sched_rt_runtime_us
 * like SCHED_FIFO: the kernel's admission control guarantees the runtime
 * instead. Reset on fork, so that the parallel strategy's workers can be
 * created (a deadline thread may not fork otherwise) and run SCHED_OTHER.
 * Returns 0 or the errno. */
struct bench_sched_attr {
    uint32_t size, sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime, sched_deadline, sched_period;
};

static int set_deadline(rtcosim_time_ns runtime, rtcosim_time_ns deadline, rtcosim_time_ns period)
{
#ifdef SYS_sched_setattr
    enum { POLICY_DEADLINE = 6, FLAG_RESET_ON_FORK = 1 };
    struct bench_sched_attr attr = {.size = sizeof attr,
                                    .sched_policy = POLICY_DEADLINE,
                                    .sched_flags = FLAG_RESET_ON_FORK,
                                    .sched_runtime = (uint64_t)runtime,
                                    .sched_deadline = (uint64_t)deadline,
                                    .sched_period = (uint64_t)period};
    return syscall(SYS_sched_setattr, 0, &attr, 0) == 0 ? 0 : errno;
#else
    (void)runtime, (void)deadline, (void)period;
    return ENOSYS;
#endif
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Time of one step of the method under the run's policy (the median of
 * runs spread after a warm-up), to size the variants so that they cost the
 * intended share of the period on this machine. */
static double step_time_ns(method m)
{
    chain_variant cv = {.method = m, .steps = 200};
    enum { RUNS = 41 };
    double z[2 * MASSES], t[RUNS];
    chain_initial_state(z);
    chain_integrate(&cv, z, 1.0, 1e-3, NULL);
    /* spread over about 100 ms, so that a busy moment of the machine does
     * not cover every run */
    for (int r = 0; r < RUNS; r++) {
        int64_t t0 = bench_now_ns();
        chain_integrate(&cv, z, 1.0, 1e-3, NULL);
        t[r] = (double)(bench_now_ns() - t0) / cv.steps;
        struct timespec pause = {0, 2000000};
        nanosleep(&pause, NULL);
    }
    /* the median, not the fastest: on this VM the fastest run was up to 40 %
     * below the cost the variants then had in the periods */
    qsort(t, RUNS, sizeof t[0], compare_doubles);
    return t[RUNS / 2];
}

static int bench_anytime_run(int argc, char **argv)
{
    double duration = 60;
    uint64_t seed = 5;
    bool fifo = true;
    const char *csv_prefix = NULL;
    int only = -1;
    bool with_cyclictest = true, try_deadline = true;
    double period_s = 1e-3;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            duration = 5;
        else if (strcmp(argv[i], "--duration") == 0 && i + 1 < argc)
            duration = atof(argv[++i]);
        else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc)
            csv_prefix = argv[++i];
        else if (strcmp(argv[i], "--strategy") == 0 && i + 1 < argc) {
            rtcosim_anytime_strategy st;
            if (rtcosim_anytime_strategy_parse(argv[++i], &st) != 0) {
                fprintf(stderr, "rtcosim: bench anytime: unknown strategy '%s' (escalate, timer, "
                                "parallel)\n",
                        argv[i]);
                return 1;
            }
            only = (int)st;
        } else if (strcmp(argv[i], "--component") == 0)
            through_component = true;
        else if (strcmp(argv[i], "--no-fifo") == 0)
            fifo = false;
        else if (strcmp(argv[i], "--no-cyclictest") == 0)
            with_cyclictest = false;
        else if (strcmp(argv[i], "--no-deadline") == 0)
            try_deadline = false;
        else if (strcmp(argv[i], "--cpu") == 0 && i + 1 < argc) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            long cpus = sysconf(_SC_NPROCESSORS_ONLN);
            if (end == argv[i] || *end || v < 0 || v >= cpus) {
                fprintf(stderr, "rtcosim: bench anytime: --cpu '%s' must be a CPU number 0..%ld\n",
                        argv[i], cpus - 1);
                return 1;
            }
            bench_anytime_pin_cpu = (int)v;
            try_deadline = false; /* a SCHED_DEADLINE thread cannot be pinned */
        }
        else if (strcmp(argv[i], "--period") == 0 && i + 1 < argc) {
            char *end;
            period_s = strtod(argv[++i], &end);
            if (end == argv[i] || *end || !(period_s >= 1e-4 && period_s <= 1)) {
                fprintf(stderr, "rtcosim: bench anytime: --period '%s' must be 0.0001..1 s\n",
                        argv[i]);
                return 1;
            }
        }
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else {
            bool help = strcmp(argv[i], "--help") == 0;
            fprintf(help ? stdout : stderr,
                    "usage: rtcosim bench anytime [--quick] [--duration S] [--period S] [--seed N]\n"
                    "                             [--no-fifo] [--strategy S] [--csv PREFIX]\n"
                    "                             [--no-cyclictest] [--no-deadline] [--component]\n"
                    "                             [--cpu N]\n"
                    "  three variants of a mass chain per period (default 1 ms, 60 s per strategy,\n"
                    "  --quick 5 s); right before the strategies, cyclictest (Debian rt-tests)\n"
                    "  runs (up to 15 s) with the same priority and period, if installed: its\n"
                    "  p99.9 sets the safety margin. Beside each strategy's run another one\n"
                    "  (SCHED_FIFO 99) time-stamps late wake-ups over 20 us; each miss is\n"
                    "  attributed (wakeup, execution, backlog, strategy; the floor's when\n"
                    "  cyclictest's stalls in its window cover its lateness) and\n"
"  <fig>.<strategy>.misses_beyond_floor counts the rest; of those,\n"
                    "  misses_beyond_floor_own_cpu_stall are covered by stalls of the task's\n"
                    "  own CPU, which cyclictest on another CPU cannot see (a late wake-up its\n"
                    "  CPU idled through, cpuidle residency; time lost while runnable without\n"
                    "  a run-queue wait, where the kernel also counts its throttling) and\n"
                    "  misses_own counts what is left. --cpu N: the\n"
                    "  strategies' thread pinned to CPU N once its set started, SCHED_FIFO 50\n"
                    "  (no SCHED_DEADLINE), and cyclictest beside it on CPU N at 51. The\n"
                    "  strategies run under SCHED_DEADLINE (runtime 95 %% of the period,\n"
                    "  else 90 %%) where\n"
                    "  the kernel grants it, else SCHED_FIFO 50 (the output says which).\n"
                    "  Each miss is traced (start after the load, each variant's outcome and\n"
                    "  time, time stalled, class; the first 10 per strategy). The RMS error is\n"
                    "  given over always-medium (rms_over_always_medium, an offline run that\n"
                    "  assumes medium always fits) and over the best fixed variant that fits\n"
                    "  (rms_over_best_fixed: the most accurate variant whose slowest run in the\n"
                    "  same strategy run fits the period after the heaviest load, the margin and\n"
                    "  the idle reserve; 0 when that variant's signal diverges).\n"
                    "  --component runs the periods through the anytime component (the path of\n"
                    "  rtcosim run --variants: deadline from the paced frame, costlier variants\n"
                    "  on abandonable workers); its figures are named anytime_component.*\n");
            return help ? 0 : 2;
        }
    }
    if (!(duration > 0 && duration <= 3600)) {
        fprintf(stderr, "rtcosim: bench anytime: --duration must be in (0, 3600] s\n");
        return 1;
    }
    const char *scheduling = "SCHED_OTHER";
    struct sched_param old_param, fifo_param = {.sched_priority = 50};
    int old_policy = SCHED_OTHER;
    pthread_getschedparam(pthread_self(), &old_policy, &old_param);
    bool fifo_set = false;
    if (fifo) {
        /* The set derives its workers' policies and its idle reserve from it. */
        fifo_set = pthread_setschedparam(pthread_self(), SCHED_FIFO, &fifo_param) == 0;
        scheduling = fifo_set ? "SCHED_FIFO 50" : "SCHED_OTHER (SCHED_FIFO not permitted)";
        if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0)
            scheduling = fifo_set ? "SCHED_FIFO 50 (memory not locked)" : scheduling;
    }
    const rtcosim_time_ns period_ns = (rtcosim_time_ns)llround(period_s * 1e9);
    size_t periods = (size_t)(duration * 1e9 / (double)period_ns);
    double euler_ns = step_time_ns(EULER), rk4_ns = step_time_ns(RK4);
    /* The offline reference runs take tens of seconds of CPU: under
     * SCHED_FIFO they exhaust the real-time budget, and the kernel's
     * throttling then reaches into the first periods of the first strategy
     * (measured: a 39 ms late start at 0.04 s). They run under the old
     * policy. */
    if (fifo_set)
        pthread_setschedparam(pthread_self(), old_policy, &old_param);
    /* Medium costs 15 % and accurate 55 % of the period: with the 10 %
     * safety margin (and under SCHED_FIFO the idle reserve, 7 % by default),
     * escalation (minimal, medium, accurate in turn) fits accurate only under
     * light load, a direct start under most loads. */
    int steps[3] = {1, (int)fmax(2, 0.15 * (double)period_ns / euler_ns),
                    (int)fmax(4, 0.55 * (double)period_ns / rk4_ns)};
    scenario sc;
    if (!scenario_make(&sc, periods, period_ns, seed)) {
        scenario_free(&sc);
        fprintf(stderr, "rtcosim: bench anytime: out of memory\n");
        return 1;
    }
    chain_variant *offline = calloc(3, sizeof *offline);
    double *signal[3] = {NULL, NULL, NULL};
    int rc = 1;
    for (int i = 0; offline && i < 3; i++) {
        offline[i] = (chain_variant){.method = i == 2 ? RK4 : EULER, .steps = steps[i]};
        signal[i] = offline_signal(&offline[i], &sc, period_ns);
    }
    if (!signal[0] || !signal[1] || !signal[2]) {
        fprintf(stderr, "rtcosim: bench anytime: out of memory\n");
        goto done;
    }
    if (fifo_set)
        pthread_setschedparam(pthread_self(), SCHED_FIFO, &fifo_param);
    printf("B5 anytime: %d-mass nonlinear chain, period %.4g ms, %.0f s per strategy, seed %" PRIu64
           "\n",
           MASSES, period_s * 1e3, duration, seed);
    printf("scheduling: %s\n", scheduling);
    bench_print_load();
    bench_cyclictest floor;
    bool have_floor = with_cyclictest &&
                      bench_cyclictest_floor(-1, fifo_set ? fifo_param.sched_priority : 0,
                                             period_s, fmin(duration, 15), &floor);
    /* beside each strategy: one above anything the strategies run at (a
     * SCHED_DEADLINE thread is above every SCHED_FIFO one: cyclictest, not
     * pinned, is then woken on the CPU the delivering thread leaves free) */
    floor_beside = with_cyclictest;
    floor_priority = fifo_set ? 99 : 0;
    if (bench_anytime_pin_cpu >= 0) /* on the same CPU, one above the strategies */
        floor_priority = fifo_set ? fifo_param.sched_priority + 1 : 0;
    /* The safety margin learned from the machine: the wake-up latency that
     * cyclictest saw exceeded once in a thousand periods (p99.9) right before,
     * at least 10 % of the period (the default) and at most 25 % (beyond, the
     * costlier variants would never fit: a later stall is a miss no margin
     * affordable at this period absorbs, and counts against the floor's own
     * late wake-ups). */
    rtcosim_time_ns margin_ns = period_ns / 10;
    const char *margin_from = "default, 10 % of the period";
    if (have_floor && floor.p999_us * 1e3 > (double)margin_ns) {
        margin_ns = (rtcosim_time_ns)fmin(floor.p999_us * 1e3, 0.25 * (double)period_ns);
        margin_from = floor.p999_us * 1e3 > 0.25 * (double)period_ns
                          ? "cyclictest p99.9, capped at 25 % of the period"
                          : "learned: cyclictest p99.9";
    }
    printf("safety margin: %.0f us (%s)\n", (double)margin_ns / 1e3, margin_from);
    bool deadline_set = false;
    if (fifo && try_deadline) {
        /* the most the kernel admits by default (sched_rt_runtime_us /
         * sched_rt_period_us, 95 %), else 90 %; the library keeps the
         * rest of the period and 2 % free (its derived idle reserve) */
        rtcosim_time_ns runtime = period_ns * 95 / 100;
        int e = set_deadline(runtime, period_ns, period_ns);
        if (e == EBUSY || e == EINVAL) {
            runtime = period_ns * 9 / 10;
            e = set_deadline(runtime, period_ns, period_ns);
        }
        deadline_set = e == 0;
        deadline_policy = deadline_set;
        if (deadline_set)
            printf("strategies run under SCHED_DEADLINE: runtime %.0f us, deadline = period = "
                   "%.0f us\n",
                   (double)runtime / 1e3, (double)period_ns / 1e3);
        else
            printf("strategies run under %s (SCHED_DEADLINE refused: %s)\n", scheduling,
                   strerror(e));
    } else
        printf("strategies run under %s\n", scheduling);
    printf("variants: minimal Euler 1 step, medium Euler %d steps, accurate RK4 %d steps "
           "(Euler step %.0f ns, RK4 step %.0f ns)\n",
           steps[1], steps[2], euler_ns, rk4_ns);
    double rms_minimal = rms_difference(signal[0], signal[2], periods);
    double rms_medium = rms_difference(signal[1], signal[2], periods);
    printf("idle: share of each period kept free of work (the library derives it under\n"
           "SCHED_FIFO from sched_rt_runtime_us / sched_rt_period_us: the kernel stops all\n"
           "real-time threads of a CPU that run longer), so the usable share is below 100 %%\n");
    printf("misses: total = late (started after the latest start that leaves the minimal\n"
           "variant time) + stalled (the thread lost more time to not running although\n"
           "runnable than the delivery was late) + strategy (any other)\n");
    printf("repairs: periods whose predecessor delivered a coarser variant and whose state\n"
           "was recomputed with a finer one first (the coarse outputs stay delivered)\n"
           "best fixed: the most accurate variant whose slowest run in the same strategy run\n"
           "fits the period after the heaviest load, the margin and the idle reserve\n");
    printf("\n%-10s %6s %5s %7s %8s %8s %8s %9s %12s %12s %10s %10s %10s %10s %7s %8s %10s\n",
           "strategy", "misses", "late", "stalled", "strategy", "minimal", "medium", "accurate",
           "rms_vs_ref", "rms_vs_min", "margin_min", "margin_p01", "start_max", "stall_max",
           "idle", "repairs", "best_fixed");
    printf("%-10s %6s %5s %7s %8s %7.1f%% %7.1f%% %8.1f%% %12.4g %12.4g\n", "always-min", "-",
           "-", "-", "-", 100.0, 0.0, 0.0, rms_minimal, 0.0);
    printf("%-10s %6s %5s %7s %8s %7.1f%% %7.1f%% %8.1f%% %12.4g %12.4g\n", "always-med", "-",
           "-", "-", "-", 0.0, 100.0, 0.0, rms_medium,
           rms_difference(signal[1], signal[0], periods));
    static const char *const vn[3] = {"minimal", "medium", "accurate"};
    const double rms_fixed[3] = {rms_minimal, rms_medium, 0.0};
    run_result results[3];
    int best_fixed[3] = {0, 0, 0};
    for (int s = 0; s < 3; s++) {
        if (only >= 0 && s != only)
            continue;
        if (run_strategy((rtcosim_anytime_strategy)s, csv_prefix, steps, &sc, period_ns, margin_ns,
                         signal[2], signal[0],
                         &results[s]))
            goto done;
        run_result *r = &results[s];
        /* the honest reference: a variant fixed for every period must fit
         * the worst one, as measured in this very run */
        for (int i = 1; i < 3; i++)
            if (r->worst_ns[i] <= r->work_budget_ns)
                best_fixed[s] = i;
        printf("%-10s %6" PRIu64 " %5" PRIu64 " %7" PRIu64 " %8" PRIu64
               " %7.1f%% %7.1f%% %8.1f%% %12.4g %12.4g %8.1fus %8.1fus %8.1fus %8.1fus %6.1f%%"
               " %8" PRIu64 " %10s\n",
               rtcosim_anytime_strategy_name((rtcosim_anytime_strategy)s), r->misses,
               r->late_starts, r->misses_stalled, r->misses_strategy, 100 * r->share[0],
               100 * r->share[1], 100 * r->share[2], r->rms_vs_reference, r->rms_vs_minimal,
               r->margin_min_us, r->margin_p01_us, r->start_max_us, r->stalled_max_us,
               100 * r->idle_reserve, r->repairs, vn[best_fixed[s]]);
        if (r->attributed) {
            const floor_tally *t = &r->floor;
            printf("  %s: misses attributed: ", rtcosim_anytime_strategy_name((rtcosim_anytime_strategy)s));
            for (int c = 0; c < FLOOR_CAUSES; c++)
                printf("%s %" PRIu64 " floor + %" PRIu64 " own%s", floor_cause_name((floor_cause)c),
                       t->floor[c], t->own[c], c + 1 < FLOOR_CAUSES ? ", " : "");
            printf("; beyond the floor %" PRIu64 ", %" PRIu64 " of them within one cyclictest "
                   "interval of a stall it saw in their window, %" PRIu64 " covered by stalls of "
                   "the task's own CPU (the program's own: %" PRIu64 ") "
                   "(cyclictest beside it: p99 %.0f us, max %.0f us, %" PRIu64 " wake-ups a "
                   "period late%s)\n",
                   t->beyond_floor, t->within_interval, t->own_cpu_stall,
                   t->beyond_floor - t->own_cpu_stall, r->beside.p99_us, r->beside.max_us,
                   r->beside.late,
                   r->floor_cpus > 1 ? "; the workers' CPUs' stalls counted too" : "");
        }
        printf("  %s: own wake-ups measured at start: p99 %.1f us, the waits' lead %.1f us\n",
               rtcosim_anytime_strategy_name((rtcosim_anytime_strategy)s), r->wakeup_p99_us,
               r->wakeup_lead_us);
        printf("  %s: slowest runs minimal %.1f / medium %.1f / accurate %.1f us against %.1f "
               "us of work time after the heaviest load; repairs aborted %" PRIu64 "\n",
               rtcosim_anytime_strategy_name((rtcosim_anytime_strategy)s), r->worst_ns[0] / 1e3,
               r->worst_ns[1] / 1e3, r->worst_ns[2] / 1e3, r->work_budget_ns / 1e3,
               r->repairs_aborted);
        fflush(stdout);
    }
    printf("\n");
    char name[96];
    const char *fig = through_component ? "anytime_component" : "anytime";
    for (int s = 0; s < 3; s++) {
        if (only >= 0 && s != only)
            continue;
        const char *sn = rtcosim_anytime_strategy_name((rtcosim_anytime_strategy)s);
        snprintf(name, sizeof name, "%s.%s.misses", fig, sn);
        bench_figure(name, (double)results[s].misses, "periods");
        snprintf(name, sizeof name, "%s.%s.misses_strategy", fig, sn);
        bench_figure(name, (double)results[s].misses_strategy, "periods");
        snprintf(name, sizeof name, "%s.%s.late_starts", fig, sn);
        bench_figure(name, (double)results[s].late_starts, "periods");
        snprintf(name, sizeof name, "%s.%s.misses_stalled", fig, sn);
        bench_figure(name, (double)results[s].misses_stalled, "periods");
        snprintf(name, sizeof name, "%s.%s.idle_reserve", fig, sn);
        bench_figure(name, results[s].idle_reserve, "ratio");
        snprintf(name, sizeof name, "%s.%s.rms_error", fig, sn);
        bench_figure(name, results[s].rms_vs_reference, "m");
        snprintf(name, sizeof name, "%s.%s.best_fixed_is_%s", fig, sn, vn[best_fixed[s]]);
        bench_figure(name, best_fixed[s], "variant");
        snprintf(name, sizeof name, "%s.%s.rms_over_best_fixed", fig, sn);
        /* a fixed variant whose signal diverged (NAN: the minimal one's single
         * Euler step is unstable at long periods) has no finite error: any
         * finite one is infinitely better */
        double fixed_rms = rms_fixed[best_fixed[s]];
        bench_figure(name,
                     isnan(fixed_rms) ? 0.0
                                      : bench_ratio(results[s].rms_vs_reference, fixed_rms),
                     "ratio");
        snprintf(name, sizeof name, "%s.%s.rms_over_always_medium", fig, sn);
        bench_figure(name, bench_ratio(results[s].rms_vs_reference, rms_medium), "ratio");
        snprintf(name, sizeof name, "%s.%s.repairs", fig, sn);
        bench_figure(name, (double)results[s].repairs, "periods");
        if (have_floor) {
            snprintf(name, sizeof name, "%s.%s.misses_over_cyclictest_late", fig, sn);
            bench_figure(name, bench_ratio((double)results[s].misses, (double)floor.late),
                         "ratio");
        }
        if (results[s].attributed) {
            const floor_tally *t = &results[s].floor;
            snprintf(name, sizeof name, "%s.%s.misses_beyond_floor", fig, sn);
            bench_figure(name, (double)t->beyond_floor, "periods");
            snprintf(name, sizeof name, "%s.%s.misses_beyond_floor_within_interval", fig, sn);
            bench_figure(name, (double)t->within_interval, "periods");
            snprintf(name, sizeof name, "%s.%s.misses_beyond_floor_own_cpu_stall", fig, sn);
            bench_figure(name, (double)t->own_cpu_stall, "periods");
            snprintf(name, sizeof name, "%s.%s.misses_own", fig, sn);
            bench_figure(name, (double)(t->beyond_floor - t->own_cpu_stall), "periods");
            snprintf(name, sizeof name, "%s.%s.misses_floor", fig, sn);
            bench_figure(name, (double)(t->total - t->beyond_floor), "periods");
            snprintf(name, sizeof name, "%s.%s.misses_own_strategy", fig, sn);
            bench_figure(name, (double)t->own[FLOOR_CAUSE_STRATEGY], "periods");
            snprintf(name, sizeof name, "%s.%s.beside_cyclictest_late_wakeups", fig, sn);
            bench_figure(name, (double)results[s].beside.late, "count");
        }
        snprintf(name, sizeof name, "%s.%s.wakeup_p99_at_start_us", fig, sn);
        bench_figure(name, results[s].wakeup_p99_us, "us");
        snprintf(name, sizeof name, "%s.%s.rms_vs_minimal", fig, sn);
        bench_figure(name, results[s].rms_vs_minimal, "m");
        for (int i = 0; i < 3; i++) {
            snprintf(name, sizeof name, "%s.%s.share_%s", fig, sn, vn[i]);
            bench_figure(name, results[s].share[i], "ratio");
        }
        snprintf(name, sizeof name, "%s.%s.margin_min_us", fig, sn);
        bench_figure(name, results[s].margin_min_us, "us");
    }
    bench_figure("anytime.always_minimal.rms_error", rms_minimal, "m");
    bench_figure("anytime.always_medium.rms_error", rms_medium, "m");
    bench_figure("anytime.safety_margin_us", (double)margin_ns / 1e3, "us");
    bench_figure("anytime.sched_deadline", deadline_set, "bool");
    if (have_floor)
        bench_cyclictest_figures(fig, &floor, -1);
    rc = 0;
done:
    if (fifo) {
        munlockall();
        pthread_setschedparam(pthread_self(), old_policy, &old_param);
    }
    for (int i = 0; i < 3; i++)
        free(signal[i]);
    free(offline);
    scenario_free(&sc);
    return rc;
}

const rtcosim_bench rtcosim_bench_anytime = {
    "anytime", "B5: anytime variants under a varying load, per strategy (misses, shares, error)",
    bench_anytime_run};
