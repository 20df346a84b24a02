/* MDF 4 blocks built in memory (mdf_write_internal.h says how; mdf.c lists
 * the blocks' layouts). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zlib.h>


#include "results/mdf_write_internal.h"
#include "util/le.h"

#ifndef RTCOSIM_VERSION_TEXT
#define RTCOSIM_VERSION_TEXT "0"
#endif

uint8_t *mdf_grow(mdf_buf *b, size_t n)
{
    if (b->failed)
        return NULL;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n)
            cap *= 2;
        uint8_t *p = realloc(b->p, cap);
        if (!p) {
            b->failed = true;
            return NULL;
        }
        b->p = p;
        b->cap = cap;
    }
    uint8_t *at = b->p + b->len;
    memset(at, 0, n);
    b->len += n;
    return at;
}

uint64_t mdf_block(mdf_buf *b, const char id[3], size_t links, size_t data)
{
    size_t size = 24 + 8 * links + (data + 7) / 8 * 8, at = b->len;
    uint8_t *p = mdf_grow(b, size);
    if (!p)
        return 0;
    p[0] = '#', p[1] = '#', p[2] = (uint8_t)id[0], p[3] = (uint8_t)id[1];
    le_put64(p + 8, size);
    le_put64(p + 16, links);
    return at;
}

void mdf_link(mdf_buf *b, uint64_t block_at, size_t link, uint64_t target)
{
    if (!b->failed)
        le_put64(b->p + block_at + 24 + 8 * link, target);
}

uint8_t *mdf_data(mdf_buf *b, uint64_t block_at, size_t links)
{
    return b->failed ? NULL : b->p + block_at + 24 + 8 * links;
}

uint64_t mdf_text(mdf_buf *b, const char *id, const char *text)
{
    if (!text || !*text)
        return 0;
    size_t n = strlen(text) + 1;
    uint64_t at = mdf_block(b, id, 0, n);
    uint8_t *d = mdf_data(b, at, 0);
    if (d)
        memcpy(d, text, n);
    return at;
}

void mdf_identification(mdf_buf *b)
{
    uint8_t *id = mdf_grow(b, 64);
    if (id) {
        memcpy(id, "MDF     4.10    rtcosim ", 24);
        le_put16(id + 28, 410);
    }
}

int64_t mdf_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

uint64_t mdf_header(mdf_buf *b, int64_t start_ns, const char *what)
{
    uint64_t hd = mdf_block(b, "HD", 6, 32);
    uint8_t *d = mdf_data(b, hd, 6);
    if (d) /* ns since 1970 UTC; time zone and flags 0: UTC */
        le_put64(d, (uint64_t)start_ns);
    char fh_text[320];
    snprintf(fh_text, sizeof fh_text,
             "<FHcomment><TX>%s</TX><tool_id>rtcosim</tool_id>"
             "<tool_vendor>rtcosim</tool_vendor><tool_version>%s</tool_version></FHcomment>",
             what, RTCOSIM_VERSION_TEXT);
    uint64_t fh_md = mdf_text(b, "MD", fh_text);
    uint64_t fh = mdf_block(b, "FH", 2, 16);
    mdf_link(b, fh, 1, fh_md);
    if ((d = mdf_data(b, fh, 2)) != NULL)
        le_put64(d, (uint64_t)mdf_now_ns());
    mdf_link(b, hd, 1, fh);
    return hd;
}

uint64_t mdf_channel(mdf_buf *b, const mdf_cn *cn)
{
    uint64_t name_at = mdf_text(b, "TX", cn->name), unit_at = mdf_text(b, "TX", cn->unit);
    uint64_t comment_at = mdf_text(b, "TX", cn->comment);
    uint64_t at = mdf_block(b, "CN", 8, 72);
    mdf_link(b, at, 2, name_at);
    mdf_link(b, at, 6, unit_at);
    mdf_link(b, at, 7, comment_at);
    uint8_t *d = mdf_data(b, at, 8);
    if (d) {
        d[0] = cn->type;
        d[1] = cn->sync;
        d[2] = cn->dtype;
        d[3] = cn->bit_offset;
        le_put32(d + 4, cn->byte_offset);
        le_put32(d + 8, cn->bits);
        le_put32(d + 12, cn->flags);
        le_put32(d + 16, cn->inval_bit);
    }
    return at;
}

bool mdf_dz_begin(mdf_dz *z, FILE *f, uint64_t at, size_t record)
{
    *z = (mdf_dz){.f = f, .at = at, .record = record};
    z->per = MDF_DZ_BYTES / record ? MDF_DZ_BYTES / record : 1;
    z->rec = malloc(z->per * record);
    z->col = malloc(z->per * record);
    z->bound = compressBound((uLong)(z->per * record));
    z->z = malloc(48 + z->bound);
    z->ok = z->rec && z->col && z->z;
    return z->ok;
}

/* The records gathered as one DZ block. */
static bool dz_flush(mdf_dz *z)
{
    size_t count = z->used, record = z->record, bytes = count * record;
    if (!z->ok || count == 0)
        return z->ok;
    if (z->blocks == z->cap) {
        size_t cap = z->cap ? 2 * z->cap : 16;
        uint64_t *o = realloc(z->offsets, cap * sizeof *o);
        if (!o)
            return z->ok = false;
        z->offsets = o;
        z->cap = cap;
    }
    for (size_t i = 0; i < count; i++) /* transposed: byte j of every record together */
        for (size_t j = 0; j < record; j++)
            z->col[j * count + i] = z->rec[i * record + j];
    uLongf packed = z->bound;
    if (compress2(z->z + 48, &packed, count > 1 ? z->col : z->rec, (uLong)bytes, 6) != Z_OK)
        return z->ok = false;
    /* DZ: "DT", zip type (1 transposition + deflate, 0 deflate), a
     * reserved byte, the zip parameter (the columns: the record's
     * bytes), the original and the compressed lengths */
    uint64_t len = 48 + (uint64_t)packed;
    memset(z->z, 0, 48);
    memcpy(z->z, "##DZ", 4);
    le_put64(z->z + 8, len);
    memcpy(z->z + 24, "DT", 2);
    z->z[26] = count > 1;
    le_put32(z->z + 28, (uint32_t)record);
    le_put64(z->z + 32, bytes);
    le_put64(z->z + 40, packed);
    size_t pad = (size_t)(-len & 7); /* (blocks are 8-byte aligned) */
    static const uint8_t zeros[8];
    z->offsets[z->blocks++] = z->at;
    z->ok = fwrite(z->z, 1, (size_t)len, z->f) == len && fwrite(zeros, 1, pad, z->f) == pad;
    z->at += len + pad;
    z->used = 0;
    return z->ok;
}

uint8_t *mdf_dz_row(mdf_dz *z)
{
    if (z->used == z->per && !dz_flush(z))
        return NULL;
    return z->ok ? z->rec + z->record * z->used++ : NULL;
}

bool mdf_dz_end(mdf_dz *z, uint64_t *dl)
{
    bool ok = dz_flush(z);
    /* DL: links next DL and the DZ blocks; flags 0, 3 reserved bytes, the
     * count, each block's offset in the records' bytes (every block but the
     * last holds `per` records) */
    size_t blocks = z->blocks, links = 1 + blocks, data = 8 + 8 * blocks;
    uint64_t dl_len = 24 + 8 * links + data;
    uint8_t *d = ok ? calloc(1, (size_t)dl_len) : NULL;
    ok = ok && d;
    if (ok) {
        memcpy(d, "##DL", 4);
        le_put64(d + 8, dl_len);
        le_put64(d + 16, links);
        for (size_t k = 0; k < blocks; k++) {
            le_put64(d + 24 + 8 * (1 + k), z->offsets[k]);
            le_put64(d + 24 + 8 * links + 8 + 8 * k, (uint64_t)(k * z->per * z->record));
        }
        le_put32(d + 24 + 8 * links + 4, (uint32_t)blocks);
        ok = fwrite(d, 1, (size_t)dl_len, z->f) == dl_len;
        *dl = z->at;
    }
    free(d);
    free(z->rec);
    free(z->col);
    free(z->z);
    free(z->offsets);
    *z = (mdf_dz){0};
    return ok;
}

bool mdf_write_dz(FILE *f, uint64_t at, size_t rows, size_t record, mdf_fill_fn *fill,
                  void *context, uint64_t *dl)
{
    mdf_dz z;
    bool ok = mdf_dz_begin(&z, f, at, record);
    for (size_t first = 0; ok && first < rows; first += z.per) {
        size_t count = rows - first < z.per ? rows - first : z.per;
        fill(context, z.rec, first, count);
        z.used = count;
        ok = dz_flush(&z);
    }
    return mdf_dz_end(&z, dl) && ok;
}
