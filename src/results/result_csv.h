/* A results CSV read back for conversion at close (mat.c, mdf.c): every
 * column as text (the recorder's "nan", "inf" and "-inf" read back exactly),
 * its numbers by strtod (shortest round-trip text: the values are the run's
 * bit for bit), and each CSV column's metadata from the recorder's columns. */
#ifndef RTCOSIM_RESULTS_RESULT_CSV_H
#define RTCOSIM_RESULTS_RESULT_CSV_H

#include <stdbool.h>
#include <stddef.h>

#include "rtcosim/csv.h"
#include "rtcosim/results.h"

#pragma GCC visibility push(hidden)

rtcosim_status result_csv_read(const char *csv_path, rtcosim_csv **table, rtcosim_error *err);
/* A cell's number; NAN for an empty or unreadable cell. */
double result_csv_cell(const rtcosim_csv *table, size_t row, size_t column);
/* The recorder's column of that name, or NULL (columns may be NULL). */
const rtcosim_column *result_csv_meta(const rtcosim_column *columns, size_t count,
                                      const char *name);
/* String and Binary columns: not numbers. */
bool result_csv_is_text(const rtcosim_column *meta);

#pragma GCC visibility pop

#endif
