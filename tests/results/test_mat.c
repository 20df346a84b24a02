/* The recorder's .mat results read back with libmatio (not our code): the
 * Dymola layout facts (Aclass, name, description "text [unit]", dataInfo,
 * data_1 for a parameter, data_2 for trajectories) and values pushed,
 * non-finite ones included; an unknown extension refused. */
#include <math.h>
#include <matio.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rtcosim/results.h"
#include "util/test_util.h"

static matvar_t *read_var(mat_t *mat, const char *name)
{
    matvar_t *v = Mat_VarRead(mat, name);
    assert_non_null(v);
    return v;
}

static void mat_holds_the_dymola_layout(void **state)
{
    char path[4096], part[4200];
    snprintf(path, sizeof path, "%s/r.mat", (const char *)*state);
    const rtcosim_column cols[] = {
        {.name = "x", .type = RTCOSIM_TYPE_FLOAT64, .unit = "m", .description = "Position"},
        {.name = "p", .type = RTCOSIM_TYPE_FLOAT64, .parameter = true},
        {.name = "s", .type = RTCOSIM_TYPE_STRING},
        {.name = "n", .type = RTCOSIM_TYPE_INT32, .unit = "1"},
    };
    rtcosim_recorder_options o = {.path = path, .columns = cols, .column_count = 4};
    rtcosim_recorder *r;
    rtcosim_error err;
    assert_int_equal(rtcosim_recorder_open(&o, &r, &err), RTCOSIM_OK);
    const double xs[3] = {1.5, INFINITY, NAN};
    for (int k = 0; k < 3; k++) {
        rtcosim_value v[4] = {{.f64 = xs[k]}, {.f64 = 2.0}, {.s = "a,\"b\""}, {.i64 = -k}};
        assert_int_equal(rtcosim_recorder_push_row(r, k * 500000000LL, v, &err), RTCOSIM_OK);
    }
    assert_int_equal(rtcosim_recorder_close(r, NULL, &err), RTCOSIM_OK);
    snprintf(part, sizeof part, "%s.csv.part", path);
    assert_int_not_equal(access(part, F_OK), 0); /* converted and removed */

    mat_t *mat = Mat_Open(path, MAT_ACC_RDONLY);
    assert_non_null(mat);
    assert_int_equal(Mat_GetVersion(mat), MAT_FT_MAT4);
    matvar_t *ac = read_var(mat, "Aclass");
    assert_int_equal(ac->dims[0], 4);
    assert_int_equal(ac->dims[1], 11);
    const char *a = ac->data; /* column-major: row r is a[r], a[r + 4], ... */
    char row[12] = {0};
    for (int k = 0; k < 11; k++)
        row[k] = a[k * 4];
    assert_string_equal(row, "Atrajectory");
    for (int k = 0; k < 8; k++)
        row[k] = a[k * 4 + 3];
    row[8] = 0;
    assert_string_equal(row, "binTrans");
    Mat_VarFree(ac);

    matvar_t *name = read_var(mat, "name"), *desc = read_var(mat, "description");
    assert_int_equal(name->dims[1], 4); /* time, x, p, n: the String column left out */
    size_t w = name->dims[0];
    assert_memory_equal((char *)name->data + 0 * w, "time", 4);
    assert_memory_equal((char *)name->data + 1 * w, "x   ", 4);
    assert_memory_equal((char *)name->data + 2 * w, "p   ", 4);
    assert_memory_equal((char *)name->data + 3 * w, "n   ", 4);
    size_t dw = desc->dims[0];
    assert_memory_equal((char *)desc->data, "Time [s]", 8);
    assert_memory_equal((char *)desc->data + dw, "Position [m]", 12);
    assert_memory_equal((char *)desc->data + 3 * dw, "[1]", 3);
    Mat_VarFree(name);
    Mat_VarFree(desc);

    matvar_t *info = read_var(mat, "dataInfo");
    assert_int_equal(info->dims[0], 4);
    assert_int_equal(info->dims[1], 4);
    const int32_t expect_info[16] = {0, 1, 0, -1, 2, 2, 0, -1, 1, 2, 0, 0, 2, 3, 0, -1};
    /* stored as int32 (scipy sees int32: test_mat_scipy.py); matio hands MAT v4
     * data back as double */
    assert_int_equal(info->data_type, MAT_T_DOUBLE);
    for (int k = 0; k < 16; k++)
        assert_true(((const double *)info->data)[k] == expect_info[k]);
    Mat_VarFree(info);

    matvar_t *d1 = read_var(mat, "data_1");
    assert_int_equal(d1->dims[0], 2);
    assert_int_equal(d1->dims[1], 2);
    const double *v1 = d1->data; /* column-major: (time, p) at start, then at stop */
    assert_true(v1[0] == 0.0 && v1[1] == 2.0 && v1[2] == 1.0 && v1[3] == 2.0);
    Mat_VarFree(d1);

    matvar_t *d2 = read_var(mat, "data_2");
    assert_int_equal(d2->dims[0], 3);
    assert_int_equal(d2->dims[1], 3);
    const double *v2 = d2->data; /* per time point: time, x, n */
    assert_true(v2[0] == 0.0 && v2[1] == 1.5 && v2[2] == 0.0);
    assert_true(v2[3] == 0.5 && isinf(v2[4]) && v2[4] > 0 && v2[5] == -1.0);
    assert_true(v2[6] == 1.0 && isnan(v2[7]) && v2[8] == -2.0);
    Mat_VarFree(d2);
    Mat_Close(mat);
}

static void unknown_extension_is_refused(void **state)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/r.xlsx", (const char *)*state);
    const rtcosim_column cols[] = {{.name = "x", .type = RTCOSIM_TYPE_FLOAT64}};
    rtcosim_recorder_options o = {.path = path, .columns = cols, .column_count = 1};
    rtcosim_recorder *r = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_recorder_open(&o, &r, &err), RTCOSIM_EINVAL);
    assert_null(r);
    char expected[4200];
    snprintf(expected, sizeof expected, "%s: unknown results format '.xlsx' (use .csv, .mat or .mf4)", path);
    assert_string_equal(err.message, expected);
    assert_int_not_equal(access(path, F_OK), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(mat_holds_the_dymola_layout, tu_scratch_setup,
                                        tu_scratch_teardown),
        cmocka_unit_test_setup_teardown(unknown_extension_is_refused, tu_scratch_setup,
                                        tu_scratch_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
