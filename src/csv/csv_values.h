/* Numbers of an input table as values of a variable's type: whether a
 * column's cells fit the type (integral and in range for the integers, 0 or
 * 1 for Booleans), and a cell stored as that type. Shared by `rtcosim
 * simulate`'s input file (src/simulate) and the table component
 * (src/system/table.c), and a table built from series read elsewhere. Not
 * part of the public API. */
#ifndef RTCOSIM_CSV_VALUES_H
#define RTCOSIM_CSV_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/component.h"
#include "rtcosim/csv.h"

#pragma GCC visibility push(hidden)

/* Can CSV cells hold values of this type (the floats, the integers,
 * Boolean)? */
bool csv_type_is_number(rtcosim_type type);
/* Every cell of `column` a valid value of `type` (one of csv_type_is_number);
 * else an error naming the file, line, column and value. */
rtcosim_status csv_column_check_type(const rtcosim_csv *table, size_t column, rtcosim_type type,
                                     rtcosim_error *err);
/* The text column `column` (rtcosim_csv_read_file_text) of an Int64 or
 * UInt64 value read exactly into cells[row] (rtcosim_csv_row_count(table)
 * of them), where a double would round past 2^53 (9007199254740993 to
 * ...992) and refuse 2^63 - 1: each cell a whole number in the type's range,
 * written as an integer or as any number whose value is one ("5.0", "1e3"),
 * else an error naming the file, line, column `name` and the cell. UInt64
 * values are kept as their bits, Int64 ones as int64_t's. */
rtcosim_status csv_column_read_integers(const rtcosim_csv *table, size_t column,
                                        const char *name, rtcosim_type type, uint64_t *cells,
                                        rtcosim_error *err);
/* A table from series read elsewhere (a MAT result file, a measurement):
 * rows points of time (seconds, non-decreasing) and `columns` named series
 * of finite values. A column whose rows are not all its own samples (a
 * measurement's channel on the union of several rates' times, holding its
 * last sample) has in linear[c] what interpolation between its own samples
 * gives at each row, for the inputs that interpolate
 * (rtcosim_csv_cursor_linear); linear or linear[c] NULL: the values
 * themselves. Messages name the table `name` and a point by its number
 * from 1, which rtcosim_csv_line returns for it. */
rtcosim_status csv_from_series(const char *name, size_t rows, const double *time_s,
                               size_t columns, const char *const *names,
                               const double *const *values, const double *const *linear,
                               rtcosim_csv **out, rtcosim_error *err);
/* A cell as linear interpolation reads it: csv_from_series's linear values
 * where a column has them, else rtcosim_csv_value. */
double csv_linear_value(const rtcosim_csv *table, size_t row, size_t column);
/* x as a value of `type` at slot (rtcosim_type_size(type) bytes; a Boolean
 * is x != 0). */
void csv_store_number(rtcosim_type type, double x, void *slot);

#pragma GCC visibility pop

#endif
