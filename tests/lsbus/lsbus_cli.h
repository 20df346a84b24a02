/* Helpers of the LS-BUS system tests (lsbus_cli.c). */
#ifndef RTCOSIM_TEST_LSBUS_CLI_H
#define RTCOSIM_TEST_LSBUS_CLI_H

#include <stddef.h>

#include "rtcosim_test_fmus.h"

#define NODE RTCOSIM_FMU_LSBUSNODE_FMI3
#define BUSSIM RTCOSIM_FMU_LSBUSSIMULATION_FMI3

/* rtcosim run / rtcosim can with args (NULL-terminated) in the scratch
 * directory; stdout and stderr into out.txt and err.txt there; the exit
 * code (stderr shown when it is not 0). */
int run_cli(const char *first, ...);
int can_cli(const char *first, ...);
int events_cli(const char *first, ...);
/* A scratch file's text (free it). */
char *read_text(const char *name);
/* Fails showing the text when needle is not in it. */
void expect_in(const char *text, const char *needle);
/* err.txt is one line containing needle. */
void expect_one_line_error(const char *needle);
/* A system of node FMUs names[0..n) (source node_fmu), optionally the bus
 * simulation "bus", and the given connections (SSD lines); its path. */
const char *write_ssd(const char *file, const char *node_fmu, const char *const *names, int n,
                      const char *bussim, const char *connections);
/* SSD lines connecting a node's Tx members to the peer's Rx members. */
void ssd_connect(char *out, size_t size, const char *from, const char *from_prefix,
                 const char *to, const char *to_prefix);
extern const char *const ab[];
/* Nodes a and b of LsBusNode, nothing connected. */
const char *nodes_alone(void);

#endif
