/* A recorded CAN log played back onto a bus (can_log.h), the rest of the
 * bus as it was recorded around the nodes that are simulated: a node whose LP
 * requests each recorded frame at the time that makes it end on an idle bus
 * where the log says it ended (the log's end-of-frame time less the frame's
 * duration at this bus's bit rates), so that the ECUs and node FMUs on the
 * bus get the recorded traffic, arbitrating with their own frames. Its
 * state is the index of the next frame: the speculative scheduler rolls it
 * back by copying it. The frames it sends are kept in 24 bytes each and
 * their data bytes (a log's record takes 96): a log file is read a frame at
 * a time (rtcosim_can_log_scan) into them, never whole. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bus_internal.h"
#include "log_internal.h"
#include "rtcosim/events.h"
#include "util/array.h"

#define REPLAY_EVENT 0xCA10u

/* A frame to send, 24 bytes (a log record is 96): its data bytes in the
 * replay's arena. */
typedef struct replay_frame {
    rtcosim_time_ns request; /* before the origin is taken off: the log's time less the duration */
    uint64_t data_at;        /* offset of its data in `data` */
    uint32_t id;
    uint8_t size, format, flags;
    bool extended;
} replay_frame;

struct rtcosim_can_replay {
    size_t next; /* the LP's state (first: copied by the speculative scheduler) */
    rtcosim_can_bus *bus;
    uint32_t node;
    replay_frame *frames; /* by request time once added */
    size_t count, capacity;
    uint8_t *data;
    size_t data_size, data_capacity;
    rtcosim_can_replay_stats stats;
    /* while the log is read */
    const char *log_name, *log_bus; /* log_bus NULL: the log's only bus, index 0 */
    uint32_t bus_index;
    size_t buses_looked_at; /* the log's bus names compared with log_bus so far */
    bool bus_known, first_seen;
    rtcosim_time_ns first_time;
};

static rtcosim_status schedule(rtcosim_lp *lp, const rtcosim_can_replay *r, rtcosim_error *err)
{
    if (r->next >= r->count)
        return RTCOSIM_OK;
    rtcosim_time_ns at = r->frames[r->next].request, now = rtcosim_lp_now(lp);
    return rtcosim_lp_send(lp, rtcosim_lp_self(lp), at > now ? at - now : 0, REPLAY_EVENT, 0,
                           NULL, 0, err);
}

static rtcosim_status replay_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    rtcosim_can_replay *r = state;
    r->next = 0;
    return schedule(lp, r, err);
}

static rtcosim_status replay_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                                   rtcosim_error *err)
{
    (void)ev;
    rtcosim_can_replay *r = state;
    const replay_frame *fr = &r->frames[r->next];
    rtcosim_can_any_frame f = {.format = fr->format, .flags = fr->flags, .id = fr->id,
                               .extended = fr->extended, .length = fr->size,
                               .data = r->data + fr->data_at};
    rtcosim_status st = rtcosim_can_transmit_any(lp, r->bus, r->node, &f, 0, 0, err);
    if (st != RTCOSIM_OK)
        return st;
    r->next++;
    return schedule(lp, r, err);
}

static const rtcosim_lp_model replay_model = {
    .kind = "can-replay",
    .init = replay_init,
    .event = replay_event,
    .state_size = sizeof(size_t),
};

/* Request time, then log order: frames are indices into ctx's frames. */
static int by_request(const void *a, const void *b, void *ctx)
{
    const replay_frame *f = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (f[x].request != f[y].request)
        return f[x].request < f[y].request ? -1 : 1;
    return (x > y) - (x < y);
}

/* The frames by request time, log order among equal ones: their indices
 * sorted, then the frames moved in place along the permutation's cycles (4
 * bytes a frame besides them). Logs in request order (most) move nothing. */
static bool sort_frames(rtcosim_can_replay *r)
{
    size_t k = 1, n = r->count;
    while (k < n && r->frames[k].request >= r->frames[k - 1].request)
        k++;
    if (k >= n)
        return true;
    uint32_t *order = malloc(n * sizeof *order);
    if (!order)
        return false;
    for (k = 0; k < n; k++)
        order[k] = (uint32_t)k;
    qsort_r(order, n, sizeof *order, by_request, r->frames);
    for (size_t i = 0; i < n; i++) { /* frames[j] takes frames[order[j]]; done: order[j] = j */
        if (order[i] == i)
            continue;
        replay_frame first = r->frames[i];
        size_t j = i;
        while (order[j] != i) {
            size_t from = order[j];
            r->frames[j] = r->frames[from];
            order[j] = (uint32_t)j;
            j = from;
        }
        r->frames[j] = first;
        order[j] = (uint32_t)j;
    }
    free(order);
    return true;
}

/* One record of the log: kept when it is of the replayed bus and sent. */
static rtcosim_status take(void *context, const rtcosim_can_log *log,
                           const rtcosim_can_log_record *rec, rtcosim_error *err)
{
    rtcosim_can_replay *r = context;
    if (!r->first_seen) {
        r->first_seen = true;
        r->first_time = rec->time;
    }
    if (!r->bus_known) { /* the named bus: its index once the log has named it */
        size_t n = rtcosim_can_log_bus_count(log);
        for (; r->buses_looked_at < n && !r->bus_known; r->buses_looked_at++)
            if (strcmp(rtcosim_can_log_bus_name(log, r->buses_looked_at), r->log_bus) == 0) {
                r->bus_index = (uint32_t)r->buses_looked_at;
                r->bus_known = true;
            }
        if (!r->bus_known)
            return RTCOSIM_OK;
    }
    if (rec->bus != r->bus_index)
        return RTCOSIM_OK;
    if (rec->remote) {
        r->stats.remote_skipped++;
        return RTCOSIM_OK;
    }
    if (rtcosim_can_bus_sends(r->bus, rec->id, rec->extended)) {
        r->stats.own_skipped++;
        return RTCOSIM_OK;
    }
    if (r->count == UINT32_MAX) /* (frames are sorted by 32-bit index) */
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: more than %u frames to replay",
                                 r->log_name, UINT32_MAX - 1u);
    /* (the arena room for one byte past the frame's: allocated even when no
     * frame has bytes, since every frame's data points into it) */
    if (!util_array_reserve(&r->frames, r->count, &r->capacity, sizeof *r->frames, 4096) ||
        !util_array_reserve(&r->data, r->data_size + rec->size, &r->data_capacity, 1, 32768))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory after %zu frames",
                                 r->log_name, r->count);
    replay_frame *f = &r->frames[r->count++];
    f->request = rec->time - rtcosim_can_log_record_duration(rec, rtcosim_can_bus_bitrate(r->bus),
                                                             rtcosim_can_bus_fd_bitrate(r->bus));
    f->data_at = r->data_size;
    f->id = rec->id;
    f->size = rec->size;
    f->format = rec->format;
    f->flags = rec->flags;
    f->extended = rec->extended;
    memcpy(r->data + r->data_size, rec->data, rec->size);
    r->data_size += rec->size;
    return RTCOSIM_OK;
}

static rtcosim_can_replay *replay_new(rtcosim_can_bus *bus, const char *log_name,
                                      const char *log_bus)
{
    rtcosim_can_replay *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->bus = bus;
    r->log_name = log_name;
    r->log_bus = log_bus;
    r->bus_known = !log_bus; /* (none named: index 0, the only one) */
    return r;
}

/* The log read: its bus checked, the requests counted from the origin and
 * sorted, the node added to the bus. Frees r on failure. */
static rtcosim_status replay_finish(rtcosim_events *sim, rtcosim_can_replay *r,
                                    const rtcosim_can_log *log, rtcosim_can_replay **out,
                                    rtcosim_error *err)
{
    rtcosim_status st = RTCOSIM_OK;
    size_t buses = rtcosim_can_log_bus_count(log);
    if (r->log_bus && !r->bus_known)
        st = rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "%s: no bus '%s' in the log (it has"
                               " %s%s%s)", r->log_name, r->log_bus,
                               buses ? rtcosim_can_log_bus_name(log, 0) : "no frames",
                               buses > 1 ? ", " : "", buses > 1 ? rtcosim_can_log_bus_name(log, 1) : "");
    else if (!r->log_bus && buses > 1)
        st = rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: the log has frames of %zu buses (%s,"
                               " %s%s): name one with LOG@BUS", r->log_name, buses,
                               rtcosim_can_log_bus_name(log, 0), rtcosim_can_log_bus_name(log, 1),
                               buses > 2 ? ", ..." : "");
    if (st != RTCOSIM_OK) {
        rtcosim_can_replay_free(r);
        return st;
    }
    /* candump -l counts seconds since 1970: the replay counts from the whole
     * second its first frame is in; ASC and BLF count from the measurement
     * start, as the replay does */
    rtcosim_time_ns origin = 0;
    if (log->absolute && r->first_seen)
        origin = r->first_time / RTCOSIM_NS_PER_S * RTCOSIM_NS_PER_S;
    r->stats.origin = origin;
    for (size_t k = 0; k < r->count; k++) {
        r->frames[k].request -= origin;
        if (r->frames[k].request < 0) {
            r->stats.early++;
            r->frames[k].request = 0;
        }
    }
    r->stats.frames = r->count;
    r->stats.xl_skipped = rtcosim_can_log_xl_count(log);
    if (!sort_frames(r)) {
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", r->log_name);
        rtcosim_can_replay_free(r);
        return st;
    }
    /* what the run reads: no room beyond it */
    if (r->count < r->capacity && r->count) {
        replay_frame *f = realloc(r->frames, r->count * sizeof *f);
        if (f)
            r->frames = f;
    }
    r->log_name = r->log_bus = NULL; /* (the caller's strings) */
    rtcosim_lp_id lp;
    st = rtcosim_events_add_lp(sim, "replay", &replay_model, r, rtcosim_can_bus_lp(r->bus), &lp,
                               err);
    if (st == RTCOSIM_OK)
        st = rtcosim_can_bus_add_node(r->bus, "replay", lp, 0, &r->node, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_can_bus_tx_any(r->bus, r->node, err);
    if (st == RTCOSIM_OK) /* a log's records are classic or CAN FD frames */
        r->bus->nodes[r->node].tx_no_xl = true;
    if (st != RTCOSIM_OK) {
        rtcosim_can_replay_free(r);
        return st;
    }
    *out = r;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_can_replay_add(rtcosim_events *sim, rtcosim_can_bus *bus,
                                      rtcosim_can_log *log, const char *log_name,
                                      const char *log_bus, rtcosim_can_replay **out,
                                      rtcosim_error *err)
{
    *out = NULL;
    rtcosim_can_replay *r = replay_new(bus, log_name, log_bus);
    if (!r)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", log_name);
    rtcosim_status st = RTCOSIM_OK;
    for (size_t i = 0; st == RTCOSIM_OK && i < log->count; i++)
        st = take(r, log, &log->records[i], err);
    if (st != RTCOSIM_OK) {
        rtcosim_can_replay_free(r);
        return st;
    }
    st = replay_finish(sim, r, log, out, err);
    if (st == RTCOSIM_OK)
        rtcosim_can_log_free(log); /* owned: what the replay needs is its own */
    return st;
}

rtcosim_status rtcosim_can_replay_add_file(rtcosim_events *sim, rtcosim_can_bus *bus,
                                           const char *path, const char *log_bus,
                                           rtcosim_can_replay **out, rtcosim_error *err)
{
    *out = NULL;
    rtcosim_can_replay *r = replay_new(bus, path, log_bus);
    if (!r)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    rtcosim_can_log *log = NULL;
    rtcosim_status st = rtcosim_can_log_scan(path, take, r, &log, err);
    if (st != RTCOSIM_OK) {
        rtcosim_can_log_free(log);
        rtcosim_can_replay_free(r);
        return st;
    }
    st = replay_finish(sim, r, log, out, err);
    rtcosim_can_log_free(log);
    return st;
}

void rtcosim_can_replay_stats_get(const rtcosim_can_replay *r, rtcosim_can_replay_stats *out)
{
    *out = r->stats;
}

void rtcosim_can_replay_free(rtcosim_can_replay *r)
{
    if (!r)
        return;
    free(r->frames);
    free(r->data);
    free(r);
}
