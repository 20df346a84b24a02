/* `rtcosim simulate --interface-type se` (FMI 3.0 chapter 5): time advances
 * from one clock instant to the next, as the FMU's scheduler
 * (src/fmi/fmi3_se_schedule.c) announces them, plus the rows of the input
 * file whose triggered-clock column holds 1 and the output grid. The
 * scheduler runs an instant's partitions in priority order and calls back
 * here before each to set its clocked inputs (unclocked ones once per
 * instant). Rows are written on the output grid: the row at t shows the
 * outputs after every partition ticking at t ran, a clocked output is read
 * only after one of its clocks ticked, a Clock column says whether it ticked
 * since the previous row. */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rtcosim/fmu_clocks.h"
#include "rtcosim/log.h"
#include "simulate/simulate_internal.h"

#define NEVER INT64_MAX

typedef struct se_clock {
    const rtcosim_variable *v;
    const rtcosim_fmu_clock *decl;
    bool input;
    ptrdiff_t column;    /* triggered input: its CSV column, else -1 */
    size_t row;          /* triggered input: next CSV row to look at */
    uint64_t ticks_at_row; /* its ticks when the last row was written */
} se_clock;

typedef struct se_input {
    const rtcosim_variable *v;
    size_t column;
    bool linear;
    const size_t *clocks; /* the clocks it belongs to; none: set at every instant */
    size_t clock_count;
} se_input;

typedef struct se_output {
    size_t variable;
    const size_t *clocks;
    size_t clock_count;
    uint64_t ticks_read; /* the sum of its clocks' ticks at the last read */
    bool read;
    rtcosim_value value;
} se_output;

struct se_run {
    const rtcosim_fmu_clocks *k;
    se_clock *clocks; /* parallel to k->clocks */
    size_t count;
    se_input *inputs;
    size_t input_count;
    se_output *outputs; /* parallel to r->recorded */
    unsigned char value[64];
    rtcosim_time_ns instant; /* the time the before-partition hook sets inputs for */
};

static size_t variable_index(const run *r, const rtcosim_variable *v)
{
    return (size_t)(v - rtcosim_component_variable(r->c, 0));
}

rtcosim_status simulate_se_setup(run *r, rtcosim_error *err)
{
    const rtcosim_fmu_clocks *k = rtcosim_fmu_clocks_of(r->c);
    struct se_run *se = calloc(1, sizeof *se);
    if (!se || !k)
        return free(se), rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory setting up the run");
    r->se = se;
    se->k = k;
    se->count = k->clock_count;
    se->clocks = calloc(k->clock_count + 1, sizeof *se->clocks);
    se->outputs = calloc(r->recorded_count + 1, sizeof *se->outputs);
    const rtcosim_csv *table = r->input;
    size_t columns = table ? rtcosim_csv_column_count(table) : 0;
    se->inputs = calloc(columns + 1, sizeof *se->inputs);
    if (!se->clocks || !se->outputs || !se->inputs)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory setting up the run");
    for (size_t i = 0; i < k->clock_count; i++) {
        se_clock *c = &se->clocks[i];
        c->decl = &k->clocks[i];
        c->v = rtcosim_component_variable(r->c, c->decl->variable);
        c->input = c->v->causality == RTCOSIM_CAUSALITY_INPUT;
        c->column = -1;
    }
    /* Input columns: a clock column ticks a triggered input clock; values
     * go to their variables at every instant or, when clocked, before their
     * clock's partition (section 5.2.2: set only for that partition). */
    for (size_t col = 0; col < columns; col++) {
        const rtcosim_variable *v =
            rtcosim_component_find_variable(r->c, rtcosim_csv_column_name(table, col));
        size_t vi = variable_index(r, v);
        if (v->type == RTCOSIM_TYPE_CLOCK) {
            long ci = rtcosim_fmu_clock_index(k, vi);
            if (ci < 0 || k->clocks[ci].kind != RTCOSIM_FMI_CLOCK_TRIGGERED)
                return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                         "%s: column '%s': only triggered input clocks tick from "
                                         "the input file; this one is %s",
                                         rtcosim_csv_name(table), v->name,
                                         ci < 0 ? "unknown"
                                                : rtcosim_fmi_clock_kind_name(k->clocks[ci].kind));
            se->clocks[ci].column = (ptrdiff_t)col;
            continue;
        }
        if (rtcosim_type_size(v->type) > sizeof se->value || !rtcosim_type_is_numeric(v->type))
            if (v->type != RTCOSIM_TYPE_BOOLEAN)
                return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                         "%s: column '%s': %s inputs cannot come from CSV",
                                         rtcosim_csv_name(table), v->name,
                                         rtcosim_type_name(v->type));
        se_input *in = &se->inputs[se->input_count++];
        in->v = v;
        in->column = col;
        in->linear = (v->type == RTCOSIM_TYPE_FLOAT64 || v->type == RTCOSIM_TYPE_FLOAT32) &&
                     v->variability == RTCOSIM_VARIABILITY_CONTINUOUS;
        if (k->clocked_start) {
            in->clocks = k->clocked + k->clocked_start[vi];
            in->clock_count = k->clocked_start[vi + 1] - k->clocked_start[vi];
        }
    }
    for (size_t i = 0; i < r->recorded_count; i++) {
        se_output *out = &se->outputs[i];
        out->variable = variable_index(r, r->recorded[i]);
        if (k->clocked_start) {
            out->clocks = k->clocked + k->clocked_start[out->variable];
            out->clock_count = k->clocked_start[out->variable + 1] - k->clocked_start[out->variable];
        }
    }
    return RTCOSIM_OK;
}

void simulate_se_free(run *r)
{
    struct se_run *se = r->se;
    if (!se)
        return;
    free(se->clocks);
    free(se->inputs);
    free(se->outputs);
    free(se);
    r->se = NULL;
}

/* A clocked value read once in Initialization Mode (allowed there for every
 * variable) stands for the rows before its clock first ticks. */
static rtcosim_status read_output(run *r, se_output *out, rtcosim_error *err)
{
    struct se_run *se = r->se;
    const rtcosim_variable *v = rtcosim_component_variable(r->c, out->variable);
    if (v->type == RTCOSIM_TYPE_CLOCK)
        return RTCOSIM_OK; /* from the ticks, never read for recording */
    rtcosim_status st = rtcosim_component_get(r->c, v->type, &v->value_reference, 1, se->value, err);
    if (st != RTCOSIM_OK)
        return st;
    simulate_load_value(v->type, se->value, &out->value);
    out->read = true;
    return RTCOSIM_OK;
}

/* In Initialization Mode (the intervals are the scheduler's, read by
 * exit_init): the clocked outputs' first values. */
rtcosim_status simulate_se_init(run *r, rtcosim_error *err)
{
    struct se_run *se = r->se;
    for (size_t i = 0; i < r->o->clock_interval_count; i++) {
        const rtcosim_start_value *ci = &r->o->clock_intervals[i];
        const rtcosim_variable *v = ci->name ? rtcosim_component_find_variable(r->c, ci->name) : NULL;
        long clock = v ? rtcosim_fmu_clock_index(se->k, variable_index(r, v)) : -1;
        if (clock < 0)
            return rtcosim_error_set(err, RTCOSIM_ENOTFOUND,
                                     "clock interval '%s': model '%s' has no such clock",
                                     ci->name ? ci->name : "", rtcosim_component_model_name(r->c));
        char *end = NULL;
        double seconds = ci->value ? strtod(ci->value, &end) : 0;
        if (!ci->value || end == ci->value || *end)
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "clock interval '%s': '%s' is not a number of seconds",
                                     ci->name, ci->value ? ci->value : "");
        rtcosim_status st = rtcosim_fmu_set_interval(r->c, (size_t)clock, seconds, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    for (size_t i = 0; i < r->recorded_count; i++)
        if (se->outputs[i].clock_count) {
            rtcosim_status st = read_output(r, &se->outputs[i], err);
            if (st != RTCOSIM_OK)
                return st;
        }
    return RTCOSIM_OK;
}

rtcosim_status simulate_se_gather(run *r, rtcosim_error *err)
{
    struct se_run *se = r->se;
    for (size_t i = 0; i < r->recorded_count; i++) {
        se_output *out = &se->outputs[i];
        const rtcosim_variable *v = r->recorded[i];
        if (v->type == RTCOSIM_TYPE_CLOCK) {
            long ci = rtcosim_fmu_clock_index(se->k, out->variable);
            r->row[i].b = ci >= 0 && rtcosim_fmu_se_ticks(r->c, (size_t)ci) !=
                                         se->clocks[ci].ticks_at_row;
            continue;
        }
        uint64_t ticks = 0;
        for (size_t j = 0; j < out->clock_count; j++)
            ticks += rtcosim_fmu_se_ticks(r->c, out->clocks[j]);
        if (out->clock_count == 0 || ticks != out->ticks_read || !out->read) {
            rtcosim_status st = read_output(r, out, err);
            if (st != RTCOSIM_OK)
                return st;
            out->ticks_read = ticks;
        }
        r->row[i] = out->value;
    }
    return RTCOSIM_OK;
}

static rtcosim_status set_input(run *r, const se_input *in, rtcosim_error *err)
{
    struct se_run *se = r->se;
    memset(se->value, 0, sizeof se->value);
    simulate_input_value(r, in->v->type, in->column, in->linear, se->value);
    return rtcosim_component_set(r->c, in->v->type, &in->v->value_reference, 1, se->value, err);
}

static bool belongs(const size_t *clocks, size_t n, size_t clock)
{
    for (size_t j = 0; j < n; j++)
        if (clocks[j] == clock)
            return true;
    return false;
}

/* The scheduler's hook: unclocked inputs once per instant, clocked ones just
 * before their partition (section 5.2.2). */
static rtcosim_status before_partition(void *context, size_t clock, rtcosim_error *err)
{
    run *r = context;
    struct se_run *se = r->se;
    if (!r->input)
        return RTCOSIM_OK;
    if (clock == SIZE_MAX)
        rtcosim_csv_cursor_seek(&r->cursor, se->instant);
    for (size_t j = 0; j < se->input_count; j++) {
        const se_input *in = &se->inputs[j];
        bool wanted = clock == SIZE_MAX ? in->clock_count == 0
                                        : belongs(in->clocks, in->clock_count, clock);
        rtcosim_status st = wanted ? set_input(r, in, err) : RTCOSIM_OK;
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

/* The earliest row time >= from at which a triggered clock's column is 1. */
static rtcosim_time_ns next_trigger(const run *r, se_clock *c, rtcosim_time_ns from)
{
    const rtcosim_csv *table = r->input;
    size_t rows = rtcosim_csv_row_count(table);
    while (c->row < rows && (rtcosim_csv_time(table, c->row) < from ||
                             rtcosim_csv_value(table, c->row, (size_t)c->column) != 1.0))
        c->row++;
    return c->row < rows ? rtcosim_csv_time(table, c->row) : NEVER;
}

static rtcosim_status run_instant(run *r, rtcosim_time_ns t, uint64_t *activations,
                                  rtcosim_error *err)
{
    struct se_run *se = r->se;
    for (size_t i = 0; i < se->count; i++) {
        se_clock *c = &se->clocks[i];
        if (c->column < 0 || next_trigger(r, c, t) != t)
            continue;
        rtcosim_status st = rtcosim_fmu_se_trigger(r->c, i, err);
        if (st != RTCOSIM_OK)
            return st;
        while (c->row < rtcosim_csv_row_count(r->input) &&
               rtcosim_csv_time(r->input, c->row) == t)
            c->row++; /* several rows at one time tick it once */
    }
    se->instant = t;
    size_t n = 0;
    rtcosim_status st = rtcosim_fmu_se_run_instant(r->c, t, before_partition, r, &n, err);
    *activations += n;
    return st;
}

static void log_partitions(run *r)
{
    struct se_run *se = r->se;
    for (size_t i = 0; i < se->count; i++) {
        rtcosim_se_partition_stats ps;
        if (se->clocks[i].input && rtcosim_fmu_se_partition_stats(r->c, i, &ps, NULL) == RTCOSIM_OK)
            rtcosim_log(RTCOSIM_LOG_DEBUG, "simulate",
                        "%s: partition %s: %" PRIu64 " activations, execution %.3f us mean, "
                        "%.3f us max", r->label, se->clocks[i].v->name, ps.activations,
                        ps.activations ? (double)ps.exec_total_ns / (double)ps.activations / 1e3 : 0.0,
                        (double)ps.exec_max_ns / 1e3);
    }
}

rtcosim_status simulate_se_loop(run *r, rtcosim_simulate_result *res, rtcosim_error *err)
{
    struct se_run *se = r->se;
    const rtcosim_simulate_options *o = r->o;
    rtcosim_time_ns start = o->start_time, stop = o->stop_time, grid = start;
    uint64_t rows = 0, activations = 0;
    for (;;) {
        rtcosim_time_ns t = grid, tick = rtcosim_fmu_se_next_tick(r->c);
        if (tick < t)
            t = tick;
        for (size_t i = 0; i < se->count; i++) {
            /* Triggered: the earliest 1 of its column not yet consumed. */
            rtcosim_time_ns trig = se->clocks[i].column >= 0 ? next_trigger(r, &se->clocks[i], start)
                                                             : NEVER;
            if (trig < t)
                t = trig;
        }
        rtcosim_status st = run_instant(r, t, &activations, err);
        if (st != RTCOSIM_OK)
            return simulate_step_failed(r, t, err);
        res->end_time = t;
        res->steps = activations;
        if (t != grid)
            continue;
        if ((st = simulate_record(r, t, t == start || t >= stop, err)) != RTCOSIM_OK)
            return simulate_step_failed(r, t, err);
        for (size_t i = 0; i < se->count; i++)
            se->clocks[i].ticks_at_row = rtcosim_fmu_se_ticks(r->c, i);
        rows++;
        if (t >= stop)
            break;
        if (o->progress && (st = o->progress(o->progress_context, t, err)) != RTCOSIM_OK)
            return simulate_step_failed(r, t, err);
        grid = stop - start < (rtcosim_time_ns)rows * o->output_interval
                   ? stop
                   : start + (rtcosim_time_ns)rows * o->output_interval;
    }
    rtcosim_se_stats stats;
    if (rtcosim_fmu_se_stats(r->c, &stats, NULL) == RTCOSIM_OK)
        rtcosim_log(RTCOSIM_LOG_DEBUG, "simulate",
                    "%s: %" PRIu64 " partition activations, %" PRIu64 " clock updates, %" PRIu64
                    " preemption locks", r->label, stats.activations, stats.clock_updates,
                    stats.preemption_locks);
    log_partitions(r);
    return RTCOSIM_OK;
}
