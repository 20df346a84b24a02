/* CAN bus logs as ASAM MDF 4 files (mdf_bus.h): the bus-logging layout of
 * CAN loggers (Vector, CSS Electronics' CANedge, Kvaser), CANoe and
 * asammdf. A channel group whose acquisition source is a CAN bus (SI block:
 * source type 2 "bus", bus type 2 "CAN"), flagged as bus events, holds one
 * record per frame: a time master channel and the structure channel
 * CAN_DataFrame (a byte array over the frame's fields, its components
 * linked as CN blocks from its composition link, named
 * "CAN_DataFrame.FIELD"): BusChannel, ID (29 bits), IDE, Dir (0 Rx), EDL
 * (a CAN FD frame), BRS, ESI, DLC, DataLength and DataBytes (a byte
 * array). Remote frames are CAN_RemoteFrame records of their own group;
 * CAN_ErrorFrame records are counted.
 *
 * Written (mdf_bus_write), little-endian, finalized, one data group of one
 * channel group, records of 16 + W bytes (W = 8, or 64 when a frame is CAN
 * FD): 0 time (double, s from the measurement's start), 8 BusChannel
 * (uint8, 1), 9 ID (29 bits of a uint32), 13 bit 0 IDE, bit 1 Dir, bit 2
 * EDL, bit 3 BRS, bit 4 ESI, 14 DLC (4 bits), 15 DataLength (uint8), 16
 * DataBytes (W bytes, zeros past the frame's data).
 *
 * Read by mdf_bus_read.c. Layout facts from the format's readers (asammdf 8.0's bus-logging
 * support, its v4 block definitions) and CSS Electronics' published
 * description of their MF4 files; files written here read back with
 * asammdf (src/results/README.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/mdf_bus.h"
#include "results/mdf_read_internal.h"
#include "results/mdf_write_internal.h"
#include "util/le.h"

enum {
    SOURCE_BUS = 2,    /* SI source type */
    BUS_CAN = 2,       /* SI bus type */
    CG_BUS_EVENT = 1u << 1,
    CG_PLAIN_BUS_EVENT = 1u << 2,
    CN_BUS_EVENT = 1u << 10,
};

bool mdf_bus_is_mdf(const uint8_t *data, size_t size)
{
    return size >= 8 && (memcmp(data, "MDF     ", 8) == 0 || memcmp(data, "UnFinMF ", 8) == 0);
}

/* ---- writing ---- */

/* The CAN_DataFrame's components, in record order: name, data type, byte
 * and bit offset, bits (DataBytes': 8 W). */
typedef struct field {
    const char *name;
    uint8_t dtype;
    uint32_t byte_offset;
    uint8_t bit_offset;
    uint32_t bits;
} field;

/* One frame's record (record bytes at rec, zeroed first). */
static void put_frame(uint8_t *rec, size_t record, const rtcosim_can_log_entry *e)
{
    memset(rec, 0, record);
    double t = (double)e->end / 1e9;
    uint64_t bits;
    memcpy(&bits, &t, sizeof bits);
    le_put64(rec, bits);
    rec[8] = 1; /* bus channel 1, as ASC and BLF name it */
    le_put32(rec + 9, e->frame.id & 0x1FFFFFFFu);
    bool fd = e->format == RTCOSIM_CAN_FORMAT_FD;
    rec[13] = (uint8_t)((e->frame.extended ? 1u : 0u) | (fd ? 4u : 0u) |
                        (fd && (e->flags & RTCOSIM_CAN_FD_BRS) ? 8u : 0u) |
                        (fd && (e->flags & RTCOSIM_CAN_FD_ESI) ? 16u : 0u));
    if (fd) {
        unsigned n = e->length <= 64 ? e->length : 64;
        int dlc = rtcosim_can_fd_dlc(n);
        rec[14] = (uint8_t)(dlc < 0 ? 0 : dlc);
        rec[15] = (uint8_t)n;
        if (n)
            memcpy(rec + 16, e->data, n);
    } else {
        unsigned n = e->frame.dlc < 8 ? e->frame.dlc : 8;
        rec[14] = e->frame.dlc;
        rec[15] = (uint8_t)n;
        memcpy(rec + 16, e->frame.data, n);
    }
}

struct mdf_bus_writer {
    FILE *f;
    const char *path;
    size_t frames, written, xl, record;
    uint64_t dg;     /* the data group (its data link is set at the end) */
    uint64_t cg, dt; /* the channel group (its cycle count) and the DT block */
    bool compressed; /* DZ blocks under a DL, else one DT block */
    bool truncated;  /* ends short of the frames announced (mdf_bus_writer_truncate) */
    /* The count is not known (SIZE_MAX announced): the records wait here
     * until they exceed MDF_DT_MAX bytes, then go to DZ blocks; fewer are
     * one DT block at the close. The file is then the one a known count
     * makes. */
    bool unknown;
    uint8_t *pending;
    mdf_dz dz;
};

rtcosim_status mdf_bus_writer_open(const char *path, size_t frames, bool fd,
                                   mdf_bus_writer **out, rtcosim_error *err)
{
    *out = NULL;
    size_t width = fd ? 64 : 8, record = 16 + width;
    mdf_buf b = {0};
    mdf_identification(&b);
    uint64_t hd = mdf_header(&b, mdf_now_ns(), "CAN bus log of an rtcosim run");
    uint64_t dg = mdf_block(&b, "DG", 4, 8);
    uint64_t si_name = mdf_text(&b, "TX", "CAN1");
    uint64_t si = mdf_block(&b, "SI", 3, 8);
    mdf_link(&b, si, 0, si_name);
    uint8_t *d = mdf_data(&b, si, 3);
    if (d)
        d[0] = SOURCE_BUS, d[1] = BUS_CAN;
    uint64_t acq = mdf_text(&b, "TX", "CAN");
    uint64_t cg = mdf_block(&b, "CG", 6, 32);
    mdf_link(&b, cg, 2, acq);
    mdf_link(&b, cg, 3, si);
    if ((d = mdf_data(&b, cg, 6)) != NULL) {
        le_put64(d + 8, frames == SIZE_MAX ? 0 : frames);       /* cycle count */
        le_put16(d + 16, CG_BUS_EVENT | CG_PLAIN_BUS_EVENT);    /* flags */
        le_put16(d + 18, '.');                                  /* path separator */
        le_put32(d + 24, (uint32_t)record);                     /* data bytes */
    }
    const mdf_cn time = {.name = "Timestamp", .unit = "s", .type = 2, .sync = 1,
                         .dtype = MDF_FLOAT, .bits = 64};
    const mdf_cn frame = {.name = "CAN_DataFrame", .dtype = MDF_BYTES, .byte_offset = 8,
                          .bits = 8u * (8u + (uint32_t)width), .flags = CN_BUS_EVENT};
    const field fields[] = {
        {"CAN_DataFrame.BusChannel", MDF_UNSIGNED, 8, 0, 8},
        {"CAN_DataFrame.ID", MDF_UNSIGNED, 9, 0, 29},
        {"CAN_DataFrame.IDE", MDF_UNSIGNED, 13, 0, 1},
        {"CAN_DataFrame.Dir", MDF_UNSIGNED, 13, 1, 1},
        {"CAN_DataFrame.EDL", MDF_UNSIGNED, 13, 2, 1},
        {"CAN_DataFrame.BRS", MDF_UNSIGNED, 13, 3, 1},
        {"CAN_DataFrame.ESI", MDF_UNSIGNED, 13, 4, 1},
        {"CAN_DataFrame.DLC", MDF_UNSIGNED, 14, 0, 4},
        {"CAN_DataFrame.DataLength", MDF_UNSIGNED, 15, 0, 8},
        {"CAN_DataFrame.DataBytes", MDF_BYTES, 16, 0, 8u * (uint32_t)width},
    };
    uint64_t t_at = mdf_channel(&b, &time), f_at = mdf_channel(&b, &frame), prev = 0;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        const mdf_cn cn = {.name = fields[i].name, .dtype = fields[i].dtype,
                           .byte_offset = fields[i].byte_offset,
                           .bit_offset = fields[i].bit_offset, .bits = fields[i].bits,
                           .flags = CN_BUS_EVENT};
        uint64_t at = mdf_channel(&b, &cn);
        mdf_link(&b, prev ? prev : f_at, prev ? 0 : 1, at); /* next, or the composition */
        prev = at;
    }
    mdf_link(&b, t_at, 0, f_at);
    mdf_link(&b, cg, 1, t_at);
    mdf_link(&b, dg, 1, cg);
    mdf_link(&b, hd, 0, dg);
    bool unknown = frames == SIZE_MAX;
    bool compressed = !unknown && (uint64_t)frames * record > MDF_DT_MAX;
    if (!compressed)
        mdf_link(&b, dg, 2, b.len); /* the DT block follows */
    mdf_bus_writer *w = calloc(1, sizeof *w);
    if (b.failed || !w) {
        free(b.p);
        free(w);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory writing the MDF file",
                                 path);
    }
    *w = (mdf_bus_writer){.path = path, .frames = frames, .record = record, .dg = dg,
                          .cg = cg, .dt = b.len, .compressed = compressed, .unknown = unknown};
    if (!(w->f = fopen(path, "wb"))) {
        free(b.p);
        free(w);
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot write the CAN log", path);
    }
    uint8_t dt[24] = {'#', '#', 'D', 'T'};
    le_put64(dt + 8, 24 + (uint64_t)frames * record);
    bool ok = fwrite(b.p, 1, b.len, w->f) == b.len;
    if (compressed) /* a long log: DZ blocks, then the DG's data link to their DL */
        ok = ok && mdf_dz_begin(&w->dz, w->f, b.len, record);
    else if (!unknown) /* (an unknown count: the DT block at the close) */
        ok = ok && fwrite(dt, 1, sizeof dt, w->f) == sizeof dt;
    free(b.p);
    if (!ok) {
        mdf_bus_writer_close(w, false, NULL, NULL);
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: writing the CAN log failed", path);
    }
    *out = w;
    return RTCOSIM_OK;
}

/* An unknown count's records past MDF_DT_MAX bytes: DZ blocks where the DT
 * block would have been, the records so far first. */
static bool to_dz_blocks(mdf_bus_writer *w)
{
    if (!mdf_dz_begin(&w->dz, w->f, w->dt, w->record))
        return false;
    w->compressed = true;
    for (size_t i = 0; i < w->written; i++) {
        uint8_t *rec = mdf_dz_row(&w->dz);
        if (!rec)
            return false;
        memcpy(rec, w->pending + i * w->record, w->record);
    }
    free(w->pending);
    w->pending = NULL;
    return true;
}

rtcosim_status mdf_bus_writer_add(mdf_bus_writer *w, const rtcosim_can_log_entry *e,
                                  rtcosim_error *err)
{
    if (e->format == RTCOSIM_CAN_FORMAT_XL) {
        w->xl++;
        return RTCOSIM_OK;
    }
    if (w->written == w->frames)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: more frames than the %zu announced",
                                 w->path, w->frames);
    if (e->format == RTCOSIM_CAN_FORMAT_FD && w->record < 16 + 64)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: a CAN FD frame in a log announced "
                                 "without any", w->path);
    if (w->unknown && !w->compressed) { /* held until MDF_DT_MAX bytes, then DZ blocks */
        if ((w->written + 1) * w->record > MDF_DT_MAX) {
            if (!to_dz_blocks(w))
                return rtcosim_error_set(err, RTCOSIM_EIO, "%s: writing the CAN log failed",
                                         w->path);
        } else if (!w->pending && !(w->pending = malloc(MDF_DT_MAX))) {
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", w->path);
        }
    }
    uint8_t one[16 + 64], *rec = w->compressed ? mdf_dz_row(&w->dz)
                                 : w->pending ? w->pending + w->written * w->record
                                              : one;
    w->written++;
    if (!rec)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: writing the CAN log failed", w->path);
    put_frame(rec, w->record, e);
    if (rec == one && fwrite(rec, 1, w->record, w->f) != w->record)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: writing the CAN log failed", w->path);
    return RTCOSIM_OK;
}

void mdf_bus_writer_truncate(mdf_bus_writer *w)
{
    w->frames = w->written;
    w->truncated = true;
}

/* Write a uint64 at a place of the file written before. */
static bool put_at(FILE *f, uint64_t at, uint64_t v)
{
    uint8_t d[8];
    le_put64(d, v);
    return fseek(f, (long)at, SEEK_SET) == 0 && fwrite(d, 1, sizeof d, f) == sizeof d;
}

rtcosim_status mdf_bus_writer_close(mdf_bus_writer *w, bool ok, size_t *xl_left_out,
                                    rtcosim_error *err)
{
    if (xl_left_out)
        *xl_left_out = w->xl;
    if (w->unknown) { /* the count is what came: the DT block now, when not DZ ones */
        mdf_bus_writer_truncate(w);
        uint8_t dt[24] = {'#', '#', 'D', 'T'};
        le_put64(dt + 8, 24 + (uint64_t)w->written * w->record);
        size_t bytes = w->written * w->record;
        if (!w->compressed)
            ok = ok && fwrite(dt, 1, sizeof dt, w->f) == sizeof dt &&
                 (bytes == 0 || fwrite(w->pending, 1, bytes, w->f) == bytes);
        free(w->pending);
        w->pending = NULL;
    }
    bool counted = w->written == w->frames;
    if (w->truncated) /* the cycle count, and the DT block's length: what was written */
        ok = ok && put_at(w->f, w->cg + 24 + 8 * 6 + 8, w->written) &&
             (w->compressed || put_at(w->f, w->dt + 8, 24 + (uint64_t)w->written * w->record)) &&
             fseek(w->f, 0, SEEK_END) == 0;
    if (w->compressed) {
        uint64_t dl = 0;
        uint8_t link[8];
        bool wrote = mdf_dz_end(&w->dz, &dl);
        le_put64(link, dl);
        ok = ok && wrote &&
             fseek(w->f, (long)(w->dg + 24 + 8 * 2), SEEK_SET) == 0 &&
             fwrite(link, 1, sizeof link, w->f) == sizeof link;
    }
    ok = (fclose(w->f) == 0) && ok && counted;
    const char *path = w->path;
    size_t frames = w->frames, written = w->written;
    free(w);
    if (!err || ok)
        return RTCOSIM_OK;
    if (!counted)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: %zu frames written of the %zu "
                                 "announced", path, written, frames);
    return rtcosim_error_set(err, RTCOSIM_EIO, "%s: writing the CAN log failed", path);
}

rtcosim_status mdf_bus_write(const rtcosim_can_log_entry *entries, size_t count,
                             const char *path, size_t *xl_left_out, rtcosim_error *err)
{
    size_t xl = 0;
    bool fd = false;
    for (size_t i = 0; i < count; i++) {
        xl += entries[i].format == RTCOSIM_CAN_FORMAT_XL;
        fd = fd || entries[i].format == RTCOSIM_CAN_FORMAT_FD;
    }
    mdf_bus_writer *w;
    rtcosim_status st = mdf_bus_writer_open(path, count - xl, fd, &w, err);
    for (size_t i = 0; st == RTCOSIM_OK && i < count; i++)
        st = mdf_bus_writer_add(w, &entries[i], err);
    if (st != RTCOSIM_OK) {
        if (w)
            mdf_bus_writer_close(w, false, NULL, NULL);
        return st;
    }
    return mdf_bus_writer_close(w, true, xl_left_out, err);
}
