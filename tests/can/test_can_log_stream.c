/* Streaming CAN logs: rtcosim_can_log_scan gives every frame of a log file
 * (candump -l with LF, CR LF and lone CR line ends and a byte-order mark,
 * ASC, BLF, MDF 4 written here) in the order rtcosim_can_log_read keeps them,
 * with the same fields; a sink's error stops the read; and the log writer a
 * frame at a time writes the same bytes as rtcosim_can_log_write, refusing
 * an MDF log that gets other frames than it was told unless truncated. */
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

typedef struct seen {
    rtcosim_can_log_record rec[16];
    char bus[16][16];
    size_t n;
    size_t stop_after; /* 0: never */
    bool cancel;       /* stop with RTCOSIM_ECANCELED (else RTCOSIM_EIO) */
} seen;

static rtcosim_status keep(void *context, const rtcosim_can_log *log,
                           const rtcosim_can_log_record *r, rtcosim_error *err)
{
    seen *s = context;
    if (s->stop_after && s->n == s->stop_after)
        return rtcosim_error_set(err, s->cancel ? RTCOSIM_ECANCELED : RTCOSIM_EIO,
                                 "sink: full after %zu", s->n);
    assert_true(s->n < 16);
    /* the log counts the frames given so far, this one included (its index
     * in the log is the count - 1, as the reassemblers take it) */
    assert_int_equal(rtcosim_can_log_count(log), s->n + 1);
    s->rec[s->n] = *r;
    /* the bus is named by the time its first frame arrives */
    snprintf(s->bus[s->n], sizeof s->bus[0], "%s", rtcosim_can_log_bus_name(log, r->bus));
    s->n++;
    return RTCOSIM_OK;
}

/* scan(path) equals read(path), frame by frame. */
static void same_as_read(const char *path, size_t expect)
{
    rtcosim_error err;
    rtcosim_can_log *whole = NULL, *meta = NULL;
    if (rtcosim_can_log_read(path, &whole, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    seen s = {0};
    if (rtcosim_can_log_scan(path, keep, &s, &meta, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(rtcosim_can_log_count(whole), expect);
    assert_int_equal(s.n, expect);
    assert_int_equal(rtcosim_can_log_count(meta), expect);
    assert_null(rtcosim_can_log_records(meta));
    assert_int_equal(rtcosim_can_log_bus_count(meta), rtcosim_can_log_bus_count(whole));
    assert_int_equal(rtcosim_can_log_source(meta), rtcosim_can_log_source(whole));
    const rtcosim_can_log_record *w = rtcosim_can_log_records(whole);
    for (size_t i = 0; i < expect; i++) {
        assert_int_equal(s.rec[i].time, w[i].time);
        assert_int_equal(s.rec[i].id, w[i].id);
        assert_int_equal(s.rec[i].extended, w[i].extended);
        assert_int_equal(s.rec[i].remote, w[i].remote);
        assert_int_equal(s.rec[i].size, w[i].size);
        assert_int_equal(s.rec[i].format, w[i].format);
        assert_int_equal(s.rec[i].line, w[i].line);
        assert_memory_equal(s.rec[i].data, w[i].data, w[i].size);
        assert_string_equal(s.bus[i], rtcosim_can_log_bus_name(whole, w[i].bus));
    }
    rtcosim_can_log_free(whole);
    rtcosim_can_log_free(meta);
}

static void text_logs_stream_line_by_line(void **state)
{
    (void)state;
    /* a BOM, then LF, CR LF and a lone CR: four lines, line numbers kept */
    const char *path = tu_scratch("ends.log");
    tu_write_file(path, "\xEF\xBB\xBF(1.000000) can0 123#11\n(1.500000) can1 18FEF100#R\r\n"
                        "(2.000000) can0 124##1AABB\r\n(2.250000) can0 7DF#0201\r");
    same_as_read(path, 4);
    seen s = {0};
    rtcosim_can_log *meta = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_can_log_scan(path, keep, &s, &meta, &err), RTCOSIM_OK);
    /* by hand: the fourth frame is on line 4, 2.25 s, id 0x7DF, 2 bytes */
    assert_int_equal(s.rec[3].line, 4);
    assert_int_equal(s.rec[3].time, INT64_C(2250000000));
    assert_int_equal(s.rec[3].id, 0x7DF);
    assert_int_equal(s.rec[3].size, 2);
    assert_string_equal(s.bus[1], "can1");
    assert_true(s.rec[1].remote && s.rec[1].extended);
    assert_int_equal(s.rec[2].format, RTCOSIM_CAN_FORMAT_FD);
    rtcosim_can_log_free(meta);

    const char *asc = tu_scratch("t.asc");
    tu_write_file(asc, "date Thu Jan 1 12:00:00.000 am 1970\nbase hex  timestamps absolute\n"
                       "   0.010000 1  0C0             Rx   d 2 A0 0F\n"
                       "   0.020000 2  18FEF100x       Rx   d 3 01 02 03\n");
    same_as_read(asc, 2);
}

static rtcosim_can_log_entry classic(rtcosim_time_ns t, uint32_t id, uint8_t n)
{
    rtcosim_can_log_entry e = {.start = t - 100000, .end = t};
    e.frame.id = id;
    e.frame.dlc = n;
    for (uint8_t k = 0; k < n; k++)
        e.frame.data[k] = (uint8_t)(id + k);
    return e;
}

/* Each format written whole and a frame at a time: the same bytes (the MDF
 * header's creation time aside: compared from the data group on). */
static void writer_equals_whole_write(void **state)
{
    (void)state;
    static const uint8_t fd_data[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    rtcosim_can_log_entry e[3] = {classic(1000000, 0x123, 8), classic(2000000, 0x7E8, 3)};
    e[2] = (rtcosim_can_log_entry){.start = 2900000, .end = 3000000,
                                   .format = RTCOSIM_CAN_FORMAT_FD, .flags = RTCOSIM_CAN_FD_BRS,
                                   .length = 12, .data = fd_data};
    e[2].frame.id = 0x18DA00F1;
    e[2].frame.extended = true;
    static const char *names[] = {"a.log", "a.asc", "a.blf", "a.mf4"};
    for (size_t f = 0; f < 4; f++) {
        char whole[64], stream[64];
        snprintf(whole, sizeof whole, "whole-%s", names[f]);
        snprintf(stream, sizeof stream, "stream-%s", names[f]);
        char *wp = strdup(tu_scratch(whole)), *sp = strdup(tu_scratch(stream));
        rtcosim_can_log_format format = rtcosim_can_log_format_of(names[f]);
        rtcosim_error err;
        if (rtcosim_can_log_write(e, 3, "can0", format, wp, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        rtcosim_can_log_layout layout = {.frames = 3, .fd = true};
        rtcosim_can_log_writer *w = NULL;
        if (rtcosim_can_log_writer_open(sp, format, "can0", &layout, &w, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        for (size_t i = 0; i < 3; i++)
            assert_int_equal(rtcosim_can_log_writer_add(w, &e[i], &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_can_log_writer_close(w, &err), RTCOSIM_OK);
        size_t a_len = 0, b_len = 0;
        char *a = tu_read_file(wp, &a_len); /* (a buffer it reuses: copied) */
        a = memcpy(malloc(a_len + 1), a, a_len + 1);
        char *b = tu_read_file(sp, &b_len);
        assert_int_equal(a_len, b_len);
        size_t from = format == RTCOSIM_CAN_LOG_MDF ? 64 + 104 + 160 : 0; /* ID, HD, FH... */
        if (format == RTCOSIM_CAN_LOG_MDF) { /* from the data group: DG, its TX, SI, CG... */
            const char *dg = memmem(a, a_len, "##DG", 4);
            assert_non_null(dg);
            from = (size_t)(dg - a);
        }
        assert_memory_equal(a + from, b + from, a_len - from);
        /* and every frame reads back */
        rtcosim_can_log *log = NULL;
        if (rtcosim_can_log_read(sp, &log, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        assert_int_equal(rtcosim_can_log_count(log), 3);
        assert_int_equal(rtcosim_can_log_records(log)[2].size, 12);
        assert_int_equal(rtcosim_can_log_records(log)[2].data[11], 12);
        rtcosim_can_log_free(log);
        same_as_read(sp, 3);
        free(a);
        free(wp);
        free(sp);
    }
}

/* An MDF log written without knowing how many frames will come (a run's
 * bus streaming its log, layout.frames RTCOSIM_CAN_LOG_FRAMES_UNKNOWN) is
 * the file a known count makes from the data group on: 1000 frames (held,
 * one DT block at the close) and 100 000 (past the 1 MiB of records held:
 * DZ blocks), every frame reading back. */
static void mdf_writer_without_a_count_equals_the_counted_one(void **state)
{
    (void)state;
    static const size_t counts[] = {1000, 100000};
    for (size_t c = 0; c < 2; c++) {
        size_t n = counts[c];
        rtcosim_can_log_entry *e = malloc(n * sizeof *e);
        assert_non_null(e);
        for (size_t i = 0; i < n; i++)
            e[i] = classic((rtcosim_time_ns)(i + 1) * 1000000, (uint32_t)(0x100 + i % 0x600),
                           (uint8_t)(i % 9));
        char *wp = strdup(tu_scratch("counted.mf4")), *sp = strdup(tu_scratch("uncounted.mf4"));
        rtcosim_error err;
        if (rtcosim_can_log_write(e, n, "can0", RTCOSIM_CAN_LOG_MDF, wp, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        rtcosim_can_log_layout layout = {.frames = RTCOSIM_CAN_LOG_FRAMES_UNKNOWN};
        rtcosim_can_log_writer *w = NULL;
        if (rtcosim_can_log_writer_open(sp, RTCOSIM_CAN_LOG_MDF, "can0", &layout, &w, &err) !=
            RTCOSIM_OK)
            fail_msg("%s", err.message);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(rtcosim_can_log_writer_add(w, &e[i], &err), RTCOSIM_OK);
        if (rtcosim_can_log_writer_close(w, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        size_t a_len = 0, b_len = 0;
        char *a = tu_read_file(wp, &a_len);
        a = memcpy(malloc(a_len + 1), a, a_len + 1);
        char *b = tu_read_file(sp, &b_len);
        assert_int_equal(a_len, b_len);
        const char *dg = memmem(a, a_len, "##DG", 4);
        assert_non_null(dg);
        size_t from = (size_t)(dg - a);
        assert_memory_equal(a + from, b + from, a_len - from);
        if (n > 50000)
            assert_non_null(memmem(b, b_len, "##DZ", 4));
        rtcosim_can_log *log = NULL;
        if (rtcosim_can_log_read(sp, &log, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        assert_int_equal(rtcosim_can_log_count(log), n);
        const rtcosim_can_log_record *r = rtcosim_can_log_records(log);
        for (size_t i = 0; i < n; i += 997) {
            assert_int_equal(r[i].id, e[i].frame.id);
            assert_int_equal(r[i].size, e[i].frame.dlc);
        }
        rtcosim_can_log_free(log);
        free(a);
        free(wp);
        free(sp);
        free(e);
    }
}

/* The candump -l lines, put together by hand for speed, are what can-utils'
 * format gives ("(%010llu.%06llu) %s %03X#..." / "%08X", "##%X" for CAN FD,
 * "%02X" per byte), here printed by snprintf: 2000 random frames, classic and
 * CAN FD, standard and extended, times from 0 to the largest a log holds. */
static void candump_lines_are_printf_lines(void **state)
{
    (void)state;
    enum { N = 2000 };
    static rtcosim_can_log_entry e[N];
    static uint8_t fd[N][64];
    char *expect = malloc((size_t)N * 200), *p = expect;
    uint64_t x = 88172645463325252ull; /* xorshift64 */
#define NEXT() (x ^= x << 13, x ^= x >> 7, x ^= x << 17, x)
    for (size_t i = 0; i < N; i++) {
        bool ext = NEXT() & 1, is_fd = NEXT() % 3 == 0;
        uint64_t us = i == 0 ? 0 : i == 1 ? 999999 : i == 2 ? 9223372036854774ull
                                                   : NEXT() % 100000000000000ull;
        e[i] = (rtcosim_can_log_entry){.start = (rtcosim_time_ns)us * 1000 - 100,
                                       .end = (rtcosim_time_ns)us * 1000 +
                                              (int)(NEXT() % 999) - 499};
        e[i].frame.id = (uint32_t)(ext ? NEXT() % 0x20000000u : NEXT() % 0x800u);
        e[i].frame.extended = ext;
        p += sprintf(p, "(%010llu.%06llu) can0 %0*X#", (unsigned long long)(us / 1000000),
                     (unsigned long long)(us % 1000000), ext ? 8 : 3, (unsigned)e[i].frame.id);
        if (is_fd) {
            static const uint8_t lengths[] = {0, 1, 8, 12, 16, 20, 24, 32, 48, 64};
            e[i].format = RTCOSIM_CAN_FORMAT_FD;
            e[i].flags = (uint8_t)(NEXT() & 3);
            e[i].length = lengths[NEXT() % 10];
            for (size_t k = 0; k < e[i].length; k++)
                fd[i][k] = (uint8_t)NEXT();
            e[i].data = fd[i];
            p += sprintf(p, "#%X", e[i].flags);
            for (size_t k = 0; k < e[i].length; k++)
                p += sprintf(p, "%02X", fd[i][k]);
        } else {
            e[i].frame.dlc = (uint8_t)(NEXT() % 9);
            for (size_t k = 0; k < e[i].frame.dlc; k++)
                e[i].frame.data[k] = (uint8_t)NEXT();
            for (size_t k = 0; k < e[i].frame.dlc; k++)
                p += sprintf(p, "%02X", e[i].frame.data[k]);
        }
        *p++ = '\n';
    }
#undef NEXT
    const char *path = tu_scratch("lines.log");
    rtcosim_can_log_layout layout = {.frames = N, .fd = true};
    rtcosim_can_log_writer *w = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_can_log_writer_open(path, RTCOSIM_CAN_LOG_CANDUMP, "can0", &layout,
                                                 &w, &err), RTCOSIM_OK);
    for (size_t i = 0; i < N; i++)
        assert_int_equal(rtcosim_can_log_writer_add(w, &e[i], &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_can_log_writer_close(w, &err), RTCOSIM_OK);
    size_t len = 0;
    const char *got = tu_read_file(path, &len);
    assert_int_equal(len, (size_t)(p - expect));
    assert_memory_equal(got, expect, len);
    free(expect);
}

/* An MDF log told 3 frames that gets 2, or a CAN FD frame when told none,
 * or a fourth one: each an error naming the file. */
static void mdf_writer_holds_to_its_layout(void **state)
{
    (void)state;
    const char *path = tu_scratch("short.mf4");
    rtcosim_error err;
    rtcosim_can_log_layout layout = {.frames = 3};
    rtcosim_can_log_writer *w = NULL;
    assert_int_equal(rtcosim_can_log_writer_open(path, RTCOSIM_CAN_LOG_MDF, "can0", &layout, &w,
                                                 &err), RTCOSIM_OK);
    rtcosim_can_log_entry a = classic(1000, 0x100, 1), b = classic(2000, 0x101, 2);
    assert_int_equal(rtcosim_can_log_writer_add(w, &a, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_can_log_writer_add(w, &b, &err), RTCOSIM_OK);
    assert_int_not_equal(rtcosim_can_log_writer_close(w, &err), RTCOSIM_OK);
    assert_non_null(strstr(err.message, "short.mf4: 2 frames written of the 3 announced"));

    layout.frames = 1;
    assert_int_equal(rtcosim_can_log_writer_open(path, RTCOSIM_CAN_LOG_MDF, "can0", &layout, &w,
                                                 &err), RTCOSIM_OK);
    static const uint8_t d[12];
    rtcosim_can_log_entry fd = {.end = 5, .format = RTCOSIM_CAN_FORMAT_FD, .length = 12, .data = d};
    assert_int_equal(rtcosim_can_log_writer_add(w, &fd, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "a CAN FD frame in a log announced without any"));
    assert_int_equal(rtcosim_can_log_writer_add(w, &a, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_can_log_writer_add(w, &b, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "more frames than the 1 announced"));
    rtcosim_can_log_writer_abort(w);
}

/* A log that ends short of the frames its layout announced (a conversion
 * stopped by Ctrl-C), truncated before its close: every format is a log of
 * the frames added; an MDF file's cycle count and DT length say 2 (read
 * here from the blocks: asammdf takes a sorted group's records by its
 * cycle count), in one DT block and in DZ blocks (a long announcement). */
static void a_truncated_log_holds_what_was_added(void **state)
{
    (void)state;
    static const char *names[] = {"t.log", "t.asc", "t.blf", "t.mf4", "long.mf4"};
    rtcosim_can_log_entry e[2] = {classic(1000000, 0x100, 1), classic(2000000, 0x101, 2)};
    for (size_t f = 0; f < 5; f++) {
        char *path = strdup(tu_scratch(names[f]));
        rtcosim_error err;
        rtcosim_can_log_layout layout = {.frames = f == 4 ? 100000 : 3};
        rtcosim_can_log_writer *w = NULL;
        assert_int_equal(rtcosim_can_log_writer_open(path, rtcosim_can_log_format_of(path), "can0",
                                                     &layout, &w, &err), RTCOSIM_OK);
        for (size_t i = 0; i < 2; i++)
            assert_int_equal(rtcosim_can_log_writer_add(w, &e[i], &err), RTCOSIM_OK);
        rtcosim_can_log_writer_truncate(w);
        if (rtcosim_can_log_writer_close(w, &err) != RTCOSIM_OK)
            fail_msg("%s: %s", names[f], err.message);
        rtcosim_can_log *log = NULL;
        if (rtcosim_can_log_read(path, &log, &err) != RTCOSIM_OK)
            fail_msg("%s: %s", names[f], err.message);
        assert_int_equal(rtcosim_can_log_count(log), 2);
        for (size_t i = 0; i < 2; i++) {
            const rtcosim_can_log_record *r = &rtcosim_can_log_records(log)[i];
            assert_int_equal(r->id, e[i].frame.id);
            assert_int_equal(r->size, e[i].frame.dlc);
            assert_int_equal(r->time, e[i].end);
        }
        rtcosim_can_log_free(log);
        if (f >= 3) {
            size_t len = 0;
            const char *d = tu_read_file(path, &len);
            const char *cg = memmem(d, len, "##CG", 4);
            assert_non_null(cg);
            uint64_t cycles;
            memcpy(&cycles, cg + 24 + 8 * 6 + 8, 8);
            assert_int_equal(cycles, 2);
            const char *dt = memmem(d, len, "##DT", 4);
            if (f == 3) { /* one DT block: its length, 2 records of 24 bytes */
                uint64_t dt_len;
                assert_non_null(dt);
                memcpy(&dt_len, dt + 8, 8);
                assert_int_equal(dt_len, 24 + 2 * 24);
                assert_int_equal((size_t)(dt - d) + dt_len, len);
            } else {
                assert_null(dt);
                assert_non_null(memmem(d, len, "##DZ", 4));
            }
        }
        free(path);
    }
}

/* The database of a log read alone: none in a candump log or an MDF log
 * without attachment (an attached one: tests/can/test_can_log_mdf.py, can
 * decode without --dbc); a missing file is an error naming it. */
static void a_logs_database_alone(void **state)
{
    (void)state;
    static const char *names[] = {"db.log", "db.mf4"};
    rtcosim_can_log_entry e = classic(1000000, 0x100, 1);
    rtcosim_error err;
    for (size_t i = 0; i < 2; i++) {
        char *p = strdup(tu_scratch(names[i]));
        assert_int_equal(rtcosim_can_log_write(&e, 1, "can0", rtcosim_can_log_format_of(p), p,
                                               &err), RTCOSIM_OK);
        char *text = (char *)1, *name = (char *)1;
        size_t size = 7;
        assert_int_equal(rtcosim_can_log_read_database(p, &text, &size, &name, &err), RTCOSIM_OK);
        assert_null(text);
        assert_null(name);
        assert_int_equal(size, 0);
        free(p);
    }
    char *text, *name;
    size_t size;
    assert_int_not_equal(rtcosim_can_log_read_database("/nonexistent/x.mf4", &text, &size, &name,
                                                       &err), RTCOSIM_OK);
    assert_non_null(strstr(err.message, "/nonexistent/x.mf4"));
}

/* candump's fast line reader and the general one (RTCOSIM_CAN_LOG_GENERAL=1)
 * read the same frames from lines at the edges of the usual form, and
 * refuse the same bad ones (the fuzz target compares them on any bytes). */
static void fast_and_general_candump_agree(void **state)
{
    (void)state;
    static const char good[] =
        "(1436509052.249713) vcan0 44C#1122334455667788\n"
        "(0.5) can1 0000123#AB\n"                 /* leading zeros: 7 digits, extended */
        "(000000001.123456789123) can0 7FF#\n"    /* digits past ns, an empty frame */
        "(2.000001) can0 000000123#01\n"          /* 9 id digits: the general reader */
        "(3.000001) can0 1FFFFFFF##3" "00112233445566778899AABBCCDDEEFF"
        "00112233445566778899AABBCCDDEEFF00112233445566778899AABBCCDDEEFF"
        "00112233445566778899AABBCCDDEEFF\n"       /* CAN FD, 64 bytes, BRS and ESI */
        "(4.1) can0 123#R\n"                       /* remote */
        "(4.2) can0 123#DEAD R\n"                  /* a direction after the frame */
        "(4.3) can0 123#beef\tT\n"                /* lower case, a tab after */
        "(4.4)\tcan0\t123#00\n"                   /* tabs between the fields */
        "  (4.5)  can0   124#01\n"                 /* blanks before and between */
        "(5) can0 125#02\n"                        /* no fraction */
        "(.5) can0 126#03\n";                      /* no whole seconds */
    static const char *bad[] = {"(1.5) can0 123#1\n", "(1.5) can0 800#00\n",
                                "(1.5) can0 20000000#00\n", "(1.5) can0 123#GG\n",
                                "(1.5 can0 123#00\n", "(1.5) can0 123##\n",
                                "(1.5) can0 123#" "000102030405060708090A0B0C0D0E0F"
                                "101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F"
                                "303132333435363738393A3B3C3D3E3F40\n"};
    rtcosim_error err;
    rtcosim_can_log *fast = NULL, *general = NULL;
    assert_int_equal(rtcosim_can_log_parse(good, sizeof good - 1, "good.log", &fast, &err),
                     RTCOSIM_OK);
    setenv("RTCOSIM_CAN_LOG_GENERAL", "1", 1);
    assert_int_equal(rtcosim_can_log_parse(good, sizeof good - 1, "good.log", &general, &err),
                     RTCOSIM_OK);
    unsetenv("RTCOSIM_CAN_LOG_GENERAL");
    assert_int_equal(rtcosim_can_log_count(fast), 12);
    assert_int_equal(rtcosim_can_log_count(general), 12);
    for (size_t i = 0; i < 12; i++) {
        const rtcosim_can_log_record *a = &rtcosim_can_log_records(fast)[i],
                                     *b = &rtcosim_can_log_records(general)[i];
        assert_int_equal(a->time, b->time);
        assert_int_equal(a->id, b->id);
        assert_int_equal(a->extended, b->extended);
        assert_int_equal(a->remote, b->remote);
        assert_int_equal(a->size, b->size);
        assert_int_equal(a->format, b->format);
        assert_int_equal(a->flags, b->flags);
        assert_memory_equal(a->data, b->data, a->size);
        assert_string_equal(rtcosim_can_log_bus_name(fast, a->bus),
                            rtcosim_can_log_bus_name(general, b->bus));
    }
    /* (and against the lines themselves: a few by hand) */
    assert_int_equal(rtcosim_can_log_records(fast)[1].id, 0x123);
    assert_true(rtcosim_can_log_records(fast)[1].extended);
    assert_int_equal(rtcosim_can_log_records(fast)[2].time, 1123456789);
    assert_int_equal(rtcosim_can_log_records(fast)[4].size, 64);
    assert_int_equal(rtcosim_can_log_records(fast)[4].flags, 3);
    rtcosim_can_log_free(fast);
    rtcosim_can_log_free(general);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char a[sizeof err.message], b[sizeof err.message];
        assert_int_not_equal(rtcosim_can_log_parse(bad[i], strlen(bad[i]), "bad.log", &fast, &err),
                             RTCOSIM_OK);
        snprintf(a, sizeof a, "%s", err.message);
        setenv("RTCOSIM_CAN_LOG_GENERAL", "1", 1);
        assert_int_not_equal(rtcosim_can_log_parse(bad[i], strlen(bad[i]), "bad.log", &general,
                                                   &err), RTCOSIM_OK);
        unsetenv("RTCOSIM_CAN_LOG_GENERAL");
        snprintf(b, sizeof b, "%s", err.message);
        assert_string_equal(a, b);
    }
}

/* The sink's error ends the read at once and is the read's. */
static void a_sinks_error_stops_the_read(void **state)
{
    (void)state;
    const char *path = tu_scratch("many.log");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < 1000; i++)
        fprintf(f, "(%d.000000) can0 123#%02X\n", i, i & 0xFF);
    fclose(f);
    seen s = {.stop_after = 5};
    rtcosim_can_log *meta = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_can_log_scan(path, keep, &s, &meta, &err), RTCOSIM_EIO);
    assert_null(meta);
    assert_int_equal(s.n, 5);
    assert_string_equal(err.message, "sink: full after 5");
    /* a sink that has seen enough (RTCOSIM_ECANCELED): the log so far stays,
     * its buses and the frames given */
    s = (seen){.stop_after = 5, .cancel = true};
    assert_int_equal(rtcosim_can_log_scan(path, keep, &s, &meta, &err), RTCOSIM_ECANCELED);
    assert_non_null(meta);
    assert_int_equal(rtcosim_can_log_count(meta), 6); /* (the sixth was given, and refused) */
    assert_string_equal(rtcosim_can_log_bus_name(meta, 0), "can0");
    assert_null(rtcosim_can_log_records(meta));
    rtcosim_can_log_free(meta);
    /* a malformed line after good ones: the frames before it went out, then
     * the error names file and line */
    tu_write_file(path, "(1.0) can0 123#11\n(2.0) can0 123#22\n(3.0) can0 XYZ#33\n");
    s = (seen){0};
    assert_int_equal(rtcosim_can_log_scan(path, keep, &s, &meta, &err), RTCOSIM_EFORMAT);
    assert_int_equal(s.n, 2);
    assert_non_null(strstr(err.message, "many.log:3:"));
    assert_int_equal(rtcosim_can_log_scan(path, NULL, NULL, &meta, &err), RTCOSIM_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(text_logs_stream_line_by_line),
        cmocka_unit_test(writer_equals_whole_write),
        cmocka_unit_test(mdf_writer_holds_to_its_layout),
        cmocka_unit_test(mdf_writer_without_a_count_equals_the_counted_one),
        cmocka_unit_test(candump_lines_are_printf_lines),
        cmocka_unit_test(a_truncated_log_holds_what_was_added),
        cmocka_unit_test(a_logs_database_alone),
        cmocka_unit_test(fast_and_general_candump_agree),
        cmocka_unit_test(a_sinks_error_stops_the_read),
    };
    return cmocka_run_group_tests(tests, tu_scratch_group_setup, tu_scratch_group_teardown);
}
