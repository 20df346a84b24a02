/* Simulating one component on its own (what `rtcosim simulate` and fmusim
 * do): instantiate, set up, apply start values and inputs, initialize, then
 * step with the output interval as communication step to the stop time,
 * setting inputs from a CSV table and recording outputs to a CSV file.
 *
 * Start values of parameters are applied before initialization mode (where
 * FMI 2.0 section 4.2.4 and FMI 3.0 allow every exact/approx start value),
 * start values of inputs and the inputs at the start time inside it. The
 * last step is shortened so that the run ends exactly at the stop time. */
#ifndef RTCOSIM_SIMULATE_H
#define RTCOSIM_SIMULATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/component.h"
#include "rtcosim/csv.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#ifdef __cplusplus
extern "C" {
#endif

/* `--start-value NAME VALUE`: text parsed with rtcosim_value_parse per the
 * variable's type. */
typedef struct rtcosim_start_value {
    const char *name;
    const char *value;
} rtcosim_start_value;

typedef struct rtcosim_simulate_options {
    const char *instance_name;         /* NULL: the model name */
    rtcosim_time_ns start_time;
    rtcosim_time_ns stop_time;         /* >= start_time */
    rtcosim_time_ns output_interval;   /* communication step, > 0 */
    double tolerance;                  /* <= 0: none */
    const rtcosim_start_value *start_values;
    size_t start_value_count;
    /* FMI 3.0 scheduled execution: intervals (seconds, as text) of fixed or
     * tunable input clocks, set with fmi3SetIntervalDecimal in
     * Initialization Mode (section 2.2.8) and used by the scheduler. */
    const rtcosim_start_value *clock_intervals;
    size_t clock_interval_count;
    /* Inputs: every column must name an input variable of the component.
     * Continuous Float variables are interpolated linearly, all others held. */
    const rtcosim_csv *input;          /* may be NULL */
    const char *output_file;           /* CSV results; NULL: none */
    /* Recorded variables in this order; none given: every output. */
    const char *const *output_variables;
    size_t output_variable_count;
    uint32_t record_every;             /* record every N-th step (and always the last); 0: 1 */
    bool writer_thread;                /* format and write results on a writer thread
                                          (not with String or Binary outputs: their
                                          values are written whole, on this thread) */
    bool csv_units;                    /* a units row under the CSV header */
    /* Optional: called with every recorded row (the rows the file gets, with
     * the same record_every decimation; also without output_file), values in
     * the order of the recorded variables, strings valid during the call. A
     * non-OK return stops the run with that status. */
    rtcosim_status (*on_row)(void *context, rtcosim_time_ns t, const rtcosim_value *values,
                             size_t count, rtcosim_error *err);
    void *row_context;
    /* Optional: called after every step with the time reached (progress
     * displays, cancellation). A non-OK return (e.g. RTCOSIM_ECANCELED) stops
     * the run with that status; rows recorded so far are kept. */
    rtcosim_status (*progress)(void *context, rtcosim_time_ns t, rtcosim_error *err);
    void *progress_context;
    /* A start value or input-file value outside the variable's declared
     * min/max is an error naming the variable and its range (false: a
     * warning, logged before the FMU sees the value). */
    bool strict_ranges;
    /* Model exchange: no rows at the events inside a step (FMPy's
     * record_events=False); by default a row before and one after each, as
     * fmusim and FMPy write them. */
    bool no_event_rows;
    /* FMU state files as fmusim's (the FMU's own serialized state; co-
     * simulation FMUs that can serialize it): start from the state in
     * initial_state_file (after initialization; start values of inputs and
     * tunable parameters set again over it, others refused), save the state
     * after the last step to final_state_file. NULL: none. */
    const char *initial_state_file;
    const char *final_state_file;
    /* The same initial state in memory (FMPy's fmu_state bytes); used when
     * initial_state_size > 0, instead of a file. */
    const void *initial_state;
    size_t initial_state_size;
    /* Do not tell the FMU the stop time (fmusim without --set-stop-time):
     * an FMU that keeps it in its state could not go on past it from a
     * state saved here. */
    bool stop_time_not_set;
} rtcosim_simulate_options;

typedef struct rtcosim_simulate_result {
    uint64_t steps;                /* completed do_step calls */
    uint64_t events;               /* event iterations after steps (Event Mode) */
    rtcosim_time_ns end_time;      /* time the run reached */
    bool terminated_by_component;  /* the component asked to stop before stop_time */
    /* ... by discarding a step and asking to terminate (FMI 2.0 fmi2Discard
     * with fmi2Terminated, FMI 3.0 fmi3Discard with terminateSimulation): the
     * run ended normally at the last successful time (end_time). */
    bool terminated_on_discard;
    uint64_t rows_written;         /* result rows in the file */
    size_t output_count;           /* recorded variables */
    /* Optional, set by the caller: receives the last recorded values (up to
     * final_capacity of them, in the order of the recorded variables). */
    rtcosim_value *final_values;
    size_t final_capacity;
} rtcosim_simulate_result;

/* Marks a time of rtcosim_simulate_options left for rtcosim_simulate_defaults. */
#define RTCOSIM_SIMULATE_UNSET INT64_MIN

/* Fill what the caller left unset, as fmusim does: start_time (UNSET) from the
 * default experiment, else 0; stop_time (UNSET) from the default experiment,
 * else start + 1 s; output_interval (UNSET) from the default experiment's
 * step size, else (stop - start) / 500 (1 s when that is 0); tolerance
 * (negative) from the default experiment, else 0 (none). */
void rtcosim_simulate_defaults(const rtcosim_component *c, rtcosim_simulate_options *opts);

/* Run a freshly created component (not yet instantiated) from start to stop.
 * The component is terminated at the end but not freed. On a failing step
 * the rows recorded so far stay in the file and the error names the
 * component, the time and the component's message. result may be NULL. */
rtcosim_status rtcosim_simulate(rtcosim_component *c, const rtcosim_simulate_options *opts,
                                rtcosim_simulate_result *result, rtcosim_error *err);

/* The variables a run records: the named ones (error naming an unknown one;
 * the name of a whole FMI 3.0 array records each element), or with count 0
 * every output (ModelStructure outputs for FMUs). Writes up
 * to capacity pointers into out and the total number into *found. */
rtcosim_status rtcosim_simulate_outputs(const rtcosim_component *c, const char *const *names,
                                        size_t count, const rtcosim_variable **out,
                                        size_t capacity, size_t *found, rtcosim_error *err);

/* Find an example FMU shipped with rtcosim (e.g. "Dahlquist-fmi2.fmu") and
 * write its path to out. Looks in $RTCOSIM_FMU_DIR, next to the running
 * executable (<bindir>/../share/rtcosim/fmus, so a moved installation still
 * works), the configured install prefix, and finally the build tree. The
 * error lists where it looked. */
rtcosim_status rtcosim_example_fmu_path(const char *file_name, char *out, size_t capacity,
                                        rtcosim_error *err);

/* The predicate for rtcosim_csv_read_file_text that keeps the component's
 * Binary columns as text (hex cells, as fmusim reads Binary inputs) and its
 * Int64 and UInt64 columns too (rtcosim_simulate reads them exactly: a
 * number read as a double keeps 53 bits); component is the
 * rtcosim_component the table is for. */
bool rtcosim_simulate_text_column(void *component, const char *column);
/* The same for a file whose columns drive inputs of other names
 * (`simulate --input-column INPUT=COLUMN`): map is a
 * rtcosim_simulate_column_map; a mapped column is asked under its input's
 * name, the others under their own. */
typedef struct rtcosim_simulate_column_map {
    void *component;
    const char *const *inputs, *const *columns; /* inputs[i] is driven by columns[i] */
    size_t count;
} rtcosim_simulate_column_map;
bool rtcosim_simulate_mapped_text_column(void *map, const char *column);
/* Its former name (the same predicate). */
bool rtcosim_simulate_binary_column(void *component, const char *column);

#ifdef __cplusplus
}
#endif
#endif
