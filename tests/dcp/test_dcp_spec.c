/* DCP 1.0 against the specification's own tables, byte for byte: a corpus
 * of every PDU written out by hand from the layouts of section 3.3.7 (and
 * 4.2.1.2 tables 133-135 for IPv4 network information), little-endian per
 * 3.1.11, decoded and encoded; truncated PDUs refused naming the PDU and
 * the field cut; the slave_uuid byte order of 3.3.3.22 (RFC 4122 string
 * order, as DCPLib's convertToUUID); and table 63 "Allowed PDUs per State"
 * transcribed as the spec prints it, against the slave's state table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "rtcosim/dcp.h"

typedef struct corpus_entry {
    const char *name; /* the spec's PDU name */
    const char *hex;  /* the bytes, written from the spec's table */
    rtcosim_dcp_pdu pdu;
    const char *payload_hex; /* the variable part, if any */
} corpus_entry;

/* Field values chosen so that a swapped byte order or a shifted offset
 * shows: pdu_seq_id 0x1234.., receiver/sender 5, data_id 0x0102. */
static const corpus_entry corpus[] = {
    /* Table 65: type_id, pdu_seq_id, receiver, state_id, slave_uuid[16],
     * op_mode, major_version, minor_version. uuid
     * b5279485-720d-4542-9f29-bee4d9a75ef9 in string order; op_mode NRT = 2. */
    {"STC_register", "01 34 12 05 00 b5 27 94 85 72 0d 45 42 9f 29 be e4 d9 a7 5e f9 02 01 00",
     {.type = 0x01, .seq_id = 0x1234, .receiver = 5, .state_id = 0x00,
      .uuid = {0xb5, 0x27, 0x94, 0x85, 0x72, 0x0d, 0x45, 0x42, 0x9f, 0x29, 0xbe, 0xe4, 0xd9, 0xa7,
               0x5e, 0xf9},
      .op_mode = 2, .major_version = 1, .minor_version = 0}, NULL},
    /* Tables 66-70, 72-74: type_id, pdu_seq_id, receiver, state_id. */
    {"STC_deregister", "02 35 12 05 10", {.type = 0x02, .seq_id = 0x1235, .receiver = 5, .state_id = 0x10}, NULL},
    {"STC_prepare", "03 36 12 05 01", {.type = 0x03, .seq_id = 0x1236, .receiver = 5, .state_id = 0x01}, NULL},
    {"STC_configure", "04 37 12 05 03", {.type = 0x04, .seq_id = 0x1237, .receiver = 5, .state_id = 0x03}, NULL},
    {"STC_initialize", "05 38 12 05 05", {.type = 0x05, .seq_id = 0x1238, .receiver = 5, .state_id = 0x05}, NULL},
    /* Table 70: ..., state_id, time int64 (1700000000 s = 0x6553F100). */
    {"STC_run", "06 39 12 05 0a 00 f1 53 65 00 00 00 00",
     {.type = 0x06, .seq_id = 0x1239, .receiver = 5, .state_id = 0x0a, .start_time = 1700000000}, NULL},
    /* Table 71: ..., state_id, steps uint32 (100000 = 0x000186A0). */
    {"STC_do_step", "07 3a 12 05 0b a0 86 01 00",
     {.type = 0x07, .seq_id = 0x123a, .receiver = 5, .state_id = 0x0b, .steps = 100000}, NULL},
    {"STC_send_outputs", "08 3b 12 05 0d", {.type = 0x08, .seq_id = 0x123b, .receiver = 5, .state_id = 0x0d}, NULL},
    {"STC_stop", "09 3c 12 05 0b", {.type = 0x09, .seq_id = 0x123c, .receiver = 5, .state_id = 0x0b}, NULL},
    {"STC_reset", "0a 3d 12 05 12", {.type = 0x0a, .seq_id = 0x123d, .receiver = 5, .state_id = 0x12}, NULL},
    /* Tables 75-77: type_id, pdu_seq_id, receiver (INF_log: log_category, log_max_num). */
    {"INF_state", "80 3e 12 05", {.type = 0x80, .seq_id = 0x123e, .receiver = 5}, NULL},
    {"INF_error", "81 3f 12 05", {.type = 0x81, .seq_id = 0x123f, .receiver = 5}, NULL},
    {"INF_log", "82 40 12 05 02 0a",
     {.type = 0x82, .seq_id = 0x1240, .receiver = 5, .log_category = 2, .log_max_num = 10}, NULL},
    /* Table 78: numerator uint32, denominator uint32 (1/100 s). */
    {"CFG_time_res", "20 41 12 05 01 00 00 00 64 00 00 00",
     {.type = 0x20, .seq_id = 0x1241, .receiver = 5, .numerator = 1, .denominator = 100}, NULL},
    /* Table 79: steps uint32 then data_id uint16 (steps first!). */
    {"CFG_steps", "21 42 12 05 05 00 00 00 02 01",
     {.type = 0x21, .seq_id = 0x1242, .receiver = 5, .steps = 5, .data_id = 0x0102}, NULL},
    /* Table 80: data_id, pos, target_vr uint64, source_data_type (float64 = 9). */
    {"CFG_input", "22 43 12 05 02 01 03 00 02 00 00 00 01 00 00 00 09",
     {.type = 0x22, .seq_id = 0x1243, .receiver = 5, .data_id = 0x0102, .pos = 3,
      .value_reference = 0x0000000100000002u, .source_data_type = 9}, NULL},
    /* Table 81: data_id, pos, source_vr uint64. */
    {"CFG_output", "23 44 12 05 02 01 00 00 07 00 00 00 00 00 00 00",
     {.type = 0x23, .seq_id = 0x1244, .receiver = 5, .data_id = 0x0102, .pos = 0, .value_reference = 7}, NULL},
    /* Table 82: type_id, pdu_seq_id, receiver. */
    {"CFG_clear", "24 45 12 05", {.type = 0x24, .seq_id = 0x1245, .receiver = 5}, NULL},
    /* Table 83 + 133: data_id, transport_protocol (UDP_IPv4 0), port 8080,
     * ip_address 192.168.1.20 = 0xC0A80114 as a little-endian uint32. */
    {"CFG_target_network_information", "25 46 12 05 02 01 00 90 1f 14 01 a8 c0",
     {.type = 0x25, .seq_id = 0x1246, .receiver = 5, .data_id = 0x0102, .transport_protocol = 0,
      .port = 8080, .ip_address = 0xC0A80114u}, NULL},
    /* Table 84 + 135: the same fields (port 8080, 127.0.0.1). */
    {"CFG_source_network_information", "26 47 12 05 02 01 00 90 1f 01 00 00 7f",
     {.type = 0x26, .seq_id = 0x1247, .receiver = 5, .data_id = 0x0102, .transport_protocol = 0,
      .port = 8080, .ip_address = 0x7F000001u}, NULL},
    /* Table 85: parameter_vr uint64, source_data_type (int32 = 6), payload -2. */
    {"CFG_parameter", "27 48 12 05 09 00 00 00 00 00 00 00 06 fe ff ff ff",
     {.type = 0x27, .seq_id = 0x1248, .receiver = 5, .value_reference = 9, .source_data_type = 6},
     "fe ff ff ff"},
    /* Table 86: param_id, pos, parameter_vr, source_data_type (float32 = 8). */
    {"CFG_tunable_parameter", "28 49 12 05 03 00 01 00 0a 00 00 00 00 00 00 00 08",
     {.type = 0x28, .seq_id = 0x1249, .receiver = 5, .data_id = 3, .pos = 1, .value_reference = 10,
      .source_data_type = 8}, NULL},
    /* Table 87 + 134: param_id, TCP_IPv4 (4), port 9001, 10.0.0.2. */
    {"CFG_param_network_information", "29 4a 12 05 03 00 04 29 23 02 00 00 0a",
     {.type = 0x29, .seq_id = 0x124a, .receiver = 5, .data_id = 3, .transport_protocol = 4,
      .port = 9001, .ip_address = 0x0A000002u}, NULL},
    /* Table 88: log_category, log_level, log_mode. */
    {"CFG_logging", "2a 4b 12 05 01 03 02",
     {.type = 0x2a, .seq_id = 0x124b, .receiver = 5, .log_category = 1, .log_level = 3, .log_mode = 2}, NULL},
    /* Table 89: data_id, scope (Run/NonRealTime = 2). */
    {"CFG_scope", "2b 4c 12 05 02 01 02",
     {.type = 0x2b, .seq_id = 0x124c, .receiver = 5, .data_id = 0x0102, .scope = 2}, NULL},
    /* Tables 90-94: type_id, resp_seq_id, sender, then each response's fields. */
    {"RSP_ack", "b0 34 12 05", {.type = 0xb0, .seq_id = 0x1234, .receiver = 5}, NULL},
    {"RSP_nack", "b1 35 12 05 35 12 13 20",
     {.type = 0xb1, .seq_id = 0x1235, .receiver = 5, .exp_seq_id = 0x1235, .error_code = 0x2013}, NULL},
    {"RSP_state_ack", "b2 3e 12 05 01", {.type = 0xb2, .seq_id = 0x123e, .receiver = 5, .state_id = 1}, NULL},
    {"RSP_error_ack", "b3 3f 12 05 02 10",
     {.type = 0xb3, .seq_id = 0x123f, .receiver = 5, .error_code = 0x1002}, NULL},
    /* Table 94: log entries follow (time int64 1, template 1). */
    {"RSP_log_ack", "b4 40 12 05 01 00 00 00 00 00 00 00 01",
     {.type = 0xb4, .seq_id = 0x1240, .receiver = 5}, "01 00 00 00 00 00 00 00 01"},
    /* Table 95: type_id, sender, state_id (COMPUTING 0x0C). */
    {"NTF_state_changed", "e0 05 0c", {.type = 0xe0, .receiver = 5, .state_id = 0x0c}, NULL},
    /* Table 96: sender, time int64, log_template_id, log_arg_val. */
    {"NTF_log", "e1 05 00 f1 53 65 00 00 00 00 02 2a",
     {.type = 0xe1, .receiver = 5, .start_time = 1700000000, .log_template_id = 2}, "2a"},
    /* Tables 97-98: type_id, pdu_seq_id, data_id/param_id, payload
     * (float64 1.5 = 0x3FF8000000000000; float32 0.25 = 0x3E800000). */
    {"DAT_input_output", "f0 07 00 02 01 00 00 00 00 00 00 f8 3f",
     {.type = 0xf0, .seq_id = 7, .data_id = 0x0102}, "00 00 00 00 00 00 f8 3f"},
    {"DAT_parameter", "f1 08 00 03 00 00 00 80 3e", {.type = 0xf1, .seq_id = 8, .data_id = 3}, "00 00 80 3e"},
};

static size_t from_hex(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = 0;
    unsigned byte;
    int used;
    while (hex && sscanf(hex, " %2x%n", &byte, &used) == 1) {
        assert_true(n < cap);
        out[n++] = (uint8_t)byte;
        hex += used;
    }
    return n;
}

static void assert_same_fields(const rtcosim_dcp_pdu *a, const rtcosim_dcp_pdu *b, const char *name)
{
#define SAME(f) \
    if (a->f != b->f) \
        fail_msg("%s: field " #f ": %llu, spec %llu", name, (unsigned long long)a->f, (unsigned long long)b->f)
    SAME(type); SAME(seq_id); SAME(receiver); SAME(state_id); SAME(op_mode);
    SAME(major_version); SAME(minor_version); SAME(start_time); SAME(steps); SAME(numerator);
    SAME(denominator); SAME(data_id); SAME(pos); SAME(value_reference); SAME(source_data_type);
    SAME(transport_protocol); SAME(port); SAME(ip_address); SAME(log_category); SAME(log_level);
    SAME(log_mode); SAME(log_max_num); SAME(log_template_id); SAME(scope); SAME(exp_seq_id);
    SAME(error_code);
#undef SAME
    if (memcmp(a->uuid, b->uuid, 16) != 0)
        fail_msg("%s: slave_uuid differs", name);
}

/* Every PDU of the corpus decodes to the table's field values and encodes
 * back to the same bytes; all 34 PDU types of section 3.3.7 are there. */
static void test_corpus_decode_encode(void **state)
{
    (void)state;
    assert_int_equal(sizeof corpus / sizeof corpus[0], 34);
    for (size_t i = 0; i < sizeof corpus / sizeof corpus[0]; i++) {
        const corpus_entry *c = &corpus[i];
        uint8_t bytes[64], payload[32], out[64];
        size_t n = from_hex(c->hex, bytes, sizeof bytes);
        size_t pn = from_hex(c->payload_hex, payload, sizeof payload);
        assert_string_equal(rtcosim_dcp_pdu_type_name(bytes[0]), c->name);
        rtcosim_dcp_pdu got;
        uint16_t code = 0xFFFF;
        rtcosim_error err;
        if (rtcosim_dcp_pdu_decode(bytes, n, &got, &code, &err) != RTCOSIM_OK)
            fail_msg("%s: %s", c->name, err.message);
        assert_int_equal(code, 0);
        assert_same_fields(&got, &c->pdu, c->name);
        if (pn) {
            if (got.payload_size != pn || memcmp(got.payload, payload, pn) != 0)
                fail_msg("%s: payload differs", c->name);
        }
        rtcosim_dcp_pdu enc = c->pdu;
        enc.payload = pn ? payload : NULL;
        enc.payload_size = pn;
        size_t m = 0;
        if (rtcosim_dcp_pdu_encode(&enc, out, sizeof out, &m, &err) != RTCOSIM_OK)
            fail_msg("%s: %s", c->name, err.message);
        if (m != n || memcmp(out, bytes, n) != 0)
            fail_msg("%s: encoded %zu bytes, the spec's %zu differ", c->name, m, n);
    }
}

/* A PDU cut anywhere inside its fixed part is INVALID_LENGTH and the
 * message names the PDU and the field the cut falls in. */
static void test_truncation_names_field(void **state)
{
    (void)state;
    static const struct {
        const char *hex;
        size_t keep;
        const char *message;
    } cases[] = {
        {"01 34 12 05 00 b5 27 94 85 72 0d", 11,
         "DCP: STC_register of 11 bytes (expected 24): cut inside field slave_uuid"},
        {"20 41 12 05 01 00 00 00 64 00 00", 11,
         "DCP: CFG_time_res of 11 bytes (expected 12): cut inside field denominator"},
        /* The 9-byte source network information (port only) of older
         * rtcosim: the spec's table 135 has the address too. */
        {"26 47 12 05 02 01 00 90 1f", 9,
         "DCP: CFG_source_network_information of 9 bytes (expected 13): cut inside field ip_address"},
        {"80 3e 12 05 00 00", 6, "DCP: INF_state of 6 bytes (expected 4): bytes after field receiver"},
        {"e0 05", 2, "DCP: NTF_state_changed of 2 bytes (expected 3): cut inside field state_id"},
        {"f0 07 00 02", 4,
         "DCP: DAT_input_output of 4 bytes (expected at least 5): cut inside field data_id"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t bytes[64];
        size_t n = from_hex(cases[i].hex, bytes, sizeof bytes);
        assert_int_equal(n, cases[i].keep);
        rtcosim_dcp_pdu p;
        uint16_t code = 0;
        rtcosim_error err;
        assert_int_equal(rtcosim_dcp_pdu_decode(bytes, n, &p, &code, &err), RTCOSIM_EFORMAT);
        assert_int_equal(code, RTCOSIM_DCP_ERR_INVALID_LENGTH);
        assert_string_equal(err.message, cases[i].message);
    }
    /* Every cut of every corpus PDU is refused (never read past). */
    for (size_t i = 0; i < sizeof corpus / sizeof corpus[0]; i++) {
        uint8_t bytes[64];
        size_t n = from_hex(corpus[i].hex, bytes, sizeof bytes);
        size_t fixed = n - (corpus[i].payload_hex ? from_hex(corpus[i].payload_hex, bytes + 32, 32) : 0);
        for (size_t k = 1; k < fixed; k++) {
            rtcosim_dcp_pdu p;
            uint16_t code = 0;
            rtcosim_error err;
            assert_int_not_equal(rtcosim_dcp_pdu_decode(bytes, k, &p, &code, &err), RTCOSIM_OK);
            assert_int_equal(code, RTCOSIM_DCP_ERR_INVALID_LENGTH);
            assert_non_null(strstr(err.message, corpus[i].name));
            assert_non_null(strstr(err.message, "field "));
        }
    }
}

/* slave_uuid: the 16 bytes in the order the RFC 4122 string shows them
 * (not the little-endian fields of a Microsoft GUID). */
static void test_uuid_order(void **state)
{
    (void)state;
    uint8_t u[16];
    assert_true(rtcosim_dcp_uuid_parse("b5279485-720d-4542-9f29-bee4d9a75ef9", u));
    const uint8_t want[16] = {0xb5, 0x27, 0x94, 0x85, 0x72, 0x0d, 0x45, 0x42,
                              0x9f, 0x29, 0xbe, 0xe4, 0xd9, 0xa7, 0x5e, 0xf9};
    assert_memory_equal(u, want, 16);
    assert_memory_equal(corpus[0].pdu.uuid, want, 16);
    char text[37];
    rtcosim_dcp_uuid_format(u, text);
    assert_string_equal(text, "b5279485-720d-4542-9f29-bee4d9a75ef9");
    assert_true(rtcosim_dcp_uuid_parse("B5279485-720D-4542-9F29-BEE4D9A75EF9", u));
    assert_memory_equal(u, want, 16);
    const char *bad[] = {"b5279485-720d-4542-9f29-bee4d9a75ef", "b5279485720d-4542-9f29-bee4d9a75ef9a",
                         "{5279485-720d-4542-9f29-bee4d9a75ef9", "b5279485-720d-4542-9f29-bee4d9a75eg9",
                         "", NULL};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_false(rtcosim_dcp_uuid_parse(bad[i], u));
    assert_false(rtcosim_dcp_uuid_is_nil(want));
    const uint8_t nil[16] = {0};
    assert_true(rtcosim_dcp_uuid_is_nil(nil));
}

/* Table 63 as printed: one column per state (ALIVE ... ERRORRESOLVED, ids
 * 0x00..0x12), 'R' where the slave may receive the request. */
static const struct {
    uint8_t type;
    const char *states; /* 19 columns */
} table63[] = {
    {RTCOSIM_DCP_STC_REGISTER,                   "R.................."},
    {RTCOSIM_DCP_STC_DEREGISTER,                 ".R..............R.R"},
    {RTCOSIM_DCP_STC_PREPARE,                    ".R................."},
    {RTCOSIM_DCP_STC_CONFIGURE,                  "...R..............."},
    {RTCOSIM_DCP_STC_INITIALIZE,                 ".....R............."},
    {RTCOSIM_DCP_STC_RUN,                        ".....R............."},
    {RTCOSIM_DCP_STC_DO_STEP,                    "...........1......."},
    {RTCOSIM_DCP_STC_SEND_OUTPUTS,               ".......R.....1....."},
    {RTCOSIM_DCP_STC_STOP,                       "..RRRRRRRRRRRRR...."},
    {RTCOSIM_DCP_STC_RESET,                      "................R.R"},
    {RTCOSIM_DCP_INF_STATE,                      "RRRRRRRRRRRRRRRRRRR"},
    {RTCOSIM_DCP_INF_ERROR,                      ".................RR"},
    {RTCOSIM_DCP_INF_LOG,                        ".RRRRRRRRRRRRRRRRRR"},
    {RTCOSIM_DCP_CFG_STEPS,                      ".2................."},
    {RTCOSIM_DCP_CFG_TIME_RES,                   ".R................."},
    {RTCOSIM_DCP_CFG_INPUT,                      ".R................."},
    {RTCOSIM_DCP_CFG_OUTPUT,                     ".R................."},
    {RTCOSIM_DCP_CFG_CLEAR,                      ".R................."},
    {RTCOSIM_DCP_CFG_TARGET_NETWORK_INFORMATION, ".R................."},
    {RTCOSIM_DCP_CFG_SOURCE_NETWORK_INFORMATION, ".R................."},
    {RTCOSIM_DCP_CFG_TUNABLE_PARAMETER,          ".R................."},
    {RTCOSIM_DCP_CFG_PARAMETER,                  ".R................."},
    {RTCOSIM_DCP_CFG_PARAM_NETWORK_INFORMATION,  ".R................."},
    {RTCOSIM_DCP_CFG_LOGGING,                    ".R................."},
    {RTCOSIM_DCP_CFG_SCOPE,                      ".R................."},
};

/* Where rtcosim reads the table like the reference implementation (DCPLib's
 * stateChangePossible) because the transitions of 3.2.5 need more: returns
 * the expected answer, or -1 to take the table's. */
static int reading(uint8_t type, uint8_t st, uint8_t mode)
{
    bool nrt = mode == RTCOSIM_DCP_OP_NRT;
    /* SYNCHRONIZED -> RUNNING is STC_run (3.2.5.12). */
    if (type == RTCOSIM_DCP_STC_RUN && st == RTCOSIM_DCP_SYNCHRONIZED)
        return 1;
    /* NRT steps in the whole Run superstate. */
    if (type == RTCOSIM_DCP_STC_DO_STEP &&
        (st == RTCOSIM_DCP_SYNCHRONIZING || st == RTCOSIM_DCP_SYNCHRONIZED))
        return nrt;
    /* CFG_steps also in NRT (DCPLib requires it before STC_prepare). */
    if (type == RTCOSIM_DCP_CFG_STEPS)
        return st == RTCOSIM_DCP_CONFIGURATION;
    return -1;
}

static void test_table63(void **state)
{
    (void)state;
    const uint8_t modes[] = {RTCOSIM_DCP_OP_NRT, RTCOSIM_DCP_OP_SRT};
    for (size_t m = 0; m < 2; m++)
        for (size_t i = 0; i < sizeof table63 / sizeof table63[0]; i++) {
            assert_int_equal(strlen(table63[i].states), 19);
            for (uint8_t st = 0; st < 19; st++) {
                char c = table63[i].states[st];
                /* 1: only in NRT; 2: only in SRT/HRT (footnotes of table 63). */
                bool table = c == 'R' || (c == '1' && modes[m] == RTCOSIM_DCP_OP_NRT) ||
                             (c == '2' && modes[m] != RTCOSIM_DCP_OP_NRT);
                int r = reading(table63[i].type, st, modes[m]);
                bool want = r < 0 ? table : r == 1;
                if (rtcosim_dcp_request_allowed(st, table63[i].type, modes[m]) != want)
                    fail_msg("%s in %s (%s): expected %s", rtcosim_dcp_pdu_type_name(table63[i].type),
                             rtcosim_dcp_state_name(st), modes[m] == RTCOSIM_DCP_OP_NRT ? "NRT" : "SRT",
                             want ? "allowed" : "refused");
            }
        }
    /* Data PDUs: taken from CONFIGURED to SENDING_D (footnotes 3, 5-7);
     * in STOPPING .. ERRORRESOLVED received but not considered (4): dropped. */
    for (uint8_t st = 0; st < 19; st++) {
        bool taken = st >= RTCOSIM_DCP_CONFIGURED && st <= RTCOSIM_DCP_SENDING_D;
        assert_int_equal(rtcosim_dcp_request_allowed(st, RTCOSIM_DCP_DAT_INPUT_OUTPUT, RTCOSIM_DCP_OP_NRT), taken);
        assert_int_equal(rtcosim_dcp_request_allowed(st, RTCOSIM_DCP_DAT_PARAMETER, RTCOSIM_DCP_OP_NRT), taken);
    }
}

/* DCPX TimeRes (schema defaults numerator 1, denominator 1000), uuid and
 * xs:list start values, as a master reads them. */
static void test_dcpx_time_res_uuid_start(void **state)
{
    (void)state;
    static const struct {
        const char *time_res;
        uint32_t num, den;
    } cases[] = {
        {"", 1, 1000000000u},
        {"<TimeRes><Resolution denominator=\"100\"/></TimeRes>", 1, 100},
        {"<TimeRes><Resolution/></TimeRes>", 1, 1000},
        /* n / 4e9 s is whole ns for n = 4, 8, ...: the finest is 1 ns. */
        {"<TimeRes><ResolutionRange numeratorFrom=\"1\" numeratorTo=\"100\" denominator=\"4000000000\"/></TimeRes>",
         4, 4000000000u},
        {"<TimeRes><ResolutionRange numeratorFrom=\"5\" numeratorTo=\"7\" denominator=\"1000\"/></TimeRes>", 5, 1000},
        {"<TimeRes><Resolution numerator=\"1\" denominator=\"100\" fixed=\"false\"/>"
         "<Resolution numerator=\"1\" denominator=\"1000\" fixed=\"false\"/></TimeRes>", 1, 1000},
    };
    char xml[1024];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(xml, sizeof xml,
                 "<dcpSlaveDescription dcpMajorVersion=\"1\" dcpSlaveName=\"s\" "
                 "uuid=\"b5279485-720d-4542-9f29-bee4d9a75ef9\">%s<Variables>"
                 "<Variable name=\"a\" valueReference=\"2\"><Input><Float64 start=\"10 \"/></Input></Variable>"
                 "<Variable name=\"v\" valueReference=\"3\"><Input><Float64 start=\"1 2\"/></Input></Variable>"
                 "</Variables></dcpSlaveDescription>", cases[i].time_res);
        rtcosim_dcpx *d = NULL;
        rtcosim_error err;
        if (rtcosim_dcpx_parse(xml, strlen(xml), "t.dcpx", &d, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        uint32_t num, den;
        rtcosim_dcpx_time_resolution(d, &num, &den);
        assert_int_equal(num, cases[i].num);
        assert_int_equal(den, cases[i].den);
        uint8_t uuid[16];
        assert_true(rtcosim_dcpx_uuid(d, uuid));
        assert_memory_equal(uuid, corpus[0].pdu.uuid, 16);
        const rtcosim_component_desc *desc = rtcosim_dcpx_component_desc(d);
        assert_true(desc->variables[0].has_start && desc->variables[0].start.f64 == 10.0);
        assert_false(desc->variables[1].has_start); /* a list of two: not a scalar */
        rtcosim_dcpx_free(d);
    }
    const char *no_ns = "<dcpSlaveDescription dcpMajorVersion=\"1\" dcpSlaveName=\"s\"><TimeRes>"
                        "<Resolution numerator=\"1\" denominator=\"3\"/></TimeRes><Variables/></dcpSlaveDescription>";
    rtcosim_dcpx *d = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_dcpx_parse(no_ns, strlen(no_ns), "third.dcpx", &d, &err), RTCOSIM_EUNSUPPORTED);
    assert_string_equal(err.message, "third.dcpx: TimeRes offers no resolution of a whole number of "
                                     "nanoseconds (rtcosim steps in integer ns)");
    const char *bad = "<dcpSlaveDescription dcpMajorVersion=\"1\" dcpSlaveName=\"s\"><TimeRes>"
                      "<ResolutionRange numeratorFrom=\"9\" numeratorTo=\"3\" denominator=\"10\"/></TimeRes>"
                      "<Variables/></dcpSlaveDescription>";
    assert_int_equal(rtcosim_dcpx_parse(bad, strlen(bad), "range.dcpx", &d, &err), RTCOSIM_EFORMAT);
    assert_non_null(strstr(err.message, "range.dcpx: TimeRes/ResolutionRange"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus_decode_encode),
        cmocka_unit_test(test_truncation_names_field),
        cmocka_unit_test(test_uuid_order),
        cmocka_unit_test(test_table63),
        cmocka_unit_test(test_dcpx_time_res_uuid_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
