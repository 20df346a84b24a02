/* libmatio, libzip, PLplot and libmpi are loaded when first needed, not when the library
 * starts (src/util/lazy_lib.h): a program linked with rtcosim alone (not even
 * the test helpers, which link libzip) finds each absent before its first use
 * and present after. The MAT file written is a MAT v4 file (its first matrix
 * header: type 51 = text stored as uint8, 4 rows, 11 columns, the name
 * "Aclass" of length 7, by the MAT v4 layout); opening a file that is not a
 * zip archive fails with libzip's verdict, after libzip was loaded; a plot
 * drawn is an SVG file. libmpi is not in the process of a program that opens
 * no MPI transport (the tests under mpirun, tests/mpi, load it). */
#include <dlfcn.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "archive/archive.h"
#include "rtcosim/mpi.h"
#include "rtcosim/plot.h"
#include "rtcosim/results.h"

static bool loaded(const char *soname)
{
    void *lib = dlopen(soname, RTLD_NOW | RTLD_NOLOAD);
    if (lib)
        dlclose(lib);
    return lib != NULL;
}

static int has_name(struct dl_phdr_info *info, size_t size, void *name)
{
    (void)size;
    return info->dlpi_name && strstr(info->dlpi_name, name) ? 1 : 0;
}

static void libmpi_not_loaded_without_mpirun(void **state)
{
    (void)state;
    assert_false(rtcosim_mpi_launched());
    assert_int_equal(dl_iterate_phdr(has_name, "libmpi"), 0);
    assert_int_equal(dl_iterate_phdr(has_name, "librtcosim.so"), 1); /* the check itself works */
}

static char dir[64];

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void matio_loaded_on_first_mat_file(void **state)
{
    (void)state;
    assert_false(loaded(MATIO_SONAME));
    char csv[128], mat[128];
    snprintf(csv, sizeof csv, "%s/r.csv", dir);
    snprintf(mat, sizeof mat, "%s/r.mat", dir);
    write_text(csv, "time,x\n0,1\n0.5,2\n");
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_results_csv_to_mat(csv, mat, NULL, 0, &err), RTCOSIM_OK);
    assert_true(loaded(MATIO_SONAME));
    unsigned char bytes[32];
    FILE *f = fopen(mat, "rb");
    assert_non_null(f);
    assert_int_equal(fread(bytes, 1, sizeof bytes, f), sizeof bytes);
    fclose(f);
    int32_t head[5];
    memcpy(head, bytes, sizeof head);
    assert_int_equal(head[0], 51);
    assert_int_equal(head[1], 4);
    assert_int_equal(head[2], 11);
    assert_int_equal(head[4], 7);
    assert_memory_equal(bytes + 20, "Aclass", 7);
    unlink(csv);
    unlink(mat);
}

static void libzip_loaded_on_first_archive(void **state)
{
    (void)state;
    assert_false(loaded(ZIP_SONAME));
    char path[128];
    snprintf(path, sizeof path, "%s/not.fmu", dir);
    write_text(path, "not a zip archive\n");
    rtcosim_error err = {0};
    char *out = NULL;
    assert_int_not_equal(rtcosim_archive_extract(path, dir, NULL, &out, &err), RTCOSIM_OK);
    assert_null(out);
    assert_non_null(strstr(err.message, "not.fmu"));
    assert_true(loaded(ZIP_SONAME));
    unlink(path);
}

static void plplot_loaded_on_first_plot(void **state)
{
    (void)state;
    assert_false(loaded(PLPLOT_SONAME));
    char csv[128], svg[128];
    snprintf(csv, sizeof csv, "%s/p.csv", dir);
    snprintf(svg, sizeof svg, "%s/p.svg", dir);
    write_text(csv, "time,x\n0,1\n0.5,2\n1,0\n");
    const char *vars[] = {"x"};
    rtcosim_error err = {0};
    assert_int_equal(rtcosim_plot_csv(csv, vars, 1, svg, NULL, &err), RTCOSIM_OK);
    assert_true(loaded(PLPLOT_SONAME));
    char head[256] = {0};
    FILE *f = fopen(svg, "r");
    assert_non_null(f);
    assert_true(fread(head, 1, sizeof head - 1, f) > 0);
    fclose(f);
    assert_non_null(strstr(head, "<svg"));
    unlink(csv);
    unlink(svg);
}

static int setup(void **state)
{
    (void)state;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/lazy-XXXXXX", tmp && strlen(tmp) < 40 ? tmp : "/tmp");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    return rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(matio_loaded_on_first_mat_file),
                                       cmocka_unit_test(libzip_loaded_on_first_archive),
                                       cmocka_unit_test(plplot_loaded_on_first_plot),
                                       cmocka_unit_test(libmpi_not_loaded_without_mpirun)};
    return cmocka_run_group_tests(tests, setup, teardown);
}
