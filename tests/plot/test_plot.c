/* Tests of `rtcosim_plot_csv`: PNG and SVG files are produced and well
 * formed, the SVG carries title, axis labels and every legend name, long
 * series are reduced per pixel, and each bad input fails with its message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <libxml/parser.h>

#include "rtcosim/plot.h"
#include "util/test_util.h"

static char *dir;
static char csv_path[300];

static const char *path_in_dir(const char *name)
{
    static char buf[4][400];
    static int next;
    char *p = buf[next++ % 4];
    snprintf(p, sizeof buf[0], "%s/%s", dir, name);
    return p;
}

static int setup(void **state)
{
    (void)state;
    dir = tu_make_dir();
    snprintf(csv_path, sizeof csv_path, "%s/results.csv", dir);
    FILE *f = fopen(csv_path, "w");
    assert_non_null(f);
    fprintf(f, "time,mass.x,mass.v,err\n");
    for (int i = 0; i <= 100; i++)
        fprintf(f, "%g,%g,%g,%g\n", i * 0.01, 1.0 - i * 0.01, -0.5 * i * 0.01, 1e-3 * (i + 1));
    fclose(f);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tu_drop_dir(dir);
    return 0;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* All character data of an SVG (PLplot writes text as character references). */
static char *svg_text(const char *path)
{
    xmlDoc *doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    assert_non_null(doc);
    xmlChar *text = xmlNodeGetContent(xmlDocGetRootElement(doc));
    char *copy = strdup((const char *)text);
    xmlFree(text);
    xmlFreeDoc(doc);
    return copy;
}

static void test_png_is_written_with_png_signature(void **state)
{
    (void)state;
    const char *out = path_in_dir("x.png");
    rtcosim_error err;
    const char *vars[] = {"mass.x", "mass.v"};
    if (rtcosim_plot_csv(csv_path, vars, 2, out, NULL, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_true(file_size(out) > 1000);
    unsigned char sig[8] = {0};
    FILE *f = fopen(out, "rb");
    assert_non_null(f);
    assert_int_equal(fread(sig, 1, 8, f), 8);
    fclose(f);
    static const unsigned char png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    assert_memory_equal(sig, png_sig, 8);
}

/* A PDF (for reports, vector): the file starts with ISO 32000's header and its
 * page is the asked size, a point per pixel (MediaBox [0 0 1200 700]). */
static void test_pdf_page_has_the_asked_size(void **state)
{
    (void)state;
    const char *out = path_in_dir("x.pdf");
    rtcosim_error err;
    const char *vars[] = {"mass.x"};
    rtcosim_plot_options o = {.width = 1200, .height = 700};
    if (rtcosim_plot_csv(csv_path, vars, 1, out, &o, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    FILE *f = fopen(out, "rb");
    assert_non_null(f);
    static char bytes[1 << 20];
    size_t n = fread(bytes, 1, sizeof bytes - 1, f);
    fclose(f);
    bytes[n] = '\0';
    assert_true(n > 1000);
    assert_memory_equal(bytes, "%PDF-", 5);
    bool found = false;
    for (size_t i = 0; i + 30 < n && !found; i++)
        found = memcmp(bytes + i, "MediaBox [ 0 0 1200 700 ]", 25) == 0;
    assert_true(found);
}

static void test_svg_contains_title_labels_and_legend_names(void **state)
{
    (void)state;
    const char *out = path_in_dir("x.svg");
    rtcosim_error err;
    rtcosim_plot_options opts = {.title = "Oscillator #1"};
    if (rtcosim_plot_csv(csv_path, NULL, 0, out, &opts, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    char *text = svg_text(out);
    assert_non_null(strstr(text, "Oscillator #1")); /* '#' escaped for PLplot, shown as is */
    assert_non_null(strstr(text, "time [s]"));
    assert_non_null(strstr(text, "mass.x"));
    assert_non_null(strstr(text, "mass.v"));
    assert_non_null(strstr(text, "err"));
    free(text);
}

static void test_log_log_against_a_column(void **state)
{
    (void)state;
    const char *out = path_in_dir("loglog.svg");
    rtcosim_error err;
    const char *vars[] = {"err"};
    rtcosim_plot_options opts = {.x = "err", .log_x = true, .log_y = true};
    if (rtcosim_plot_csv(csv_path, vars, 1, out, &opts, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    char *text = svg_text(out);
    /* The x label is the column name; the y label the single variable. */
    assert_non_null(strstr(text, "err"));
    assert_null(strstr(text, "time [s]"));
    free(text);
}

static void test_long_series_is_reduced_per_pixel(void **state)
{
    (void)state;
    /* 200000 rows of a sawtooth: the SVG keeps about two points per bucket
     * (2 x 2 x width = 4000 for width 1000), so it stays far below the size
     * of a 200000-point path (~3 MB). */
    const char *big = path_in_dir("big.csv");
    FILE *f = fopen(big, "w");
    assert_non_null(f);
    fprintf(f, "time,saw\n");
    for (int i = 0; i < 200000; i++)
        fprintf(f, "%d.%06d,%d\n", i / 100000, (i % 100000) * 10, i % 7);
    fclose(f);
    const char *out = path_in_dir("big.svg");
    rtcosim_error err;
    if (rtcosim_plot_csv(big, NULL, 0, out, NULL, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_true(file_size(out) > 1000);
    assert_true(file_size(out) < 400000);
}

static void expect_failure(const char *csv, const char *const *vars, size_t n, const char *out,
                           const rtcosim_plot_options *opts, rtcosim_status status,
                           const char *message)
{
    rtcosim_error err;
    rtcosim_error_clear(&err);
    assert_int_equal(rtcosim_plot_csv(csv, vars, n, out, opts, &err), status);
    assert_string_equal(err.message, message);
}

static void test_bad_inputs_fail_with_messages(void **state)
{
    (void)state;
    char msg[600];
    const char *svg = path_in_dir("bad.svg");
    const char *missing = path_in_dir("missing.csv");
    snprintf(msg, sizeof msg, "%s: cannot open", missing);
    rtcosim_error err;
    assert_int_equal(rtcosim_plot_csv(missing, NULL, 0, svg, NULL, &err), RTCOSIM_ENOTFOUND);
    assert_int_equal(strncmp(err.message, msg, strlen(msg)), 0);

    const char *unknown[] = {"mass.x", "mass.y"};
    snprintf(msg, sizeof msg, "%s: no variable 'mass.y' in the results; did you mean 'mass.x'?",
             csv_path);
    expect_failure(csv_path, unknown, 2, svg, NULL, RTCOSIM_ENOTFOUND, msg);

    expect_failure(csv_path, NULL, 0, "/nonexistent-dir/out.svg", NULL, RTCOSIM_EIO,
                   "/nonexistent-dir/out.svg: cannot write: No such file or directory");

    const char *jpg = path_in_dir("out.jpg");
    snprintf(msg, sizeof msg, "%s: unknown plot format (use a .svg, .png or .pdf file name)", jpg);
    expect_failure(csv_path, NULL, 0, jpg, NULL, RTCOSIM_EINVAL, msg);

    rtcosim_plot_options by_missing = {.x = "speed"};
    snprintf(msg, sizeof msg, "%s: no column 'speed' for the x axis", csv_path);
    expect_failure(csv_path, NULL, 0, svg, &by_missing, RTCOSIM_ENOTFOUND, msg);

    const char *negative[] = {"mass.v"}; /* <= 0 everywhere */
    rtcosim_plot_options log_y = {.log_y = true};
    snprintf(msg, sizeof msg, "%s: nothing to plot (a log axis needs positive values)", svg);
    expect_failure(csv_path, negative, 1, svg, &log_y, RTCOSIM_EINVAL, msg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_png_is_written_with_png_signature),
        cmocka_unit_test(test_pdf_page_has_the_asked_size),
        cmocka_unit_test(test_svg_contains_title_labels_and_legend_names),
        cmocka_unit_test(test_log_log_against_a_column),
        cmocka_unit_test(test_long_series_is_reduced_per_pixel),
        cmocka_unit_test(test_bad_inputs_fail_with_messages),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
