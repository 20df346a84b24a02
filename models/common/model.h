/* The interface between one model's equations (models/<name>/model.c) and the
 * FMI glue written once for all models (fmi2_glue.c, fmi3_glue.c, instance.c).
 * A model is a plain C struct of values plus a variable table that says where
 * each FMI variable lives in that struct; the table is also the one source the
 * modelDescription.xml generator reads, so the XML and the binary cannot
 * disagree about names, value references, types or start values. */
#ifndef RTCOSIM_MODEL_H
#define RTCOSIM_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Value types, FMI 3.0 names. FMI 2.0 sees only FLOAT64 (Real), INT32
 * (Integer), BOOLEAN and STRING; variables of other types are left out of
 * FMI 2.0 builds (see model_type_in_fmi2). */
typedef enum model_type {
    MODEL_FLOAT32,
    MODEL_FLOAT64,
    MODEL_INT8,
    MODEL_UINT8,
    MODEL_INT16,
    MODEL_UINT16,
    MODEL_INT32,
    MODEL_UINT32,
    MODEL_INT64,
    MODEL_UINT64,
    MODEL_BOOLEAN, /* stored as bool */
    MODEL_STRING,  /* stored as char *, owned by the instance, never NULL */
    MODEL_BINARY   /* stored as model_binary, owned by the instance */
} model_type;

typedef struct model_binary {
    size_t size;
    unsigned char *data; /* NULL when nothing was ever allocated */
    size_t capacity;     /* bytes allocated at data: a value that fits is copied in place */
} model_binary;

/* FMI 2.0 section 2.2.7 / FMI 3.0 section 2.4.7.4 causality and variability. */
typedef enum model_causality {
    MODEL_PARAMETER,
    MODEL_CALCULATED_PARAMETER,
    MODEL_INPUT,
    MODEL_OUTPUT,
    MODEL_LOCAL,
    MODEL_INDEPENDENT,
    MODEL_STRUCTURAL_PARAMETER /* FMI 3.0 only: sizes arrays; fixed at its start value */
} model_causality;

typedef enum model_variability {
    MODEL_CONSTANT,
    MODEL_FIXED,
    MODEL_TUNABLE,
    MODEL_DISCRETE,
    MODEL_CONTINUOUS
} model_variability;

/* MODEL_INITIAL_DEFAULT leaves the attribute out of the XML; the standard's
 * default for the causality/variability pair then applies. */
typedef enum model_initial {
    MODEL_INITIAL_DEFAULT,
    MODEL_INITIAL_EXACT,
    MODEL_INITIAL_APPROX,
    MODEL_INITIAL_CALCULATED
} model_initial;

typedef struct model_variable {
    const char *name;
    /* Must equal the variable's index in the table, so that the glue finds a
     * variable by value reference with one bounds check (checked by the
     * generator at build time). */
    uint32_t value_reference;
    model_type type;
    model_causality causality;
    model_variability variability;
    model_initial initial;
    /* Where the value lives in the model's data struct (offsetof); unused for
     * the independent variable, whose value is the instance's time. */
    size_t offset;
    /* Start value as written to the XML and parsed by the glue at instantiate
     * and reset (FMI 3.0 syntax: "true"/"false", Binary as hex); NULL: none. */
    const char *start;
    const char *unit;        /* NULL: none */
    const char *description; /* NULL: none */
    /* For a state derivative: value reference of its state; 0: not one
     * (value reference 0 is always the independent variable "time"). */
    uint32_t derivative_of;
    /* FMI 3.0 arrays (section 2.4.7.4, <Dimension>): per dimension, row-major,
     * the value reference of the UInt64 structural parameter giving its size;
     * 0: no such dimension (a scalar has none). The field is a C array of
     * the variable's type holding at least the product of the sizes; the
     * start value lists every element. */
    uint32_t dimensions[2];
} model_variable;

/* Status a model function returns; the glue maps it to fmi2Status/fmi3Status. */
typedef enum model_status {
    MODEL_OK,
    MODEL_WARNING,
    MODEL_DISCARD,
    MODEL_ERROR,
    MODEL_FATAL
} model_status;

/* Log categories, declared in modelDescription.xml LogCategories in this order;
 * the bit of category c is (1u << c). */
typedef enum model_log_category {
    MODEL_LOG_EVENTS,
    MODEL_LOG_STATUS_WARNING,
    MODEL_LOG_STATUS_DISCARD,
    MODEL_LOG_STATUS_ERROR,
    MODEL_LOG_STATUS_FATAL,
    MODEL_LOG_CALLS,
    MODEL_LOG_CATEGORY_COUNT
} model_log_category;

typedef struct model_instance model_instance;

/* What a model reports from Event Mode (FMI 2.0 fmi2EventInfo, FMI 3.0
 * fmi3UpdateDiscreteStates); the glue zeroes it before each call. */
typedef struct model_event_result {
    bool values_changed;          /* continuous states were re-initialized */
    bool terminate;               /* the model wants the simulation to end */
    bool next_event_time_defined; /* a time event is due at next_event_time */
    double next_event_time;
    /* FMI 3.0 discreteStatesNeedUpdate: call again at the same instant
     * (FMI 2.0 and 1.0 glue ignore it: their models settle in one call). */
    bool discrete_states_need_update;
} model_event_result;
/* The inputs one output depends on directly (its direct feedthrough). */
typedef struct model_dependency {
    uint32_t output;        /* value reference of an output */
    const uint32_t *inputs; /* value references of inputs */
    size_t input_count;
} model_dependency;

/* A variable's declared range (min/max; NULL: that side unbounded). */
typedef struct model_range {
    uint32_t value_reference;
    const char *min, *max;
} model_range;

typedef struct model_alias {
    uint32_t value_reference; /* of the variable it names */
    const char *name;
} model_alias;

typedef struct model_def {
    const char *model_name;
    const char *description;
    /* FMI 2.0 guid and FMI 3.0 instantiationToken; checked by instantiate. */
    const char *instantiation_token;
    const model_variable *variables;
    size_t variable_count;
    size_t data_size; /* sizeof the model's data struct */

    /* Validates the parameters at the end of initialization (fixed ones can
     * change no more); logs and returns MODEL_ERROR for a bad value. NULL: all
     * values are valid. */
    model_status (*check)(model_instance *inst, void *data);
    /* Runs on entering Initialization Mode (parameters set before it are in
     * data); a status above MODEL_WARNING fails that call. NULL: nothing. */
    model_status (*enter_initialization)(model_instance *inst, void *data);
    /* Computes every calculated value (states from their start parameters,
     * outputs, derivatives) from parameters and inputs. Called on a get in
     * Initialization Mode after a set, and at the end of initialization.
     * NULL: nothing to calculate (every variable keeps its start value). */
    void (*initialize)(model_instance *inst, void *data);
    /* Recomputes outputs that depend directly on inputs or tunable parameters
     * after a set in Step Mode; NULL when the model has none. */
    void (*evaluate)(model_instance *inst, void *data);
    /* Advances the model from time t by h (h > 0) and leaves every output
     * consistent with time t + h. */
    model_status (*do_step)(model_instance *inst, void *data, double t, double h);

    /* Model exchange (FMI 2.0 / 3.0 chapter 3). A model that sets
     * model_exchange is also exported with a ModelExchange element. Its
     * continuous states are the variables its derivatives name
     * (derivative_of), ordered as the derivatives are in the table;
     * `evaluate` must bring derivatives and outputs up to date from time,
     * states and inputs. Event indicators are variables (their value
     * references listed here): an event occurs where one changes between
     * > 0 and <= 0. event_update runs in Event Mode after every event (NULL:
     * the model has no discrete behaviour). */
    bool model_exchange;
    const uint32_t *event_indicators;
    size_t event_indicator_count;
    model_status (*event_update)(model_instance *inst, void *data, model_event_result *result);

    /* Co-simulation with Event Mode and early return (FMI 3.0 sections
     * 4.2.1-4.2.2; a model that sets it is described with hasEventMode and
     * canReturnEarlyAfterIntermediateUpdate): advance from t by at most h,
     * stopping at the model's first event in (t, t+h]: a state event it
     * locates or a time event it announced from event_update. *reached is
     * where it stopped (t + h without an event), *event whether an event is
     * due there. The glue (cs_events.c) then hands the event to the importer
     * (eventHandlingNeeded, early return) or handles it with event_update
     * inside the step. NULL: do_step handles every event itself. */
    model_status (*step_to_event)(model_instance *inst, void *data, double t, double h,
                                  double *reached, bool *event);
    /* fmi3EvaluateDiscreteStates in Event Mode (FMI 3.0 section 2.3.5;
     * described as providesEvaluateDiscreteStates). NULL: not provided. */
    model_status (*evaluate_discrete_states)(model_instance *inst, void *data);

    /* DefaultExperiment. */
    double default_start_time;
    double default_stop_time;
    double default_tolerance;
    double default_step_size;

    /* Direct feedthrough, written as each output's ModelStructure
     * `dependencies` so that importers need not assume every output depends
     * on every input. NULL: the outputs of a model without `evaluate` depend
     * on no input, other models' outputs on all (attribute left out). Given:
     * complete, an output not listed depends on no input. Models with
     * continuous states never get the attribute (their outputs would also
     * depend on states, which this table does not describe). */
    const model_dependency *dependencies;
    size_t dependency_count;
    /* Declared ranges written as the variables' min/max attributes (numeric
     * variables, in the XML Schema syntax of their type); a variable not
     * listed has none. The model's own check still enforces them. */
    const model_range *ranges;
    size_t range_count;
    /* FMI 3.0 (section 2.4.7.5, <Alias>): other names of variables, same
     * value reference, not listed in ModelStructure; not written for FMI
     * 1.0/2.0. */
    const model_alias *aliases;
    size_t alias_count;
} model_def;

/* Every model.c defines exactly this one object. */
extern const model_def model_definition;

/* Logs a message through the FMI logger if the category is enabled. Models use
 * MODEL_LOG_EVENTS for the events they handle; errors use the status
 * categories. printf-style. */
void model_log(model_instance *inst, model_log_category category, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Called by do_step before it returns MODEL_DISCARD: the step was discarded
 * but the simulation need not end (no fmi2Terminated / terminateSimulation).
 * Without it a discarded step asks the importer to terminate. */
void model_discard_recoverable(model_instance *inst);

/* The instance's time (the independent variable), e.g. for event messages. */
double model_time(const model_instance *inst);

/* Replaces a string value held in the model data with a copy of value (the
 * glue owns string storage). Returns false when out of memory. */
bool model_set_string(model_instance *inst, char **field, const char *value);

/* Replaces a Binary value held in the model data with a copy of size bytes. */
bool model_set_binary(model_instance *inst, model_binary *field, const void *data, size_t size);

/* Values of a variable: 1 for a scalar, the product of its dimensions'
 * structural parameters for an array. */
size_t model_value_count(const model_instance *inst, const model_variable *v);

/* FMI 2.0 knows only Real, Integer, Boolean and String. */
static inline bool model_type_in_fmi2(model_type type)
{
    return type == MODEL_FLOAT64 || type == MODEL_INT32 || type == MODEL_BOOLEAN ||
           type == MODEL_STRING;
}

#endif
