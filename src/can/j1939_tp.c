/* SAE J1939 transport protocol sessions reassembled from a log's frames
 * (j1939.h). Facts from J1939-21: TP.CM (PGN 0xEC00) control bytes 16 RTS,
 * 17 CTS, 19 End of Message Acknowledgment, 32 BAM, 255 Connection Abort;
 * RTS and BAM carry the message size (bytes 2-3, little-endian), the packet
 * count (byte 4) and the PGN of the packed message (bytes 6-8); TP.DT (PGN
 * 0xEB00) carries a sequence number from 1 and 7 data bytes. BAM goes to
 * the global address 255; RTS/CTS to the destination in PDU specific. */
#include <stdlib.h>
#include <string.h>

#include "rtcosim/dbc.h"
#include "rtcosim/j1939.h"
#include "util/array.h"

#define TP_CM 0xEC00u
#define TP_DT 0xEB00u
#define TP_MAX 1785u /* 255 packets of 7 bytes */
/* Sessions open at once, at most: J1939 allows one BAM per sender and one
 * RTS/CTS session per sender and destination, a few hundred on a real bus;
 * a log announcing more (a corrupt or hostile one) has the rest counted
 * incomplete, so that memory and time stay bounded. */
#define TP_MAX_OPEN 4096u

typedef struct session {
    uint32_t bus;
    uint8_t sa, da, priority;
    uint32_t pgn;
    uint16_t size;
    uint8_t packets;
    uint16_t received;
    uint8_t got[32]; /* sequence numbers seen, a bit each */
    uint8_t *data;   /* size bytes */
    rtcosim_time_ns last; /* its last frame's time */
} session;

/* A session silent this long has timed out (J1939-21's T1 750 ms for a
 * receiver waiting for the next packet, T2/T3 1250 ms: the longest). */
#define TP_TIMEOUT ((rtcosim_time_ns)1250000000)

typedef struct tp_state {
    session *sessions; /* the open ones */
    size_t count, cap;
    rtcosim_j1939_tp *out;
    size_t cap_out;
} tp_state;

static session *find(tp_state *t, uint32_t bus, uint8_t sa, uint8_t da)
{
    for (size_t i = 0; i < t->count; i++)
        if (t->sessions[i].bus == bus && t->sessions[i].sa == sa && t->sessions[i].da == da)
            return &t->sessions[i];
    return NULL;
}

/* A session closed: its slot taken by the last one; incomplete counted
 * unless it completed. */
static void close_session(tp_state *t, session *s, bool completed)
{
    if (!s)
        return;
    t->out->incomplete += !completed;
    free(s->data);
    *s = t->sessions[--t->count];
}

/* TP.CM: an announcement opens its sender's session to its destination. */
static bool connection(tp_state *t, const rtcosim_can_log_record *r, uint8_t sa, uint8_t ps)
{
    uint8_t control = r->data[0];
    if (control == 255) { /* an abort, from either end */
        close_session(t, find(t, r->bus, sa, ps), false);
        close_session(t, find(t, r->bus, ps, sa), false);
        return true;
    }
    if (control != 16 && control != 32)
        return true; /* CTS, End of Message Acknowledgment: the receiver's */
    uint8_t da = control == 32 ? 255 : ps;
    close_session(t, find(t, r->bus, sa, da), false); /* (a new announcement ends the last) */
    for (size_t i = t->count; i-- > 0;) /* the ones timed out */
        if (r->time - t->sessions[i].last > TP_TIMEOUT)
            close_session(t, &t->sessions[i], false);
    uint16_t size = (uint16_t)(r->data[1] | r->data[2] << 8);
    uint8_t packets = r->data[3];
    if (size < 9 || size > TP_MAX || packets != (size + 6) / 7 || t->count >= TP_MAX_OPEN) {
        t->out->incomplete++;
        return true;
    }
    if (!util_array_reserve(&t->sessions, t->count, &t->cap, sizeof *t->sessions, 8))
        return false;
    session *s = &t->sessions[t->count];
    *s = (session){.bus = r->bus, .sa = sa, .da = da, .priority = (uint8_t)(r->id >> 26 & 7),
                   .pgn = (uint32_t)(r->data[5] | r->data[6] << 8 | r->data[7] << 16) & 0x3FFFF,
                   .size = size, .packets = packets, .data = calloc(1, size),
                   .last = r->time};
    if (!s->data)
        return false;
    t->count++;
    return true;
}

/* TP.DT: a packet of an open session; the last one completes it. */
static bool transfer(tp_state *t, const rtcosim_can_log_record *r, size_t index, uint8_t sa,
                     uint8_t ps)
{
    session *s = find(t, r->bus, sa, ps);
    uint8_t seq = r->data[0];
    if (s && r->time - s->last > TP_TIMEOUT) {
        close_session(t, s, false); /* timed out before this packet */
        return true;
    }
    if (!s || seq < 1 || seq > s->packets)
        return true;
    s->last = r->time;
    size_t at = (size_t)(seq - 1) * 7, n = s->size - at < 7 ? s->size - at : 7;
    if (n > (size_t)r->size - 1)
        n = (size_t)r->size - 1;
    memcpy(s->data + at, r->data + 1, n);
    if (!(s->got[seq / 8] >> (seq % 8) & 1)) {
        s->got[seq / 8] |= (uint8_t)(1u << (seq % 8));
        s->received++;
    }
    if (s->received < s->packets)
        return true;
    rtcosim_j1939_tp *o = t->out;
    if (!util_array_reserve(&o->messages, o->count, &t->cap_out, sizeof *o->messages, 8))
        return false;
    uint32_t pf = s->pgn >> 8 & 0xFF;
    uint32_t id = (uint32_t)s->priority << 26 |
                  (pf < 240 ? ((s->pgn & 0x3FF00) | s->da) : s->pgn) << 8 | s->sa;
    o->messages[o->count++] = (rtcosim_j1939_message){.record = index, .id = id, .pgn = s->pgn,
                                                      .size = s->size, .data = s->data};
    s->data = NULL; /* (the message's now) */
    close_session(t, s, true);
    return true;
}

struct rtcosim_j1939_tp_stream {
    tp_state t;
};

rtcosim_j1939_tp_stream *rtcosim_j1939_tp_begin(rtcosim_j1939_tp *out)
{
    *out = (rtcosim_j1939_tp){0};
    rtcosim_j1939_tp_stream *s = calloc(1, sizeof *s);
    if (s)
        s->t.out = out;
    return s;
}

bool rtcosim_j1939_tp_add(rtcosim_j1939_tp_stream *s, const rtcosim_can_log_record *r,
                          size_t index)
{
    if (!r->extended || r->remote || r->size < 8)
        return true; /* (both TP frames are 8 bytes) */
    uint32_t pgn = rtcosim_j1939_pgn(r->id);
    uint8_t sa = (uint8_t)r->id, ps = (uint8_t)(r->id >> 8);
    bool ok;
    if (pgn == TP_CM)
        ok = connection(&s->t, r, sa, ps);
    else if (pgn == TP_DT)
        ok = transfer(&s->t, r, index, sa, ps);
    else
        return true;
    s->t.out->frames++;
    return ok;
}

void rtcosim_j1939_tp_end(rtcosim_j1939_tp_stream *s)
{
    if (!s)
        return;
    while (s->t.count)
        close_session(&s->t, &s->t.sessions[s->t.count - 1], false);
    free(s->t.sessions);
    free(s);
}

rtcosim_status rtcosim_j1939_tp_reassemble(const rtcosim_can_log *log, rtcosim_j1939_tp *out,
                                           rtcosim_error *err)
{
    rtcosim_j1939_tp_stream *s = rtcosim_j1939_tp_begin(out);
    const rtcosim_can_log_record *recs = rtcosim_can_log_records(log);
    bool ok = s != NULL;
    for (size_t i = 0; ok && i < rtcosim_can_log_count(log); i++)
        ok = rtcosim_j1939_tp_add(s, &recs[i], i);
    rtcosim_j1939_tp_end(s);
    if (!ok) {
        rtcosim_j1939_tp_free(out);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory reassembling J1939 "
                                 "transport sessions");
    }
    return RTCOSIM_OK;
}

void rtcosim_j1939_tp_free(rtcosim_j1939_tp *tp)
{
    for (size_t i = 0; tp && i < tp->count; i++)
        free((void *)tp->messages[i].data);
    if (tp) {
        free(tp->messages);
        *tp = (rtcosim_j1939_tp){0};
    }
}
