/* A recorded CAN log played back onto a bus (can_log.h), the rest of the
 * bus as it was recorded around the nodes that are simulated: a node whose LP
 * requests each recorded frame at the time that makes it end on an idle bus
 * where the log says it ended (the log's end-of-frame time less the frame's
 * duration at this bus's bit rates), so that the ECUs and node FMUs on the
 * bus get the recorded traffic, arbitrating with their own frames. Its
 * state is the index of the next frame: the speculative scheduler rolls it
 * back by copying it. */
#include <stdlib.h>
#include <string.h>

#include "log_internal.h"
#include "rtcosim/events.h"

#define REPLAY_EVENT 0xCA10u

struct rtcosim_can_replay {
    size_t next; /* the LP's state (first: copied by the speculative scheduler) */
    rtcosim_can_log *log;
    rtcosim_can_bus *bus;
    uint32_t node;
    uint32_t *order;         /* records to send, by request time */
    rtcosim_time_ns *request; /* their request times */
    size_t count;
    rtcosim_can_replay_stats stats;
};

static rtcosim_status schedule(rtcosim_lp *lp, const rtcosim_can_replay *r, rtcosim_error *err)
{
    if (r->next >= r->count)
        return RTCOSIM_OK;
    rtcosim_time_ns at = r->request[r->next], now = rtcosim_lp_now(lp);
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
    const rtcosim_can_log_record *rec = &r->log->records[r->order[r->next]];
    rtcosim_can_any_frame f = {.format = rec->format, .flags = rec->flags, .id = rec->id,
                               .extended = rec->extended, .length = rec->size,
                               .data = rec->data};
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

/* Stable order of request times (logs are nearly always in order already). */
static int by_request(const void *a, const void *b, void *ctx)
{
    const rtcosim_time_ns *q = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return q[x] < q[y] ? -1 : q[x] > q[y] ? 1 : (x > y) - (x < y);
}

rtcosim_status rtcosim_can_replay_add(rtcosim_events *sim, rtcosim_can_bus *bus,
                                      rtcosim_can_log *log, const char *log_name,
                                      const char *log_bus, rtcosim_can_replay **out,
                                      rtcosim_error *err)
{
    *out = NULL;
    uint32_t b = 0;
    if (log_bus) {
        while (b < log->bus_count && strcmp(log->buses[b], log_bus) != 0)
            b++;
        if (b == log->bus_count)
            return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "%s: no bus '%s' in the log (it has"
                                     " %s%s%s)", log_name, log_bus,
                                     log->bus_count ? log->buses[0] : "no frames",
                                     log->bus_count > 1 ? ", " : "",
                                     log->bus_count > 1 ? log->buses[1] : "");
    } else if (log->bus_count > 1) {
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: the log has frames of %zu buses (%s,"
                                 " %s%s): name one with LOG@BUS", log_name, log->bus_count,
                                 log->buses[0], log->buses[1], log->bus_count > 2 ? ", ..." : "");
    }
    rtcosim_can_replay *r = calloc(1, sizeof *r);
    rtcosim_time_ns *q = r ? malloc((log->count ? log->count : 1) * sizeof *q) : NULL;
    if (r)
        r->order = malloc((log->count ? log->count : 1) * sizeof *r->order);
    if (!r || !q || !r->order) {
        free(q);
        if (r)
            free(r->order);
        free(r);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", log_name);
    }
    r->bus = bus;
    /* candump -l counts seconds since 1970: the replay counts from the whole
     * second its first frame is in; ASC and BLF count from the measurement
     * start, as the replay does */
    rtcosim_time_ns origin = 0;
    if (log->absolute && log->count)
        origin = log->records[0].time / RTCOSIM_NS_PER_S * RTCOSIM_NS_PER_S;
    r->stats.origin = origin;
    for (size_t i = 0; i < log->count; i++) {
        const rtcosim_can_log_record *rec = &log->records[i];
        if (rec->bus != b)
            continue;
        if (rec->remote) {
            r->stats.remote_skipped++;
            continue;
        }
        if (rtcosim_can_bus_sends(bus, rec->id, rec->extended)) {
            r->stats.own_skipped++;
            continue;
        }
        rtcosim_time_ns t = rec->time - origin -
                            rtcosim_can_log_record_duration(rec, rtcosim_can_bus_bitrate(bus),
                                                            rtcosim_can_bus_fd_bitrate(bus));
        if (t < 0) {
            r->stats.early++;
            t = 0;
        }
        q[i] = t;
        r->order[r->count++] = (uint32_t)i;
    }
    r->stats.frames = r->count;
    r->stats.xl_skipped = log->xl_count;
    qsort_r(r->order, r->count, sizeof *r->order, by_request, q);
    r->request = malloc((r->count ? r->count : 1) * sizeof *r->request);
    if (!r->request) {
        free(q);
        rtcosim_can_replay_free(r);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", log_name);
    }
    for (size_t k = 0; k < r->count; k++)
        r->request[k] = q[r->order[k]];
    free(q);
    rtcosim_lp_id lp;
    rtcosim_status st = rtcosim_events_add_lp(sim, "replay", &replay_model, r,
                                              rtcosim_can_bus_lp(bus), &lp, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_can_bus_add_node(bus, "replay", lp, 0, &r->node, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_can_bus_tx_any(bus, r->node, err);
    if (st != RTCOSIM_OK) {
        rtcosim_can_replay_free(r);
        return st;
    }
    r->log = log; /* owned from here on */
    *out = r;
    return RTCOSIM_OK;
}

void rtcosim_can_replay_stats_get(const rtcosim_can_replay *r, rtcosim_can_replay_stats *out)
{
    *out = r->stats;
}

void rtcosim_can_replay_free(rtcosim_can_replay *r)
{
    if (!r)
        return;
    rtcosim_can_log_free(r->log);
    free(r->order);
    free(r->request);
    free(r);
}
