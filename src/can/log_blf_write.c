/* Writing Vector BLF logs (log_blf.h for the layout), as python-can's and
 * Vector's writers lay them out: the 144-byte header (application 0,
 * "unknown"; measurement start and stop SYSTEMTIME all zero, as python-can
 * writes for times that are not wall-clock times, so that readers take the
 * timestamps as they are: simulated time from 0), then zlib-compressed log
 * containers of at most 128 KiB of objects each (an object is never split
 * across two). Per frame, with its end-of-frame time in nanoseconds
 * (TIME_ONE_NANS, object header version 1), on channel 1 received:
 * - classic: CAN_MESSAGE2 (the CAN_MESSAGE fields, then the frame's
 *   duration in ns and its bits with stuff bits);
 * - CAN FD: CAN_FD_MESSAGE_64 (DLC, valid data bytes, duration, flags EDL,
 *   BRS, ESI, bit count; bit timings, CRC 0: not computed), then the data;
 * - CAN XL: CAN_XL_CHANNEL_FRAME (duration, bit count, priority id, SDT,
 *   DLC = length - 1, length, VCID, AF, flags XLF | EDL | BRS | SEC, CRCs,
 *   stuff counts and bit timings 0: not computed), then the data. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "log_blf.h"
#include "log_internal.h"

typedef struct blf_writer {
    FILE *f;
    uint8_t *buf; /* the container being filled */
    size_t used;
    uint8_t *z;   /* its compressed bytes */
    uLongf z_cap;
    uint64_t uncompressed; /* the header's uncompressed file size */
    uint32_t objects;
} blf_writer;

static void write_header(blf_writer *w, uint64_t file_size)
{
    uint8_t h[BLF_FILE_HEADER_SIZE] = {'L', 'O', 'G', 'G'};
    le_put32(h + 4, BLF_FILE_HEADER_SIZE);
    /* 8: API version, 12: application (0: unknown), 13: compression level,
     * 14-15: application version */
    h[13] = 6;
    le_put64(h + 16, file_size);
    le_put64(h + 24, w->uncompressed);
    le_put32(h + 32, w->objects);
    /* 36: application build; 40 and 56: start and stop SYSTEMTIME, zero */
    fwrite(h, 1, sizeof h, w->f);
}

static bool flush(blf_writer *w)
{
    if (w->used == 0)
        return true;
    uLongf zlen = w->z_cap;
    if (compress2(w->z, &zlen, w->buf, (uLong)w->used, 6) != Z_OK)
        return false;
    uint8_t h[BLF_BASE_HEADER_SIZE + BLF_CONTAINER_HEADER_SIZE] = {'L', 'O', 'B', 'J'};
    uint32_t size = (uint32_t)(sizeof h + zlen);
    le_put16(h + 4, BLF_BASE_HEADER_SIZE);
    le_put16(h + 6, 1);
    le_put32(h + 8, size);
    le_put32(h + 12, BLF_LOG_CONTAINER);
    le_put16(h + 16, BLF_COMPRESSION_ZLIB);
    le_put32(h + 24, (uint32_t)w->used);
    static const uint8_t zero[4] = {0};
    fwrite(h, 1, sizeof h, w->f);
    fwrite(w->z, 1, zlen, w->f);
    fwrite(zero, 1, size % 4, w->f);
    w->uncompressed += sizeof h + w->used;
    w->used = 0;
    return true;
}

/* Room for an object of `body` bytes after its header; its header written
 * (the body is the caller's to fill, zeroed). NULL when flushing failed. */
static uint8_t *object(blf_writer *w, uint32_t type, size_t body, rtcosim_time_ns time)
{
    size_t size = BLF_OBJECT_HEADER_SIZE + body, padded = size + size % 4;
    if (w->used + padded > BLF_CONTAINER_PAYLOAD && !flush(w))
        return NULL;
    uint8_t *o = w->buf + w->used;
    memset(o, 0, padded);
    memcpy(o, "LOBJ", 4);
    le_put16(o + 4, BLF_OBJECT_HEADER_SIZE);
    le_put16(o + 6, 1);
    le_put32(o + 8, (uint32_t)size);
    le_put32(o + 12, type);
    le_put32(o + 16, BLF_TIME_ONE_NANS);
    le_put64(o + 24, (uint64_t)(time > 0 ? time : 0));
    w->used += padded;
    w->objects++;
    return o + BLF_OBJECT_HEADER_SIZE;
}

static uint32_t id_field(const rtcosim_can_log_entry *e)
{
    return e->frame.id | (e->frame.extended ? BLF_ID_EXTENDED : 0u);
}

static uint32_t duration(const rtcosim_can_log_entry *e)
{
    rtcosim_time_ns d = e->end - e->start;
    return d <= 0 ? 0u : d >= (rtcosim_time_ns)UINT32_MAX ? UINT32_MAX : (uint32_t)d;
}

static bool write_classic(blf_writer *w, const rtcosim_can_log_entry *e)
{
    uint8_t *b = object(w, BLF_CAN_MESSAGE2, BLF_CAN_MESSAGE2_BODY, e->end);
    if (!b)
        return false;
    unsigned n = e->frame.dlc < 8 ? e->frame.dlc : 8;
    le_put16(b, 1); /* channel */
    b[3] = e->frame.dlc;
    le_put32(b + 4, id_field(e));
    memcpy(b + 8, e->frame.data, n);
    le_put32(b + 16, duration(e));
    uint32_t bits = can_log_entry_bits(e);
    b[20] = (uint8_t)(bits < 255 ? bits : 255);
    return true;
}

static bool write_fd(blf_writer *w, const rtcosim_can_log_entry *e)
{
    unsigned n = e->length <= 64 ? e->length : 64;
    uint8_t *b = object(w, BLF_CAN_FD_MESSAGE_64, BLF_CAN_FD64_BODY + n, e->end);
    if (!b)
        return false;
    int dlc = rtcosim_can_fd_dlc(n);
    bool brs = (e->flags & RTCOSIM_CAN_FD_BRS) != 0, esi = (e->flags & RTCOSIM_CAN_FD_ESI) != 0;
    b[0] = 1; /* channel */
    b[1] = (uint8_t)(dlc < 0 ? 0 : dlc);
    b[2] = (uint8_t)n;
    le_put32(b + 4, id_field(e));
    le_put32(b + 8, duration(e));
    le_put32(b + 12, BLF_FD64_EDL | (brs ? BLF_FD64_BRS : 0u) | (esi ? BLF_FD64_ESI : 0u));
    le_put16(b + 32, (uint16_t)can_log_entry_bits(e));
    memcpy(b + BLF_CAN_FD64_BODY, e->data, n);
    return true;
}

static bool write_xl(blf_writer *w, const rtcosim_can_log_entry *e)
{
    unsigned n = e->length <= 2048 ? e->length : 2048;
    uint8_t *b = object(w, BLF_CAN_XL_CHANNEL_FRAME, BLF_CAN_XL_BODY + n, e->end);
    if (!b)
        return false;
    b[0] = 1; /* channel; 1: tx count, 2: direction (0: received) */
    le_put32(b + 4, duration(e));
    le_put16(b + 8, (uint16_t)can_log_entry_bits(e));
    le_put32(b + 12, e->frame.id & 0x7FFu); /* priority id */
    b[16] = e->sdt;
    le_put16(b + 18, (uint16_t)(n ? n - 1 : 0)); /* DLC */
    le_put16(b + 20, (uint16_t)n);
    /* 22: stuff bit count, 24: preface CRC */
    b[26] = e->vcid;
    le_put32(b + 28, e->af);
    /* 32: stuff count, 36: CRC, 40 and 44: BRS and CRC delimiter offsets */
    le_put32(b + 48, BLF_XL_XLF | BLF_FD64_EDL | BLF_FD64_BRS |
                          (e->flags & RTCOSIM_CAN_XL_SEC ? BLF_XL_SEC : 0u));
    /* 56..103: bit timing configurations and hardware settings */
    memcpy(b + BLF_CAN_XL_BODY, e->data, n);
    return true;
}

blf_writer *can_log_blf_begin(FILE *f)
{
    blf_writer *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    *w = (blf_writer){.f = f, .uncompressed = BLF_FILE_HEADER_SIZE};
    w->z_cap = compressBound(BLF_CONTAINER_PAYLOAD);
    w->buf = malloc(BLF_CONTAINER_PAYLOAD);
    w->z = malloc(w->z_cap);
    if (!w->buf || !w->z) {
        free(w->buf);
        free(w->z);
        free(w);
        return NULL;
    }
    write_header(w, 0); /* written again with the sizes at the end */
    return w;
}

bool can_log_blf_add(blf_writer *w, const rtcosim_can_log_entry *e)
{
    return e->format == RTCOSIM_CAN_FORMAT_XL   ? write_xl(w, e)
           : e->format == RTCOSIM_CAN_FORMAT_FD ? write_fd(w, e)
                                                : write_classic(w, e);
}

bool can_log_blf_end(blf_writer *w, bool ok)
{
    ok = ok && flush(w);
    long size = ok ? ftell(w->f) : -1;
    if (size > 0 && fseek(w->f, 0, SEEK_SET) == 0)
        write_header(w, (uint64_t)size);
    else
        ok = false;
    free(w->buf);
    free(w->z);
    free(w);
    return ok;
}
