/* The results recorder: CSV rows in fmusim's format (or an .mf4 file's
 * records, mdf_stream.c, or a .mat file's time points, mat_stream.c)
 * through one large write buffer, formatted either at push time or on a
 * writer thread fed by a lock-free single-producer/single-consumer ring,
 * so that a real-time thread can record without allocating, locking or
 * doing I/O (DESIGN.md "results"). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "results/mat_stream.h"
#include "results/mdf_stream.h"
#include "results/part_file.h"
#include "rtcosim/results.h"

enum {
    DEFAULT_RING_ROWS = 8192,
    DEFAULT_BUFFER_BYTES = 256 * 1024,
    MIN_BUFFER_BYTES = 4096,
    DEFAULT_MAX_STRING_BYTES = 256,
    FIELD_MAX = RTCOSIM_FORMAT_MAX + 1, /* a separator plus one number */
    FLUSH_PERIOD_MS = 100,              /* rows reach the file at least this often */
    FLUSH_CHECK_MAX = 8,                /* rows between two reads of the clock, at most */
    EMERGENCY_SLOTS = 16                /* open recorders a fatal-signal flush can reach */
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

struct rtcosim_recorder {
    char *path;      /* the file being streamed */
    mdf_stream *mdf; /* an .mf4 result: rows as its records */
    mat_stream *mat; /* a .mat result: rows as data_2's time points */
    size_t record_bytes;
    int64_t started_ns; /* CLOCK_REALTIME at open: an MDF file's start time */
    rtcosim_column *columns;
    size_t column_count;
    uint32_t record_every, countdown;
    uint64_t rows_pushed, rows_dropped, strings_cut;
    uint64_t rows_recorded; /* rows handed to the sink or the ring: the next row's index */
    /* Per column: index of the first row that leaves it empty (UINT64_MAX:
     * none), set by rtcosim_recorder_omit_column; read by the writer thread,
     * published to it with the head of the ring (release/acquire). */
    _Atomic uint64_t *omit_from;
    sink out;

    /* Writer-thread mode. The producer owns head_local/tail_cached; head and
     * tail are the shared indices (ever-increasing; slot = index % ring_rows). */
    bool threaded, drop_when_full, semaphores_ready, thread_started;
    pthread_t thread;
    unsigned char *ring;
    size_t ring_rows, slot_bytes, max_string_bytes, wake_batch;
    size_t *string_offset;    /* per column: offset of its string copy in a slot, or 0 */
    rtcosim_value *row_scratch; /* the writer thread's view of one slot's values */
    uint64_t head_local, tail_cached;
    alignas(64) atomic_uint_fast64_t head;
    alignas(64) atomic_uint_fast64_t tail;
    alignas(64) atomic_int consumer_waiting;
    atomic_int producer_waiting;
    atomic_int closing;
    sem_t data_ready, space_ready;
};

/* ---- the buffered file ---- */

static void sink_write_all(sink *s, const char *data, size_t n)
{
    while (n > 0 && s->error_number == 0) {
        ssize_t w = write(s->fd, data, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            s->error_number = errno;
            return;
        }
        data += w;
        n -= (size_t)w;
        atomic_fetch_add_explicit(&s->bytes_written, (uint_fast64_t)w, memory_order_relaxed);
    }
}

static int64_t coarse_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sink_flush(sink *s)
{
    if (s->len) {
        sink_write_all(s, s->buf, s->len);
        if (s->mat && s->error_number == 0)
            mat_stream_patch(s->mat, s->fd,
                             atomic_load_explicit(&s->rows_written, memory_order_relaxed));
    }
    s->len = 0;
    s->last_flush_ms = coarse_ms();
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
    int64_t now = coarse_ms();
    if (now != s->last_check_ms)
        s->check_every = 1;
    else if (s->check_every < FLUSH_CHECK_MAX)
        s->check_every *= 2;
    s->until_check = s->check_every;
    s->last_check_ms = now;
    if (s->len && now - s->last_flush_ms >= FLUSH_PERIOD_MS)
        sink_flush(s);
}

/* Unthreaded recorders reachable from a fatal-signal handler. */
static _Atomic(rtcosim_recorder *) emergency[EMERGENCY_SLOTS];

/* Room for n more bytes (n <= cap). */
static inline char *sink_reserve(sink *s, size_t n)
{
    if (s->cap - s->len < n)
        sink_flush(s);
    return s->buf + s->len;
}

/* A CSV string field: quoted, quotes doubled (RFC 4180 section 2). Written
 * in pieces so that strings longer than the buffer pass too. */
static void sink_put_quoted(sink *s, const char *text)
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
static void sink_put_hex(sink *s, const rtcosim_binary *value)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t k = 0; value->data && k < value->size; k++) {
        char *dst = sink_reserve(s, 2);
        dst[0] = digits[value->data[k] >> 4];
        dst[1] = digits[value->data[k] & 0x0f];
        s->len += 2;
    }
}

static void sink_put_row(sink *s, const rtcosim_column *columns, size_t n, rtcosim_time_ns t,
                         const rtcosim_value *values, _Atomic uint64_t *omit_from, uint64_t row)
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
    atomic_fetch_add_explicit(&s->rows_written, 1, memory_order_relaxed);
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
        return;
    }
    r->out.len += r->record_bytes;
    atomic_fetch_add_explicit(&r->out.rows_written, 1, memory_order_relaxed);
}

/* ---- the ring and its writer thread ---- */

static inline unsigned char *slot_at(rtcosim_recorder *r, uint64_t index)
{
    return r->ring + (size_t)(index % r->ring_rows) * r->slot_bytes;
}

/* Wake a sleeper that announced itself through `waiting` (Dekker-style: the
 * waker publishes its progress before reading the flag, the sleeper sets the
 * flag before re-reading the progress, both sequentially consistent). */
static inline void wake(atomic_int *waiting, sem_t *sem)
{
    if (atomic_load(waiting) && atomic_exchange(waiting, 0))
        sem_post(sem);
}

/* Sleep until ready() or the waker clears the flag. */
static void sleep_until(rtcosim_recorder *r, atomic_int *waiting, sem_t *sem,
                        bool (*ready)(rtcosim_recorder *))
{
    while (!ready(r)) {
        atomic_store(waiting, 1);
        if (ready(r)) {
            /* Cancel; if a waker already took the flag its post is on the way. */
            if (!atomic_exchange(waiting, 0))
                while (sem_wait(sem) != 0 && errno == EINTR) {}
            return;
        }
        while (sem_wait(sem) != 0 && errno == EINTR) {}
    }
}

static bool has_data_or_closing(rtcosim_recorder *r)
{
    return atomic_load(&r->head) != atomic_load(&r->tail) || atomic_load(&r->closing);
}

static bool has_space(rtcosim_recorder *r)
{
    r->tail_cached = atomic_load(&r->tail);
    return r->head_local - r->tail_cached < r->ring_rows;
}

/* The writer with rows in its buffer: wait for data at most FLUSH_PERIOD_MS,
 * then write the buffer out (same flag protocol as sleep_until). */
static void wait_data_or_flush(rtcosim_recorder *r)
{
    atomic_store(&r->consumer_waiting, 1);
    if (has_data_or_closing(r)) {
        if (!atomic_exchange(&r->consumer_waiting, 0))
            while (sem_wait(&r->data_ready) != 0 && errno == EINTR) {}
        return;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += FLUSH_PERIOD_MS * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    int rc;
    while ((rc = sem_timedwait(&r->data_ready, &ts)) != 0 && errno == EINTR) {}
    if (rc != 0) {
        /* Timed out: if a waker took the flag meanwhile, its post is on the way. */
        if (!atomic_exchange(&r->consumer_waiting, 0))
            while (sem_wait(&r->data_ready) != 0 && errno == EINTR) {}
        sink_flush(&r->out);
    }
}

static void *writer_main(void *arg)
{
    rtcosim_recorder *r = arg;
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    for (;;) {
        uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
        while (tail != head) {
            const unsigned char *slot = slot_at(r, tail);
            rtcosim_time_ns t;
            memcpy(&t, slot, sizeof t);
            memcpy(r->row_scratch, slot + sizeof(rtcosim_value), r->column_count * sizeof(rtcosim_value));
            for (size_t i = 0; i < r->column_count; i++) {
                if (!r->string_offset[i])
                    continue;
                if (r->columns[i].type == RTCOSIM_TYPE_BINARY)
                    r->row_scratch[i].bin.data = slot + r->string_offset[i];
                else
                    r->row_scratch[i].s = (const char *)slot + r->string_offset[i];
            }
            put_row(r, t, r->row_scratch, tail);
            tail++;
            if (tail % 64 == 0) {
                atomic_store(&r->tail, tail);
                wake(&r->producer_waiting, &r->space_ready);
            }
        }
        atomic_store(&r->tail, tail);
        wake(&r->producer_waiting, &r->space_ready);
        if (atomic_load(&r->closing) && atomic_load(&r->head) == tail)
            break;
        sink_flush_if_due(&r->out);
        if (r->out.len)
            wait_data_or_flush(r);
        else
            sleep_until(r, &r->consumer_waiting, &r->data_ready, has_data_or_closing);
    }
    return NULL;
}

static void ring_push(rtcosim_recorder *r, rtcosim_time_ns t, const rtcosim_value *values)
{
    if (r->head_local - r->tail_cached >= r->ring_rows && !has_space(r)) {
        if (r->drop_when_full) {
            r->rows_dropped++;
            return;
        }
        wake(&r->consumer_waiting, &r->data_ready); /* it may wait for a full batch */
        sleep_until(r, &r->producer_waiting, &r->space_ready, has_space);
    }
    unsigned char *slot = slot_at(r, r->head_local);
    memcpy(slot, &t, sizeof t);
    memcpy(slot + sizeof(rtcosim_value), values, r->column_count * sizeof *values);
    for (size_t i = 0; i < r->column_count; i++) {
        if (!r->string_offset[i])
            continue;
        char *copy = (char *)slot + r->string_offset[i];
        if (r->columns[i].type == RTCOSIM_TYPE_BINARY) {
            /* The bytes ride in the slot; the size in the copied value. */
            rtcosim_binary b = values[i].bin;
            if (b.size > r->max_string_bytes) {
                b.size = r->max_string_bytes;
                r->strings_cut++;
            }
            if (b.size && b.data)
                memcpy(copy, b.data, b.size);
            else
                b.size = 0;
            memcpy(slot + sizeof(rtcosim_value) * (1 + i), &b, sizeof b);
            continue;
        }
        const char *text = values[i].s ? values[i].s : "";
        size_t len = strnlen(text, r->max_string_bytes);
        if (len == r->max_string_bytes) {
            len--;
            r->strings_cut++;
        }
        memcpy(copy, text, len);
        copy[len] = '\0';
    }
    r->head_local++;
    atomic_store(&r->head, r->head_local);
    if (r->head_local - r->tail_cached >= r->wake_batch)
        wake(&r->consumer_waiting, &r->data_ready);
}

/* ---- the public recorder ---- */

static rtcosim_status record(rtcosim_recorder *r, rtcosim_time_ns t, const rtcosim_value *values)
{
    if (r->threaded) {
        ring_push(r, t, values);
        r->rows_recorded = r->head_local;
    } else {
        put_row(r, t, values, r->rows_recorded);
        r->rows_recorded++;
        sink_flush_if_due(&r->out);
    }
    return RTCOSIM_OK;
}

void rtcosim_recorder_omit_column(rtcosim_recorder *r, size_t column)
{
    if (column < r->column_count &&
        atomic_load_explicit(&r->omit_from[column], memory_order_relaxed) == UINT64_MAX)
        atomic_store_explicit(&r->omit_from[column], r->rows_recorded, memory_order_relaxed);
}

bool rtcosim_recorder_wants_row(const rtcosim_recorder *r)
{
    return r->countdown == 0;
}

rtcosim_status rtcosim_recorder_push_row(rtcosim_recorder *r, rtcosim_time_ns t,
                                         const rtcosim_value *values, rtcosim_error *err)
{
    (void)err;
    r->rows_pushed++;
    if (r->countdown) {
        r->countdown--;
        return RTCOSIM_OK;
    }
    r->countdown = r->record_every - 1;
    return record(r, t, values);
}

rtcosim_status rtcosim_recorder_push_row_always(rtcosim_recorder *r, rtcosim_time_ns t,
                                                const rtcosim_value *values,
                                                rtcosim_error *err)
{
    (void)err;
    r->rows_pushed++;
    return record(r, t, values);
}

void rtcosim_recorder_get_stats(const rtcosim_recorder *r, rtcosim_recorder_stats *stats)
{
    stats->rows_pushed = r->rows_pushed;
    stats->rows_written = atomic_load_explicit(&r->out.rows_written, memory_order_relaxed);
    stats->rows_dropped = r->rows_dropped;
    stats->strings_cut = r->strings_cut;
    stats->bytes_written = atomic_load_explicit(&r->out.bytes_written, memory_order_relaxed);
}

static void recorder_free(rtcosim_recorder *r)
{
    if (r->semaphores_ready) {
        sem_destroy(&r->data_ready);
        sem_destroy(&r->space_ready);
    }
    if (r->out.fd >= 0)
        close(r->out.fd);
    if (r->columns)
        for (size_t i = 0; i < r->column_count; i++) {
            free((char *)r->columns[i].name);
            free((char *)r->columns[i].unit);
            free((char *)r->columns[i].description);
        }
    mdf_stream_free(r->mdf);
    mat_stream_free(r->mat);
    free(r->columns);
    free((void *)r->omit_from);
    free(r->string_offset);
    free(r->row_scratch);
    free(r->ring);
    free(r->out.buf);
    free(r->path);
    free(r);
}

/* Slot layout: time in the first value-sized cell, then the values, then a
 * fixed area per string column. */
static rtcosim_status setup_ring(rtcosim_recorder *r, const rtcosim_recorder_options *o,
                                 rtcosim_error *err)
{
    r->ring_rows = o->ring_rows ? o->ring_rows : DEFAULT_RING_ROWS;
    r->max_string_bytes = o->max_string_bytes ? o->max_string_bytes : DEFAULT_MAX_STRING_BYTES;
    r->wake_batch = r->ring_rows / 4 ? r->ring_rows / 4 : 1;
    r->drop_when_full = o->drop_when_full;
    size_t bytes = (1 + r->column_count) * sizeof(rtcosim_value);
    r->string_offset = calloc(r->column_count + 1, sizeof *r->string_offset);
    r->row_scratch = calloc(r->column_count + 1, sizeof *r->row_scratch);
    if (!r->string_offset || !r->row_scratch)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory for the recorder", r->path);
    for (size_t i = 0; i < r->column_count; i++)
        if (r->columns[i].type == RTCOSIM_TYPE_STRING || r->columns[i].type == RTCOSIM_TYPE_BINARY) {
            r->string_offset[i] = bytes;
            bytes += r->max_string_bytes;
        }
    r->slot_bytes = (bytes + 15) / 16 * 16;
    if (r->ring_rows > SIZE_MAX / r->slot_bytes)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: recorder ring too large", r->path);
    r->ring = malloc(r->ring_rows * r->slot_bytes);
    if (!r->ring)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory for the recorder ring",
                                 r->path);
    if (sem_init(&r->data_ready, 0, 0) != 0)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot create the writer semaphores: %s",
                                 r->path, strerror(errno));
    if (sem_init(&r->space_ready, 0, 0) != 0) {
        sem_destroy(&r->data_ready);
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot create the writer semaphores: %s",
                                 r->path, strerror(errno));
    }
    r->semaphores_ready = true;
    int rc = pthread_create(&r->thread, NULL, writer_main, r);
    if (rc != 0)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot start the writer thread: %s",
                                 r->path, strerror(rc));
    r->thread_started = true;
    r->threaded = true;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_recorder_open(const rtcosim_recorder_options *o, rtcosim_recorder **out,
                                     rtcosim_error *err)
{
    *out = NULL;
    if (!o || !o->path || !*o->path)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "recorder: no output path given");
    for (size_t i = 0; i < o->column_count; i++) {
        if (!o->columns[i].name)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: column %zu has no name", o->path, i + 1);
        if (o->columns[i].type >= RTCOSIM_TYPE_COUNT_)
            return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                     "%s: column '%s' of type %s cannot be written to CSV", o->path,
                                     o->columns[i].name, rtcosim_type_name(o->columns[i].type));
    }
    rtcosim_results_format format;
    rtcosim_status fst = rtcosim_results_format_of(o->path, &format, err);
    if (fst != RTCOSIM_OK)
        return fst;
    rtcosim_recorder *r = calloc(1, sizeof *r);
    if (!r)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory for the recorder", o->path);
    r->out.fd = -1;
    struct timespec started;
    clock_gettime(CLOCK_REALTIME, &started);
    r->started_ns = o->start_ns ? o->start_ns
                                : (int64_t)started.tv_sec * 1000000000 + started.tv_nsec;
    r->path = strdup(o->path);
    r->column_count = o->column_count;
    r->columns = calloc(o->column_count + 1, sizeof *r->columns);
    r->out.check_every = r->out.until_check = 1;
    r->out.cap = o->buffer_bytes ? o->buffer_bytes : DEFAULT_BUFFER_BYTES;
    if (r->out.cap < MIN_BUFFER_BYTES)
        r->out.cap = MIN_BUFFER_BYTES;
    r->out.buf = malloc(r->out.cap);
    r->omit_from = calloc(o->column_count + 1, sizeof *r->omit_from);
    bool ok = r->path && r->columns && r->out.buf && r->omit_from;
    for (size_t i = 0; ok && i < o->column_count; i++)
        atomic_init(&r->omit_from[i], UINT64_MAX);
    for (size_t i = 0; ok && i < o->column_count; i++) {
        const rtcosim_column *c = &o->columns[i];
        r->columns[i].type = c->type;
        r->columns[i].parameter = c->parameter;
        ok = (r->columns[i].name = strdup(c->name)) != NULL &&
             (!c->unit || (r->columns[i].unit = strdup(c->unit))) &&
             (!c->description || (r->columns[i].description = strdup(c->description)));
    }
    if (!ok) {
        recorder_free(r);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory for the recorder", o->path);
    }
    r->record_every = o->record_every ? o->record_every : 1;
    if (format != RTCOSIM_RESULTS_CSV) {
        rtcosim_status st =
            format == RTCOSIM_RESULTS_MDF
                ? mdf_stream_open(r->path, r->columns, r->column_count, r->started_ns, &r->mdf,
                                  err)
                : mat_stream_open(r->path, r->columns, r->column_count, &r->mat, err);
        if (st == RTCOSIM_OK)
            r->record_bytes = r->mdf ? mdf_stream_record_bytes(r->mdf)
                                     : mat_stream_record_bytes(r->mat);
        if (st == RTCOSIM_OK && r->record_bytes > r->out.cap) {
            char *buf = realloc(r->out.buf, r->record_bytes); /* (room for one record) */
            if (buf)
                r->out.buf = buf, r->out.cap = r->record_bytes;
            else
                st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory for the recorder",
                                       o->path);
        }
        if (st != RTCOSIM_OK) {
            recorder_free(r);
            return st;
        }
    }
    /* (a .mat file's first matrices are written: data_2 goes after them) */
    r->out.fd = r->mat ? open(r->path, O_RDWR | O_CLOEXEC)
                       : open(r->path, (r->mdf ? O_RDWR : O_WRONLY) | O_CREAT | O_TRUNC | O_CLOEXEC,
                              0666);
    if (r->out.fd >= 0 && r->mat && lseek(r->out.fd, 0, SEEK_END) < 0) {
        close(r->out.fd);
        r->out.fd = -1;
    }
    if (r->out.fd < 0) {
        rtcosim_status st = rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot create results file: %s",
                                              r->path, strerror(errno));
        recorder_free(r);
        return st;
    }
    if (r->mdf || r->mat) {
        size_t n;
        const uint8_t *head = r->mdf ? mdf_stream_head(r->mdf, &n) : mat_stream_head(r->mat, &n);
        sink_write_all(&r->out, (const char *)head, n);
        r->out.mat = r->mat;
    } else {
        sink_put_quoted(&r->out, "time");
        for (size_t i = 0; i < r->column_count; i++) {
            *sink_reserve(&r->out, 1) = ',';
            r->out.len++;
            sink_put_quoted(&r->out, r->columns[i].name);
        }
        *sink_reserve(&r->out, 1) = '\n';
        r->out.len++;
    }
    if (o->csv_units && format == RTCOSIM_RESULTS_CSV) {
        /* a units row as OMSimulator's and Dymola's CSV exports have it; "" for none */
        sink_put_quoted(&r->out, "s");
        for (size_t i = 0; i < r->column_count; i++) {
            *sink_reserve(&r->out, 1) = ',';
            r->out.len++;
            sink_put_quoted(&r->out, r->columns[i].unit ? r->columns[i].unit : "");
        }
        *sink_reserve(&r->out, 1) = '\n';
        r->out.len++;
    }
    sink_flush(&r->out); /* the header at once: a run that gets stuck shows it started */
    if (o->writer_thread) {
        rtcosim_status st = setup_ring(r, o, err);
        if (st != RTCOSIM_OK) {
            recorder_free(r);
            return st;
        }
    }
    if (!r->threaded)
        for (size_t i = 0; i < EMERGENCY_SLOTS; i++) {
            rtcosim_recorder *expected = NULL;
            if (atomic_compare_exchange_strong(&emergency[i], &expected, r))
                break;
        }
    *out = r;
    return RTCOSIM_OK;
}

/* Part files to remove on a fatal exit (part_file.h). */
static _Atomic(const char *) part_files[EMERGENCY_SLOTS];

int result_part_register(const char *path)
{
    for (int i = 0; i < EMERGENCY_SLOTS; i++) {
        const char *expected = NULL;
        if (atomic_compare_exchange_strong(&part_files[i], &expected, path))
            return i;
    }
    return -1;
}

void result_part_unregister(int slot)
{
    if (slot >= 0)
        atomic_store(&part_files[slot], NULL);
}

void rtcosim_recorder_flush_all_signal_safe(void)
{
    for (size_t i = 0; i < EMERGENCY_SLOTS; i++) {
        const char *part = atomic_load(&part_files[i]);
        if (part)
            (void)unlink(part); /* (async-signal-safe) */
    }
    for (size_t i = 0; i < EMERGENCY_SLOTS; i++) {
        rtcosim_recorder *r = atomic_load(&emergency[i]);
        if (!r || r->out.fd < 0 || r->out.len == 0)
            continue;
        const char *data = r->out.buf;
        size_t n = r->out.len;
        while (n > 0) {
            ssize_t w = write(r->out.fd, data, n);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                break;
            data += w;
            n -= (size_t)w;
        }
        if (n == 0 && r->mat)
            mat_stream_patch(r->mat, r->out.fd,
                             atomic_load_explicit(&r->out.rows_written, memory_order_relaxed));
        r->out.len = 0;
    }
}

rtcosim_status rtcosim_recorder_close(rtcosim_recorder *r, rtcosim_recorder_stats *stats,
                                      rtcosim_error *err)
{
    if (!r)
        return RTCOSIM_OK;
    for (size_t i = 0; i < EMERGENCY_SLOTS; i++) {
        rtcosim_recorder *expected = r;
        atomic_compare_exchange_strong(&emergency[i], &expected, NULL);
    }
    if (r->thread_started) {
        atomic_store(&r->closing, 1);
        wake(&r->consumer_waiting, &r->data_ready);
        pthread_join(r->thread, NULL);
    }
    sink_flush(&r->out);
    rtcosim_status st = RTCOSIM_OK;
    uint64_t rows = atomic_load_explicit(&r->out.rows_written, memory_order_relaxed);
    if (r->mdf && !r->out.error_number) /* (a file that failed stays unfinalized) */
        st = mdf_stream_finish(r->mdf, r->out.fd, r->path, rows, err);
    if (r->mat && !r->out.error_number)
        st = mat_stream_finish(r->mat, r->out.fd, r->path, rows, err);
    int close_errno = close(r->out.fd) != 0 ? errno : 0;
    r->out.fd = -1;
    int error_number = r->out.error_number ? r->out.error_number : close_errno;
    if (stats)
        rtcosim_recorder_get_stats(r, stats);
    if (error_number)
        st = rtcosim_error_set(err, RTCOSIM_EIO, "%s: writing results failed: %s", r->path,
                               strerror(error_number));
    recorder_free(r);
    return st;
}
