/* The one component interface every part of a system implements.
 * An FMU (FMI 2.0 or 3.0) is one implementation, a native C model another;
 * the master, the real-time executor and the event kernel drive components
 * only through this interface and never know which kind they hold.
 *
 * Lifecycle: create (kind-specific constructor) -> rtcosim_component_instantiate
 * -> setup -> enter_init -> [set/get start values] -> exit_init
 * -> { set inputs; do_step(t, h); get outputs }* -> terminate -> free.
 *
 * Values are exchanged in batches per type: callers resolve names to value
 * references once, group them by type, and on each step make one get and one
 * set call per type. */
#ifndef RTCOSIM_COMPONENT_H
#define RTCOSIM_COMPONENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/status.h"
#include "rtcosim/time.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Value types. FMI 2.0 Real/Integer/Boolean/String map to FLOAT64/INT32/
 * BOOLEAN/STRING; FMI 3.0 types map one to one. */
typedef enum rtcosim_type {
    RTCOSIM_TYPE_FLOAT64 = 0, /* double */
    RTCOSIM_TYPE_FLOAT32,     /* float */
    RTCOSIM_TYPE_INT8,        /* int8_t */
    RTCOSIM_TYPE_UINT8,       /* uint8_t */
    RTCOSIM_TYPE_INT16,       /* int16_t */
    RTCOSIM_TYPE_UINT16,      /* uint16_t */
    RTCOSIM_TYPE_INT32,       /* int32_t */
    RTCOSIM_TYPE_UINT32,      /* uint32_t */
    RTCOSIM_TYPE_INT64,       /* int64_t */
    RTCOSIM_TYPE_UINT64,      /* uint64_t */
    RTCOSIM_TYPE_BOOLEAN,     /* bool */
    RTCOSIM_TYPE_STRING,      /* const char * (owned by the component on get) */
    RTCOSIM_TYPE_BINARY,      /* rtcosim_binary (data owned by the component on get) */
    RTCOSIM_TYPE_CLOCK,       /* bool (FMI 3.0 clock ticks) */
    RTCOSIM_TYPE_COUNT_
} rtcosim_type;

typedef struct rtcosim_binary {
    const uint8_t *data;
    size_t size;
} rtcosim_binary;

/* Size in bytes of one value of the type in the arrays passed to get/set. */
size_t rtcosim_type_size(rtcosim_type type);
const char *rtcosim_type_name(rtcosim_type type); /* "Float64", "Int32", ... */
bool rtcosim_type_is_numeric(rtcosim_type type);  /* not string/binary/clock */

typedef enum rtcosim_causality {
    RTCOSIM_CAUSALITY_PARAMETER = 0,
    RTCOSIM_CAUSALITY_CALCULATED_PARAMETER,
    RTCOSIM_CAUSALITY_INPUT,
    RTCOSIM_CAUSALITY_OUTPUT,
    RTCOSIM_CAUSALITY_LOCAL,
    RTCOSIM_CAUSALITY_INDEPENDENT,
    RTCOSIM_CAUSALITY_STRUCTURAL_PARAMETER
} rtcosim_causality;

typedef enum rtcosim_variability {
    RTCOSIM_VARIABILITY_CONSTANT = 0,
    RTCOSIM_VARIABILITY_FIXED,
    RTCOSIM_VARIABILITY_TUNABLE,
    RTCOSIM_VARIABILITY_DISCRETE,
    RTCOSIM_VARIABILITY_CONTINUOUS
} rtcosim_variability;

typedef enum rtcosim_initial {
    RTCOSIM_INITIAL_NONE = 0, /* attribute absent / not applicable */
    RTCOSIM_INITIAL_EXACT,
    RTCOSIM_INITIAL_APPROX,
    RTCOSIM_INITIAL_CALCULATED
} rtcosim_initial;

const char *rtcosim_causality_name(rtcosim_causality c);
const char *rtcosim_variability_name(rtcosim_variability v);
const char *rtcosim_initial_name(rtcosim_initial i);

/* A start value. Numeric types use the matching member; strings point into
 * the owning description. */
typedef union rtcosim_value {
    double f64;
    float f32;
    int64_t i64; /* also INT8..INT32 */
    uint64_t u64; /* also UINT8..UINT32 */
    bool b;
    const char *s;
    rtcosim_binary bin;
} rtcosim_value;

/* One variable of a component. Strings are owned by the component (or its
 * model description) and live as long as it. */
typedef struct rtcosim_variable {
    const char *name;
    const char *description; /* may be NULL */
    const char *unit;        /* may be NULL */
    uint32_t value_reference;
    rtcosim_type type;
    rtcosim_causality causality;
    rtcosim_variability variability;
    rtcosim_initial initial;
    bool has_start;
    rtcosim_value start;
    /* Index (into the variable table) of the variable this one is the
     * derivative of, or -1. */
    int32_t derivative_of;
    /* Declared range (FMI `min`/`max`, on the variable or inherited from its
     * declared type), numeric types only, held like `start` in the member of
     * the variable's type. Absent: unbounded on that side. */
    bool has_min, has_max;
    rtcosim_value min, max;
} rtcosim_variable;

/* What a component can do (FMI capability flags and their native equivalents). */
typedef struct rtcosim_capabilities {
    bool can_handle_variable_step;
    bool can_get_set_state;
    bool can_serialize_state;
    bool provides_directional_derivatives;
    bool can_return_early;        /* FMI 3.0 early return */
    bool has_event_mode;          /* FMI 3.0 event mode in co-simulation */
    /* This instance runs with Event Mode (FMI 3.0 eventModeUsed): after
     * exit_init and after a step reporting event_handling_needed it is in
     * Event Mode, and the caller runs rtcosim_component_update_discrete_states
     * until nothing needs an update, then rtcosim_component_enter_step_mode. */
    bool event_mode_used;
    bool early_return_allowed;    /* this instance may return early (earlyReturnAllowed) */
    int max_input_derivative_order; /* 0 when input derivatives are not accepted */
} rtcosim_capabilities;

/* Out-arguments of a step (FMI 3.0 fmi3DoStep; FMI 2.0 fills what it can). */
typedef struct rtcosim_step_result {
    bool event_handling_needed;
    bool terminate_requested;
    bool early_return;
    rtcosim_time_ns last_successful_time; /* t + h unless returned early */
} rtcosim_step_result;

/* What one discrete-state update in Event Mode reports (FMI 3.0
 * fmi3UpdateDiscreteStates, section 3.2.2 / 4.2.2). */
typedef struct rtcosim_event_update {
    bool discrete_states_need_update; /* call again at the same instant */
    bool terminate_requested;
    bool nominals_changed;            /* nominalsOfContinuousStatesChanged */
    bool values_changed;              /* valuesOfContinuousStatesChanged */
    bool next_event_time_defined;     /* a time event is due at next_event_time */
    rtcosim_time_ns next_event_time;
} rtcosim_event_update;

typedef void *rtcosim_state; /* opaque component state snapshot */

/* The operations a component kind implements. Every function receives the
 * implementation's own object (`self`). Optional entries may be NULL; the
 * wrapper then answers RTCOSIM_EUNSUPPORTED with a message. */
typedef struct rtcosim_component_ops {
    const char *kind; /* "fmi2", "fmi3", "native", ... */

    rtcosim_status (*instantiate)(void *self, const char *instance_name, rtcosim_error *err);
    /* tolerance <= 0 means "none"; stop < 0 means "no stop time". */
    rtcosim_status (*setup)(void *self, double tolerance, rtcosim_time_ns start,
                            rtcosim_time_ns stop, rtcosim_error *err);
    rtcosim_status (*enter_init)(void *self, rtcosim_error *err);
    rtcosim_status (*exit_init)(void *self, rtcosim_error *err);
    rtcosim_status (*do_step)(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                              rtcosim_step_result *result, rtcosim_error *err);

    rtcosim_status (*get)(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                          void *values, rtcosim_error *err);
    rtcosim_status (*set)(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                          const void *values, rtcosim_error *err);

    /* Optional: input derivatives (order 1..max) for FLOAT64 inputs. */
    rtcosim_status (*set_input_derivatives)(void *self, const uint32_t *vrs, size_t n,
                                            int order, const double *values,
                                            rtcosim_error *err);

    /* Optional: state snapshots. get_state with *state == NULL allocates a new
     * snapshot; with an existing snapshot it overwrites it in place. */
    rtcosim_status (*get_state)(void *self, rtcosim_state *state, rtcosim_error *err);
    rtcosim_status (*set_state)(void *self, rtcosim_state state, rtcosim_error *err);
    void (*free_state)(void *self, rtcosim_state state);
    /* Optional: serialized size, then bytes (buffer of at least *size). */
    rtcosim_status (*serialized_state_size)(void *self, rtcosim_state state, size_t *size,
                                            rtcosim_error *err);
    rtcosim_status (*serialize_state)(void *self, rtcosim_state state, uint8_t *buffer,
                                      size_t size, rtcosim_error *err);
    /* *state == NULL: allocate a new snapshot. *state a snapshot of this
     * component (not freed since): overwrite it in place where the
     * implementation can, as get_state does, so that states can be moved
     * between instances every period without allocation; an implementation
     * that returns another snapshot instead leaves the given one alone (the
     * wrapper frees it). */
    rtcosim_status (*deserialize_state)(void *self, const uint8_t *buffer, size_t size,
                                        rtcosim_state *state, rtcosim_error *err);

    rtcosim_status (*terminate)(void *self, rtcosim_error *err);
    void (*destroy)(void *self); /* frees the instance and self */

    /* Optional, for components with capabilities.event_mode_used: enter Event
     * Mode from step mode, one discrete-state update, back to step mode. */
    rtcosim_status (*enter_event_mode)(void *self, rtcosim_error *err);
    rtcosim_status (*update_discrete_states)(void *self, rtcosim_event_update *update,
                                             rtcosim_error *err);
    rtcosim_status (*enter_step_mode)(void *self, rtcosim_error *err);
} rtcosim_component_ops;

/* What a kind-specific constructor hands to rtcosim_component_create. The
 * variable table and strings must outlive the component (they usually live
 * in `self`). */
typedef struct rtcosim_component_desc {
    const char *model_name;
    const rtcosim_variable *variables;
    size_t variable_count;
    rtcosim_capabilities capabilities;
    /* Default experiment; has_* false when absent. */
    bool has_default_start, has_default_stop, has_default_step, has_default_tolerance;
    rtcosim_time_ns default_start, default_stop, default_step;
    double default_tolerance;
} rtcosim_component_desc;

typedef struct rtcosim_component rtcosim_component; /* opaque */

/* Wrap an implementation. On success the component owns `self` and calls
 * ops->destroy(self) in rtcosim_component_free. On failure ops->destroy(self)
 * has already been called. */
rtcosim_status rtcosim_component_create(const rtcosim_component_ops *ops, void *self,
                                        const rtcosim_component_desc *desc,
                                        rtcosim_component **out, rtcosim_error *err);
/* Terminates (if initialization was left and not yet terminated) and frees;
 * a component still in initialization is freed without terminate (FMI 2.0
 * and 3.0 refuse fmi2/3Terminate in Initialization Mode). NULL is a no-op. */
void rtcosim_component_free(rtcosim_component *c);

const char *rtcosim_component_kind(const rtcosim_component *c);
const char *rtcosim_component_model_name(const rtcosim_component *c);
const char *rtcosim_component_instance_name(const rtcosim_component *c); /* NULL before instantiate */
const rtcosim_capabilities *rtcosim_component_capabilities(const rtcosim_component *c);
const rtcosim_component_desc *rtcosim_component_description(const rtcosim_component *c);
size_t rtcosim_component_variable_count(const rtcosim_component *c);
const rtcosim_variable *rtcosim_component_variable(const rtcosim_component *c, size_t index);
/* "Did you mean": the variable whose name is nearest to name by edit
 * distance (Levenshtein), if close enough (a third of the longer name, one
 * edit for short names), else NULL (src/core/suggest.c). */
const char *rtcosim_component_nearest_variable(const rtcosim_component *c, const char *name);
size_t rtcosim_edit_distance(const char *a, const char *b);
bool rtcosim_name_is_close(const char *typed, const char *candidate, size_t distance);
/* Lookup by exact name; NULL when absent. O(log n) after creation. */
const rtcosim_variable *rtcosim_component_find_variable(const rtcosim_component *c,
                                                        const char *name);
/* The implementation object, for kind-specific extensions. */
void *rtcosim_component_impl(const rtcosim_component *c);

/* The lifecycle call a component is in on the calling thread (innermost
 * wrapper), for a fatal-signal handler or a watchdog message: the instance
 * name and the call in the component's terms ("fmi2DoStep", "fmi3DoStep",
 * "do_step" for other kinds). Reads a thread-local record only: safe in a
 * signal handler running on the crashing thread. false outside any call. */
typedef enum rtcosim_component_call {
    RTCOSIM_CALL_NONE = 0,
    RTCOSIM_CALL_INSTANTIATE,
    RTCOSIM_CALL_ENTER_INIT,
    RTCOSIM_CALL_EXIT_INIT,
    RTCOSIM_CALL_DO_STEP,
    RTCOSIM_CALL_TERMINATE,
    RTCOSIM_CALL_EVENT_MODE, /* enter_event_mode, update_discrete_states, enter_step_mode */
    RTCOSIM_CALL_GET_STATE,
    RTCOSIM_CALL_SET_STATE,
    RTCOSIM_CALL_SERIALIZE_STATE, /* its size too */
    RTCOSIM_CALL_DESERIALIZE_STATE
} rtcosim_component_call;
bool rtcosim_component_current_call(const char **instance, const char **call);
/* The same for the calling thread's call or, when it is in none, the first
 * call in progress on any other thread (the first signal's grace or the
 * step watchdog fire on the main thread, while the component that does not
 * return may be on a worker of --threads or --speculate). Reads plain
 * per-thread records: safe in a signal handler. */
bool rtcosim_component_any_call(const char **instance, const char **call);

/* Lifecycle calls; each checks the call order and reports RTCOSIM_ESTATE with
 * the component's name when it is wrong, and marks the component failed after
 * RTCOSIM_ECOMPONENT or RTCOSIM_EFATAL from the implementation (every later call
 * but free then fails, and free skips terminate, as FMI requires after Error). */
rtcosim_status rtcosim_component_instantiate(rtcosim_component *c, const char *instance_name,
                                             rtcosim_error *err);
rtcosim_status rtcosim_component_setup(rtcosim_component *c, double tolerance,
                                       rtcosim_time_ns start, rtcosim_time_ns stop,
                                       rtcosim_error *err);
rtcosim_status rtcosim_component_enter_init(rtcosim_component *c, rtcosim_error *err);
rtcosim_status rtcosim_component_exit_init(rtcosim_component *c, rtcosim_error *err);
rtcosim_status rtcosim_component_do_step(rtcosim_component *c, rtcosim_time_ns t,
                                         rtcosim_time_ns h, rtcosim_step_result *result,
                                         rtcosim_error *err);
rtcosim_status rtcosim_component_get(rtcosim_component *c, rtcosim_type type,
                                     const uint32_t *vrs, size_t n, void *values,
                                     rtcosim_error *err);
/* As rtcosim_component_get, but an Error from the component leaves it usable:
 * for recording, where a refused read of an input or structural parameter is
 * a warning (FMUs some tools export refuse them), not the end of the run. */
rtcosim_status rtcosim_component_try_get(rtcosim_component *c, rtcosim_type type,
                                         const uint32_t *vrs, size_t n, void *values,
                                         rtcosim_error *err);
rtcosim_status rtcosim_component_set(rtcosim_component *c, rtcosim_type type,
                                     const uint32_t *vrs, size_t n, const void *values,
                                     rtcosim_error *err);
rtcosim_status rtcosim_component_set_input_derivatives(rtcosim_component *c,
                                                       const uint32_t *vrs, size_t n,
                                                       int order, const double *values,
                                                       rtcosim_error *err);
rtcosim_status rtcosim_component_get_state(rtcosim_component *c, rtcosim_state *state,
                                           rtcosim_error *err);
rtcosim_status rtcosim_component_set_state(rtcosim_component *c, rtcosim_state state,
                                           rtcosim_error *err);
void rtcosim_component_free_state(rtcosim_component *c, rtcosim_state state);
rtcosim_status rtcosim_component_serialized_state_size(rtcosim_component *c,
                                                       rtcosim_state state, size_t *size,
                                                       rtcosim_error *err);
rtcosim_status rtcosim_component_serialize_state(rtcosim_component *c, rtcosim_state state,
                                                 uint8_t *buffer, size_t size,
                                                 rtcosim_error *err);
/* *state NULL or a snapshot of c to overwrite in place (see the ops); on
 * success *state holds the loaded state and a given snapshot that the
 * implementation replaced has been freed. */
rtcosim_status rtcosim_component_deserialize_state(rtcosim_component *c,
                                                   const uint8_t *buffer, size_t size,
                                                   rtcosim_state *state, rtcosim_error *err);
/* After exit_init: the implementation's terminate. During initialization
 * (after enter_init, an error path): nothing is called, the component is
 * only marked terminated (see rtcosim_component_free). */
rtcosim_status rtcosim_component_terminate(rtcosim_component *c, rtcosim_error *err);

/* Event Mode (components with capabilities.event_mode_used; others answer
 * RTCOSIM_EUNSUPPORTED). exit_init of such a component leaves it in Event
 * Mode; enter_event_mode takes it there from step mode (after a step that
 * reported event_handling_needed, or at an announced time event);
 * update_discrete_states is one iteration; enter_step_mode goes back. get
 * and set are allowed in Event Mode, do_step is not. */
bool rtcosim_component_in_event_mode(const rtcosim_component *c);
rtcosim_status rtcosim_component_enter_event_mode(rtcosim_component *c, rtcosim_error *err);
rtcosim_status rtcosim_component_update_discrete_states(rtcosim_component *c,
                                                        rtcosim_event_update *update,
                                                        rtcosim_error *err);
rtcosim_status rtcosim_component_enter_step_mode(rtcosim_component *c, rtcosim_error *err);

/* The whole event iteration of one component on its own (no connected
 * partners): enter Event Mode unless already in it, update discrete states
 * until none needs an update (at most max_iterations; more is an error
 * naming the component), then back to step mode unless it asked to
 * terminate. *summary: the last update, with terminate_requested,
 * nominals_changed and values_changed set when any iteration set them. */
#define RTCOSIM_EVENT_ITERATION_LIMIT 100 /* fmi3UpdateDiscreteStates calls per event */
rtcosim_status rtcosim_component_handle_event(rtcosim_component *c, unsigned max_iterations,
                                              rtcosim_event_update *summary,
                                              rtcosim_error *err);
/* The same, staying in Event Mode (the caller reads output clocks there,
 * once per event, then enters step mode unless it asked to terminate). */
rtcosim_status rtcosim_component_settle_events(rtcosim_component *c, unsigned max_iterations,
                                               rtcosim_event_update *summary, rtcosim_error *err);

/* Parse a textual value of the given type ("1.5", "-3", "true", "0x1F" for
 * integers) into *out. Strings are returned pointing at text. Range-checked
 * for integer types; floats must be finite (NaN, infinities and overflow such
 * as "1e999", or beyond FLT_MAX for Float32, are refused). */
/* Binary from text as fmusim reads it in CSV inputs and start values: two hex
 * digits (either case) per byte and nothing else ("" is no byte); `out` has
 * room for strlen(text) / 2 bytes. false for another character (*bad: its
 * offset) or an odd number of digits (*bad: the length). */
bool rtcosim_binary_from_hex(const char *text, uint8_t *out, size_t *size, size_t *bad);

rtcosim_status rtcosim_value_parse(rtcosim_type type, const char *text, rtcosim_value *out,
                                   rtcosim_error *err);
/* Whether `value` (of v's type) lies within v's declared min/max; true for
 * non-numeric types and undeclared bounds. When it does not and `why` is
 * not NULL, `why` gets "2 is outside the declared range [0, 1]" (a missing
 * bound written as -inf/inf), numbers in their shortest round-trip form. */
bool rtcosim_variable_in_range(const rtcosim_variable *v, const rtcosim_value *value, char *why,
                               size_t size);

/* Store a value union into a typed array slot (as used by get/set). */
void rtcosim_value_store(rtcosim_type type, const rtcosim_value *value, void *slot);

#ifdef __cplusplus
}
#endif
#endif
