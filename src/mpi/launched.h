/* Whether mpirun started this process: Open MPI, MPICH and PMIx launchers
 * put the world size into the environment. Shared by both builds. */
#ifndef RTCOSIM_MPI_LAUNCHED_H
#define RTCOSIM_MPI_LAUNCHED_H

#include <stdbool.h>
#include <stdlib.h>

static inline bool mpi_env_launched(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
}

#endif
