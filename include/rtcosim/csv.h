/* Input tables in fmusim's CSV format: a header row with `time` first (quoted
 * or not), then one row of numbers per time point, time non-decreasing (equal
 * times mark a discontinuity: from that instant on the later row applies).
 * Every error names the file and line ("in.csv:7: ..."). A cursor interpolates
 * values at increasing times in O(1) amortized without allocating: linear for
 * continuous signals, hold (last row at or before t) for discrete ones; before
 * the first row the first row applies, after the last row the last. */
#ifndef RTCOSIM_CSV_H
#define RTCOSIM_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/status.h"
#include "rtcosim/time.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rtcosim_csv rtcosim_csv; /* opaque, immutable after reading */

/* Read and validate a whole file. */
rtcosim_status rtcosim_csv_read_file(const char *path, rtcosim_csv **out, rtcosim_error *err);
/* Same from memory; name is used in messages (and kept as the table's name). */
rtcosim_status rtcosim_csv_read_memory(const char *name, const void *data, size_t size,
                                       rtcosim_csv **out, rtcosim_error *err);
/* Like rtcosim_csv_read_file / _read_memory, but the columns for which
 * is_text(context, name) is true keep their cells as the text written
 * (rtcosim_csv_text; rtcosim_csv_value is NaN there), for values that are
 * not numbers: Binary inputs as fmusim reads them (hex). */
rtcosim_status rtcosim_csv_read_file_text(const char *path,
                                          bool (*is_text)(void *context, const char *column),
                                          void *context, rtcosim_csv **out, rtcosim_error *err);
rtcosim_status rtcosim_csv_read_memory_text(const char *name, const void *data, size_t size,
                                            bool (*is_text)(void *context, const char *column),
                                            void *context, rtcosim_csv **out, rtcosim_error *err);
/* A text column's cell (quotes removed), or NULL for a numeric column. */
const char *rtcosim_csv_text(const rtcosim_csv *table, size_t row, size_t column);
/* A general table (for plotting): like rtcosim_csv_read_file, but the first
 * column may have any name; its values are still read as non-decreasing
 * numbers in whole nanoseconds (e.g. step sizes of a sweep). */
rtcosim_status rtcosim_csv_read_table_file(const char *path, rtcosim_csv **out,
                                           rtcosim_error *err);
/* A general table from memory with text columns (results read for
 * plotting: "nan" and "inf" cells kept as text). */
rtcosim_status rtcosim_csv_read_table_memory_text(const char *name, const void *data, size_t size,
                                                  bool (*is_text)(void *context, const char *column),
                                                  void *context, rtcosim_csv **out,
                                                  rtcosim_error *err);
/* A MAT result file in the Modelica/Dymola layout (what `-o F.mat`, Dymola,
 * OpenModelica and OMSimulator write) as an input table: its variables,
 * time first, are the columns (a data_1 variable is constant). Messages name
 * a point by its number where a CSV's name a line (rtcosim_csv_line). */
rtcosim_status rtcosim_csv_read_mat(const char *path, rtcosim_csv **out, rtcosim_error *err);
/* An ASAM MDF 4 or MDF 3 measurement file (.mf4, .mdf: what CANape, CANoe,
 * INCA, asammdf and `-o F.mf4` write) as an input table: its numeric
 * channels, several channel groups on the union of their times. There a
 * channel read held (rtcosim_csv_value, rtcosim_csv_cursor_hold) gives its
 * last valid sample, read interpolated (rtcosim_csv_cursor_linear) the line
 * between its own valid samples, not between the other groups' times; before
 * its first sample and after its last both give that sample. */
rtcosim_status rtcosim_csv_read_mdf(const char *path, rtcosim_csv **out, rtcosim_error *err);
/* An input file by its ending (ASCII case ignored): ".mat" a MAT result file
 * (rtcosim_csv_read_mat: numbers only, is_text is not asked), ".mf4" or
 * ".mdf" an MDF file (rtcosim_csv_read_mdf, numbers only), anything else CSV
 * (rtcosim_csv_read_file_text; is_text NULL: every column numeric). */
rtcosim_status rtcosim_csv_read_input_file(const char *path,
                                           bool (*is_text)(void *context, const char *column),
                                           void *context, rtcosim_csv **out,
                                           rtcosim_error *err);
/* Keep only the columns named from[0..n) (in this order), renamed to[i],
 * before the table is used (no cursor on it yet): a measurement's channels
 * mapped to the inputs they drive (simulate --input-column). Errors: a
 * column the table lacks (with the nearest name), a new name given twice. */
rtcosim_status rtcosim_csv_select_columns(rtcosim_csv *table, size_t n, const char *const *from,
                                          const char *const *to, rtcosim_error *err);
void rtcosim_csv_free(rtcosim_csv *table); /* NULL is a no-op */
/* Name of the first column: "time" for input files. */
const char *rtcosim_csv_first_column_name(const rtcosim_csv *table);

const char *rtcosim_csv_name(const rtcosim_csv *table);
/* Columns besides time. */
size_t rtcosim_csv_column_count(const rtcosim_csv *table);
const char *rtcosim_csv_column_name(const rtcosim_csv *table, size_t column);
/* Index of the column with exactly this name, or -1. */
ptrdiff_t rtcosim_csv_find_column(const rtcosim_csv *table, const char *name);
size_t rtcosim_csv_row_count(const rtcosim_csv *table); /* at least 1 */
rtcosim_time_ns rtcosim_csv_time(const rtcosim_csv *table, size_t row);
double rtcosim_csv_value(const rtcosim_csv *table, size_t row, size_t column);
/* Line of the file a row came from (1-based), for messages. */
size_t rtcosim_csv_line(const rtcosim_csv *table, size_t row);

/* Where a table is read at time t; plain struct so it lives on the stack or in
 * a run's preallocated state. */
typedef struct rtcosim_csv_cursor {
    const rtcosim_csv *table;
    size_t row;    /* last row with time <= t (0 before the first row) */
    double weight; /* linear weight of row+1, in [0, 1); 0 when holding */
} rtcosim_csv_cursor;

void rtcosim_csv_cursor_init(rtcosim_csv_cursor *cursor, const rtcosim_csv *table);
/* Move to time t. O(1) amortized for non-decreasing t; a step back costs a
 * binary search. */
void rtcosim_csv_cursor_seek(rtcosim_csv_cursor *cursor, rtcosim_time_ns t);
/* The same, but where rows repeat t (a jump) the cursor stands at the first
 * of them: interpolated columns give the value the jump starts from (as
 * they reach t from before). */
void rtcosim_csv_cursor_seek_before(rtcosim_csv_cursor *cursor, rtcosim_time_ns t);
/* Value of a column at the cursor: held (discrete) or linearly interpolated. */
double rtcosim_csv_cursor_hold(const rtcosim_csv_cursor *cursor, size_t column);
double rtcosim_csv_cursor_linear(const rtcosim_csv_cursor *cursor, size_t column);

#ifdef __cplusplus
}
#endif
#endif
