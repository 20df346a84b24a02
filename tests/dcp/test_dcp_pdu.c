/* DCP PDUs, state table and time resolution against the specification:
 * byte images written out by hand from the PDU tables of DCP 1.0 section
 * 3.3 (little-endian), the transitions of 3.2.5, and exact arithmetic of
 * numerator/denominator seconds in nanoseconds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/dcp.h"

static void roundtrip(const rtcosim_dcp_pdu *p, const uint8_t *expect, size_t expect_size)
{
    uint8_t buf[128];
    size_t n = 0;
    rtcosim_error err;
    assert_int_equal(rtcosim_dcp_pdu_encode(p, buf, sizeof buf, &n, &err), RTCOSIM_OK);
    assert_int_equal(n, expect_size);
    assert_memory_equal(buf, expect, expect_size);
    rtcosim_dcp_pdu back;
    uint16_t code = 0xFFFF;
    assert_int_equal(rtcosim_dcp_pdu_decode(buf, n, &back, &code, &err), RTCOSIM_OK);
    assert_int_equal(code, 0);
    uint8_t again[128];
    size_t m = 0;
    assert_int_equal(rtcosim_dcp_pdu_encode(&back, again, sizeof again, &m, &err), RTCOSIM_OK);
    assert_int_equal(m, n);
    assert_memory_equal(again, buf, n);
    /* Every truncation is refused with INVALID_LENGTH, never read past. */
    for (size_t k = 1; k < n; k++) {
        if (p->type == RTCOSIM_DCP_DAT_INPUT_OUTPUT && k >= 5)
            continue; /* a shorter payload is still a well-formed data PDU */
        assert_int_not_equal(rtcosim_dcp_pdu_decode(buf, k, &back, &code, NULL), RTCOSIM_OK);
        assert_int_equal(code, RTCOSIM_DCP_ERR_INVALID_LENGTH);
    }
}

static void test_register_layout(void **state)
{
    (void)state;
    rtcosim_dcp_pdu p = {.type = RTCOSIM_DCP_STC_REGISTER, .seq_id = 0x0201, .receiver = 7,
                         .state_id = RTCOSIM_DCP_ALIVE, .op_mode = RTCOSIM_DCP_OP_NRT,
                         .major_version = 1, .minor_version = 0};
    for (int i = 0; i < 16; i++)
        p.uuid[i] = (uint8_t)(0xA0 + i);
    const uint8_t bytes[24] = {0x01, 0x01, 0x02, 7, 0x00, 0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5, 0xA6,
                               0xA7, 0xA8, 0xA9, 0xAA, 0xAB, 0xAC, 0xAD, 0xAE, 0xAF, 2, 1, 0};
    roundtrip(&p, bytes, sizeof bytes);
}

static void test_control_layouts(void **state)
{
    (void)state;
    rtcosim_dcp_pdu step = {.type = RTCOSIM_DCP_STC_DO_STEP, .seq_id = 5, .receiver = 1,
                            .state_id = RTCOSIM_DCP_SYNCHRONIZED, .steps = 0x01020304};
    const uint8_t step_bytes[] = {0x07, 5, 0, 1, 0x0A, 0x04, 0x03, 0x02, 0x01};
    roundtrip(&step, step_bytes, sizeof step_bytes);

    rtcosim_dcp_pdu res = {.type = RTCOSIM_DCP_CFG_TIME_RES, .seq_id = 0xFFFF, .receiver = 1,
                           .numerator = 1, .denominator = 1000};
    const uint8_t res_bytes[] = {0x20, 0xFF, 0xFF, 1, 1, 0, 0, 0, 0xE8, 0x03, 0, 0};
    roundtrip(&res, res_bytes, sizeof res_bytes);

    rtcosim_dcp_pdu in = {.type = RTCOSIM_DCP_CFG_INPUT, .seq_id = 3, .receiver = 1, .data_id = 0x0102,
                          .pos = 4, .value_reference = 0x1122334455667788u,
                          .source_data_type = RTCOSIM_DCP_FLOAT64};
    const uint8_t in_bytes[] = {0x22, 3, 0, 1, 0x02, 0x01, 4, 0, 0x88, 0x77, 0x66, 0x55,
                                0x44, 0x33, 0x22, 0x11, 9};
    roundtrip(&in, in_bytes, sizeof in_bytes);

    rtcosim_dcp_pdu target = {.type = RTCOSIM_DCP_CFG_TARGET_NETWORK_INFORMATION, .seq_id = 9,
                              .receiver = 1, .data_id = 1, .transport_protocol = RTCOSIM_DCP_UDP_IPV4,
                              .port = 0x1F90, .ip_address = 0x7F000001};
    const uint8_t target_bytes[] = {0x25, 9, 0, 1, 1, 0, 0, 0x90, 0x1F, 0x01, 0, 0, 0x7F};
    roundtrip(&target, target_bytes, sizeof target_bytes);

    rtcosim_dcp_pdu run = {.type = RTCOSIM_DCP_STC_RUN, .seq_id = 1, .receiver = 1,
                           .state_id = RTCOSIM_DCP_CONFIGURED, .start_time = 0x0102030405060708};
    const uint8_t run_bytes[] = {0x06, 1, 0, 1, 5, 8, 7, 6, 5, 4, 3, 2, 1};
    roundtrip(&run, run_bytes, sizeof run_bytes);
}

static void test_response_layouts(void **state)
{
    (void)state;
    rtcosim_dcp_pdu nack = {.type = RTCOSIM_DCP_RSP_NACK, .seq_id = 0x0304, .receiver = 2,
                            .exp_seq_id = 0x0305,
                            .error_code = RTCOSIM_DCP_ERR_PROTOCOL_ERROR_PDU_NOT_ALLOWED_IN_THIS_STATE};
    const uint8_t nack_bytes[] = {0xB1, 0x04, 0x03, 2, 0x05, 0x03, 0x03, 0x10};
    roundtrip(&nack, nack_bytes, sizeof nack_bytes);

    rtcosim_dcp_pdu ntf = {.type = RTCOSIM_DCP_NTF_STATE_CHANGED, .receiver = 2,
                           .state_id = RTCOSIM_DCP_COMPUTED};
    const uint8_t ntf_bytes[] = {0xE0, 2, 0x0D};
    roundtrip(&ntf, ntf_bytes, sizeof ntf_bytes);

    const uint8_t payload[] = {1, 2, 3};
    rtcosim_dcp_pdu dat = {.type = RTCOSIM_DCP_DAT_INPUT_OUTPUT, .seq_id = 0x0100, .data_id = 3,
                           .payload = payload, .payload_size = 3};
    const uint8_t dat_bytes[] = {0xF0, 0x00, 0x01, 3, 0, 1, 2, 3};
    roundtrip(&dat, dat_bytes, sizeof dat_bytes);
}

static void test_decode_rejects(void **state)
{
    (void)state;
    rtcosim_dcp_pdu p;
    uint16_t code = 0;
    const uint8_t unknown[] = {0x55, 0, 0, 0};
    assert_int_equal(rtcosim_dcp_pdu_decode(unknown, sizeof unknown, &p, &code, NULL), RTCOSIM_EFORMAT);
    assert_int_equal(code, RTCOSIM_DCP_ERR_NOT_SUPPORTED_PDU);
    const uint8_t too_long[] = {0x80, 0, 0, 1, 9};
    assert_int_equal(rtcosim_dcp_pdu_decode(too_long, sizeof too_long, &p, &code, NULL), RTCOSIM_EFORMAT);
    assert_int_equal(code, RTCOSIM_DCP_ERR_INVALID_LENGTH);
    assert_int_equal(rtcosim_dcp_pdu_decode(unknown, 0, &p, &code, NULL), RTCOSIM_EFORMAT);
    assert_string_equal(rtcosim_dcp_error_code_name(0x200F), "INVALID_TIME_RESOLUTION");
    assert_string_equal(rtcosim_dcp_state_name(0x12), "ERRORRESOLVED");
    assert_string_equal(rtcosim_dcp_pdu_type_name(0x2B), "CFG_scope");
}

static void test_state_table(void **state)
{
    (void)state;
    const uint8_t nrt = RTCOSIM_DCP_OP_NRT, srt = RTCOSIM_DCP_OP_SRT;
    /* STC_stop: from the 13 states of 3.2.5.13, from no other. */
    int stop_from = 0;
    for (uint8_t s = 0; s < RTCOSIM_DCP_STATE_COUNT_; s++)
        stop_from += rtcosim_dcp_request_allowed(s, RTCOSIM_DCP_STC_STOP, nrt);
    assert_int_equal(stop_from, 13);
    assert_false(rtcosim_dcp_request_allowed(RTCOSIM_DCP_STOPPED, RTCOSIM_DCP_STC_STOP, nrt));
    assert_false(rtcosim_dcp_request_allowed(RTCOSIM_DCP_CONFIGURATION, RTCOSIM_DCP_STC_STOP, nrt));
    /* Register only when ALIVE; deregister from CONFIGURATION, STOPPED, ERRORRESOLVED. */
    for (uint8_t s = 0; s < RTCOSIM_DCP_STATE_COUNT_; s++) {
        assert_int_equal(rtcosim_dcp_request_allowed(s, RTCOSIM_DCP_STC_REGISTER, nrt),
                         s == RTCOSIM_DCP_ALIVE);
        assert_int_equal(rtcosim_dcp_request_allowed(s, RTCOSIM_DCP_STC_DEREGISTER, nrt),
                         s == RTCOSIM_DCP_CONFIGURATION || s == RTCOSIM_DCP_STOPPED ||
                             s == RTCOSIM_DCP_ERRORRESOLVED);
        assert_int_equal(rtcosim_dcp_request_allowed(s, RTCOSIM_DCP_CFG_INPUT, nrt),
                         s == RTCOSIM_DCP_CONFIGURATION);
        assert_true(rtcosim_dcp_request_allowed(s, RTCOSIM_DCP_INF_STATE, nrt));
    }
    /* do_step: NRT only, from SYNCHRONIZING, SYNCHRONIZED, RUNNING (3.2.5.15). */
    assert_true(rtcosim_dcp_request_allowed(RTCOSIM_DCP_SYNCHRONIZED, RTCOSIM_DCP_STC_DO_STEP, nrt));
    assert_true(rtcosim_dcp_request_allowed(RTCOSIM_DCP_RUNNING, RTCOSIM_DCP_STC_DO_STEP, nrt));
    assert_false(rtcosim_dcp_request_allowed(RTCOSIM_DCP_RUNNING, RTCOSIM_DCP_STC_DO_STEP, srt));
    assert_false(rtcosim_dcp_request_allowed(RTCOSIM_DCP_COMPUTED, RTCOSIM_DCP_STC_DO_STEP, nrt));
    /* send_outputs from INITIALIZED and COMPUTED (3.2.5.11, 3.2.5.17). */
    assert_true(rtcosim_dcp_request_allowed(RTCOSIM_DCP_COMPUTED, RTCOSIM_DCP_STC_SEND_OUTPUTS, nrt));
    assert_true(rtcosim_dcp_request_allowed(RTCOSIM_DCP_INITIALIZED, RTCOSIM_DCP_STC_SEND_OUTPUTS, nrt));
    assert_false(rtcosim_dcp_request_allowed(RTCOSIM_DCP_RUNNING, RTCOSIM_DCP_STC_SEND_OUTPUTS, nrt));
    assert_false(rtcosim_dcp_request_allowed(0x13, RTCOSIM_DCP_INF_STATE, nrt));
}

static void test_resolution(void **state)
{
    (void)state;
    rtcosim_time_ns tick = 0;
    rtcosim_error err;
    assert_int_equal(rtcosim_dcp_resolution_to_ns(1, 1000, &tick, &err), RTCOSIM_OK);
    assert_int_equal(tick, 1000000);
    assert_int_equal(rtcosim_dcp_resolution_to_ns(3, 8, &tick, &err), RTCOSIM_OK);
    assert_int_equal(tick, 375000000);
    assert_int_equal(rtcosim_dcp_resolution_to_ns(4294967295u, 1, &tick, &err), RTCOSIM_OK);
    assert_int_equal(tick, INT64_C(4294967295000000000));
    assert_int_equal(rtcosim_dcp_resolution_to_ns(1, 3, &tick, &err), RTCOSIM_EUNSUPPORTED);
    assert_non_null(strstr(err.message, "1/3"));
    assert_int_equal(rtcosim_dcp_resolution_to_ns(1, 4000000000u, &tick, &err), RTCOSIM_EUNSUPPORTED);
    assert_int_equal(rtcosim_dcp_resolution_to_ns(0, 1, &tick, &err), RTCOSIM_EINVAL);
    rtcosim_time_ns t;
    assert_int_equal(rtcosim_dcp_steps_to_ns(1000, 1000000, &t, &err), RTCOSIM_OK);
    assert_int_equal(t, RTCOSIM_NS_PER_S);
    assert_int_equal(rtcosim_dcp_steps_to_ns(UINT64_C(1) << 40, INT64_C(1) << 30, &t, &err), RTCOSIM_EINVAL);
}

/* TCP framing: 4-byte little-endian PDU length that excludes itself. */
static void test_tcp_frame(void **state)
{
    (void)state;
    size_t n = 99;
    const uint8_t ack[] = {4, 0, 0, 0, 0xB0, 7, 0, 1, /* next frame: */ 5};
    assert_int_equal(rtcosim_dcp_tcp_frame(ack, 3, 65507, &n), 0);    /* partial prefix */
    assert_int_equal(rtcosim_dcp_tcp_frame(ack, 7, 65507, &n), 0);    /* partial PDU */
    assert_int_equal(n, 4);
    assert_int_equal(rtcosim_dcp_tcp_frame(ack, 8, 65507, &n), 1);    /* whole */
    assert_int_equal(n, 4);
    assert_int_equal(rtcosim_dcp_tcp_frame(ack, sizeof ack, 65507, &n), 1); /* more after it */
    const uint8_t big[] = {0xE4, 0xFF, 0, 0}; /* 65508: one past the largest PDU */
    assert_int_equal(rtcosim_dcp_tcp_frame(big, 4, 65507, &n), -1);
    const uint8_t order[] = {0x00, 0x01, 0, 0}; /* little-endian: 256, not 65536 */
    assert_int_equal(rtcosim_dcp_tcp_frame(order, 4, 65507, &n), 0);
    assert_int_equal(n, 256);
    const uint8_t zero[] = {0, 0, 0, 0};
    assert_int_equal(rtcosim_dcp_tcp_frame(zero, 4, 65507, &n), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_register_layout), cmocka_unit_test(test_control_layouts),
        cmocka_unit_test(test_response_layouts), cmocka_unit_test(test_decode_rejects),
        cmocka_unit_test(test_state_table), cmocka_unit_test(test_resolution),
        cmocka_unit_test(test_tcp_frame),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
