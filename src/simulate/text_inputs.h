/* Inputs an input table keeps as text (text_inputs.c): Binary from hex
 * cells, Int64 and UInt64 read exactly (a double holds only 53 bits). */
#ifndef RTCOSIM_SIMULATE_TEXT_INPUTS_H
#define RTCOSIM_SIMULATE_TEXT_INPUTS_H

#include <stdint.h>

#include "rtcosim/component.h"
#include "rtcosim/csv.h"

/* Decodes the text columns columns[0..count) (variables names[k]) of every
 * row into cells[row * count + k], the bytes in one block *bytes; both
 * allocated (the caller frees them, also on failure). */
rtcosim_status simulate_binary_decode(const rtcosim_csv *table, const size_t *columns,
                                      const char *const *names, size_t count,
                                      rtcosim_binary **cells, uint8_t **bytes, rtcosim_error *err);

/* Reads the text column `column` of an Int64 or UInt64 input (variable v)
 * exactly into (*cells)[row], allocated (the caller frees it, also on
 * failure): a whole number in the type's range, written as an integer or as
 * any number whose value is one ("5.0", "1e3"), else an error naming file,
 * line and column. UInt64 values are kept as their bits. */
rtcosim_status simulate_integer_decode(const rtcosim_csv *table, size_t column,
                                       const rtcosim_variable *v, uint64_t **cells,
                                       rtcosim_error *err);

/* The input table with the columns that name an array of the component
 * (FMI 3.0), each cell holding its elements as fmusim writes and reads them
 * ("1 2 3", row-major), split into a column per element: *out a new table,
 * or NULL when no column names an array. */
rtcosim_status simulate_split_array_inputs(rtcosim_component *c, const rtcosim_csv *in,
                                           rtcosim_csv **out, rtcosim_error *err);

#endif
