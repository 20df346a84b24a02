/* The co-simulation master over ranks (`mpirun -np N rtcosim run SYSTEM
 * --distribute`): every rank builds the same master, which runs its
 * deterministic arithmetic everywhere, but each component is instantiated
 * and stepped only on its rank. A component stands on the other ranks as a
 * proxy whose step returns at once. The outputs cross ranks once per macro
 * step (Jacobi: one collective of every rank's values others read;
 * Gauss-Seidel: point to point from the owner to each rank reading them,
 * as soon as the component has stepped); lifecycle calls are broadcasts.
 * Every rank thus gets the same values and rank 0's results are those of
 * the single-process run, bit for bit. */
#ifndef RTCOSIM_MASTER_DISTRIBUTE_H
#define RTCOSIM_MASTER_DISTRIBUTE_H

#include <stdint.h>

#include "rtcosim/component.h"
#include "rtcosim/transport.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rtcosim_distribution rtcosim_distribution;

/* The transport needs `broadcast`; it must outlive the distribution. */
rtcosim_status rtcosim_distribution_create(const rtcosim_transport *t,
                                           rtcosim_distribution **out, rtcosim_error *err);
void rtcosim_distribution_free(rtcosim_distribution *d);
/* Put a component on a rank (before the build); the others go round robin
 * in system order (the i-th component on rank i mod N). */
rtcosim_status rtcosim_distribution_place(rtcosim_distribution *d, const char *component,
                                          int rank, rtcosim_error *err);
/* For rtcosim_system_build_options.wrap, with wrap_context = the
 * distribution: owns `component` in every case. */
rtcosim_status rtcosim_distribution_wrap(void *distribution, const char *name,
                                         rtcosim_component *component, rtcosim_component **out,
                                         rtcosim_error *err);
/* After the build: every placed name was a component of the system. */
rtcosim_status rtcosim_distribution_check_placed(const rtcosim_distribution *d,
                                                 rtcosim_error *err);
/* The component a proxy stands for (its structure: variables, dependencies);
 * any other component itself. */
const rtcosim_component *rtcosim_distribution_inner(const rtcosim_component *c);
/* The wrapped components, in system order. */
size_t rtcosim_distribution_count(const rtcosim_distribution *d);
const char *rtcosim_distribution_name(const rtcosim_distribution *d, size_t i);
/* The rank of a wrapped component, -1 when unknown. */
int rtcosim_distribution_rank_of(const rtcosim_distribution *d, const char *component);
/* Communication calls made so far (broadcasts, per-step collectives,
 * messages sent and received) and the wall seconds this rank spent in them. */
void rtcosim_distribution_stats(const rtcosim_distribution *d, uint64_t *calls,
                                double *seconds);
/* Whether the failure the master last returned is known to every rank, so
 * that all leave the run together; when not (a Gauss-Seidel failure reaches
 * only the ranks reading that component), the caller must end the others
 * (rtcosim_mpi_abort) after writing its results. */
bool rtcosim_distribution_failure_shared(const rtcosim_distribution *d);

#ifdef __cplusplus
}
#endif

#endif
