/* CAN FD and CAN XL frames in the logs: written as can-utils' compact
 * format (lib.h: "123##<flags><data>", "<VCID><PRIO>#<flags>:<SDT>:<AF>#
 * <data>") and as Vector ASC CANFD / CANXL message events, compared with
 * text written out here from those layouts, and read back; lines of the
 * ASC logging format spec 1.4.17 as can-utils quotes them (asc2log.c) read.
 * Frame bit counts: 0x0C8 BRS 12 bytes 0x55 31 + 128 and 0x18FEF100 BRS 20
 * bytes 0xAA 51 + 197 (tests/can/test_can_fd.c); 0x555 without BRS, ESI, no
 * data: SOF, 10101010101, RRS, IDE, FDF, res, BRS, ESI, DLC 0000 without
 * a run of five (22), CRC field 4 + 17 + 6 fixed stuff bits (27), CRC
 * delimiter, ACK, ACK delimiter, EOF, intermission (13): 62 (Linux
 * length.h: 22 + 28 + 9 + 3); CAN XL 0x555 with 3 bytes: 34 nominal, data
 * phase 3 + 76 + 24 + 32 + 4 + 13 fixed stuff bits (1 + 76 + 24 + 32 = 133
 * bits from DL1) = 152: 186. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/can_log.h"
#include "util/test_util.h"

static uint8_t d55[12], daa[20];
static const uint8_t d3[3] = {1, 2, 3};

static const rtcosim_can_log_entry *entries(size_t *count)
{
    memset(d55, 0x55, sizeof d55);
    memset(daa, 0xAA, sizeof daa);
    static rtcosim_can_log_entry e[5];
    e[0] = (rtcosim_can_log_entry){.start = 0, .end = 126000, .frame = {.id = 0x0C8},
                                   .format = RTCOSIM_CAN_FORMAT_FD, .flags = RTCOSIM_CAN_FD_BRS,
                                   .length = 12, .data = d55};
    e[1] = (rtcosim_can_log_entry){.start = 126000, .end = 250000, .frame = {.id = 0x555},
                                   .format = RTCOSIM_CAN_FORMAT_FD, .flags = RTCOSIM_CAN_FD_ESI};
    e[2] = (rtcosim_can_log_entry){.start = 250000, .end = 300000,
                                   .frame = {.id = 0x123, .dlc = 2, .data = {0x11, 0x22}}};
    e[3] = (rtcosim_can_log_entry){.start = 300000, .end = 383200, .frame = {.id = 0x555},
                                   .format = RTCOSIM_CAN_FORMAT_XL, .flags = RTCOSIM_CAN_XL_SEC,
                                   .sdt = 0x03, .vcid = 0x45, .af = 0x12345678, .length = 3,
                                   .data = d3};
    e[4] = (rtcosim_can_log_entry){.start = 400000, .end = 600500,
                                   .frame = {.id = 0x18FEF100, .extended = true},
                                   .format = RTCOSIM_CAN_FORMAT_FD, .flags = RTCOSIM_CAN_FD_BRS,
                                   .length = 20, .data = daa};
    *count = 5;
    return e;
}

static const char candump_text[] =
    "(0000000000.000126) can0 0C8##1555555555555555555555555\n"
    "(0000000000.000250) can0 555##2\n"
    "(0000000000.000300) can0 123#1122\n"
    "(0000000000.000383) can0 45555#81:03:12345678#010203\n"
    "(0000000000.000601) can0 18FEF100##1AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n";

static const char asc_text[] =
    "date Thu Jan 1 12:00:00.000 am 1970\n"
    "base hex  timestamps absolute\n"
    "internal events logged\n"
    "// version 18.2.0\n"
    "Begin Triggerblock Thu Jan 1 12:00:00.000 am 1970\n"
    "   0.000000 Start of measurement\n"
    "   0.000126 CANFD   1 Rx            C8 1 0 9 12 55 55 55 55 55 55 55 55 55 55 55 55"
    "   126000  159     3000 0 0 0 0 0\n"
    "   0.000250 CANFD   1 Rx           555 0 1 0  0   124000   62     5000 0 0 0 0 0\n"
    "   0.000300 1  123             Rx   d 2 11 22\n"
    "   0.000383 CANXL   1 Rx   XLFF    83200    186       555 03 1 2 3 0 0 45 12345678"
    " 01 02 03 0 01403000 00000000 0 0 0 0 0 0\n"
    "   0.000601 CANFD   1 Rx     18FEF100x 1 0 b 20 AA AA AA AA AA AA AA AA AA AA AA AA AA AA"
    " AA AA AA AA AA AA   200500  248     3000 0 0 0 0 0\n"
    "End TriggerBlock\n";

static void check_records(const rtcosim_can_log *log)
{
    assert_int_equal(rtcosim_can_log_count(log), 4);
    assert_int_equal(rtcosim_can_log_xl_count(log), 1);
    const rtcosim_can_log_record *r = rtcosim_can_log_records(log);
    assert_int_equal(r[0].time, 126000);
    assert_int_equal(r[0].id, 0x0C8);
    assert_int_equal(r[0].format, RTCOSIM_CAN_FORMAT_FD);
    assert_int_equal(r[0].flags, RTCOSIM_CAN_FD_BRS);
    assert_int_equal(r[0].size, 12);
    assert_memory_equal(r[0].data, d55, 12);
    assert_int_equal(r[1].format, RTCOSIM_CAN_FORMAT_FD);
    assert_int_equal(r[1].flags, RTCOSIM_CAN_FD_ESI);
    assert_int_equal(r[1].size, 0);
    assert_false(r[1].remote);
    assert_int_equal(r[2].format, RTCOSIM_CAN_FORMAT_CLASSIC);
    assert_int_equal(r[2].size, 2);
    assert_int_equal(r[3].id, 0x18FEF100);
    assert_true(r[3].extended);
    assert_int_equal(r[3].time, 601000);
    assert_int_equal(r[3].size, 20);
    assert_memory_equal(r[3].data, daa, 20);
}

static void fd_and_xl_frames_are_written_as_can_utils_and_vector_lay_them_out(void **state)
{
    (void)state;
    size_t count;
    const rtcosim_can_log_entry *e = entries(&count);
    char *dir = tu_make_dir();
    char path[512];
    rtcosim_error err;
    snprintf(path, sizeof path, "%s/bus.log", dir);
    assert_int_equal(rtcosim_can_log_write(e, count, "can0", RTCOSIM_CAN_LOG_CANDUMP, path, &err),
                     RTCOSIM_OK);
    assert_string_equal(tu_read_file(path, NULL), candump_text);
    rtcosim_can_log *log = NULL;
    assert_int_equal(rtcosim_can_log_read(path, &log, &err), RTCOSIM_OK);
    check_records(log);
    rtcosim_can_log_free(log);
    snprintf(path, sizeof path, "%s/bus.asc", dir);
    assert_int_equal(rtcosim_can_log_write(e, count, "can0", RTCOSIM_CAN_LOG_ASC, path, &err),
                     RTCOSIM_OK);
    assert_string_equal(tu_read_file(path, NULL), asc_text);
    assert_int_equal(rtcosim_can_log_read(path, &log, &err), RTCOSIM_OK);
    check_records(log);
    rtcosim_can_log_free(log);
    tu_drop_dir(dir);
}

static rtcosim_can_log *parse(const char *text, rtcosim_error *err)
{
    rtcosim_can_log *log = NULL;
    if (rtcosim_can_log_parse(text, strlen(text), "t.log", &log, err) != RTCOSIM_OK)
        return NULL;
    return log;
}

static void the_asc_spec_examples_are_read(void **state)
{
    (void)state;
    /* the CBFF and FBFF examples of the spec as asc2log.c quotes them, and
     * an XLFF line of the example's form with 2 data bytes */
    rtcosim_error err;
    rtcosim_can_log *log = parse(
        "base hex  timestamps absolute\n"
        "59.171614 CANXL   2 Rx   CBFF   243215   176      432  msgCanCCTest1 f 8 e1 89 e8 c2"
        " b9 6d 5a f1 174 00000000 00000000 000000050005000e 0000000000a00010 0000000a000a001d"
        " 0000000000a00002 000000100010000f 000000000a00001\n"
        "59.171614 CANXL   2 Rx   FBFF   243215   176      432  msgCanFDTest2 9 12 e1 89 e8 c2"
        " b9 6d 5a f1 11 22 33 44 a 12345 00001240 00000000 000000050005000e 0000000000a00010"
        " 0000000a000a001d 0000000000a00002 000000100010000f 000000000a00001\n"
        "59.171614 CANXL   2 Rx   XLFF   984438   4656      432  msgCanXlTest1 e0 0  1  2 1"
        " 1f96 00 00000000 e1 89 12cfbd62 02503000 00000000\n",
        &err);
    if (!log)
        fail_msg("%s", err.message);
    assert_int_equal(rtcosim_can_log_count(log), 2);
    assert_int_equal(rtcosim_can_log_xl_count(log), 1);
    assert_string_equal(rtcosim_can_log_bus_name(log, 0), "can1");
    const rtcosim_can_log_record *r = rtcosim_can_log_records(log);
    assert_int_equal(r[0].id, 0x432);
    assert_int_equal(r[0].format, RTCOSIM_CAN_FORMAT_CLASSIC);
    assert_int_equal(r[0].size, 8);
    assert_int_equal(r[0].data[7], 0xF1);
    assert_int_equal(r[1].format, RTCOSIM_CAN_FORMAT_FD);
    assert_int_equal(r[1].flags, 0); /* 0x1240: FDF, neither BRS 0x2000 nor ESI 0x4000 */
    assert_int_equal(r[1].size, 12);
    assert_int_equal(r[1].data[11], 0x44);
    rtcosim_can_log_free(log);
    /* can-utils' candump example of a CAN XL frame, without the '.'
     * separators a log file does not have */
    log = parse("(1.000000) can0 45123#81:00:12345678#11223344556677\n", &err);
    if (!log)
        fail_msg("%s", err.message);
    assert_int_equal(rtcosim_can_log_count(log), 0);
    assert_int_equal(rtcosim_can_log_xl_count(log), 1);
    rtcosim_can_log_free(log);
}

static void bad_xl_lines_name_file_and_line(void **state)
{
    (void)state;
    static const struct {
        const char *text, *words;
    } cases[] = {
        {"(1.0) can0 45923#81:00:12345678#11\n", "t.log:1: not a CAN XL VCID and priority id"},
        {"(1.0) can0 45123#81:00:1234567#11\n", "t.log:1: expected CAN XL FLAGS:SDT:AF#DATA"},
        {"(1.0) can0 45123#01:00:12345678#11\n", "t.log:1: CAN XL flags without XLF (0x80)"},
        {"(1.0) can0 45123#81:00:12345678#\n", "t.log:1: CAN XL data must be 1 to 2048 bytes"},
        {"(1.0) can0 45123#81:00:12345678#1G\n", "t.log:1: not hex data"},
        {"base hex\n1.0 CANXL 1 Rx XLFF 1 1 432 e0 0 1 3 0 0 0 0 11 22\n",
         "t.log:2: CANXL XLFF fields (SDT SEC DLC LEN SBC PCRC VCID AF) do not fit"},
        {"base hex\n1.0 CANXL 1 Rx XLFF 1 1 432 e0 0 2 3 0 0 0 0 11 22\n",
         "t.log:2: fewer data bytes than the length says"},
        {"base hex\n1.0 CANXL 1 Rx XXFF 1 1 432 e0 0 1 2 0 0 0 0 11 22\n",
         "t.log:2: CANXL frame format is none of"},
        {"base hex\n1.0 CANXL 1 Rx XLFF 1 1 800 e0 0 1 2 0 0 0 0 11 22\n",
         "t.log:2: not a CAN XL priority id"},
        {"base hex\n1.0 CANXL 1 Rx CBFF 1 1\n", "t.log:2: incomplete CANXL line"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        rtcosim_error err;
        rtcosim_can_log *log = parse(cases[i].text, &err);
        if (log || !strstr(err.message, cases[i].words))
            fail_msg("case %zu: %s", i, log ? "read" : err.message);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fd_and_xl_frames_are_written_as_can_utils_and_vector_lay_them_out),
        cmocka_unit_test(the_asc_spec_examples_are_read),
        cmocka_unit_test(bad_xl_lines_name_file_and_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
