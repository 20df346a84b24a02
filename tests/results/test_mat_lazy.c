/* libmatio is loaded when the first MAT file is written, not when the
 * library starts (src/results/matio_dl.h): a program linked with rtcosim
 * alone finds it absent before, present after, and the file written is a
 * MAT v4 file (its first matrix header: type 51 = text, 4 rows, 11 columns,
 * "Aclass" name length 7, by the MAT v4 layout). */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtcosim/results.h"
#include "util/test_util.h"

static void matio_loaded_on_first_write(void **state)
{
    (void)state;
    assert_null(dlopen(MATIO_SONAME, RTLD_NOW | RTLD_NOLOAD));
    char *dir = tu_make_dir();
    char csv[4096], mat[4096];
    snprintf(csv, sizeof csv, "%s", tu_path(dir, "r.csv"));
    snprintf(mat, sizeof mat, "%s", tu_path(dir, "r.mat"));
    tu_write_file(csv, "time,x\n0,1\n0.5,2\n");
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_results_csv_to_mat(csv, mat, NULL, 0, &err), RTCOSIM_OK);
    void *lib = dlopen(MATIO_SONAME, RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(lib);
    dlclose(lib);
    size_t size = 0;
    char *bytes = tu_read_file(mat, &size);
    assert_true(size > 20);
    int32_t head[5];
    memcpy(head, bytes, sizeof head);
    assert_int_equal(head[0], 51); /* little-endian, text, stored as uint8 */
    assert_int_equal(head[1], 4);
    assert_int_equal(head[2], 11);
    assert_int_equal(head[4], 7);
    assert_memory_equal(bytes + 20, "Aclass", 7);
    free(bytes);
    tu_drop_dir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(matio_loaded_on_first_write)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
