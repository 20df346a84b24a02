/* DBC reader and signal codec against hand-computed bit layouts (Intel and
 * Motorola numbering as CANdb++ defines it, worked out bit by bit in the
 * comments), the multi-ECU example's frames as its C code packs them, and
 * every kind of malformed file (one-line errors with file:line). */
#include <math.h>
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "../examples/ecus/vehicle.h"
#include "rtcosim/dbc.h"
#include "rtcosim/log.h"

static const char SAMPLE[] =
    "VERSION \"\"\n"
    "\n"
    "NS_ :\n"
    "\tCM_\n"
    "\tVAL_\n"
    "\n"
    "BS_:\n"
    "BU_: A B\n"
    "\n"
    "BO_ 291 Mixed: 8 A\n"                                         /* line 10, id 0x123 */
    " SG_ Intel12 : 4|12@1+ (1,0) [0|4095] \"\" B\n"
    " SG_ Moto12 : 23|12@0+ (1,0) [0|4095] \"\" B\n"
    " SG_ Moto16 : 35|16@0+ (0.5,-100) [-100|32667.5] \"km/h\" B\n"
    " SG_ Signed8 : 56|8@1- (0.5,10) [-54|73.5] \"degC\" B\n"
    "\n"
    "BO_ 2147484160 Muxed: 4 B\n"                                  /* 0x80000200: extended 0x200 */
    " SG_ Selector M : 0|8@1+ (1,0) [0|255] \"\" A\n"
    " SG_ Page1 m1 : 8|16@1+ (1,0) [0|65535] \"\" A\n"
    " SG_ Page2 m2 : 8|8@1- (1,0) [-128|127] \"\" A\n"
    "\n"
    "BO_ 3221225472 VECTOR__INDEPENDENT_SIG_MSG: 0 Vector__XXX\n"
    " SG_ Orphan : 0|8@1+ (1,0) [0|0] \"\" Vector__XXX\n"
    "\n"
    "CM_ BO_ 291 \"a comment; with a semicolon\n"
    "over two lines\";\n"
    "BA_DEF_ BO_ \"GenMsgCycleTime\" INT 0 65535;\n"
    "BA_ \"GenMsgCycleTime\" BO_ 291 20;\n"
    "BA_ \"GenMsgSendType\" BO_ 291 0;\n"
    "VAL_ 2147484160 Selector 1 \"First\" 2 \"Second\" ;\n";

static rtcosim_dbc *sample(void)
{
    rtcosim_dbc *d = NULL;
    rtcosim_error err;
    rtcosim_status st = rtcosim_dbc_parse(SAMPLE, sizeof SAMPLE - 1, "sample.dbc", &d, &err);
    if (st != RTCOSIM_OK)
        fail_msg("%s", err.message);
    return d;
}

static void reads_messages_signals_attributes_and_values(void **state)
{
    (void)state;
    rtcosim_dbc *d = sample();
    assert_int_equal(rtcosim_dbc_message_count(d), 2); /* the pseudo-message is left out */
    const rtcosim_dbc_message *m = rtcosim_dbc_find_id(d, 0x123, false);
    assert_non_null(m);
    assert_string_equal(m->name, "Mixed");
    assert_string_equal(m->transmitter, "A");
    assert_int_equal(m->dlc, 8);
    assert_int_equal(m->line, 10);
    assert_int_equal(m->cycle_time, 20 * RTCOSIM_NS_PER_MS);
    assert_int_equal(m->signal_count, 4);
    const rtcosim_dbc_signal *s = rtcosim_dbc_find_signal(m, "Moto16");
    assert_int_equal(s->start_bit, 35);
    assert_int_equal(s->length, 16);
    assert_false(s->little_endian);
    assert_false(s->is_signed);
    assert_true(s->factor == 0.5 && s->offset == -100 && s->minimum == -100 && s->maximum == 32667.5);
    assert_string_equal(s->unit, "km/h");
    assert_true(rtcosim_dbc_find_signal(m, "Signed8")->is_signed);

    const rtcosim_dbc_message *x = rtcosim_dbc_find_message(d, "Muxed");
    assert_ptr_equal(x, rtcosim_dbc_find_id(d, 0x200, true));
    assert_null(rtcosim_dbc_find_id(d, 0x200, false));
    assert_int_equal(x->cycle_time, 0);
    const rtcosim_dbc_signal *sel = rtcosim_dbc_find_signal(x, "Selector");
    assert_int_equal(sel->mux, RTCOSIM_DBC_MULTIPLEXOR);
    assert_int_equal(rtcosim_dbc_find_signal(x, "Page2")->mux, RTCOSIM_DBC_MULTIPLEXED);
    assert_int_equal(rtcosim_dbc_find_signal(x, "Page2")->mux_value, 2);
    assert_int_equal(sel->value_count, 2);
    assert_string_equal(rtcosim_dbc_value_text_of(sel, 2), "Second");
    assert_null(rtcosim_dbc_value_text_of(sel, 3));
    rtcosim_dbc_free(d);
}

static void bit_layouts_match_hand_computed_bytes(void **state)
{
    (void)state;
    rtcosim_dbc *d = sample();
    const rtcosim_dbc_message *m = rtcosim_dbc_find_id(d, 0x123, false);
    uint8_t data[8] = {0};
    rtcosim_error err;
    /* Intel 4|12, raw 0xABC: bits 4..7 of byte 0 = 0xC (LSB nibble), byte 1 = 0xAB. */
    assert_int_equal(rtcosim_dbc_encode(rtcosim_dbc_find_signal(m, "Intel12"), 0xABC, data, 8, &err),
                     RTCOSIM_OK);
    /* Motorola 23|12, raw 0x5A6: MSB at bit 23 = bit 7 of byte 2; byte 2 = 0x5A, then
     * bits 31..28 = the high nibble of byte 3 = 0x6. */
    assert_int_equal(rtcosim_dbc_encode(rtcosim_dbc_find_signal(m, "Moto12"), 0x5A6, data, 8, &err),
                     RTCOSIM_OK);
    /* Motorola 35|16, physical 366.5 -> raw (366.5 + 100) / 0.5 = 933 = 0x03A5: bits 35..32
     * (low nibble of byte 4) = 0x0, byte 5 = 0x3A, bits 55..52 (high nibble of byte 6) = 0x5. */
    assert_int_equal(rtcosim_dbc_encode(rtcosim_dbc_find_signal(m, "Moto16"), 366.5, data, 8, &err),
                     RTCOSIM_OK);
    /* Signed 56|8, physical -1 -> raw (-1 - 10) / 0.5 = -22 = 0xEA in byte 7. */
    assert_int_equal(rtcosim_dbc_encode(rtcosim_dbc_find_signal(m, "Signed8"), -1, data, 8, &err),
                     RTCOSIM_OK);
    const uint8_t expected[8] = {0xC0, 0xAB, 0x5A, 0x60, 0x00, 0x3A, 0x50, 0xEA};
    assert_memory_equal(data, expected, 8);
    assert_true(rtcosim_dbc_decode(rtcosim_dbc_find_signal(m, "Intel12"), data, 8) == 0xABC);
    assert_true(rtcosim_dbc_decode(rtcosim_dbc_find_signal(m, "Moto12"), data, 8) == 0x5A6);
    assert_true(rtcosim_dbc_decode(rtcosim_dbc_find_signal(m, "Moto16"), data, 8) == 366.5);
    assert_true(rtcosim_dbc_decode(rtcosim_dbc_find_signal(m, "Signed8"), data, 8) == -1);
    /* Other bits stay: a second encode of one signal leaves its neighbours. */
    assert_int_equal(rtcosim_dbc_encode(rtcosim_dbc_find_signal(m, "Moto12"), 0, data, 8, &err),
                     RTCOSIM_OK);
    assert_int_equal(data[1], 0xAB);
    assert_int_equal(data[2], 0x00);
    assert_int_equal(data[3], 0x00);
    assert_int_equal(data[4], 0x00);
    /* Out of range: 13 bits needed for 4096; signed 8 bits end at 127 * 0.5 + 10 = 73.5. */
    assert_int_equal(rtcosim_dbc_encode(rtcosim_dbc_find_signal(m, "Intel12"), 4096, data, 8, &err),
                     RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "Intel12"));
    assert_int_equal(rtcosim_dbc_encode(rtcosim_dbc_find_signal(m, "Signed8"), 74, data, 8, &err),
                     RTCOSIM_EINVAL);
    assert_int_equal(rtcosim_dbc_encode(rtcosim_dbc_find_signal(m, "Signed8"), 73.5, data, 8, &err),
                     RTCOSIM_OK);
    /* Halves round away from zero: Intel12 (factor 1) 2.5 -> 3; Signed8 9.75 -> raw -0.5 -> -1. */
    const rtcosim_dbc_signal *i12 = rtcosim_dbc_find_signal(m, "Intel12");
    const rtcosim_dbc_signal *s8 = rtcosim_dbc_find_signal(m, "Signed8");
    assert_int_equal(rtcosim_dbc_encode(i12, 2.5, data, 8, &err), RTCOSIM_OK);
    assert_true(rtcosim_dbc_decode(i12, data, 8) == 3);
    assert_int_equal(rtcosim_dbc_encode(s8, 9.75, data, 8, &err), RTCOSIM_OK);
    assert_int_equal(data[7], 0xFF);
    /* Saturated: to 0..4095 and -128..127 (physical -54..73.5); NaN packs 0. */
    rtcosim_dbc_encode_saturated(i12, 5000, data, 8);
    assert_true(rtcosim_dbc_decode(i12, data, 8) == 4095);
    rtcosim_dbc_encode_saturated(i12, -3, data, 8);
    assert_true(rtcosim_dbc_decode(i12, data, 8) == 0);
    rtcosim_dbc_encode_saturated(s8, -1000, data, 8);
    assert_true(rtcosim_dbc_decode(s8, data, 8) == -54);
    rtcosim_dbc_encode_saturated(s8, 1000, data, 8);
    assert_true(rtcosim_dbc_decode(s8, data, 8) == 73.5);
    rtcosim_dbc_encode_saturated(s8, NAN, data, 8);
    assert_int_equal(data[7], 0);
    rtcosim_dbc_free(d);
}

static void multiplexed_signals_follow_the_multiplexor(void **state)
{
    (void)state;
    rtcosim_dbc *d = sample();
    const rtcosim_dbc_message *x = rtcosim_dbc_find_message(d, "Muxed");
    const rtcosim_dbc_signal *p1 = rtcosim_dbc_find_signal(x, "Page1");
    const rtcosim_dbc_signal *p2 = rtcosim_dbc_find_signal(x, "Page2");
    const uint8_t page1[4] = {1, 0x34, 0x12, 0};
    const uint8_t page2[4] = {2, 0xFF, 0, 0};
    assert_true(rtcosim_dbc_signal_present(x, p1, page1, 4));
    assert_false(rtcosim_dbc_signal_present(x, p2, page1, 4));
    assert_true(rtcosim_dbc_decode(p1, page1, 4) == 0x1234);
    assert_true(rtcosim_dbc_signal_present(x, p2, page2, 4));
    assert_false(rtcosim_dbc_signal_present(x, p1, page2, 4));
    assert_true(rtcosim_dbc_decode(p2, page2, 4) == -1);
    assert_true(rtcosim_dbc_signal_present(x, rtcosim_dbc_find_signal(x, "Selector"), page2, 4));
    rtcosim_dbc_free(d);
}

/* examples/ecus/vehicle.dbc describes the frames as vehicle.c packs them:
 * ids, sizes and periods of its tasks, and e.g. engine_send's bytes for
 * 3000 rpm, 120 N.m, throttle 0.4, counter 7. */
static void vehicle_dbc_matches_the_example_frames(void **state)
{
    (void)state;
    rtcosim_dbc *d = NULL;
    rtcosim_error err;
    if (rtcosim_dbc_load(RTCOSIM_VEHICLE_DBC, &d, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    const struct {
        uint32_t id;
        uint8_t dlc;
        int64_t period_ms;
    } frames[] = {{VEHICLE_ID_ENGINE_DATA, 8, 10}, {VEHICLE_ID_VEHICLE_SPEED, 6, 20},
                  {VEHICLE_ID_BRAKE, 4, 10}, {VEHICLE_ID_BODY, 2, 100},
                  {VEHICLE_ID_ENGINE_STATUS, 4, 100}};
    assert_int_equal(rtcosim_dbc_message_count(d), 5);
    for (size_t i = 0; i < 5; i++) {
        const rtcosim_dbc_message *m = rtcosim_dbc_find_id(d, frames[i].id, false);
        assert_non_null(m);
        assert_int_equal(m->dlc, frames[i].dlc);
        assert_int_equal(m->cycle_time, frames[i].period_ms * RTCOSIM_NS_PER_MS);
    }
    /* rpm / 0.25 = 12000 = 0x2EE0; (120 + 500) / 0.1 = 6200 = 0x1838; 0.4 * 250 = 100. */
    const uint8_t engine[8] = {0xE0, 0x2E, 0x38, 0x18, 100, 0, 0, 7};
    const rtcosim_dbc_message *m = rtcosim_dbc_find_id(d, VEHICLE_ID_ENGINE_DATA, false);
    assert_true(rtcosim_dbc_decode(rtcosim_dbc_find_signal(m, "EngineSpeed"), engine, 8) == 3000);
    assert_float_equal(rtcosim_dbc_decode(rtcosim_dbc_find_signal(m, "EngineTorque"), engine, 8),
                       120, 1e-9);
    assert_float_equal(rtcosim_dbc_decode(rtcosim_dbc_find_signal(m, "ThrottlePosition"), engine, 8),
                       0.4, 1e-12);
    assert_true(rtcosim_dbc_decode(rtcosim_dbc_find_signal(m, "EngineDataCounter"), engine, 8) == 7);
    /* body_send: lamp on, cabin 21.5 degC -> (21.5 + 40) * 2 = 123. */
    const uint8_t body[2] = {1, 123};
    m = rtcosim_dbc_find_id(d, VEHICLE_ID_BODY, false);
    assert_true(rtcosim_dbc_decode(rtcosim_dbc_find_signal(m, "CabinTemperature"), body, 2) == 21.5);
    assert_string_equal(rtcosim_dbc_value_text_of(rtcosim_dbc_find_signal(m, "BrakeLamp"), 1), "On");
    rtcosim_dbc_free(d);
}

static void expect_error(const char *text, const char *where, const char *what)
{
    rtcosim_dbc *d = (rtcosim_dbc *)1;
    rtcosim_error err;
    assert_int_equal(rtcosim_dbc_parse(text, strlen(text), "bad.dbc", &d, &err), RTCOSIM_EFORMAT);
    assert_null(d);
    if (strncmp(err.message, where, strlen(where)) != 0 || !strstr(err.message, what))
        fail_msg("'%s' lacks '%s' ... '%s'", err.message, where, what);
    assert_null(strchr(err.message, '\n'));
}

static void malformed_files_name_file_and_line(void **state)
{
    (void)state;
    const char *bo = "BO_ 100 M: 8 A\n";
    char text[512];
    snprintf(text, sizeof text, "VERSION \"\"\n%s SG_ S : 0|8@2+ (1,0) [0|1] \"\" B\n", bo);
    expect_error(text, "bad.dbc:3:", "@0 (Motorola) or @1 (Intel)");
    expect_error(" SG_ S : 0|8@1+ (1,0) [0|1] \"\" B\n", "bad.dbc:1:", "outside a message");
    snprintf(text, sizeof text, "%s SG_ S : 60|8@1+ (1,0) [0|1] \"\" B\n", bo);
    expect_error(text, "bad.dbc:2:", "do not fit the message's 8 bytes");
    /* Motorola from bit 7 of the last byte runs past the end after 8 bits. */
    snprintf(text, sizeof text, "%s SG_ S : 63|9@0+ (1,0) [0|1] \"\" B\n", bo);
    expect_error(text, "bad.dbc:2:", "do not fit");
    snprintf(text, sizeof text, "%s SG_ S : 0|8@1+ (1,0 [0|1] \"\" B\n", bo);
    expect_error(text, "bad.dbc:2:", "(FACTOR,OFFSET)");
    snprintf(text, sizeof text, "%s SG_ S : 0|0@1+ (1,0) [0|1] \"\" B\n", bo);
    expect_error(text, "bad.dbc:2:", "1..64");
    snprintf(text, sizeof text, "%s SG_ S : 0|8@1+ (1,0) [0|1] \"\" B\n SG_ S : 8|8@1+ (1,0) [0|1] \"\" B\n", bo);
    expect_error(text, "bad.dbc:3:", "second signal");
    snprintf(text, sizeof text, "%s SG_ S m1 : 0|8@1+ (1,0) [0|1] \"\" B\n", bo);
    expect_error(text, "bad.dbc:2:", "no multiplexor");
    snprintf(text, sizeof text, "%s%s", bo, bo);
    expect_error(text, "bad.dbc:2:", "defined twice");
    expect_error("BO_ 4096 Big: 8 A\n", "bad.dbc:1:", "out of range");
    expect_error("\nCM_ \"never closed;\n\n", "bad.dbc:2:", "closing ';'");
    expect_error("\n\nFOO_ bar;\n", "bad.dbc:3:", "unknown statement 'FOO_'");
    snprintf(text, sizeof text, "%sVAL_ 100 Nope 0 \"x\" ;\n", bo);
    expect_error(text, "bad.dbc:2:", "no signal 'Nope'");
    expect_error("BA_ \"GenMsgCycleTime\" BO_ 7 10;\n", "bad.dbc:1:", "no message with id 7");
    rtcosim_dbc *d = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_dbc_load("/nonexistent/x.dbc", &d, &err), RTCOSIM_ENOTFOUND);
    assert_non_null(strstr(err.message, "/nonexistent/x.dbc"));
}

/* Line ends of other systems (CR LF, CR alone) and a UTF-8 byte-order mark
 * read as LF files do: the same messages, the same line numbers. */
static void cr_line_ends_and_bom_read_like_lf(void **state)
{
    (void)state;
    const char *variants[] = {"\r", "\r\n"};
    for (size_t v = 0; v < 2; v++) {
        char text[sizeof SAMPLE * 2 + 3] = "\xEF\xBB\xBF";
        size_t n = 3;
        for (const char *p = SAMPLE; *p; p++)
            n += (size_t)snprintf(text + n, sizeof text - n, "%s", *p == '\n' ? variants[v] : (char[]){*p, 0});
        rtcosim_dbc *d = NULL;
        rtcosim_error err;
        if (rtcosim_dbc_parse(text, n, "cr.dbc", &d, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        assert_int_equal(rtcosim_dbc_message_count(d), 2);
        const rtcosim_dbc_message *m = rtcosim_dbc_find_id(d, 0x123, false);
        assert_int_equal(m->line, 10);
        assert_int_equal(m->signal_count, 4);
        assert_int_equal(m->cycle_time, 20000000);
        assert_string_equal(m->signals[3].unit, "degC");
        rtcosim_dbc_free(d);
    }
    /* An error after CR-only lines names the line it is on. */
    expect_error("BO_ 100 M: 8 A\r SG_ S : 0|8@2+ (1,0) [0|1] \"\" B\r", "bad.dbc:2:", "@0 (Motorola)");
}

/* Numbers that are not finite, cut multiplexer indicators and cut names
 * would decode nonsense or merge two definitions: refused with file:line. */
static void non_finite_numbers_and_overlong_names_are_refused(void **state)
{
    (void)state;
    const char *bo = "BO_ 100 M: 8 A\n";
    char text[2048];
    const char *numbers[] = {"(+nan,0) [0|1]", "(1,-inf) [0|1]", "(+inf,0) [0|1]", "(1,0) [-nan|1]",
                             "(1,0) [0|+infinity]"};
    for (size_t i = 0; i < sizeof numbers / sizeof *numbers; i++) {
        snprintf(text, sizeof text, "%s SG_ S : 0|8@1+ %s \"\" B\n", bo, numbers[i]);
        expect_error(text, "bad.dbc:2:", "SG_ S: expected");
    }
    /* m000...005 (33 digits) is m5 and must not be read as m0; an indicator past
     * 255 characters or a value past 64 bits is refused. */
    snprintf(text, sizeof text, "%s SG_ Sel M : 0|8@1+ (1,0) [0|1] \"\" B\n"
             " SG_ S m%032d5 : 8|8@1+ (1,0) [0|1] \"\" B\n", bo, 0);
    rtcosim_dbc *d = NULL;
    rtcosim_error err;
    if (rtcosim_dbc_parse(text, strlen(text), "zeros.dbc", &d, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_true(rtcosim_dbc_find_signal(rtcosim_dbc_message_at(d, 0), "S")->mux_value == 5);
    rtcosim_dbc_free(d);
    snprintf(text, sizeof text, "%s SG_ Sel M : 0|8@1+ (1,0) [0|1] \"\" B\n"
             " SG_ S m%0255d5 : 8|8@1+ (1,0) [0|1] \"\" B\n", bo, 0);
    expect_error(text, "bad.dbc:3:", "longer than 255 characters");
    snprintf(text, sizeof text, "%s SG_ Sel M : 0|8@1+ (1,0) [0|1] \"\" B\n"
             " SG_ S m18446744073709551616 : 8|8@1+ (1,0) [0|1] \"\" B\n", bo);
    expect_error(text, "bad.dbc:3:", "beyond 64 bits");
    /* Two messages whose 300-character names differ in the last one. */
    char name[301];
    memset(name, 'N', 299);
    name[300] = '\0';
    name[299] = 'a';
    int n = snprintf(text, sizeof text, "BO_ 100 %s: 8 A\n", name);
    name[299] = 'b';
    snprintf(text + n, sizeof text - (size_t)n, "BO_ 101 %s: 8 A\n", name);
    expect_error(text, "bad.dbc:1:", "longer than 255 characters");
    snprintf(text, sizeof text, "%s SG_ %s : 0|8@1+ (1,0) [0|1] \"\" B\n", bo, name);
    expect_error(text, "bad.dbc:2:", "longer than 255 characters");
    /* 255 characters is still a name. */
    name[255] = '\0';
    snprintf(text, sizeof text, "BO_ 100 %s: 8 A\n", name);
    assert_int_equal(rtcosim_dbc_parse(text, strlen(text), "ok.dbc", &d, &err), RTCOSIM_OK);
    assert_string_equal(rtcosim_dbc_message_at(d, 0)->name, name);
    rtcosim_dbc_free(d);
}

/* A database of `messages` messages, each with a signal, a cycle time and
 * a value table, parsed; the CPU seconds the parse took in *seconds. */
static rtcosim_dbc *parse_large_database(int messages, double *seconds)
{
    size_t cap = (size_t)messages * 200, n = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    for (int i = 0; i < messages; i++) {
        unsigned raw = 0x80000000u | (unsigned)i * 7u; /* extended ids */
        n += (size_t)snprintf(text + n, cap - n,
                              "BO_ %u Message%d: 8 Node\n SG_ Value%d : 0|16@1+ (0.5,0) [0|1] \"\" Node\n\n",
                              raw, i, i);
    }
    for (int i = 0; i < messages; i++)
        n += (size_t)snprintf(text + n, cap - n, "BA_ \"GenMsgCycleTime\" BO_ %u %d;\n",
                              0x80000000u | (unsigned)i * 7u, i % 1000 + 1);
    struct timespec t0, t1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    rtcosim_dbc *d = NULL;
    rtcosim_error err;
    rtcosim_status st = rtcosim_dbc_parse(text, n, "large.dbc", &d, &err);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    free(text);
    if (st != RTCOSIM_OK)
        fail_msg("%s", err.message);
    *seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return d;
}

/* Loading is linear: four times the messages take about four times the
 * processor time (a search of all earlier messages per message, as once,
 * took sixteen times: 44 s for 80 000). Processor time, the fastest of
 * three parses, so that a loaded machine or a sanitizer build changes
 * both sizes alike. Every message is then found by id and name. */
static void large_database_loads_in_linear_time(void **state)
{
    (void)state;
    enum { MESSAGES = 80000 };
    double small = INFINITY, large = INFINITY, s;
    rtcosim_dbc *d = NULL;
    for (int r = 0; r < 3; r++) {
        rtcosim_dbc_free(parse_large_database(MESSAGES / 4, &s));
        small = s < small ? s : small;
        rtcosim_dbc_free(d);
        d = parse_large_database(MESSAGES, &s);
        large = s < large ? s : large;
    }
    print_message("%d messages loaded in %.3f s of CPU, %d in %.3f s (%.1fx)\n", MESSAGES / 4,
                  small, MESSAGES, large, large / small);
    assert_true(large < 8 * small + 0.05);
    assert_int_equal(rtcosim_dbc_message_count(d), MESSAGES);
    for (int i = 0; i < MESSAGES; i += 997) {
        const rtcosim_dbc_message *m = rtcosim_dbc_find_id(d, (uint32_t)i * 7u, true);
        char name[32];
        snprintf(name, sizeof name, "Message%d", i);
        assert_non_null(m);
        assert_string_equal(m->name, name);
        assert_ptr_equal(rtcosim_dbc_find_message(d, name), m);
        assert_int_equal(m->cycle_time, (int64_t)(i % 1000 + 1) * 1000000);
    }
    assert_null(rtcosim_dbc_find_id(d, 3, true));
    assert_null(rtcosim_dbc_find_message(d, "Message80000"));
    rtcosim_dbc_free(d);
}

/* The decimals of a factor or offset, and decoding to the decimal value:
 * 96 * 0.1 is 9.600000000000001 in binary arithmetic, 9.6 as a decimal. */
static void decoded_values_are_the_decimals_of_factor_and_offset(void **state)
{
    (void)state;
    assert_int_equal(rtcosim_dbc_decimal_places(0.1), 1);
    assert_int_equal(rtcosim_dbc_decimal_places(0.05), 2);
    assert_int_equal(rtcosim_dbc_decimal_places(1.5), 1);
    assert_int_equal(rtcosim_dbc_decimal_places(2), 0);
    assert_int_equal(rtcosim_dbc_decimal_places(12345), 0);
    assert_int_equal(rtcosim_dbc_decimal_places(-500), 0);
    assert_int_equal(rtcosim_dbc_decimal_places(0.003125), 6);
    assert_int_equal(rtcosim_dbc_decimal_places(1e-20), -1);
    const char text[] = "BO_ 256 M: 2 N\n SG_ T : 0|8@1+ (0.1,0) [0|25.5] \"\" N\n"
                        " SG_ U : 8|8@1- (0.05,-0.3) [0|1] \"\" N\n";
    rtcosim_dbc *dbc = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_dbc_parse(text, sizeof text - 1, "t.dbc", &dbc, &err), RTCOSIM_OK);
    const rtcosim_dbc_message *m = rtcosim_dbc_find_id(dbc, 256, false);
    const rtcosim_dbc_signal *t = rtcosim_dbc_find_signal(m, "T"), *u = rtcosim_dbc_find_signal(m, "U");
    assert_int_equal(t->decimals, 1);
    assert_int_equal(u->decimals, 2);
    const uint8_t data[2] = {96, 0xF9}; /* T raw 96; U raw -7: -0.35 - 0.3 = -0.65 */
    assert_true(rtcosim_dbc_decode(t, data, 2) != 9.6); /* the binary product */
    assert_true(rtcosim_dbc_decode_decimal(t, data, 2) == 9.6);
    assert_true(rtcosim_dbc_decode_decimal(u, data, 2) == -0.65);
    rtcosim_dbc_free(dbc);
}

static char warned[2048];
static void keep_warning(void *ctx, rtcosim_log_level level, const char *category,
                         const char *message)
{
    (void)ctx;
    if (level == RTCOSIM_LOG_WARNING && strcmp(category, "dbc") == 0)
        snprintf(warned + strlen(warned), sizeof warned - strlen(warned), "%s\n", message);
}

/* BA_ "GenSigStartValue" SG_ ID SIGNAL RAW: the signal's start value (raw). */
static void signal_start_values_are_read(void **state)
{
    (void)state;
    const char *text = "BO_ 256 M: 2 N\n SG_ A : 0|8@1+ (0.5,0) [0|127] \"\" X\n"
                       " SG_ B : 8|8@1- (1,0) [-128|127] \"\" X\n"
                       "BA_DEF_ SG_ \"GenSigStartValue\" INT 0 255;\n"
                       "BA_ \"GenSigStartValue\" SG_ 256 A 7;\n";
    rtcosim_dbc *d = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_dbc_parse(text, strlen(text), "s.dbc", &d, &err), RTCOSIM_OK);
    const rtcosim_dbc_message *m = rtcosim_dbc_find_id(d, 256, false);
    assert_true(rtcosim_dbc_find_signal(m, "A")->has_start);
    assert_true(rtcosim_dbc_find_signal(m, "A")->start_raw == 7);
    assert_false(rtcosim_dbc_find_signal(m, "B")->has_start);
    rtcosim_dbc_free(d);
    const char *bad = "BO_ 256 M: 2 N\n SG_ A : 0|8@1+ (1,0) [0|1] \"\" X\n"
                      "BA_ \"GenSigStartValue\" SG_ 256 Z 7;\n";
    assert_int_equal(rtcosim_dbc_parse(bad, strlen(bad), "s.dbc", &d, &err), RTCOSIM_EFORMAT);
    assert_non_null(strstr(err.message, "s.dbc:3: no signal 'Z' in that message"));
}

/* CAN FD frames in a DBC: BA_ "VFrameFormat" BO_ ID N, N an index into
 * BA_DEF_'s enum (Vector's: 14 StandardCAN_FD, 15 ExtendedCAN_FD), BRS by
 * "CANFD_BRS" (default "1" here as in Vector's template; 0 for 0x102). */
static void can_fd_frame_formats_are_read(void **state)
{
    (void)state;
    const char *text =
        "BO_ 256 Classic: 8 N\nBO_ 257 Fd: 8 N\nBO_ 258 FdNoBrs: 12 N\n"
        "BO_ 2147484160 ExtFd: 64 N\n"
        "BA_DEF_ BO_  \"VFrameFormat\" ENUM  \"StandardCAN\",\"ExtendedCAN\",\"reserved\","
        "\"J1939PG\",\"reserved\",\"reserved\",\"reserved\",\"reserved\",\"reserved\","
        "\"reserved\",\"reserved\",\"reserved\",\"reserved\",\"reserved\","
        "\"StandardCAN_FD\",\"ExtendedCAN_FD\";\n"
        "BA_DEF_ BO_  \"CANFD_BRS\" ENUM  \"0\",\"1\";\n"
        "BA_DEF_DEF_  \"VFrameFormat\" \"StandardCAN\";\n"
        "BA_DEF_DEF_  \"CANFD_BRS\" \"1\";\n"
        "BA_ \"VFrameFormat\" BO_ 257 14;\nBA_ \"VFrameFormat\" BO_ 258 14;\n"
        "BA_ \"CANFD_BRS\" BO_ 258 0;\nBA_ \"VFrameFormat\" BO_ 2147484160 15;\n";
    rtcosim_dbc *d = NULL;
    rtcosim_error err;
    if (rtcosim_dbc_parse(text, strlen(text), "fd.dbc", &d, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    const rtcosim_dbc_message *classic = rtcosim_dbc_find_id(d, 256, false),
                              *fd = rtcosim_dbc_find_id(d, 257, false),
                              *no_brs = rtcosim_dbc_find_id(d, 258, false),
                              *ext = rtcosim_dbc_find_id(d, 512, true);
    assert_false(classic->fd);
    assert_true(fd->fd && fd->brs);
    assert_true(no_brs->fd && !no_brs->brs);
    assert_true(ext->fd && ext->brs && ext->dlc == 64);
    rtcosim_dbc_free(d);
}

/* SAE J1939 parameter groups (VFrameFormat J1939PG) match frames by PGN.
 * PGNs by the J1939-21 layout (3 priority bits, EDP, DP, PDU format, PDU
 * specific, source address; PS is a destination address when PF < 240):
 * EEC1 is PGN 61444 (0xF004), CCVS1 65265 (0xFEF1), the request 59904
 * (0xEA00, PDU1). EEC1 declared from SA 0xFE at priority 3 (0x0CF004FE)
 * is the frame from SA 0x00 at priority 3 and from SA 0x17 at priority 6;
 * not PGN 0xF005, not a standard id, and a message without J1939PG is only
 * its own id. Engine speed (SPN 190: bytes 4-5, 0.125 rpm/bit): raw 0x1A40
 * = 6720 -> 840 rpm. */
static void j1939_parameter_groups_match_by_pgn(void **state)
{
    (void)state;
    assert_int_equal(rtcosim_j1939_pgn(0x0CF00400), 0xF004);
    assert_int_equal(rtcosim_j1939_pgn(0x18FEF100), 0xFEF1);
    assert_int_equal(rtcosim_j1939_pgn(0x18EA00FE), 0xEA00);  /* PDU1: DA 00 aside */
    assert_int_equal(rtcosim_j1939_pgn(0x18EA17FE), 0xEA00);
    assert_int_equal(rtcosim_j1939_pgn(0x19FEF100), 0x1FEF1); /* data page 1 */
    const char *text =
        "BO_ 2364540158 EEC1: 8 Engine\n"
        " SG_ EngineSpeed : 24|16@1+ (0.125,0) [0|8031.875] \"rpm\" X\n"
        "BO_ 2566844926 CCVS1: 8 Body\n"
        "BO_ 2566845182 Plain: 8 Other\n"
        "BA_DEF_ BO_  \"VFrameFormat\" ENUM  \"StandardCAN\",\"ExtendedCAN\",\"reserved\","
        "\"J1939PG\";\n"
        "BA_DEF_DEF_  \"VFrameFormat\" \"J1939PG\";\n"
        "BA_ \"VFrameFormat\" BO_ 2566845182 1;\n";
    rtcosim_dbc *d = NULL;
    rtcosim_error err;
    if (rtcosim_dbc_parse(text, strlen(text), "j1939.dbc", &d, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    const rtcosim_dbc_message *eec1 = rtcosim_dbc_find_message(d, "EEC1"),
                              *ccvs1 = rtcosim_dbc_find_message(d, "CCVS1");
    assert_true(eec1->j1939 && ccvs1->j1939 && !rtcosim_dbc_find_message(d, "Plain")->j1939);
    assert_ptr_equal(rtcosim_dbc_find_frame(d, 0x0CF004FE, true), eec1);
    assert_ptr_equal(rtcosim_dbc_find_frame(d, 0x0CF00400, true), eec1);
    assert_ptr_equal(rtcosim_dbc_find_frame(d, 0x18F00417, true), eec1);
    assert_ptr_equal(rtcosim_dbc_find_frame(d, 0x18FEF121, true), ccvs1);
    assert_null(rtcosim_dbc_find_frame(d, 0x0CF00500, true));
    assert_null(rtcosim_dbc_find_frame(d, 0x400, false));
    assert_null(rtcosim_dbc_find_id(d, 0x0CF00400, true)); /* (the id alone: only its own) */
    assert_null(rtcosim_dbc_find_frame(d, 0x18FEF200, true)); /* Plain (0x18FEF2FE): no PG */
    assert_non_null(rtcosim_dbc_find_frame(d, 0x18FEF2FE, true));
    const uint8_t data[8] = {0, 0, 0, 0x40, 0x1A, 0, 0, 0};
    assert_true(rtcosim_dbc_decode(&eec1->signals[0], data, 8) == 840.0);
    rtcosim_dbc_free(d);
    /* a database of ProtocolType J1939 (Vector's template): its extended
     * messages without a frame format of their own are parameter groups, one
     * that says ExtendedCAN and the standard ones are not; --j1939's
     * rtcosim_dbc_set_j1939 makes every extended message one */
    text = "BO_ 2364540158 EEC1: 8 Engine\nBO_ 2566844926 CCVS1: 8 Body\nBO_ 256 Std: 8 N\n"
           "BA_DEF_ BO_  \"VFrameFormat\" ENUM  \"StandardCAN\",\"ExtendedCAN\";\n"
           "BA_DEF_  \"ProtocolType\" STRING ;\nBA_ \"ProtocolType\" \"J1939\";\n"
           "BA_ \"VFrameFormat\" BO_ 2566844926 1;\n";
    if (rtcosim_dbc_parse(text, strlen(text), "proto.dbc", &d, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_true(rtcosim_dbc_find_message(d, "EEC1")->j1939);
    assert_false(rtcosim_dbc_find_message(d, "CCVS1")->j1939);
    assert_false(rtcosim_dbc_find_message(d, "Std")->j1939);
    assert_null(rtcosim_dbc_find_frame(d, 0x18FEF121, true));
    rtcosim_dbc_set_j1939(d);
    assert_ptr_equal(rtcosim_dbc_find_frame(d, 0x18FEF121, true),
                     rtcosim_dbc_find_message(d, "CCVS1"));
    assert_false(rtcosim_dbc_find_message(d, "Std")->j1939);
    rtcosim_dbc_free(d);
}

/* Signals that share a bit in one frame: a warning naming both lines; bits
 * shared only by signals of different multiplexor values: none. Bits by
 * hand: A 0|8 Intel bits 0-7; B 4|8 Intel bits 4-11 (shares 4-7); C 23|8
 * Motorola bits 23-16; D m1 and E m2 both 24|8 Intel, never together. */
static void overlapping_signals_are_warned_of(void **state)
{
    (void)state;
    const char *text = "BO_ 1 M: 8 N\n"
                       " SG_ A : 0|8@1+ (1,0) [0|255] \"\" X\n"
                       " SG_ B : 4|8@1+ (1,0) [0|255] \"\" X\n"
                       " SG_ C : 23|8@0+ (1,0) [0|255] \"\" X\n"
                       " SG_ S M : 56|8@1+ (1,0) [0|255] \"\" X\n"
                       " SG_ D m1 : 24|8@1+ (1,0) [0|255] \"\" X\n"
                       " SG_ E m2 : 24|8@1+ (1,0) [0|255] \"\" X\n";
    warned[0] = '\0';
    rtcosim_log_set_handler(keep_warning, NULL);
    rtcosim_dbc *d = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_dbc_parse(text, strlen(text), "o.dbc", &d, &err), RTCOSIM_OK);
    rtcosim_log_set_handler(rtcosim_log_stderr_handler, NULL);
    assert_string_equal(warned, "o.dbc:3: signals A and B of message M share bits (line 2): a"
                                " value sent in one changes the other\n");
    rtcosim_dbc_free(d);
}

/* SIG_VALTYPE_: bits as IEEE 754 numbers, by hand. 1.5f is 0x3FC00000,
 * little-endian bytes 00 00 C0 3F at bit 0; with factor 0.5 and offset 1:
 * 1.75. -2.25 as a double is 0xC002000000000000, Motorola from bit 7: the
 * bytes C0 02 00 00 00 00 00 00. */
static void float_signals_hold_ieee_numbers(void **state)
{
    (void)state;
    static const char text[] = "BO_ 300 F: 8 A\n"
                               " SG_ P : 0|32@1- (0.5,1) [0|0] \"\" B\n"
                               " SG_ C : 32|16@1+ (0.1,0) [0|0] \"\" B\n"
                               "BO_ 301 D: 8 A\n"
                               " SG_ X : 7|64@0- (1,0) [0|0] \"\" B\n"
                               "BA_DEF_ SG_ \"GenSigStartValue\" FLOAT 0 0;\n"
                               "BA_ \"GenSigStartValue\" SG_ 300 P 2.5;\n"
                               "SIG_VALTYPE_ 300 P : 1;\n"
                               "SIG_VALTYPE_ 301 X : 2;\n";
    rtcosim_dbc *d = NULL;
    rtcosim_error err;
    if (rtcosim_dbc_parse(text, strlen(text), "f.dbc", &d, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    const rtcosim_dbc_message *f = rtcosim_dbc_find_id(d, 300, false),
                              *dm = rtcosim_dbc_find_id(d, 301, false);
    const rtcosim_dbc_signal *p = rtcosim_dbc_find_signal(f, "P"),
                             *c = rtcosim_dbc_find_signal(f, "C"),
                             *x = rtcosim_dbc_find_signal(dm, "X");
    assert_int_equal(p->value_type, RTCOSIM_DBC_FLOAT32);
    assert_int_equal(x->value_type, RTCOSIM_DBC_FLOAT64);
    assert_int_equal(c->value_type, RTCOSIM_DBC_INTEGER);
    assert_int_equal(p->decimals, -1); /* no rounding to the factor's 1 place */
    const uint8_t a[8] = {0x00, 0x00, 0xC0, 0x3F, 0x0C, 0x00};
    assert_true(rtcosim_dbc_decode(p, a, 8) == 1.75);
    assert_true(rtcosim_dbc_decode_decimal(p, a, 8) == 1.75);
    assert_true(rtcosim_dbc_decode_decimal(c, a, 8) == 1.2);
    const uint8_t b[8] = {0xC0, 0x02, 0, 0, 0, 0, 0, 0};
    assert_true(rtcosim_dbc_decode(x, b, 8) == -2.25);
    /* and back: 1.75 packs 1.5f again, -2.25 the double's bytes */
    uint8_t out[8] = {0};
    assert_int_equal(rtcosim_dbc_encode(p, 1.75, out, 8, &err), RTCOSIM_OK);
    assert_memory_equal(out, a, 4);
    memset(out, 0, sizeof out);
    assert_int_equal(rtcosim_dbc_encode(x, -2.25, out, 8, &err), RTCOSIM_OK);
    assert_memory_equal(out, b, 8);
    /* a float32 past its largest value: refused, or saturated to it */
    assert_int_equal(rtcosim_dbc_encode(p, 1e40, out, 8, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "does not fit its 32-bit float"));
    rtcosim_dbc_encode_saturated(p, 1e40, out, 8);
    assert_true(rtcosim_dbc_decode(p, out, 8) == (double)FLT_MAX * 0.5 + 1);
    rtcosim_dbc_encode_saturated(p, NAN, out, 8);
    assert_true(isnan(rtcosim_dbc_decode(p, out, 8)));
    rtcosim_dbc_free(d);
    expect_error("BO_ 1 M: 8 A\n SG_ S : 0|16@1+ (1,0) [0|0] \"\" B\nSIG_VALTYPE_ 1 S : 1;\n",
                 "bad.dbc:3", "SIG_VALTYPE_ S: a float needs a 32-bit signal, it has 16 bits");
    expect_error("BO_ 1 M: 8 A\n SG_ S : 0|32@1+ (1,0) [0|0] \"\" B\nSIG_VALTYPE_ 1 S : 2;\n",
                 "bad.dbc:3", "SIG_VALTYPE_ S: a double needs a 64-bit signal, it has 32 bits");
    expect_error("BO_ 1 M: 8 A\n SG_ S : 0|32@1+ (1,0) [0|0] \"\" B\nSIG_VALTYPE_ 1 S : 3;\n",
                 "bad.dbc:3", "value type 3");
    expect_error("BO_ 1 M: 8 A\n SG_ S M : 0|32@1+ (1,0) [0|0] \"\" B\nSIG_VALTYPE_ 1 S : 1;\n",
                 "bad.dbc:3", "a multiplexor cannot be a float");
    expect_error("BO_ 1 M: 8 A\n SG_ S : 0|32@1+ (1,0) [0|0] \"\" B\nSIG_VALTYPE_ 1 T : 1;\n",
                 "bad.dbc:3", "no signal 'T'");
}

/* Names cut to CANdb++'s 32 characters and their full forms in
 * SystemSignalLongSymbol / SystemMessageLongSymbol / SystemNodeLongSymbol. */
static void long_symbols_give_the_full_names(void **state)
{
    (void)state;
    static const char text[] =
        "BU_: EngineControlUnitWithAVeryLongN Gw\n"
        "BO_ 100 VehicleDynamicsStatusFromTheBra: 8 EngineControlUnitWithAVeryLongN\n"
        " SG_ LongitudinalAccelerationOfTheVe : 0|16@1- (0.01,0) [0|0] \"\" Gw\n"
        " SG_ Short : 16|8@1+ (1,0) [0|255] \"\" Gw\n"
        "BO_ 101 Other: 8 Gw\n"
        "BA_DEF_ SG_ \"SystemSignalLongSymbol\" STRING ;\n"
        "BA_ \"SystemNodeLongSymbol\" BU_ EngineControlUnitWithAVeryLongN "
        "\"EngineControlUnitWithAVeryLongName\";\n"
        "BA_ \"SystemMessageLongSymbol\" BO_ 100 \"VehicleDynamicsStatusFromTheBrakeSystem\";\n"
        "BA_ \"SystemSignalLongSymbol\" SG_ 100 LongitudinalAccelerationOfTheVe "
        "\"LongitudinalAccelerationOfTheVehicle\";\n";
    rtcosim_dbc *d = NULL;
    rtcosim_error err;
    if (rtcosim_dbc_parse(text, strlen(text), "long.dbc", &d, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    const rtcosim_dbc_message *m =
        rtcosim_dbc_find_message(d, "VehicleDynamicsStatusFromTheBrakeSystem");
    assert_non_null(m);
    assert_ptr_equal(m, rtcosim_dbc_find_id(d, 100, false));
    assert_null(rtcosim_dbc_find_message(d, "VehicleDynamicsStatusFromTheBra"));
    assert_ptr_equal(rtcosim_dbc_find_message(d, "Other"), rtcosim_dbc_find_id(d, 101, false));
    assert_string_equal(m->transmitter, "EngineControlUnitWithAVeryLongName");
    assert_non_null(rtcosim_dbc_find_signal(m, "LongitudinalAccelerationOfTheVehicle"));
    assert_non_null(rtcosim_dbc_find_signal(m, "Short"));
    rtcosim_dbc_free(d);
    expect_error("BO_ 1 M: 8 A\n SG_ S : 0|8@1+ (1,0) [0|0] \"\" B\n SG_ T : 8|8@1+ (1,0) [0|0] \"\" B\n"
                 "BA_ \"SystemSignalLongSymbol\" SG_ 1 S \"T\";\n",
                 "bad.dbc:4", "message M has a signal T already (line 3)");
    expect_error("BO_ 1 M: 8 A\nBO_ 2 N: 8 A\nBA_ \"SystemMessageLongSymbol\" BO_ 2 \"M\";\n",
                 "bad.dbc:2", "two messages named M (the other at line 1)");
    expect_error("BO_ 1 M: 8 A\nBA_ \"SystemMessageLongSymbol\" BO_ 1 \"\";\n", "bad.dbc:2",
                 "expected BO_ ID \"NAME\";");
}

/* Extended multiplexing, by hand: S0 (M, bits 0-3) selects S1 (m1M, bits
 * 4-7) at 1, Wide at 2-4 and Split at 6-7 or 9; S1 selects Deep at 5-6.
 * Byte 0 = S0 | S1 << 4. 0x51: S0 1, S1 5 -> S1 and Deep; 0x71: S1 7 ->
 * S1 only; 0x53: S0 3 -> Wide (S1's bits are not S1 then, Deep absent
 * although they read 5); 0x09: Split. */
static void extended_multiplexing_follows_every_multiplexor(void **state)
{
    (void)state;
    static const char text[] = "BO_ 100 Ext: 8 A\n"
                               " SG_ S0 M : 0|4@1+ (1,0) [0|15] \"\" B\n"
                               " SG_ S1 m1M : 4|4@1+ (1,0) [0|15] \"\" B\n"
                               " SG_ Wide m2 : 8|8@1+ (1,0) [0|255] \"\" B\n"
                               " SG_ Split m3 : 8|12@1+ (1,0) [0|0] \"\" B\n"
                               " SG_ Deep m5 : 16|8@1+ (1,0) [0|255] \"\" B\n"
                               "SG_MUL_VAL_ 100 S1 S0 1-1;\n"
                               "SG_MUL_VAL_ 100 Wide S0 2-4;\n"
                               "SG_MUL_VAL_ 100 Split S0 6-7, 9-9;\n"
                               "SG_MUL_VAL_ 100 Deep S1 5-6;\n";
    rtcosim_dbc *d = NULL;
    rtcosim_error err;
    if (rtcosim_dbc_parse(text, strlen(text), "ext.dbc", &d, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    const rtcosim_dbc_message *m = rtcosim_dbc_find_id(d, 100, false);
    const rtcosim_dbc_signal *s1 = rtcosim_dbc_find_signal(m, "S1"),
                             *wide = rtcosim_dbc_find_signal(m, "Wide"),
                             *split = rtcosim_dbc_find_signal(m, "Split"),
                             *deep = rtcosim_dbc_find_signal(m, "Deep");
    assert_true(s1->selects && s1->mux == RTCOSIM_DBC_MULTIPLEXED);
    assert_ptr_equal(deep->muxer, s1);
    assert_int_equal(split->mux_range_count, 2);
    struct {
        uint8_t byte0;
        bool s1, wide, split, deep;
    } cases[] = {{0x51, 1, 0, 0, 1}, {0x61, 1, 0, 0, 1}, {0x71, 1, 0, 0, 0}, {0x53, 0, 1, 0, 0},
                 {0x02, 0, 1, 0, 0}, {0x05, 0, 0, 0, 0}, {0x07, 0, 0, 1, 0}, {0x09, 0, 0, 1, 0},
                 {0x0A, 0, 0, 0, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const uint8_t data[8] = {cases[i].byte0, 0x12, 0x34};
        assert_int_equal(rtcosim_dbc_signal_present(m, s1, data, 8), cases[i].s1);
        assert_int_equal(rtcosim_dbc_signal_present(m, wide, data, 8), cases[i].wide);
        assert_int_equal(rtcosim_dbc_signal_present(m, split, data, 8), cases[i].split);
        assert_int_equal(rtcosim_dbc_signal_present(m, deep, data, 8), cases[i].deep);
    }
    rtcosim_dbc_free(d);
    const char *head = "BO_ 100 Ext: 8 A\n"
                       " SG_ S0 M : 0|4@1+ (1,0) [0|15] \"\" B\n"
                       " SG_ S1 m1M : 4|4@1+ (1,0) [0|15] \"\" B\n"
                       " SG_ S2 m2M : 8|4@1+ (1,0) [0|15] \"\" B\n"
                       " SG_ P : 12|4@1+ (1,0) [0|15] \"\" B\n";
    struct {
        const char *tail, *want;
    } bad[] = {
        {"SG_MUL_VAL_ 100 S1 P 1-1;\n", "SG_MUL_VAL_ S1: P is not a multiplexor (M or mNM) of it"},
        {"SG_MUL_VAL_ 100 P S0 1-1;\n", "SG_MUL_VAL_ P: not a multiplexed signal (mN or mNM)"},
        {"SG_MUL_VAL_ 100 S1 S0 3-1;\n", "SG_MUL_VAL_ S1: a range 3-1 runs backwards"},
        {"SG_MUL_VAL_ 100 S1 S0 1-1;\nSG_MUL_VAL_ 100 S1 S0 2-2;\n",
         "SG_MUL_VAL_ S1: its value ranges given twice"},
        {"SG_MUL_VAL_ 100 S1 S0 1-1 2-2;\n", "SG_MUL_VAL_ S1: expected LO-HI ranges"},
        {"SG_MUL_VAL_ 100 S1 S2 1-1;\nSG_MUL_VAL_ 100 S2 S1 2-2;\n",
         "the multiplexors of message Ext select each other in a loop"},
        {"SG_MUL_VAL_ 100 S1 Nope 1-1;\n", "no signal 'Nope'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char buf[1024];
        snprintf(buf, sizeof buf, "%s%s", head, bad[i].tail);
        expect_error(buf, "bad.dbc:", bad[i].want);
    }
    expect_error("BO_ 1 M: 8 A\n SG_ S m1X : 0|8@1+ (1,0) [0|0] \"\" B\n", "bad.dbc:2",
                 "unknown multiplexer indicator 'm1X' (M, mN or mNM)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_messages_signals_attributes_and_values),
        cmocka_unit_test(bit_layouts_match_hand_computed_bytes),
        cmocka_unit_test(multiplexed_signals_follow_the_multiplexor),
        cmocka_unit_test(vehicle_dbc_matches_the_example_frames),
        cmocka_unit_test(malformed_files_name_file_and_line),
        cmocka_unit_test(cr_line_ends_and_bom_read_like_lf),
        cmocka_unit_test(non_finite_numbers_and_overlong_names_are_refused),
        cmocka_unit_test(large_database_loads_in_linear_time),
        cmocka_unit_test(decoded_values_are_the_decimals_of_factor_and_offset),
        cmocka_unit_test(overlapping_signals_are_warned_of),
        cmocka_unit_test(signal_start_values_are_read),
        cmocka_unit_test(can_fd_frame_formats_are_read),
        cmocka_unit_test(j1939_parameter_groups_match_by_pgn),
        cmocka_unit_test(float_signals_hold_ieee_numbers),
        cmocka_unit_test(long_symbols_give_the_full_names),
        cmocka_unit_test(extended_multiplexing_follows_every_multiplexor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
