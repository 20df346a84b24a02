/* What the files of rtcosim_simulate share (internal to src/simulate): the run
 * of one component with its per-type batches, recorder and input cursor; the
 * scheduled-execution loop (simulate_se.c) replaces the step loop for an FMU
 * loaded with --interface-type se and reuses the recording and inputs; start
 * values (simulate_start.c). */
#ifndef RTCOSIM_SIMULATE_INTERNAL_H
#define RTCOSIM_SIMULATE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "rtcosim/csv.h"
#include "rtcosim/fmu.h"
#include "rtcosim/results.h"
#include "rtcosim/simulate.h"

/* The variables of one type exchanged in one batched call per step. */
typedef struct batch {
    rtcosim_type type;
    size_t count;
    uint32_t *vrs;
    unsigned char *values; /* count values of the type, as get/set use them */
    size_t *column;        /* outputs: recorder column; inputs: CSV column */
    bool *linear;          /* inputs: interpolate linearly (else hold) */
    rtcosim_binary *binary_cells; /* Binary inputs: every row's values, decoded at setup */
    uint8_t *binary_bytes;
} batch;

typedef struct run {
    rtcosim_component *c;
    const rtcosim_simulate_options *o;
    const char *label;
    /* The input table: o->input, or split_input, its copy with the columns
     * of arrays in fmusim's layout ("1 2 3" in one cell) split into their
     * elements' columns (simulate_setup_inputs). */
    const rtcosim_csv *input;
    rtcosim_csv *split_input;
    batch outputs[RTCOSIM_TYPE_COUNT_], inputs[RTCOSIM_TYPE_COUNT_];
    size_t output_batch_count, input_batch_count;
    const rtcosim_variable **recorded;
    size_t recorded_count;
    rtcosim_value *row;
    rtcosim_recorder *recorder;
    rtcosim_csv_cursor cursor;
    /* Event Mode: discrete inputs are set only there (FMI 3.0 section
     * 4.2.2); the next time one changes in the input table (-1: none),
     * found from row input_scan on. */
    bool discrete_in_event_mode;
    rtcosim_time_ns next_input_event;
    size_t input_scan;
    uint32_t *input_vrs; /* scratch: the references of the inputs set */
    /* Per input-table column: an Int64 or UInt64 input's cells read exactly
     * (kept as text by rtcosim_simulate_text_column), row by row; NULL for
     * the others. NULL when no column is. */
    uint64_t **exact;
    uint64_t rows_offered; /* record() calls, for on_row's decimation without a file */
    bool have_row; /* row holds the values at last_row_time */
    rtcosim_time_ns last_row_time;
    struct se_run *se; /* scheduled execution (simulate_se.c); NULL otherwise */
    /* Recorded output clocks (not SE): never read for a row (a read resets
     * them and step mode refuses it, FMI 3.0 section 2.2.8); read once per
     * event iteration in Event Mode into their batch's values, which the row
     * after that event at clock_time shows (other rows: not ticked). */
    batch *clock_outputs;
    rtcosim_time_ns clock_time;
    /* Model exchange: the integrator's events are recorded as they come
     * (rows before and after); row_due is the time of the loop's next row. */
    bool me;
    bool me_isolated; /* the same through --isolate's host (simulate_me_*) */
    bool inputs_first; /* model exchange, here or isolated: inputs at t, then the row */
    rtcosim_time_ns row_due;
    rtcosim_time_ns step_from; /* where the step being made started */
    uint64_t me_events;
} run;

/* The model-exchange integrator's hooks, in process or through the host of
 * --isolate (rtcosim_fmu_me_* / rtcosim_isolate_me_*). */
rtcosim_status simulate_me_observe(run *r, rtcosim_me_event_observer observer,
                                   rtcosim_error *err);
rtcosim_status simulate_me_input_source(run *r, rtcosim_me_input_source source,
                                        rtcosim_error *err);
rtcosim_status simulate_me_input_event(run *r, rtcosim_error *err);

void simulate_load_value(rtcosim_type type, const unsigned char *slot, rtcosim_value *v);
/* Record the row at t (always: even when decimation would skip it). */
rtcosim_status simulate_record(run *r, rtcosim_time_ns t, bool always, rtcosim_error *err);
/* Prefix err with the instance and time where the run stopped. */
rtcosim_status simulate_step_failed(run *r, rtcosim_time_ns t, rtcosim_error *err);

/* simulate.c: the batch of a type (made on first use) and the batches'
 * arrays. */
batch *simulate_batch_for(batch *batches, size_t *batch_count, rtcosim_type type);
rtcosim_status simulate_allocate_batches(batch *batches, size_t batch_count, bool inputs,
                                         rtcosim_error *err);

/* simulate_inputs.c: the input table resolved into batches; the inputs at t
 * (discrete false: the continuous ones only); an input event's inputs (the
 * continuous ones before it, the event, all after it); the next input
 * event after t (-1: none). */
rtcosim_status simulate_setup_inputs(run *r, rtcosim_error *err);
rtcosim_status simulate_apply_inputs(run *r, rtcosim_time_ns t, bool discrete,
                                     rtcosim_error *err);
rtcosim_status simulate_apply_input_event(run *r, rtcosim_time_ns t, rtcosim_error *err);
/* Model exchange: give the integrator the table's continuous inputs at
 * every time it evaluates (rtcosim_me_input_source), when there are any. */
rtcosim_status simulate_feed_integrator(run *r, rtcosim_error *err);
rtcosim_time_ns simulate_next_input_event(run *r, rtcosim_time_ns t);
/* An input's value at the cursor into slot (as get/set use the type):
 * interpolated (linear) or held, an exact Int64/UInt64 column's bits. */
void simulate_input_value(const run *r, rtcosim_type type, size_t column, bool linear,
                          void *slot);
/* The exact cells of input-table column `column` (run.exact), or NULL. */
const uint64_t *simulate_exact_column(const run *r, size_t column);

/* simulate_state.c: FMU state files (fmusim's): checked before
 * instantiation, restored after initialization (the start values of inputs
 * and tunable parameters set again over it), saved after the last step. */
rtcosim_status simulate_check_state_files(run *r, rtcosim_error *err);
rtcosim_status simulate_restore_state_file(run *r, rtcosim_error *err);
rtcosim_status simulate_save_state_file(run *r, rtcosim_error *err);

/* simulate_se.c: set up the clocks (before instantiation), read intervals in
 * Initialization Mode, run the partitions from start to stop, gather a row,
 * free. */
rtcosim_status simulate_se_setup(run *r, rtcosim_error *err);
rtcosim_status simulate_se_init(run *r, rtcosim_error *err);
rtcosim_status simulate_se_loop(run *r, rtcosim_simulate_result *res, rtcosim_error *err);
rtcosim_status simulate_se_gather(run *r, rtcosim_error *err);
void simulate_se_free(run *r);

/* The variables a start value names: the variable itself (*count 1), or the
 * elements name[...] of an FMI 3.0 array; NULL: neither. */
const rtcosim_variable *simulate_start_targets(const rtcosim_component *c, const char *name,
                                               size_t *count);
/* Every start value: a variable that exists and may be set, a value that
 * parses; nothing is set. */
rtcosim_status simulate_check_start_values(const rtcosim_component *c,
                                           const rtcosim_simulate_options *o, rtcosim_error *err);
/* Whether an input column's values keep to the variable's declared min/max:
 * a warning naming the variable, its range, the first line and how many
 * rows fall outside, or (strict) an error. exact: the column's Int64 or
 * UInt64 cells read exactly (else NULL: the table's numbers). */
rtcosim_status simulate_check_input_range(const rtcosim_csv *table, size_t column,
                                          const uint64_t *exact, const rtcosim_variable *v,
                                          bool strict, rtcosim_error *err);
/* Set the start values of inputs (inputs true, in initialization mode) or
 * of all other variables (before it). */
rtcosim_status simulate_apply_start_values(rtcosim_component *c, const rtcosim_simulate_options *o,
                                           bool inputs, rtcosim_error *err);


/* The three %s of "...has no such variable%s%s%s": "; did you mean 'h'?" or nothing. */
#define SUGGEST(near) (near) ? "; did you mean '" : "", (near) ? (near) : "", (near) ? "'?" : ""

#endif
