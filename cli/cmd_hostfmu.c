/* `rtcosim host-fmu FD` (internal): the child process of --isolate, serving
 * one FMU over the shared-memory channel inherited as file descriptor FD. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rtcosim/isolate.h"

static int host_fmu(int argc, char **argv)
{
    char *end = NULL;
    long fd = argc == 2 ? strtol(argv[1], &end, 10) : -1;
    if (fd < 0 || !end || *end)
        return cli_fail("host-fmu: internal command of --isolate (usage: rtcosim host-fmu FD)");
    return rtcosim_isolate_host((int)fd);
}

const rtcosim_cli_command rtcosim_cli_cmd_hostfmu = {
    "host-fmu", "(internal) host one FMU in a child process for --isolate", host_fmu};
