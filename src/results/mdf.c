/* Results as an ASAM MDF 4.10 file (.mf4), the measurement format of
 * CANape, CANoe/CANalyzer, INCA, MDA and asammdf. As for MAT files the
 * recorder streams CSV and the CSV is read back at close (shortest
 * round-trip text: the values are the run's bit for bit). The file is
 * finalized and sorted: one data group with one channel group, no record
 * ids, one record per row of little-endian IEEE doubles: the time master
 * channel, then one channel per numeric column.
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
 *       data type (4: IEEE little-endian), bit offset (uint8), byte offset,
 *       bit count, flags, invalidation bit (uint32), precision, a reserved
 *       byte, attachment count (uint16), 6 doubles of ranges and limits
 *   TX  zero-terminated UTF-8, zero-padded to 8 bytes
 *   DT  the records
 * (Layout facts from the format's readers: asammdf's v4 block definitions;
 * the files read back with asammdf, src/results/README.md.) */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "result_csv.h"
#include "rtcosim/log.h"
#include "rtcosim/results.h"
#include "util/le.h"

#ifndef RTCOSIM_VERSION_TEXT
#define RTCOSIM_VERSION_TEXT "0"
#endif

typedef struct mdf_buf {
    uint8_t *p;
    size_t len, cap;
    bool failed;
} mdf_buf;

static uint8_t *grow(mdf_buf *b, size_t n)
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

/* A block of `data` data bytes after `links` links: its offset (its data
 * at offset + 24 + 8 * links), or 0 out of memory. */
static uint64_t block(mdf_buf *b, const char id[3], size_t links, size_t data)
{
    size_t size = 24 + 8 * links + data, at = b->len;
    uint8_t *p = grow(b, size);
    if (!p)
        return 0;
    p[0] = '#', p[1] = '#', p[2] = (uint8_t)id[0], p[3] = (uint8_t)id[1];
    le_put64(p + 8, size);
    le_put64(p + 16, links);
    return at;
}

static void link_to(mdf_buf *b, uint64_t block_at, size_t link, uint64_t target)
{
    if (!b->failed)
        le_put64(b->p + block_at + 24 + 8 * link, target);
}

static uint8_t *data_of(mdf_buf *b, uint64_t block_at, size_t links)
{
    return b->failed ? NULL : b->p + block_at + 24 + 8 * links;
}

/* A TX (or MD) block holding text: its offset, 0 for no text. */
static uint64_t text_block(mdf_buf *b, const char *id, const char *text)
{
    if (!text || !*text)
        return 0;
    size_t n = strlen(text) + 1;
    uint64_t at = block(b, id, 0, (n + 7) / 8 * 8);
    uint8_t *d = data_of(b, at, 0);
    if (d)
        memcpy(d, text, n);
    return at;
}

/* A channel of 64-bit IEEE little-endian values at byte `offset` of the
 * record: its CN block's offset. */
static uint64_t channel(mdf_buf *b, const char *name, const char *unit, const char *comment,
                        bool master, uint32_t offset)
{
    uint64_t name_at = text_block(b, "TX", name), unit_at = text_block(b, "TX", unit);
    uint64_t comment_at = text_block(b, "TX", comment);
    uint64_t at = block(b, "CN", 8, 72);
    link_to(b, at, 2, name_at);
    link_to(b, at, 6, unit_at);
    link_to(b, at, 7, comment_at);
    uint8_t *d = data_of(b, at, 8);
    if (d) {
        d[0] = master ? 2 : 0; /* channel type: master or value */
        d[1] = master ? 1 : 0; /* sync type: time */
        d[2] = 4;              /* IEEE 754 little-endian */
        le_put32(d + 4, offset);
        le_put32(d + 8, 64);
    }
    return at;
}

/* HD's and FH's time stamp: ns since 1970 UTC, offsets 0, flags 0 (UTC). */
static void time_stamp(uint8_t *d, int64_t ns)
{
    if (d)
        le_put64(d, (uint64_t)ns);
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The metadata blocks of a file of `n` numeric columns (cols: their CSV
 * columns) and `rows` records; *dg_at the DG block (its data link is set
 * once the DT block's place is known). */
static void metadata(mdf_buf *b, const rtcosim_csv *table, const rtcosim_column *columns,
                     size_t column_count, const size_t *cols, size_t n, size_t rows,
                     int64_t start_ns, uint64_t *dg_at)
{
    uint8_t *id = grow(b, 64);
    if (id) {
        memcpy(id, "MDF     4.10    rtcosim ", 24);
        le_put16(id + 28, 410);
    }
    uint64_t hd = block(b, "HD", 6, 32);
    time_stamp(data_of(b, hd, 6), start_ns);
    char fh_text[256];
    snprintf(fh_text, sizeof fh_text,
             "<FHcomment><TX>results of an rtcosim run</TX><tool_id>rtcosim</tool_id>"
             "<tool_vendor>rtcosim</tool_vendor><tool_version>%s</tool_version></FHcomment>",
             RTCOSIM_VERSION_TEXT);
    uint64_t fh_md = text_block(b, "MD", fh_text);
    uint64_t fh = block(b, "FH", 2, 16);
    link_to(b, fh, 1, fh_md);
    time_stamp(data_of(b, fh, 2), now_ns());
    uint64_t dg = block(b, "DG", 4, 8);
    uint64_t cg = block(b, "CG", 6, 32);
    uint8_t *d = data_of(b, cg, 6);
    if (d) {
        le_put64(d + 8, rows);                          /* cycle count */
        le_put32(d + 24, (uint32_t)(8 * (n + 1)));      /* data bytes per record */
    }
    uint64_t prev = channel(b, "time", "s", "simulated time", true, 0);
    link_to(b, cg, 1, prev);
    for (size_t i = 0; i < n; i++) {
        const char *name = rtcosim_csv_column_name(table, cols[i]);
        const rtcosim_column *meta = result_csv_meta(columns, column_count, name);
        uint64_t cn = channel(b, name, meta ? meta->unit : NULL, meta ? meta->description : NULL,
                              false, (uint32_t)(8 * (i + 1)));
        link_to(b, prev, 0, cn);
        prev = cn;
    }
    link_to(b, hd, 0, dg);
    link_to(b, hd, 1, fh);
    link_to(b, dg, 1, cg);
    *dg_at = dg;
}

static rtcosim_status write_file(const char *path, mdf_buf *b, uint64_t dg,
                                 const rtcosim_csv *table, const size_t *cols, size_t n,
                                 size_t rows, rtcosim_error *err)
{
    size_t record = 8 * (n + 1);
    link_to(b, dg, 2, b->len); /* the DT block follows the metadata */
    uint8_t dt[24] = {'#', '#', 'D', 'T'};
    le_put64(dt + 8, 24 + (uint64_t)rows * record);
    FILE *f = fopen(path, "wb");
    if (!f)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot create the MDF file: %s", path,
                                 strerror(errno));
    bool ok = fwrite(b->p, 1, b->len, f) == b->len && fwrite(dt, 1, sizeof dt, f) == sizeof dt;
    uint8_t *rec = malloc(record);
    ok = ok && rec;
    for (size_t r = 0; ok && r < rows; r++) {
        double t = (double)rtcosim_csv_time(table, r) / 1e9;
        uint64_t bits;
        memcpy(&bits, &t, sizeof bits);
        le_put64(rec, bits);
        for (size_t i = 0; i < n; i++) {
            double v = result_csv_cell(table, r, cols[i]);
            memcpy(&bits, &v, sizeof bits);
            le_put64(rec + 8 * (i + 1), bits);
        }
        ok = fwrite(rec, 1, record, f) == record;
    }
    free(rec);
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
    size_t *cols = calloc(ncsv + 1, sizeof *cols);
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
            cols[n++] = c;
        }
        uint64_t dg = 0;
        metadata(&b, table, columns, column_count, cols, n, rows,
                 start_ns ? start_ns : now_ns(), &dg);
        st = b.failed ? rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory writing the MDF"
                                          " file", mdf_path)
                      : write_file(mdf_path, &b, dg, table, cols, n, rows, err);
    } else {
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory writing the MDF file",
                               mdf_path);
    }
    free(b.p);
    free(cols);
    rtcosim_csv_free(table);
    return st;
}
