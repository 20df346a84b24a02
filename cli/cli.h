/* Shared declarations of the rtcosim command-line tool: the subcommand
 * table entry and small helpers every subcommand uses. Each subcommand lives
 * in cli/cmd_NAME.c and defines `const rtcosim_cli_command rtcosim_cli_cmd_NAME`;
 * the build collects them into the dispatch table (no central list to edit). */
#ifndef RTCOSIM_CLI_H
#define RTCOSIM_CLI_H

#include <stdio.h>

#include "rtcosim/status.h"

typedef struct rtcosim_cli_command {
    const char *name;    /* as typed: "simulate" */
    const char *summary; /* one line for `rtcosim --help` */
    int (*run)(int argc, char **argv); /* argv[0] is the subcommand name */
} rtcosim_cli_command;

/* Print "rtcosim: <message>" on stderr (one line) and return exit code 1. */
int cli_fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Same for an error value. */
int cli_fail_error(const rtcosim_error *err);

#endif
