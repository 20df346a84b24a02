/* The single-component run behind `rtcosim simulate`: resolves inputs and
 * outputs once into per-type batches (one set and one get per type and step),
 * then steps from start to stop, recording through the results recorder.
 * Nothing on the step path allocates. */
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv/csv_values.h"
#include "results/result_table.h"
#include "rtcosim/fmu.h"
#include "rtcosim/fmu_clocks.h"
#include "rtcosim/isolate.h"
#include "rtcosim/log.h"
#include "rtcosim/results.h"
#include "rtcosim/simulate.h"
#include "simulate/text_inputs.h"
#include "simulate/simulate_internal.h"

void simulate_load_value(rtcosim_type type, const unsigned char *slot, rtcosim_value *v)
{
    switch (type) {
    case RTCOSIM_TYPE_FLOAT64: memcpy(&v->f64, slot, sizeof v->f64); break;
    case RTCOSIM_TYPE_FLOAT32: memcpy(&v->f32, slot, sizeof v->f32); break;
    case RTCOSIM_TYPE_INT8: v->i64 = *(const int8_t *)slot; break;
    case RTCOSIM_TYPE_UINT8: v->u64 = *(const uint8_t *)slot; break;
    case RTCOSIM_TYPE_INT16: { int16_t x; memcpy(&x, slot, sizeof x); v->i64 = x; break; }
    case RTCOSIM_TYPE_UINT16: { uint16_t x; memcpy(&x, slot, sizeof x); v->u64 = x; break; }
    case RTCOSIM_TYPE_INT32: { int32_t x; memcpy(&x, slot, sizeof x); v->i64 = x; break; }
    case RTCOSIM_TYPE_UINT32: { uint32_t x; memcpy(&x, slot, sizeof x); v->u64 = x; break; }
    case RTCOSIM_TYPE_INT64: memcpy(&v->i64, slot, sizeof v->i64); break;
    case RTCOSIM_TYPE_UINT64: memcpy(&v->u64, slot, sizeof v->u64); break;
    case RTCOSIM_TYPE_BOOLEAN:
    case RTCOSIM_TYPE_CLOCK: memcpy(&v->b, slot, sizeof v->b); break;
    case RTCOSIM_TYPE_STRING: memcpy(&v->s, slot, sizeof v->s); break;
    default: memcpy(&v->bin, slot, sizeof v->bin); break;
    }
}

/* The FMU facts of an FMU, in this process or isolated. */
static const rtcosim_fmu_info *fmu_info(const rtcosim_component *c)
{
    const rtcosim_fmu_info *info = rtcosim_fmu_info_of(c);
    return info ? info : rtcosim_isolate_fmu_info(c);
}

/* Whether one of names[0..i) selects v: its own name (or its array's), or a
 * pattern matching it. */
static bool selected_before(const rtcosim_component *c, const char *const *names, size_t i,
                            const rtcosim_variable *v)
{
    for (size_t j = 0; j < i; j++) {
        size_t elements;
        const rtcosim_variable *first = simulate_start_targets(c, names[j], &elements);
        if (first ? v >= first && v < first + elements : result_select_matches(names[j], v->name))
            return true;
    }
    return false;
}

/* v as the n-th output (when there is room) unless names[0..i) took it:
 * each variable once, however it is named. The count after it. */
static size_t add_output(const rtcosim_component *c, const char *const *names, size_t i,
                         const rtcosim_variable *v, const rtcosim_variable **out, size_t capacity,
                         size_t n)
{
    if (selected_before(c, names, i, v))
        return n;
    if (n < capacity)
        out[n] = v;
    return n + 1;
}

rtcosim_status rtcosim_simulate_outputs(const rtcosim_component *c, const char *const *names,
                                        size_t count, const rtcosim_variable **out,
                                        size_t capacity, size_t *found, rtcosim_error *err)
{
    size_t n = 0;
    if (count > 0) {
        for (size_t i = 0; i < count; i++) {
            size_t elements; /* a whole FMI 3.0 array records each element */
            const rtcosim_variable *v = simulate_start_targets(c, names[i], &elements);
            if (!v && result_name_is_pattern(names[i])) {
                /* every variable the pattern matches (array elements by
                 * their names; not time), in the model's order */
                size_t matched = 0;
                for (size_t k = 0; k < rtcosim_component_variable_count(c); k++) {
                    const rtcosim_variable *m = rtcosim_component_variable(c, k);
                    if (m->causality == RTCOSIM_CAUSALITY_INDEPENDENT ||
                        fnmatch(names[i], m->name, 0) != 0)
                        continue; /* (time is the first column already) */
                    matched++;
                    n = add_output(c, names, i, m, out, capacity, n);
                }
                if (!matched)
                    return rtcosim_error_set(err, RTCOSIM_ENOTFOUND,
                                             "output variable '%s': no variable of model '%s' "
                                             "matches it", names[i], rtcosim_component_model_name(c));
                continue;
            }
            if (!v)
                return rtcosim_error_set(err, RTCOSIM_ENOTFOUND,
                                         "output variable '%s': model '%s' has no such variable%s%s%s",
                                         names[i], rtcosim_component_model_name(c),
                                         SUGGEST(rtcosim_component_nearest_variable(c, names[i])));
            for (size_t e = 0; e < elements; e++)
                n = add_output(c, names, i, &v[e], out, capacity, n);
        }
    } else if (fmu_info(c) && fmu_info(c)->output_count > 0) {
        /* FMUs, isolated too: ModelStructure outputs, in the order the FMU
         * lists them (an output that aliases another's reference is not one
         * of them, as in fmusim) */
        const rtcosim_fmu_info *info = fmu_info(c);
        for (size_t i = 0; i < info->output_count; i++) {
            const rtcosim_variable *v = rtcosim_component_variable(c, info->output_indices[i]);
            if (!v)
                continue;
            if (n < capacity)
                out[n] = v;
            n++;
        }
    } else {
        for (size_t i = 0; i < rtcosim_component_variable_count(c); i++) {
            const rtcosim_variable *v = rtcosim_component_variable(c, i);
            if (v->causality != RTCOSIM_CAUSALITY_OUTPUT)
                continue;
            if (n < capacity)
                out[n] = v;
            n++;
        }
    }
    *found = n;
    return RTCOSIM_OK;
}

batch *simulate_batch_for(batch *batches, size_t *batch_count, rtcosim_type type)
{
    for (size_t i = 0; i < *batch_count; i++)
        if (batches[i].type == type)
            return &batches[i];
    batch *b = &batches[(*batch_count)++];
    b->type = type;
    return b;
}

/* Allocate the arrays of batches whose counts are known. */
rtcosim_status simulate_allocate_batches(batch *batches, size_t batch_count, bool inputs,
                                       rtcosim_error *err)
{
    for (size_t i = 0; i < batch_count; i++) {
        batch *b = &batches[i];
        b->vrs = calloc(b->count, sizeof *b->vrs);
        b->values = calloc(b->count, rtcosim_type_size(b->type));
        b->column = calloc(b->count, sizeof *b->column);
        b->linear = inputs ? calloc(b->count, sizeof *b->linear) : NULL;
        if (!b->vrs || !b->values || !b->column || (inputs && !b->linear))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory setting up the run");
        b->count = 0; /* refilled by the caller */
    }
    return RTCOSIM_OK;
}

static rtcosim_status setup_outputs(run *r, rtcosim_error *err)
{
    const rtcosim_simulate_options *o = r->o;
    size_t n = 0;
    rtcosim_status st = rtcosim_simulate_outputs(r->c, o->output_variables, o->output_variable_count,
                                                 NULL, 0, &n, err);
    if (st != RTCOSIM_OK)
        return st;
    r->recorded = calloc(n + 1, sizeof *r->recorded);
    r->row = calloc(n + 1, sizeof *r->row);
    rtcosim_column *columns = calloc(n + 1, sizeof *columns);
    if (!r->recorded || !r->row || !columns) {
        free(columns);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory setting up the run");
    }
    rtcosim_simulate_outputs(r->c, o->output_variables, o->output_variable_count, r->recorded, n,
                             &r->recorded_count, NULL);
    for (size_t i = 0; i < n; i++)
        simulate_batch_for(r->outputs, &r->output_batch_count, r->recorded[i]->type)->count++;
    st = simulate_allocate_batches(r->outputs, r->output_batch_count, false, err);
    for (size_t i = 0; st == RTCOSIM_OK && i < n; i++) {
        batch *b = simulate_batch_for(r->outputs, &r->output_batch_count, r->recorded[i]->type);
        b->vrs[b->count] = r->recorded[i]->value_reference;
        b->column[b->count++] = i;
        columns[i] = rtcosim_column_of(r->recorded[i]->name, r->recorded[i]);
    }
    r->clock_time = -1;
    for (size_t i = 0; i < r->output_batch_count; i++)
        if (r->outputs[i].type == RTCOSIM_TYPE_CLOCK)
            r->clock_outputs = &r->outputs[i];
    if (st == RTCOSIM_OK && o->output_file) {
        rtcosim_recorder_options ro = {.path = o->output_file, .columns = columns, .column_count = n,
                                       .record_every = o->record_every,
                                       .writer_thread = o->writer_thread,
                                       .whole_text = true, /* (offline: nothing cut) */
                                       .csv_units = o->csv_units,
                                       .buffer_bytes = 1024 * 1024};
        st = rtcosim_recorder_open(&ro, &r->recorder, err);
    }
    free(columns);
    return st;
}

/* A model-exchange FMU's event (rtcosim_me_event_observer): the row before
 * it, and the row after it unless the loop's row at that time follows, as
 * fmusim and FMPy record events. */
static rtcosim_status me_event_row(void *context, double time, bool after, rtcosim_error *err)
{
    run *r = context;
    rtcosim_time_ns t;
    if (rtcosim_time_from_seconds(time, &t, NULL) != RTCOSIM_OK || t > r->row_due)
        t = r->row_due;
    if (!after)
        r->me_events++;
    if (r->o->no_event_rows || (after && t >= r->row_due))
        return RTCOSIM_OK;
    return simulate_record(r, t, true, err);
}

/* A get of a batch failed (Error): FMUs exported by some tools refuse
 * fmi3Get* of inputs or structural parameters, which importers such as
 * fmusim then do not record. Get each variable alone; an input or structural
 * parameter the FMU refuses leaves the batch (a warning, its column empty from
 * now on); any other refusal stays the error it was. Runs once per refused
 * variable, never on the steps after. */
static rtcosim_status drop_refused(run *r, batch *b, rtcosim_error *err)
{
    rtcosim_status first = RTCOSIM_ECOMPONENT;
    bool dropped = false;
    size_t size = rtcosim_type_size(b->type);
    for (size_t k = 0; k < b->count;) {
        rtcosim_error own = {0};
        const rtcosim_variable *v = r->recorded[b->column[k]];
        bool lenient = v->causality == RTCOSIM_CAUSALITY_INPUT ||
                       v->causality == RTCOSIM_CAUSALITY_STRUCTURAL_PARAMETER;
        rtcosim_status st = (lenient ? rtcosim_component_try_get : rtcosim_component_get)(
            r->c, b->type, &b->vrs[k], 1, b->values + k * size, &own);
        if (st == RTCOSIM_OK) {
            k++;
            continue;
        }
        if (!lenient || st != RTCOSIM_ECOMPONENT)
            return rtcosim_error_set(err, st, "%s", own.message);
        rtcosim_log(RTCOSIM_LOG_WARNING, "simulate",
                    "%s: the FMU refuses to give %s '%s' (%s); it is not recorded from here on",
                    r->label,
                    v->causality == RTCOSIM_CAUSALITY_INPUT ? "input" : "structural parameter",
                    v->name, own.message);
        if (r->recorder)
            rtcosim_recorder_omit_column(r->recorder, b->column[k]);
        b->count--;
        b->vrs[k] = b->vrs[b->count];
        b->column[k] = b->column[b->count];
        dropped = true;
    }
    if (!dropped)
        return first;
    rtcosim_error_clear(err);
    return RTCOSIM_OK;
}

/* Get every recorded variable into r->row (one get per type); output
 * clocks from the event iteration at t, never read here. */
static rtcosim_status gather_row(run *r, rtcosim_time_ns t, rtcosim_error *err)
{
    if (r->se)
        return simulate_se_gather(r, err); /* clocked values only when their clock ticked */
    for (size_t i = 0; i < r->output_batch_count; i++) {
        batch *b = &r->outputs[i];
        if (b == r->clock_outputs) {
            for (size_t k = 0; k < b->count; k++)
                r->row[b->column[k]].b = t == r->clock_time && ((const bool *)b->values)[k];
            continue;
        }
        rtcosim_status st = rtcosim_component_try_get(r->c, b->type, b->vrs, b->count, b->values, err);
        if (st == RTCOSIM_ECOMPONENT && (st = drop_refused(r, b, err)) == RTCOSIM_OK)
            st = rtcosim_component_get(r->c, b->type, b->vrs, b->count, b->values, err);
        if (st != RTCOSIM_OK)
            return st;
        size_t size = rtcosim_type_size(b->type);
        for (size_t k = 0; k < b->count; k++)
            simulate_load_value(b->type, b->values + k * size, &r->row[b->column[k]]);
    }
    return RTCOSIM_OK;
}

rtcosim_status simulate_record(run *r, rtcosim_time_ns t, bool always, rtcosim_error *err)
{
    /* Without a file or row hook only the final values are of interest;
     * without a file the row hook gets the rows the recorder would keep. */
    bool wanted;
    if (r->recorder)
        wanted = rtcosim_recorder_wants_row(r->recorder);
    else
        wanted = r->o->on_row &&
                 r->rows_offered++ % (r->o->record_every > 1 ? r->o->record_every : 1) == 0;
    if (!wanted && !always) {
        if (r->recorder)
            rtcosim_recorder_push_row(r->recorder, t, NULL, err); /* counted, not kept */
        return RTCOSIM_OK;
    }
    rtcosim_status st = gather_row(r, t, err);
    if (st != RTCOSIM_OK)
        return st;
    r->have_row = true;
    r->last_row_time = t;
    if (r->o->on_row &&
        (st = r->o->on_row(r->o->row_context, t, r->row, r->recorded_count, err)) != RTCOSIM_OK)
        return st;
    if (!r->recorder)
        return RTCOSIM_OK;
    return wanted ? rtcosim_recorder_push_row(r->recorder, t, r->row, err)
                  : rtcosim_recorder_push_row_always(r->recorder, t, r->row, err);
}

void rtcosim_simulate_defaults(const rtcosim_component *c, rtcosim_simulate_options *o)
{
    const rtcosim_component_desc *d = rtcosim_component_description(c);
    if (o->start_time == RTCOSIM_SIMULATE_UNSET)
        o->start_time = d->has_default_start ? d->default_start : 0;
    if (o->stop_time == RTCOSIM_SIMULATE_UNSET)
        o->stop_time = d->has_default_stop ? d->default_stop : o->start_time + RTCOSIM_NS_PER_S;
    if (o->output_interval == RTCOSIM_SIMULATE_UNSET) {
        if (d->has_default_step && d->default_step > 0)
            o->output_interval = d->default_step;
        else if (o->stop_time > o->start_time && (o->stop_time - o->start_time) / 500 > 0)
            o->output_interval = (o->stop_time - o->start_time) / 500;
        else
            o->output_interval = RTCOSIM_NS_PER_S;
    }
    if (o->tolerance < 0)
        o->tolerance = d->has_default_tolerance ? d->default_tolerance : 0.0;
}

/* Everything that can be checked before the component is instantiated. */
static rtcosim_status check_options(run *r, rtcosim_error *err)
{
    const rtcosim_simulate_options *o = r->o;
    if (o->output_interval <= 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: output interval must be positive", r->label);
    if (o->stop_time < o->start_time)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: stop time is before start time", r->label);
    return simulate_check_start_values(r->c, o, err);
}

rtcosim_status simulate_step_failed(run *r, rtcosim_time_ns t, rtcosim_error *err)
{
    char when[RTCOSIM_FORMAT_MAX];
    rtcosim_format_time(t, when);
    return rtcosim_error_prefix(err, "%s: simulation stopped at t = %s s: ", r->label, when);
}

/* A discarded step whose component asks to end the run (FMI 2.0 section
 * 4.2.3: fmi2DoStep returns fmi2Discard and fmi2GetBooleanStatus
 * (fmi2Terminated) is true; FMI 3.0 section 4.2.1: fmi3DoStep returns
 * fmi3Discard with terminateSimulation): the run ends normally at the last
 * successful time, as fmusim does, with a final row there unless the row at
 * that time is already written. Without the terminate request a discarded
 * step stays an error: this single-component run cannot retry it. */
static rtcosim_status end_on_discard(run *r, rtcosim_time_ns t, rtcosim_time_ns h,
                                     const rtcosim_step_result *sr,
                                     rtcosim_simulate_result *res, rtcosim_error *err)
{
    rtcosim_time_ns last = sr->last_successful_time;
    if (last < t || last > t + h)
        last = t;
    rtcosim_log(RTCOSIM_LOG_DEBUG, "simulate", "%s: discarded step at t = %.9g s: %s", r->label,
                rtcosim_time_to_seconds(t), err ? err->message : "");
    if (!(r->have_row && r->last_row_time == last)) {
        rtcosim_status st = simulate_record(r, last, true, err);
        if (st != RTCOSIM_OK)
            return simulate_step_failed(r, last, err);
    }
    res->end_time = last;
    res->terminated_by_component = true;
    res->terminated_on_discard = true;
    return RTCOSIM_OK;
}

/* The event iteration of the single component (FMI 3.0 section 4.2.2):
 * fmi3UpdateDiscreteStates until nothing needs an update, then step mode.
 * *next_event: the time it announced (-1: none; a time at or before now is
 * none, the announcement being a bound for the next step's end). Out of
 * line: the plain step loop stays small. */
static __attribute__((noinline)) rtcosim_status
handle_event(run *r, rtcosim_time_ns t, rtcosim_time_ns *next_event, bool *terminate,
             rtcosim_error *err)
{
    rtcosim_event_update u;
    rtcosim_status st = RTCOSIM_OK;
    /* The recorded output clocks in Event Mode (section 2.2.8), in FMI 3.0's
     * order before fmi3UpdateDiscreteStates, which deactivates them; and,
     * lenient, those the update itself ticked (a read resets a clock: a
     * tick is seen once either way). */
    batch *b = r->clock_outputs;
    if (b) {
        if (!rtcosim_component_in_event_mode(r->c))
            st = rtcosim_component_enter_event_mode(r->c, err);
        if (st == RTCOSIM_OK)
            st = rtcosim_component_get(r->c, RTCOSIM_TYPE_CLOCK, b->vrs, b->count, b->values,
                                       err);
        r->clock_time = t;
    }
    if (st == RTCOSIM_OK)
        st = rtcosim_component_settle_events(r->c, RTCOSIM_EVENT_ITERATION_LIMIT, &u, err);
    for (size_t k = 0; st == RTCOSIM_OK && b && k < b->count; k++) {
        bool ticked = false;
        st = rtcosim_component_get(r->c, RTCOSIM_TYPE_CLOCK, &b->vrs[k], 1, &ticked, err);
        ((bool *)b->values)[k] |= ticked;
    }
    if (st == RTCOSIM_OK && !u.terminate_requested)
        st = rtcosim_component_enter_step_mode(r->c, err);
    if (st != RTCOSIM_OK)
        return simulate_step_failed(r, t, err);
    *terminate = u.terminate_requested;
    *next_event = u.next_event_time_defined && u.next_event_time > t ? u.next_event_time : -1;
    return RTCOSIM_OK;
}

/* No step ends past it: the stop time, the next event time the FMU
 * announced or the next input event. */
static rtcosim_time_ns event_limit(const run *r, rtcosim_time_ns next_event, rtcosim_time_ns t)
{
    rtcosim_time_ns limit = r->o->stop_time;
    if (next_event > t && next_event < limit)
        limit = next_event;
    if (r->next_input_event > t && r->next_input_event < limit)
        limit = r->next_input_event;
    return limit;
}

/* A step that ended at an event (Event Mode): the row before it, the
 * iteration; the caller's next row at t holds the values after it, as
 * fmusim's FMI3CSSimulation records them with --event-mode-used. */
static __attribute__((noinline)) rtcosim_status
event_after_step(run *r, rtcosim_time_ns t, rtcosim_time_ns *next_event, bool *terminate,
                 rtcosim_simulate_result *res, rtcosim_error *err)
{
    rtcosim_status st = simulate_record(r, t, true, err);
    if (st != RTCOSIM_OK)
        return simulate_step_failed(r, t, err);
    /* An input event: the inputs after it are set in Event Mode, before
     * the iteration (fmusim: FMIApplyInput(..., afterEvent = true)). */
    if (t == r->next_input_event) {
        if ((st = rtcosim_component_enter_event_mode(r->c, err)) != RTCOSIM_OK ||
            (st = simulate_apply_inputs(r, t, true, err)) != RTCOSIM_OK)
            return simulate_step_failed(r, t, err);
        r->next_input_event = simulate_next_input_event(r, t);
    }
    if ((st = handle_event(r, t, next_event, terminate, err)) != RTCOSIM_OK)
        return st;
    res->events++;
    if (*terminate)
        res->terminated_by_component = t < r->o->stop_time;
    return RTCOSIM_OK;
}

/* At each communication point: record, set the inputs at t, step (model
 * exchange: inputs, then the row; see the loop). The inputs at the start
 * time were set in initialization.
 * A step ends at the next point of the output grid start + k * interval (as
 * fmusim counts them, so that an early return does not shift the grid), the
 * stop time, or, with Event Mode, an announced time event before them (FMI
 * 3.0 section 4.2.2: the importer steps no further than nextEventTime). */
static rtcosim_status step_loop(run *r, rtcosim_simulate_result *res, rtcosim_error *err)
{
    const rtcosim_simulate_options *o = r->o;
    rtcosim_time_ns t = o->start_time, stop = o->stop_time, interval = o->output_interval;
    const bool events = rtcosim_component_capabilities(r->c)->event_mode_used;
    /* Steps end at events only where the FMU takes any step size (as
     * fmusim shortens them): at the time events it announces (Event Mode)
     * and at input events (with or without it, as fmusim's
     * FMI2/FMI3CSSimulation; model exchange always, its integrator taking
     * any step, as fmusim's FMI2/FMI3MESimulation). */
    const bool variable = rtcosim_component_capabilities(r->c)->can_handle_variable_step;
    const bool shorten = events && variable;
    const bool input_events = variable || r->me || r->me_isolated;
    r->discrete_in_event_mode = events;
    r->next_input_event = input_events ? simulate_next_input_event(r, t) : -1;
    rtcosim_time_ns next_event = -1; /* announced by the FMU; -1: none */
    rtcosim_time_ns limit = stop;    /* no step ends past it: stop or the next event */
    bool terminate = false;
    /* Section 4.2.2: with eventModeUsed the FMU leaves initialization in
     * Event Mode; the first iteration runs before the first row. */
    rtcosim_status st;
    if (events && rtcosim_component_in_event_mode(r->c)) {
        rtcosim_time_ns announced;
        bool ends;
        if ((st = handle_event(r, t, &announced, &ends, err)) != RTCOSIM_OK)
            return st;
        next_event = announced;
        terminate = ends;
    }
    if (input_events) /* shorten implies it */
        limit = event_limit(r, next_event, t);
    rtcosim_time_ns grid; /* the next point of the output grid; saturates */
    if (__builtin_add_overflow(t, interval, &grid))
        grid = RTCOSIM_TIME_MAX;
    unsigned standstill = 0; /* early returns in a row that did not advance */
    for (;;) {
        r->row_due = t;
        bool last = t >= stop || terminate;
        /* Co-simulation: the row right after the step, then the inputs at
         * t for the next one (fmusim's FMI2/FMI3CSSimulation and FMPy's
         * simulateCS sample before they apply: a direct-feedthrough output
         * shows the input of the step's start). Model exchange: the inputs
         * at t, then the row (fmusim and FMPy apply the continuous inputs
         * where the solver stopped, then sample). */
        if (!r->inputs_first &&
            (st = simulate_record(r, t, t == o->start_time || last, err)) != RTCOSIM_OK)
            return simulate_step_failed(r, t, err);
        if (t <= o->start_time || (last && !r->inputs_first))
            st = RTCOSIM_OK;
        else if ((r->me || r->me_isolated) && t == r->next_input_event)
            st = simulate_apply_input_event(r, t, err);
        else
            st = simulate_apply_inputs(r, t, !r->discrete_in_event_mode, err);
        if (st == RTCOSIM_OK && r->inputs_first)
            st = simulate_record(r, t, t == o->start_time || last, err);
        if (st != RTCOSIM_OK)
            return simulate_step_failed(r, t, err);
        if (!events && t == r->next_input_event) {
            r->next_input_event = simulate_next_input_event(r, t);
            limit = event_limit(r, next_event, t);
        }
        if (last)
            break;
        rtcosim_time_ns end = grid < limit ? grid : limit, h = end - t;
        rtcosim_step_result sr;
        r->row_due = end;
        r->step_from = t;
        st = rtcosim_component_do_step(r->c, t, h, &sr, err);
        if (st == RTCOSIM_EDISCARD && sr.terminate_requested)
            return end_on_discard(r, t, h, &sr, res, err);
        if (st == RTCOSIM_EDISCARD && err) {
            /* Retrying with a smaller step would need rollback; fmusim
             * would repeat the step from the last successful time forever. */
            char message[RTCOSIM_ERROR_MESSAGE_MAX];
            snprintf(message, sizeof message, "%s", err->message);
            rtcosim_error_set(err, st, "%.*s (without asking to terminate; a discarded step is "
                                       "not retried)", (int)(sizeof message - 80), message);
        }
        if (st != RTCOSIM_OK)
            return simulate_step_failed(r, t, err);
        rtcosim_time_ns next = end;
        if (sr.early_return) {
            /* An early return at the step's start makes progress only
             * through the event it stops for (a bounded number of times). */
            rtcosim_time_ns last_ok = sr.last_successful_time;
            standstill = last_ok == t ? standstill + 1 : 0;
            bool at_start_ok = last_ok == t && events && sr.event_handling_needed &&
                               standstill < 100;
            if ((last_ok <= t && !at_start_ok) || last_ok > end) {
                rtcosim_error_set(err, RTCOSIM_ECOMPONENT,
                                  "returned early to a time outside the step (%" PRId64 " ns)",
                                  last_ok);
                return simulate_step_failed(r, t, err);
            }
            next = last_ok;
        }
        if (next == grid && __builtin_add_overflow(grid, interval, &grid))
            grid = RTCOSIM_TIME_MAX;
        res->steps++;
        t = next;
        res->end_time = t;
        if (sr.terminate_requested) {
            terminate = true;
            res->terminated_by_component = t < stop;
        }
        if (events && !terminate &&
            (sr.event_handling_needed || t == next_event || t == r->next_input_event)) {
            if ((st = event_after_step(r, t, &next_event, &terminate, res, err)) != RTCOSIM_OK)
                return st;
            if (shorten)
                limit = event_limit(r, next_event, t);
        }
        if (o->progress && (st = o->progress(o->progress_context, t, err)) != RTCOSIM_OK) {
            /* Cancelled (e.g. on a signal): the time reached is a row too. */
            rtcosim_error keep = *err;
            if (st == RTCOSIM_ECANCELED && simulate_record(r, t, true, NULL) == RTCOSIM_OK)
                *err = keep;
            return simulate_step_failed(r, t, err);
        }
    }
    return RTCOSIM_OK;
}

static rtcosim_status run_all(run *r, rtcosim_simulate_result *res, rtcosim_error *err)
{
    const rtcosim_simulate_options *o = r->o;
    rtcosim_status st;
    /* the inputs and state files first: a bad one opens no results file
     * (which would replace an earlier run's results with a header) */
    if ((st = check_options(r, err)) != RTCOSIM_OK ||
        (st = simulate_setup_inputs(r, err)) != RTCOSIM_OK ||
        (st = simulate_check_state_files(r, err)) != RTCOSIM_OK ||
        (st = setup_outputs(r, err)) != RTCOSIM_OK)
        return st;
    if (rtcosim_fmu_is_scheduled(r->c) && (st = simulate_se_setup(r, err)) != RTCOSIM_OK)
        return st;
    const char *instance = o->instance_name ? o->instance_name : rtcosim_component_model_name(r->c);
    if ((st = rtcosim_component_instantiate(r->c, instance, err)) != RTCOSIM_OK)
        return st;
    r->label = rtcosim_component_instance_name(r->c);
    res->end_time = o->start_time;
    const rtcosim_fmu_info *info = rtcosim_fmu_info_of(r->c);
    r->me = info && info->interface_type == RTCOSIM_FMI_MODEL_EXCHANGE;
    r->me_isolated = rtcosim_isolate_is_model_exchange(r->c);
    r->inputs_first = r->me || r->me_isolated;
    if (r->inputs_first && ((st = simulate_me_observe(r, me_event_row, err)) != RTCOSIM_OK ||
                            (st = simulate_feed_integrator(r, err)) != RTCOSIM_OK))
        return st;
    if ((st = rtcosim_component_setup(r->c, o->tolerance, o->start_time,
                                      o->stop_time_not_set ? -1 : o->stop_time, err)) != RTCOSIM_OK ||
        (st = simulate_apply_start_values(r->c, r->o, false, err)) != RTCOSIM_OK ||
        (st = rtcosim_component_enter_init(r->c, err)) != RTCOSIM_OK ||
        (st = simulate_apply_start_values(r->c, r->o, true, err)) != RTCOSIM_OK ||
        (st = simulate_apply_inputs(r, o->start_time, true, err)) != RTCOSIM_OK ||
        (r->se && (st = simulate_se_init(r, err)) != RTCOSIM_OK) ||
        (st = rtcosim_component_exit_init(r->c, err)) != RTCOSIM_OK ||
        (st = simulate_restore_state_file(r, err)) != RTCOSIM_OK)
        return st;
    if ((st = r->se ? simulate_se_loop(r, res, err) : step_loop(r, res, err)) != RTCOSIM_OK)
        return st;
    if (o->final_state_file && res->terminated_by_component)
        rtcosim_log(RTCOSIM_LOG_WARNING, "simulate", "%s: no FMU state saved to %s: the FMU "
                    "ended the run", r->label, o->final_state_file);
    else if ((st = simulate_save_state_file(r, err)) != RTCOSIM_OK)
        return st;
    return rtcosim_component_terminate(r->c, err);
}

rtcosim_status rtcosim_simulate(rtcosim_component *c, const rtcosim_simulate_options *o,
                                rtcosim_simulate_result *result, rtcosim_error *err)
{
    rtcosim_simulate_result local = {0};
    rtcosim_simulate_result *res = result ? result : &local;
    rtcosim_value *final_values = res->final_values;
    size_t final_capacity = res->final_capacity;
    memset(res, 0, sizeof *res);
    res->final_values = final_values;
    res->final_capacity = final_capacity;
    if (!c || !o)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "simulate: no component or options given");

    run r = {.c = c, .o = o, .label = rtcosim_component_model_name(c), .input = o->input};
    rtcosim_status st = run_all(&r, res, err);
    res->events += r.me_events;
    if (r.inputs_first) { /* the run is done: nothing is left pointing at it */
        simulate_me_observe(&r, NULL, NULL);
        simulate_me_input_source(&r, NULL, NULL);
    }

    /* Close the file in every case: rows recorded before a failure stay. */
    rtcosim_error close_err;
    rtcosim_recorder_stats stats = {0};
    rtcosim_status close_st = rtcosim_recorder_close(r.recorder, &stats, &close_err);
    if (st == RTCOSIM_OK && close_st != RTCOSIM_OK) {
        st = close_st;
        if (err)
            *err = close_err;
    }
    if (stats.strings_cut)
        rtcosim_log(RTCOSIM_LOG_WARNING, "simulate", "%s: %llu String values were cut to fit the writer ring",
                    o->output_file, (unsigned long long)stats.strings_cut);
    res->rows_written = stats.rows_written;
    res->output_count = r.recorded_count;
    if (r.have_row && res->final_values)
        for (size_t i = 0; i < r.recorded_count && i < res->final_capacity; i++)
            res->final_values[i] = r.row[i];
    for (size_t i = 0; i < RTCOSIM_TYPE_COUNT_; i++) {
        batch *bs[2] = {&r.outputs[i], &r.inputs[i]};
        for (int k = 0; k < 2; k++) {
            free(bs[k]->vrs);
            free(bs[k]->values);
            free(bs[k]->column);
            free(bs[k]->linear);
            free(bs[k]->binary_cells);
            free(bs[k]->binary_bytes);
        }
    }
    simulate_se_free(&r);
    if (r.exact && r.input)
        for (size_t i = 0; i < rtcosim_csv_column_count(r.input); i++)
            free(r.exact[i]);
    free(r.exact);
    rtcosim_csv_free(r.split_input);
    free(r.recorded);
    free(r.row);
    free(r.input_vrs);
    return st;
}
