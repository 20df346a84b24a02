/* rtcosim-anytime-thermal: the thermal plant of thermal.c run in real time
 * as an anytime task (Euler / RK4 / CVODE variants) under a seeded load, with
 * the strategy chosen on the command line; prints the summary and writes the
 * per-period records as CSV (`rtcosim plot` draws them). */
#include <inttypes.h>
#include <stdbool.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtcosim/anytime.h"
#include "rtcosim/clock.h"
#include "thermal.h"

static int usage(FILE *out, int code)
{
    fprintf(out,
            "usage: rtcosim-anytime-thermal [--strategy escalate|timer|parallel] [--duration S]\n"
            "         [--period S] [--load SHARE] [--seed N] [--csv FILE] [--no-fifo]\n"
            "Runs a stiff heater/housing/coolant plant in real time as an anytime task with\n"
            "three variants (Euler 1 step, RK4 10 steps, CVODE BDF rtol 1e-10) and prints which\n"
            "variant was delivered how often, the execution times and the deadline margins.\n"
            "--load SHARE: other work takes a random share in [0, SHARE) of each period.\n"
            "Runs under SCHED_FIFO when permitted (the costlier variants' workers under\n"
            "SCHED_OTHER).\n");
    return code;
}

static int fail(const rtcosim_error *err)
{
    fprintf(stderr, "rtcosim-anytime-thermal: %s\n", err->message);
    return 1;
}

/* xorshift64*: a seeded, reproducible sequence (Vigna 2016). */
static double next_uniform(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double)((*s * 2685821657736338717u) >> 11) * 0x1.0p-53;
}

int main(int argc, char **argv)
{
    rtcosim_anytime_strategy strategy = RTCOSIM_ANYTIME_ESCALATE;
    rtcosim_time_ns duration = 5 * RTCOSIM_NS_PER_S, period = 200 * RTCOSIM_NS_PER_US;
    double load = 0.9;
    bool fifo = true;
    uint64_t seed = 1;
    const char *csv = "anytime_thermal.csv";
    rtcosim_error err;
    for (int i = 1; i < argc; i++) {
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--help") == 0)
            return usage(stdout, 0);
        if (strcmp(argv[i], "--no-fifo") == 0) {
            fifo = false;
            continue;
        }
        if (!value)
            return usage(stderr, 2);
        if (strcmp(argv[i], "--strategy") == 0) {
            if (rtcosim_anytime_strategy_parse(value, &strategy) != 0) {
                fprintf(stderr, "rtcosim-anytime-thermal: unknown strategy '%s'\n", value);
                return 1;
            }
        } else if (strcmp(argv[i], "--duration") == 0) {
            if (rtcosim_time_parse_seconds(value, &duration, &err) || duration <= 0)
                return fprintf(stderr, "rtcosim-anytime-thermal: --duration '%s' is not a "
                                       "positive time\n", value), 1;
        } else if (strcmp(argv[i], "--period") == 0) {
            if (rtcosim_time_parse_seconds(value, &period, &err) || period <= 0)
                return fprintf(stderr, "rtcosim-anytime-thermal: --period '%s' is not a "
                                       "positive time\n", value), 1;
        } else if (strcmp(argv[i], "--load") == 0) {
            char *end;
            load = strtod(value, &end);
            if (*end || !(load >= 0 && load < 1))
                return fprintf(stderr, "rtcosim-anytime-thermal: --load '%s' must be in [0, 1)\n",
                               value), 1;
        } else if (strcmp(argv[i], "--seed") == 0) {
            seed = strtoull(value, NULL, 10);
        } else if (strcmp(argv[i], "--csv") == 0) {
            csv = value;
        } else {
            return usage(stderr, 2);
        }
        i++;
    }
    if (seed == 0)
        seed = 1;

    const char *scheduling = "SCHED_OTHER";
    struct sched_param param = {.sched_priority = 50};
    if (fifo)
        scheduling = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param) == 0
                         ? "SCHED_FIFO 50"
                         : "SCHED_OTHER (SCHED_FIFO not permitted)";
    rtcosim_clock *clock = NULL;
    if (rtcosim_clock_create_monotonic(20 * RTCOSIM_NS_PER_US, &clock, &err))
        return fail(&err);
    size_t periods = (size_t)(duration / period);
    thermal_state initial = {{THERMAL_T_AMBIENT, THERMAL_T_AMBIENT, THERMAL_T_AMBIENT}};
    static const char *const output_names[2] = {"T_heater", "T_coolant"};
    rtcosim_anytime_config cfg;
    rtcosim_anytime_config_init(&cfg);
    cfg.name = "thermal";
    cfg.input_count = 1;
    cfg.output_count = 2;
    cfg.output_names = output_names;
    cfg.state_size = sizeof initial;
    cfg.initial_state = &initial;
    cfg.period_ns = period;
    cfg.strategy = strategy;
    cfg.record_capacity = periods;
    rtcosim_anytime *set = NULL;
    thermal_cvode *solver = thermal_cvode_create(1e-10);
    int rc = 1;
    if (!solver) {
        fprintf(stderr, "rtcosim-anytime-thermal: cannot create the CVODE solver\n");
        goto done;
    }
    if (rtcosim_anytime_create(&cfg, clock, &set, &err))
        goto fail;
    const rtcosim_anytime_variant_info euler = {"euler", 1, period, RTCOSIM_ANYTIME_SOLVER_EULER};
    const rtcosim_anytime_variant_info rk4 = {"rk4", 2, period / 10, RTCOSIM_ANYTIME_SOLVER_RK4};
    const rtcosim_anytime_variant_info cvode = {"cvode", 3, 0, RTCOSIM_ANYTIME_SOLVER_VARIABLE};
    if (rtcosim_anytime_add_native(set, &euler, thermal_euler, NULL, &err) ||
        rtcosim_anytime_add_native(set, &rk4, thermal_rk4_tenth, NULL, &err) ||
        rtcosim_anytime_add_native(set, &cvode, thermal_cvode_step, solver, &err))
        goto fail;
    const double calibration_power = 200.0;
    if (rtcosim_anytime_start(set, &calibration_power, &err))
        goto fail;

    uint64_t rng = seed;
    double power = 0, outputs[2];
    for (size_t k = 0; k < periods; k++) {
        /* a new power level every 0.2 s of simulated time */
        if (k % (size_t)(200 * RTCOSIM_NS_PER_MS / period + 1) == 0)
            power = 400.0 * next_uniform(&rng);
        /* Other work takes the start of the period; sleeping through it
         * (instead of spinning) keeps a SCHED_FIFO run under the kernel's
         * real-time throttling limit (95 % of each second by default). */
        rtcosim_clock_sleep_until(clock, rtcosim_anytime_next_release(set) +
                                             (rtcosim_time_ns)(load * next_uniform(&rng) *
                                                               (double)period));
        if (rtcosim_anytime_run_period(set, &power, outputs, NULL, &err))
            goto fail;
    }

    rtcosim_anytime_summary s;
    if (rtcosim_anytime_summary_get(set, &s, &err))
        goto fail;
    printf("thermal plant, strategy %s, period %.1f us, %" PRIu64 " periods, load < %.0f %%, %s\n",
           rtcosim_anytime_strategy_name(strategy), (double)period / 1e3, s.periods, 100 * load,
           scheduling);
    printf("%-8s %9s %9s %9s %9s %9s %9s %9s\n", "variant", "delivered", "completed", "aborted",
           "abandoned", "mean_us", "p95_us", "max_us");
    for (size_t i = 0; i < s.variant_count; i++) {
        const rtcosim_anytime_variant_stats *v = &s.variants[i];
        printf("%-8s %8.1f%% %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9.1f %9.1f %9.1f\n", v->name,
               100 * s.delivered_share[i], v->completed, v->aborted, v->abandoned,
               v->mean_ns / 1e3, v->quantile_ns / 1e3, v->max_ns / 1e3);
    }
    printf("deadline misses %" PRIu64 " (late start %" PRIu64 ", stalled %" PRIu64
           ", strategy %" PRIu64 "), margin min %.1f us, p1 %.1f us, mean %.1f us\n",
           s.misses, s.late_starts, s.misses_stalled, s.misses_strategy, s.margin_min_ns / 1e3,
           s.margin_p01_ns / 1e3, s.margin_mean_ns / 1e3);
    if (s.idle_reserve > 0)
        printf("idle reserve %.1f %% of each period: the kernel throttles real-time threads "
               "beyond sched_rt_runtime_us of sched_rt_period_us\n",
               100 * s.idle_reserve);
    printf("final T_heater %.3f K, T_coolant %.3f K\n", outputs[0], outputs[1]);
    if (csv && *csv) {
        if (rtcosim_anytime_write_csv(set, csv, &err))
            goto fail;
        printf("records: %s\n", csv);
    }
    rc = 0;
    goto done;
fail:
    rc = fail(&err);
done:
    rtcosim_anytime_free(set);
    thermal_cvode_free(solver);
    rtcosim_clock_free(clock);
    return rc;
}
