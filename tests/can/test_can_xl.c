/* CAN XL frame geometry against bit counts worked out by hand from the
 * CAN XL frame format (ISO 11898-1:2024 / CiA 610-1, fields as
 * src/can/README.md lists them): nominal bits SOF through ADH (18) with the
 * arbitration phase's dynamic stuff bits, and DAH, AH1, AL1, AH2, ACK slot,
 * ACK delimiter, EOF 7, intermission 3 (16); data-phase bits DH1, DH2, DL1
 * (3), SDT 8, SEC 1, DLC 11, SBC 3, PCRC 13, VCID 8, AF 32 (76), the data,
 * FCRC 32, FCP 4, and a fixed stuff bit after every tenth bit of DL1 through
 * the last FCRC bit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/can.h"

static void the_shortest_frame(void **state)
{
    (void)state;
    /* priority 0x555 = 101 0101 0101: SOF 0, the id alternating, RRS 0,
     * IDE 0, FDF 1, XLF 1, resXL 0, ADH 1: never five equal bits, no stuff
     * bit; nominal 18 + 16 = 34. One data byte: DL1 .. FCRC is
     * 1 + 76 + 8 + 32 = 117 bits, a fixed stuff bit after bits 10, 20, ...
     * 110: 11; data phase 3 + 76 + 8 + 32 + 4 + 11 = 134. */
    uint32_t nominal = 0, data = 0;
    assert_int_equal(rtcosim_can_xl_frame_bits(0x555, 1, &nominal, &data, NULL), RTCOSIM_OK);
    assert_int_equal(nominal, 34);
    assert_int_equal(data, 134);
}

static void the_longest_frame(void **state)
{
    (void)state;
    /* 2048 bytes: DL1 .. FCRC is 1 + 76 + 16384 + 32 = 16493 bits, fixed
     * stuff bits after bits 10 ... 16490: 1649; data phase
     * 3 + 76 + 16384 + 32 + 4 + 1649 = 18148 bits */
    uint32_t nominal = 0, data = 0;
    assert_int_equal(rtcosim_can_xl_frame_bits(0x555, 2048, &nominal, &data, NULL), RTCOSIM_OK);
    assert_int_equal(nominal, 34);
    assert_int_equal(data, 18148);
    /* 64 bytes (the longest CAN FD payload): 1 + 76 + 512 + 32 = 621
     * bits, 62 fixed stuff bits; 3 + 76 + 512 + 32 + 4 + 62 = 689 */
    assert_int_equal(rtcosim_can_xl_frame_bits(0x555, 64, &nominal, &data, NULL), RTCOSIM_OK);
    assert_int_equal(nominal, 34);
    assert_int_equal(data, 689);
}

static void identifiers_whose_bits_are_stuffed(void **state)
{
    (void)state;
    uint32_t nominal = 0, data = 0;
    /* 0x000: SOF and the id's eleven zeros, RRS, IDE: fourteen dominant
     * bits, a stuff bit after the fifth and after the tenth (the stuff bit
     * starts the next run): 2 */
    assert_int_equal(rtcosim_can_xl_frame_bits(0x000, 1, &nominal, &data, NULL), RTCOSIM_OK);
    assert_int_equal(nominal, 36);
    assert_int_equal(data, 134); /* the data phase does not depend on the id */
    /* 0x0FF = 000 1111 1111: SOF and three zeros (4), eight ones: a stuff
     * bit after the fifth; then three ones, RRS 0, IDE 0: 1 */
    assert_int_equal(rtcosim_can_xl_frame_bits(0x0FF, 1, &nominal, &data, NULL), RTCOSIM_OK);
    assert_int_equal(nominal, 35);
    /* 0x558 = 101 0101 1000: the id's three trailing zeros, RRS and IDE are
     * five dominant bits: a stuff bit after IDE, before FDF: 1 */
    assert_int_equal(rtcosim_can_xl_frame_bits(0x558, 1, &nominal, &data, NULL), RTCOSIM_OK);
    assert_int_equal(nominal, 35);
    /* 0x7FF: SOF 0, eleven ones: stuff bits after the fifth and tenth: 2 */
    assert_int_equal(rtcosim_can_xl_frame_bits(0x7FF, 2048, &nominal, &data, NULL), RTCOSIM_OK);
    assert_int_equal(nominal, 36);
    assert_int_equal(data, 18148);
}

static void the_bit_count_of_the_asc_format_spec_example(void **state)
{
    (void)state;
    /* Vector's ASC logging format spec 1.4.17 (as can-utils' asc2log.c
     * quotes it) logs a CAN XL frame of priority 0x432 with DLC 0x1FE (511
     * bytes) as 4656 bits. By hand: 0x432 = 100 0011 0010, SOF 0 before it,
     * RRS and IDE 0 after it: no five equal bits, 34 nominal; 1 + 76 + 4088
     * + 32 = 4197 bits from DL1: 419 fixed stuff bits; data phase 3 + 76 +
     * 4088 + 32 + 4 + 419 = 4622; 34 + 4622 = 4656. */
    uint32_t nominal = 0, data = 0;
    assert_int_equal(rtcosim_can_xl_frame_bits(0x432, 511, &nominal, &data, NULL), RTCOSIM_OK);
    assert_int_equal(nominal, 34);
    assert_int_equal(data, 4622);
    assert_int_equal(nominal + data, 4656);
}

static void ids_and_lengths_out_of_range_are_refused(void **state)
{
    (void)state;
    uint32_t nominal = 7, data = 7;
    rtcosim_error err;
    assert_int_equal(rtcosim_can_xl_frame_bits(0x800, 1, &nominal, &data, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "can xl frame 0x800: the priority identifier is beyond"));
    assert_int_equal(rtcosim_can_xl_frame_bits(0x10, 0, &nominal, &data, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "0 data bytes is not a CAN XL length (1-2048)"));
    assert_int_equal(rtcosim_can_xl_frame_bits(0x10, 2049, &nominal, &data, &err),
                     RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "2049 data bytes"));
    assert_int_equal(nominal, 7); /* untouched on error */
    assert_int_equal(data, 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_shortest_frame),
        cmocka_unit_test(the_longest_frame),
        cmocka_unit_test(identifiers_whose_bits_are_stuffed),
        cmocka_unit_test(the_bit_count_of_the_asc_format_spec_example),
        cmocka_unit_test(ids_and_lengths_out_of_range_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
