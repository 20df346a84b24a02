/* rtcosim_results_compare against hand-computed cases: the same run as CSV
 * and as MAT match with no difference; sin sampled every 10 ms against every
 * 1 ms matches within the chord's error h^2/8 (1.25e-5) and not below it; a
 * step moved by 2 ms matches with a time tolerance of 5 ms and not 1 ms,
 * first outside at the reference's jump; a spike only one run has is found
 * whichever has it; NaN against NaN matches, against a number not; a
 * variable the actual lacks, an actual that stops early, the range
 * tolerance's floor; and the errors (a variable the reference lacks, bad
 * tolerances, a window that ends before it starts). */
#include <math.h>
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

/* A CSV of time and one column y = f(t) on a grid of step h over [0, end]. */
static void write_curve(const char *path, double h, double end, double (*f)(double))
{
    FILE *out = fopen(path, "w");
    assert_non_null(out);
    fprintf(out, "\"time\",\"y\"\n");
    long n = lround(end / h);
    for (long k = 0; k <= n; k++) {
        double t = (double)k * h;
        fprintf(out, "%.17g,%.17g\n", t, f(t));
    }
    fclose(out);
}

static rtcosim_compare_result *compare(const char *ref, const char *act,
                                       const rtcosim_compare_options *o)
{
    rtcosim_compare_result *r = NULL;
    rtcosim_error err;
    if (rtcosim_results_compare(ref, act, o, &r, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    return r;
}

static rtcosim_compare_options opts(double rtol, double atol, double range_tol, double time_tol)
{
    return (rtcosim_compare_options){.rtol = rtol, .atol = atol, .range_tol = range_tol,
                                     .time_tol = time_tol, .from = NAN, .to = NAN};
}

static void same_run_as_csv_and_mat_matches_exactly(void **state)
{
    char csv[4200], mat[4200];
    snprintf(csv, sizeof csv, "%s/r.csv", (const char *)*state);
    snprintf(mat, sizeof mat, "%s/r.mat", (const char *)*state);
    const rtcosim_column cols[2] = {{.name = "x", .type = RTCOSIM_TYPE_FLOAT64},
                                    {.name = "v", .type = RTCOSIM_TYPE_FLOAT64}};
    for (int f = 0; f < 2; f++) {
        rtcosim_recorder_options o = {.path = f ? mat : csv, .columns = cols, .column_count = 2};
        rtcosim_recorder *r;
        rtcosim_error err;
        assert_int_equal(rtcosim_recorder_open(&o, &r, &err), RTCOSIM_OK);
        for (int k = 0; k <= 1000; k++) {
            rtcosim_value v[2] = {{.f64 = cos(k * 0.01)}, {.f64 = -sin(k * 0.01)}};
            assert_int_equal(rtcosim_recorder_push_row(r, (int64_t)k * 10000000, v, &err),
                             RTCOSIM_OK);
        }
        assert_int_equal(rtcosim_recorder_close(r, NULL, &err), RTCOSIM_OK);
    }
    rtcosim_compare_options o = opts(0, 0, 0, 0);
    rtcosim_compare_result *r = compare(csv, mat, &o);
    assert_int_equal(r->variable_count, 2);
    assert_int_equal(r->differing, 0);
    assert_false(r->span_short);
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(r->variables[i].checked, 2 * 1001);
        assert_int_equal(r->variables[i].outside, 0);
        assert_true(r->variables[i].max_abs_diff == 0);
    }
    rtcosim_compare_result_free(r);
}

/* The chord of sin between samples h apart is at most h^2/8 max|sin''|
 * below the curve: 1.25e-5 for h = 10 ms, reached where |sin| is ~1. */
static void interpolation_error_within_the_chord_bound(void **state)
{
    char ref[4200], act[4200];
    snprintf(ref, sizeof ref, "%s/coarse.csv", (const char *)*state);
    snprintf(act, sizeof act, "%s/fine.csv", (const char *)*state);
    write_curve(ref, 0.01, 4, sin);
    write_curve(act, 0.001, 4, sin);
    rtcosim_compare_options o = opts(0, 1.3e-5, 0, 0);
    rtcosim_compare_result *r = compare(ref, act, &o);
    assert_int_equal(r->differing, 0);
    assert_true(r->variables[0].max_abs_diff > 1.2e-5 && r->variables[0].max_abs_diff < 1.25e-5);
    /* where |sin| is largest: near pi/2 */
    assert_true(fabs(r->variables[0].max_abs_diff_time - M_PI / 2) < 0.01);
    rtcosim_compare_result_free(r);
    o = opts(0, 1.2e-5, 0, 0);
    r = compare(ref, act, &o);
    assert_int_equal(r->differing, 1);
    assert_true(r->variables[0].outside > 0);
    rtcosim_compare_result_free(r);
}

/* y = 0 before t0, 1 from it: two rows at the jump. */
static void write_step(const char *path, double t0)
{
    FILE *out = fopen(path, "w");
    assert_non_null(out);
    fprintf(out, "\"time\",\"y\"\n");
    for (int k = 0; k <= 2000; k++) {
        double t = k * 0.001;
        if (fabs(t - t0) < 1e-9)
            fprintf(out, "%.17g,0\n", t);
        fprintf(out, "%.17g,%d\n", t, t >= t0 - 1e-9 ? 1 : 0);
    }
    fclose(out);
}

static void moved_event_within_the_time_tolerance(void **state)
{
    char ref[4200], act[4200];
    snprintf(ref, sizeof ref, "%s/step_ref.csv", (const char *)*state);
    snprintf(act, sizeof act, "%s/step_act.csv", (const char *)*state);
    write_step(ref, 1.0);
    write_step(act, 1.002);
    rtcosim_compare_options o = opts(1e-6, 0, 1e-6, 0.005);
    rtcosim_compare_result *r = compare(ref, act, &o);
    assert_int_equal(r->differing, 0);
    assert_true(r->variables[0].max_abs_diff == 1.0); /* at equal times the step is 1 off */
    rtcosim_compare_result_free(r);
    o = opts(1e-6, 0, 1e-6, 0.001);
    r = compare(ref, act, &o);
    assert_int_equal(r->differing, 1);
    /* the reference's 1 at 1.000 s: the actual is 0 over [0.999, 1.001];
     * the actual's 0 at 1.002 s: the reference is 1 over [1.001, 1.003]
     * (more around them as the grid's times round) */
    assert_true(r->variables[0].first_outside_time == 1.0);
    assert_true(r->variables[0].outside >= 2);
    rtcosim_compare_result_free(r);
}

static double flat(double t)
{
    (void)t;
    return 2.0;
}

/* A one-sample spike of 3 at 0.5 s in a flat 2 (CSV text by hand). */
static void write_flat(const char *path, bool spike, bool nan_at_07)
{
    FILE *out = fopen(path, "w");
    assert_non_null(out);
    fprintf(out, "\"time\",\"y\"\n");
    for (int k = 0; k <= 100; k++) {
        if (nan_at_07 && k == 70)
            fprintf(out, "%g,nan\n", k * 0.01);
        else
            fprintf(out, "%g,%g\n", k * 0.01, spike && k == 50 ? 3.0 : 2.0);
    }
    fclose(out);
}

static void spike_found_in_either_run(void **state)
{
    char plain[4200], spiky[4200];
    snprintf(plain, sizeof plain, "%s/plain.csv", (const char *)*state);
    snprintf(spiky, sizeof spiky, "%s/spiky.csv", (const char *)*state);
    write_flat(plain, false, false);
    write_flat(spiky, true, false);
    rtcosim_compare_options o = opts(1e-6, 0, 1e-6, 0.02); /* a window of two samples each way */
    for (int way = 0; way < 2; way++) {
        rtcosim_compare_result *r = way ? compare(spiky, plain, &o) : compare(plain, spiky, &o);
        assert_int_equal(r->differing, 1);
        assert_true(r->variables[0].first_outside_time == 0.5);
        assert_true(r->variables[0].max_abs_diff == 1.0);
        assert_true(r->variables[0].max_abs_diff_time == 0.5);
        rtcosim_compare_result_free(r);
    }
    (void)flat;
}

static void nan_matches_nan_only(void **state)
{
    char a[4200], b[4200];
    snprintf(a, sizeof a, "%s/nan_a.csv", (const char *)*state);
    snprintf(b, sizeof b, "%s/nan_b.csv", (const char *)*state);
    write_flat(a, false, true);
    write_flat(b, false, true);
    rtcosim_compare_options o = opts(0, 0, 0, 0);
    rtcosim_compare_result *r = compare(a, b, &o);
    assert_int_equal(r->differing, 0);
    rtcosim_compare_result_free(r);
    write_flat(b, false, false);
    r = compare(a, b, &o);
    assert_int_equal(r->differing, 1);
    /* at 0.7 s the reference's NaN and the actual's 2: each outside the other */
    assert_true(fabs(r->variables[0].first_outside_time - 0.7) < 1e-12);
    assert_int_equal(r->variables[0].outside, 2);
    rtcosim_compare_result_free(r);
}

/* An infinite sample (an FMU's overflow, a CSV's "inf") matches the same
 * infinity only: a run against itself matches (inf - inf is NaN, which
 * once made it differ from itself), against -inf or a number it differs. */
static void infinity_matches_the_same_infinity_only(void **state)
{
    const char *dir = *state;
    const char *texts[3] = {"time,y\n0,1\n1,inf\n2,3\n", "time,y\n0,1\n1,-inf\n2,3\n",
                            "time,y\n0,1\n1,2\n2,3\n"};
    char paths[3][4200];
    for (int k = 0; k < 3; k++) {
        snprintf(paths[k], sizeof paths[k], "%s/inf%d.csv", dir, k);
        FILE *out = fopen(paths[k], "w");
        assert_non_null(out);
        fputs(texts[k], out);
        fclose(out);
    }
    rtcosim_compare_options o = opts(1e-6, 0, 1e-6, 0);
    for (int k = 0; k < 2; k++) {
        rtcosim_compare_result *r = compare(paths[k], paths[k], &o);
        assert_int_equal(r->differing, 0);
        rtcosim_compare_result_free(r);
    }
    for (int k = 1; k < 3; k++)
        for (int way = 0; way < 2; way++) {
            rtcosim_compare_result *r = way ? compare(paths[k], paths[0], &o)
                                            : compare(paths[0], paths[k], &o);
            assert_int_equal(r->differing, 1);
            assert_true(r->variables[0].first_outside_time == 1.0);
            rtcosim_compare_result_free(r);
        }
}

static void missing_variable_short_span_and_range_floor(void **state)
{
    const char *dir = *state;
    char ref[4200], act[4200];
    snprintf(ref, sizeof ref, "%s/two.csv", dir);
    snprintf(act, sizeof act, "%s/one.csv", dir);
    tu_write_file(ref, "\"time\",\"y\",\"z\"\n0,0,1\n0.5,5,1\n1,10,1\n");
    tu_write_file(act, "\"time\",\"y\",\"w\"\n0,0.09,7\n0.5,5.09,7\n");
    /* y: 0.09 off; the range 10 times 0.01 gives 0.1 everywhere (0 too);
     * compared where both have samples: 0 .. 0.5 s */
    rtcosim_compare_options o = opts(0, 0, 0.01, 0);
    rtcosim_compare_result *r = compare(ref, act, &o);
    assert_int_equal(r->variable_count, 2);
    assert_false(r->variables[0].differs); /* y */
    assert_true(r->variables[0].ref_range == 10);
    assert_true(r->variables[1].missing && r->variables[1].differs); /* z */
    assert_int_equal(r->differing, 1);
    assert_true(r->span_short); /* the actual stops at 0.5 s of 1 */
    assert_int_equal(r->extra_in_actual, 1); /* w */
    rtcosim_compare_result_free(r);
    o = opts(0, 0, 0.005, 0); /* 0.005 of the window's range 5: y's 0.09 is outside */
    o.to = 0.5;               /* a window the actual covers */
    r = compare(ref, act, &o);
    assert_false(r->span_short);
    assert_true(r->variables[0].differs);
    assert_true(r->variables[0].ref_range == 5); /* over the window */
    rtcosim_compare_result_free(r);
}

static void bad_requests_are_errors(void **state)
{
    const char *dir = *state;
    char ref[4200], expected[4400];
    snprintf(ref, sizeof ref, "%s/ok.csv", dir);
    tu_write_file(ref, "\"time\",\"y\",\"s\"\n0,1,\"a\"\n1,2,\"b\"\n");
    rtcosim_compare_result *r = NULL;
    rtcosim_error err;
    const char *names[1] = {"nope"};
    rtcosim_compare_options o = opts(1e-6, 0, 0, 0);
    o.variables = names;
    o.variable_count = 1;
    assert_int_equal(rtcosim_results_compare(ref, ref, &o, &r, &err), RTCOSIM_ENOTFOUND);
    snprintf(expected, sizeof expected, "%s: no variable 'nope'", ref);
    assert_string_equal(err.message, expected);
    names[0] = "s";
    assert_int_equal(rtcosim_results_compare(ref, ref, &o, &r, &err), RTCOSIM_EINVAL);
    snprintf(expected, sizeof expected, "%s: 's' holds text, not numbers: not compared", ref);
    assert_string_equal(err.message, expected);
    o = opts(-1, 0, 0, 0);
    assert_int_equal(rtcosim_results_compare(ref, ref, &o, &r, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "tolerances must be finite and not negative"));
    o = opts(0, 0, 0, 0);
    o.from = 2;
    o.to = 1;
    assert_int_equal(rtcosim_results_compare(ref, ref, &o, &r, &err), RTCOSIM_EINVAL);
    assert_string_equal(err.message, "compare: the window ends (1 s) before it starts (2 s)");
    o = opts(0, 0, 0, 0);
    o.from = 5; /* after the reference's end */
    assert_int_equal(rtcosim_results_compare(ref, ref, &o, &r, &err), RTCOSIM_EINVAL);
    snprintf(expected, sizeof expected, "compare: the window 5 .. 1 s holds no time of %s "
             "(0 .. 1 s)", ref);
    assert_string_equal(err.message, expected);
    char absent[4200];
    snprintf(absent, sizeof absent, "%s/absent.csv", dir);
    o = opts(0, 0, 0, 0);
    assert_int_not_equal(rtcosim_results_compare(ref, absent, &o, &r, &err), RTCOSIM_OK);
    assert_non_null(strstr(err.message, absent));
    assert_null(r);
    /* every numeric column, the text one left out */
    r = compare(ref, ref, &o);
    assert_int_equal(r->variable_count, 1);
    assert_string_equal(r->variables[0].name, "y");
    rtcosim_compare_result_free(r);
    /* a column of empty strings (it reads as NaN) the actual lacks, as a
     * MAT file leaves text out: not compared, counted; named, it is missing */
    char empty[4200], plain[4200];
    snprintf(empty, sizeof empty, "%s/empty_text.csv", dir);
    snprintf(plain, sizeof plain, "%s/plain_y.csv", dir);
    tu_write_file(empty, "\"time\",\"y\",\"s\"\n0,1,\"\"\n1,2,\"\"\n");
    tu_write_file(plain, "\"time\",\"y\"\n0,1\n1,2\n");
    r = compare(empty, plain, &o);
    assert_int_equal(r->variable_count, 1);
    assert_int_equal(r->empty_in_reference, 1);
    assert_int_equal(r->differing, 0);
    rtcosim_compare_result_free(r);
    names[0] = "s";
    o.variables = names;
    o.variable_count = 1;
    r = compare(empty, plain, &o);
    assert_true(r->variables[0].missing);
    rtcosim_compare_result_free(r);
    /* nothing numeric to compare is no match: fmusim's CSV holds an FMI 3.0
     * array as one column of text ("y" = "1 2 3"), rtcosim's as y[1], y[2]
     * and y[3] (this passed as "0 of 0 variables") */
    char array[4200], elements[4200];
    snprintf(array, sizeof array, "%s/fmusim_array.csv", dir);
    snprintf(elements, sizeof elements, "%s/elements.csv", dir);
    tu_write_file(array, "\"time\",\"y\"\n0,\"1 2 3\"\n1,\"4 5 6\"\n");
    tu_write_file(elements, "\"time\",\"y[1]\",\"y[2]\",\"y[3]\"\n0,1,2,3\n1,4,5,6\n");
    o = opts(0, 0, 0, 0);
    r = (rtcosim_compare_result *)1;
    assert_int_equal(rtcosim_results_compare(array, elements, &o, &r, &err), RTCOSIM_EINVAL);
    assert_null(r);
    snprintf(expected, sizeof expected,
             "%s: no numeric variable to compare (1 column of text, 0 without a number, "
             "0 excluded)", array);
    assert_string_equal(err.message, expected);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(same_run_as_csv_and_mat_matches_exactly, tu_scratch_setup,
                                        tu_scratch_teardown),
        cmocka_unit_test_setup_teardown(interpolation_error_within_the_chord_bound,
                                        tu_scratch_setup, tu_scratch_teardown),
        cmocka_unit_test_setup_teardown(moved_event_within_the_time_tolerance, tu_scratch_setup,
                                        tu_scratch_teardown),
        cmocka_unit_test_setup_teardown(spike_found_in_either_run, tu_scratch_setup,
                                        tu_scratch_teardown),
        cmocka_unit_test_setup_teardown(nan_matches_nan_only, tu_scratch_setup,
                                        tu_scratch_teardown),
        cmocka_unit_test_setup_teardown(infinity_matches_the_same_infinity_only, tu_scratch_setup,
                                        tu_scratch_teardown),
        cmocka_unit_test_setup_teardown(missing_variable_short_span_and_range_floor,
                                        tu_scratch_setup, tu_scratch_teardown),
        cmocka_unit_test_setup_teardown(bad_requests_are_errors, tu_scratch_setup,
                                        tu_scratch_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
