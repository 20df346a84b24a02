/* `rtcosim run SYSTEM.ssd|.ssp`: builds the master from an SSP system
 * description (command-line settings over the file's rtcosim annotation),
 * runs it, streams the observed outputs to CSV and prints a short summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "rtcosim/log.h"
#include "rtcosim/master.h"
#include "rtcosim/results.h"
#include "rtcosim/system.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rtcosim run SYSTEM.ssd|SYSTEM.ssp [options]\n\n"
            "Runs an SSP 1.0 system. Settings on the command line override the system's\n"
            "org.rtcosim.master annotation.\n\n"
            "options:\n"
            "  --start-time S          start time (default: DefaultExperiment or 0)\n"
            "  --stop-time S           stop time (default: DefaultExperiment)\n"
            "  --step-size S           macro step H\n"
            "  --order O               jacobi | gauss-seidel\n"
            "  --coupling C            input extrapolation: zoh | foh | soh\n"
            "  --correction C          none | energy (= dead-time) | dead-time | integrator\n"
            "  --step-control          adaptive macro step\n"
            "  --threads N             worker threads for Jacobi steps\n"
            "  --parameter-set F.ssv   apply a parameter set (names component.variable); repeatable\n"
            "  --start-value NAME V    start value of component.variable; repeatable\n"
            "  --output-file F.csv     write the observed variables (fmusim CSV)\n"
            "  --output-variable NAME  observe component.variable (repeatable; default: every\n"
            "                          output that feeds a connection)\n"
            "  --output-interval S     write every S seconds (a multiple of H; default: every step)\n"
            "  --log-level L           error | warning | info | debug | trace\n");
}

typedef struct run_output {
    rtcosim_recorder *recorder;
    rtcosim_value *row;
    size_t count;
} run_output;

static rtcosim_status record_row(void *context, rtcosim_time_ns t, const double *values,
                                 size_t count, rtcosim_error *err)
{
    run_output *out = context;
    if (!out->recorder)
        return RTCOSIM_OK;
    /* Every row is pushed (the recorder counts them for its decimation);
     * values are only gathered for the rows it keeps. */
    if (rtcosim_recorder_wants_row(out->recorder))
        for (size_t i = 0; i < count && i < out->count; i++)
            out->row[i].f64 = values[i];
    return rtcosim_recorder_push_row(out->recorder, t, out->row, err);
}

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int parse_time_option(const char *option, const char *text, rtcosim_time_ns *out)
{
    rtcosim_error err;
    if (rtcosim_time_parse_seconds(text, out, &err) != RTCOSIM_OK)
        return cli_fail("%s: %s", option, err.message);
    return 0;
}

typedef struct run_args {
    const char *system;
    bool has_start, has_stop, has_interval;
    rtcosim_time_ns start, stop, interval;
    rtcosim_system_build_options build;
    const char **parameter_sets;
    size_t parameter_set_count;
    const char **start_names, **start_values;
    size_t start_count;
    const char **observe;
    size_t observe_count;
    const char *output_file;
} run_args;

static int parse_args(int argc, char **argv, run_args *a)
{
    rtcosim_ssd_master_settings *o = &a->build.overrides;
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        int rc = 0;
        if (strcmp(opt, "--step-control") == 0) {
            o->has_step_control = o->step_control = true;
            continue;
        }
        if (opt[0] != '-' || opt[1] != '-') {
            if (a->system)
                return cli_fail("run: more than one system given ('%s' and '%s')", a->system, opt);
            a->system = opt;
            continue;
        }
        if (!val)
            return cli_fail("run: %s needs a value (see rtcosim run --help)", opt);
        i++;
        if (strcmp(opt, "--start-time") == 0) {
            rc = parse_time_option(opt, val, &a->start);
            a->has_start = true;
        } else if (strcmp(opt, "--stop-time") == 0) {
            rc = parse_time_option(opt, val, &a->stop);
            a->has_stop = true;
        } else if (strcmp(opt, "--step-size") == 0) {
            rc = parse_time_option(opt, val, &o->step_size_ns);
            o->has_step_size = true;
            if (rc == 0 && o->step_size_ns <= 0)
                rc = cli_fail("--step-size must be positive");
        } else if (strcmp(opt, "--output-interval") == 0) {
            rc = parse_time_option(opt, val, &a->interval);
            a->has_interval = true;
            if (rc == 0 && a->interval <= 0)
                rc = cli_fail("--output-interval must be positive");
        } else if (strcmp(opt, "--order") == 0) {
            if (strcmp(val, "jacobi") == 0)
                o->order = RTCOSIM_SSD_ORDER_JACOBI;
            else if (strcmp(val, "gauss-seidel") == 0)
                o->order = RTCOSIM_SSD_ORDER_GAUSS_SEIDEL;
            else
                rc = cli_fail("--order: unknown order '%s' (jacobi, gauss-seidel)", val);
        } else if (strcmp(opt, "--coupling") == 0) {
            if (strcmp(val, "zoh") == 0)
                o->coupling = RTCOSIM_SSD_COUPLING_ZOH;
            else if (strcmp(val, "foh") == 0)
                o->coupling = RTCOSIM_SSD_COUPLING_FOH;
            else if (strcmp(val, "soh") == 0)
                o->coupling = RTCOSIM_SSD_COUPLING_SOH;
            else
                rc = cli_fail("--coupling: unknown coupling '%s' (zoh, foh, soh)", val);
        } else if (strcmp(opt, "--correction") == 0) {
            if (strcmp(val, "none") == 0)
                o->correction = RTCOSIM_SSD_CORRECTION_NONE;
            else if (strcmp(val, "energy") == 0 || strcmp(val, "dead-time") == 0)
                o->correction = RTCOSIM_SSD_CORRECTION_DEAD_TIME;
            else if (strcmp(val, "integrator") == 0)
                o->correction = RTCOSIM_SSD_CORRECTION_INTEGRATOR;
            else
                rc = cli_fail("--correction: unknown correction '%s' (none, energy, dead-time, "
                              "integrator)", val);
        } else if (strcmp(opt, "--threads") == 0) {
            char *end = NULL;
            long n = strtol(val, &end, 10);
            if (!*val || *end || n < 1 || n > 1024)
                rc = cli_fail("--threads: '%s' is not a thread count (1..1024)", val);
            o->threads = (int)n;
        } else if (strcmp(opt, "--parameter-set") == 0) {
            a->parameter_sets[a->parameter_set_count++] = val;
        } else if (strcmp(opt, "--start-value") == 0) {
            if (i + 1 >= argc)
                return cli_fail("--start-value needs NAME and VALUE");
            a->start_names[a->start_count] = val;
            a->start_values[a->start_count++] = argv[++i];
        } else if (strcmp(opt, "--output-file") == 0) {
            a->output_file = val;
        } else if (strcmp(opt, "--output-variable") == 0) {
            a->observe[a->observe_count++] = val;
        } else if (strcmp(opt, "--log-level") == 0) {
            rtcosim_log_level level;
            if (rtcosim_log_level_parse(val, &level) != 0)
                rc = cli_fail("--log-level: unknown level '%s'", val);
            else
                rtcosim_log_set_level(level);
        } else {
            rc = cli_fail("run: unknown option '%s' (see rtcosim run --help)", opt);
        }
        if (rc)
            return rc;
    }
    if (!a->system) {
        usage(stderr);
        return cli_fail("run: no system file given");
    }
    return 0;
}

static int run_system(const run_args *a)
{
    rtcosim_error err;
    rtcosim_error_clear(&err);
    rtcosim_system_desc *desc = NULL;
    rtcosim_master *m = NULL;
    run_output out = {0};
    int rc = 0;
    if (rtcosim_system_desc_load(a->system, &desc, &err) != RTCOSIM_OK)
        return cli_fail_error(&err);
    for (size_t i = 0; i < a->parameter_set_count; i++)
        if (rtcosim_system_desc_apply_parameter_set(desc, a->parameter_sets[i], &err) != RTCOSIM_OK) {
            rc = cli_fail_error(&err);
            goto done;
        }
    rtcosim_time_ns start = 0, stop = 0;
    if (a->has_start)
        start = a->start;
    else
        rtcosim_system_desc_start_time(desc, &start);
    if (a->has_stop)
        stop = a->stop;
    else if (!rtcosim_system_desc_stop_time(desc, &stop)) {
        rc = cli_fail("%s: no stop time (give --stop-time or ssd:DefaultExperiment stopTime)",
                      a->system);
        goto done;
    }
    if (stop < start) {
        rc = cli_fail("%s: stop time %.9g s is before start time %.9g s", a->system,
                      rtcosim_time_to_seconds(stop), rtcosim_time_to_seconds(start));
        goto done;
    }

    rtcosim_system_build_options build = a->build;
    build.observe = a->observe;
    build.observe_count = a->observe_count;
    if (rtcosim_system_build_master(desc, &build, &m, &err) != RTCOSIM_OK) {
        rc = cli_fail_error(&err);
        goto done;
    }
    for (size_t i = 0; i < a->start_count; i++)
        if (rtcosim_master_set_start_value(m, a->start_names[i], a->start_values[i], &err) != RTCOSIM_OK) {
            rc = cli_fail("--start-value: %s", err.message);
            goto done;
        }
    const rtcosim_ssd_master_settings *annotated = rtcosim_system_desc_master(desc);
    bool adaptive = a->build.overrides.has_step_control
                        ? a->build.overrides.step_control
                        : annotated->has_step_control && annotated->step_control;
    if (rtcosim_master_initialize(m, start, stop, &err) != RTCOSIM_OK) {
        rc = cli_fail("%s: %s", a->system, err.message);
        goto done;
    }
    rtcosim_time_ns macro = rtcosim_master_next_step(m);
    uint32_t every = 1;
    if (a->has_interval && adaptive) {
        rc = cli_fail("--output-interval needs a fixed macro step (step control is on)");
        goto done;
    }
    if (a->has_interval) {
        if (a->interval % macro != 0) {
            rc = cli_fail("--output-interval %.9g s is not a multiple of the macro step %.9g s",
                          rtcosim_time_to_seconds(a->interval), rtcosim_time_to_seconds(macro));
            goto done;
        }
        every = (uint32_t)(a->interval / macro);
    }

    out.count = rtcosim_master_observed_count(m);
    out.row = calloc(out.count ? out.count : 1, sizeof *out.row);
    rtcosim_column *columns = calloc(out.count ? out.count : 1, sizeof *columns);
    if (!out.row || !columns) {
        free(columns);
        rc = cli_fail("out of memory");
        goto done;
    }
    for (size_t i = 0; i < out.count; i++)
        columns[i] = (rtcosim_column){rtcosim_master_observed_name(m, i), RTCOSIM_TYPE_FLOAT64};
    if (a->output_file) {
        rtcosim_recorder_options ro = {.path = a->output_file, .columns = columns,
                                       .column_count = out.count, .record_every = every};
        rtcosim_status st = rtcosim_recorder_open(&ro, &out.recorder, &err);
        free(columns);
        if (st != RTCOSIM_OK) {
            rc = cli_fail_error(&err);
            goto done;
        }
    } else {
        free(columns);
    }

    double wall_start = wall_seconds();
    rtcosim_status st = rtcosim_master_run(m, stop, record_row, &out, &err);
    double wall = wall_seconds() - wall_start;
    if (st != RTCOSIM_OK) {
        rc = cli_fail("%s: at t = %.9g s: %s", a->system,
                      rtcosim_time_to_seconds(rtcosim_master_time(m)), err.message);
        goto done;
    }
    /* The final point is always written, even between output intervals. */
    if (out.recorder && every > 1 && rtcosim_master_step_count(m) % every != 0) {
        const double *v = rtcosim_master_observed_values(m);
        for (size_t i = 0; i < out.count; i++)
            out.row[i].f64 = v[i];
        rtcosim_recorder_push_row_always(out.recorder, rtcosim_master_time(m), out.row, &err);
    }
    rtcosim_recorder_stats stats = {0};
    if (out.recorder) {
        st = rtcosim_recorder_close(out.recorder, &stats, &err);
        out.recorder = NULL;
        if (st != RTCOSIM_OK) {
            rc = cli_fail_error(&err);
            goto done;
        }
    }

    double simulated = rtcosim_time_to_seconds(rtcosim_master_time(m) - start);
    printf("system '%s': %zu components, %zu connections, H = %.9g s%s\n",
           rtcosim_system_desc_name(desc), rtcosim_master_component_count(m),
           rtcosim_master_connection_count(m), rtcosim_time_to_seconds(macro),
           adaptive ? " at start (adaptive)" : "");
    printf("ran %.9g s in %llu steps, %.3f s wall (%.1fx real time)\n", simulated,
           (unsigned long long)rtcosim_master_step_count(m), wall,
           wall > 0 ? simulated / wall : 0.0);
    if (a->output_file)
        printf("wrote %llu rows of %zu variables to %s\n",
               (unsigned long long)stats.rows_written, out.count, a->output_file);
    const double *final = rtcosim_master_observed_values(m);
    for (size_t i = 0; i < out.count && i < 12; i++)
        printf("  %-32s %.9g\n", rtcosim_master_observed_name(m, i), final[i]);
    if (out.count > 12)
        printf("  ... and %zu more\n", out.count - 12);

done:
    if (out.recorder)
        rtcosim_recorder_close(out.recorder, NULL, NULL);
    free(out.row);
    rtcosim_master_free(m);
    rtcosim_system_desc_free(desc);
    return rc;
}

static int run_cmd(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        }
    run_args a = {0};
    a.parameter_sets = calloc((size_t)argc, sizeof *a.parameter_sets);
    a.start_names = calloc((size_t)argc, sizeof *a.start_names);
    a.start_values = calloc((size_t)argc, sizeof *a.start_values);
    a.observe = calloc((size_t)argc, sizeof *a.observe);
    int rc;
    if (!a.parameter_sets || !a.start_names || !a.start_values || !a.observe)
        rc = cli_fail("out of memory");
    else if ((rc = parse_args(argc, argv, &a)) == 0)
        rc = run_system(&a);
    free(a.parameter_sets);
    free(a.start_names);
    free(a.start_values);
    free(a.observe);
    return rc;
}

const rtcosim_cli_command rtcosim_cli_cmd_run = {"run", "run an SSP system (.ssd or .ssp)", run_cmd};
