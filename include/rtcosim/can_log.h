/* CAN logs in the formats engineers' tools read: candump -l (can-utils'
 * log file format, read by `canplayer`, python-can's CanutilsLogReader,
 * Wireshark), Vector ASC (CANalyzer/CANoe, python-can's ASCReader), Vector
 * BLF (CANalyzer/CANoe, python-can's BLFReader, Wireshark), ASAM MDF 4 bus
 * logs and PEAK TRC (PCAN-View/PCAN-Explorer, python-can's TRCReader).
 * Times are the frames' end-of-frame times on the bus (when a receiver has
 * the frame). */
#ifndef RTCOSIM_CAN_LOG_H
#define RTCOSIM_CAN_LOG_H

#include "rtcosim/can.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rtcosim_can_log_format {
    /* "(0000000000.000150) can0 0C8#AB01": seconds with microseconds (times
     * rounded to the nearest microsecond), interface, id as 3 (standard) or
     * 8 (extended) hex digits, '#', data bytes in hex. */
    RTCOSIM_CAN_LOG_CANDUMP = 0,
    /* Vector ASC, "base hex timestamps absolute": a date header, then
     * "   0.000150 1  C8              Rx   d 2 AB 01" per frame (channel 1,
     * extended ids with an 'x' suffix), inside Begin/End TriggerBlock. */
    RTCOSIM_CAN_LOG_ASC,
    /* Vector BLF (binary logging format: CANoe/CANalyzer, python-can's
     * BLFReader, Wireshark): zlib-compressed log containers of
     * CAN_MESSAGE2, CAN_FD_MESSAGE_64 and CAN_XL_CHANNEL_FRAME objects on
     * channel 1, nanosecond timestamps from a measurement start of 0
     * (src/can/log_blf_write.c). */
    RTCOSIM_CAN_LOG_BLF,
    /* ASAM MDF 4 bus logging (CANoe, Vector and CSS Electronics' CANedge
     * loggers, asammdf): a finalized MDF 4.10 file of one channel group of
     * CAN_DataFrame records (time, bus channel 1, ID, IDE, EDL, BRS, ESI,
     * DLC, data length, data bytes) on a CAN bus source; CAN XL frames,
     * which the layout does not hold, are left out with a warning
     * (src/results/mdf_bus.c). */
    RTCOSIM_CAN_LOG_MDF,
    /* PEAK-System TRC (PCAN-View, PCAN-Explorer, python-can's TRCReader),
     * version 2.1: ";$FILEVERSION=2.1", ";$STARTTIME=" (the first frame's
     * time down to a multiple of 216 us, as days since 1899-12-30),
     * ";$COLUMNS=N,O,T,B,I,d,R,L,D", then "      1         0.150 DT 1
     * 00C8 Rx -  2    AB 01" per frame (offset in ms with microseconds;
     * types DT, FD, FB (BRS), FE (ESI), BI (both); ids of 4 or 8 hex
     * digits; the DLC; bus 1), CR LF line ends; CAN XL frames, which TRC
     * does not hold, are left out with a warning (src/can/log_trc.c). */
    RTCOSIM_CAN_LOG_TRC
} rtcosim_can_log_format;

/* ASC for a path ending in ".asc", BLF for ".blf", MDF 4 for ".mf4", TRC
 * for ".trc" (any case), candump otherwise. */
rtcosim_can_log_format rtcosim_can_log_format_of(const char *path);
/* "candump -l", "Vector ASC", "Vector BLF", "ASAM MDF 4", "PEAK TRC". */
const char *rtcosim_can_log_format_name(rtcosim_can_log_format format);

/* Write the entries of one bus (named bus_name, e.g. "can0") to path. */
rtcosim_status rtcosim_can_log_write(const rtcosim_can_log_entry *entries, size_t count,
                                     const char *bus_name, rtcosim_can_log_format format,
                                     const char *path, rtcosim_error *err);

/* The same an entry at a time, for logs of any length: open creates the
 * file (layout: what the entries will hold, which MDF needs before the
 * first record (frames: how many, CAN XL ones not counted; fd: whether any
 * is CAN FD) and ASC for its version (xl); NULL for a log that gets no CAN
 * FD or XL frame, except MDF), add writes an entry, close finishes the file
 * (its sizes, the last container or block; an MDF log that got another
 * number of frames than announced is an error) and frees; abort closes and
 * frees after a failure (the file is left incomplete). */
typedef struct rtcosim_can_log_writer rtcosim_can_log_writer;
typedef struct rtcosim_can_log_layout {
    size_t frames; /* or RTCOSIM_CAN_LOG_FRAMES_UNKNOWN */
    bool fd, xl;
} rtcosim_can_log_layout;
/* layout.frames of a log written while its frames are made (a run's bus,
 * rtcosim_can_bus_stream_log): an MDF log then holds its first 1 MiB of
 * records in memory until the close or its switch to compressed data
 * blocks, and writes its count at the close, the file then the one a known
 * count makes (a process killed leaves it unfinished); the other formats
 * need no count. */
#define RTCOSIM_CAN_LOG_FRAMES_UNKNOWN SIZE_MAX
rtcosim_status rtcosim_can_log_writer_open(const char *path, rtcosim_can_log_format format,
                                           const char *bus_name,
                                           const rtcosim_can_log_layout *layout,
                                           rtcosim_can_log_writer **out, rtcosim_error *err);
rtcosim_status rtcosim_can_log_writer_add(rtcosim_can_log_writer *w,
                                          const rtcosim_can_log_entry *e, rtcosim_error *err);
rtcosim_status rtcosim_can_log_writer_close(rtcosim_can_log_writer *w, rtcosim_error *err);
/* No more frames will come than those added, fewer than the layout announced
 * (an interrupted conversion): the close then makes an MDF log one of the
 * frames added (its cycle count and data length rewritten); the other
 * formats need nothing. */
void rtcosim_can_log_writer_truncate(rtcosim_can_log_writer *w);
void rtcosim_can_log_writer_abort(rtcosim_can_log_writer *w);

/* ---- a bus's log written while the run goes ---- */

/* Give the frames of a bus created with log_frames to an open writer as
 * the run commits them (rtcosim_lp_model.commit: under the speculative
 * scheduler at GVT, under the others every 1024 events of the bus, and all
 * the rest when rtcosim_events_run returns, a failed or stopped run's too),
 * instead of keeping them all: memory then holds only the frames not yet
 * committed, and the file every frame committed, in the order and bytes
 * rtcosim_can_bus_write_log would write them after the run (ASC: the version
 * line from the layout). rtcosim_can_bus_log and _log_count then give the
 * frames not yet written, rtcosim_can_bus_log_written how many were. The
 * writer stays the caller's: open it before the run (layout from
 * rtcosim_can_bus_log_layout), close it after; NULL detaches. A write error
 * fails the run. Not over MPI ranks: the writer is this process's. */
rtcosim_status rtcosim_can_bus_stream_log(rtcosim_can_bus *bus, rtcosim_can_log_writer *writer,
                                          rtcosim_error *err);
size_t rtcosim_can_bus_log_written(const rtcosim_can_bus *bus);
/* What the bus's nodes may send, as a writer's layout: fd when a node's TX
 * database has a CAN FD frame or a node sends any identifier, xl the same
 * for CAN XL (a replayed log's node sends none); frames
 * RTCOSIM_CAN_LOG_FRAMES_UNKNOWN. A run that declares CAN XL frames and
 * sends none so gets an ASC log of version 18.2.0 where the whole log
 * written after the run says 9.0.0. */
void rtcosim_can_bus_log_layout(const rtcosim_can_bus *bus, rtcosim_can_log_layout *layout);

/* ---- reading logs (candump -l, Vector ASC, BLF, MDF 4, PEAK TRC) ---- */

typedef struct rtcosim_can_log_record {
    rtcosim_time_ns time;
    uint32_t bus;      /* index of the bus name (rtcosim_can_log_bus_name) */
    uint32_t id;
    bool extended;
    bool remote;       /* remote frame: no data */
    uint8_t size;      /* data bytes (CAN FD: up to 64) */
    uint8_t data[64];
    int line;
    uint8_t format;    /* RTCOSIM_CAN_FORMAT_CLASSIC or _FD */
    uint8_t flags;     /* CAN FD: RTCOSIM_CAN_FD_BRS | RTCOSIM_CAN_FD_ESI */
} rtcosim_can_log_record;

typedef struct rtcosim_can_log rtcosim_can_log; /* opaque */

/* Read a log; the format is told by its first bytes ("LOGG": Vector BLF,
 * "MDF     ": an ASAM MDF 4 bus log, '(' starts candump -l, ';' (or a
 * message line "N) ...") a PEAK TRC trace, else ASC). TRC: versions 1.0 to
 * 2.1 (src/can/log_trc.c: columns, message types, times since 1970 when the
 * trace has a ;$STARTTIME, else from its start; bus N "canN-1"; error frames,
 * warnings, status and events read over). MDF:
 * the frames of every CAN_DataFrame and CAN_RemoteFrame channel group
 * (bus channel N: bus "canN-1"; none: "can0") in time order, error frames
 * read over; structures, fixed and variable-length byte arrays, any data
 * blocks (src/results/mdf_bus_read.c); a record's `line` is its frame's number. BLF: the frames of CAN_MESSAGE,
 * CAN_MESSAGE2, CAN_FD_MESSAGE, CAN_FD_MESSAGE_64 and CAN_XL_CHANNEL_FRAME
 * objects (channel N: bus "canN-1"), stored or zlib-compressed containers,
 * other objects read over; errors name the file and a byte offset, and a
 * record's `line` is its object's number.
 * candump: "(SECONDS) IFACE ID#DATA" (ID#R remote, ID##F... CAN FD,
 * VVPPP#FF:SS:AAAAAAAA#DATA CAN XL; any further tokens are ignored). ASC:
 * "base hex|dec", absolute or relative timestamps, classic frames "TIME CH
 * ID[x] Rx|Tx d|r DLC BYTES..." (bus name "canN-1" for channel N), CANFD
 * lines and CANXL lines (frame formats CBFF, CEFF, FBFF, FEFF, XLFF); other
 * events are read over. CAN XL frames (up to 2048 bytes, which a record does
 * not hold) are checked like the others and then left out of the records:
 * rtcosim_can_log_xl_count tells how many. Errors name the file and line. */
rtcosim_status rtcosim_can_log_read(const char *path, rtcosim_can_log **out, rtcosim_error *err);
rtcosim_status rtcosim_can_log_parse(const char *text, size_t size, const char *name,
                                     rtcosim_can_log **out, rtcosim_error *err);
/* Streaming: reads the log at path as rtcosim_can_log_read does but gives
 * each frame to `frame` in the log's order instead of keeping it (a log of
 * any length in the memory of one line or BLF container; a file is mapped,
 * not copied; an MDF bus log a data block at a time, its groups merged by
 * time in a second pass over the file, or read whole and sorted when a
 * group's own frames are out of time order). `frame` gets the log so far (its buses by name,
 * an MDF log's database from the first frame on); a
 * status other than RTCOSIM_OK stops the read and is returned. *out then
 * holds what the log says besides its frames (buses, count, CAN XL count,
 * source, database); rtcosim_can_log_records gives NULL. A sink's
 * RTCOSIM_ECANCELED (it has seen enough, or was interrupted) also leaves
 * *out the log as read so far, for the caller to free. */
typedef rtcosim_status rtcosim_can_log_frame_fn(void *context, const rtcosim_can_log *log,
                                                const rtcosim_can_log_record *record,
                                                rtcosim_error *err);
rtcosim_status rtcosim_can_log_scan(const char *path, rtcosim_can_log_frame_fn *frame,
                                    void *context, rtcosim_can_log **out, rtcosim_error *err);
/* Pulling instead (a binding that hands a log over in chunks: Python's
 * rtcosim.iter_can_log): open starts reading the log at path as
 * rtcosim_can_log_scan does, on a thread of its own, into a bounded queue
 * (8192 frames); next moves up to `max` frames into `records` in the log's
 * order (data bytes past a frame's size zero), waiting for them, and gives
 * *n = 0 at the end; a reader's error
 * (naming file and line) is returned by the next call after the frames
 * before it were all given. The bus names, CAN XL count and database are
 * those read so far: every bus of a frame already given has its name, and
 * an MDF log's database is there from its first frame on. close stops the
 * read wherever it is (early: at its next frame) and frees. Memory: the
 * queue and the reader's window, whatever the log's length. */
typedef struct rtcosim_can_log_cursor rtcosim_can_log_cursor;
rtcosim_status rtcosim_can_log_cursor_open(const char *path, rtcosim_can_log_cursor **out,
                                           rtcosim_error *err);
rtcosim_status rtcosim_can_log_cursor_next(rtcosim_can_log_cursor *cursor,
                                           rtcosim_can_log_record *records, size_t max,
                                           size_t *n, rtcosim_error *err);
size_t rtcosim_can_log_cursor_bus_count(rtcosim_can_log_cursor *cursor);
const char *rtcosim_can_log_cursor_bus_name(rtcosim_can_log_cursor *cursor, size_t index);
size_t rtcosim_can_log_cursor_xl_count(rtcosim_can_log_cursor *cursor);
const char *rtcosim_can_log_cursor_database(rtcosim_can_log_cursor *cursor, size_t *size,
                                            const char **name);
void rtcosim_can_log_cursor_close(rtcosim_can_log_cursor *cursor); /* NULL is a no-op */
void rtcosim_can_log_free(rtcosim_can_log *log); /* NULL is a no-op */
size_t rtcosim_can_log_count(const rtcosim_can_log *log);
const rtcosim_can_log_record *rtcosim_can_log_records(const rtcosim_can_log *log);
size_t rtcosim_can_log_bus_count(const rtcosim_can_log *log);
const char *rtcosim_can_log_bus_name(const rtcosim_can_log *log, size_t index);
/* CAN XL frames the log holds, read and left out of the records. */
size_t rtcosim_can_log_xl_count(const rtcosim_can_log *log);
/* The format the log was read from. */
rtcosim_can_log_format rtcosim_can_log_source(const rtcosim_can_log *log);
/* A CAN database the log file carries: an MDF bus log's first embedded
 * attachment named *.dbc (CANoe and asammdf attach the database that way),
 * inflated when compressed; its text (NUL-terminated, *size bytes) and its
 * file name (*name), or NULL when the log carries none. */
const char *rtcosim_can_log_database(const rtcosim_can_log *log, size_t *size, const char **name);
/* The same read from a log file without its frames (an MDF bus log's
 * attachment): *text (malloc'd, NUL-terminated, *size bytes) and *name
 * (malloc'd); both NULL when the file carries none (any other log). */
rtcosim_status rtcosim_can_log_read_database(const char *path, char **text, size_t *size,
                                             char **name, rtcosim_error *err);
/* A record's frame on the wire (SOF through intermission, stuff bits
 * included) at these bit rates: the nominal one and CAN FD's data phase. */
rtcosim_time_ns rtcosim_can_log_record_duration(const rtcosim_can_log_record *record,
                                                uint32_t bitrate, uint32_t fd_bitrate);

/* ---- replaying a log onto a bus ---- */

/* A node on `bus` that plays back the log's frames of one of its buses
 * (log_bus: a name of rtcosim_can_log_bus_name; NULL: the log's only bus, an
 * error when it has several): each frame is requested at the time that
 * makes it end, on an idle bus, at its time in the log (its end-of-frame
 * time less its duration at this bus's bit rates; earlier than the run's
 * start: at the start), so the other nodes receive the recorded traffic and
 * arbitrate with it. Frames of an id that a node of the bus sends itself (in
 * its TX database: the simulated ECUs) are left out, so the log supplies the
 * rest of the bus around them (restbus); nodes without a TX database (LS-BUS
 * node FMUs) are not known to send anything. Times: ASC and BLF count from their measurement start,
 * as the replay does; candump -l counts seconds since 1970, and the replay
 * counts from the whole second its first frame is in (rtcosim's own
 * candump logs, which count from 0, replay at their own times). Remote
 * frames (the bus carries none) and CAN XL frames (not in the records) are
 * counted, not sent. The node sends any id (rtcosim_can_bus_tx_any); its LP
 * shares the bus's thread. Before rtcosim_can_bus_connect. On success the
 * replay owns the log (freed with it); log_name names it in errors. */
typedef struct rtcosim_can_replay rtcosim_can_replay;
typedef struct rtcosim_can_replay_stats {
    size_t frames;         /* frames it sends (of its bus, remote ones excepted) */
    size_t remote_skipped; /* remote frames of its bus, not sent */
    size_t own_skipped;    /* frames of ids a node of the bus sends itself, not sent */
    size_t xl_skipped;     /* CAN XL frames of the log (any bus), not sent */
    size_t early;          /* frames whose request fell before 0: sent at the start */
    rtcosim_time_ns origin; /* the log time that is time 0 of the replay */
} rtcosim_can_replay_stats;
rtcosim_status rtcosim_can_replay_add(rtcosim_events *sim, rtcosim_can_bus *bus,
                                      rtcosim_can_log *log, const char *log_name,
                                      const char *log_bus, rtcosim_can_replay **out,
                                      rtcosim_error *err);
/* The same for the log file at path, read a frame at a time (never held
 * whole): the replay keeps 24 bytes and the data bytes of each frame it
 * sends; errors name the file (and its line). */
rtcosim_status rtcosim_can_replay_add_file(rtcosim_events *sim, rtcosim_can_bus *bus,
                                           const char *path, const char *log_bus,
                                           rtcosim_can_replay **out, rtcosim_error *err);
void rtcosim_can_replay_stats_get(const rtcosim_can_replay *replay,
                                  rtcosim_can_replay_stats *out);
void rtcosim_can_replay_free(rtcosim_can_replay *replay); /* NULL is a no-op */

#ifdef __cplusplus
}
#endif
#endif
