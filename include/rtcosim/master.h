/* The co-simulation master: steps a set of connected components in macro
 * steps (fixed integer-nanosecond H with per-component integer multiples, or
 * adaptive), in Jacobi order (optionally on a persistent worker pool, results
 * bit-identical to the sequential run) or Gauss-Seidel order (topological
 * from direct-feedthrough dependencies), with per-connection coupling
 * (extrapolation, energy-preserving correction; see coupling.h).
 *
 * Use: create -> add components -> connect -> set options / start values ->
 * initialize -> run (or step repeatedly) -> free. Every setup error names the
 * component, variable or connection at fault. The hot path (step) does not
 * allocate, lock (other than the worker barrier) or do I/O. */
#ifndef RTCOSIM_MASTER_H
#define RTCOSIM_MASTER_H

#include <stdbool.h>
#include <stddef.h>

#include "rtcosim/component.h"
#include "rtcosim/coupling.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rtcosim_master rtcosim_master;

typedef enum rtcosim_order {
    RTCOSIM_ORDER_JACOBI = 0,   /* every component steps from the same exchanged data */
    RTCOSIM_ORDER_GAUSS_SEIDEL  /* in dependency order, each using its producers' new outputs */
} rtcosim_order;

/* Step multiple meaning "follow the adaptive macro step" (with step control
 * off it behaves as 1). */
#define RTCOSIM_MASTER_VARIABLE_STEP 0u

/* Create a master with base macro step H (> 0 ns). */
rtcosim_status rtcosim_master_create(rtcosim_time_ns macro_step, rtcosim_master **out,
                                     rtcosim_error *err);
/* Frees the master and every component added to it. NULL is a no-op. */
void rtcosim_master_free(rtcosim_master *m);

/* Add a component (freshly created, not yet instantiated) under an instance
 * name; it steps every `step_multiple` base macro steps. The master takes
 * ownership of the component in every case, also on failure (then it is
 * freed at once). Errors: duplicate name, empty name, after initialize. */
rtcosim_status rtcosim_master_add_component(rtcosim_master *m, const char *name,
                                            rtcosim_component *component,
                                            unsigned step_multiple, rtcosim_error *err);

/* Give a component added earlier its own communication step (a multiple of
 * H; anything else is an error naming the component). */
rtcosim_status rtcosim_master_set_component_step(rtcosim_master *m, const char *name,
                                                 rtcosim_time_ns step, rtcosim_error *err);

/* Connect an output "comp.var" to an input "comp.var" (the component name is
 * the text before the first '.'). opts NULL: the master's coupling defaults
 * at initialize time. Checks at once: unknown component or variable (named),
 * causality (from must be an output, to an input), an input with two
 * sources, incompatible types, and declared units that differ without a
 * transformation. */
rtcosim_status rtcosim_master_connect(rtcosim_master *m, const char *from, const char *to,
                                      const rtcosim_coupling_options *opts, rtcosim_error *err);

/* Declare a power bond: the effort connection (e.g. a force) and the flow
 * connection (the matching velocity), each named by its input end "comp.var".
 * The master then measures the energy the coupling creates per interval
 * (reported by rtcosim_master_bond_stats and used by the step controller). */
rtcosim_status rtcosim_master_add_power_bond(rtcosim_master *m, const char *effort_input,
                                             const char *flow_input, rtcosim_error *err);

void rtcosim_master_set_order(rtcosim_master *m, rtcosim_order order);
/* Coupling options for connections made with opts == NULL. */
void rtcosim_master_set_coupling_defaults(rtcosim_master *m, const rtcosim_coupling_options *opts);
/* The order and the coupling defaults a run uses (for its summary). */
rtcosim_order rtcosim_master_get_order(const rtcosim_master *m);
const rtcosim_coupling_options *rtcosim_master_coupling_defaults(const rtcosim_master *m);
/* Threads that step components in parallel (1: sequential, the default):
 * Jacobi steps every component of a macro step at once, Gauss-Seidel the
 * components of one dependency level (no data between them within the step),
 * bit-identical to the sequential run either way. The master measures each
 * component's step time, assigns components to threads by that cost
 * (longest first onto the least loaded thread; re-balanced when costs
 * drift), and uses fewer threads, down to one, while the measured costs say
 * the hand-off would cost more than the parallel steps save (see
 * rtcosim_master_get_parallel). RTCOSIM_MASTER_THREADS_AUTO: up to the CPUs
 * this process may run on. */
#define RTCOSIM_MASTER_THREADS_AUTO 0u
rtcosim_status rtcosim_master_set_threads(rtcosim_master *m, unsigned threads, rtcosim_error *err);
/* false: always use all the threads set, whatever the measured costs (for
 * measuring the hand-off itself); true (default): fall back as above. */
rtcosim_status rtcosim_master_set_thread_fallback(rtcosim_master *m, bool fallback,
                                                  rtcosim_error *err);
/* true: the pool's worker threads run SCHED_IDLE, so that they only take
 * CPU time no other thread wants and never delay one (the non-real-time
 * part of a real-time run uses the paced thread's slack this way). The
 * measured hand-off then includes their waits, and the master falls back
 * to one thread while they get no CPU. Default false. */
rtcosim_status rtcosim_master_set_idle_workers(rtcosim_master *m, bool idle, rtcosim_error *err);
/* true: a start value outside its variable's declared min/max is refused by
 * rtcosim_master_set_start_value with an error naming the variable and its
 * range; false (default): logged as a warning (category "master") and kept. */
void rtcosim_master_set_strict_ranges(rtcosim_master *m, bool strict);
/* The clock that measures component step costs (default: CLOCK_MONOTONIC in
 * ns), called on the thread that steps the component just before and after
 * its step. A clock that a component advances by a cost of its own makes the
 * scheduling a function of those costs alone (deterministic tests). */
typedef int64_t (*rtcosim_master_cost_clock)(void *context);
rtcosim_status rtcosim_master_set_cost_clock(rtcosim_master *m, rtcosim_master_cost_clock clock,
                                             void *context, rtcosim_error *err);
/* Adaptive macro step; checked at initialize (a component following the
 * variable step must be able to handle variable steps). */
rtcosim_status rtcosim_master_set_step_control(rtcosim_master *m, const rtcosim_step_control *sc,
                                               rtcosim_error *err);
/* With step control: adaptive steps end on every point start + k interval
 * (output rows at those times, `rtcosim run --output-interval`); 0: none. */
rtcosim_status rtcosim_master_set_step_grid(rtcosim_master *m, rtcosim_time_ns interval,
                                           rtcosim_error *err);
/* Relative tolerance passed to components' setup (<= 0: none, the default). */
void rtcosim_master_set_tolerance(rtcosim_master *m, double tolerance);

/* Declare the direct feedthrough of an output: the inputs (variable names of
 * the same component) it depends on; n == 0 means none. A declaration
 * overrides what the component states itself: native components in their
 * variable table, FMUs in their ModelStructure `dependencies` (where the
 * attribute is absent the output depends on all inputs, the FMI default, as
 * do outputs of any other kind of component). */
rtcosim_status rtcosim_master_set_feedthrough(rtcosim_master *m, const char *output,
                                              const char *const *inputs, size_t n,
                                              rtcosim_error *err);

/* A start value for "comp.var" as text ("1.5", "true", "3"), applied in
 * initialization mode; for a whole FMI 3.0 array "comp.arr" a white-space
 * separated list of every element, row-major. Unknown names and unparsable
 * values fail at once. */
rtcosim_status rtcosim_master_set_start_value(rtcosim_master *m, const char *name,
                                              const char *text, rtcosim_error *err);

/* Observe "comp.var" (any variable; "comp.arr" every element of an FMI 3.0
 * array). Without any call the master observes
 * every output of every component, in component and variable-table order. */
rtcosim_status rtcosim_master_observe(rtcosim_master *m, const char *name, rtcosim_error *err);

/* Observe the error signal of the connection into input "comp.var": the
 * integrated extrapolation error E_k of its latest reconciled interval (see
 * coupling.h), named "comp.var.coupling_error". Connect first. */
rtcosim_status rtcosim_master_observe_coupling_error(rtcosim_master *m, const char *input,
                                                     rtcosim_error *err);

/* Instantiate, set up, enter initialization, apply start values, propagate
 * values through the connections until they are consistent (fixed-point
 * iteration with a bound; non-convergence names the connection), exit
 * initialization, and resolve the step order (an algebraic loop fails with
 * RTCOSIM_ELOOP naming the components and variables on it). stop < 0: none. */
rtcosim_status rtcosim_master_initialize(rtcosim_master *m, rtcosim_time_ns start,
                                         rtcosim_time_ns stop, rtcosim_error *err);

/* Called after initialization (at the start time) and after every macro step
 * with the time and the observed values (as double; names from
 * rtcosim_master_observed_name). A non-OK return stops the run with that
 * status. In multi-rate runs a component's values are those of its latest
 * communication point. */
typedef rtcosim_status (*rtcosim_master_observer)(void *context, rtcosim_time_ns t,
                                                  const double *values, size_t count,
                                                  rtcosim_error *err);

/* One macro step (to the next communication point; with step control the
 * controller chooses it). Does not call an observer. */
rtcosim_status rtcosim_master_step(rtcosim_master *m, rtcosim_error *err);
/* Step until `stop` (the last step is shortened to end exactly at stop when
 * the components can vary their step, otherwise stop must be on the grid).
 * observer may be NULL. */
rtcosim_status rtcosim_master_run(rtcosim_master *m, rtcosim_time_ns stop,
                                  rtcosim_master_observer observer, void *context,
                                  rtcosim_error *err);

rtcosim_time_ns rtcosim_master_time(const rtcosim_master *m);
/* The macro step the next step will use (adaptive: the controller's choice). */
rtcosim_time_ns rtcosim_master_next_step(const rtcosim_master *m);
uint64_t rtcosim_master_step_count(const rtcosim_master *m);
/* The smallest and largest tick taken so far (0, 0 before the first). */
void rtcosim_master_step_range(const rtcosim_master *m, rtcosim_time_ns *smallest,
                               rtcosim_time_ns *largest);
/* Event iterations after steps so far (FMI 3.0 Event Mode; the one after
 * initialization not counted); 0 without event-mode components. */
uint64_t rtcosim_master_event_count(const rtcosim_master *m);
/* Steps a component ended early so far (FMI 3.0 earlyReturn before the end
 * of its step: the macro step then ended at its lastSuccessfulTime). */
uint64_t rtcosim_master_early_return_count(const rtcosim_master *m);
/* Whether a component asked to end the run (FMI 3.0 terminateSimulation, or
 * a discarded step with the FMI 2.0 fmi2Terminated / FMI 3.0
 * terminateSimulation request); the run then ended normally. *component gets
 * its instance name, *on_discard whether its step was discarded: the run
 * then ended at the start of that tick (the last time every component
 * reached), its partial tick neither published nor recorded. Outputs may be
 * NULL. */
bool rtcosim_master_terminated(const rtcosim_master *m, const char **component, bool *on_discard);

size_t rtcosim_master_observed_count(const rtcosim_master *m);
const char *rtcosim_master_observed_name(const rtcosim_master *m, size_t index); /* "comp.var" */
/* Whether the FMU refused to give this observed input or structural parameter
 * at initialization (a warning; its value is NaN, its results column empty). */
bool rtcosim_master_observed_refused(const rtcosim_master *m, size_t index);
/* The variable behind observed column `index` (unit, description,
 * variability for result files); NULL for a coupling error signal. */
const rtcosim_variable *rtcosim_master_observed_variable(const rtcosim_master *m, size_t index);
/* String and Binary variables observed by name (the default observation
 * is every numeric output). They are not among the observed values
 * (doubles): rtcosim_master_text_observed_values reads them from their
 * components into values[0..count) (strings and bytes valid until the next
 * call into that component), e.g. in the observer, on the master's thread,
 * not with proxies of other ranks. */
size_t rtcosim_master_text_observed_count(const rtcosim_master *m);
const char *rtcosim_master_text_observed_name(const rtcosim_master *m, size_t index); /* "comp.var" */
rtcosim_type rtcosim_master_text_observed_type(const rtcosim_master *m, size_t index);
const rtcosim_variable *rtcosim_master_text_observed_variable(const rtcosim_master *m,
                                                              size_t index);
rtcosim_status rtcosim_master_text_observed_values(rtcosim_master *m, rtcosim_value *values,
                                                   rtcosim_error *err);
/* The observed values at the current time (gathered on each call). */
const double *rtcosim_master_observed_values(rtcosim_master *m);
/* The type observed column `index` is recorded in: RTCOSIM_TYPE_INT64 or
 * _UINT64 for such a variable the master reads (a double holds 53 bits:
 * 2^53 + 1 and 2^63 - 1 do not survive it), RTCOSIM_TYPE_FLOAT64 for every
 * other column (other types, a connection's error signal, a value the FMU
 * refused). Known once the master is initialized. */
rtcosim_type rtcosim_master_observed_type(const rtcosim_master *m, size_t index);
/* A column of type Int64 or UInt64 (rtcosim_master_observed_type): its
 * current value into value->i64 or ->u64, read from the outputs
 * rtcosim_master_observed_values reads (so an observer gets the values of
 * its row); false for every other column. */
bool rtcosim_master_observed_exact(const rtcosim_master *m, size_t index, rtcosim_value *value);

size_t rtcosim_master_component_count(const rtcosim_master *m);
rtcosim_component *rtcosim_master_component(const rtcosim_master *m, const char *name);
/* The component added index-th (0-based; NULL past the last). */
rtcosim_component *rtcosim_master_component_at(const rtcosim_master *m, size_t index);
/* Its name in the master (NULL past the last). */
const char *rtcosim_master_component_name_at(const rtcosim_master *m, size_t index);
/* The Gauss-Seidel step order (after initialize or rtcosim_master_plan_order):
 * component names in order. */
const char *rtcosim_master_order_name(const rtcosim_master *m, size_t position);
/* Work out the step order from the connections and the components' declared
 * direct feedthrough (an FMU's ModelStructure) without initializing: no
 * component is instantiated, so it also works on a master of described
 * FMUs (rtcosim_system_build_options.describe_only). Errors: an algebraic
 * loop under Gauss-Seidel, naming its variables. Initialize works it out
 * again. */
rtcosim_status rtcosim_master_plan_order(rtcosim_master *m, rtcosim_error *err);

size_t rtcosim_master_connection_count(const rtcosim_master *m);
/* Binary and Clock connections, passed only in the event iteration and not
 * counted above (no coupling statistics). */
size_t rtcosim_master_event_connection_count(const rtcosim_master *m);
const char *rtcosim_master_connection_name(const rtcosim_master *m, size_t index); /* "a.y -> b.u" */
rtcosim_status rtcosim_master_coupling_stats(const rtcosim_master *m, size_t index,
                                             rtcosim_coupling_stats *out, rtcosim_error *err);
/* Parallel stepping of a run (rtcosim_master_set_threads). */
typedef struct rtcosim_master_parallel {
    unsigned threads;        /* threads available (the pool's size; 1: none) */
    unsigned threads_used;   /* threads the current plan uses (1: fallback) */
    bool automatic;          /* threads chosen as RTCOSIM_MASTER_THREADS_AUTO */
    bool fallback;           /* falls back from measured costs (else always all threads) */
    uint64_t measured_steps; /* macro steps whose component costs were measured */
    uint64_t parallel_steps; /* macro steps that used more than one thread */
    uint64_t rebalances;     /* changes of the assignment after the first plan */
    double work_ns;          /* measured component work per macro step (sum of costs) */
    double span_ns;          /* its longest thread share under the current plan */
    double handoff_ns;       /* measured hand-off per parallel group (0: none measured) */
    uint64_t sleeps;         /* waits of the pool's threads that ended asleep */
} rtcosim_master_parallel;
rtcosim_status rtcosim_master_get_parallel(const rtcosim_master *m, rtcosim_master_parallel *out,
                                           rtcosim_error *err);
/* One line for a run summary, e.g. "threads: 2 of 2 (Jacobi, by measured
 * cost: 40.1 us work, 20.3 us span per step)" or "threads: 1 of 2
 * (fallback: ...)". */
void rtcosim_master_describe_parallel(const rtcosim_master *m, char *buf, size_t size);
/* The thread component `index` (in the order added) runs on under the
 * current plan, and its measured step cost in ns (cost clock units; 0 before
 * the first measurement). */
unsigned rtcosim_master_component_thread(const rtcosim_master *m, size_t index);
double rtcosim_master_component_cost(const rtcosim_master *m, size_t index);

size_t rtcosim_master_bond_count(const rtcosim_master *m);
rtcosim_status rtcosim_master_bond_stats(const rtcosim_master *m, size_t index,
                                         rtcosim_bond_stats *out, rtcosim_error *err);

#ifdef __cplusplus
}
#endif
#endif
