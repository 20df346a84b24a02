/* `rtcosim run --distribute [--place COMP=RANK]` under mpirun: the MPI
 * transport and placement, the summary line, and the end of a run whose
 * failure not every rank saw. */
#ifndef RTCOSIM_CLI_RUN_DISTRIBUTE_H
#define RTCOSIM_CLI_RUN_DISTRIBUTE_H

#include <stdbool.h>
#include <stddef.h>

#include "rtcosim/master.h"
#include "rtcosim/master_distribute.h"

typedef struct cli_distribute {
    bool enabled;          /* --distribute */
    const char **places;   /* --place COMP=RANK, as given */
    size_t place_count;
    rtcosim_transport transport;
    rtcosim_distribution *dist; /* NULL until opened */
    char what[512];        /* "SYSTEM on rank R", for the death reports */
} cli_distribute;

/* The --step-timeout of a distributed run when none is given: a stopped or
 * hung rank otherwise holds every other rank in MPI forever. */
#define CLI_DISTRIBUTE_STEP_TIMEOUT_S 60.0

/* Opens the transport and places the components (no-op unless enabled);
 * on ranks other than 0 silences stdout and clears *output_file (rank 0
 * has every value). 0 or cli_fail's code. */
int cli_distribute_open(cli_distribute *d, const char *system, const char **output_file,
                        bool *quiet);
/* The summary line: placement and exchanges per macro step. */
void cli_distribute_summary(const cli_distribute *d, const rtcosim_master *m);
/* After the run: a failure some ranks did not see (they may wait for this
 * one in an exchange) ends the job once results and message are out. */
void cli_distribute_end(cli_distribute *d, int rc);
void cli_distribute_close(cli_distribute *d);

#endif
