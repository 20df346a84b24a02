/* A .mat results file written while the run goes, for the recorder (as
 * mdf_stream.h is for .mf4): data_2's time points appended as they come,
 * the counts patched in place (mat_stream.c). Not public. */
#ifndef RTCOSIM_RESULTS_MAT_STREAM_H
#define RTCOSIM_RESULTS_MAT_STREAM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "rtcosim/results.h"

#pragma GCC visibility push(hidden)

typedef struct mat_stream mat_stream;

/* The file at path begun for these columns (String and Binary ones left out
 * with a warning naming them and `path`): the matrices before data_2,
 * written by libmatio. The columns must outlive the stream. */
rtcosim_status mat_stream_open(const char *path, const rtcosim_column *columns, size_t n,
                               mat_stream **out, rtcosim_error *err);
/* The bytes to append next: data_2's header. */
const uint8_t *mat_stream_head(const mat_stream *m, size_t *bytes);
size_t mat_stream_record_bytes(const mat_stream *m);
/* False once the file holds as many time points as a MAT v4 matrix can
 * (2^31 - 1); the rows after are counted, not written. */
bool mat_stream_has_room(mat_stream *m);
/* Row `row` at time t as data_2's next column at rec (record_bytes); a
 * column whose omit_from is at or below row is NaN there. */
void mat_stream_put(mat_stream *m, uint8_t *rec, rtcosim_time_ns t, const rtcosim_value *values,
                    const _Atomic uint64_t *omit_from, uint64_t row);
/* The file made whole for its first `rows` time points (on fd, after they
 * were written): data_2's column count and data_1's times and parameters.
 * Async-signal-safe (pwrite only). */
void mat_stream_patch(const mat_stream *m, int fd, uint64_t rows);
/* After the last time point reached fd (the file at path): the counts
 * patched, and if a parameter changed during the run, the file rewritten
 * with it in data_2 (a copy renamed over it). */
rtcosim_status mat_stream_finish(mat_stream *m, int fd, const char *path, uint64_t rows,
                                 rtcosim_error *err);
void mat_stream_free(mat_stream *m);

#pragma GCC visibility pop

#endif
