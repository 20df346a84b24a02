/* ISO 15765-2 transfers reassembled from a log's frames (isotp.h). Facts
 * from ISO 15765-2:2016 as python-can-isotp implements them: the PCI type in
 * the high nibble of the first byte after the address byte (0 Single Frame,
 * 1 First Frame, 2 Consecutive Frame, 3 Flow Control); SF_DL in the low
 * nibble, or 0 there and SF_DL in the next byte on a frame of CAN_DL > 8;
 * FF_DL in 12 bits, or 0 there and 32 bits big-endian after; SN from 1,
 * modulo 16; RX_DL = max(8, the First Frame's CAN_DL), one of 8, 12, 16, 20,
 * 24, 32, 48, 64; N_Cr 1000 ms; a First or Single Frame during a transfer
 * ends it and is taken; a Consecutive Frame out of sequence ends it; one of
 * another RX_DL that is not the last is ignored. */
#include <stdlib.h>
#include <string.h>

#include "rtcosim/isotp.h"
#include "util/array.h"

const rtcosim_isotp_ids rtcosim_isotp_obd_ids[4] = {
    {0x7DF, 0x7DF, false, false},
    {0x7E0, 0x7EF, false, false},
    {0x18DA0000u, 0x18DAFFFFu, true, false},
    {0x18DB0000u, 0x18DBFFFFu, true, false},
};

/* Transfers open at once, at most: one per id and address on a real bus, a
 * handful in any diagnostic session; a log opening more (a corrupt or
 * hostile one) has the rest counted incomplete, so that time stays bounded. */
#define OPEN_MAX 256u
#define N_CR ((rtcosim_time_ns)1000000000) /* ns */
/* The message's frame: two bytes before the payload (address, length). */
#define PREFIX 2u

typedef struct transfer {
    uint32_t bus, id;
    bool extended;
    int address;
    size_t first_record;
    rtcosim_time_ns first_time;
    uint32_t size, have;
    uint8_t next_sn;
    uint8_t rx_dl;
    uint8_t *buf; /* PREFIX + payload bytes, grown as they come */
    size_t cap;
    rtcosim_time_ns last;
} transfer;

typedef struct state {
    transfer *open;
    size_t count, cap;
    rtcosim_isotp *out;
    size_t out_cap;
} state;

bool rtcosim_isotp_match(const rtcosim_isotp_ids *ids, size_t id_count, uint32_t id,
                         bool extended, size_t *which)
{
    for (size_t i = 0; i < id_count; i++)
        if (ids[i].extended == extended && id >= ids[i].first && id <= ids[i].last) {
            if (which)
                *which = i;
            return true;
        }
    return false;
}

static transfer *find(state *s, const rtcosim_can_log_record *r, int address)
{
    for (size_t i = 0; i < s->count; i++) {
        transfer *t = &s->open[i];
        if (t->id == r->id && t->bus == r->bus && t->extended == r->extended &&
            t->address == address)
            return t;
    }
    return NULL;
}

/* A transfer ends: its slot taken by the last one; incomplete counted
 * unless it completed (its buffer then the message's). */
static void close_transfer(state *s, transfer *t, bool completed)
{
    if (!t)
        return;
    s->out->incomplete += !completed;
    free(t->buf);
    *t = s->open[--s->count];
}

static bool grow(transfer *t, size_t need)
{
    if (need <= t->cap)
        return true;
    size_t cap = t->cap ? t->cap : 64;
    while (cap < need)
        cap *= 2;
    if (cap > PREFIX + (size_t)t->size)
        cap = PREFIX + (size_t)t->size;
    uint8_t *b = realloc(t->buf, cap);
    if (!b)
        return false;
    t->buf = b;
    t->cap = cap;
    return true;
}

/* A message out of buf (PREFIX + size bytes, owned by the message now). */
static bool deliver(state *s, uint8_t *buf, const rtcosim_can_log_record *r, size_t index,
                    size_t first_record, rtcosim_time_ns first_time, int address, uint32_t size)
{
    rtcosim_isotp *o = s->out;
    if (!util_array_reserve(&o->messages, o->count, &s->out_cap, sizeof *o->messages, 8))
        return false;
    buf[1] = (uint8_t)size;
    size_t skip = address < 0;
    if (address >= 0)
        buf[0] = (uint8_t)address;
    o->messages[o->count++] = (rtcosim_isotp_message){
        .record = index, .first_record = first_record, .bus = r->bus, .id = r->id,
        .extended = r->extended, .address = address, .size = size, .data = buf + PREFIX,
        .frame = buf + skip, .frame_size = PREFIX - skip + size, .time = r->time,
        .first_time = first_time};
    return true;
}

static bool single_frame(state *s, const rtcosim_can_log_record *r, size_t index, int address,
                         const uint8_t *p, size_t avail)
{
    size_t len = p[0] & 0x0F, at = 1;
    if (len == 0) { /* the escape: CAN FD, over 8 bytes */
        if (avail < 2 || r->size <= 8) {
            s->out->invalid++;
            return true;
        }
        len = p[1];
        at = 2;
    } else if (r->size > 8) { /* (ISO: a frame over 8 bytes uses the escape) */
        s->out->invalid++;
        return true;
    }
    if (len == 0 || len > avail - at) {
        s->out->invalid++;
        return true;
    }
    close_transfer(s, find(s, r, address), false); /* (a transfer it interrupts) */
    uint8_t *buf = malloc(PREFIX + len);
    if (!buf)
        return false;
    memcpy(buf + PREFIX, p + at, len);
    if (!deliver(s, buf, r, index, index, r->time, address, (uint32_t)len)) {
        free(buf);
        return false;
    }
    return true;
}

static bool first_frame(state *s, const rtcosim_can_log_record *r, size_t index, int address,
                        const uint8_t *p, size_t avail)
{
    if (avail < 2) {
        s->out->invalid++;
        return true;
    }
    uint32_t len = (uint32_t)(p[0] & 0x0F) << 8 | p[1];
    size_t at = 2;
    if (len == 0) {
        if (avail < 6) {
            s->out->invalid++;
            return true;
        }
        len = (uint32_t)p[2] << 24 | (uint32_t)p[3] << 16 | (uint32_t)p[4] << 8 | p[5];
        at = 6;
    }
    unsigned rx_dl = r->size > 8 ? r->size : 8;
    static const uint8_t valid[] = {8, 12, 16, 20, 24, 32, 48, 64};
    bool dl_ok = false;
    for (size_t k = 0; k < sizeof valid; k++)
        dl_ok = dl_ok || valid[k] == rx_dl;
    /* a length the First Frame itself holds is no transfer */
    if (!dl_ok || len <= avail - at) {
        s->out->invalid++;
        return true;
    }
    close_transfer(s, find(s, r, address), false); /* (a new one ends the last) */
    if (len > RTCOSIM_ISOTP_MAX_SIZE) {
        s->out->incomplete++;
        return true;
    }
    for (size_t i = s->count; i-- > 0;) /* the ones timed out */
        if (r->time - s->open[i].last > N_CR)
            close_transfer(s, &s->open[i], false);
    if (s->count >= OPEN_MAX) {
        s->out->incomplete++;
        return true;
    }
    if (!util_array_reserve(&s->open, s->count, &s->cap, sizeof *s->open, 8))
        return false;
    transfer *t = &s->open[s->count];
    *t = (transfer){.bus = r->bus, .id = r->id, .extended = r->extended, .address = address,
                    .first_record = index, .first_time = r->time, .size = len, .next_sn = 1,
                    .rx_dl = (uint8_t)rx_dl, .last = r->time};
    size_t n = avail - at;
    if (!grow(t, PREFIX + n)) {
        free(t->buf);
        return false;
    }
    memcpy(t->buf + PREFIX, p + at, n);
    t->have = (uint32_t)n;
    s->count++;
    return true;
}

static bool consecutive_frame(state *s, const rtcosim_can_log_record *r, size_t index,
                              int address, const uint8_t *p, size_t avail)
{
    transfer *t = find(s, r, address);
    if (t && r->time - t->last > N_CR) {
        close_transfer(s, t, false); /* timed out before this frame */
        t = NULL;
    }
    if (!t) {
        s->out->invalid++;
        return true;
    }
    if ((p[0] & 0x0F) != t->next_sn) {
        close_transfer(s, t, false);
        return true;
    }
    uint32_t left = t->size - t->have;
    size_t n = avail - 1;
    unsigned rx_dl = r->size > 8 ? r->size : 8;
    if (rx_dl != t->rx_dl && n < left) {
        s->out->invalid++; /* (not the last: ignored, the transfer goes on) */
        return true;
    }
    if (n > left)
        n = left; /* the padding after the end */
    if (!grow(t, PREFIX + (size_t)t->have + n))
        return false;
    memcpy(t->buf + PREFIX + t->have, p + 1, n);
    t->have += (uint32_t)n;
    t->next_sn = (uint8_t)((t->next_sn + 1) & 0x0F);
    t->last = r->time;
    if (t->have < t->size)
        return true;
    if (!deliver(s, t->buf, r, index, t->first_record, t->first_time, address, t->size))
        return false;
    t->buf = NULL; /* (the message's now) */
    close_transfer(s, t, true);
    return true;
}

struct rtcosim_isotp_stream {
    state s;
    const rtcosim_isotp_ids *ids;
    size_t id_count;
};

rtcosim_isotp_stream *rtcosim_isotp_begin(const rtcosim_isotp_ids *ids, size_t id_count,
                                          rtcosim_isotp *out)
{
    *out = (rtcosim_isotp){0};
    rtcosim_isotp_stream *f = calloc(1, sizeof *f);
    if (f)
        *f = (rtcosim_isotp_stream){.s = {.out = out}, .ids = ids, .id_count = id_count};
    return f;
}

bool rtcosim_isotp_add(rtcosim_isotp_stream *f, const rtcosim_can_log_record *r, size_t index)
{
    size_t which;
    rtcosim_isotp *out = f->s.out;
    if (r->remote || !rtcosim_isotp_match(f->ids, f->id_count, r->id, r->extended, &which))
        return true;
    out->frames++;
    size_t skip = f->ids[which].address_byte;
    if (r->size < skip + 1) {
        out->invalid++;
        return true;
    }
    int address = skip ? r->data[0] : -1;
    const uint8_t *p = r->data + skip;
    size_t avail = r->size - skip;
    switch (p[0] >> 4) {
    case 0: return single_frame(&f->s, r, index, address, p, avail);
    case 1: return first_frame(&f->s, r, index, address, p, avail);
    case 2: return consecutive_frame(&f->s, r, index, address, p, avail);
    case 3:
        out->flow_control++;
        return true;
    default: /* no frame of ISO-TP: a transfer it interrupts ends */
        out->invalid++;
        close_transfer(&f->s, find(&f->s, r, address), false);
        return true;
    }
}

void rtcosim_isotp_end(rtcosim_isotp_stream *f)
{
    if (!f)
        return;
    while (f->s.count)
        close_transfer(&f->s, &f->s.open[f->s.count - 1], false);
    free(f->s.open);
    free(f);
}

rtcosim_status rtcosim_isotp_reassemble(const rtcosim_can_log *log, const rtcosim_isotp_ids *ids,
                                        size_t id_count, rtcosim_isotp *out, rtcosim_error *err)
{
    rtcosim_isotp_stream *f = rtcosim_isotp_begin(ids, id_count, out);
    const rtcosim_can_log_record *recs = rtcosim_can_log_records(log);
    bool ok = f != NULL;
    for (size_t i = 0; ok && i < rtcosim_can_log_count(log); i++)
        ok = rtcosim_isotp_add(f, &recs[i], i);
    rtcosim_isotp_end(f);
    if (!ok) {
        rtcosim_isotp_free(out);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory reassembling ISO-TP "
                                 "transfers");
    }
    return RTCOSIM_OK;
}

static rtcosim_status feed_frame(void *stream, const rtcosim_can_log *log,
                                 const rtcosim_can_log_record *r, rtcosim_error *err)
{
    if (!rtcosim_isotp_add(stream, r, rtcosim_can_log_count(log) - 1))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory reassembling ISO-TP "
                                 "transfers");
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_isotp_reassemble_file(const char *path, const rtcosim_isotp_ids *ids,
                                             size_t id_count, rtcosim_isotp *out,
                                             rtcosim_can_log **log, rtcosim_error *err)
{
    *log = NULL;
    rtcosim_isotp_stream *stream = rtcosim_isotp_begin(ids, id_count, out);
    if (!stream)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    rtcosim_status st = rtcosim_can_log_scan(path, feed_frame, stream, log, err);
    rtcosim_isotp_end(stream);
    if (st != RTCOSIM_OK) {
        rtcosim_isotp_free(out);
        rtcosim_can_log_free(*log);
        *log = NULL;
    }
    return st;
}

void rtcosim_isotp_free(rtcosim_isotp *tp)
{
    if (!tp)
        return;
    for (size_t i = 0; i < tp->count; i++) /* (each buffer starts PREFIX before data) */
        free((void *)(tp->messages[i].data - PREFIX));
    free(tp->messages);
    *tp = (rtcosim_isotp){0};
}
