/* FMI 2.0 interface of a model (FMI 2.0.x chapters 2, 3 and 4): every
 * exported fmi2 function, mapped onto the version-neutral instance; model
 * exchange for the models that declare it (model_def.model_exchange).
 * Compiled once per model FMU; RTCOSIM_FMU_OMIT_DO_STEP leaves fmi2DoStep out
 * to make a deliberately broken binary for importers' tests. */
#define RTCOSIM_FMI2_FUNCTION_PROTOTYPES
#include "fmi/api/fmi2.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "instance.h"

_Static_assert(sizeof(fmi2ValueReference) == sizeof(uint32_t), "value references are 32 bit");
_Static_assert(sizeof(fmi2Integer) == sizeof(int32_t), "fmi2Integer is Int32");
_Static_assert((int)fmi2OK == (int)MODEL_OK && (int)fmi2Warning == (int)MODEL_WARNING &&
                   (int)fmi2Discard == (int)MODEL_DISCARD && (int)fmi2Error == (int)MODEL_ERROR &&
                   (int)fmi2Fatal == (int)MODEL_FATAL,
               "model_status values are fmi2Status values");

typedef struct fmi2_instance {
    model_instance base; /* first: an fmi2Component is a model_instance * */
    fmi2CallbackFunctions callbacks;
} fmi2_instance;

/* FMI 2.0 section 4.2.4 (state machine of the co-simulation slave). */
#define MASK_GET (MODE_INITIALIZATION | MODE_RUNNING | MODE_TERMINATED | MODE_ERROR)
#define MASK_SET (MODE_INSTANTIATED | MODE_INITIALIZATION | MODE_RUNNING)

/* The logger's message is a printf format (FMI 2.0 section 2.1.5): pass the
 * finished text with '%' doubled so that it prints as written. */
static void emit(model_instance *inst, model_status status, const char *category,
                 const char *message)
{
    const fmi2_instance *fi = (const fmi2_instance *)inst;
    if (!fi->callbacks.logger)
        return;
    char escaped[2048];
    size_t j = 0;
    for (size_t i = 0; message[i] && j + 2 < sizeof escaped; i++) {
        if (message[i] == '%')
            escaped[j++] = '%';
        escaped[j++] = message[i];
    }
    escaped[j] = '\0';
    fi->callbacks.logger(fi->callbacks.componentEnvironment, inst->name, (fmi2Status)status,
                         category, escaped);
}

static fmi2Status status_of(model_status s) { return (fmi2Status)s; }

/* ---- Inquiry, logging, creation ---- */

const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }

const char *fmi2GetVersion(void) { return fmi2Version; }

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t nCategories,
                               const fmi2String categories[])
{
    model_instance *inst = c;
    if (!inst)
        return fmi2Error;
    if (!instance_allowed(inst, MODE_ANY_BUT_FATAL, "fmi2SetDebugLogging"))
        return fmi2Error;
    if (nCategories > 0 && !categories)
        return status_of(instance_error(inst, "fmi2SetDebugLogging: categories is NULL"));
    return status_of(instance_set_debug_logging(inst, loggingOn != fmi2False, nCategories,
                                                categories));
}

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation,
                              const fmi2CallbackFunctions *functions, fmi2Boolean visible,
                              fmi2Boolean loggingOn)
{
    (void)visible; /* no user interface to show */
    if (!functions)
        return NULL;
    const char *name = instanceName ? instanceName : "(null)";
    const char *problem = NULL;
    if (!instanceName)
        problem = "instanceName is NULL";
    else if (fmuType == fmi2ModelExchange && !model_definition.model_exchange)
        problem = "this FMU supports co-simulation only";
    else if (fmuType != fmi2ModelExchange && fmuType != fmi2CoSimulation)
        problem = "fmuType is neither fmi2ModelExchange nor fmi2CoSimulation";
    else if (!fmuGUID || strcmp(fmuGUID, model_definition.instantiation_token) != 0)
        problem = "fmuGUID does not match the guid of modelDescription.xml";
    if (problem) {
        if (functions->logger)
            functions->logger(functions->componentEnvironment, name, fmi2Error,
                              model_log_category_names[MODEL_LOG_STATUS_ERROR],
                              "fmi2Instantiate: %s", problem);
        return NULL;
    }
    /* The importer's allocator pair where it gives one (section 2.1.5). */
    const bool own = functions->allocateMemory && functions->freeMemory;
    void *(*calloc_fn)(size_t, size_t) = own ? functions->allocateMemory : calloc;
    void (*free_fn)(void *) = own ? functions->freeMemory : free;
    fmi2_instance *fi = calloc_fn(1, sizeof *fi);
    if (!fi)
        return NULL;
    fi->callbacks = *functions;
    fi->base.calloc_fn = calloc_fn;
    fi->base.free_fn = free_fn;
    fi->base.emit = emit;
    fi->base.name = NULL;
    /* The resource location is only stored: the models need no resources, so
     * any URI (or none) is accepted. */
    if (!instance_init(&fi->base, instanceName, fmuResourceLocation, true, loggingOn != fmi2False)) {
        instance_destroy(&fi->base);
        return NULL;
    }
    fi->base.model_exchange = fmuType == fmi2ModelExchange;
    TRACE(&fi->base, "fmi2Instantiate(%s, guid %s, resources %s)", instanceName, fmuGUID,
          fmuResourceLocation ? fmuResourceLocation : "(none)");
    return fi;
}

void fmi2FreeInstance(fmi2Component c)
{
    model_instance *inst = c;
    if (!inst)
        return;
    TRACE(inst, "fmi2FreeInstance()");
    instance_destroy(inst);
}

/* ---- Initialization, termination ---- */

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined, fmi2Real tolerance,
                               fmi2Real startTime, fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
    model_instance *inst = c;
    if (!inst)
        return fmi2Error;
    TRACE(inst, "fmi2SetupExperiment(tolerance %s %g, start %.17g, stop %s %.17g)",
          toleranceDefined ? "defined" : "undefined", tolerance, startTime,
          stopTimeDefined ? "defined" : "undefined", stopTime);
    if (!instance_allowed(inst, MODE_INSTANTIATED, "fmi2SetupExperiment"))
        return fmi2Error;
    return status_of(instance_setup(inst, toleranceDefined != fmi2False, tolerance, startTime,
                                    stopTimeDefined != fmi2False, stopTime));
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c)
{
    model_instance *inst = c;
    if (!inst)
        return fmi2Error;
    TRACE(inst, "fmi2EnterInitializationMode()");
    return status_of(instance_enter_initialization(inst, "fmi2EnterInitializationMode"));
}

fmi2Status fmi2ExitInitializationMode(fmi2Component c)
{
    model_instance *inst = c;
    if (!inst)
        return fmi2Error;
    TRACE(inst, "fmi2ExitInitializationMode()");
    return status_of(instance_exit_initialization(inst, "fmi2ExitInitializationMode"));
}

fmi2Status fmi2Terminate(fmi2Component c)
{
    model_instance *inst = c;
    if (!inst)
        return fmi2Error;
    TRACE(inst, "fmi2Terminate()");
    return status_of(instance_terminate(inst, "fmi2Terminate"));
}

fmi2Status fmi2Reset(fmi2Component c)
{
    model_instance *inst = c;
    if (!inst)
        return fmi2Error;
    TRACE(inst, "fmi2Reset()");
    if (!instance_allowed(inst, MODE_ANY_BUT_FATAL, "fmi2Reset"))
        return fmi2Error;
    return status_of(instance_reset(inst));
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

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       fmi2Real value[])
{
    model_instance *inst = c;
    if (!begin_values(inst, MASK_GET, "fmi2GetReal", vr, nvr, value))
        return fmi2Error;
    return status_of(instance_get(inst, "fmi2GetReal", vr, nvr, MODEL_FLOAT64, value));
}

fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          fmi2Integer value[])
{
    model_instance *inst = c;
    if (!begin_values(inst, MASK_GET, "fmi2GetInteger", vr, nvr, value))
        return fmi2Error;
    return status_of(instance_get(inst, "fmi2GetInteger", vr, nvr, MODEL_INT32, value));
}

/* fmi2Boolean is an int, the models store bool: convert one by one. */
fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          fmi2Boolean value[])
{
    model_instance *inst = c;
    if (!begin_values(inst, MASK_GET, "fmi2GetBoolean", vr, nvr, value))
        return fmi2Error;
    for (size_t i = 0; i < nvr; i++) {
        bool b;
        if (instance_get(inst, "fmi2GetBoolean", &vr[i], 1, MODEL_BOOLEAN, &b) != MODEL_OK)
            return fmi2Error;
        value[i] = b ? fmi2True : fmi2False;
    }
    return fmi2OK;
}

fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                         fmi2String value[])
{
    model_instance *inst = c;
    if (!begin_values(inst, MASK_GET, "fmi2GetString", vr, nvr, value))
        return fmi2Error;
    return status_of(instance_get(inst, "fmi2GetString", vr, nvr, MODEL_STRING, value));
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       const fmi2Real value[])
{
    model_instance *inst = c;
    if (!begin_values(inst, MASK_SET, "fmi2SetReal", vr, nvr, value))
        return fmi2Error;
    return status_of(instance_set(inst, "fmi2SetReal", vr, nvr, MODEL_FLOAT64, value));
}

fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Integer value[])
{
    model_instance *inst = c;
    if (!begin_values(inst, MASK_SET, "fmi2SetInteger", vr, nvr, value))
        return fmi2Error;
    return status_of(instance_set(inst, "fmi2SetInteger", vr, nvr, MODEL_INT32, value));
}

fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Boolean value[])
{
    model_instance *inst = c;
    if (!begin_values(inst, MASK_SET, "fmi2SetBoolean", vr, nvr, value))
        return fmi2Error;
    if (instance_check_set(inst, "fmi2SetBoolean", vr, nvr, MODEL_BOOLEAN) != MODEL_OK)
        return fmi2Error;
    for (size_t i = 0; i < nvr; i++) {
        const bool b = value[i] != fmi2False;
        if (instance_set(inst, "fmi2SetBoolean", &vr[i], 1, MODEL_BOOLEAN, &b) != MODEL_OK)
            return fmi2Error;
    }
    return fmi2OK;
}

fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                         const fmi2String value[])
{
    model_instance *inst = c;
    if (!begin_values(inst, MASK_SET, "fmi2SetString", vr, nvr, value))
        return fmi2Error;
    return status_of(instance_set(inst, "fmi2SetString", vr, nvr, MODEL_STRING, value));
}

/* ---- FMU state (section 2.1.8) ---- */

fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *FMUstate)
{
    model_instance *inst = c;
    if (!inst || !instance_allowed(inst, MODE_ANY_BUT_FATAL, "fmi2GetFMUstate"))
        return fmi2Error;
    return status_of(instance_get_state(inst, FMUstate));
}

fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate FMUstate)
{
    model_instance *inst = c;
    if (!inst || !instance_allowed(inst, MODE_ANY_BUT_FATAL, "fmi2SetFMUstate"))
        return fmi2Error;
    return status_of(instance_set_state(inst, FMUstate));
}

fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *FMUstate)
{
    model_instance *inst = c;
    if (!inst)
        return fmi2Error;
    return status_of(instance_free_state(inst, FMUstate));
}

fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate FMUstate, size_t *size)
{
    model_instance *inst = c;
    if (!inst || !instance_allowed(inst, MODE_ANY_BUT_FATAL, "fmi2SerializedFMUstateSize"))
        return fmi2Error;
    return status_of(instance_serialized_size(inst, FMUstate, size));
}

fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate FMUstate,
                                 fmi2Byte serializedState[], size_t size)
{
    model_instance *inst = c;
    if (!inst || !instance_allowed(inst, MODE_ANY_BUT_FATAL, "fmi2SerializeFMUstate"))
        return fmi2Error;
    return status_of(instance_serialize(inst, FMUstate, (unsigned char *)serializedState, size));
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte serializedState[],
                                   size_t size, fmi2FMUstate *FMUstate)
{
    model_instance *inst = c;
    if (!inst || !instance_allowed(inst, MODE_ANY_BUT_FATAL, "fmi2DeSerializeFMUstate"))
        return fmi2Error;
    return status_of(instance_deserialize(inst, (const unsigned char *)serializedState, size,
                                          FMUstate));
}

/* ---- Capabilities the models do not declare (each is false in
 * modelDescription.xml, so an importer calling them made a mistake) ---- */

static fmi2Status undeclared(fmi2Component c, const char *function, const char *flag)
{
    model_instance *inst = c;
    if (!inst)
        return fmi2Error;
    return status_of(instance_error(inst, "%s: not available (%s)", function, flag));
}

fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference vUnknown_ref[],
                                        size_t nUnknown, const fmi2ValueReference vKnown_ref[],
                                        size_t nKnown, const fmi2Real dvKnown[],
                                        fmi2Real dvUnknown[])
{
    (void)vUnknown_ref, (void)nUnknown, (void)vKnown_ref, (void)nKnown, (void)dvKnown,
        (void)dvUnknown;
    return undeclared(c, "fmi2GetDirectionalDerivative", "providesDirectionalDerivative=false");
}

fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[],
                                       size_t nvr, const fmi2Integer order[],
                                       const fmi2Real value[])
{
    (void)vr, (void)nvr, (void)order, (void)value;
    return undeclared(c, "fmi2SetRealInputDerivatives", "canInterpolateInputs=false");
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[],
                                        size_t nvr, const fmi2Integer order[], fmi2Real value[])
{
    (void)vr, (void)nvr, (void)order, (void)value;
    return undeclared(c, "fmi2GetRealOutputDerivatives", "maxOutputDerivativeOrder=0");
}

fmi2Status fmi2CancelStep(fmi2Component c)
{
    return undeclared(c, "fmi2CancelStep", "canRunAsynchronuously=false: no step to cancel");
}

/* ---- Co-simulation (section 4.2) ---- */

#ifndef RTCOSIM_FMU_OMIT_DO_STEP
fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint,
                      fmi2Real communicationStepSize, fmi2Boolean noSetFMUStatePriorToCurrentPoint)
{
    (void)noSetFMUStatePriorToCurrentPoint; /* snapshots are cheap; nothing to free early */
    model_instance *inst = c;
    if (!inst)
        return fmi2Error;
    TRACE(inst, "fmi2DoStep(%.17g, %.17g)", currentCommunicationPoint, communicationStepSize);
    return status_of(
        instance_do_step(inst, currentCommunicationPoint, communicationStepSize, "fmi2DoStep"));
}
#endif

/* Section 4.2.3: the status queries. Steps are synchronous, so only the
 * outcome of a discarded step can be asked for. */
static fmi2Status unknown_status_kind(model_instance *inst, const char *function, fmi2StatusKind s)
{
    return status_of(instance_error(inst, "%s: status kind %d is not available (steps are synchronous)",
                                    function, (int)s));
}

fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status *value)
{
    model_instance *inst = c;
    if (!instance_begin_query(inst, MASK_GET, value, "fmi2GetStatus"))
        return fmi2Error;
    return unknown_status_kind(inst, "fmi2GetStatus", s);
}

fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real *value)
{
    model_instance *inst = c;
    if (!instance_begin_query(inst, MASK_GET, value, "fmi2GetRealStatus"))
        return fmi2Error;
    if (s != fmi2LastSuccessfulTime)
        return unknown_status_kind(inst, "fmi2GetRealStatus", s);
    *value = inst->last_successful_time;
    return fmi2OK;
}

fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s, fmi2Integer *value)
{
    model_instance *inst = c;
    if (!instance_begin_query(inst, MASK_GET, value, "fmi2GetIntegerStatus"))
        return fmi2Error;
    return unknown_status_kind(inst, "fmi2GetIntegerStatus", s);
}

fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s, fmi2Boolean *value)
{
    model_instance *inst = c;
    if (!instance_begin_query(inst, MASK_GET, value, "fmi2GetBooleanStatus"))
        return fmi2Error;
    if (s != fmi2Terminated)
        return unknown_status_kind(inst, "fmi2GetBooleanStatus", s);
    *value = inst->terminate_requested ? fmi2True : fmi2False;
    return fmi2OK;
}

fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String *value)
{
    model_instance *inst = c;
    if (!instance_begin_query(inst, MASK_GET, value, "fmi2GetStringStatus"))
        return fmi2Error;
    return unknown_status_kind(inst, "fmi2GetStringStatus", s);
}

/* ---- Model exchange (section 3.2) ---- */

#define ME_INSTANCE(c)                                                                     \
    model_instance *inst = c;                                                              \
    if (!inst)                                                                             \
        return fmi2Error;

fmi2Status fmi2SetTime(fmi2Component c, fmi2Real time)
{
    ME_INSTANCE(c)
    TRACE(inst, "fmi2SetTime(%.17g)", time);
    return status_of(instance_set_time(inst, "fmi2SetTime", time));
}

fmi2Status fmi2SetContinuousStates(fmi2Component c, const fmi2Real x[], size_t nx)
{
    ME_INSTANCE(c)
    return status_of(instance_set_continuous_states(inst, "fmi2SetContinuousStates", x, nx));
}

fmi2Status fmi2GetContinuousStates(fmi2Component c, fmi2Real x[], size_t nx)
{
    ME_INSTANCE(c)
    return status_of(instance_get_continuous_states(inst, "fmi2GetContinuousStates", x, nx));
}

#ifndef RTCOSIM_FMU_OMIT_GET_DERIVATIVES
fmi2Status fmi2GetDerivatives(fmi2Component c, fmi2Real derivatives[], size_t nx)
{
    ME_INSTANCE(c)
    return status_of(instance_get_derivatives(inst, "fmi2GetDerivatives", derivatives, nx));
}
#endif

fmi2Status fmi2GetEventIndicators(fmi2Component c, fmi2Real eventIndicators[], size_t ni)
{
    ME_INSTANCE(c)
    return status_of(
        instance_get_event_indicators(inst, "fmi2GetEventIndicators", eventIndicators, ni));
}

fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component c, fmi2Real x_nominal[], size_t nx)
{
    ME_INSTANCE(c)
    return status_of(
        instance_get_nominals(inst, "fmi2GetNominalsOfContinuousStates", x_nominal, nx));
}

fmi2Status fmi2EnterEventMode(fmi2Component c)
{
    ME_INSTANCE(c)
    TRACE(inst, "fmi2EnterEventMode()");
    return status_of(instance_enter_event_mode(inst, "fmi2EnterEventMode"));
}

fmi2Status fmi2NewDiscreteStates(fmi2Component c, fmi2EventInfo *eventInfo)
{
    ME_INSTANCE(c)
    TRACE(inst, "fmi2NewDiscreteStates()");
    if (!eventInfo)
        return status_of(instance_error(inst, "fmi2NewDiscreteStates: eventInfo is NULL"));
    model_event_result r;
    model_status s = instance_update_discrete_states(inst, "fmi2NewDiscreteStates", &r);
    /* The models settle in one round: their updates depend on no other
     * discrete state changed in the same round. */
    *eventInfo = (fmi2EventInfo){.newDiscreteStatesNeeded = fmi2False,
                                 .terminateSimulation = r.terminate,
                                 .nominalsOfContinuousStatesChanged = fmi2False,
                                 .valuesOfContinuousStatesChanged = r.values_changed,
                                 .nextEventTimeDefined = r.next_event_time_defined,
                                 .nextEventTime = r.next_event_time};
    return status_of(s);
}

fmi2Status fmi2EnterContinuousTimeMode(fmi2Component c)
{
    ME_INSTANCE(c)
    TRACE(inst, "fmi2EnterContinuousTimeMode()");
    return status_of(instance_enter_continuous_time_mode(inst, "fmi2EnterContinuousTimeMode"));
}

fmi2Status fmi2CompletedIntegratorStep(fmi2Component c,
                                       fmi2Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi2Boolean *enterEventMode, fmi2Boolean *terminateSimulation)
{
    (void)noSetFMUStatePriorToCurrentPoint; /* no history kept */
    ME_INSTANCE(c)
    bool event = false, terminate = false;
    model_status s =
        instance_completed_integrator_step(inst, "fmi2CompletedIntegratorStep", &event, &terminate);
    if (enterEventMode)
        *enterEventMode = event ? fmi2True : fmi2False;
    if (terminateSimulation)
        *terminateSimulation = terminate ? fmi2True : fmi2False;
    return status_of(s);
}
