/* CAN logs in the formats engineers' tools read: candump -l (can-utils'
 * log file format, read by `canplayer`, python-can's CanutilsLogReader,
 * Wireshark) and Vector ASC (CANalyzer/CANoe, python-can's ASCReader).
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
    RTCOSIM_CAN_LOG_ASC
} rtcosim_can_log_format;

/* ASC for a path ending in ".asc" (any case), candump otherwise. */
rtcosim_can_log_format rtcosim_can_log_format_of(const char *path);

/* Write the entries of one bus (named bus_name, e.g. "can0") to path. */
rtcosim_status rtcosim_can_log_write(const rtcosim_can_log_entry *entries, size_t count,
                                     const char *bus_name, rtcosim_can_log_format format,
                                     const char *path, rtcosim_error *err);

#ifdef __cplusplus
}
#endif
#endif
