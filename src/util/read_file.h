/* Reading a whole input file into memory, shared by the file readers (CSV
 * tables, SSP descriptions) so that each reports open and read failures the
 * same way and none grows its own buffer loop. Internal to the library. */
#ifndef RTCOSIM_UTIL_READ_FILE_H
#define RTCOSIM_UTIL_READ_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "rtcosim/status.h"

/* Whether the first bytes of a source (size of them) are binary data. */
typedef bool util_is_binary_fn(const char *data, size_t size);

/* Reads all of `path` into a malloc'd buffer (*data, *size; free() it; not
 * NUL-terminated). Messages start with `label` and read "cannot open KIND:
 * reason" ("cannot open: reason" when kind is NULL). A missing file is
 * RTCOSIM_ENOTFOUND, other failures RTCOSIM_EIO or RTCOSIM_ENOMEM; on
 * failure *data is NULL. A source that is not a regular file (a pipe, a
 * device) ends as an error past 1 GiB, so /dev/zero is not read until
 * memory runs out. */
rtcosim_status util_read_file(const char *path, const char *label, const char *kind,
                              char **data, size_t *size, rtcosim_error *err);
#define UTIL_READ_STREAM_LIMIT_MIB 1024
/* util_read_file with another limit on a stream (0: none). */
rtcosim_status util_read_file_limit(const char *path, const char *label, const char *kind,
                                    size_t stream_limit, char **data, size_t *size,
                                    rtcosim_error *err);

/* The same for a text file: from a source that is not a regular file (a
 * pipe, a device) a NUL byte ends the read at once as the error "LABEL: not
 * a text KIND (a NUL byte at byte N)", so /dev/zero or binary data piped in
 * is refused instead of read without end. */
rtcosim_status util_read_text_file(const char *path, const char *label, const char *kind,
                                   char **data, size_t *size, rtcosim_error *err);

/* An XML file: as util_read_text_file, except that a stream that begins as
 * UTF-16 (a byte-order mark, or '<' beside a NUL) is read as binary data, as
 * util_read_file reads it. */
rtcosim_status util_read_xml_file(const char *path, const char *label, const char *kind,
                                  char **data, size_t *size, rtcosim_error *err);

/* A whole input file, read-only: a regular file is mapped (its pages are the
 * page cache's, read on demand and given back under memory pressure, so a
 * log of gigabytes costs no heap), anything else (a pipe, /dev/stdin) read
 * with util_read_file; binary (NULL: any content is read whole): such a
 * source whose first bytes binary() does not take for binary data is text,
 * and a NUL byte ends it as an error at once (an endless /dev/zero is not
 * read to its end). Messages as util_read_file's. Release with
 * util_file_view_close (a zeroed view is a no-op). A mapped file that another
 * process truncates while it is read raises SIGBUS, as for any mapping. */
typedef struct util_file_view {
    const char *data;
    size_t size;
    bool mapped;
    size_t released; /* (mapped: bytes given back so far, util_file_view_done) */
} util_file_view;

rtcosim_status util_file_view_open(const char *path, const char *label, const char *kind,
                                   util_is_binary_fn *binary, util_file_view *view,
                                   rtcosim_error *err);
void util_file_view_close(util_file_view *view);
/* The reader is done with the bytes before `upto` (an offset): a mapped
 * file's pages before it leave the process (they stay in the page cache),
 * so a sequential read keeps a bounded set of pages resident. */
void util_file_view_done(util_file_view *view, size_t upto);

#endif
