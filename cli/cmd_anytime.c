/* `rtcosim anytime MODEL.fmu`: one FMU at several step sizes as an anytime
 * task. Each step size is its own instance of the FMU (a variant; the
 * coarsest is the minimal one), run in real time with the chosen strategy;
 * the delivered instance's serialized state is loaded into the others, so
 * every variant continues from the delivered result. Prints the summary and
 * writes the per-period records (`rtcosim plot` draws them). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cli.h"
#include "signals.h"
#include "rtcosim/log.h"
#include "rtcosim/anytime.h"
#include "rtcosim/clock.h"
#include "rtcosim/fmu.h"

enum { MAX_OUTPUTS = 64, MAX_START_VALUES = 64 };

typedef struct anytime_options {
    const char *fmu_path, *output_file;
    rtcosim_time_ns steps[RTCOSIM_ANYTIME_MAX_VARIANTS];
    size_t step_count;
    /* --solvers: the FMU's model-exchange interface integrated by rtcosim,
     * one solver per variant (steps[] then holds Euler's step or CVODE's
     * largest step, 0: unlimited). */
    bool model_exchange;
    rtcosim_me_solver solvers[RTCOSIM_ANYTIME_MAX_VARIANTS];
    rtcosim_time_ns period, duration;
    rtcosim_anytime_strategy strategy;
    bool timer_fallback; /* --timer-fallback */
    const char *start_names[MAX_START_VALUES], *start_texts[MAX_START_VALUES];
    size_t start_count;
    const char *output_names[MAX_OUTPUTS];
    size_t output_count;
    bool virtual_clock;
    int priority; /* SCHED_FIFO priority; 0: leave the policy */
} anytime_options;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rtcosim anytime MODEL.fmu [options]\n\n"
            "Runs one FMU at several step sizes as an anytime task in real time: every\n"
            "period the strategy delivers the finest result that the time allows, and all\n"
            "instances continue from the delivered state.\n\n"
            "options:\n"
            "  --steps H1,H2,...        micro step sizes in s, coarsest (minimal) first\n"
            "                           (default: the period, a tenth, a hundredth)\n"
            "  --solvers S1,S2,...      model-exchange variants instead, rtcosim integrating\n"
            "                           the FMU, minimal first: euler:H (explicit Euler, step\n"
            "                           H s) or cvode[:HMAX] (BDF, error-controlled),\n"
            "                           e.g. euler:1e-3,euler:1e-4,cvode\n"
            "  --period S               period in s (default 0.001)\n"
            "  --duration S             wall-clock run time in s (default 1)\n"
            "  --strategy NAME          escalate (default), timer or parallel\n"
            "  --timer-fallback         timer: try a finer variant only when a coarser one\n"
            "                           (not the minimal) still fits after it is aborted\n"
            "  --start-value NAME VALUE set a parameter in every instance (repeatable)\n"
            "  --output-variable NAME   deliver this Float64 variable (repeatable;\n"
            "                           default: every Float64 output)\n"
            "  -o, --output-file FILE   write one row per period as CSV (delivered variant, margin,\n"
            "                           outputs, execution times, outcomes); Ctrl-C, SIGTERM\n"
            "                           or SIGHUP: the periods run so far, exit 128 + signal\n"
            "  --priority N             run under SCHED_FIFO priority N (1-99) with memory\n"
            "                           locked, best effort with a warning when refused; each\n"
            "                           period then keeps an idle reserve (the kernel's\n"
            "                           real-time throttling share)\n"
            "  --virtual                run on a virtual clock, unpaced: no timing, only the\n"
            "                           strategy's logic and the state hand-over\n");
}

static int parse_steps(const char *text, anytime_options *o)
{
    char buffer[512];
    if (strlen(text) >= sizeof buffer)
        return cli_fail("anytime: --steps list is too long");
    strcpy(buffer, text);
    o->step_count = 0;
    for (char *save = NULL, *item = strtok_r(buffer, ",", &save); item;
         item = strtok_r(NULL, ",", &save)) {
        if (o->step_count == RTCOSIM_ANYTIME_MAX_VARIANTS)
            return cli_fail("anytime: --steps lists more than %d step sizes",
                            RTCOSIM_ANYTIME_MAX_VARIANTS);
        rtcosim_error err;
        rtcosim_time_ns h;
        if (rtcosim_time_parse_seconds(item, &h, &err) || h <= 0)
            return cli_fail("anytime: --steps: '%s' is not a positive time in seconds", item);
        if (o->step_count && h >= o->steps[o->step_count - 1])
            return cli_fail("anytime: --steps must be listed coarsest first, each finer than the "
                            "one before ('%s')",
                            item);
        o->steps[o->step_count++] = h;
    }
    return o->step_count ? 0 : cli_fail("anytime: --steps lists no step size");
}

/* "euler:H" or "cvode[:HMAX]", minimal (cheapest) first. */
static int parse_solvers(const char *text, anytime_options *o)
{
    char buffer[512];
    if (strlen(text) >= sizeof buffer)
        return cli_fail("anytime: --solvers list is too long");
    strcpy(buffer, text);
    o->step_count = 0;
    o->model_exchange = true;
    for (char *save = NULL, *item = strtok_r(buffer, ",", &save); item;
         item = strtok_r(NULL, ",", &save)) {
        if (o->step_count == RTCOSIM_ANYTIME_MAX_VARIANTS)
            return cli_fail("anytime: --solvers lists more than %d variants",
                            RTCOSIM_ANYTIME_MAX_VARIANTS);
        char *colon = strchr(item, ':');
        if (colon)
            *colon = '\0';
        rtcosim_me_solver solver;
        if (strcmp(item, "euler") == 0)
            solver = RTCOSIM_ME_SOLVER_EULER;
        else if (strcmp(item, "cvode") == 0)
            solver = RTCOSIM_ME_SOLVER_CVODE;
        else
            return cli_fail("anytime: --solvers: unknown solver '%s' (euler:H, cvode[:HMAX])",
                            item);
        rtcosim_time_ns h = 0;
        rtcosim_error err;
        if (colon && (rtcosim_time_parse_seconds(colon + 1, &h, &err) || h <= 0))
            return cli_fail("anytime: --solvers: %s step '%s' is not a positive time in seconds",
                            item, colon + 1);
        if (solver == RTCOSIM_ME_SOLVER_EULER && !colon)
            return cli_fail("anytime: --solvers: euler needs its step size (euler:H)");
        o->solvers[o->step_count] = solver;
        o->steps[o->step_count++] = h;
    }
    return o->step_count ? 0 : cli_fail("anytime: --solvers lists no solver");
}

static int parse_time(const char *option, const char *text, rtcosim_time_ns *out)
{
    rtcosim_error err;
    if (rtcosim_time_parse_seconds(text, out, &err) || *out <= 0)
        return cli_fail("anytime: %s '%s' is not a positive time in seconds", option, text);
    return 0;
}

static int parse_options(int argc, char **argv, anytime_options *o)
{
    o->period = RTCOSIM_NS_PER_MS;
    o->duration = RTCOSIM_NS_PER_S;
    const char *steps_text = NULL, *solvers_text = NULL;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        bool takes_value = strcmp(arg, "--steps") == 0 || strcmp(arg, "--solvers") == 0 ||
                           strcmp(arg, "--period") == 0 ||
                           strcmp(arg, "--duration") == 0 || strcmp(arg, "--strategy") == 0 ||
                           strcmp(arg, "--output-variable") == 0 ||
                           strcmp(arg, "--output-file") == 0 || strcmp(arg, "-o") == 0 ||
                           strcmp(arg, "--priority") == 0;
        if (takes_value && !value)
            return cli_fail("anytime: option %s needs a value", arg);
        if (strcmp(arg, "--steps") == 0) {
            steps_text = value;
        } else if (strcmp(arg, "--solvers") == 0) {
            solvers_text = value;
        } else if (strcmp(arg, "--period") == 0) {
            if (parse_time(arg, value, &o->period))
                return 1;
        } else if (strcmp(arg, "--duration") == 0) {
            if (parse_time(arg, value, &o->duration))
                return 1;
        } else if (strcmp(arg, "--strategy") == 0) {
            if (rtcosim_anytime_strategy_parse(value, &o->strategy) != 0)
                return cli_fail("anytime: unknown strategy '%s' (escalate, timer, parallel)",
                                value);
        } else if (strcmp(arg, "--start-value") == 0) {
            if (i + 2 >= argc)
                return cli_fail("anytime: option --start-value needs a NAME and a VALUE");
            if (o->start_count == MAX_START_VALUES)
                return cli_fail("anytime: more than %d start values", MAX_START_VALUES);
            o->start_names[o->start_count] = argv[i + 1];
            o->start_texts[o->start_count++] = argv[i + 2];
            i += 2;
            continue;
        } else if (strcmp(arg, "--output-variable") == 0) {
            if (o->output_count == MAX_OUTPUTS)
                return cli_fail("anytime: more than %d output variables", MAX_OUTPUTS);
            o->output_names[o->output_count++] = value;
        } else if (strcmp(arg, "--output-file") == 0 || strcmp(arg, "-o") == 0) {
            o->output_file = value;
        } else if (strcmp(arg, "--priority") == 0) {
            char *end;
            long p = strtol(value, &end, 10);
            if (*end || p < 1 || p > 99)
                return cli_fail("anytime: --priority '%s' must be an integer from 1 to 99", value);
            o->priority = (int)p;
        } else if (strcmp(arg, "--virtual") == 0) {
            o->virtual_clock = true;
            continue;
        } else if (strcmp(arg, "--timer-fallback") == 0) {
            o->timer_fallback = true;
            continue;
        } else if (arg[0] == '-') {
            return cli_unknown_option("anytime", arg, usage);
        } else {
            int rc = cli_positional("anytime", "FMU", &o->fmu_path, argv, i);
            if (rc)
                return rc;
            continue;
        }
        i++;
    }
    if (!o->fmu_path)
        return cli_fail("anytime: no FMU given (see rtcosim anytime --help)");
    if (cli_check_output_not_input("--output-file", o->output_file, &o->fmu_path, 1) != 0 ||
        cli_check_output_file("--output-file", o->output_file) != 0)
        return 1;
    if (steps_text && solvers_text)
        return cli_fail("anytime: give either --steps (co-simulation) or --solvers (model "
                        "exchange), not both");
    if (solvers_text)
        return parse_solvers(solvers_text, o);
    if (steps_text)
        return parse_steps(steps_text, o);
    o->steps[0] = o->period;
    o->steps[1] = o->period / 10 > 0 ? o->period / 10 : 1;
    o->steps[2] = o->period / 100 > 0 ? o->period / 100 : 1;
    o->step_count = o->steps[2] < o->steps[1] ? 3 : 1;
    return 0;
}

/* Load, instantiate and initialize one instance, with the start values. */
static rtcosim_status open_instance(const anytime_options *o, size_t index,
                                    rtcosim_component **out, rtcosim_error *err)
{
    rtcosim_fmu_options fo = {.interface_type = RTCOSIM_FMI_MODEL_EXCHANGE,
                              .solver = o->solvers[index],
                              .max_solver_step = o->steps[index]};
    rtcosim_status st = rtcosim_fmu_load(o->fmu_path, o->model_exchange ? &fo : NULL, out, err);
    if (st)
        return st;
    rtcosim_component *c = *out;
    char name[64];
    snprintf(name, sizeof name, "variant%zu", index);
    if ((st = rtcosim_component_instantiate(c, name, err)) ||
        (st = rtcosim_component_setup(c, 0, 0, -1, err)))
        return st;
    for (size_t i = 0; i < o->start_count; i++) {
        const rtcosim_variable *v = rtcosim_component_find_variable(c, o->start_names[i]);
        if (!v) {
            const char *near = rtcosim_component_nearest_variable(c, o->start_names[i]);
            return rtcosim_error_set(err, RTCOSIM_ENOTFOUND,
                                     "%s: start value '%s': no such variable%s%s%s", o->fmu_path,
                                     o->start_names[i], near ? "; did you mean '" : "",
                                     near ? near : "", near ? "'?" : "");
        }
        rtcosim_value value;
        _Alignas(16) unsigned char slot[sizeof(rtcosim_value)];
        if ((st = rtcosim_value_parse(v->type, o->start_texts[i], &value, err)))
            return rtcosim_error_prefix(err, "%s: start value '%s': ", o->fmu_path, v->name);
        char why[160];
        if (index == 0 && !rtcosim_variable_in_range(v, &value, why, sizeof why))
            rtcosim_log(RTCOSIM_LOG_WARNING, "anytime", "start value '%s': %s; the model may "
                        "refuse it", v->name, why);
        rtcosim_value_store(v->type, &value, slot);
        if ((st = rtcosim_component_set(c, v->type, &v->value_reference, 1, slot, err)))
            return rtcosim_error_prefix(err, "%s: start value '%s': ", o->fmu_path, v->name);
    }
    if ((st = rtcosim_component_enter_init(c, err)) || (st = rtcosim_component_exit_init(c, err)))
        return st;
    return RTCOSIM_OK;
}

/* The delivered variables: the named ones, else every Float64 output. */
static int resolve_outputs(const anytime_options *o, rtcosim_component *c, uint32_t *vrs,
                           const char **names, size_t *count)
{
    *count = 0;
    if (o->output_count) {
        for (size_t i = 0; i < o->output_count; i++) {
            const rtcosim_variable *v = rtcosim_component_find_variable(c, o->output_names[i]);
            if (!v) {
                const char *near = rtcosim_component_nearest_variable(c, o->output_names[i]);
                return cli_fail("%s: output variable '%s': no such variable%s%s%s", o->fmu_path,
                                o->output_names[i], near ? "; did you mean '" : "",
                                near ? near : "", near ? "'?" : "");
            }
            if (v->type != RTCOSIM_TYPE_FLOAT64)
                return cli_fail("%s: output variable '%s' is %s; anytime delivers Float64 "
                                "values",
                                o->fmu_path, v->name, rtcosim_type_name(v->type));
            vrs[*count] = v->value_reference;
            names[(*count)++] = v->name;
        }
        return 0;
    }
    for (size_t i = 0; i < rtcosim_component_variable_count(c) && *count < MAX_OUTPUTS; i++) {
        const rtcosim_variable *v = rtcosim_component_variable(c, i);
        if (v->causality == RTCOSIM_CAUSALITY_OUTPUT && v->type == RTCOSIM_TYPE_FLOAT64) {
            vrs[*count] = v->value_reference;
            names[(*count)++] = v->name;
        }
    }
    return *count ? 0
                  : cli_fail("%s: model '%s' has no Float64 output to deliver", o->fmu_path,
                             rtcosim_component_model_name(c));
}

static void print_summary(const anytime_options *o, const rtcosim_anytime_summary *s)
{
    printf("%s, strategy %s, period %.1f us, %" PRIu64 " periods%s\n", o->fmu_path,
           rtcosim_anytime_strategy_name(o->strategy), (double)o->period / 1e3, s->periods,
           o->virtual_clock ? " (virtual clock)" : "");
    printf("%-12s %10s %9s %9s %9s %9s %10s %10s\n", "variant", "step_s", "delivered", "aborted",
           "abandoned", "failed", "mean_us", "max_us");
    for (size_t i = 0; i < s->variant_count; i++) {
        const rtcosim_anytime_variant_stats *v = &s->variants[i];
        printf("%-12s %10.3g %8.1f%% %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %10.1f %10.1f\n",
               v->name, rtcosim_time_to_seconds(o->steps[i]), 100 * s->delivered_share[i],
               v->aborted, v->abandoned, v->failed, v->mean_ns / 1e3, v->max_ns / 1e3);
    }
    printf("deadline misses %" PRIu64 " (late start %" PRIu64 ", stalled %" PRIu64
           ", strategy %" PRIu64 "), margin min %.1f us, mean %.1f us\n",
           s->misses, s->late_starts, s->misses_stalled, s->misses_strategy,
           s->margin_min_ns / 1e3, s->margin_mean_ns / 1e3);
    if (s->idle_reserve > 0)
        printf("idle reserve %.1f %% of the period (%.1f us): under SCHED_FIFO the kernel stops "
               "real-time threads that use more than sched_rt_runtime_us of "
               "sched_rt_period_us, so no variant runs then\n",
               100 * s->idle_reserve, (double)s->idle_reserve_ns / 1e3);
}

static int run_anytime(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        }
    anytime_options o = {0};
    if (parse_options(argc, argv, &o))
        return 1;
    if (o.priority) {
        /* before start: the set derives its workers' policies and its idle reserve from it */
        struct sched_param param = {.sched_priority = o.priority};
        int rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param);
        if (rc != 0)
            fprintf(stderr, "rtcosim: warning: anytime: SCHED_FIFO %d refused (%s); running "
                            "under the default policy\n",
                    o.priority, strerror(rc));
        /* no page faults in the periods: the FMUs' memory stays resident */
        else if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0)
            fprintf(stderr, "rtcosim: warning: anytime: memory not locked (%s); page faults may "
                            "delay periods\n",
                    strerror(errno));
    }
    rtcosim_error err = {0};
    rtcosim_component *instances[RTCOSIM_ANYTIME_MAX_VARIANTS] = {0};
    rtcosim_clock *clock = NULL;
    rtcosim_anytime *set = NULL;
    double *outputs = NULL;
    int rc = 1;
    for (size_t i = 0; i < o.step_count; i++)
        if (open_instance(&o, i, &instances[i], &err))
            goto fail;
    uint32_t vrs[MAX_OUTPUTS];
    const char *names[MAX_OUTPUTS];
    size_t output_count;
    if (resolve_outputs(&o, instances[0], vrs, names, &output_count))
        goto done;
    if (o.virtual_clock ? rtcosim_clock_create_virtual(0, &clock, &err)
                        : rtcosim_clock_create_monotonic(20 * RTCOSIM_NS_PER_US, &clock, &err))
        goto fail;
    rtcosim_anytime_config cfg;
    rtcosim_anytime_config_init(&cfg);
    cfg.name = rtcosim_component_model_name(instances[0]);
    cfg.output_count = output_count;
    cfg.output_names = names;
    cfg.period_ns = o.period;
    cfg.strategy = o.strategy;
    cfg.timer_fallback = o.timer_fallback;
    size_t periods = (size_t)(o.duration / o.period);
    cfg.record_capacity = o.output_file ? periods : 0;
    outputs = calloc(output_count, sizeof *outputs);
    if (!outputs) {
        rtcosim_error_set(&err, RTCOSIM_ENOMEM, "anytime: out of memory");
        goto fail;
    }
    if (rtcosim_anytime_create(&cfg, clock, &set, &err))
        goto fail;
    for (size_t i = 0; i < o.step_count; i++) {
        char name[32];
        rtcosim_anytime_variant_info info = {name, (int)i + 1, o.steps[i], 0};
        if (!o.model_exchange) {
            snprintf(name, sizeof name, "h%.3g", rtcosim_time_to_seconds(o.steps[i]));
        } else if (o.solvers[i] == RTCOSIM_ME_SOLVER_EULER) {
            /* micro steps of H, each one Euler step (and an abort point) */
            snprintf(name, sizeof name, "euler:%.3g", rtcosim_time_to_seconds(o.steps[i]));
            info.solver = RTCOSIM_ANYTIME_SOLVER_EULER;
        } else {
            /* one call per period: CVODE chooses its own steps */
            snprintf(name, sizeof name, "cvode");
            if (o.steps[i])
                snprintf(name, sizeof name, "cvode:%.3g", rtcosim_time_to_seconds(o.steps[i]));
            info.solver = RTCOSIM_ANYTIME_SOLVER_VARIABLE;
            info.step_ns = 0;
        }
        if (rtcosim_anytime_add_component(set, &info, instances[i], NULL, vrs, &err))
            goto fail;
    }
    if (rtcosim_anytime_start(set, NULL, &err))
        goto fail;
    /* Ctrl-C, SIGTERM or SIGHUP: the periods so far are the results, their
     * summary printed and their records written, exit 128 + signal */
    cli_signals_install();
    size_t done_periods = 0;
    for (; done_periods < periods && !atomic_load(&cli_stop_signal); done_periods++) {
        rtcosim_anytime_wait_release(set);
        if (rtcosim_anytime_run_period(set, NULL, outputs, NULL, &err))
            goto fail;
    }
    int stop = atomic_load(&cli_stop_signal);
    if (stop)
        fprintf(stderr, "rtcosim: anytime: ended by %s after %zu of %zu periods\n",
                cli_signal_name(stop), done_periods, periods);
    rtcosim_anytime_summary s;
    if (rtcosim_anytime_summary_get(set, &s, &err))
        goto fail;
    print_summary(&o, &s);
    for (size_t i = 0; i < output_count; i++)
        printf("final %s = %.17g\n", names[i], outputs[i]);
    if (o.output_file) {
        cli_signals_hold(); /* the records whole, a second signal or not */
        rtcosim_status written = rtcosim_anytime_write_csv(set, o.output_file, &err);
        cli_signals_release();
        if (written)
            goto fail;
        printf("records: %s\n", o.output_file);
    }
    rc = stop ? cli_signal_exit_code(stop) : 0;
    goto done;
fail:
    rc = cli_fail_error(&err);
done:
    cli_signals_restore();
    rtcosim_anytime_free(set);
    for (size_t i = 0; i < o.step_count; i++)
        rtcosim_component_free(instances[i]);
    rtcosim_clock_free(clock);
    free(outputs);
    return rc;
}

const rtcosim_cli_command rtcosim_cli_cmd_anytime = {
    "anytime", "run an FMU at several step sizes as an anytime task in real time", run_anytime};
