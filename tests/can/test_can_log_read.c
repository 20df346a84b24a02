/* Reading CAN logs of other tools: hand-written candump -l and Vector ASC
 * lines (standard/extended ids, remote and CAN FD frames, hex and dec base,
 * relative timestamps) read into the frames they state, and malformed lines
 * named by file and line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/can_log.h"
#include "rtcosim/j1939.h"

#include <stdlib.h>

static rtcosim_can_log *parse(const char *text)
{
    rtcosim_can_log *log = NULL;
    rtcosim_error err;
    if (rtcosim_can_log_parse(text, strlen(text), "t.log", &log, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    return log;
}

static void candump_lines(void **state)
{
    (void)state;
    rtcosim_can_log *log = parse("(1436509052.249713) vcan0 044#2A366C2A366C2A36\n"
                                 "(1436509052.250000) can1 18FEF100#R T\n"
                                 "\n"
                                 "(1436509052.300001) vcan0 123##1" "00112233445566778899\n"
                                 "(0000000000.000150) vcan0 0C8# a-sender-name\n");
    assert_int_equal(rtcosim_can_log_count(log), 4);
    assert_int_equal(rtcosim_can_log_bus_count(log), 2);
    assert_string_equal(rtcosim_can_log_bus_name(log, 1), "can1");
    const rtcosim_can_log_record *r = rtcosim_can_log_records(log);
    assert_int_equal(r[0].time, INT64_C(1436509052249713000));
    assert_int_equal(r[0].id, 0x44);
    assert_false(r[0].extended);
    assert_int_equal(r[0].size, 8);
    assert_int_equal(r[0].data[7], 0x36);
    assert_true(r[1].extended && r[1].remote);
    assert_int_equal(r[1].id, 0x18FEF100);
    assert_int_equal(r[1].bus, 1);
    assert_int_equal(r[2].size, 10);
    assert_int_equal(r[2].data[9], 0x99);
    assert_int_equal(r[2].line, 4);
    assert_int_equal(r[3].time, 150000);
    assert_int_equal(r[3].size, 0);
    rtcosim_can_log_free(log);
}

static void asc_lines(void **state)
{
    (void)state;
    rtcosim_can_log *log = parse("date Thu Jan 1 12:00:00.000 am 1970\n"
                                 "base hex  timestamps absolute\n"
                                 "internal events logged\n"
                                 "// version 9.0.0\n"
                                 "Begin Triggerblock Thu Jan 1 12:00:00.000 am 1970\n"
                                 "   0.000000 Start of measurement\n"
                                 "   0.002300 1  C0              Rx   d 2 84 0C  Length = 1 BitCount = 2\n"
                                 "   0.002500 2  18FEF100x       Tx   d 3 01 02 FF\n"
                                 "   0.002600 1  ErrorFrame\n"
                                 "   0.002700 1  7FF             Rx   r\n"
                                 "End TriggerBlock\n");
    assert_int_equal(rtcosim_can_log_count(log), 3);
    const rtcosim_can_log_record *r = rtcosim_can_log_records(log);
    assert_int_equal(r[0].time, 2300000);
    assert_int_equal(r[0].id, 0xC0);
    assert_int_equal(r[0].size, 2);
    assert_int_equal(r[0].data[1], 0x0C);
    assert_string_equal(rtcosim_can_log_bus_name(log, r[1].bus), "can1");
    assert_true(r[1].extended);
    assert_int_equal(r[1].id, 0x18FEF100);
    assert_int_equal(r[1].data[2], 0xFF);
    assert_true(r[2].remote);
    rtcosim_can_log_free(log);

    /* Decimal base, relative timestamps: each time adds to the previous event's. */
    log = parse("base dec  timestamps relative\n"
                "   0.5 1  200             Rx   d 2 10 255\n"
                "   0.25 1  200             Rx   d 1 7\n");
    r = rtcosim_can_log_records(log);
    assert_int_equal(r[0].id, 200);
    assert_int_equal(r[0].data[1], 255);
    assert_int_equal(r[1].time, 750000000);
    rtcosim_can_log_free(log);
}

static void expect_error(const char *text, const char *where)
{
    rtcosim_can_log *log = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_can_log_parse(text, strlen(text), "t.log", &log, &err), RTCOSIM_EFORMAT);
    assert_null(log);
    if (strncmp(err.message, where, strlen(where)) != 0)
        fail_msg("'%s' does not start with '%s'", err.message, where);
}

static void malformed_lines_name_the_line(void **state)
{
    (void)state;
    expect_error("(0.1) can0 123#00\n(0.2) can0 123#0\n", "t.log:2:");
    expect_error("(0.1) can0 800#00\n", "t.log:1:");          /* 3 digits: standard, > 0x7FF */
    expect_error("(0.1) can0 123\n", "t.log:1:");
    expect_error("(x) can0 123#00\n", "t.log:1:");
    expect_error("(0.1) can0\n", "t.log:1:");
    expect_error("base hex\n 0.1 1 123 Rx d 4 01 02\n", "t.log:2:");
    expect_error("base hex\n 0.1 1 123 Rx q 1 01\n", "t.log:2:");
    expect_error("base oct\n", "t.log:1:");
    rtcosim_can_log *log = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_can_log_read("/nonexistent/x.log", &log, &err), RTCOSIM_ENOTFOUND);
    assert_non_null(strstr(err.message, "/nonexistent/x.log"));
}

/* Text that is neither format (a plain `candump` without -l, a password
 * file, binary data) is refused at its first line, not read as an empty
 * ASC log. */
static void other_text_is_not_a_log(void **state)
{
    (void)state;
    const char *texts[] = {"  vcan0  123   [2]  11 22\n  vcan0  124   [1]  33\n",
                           "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1::/usr/sbin:/bin/sh\n",
                           "\n\n\177ELF\x02\x01\x01\n", "\x8b\x1f\xff\xfe\x11\x00\x42"};
    const char *where[] = {"t.log:1: not a candump -l, ASC, TRC, BLF or MDF log", "t.log:1: not a candump -l, ASC, TRC, BLF or MDF log",
                           "t.log:3: not a candump -l, ASC, TRC, BLF or MDF log", "t.log:1: not a candump -l, ASC, TRC, BLF or MDF log"};
    for (size_t i = 0; i < 4; i++) {
        size_t n = i == 3 ? 7 : strlen(texts[i]);
        rtcosim_can_log *log = NULL;
        rtcosim_error err;
        assert_int_equal(rtcosim_can_log_parse(texts[i], n, "t.log", &log, &err), RTCOSIM_EFORMAT);
        assert_null(log);
        if (strncmp(err.message, where[i], strlen(where[i])) != 0)
            fail_msg("'%s' does not start with '%s'", err.message, where[i]);
    }
    /* ASC logs start with their header or an event line. */
    rtcosim_can_log *log = parse("no internal events logged\n");
    assert_int_equal(rtcosim_can_log_count(log), 0);
    rtcosim_can_log_free(log);
    log = parse("   0.5 1  200             Rx   d 1 10\n");
    assert_int_equal(rtcosim_can_log_count(log), 1);
    rtcosim_can_log_free(log);
}

/* CR-only and CR LF line ends read like LF: every frame, the same lines. */
static void cr_line_ends_read_like_lf(void **state)
{
    (void)state;
    const char *ends[] = {"\r", "\r\n"};
    for (size_t e = 0; e < 2; e++) {
        char text[256];
        snprintf(text, sizeof text, "\xEF\xBB\xBF(0.000100) can0 123#01%s(0.000200) can0 124#02%s%s"
                 "(0.000300) can0 125#03%s", ends[e], ends[e], ends[e], ends[e]);
        rtcosim_can_log *log = parse(text);
        assert_int_equal(rtcosim_can_log_count(log), 3);
        const rtcosim_can_log_record *r = rtcosim_can_log_records(log);
        assert_int_equal(r[2].id, 0x125);
        assert_int_equal(r[2].data[0], 3);
        assert_int_equal(r[2].line, 4);
        assert_int_equal(r[2].time, 300000);
        rtcosim_can_log_free(log);
    }
    rtcosim_can_log *log = parse("base hex  timestamps absolute\r   0.5 1  200 Rx d 1 10\r"
                                 "   0.75 1  201 Rx d 1 11\r");
    assert_int_equal(rtcosim_can_log_count(log), 2);
    assert_int_equal(rtcosim_can_log_records(log)[1].time, 750000000);
    rtcosim_can_log_free(log);
}

/* Relative ASC times add up exactly or are refused: 9e9 s twice is past
 * the 2^63 ns (292 years) a time holds. */
static void relative_times_never_overflow(void **state)
{
    (void)state;
    rtcosim_can_log *log = parse("base hex  timestamps relative\n"
                                 "   4000000000.000000001 1  200 Rx d 1 10\n"
                                 "   4000000000.000000002 1  200 Rx d 1 10\n");
    assert_int_equal(rtcosim_can_log_records(log)[1].time, INT64_C(8000000000000000003));
    rtcosim_can_log_free(log);
    expect_error("base hex  timestamps relative\n"
                 "   9000000000 1  200 Rx d 1 10\n"
                 "   9000000000 1  200 Rx d 1 10\n", "t.log:3: relative time beyond");
}

/* J1939 transport sessions stay bounded whatever a log announces: 5000 RTS
 * announcements to distinct destinations that never send a packet are all
 * counted incomplete (4096 open at once at most, the rest refused; those
 * time out after 1.25 s of silence), and a BAM 2 s later completes (10
 * bytes: 0x11..0x17, 0x18 0x19 0xAA). */
static void j1939_sessions_stay_bounded(void **state)
{
    (void)state;
    size_t cap = 5003 * 64, n = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    for (unsigned k = 0; k < 5000; k++) /* RTS from SA k % 256 to DA k / 256 */
        n += (size_t)snprintf(text + n, cap - n, "(1.%06u) can0 1CEC%02X%02X#100900020200DA00\n",
                              k / 10, k / 256, k % 256);
    n += (size_t)snprintf(text + n, cap - n, "(3.000000) can0 1CECFF00#200A0002FFCAFE00\n"
                                             "(3.010000) can0 1CEBFF00#0111121314151617\n"
                                             "(3.020000) can0 1CEBFF00#021819AAFFFFFFFF\n");
    rtcosim_can_log *log = NULL;
    rtcosim_error err;
    if (rtcosim_can_log_parse(text, n, "many.log", &log, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    rtcosim_j1939_tp tp;
    assert_int_equal(rtcosim_j1939_tp_reassemble(log, &tp, &err), RTCOSIM_OK);
    assert_int_equal(tp.frames, 5003);
    assert_int_equal(tp.incomplete, 5000);
    assert_int_equal(tp.count, 1);
    assert_int_equal(tp.messages[0].pgn, 0xFECA);
    assert_int_equal(tp.messages[0].id, 0x1CFECA00); /* priority 7 of its TP.CM, PDU2 */
    assert_int_equal(tp.messages[0].size, 10);
    assert_memory_equal(tp.messages[0].data, "\x11\x12\x13\x14\x15\x16\x17\x18\x19\xAA", 10);
    assert_int_equal(tp.messages[0].record, 5002);
    rtcosim_j1939_tp_free(&tp);
    rtcosim_can_log_free(log);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(candump_lines),
        cmocka_unit_test(asc_lines),
        cmocka_unit_test(malformed_lines_name_the_line),
        cmocka_unit_test(other_text_is_not_a_log),
        cmocka_unit_test(cr_line_ends_read_like_lf),
        cmocka_unit_test(relative_times_never_overflow),
        cmocka_unit_test(j1939_sessions_stay_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
