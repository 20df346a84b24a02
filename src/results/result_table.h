/* A results file read back into one shape: time, and per variable its name,
 * unit and values (result_table.c reads the Modelica/Dymola MAT layout;
 * src/plot also fills it from CSV). Not part of the public API. */
#ifndef RTCOSIM_RESULT_TABLE_H
#define RTCOSIM_RESULT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/status.h"

/* A column of 64-bit integers that a double would round (some past 2^53):
 * where the reader can carry them exactly, the type they fit. */
typedef enum result_exact {
    RESULT_EXACT_NONE,
    RESULT_EXACT_INT64,
    RESULT_EXACT_UINT64,
} result_exact;

typedef struct result_column {
    char *name;
    char *unit;     /* NULL: none known ("" in a units row counts as none) */
    double *values; /* one per row; NaN where the cell is empty or not a number */
    bool text;      /* every non-empty cell is text, none a number (String, Binary) */
    bool empty;     /* a CSV's: no cell holds anything (not text: no word either) */
    /* A column of numbers (not text): its cells that are neither empty nor
     * a number ("n/a", "1,5"), NaN in values; 0 for a MAT or MDF file. */
    size_t not_numbers;
    /* A channel of a multi-rate measurement put on the union of its groups'
     * times (values held there): its own samples, for a plot that draws
     * them and not the held points; NULL when the rows are its own. */
    double *own_time, *own_values;
    size_t own_rows;
    /* Set by the readers that stream (a CSV's kinds pass: every cell an
     * integer literal, some past 2^53; an MDF channel group streamed alone:
     * an integer channel of more than 53 bits without conversion); values
     * holds them rounded (an invalid sample NaN), a row sink gets their
     * bits too. */
    result_exact exact;
} result_column;

typedef struct result_table {
    char *path;
    char *first_name; /* name of the abscissa column: "time" in results */
    size_t rows;
    double *time;     /* the first column, non-decreasing */
    size_t column_count;
    result_column *columns;
} result_table;

/* rows x columns of zeros, names NULL; NULL when out of memory. */
result_table *result_table_new(const char *path, size_t rows, size_t columns);
void result_table_free(result_table *t);
ptrdiff_t result_table_find(const result_table *t, const char *name);
/* A MAT result file (Aclass, name, description, dataInfo, data_1, data_2;
 * a data_1 variable is constant over the rows); errors name the file. */
rtcosim_status result_table_read_mat(const char *path, result_table **out, rtcosim_error *err);
/* An ASAM MDF 4 file (mdf_read.c: numeric channels, every channel group on
 * the union of their times); errors name the file. */
rtcosim_status result_table_read_mdf(const char *path, result_table **out, rtcosim_error *err);
/* Which variables a reader keeps (`rtcosim plot a b`, read_result(variables=)):
 * NULL or count 0 keeps every one. A name the file does not have is not an
 * error here: the caller says what it missed. The time column is always kept. */
typedef struct result_select {
    const char *const *names;
    size_t count;
} result_select;
bool result_select_has(const result_select *s, const char *name);
/* Names are the variables' own or shell patterns (fnmatch(3) without flags:
 * '*' and '?' match dots too, "engine.*", "*_rpm", "y[12]"); a name that is
 * a column of the file is that column even where it holds such characters
 * (an FMI 3.0 array element "y[1]"). */
bool result_name_is_pattern(const char *name);
/* Whether list[0..n) holds name (the same text). */
bool result_names_have(const char *const *list, size_t n, const char *name);
bool result_select_matches(const char *want, const char *name);
/* The selection `names` over the columns of the tables (several files: a
 * plot's): a name that is a column of any is itself; a pattern is every
 * column it matches, the first table's in its order, then the others'; any
 * other name stays, for the caller to say no column has it; each once, where
 * first selected. *out (malloc'd) points into names and the tables. */
rtcosim_status result_select_expand(const result_table *const *tables, size_t table_count,
                                    const char *const *names, size_t count, const char ***out,
                                    size_t *out_count, rtcosim_error *err);
/* Drops the columns `s` does not name (for a reader that reads them all). */
void result_table_keep(result_table *t, const result_select *s);
/* Drops the columns not in names[0..count) by their exact names (the list
 * result_select_expand made: a pattern-like name that is a column is that
 * column alone). */
void result_table_keep_listed(result_table *t, const char *const *names, size_t count);
/* result_table_read_mat keeping only the variables `s` names (data_2 read a
 * slab at a time: the memory of those variables). */
rtcosim_status result_table_read_mat_select(const char *path, const result_select *s,
                                            result_table **out, rtcosim_error *err);
/* result_table_read_mdf keeping only the channels `s` names: only the
 * channel groups that hold one are read (their records walked a data block
 * at a time, keeping their times and those channels), so the rows are the
 * union of those groups' times; each channel's own samples (own_time, or
 * the rows when there are none) are the whole read's. */
rtcosim_status result_table_read_mdf_select(const char *path, const result_select *s,
                                            result_table **out, rtcosim_error *err);
/* An MDF file's channels that `s` names (no selection: every group with a
 * master) handed over a row at a time, the rows of their table: `columns`
 * gets the table's columns (no rows; the sink keeps it), then `row` each
 * row's time and values in its column order. One group read: its records
 * as they are; several: merged by time as read, on the union of their
 * times, each channel holding its last sample (NaN before its first). A
 * data block of each group held at a time. *outcome RESULT_NOT_STREAMABLE:
 * nothing handed over (no group read, or a variable-length one: read the
 * table); RESULT_OUT_OF_ORDER: rows handed over until a group's time was
 * NaN or less than the one before (start again with the table, which
 * sorts). */
typedef struct result_row_sink {
    void *context;
    rtcosim_status (*columns)(void *context, result_table *t, rtcosim_error *err);
    /* bits: per column, an exact column's value (int64_t or uint64_t as
     * its `exact` says); NULL when the stream has none */
    rtcosim_status (*row)(void *context, double time, const double *values,
                          const uint64_t *bits, rtcosim_error *err);
} result_row_sink;
typedef enum result_stream_outcome {
    RESULT_STREAMED,
    RESULT_NOT_STREAMABLE,
    RESULT_OUT_OF_ORDER,
} result_stream_outcome;
rtcosim_status result_mdf_stream_select(const char *path, const result_select *sel,
                                        const result_row_sink *sink,
                                        result_stream_outcome *outcome, rtcosim_error *err);
/* The same for a MAT result file whose data_2 is binTrans and read in slabs
 * (MAT v4, as Dymola, OpenModelica and rtcosim write it): its rows a slab
 * of time points at a time (a time that decreases: the table's error, after
 * the rows before it); else RESULT_NOT_STREAMABLE. */
rtcosim_status result_mat_stream_select(const char *path, const result_select *sel,
                                        const result_row_sink *sink,
                                        result_stream_outcome *outcome, rtcosim_error *err);
rtcosim_status result_mdf_stream_bytes_select(const uint8_t *data, size_t size, const char *path,
                                              const result_select *sel,
                                              const result_row_sink *sink,
                                              result_stream_outcome *outcome, rtcosim_error *err);
/* The value at x on the line through (x0, y0) and (x1, y1), as numpy.interp
 * computes it (slope times the distance, plus the value before), so that a
 * resampled or compared curve is numpy's bit for bit; y1 when x1 <= x0 (a
 * jump: its later value). */
static inline double result_interp(double x0, double y0, double x1, double y1, double x)
{
    if (x1 <= x0)
        return y1;
    double slope = (y1 - y0) / (x1 - x0);
    return slope * (x - x0) + y0;
}
rtcosim_status result_table_read_mdf_bytes(const uint8_t *data, size_t size, const char *path,
                                           result_table **out, rtcosim_error *err);
rtcosim_status result_table_read_mdf_bytes_select(const uint8_t *data, size_t size,
                                                  const char *path, const result_select *sel,
                                                  result_table **out, rtcosim_error *err);

#endif
