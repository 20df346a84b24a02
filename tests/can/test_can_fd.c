/* CAN FD frame geometry against bit counts worked out by hand from the
 * ISO 11898-1:2015 frame formats (field by field in the comments): bits at
 * the nominal and at the data bit rate, dynamic and fixed stuff bits; and
 * the published lengths of the longest frames without stuff bits (Linux
 * include/linux/can/length.h, 2023, from ISO 11898-1:2015: 579 bits FD base
 * format, 598 extended, intermission included). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/can.h"

static void base_format_with_bit_rate_switch(void **state)
{
    (void)state;
    /* id 0x0C8, BRS, ESI 0, 12 bytes 0x55 (DLC 9 = 1001):
     * SOF 0, ID 00011001000, RRS 0, IDE 0, FDF 1, res 0, BRS 1 = 17 nominal
     * bits; the ID's last three zeros, RRS and IDE make five: one stuff bit
     * before FDF. ESI 0, DLC 1001, 96 alternating data bits: no run of five.
     * Data phase: 1 + 4 + 96 + CRC field (stuff count 4 + CRC-17 + 6 fixed
     * stuff bits = 27) = 128. Nominal: 17 + 1 + 13 (CRC delimiter, ACK,
     * ACK delimiter, EOF 7, intermission 3) = 31. */
    rtcosim_can_fd_frame f = {.id = 0x0C8, .brs = true, .length = 12};
    memset(f.data, 0x55, 12);
    uint32_t nominal, data;
    assert_int_equal(rtcosim_can_fd_frame_bits(&f, &nominal, &data, NULL), RTCOSIM_OK);
    assert_int_equal(nominal, 31);
    assert_int_equal(data, 128);
    /* without BRS the same bits all at the nominal rate */
    f.brs = false;
    assert_int_equal(rtcosim_can_fd_frame_bits(&f, &nominal, &data, NULL), RTCOSIM_OK);
    assert_int_equal(nominal, 159);
    assert_int_equal(data, 0);
}

static void extended_format_with_crc21(void **state)
{
    (void)state;
    /* id 0x18FEF100 (base 11000111111, extension 101111000100000000), BRS,
     * 20 bytes 0xAA (DLC 11 = 1011): SOF, base, SRR 1, IDE 1, extension,
     * RRS 0, FDF 1, res 0, BRS 1 = 36 nominal bits. Stuff bits: after the
     * base ID's first five of six ones, and after five of the extension's
     * eight trailing zeros: 2, both before BRS. Data phase: ESI 1 + DLC 4
     * + 160 + (4 + CRC-21 + 7 fixed stuff bits = 32) = 197; nominal
     * 36 + 2 + 13 = 51. */
    rtcosim_can_fd_frame f = {.id = 0x18FEF100, .extended = true, .brs = true, .length = 20};
    memset(f.data, 0xAA, 20);
    uint32_t nominal, data;
    assert_int_equal(rtcosim_can_fd_frame_bits(&f, &nominal, &data, NULL), RTCOSIM_OK);
    assert_int_equal(nominal, 51);
    assert_int_equal(data, 197);
}

static void the_longest_frames_without_stuff_bits_match_the_published_lengths(void **state)
{
    (void)state;
    /* alternating identifiers and data: no run of five anywhere */
    rtcosim_can_fd_frame f = {.id = 0x555, .length = 64};
    memset(f.data, 0x55, 64);
    uint32_t nominal, data;
    assert_int_equal(rtcosim_can_fd_frame_bits(&f, &nominal, &data, NULL), RTCOSIM_OK);
    assert_int_equal(nominal, 579);
    assert_int_equal(data, 0);
    f.id = 0x15555555;
    f.extended = true;
    assert_int_equal(rtcosim_can_fd_frame_bits(&f, &nominal, &data, NULL), RTCOSIM_OK);
    assert_int_equal(nominal, 598);
    f.brs = true; /* the same bits, split at BRS: 36 + 13 nominal */
    assert_int_equal(rtcosim_can_fd_frame_bits(&f, &nominal, &data, NULL), RTCOSIM_OK);
    assert_int_equal(nominal, 49);
    assert_int_equal(data, 598 - 49);
}

static void lengths_without_a_dlc_and_bad_ids_are_refused(void **state)
{
    (void)state;
    assert_int_equal(rtcosim_can_fd_dlc(8), 8);
    assert_int_equal(rtcosim_can_fd_dlc(12), 9);
    assert_int_equal(rtcosim_can_fd_dlc(48), 14);
    assert_int_equal(rtcosim_can_fd_dlc(64), 15);
    assert_int_equal(rtcosim_can_fd_dlc(9), -1);
    rtcosim_can_fd_frame f = {.id = 0x10, .length = 10};
    uint32_t nominal, data;
    rtcosim_error err;
    assert_int_equal(rtcosim_can_fd_frame_bits(&f, &nominal, &data, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "10 data bytes is not a CAN FD length"));
    f = (rtcosim_can_fd_frame){.id = 0x800};
    assert_int_equal(rtcosim_can_fd_frame_bits(&f, &nominal, &data, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "beyond the 11-bit range"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(base_format_with_bit_rate_switch),
        cmocka_unit_test(extended_format_with_crc21),
        cmocka_unit_test(the_longest_frames_without_stuff_bits_match_the_published_lengths),
        cmocka_unit_test(lengths_without_a_dlc_and_bad_ids_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
