/* LS-BUS CAN operations against byte dumps written by hand from the tables of
 * FMI-LS-BUS 1.0 section 5.5.1.2 (op code, total length, fields in order,
 * little-endian), read back field by field, concatenated, and every kind of
 * lying length field and unknown op code. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/lsbus.h"

/* CAN Transmit id 0x123, standard, no RTR, 3 bytes AA BB CC: 16 + 3 = 19 */
static const uint8_t can_tx[] = {0x10, 0, 0, 0, 0x13, 0, 0, 0, 0x23, 0x01, 0, 0, 0x00, 0x00,
                                 0x03, 0x00, 0xAA, 0xBB, 0xCC};
/* CAN FD Transmit id 0x18FEF100, extended, BRS, no ESI, 12 bytes 0..11: 17 + 12 = 29 */
static const uint8_t canfd_tx[] = {0x11, 0, 0, 0, 0x1D, 0, 0, 0, 0x00, 0xF1, 0xFE, 0x18,
                                   0x01, 0x01, 0x00, 0x0C, 0x00, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
                                   10, 11};
/* CAN XL Transmit id 0x7FF, standard, SEC, SDT 3, VCID 0x2A, AF 0xDEADBEEF,
 * 2 bytes 55 66: 22 + 2 = 24 */
static const uint8_t canxl_tx[] = {0x12, 0, 0, 0, 0x18, 0, 0, 0, 0xFF, 0x07, 0, 0, 0x00, 0x01,
                                   0x03, 0x2A, 0xEF, 0xBE, 0xAD, 0xDE, 0x02, 0x00, 0x55, 0x66};
static const uint8_t confirm[] = {0x20, 0, 0, 0, 0x0C, 0, 0, 0, 0x23, 0x01, 0, 0};
static const uint8_t arb_lost[] = {0x30, 0, 0, 0, 0x0C, 0, 0, 0, 0x56, 0x04, 0, 0};
/* Bus Error id 0x100, CRC_ERROR, PRIMARY_ERROR_FLAG, is sender: 15 */
static const uint8_t bus_error[] = {0x31, 0, 0, 0, 0x0F, 0, 0, 0, 0x00, 0x01, 0, 0,
                                    0x04, 0x01, 0x01};
/* Configuration: 9 + 4 for a baud rate (500000 = 0x0007A120, 2000000 =
 * 0x001E8480, 10000000 = 0x00989680), 9 + 1 for the behaviour */
static const uint8_t cfg_can[] = {0x40, 0, 0, 0, 0x0D, 0, 0, 0, 0x01, 0x20, 0xA1, 0x07, 0x00};
static const uint8_t cfg_fd[] = {0x40, 0, 0, 0, 0x0D, 0, 0, 0, 0x02, 0x80, 0x84, 0x1E, 0x00};
static const uint8_t cfg_xl[] = {0x40, 0, 0, 0, 0x0D, 0, 0, 0, 0x03, 0x80, 0x96, 0x98, 0x00};
static const uint8_t cfg_alb[] = {0x40, 0, 0, 0, 0x0A, 0, 0, 0, 0x04, 0x02};
static const uint8_t status_bus_off[] = {0x41, 0, 0, 0, 0x09, 0, 0, 0, 0x03};
static const uint8_t wakeup[] = {0x42, 0, 0, 0, 0x08, 0, 0, 0};
/* Format Error quoting two bytes 42 00: 10 + 2 */
static const uint8_t format_error[] = {0x01, 0, 0, 0, 0x0C, 0, 0, 0, 0x02, 0x00, 0x42, 0x00};

static const uint8_t data3[] = {0xAA, 0xBB, 0xCC};
static const uint8_t data12[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
static const uint8_t data2[] = {0x55, 0x66};
static const uint8_t quoted[] = {0x42, 0x00};

/* The ops as fields, in the order of the dumps above. */
static rtcosim_lsbus_op expected_op(int i)
{
    rtcosim_lsbus_op op = {0};
    switch (i) {
    case 0:
        op.code = RTCOSIM_LSBUS_OP_CAN_TRANSMIT;
        op.u.transmit = (rtcosim_lsbus_can_transmit){.id = 0x123, .data_length = 3, .data = data3};
        break;
    case 1:
        op.code = RTCOSIM_LSBUS_OP_CANFD_TRANSMIT;
        op.u.transmit = (rtcosim_lsbus_can_transmit){.id = 0x18FEF100, .ide = 1, .brs = 1,
                                                     .data_length = 12, .data = data12};
        break;
    case 2:
        op.code = RTCOSIM_LSBUS_OP_CANXL_TRANSMIT;
        op.u.transmit = (rtcosim_lsbus_can_transmit){.id = 0x7FF, .sec = 1, .sdt = 3, .vcid = 0x2A,
                                                     .af = 0xDEADBEEF, .data_length = 2,
                                                     .data = data2};
        break;
    case 3: op.code = RTCOSIM_LSBUS_OP_CAN_CONFIRM; op.u.id = 0x123; break;
    case 4: op.code = RTCOSIM_LSBUS_OP_CAN_ARBITRATION_LOST; op.u.id = 0x456; break;
    case 5:
        op.code = RTCOSIM_LSBUS_OP_CAN_BUS_ERROR;
        op.u.bus_error.id = 0x100;
        op.u.bus_error.error_code = RTCOSIM_LSBUS_CAN_CRC_ERROR;
        op.u.bus_error.error_flag = RTCOSIM_LSBUS_CAN_PRIMARY_ERROR_FLAG;
        op.u.bus_error.is_sender = 1;
        break;
    case 6:
    case 7:
    case 8:
        op.code = RTCOSIM_LSBUS_OP_CAN_CONFIGURATION;
        op.u.configuration.kind = (uint8_t)(i - 5);
        op.u.configuration.baudrate = i == 6 ? 500000 : i == 7 ? 2000000 : 10000000;
        break;
    case 9:
        op.code = RTCOSIM_LSBUS_OP_CAN_CONFIGURATION;
        op.u.configuration.kind = RTCOSIM_LSBUS_CAN_CONFIG_ARBITRATION_LOST_BEHAVIOR;
        op.u.configuration.arbitration_lost_behavior = RTCOSIM_LSBUS_CAN_DISCARD_AND_NOTIFY;
        break;
    case 10: op.code = RTCOSIM_LSBUS_OP_CAN_STATUS; op.u.status = RTCOSIM_LSBUS_CAN_BUS_OFF; break;
    case 11: op.code = RTCOSIM_LSBUS_OP_CAN_WAKEUP; break;
    default:
        op.code = RTCOSIM_LSBUS_OP_FORMAT_ERROR;
        op.u.format_error.data_length = 2;
        op.u.format_error.data = quoted;
        break;
    }
    return op;
}

static const struct { const uint8_t *bytes; size_t size; } dumps[] = {
    {can_tx, sizeof can_tx},       {canfd_tx, sizeof canfd_tx}, {canxl_tx, sizeof canxl_tx},
    {confirm, sizeof confirm},     {arb_lost, sizeof arb_lost}, {bus_error, sizeof bus_error},
    {cfg_can, sizeof cfg_can},     {cfg_fd, sizeof cfg_fd},     {cfg_xl, sizeof cfg_xl},
    {cfg_alb, sizeof cfg_alb},     {status_bus_off, sizeof status_bus_off},
    {wakeup, sizeof wakeup},       {format_error, sizeof format_error},
};
#define DUMP_COUNT (sizeof dumps / sizeof dumps[0])

static void assert_same_op(const rtcosim_lsbus_op *want, const rtcosim_lsbus_op *got)
{
    assert_int_equal(got->code, want->code);
    assert_true(got->known);
    switch (want->code) {
    case RTCOSIM_LSBUS_OP_CAN_TRANSMIT:
    case RTCOSIM_LSBUS_OP_CANFD_TRANSMIT:
    case RTCOSIM_LSBUS_OP_CANXL_TRANSMIT: {
        const rtcosim_lsbus_can_transmit *a = &want->u.transmit, *b = &got->u.transmit;
        assert_int_equal(b->id, a->id);
        assert_int_equal(b->ide, a->ide);
        assert_int_equal(b->rtr, a->rtr);
        assert_int_equal(b->brs, a->brs);
        assert_int_equal(b->esi, a->esi);
        assert_int_equal(b->sec, a->sec);
        assert_int_equal(b->sdt, a->sdt);
        assert_int_equal(b->vcid, a->vcid);
        assert_int_equal(b->af, a->af);
        assert_int_equal(b->data_length, a->data_length);
        assert_memory_equal(b->data, a->data, a->data_length);
        break;
    }
    case RTCOSIM_LSBUS_OP_CAN_CONFIRM:
    case RTCOSIM_LSBUS_OP_CAN_ARBITRATION_LOST: assert_int_equal(got->u.id, want->u.id); break;
    case RTCOSIM_LSBUS_OP_CAN_BUS_ERROR:
        assert_int_equal(got->u.bus_error.id, want->u.bus_error.id);
        assert_int_equal(got->u.bus_error.error_code, want->u.bus_error.error_code);
        assert_int_equal(got->u.bus_error.error_flag, want->u.bus_error.error_flag);
        assert_int_equal(got->u.bus_error.is_sender, want->u.bus_error.is_sender);
        break;
    case RTCOSIM_LSBUS_OP_CAN_CONFIGURATION:
        assert_int_equal(got->u.configuration.kind, want->u.configuration.kind);
        assert_int_equal(got->u.configuration.baudrate, want->u.configuration.baudrate);
        assert_int_equal(got->u.configuration.arbitration_lost_behavior,
                         want->u.configuration.arbitration_lost_behavior);
        break;
    case RTCOSIM_LSBUS_OP_CAN_STATUS: assert_int_equal(got->u.status, want->u.status); break;
    case RTCOSIM_LSBUS_OP_FORMAT_ERROR:
        assert_int_equal(got->u.format_error.data_length, want->u.format_error.data_length);
        assert_memory_equal(got->u.format_error.data, want->u.format_error.data,
                            want->u.format_error.data_length);
        break;
    default: break;
    }
}

static void writer_produces_the_standards_byte_layout(void **state)
{
    (void)state;
    for (size_t i = 0; i < DUMP_COUNT; i++) {
        uint8_t buf[64];
        size_t used = 0;
        rtcosim_error err;
        rtcosim_lsbus_op op = expected_op((int)i);
        assert_int_equal(rtcosim_lsbus_op_size(&op), dumps[i].size);
        assert_int_equal(rtcosim_lsbus_write(buf, sizeof buf, &used, &op, &err), RTCOSIM_OK);
        assert_int_equal(used, dumps[i].size);
        assert_memory_equal(buf, dumps[i].bytes, dumps[i].size);
    }
}

static void reader_decodes_every_field_of_the_hand_dumps(void **state)
{
    (void)state;
    for (size_t i = 0; i < DUMP_COUNT; i++) {
        rtcosim_lsbus_reader r;
        rtcosim_lsbus_op op;
        bool got;
        rtcosim_error err;
        rtcosim_lsbus_reader_init(&r, dumps[i].bytes, dumps[i].size);
        assert_int_equal(rtcosim_lsbus_read(&r, &op, &got, &err), RTCOSIM_OK);
        assert_true(got);
        assert_int_equal(op.length, dumps[i].size);
        assert_ptr_equal(op.bytes, dumps[i].bytes);
        rtcosim_lsbus_op want = expected_op((int)i);
        assert_same_op(&want, &op);
        assert_int_equal(rtcosim_lsbus_read(&r, &op, &got, &err), RTCOSIM_OK);
        assert_false(got);
    }
}

static void concatenated_ops_round_trip_in_order(void **state)
{
    (void)state;
    uint8_t buf[512];
    size_t used = 0;
    rtcosim_error err;
    for (size_t i = 0; i < DUMP_COUNT; i++) {
        rtcosim_lsbus_op op = expected_op((int)i);
        assert_int_equal(rtcosim_lsbus_write(buf, sizeof buf, &used, &op, &err), RTCOSIM_OK);
    }
    size_t total = 0;
    for (size_t i = 0; i < DUMP_COUNT; i++)
        total += dumps[i].size;
    assert_int_equal(used, total);
    rtcosim_lsbus_reader r;
    rtcosim_lsbus_reader_init(&r, buf, used);
    for (size_t i = 0; i < DUMP_COUNT; i++) {
        rtcosim_lsbus_op op;
        bool got;
        assert_int_equal(rtcosim_lsbus_read(&r, &op, &got, &err), RTCOSIM_OK);
        assert_true(got);
        rtcosim_lsbus_op want = expected_op((int)i);
        assert_same_op(&want, &op);
    }
    assert_int_equal(r.pos, used);
}

static void writer_refuses_what_does_not_fit_or_is_unknown(void **state)
{
    (void)state;
    uint8_t buf[20];
    size_t used = 5;
    rtcosim_error err;
    rtcosim_lsbus_op op = expected_op(0); /* 19 bytes, 15 left */
    assert_int_equal(rtcosim_lsbus_write(buf, sizeof buf, &used, &op, &err), RTCOSIM_EINVAL);
    assert_int_equal(used, 5);
    assert_non_null(strstr(err.message, "CAN Transmit"));
    op = (rtcosim_lsbus_op){.code = 0x0050};
    assert_int_equal(rtcosim_lsbus_write(buf, sizeof buf, &used, &op, &err), RTCOSIM_EINVAL);
    op = expected_op(9);
    op.u.configuration.kind = 0x05;
    assert_int_equal(rtcosim_lsbus_write(buf, sizeof buf, &used, &op, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "parameter kind 0x05"));
    op = expected_op(0);
    op.u.transmit.data = NULL;
    assert_int_equal(rtcosim_lsbus_write(buf, sizeof buf, &used, &op, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "data length 3 without data"));
    assert_int_equal(used, 5);
}

/* One malformed buffer and the words its error must hold. */
static void expect_error(const uint8_t *bytes, size_t size, const char *op_name,
                         const char *field)
{
    rtcosim_lsbus_reader r;
    rtcosim_lsbus_op op;
    bool got = true;
    rtcosim_error err;
    rtcosim_lsbus_reader_init(&r, bytes, size);
    rtcosim_status st = rtcosim_lsbus_read(&r, &op, &got, &err);
    if (st != RTCOSIM_EFORMAT)
        fail_msg("expected a format error for %s (%s), got status %d", op_name, field, st);
    assert_false(got);
    assert_int_equal(r.pos, 0);
    assert_null(strchr(err.message, '\n'));
    if (!strstr(err.message, op_name) || !strstr(err.message, field))
        fail_msg("message '%s' lacks '%s' or '%s'", err.message, op_name, field);
}

static void lying_length_fields_are_one_line_errors(void **state)
{
    (void)state;
    uint8_t b[64];
    /* header shorter than 8 bytes */
    expect_error(wakeup, 5, "operation at byte 0", "8-byte header");
    /* length below the header */
    memcpy(b, confirm, sizeof confirm);
    b[4] = 4;
    expect_error(b, sizeof confirm, "Confirm", "length field 4 is shorter than the 8-byte header");
    /* length past the buffer */
    memcpy(b, can_tx, sizeof can_tx);
    expect_error(b, sizeof can_tx - 1, "CAN Transmit", "runs past the buffer");
    b[4] = 0xFF;
    b[7] = 0x7F;
    expect_error(b, sizeof can_tx, "CAN Transmit", "runs past the buffer");
    /* data length disagrees with length */
    memcpy(b, can_tx, sizeof can_tx);
    b[14] = 4;
    expect_error(b, sizeof can_tx, "CAN Transmit", "data length field 4");
    memcpy(b, canfd_tx, sizeof canfd_tx);
    b[15] = 0x0B;
    expect_error(b, sizeof canfd_tx, "CAN FD Transmit", "data length field 11");
    memcpy(b, canxl_tx, sizeof canxl_tx);
    b[21] = 0x01; /* 258 bytes claimed */
    expect_error(b, sizeof canxl_tx, "CAN XL Transmit", "data length field 258");
    memcpy(b, format_error, sizeof format_error);
    b[8] = 3;
    expect_error(b, sizeof format_error, "Format Error", "data length field 3");
    /* length shorter than the fixed part of a variable op */
    static const uint8_t short_tx[] = {0x10, 0, 0, 0, 0x0C, 0, 0, 0, 0x23, 0x01, 0, 0};
    expect_error(short_tx, sizeof short_tx, "CAN Transmit", "shorter than its 16 fixed bytes");
    /* fixed-size ops with another length (the buffer holds the extra byte) */
    memset(b, 0, sizeof b);
    memcpy(b, confirm, sizeof confirm);
    b[4] = 13;
    expect_error(b, 13, "Confirm", "length field 13 is not the operation's 12 bytes");
    memcpy(b, arb_lost, sizeof arb_lost);
    b[4] = 11;
    expect_error(b, 12, "Arbitration Lost", "length field 11");
    memcpy(b, bus_error, sizeof bus_error);
    b[4] = 14;
    expect_error(b, 15, "Bus Error", "length field 14 is not the operation's 15 bytes");
    memcpy(b, status_bus_off, sizeof status_bus_off);
    b[4] = 10;
    expect_error(b, 10, "Status", "length field 10 is not the operation's 9 bytes");
    memcpy(b, wakeup, sizeof wakeup);
    b[4] = 9;
    expect_error(b, 9, "Wakeup", "length field 9 is not the operation's 8 bytes");
    /* configuration: kind and length must agree */
    memcpy(b, cfg_can, sizeof cfg_can);
    b[4] = 10;
    expect_error(b, sizeof cfg_can, "Configuration", "length field 10 is not the operation's 13");
    memcpy(b, cfg_alb, sizeof cfg_alb);
    b[4] = 13;
    memset(b + 10, 0, 3);
    expect_error(b, 13, "Configuration", "length field 13 is not the operation's 10");
    memcpy(b, cfg_alb, sizeof cfg_alb);
    b[8] = 0x05;
    expect_error(b, sizeof cfg_alb, "Configuration", "parameter type 0x05");
    static const uint8_t cfg_header_only[] = {0x40, 0, 0, 0, 0x08, 0, 0, 0};
    expect_error(cfg_header_only, sizeof cfg_header_only, "Configuration", "length field 8");
}

static void a_bad_op_after_good_ones_stops_the_reader_there(void **state)
{
    (void)state;
    uint8_t b[64];
    memcpy(b, confirm, sizeof confirm);
    memcpy(b + sizeof confirm, wakeup, 6); /* truncated */
    rtcosim_lsbus_reader r;
    rtcosim_lsbus_op op;
    bool got;
    rtcosim_error err;
    rtcosim_lsbus_reader_init(&r, b, sizeof confirm + 6);
    assert_int_equal(rtcosim_lsbus_read(&r, &op, &got, &err), RTCOSIM_OK);
    assert_true(got);
    assert_int_equal(rtcosim_lsbus_read(&r, &op, &got, &err), RTCOSIM_EFORMAT);
    assert_non_null(strstr(err.message, "at byte 12"));
    assert_int_equal(r.pos, 12);
    /* and stays there */
    assert_int_equal(rtcosim_lsbus_read(&r, &op, &got, &err), RTCOSIM_EFORMAT);
}

static void unknown_op_codes_are_skipped_by_their_length(void **state)
{
    (void)state;
    /* a LIN-like op 0x0050 of 11 bytes, then a Confirm */
    uint8_t b[64] = {0x50, 0, 0, 0, 0x0B, 0, 0, 0, 1, 2, 3};
    memcpy(b + 11, confirm, sizeof confirm);
    rtcosim_lsbus_reader r;
    rtcosim_lsbus_op op;
    bool got;
    rtcosim_error err;
    rtcosim_lsbus_reader_init(&r, b, 11 + sizeof confirm);
    assert_int_equal(rtcosim_lsbus_read(&r, &op, &got, &err), RTCOSIM_OK);
    assert_true(got);
    assert_false(op.known);
    assert_int_equal(op.code, 0x50);
    assert_int_equal(op.length, 11);
    assert_int_equal(r.unknown_ops, 1);
    assert_int_equal(rtcosim_lsbus_read(&r, &op, &got, &err), RTCOSIM_OK);
    assert_true(got);
    assert_true(op.known);
    assert_int_equal(op.code, RTCOSIM_LSBUS_OP_CAN_CONFIRM);
    assert_int_equal(op.u.id, 0x123);
    /* an unknown op whose length lies is still an error */
    b[4] = 0x40;
    rtcosim_lsbus_reader_init(&r, b, 11 + sizeof confirm);
    assert_int_equal(rtcosim_lsbus_read(&r, &op, &got, &err), RTCOSIM_EFORMAT);
    assert_non_null(strstr(err.message, "op code 0x0050"));
}

static void an_empty_buffer_has_no_ops(void **state)
{
    (void)state;
    rtcosim_lsbus_reader r;
    rtcosim_lsbus_op op;
    bool got = true;
    rtcosim_error err;
    rtcosim_lsbus_reader_init(&r, NULL, 0);
    assert_int_equal(rtcosim_lsbus_read(&r, &op, &got, &err), RTCOSIM_OK);
    assert_false(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(writer_produces_the_standards_byte_layout),
        cmocka_unit_test(reader_decodes_every_field_of_the_hand_dumps),
        cmocka_unit_test(concatenated_ops_round_trip_in_order),
        cmocka_unit_test(writer_refuses_what_does_not_fit_or_is_unknown),
        cmocka_unit_test(lying_length_fields_are_one_line_errors),
        cmocka_unit_test(a_bad_op_after_good_ones_stops_the_reader_there),
        cmocka_unit_test(unknown_op_codes_are_skipped_by_their_length),
        cmocka_unit_test(an_empty_buffer_has_no_ops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
