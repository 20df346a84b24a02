/* The component wrapper: checks the lifecycle order, names the component in
 * every error, and forwards to the kind's ops. One wrapper for every kind so
 * that FMUs and native models behave the same way towards the master. */
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/component_call.h"
#include "rtcosim/component.h"

typedef enum lifecycle {
    LC_CREATED = 0,
    LC_INSTANTIATED,
    LC_SETUP,
    LC_INIT,
    LC_STEPPING,
    LC_EVENT, /* FMI 3.0 Event Mode of a co-simulation component (event_mode_used) */
    LC_TERMINATED,
    LC_FAILED
} lifecycle;

struct rtcosim_component {
    const rtcosim_component_ops *ops;
    void *self;
    rtcosim_component_desc desc;
    char *instance_name;
    lifecycle state;
    /* LC_FAILED after an Error (not a Fatal): a state saved before it may
     * be set, which brings the instance back to this state */
    bool recoverable;
    lifecycle resume;
    size_t *name_index; /* variable indices sorted by name */
};

/* Each lifecycle wrapper marks its call in the thread's slot
 * (component_call.h) and restores the mark it replaced when it returns. */
#define CALL_ENTER(comp, which)                                                                    \
    component_call_mark saved_call_ = component_call_enter_inline((comp), (which))
#define CALL_LEAVE() component_call_leave_inline(saved_call_)

static const char *const call_names[][3] = {
    /* generic, FMI 2.0, FMI 3.0 */
    [RTCOSIM_CALL_INSTANTIATE] = {"instantiate", "fmi2Instantiate", "fmi3InstantiateCoSimulation"},
    [RTCOSIM_CALL_ENTER_INIT] = {"enter_init", "fmi2EnterInitializationMode",
                                 "fmi3EnterInitializationMode"},
    [RTCOSIM_CALL_EXIT_INIT] = {"exit_init", "fmi2ExitInitializationMode",
                                "fmi3ExitInitializationMode"},
    [RTCOSIM_CALL_DO_STEP] = {"do_step", "fmi2DoStep", "fmi3DoStep"},
    [RTCOSIM_CALL_TERMINATE] = {"terminate", "fmi2Terminate", "fmi3Terminate"},
    [RTCOSIM_CALL_EVENT_MODE] = {"event mode", "fmi2NewDiscreteStates", "fmi3UpdateDiscreteStates"},
    [RTCOSIM_CALL_GET_STATE] = {"get_state", "fmi2GetFMUstate", "fmi3GetFMUState"},
    [RTCOSIM_CALL_SET_STATE] = {"set_state", "fmi2SetFMUstate", "fmi3SetFMUState"},
    [RTCOSIM_CALL_SERIALIZE_STATE] = {"serialize_state", "fmi2SerializeFMUstate",
                                      "fmi3SerializeFMUState"},
    [RTCOSIM_CALL_DESERIALIZE_STATE] = {"deserialize_state", "fmi2DeSerializeFMUstate",
                                        "fmi3DeserializeFMUState"},
};

bool component_call_describe(const component_call_slot *s, const char **instance,
                             const char **call)
{
    const rtcosim_component *c = atomic_load_explicit(&s->c, memory_order_relaxed);
    int which = atomic_load_explicit(&s->call, memory_order_relaxed);
    if (!c || which <= RTCOSIM_CALL_NONE || which > RTCOSIM_CALL_DESERIALIZE_STATE)
        return false;
    const char *kind = c->ops->kind ? c->ops->kind : "";
    int column = strcmp(kind, "fmi2") == 0 ? 1 : strcmp(kind, "fmi3") == 0 ? 2 : 0;
    *instance = c->instance_name ? c->instance_name : c->desc.model_name;
    *call = call_names[which][column];
    return true;
}

bool rtcosim_component_current_call(const char **instance, const char **call)
{
    return component_call_mine && component_call_describe(component_call_mine, instance, call);
}

bool rtcosim_component_any_call(const char **instance, const char **call)
{
    if (rtcosim_component_current_call(instance, call))
        return true;
    const component_call_slot *s;
    for (size_t i = 0; (s = component_call_slot_at(i)) != NULL; i++)
        if (s != component_call_mine && component_call_describe(s, instance, call))
            return true;
    return false;
}

static const size_t type_sizes[RTCOSIM_TYPE_COUNT_] = {
    [RTCOSIM_TYPE_FLOAT64] = sizeof(double),   [RTCOSIM_TYPE_FLOAT32] = sizeof(float),
    [RTCOSIM_TYPE_INT8] = sizeof(int8_t),      [RTCOSIM_TYPE_UINT8] = sizeof(uint8_t),
    [RTCOSIM_TYPE_INT16] = sizeof(int16_t),    [RTCOSIM_TYPE_UINT16] = sizeof(uint16_t),
    [RTCOSIM_TYPE_INT32] = sizeof(int32_t),    [RTCOSIM_TYPE_UINT32] = sizeof(uint32_t),
    [RTCOSIM_TYPE_INT64] = sizeof(int64_t),    [RTCOSIM_TYPE_UINT64] = sizeof(uint64_t),
    [RTCOSIM_TYPE_BOOLEAN] = sizeof(bool),     [RTCOSIM_TYPE_STRING] = sizeof(const char *),
    [RTCOSIM_TYPE_BINARY] = sizeof(rtcosim_binary), [RTCOSIM_TYPE_CLOCK] = sizeof(bool),
};

static const char *const type_names[RTCOSIM_TYPE_COUNT_] = {
    "Float64", "Float32", "Int8", "UInt8", "Int16", "UInt16", "Int32",
    "UInt32", "Int64", "UInt64", "Boolean", "String", "Binary", "Clock",
};

size_t rtcosim_type_size(rtcosim_type type)
{
    return (unsigned)type < RTCOSIM_TYPE_COUNT_ ? type_sizes[type] : 0;
}

const char *rtcosim_type_name(rtcosim_type type)
{
    return (unsigned)type < RTCOSIM_TYPE_COUNT_ ? type_names[type] : "?";
}

bool rtcosim_type_is_numeric(rtcosim_type type)
{
    return type <= RTCOSIM_TYPE_BOOLEAN;
}

const char *rtcosim_causality_name(rtcosim_causality c)
{
    static const char *const names[] = {"parameter", "calculatedParameter", "input", "output",
                                        "local", "independent", "structuralParameter"};
    return (unsigned)c < sizeof names / sizeof names[0] ? names[c] : "?";
}

const char *rtcosim_variability_name(rtcosim_variability v)
{
    static const char *const names[] = {"constant", "fixed", "tunable", "discrete", "continuous"};
    return (unsigned)v < sizeof names / sizeof names[0] ? names[v] : "?";
}

const char *rtcosim_initial_name(rtcosim_initial i)
{
    static const char *const names[] = {"", "exact", "approx", "calculated"};
    return (unsigned)i < sizeof names / sizeof names[0] ? names[i] : "?";
}

/* qsort has no context argument; the table being sorted is passed through a
 * thread-local pointer, valid only during the sort. */
static _Thread_local const rtcosim_variable *sort_table;

static int compare_index_by_name(const void *a, const void *b)
{
    return strcmp(sort_table[*(const size_t *)a].name, sort_table[*(const size_t *)b].name);
}

rtcosim_status rtcosim_component_create(const rtcosim_component_ops *ops, void *self,
                                        const rtcosim_component_desc *desc,
                                        rtcosim_component **out, rtcosim_error *err)
{
    *out = NULL;
    if (!ops || !desc || !ops->do_step || !ops->get || !ops->set || !ops->destroy) {
        if (ops && ops->destroy)
            ops->destroy(self);
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "component ops lack a required function");
    }
    rtcosim_component *c = calloc(1, sizeof *c);
    size_t *index = calloc(desc->variable_count ? desc->variable_count : 1, sizeof *index);
    if (!c || !index) {
        free(c);
        free(index);
        ops->destroy(self);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory creating component");
    }
    for (size_t i = 0; i < desc->variable_count; i++)
        index[i] = i;
    sort_table = desc->variables;
    qsort(index, desc->variable_count, sizeof *index, compare_index_by_name);
    sort_table = NULL;
    for (size_t i = 1; i < desc->variable_count; i++) {
        const char *a = desc->variables[index[i - 1]].name, *b = desc->variables[index[i]].name;
        if (strcmp(a, b) == 0) {
            free(c);
            free(index);
            ops->destroy(self);
            return rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                     "model '%s': variable name '%s' is not unique",
                                     desc->model_name ? desc->model_name : "?", a);
        }
    }
    c->ops = ops;
    c->self = self;
    c->desc = *desc;
    c->name_index = index;
    c->state = LC_CREATED;
    *out = c;
    return RTCOSIM_OK;
}

void rtcosim_component_free(rtcosim_component *c)
{
    if (!c)
        return;
    /* Terminate only after initialization: FMI 2.0 (fmi2Terminate) and 3.0
     * (fmi3Terminate) refuse it in Initialization Mode, FMI 1.0 before
     * fmiInitializeSlave (exit_init); free alone is allowed there. Event Mode
     * (FMI 3.0) comes after initialization and allows it. */
    if ((c->state == LC_STEPPING || c->state == LC_EVENT) && c->ops->terminate) {
        rtcosim_error ignored;
        c->ops->terminate(c->self, &ignored);
    }
    c->ops->destroy(c->self);
    free(c->name_index);
    free(c->instance_name);
    free(c);
}

const char *rtcosim_component_kind(const rtcosim_component *c) { return c->ops->kind; }
const char *rtcosim_component_model_name(const rtcosim_component *c) { return c->desc.model_name; }
const char *rtcosim_component_instance_name(const rtcosim_component *c) { return c->instance_name; }
const rtcosim_capabilities *rtcosim_component_capabilities(const rtcosim_component *c)
{
    return &c->desc.capabilities;
}
const rtcosim_component_desc *rtcosim_component_description(const rtcosim_component *c)
{
    return &c->desc;
}
size_t rtcosim_component_variable_count(const rtcosim_component *c) { return c->desc.variable_count; }
const rtcosim_variable *rtcosim_component_variable(const rtcosim_component *c, size_t index)
{
    return index < c->desc.variable_count ? &c->desc.variables[index] : NULL;
}
void *rtcosim_component_impl(const rtcosim_component *c) { return c->self; }

const rtcosim_variable *rtcosim_component_find_variable(const rtcosim_component *c,
                                                        const char *name)
{
    size_t lo = 0, hi = c->desc.variable_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const rtcosim_variable *v = &c->desc.variables[c->name_index[mid]];
        int cmp = strcmp(name, v->name);
        if (cmp == 0)
            return v;
        if (cmp < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

static const char *label(const rtcosim_component *c)
{
    return c->instance_name ? c->instance_name : (c->desc.model_name ? c->desc.model_name : "?");
}

static const char *const lifecycle_names[] = {"created", "instantiated", "set up",
                                              "initialization mode", "step mode",
                                              "event mode", "terminated", "failed"};

static rtcosim_status wrong_state(rtcosim_component *c, const char *call, rtcosim_error *err)
{
    return rtcosim_error_set(err, RTCOSIM_ESTATE, "%s: %s is not allowed in state '%s'",
                             label(c), call, lifecycle_names[c->state]);
}

/* After an FMI Error or Fatal the instance may only be freed (FMI 2.0 section
 * 4.3 state machine, FMI 3.0 section 4.2): mark it failed so that no later
 * call, and no terminate at free, reaches it. Discard keeps it usable. After
 * an Error (not a Fatal) a state saved earlier may still be set, which
 * makes the instance usable again (FMI 2.0 section 2.1.3: "it can be tried
 * to restart the simulation from a formerly stored FMU state by calling
 * fmi2SetFMUstate"; FMI 3.0 section 2.2.4 likewise for fmi3SetFMUState). */
static rtcosim_status after_call(rtcosim_component *c, rtcosim_status st)
{
    if (st == RTCOSIM_EFATAL || st == RTCOSIM_ECOMPONENT) {
        if (c->state != LC_FAILED) {
            c->resume = c->state;
            c->recoverable = st == RTCOSIM_ECOMPONENT;
        } else if (st == RTCOSIM_EFATAL) {
            c->recoverable = false;
        }
        c->state = LC_FAILED;
    }
    return st;
}

static rtcosim_status unsupported(rtcosim_component *c, const char *what, rtcosim_error *err)
{
    return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "%s: component kind '%s' does not support %s",
                             label(c), c->ops->kind, what);
}

rtcosim_status rtcosim_component_instantiate(rtcosim_component *c, const char *instance_name,
                                             rtcosim_error *err)
{
    if (c->state != LC_CREATED)
        return wrong_state(c, "instantiate", err);
    if (!instance_name || !*instance_name)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: empty instance name", label(c));
    c->instance_name = strdup(instance_name);
    if (!c->instance_name)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    CALL_ENTER(c, RTCOSIM_CALL_INSTANTIATE);
    rtcosim_status st = c->ops->instantiate ? c->ops->instantiate(c->self, instance_name, err)
                                            : RTCOSIM_OK;
    CALL_LEAVE();
    if (st == RTCOSIM_OK)
        c->state = LC_INSTANTIATED;
    return after_call(c, st);
}

rtcosim_status rtcosim_component_setup(rtcosim_component *c, double tolerance,
                                       rtcosim_time_ns start, rtcosim_time_ns stop,
                                       rtcosim_error *err)
{
    if (c->state != LC_INSTANTIATED)
        return wrong_state(c, "setup", err);
    if (stop >= 0 && stop < start)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: stop time before start time", label(c));
    rtcosim_status st = c->ops->setup ? c->ops->setup(c->self, tolerance, start, stop, err)
                                      : RTCOSIM_OK;
    if (st == RTCOSIM_OK)
        c->state = LC_SETUP;
    return after_call(c, st);
}

rtcosim_status rtcosim_component_enter_init(rtcosim_component *c, rtcosim_error *err)
{
    if (c->state != LC_SETUP)
        return wrong_state(c, "enter_init", err);
    CALL_ENTER(c, RTCOSIM_CALL_ENTER_INIT);
    rtcosim_status st = c->ops->enter_init ? c->ops->enter_init(c->self, err) : RTCOSIM_OK;
    CALL_LEAVE();
    if (st == RTCOSIM_OK)
        c->state = LC_INIT;
    return after_call(c, st);
}

rtcosim_status rtcosim_component_exit_init(rtcosim_component *c, rtcosim_error *err)
{
    if (c->state != LC_INIT)
        return wrong_state(c, "exit_init", err);
    CALL_ENTER(c, RTCOSIM_CALL_EXIT_INIT);
    rtcosim_status st = c->ops->exit_init ? c->ops->exit_init(c->self, err) : RTCOSIM_OK;
    CALL_LEAVE();
    /* FMI 3.0 section 4.2.2: with eventModeUsed the FMU leaves
     * initialization in Event Mode. */
    if (st == RTCOSIM_OK)
        c->state = c->desc.capabilities.event_mode_used ? LC_EVENT : LC_STEPPING;
    return after_call(c, st);
}

rtcosim_status rtcosim_component_do_step(rtcosim_component *c, rtcosim_time_ns t,
                                         rtcosim_time_ns h, rtcosim_step_result *result,
                                         rtcosim_error *err)
{
    if (c->state != LC_STEPPING)
        return wrong_state(c, "do_step", err);
    if (h <= 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: step size %" PRId64 " ns is not positive",
                                 label(c), h);
    rtcosim_step_result local;
    if (!result)
        result = &local;
    result->event_handling_needed = false;
    result->terminate_requested = false;
    result->early_return = false;
    result->last_successful_time = t + h;
    CALL_ENTER(c, RTCOSIM_CALL_DO_STEP);
    rtcosim_status st = c->ops->do_step(c->self, t, h, result, err);
    CALL_LEAVE();
    return after_call(c, st);
}

static bool values_allowed(const rtcosim_component *c)
{
    return c->state >= LC_INSTANTIATED && c->state <= LC_EVENT;
}

rtcosim_status rtcosim_component_get(rtcosim_component *c, rtcosim_type type,
                                     const uint32_t *vrs, size_t n, void *values,
                                     rtcosim_error *err)
{
    if (!values_allowed(c))
        return wrong_state(c, "get", err);
    if (n == 0)
        return RTCOSIM_OK;
    return after_call(c, c->ops->get(c->self, type, vrs, n, values, err));
}

rtcosim_status rtcosim_component_try_get(rtcosim_component *c, rtcosim_type type,
                                         const uint32_t *vrs, size_t n, void *values,
                                         rtcosim_error *err)
{
    if (!values_allowed(c))
        return wrong_state(c, "get", err);
    if (n == 0)
        return RTCOSIM_OK;
    rtcosim_status st = c->ops->get(c->self, type, vrs, n, values, err);
    return st == RTCOSIM_ECOMPONENT ? st : after_call(c, st);
}

rtcosim_status rtcosim_component_set(rtcosim_component *c, rtcosim_type type,
                                     const uint32_t *vrs, size_t n, const void *values,
                                     rtcosim_error *err)
{
    if (!values_allowed(c))
        return wrong_state(c, "set", err);
    if (n == 0)
        return RTCOSIM_OK;
    return after_call(c, c->ops->set(c->self, type, vrs, n, values, err));
}

rtcosim_status rtcosim_component_set_input_derivatives(rtcosim_component *c,
                                                       const uint32_t *vrs, size_t n,
                                                       int order, const double *values,
                                                       rtcosim_error *err)
{
    if (!values_allowed(c))
        return wrong_state(c, "set_input_derivatives", err);
    if (!c->ops->set_input_derivatives || c->desc.capabilities.max_input_derivative_order < order)
        return unsupported(c, "input derivatives of this order", err);
    return after_call(c, c->ops->set_input_derivatives(c->self, vrs, n, order, values, err));
}

rtcosim_status rtcosim_component_get_state(rtcosim_component *c, rtcosim_state *state,
                                           rtcosim_error *err)
{
    if (!values_allowed(c))
        return wrong_state(c, "get_state", err);
    if (!c->ops->get_state || !c->desc.capabilities.can_get_set_state)
        return unsupported(c, "getting state", err);
    CALL_ENTER(c, RTCOSIM_CALL_GET_STATE);
    rtcosim_status st = c->ops->get_state(c->self, state, err);
    CALL_LEAVE();
    return after_call(c, st);
}

rtcosim_status rtcosim_component_set_state(rtcosim_component *c, rtcosim_state state,
                                           rtcosim_error *err)
{
    bool recovering = c->state == LC_FAILED && c->recoverable;
    if (!values_allowed(c) && !recovering)
        return wrong_state(c, "set_state", err);
    if (!c->ops->set_state || !c->desc.capabilities.can_get_set_state)
        return unsupported(c, "setting state", err);
    CALL_ENTER(c, RTCOSIM_CALL_SET_STATE);
    rtcosim_status st = c->ops->set_state(c->self, state, err);
    CALL_LEAVE();
    if (st == RTCOSIM_OK && recovering)
        c->state = c->resume;
    return after_call(c, st);
}

void rtcosim_component_free_state(rtcosim_component *c, rtcosim_state state)
{
    if (state && c->ops->free_state)
        c->ops->free_state(c->self, state);
}

rtcosim_status rtcosim_component_serialized_state_size(rtcosim_component *c,
                                                       rtcosim_state state, size_t *size,
                                                       rtcosim_error *err)
{
    if (!c->ops->serialized_state_size || !c->desc.capabilities.can_serialize_state)
        return unsupported(c, "serializing state", err);
    CALL_ENTER(c, RTCOSIM_CALL_SERIALIZE_STATE);
    rtcosim_status st = c->ops->serialized_state_size(c->self, state, size, err);
    CALL_LEAVE();
    return after_call(c, st);
}

rtcosim_status rtcosim_component_serialize_state(rtcosim_component *c, rtcosim_state state,
                                                 uint8_t *buffer, size_t size,
                                                 rtcosim_error *err)
{
    if (!c->ops->serialize_state || !c->desc.capabilities.can_serialize_state)
        return unsupported(c, "serializing state", err);
    CALL_ENTER(c, RTCOSIM_CALL_SERIALIZE_STATE);
    rtcosim_status st = c->ops->serialize_state(c->self, state, buffer, size, err);
    CALL_LEAVE();
    return after_call(c, st);
}

rtcosim_status rtcosim_component_deserialize_state(rtcosim_component *c,
                                                   const uint8_t *buffer, size_t size,
                                                   rtcosim_state *state, rtcosim_error *err)
{
    if (!c->ops->deserialize_state || !c->desc.capabilities.can_serialize_state)
        return unsupported(c, "deserializing state", err);
    if (!state)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: deserializing state: NULL state pointer",
                                 label(c));
    rtcosim_state given = *state;
    CALL_ENTER(c, RTCOSIM_CALL_DESERIALIZE_STATE);
    rtcosim_status st = c->ops->deserialize_state(c->self, buffer, size, state, err);
    CALL_LEAVE();
    st = after_call(c, st);
    /* An implementation that could not reuse the given snapshot returned a
     * new one; the given one is still the caller's, so free it here. */
    if (st == RTCOSIM_OK && given && *state != given)
        rtcosim_component_free_state(c, given);
    return st;
}

rtcosim_status rtcosim_component_terminate(rtcosim_component *c, rtcosim_error *err)
{
    if (c->state != LC_STEPPING && c->state != LC_INIT && c->state != LC_EVENT)
        return wrong_state(c, "terminate", err);
    if (c->state == LC_INIT) {
        /* Still initializing (an error path): no FMI version allows
         * terminate there; the component ends with free. */
        c->state = LC_TERMINATED;
        return RTCOSIM_OK;
    }
    CALL_ENTER(c, RTCOSIM_CALL_TERMINATE);
    rtcosim_status st = c->ops->terminate ? c->ops->terminate(c->self, err) : RTCOSIM_OK;
    CALL_LEAVE();
    c->state = st == RTCOSIM_OK ? LC_TERMINATED : LC_FAILED;
    return st;
}

bool rtcosim_component_in_event_mode(const rtcosim_component *c)
{
    return c && c->state == LC_EVENT;
}

static rtcosim_status event_call(rtcosim_component *c, lifecycle from, lifecycle to,
                                 rtcosim_status (*op)(void *, rtcosim_error *), const char *name,
                                 rtcosim_error *err)
{
    if (c->state != from)
        return wrong_state(c, name, err);
    if (!op || !c->desc.capabilities.event_mode_used)
        return unsupported(c, "event mode", err);
    CALL_ENTER(c, RTCOSIM_CALL_EVENT_MODE);
    rtcosim_status st = op(c->self, err);
    CALL_LEAVE();
    if (st == RTCOSIM_OK)
        c->state = to;
    return after_call(c, st);
}

rtcosim_status rtcosim_component_enter_event_mode(rtcosim_component *c, rtcosim_error *err)
{
    return event_call(c, LC_STEPPING, LC_EVENT, c->ops->enter_event_mode, "enter_event_mode",
                      err);
}

rtcosim_status rtcosim_component_enter_step_mode(rtcosim_component *c, rtcosim_error *err)
{
    return event_call(c, LC_EVENT, LC_STEPPING, c->ops->enter_step_mode, "enter_step_mode", err);
}

rtcosim_status rtcosim_component_update_discrete_states(rtcosim_component *c,
                                                        rtcosim_event_update *update,
                                                        rtcosim_error *err)
{
    if (c->state != LC_EVENT)
        return wrong_state(c, "update_discrete_states", err);
    if (!c->ops->update_discrete_states || !c->desc.capabilities.event_mode_used)
        return unsupported(c, "event mode", err);
    *update = (rtcosim_event_update){0};
    CALL_ENTER(c, RTCOSIM_CALL_EVENT_MODE);
    rtcosim_status st = c->ops->update_discrete_states(c->self, update, err);
    CALL_LEAVE();
    return after_call(c, st);
}

rtcosim_status rtcosim_component_handle_event(rtcosim_component *c, unsigned max_iterations,
                                              rtcosim_event_update *summary, rtcosim_error *err)
{
    rtcosim_event_update local;
    if (!summary)
        summary = &local;
    rtcosim_status st = rtcosim_component_settle_events(c, max_iterations, summary, err);
    if (st != RTCOSIM_OK)
        return st;
    return summary->terminate_requested ? RTCOSIM_OK : rtcosim_component_enter_step_mode(c, err);
}

rtcosim_status rtcosim_component_settle_events(rtcosim_component *c, unsigned max_iterations,
                                               rtcosim_event_update *summary, rtcosim_error *err)
{
    rtcosim_event_update local;
    if (!summary)
        summary = &local;
    *summary = (rtcosim_event_update){0};
    rtcosim_status st = RTCOSIM_OK;
    if (c->state != LC_EVENT && (st = rtcosim_component_enter_event_mode(c, err)) != RTCOSIM_OK)
        return st;
    bool terminate = false, nominals = false, values = false;
    for (unsigned i = 0;; i++) {
        if (i == max_iterations)
            return rtcosim_error_set(err, RTCOSIM_ECOMPONENT,
                                     "%s: event iteration did not settle: discrete states still "
                                     "need an update after %u fmi3UpdateDiscreteStates calls",
                                     label(c), max_iterations);
        if ((st = rtcosim_component_update_discrete_states(c, summary, err)) != RTCOSIM_OK)
            return st;
        terminate |= summary->terminate_requested;
        nominals |= summary->nominals_changed;
        values |= summary->values_changed;
        /* FMI 3.0 section 4.2.2: terminateSimulation ends the iteration; the
         * importer terminates from Event Mode. */
        if (summary->terminate_requested || !summary->discrete_states_need_update)
            break;
    }
    summary->terminate_requested = terminate;
    summary->nominals_changed = nominals;
    summary->values_changed = values;
    return RTCOSIM_OK;
}

/* Decimal, or hexadecimal with a 0x prefix; never octal (a start value "010"
 * means ten to every user). */
static int integer_base(const char *text)
{
    const char *p = text;
    if (*p == '-' || *p == '+')
        p++;
    return (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) ? 16 : 10;
}

static rtcosim_status parse_signed(const char *text, int64_t lo, int64_t hi, rtcosim_value *out,
                                   rtcosim_type type, rtcosim_error *err)
{
    errno = 0;
    char *end = NULL;
    long long v = strtoll(text, &end, integer_base(text));
    if (end == text || *end != '\0')
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "'%s' is not a valid %s value", text,
                                 rtcosim_type_name(type));
    if (errno == ERANGE || v < lo || v > hi)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s value '%s' is out of range", 
                                 rtcosim_type_name(type), text);
    out->i64 = v;
    return RTCOSIM_OK;
}

static rtcosim_status parse_unsigned(const char *text, uint64_t hi, rtcosim_value *out,
                                     rtcosim_type type, rtcosim_error *err)
{
    errno = 0;
    char *end = NULL;
    if (text[0] == '-')
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s value '%s' is negative",
                                 rtcosim_type_name(type), text);
    unsigned long long v = strtoull(text, &end, integer_base(text));
    if (end == text || *end != '\0')
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "'%s' is not a valid %s value", text,
                                 rtcosim_type_name(type));
    if (errno == ERANGE || v > hi)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s value '%s' is out of range",
                                 rtcosim_type_name(type), text);
    out->u64 = v;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_value_parse(rtcosim_type type, const char *text, rtcosim_value *out,
                                   rtcosim_error *err)
{
    if (!text)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "missing value");
    switch (type) {
    case RTCOSIM_TYPE_FLOAT64:
    case RTCOSIM_TYPE_FLOAT32: {
        char *end = NULL;
        errno = 0;
        double v = strtod(text, &end);
        if (end == text || *end != '\0')
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "'%s' is not a valid %s value", text,
                                     rtcosim_type_name(type));
        /* As in SSV files: a start value is a finite number. Underflow to
         * a subnormal or zero is kept; overflow is refused. */
        if (!isfinite(v) || (errno == ERANGE && fabs(v) > 1.0) ||
            (type == RTCOSIM_TYPE_FLOAT32 && fabs(v) > FLT_MAX))
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "'%s' is not a finite %s value", text,
                                     rtcosim_type_name(type));
        if (type == RTCOSIM_TYPE_FLOAT32)
            out->f32 = (float)v;
        else
            out->f64 = v;
        return RTCOSIM_OK;
    }
    case RTCOSIM_TYPE_INT8: return parse_signed(text, INT8_MIN, INT8_MAX, out, type, err);
    case RTCOSIM_TYPE_INT16: return parse_signed(text, INT16_MIN, INT16_MAX, out, type, err);
    case RTCOSIM_TYPE_INT32: return parse_signed(text, INT32_MIN, INT32_MAX, out, type, err);
    case RTCOSIM_TYPE_INT64: return parse_signed(text, INT64_MIN, INT64_MAX, out, type, err);
    case RTCOSIM_TYPE_UINT8: return parse_unsigned(text, UINT8_MAX, out, type, err);
    case RTCOSIM_TYPE_UINT16: return parse_unsigned(text, UINT16_MAX, out, type, err);
    case RTCOSIM_TYPE_UINT32: return parse_unsigned(text, UINT32_MAX, out, type, err);
    case RTCOSIM_TYPE_UINT64: return parse_unsigned(text, UINT64_MAX, out, type, err);
    case RTCOSIM_TYPE_BOOLEAN:
    case RTCOSIM_TYPE_CLOCK:
        if (strcasecmp(text, "true") == 0 || strcmp(text, "1") == 0) {
            out->b = true;
            return RTCOSIM_OK;
        }
        if (strcasecmp(text, "false") == 0 || strcmp(text, "0") == 0) {
            out->b = false;
            return RTCOSIM_OK;
        }
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "'%s' is not a valid Boolean value (true/false/1/0)",
                                 text);
    case RTCOSIM_TYPE_STRING:
        out->s = text;
        return RTCOSIM_OK;
    default:
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "cannot parse a %s value from text",
                                 rtcosim_type_name(type));
    }
}

void rtcosim_value_store(rtcosim_type type, const rtcosim_value *value, void *slot)
{
    switch (type) {
    case RTCOSIM_TYPE_FLOAT64: *(double *)slot = value->f64; break;
    case RTCOSIM_TYPE_FLOAT32: *(float *)slot = value->f32; break;
    case RTCOSIM_TYPE_INT8: *(int8_t *)slot = (int8_t)value->i64; break;
    case RTCOSIM_TYPE_INT16: *(int16_t *)slot = (int16_t)value->i64; break;
    case RTCOSIM_TYPE_INT32: *(int32_t *)slot = (int32_t)value->i64; break;
    case RTCOSIM_TYPE_INT64: *(int64_t *)slot = value->i64; break;
    case RTCOSIM_TYPE_UINT8: *(uint8_t *)slot = (uint8_t)value->u64; break;
    case RTCOSIM_TYPE_UINT16: *(uint16_t *)slot = (uint16_t)value->u64; break;
    case RTCOSIM_TYPE_UINT32: *(uint32_t *)slot = (uint32_t)value->u64; break;
    case RTCOSIM_TYPE_UINT64: *(uint64_t *)slot = value->u64; break;
    case RTCOSIM_TYPE_BOOLEAN:
    case RTCOSIM_TYPE_CLOCK: *(bool *)slot = value->b; break;
    case RTCOSIM_TYPE_STRING: *(const char **)slot = value->s; break;
    case RTCOSIM_TYPE_BINARY: *(rtcosim_binary *)slot = value->bin; break;
    default: break;
    }
}

/* Binary as fmusim reads it (FMIHexToBinary): two hex digits per byte,
 * either case, nothing else; "" is zero bytes. */
bool rtcosim_binary_from_hex(const char *text, uint8_t *out, size_t *size, size_t *bad)
{
    size_t len = strlen(text);
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        int digit = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : -1;
        if (digit < 0) {
            *bad = i;
            return false;
        }
        if (i % 2 == 0)
            out[i / 2] = (uint8_t)(digit << 4);
        else
            out[i / 2] |= (uint8_t)digit;
    }
    if (len % 2 != 0) {
        *bad = len;
        return false;
    }
    *size = len / 2;
    return true;
}
