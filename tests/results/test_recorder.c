/* The CSV recorder writes fmusim's format exactly (header, 1/0 booleans,
 * quoted strings, Binary as hex, exact numbers), decimates, gives the same file through its
 * writer thread (also while the pushing thread formats part of the rows, and from a signal
 * handler's flush), and reports unwritable paths at open and write errors at close. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "results/recorder_internal.h"
#include "rtcosim/results.h"
#include "util/test_util.h"

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)size + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)size, f), (size_t)size);
    text[size] = '\0';
    fclose(f);
    return text;
}

static const rtcosim_column mixed_columns[] = {
    {.name = "x", .type = RTCOSIM_TYPE_FLOAT64},
    {.name = "n", .type = RTCOSIM_TYPE_INT32},
    {.name = "on", .type = RTCOSIM_TYPE_BOOLEAN},
    {.name = "label \"a\"", .type = RTCOSIM_TYPE_STRING},
    {.name = "u", .type = RTCOSIM_TYPE_UINT64},
};

static void writes_header_and_rows_in_fmusim_format(void **state)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/recorder_mixed.csv", (const char *)*state);
    rtcosim_recorder_options o = {.path = path, .columns = mixed_columns,
                                  .column_count = 5};
    rtcosim_recorder *r = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_recorder_open(&o, &r, &err), RTCOSIM_OK);
    rtcosim_value row1[5] = {{.f64 = 0.1}, {.i64 = -42}, {.b = true}, {.s = "say \"hi\""},
                             {.u64 = UINT64_MAX}};
    rtcosim_value row2[5] = {{.f64 = 1e-7}, {.i64 = 0}, {.b = false}, {.s = ""}, {.u64 = 3}};
    assert_int_equal(rtcosim_recorder_push_row(r, 0, row1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_recorder_push_row(r, 250000000, row2, &err), RTCOSIM_OK);
    rtcosim_recorder_stats stats;
    assert_int_equal(rtcosim_recorder_close(r, &stats, &err), RTCOSIM_OK);
    const char *expected = "\"time\",\"x\",\"n\",\"on\",\"label \"\"a\"\"\",\"u\"\n"
                           "0,0.1,-42,1,\"say \"\"hi\"\"\",18446744073709551615\n"
                           "0.25,1e-7,0,0,\"\",3\n";
    char *text = read_text(path);
    assert_string_equal(text, expected);
    assert_int_equal(stats.rows_written, 2);
    assert_int_equal(stats.bytes_written, strlen(expected));
    free(text);
}

static const rtcosim_column one_column[] = {{.name = "y", .type = RTCOSIM_TYPE_FLOAT64}};

/* A recorder on dir/name (the test's scratch directory; path receives the
 * file's path) with options o, open. */
static rtcosim_recorder *open_in(void **state, const char *name, char path[4096],
                                 rtcosim_recorder_options o)
{
    snprintf(path, 4096, "%s/%s", (const char *)*state, name);
    o.path = path;
    rtcosim_recorder *r = NULL;
    assert_int_equal(rtcosim_recorder_open(&o, &r, NULL), RTCOSIM_OK);
    return r;
}

static void keeps_every_nth_row_and_forced_rows(void **state)
{
    char path[4096];
    rtcosim_recorder *r = open_in(state, "recorder_decimated.csv", path,
                                  (rtcosim_recorder_options){.columns = one_column,
                                                             .column_count = 1, .record_every = 3});
    for (int i = 0; i <= 7; i++) {
        assert_int_equal(rtcosim_recorder_wants_row(r), i % 3 == 0);
        rtcosim_value v = {.f64 = i * 10.0};
        rtcosim_recorder_push_row(r, (rtcosim_time_ns)i * RTCOSIM_NS_PER_S, &v, NULL);
    }
    rtcosim_value last = {.f64 = 75};
    rtcosim_recorder_push_row_always(r, 7500000000, &last, NULL);
    assert_int_equal(rtcosim_recorder_close(r, NULL, NULL), RTCOSIM_OK);
    char *text = read_text(path);
    assert_string_equal(text, "\"time\",\"y\"\n0,0\n3,30\n6,60\n7.5,75\n");
    free(text);
}

/* Rows reach the file while the run goes on: once 100 ms have passed, a
 * slow row (the clock read every row) flushes at once, and after a burst
 * of fast rows (the clock read every 8th row at most) a flush comes within
 * 8 rows. */
static size_t lines_on_disk(const char *path)
{
    char *text = read_text(path);
    size_t n = 0;
    for (const char *p = text; *p; p++)
        n += *p == '\n';
    free(text);
    return n;
}

static void rows_reach_the_file_within_the_flush_period(void **state)
{
    char path[4096];
    rtcosim_recorder *r = open_in(state, "recorder_flush.csv", path,
                                  (rtcosim_recorder_options){.columns = one_column, .column_count = 1});
    rtcosim_value v = {.f64 = 1};
    /* a burst: 1000 rows, far less than 100 ms */
    rtcosim_time_ns t = 0;
    for (int i = 0; i < 1000; i++, t += 1000)
        assert_int_equal(rtcosim_recorder_push_row(r, t, &v, NULL), RTCOSIM_OK);
    usleep(150 * 1000);
    size_t pushed = 0;
    while (lines_on_disk(path) < 1001 && pushed < 8) {
        assert_int_equal(rtcosim_recorder_push_row(r, t, &v, NULL), RTCOSIM_OK);
        t += 1000;
        pushed++;
    }
    assert_true(lines_on_disk(path) >= 1001); /* the header and the burst */
    /* slow rows: each one 150 ms after the last is on disk when pushed */
    for (int i = 0; i < 3; i++) {
        usleep(150 * 1000);
        assert_int_equal(rtcosim_recorder_push_row(r, t, &v, NULL), RTCOSIM_OK);
        t += 1000;
        pushed++;
        assert_int_equal(lines_on_disk(path), 1001 + pushed);
    }
    assert_int_equal(rtcosim_recorder_close(r, NULL, NULL), RTCOSIM_OK);
}

/* The same through the writer thread: the rows in its ring reach the file
 * without another push (the writer wakes at least every 100 ms and writes
 * what it took within 100 ms more; waited for here up to 1.5 s, a loaded
 * machine's slack); the rows the pushing thread was formatting itself (up
 * to a chunk of 64, while the writer was behind) go over at its next push,
 * as the unthreaded recorder's buffer does. Before, a writer with an empty
 * buffer slept until the producer had pushed a quarter of the ring. */
static size_t lines_within(const char *path, size_t want, int ms)
{
    size_t n = lines_on_disk(path);
    for (int waited = 0; n < want && waited < ms; waited += 10) {
        usleep(10 * 1000);
        n = lines_on_disk(path);
    }
    return n;
}

static void threaded_rows_reach_the_file_without_another_push(void **state)
{
    char path[4096];
    rtcosim_recorder *r = open_in(state, "recorder_flush_thread.csv", path,
                                  (rtcosim_recorder_options){.columns = one_column, .column_count = 1,
                                                             .writer_thread = true});
    rtcosim_value v = {.f64 = 1};
    rtcosim_time_ns t = 0;
    for (int i = 0; i < 1000; i++, t += 1000)
        assert_int_equal(rtcosim_recorder_push_row(r, t, &v, NULL), RTCOSIM_OK);
    assert_true(lines_within(path, 1001, 1500) >= 1001 - 64);
    assert_int_equal(rtcosim_recorder_push_row(r, t, &v, NULL), RTCOSIM_OK);
    assert_int_equal(lines_within(path, 1002, 1500), 1002);
    assert_int_equal(rtcosim_recorder_close(r, NULL, NULL), RTCOSIM_OK);
    assert_int_equal(lines_on_disk(path), 1002);
}

/* whole_text: with a String or Binary column the recorder writes on the
 * pushing thread (a writer thread's ring keeps max_string_bytes of each),
 * so an offline run's long values come out whole, as simulate and run ask. */
static void whole_text_keeps_long_strings_with_a_writer_thread(void **state)
{
    char long_text[1001];
    memset(long_text, 'x', 1000);
    long_text[1000] = '\0';
    const rtcosim_column cols[] = {{.name = "s", .type = RTCOSIM_TYPE_STRING}};
    for (int whole = 0; whole < 2; whole++) {
        char path[4096];
        rtcosim_recorder *r = open_in(state, whole ? "whole1.csv" : "whole0.csv", path,
                                      (rtcosim_recorder_options){.columns = cols, .column_count = 1,
                                                                 .writer_thread = true,
                                                                 .whole_text = whole});
        rtcosim_value v = {.s = long_text};
        assert_int_equal(rtcosim_recorder_push_row(r, 0, &v, NULL), RTCOSIM_OK);
        rtcosim_recorder_stats stats;
        assert_int_equal(rtcosim_recorder_close(r, &stats, NULL), RTCOSIM_OK);
        char *text = read_text(path);
        char *cell = strchr(strchr(text, '\n') + 1, '"');
        assert_non_null(cell);
        assert_int_equal(strcspn(cell + 1, "\""), whole ? 1000 : 255);
        assert_int_equal(stats.strings_cut, whole ? 0 : 1);
        free(text);
    }
}

/* Many rows through a tiny ring and buffer so that the producer waits for
 * space and the writer flushes often; every row must arrive, in order, exact. */
static void writer_thread_delivers_every_row_exactly(void **state)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/recorder_thread.csv", (const char *)*state);
    const rtcosim_column cols[] = {{.name = "y", .type = RTCOSIM_TYPE_FLOAT64}, {.name = "s", .type = RTCOSIM_TYPE_STRING}};
    rtcosim_recorder_options o = {.path = path, .columns = cols,
                                  .column_count = 2, .writer_thread = true, .ring_rows = 16,
                                  .buffer_bytes = 4096, .max_string_bytes = 4};
    rtcosim_recorder *r = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_recorder_open(&o, &r, &err), RTCOSIM_OK);
    const int rows = 20000;
    for (int i = 0; i < rows; i++) {
        rtcosim_value v[2] = {{.f64 = 1.0 / (i + 1)}, {.s = i % 2 ? "abcdef" : "ab"}};
        assert_int_equal(rtcosim_recorder_push_row(r, (rtcosim_time_ns)i * 1000, v, &err),
                         RTCOSIM_OK);
    }
    rtcosim_recorder_stats stats;
    assert_int_equal(rtcosim_recorder_close(r, &stats, &err), RTCOSIM_OK);
    assert_int_equal(stats.rows_written, rows);
    assert_int_equal(stats.rows_dropped, 0);
    assert_int_equal(stats.strings_cut, rows / 2);
    char *text = read_text(path);
    char *line = strtok(text, "\n");
    assert_string_equal(line, "\"time\",\"y\",\"s\"");
    for (int i = 0; i < rows; i++) {
        line = strtok(NULL, "\n");
        assert_non_null(line);
        char *end;
        double t = strtod(line, &end);
        assert_true(t == i / 1e6); /* correctly rounded, like strtod */
        assert_int_equal(*end, ',');
        double y = strtod(end + 1, &end);
        assert_true(y == 1.0 / (i + 1));
        assert_string_equal(end, i % 2 ? ",\"abc\"" : ",\"ab\"");
    }
    assert_null(strtok(NULL, "\n"));
    free(text);
}

typedef struct drain {
    int fd;
    size_t lines;
} drain;

static void *drain_pipe(void *arg)
{
    drain *d = arg;
    char buf[4096];
    ssize_t n;
    while ((n = read(d->fd, buf, sizeof buf)) > 0)
        for (ssize_t i = 0; i < n; i++)
            d->lines += buf[i] == '\n';
    return NULL;
}

/* A real-time producer must never wait: with drop_when_full, rows that find
 * the ring full are counted as dropped. The file is a pipe nobody reads yet,
 * so the writer thread blocks and the ring must fill. */
static void full_ring_drops_rows_instead_of_waiting(void **state)
{
    (void)state;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fds[1]);
    rtcosim_recorder_options o = {.path = path, .columns = one_column, .column_count = 1,
                                  .writer_thread = true, .drop_when_full = true, .ring_rows = 8,
                                  .buffer_bytes = 4096};
    rtcosim_recorder *r = NULL;
    assert_int_equal(rtcosim_recorder_open(&o, &r, NULL), RTCOSIM_OK);
    close(fds[1]); /* the recorder holds its own descriptor of the pipe */
    const int rows = 100000; /* about 2 MB: far more than pipe, buffer and ring hold */
    for (int i = 0; i < rows; i++) {
        rtcosim_value v = {.f64 = i + 0.5};
        assert_int_equal(rtcosim_recorder_push_row(r, i, &v, NULL), RTCOSIM_OK);
    }
    rtcosim_recorder_stats before;
    rtcosim_recorder_get_stats(r, &before);
    assert_true(before.rows_dropped > 0);
    drain d = {.fd = fds[0]};
    pthread_t reader;
    assert_int_equal(pthread_create(&reader, NULL, drain_pipe, &d), 0);
    rtcosim_recorder_stats stats;
    assert_int_equal(rtcosim_recorder_close(r, &stats, NULL), RTCOSIM_OK);
    pthread_join(reader, NULL);
    close(fds[0]);
    assert_int_equal(stats.rows_pushed, rows);
    assert_int_equal(stats.rows_written + stats.rows_dropped, rows);
    assert_int_equal(d.lines, 1 + stats.rows_written); /* header + rows */
}

static void unwritable_path_fails_at_open_naming_it(void **state)
{
    (void)state;
    rtcosim_recorder_options o = {.path = "no-such-dir/out.csv", .columns = one_column,
                                  .column_count = 1};
    rtcosim_recorder *r = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_recorder_open(&o, &r, &err), RTCOSIM_EIO);
    assert_null(r);
    assert_non_null(strstr(err.message, "no-such-dir/out.csv"));
}

static void write_error_is_reported_at_close_with_the_path(void **state)
{
    (void)state;
    for (int threaded = 0; threaded <= 1; threaded++) {
        rtcosim_recorder_options o = {.path = "/dev/full", .columns = one_column,
                                      .column_count = 1, .buffer_bytes = 4096,
                                      .writer_thread = threaded};
        rtcosim_recorder *r = NULL;
        rtcosim_error err;
        assert_int_equal(rtcosim_recorder_open(&o, &r, &err), RTCOSIM_OK);
        for (int i = 0; i < 5000; i++) {
            rtcosim_value v = {.f64 = i};
            assert_int_equal(rtcosim_recorder_push_row(r, i, &v, &err), RTCOSIM_OK);
        }
        assert_int_equal(rtcosim_recorder_close(r, NULL, &err), RTCOSIM_EIO);
        assert_non_null(strstr(err.message, "/dev/full"));
        assert_non_null(strstr(err.message, "No space left"));
    }
}

/* Binary columns as fmusim writes them (FMIRecorder.c): two lower-case hex
 * digits per byte, unquoted, an empty field for no bytes; the same through
 * the writer thread, whose ring keeps at most max_string_bytes of a value
 * (here 2: "foo" becomes 666f, counted as cut). */
/* An omitted column is empty in the rows pushed after the call, kept in those
 * before (also through the writer thread, whose rows are formatted later),
 * and decimated rows count as before. */
static void omitted_column_is_empty_from_then_on(void **state)
{
    static const rtcosim_column cols[] = {{.name = "a", .type = RTCOSIM_TYPE_FLOAT64},
                                          {.name = "b", .type = RTCOSIM_TYPE_INT32}};
    for (int threaded = 0; threaded < 2; threaded++) {
        char path[4096];
        rtcosim_recorder *r = open_in(state, "recorder_omit.csv", path,
                                      (rtcosim_recorder_options){.columns = cols, .column_count = 2,
                                                                 .writer_thread = threaded});
        rtcosim_value row[2] = {{.f64 = 1.5}, {.i64 = 7}};
        assert_int_equal(rtcosim_recorder_push_row(r, 0, row, NULL), RTCOSIM_OK);
        rtcosim_recorder_omit_column(r, 0);
        rtcosim_recorder_omit_column(r, 0); /* again: the first call counts */
        assert_int_equal(rtcosim_recorder_push_row(r, 500000000, row, NULL), RTCOSIM_OK);
        rtcosim_recorder_omit_column(r, 1);
        assert_int_equal(rtcosim_recorder_push_row_always(r, 1000000000, row, NULL), RTCOSIM_OK);
        assert_int_equal(rtcosim_recorder_close(r, NULL, NULL), RTCOSIM_OK);
        char *text = read_text(path);
        assert_string_equal(text, "\"time\",\"a\",\"b\"\n0,1.5,7\n0.5,,7\n1,,\n");
        free(text);
    }
}

static void binary_columns_are_written_as_hex(void **state)
{
    static const uint8_t foo[] = {'f', 'o', 'o'}, mixed[] = {0x00, 0xff, 0x7f, 0x80};
    const rtcosim_column cols[] = {{.name = "blob", .type = RTCOSIM_TYPE_BINARY}, {.name = "n", .type = RTCOSIM_TYPE_INT32}};
    rtcosim_value rows[3][2] = {{{.bin = {foo, 3}}, {.i64 = 1}},
                                {{.bin = {NULL, 0}}, {.i64 = 2}},
                                {{.bin = {mixed, 4}}, {.i64 = 3}}};
    for (int threaded = 0; threaded < 2; threaded++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/recorder_binary%d.csv", (const char *)*state, threaded);
        rtcosim_recorder_options o = {.path = path, .columns = cols, .column_count = 2,
                                      .writer_thread = threaded,
                                      .max_string_bytes = threaded ? 3 : 0};
        rtcosim_recorder *r = NULL;
        rtcosim_error err;
        assert_int_equal(rtcosim_recorder_open(&o, &r, &err), RTCOSIM_OK);
        for (int i = 0; i < 3; i++)
            assert_int_equal(rtcosim_recorder_push_row(r, i * 500000000LL, rows[i], &err),
                             RTCOSIM_OK);
        rtcosim_recorder_stats stats;
        assert_int_equal(rtcosim_recorder_close(r, &stats, &err), RTCOSIM_OK);
        char *text = read_text(path);
        assert_string_equal(text, threaded ? "\"time\",\"blob\",\"n\"\n0,666f6f,1\n0.5,,2\n1,00ff7f,3\n"
                                           : "\"time\",\"blob\",\"n\"\n0,666f6f,1\n0.5,,2\n1,00ff7f80,3\n");
        assert_int_equal(stats.strings_cut, threaded ? 1 : 0);
        free(text);
    }
}

/* Row i of the shared-formatting tests: numbers of every length and kind. */
static void fill_row(rtcosim_value *v, const rtcosim_column *cols, size_t n, int i)
{
    for (size_t k = 0; k < n; k++) {
        switch (cols[k].type) {
        case RTCOSIM_TYPE_FLOAT64: v[k].f64 = (i % 7 ? 1.0 / (i + 1 + (double)k) : i * 0.5) - k; break;
        case RTCOSIM_TYPE_FLOAT32: v[k].f32 = (float)i / 3.0f; break;
        case RTCOSIM_TYPE_INT32: v[k].i64 = (i % 2 ? -1 : 1) * (int64_t)i * 12345; break;
        case RTCOSIM_TYPE_UINT64: v[k].u64 = UINT64_MAX - (uint64_t)i; break;
        default: v[k].b = i % 3 == 0; break;
        }
    }
}

/* Pushes `rows` rows (every 3rd kept; column 1 omitted from the middle on;
 * the last row forced) into `path`; returns the stats. */
static rtcosim_recorder_stats push_rows(const char *path, const rtcosim_column *cols, size_t n,
                                        int rows, bool threaded, size_t ring_rows)
{
    rtcosim_recorder_options o = {.path = path, .columns = cols, .column_count = n,
                                  .record_every = 3, .writer_thread = threaded,
                                  .ring_rows = ring_rows, .buffer_bytes = 4096};
    rtcosim_recorder *r = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_recorder_open(&o, &r, &err), RTCOSIM_OK);
    rtcosim_value *v = calloc(n, sizeof *v);
    assert_non_null(v);
    for (int i = 0; i < rows; i++) {
        if (i == rows / 2)
            rtcosim_recorder_omit_column(r, 1);
        fill_row(v, cols, n, i);
        if (i == rows - 1)
            assert_int_equal(rtcosim_recorder_push_row_always(r, (rtcosim_time_ns)i * 100000, v, &err),
                             RTCOSIM_OK);
        else
            assert_int_equal(rtcosim_recorder_push_row(r, (rtcosim_time_ns)i * 100000, v, &err),
                             RTCOSIM_OK);
    }
    free(v);
    rtcosim_recorder_stats stats;
    assert_int_equal(rtcosim_recorder_close(r, &stats, &err), RTCOSIM_OK);
    return stats;
}

/* Rows pushed as fast as they come through a small ring: the pushing thread
 * formats runs of them itself while the writer is behind and hands them over
 * in their place; the file is the unthreaded recorder's byte for byte
 * (decimation, a column omitted midway, a forced last row; rows so wide that
 * a chunk holds few of them). Its rows read back to the values pushed. */
static void shared_formatting_gives_the_unthreaded_file(void **state)
{
    static const rtcosim_column narrow[] = {
        {.name = "x", .type = RTCOSIM_TYPE_FLOAT64}, {.name = "f", .type = RTCOSIM_TYPE_FLOAT32},
        {.name = "n", .type = RTCOSIM_TYPE_INT32},   {.name = "on", .type = RTCOSIM_TYPE_BOOLEAN},
        {.name = "u", .type = RTCOSIM_TYPE_UINT64}};
    enum { WIDE = 300 };
    rtcosim_column wide[WIDE];
    char names[WIDE][8];
    for (int k = 0; k < WIDE; k++) {
        snprintf(names[k], sizeof names[k], "w%d", k);
        wide[k] = (rtcosim_column){.name = names[k], .type = RTCOSIM_TYPE_FLOAT64};
    }
    const struct {
        const rtcosim_column *cols;
        size_t n;
        int rows;
        size_t ring_rows;
    } cases[] = {{narrow, 5, 300000, 64}, {wide, WIDE, 6000, 16}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        char plain[4096], threaded[4096];
        snprintf(plain, sizeof plain, "%s/shared%zu_plain.csv", (const char *)*state, c);
        snprintf(threaded, sizeof threaded, "%s/shared%zu_thread.csv", (const char *)*state, c);
        rtcosim_recorder_stats a = push_rows(plain, cases[c].cols, cases[c].n, cases[c].rows,
                                             false, 0);
        rtcosim_recorder_stats b = push_rows(threaded, cases[c].cols, cases[c].n, cases[c].rows,
                                             true, cases[c].ring_rows);
        assert_int_equal(a.rows_written, (cases[c].rows + 2) / 3 + ((cases[c].rows - 1) % 3 != 0));
        assert_int_equal(b.rows_written, a.rows_written);
        assert_int_equal(b.bytes_written, a.bytes_written);
        assert_int_equal(a.rows_formatted_by_pusher, 0);
        assert_true(b.rows_formatted_by_pusher > 0); /* (the writer formats a row 5-500x slower
                                                        than a push copies it) */
        assert_true(b.rows_formatted_by_pusher < b.rows_written);
        char *want = read_text(plain), *got = read_text(threaded);
        assert_string_equal(got, want);
        /* Independent of the unthreaded writer: row 3 (pushed as i = 9). */
        char *line = strchr(got, '\n') + 1;
        for (int skip = 0; skip < 3; skip++)
            line = strchr(line, '\n') + 1;
        rtcosim_value v[WIDE];
        fill_row(v, cases[c].cols, cases[c].n, 9);
        char *end;
        assert_true(strtod(line, &end) == 9e-4);
        assert_true(strtod(end + 1, &end) == v[0].f64);
        free(want);
        free(got);
    }
}

/* A FIFO's reader that takes a little, stops reading for pause_ms, then
 * reads the rest. */
typedef struct fifo_reader {
    const char *path;
    int pause_ms;
    char *text;
    size_t len;
} fifo_reader;

static void *read_fifo(void *arg)
{
    fifo_reader *f = arg;
    FILE *in = fopen(f->path, "rb");
    if (!in)
        return NULL;
    size_t cap = 1 << 20;
    if (!(f->text = malloc(cap))) {
        fclose(in);
        return NULL;
    }
    f->len = fread(f->text, 1, 4096, in);
    usleep((useconds_t)f->pause_ms * 1000);
    size_t got;
    while ((got = fread(f->text + f->len, 1, cap - f->len - 1, in)) > 0) {
        f->len += got;
        if (cap - f->len < 4096) {
            char *grown = realloc(f->text, cap * 2);
            if (!grown)
                break; /* (the comparison with the plain file then fails) */
            f->text = grown;
            cap *= 2;
        }
    }
    f->text[f->len] = '\0';
    fclose(in);
    return NULL;
}

static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A writer thread blocked in write() (a pipe nobody reads for 300 ms): the
 * pushing thread, which waits for the writer's chunks while the writer moves,
 * sees it stand still and stops waiting for it (it sleeps on the full ring
 * instead of spinning through the stall), and every row still arrives in
 * order, as the unthreaded recorder writes them. */
static void pushing_thread_does_not_spin_on_a_writer_blocked_in_write(void **state)
{
    static const rtcosim_column cols[] = {{.name = "x", .type = RTCOSIM_TYPE_FLOAT64},
                                          {.name = "n", .type = RTCOSIM_TYPE_INT32}};
    enum { ROWS = 60000, PAUSE_MS = 300 };
    char plain[4096], fifo[4096];
    snprintf(plain, sizeof plain, "%s/stall_plain.csv", (const char *)*state);
    snprintf(fifo, sizeof fifo, "%s/stall_fifo.csv", (const char *)*state);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    fifo_reader reader = {.path = fifo, .pause_ms = PAUSE_MS};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, read_fifo, &reader), 0);
    for (int threaded = 1; threaded >= 0; threaded--) {
        rtcosim_recorder_options o = {.path = threaded ? fifo : plain, .columns = cols,
                                      .column_count = 2, .writer_thread = threaded,
                                      .buffer_bytes = 4096};
        rtcosim_recorder *r = NULL;
        rtcosim_error err;
        assert_int_equal(rtcosim_recorder_open(&o, &r, &err), RTCOSIM_OK);
        struct timespec w0, w1;
        clock_gettime(CLOCK_MONOTONIC, &w0);
        double cpu0 = thread_cpu_s();
        for (int i = 0; i < ROWS; i++) {
            rtcosim_value v[2] = {{.f64 = 1.0 / (i + 1)}, {.i64 = i}};
            assert_int_equal(rtcosim_recorder_push_row(r, (rtcosim_time_ns)i * 1000, v, &err),
                             RTCOSIM_OK);
        }
        double cpu = thread_cpu_s() - cpu0;
        assert_int_equal(rtcosim_recorder_close(r, NULL, &err), RTCOSIM_OK);
        clock_gettime(CLOCK_MONOTONIC, &w1);
        if (threaded) {
            double wall = (double)(w1.tv_sec - w0.tv_sec) + (w1.tv_nsec - w0.tv_nsec) * 1e-9;
            /* (the rows are about 1.3 MB; the pipe, the ring and the
             * buffers hold well under half of that, so the pushes met the
             * stall) */
            assert_true(wall >= PAUSE_MS * 1e-3 * 0.9);
            /* spinning through the stall would make it all CPU time */
            assert_true(cpu < 0.5 * wall);
        }
    }
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_non_null(reader.text);
    char *want = read_text(plain);
    assert_int_equal(reader.len, strlen(want));
    assert_string_equal(reader.text, want);
    free(want);
    free(reader.text);
}

/* A second SIGINT's (or a crash's) handler writes what a threaded recorder
 * holds: the rows in its ring, in the writer's buffer and in the chunk the
 * pushing thread is filling. A child pushes rows, calls the handler's flush
 * right after its last push and _exit()s without closing the recorder. */
static void signal_safe_flush_writes_every_row_of_a_threaded_recorder(void **state)
{
    static const rtcosim_column cols[] = {{.name = "x", .type = RTCOSIM_TYPE_FLOAT64},
                                          {.name = "n", .type = RTCOSIM_TYPE_INT32}};
    for (int rows = 20000; rows < 20000 + 4 * 37; rows += 37) {
        char plain[4096], threaded[4096];
        snprintf(plain, sizeof plain, "%s/flush%d_plain.csv", (const char *)*state, rows);
        snprintf(threaded, sizeof threaded, "%s/flush%d_thread.csv", (const char *)*state, rows);
        rtcosim_recorder_options o = {.path = plain, .columns = cols, .column_count = 2};
        for (int threaded_run = 0; threaded_run < 2; threaded_run++) {
            pid_t pid = threaded_run ? fork() : 0;
            assert_true(pid >= 0);
            if (pid > 0) {
                int status;
                assert_int_equal(waitpid(pid, &status, 0), pid);
                assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
                break;
            }
            if (threaded_run) {
                o.path = threaded;
                o.writer_thread = true;
                o.ring_rows = 64;
                o.buffer_bytes = 4096;
            }
            rtcosim_recorder *r = NULL;
            int opened = rtcosim_recorder_open(&o, &r, NULL) == RTCOSIM_OK;
            if (threaded_run && !opened)
                _exit(3);
            assert_true(opened);
            for (int i = 0; i < rows; i++) {
                rtcosim_value v[2] = {{.f64 = 1.0 / (i + 1)}, {.i64 = i}};
                rtcosim_recorder_push_row(r, (rtcosim_time_ns)i * 1000, v, NULL);
            }
            if (!threaded_run) {
                assert_int_equal(rtcosim_recorder_close(r, NULL, NULL), RTCOSIM_OK);
                continue;
            }
            rtcosim_recorder_flush_all_signal_safe();
            _exit(0);
        }
        char *want = read_text(plain), *got = read_text(threaded);
        assert_string_equal(got, want);
        free(want);
        free(got);
    }
}

/* Whether a writer thread pays: the running tasks the kernel counts
 * (the caller among them), looked at a few times. */
typedef struct looks {
    const unsigned *seen;
    int count, taken;
} looks;

static unsigned next_look(void *context)
{
    looks *l = context;
    return l->taken < l->count ? l->seen[l->taken++] : l->seen[l->count - 1];
}

static void a_passing_task_does_not_take_the_free_cpu(void **state)
{
    (void)state;
    /* 2 CPUs: the caller and a kernel thread in the first look, the caller
     * alone in the second */
    const unsigned passing[] = {2, 1};
    looks l = {passing, 2, 0};
    assert_true(recorder_cpu_free(2, next_look, &l, 0));
    assert_int_equal(l.taken, 2);
    /* one look that finds a CPU free is enough */
    const unsigned idle[] = {1};
    l = (looks){idle, 1, 0};
    assert_true(recorder_cpu_free(2, next_look, &l, 0));
    assert_int_equal(l.taken, 1);
    /* every CPU busy in five looks: no writer thread */
    const unsigned busy[] = {3, 2, 4, 2, 2, 1};
    l = (looks){busy, 6, 0};
    assert_false(recorder_cpu_free(2, next_look, &l, 0));
    assert_int_equal(l.taken, 5);
    /* an unknown count (0) finds a CPU free, as before */
    const unsigned unknown[] = {0};
    l = (looks){unknown, 1, 0};
    assert_true(recorder_cpu_free(4, next_look, &l, 0));
}

/* Live: with a spinning thread on every CPU the caller's is not free. */
static atomic_int spinning;
static void *spin(void *arg)
{
    (void)arg;
    while (atomic_load_explicit(&spinning, memory_order_relaxed))
        ;
    return NULL;
}

static void every_cpu_busy_keeps_the_writing_on_the_caller(void **state)
{
    (void)state;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 2 || cpus > 64)
        skip();
    pthread_t t[64];
    atomic_store(&spinning, 1);
    for (long i = 0; i < cpus; i++)
        assert_int_equal(pthread_create(&t[i], NULL, spin, NULL), 0);
    usleep(20000); /* all of them running */
    bool pays = rtcosim_recorder_writer_thread_pays();
    atomic_store(&spinning, 0);
    for (long i = 0; i < cpus; i++)
        pthread_join(t[i], NULL);
    assert_false(pays);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(writes_header_and_rows_in_fmusim_format, tu_scratch_setup,
                                        tu_scratch_teardown),
        cmocka_unit_test_setup_teardown(keeps_every_nth_row_and_forced_rows, tu_scratch_setup,
                                        tu_scratch_teardown),
        cmocka_unit_test_setup_teardown(writer_thread_delivers_every_row_exactly, tu_scratch_setup,
                                        tu_scratch_teardown),
        cmocka_unit_test(full_ring_drops_rows_instead_of_waiting),
        cmocka_unit_test(unwritable_path_fails_at_open_naming_it),
        cmocka_unit_test(write_error_is_reported_at_close_with_the_path),
        cmocka_unit_test_setup_teardown(omitted_column_is_empty_from_then_on, tu_scratch_setup,
                                        tu_scratch_teardown),
        cmocka_unit_test_setup_teardown(binary_columns_are_written_as_hex, tu_scratch_setup,
                                        tu_scratch_teardown),
        cmocka_unit_test_setup_teardown(rows_reach_the_file_within_the_flush_period,
                                        tu_scratch_setup, tu_scratch_teardown),
        cmocka_unit_test_setup_teardown(threaded_rows_reach_the_file_without_another_push,
                                        tu_scratch_setup, tu_scratch_teardown),
        cmocka_unit_test_setup_teardown(whole_text_keeps_long_strings_with_a_writer_thread,
                                        tu_scratch_setup, tu_scratch_teardown),
        cmocka_unit_test_setup_teardown(shared_formatting_gives_the_unthreaded_file,
                                        tu_scratch_setup, tu_scratch_teardown),
        cmocka_unit_test_setup_teardown(pushing_thread_does_not_spin_on_a_writer_blocked_in_write,
                                        tu_scratch_setup, tu_scratch_teardown),
        cmocka_unit_test_setup_teardown(signal_safe_flush_writes_every_row_of_a_threaded_recorder,
                                        tu_scratch_setup, tu_scratch_teardown),
        cmocka_unit_test(a_passing_task_does_not_take_the_free_cpu),
        cmocka_unit_test(every_cpu_busy_keeps_the_writing_on_the_caller),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
