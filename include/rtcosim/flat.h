/* Flat entry points for language bindings (the Python package's ctypes
 * layer, python/rtcosim): whole runs behind one call each, options as plain
 * fields and text, results gathered into an in-memory table that the binding
 * copies out as arrays. The runs themselves are the library's
 * (rtcosim_simulate, the master, the real-time adapter), so a binding's
 * results equal the CLI's. */
#ifndef RTCOSIM_FLAT_H
#define RTCOSIM_FLAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/component.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A results table in memory: times and one rtcosim_value per column and row
 * (row-major), plus named run statistics. Strings are copies it owns;
 * Binary columns are not recorded (an error names the variable). */
typedef struct rtcosim_rows rtcosim_rows;

size_t rtcosim_rows_count(const rtcosim_rows *r);
size_t rtcosim_rows_column_count(const rtcosim_rows *r);
const char *rtcosim_rows_column_name(const rtcosim_rows *r, size_t column);
int rtcosim_rows_column_type(const rtcosim_rows *r, size_t column); /* rtcosim_type */
/* A column's unit and description (NULL where the variable declares none)
 * and whether it is a parameter or constant (a MAT file's data_1). */
const char *rtcosim_rows_column_unit(const rtcosim_rows *r, size_t column);
const char *rtcosim_rows_column_description(const rtcosim_rows *r, size_t column);
bool rtcosim_rows_column_parameter(const rtcosim_rows *r, size_t column);
const rtcosim_time_ns *rtcosim_rows_times(const rtcosim_rows *r);
const rtcosim_value *rtcosim_rows_values(const rtcosim_rows *r); /* count * columns */
/* Statistics of the run ("steps", "wall_time_s", the real-time summary's
 * fields); a time figure's name ends in its unit (_s, _us). */
size_t rtcosim_rows_stat_count(const rtcosim_rows *r);
const char *rtcosim_rows_stat_name(const rtcosim_rows *r, size_t index);
double rtcosim_rows_stat_value(const rtcosim_rows *r, size_t index);
void rtcosim_rows_free(rtcosim_rows *r); /* NULL is a no-op */
/* The rows from `row` on will not be read again: the whole pages of the
 * times and cells that hold only those rows are given back to the system
 * (their values then undefined), so that a binding copying the rows out a
 * block at a time from the end holds them about once. Nothing is given back
 * when a column is String or Binary (its cells point to copies). */
void rtcosim_rows_release_rows(rtcosim_rows *r, size_t row);

/* Progress: the fraction of the simulated interval done and the time
 * reached, called when the whole percent reached grew: at most once per
 * percent, and exactly once with 1.0 at the end.
 * A non-zero return cancels the run (RTCOSIM_ECANCELED). */
typedef int (*rtcosim_flat_progress)(void *context, double fraction, double time);

typedef struct rtcosim_flat_simulate_options {
    /* Seconds as decimal text (parsed exactly, as the CLI does); NULL: the
     * FMU's default experiment, else fmusim's fallbacks (simulate.h). */
    const char *start_time, *stop_time, *output_interval;
    double tolerance;        /* <= 0: default experiment, else none */
    int model_exchange;      /* 0: co-simulation, 1: model exchange, -1: co-simulation
                                unless the FMU offers model exchange only (FMPy) */
    int solver;              /* rtcosim_me_solver */
    const char *const *start_names;
    const char *const *start_values; /* text, parsed per the variable's type */
    size_t start_count;
    const char *input_csv;   /* input table as CSV text (csv.h format); NULL: none */
    size_t input_csv_size;
    const char *const *output; /* recorded variables; none: every output */
    size_t output_count;
    uint32_t record_every;   /* 0 or 1: every communication point */
    rtcosim_flat_progress progress;
    void *progress_context;
    /* FMPy's early ends (fields added last, so older callers that zero the
     * struct keep working): step_finished is called after every
     * communication step with the time reached; a non-zero return ends the
     * run normally there, the rows so far (and that time's row) kept, as does
     * a run that takes longer than timeout seconds of wall-clock time (<= 0:
     * none; a warning says so). Statistic "stopped_early": 0, 1 (callback),
     * 2 (timeout). */
    int (*step_finished)(void *context, double time);
    void *step_context;
    double timeout;
    int fmu_logging;         /* FMI loggingOn: the FMU's own messages reach the log */
    /* Read after every step (another thread may set it, e.g. on Ctrl-C):
     * non-zero ends the run with RTCOSIM_ECANCELED ("interrupted"), no rows
     * returned as if complete. NULL: none. */
    const int *interrupt;
    /* FMPy's validate, fmi_call_logger and record_events (added last, as
     * above): strict refuses a modelDescription.xml that breaks a rule of
     * the standard (rtcosim_fmu_options.strict; else a warning); log_fmi_calls
     * logs every FMI call at debug level, category "fmi" ("instance:
     * fmi2DoStep(...) -> OK"; the caller raises the log level); event_mode:
     * FMI 3.0 co-simulation FMUs that declare hasEventMode run with Event
     * Mode, a row before and after each event (as simulate
     * --event-mode-used), others as without. */
    int strict;
    int log_fmi_calls;
    int event_mode;
    /* The input table as a file's path instead of input_csv (added last, as
     * above): CSV, or a MAT result file by its ending
     * (rtcosim_csv_read_input_file); NULL: none. */
    const char *input_file;
    /* Model exchange: no rows at events (FMPy's record_events=False; added
     * last, as above). 0: a row before and one after each event. */
    int no_event_rows;
    /* FMPy's set_stop_time=False (added last): the FMU is not told the stop
     * time; and its fmu_state as a file: start from the FMU's serialized
     * state there (rtcosim_simulate_options.initial_state_file). */
    int stop_time_not_set;
    const char *initial_state_file;
    const void *initial_state; /* or the state itself (used when its size > 0) */
    size_t initial_state_size;
    /* Of input_file's columns only input_columns[i], each driving the input
     * input_column_inputs[i] (added last; `simulate --input-column`,
     * rtcosim_csv_select_columns). 0: every column under its own name. */
    const char *const *input_column_inputs;
    const char *const *input_columns;
    size_t input_column_count;
    /* FMPy's apply_default_start_values (added last):
     * rtcosim_fmu_options.apply_default_start_values. */
    int apply_default_start_values;
} rtcosim_flat_simulate_options;

/* Load an FMU and simulate it (rtcosim_simulate), rows into *out. On error
 * *out is NULL and err names the file and the problem. */
rtcosim_status rtcosim_flat_simulate(const char *fmu, const rtcosim_flat_simulate_options *o,
                                     rtcosim_rows **out, rtcosim_error *err);

typedef struct rtcosim_flat_system_options {
    const char *start_time, *stop_time, *step_size, *output_interval; /* text; NULL: default */
    int order, coupling, correction; /* rtcosim_ssd_order/_coupling/_correction; 0: file's */
    int step_control;                /* -1: file's, 0: off, 1: on */
    int threads;                     /* 0: file's */
    const char *const *parameter_sets;
    size_t parameter_set_count;
    const char *const *start_names;  /* "component.variable" */
    const char *const *start_values;
    size_t start_count;
    const char *const *output;       /* observed "component.variable"; none: every output */
    size_t output_count;
    rtcosim_flat_progress progress;
    void *progress_context;
    /* Real time (system_rt.h): the rows come from output_file, which the
     * caller reads; options as rtcosim_rt_option_set name/value pairs over
     * the file's org.rtcosim.realtime annotation. */
    bool real_time;
    bool virtual_clock;              /* deterministic virtual clocks instead of the wall clock */
    const char *output_file;
    const char *const *rt_names;
    const char *const *rt_values;
    size_t rt_count;
    /* Inputs from this input table (rtcosim_system_load_options.input_file);
     * NULL: none. */
    const char *input_file;
    /* Its columns mapped to the inputs they drive (added last;
     * rtcosim_system_load_options.input_columns; 0: none). */
    const char *const *input_column_inputs;
    const char *const *input_columns;
    size_t input_column_count;
    /* As rtcosim_flat_simulate_options.interrupt: read after every macro
     * step (real time: every frame); non-zero ends the run with
     * RTCOSIM_ECANCELED ("interrupted"), no rows returned as if complete
     * (a real-time run's output_file keeps the rows so far). NULL: none. */
    const int *interrupt;
} rtcosim_flat_system_options;
/* rt_names beyond rtcosim_rt_option_set's: "estimator" may repeat, each
 * either the default spec or a per-signal "SIGNAL=SPEC" (as `run
 * --estimator`); "delay" "NAME:SPEC" injects compute time into a component
 * (rtcosim_system_rt_delay_parse; repeatable). */

/* Run an SSP system (.ssd/.ssp) as `rtcosim run` does. Master runs record
 * every observed variable at each output interval (default: every macro
 * step) and the end; statistics: steps, end_time_s, wall_time_s. Real-time runs write
 * output_file and return the executor's summary as statistics. */
rtcosim_status rtcosim_flat_system_run(const char *path, const rtcosim_flat_system_options *o,
                                       rtcosim_rows **out, rtcosim_error *err);

/* A results file read back as rows, as `rtcosim plot` reads it: rtcosim's
 * CSV (its units row too), a Modelica/Dymola MAT file, an ASAM MDF 4 or 3
 * measurement (several channel groups on the union of their times, a
 * channel holding its last sample, NaN before its first). Time, then one
 * Float64 column per numeric variable with its unit; text columns left out
 * (statistic "text_columns_left_out"). Errors name the file. */
rtcosim_status rtcosim_flat_read_result(const char *path, rtcosim_rows **out, rtcosim_error *err);
/* rtcosim_flat_read_result of the variables names[0..count) only (count 0:
 * every one), in the file's order, time always: a CSV is read a line at a
 * time and its other columns never held, so a long run's results cost what
 * the variables asked for take. A name the file does not have is
 * RTCOSIM_EINVAL, one line naming the file and every missing name (one
 * missing: with the file's nearest name, "did you mean"); a named
 * text column is left out as above (counted in "text_columns_left_out"). */
rtcosim_status rtcosim_flat_read_result_select(const char *path, const char *const *names,
                                               size_t count, rtcosim_rows **out,
                                               rtcosim_error *err);

/* A results file's numeric columns as the reader made them, for a binding
 * that copies them into arrays of its own: one array of doubles per column,
 * no rows of rtcosim_value (16 bytes a cell) between. Read as
 * rtcosim_flat_read_result_select (the same names, errors and values: time
 * as seconds of whole nanoseconds). A binding that copies the rows from the
 * end in blocks and releases each block once copied holds the file's values
 * about once (its own array and what is left of these), not three times. */
typedef struct rtcosim_result_columns rtcosim_result_columns;

rtcosim_status rtcosim_flat_read_result_columns(const char *path, const char *const *names,
                                                size_t count, rtcosim_result_columns **out,
                                                rtcosim_error *err);
size_t rtcosim_result_columns_rows(const rtcosim_result_columns *c);
/* numeric columns (time not counted) */
size_t rtcosim_result_columns_count(const rtcosim_result_columns *c);
const char *rtcosim_result_columns_name(const rtcosim_result_columns *c, size_t column);
const char *rtcosim_result_columns_unit(const rtcosim_result_columns *c, size_t column); /* or NULL */
/* rows values each; NULL for a column out of range or released */
const double *rtcosim_result_columns_time(const rtcosim_result_columns *c);
const double *rtcosim_result_columns_values(const rtcosim_result_columns *c, size_t column);
/* The rows from `row` on will not be read again: the whole pages of every
 * column (time too) that hold only those rows are given back to the system
 * (their values are then undefined). */
void rtcosim_result_columns_release_rows(rtcosim_result_columns *c, size_t row);
/* A numeric column's cells that are neither empty nor a number ("n/a",
 * "1,5": a spreadsheet's text in a column of numbers), NaN in its values;
 * 0 out of range. */
size_t rtcosim_result_columns_not_numbers(const rtcosim_result_columns *c, size_t column);
/* text columns (a CSV's String and Binary results) the numbers left out */
size_t rtcosim_result_columns_text_left_out(const rtcosim_result_columns *c);
/* the name of the index-th of them (in the file's order), or NULL: the
 * columns the selection took, for a binding that reads their cells itself */
const char *rtcosim_result_columns_text_name(const rtcosim_result_columns *c, size_t index);
void rtcosim_result_columns_free(rtcosim_result_columns *c); /* NULL is a no-op */

#ifdef __cplusplus
}
#endif
#endif
