/* Speculative execution of a co-simulation master run (issue 10): every
 * component is a logical process (LP) on a worker thread; an LP whose inputs
 * from a producer are not there yet predicts them (speculate.h), steps ahead
 * up to a horizon in parallel with the producer, and when the real values
 * arrive rolls back only as far as the partial-rollback scheme says
 * (restoring its state through the component interface's get/set state) and
 * re-executes with the corrected inputs. Outputs leave an LP only once its
 * step is committed, so a rollback never cascades to other components.
 *
 * Threshold Tc = 0 keeps only steps whose predicted inputs equal the real ones
 * bit for bit, so the results are identical to rtcosim_master_run's. Tc > 0
 * keeps steps whose inputs were off by a cumulative error (sum of absolute
 * input errors, in the inputs' own units, over the kept steps) within Tc.
 *
 * Scope, checked at the start (a clear error otherwise): fixed steps (no step
 * control; multi-rate step multiples are fine), every component at a
 * communication point when the run starts, the stop time on every
 * component's grid (no shortened last step), connections without correction
 * (ZOH, or FOH/SOH from the start time on: the extrapolation polynomial then
 * runs through predicted samples where real ones have not arrived), no
 * observed coupling error signals, no String/Binary values. Not computed:
 * the coupling statistics and power-bond energy of the plain run. An LP runs conservatively (waits for real inputs) when its
 * component cannot get and set its state, has direct feedthrough between
 * connected variables, or takes non-Float64 inputs; the others still
 * speculate around it. */
#ifndef RTCOSIM_MASTER_SPECULATE_H
#define RTCOSIM_MASTER_SPECULATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/master.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Zero in a field selects its default. */
typedef struct rtcosim_speculation_options {
    double threshold;  /* Tc >= 0; default 0 (exact) */
    /* Distributed correction after a partial rollback (speculate.h): 0 the
     * mirrored spread, T > 0 at most T per step over as many steps as |E| / T
     * needs, then the rest; negative or not finite: EINVAL. Matters only with
     * threshold > 0. */
    double correction_capacity;
    size_t horizon;    /* steps an LP may run ahead of its last committed step; default 16 */
    size_t order;      /* predictor order N; default 3 (see speculate.h) */
    size_t window;     /* predictor window M; default 16 */
    unsigned threads;  /* worker threads (the caller's is one); default one per component, at
                        * most the online processors; component i runs on thread i mod threads,
                        * and a thread with nothing to do may take a step of a component whose
                        * thread is not at it (never two calls into a component at once) */
} rtcosim_speculation_options;

/* Rollback depths are counted in buckets 1, 2, 3-4, 5-8, 9-16, 17-32, 33-64, 65+. */
#define RTCOSIM_SPECULATION_DEPTH_BUCKETS 8

typedef struct rtcosim_speculation_stats {
    const char *component;        /* instance name (owned by the master) */
    bool speculated;              /* false: ran conservatively, see reason */
    const char *reason;           /* why conservative (static text), NULL when speculated */
    uint64_t speculated_steps;    /* step executions with at least one predicted input */
    uint64_t rollbacks;
    uint64_t rollback_depth[RTCOSIM_SPECULATION_DEPTH_BUCKETS];
    uint64_t reexecuted_steps;    /* steps rolled back (and executed again) */
    uint64_t committed_steps;
    uint64_t predicted_values;    /* input values whose prediction met the real value */
    double prediction_error_rms;  /* over those values, in the inputs' units */
    double prediction_error_max;
    /* steps whose component reported an error (not a fatal one) on inputs
     * not yet final: run again once final, where an error ends the run */
    uint64_t errors_retried;
} rtcosim_speculation_stats;

/* Upper bound of rollback depth bucket b ("65+" has none: UINT64_MAX). */
uint64_t rtcosim_speculation_depth_bucket_max(size_t bucket);

/* Run an initialized master speculatively from its current time to `stop`,
 * calling observer (may be NULL) at the start time when nothing was stepped
 * yet and at every communication point of any component (as
 * rtcosim_master_run does), with the committed values, in time order. The
 * observer is called from the worker threads, one call at a time. stats: NULL,
 * or rtcosim_master_component_count entries filled in the order components
 * were added. A step whose component requests termination ends the run with
 * its tick, as in rtcosim_master_run. Afterwards the master stands where the
 * run ended; stepping it further is refused (its coupling history was not
 * kept). */
rtcosim_status rtcosim_master_run_speculative(rtcosim_master *m, rtcosim_time_ns stop,
                                              const rtcosim_speculation_options *options,
                                              rtcosim_master_observer observer, void *context,
                                              rtcosim_speculation_stats *stats,
                                              rtcosim_error *err);

/* Which components would run conservatively and why, before running
 * (stats entries as above, counters zero). Also reports a system outside the
 * scope with the error the run would give. */
rtcosim_status rtcosim_master_speculation_plan(rtcosim_master *m,
                                               rtcosim_speculation_stats *stats,
                                               rtcosim_error *err);

#ifdef __cplusplus
}
#endif
#endif
