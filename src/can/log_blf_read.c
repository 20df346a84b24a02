/* Reading Vector BLF logs (log_blf.h for the layout): the CAN frames of
 * CAN_MESSAGE, CAN_MESSAGE2, CAN_FD_MESSAGE, CAN_FD_MESSAGE_64 and
 * CAN_XL_CHANNEL_FRAME objects, in log containers (zlib or stored) or at
 * the file's top level; every other object (error frames, statistics,
 * markers, other buses) is read over. Channel N is bus "canN-1" as in ASC;
 * times are the objects' timestamps from the measurement start.
 *
 * Errors name the file and the byte offset of the top-level object at fault
 * (for an object inside a container: the container's offset and the
 * object's number). A record's `line` is its object's number in the file
 * (1 = the first object inside the containers). The reader never reads past
 * its input, inflates at most 64 MiB per container and holds at most one
 * container and one object besides the records (fuzzed: fuzz_can_log.c,
 * fuzz_can_log_blf.c). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "log_blf.h"
#include "log_internal.h"

#define MAX_CONTAINER_BYTES (64u << 20) /* inflated; Vector's writers use 128 KiB */
#define MAX_OBJECT_BYTES (16u << 20)    /* a CAN object is under 2.2 KiB */

typedef struct blf_reader {
    rtcosim_can_log *log;
    const char *name;
    rtcosim_error *err;
    uint8_t *stream;   /* objects not yet read: the tail of the containers so far */
    size_t len, cap;
    size_t at;         /* file offset of the top-level object being read */
    size_t objects;    /* objects read inside the containers */
} blf_reader;

bool can_log_is_blf(const void *data, size_t size)
{
    return size >= 4 && memcmp(data, "LOGG", 4) == 0;
}

__attribute__((format(printf, 2, 3))) static rtcosim_status fail(blf_reader *r,
                                                                  const char *fmt, ...)
{
    char text[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return rtcosim_error_set(r->err, RTCOSIM_EFORMAT, "%s: byte %zu: %s", r->name, r->at, text);
}

static rtcosim_status out_of_memory(blf_reader *r)
{
    return rtcosim_error_set(r->err, RTCOSIM_ENOMEM, "%s: out of memory after %zu frames",
                             r->name, r->log->count);
}

/* The record's bus from a BLF channel (1-based as Vector counts them). */
static rtcosim_status channel_bus(blf_reader *r, unsigned channel, uint32_t *out)
{
    char bus[32];
    if (channel == 0)
        snprintf(bus, sizeof bus, "ch0");
    else
        snprintf(bus, sizeof bus, "can%u", channel - 1);
    int rc = can_log_bus(r->log, bus, out);
    if (rc == -2)
        return fail(r, "object %zu: more than 64 channels (channel %u)", r->objects, channel);
    return rc < 0 ? out_of_memory(r) : RTCOSIM_OK;
}

/* Sets id and extended from a BLF id field; false for an 11-bit id over 0x7FF. */
static bool take_id(uint32_t field, rtcosim_can_log_record *rec)
{
    rec->extended = (field & BLF_ID_EXTENDED) != 0;
    rec->id = field & 0x1FFFFFFFu;
    return rec->extended || rec->id <= 0x7FFu;
}

static uint8_t fd_flags(bool brs, bool esi)
{
    return (uint8_t)((brs ? RTCOSIM_CAN_FD_BRS : 0u) | (esi ? RTCOSIM_CAN_FD_ESI : 0u));
}

static rtcosim_status add(blf_reader *r, rtcosim_can_log_record *rec)
{
    rec->line = (int)(r->objects < INT32_MAX ? r->objects : INT32_MAX);
    return can_log_add(r->log, rec, r->name, r->err);
}

/* One frame object's body (after its header). */
static rtcosim_status read_frame(blf_reader *r, uint32_t type, const uint8_t *b, size_t n,
                                 rtcosim_time_ns time)
{
    rtcosim_can_log_record rec = {.time = time};
    unsigned channel;
    uint32_t id_field, flags;
    size_t size, data_at;
    bool fd = false, remote = false, xl = false;
    switch (type) {
    case BLF_CAN_MESSAGE:
    case BLF_CAN_MESSAGE2:
        if (n < BLF_CAN_MESSAGE_BODY)
            return fail(r, "object %zu: a CAN message of %zu bytes (16 needed)", r->objects, n);
        channel = le_get16(b);
        remote = (b[2] & BLF_MSG_RTR) != 0;
        if (b[3] > 15)
            return fail(r, "object %zu: DLC %u (at most 15)", r->objects, b[3]);
        size = b[3] < 8 ? b[3] : 8; /* DLC 9..15 of classic CAN still carry 8 bytes */
        id_field = le_get32(b + 4);
        data_at = 8;
        break;
    case BLF_CAN_FD_MESSAGE:
        if (n < BLF_CAN_FD_MESSAGE_BODY || n < BLF_CAN_FD_MESSAGE_BODY + (size_t)b[14])
            return fail(r, "object %zu: a CAN FD message of %zu bytes, shorter than its data",
                        r->objects, n);
        channel = le_get16(b);
        remote = (b[2] & BLF_MSG_RTR) != 0;
        id_field = le_get32(b + 4);
        fd = (b[13] & BLF_FD_EDL) != 0;
        rec.flags = fd_flags(b[13] & BLF_FD_BRS, b[13] & BLF_FD_ESI);
        size = b[14];
        data_at = BLF_CAN_FD_MESSAGE_BODY;
        break;
    case BLF_CAN_FD_MESSAGE_64:
        if (n < BLF_CAN_FD64_BODY || n < BLF_CAN_FD64_BODY + (size_t)b[2])
            return fail(r, "object %zu: a CAN FD message of %zu bytes, shorter than its data",
                        r->objects, n);
        channel = b[0];
        id_field = le_get32(b + 4);
        flags = le_get32(b + 12);
        fd = (flags & BLF_FD64_EDL) != 0;
        remote = (flags & BLF_FD64_RTR) != 0;
        rec.flags = fd_flags(flags & BLF_FD64_BRS, flags & BLF_FD64_ESI);
        size = b[2];
        data_at = BLF_CAN_FD64_BODY;
        break;
    default: /* BLF_CAN_XL_CHANNEL_FRAME */
        if (n < BLF_CAN_XL_BODY || n < BLF_CAN_XL_BODY + (size_t)le_get16(b + 20))
            return fail(r, "object %zu: a CAN XL frame of %zu bytes, shorter than its data",
                        r->objects, n);
        channel = b[0];
        id_field = le_get32(b + 12);
        flags = le_get32(b + 48);
        xl = (flags & BLF_XL_XLF) != 0;
        fd = !xl && (flags & BLF_FD64_EDL) != 0;
        remote = !xl && !fd && (flags & BLF_FD64_RTR) != 0;
        rec.flags = fd_flags(flags & BLF_FD64_BRS, flags & BLF_FD64_ESI);
        size = le_get16(b + 20);
        data_at = BLF_CAN_XL_BODY;
        if (xl && (size < 1 || size > 2048))
            return fail(r, "object %zu: a CAN XL frame of %zu data bytes (1 to 2048)",
                        r->objects, size);
        break;
    }
    if (xl) {
        if ((id_field & 0x1FFFFFFFu) > 0x7FFu)
            return fail(r, "object %zu: CAN XL priority id 0x%" PRIX32 " (11 bits)", r->objects,
                        id_field & 0x1FFFFFFFu);
        rtcosim_status st = channel_bus(r, channel, &rec.bus);
        if (st == RTCOSIM_OK)
            r->log->xl_count++;
        return st;
    }
    if (!take_id(id_field, &rec))
        return fail(r, "object %zu: standard id 0x%" PRIX32 " over 0x7FF", r->objects, rec.id);
    if (fd && size > 64)
        return fail(r, "object %zu: a CAN FD frame of %zu bytes (at most 64)", r->objects, size);
    if (!fd && size > 8)
        size = 8;
    rec.format = fd ? RTCOSIM_CAN_FORMAT_FD : RTCOSIM_CAN_FORMAT_CLASSIC;
    if (!fd)
        rec.flags = 0;
    rec.remote = remote && !fd;
    if (rec.remote)
        size = 0; /* RTR: no data */
    rec.size = (uint8_t)size;
    memcpy(rec.data, b + data_at, size);
    rtcosim_status st = channel_bus(r, channel, &rec.bus);
    return st == RTCOSIM_OK ? add(r, &rec) : st;
}

/* One whole object of n bytes (base header included). */
static rtcosim_status read_object(blf_reader *r, const uint8_t *o, size_t n)
{
    uint16_t header = le_get16(o + 4), version = le_get16(o + 6);
    uint32_t type = le_get32(o + 12);
    r->objects++;
    if (type != BLF_CAN_MESSAGE && type != BLF_CAN_MESSAGE2 && type != BLF_CAN_FD_MESSAGE &&
        type != BLF_CAN_FD_MESSAGE_64 && type != BLF_CAN_XL_CHANNEL_FRAME)
        return RTCOSIM_OK; /* not a frame of a CAN bus */
    if (version < 1 || version > 3 || header < BLF_OBJECT_HEADER_SIZE)
        return fail(r, "object %zu: object header version %u of %u bytes (versions 1-3, at least"
                    " 32 bytes)", r->objects, version, header);
    uint32_t flags = le_get32(o + 16);
    uint64_t stamp = le_get64(o + 24);
    uint64_t unit = (flags & BLF_TIME_ONE_NANS) || !(flags & BLF_TIME_TEN_MICS) ? 1 : 10000;
    if (stamp > (uint64_t)INT64_MAX / unit)
        return fail(r, "object %zu: timestamp %" PRIu64 " beyond 292 years", r->objects, stamp);
    return read_frame(r, type, o + header, n - header, (rtcosim_time_ns)(stamp * unit));
}

/* Zero padding (at most 7 bytes) before the next "LOBJ" at p or the end. */
static size_t padding(const uint8_t *p, size_t left)
{
    size_t k = 0;
    while (k < left && k < 8 && p[k] == 0)
        k++;
    return k == left || (k < 8 && p[k] == 'L') ? k : 0;
}

/* Reads every whole object of the stream; keeps the tail (an object that
 * continues in the next container). */
static rtcosim_status read_stream(blf_reader *r)
{
    size_t pos = 0;
    rtcosim_status st = RTCOSIM_OK;
    if (r->len == 0)
        return RTCOSIM_OK;
    while (st == RTCOSIM_OK) {
        pos += padding(r->stream + pos, r->len - pos);
        if (r->len - pos < BLF_BASE_HEADER_SIZE)
            break;
        const uint8_t *o = r->stream + pos;
        uint32_t size = le_get32(o + 8);
        if (memcmp(o, "LOBJ", 4) != 0)
            st = fail(r, "object %zu does not start with LOBJ (%zu bytes into the data)",
                      r->objects + 1, pos);
        else if (size < le_get16(o + 4) || size < BLF_BASE_HEADER_SIZE)
            st = fail(r, "object %zu: object size %" PRIu32 " smaller than its header",
                      r->objects + 1, size);
        else if (size > MAX_OBJECT_BYTES)
            st = fail(r, "object %zu: %" PRIu32 " bytes, over 16 MiB", r->objects + 1, size);
        else if (r->len - pos < size)
            break; /* continues in the next container */
        else {
            st = read_object(r, o, size);
            pos += size;
        }
    }
    memmove(r->stream, r->stream + pos, r->len - pos);
    r->len -= pos;
    return st;
}

/* Appends n bytes (room for `n` more made by the caller through reserve). */
static bool reserve(blf_reader *r, size_t n)
{
    if (r->cap - r->len >= n)
        return true;
    size_t cap = r->len + n;
    uint8_t *s = realloc(r->stream, cap);
    if (!s)
        return false;
    r->stream = s;
    r->cap = cap;
    return true;
}

static rtcosim_status read_container(blf_reader *r, const uint8_t *body, size_t n)
{
    if (n < BLF_CONTAINER_HEADER_SIZE)
        return fail(r, "a log container of %zu bytes (at least %d)", n,
                    BLF_CONTAINER_HEADER_SIZE);
    uint16_t method = le_get16(body);
    uint32_t declared = le_get32(body + 8);
    const uint8_t *data = body + BLF_CONTAINER_HEADER_SIZE;
    size_t data_len = n - BLF_CONTAINER_HEADER_SIZE;
    if (method == BLF_COMPRESSION_NONE) {
        if (data_len == 0)
            return RTCOSIM_OK;
        if (!reserve(r, data_len))
            return out_of_memory(r);
        memcpy(r->stream + r->len, data, data_len);
        r->len += data_len;
    } else if (method == BLF_COMPRESSION_ZLIB) {
        if (declared == 0)
            return RTCOSIM_OK; /* nothing in it, whatever its bytes */
        if (declared > MAX_CONTAINER_BYTES)
            return fail(r, "a log container that declares %" PRIu32 " bytes uncompressed (at most"
                        " %u)", declared, MAX_CONTAINER_BYTES);
        if (!reserve(r, declared))
            return out_of_memory(r);
        uLongf got = declared;
        uLong used = (uLong)data_len;
        int zrc = uncompress2(r->stream + r->len, &got, data, &used);
        if (zrc == Z_BUF_ERROR)
            return fail(r, "a log container that inflates to more than the %" PRIu32
                        " bytes it declares", declared);
        if (zrc != Z_OK)
            return fail(r, "a log container whose zlib data are corrupt or cut short (zlib"
                        " error %d)", zrc);
        r->len += got;
    } else {
        return fail(r, "a log container with compression method %u (0: stored, 2: zlib)", method);
    }
    return read_stream(r);
}

rtcosim_status can_log_parse_blf(const uint8_t *data, size_t size, const char *name,
                                 rtcosim_can_log *log, rtcosim_error *err)
{
    blf_reader r = {.log = log, .name = name, .err = err};
    if (size < 8 || le_get32(data + 4) < 8 || le_get32(data + 4) > size)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                 "%s: a BLF file cut short in its header (%zu bytes)", name, size);
    size_t pos = le_get32(data + 4);
    rtcosim_status st = RTCOSIM_OK;
    while (st == RTCOSIM_OK && pos < size) {
        pos += padding(data + pos, size - pos);
        r.at = pos;
        if (size - pos < BLF_BASE_HEADER_SIZE) {
            for (size_t k = pos; k < size && st == RTCOSIM_OK; k++)
                if (data[k] != 0)
                    st = fail(&r, "%zu bytes after the last object", size - pos);
            break;
        }
        const uint8_t *o = data + pos;
        uint32_t obj = le_get32(o + 8), header = le_get16(o + 4);
        if (memcmp(o, "LOBJ", 4) != 0)
            st = fail(&r, "no object (LOBJ) where one should start");
        else if (obj < BLF_BASE_HEADER_SIZE || obj < header)
            st = fail(&r, "object size %" PRIu32 " smaller than its header (%" PRIu32 ")", obj,
                      header);
        else if (obj > size - pos)
            st = fail(&r, "an object of %" PRIu32 " bytes, the file ends %zu bytes into it"
                      " (cut short?)", obj, size - pos);
        else if (le_get32(o + 12) == BLF_LOG_CONTAINER)
            st = read_container(&r, o + header, obj - header);
        else if (r.len == 0)
            st = read_object(&r, o, obj); /* an object outside the containers */
        else
            r.objects++; /* a top-level object amid a split one: not a frame */
        pos += obj;
        can_log_done(log, data + pos);
    }
    if (st == RTCOSIM_OK && r.len > 0)
        st = fail(&r, "the containers end %zu bytes into an object (cut short?)", r.len);
    free(r.stream);
    return st;
}
