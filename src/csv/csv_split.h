/* A CSV line split into fields in place (RFC 4180 quoting: "a ""b""" is
 * a "b"; blanks around a field dropped). Stores up to max field starts in
 * fields (NULL with max 0: only count) and the number found in *count;
 * errors name path, line and field ("missing closing quote", "unexpected
 * text after the closing quote"). Not part of the public API. */
#ifndef RTCOSIM_CSV_SPLIT_H
#define RTCOSIM_CSV_SPLIT_H

#include <stdbool.h>
#include <stddef.h>

#include "rtcosim/status.h"

/* The '\n' that ends the CSV row beginning at `row` (data up to `end`), or
 * NULL when the row runs to `end`: a line break inside a quoted field (RFC
 * 4180 2.6, a String value with a newline as the results write it) belongs
 * to the field; *breaks counts those. */
char *csv_row_end(const char *row, const char *end, size_t *breaks);

rtcosim_status csv_split_fields(const char *path, size_t lineno, char *line, char **fields,
                                size_t max, size_t *count, rtcosim_error *err);

/* A header line split the same way into *fields (malloc'd, one start per
 * field, *count of them): counted on a copy first, as splitting works in
 * place. */
rtcosim_status csv_split_header(const char *path, size_t lineno, char *line, char ***fields,
                                size_t *count, rtcosim_error *err);

/* A header's names checked (fields[0..n), fields[0] the time column):
 * "column K has an empty name" for the first empty one after the time
 * column, "column \"NAME\" appears twice" for the first name an earlier one
 * repeats, whichever comes first; path and lineno start the message.
 * Repeats are found by sorting, O(n log n): pairwise comparison had taken 40
 * s on a header of 100 000 columns. */
rtcosim_status csv_check_names(const char *path, size_t lineno, char *const *fields, size_t n,
                               rtcosim_error *err);

#endif
