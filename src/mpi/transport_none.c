/* The transport in a build without MPI: refuses with a clear message, so that
 * the CLI can say why `mpirun -np N rtcosim ...` does not distribute. */
#include "launched.h"
#include "rtcosim/mpi.h"

bool rtcosim_mpi_launched(void) { return mpi_env_launched(); }
bool rtcosim_mpi_available(void) { return false; }

rtcosim_status rtcosim_mpi_transport_open(rtcosim_transport *out, rtcosim_error *err)
{
    (void)out;
    return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "mpi: this rtcosim was built without MPI"
                             " (install libopenmpi-dev and rebuild)");
}

void rtcosim_mpi_transport_close(rtcosim_transport *t) { (void)t; }
void rtcosim_mpi_abort(int code) { exit(code); }
long rtcosim_mpi_peer_pid(int rank) { (void)rank; return -1; }
