/* The results recorder's insides, shared by recorder.c (the buffered file,
 * rows formatted on the caller's thread, the public calls) and
 * recorder_ring.c (the ring, its writer thread and the producer's help). */
#ifndef RTCOSIM_RESULTS_RECORDER_INTERNAL_H
#define RTCOSIM_RESULTS_RECORDER_INTERNAL_H

#include <pthread.h>
#include <semaphore.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "results/mat_stream.h"
#include "results/mdf_stream.h"
#include "rtcosim/results.h"

enum {
    DEFAULT_RING_ROWS = 8192,
    DEFAULT_BUFFER_BYTES = 256 * 1024,
    MIN_BUFFER_BYTES = 4096,
    DEFAULT_MAX_STRING_BYTES = 256,
    FIELD_MAX = RTCOSIM_FORMAT_MAX + 1, /* a separator plus one number */
    FLUSH_PERIOD_MS = 100,              /* rows reach the file at least this often */
    FLUSH_CHECK_MAX = 8,                /* rows between two reads of the clock, at most */
    EMERGENCY_SLOTS = 16,               /* open recorders a fatal-signal flush can reach */
    CHUNK_COUNT = 16,                   /* the producer's text chunks in flight */
    CHUNK_MAX_ROWS = 64                /* rows the producer formats into one chunk */
};

/* An output file behind a write buffer. The first write error is kept (and
 * later writes are skipped) until close reports it with the path. */
typedef struct sink {
    int fd;
    char *buf;
    size_t cap, len;
    int error_number;
    int64_t last_flush_ms; /* coarse monotonic clock */
    /* the clock is read every check_every-th row (1 to FLUSH_CHECK_MAX):
     * rows that come faster than it ticks need not read it each */
    int64_t last_check_ms;
    uint32_t check_every, until_check;
    atomic_uint_fast64_t bytes_written;
    atomic_uint_fast64_t rows_written;
    const mat_stream *mat; /* a .mat file: its counts patched after each write */
} sink;

/* CSV rows the producer formatted itself while the writer thread was behind,
 * handed over through a marker in the ring. */
typedef struct text_chunk {
    char *buf;
    size_t cap;
    _Atomic size_t committed; /* bytes of whole rows (a signal handler reads it) */
    uint64_t rows;
} text_chunk;

struct rtcosim_recorder {
    char *path;      /* the file being streamed */
    mdf_stream *mdf; /* an .mf4 result: rows as its records */
    mat_stream *mat; /* a .mat result: rows as data_2's time points */
    size_t record_bytes;
    int64_t started_ns; /* CLOCK_REALTIME at open: an MDF file's start time */
    rtcosim_column *columns;
    size_t column_count;
    uint32_t record_every;
    /* Per column: index of the first row that leaves it empty (UINT64_MAX:
     * none), set by rtcosim_recorder_omit_column; read by the writer thread,
     * published to it with the head of the ring (release/acquire). */
    _Atomic uint64_t *omit_from;
    /* The file's buffer, on cache lines of its own: with a writer thread
     * only that thread touches it (sharing a line with the producer's
     * counters cost B1's threaded run about 40 %). */
    alignas(64) sink out;

    /* Writer-thread mode (recorder_ring.c), from the line after the file's
     * buffer's last (the producer reads `threaded` on every push: on the
     * sink's line it missed whenever the writer had written a row, 5 % of
     * B1's samples). The producer owns head_local,
     * tail_cached and the chunk it fills; head and tail are the shared
     * indices (ever-increasing; slot = index % ring_rows). */
    alignas(64) bool threaded, drop_when_full, semaphores_ready, thread_started;
    bool helps; /* the producer formats CSV rows itself while the writer is behind */
    bool spins; /* the writer polls a while before it sleeps (two CPUs or more) */
    pthread_t thread;
    struct thread_place *place; /* the writer's start CPU, or NULL */
    unsigned char *ring;
    size_t ring_rows, slot_bytes, cell_bytes, max_string_bytes, help_backlog, row_text_max;
    size_t *string_offset;      /* per column: offset of its string copy in a slot, or 0 */
    rtcosim_value *row_scratch; /* the writer thread's view of one slot's values */
    /* The producer's own, on lines of their own. */
    alignas(64) text_chunk chunks[CHUNK_COUNT];
    uint32_t countdown;
    uint64_t rows_pushed, rows_dropped, strings_cut;
    uint64_t rows_recorded; /* rows handed to the sink, the ring or a chunk: the next row's index */
    uint64_t head_local, tail_cached;
    uint64_t chunks_taken;  /* chunk index = chunks_taken % CHUNK_COUNT */
    _Atomic int open_chunk; /* the chunk the producer fills, -1 none */
    uint32_t chunk_until_check;
    int64_t chunk_opened_ms;
    uint64_t rows_formatted_by_pusher;
    uint64_t stalled_tail; /* the writer's tail when a wait for it last gave up */
    /* The ring slot that hands over chunk k (set by the producer, published
     * with the head), and the chunks the writer thread has written. */
    alignas(64) _Atomic uint64_t chunk_slot[CHUNK_COUNT];
    uint64_t chunks_written;
    alignas(64) atomic_uint_fast64_t head;
    alignas(64) atomic_uint_fast64_t tail;
    atomic_uint_fast64_t chunks_returned;
    alignas(64) atomic_int consumer_waiting;
    atomic_int producer_waiting;
    atomic_int closing;
    atomic_int emergency;          /* a signal handler waits for the ring to reach the file */
    atomic_uint_fast64_t drained;  /* 1 + the ring index flushed through after that */
    sem_t data_ready, space_ready;
};

/* ---- the buffered file (recorder.c) ---- */

void recorder_sink_flush(sink *s);
void recorder_sink_write_all(sink *s, const char *data, size_t n);
int64_t recorder_coarse_ms(void);
/* write(2) of all n bytes, from a signal handler; false when one failed. */
bool recorder_write_signal_safe(int fd, const char *data, size_t n);

/* Add n to a counter only one thread writes (the writer thread, or the
 * producer without one) while others may read it: a plain load and store,
 * not a locked read-modify-write, which waits for every earlier store of the
 * row's text to drain (B1's writer thread spent 7 % of the run's samples on
 * it, once per row). */
static inline void sink_count(atomic_uint_fast64_t *counter, uint_fast64_t n)
{
    atomic_store_explicit(counter, atomic_load_explicit(counter, memory_order_relaxed) + n,
                          memory_order_relaxed);
}

/* Room for n more bytes (n <= cap). */
static inline char *sink_reserve(sink *s, size_t n)
{
    if (s->cap - s->len < n)
        recorder_sink_flush(s);
    return s->buf + s->len;
}

/* Rows on disk at least every FLUSH_PERIOD_MS of wall time (a killed or
 * stuck run keeps what it computed). The coarse clock (5 ns a read here;
 * reading it every row cost B1 1.6 ns a row) is read every row while rows
 * are further apart than its tick,
 * and up to every FLUSH_CHECK_MAX-th row while several rows fall in one
 * tick: a flush comes at most that many rows late. */
static inline void sink_flush_if_due(sink *s)
{
    if (--s->until_check)
        return;
    int64_t now = recorder_coarse_ms();
    if (now != s->last_check_ms)
        s->check_every = 1;
    else if (s->check_every < FLUSH_CHECK_MAX)
        s->check_every *= 2;
    s->until_check = s->check_every;
    s->last_check_ms = now;
    if (s->len && now - s->last_flush_ms >= FLUSH_PERIOD_MS)
        recorder_sink_flush(s);
}

/* n bytes of text, in pieces as the buffer takes them. */
static inline void sink_put_text(sink *s, const char *text, size_t n)
{
    while (n > 0) {
        if (s->cap == s->len)
            recorder_sink_flush(s);
        size_t k = s->cap - s->len < n ? s->cap - s->len : n;
        memcpy(s->buf + s->len, text, k);
        s->len += k;
        text += k;
        n -= k;
    }
}

/* A CSV string field: quoted, quotes doubled (RFC 4180 section 2). Written
 * in pieces so that strings longer than the buffer pass too. */
static inline void sink_put_quoted(sink *s, const char *text)
{
    *sink_reserve(s, 1) = '"';
    s->len++;
    for (const char *p = text ? text : ""; *p; p++) {
        char *dst = sink_reserve(s, 2);
        dst[0] = *p;
        if (*p == '"') {
            dst[1] = '"';
            s->len += 2;
        } else {
            s->len += 1;
        }
    }
    *sink_reserve(s, 1) = '"';
    s->len++;
}

/* A Binary field as fmusim writes it (FMIRecorder.c): two lower-case hex
 * digits per byte, unquoted, nothing for an empty value. In pieces, as
 * strings are. */
static inline void sink_put_hex(sink *s, const rtcosim_binary *value)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t k = 0; value->data && k < value->size; k++) {
        char *dst = sink_reserve(s, 2);
        dst[0] = digits[value->data[k] >> 4];
        dst[1] = digits[value->data[k] & 0x0f];
        s->len += 2;
    }
}

/* One CSV row (at most (1 + n) * FIELD_MAX + 1 bytes without String and
 * Binary columns). */
static inline void sink_put_row(sink *s, const rtcosim_column *columns, size_t n,
                                rtcosim_time_ns t, const rtcosim_value *values,
                                _Atomic uint64_t *omit_from, uint64_t row)
{
    s->len += rtcosim_format_time(t, sink_reserve(s, FIELD_MAX));
    for (size_t i = 0; i < n; i++) {
        char *dst = sink_reserve(s, FIELD_MAX);
        *dst++ = ',';
        if (row >= atomic_load_explicit(&omit_from[i], memory_order_relaxed)) {
            s->len += 1; /* an empty cell: the value could not be had */
            continue;
        }
        size_t len;
        switch (columns[i].type) {
        case RTCOSIM_TYPE_FLOAT64: len = rtcosim_format_double(values[i].f64, dst); break;
        case RTCOSIM_TYPE_FLOAT32: len = rtcosim_format_float(values[i].f32, dst); break;
        case RTCOSIM_TYPE_INT8:
        case RTCOSIM_TYPE_INT16:
        case RTCOSIM_TYPE_INT32:
        case RTCOSIM_TYPE_INT64: len = rtcosim_format_int64(values[i].i64, dst); break;
        case RTCOSIM_TYPE_UINT8:
        case RTCOSIM_TYPE_UINT16:
        case RTCOSIM_TYPE_UINT32:
        case RTCOSIM_TYPE_UINT64: len = rtcosim_format_uint64(values[i].u64, dst); break;
        case RTCOSIM_TYPE_BOOLEAN:
        case RTCOSIM_TYPE_CLOCK:
            *dst = values[i].b ? '1' : '0';
            len = 1;
            break;
        case RTCOSIM_TYPE_BINARY:
            s->len += 1;
            sink_put_hex(s, &values[i].bin);
            continue;
        default: /* STRING */
            s->len += 1;
            sink_put_quoted(s, values[i].s);
            continue;
        }
        s->len += 1 + len;
    }
    *sink_reserve(s, 1) = '\n';
    s->len++;
}

/* One row into the file's buffer: CSV text, an .mf4 file's record or a
 * .mat file's time point. */
static inline void put_row(rtcosim_recorder *r, rtcosim_time_ns t, const rtcosim_value *values,
                           uint64_t row)
{
    if (r->mdf) {
        mdf_stream_put(r->mdf, (uint8_t *)sink_reserve(&r->out, r->record_bytes), t, values,
                       r->omit_from, row);
    } else if (r->mat) {
        if (!mat_stream_has_room(r->mat))
            return;
        mat_stream_put(r->mat, (uint8_t *)sink_reserve(&r->out, r->record_bytes), t, values,
                       r->omit_from, row);
    } else {
        sink_put_row(&r->out, r->columns, r->column_count, t, values, r->omit_from, row);
        sink_count(&r->out.rows_written, 1);
        return;
    }
    r->out.len += r->record_bytes;
    sink_count(&r->out.rows_written, 1);
}

/* ---- the ring and its writer thread (recorder_ring.c) ---- */

/* Set up the ring (and the producer's chunks) and start the writer. */
rtcosim_status recorder_ring_start(rtcosim_recorder *r, const rtcosim_recorder_options *o,
                                   rtcosim_error *err);
/* One row into the ring (or the producer's chunk); false if it was dropped. */
bool recorder_ring_push(rtcosim_recorder *r, rtcosim_time_ns t, const rtcosim_value *values);
/* Hand over the producer's chunk, let the writer write everything and join it. */
void recorder_ring_stop(rtcosim_recorder *r);
void recorder_ring_free(rtcosim_recorder *r);
/* From a signal handler on any thread but the writer: everything pushed so
 * far to the file, waiting at most about a second for the writer. */
void recorder_ring_drain_signal_safe(rtcosim_recorder *r);

/* Whether a CPU is free beside the caller: `look` returns the running
 * tasks (the caller among them; 0: unknown), looked at up to five times
 * pause_us apart (recorder.c). */
bool recorder_cpu_free(unsigned cpus, unsigned (*look)(void *context), void *context,
                       unsigned pause_us);

#endif
