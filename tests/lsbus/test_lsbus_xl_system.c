/* CAN XL through a system: two LsBusNodeLarge FMUs (models/lsbus_node, its
 * buffers for a 2048-byte frame) in CAN XL format on `rtcosim run
 * --can-bus`, end to end. Frame lengths from
 * tests/can/test_can_xl.c, worked out by hand there: priority 0x100 with 1
 * byte 36 nominal + 134 data-phase bits, 0x555 with 2048 bytes 34 + 18148.
 * Both nodes request at 1 ms: 0x100 wins the arbitration, then the 2048-byte
 * frame follows. At 500 kbit/s and the 10 Mbit/s default XL rate: 0x100
 * 1.0 .. 1.0854 ms (72 + 13.4 us), 0x555 1.0854 .. 2.9682 ms (68 + 1814.8
 * us); with both nodes configuring CANXL_BAUDRATE 20 Mbit/s: 1.0 .. 1.0787
 * ms (72 + 6.7), 1.0787 .. 2.0541 ms (68 + 907.4). Each frame's bytes are
 * the sender's pattern (7 i + 1 for its first frame), which the receiving
 * FMU checks (rx_data_ok). */
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lsbus_cli.h"
#include "util/test_util.h"

#define XL_NODE RTCOSIM_FMU_LSBUSNODELARGE_FMI3

/* Node n sends CAN XL frames of pattern 1 (byte i of the k-th frame 7 i + 1
 * + k) with VCID 0x45 and AF 0x12345678; XL_SENDER: priority 0x555, 2048
 * bytes and SDT 3 too. */
#define XL_FRAMES(n)                                                                              \
    "--start-value", n ".format", "2", "--start-value", n ".pattern", "1", "--start-value",      \
        n ".vcid", "69", "--start-value", n ".af", "305419896"
#define XL_SENDER(n)                                                                              \
    XL_FRAMES(n), "--start-value", n ".can_id", "1365", "--start-value", n ".data_length",       \
        "2048", "--start-value", n ".sdt", "3"
/* On can0: a's 2048-byte 0x555 and b's 1-byte 0x100, each once (period 10 ms). */
#define A_2048_B_1                                                                                \
    XL_SENDER("a"), XL_FRAMES("b"), "--can-bus", "can0=a.CAN,b.CAN", "--start-value", "a.period", \
        "0.01", "--start-value", "b.period", "0.01", "--start-value", "b.can_id", "256",          \
        "--start-value", "b.data_length", "1"

static const char *const nodes_ab[] = {"a", "b"};

static void a_2048_byte_frame_crosses_the_integrated_bus(void **state)
{
    (void)state;
    const char *ssd = write_ssd("xl.ssd", XL_NODE, nodes_ab, 2, NULL, "");
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.0035", "-q",
                             A_2048_B_1, "--start-value", "b.sec", "1", "--start-value", "b.sdt",
                             "7", "--can-log", "bus.log", "--output-file", "out.csv", NULL),
                     0);
    char *log = read_text("bus.log");
    char want[8192];
    int used = snprintf(want, sizeof want,
                        "(0000000000.001085) can0 45100#81:07:12345678#01\n"
                        "(0000000000.002968) can0 45555#80:03:12345678#");
    for (int i = 0; i < 2048; i++)
        used += snprintf(want + used, sizeof want - (size_t)used, "%02X", (7 * i + 1) & 0xFF);
    snprintf(want + used, sizeof want - (size_t)used, "\n");
    assert_string_equal(log, want);
    free(log);
    char *out = read_text("out.txt");
    expect_in(out, "can bus can0: 500000 bit/s, 2 frames, 2 confirms, 0 arbitration lost, "
                   "0 bus errors, busy 0.0019682 s\n");
    free(out);
    /* the last row: b got a's whole frame with its fields, a got b's */
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.0035", "-q",
                             A_2048_B_1, "--start-value", "b.sec", "1", "--start-value", "b.sdt",
                             "7", "--output-file", "out.csv", "--output-variable",
                             "b.rx_frames", "--output-variable", "b.last_rx_id",
                             "--output-variable", "b.last_rx_length", "--output-variable",
                             "b.last_rx_sdt", "--output-variable", "b.last_rx_vcid",
                             "--output-variable", "b.last_rx_af", "--output-variable",
                             "b.rx_data_ok", "--output-variable", "b.last_rx_time",
                             "--output-variable", "b.confirms", "--output-variable",
                             "a.last_rx_id", "--output-variable", "a.last_rx_sec",
                             "--output-variable", "a.last_rx_sdt", "--output-variable",
                             "a.rx_data_ok", "--output-variable", "a.last_confirm_time", NULL),
                     0);
    out = read_text("out.csv");
    expect_in(out, "\n0.0035,1,1365,2048,3,69,305419896,1,0.0029682,1,256,1,7,1,0.0029682\n");
    free(out);
}

static void the_nodes_configure_the_xl_data_rate(void **state)
{
    (void)state;
    const char *ssd = write_ssd("xl.ssd", XL_NODE, nodes_ab, 2, NULL, "");
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.0035", "-q",
                             A_2048_B_1, "--start-value", "b.sdt", "3", "--start-value",
                             "a.xl_bitrate", "20000000", "--start-value", "b.xl_bitrate",
                             "20000000", "--can-log", "bus.log", NULL),
                     0);
    char *log = read_text("bus.log");
    expect_in(log, "(0000000000.001079) can0 45100#80:03:12345678#01\n"
                   "(0000000000.002054) can0 45555#80:03:12345678#0108");
    free(log);
    /* nodes that disagree on it could not talk: one line naming them */
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.0015", "-q",
                             XL_SENDER("a"), XL_SENDER("b"), "--can-bus", "can0=a.CAN,b.CAN",
                             "--start-value", "a.xl_bitrate", "20000000", "--start-value",
                             "b.xl_bitrate", "5000000", NULL),
                     1);
    expect_one_line_error("Tx_Data of b.CAN: LS-BUS bus 'can0': node 1 configures CANXL_BAUDRATE "
                          "5000000 bit/s but node 0 configured 20000000 bit/s");
}

/* A classic LsBusNode beside the XL sender: its Rx_Data (maxSize 48) cannot
 * take the XL frame's 2070-byte op: one line naming it, no truncation. Its
 * 0x0C8 without data (100 us, tests/lsbus/test_bridge.c) wins at 1 ms, the
 * XL frame follows: 1.1 + 1.8828 = 2.9828 ms. */
static void a_node_whose_rx_data_is_too_small_is_named(void **state)
{
    (void)state;
    static const char connectors[] =
        "<ssd:Connectors><ssd:Connector name=\"CAN.Tx_Data\" kind=\"output\"/>"
        "<ssd:Connector name=\"CAN.Tx_Clock\" kind=\"output\"/>"
        "<ssd:Connector name=\"CAN.Rx_Data\" kind=\"input\"/>"
        "<ssd:Connector name=\"CAN.Rx_Clock\" kind=\"input\"/></ssd:Connectors>";
    char text[4096];
    snprintf(text, sizeof text,
             "<?xml version=\"1.0\"?>\n<ssd:SystemStructureDescription version=\"1.0\" "
             "name=\"mixed\" xmlns:ssd=\"http://ssp-standard.org/SSP1/"
             "SystemStructureDescription\">\n<ssd:System name=\"mixed\"><ssd:Elements>\n"
             "<ssd:Component name=\"a\" source=\"%s\">%s</ssd:Component>\n"
             "<ssd:Component name=\"b\" source=\"%s\">%s</ssd:Component>\n"
             "</ssd:Elements></ssd:System>\n</ssd:SystemStructureDescription>\n",
             XL_NODE, connectors, NODE, connectors);
    char path[512];
    snprintf(path, sizeof path, "%s", tu_scratch("mixed.ssd"));
    tu_write_file(path, text);
    assert_int_equal(run_cli(path, "--step-size", "0.001", "--stop-time", "0.0035", "-q",
                             XL_SENDER("a"), "--can-bus", "can0=a.CAN,b.CAN", "--start-value",
                             "a.period", "0.01", "--start-value", "b.period", "0.01",
                             "--can-log", "failed.log", NULL),
                     1);
    expect_one_line_error("at t = 0.0029828 s: master: event iteration: 'b': b: variable "
                          "'CAN.Rx_Data': a Binary value of 2070 bytes is longer than its maxSize "
                          "48");
    /* what the bus carried up to the failure is kept in the log: the 0x0C8,
     * then the XL frame itself (it ended on the bus; b could not take it) in
     * can-utils' compact form VVPPP#FF:SS:AAAAAAAA#data: VCID 0x45, priority
     * 0x555, flags 0x80 (XLF), SDT 3, AF 0x12345678, its 2048 bytes */
    char *log = read_text("failed.log");
    const char *first = "(0000000000.001100) can0 0C8#\n",
               *second = "(0000000000.002983) can0 45555#80:03:12345678#01080F161D242B32";
    assert_memory_equal(log, first, strlen(first));
    const char *xl = log + strlen(first);
    assert_memory_equal(xl, second, strlen(second));
    const char *data = strrchr(xl, '#') + 1;
    assert_int_equal(strcspn(data, "\n"), 2 * 2048);
    assert_string_equal(data + 2 * 2048, "\n");
    free(log);
}

/* The same on `rtcosim events`' bus beside the engine ECU: b (Rx_Data of 48
 * bytes) cannot take a's 2048-byte XL frame; the run stops with one line,
 * and the sequential scheduler's log keeps what the bus carried: the
 * engine's 0x0C0 at 2.300 ms and the XL frame (0x555, the bytes 11 22 ..
 * 88 repeated) at 4.183 ms. A speculative run is taken back to what it
 * committed before the failure: its log is a prefix of that one. */
static void events_keep_the_frames_up_to_a_node_failure(void **state)
{
    (void)state;
    char a[1024], b[1024];
    snprintf(a, sizeof a, "a=%s,tx=0x555:2048:xl,can_id=1365,format=2,data_length=2048,"
             "offset=0.00206,period=0.01", XL_NODE);
    snprintf(b, sizeof b, "b=%s,tx=0x100:1,can_id=256,data_length=1,offset=1,period=1", NODE);
    assert_int_equal(events_cli("--ecus", "1", "--stop-time", "0.005", "--lsbus-node", a,
                                "--lsbus-node", b, "--can-log", "failed.log", NULL),
                     1);
    expect_one_line_error("lp 'b' at t=0.004182800 s: lsbus node 'b': b: variable 'CAN.Rx_Data': "
                          "a Binary value of 2070 bytes is longer than its maxSize 48");
    char *log = read_text("failed.log");
    const char *first = "(0000000000.002300) can0 0C0#840CE8130A000000\n",
               *second = "(0000000000.004183) can0 00555#80:00:00000000#";
    assert_memory_equal(log, first, strlen(first));
    const char *xl = log + strlen(first);
    assert_memory_equal(xl, second, strlen(second));
    const char *data = xl + strlen(second);
    static const char pattern[] = "1122334455667788";
    for (size_t i = 0; i < 2048; i++)
        assert_memory_equal(data + 2 * i, &pattern[2 * (i % 8)], 2);
    assert_string_equal(data + 2 * 2048, "\n");
    char *said = read_text("out.txt");
    expect_in(said, "can log     failed.log: 2 frames up to the failure");
    free(said);
    assert_int_equal(events_cli("--ecus", "1", "--stop-time", "0.005", "--scheduler",
                                "speculative", "--threads", "2", "--lsbus-node", a,
                                "--lsbus-node", b, "--can-log", "spec.log", NULL),
                     1);
    said = read_text("out.txt");
    expect_in(said, "frames up to the failure (those the speculative run committed)");
    free(said);
    char *spec = read_text("spec.log");
    assert_memory_equal(spec, log, strlen(spec));
    free(spec);
    free(log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_2048_byte_frame_crosses_the_integrated_bus),
        cmocka_unit_test(the_nodes_configure_the_xl_data_rate),
        cmocka_unit_test(a_node_whose_rx_data_is_too_small_is_named),
        cmocka_unit_test(events_keep_the_frames_up_to_a_node_failure),
    };
    return cmocka_run_group_tests(tests, tu_scratch_group_setup, tu_scratch_group_teardown);
}
