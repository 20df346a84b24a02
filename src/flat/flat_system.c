/* rtcosim_flat_system_run (flat.h): an SSP system run as `rtcosim run` runs
 * it, the master's observed values kept in memory for a language binding;
 * with real_time, the real-time adapter (system_rt.h) with the executor's
 * summary as statistics. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "flat_internal.h"
#include "plot/plot_internal.h"
#include "rtcosim/clock.h"
#include "rtcosim/estimate.h"
#include "rtcosim/master.h"
#include "rtcosim/system.h"
#include "rtcosim/system_rt.h"

typedef struct run_context {
    rtcosim_rows *rows;
    rtcosim_master *master;
    size_t numeric; /* columns from the observed values; then String and Binary ones */
    rtcosim_value *row;
    size_t *exact, exact_count; /* the numeric columns of Int64 and UInt64 variables */
    uint64_t every, calls;
    rtcosim_flat_progress_state progress;
    const int *interrupt;
} run_context;

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Master observer: keep rows 0, N, 2N, ... as the CLI's recorder does. */
static rtcosim_status observe(void *context, rtcosim_time_ns t, const double *values, size_t count,
                              rtcosim_error *err)
{
    run_context *rc = context;
    if (rc->interrupt && __atomic_load_n(rc->interrupt, __ATOMIC_RELAXED))
        return rtcosim_error_set(err, RTCOSIM_ECANCELED, "interrupted");
    rtcosim_status st = rtcosim_flat_report(&rc->progress, t, err);
    if (st != RTCOSIM_OK || rc->calls++ % rc->every != 0)
        return st;
    for (size_t i = 0; i < count; i++)
        rc->row[i].f64 = values[i];
    for (size_t k = 0; k < rc->exact_count; k++)
        rtcosim_master_observed_exact(rc->master, rc->exact[k], &rc->row[rc->exact[k]]);
    if (rtcosim_master_text_observed_count(rc->master) &&
        (st = rtcosim_master_text_observed_values(rc->master, rc->row + rc->numeric, err)) != RTCOSIM_OK)
        return st;
    return rtcosim_rows_append(rc->rows, t, rc->row, err);
}

/* The variable behind an observed "component.variable": component names
 * may hold dots themselves (nested systems), so each split is tried. */
static const rtcosim_variable *observed_variable(const rtcosim_master *m, const char *name)
{
    char buf[512];
    if (snprintf(buf, sizeof buf, "%s", name) >= (int)sizeof buf)
        return NULL;
    for (char *dot = strchr(buf, '.'); dot; dot = strchr(dot + 1, '.')) {
        *dot = '\0';
        rtcosim_component *c = rtcosim_master_component(m, buf);
        const rtcosim_variable *v = c ? rtcosim_component_find_variable(c, dot + 1) : NULL;
        *dot = '.';
        if (v)
            return v;
    }
    return NULL;
}

/* Units and descriptions of the columns, from the components' variables. */
static rtcosim_status describe_columns(rtcosim_rows *rows, const rtcosim_master *m,
                                       rtcosim_error *err)
{
    rtcosim_status st = RTCOSIM_OK;
    for (size_t i = 0; st == RTCOSIM_OK && i < rtcosim_rows_column_count(rows); i++) {
        const rtcosim_variable *v = observed_variable(m, rtcosim_rows_column_name(rows, i));
        if (v)
            st = rtcosim_rows_set_column_meta(rows, i, v->unit, v->description,
                                              v->variability <= RTCOSIM_VARIABILITY_TUNABLE, err);
    }
    return st;
}

/* A table without rows whose columns are those of the real-time run's CSV,
 * with their types, units and descriptions: from a master built (not
 * initialized) observing them. Without them (all Float64, no units) when that
 * fails: the run itself succeeded. */
static rtcosim_status described_empty_rows(const rtcosim_system_desc *desc,
                                           const rtcosim_system_build_options *build,
                                           const char *csv_path, rtcosim_rows **out,
                                           rtcosim_error *err)
{
    plot_table *table = NULL; /* the header's names only: a long run's file is not read */
    rtcosim_master *m = NULL;
    if (!csv_path || plot_csv_read_names(csv_path, &table, NULL) != RTCOSIM_OK)
        return rtcosim_rows_create(NULL, NULL, 0, out, err);
    size_t n = table->column_count;
    const char **names = calloc(n + 1, sizeof *names);
    rtcosim_type *types = calloc(n + 1, sizeof *types);
    rtcosim_status st = names && types ? RTCOSIM_OK
                                       : rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    for (size_t i = 0; st == RTCOSIM_OK && i < n; i++) {
        names[i] = table->columns[i].name;
        types[i] = RTCOSIM_TYPE_FLOAT64;
    }
    rtcosim_system_build_options observing = *build;
    observing.observe = names;
    observing.observe_count = n;
    if (st == RTCOSIM_OK && rtcosim_system_build_master(desc, &observing, &m, NULL) != RTCOSIM_OK)
        m = NULL;
    /* String and Binary columns typed as such, so that a binding reads their
     * cells as text ("12", Binary "0102" look like numbers) */
    for (size_t j = 0; st == RTCOSIM_OK && m && j < rtcosim_master_text_observed_count(m); j++)
        for (size_t i = 0; i < n; i++)
            if (strcmp(names[i], rtcosim_master_text_observed_name(m, j)) == 0)
                types[i] = rtcosim_master_text_observed_type(m, j);
    if (st == RTCOSIM_OK && (st = rtcosim_rows_create(names, types, n, out, err)) == RTCOSIM_OK && m)
        st = describe_columns(*out, m, err);
    free(names);
    free(types);
    rtcosim_master_free(m);
    plot_table_free(table);
    return st;
}

static rtcosim_status parse_time(const char *what, const char *text, bool *has,
                                 rtcosim_time_ns *out, rtcosim_error *err)
{
    if (!text)
        return RTCOSIM_OK;
    if (rtcosim_time_parse_seconds(text, out, err) != RTCOSIM_OK)
        return rtcosim_error_prefix(err, "%s: ", what);
    if (has)
        *has = true;
    return RTCOSIM_OK;
}

static rtcosim_status run_master(const char *path, const rtcosim_system_desc *desc,
                                 const rtcosim_flat_system_options *o,
                                 const rtcosim_system_build_options *build, rtcosim_time_ns start,
                                 rtcosim_time_ns stop, rtcosim_rows **out, rtcosim_error *err)
{
    rtcosim_master *m = NULL;
    run_context rc = {.every = 1};
    rtcosim_status st = rtcosim_system_build_master(desc, build, &m, err);
    for (size_t i = 0; st == RTCOSIM_OK && i < o->start_count; i++)
        if ((st = rtcosim_master_set_start_value(m, o->start_names[i], o->start_values[i], err)) !=
            RTCOSIM_OK)
            rtcosim_error_prefix(err, "%s: ", path); /* the message says "start value" */
    if (st == RTCOSIM_OK && (st = rtcosim_master_initialize(m, start, stop, err)) != RTCOSIM_OK)
        rtcosim_error_prefix(err, "%s: ", path);
    if (st != RTCOSIM_OK)
        goto done;
    rtcosim_time_ns macro = rtcosim_master_next_step(m), interval = 0;
    if ((st = parse_time("output_interval", o->output_interval, NULL, &interval, err)) != RTCOSIM_OK)
        goto done;
    if (o->output_interval) {
        const rtcosim_ssd_master_settings *ann = rtcosim_system_desc_master(desc);
        bool adaptive = build->overrides.has_step_control ? build->overrides.step_control
                                                          : ann->has_step_control && ann->step_control;
        if (adaptive || interval <= 0 || interval % macro != 0) {
            st = rtcosim_error_set(err, RTCOSIM_EINVAL,
                                   "output_interval %s s is not a positive multiple of the fixed "
                                   "macro step %.9g s", o->output_interval,
                                   rtcosim_time_to_seconds(macro));
            goto done;
        }
        rc.every = (uint64_t)(interval / macro);
    }
    size_t n = rtcosim_master_observed_count(m), texts = rtcosim_master_text_observed_count(m);
    rc.master = m;
    rc.numeric = n;
    const char **names = calloc(n + texts + 1, sizeof *names);
    rtcosim_type *types = calloc(n + texts + 1, sizeof *types);
    rc.row = calloc(n + texts + 1, sizeof *rc.row);
    rc.exact = calloc(n + 1, sizeof *rc.exact);
    if (!names || !types || !rc.row || !rc.exact)
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory for the results");
    for (size_t i = 0; st == RTCOSIM_OK && i < n; i++) {
        /* doubles, but Int64 and UInt64 exactly (2^53 + 1, 2^63 - 1), as simulate gives them */
        names[i] = rtcosim_master_observed_name(m, i);
        types[i] = rtcosim_master_observed_type(m, i);
        if (types[i] != RTCOSIM_TYPE_FLOAT64)
            rc.exact[rc.exact_count++] = i;
    }
    for (size_t i = 0; st == RTCOSIM_OK && i < texts; i++) { /* String, Binary: after the numbers */
        names[n + i] = rtcosim_master_text_observed_name(m, i);
        types[n + i] = rtcosim_master_text_observed_type(m, i);
    }
    if (st == RTCOSIM_OK && (st = rtcosim_rows_create(names, types, n + texts, &rc.rows, err)) ==
                                RTCOSIM_OK)
        st = describe_columns(rc.rows, m, err);
    free(names);
    free(types);
    if (st != RTCOSIM_OK)
        goto done;
    rc.progress = (rtcosim_flat_progress_state){o->progress, o->progress_context, start, stop, 0};
    rc.interrupt = o->interrupt;
    double wall = wall_seconds();
    st = rtcosim_master_run(m, stop, observe, &rc, err);
    wall = wall_seconds() - wall;
    if (st != RTCOSIM_OK) {
        rtcosim_error_prefix(err, "%s: at t = %.9g s: ", path,
                             rtcosim_time_to_seconds(rtcosim_master_time(m)));
        goto done;
    }
    /* The final point, when the decimation left it out. */
    if (rc.every > 1 && rtcosim_master_step_count(m) % rc.every != 0) {
        const double *v = rtcosim_master_observed_values(m);
        for (size_t i = 0; i < n; i++)
            rc.row[i].f64 = v[i];
        for (size_t k = 0; k < rc.exact_count; k++)
            rtcosim_master_observed_exact(m, rc.exact[k], &rc.row[rc.exact[k]]);
        if ((texts && (st = rtcosim_master_text_observed_values(m, rc.row + n, err)) != RTCOSIM_OK) ||
            (st = rtcosim_rows_append(rc.rows, rtcosim_master_time(m), rc.row, err)) != RTCOSIM_OK)
            goto done;
    }
    rtcosim_rows_add_stat(rc.rows, "steps", (double)rtcosim_master_step_count(m), NULL);
    rtcosim_rows_add_stat(rc.rows, "end_time_s", rtcosim_time_to_seconds(rtcosim_master_time(m)), NULL);
    rtcosim_rows_add_stat(rc.rows, "wall_time_s", wall, NULL);
    *out = rc.rows;
    rc.rows = NULL;
done:
    rtcosim_rows_free(rc.rows);
    free(rc.row);
    free(rc.exact);
    rtcosim_master_free(m);
    return st;
}

/* The executor's summary, each time figure's name ending in its unit (as
 * the real-time report's summary.csv gives them: drift, slip and
 * calibration in microseconds, times of the run in seconds). */
static void add_summary(rtcosim_rows *r, const rtcosim_rt_summary *s, double wall)
{
#define STAT(name, value) rtcosim_rows_add_stat(r, name, (double)(value), NULL)
    STAT("frames", s->frames);
    STAT("frames_dropped", s->frames_dropped);
    STAT("overruns", s->overruns);
    STAT("overruns_backlog", s->overruns_backlog);
    STAT("overruns_execution", s->overruns_execution);
    STAT("overruns_wakeup", s->overruns_wakeup);
    STAT("drift_us", (double)s->drift / 1e3);
    STAT("slip_us", (double)s->slip / 1e3);
    STAT("failed", s->failed);
    STAT("end_time_s", rtcosim_time_to_seconds(s->stopped_at));
    STAT("calibration_worst_us", (double)s->calibration_worst / 1e3);
    STAT("calibration_median_us", (double)s->calibration_median / 1e3);
    STAT("fifo_applied", s->fifo_applied);
    STAT("memory_locked", s->memory_locked);
    STAT("dma_latency_held", s->dma_latency_held);
    STAT("affinity_applied", s->affinity_applied);
    STAT("exchanges", s->exchanges);
    STAT("estimated_exchanges", s->estimated_exchanges);
    STAT("overruns_while_late", s->overruns_while_late);
    STAT("overruns_partner", s->overruns_partner);
    STAT("partner_isolated", s->partner_isolated);
    STAT("max_lag_s", rtcosim_time_to_seconds(s->max_lag));
    STAT("late_episodes", s->late_episodes);
    STAT("resync_frames_median", s->resync_frames_median);
    STAT("resync_frames_max", s->resync_frames_max);
    STAT("partner_lost", s->partner_lost);
    STAT("partner_lost_at_s", rtcosim_time_to_seconds(s->partner_lost_at));
    STAT("records_dropped", s->records_dropped);
    STAT("nonrealtime_compute_mean_us", (double)s->partner_compute_mean / 1e3);
    STAT("nonrealtime_compute_p99_us", (double)s->partner_compute_p99 / 1e3);
    STAT("nonrealtime_share_of_H", s->partner_load);
    STAT("nonrealtime_slow_windows", s->partner_slow_windows);
    STAT("wall_time_s", wall);
#undef STAT
}

static rtcosim_status run_real_time(const char *path, const rtcosim_system_desc *desc,
                                    const rtcosim_flat_system_options *o,
                                    const rtcosim_system_build_options *build,
                                    rtcosim_time_ns start, rtcosim_time_ns stop,
                                    rtcosim_rows **out, rtcosim_error *err)
{
    rtcosim_system_rt_options so;
    rtcosim_system_rt_options_init(&so);
    /* The system's rc:RealTime settings, then the caller's options over them. */
    const rtcosim_ssd_realtime_settings *ann = rtcosim_system_desc_realtime(desc);
    if (ann->has_rt_factor)
        so.rt.rt_factor = ann->rt_factor;
    if (ann->has_overrun)
        so.rt.overrun = (rtcosim_overrun_policy)ann->overrun;
    if (ann->has_partner_timeout)
        so.rt.partner_timeout = ann->partner_timeout;
    so.rt.calibrate = !ann->has_calibrate || ann->calibrate;
    so.rt.non_realtime = ann->non_realtime;
    rtcosim_status st = RTCOSIM_OK;
    if (ann->exchange)
        st = rtcosim_exchange_pattern_parse(ann->exchange, &so.rt.exchange, err);
    if (st == RTCOSIM_OK && ann->estimator)
        st = rtcosim_estimator_spec_parse(ann->estimator, &so.rt.estimator, err);
    /* Per-signal estimators and injected delays, as `run --estimator
     * SIGNAL=SPEC` and `--inject-delay NAME:SPEC`; the rest are executor options. */
    rtcosim_rt_signal_estimator *per_signal = calloc(o->rt_count + 1, sizeof *per_signal);
    rtcosim_system_rt_delay *delays = calloc(o->rt_count + 1, sizeof *delays);
    rtcosim_time_ns **schedules = calloc(o->rt_count + 1, sizeof *schedules);
    size_t per_signal_count = 0, delay_count = 0;
    if (!per_signal || !delays || !schedules)
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    const char *given_default = NULL;
    for (size_t i = 0; st == RTCOSIM_OK && i < o->rt_count; i++) {
        if (strcmp(o->rt_names[i], "estimator") == 0) {
            bool is_signal = false;
            rtcosim_rt_signal_estimator *se = &per_signal[per_signal_count];
            if ((st = rtcosim_rt_signal_estimator_parse(o->rt_values[i], se, &is_signal, err)) !=
                RTCOSIM_OK) {
                rtcosim_error_prefix(err, "estimator: ");
            } else if (!is_signal) {
                if (given_default)
                    st = rtcosim_error_set(err, RTCOSIM_EINVAL, "estimator: the default estimator "
                                           "is given twice ('%s' and '%s')",
                                           given_default, o->rt_values[i]);
                given_default = o->rt_values[i];
                so.rt.estimator = se->spec;
            } else {
                for (size_t k = 0; k < per_signal_count && st == RTCOSIM_OK; k++)
                    if (strcmp(per_signal[k].signal, se->signal) == 0)
                        st = rtcosim_error_set(err, RTCOSIM_EINVAL,
                                               "estimator: signal '%s' is given twice", se->signal);
                per_signal_count++;
            }
        } else if (strcmp(o->rt_names[i], "inject-delay") == 0) {
            if ((st = rtcosim_system_rt_delay_parse(o->rt_values[i], &delays[delay_count],
                                                    &schedules[delay_count], err)) != RTCOSIM_OK)
                rtcosim_error_prefix(err, "inject-delay: ");
            else
                delay_count++;
        } else {
            st = rtcosim_rt_option_set(&so.rt, o->rt_names[i], o->rt_values[i], err);
        }
    }
    if (st == RTCOSIM_OK && per_signal_count && !(so.rt.non_realtime && *so.rt.non_realtime))
        st = rtcosim_error_set(err, RTCOSIM_EINVAL, "estimator %s=...: per-signal estimators need "
                               "a non-real-time part (non_realtime)", per_signal[0].signal);
    so.rt.signal_estimators = per_signal;
    so.rt.signal_estimator_count = per_signal_count;
    so.delays = delays;
    so.delay_count = delay_count;
    rtcosim_clock *pacing = NULL, *partner = NULL;
    rtcosim_system_rt *srt = NULL;
    rtcosim_rows *rows = NULL;
    if (st != RTCOSIM_OK) {
        rtcosim_error_prefix(err, "%s: ", path);
        goto done;
    }
    so.rt.start_time = start;
    so.rt.stop_time = stop;
    so.build = *build;
    so.start_names = o->start_names;
    so.start_values = o->start_values;
    so.start_count = o->start_count;
    so.output_file = o->output_file;
    /* (an int read and written whole: the executor's atomic_int) */
    so.rt.stop_request = (const atomic_int *)o->interrupt;
    if ((st = parse_time("output_interval", o->output_interval, NULL, &so.output_interval, err)) !=
        RTCOSIM_OK)
        goto done;
    if (o->virtual_clock && ((st = rtcosim_clock_create_virtual(0, &pacing, err)) != RTCOSIM_OK ||
                             (st = rtcosim_clock_create_virtual(0, &partner, err)) != RTCOSIM_OK))
        goto done;
    so.rt.clock = pacing;
    so.rt.partner_clock = partner;
    double wall = wall_seconds();
    if ((st = rtcosim_system_rt_create(desc, &so, &srt, err)) != RTCOSIM_OK)
        goto done;
    st = rtcosim_system_rt_run(srt, err);
    wall = wall_seconds() - wall;
    const rtcosim_rt_summary *summary = rtcosim_rt_get_summary(rtcosim_system_rt_executor(srt));
    if (st == RTCOSIM_OK && summary->interrupted)
        st = rtcosim_error_set(err, RTCOSIM_ECANCELED, "interrupted at t = %.9g s",
                               rtcosim_time_to_seconds(summary->stopped_at));
    if (st != RTCOSIM_OK) {
        rtcosim_error_prefix(err, "%s: ", path);
        goto done;
    }
    if ((st = described_empty_rows(desc, build, o->output_file, &rows, err)) != RTCOSIM_OK)
        goto done;
    add_summary(rows, summary, wall);
    rtcosim_rows_add_stat(rows, "rows_written", (double)rtcosim_system_rt_rows_written(srt), NULL);
    *out = rows;
done:
    rtcosim_system_rt_free(srt);
    rtcosim_clock_free(pacing);
    rtcosim_clock_free(partner);
    for (size_t i = 0; schedules && i < delay_count; i++)
        free(schedules[i]);
    free(schedules);
    free(delays);
    free(per_signal);
    return st;
}

rtcosim_status rtcosim_flat_system_run(const char *path, const rtcosim_flat_system_options *o,
                                       rtcosim_rows **out, rtcosim_error *err)
{
    *out = NULL;
    if (!path || !o)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "run: no system or options given");
    rtcosim_system_desc *desc = NULL;
    const rtcosim_system_load_options load = {.input_file = o->input_file,
                                              .input_columns = o->input_columns,
                                              .input_column_inputs = o->input_column_inputs,
                                              .input_column_count = o->input_column_count};
    rtcosim_status st = rtcosim_system_desc_load_with(path, &load, &desc, err);
    for (size_t i = 0; st == RTCOSIM_OK && i < o->parameter_set_count; i++)
        st = rtcosim_system_desc_apply_parameter_set(desc, o->parameter_sets[i], err);
    if (st != RTCOSIM_OK)
        goto done;
    rtcosim_system_build_options build = {.observe = o->output, .observe_count = o->output_count};
    rtcosim_ssd_master_settings *ov = &build.overrides;
    ov->order = (rtcosim_ssd_order)o->order;
    ov->coupling = (rtcosim_ssd_coupling)o->coupling;
    ov->correction = (rtcosim_ssd_correction)o->correction;
    ov->threads = o->threads;
    if (o->step_control >= 0)
        ov->has_step_control = true, ov->step_control = o->step_control != 0;
    rtcosim_time_ns start = 0, stop = 0;
    bool has_stop = false;
    rtcosim_system_desc_start_time(desc, &start);
    has_stop = rtcosim_system_desc_stop_time(desc, &stop);
    if ((st = parse_time("step_size", o->step_size, &ov->has_step_size, &ov->step_size_ns, err)) !=
            RTCOSIM_OK ||
        (st = parse_time("start_time", o->start_time, NULL, &start, err)) != RTCOSIM_OK ||
        (st = parse_time("stop_time", o->stop_time, &has_stop, &stop, err)) != RTCOSIM_OK)
        goto done;
    if (!has_stop) {
        st = rtcosim_error_set(err, RTCOSIM_EINVAL,
                               "%s: no stop time (give stop_time or ssd:DefaultExperiment stopTime)",
                               path);
        goto done;
    }
    if (stop < start) {
        st = rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: stop time %.9g s is before start time %.9g s",
                               path, rtcosim_time_to_seconds(stop), rtcosim_time_to_seconds(start));
        goto done;
    }
    st = o->real_time ? run_real_time(path, desc, o, &build, start, stop, out, err)
                      : run_master(path, desc, o, &build, start, stop, out, err);
done:
    rtcosim_system_desc_free(desc);
    return st;
}
