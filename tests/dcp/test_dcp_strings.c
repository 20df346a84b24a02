/* String and Binary values over DCP (spec 3.1.12.3-4: a uint32 little-endian
 * length, then the bytes, no terminator; 3.1.20: a string only from a string,
 * a binary only from a binary):
 * - the codec against the spec's own examples (tables 5-8: the binary
 *   39 E6 29 D2 and the string "beef"), malformed lengths and NUL bytes;
 * - DCPX String and Binary variables with their start values (xs:hexBinary);
 * - a session: the project's Feedthrough FMU (FMI 3.0) served by a slave,
 *   driven by a master built from the slave's own DCPX: a non-ASCII String
 *   and Binary values with NUL bytes and of 0 to 1950 bytes come back byte
 *   for byte, String and Binary parameters (CFG_parameter) are accepted, a
 *   data PDU whose lengths do not add up is dropped as if it never came,
 *   and in soft real time the streamed outputs carry them too;
 * - `rtcosim run` of a system whose String and Binary connections end at the
 *   Feedthrough FMU: with the FMU served over DCP (`--dcp`, and the slave's
 *   DCPX as the component's source with the connectors taken from it), the
 *   CSV equals the one of the FMU run in process, byte for byte, and rows
 *   derived by hand. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "dcp/values.h"
#include "rtcosim/dcp.h"
#include "rtcosim/fmu.h"
#include "session.h"
#include "rtcosim_test_fmus.h"
#include "util/test_util.h"

/* Feedthrough (models/feedthrough, FMI 3.0) value references. */
enum {
    VR_STRING_IN = 9,
    VR_STRING_OUT = 10,
    VR_BINARY_IN = 27,
    VR_BINARY_OUT = 28,
    VR_STRING_PARAM = 34,
    VR_BINARY_PARAM = 35
};

static void hex_of(const uint8_t *p, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 3 * i, "%02X ", p[i]);
    out[n ? 3 * n - 1 : 0] = '\0';
}

/* Tables 5/6 and 7/8 of the specification, and back. */
static void test_spec_tables_5_to_8(void **state)
{
    (void)state;
    uint8_t wire[16];
    char hex[64];
    static const uint8_t data[] = {0x39, 0xE6, 0x29, 0xD2};
    rtcosim_binary bin = {data, sizeof data};
    assert_int_equal(dcp_value_wire_size(RTCOSIM_TYPE_BINARY, &bin), 8);
    assert_int_equal(dcp_value_to_wire(RTCOSIM_TYPE_BINARY, &bin, wire), 8);
    hex_of(wire, 8, hex);
    assert_string_equal(hex, "04 00 00 00 39 E6 29 D2");

    const char *beef = "beef";
    assert_int_equal(dcp_value_to_wire(RTCOSIM_TYPE_STRING, &beef, wire), 8);
    hex_of(wire, 8, hex);
    assert_string_equal(hex, "04 00 00 00 62 65 65 66");

    dcp_bytes keep = {0};
    const char *s = NULL;
    assert_int_equal(dcp_value_wire_extent(RTCOSIM_DCP_STRING, wire, 8), 8);
    assert_int_equal(dcp_value_decode(RTCOSIM_DCP_STRING, wire, 8, RTCOSIM_TYPE_STRING, &s, &keep),
                     DCP_DECODE_OK);
    assert_string_equal(s, "beef");
    static const uint8_t table6[] = {0x04, 0, 0, 0, 0x39, 0xE6, 0x29, 0xD2};
    rtcosim_binary got = {0};
    assert_int_equal(dcp_value_decode(RTCOSIM_DCP_BINARY, table6, 8, RTCOSIM_TYPE_BINARY, &got, &keep),
                     DCP_DECODE_OK);
    assert_int_equal(got.size, 4);
    assert_memory_equal(got.data, data, 4);

    /* The empty string and binary: a zero length and nothing after it. */
    const char *empty = "";
    assert_int_equal(dcp_value_to_wire(RTCOSIM_TYPE_STRING, &empty, wire), 4);
    hex_of(wire, 4, hex);
    assert_string_equal(hex, "00 00 00 00");
    assert_int_equal(dcp_value_decode(RTCOSIM_DCP_STRING, wire, 4, RTCOSIM_TYPE_STRING, &s, &keep),
                     DCP_DECODE_OK);
    assert_string_equal(s, "");
    dcp_bytes_free(&keep);
}

/* 3.1.20's table: string and binary convert only to themselves. */
static void test_conversions(void **state)
{
    (void)state;
    assert_true(dcp_type_converts(RTCOSIM_DCP_STRING, RTCOSIM_TYPE_STRING));
    assert_true(dcp_type_converts(RTCOSIM_DCP_BINARY, RTCOSIM_TYPE_BINARY));
    assert_false(dcp_type_converts(RTCOSIM_DCP_STRING, RTCOSIM_TYPE_BINARY));
    assert_false(dcp_type_converts(RTCOSIM_DCP_BINARY, RTCOSIM_TYPE_STRING));
    assert_false(dcp_type_converts(RTCOSIM_DCP_UINT8, RTCOSIM_TYPE_STRING));
    assert_false(dcp_type_converts(RTCOSIM_DCP_STRING, RTCOSIM_TYPE_FLOAT64));
    assert_true(dcp_type_converts(RTCOSIM_DCP_INT16, RTCOSIM_TYPE_FLOAT64));
    assert_false(dcp_type_converts(RTCOSIM_DCP_FLOAT64, RTCOSIM_TYPE_INT32));
    uint8_t t;
    assert_true(dcp_type_of(RTCOSIM_TYPE_STRING, &t) && t == 10);
    assert_true(dcp_type_of(RTCOSIM_TYPE_BINARY, &t) && t == 11);
    assert_false(dcp_type_of(RTCOSIM_TYPE_CLOCK, &t));
}

/* A length past the payload, a length field cut short, a NUL in a string. */
static void test_malformed_values(void **state)
{
    (void)state;
    static const uint8_t past[] = {0x05, 0, 0, 0, 'a', 'b', 'c', 'd'};
    assert_int_equal(dcp_value_wire_extent(RTCOSIM_DCP_STRING, past, sizeof past), 0);
    static const uint8_t huge[] = {0xff, 0xff, 0xff, 0xff, 'a'};
    assert_int_equal(dcp_value_wire_extent(RTCOSIM_DCP_BINARY, huge, sizeof huge), 0);
    static const uint8_t cut[] = {0x01, 0};
    assert_int_equal(dcp_value_wire_extent(RTCOSIM_DCP_STRING, cut, sizeof cut), 0);
    static const uint8_t nul[] = {0x03, 0, 0, 0, 'a', 0, 'b'};
    dcp_bytes keep = {0};
    const char *s = "before";
    assert_int_equal(dcp_value_decode(RTCOSIM_DCP_STRING, nul, sizeof nul, RTCOSIM_TYPE_STRING, &s, &keep),
                     DCP_DECODE_NUL);
    assert_string_equal(s, "before"); /* unchanged */
    rtcosim_binary b = {0};
    assert_int_equal(dcp_value_decode(RTCOSIM_DCP_BINARY, nul, sizeof nul, RTCOSIM_TYPE_BINARY, &b, &keep),
                     DCP_DECODE_OK);
    assert_int_equal(b.size, 3);
    assert_int_equal(b.data[1], 0);
    /* an extent that disagrees with the length field */
    assert_int_equal(dcp_value_decode(RTCOSIM_DCP_BINARY, nul, 6, RTCOSIM_TYPE_BINARY, &b, &keep),
                     DCP_DECODE_SHORT);
    assert_int_equal(dcp_value_decode(RTCOSIM_DCP_STRING, past, sizeof past, RTCOSIM_TYPE_BINARY, &b, &keep),
                     DCP_DECODE_TYPE);
    dcp_bytes_free(&keep);
}

static const char dcpx_head[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<dcpSlaveDescription dcpMajorVersion=\"1\" dcpMinorVersion=\"0\" dcpSlaveName=\"s\" "
    "uuid=\"b5279485-720d-4542-9f29-bee4d9a75ef9\">\n"
    "<OpMode><NonRealTime/></OpMode>\n"
    "<TransportProtocols><UDP_IPv4 maxPduSize=\"65507\"><Control host=\"127.0.0.1\" port=\"9\"/>"
    "</UDP_IPv4></TransportProtocols>\n<Variables>\n";

/* String and Binary variables of a DCPX with their start values; a start
 * that is not xs:hexBinary is refused naming the file and the variable. */
static void test_dcpx_string_binary(void **state)
{
    (void)state;
    char xml[2048];
    snprintf(xml, sizeof xml,
             "%s<Variable name=\"label\" valueReference=\"1\"><Input><String start=\"Gr&#252;&#223;e &amp; co\"/></Input></Variable>\n"
             "<Variable name=\"frame\" valueReference=\"2\"><Parameter><Binary start=\"00ff7F80\" maxSize=\"8\"/></Parameter></Variable>\n"
             "<Variable name=\"echo\" valueReference=\"3\"><Output><String/></Output></Variable>\n"
             "</Variables></dcpSlaveDescription>\n",
             dcpx_head);
    rtcosim_dcpx *d = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_dcpx_parse(xml, strlen(xml), "s.dcpx", &d, &err), RTCOSIM_OK);
    const rtcosim_component_desc *desc = rtcosim_dcpx_component_desc(d);
    assert_int_equal(desc->variable_count, 3);
    assert_int_equal(desc->variables[0].type, RTCOSIM_TYPE_STRING);
    assert_true(desc->variables[0].has_start);
    assert_string_equal(desc->variables[0].start.s, "Gr\xc3\xbc\xc3\x9f" "e & co");
    assert_int_equal(desc->variables[1].type, RTCOSIM_TYPE_BINARY);
    assert_int_equal(desc->variables[1].start.bin.size, 4);
    assert_memory_equal(desc->variables[1].start.bin.data, "\x00\xff\x7f\x80", 4);
    assert_int_equal(desc->variables[2].causality, RTCOSIM_CAUSALITY_OUTPUT);
    assert_false(desc->variables[2].has_start);
    const uint32_t *max = rtcosim_dcpx_max_sizes(d);
    assert_int_equal(max[0], 0);
    assert_int_equal(max[1], 8);
    assert_int_equal(max[2], 0);
    rtcosim_dcpx_free(d);

    snprintf(xml, sizeof xml,
             "%s<Variable name=\"frame\" valueReference=\"2\"><Input><Binary start=\"0g\"/></Input></Variable>\n"
             "</Variables></dcpSlaveDescription>\n",
             dcpx_head);
    assert_int_equal(rtcosim_dcpx_parse(xml, strlen(xml), "s.dcpx", &d, &err), RTCOSIM_EFORMAT);
    assert_null(d);
    assert_non_null(strstr(err.message, "s.dcpx: Variable 'frame': Binary start '0g' is not hexBinary"));
}

static rtcosim_status feedthrough(void *ctx, rtcosim_component **out, rtcosim_error *err)
{
    (void)ctx;
    return rtcosim_fmu_load(RTCOSIM_FMU_FEEDTHROUGH_FMI3, NULL, out, err);
}

/* A master for the served slave, built from the DCPX the slave writes. */
static rtcosim_component *remote_from_dcpx(served *s, const char *dir, rtcosim_dcpx **dcpx)
{
    rtcosim_error err;
    const char *path = tu_path(dir, "slave.dcpx");
    if (rtcosim_dcp_slave_write_dcpx(s->slave, path, &err) != RTCOSIM_OK ||
        rtcosim_dcpx_load(path, dcpx, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    rtcosim_dcp_remote_config cfg = {.host = "127.0.0.1", .port = rtcosim_dcp_slave_port(s->slave)};
    (void)rtcosim_dcpx_uuid(*dcpx, cfg.uuid);
    rtcosim_component *c = NULL;
    if (rtcosim_dcp_remote_create(&cfg, rtcosim_dcpx_component_desc(*dcpx), &c, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    return c;
}

/* Send a DAT_input_output for data id 0 with one String and one Binary
 * value whose lengths do not add up, as the next PDU of that id. */
static void send_broken_pdu(uint16_t port, uint16_t seq)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(port)};
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    /* type 0xf0 (DAT_input_output), seq, data_id 0; "xyz" as a String,
     * then a Binary that claims 200 bytes and brings 2 */
    uint8_t pdu[] = {0xf0, (uint8_t)seq, (uint8_t)(seq >> 8), 0, 0, 3, 0, 0, 0, 'x', 'y', 'z',
                     200, 0, 0, 0, 1, 2};
    assert_int_equal(sendto(fd, pdu, sizeof pdu, 0, (struct sockaddr *)&to, sizeof to), (ssize_t)sizeof pdu);
    close(fd);
}

static void test_session_with_fmu(void **state)
{
    (void)state;
    char *dir = tu_make_dir();
    served s;
    rtcosim_dcp_slave_config scfg = {.host = "127.0.0.1", .factory = feedthrough};
    start_slave_config(&s, &scfg);
    rtcosim_dcpx *dcpx = NULL;
    rtcosim_component *c = remote_from_dcpx(&s, dir, &dcpx);
    rtcosim_error err;
    const uint32_t si = VR_STRING_IN, so = VR_STRING_OUT, bi = VR_BINARY_IN, bo = VR_BINARY_OUT;
    const uint32_t sp = VR_STRING_PARAM, bp = VR_BINARY_PARAM;
    const char *param = "Parameter \xe2\x9c\x93";
    static const uint8_t param_bytes[] = {0, 1, 0, 2};
    rtcosim_binary param_bin = {param_bytes, sizeof param_bytes};
    if (rtcosim_component_instantiate(c, "ft", &err) != RTCOSIM_OK ||
        rtcosim_component_setup(c, 0, 0, -1, &err) != RTCOSIM_OK ||
        rtcosim_component_set(c, RTCOSIM_TYPE_STRING, &sp, 1, &param, &err) != RTCOSIM_OK ||
        rtcosim_component_set(c, RTCOSIM_TYPE_BINARY, &bp, 1, &param_bin, &err) != RTCOSIM_OK ||
        rtcosim_component_enter_init(c, &err) != RTCOSIM_OK ||
        rtcosim_component_exit_init(c, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    static uint8_t bytes[2000];
    char text[64];
    rtcosim_time_ns h = 10 * RTCOSIM_NS_PER_MS;
    for (int k = 0; k < 40; k++) {
        /* non-ASCII text; a Binary of 50 k bytes (0 at k = 0), NUL bytes
         * among them, 2000 bytes at k = 40 */
        snprintf(text, sizeof text, "Gr\xc3\xbc\xc3\x9f" "e %d \xe2\x9c\x93", k);
        const char *in = text;
        size_t n = (size_t)k * 50;
        for (size_t j = 0; j < n; j++)
            bytes[j] = (uint8_t)(k * 31 + j);
        rtcosim_binary bin = {n ? bytes : NULL, n};
        if (rtcosim_component_set(c, RTCOSIM_TYPE_STRING, &si, 1, &in, &err) != RTCOSIM_OK ||
            rtcosim_component_set(c, RTCOSIM_TYPE_BINARY, &bi, 1, &bin, &err) != RTCOSIM_OK ||
            rtcosim_component_do_step(c, k * h, h, NULL, &err) != RTCOSIM_OK)
            fail_msg("step %d: %s", k, err.message);
        const char *out = NULL;
        rtcosim_binary bout = {0};
        if (rtcosim_component_get(c, RTCOSIM_TYPE_STRING, &so, 1, &out, &err) != RTCOSIM_OK ||
            rtcosim_component_get(c, RTCOSIM_TYPE_BINARY, &bo, 1, &bout, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        if (strcmp(out, text) != 0)
            fail_msg("step %d: String_output '%s', sent '%s'", k, out, text);
        assert_int_equal(bout.size, n);
        if (n)
            assert_memory_equal(bout.data, bytes, n);
    }
    /* A data PDU whose lengths do not add up, sent as the next of the
     * inputs' id (seq 41: the master sent seq 0 in initialization and 1..40
     * with the steps). The slave drops it as if it never came: the
     * master's own seq 41 is taken (before, a malformed PDU took the
     * sequence number and every later PDU of the master counted as a
     * repeat). */
    /* A tunable String parameter changed while running: a DAT_parameter
     * the slave applies at its next step (the FMU takes it). */
    const char *retuned = "retuned \xe2\x9c\x93";
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_STRING, &sp, 1, &retuned, &err),
                     RTCOSIM_OK);
    send_broken_pdu(rtcosim_dcp_slave_port(s.slave), 41);
    usleep(20000);
    for (int k = 40; k < 43; k++) {
        snprintf(text, sizeof text, "after %d", k);
        const char *in = text, *out = NULL;
        if (rtcosim_component_set(c, RTCOSIM_TYPE_STRING, &si, 1, &in, &err) != RTCOSIM_OK ||
            rtcosim_component_do_step(c, k * h, h, NULL, &err) != RTCOSIM_OK ||
            rtcosim_component_get(c, RTCOSIM_TYPE_STRING, &so, 1, &out, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        assert_string_equal(out, text);
    }
    assert_int_equal(rtcosim_component_terminate(c, &err), RTCOSIM_OK);
    rtcosim_component_free(c);
    /* Soft real time: the slave steps on its own clock and streams its
     * outputs, kept by step in a ring whose slots take a whole PDU when
     * String or Binary outputs vary in size. Inputs set in initialization
     * hold, so every step's outputs are known: the String and the Binary
     * (NUL bytes inside) come back from each streamed PDU. */
    rtcosim_dcp_remote_config srt = {.host = "127.0.0.1", .port = rtcosim_dcp_slave_port(s.slave),
                                     .soft_real_time = true, .srt_step_ns = 20 * RTCOSIM_NS_PER_MS};
    (void)rtcosim_dcpx_uuid(dcpx, srt.uuid);
    rtcosim_component *rt = NULL;
    if (rtcosim_dcp_remote_create(&srt, rtcosim_dcpx_component_desc(dcpx), &rt, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    const char *held = "held \xe2\x9c\x93";
    static const uint8_t held_bytes[] = {7, 0, 0, 9};
    rtcosim_binary held_bin = {held_bytes, sizeof held_bytes};
    if (rtcosim_component_instantiate(rt, "ft", &err) != RTCOSIM_OK ||
        rtcosim_component_setup(rt, 0, 0, -1, &err) != RTCOSIM_OK ||
        rtcosim_component_enter_init(rt, &err) != RTCOSIM_OK ||
        rtcosim_component_set(rt, RTCOSIM_TYPE_STRING, &si, 1, &held, &err) != RTCOSIM_OK ||
        rtcosim_component_set(rt, RTCOSIM_TYPE_BINARY, &bi, 1, &held_bin, &err) != RTCOSIM_OK ||
        rtcosim_component_exit_init(rt, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(rtcosim_dcp_remote_op_mode(rt), RTCOSIM_DCP_OP_SRT);
    for (int k = 0; k < 10; k++) {
        const char *out = NULL;
        rtcosim_binary bout = {0};
        if (rtcosim_component_do_step(rt, k * srt.srt_step_ns, srt.srt_step_ns, NULL, &err) !=
                RTCOSIM_OK ||
            rtcosim_component_get(rt, RTCOSIM_TYPE_STRING, &so, 1, &out, &err) != RTCOSIM_OK ||
            rtcosim_component_get(rt, RTCOSIM_TYPE_BINARY, &bo, 1, &bout, &err) != RTCOSIM_OK)
            fail_msg("SRT step %d: %s", k, err.message);
        assert_string_equal(out, held);
        assert_int_equal(bout.size, sizeof held_bytes);
        assert_memory_equal(bout.data, held_bytes, sizeof held_bytes);
    }
    assert_int_equal(rtcosim_component_terminate(rt, &err), RTCOSIM_OK);
    rtcosim_component_free(rt);
    rtcosim_dcpx_free(dcpx);

    /* maxSize: the DCPX the slave wrote bounds String_input by what one PDU
     * carries (65498); with 10 instead (as a DCPLib slave may declare),
     * a value of 6 bytes is sent and one of 7 refused, naming it, before
     * anything goes out (DCPLib counts the length field in maxSize and, given
     * more, misreads the rest of the PDU). */
    const char *path = tu_path(dir, "slave.dcpx");
    char *xml = strdup(tu_read_file(path, NULL));
    const char *tag = "<String maxSize=\"65498\" start=\"\"/>";
    char *at_tag = strstr(xml, tag); /* String_input, the first String */
    assert_non_null(at_tag);
    char patched[16384];
    snprintf(patched, sizeof patched, "%.*s<String maxSize=\"10\" start=\"\"/>%s",
             (int)(at_tag - xml), xml, at_tag + strlen(tag));
    free(xml);
    assert_int_equal(rtcosim_dcpx_parse(patched, strlen(patched), "patched.dcpx", &dcpx, &err),
                     RTCOSIM_OK);
    rtcosim_dcp_remote_config mcfg = {.host = "127.0.0.1", .port = rtcosim_dcp_slave_port(s.slave),
                                      .max_sizes = rtcosim_dcpx_max_sizes(dcpx)};
    (void)rtcosim_dcpx_uuid(dcpx, mcfg.uuid);
    assert_int_equal(rtcosim_dcp_remote_create(&mcfg, rtcosim_dcpx_component_desc(dcpx), &c, &err),
                     RTCOSIM_OK);
    rtcosim_dcpx_free(dcpx);
    const char *six = "123456", *seven = "1234567";
    assert_int_equal(rtcosim_component_instantiate(c, "ft", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_setup(c, 0, 0, -1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_STRING, &si, 1, &six, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_STRING, &si, 1, &seven, &err),
                     RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "'String_input' is 7 bytes; the slave's maxSize 10 leaves 6"));
    rtcosim_component_free(c);
    stop_slave(&s);
    tu_drop_dir(dir);
}

static int run_cli(const char *const *args, const char *err_path)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (err_path && !freopen(err_path, "w", stderr))
            _exit(126);
        if (!freopen("/dev/null", "w", stdout))
            _exit(126);
        const char *argv[32];
        tu_cli_argv(argv, 32, RTCOSIM_CLI_PATH, args);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The same system with its Feedthrough run in process and served over DCP:
 * Strings grown by "ab" each step (to 200 bytes) and a Binary trail grown by
 * a byte each step (k mod 256: NUL bytes from step 256 on) reach it through
 * connections; its String and Binary outputs give the same CSV. */
static void test_system_over_dcp_equals_in_process(void **state)
{
    (void)state;
    char *dir = tu_make_dir();
    char ssd[512], direct[512], remote[512], errs[512], port[64];
    snprintf(ssd, sizeof ssd, "%s", tu_path(dir, "sys.ssd"));
    snprintf(direct, sizeof direct, "%s", tu_path(dir, "direct.csv"));
    snprintf(remote, sizeof remote, "%s", tu_path(dir, "dcp.csv"));
    snprintf(errs, sizeof errs, "%s", tu_path(dir, "err.txt"));
    tu_write_text_chain_ssd(ssd, RTCOSIM_FMU_STRINGS_FMI2, RTCOSIM_FMU_NOTES_FMI3,
                            RTCOSIM_FMU_FEEDTHROUGH_FMI3, 3);
    served s;
    rtcosim_dcp_slave_config scfg = {.host = "127.0.0.1", .factory = feedthrough};
    start_slave_config(&s, &scfg);
    snprintf(port, sizeof port, "f=127.0.0.1:%u", (unsigned)rtcosim_dcp_slave_port(s.slave));
    const char *run_direct[] = {"run", ssd, "--step-size", "0.01", "--output-file", direct,
                                "--output-variable", "f.String_output", "--output-variable",
                                "f.Binary_output", "-q", NULL};
    const char *run_remote[] = {"run", ssd, "--step-size", "0.01", "--output-file", remote,
                                "--output-variable", "f.String_output", "--output-variable",
                                "f.Binary_output", "-q", "--dcp", port, NULL};
    assert_int_equal(run_cli(run_direct, errs), 0);
    if (run_cli(run_remote, errs) != 0)
        fail_msg("--dcp: %s", tu_read_file(errs, NULL));
    size_t n_direct, n_remote;
    char *a = strdup(tu_read_file(direct, &n_direct));
    const char *b = tu_read_file(remote, &n_remote);
    assert_int_equal(n_remote, n_direct);
    assert_memory_equal(a, b, n_direct);
    /* The slave's DCPX as f's source, the SSD declaring no connectors: they
     * come from the DCPX (its String and Binary variables among them). */
    char dcpx[512], ssd2[512];
    snprintf(dcpx, sizeof dcpx, "%s", tu_path(dir, "f.dcpx"));
    snprintf(ssd2, sizeof ssd2, "%s", tu_path(dir, "sys2.ssd"));
    rtcosim_error err;
    assert_int_equal(rtcosim_dcp_slave_write_dcpx(s.slave, dcpx, &err), RTCOSIM_OK);
    tu_write_text_chain_ssd(ssd2, RTCOSIM_FMU_STRINGS_FMI2, RTCOSIM_FMU_NOTES_FMI3, dcpx, 3);
    const char *run_dcpx[] = {"run", ssd2, "--step-size", "0.01", "--output-file", remote,
                              "--output-variable", "f.String_output", "--output-variable",
                              "f.Binary_output", "-q", NULL};
    if (run_cli(run_dcpx, errs) != 0)
        fail_msg(".dcpx source: %s", tu_read_file(errs, NULL));
    stop_slave(&s);
    b = tu_read_file(remote, &n_remote);
    assert_int_equal(n_remote, n_direct);
    assert_memory_equal(a, b, n_direct);
    /* Hand-derived rows (Jacobi: f's input of step k is the producers'
     * output after step k - 1, echoed at the end of step k): at t = 0.02
     * "ab" and the byte 01; at t = 3 (k = 300) Strings' cap of 200 bytes
     * ("ab" x 100) and the trail of step 299: bytes j mod 256, j = 1..299
     * (00 at j = 256). */
    assert_int_equal(tu_count_lines(direct), 302);
    assert_non_null(strstr(a, "\"time\",\"f.String_output\",\"f.Binary_output\"\n0,\"\",\n"
                              "0.01,\"\",\n0.02,\"ab\",01\n0.03,\"abab\",0102\n"));
    char last[1024];
    size_t at = (size_t)snprintf(last, sizeof last, "\n3,\"");
    for (int i = 0; i < 100; i++)
        at += (size_t)snprintf(last + at, sizeof last - at, "ab");
    at += (size_t)snprintf(last + at, sizeof last - at, "\",");
    for (int j = 1; j <= 299; j++)
        at += (size_t)snprintf(last + at, sizeof last - at, "%02x", j % 256);
    snprintf(last + at, sizeof last - at, "\n");
    size_t n_last = strlen(last);
    assert_true(n_direct > n_last);
    assert_string_equal(a + n_direct - n_last, last);
    free(a);
    tu_drop_dir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_tables_5_to_8),
        cmocka_unit_test(test_conversions),
        cmocka_unit_test(test_malformed_values),
        cmocka_unit_test(test_dcpx_string_binary),
        cmocka_unit_test(test_session_with_fmu),
        cmocka_unit_test(test_system_over_dcp_equals_in_process),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
