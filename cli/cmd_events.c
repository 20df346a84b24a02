/* `rtcosim events [SYSTEM] [options]`: run the example vehicle (or a vehicle
 * described by a system file) on the parallel event kernel and print a
 * summary: events, simulated seconds per wall second, bus load, frames. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../examples/ecus/vehicle.h"
#include "can_replay.h"
#include "cli.h"
#include "rtcosim/can_log.h"
#include "events_board.h"
#include "events_lsbus.h"
#include "progress.h"
#include "run_serve.h"
#include "signals.h"
#include "rtcosim/events.h"
#include "rtcosim/events_dist.h"
#include "rtcosim/mpi.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rtcosim events [SYSTEM.ini] [options]\n"
            "  Runs ECU emulators, their plants and a CAN bus on the event kernel. Without\n"
            "  SYSTEM, the built-in example vehicle; options given here override the\n"
            "  SYSTEM file's settings.\n"
            "  --scheduler S      sequential | conservative | global | lockstep | speculative\n"
            "                     (default conservative; speculative places each plant on its\n"
            "                     ECU's thread, conservative the ECU network with the bus)\n"
            "  --threads N        worker threads of the conservative and speculative schedulers\n"
            "                     (default 2)\n"
            "  --max-ahead T      speculative: simulated seconds an LP may run past GVT\n"
            "                     (default: adapted during the run from 256 x the smallest\n"
            "                     lookahead, up to 16 times that, as waits and rollbacks say)\n"
            "  --threshold Tc     speculative: cumulative prediction error accepted without a\n"
            "                     rollback to the late event (default 0: exact, bit-identical)\n"
            "  --correction-capacity T  speculative: after a partial rollback, take the kept\n"
            "                     events' prediction error E back by at most T per event (as\n"
            "                     many as |E|/T needs, then the rest; default: mirrored)\n"
            "  --checkpoint-interval K  speculative: save an LP's state before every K-th event,\n"
            "                     rebuild the states between by re-execution (default: 1 for\n"
            "                     states up to 128 bytes; larger ones start at 4 and adapt\n"
            "                     per LP between 1 and 32 to how often it rolls back)\n"
            "  --cancellation M   speculative: lazy (default: what an undone event sent waits\n"
            "                     until it runs again; sends it repeats stand) or aggressive\n"
            "                     (cancelled when undone); the same results either way\n"
            "  --speculate-stats FILE  speculative: per-LP statistics as CSV\n"
            "  --reference        speculative: also run conservatively and compare the results\n"
            "  --stop-time T      simulated seconds (default 10)\n"
            "  --ecus N           number of ECUs of the example vehicle (default 4)\n"
            "  --plants MODE      active | passive (default active)\n"
            "  --stuffing MODE    actual | worst-case bit stuffing (default actual)\n"
            "  --bitrate B        CAN bit rate in bit/s (default 500000)\n"
            "  --fd-bitrate B     CAN FD data phase (BRS) bit rate (default 2000000)\n"
            "  --xl-bitrate B     CAN XL data phase bit rate (default 10000000)\n"
            "  -o, --can-log FILE write every frame: candump -l, Vector ASC for a .asc name,\n"
            "                     Vector BLF for a .blf name, an ASAM MDF 4 bus log for .mf4,\n"
            "                     PEAK TRC 2.1 for .trc; written while the run goes, each\n"
            "                     frame once the run has committed it (memory stays bounded\n"
            "                     however long the run; MDF holds up to 1 MiB of records)\n"
            "                     (under mpirun the rank that runs the bus writes it after\n"
            "                     the run, from memory)\n"
            "  --dbc-out FILE     write the CAN database of the vehicle as it runs: vehicle.dbc\n"
            "                     with the messages of each group of four ECUs (engine1, ...)\n"
            "                     at their ids + the group, named EngineData1, ..., as they\n"
            "                     go on the bus (to decode a --can-log of more than 4 ECUs)\n"
            "  --can-replay LOG[@BUS]  play a recorded CAN log (candump -l, ASC, BLF, PEAK\n"
            "                     TRC or an MDF 4 bus log; BUS: which of its buses, e.g. can1)\n"
            "                     onto the bus as one more node: each frame ends where the log\n"
            "                     says on an idle bus (ASC, BLF and MDF times count from their\n"
            "                     start, candump -l and TRC with a start time from the whole\n"
            "                     second of its first frame); the ECUs receive it\n"
            "  --lsbus-node NAME=FMU[,key=value...]  an LS-BUS CAN node FMU (FMI 3.0, Event\n"
            "                     Mode) as an LP on the same bus (repeatable): tx=ID:DLC a frame\n"
            "                     it sends (repeatable, needed; tx=ID:LENGTH:fd a CAN FD frame,\n"
            "                     tx=ID:LENGTH:xl a CAN XL one), delay=T its lookahead to the\n"
            "                     bus (default 0), step=T its step grid while it announces\n"
            "                     no event time (default: its DefaultExperiment stepSize; 0\n"
            "                     none), terminal=NAME (default CAN), interface=se\n"
            "                     for an FMU in scheduled execution (Rx_Clock a triggered\n"
            "                     input clock, its partitions run at its own clocks' ticks and\n"
            "                     at each frame), any other key a start value; it receives\n"
            "                     every frame, a Confirm of each\n"
            "                     of its own and a Bus Error for each injected error\n"
            "  --can-error-every N  corrupt every N-th frame on the bus (error injection): it\n"
            "                     reaches no receiver and is retransmitted; LS-BUS nodes get a\n"
            "                     Bus Error operation at its end (default 0: none)\n"
            "  --can-error-code C the kind of injected error, LS-BUS 1.0 Bus Error codes: 1 bit,\n"
            "                     2 stuff, 3 form, 4 CRC (default), 5 ACK, 6 broken error frame\n"
            "  --firmware ECU=ELF run ECU on an emulated Cortex-M4 with its firmware instead of\n"
            "                     task functions (only 'engine': build/examples/firmware/engine.elf)\n"
            "  --sil ECU=PATH.so  run ECU's code from application C built for the host as a\n"
            "                     shared object (software in the loop; rtcosim/ecu_so.h):\n"
            "                     functions named like its tasks and interrupts, state in its\n"
            "                     globals, captured by rtcosim (repeatable; see\n"
            "                     examples/ecus/README.md)\n"
            "  --board-ecu NAME=BOARD:ELF[,uart=FILE][,period=T]  firmware for a real board\n"
            "                     (mps2-an386, as `rtcosim firmware run`) as an LP beside the\n"
            "                     vehicle (repeatable): every T (default 1 ms) it runs the board\n"
            "                     to that time and samples UART0 and the FPGA LEDs; the summary\n"
            "                     gives both and a checksum, uart= writes UART0's bytes to FILE.\n"
            "                     No CAN bridge; no state saving, so the speculative scheduler\n"
            "                     runs it conservatively\n"
            "  --rounds           conservative scheduler in barrier rounds instead of channel clocks\n"
            "  -q, --quiet        no progress line (shown on a terminal: percent of the simulated\n"
            "                     interval, speed, estimated time left)\n"
            "  --no-null-messages global scheduler without null messages (may deadlock)\n"
            "  --place LP=RANK    under mpirun: run LP (and its group) on RANK (repeatable)\n"
            "  --sync MODE        under mpirun: how the ranks synchronize, reduction (windows\n"
            "                     from an MPI reduction of earliest times, the default) or null\n"
            "                     (Chandy-Misra-Bryant null messages with the per-link lookaheads)\n"
            "Under `mpirun -np N` the LPs are spread over the N ranks (blocks of LPs, an ECU\n"
            "with its plant), ranks synchronize conservatively; each rank runs its LPs on\n"
            "--threads threads (default 1 under mpirun); rank 0 prints the results, identical\n"
            "to the single-process run (same checksum) for any ranks, threads and --sync.\n"
            "Ctrl-C (SIGINT) or SIGTERM ends the run early: the summary and --can-log cover\n"
            "the run so far (a frame on the wire then ends up to one frame time after the\n"
            "time named; the log is a finished file of its format, as after a model's\n"
            "failure), exit 130 or 143; a second signal exits at once.\n");
    cli_serve_usage(out);
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

/* Per-LP table of the speculative run, and the CSV when asked. */
static int report_speculation(const rtcosim_events *sim, const rtcosim_run_stats *stats,
                              const char *csv)
{
    rtcosim_error err = {0};
    printf("speculation %" PRIu64 " processed for %" PRIu64 " committed (efficiency %.3f), %"
           PRIu64 " rollbacks undoing %" PRIu64 " events, %" PRIu64 " anti-messages, %" PRIu64
           " sends kept by lazy cancellation, %" PRIu64 " predicted, %" PRIu64
           " GVT rounds, max-ahead %.3g ms at the end; threads waited %.3g s in all (%" PRIu64
           " sleeps, %" PRIu64 " moves off a shared CPU)\n",
           stats->processed, stats->events,
           stats->processed ? (double)stats->events / (double)stats->processed : 0.0,
           stats->rollbacks, stats->rolled_back, stats->anti_messages, stats->reused,
           stats->predicted, stats->gvt_rounds, (double)stats->max_ahead / RTCOSIM_NS_PER_MS,
           stats->blocked_s, stats->sleeps, stats->moves);
    if (stats->failures_undone)
        printf("speculation %" PRIu64 " handler failures on events a rollback then undid (their"
               " inputs were speculative; not the run's)\n", stats->failures_undone);
    for (size_t i = 0; stats->conservative_lps && i < rtcosim_events_lp_count(sim); i++) {
        rtcosim_lp_speculation s;
        if (rtcosim_events_lp_speculation(sim, (rtcosim_lp_id)i, &s, &err) == RTCOSIM_OK &&
            s.conservative)
            printf("speculation lp '%s' cannot save its state: run conservatively, never"
                   " speculated on\n", rtcosim_events_lp_name(sim, (rtcosim_lp_id)i));
    }
    printf("%-22s %10s %10s %9s %10s %9s %10s %11s\n", "lp", "processed", "committed",
           "rollbacks", "re-exec", "predicted", "err rms", "err max");
    for (size_t i = 0; i < rtcosim_events_lp_count(sim); i++) {
        rtcosim_lp_speculation s;
        if (rtcosim_events_lp_speculation(sim, (rtcosim_lp_id)i, &s, &err) != RTCOSIM_OK)
            return cli_fail_error(&err);
        printf("%-22s %10" PRIu64 " %10" PRIu64 " %9" PRIu64 " %10" PRIu64 " %9" PRIu64
               " %10.3g %11.3g\n", rtcosim_events_lp_name(sim, (rtcosim_lp_id)i), s.processed,
               s.committed, s.rollbacks, s.rolled_back, s.predicted, s.error_rms, s.error_max);
    }
    if (csv && rtcosim_events_write_speculation_csv(sim, csv, &err) != RTCOSIM_OK)
        return cli_fail_error(&err);
    return 0;
}

/* --reference: the same vehicle on the conservative scheduler, compared. */
static int compare_reference(const rtcosim_ecu_vehicle_config *vc, const rtcosim_run_options *ro,
                             const rtcosim_ecu_vehicle *vehicle)
{
    rtcosim_error err = {0};
    rtcosim_events *sim = NULL;
    rtcosim_ecu_vehicle *ref = NULL;
    rtcosim_run_options o = *ro;
    o.scheduler = RTCOSIM_SCHEDULER_CONSERVATIVE;
    rtcosim_ecu_vehicle_config ref_vc = *vc;
    ref_vc.pair_plants = false; /* the conservative scheduler's placement */
    ref_vc.log_frames = false; /* its frames' digest, nothing kept */
    rtcosim_run_stats stats;
    int rc = 0;
    if (rtcosim_events_create(&sim, &err) != RTCOSIM_OK ||
        rtcosim_ecu_vehicle_build(sim, &ref_vc, &ref, &err) != RTCOSIM_OK ||
        rtcosim_events_run(sim, &o, &stats, &err) != RTCOSIM_OK) {
        rc = cli_fail_error(&err);
    } else {
        double e = rtcosim_ecu_vehicle_max_rel_error(vehicle, ref, NULL);
        size_t frames = 0, ref_frames = 0;
        uint64_t digest = rtcosim_can_bus_log_digest(rtcosim_ecu_vehicle_bus(vehicle), &frames);
        uint64_t ref_digest =
            rtcosim_can_bus_log_digest(rtcosim_ecu_vehicle_bus(ref), &ref_frames);
        bool same = rtcosim_ecu_vehicle_checksum(vehicle) == rtcosim_ecu_vehicle_checksum(ref);
        printf("reference   conservative run in %.3f s wall: results %s, max relative error of"
               " the ECUs' sensors and actuators %.3g", stats.wall_s,
               same ? "bit-identical" : "differ", e);
        rtcosim_ecu_vehicle_error_at at;
        if (rtcosim_ecu_vehicle_worst_error(vehicle, ref, &at) > 0.0)
            printf(" (%s's %s: %.9g against %.9g)",
                   rtcosim_ecu_name(rtcosim_ecu_vehicle_ecu(vehicle, at.ecu)),
                   at.actuator ? "actuator" : "sensor", at.value, at.reference);
        /* every frame's times, identifier, sender and bytes (the log digest) */
        if (digest == ref_digest && frames == ref_frames)
            printf(", CAN frames identical (%zu)\n", frames);
        else
            printf(", CAN frames differ (%zu against %zu)\n", frames, ref_frames);
    }
    rtcosim_ecu_vehicle_free(ref);
    rtcosim_events_free(sim);
    return rc;
}

/* --place LP=RANK, by LP name (applied once the vehicle is built). */
static rtcosim_status apply_places(rtcosim_events *sim, char **places, int count,
                                   rtcosim_error *err)
{
    for (int p = 0; p < count; p++) {
        const char *eq = strrchr(places[p], '=');
        char *end = NULL;
        long rank = eq ? strtol(eq + 1, &end, 10) : -1;
        if (!eq || eq == places[p] || !end || *end || end == eq + 1)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: --place needs LP=RANK, got"
                                     " '%s'", places[p]);
        size_t len = (size_t)(eq - places[p]), i = 0, n = rtcosim_events_lp_count(sim);
        for (; i < n; i++) {
            const char *name = rtcosim_events_lp_name(sim, (rtcosim_lp_id)i);
            if (strlen(name) == len && strncmp(name, places[p], len) == 0)
                break;
        }
        if (i == n)
            return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "events: --place: no LP named"
                                     " '%.*s'", (int)len, places[p]);
        rtcosim_status st = rtcosim_events_place(sim, (rtcosim_lp_id)i,
                                                 rank > INT32_MAX ? -1 : (int)rank, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

static rtcosim_time_ns read_events_progress(void *sim) { return rtcosim_events_progress(sim); }

/* From the SIGINT/SIGTERM handler: one atomic store. */
static void request_stop(void *sim) { rtcosim_events_request_stop(sim, true); }

/* The nodes added to the vehicle's bus before it connects: LS-BUS node FMUs
 * and a replayed log. */
typedef struct events_attach {
    events_lsbus *lsbus;
    cli_can_replay *replay;
    bool replaying;
} events_attach;

static rtcosim_status events_attach_nodes(rtcosim_events *sim, rtcosim_can_bus *bus,
                                          void *context, rtcosim_error *err)
{
    events_attach *a = context;
    rtcosim_status st = a->lsbus->count ? events_lsbus_attach(sim, bus, a->lsbus, err) : RTCOSIM_OK;
    if (st == RTCOSIM_OK && a->replaying)
        st = cli_can_replay_attach(a->replay, sim, bus, err);
    return st;
}

static int run_events(int argc, char **argv)
{
    char *places[64];
    int place_count = 0;
    bool threads_given = false, sync_given = false;
    /* options a system file also sets: the command line's win */
    bool scheduler_given = false, stop_given = false, ecus_given = false, plants_given = false,
         stuffing_given = false, bitrate_given = false, firmware_given = false;
    rtcosim_ecu_vehicle_config vc = {.ecus = 4};
    static events_lsbus lsbus; /* large: not on the stack */
    static cli_can_replay replay;
    memset(&replay, 0, sizeof replay);
    events_attach attach = {.lsbus = &lsbus, .replay = &replay};
    memset(&lsbus, 0, sizeof lsbus);
    static events_board boards;
    memset(&boards, 0, sizeof boards);
    rtcosim_run_options ro = {.scheduler = RTCOSIM_SCHEDULER_CONSERVATIVE, .threads = 2,
                              .stop_time = 10 * RTCOSIM_NS_PER_S};
    const char *can_log = NULL, *system = NULL, *spec_csv = NULL, *dbc_out = NULL;
    bool reference = false, quiet = false;
    static cli_serve serve; /* --serve: the live view (run_serve.c) */
    memset(&serve, 0, sizeof serve);
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
        if (strcmp(a, "--reference") == 0) {
            reference = true;
            continue;
        }
        if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            quiet = true;
            continue;
        }
        if (strcmp(a, "--rounds") == 0) {
            ro.conservative_rounds = true;
            continue;
        }
        int served = cli_serve_option(&serve, argc, argv, &i);
        if (served < 0)
            return CLI_EXIT_USAGE;
        if (served > 0)
            continue;
        if (a[0] != '-') {
            int rc = cli_positional("events", "system file", &system, argv, i);
            if (rc)
                return rc;
            continue;
        }
        if (!v)
            return cli_missing_value("events", a, usage);
        i++;
        if (strcmp(a, "--place") == 0) {
            if (place_count == 64)
                return cli_fail("events: more than 64 --place options");
            places[place_count++] = argv[i];
        } else if (strcmp(a, "--sync") == 0) {
            sync_given = true;
            if (rtcosim_rank_sync_parse(v, &ro.rank_sync) != 0)
                return cli_fail("events: --sync is reduction or null, got '%s'", v);
        } else if (strcmp(a, "--scheduler") == 0) {
            scheduler_given = true;
            if (rtcosim_scheduler_parse(v, &ro.scheduler) != 0)
                return cli_fail("events: unknown scheduler '%s' (sequential, conservative,"
                                " global, lockstep, speculative)", v);
        } else if (strcmp(a, "--threads") == 0) {
            threads_given = true;
            if (parse_uint(v, 256, &n) != 0 || n == 0)
                return cli_fail("events: --threads needs a number in 1..256, got '%s'", v);
            ro.threads = (unsigned)n;
        } else if (strcmp(a, "--stop-time") == 0) {
            stop_given = true;
            if (rtcosim_time_parse_seconds(v, &ro.stop_time, &err) != RTCOSIM_OK)
                return cli_fail("events: --stop-time: %s", err.message);
            if (ro.stop_time <= 0)
                return cli_fail("events: --stop-time must be positive, got '%s'", v);
        } else if (strcmp(a, "--ecus") == 0) {
            ecus_given = true;
            if (parse_uint(v, 64, &n) != 0 || n == 0)
                return cli_fail("events: --ecus needs a number in 1..64, got '%s'", v);
            vc.ecus = (unsigned)n;
        } else if (strcmp(a, "--plants") == 0) {
            plants_given = true;
            if (strcmp(v, "active") == 0)
                vc.plant_mode = RTCOSIM_PLANT_ACTIVE;
            else if (strcmp(v, "passive") == 0)
                vc.plant_mode = RTCOSIM_PLANT_PASSIVE;
            else
                return cli_fail("events: --plants is active or passive, got '%s'", v);
        } else if (strcmp(a, "--stuffing") == 0) {
            stuffing_given = true;
            if (strcmp(v, "actual") == 0)
                vc.stuffing = RTCOSIM_CAN_STUFFING_ACTUAL;
            else if (strcmp(v, "worst-case") == 0)
                vc.stuffing = RTCOSIM_CAN_STUFFING_WORST_CASE;
            else
                return cli_fail("events: --stuffing is actual or worst-case, got '%s'", v);
        } else if (strcmp(a, "--bitrate") == 0) {
            bitrate_given = true;
            if (parse_uint(v, 1000000, &n) != 0 || n == 0)
                return cli_fail("events: --bitrate needs a number in 1..1000000, got '%s'", v);
            vc.bitrate = (uint32_t)n;
        } else if (strcmp(a, "--fd-bitrate") == 0 || strcmp(a, "--xl-bitrate") == 0) {
            if (parse_uint(v, 1000000000, &n) != 0 || n == 0)
                return cli_fail("events: %s needs a number in 1..1000000000, got '%s'", a, v);
            *(a[2] == 'f' ? &vc.fd_bitrate : &vc.xl_bitrate) = (uint32_t)n;
        } else if (strcmp(a, "--can-log") == 0 || strcmp(a, "-o") == 0) {
            can_log = v;
        } else if (strcmp(a, "--dbc-out") == 0) {
            dbc_out = v;
        } else if (strcmp(a, "--can-error-every") == 0) {
            if (parse_uint(v, UINT32_MAX, &n) != 0)
                return cli_fail("events: --can-error-every needs a whole number >= 0, got '%s'", v);
            vc.error_every = (uint32_t)n;
        } else if (strcmp(a, "--can-error-code") == 0) {
            if (parse_uint(v, 6, &n) != 0 || n == 0)
                return cli_fail("events: --can-error-code needs 1..6 (LS-BUS 1.0 Bus Error codes),"
                                " got '%s'", v);
            vc.error_code = (uint8_t)n;
        } else if (strcmp(a, "--can-replay") == 0) {
            if (attach.replaying)
                return cli_fail("events: --can-replay once (one log)");
            if (cli_can_replay_parse(&replay, "events: --can-replay", v))
                return CLI_EXIT_USAGE;
            attach.replaying = true;
        } else if (strcmp(a, "--lsbus-node") == 0) {
            if (events_lsbus_parse(&lsbus, v, &err) != RTCOSIM_OK)
                return cli_fail_error(&err);
        } else if (strcmp(a, "--board-ecu") == 0) {
            if (events_board_parse(&boards, v, &err) != RTCOSIM_OK)
                return cli_fail_error(&err);
        } else if (strcmp(a, "--firmware") == 0) {
            firmware_given = true;
            const char *eq = strchr(v, '=');
            if (!eq || eq == v || !eq[1])
                return cli_fail("events: --firmware needs ECU=PATH.elf, got '%s'", v);
            if (vc.firmware_ecu[0])
                return cli_fail("events: --firmware given twice ('%s=%s' and '%s'); one ECU runs"
                                " firmware", vc.firmware_ecu, vc.firmware_path, v);
            if ((size_t)(eq - v) >= sizeof vc.firmware_ecu ||
                strlen(eq + 1) >= sizeof vc.firmware_path)
                return cli_fail("events: --firmware: ECU name or path too long in '%s'", v);
            snprintf(vc.firmware_ecu, sizeof vc.firmware_ecu, "%.*s", (int)(eq - v), v);
            snprintf(vc.firmware_path, sizeof vc.firmware_path, "%s", eq + 1);
        } else if (strcmp(a, "--sil") == 0) {
            if (rtcosim_ecu_vehicle_add_sil(&vc, v, "events: --sil", &err) != RTCOSIM_OK)
                return cli_fail_error(&err);
        } else if (strcmp(a, "--speculate-stats") == 0) {
            spec_csv = v;
        } else if (strcmp(a, "--max-ahead") == 0) {
            if (rtcosim_time_parse_seconds(v, &ro.max_ahead, &err) != RTCOSIM_OK)
                return cli_fail("events: --max-ahead: %s", err.message);
            if (ro.max_ahead <= 0)
                return cli_fail("events: --max-ahead must be positive, got '%s'", v);
        } else if (strcmp(a, "--checkpoint-interval") == 0) {
            if (parse_uint(v, 1000000, &n) != 0 || n == 0)
                return cli_fail("events: --checkpoint-interval needs a number in 1..1000000, got"
                                " '%s'", v);
            ro.checkpoint_interval = (unsigned)n;
        } else if (strcmp(a, "--cancellation") == 0) {
            if (strcmp(v, "lazy") != 0 && strcmp(v, "aggressive") != 0)
                return cli_fail("events: --cancellation needs lazy or aggressive, got '%s'", v);
            ro.aggressive_cancellation = strcmp(v, "aggressive") == 0;
        } else if (strcmp(a, "--correction-capacity") == 0) {
            char *end;
            ro.correction_capacity = strtod(v, &end);
            if (*end || end == v || !(ro.correction_capacity > 0) || ro.correction_capacity > 1e300)
                return cli_fail("events: --correction-capacity needs a finite number > 0, got '%s'",
                                v);
        } else if (strcmp(a, "--threshold") == 0) {
            char *end;
            ro.threshold = strtod(v, &end);
            if (*end || end == v || !(ro.threshold >= 0) || ro.threshold > 1e300)
                return cli_fail("events: --threshold needs a finite number >= 0, got '%s'", v);
        } else {
            return cli_unknown_option("events", a, usage);
        }
    }
    if (system) {
        /* the file's settings, then the command line's over them (as a
         * command line overrides a configuration file everywhere) */
        rtcosim_ecu_vehicle_config given_vc = vc;
        rtcosim_run_options given_ro = ro;
        if (rtcosim_ecu_vehicle_load(system, &vc, &ro, &err) != RTCOSIM_OK)
            return cli_fail_error(&err);
        if (scheduler_given)
            ro.scheduler = given_ro.scheduler;
        if (threads_given)
            ro.threads = given_ro.threads;
        if (stop_given)
            ro.stop_time = given_ro.stop_time;
        if (ecus_given)
            vc.ecus = given_vc.ecus;
        if (plants_given)
            vc.plant_mode = given_vc.plant_mode;
        if (stuffing_given)
            vc.stuffing = given_vc.stuffing;
        if (bitrate_given)
            vc.bitrate = given_vc.bitrate;
        if (firmware_given) {
            memcpy(vc.firmware_ecu, given_vc.firmware_ecu, sizeof vc.firmware_ecu);
            memcpy(vc.firmware_path, given_vc.firmware_path, sizeof vc.firmware_path);
        }
    }
    {
        const cli_output outs[] = {{"--can-log", can_log}, {"--speculate-stats", spec_csv},
                                   {"--dbc-out", dbc_out}};
        const char *ins[] = {system, replay.path[0] ? replay.path : NULL};
        if (cli_check_outputs(outs, 3, ins, 2) != 0)
            return 1;
    }
    bool speculative = ro.scheduler == RTCOSIM_SCHEDULER_SPECULATIVE;
    if ((spec_csv || reference || ro.correction_capacity > 0) && !speculative)
        return cli_fail("events: --speculate-stats, --reference and --correction-capacity need"
                        " --scheduler speculative");
    vc.log_frames = can_log != NULL;
    if (lsbus.count || attach.replaying) {
        if (reference)
            return cli_fail("events: --reference does not run --lsbus-node FMUs or --can-replay"
                            " twice");
        lsbus.start = ro.start_time;
        lsbus.stop = ro.stop_time;
        vc.attach = events_attach_nodes;
        vc.attach_context = &attach;
    }
    if (boards.count && reference)
        return cli_fail("events: --reference does not run --board-ecu boards twice");
    vc.pair_plants = speculative; /* its placement: a plant with its ECU */
    rtcosim_events *sim = NULL;
    rtcosim_ecu_vehicle *vehicle = NULL;
    rtcosim_run_stats stats;
    int rc = 0;
    rtcosim_can_log_writer *log_stream = NULL; /* --can-log, written while the run goes */
    /* under mpirun: the ranks of the MPI transport, one thread each by default */
    rtcosim_transport tr = {.rank = 0, .size = 1};
    bool mpi = rtcosim_mpi_launched();
    if (mpi && rtcosim_mpi_transport_open(&tr, &err) != RTCOSIM_OK)
        return cli_fail_error(&err);
    if (tr.size > 1 && !threads_given)
        ro.threads = 1;
    if (tr.size > 1 && lsbus.count) {
        rc = cli_fail("events: --lsbus-node is not supported on several ranks");
        goto done;
    }
    if (tr.size > 1 && attach.replaying) {
        rc = cli_fail("events: --can-replay is not supported on several ranks");
        goto done;
    }
    if (tr.size > 1 && boards.count) {
        rc = cli_fail("events: --board-ecu is not supported on several ranks");
        goto done;
    }
    if (cli_serve_check(&serve)) {
        rc = CLI_EXIT_USAGE;
        goto done;
    }
    if (serve.listen && tr.size > 1) {
        rc = cli_fail("events: --serve is not supported on several ranks");
        goto done;
    }
    if (!mpi && place_count) {
        rc = cli_fail("events: --place needs a run under mpirun");
        goto done;
    }
    if (!mpi && sync_given) {
        rc = cli_fail("events: --sync needs a run under mpirun");
        goto done;
    }
    cli_progress_watch progress = {0};
    bool built = rtcosim_events_create(&sim, &err) == RTCOSIM_OK &&
                 rtcosim_ecu_vehicle_build(sim, &vc, &vehicle, &err) == RTCOSIM_OK &&
                 events_board_add(&boards, sim, &err) == RTCOSIM_OK &&
                 (!mpi || rtcosim_events_set_transport(sim, &tr, &err) == RTCOSIM_OK) &&
                 apply_places(sim, places, place_count, &err) == RTCOSIM_OK;
    if (built && (rc = cli_serve_events_start(&serve, sim, rtcosim_ecu_vehicle_bus(vehicle))) != 0)
        goto done;
    /* the CAN log is written while the run goes, each frame once the run
     * has committed it (memory bounded, the file whole up to a failure or
     * a stop); over ranks the rank that ran the bus writes it after */
    rtcosim_can_bus *bus = built ? rtcosim_ecu_vehicle_bus(vehicle) : NULL;
    if (built && can_log && tr.size == 1) {
        rtcosim_can_log_layout layout;
        rtcosim_can_bus_log_layout(bus, &layout);
        if (rtcosim_can_log_writer_open(can_log, rtcosim_can_log_format_of(can_log),
                                        rtcosim_can_bus_name(bus), &layout, &log_stream,
                                        &err) != RTCOSIM_OK ||
            rtcosim_can_bus_stream_log(bus, log_stream, &err) != RTCOSIM_OK) {
            rc = cli_fail_error(&err);
            goto done;
        }
    }
    /* the database of the vehicle as built, before the run (rank 0) */
    if (built && dbc_out && tr.rank == 0 &&
        rtcosim_ecu_vehicle_write_dbc(dbc_out, rtcosim_ecu_vehicle_ecu_count(vehicle), &err) !=
            RTCOSIM_OK) {
        rc = cli_fail_error(&err);
        goto done;
    }
    if (built) /* rank 0 draws */
        cli_progress_watch_start(&progress, quiet || tr.rank != 0, ro.start_time, ro.stop_time,
                                 read_events_progress, sim);
    /* Ctrl-C (SIGINT) or SIGTERM: the run ends early and what it did is
     * reported and logged, as `run` and `simulate` do; over ranks mpirun
     * ends the job */
    if (built && tr.size == 1) {
        cli_signals_install();
        cli_signals_on_first(request_stop, sim);
    }
    bool ran = built && rtcosim_events_run(sim, &ro, &stats, &err) == RTCOSIM_OK;
    int stop_signal = atomic_load(&cli_stop_signal);
    bool stopped = built && !ran && tr.size == 1 && stop_signal && err.status == RTCOSIM_ECANCELED;
    cli_progress_watch_stop(&progress);
    cli_serve_events_finish(&serve, ran || stopped ? (stopped ? stats.end_time : ro.stop_time)
                                                   : rtcosim_events_progress(sim));
    /* the CAN log is finished now: a second Ctrl-C waits for it (it used
     * to cut the file short with the default handlers back) */
    cli_signals_hold();
    rtcosim_error log_err = {0};
    bool log_closed = true;
    if (log_stream) {
        /* the run's end committed every frame it kept (a failed or stopped
         * one's too: sequential and conservative runs stop with every
         * earlier event done; a speculative run is taken back to what it
         * committed) */
        (void)rtcosim_can_bus_stream_log(bus, NULL, NULL);
        log_closed = rtcosim_can_log_writer_close(log_stream, &log_err) == RTCOSIM_OK;
        log_stream = NULL;
        if (!(ran || stopped) && log_closed)
            printf("can log     %s: %zu frames up to the failure%s\n", can_log,
                   rtcosim_can_bus_log_written(bus),
                   speculative ? " (those the speculative run committed)" : "");
    }
    /* over ranks the bus's frames are on the rank that ran it (after the
     * gather rank 0 holds only the bus's state): that rank writes the log */
    rtcosim_lp_id bus_lp = built ? rtcosim_can_bus_lp(rtcosim_ecu_vehicle_bus(vehicle)) : 0;
    if ((ran || stopped) && !log_closed)
        err = log_err;
    bool written = (ran || stopped) && log_closed &&
                   rtcosim_events_gather(sim, mpi ? &tr : NULL, &err) == RTCOSIM_OK &&
                   !(can_log && tr.size > 1 && rtcosim_events_owns(sim, bus_lp) &&
                     rtcosim_can_bus_write_log(bus, can_log, &err) != RTCOSIM_OK);
    /* (a second signal that came meanwhile exits at once now, the log whole) */
    cli_signals_release();
    cli_signals_restore();
    if (!written) {
        rc = tr.size > 1 ? cli_fail("rank %d: %s", tr.rank, err.message) : cli_fail_error(&err);
        goto done;
    }
    if (tr.rank != 0)
        goto done; /* rank 0 holds the gathered result and prints */
    rtcosim_time_ns reached = stopped ? stats.end_time : ro.stop_time;
    double sim_s = rtcosim_time_to_seconds(reached - ro.start_time);
    rtcosim_can_bus_stats bs;
    rtcosim_can_bus_stats_get(rtcosim_ecu_vehicle_bus(vehicle), reached - ro.start_time, &bs);
    printf("vehicle: %zu ECUs, scheduler %s", rtcosim_ecu_vehicle_ecu_count(vehicle),
           rtcosim_scheduler_name(ro.scheduler));
    if (tr.size > 1)
        printf(" over %d MPI ranks (%s)", tr.size,
               speculative ? "Time Warp across ranks"
                           : ro.rank_sync == RTCOSIM_RANK_SYNC_NULL_MESSAGES ? "null messages"
                                                                             : "reduction");
    if (ro.scheduler == RTCOSIM_SCHEDULER_CONSERVATIVE || speculative)
        printf(" (%u threads%s)", ro.threads, tr.size > 1 ? " per rank" : "");
    if (speculative)
        printf(", threshold %g", ro.threshold);
    if (speculative && ro.correction_capacity > 0)
        printf(", correction capacity %g per event", ro.correction_capacity);
    printf(", %.6g s simulated%s\n", sim_s, stopped ? " (stopped early)" : "");
    printf("events      %" PRIu64 " in %.3f s wall (%.3g events/s), %" PRIu64 " rounds\n",
           stats.events, stats.wall_s, (double)stats.events / stats.wall_s, stats.rounds);
    printf("speed       %.2f simulated s per wall s\n", sim_s / stats.wall_s);
    printf("can bus     %" PRIu64 " frames, load %.1f %%, longest queue %" PRIu32
           ", worst latency %.1f us, lookahead %.1f us%s\n",
           bs.frames, 100.0 * bs.load, bs.max_queue, (double)bs.max_latency_ns / 1e3,
           (double)rtcosim_can_bus_min_frame_time(rtcosim_ecu_vehicle_bus(vehicle)) / 1e3,
           bs.overloaded ? " (OVERLOADED)" : "");
    if (vc.error_every)
        printf("can errors  %" PRIu64 " frames corrupted (1 in %" PRIu32 " started, code %u), "
               "each retransmitted\n", bs.bus_errors, vc.error_every,
               vc.error_code ? vc.error_code : RTCOSIM_CAN_ERROR_CRC);
    if (bs.bus_off_dropped)
        printf("can bus-off %" PRIu64 " frames dropped (sent while their node reported bus-off)\n",
               bs.bus_off_dropped);
    if (can_log) {
        rtcosim_can_log_format format = rtcosim_can_log_format_of(can_log);
        printf("can log     %s (%s", can_log, rtcosim_can_log_format_name(format));
        if (tr.size > 1)
            printf(", written by rank %d, which ran the bus", rtcosim_events_rank_of(sim, bus_lp));
        printf(")\n");
    }
    cli_can_replay_print(&replay, "can replay  ");
    for (size_t i = 0; i < rtcosim_ecu_vehicle_ecu_count(vehicle); i++) {
        rtcosim_ecu *e = rtcosim_ecu_vehicle_ecu(vehicle, i);
        rtcosim_ecu_stats es;
        rtcosim_ecu_stats_get(e, &es);
        printf("ecu %-14s jobs %8" PRIu64 ", core load %5.1f %%, response delay %.1f us,"
               " frames tx %" PRIu64 " rx %" PRIu64 "\n",
               rtcosim_ecu_name(e), es.jobs, 100.0 * (double)es.busy_ns / (sim_s * 1e9),
               (double)rtcosim_ecu_response_delay(e) / 1e3, es.frames_sent, es.frames_received);
        const char *why;
        if (rtcosim_ecu_shared_object(e))
            printf("    code from %s, state %zu bytes of its data captured per snapshot%s%s\n",
                   rtcosim_ecu_shared_object(e), rtcosim_ecu_software_size(e),
                   rtcosim_ecu_can_save_state(e, &why) ? "" : ": cannot save its state, ",
                   rtcosim_ecu_can_save_state(e, &why) ? "" : why);
    }
    events_lsbus_print(&lsbus);
    if (events_board_report(&boards, &err) != RTCOSIM_OK) {
        rc = cli_fail_error(&err);
        goto done;
    }
    printf("checksum    %016" PRIx64 "\n", rtcosim_ecu_vehicle_checksum(vehicle));
    if (speculative) {
        rc = report_speculation(sim, &stats, spec_csv);
        if (rc == 0 && reference && !stopped)
            rc = compare_reference(&vc, &ro, vehicle);
    }
    if (stopped) {
        fflush(stdout);
        fprintf(stderr, "rtcosim: events: stopped by %s at t = %.6g s of %.6g s; the summary%s"
                " cover%s the run so far\n", cli_signal_name(stop_signal),
                rtcosim_time_to_seconds(reached), rtcosim_time_to_seconds(ro.stop_time),
                can_log ? " and the CAN log" : "", can_log ? "" : "s");
        rc = cli_signal_exit_code(stop_signal);
    }
done:
    rtcosim_can_log_writer_abort(log_stream); /* (only when the run never started) */
    cli_serve_close(&serve);
    events_lsbus_free(&lsbus);
    rtcosim_ecu_vehicle_free(vehicle);
    rtcosim_events_free(sim);
    cli_can_replay_free(&replay);
    events_board_free(&boards);
    if (mpi)
        rtcosim_mpi_transport_close(&tr);
    return rc;
}

const rtcosim_cli_command rtcosim_cli_cmd_events = {
    "events", "run ECU emulators, plants and a CAN bus on the parallel event kernel", run_events};
