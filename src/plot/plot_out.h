/* The plot file PLplot writes, through a stream of ours: PLplot's drivers
 * write with fwrite and never look at the result, so a full disk left a
 * truncated image and exit 0. The stream's write function is the one place
 * every byte passes, and it keeps the first error. */
#ifndef RTCOSIM_PLOT_OUT_H
#define RTCOSIM_PLOT_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "rtcosim/status.h"

typedef struct plot_out {
    int fd;
    int error;   /* the first write's errno, 0 while all went */
    bool closed; /* PLplot closed the stream itself */
    FILE *stream;
} plot_out;

/* Create (truncate) path and a stream on it for plsfile. */
rtcosim_status plot_out_open(plot_out *o, const char *path, rtcosim_error *err);
/* After plend: close the stream (unless PLplot did) and the file; an error
 * naming path when any write failed, and then the partial file is removed. */
rtcosim_status plot_out_finish(plot_out *o, const char *path, rtcosim_error *err);

#endif
