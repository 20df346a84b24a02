/* `rtcosim events [SYSTEM] [options]`: run the example vehicle (or a vehicle
 * described by a system file) on the parallel event kernel and print a
 * summary: events, simulated seconds per wall second, bus load, frames. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../examples/ecus/vehicle.h"
#include "cli.h"
#include "rtcosim/events.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rtcosim events [SYSTEM.ini] [options]\n"
            "  Runs ECU emulators, their plants and a CAN bus on the event kernel. Without\n"
            "  SYSTEM, the built-in example vehicle.\n"
            "  --scheduler S      sequential | conservative | global | lockstep (default conservative)\n"
            "  --threads N        worker threads of the conservative scheduler (default 2)\n"
            "  --stop-time T      simulated seconds (default 10)\n"
            "  --ecus N           number of ECUs of the example vehicle (default 4)\n"
            "  --plants MODE      active | passive (default active)\n"
            "  --stuffing MODE    actual | worst-case bit stuffing (default actual)\n"
            "  --bitrate B        CAN bit rate in bit/s (default 500000)\n"
            "  --can-log FILE     write every frame, candump style\n"
            "  --firmware ECU=ELF run ECU on an emulated Cortex-M4 with its firmware instead of\n"
            "                     task functions (only 'engine': build/examples/firmware/engine.elf)\n"
            "  --rounds           conservative scheduler in barrier rounds instead of channel clocks\n"
            "  --no-null-messages global scheduler without null messages (may deadlock)\n");
}

static int parse_uint(const char *text, unsigned long max, unsigned long *out)
{
    char *end;
    if (!text || !*text || *text == '-')
        return -1;
    unsigned long v = strtoul(text, &end, 10);
    if (*end || v > max)
        return -1;
    *out = v;
    return 0;
}

static int run_events(int argc, char **argv)
{
    rtcosim_ecu_vehicle_config vc = {.ecus = 4};
    rtcosim_run_options ro = {.scheduler = RTCOSIM_SCHEDULER_CONSERVATIVE, .threads = 2,
                              .stop_time = 10 * RTCOSIM_NS_PER_S};
    const char *can_log = NULL, *system = NULL;
    char firmware_ecu[64];
    rtcosim_error err = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        unsigned long n;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(a, "--no-null-messages") == 0) {
            ro.no_null_messages = true;
            continue;
        }
        if (strcmp(a, "--rounds") == 0) {
            ro.conservative_rounds = true;
            continue;
        }
        if (a[0] != '-') {
            if (system)
                return cli_fail("events: more than one system file ('%s', '%s')", system, a);
            system = a;
            continue;
        }
        if (!v)
            return cli_fail("events: option %s needs a value", a);
        i++;
        if (strcmp(a, "--scheduler") == 0) {
            if (rtcosim_scheduler_parse(v, &ro.scheduler) != 0)
                return cli_fail("events: unknown scheduler '%s' (sequential, conservative,"
                                " global, lockstep)", v);
        } else if (strcmp(a, "--threads") == 0) {
            if (parse_uint(v, 256, &n) != 0 || n == 0)
                return cli_fail("events: --threads needs a number in 1..256, got '%s'", v);
            ro.threads = (unsigned)n;
        } else if (strcmp(a, "--stop-time") == 0) {
            if (rtcosim_time_parse_seconds(v, &ro.stop_time, &err) != RTCOSIM_OK)
                return cli_fail("events: --stop-time: %s", err.message);
            if (ro.stop_time <= 0)
                return cli_fail("events: --stop-time must be positive, got '%s'", v);
        } else if (strcmp(a, "--ecus") == 0) {
            if (parse_uint(v, 64, &n) != 0 || n == 0)
                return cli_fail("events: --ecus needs a number in 1..64, got '%s'", v);
            vc.ecus = (unsigned)n;
        } else if (strcmp(a, "--plants") == 0) {
            if (strcmp(v, "active") == 0)
                vc.plant_mode = RTCOSIM_PLANT_ACTIVE;
            else if (strcmp(v, "passive") == 0)
                vc.plant_mode = RTCOSIM_PLANT_PASSIVE;
            else
                return cli_fail("events: --plants is active or passive, got '%s'", v);
        } else if (strcmp(a, "--stuffing") == 0) {
            if (strcmp(v, "actual") == 0)
                vc.stuffing = RTCOSIM_CAN_STUFFING_ACTUAL;
            else if (strcmp(v, "worst-case") == 0)
                vc.stuffing = RTCOSIM_CAN_STUFFING_WORST_CASE;
            else
                return cli_fail("events: --stuffing is actual or worst-case, got '%s'", v);
        } else if (strcmp(a, "--bitrate") == 0) {
            if (parse_uint(v, 1000000, &n) != 0 || n == 0)
                return cli_fail("events: --bitrate needs a number in 1..1000000, got '%s'", v);
            vc.bitrate = (uint32_t)n;
        } else if (strcmp(a, "--can-log") == 0) {
            can_log = v;
        } else if (strcmp(a, "--firmware") == 0) {
            const char *eq = strchr(v, '=');
            if (!eq || eq == v || !eq[1])
                return cli_fail("events: --firmware needs ECU=PATH.elf, got '%s'", v);
            snprintf(firmware_ecu, sizeof firmware_ecu, "%.*s", (int)(eq - v), v);
            vc.firmware_ecu = firmware_ecu;
            vc.firmware_path = eq + 1;
        } else {
            return cli_fail("events: unknown option '%s' (see rtcosim events --help)", a);
        }
    }
    if (system && rtcosim_ecu_vehicle_load(system, &vc, &ro, &err) != RTCOSIM_OK)
        return cli_fail_error(&err);
    vc.log_frames = can_log != NULL;
    rtcosim_events *sim = NULL;
    rtcosim_ecu_vehicle *vehicle = NULL;
    rtcosim_run_stats stats;
    int rc = 0;
    if (rtcosim_events_create(&sim, &err) != RTCOSIM_OK ||
        rtcosim_ecu_vehicle_build(sim, &vc, &vehicle, &err) != RTCOSIM_OK ||
        rtcosim_events_run(sim, &ro, &stats, &err) != RTCOSIM_OK ||
        (can_log && rtcosim_can_bus_write_log(rtcosim_ecu_vehicle_bus(vehicle), can_log, &err) !=
                        RTCOSIM_OK)) {
        rc = cli_fail_error(&err);
        goto done;
    }
    double sim_s = rtcosim_time_to_seconds(ro.stop_time - ro.start_time);
    rtcosim_can_bus_stats bs;
    rtcosim_can_bus_stats_get(rtcosim_ecu_vehicle_bus(vehicle), ro.stop_time - ro.start_time, &bs);
    printf("vehicle: %zu ECUs, scheduler %s", rtcosim_ecu_vehicle_ecu_count(vehicle),
           rtcosim_scheduler_name(ro.scheduler));
    if (ro.scheduler == RTCOSIM_SCHEDULER_CONSERVATIVE)
        printf(" (%u threads)", ro.threads);
    printf(", %.6g s simulated\n", sim_s);
    printf("events      %" PRIu64 " in %.3f s wall (%.3g events/s), %" PRIu64 " rounds\n",
           stats.events, stats.wall_s, (double)stats.events / stats.wall_s, stats.rounds);
    printf("speed       %.2f simulated s per wall s\n", sim_s / stats.wall_s);
    printf("can bus     %" PRIu64 " frames, load %.1f %%, longest queue %" PRIu32
           ", worst latency %.1f us, lookahead %.1f us%s\n",
           bs.frames, 100.0 * bs.load, bs.max_queue, (double)bs.max_latency_ns / 1e3,
           (double)rtcosim_can_bus_min_frame_time(rtcosim_ecu_vehicle_bus(vehicle)) / 1e3,
           bs.overloaded ? " (OVERLOADED)" : "");
    for (size_t i = 0; i < rtcosim_ecu_vehicle_ecu_count(vehicle); i++) {
        rtcosim_ecu *e = rtcosim_ecu_vehicle_ecu(vehicle, i);
        rtcosim_ecu_stats es;
        rtcosim_ecu_stats_get(e, &es);
        printf("ecu %-14s jobs %8" PRIu64 ", core load %5.1f %%, response delay %.1f us,"
               " frames tx %" PRIu64 " rx %" PRIu64 "\n",
               rtcosim_ecu_name(e), es.jobs, 100.0 * (double)es.busy_ns / (sim_s * 1e9),
               (double)rtcosim_ecu_response_delay(e) / 1e3, es.frames_sent, es.frames_received);
    }
    printf("checksum    %016" PRIx64 "\n", rtcosim_ecu_vehicle_checksum(vehicle));
done:
    rtcosim_ecu_vehicle_free(vehicle);
    rtcosim_events_free(sim);
    return rc;
}

const rtcosim_cli_command rtcosim_cli_cmd_events = {
    "events", "run ECU emulators, plants and a CAN bus on the parallel event kernel", run_events};
