/* An .mf4 results file written while the run goes (mdf_stream.h): the
 * blocks before the records at open, then each row as a record appended to
 * one DT block, no text in between. Until close the file says it is
 * unfinalized as ASAM MDF 4.1 lets a logger say it ("UnFinMF ", standard
 * flags 1: the cycle count and 4: the last DT block's length to be
 * updated), so a run that dies leaves a file the readers take (ours reads
 * the DT block to the file's end, src/results/mdf4_read.c). Close writes
 * the DT length, the cycle count and "MDF     " with the flags cleared,
 * and then, for records past MDF_DT_MAX bytes, copies the file with the
 * records in DZ blocks (transposed and deflated, as the CSV conversion
 * writes them) and renames the copy over it. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results/mdf_stream.h"
#include "results/mdf_write_internal.h"
#include "results/part_file.h"
#include "rtcosim/log.h"
#include "util/le.h"
#include "util/write_target.h"

typedef struct stream_column {
    uint8_t dtype, bytes;
    bool skip;    /* String and Binary: no channel */
    bool boolean; /* Boolean and Clock: 0/1 from the value's bool */
    int32_t inval_bit;
    uint32_t offset; /* in the record */
} stream_column;

struct mdf_stream {
    size_t n;
    stream_column *cols;
    size_t record, data_bytes, inval_bytes;
    mdf_buf meta; /* the blocks before the DT block, as written at open */
    uint64_t dg_at, cg_at, dt_at;
};

enum { UNFINALIZED_FLAGS = 1 | 4 }; /* cycle counters, the last DT block's length */

rtcosim_status mdf_stream_open(const char *path, const rtcosim_column *columns, size_t n,
                               int64_t start_ns, mdf_stream **out, rtcosim_error *err)
{
    *out = NULL;
    mdf_stream *m = calloc(1, sizeof *m);
    mdf_column *channels = calloc(n ? n : 1, sizeof *channels);
    if (!m || !(m->cols = calloc(n ? n : 1, sizeof *m->cols)) || !channels) {
        free(channels);
        mdf_stream_free(m);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory for the MDF file", path);
    }
    m->n = n;
    /* Integer and Boolean channels carry an invalidation bit, for a value
     * the run could not get (a column the recorder is told to leave empty);
     * floating-point ones get NaN there. */
    size_t kept = 0, inval = 0, offset = 8;
    for (size_t i = 0; i < n; i++) {
        const rtcosim_column *c = &columns[i];
        stream_column *s = &m->cols[i];
        if (c->type == RTCOSIM_TYPE_STRING || c->type == RTCOSIM_TYPE_BINARY) {
            s->skip = true;
            mdf_warn_text_left_out(path, c->name);
            continue;
        }
        mdf_storage_of((int)c->type, &s->dtype, &s->bytes);
        s->boolean = c->type == RTCOSIM_TYPE_BOOLEAN || c->type == RTCOSIM_TYPE_CLOCK;
        s->inval_bit = s->dtype == MDF_FLOAT ? -1 : (int32_t)inval++;
        s->offset = (uint32_t)offset;
        offset += s->bytes;
        channels[kept++] = (mdf_column){.name = c->name, .unit = c->unit,
                                        .comment = c->description, .dtype = s->dtype,
                                        .bytes = s->bytes, .inval_bit = s->inval_bit};
    }
    m->data_bytes = offset;
    m->inval_bytes = (inval + 7) / 8;
    m->record = m->data_bytes + m->inval_bytes;
    mdf_results_metadata(&m->meta, channels, kept, 0, (uint32_t)m->inval_bytes, start_ns,
                         &m->dg_at, &m->cg_at);
    free(channels);
    if (!m->meta.failed) {
        memcpy(m->meta.p, "UnFinMF ", 8);
        le_put16(m->meta.p + 60, UNFINALIZED_FLAGS);
        m->dt_at = m->meta.len;
        mdf_link(&m->meta, m->dg_at, 2, m->dt_at);
        /* the DT block's header: its length (24) is written at close */
        uint8_t *dt = mdf_grow(&m->meta, 24);
        if (dt) {
            memcpy(dt, "##DT", 4);
            le_put64(dt + 8, 24);
        }
    }
    if (m->meta.failed) {
        mdf_stream_free(m);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory for the MDF file", path);
    }
    *out = m;
    return RTCOSIM_OK;
}

const uint8_t *mdf_stream_head(const mdf_stream *m, size_t *bytes)
{
    *bytes = m->meta.len;
    return m->meta.p;
}

size_t mdf_stream_record_bytes(const mdf_stream *m)
{
    return m->record;
}

void mdf_stream_put(const mdf_stream *m, uint8_t *rec, rtcosim_time_ns t,
                    const rtcosim_value *values, const _Atomic uint64_t *omit_from, uint64_t row)
{
    double seconds = (double)t / 1e9; /* (as the CSV conversion's time channel) */
    uint64_t bits;
    memcpy(&bits, &seconds, sizeof bits);
    le_put64(rec, bits);
    uint8_t *inval = rec + m->data_bytes;
    memset(inval, 0, m->inval_bytes);
    for (size_t i = 0; i < m->n; i++) {
        const stream_column *c = &m->cols[i];
        if (c->skip)
            continue;
        uint8_t *p = rec + c->offset;
        bool empty = row >= atomic_load_explicit(&omit_from[i], memory_order_relaxed);
        if (c->dtype == MDF_FLOAT) {
            if (c->bytes == 8) {
                double v = empty ? NAN : values[i].f64;
                memcpy(&bits, &v, sizeof bits);
                le_put64(p, bits);
            } else {
                float v = empty ? NAN : values[i].f32;
                uint32_t w;
                memcpy(&w, &v, sizeof w);
                le_put32(p, w);
            }
            continue;
        }
        uint64_t v = 0;
        if (empty)
            inval[c->inval_bit / 8] |= (uint8_t)(1u << (c->inval_bit % 8));
        else if (c->boolean)
            v = values[i].b ? 1 : 0;
        else
            v = c->dtype == MDF_SIGNED ? (uint64_t)values[i].i64 : values[i].u64;
        switch (c->bytes) {
        case 1: p[0] = (uint8_t)v; break;
        case 2: le_put16(p, (uint16_t)v); break;
        case 4: le_put32(p, (uint32_t)v); break;
        default: le_put64(p, v); break;
        }
    }
}

static bool pwrite_all(int fd, const void *data, size_t n, uint64_t at)
{
    const uint8_t *p = data;
    while (n > 0) {
        ssize_t w = pwrite(fd, p, n, (off_t)at);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w, n -= (size_t)w, at += (uint64_t)w;
    }
    return true;
}

/* The DZ copy's records, read back from the finalized file. */
typedef struct refill {
    int fd;
    uint64_t from;
    size_t record;
    bool failed;
} refill;

static void refill_rows(void *context, uint8_t *rec, size_t first, size_t count)
{
    refill *r = context;
    size_t n = count * r->record, got = 0;
    uint64_t at = r->from + (uint64_t)first * r->record;
    while (!r->failed && got < n) {
        ssize_t k = pread(r->fd, rec + got, n - got, (off_t)(at + got));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            r->failed = true;
        else
            got += (size_t)k;
    }
    if (r->failed)
        memset(rec, 0, n);
}

/* The file again with its records in DZ blocks, renamed over it. */
static bool compress_copy(mdf_stream *m, int fd, const char *path, uint64_t rows)
{
    /* (a symbolic link at path: its target is replaced, the link stays) */
    char *target = util_write_target(path);
    if (target && !util_target_replaceable(target)) {
        free(target); /* (a device, /dev/null: what was written in place stays) */
        return true;
    }
    size_t len = (target ? strlen(target) : 0) + sizeof ".dz.part";
    char *tmp = target ? malloc(len) : NULL;
    if (!tmp) {
        free(target);
        return false;
    }
    snprintf(tmp, len, "%s.dz.part", target);
    int slot = result_part_register(tmp); /* (a second Ctrl-C removes it) */
    FILE *f = fopen(tmp, "wb");
    bool ok = f != NULL;
    size_t head = m->dt_at; /* the metadata without the DT header */
    mdf_link(&m->meta, m->dg_at, 2, 0);
    ok = ok && fwrite(m->meta.p, 1, head, f) == head;
    uint64_t dl = 0;
    refill src = {fd, m->dt_at + 24, m->record, false};
    ok = ok && mdf_write_dz(f, head, (size_t)rows, m->record, refill_rows, &src, &dl) &&
         !src.failed;
    uint8_t link[8];
    le_put64(link, dl);
    ok = ok && fseek(f, (long)(m->dg_at + 24 + 8 * 2), SEEK_SET) == 0 &&
         fwrite(link, 1, sizeof link, f) == sizeof link;
    if (f && fclose(f) != 0)
        ok = false;
    ok = ok && rename(tmp, target) == 0;
    if (!ok)
        (void)unlink(tmp);
    result_part_unregister(slot);
    free(tmp);
    free(target);
    return ok;
}

rtcosim_status mdf_stream_finish(mdf_stream *m, int fd, const char *path, uint64_t rows,
                                 rtcosim_error *err)
{
    /* the records' count and bytes, then "finalized" */
    uint8_t *cg = mdf_data(&m->meta, m->cg_at, 6);
    le_put64(cg + 8, rows);
    memcpy(m->meta.p, "MDF     ", 8);
    le_put16(m->meta.p + 60, 0);
    le_put64(m->meta.p + m->dt_at + 8, 24 + rows * m->record);
    if (!pwrite_all(fd, m->meta.p + m->dt_at, 24, m->dt_at) ||
        !pwrite_all(fd, cg + 8, 8, m->cg_at + 24 + 8 * 6 + 8) ||
        !pwrite_all(fd, m->meta.p, 64, 0))
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: finishing the MDF file failed: %s", path,
                                 strerror(errno ? errno : EIO));
    if (rows * m->record > MDF_DT_MAX && !compress_copy(m, fd, path, rows))
        rtcosim_log(RTCOSIM_LOG_WARNING, "results",
                    "%s: the records could not be compressed (%s); the file keeps them "
                    "uncompressed", path, strerror(errno ? errno : EIO));
    return RTCOSIM_OK;
}

void mdf_stream_free(mdf_stream *m)
{
    if (!m)
        return;
    free(m->cols);
    free(m->meta.p);
    free(m);
}
