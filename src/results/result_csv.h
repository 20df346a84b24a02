/* A results CSV read back for conversion at close (mat.c, mdf.c), a row at
 * a time: every cell as text (the recorder's "nan", "inf" and "-inf" read
 * back exactly), its numbers by strtod (shortest round-trip text: the values
 * are the run's bit for bit), and each CSV column's metadata from the
 * recorder's columns. */
#ifndef RTCOSIM_RESULTS_RESULT_CSV_H
#define RTCOSIM_RESULTS_RESULT_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "rtcosim/csv.h"
#include "rtcosim/results.h"

#pragma GCC visibility push(hidden)

/* The recorder's column of that name, or NULL (columns may be NULL). */
const rtcosim_column *result_csv_meta(const rtcosim_column *columns, size_t count,
                                      const char *name);
/* String and Binary columns: not numbers. */
bool result_csv_is_text(const rtcosim_column *meta);

/* The results CSV read a row at a time, twice (to choose each column's
 * storage or matrix, then to write the records), so that converting a long run holds
 * one row, not the run: a 24 h run at 1 kHz is 86 million rows. The CSV is
 * the recorder's (or can decode's): a header of quoted names, then rows of a
 * time and cells (numbers bare, "nan"/"inf" as the recorder writes them,
 * texts quoted as RFC 4180 says, line breaks inside quotes included). */
typedef struct result_csv_stream {
    FILE *f;
    const char *path;
    char *line;          /* the logical row (fields unquoted in place) */
    size_t len, cap;
    char **fields;
    size_t nfields, cap_fields;
    size_t lineno;
    char *chunk; /* getline's buffer, kept from line to line */
    size_t chunk_cap;
} result_csv_stream;
/* The next logical row split into s->fields; 0 at the end, 1 a row, -1 an
 * error (err set). */
int result_csv_row(result_csv_stream *s, rtcosim_error *err);
/* Frees the stream's buffers and closes its file. */
void result_csv_stream_close(result_csv_stream *s);
/* A cell's number; NaN for an empty or unreadable one. */
double result_csv_number(const char *text);
/* A row's time: the exact decimal, else a double rounded to the tick. */
bool result_csv_time(const char *text, rtcosim_time_ns *out);

#pragma GCC visibility pop

#endif
