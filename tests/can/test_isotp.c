/* ISO-TP reassembly (src/can/isotp.c) on frames laid out by hand as ISO
 * 15765-2 puts them (PCI nibbles, FF_DL and its escape, SN modulo 16, the
 * CAN FD Single Frame escape), and UDS messages in words (src/can/uds.c)
 * against ISO 14229-1's service and response code tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtcosim/isotp.h"

typedef struct text {
    char *s;
    size_t n, cap;
} text;

static void add(text *t, const char *fmt, ...)
{
    va_list ap;
    if (!t->s) {
        t->cap = 4096;
        t->s = calloc(1, t->cap);
        assert_non_null(t->s);
    }
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(t->s + t->n, t->cap - t->n, fmt, ap);
        va_end(ap);
        assert_true(k >= 0);
        if ((size_t)k < t->cap - t->n) {
            t->n += (size_t)k;
            return;
        }
        t->cap = t->cap * 2 + (size_t)k + 64;
        t->s = realloc(t->s, t->cap);
        assert_non_null(t->s);
        t->s[t->n] = '\0';
    }
}

/* One candump -l frame: time (ms), id text, '#' or '##0' (CAN FD), bytes. */
static void frame(text *t, double ms, const char *id, bool fd, const uint8_t *b, size_t n)
{
    add(t, "(%.6f) can0 %s%s", ms / 1000.0, id, fd ? "##0" : "#");
    for (size_t k = 0; k < n; k++)
        add(t, "%02X", b[k]);
    add(t, "\n");
}

static rtcosim_can_log *parse(text *t)
{
    rtcosim_can_log *log = NULL;
    rtcosim_error err;
    if (rtcosim_can_log_parse(t->s, t->n, "isotp.log", &log, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    return log;
}

static const rtcosim_isotp_ids normal[] = {{0x7E0, 0x7EF, false, false},
                                           {0x18DA0000u, 0x18DAFFFFu, true, false}};

/* A message of `size` bytes (byte i = i * 7 + 1, mod 256) sent as First and
 * Consecutive Frames of CAN_DL `dl` (8 classic, else CAN FD), the last one
 * unpadded or padded with 0xCC; FF_DL by the escape when over 4095. */
static size_t send_long(text *t, double ms, const char *id, size_t size, unsigned dl, bool pad)
{
    uint8_t f[64];
    size_t at = 0, frames = 1;
    bool esc = size > 4095;
    f[0] = (uint8_t)(0x10 | (esc ? 0 : size >> 8));
    f[1] = (uint8_t)(esc ? 0 : size);
    size_t h = 2;
    if (esc) {
        f[2] = (uint8_t)(size >> 24), f[3] = (uint8_t)(size >> 16), f[4] = (uint8_t)(size >> 8),
        f[5] = (uint8_t)size;
        h = 6;
    }
    for (; h < dl; h++, at++)
        f[h] = (uint8_t)(at * 7 + 1);
    frame(t, ms, id, dl > 8, f, dl);
    for (uint8_t sn = 1; at < size; sn = (uint8_t)((sn + 1) & 15), frames++) {
        size_t n = 1;
        f[0] = (uint8_t)(0x20 | sn);
        for (; n < dl && at < size; n++, at++)
            f[n] = (uint8_t)(at * 7 + 1);
        while (pad && n < dl)
            f[n++] = 0xCC;
        frame(t, ms + (double)frames, id, dl > 8, f, n);
    }
    return frames;
}

static void assert_pattern(const uint8_t *d, size_t size)
{
    for (size_t i = 0; i < size; i++)
        if (d[i] != (uint8_t)(i * 7 + 1))
            fail_msg("byte %zu is 0x%02X, not 0x%02X", i, d[i], (uint8_t)(i * 7 + 1));
}

/* A Single Frame (SF_DL 3, padded with 0xCC) and a 200-byte message over 29
 * Consecutive Frames: SN runs 1..15, 0, 1..12 and the message is whole; the
 * request's frame for a DBC keeps its PCI byte (3); the long one's frame
 * starts with 200's low byte (0xC8); Flow Control frames are counted. */
static void single_and_multi_frame(void **state)
{
    (void)state;
    text t = {0};
    frame(&t, 1, "7E0", false, (const uint8_t *)"\x03\x22\xF1\x90\xCC\xCC\xCC\xCC", 8);
    frame(&t, 2, "7E0", false, (const uint8_t *)"\x30\x00\x00", 3);
    size_t frames = send_long(&t, 10, "7E8", 200, 8, true);
    assert_int_equal(frames, 1 + 28); /* 6 bytes in the FF, 7 in each CF: 6 + 28 * 7 >= 200 */
    rtcosim_can_log *log = parse(&t);
    rtcosim_isotp tp;
    rtcosim_error err;
    assert_int_equal(rtcosim_isotp_reassemble(log, normal, 2, &tp, &err), RTCOSIM_OK);
    assert_int_equal(tp.count, 2);
    assert_int_equal(tp.frames, 2 + 29);
    assert_int_equal(tp.flow_control, 1);
    assert_int_equal(tp.incomplete, 0);
    assert_int_equal(tp.invalid, 0);
    const rtcosim_isotp_message *m = &tp.messages[0];
    assert_int_equal(m->id, 0x7E0);
    assert_int_equal(m->size, 3);
    assert_memory_equal(m->data, "\x22\xF1\x90", 3);
    assert_int_equal(m->frame_size, 4);
    assert_memory_equal(m->frame, "\x03\x22\xF1\x90", 4);
    assert_int_equal(m->address, -1);
    m = &tp.messages[1];
    assert_int_equal(m->id, 0x7E8);
    assert_int_equal(m->size, 200);
    assert_pattern(m->data, 200);
    assert_int_equal(m->first_record, 2);
    assert_int_equal(m->record, 2 + 28);
    assert_int_equal(m->frame[0], 0xC8);
    assert_int_equal(m->frame_size, 201);
    rtcosim_isotp_free(&tp);
    rtcosim_can_log_free(log);
    free(t.s);
}

/* CAN FD: a Single Frame of 62 bytes by the escape (byte 0 0x00, SF_DL in
 * byte 1) on a 64-byte frame; 5000 bytes by the FF_DL escape (0x10 0x00 and 32
 * bits) in 64-byte frames, the last one short; a 29-bit normal fixed
 * addressing id. A 12-byte frame whose PCI nibble holds the length (no
 * escape) fits none. */
static void can_fd_escapes(void **state)
{
    (void)state;
    text t = {0};
    uint8_t f[64] = {0x00, 62};
    for (size_t i = 0; i < 62; i++)
        f[2 + i] = (uint8_t)(i * 7 + 1);
    frame(&t, 1, "18DAF110", true, f, 64);
    send_long(&t, 10, "18DAF110", 5000, 64, true);
    frame(&t, 200, "18DAF110", true, (const uint8_t *)"\x05\x01\x02\x03\x04\x05\xCC\xCC\xCC\xCC\xCC\xCC", 12);
    rtcosim_can_log *log = parse(&t);
    rtcosim_isotp tp;
    rtcosim_error err;
    assert_int_equal(rtcosim_isotp_reassemble(log, normal, 2, &tp, &err), RTCOSIM_OK);
    assert_int_equal(tp.count, 2);
    assert_true(tp.messages[0].extended);
    assert_int_equal(tp.messages[0].size, 62);
    assert_pattern(tp.messages[0].data, 62);
    assert_int_equal(tp.messages[1].size, 5000);
    assert_pattern(tp.messages[1].data, 5000);
    assert_int_equal(tp.messages[1].frame[0], 5000 & 0xFF);
    assert_int_equal(tp.invalid, 1);
    assert_int_equal(tp.incomplete, 0);
    rtcosim_isotp_free(&tp);
    rtcosim_can_log_free(log);
    free(t.s);
}

/* A receiver's errors: a Consecutive Frame out of sequence ends the transfer
 * (incomplete); a new First Frame ends the one before (incomplete) and is
 * taken; a Consecutive Frame after 1.5 s of silence (N_Cr 1 s) finds its
 * transfer timed out and fits none; one with no transfer fits none; an
 * unknown PCI type (4) fits none; a Single Frame whose SF_DL exceeds its
 * frame fits none; a First Frame of a length it holds itself fits none; one
 * announcing 2^31 bytes (escape) is over the limit (incomplete); the log's
 * end leaves an open transfer incomplete. Then a whole message still comes. */
static void receiver_errors(void **state)
{
    (void)state;
    text t = {0};
    frame(&t, 1, "7E8", false, (const uint8_t *)"\x10\x14\x62\xF1\x90\x41\x42\x43", 8);
    frame(&t, 2, "7E8", false, (const uint8_t *)"\x22\x44\x45\x46\x47\x48\x49\x4A", 8); /* SN 2 */
    frame(&t, 3, "7E8", false, (const uint8_t *)"\x10\x14\x62\xF1\x90\x41\x42\x43", 8);
    frame(&t, 4, "7E8", false, (const uint8_t *)"\x10\x09\x62\xF1\x90\x41\x42\x43", 8); /* new FF */
    frame(&t, 5, "7E8", false, (const uint8_t *)"\x21\x44\x45\x46\xCC\xCC\xCC\xCC", 8); /* ends it */
    frame(&t, 6, "7E9", false, (const uint8_t *)"\x10\x09\x62\xF1\x90\x41\x42\x43", 8);
    frame(&t, 1506, "7E9", false, (const uint8_t *)"\x21\x44\x45\x46\xCC\xCC\xCC\xCC", 8);
    frame(&t, 1507, "7EA", false, (const uint8_t *)"\x21\x44\x45\x46\xCC\xCC\xCC\xCC", 8);
    frame(&t, 1508, "7EA", false, (const uint8_t *)"\x41\x44", 2);
    frame(&t, 1509, "7EA", false, (const uint8_t *)"\x05\x44\x45", 3);
    frame(&t, 1510, "7EA", false, (const uint8_t *)"\x10\x05\x62\xF1\x90\x41\x42\x43", 8);
    frame(&t, 1511, "7EB", false, (const uint8_t *)"\x10\x00\x80\x00\x00\x00\x01\x02", 8);
    frame(&t, 1512, "7EC", false, (const uint8_t *)"\x10\x08\x01\x02\x03\x04\x05\x06", 8);
    rtcosim_can_log *log = parse(&t);
    rtcosim_isotp tp;
    rtcosim_error err;
    assert_int_equal(rtcosim_isotp_reassemble(log, normal, 2, &tp, &err), RTCOSIM_OK);
    assert_int_equal(tp.count, 1);
    assert_int_equal(tp.messages[0].record, 4);
    assert_int_equal(tp.messages[0].size, 9);
    assert_memory_equal(tp.messages[0].data, "\x62\xF1\x90\x41\x42\x43\x44\x45\x46", 9);
    /* SN 2 first; the FF at 3 ms by the one at 4 ms; 7E9 by silence; 2^31
     * bytes; 7EC open at the end */
    assert_int_equal(tp.incomplete, 5);
    /* 7E9's late CF, 7EA's CF, type 4, SF_DL 5 in 3 bytes, FF_DL 5 */
    assert_int_equal(tp.invalid, 5);
    rtcosim_isotp_free(&tp);
    rtcosim_can_log_free(log);
    free(t.s);
}

/* Extended addressing: two targets (0x12, 0x34) interleave their transfers
 * on one id; each is its own. Ids outside the ranges are not read. */
static void extended_addressing(void **state)
{
    (void)state;
    text t = {0};
    frame(&t, 1, "6F1", false, (const uint8_t *)"\x12\x10\x08\x22\x01\x02\x03\x04", 8);
    frame(&t, 2, "6F1", false, (const uint8_t *)"\x34\x10\x08\x22\xA1\xA2\xA3\xA4", 8);
    frame(&t, 3, "6F1", false, (const uint8_t *)"\x34\x21\xA5\xA6\xA7\xCC\xCC\xCC", 8);
    frame(&t, 4, "6F1", false, (const uint8_t *)"\x12\x21\x05\x06\x07\xCC\xCC\xCC", 8);
    frame(&t, 5, "7E0", false, (const uint8_t *)"\x02\x3E\x00", 3);
    static const rtcosim_isotp_ids ext[] = {{0x6F1, 0x6F1, false, true}};
    rtcosim_can_log *log = parse(&t);
    rtcosim_isotp tp;
    rtcosim_error err;
    assert_int_equal(rtcosim_isotp_reassemble(log, ext, 1, &tp, &err), RTCOSIM_OK);
    assert_int_equal(tp.count, 2);
    assert_int_equal(tp.frames, 4);
    assert_int_equal(tp.messages[0].address, 0x34);
    assert_memory_equal(tp.messages[0].data, "\x22\xA1\xA2\xA3\xA4\xA5\xA6\xA7", 8);
    assert_int_equal(tp.messages[1].address, 0x12);
    assert_memory_equal(tp.messages[1].data, "\x22\x01\x02\x03\x04\x05\x06\x07", 8);
    assert_int_equal(tp.messages[1].frame_size, 10);
    assert_memory_equal(tp.messages[1].frame, "\x12\x08\x22", 3);
    rtcosim_isotp_free(&tp);
    rtcosim_can_log_free(log);
    free(t.s);
}

/* Many ids opening transfers that never end: at most 256 are open at once
 * (the rest counted incomplete at once), and time stays linear. */
static void open_transfers_stay_bounded(void **state)
{
    (void)state;
    text t = {0};
    char id[16];
    for (unsigned k = 0; k < 3000; k++) {
        snprintf(id, sizeof id, "18DA%04X", k);
        frame(&t, 1 + k * 0.01, id, false, (const uint8_t *)"\x10\x20\x01\x02\x03\x04\x05\x06", 8);
    }
    rtcosim_can_log *log = parse(&t);
    rtcosim_isotp tp;
    rtcosim_error err;
    assert_int_equal(rtcosim_isotp_reassemble(log, normal, 2, &tp, &err), RTCOSIM_OK);
    assert_int_equal(tp.count, 0);
    assert_int_equal(tp.incomplete, 3000);
    rtcosim_isotp_free(&tp);
    rtcosim_can_log_free(log);
    free(t.s);
}

static void describe(const char *bytes, size_t n, const char *want)
{
    char buf[160];
    assert_string_equal(rtcosim_uds_describe((const uint8_t *)bytes, n, buf, sizeof buf), want);
}

static void uds_in_words(void **state)
{
    (void)state;
    describe("\x22\xF1\x90", 3, "ReadDataByIdentifier DID 0xF190");
    describe("\x62\xF1\x90\x57", 4, "ReadDataByIdentifier response DID 0xF190");
    describe("\x7F\x22\x31", 3, "negative response to ReadDataByIdentifier: requestOutOfRange");
    describe("\x7F\x27\x35", 3, "negative response to SecurityAccess: invalidKey");
    describe("\x7F\x31\x78", 3,
             "negative response to RoutineControl: requestCorrectlyReceived-ResponsePending");
    describe("\x7F\xAB\x99", 3, "negative response to service 0xAB: code 0x99");
    describe("\x10\x03", 2, "DiagnosticSessionControl extendedDiagnosticSession");
    describe("\x50\x02\x00\x32\x01\xF4", 6, "DiagnosticSessionControl response programmingSession");
    describe("\x71\x01\x02\x03", 4, "RoutineControl response start routine 0x0203");
    describe("\x3E\x80", 2, "TesterPresent sub-function 0x00");
    describe("\x41\x0C\x1A\xF8", 4, "OBD ShowCurrentData response PID 0x0C");
    describe("\x36\x05\xAA", 3, "TransferData block 5");
    describe("\xBA", 1, "service 0xBA");
    describe("\xC4\x01", 2, "SecuredDataTransmission response");
    describe("", 0, "");
    /* request, positive, negative, pending (0x78: the final one to come) */
    struct {
        const char *bytes;
        size_t n;
        rtcosim_uds_kind kind;
        uint8_t service;
    } kinds[] = {{"\x22\xF1\x90", 3, RTCOSIM_UDS_REQUEST, 0x22},
                 {"\x62\xF1\x90", 3, RTCOSIM_UDS_POSITIVE, 0x22},
                 {"\x7F\x22\x31", 3, RTCOSIM_UDS_NEGATIVE, 0x22},
                 {"\x7F\x31\x78", 3, RTCOSIM_UDS_PENDING, 0x31},
                 {"\x41\x0C", 2, RTCOSIM_UDS_POSITIVE, 0x01},
                 {"\x7F\x22", 2, RTCOSIM_UDS_UNKNOWN, 0},
                 {"\xBA", 1, RTCOSIM_UDS_UNKNOWN, 0},
                 {"", 0, RTCOSIM_UDS_UNKNOWN, 0}};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        uint8_t service = 0xEE;
        assert_int_equal(rtcosim_uds_classify((const uint8_t *)kinds[i].bytes, kinds[i].n,
                                              &service),
                         kinds[i].kind);
        assert_int_equal(service, kinds[i].service);
    }
    char small[8];
    assert_string_equal(rtcosim_uds_describe((const uint8_t *)"\x22\xF1\x90", 3, small,
                                             sizeof small), "ReadDat");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(single_and_multi_frame),  cmocka_unit_test(can_fd_escapes),
        cmocka_unit_test(receiver_errors),         cmocka_unit_test(extended_addressing),
        cmocka_unit_test(open_transfers_stay_bounded), cmocka_unit_test(uds_in_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
