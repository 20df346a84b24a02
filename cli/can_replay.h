/* A recorded CAN log played back onto a bus (`rtcosim events --can-replay
 * LOG[@BUS]`, `rtcosim run --can-bus NAME=...,replay:LOG[@BUS]`;
 * rtcosim_can_replay_add does the work). */
#ifndef RTCOSIM_CLI_CAN_REPLAY_H
#define RTCOSIM_CLI_CAN_REPLAY_H

#include "rtcosim/can_log.h"

typedef struct cli_can_replay {
    char path[4096];
    char bus[128]; /* the log's bus to play; empty: its only one */
    rtcosim_can_replay *replay; /* once attached */
} cli_can_replay;

/* "LOG" or "LOG@BUS" (the last '@' after the last '/'). 0, or an exit code
 * with the message printed (option names the option in it). */
int cli_can_replay_parse(cli_can_replay *r, const char *option, const char *spec);
/* Reads the log and adds its node to the bus (before the bus connects). */
rtcosim_status cli_can_replay_attach(cli_can_replay *r, rtcosim_events *sim, rtcosim_can_bus *bus,
                                     rtcosim_error *err);
/* "can replay  LOG: N frames of BUS from log time T" and what was not sent;
 * prefix starts the line. */
void cli_can_replay_print(const cli_can_replay *r, const char *prefix);
void cli_can_replay_free(cli_can_replay *r);

#endif
