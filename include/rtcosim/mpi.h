/* The MPI transport (Open MPI): rtcosim_transport over MPI_COMM_WORLD. In a
 * build without MPI the calls fail with RTCOSIM_EUNSUPPORTED and
 * rtcosim_mpi_launched still tells whether mpirun started the process. */
#ifndef RTCOSIM_MPI_H
#define RTCOSIM_MPI_H

#include <stdbool.h>

#include "rtcosim/transport.h"

#ifdef __cplusplus
extern "C" {
#endif

/* True when the process was started by mpirun/mpiexec (its environment
 * names a world size), whether or not this build has MPI. */
bool rtcosim_mpi_launched(void);
/* Whether this build has the MPI transport. */
bool rtcosim_mpi_available(void);
/* MPI_Init (once) and a transport over MPI_COMM_WORLD. */
rtcosim_status rtcosim_mpi_transport_open(rtcosim_transport *out, rtcosim_error *err);
/* MPI_Finalize. */
void rtcosim_mpi_transport_close(rtcosim_transport *t);
/* Abort every rank (after a failure the others cannot learn of). */
void rtcosim_mpi_abort(int code);
/* The process id of `rank` when it runs on this machine (gathered by
 * rtcosim_mpi_transport_open), else -1: a watchdog can then look at its
 * state in /proc (stopped, gone) and name the rank that holds the job. */
long rtcosim_mpi_peer_pid(int rank);

#ifdef __cplusplus
}
#endif

#endif
