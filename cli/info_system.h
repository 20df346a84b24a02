/* `rtcosim info SYSTEM`: what rtcosim reads from an SSP system or libcosim's
 * OspSystemStructure.xml (cmd_info.c hands systems over to info_system.c). */
#ifndef RTCOSIM_CLI_INFO_SYSTEM_H
#define RTCOSIM_CLI_INFO_SYSTEM_H

#include <stdbool.h>

#include "rtcosim/can_log.h"

/* Whether a path names a system rather than an FMU: .ssd, .ssp, .xml, or a
 * directory holding OspSystemStructure.xml or SystemStructure.ssd. */
bool cli_info_is_system(const char *path);

/* Print the system's components, connectors, connections with their
 * transformations, parameter bindings and execution order; 0 or an exit code. */
int cli_info_system(const char *path, const char *parameter_set, bool strict);

/* `rtcosim info SLAVE.dcpx` (info_dcpx.c); 0 or an exit code. */
int cli_info_dcpx(const char *path);

/* The aligned variable table of `info` (cmd_info.c): name, vr, type,
 * causality, variability, initial, start, unit, description. */
#include <stddef.h>
#include "rtcosim/component.h"
void cli_info_print_variable_table(const rtcosim_variable *vars, size_t n);

/* `rtcosim info F.dbc` / `rtcosim info LOG [--dbc F.dbc]` (info_can.c):
 * by the name's ending (.dbc; .blf, .asc, .log, .trc). */
bool cli_info_is_dbc(const char *path);
bool cli_info_is_can_log(const char *path);
int cli_info_dbc(const char *path);
int cli_info_can_log(const char *path, const char *dbc_path);
/* The same, printing nothing when the log cannot be read: -1 (err set). */
int cli_info_can_log_try(const char *path, const char *dbc_path, rtcosim_error *err);
/* The same of a log read already (freed here). */
int cli_info_can_log_read(const char *path, rtcosim_can_log *log, const char *dbc_path);

#endif
