/* The CAN database (dbc.h) that the DBC reader (dbc.c) and the ARXML reader
 * (arxml.c) build through dbc_internal.h: messages indexed by id and by
 * name (open addressing, at most half full: n messages load in O(n), a
 * frame finds its message in O(1)), signals per message, the check of
 * signals that share bits, the accessors. */
#include <stdlib.h>
#include <string.h>

#include "dbc_internal.h"
#include "rtcosim/log.h"
#include "util/array.h"

static size_t hash_id(uint32_t id, bool extended)
{
    uint64_t h = ((uint64_t)id | (uint64_t)extended << 32) * UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(h >> 32);
}

static size_t hash_name(const char *name)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325); /* FNV-1a */
    for (; *name; name++)
        h = (h ^ (unsigned char)*name) * UINT64_C(0x100000001b3);
    return (size_t)(h ^ h >> 32);
}

/* The slot of the message with that id (or the empty slot where it goes). */
static size_t slot_of_id(const rtcosim_dbc *d, uint32_t id, bool extended)
{
    size_t mask = d->index.slots - 1, k = hash_id(id, extended) & mask;
    for (uint32_t at; (at = d->index.by_id[k]) != 0; k = (k + 1) & mask)
        if (d->messages[at - 1].pub.id == id && d->messages[at - 1].pub.extended == extended)
            break;
    return k;
}

static size_t slot_of_name(const rtcosim_dbc *d, const char *name)
{
    size_t mask = d->index.slots - 1, k = hash_name(name) & mask;
    for (uint32_t at; (at = d->index.by_name[k]) != 0; k = (k + 1) & mask)
        if (strcmp(d->messages[at - 1].pub.name, name) == 0)
            break;
    return k;
}

message_build *dbc_find(const rtcosim_dbc *d, uint32_t id, bool extended)
{
    if (d->index.slots == 0)
        return NULL;
    uint32_t at = d->index.by_id[slot_of_id(d, id, extended)];
    return at ? &d->messages[at - 1] : NULL;
}

message_build *dbc_find_named(const rtcosim_dbc *d, const char *name)
{
    if (d->index.slots == 0)
        return NULL;
    uint32_t at = d->index.by_name[slot_of_name(d, name)];
    return at ? &d->messages[at - 1] : NULL;
}

/* Index the messages [0, d->count): grown to twice the messages' count. */
static bool index_messages(rtcosim_dbc *d)
{
    if (2 * d->count < d->index.slots)
        return true;
    size_t slots = d->index.slots ? 2 * d->index.slots : 64;
    uint32_t *by_id = calloc(slots, sizeof *by_id), *by_name = calloc(slots, sizeof *by_name);
    if (!by_id || !by_name || d->count >= UINT32_MAX) {
        free(by_id);
        free(by_name);
        return false;
    }
    free(d->index.by_id);
    free(d->index.by_name);
    d->index = (message_index){by_id, by_name, slots};
    for (size_t i = 0; i < d->count; i++) {
        if (!d->messages[i].container) /* (contained PDUs go by name only) */
            by_id[slot_of_id(d, d->messages[i].pub.id, d->messages[i].pub.extended)] =
                (uint32_t)i + 1;
        by_name[slot_of_name(d, d->messages[i].pub.name)] = (uint32_t)i + 1;
    }
    return true;
}


/* A new message in *m: pub with copies of name and transmitter; false: out
 * of memory (nothing kept). */
static bool message_init(message_build *m, rtcosim_dbc_message pub, const char *name,
                         const char *transmitter)
{
    memset(m, 0, sizeof *m);
    m->pub = pub;
    m->format_index = m->brs_index = -1;
    char *n = strdup(name), *t = strdup(transmitter);
    m->pub.name = n;
    m->pub.transmitter = t;
    if (n && t)
        return true;
    free(n);
    free(t);
    return false;
}

int dbc_add_message(rtcosim_dbc *d, uint32_t id, bool extended, const char *name, uint16_t dlc,
                    const char *transmitter, int line, size_t *index)
{
    if (dbc_find(d, id, extended))
        return -2;
    if (dbc_find_named(d, name))
        return -3;
    if (!util_array_reserve(&d->messages, d->count, &d->capacity, sizeof *d->messages, 16) ||
        !index_messages(d))
        return -1;
    message_build *m = &d->messages[d->count];
    if (!message_init(m, (rtcosim_dbc_message){.id = id, .extended = extended, .dlc = dlc,
                                               .line = line},
                      name, transmitter))
        return -1;
    const char *n = m->pub.name;
    *index = d->count++;
    d->index.by_id[slot_of_id(d, id, extended)] = (uint32_t)d->count;
    d->index.by_name[slot_of_name(d, n)] = (uint32_t)d->count;
    return 0;
}

int dbc_add_signal(rtcosim_dbc *d, size_t message, const rtcosim_dbc_signal *signal)
{
    message_build *m = &d->messages[message];
    rtcosim_dbc_signal s = *signal;
    int factor_places = rtcosim_dbc_decimal_places(s.factor),
        offset_places = rtcosim_dbc_decimal_places(s.offset);
    s.decimals = factor_places < 0 || offset_places < 0 || s.value_type != RTCOSIM_DBC_INTEGER
                     ? -1 /* (a float's steps are not the factor's) */
                     : (factor_places > offset_places ? factor_places : offset_places);
    s.name = strdup(signal->name);
    if (!s.name || !util_array_reserve(&m->signals, m->pub.signal_count, &m->signal_capacity,
                                       sizeof *m->signals, 8)) {
        free((char *)s.name);
        return -1;
    }
    m->signals[m->pub.signal_count++] = s;
    return 0;
}

int dbc_rename_message(rtcosim_dbc *d, size_t message, const char *name)
{
    char *n = strdup(name);
    if (!n)
        return -1;
    free((char *)d->messages[message].pub.name);
    d->messages[message].pub.name = n;
    return 0;
}

int dbc_reindex_names(rtcosim_dbc *d, size_t *first, size_t *second)
{
    if (d->index.slots == 0)
        return 0;
    uint32_t *by_name = calloc(d->index.slots, sizeof *by_name);
    if (!by_name)
        return -1;
    free(d->index.by_name);
    d->index.by_name = by_name;
    for (size_t i = 0; i < d->count; i++) {
        size_t k = slot_of_name(d, d->messages[i].pub.name);
        if (by_name[k]) {
            *first = by_name[k] - 1;
            *second = i;
            return -2;
        }
        by_name[k] = (uint32_t)i + 1;
    }
    return 0;
}

void dbc_set_container(rtcosim_dbc *d, size_t message, const rtcosim_dbc_message *how)
{
    rtcosim_dbc_message *m = &d->messages[message].pub;
    m->header_bytes = how->header_bytes;
    m->header_little_endian = how->header_little_endian;
    m->container_timeout = how->container_timeout;
    m->container_threshold = how->container_threshold;
    m->container_first_trigger = how->container_first_trigger;
    m->container_padding = how->container_padding;
}

void dbc_set_contained(rtcosim_dbc *d, size_t message, const rtcosim_dbc_message *how)
{
    rtcosim_dbc_message *m = &d->messages[message].pub;
    m->contained_trigger = how->contained_trigger;
    m->contained_queued = how->contained_queued;
    m->contained_timeout = how->contained_timeout;
}

int dbc_add_contained(rtcosim_dbc *d, size_t container, const char *name, uint8_t length,
                      uint32_t header_id, int line, size_t *index)
{
    if (dbc_find_named(d, name))
        return -3;
    message_build *c = &d->messages[container];
    for (size_t i = 0; i < c->contained_count; i++)
        if (c->contained[i][0] == header_id)
            return -4;
    if (!util_array_reserve(&c->contained, c->contained_count, &c->contained_capacity,
                            sizeof *c->contained, 8) ||
        !util_array_reserve(&d->messages, d->count, &d->capacity, sizeof *d->messages, 16) ||
        !index_messages(d))
        return -1;
    c = &d->messages[container]; /* (the array may have moved) */
    message_build *m = &d->messages[d->count];
    if (!message_init(m, (rtcosim_dbc_message){.id = c->pub.id, .extended = c->pub.extended,
                                               .dlc = length, .fd = c->pub.fd, .brs = c->pub.brs,
                                               .line = line, .header_id = header_id,
                                               .contained_timeout = -1},
                      name, c->pub.transmitter))
        return -1;
    m->container = container + 1;
    const char *n = m->pub.name;
    c->contained[c->contained_count][0] = header_id;
    c->contained[c->contained_count][1] = (uint32_t)d->count;
    c->contained_count++;
    *index = d->count++;
    d->index.by_name[slot_of_name(d, n)] = (uint32_t)d->count;
    return 0;
}

static int by_header_id(const void *a, const void *b)
{
    uint32_t x = (*(const uint32_t(*)[2])a)[0], y = (*(const uint32_t(*)[2])b)[0];
    return x < y ? -1 : x > y;
}

size_t rtcosim_dbc_contained_count(const rtcosim_dbc *d, const rtcosim_dbc_message *container)
{
    return d->messages[dbc_message_index(d, container)].contained_count;
}

const rtcosim_dbc_message *rtcosim_dbc_contained_at(const rtcosim_dbc *d,
                                                    const rtcosim_dbc_message *container,
                                                    size_t index)
{
    const message_build *c = &d->messages[dbc_message_index(d, container)];
    return index < c->contained_count ? &d->messages[c->contained[index][1]].pub : NULL;
}

int rtcosim_dbc_container_next(const rtcosim_dbc *d, const rtcosim_dbc_message *container,
                               const uint8_t *data, size_t size, size_t *offset,
                               rtcosim_dbc_container_part *part)
{
    size_t h = container->header_bytes, at = *offset;
    if (h == 0 || at > size || size - at < h)
        return 0;
    uint64_t id = 0, length = 0;
    size_t id_bytes = h == 4 ? 3 : 4, len_bytes = h == 4 ? 1 : 4;
    for (size_t i = 0; i < id_bytes; i++) {
        size_t k = container->header_little_endian ? id_bytes - 1 - i : i;
        id = id << 8 | data[at + k];
    }
    for (size_t i = 0; i < len_bytes; i++) {
        size_t k = container->header_little_endian ? len_bytes - 1 - i : i;
        length = length << 8 | data[at + id_bytes + k];
    }
    bool padding = true;
    for (size_t i = 0; i < h; i++)
        padding = padding && data[at + i] == container->container_padding;
    if ((id == 0 && length == 0) || padding)
        return 0; /* padding */
    at += h;
    if (length > size - at)
        return -1;
    const message_build *c = &d->messages[dbc_message_index(d, container)];
    uint32_t key[2] = {(uint32_t)id, 0};
    const uint32_t(*hit)[2] = c->contained_count ? bsearch(&key, c->contained, c->contained_count,
                                                             sizeof *c->contained, by_header_id)
                                                 : NULL;
    *part = (rtcosim_dbc_container_part){.header_id = (uint32_t)id, .data = data + at,
                                         .size = (size_t)length,
                                         .pdu = hit ? &d->messages[(*hit)[1]].pub : NULL,
                                         .index = hit ? (size_t)(hit - c->contained) : 0};
    *offset = at + (size_t)length;
    return 1;
}

void rtcosim_dbc_container_put(const rtcosim_dbc_message *container, uint32_t header_id,
                               uint32_t length, uint8_t *out)
{
    size_t id_bytes = container->header_bytes == 4 ? 3 : 4, len_bytes = id_bytes == 3 ? 1 : 4;
    for (size_t i = 0; i < id_bytes; i++) {
        size_t k = container->header_little_endian ? i : id_bytes - 1 - i;
        out[k] = (uint8_t)(header_id >> (8 * i));
    }
    for (size_t i = 0; i < len_bytes; i++) {
        size_t k = container->header_little_endian ? i : len_bytes - 1 - i;
        out[id_bytes + k] = (uint8_t)(length >> (8 * i));
    }
}

void dbc_set_format(rtcosim_dbc *d, size_t message, bool fd, bool brs, bool j1939)
{
    d->messages[message].pub.fd = fd;
    d->messages[message].pub.brs = fd && brs;
    d->messages[message].pub.j1939 = j1939;
}

void dbc_set_cycle_time(rtcosim_dbc *d, size_t message, rtcosim_time_ns cycle)
{
    d->messages[message].pub.cycle_time = cycle;
}

rtcosim_dbc *dbc_new(void) { return calloc(1, sizeof(rtcosim_dbc)); }


/* Two signals of a message that share a bit although one frame can carry
 * both (neither is multiplexed, or they are multiplexed by the same value):
 * each encode overwrites the other's bits, so a value sent is not the value
 * received. CANdb++ and cantools report it; the file is still read (a
 * warning per pair, naming the lines), as the signals decode as written. */
/* Whether a frame can carry both multiplexed signals: the same selector
 * value (or overlapping ranges) of the same multiplexor. Under different
 * multiplexors (extended multiplexing) they are taken as exclusive, as the
 * layouts of nested alternatives are. */
static bool together(const rtcosim_dbc_signal *x, const rtcosim_dbc_signal *y)
{
    if (x->muxer != y->muxer)
        return false;
    uint64_t one_x[1][2] = {{x->mux_value, x->mux_value}}, one_y[1][2] = {{y->mux_value, y->mux_value}};
    const uint64_t(*rx)[2] = x->mux_range_count ? x->mux_ranges : (const uint64_t(*)[2])one_x;
    const uint64_t(*ry)[2] = y->mux_range_count ? y->mux_ranges : (const uint64_t(*)[2])one_y;
    size_t nx = x->mux_range_count ? x->mux_range_count : 1,
           ny = y->mux_range_count ? y->mux_range_count : 1;
    for (size_t i = 0; i < nx; i++)
        for (size_t k = 0; k < ny; k++)
            if (rx[i][0] <= ry[k][1] && ry[k][0] <= rx[i][1])
                return true;
    return false;
}

/* The bytes a signal covers: from `first`, a mask per byte (a 64-bit
 * signal spans 9 bytes at most), from its bit positions as the codec walks
 * them; false when a bit lies past `size` bytes. */
typedef struct span {
    uint32_t first;
    uint8_t mask[9];
} span;

static bool span_of(const rtcosim_dbc_signal *s, size_t size, span *out)
{
    if (!rtcosim_dbc_signal_fits(s, size))
        return false;
    uint8_t buf[RTCOSIM_DBC_MESSAGE_MAX + 1] = {0};
    rtcosim_dbc_raw_set(s, UINT64_MAX, buf, size);
    size_t lo = 0;
    while (lo < size && !buf[lo])
        lo++;
    out->first = (uint32_t)lo;
    for (size_t k = 0; k < 9; k++)
        out->mask[k] = lo + k < size ? buf[lo + k] : 0;
    return true;
}

static bool spans_share(const span *a, const span *b)
{
    for (size_t k = 0; k < 9; k++) {
        uint32_t at = a->first + (uint32_t)k;
        if (at >= b->first && at - b->first < 9 && (a->mask[k] & b->mask[at - b->first]))
            return true;
    }
    return false;
}

static void warn_overlaps(const char *file, const rtcosim_dbc_message *m)
{
    size_t n = m->dlc > 64 ? m->dlc : 64; /* (a signal past a short message's end is said apart) */
    span *spans = calloc(m->signal_count + 1, sizeof *spans);
    bool *fits = calloc(m->signal_count + 1, sizeof *fits);
    if (!spans || !fits) { /* (a warning left out) */
        free(spans);
        free(fits);
        return;
    }
    for (size_t i = 0; i < m->signal_count; i++)
        fits[i] = span_of(&m->signals[i], n, &spans[i]);
    for (size_t i = 0; i < m->signal_count; i++) {
        const rtcosim_dbc_signal *x = &m->signals[i];
        for (size_t k = i + 1; fits[i] && k < m->signal_count; k++) {
            const rtcosim_dbc_signal *y = &m->signals[k];
            if (x->mux == RTCOSIM_DBC_MULTIPLEXED && y->mux == RTCOSIM_DBC_MULTIPLEXED &&
                !together(x, y))
                continue; /* never in one frame */
            if (fits[k] && spans_share(&spans[i], &spans[k]))
                rtcosim_log(RTCOSIM_LOG_WARNING, "dbc", "%s:%d: signals %s and %s of message %s"
                            " share bits (line %d): a value sent in one changes the other",
                            file, y->line, x->name, y->name, m->name, x->line);
        }
    }
    free(spans);
    free(fits);
}


void dbc_finish(rtcosim_dbc *d, const char *file)
{
    for (size_t i = 0; i < d->count; i++) {
        message_build *m = &d->messages[i];
        m->pub.signals = m->signals;
        if (m->container)
            m->pub.contained_in = &d->messages[m->container - 1].pub;
        if (m->contained_count)
            qsort(m->contained, m->contained_count, sizeof *m->contained, by_header_id);
        for (size_t k = 0; k < m->pub.signal_count; k++)
            if (m->signals[k].mux == RTCOSIM_DBC_MULTIPLEXOR) {
                m->pub.multiplexor = &m->signals[k];
                m->signals[k].selects = true; /* (whichever reader built it) */
            }
        warn_overlaps(file, &m->pub);
    }
}


void rtcosim_dbc_free(rtcosim_dbc *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->count; i++) {
        message_build *m = &d->messages[i];
        for (size_t k = 0; k < m->pub.signal_count; k++) {
            rtcosim_dbc_signal *s = &m->signals[k];
            for (size_t v = 0; v < s->value_count; v++)
                free((char *)s->values[v].text);
            free((void *)s->values);
            free((char *)s->name);
            free((char *)s->unit);
            free((void *)s->mux_ranges);
        }
        free(m->signals);
        free(m->contained);
        free((char *)m->pub.name);
        free((char *)m->pub.transmitter);
    }
    free(d->messages);
    free(d->index.by_id);
    free(d->index.by_name);
    free(d->by_pgn);
    free(d);
}

size_t rtcosim_dbc_message_count(const rtcosim_dbc *d) { return d->count; }

const rtcosim_dbc_message *rtcosim_dbc_message_at(const rtcosim_dbc *d, size_t index)
{
    return index < d->count ? &d->messages[index].pub : NULL;
}

const rtcosim_dbc_message *rtcosim_dbc_find_id(const rtcosim_dbc *d, uint32_t id, bool extended)
{
    message_build *m = dbc_find(d, id, extended);
    return m ? &m->pub : NULL;
}

uint32_t rtcosim_j1939_pgn(uint32_t id)
{
    uint32_t pf = (id >> 16) & 0xFF, pgn = (id >> 8) & 0x3FFFF;
    return pf < 240 ? pgn & 0x3FF00 : pgn; /* PDU1: PS is the destination, not the PGN */
}

static int by_key(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

bool dbc_index_pgns(rtcosim_dbc *d)
{
    free(d->by_pgn);
    d->by_pgn = NULL;
    d->pgn_count = 0;
    for (size_t i = 0; i < d->count; i++)
        d->pgn_count += d->messages[i].pub.j1939 && d->messages[i].pub.extended;
    if (!d->pgn_count)
        return true;
    if (!(d->by_pgn = malloc(d->pgn_count * sizeof *d->by_pgn))) {
        d->pgn_count = 0;
        return false;
    }
    size_t n = 0;
    for (size_t i = 0; i < d->count; i++)
        if (d->messages[i].pub.j1939 && d->messages[i].pub.extended)
            d->by_pgn[n++] = (uint64_t)rtcosim_j1939_pgn(d->messages[i].pub.id) << 32 | i;
    qsort(d->by_pgn, n, sizeof *d->by_pgn, by_key); /* (the first message of a PGN first) */
    return true;
}

const rtcosim_dbc_message *rtcosim_dbc_find_frame(const rtcosim_dbc *d, uint32_t id,
                                                  bool extended)
{
    const rtcosim_dbc_message *m = rtcosim_dbc_find_id(d, id, extended);
    if (m || !extended || !d->pgn_count)
        return m;
    uint64_t key = (uint64_t)rtcosim_j1939_pgn(id) << 32;
    size_t lo = 0, hi = d->pgn_count; /* the first entry at or above key */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->by_pgn[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == d->pgn_count || d->by_pgn[lo] >> 32 != key >> 32)
        return NULL;
    return &d->messages[(uint32_t)d->by_pgn[lo]].pub;
}

void rtcosim_dbc_set_j1939(rtcosim_dbc *d)
{
    for (size_t i = 0; i < d->count; i++)
        d->messages[i].pub.j1939 = d->messages[i].pub.extended && !d->messages[i].pub.fd &&
                                   !d->messages[i].container;
    if (!dbc_index_pgns(d))
        for (size_t i = 0; i < d->count; i++) /* (no index: none matched by PGN) */
            d->messages[i].pub.j1939 = false;
}

const rtcosim_dbc_message *rtcosim_dbc_find_message(const rtcosim_dbc *d, const char *name)
{
    message_build *m = dbc_find_named(d, name);
    return m ? &m->pub : NULL;
}

const rtcosim_dbc_signal *rtcosim_dbc_find_signal(const rtcosim_dbc_message *m, const char *name)
{
    for (size_t i = 0; i < m->signal_count; i++)
        if (strcmp(m->signals[i].name, name) == 0)
            return &m->signals[i];
    return NULL;
}

size_t dbc_message_index(const rtcosim_dbc *d, const rtcosim_dbc_message *m)
{
    return (size_t)((const message_build *)m - d->messages); /* pub is a message_build's first */
}
