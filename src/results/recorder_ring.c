/* The recorder's writer thread: rows go into a preallocated single-producer/
 * single-consumer ring (no allocation, lock or I/O on the pushing thread) and
 * a thread of their own formats and writes them.
 *
 * Formatting a CSV row takes longer than most steps that produce one (B1:
 * about 100 ns against 25-50 ns), so a writer that formats every row falls
 * behind and the producer used to sleep on a full ring, woken every 64 rows:
 * on a virtual machine whose idle CPU halts, 4x slower than formatting on
 * the producer (`bench step`'s csv_thread figure, issue 32). Now a producer
 * that finds the writer more than help_backlog rows behind formats the next
 * rows itself into a text chunk (up to CHUNK_MAX_ROWS) and hands it over
 * through a marker slot in the ring, so that rows keep their order and the
 * two threads share the formatting; the writer polls a while after a busy
 * batch instead of going to sleep at once. Real-time producers
 * (drop_when_full) never format: they only copy values and move on. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "results/recorder_internal.h"
#include "util/spin_wait.h"
#include "util/thread_place.h"

enum {
    POLL_NS = 50000,        /* the writer's poll after a busy batch */
    POLL_AFTER_ROWS = 64,   /* a batch that long counts as busy */
    WAKE_CHECK_ROWS = 64,   /* the producer looks for a sleeping writer this often */
    PREFETCH_ROWS = 16,     /* the producer takes a slot's line this early */
    TAIL_PUBLISH_ROWS = 64, /* the writer publishes its progress this often */
    CHUNK_MAX_BYTES = 64 * 1024, CHUNK_MIN_ROWS = 4,
    /* the ring of wide rows: the default's within RING_BYTES, a size asked
     * for within RING_BYTES_MAX, 64 rows at least */
    RING_BYTES = 2 * 1024 * 1024, RING_BYTES_MAX = 4 * 1024 * 1024, MIN_RING_ROWS = 64,
    TIME_BYTES = sizeof(rtcosim_time_ns), /* a slot's time, then its values */
    NUMBER_BYTES = 8, /* a number's part of an rtcosim_value (f64, f32, i64, u64, b) */
    DRAIN_WAIT_US = 200, DRAIN_WAITS = 5000, /* a signal handler waits at most 1 s */
    RAW_BEHIND_MAX = 2,  /* x help_backlog: a helping producer waits for a chunk */
    STALL_NS = 200000    /* a writer that has not moved for this long is not running */
};

_Static_assert(sizeof(double) == NUMBER_BYTES && sizeof(int64_t) == NUMBER_BYTES &&
                   sizeof(uint64_t) == NUMBER_BYTES,
               "a number's value fits NUMBER_BYTES at the start of rtcosim_value");

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
    return atomic_load(&r->head) != atomic_load(&r->tail) || atomic_load(&r->closing) ||
           atomic_load(&r->emergency);
}

static bool has_space(rtcosim_recorder *r)
{
    r->tail_cached = atomic_load(&r->tail);
    return r->head_local - r->tail_cached < r->ring_rows;
}

/* The writer after a busy batch: the next rows are probably on their way; a
 * sleep would cost the wake-up (up to a millisecond on a VM whose idle CPU
 * halts), meanwhile the ring fills and the producer formats alone. It waits
 * for a batch of POLL_AFTER_ROWS rows, reading the head about every
 * microsecond: a writer right behind the producer pulls every slot's line
 * (and the head's) across while it is still being written, and the
 * producer's next store to it waits for the line to come back. */
static bool poll_for_data(rtcosim_recorder *r, uint64_t tail)
{
    int64_t start = spin_wait_now_ns();
    for (;;) {
        for (int i = 0; i < 32; i++)
            spin_wait_relax();
        uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
        if (head - tail >= POLL_AFTER_ROWS || atomic_load_explicit(&r->closing, memory_order_relaxed) ||
            atomic_load_explicit(&r->emergency, memory_order_relaxed))
            return true;
        if (spin_wait_now_ns() - start >= POLL_NS)
            return head != tail;
    }
}

/* The writer out of rows: write its buffer out if the last write is
 * FLUSH_PERIOD_MS old, else wait for data until it is (at most that long
 * with an empty buffer; same flag protocol as sleep_until): rows the
 * producer published without waking it are taken then, and a row reaches
 * the file at most FLUSH_PERIOD_MS after the writer's wake-up that took it. */
static void wait_data_or_flush(rtcosim_recorder *r)
{
    int64_t wait_ms = FLUSH_PERIOD_MS;
    if (r->out.len) {
        wait_ms = FLUSH_PERIOD_MS - (recorder_coarse_ms() - r->out.last_flush_ms);
        if (wait_ms <= 0) {
            recorder_sink_flush(&r->out);
            wait_ms = FLUSH_PERIOD_MS;
        }
    }
    atomic_store(&r->consumer_waiting, 1);
    if (has_data_or_closing(r)) {
        if (!atomic_exchange(&r->consumer_waiting, 0))
            while (sem_wait(&r->data_ready) != 0 && errno == EINTR) {}
        return;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += wait_ms * 1000000L;
    while (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    int rc;
    while ((rc = sem_timedwait(&r->data_ready, &ts)) != 0 && errno == EINTR) {}
    if (rc != 0) {
        /* Timed out: if a waker took the flag meanwhile, its post is on the way. */
        if (!atomic_exchange(&r->consumer_waiting, 0))
            while (sem_wait(&r->data_ready) != 0 && errno == EINTR) {}
        if (r->out.len)
            recorder_sink_flush(&r->out);
    }
}

/* One slot into the file's buffer: a row, or a chunk of the producer's
 * (the next chunk's slot index is in chunk_slot: a stale entry names a slot
 * already written, so it never matches). */
static void writer_put_slot(rtcosim_recorder *r, uint64_t index, uint64_t *row)
{
    const unsigned char *slot = slot_at(r, index);
    int k = (int)(r->chunks_written % CHUNK_COUNT);
    if (atomic_load_explicit(&r->chunk_slot[k], memory_order_relaxed) == index) {
        text_chunk *c = &r->chunks[k];
        sink_put_text(&r->out, c->buf, atomic_load_explicit(&c->committed, memory_order_relaxed));
        sink_count(&r->out.rows_written, c->rows);
        *row += c->rows;
        r->chunks_written++;
        atomic_fetch_add_explicit(&r->chunks_returned, 1, memory_order_release);
        return;
    }
    rtcosim_time_ns t;
    memcpy(&t, slot, sizeof t);
    if (r->cell_bytes == NUMBER_BYTES) {
        for (size_t i = 0; i < r->column_count; i++)
            memcpy(&r->row_scratch[i], slot + TIME_BYTES + NUMBER_BYTES * i, NUMBER_BYTES);
    } else { /* whole values, and the String and Binary columns' texts in the slot */
        memcpy(r->row_scratch, slot + TIME_BYTES, r->column_count * sizeof(rtcosim_value));
        for (size_t i = 0; i < r->column_count; i++) {
            if (!r->string_offset[i])
                continue;
            if (r->columns[i].type == RTCOSIM_TYPE_BINARY)
                r->row_scratch[i].bin.data = slot + r->string_offset[i];
            else
                r->row_scratch[i].s = (const char *)slot + r->string_offset[i];
        }
    }
    put_row(r, t, r->row_scratch, *row);
    ++*row;
}

static void *writer_main(void *arg)
{
    rtcosim_recorder *r = arg;
    if (r->place)
        thread_place_release(r->place);
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint64_t row = 0; /* the next row's index among all recorded */
    for (;;) {
        uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
        uint64_t batch = head - tail;
        while (tail != head) {
            writer_put_slot(r, tail, &row);
            tail++;
            if (tail % TAIL_PUBLISH_ROWS == 0) {
                atomic_store(&r->tail, tail);
                wake(&r->producer_waiting, &r->space_ready);
            }
        }
        atomic_store(&r->tail, tail);
        wake(&r->producer_waiting, &r->space_ready);
        if (atomic_load(&r->emergency)) {
            recorder_sink_flush(&r->out);
            atomic_store(&r->drained, tail + 1);
        }
        if (atomic_load(&r->closing) && atomic_load(&r->head) == tail)
            break;
        sink_flush_if_due(&r->out);
        if (r->spins && batch >= POLL_AFTER_ROWS && poll_for_data(r, tail))
            continue;
        wait_data_or_flush(r);
    }
    return NULL;
}

/* ---- the producer ---- */

/* The line of p taken for writing ahead of the store (prefetchw on x86):
 * the writer read the ring's slot a lap ago, and a store that has to take
 * its line back stalls the producer (B1's threaded run: 84-94 ns a row
 * against 93-104 ns with a plain prefetch and 104-161 ns without). */
static inline void prefetch_for_writing(const void *p)
{
#if defined(__x86_64__) || defined(__i386__)
    __asm__ volatile("prefetchw %0" ::"m"(*(const char *)p));
#else
    __builtin_prefetch(p, 1, 3);
#endif
}

/* The next slot to the writer. A plain (release) store: a sequentially
 * consistent one (an xchg on x86) waits for every store before it, the
 * slot's missed lines included. The sleeping writer's flag is read (after
 * a full fence, the Dekker protocol of wake) every WAKE_CHECK_ROWS rows, at
 * every chunk and before the producer waits for room; a writer asleep in
 * between sleeps at most FLUSH_PERIOD_MS (wait_data_or_flush). */
static void publish_head(rtcosim_recorder *r)
{
    r->head_local++;
    atomic_store_explicit(&r->head, r->head_local, memory_order_release);
}

static void wake_writer(rtcosim_recorder *r)
{
    atomic_thread_fence(memory_order_seq_cst);
    wake(&r->consumer_waiting, &r->data_ready);
}

/* Room at the head of the ring, waiting for the writer when it is full;
 * false (the row dropped) for a real-time producer. */
static bool make_room(rtcosim_recorder *r)
{
    if (r->head_local - r->tail_cached < r->ring_rows || has_space(r))
        return true;
    if (r->drop_when_full)
        return false;
    wake_writer(r); /* it may wait for a full batch */
    sleep_until(r, &r->producer_waiting, &r->space_ready, has_space);
    return true;
}

static void chunk_hand_over(rtcosim_recorder *r, int k)
{
    make_room(r); /* (a helping producer never drops) */
    /* (published with the head; the writer returned this entry's last chunk) */
    atomic_store_explicit(&r->chunk_slot[k], r->head_local, memory_order_relaxed);
    /* Off before the marker is published: a signal handler that sees the
     * chunk open writes it itself, after everything the ring holds (one
     * that interrupts the producer between the two loses the chunk). */
    atomic_store_explicit(&r->open_chunk, -1, memory_order_relaxed);
    publish_head(r);
    wake_writer(r);
}

static void chunk_put(rtcosim_recorder *r, int k, rtcosim_time_ns t, const rtcosim_value *values)
{
    text_chunk *c = &r->chunks[k];
    /* (room for a whole row is left at every row: the sink never flushes) */
    sink s = {.fd = -1, .buf = c->buf, .cap = c->cap,
              .len = atomic_load_explicit(&c->committed, memory_order_relaxed)};
    sink_put_row(&s, r->columns, r->column_count, t, values, r->omit_from, r->rows_recorded);
    atomic_store_explicit(&c->committed, s.len, memory_order_release);
    c->rows++;
    r->rows_formatted_by_pusher++;
    /* Handed over when full, or once the writer has taken everything the
     * ring holds (it has caught up: the chunk is its next work, and a
     * producer that pauses holds no rows the writer could write), or after
     * FLUSH_PERIOD_MS. */
    bool full = c->rows == CHUNK_MAX_ROWS || c->cap - s.len < r->row_text_max ||
                atomic_load_explicit(&r->tail, memory_order_relaxed) == r->head_local;
    if (!full && --r->chunk_until_check == 0) {
        r->chunk_until_check = FLUSH_CHECK_MAX;
        full = recorder_coarse_ms() - r->chunk_opened_ms >= FLUSH_PERIOD_MS;
    }
    if (full)
        chunk_hand_over(r, k);
}

static bool chunk_free(rtcosim_recorder *r)
{
    return r->chunks_taken - atomic_load_explicit(&r->chunks_returned, memory_order_acquire) <
           CHUNK_COUNT;
}

/* A helping producer that finds the writer RAW_BEHIND_MAX x help_backlog
 * slots behind with every chunk in flight: its raw rows would pile up in the
 * ring, and the chunks come back only once the writer has passed them, so
 * the ring would fill, the producer sleep on it and help little from then on
 * (B1's threaded run: the producer asleep on a full ring 600-2500 times and
 * formatting 12 % of the rows, slower than formatting them all itself). It
 * waits instead, spinning while the writer moves, until a chunk comes back
 * (true: it formats the next rows) or the writer is near again (false: a
 * raw row); false at once when the writer has not moved for STALL_NS (not
 * running: the ring takes the rows as before). */
static bool wait_for_chunk(rtcosim_recorder *r)
{
    uint64_t far = RAW_BEHIND_MAX * r->help_backlog;
    uint64_t moved = r->tail_cached;
    if (moved == r->stalled_tail)
        return false; /* still where it stalled the last wait */
    int64_t since = spin_wait_now_ns();
    for (unsigned turn = 1;; turn++) {
        if (chunk_free(r))
            return true;
        r->tail_cached = atomic_load_explicit(&r->tail, memory_order_acquire);
        if (r->head_local - r->tail_cached < far)
            return false;
        if (turn % 64 == 0) {
            int64_t now = spin_wait_now_ns();
            if (r->tail_cached != moved) {
                moved = r->tail_cached;
                since = now;
            } else if (now - since >= STALL_NS) {
                r->stalled_tail = moved;
                return false;
            }
        }
        spin_wait_relax();
    }
}

/* A row's String and Binary values into their areas of its slot (cut at
 * max_string_bytes, counted). */
static void copy_texts(rtcosim_recorder *r, unsigned char *slot, const rtcosim_value *values)
{
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
            memcpy(slot + TIME_BYTES + sizeof(rtcosim_value) * i, &b, sizeof b);
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
}

/* Whether the producer takes the next rows itself: the writer is at least
 * help_backlog rows behind (re-read only when the cached tail says so) and a
 * chunk is free, or comes back while it waits (wait_for_chunk). */
static bool should_help(rtcosim_recorder *r)
{
    if (!r->helps || r->head_local - r->tail_cached < r->help_backlog)
        return false;
    r->tail_cached = atomic_load_explicit(&r->tail, memory_order_acquire);
    uint64_t behind = r->head_local - r->tail_cached;
    if (behind < r->help_backlog)
        return false;
    return chunk_free(r) ||
           (r->spins && behind >= RAW_BEHIND_MAX * r->help_backlog && wait_for_chunk(r));
}

bool recorder_ring_push(rtcosim_recorder *r, rtcosim_time_ns t, const rtcosim_value *values)
{
    int open = atomic_load_explicit(&r->open_chunk, memory_order_relaxed);
    if (open >= 0) {
        chunk_put(r, open, t, values);
        return true;
    }
    if (should_help(r)) {
        int k = (int)(r->chunks_taken++ % CHUNK_COUNT);
        text_chunk *c = &r->chunks[k];
        atomic_store_explicit(&c->committed, 0, memory_order_relaxed);
        c->rows = 0;
        r->chunk_opened_ms = recorder_coarse_ms();
        r->chunk_until_check = FLUSH_CHECK_MAX;
        atomic_store_explicit(&r->open_chunk, k, memory_order_relaxed);
        chunk_put(r, k, t, values);
        return true;
    }
    if (!make_room(r)) {
        r->rows_dropped++;
        return false;
    }
    unsigned char *slot = slot_at(r, r->head_local);
    prefetch_for_writing(slot_at(r, r->head_local + PREFETCH_ROWS));
    memcpy(slot, &t, sizeof t);
    if (r->cell_bytes == sizeof(rtcosim_value)) {
        memcpy(slot + TIME_BYTES, values, r->column_count * sizeof *values);
        copy_texts(r, slot, values);
    } else {
        for (size_t i = 0; i < r->column_count; i++)
            memcpy(slot + TIME_BYTES + NUMBER_BYTES * i, &values[i], NUMBER_BYTES);
    }
    publish_head(r);
    if (r->head_local % WAKE_CHECK_ROWS == 0)
        wake_writer(r);
    return true;
}

void recorder_ring_stop(rtcosim_recorder *r)
{
    if (!r->thread_started)
        return;
    int open = atomic_load_explicit(&r->open_chunk, memory_order_relaxed);
    if (open >= 0)
        chunk_hand_over(r, open);
    atomic_store(&r->closing, 1);
    wake(&r->consumer_waiting, &r->data_ready);
    pthread_join(r->thread, NULL);
    r->thread_started = false;
}

void recorder_ring_drain_signal_safe(rtcosim_recorder *r)
{
    if (!r->thread_started || r->out.fd < 0)
        return;
    uint64_t target = atomic_load(&r->head) + 1;
    atomic_store(&r->emergency, 1);
    sem_post(&r->data_ready); /* (async-signal-safe, POSIX.1-2017 2.4.3, as nanosleep) */
    for (int i = 0; i < DRAIN_WAITS && atomic_load(&r->drained) < target; i++) {
        struct timespec ts = {0, DRAIN_WAIT_US * 1000L};
        nanosleep(&ts, NULL);
    }
    if (atomic_load(&r->drained) < target)
        return; /* the writer is stuck (in a write to a full disk?): what it wrote stays */
    int open = atomic_load_explicit(&r->open_chunk, memory_order_relaxed);
    if (open < 0)
        return;
    recorder_write_signal_safe(
        r->out.fd, r->chunks[open].buf,
        atomic_load_explicit(&r->chunks[open].committed, memory_order_acquire));
}

void recorder_ring_free(rtcosim_recorder *r)
{
    if (r->semaphores_ready) {
        sem_destroy(&r->data_ready);
        sem_destroy(&r->space_ready);
    }
    for (int k = 0; k < CHUNK_COUNT; k++)
        free(r->chunks[k].buf);
    free(r->string_offset);
    free(r->row_scratch);
    free(r->ring);
    free(r->place);
}

/* Slot layout: the time, the values, then a fixed area per String or
 * Binary column. The values of a row of numbers take NUMBER_BYTES each (the
 * part of the value a number uses: B1's row of one Float64 crosses to the
 * writer's CPU in 16 bytes instead of 48), others a whole rtcosim_value. A
 * slot that hands over a chunk of text holds nothing: chunk_slot names it. */
rtcosim_status recorder_ring_start(rtcosim_recorder *r, const rtcosim_recorder_options *o,
                                   rtcosim_error *err)
{
    r->max_string_bytes = o->max_string_bytes ? o->max_string_bytes : DEFAULT_MAX_STRING_BYTES;
    r->drop_when_full = o->drop_when_full;
    if (r->column_count > SIZE_MAX / 64 / FIELD_MAX)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: recorder ring too large", r->path);
    r->row_text_max = (1 + r->column_count) * FIELD_MAX + 1;
    r->spins = spin_wait_cpus() > 1;
    r->helps = !r->drop_when_full && !r->mdf && !r->mat;
    r->cell_bytes = NUMBER_BYTES;
    for (size_t i = 0; i < r->column_count; i++)
        if (r->columns[i].type == RTCOSIM_TYPE_STRING || r->columns[i].type == RTCOSIM_TYPE_BINARY)
            r->cell_bytes = sizeof(rtcosim_value);
    size_t bytes = TIME_BYTES + r->column_count * r->cell_bytes;
    r->string_offset = calloc(r->column_count + 1, sizeof *r->string_offset);
    r->row_scratch = calloc(r->column_count + 1, sizeof *r->row_scratch);
    if (!r->string_offset || !r->row_scratch)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory for the recorder", r->path);
    for (size_t i = 0; i < r->column_count; i++)
        if (r->columns[i].type == RTCOSIM_TYPE_STRING || r->columns[i].type == RTCOSIM_TYPE_BINARY) {
            r->string_offset[i] = bytes;
            bytes += r->max_string_bytes;
            r->helps = false; /* (a row of text has no bound) */
        }
    r->slot_bytes = (bytes + 7) / 8 * 8;
    for (int k = 0; k < CHUNK_COUNT; k++)
        atomic_store_explicit(&r->chunk_slot[k], UINT64_MAX, memory_order_relaxed);
    /* The rows asked for (DEFAULT_RING_ROWS) within RING_BYTES_MAX
     * (RING_BYTES), MIN_RING_ROWS at least unless fewer were asked for: a
     * real-time run's 65536 rows of a 100-column system were 53 MB, locked
     * by its mlockall (8 MiB for an unprivileged user). */
    size_t wanted = o->ring_rows ? o->ring_rows : DEFAULT_RING_ROWS;
    size_t fit = (o->ring_rows ? RING_BYTES_MAX : RING_BYTES) / r->slot_bytes;
    r->ring_rows = wanted < fit ? wanted : fit;
    if (r->ring_rows < MIN_RING_ROWS)
        r->ring_rows = wanted < MIN_RING_ROWS ? wanted : MIN_RING_ROWS;
    r->help_backlog = r->ring_rows / 32 ? r->ring_rows / 32 : 1;
    if (r->ring_rows > SIZE_MAX / r->slot_bytes)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: recorder ring too large", r->path);
    r->ring = malloc(r->ring_rows * r->slot_bytes);
    if (!r->ring)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory for the recorder ring",
                                 r->path);
    /* CHUNK_MAX_ROWS rows as long as they can be, within CHUNK_MAX_BYTES, and
     * at least CHUNK_MIN_ROWS of them */
    size_t chunk_bytes = CHUNK_MAX_ROWS * r->row_text_max;
    if (chunk_bytes > CHUNK_MAX_BYTES)
        chunk_bytes = CHUNK_MAX_BYTES;
    if (chunk_bytes < CHUNK_MIN_ROWS * r->row_text_max)
        chunk_bytes = CHUNK_MIN_ROWS * r->row_text_max;
    for (int k = 0; r->helps && k < CHUNK_COUNT; k++) {
        if (!(r->chunks[k].buf = malloc(chunk_bytes)))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM,
                                     "%s: out of memory for the recorder's text chunks", r->path);
        r->chunks[k].cap = chunk_bytes;
    }
    atomic_store(&r->open_chunk, -1);
    if (sem_init(&r->data_ready, 0, 0) != 0)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot create the writer semaphores: %s",
                                 r->path, strerror(errno));
    if (sem_init(&r->space_ready, 0, 0) != 0) {
        sem_destroy(&r->data_ready);
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot create the writer semaphores: %s",
                                 r->path, strerror(errno));
    }
    r->semaphores_ready = true;
    /* The writer takes no asynchronous signal: a handler that drains the
     * ring waits for it, so must not run on it. */
    sigset_t all, before;
    sigfillset(&all);
    const int synchronous[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT};
    for (size_t i = 0; i < sizeof synchronous / sizeof *synchronous; i++)
        sigdelset(&all, synchronous[i]);
    /* Started on a CPU of its own where one is free (util/thread_place.h:
     * beside its creator, the two shared a CPU until the load balancer
     * moved one, and B1's threaded run took 1.5-2x as long). */
    pthread_attr_t attr;
    bool attr_ok = pthread_attr_init(&attr) == 0;
    if (attr_ok && r->spins && (r->place = malloc(sizeof *r->place))) {
        int fd = spin_wait_load_open();
        thread_place_plan(r->place, 2, spin_wait_running(fd));
        if (fd >= 0)
            close(fd);
        if (!thread_place_attr(r->place, 1, &attr)) {
            free(r->place);
            r->place = NULL;
        }
    }
    pthread_sigmask(SIG_SETMASK, &all, &before);
    int rc = pthread_create(&r->thread, attr_ok ? &attr : NULL, writer_main, r);
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    if (attr_ok)
        pthread_attr_destroy(&attr);
    if (rc != 0)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot start the writer thread: %s",
                                 r->path, strerror(rc));
    r->thread_started = true;
    r->threaded = true;
    return RTCOSIM_OK;
}
