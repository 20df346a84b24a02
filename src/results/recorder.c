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

#include "results/part_file.h"
#include "results/recorder_internal.h"
#include "util/cgroup_cpus.h"
#include "util/spin_wait.h"

/* ---- the buffered file ---- */

void recorder_sink_write_all(sink *s, const char *data, size_t n)
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
        sink_count(&s->bytes_written, (uint_fast64_t)w);
    }
}

int64_t recorder_coarse_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool recorder_write_signal_safe(int fd, const char *data, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, data, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        data += w;
        n -= (size_t)w;
    }
    return true;
}

void recorder_sink_flush(sink *s)
{
    if (s->len) {
        recorder_sink_write_all(s, s->buf, s->len);
        if (s->mat && s->error_number == 0)
            mat_stream_patch(s->mat, s->fd,
                             atomic_load_explicit(&s->rows_written, memory_order_relaxed));
    }
    s->len = 0;
    s->last_flush_ms = recorder_coarse_ms();
}

/* Open recorders reachable from a fatal-signal handler. */
static _Atomic(rtcosim_recorder *) emergency[EMERGENCY_SLOTS];

/* ---- the public recorder ---- */

static rtcosim_status record(rtcosim_recorder *r, rtcosim_time_ns t, const rtcosim_value *values)
{
    if (r->threaded) {
        if (recorder_ring_push(r, t, values))
            r->rows_recorded++;
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
    stats->rows_formatted_by_pusher = r->rows_formatted_by_pusher;
    stats->bytes_written = atomic_load_explicit(&r->out.bytes_written, memory_order_relaxed);
}

static void recorder_free(rtcosim_recorder *r)
{
    recorder_ring_free(r);
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
    free(r->out.buf);
    free(r->path);
    free(r);
}

/* The kernel's count of running tasks includes the caller, and a kernel
 * thread passing through (writeback after the last run's file, RCU) made one
 * look in 13 on an idle 2-CPU VM say "busy", flipping a run's way of writing
 * at random (38 of 500 calls; 1-6 of 500 with this): up to five looks
 * `pause_us` apart, a CPU free as soon as one look finds it. */
bool recorder_cpu_free(unsigned cpus, unsigned (*look)(void *context), void *context,
                       unsigned pause_us)
{
    for (int i = 0; i < 5; i++) {
        unsigned running = look(context); /* (0: unknown) */
        if (running < cpus)
            return true;
        if (i < 4 && pause_us)
            usleep(pause_us);
    }
    return false;
}

static unsigned look_loadavg(void *context)
{
    return spin_wait_running(*(int *)context);
}

/* With every CPU busy a writer only takes time from the pushing thread: B1
 * took 124-132 ns a step without it and 164-197 ns with it beside a busy
 * loop (85-110 against 116 ns on an idle machine). So does a cgroup quota
 * under two CPUs' time (a container's --cpus=1 on a larger machine). */
bool rtcosim_recorder_writer_thread_pays(void)
{
    unsigned cpus = spin_wait_cpus();
    if (cpus < 2)
        return false;
    double quota = util_cgroup_cpus();
    if (quota > 0 && quota < 2)
        return false;
    int fd = spin_wait_load_open();
    bool free_cpu = fd < 0 || recorder_cpu_free(cpus, look_loadavg, &fd, 100);
    if (fd >= 0)
        close(fd);
    return free_cpu;
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
    atomic_init(&r->open_chunk, -1);
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
        recorder_sink_write_all(&r->out, (const char *)head, n);
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
    recorder_sink_flush(&r->out); /* the header at once: a run that gets stuck shows it started */
    bool text = false;
    for (size_t i = 0; i < r->column_count; i++)
        text |= r->columns[i].type == RTCOSIM_TYPE_STRING || r->columns[i].type == RTCOSIM_TYPE_BINARY;
    if (o->writer_thread && !(o->whole_text && text)) {
        rtcosim_status st = recorder_ring_start(r, o, err);
        if (st != RTCOSIM_OK) {
            recorder_free(r);
            return st;
        }
    }
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
        if (r && r->threaded) {
            recorder_ring_drain_signal_safe(r);
            continue;
        }
        if (!r || r->out.fd < 0 || r->out.len == 0)
            continue;
        if (recorder_write_signal_safe(r->out.fd, r->out.buf, r->out.len) && r->mat)
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
    recorder_ring_stop(r);
    recorder_sink_flush(&r->out);
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
