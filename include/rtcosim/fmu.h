/* Loading FMUs (FMI 2.0 and 3.0, co-simulation or model exchange) as rtcosim components.
 * rtcosim_fmu_load unzips the archive into a private temporary directory
 * (removed again when the component is freed), reads and validates
 * modelDescription.xml, dlopens the platform binary and resolves every FMI
 * function the component interface uses. The result is an ordinary
 * rtcosim_component: the master drives it like any other. A model-exchange
 * FMU is integrated by rtcosim itself (SUNDIALS CVODE or explicit Euler):
 * do_step(t, h) solves its continuous states over [t, t+h], handling state,
 * time and step events in the FMU's Event Mode. */
#ifndef RTCOSIM_FMU_H
#define RTCOSIM_FMU_H

#include <stdbool.h>
#include <stdint.h>

#include "rtcosim/component.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rtcosim_fmi_version {
    RTCOSIM_FMI_1 = 1, /* co-simulation and model exchange (see src/fmi/README.md) */
    RTCOSIM_FMI_2 = 2,
    RTCOSIM_FMI_3 = 3
} rtcosim_fmi_version;

/* Which FMI interface of the FMU to use. */
typedef enum rtcosim_fmi_interface {
    RTCOSIM_FMI_CO_SIMULATION = 0,
    RTCOSIM_FMI_MODEL_EXCHANGE,
    RTCOSIM_FMI_SCHEDULED_EXECUTION /* FMI 3.0 chapter 5: see rtcosim/fmu_clocks.h */
} rtcosim_fmi_interface;

/* The integrator of a model-exchange FMU. */
typedef enum rtcosim_me_solver {
    RTCOSIM_ME_SOLVER_CVODE = 0, /* variable-order BDF, dense Newton, root finding on
                                    the event indicators (SUNDIALS CVODE) */
    RTCOSIM_ME_SOLVER_EULER      /* fixed-step explicit Euler; state events at the end
                                    of the micro step in which an indicator changed sign */
} rtcosim_me_solver;

typedef struct rtcosim_fmu_options {
    bool log_fmi_calls;     /* log every FMI call at DEBUG level, category "fmi" */
    bool visible;           /* FMI visible/interactive flag */
    bool fmu_logging_on;    /* FMI loggingOn: ask the FMU for its own log messages */
    const char *temp_dir;   /* parent of the extraction directory; NULL: $TMPDIR or /tmp */
    uint64_t max_unpacked_bytes; /* limit on the archive's inflated size; 0: 4 GiB */
    rtcosim_fmi_interface interface_type; /* default: co-simulation */
    rtcosim_me_solver solver;       /* model exchange only; default CVODE */
    /* Model exchange with Euler: largest micro step; 0: one micro step per
     * do_step. With CVODE: largest internal step; 0: unlimited. */
    rtcosim_time_ns max_solver_step;
    /* Strict model-description checking: a rule of the standard whose
     * violation would not stop a correct run (logged as a warning naming the
     * variable otherwise, as the Reference FMUs and fmusim are lenient there)
     * refuses the FMU. */
    bool strict;
    /* FMI 3.0 co-simulation (fmusim's --event-mode-used): instantiate with
     * eventModeUsed, so that events are handled in Event Mode through the
     * component's event ops (an FMU without hasEventMode is refused). */
    bool event_mode_used;
    /* As event_mode_used for an FMI 3.0 co-simulation FMU that declares
     * hasEventMode, and nothing for any other (rtcosim run --event-mode-used:
     * one option for every FMU of a system). */
    bool event_mode_where_declared;
    /* FMI 3.0 co-simulation (--early-return-allowed): instantiate with
     * earlyReturnAllowed and an intermediate-update callback; a step may
     * then end early at last_successful_time. */
    bool early_return_allowed;
    /* With interface_type co-simulation: an FMU that offers only model
     * exchange (FMI 1.0 without an Implementation element, FMI 2.0/3.0
     * without CoSimulation) is loaded for model exchange with an info line,
     * as FMPy simulates it, instead of being refused. */
    bool model_exchange_fallback;
    /* As early_return_allowed for an FMI 3.0 co-simulation FMU that declares
     * canReturnEarlyAfterIntermediateUpdate, and nothing for any other
     * (rtcosim run --early-return-allowed: one option for a system). */
    bool early_return_where_declared;
    /* Right after instantiation, set every variable settable then (variability
     * not constant, initial exact or approx) to the start value its
     * description declares, as FMPy's apply_default_start_values (for FMUs
     * that rely on the importer for them). Last: the Python package mirrors
     * the fields before it (python/rtcosim/_lib.py). */
    bool apply_default_start_values;
} rtcosim_fmu_options;

/* Facts from modelDescription.xml beyond what the component description holds
 * (for `rtcosim info`). Strings live as long as the component. */
typedef struct rtcosim_fmu_info {
    rtcosim_fmi_version fmi_version;
    const char *fmi_version_text;  /* as written, e.g. "2.0", "3.0" */
    const char *model_name;
    const char *instantiation_token; /* FMI 2.0 guid / FMI 3.0 instantiationToken */
    const char *description;       /* may be NULL */
    const char *author;            /* may be NULL */
    const char *version;           /* may be NULL */
    const char *generation_tool;   /* may be NULL */
    const char *generation_date;   /* may be NULL */
    const char *model_identifier;  /* modelIdentifier of the interface in use */
    const char *extracted_dir;     /* where the archive was unpacked */
    const char *binary_path;       /* the shared object that was loaded */
    /* Indices into the component's variable table of the outputs listed in
     * ModelStructure/Outputs (FMI 2.0) or ModelStructure/Output (FMI 3.0). */
    const size_t *output_indices;
    size_t output_count;
    rtcosim_fmi_interface interface_type; /* the interface loaded */
    size_t state_count;              /* model exchange: continuous states */
    size_t event_indicator_count;    /* model exchange: event indicators */
    /* The outputs' ModelStructure `dependencies` (parallel to output_indices;
     * NULL when output_count is 0). output_dependencies_declared[k] false:
     * the attribute is absent and output k depends on all inputs (FMI 2.0
     * section 2.2.8, FMI 3.0 section 2.4.8); true: it depends exactly on the
     * variables (indices into the component's variable table)
     * output_dependencies[output_dependency_start[k] ..
     * output_dependency_start[k + 1]), none when the list is empty. */
    const bool *output_dependencies_declared;
    const size_t *output_dependency_start;
    const size_t *output_dependencies;
    /* Rules of the standard the model description breaks in ways that do not
     * stop a correct run (each logged as a warning naming the variable). */
    size_t model_description_warnings;
    /* FMI 1.0 only (NULL / 0 otherwise): "model exchange", "co-simulation
     * stand-alone" or "co-simulation tool" (CS 1.0 section 2, Implementation),
     * and the number of negatedAlias variables, which get references of
     * rtcosim's own and read/write the negated value of their base. */
    const char *fmi1_kind;
    size_t negated_alias_count;
    /* The interfaces modelDescription.xml declares (CoSimulation,
     * ModelExchange, ScheduledExecution elements; FMI 1.0: Implementation
     * or not), whichever one was loaded. */
    bool has_co_simulation;
    bool has_model_exchange;
    bool has_scheduled_execution;
    /* The FMU had no binary for this platform: binary_path was built from
     * its sources when it was loaded (src/fmi/README.md). */
    bool binary_built_from_sources;
} rtcosim_fmu_info;

/* What the integrator of a model-exchange FMU did so far. */
typedef struct rtcosim_me_stats {
    uint64_t solver_steps;     /* CVODE internal steps or Euler micro steps */
    uint64_t rhs_evaluations;  /* derivative evaluations requested by the solver */
    uint64_t root_evaluations; /* event indicator evaluations for root finding */
    uint64_t state_events;     /* events located on an event indicator */
    uint64_t time_events;      /* events at a time the FMU announced */
    uint64_t step_events;      /* events the FMU asked for after an integrator step */
    uint64_t input_events;     /* changed discrete inputs or tunable parameters, set
                                  in Event Mode */
    uint64_t reinits;          /* solver restarts (after events, inputs, state restores) */
    double last_event_time;    /* seconds; NaN before the first event */
} rtcosim_me_stats;

/* Model exchange: told of every event the integrator handles (state, time
 * and step events inside a step; an input event, when a discrete input or
 * tunable parameter set in Continuous-Time Mode changes): once before it
 * (after false), the FMU in Continuous-Time Mode at the event time holding
 * the values just before the event, and once after its event iteration
 * (after true; not when the FMU asked to terminate there). Results
 * recorders write a row at each, as fmusim and FMPy do. A non-OK return
 * ends the step or set with that status. */
typedef rtcosim_status (*rtcosim_me_event_observer)(void *context, double time, bool after,
                                                    rtcosim_error *err);

/* Model exchange: sets the continuous inputs at `time`, called whenever the
 * integrator tells the FMU a new time (each right-hand side and event
 * indicator evaluation, where a step or event ends), as fmusim's CVODE
 * applies its input file; without one, inputs hold over a step. Its sets
 * (rtcosim_component_set of continuous inputs) do not restart the solver. A
 * non-OK return fails the step with that status. */
typedef rtcosim_status (*rtcosim_me_input_source)(void *context, double time,
                                                  rtcosim_error *err);

/* Load an FMU archive. Errors name the file and the problem in one line
 * ("model.fmu: modelDescription.xml: variable 'x': ..."). opts may be NULL. */
rtcosim_status rtcosim_fmu_load(const char *path, const rtcosim_fmu_options *opts,
                                rtcosim_component **out, rtcosim_error *err);

/* As rtcosim_fmu_load, but the description alone: the archive is unpacked
 * and modelDescription.xml read and checked as for a run, no binary is
 * loaded. The component describes the FMU (variables, capabilities,
 * rtcosim_fmu_info with binary_path NULL) and every call that would need
 * the binary fails naming the FMU (`rtcosim info` of an FMU built for
 * another platform, or whose library does not load). */
rtcosim_status rtcosim_fmu_describe(const char *path, const rtcosim_fmu_options *opts,
                                    rtcosim_component **out, rtcosim_error *err);

/* The platforms an unpacked FMU (rtcosim_fmu_info.extracted_dir) holds
 * binaries for: the folders under binaries/ ("linux64", "x86_64-linux",
 * ...) in name order, comma-separated, then "sources" when it ships its C
 * sources; "" for none. Returns the whole text's length, as snprintf. */
size_t rtcosim_fmu_platforms(const char *extracted_dir, char *text, size_t size);

/* The FMU facts of a component made by rtcosim_fmu_load or
 * rtcosim_fmu_describe; NULL for other kinds. */
const rtcosim_fmu_info *rtcosim_fmu_info_of(const rtcosim_component *c);

/* Integrator statistics of a model-exchange FMU; RTCOSIM_EINVAL naming the
 * component when it is not one. */
rtcosim_status rtcosim_fmu_me_stats(const rtcosim_component *c, rtcosim_me_stats *out,
                                    rtcosim_error *err);

/* Set (or with NULL clear) the event observer of a model-exchange FMU;
 * RTCOSIM_EINVAL naming the component when it is not one. */
rtcosim_status rtcosim_fmu_me_observe_events(rtcosim_component *c,
                                             rtcosim_me_event_observer observer, void *context,
                                             rtcosim_error *err);

/* Model exchange: an input event now, at the time reached (the observer's
 * row before it, Event Mode), as fmusim makes one at every event of its
 * input file; the inputs set next are set in Event Mode, and the next get,
 * step, snapshot or terminate ends it (event iteration, the row after).
 * Without it an input event happens only when a discrete input changes.
 * Nothing happens during initialization or when an event is open already. */
rtcosim_status rtcosim_fmu_me_enter_input_event(rtcosim_component *c, rtcosim_error *err);

/* Set (or with NULL clear) the input source of a model-exchange FMU;
 * RTCOSIM_EINVAL naming the component when it is not one. */
rtcosim_status rtcosim_fmu_me_input_source(rtcosim_component *c, rtcosim_me_input_source source,
                                           void *context, rtcosim_error *err);

/* Model exchange, as fmusim's --initial-fmu-state-file: restore the FMU's
 * own serialized state (fmi2SerializeFMUstate / fmi3SerializeFMUState bytes,
 * nothing added) in Continuous-Time Mode, after initialization, and restart
 * the integrator from the continuous states it holds at the integrator's
 * present time. As in fmusim, no event iteration follows: a time event the
 * state announces is not known until the next event. RTCOSIM_EINVAL naming
 * the component when it is not a model-exchange FMU. */
rtcosim_status rtcosim_fmu_me_set_fmu_state(rtcosim_component *c, const uint8_t *bytes,
                                            size_t size, rtcosim_error *err);

/* Model exchange, as fmusim's --final-fmu-state-file: the FMU's own
 * serialized state now, in *bytes (malloc'd, the caller frees it). */
rtcosim_status rtcosim_fmu_me_get_fmu_state(rtcosim_component *c, uint8_t **bytes, size_t *size,
                                            rtcosim_error *err);

#ifdef __cplusplus
}
#endif
#endif
