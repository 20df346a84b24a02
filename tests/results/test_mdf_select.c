/* The selected read of MDF measurements (result_table_read_mdf_select)
 * against the whole read (result_table_read_mdf) and against the formulas a
 * file was made from. Driven by test_mdf_select.py, which builds the files:
 *   test_mdf_select same FILE...    every channel alone, random subsets and
 *       all of them by name read selected give the whole read's columns
 *       (names, units, own samples bit for bit, NaN as NaN; rows a subset
 *       of the whole read's times, values held there the same), and
 *       streamed (result_mdf_stream_select, as `convert` reads) give the
 *       selected table bit for bit where that is one group's records as
 *       they are, else the table is a union of groups' times
 *   test_mdf_select broken FILE NAME  the whole read and the read of NAME
 *       both fail with the same one line naming the file
 *   test_mdf_select big DIR         a measurement of ~200 channels in three
 *       channel groups at 1 kHz, 100 Hz and 50 Hz (many DT and transposed DZ
 *       blocks behind a DL list; an unsorted data group of DZ blocks with
 *       invalidation bits) written into DIR: two channels read selected
 *       take little memory past the file, the whole read much more
 *       (getrusage of a child each), both give the formulas' values
 *   test_mdf_select read FILE [NAME...]  reads it (the names only) and says
 *       its shape: to measure the reader (src/results/README.md). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "results/result_table.h"
#include "table_match.h" /* (beside this file) */
#include "rtcosim/log.h"

static int failures;
static size_t streamed; /* selections a stream gave (the rest: tables) */

#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                               \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                               \
            failures++;                                                                        \
            return;                                                                            \
        }                                                                                      \
    } while (0)

/* The selected table s against the whole table w with only sel kept. */
static void compare(const char *path, const result_table *w, const result_table *s, bool all)
{
    CHECK(s->column_count == w->column_count, "%s: %zu columns, the whole read keeps %zu", path,
          s->column_count, w->column_count);
    CHECK((!s->first_name && !w->first_name) ||
              (s->first_name && w->first_name && strcmp(s->first_name, w->first_name) == 0),
          "%s: time named otherwise", path);
    if (all) { /* every group read: the very same table */
        CHECK(s->rows == w->rows, "%s: %zu rows, whole %zu", path, s->rows, w->rows);
        for (size_t r = 0; r < s->rows; r++)
            CHECK(table_same_value(s->time[r], w->time[r]), "%s: time %zu", path, r);
    }
    for (size_t r = 0; r < s->rows; r++)
        CHECK(table_row_at(w, s->time[r]) >= 0, "%s: time %.17g not the whole read's", path, s->time[r]);
    for (size_t c = 0; c < s->column_count; c++) {
        const result_column *a = &s->columns[c], *b = &w->columns[c];
        CHECK(strcmp(a->name, b->name) == 0, "%s: column %zu %s, whole %s", path, c, a->name,
              b->name);
        CHECK((!a->unit && !b->unit) || (a->unit && b->unit && strcmp(a->unit, b->unit) == 0),
              "%s: %s: unit", path, a->name);
        /* its own samples: own_time, else the rows */
        size_t an = a->own_time ? a->own_rows : s->rows, bn = b->own_time ? b->own_rows : w->rows;
        const double *at = a->own_time ? a->own_time : s->time,
                     *av = a->own_time ? a->own_values : a->values,
                     *bt = b->own_time ? b->own_time : w->time,
                     *bv = b->own_time ? b->own_values : b->values;
        CHECK(an == bn, "%s: %s: %zu own samples, whole %zu", path, a->name, an, bn);
        for (size_t k = 0; k < an; k++)
            CHECK(table_same_value(at[k], bt[k]) && table_same_value(av[k], bv[k]), "%s: %s: sample %zu: %.17g %.17g,"
                  " whole %.17g %.17g", path, a->name, k, at[k], av[k], bt[k], bv[k]);
        /* held on the union of times: the value at a time is the whole's */
        for (size_t r = 0; (all || (a->own_time && b->own_time)) && r < s->rows; r++) {
            ptrdiff_t x = all ? (ptrdiff_t)r : table_row_at(w, s->time[r]);
            CHECK(table_same_value(a->values[r], b->values[x]), "%s: %s: row %zu: %.17g, whole %.17g", path,
                  a->name, r, a->values[r], b->values[x]);
        }
    }
}

static void read_selected(const char *path, const result_table *whole, const char **names,
                          size_t n, bool all)
{
    result_table *w = NULL, *s = NULL;
    rtcosim_error err;
    result_select sel = {names, n};
    rtcosim_status st = result_table_read_mdf_select(path, &sel, &s, &err);
    CHECK(st == RTCOSIM_OK, "%s: selected read failed: %s", path, err.message);
    /* the whole read again, keeping the same (the table is taken apart) */
    st = result_table_read_mdf(path, &w, &err);
    if (st == RTCOSIM_OK) {
        result_table_keep(w, &sel);
        compare(path, w, s, all);
    }
    /* the same selection handed over a record at a time (convert's way):
     * s itself when one group's rows are it */
    table_gather g = {0};
    result_row_sink sink = {&g, table_gather_columns, table_gather_row};
    result_stream_outcome outcome;
    st = result_mdf_stream_select(path, &sel, &sink, &outcome, &err);
    const char *why = st == RTCOSIM_OK ? table_stream_mismatch(&g, outcome, s) : err.message;
    streamed += st == RTCOSIM_OK && outcome == RESULT_STREAMED;
    result_table_free(g.t);
    (void)whole;
    result_table_free(w);
    result_table_free(s);
    CHECK(!why, "%s: the stream of %zu names: %s", path, n, why);
    CHECK(!g.bits_differ, "%s: the stream of %zu names: a 64-bit integer's bits are not its "
          "value", path, n);
}

static void same_files(int argc, char **argv)
{
    uint64_t seed = 12345;
    for (int f = 0; f < argc; f++) {
        const char *path = argv[f];
        result_table *w = NULL;
        rtcosim_error err;
        if (result_table_read_mdf(path, &w, &err) != RTCOSIM_OK) {
            fprintf(stderr, "FAIL %s: %s\n", path, err.message);
            failures++;
            continue;
        }
        size_t n = w->column_count;
        const char **names = calloc(n + 2, sizeof *names);
        for (size_t c = 0; c < n; c++)
            names[c] = w->columns[c].name;
        for (size_t c = 0; c < n; c++) /* each alone */
            read_selected(path, w, &names[c], 1, false);
        read_selected(path, w, names, n, true); /* all, by name */
        const char *pick[8];
        for (int round = 0; round < 20 && n; round++) { /* random subsets, a name not there */
            size_t k = 0;
            for (size_t c = 0; c < n && k < 7; c++) {
                seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                if (seed >> 63)
                    pick[k++] = names[c];
            }
            pick[k++] = "no such channel";
            read_selected(path, w, pick, k, false);
        }
        printf("%s: %zu channels, %zu rows: each alone, all and 20 subsets read selected, "
               "%zu of them streamed as well\n", path, n, w->rows, streamed);
        streamed = 0;
        free(names);
        result_table_free(w);
    }
}

static void broken(const char *path, const char *name)
{
    result_table *w = NULL, *s = NULL;
    rtcosim_error e1, e2;
    result_select sel = {&name, 1};
    rtcosim_status a = result_table_read_mdf(path, &w, &e1);
    rtcosim_status b = result_table_read_mdf_select(path, &sel, &s, &e2);
    result_table_free(w);
    result_table_free(s);
    CHECK(a != RTCOSIM_OK && b != RTCOSIM_OK, "%s: read (%d, selected %d)", path, a, b);
    CHECK(strcmp(e1.message, e2.message) == 0, "%s: \"%s\" selected \"%s\"", path, e1.message,
          e2.message);
    CHECK(!strchr(e2.message, '\n') && strstr(e2.message, path), "%s: %s", path, e2.message);
    printf("%s (%s): %s\n", path, name, e2.message);
}

/* ---- a big measurement, from formulas ---- */

enum { NA = 100000, CA = 120, NB1 = NA / 10, CB1 = 50, NB2 = NA / 20, CB2 = 30 };
#define A_RECORD (8 + 2 * CA)
#define B1_RECORD (8 + 4 * CB1)
#define B2_RECORD (8 + 4 * CB2 + 1)

static double a_time(size_t k) { return (double)k / 1000.0; }
static uint16_t a_raw(size_t k, size_t j) { return (uint16_t)((k * (j + 1) + 7 * j) % 65536); }
static double a_value(size_t k, size_t j) { return -3 + 0.5 * a_raw(k, j); }
static double b1_time(size_t m) { return (double)(10 * m) / 1000.0; }
static float b1_value(size_t m, size_t j) { return (float)m * 0.25f + (float)j; }
static double b2_time(size_t m) { return (double)(20 * m) / 1000.0; }
static int32_t b2_value(size_t m, size_t j) { return (int32_t)(m * 3) - (int32_t)(j * 1000); }
static bool b2_invalid(size_t m) { return m % 7 == 0; }

typedef struct out {
    FILE *f;
    uint64_t at;
} out;

static void pad(out *o)
{
    while (o->at % 8) {
        fputc(0, o->f);
        o->at++;
    }
}

static uint64_t block(out *o, const char *id, const uint64_t *links, size_t nl, const void *data,
                      size_t n)
{
    pad(o);
    uint64_t at = o->at, len = 24 + 8 * nl + n, nl64 = nl;
    fwrite("##", 1, 2, o->f);
    fwrite(id, 1, 2, o->f);
    fwrite("\0\0\0\0", 1, 4, o->f);
    fwrite(&len, 8, 1, o->f);
    fwrite(&nl64, 8, 1, o->f);
    if (nl)
        fwrite(links, 8, nl, o->f);
    fwrite(data, 1, n, o->f);
    o->at += len;
    return at;
}

static uint64_t text(out *o, const char *s)
{
    return block(o, "TX", NULL, 0, s, strlen(s) + 1);
}

/* A DZ block of raw (transposed by columns when columns > 0). */
static uint64_t dz(out *o, const uint8_t *raw, size_t n, uint32_t columns)
{
    uint8_t *src = malloc(n), *packed;
    memcpy(src, raw, n);
    if (columns) {
        size_t lines = n / columns;
        for (size_t j = 0; j < columns; j++)
            for (size_t i = 0; i < lines; i++)
                src[j * lines + i] = raw[i * columns + j];
    }
    uLongf plen = compressBound((uLong)n);
    packed = malloc(24 + plen);
    compress(packed + 24, &plen, src, (uLong)n);
    memcpy(packed, "DT", 2);
    packed[2] = columns ? 1 : 0;
    packed[3] = 0;
    memcpy(packed + 4, &columns, 4);
    uint64_t orig = n, pl = plen;
    memcpy(packed + 8, &orig, 8);
    memcpy(packed + 16, &pl, 8);
    uint64_t at = block(o, "DZ", NULL, 0, packed, 24 + plen);
    free(src);
    free(packed);
    return at;
}

static uint64_t dl(out *o, const uint64_t *blocks, size_t n)
{
    uint64_t *links = calloc(n + 1, 8);
    uint8_t *data = calloc(1, 8 + 8 * n);
    memcpy(links + 1, blocks, 8 * n);
    uint32_t count = (uint32_t)n;
    memcpy(data + 4, &count, 4);
    uint64_t at = block(o, "DL", links, n + 1, data, 8 + 8 * n);
    free(links);
    free(data);
    return at;
}

/* A chain of CN blocks: the master (float64 at 0), then n channels. */
static uint64_t channels(out *o, const char *prefix, size_t n, uint8_t dtype, uint32_t bits,
                         uint64_t cc, bool inval)
{
    uint64_t next = 0;
    for (size_t i = n + 1; i-- > 0;) {
        char name[32];
        bool master = i == 0;
        if (master)
            snprintf(name, sizeof name, "time");
        else
            snprintf(name, sizeof name, "%s%03zu", prefix, i - 1);
        uint8_t d[72] = {0};
        d[0] = master ? 2 : 0;
        d[1] = master ? 1 : 0;
        d[2] = master ? 4 : dtype;
        uint32_t off = master ? 0 : 8 + (uint32_t)(i - 1) * (bits / 8), b = master ? 64 : bits;
        uint32_t flags = !master && inval ? 2 : 0;
        memcpy(d + 4, &off, 4);
        memcpy(d + 8, &b, 4);
        memcpy(d + 12, &flags, 4);
        uint64_t links[8] = {next, 0, text(o, name), 0, master ? 0 : cc, 0, 0, 0};
        next = block(o, "CN", links, 8, d, sizeof d);
    }
    return next;
}

static uint64_t channel_group(out *o, uint64_t id, uint64_t cycles, uint32_t bytes,
                              uint32_t inval, uint64_t first_cn)
{
    uint8_t d[32] = {0};
    memcpy(d, &id, 8);
    memcpy(d + 8, &cycles, 8);
    memcpy(d + 24, &bytes, 4);
    memcpy(d + 28, &inval, 4);
    uint64_t links[6] = {0, first_cn, 0, 0, 0, 0};
    return block(o, "CG", links, 6, d, sizeof d);
}

static void write_big(const char *path)
{
    out o = {fopen(path, "wb"), 0};
    uint8_t id[64] = "MDF     4.10    testbig";
    id[28] = 410 & 0xFF;
    id[29] = 410 >> 8;
    fwrite(id, 1, 64, o.f);
    o.at = 64;
    uint64_t hd_links[6] = {0};
    uint8_t hd_data[32] = {0};
    block(&o, "HD", hd_links, 6, hd_data, sizeof hd_data);
    /* group A, sorted: blocks of 1 MiB (records across them), two DT
     * blocks to a transposed DZ one */
    enum { CHUNK = 1 << 20 };
    uint8_t *buf = malloc(CHUNK);
    uint64_t blocks[256];
    size_t nb = 0, fill = 0;
    for (size_t k = 0; k <= NA; k++) {
        uint8_t rec[A_RECORD];
        if (k < NA) {
            double t = a_time(k);
            memcpy(rec, &t, 8);
            for (size_t j = 0; j < CA; j++) {
                uint16_t v = a_raw(k, j);
                memcpy(rec + 8 + 2 * j, &v, 2);
            }
        }
        for (size_t i = 0; k < NA && i < A_RECORD; i++) {
            buf[fill++] = rec[i];
            if (fill == CHUNK) {
                blocks[nb] = nb % 3 == 2 ? dz(&o, buf, fill, A_RECORD)
                                         : block(&o, "DT", NULL, 0, buf, fill);
                nb++;
                fill = 0;
            }
        }
        if (k == NA && fill)
            blocks[nb++] = block(&o, "DT", NULL, 0, buf, fill);
    }
    uint64_t dl_a = dl(&o, blocks, nb);
    /* group B, unsorted (1-byte ids): B1 every 10 ms, B2 every 20 ms with
     * an invalidation byte, in time order, in DZ blocks */
    nb = fill = 0;
    for (size_t m = 0; m < NB1; m++) {
        uint8_t rec[1 + (B1_RECORD > B2_RECORD ? B1_RECORD : B2_RECORD)];
        for (int which = 1; which <= 2; which++) {
            size_t n;
            if (which == 1) {
                double t = b1_time(m);
                rec[0] = 1;
                memcpy(rec + 1, &t, 8);
                for (size_t j = 0; j < CB1; j++) {
                    float v = b1_value(m, j);
                    memcpy(rec + 9 + 4 * j, &v, 4);
                }
                n = 1 + B1_RECORD;
            } else if (m % 2 == 0) {
                size_t q = m / 2;
                double t = b2_time(q);
                rec[0] = 2;
                memcpy(rec + 1, &t, 8);
                for (size_t j = 0; j < CB2; j++) {
                    int32_t v = b2_value(q, j);
                    memcpy(rec + 9 + 4 * j, &v, 4);
                }
                rec[9 + 4 * CB2] = b2_invalid(q) ? 1 : 0;
                n = 1 + B2_RECORD;
            } else {
                continue;
            }
            if (fill + n > CHUNK / 4) {
                blocks[nb++] = dz(&o, buf, fill, 0);
                fill = 0;
            }
            memcpy(buf + fill, rec, n);
            fill += n;
        }
    }
    blocks[nb++] = dz(&o, buf, fill, 0);
    uint64_t dl_b = dl(&o, blocks, nb);
    free(buf);
    /* the layout: a linear conversion -3 + 0.5 x for A */
    uint8_t ccd[24 + 16] = {1, 0, 0, 0, 0, 0, 2, 0};
    double lin[2] = {-3, 0.5};
    memcpy(ccd + 24, lin, 16);
    uint64_t cc_links[4] = {0};
    uint64_t cc = block(&o, "CC", cc_links, 4, ccd, sizeof ccd);
    uint64_t cga = channel_group(&o, 0, NA, A_RECORD, 0, channels(&o, "a", CA, 0, 16, cc, false));
    uint64_t cgb2 = channel_group(&o, 2, NB2, B2_RECORD - 1, 1,
                                  channels(&o, "b2_", CB2, 2, 32, 0, true));
    uint64_t cgb1 = channel_group(&o, 1, NB1, B1_RECORD, 0,
                                  channels(&o, "b1_", CB1, 4, 32, 0, false));
    uint8_t dgd[8] = {1};
    uint64_t dgb_links[4] = {0, cgb1, dl_b, 0};
    uint64_t dgb = block(&o, "DG", dgb_links, 4, dgd, 8);
    uint8_t dga_d[8] = {0};
    uint64_t dga_links[4] = {dgb, cga, dl_a, 0};
    uint64_t dga = block(&o, "DG", dga_links, 4, dga_d, 8);
    pad(&o);
    /* patch: B1's next group B2, HD's first data group */
    fseek(o.f, (long)(cgb1 + 24), SEEK_SET);
    fwrite(&cgb2, 8, 1, o.f);
    fseek(o.f, 64 + 24, SEEK_SET);
    fwrite(&dga, 8, 1, o.f);
    fclose(o.f);
}

/* The table's column named name against its formula; 0 when it holds. */
static int check_column(const result_table *t, const char *name)
{
    ptrdiff_t c = result_table_find(t, name);
    if (c < 0)
        return 1;
    const result_column *col = &t->columns[c];
    const double *tm = col->own_time ? col->own_time : t->time,
                 *v = col->own_time ? col->own_values : col->values;
    size_t n = col->own_time ? col->own_rows : t->rows;
    size_t j = (size_t)atoi(name + strlen(name) - 3); /* "a042", "b2_007" */
    if (name[0] == 'a') {
        if (n != NA)
            return 2;
        for (size_t k = 0; k < n; k++)
            if (!table_same_value(tm[k], a_time(k)) || !table_same_value(v[k], a_value(k, j)))
                return 3;
    } else if (name[1] == '1') {
        if (n != NB1)
            return 2;
        for (size_t m = 0; m < n; m++)
            if (!table_same_value(tm[m], b1_time(m)) || !table_same_value(v[m], (double)b1_value(m, j)))
                return 3;
    } else {
        if (n != NB2)
            return 2;
        for (size_t m = 0; m < n; m++)
            if (!table_same_value(tm[m], b2_time(m)) ||
                !table_same_value(v[m], b2_invalid(m) ? NAN : (double)b2_value(m, j)))
                return 3;
    }
    /* held on the rows: the last sample at or before each row's time */
    for (size_t r = 0, k = 0; r < t->rows; r++) {
        while (k < n && tm[k] <= t->time[r])
            k++;
        if (!table_same_value(col->values[r], k ? v[k - 1] : NAN))
            return 4;
    }
    return 0;
}

/* A child reading path (names: a selection, NULL: all) and checking the
 * channels against their formulas: its peak memory (KiB), or -1 failed. */
static long in_child(const char *path, const char **names, size_t n, double *secs)
{
    fflush(NULL);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid == 0) {
        result_table *t = NULL;
        rtcosim_error err;
        result_select sel = {names, n};
        rtcosim_status st = names ? result_table_read_mdf_select(path, &sel, &t, &err)
                          : path ? result_table_read_mdf(path, &t, &err) : RTCOSIM_OK;
        if (st != RTCOSIM_OK) {
            fprintf(stderr, "%s\n", err.message);
            _exit(1);
        }
        int bad = 0;
        const char *every[] = {"a000", "a119", "b1_000", "b1_049", "b2_000", "b2_029"};
        for (size_t i = 0; t && i < (names ? n : 6) && !bad; i++)
            if ((bad = check_column(t, names ? names[i] : every[i])) != 0)
                fprintf(stderr, "%s: %s: check %d\n", path, names ? names[i] : every[i], bad);
        if (t && t->column_count != (names ? n : CA + CB1 + CB2))
            bad = 5;
        if (t && t->rows != NA)
            bad = 6;
        result_table_free(t);
        _exit(bad);
    }
    int status;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        return -1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    return ru.ru_maxrss;
}

static void big(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/big.mf4", dir);
    write_big(path);
    struct stat sb;
    CHECK(stat(path, &sb) == 0, "%s", path);
    double s0, s1, s2;
    const char *two[] = {"a042", "b2_007"};
    long base = in_child(NULL, NULL, 0, &s0), sel = in_child(path, two, 2, &s1),
         whole = in_child(path, NULL, 0, &s2);
    long file_kb = (long)(sb.st_size / 1024);
    printf("big.mf4: %ld KB; peak memory: %ld KB idle, 2 channels %ld KB (%.2f s), all %zu "
           "channels %ld KB (%.2f s)\n", file_kb, base, sel, s1, (size_t)(CA + CB1 + CB2), whole,
           s2);
    CHECK(base > 0 && sel > 0 && whole > 0, "a read failed or its values are not the formulas'");
    /* two channels: their columns (2.4 MB) and a few blocks, the file's
     * pages walked past given back (~6 MB; 22 MB with ASan's quarantine
     * and shadow); all: 200 columns of 100000 rows, 160 MB, and the
     * samples beside them */
    CHECK(sel - base < 32 * 1024 && sel - base < (whole - base) / 10,
          "2 channels took %ld KB over %ld", sel - base, base);
    CHECK(whole - base > file_kb + 128 * 1024, "all took only %ld KB over %ld", whole - base,
          base);
    remove(path);
}

/* Reads FILE (NAMES: only those) and says its shape: for measuring the
 * reader's time and memory (src/results/README.md). */
static void read_only(const char *path, const char **names, size_t n)
{
    result_table *t = NULL;
    rtcosim_error err;
    result_select sel = {names, n};
    CHECK(result_table_read_mdf_select(path, n ? &sel : NULL, &t, &err) == RTCOSIM_OK, "%s",
          err.message);
    double sum = 0;
    for (size_t c = 0; c < t->column_count; c++)
        for (size_t r = 0; r < t->rows; r++)
            sum += t->columns[c].values[r];
    printf("%s: %zu rows x %zu columns, sum %.17g\n", path, t->rows, t->column_count, sum);
    result_table_free(t);
}

int main(int argc, char **argv)
{
    rtcosim_log_set_level(RTCOSIM_LOG_ERROR);
    if (argc >= 3 && strcmp(argv[1], "same") == 0)
        same_files(argc - 2, argv + 2);
    else if (argc == 4 && strcmp(argv[1], "broken") == 0)
        broken(argv[2], argv[3]);
    else if (argc == 3 && strcmp(argv[1], "big") == 0)
        big(argv[2]);
    else if (argc >= 3 && strcmp(argv[1], "read") == 0)
        read_only(argv[2], (const char **)argv + 3, (size_t)argc - 3);
    else {
        fprintf(stderr, "usage: test_mdf_select same FILE... | broken FILE NAME | big DIR | "
                "read FILE [NAME...]\n");
        return 2;
    }
    return failures ? 1 : 0;
}
