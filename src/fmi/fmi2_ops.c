/* The rtcosim component operations for an FMI 2.0 co-simulation FMU
 * (FMI 2.0 chapter 4): lifecycle, batched get/set, input derivatives and FMU
 * state, each call's status mapped and optionally traced. No allocation on
 * the step and value paths: Boolean conversion uses load-time scratch. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi/fmu_internal.h"

_Static_assert(sizeof(fmi2ValueReference) == sizeof(uint32_t), "value reference width");
_Static_assert(sizeof(fmi2Integer) == sizeof(int32_t), "fmi2Integer width");

#define NO_TIME NAN

/* FMI 2.0 section 2.1.5: in log messages "#<t><vr>#" (t one of r, i, b, s)
 * stands for the name of the variable of that type and value reference, and
 * "##" for "#". Unknown references stay as written. */
void rtcosim_fmi2_expand_references(const rtcosim_fmi_md *md, const char *in, char *out,
                                    size_t size)
{
    size_t used = 0;
    while (*in && used + 1 < size) {
        const char *name = NULL;
        size_t skip = 1;
        if (in[0] == '#' && in[1] == '#') {
            name = "#";
            skip = 2;
        } else if (in[0] == '#' && in[1] && strchr("ribs", in[1]) && in[2] >= '0' && in[2] <= '9') {
            char *end;
            unsigned long vr = strtoul(in + 2, &end, 10);
            rtcosim_type type = in[1] == 'r'   ? RTCOSIM_TYPE_FLOAT64
                                : in[1] == 'i' ? RTCOSIM_TYPE_INT32
                                : in[1] == 'b' ? RTCOSIM_TYPE_BOOLEAN
                                               : RTCOSIM_TYPE_STRING;
            for (size_t i = 0; *end == '#' && i < md->variable_count && !name; i++)
                if (md->variables[i].type == type && md->variables[i].value_reference == vr)
                    name = md->variables[i].name;
            if (name)
                skip = (size_t)(end - in) + 1;
        }
        if (!name) {
            out[used++] = *in++;
            continue;
        }
        size_t len = strlen(name);
        if (len > size - 1 - used)
            len = size - 1 - used;
        memcpy(out + used, name, len);
        used += len;
        in += skip;
    }
    out[used] = '\0';
}

/* FMI 2.0 logger: printf-style message with variadic arguments. */
static void fmi2_logger(fmi2ComponentEnvironment env, fmi2String instance_name,
                        fmi2Status status, fmi2String category, fmi2String message, ...)
{
    (void)instance_name;
    rtcosim_fmu *f = env;
    if (!f || !message)
        return;
    char text[1024], expanded[1024];
    va_list ap;
    va_start(ap, message);
    vsnprintf(text, sizeof text, message, ap);
    va_end(ap);
    rtcosim_fmi2_expand_references(f->md, text, expanded, sizeof expanded);
    rtcosim_fmu_log_message(f, (int)status, category, expanded);
}

static void *fmi2_allocate(size_t nobj, size_t size)
{
    return calloc(nobj ? nobj : 1, size ? size : 1);
}

static rtcosim_status fmi2_instantiate(void *self, const char *instance_name, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    free(f->instance_name);
    f->instance_name = strdup(instance_name);
    if (!f->instance_name)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", instance_name);
    f->fmi2_callbacks = (fmi2CallbackFunctions){.logger = fmi2_logger,
                                                .allocateMemory = fmi2_allocate,
                                                .freeMemory = free,
                                                .stepFinished = NULL,
                                                .componentEnvironment = f};
    f->instance = f->fmi2.fmi2Instantiate(instance_name,
                                          f->model_exchange ? fmi2ModelExchange : fmi2CoSimulation,
                                          f->md->instantiation_token, f->resource_location,
                                          &f->fmi2_callbacks, f->visible, f->logging_on);
    RTCOSIM_FMU_TRACE(f, "fmi2Instantiate", f->instance ? fmi2OK : fmi2Error,
                      "\"%s\", %s, \"%s\", \"%s\", visible=%d, loggingOn=%d", instance_name,
                      f->model_exchange ? "fmi2ModelExchange" : "fmi2CoSimulation",
                      f->md->instantiation_token, f->resource_location,
                      f->visible, f->logging_on);
    if (!f->instance)
        return rtcosim_error_set(err, RTCOSIM_ECOMPONENT, "%s: fmi2Instantiate failed (returned NULL)",
                                 instance_name);
    return RTCOSIM_OK;
}

static rtcosim_status fmi2_setup(void *self, double tolerance, rtcosim_time_ns start,
                                 rtcosim_time_ns stop, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    fmi2Boolean tol_defined = tolerance > 0, stop_defined = stop >= 0;
    double start_s = rtcosim_time_to_seconds(start);
    double stop_s = stop_defined ? rtcosim_time_to_seconds(stop) : 0.0;
    fmi2Status s = f->fmi2.fmi2SetupExperiment(f->instance, tol_defined, tol_defined ? tolerance : 0,
                                               start_s, stop_defined, stop_s);
    RTCOSIM_FMU_TRACE(f, "fmi2SetupExperiment", s,
                      "toleranceDefined=%d, tolerance=%g, startTime=%.17g, stopTimeDefined=%d, stopTime=%.17g",
                      tol_defined, tolerance, start_s, stop_defined, stop_s);
    return rtcosim_fmu_status(f, s, "fmi2SetupExperiment", NO_TIME, err);
}

/* The calls that take only the instance. */
static rtcosim_status simple_call(rtcosim_fmu *f, fmi2Status (*fn)(fmi2Component),
                                  const char *name, rtcosim_error *err)
{
    fmi2Status s = fn(f->instance);
    RTCOSIM_FMU_TRACE(f, name, s, "%s", "");
    return rtcosim_fmu_status(f, s, name, NO_TIME, err);
}

static rtcosim_status fmi2_enter_init(void *self, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    return simple_call(f, f->fmi2.fmi2EnterInitializationMode, "fmi2EnterInitializationMode", err);
}

static rtcosim_status fmi2_exit_init(void *self, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    return simple_call(f, f->fmi2.fmi2ExitInitializationMode, "fmi2ExitInitializationMode", err);
}

static rtcosim_status fmi2_terminate(void *self, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    return simple_call(f, f->fmi2.fmi2Terminate, "fmi2Terminate", err);
}

static rtcosim_status fmi2_do_step(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                   rtcosim_step_result *result, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    double t_s = rtcosim_time_to_seconds(t), h_s = rtcosim_time_to_seconds(h);
    /* noSetFMUStatePriorToCurrentPoint (section 4.2.2): a rollback needs a
     * snapshot, so while none exists the FMU may drop its history. */
    fmi2Boolean no_rollback = f->live_states == 0;
    fmi2Status s = f->fmi2.fmi2DoStep(f->instance, t_s, h_s, no_rollback);
    RTCOSIM_FMU_TRACE(f, "fmi2DoStep", s, "t=%.17g, h=%.17g, noSetFMUStatePriorToCurrentPoint=%s",
                      t_s, h_s, no_rollback ? "true" : "false");
    if (s == fmi2Discard) {
        /* Section 4.2.3: after a discarded step the FMU tells how far it got
         * and whether it wants the simulation to end. */
        fmi2Boolean terminated = fmi2False;
        fmi2Real last = t_s;
        if (f->fmi2.fmi2GetBooleanStatus &&
            f->fmi2.fmi2GetBooleanStatus(f->instance, fmi2Terminated, &terminated) == fmi2OK)
            result->terminate_requested = terminated != fmi2False;
        rtcosim_time_ns last_ns;
        if (f->fmi2.fmi2GetRealStatus &&
            f->fmi2.fmi2GetRealStatus(f->instance, fmi2LastSuccessfulTime, &last) == fmi2OK &&
            rtcosim_time_from_seconds(last, &last_ns, NULL) == RTCOSIM_OK && last_ns >= t &&
            last_ns <= t + h)
            result->last_successful_time = last_ns;
        else
            result->last_successful_time = t;
    }
    return rtcosim_fmu_status(f, s, "fmi2DoStep", t_s, err);
}

static rtcosim_status fmi2_get(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                               void *values, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    fmi2Status s;
    const char *name;
    switch (type) {
    case RTCOSIM_TYPE_FLOAT64:
        name = "fmi2GetReal";
        if (!f->fmi2.fmi2GetReal)
            return rtcosim_fmu_lacks(f, name, err);
        s = f->fmi2.fmi2GetReal(f->instance, vrs, n, values);
        break;
    case RTCOSIM_TYPE_INT32:
        name = "fmi2GetInteger";
        if (!f->fmi2.fmi2GetInteger)
            return rtcosim_fmu_lacks(f, name, err);
        s = f->fmi2.fmi2GetInteger(f->instance, vrs, n, values);
        break;
    case RTCOSIM_TYPE_STRING:
        name = "fmi2GetString";
        if (!f->fmi2.fmi2GetString)
            return rtcosim_fmu_lacks(f, name, err);
        s = f->fmi2.fmi2GetString(f->instance, vrs, n, values);
        break;
    case RTCOSIM_TYPE_BOOLEAN: {
        name = "fmi2GetBoolean";
        if (!f->fmi2.fmi2GetBoolean)
            return rtcosim_fmu_lacks(f, name, err);
        bool *out = values;
        s = fmi2OK;
        for (size_t done = 0; done < n && s <= fmi2Warning;) {
            size_t chunk = n - done < f->scratch_count ? n - done : f->scratch_count;
            fmi2Status cs = f->fmi2.fmi2GetBoolean(f->instance, vrs + done, chunk, f->bool_scratch);
            s = cs > s ? cs : s;
            for (size_t i = 0; i < chunk; i++)
                out[done + i] = f->bool_scratch[i] != fmi2False;
            done += chunk;
        }
        break;
    }
    default: return rtcosim_fmu_wrong_type(f, type, err);
    }
    if (f->log_calls && rtcosim_log_enabled(RTCOSIM_LOG_DEBUG)) {
        char text[640];
        rtcosim_fmu_format_values(type, vrs, n, s <= fmi2Warning ? values : NULL, text, sizeof text);
        rtcosim_fmu_log_call(f, name, s, "%s", text);
    }
    return rtcosim_fmu_status(f, s, name, NO_TIME, err);
}

static rtcosim_status fmi2_set(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                               const void *values, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    fmi2Status s;
    const char *name;
    switch (type) {
    case RTCOSIM_TYPE_FLOAT64:
        name = "fmi2SetReal";
        if (!f->fmi2.fmi2SetReal)
            return rtcosim_fmu_lacks(f, name, err);
        s = f->fmi2.fmi2SetReal(f->instance, vrs, n, values);
        break;
    case RTCOSIM_TYPE_INT32:
        name = "fmi2SetInteger";
        if (!f->fmi2.fmi2SetInteger)
            return rtcosim_fmu_lacks(f, name, err);
        s = f->fmi2.fmi2SetInteger(f->instance, vrs, n, values);
        break;
    case RTCOSIM_TYPE_STRING:
        name = "fmi2SetString";
        if (!f->fmi2.fmi2SetString)
            return rtcosim_fmu_lacks(f, name, err);
        s = f->fmi2.fmi2SetString(f->instance, vrs, n, values);
        break;
    case RTCOSIM_TYPE_BOOLEAN: {
        name = "fmi2SetBoolean";
        if (!f->fmi2.fmi2SetBoolean)
            return rtcosim_fmu_lacks(f, name, err);
        const bool *in = values;
        s = fmi2OK;
        for (size_t done = 0; done < n && s <= fmi2Warning;) {
            size_t chunk = n - done < f->scratch_count ? n - done : f->scratch_count;
            for (size_t i = 0; i < chunk; i++)
                f->bool_scratch[i] = in[done + i] ? fmi2True : fmi2False;
            fmi2Status cs = f->fmi2.fmi2SetBoolean(f->instance, vrs + done, chunk, f->bool_scratch);
            s = cs > s ? cs : s;
            done += chunk;
        }
        break;
    }
    default: return rtcosim_fmu_wrong_type(f, type, err);
    }
    if (f->log_calls && rtcosim_log_enabled(RTCOSIM_LOG_DEBUG)) {
        char text[640];
        rtcosim_fmu_format_values(type, vrs, n, values, text, sizeof text);
        rtcosim_fmu_log_call(f, name, s, "%s", text);
    }
    return rtcosim_fmu_status(f, s, name, NO_TIME, err);
}

/* Section 4.2.1: one derivative order for the whole batch. */
static rtcosim_status fmi2_set_input_derivatives(void *self, const uint32_t *vrs, size_t n,
                                                 int order, const double *values,
                                                 rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    fmi2Status s = fmi2OK;
    /* The order array is per value: reuse the Boolean scratch (fmi2Integer and
     * fmi2Boolean are both int) in chunks. */
    for (size_t done = 0; done < n && s <= fmi2Warning;) {
        size_t chunk = n - done < f->scratch_count ? n - done : f->scratch_count;
        for (size_t i = 0; i < chunk; i++)
            f->bool_scratch[i] = order;
        fmi2Status cs = f->fmi2.fmi2SetRealInputDerivatives(f->instance, vrs + done, chunk,
                                                            f->bool_scratch, values + done);
        s = cs > s ? cs : s;
        done += chunk;
    }
    if (f->log_calls && rtcosim_log_enabled(RTCOSIM_LOG_DEBUG)) {
        char text[640];
        rtcosim_fmu_format_values(RTCOSIM_TYPE_FLOAT64, vrs, n, values, text, sizeof text);
        rtcosim_fmu_log_call(f, "fmi2SetRealInputDerivatives", s, "order=%d, %s", order, text);
    }
    return rtcosim_fmu_status(f, s, "fmi2SetRealInputDerivatives", NO_TIME, err);
}

static rtcosim_status fmi2_get_state(void *self, rtcosim_state *state, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    fmi2FMUstate st = *state;
    fmi2Status s = f->fmi2.fmi2GetFMUstate(f->instance, &st);
    RTCOSIM_FMU_TRACE(f, "fmi2GetFMUstate", s, "%p -> %p", *state, st);
    if (s <= fmi2Warning) {
        f->live_states += *state == NULL && st != NULL;
        *state = st;
    }
    return rtcosim_fmu_status(f, s, "fmi2GetFMUstate", NO_TIME, err);
}

static rtcosim_status fmi2_set_state(void *self, rtcosim_state state, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    fmi2Status s = f->fmi2.fmi2SetFMUstate(f->instance, state);
    RTCOSIM_FMU_TRACE(f, "fmi2SetFMUstate", s, "%p", state);
    return rtcosim_fmu_status(f, s, "fmi2SetFMUstate", NO_TIME, err);
}

static void fmi2_free_state(void *self, rtcosim_state state)
{
    rtcosim_fmu *f = self;
    fmi2FMUstate st = state;
    fmi2Status s = f->fmi2.fmi2FreeFMUstate(f->instance, &st);
    RTCOSIM_FMU_TRACE(f, "fmi2FreeFMUstate", s, "%p", state);
    if (state && f->live_states > 0)
        f->live_states--;
    rtcosim_error ignored;
    if (rtcosim_fmu_status(f, s, "fmi2FreeFMUstate", NO_TIME, &ignored) != RTCOSIM_OK)
        rtcosim_log(RTCOSIM_LOG_WARNING, f->instance_name, "%s", ignored.message);
}

static rtcosim_status fmi2_serialized_size(void *self, rtcosim_state state, size_t *size,
                                           rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    fmi2Status s = f->fmi2.fmi2SerializedFMUstateSize(f->instance, state, size);
    RTCOSIM_FMU_TRACE(f, "fmi2SerializedFMUstateSize", s, "%p -> %zu", state, *size);
    return rtcosim_fmu_status(f, s, "fmi2SerializedFMUstateSize", NO_TIME, err);
}

static rtcosim_status fmi2_serialize(void *self, rtcosim_state state, uint8_t *buffer,
                                     size_t size, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    fmi2Status s = f->fmi2.fmi2SerializeFMUstate(f->instance, state, (fmi2Byte *)buffer, size);
    RTCOSIM_FMU_TRACE(f, "fmi2SerializeFMUstate", s, "%p, %zu bytes", state, size);
    return rtcosim_fmu_status(f, s, "fmi2SerializeFMUstate", NO_TIME, err);
}

static rtcosim_status fmi2_deserialize(void *self, const uint8_t *buffer, size_t size,
                                       rtcosim_state *state, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    fmi2FMUstate st = *state;
    fmi2Status s =
        f->fmi2.fmi2DeSerializeFMUstate(f->instance, (const fmi2Byte *)buffer, size, &st);
    RTCOSIM_FMU_TRACE(f, "fmi2DeSerializeFMUstate", s, "%zu bytes -> %p", size, st);
    if (s <= fmi2Warning) {
        /* A new snapshot when none was given or the FMU did not overwrite
         * the given one in place (FMI leaves that open for deserialize;
         * the wrapper then frees the given one). */
        f->live_states += st != NULL && st != *state;
        *state = st;
    }
    return rtcosim_fmu_status(f, s, "fmi2DeSerializeFMUstate", NO_TIME, err);
}

rtcosim_status rtcosim_fmi2_prepare(rtcosim_fmu *f, rtcosim_error *err)
{
    const rtcosim_fmi_md *md = f->md;
    const rtcosim_fmi2_functions *fn = &f->fmi2;
#define REQUIRE(name)                                                                      \
    if (!fn->name)                                                                         \
        return rtcosim_fmu_lacks(f, #name, err);
    REQUIRE(fmi2Instantiate)
    REQUIRE(fmi2FreeInstance)
    REQUIRE(fmi2SetupExperiment)
    REQUIRE(fmi2EnterInitializationMode)
    REQUIRE(fmi2ExitInitializationMode)
    REQUIRE(fmi2Terminate)
    if (!f->model_exchange)
        REQUIRE(fmi2DoStep)
    /* Getters and setters of the types the model has (the standard wants all,
     * but a missing one for an absent type harms nobody). */
    if (rtcosim_fmi_md_has_type(md, RTCOSIM_TYPE_FLOAT64)) {
        REQUIRE(fmi2GetReal)
        REQUIRE(fmi2SetReal)
    }
    if (rtcosim_fmi_md_has_type(md, RTCOSIM_TYPE_INT32)) {
        REQUIRE(fmi2GetInteger)
        REQUIRE(fmi2SetInteger)
    }
    if (rtcosim_fmi_md_has_type(md, RTCOSIM_TYPE_BOOLEAN)) {
        REQUIRE(fmi2GetBoolean)
        REQUIRE(fmi2SetBoolean)
    }
    if (rtcosim_fmi_md_has_type(md, RTCOSIM_TYPE_STRING)) {
        REQUIRE(fmi2GetString)
        REQUIRE(fmi2SetString)
    }
    /* A binary built for another FMI version or type platform would misread
     * every argument; the description has the last word, so only warn. */
    const char *version = fn->fmi2GetVersion ? fn->fmi2GetVersion() : NULL;
    if (version && strcmp(version, fmi2Version) != 0)
        rtcosim_log(RTCOSIM_LOG_WARNING, "fmi", "%s: fmi2GetVersion returns '%s', expected '%s'",
                    f->archive_path, version, fmi2Version);
    const char *platform = fn->fmi2GetTypesPlatform ? fn->fmi2GetTypesPlatform() : NULL;
    if (platform && strcmp(platform, fmi2TypesPlatform) != 0)
        rtcosim_log(RTCOSIM_LOG_WARNING, "fmi", "%s: fmi2GetTypesPlatform returns '%s', expected '%s'",
                    f->archive_path, platform, fmi2TypesPlatform);
    f->ops = (rtcosim_component_ops){
        .kind = rtcosim_fmi2_kind,
        .instantiate = fmi2_instantiate,
        .setup = fmi2_setup,
        .enter_init = fmi2_enter_init,
        .exit_init = fmi2_exit_init,
        .do_step = fmi2_do_step,
        .get = fmi2_get,
        .set = fmi2_set,
        .terminate = fmi2_terminate,
        .destroy = rtcosim_fmu_destroy,
    };
    if (md->can_interpolate_inputs) {
        /* FMI 2.0 bounds no input order; first order (linear interpolation)
         * is what every FMU that can interpolate accepts. */
        REQUIRE(fmi2SetRealInputDerivatives)
        f->ops.set_input_derivatives = fmi2_set_input_derivatives;
        f->max_input_order = 1;
    }
    if (md->can_get_set_state) {
        REQUIRE(fmi2GetFMUstate)
        REQUIRE(fmi2SetFMUstate)
        REQUIRE(fmi2FreeFMUstate)
        f->ops.get_state = fmi2_get_state;
        f->ops.set_state = fmi2_set_state;
        f->ops.free_state = fmi2_free_state;
    }
    if (md->can_serialize_state) {
        REQUIRE(fmi2SerializedFMUstateSize)
        REQUIRE(fmi2SerializeFMUstate)
        REQUIRE(fmi2DeSerializeFMUstate)
        f->ops.serialized_state_size = fmi2_serialized_size;
        f->ops.serialize_state = fmi2_serialize;
        f->ops.deserialize_state = fmi2_deserialize;
    }
#undef REQUIRE
    return RTCOSIM_OK;
}
