/* The input table of rtcosim_simulate: its columns checked and resolved
 * into per-type batches, set at the communication points (a jump's values
 * before it, then after it, at an input event), at every time a
 * model-exchange integrator asks, and where the next input event is. */
#include <stdlib.h>
#include <string.h>

#include "csv/csv_values.h"
#include "rtcosim/fmu.h"
#include "rtcosim/isolate.h"
#include "rtcosim/log.h"
#include "simulate/text_inputs.h"
#include "simulate/simulate_internal.h"

/* Whether every value of an input column fits the variable's type; names
 * the first line that does not. */
static rtcosim_status check_input_column(const rtcosim_csv *table, size_t column,
                                         const rtcosim_variable *v, rtcosim_error *err)
{
    switch (v->type) {
    case RTCOSIM_TYPE_CLOCK:
        /* A triggered input clock's column (--interface-type se): 1 ticks it
         * at the row's time, 0 does not. */
        for (size_t r = 0; r < rtcosim_csv_row_count(table); r++) {
            double x = rtcosim_csv_value(table, r, column);
            if (x != 0.0 && x != 1.0) {
                char text[RTCOSIM_FORMAT_MAX];
                rtcosim_format_double(x, text);
                return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                         "%s:%zu: column '%s': %s is not a clock tick (a Clock "
                                         "column holds 0 or 1)",
                                         rtcosim_csv_name(table), rtcosim_csv_line(table, r), v->name,
                                         text);
            }
        }
        return RTCOSIM_OK;
    case RTCOSIM_TYPE_BINARY: return RTCOSIM_OK; /* hex cells, decoded by setup_inputs */
    default: return csv_column_check_type(table, column, v->type, err);
    }
}

rtcosim_status simulate_setup_inputs(run *r, rtcosim_error *err)
{
    if (!r->input)
        return RTCOSIM_OK;
    rtcosim_status split = simulate_split_array_inputs(r->c, r->input, &r->split_input, err);
    if (split != RTCOSIM_OK)
        return split;
    if (r->split_input)
        r->input = r->split_input;
    const rtcosim_csv *table = r->input;
    size_t n = rtcosim_csv_column_count(table);
    const char *file = rtcosim_csv_name(table);
    for (size_t i = 0; i < n; i++) {
        const char *name = rtcosim_csv_column_name(table, i);
        const rtcosim_variable *v = rtcosim_component_find_variable(r->c, name);
        if (!v)
            return rtcosim_error_set(err, RTCOSIM_ENOTFOUND,
                                     "%s: column '%s': model '%s' has no such variable%s%s%s", file,
                                     name, rtcosim_component_model_name(r->c),
                                     SUGGEST(rtcosim_component_nearest_variable(r->c, name)));
        if (v->causality != RTCOSIM_CAUSALITY_INPUT)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: column '%s': variable is not an input (causality %s)",
                                     file, name, rtcosim_causality_name(v->causality));
        rtcosim_status st = RTCOSIM_OK;
        if ((v->type == RTCOSIM_TYPE_INT64 || v->type == RTCOSIM_TYPE_UINT64) &&
            rtcosim_csv_text(table, 0, i)) { /* (a table read with rtcosim_simulate_text_column) */
            if (!r->exact && !(r->exact = calloc(n, sizeof *r->exact)))
                return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory setting up the inputs");
            st = simulate_integer_decode(table, i, v, &r->exact[i], err);
        } else
            st = check_input_column(table, i, v, err);
        if (st == RTCOSIM_OK)
            st = simulate_check_input_range(table, i, simulate_exact_column(r, i), v,
                                            r->o->strict_ranges, err);
        if (st != RTCOSIM_OK)
            return st;
        simulate_batch_for(r->inputs, &r->input_batch_count, v->type)->count++;
    }
    rtcosim_status st = simulate_allocate_batches(r->inputs, r->input_batch_count, true, err);
    if (st == RTCOSIM_OK && !(r->input_vrs = calloc(n + 1, sizeof *r->input_vrs)))
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory setting up the inputs");
    for (size_t i = 0; st == RTCOSIM_OK && i < n; i++) {
        const rtcosim_variable *v = rtcosim_component_find_variable(r->c, rtcosim_csv_column_name(table, i));
        batch *b = simulate_batch_for(r->inputs, &r->input_batch_count, v->type);
        b->vrs[b->count] = v->value_reference;
        b->linear[b->count] = (v->type == RTCOSIM_TYPE_FLOAT64 || v->type == RTCOSIM_TYPE_FLOAT32) &&
                              v->variability == RTCOSIM_VARIABILITY_CONTINUOUS;
        b->column[b->count++] = i;
    }
    batch *bin = NULL;
    for (size_t i = 0; i < r->input_batch_count; i++)
        if (r->inputs[i].type == RTCOSIM_TYPE_BINARY)
            bin = &r->inputs[i];
    if (st == RTCOSIM_OK && bin) {
        const char **names = calloc(bin->count, sizeof *names);
        if (!names)
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory setting up the run");
        for (size_t k = 0; k < bin->count; k++)
            names[k] = rtcosim_csv_column_name(table, bin->column[k]);
        st = simulate_binary_decode(table, bin->column, names, bin->count, &bin->binary_cells,
                                    &bin->binary_bytes, err);
        free(names);
    }
    rtcosim_csv_cursor_init(&r->cursor, table);
    return st;
}

/* Inputs at t; with `discrete` false (Step Mode of an Event Mode run) only
 * the continuous ones, interpolated (a batch holds one type, and a type is
 * continuous or not for all its inputs but Float, whose discrete inputs are
 * then left to Event Mode too). */
static rtcosim_status set_inputs(run *r, bool discrete, rtcosim_error *err)
{
    for (size_t i = 0; i < r->input_batch_count; i++) {
        batch *b = &r->inputs[i];
        if (b->type == RTCOSIM_TYPE_CLOCK)
            continue; /* ticks, not values: simulate_se.c activates them */
        size_t size = rtcosim_type_size(b->type);
        size_t n = 0;
        if (b->type == RTCOSIM_TYPE_BINARY) { /* discrete, held: the last row at or before t */
            if (!discrete)
                continue;
            memcpy(b->values, &b->binary_cells[r->cursor.row * b->count], b->count * size);
            n = b->count;
        }
        for (size_t k = 0; b->type != RTCOSIM_TYPE_BINARY && k < b->count; k++) {
            if (!discrete && !b->linear[k])
                continue;
            simulate_input_value(r, b->type, b->column[k], b->linear[k], b->values + n * size);
            if (!discrete)
                r->input_vrs[n] = b->vrs[k];
            n++;
        }
        if (n == 0)
            continue;
        rtcosim_status st =
            rtcosim_component_set(r->c, b->type, discrete ? b->vrs : r->input_vrs, n, b->values, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

const uint64_t *simulate_exact_column(const run *r, size_t column)
{
    return r->exact ? r->exact[column] : NULL;
}

void simulate_input_value(const run *r, rtcosim_type type, size_t column, bool linear,
                          void *slot)
{
    const uint64_t *exact = simulate_exact_column(r, column);
    if (exact) { /* Int64 or UInt64: the bits as read */
        memcpy(slot, &exact[r->cursor.row], sizeof *exact);
        return;
    }
    double x = linear ? rtcosim_csv_cursor_linear(&r->cursor, column)
                      : rtcosim_csv_cursor_hold(&r->cursor, column);
    csv_store_number(type, x, slot);
}

/* Whether a held input's cell differs between rows i - 1 and i. */
static bool input_changes(const run *r, const batch *b, size_t k, size_t i)
{
    const rtcosim_csv *table = r->input;
    size_t column = b->column[k];
    const uint64_t *exact = simulate_exact_column(r, column);
    if (exact)
        return exact[i] != exact[i - 1];
    if (b->type == RTCOSIM_TYPE_BINARY) { /* (its cells are text: no number to compare) */
        const rtcosim_binary *now = &b->binary_cells[i * b->count + k],
                             *before = &b->binary_cells[(i - 1) * b->count + k];
        return now->size != before->size ||
               (now->size && memcmp(now->data, before->data, now->size) != 0);
    }
    return rtcosim_csv_value(table, i, column) != rtcosim_csv_value(table, i - 1, column);
}

rtcosim_status simulate_apply_inputs(run *r, rtcosim_time_ns t, bool discrete, rtcosim_error *err)
{
    if (!r->input_batch_count)
        return RTCOSIM_OK;
    rtcosim_csv_cursor_seek(&r->cursor, t);
    return set_inputs(r, discrete, err);
}

/* Model exchange at an input event (fmusim's order): the continuous inputs
 * as they reach t from before (a jump's first row), the event (its row
 * before through the observer, Event Mode), all inputs after it; the row
 * after it at t is the loop's. */
rtcosim_status simulate_apply_input_event(run *r, rtcosim_time_ns t, rtcosim_error *err)
{
    rtcosim_csv_cursor_seek_before(&r->cursor, t);
    rtcosim_status st = set_inputs(r, false, err);
    if (st == RTCOSIM_OK)
        st = simulate_me_input_event(r, err);
    return st == RTCOSIM_OK ? simulate_apply_inputs(r, t, true, err) : st;
}

/* Model exchange: the continuous inputs wherever the integrator tells the
 * FMU a time (rtcosim_me_input_source), interpolated as fmusim's CVODE
 * applies them; in a step from a jump onwards its values after it, at the
 * step's end (the next jump) those before it. */
static rtcosim_status me_inputs_at(void *context, double time, rtcosim_error *err)
{
    run *r = context;
    rtcosim_time_ns t;
    if (rtcosim_time_from_seconds(time, &t, NULL) != RTCOSIM_OK)
        return RTCOSIM_OK;
    if (t > r->step_from)
        rtcosim_csv_cursor_seek_before(&r->cursor, t);
    else
        rtcosim_csv_cursor_seek(&r->cursor, t);
    return set_inputs(r, false, err);
}

rtcosim_status simulate_feed_integrator(run *r, rtcosim_error *err)
{
    for (size_t i = 0; i < r->input_batch_count; i++)
        for (size_t k = 0; r->inputs[i].linear && k < r->inputs[i].count; k++)
            if (r->inputs[i].linear[k])
                return simulate_me_input_source(r, me_inputs_at, err);
    return RTCOSIM_OK; /* nothing continuous to feed */
}

/* The next time after t at which a discrete input of the table changes (or
 * any input jumps: two rows at one time), -1: none; as fmusim's
 * FMINextInputEvent. Scans on from where the last search stopped. */
rtcosim_time_ns simulate_next_input_event(run *r, rtcosim_time_ns t)
{
    const rtcosim_csv *table = r->input;
    if (!table || !r->input_batch_count)
        return -1;
    size_t rows = rtcosim_csv_row_count(table), i = r->input_scan ? r->input_scan : 1;
    while (i < rows && rtcosim_csv_time(table, i) <= t)
        i++;
    r->input_scan = i;
    for (; i < rows; i++) {
        rtcosim_time_ns ti = rtcosim_csv_time(table, i);
        if (ti == rtcosim_csv_time(table, i - 1))
            return ti;
        for (size_t j = 0; j < r->input_batch_count; j++) {
            const batch *b = &r->inputs[j];
            for (size_t k = 0; k < b->count; k++)
                if (!b->linear[k] && input_changes(r, b, k, i))
                    return ti;
        }
    }
    return -1;
}

rtcosim_status simulate_me_observe(run *r, rtcosim_me_event_observer observer,
                                   rtcosim_error *err)
{
    void *context = observer ? r : NULL;
    return r->me_isolated ? rtcosim_isolate_me_observe_events(r->c, observer, context, err)
                          : rtcosim_fmu_me_observe_events(r->c, observer, context, err);
}

rtcosim_status simulate_me_input_source(run *r, rtcosim_me_input_source source,
                                        rtcosim_error *err)
{
    void *context = source ? r : NULL;
    return r->me_isolated ? rtcosim_isolate_me_input_source(r->c, source, context, err)
                          : rtcosim_fmu_me_input_source(r->c, source, context, err);
}

rtcosim_status simulate_me_input_event(run *r, rtcosim_error *err)
{
    return r->me_isolated ? rtcosim_isolate_me_enter_input_event(r->c, err)
                          : rtcosim_fmu_me_enter_input_event(r->c, err);
}
