/* FMI 1.0 interface of a model (FMI for Co-Simulation 1.0 and FMI for Model
 * Exchange 1.0, chapter 3): every function exported as
 * MODELIDENTIFIER_fmiName (RTCOSIM_FMI1_MODEL_IDENTIFIER, set by
 * cmake/RtcosimFmu.cmake), mapped onto the version-neutral instance. One
 * binary serves both interfaces; the description says which one an FMU has.
 * RTCOSIM_FMU_OMIT_DO_STEP / _GET_DERIVATIVES leave a function out for
 * importers' missing-symbol tests. */
#define RTCOSIM_FMI1_FUNCTION_PROTOTYPES
#include "fmi/api/fmi1.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "instance.h"

#ifndef RTCOSIM_FMI1_MODEL_IDENTIFIER
#error "RTCOSIM_FMI1_MODEL_IDENTIFIER must name the model identifier"
#endif
#define FN(name) RTCOSIM_FMI1_NAME(name)

_Static_assert(sizeof(fmi1ValueReference) == sizeof(uint32_t), "value references are 32 bit");
_Static_assert(sizeof(fmi1Integer) == sizeof(int32_t), "fmiInteger is Int32");
_Static_assert((int)fmi1OK == (int)MODEL_OK && (int)fmi1Warning == (int)MODEL_WARNING &&
                   (int)fmi1Discard == (int)MODEL_DISCARD && (int)fmi1Error == (int)MODEL_ERROR &&
                   (int)fmi1Fatal == (int)MODEL_FATAL,
               "model_status values are fmiStatus values");

typedef struct fmi1_instance {
    model_instance base; /* first: an fmiComponent is a model_instance * */
    fmi1CallbackLogger logger;
    /* ME: fmiSetTime before fmiInitialize (the instance has no time yet). */
    double pending_time;
    /* RTCOSIM_FMU_FMI1_VOLATILE_STRINGS: the last fmiGetString's values. */
    char *volatile_strings;
} fmi1_instance;

/* Values may be read once initialized and set before (start values, ME 1.0
 * section 3.4) and while running (inputs, tunable parameters). */
#define MASK_GET (MODE_INITIALIZATION | MODE_RUNNING | MODE_TERMINATED | MODE_ERROR)
#define MASK_SET (MODE_INSTANTIATED | MODE_INITIALIZATION | MODE_RUNNING)

/* The logger's message is a printf format: pass the text through "%s". */
static void emit(model_instance *inst, model_status status, const char *category,
                 const char *message)
{
    const fmi1_instance *fi = (const fmi1_instance *)inst;
    if (fi->logger)
        fi->logger(inst, inst->name, (fmi1Status)status, category, "%s", message);
}

static fmi1Status status_of(model_status s) { return (fmi1Status)s; }

const char *FN(GetVersion)(void) { return fmi1Version; }
const char *FN(GetTypesPlatform)(void) { return fmi1Platform; }
const char *FN(GetModelTypesPlatform)(void) { return fmi1Platform; }

fmi1Status FN(SetDebugLogging)(fmi1Component c, fmi1Boolean loggingOn)
{
    model_instance *inst = c;
    if (!inst || !instance_allowed(inst, MODE_ANY_BUT_FATAL, "fmiSetDebugLogging"))
        return fmi1Error;
    return status_of(instance_set_debug_logging(inst, loggingOn != fmi1False, 0, NULL));
}

static fmi1Component instantiate(const char *function, fmi1String name, fmi1String guid,
                                 fmi1CallbackLogger logger, fmi1CallbackAllocateMemory alloc,
                                 fmi1CallbackFreeMemory release, bool model_exchange,
                                 const char *location, fmi1Boolean logging_on)
{
    const char *problem = NULL;
    if (!name)
        problem = "instanceName is NULL";
    else if (model_exchange && !model_definition.model_exchange)
        problem = "this FMU supports co-simulation only";
    else if (!guid || strcmp(guid, model_definition.instantiation_token) != 0)
        problem = "GUID does not match the guid of modelDescription.xml";
    if (problem) {
        if (logger)
            logger(NULL, name ? name : "(null)", fmi1Error,
                   model_log_category_names[MODEL_LOG_STATUS_ERROR], "%s: %s", function, problem);
        return NULL;
    }
    const bool own = alloc && release;
    void *(*calloc_fn)(size_t, size_t) = own ? alloc : calloc;
    void (*free_fn)(void *) = own ? release : free;
    fmi1_instance *fi = calloc_fn(1, sizeof *fi);
    if (!fi)
        return NULL;
    fi->logger = logger;
    fi->base.calloc_fn = calloc_fn;
    fi->base.free_fn = free_fn;
    fi->base.emit = emit;
    /* fmi2 = true: the FMI 2.0 type set (Real, Integer, Boolean, String) and
     * errors logged even with logging off, as 1.0 asks too. */
    if (!instance_init(&fi->base, name, location, true, logging_on != fmi1False)) {
        instance_destroy(&fi->base);
        return NULL;
    }
    fi->base.model_exchange = model_exchange;
    fi->base.fmi1 = true;
    TRACE(&fi->base, "%s(%s, guid %s)", function, name, guid);
    return fi;
}

/* ---- Values ---- */

static bool begin_values(model_instance *inst, unsigned mask, const char *function,
                         const void *vr, size_t nvr, const void *value)
{
    if (!inst || !instance_allowed(inst, mask, function))
        return false;
    if (nvr > 0 && (!vr || !value)) {
        instance_error(inst, "%s: NULL value reference or value array", function);
        return false;
    }
    return true;
}

fmi1Status FN(GetReal)(fmi1Component c, const fmi1ValueReference vr[], size_t nvr,
                       fmi1Real value[])
{
    model_instance *inst = c;
    if (!begin_values(inst, MASK_GET, "fmiGetReal", vr, nvr, value))
        return fmi1Error;
    return status_of(instance_get(inst, "fmiGetReal", vr, nvr, MODEL_FLOAT64, value));
}

fmi1Status FN(GetInteger)(fmi1Component c, const fmi1ValueReference vr[], size_t nvr,
                          fmi1Integer value[])
{
    model_instance *inst = c;
    if (!begin_values(inst, MASK_GET, "fmiGetInteger", vr, nvr, value))
        return fmi1Error;
    return status_of(instance_get(inst, "fmiGetInteger", vr, nvr, MODEL_INT32, value));
}

/* fmiBoolean is a char, the models store bool: convert one by one. */
fmi1Status FN(GetBoolean)(fmi1Component c, const fmi1ValueReference vr[], size_t nvr,
                          fmi1Boolean value[])
{
    model_instance *inst = c;
    if (!begin_values(inst, MASK_GET, "fmiGetBoolean", vr, nvr, value))
        return fmi1Error;
    for (size_t i = 0; i < nvr; i++) {
        bool b;
        if (instance_get(inst, "fmiGetBoolean", &vr[i], 1, MODEL_BOOLEAN, &b) != MODEL_OK)
            return fmi1Error;
        value[i] = b ? fmi1True : fmi1False;
    }
    return fmi1OK;
}

#ifdef RTCOSIM_FMU_FMI1_VOLATILE_STRINGS
/* Test variant: the values go out in a fresh buffer, the previous call's is
 * overwritten and freed, and "" is returned as NULL. FMI 1.0 promises no
 * returned pointer beyond the next call, so a correct importer copies. */
static fmi1Status volatile_strings(fmi1_instance *fi, size_t nvr, fmi1String value[])
{
    size_t bytes = 1;
    for (size_t i = 0; i < nvr; i++)
        bytes += strlen(value[i]) + 1;
    char *fresh = fi->base.calloc_fn(bytes, 1);
    if (!fresh)
        return status_of(instance_error(&fi->base, "fmiGetString: out of memory"));
    char *at = fresh;
    for (size_t i = 0; i < nvr; i++) {
        size_t len = strlen(value[i]);
        memcpy(at, value[i], len + 1);
        value[i] = len ? at : NULL;
        at += len + 1;
    }
    if (fi->volatile_strings) {
        memset(fi->volatile_strings, '#', strlen(fi->volatile_strings));
        fi->base.free_fn(fi->volatile_strings);
    }
    fi->volatile_strings = fresh;
    return fmi1OK;
}
#endif

fmi1Status FN(GetString)(fmi1Component c, const fmi1ValueReference vr[], size_t nvr,
                         fmi1String value[])
{
    model_instance *inst = c;
    if (!begin_values(inst, MASK_GET, "fmiGetString", vr, nvr, value))
        return fmi1Error;
    model_status s = instance_get(inst, "fmiGetString", vr, nvr, MODEL_STRING, value);
#ifdef RTCOSIM_FMU_FMI1_VOLATILE_STRINGS
    if (s <= MODEL_WARNING)
        return volatile_strings((fmi1_instance *)inst, nvr, value);
#endif
    return status_of(s);
}

fmi1Status FN(SetReal)(fmi1Component c, const fmi1ValueReference vr[], size_t nvr,
                       const fmi1Real value[])
{
    model_instance *inst = c;
    if (!begin_values(inst, MASK_SET, "fmiSetReal", vr, nvr, value))
        return fmi1Error;
    return status_of(instance_set(inst, "fmiSetReal", vr, nvr, MODEL_FLOAT64, value));
}

fmi1Status FN(SetInteger)(fmi1Component c, const fmi1ValueReference vr[], size_t nvr,
                          const fmi1Integer value[])
{
    model_instance *inst = c;
    if (!begin_values(inst, MASK_SET, "fmiSetInteger", vr, nvr, value))
        return fmi1Error;
    return status_of(instance_set(inst, "fmiSetInteger", vr, nvr, MODEL_INT32, value));
}

fmi1Status FN(SetBoolean)(fmi1Component c, const fmi1ValueReference vr[], size_t nvr,
                          const fmi1Boolean value[])
{
    model_instance *inst = c;
    if (!begin_values(inst, MASK_SET, "fmiSetBoolean", vr, nvr, value))
        return fmi1Error;
    if (instance_check_set(inst, "fmiSetBoolean", vr, nvr, MODEL_BOOLEAN) != MODEL_OK)
        return fmi1Error;
    for (size_t i = 0; i < nvr; i++) {
        const bool b = value[i] != fmi1False;
        if (instance_set(inst, "fmiSetBoolean", &vr[i], 1, MODEL_BOOLEAN, &b) != MODEL_OK)
            return fmi1Error;
    }
    return fmi1OK;
}

fmi1Status FN(SetString)(fmi1Component c, const fmi1ValueReference vr[], size_t nvr,
                         const fmi1String value[])
{
    model_instance *inst = c;
    if (!begin_values(inst, MASK_SET, "fmiSetString", vr, nvr, value))
        return fmi1Error;
    return status_of(instance_set(inst, "fmiSetString", vr, nvr, MODEL_STRING, value));
}

/* ---- Co-simulation (CS 1.0 sections 3.3-3.5) ---- */

fmi1Component FN(InstantiateSlave)(fmi1String instanceName, fmi1String fmuGUID,
                                   fmi1String fmuLocation, fmi1String mimeType, fmi1Real timeout,
                                   fmi1Boolean visible, fmi1Boolean interactive,
                                   fmi1CallbackFunctions functions, fmi1Boolean loggingOn)
{
    (void)mimeType, (void)timeout, (void)visible, (void)interactive; /* no tool, no UI */
    return instantiate("fmiInstantiateSlave", instanceName, fmuGUID, functions.logger,
                       functions.allocateMemory, functions.freeMemory, false, fmuLocation,
                       loggingOn);
}

fmi1Status FN(InitializeSlave)(fmi1Component c, fmi1Real tStart, fmi1Boolean StopTimeDefined,
                               fmi1Real tStop)
{
    model_instance *inst = c;
    if (!inst || !instance_allowed(inst, MODE_INSTANTIATED, "fmiInitializeSlave"))
        return fmi1Error;
    TRACE(inst, "fmiInitializeSlave(%.17g, %d, %.17g)", tStart, StopTimeDefined, tStop);
    model_status s = instance_setup(inst, false, 0.0, tStart, StopTimeDefined != fmi1False, tStop);
    if (s <= MODEL_WARNING)
        s = instance_enter_initialization(inst, "fmiInitializeSlave");
    if (s <= MODEL_WARNING)
        s = instance_exit_initialization(inst, "fmiInitializeSlave");
    return status_of(s);
}

fmi1Status FN(TerminateSlave)(fmi1Component c)
{
    model_instance *inst = c;
    if (!inst)
        return fmi1Error;
    TRACE(inst, "fmiTerminateSlave()");
    return status_of(instance_terminate(inst, "fmiTerminateSlave"));
}

fmi1Status FN(ResetSlave)(fmi1Component c)
{
    model_instance *inst = c;
    if (!inst || !instance_allowed(inst, MODE_ANY_BUT_FATAL, "fmiResetSlave"))
        return fmi1Error;
    return status_of(instance_reset(inst));
}

/* Frees the instance and what the glue itself holds. */
static void free_instance(fmi1Component c)
{
    if (!c)
        return;
    fmi1_instance *fi = c;
    if (fi->volatile_strings)
        fi->base.free_fn(fi->volatile_strings);
    fi->volatile_strings = NULL;
    instance_destroy(c);
}

void FN(FreeSlaveInstance)(fmi1Component c)
{
    free_instance(c);
}

static fmi1Status undeclared(fmi1Component c, const char *function, const char *flag)
{
    model_instance *inst = c;
    if (!inst)
        return fmi1Error;
    return status_of(instance_error(inst, "%s: not available (%s)", function, flag));
}

fmi1Status FN(SetRealInputDerivatives)(fmi1Component c, const fmi1ValueReference vr[],
                                       size_t nvr, const fmi1Integer order[],
                                       const fmi1Real value[])
{
    (void)vr, (void)nvr, (void)order, (void)value;
    return undeclared(c, "fmiSetRealInputDerivatives", "canInterpolateInputs=false");
}

fmi1Status FN(GetRealOutputDerivatives)(fmi1Component c, const fmi1ValueReference vr[],
                                        size_t nvr, const fmi1Integer order[], fmi1Real value[])
{
    (void)vr, (void)nvr, (void)order, (void)value;
    return undeclared(c, "fmiGetRealOutputDerivatives", "maxOutputDerivativeOrder=0");
}

fmi1Status FN(CancelStep)(fmi1Component c)
{
    return undeclared(c, "fmiCancelStep", "canRunAsynchronuously=false: no step to cancel");
}

#ifndef RTCOSIM_FMU_OMIT_DO_STEP
fmi1Status FN(DoStep)(fmi1Component c, fmi1Real currentCommunicationPoint,
                      fmi1Real communicationStepSize, fmi1Boolean newStep)
{
    (void)newStep; /* canRejectSteps=false: every step is new */
    model_instance *inst = c;
    if (!inst)
        return fmi1Error;
    TRACE(inst, "fmiDoStep(%.17g, %.17g)", currentCommunicationPoint, communicationStepSize);
    return status_of(
        instance_do_step(inst, currentCommunicationPoint, communicationStepSize, "fmiDoStep"));
}
#endif

/* CS 1.0 section 3.5: steps are synchronous, so only the outcome of a
 * discarded step can be asked for (fmiLastSuccessfulTime). */
static fmi1Status no_status(model_instance *inst, const char *function, fmi1StatusKind s)
{
    return status_of(instance_error(inst, "%s: status kind %d is not available (steps are synchronous)",
                                    function, (int)s));
}

fmi1Status FN(GetStatus)(fmi1Component c, const fmi1StatusKind s, fmi1Status *value)
{
    model_instance *inst = c;
    if (!instance_begin_query(inst, MASK_GET, value, "fmiGetStatus"))
        return fmi1Error;
    return no_status(inst, "fmiGetStatus", s);
}

fmi1Status FN(GetRealStatus)(fmi1Component c, const fmi1StatusKind s, fmi1Real *value)
{
    model_instance *inst = c;
    if (!instance_begin_query(inst, MASK_GET, value, "fmiGetRealStatus"))
        return fmi1Error;
    if (s != fmi1LastSuccessfulTime)
        return no_status(inst, "fmiGetRealStatus", s);
    *value = inst->last_successful_time;
    return fmi1OK;
}

fmi1Status FN(GetIntegerStatus)(fmi1Component c, const fmi1StatusKind s, fmi1Integer *value)
{
    model_instance *inst = c;
    if (!instance_begin_query(inst, MASK_GET, value, "fmiGetIntegerStatus"))
        return fmi1Error;
    return no_status(inst, "fmiGetIntegerStatus", s);
}

fmi1Status FN(GetBooleanStatus)(fmi1Component c, const fmi1StatusKind s, fmi1Boolean *value)
{
    model_instance *inst = c;
    if (!instance_begin_query(inst, MASK_GET, value, "fmiGetBooleanStatus"))
        return fmi1Error;
    return no_status(inst, "fmiGetBooleanStatus", s);
}

fmi1Status FN(GetStringStatus)(fmi1Component c, const fmi1StatusKind s, fmi1String *value)
{
    model_instance *inst = c;
    if (!instance_begin_query(inst, MASK_GET, value, "fmiGetStringStatus"))
        return fmi1Error;
    return no_status(inst, "fmiGetStringStatus", s);
}

/* ---- Model exchange (ME 1.0 sections 3.3-3.4) ---- */

#define ME_INSTANCE(c)                                                                     \
    model_instance *inst = c;                                                              \
    if (!inst)                                                                             \
        return fmi1Error;

fmi1Component FN(InstantiateModel)(fmi1String instanceName, fmi1String GUID,
                                   fmi1MECallbackFunctions functions, fmi1Boolean loggingOn)
{
    return instantiate("fmiInstantiateModel", instanceName, GUID, functions.logger,
                       functions.allocateMemory, functions.freeMemory, true, NULL, loggingOn);
}

void FN(FreeModelInstance)(fmi1Component c)
{
    free_instance(c);
}

fmi1Status FN(SetTime)(fmi1Component c, fmi1Real time)
{
    ME_INSTANCE(c)
    TRACE(inst, "fmiSetTime(%.17g)", time);
    if (inst->mode == MODE_INSTANTIATED) { /* before fmiInitialize: its start time */
        ((fmi1_instance *)inst)->pending_time = time;
        return fmi1OK;
    }
    return status_of(instance_set_time(inst, "fmiSetTime", time));
}

fmi1Status FN(SetContinuousStates)(fmi1Component c, const fmi1Real x[], size_t nx)
{
    ME_INSTANCE(c)
    return status_of(instance_set_continuous_states(inst, "fmiSetContinuousStates", x, nx));
}

fmi1Status FN(GetContinuousStates)(fmi1Component c, fmi1Real states[], size_t nx)
{
    ME_INSTANCE(c)
    return status_of(instance_get_continuous_states(inst, "fmiGetContinuousStates", states, nx));
}

fmi1Status FN(GetNominalContinuousStates)(fmi1Component c, fmi1Real x_nominal[], size_t nx)
{
    ME_INSTANCE(c)
    return status_of(instance_get_nominals(inst, "fmiGetNominalContinuousStates", x_nominal, nx));
}

fmi1Status FN(GetStateValueReferences)(fmi1Component c, fmi1ValueReference vrx[], size_t nx)
{
    ME_INSTANCE(c)
    const model_def *m = inst->model;
    size_t k = 0;
    for (size_t i = 0; i < m->variable_count; i++)
        if (m->variables[i].derivative_of) {
            if (k == nx)
                return status_of(instance_error(inst, "fmiGetStateValueReferences: nx=%zu", nx));
            vrx[k++] = m->variables[i].derivative_of;
        }
    if (k != nx)
        return status_of(instance_error(inst, "fmiGetStateValueReferences: nx=%zu, %zu states",
                                        nx, k));
    return fmi1OK;
}

#ifndef RTCOSIM_FMU_OMIT_GET_DERIVATIVES
fmi1Status FN(GetDerivatives)(fmi1Component c, fmi1Real derivatives[], size_t nx)
{
    ME_INSTANCE(c)
    return status_of(instance_get_derivatives(inst, "fmiGetDerivatives", derivatives, nx));
}
#endif

fmi1Status FN(GetEventIndicators)(fmi1Component c, fmi1Real eventIndicators[], size_t ni)
{
    ME_INSTANCE(c)
    return status_of(
        instance_get_event_indicators(inst, "fmiGetEventIndicators", eventIndicators, ni));
}

/* The instance's event round, as FMI 1.0 event info; the models settle in
 * one round. The instance is in Event Mode; it leaves in Continuous-Time Mode
 * unless the model asks to terminate. */
static model_status event_round(model_instance *inst, const char *function, fmi1EventInfo *info)
{
    model_event_result r;
    model_status s = instance_update_discrete_states(inst, function, &r);
    *info = (fmi1EventInfo){.iterationConverged = fmi1True,
                            .stateValueReferencesChanged = fmi1False,
                            .stateValuesChanged = r.values_changed,
                            .terminateSimulation = r.terminate,
                            .upcomingTimeEvent = r.next_event_time_defined,
                            .nextEventTime = r.next_event_time};
    if (s <= MODEL_WARNING && !r.terminate)
        s = instance_enter_continuous_time_mode(inst, function);
    return s;
}

fmi1Status FN(Initialize)(fmi1Component c, fmi1Boolean toleranceControlled,
                          fmi1Real relativeTolerance, fmi1EventInfo *eventInfo)
{
    ME_INSTANCE(c)
    TRACE(inst, "fmiInitialize(%d, %g)", toleranceControlled, relativeTolerance);
    if (!eventInfo)
        return status_of(instance_error(inst, "fmiInitialize: eventInfo is NULL"));
    if (!instance_allowed(inst, MODE_INSTANTIATED, "fmiInitialize"))
        return fmi1Error;
    model_status s = instance_setup(inst, toleranceControlled != fmi1False, relativeTolerance,
                                    ((fmi1_instance *)inst)->pending_time, false, 0.0);
    if (s <= MODEL_WARNING)
        s = instance_enter_initialization(inst, "fmiInitialize");
    if (s <= MODEL_WARNING)
        s = instance_exit_initialization(inst, "fmiInitialize");
    if (s <= MODEL_WARNING)
        s = event_round(inst, "fmiInitialize", eventInfo);
    return status_of(s);
}

fmi1Status FN(EventUpdate)(fmi1Component c, fmi1Boolean intermediateResults,
                           fmi1EventInfo *eventInfo)
{
    (void)intermediateResults; /* one round: nothing intermediate */
    ME_INSTANCE(c)
    TRACE(inst, "fmiEventUpdate()");
    if (!eventInfo)
        return status_of(instance_error(inst, "fmiEventUpdate: eventInfo is NULL"));
    model_status s = MODEL_OK;
    if (inst->mode == MODE_CONTINUOUS_TIME)
        s = instance_enter_event_mode(inst, "fmiEventUpdate");
    if (s <= MODEL_WARNING)
        s = event_round(inst, "fmiEventUpdate", eventInfo);
    return status_of(s);
}

fmi1Status FN(CompletedIntegratorStep)(fmi1Component c, fmi1Boolean *callEventUpdate)
{
    ME_INSTANCE(c)
    bool event = false, terminate = false;
    model_status s =
        instance_completed_integrator_step(inst, "fmiCompletedIntegratorStep", &event, &terminate);
    if (callEventUpdate)
        *callEventUpdate = event || terminate ? fmi1True : fmi1False;
    return status_of(s);
}

fmi1Status FN(Terminate)(fmi1Component c)
{
    ME_INSTANCE(c)
    TRACE(inst, "fmiTerminate()");
    return status_of(instance_terminate(inst, "fmiTerminate"));
}
