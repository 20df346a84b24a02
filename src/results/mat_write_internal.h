/* Writing the Dymola result layout (mat.c): the matrices before data_2,
 * shared by the CSV conversion and the streamed file (mat_stream.c). Not
 * public. */
#ifndef RTCOSIM_RESULTS_MAT_WRITE_INTERNAL_H
#define RTCOSIM_RESULTS_MAT_WRITE_INTERNAL_H

#include <stddef.h>

#include "rtcosim/results.h"

#pragma GCC visibility push(hidden)

struct _mat_t;

/* A numeric column of the file: its name, the recorder's metadata (unit,
 * description; may be NULL) and where its values go: matrix 1 (data_1, a
 * constant) or 2 (data_2, a trajectory), at row (1-based; row 1 of both is
 * time). */
typedef struct mat_entry {
    const char *name;
    const rtcosim_column *meta;
    int matrix, row;
} mat_entry;

/* A new MAT v4 file at path (any file there replaced) holding Aclass, name,
 * description and dataInfo of time and the n entries, then data_1 (n1 x 2,
 * column-major: the start values, then the stop values): the open file,
 * for data_2 to follow, or NULL with err set. libmatio must be loaded. */
struct _mat_t *mat_write_meta(const char *path, const mat_entry *entries, size_t n,
                              const double *data1, size_t n1, rtcosim_error *err);

/* libmatio failed writing path: the partial file removed (a regular one),
 * the error with the reason when the errno saved right after the failing
 * call is one a write gives (ENOSPC, EDQUOT, EFBIG, EIO, EROFS); libmatio
 * reports none of its own. Returns RTCOSIM_EIO. */
rtcosim_status mat_write_failure(const char *path, int saved_errno, rtcosim_error *err);

/* The warning for a String or Binary column a MAT file leaves out. */
void mat_warn_text_left_out(const char *path, const char *name);

#pragma GCC visibility pop

#endif
