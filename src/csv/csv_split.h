/* A CSV line split into fields in place (RFC 4180 quoting: "a ""b""" is
 * a "b"; blanks around a field dropped). Stores up to max field starts in
 * fields (NULL with max 0: only count) and the number found in *count;
 * errors name path, line and field ("missing closing quote", "unexpected
 * text after the closing quote"). Not part of the public API. */
#ifndef RTCOSIM_CSV_SPLIT_H
#define RTCOSIM_CSV_SPLIT_H

#include <stdbool.h>
#include <stddef.h>

#include "rtcosim/csv.h"
#include "rtcosim/status.h"

/* The '\n' that ends the CSV row beginning at `row` (data up to `end`), or
 * NULL when the row runs to `end`: a line break inside a quoted field (RFC
 * 4180 2.6, a String value with a newline as the results write it) belongs
 * to the field; *breaks counts those. */
char *csv_row_end(const char *row, const char *end, size_t *breaks, char sep);

/* A file separated by semicolons, as a spreadsheet or a measurement tool
 * writes it where the decimal point is a comma ("time";"x" / 0;1,5): read
 * as the comma-separated file it stands for. */
/* The separator of the file whose header row starts at `line`: ';' when the
 * header holds semicolons and no comma outside quotes, else ','. */
char csv_header_separator(const char *line, const char *end);
/* A row of such a file, [line, end), rewritten in place as the row it
 * stands for (the same length): ';' outside quotes -> ',', a decimal comma
 * in an unquoted number -> '.' ("-1,5e3"); quoted fields as they are. An
 * unquoted field with a comma that is no number: the error (path, line,
 * field), as it would split. */
rtcosim_status csv_semicolon_row(const char *path, size_t lineno, char *line, char *end,
                                 rtcosim_error *err);
/* A whole file's bytes so rewritten when its header is separated by
 * semicolons (its rows found with their quoted line breaks); nothing
 * changed otherwise. */
rtcosim_status csv_semicolon_file(const char *path, char *data, size_t size, rtcosim_error *err);

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

/* fmusim writes an array variable as one column, its elements in one cell
 * separated by spaces ("1 2 3", row-major; FMIRecorder.c), and reads input
 * arrays so. csv_array_widths: for the row [line, end) (unsplit, a
 * results file's first data row), widths[c] of the column after the time
 * column c (up to max) the count of such numbers in an unquoted cell that
 * holds two or more and nothing else, else 0 (a quoted cell is text, as
 * both fmusim and rtcosim write String values); returns the row's field
 * count. csv_split_blanks: a cell's values separated by blanks, in place
 * (NULs written between them); returns their count, up to max starts
 * kept in tokens. */
size_t csv_array_widths(const char *line, const char *end, size_t *widths, size_t max);
size_t csv_split_blanks(char *cell, char **tokens, size_t max);
/* A copy of `table` in which each column c with widths[c] > 0 (a text
 * column holding such cells) is replaced, in its place, by widths[c]
 * columns named names[c][0..widths[c]), numbers or, where is_text(context,
 * name), text. A cell with another count of values, or an element that is
 * no finite number, is an error naming file, line and column. */
rtcosim_status csv_split_array_columns(const rtcosim_csv *table, const size_t *widths,
                                       const char *const *const *names,
                                       bool (*is_text)(void *context, const char *column),
                                       void *context, rtcosim_csv **out, rtcosim_error *err);

#endif
