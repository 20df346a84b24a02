/* `rtcosim simulate --interface-type se`: the scheduler of an FMI 3.0 FMU in
 * scheduled execution (FMI 3.0 chapter 5). Time advances from one clock
 * instant to the next: periodic input clocks tick at start + shift + k *
 * interval, triggered ones where their --input-file column holds 1, countdown
 * ones when the FMU announced an interval (clockUpdate, then
 * fmi3GetIntervalDecimal qualifiers). At an instant the due partitions run in
 * priority order (smaller value first, section 2.4.7.3), each after its
 * clocked inputs are set; output clocks are read once after each clockUpdate
 * (they reset when read, section 5.2.3). Rows are written on the output grid;
 * the row at t shows the outputs after every partition ticking at t ran, and
 * a clocked output is read only after one of its clocks ticked. */
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
    rtcosim_time_ns interval;        /* periodic: the current interval */
    rtcosim_time_ns next;            /* the next tick; NEVER: none due */
    rtcosim_time_ns last_activation; /* at most one activation per time (5.2.2) */
    ptrdiff_t column;                /* triggered input: its CSV column, else -1 */
    size_t row;                      /* triggered input: next CSV row to look at */
    bool due;
    bool ticked_since_row;           /* the Clock column of the next row */
    uint64_t ticks;
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
    uint32_t *out_vrs; /* output clocks, read in one fmi3GetClock */
    size_t *out_index;
    bool *out_values;
    size_t out_count;
    se_input *inputs;
    size_t input_count;
    se_output *outputs; /* parallel to r->recorded */
    unsigned char value[64];
};

static size_t variable_index(const run *r, const rtcosim_variable *v)
{
    return (size_t)(v - rtcosim_component_variable(r->c, 0));
}

static const char *clock_name(const se_clock *c)
{
    return c->v->name;
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
    se->out_vrs = calloc(k->clock_count + 1, sizeof *se->out_vrs);
    se->out_index = calloc(k->clock_count + 1, sizeof *se->out_index);
    se->out_values = calloc(k->clock_count + 1, sizeof *se->out_values);
    se->outputs = calloc(r->recorded_count + 1, sizeof *se->outputs);
    const rtcosim_csv *table = r->o->input;
    size_t columns = table ? rtcosim_csv_column_count(table) : 0;
    se->inputs = calloc(columns + 1, sizeof *se->inputs);
    if (!se->clocks || !se->out_vrs || !se->out_index || !se->out_values || !se->outputs ||
        !se->inputs)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory setting up the run");
    for (size_t i = 0; i < k->clock_count; i++) {
        se_clock *c = &se->clocks[i];
        c->decl = &k->clocks[i];
        c->v = rtcosim_component_variable(r->c, c->decl->variable);
        c->input = c->v->causality == RTCOSIM_CAUSALITY_INPUT;
        c->next = NEVER;
        c->last_activation = INT64_MIN;
        c->column = -1;
        if (c->v->causality == RTCOSIM_CAUSALITY_OUTPUT) {
            se->out_vrs[se->out_count] = c->v->value_reference;
            se->out_index[se->out_count++] = i;
        }
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
    free(se->out_vrs);
    free(se->out_index);
    free(se->out_values);
    free(se->inputs);
    free(se->outputs);
    free(se);
    r->se = NULL;
}

static rtcosim_status to_ns(run *r, const se_clock *c, const char *what, double seconds,
                            bool zero_ok, rtcosim_time_ns *out, rtcosim_error *err)
{
    if (!(seconds > 0 || (zero_ok && seconds == 0)) ||
        rtcosim_time_from_seconds(seconds, out, NULL) != RTCOSIM_OK)
        return rtcosim_error_set(err, RTCOSIM_ECOMPONENT,
                                 "%s: clock '%s': %s %g s must be %s (FMI 3.0 section 2.2.8)",
                                 r->label, clock_name(c), what, seconds,
                                 zero_ok ? "at least 0" : "greater than 0");
    return RTCOSIM_OK;
}

static bool is_periodic(rtcosim_fmi_clock_kind kind)
{
    return kind == RTCOSIM_FMI_CLOCK_CONSTANT || kind == RTCOSIM_FMI_CLOCK_FIXED ||
           kind == RTCOSIM_FMI_CLOCK_TUNABLE;
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

/* Periodic intervals and shifts (from the description, else asked of the
 * FMU, section 2.2.8's table), countdown intervals known at the start. */
rtcosim_status simulate_se_init(run *r, rtcosim_error *err)
{
    struct se_run *se = r->se;
    rtcosim_time_ns start = r->o->start_time;
    for (size_t i = 0; i < se->count; i++) {
        se_clock *c = &se->clocks[i];
        if (!c->input)
            continue;
        rtcosim_fmi_clock_kind kind = c->decl->kind;
        rtcosim_status st = RTCOSIM_OK;
        double interval = c->decl->interval, shift = c->decl->shift;
        rtcosim_interval_qualifier q = RTCOSIM_INTERVAL_CHANGED;
        if (is_periodic(kind) || kind == RTCOSIM_FMI_CLOCK_CHANGING ||
            kind == RTCOSIM_FMI_CLOCK_COUNTDOWN) {
            if (!c->decl->has_interval) {
                st = rtcosim_fmu_get_interval(r->c, i, &interval, &q, err);
                if (st == RTCOSIM_OK && is_periodic(kind))
                    st = rtcosim_fmu_get_shift(r->c, i, &shift, err);
                if (st != RTCOSIM_OK)
                    return st;
            }
            if (q == RTCOSIM_INTERVAL_NOT_YET_KNOWN) {
                if (is_periodic(kind))
                    return rtcosim_error_set(err, RTCOSIM_ECOMPONENT,
                                             "%s: clock '%s': a %s clock's interval is neither "
                                             "declared nor known to the FMU in Initialization "
                                             "Mode (FMI 3.0 section 2.2.8)",
                                             r->label, clock_name(c),
                                             rtcosim_fmi_clock_kind_name(kind));
                continue; /* changing/countdown: not yet */
            }
            rtcosim_time_ns shift_ns = 0;
            if ((st = to_ns(r, c, "interval", interval, kind == RTCOSIM_FMI_CLOCK_COUNTDOWN,
                            &c->interval, err)) != RTCOSIM_OK ||
                (st = to_ns(r, c, "shift", shift, true, &shift_ns, err)) != RTCOSIM_OK)
                return st;
            c->next = start + (is_periodic(kind) ? shift_ns : c->interval);
        }
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
            r->row[i].b = ci >= 0 && se->clocks[ci].ticked_since_row;
            continue;
        }
        uint64_t ticks = 0;
        for (size_t j = 0; j < out->clock_count; j++)
            ticks += se->clocks[out->clocks[j]].ticks;
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
    double x = in->linear ? rtcosim_csv_cursor_linear(&r->cursor, in->column)
                          : rtcosim_csv_cursor_hold(&r->cursor, in->column);
    memset(se->value, 0, sizeof se->value);
    switch (in->v->type) {
    case RTCOSIM_TYPE_FLOAT64: memcpy(se->value, &x, sizeof x); break;
    case RTCOSIM_TYPE_FLOAT32: { float f = (float)x; memcpy(se->value, &f, sizeof f); break; }
    case RTCOSIM_TYPE_INT8: { int8_t i = (int8_t)x; memcpy(se->value, &i, sizeof i); break; }
    case RTCOSIM_TYPE_UINT8: { uint8_t i = (uint8_t)x; memcpy(se->value, &i, sizeof i); break; }
    case RTCOSIM_TYPE_INT16: { int16_t i = (int16_t)x; memcpy(se->value, &i, sizeof i); break; }
    case RTCOSIM_TYPE_UINT16: { uint16_t i = (uint16_t)x; memcpy(se->value, &i, sizeof i); break; }
    case RTCOSIM_TYPE_INT32: { int32_t i = (int32_t)x; memcpy(se->value, &i, sizeof i); break; }
    case RTCOSIM_TYPE_UINT32: { uint32_t i = (uint32_t)x; memcpy(se->value, &i, sizeof i); break; }
    case RTCOSIM_TYPE_INT64: { int64_t i = (int64_t)x; memcpy(se->value, &i, sizeof i); break; }
    case RTCOSIM_TYPE_UINT64: { uint64_t i = (uint64_t)x; memcpy(se->value, &i, sizeof i); break; }
    default: { bool b = x != 0.0; memcpy(se->value, &b, sizeof b); break; }
    }
    return rtcosim_component_set(r->c, in->v->type, &in->v->value_reference, 1, se->value, err);
}

static bool belongs(const size_t *clocks, size_t n, size_t clock)
{
    for (size_t j = 0; j < n; j++)
        if (clocks[j] == clock)
            return true;
    return false;
}

/* After a clockUpdate (section 5.2.3): every output clock once (a read
 * resets it), every countdown clock's interval; a zero interval ticks at
 * this instant, after the partitions of higher priority. */
static rtcosim_status clock_update(run *r, rtcosim_time_ns t, rtcosim_error *err)
{
    struct se_run *se = r->se;
    if (se->out_count) {
        rtcosim_status st = rtcosim_component_get(r->c, RTCOSIM_TYPE_CLOCK, se->out_vrs,
                                                  se->out_count, se->out_values, err);
        if (st != RTCOSIM_OK)
            return st;
        for (size_t j = 0; j < se->out_count; j++)
            if (se->out_values[j]) {
                se_clock *c = &se->clocks[se->out_index[j]];
                c->ticks++;
                c->ticked_since_row = true;
            }
    }
    for (size_t i = 0; i < se->count; i++) {
        se_clock *c = &se->clocks[i];
        if (!c->input || c->decl->kind != RTCOSIM_FMI_CLOCK_COUNTDOWN)
            continue;
        double interval;
        rtcosim_interval_qualifier q;
        rtcosim_status st = rtcosim_fmu_get_interval(r->c, i, &interval, &q, err);
        if (st != RTCOSIM_OK)
            return st;
        if (q != RTCOSIM_INTERVAL_CHANGED)
            continue;
        if ((st = to_ns(r, c, "countdown interval", interval, true, &c->interval, err)))
            return st;
        c->next = t + c->interval;
        if (c->next == t && c->last_activation == t)
            /* Section 5.2.2: one activation per clock and time. */
            return rtcosim_error_set(err, RTCOSIM_ECOMPONENT,
                                     "%s: clock '%s': countdown interval 0 at a time it already "
                                     "ticked (FMI 3.0 section 5.2.2)",
                                     r->label, clock_name(c));
        if (c->next == t)
            c->due = true;
    }
    return RTCOSIM_OK;
}

/* The clock to activate next at this instant: highest priority (smallest
 * value), then the declaration order; -1 when none is due. */
static long next_due(const struct se_run *se)
{
    long best = -1;
    for (size_t i = 0; i < se->count; i++)
        if (se->clocks[i].due &&
            (best < 0 || se->clocks[i].decl->priority < se->clocks[best].decl->priority))
            best = (long)i;
    return best;
}

static rtcosim_status activate(run *r, size_t i, rtcosim_time_ns t, uint64_t *activations,
                               rtcosim_error *err)
{
    struct se_run *se = r->se;
    se_clock *c = &se->clocks[i];
    c->due = false;
    for (size_t j = 0; j < se->input_count; j++)
        if (se->inputs[j].clock_count && belongs(se->inputs[j].clocks, se->inputs[j].clock_count, i)) {
            rtcosim_status st = set_input(r, &se->inputs[j], err);
            if (st != RTCOSIM_OK)
                return st;
        }
    bool update = false;
    rtcosim_status st = rtcosim_fmu_se_activate(r->c, i, t, &update, err);
    if (st != RTCOSIM_OK)
        return st;
    (*activations)++;
    c->last_activation = t;
    c->ticks++;
    c->ticked_since_row = true;
    rtcosim_fmi_clock_kind kind = c->decl->kind;
    if (kind == RTCOSIM_FMI_CLOCK_TUNABLE || kind == RTCOSIM_FMI_CLOCK_CHANGING) {
        /* Their interval may change at each tick (table of section 2.2.8). */
        double interval;
        rtcosim_interval_qualifier q;
        if ((st = rtcosim_fmu_get_interval(r->c, i, &interval, &q, err)) != RTCOSIM_OK)
            return st;
        if (q == RTCOSIM_INTERVAL_CHANGED &&
            (st = to_ns(r, c, "interval", interval, false, &c->interval, err)) != RTCOSIM_OK)
            return st;
        c->next = q == RTCOSIM_INTERVAL_NOT_YET_KNOWN ? NEVER : t + c->interval;
    } else if (is_periodic(kind)) {
        c->next = t + c->interval;
    } else if (kind == RTCOSIM_FMI_CLOCK_COUNTDOWN) {
        c->next = NEVER; /* until the FMU announces the next one */
    }
    return update ? clock_update(r, t, err) : RTCOSIM_OK;
}

/* The earliest row time >= from at which a triggered clock's column is 1. */
static rtcosim_time_ns next_trigger(const run *r, se_clock *c, rtcosim_time_ns from)
{
    const rtcosim_csv *table = r->o->input;
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
    bool any = false;
    for (size_t i = 0; i < se->count; i++) {
        se_clock *c = &se->clocks[i];
        if (!c->input)
            continue;
        if (c->column >= 0 && next_trigger(r, c, t) == t) {
            c->due = true;
            while (c->row < rtcosim_csv_row_count(r->o->input) &&
                   rtcosim_csv_time(r->o->input, c->row) == t)
                c->row++; /* several rows at one time tick it once */
        }
        if (c->next == t)
            c->due = true;
        any |= c->due;
    }
    if (!any)
        return RTCOSIM_OK;
    if (r->o->input) {
        rtcosim_csv_cursor_seek(&r->cursor, t);
        for (size_t j = 0; j < se->input_count; j++)
            if (!se->inputs[j].clock_count) {
                rtcosim_status st = set_input(r, &se->inputs[j], err);
                if (st != RTCOSIM_OK)
                    return st;
            }
    }
    for (long i; (i = next_due(se)) >= 0;) {
        rtcosim_status st = activate(r, (size_t)i, t, activations, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

rtcosim_status simulate_se_loop(run *r, rtcosim_simulate_result *res, rtcosim_error *err)
{
    struct se_run *se = r->se;
    const rtcosim_simulate_options *o = r->o;
    rtcosim_time_ns start = o->start_time, stop = o->stop_time, grid = start;
    uint64_t rows = 0, activations = 0;
    for (;;) {
        rtcosim_time_ns t = grid;
        for (size_t i = 0; i < se->count; i++) {
            se_clock *c = &se->clocks[i];
            if (!c->input)
                continue;
            if (c->next < t)
                t = c->next;
            /* Triggered: the earliest 1 of its column not yet consumed. */
            rtcosim_time_ns trig = c->column >= 0 ? next_trigger(r, c, start) : NEVER;
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
            se->clocks[i].ticked_since_row = false;
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
    return RTCOSIM_OK;
}
