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
#include "util/read_file.h"

typedef struct mdf_reader {
    rtcosim_can_log *log;
    const char *name;
    bool channel_zero; /* a frame on bus channel 0 */
    /* streaming: the sink, what the reader tells before the first frame (by
     * time: each frame is named and given at once), and the shift of the
     * times (the measurement's start when frames precede it) */
    rtcosim_can_log_frame_fn *sink;
    mdf_bus_info *info;
    bool started;
    rtcosim_time_ns shift;
} mdf_reader;

static rtcosim_status bus_of(mdf_reader *m, rtcosim_can_log_record *rec, rtcosim_error *err);
static rtcosim_status start_of(mdf_reader *m, const rtcosim_can_log_record *first,
                               rtcosim_time_ns start_ns, rtcosim_error *err);

/* The database the file carries into the log (its owner from then on). */
static void take_database(mdf_reader *m, mdf_bus_info *info)
{
    if (!info->database_name)
        return;
    m->log->database = info->database;
    m->log->database_name = info->database_name;
    m->log->database_size = info->database_size;
    info->database = info->database_name = NULL;
}

static rtcosim_status add_frame(void *context, const mdf_can_frame *f, rtcosim_error *err)
{
    mdf_reader *m = context;
    take_database(m, m->info); /* (a sink has it from the first frame) */
    rtcosim_can_log_record rec = {.extended = f->extended, .remote = f->remote,
                                  .line = (int)(f->number < INT32_MAX ? f->number : INT32_MAX),
                                  .format = f->fd ? RTCOSIM_CAN_FORMAT_FD
                                                  : RTCOSIM_CAN_FORMAT_CLASSIC};
    if (!(f->time > -9.2e9 && f->time < 9.2e9))
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: frame %zu: time %g s is not a time "
                                 "from the measurement's start", m->name, f->number, f->time);
    rec.time = (rtcosim_time_ns)llround(f->time * 1e9);
    if ((!f->extended && f->id > 0x7FF) || f->id > 0x1FFFFFFF)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: frame %zu: identifier 0x%X out of "
                                 "range", m->name, f->number, (unsigned)f->id);
    rec.id = f->id;
    if (f->fd ? rtcosim_can_fd_dlc(f->length) < 0 : f->length > 8)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: frame %zu: %u data bytes: not the "
                                 "length of a %s frame", m->name, f->number, (unsigned)f->length,
                                 f->fd ? "CAN FD" : "classic CAN");
    rec.size = (uint8_t)f->length;
    if (f->length && f->data)
        memcpy(rec.data, f->data, f->length);
    if (f->fd)
        rec.flags = (uint8_t)((f->brs ? RTCOSIM_CAN_FD_BRS : 0) | (f->esi ? RTCOSIM_CAN_FD_ESI : 0));
    /* (named once every frame is read: name_buses; no channel: "can0") */
    rec.bus = f->has_channel ? f->channel : UINT32_MAX;
    m->channel_zero = m->channel_zero || (f->has_channel && f->channel == 0);
    if (!m->info->by_time) /* (kept, named and ordered at the end) */
        return can_log_add(m->log, &rec, m->name, err);
    /* in time order: named, shifted and given at once */
    rtcosim_status st = bus_of(m, &rec, err);
    if (st == RTCOSIM_OK && !m->started) {
        m->started = true;
        st = start_of(m, &rec, m->info->start_ns, err);
    }
    if (st != RTCOSIM_OK)
        return st;
    rec.time += m->shift;
    m->log->sink = m->sink;
    st = can_log_add(m->log, &rec, m->name, err);
    m->log->sink = NULL;
    return st;
}

/* A bus channel to its bus's name: counted from 1 (CAN1 is "can0", as ASC
 * and BLF count, and the loggers that write MDF), or from 0 when a frame is
 * on channel 0 (python-can's MF4Writer writes can0's frames there). */
static rtcosim_status bus_of(mdf_reader *m, rtcosim_can_log_record *rec, rtcosim_error *err)
{
    char bus[16];
    bool zero = m->info->by_time ? m->info->channel_zero : m->channel_zero;
    unsigned n = rec->bus == UINT32_MAX ? 0 : zero ? rec->bus : rec->bus - 1;
    snprintf(bus, sizeof bus, "can%u", n);
    int b = can_log_bus(m->log, bus, &rec->bus);
    if (b == -2)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: frame %d: more than %d buses",
                                 m->name, rec->line, CAN_LOG_MAX_BUSES);
    if (b < 0)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", m->name);
    return RTCOSIM_OK;
}

/* Frames before the measurement's start (python-can's MF4Writer starts the
 * measurement when the file is opened, so a log converted later has its
 * frames years before it): times since 1970, as candump -l's, whose replay
 * counts from its first frame's second. `first`: the earliest frame. */
static rtcosim_status start_of(mdf_reader *m, const rtcosim_can_log_record *first,
                               rtcosim_time_ns start_ns, rtcosim_error *err)
{
    m->shift = 0;
    if (first->time >= 0)
        return RTCOSIM_OK;
    if (start_ns <= 0 || first->time + start_ns < 0)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: frame %d at %.9g s, before the "
                                 "measurement's start%s", m->name, first->line,
                                 (double)first->time / 1e9,
                                 start_ns > 0 ? " and before 1970" : ", which it does not give");
    m->shift = start_ns;
    m->log->absolute = true;
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

/* The frames kept: buses named, in time order, times since 1970 when they
 * start before the measurement. */
static rtcosim_status order(mdf_reader *m, const mdf_bus_info *info, rtcosim_error *err)
{
    rtcosim_can_log *log = m->log;
    bool sorted = true;
    for (size_t i = 0; i < log->count; i++) {
        rtcosim_status st = bus_of(m, &log->records[i], err);
        if (st != RTCOSIM_OK)
            return st;
        sorted = sorted && (i == 0 || log->records[i - 1].time <= log->records[i].time);
    }
    if (!sorted)
        qsort(log->records, log->count, sizeof *log->records, by_time);
    rtcosim_status st = log->count ? start_of(m, &log->records[0], info->start_ns, err)
                                   : RTCOSIM_OK;
    for (size_t i = 0; st == RTCOSIM_OK && m->shift && i < log->count; i++)
        log->records[i].time += m->shift;
    return st;
}

rtcosim_status can_log_parse_mdf(const uint8_t *data, size_t size, const char *name,
                                 rtcosim_can_log *log, rtcosim_error *err)
{
    mdf_bus_info info;
    mdf_reader m = {.log = log, .name = name, .sink = log->sink, .info = &info};
    /* streaming: the frames in time order straight to the sink when each
     * group's are (mdf_bus_read's first pass tells), else kept first (named
     * and merged by time), then given to it */
    log->sink = NULL;
    rtcosim_status st = mdf_bus_read(data, size, name, m.sink != NULL, add_frame, &m, &info, err);
    log->sink = m.sink;
    take_database(&m, &info);
    if (info.by_time)
        return st;
    if (st == RTCOSIM_OK)
        st = order(&m, &info, err);
    /* (the count as the sink sees it: the frames given so far, this one
     * included, as while a text log streams) */
    size_t n = log->count;
    for (size_t i = 0; m.sink && st == RTCOSIM_OK && i < n; i++) {
        log->count = i + 1;
        st = m.sink(log->sink_context, log, &log->records[i], err);
    }
    log->count = n;
    if (m.sink) {
        free(log->records);
        log->records = NULL;
        log->capacity = 0;
    }
    return st;
}

rtcosim_status rtcosim_can_log_read_database(const char *path, char **text, size_t *size,
                                             char **name, rtcosim_error *err)
{
    *text = *name = NULL;
    *size = 0;
    util_file_view view;
    rtcosim_status st = util_file_view_open(path, path, "CAN log", can_log_is_binary, &view,
                                             err);
    if (st != RTCOSIM_OK)
        return st;
    mdf_bus_info info;
    st = mdf_bus_database((const uint8_t *)view.data, view.size, path, &info, err);
    util_file_view_close(&view);
    if (st == RTCOSIM_OK && info.database_name) {
        *text = info.database;
        *size = info.database_size;
        *name = info.database_name;
    }
    return st;
}
