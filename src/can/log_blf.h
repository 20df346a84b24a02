/* Vector's Binary Logging Format (BLF), as far as CAN logs need it: the
 * layout facts the reader (log_blf_read.c) and the writer (log_blf_write.c)
 * share. Vector publishes no specification; the layout is the one Vector's
 * binlog objects use as python-can's BLF reader/writer (can/io/blf.py) and
 * Wireshark's wiretap (blf.h) document them. Little-endian throughout.
 *
 * File: a 144-byte header ("LOGG", header size, API version, application
 * id, compression level, application major/minor, file size, uncompressed
 * size, object count, application build, start and stop SYSTEMTIME of 8
 * uint16 each), then objects. Object: "LOBJ", uint16 header size, uint16
 * header version, uint32 object size (header included), uint32 type, then
 * for header versions 1-3 uint32 flags, 4 bytes, uint64 timestamp (units by
 * the flags: 10 us or 1 ns, from the measurement start); each object is
 * followed by (object size % 4) zero bytes. LOG_CONTAINER objects (a 16-byte
 * base header, uint16 compression method, 6 bytes, uint32 uncompressed size,
 * 4 bytes) carry the other objects, zlib-compressed (method 2) or not (0);
 * an object may continue in the next container. */
#ifndef RTCOSIM_CAN_LOG_BLF_H
#define RTCOSIM_CAN_LOG_BLF_H

#include <stdint.h>
#include <string.h>

#include "util/le.h"

#define BLF_FILE_HEADER_SIZE 144
#define BLF_BASE_HEADER_SIZE 16
#define BLF_OBJECT_HEADER_SIZE 32 /* base header and a version 1 header */
#define BLF_CONTAINER_HEADER_SIZE 16
#define BLF_CONTAINER_PAYLOAD 131072 /* what Vector's and python-can's writers put in one */

enum {
    BLF_CAN_MESSAGE = 1,
    BLF_LOG_CONTAINER = 10,
    BLF_CAN_MESSAGE2 = 86,
    BLF_CAN_FD_MESSAGE = 100,
    BLF_CAN_FD_MESSAGE_64 = 101,
    BLF_CAN_XL_CHANNEL_FRAME = 139
};

#define BLF_COMPRESSION_NONE 0
#define BLF_COMPRESSION_ZLIB 2

#define BLF_TIME_TEN_MICS 0x1u /* object header flags: timestamp unit */
#define BLF_TIME_ONE_NANS 0x2u

#define BLF_ID_EXTENDED 0x80000000u /* in a frame's id field */

/* CAN_MESSAGE(2) and CAN_FD_MESSAGE flags */
#define BLF_MSG_TX 0x01u
#define BLF_MSG_RTR 0x80u
/* CAN_FD_MESSAGE fd flags */
#define BLF_FD_EDL 0x1u
#define BLF_FD_BRS 0x2u
#define BLF_FD_ESI 0x4u
/* CAN_FD_MESSAGE_64 and CAN_XL_CHANNEL_FRAME flags */
#define BLF_FD64_RTR 0x10u
#define BLF_FD64_EDL 0x1000u
#define BLF_FD64_BRS 0x2000u
#define BLF_FD64_ESI 0x4000u
#define BLF_XL_XLF 0x400000u
#define BLF_XL_SEC 0x1000000u

/* Object bodies (after the object header), the fixed part's size. */
#define BLF_CAN_MESSAGE_BODY 16   /* channel u16, flags u8, dlc u8, id u32, data[8] */
#define BLF_CAN_MESSAGE2_BODY 24  /* ... frame length [ns] u32, bit count u8, 3 reserved */
#define BLF_CAN_FD_MESSAGE_BODY 20 /* channel u16, flags, dlc, id, frame length, arbitration
                                      bits u8, fd flags u8, valid bytes u8, 5 reserved; data */
#define BLF_CAN_FD64_BODY 40      /* channel u8, dlc, valid bytes, tx count, id, frame length,
                                     flags u32, 4 x u32 timing, bit count u16, dir u8, ext
                                     data offset u8, crc u32; data */
#define BLF_CAN_XL_BODY 104       /* see log_blf_write.c's write_xl for the fields */

#endif
