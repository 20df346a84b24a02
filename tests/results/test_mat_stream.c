/* .mat results written as the run goes (src/results/mat_stream.c): the
 * file equals, byte for byte, the one libmatio writes whole from the same
 * run's CSV (rtcosim_results_csv_to_mat, the way .mat results were made
 * before), for every column type, omitted cells, non-finite values, a
 * constant parameter and one the run changes, on the writer thread and
 * without it; the matrices walked by hand as the MAT v4 format lays them
 * out; a file read while the run still goes holds every time point written
 * so far; the time points past a MAT v4 matrix's limit are left out with a
 * warning. */
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

#include "rtcosim/log.h"
#include "rtcosim/results.h"
#include "util/test_util.h"

enum { NCOLS = 12, ROWS = 5000 };

static const rtcosim_column columns[NCOLS] = {
    {.name = "x", .type = RTCOSIM_TYPE_FLOAT64, .unit = "m", .description = "Position"},
    {.name = "k", .type = RTCOSIM_TYPE_FLOAT64, .parameter = true, .unit = "N/m"},
    {.name = "f", .type = RTCOSIM_TYPE_FLOAT32},
    {.name = "label", .type = RTCOSIM_TYPE_STRING},
    {.name = "i8", .type = RTCOSIM_TYPE_INT8},
    {.name = "big", .type = RTCOSIM_TYPE_INT64},
    {.name = "u", .type = RTCOSIM_TYPE_UINT64},
    {.name = "on", .type = RTCOSIM_TYPE_BOOLEAN},
    {.name = "gain", .type = RTCOSIM_TYPE_FLOAT64, .parameter = true},
    {.name = "blob", .type = RTCOSIM_TYPE_BINARY},
    {.name = "n", .type = RTCOSIM_TYPE_INT32, .parameter = true},
    {.name = "late", .type = RTCOSIM_TYPE_FLOAT64},
};

/* Row k's values; `gain` changes at rows 1000 and 3000 when asked. */
static void row_values(int k, bool gain_changes, rtcosim_value *v)
{
    static const uint8_t bytes[2] = {0xde, 0xad};
    double xs[5] = {sin(k * 0.001), -0.0, INFINITY, 1e-310, 0.1 * k};
    uint64_t nan_bits = 0xfff8000000000123u; /* a negative NaN with a payload */
    double odd_nan;
    memcpy(&odd_nan, &nan_bits, sizeof odd_nan);
    v[0].f64 = k % 97 == 13 ? odd_nan : xs[k % 5];
    v[1].f64 = 4.5;
    v[2].f32 = (float)k * 0.1f;
    v[3].s = "text";
    v[4].i64 = (int8_t)(k * 7);
    v[5].i64 = (INT64_C(1) << 60) + 1 + k; /* past 2^53: rounded as the CSV's text reads */
    v[6].u64 = UINT64_MAX - (uint64_t)k;
    v[7].b = k % 3 == 0;
    v[8].f64 = !gain_changes || k < 1000 ? 2.0 : k < 3000 ? NAN : 3.0;
    v[9].bin = (rtcosim_binary){.data = bytes, .size = 2};
    v[10].i64 = 7;
    v[11].f64 = 0.25 * k;
}

/* One run into path: 5000 rows every 1 ms, `late` left empty from row
 * 2500 on. */
static void record(const char *path, bool threaded, bool gain_changes)
{
    rtcosim_recorder_options o = {.path = path, .columns = columns, .column_count = NCOLS,
                                  .writer_thread = threaded, .buffer_bytes = 4096};
    rtcosim_recorder *r;
    rtcosim_error err;
    assert_int_equal(rtcosim_recorder_open(&o, &r, &err), RTCOSIM_OK);
    for (int k = 0; k < ROWS; k++) {
        if (k == 2500)
            rtcosim_recorder_omit_column(r, 11);
        rtcosim_value v[NCOLS];
        row_values(k, gain_changes, v);
        assert_int_equal(rtcosim_recorder_push_row(r, (int64_t)k * 1000000, v, &err), RTCOSIM_OK);
    }
    rtcosim_recorder_stats stats;
    assert_int_equal(rtcosim_recorder_close(r, &stats, &err), RTCOSIM_OK);
    assert_int_equal(stats.rows_written, ROWS);
}

static void assert_same_file(const char *a, const char *b)
{
    size_t na, nb;
    char *da = tu_read_file(a, &na); /* (tu_read_file's buffer is reused: a copy) */
    char *copy = malloc(na + 1);
    assert_non_null(copy);
    memcpy(copy, da, na);
    char *db = tu_read_file(b, &nb);
    assert_int_equal(na, nb);
    assert_memory_equal(copy, db, na);
    free(copy);
}

/* A MAT v4 matrix as the format lays it out, found by walking the file. */
typedef struct mat4 {
    int32_t type, rows, cols;
    const uint8_t *data;
} mat4;

static bool find_matrix(const uint8_t *file, size_t size, const char *name, mat4 *out)
{
    size_t at = 0;
    while (at + 20 <= size) {
        int32_t h[5];
        memcpy(h, file + at, sizeof h);
        const char *nm = (const char *)file + at + 20;
        int p = h[0] / 10 % 10; /* 0 double, 1 single, 2 int32, ..., 5 uint8 */
        size_t elem = p == 0 ? 8 : p == 1 || p == 2 ? 4 : p == 5 ? 1 : 2;
        size_t bytes = (size_t)h[1] * (size_t)h[2] * elem;
        if (strcmp(nm, name) == 0) {
            *out = (mat4){.type = h[0], .rows = h[1], .cols = h[2],
                          .data = file + at + 20 + (size_t)h[4]};
            return true;
        }
        at += 20 + (size_t)h[4] + bytes;
    }
    return false;
}

static double cell(const mat4 *m, int row, int col)
{
    double v;
    memcpy(&v, m->data + ((size_t)col * (size_t)m->rows + (size_t)row) * 8, sizeof v);
    return v;
}

static void stream_equals_the_whole_conversion(const char *dir, bool threaded, bool gain_changes)
{
    char csv[4200], mat[4200], ref[4200], part[4300];
    snprintf(csv, sizeof csv, "%s/r.csv", dir);
    snprintf(mat, sizeof mat, "%s/r.mat", dir);
    snprintf(ref, sizeof ref, "%s/ref.mat", dir);
    record(csv, threaded, gain_changes);
    record(mat, threaded, gain_changes);
    rtcosim_error err;
    assert_int_equal(rtcosim_results_csv_to_mat(csv, ref, columns, NCOLS, &err), RTCOSIM_OK);
    assert_same_file(mat, ref);
    snprintf(part, sizeof part, "%s.part", mat);
    assert_int_not_equal(access(part, F_OK), 0);

    /* by hand: data_2 holds time and the trajectories per time point */
    size_t size;
    uint8_t *file = (uint8_t *)tu_read_file(mat, &size);
    mat4 d1, d2, info;
    assert_true(find_matrix(file, size, "dataInfo", &info));
    assert_true(find_matrix(file, size, "data_1", &d1));
    assert_true(find_matrix(file, size, "data_2", &d2));
    assert_int_equal(info.cols, 11); /* time and 10 columns: the String and Binary ones left out */
    assert_int_equal(d2.type, 0);    /* little-endian doubles (the hosts we build on) */
    assert_int_equal(d2.cols, ROWS);
    /* x, f, i8, big, u, on, late (+ gain when it changes) */
    assert_int_equal(d2.rows, gain_changes ? 9 : 8);
    assert_int_equal(d1.rows, gain_changes ? 3 : 4); /* time, k, n (+ gain) */
    assert_true(cell(&d1, 0, 0) == 0.0 && cell(&d1, 0, 1) == 4.999);
    assert_true(cell(&d1, 1, 0) == 4.5 && cell(&d1, 1, 1) == 4.5);
    for (int k = 0; k < ROWS; k += 499) {
        assert_true(cell(&d2, 0, k) == k / 1000.0);
        /* a Float32 value as its shortest text reads: 49.9f is 49.9 */
        char text[RTCOSIM_FORMAT_MAX];
        rtcosim_format_float((float)k * 0.1f, text);
        assert_true(cell(&d2, 2, k) == strtod(text, NULL));
        assert_true(cell(&d2, 3, k) == (double)(int8_t)(k * 7));
        assert_true(cell(&d2, 6, k) == (k % 3 == 0 ? 1.0 : 0.0));
        double late = cell(&d2, gain_changes ? 8 : 7, k); /* (gain before it, in column order) */
        assert_true(k < 2500 ? late == 0.25 * k : isnan(late));
    }
    if (gain_changes) /* gain: data_2's 8th row, held between its changes */
        for (int k = 0; k < ROWS; k += 250) {
            double g = cell(&d2, 7, k);
            assert_true(k < 1000 ? g == 2.0 : k < 3000 ? isnan(g) : g == 3.0);
        }
    char text[RTCOSIM_FORMAT_MAX];
    rtcosim_format_float(499 * 0.1f, text);
    assert_string_equal(text, "49.9");
    unlink(csv);
    unlink(mat);
    unlink(ref);
}

static void equals_conversion_unthreaded(void **state)
{
    stream_equals_the_whole_conversion(*state, false, false);
}

static void equals_conversion_threaded(void **state)
{
    stream_equals_the_whole_conversion(*state, true, false);
}

static void changed_parameter_rewritten(void **state)
{
    stream_equals_the_whole_conversion(*state, false, true);
    stream_equals_the_whole_conversion(*state, true, true);
}

/* While the run goes, the file on disk is a whole MAT file: data_2 has the
 * time points written so far, data_1 the times of the first and last. */
static void file_is_whole_while_the_run_goes(void **state)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/live.mat", (const char *)*state);
    const rtcosim_column cols[2] = {{.name = "x", .type = RTCOSIM_TYPE_FLOAT64},
                                    {.name = "p", .type = RTCOSIM_TYPE_FLOAT64, .parameter = true}};
    rtcosim_recorder_options o = {.path = path, .columns = cols, .column_count = 2,
                                  .buffer_bytes = 4096};
    rtcosim_recorder *r;
    rtcosim_error err;
    assert_int_equal(rtcosim_recorder_open(&o, &r, &err), RTCOSIM_OK);
    for (int k = 0; k < 1000; k++) {
        rtcosim_value v[2] = {{.f64 = k * 2.0}, {.f64 = 9.0}};
        assert_int_equal(rtcosim_recorder_push_row(r, (int64_t)k * 10000000, v, &err), RTCOSIM_OK);
    }
    /* 16 bytes a time point, a 4096-byte buffer: 256 a write, 768 on disk */
    size_t size;
    uint8_t *file = (uint8_t *)tu_read_file(path, &size);
    mat4 d1, d2;
    assert_true(find_matrix(file, size, "data_1", &d1));
    assert_true(find_matrix(file, size, "data_2", &d2));
    assert_int_equal(d2.cols, 768);
    assert_int_equal(size, (size_t)(d2.data - file) + 768 * 16);
    assert_true(cell(&d2, 0, 767) == 7.67 && cell(&d2, 1, 767) == 1534.0);
    assert_true(cell(&d1, 0, 0) == 0.0 && cell(&d1, 0, 1) == 7.67);
    assert_true(cell(&d1, 1, 0) == 9.0 && cell(&d1, 1, 1) == 9.0);
    assert_int_equal(rtcosim_recorder_close(r, NULL, &err), RTCOSIM_OK);
    file = (uint8_t *)tu_read_file(path, &size);
    assert_true(find_matrix(file, size, "data_2", &d2));
    assert_int_equal(d2.cols, 1000);
    assert_true(find_matrix(file, size, "data_1", &d1));
    assert_true(cell(&d1, 0, 1) == 9.99);
}

/* A MAT v4 matrix counts its columns in an int32: the time points past
 * that are said and left out (the cap lowered for the test). */
static void time_points_past_the_limit_left_out(void **state)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/cap.mat", (const char *)*state);
    setenv("RTCOSIM_MAT_MAX_ROWS", "5", 1);
    const rtcosim_column cols[1] = {{.name = "x", .type = RTCOSIM_TYPE_FLOAT64}};
    rtcosim_recorder_options o = {.path = path, .columns = cols, .column_count = 1};
    rtcosim_recorder *r;
    rtcosim_error err;
    assert_int_equal(rtcosim_recorder_open(&o, &r, &err), RTCOSIM_OK);
    unsetenv("RTCOSIM_MAT_MAX_ROWS");
    tu_log_capture(RTCOSIM_LOG_WARNING);
    for (int k = 0; k < 8; k++) {
        rtcosim_value v[1] = {{.f64 = k}};
        assert_int_equal(rtcosim_recorder_push_row(r, (int64_t)k * 1000000000, v, &err),
                         RTCOSIM_OK);
    }
    rtcosim_recorder_stats stats;
    assert_int_equal(rtcosim_recorder_close(r, &stats, &err), RTCOSIM_OK);
    assert_int_equal(stats.rows_written, 5);
    char expected[4400];
    snprintf(expected, sizeof expected, "%s: the last 3 rows are not written: a MAT v4 matrix "
             "holds at most 5 time points", path);
    assert_non_null(strstr(tu_log_text(), expected));
    tu_log_reset();
    size_t size;
    uint8_t *file = (uint8_t *)tu_read_file(path, &size);
    mat4 d2;
    assert_true(find_matrix(file, size, "data_2", &d2));
    assert_int_equal(d2.cols, 5);
    assert_true(cell(&d2, 1, 4) == 4.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(equals_conversion_unthreaded, tu_scratch_setup,
                                        tu_scratch_teardown),
        cmocka_unit_test_setup_teardown(equals_conversion_threaded, tu_scratch_setup,
                                        tu_scratch_teardown),
        cmocka_unit_test_setup_teardown(changed_parameter_rewritten, tu_scratch_setup,
                                        tu_scratch_teardown),
        cmocka_unit_test_setup_teardown(file_is_whole_while_the_run_goes, tu_scratch_setup,
                                        tu_scratch_teardown),
        cmocka_unit_test_setup_teardown(time_points_past_the_limit_left_out, tu_scratch_setup,
                                        tu_scratch_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
