/* Results as an ASAM MDF 4.10 file (.mf4), the measurement format of
 * CANape, CANoe/CANalyzer, INCA, MDA and asammdf. As for MAT files the
 * recorder streams CSV and the CSV is read back at close (shortest
 * round-trip text: the values are the run's bit for bit). The file is
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
 *   DT  the records (up to DT_MAX bytes of them), else
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
#include <zlib.h>

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

/* A channel of `bytes` little-endian values of data type dtype at byte
 * `offset` of the record: its CN block's offset. */
static uint64_t channel(mdf_buf *b, const char *name, const char *unit, const char *comment,
                        bool master, uint32_t offset, uint8_t dtype, uint8_t bytes)
{
    const mdf_cn cn = {.name = name, .unit = unit, .comment = comment,
                       .type = master ? 2 : 0, /* channel type: master or value */
                       .sync = master ? 1 : 0, /* sync type: time */
                       .dtype = dtype, .byte_offset = offset, .bits = 8u * bytes};
    return mdf_channel(b, &cn);
}

/* Does every cell of an integer column fit its type? (An empty cell, NaN,
 * does not.) A Float32 column always does: its cells are the shortest text
 * of a float, which reads back to that float (an empty one to NaN). */
static bool column_fits(const rtcosim_csv *table, size_t col, size_t rows, uint8_t dtype,
                        uint8_t bytes)
{
    if (dtype == MDF_FLOAT)
        return true;
    double lo = dtype == MDF_SIGNED ? -ldexp(1, 8 * bytes - 1) : 0;
    double hi = dtype == MDF_SIGNED ? ldexp(1, 8 * bytes - 1) : ldexp(1, 8 * bytes);
    for (size_t r = 0; r < rows; r++) {
        double v = result_csv_cell(table, r, col);
        if (!(v >= lo && v < hi && v == floor(v)))
            return false;
    }
    return true;
}

/* The column's storage by its variable's type (meta may be NULL: double). */
static stored storage(const rtcosim_csv *table, size_t col, size_t rows,
                      const rtcosim_column *meta)
{
    stored s = {col, MDF_FLOAT, 8};
    switch (meta ? meta->type : RTCOSIM_TYPE_FLOAT64) {
    case RTCOSIM_TYPE_FLOAT32: s.bytes = 4; break;
    case RTCOSIM_TYPE_BOOLEAN:
    case RTCOSIM_TYPE_CLOCK:
    case RTCOSIM_TYPE_UINT8: s.dtype = MDF_UNSIGNED, s.bytes = 1; break;
    case RTCOSIM_TYPE_UINT16: s.dtype = MDF_UNSIGNED, s.bytes = 2; break;
    case RTCOSIM_TYPE_UINT32: s.dtype = MDF_UNSIGNED, s.bytes = 4; break;
    case RTCOSIM_TYPE_UINT64: s.dtype = MDF_UNSIGNED, s.bytes = 8; break;
    case RTCOSIM_TYPE_INT8: s.dtype = MDF_SIGNED, s.bytes = 1; break;
    case RTCOSIM_TYPE_INT16: s.dtype = MDF_SIGNED, s.bytes = 2; break;
    case RTCOSIM_TYPE_INT32: s.dtype = MDF_SIGNED, s.bytes = 4; break;
    case RTCOSIM_TYPE_INT64: s.dtype = MDF_SIGNED, s.bytes = 8; break;
    default: return s;
    }
    if (!column_fits(table, col, rows, s.dtype, s.bytes))
        s.dtype = MDF_FLOAT, s.bytes = 8;
    return s;
}

/* The metadata blocks of a file of `n` numeric columns (cols: their CSV
 * columns and storage) and `rows` records of `record` bytes; *dg_at the DG
 * block (its data link is set once the DT block's place is known). */
static void metadata(mdf_buf *b, const rtcosim_csv *table, const rtcosim_column *columns,
                     size_t column_count, const stored *cols, size_t n, size_t rows,
                     size_t record, int64_t start_ns, uint64_t *dg_at)
{
    mdf_identification(b);
    uint64_t hd = mdf_header(b, start_ns, "results of an rtcosim run");
    uint64_t dg = mdf_block(b, "DG", 4, 8);
    uint64_t cg = mdf_block(b, "CG", 6, 32);
    uint8_t *d = mdf_data(b, cg, 6);
    if (d) {
        le_put64(d + 8, rows);                          /* cycle count */
        le_put32(d + 24, (uint32_t)record);             /* data bytes per record */
    }
    uint64_t prev = channel(b, "time", "s", "simulated time", true, 0, MDF_FLOAT, 8);
    mdf_link(b, cg, 1, prev);
    size_t offset = 8;
    for (size_t i = 0; i < n; i++) {
        const char *name = rtcosim_csv_column_name(table, cols[i].col);
        const rtcosim_column *meta = result_csv_meta(columns, column_count, name);
        uint64_t cn = channel(b, name, meta ? meta->unit : NULL, meta ? meta->description : NULL,
                              false, (uint32_t)offset, cols[i].dtype, cols[i].bytes);
        offset += cols[i].bytes;
        mdf_link(b, prev, 0, cn);
        prev = cn;
    }
    mdf_link(b, hd, 0, dg);
    mdf_link(b, dg, 1, cg);
    *dg_at = dg;
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

/* The records of rows [first, first + count) into rec (count records). */
static void put_records(uint8_t *rec, const rtcosim_csv *table, const stored *cols, size_t n,
                        size_t first, size_t count, size_t record)
{
    for (size_t r = 0; r < count; r++, rec += record) {
        double t = (double)rtcosim_csv_time(table, first + r) / 1e9;
        uint64_t bits;
        memcpy(&bits, &t, sizeof bits);
        le_put64(rec, bits);
        for (size_t i = 0, offset = 8; i < n; offset += cols[i].bytes, i++)
            put_value(rec + offset, &cols[i], result_csv_cell(table, first + r, cols[i].col));
    }
}

/* Data up to this size goes into one DT block; more into DZ blocks of about
 * DZ_BYTES of records each (whole records), transposed (a column of each
 * byte of the record: a slowly changing signal's bytes repeat) and
 * deflated, listed by a DL block: what long runs write shrinks several-fold,
 * and every MDF 4.1 reader takes it. */
enum { DT_MAX = 1 << 20, DZ_BYTES = 4 << 20 };

/* The DZ blocks of the records, then the DL listing them, at the file's
 * end (f positioned at `at`): the DL's offset in *dl, 0 when writing
 * failed. */
static bool write_compressed(FILE *f, uint64_t at, const rtcosim_csv *table, const stored *cols,
                             size_t n, size_t rows, size_t record, uint64_t *dl)
{
    size_t per = DZ_BYTES / record ? DZ_BYTES / record : 1, blocks = (rows + per - 1) / per;
    uint8_t *rec = malloc(per * record), *col = malloc(per * record);
    uLongf bound = compressBound((uLong)(per * record));
    uint8_t *z = malloc(48 + bound);
    uint64_t *offsets = malloc((blocks + 1) * sizeof *offsets);
    bool ok = rec && col && z && offsets;
    for (size_t k = 0; ok && k < blocks; k++) {
        size_t first = k * per, count = rows - first < per ? rows - first : per;
        size_t bytes = count * record;
        put_records(rec, table, cols, n, first, count, record);
        for (size_t i = 0; i < count; i++) /* transposed: byte j of every record together */
            for (size_t j = 0; j < record; j++)
                col[j * count + i] = rec[i * record + j];
        uLongf packed = bound;
        ok = compress2(z + 48, &packed, count > 1 ? col : rec, (uLong)bytes, 6) == Z_OK;
        if (!ok)
            break;
        uint64_t len = 48 + (uint64_t)packed;
        memset(z, 0, 48);
        memcpy(z, "##DZ", 4);
        le_put64(z + 8, len);
        memcpy(z + 24, "DT", 2);
        z[26] = count > 1; /* zip type: 1 transposition + deflate, 0 deflate */
        le_put32(z + 28, (uint32_t)record);
        le_put64(z + 32, bytes);
        le_put64(z + 40, packed);
        size_t pad = (size_t)(-len & 7); /* (blocks 8-byte aligned) */
        static const uint8_t zeros[8];
        offsets[k] = at;
        ok = fwrite(z, 1, (size_t)len, f) == len && fwrite(zeros, 1, pad, f) == pad;
        at += len + pad;
    }
    /* DL: links next DL and the DZ blocks; flags 0, 3 reserved bytes, the
     * count, each block's offset in the records' bytes */
    size_t links = 1 + blocks, data = 8 + 8 * blocks;
    uint64_t dl_len = 24 + 8 * links + data;
    uint8_t *d = ok ? calloc(1, (size_t)dl_len) : NULL;
    ok = ok && d;
    if (ok) {
        memcpy(d, "##DL", 4);
        le_put64(d + 8, dl_len);
        le_put64(d + 16, links);
        for (size_t k = 0; k < blocks; k++) {
            le_put64(d + 24 + 8 * (1 + k), offsets[k]);
            le_put64(d + 24 + 8 * links + 8 + 8 * k, (uint64_t)(k * per * record));
        }
        le_put32(d + 24 + 8 * links + 4, (uint32_t)blocks);
        ok = fwrite(d, 1, (size_t)dl_len, f) == dl_len;
        *dl = at;
    }
    free(d);
    free(rec);
    free(col);
    free(z);
    free(offsets);
    return ok;
}

static rtcosim_status write_file(const char *path, mdf_buf *b, uint64_t dg,
                                 const rtcosim_csv *table, const stored *cols, size_t n,
                                 size_t rows, size_t record, rtcosim_error *err)
{
    bool compressed = (uint64_t)rows * record > DT_MAX;
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
        ok = ok && write_compressed(f, b->len, table, cols, n, rows, record, &dl);
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
            put_records(rec, table, cols, n, r, 1, record);
            ok = fwrite(rec, 1, record, f) == record;
        }
        free(rec);
    }
    int saved = errno;
    if (fclose(f) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (!ok)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: writing the MDF file failed: %s", path,
                                 strerror(saved ? saved : EIO));
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_results_csv_to_mdf(const char *csv_path, const char *mdf_path,
                                          const rtcosim_column *columns, size_t column_count,
                                          int64_t start_ns, rtcosim_error *err)
{
    rtcosim_csv *table = NULL;
    rtcosim_status st = result_csv_read(csv_path, &table, err);
    if (st != RTCOSIM_OK)
        return st;
    size_t ncsv = rtcosim_csv_column_count(table), rows = rtcosim_csv_row_count(table), n = 0;
    stored *cols = calloc(ncsv + 1, sizeof *cols);
    size_t record = 8;
    mdf_buf b = {0};
    if (cols) {
        for (size_t c = 0; c < ncsv; c++) {
            const char *cname = rtcosim_csv_column_name(table, c);
            if (result_csv_is_text(result_csv_meta(columns, column_count, cname))) {
                rtcosim_log(RTCOSIM_LOG_WARNING, "results",
                            "%s: '%s' is not written: the MDF file holds numeric channels only "
                            "(a .csv results file keeps String and Binary values)",
                            mdf_path, cname);
                continue;
            }
            cols[n] = storage(table, c, rows, result_csv_meta(columns, column_count, cname));
            record += cols[n++].bytes;
        }
        uint64_t dg = 0;
        metadata(&b, table, columns, column_count, cols, n, rows, record,
                 start_ns ? start_ns : mdf_now_ns(), &dg);
        st = b.failed ? rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory writing the MDF"
                                          " file", mdf_path)
                      : write_file(mdf_path, &b, dg, table, cols, n, rows, record, err);
    } else {
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory writing the MDF file",
                               mdf_path);
    }
    free(b.p);
    free(cols);
    rtcosim_csv_free(table);
    return st;
}
