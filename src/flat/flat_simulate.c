/* rtcosim_flat_simulate (flat.h): one FMU simulated as `rtcosim simulate`
 * does (same option resolution, same rtcosim_simulate run), its rows kept in
 * memory for a language binding instead of a CSV file. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "flat_internal.h"
#include "rtcosim/csv.h"
#include "rtcosim/fmu.h"
#include "rtcosim/log.h"
#include "rtcosim/results.h"
#include "rtcosim/simulate.h"

enum { STOP_NONE, STOP_CALLBACK, STOP_TIMEOUT };

typedef struct sim_context {
    rtcosim_rows *rows;
    rtcosim_flat_progress_state progress;
    const rtcosim_flat_simulate_options *o;
    struct timespec deadline; /* wall clock, when o->timeout > 0 */
    int stopped;              /* STOP_* */
} sim_context;

static rtcosim_status on_row(void *context, rtcosim_time_ns t, const rtcosim_value *values,
                             size_t count, rtcosim_error *err)
{
    (void)count;
    return rtcosim_rows_append(((sim_context *)context)->rows, t, values, err);
}

static bool past(const struct timespec *deadline)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec > deadline->tv_sec ||
           (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec);
}

/* After every step: the caller's end conditions (an ECANCELED that
 * rtcosim_flat_simulate turns into a normal end), then the progress report. */
static rtcosim_status on_progress(void *context, rtcosim_time_ns t, rtcosim_error *err)
{
    sim_context *ctx = context;
    const rtcosim_flat_simulate_options *o = ctx->o;
    if (o->interrupt && __atomic_load_n(o->interrupt, __ATOMIC_RELAXED))
        return rtcosim_error_set(err, RTCOSIM_ECANCELED, "interrupted at t = %g s",
                                 rtcosim_time_to_seconds(t));
    if (o->step_finished && o->step_finished(o->step_context, rtcosim_time_to_seconds(t)))
        ctx->stopped = STOP_CALLBACK;
    else if (o->timeout > 0 && past(&ctx->deadline))
        ctx->stopped = STOP_TIMEOUT;
    if (ctx->stopped)
        return rtcosim_error_set(err, RTCOSIM_ECANCELED, "stopped early");
    return o->progress ? rtcosim_flat_report(&ctx->progress, t, err) : RTCOSIM_OK;
}

static rtcosim_status parse_time(const char *what, const char *text, rtcosim_time_ns *out,
                                 rtcosim_error *err)
{
    if (!text)
        return RTCOSIM_OK;
    if (rtcosim_time_parse_seconds(text, out, err) != RTCOSIM_OK)
        return rtcosim_error_prefix(err, "%s: ", what);
    return RTCOSIM_OK;
}

/* The times as the CLI resolves them (cmd_simulate.c): given ones exactly,
 * the rest from the default experiment or fmusim's fallbacks. */
static rtcosim_status resolve_times(const char *fmu, const rtcosim_flat_simulate_options *o,
                                    const rtcosim_component *c, rtcosim_simulate_options *so,
                                    rtcosim_error *err)
{
    so->start_time = so->stop_time = so->output_interval = RTCOSIM_SIMULATE_UNSET;
    so->tolerance = o->tolerance > 0 ? o->tolerance : -1;
    rtcosim_status st;
    if ((st = parse_time("start_time", o->start_time, &so->start_time, err)) != RTCOSIM_OK ||
        (st = parse_time("stop_time", o->stop_time, &so->stop_time, err)) != RTCOSIM_OK ||
        (st = parse_time("output_interval", o->output_interval, &so->output_interval, err)) !=
            RTCOSIM_OK)
        return st;
    if (o->output_interval && so->output_interval <= 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "output_interval: %s s is not positive",
                                 o->output_interval);
    if (o->tolerance > 1)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "tolerance: %g is not in (0, 1]",
                                 o->tolerance);
    rtcosim_simulate_defaults(c, so);
    if (so->stop_time < so->start_time) {
        char start[RTCOSIM_FORMAT_MAX], stop[RTCOSIM_FORMAT_MAX];
        rtcosim_format_time(so->start_time, start);
        rtcosim_format_time(so->stop_time, stop);
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: stop time %s s is before start time %s s",
                                 fmu, stop, start);
    }
    return RTCOSIM_OK;
}

/* The recorded columns: names and types of the variables the run records. */
static rtcosim_status make_rows(const rtcosim_component *c, const rtcosim_flat_simulate_options *o,
                                rtcosim_rows **out, rtcosim_error *err)
{
    size_t n = 0;
    rtcosim_status st = rtcosim_simulate_outputs(c, (const char *const *)o->output, o->output_count,
                                                 NULL, 0, &n, err);
    if (st != RTCOSIM_OK)
        return st;
    const rtcosim_variable **vars = calloc(n + 1, sizeof *vars);
    const char **names = calloc(n + 1, sizeof *names);
    rtcosim_type *types = calloc(n + 1, sizeof *types);
    if (!vars || !names || !types)
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory for the results");
    else {
        rtcosim_simulate_outputs(c, o->output, o->output_count, vars, n, &n, NULL);
        for (size_t i = 0; i < n; i++) {
            names[i] = vars[i]->name;
            types[i] = vars[i]->type;
        }
        st = rtcosim_rows_create(names, types, n, out, err);
        for (size_t i = 0; st == RTCOSIM_OK && i < n; i++)
            st = rtcosim_rows_set_column_meta(*out, i, vars[i]->unit, vars[i]->description,
                                              vars[i]->variability <= RTCOSIM_VARIABILITY_TUNABLE,
                                              err);
    }
    free(vars);
    free(names);
    free(types);
    return st;
}

rtcosim_status rtcosim_flat_simulate(const char *fmu, const rtcosim_flat_simulate_options *o,
                                     rtcosim_rows **out, rtcosim_error *err)
{
    *out = NULL;
    if (!fmu || !o)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "simulate: no FMU or options given");
    if (o->start_count && (!o->start_names || !o->start_values))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "simulate: start values without names");
    if (!(o->timeout <= 0 || o->timeout < 1e9))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "simulate: timeout %g s is out of range",
                                 o->timeout);
    rtcosim_fmu_options fo = {.interface_type = o->model_exchange == 1 ? RTCOSIM_FMI_MODEL_EXCHANGE
                                                                       : RTCOSIM_FMI_CO_SIMULATION,
                              .model_exchange_fallback = o->model_exchange < 0,
                              .solver = (rtcosim_me_solver)o->solver,
                              .fmu_logging_on = o->fmu_logging != 0,
                              .strict = o->strict != 0,
                              .log_fmi_calls = o->log_fmi_calls != 0,
                              .event_mode_where_declared = o->event_mode != 0,
                              .apply_default_start_values = o->apply_default_start_values != 0};
    rtcosim_component *c = NULL;
    rtcosim_csv *input = NULL;
    rtcosim_start_value *starts = calloc(o->start_count + 1, sizeof *starts);
    sim_context ctx = {.o = o};
    rtcosim_status st = RTCOSIM_OK;
    if (!starts) {
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < o->start_count; i++)
        starts[i] = (rtcosim_start_value){o->start_names[i], o->start_values[i]};
    if ((st = rtcosim_fmu_load(fmu, &fo, &c, err)) != RTCOSIM_OK)
        goto done;
    rtcosim_simulate_options so = {.start_values = starts, .start_value_count = o->start_count,
                                   .output_variables = o->output,
                                   .output_variable_count = o->output_count,
                                   .record_every = o->record_every,
                                   .no_event_rows = o->no_event_rows != 0,
                                   .stop_time_not_set = o->stop_time_not_set != 0,
                                   .initial_state_file = o->initial_state_file,
                                   .initial_state = o->initial_state,
                                   .initial_state_size = o->initial_state_size,
                                   .on_row = on_row, .row_context = &ctx,
                                   .progress = o->progress || o->step_finished || o->timeout > 0 ||
                                                       o->interrupt
                                                   ? on_progress
                                                   : NULL,
                                   .progress_context = &ctx};
    if ((st = resolve_times(fmu, o, c, &so, err)) != RTCOSIM_OK)
        goto done;
    if (o->input_file && o->input_csv) {
        st = rtcosim_error_set(err, RTCOSIM_EINVAL, "input: a table or a file, not both");
        goto done;
    }
    if (o->input_column_count && !o->input_file) {
        st = rtcosim_error_set(err, RTCOSIM_EINVAL, "input columns are mapped, but the input "
                               "is no file");
        goto done;
    }
    rtcosim_simulate_column_map map = {c, o->input_column_inputs, o->input_columns,
                                       o->input_column_count};
    if (o->input_file &&
        (st = rtcosim_csv_read_input_file(o->input_file, rtcosim_simulate_mapped_text_column, &map,
                                          &input, err)) != RTCOSIM_OK)
        goto done;
    if (o->input_column_count &&
        (st = rtcosim_csv_select_columns(input, o->input_column_count, o->input_columns,
                                         o->input_column_inputs, err)) != RTCOSIM_OK)
        goto done;
    if (o->input_csv &&
        (st = rtcosim_csv_read_memory_text("input", o->input_csv, o->input_csv_size,
                                           rtcosim_simulate_text_column, c, &input, err)) !=
            RTCOSIM_OK)
        goto done;
    so.input = input;
    if ((st = make_rows(c, o, &ctx.rows, err)) != RTCOSIM_OK)
        goto done;
    ctx.progress = (rtcosim_flat_progress_state){o->progress, o->progress_context, so.start_time,
                                                 so.stop_time, 0};
    rtcosim_simulate_result result = {0};
    if (o->timeout > 0) {
        clock_gettime(CLOCK_MONOTONIC, &ctx.deadline);
        double whole = (double)(time_t)o->timeout;
        ctx.deadline.tv_sec += (time_t)whole;
        ctx.deadline.tv_nsec += (long)((o->timeout - whole) * 1e9);
        if (ctx.deadline.tv_nsec >= 1000000000L) {
            ctx.deadline.tv_sec++;
            ctx.deadline.tv_nsec -= 1000000000L;
        }
    }
    st = rtcosim_simulate(c, &so, &result, err);
    if (st == RTCOSIM_ECANCELED && ctx.stopped) {
        /* An end the caller asked for: a normal end at the time reached. */
        st = RTCOSIM_OK;
        if (ctx.stopped == STOP_TIMEOUT)
            rtcosim_log(RTCOSIM_LOG_WARNING, "simulate",
                        "%s: stopped at t = %g s after the timeout of %g s (rows so far kept)", fmu,
                        rtcosim_time_to_seconds(result.end_time), o->timeout);
    }
    if (st != RTCOSIM_OK)
        goto done;
    if (o->progress && !ctx.stopped &&
        (st = rtcosim_flat_report(&ctx.progress, so.stop_time, err)) != RTCOSIM_OK)
        goto done;
    rtcosim_rows_add_stat(ctx.rows, "steps", (double)result.steps, NULL);
    rtcosim_rows_add_stat(ctx.rows, "end_time_s", rtcosim_time_to_seconds(result.end_time), NULL);
    rtcosim_rows_add_stat(ctx.rows, "terminated_by_component", result.terminated_by_component, NULL);
    rtcosim_rows_add_stat(ctx.rows, "stopped_early", ctx.stopped, NULL);
    *out = ctx.rows;
    ctx.rows = NULL;
done:
    /* Name the FMU unless the message names it (or the input) already. */
    if (st != RTCOSIM_OK && err && strncmp(err->message, fmu, strlen(fmu)) != 0 &&
        strncmp(err->message, "input:", 6) != 0)
        rtcosim_error_prefix(err, "%s: ", fmu);
    rtcosim_rows_free(ctx.rows);
    rtcosim_csv_free(input);
    rtcosim_component_free(c);
    free(starts);
    return st;
}
