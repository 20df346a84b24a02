/* What the CAN log readers and writers share (src/can/log*.c): the parsed
 * log and its helpers, the Vector BLF reader and writer (log_blf_read.c,
 * log_blf_write.c) and the PEAK TRC reader and writer (log_trc.c). */
#ifndef RTCOSIM_CAN_LOG_INTERNAL_H
#define RTCOSIM_CAN_LOG_INTERNAL_H

#include <stdio.h>

#include "rtcosim/can_log.h"

#define CAN_LOG_MAX_BUSES 64

struct rtcosim_can_log {
    rtcosim_can_log_record *records;
    size_t count, capacity;
    char *buses[CAN_LOG_MAX_BUSES];
    size_t bus_count;
    size_t xl_count; /* CAN XL frames read and left out */
    rtcosim_can_log_format source; /* the format it was read from */
    /* Times are since 1970 UTC (candump -l; an MDF log whose frames start
     * before its measurement's start), not from a measurement's start. */
    bool absolute;
    /* A database the log carries (an MDF bus log's attached .dbc), its text
     * (NUL-terminated) and file name; NULL: none. */
    char *database, *database_name;
    size_t database_size;
    /* Streaming (rtcosim_can_log_scan): each record goes to the sink instead
     * of into `records` (`count` still counts them); NULL: kept. */
    rtcosim_can_log_frame_fn *sink;
    void *sink_context;
    /* While a file is read: its view, whose pages before a reader's
     * position are given back (can_log_done); NULL for a buffer. */
    struct util_file_view *view;
};

/* The reader is done with the input's bytes before `upto` (a pointer into
 * it): a mapped file's pages before it may leave the process. */
void can_log_done(rtcosim_can_log *log, const void *upto);

/* Takes a record: to the sink when the log streams, else appended (file
 * names the log in the out-of-memory message). */
rtcosim_status can_log_add(rtcosim_can_log *log, const rtcosim_can_log_record *rec,
                           const char *file, rtcosim_error *err);

/* The index of bus `name`, added when new: 0, -1 out of memory, -2 when the
 * log already has CAN_LOG_MAX_BUSES buses. */
int can_log_bus(rtcosim_can_log *log, const char *name, uint32_t *out);

/* A log entry's bits on the wire, stuff bits included (the length fields of
 * ASC's CAN FD/XL lines and of BLF objects). */
uint32_t can_log_entry_bits(const rtcosim_can_log_entry *e);

/* True when the bytes start as a binary log (BLF or MDF): any other log is
 * text (util_file_view_open). */
bool can_log_is_binary(const char *data, size_t size);

/* True when the bytes start as a BLF file ("LOGG"). */
bool can_log_is_blf(const void *data, size_t size);

/* Reads a BLF file's CAN frames into log (errors name the file and the byte
 * offset of the object at fault). */
rtcosim_status can_log_parse_blf(const uint8_t *data, size_t size, const char *name,
                                 rtcosim_can_log *log, rtcosim_error *err);

/* True when the bytes start as an MDF file; its CAN frames (an ASAM MDF 4
 * bus log, src/results/mdf_bus.c) into log. */
bool can_log_is_mdf(const void *data, size_t size);
rtcosim_status can_log_parse_mdf(const uint8_t *data, size_t size, const char *name,
                                 rtcosim_can_log *log, rtcosim_error *err);

/* Each line of text[at..size) (line ends LF, CR LF or CR; NUL-terminated
 * in a reusable buffer) to line_fn(context, line), which may modify it,
 * until one fails; *lineno counts them (for the callback's messages). A
 * line holding a NUL byte is the error "NAME:LINE: WHAT: binary data (a NUL
 * byte)". can_log_done is told the progress every 65536 lines (log_read.c). */
rtcosim_status can_log_lines(const char *text, size_t size, size_t at, const char *name,
                             const char *what, rtcosim_can_log *log, int *lineno,
                             rtcosim_status (*line_fn)(void *context, char *line), void *context,
                             rtcosim_error *err);

/* True when text (from its first non-blank byte) starts as a PEAK TRC trace:
 * a ';' comment or header line, or a 1.0 message line "N) ..."; its CAN
 * frames from text[at..size) into log (log_trc.c). */
bool can_log_is_trc(const char *text, size_t size);
rtcosim_status can_log_parse_trc(const char *text, size_t size, size_t at, const char *name,
                                 rtcosim_can_log *log, rtcosim_error *err);

/* Writes a TRC 2.1 trace to f an entry at a time (log_trc.c): begin (NULL
 * out of memory; bus names bus 1 in the header), add an entry (CAN XL ones
 * counted, left out), end writes the header if no frame came (when ok) and
 * frees; *xl (may be NULL): the CAN XL frames left out. Does not close f. */
typedef struct trc_writer trc_writer;
trc_writer *can_log_trc_begin(FILE *f, const char *bus);
bool can_log_trc_add(trc_writer *w, const rtcosim_can_log_entry *e);
bool can_log_trc_end(trc_writer *w, bool ok, size_t *xl);

/* Writes a BLF file to f (opened "wb", seekable) an entry at a time:
 * begin writes the header (NULL out of memory), add an entry (false when
 * a write failed), end the last container and the header's sizes, and
 * frees (false when a write failed or ok is false). Does not close f. */
typedef struct blf_writer blf_writer;
blf_writer *can_log_blf_begin(FILE *f);
bool can_log_blf_add(blf_writer *w, const rtcosim_can_log_entry *e);
bool can_log_blf_end(blf_writer *w, bool ok);

#endif
