/* NMEA 2000 Fast Packet messages reassembled from a log's frames (j1939.h).
 * Facts from IEC 61162-3 / NMEA 2000 as canboat documents them: the first
 * data byte holds the sequence counter (bits 7-5) and the frame counter
 * (bits 4-0); frame 0 carries the message's length in byte 1 and its first 6
 * bytes, frame n its bytes 6 + 7 (n - 1) to 12 + 7 (n - 1); 223 bytes at most;
 * the PGNs from 0x1ED00 on are those that use it (canboat's ranges:
 * 0x1ED00 and 0x1EE00, addressed; 0x1EF00, proprietary addressed; 0x1F000
 * to 0x1FEFF, standard, fast or single frame by PGN; 0x1FF00-0x1FFFF,
 * proprietary). */
#include <stdlib.h>
#include <string.h>

#include "rtcosim/dbc.h"
#include "rtcosim/j1939.h"
#include "util/array.h"

#define FP_MAX 223u       /* 6 + 31 * 7 */
#define FP_OPEN_MAX 1024u /* messages open at once: one per sender and PGN */
#define FP_TIMEOUT ((rtcosim_time_ns)750000000)

bool rtcosim_nmea2000_fast_packet_range(uint32_t pgn)
{
    return pgn >= 0x1ED00 && pgn <= 0x1FFFF;
}

typedef struct message {
    uint32_t bus, key; /* key: the id without its priority (PGN, destination, source) */
    uint32_t id;
    uint8_t seq, size, frames;
    uint32_t got; /* frame counters seen, a bit each */
    uint8_t data[FP_MAX];
    rtcosim_time_ns last;
} message;

typedef struct state {
    message *open;
    size_t count, cap;
    rtcosim_j1939_tp *out;
    size_t out_cap;
} state;

static message *find(state *s, uint32_t bus, uint32_t key)
{
    for (size_t i = 0; i < s->count; i++)
        if (s->open[i].key == key && s->open[i].bus == bus)
            return &s->open[i];
    return NULL;
}

static void close_message(state *s, message *m, bool completed)
{
    if (!m)
        return;
    s->out->incomplete += !completed;
    *m = s->open[--s->count];
}

static int by_value(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static bool wanted(const uint32_t *pgns, size_t n, uint32_t pgn)
{
    return n && bsearch(&pgn, pgns, n, sizeof pgn, by_value);
}

static bool frame(state *s, const rtcosim_can_log_record *r, size_t index)
{
    uint32_t key = r->id & 0x3FFFFFF;
    uint8_t seq = r->data[0] >> 5, counter = r->data[0] & 0x1F;
    message *m = find(s, r->bus, key);
    if (m && r->time - m->last > FP_TIMEOUT) {
        close_message(s, m, false); /* silent too long before this frame */
        m = NULL;
    }
    if (counter == 0) {
        close_message(s, m, false); /* (a new message ends the unfinished one) */
        uint8_t size = r->data[1];
        if (size > FP_MAX || s->count >= FP_OPEN_MAX) {
            s->out->incomplete++;
            return true;
        }
        if (!util_array_reserve(&s->open, s->count, &s->cap, sizeof *s->open, 16))
            return false;
        m = &s->open[s->count++];
        *m = (message){.bus = r->bus, .key = key, .id = r->id, .seq = seq, .size = size,
                       .frames = (uint8_t)(size <= 6 ? 1 : 1 + (size - 6 + 6) / 7),
                       .got = 1, .last = r->time};
        memcpy(m->data, r->data + 2, size < 6 ? size : 6);
    } else {
        if (!m || seq != m->seq) {
            if (m)
                close_message(s, m, false); /* another sequence began without its frame 0 */
            return true;
        }
        if (counter >= m->frames)
            return true; /* past the message's end: read over */
        size_t at = 6 + (size_t)(counter - 1) * 7, n = m->size - at < 7 ? m->size - at : 7;
        memcpy(m->data + at, r->data + 1, n);
        m->got |= 1u << counter;
        m->last = r->time;
    }
    if (m->got != (m->frames == 32 ? 0xFFFFFFFFu : (1u << m->frames) - 1))
        return true;
    rtcosim_j1939_tp *o = s->out;
    uint8_t *data = malloc(m->size ? m->size : 1);
    if (!data || !util_array_reserve(&o->messages, o->count, &s->out_cap, sizeof *o->messages, 8)) {
        free(data);
        return false;
    }
    memcpy(data, m->data, m->size);
    o->messages[o->count++] = (rtcosim_j1939_message){
        .record = index, .id = m->id, .pgn = rtcosim_j1939_pgn(m->id), .size = m->size,
        .data = data};
    close_message(s, m, true);
    return true;
}

struct rtcosim_nmea2000_stream {
    state s;
    const uint32_t *pgns;
    size_t pgn_count;
};

rtcosim_nmea2000_stream *rtcosim_nmea2000_begin(const uint32_t *pgns, size_t pgn_count,
                                                rtcosim_j1939_tp *out)
{
    *out = (rtcosim_j1939_tp){0};
    rtcosim_nmea2000_stream *f = calloc(1, sizeof *f);
    if (f)
        *f = (rtcosim_nmea2000_stream){.s = {.out = out}, .pgns = pgns, .pgn_count = pgn_count};
    return f;
}

bool rtcosim_nmea2000_add(rtcosim_nmea2000_stream *f, const rtcosim_can_log_record *r,
                          size_t index)
{
    if (!r->extended || r->remote || r->size < 2 ||
        !wanted(f->pgns, f->pgn_count, rtcosim_j1939_pgn(r->id)))
        return true;
    f->s.out->frames++;
    return frame(&f->s, r, index);
}

void rtcosim_nmea2000_end(rtcosim_nmea2000_stream *f)
{
    if (!f)
        return;
    f->s.out->incomplete += f->s.count; /* open at the log's end */
    free(f->s.open);
    free(f);
}

rtcosim_status rtcosim_nmea2000_reassemble(const rtcosim_can_log *log, const uint32_t *pgns,
                                           size_t pgn_count, rtcosim_j1939_tp *out,
                                           rtcosim_error *err)
{
    rtcosim_nmea2000_stream *f = rtcosim_nmea2000_begin(pgns, pgn_count, out);
    const rtcosim_can_log_record *recs = rtcosim_can_log_records(log);
    bool ok = f != NULL;
    for (size_t i = 0; ok && i < rtcosim_can_log_count(log); i++)
        ok = rtcosim_nmea2000_add(f, &recs[i], i);
    rtcosim_nmea2000_end(f);
    if (!ok) {
        rtcosim_j1939_tp_free(out);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory reassembling NMEA 2000 "
                                 "fast packets");
    }
    return RTCOSIM_OK;
}
