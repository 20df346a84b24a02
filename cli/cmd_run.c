/* `rtcosim run SYSTEM.ssd|.ssp`: builds the master from an SSP system
 * description (command-line settings over the file's rtcosim annotation),
 * runs it, streams the observed outputs to CSV and prints a short summary.
 * With --real-time it runs paced to the wall clock through system_rt.h, with
 * a non-real-time part, estimates and a timing/estimation report. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "run_args.h"
#include "progress.h"
#include "signals.h"
#include "rtcosim/fmu.h"
#include "run_distribute.h"
#include "run_isolate.h"
#include "run_speculate.h"
#include "rtcosim/log.h"
#include "rtcosim/master.h"
#include "rtcosim/dcp.h"
#include "rtcosim/results.h"
#include "rtcosim/system.h"
#include "rtcosim/system_rt.h"

typedef struct run_output {
    rtcosim_recorder *recorder;
    rtcosim_value *row;
    size_t count;      /* numeric columns (the master's observed values) */
    size_t text_count; /* then String and Binary columns, read from the components */
    size_t *exact;     /* the numeric columns of Int64 and UInt64 variables, */
    size_t exact_count; /* written exactly (rtcosim_master_observed_exact) */
    rtcosim_master *master;
    cli_progress progress;
    /* Adaptive step with --output-interval: rows only on start + k grid. */
    rtcosim_time_ns grid, grid_start;
    FILE *coupling_stats; /* --coupling-stats */
    cli_serve *serve;     /* --serve: the live view (run_serve.c) */
} run_output;

/* One --coupling-stats row: E of each connection's last reconciled
 * interval, each bond's last residual and correction energy. */
static rtcosim_status write_coupling_row(run_output *out, rtcosim_time_ns t, rtcosim_error *err)
{
    rtcosim_master *m = out->master;
    fprintf(out->coupling_stats, "%.9g", rtcosim_time_to_seconds(t));
    for (size_t i = 0; i < rtcosim_master_connection_count(m); i++) {
        rtcosim_coupling_stats cs;
        rtcosim_master_coupling_stats(m, i, &cs, NULL);
        fprintf(out->coupling_stats, ",%.17g", cs.last_error);
    }
    for (size_t b = 0; b < rtcosim_master_bond_count(m); b++) {
        rtcosim_bond_stats bs;
        rtcosim_master_bond_stats(m, b, &bs, NULL);
        fprintf(out->coupling_stats, ",%.17g,%.17g", bs.last_residual, bs.last_correction_energy);
    }
    if (fputc('\n', out->coupling_stats) == EOF)
        return rtcosim_error_set(err, RTCOSIM_EIO, "--coupling-stats: cannot write");
    return RTCOSIM_OK;
}

static rtcosim_status record_row(void *context, rtcosim_time_ns t, const double *values,
                                 size_t count, rtcosim_error *err)
{
    run_output *out = context;
    cli_progress_update(&out->progress, t);
    cli_watchdog_beat();
    cli_serve_step(out->serve, t, values);
    int signo = atomic_load_explicit(&cli_stop_signal, memory_order_relaxed);
    if (signo)
        return rtcosim_error_set(err, RTCOSIM_ECANCELED, "interrupted by %s",
                                 cli_signal_name(signo));
    if (out->coupling_stats && t > out->grid_start) {
        rtcosim_status st = write_coupling_row(out, t, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    if (!out->recorder || (out->grid > 0 && (t - out->grid_start) % out->grid != 0))
        return RTCOSIM_OK;
    /* Every row is pushed (the recorder counts them for its decimation);
     * values are only gathered for the rows it keeps. */
    if (rtcosim_recorder_wants_row(out->recorder)) {
        for (size_t i = 0; i < count && i < out->count; i++)
            out->row[i].f64 = values[i];
        for (size_t k = 0; k < out->exact_count; k++)
            rtcosim_master_observed_exact(out->master, out->exact[k], &out->row[out->exact[k]]);
        rtcosim_status st =
            out->text_count ? rtcosim_master_text_observed_values(out->master, out->row + out->count, err)
                            : RTCOSIM_OK;
        if (st != RTCOSIM_OK)
            return st;
    }
    return rtcosim_recorder_push_row(out->recorder, t, out->row, err);
}

/* The master of the system with the command line's settings and start
 * values, initialized from start to stop; *step_origin (if given) says where
 * the macro step came from. `remote` binds the --dcp components to their
 * slaves (a slave serves one session, so the --reference master runs them
 * locally). */
static int make_master(const run_args *a, const rtcosim_system_desc *desc, rtcosim_time_ns start,
                       rtcosim_time_ns stop, rtcosim_ssd_step_origin *step_origin, bool remote,
                       rtcosim_master **out)
{
    rtcosim_error err;
    rtcosim_error_clear(&err);
    rtcosim_system_build_options build = a->build;
    build.step_origin = step_origin;
    build.observe = a->observe;
    build.observe_count = a->observe_count;
    if (remote && a->dcp) {
        build.wrap = rtcosim_dcp_bindings_wrap;
        build.wrap_context = a->dcp;
    }
    if (a->distribute.dist) {
        build.wrap = rtcosim_distribution_wrap;
        build.wrap_context = a->distribute.dist;
    }
    if (run_isolation_active(a->isolation)) {
        /* Isolated first, then (if --dcp names it) bound to its slave. */
        a->isolation->next = build.wrap;
        a->isolation->next_context = build.wrap_context;
        a->isolation->fmu = build.fmu;
        build.wrap = run_isolation_wrap;
        build.wrap_context = a->isolation;
    }
    if (run_variants_active(a->variants)) {
        /* Variant components first (their instances stay in process). */
        a->variants->next = build.wrap;
        a->variants->next_context = build.wrap_context;
        build.wrap = run_variants_wrap;
        build.wrap_context = a->variants;
    }
    if (rtcosim_system_build_master(desc, &build, out, &err) != RTCOSIM_OK ||
        (a->distribute.dist &&
         rtcosim_distribution_check_placed(a->distribute.dist, &err) != RTCOSIM_OK) ||
        (remote && rtcosim_dcp_bindings_check_used(a->dcp, &err) != RTCOSIM_OK))
        return cli_fail_error(&err);
    int can = cli_can_bus_attach(&a->can, *out);
    if (can)
        return can;
    for (size_t i = 0; i < a->start_count; i++)
        if (rtcosim_master_set_start_value(*out, a->start_names[i], a->start_values[i], &err) != RTCOSIM_OK)
            return cli_fail("--start-value: %s", err.message);
    if (a->threads_auto &&
        rtcosim_master_set_threads(*out, RTCOSIM_MASTER_THREADS_AUTO, &err) != RTCOSIM_OK)
        return cli_fail("--threads: %s", err.message);
    /* Adaptive steps land on the output points (fixed ones are checked to). */
    if (a->has_interval && rtcosim_master_set_step_grid(*out, a->interval, &err) != RTCOSIM_OK)
        return cli_fail("--output-interval: %s", err.message);
    if (rtcosim_master_initialize(*out, start, stop, &err) != RTCOSIM_OK)
        return cli_fail("%s: %s", a->system, err.message);
    return 0;
}

/* --serve: the live view of the master's observed values, able to tune
 * every component (the run's own thread applies it at a step boundary). */
static int open_live_view(const run_args *a, const rtcosim_system_desc *desc,
                          const rtcosim_master *m, run_output *out)
{
    cli_serve *sv = (cli_serve *)&a->serve;
    int rc = cli_serve_create(sv, RTCOSIM_SERVE_OFFLINE, rtcosim_system_desc_name(desc));
    if (rc || !sv->server)
        return rc;
    rtcosim_error err;
    for (size_t i = 0; i < out->count; i++) {
        const char *name = rtcosim_master_observed_name(m, i);
        if (rtcosim_serve_add_variable(sv->server, name, rtcosim_serve_unit_of(m, name), &err) !=
            RTCOSIM_OK)
            return cli_fail_error(&err);
    }
    /* the view streams numbers: String and Binary columns go to the results
     * file only, which is said rather than left to be noticed */
    for (size_t i = 0; i < rtcosim_master_text_observed_count(m); i++)
        rtcosim_log(RTCOSIM_LOG_WARNING, "serve",
                    "--serve: '%s' (%s) is not shown in the live view, which shows numbers; the "
                    "results file has it",
                    rtcosim_master_text_observed_name(m, i),
                    rtcosim_type_name(rtcosim_master_text_observed_type(m, i)));
    if (rtcosim_serve_add_master(sv->server, m, 0, &err) != RTCOSIM_OK)
        return cli_fail_error(&err);
    if ((rc = cli_serve_add_can_buses(sv, &a->can, m)) != 0)
        return rc;
    out->serve = sv;
    return cli_serve_start(sv);
}

/* What a run chose (peers print their master algorithm): the order and the
 * per-step sequence, and the coupling defaults (a connection's annotation
 * may override them); label prefixes both lines (a real-time run's parts). */
void cli_print_master_plan(const rtcosim_master *m, const char *label)
{
    size_t ncomp = rtcosim_master_component_count(m);
    bool gauss_seidel = rtcosim_master_get_order(m) == RTCOSIM_ORDER_GAUSS_SEIDEL;
    printf("%sorder: %s, each step:", label, gauss_seidel ? "Gauss-Seidel" : "Jacobi");
    for (size_t i = 0; i < ncomp && rtcosim_master_order_name(m, i); i++)
        printf("%s%s", i ? (gauss_seidel ? " then " : ", ") : " ", rtcosim_master_order_name(m, i));
    printf(gauss_seidel ? " (each on its producers' new outputs)\n"
                        : " (all on the outputs of the previous step)\n");
    const rtcosim_coupling_options *cd = rtcosim_master_coupling_defaults(m);
    printf("%scoupling: extrapolation %s, correction %s, step input %s\n", label,
           rtcosim_extrapolation_name(cd->extrapolation), rtcosim_correction_name(cd->correction),
           rtcosim_step_input_name(cd->step_input));
}

/* (an Int64 of 2^53 + 1 or an Int32 of 2^31 - 1 as written, not
 * 9.00719925e+15) */
void cli_print_final_value(const char *name, const rtcosim_variable *v, double x,
                           const rtcosim_value *exact)
{
    if (v && exact && v->type == RTCOSIM_TYPE_INT64) {
        printf("  %-32s %" PRId64 "\n", name, exact->i64);
    } else if (v && exact && v->type == RTCOSIM_TYPE_UINT64) {
        printf("  %-32s %" PRIu64 "\n", name, exact->u64);
    } else if (v && v->type != RTCOSIM_TYPE_FLOAT64 && v->type != RTCOSIM_TYPE_FLOAT32 &&
               isfinite(x)) {
        printf("  %-32s %.0f\n", name, x); /* (whole numbers below 2^53: exact) */
    } else {
        printf("  %-32s %.9g\n", name, x);
    }
}

static int run_system(const run_args *a)
{
    rtcosim_error err;
    rtcosim_error_clear(&err);
    rtcosim_system_desc *desc = NULL;
    rtcosim_master *m = NULL, *reference = NULL;
    run_output out = {0};
    int rc = 0;
    /* Results must never overwrite an input: the system, its parameter sets. */
    {
        const char **inputs = calloc(a->parameter_set_count + 2, sizeof *inputs);
        if (!inputs)
            return cli_fail("out of memory");
        size_t n = 0;
        inputs[n++] = a->system;
        if (a->input_file)
            inputs[n++] = a->input_file;
        for (size_t i = 0; i < a->parameter_set_count; i++)
            inputs[n++] = a->parameter_sets[i];
        const cli_output outs[] = {{"--output-file", a->output_file},
                                   {"--coupling-stats", a->coupling_stats},
                                   {"--speculate-stats", a->speculate.stats_file},
                                   {"--can-log", a->can.log_path}};
        int bad = cli_check_outputs(outs, 4, inputs, n);
        free(inputs);
        if (bad)
            return bad;
    }
    const rtcosim_system_load_options load = {
        .allow_outside = a->allow_outside,
        .parameter_set = a->parameter_set_name,
        .input_file = a->input_file,
        .input_columns = a->input_columns,
        .input_column_inputs = (const char *const *)a->input_inputs,
        .input_column_count = a->input_column_count};
    if (rtcosim_system_desc_load_with(a->system, &load, &desc, &err) != RTCOSIM_OK)
        return cli_fail_error(&err);
    for (size_t i = 0; i < a->parameter_set_count; i++)
        if (rtcosim_system_desc_apply_parameter_set(desc, a->parameter_sets[i], &err) != RTCOSIM_OK) {
            rc = cli_fail_error(&err);
            goto done;
        }
    /* What the reader noted (ignored annotations, SSV warnings), once the
     * parameter sets of the command line are read too. */
    for (size_t i = 0; i < rtcosim_system_desc_info_count(desc); i++)
        fprintf(stderr, "info: %s\n", rtcosim_system_desc_info(desc, i));
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

    /* The annotation's choice (rc:Master isolate) unless the command line made one. */
    const char *annotated_isolate = rtcosim_system_desc_master(desc)->isolate;
    if (annotated_isolate && !a->isolate && !a->no_isolate) {
        if (strcmp(annotated_isolate, "all") == 0)
            a->isolation->all = true;
        else if (run_isolation_add(a->isolation, annotated_isolate)) {
            rc = CLI_EXIT_ERROR;
            goto done;
        }
    }
    if (run_isolation_active(a->isolation) && run_isolation_prepare(a->isolation, desc)) {
        rc = CLI_EXIT_ERROR;
        goto done;
    }
    a->variants->real_time = a->real_time;
    if (run_variants_prepare(a->variants, desc, a->build.fmu)) {
        rc = CLI_EXIT_ERROR;
        goto done;
    }
    if (run_variants_active(a->variants) && (a->distribute.enabled || a->speculate.enabled)) {
        rc = cli_fail("run: variants (--variants or an org.rtcosim.variants annotation) cannot "
                      "be combined with --distribute or --speculate");
        goto done;
    }
    if (run_variants_active(a->variants)) {
        for (size_t i = 0; i < a->variants->count; i++)
            if (run_isolation_selects(a->isolation, a->variants->specs[i].component)) {
                rc = cli_fail("run: component '%s' cannot be isolated and have variants",
                              a->variants->specs[i].component);
                goto done;
            }
        /* the macro step the build will choose, when the command line or the
         * file gives it (else each set learns it at its first step) */
        rtcosim_ssd_step_origin origin;
        a->variants->period_ns = a->build.overrides.has_step_size
                                     ? a->build.overrides.step_size_ns
                                     : 0;
        if (!a->variants->period_ns)
            rtcosim_system_desc_macro_step(desc, &a->variants->period_ns, &origin);
        /* a step logged per macro step of the run, at most a million */
        rtcosim_time_ns steps = a->variants->period_ns > 0
                                    ? (stop - start) / a->variants->period_ns + 1
                                    : 1000000;
        a->variants->step_log = (size_t)(steps < 1000000 ? steps : 1000000);
    }
    if (a->can.count == 0 && (a->can.fd_bitrate || a->can.xl_bitrate || a->can.error_every ||
                              a->can.error_code || a->can.no_lookahead)) {
        rc = cli_fail("--can-fd-bitrate, --can-xl-bitrate, --can-error-every, "
                      "--can-error-code and --can-no-lookahead need --can-bus");
        goto done;
    }
    if (a->can.count + a->can.signal_count == 0 && (a->can.bitrate || a->can.log_path)) {
        rc = cli_fail("--can-bitrate and --can-log need --can-bus or --can-signals");
        goto done;
    }
    const rtcosim_ssd_master_settings *annotated = rtcosim_system_desc_master(desc);
    bool adaptive = a->build.overrides.has_step_control
                        ? a->build.overrides.step_control
                        : annotated->has_step_control && annotated->step_control;
    const rtcosim_ssd_master_settings *ov = &a->build.overrides;
    if (!adaptive && (ov->step_rtol > 0 || ov->min_step_ns || ov->max_step_ns)) {
        rc = cli_fail("%s: --step-tolerance, --min-step-size and --max-step-size need step "
                      "control (--step-control or the annotation's stepControl=\"true\")",
                      a->system);
        goto done;
    }
    if (a->real_time) {
        rc = cli_run_real_time(a, desc, start, stop);
        goto done;
    }
    rtcosim_ssd_step_origin step_origin = RTCOSIM_STEP_FROM_NONE;
    if ((rc = make_master(a, desc, start, stop, &step_origin, true, &m)) != 0 ||
        (a->speculate.reference &&
         (rc = make_master(a, desc, start, stop, NULL, false, &reference)) != 0))
        goto done;
    rtcosim_time_ns macro = rtcosim_master_next_step(m);
    uint32_t every = 1;
    out.grid_start = start;
    if (a->has_interval && adaptive) {
        out.grid = a->interval;
    } else if (a->has_interval) {
        if (a->interval % macro != 0) {
            rc = cli_fail("--output-interval %.9g s is not a multiple of the macro step %.9g s",
                          rtcosim_time_to_seconds(a->interval), rtcosim_time_to_seconds(macro));
            goto done;
        }
        every = (uint32_t)(a->interval / macro);
    }

    out.count = rtcosim_master_observed_count(m);
    /* String and Binary outputs (named by --output-variable) are read from
     * the components themselves: not over ranks, nor from a speculative run
     * ahead of the committed time. */
    if (rtcosim_master_text_observed_count(m) > 0 && (a->distribute.dist || a->speculate.enabled)) {
        rc = cli_fail("--output-variable: String and Binary outputs cannot be recorded with %s",
                      a->distribute.dist ? "--distribute" : "--speculate");
        goto done;
    }
    out.master = m;
    out.text_count = a->output_file ? rtcosim_master_text_observed_count(m) : 0;
    size_t total = out.count + out.text_count;
    out.row = calloc(total ? total : 1, sizeof *out.row);
    out.exact = calloc(out.count ? out.count : 1, sizeof *out.exact);
    rtcosim_column *columns = calloc(total ? total : 1, sizeof *columns);
    if (!out.row || !out.exact || !columns) {
        free(columns);
        rc = cli_fail("out of memory");
        goto done;
    }
    /* Units and descriptions for MAT files and --csv-units; the master
     * samples every numeric column as a double, but Int64 and UInt64 ones
     * are read exactly (2^53 + 1, 2^63 - 1). */
    for (size_t i = 0; i < out.count; i++) {
        columns[i] = rtcosim_column_of(rtcosim_master_observed_name(m, i),
                                       rtcosim_master_observed_variable(m, i));
        columns[i].type = rtcosim_master_observed_type(m, i);
        if (columns[i].type != RTCOSIM_TYPE_FLOAT64)
            out.exact[out.exact_count++] = i;
    }
    for (size_t i = 0; i < out.text_count; i++)
        columns[out.count + i] = rtcosim_column_of(rtcosim_master_text_observed_name(m, i),
                                                   rtcosim_master_text_observed_variable(m, i));
    if (a->output_file) {
        rtcosim_master_parallel par;
        bool parallel = rtcosim_master_get_parallel(m, &par, NULL) == RTCOSIM_OK &&
                        (par.threads > 1 || par.automatic);
        rtcosim_recorder_options ro = {.path = a->output_file, .columns = columns,
                                       .column_count = total, .record_every = every,
                                       .csv_units = a->csv_units,
                                       /* a CPU free and the master on one thread:
                                          Dahlquist as a system, a row every 1e-4 s
                                          for 100 s, 0.16-0.19 -> 0.10-0.18 s */
                                       .writer_thread = a->writer_thread >= 0
                                                            ? a->writer_thread
                                                            : !parallel &&
                                                                  rtcosim_recorder_writer_thread_pays(),
                                       .whole_text = true};
        rtcosim_status st = rtcosim_recorder_open(&ro, &out.recorder, &err);
        free(columns);
        if (st != RTCOSIM_OK) {
            rc = cli_fail_error(&err);
            goto done;
        }
        for (size_t i = 0; i < out.count; i++)
            if (rtcosim_master_observed_refused(m, i))
                rtcosim_recorder_omit_column(out.recorder, i);
    } else {
        free(columns);
    }

    if (a->coupling_stats) {
        out.coupling_stats = fopen(a->coupling_stats, "w");
        if (!out.coupling_stats) {
            rc = cli_fail("%s: cannot create the coupling statistics file", a->coupling_stats);
            goto done;
        }
        fprintf(out.coupling_stats, "time");
        for (size_t i = 0; i < rtcosim_master_connection_count(m); i++)
            fprintf(out.coupling_stats, ",E %s", rtcosim_master_connection_name(m, i));
        for (size_t b = 0; b < rtcosim_master_bond_count(m); b++)
            fprintf(out.coupling_stats, ",bond%zu residual J,bond%zu correction J", b + 1, b + 1);
        fputc('\n', out.coupling_stats);
    }
    if ((rc = open_live_view(a, desc, m, &out)) != 0)
        goto done;
    double wall_start = cli_wall_seconds(), wall;
    rtcosim_status st;
    cli_progress_init(&out.progress, a->quiet, start, stop);
    cli_watchdog_beat();
    if (a->speculate.enabled) {
        st = cli_run_speculative(m, reference, &a->speculate, stop, record_row, &out, &wall, &err);
    } else {
        st = rtcosim_master_run(m, stop, record_row, &out, &err);
        wall = cli_wall_seconds() - wall_start;
    }
    cli_progress_finish(&out.progress);
    int signo = atomic_load(&cli_stop_signal);
    bool interrupted = st == RTCOSIM_ECANCELED && signo;
    if (interrupted) {
        /* Ended at a step boundary by a signal: results so far, summary. */
        fprintf(stderr, "rtcosim: %s: interrupted by %s at t = %.9g s (results so far kept)\n",
                a->system, cli_signal_name(signo), rtcosim_time_to_seconds(rtcosim_master_time(m)));
        st = RTCOSIM_OK;
        rc = cli_signal_exit_code(signo);
    }
    if (st != RTCOSIM_OK) {
        rc = cli_fail("%s: at t = %.9g s: %s", a->system,
                      rtcosim_time_to_seconds(rtcosim_master_time(m)), err.message);
        /* the frames the buses carried before the failure are results too
         * (--can-log), as the rows written so far are */
        cli_can_bus_finish(&a->can, m);
        goto done;
    }
    /* The final point is always written, even between output intervals. */
    bool off_grid = out.grid > 0 ? (rtcosim_master_time(m) - start) % out.grid != 0
                                 : every > 1 && rtcosim_master_step_count(m) % every != 0;
    if (out.recorder && (interrupted || off_grid)) {
        const double *v = rtcosim_master_observed_values(m);
        for (size_t i = 0; i < out.count; i++)
            out.row[i].f64 = v[i];
        for (size_t k = 0; k < out.exact_count; k++)
            rtcosim_master_observed_exact(m, out.exact[k], &out.row[out.exact[k]]);
        if (!out.text_count ||
            rtcosim_master_text_observed_values(m, out.row + out.count, &err) == RTCOSIM_OK)
            rtcosim_recorder_push_row_always(out.recorder, rtcosim_master_time(m), out.row, &err);
    }
    if (out.serve) {
        char path[1024];
        int served = cli_serve_finish(out.serve, rtcosim_master_time(m),
                                      rtcosim_master_observed_values(m),
                                      cli_serve_tuning_path(a->output_file, path, sizeof path));
        if (served) {
            rc = served;
            goto done;
        }
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
    char event_connections[64] = "";
    if (rtcosim_master_event_connection_count(m))
        snprintf(event_connections, sizeof event_connections, " (+%zu Binary/Clock)",
                 rtcosim_master_event_connection_count(m));
    printf("system '%s': %zu components, %zu connections%s, H = %.9g s%s (from %s)\n",
           rtcosim_system_desc_name(desc), rtcosim_master_component_count(m),
           rtcosim_master_connection_count(m), event_connections, rtcosim_time_to_seconds(macro),
           adaptive ? " at start (adaptive)" : "", rtcosim_ssd_step_origin_name(step_origin));
    cli_print_master_plan(m, "");
    printf("ran %.9g s in %llu steps, %.3f s wall (%.1fx real time)\n", simulated,
           (unsigned long long)rtcosim_master_step_count(m), wall,
           wall > 0 ? simulated / wall : 0.0);
    run_variants_find(a->variants, (const rtcosim_master *const[]){m}, 1);
    run_variants_print(a->variants, stdout);
    for (size_t i = 0; i < rtcosim_master_connection_count(m); i++) {
        rtcosim_coupling_stats cs;
        if (rtcosim_master_coupling_stats(m, i, &cs, NULL) == RTCOSIM_OK && cs.corrected)
            printf("coupling error: %s: RMS %.6g, max %.6g (integral per interval) over %llu "
                   "intervals\n", rtcosim_master_connection_name(m, i), cs.error_rms, cs.error_max,
                   (unsigned long long)cs.intervals);
    }
    for (size_t b = 0; b < rtcosim_master_bond_count(m); b++) {
        rtcosim_bond_stats bs;
        if (rtcosim_master_bond_stats(m, b, &bs, NULL) == RTCOSIM_OK)
            printf("power bond %zu: energy created by the coupling %.6g J, injected by the "
                   "correction %.6g J\n", b + 1, bs.energy_residual, bs.correction_energy);
    }
    if (out.coupling_stats) {
        FILE *f = out.coupling_stats;
        out.coupling_stats = NULL;
        if (fclose(f) != 0) {
            rc = cli_fail("%s: cannot write the coupling statistics file", a->coupling_stats);
            goto done;
        }
        printf("wrote coupling statistics per macro step to %s\n", a->coupling_stats);
    }
    if (adaptive) {
        rtcosim_time_ns smallest, largest;
        rtcosim_master_step_range(m, &smallest, &largest);
        printf("step control: %llu steps, smallest %.9g s, largest %.9g s\n",
               (unsigned long long)rtcosim_master_step_count(m), rtcosim_time_to_seconds(smallest),
               rtcosim_time_to_seconds(largest));
    }
    if (rtcosim_master_event_count(m) > 0)
        printf("events: %llu (FMI 3.0 Event Mode; a row before and one after each)\n",
               (unsigned long long)rtcosim_master_event_count(m));
    if (rtcosim_master_early_return_count(m) > 0)
        printf("early returns: %llu (FMI 3.0; each ended its macro step at the FMU's "
               "lastSuccessfulTime)\n",
               (unsigned long long)rtcosim_master_early_return_count(m));
    rtcosim_master_parallel par;
    if (rtcosim_master_get_parallel(m, &par, NULL) == RTCOSIM_OK && (par.threads > 1 || par.automatic)) {
        char line[300];
        rtcosim_master_describe_parallel(m, line, sizeof line);
        printf("%s\n", line);
    }
    cli_distribute_summary(&a->distribute, m);
    const char *ended_by = NULL;
    bool on_discard = false;
    if (rtcosim_master_terminated(m, &ended_by, &on_discard) &&
        rtcosim_master_time(m) < stop)
        printf("ended at %.9g s, before the stop time %.9g s: component '%s' asked to terminate%s\n",
               rtcosim_time_to_seconds(rtcosim_master_time(m)), rtcosim_time_to_seconds(stop),
               ended_by, on_discard ? " after discarding its step (FMI Discard)" : "");
    if (a->output_file)
        printf("wrote %llu rows of %zu variables to %s\n",
               (unsigned long long)stats.rows_written, out.count + out.text_count, a->output_file);
    const double *final = rtcosim_master_observed_values(m);
    for (size_t i = 0; i < out.count && i < 12; i++) {
        rtcosim_value exact;
        bool whole = rtcosim_master_observed_exact(m, i, &exact);
        cli_print_final_value(rtcosim_master_observed_name(m, i),
                              rtcosim_master_observed_variable(m, i), final[i],
                              whole ? &exact : NULL);
    }
    if (out.count > 12)
        printf("  ... and %zu more\n", out.count - 12);
    int can = cli_can_bus_finish(&a->can, m); /* rc may hold a signal's exit code */
    if (can)
        rc = can;

done:
    if (out.serve)
        cli_serve_close(out.serve);
    if (out.recorder)
        rtcosim_recorder_close(out.recorder, NULL, NULL);
    if (out.coupling_stats)
        fclose(out.coupling_stats);
    free(out.row);
    free(out.exact);
    rtcosim_master_free(m);
    rtcosim_master_free(reference);
    cli_can_bus_free(); /* after the masters: their bus components step these */
    rtcosim_system_desc_free(desc);
    return rc;
}

static int run_cmd(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            cli_run_usage(stdout);
            return 0;
        }
    static run_isolation isolation;
    static run_variants variants;
    run_args a = {.isolation = &isolation, .variants = &variants, .writer_thread = -1};
    rtcosim_rt_options_init(&a.rt);
    a.delays = calloc((size_t)argc, sizeof *a.delays);
    a.schedules = calloc((size_t)argc, sizeof *a.schedules);
    a.parameter_sets = calloc((size_t)argc, sizeof *a.parameter_sets);
    a.start_names = calloc((size_t)argc, sizeof *a.start_names);
    a.start_values = calloc((size_t)argc, sizeof *a.start_values);
    a.observe = calloc((size_t)argc, sizeof *a.observe);
    a.input_columns = calloc((size_t)argc, sizeof *a.input_columns);
    a.input_inputs = calloc((size_t)argc, sizeof *a.input_inputs);
    a.distribute.places = calloc((size_t)argc, sizeof *a.distribute.places);
    int rc;
    if (!a.parameter_sets || !a.start_names || !a.start_values || !a.observe || !a.delays ||
        !a.schedules || !a.distribute.places || !a.input_columns || !a.input_inputs)
        rc = cli_fail("out of memory");
    else if ((rc = cli_run_parse_args(argc, argv, &a)) != 0)
        rc = CLI_EXIT_USAGE;
    else if ((rc = cli_distribute_open(&a.distribute, a.system, &a.output_file, &a.quiet)) == 0) {
        cli_signals_install();
        if (a.distribute.enabled) /* mpirun's SIGTERM after another rank died */
            cli_signals_exit_at_once(a.distribute.what);
        /* over ranks, a death report names the rank too */
        cli_run_guard_begin(a.distribute.enabled ? a.distribute.what : a.system);
        rc = cli_watchdog_start(a.step_timeout > 0 || !a.distribute.enabled
                                    ? a.step_timeout
                                    : CLI_DISTRIBUTE_STEP_TIMEOUT_S);
        if (rc == 0)
            rc = run_system(&a);
        cli_watchdog_stop();
        cli_run_guard_end();
        cli_signals_restore();
        cli_distribute_end(&a.distribute, rc);
    }
    cli_distribute_close(&a.distribute);
    free(a.distribute.places);
    rtcosim_dcp_bindings_free(a.dcp);
    free(a.parameter_sets);
    free(a.start_names);
    free(a.start_values);
    free(a.observe);
    for (size_t i = 0; a.input_inputs && i < a.input_column_count; i++)
        free(a.input_inputs[i]);
    free(a.input_inputs);
    free(a.input_columns);
    for (size_t i = 0; a.schedules && i < a.delay_count; i++)
        free(a.schedules[i]);
    free(a.schedules);
    free(a.delays);
    return rc;
}

const rtcosim_cli_command rtcosim_cli_cmd_run = {
    "run", "run a system: SSP (.ssd, .ssp), libcosim's OspSystemStructure.xml, or an FMU alone",
    run_cmd};
