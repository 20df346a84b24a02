/* NMEA 2000 Fast Packet reassembly (src/can/nmea2000.c) on frames laid out by
 * hand as IEC 61162-3 puts them: byte 0 the sequence counter (bits 7-5) and
 * frame counter (bits 4-0), frame 0 the length and 6 bytes, the others 7. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtcosim/j1939.h"

typedef struct text {
    char s[1 << 16];
    size_t n;
} text;

/* Frame `counter` of sequence `seq` of a message of `size` bytes (byte i =
 * i + 0x10) from source address sa on PGN 0x1F805, priority 3, at ms. */
static void frame(text *t, double ms, unsigned sa, unsigned seq, unsigned counter, unsigned size)
{
    uint8_t b[8];
    memset(b, 0xFF, sizeof b);
    b[0] = (uint8_t)(seq << 5 | counter);
    if (counter == 0) {
        b[1] = (uint8_t)size;
        for (unsigned i = 0; i < 6 && i < size; i++)
            b[2 + i] = (uint8_t)(i + 0x10);
    } else {
        for (unsigned i = 0; i < 7; i++) {
            unsigned at = 6 + (counter - 1) * 7 + i;
            if (at < size)
                b[1 + i] = (uint8_t)(at + 0x10);
        }
    }
    t->n += (size_t)snprintf(t->s + t->n, sizeof t->s - t->n, "(%.6f) can0 0DF805%02X#", ms / 1000,
                             sa);
    for (unsigned i = 0; i < 8; i++)
        t->n += (size_t)snprintf(t->s + t->n, sizeof t->s - t->n, "%02X", b[i]);
    t->n += (size_t)snprintf(t->s + t->n, sizeof t->s - t->n, "\n");
}

static void assert_message(const rtcosim_j1939_message *m, unsigned sa, unsigned size)
{
    assert_int_equal(m->id, 0x0DF80500u | sa);
    assert_int_equal(m->pgn, 0x1F805);
    assert_int_equal(m->size, size);
    for (unsigned i = 0; i < size; i++)
        if (m->data[i] != (uint8_t)(i + 0x10))
            fail_msg("SA 0x%02X byte %u: 0x%02X", sa, i, m->data[i]);
}

static void messages_and_their_errors(void **state)
{
    (void)state;
    static text t;
    t.n = 0;
    frame(&t, 1, 0x23, 2, 0, 20); /* 20 bytes: frames 0, 1, 2 */
    frame(&t, 2, 0x24, 5, 0, 20); /* another sender, its frames 2 before 1 */
    frame(&t, 3, 0x23, 2, 1, 20);
    frame(&t, 4, 0x24, 5, 2, 20);
    frame(&t, 5, 0x23, 2, 2, 20); /* 0x23 complete: record 4 */
    frame(&t, 6, 0x24, 5, 1, 20); /* 0x24 complete: record 5 */
    frame(&t, 7, 0x25, 0, 0, 20); /* ended by a new frame 0 ... */
    frame(&t, 8, 0x25, 1, 0, 9);  /* ... whose 9 bytes come whole */
    frame(&t, 9, 0x25, 1, 1, 9);
    frame(&t, 10, 0x26, 1, 0, 20); /* ended by a frame of another sequence */
    frame(&t, 11, 0x26, 2, 1, 20);
    frame(&t, 12, 0x27, 1, 0, 20); /* silent 800 ms (> 750) */
    frame(&t, 812, 0x27, 1, 1, 20);
    frame(&t, 813, 0x28, 1, 0, 224); /* over 223 bytes */
    for (unsigned c = 0; c < 32; c++) /* 223 bytes in 32 frames */
        frame(&t, 820 + c, 0x29, 3, c, 223);
    frame(&t, 900, 0x2A, 1, 0, 20); /* open at the end */
    t.n += (size_t)snprintf(t.s + t.n, sizeof t.s - t.n,
                            "(0.901000) can0 0DF80623#4014101112131415\n"); /* PGN 0x1F806 */
    rtcosim_can_log *log = NULL;
    rtcosim_error err;
    if (rtcosim_can_log_parse(t.s, t.n, "n2k.log", &log, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    static const uint32_t pgns[] = {0x1F805, 0x1F80E};
    rtcosim_j1939_tp fp;
    assert_int_equal(rtcosim_nmea2000_reassemble(log, pgns, 2, &fp, &err), RTCOSIM_OK);
    assert_int_equal(fp.count, 4);
    assert_int_equal(fp.frames, 14 + 32 + 1);
    assert_int_equal(fp.incomplete, 5); /* 0x25's first, 0x26, 0x27, 0x28, 0x2A */
    assert_message(&fp.messages[0], 0x23, 20);
    assert_int_equal(fp.messages[0].record, 4);
    assert_message(&fp.messages[1], 0x24, 20);
    assert_int_equal(fp.messages[1].record, 5);
    assert_message(&fp.messages[2], 0x25, 9);
    assert_message(&fp.messages[3], 0x29, 223);
    rtcosim_j1939_tp_free(&fp);
    rtcosim_can_log_free(log);
}

static void fast_packet_ranges(void **state)
{
    (void)state;
    assert_true(rtcosim_nmea2000_fast_packet_range(0x1ED00));  /* 126208 */
    assert_true(rtcosim_nmea2000_fast_packet_range(0x1EEFF));
    assert_true(rtcosim_nmea2000_fast_packet_range(0x1EF00));  /* 126720: proprietary, addressed */
    assert_false(rtcosim_nmea2000_fast_packet_range(0x1EC00)); /* 126464's neighbour, ISO 11783 */
    assert_true(rtcosim_nmea2000_fast_packet_range(0x1F805));  /* 129029 */
    assert_true(rtcosim_nmea2000_fast_packet_range(0x1FFFF));
    assert_false(rtcosim_nmea2000_fast_packet_range(0xFECA));  /* J1939 DM1 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(messages_and_their_errors),
        cmocka_unit_test(fast_packet_ranges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
