/* Tests of the results CSV read a line at a time (src/plot/plot_csv.c):
 * hand-written files with the values they must give (units row, quoting,
 * CRLF, a lone CR, a BOM, empty and non-number cells, text columns, a
 * selection, one-line errors naming file and line), and every CSV the plot
 * and results tests and fuzz seeds use read by both the streaming and the
 * whole reader (plot_table_read_csv_whole), which must agree bit for bit. */
#include <ftw.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "plot/plot_internal.h"
#include "rtcosim/flat.h"
#include "util/test_util.h"

static const char *write_csv(const char *name, const char *text, size_t size)
{
    const char *path = tu_scratch(name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, size, f), size);
    fclose(f);
    return path;
}

#define WRITE(name, literal) write_csv(name, literal, sizeof literal - 1)

static plot_table *read_ok(const char *path, const result_select *s)
{
    plot_table *t = NULL;
    rtcosim_error err;
    if (plot_csv_read(path, s, &t, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    return t;
}

static void expect_column(const plot_table *t, size_t c, const char *name, const char *unit,
                          bool text, const double *values)
{
    const plot_column *col = &t->columns[c];
    assert_string_equal(col->name, name);
    if (unit)
        assert_string_equal(col->unit, unit);
    else
        assert_null(col->unit);
    assert_int_equal(col->text, text);
    for (size_t r = 0; r < t->rows; r++) {
        if (isnan(values[r]))
            assert_true(isnan(col->values[r]));
        else
            assert_true(col->values[r] == values[r]);
    }
}

static void expect_error(const char *path, rtcosim_status status, const char *tail)
{
    plot_table *t = NULL;
    rtcosim_error err;
    assert_int_equal(plot_csv_read(path, NULL, &t, &err), status);
    assert_null(t);
    char want[600];
    snprintf(want, sizeof want, "%s%s", path, tail);
    assert_string_equal(err.message, want);
    assert_null(strchr(err.message, '\n'));
}

static void test_units_row_and_quoting(void **state)
{
    (void)state;
    const char *path = WRITE("units.csv", "\"time\",\"x\",\"a \"\"b\"\"\",\"v, w\"\n"
                                          "\"s\",\"m\",\"\",\"m/s\"\n"
                                          "0,1.5,2,3\n"
                                          "0.1,-2.5e3, 4 ,\"5\"\n");
    plot_table *t = read_ok(path, NULL);
    assert_string_equal(t->first_name, "time");
    assert_int_equal(t->rows, 2);
    assert_int_equal(t->column_count, 3);
    assert_true(t->time[0] == 0.0 && t->time[1] == 0.1);
    expect_column(t, 0, "x", "m", false, (double[]){1.5, -2500});
    expect_column(t, 1, "a \"b\"", NULL, false, (double[]){2, 4});
    expect_column(t, 2, "v, w", "m/s", false, (double[]){3, 5});
    plot_table_free(t);

    /* "sec", "[s]" and an empty first cell mark a units row too; another
     * first cell is a (bad) data row */
    t = read_ok(WRITE("sec.csv", "time,x\nsec,V\n0,1\n"), NULL);
    expect_column(t, 0, "x", "V", false, (double[]){1});
    plot_table_free(t);
    t = read_ok(WRITE("brackets.csv", "time,x\n[s],V\n0,1\n"), NULL);
    expect_column(t, 0, "x", "V", false, (double[]){1});
    plot_table_free(t);
    t = read_ok(WRITE("empty_first.csv", "time,x\n,V\n0,1\n"), NULL);
    expect_column(t, 0, "x", "V", false, (double[]){1});
    plot_table_free(t);
    expect_error(WRITE("no_units.csv", "time,x\nms,V\n0,1\n"), RTCOSIM_EFORMAT,
                 ":2: time 'ms' is not a valid time in seconds");
}

static void test_line_ends_and_bom(void **state)
{
    (void)state;
    /* CR LF, blank lines, a BOM, no newline at the end */
    plot_table *t = read_ok(WRITE("crlf.csv", "\xEF\xBB\xBFtime,x\r\ns,K\r\n\r\n0,1\r\n  \r\n1,2"), NULL);
    assert_int_equal(t->rows, 2);
    expect_column(t, 0, "x", "K", false, (double[]){1, 2});
    assert_true(t->time[1] == 1.0);
    plot_table_free(t);
    /* a lone CR is no line break (as rtcosim_csv): one header line, no rows */
    expect_error(WRITE("cr.csv", "time,x\r0,1\r1,2\r"), RTCOSIM_EFORMAT,
                 ": no data rows after the header");
}

static void test_cells_that_are_no_number(void **state)
{
    (void)state;
    const char *path = WRITE("cells.csv", "time,n,s,e,h\n"
                                          "0,nan,\"on\",,0x10\n"
                                          "1,inf,off,,1e999\n"
                                          "2,-inf,\"\",,1.5x\n");
    plot_table *t = read_ok(path, NULL);
    assert_int_equal(t->rows, 3);
    expect_column(t, 0, "n", NULL, false, (double[]){NAN, INFINITY, -INFINITY});
    expect_column(t, 1, "s", NULL, true, (double[]){NAN, NAN, NAN}); /* every non-empty cell text */
    expect_column(t, 2, "e", NULL, false, (double[]){NAN, NAN, NAN}); /* empty: numbers (NaN) */
    expect_column(t, 3, "h", NULL, false, (double[]){16, INFINITY, NAN}); /* a number among: not text */
    plot_table_free(t);
}

static void test_selection(void **state)
{
    (void)state;
    const char *path = WRITE("select.csv", "time,a,b,c,d\ns,m,,kg,\n0,1,2,3,4\n1,5,6,7,8\n");
    const char *names[] = {"d", "b", "missing"};
    result_select s = {names, 3};
    plot_table *t = read_ok(path, &s);
    /* the file's order, a name the file lacks left to the caller */
    assert_int_equal(t->column_count, 2);
    expect_column(t, 0, "b", NULL, false, (double[]){2, 6});
    expect_column(t, 1, "d", NULL, false, (double[]){4, 8});
    assert_true(t->time[1] == 1.0);
    plot_table_free(t);
    /* nothing the file has: time alone */
    const char *none[] = {"zz"};
    t = read_ok(path, &(result_select){none, 1});
    assert_int_equal(t->column_count, 0);
    assert_int_equal(t->rows, 2);
    plot_table_free(t);
    /* the names alone: the header read, no rows */
    rtcosim_error err;
    assert_int_equal(plot_csv_read_names(path, &t, &err), RTCOSIM_OK);
    assert_int_equal(t->rows, 0);
    assert_int_equal(t->column_count, 4);
    assert_string_equal(t->columns[3].name, "d");
    plot_table_free(t);
}

static void test_errors_name_file_and_line(void **state)
{
    (void)state;
    expect_error(WRITE("empty.csv", ""), RTCOSIM_EFORMAT,
                 ": file is empty (expected a header row starting with \"time\")");
    expect_error(WRITE("header_only.csv", "time,x\n\n"), RTCOSIM_EFORMAT,
                 ": no data rows after the header");
    expect_error(WRITE("ragged.csv", "time,x\n0,1\n1,2,3\n"), RTCOSIM_EFORMAT,
                 ":3: 3 values, expected 2 (time and the 1 columns of the header)");
    expect_error(WRITE("quote.csv", "time,x\n0,\"1\n"), RTCOSIM_EFORMAT,
                 ":2: field 2: missing closing quote");
    expect_error(WRITE("after_quote.csv", "time,x\n0,\"1\"x\n"), RTCOSIM_EFORMAT,
                 ":2: field 2: unexpected text after the closing quote");
    expect_error(WRITE("back.csv", "time,x\n0,1\n\n2,1\n1,1\n"), RTCOSIM_EFORMAT,
                 ":5: time 1 is earlier than the time of line 4 (time must not decrease)");
    expect_error(WRITE("twice.csv", "time,x,x\n0,1,2\n"), RTCOSIM_EFORMAT,
                 ":1: column \"x\" appears twice");
    expect_error(WRITE("unnamed.csv", "time,x,\n0,1,2\n"), RTCOSIM_EFORMAT,
                 ":1: column 3 has an empty name");
    expect_error(write_csv("nul.csv", "time,x\n0,1\n1,\0\n", 15), RTCOSIM_EFORMAT,
                 ":3: NUL byte in a text file");
    plot_table *t = NULL;
    rtcosim_error err;
    assert_int_equal(plot_csv_read(tu_scratch("absent.csv"), NULL, &t, &err), RTCOSIM_ENOTFOUND);
    assert_non_null(strstr(err.message, "absent.csv: cannot open results file"));
}

/* read_result's C side: the named variables only, in the file's order; a
 * name the file lacks is EINVAL, one line naming the file and every one
 * (one missing: the nearest of the file's names). */
static void test_flat_read_result_select(void **state)
{
    (void)state;
    const char *path = WRITE("flat.csv", "time,a,b,s\ns,m,V,\n0,1,2,\"x\"\n0.5,3,4,\"y\"\n");
    const char *names[] = {"s", "b", "time"};
    rtcosim_rows *r = NULL;
    rtcosim_error err;
    if (rtcosim_flat_read_result_select(path, names, 3, &r, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(rtcosim_rows_count(r), 2);
    assert_int_equal(rtcosim_rows_column_count(r), 1); /* s is text: left out, counted */
    assert_string_equal(rtcosim_rows_column_name(r, 0), "b");
    assert_string_equal(rtcosim_rows_column_unit(r, 0), "V");
    assert_true(rtcosim_rows_values(r)[1].f64 == 4.0);
    assert_true(rtcosim_rows_times(r)[1] == 500000000);
    assert_string_equal(rtcosim_rows_stat_name(r, 0), "text_columns_left_out");
    assert_true(rtcosim_rows_stat_value(r, 0) == 1.0);
    rtcosim_rows_free(r);
    const char *missing[] = {"a", "c", "d", "c"};
    assert_int_equal(rtcosim_flat_read_result_select(path, missing, 4, &r, &err), RTCOSIM_EINVAL);
    assert_null(r);
    char want[400];
    snprintf(want, sizeof want, "%s: no variables 'c', 'd' in the results", path);
    assert_string_equal(err.message, want);
    /* one missing: the nearest name, when one is near */
    const char *one[] = {"a", "velocity"};
    assert_int_equal(rtcosim_flat_read_result_select(path, one, 2, &r, &err), RTCOSIM_EINVAL);
    snprintf(want, sizeof want, "%s: no variable 'velocity' in the results", path);
    assert_string_equal(err.message, want);
    const char *near[] = {"bb"};
    assert_int_equal(rtcosim_flat_read_result_select(path, near, 1, &r, &err), RTCOSIM_EINVAL);
    snprintf(want, sizeof want, "%s: no variable 'bb' in the results; did you mean 'b'?", path);
    assert_string_equal(err.message, want);
}

/* The columns a binding copies out: the names, units and values the rows
 * give, time as whole nanoseconds (a 12-decimal time rounds to its ns), and
 * a released tail leaves every row before it as it was. */
static void test_flat_read_result_columns(void **state)
{
    (void)state;
    const char *path = tu_scratch("columns.csv");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fprintf(f, "time,a,s,b\ns,m,,V\n0.123456789412,1.5,\"x\",-2\n");
    for (int r = 1; r < 20000; r++)
        fprintf(f, "%d,%d.25,\"y\",%d\n", r, r, -r);
    fclose(f);
    rtcosim_result_columns *c = NULL;
    rtcosim_error err;
    if (rtcosim_flat_read_result_columns(path, NULL, 0, &c, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(rtcosim_result_columns_rows(c), 20000);
    assert_int_equal(rtcosim_result_columns_count(c), 2);
    assert_int_equal(rtcosim_result_columns_text_left_out(c), 1);
    assert_string_equal(rtcosim_result_columns_name(c, 1), "b");
    assert_string_equal(rtcosim_result_columns_unit(c, 0), "m");
    assert_null(rtcosim_result_columns_name(c, 2));
    assert_null(rtcosim_result_columns_values(c, 2));
    const double *time = rtcosim_result_columns_time(c);
    const double *a = rtcosim_result_columns_values(c, 0), *b = rtcosim_result_columns_values(c, 1);
    assert_true(time[0] == 0.123456789); /* 123456789 ns (the .412 ns rounded off) */
    assert_true(a[0] == 1.5 && b[0] == -2.0);
    rtcosim_result_columns_release_rows(c, 7000);
    rtcosim_result_columns_release_rows(c, 9000); /* (a later start: nothing more) */
    for (int r = 1; r < 7000; r++)
        assert_true(time[r] == r && a[r] == r + 0.25 && b[r] == -r);
    rtcosim_result_columns_release_rows(c, 0);
    rtcosim_result_columns_free(c);
    /* the rows of the same file: the same values, time in ticks */
    rtcosim_rows *rows = NULL;
    if (rtcosim_flat_read_result(path, &rows, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(rtcosim_rows_count(rows), 20000);
    assert_true(rtcosim_rows_times(rows)[0] == 123456789);
    assert_true(rtcosim_rows_values(rows)[2 * 19999 + 1].f64 == -19999.0);
    rtcosim_rows_free(rows);
    /* the same refusals as the rows' */
    const char *missing[] = {"a", "zz"};
    assert_int_equal(rtcosim_flat_read_result_columns(path, missing, 2, &c, &err),
                     RTCOSIM_EINVAL);
    assert_null(c);
    char want[400];
    snprintf(want, sizeof want, "%s: no variable 'zz' in the results", path);
    assert_string_equal(err.message, want);
    rtcosim_result_columns_free(NULL);
}

/* Long lines and many rows: the buffer grows past a line of 3 MB, the
 * columns past their first allocation. */
static void test_long_lines_and_many_rows(void **state)
{
    (void)state;
    const char *path = tu_scratch("long.csv");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fprintf(f, "time,x,");
    for (int i = 0; i < 3 << 20; i++)
        fputc('w', f);
    fprintf(f, "\n");
    for (int r = 0; r < 5000; r++)
        fprintf(f, "%d.5,%d,\n", r, -r);
    fclose(f);
    plot_table *t = read_ok(path, NULL);
    assert_int_equal(t->rows, 5000);
    assert_int_equal(strlen(t->columns[1].name), 3 << 20);
    for (size_t r = 0; r < t->rows; r++)
        assert_true(t->time[r] == (double)r + 0.5 && t->columns[0].values[r] == -(double)r);
    plot_table_free(t);
}

/* ---- the streaming reader against the whole one ---- */

static size_t compared;

static void expect_same(const char *path)
{
    plot_table *a = NULL, *b = NULL;
    rtcosim_error ea, eb;
    rtcosim_status sa = plot_csv_read(path, NULL, &a, &ea);
    rtcosim_status sb = plot_table_read_csv_whole(path, NULL, &b, &eb);
    assert_int_equal(sa, sb);
    compared++;
    if (sa != RTCOSIM_OK) {
        assert_string_equal(ea.message, eb.message);
        return;
    }
    assert_int_equal(a->rows, b->rows);
    assert_int_equal(a->column_count, b->column_count);
    assert_string_equal(a->first_name, b->first_name);
    assert_memory_equal(a->time, b->time, a->rows * sizeof(double));
    for (size_t c = 0; c < a->column_count; c++) {
        assert_string_equal(a->columns[c].name, b->columns[c].name);
        assert_true((!a->columns[c].unit && !b->columns[c].unit) ||
                    (a->columns[c].unit && b->columns[c].unit &&
                     strcmp(a->columns[c].unit, b->columns[c].unit) == 0));
        assert_int_equal(a->columns[c].text, b->columns[c].text);
        assert_memory_equal(a->columns[c].values, b->columns[c].values, a->rows * sizeof(double));
    }
    plot_table_free(a);
    plot_table_free(b);
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)ftw;
    size_t n = strlen(path);
    if (type == FTW_F && n > 4 && strcmp(path + n - 4, ".csv") == 0)
        expect_same(path);
    return 0;
}

static void test_same_as_the_whole_reader(void **state)
{
    (void)state;
    /* the files the tests of plot, info and the results write or keep */
    static const char *const dirs[] = {SOURCE_DIR "/fuzz/seeds", SOURCE_DIR "/tests/me/data",
                                       PLOT_TEST_BINARY_DIR};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
        assert_int_equal(nftw(dirs[i], visit, 16, FTW_PHYS), 0);
    size_t files = compared;
    assert_true(files >= 10);
    /* and the quirks of the whole reader's two line notions */
    static const char *const quirks[] = {
        "\xEF\xBB\xBF\n,a\n0,1\n",       /* a BOM alone: the units row is the header's line */
        " \r \n0\ns\n1\n",               /* a header of a CR: the units row after a data row */
        "time,x\ns\r\r\n0,1\n",           /* a units row that ends in two CRs */
        "time,x\n\r\r\n0,1\n",            /* a line of CRs: blank to one, a row to the other */
        "time,x\n \t\ns,m\n0,1\n",       /* blanks before the units row */
        "time,x\n\"s\",\"m\"\n0,\" 1\"\n", /* quoted units; a quoted space before a number */
        "time,x\n0,1\r\r\n",             /* a cell that ends in a CR: no number */
        "time,x\n1e-310,1\n0.0000000001,2\n", /* times finer than a tick */
        "time\n0 \n",                     /* the time column alone */
    };
    for (size_t i = 0; i < sizeof quirks / sizeof *quirks; i++)
        expect_same(write_csv("quirk.csv", quirks[i], strlen(quirks[i])));
    const char nul_in_units[] = "time,x\ns\0,m\n0,1\n";
    expect_same(write_csv("quirk.csv", nul_in_units, sizeof nul_in_units - 1));
    print_message("%zu files read alike by both readers\n", compared);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_units_row_and_quoting),
        cmocka_unit_test(test_line_ends_and_bom),
        cmocka_unit_test(test_cells_that_are_no_number),
        cmocka_unit_test(test_selection),
        cmocka_unit_test(test_errors_name_file_and_line),
        cmocka_unit_test(test_flat_read_result_select),
        cmocka_unit_test(test_flat_read_result_columns),
        cmocka_unit_test(test_long_lines_and_many_rows),
        cmocka_unit_test(test_same_as_the_whole_reader),
    };
    return cmocka_run_group_tests(tests, tu_scratch_group_setup, tu_scratch_group_teardown);
}
