/* Results: exact number formatting and the recorder that streams rows of a
 * run to a CSV file in fmusim's format ("time","name1",... then one row per
 * communication point). Numbers are written as the shortest decimal text that
 * reads back to the identical value, so a results file loses nothing.
 *
 * The recorder never allocates after open and its memory does not grow with
 * the number of rows. Synchronously it formats each pushed row into a large
 * write buffer; with a writer thread, rtcosim_recorder_push_row only copies
 * the values into a preallocated lock-free single-producer ring (safe to call
 * from a real-time thread) and the writer thread formats and writes. */
#ifndef RTCOSIM_RESULTS_H
#define RTCOSIM_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "rtcosim/component.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Buffer size every rtcosim_format_* function needs (text plus a NUL). */
#define RTCOSIM_FORMAT_MAX 40

/* Shortest round-trip decimal of a double ("0.1", "100", "1e-7", "1.5e+300",
 * "-0", "inf", "nan"): plain notation for 1e-6 <= |v| < 1e21, exponent form
 * otherwise. Writes into buf (RTCOSIM_FORMAT_MAX bytes), NUL-terminates, and
 * returns the length. */
size_t rtcosim_format_double(double value, char *buf);
/* Same for a float: the shortest text that reads back (as float) to value. */
size_t rtcosim_format_float(float value, char *buf);
size_t rtcosim_format_int64(int64_t value, char *buf);
size_t rtcosim_format_uint64(uint64_t value, char *buf);
/* Exact decimal seconds of a tick count, without trailing zeros:
 * 0 -> "0", 1500000000 -> "1.5", 100000 -> "0.0001", -1 -> "-0.000000001". */
size_t rtcosim_format_time(rtcosim_time_ns t, char *buf);

/* One recorded column besides time. BOOLEAN and CLOCK are written as 1/0,
 * STRING quoted with doubled quotes, BINARY as fmusim writes it: two
 * lower-case hex digits per byte, unquoted (empty: an empty field). */
typedef struct rtcosim_column {
    const char *name;
    rtcosim_type type;
    /* Optional, for MAT files and the CSV units row (may be NULL / false): */
    const char *unit;        /* "m" */
    const char *description; /* "Height of the ball" */
    bool parameter;          /* constant or parameter: data_1 of a MAT file when it
                                keeps one value over the whole run */
} rtcosim_column;

/* The column of a variable recorded under `name`: its type, unit and
 * description, and parameter for constants, fixed and tunable variables
 * (one value over the run: data_1 of a MAT file). v NULL: a Float64 column
 * with the name alone. */
rtcosim_column rtcosim_column_of(const char *name, const rtcosim_variable *v);

typedef struct rtcosim_recorder_options {
    const char *path;               /* results file (.csv, .mat, .mf4) to create or truncate */
    const rtcosim_column *columns;  /* copied at open */
    size_t column_count;
    uint32_t record_every;          /* keep rows 0, N, 2N, ... of those pushed; 0 or 1: all */
    bool writer_thread;             /* format and write on a thread fed by a ring (the
                                       pushing thread formats CSV rows itself while
                                       that thread is behind, unless drop_when_full) */
    bool drop_when_full;            /* with a writer thread: never wait for ring space;
                                       count the row as dropped instead (real-time use) */
    size_t ring_rows;               /* ring capacity in rows, within 4 MiB (64 rows at
                                       least, unless fewer are asked for); 0: 8192
                                       within 2 MiB */
    size_t buffer_bytes;            /* write buffer; 0: 256 KiB */
    bool csv_units;                 /* a second row with each column's unit ("s" for time) */
    size_t max_string_bytes;        /* with a writer thread: bytes kept of each String
                                       or Binary value (longer ones are cut and
                                       counted); 0: 256 */
    int64_t start_ns;               /* an .mf4 file's measurement start, ns since 1970
                                       UTC; 0: the time of the open */
    bool whole_text;                /* with writer_thread: String or Binary columns make
                                       the recorder write on the pushing thread instead
                                       (their values whole, not cut at max_string_bytes) */
} rtcosim_recorder_options;

typedef struct rtcosim_recorder_stats {
    uint64_t rows_pushed;    /* calls of push_row and push_row_always */
    uint64_t rows_written;   /* rows that reached the file (after decimation) */
    uint64_t rows_dropped;   /* ring full with drop_when_full */
    uint64_t strings_cut;    /* String and Binary values shortened to max_string_bytes */
    uint64_t bytes_written;  /* including the header */
    uint64_t rows_formatted_by_pusher; /* with a writer thread: CSV rows the pushing thread
                                          formatted itself while the writer was behind */
} rtcosim_recorder_stats;

typedef struct rtcosim_recorder rtcosim_recorder; /* opaque */

/* Whether a writer thread pays now: this process may run on two CPUs or
 * more (its affinity mask, and its cgroup's CPU quota, v2 or v1, allows at
 * least two CPUs' time) and one of them is free (fewer tasks running than
 * CPUs, this one included). `rtcosim simulate` takes one then unless told otherwise. */
bool rtcosim_recorder_writer_thread_pays(void);

/* Create the file and write the header. An unwritable path fails here with
 * a message naming it. */
rtcosim_status rtcosim_recorder_open(const rtcosim_recorder_options *opts,
                                     rtcosim_recorder **out, rtcosim_error *err);

/* Whether the next rtcosim_recorder_push_row keeps its row (decimation), so
 * that callers can skip gathering values for rows that would be dropped. */
bool rtcosim_recorder_wants_row(const rtcosim_recorder *r);

/* Push one row: time t and one value per column (strings are copied or
 * formatted before returning). Subject to record_every; values may be NULL
 * when rtcosim_recorder_wants_row said the row is not kept. Never allocates;
 * without a writer thread it may write to the file when the buffer is full.
 * A write error does not fail the push: it is kept and reported by close. */
rtcosim_status rtcosim_recorder_push_row(rtcosim_recorder *r, rtcosim_time_ns t,
                                         const rtcosim_value *values, rtcosim_error *err);
/* Push a row regardless of record_every (e.g. the final point of a run). */
rtcosim_status rtcosim_recorder_push_row_always(rtcosim_recorder *r, rtcosim_time_ns t,
                                                const rtcosim_value *values,
                                                rtcosim_error *err);

/* Leave column `column` empty in every row pushed from now on (a value the
 * component refused to give); rows already pushed keep their values. */
void rtcosim_recorder_omit_column(rtcosim_recorder *r, size_t column);

void rtcosim_recorder_get_stats(const rtcosim_recorder *r, rtcosim_recorder_stats *stats);

/* For a fatal-signal handler (SIGSEGV/SIGABRT in a component): write the
 * buffered rows of every open recorder using only async-signal-safe calls
 * (write(2), sem_post, nanosleep: POSIX.1-2017 2.4.3); a recorder with a
 * writer thread has that thread write its ring and buffer (waiting up to a
 * second for it; it takes no asynchronous signal itself), then the rows the
 * pushing thread was formatting are written. A row being formatted at
 * that moment on the crashing thread may be cut; with a component crashing
 * inside its call, the buffer holds whole rows. Rows also reach the file at
 * least every 100 ms of wall time on their own. A copy being made while a
 * result is finished (an .mf4 file's compressed records, a .mat file
 * rewritten) is removed, the result left as it was before the copy. */
void rtcosim_recorder_flush_all_signal_safe(void);

/* Write every pending row, stop the writer thread, close the file and free
 * the recorder (always, even on error). Reports the first write error (disk
 * full, ...) with the path. NULL is a no-op. stats (may be NULL) receives
 * the final counts. */
rtcosim_status rtcosim_recorder_close(rtcosim_recorder *r, rtcosim_recorder_stats *stats,
                                      rtcosim_error *err);

/* Results formats by the path's extension: ".csv" (or none, e.g. /dev/stdout)
 * CSV; ".mat" the Modelica/Dymola result layout (MAT v4, binTrans); ".mf4"
 * ASAM MDF 4.10. An MDF file is written as the run goes, a record per row
 * (unfinalized until close, as loggers leave theirs: a run that dies keeps
 * a file its readers take); a MAT file is written at close from the CSV
 * streamed to "<path>.csv.part" (kept with the rows if the run dies). Any
 * other extension is refused (EINVAL, naming it). */
typedef enum rtcosim_results_format {
    RTCOSIM_RESULTS_CSV,
    RTCOSIM_RESULTS_MAT,
    RTCOSIM_RESULTS_MDF,
} rtcosim_results_format;
rtcosim_status rtcosim_results_format_of(const char *path, rtcosim_results_format *out,
                                         rtcosim_error *err);

/* Remove an output that is no result (nothing ran, a failure cut it short):
 * the regular file at path, or at the end of a symbolic link there (the
 * link stays); never a device, pipe, socket or directory, so that
 * `-o /dev/null` run as root keeps /dev/null. */
void rtcosim_results_discard(const char *path);

/* Convert a results CSV into a MAT file in the Dymola layout: Aclass
 * ("Atrajectory", "1.1", "", "binTrans"), name, description (with "[unit]"),
 * dataInfo, data_1 (time start/stop and the parameter columns that keep one
 * value), data_2 (time and the trajectories). columns (may be NULL) give
 * units, descriptions and which columns are String/Binary (left out: they
 * are not numbers). */
rtcosim_status rtcosim_results_csv_to_mat(const char *csv_path, const char *mat_path,
                                          const rtcosim_column *columns, size_t column_count,
                                          rtcosim_error *err);

/* An MDF 4 measurement's facts for `rtcosim info F.mf4`: version, writer,
 * start, and per channel group its records and master range, per numeric
 * channel its unit, minimum, maximum and invalid samples. Errors as
 * rtcosim_csv_read_mdf's. */
rtcosim_status rtcosim_results_print_mdf(const char *path, FILE *out, rtcosim_error *err);
/* The same for an MDF bus log that also holds measured signals (CANape and
 * CANoe log both into one file): after a blank line, the groups' numeric
 * channels; nothing when the file has none. */
rtcosim_status rtcosim_results_print_mdf_signals(const char *path, FILE *out, rtcosim_error *err);
/* A results file's facts for `rtcosim info F.csv|F.mat` (read as `rtcosim
 * plot` reads it): its rows, time span and step (one, or the range of
 * steps), and per column its unit, minimum, maximum and cells that are no
 * number; text columns (String, Binary) named as such. */
rtcosim_status rtcosim_results_print_table(const char *path, FILE *out, rtcosim_error *err);

/* A results file or measurement in another results format (`rtcosim
 * convert`): `in` read as `rtcosim plot` reads it (rtcosim's or fmusim's CSV
 * with or without a units row, a Modelica/Dymola MAT file, an ASAM MDF 4 or
 * 3 measurement, its channel groups on the union of their times), `out`
 * written by the results recorder by its extension (.csv as fmusim's, .mat
 * the Dymola layout, .mf4 ASAM MDF 4.10), every value a Float64 with its
 * unit; times to the nanosecond. Only the named variables, in that order,
 * when some are named (one the file lacks: RTCOSIM_EINVAL naming it, nothing
 * written); only rows with from <= time <= to (NAN: no bound; no row in
 * the window is RTCOSIM_EINVAL, nothing written: a header alone is a file no
 * results reader takes); text columns
 * (String, Binary) are left out and counted, as are a CSV's columns without a
 * value in any row (a CSV to a CSV keeps them empty); 64-bit integers that a
 * double would round (a CSV's, an MDF channel group's read alone) keep their
 * type and every bit. A failed conversion leaves no
 * `out`; stop (called every 4096 rows) returning true ends it with the rows
 * so far written and RTCOSIM_ECANCELED. */
typedef struct rtcosim_results_convert_options {
    const char *const *variables;
    size_t variable_count;
    double from, to;
    bool csv_units;                   /* a units row in a CSV `out` */
    bool (*stop)(void *context);      /* NULL: never */
    void *stop_context;
    /* > 0: the rows resampled on a grid of this step (seconds, to the ns)
     * from `from` (NaN: the first row's time) up to `to` (NaN: the last
     * row's), each point between the input rows around it: linearly (a
     * jump's later row after it), or with hold the last row at or before it;
     * no point before the first row. */
    double raster;
    bool hold;
} rtcosim_results_convert_options;
typedef struct rtcosim_results_convert_stats {
    size_t rows, columns, text_columns_left_out;
    bool stopped;
    size_t empty_columns_left_out; /* a CSV's, no value in any row (not for a CSV out) */
} rtcosim_results_convert_stats;
rtcosim_status rtcosim_results_convert(const char *in, const char *out,
                                       const rtcosim_results_convert_options *options,
                                       rtcosim_results_convert_stats *stats, rtcosim_error *err);

/* Convert a results CSV into an ASAM MDF 4.10 file (.mf4, finalized, sorted)
 * as measurement tools read it (CANape, CANoe, asammdf): one data group and
 * channel group, the time master channel (seconds, a double) and a channel
 * per numeric column in its column's type (Boolean and Clock uint8, integers
 * of their width, Float32 single, else double; an integer column with an
 * empty cell as doubles), with their units and descriptions from columns
 * (may be NULL: doubles; String/Binary columns are left out, said in a
 * warning). start_ns: the measurement's start in ns since 1970 UTC (0: now). */
rtcosim_status rtcosim_results_csv_to_mdf(const char *csv_path, const char *mdf_path,
                                          const rtcosim_column *columns, size_t column_count,
                                          int64_t start_ns, rtcosim_error *err);

/* ---- comparing two results files (src/results/compare.c) ---- */

/* A variable's samples as a curve, linear between samples; two curves
 * match when every sample of each lies within tolerance of the other
 * within time_tol of its time: tol(r) = max(atol, rtol |r|, range_tol *
 * the reference's range over the window). Zeroed options with the
 * tolerances below (from, to NaN) are the CLI's defaults. */
typedef struct rtcosim_compare_options {
    const char *const *variables; /* those compared; none: every numeric one of the reference */
    size_t variable_count;
    double rtol;      /* relative to the value (CLI default 1e-6) */
    double atol;      /* absolute, in the variable's unit */
    double range_tol; /* relative to the reference's range over the window (CLI default 1e-6) */
    double time_tol;  /* seconds an event may move */
    double from, to;  /* the window compared (NaN: the reference's start, stop) */
    /* The FMI cross-check's validation instead of the tolerances above (as
     * FMPy's validate_result applies it to vendors' results): the reference
     * resampled at 1000 points over the window, a band of the minimum and
     * maximum over 21 of them widened by 10 % of its range (of its value
     * when constant, 0.5 at 0); a variable differs when more than 10 % of
     * the actual's samples lie outside. */
    bool fmi_cross_check;
    /* Variables left out (names or shell patterns, as `variables`; a
     * variable the CI cannot hold steady: a CPU time, a wall clock): of
     * those named, or of every numeric one. A name that matches none of the
     * reference's columns is no error. */
    const char *const *exclude;
    size_t exclude_count;
} rtcosim_compare_options;

typedef struct rtcosim_compare_variable {
    const char *name;
    bool missing;             /* not a numeric variable of the actual file */
    bool differs;             /* missing, or samples outside the tolerance */
    size_t checked, outside;  /* samples of both curves checked, and outside */
    double first_outside_time; /* NaN: none */
    double max_abs_diff;      /* largest difference at equal times (the other interpolated) */
    double max_abs_diff_time; /* where (NaN: none) */
    double max_rel_diff;      /* that difference over the reference's value, largest */
    double ref_range;         /* the reference's maximum minus minimum in the window */
} rtcosim_compare_variable;

typedef struct rtcosim_compare_result {
    size_t ref_rows, act_rows;
    double ref_start, ref_stop, act_start, act_stop;
    double from, to;          /* the window compared */
    bool span_short;          /* the actual file does not cover the window */
    size_t extra_in_actual;   /* numeric variables the reference lacks (not compared) */
    size_t empty_in_reference; /* columns without a number in the reference (a CSV's column
                                  of empty strings) the actual lacks: not compared */
    size_t variable_count, differing;
    rtcosim_compare_variable *variables;
    size_t excluded; /* variables of the reference left out by options.exclude */
} rtcosim_compare_result;

/* Compare `actual` with `reference` (each a CSV, Dymola MAT or MDF 4/3
 * results file): *out the per-variable verdicts (free with
 * rtcosim_compare_result_free). A file that cannot be read, a named
 * variable the reference lacks or holds as text, or impossible options are
 * errors naming the file or option. */
rtcosim_status rtcosim_results_compare(const char *reference, const char *actual,
                                       const rtcosim_compare_options *opts,
                                       rtcosim_compare_result **out, rtcosim_error *err);
void rtcosim_compare_result_free(rtcosim_compare_result *r);
/* The comparison as a JUnit XML report (what CI servers show as test
 * results: Jenkins, GitLab, GitHub actions' reporters): one testsuite, a
 * testcase per variable (a failure naming how it differs) and one for the
 * time span; written with libxml2. Errors name the file. */
rtcosim_status rtcosim_compare_write_junit(const rtcosim_compare_result *r,
                                           const char *reference, const char *actual,
                                           const char *path, rtcosim_error *err);

#ifdef __cplusplus
}
#endif
#endif
