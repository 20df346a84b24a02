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
    char *part;    /* TARGET.part, written and renamed to TARGET when whole */
    char *target;  /* PATH, or the file a symbolic link at PATH leads to (the link stays) */
    int part_slot; /* (result_part_register: a second Ctrl-C removes it) */
    int fd;
    int error;   /* the first write's errno, 0 while all went */
    bool closed; /* PLplot closed the stream itself */
    FILE *stream;
} plot_out;

/* Create (truncate) path.part and a stream on it for plsfile: an image is
 * never seen half written, and one already at path stays until the new one
 * is whole. */
rtcosim_status plot_out_open(plot_out *o, const char *path, rtcosim_error *err);
/* After plend: close the stream (unless PLplot did) and the file and
 * rename it to path; an error naming path when any write or the rename
 * failed, and then the partial file is removed. */
rtcosim_status plot_out_finish(plot_out *o, const char *path, rtcosim_error *err);

#endif
