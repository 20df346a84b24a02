/* CAN bus logs as ASAM MDF 4 files (mdf_bus.c): the bus-logging layout
 * that CAN loggers (Vector, CSS Electronics' CANedge, Kvaser), CANoe and
 * asammdf write and read, a channel group of CAN_DataFrame records. Used by
 * src/can's log reader and writer (can_log.h). Not public. */
#ifndef RTCOSIM_RESULTS_MDF_BUS_H
#define RTCOSIM_RESULTS_MDF_BUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/can.h"
#include "rtcosim/status.h"

#pragma GCC visibility push(hidden)

/* Does a file start as an MDF file ("MDF     " or an unfinalized one)? */
bool mdf_bus_is_mdf(const uint8_t *data, size_t size);

/* The entries of one bus (CAN XL ones left out: *xl_left_out) as a
 * finalized MDF 4.10 bus log at path, started now, the frames on bus
 * channel 1. */
rtcosim_status mdf_bus_write(const rtcosim_can_log_entry *entries, size_t count,
                             const char *path, size_t *xl_left_out, rtcosim_error *err);

/* The same a frame at a time: the writer is told up front how many frames
 * it gets (CAN XL ones not counted; SIZE_MAX: not known, the file is then
 * the same with the count of those written, up to 1 MiB of records held
 * until the close or the switch to DZ blocks) and whether any is CAN FD
 * (the record's width); mdf_bus_writer_add leaves CAN XL entries out (counted in
 * xl_left_out), mdf_bus_writer_close finishes the file and frees the
 * writer (a count other than announced is an error), and with ok false only
 * closes and frees. */
typedef struct mdf_bus_writer mdf_bus_writer;
rtcosim_status mdf_bus_writer_open(const char *path, size_t frames, bool fd,
                                   mdf_bus_writer **out, rtcosim_error *err);
rtcosim_status mdf_bus_writer_add(mdf_bus_writer *w, const rtcosim_can_log_entry *e,
                                  rtcosim_error *err);
rtcosim_status mdf_bus_writer_close(mdf_bus_writer *w, bool ok, size_t *xl_left_out,
                                    rtcosim_error *err);
/* No more frames will come than those written (an interrupted conversion):
 * the file is closed as a log of those. */
void mdf_bus_writer_truncate(mdf_bus_writer *w);

/* A frame of a bus log: its number in the file (from 1, the groups' frames
 * one group after another), its time from the measurement's start (s), bus
 * channel (when its group has BusChannel: has_channel), identifier (29
 * bits), and its fields; data: min(length, 64) bytes. */
typedef struct mdf_can_frame {
    size_t number;
    double time;
    bool has_channel;
    unsigned channel;
    uint32_t id;
    bool extended, remote, fd, brs, esi;
    uint8_t dlc;
    uint32_t length;
    const uint8_t *data;
} mdf_can_frame;

/* What a log holds besides its CAN frames, and when it starts. */
typedef struct mdf_bus_info {
    bool error_frames;                 /* CAN error frames (read over) */
    /* by time (mdf_bus_read): the frames came merged in time order, and
     * before the first: how many, whether one is on bus channel 0 */
    bool by_time, channel_zero;
    size_t frames;
    int64_t start_ns;                  /* ns since 1970 UTC; 0 unknown */
    /* A DBC embedded in the file (an AT block of a .dbc file name, as
     * CANoe and asammdf attach the database to a bus log), malloc'd and
     * NUL-terminated, and its file name; NULL: none. The caller frees them. */
    char *database, *database_name;
    size_t database_size;
} mdf_bus_info;

/* Every frame of an MDF 4 file's CAN_DataFrame and CAN_RemoteFrame channel
 * groups to fn, read a data block at a time (memory does not grow with the
 * file): in the groups' order (each group's frames in its order), or with
 * by_time, when each group's frames are in time order, merged in time order
 * (ties: the earlier group first) after a first pass has checked every
 * frame (info->by_time set; false: no frame given, read in the groups'
 * order and sort). info's database is read before the first frame. fn's
 * error ends the walk. Errors name the file (path) and what is wrong, such
 * as an MDF file that holds no CAN frames. */
rtcosim_status mdf_bus_read(const uint8_t *data, size_t size, const char *path, bool by_time,
                            rtcosim_status (*fn)(void *context, const mdf_can_frame *frame,
                                                 rtcosim_error *err),
                            void *context, mdf_bus_info *info, rtcosim_error *err);

/* Only the database an MDF 4 file carries (info's database and name; NULL:
 * none, or not an MDF 4 file). */
rtcosim_status mdf_bus_database(const uint8_t *data, size_t size, const char *path,
                                mdf_bus_info *info, rtcosim_error *err);

#pragma GCC visibility pop

#endif
