/* `rtcosim run --can-bus NAME=COMP.TERMINAL,...`: rtcosim's CAN bus as the
 * integrated bus simulation of LS-BUS CAN nodes in a system (run_can_bus.c). */
#ifndef RTCOSIM_CLI_RUN_CAN_BUS_H
#define RTCOSIM_CLI_RUN_CAN_BUS_H

#include <stdbool.h>
#include <stdint.h>

#include "rtcosim/master.h"

#define CLI_CAN_BUSES_MAX 8

typedef struct cli_can_buses {
    const char *specs[CLI_CAN_BUSES_MAX]; /* "NAME=COMP.TERMINAL,..." as given */
    unsigned count;
    uint32_t bitrate;     /* --can-bitrate; 0: the nodes' */
    uint32_t error_every; /* --can-error-every */
    uint8_t error_code;   /* --can-error-code */
    const char *log_path; /* --can-log */
} cli_can_buses;

/* A --can-* option at argv[*i] (its value consumed): 1 taken, 0 not one of
 * them, -1 bad (message printed). */
int cli_can_bus_option(cli_can_buses *b, int argc, char **argv, int *i);
/* After the system is built, before initialize: a bus component per
 * --can-bus, its members connected to the named terminals. 0 or an exit code. */
int cli_can_bus_attach(const cli_can_buses *b, rtcosim_master *m);
/* After the run: --can-log written, one summary line per bus. 0 or an exit code. */
int cli_can_bus_finish(const cli_can_buses *b, rtcosim_master *m);
/* After the masters are freed: the event simulations of the buses with ECUs
 * that attach built (for every master). */
void cli_can_bus_free(void);

#endif
