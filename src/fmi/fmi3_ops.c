/* The rtcosim component operations for an FMI 3.0 co-simulation FMU (FMI 3.0
 * chapter 4), without intermediate variables (Event Mode and early return:
 * fmi3_events.c). Get/set for every FMI 3.0 type (array elements through
 * fmi3_arrays.c); no allocation on the step and value paths (Binary
 * conversion uses load-time scratch). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi/fmu_internal.h"

#define NO_TIME NAN

void rtcosim_fmi3_log_message(fmi3InstanceEnvironment env, fmi3Status status,
                              fmi3String category, fmi3String message)
{
    rtcosim_fmu *f = env;
    if (f)
        rtcosim_fmu_log_message(f, (int)status, category, message);
}

static rtcosim_status fmi3_instantiate(void *self, const char *instance_name, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    free(f->instance_name);
    f->instance_name = strdup(instance_name);
    if (!f->instance_name)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", instance_name);
    f->instance = f->fmi3.fmi3InstantiateCoSimulation(
        instance_name, f->md->instantiation_token, f->resource_location, f->visible,
        f->logging_on, f->event_mode_used, f->early_return_allowed, NULL, 0, f,
        rtcosim_fmi3_log_message,
        f->early_return_allowed ? rtcosim_fmi3_intermediate_update : NULL);
    RTCOSIM_FMU_TRACE(f, "fmi3InstantiateCoSimulation", f->instance ? fmi3OK : fmi3Error,
                      "\"%s\", \"%s\", \"%s\", visible=%d, loggingOn=%d, eventModeUsed=%d, "
                      "earlyReturnAllowed=%d, nRequiredIntermediateVariables=0",
                      instance_name, f->md->instantiation_token, f->resource_location,
                      f->visible, f->logging_on, f->event_mode_used, f->early_return_allowed);
    if (!f->instance)
        return rtcosim_error_set(err, RTCOSIM_ECOMPONENT,
                                 "%s: fmi3InstantiateCoSimulation failed (returned NULL)",
                                 instance_name);
    return RTCOSIM_OK;
}

/* FMI 3.0 has no setup call: the experiment goes to fmi3EnterInitializationMode. */
static rtcosim_status fmi3_setup(void *self, double tolerance, rtcosim_time_ns start,
                                 rtcosim_time_ns stop, rtcosim_error *err)
{
    (void)err;
    rtcosim_fmu *f = self;
    f->tolerance_defined = tolerance > 0;
    f->tolerance = f->tolerance_defined ? tolerance : 0;
    f->start = rtcosim_time_to_seconds(start);
    f->stop_defined = stop >= 0;
    f->stop = f->stop_defined ? rtcosim_time_to_seconds(stop) : 0;
    return RTCOSIM_OK;
}

static rtcosim_status fmi3_enter_init(void *self, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    fmi3Status s = f->fmi3.fmi3EnterInitializationMode(f->instance, f->tolerance_defined,
                                                       f->tolerance, f->start, f->stop_defined,
                                                       f->stop);
    RTCOSIM_FMU_TRACE(f, "fmi3EnterInitializationMode", s,
                      "toleranceDefined=%d, tolerance=%g, startTime=%.17g, stopTimeDefined=%d, stopTime=%.17g",
                      f->tolerance_defined, f->tolerance, f->start, f->stop_defined, f->stop);
    return rtcosim_fmu_status(f, s, "fmi3EnterInitializationMode", NO_TIME, err);
}

static rtcosim_status simple_call(rtcosim_fmu *f, fmi3Status (*fn)(fmi3Instance),
                                  const char *name, rtcosim_error *err)
{
    fmi3Status s = fn(f->instance);
    RTCOSIM_FMU_TRACE(f, name, s, "%s", "");
    return rtcosim_fmu_status(f, s, name, NO_TIME, err);
}

static rtcosim_status fmi3_exit_init(void *self, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    return simple_call(f, f->fmi3.fmi3ExitInitializationMode, "fmi3ExitInitializationMode", err);
}

static rtcosim_status fmi3_terminate(void *self, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    return simple_call(f, f->fmi3.fmi3Terminate, "fmi3Terminate", err);
}

static rtcosim_status fmi3_do_step(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                   rtcosim_step_result *result, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    double t_s = rtcosim_time_to_seconds(t), h_s = rtcosim_time_to_seconds(h);
    fmi3Boolean event_needed = fmi3False, terminate = fmi3False, early = fmi3False;
    fmi3Float64 last = t_s + h_s;
    /* noSetFMUStatePriorToCurrentPoint (section 4.2.1): a rollback needs a
     * snapshot, so while none exists the FMU may drop its history. */
    fmi3Boolean no_rollback = f->live_states == 0;
    f->inputs_unevaluated = false;
    fmi3Status s = f->fmi3.fmi3DoStep(f->instance, t_s, h_s, no_rollback, &event_needed,
                                      &terminate, &early, &last);
    RTCOSIM_FMU_TRACE(f, "fmi3DoStep", s,
                      "t=%.17g, h=%.17g, noSetFMUStatePriorToCurrentPoint=%s -> "
                      "eventHandlingNeeded=%d, terminateSimulation=%d, earlyReturn=%d, "
                      "lastSuccessfulTime=%.17g",
                      t_s, h_s, no_rollback ? "true" : "false", event_needed, terminate, early,
                      last);
    /* Without event mode (eventModeUsed=false) eventHandlingNeeded needs no
     * action (FMI 3.0 section 4.2.2); it is passed on for information. With
     * it the caller enters Event Mode (rtcosim_component_handle_event). */
    result->event_handling_needed = event_needed;
    result->terminate_requested = terminate;
    result->early_return = early;
    /* lastSuccessfulTime counts when the step ended before t+h: an early
     * return or a discarded step (section 4.2.1). */
    if (early && !f->early_return_allowed && s <= fmi3Warning)
        return rtcosim_error_set(err, RTCOSIM_ECOMPONENT,
                                 "%s: fmi3DoStep returned early at t=%.17g, but early return was "
                                 "not allowed (earlyReturnAllowed=false, FMI 3.0 section 4.2.1)",
                                 f->instance_name, last);
    if (early || s == fmi3Discard) {
        rtcosim_time_ns last_ns;
        if (rtcosim_time_from_seconds(last, &last_ns, NULL) == RTCOSIM_OK && last_ns >= t &&
            last_ns <= t + h)
            result->last_successful_time = last_ns;
        else
            result->last_successful_time = t;
    }
    return rtcosim_fmu_status(f, s, "fmi3DoStep", t_s, err);
}

static void trace_values(rtcosim_fmu *f, const char *name, fmi3Status s, rtcosim_type type,
                         const uint32_t *vrs, size_t n, const void *values)
{
    if (f->log_calls && rtcosim_log_enabled(RTCOSIM_LOG_DEBUG)) {
        char text[640];
        rtcosim_fmu_format_values(type, vrs, n, values, text, sizeof text);
        rtcosim_fmu_log_call(f, name, s, "%s", text);
    }
}

/* The types whose rtcosim array layout equals FMI 3.0's. */
#define FMI3_DIRECT_TYPES(X)                                                               \
    X(FLOAT64, Float64) X(FLOAT32, Float32) X(INT8, Int8) X(UINT8, UInt8) X(INT16, Int16)  \
    X(UINT16, UInt16) X(INT32, Int32) X(UINT32, UInt32) X(INT64, Int64) X(UINT64, UInt64)  \
    X(BOOLEAN, Boolean) X(STRING, String)

bool rtcosim_fmi3_direct_call(rtcosim_fmu *f, bool set, rtcosim_type type, const uint32_t *vrs,
                              size_t nvr, void *values, size_t nvalues, const char **name,
                              fmi3Status *status)
{
    switch (type) {
#define DIRECT_CASE(TT, T)                                                                 \
    case RTCOSIM_TYPE_##TT:                                                                \
        *name = set ? "fmi3Set" #T : "fmi3Get" #T;                                         \
        if (set ? !f->fmi3.fmi3Set##T : !f->fmi3.fmi3Get##T)                               \
            return false;                                                                  \
        *status = set ? f->fmi3.fmi3Set##T(f->instance, vrs, nvr, values, nvalues)          \
                      : f->fmi3.fmi3Get##T(f->instance, vrs, nvr, values, nvalues);         \
        return true;
        FMI3_DIRECT_TYPES(DIRECT_CASE)
#undef DIRECT_CASE
    default: *name = NULL; return false;
    }
}

static rtcosim_status fmi3_get(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                               void *values, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    f->inputs_unevaluated = false; /* a get computes what it returns (section 2.3.5) */
    if (f->arrays && rtcosim_fmi3_has_elements(f, vrs, n))
        return rtcosim_fmi3_array_get(f, type, vrs, n, values, err);
    fmi3Status s;
    const char *name;
    switch (type) {
#define GET_CASE(TT, T)                                                                    \
    case RTCOSIM_TYPE_##TT:                                                                \
        name = "fmi3Get" #T;                                                               \
        if (!f->fmi3.fmi3Get##T)                                                           \
            return rtcosim_fmu_lacks(f, name, err);                                        \
        s = f->fmi3.fmi3Get##T(f->instance, vrs, n, values, n);                            \
        break;
        FMI3_DIRECT_TYPES(GET_CASE)
#undef GET_CASE
    case RTCOSIM_TYPE_CLOCK:
        name = "fmi3GetClock";
        if (!f->fmi3.fmi3GetClock)
            return rtcosim_fmu_lacks(f, name, err);
        s = f->fmi3.fmi3GetClock(f->instance, vrs, n, values);
        break;
    case RTCOSIM_TYPE_BINARY: {
        name = "fmi3GetBinary";
        if (!f->fmi3.fmi3GetBinary)
            return rtcosim_fmu_lacks(f, name, err);
        rtcosim_binary *out = values;
        s = fmi3OK;
        for (size_t done = 0; done < n && s <= fmi3Warning;) {
            size_t chunk = n - done < f->scratch_count ? n - done : f->scratch_count;
            fmi3Status cs = f->fmi3.fmi3GetBinary(f->instance, vrs + done, chunk, f->binary_sizes,
                                                  f->binary_values, chunk);
            s = cs > s ? cs : s;
            for (size_t i = 0; i < chunk; i++)
                out[done + i] = (rtcosim_binary){f->binary_values[i], f->binary_sizes[i]};
            done += chunk;
        }
        break;
    }
    default: return rtcosim_fmu_wrong_type(f, type, err);
    }
    trace_values(f, name, s, type, vrs, n, s <= fmi3Warning ? values : NULL);
    return rtcosim_fmu_status(f, s, name, NO_TIME, err);
}

static rtcosim_status fmi3_set(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                               const void *values, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    f->inputs_unevaluated = true;
    if (f->arrays && rtcosim_fmi3_has_elements(f, vrs, n))
        return rtcosim_fmi3_array_set(f, type, vrs, n, values, err);
    fmi3Status s;
    const char *name;
    switch (type) {
#define SET_CASE(TT, T)                                                                    \
    case RTCOSIM_TYPE_##TT:                                                                \
        name = "fmi3Set" #T;                                                               \
        if (!f->fmi3.fmi3Set##T)                                                           \
            return rtcosim_fmu_lacks(f, name, err);                                        \
        s = f->fmi3.fmi3Set##T(f->instance, vrs, n, values, n);                            \
        break;
        FMI3_DIRECT_TYPES(SET_CASE)
#undef SET_CASE
    case RTCOSIM_TYPE_CLOCK:
        name = "fmi3SetClock";
        if (!f->fmi3.fmi3SetClock)
            return rtcosim_fmu_lacks(f, name, err);
        s = f->fmi3.fmi3SetClock(f->instance, vrs, n, values);
        break;
    case RTCOSIM_TYPE_BINARY: {
        name = "fmi3SetBinary";
        if (!f->fmi3.fmi3SetBinary)
            return rtcosim_fmu_lacks(f, name, err);
        const rtcosim_binary *in = values;
        rtcosim_status over = rtcosim_fmi3_check_binary(f, vrs, n, in, err);
        if (over != RTCOSIM_OK)
            return over;
        s = fmi3OK;
        for (size_t done = 0; done < n && s <= fmi3Warning;) {
            size_t chunk = n - done < f->scratch_count ? n - done : f->scratch_count;
            for (size_t i = 0; i < chunk; i++) {
                f->binary_sizes[i] = in[done + i].size;
                f->binary_values[i] = in[done + i].data;
            }
            fmi3Status cs = f->fmi3.fmi3SetBinary(f->instance, vrs + done, chunk, f->binary_sizes,
                                                  f->binary_values, chunk);
            s = cs > s ? cs : s;
            done += chunk;
        }
        break;
    }
    default: return rtcosim_fmu_wrong_type(f, type, err);
    }
    trace_values(f, name, s, type, vrs, n, values);
    return rtcosim_fmu_status(f, s, name, NO_TIME, err);
}

/* FMI 3.0 has no fmi3SetInputDerivatives: an FMU that wants derivatives of a
 * continuous Float64 input u declares another input whose `derivative`
 * attribute names u (and so on for higher orders, FMI 3.0 section 2.4.7.5).
 * Setting "derivative k of u" is then an fmi3SetFloat64 on that input. */
#define RTCOSIM_FMI3_MAX_INPUT_ORDER 3

struct rtcosim_fmi3_input_derivative {
    uint32_t vr;                                   /* the base input */
    int orders;                                    /* derivatives declared */
    uint32_t derivative_vr[RTCOSIM_FMI3_MAX_INPUT_ORDER]; /* order k at [k-1] */
};

/* Array elements are left out: their derivatives would be array inputs
 * too, set through fmi3_arrays.c, which the derivative path does not use. */
static bool is_float64_input(const rtcosim_fmi_md *md, const rtcosim_variable *v)
{
    bool element = md->array_count && v->value_reference >= md->element_vr_base &&
                   v->value_reference < md->element_vr_end;
    return v->type == RTCOSIM_TYPE_FLOAT64 && v->causality == RTCOSIM_CAUSALITY_INPUT &&
           v->variability == RTCOSIM_VARIABILITY_CONTINUOUS && !element;
}

/* By value reference; for one reference (alias names) the longest chain first. */
static int by_base_vr(const void *a, const void *b)
{
    const struct rtcosim_fmi3_input_derivative *x = a, *y = b;
    if (x->vr != y->vr)
        return x->vr < y->vr ? -1 : 1;
    return y->orders - x->orders;
}

/* Build the base-input table; the accepted order is the smallest chain length
 * over all base inputs, so that any input may be given any accepted order.
 * Alias names of an input share its value reference and collapse into one
 * entry holding the longest chain found under any of the names. */
static rtcosim_status map_input_derivatives(rtcosim_fmu *f, rtcosim_error *err)
{
    const rtcosim_fmi_md *md = f->md;
    size_t bases = 0;
    for (size_t i = 0; i < md->variable_count; i++) {
        const rtcosim_variable *v = &md->variables[i];
        bases += is_float64_input(md, v) &&
                 !(v->derivative_of >= 0 && is_float64_input(md, &md->variables[v->derivative_of]));
    }
    if (bases == 0)
        return RTCOSIM_OK;
    f->input_derivatives = calloc(bases, sizeof *f->input_derivatives);
    /* derivative_input[i]: the input declared as the derivative of variable i. */
    long *derivative_input = malloc(md->variable_count * sizeof *derivative_input);
    if (!f->input_derivatives || !derivative_input) {
        free(derivative_input);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", f->archive_path);
    }
    for (size_t j = 0; j < md->variable_count; j++)
        derivative_input[j] = -1;
    for (size_t j = 0; j < md->variable_count; j++)
        if (is_float64_input(md, &md->variables[j]) && md->variables[j].derivative_of >= 0 &&
            derivative_input[md->variables[j].derivative_of] < 0)
            derivative_input[md->variables[j].derivative_of] = (long)j;
    size_t count = 0;
    for (size_t i = 0; i < md->variable_count; i++) {
        const rtcosim_variable *v = &md->variables[i];
        if (!is_float64_input(md, v) ||
            (v->derivative_of >= 0 && is_float64_input(md, &md->variables[v->derivative_of])))
            continue;
        struct rtcosim_fmi3_input_derivative *d = &f->input_derivatives[count++];
        d->vr = v->value_reference;
        for (long j = derivative_input[i]; j >= 0 && d->orders < RTCOSIM_FMI3_MAX_INPUT_ORDER;
             j = derivative_input[j])
            d->derivative_vr[d->orders++] = md->variables[j].value_reference;
    }
    free(derivative_input);
    qsort(f->input_derivatives, count, sizeof *f->input_derivatives, by_base_vr);
    size_t unique = 0;
    int order = RTCOSIM_FMI3_MAX_INPUT_ORDER;
    for (size_t i = 0; i < count; i++) {
        if (unique && f->input_derivatives[unique - 1].vr == f->input_derivatives[i].vr)
            continue; /* an alias name with no longer chain */
        f->input_derivatives[unique++] = f->input_derivatives[i];
        order = f->input_derivatives[i].orders < order ? f->input_derivatives[i].orders : order;
    }
    f->input_derivative_count = unique;
    f->max_input_order = order;
    return RTCOSIM_OK;
}

static const struct rtcosim_fmi3_input_derivative *find_base(const rtcosim_fmu *f, uint32_t vr)
{
    size_t lo = 0, hi = f->input_derivative_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint32_t at = f->input_derivatives[mid].vr;
        if (at == vr)
            return &f->input_derivatives[mid];
        if (at < vr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static rtcosim_status fmi3_set_input_derivatives(void *self, const uint32_t *vrs, size_t n,
                                                 int order, const double *values,
                                                 rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    if (order < 1 || order > f->max_input_order)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "%s: input derivative order %d is outside 1..%d", f->instance_name,
                                 order, f->max_input_order);
    fmi3Status s = fmi3OK;
    for (size_t done = 0; done < n && s <= fmi3Warning;) {
        size_t chunk = n - done < f->scratch_count ? n - done : f->scratch_count;
        for (size_t i = 0; i < chunk; i++) {
            const struct rtcosim_fmi3_input_derivative *d = find_base(f, vrs[done + i]);
            if (!d)
                return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                         "%s: value reference %" PRIu32
                                         " is not a continuous Float64 input",
                                         f->instance_name, vrs[done + i]);
            f->vr_scratch[i] = d->derivative_vr[order - 1];
        }
        fmi3Status cs = f->fmi3.fmi3SetFloat64(f->instance, f->vr_scratch, chunk, values + done,
                                               chunk);
        trace_values(f, "fmi3SetFloat64", cs, RTCOSIM_TYPE_FLOAT64, f->vr_scratch, chunk,
                     values + done);
        s = cs > s ? cs : s;
        done += chunk;
    }
    return rtcosim_fmu_status(f, s, "fmi3SetFloat64", NO_TIME, err);
}

static rtcosim_status fmi3_get_state(void *self, rtcosim_state *state, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    fmi3FMUState st = *state;
    fmi3Status s = f->fmi3.fmi3GetFMUState(f->instance, &st);
    RTCOSIM_FMU_TRACE(f, "fmi3GetFMUState", s, "%p -> %p", *state, st);
    if (s <= fmi3Warning) {
        f->live_states += *state == NULL && st != NULL;
        *state = st;
    }
    return rtcosim_fmu_status(f, s, "fmi3GetFMUState", NO_TIME, err);
}

static rtcosim_status fmi3_set_state(void *self, rtcosim_state state, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    fmi3Status s = f->fmi3.fmi3SetFMUState(f->instance, state);
    RTCOSIM_FMU_TRACE(f, "fmi3SetFMUState", s, "%p", state);
    if (f->arrays)
        rtcosim_fmi3_arrays_invalidate(f->arrays); /* the FMU's arrays went back in time */
    return rtcosim_fmu_status(f, s, "fmi3SetFMUState", NO_TIME, err);
}

static void fmi3_free_state(void *self, rtcosim_state state)
{
    rtcosim_fmu *f = self;
    fmi3FMUState st = state;
    fmi3Status s = f->fmi3.fmi3FreeFMUState(f->instance, &st);
    RTCOSIM_FMU_TRACE(f, "fmi3FreeFMUState", s, "%p", state);
    if (state && f->live_states > 0)
        f->live_states--;
    rtcosim_error ignored;
    if (rtcosim_fmu_status(f, s, "fmi3FreeFMUState", NO_TIME, &ignored) != RTCOSIM_OK)
        rtcosim_log(RTCOSIM_LOG_WARNING, f->instance_name, "%s", ignored.message);
}

static rtcosim_status fmi3_serialized_size(void *self, rtcosim_state state, size_t *size,
                                           rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    fmi3Status s = f->fmi3.fmi3SerializedFMUStateSize(f->instance, state, size);
    RTCOSIM_FMU_TRACE(f, "fmi3SerializedFMUStateSize", s, "%p -> %zu", state, *size);
    return rtcosim_fmu_status(f, s, "fmi3SerializedFMUStateSize", NO_TIME, err);
}

static rtcosim_status fmi3_serialize(void *self, rtcosim_state state, uint8_t *buffer,
                                     size_t size, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    fmi3Status s = f->fmi3.fmi3SerializeFMUState(f->instance, state, buffer, size);
    RTCOSIM_FMU_TRACE(f, "fmi3SerializeFMUState", s, "%p, %zu bytes", state, size);
    return rtcosim_fmu_status(f, s, "fmi3SerializeFMUState", NO_TIME, err);
}

static rtcosim_status fmi3_deserialize(void *self, const uint8_t *buffer, size_t size,
                                       rtcosim_state *state, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    fmi3FMUState st = *state;
    fmi3Status s = f->fmi3.fmi3DeserializeFMUState(f->instance, buffer, size, &st);
    RTCOSIM_FMU_TRACE(f, "fmi3DeserializeFMUState", s, "%zu bytes -> %p", size, st);
    if (s <= fmi3Warning) {
        /* A new snapshot when none was given or the FMU did not overwrite
         * the given one in place (FMI leaves that open for deserialize;
         * the wrapper then frees the given one). */
        f->live_states += st != NULL && st != *state;
        *state = st;
    }
    return rtcosim_fmu_status(f, s, "fmi3DeserializeFMUState", NO_TIME, err);
}

rtcosim_status rtcosim_fmi3_prepare(rtcosim_fmu *f, rtcosim_error *err)
{
    const rtcosim_fmi_md *md = f->md;
    const rtcosim_fmi3_functions *fn = &f->fmi3;
#define REQUIRE(name)                                                                      \
    if (!fn->name)                                                                         \
        return rtcosim_fmu_lacks(f, #name, err);
    if (!f->model_exchange && !f->scheduled)
        REQUIRE(fmi3InstantiateCoSimulation)
    REQUIRE(fmi3FreeInstance)
    REQUIRE(fmi3EnterInitializationMode)
    REQUIRE(fmi3ExitInitializationMode)
    REQUIRE(fmi3Terminate)
    if (!f->model_exchange && !f->scheduled)
        REQUIRE(fmi3DoStep)
    /* Getters and setters of the types the model has. */
#define REQUIRE_TYPE(TT, T)                                                                \
    if (rtcosim_fmi_md_has_type(md, RTCOSIM_TYPE_##TT)) {                                                 \
        REQUIRE(fmi3Get##T)                                                                \
        REQUIRE(fmi3Set##T)                                                                \
    }
    FMI3_DIRECT_TYPES(REQUIRE_TYPE)
    REQUIRE_TYPE(CLOCK, Clock)
    REQUIRE_TYPE(BINARY, Binary)
#undef REQUIRE_TYPE
    /* A binary of another major version would misread every argument; the
     * description has the last word, so only warn. */
    const char *version = fn->fmi3GetVersion ? fn->fmi3GetVersion() : NULL;
    if (version && strncmp(version, "3.", 2) != 0)
        rtcosim_log(RTCOSIM_LOG_WARNING, "fmi", "%s: fmi3GetVersion returns '%s', expected 3.x",
                    f->archive_path, version);
    f->ops = (rtcosim_component_ops){
        .kind = rtcosim_fmi3_kind,
        .instantiate = fmi3_instantiate,
        .setup = fmi3_setup,
        .enter_init = fmi3_enter_init,
        .exit_init = fmi3_exit_init,
        .do_step = fmi3_do_step,
        .get = fmi3_get,
        .set = fmi3_set,
        .terminate = fmi3_terminate,
        .destroy = rtcosim_fmu_destroy,
    };
    rtcosim_status st = map_input_derivatives(f, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_fmi3_arrays_prepare(f, err);
    if (st != RTCOSIM_OK)
        return st;
    if (f->max_input_order > 0)
        f->ops.set_input_derivatives = fmi3_set_input_derivatives;
    if (md->can_get_set_state) {
        REQUIRE(fmi3GetFMUState)
        REQUIRE(fmi3SetFMUState)
        REQUIRE(fmi3FreeFMUState)
        f->ops.get_state = fmi3_get_state;
        f->ops.set_state = fmi3_set_state;
        f->ops.free_state = fmi3_free_state;
    }
    if (md->can_serialize_state) {
        REQUIRE(fmi3SerializedFMUStateSize)
        REQUIRE(fmi3SerializeFMUState)
        REQUIRE(fmi3DeserializeFMUState)
        f->ops.serialized_state_size = fmi3_serialized_size;
        f->ops.serialize_state = fmi3_serialize;
        f->ops.deserialize_state = fmi3_deserialize;
    }
#undef REQUIRE
    return RTCOSIM_OK;
}
