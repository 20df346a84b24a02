/* Results as an ASAM MDF 4.10 file (.mf4), the measurement format of
 * CANape, CANoe/CANalyzer, INCA, MDA and asammdf, from a results CSV
 * (`can decode -o`; the recorder writes its records as the run goes,
 * mdf_stream.c, with the blocks built here). The file is
 * finalized and sorted: one data group with one channel group, no record
 * ids, one record per row: the time master channel (a little-endian IEEE
 * double), then one channel per numeric column in its variable's type
 * (Boolean and Clock as uint8 0/1; integers signed or unsigned of their
 * width; Float32 as a single float; the rest as doubles), packed. An
 * integer column with an empty cell (a value the run could not get) or a
 * value its type cannot hold is written as doubles (NaN for the empty cell).
 *
 * Blocks (every block 8-byte aligned; a common header "##XX", 4 reserved
 * bytes, the block's length and its link count, both uint64, then the links
 * as uint64 file offsets, then its data):
 *   ID  64 bytes at 0, no header: "MDF     ", "4.10    ", the program,
 *       4 reserved bytes, the version 410 (uint16), 30 reserved bytes whose
 *       last 4 are the unfinalized flags (0: finalized)
 *   HD  links DG, FH, CH, AT, EV, MD; start time (ns since 1970 UTC, int16
 *       time zone and daylight saving minutes, time flags, time class,
 *       flags, a reserved byte), start angle and distance (doubles)
 *   FH  links next FH, MD; time (as HD's), 3 reserved bytes; its MD the
 *       XML <FHcomment> naming the tool
 *   DG  links next DG, CG, data, MD; record id size (uint8), 7 reserved
 *   CG  links next CG, CN, acquisition name, source, SR, MD; record id,
 *       cycle count (uint64), flags, path separator (uint16), 4 reserved,
 *       data bytes and invalidation bytes per record (uint32)
 *   CN  links next CN, composition, name (TX), source, conversion, data,
 *       unit, comment; channel type (2 master, 0 value), sync type (1 time),
 *       data type (0 unsigned, 2 signed integer, 4 IEEE float, all
 *       little-endian), bit offset (uint8), byte offset,
 *       bit count, flags, invalidation bit (uint32), precision, a reserved
 *       byte, attachment count (uint16), 6 doubles of ranges and limits
 *   TX  zero-terminated UTF-8, zero-padded to 8 bytes
 *   DT  the records (up to MDF_DT_MAX bytes of them), else
 *   DZ  blocks of them: "DT", zip type (1: transposed by the record's
 *       bytes, then deflated; 0 deflated), a reserved byte, the zip
 *       parameter (the record's bytes, uint32), original and compressed
 *       lengths (uint64), the deflate data
 *   DL  links next DL and the DZ blocks; flags (0), 3 reserved bytes, the
 *       count (uint32), each block's offset in the records' bytes
 * (Layout facts from the format's readers: asammdf's v4 block definitions;
 * the files read back with asammdf, src/results/README.md.) */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "result_csv.h"
#include "results/mdf_write_internal.h"
#include "rtcosim/log.h"
#include "rtcosim/results.h"
#include "util/le.h"

/* How a column is stored: MDF 4's data type and its bytes. */
typedef struct stored {
    size_t col; /* in the CSV */
    uint8_t dtype, bytes;
} stored;

/* Does a cell fit an integer column's type? (An empty cell, NaN, does
 * not.) A Float32 column's always does: its cells are the shortest text of
 * a float, which reads back to that float (an empty one to NaN). */
static bool cell_fits(double v, uint8_t dtype, uint8_t bytes)
{
    if (dtype == MDF_FLOAT)
        return true;
    double lo = dtype == MDF_SIGNED ? -ldexp(1, 8 * bytes - 1) : 0;
    double hi = dtype == MDF_SIGNED ? ldexp(1, 8 * bytes - 1) : ldexp(1, 8 * bytes);
    return v >= lo && v < hi && v == floor(v);
}

void mdf_warn_text_left_out(const char *path, const char *name)
{
    rtcosim_log(RTCOSIM_LOG_WARNING, "results",
                "%s: '%s' is not written: the MDF file holds numeric channels only (a .csv "
                "results file keeps String and Binary values)", path, name);
}

void mdf_storage_of(int type, uint8_t *dtype, uint8_t *bytes)
{
    *dtype = MDF_FLOAT, *bytes = 8;
    switch (type) {
    case RTCOSIM_TYPE_FLOAT32: *bytes = 4; break;
    case RTCOSIM_TYPE_BOOLEAN:
    case RTCOSIM_TYPE_CLOCK:
    case RTCOSIM_TYPE_UINT8: *dtype = MDF_UNSIGNED, *bytes = 1; break;
    case RTCOSIM_TYPE_UINT16: *dtype = MDF_UNSIGNED, *bytes = 2; break;
    case RTCOSIM_TYPE_UINT32: *dtype = MDF_UNSIGNED, *bytes = 4; break;
    case RTCOSIM_TYPE_UINT64: *dtype = MDF_UNSIGNED, *bytes = 8; break;
    case RTCOSIM_TYPE_INT8: *dtype = MDF_SIGNED, *bytes = 1; break;
    case RTCOSIM_TYPE_INT16: *dtype = MDF_SIGNED, *bytes = 2; break;
    case RTCOSIM_TYPE_INT32: *dtype = MDF_SIGNED, *bytes = 4; break;
    case RTCOSIM_TYPE_INT64: *dtype = MDF_SIGNED, *bytes = 8; break;
    default: break;
    }
}

/* The column's storage by its variable's type (meta may be NULL: double);
 * an integer column whose cells do not all fit is written as doubles (the
 * first pass over the rows says so). */
static stored storage(size_t col, const rtcosim_column *meta)
{
    stored s = {.col = col};
    mdf_storage_of(meta ? (int)meta->type : RTCOSIM_TYPE_FLOAT64, &s.dtype, &s.bytes);
    return s;
}

void mdf_results_metadata(mdf_buf *b, const mdf_column *cols, size_t n, uint64_t rows,
                          uint32_t inval_bytes, int64_t start_ns, uint64_t *dg_at,
                          uint64_t *cg_at)
{
    mdf_identification(b);
    uint64_t hd = mdf_header(b, start_ns, "results of an rtcosim run");
    uint64_t dg = mdf_block(b, "DG", 4, 8);
    uint64_t cg = mdf_block(b, "CG", 6, 32);
    mdf_cn time = {.name = "time", .unit = "s", .comment = "simulated time", .type = 2, .sync = 1,
                   .dtype = MDF_FLOAT, .bits = 64}; /* the master channel: time */
    uint64_t prev = mdf_channel(b, &time);
    mdf_link(b, cg, 1, prev);
    uint32_t offset = 8;
    for (size_t i = 0; i < n; i++) {
        const mdf_column *c = &cols[i];
        mdf_cn cn = {.name = c->name, .unit = c->unit, .comment = c->comment,
                     .dtype = c->dtype, .byte_offset = offset, .bits = 8u * c->bytes,
                     .flags = c->inval_bit >= 0 ? 2 : 0,
                     .inval_bit = c->inval_bit >= 0 ? (uint32_t)c->inval_bit : 0};
        uint64_t at = mdf_channel(b, &cn);
        offset += c->bytes;
        mdf_link(b, prev, 0, at);
        prev = at;
    }
    uint8_t *d = mdf_data(b, cg, 6);
    if (d) {
        le_put64(d + 8, rows);            /* cycle count */
        le_put32(d + 24, offset);         /* data bytes per record */
        le_put32(d + 28, inval_bytes);    /* invalidation bytes per record */
    }
    mdf_link(b, hd, 0, dg);
    mdf_link(b, dg, 1, cg);
    *dg_at = dg;
    *cg_at = cg;
}

/* The metadata blocks of a file of `n` numeric columns (cols: their CSV
 * columns and storage) and `rows` records; *dg_at the DG block (its data
 * link is set once the DT block's place is known). */
static void metadata(mdf_buf *b, char *const *names, const rtcosim_column *columns,
                     size_t column_count, const stored *cols, size_t n, size_t rows,
                     int64_t start_ns, uint64_t *dg_at)
{
    mdf_column *out = calloc(n ? n : 1, sizeof *out);
    if (!out) {
        b->failed = true;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const char *name = names[cols[i].col];
        const rtcosim_column *meta = result_csv_meta(columns, column_count, name);
        out[i] = (mdf_column){.name = name, .unit = meta ? meta->unit : NULL,
                              .comment = meta ? meta->description : NULL,
                              .dtype = cols[i].dtype, .bytes = cols[i].bytes, .inval_bit = -1};
    }
    uint64_t cg;
    mdf_results_metadata(b, out, n, rows, 0, start_ns, dg_at, &cg);
    free(out);
}

/* v in little-endian bytes of its storage at p. */
static void put_value(uint8_t *p, const stored *s, double v)
{
    uint64_t bits;
    if (s->dtype == MDF_FLOAT && s->bytes == 4) {
        float f = (float)v;
        uint32_t w;
        memcpy(&w, &f, sizeof w);
        bits = w;
    } else if (s->dtype == MDF_FLOAT) {
        memcpy(&bits, &v, sizeof bits);
    } else if (s->dtype == MDF_SIGNED) {
        bits = (uint64_t)(int64_t)v;
    } else {
        bits = (uint64_t)v;
    }
    for (uint8_t k = 0; k < s->bytes; k++)
        p[k] = (uint8_t)(bits >> (8 * k));
}

/* The second pass: the stream's next `count` rows as records at rec; a
 * row that went wrong is noted (the first error kept) and written as NaN. */
typedef struct fill_job {
    result_csv_stream *in;
    const stored *cols;
    size_t n, record, ncsv;
    rtcosim_error *err;
    bool failed;
} fill_job;

static void put_row(fill_job *j, uint8_t *rec)
{
    result_csv_stream *in = j->in;
    rtcosim_time_ns t = 0;
    int got = j->failed ? 0 : result_csv_row(in, j->err);
    if (got != 1 || in->nfields != j->ncsv + 1 || !result_csv_time(in->fields[0], &t)) {
        if (!j->failed && got == 1)
            rtcosim_error_set(j->err, RTCOSIM_EFORMAT, "%s:%zu: the row changed between the "
                              "passes", in->path, in->lineno);
        else if (!j->failed && got == 0)
            rtcosim_error_set(j->err, RTCOSIM_EFORMAT, "%s: rows missing in the second pass",
                              in->path);
        j->failed = true;
        memset(rec, 0, j->record);
        return;
    }
    double seconds = (double)t / 1e9;
    uint64_t bits;
    memcpy(&bits, &seconds, sizeof bits);
    le_put64(rec, bits);
    for (size_t i = 0, offset = 8; i < j->n; offset += j->cols[i].bytes, i++)
        put_value(rec + offset, &j->cols[i], result_csv_number(in->fields[1 + j->cols[i].col]));
}

static void fill(void *context, uint8_t *rec, size_t first, size_t count)
{
    fill_job *j = context;
    (void)first; /* (the rows come in order) */
    for (size_t r = 0; r < count; r++, rec += j->record)
        put_row(j, rec);
}

static rtcosim_status write_file(const char *path, mdf_buf *b, uint64_t dg, fill_job *j,
                                 size_t rows, rtcosim_error *err)
{
    size_t record = j->record;
    bool compressed = (uint64_t)rows * record > MDF_DT_MAX;
    if (!compressed)
        mdf_link(b, dg, 2, b->len); /* the DT block follows the metadata */
    FILE *f = fopen(path, "wb");
    if (!f)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot create the MDF file: %s", path,
                                 strerror(errno));
    bool ok = fwrite(b->p, 1, b->len, f) == b->len;
    if (compressed) {
        uint64_t dl = 0;
        uint8_t link[8];
        ok = ok && mdf_write_dz(f, b->len, rows, record, fill, j, &dl);
        le_put64(link, dl); /* the DG's data link, now that the DL's place is known */
        ok = ok && fseek(f, (long)(dg + 24 + 8 * 2), SEEK_SET) == 0 &&
             fwrite(link, 1, sizeof link, f) == sizeof link;
    } else {
        uint8_t dt[24] = {'#', '#', 'D', 'T'};
        le_put64(dt + 8, 24 + (uint64_t)rows * record);
        ok = ok && fwrite(dt, 1, sizeof dt, f) == sizeof dt;
        uint8_t *rec = malloc(record);
        ok = ok && rec;
        for (size_t r = 0; ok && r < rows; r++) {
            put_row(j, rec);
            ok = fwrite(rec, 1, record, f) == record;
        }
        free(rec);
    }
    int saved = errno;
    if (fclose(f) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (j->failed)
        return err->status;
    if (!ok)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: writing the MDF file failed: %s", path,
                                 strerror(saved ? saved : EIO));
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_results_csv_to_mdf(const char *csv_path, const char *mdf_path,
                                          const rtcosim_column *columns, size_t column_count,
                                          int64_t start_ns, rtcosim_error *err)
{
    result_csv_stream in = {.f = fopen(csv_path, "rb"), .path = csv_path};
    if (!in.f)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot open: %s", csv_path,
                                 strerror(errno));
    rtcosim_status st = RTCOSIM_OK;
    char **names = NULL;
    stored *cols = NULL;
    size_t ncsv = 0, n = 0, rows = 0, record = 8;
    mdf_buf b = {0};
    int got = result_csv_row(&in, err);
    if (got == 0)
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: no header row", csv_path);
    else if (got < 0)
        st = err->status;
    if (st == RTCOSIM_OK) {
        ncsv = in.nfields - 1; /* (after the time) */
        names = calloc(ncsv + 1, sizeof *names);
        cols = calloc(ncsv + 1, sizeof *cols);
        if (!names || !cols)
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory writing the MDF "
                                   "file", mdf_path);
    }
    for (size_t c = 0; st == RTCOSIM_OK && c < ncsv; c++) {
        if (!(names[c] = strdup(in.fields[1 + c]))) {
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", mdf_path);
            break;
        }
        const rtcosim_column *meta = result_csv_meta(columns, column_count, names[c]);
        if (result_csv_is_text(meta)) {
            mdf_warn_text_left_out(mdf_path, names[c]);
            continue;
        }
        cols[n++] = storage(c, meta);
    }
    /* first pass: the rows, and which integer columns hold what their type
     * cannot (written as doubles then) */
    while (st == RTCOSIM_OK && (got = result_csv_row(&in, err)) == 1) {
        rtcosim_time_ns t;
        if (in.nfields != ncsv + 1)
            st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s:%zu: %zu fields, expected %zu",
                                   csv_path, in.lineno, in.nfields, ncsv + 1);
        else if (!result_csv_time(in.fields[0], &t))
            st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s:%zu: time '%.40s' is not a time "
                                   "in seconds", csv_path, in.lineno, in.fields[0]);
        for (size_t i = 0; st == RTCOSIM_OK && i < n; i++)
            if (cols[i].dtype != MDF_FLOAT &&
                !cell_fits(result_csv_number(in.fields[1 + cols[i].col]), cols[i].dtype,
                           cols[i].bytes))
                cols[i].dtype = MDF_FLOAT, cols[i].bytes = 8;
        rows++;
    }
    if (st == RTCOSIM_OK && got < 0)
        st = err->status;
    for (size_t i = 0; i < n; i++)
        record += cols[i].bytes;
    if (st == RTCOSIM_OK) {
        uint64_t dg = 0;
        metadata(&b, names, columns, column_count, cols, n, rows,
                 start_ns ? start_ns : mdf_now_ns(), &dg);
        /* second pass: the records */
        rewind(in.f);
        in.lineno = 0;
        fill_job j = {&in, cols, n, record, ncsv, err, false};
        if (b.failed)
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory writing the MDF file",
                                   mdf_path);
        else if (result_csv_row(&in, err) != 1) /* (the header again) */
            st = rtcosim_error_set(err, RTCOSIM_EIO, "%s: the header changed between the passes",
                                   csv_path);
        else
            st = write_file(mdf_path, &b, dg, &j, rows, err);
    }
    free(b.p);
    free(cols);
    for (size_t c = 0; names && c < ncsv; c++)
        free(names[c]);
    free(names);
    result_csv_stream_close(&in);
    return st;
}
