/* LS-BUS CAN nodes in systems, end to end through `rtcosim run` with the
 * project's LsBusNode and LsBusSimulation FMUs (models/), in the three
 * compositions of LS-BUS 1.0 section 3.2: direct communication, a
 * bus-simulation FMU, rtcosim's bus (--can-bus). Expected values are worked
 * out by hand:
 * - frame lengths with stuff bits (the counts of tests/lsbus/test_bridge.c):
 *   0x0C8 without data 50 bits, 0x123 with 11 22 .. 88 112 bits; at 500
 *   kbit/s 100 us and 224 us, at 250 kbit/s 200 and 448, at 125 kbit/s 400
 *   and 896;
 * - a node requests its frames at offset + k period (1 ms, 2 ms, ...), so two
 *   nodes requesting at 1 ms arbitrate and 0x0C8 wins (lower identifier):
 *   0x0C8 on the bus 1.0 .. 1.1 ms, 0x123 1.1 .. 1.324 ms; the receivers get
 *   the Transmit and the sender its Confirm at each frame's end. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "rtcosim_test_fmus.h"
#include "util/test_util.h"

#define NODE RTCOSIM_FMU_LSBUSNODE_FMI3
#define BUSSIM RTCOSIM_FMU_LSBUSSIMULATION_FMI3

/* rtcosim COMMAND with args (NULL-terminated) in the scratch directory;
 * stdout and stderr into out.txt and err.txt there; the exit code. */
static int spawn(const char *command, const char *first, va_list ap)
{
    const char *argv[64] = {RTCOSIM_CLI_PATH, command};
    int n = 2;
    for (const char *a = first; a && n < 62; a = va_arg(ap, const char *))
        argv[n++] = a;
    argv[n] = NULL;
    char dir[512];
    snprintf(dir, sizeof dir, "%s", tu_scratch(""));
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (chdir(dir) != 0)
            _exit(126);
        int fo = open("out.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open("err.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0)
            _exit(126);
        dup2(fo, 1);
        dup2(fe, 2);
        execv(RTCOSIM_CLI_PATH, (char *const *)argv);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    if (rc != 0) /* shown when the test fails */
        print_message("exit %d: %s", rc, tu_read_file(tu_scratch("err.txt"), NULL));
    return rc;
}

static int run_cli(const char *first, ...)
{
    va_list ap;
    va_start(ap, first);
    int rc = spawn("run", first, ap);
    va_end(ap);
    return rc;
}

static int can_cli(const char *first, ...)
{
    va_list ap;
    va_start(ap, first);
    int rc = spawn("can", first, ap);
    va_end(ap);
    return rc;
}

static char *read_text(const char *name)
{
    return strdup(tu_read_file(tu_scratch(name), NULL));
}

/* Fails showing the text when needle is not in it. */
static void expect_in(const char *text, const char *needle)
{
    if (!strstr(text, needle)) {
        print_error("expected\n%s\nin\n%s\n", needle, text);
        fail();
    }
}

/* One line of stderr, containing needle. */
static void expect_one_line_error(const char *needle)
{
    char *err = read_text("err.txt");
    expect_in(err, needle);
    assert_int_equal(strchr(err, '\n') - err + 1, (long)strlen(err));
    free(err);
}

static const char *const node_connectors =
    "<ssd:Connectors><ssd:Connector name=\"CAN.Tx_Data\" kind=\"output\"/>"
    "<ssd:Connector name=\"CAN.Tx_Clock\" kind=\"output\"/>"
    "<ssd:Connector name=\"CAN.Rx_Data\" kind=\"input\"/>"
    "<ssd:Connector name=\"CAN.Rx_Clock\" kind=\"input\"/></ssd:Connectors>";

/* A system of node FMUs names[0..n) (source node_fmu), optionally the bus
 * simulation "bus", and the given connections (SSD lines). */
static const char *write_ssd(const char *file, const char *node_fmu, const char *const *names,
                             int n, const char *bussim, const char *connections)
{
    static char text[16384];
    int used = snprintf(text, sizeof text,
                        "<?xml version=\"1.0\"?>\n<ssd:SystemStructureDescription version=\"1.0\" "
                        "name=\"lsbus\" xmlns:ssd=\"http://ssp-standard.org/SSP1/"
                        "SystemStructureDescription\">\n<ssd:System name=\"lsbus\"><ssd:Elements>\n");
    for (int i = 0; i < n; i++)
        used += snprintf(text + used, sizeof text - (size_t)used,
                         "<ssd:Component name=\"%s\" source=\"%s\">%s</ssd:Component>\n", names[i],
                         node_fmu, node_connectors);
    if (bussim) {
        used += snprintf(text + used, sizeof text - (size_t)used,
                         "<ssd:Component name=\"bus\" source=\"%s\"><ssd:Connectors>\n", bussim);
        /* an input countdown Tx_Clock starts connections: inout in SSP */
        const char *tx_clock_kind = strstr(bussim, "Countdown") ? "inout" : "output";
        for (int k = 1; k <= 3; k++)
            used += snprintf(text + used, sizeof text - (size_t)used,
                             "<ssd:Connector name=\"Node%d.Rx_Data\" kind=\"input\"/>"
                             "<ssd:Connector name=\"Node%d.Rx_Clock\" kind=\"input\"/>"
                             "<ssd:Connector name=\"Node%d.Tx_Data\" kind=\"output\"/>"
                             "<ssd:Connector name=\"Node%d.Tx_Clock\" kind=\"%s\"/>\n",
                             k, k, k, k, tx_clock_kind);
        used += snprintf(text + used, sizeof text - (size_t)used,
                         "</ssd:Connectors></ssd:Component>\n");
    }
    snprintf(text + used, sizeof text - (size_t)used,
             "</ssd:Elements><ssd:Connections>\n%s</ssd:Connections></ssd:System>\n"
             "</ssd:SystemStructureDescription>\n",
             connections);
    static char path[512]; /* one system at a time */
    snprintf(path, sizeof path, "%s", tu_scratch(file));
    tu_write_file(path, text);
    return path;
}

/* SSD lines connecting a node's Tx members to the peer's Rx members. */
static void connect(char *out, size_t size, const char *from, const char *from_prefix,
                    const char *to, const char *to_prefix)
{
    size_t used = strlen(out);
    snprintf(out + used, size - used,
             "<ssd:Connection startElement=\"%s\" startConnector=\"%sTx_Data\" endElement=\"%s\" "
             "endConnector=\"%sRx_Data\"/>\n"
             "<ssd:Connection startElement=\"%s\" startConnector=\"%sTx_Clock\" endElement=\"%s\" "
             "endConnector=\"%sRx_Clock\"/>\n",
             from, from_prefix, to, to_prefix, from, from_prefix, to, to_prefix);
}

static const char *const ab[] = {"a", "b"};

static const char *nodes_alone(void)
{
    return write_ssd("nodes.ssd", NODE, ab, 2, NULL, "");
}

static void integrated_bus_arbitrates_and_times_frames_by_their_stuffed_bits(void **state)
{
    (void)state;
    const char *ssd = nodes_alone();
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.0015", "-q",
                             "--can-bus", "can0=a.CAN,b.CAN", "--start-value", "b.can_id", "291",
                             "--start-value", "b.data_length", "8", "--output-file", "out.csv",
                             "--output-variable", "a.confirms", "--output-variable", "b.rx_frames",
                             "--output-variable", "b.confirms", "--output-variable", "a.rx_frames",
                             "--output-variable", "a.arbitration_lost", "--can-log", "bus.log",
                             NULL),
                     0);
    char *log = read_text("bus.log");
    assert_string_equal(log, "(0000000000.001100) can0 0C8#\n"
                             "(0000000000.001324) can0 123#1122334455667788\n");
    free(log);
    char *csv = read_text("out.csv");
    /* The rows before and after each event: 0x0C8's end brings a its
     * Confirm and b the frame, 0x123's end b its Confirm and a the frame;
     * b lost arbitration at 1 ms but buffers and retransmits (the default),
     * so no Arbitration Lost op. */
    expect_in(csv, "\n0.0011,0,0,0,0,0\n0.0011,1,1,0,0,0\n");
    expect_in(csv, "\n0.001324,1,1,0,0,0\n0.001324,1,1,1,1,0\n");
    free(csv);
    char *out = read_text("out.txt");
    /* the bus component, its four members connected to each node's terminal */
    expect_in(out, "system 'lsbus': 3 components, 0 connections (+8 Binary/Clock), H = 0.001 s");
    expect_in(out, "can bus can0: 500000 bit/s, 2 frames, 2 confirms, 0 arbitration lost, "
                   "0 bus errors, busy 0.000324 s\n");
    free(out);
    /* the log decodes with a DBC as rtcosim events' logs do: b's data bytes
     * 0x11 (factor 1) and 0x22 (factor 0.5) */
    tu_write_file(tu_scratch("n.dbc"), "VERSION \"\"\n\nBU_: A B\n\nBO_ 291 NodeB: 8 B\n"
                                      " SG_ b0 : 0|8@1+ (1,0) [0|255] \"\" A\n"
                                      " SG_ b1 : 8|8@1+ (0.5,0) [0|255] \"\" A\n");
    assert_int_equal(can_cli("decode", "bus.log", "--dbc", "n.dbc", "-o", "decoded.csv", NULL), 0);
    char *decoded = read_text("decoded.csv");
    assert_string_equal(decoded, "\"time\",\"can0.NodeB.b0\",\"can0.NodeB.b1\"\n0.001324,17,17\n");
    free(decoded);
}

static void bit_rate_is_the_nodes_or_the_command_lines(void **state)
{
    (void)state;
    const char *ssd = nodes_alone();
    /* both nodes configure 250 kbit/s (their Configuration op at t = 0):
     * 1.0 .. 1.2, 1.2 .. 1.648, 2.0 .. 2.2 ms; the second 0x123 would end at
     * 2.648 ms, after the stop time */
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.0025", "-q",
                             "--can-bus", "can0=a.CAN,b.CAN", "--start-value", "b.can_id", "291",
                             "--start-value", "b.data_length", "8", "--start-value", "a.bitrate",
                             "250000", "--start-value", "b.bitrate", "250000", "--can-log",
                             "bus.log", NULL),
                     0);
    char *log = read_text("bus.log");
    assert_string_equal(log, "(0000000000.001200) can0 0C8#\n"
                             "(0000000000.001648) can0 123#1122334455667788\n"
                             "(0000000000.002200) can0 0C8#\n");
    free(log);
    /* --can-bitrate over what they configure: 1.0 .. 1.4, 1.4 .. 2.296 ms;
     * the frames requested at 2 ms wait for the bus (0x0C8 until 2.696) */
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.0025", "-q",
                             "--can-bus", "can0=a.CAN,b.CAN", "--start-value", "b.can_id", "291",
                             "--start-value", "b.data_length", "8", "--can-bitrate", "125000",
                             "--can-log", "bus.log", NULL),
                     0);
    log = read_text("bus.log");
    assert_string_equal(log, "(0000000000.001400) can0 0C8#\n"
                             "(0000000000.002296) can0 123#1122334455667788\n");
    free(log);
    /* a node's Configuration and its first frame in one Tx_Data right after
     * initialization (offset 0): the rate applies before the frame starts,
     * 0x0C8 at 250 kbit/s lasts 0 .. 200 us */
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.0005", "-q",
                             "--can-bus", "can0=a.CAN,b.CAN", "--start-value", "a.offset", "0",
                             "--start-value", "a.bitrate", "250000", "--start-value", "b.bitrate",
                             "250000", "--can-log", "bus.log", NULL),
                     0);
    log = read_text("bus.log");
    assert_string_equal(log, "(0000000000.000200) can0 0C8#\n");
    free(log);
    /* nodes configuring different rates could not talk: one line naming them */
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.0015", "-q",
                             "--can-bus", "can0=a.CAN,b.CAN", "--start-value", "b.bitrate",
                             "250000", NULL),
                     1);
    expect_one_line_error("Tx_Data of b.CAN: LS-BUS bus 'can0': node 1 configures CAN_BAUDRATE "
                          "250000 bit/s but node 0 configured 500000 bit/s");
}

static void a_node_that_configured_discard_gets_arbitration_lost(void **state)
{
    (void)state;
    const char *ssd = nodes_alone();
    /* b (0x123) configured DISCARD_AND_NOTIFY loses to a (0x0C8) at 1 ms:
     * its frame is dropped, it gets Arbitration Lost; only 0x0C8 is on the
     * bus, and b, sending nothing, gets no Confirm. */
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.0015", "-q",
                             "--can-bus", "can0=a.CAN,b.CAN", "--start-value", "b.can_id", "291",
                             "--start-value", "b.arbitration_lost_behavior", "2",
                             "--output-variable", "b.arbitration_lost", "--output-variable",
                             "b.confirms", "--output-variable", "a.rx_frames", "--output-variable",
                             "a.confirms", "--can-log", "bus.log", NULL),
                     0);
    char *log = read_text("bus.log");
    assert_string_equal(log, "(0000000000.001100) can0 0C8#\n");
    free(log);
    char *out = read_text("out.txt");
    expect_in(out, "  b.arbitration_lost               1\n  b.confirms                       0\n"
                   "  a.rx_frames                      0\n  a.confirms                       1\n");
    free(out);
}

static void injected_errors_reach_every_node_and_the_frame_is_sent_again(void **state)
{
    (void)state;
    const char *ssd = nodes_alone();
    /* Every 2nd frame fails: 0x0C8 is delivered at 1.1 ms, 0x123 fails at
     * 1.324 ms (a Bus Error to both nodes) and goes again, 1.324 .. 1.548. */
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.0019", "-q",
                             "--can-bus", "can0=a.CAN,b.CAN", "--start-value", "b.can_id", "291",
                             "--start-value", "b.data_length", "8", "--can-error-every", "2",
                             "--output-variable", "a.bus_errors", "--output-variable",
                             "b.bus_errors", "--output-variable", "b.last_confirm_time",
                             "--can-log", "bus.log", NULL),
                     0);
    char *log = read_text("bus.log");
    assert_string_equal(log, "(0000000000.001100) can0 0C8#\n"
                             "(0000000000.001548) can0 123#1122334455667788\n");
    free(log);
    char *out = read_text("out.txt");
    expect_in(out, "  a.bus_errors                     1\n  b.bus_errors                     1\n"
                   "  b.last_confirm_time              0.001548\n");
    free(out);
}

/* One bus for an LS-BUS node FMU and the example vehicle's native engine
 * ECU (`ecus:1`: src/ecu with its plant, as `rtcosim events --ecus 1`).
 * The engine's control_1ms task (9000 cycles at 200 MHz: 45 us) runs at
 * every ms; its can_10ms task (released at 2, 12 ms; 3000 cycles: 15 us)
 * requests EngineData 0x0C0 at 2.060 and 12.060 ms, its status_100ms task
 * (at 5 ms; 4000 cycles: 20 us) EngineStatus 0x5C0 at 5.065 ms. Node a
 * sends 0x123 with 11 22 .. 88 at 2.060 and 12.060 ms (offset, period).
 * Frame lengths counted by hand (SOF to intermission, stuff bits over SOF
 * .. CRC with the frame's CRC-15; checked with an independent script):
 * 0C0#840CE8130A000000 111 + 9 = 120 bits (240 us at 500 kbit/s),
 * 123#1122334455667788 111 + 1 = 112 (224 us), 5C0#82000001 79 + 8 = 87
 * (174 us), 0C0#780CF3130B000001 111 + 7 = 118 (236 us). At 2.060 ms both
 * request: 0x0C0 wins arbitration (2.060 .. 2.300), 0x123 follows (.. 2.524);
 * 0x5C0 5.065 .. 5.239; at 12.060 again 0x0C0 (.. 12.296), 0x123 (.. 12.520).
 * a receives the engine's three frames and two Confirms. */
static void an_fmu_node_and_a_native_ecu_share_one_bus(void **state)
{
    (void)state;
    static const char *const a[] = {"a"};
    const char *ssd = write_ssd("one.ssd", NODE, a, 1, NULL, "");
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.013", "-q",
                             "--can-bus", "can0=a.CAN,ecus:1", "--start-value", "a.can_id", "291",
                             "--start-value", "a.data_length", "8", "--start-value", "a.offset",
                             "0.00206", "--start-value", "a.period", "0.01", "--output-variable",
                             "a.rx_frames", "--output-variable", "a.last_rx_time",
                             "--output-variable", "a.confirms", "--output-variable",
                             "a.last_confirm_time", "--can-log", "bus.log", NULL),
                     0);
    char *log = read_text("bus.log");
    assert_string_equal(log, "(0000000000.002300) can0 0C0#840CE8130A000000\n"
                             "(0000000000.002524) can0 123#1122334455667788\n"
                             "(0000000000.005239) can0 5C0#82000001\n"
                             "(0000000000.012296) can0 0C0#780CF3130B000001\n"
                             "(0000000000.012520) can0 123#1122334455667788\n");
    free(log);
    char *out = read_text("out.txt");
    expect_in(out, "  a.rx_frames                      3\n  a.last_rx_time                   "
                   "0.012296\n  a.confirms                       2\n  a.last_confirm_time    "
                   "          0.01252\n");
    expect_in(out, "can bus can0: 500000 bit/s (event kernel, with ECUs), 5 frames, 0 bus errors");
    free(out);
    /* Every 2nd frame started corrupted (CRC error), retransmitted: #1
     * 0x0C0 2.060 .. 2.300; #2 0x123 .. 2.524 fails, #3 again .. 2.748; #4
     * 0x5C0 5.065 .. 5.239 fails, #5 .. 5.413; #6 0x0C0 12.060 .. 12.296
     * fails and contends again with 0x123, wins: #7 .. 12.532; #8 0x123 ..
     * 12.756 fails, #9 .. 12.980. a gets a Bus Error for each of the four. */
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.013", "-q",
                             "--can-bus", "can0=a.CAN,ecus:1", "--start-value", "a.can_id", "291",
                             "--start-value", "a.data_length", "8", "--start-value", "a.offset",
                             "0.00206", "--start-value", "a.period", "0.01", "--can-error-every",
                             "2", "--output-variable", "a.bus_errors", "--can-log", "bus.log",
                             NULL),
                     0);
    log = read_text("bus.log");
    assert_string_equal(log, "(0000000000.002300) can0 0C0#840CE8130A000000\n"
                             "(0000000000.002748) can0 123#1122334455667788\n"
                             "(0000000000.005413) can0 5C0#82000001\n"
                             "(0000000000.012532) can0 0C0#780CF3130B000001\n"
                             "(0000000000.012980) can0 123#1122334455667788\n");
    free(log);
    out = read_text("out.txt");
    expect_in(out, "  a.bus_errors                     4\n");
    free(out);
    /* an op code LS-BUS 1.0 does not have (corrupt 2: 0x0777 after each
     * Transmit) is skipped with one warning naming the node; the frames go */
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.004", "-q",
                             "--can-bus", "can0=a.CAN,ecus:1", "--start-value", "a.corrupt", "2",
                             "--output-variable", "a.tx_frames", NULL),
                     0);
    char *warn = read_text("err.txt");
    assert_string_equal(warn, "[warning] can0: a.CAN sent op code 0x0777 (12 bytes), not a CAN "
                              "operation of LS-BUS 1.0: skipped (further ones too, silently)\n");
    free(warn);
    /* bad operations on that bus: one line naming the node */
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.004", "-q",
                             "--can-bus", "can0=a.CAN,ecus:1", "--start-value", "a.corrupt", "1",
                             NULL),
                     1);
    expect_one_line_error("'can0': Tx_Data of a.CAN: LS-BUS CAN Transmit (op code 0x0010) at "
                          "byte 0: length field 20 runs past the buffer (16 bytes left)");
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.004", "-q",
                             "--can-bus", "can0=a.CAN,ecus:1", "--start-value", "a.bitrate",
                             "250000", NULL),
                     1);
    expect_one_line_error("Tx_Data of a.CAN: configures CAN_BAUDRATE 250000 bit/s, but bus "
                          "'can0' runs at 500000 bit/s");
    /* bad node lists */
    assert_int_equal(run_cli(ssd, "--stop-time", "0.001", "--can-bus", "can0=a.CAN,ecus:0", NULL),
                     1);
    expect_one_line_error("--can-bus can0: 'ecus:0' needs ecus:N with N in 1..64");
    assert_int_equal(run_cli(ssd, "--stop-time", "0.001", "--can-bus", "can0=a.CAN,firmware:x",
                             NULL),
                     1);
    expect_one_line_error("--can-bus can0: 'firmware:x' needs firmware:ECU=ELF");
    assert_int_equal(run_cli(ssd, "--stop-time", "0.001", "--can-bus",
                             "can0=a.CAN,ecus:1,firmware:brake=x.elf", NULL),
                     1);
    expect_one_line_error("--can-bus can0: vehicle: no ECU named 'brake' to run firmware");
}

static void direct_communication_passes_frames_at_their_send_times(void **state)
{
    (void)state;
    char conns[2048] = "";
    connect(conns, sizeof conns, "a", "CAN.", "b", "CAN.");
    connect(conns, sizeof conns, "b", "CAN.", "a", "CAN.");
    const char *ssd = write_ssd("direct.ssd", NODE, ab, 2, NULL, conns);
    /* a sends at 1, 2 ms; b at 0.5, 1.5, 2.5 ms; no bus: no Confirm, no
     * delay; the peers' Configuration ops are not counted as unknown. */
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.0028", "-q",
                             "--event-mode-used", "--start-value", "b.offset", "0.0005",
                             "--output-variable", "a.rx_frames", "--output-variable",
                             "b.rx_frames", "--output-variable", "a.last_rx_time",
                             "--output-variable", "b.last_rx_time", "--output-variable",
                             "a.confirms", "--output-variable", "a.unknown_ops",
                             "--output-variable", "a.last_rx_id", NULL),
                     0);
    char *out = read_text("out.txt");
    expect_in(out, "  a.rx_frames                      3\n"
                   "  b.rx_frames                      2\n"
                   "  a.last_rx_time                   0.0025\n"
                   "  b.last_rx_time                   0.002\n"
                   "  a.confirms                       0\n"
                   "  a.unknown_ops                    0\n"
                   "  a.last_rx_id                     200\n");
    free(out);
}

static void a_bus_simulation_fmu_forwards_and_confirms(void **state)
{
    (void)state;
    static const char *const abc[] = {"a", "b", "c"};
    char conns[4096] = "";
    for (int k = 0; k < 3; k++) {
        char prefix[16];
        snprintf(prefix, sizeof prefix, "Node%d.", k + 1);
        connect(conns, sizeof conns, abc[k], "CAN.", "bus", prefix);
        connect(conns, sizeof conns, "bus", prefix, abc[k], "CAN.");
    }
    const char *ssd = write_ssd("bussim.ssd", NODE, abc, 3, BUSSIM, conns);
    /* a and b send at 1 and 2 ms, c at 1 ms (period 2 ms): at 1 ms each gets
     * the other two's frames and its own Confirm, at 2 ms a and b get each
     * other's and c both; 5 frames forwarded, 3 Configuration ops taken. */
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.0025", "-q",
                             "--event-mode-used", "--start-value", "b.can_id", "291",
                             "--start-value", "c.period", "0.002", "--output-variable",
                             "a.rx_frames", "--output-variable", "a.confirms",
                             "--output-variable", "b.rx_frames", "--output-variable", "c.rx_frames",
                             "--output-variable", "c.confirms", "--output-variable", "bus.forwarded",
                             "--output-variable", "bus.configurations", "--output-variable",
                             "c.last_rx_time", NULL),
                     0);
    char *out = read_text("out.txt");
    expect_in(out, "  a.rx_frames                      3\n"
                   "  a.confirms                       2\n"
                   "  b.rx_frames                      3\n"
                   "  c.rx_frames                      4\n"
                   "  c.confirms                       1\n"
                   "  bus.forwarded                    5\n"
                   "  bus.configurations               3\n"
                   "  c.last_rx_time                   0.002\n");
    free(out);
    /* With b's frames of 8 bytes a gets 16 + 24 + 12 = 52 bytes at 1 ms, more
     * than its Rx_Data's maxSize 48. */
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.0015", "-q",
                             "--event-mode-used", "--start-value", "b.data_length", "8", NULL),
                     1);
    expect_one_line_error("at t = 0.001 s: master: event iteration: 'a': a: variable 'CAN.Rx_Data': "
                          "a Binary value of 52 bytes is longer than its maxSize 48");
    /* The bus simulation wired to itself (Node1 <-> Node2): a frame from c
     * on Node3 goes round for ever, c getting it each round; the
     * iteration's bound names both. */
    char loop[4096] = "";
    connect(loop, sizeof loop, "c", "CAN.", "bus", "Node3.");
    connect(loop, sizeof loop, "bus", "Node3.", "c", "CAN.");
    connect(loop, sizeof loop, "bus", "Node1.", "bus", "Node2.");
    connect(loop, sizeof loop, "bus", "Node2.", "bus", "Node1.");
    static const char *const c_only[] = {"c"};
    ssd = write_ssd("loop.ssd", NODE, c_only, 1, BUSSIM, loop);
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.0015", "-q",
                             "--event-mode-used", NULL),
                     1);
    expect_one_line_error("at t = 0.001 s: master: event iteration did not settle after 100 "
                          "rounds: 'c', 'bus' kept changing");
}

/* The guides' kind of bus simulation: its Tx clocks are input countdown
 * clocks (delivery 100 us after the op arrived), connected to the nodes'
 * input Rx clocks; a warning per connection, both clocks tick when the
 * interval the FMU announced runs out. */
static void a_bus_simulations_countdown_clocks_tick_the_nodes_rx_clocks(void **state)
{
    (void)state;
    static const char *const abc[] = {"a", "b", "c"};
    char conns[4096] = "";
    for (int k = 0; k < 3; k++) {
        char prefix[16];
        snprintf(prefix, sizeof prefix, "Node%d.", k + 1);
        connect(conns, sizeof conns, abc[k], "CAN.", "bus", prefix);
        connect(conns, sizeof conns, "bus", prefix, abc[k], "CAN.");
    }
    const char *ssd = write_ssd("countdown.ssd", NODE, abc, 3, RTCOSIM_FMU_LSBUSSIMULATIONCOUNTDOWN_FMI3,
                                conns);
    /* sent at 1 ms (a, b, c) and 2 ms (a, b): delivered at 1.1 and 2.1 ms */
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.0025", "-q",
                             "--event-mode-used", "--start-value", "b.can_id", "291",
                             "--start-value", "c.period", "0.002", "--output-variable",
                             "a.rx_frames", "--output-variable", "a.confirms", "--output-variable",
                             "c.rx_frames", "--output-variable", "c.last_rx_time",
                             "--output-variable", "a.last_confirm_time", NULL),
                     0);
    char *out = read_text("out.txt");
    expect_in(out, "  a.rx_frames                      3\n"
                   "  a.confirms                       2\n"
                   "  c.rx_frames                      4\n"
                   "  c.last_rx_time                   0.0021\n"
                   "  a.last_confirm_time              0.0021\n");
    free(out);
    char *err = read_text("err.txt");
    expect_in(err, "connection bus.Node1.Tx_Clock -> a.CAN.Rx_Clock: input countdown clock "
                   "'bus.Node1.Tx_Clock' drives input clock 'a.CAN.Rx_Clock'");
    free(err);
}

static void bad_operations_are_one_line_errors_naming_the_fmu(void **state)
{
    (void)state;
    const char *ssd = nodes_alone();
    /* a Transmit whose length field runs past Tx_Data */
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.0015", "-q",
                             "--can-bus", "can0=a.CAN,b.CAN", "--start-value", "a.corrupt", "1",
                             NULL),
                     1);
    expect_one_line_error("at t = 0.001 s: master: event iteration: 'can0': Tx_Data of a.CAN: ");
    char *err = read_text("err.txt");
    expect_in(err, "CAN Transmit (op code 0x0010) at byte 0: length field 20 runs past the buffer");
    free(err);
    /* an unknown op code: a warning naming the node, answered with a Format
     * Error (counted by the node), the frame still delivered */
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.0015", "-q",
                             "--can-bus", "can0=a.CAN,b.CAN", "--start-value", "a.corrupt", "2",
                             "--output-variable", "a.unknown_ops", "--output-variable",
                             "b.rx_frames", NULL),
                     0);
    err = read_text("err.txt");
    expect_in(err, "can0: node 0 (a.CAN) sent op code 0x0777 (12 bytes), not a CAN operation");
    free(err);
    char *out = read_text("out.txt");
    expect_in(out, "  a.unknown_ops                    1\n  b.rx_frames                      1\n");
    free(out);
    char conns[2048] = "";
    connect(conns, sizeof conns, "a", "CAN.", "b", "CAN.");
    ssd = write_ssd("direct.ssd", NODE, ab, 2, NULL, conns);
    /* Binary and Clock connections without Event Mode */
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.0015", "-q", NULL), 1);
    expect_one_line_error("connection a.CAN.Tx_Data -> b.CAN.Rx_Data: Binary values pass only in "
                          "Event Mode, which 'a' does not use");
}

static void clocks_of_incompatible_kinds_are_refused_naming_both_ends(void **state)
{
    (void)state;
    /* LsBusNode with its input clock Rx_Clock declared countdown: an output
     * clock cannot tick it (FMI 3.0 section 2.2.8). */
    const char *fmu = tu_scratch("countdown.fmu");
    char md[512];
    snprintf(md, sizeof md, "%s", tu_scratch("modelDescription.xml"));
    tu_write_file(md, tu_read_file(RTCOSIM_FMU_LSBUSNODE_FMI3_DIR "/modelDescription.xml", NULL));
    tu_patch_file(md, "causality=\"input\" intervalVariability=\"triggered\"",
                  "causality=\"input\" intervalVariability=\"countdown\"");
    const char *bin = &RTCOSIM_FMU_LSBUSNODE_FMI3_BINARY[strlen(RTCOSIM_FMU_LSBUSNODE_FMI3_DIR) + 1];
    tu_entry entries[] = {{.name = "modelDescription.xml", .file = md},
                          {.name = bin, .file = RTCOSIM_FMU_LSBUSNODE_FMI3_BINARY}};
    tu_zip(fmu, entries, 2);
    char conns[2048] = "";
    connect(conns, sizeof conns, "a", "CAN.", "b", "CAN.");
    char fmu_path[512];
    snprintf(fmu_path, sizeof fmu_path, "%s", fmu);
    const char *ssd = write_ssd("kinds.ssd", fmu_path, ab, 2, NULL, conns);
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.0015", "-q",
                             "--event-mode-used", NULL),
                     1);
    expect_one_line_error("clocks of incompatible kinds: output clock 'a.CAN.Tx_Clock' (triggered) "
                          "cannot tick input clock 'b.CAN.Rx_Clock' (countdown");
}

/* Exported virtual ECUs are not always tidy (issue 25's lenient cases):
 * warnings, the run goes on; --strict refuses. */
static void an_empty_token_and_a_one_element_rx_array_are_warnings(void **state)
{
    (void)state;
    char conns[2048] = "";
    connect(conns, sizeof conns, "a", "CAN.", "b", "CAN.");
    connect(conns, sizeof conns, "b", "CAN.", "a", "CAN.");
    const char *ssd = write_ssd("token.ssd", RTCOSIM_FMU_LSBUSNODENOTOKEN_FMI3, ab, 2, NULL, conns);
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.0015", "-q",
                             "--event-mode-used", "--output-variable", "b.rx_frames", NULL),
                     0);
    char *err = read_text("err.txt");
    expect_in(err, "modelDescription.xml: fmiModelDescription has an empty instantiationToken "
                   "(FMI 3.0 section 2.4.1 asks for one): passed to the FMU as it is (accepted; "
                   "--strict refuses it)");
    free(err);
    char *out = read_text("out.txt");
    expect_in(out, "  b.rx_frames                      1\n");
    free(out);
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.0015", "-q",
                             "--event-mode-used", "--strict", NULL),
                     1);

    /* LsBusNode whose Rx_Data is declared <Dimension start="1"/>, connected
     * to the peer's scalar Tx_Data */
    char md[512];
    snprintf(md, sizeof md, "%s", tu_scratch("modelDescription.xml"));
    char *xml = strdup(tu_read_file(RTCOSIM_FMU_LSBUSNODE_FMI3_DIR "/modelDescription.xml", NULL));
    char *tag = strstr(xml, "<Binary name=\"CAN.Rx_Data\"");
    assert_non_null(tag);
    char *close = strchr(tag, '>');
    assert_non_null(close);
    assert_int_not_equal(close[-1], '/'); /* it has a Start child */
    char patched[16384];
    snprintf(patched, sizeof patched, "%.*s<Dimension start=\"1\"/>%s", (int)(close + 1 - xml),
             xml, close + 1);
    free(xml);
    tu_write_file(md, patched);
    char fmu[512];
    snprintf(fmu, sizeof fmu, "%s", tu_scratch("array.fmu"));
    const char *bin = &RTCOSIM_FMU_LSBUSNODE_FMI3_BINARY[strlen(RTCOSIM_FMU_LSBUSNODE_FMI3_DIR) + 1];
    tu_entry entries[] = {{.name = "modelDescription.xml", .file = md},
                          {.name = bin, .file = RTCOSIM_FMU_LSBUSNODE_FMI3_BINARY}};
    tu_zip(fmu, entries, 2);
    ssd = write_ssd("array.ssd", fmu, ab, 2, NULL, conns);
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.0015", "-q",
                             "--event-mode-used", "--output-variable", "b.rx_frames", NULL),
                     0);
    err = read_text("err.txt");
    expect_in(err, "variable 'CAN.Rx_Data': a Binary declared as a one-element array "
                   "(<Dimension start=\"1\"/>) is taken as a scalar (accepted; --strict refuses it)");
    free(err);
    out = read_text("out.txt");
    expect_in(out, "  b.rx_frames                      1\n");
    free(out);
}

/* Node a configured DISCARD_AND_NOTIFY on the event kernel's bus: at 2.060
 * and 12.060 ms its 0x123 and the engine's 0x0C0 contend, 0x0C0 wins (lower
 * identifier), a's frame is dropped and a gets an Arbitration Lost at the
 * winner's end (2.300, 12.296 ms: 120 and 118 bits); no 0x123 on the bus,
 * no Confirm, the engine's three frames received. */
static void a_discarding_node_gets_arbitration_lost_beside_an_ecu(void **state)
{
    (void)state;
    static const char *const a[] = {"a"};
    const char *ssd = write_ssd("one.ssd", NODE, a, 1, NULL, "");
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.013", "-q",
                             "--can-bus", "can0=a.CAN,ecus:1", "--start-value", "a.can_id", "291",
                             "--start-value", "a.data_length", "8", "--start-value", "a.offset",
                             "0.00206", "--start-value", "a.period", "0.01", "--start-value",
                             "a.arbitration_lost_behavior", "2", "--output-variable",
                             "a.arbitration_lost", "--output-variable", "a.confirms",
                             "--output-variable", "a.rx_frames", "-o", "al.csv", "--can-log",
                             "bus.log", NULL),
                     0);
    char *log = read_text("bus.log");
    assert_string_equal(log, "(0000000000.002300) can0 0C0#840CE8130A000000\n"
                             "(0000000000.005239) can0 5C0#82000001\n"
                             "(0000000000.012296) can0 0C0#780CF3130B000001\n");
    free(log);
    char *csv = read_text("al.csv");
    expect_in(csv, "\n0.0023,0,0,0\n0.0023,1,0,1\n");
    expect_in(csv, "\n0.012296,1,0,2\n0.012296,2,0,3\n");
    free(csv);
    /* the default (buffer and retransmit): 0x123 follows each 0x0C0 */
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.013", "-q",
                             "--can-bus", "can0=a.CAN,ecus:1", "--start-value", "a.can_id", "291",
                             "--start-value", "a.data_length", "8", "--start-value", "a.offset",
                             "0.00206", "--start-value", "a.period", "0.01", "--start-value",
                             "a.arbitration_lost_behavior", "1", "--output-variable",
                             "a.arbitration_lost", "--can-log", "bus.log", NULL),
                     0);
    log = read_text("bus.log");
    expect_in(log, "(0000000000.002300) can0 0C0#840CE8130A000000\n"
                   "(0000000000.002524) can0 123#1122334455667788\n");
    free(log);
    char *out = read_text("out.txt");
    expect_in(out, "  a.arbitration_lost               0\n");
    free(out);
}

/* The distinct times of a results CSV's rows, in order (at most max). */
static int row_times(const char *csv, double *times, int max)
{
    int n = 0;
    for (const char *p = strchr(csv, '\n'); p && p[1] && n < max; p = strchr(p + 1, '\n')) {
        double t = strtod(p + 1, NULL);
        if (n == 0 || t != times[n - 1])
            times[n++] = t;
    }
    return n;
}

/* Lookahead: the same system as above without arbitration trouble; macro
 * steps end only where node a has something (its own sends at 2.060 and
 * 12.060 ms, the frame ends 2.300, 2.524, 5.239, 12.296, 12.520 ms) and on
 * the 1 ms grid, not at the ECU's own events (task ends such as 1.045 ms,
 * which --can-no-lookahead still stops at); the frames and a's values are
 * the same either way. */
static void macro_steps_cross_the_ecus_events_that_bring_the_nodes_nothing(void **state)
{
    (void)state;
    static const char *const a[] = {"a"};
    const char *ssd = write_ssd("one.ssd", NODE, a, 1, NULL, "");
    char *logs[2], *csvs[2];
    for (int k = 0; k < 2; k++) {
        assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.013", "-q",
                                 "--can-bus", "can0=a.CAN,ecus:1", "--start-value", "a.can_id",
                                 "291", "--start-value", "a.data_length", "8", "--start-value",
                                 "a.offset", "0.00206", "--start-value", "a.period", "0.01",
                                 "--output-variable", "a.rx_frames", "--output-variable",
                                 "a.confirms", "--output-variable", "a.tx_frames", "-o", "la.csv",
                                 "--can-log", "bus.log", k ? "--can-no-lookahead" : NULL, NULL),
                         0);
        logs[k] = read_text("bus.log");
        csvs[k] = read_text("la.csv");
    }
    assert_string_equal(logs[0], logs[1]);
    assert_string_equal(logs[0], "(0000000000.002300) can0 0C0#840CE8130A000000\n"
                                 "(0000000000.002524) can0 123#1122334455667788\n"
                                 "(0000000000.005239) can0 5C0#82000001\n"
                                 "(0000000000.012296) can0 0C0#780CF3130B000001\n"
                                 "(0000000000.012520) can0 123#1122334455667788\n");
    double times[256], expected[32];
    int n = row_times(csvs[0], times, 256), m = 0;
    static const double extra[] = {0.00206, 0.0023, 0.002524, 0.005239, 0.01206, 0.012296,
                                   0.01252};
    for (int ms = 0, e = 0; ms <= 13; ms++) {
        while (e < 7 && extra[e] < ms * 1e-3)
            expected[m++] = extra[e++];
        expected[m++] = ms * 1e-3;
    }
    assert_int_equal(n, m);
    for (int i = 0; i < n; i++)
        assert_true(times[i] > expected[i] - 1e-12 && times[i] < expected[i] + 1e-12);
    expect_in(csvs[1], "\n0.001045,");
    assert_null(strstr(csvs[0], "\n0.001045,"));
    /* the rows at the lookahead run's times are in the other run too */
    for (const char *p = strchr(csvs[0], '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
        size_t len = strcspn(p + 1, "\n");
        char row[128];
        snprintf(row, sizeof row, "\n%.*s\n", (int)len, p + 1);
        expect_in(csvs[1], row);
    }
    for (int k = 0; k < 2; k++) {
        free(logs[k]);
        free(csvs[k]);
    }
}

/* The frames of the first test, in a paced run on the virtual clock: the
 * bus steps inside the real-time part's master on the paced thread, each
 * 1 ms frame carries the bus events inside it, so the log holds the same
 * hand-counted ends (k + 0.100 ms for 0x0C8, 50 bits; k + 0.324 ms for
 * 0x123, 112 bits, after it) and each results row (a frame's start) the
 * Confirms and receptions of the frames that ended before it. */
static void a_paced_real_time_run_carries_the_frames_at_their_stuffed_times(void **state)
{
    (void)state;
    const char *ssd = nodes_alone();
    assert_int_equal(run_cli(ssd, "--real-time", "--virtual-clock", "--step-size", "0.001",
                             "--stop-time", "0.004", "-q", "--can-bus", "can0=a.CAN,b.CAN",
                             "--start-value", "b.can_id", "291", "--start-value",
                             "b.data_length", "8", "--can-log", "rt.log", "--rt-report", "rep",
                             "--output-file", "rt.csv", "--output-variable", "a.confirms",
                             "--output-variable", "b.rx_frames", "--output-variable",
                             "b.confirms", "--output-variable", "a.rx_frames", NULL),
                     0);
    const char *frames = "(0000000000.001100) can0 0C8#\n"
                         "(0000000000.001324) can0 123#1122334455667788\n"
                         "(0000000000.002100) can0 0C8#\n"
                         "(0000000000.002324) can0 123#1122334455667788\n"
                         "(0000000000.003100) can0 0C8#\n"
                         "(0000000000.003324) can0 123#1122334455667788\n";
    char *log = read_text("rt.log");
    assert_string_equal(log, frames);
    free(log);
    log = read_text("rep/can_can0.log"); /* the real-time report has them too */
    assert_string_equal(log, frames);
    free(log);
    char *csv = read_text("rt.csv");
    assert_string_equal(csv, "\"time\",\"a.confirms\",\"b.rx_frames\",\"b.confirms\","
                             "\"a.rx_frames\"\n0,0,0,0,0\n0.001,0,0,0,0\n0.002,1,1,1,1\n"
                             "0.003,2,2,2,2\n0.004,3,3,3,3\n");
    free(csv);
    char *out = read_text("out.txt");
    expect_in(out, "real-time run: 4 frames of 1.000 ms");
    expect_in(out, "can bus can0: 500000 bit/s, 6 frames, 6 confirms, 0 arbitration lost, "
                   "0 bus errors, busy 0.000972 s\n");
    free(out);
#ifdef RTCOSIM_ALLOC_COUNT
    /* Nothing allocated per frame outside the FMUs (the project's FMU kit
     * copies each new Binary value): 4 frames and 400 frames (798 CAN
     * frames more) allocate alike. */
    unsigned long counts[2];
    const char *stops[2] = {"0.004", "0.4"};
    for (int k = 0; k < 2; k++) {
        setenv("LD_PRELOAD", RTCOSIM_ALLOC_COUNT, 1);
        int rc = run_cli(ssd, "--real-time", "--virtual-clock", "--step-size", "0.001",
                         "--stop-time", stops[k], "-q", "--can-bus", "can0=a.CAN,b.CAN",
                         "--start-value", "b.can_id", "291", "--can-log", "rt.log", NULL);
        unsetenv("LD_PRELOAD");
        assert_int_equal(rc, 0);
        char *err = read_text("err.txt");
        const char *at = strstr(err, "allocations ");
        assert_non_null(at);
        counts[k] = strtoul(at + 12, NULL, 10);
        free(err);
    }
    print_message("allocations outside FMUs: %lu (4 frames), %lu (400 frames)\n", counts[0],
                  counts[1]);
    assert_true(counts[1] < counts[0] + 40);
#endif
    /* Only FMU nodes run paced, all of them in the real-time part. */
    assert_int_equal(run_cli(ssd, "--real-time", "--virtual-clock", "--step-size", "0.001",
                             "--stop-time", "0.004", "-q", "--can-bus", "can0=a.CAN,ecus:1", NULL),
                     1);
    expect_one_line_error("--can-bus can0: native and firmware ECUs (ecus:, firmware:) cannot be "
                          "combined with --real-time");
    assert_int_equal(run_cli(ssd, "--real-time", "--virtual-clock", "--step-size", "0.001",
                             "--stop-time", "0.004", "-q", "--can-bus", "can0=a.CAN,b.CAN",
                             "--non-realtime", "b", NULL),
                     1);
    expect_one_line_error("--can-bus can0: node 'b' is in a non-real-time part");
    assert_int_equal(run_cli(ssd, "--real-time", "--virtual-clock", "--step-size", "0.001",
                             "--stop-time", "0.004", "-q", "--can-bus", "can0=a.CAN,x.CAN", NULL),
                     1);
    expect_one_line_error("--can-bus can0: no component 'x' in the real-time part");
}

static void can_bus_options_are_checked(void **state)
{
    (void)state;
    const char *ssd = nodes_alone();
    assert_int_equal(run_cli(ssd, "--can-bus", "can0", NULL), 2);
    expect_one_line_error("--can-bus needs NAME=NODE[,NODE...] (COMP.TERMINAL, ecus:N, "
                          "firmware:ECU=ELF), not 'can0'");
    assert_int_equal(run_cli(ssd, "--stop-time", "0.001", "--step-size", "0.001", "-q",
                             "--can-bus", "can0=a.LIN", NULL),
                     1);
    expect_one_line_error("--can-bus: 'a' has no terminal 'LIN'");
    assert_int_equal(run_cli(ssd, "--stop-time", "0.001", "--step-size", "0.001", "-q",
                             "--can-bus", "can0=x.CAN", NULL),
                     1);
    expect_one_line_error("--can-bus can0: no component 'x'");
    assert_int_equal(run_cli(ssd, "--can-bitrate", "10", "--can-bus", "can0=a.CAN", NULL), 2);
    expect_one_line_error("--can-bitrate: 10 bit/s is below 1000");
    assert_int_equal(run_cli(ssd, "--stop-time", "0.001", "--step-size", "0.001", "-q",
                             "--real-time", "--virtual-clock", "--can-no-lookahead", NULL),
                     1);
    expect_one_line_error("--can-no-lookahead and --can-log need --can-bus");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(integrated_bus_arbitrates_and_times_frames_by_their_stuffed_bits),
        cmocka_unit_test(bit_rate_is_the_nodes_or_the_command_lines),
        cmocka_unit_test(a_node_that_configured_discard_gets_arbitration_lost),
        cmocka_unit_test(injected_errors_reach_every_node_and_the_frame_is_sent_again),
        cmocka_unit_test(an_fmu_node_and_a_native_ecu_share_one_bus),
        cmocka_unit_test(direct_communication_passes_frames_at_their_send_times),
        cmocka_unit_test(a_bus_simulation_fmu_forwards_and_confirms),
        cmocka_unit_test(a_bus_simulations_countdown_clocks_tick_the_nodes_rx_clocks),
        cmocka_unit_test(bad_operations_are_one_line_errors_naming_the_fmu),
        cmocka_unit_test(clocks_of_incompatible_kinds_are_refused_naming_both_ends),
        cmocka_unit_test(an_empty_token_and_a_one_element_rx_array_are_warnings),
        cmocka_unit_test(a_discarding_node_gets_arbitration_lost_beside_an_ecu),
        cmocka_unit_test(macro_steps_cross_the_ecus_events_that_bring_the_nodes_nothing),
        cmocka_unit_test(a_paced_real_time_run_carries_the_frames_at_their_stuffed_times),
        cmocka_unit_test(can_bus_options_are_checked),
    };
    return cmocka_run_group_tests(tests, tu_scratch_group_setup, tu_scratch_group_teardown);
}
