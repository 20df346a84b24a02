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

typedef struct fill_job {
    const rtcosim_csv *table;
    const stored *cols;
    size_t n, record;
} fill_job;

static void fill(void *context, uint8_t *rec, size_t first, size_t count)
{
    const fill_job *j = context;
    put_records(rec, j->table, j->cols, j->n, first, count, j->record);
}

static rtcosim_status write_file(const char *path, mdf_buf *b, uint64_t dg,
                                 const rtcosim_csv *table, const stored *cols, size_t n,
                                 size_t rows, size_t record, rtcosim_error *err)
{
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
        fill_job j = {table, cols, n, record};
        ok = ok && mdf_write_dz(f, b->len, rows, record, fill, &j, &dl);
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
