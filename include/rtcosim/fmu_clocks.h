/* FMI 3.0 clocks and scheduled execution (FMI 3.0 sections 2.2.8, 2.4.7.3 and
 * chapter 5) of an FMU loaded by rtcosim_fmu_load: the <Clock> variables with
 * their attributes, which variables each clock owns (`clocks`), Binary maxSize
 * and mimeType, the clock interval/shift calls, and, for an FMU loaded with
 * interface_type RTCOSIM_FMI_SCHEDULED_EXECUTION, the activation of its model
 * partitions. The scheduler that decides when to activate them is the
 * caller's (src/simulate/simulate_se.c). */
#ifndef RTCOSIM_FMU_CLOCKS_H
#define RTCOSIM_FMU_CLOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/component.h"
#include "rtcosim/time.h"

#ifdef __cplusplus
extern "C" {
#endif

/* FMI 3.0 Clock types (section 2.2.8, attribute intervalVariability). */
typedef enum rtcosim_fmi_clock_kind {
    RTCOSIM_FMI_CLOCK_CONSTANT = 0, /* periodic, interval from the description */
    RTCOSIM_FMI_CLOCK_FIXED,        /* periodic, set (or read) in Initialization Mode */
    RTCOSIM_FMI_CLOCK_TUNABLE,      /* periodic, interval may change at ticks */
    RTCOSIM_FMI_CLOCK_CHANGING,     /* aperiodic, interval read after each tick */
    RTCOSIM_FMI_CLOCK_COUNTDOWN,    /* aperiodic, interval announced by the FMU */
    RTCOSIM_FMI_CLOCK_TRIGGERED     /* ticks when the importer (input) or FMU (output) says */
} rtcosim_fmi_clock_kind;
const char *rtcosim_fmi_clock_kind_name(rtcosim_fmi_clock_kind kind); /* the XML word */

/* One <Clock> variable (section 2.4.7.3, ClockAttributes). */
typedef struct rtcosim_fmu_clock {
    size_t variable;            /* index into the component's variable table */
    rtcosim_fmi_clock_kind kind;
    bool has_priority;          /* smaller is higher (input clocks in SE) */
    uint32_t priority;
    bool can_be_deactivated, supports_fraction;
    bool has_interval;          /* intervalDecimal, or intervalCounter / resolution */
    double interval, shift;     /* seconds; shift defaults to 0 */
    uint64_t resolution, interval_counter, shift_counter; /* 0: absent */
} rtcosim_fmu_clock;

typedef struct rtcosim_fmu_clocks {
    const rtcosim_fmu_clock *clocks; /* sorted by variable index */
    size_t clock_count;
    /* Variable i belongs to the clocks clocked[clocked_start[i] ..
     * clocked_start[i + 1]) (indices into clocks); clocked_start NULL: no
     * variable is clocked. */
    const size_t *clocked_start;
    const size_t *clocked;
    /* Per variable, NULL without Binary variables: maxSize (SIZE_MAX: none)
     * and mimeType (NULL: application/octet-stream). */
    const size_t *binary_max_size;
    const char *const *mime_types;
} rtcosim_fmu_clocks;

/* The clock facts of an FMI 3.0 FMU; NULL for other components. */
const rtcosim_fmu_clocks *rtcosim_fmu_clocks_of(const rtcosim_component *c);
/* The clock (index into clocks) of variable i, or -1. */
long rtcosim_fmu_clock_index(const rtcosim_fmu_clocks *k, size_t variable);

/* fmi3IntervalQualifier (section 2.3.7). */
typedef enum rtcosim_interval_qualifier {
    RTCOSIM_INTERVAL_NOT_YET_KNOWN = 0,
    RTCOSIM_INTERVAL_UNCHANGED,
    RTCOSIM_INTERVAL_CHANGED
} rtcosim_interval_qualifier;

/* fmi3GetIntervalDecimal / fmi3GetIntervalFraction of one clock (index into
 * clocks); the fraction form needs supportsFraction. */
rtcosim_status rtcosim_fmu_get_interval(rtcosim_component *c, size_t clock, double *interval,
                                        rtcosim_interval_qualifier *qualifier, rtcosim_error *err);
rtcosim_status rtcosim_fmu_get_interval_fraction(rtcosim_component *c, size_t clock,
                                                 uint64_t *counter, uint64_t *resolution,
                                                 rtcosim_interval_qualifier *qualifier,
                                                 rtcosim_error *err);
/* fmi3GetShiftDecimal / fmi3GetShiftFraction. */
rtcosim_status rtcosim_fmu_get_shift(rtcosim_component *c, size_t clock, double *shift,
                                     rtcosim_error *err);
rtcosim_status rtcosim_fmu_get_shift_fraction(rtcosim_component *c, size_t clock,
                                              uint64_t *counter, uint64_t *resolution,
                                              rtcosim_error *err);
/* fmi3SetIntervalDecimal / fmi3SetIntervalFraction: only for input clocks of
 * kind fixed or tunable that declare an interval (table in section 2.2.8);
 * others are refused naming the clock and the rule. interval > 0. */
rtcosim_status rtcosim_fmu_set_interval(rtcosim_component *c, size_t clock, double interval,
                                        rtcosim_error *err);
rtcosim_status rtcosim_fmu_set_interval_fraction(rtcosim_component *c, size_t clock,
                                                 uint64_t counter, uint64_t resolution,
                                                 rtcosim_error *err);

/* Scheduled execution (chapter 5). fmi3ActivateModelPartition for the input
 * clock `clock` at time t; *clock_update tells whether the FMU called
 * clockUpdate during it (an output clock ticked or a countdown interval is
 * known: the caller then reads them, section 5.2.2). */
rtcosim_status rtcosim_fmu_se_activate(rtcosim_component *c, size_t clock, rtcosim_time_ns t,
                                       bool *clock_update, rtcosim_error *err);

/* The scheduler every SE FMU has (FMI 3.0 section 5.1): input clocks tick
 * at start + shift + k * interval (periodic; interval and shift declared or
 * read in Initialization Mode, which rtcosim_component_exit_init does; tunable
 * and changing ones re-read after each tick), when triggered, or at t +
 * interval after a clockUpdate announcing a countdown interval (0: at this
 * instant). An instant runs its due partitions in priority order (smaller
 * first, ties by declaration) and reads every output clock once after each
 * clockUpdate. do_step(t, h) runs the instants in (t, t + h] ([t, t + h] on
 * the first step; pending triggers at t); rtcosim simulate drives it instant
 * by instant with the calls below. A get of an output clock through the
 * component says whether it ticked in the last do_step. */
rtcosim_time_ns rtcosim_fmu_se_next_tick(const rtcosim_component *c); /* INT64_MAX: none */
/* A triggered input clock ticks at the next instant run. */
rtcosim_status rtcosim_fmu_se_trigger(rtcosim_component *c, size_t clock, rtcosim_error *err);
/* Called once before the first partition of an instant (clock SIZE_MAX) and
 * before each partition (its clock): the time to set inputs. */
typedef rtcosim_status (*rtcosim_se_before_partition)(void *context, size_t clock,
                                                      rtcosim_error *err);
/* Runs every partition due at t (none: nothing is called); *activated (may
 * be NULL) gets how many ran. */
rtcosim_status rtcosim_fmu_se_run_instant(rtcosim_component *c, rtcosim_time_ns t,
                                          rtcosim_se_before_partition before, void *context,
                                          size_t *activated, rtcosim_error *err);
/* Ticks of a clock so far: activations of an input clock, reads of an
 * output clock that said it ticked. */
uint64_t rtcosim_fmu_se_ticks(const rtcosim_component *c, size_t clock);

/* Execution time per partition (monotonic clock around each activation,
 * less the partitions that preempted it). In a paced real-time frame also
 * lateness (activation start minus the tick's release time) over `released`
 * activations, and how often the partition preempted a running one. */
typedef struct rtcosim_se_partition_stats {
    uint64_t activations;
    rtcosim_time_ns exec_total_ns, exec_max_ns;
    uint64_t released, preemptions;
    rtcosim_time_ns lateness_p50_ns, lateness_p99_ns, lateness_max_ns;
} rtcosim_se_partition_stats;
rtcosim_status rtcosim_fmu_se_partition_stats(const rtcosim_component *c, size_t clock,
                                              rtcosim_se_partition_stats *out, rtcosim_error *err);

/* What the FMU did through the SE callbacks so far. */
typedef struct rtcosim_se_stats {
    uint64_t activations;       /* fmi3ActivateModelPartition calls */
    uint64_t clock_updates;     /* clockUpdate callbacks */
    uint64_t preemption_locks;  /* lockPreemption callbacks */
    uint64_t unbalanced_unlocks; /* unlockPreemption without a lock */
} rtcosim_se_stats;
/* RTCOSIM_EINVAL naming the component when it is not an SE FMU. */
rtcosim_status rtcosim_fmu_se_stats(const rtcosim_component *c, rtcosim_se_stats *out,
                                    rtcosim_error *err);
/* True when c is an FMU loaded for scheduled execution. */
bool rtcosim_fmu_is_scheduled(const rtcosim_component *c);

#ifdef __cplusplus
}
#endif
#endif
