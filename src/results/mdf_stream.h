/* An .mf4 results file written while the run goes, for the recorder:
 * records instead of CSV text, finalized at close (mdf_stream.c). Not
 * public. */
#ifndef RTCOSIM_RESULTS_MDF_STREAM_H
#define RTCOSIM_RESULTS_MDF_STREAM_H

#include <stdatomic.h>
#include <stdint.h>

#include "rtcosim/results.h"

#pragma GCC visibility push(hidden)

typedef struct mdf_stream mdf_stream;

/* The layout of a file of these columns (String and Binary ones left out
 * with a warning naming them and `path`), started at start_ns (ns UTC). */
rtcosim_status mdf_stream_open(const char *path, const rtcosim_column *columns, size_t n,
                               int64_t start_ns, mdf_stream **out, rtcosim_error *err);
/* The bytes to write first: the blocks up to the DT block's header. */
const uint8_t *mdf_stream_head(const mdf_stream *m, size_t *bytes);
size_t mdf_stream_record_bytes(const mdf_stream *m);
/* Row `row` at time t as one record at rec (record_bytes); a column whose
 * omit_from is at or below row has no value (NaN, or its invalidation bit). */
void mdf_stream_put(const mdf_stream *m, uint8_t *rec, rtcosim_time_ns t,
                    const rtcosim_value *values, const _Atomic uint64_t *omit_from, uint64_t row);
/* After the last record reached fd (the file at path): the counts and the
 * finalized identification written into it, then past MDF_DT_MAX bytes of
 * records a compressed copy renamed over it (kept uncompressed, with a
 * warning, if that fails). */
rtcosim_status mdf_stream_finish(mdf_stream *m, int fd, const char *path, uint64_t rows,
                                 rtcosim_error *err);
void mdf_stream_free(mdf_stream *m);

#pragma GCC visibility pop

#endif
