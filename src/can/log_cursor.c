/* A CAN log taken in batches (can_log.h: rtcosim_can_log_cursor_*), for a
 * caller that pulls frames rather than being given them: Python's
 * rtcosim.iter_can_log, which hands a log of any length over a chunk of
 * frames at a time. The readers push (rtcosim_can_log_scan gives each frame
 * to a function, and an MDF log merges its groups inside that call), so the
 * scan runs on a thread of its own and fills a bounded queue the caller
 * empties; the scan waits while the queue is full. Memory: the queue
 * (QUEUE records, 768 KiB) and the reader's own window, whatever the log's
 * length. Closing early (the caller has seen enough, or was interrupted)
 * stops the scan at its next frame. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "log_internal.h"

enum { QUEUE = 8192, STAGE = 512 };

struct rtcosim_can_log_cursor {
    pthread_t thread;
    bool started;
    char *path;
    pthread_mutex_t lock;
    pthread_cond_t filled, emptied;
    /* the queue: a ring of QUEUE records, `count` of them from `head` */
    rtcosim_can_log_record *ring;
    size_t head, count;
    bool done, closing;
    rtcosim_status status; /* the scan's, once done */
    rtcosim_error err;
    /* what the log says besides its frames, copied from the scan's log as
     * it grows (that log is the scan thread's, and freed by the scan when
     * the read fails): a bus's name before its first frame is queued, the
     * database (an MDF log's: before its first frame), CAN XL frames so far */
    char *buses[CAN_LOG_MAX_BUSES];
    size_t bus_count, xl_count;
    char *database, *database_name;
    size_t database_size;
    /* the scan thread's frames not yet queued (queued STAGE at a time, so
     * the lock is taken once per STAGE frames) */
    rtcosim_can_log_record stage[STAGE];
    size_t staged;
    bool learned_database; /* (the scan thread's: whether it copied it) */
};

/* Moves the staged frames into the queue, waiting for room; false when the
 * cursor is being closed. */
static bool flush(rtcosim_can_log_cursor *c, size_t xl_count)
{
    pthread_mutex_lock(&c->lock);
    size_t k = 0;
    while (k < c->staged) {
        while (c->count == QUEUE && !c->closing)
            pthread_cond_wait(&c->emptied, &c->lock);
        if (c->closing)
            break;
        for (; k < c->staged && c->count < QUEUE; k++, c->count++)
            c->ring[(c->head + c->count) % QUEUE] = c->stage[k];
        c->xl_count = xl_count;
        pthread_cond_signal(&c->filled);
    }
    bool closing = c->closing;
    pthread_mutex_unlock(&c->lock);
    c->staged = 0;
    return !closing;
}

/* Copies what the log has said since the last frame (a new bus, the
 * database); false when out of memory. */
static bool learn(rtcosim_can_log_cursor *c, const rtcosim_can_log *log)
{
    bool ok = true;
    pthread_mutex_lock(&c->lock);
    for (; c->bus_count < log->bus_count && ok; c->bus_count++)
        ok = (c->buses[c->bus_count] = strdup(log->buses[c->bus_count])) != NULL;
    if (ok && log->database && !c->database) {
        c->database = malloc(log->database_size + 1);
        c->database_name = log->database_name ? strdup(log->database_name) : NULL;
        ok = c->database && (c->database_name || !log->database_name);
        if (c->database) {
            memcpy(c->database, log->database, log->database_size + 1);
            c->database_size = log->database_size;
        }
    }
    c->learned_database = log->database != NULL;
    pthread_mutex_unlock(&c->lock);
    return ok;
}

static rtcosim_status take(void *context, const rtcosim_can_log *log,
                           const rtcosim_can_log_record *record, rtcosim_error *err)
{
    rtcosim_can_log_cursor *c = context;
    if ((log->bus_count > c->bus_count || (log->database && !c->learned_database)) &&
        !learn(c, log))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", c->path);
    c->stage[c->staged++] = *record;
    if (c->staged == STAGE && !flush(c, log->xl_count))
        return RTCOSIM_ECANCELED;
    return RTCOSIM_OK;
}

static void *scan(void *arg)
{
    rtcosim_can_log_cursor *c = arg;
    rtcosim_can_log *log = NULL;
    rtcosim_error err = {0};
    rtcosim_status st = rtcosim_can_log_scan(c->path, take, c, &log, &err);
    /* the frames before the end or the error (not after a close) */
    if (c->staged && st != RTCOSIM_ECANCELED)
        flush(c, log ? log->xl_count : c->xl_count);
    if (log && st == RTCOSIM_OK && !learn(c, log))
        st = rtcosim_error_set(&err, RTCOSIM_ENOMEM, "%s: out of memory", c->path);
    pthread_mutex_lock(&c->lock);
    if (log)
        c->xl_count = log->xl_count;
    c->status = st;
    c->err = err;
    c->done = true;
    pthread_cond_broadcast(&c->filled);
    pthread_mutex_unlock(&c->lock);
    rtcosim_can_log_free(log);
    return NULL;
}

rtcosim_status rtcosim_can_log_cursor_open(const char *path, rtcosim_can_log_cursor **out,
                                           rtcosim_error *err)
{
    *out = NULL;
    if (!path)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "can log: no file given");
    rtcosim_can_log_cursor *c = calloc(1, sizeof *c);
    if (!c || !(c->path = strdup(path)) || !(c->ring = malloc(QUEUE * sizeof *c->ring))) {
        if (c)
            free(c->path);
        free(c);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    }
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->filled, NULL);
    pthread_cond_init(&c->emptied, NULL);
    int e = pthread_create(&c->thread, NULL, scan, c);
    if (e != 0) {
        rtcosim_can_log_cursor_close(c);
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot start a thread to read it: %s",
                                 path, strerror(e));
    }
    c->started = true;
    *out = c;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_can_log_cursor_next(rtcosim_can_log_cursor *c,
                                           rtcosim_can_log_record *records, size_t max,
                                           size_t *n, rtcosim_error *err)
{
    *n = 0;
    if (max == 0)
        return RTCOSIM_OK;
    pthread_mutex_lock(&c->lock);
    while (c->count == 0 && !c->done)
        pthread_cond_wait(&c->filled, &c->lock);
    size_t k = 0;
    for (; k < max && c->count; k++, c->count--, c->head = (c->head + 1) % QUEUE) {
        records[k] = c->ring[c->head];
        /* (the bytes past a frame's size as zeros, whatever the reader left) */
        if (records[k].size < sizeof records[k].data)
            memset(records[k].data + records[k].size, 0,
                   sizeof records[k].data - records[k].size);
    }
    *n = k;
    rtcosim_status st = RTCOSIM_OK;
    if (k == 0 && c->done && c->status != RTCOSIM_OK) {
        /* the frames before the error were all given: now the error */
        st = c->status;
        if (err)
            *err = c->err;
    }
    pthread_cond_signal(&c->emptied);
    pthread_mutex_unlock(&c->lock);
    return st;
}

size_t rtcosim_can_log_cursor_bus_count(rtcosim_can_log_cursor *c)
{
    pthread_mutex_lock(&c->lock);
    size_t n = c->bus_count;
    pthread_mutex_unlock(&c->lock);
    return n;
}

const char *rtcosim_can_log_cursor_bus_name(rtcosim_can_log_cursor *c, size_t index)
{
    pthread_mutex_lock(&c->lock);
    const char *name = index < c->bus_count ? c->buses[index] : NULL;
    pthread_mutex_unlock(&c->lock);
    return name;
}

size_t rtcosim_can_log_cursor_xl_count(rtcosim_can_log_cursor *c)
{
    pthread_mutex_lock(&c->lock);
    size_t n = c->xl_count;
    pthread_mutex_unlock(&c->lock);
    return n;
}

const char *rtcosim_can_log_cursor_database(rtcosim_can_log_cursor *c, size_t *size,
                                            const char **name)
{
    pthread_mutex_lock(&c->lock);
    const char *text = c->database;
    if (size)
        *size = c->database_size;
    if (name)
        *name = c->database_name;
    pthread_mutex_unlock(&c->lock);
    return text;
}

void rtcosim_can_log_cursor_close(rtcosim_can_log_cursor *c)
{
    if (!c)
        return;
    if (c->started) {
        pthread_mutex_lock(&c->lock);
        c->closing = true;
        pthread_cond_broadcast(&c->emptied);
        pthread_mutex_unlock(&c->lock);
        pthread_join(c->thread, NULL);
    }
    for (size_t i = 0; i < c->bus_count; i++)
        free(c->buses[i]);
    free(c->database);
    free(c->database_name);
    pthread_cond_destroy(&c->filled);
    pthread_cond_destroy(&c->emptied);
    pthread_mutex_destroy(&c->lock);
    free(c->ring);
    free(c->path);
    free(c);
}
