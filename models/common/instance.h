/* The FMI-version-neutral half of the glue: one model instance (its mode,
 * time, data and logging), value access by value reference with the mode and
 * causality rules both FMI versions share (instance.c), and FMU state snapshots
 * and their serialization (fmu_state.c). fmi2_glue.c and fmi3_glue.c are thin
 * wrappers around it. */
#ifndef RTCOSIM_MODEL_INSTANCE_H
#define RTCOSIM_MODEL_INSTANCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* Modes of the FMI state machines (co-simulation: FMI 2.0 section 4.2.4, FMI
 * 3.0 section 4.3; model exchange: FMI 2.0 section 3.2.3, FMI 3.0 section
 * 3.2), as bits so that a function can name the modes it is allowed in as
 * one mask. */
typedef enum instance_mode {
    MODE_INSTANTIATED = 1u << 0,
    MODE_INITIALIZATION = 1u << 1,
    MODE_STEP = 1u << 2,
    MODE_TERMINATED = 1u << 3,
    MODE_ERROR = 1u << 4,
    MODE_FATAL = 1u << 5,
    MODE_EVENT = 1u << 6,          /* model exchange: Event Mode */
    MODE_CONTINUOUS_TIME = 1u << 7 /* model exchange: Continuous-Time Mode */
} instance_mode;

#define MODE_LAST MODE_CONTINUOUS_TIME
/* After initialization, before termination, in either interface. */
#define MODE_RUNNING (MODE_STEP | MODE_EVENT | MODE_CONTINUOUS_TIME)
#define MODE_ANY_BUT_FATAL                                                                 \
    (MODE_INSTANTIATED | MODE_INITIALIZATION | MODE_RUNNING | MODE_TERMINATED | MODE_ERROR)

struct model_instance {
    const model_def *model;
    char *name;
    char *resource_location; /* NULL when the importer gave none */
    bool fmi2;               /* FMI 2.0 logs errors even with logging off */
    bool fmi1;               /* FMI 1.0 (no modes: discrete inputs set at any time) */
    bool model_exchange;     /* instantiated for model exchange */
    instance_mode mode;
    double time;
    double start_time;
    double stop_time;
    bool stop_time_defined;
    double tolerance;
    bool tolerance_defined;
    /* A value was set since outputs were last computed: the next get
     * recomputes them (initialize in Initialization Mode, evaluate after). */
    bool dirty;
    /* The last step ended early (Discard); FMI 2.0 fmi2Terminated and
     * fmi2LastSuccessfulTime, FMI 3.0 terminateSimulation/lastSuccessfulTime. */
    bool terminate_requested;
    bool discard_recoverable; /* the model's current step discards without asking to terminate */
    bool has_arrays;          /* some variable is an FMI 3.0 array */
    double last_successful_time;
    /* FMI 3.0 co-simulation with Event Mode and early return (cs_events.c):
     * the importer's flags, and what the last step reported. */
    bool event_mode_used;
    bool early_return_allowed;
    bool event_needed;  /* eventHandlingNeeded of the last step */
    bool returned_early; /* the last step ended at early_time, before t + h */
    double early_time;
    /* The importer's intermediate-update callback (FMI 3.0 section 4.2.3),
     * wrapped by the version glue; returns whether it asks for an early
     * return. NULL: none given. */
    bool (*intermediate_update)(model_instance *inst, double time, bool can_return_early);
    uint32_t log_mask; /* bit c: category c enabled */
    unsigned char *data;

    /* Set by the version glue. */
    void *(*calloc_fn)(size_t count, size_t size);
    void (*free_fn)(void *ptr);
    void (*emit)(model_instance *inst, model_status status, const char *category,
                 const char *message);
};

/* The category names declared in modelDescription.xml, indexed by
 * model_log_category, and their descriptions. */
extern const char *const model_log_category_names[MODEL_LOG_CATEGORY_COUNT];
extern const char *const model_log_category_descriptions[MODEL_LOG_CATEGORY_COUNT];

/* Fills the version-neutral fields of an instance the glue has zeroed and
 * set calloc_fn/free_fn/emit on, and applies the start values. Returns false
 * (after logging) when out of memory; the instance must then be destroyed. */
bool instance_init(model_instance *inst, const char *name, const char *resource_location,
                   bool fmi2, bool logging_on);
void instance_destroy(model_instance *inst);

/* Back to the state right after instantiation (FMI Reset). */
model_status instance_reset(model_instance *inst);

bool instance_log_enabled(const model_instance *inst, model_log_category category);
/* Logs an error in MODEL_LOG_STATUS_ERROR; returns MODEL_ERROR for tail calls. */
model_status instance_error(model_instance *inst, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Enables or disables categories by name (FMI SetDebugLogging). */
model_status instance_set_debug_logging(model_instance *inst, bool logging_on,
                                        size_t n_categories, const char *const categories[]);

/* True when the instance is in one of the modes of mask; else logs
 * "<function>: not allowed in <mode>" and returns false. */
bool instance_refuse_(model_instance *inst, const char *function);
static inline bool instance_allowed(model_instance *inst, unsigned mask, const char *function)
{
    return (inst->mode & mask) != 0 || instance_refuse_(inst, function);
}

/* Logs an FMI call in MODEL_LOG_CALLS when that category is on (every glue). */
#define TRACE(inst, ...)                                                                   \
    do {                                                                                   \
        if (instance_log_enabled((inst), MODEL_LOG_CALLS))                                 \
            model_log((inst), MODEL_LOG_CALLS, __VA_ARGS__);                               \
    } while (0)

/* The start of a status query (FMI 1.0/2.0 fmi*Get*Status): an instance in
 * one of the modes of mask and a value pointer; else logs why and returns
 * false. */
static inline bool instance_begin_query(model_instance *inst, unsigned mask, const void *value,
                                        const char *function)
{
    if (!inst || !instance_allowed(inst, mask, function))
        return false;
    if (!value) {
        instance_error(inst, "%s: value pointer is NULL", function);
        return false;
    }
    return true;
}

/* Lifecycle steps shared by both versions. */
model_status instance_setup(model_instance *inst, bool tolerance_defined, double tolerance,
                            double start_time, bool stop_time_defined, double stop_time);
model_status instance_enter_initialization(model_instance *inst, const char *function);
model_status instance_exit_initialization(model_instance *inst, const char *function);
model_status instance_terminate(model_instance *inst, const char *function);
/* Checks the communication point and step, runs the model's step, moves the
 * mode on an error. */
model_status instance_do_step(model_instance *inst, double t, double h, const char *function);

/* Values. `values` is an array of n elements of the C type of `type`
 * (bool for MODEL_BOOLEAN, const char * for MODEL_STRING). Every value
 * reference is checked: unknown, of another type, or (FMI 2.0) not part of
 * FMI 2.0, and for sets: not settable in the current mode. */
model_status instance_get(model_instance *inst, const char *function, const uint32_t vr[],
                          size_t n, model_type type, void *values);
model_status instance_set(model_instance *inst, const char *function, const uint32_t vr[],
                          size_t n, model_type type, const void *values);
/* The checks of instance_set alone, for callers that convert values first. */
/* Values a get/set of these references moves (arrays count their elements). */
size_t instance_value_count(model_instance *inst, const uint32_t vr[], size_t n);
model_status instance_check_set(model_instance *inst, const char *function, const uint32_t vr[],
                                size_t n, model_type type);
model_status instance_get_binary(model_instance *inst, const char *function, const uint32_t vr[],
                                 size_t n, size_t sizes[], const unsigned char *values[]);
model_status instance_set_binary(model_instance *inst, const char *function, const uint32_t vr[],
                                 size_t n, const size_t sizes[],
                                 const unsigned char *const values[]);

/* Strings and Binaries in a model's data are owned by the instance. */
bool instance_type_is_owned(model_type type);
/* Frees every String and Binary held in data and clears the fields. */
void instance_free_owned(model_instance *inst, unsigned char *data);
/* dst = src with Strings and Binaries duplicated; dst holds nothing owned
 * before, and nothing owned after a failure (out of memory). */
bool instance_copy_data(model_instance *inst, unsigned char *dst, const unsigned char *src);

/* FMU state (fmu_state.c): an opaque snapshot of mode, time and model data (deep copy of
 * Strings and Binaries). */
model_status instance_get_state(model_instance *inst, void **state);
model_status instance_set_state(model_instance *inst, const void *state);
model_status instance_free_state(model_instance *inst, void **state);
model_status instance_serialized_size(model_instance *inst, const void *state, size_t *size);
model_status instance_serialize(model_instance *inst, const void *state, unsigned char *buffer,
                                size_t size);
model_status instance_deserialize(model_instance *inst, const unsigned char *buffer, size_t size,
                                  void **state);

const char *instance_mode_name(instance_mode mode);

/* Model exchange (me.c), shared by the FMI 2.0 and 3.0 functions of chapter
 * 3: `function` names the caller in messages. Array lengths must equal the
 * model's number of states / event indicators. */
size_t instance_state_count(const model_def *m);
model_status instance_set_time(model_instance *inst, const char *function, double time);
model_status instance_set_continuous_states(model_instance *inst, const char *function,
                                            const double x[], size_t nx);
model_status instance_get_continuous_states(model_instance *inst, const char *function,
                                            double x[], size_t nx);
model_status instance_get_derivatives(model_instance *inst, const char *function, double dx[],
                                      size_t nx);
model_status instance_get_nominals(model_instance *inst, const char *function, double x[],
                                   size_t nx);
model_status instance_get_event_indicators(model_instance *inst, const char *function,
                                           double z[], size_t nz);
model_status instance_enter_event_mode(model_instance *inst, const char *function);
model_status instance_evaluate_discrete_states(model_instance *inst, const char *function);
model_status instance_update_discrete_states(model_instance *inst, const char *function,
                                             model_event_result *result);
model_status instance_enter_continuous_time_mode(model_instance *inst, const char *function);
/* Co-simulation with Event Mode (cs_events.c): the step of a model with
 * step_to_event, and Event Mode -> Step Mode (fmi3EnterStepMode). */
model_status instance_advance(model_instance *inst, double t, double h);
model_status instance_enter_step_mode(model_instance *inst, const char *function);

model_status instance_completed_integrator_step(model_instance *inst, const char *function,
                                                bool *enter_event_mode, bool *terminate);

#endif
