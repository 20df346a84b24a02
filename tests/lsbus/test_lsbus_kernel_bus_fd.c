/* CAN FD and XL through `rtcosim run --can-bus NAME=COMP.TERMINAL,...,ecus:1`:
 * LS-BUS node FMUs (LsBusNodeLarge) on the event kernel's bus beside the
 * example vehicle's engine ECU. The engine requests EngineData 0x0C0 at
 * 2.060 ms (120 bits with its stuff bits, 240 us at 500 kbit/s: see
 * test_lsbus_kernel_bus.c); node a requests a CAN FD 0x123 with 16 bytes
 * 11 22 .. 88 11 22 .. 88 and BRS at the same instant: 0x0C0 wins
 * (2.060 .. 2.300), the FD frame follows for 30 nominal bits at 2 us and
 * 161 data bits at 0.5 us (hand-counted in test_event_node_fd.c): 140.5 us,
 * 2.300 .. 2.4405 ms. Node b (which sends nothing before the stop time)
 * receives 0x0C0 and then the FD frame with its 16 bytes (sum 2 x 612 =
 * 1224); a gets its Confirm at 2.4405 ms. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lsbus_cli.h"
#include "util/test_util.h"

#define NODE_LARGE RTCOSIM_FMU_LSBUSNODELARGE_FMI3

static void an_fd_node_and_a_native_ecu_share_one_bus(void **state)
{
    (void)state;
    const char *ssd = write_ssd("fd.ssd", NODE_LARGE, ab, 2, NULL, "");
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.005", "-q",
                             "--can-bus", "can0=a.CAN,b.CAN,ecus:1", "--start-value", "a.can_id",
                             "291", "--start-value", "a.format", "1", "--start-value", "a.brs",
                             "1", "--start-value", "a.fd_bitrate", "2000000", "--start-value",
                             "a.data_length", "16", "--start-value", "a.offset", "0.00206",
                             "--start-value", "a.period", "0.01", "--start-value", "b.offset",
                             "1", "--output-variable", "a.confirms", "--output-variable",
                             "a.last_confirm_time", "--output-variable", "b.rx_frames",
                             "--output-variable", "b.last_rx_code", "--output-variable",
                             "b.last_rx_length", "--output-variable", "b.last_rx_sum",
                             "--output-variable", "b.last_rx_time", "-o", "fd.csv",
                             "--can-log", "fd.log", NULL),
                     0);
    /* candump -l as can-utils writes CAN FD: ID##<flags nibble, BRS 1><data>;
     * end times in microseconds, rounded */
    char *log = read_text("fd.log");
    assert_string_equal(log, "(0000000000.002300) can0 0C0#840CE8130A000000\n"
                             "(0000000000.002441) can0 123##111223344556677881122334455667788\n");
    free(log);
    /* the same node on `rtcosim events`' bus beside the same engine ECU */
    char node[1024];
    snprintf(node, sizeof node, "a=%s,tx=0x123:16:fd,can_id=291,format=1,brs=1,fd_bitrate=2000000,"
             "data_length=16,offset=0.00206,period=0.01", NODE_LARGE);
    assert_int_equal(events_cli("--ecus", "1", "--stop-time", "0.005", "--lsbus-node", node,
                                "--can-log", "events.log", NULL),
                     0);
    log = read_text("events.log");
    assert_string_equal(log, "(0000000000.002300) can0 0C0#840CE8130A000000\n"
                             "(0000000000.002441) can0 123##111223344556677881122334455667788\n");
    free(log);
    char *csv = read_text("fd.csv");
    /* the last row: a.confirms, a.last_confirm_time, b.rx_frames,
     * b.last_rx_code (0x11), b.last_rx_length, b.last_rx_sum, b.last_rx_time */
    expect_in(csv, "\n0.005,1,0.0024405,2,17,16,1224,0.0024405\n");
    free(csv);
    /* the bus's CAN FD data phase at 4 Mbit/s (--can-fd-bitrate, events'
     * --fd-bitrate), the node configuring the same: the FD frame's 161 data
     * bits take 40.25 us, 2.300 .. 2.40025 ms */
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.005", "-q",
                             "--can-bus", "can0=a.CAN,b.CAN,ecus:1", "--can-fd-bitrate",
                             "4000000", "--start-value", "a.can_id", "291", "--start-value",
                             "a.format", "1", "--start-value", "a.brs", "1", "--start-value",
                             "a.fd_bitrate", "4000000", "--start-value", "a.data_length", "16",
                             "--start-value", "a.offset", "0.00206", "--start-value", "a.period",
                             "0.01", "--start-value", "b.offset", "1", "--can-log", "fd4.log",
                             NULL),
                     0);
    const char *fast = "(0000000000.002300) can0 0C0#840CE8130A000000\n"
                       "(0000000000.002400) can0 123##111223344556677881122334455667788\n";
    log = read_text("fd4.log");
    assert_string_equal(log, fast);
    free(log);
    snprintf(node, sizeof node, "a=%s,tx=0x123:16:fd,can_id=291,format=1,brs=1,fd_bitrate=4000000,"
             "data_length=16,offset=0.00206,period=0.01", NODE_LARGE);
    assert_int_equal(events_cli("--ecus", "1", "--stop-time", "0.005", "--fd-bitrate", "4000000",
                                "--lsbus-node", node, "--can-log", "events4.log", NULL),
                     0);
    log = read_text("events4.log");
    assert_string_equal(log, fast);
    free(log);
    /* a node configuring another CAN FD data rate than the bus's */
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.004", "-q",
                             "--can-bus", "can0=a.CAN,b.CAN,ecus:1", "--start-value",
                             "a.fd_bitrate", "4000000", NULL),
                     1);
    expect_one_line_error("Tx_Data of a.CAN: configures CANFD_BAUDRATE 4000000 bit/s, but bus "
                          "'can0' runs its CAN FD data phase at 2000000 bit/s");
}

/* A CAN XL frame from a to b beside the engine: 0x123 with 64 bytes, 34
 * nominal bits (SOF..ADH 18 without stuff bits: no five equal bits in 0,
 * 001 0010 0011, 0, 0, 1, 1, 0, 1; DAH..intermission 16) at 2 us and 689
 * data bits (DH1, DH2, DL1 3, SDT..AF 76, data 512, FCRC 32, FCP 4, and 62
 * fixed stuff bits, one after each tenth of the 621 bits DL1..FCRC) at
 * 0.1 us (the default 10 Mbit/s): 68 + 68.9 = 136.9 us after 0x0C0,
 * 2.300 .. 2.4369 ms; b gets its 64 bytes (sum 8 x 612 = 4896). */
static void an_xl_node_and_a_native_ecu_share_one_bus(void **state)
{
    (void)state;
    const char *ssd = write_ssd("xl.ssd", NODE_LARGE, ab, 2, NULL, "");
    assert_int_equal(run_cli(ssd, "--step-size", "0.001", "--stop-time", "0.005", "-q",
                             "--can-bus", "can0=a.CAN,b.CAN,ecus:1", "--start-value", "a.can_id",
                             "291", "--start-value", "a.format", "2", "--start-value",
                             "a.data_length", "64", "--start-value", "a.offset", "0.00206",
                             "--start-value", "a.period", "0.01", "--start-value", "b.offset",
                             "1", "--output-variable", "a.confirms", "--output-variable",
                             "a.last_confirm_time", "--output-variable", "b.rx_frames",
                             "--output-variable", "b.last_rx_code", "--output-variable",
                             "b.last_rx_length", "--output-variable", "b.last_rx_sum",
                             "--output-variable", "b.last_rx_time", "-o", "xl.csv",
                             "--can-log", "xl.log", NULL),
                     0);
    /* can-utils' CAN XL line: VCID 00, priority 123, flags 80 (XLF), SDT 00,
     * AF 00000000, the data */
    char *log = read_text("xl.log");
    assert_string_equal(log, "(0000000000.002300) can0 0C0#840CE8130A000000\n"
                             "(0000000000.002437) can0 00123#80:00:00000000#"
                             "1122334455667788" "1122334455667788" "1122334455667788"
                             "1122334455667788" "1122334455667788" "1122334455667788"
                             "1122334455667788" "1122334455667788\n");
    free(log);
    char *csv = read_text("xl.csv");
    expect_in(csv, "\n0.005,1,0.0024369,2,18,64,4896,0.0024369\n");
    free(csv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(an_fd_node_and_a_native_ecu_share_one_bus),
        cmocka_unit_test(an_xl_node_and_a_native_ecu_share_one_bus),
    };
    return cmocka_run_group_tests(tests, tu_scratch_group_setup, tu_scratch_group_teardown);
}
