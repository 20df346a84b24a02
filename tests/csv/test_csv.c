/* Input CSV tables: the accepted syntax variants, interpolation against
 * hand-computed values (linear, hold, discontinuities, outside the rows), and
 * one clear message naming file and line for every kind of bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/csv.h"
#include "util/test_util.h"

static void expect_error(const char *text, rtcosim_status status, const char *message_part)
{
    rtcosim_csv *t = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_csv_read_memory("in.csv", text, strlen(text), &t, &err), status);
    assert_null(t);
    if (!strstr(err.message, message_part))
        fail_msg("message '%s' lacks '%s'", err.message, message_part);
}

static void accepts_quoted_headers_crlf_blank_lines_and_bom(void **state)
{
    (void)state;
    rtcosim_csv *t = tu_csv("\xEF\xBB\xBF\"time\", \"u\" ,v\r\n\r\n0, 1.5 ,-2\r\n  \n0.1,2,3e2\r\n");
    assert_int_equal(rtcosim_csv_column_count(t), 2);
    assert_string_equal(rtcosim_csv_column_name(t, 0), "u");
    assert_string_equal(rtcosim_csv_column_name(t, 1), "v");
    assert_int_equal(rtcosim_csv_find_column(t, "v"), 1);
    assert_int_equal(rtcosim_csv_find_column(t, "w"), -1);
    assert_int_equal(rtcosim_csv_row_count(t), 2);
    assert_int_equal(rtcosim_csv_time(t, 1), 100000000);
    assert_true(rtcosim_csv_value(t, 0, 0) == 1.5);
    assert_true(rtcosim_csv_value(t, 1, 1) == 300.0);
    assert_int_equal(rtcosim_csv_line(t, 1), 5);
    rtcosim_csv_free(t);
}

static bool every_text(void *context, const char *column)
{
    (void)context, (void)column;
    return true;
}

/* A spreadsheet's export where the decimal point is a comma: separated by
 * semicolons, numbers with a decimal comma (an exponent too), quoted text
 * holding both; by hand, the values the comma-separated file has. */
static void reads_a_file_separated_by_semicolons(void **state)
{
    (void)state;
    rtcosim_csv *t = tu_csv("\xEF\xBB\xBF\"time\";\"u\";\"v\"\r\n0;1,5;-2\r\n0,1; -2,25e1 ;3.5\r\n");
    assert_int_equal(rtcosim_csv_column_count(t), 2);
    assert_string_equal(rtcosim_csv_column_name(t, 0), "u");
    assert_int_equal(rtcosim_csv_row_count(t), 2);
    assert_int_equal(rtcosim_csv_time(t, 1), 100000000);
    assert_true(rtcosim_csv_value(t, 0, 0) == 1.5);
    assert_true(rtcosim_csv_value(t, 1, 0) == -22.5);
    assert_true(rtcosim_csv_value(t, 1, 1) == 3.5); /* (a decimal point still reads) */
    rtcosim_csv_free(t);
    rtcosim_csv *x = NULL;
    rtcosim_error err;
    static const char text[] = "time;s\n0;\"a;b,c\"\n";
    assert_int_equal(rtcosim_csv_read_table_memory_text("in.csv", text, sizeof text - 1,
                                                        every_text, NULL, &x, &err), RTCOSIM_OK);
    assert_string_equal(rtcosim_csv_text(x, 0, 0), "a;b,c");
    rtcosim_csv_free(x);
}

/* The units row `simulate --csv-units` writes under the header ("s" in
 * the time column, as plot, convert and compare read it) is no row; a
 * second one, one after the first row or one not right under the header is
 * a bad time. */
static void a_units_row_under_the_header_is_skipped(void **state)
{
    (void)state;
    rtcosim_csv *t = tu_csv("\"time\",\"u\"\n\"s\",\"V\"\n0,1\n1,3\n");
    assert_int_equal(rtcosim_csv_row_count(t), 2);
    assert_int_equal(rtcosim_csv_time(t, 0), 0);
    assert_true(rtcosim_csv_value(t, 0, 0) == 1.0);
    assert_true(rtcosim_csv_value(t, 1, 0) == 3.0);
    assert_int_equal(rtcosim_csv_line(t, 0), 3);
    rtcosim_csv_free(t);
    expect_error("time,u\ns,V\ns,V\n0,1\n", RTCOSIM_EFORMAT, "in.csv:3: time 's' is not a valid time");
    expect_error("time,u\n0,1\ns,V\n", RTCOSIM_EFORMAT, "in.csv:3: time 's' is not a valid time");
    /* right under the header only: the results readers blank the units row
     * they found before this reader sees the file, and a second one must not
     * pass for it (fuzz_plot_results found the two readers differing) */
    expect_error("time,u\n\ns,V\n0,1\n", RTCOSIM_EFORMAT, "in.csv:3: time 's' is not a valid time");
}

static double linear_at(rtcosim_csv_cursor *c, double seconds)
{
    rtcosim_csv_cursor_seek(c, (rtcosim_time_ns)(seconds * 1e9 + (seconds < 0 ? -0.5 : 0.5)));
    return rtcosim_csv_cursor_linear(c, 0);
}

static double hold_at(rtcosim_csv_cursor *c, double seconds)
{
    rtcosim_csv_cursor_seek(c, (rtcosim_time_ns)(seconds * 1e9 + (seconds < 0 ? -0.5 : 0.5)));
    return rtcosim_csv_cursor_hold(c, 0);
}

/* u: ramp 0 -> 10 -> 20 over [0, 2], jump to 5 at t = 2, then constant. */
static const char *ramp_with_jump = "time,u\n0,0\n1,10\n2,20\n2,5\n3,5\n";

static void interpolates_linearly_between_rows(void **state)
{
    (void)state;
    rtcosim_csv *t = tu_csv(ramp_with_jump);
    rtcosim_csv_cursor c;
    rtcosim_csv_cursor_init(&c, t);
    assert_true(linear_at(&c, 0.0) == 0.0);
    assert_true(linear_at(&c, 0.5) == 5.0);
    assert_true(linear_at(&c, 1.0) == 10.0);
    assert_true(linear_at(&c, 1.25) == 12.5);
    assert_true(linear_at(&c, 2.5) == 5.0);
    rtcosim_csv_free(t);
}

/* seek_before stands at a jump's first row: the ramp reaches 20 at t = 2
 * (what an integrator needs at the end of a step that ends there); away
 * from a jump it is seek. */
static void seek_before_gives_the_value_a_jump_starts_from(void **state)
{
    (void)state;
    rtcosim_csv *t = tu_csv(ramp_with_jump);
    rtcosim_csv_cursor c;
    rtcosim_csv_cursor_init(&c, t);
    rtcosim_csv_cursor_seek_before(&c, 2 * RTCOSIM_NS_PER_S);
    assert_true(rtcosim_csv_cursor_linear(&c, 0) == 20.0);
    rtcosim_csv_cursor_seek(&c, 2 * RTCOSIM_NS_PER_S);
    assert_true(rtcosim_csv_cursor_linear(&c, 0) == 5.0);
    rtcosim_csv_cursor_seek_before(&c, RTCOSIM_NS_PER_S / 2);
    assert_true(rtcosim_csv_cursor_linear(&c, 0) == 5.0);
    rtcosim_csv_cursor_seek_before(&c, 3 * RTCOSIM_NS_PER_S);
    assert_true(rtcosim_csv_cursor_linear(&c, 0) == 5.0);
    rtcosim_csv_free(t);
}

static void takes_the_later_row_at_a_discontinuity(void **state)
{
    (void)state;
    rtcosim_csv *t = tu_csv(ramp_with_jump);
    rtcosim_csv_cursor c;
    rtcosim_csv_cursor_init(&c, t);
    /* Just before the jump the ramp is almost 20; at the instant it is 5. */
    rtcosim_csv_cursor_seek(&c, 2 * RTCOSIM_NS_PER_S - 100000000);
    assert_true(rtcosim_csv_cursor_linear(&c, 0) == 19.0);
    assert_true(linear_at(&c, 2.0) == 5.0);
    assert_true(hold_at(&c, 2.0) == 5.0);
    rtcosim_csv_free(t);
}

static void holds_last_row_at_or_before_t(void **state)
{
    (void)state;
    rtcosim_csv *t = tu_csv(ramp_with_jump);
    rtcosim_csv_cursor c;
    rtcosim_csv_cursor_init(&c, t);
    assert_true(hold_at(&c, 0.0) == 0.0);
    assert_true(hold_at(&c, 0.999) == 0.0);
    assert_true(hold_at(&c, 1.0) == 10.0);
    assert_true(hold_at(&c, 1.9) == 10.0);
    rtcosim_csv_free(t);
}

static void uses_first_row_before_and_last_row_after_the_table(void **state)
{
    (void)state;
    rtcosim_csv *t = tu_csv("time,u\n1,7\n2,9\n");
    rtcosim_csv_cursor c;
    rtcosim_csv_cursor_init(&c, t);
    assert_true(linear_at(&c, -3.0) == 7.0);
    assert_true(linear_at(&c, 0.5) == 7.0);
    assert_true(hold_at(&c, 0.5) == 7.0);
    assert_true(linear_at(&c, 1.5) == 8.0);
    assert_true(linear_at(&c, 100.0) == 9.0);
    assert_true(hold_at(&c, 100.0) == 9.0);
    rtcosim_csv_free(t);
}

static void seeking_backwards_gives_the_same_values(void **state)
{
    (void)state;
    rtcosim_csv *t = tu_csv(ramp_with_jump);
    rtcosim_csv_cursor c;
    rtcosim_csv_cursor_init(&c, t);
    assert_true(linear_at(&c, 2.75) == 5.0);
    assert_true(linear_at(&c, 0.25) == 2.5);
    assert_true(linear_at(&c, 1.5) == 15.0);
    assert_true(linear_at(&c, -1.0) == 0.0);
    rtcosim_csv_free(t);
}

static void missing_file_names_the_path(void **state)
{
    (void)state;
    rtcosim_csv *t = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_csv_read_file("no-such-input.csv", &t, &err), RTCOSIM_ENOTFOUND);
    assert_non_null(strstr(err.message, "no-such-input.csv"));
    assert_non_null(strstr(err.message, "No such file"));
}

static void reads_a_file_from_disk(void **state)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/csv_on_disk.csv", (const char *)*state);
    tu_write_file(path, "time,u\n0,1\n0.5,2\n");
    rtcosim_csv *t = NULL;
    assert_int_equal(rtcosim_csv_read_file(path, &t, NULL), RTCOSIM_OK);
    assert_int_equal(rtcosim_csv_row_count(t), 2);
    assert_string_equal(rtcosim_csv_name(t), path);
    rtcosim_csv_free(t);
}

static void reads_a_general_table_whose_first_column_is_not_time(void **state)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/csv_table.csv", (const char *)*state);
    /* A step-size sweep as `rtcosim bench coupling` writes it for its plots. */
    tu_write_file(path, "h,zoh,foh\n1e-4,0.05,4e-5\n1e-3,0.56,4e-3\n");
    rtcosim_csv *t = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_csv_read_file(path, &t, &err), RTCOSIM_EFORMAT);
    assert_non_null(strstr(err.message, "expected \"time\""));
    assert_int_equal(rtcosim_csv_read_table_file(path, &t, &err), RTCOSIM_OK);
    assert_string_equal(rtcosim_csv_first_column_name(t), "h");
    assert_int_equal(rtcosim_csv_column_count(t), 2);
    assert_true(rtcosim_csv_time(t, 0) == 100000 && rtcosim_csv_time(t, 1) == 1000000);
    assert_true(rtcosim_csv_value(t, 1, 0) == 0.56);
    rtcosim_csv_free(t);
    /* The first column's name is still unique among the columns. */
    snprintf(path, sizeof path, "%s/csv_table_dup.csv", (const char *)*state);
    tu_write_file(path, "h,h\n1,2\n");
    assert_int_equal(rtcosim_csv_read_table_file(path, &t, &err), RTCOSIM_EFORMAT);
    assert_non_null(strstr(err.message, "appears twice"));
}

static void bad_inputs_fail_with_file_and_line(void **state)
{
    (void)state;
    expect_error("", RTCOSIM_EFORMAT, "in.csv: file is empty");
    expect_error(" \n\r\n", RTCOSIM_EFORMAT, "in.csv: file is empty");
    expect_error("t,u\n0,1\n", RTCOSIM_EFORMAT, "in.csv:1: first column is \"t\", expected \"time\"");
    expect_error("0,1\n1,2\n", RTCOSIM_EFORMAT, "in.csv:1: no header row: the first line holds"
                 " numbers only ('0'...)");
    expect_error("u,time\n0,1\n", RTCOSIM_EFORMAT, "in.csv:1: first column is \"u\"");
    /* tabs (not read): said, not "first column is \"time\tu\"" */
    expect_error("time\tu\n0\t1\n", RTCOSIM_EFORMAT, "in.csv:1: the header is one column, "
                 "\"time u\": values are read separated by commas, and this file separates "
                 "them by tabs"); /* (a message's control characters are blanks) */
    /* a file separated by semicolons: a comma is its decimal point, so a
     * field with a comma that is no number (thousands: 1.234,5) is refused */
    expect_error("time;u\n0;1\n1;1.234,5\n", RTCOSIM_EFORMAT, "in.csv:3: field 2: '1.234,5' "
                 "holds a comma and is no number");
    expect_error("time;u;v\n0;1;a,b\n", RTCOSIM_EFORMAT, "in.csv:2: field 3: 'a,b' holds");
    /* text after a closing quote with a comma in it: as a comma-separated
     * row it would be another field (and a quote after it would open one) */
    expect_error("time;u;v\n0;1;\"a\"x,\"y\n1;2;3\n", RTCOSIM_EFORMAT,
                 "in.csv:2: field 3: text after the closing quote holds a comma ('x,\"y')");
    expect_error("time,u\n", RTCOSIM_EFORMAT, "in.csv: no data rows");
    expect_error("time,u,u\n0,1,2\n", RTCOSIM_EFORMAT, "in.csv:1: column \"u\" appears twice");
    /* the first name repeated, by where its repeat stands; the time column too */
    expect_error("time,a,b,b,a\n0,1,2,3,4\n", RTCOSIM_EFORMAT, "column \"b\" appears twice");
    expect_error("time,a,time\n0,1,2\n", RTCOSIM_EFORMAT, "column \"time\" appears twice");
    expect_error("time,a,,a\n0,1,2,3\n", RTCOSIM_EFORMAT, "column 3 has an empty name");
    expect_error("time,,v\n0,1,2\n", RTCOSIM_EFORMAT, "in.csv:1: column 2 has an empty name");
    expect_error("time,u\n0,1\n1,2,3\n", RTCOSIM_EFORMAT, "in.csv:3: 3 values, expected 2");
    expect_error("time,u,v\n0,1,2\n1,2\n", RTCOSIM_EFORMAT, "in.csv:3: 2 values, expected 3");
    expect_error("time,u\n0,1\n\n1,abc\n", RTCOSIM_EFORMAT,
                 "in.csv:4: column 2 ('u'): 'abc' is not a finite number");
    expect_error("time,u\n0,1.5x\n", RTCOSIM_EFORMAT, "in.csv:2: column 2 ('u'): '1.5x'");
    expect_error("time,u\n0,\n", RTCOSIM_EFORMAT, "in.csv:2: column 2 ('u'): '' is not a finite");
    expect_error("time,u\n0,nan\n", RTCOSIM_EFORMAT, "'nan' is not a finite number");
    expect_error("time,u\nzero,1\n", RTCOSIM_EFORMAT, "in.csv:2: time 'zero' is not a valid time");
    expect_error("time,u\n0,1\n1,2\n0.5,3\n", RTCOSIM_EFORMAT,
                 "in.csv:4: time 0.5 is earlier than the time of line 3");
    expect_error("\"time,u\n0,1\n", RTCOSIM_EFORMAT, "in.csv:1: field 1: missing closing quote");
    expect_error("\"time\"x,u\n0,1\n", RTCOSIM_EFORMAT, "in.csv:1: field 1: unexpected text");
}

static void nul_bytes_are_rejected_with_their_line(void **state)
{
    (void)state;
    const char text[] = "time,u\n0,1\n1,\0002\n";
    rtcosim_csv *t = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_csv_read_memory("in.csv", text, sizeof text - 1, &t, &err),
                     RTCOSIM_EFORMAT);
    assert_string_equal(err.message, "in.csv:3: NUL byte in a text file");
}

static bool is_blob(void *context, const char *column)
{
    (void)context;
    return strcmp(column, "blob") == 0;
}

/* Text columns keep their cells as written (quotes removed, also "0123",
 * which would read as a number), numeric columns stay checked. */
static void text_columns_keep_their_cells(void **state)
{
    (void)state;
    const char *text = "time,blob,x\n0,666f6f,1\n0.5,,2\n1,\"0123\",3\n";
    rtcosim_csv *t = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_csv_read_memory_text("in.csv", text, strlen(text), is_blob, NULL,
                                                  &t, &err),
                     RTCOSIM_OK);
    assert_string_equal(rtcosim_csv_text(t, 0, 0), "666f6f");
    assert_string_equal(rtcosim_csv_text(t, 1, 0), "");
    assert_string_equal(rtcosim_csv_text(t, 2, 0), "0123");
    assert_null(rtcosim_csv_text(t, 0, 1));
    assert_true(rtcosim_csv_value(t, 2, 1) == 3.0);
    rtcosim_csv_free(t);
    const char *bad = "time,blob,x\n0,zz,one\n";
    assert_int_equal(rtcosim_csv_read_memory_text("bad.csv", bad, strlen(bad), is_blob, NULL, &t,
                                                  &err),
                     RTCOSIM_EFORMAT);
    assert_non_null(strstr(err.message, "bad.csv:2: column 3 ('x'): 'one' is not a finite number"));
    /* Without the predicate a hex cell is a bad number, as before. */
    expect_error("time,blob\n0,666f6f\n", RTCOSIM_EFORMAT, "'666f6f' is not a finite number");
}

/* RFC 4180 2.6: a quoted field may hold line breaks (a String value as the
 * results write it), which belong to it; a quote inside an unquoted field
 * is no quote. Lines are still counted in the file: the bad value
 * is named there (line 8). */
static void quoted_line_breaks_belong_to_the_field(void **state)
{
    (void)state;
    const char *text = "time,blob,x\n0,\"a\nb\"\"c, d\",1\n1,e\"f,2\n"
                       "2,\"\n\n\",3\n3,g,one\n";
    rtcosim_csv *t = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_csv_read_memory_text("in.csv", text, strlen(text), is_blob, NULL,
                                                  &t, &err),
                     RTCOSIM_EFORMAT);
    assert_non_null(strstr(err.message, "in.csv:8: column 3 ('x'): 'one' is not a finite number"));
    const char *good = "time,blob,x\n0,\"a\nb\"\"c, d\",1\n1,e\"f,2\n2,\"\n\n\",3\n";
    assert_int_equal(rtcosim_csv_read_memory_text("in.csv", good, strlen(good), is_blob, NULL,
                                                  &t, &err),
                     RTCOSIM_OK);
    assert_int_equal(rtcosim_csv_row_count(t), 3);
    assert_string_equal(rtcosim_csv_text(t, 0, 0), "a\nb\"c, d");
    assert_string_equal(rtcosim_csv_text(t, 1, 0), "e\"f");
    assert_string_equal(rtcosim_csv_text(t, 2, 0), "\n\n");
    assert_int_equal(rtcosim_csv_line(t, 1), 4);
    assert_int_equal(rtcosim_csv_line(t, 2), 5);
    assert_true(rtcosim_csv_value(t, 2, 1) == 3.0);
    rtcosim_csv_free(t);
    /* a stray CR (doubled CRLF, old Mac ends) is blank around a cell and a
     * line of CRs is blank, as the results reader takes them */
    const char *crs = "\r\r\ntime,x\r\r\n0,1\r\r\n\r\n";
    assert_int_equal(rtcosim_csv_read_memory("cr.csv", crs, strlen(crs), &t, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_csv_row_count(t), 1);
    assert_true(rtcosim_csv_value(t, 0, 0) == 1.0);
    assert_int_equal(rtcosim_csv_line(t, 0), 3);
    rtcosim_csv_free(t);
    /* a quote left open runs to the end: named at the row's first line */
    expect_error("time,x\n0,1\n1,\"2\n2,3\n", RTCOSIM_EFORMAT, ":3: field 2: missing closing quote");
}

/* Columns picked and renamed (a measurement's channels for the inputs they
 * drive): the chosen ones in the order given, values and text cells with
 * them, the others gone. */
static void selected_columns_keep_their_values_under_new_names(void **state)
{
    (void)state;
    const char *text = "time,blob,a,b\n0,666f6f,1,2\n1,0123,3,4\n";
    rtcosim_csv *t = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_csv_read_memory_text("in.csv", text, strlen(text), is_blob, NULL,
                                                  &t, &err),
                     RTCOSIM_OK);
    const char *from[] = {"b", "blob"}, *to[] = {"speed", "frame"};
    assert_int_equal(rtcosim_csv_select_columns(t, 2, from, to, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_csv_column_count(t), 2);
    assert_string_equal(rtcosim_csv_column_name(t, 0), "speed");
    assert_string_equal(rtcosim_csv_column_name(t, 1), "frame");
    assert_true(rtcosim_csv_value(t, 0, 0) == 2.0 && rtcosim_csv_value(t, 1, 0) == 4.0);
    assert_null(rtcosim_csv_text(t, 0, 0));
    assert_string_equal(rtcosim_csv_text(t, 1, 1), "0123");
    assert_int_equal(rtcosim_csv_find_column(t, "a"), -1);
    rtcosim_csv_cursor cur;
    rtcosim_csv_cursor_init(&cur, t);
    rtcosim_csv_cursor_seek(&cur, RTCOSIM_NS_PER_S / 2);
    assert_true(rtcosim_csv_cursor_linear(&cur, 0) == 3.0);
    /* a column the table lacks, a name given twice: refused, the table as it was */
    const char *missing[] = {"c"}, *twice_from[] = {"speed", "frame"}, *twice_to[] = {"x", "x"};
    assert_int_equal(rtcosim_csv_select_columns(t, 1, missing, to, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "in.csv: no column 'c'"));
    assert_int_equal(rtcosim_csv_select_columns(t, 2, twice_from, twice_to, &err),
                     RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "'x' is given two columns ('speed' and 'frame')"));
    assert_int_equal(rtcosim_csv_column_count(t), 2);
    rtcosim_csv_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(accepts_quoted_headers_crlf_blank_lines_and_bom),
        cmocka_unit_test(reads_a_file_separated_by_semicolons),
        cmocka_unit_test(a_units_row_under_the_header_is_skipped),
        cmocka_unit_test(interpolates_linearly_between_rows),
        cmocka_unit_test_setup_teardown(reads_a_general_table_whose_first_column_is_not_time,
                                        tu_scratch_setup, tu_scratch_teardown),
        cmocka_unit_test(takes_the_later_row_at_a_discontinuity),
        cmocka_unit_test(seek_before_gives_the_value_a_jump_starts_from),
        cmocka_unit_test(holds_last_row_at_or_before_t),
        cmocka_unit_test(uses_first_row_before_and_last_row_after_the_table),
        cmocka_unit_test(seeking_backwards_gives_the_same_values),
        cmocka_unit_test(missing_file_names_the_path),
        cmocka_unit_test_setup_teardown(reads_a_file_from_disk, tu_scratch_setup,
                                        tu_scratch_teardown),
        cmocka_unit_test(bad_inputs_fail_with_file_and_line),
        cmocka_unit_test(nul_bytes_are_rejected_with_their_line),
        cmocka_unit_test(text_columns_keep_their_cells),
        cmocka_unit_test(quoted_line_breaks_belong_to_the_field),
        cmocka_unit_test(selected_columns_keep_their_values_under_new_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
