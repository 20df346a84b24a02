/* Writing CAN logs (can_log.h) in candump -l and Vector ASC format (Vector
 * BLF: log_blf_write.c; PEAK TRC: log_trc.c), exactly
 * as the standard readers parse them: no fields of our own, so that
 * can-utils, python-can and Vector's viewers read every frame back.
 *
 * Classic, CAN FD and CAN XL frames (rtcosim_can_log_entry.format):
 * - candump -l as can-utils' lib.h documents its compact frame format:
 *   classic "123#1122", CAN FD "123##<flags nibble><data>" (BRS 1, ESI 2),
 *   CAN XL "<VCID 2 hex><priority 3 hex>#<flags 2 hex>:<SDT 2 hex>:<AF 8
 *   hex>#<data>" (flags: CANXL_XLF 0x80, CANXL_SEC 0x01).
 * - ASC: classic lines; "CANFD" message events (channel, direction, id,
 *   BRS, ESI, DLC, data length, data, message duration [ns], message length
 *   [bits], flags FDF 0x1000 | BRS 0x2000 | ESI 0x4000, CRC and bit timings
 *   0: not computed); "CANXL" message events of frame format XLFF as Vector's
 *   "CAN, Log & Trigger ASC Logging Format Spec" 1.4.17 lays them out (as
 *   can-utils' log2asc/asc2log write and read them): duration, bit count,
 *   priority id, SDT, SEC, DLC, data length, SBC, PCRC, VCID, AF, data,
 *   FCRC, flags XLF 0x400000 | FDF | BRS | SEC 0x1000000, extended flags,
 *   six bit timings. rtcosim computes no CAN XL CRCs nor the SBC field:
 *   those are written 0, as the bit timings. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "log_internal.h"
#include "results/mdf_bus.h"
#include "rtcosim/log.h"

rtcosim_can_log_format rtcosim_can_log_format_of(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    if (n >= 4 && strcasecmp(path + n - 4, ".asc") == 0)
        return RTCOSIM_CAN_LOG_ASC;
    if (n >= 4 && strcasecmp(path + n - 4, ".blf") == 0)
        return RTCOSIM_CAN_LOG_BLF;
    if (n >= 4 && strcasecmp(path + n - 4, ".mf4") == 0)
        return RTCOSIM_CAN_LOG_MDF;
    if (n >= 4 && strcasecmp(path + n - 4, ".trc") == 0)
        return RTCOSIM_CAN_LOG_TRC;
    return RTCOSIM_CAN_LOG_CANDUMP;
}

const char *rtcosim_can_log_format_name(rtcosim_can_log_format format)
{
    switch (format) {
    case RTCOSIM_CAN_LOG_ASC: return "Vector ASC";
    case RTCOSIM_CAN_LOG_BLF: return "Vector BLF";
    case RTCOSIM_CAN_LOG_MDF: return "ASAM MDF 4";
    case RTCOSIM_CAN_LOG_TRC: return "PEAK TRC";
    default: return "candump -l";
    }
}

/* Nanoseconds to whole microseconds, rounded to nearest (times are >= 0 in a log). */
static int64_t to_us(rtcosim_time_ns t)
{
    return t >= 0 ? (t + 500) / 1000 : -((-t + 500) / 1000);
}

/* can-utils' canxl_frame.flags */
#define CANXL_XLF 0x80u
#define CANXL_SEC 0x01u

static void write_bytes(FILE *f, const uint8_t *data, unsigned n, const char *format)
{
    for (unsigned k = 0; k < n; k++)
        fprintf(f, format, data[k]);
}

/* v in decimal, zero-padded to at least `width` digits, at p; the end. */
static char *put_dec(char *p, uint64_t v, int width)
{
    char tmp[20];
    int n = 0;
    do
        tmp[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    for (; n < width; width--)
        *p++ = '0';
    while (n)
        *p++ = tmp[--n];
    return p;
}

static const char HEX[] = "0123456789ABCDEF";

/* v in upper-case hex, zero-padded to at least `width` digits, at p; the end. */
static char *put_hex(char *p, uint32_t v, int width)
{
    int n = 8;
    while (n > 1 && !(v >> (4 * (n - 1))))
        n--;
    for (; n < width; width--)
        *p++ = '0';
    while (n--)
        *p++ = HEX[v >> (4 * n) & 0xF];
    return p;
}

/* A classic or CAN FD frame's line, as the fprintf below would write it, put
 * together here: the frames of a long run or a conversion are written by
 * the million (fprintf was a third of `can convert`'s time). */
static void write_candump_fast(FILE *f, const rtcosim_can_log_entry *e, const char *bus,
                               uint64_t us)
{
    char line[32 + 3 + 2 * 64 + 2];
    char *p = line;
    *p++ = '(';
    p = put_dec(p, us / 1000000, 10);
    *p++ = '.';
    p = put_dec(p, us % 1000000, 6);
    *p++ = ')';
    *p++ = ' ';
    fwrite(line, 1, (size_t)(p - line), f);
    fputs(bus, f);
    p = line;
    *p++ = ' ';
    p = put_hex(p, e->frame.id, e->frame.extended ? 8 : 3);
    *p++ = '#';
    const uint8_t *data = e->frame.data;
    unsigned n = e->frame.dlc < 8 ? e->frame.dlc : 8;
    if (e->format == RTCOSIM_CAN_FORMAT_FD) {
        *p++ = '#';
        *p++ = HEX[e->flags & (RTCOSIM_CAN_FD_BRS | RTCOSIM_CAN_FD_ESI)];
        data = e->data;
        n = e->length <= 64 ? e->length : 64;
    }
    for (unsigned k = 0; k < n; k++) {
        *p++ = HEX[data[k] >> 4];
        *p++ = HEX[data[k] & 0xF];
    }
    *p++ = '\n';
    fwrite(line, 1, (size_t)(p - line), f);
}

static void write_candump(FILE *f, const rtcosim_can_log_entry *e, const char *bus)
{
    int64_t us = to_us(e->end);
    if (us >= 0 && e->format != RTCOSIM_CAN_FORMAT_XL) {
        write_candump_fast(f, e, bus, (uint64_t)us);
        return;
    }
    fprintf(f, "(%010" PRId64 ".%06" PRId64 ") %s ", us / 1000000, us % 1000000, bus);
    if (e->format == RTCOSIM_CAN_FORMAT_XL) {
        fprintf(f, "%02X%03" PRIX32 "#%02X:%02X:%08" PRIX32 "#", e->vcid, e->frame.id & 0x7FFu,
                CANXL_XLF | (e->flags & RTCOSIM_CAN_XL_SEC ? CANXL_SEC : 0u), e->sdt, e->af);
        write_bytes(f, e->data, e->length, "%02X");
    } else if (e->format == RTCOSIM_CAN_FORMAT_FD) {
        fprintf(f, "%0*" PRIX32 "##%X", e->frame.extended ? 8 : 3, e->frame.id,
                e->flags & (RTCOSIM_CAN_FD_BRS | RTCOSIM_CAN_FD_ESI));
        write_bytes(f, e->data, e->length, "%02X");
    } else {
        fprintf(f, "%0*" PRIX32 "#", e->frame.extended ? 8 : 3, e->frame.id);
        write_bytes(f, e->frame.data, e->frame.dlc < 8 ? e->frame.dlc : 8, "%02X");
    }
    fputc('\n', f);
}

/* ASC has a wall-clock date; a simulation starts at the epoch. */
#define ASC_DATE "Thu Jan 1 12:00:00.000 am 1970"

rtcosim_time_ns rtcosim_can_log_record_duration(const rtcosim_can_log_record *r,
                                                uint32_t bitrate, uint32_t fd_bitrate)
{
    uint32_t nominal = 0, data = 0;
    if (r->format == RTCOSIM_CAN_FORMAT_FD) {
        rtcosim_can_fd_frame fd = {.id = r->id, .extended = r->extended,
                                   .brs = (r->flags & RTCOSIM_CAN_FD_BRS) != 0,
                                   .esi = (r->flags & RTCOSIM_CAN_FD_ESI) != 0, .length = r->size};
        memcpy(fd.data, r->data, r->size);
        if (rtcosim_can_fd_frame_bits(&fd, &nominal, &data, NULL) != RTCOSIM_OK)
            return 0;
    } else {
        rtcosim_can_frame f = {.id = r->id, .extended = r->extended, .dlc = r->size};
        memcpy(f.data, r->data, r->size);
        nominal = rtcosim_can_frame_bits(&f, RTCOSIM_CAN_STUFFING_ACTUAL);
    }
    return (rtcosim_time_ns)((double)nominal * 1e9 / bitrate +
                             (data ? (double)data * 1e9 / fd_bitrate : 0.0) + 0.5);
}

uint32_t can_log_entry_bits(const rtcosim_can_log_entry *e)
{
    uint32_t nominal = 0, data = 0;
    if (e->format == RTCOSIM_CAN_FORMAT_CLASSIC) {
        return rtcosim_can_frame_bits(&e->frame, RTCOSIM_CAN_STUFFING_ACTUAL);
    } else if (e->format == RTCOSIM_CAN_FORMAT_XL) {
        (void)rtcosim_can_xl_frame_bits(e->frame.id, e->length, &nominal, &data, NULL);
    } else {
        rtcosim_can_fd_frame fd = {.id = e->frame.id, .extended = e->frame.extended,
                                   .brs = (e->flags & RTCOSIM_CAN_FD_BRS) != 0,
                                   .esi = (e->flags & RTCOSIM_CAN_FD_ESI) != 0,
                                   .length = (uint8_t)(e->length <= 64 ? e->length : 0)};
        if (e->length && e->length <= 64)
            memcpy(fd.data, e->data, e->length);
        (void)rtcosim_can_fd_frame_bits(&fd, &nominal, &data, NULL);
    }
    return nominal + data;
}

static void write_asc(FILE *f, const rtcosim_can_log_entry *e)
{
    char id[16];
    snprintf(id, sizeof id, "%" PRIX32 "%s", e->frame.id, e->frame.extended ? "x" : "");
    int64_t us = to_us(e->end);
    fprintf(f, "%4" PRId64 ".%06" PRId64 " ", us / 1000000, us % 1000000);
    if (e->format == RTCOSIM_CAN_FORMAT_XL) {
        unsigned flags = 0x400000u | 0x1000u | 0x2000u |
                         (e->flags & RTCOSIM_CAN_XL_SEC ? 0x1000000u : 0u);
        fprintf(f, "CANXL   1 Rx   XLFF %8" PRId64 " %6" PRIu32 " %9s %02x %d %x %u 0 0 %02x %08"
                PRIx32, e->end - e->start, can_log_entry_bits(e), id, e->sdt,
                e->flags & RTCOSIM_CAN_XL_SEC ? 1 : 0, e->length - 1u, e->length, e->vcid, e->af);
        write_bytes(f, e->data, e->length, " %02x");
        fprintf(f, " 0 %08x 00000000 0 0 0 0 0 0\n", flags);
    } else if (e->format == RTCOSIM_CAN_FORMAT_FD) {
        int dlc = rtcosim_can_fd_dlc(e->length);
        unsigned flags = 0x1000u | (e->flags & RTCOSIM_CAN_FD_BRS ? 0x2000u : 0u) |
                         (e->flags & RTCOSIM_CAN_FD_ESI ? 0x4000u : 0u);
        fprintf(f, "CANFD   1 Rx   %11s %d %d %x %2u", id, e->flags & RTCOSIM_CAN_FD_BRS ? 1 : 0,
                e->flags & RTCOSIM_CAN_FD_ESI ? 1 : 0, dlc < 0 ? 0 : dlc, e->length);
        write_bytes(f, e->data, e->length, " %02X");
        fprintf(f, " %8" PRId64 " %4" PRIu32 " %8X 0 0 0 0 0\n", e->end - e->start, can_log_entry_bits(e),
                flags);
    } else {
        fprintf(f, "1  %-15s Rx   d %u", id, (unsigned)e->frame.dlc);
        write_bytes(f, e->frame.data, e->frame.dlc < 8 ? e->frame.dlc : 8, " %02X");
        fputc('\n', f);
    }
}

struct rtcosim_can_log_writer {
    rtcosim_can_log_format format;
    char *path, *bus;
    FILE *f;
    blf_writer *blf;
    trc_writer *trc;
    mdf_bus_writer *mdf;
};

static rtcosim_status writer_failed(rtcosim_can_log_writer *w, rtcosim_error *err)
{
    return rtcosim_error_set(err, RTCOSIM_EIO, "%s: writing the CAN log failed", w->path);
}

rtcosim_status rtcosim_can_log_writer_open(const char *path, rtcosim_can_log_format format,
                                           const char *bus_name,
                                           const rtcosim_can_log_layout *layout,
                                           rtcosim_can_log_writer **out, rtcosim_error *err)
{
    *out = NULL;
    rtcosim_can_log_layout none = {0};
    layout = layout ? layout : &none;
    rtcosim_can_log_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->path = strdup(path)) || !(w->bus = strdup(bus_name ? bus_name : "can0"))) {
        if (w)
            free(w->path);
        free(w);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    }
    w->format = format;
    rtcosim_status st = RTCOSIM_OK;
    if (format == RTCOSIM_CAN_LOG_MDF) {
        st = mdf_bus_writer_open(w->path, layout->frames, layout->fd, &w->mdf, err);
    } else if (!(w->f = fopen(path, format == RTCOSIM_CAN_LOG_BLF ||
                                    format == RTCOSIM_CAN_LOG_TRC ? "wb" : "w"))) {
        st = rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot write the CAN log", path);
    } else if (format == RTCOSIM_CAN_LOG_BLF) {
        if (!(w->blf = can_log_blf_begin(w->f)))
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    } else if (format == RTCOSIM_CAN_LOG_TRC) { /* (its header at the first frame) */
        if (!(w->trc = can_log_trc_begin(w->f, w->bus)))
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    } else if (format == RTCOSIM_CAN_LOG_ASC) {
        /* CANXL events are in the format's later versions (the spec of 2024
         * that can-utils follows writes 18.2.0) */
        fprintf(w->f, "date " ASC_DATE "\nbase hex  timestamps absolute\ninternal events logged\n"
                      "// version %s\nBegin Triggerblock " ASC_DATE "\n"
                      "   0.000000 Start of measurement\n", layout->xl ? "18.2.0" : "9.0.0");
    }
    if (st != RTCOSIM_OK) {
        if (w->f)
            fclose(w->f);
        free(w->path);
        free(w->bus);
        free(w);
        return st;
    }
    *out = w;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_can_log_writer_add(rtcosim_can_log_writer *w,
                                          const rtcosim_can_log_entry *e, rtcosim_error *err)
{
    switch (w->format) {
    case RTCOSIM_CAN_LOG_MDF: return mdf_bus_writer_add(w->mdf, e, err);
    case RTCOSIM_CAN_LOG_BLF: return can_log_blf_add(w->blf, e) ? RTCOSIM_OK : writer_failed(w, err);
    case RTCOSIM_CAN_LOG_ASC: write_asc(w->f, e); break;
    case RTCOSIM_CAN_LOG_TRC: can_log_trc_add(w->trc, e); break;
    default: write_candump(w->f, e, w->bus); break;
    }
    return RTCOSIM_OK; /* (a text log's write errors are seen at the close) */
}

rtcosim_status rtcosim_can_log_writer_close(rtcosim_can_log_writer *w, rtcosim_error *err)
{
    if (!w)
        return RTCOSIM_OK;
    rtcosim_status st = RTCOSIM_OK;
    if (w->format == RTCOSIM_CAN_LOG_MDF) {
        size_t xl = 0;
        st = mdf_bus_writer_close(w->mdf, true, &xl, err);
        if (st == RTCOSIM_OK && xl)
            rtcosim_log(RTCOSIM_LOG_WARNING, "can", "%s: %zu CAN XL frames left out: the MDF "
                        "bus-logging layout holds classic and CAN FD frames (a .blf, .asc or "
                        "candump log keeps them)", w->path, xl);
    } else {
        bool ok = true;
        size_t xl = 0;
        if (w->format == RTCOSIM_CAN_LOG_BLF)
            ok = can_log_blf_end(w->blf, true);
        else if (w->format == RTCOSIM_CAN_LOG_TRC)
            ok = can_log_trc_end(w->trc, true, &xl);
        else if (w->format == RTCOSIM_CAN_LOG_ASC)
            fprintf(w->f, "End TriggerBlock\n");
        ok = !ferror(w->f) && ok;
        ok = fclose(w->f) == 0 && ok;
        if (!ok)
            st = writer_failed(w, err);
        else if (xl)
            rtcosim_log(RTCOSIM_LOG_WARNING, "can", "%s: %zu CAN XL frames left out: a TRC "
                        "trace holds classic and CAN FD frames (a .blf, .asc or candump log "
                        "keeps them)", w->path, xl);
    }
    free(w->path);
    free(w->bus);
    free(w);
    return st;
}

void rtcosim_can_log_writer_truncate(rtcosim_can_log_writer *w)
{
    if (w && w->format == RTCOSIM_CAN_LOG_MDF)
        mdf_bus_writer_truncate(w->mdf);
}

void rtcosim_can_log_writer_abort(rtcosim_can_log_writer *w)
{
    if (!w)
        return;
    if (w->format == RTCOSIM_CAN_LOG_MDF) {
        mdf_bus_writer_close(w->mdf, false, NULL, NULL);
    } else {
        if (w->format == RTCOSIM_CAN_LOG_BLF)
            can_log_blf_end(w->blf, false);
        else if (w->format == RTCOSIM_CAN_LOG_TRC)
            can_log_trc_end(w->trc, false, NULL);
        fclose(w->f);
    }
    free(w->path);
    free(w->bus);
    free(w);
}

rtcosim_status rtcosim_can_log_write(const rtcosim_can_log_entry *entries, size_t count,
                                     const char *bus_name, rtcosim_can_log_format format,
                                     const char *path, rtcosim_error *err)
{
    rtcosim_can_log_layout layout = {0};
    for (size_t i = 0; i < count; i++) {
        layout.xl = layout.xl || entries[i].format == RTCOSIM_CAN_FORMAT_XL;
        layout.fd = layout.fd || entries[i].format == RTCOSIM_CAN_FORMAT_FD;
        layout.frames += entries[i].format != RTCOSIM_CAN_FORMAT_XL;
    }
    rtcosim_can_log_writer *w;
    rtcosim_status st = rtcosim_can_log_writer_open(path, format, bus_name, &layout, &w, err);
    for (size_t i = 0; st == RTCOSIM_OK && i < count; i++)
        st = rtcosim_can_log_writer_add(w, &entries[i], err);
    if (st != RTCOSIM_OK) {
        rtcosim_can_log_writer_abort(w);
        return st;
    }
    return rtcosim_can_log_writer_close(w, err);
}
