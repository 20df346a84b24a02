/* The event kernel over several processes (ranks): give a simulation a
 * transport (rtcosim/transport.h, e.g. MPI) and every rank builds the same
 * model, owns a static share of the LPs and runs it; ranks synchronize
 * conservatively in windows bounded by the smallest lookahead of the links
 * between them (each round one exchange carries the events batched per
 * destination rank together with each rank's earliest next time, whose
 * minimum plus that lookahead ends the next window). Each LP processes its
 * events in the kernel's total order, so results equal the single-process
 * run's bit for bit for any number of ranks. */
#ifndef RTCOSIM_EVENTS_DIST_H
#define RTCOSIM_EVENTS_DIST_H

#include "rtcosim/events.h"
#include "rtcosim/transport.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Run this simulation on the transport's ranks (NULL: one process). The
 * transport must outlive the runs. Every rank must build the same LPs and
 * links and call rtcosim_events_run with the same options. */
rtcosim_status rtcosim_events_set_transport(rtcosim_events *sim, const rtcosim_transport *t,
                                            rtcosim_error *err);
/* Put an LP on a rank (before a run; by default LPs are placed in blocks of
 * consecutive LPs, groups and zero-lookahead links kept on one rank, as the
 * threads are). Its whole group follows it. */
rtcosim_status rtcosim_events_place(rtcosim_events *sim, rtcosim_lp_id lp, int rank,
                                    rtcosim_error *err);
/* The rank that ran an LP in the last run (0 without a transport). */
int rtcosim_events_rank_of(const rtcosim_events *sim, rtcosim_lp_id lp);
/* Whether this process runs the LP (its handlers and state). */
bool rtcosim_events_owns(const rtcosim_events *sim, rtcosim_lp_id lp);

/* After a run over ranks, bring every LP's state (through the model's state
 * saving, see rtcosim_lp_model) to rank 0, whose model objects then hold the
 * whole result as after a single-process run. Collective. */
rtcosim_status rtcosim_events_gather(rtcosim_events *sim, const rtcosim_transport *t,
                                     rtcosim_error *err);

/* After a distributed PHOLD run, give every rank the counters of all LPs
 * (then rtcosim_phold_checksum equals the single-process one). */
rtcosim_status rtcosim_phold_combine(rtcosim_phold *ph, const rtcosim_transport *t,
                                     rtcosim_error *err);

#ifdef __cplusplus
}
#endif

#endif
