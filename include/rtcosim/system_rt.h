/* Real-time runs of a system description (C4/C5): the components of an SSP
 * system are split into a real-time part, paced on the real-time executor's
 * thread (te), and non-real-time parts (rt.non_realtime "a,b;c": parts
 * separated by ';'), each on its own thread (tv); each part is
 * a master of its own (step order, multi-rate, unit conversions inside the
 * part), seen by the executor (realtime.h) as one group component whose
 * variables are named "component.variable". Connections between the parts
 * go through the executor's queues, with estimates when the non-real-time
 * part is late.
 *
 * Semantics: inside a part, the master's order applies; between the parts
 * the data of te are exchanged (Jacobi). Initial values are those of the
 * whole system's initialization. Without delays, exchanging every frame,
 * with Jacobi order and no output crossing the split that depends directly
 * on an input crossing it, the results equal those of
 * rtcosim_system_build_master + rtcosim_master_run bit for bit; a crossing
 * direct-feedthrough path (the master re-evaluates it at each communication
 * point) arrives one frame later, the price of decoupling the parts.
 * Multi-rate parts keep this: a part whose components all step multiples of
 * the macro step steps in the frame where its next tick starts, and until
 * its next communication point the other part reads the outputs of its
 * latest one (its recorded outputs are those of its latest step, as a
 * plain run observes them).
 *
 * Each part's components are loaded once more than a plain run needs (the
 * whole system is initialized once to get consistent values across the
 * split) and once more when calibrating (a probe of the real-time part). */
#ifndef RTCOSIM_SYSTEM_RT_H
#define RTCOSIM_SYSTEM_RT_H

#include "rtcosim/master.h"
#include "rtcosim/realtime.h"
#include "rtcosim/system.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Delay injection for one component of the system (realtime.h,
 * rtcosim_delay_wrap); the clock is chosen by the adapter: the pacing clock
 * for a real-time component, the partner's clock (virtual runs) or a
 * monotonic clock for a non-real-time one. */
typedef struct rtcosim_system_rt_delay {
    char component[128];
    rtcosim_delay_options delay;
} rtcosim_system_rt_delay;

/* Parse "NAME:SPEC" where SPEC is comma-separated key=value: mean=F (mean
 * compute time as a fraction of the step), late=F (share of late steps),
 * min=F, max=F (their compute time in steps), seed=N,
 * schedule=S/S/... (compute times in seconds, cycled), fail=N (step N
 * crashes), hang=N (from step N on each step takes hang-time),
 * hang-time=S. Example: "transmission:mean=0.4,late=0.05,min=2,max=5,seed=7".
 * The schedule is allocated into *schedule_out (caller frees). */
rtcosim_status rtcosim_system_rt_delay_parse(const char *text, rtcosim_system_rt_delay *out,
                                             rtcosim_time_ns **schedule_out, rtcosim_error *err);

/* Non-real-time parts a system run may have (rt.non_realtime "a,b;c"). */
#define RTCOSIM_SYSTEM_RT_PARTS_MAX 16

typedef struct rtcosim_system_rt_options {
    /* Executor settings. macro_step is the system's (annotation or
     * build.overrides); clock / partner_clock: give two virtual clocks for a
     * deterministic run. calibrate: measured by the adapter on a separate
     * instance of the real-time part before the run (any component, no state
     * save needed). group_names is set by the adapter. */
    rtcosim_rt_options rt;
    /* build.wrap applies to every component wherever it is built (e.g.
     * isolation in a child process). */
    rtcosim_system_build_options build;
    /* Applied after build.wrap to the non-real-time part's components only,
     * and not in the whole-system initialization (e.g.
     * rtcosim_dcp_bindings_wrap: a remote DCP slave is the partner, stepped
     * on the partner thread, never waited for by the paced thread; one
     * session per slave). NULL: none. */
    rtcosim_status (*partner_wrap)(void *context, const char *name, rtcosim_component *component,
                                   rtcosim_component **out, rtcosim_error *err);
    void *partner_wrap_context;
    /* Called once with partner_wrap_context before the non-real-time part is
     * built, when the macro step is known (e.g.
     * rtcosim_dcp_bindings_partner_prepare: a soft real-time DCP slave steps
     * at the macro step on its own clock). NULL: none. */
    void (*partner_prepare)(void *context, rtcosim_time_ns macro_step,
                            rtcosim_time_ns partner_timeout);
    /* Start values "component.variable" = text, as rtcosim_master_set_start_value. */
    const char *const *start_names;
    const char *const *start_values;
    size_t start_count;
    /* Results CSV of the observed variables (build.observe or, when none,
     * every output of the real-time part and the non-real-time outputs that
     * feed it), one row per output_interval
     * (0: every frame) and the final point; NULL: none. A non-real-time
     * component's variable is observable when it feeds the real-time part:
     * its value as the real-time part used it (estimate or received data). */
    const char *output_file;
    rtcosim_time_ns output_interval;
    const rtcosim_system_rt_delay *delays;
    size_t delay_count;
    /* Threads (rtcosim_master_set_threads): the real-time part always steps
     * on the paced thread alone; the non-real-time part uses up to
     * build.overrides.threads (or the CPUs, threads_auto), balanced by
     * measured cost, its helper threads at SCHED_IDLE so that they only use
     * the paced thread's slack and idle CPUs and never delay it. */
    bool threads_auto;
    /* Optional: called on the thread that steps each part at the start of
     * each of its frames, before it steps from t (part 0: the paced thread,
     * with the results row of the observed variables in column order; part
     * 1: the partner's thread, row NULL). A live view (rtcosim/serve.h)
     * publishes the row and applies tuning to the part's components there.
     * It must not block, allocate or lock. */
    void (*frame_hook)(void *context, int part, rtcosim_time_ns t, const double *row);
    void *frame_hook_context;
    bool csv_units; /* a units row under the CSV header (rtcosim_recorder_options) */
    /* Optional: called with attach_context on each master of the real-time
     * part once its components are built and connected, before it is
     * initialized (the calibration's probe, probe true, and the run's), to
     * add components of its own and connect them (e.g. rtcosim run's
     * --can-bus); what it adds steps on the paced thread. */
    rtcosim_status (*attach)(void *context, rtcosim_master *m, bool probe, rtcosim_error *err);
    void *attach_context;
} rtcosim_system_rt_options;

/* Defaults: rtcosim_rt_options_init, calibration on, no build overrides. */
void rtcosim_system_rt_options_init(rtcosim_system_rt_options *options);

typedef struct rtcosim_system_rt rtcosim_system_rt;

/* Check the names (non-real-time components, delays, observed variables),
 * build and initialize the parts, create the executor and open the results
 * file. Errors name the system file and the object at fault. */
rtcosim_status rtcosim_system_rt_create(const rtcosim_system_desc *desc,
                                        const rtcosim_system_rt_options *options,
                                        rtcosim_system_rt **out, rtcosim_error *err);
void rtcosim_system_rt_free(rtcosim_system_rt *srt);

/* Calibrate (when asked; refuses with the figures when the real-time part
 * cannot meet its frame), run, write the final row and close the results
 * file. The results so far are kept on failure; a lost partner is not a
 * failure (see the executor's summary). */
rtcosim_status rtcosim_system_rt_run(rtcosim_system_rt *srt, rtcosim_error *err);

const rtcosim_rt *rtcosim_system_rt_executor(const rtcosim_system_rt *srt);
rtcosim_time_ns rtcosim_system_rt_macro_step(const rtcosim_system_rt *srt);
/* Results columns ("component.variable") and rows written to the file. */
size_t rtcosim_system_rt_column_count(const rtcosim_system_rt *srt);
const char *rtcosim_system_rt_column_name(const rtcosim_system_rt *srt, size_t index);
uint64_t rtcosim_system_rt_rows_written(const rtcosim_system_rt *srt);
/* The values of the last results row (column order; NaN in a String or
 * Binary column). */
const double *rtcosim_system_rt_last_values(const rtcosim_system_rt *srt);
/* The variable behind a results column (type, unit, description): the
 * real-time part's observed variable or the non-real-time output it
 * records; NULL when unknown or out of range. */
const rtcosim_variable *rtcosim_system_rt_column_variable(const rtcosim_system_rt *srt,
                                                          size_t index);
/* A numeric column's last value exactly when it records an Int64 or UInt64
 * output of the real-time part (last_values' double rounds past 2^53): into
 * value->i64 or ->u64 by the column variable's type; false otherwise. The
 * results file holds such columns exactly too. */
bool rtcosim_system_rt_last_exact(const rtcosim_system_rt *srt, size_t index,
                                  rtcosim_value *value);
/* The numeric columns come first; String and Binary ones (the real-time
 * part's, named by --output-variable) follow them. */
size_t rtcosim_system_rt_numeric_column_count(const rtcosim_system_rt *srt);
/* A String column's last value (its first 60 bytes and "..." when longer),
 * a Binary one's "(N bytes)"; NULL for a numeric column. */
const char *rtcosim_system_rt_last_text(const rtcosim_system_rt *srt, size_t index);
/* Component names of each part, ", "-separated; non_realtime: those of
 * every non-real-time part, parts separated by " | ". */
const char *rtcosim_system_rt_part_names(const rtcosim_system_rt *srt, bool non_realtime);
/* A part's master (NULL: no such part), e.g. for rtcosim_master_get_parallel;
 * non_realtime: the first non-real-time part's. */
const rtcosim_master *rtcosim_system_rt_part(const rtcosim_system_rt *srt, bool non_realtime);
/* Non-real-time parts, and part i's master (0-based, in the order of
 * rt.non_realtime; NULL when there is no such part). */
size_t rtcosim_system_rt_nonrealtime_count(const rtcosim_system_rt *srt);
const rtcosim_master *rtcosim_system_rt_nonrealtime_part(const rtcosim_system_rt *srt, size_t i);

#ifdef __cplusplus
}
#endif
#endif
