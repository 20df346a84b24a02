/* An .mf4 results file is written while the run goes: its blocks read by hand
 * as ASAM MDF 4.1 lays them out (ID at 0; a block "##XX", 4 reserved bytes,
 * length and link count as uint64, the links, its data; CG data: record id,
 * cycle count, flags, path separator, reserved, data bytes and invalidation
 * bytes per record; CN data: type, sync, data type, bit offset, byte offset,
 * bit count, flags (2: invalidation bit valid), invalidation bit position),
 * against the values pushed; read back through `rtcosim_results_convert` to
 * the CSV text those values make; a file of a run that has not closed is
 * unfinalized as the standard lets a logger leave it (flags 1 cycle
 * counters, 4 last DT length) and read to its last whole record; a long run's
 * records end up in DZ blocks. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "rtcosim/results.h"
#include "util/test_util.h"

static uint8_t *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *d = malloc((size_t)n + 1);
    assert_non_null(d);
    assert_int_equal(fread(d, 1, (size_t)n, f), (size_t)n);
    d[n] = 0;
    fclose(f);
    *size = (size_t)n;
    return d;
}

static uint64_t u64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int k = 7; k >= 0; k--)
        v = v << 8 | p[k];
    return v;
}

static uint32_t u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The block of that kind at `at`: its links; *data its data. */
static const uint8_t *block(const uint8_t *d, size_t size, uint64_t at, const char *kind,
                            const uint8_t **data)
{
    assert_true(at >= 64 && at + 24 <= size && at % 8 == 0);
    assert_memory_equal(d + at, "##", 2);
    assert_memory_equal(d + at + 2, kind, 2);
    uint64_t len = u64(d + at + 8), links = u64(d + at + 16);
    assert_true(at + len <= size);
    *data = d + at + 24 + 8 * links;
    return d + at + 24;
}

static const char *text_at(const uint8_t *d, size_t size, uint64_t at)
{
    const uint8_t *data;
    block(d, size, at, "TX", &data);
    return (const char *)data;
}

typedef struct layout {
    uint64_t cycles, dt_at;
    uint32_t data_bytes, inval_bytes;
    size_t channels;
    char names[8][32];
    uint32_t offset[8], bits[8], flags[8], inval_bit[8];
    uint8_t dtype[8];
} layout;

static layout read_layout(const uint8_t *d, size_t size)
{
    layout l = {0};
    const uint8_t *hd_data, *dg_data, *cg_data, *cn_data;
    const uint8_t *hd = block(d, size, 64, "HD", &hd_data);
    const uint8_t *dg = block(d, size, u64(hd), "DG", &dg_data);
    const uint8_t *cg = block(d, size, u64(dg + 8), "CG", &cg_data);
    l.dt_at = u64(dg + 16);
    l.cycles = u64(cg_data + 8);
    l.data_bytes = u32(cg_data + 24);
    l.inval_bytes = u32(cg_data + 28);
    for (uint64_t at = u64(cg + 8); at; l.channels++) {
        assert_true(l.channels < 8);
        const uint8_t *cn = block(d, size, at, "CN", &cn_data);
        size_t k = l.channels;
        snprintf(l.names[k], sizeof l.names[k], "%s", text_at(d, size, u64(cn + 16)));
        l.dtype[k] = cn_data[2];
        l.offset[k] = u32(cn_data + 4);
        l.bits[k] = u32(cn_data + 8);
        l.flags[k] = u32(cn_data + 12);
        l.inval_bit[k] = u32(cn_data + 16);
        at = u64(cn);
    }
    return l;
}

static char *convert_to_csv(const char *mf4, const char *dir, const char *name, size_t *rows)
{
    char csv[4096];
    snprintf(csv, sizeof csv, "%s/%s", dir, name);
    rtcosim_results_convert_options o = {.from = NAN, .to = NAN};
    rtcosim_results_convert_stats stats = {0};
    rtcosim_error err = {0};
    if (rtcosim_results_convert(mf4, csv, &o, &stats, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    *rows = stats.rows;
    size_t size;
    return (char *)slurp(csv, &size);
}

static const rtcosim_column mixed[] = {
    {.name = "x", .type = RTCOSIM_TYPE_FLOAT64, .unit = "m"},
    {.name = "n", .type = RTCOSIM_TYPE_INT32},
    {.name = "on", .type = RTCOSIM_TYPE_BOOLEAN},
    {.name = "label", .type = RTCOSIM_TYPE_STRING},
    {.name = "u", .type = RTCOSIM_TYPE_UINT64},
    {.name = "f", .type = RTCOSIM_TYPE_FLOAT32},
    {.name = "k", .type = RTCOSIM_TYPE_INT8},
};

/* Every column in its type (String left out), an omitted Int32 column
 * invalid from the row after the call, the same bytes through the writer
 * thread. */
static void records_hold_the_values_pushed(void **state)
{
    const char *dir = *state;
    uint8_t *records[2] = {NULL, NULL};
    for (int threaded = 0; threaded < 2; threaded++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/mixed%d.mf4", dir, threaded);
        rtcosim_recorder_options o = {.path = path, .columns = mixed, .column_count = 7,
                                      .writer_thread = threaded};
        rtcosim_recorder *r = NULL;
        rtcosim_error err;
        assert_int_equal(rtcosim_recorder_open(&o, &r, &err), RTCOSIM_OK);
        rtcosim_value rows[3][7] = {
            {{.f64 = 0.5}, {.i64 = -42}, {.b = true}, {.s = "a"}, {.u64 = UINT64_MAX},
             {.f32 = 0.25f}, {.i64 = -128}},
            {{.f64 = -1.5}, {.i64 = 7}, {.b = false}, {.s = "b"}, {.u64 = 3},
             {.f32 = -2.0f}, {.i64 = 127}},
            {{.f64 = 1e300}, {.i64 = 8}, {.b = true}, {.s = "c"}, {.u64 = 0},
             {.f32 = 1.5f}, {.i64 = 0}},
        };
        assert_int_equal(rtcosim_recorder_push_row(r, 0, rows[0], &err), RTCOSIM_OK);
        rtcosim_recorder_omit_column(r, 1);
        assert_int_equal(rtcosim_recorder_push_row(r, 250000000, rows[1], &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_recorder_push_row(r, 500000000, rows[2], &err), RTCOSIM_OK);
        rtcosim_recorder_stats stats;
        assert_int_equal(rtcosim_recorder_close(r, &stats, &err), RTCOSIM_OK);
        assert_int_equal(stats.rows_written, 3);

        size_t size;
        uint8_t *d = slurp(path, &size);
        assert_memory_equal(d, "MDF     4.10    rtcosim ", 24);
        assert_int_equal(d[60] | d[61] << 8 | d[62] << 16 | d[63] << 24, 0); /* finalized */
        layout l = read_layout(d, size);
        assert_int_equal(l.channels, 7); /* time and six: the String has none */
        static const char *names[] = {"time", "x", "n", "on", "u", "f", "k"};
        static const uint8_t dtypes[] = {4, 4, 2, 0, 0, 4, 2};
        static const uint32_t bits[] = {64, 64, 32, 8, 64, 32, 8};
        for (size_t k = 0, off = 0; k < 7; off += bits[k] / 8, k++) {
            assert_string_equal(l.names[k], names[k]);
            assert_int_equal(l.dtype[k], dtypes[k]);
            assert_int_equal(l.bits[k], bits[k]);
            assert_int_equal(l.offset[k], off);
        }
        /* integers and the Boolean carry an invalidation bit each, floats none */
        static const int inval[] = {-1, -1, 0, 1, 2, -1, 3};
        for (size_t k = 0; k < 7; k++) {
            assert_int_equal(l.flags[k] & 2, inval[k] >= 0 ? 2 : 0);
            if (inval[k] >= 0)
                assert_int_equal(l.inval_bit[k], inval[k]);
        }
        assert_int_equal(l.data_bytes, 8 + 8 + 4 + 1 + 8 + 4 + 1);
        assert_int_equal(l.inval_bytes, 1);
        assert_int_equal(l.cycles, 3);
        const uint8_t *dt_data;
        block(d, size, l.dt_at, "DT", &dt_data);
        size_t record = l.data_bytes + l.inval_bytes;
        assert_int_equal(u64(d + l.dt_at + 8), 24 + 3 * record);
        const uint8_t *rec = dt_data;
        double x;
        uint64_t bits64 = u64(rec + 8);
        memcpy(&x, &bits64, sizeof x);
        assert_true(x == 0.5);
        assert_int_equal((int32_t)u32(rec + 16), -42);
        assert_int_equal(rec[20], 1);
        assert_true(u64(rec + 21) == UINT64_MAX);
        assert_int_equal((int8_t)rec[33], -128);
        assert_int_equal(rec[34], 0); /* all valid */
        assert_int_equal(rec[record + 34], 1); /* row 2: n invalid (bit 0) */
        assert_int_equal(rec[2 * record + 34], 1);
        records[threaded] = malloc(3 * record);
        memcpy(records[threaded], dt_data, 3 * record);
        free(d);

        size_t n;
        char *csv = convert_to_csv(path, dir, "mixed.csv", &n);
        assert_int_equal(n, 3);
        /* (u, a uint64, back as pushed: every bit, not the double's 1.8446744073709552e19) */
        assert_string_equal(csv, "\"time\",\"x\",\"n\",\"on\",\"u\",\"f\",\"k\"\n"
                                 "0,0.5,-42,1,18446744073709551615,0.25,-128\n"
                                 "0.25,-1.5,nan,0,3,-2,127\n"
                                 "0.5,1e+300,nan,1,0,1.5,0\n");
        free(csv);
    }
    assert_memory_equal(records[0], records[1], 3 * (8 + 8 + 4 + 1 + 8 + 4 + 1 + 1));
    free(records[0]);
    free(records[1]);
}

/* A recorder on path with a Float64 column x and an integer column n of
 * that type, `rows` rows pushed at 1 ms: x = (k % x_period) * x_step, n = k
 * + n_shift. Open: the caller closes it. */
static rtcosim_recorder *record_x_n(const char *path, rtcosim_type n_type, int rows,
                                    int x_period, double x_step, int n_shift)
{
    const rtcosim_column cols[] = {{.name = "x", .type = RTCOSIM_TYPE_FLOAT64},
                                   {.name = "n", .type = n_type}};
    rtcosim_recorder_options o = {.path = path, .columns = cols, .column_count = 2};
    rtcosim_recorder *r = NULL;
    assert_int_equal(rtcosim_recorder_open(&o, &r, NULL), RTCOSIM_OK);
    for (int k = 0; k < rows; k++) {
        rtcosim_value row[2] = {{.f64 = k % x_period * x_step}, {.i64 = k + n_shift}};
        assert_int_equal(rtcosim_recorder_push_row(r, (rtcosim_time_ns)k * 1000000, row, NULL),
                         RTCOSIM_OK);
    }
    return r;
}

/* While the run goes the file is unfinalized, its rows readable up to the
 * last whole record (a run killed mid-write); close finalizes it. */
static void an_open_file_is_read_to_its_last_whole_record(void **state)
{
    const char *dir = *state;
    char path[4096], copy[4096];
    snprintf(path, sizeof path, "%s/open.mf4", dir);
    snprintf(copy, sizeof copy, "%s/killed.mf4", dir);
    rtcosim_recorder *r = record_x_n(path, RTCOSIM_TYPE_UINT16, 1000, 1000, 0.5, 0);
    rtcosim_recorder_flush_all_signal_safe(); /* what a second Ctrl-C leaves */
    size_t size;
    uint8_t *d = slurp(path, &size);
    assert_memory_equal(d, "UnFinMF ", 8);
    assert_int_equal(d[60] | d[61] << 8, 1 | 4);
    assert_int_equal(d[62] | d[63] << 8, 0);
    FILE *f = fopen(copy, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(d, 1, size - 5, f), size - 5); /* the last record cut */
    fclose(f);
    free(d);
    size_t rows;
    char *csv = convert_to_csv(path, dir, "open.csv", &rows);
    assert_int_equal(rows, 1000);
    assert_non_null(strstr(csv, "\n0.999,499.5,999\n"));
    free(csv);
    csv = convert_to_csv(copy, dir, "killed.csv", &rows);
    assert_int_equal(rows, 999);
    assert_non_null(strstr(csv, "\n0.998,499,998\n"));
    free(csv);
    assert_int_equal(rtcosim_recorder_close(r, NULL, NULL), RTCOSIM_OK);
    d = slurp(path, &size);
    assert_memory_equal(d, "MDF     ", 8);
    assert_int_equal(d[60] | d[61] << 8, 0);
    assert_int_equal(read_layout(d, size).cycles, 1000);
    free(d);
}

/* Records past 1 MiB are moved into DZ blocks listed by a DL block at
 * close; the values read back; no copy left beside the file. */
static void a_long_run_is_compressed_at_close(void **state)
{
    const char *dir = *state;
    char path[4096], part[4200];
    snprintf(path, sizeof path, "%s/long.mf4", dir);
    snprintf(part, sizeof part, "%s.dz.part", path);
    enum { ROWS = 200000 }; /* 21-byte records: 4.2 MB */
    rtcosim_recorder *r = record_x_n(path, RTCOSIM_TYPE_INT32, ROWS, 1000, 0.25, -100000);
    assert_int_equal(rtcosim_recorder_close(r, NULL, NULL), RTCOSIM_OK);
    assert_int_equal(access(part, F_OK), -1);
    size_t size;
    uint8_t *d = slurp(path, &size);
    assert_memory_equal(d, "MDF     ", 8);
    layout l = read_layout(d, size);
    assert_int_equal(l.cycles, ROWS);
    const uint8_t *dl_data;
    const uint8_t *dl = block(d, size, l.dt_at, "DL", &dl_data);
    uint32_t blocks = u32(dl_data + 4);
    assert_true(blocks >= 1);
    for (uint32_t b = 0; b < blocks; b++) {
        const uint8_t *dz_data;
        block(d, size, u64(dl + 8 * (1 + b)), "DZ", &dz_data);
    }
    assert_true(size < ROWS * 21 / 2);
    free(d);
    size_t rows;
    char *csv = convert_to_csv(path, dir, "long.csv", &rows);
    assert_int_equal(rows, ROWS);
    assert_non_null(strstr(csv, "\n0,0,-100000\n"));
    assert_non_null(strstr(csv, "\n123.456,114,23456\n"));
    assert_non_null(strstr(csv, "\n199.999,249.75,99999\n"));
    free(csv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(records_hold_the_values_pushed, tu_scratch_setup,
                                        tu_scratch_teardown),
        cmocka_unit_test_setup_teardown(an_open_file_is_read_to_its_last_whole_record,
                                        tu_scratch_setup, tu_scratch_teardown),
        cmocka_unit_test_setup_teardown(a_long_run_is_compressed_at_close, tu_scratch_setup,
                                        tu_scratch_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
