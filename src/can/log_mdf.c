/* CAN bus logs as ASAM MDF 4 files (src/results/mdf_bus.c reads and writes
 * the bus-logging layout): frames of the CAN_DataFrame and CAN_RemoteFrame
 * channel groups into a log's records, bus channel N as bus "canN-1" (as ASC
 * and BLF name theirs; "canN" when a frame is on channel 0, as python-can
 * writes; a log without bus channels: "can0"), times from the
 * measurement's start (since 1970 when frames precede it); several groups'
 * frames merged in time order. A record's `line` is its frame's number in
 * the file. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log_internal.h"
#include "results/mdf_bus.h"

typedef struct mdf_reader {
    rtcosim_can_log *log;
    const char *name;
    size_t frames;
    bool channel_zero; /* a frame on bus channel 0 */
} mdf_reader;

static rtcosim_status add_frame(void *context, const mdf_can_frame *f, rtcosim_error *err)
{
    mdf_reader *m = context;
    m->frames++;
    rtcosim_can_log_record rec = {.extended = f->extended, .remote = f->remote,
                                  .line = (int)(m->frames < INT32_MAX ? m->frames : INT32_MAX),
                                  .format = f->fd ? RTCOSIM_CAN_FORMAT_FD
                                                  : RTCOSIM_CAN_FORMAT_CLASSIC};
    if (!(f->time > -9.2e9 && f->time < 9.2e9))
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: frame %zu: time %g s is not a time "
                                 "from the measurement's start", m->name, m->frames, f->time);
    rec.time = (rtcosim_time_ns)llround(f->time * 1e9);
    if ((!f->extended && f->id > 0x7FF) || f->id > 0x1FFFFFFF)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: frame %zu: identifier 0x%X out of "
                                 "range", m->name, m->frames, (unsigned)f->id);
    rec.id = f->id;
    if (f->fd ? rtcosim_can_fd_dlc(f->length) < 0 : f->length > 8)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: frame %zu: %u data bytes: not the "
                                 "length of a %s frame", m->name, m->frames, (unsigned)f->length,
                                 f->fd ? "CAN FD" : "classic CAN");
    rec.size = (uint8_t)f->length;
    if (f->length && f->data)
        memcpy(rec.data, f->data, f->length);
    if (f->fd)
        rec.flags = (uint8_t)((f->brs ? RTCOSIM_CAN_FD_BRS : 0) | (f->esi ? RTCOSIM_CAN_FD_ESI : 0));
    /* (named once every frame is read: name_buses; no channel: "can0") */
    rec.bus = f->has_channel ? f->channel : UINT32_MAX;
    m->channel_zero = m->channel_zero || (f->has_channel && f->channel == 0);
    return can_log_add(m->log, &rec, m->name, err);
}

/* Bus channels to bus names: counted from 1 (CAN1 is "can0", as ASC and BLF
 * count, and the loggers that write MDF), or from 0 when a frame is on
 * channel 0 (python-can's MF4Writer writes can0's frames there). */
static rtcosim_status name_buses(mdf_reader *m, rtcosim_error *err)
{
    for (size_t i = 0; i < m->log->count; i++) {
        rtcosim_can_log_record *rec = &m->log->records[i];
        char bus[16];
        unsigned n = rec->bus == UINT32_MAX ? 0 : m->channel_zero ? rec->bus : rec->bus - 1;
        snprintf(bus, sizeof bus, "can%u", n);
        int b = can_log_bus(m->log, bus, &rec->bus);
        if (b == -2)
            return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: frame %d: more than %d buses",
                                     m->name, rec->line, CAN_LOG_MAX_BUSES);
        if (b < 0)
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", m->name);
    }
    return RTCOSIM_OK;
}

static int by_time(const void *a, const void *b)
{
    const rtcosim_can_log_record *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line); /* (stable: by frame number) */
}

bool can_log_is_mdf(const void *data, size_t size)
{
    return mdf_bus_is_mdf(data, size);
}

/* Buses named, frames in time order, times since 1970 when they start
 * before the measurement. */
static rtcosim_status order(mdf_reader *m, const mdf_bus_info *info, rtcosim_error *err)
{
    rtcosim_can_log *log = m->log;
    const char *name = m->name;
    rtcosim_status st = name_buses(m, err);
    if (st != RTCOSIM_OK)
        return st;
    bool sorted = true, early = false;
    for (size_t i = 0; i < log->count; i++) {
        sorted = sorted && (i == 0 || log->records[i - 1].time <= log->records[i].time);
        early = early || log->records[i].time < 0;
    }
    if (!sorted)
        qsort(log->records, log->count, sizeof *log->records, by_time);
    /* Frames before the measurement's start (python-can's MF4Writer starts
     * the measurement when the file is opened, so a log converted later has
     * its frames years before it): times since 1970, as candump -l's, whose
     * replay counts from its first frame's second. */
    if (early) {
        if (info->start_ns <= 0 || log->records[0].time + info->start_ns < 0)
            return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: frame %d at %.9g s, before the "
                                     "measurement's start%s", name, log->records[0].line,
                                     (double)log->records[0].time / 1e9,
                                     info->start_ns > 0 ? " and before 1970" : ", which it does "
                                     "not give");
        for (size_t i = 0; i < log->count; i++)
            log->records[i].time += info->start_ns;
        log->absolute = true;
    }
    return RTCOSIM_OK;
}

rtcosim_status can_log_parse_mdf(const uint8_t *data, size_t size, const char *name,
                                 rtcosim_can_log *log, rtcosim_error *err)
{
    mdf_reader m = {.log = log, .name = name};
    mdf_bus_info info;
    /* streaming: the frames are kept first (named and merged by time in
     * order), then given to the sink */
    rtcosim_can_log_frame_fn *sink = log->sink;
    log->sink = NULL;
    rtcosim_status st = mdf_bus_read(data, size, name, add_frame, &m, &info, err);
    log->database = info.database; /* (the log owns them now) */
    log->database_name = info.database_name;
    log->database_size = info.database_size;
    if (st == RTCOSIM_OK)
        st = order(&m, &info, err);
    /* (the count as the sink sees it: the frames given so far, this one
     * included, as while a text log streams) */
    size_t n = log->count;
    for (size_t i = 0; sink && st == RTCOSIM_OK && i < n; i++) {
        log->count = i + 1;
        st = sink(log->sink_context, log, &log->records[i], err);
    }
    log->count = n;
    if (sink) {
        free(log->records);
        log->records = NULL;
        log->capacity = 0;
    }
    return st;
}
