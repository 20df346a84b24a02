/* rtcosim_results_convert through the C API: a stop asked for ends the
 * conversion at its next look (every 4096 rows: of the CSV's first reading,
 * then of the rows written) with exactly the rows so far in OUT (none, and no
 * OUT, in the first reading) and RTCOSIM_ECANCELED; without one every row of the window, the
 * named variables only, in their order; a failure leaves no OUT. Truth: a
 * CSV written here, x = k and y = -2k in row k at k ms. */
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

enum { ROWS = 10000 };

static const char *write_input(void)
{
    const char *path = tu_scratch("in.csv");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "\"time\",\"x\",\"y\"\n\"s\",\"m\",\"\"\n");
    for (int k = 0; k < ROWS; k++)
        fprintf(f, "%g,%d,%d\n", k / 1000.0, k, -2 * k);
    fclose(f);
    return path;
}

/* rows of OUT after its header (and units row): each row's x checked */
static size_t check_rows(const char *path, bool units, int first_x, bool only_y)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[256];
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, only_y ? "\"time\",\"y\"\n" : "\"time\",\"x\",\"y\"\n");
    if (units) {
        assert_non_null(fgets(line, sizeof line, f));
        assert_string_equal(line, only_y ? "\"s\",\"\"\n" : "\"s\",\"m\",\"\"\n");
    }
    size_t n = 0;
    while (fgets(line, sizeof line, f)) {
        double t;
        long a, b;
        int k = first_x + (int)n;
        if (only_y) {
            assert_int_equal(sscanf(line, "%lf,%ld", &t, &a), 2);
            assert_int_equal(a, -2 * k);
        } else {
            assert_int_equal(sscanf(line, "%lf,%ld,%ld", &t, &a, &b), 3);
            assert_int_equal(a, k);
            assert_int_equal(b, -2 * k);
        }
        assert_true(fabs(t - k / 1000.0) < 1e-12);
        n++;
    }
    fclose(f);
    return n;
}

static int looks, stop_at_look;
static bool stop_at_once(void *context)
{
    (void)context;
    return ++looks >= stop_at_look;
}

static void a_stop_keeps_the_rows_so_far(void **state)
{
    (void)state;
    const char *in = write_input();
    char *out = strdup(tu_scratch("out.csv"));
    rtcosim_results_convert_options o = {.from = NAN, .to = NAN, .csv_units = true,
                                         .stop = stop_at_once};
    rtcosim_results_convert_stats stats;
    rtcosim_error err;
    /* asked at once: in the CSV's first reading (its columns, every 4096
     * rows), nothing written, OUT not made */
    looks = 0, stop_at_look = 1;
    assert_int_equal(rtcosim_results_convert(in, out, &o, &stats, &err), RTCOSIM_ECANCELED);
    assert_true(stats.stopped);
    assert_int_equal(looks, 1);
    assert_int_equal(stats.rows, 0);
    assert_int_not_equal(access(out, F_OK), 0);
    /* past the first reading (two looks in its 10 000 rows): the rows
     * written when the recorder's turn asks */
    looks = 0, stop_at_look = 3;
    assert_int_equal(rtcosim_results_convert(in, out, &o, &stats, &err), RTCOSIM_ECANCELED);
    assert_true(stats.stopped);
    assert_int_equal(looks, 3);
    assert_int_equal(stats.rows, 4096);
    assert_int_equal(check_rows(out, true, 0, false), 4096);
    /* no stop: every row */
    o.stop = NULL;
    assert_int_equal(rtcosim_results_convert(in, out, &o, &stats, &err), RTCOSIM_OK);
    assert_false(stats.stopped);
    assert_int_equal(stats.rows, ROWS);
    assert_int_equal(stats.columns, 2);
    assert_int_equal(check_rows(out, true, 0, false), ROWS);
    free(out);
}

static void a_window_of_named_variables(void **state)
{
    (void)state;
    const char *in = write_input();
    char *out = strdup(tu_scratch("y.csv"));
    const char *names[] = {"y"};
    rtcosim_results_convert_options o = {.variables = names, .variable_count = 1,
                                         .from = 2.5, .to = 3.0};
    rtcosim_results_convert_stats stats;
    rtcosim_error err;
    assert_int_equal(rtcosim_results_convert(in, out, &o, &stats, &err), RTCOSIM_OK);
    assert_int_equal(stats.rows, 501); /* 2.500 .. 3.000 s, both ends */
    assert_int_equal(check_rows(out, false, 2500, true), 501);
    /* a variable the file lacks: said, and OUT gone (not left from before) */
    const char *absent[] = {"y", "z"};
    o.variables = absent;
    o.variable_count = 2;
    assert_int_equal(rtcosim_results_convert(in, out, &o, &stats, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "no variable 'z'"));
    assert_non_null(strstr(err.message, "in.csv"));
    /* (the recorder was never opened: the earlier OUT stays as it was) */
    assert_int_equal(access(out, F_OK), 0);
    /* a time rtcosim cannot hold (the reader says so): no OUT */
    const char *bad = tu_scratch("bad.csv");
    tu_write_file(bad, "time,x\n-1,2\n1e300,1\n");
    char *out2 = strdup(tu_scratch("bad_out.mf4"));
    o = (rtcosim_results_convert_options){.from = NAN, .to = NAN};
    assert_int_equal(rtcosim_results_convert(bad, out2, &o, &stats, &err), RTCOSIM_EFORMAT);
    assert_non_null(strstr(err.message, "bad.csv:3: time"));
    assert_int_not_equal(access(out2, F_OK), 0);
    free(out);
    free(out2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_stop_keeps_the_rows_so_far),
        cmocka_unit_test(a_window_of_named_variables),
    };
    return cmocka_run_group_tests(tests, tu_scratch_group_setup, tu_scratch_group_teardown);
}
