/* `rtcosim run --can-bus NAME=COMP.TERMINAL,...`: rtcosim's CAN bus as the
 * integrated bus simulation of LS-BUS CAN nodes in a system (run_can_bus.c). */
#ifndef RTCOSIM_CLI_RUN_CAN_BUS_H
#define RTCOSIM_CLI_RUN_CAN_BUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/can.h"
#include "rtcosim/lsbus.h"
#include "rtcosim/master.h"

#define CLI_CAN_BUSES_MAX 8

typedef struct cli_can_buses {
    const char *specs[CLI_CAN_BUSES_MAX]; /* "NAME=COMP.TERMINAL,..." as given */
    unsigned count;
    /* --can-signals "NAME=F.dbc,NODE=COMP,...": buses of DBC signals
     * (run_can_signals.c) */
    const char *signal_specs[CLI_CAN_BUSES_MAX];
    unsigned signal_count;
    uint32_t bitrate;     /* --can-bitrate; 0: the nodes' */
    uint32_t fd_bitrate, xl_bitrate; /* --can-fd-bitrate, --can-xl-bitrate; 0: the defaults */
    uint32_t error_every; /* --can-error-every */
    uint8_t error_code;   /* --can-error-code */
    const char *log_path; /* --can-log */
    bool no_lookahead;    /* --can-no-lookahead: steps end at every event of the ECUs' kernel */
    /* run --real-time: buses on the real-time part's master (the paced
     * thread), their logs of at most log_capacity frames allocated once. */
    bool real_time;
    size_t log_capacity;
    size_t frame_bytes_reserve; /* the kernel bus's CAN FD/XL bytes allocated at create */
    const char *report_dir; /* --rt-report: each bus's frames as can_NAME.log there */
    int failed; /* the exit code of a failed attach in the real-time hook */
} cli_can_buses;

/* A --can-* option at argv[*i] (its value consumed): 1 taken, 0 not one of
 * them, -1 bad (message printed). */
int cli_can_bus_option(cli_can_buses *b, int argc, char **argv, int *i);
/* After the system is built, before initialize: a bus component per
 * --can-bus, its members connected to the named terminals. 0 or an exit code. */
int cli_can_bus_attach(const cli_can_buses *b, rtcosim_master *m);
/* The real-time run's attach hook (rtcosim_system_rt_options.attach,
 * context the cli_can_buses): the buses on each master of the real-time
 * part; on failure the message is printed and b->failed set. */
/* Before a real-time run: no node of a bus in a non-real-time part
 * ("a,b;c" as rtcosim_rt_options.non_realtime). 0 or an exit code. */
int cli_can_bus_check_real_time(const cli_can_buses *b, const char *non_realtime);
rtcosim_status cli_can_bus_attach_real_time(void *context, rtcosim_master *m, bool probe,
                                            rtcosim_error *err);
/* After the run: --can-log written, one summary line per bus. 0 or an exit code. */
int cli_can_bus_finish(const cli_can_buses *b, rtcosim_master *m);
/* Before a real-time run, on the run's real-time part: each bus records its
 * work per paced frame, for `frames` frames. 0 or an exit code. */
int cli_can_bus_reserve_work(const cli_can_buses *b, rtcosim_master *m, size_t frames);
/* After it: that work per frame (p50, p99, max) printed, one line per bus. */
void cli_can_bus_print_work(const cli_can_buses *b, rtcosim_master *m);
/* With --rt-report DIR: per bus summary.csv rows can_frames[NAME],
 * can_bus_errors[NAME], can_load[NAME], can_work_p50/p99/max[NAME] (us) and
 * the frames.csv column bus_us[NAME] (its work in that frame). 0 or an exit code. */
int cli_can_bus_report(const cli_can_buses *b, rtcosim_master *m, const char *dir);
/* ", can_A.log, can_B.log": the report's log file of each bus, as the
 * closing line of a real-time run names them ("" without buses). */
void cli_can_bus_report_names(const cli_can_buses *b, char *out, size_t size);
/* The --can-signals buses (run_can_signals.c), called by cli_can_bus_attach
 * and cli_can_bus_finish. 0 or an exit code. */
int cli_can_signals_attach(const cli_can_buses *b, rtcosim_master *m);
int cli_can_signals_finish(const cli_can_buses *b, rtcosim_master *m);
/* A non-real-time run's --can-log is written while the run goes (its bus's
 * frames do not pile up in memory, and a run that fails or is killed leaves
 * the file of what the bus carried): after attaching, the stream opened on
 * the one bus that logs. At the finish, the log of bus `kernel` (else of
 * `bridge`) at path: the stream closed with what the bus still holds, or
 * (a real-time run's, kept by the bus) written whole; the "wrote" line
 * printed. 0 or an exit code. */
int cli_can_log_stream_open(const cli_can_buses *b, rtcosim_master *m);
int cli_can_log_finish(const char *name, const char *path, rtcosim_can_bus *kernel,
                       rtcosim_lsbus_can_bridge *bridge);
/* After the masters are freed: the event simulations of the buses with ECUs
 * that attach built (for every master). */
void cli_can_bus_free(void);

#endif
