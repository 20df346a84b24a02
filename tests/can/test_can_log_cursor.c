/* A CAN log pulled in batches (rtcosim_can_log_cursor_*): the frames
 * rtcosim_can_log_read keeps, in its order, with its bus names, whatever the
 * batch size (logs longer than the cursor's queue, a bus that first appears
 * late); the frames before a malformed line, then its error naming file and
 * line; a cursor closed while its reader waits for room stops it (no hang,
 * no leak under ASan). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/can_log.h"
#include "util/test_util.h"

/* n candump lines; bus can1 from line `can1_from` on, every 3rd line;
 * sizes 0..8 */
static void write_log(const char *path, int n, int can1_from)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < n; i++) {
        fprintf(f, "(%d.%06d) %s %03X#", 1000 + i / 1000, (i % 1000) * 1000,
                i >= can1_from && i % 3 == 0 ? "can1" : "can0", (unsigned)(i * 7) & 0x7FF);
        for (int k = 0; k < i % 9; k++)
            fprintf(f, "%02X", (unsigned)(i + k) & 0xFF);
        fputc('\n', f);
    }
    fclose(f);
}

static void pulled_equals_read(const char *path, size_t batch)
{
    rtcosim_error err;
    rtcosim_can_log *whole = NULL;
    if (rtcosim_can_log_read(path, &whole, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    rtcosim_can_log_cursor *c = NULL;
    assert_int_equal(rtcosim_can_log_cursor_open(path, &c, &err), RTCOSIM_OK);
    rtcosim_can_log_record *buf = malloc(batch * sizeof *buf);
    assert_non_null(buf);
    const rtcosim_can_log_record *w = rtcosim_can_log_records(whole);
    size_t total = 0, n;
    do {
        /* (stale bytes past a frame's size must not come through) */
        memset(buf, 0xA5, batch * sizeof *buf);
        if (rtcosim_can_log_cursor_next(c, buf, batch, &n, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        assert_true(total + n <= rtcosim_can_log_count(whole));
        for (size_t i = 0; i < n; i++) {
            const rtcosim_can_log_record *a = &buf[i], *b = &w[total + i];
            assert_int_equal(a->time, b->time);
            assert_int_equal(a->id, b->id);
            assert_int_equal(a->extended, b->extended);
            assert_int_equal(a->remote, b->remote);
            assert_int_equal(a->size, b->size);
            assert_int_equal(a->line, b->line);
            assert_memory_equal(a->data, b->data, b->size);
            for (size_t k = a->size; k < sizeof a->data; k++)
                assert_int_equal(a->data[k], 0);
            /* the frame's bus already has its name, the whole read's */
            assert_true(a->bus < rtcosim_can_log_cursor_bus_count(c));
            assert_string_equal(rtcosim_can_log_cursor_bus_name(c, a->bus),
                                rtcosim_can_log_bus_name(whole, b->bus));
        }
        total += n;
    } while (n);
    assert_int_equal(total, rtcosim_can_log_count(whole));
    /* the end stays the end */
    assert_int_equal(rtcosim_can_log_cursor_next(c, buf, batch, &n, &err), RTCOSIM_OK);
    assert_int_equal(n, 0);
    assert_int_equal(rtcosim_can_log_cursor_bus_count(c), rtcosim_can_log_bus_count(whole));
    assert_null(rtcosim_can_log_cursor_bus_name(c, 99));
    assert_int_equal(rtcosim_can_log_cursor_xl_count(c), 0);
    size_t size = 7;
    const char *name = "x";
    assert_null(rtcosim_can_log_cursor_database(c, &size, &name));
    assert_int_equal(size, 0);
    assert_null(name);
    rtcosim_can_log_cursor_close(c);
    rtcosim_can_log_free(whole);
    free(buf);
}

static void batches_give_the_logs_frames(void **state)
{
    (void)state;
    const char *path = tu_scratch("long.log");
    /* longer than the queue (8192) several times; can1 first at line 12001 */
    write_log(path, 30000, 12000);
    pulled_equals_read(path, 1);
    pulled_equals_read(path, 777);
    pulled_equals_read(path, 65536);
    /* the same frames through the binary and MDF readers */
    rtcosim_can_log *whole = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_can_log_read(path, &whole, &err), RTCOSIM_OK);
    size_t n = rtcosim_can_log_count(whole);
    rtcosim_can_log_entry *e = calloc(n, sizeof *e);
    assert_non_null(e);
    const rtcosim_can_log_record *r = rtcosim_can_log_records(whole);
    for (size_t i = 0; i < n; i++) {
        e[i].start = r[i].time - 100000;
        e[i].end = r[i].time;
        e[i].frame.id = r[i].id;
        e[i].frame.dlc = r[i].size;
        memcpy(e[i].frame.data, r[i].data, r[i].size);
    }
    static const char *names[] = {"long.blf", "long.mf4", "long.asc"};
    for (size_t k = 0; k < 3; k++) {
        char *p = strdup(tu_scratch(names[k]));
        assert_int_equal(rtcosim_can_log_write(e, n, "can0", rtcosim_can_log_format_of(p), p,
                                               &err), RTCOSIM_OK);
        pulled_equals_read(p, 1000);
        free(p);
    }
    free(e);
    rtcosim_can_log_free(whole);
}

static void the_error_comes_after_the_frames_before_it(void **state)
{
    (void)state;
    const char *path = tu_scratch("bad.log");
    tu_write_file(path, "(1.0) can0 123#11\n(2.0) can0 123#22\n(3.0) can0 XYZ#33\n");
    rtcosim_can_log_cursor *c = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_can_log_cursor_open(path, &c, &err), RTCOSIM_OK);
    rtcosim_can_log_record buf[10];
    size_t n = 0, got = 0;
    rtcosim_status st;
    while ((st = rtcosim_can_log_cursor_next(c, buf, 1, &n, &err)) == RTCOSIM_OK && n)
        assert_int_equal(buf[0].line, (int)++got);
    assert_int_equal(got, 2);
    assert_int_equal(st, RTCOSIM_EFORMAT);
    assert_int_equal(n, 0);
    assert_non_null(strstr(err.message, "bad.log:3:"));
    rtcosim_can_log_cursor_close(c);

    /* a file that is not there: said by the first pull, naming it */
    assert_int_equal(rtcosim_can_log_cursor_open("/nonexistent/x.log", &c, &err), RTCOSIM_OK);
    assert_int_not_equal(rtcosim_can_log_cursor_next(c, buf, 10, &n, &err), RTCOSIM_OK);
    assert_non_null(strstr(err.message, "/nonexistent/x.log"));
    rtcosim_can_log_cursor_close(c);
    assert_int_equal(rtcosim_can_log_cursor_open(NULL, &c, &err), RTCOSIM_EINVAL);
    rtcosim_can_log_cursor_close(NULL);
}

static void closing_early_stops_the_reader(void **state)
{
    (void)state;
    const char *path = tu_scratch("stop.log");
    write_log(path, 100000, 100000);
    rtcosim_error err;
    rtcosim_can_log_record buf[10];
    size_t n;
    /* the reader fills the queue and waits for room; close ends it */
    rtcosim_can_log_cursor *c = NULL;
    assert_int_equal(rtcosim_can_log_cursor_open(path, &c, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_can_log_cursor_next(c, buf, 10, &n, &err), RTCOSIM_OK);
    assert_int_equal(n, 10);
    assert_int_equal(buf[9].line, 10);
    rtcosim_can_log_cursor_close(c);
    /* or before anything was pulled */
    assert_int_equal(rtcosim_can_log_cursor_open(path, &c, &err), RTCOSIM_OK);
    rtcosim_can_log_cursor_close(c);
    assert_int_equal(rtcosim_can_log_cursor_open(path, &c, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_can_log_cursor_next(c, buf, 0, &n, &err), RTCOSIM_OK);
    assert_int_equal(n, 0);
    rtcosim_can_log_cursor_close(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(batches_give_the_logs_frames),
        cmocka_unit_test(the_error_comes_after_the_frames_before_it),
        cmocka_unit_test(closing_early_stops_the_reader),
    };
    return cmocka_run_group_tests(tests, tu_scratch_group_setup, tu_scratch_group_teardown);
}
