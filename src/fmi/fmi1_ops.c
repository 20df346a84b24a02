/* The rtcosim component operations for an FMI 1.0 FMU (FMI for Co-Simulation
 * 1.0 chapter 3, and the part model exchange shares with it): symbols with the
 * MODELIDENTIFIER_fmi prefix, instantiation, start values before
 * initialization, batched get/set with negatedAlias variables mapped to their
 * base, fmiDoStep and its status queries. No allocation on step or value paths. */
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi/fmi1_internal.h"

_Static_assert(sizeof(fmi1ValueReference) == sizeof(uint32_t), "value reference width");
_Static_assert(sizeof(fmi1Integer) == sizeof(int32_t), "fmi1Integer width");

#define NO_TIME NAN
#define MIME_TYPE "application/x-fmu-sharedlibrary" /* CS 1.0 section 3.3: stand-alone */

/* FMI 1.0 has no environment pointer in the logger: the message goes out
 * under the instance name the FMU passes. */
void rtcosim_fmi1_logger(fmi1Component c, fmi1String instance_name, fmi1Status status,
                         fmi1String category, fmi1String message, ...)
{
    (void)c;
    if (!message)
        return;
    rtcosim_log_level level = status == fmi1OK ? RTCOSIM_LOG_INFO
                              : status == fmi1Warning || status == fmi1Discard ? RTCOSIM_LOG_WARNING
                                                                               : RTCOSIM_LOG_ERROR;
    if (!rtcosim_log_enabled(level))
        return;
    char text[1024];
    va_list ap;
    va_start(ap, message);
    vsnprintf(text, sizeof text, message, ap);
    va_end(ap);
    bool has_category = category && *category;
    rtcosim_log(level, instance_name ? instance_name : "fmu", "%s%s%s",
                has_category ? category : "", has_category ? ": " : "", text);
}

static void *fmi1_allocate(size_t nobj, size_t size)
{
    return calloc(nobj ? nobj : 1, size ? size : 1);
}

/* ---- Values: negatedAlias references mapped, Boolean as char ---- */

/* Maps the batch's references into x->vr; true when one was a negated alias
 * (neg[i] then says which). Without negated aliases vrs pass unchanged. */
static const fmi1ValueReference *map_vrs(const rtcosim_fmi1 *x, const uint32_t *vrs, size_t n,
                                         bool *any)
{
    *any = false;
    if (x->own_count == 0)
        return vrs;
    for (size_t i = 0; i < n; i++) {
        bool own = vrs[i] >= x->first_own_vr && vrs[i] - x->first_own_vr < x->own_count;
        x->vr[i] = own ? x->own_base[vrs[i] - x->first_own_vr] : vrs[i];
        *any |= own;
    }
    return *any ? x->vr : vrs;
}

static bool is_negated(const rtcosim_fmi1 *x, uint32_t vr)
{
    return x->own_count && vr >= x->first_own_vr && vr - x->first_own_vr < x->own_count;
}

static rtcosim_status chunk_get(rtcosim_fmu *f, rtcosim_type type, const uint32_t *vrs, size_t n,
                                void *values, fmi1Status *s, const char **name)
{
    rtcosim_fmi1 *x = f->fmi1x;
    bool any;
    const fmi1ValueReference *v = map_vrs(x, vrs, n, &any);
    switch (type) {
    case RTCOSIM_TYPE_FLOAT64: {
        *name = "fmiGetReal";
        double *out = values;
        *s = x->fn.GetReal(f->instance, v, n, out);
        for (size_t i = 0; any && i < n; i++)
            if (is_negated(x, vrs[i]))
                out[i] = -out[i];
        break;
    }
    case RTCOSIM_TYPE_INT32: {
        *name = "fmiGetInteger";
        int32_t *out = values;
        *s = x->fn.GetInteger(f->instance, v, n, out);
        for (size_t i = 0; any && i < n; i++)
            if (is_negated(x, vrs[i]))
                out[i] = out[i] == INT32_MIN ? INT32_MAX : -out[i];
        break;
    }
    case RTCOSIM_TYPE_BOOLEAN: {
        *name = "fmiGetBoolean";
        bool *out = values;
        *s = x->fn.GetBoolean(f->instance, v, n, x->boolean);
        for (size_t i = 0; i < n; i++)
            out[i] = (x->boolean[i] != fmi1False) != is_negated(x, vrs[i]);
        break;
    }
    case RTCOSIM_TYPE_STRING:
        /* CS 1.0 does not promise the returned pointers outlive the next call. */
        *name = "fmiGetString";
        *s = x->fn.GetString(f->instance, v, n, values);
        if (*s <= fmi1Warning && !rtcosim_fmi1_strings_keep(x, vrs, n, values))
            return RTCOSIM_ENOMEM;
        break;
    default: return RTCOSIM_EINVAL;
    }
    return RTCOSIM_OK;
}

static rtcosim_status chunk_set(rtcosim_fmu *f, rtcosim_type type, const uint32_t *vrs, size_t n,
                                const void *values, fmi1Status *s, const char **name)
{
    rtcosim_fmi1 *x = f->fmi1x;
    bool any;
    const fmi1ValueReference *v = map_vrs(x, vrs, n, &any);
    switch (type) {
    case RTCOSIM_TYPE_FLOAT64: {
        *name = "fmiSetReal";
        const double *in = values;
        if (any) {
            for (size_t i = 0; i < n; i++)
                x->real[i] = is_negated(x, vrs[i]) ? -in[i] : in[i];
            in = x->real;
        }
        *s = x->fn.SetReal(f->instance, v, n, in);
        break;
    }
    case RTCOSIM_TYPE_INT32: {
        *name = "fmiSetInteger";
        const int32_t *in = values;
        if (any) {
            for (size_t i = 0; i < n; i++)
                x->integer[i] = is_negated(x, vrs[i]) && in[i] != INT32_MIN ? -in[i] : in[i];
            in = x->integer;
        }
        *s = x->fn.SetInteger(f->instance, v, n, in);
        break;
    }
    case RTCOSIM_TYPE_BOOLEAN: {
        *name = "fmiSetBoolean";
        const bool *in = values;
        for (size_t i = 0; i < n; i++)
            x->boolean[i] = in[i] != is_negated(x, vrs[i]) ? fmi1True : fmi1False;
        *s = x->fn.SetBoolean(f->instance, v, n, x->boolean);
        break;
    }
    case RTCOSIM_TYPE_STRING:
        *name = "fmiSetString";
        *s = x->fn.SetString(f->instance, v, n, (const fmi1String *)rtcosim_fmi1_strings_args(x, values, n));
        break;
    default: return RTCOSIM_EINVAL;
    }
    return RTCOSIM_OK;
}

static rtcosim_status initialize_now(rtcosim_fmu *f, rtcosim_error *err);

static size_t type_size(rtcosim_type type)
{
    return type == RTCOSIM_TYPE_FLOAT64  ? sizeof(double)
           : type == RTCOSIM_TYPE_INT32  ? sizeof(int32_t)
           : type == RTCOSIM_TYPE_BOOLEAN ? sizeof(bool)
                                          : sizeof(const char *);
}

/* get or set in chunks of the scratch size. */
static rtcosim_status transfer(rtcosim_fmu *f, bool set, rtcosim_type type, const uint32_t *vrs,
                               size_t n, void *values, rtcosim_error *err)
{
    if (type != RTCOSIM_TYPE_FLOAT64 && type != RTCOSIM_TYPE_INT32 &&
        type != RTCOSIM_TYPE_BOOLEAN && type != RTCOSIM_TYPE_STRING)
        return rtcosim_fmu_wrong_type(f, type, err);
    fmi1Status s = fmi1OK;
    const char *name = "";
    size_t size = type_size(type);
    for (size_t done = 0; done < n && s <= fmi1Warning;) {
        size_t chunk = n - done < f->scratch_count ? n - done : f->scratch_count;
        fmi1Status cs = fmi1OK;
        char *at = (char *)values + done * size;
        rtcosim_status chunk_st = set ? chunk_set(f, type, vrs + done, chunk, at, &cs, &name)
                                      : chunk_get(f, type, vrs + done, chunk, at, &cs, &name);
        if (chunk_st == RTCOSIM_ENOMEM)
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory copying %s values",
                                     f->instance_name, name);
        s = cs > s ? cs : s;
        done += chunk;
    }
    if (n == 0)
        return RTCOSIM_OK;
    if (f->log_calls && rtcosim_log_enabled(RTCOSIM_LOG_DEBUG)) {
        char text[640];
        rtcosim_fmu_format_values(type, vrs, n, set || s <= fmi1Warning ? values : NULL, text,
                                  sizeof text);
        rtcosim_fmu_log_call(f, name, s, "%s", text);
    }
    return rtcosim_fmu_status(f, s, name, NO_TIME, err);
}

static rtcosim_status fmi1_get(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                               void *values, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    if (f->fmi1x->in_init && !f->fmi1x->initialized) {
        rtcosim_status st = initialize_now(f, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return transfer(self, false, type, vrs, n, values, err);
}

static rtcosim_status fmi1_set(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                               const void *values, rtcosim_error *err)
{
    return transfer(self, true, type, vrs, n, (void *)values, err);
}

/* ME 1.0 section 3.4 / CS 1.0 section 3.5: before initialization the
 * importer sets the start values of modelDescription.xml (the FMU is
 * initialized from what it was given, not from its own file). Constants and
 * calculated values are the FMU's own; aliases have no start of their own. */
static rtcosim_status apply_start_values(rtcosim_fmu *f, rtcosim_error *err)
{
    const rtcosim_fmi_md *md = f->md;
    for (size_t i = 0; i < md->variable_count; i++) {
        const rtcosim_variable *v = &md->variables[i];
        if (!v->has_start || v->variability == RTCOSIM_VARIABILITY_CONSTANT ||
            v->initial == RTCOSIM_INITIAL_CALCULATED || md->negated[i])
            continue;
        int32_t i32 = (int32_t)v->start.i64;
        const void *value = v->type == RTCOSIM_TYPE_FLOAT64   ? (const void *)&v->start.f64
                            : v->type == RTCOSIM_TYPE_INT32   ? (const void *)&i32
                            : v->type == RTCOSIM_TYPE_BOOLEAN ? (const void *)&v->start.b
                                                              : (const void *)&v->start.s;
        rtcosim_status st = fmi1_set(f, v->type, &v->value_reference, 1, value, err);
        if (st != RTCOSIM_OK)
            return rtcosim_error_prefix(err, "start value of '%s': ", v->name);
    }
    return RTCOSIM_OK;
}

/* ---- Co-simulation lifecycle ---- */

static rtcosim_status fmi1_instantiate(void *self, const char *instance_name, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    rtcosim_fmi1 *x = f->fmi1x;
    free(f->instance_name);
    f->instance_name = strdup(instance_name);
    if (!f->instance_name)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", instance_name);
    const char *function;
    if (f->model_exchange) {
        function = "fmiInstantiateModel";
        x->me_callbacks = (fmi1MECallbackFunctions){
            .logger = rtcosim_fmi1_logger, .allocateMemory = fmi1_allocate, .freeMemory = free};
        f->instance = x->fn.InstantiateModel(instance_name, f->md->instantiation_token,
                                             x->me_callbacks, f->logging_on);
        RTCOSIM_FMU_TRACE(f, function, f->instance ? fmi1OK : fmi1Error,
                          "\"%s\", \"%s\", loggingOn=%d", instance_name,
                          f->md->instantiation_token, f->logging_on);
    } else {
        function = "fmiInstantiateSlave";
        x->cs_callbacks = (fmi1CallbackFunctions){.logger = rtcosim_fmi1_logger,
                                                  .allocateMemory = fmi1_allocate,
                                                  .freeMemory = free,
                                                  .stepFinished = NULL};
        /* timeout 0: no limit; interactive false: run in batch. */
        f->instance = x->fn.InstantiateSlave(instance_name, f->md->instantiation_token,
                                             x->fmu_location, MIME_TYPE, 0.0, f->visible,
                                             fmi1False, x->cs_callbacks, f->logging_on);
        RTCOSIM_FMU_TRACE(f, function, f->instance ? fmi1OK : fmi1Error,
                          "\"%s\", \"%s\", \"%s\", \"%s\", timeout=0, visible=%d, "
                          "interactive=0, loggingOn=%d",
                          instance_name, f->md->instantiation_token, x->fmu_location, MIME_TYPE,
                          f->visible, f->logging_on);
    }
    if (!f->instance)
        return rtcosim_error_set(err, RTCOSIM_ECOMPONENT, "%s: %s failed (returned NULL)",
                                 instance_name, function);
    return apply_start_values(f, err);
}

static rtcosim_status fmi1_setup(void *self, double tolerance, rtcosim_time_ns start,
                                 rtcosim_time_ns stop, rtcosim_error *err)
{
    (void)err;
    rtcosim_fmu *f = self;
    rtcosim_fmi1 *x = f->fmi1x;
    x->tolerance_defined = tolerance > 0;
    x->tolerance = tolerance > 0 ? tolerance : 0;
    x->start = rtcosim_time_to_seconds(start);
    x->stop_defined = stop >= 0;
    x->stop = x->stop_defined ? rtcosim_time_to_seconds(stop) : 0.0;
    return RTCOSIM_OK;
}

/* FMI 1.0 has no initialization mode: values set in rtcosim's precede
 * fmiInitializeSlave / fmiInitialize, which exit_init calls, or the first
 * read inside it (an importer propagating values through connections reads
 * outputs there; 1.0 gives outputs only after initializing, CS 1.0 section
 * 3.4, and takes inputs after it too). */
static rtcosim_status fmi1_enter_init(void *self, rtcosim_error *err)
{
    (void)err;
    rtcosim_fmu *f = self;
    f->fmi1x->in_init = true;
    return RTCOSIM_OK;
}

static rtcosim_status fmi1_exit_init(void *self, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    rtcosim_fmi1 *x = f->fmi1x;
    bool done = x->initialized;
    x->in_init = false;
    return done ? RTCOSIM_OK : initialize_now(f, err);
}

static rtcosim_status initialize_now(rtcosim_fmu *f, rtcosim_error *err)
{
    rtcosim_fmi1 *x = f->fmi1x;
    x->initialized = true; /* tried once: never again, whatever the outcome */
    if (f->model_exchange) {
        /* ME 1.0 section 3.4: fmiSetTime before fmiInitialize. */
        fmi1Status s = x->fn.SetTime(f->instance, x->start);
        RTCOSIM_FMU_TRACE(f, "fmiSetTime", s, "%.17g", x->start);
        rtcosim_status st = rtcosim_fmu_status(f, s, "fmiSetTime", x->start, err);
        if (st != RTCOSIM_OK)
            return st;
        x->init_info = (fmi1EventInfo){0};
        s = x->fn.Initialize(f->instance, x->tolerance_defined, x->tolerance, &x->init_info);
        RTCOSIM_FMU_TRACE(f, "fmiInitialize", s,
                          "toleranceControlled=%d, relativeTolerance=%g -> iterationConverged=%d, "
                          "terminateSimulation=%d, upcomingTimeEvent=%d, nextEventTime=%.17g",
                          x->tolerance_defined, x->tolerance, x->init_info.iterationConverged,
                          x->init_info.terminateSimulation, x->init_info.upcomingTimeEvent,
                          x->init_info.nextEventTime);
        x->init_info_pending = true;
        return rtcosim_fmu_status(f, s, "fmiInitialize", x->start, err);
    }
    fmi1Status s = x->fn.InitializeSlave(f->instance, x->start, x->stop_defined, x->stop);
    RTCOSIM_FMU_TRACE(f, "fmiInitializeSlave", s, "tStart=%.17g, StopTimeDefined=%d, tStop=%.17g",
                      x->start, x->stop_defined, x->stop);
    return rtcosim_fmu_status(f, s, "fmiInitializeSlave", x->start, err);
}

static rtcosim_status fmi1_terminate(void *self, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    rtcosim_fmi1 *x = f->fmi1x;
    const char *name = f->model_exchange ? "fmiTerminate" : "fmiTerminateSlave";
    fmi1Status s = f->model_exchange ? x->fn.Terminate(f->instance)
                                     : x->fn.TerminateSlave(f->instance);
    RTCOSIM_FMU_TRACE(f, name, s, "%s", "");
    return rtcosim_fmu_status(f, s, name, NO_TIME, err);
}

static rtcosim_status fmi1_do_step(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                   rtcosim_step_result *result, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    rtcosim_fmi1 *x = f->fmi1x;
    double t_s = rtcosim_time_to_seconds(t), h_s = rtcosim_time_to_seconds(h);
    /* newStep = true: rtcosim never repeats a step (CS 1.0 section 3.5). */
    fmi1Status s = x->fn.DoStep(f->instance, t_s, h_s, fmi1True);
    RTCOSIM_FMU_TRACE(f, "fmiDoStep", s, "t=%.17g, h=%.17g, newStep=true", t_s, h_s);
    if (s == fmi1Discard) {
        /* CS 1.0 section 3.5: after a discarded step the master may ask how
         * far the slave got (fmiLastSuccessfulTime). FMI 1.0 has no
         * fmiTerminated status kind (2.0 added it), so a discard is never a
         * terminate request: it ends the run with an error. */
        fmi1Real last = t_s;
        rtcosim_time_ns last_ns;
        if (x->fn.GetRealStatus &&
            x->fn.GetRealStatus(f->instance, fmi1LastSuccessfulTime, &last) == fmi1OK &&
            rtcosim_time_from_seconds(last, &last_ns, NULL) == RTCOSIM_OK && last_ns >= t &&
            last_ns <= t + h)
            result->last_successful_time = last_ns;
        else
            result->last_successful_time = t;
    } else if (s == fmi1Pending) {
        /* Asynchronous steps are not used (stepFinished NULL): a slave that
         * pends anyway is asked for the outcome once (fmiDoStepStatus). */
        fmi1Status done = fmi1Error;
        if (x->fn.GetStatus && x->fn.GetStatus(f->instance, fmi1DoStepStatus, &done) == fmi1OK &&
            done != fmi1Pending)
            s = done;
        else
            return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                     "%s: fmiDoStep returned fmiPending at t=%.9g (asynchronous "
                                     "steps are not supported)",
                                     f->instance_name, t_s);
    }
    return rtcosim_fmu_status(f, s, "fmiDoStep", t_s, err);
}

/* ---- Loading: symbols, negated aliases, scratch ---- */

void rtcosim_fmi1_free(rtcosim_fmu *f)
{
    rtcosim_fmi1 *x = f->fmi1x;
    if (!x)
        return;
    if (f->instance) {
        const char *name = f->model_exchange ? "fmiFreeModelInstance" : "fmiFreeSlaveInstance";
        if (f->model_exchange)
            x->fn.FreeModelInstance(f->instance);
        else
            x->fn.FreeSlaveInstance(f->instance);
        RTCOSIM_FMU_TRACE(f, name, 0, "%s", "");
        f->instance = NULL;
    }
    free(x->fmu_location);
    free(x->own_base);
    free(x->vr);
    free(x->real);
    free(x->integer);
    free(x->boolean);
    rtcosim_fmi1_strings_free(x);
    free(x);
    f->fmi1x = NULL;
}

/* negatedAlias variables share their base's reference in the file; rtcosim
 * gives each its own reference above every declared one, so that get/set
 * know which value to negate (ME 1.0 section 2.10). */
static rtcosim_status map_negated(rtcosim_fmu *f, rtcosim_error *err)
{
    rtcosim_fmi1 *x = f->fmi1x;
    rtcosim_fmi_md *md = f->md;
    uint32_t max_vr = 0;
    for (size_t i = 0; i < md->variable_count; i++) {
        x->own_count += md->negated[i];
        if (md->variables[i].value_reference > max_vr)
            max_vr = md->variables[i].value_reference;
    }
    x->first_own_vr = UINT32_MAX;
    if (x->own_count == 0)
        return RTCOSIM_OK;
    if ((uint64_t)max_vr + 1 + x->own_count >= UINT32_MAX)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                 "%s: value references too large to map negated aliases",
                                 f->archive_path);
    x->own_base = calloc(x->own_count, sizeof *x->own_base);
    if (!x->own_base)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", f->archive_path);
    x->first_own_vr = max_vr + 1;
    size_t k = 0;
    for (size_t i = 0; i < md->variable_count; i++)
        if (md->negated[i]) {
            x->own_base[k] = md->variables[i].value_reference;
            md->variables[i].value_reference = x->first_own_vr + (uint32_t)k++;
        }
    return RTCOSIM_OK;
}

/* Resolves MODELIDENTIFIER_fmiName for every function; names every missing
 * one the interface needs in one message. */
static rtcosim_status resolve(rtcosim_fmu *f, rtcosim_error *err)
{
    rtcosim_fmi1 *x = f->fmi1x;
    const char *mid = f->model_identifier;
    char symbol[300];
#define RTCOSIM_FMI1_RESOLVE_(name)                                                        \
    snprintf(symbol, sizeof symbol, "%s_fmi%s", mid, #name);                               \
    x->fn.name = (fmi1##name##TYPE *)dlsym(f->library, symbol);
    RTCOSIM_FMI1_COMMON_FUNCTIONS(RTCOSIM_FMI1_RESOLVE_)
    RTCOSIM_FMI1_CS_FUNCTIONS(RTCOSIM_FMI1_RESOLVE_)
    RTCOSIM_FMI1_ME_FUNCTIONS(RTCOSIM_FMI1_RESOLVE_)
#undef RTCOSIM_FMI1_RESOLVE_
    char missing[1024] = "";
    size_t count = 0;
#define NEED(name)                                                                         \
    if (!x->fn.name) {                                                                     \
        size_t used = strlen(missing);                                                     \
        snprintf(missing + used, sizeof missing - used, "%s%s_fmi%s", count++ ? ", " : "", \
                 mid, #name);                                                              \
    }
    NEED(GetReal) NEED(GetInteger) NEED(GetBoolean) NEED(GetString)
    NEED(SetReal) NEED(SetInteger) NEED(SetBoolean) NEED(SetString)
    if (f->model_exchange) {
        NEED(InstantiateModel) NEED(FreeModelInstance) NEED(SetTime) NEED(SetContinuousStates)
        NEED(CompletedIntegratorStep) NEED(Initialize) NEED(GetDerivatives)
        NEED(GetEventIndicators) NEED(EventUpdate) NEED(GetContinuousStates)
        NEED(GetNominalContinuousStates) NEED(Terminate)
    } else {
        NEED(InstantiateSlave) NEED(InitializeSlave) NEED(TerminateSlave)
        NEED(FreeSlaveInstance) NEED(DoStep)
    }
#undef NEED
    if (count)
        return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "%s: binary lacks %s", f->archive_path,
                                 missing);
    /* A binary for another version or type platform misreads every
     * argument; the description has the last word, so only warn. */
    fmi1GetVersionTYPE *get_version = x->fn.GetVersion;
    const char *version = get_version ? get_version() : NULL;
    if (version && strcmp(version, fmi1Version) != 0)
        rtcosim_log(RTCOSIM_LOG_WARNING, "fmi", "%s: fmiGetVersion returns '%s', expected '%s'",
                    f->archive_path, version, fmi1Version);
    fmi1GetTypesPlatformTYPE *get_platform =
        f->model_exchange ? x->fn.GetModelTypesPlatform : x->fn.GetTypesPlatform;
    const char *platform = get_platform ? get_platform() : NULL;
    if (platform && strcmp(platform, fmi1Platform) != 0)
        rtcosim_log(RTCOSIM_LOG_WARNING, "fmi", "%s: the binary's types platform is '%s', expected '%s'",
                    f->archive_path, platform, fmi1Platform);
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_fmi1_prepare(rtcosim_fmu *f, const rtcosim_fmu_options *opts,
                                    const char *dir_uri, rtcosim_error *err)
{
    rtcosim_fmi1 *x = calloc(1, sizeof *x);
    if (!x)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", f->archive_path);
    f->fmi1x = x;
    size_t n = f->scratch_count;
    x->fmu_location = strdup(dir_uri);
    x->vr = calloc(n, sizeof *x->vr);
    x->real = calloc(n, sizeof *x->real);
    x->integer = calloc(n, sizeof *x->integer);
    x->boolean = calloc(n, sizeof *x->boolean);
    if (!x->fmu_location || !x->vr || !x->real || !x->integer || !x->boolean)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", f->archive_path);
    rtcosim_status st = resolve(f, err);
    if (st == RTCOSIM_OK)
        st = map_negated(f, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_fmi1_strings_prepare(f, err);
    if (st != RTCOSIM_OK)
        return st;
    f->ops = (rtcosim_component_ops){
        .kind = rtcosim_fmi1_kind,
        .instantiate = fmi1_instantiate,
        .setup = fmi1_setup,
        .enter_init = fmi1_enter_init,
        .exit_init = fmi1_exit_init,
        .do_step = fmi1_do_step,
        .get = fmi1_get,
        .set = fmi1_set,
        .terminate = fmi1_terminate,
        .destroy = rtcosim_fmu_destroy,
    };
    return f->model_exchange ? rtcosim_fmi1_me_prepare(f, opts, err) : RTCOSIM_OK;
}
