/* FMI 3.0 interface of a model (FMI 3.0.x chapters 2, 3 and 4): every
 * exported common, model-exchange and co-simulation fmi3 function, mapped
 * onto the version-neutral instance (model exchange for the models that
 * declare it). Compiled once per model FMU;
 * RTCOSIM_FMU_OMIT_DO_STEP leaves fmi3DoStep out for importers' tests;
 * RTCOSIM_FMU_SYMBOL_PREFIX=P_ exports every function as P_fmi3DoStep
 * only, as sources defining FMI3_FUNCTION_PREFIX compile to (the FMI-LS-BUS
 * demo FMUs do). */
#define RTCOSIM_FMI3_FUNCTION_PROTOTYPES
#ifdef RTCOSIM_FMU_SYMBOL_PREFIX
/* the standard's names hidden: only the prefixed aliases (end of file) */
#define FMI3_Export __attribute__((visibility("hidden")))
#endif
#include "fmi/api/fmi3.h"

#include <stdlib.h>
#include <string.h>

#include "instance.h"

_Static_assert((int)fmi3OK == (int)MODEL_OK && (int)fmi3Warning == (int)MODEL_WARNING &&
                   (int)fmi3Discard == (int)MODEL_DISCARD && (int)fmi3Error == (int)MODEL_ERROR &&
                   (int)fmi3Fatal == (int)MODEL_FATAL,
               "model_status values are fmi3Status values");

typedef struct fmi3_instance {
    model_instance base; /* first: an fmi3Instance is a model_instance * */
    fmi3InstanceEnvironment environment;
    fmi3LogMessageCallback log_message;
    fmi3IntermediateUpdateCallback intermediate_update;
} fmi3_instance;

/* FMI 3.0 section 4.3 (co-simulation state machine; Event Mode for the
 * models with step_to_event, cs_events.c). */
#define MASK_GET (MODE_INITIALIZATION | MODE_RUNNING | MODE_TERMINATED | MODE_ERROR)
#define MASK_SET (MODE_INSTANTIATED | MODE_INITIALIZATION | MODE_RUNNING)

static void emit(model_instance *inst, model_status status, const char *category,
                 const char *message)
{
    const fmi3_instance *fi = (const fmi3_instance *)inst;
    if (fi->log_message)
        fi->log_message(fi->environment, (fmi3Status)status, category, message);
}

static fmi3Status status_of(model_status s) { return (fmi3Status)s; }

/* FMI 3.0 section 4.2.3: at an event inside a step, the importer may ask
 * for an early return (outputs may be read; no intermediate variables). */
static bool intermediate_update(model_instance *inst, double time, bool can_return_early)
{
    const fmi3_instance *fi = (const fmi3_instance *)inst;
    fmi3Boolean requested = fmi3False;
    fmi3Float64 requested_time = time;
    fi->intermediate_update(fi->environment, time, fmi3False, fmi3True, fmi3True,
                            can_return_early, &requested, &requested_time);
    return requested;
}

/* ---- Inquiry, logging, creation (section 2.3.1-2.3.2) ---- */

const char *fmi3GetVersion(void) { return fmi3Version; }

fmi3Status fmi3SetDebugLogging(fmi3Instance instance, fmi3Boolean loggingOn, size_t nCategories,
                               const fmi3String categories[])
{
    model_instance *inst = instance;
    if (!inst || !instance_allowed(inst, MODE_ANY_BUT_FATAL, "fmi3SetDebugLogging"))
        return fmi3Error;
    if (nCategories > 0 && !categories)
        return status_of(instance_error(inst, "fmi3SetDebugLogging: categories is NULL"));
    return status_of(instance_set_debug_logging(inst, loggingOn, nCategories, categories));
}

/* With loggingOn false the standard forbids calling logMessage at all. */
static void log_refusal(fmi3Boolean loggingOn, fmi3InstanceEnvironment env,
                        fmi3LogMessageCallback logMessage, const char *message)
{
    if (loggingOn && logMessage)
        logMessage(env, fmi3Error, model_log_category_names[MODEL_LOG_STATUS_ERROR], message);
}

/* The instance both interfaces make once the arguments are checked. */
static fmi3_instance *create_instance(fmi3String instanceName, fmi3String instantiationToken,
                                    fmi3String resourcePath, fmi3Boolean loggingOn,
                                    fmi3InstanceEnvironment instanceEnvironment,
                                    fmi3LogMessageCallback logMessage, bool model_exchange)
{
    fmi3_instance *fi = calloc(1, sizeof *fi);
    if (!fi)
        return NULL;
    fi->environment = instanceEnvironment;
    fi->log_message = logMessage;
    fi->base.calloc_fn = calloc;
    fi->base.free_fn = free;
    fi->base.emit = emit;
    /* The resource path is only stored: the models need no resources. */
    if (!instance_init(&fi->base, instanceName, resourcePath, false, loggingOn)) {
        instance_destroy(&fi->base);
        return NULL;
    }
    fi->base.model_exchange = model_exchange;
    TRACE(&fi->base, "%s(%s, token %s, resources %s)",
          model_exchange ? "fmi3InstantiateModelExchange" : "fmi3InstantiateCoSimulation",
          instanceName, instantiationToken, resourcePath ? resourcePath : "(none)");
    return fi;
}

fmi3Instance fmi3InstantiateScheduledExecution(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath,
    fmi3Boolean visible, fmi3Boolean loggingOn, fmi3InstanceEnvironment instanceEnvironment,
    fmi3LogMessageCallback logMessage, fmi3ClockUpdateCallback clockUpdate,
    fmi3LockPreemptionCallback lockPreemption, fmi3UnlockPreemptionCallback unlockPreemption)
{
    (void)instanceName, (void)instantiationToken, (void)resourcePath, (void)visible;
    (void)clockUpdate, (void)lockPreemption, (void)unlockPreemption;
    log_refusal(loggingOn, instanceEnvironment, logMessage,
                "fmi3InstantiateScheduledExecution: this FMU supports co-simulation only");
    return NULL;
}

fmi3Instance fmi3InstantiateCoSimulation(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath,
    fmi3Boolean visible, fmi3Boolean loggingOn, fmi3Boolean eventModeUsed,
    fmi3Boolean earlyReturnAllowed, const fmi3ValueReference requiredIntermediateVariables[],
    size_t nRequiredIntermediateVariables, fmi3InstanceEnvironment instanceEnvironment,
    fmi3LogMessageCallback logMessage, fmi3IntermediateUpdateCallback intermediateUpdate)
{
    (void)visible;                 /* no user interface to show */
    (void)requiredIntermediateVariables;
    const char *problem = NULL;
    if (!instanceName)
        problem = "fmi3InstantiateCoSimulation: instanceName is NULL";
    else if (!instantiationToken ||
             strcmp(instantiationToken, model_definition.instantiation_token) != 0)
        problem = "fmi3InstantiateCoSimulation: instantiationToken does not match "
                  "modelDescription.xml";
    else if (eventModeUsed && !model_definition.step_to_event)
        problem = "fmi3InstantiateCoSimulation: eventModeUsed needs hasEventMode, which this "
                  "FMU does not declare";
    else if (nRequiredIntermediateVariables > 0)
        problem = "fmi3InstantiateCoSimulation: this FMU has no intermediate variables";
    if (problem) {
        log_refusal(loggingOn, instanceEnvironment, logMessage, problem);
        return NULL;
    }
    fmi3_instance *fi = create_instance(instanceName, instantiationToken, resourcePath,
                                        loggingOn, instanceEnvironment, logMessage, false);
    if (fi) {
        fi->base.event_mode_used = eventModeUsed;
        /* Only models that stop at their events can return early. */
        fi->base.early_return_allowed = earlyReturnAllowed && model_definition.step_to_event;
        fi->intermediate_update = intermediateUpdate;
        if (intermediateUpdate)
            fi->base.intermediate_update = intermediate_update;
    }
    return fi;
}

/* FMI 3.0 section 3.2.1, for the models that declare model exchange. */
fmi3Instance fmi3InstantiateModelExchange(fmi3String instanceName, fmi3String instantiationToken,
                                          fmi3String resourcePath, fmi3Boolean visible,
                                          fmi3Boolean loggingOn,
                                          fmi3InstanceEnvironment instanceEnvironment,
                                          fmi3LogMessageCallback logMessage)
{
    (void)visible; /* no user interface to show */
    const char *problem = NULL;
    if (!model_definition.model_exchange)
        problem = "fmi3InstantiateModelExchange: this FMU supports co-simulation only";
    else if (!instanceName)
        problem = "fmi3InstantiateModelExchange: instanceName is NULL";
    else if (!instantiationToken ||
             strcmp(instantiationToken, model_definition.instantiation_token) != 0)
        problem = "fmi3InstantiateModelExchange: instantiationToken does not match "
                  "modelDescription.xml";
    if (problem) {
        log_refusal(loggingOn, instanceEnvironment, logMessage, problem);
        return NULL;
    }
    return create_instance(instanceName, instantiationToken, resourcePath, loggingOn,
                           instanceEnvironment, logMessage, true);
}

void fmi3FreeInstance(fmi3Instance instance)
{
    model_instance *inst = instance;
    if (!inst)
        return;
    TRACE(inst, "fmi3FreeInstance()");
    instance_destroy(inst);
}

/* ---- Initialization, termination (section 2.3.3-2.3.4) ---- */

fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined,
                                       fmi3Float64 tolerance, fmi3Float64 startTime,
                                       fmi3Boolean stopTimeDefined, fmi3Float64 stopTime)
{
    model_instance *inst = instance;
    if (!inst)
        return fmi3Error;
    TRACE(inst, "fmi3EnterInitializationMode(tolerance %s %g, start %.17g, stop %s %.17g)",
          toleranceDefined ? "defined" : "undefined", tolerance, startTime,
          stopTimeDefined ? "defined" : "undefined", stopTime);
    if (!instance_allowed(inst, MODE_INSTANTIATED, "fmi3EnterInitializationMode"))
        return fmi3Error;
    model_status s =
        instance_setup(inst, toleranceDefined, tolerance, startTime, stopTimeDefined, stopTime);
    if (s != MODEL_OK)
        return status_of(s);
    return status_of(instance_enter_initialization(inst, "fmi3EnterInitializationMode"));
}

fmi3Status fmi3ExitInitializationMode(fmi3Instance instance)
{
    model_instance *inst = instance;
    if (!inst)
        return fmi3Error;
    TRACE(inst, "fmi3ExitInitializationMode()");
    return status_of(instance_exit_initialization(inst, "fmi3ExitInitializationMode"));
}

fmi3Status fmi3Terminate(fmi3Instance instance)
{
    model_instance *inst = instance;
    if (!inst)
        return fmi3Error;
    TRACE(inst, "fmi3Terminate()");
    return status_of(instance_terminate(inst, "fmi3Terminate"));
}

fmi3Status fmi3Reset(fmi3Instance instance)
{
    model_instance *inst = instance;
    if (!inst)
        return fmi3Error;
    TRACE(inst, "fmi3Reset()");
    if (!instance_allowed(inst, MODE_ANY_BUT_FATAL, "fmi3Reset"))
        return fmi3Error;
    return status_of(instance_reset(inst));
}

/* ---- Values (section 2.3.5) ---- */

/* nValues must be the number of values the references name: one per
 * scalar, every element of an array (section 2.3.5, row-major). */
static bool begin_values(model_instance *inst, unsigned mask, const char *function,
                         const fmi3ValueReference *vr, size_t nvr, const void *values,
                         size_t n_values)
{
    if (!inst || !instance_allowed(inst, mask, function))
        return false;
    if (nvr > 0 && (!vr || !values)) {
        instance_error(inst, "%s: NULL value reference or value array", function);
        return false;
    }
    size_t expected = instance_value_count(inst, vr, nvr);
    if (n_values != expected) {
        instance_error(inst, "%s: nValues %zu differs from the %zu values of the %zu value "
                             "references",
                       function, n_values, expected, nvr);
        return false;
    }
    return true;
}

#define GET_SET(T, MODEL_TYPE)                                                               \
    fmi3Status fmi3Get##T(fmi3Instance instance, const fmi3ValueReference valueReferences[], \
                          size_t nValueReferences, fmi3##T values[], size_t nValues)         \
    {                                                                                        \
        model_instance *inst = instance;                                                     \
        if (!begin_values(inst, MASK_GET, "fmi3Get" #T, valueReferences, nValueReferences,   \
                          values, nValues))                                                  \
            return fmi3Error;                                                                \
        return status_of(instance_get(inst, "fmi3Get" #T, valueReferences, nValueReferences, \
                                      MODEL_TYPE, values));                                  \
    }                                                                                        \
    fmi3Status fmi3Set##T(fmi3Instance instance, const fmi3ValueReference valueReferences[], \
                          size_t nValueReferences, const fmi3##T values[], size_t nValues)   \
    {                                                                                        \
        model_instance *inst = instance;                                                     \
        if (!begin_values(inst, MASK_SET, "fmi3Set" #T, valueReferences, nValueReferences,   \
                          values, nValues))                                                  \
            return fmi3Error;                                                                \
        return status_of(instance_set(inst, "fmi3Set" #T, valueReferences, nValueReferences, \
                                      MODEL_TYPE, values));                                  \
    }

GET_SET(Float32, MODEL_FLOAT32)
GET_SET(Float64, MODEL_FLOAT64)
GET_SET(Int8, MODEL_INT8)
GET_SET(UInt8, MODEL_UINT8)
GET_SET(Int16, MODEL_INT16)
GET_SET(UInt16, MODEL_UINT16)
GET_SET(Int32, MODEL_INT32)
GET_SET(UInt32, MODEL_UINT32)
GET_SET(Int64, MODEL_INT64)
GET_SET(UInt64, MODEL_UINT64)
GET_SET(Boolean, MODEL_BOOLEAN)
GET_SET(String, MODEL_STRING)

fmi3Status fmi3GetBinary(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                         size_t nValueReferences, size_t valueSizes[], fmi3Binary values[],
                         size_t nValues)
{
    model_instance *inst = instance;
    if (!begin_values(inst, MASK_GET, "fmi3GetBinary", valueReferences, nValueReferences, values,
                      nValues))
        return fmi3Error;
    if (nValueReferences > 0 && !valueSizes)
        return status_of(instance_error(inst, "fmi3GetBinary: valueSizes is NULL"));
    return status_of(instance_get_binary(inst, "fmi3GetBinary", valueReferences,
                                         nValueReferences, valueSizes, values));
}

fmi3Status fmi3SetBinary(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                         size_t nValueReferences, const size_t valueSizes[],
                         const fmi3Binary values[], size_t nValues)
{
    model_instance *inst = instance;
    if (!begin_values(inst, MASK_SET, "fmi3SetBinary", valueReferences, nValueReferences, values,
                      nValues))
        return fmi3Error;
    if (nValueReferences > 0 && !valueSizes)
        return status_of(instance_error(inst, "fmi3SetBinary: valueSizes is NULL"));
    return status_of(instance_set_binary(inst, "fmi3SetBinary", valueReferences,
                                         nValueReferences, valueSizes, values));
}

/* The models declare no Clock variables: any value reference given to a clock
 * function names something else or nothing. */
static fmi3Status no_clocks(fmi3Instance instance, const char *function,
                            const fmi3ValueReference vr[], size_t nvr)
{
    model_instance *inst = instance;
    if (!inst || !instance_allowed(inst, MODE_ANY_BUT_FATAL, function))
        return fmi3Error;
    if (nvr == 0)
        return fmi3OK;
    if (!vr)
        return status_of(instance_error(inst, "%s: valueReferences is NULL", function));
    return status_of(instance_error(inst, "%s: value reference %u is not a Clock (this FMU has "
                                          "no clocks)",
                                    function, (unsigned)vr[0]));
}

fmi3Status fmi3GetClock(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                        size_t nValueReferences, fmi3Clock values[])
{
    (void)values;
    return no_clocks(instance, "fmi3GetClock", valueReferences, nValueReferences);
}

fmi3Status fmi3SetClock(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                        size_t nValueReferences, const fmi3Clock values[])
{
    (void)values;
    return no_clocks(instance, "fmi3SetClock", valueReferences, nValueReferences);
}

fmi3Status fmi3GetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                  size_t nValueReferences, fmi3Float64 intervals[],
                                  fmi3IntervalQualifier qualifiers[])
{
    (void)intervals, (void)qualifiers;
    return no_clocks(instance, "fmi3GetIntervalDecimal", valueReferences, nValueReferences);
}

fmi3Status fmi3GetIntervalFraction(fmi3Instance instance,
                                   const fmi3ValueReference valueReferences[],
                                   size_t nValueReferences, fmi3UInt64 counters[],
                                   fmi3UInt64 resolutions[], fmi3IntervalQualifier qualifiers[])
{
    (void)counters, (void)resolutions, (void)qualifiers;
    return no_clocks(instance, "fmi3GetIntervalFraction", valueReferences, nValueReferences);
}

fmi3Status fmi3GetShiftDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                               size_t nValueReferences, fmi3Float64 shifts[])
{
    (void)shifts;
    return no_clocks(instance, "fmi3GetShiftDecimal", valueReferences, nValueReferences);
}

fmi3Status fmi3GetShiftFraction(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                size_t nValueReferences, fmi3UInt64 counters[],
                                fmi3UInt64 resolutions[])
{
    (void)counters, (void)resolutions;
    return no_clocks(instance, "fmi3GetShiftFraction", valueReferences, nValueReferences);
}

fmi3Status fmi3SetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                  size_t nValueReferences, const fmi3Float64 intervals[])
{
    (void)intervals;
    return no_clocks(instance, "fmi3SetIntervalDecimal", valueReferences, nValueReferences);
}

/* Scheduled execution only (FMI 3.0 section 5.2.2): every FMI 3.0 binary
 * exports the whole API, as the Reference FMUs do, so that an importer that
 * resolves every function (fmusim does) loads a co-simulation or model-
 * exchange FMU; called on one, it is refused. */
fmi3Status fmi3ActivateModelPartition(fmi3Instance instance, fmi3ValueReference clockReference,
                                      fmi3Float64 activationTime)
{
    (void)activationTime;
    model_instance *inst = instance;
    if (!inst || !instance_allowed(inst, MODE_ANY_BUT_FATAL, "fmi3ActivateModelPartition"))
        return fmi3Error;
    return status_of(instance_error(inst, "fmi3ActivateModelPartition: clock %u: this FMU was not "
                                          "instantiated for scheduled execution",
                                    (unsigned)clockReference));
}

fmi3Status fmi3SetIntervalFraction(fmi3Instance instance,
                                   const fmi3ValueReference valueReferences[],
                                   size_t nValueReferences, const fmi3UInt64 counters[],
                                   const fmi3UInt64 resolutions[])
{
    (void)counters, (void)resolutions;
    return no_clocks(instance, "fmi3SetIntervalFraction", valueReferences, nValueReferences);
}

fmi3Status fmi3SetShiftDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                               size_t nValueReferences, const fmi3Float64 shifts[])
{
    (void)shifts;
    return no_clocks(instance, "fmi3SetShiftDecimal", valueReferences, nValueReferences);
}

fmi3Status fmi3SetShiftFraction(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                size_t nValueReferences, const fmi3UInt64 counters[],
                                const fmi3UInt64 resolutions[])
{
    (void)counters, (void)resolutions;
    return no_clocks(instance, "fmi3SetShiftFraction", valueReferences, nValueReferences);
}

/* ---- FMU state (section 2.3.8) ---- */

fmi3Status fmi3GetFMUState(fmi3Instance instance, fmi3FMUState *FMUState)
{
    model_instance *inst = instance;
    if (!inst || !instance_allowed(inst, MODE_ANY_BUT_FATAL, "fmi3GetFMUState"))
        return fmi3Error;
    return status_of(instance_get_state(inst, FMUState));
}

fmi3Status fmi3SetFMUState(fmi3Instance instance, fmi3FMUState FMUState)
{
    model_instance *inst = instance;
    if (!inst || !instance_allowed(inst, MODE_ANY_BUT_FATAL, "fmi3SetFMUState"))
        return fmi3Error;
    return status_of(instance_set_state(inst, FMUState));
}

fmi3Status fmi3FreeFMUState(fmi3Instance instance, fmi3FMUState *FMUState)
{
    model_instance *inst = instance;
    if (!inst)
        return fmi3Error;
    return status_of(instance_free_state(inst, FMUState));
}

fmi3Status fmi3SerializedFMUStateSize(fmi3Instance instance, fmi3FMUState FMUState, size_t *size)
{
    model_instance *inst = instance;
    if (!inst || !instance_allowed(inst, MODE_ANY_BUT_FATAL, "fmi3SerializedFMUStateSize"))
        return fmi3Error;
    return status_of(instance_serialized_size(inst, FMUState, size));
}

fmi3Status fmi3SerializeFMUState(fmi3Instance instance, fmi3FMUState FMUState,
                                 fmi3Byte serializedState[], size_t size)
{
    model_instance *inst = instance;
    if (!inst || !instance_allowed(inst, MODE_ANY_BUT_FATAL, "fmi3SerializeFMUState"))
        return fmi3Error;
    return status_of(instance_serialize(inst, FMUState, serializedState, size));
}

fmi3Status fmi3DeserializeFMUState(fmi3Instance instance, const fmi3Byte serializedState[],
                                   size_t size, fmi3FMUState *FMUState)
{
    model_instance *inst = instance;
    if (!inst || !instance_allowed(inst, MODE_ANY_BUT_FATAL, "fmi3DeserializeFMUState"))
        return fmi3Error;
    return status_of(instance_deserialize(inst, serializedState, size, FMUState));
}

/* ---- Capabilities the models do not declare (false or absent in
 * modelDescription.xml, so an importer calling them made a mistake) ---- */

static fmi3Status undeclared(fmi3Instance instance, const char *function, const char *why)
{
    model_instance *inst = instance;
    if (!inst)
        return fmi3Error;
    return status_of(instance_error(inst, "%s: not available (%s)", function, why));
}

/* Event Mode: model exchange, and co-simulation with eventModeUsed. */
static const char *no_event_mode(void)
{
    return model_definition.step_to_event ? "eventModeUsed=false" : "hasEventMode=false";
}

fmi3Status fmi3EnterEventMode(fmi3Instance instance)
{
    model_instance *inst = instance;
    if (!inst || !(inst->model_exchange || inst->event_mode_used))
        return undeclared(instance, "fmi3EnterEventMode", no_event_mode());
    TRACE(inst, "fmi3EnterEventMode()");
    return status_of(instance_enter_event_mode(inst, "fmi3EnterEventMode"));
}

fmi3Status fmi3EnterStepMode(fmi3Instance instance)
{
    model_instance *inst = instance;
    if (!inst || !inst->event_mode_used)
        return undeclared(instance, "fmi3EnterStepMode",
                          "without Event Mode the FMU is in Step Mode after initialization");
    TRACE(inst, "fmi3EnterStepMode()");
    return status_of(instance_enter_step_mode(inst, "fmi3EnterStepMode"));
}

fmi3Status fmi3EvaluateDiscreteStates(fmi3Instance instance)
{
    model_instance *inst = instance;
    if (!inst || !model_definition.evaluate_discrete_states)
        return undeclared(instance, "fmi3EvaluateDiscreteStates",
                          "providesEvaluateDiscreteStates=false");
    if (!(inst->model_exchange || inst->event_mode_used))
        return undeclared(instance, "fmi3EvaluateDiscreteStates", no_event_mode());
    TRACE(inst, "fmi3EvaluateDiscreteStates()");
    return status_of(instance_evaluate_discrete_states(inst, "fmi3EvaluateDiscreteStates"));
}

fmi3Status fmi3UpdateDiscreteStates(fmi3Instance instance, fmi3Boolean *discreteStatesNeedUpdate,
                                    fmi3Boolean *terminateSimulation,
                                    fmi3Boolean *nominalsOfContinuousStatesChanged,
                                    fmi3Boolean *valuesOfContinuousStatesChanged,
                                    fmi3Boolean *nextEventTimeDefined,
                                    fmi3Float64 *nextEventTime)
{
    model_instance *inst = instance;
    if (!inst || !(inst->model_exchange || inst->event_mode_used))
        return undeclared(instance, "fmi3UpdateDiscreteStates", no_event_mode());
    TRACE(inst, "fmi3UpdateDiscreteStates()");
    if (!discreteStatesNeedUpdate || !terminateSimulation || !nominalsOfContinuousStatesChanged ||
        !valuesOfContinuousStatesChanged || !nextEventTimeDefined || !nextEventTime)
        return status_of(instance_error(inst, "fmi3UpdateDiscreteStates: NULL out-argument"));
    model_event_result r;
    model_status s = instance_update_discrete_states(inst, "fmi3UpdateDiscreteStates", &r);
    *discreteStatesNeedUpdate = r.discrete_states_need_update;
    *terminateSimulation = r.terminate;
    *nominalsOfContinuousStatesChanged = fmi3False;
    *valuesOfContinuousStatesChanged = r.values_changed;
    *nextEventTimeDefined = r.next_event_time_defined;
    *nextEventTime = r.next_event_time;
    return status_of(s);
}

fmi3Status fmi3EnterConfigurationMode(fmi3Instance instance)
{
    return undeclared(instance, "fmi3EnterConfigurationMode", "no structural parameters");
}

fmi3Status fmi3ExitConfigurationMode(fmi3Instance instance)
{
    return undeclared(instance, "fmi3ExitConfigurationMode", "no structural parameters");
}

fmi3Status fmi3GetNumberOfVariableDependencies(fmi3Instance instance,
                                               fmi3ValueReference valueReference,
                                               size_t *nDependencies)
{
    (void)valueReference, (void)nDependencies;
    return undeclared(instance, "fmi3GetNumberOfVariableDependencies",
                      "ModelStructure declares no dependencies");
}

fmi3Status fmi3GetVariableDependencies(fmi3Instance instance, fmi3ValueReference dependent,
                                       size_t elementIndicesOfDependent[],
                                       fmi3ValueReference independents[],
                                       size_t elementIndicesOfIndependents[],
                                       fmi3DependencyKind dependencyKinds[], size_t nDependencies)
{
    (void)dependent, (void)elementIndicesOfDependent, (void)independents;
    (void)elementIndicesOfIndependents, (void)dependencyKinds, (void)nDependencies;
    return undeclared(instance, "fmi3GetVariableDependencies",
                      "ModelStructure declares no dependencies");
}

fmi3Status fmi3GetDirectionalDerivative(fmi3Instance instance, const fmi3ValueReference unknowns[],
                                        size_t nUnknowns, const fmi3ValueReference knowns[],
                                        size_t nKnowns, const fmi3Float64 seed[], size_t nSeed,
                                        fmi3Float64 sensitivity[], size_t nSensitivity)
{
    (void)unknowns, (void)nUnknowns, (void)knowns, (void)nKnowns, (void)seed, (void)nSeed;
    (void)sensitivity, (void)nSensitivity;
    return undeclared(instance, "fmi3GetDirectionalDerivative",
                      "providesDirectionalDerivative=false");
}

fmi3Status fmi3GetAdjointDerivative(fmi3Instance instance, const fmi3ValueReference unknowns[],
                                    size_t nUnknowns, const fmi3ValueReference knowns[],
                                    size_t nKnowns, const fmi3Float64 seed[], size_t nSeed,
                                    fmi3Float64 sensitivity[], size_t nSensitivity)
{
    (void)unknowns, (void)nUnknowns, (void)knowns, (void)nKnowns, (void)seed, (void)nSeed;
    (void)sensitivity, (void)nSensitivity;
    return undeclared(instance, "fmi3GetAdjointDerivative", "providesAdjointDerivatives=false");
}

fmi3Status fmi3GetOutputDerivatives(fmi3Instance instance,
                                    const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences, const fmi3Int32 orders[],
                                    fmi3Float64 values[], size_t nValues)
{
    (void)valueReferences, (void)nValueReferences, (void)orders, (void)values, (void)nValues;
    return undeclared(instance, "fmi3GetOutputDerivatives", "maxOutputDerivativeOrder=0");
}

/* ---- Co-simulation (section 4.2) ---- */

#ifndef RTCOSIM_FMU_OMIT_DO_STEP
fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint,
                      fmi3Float64 communicationStepSize,
                      fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                      fmi3Boolean *eventHandlingNeeded, fmi3Boolean *terminateSimulation,
                      fmi3Boolean *earlyReturn, fmi3Float64 *lastSuccessfulTime)
{
    (void)noSetFMUStatePriorToCurrentPoint; /* snapshots are cheap; nothing to free early */
    model_instance *inst = instance;
    if (!inst)
        return fmi3Error;
    TRACE(inst, "fmi3DoStep(%.17g, %.17g)", currentCommunicationPoint, communicationStepSize);
    const model_status s =
        instance_do_step(inst, currentCommunicationPoint, communicationStepSize, "fmi3DoStep");
    const bool ok = s <= MODEL_WARNING;
    if (eventHandlingNeeded)
        *eventHandlingNeeded = ok && inst->event_needed;
    if (terminateSimulation)
        *terminateSimulation = inst->terminate_requested || s == MODEL_FATAL;
    if (earlyReturn)
        *earlyReturn = ok && inst->returned_early;
    if (lastSuccessfulTime)
        *lastSuccessfulTime = inst->last_successful_time;
    return status_of(s);
}
#endif

/* ---- Model exchange (section 3.2) ---- */

#define ME_INSTANCE(i)                                                                     \
    model_instance *inst = i;                                                              \
    if (!inst)                                                                             \
        return fmi3Error;

fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance instance)
{
    ME_INSTANCE(instance)
    TRACE(inst, "fmi3EnterContinuousTimeMode()");
    return status_of(instance_enter_continuous_time_mode(inst, "fmi3EnterContinuousTimeMode"));
}

fmi3Status fmi3CompletedIntegratorStep(fmi3Instance instance,
                                       fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi3Boolean *enterEventMode, fmi3Boolean *terminateSimulation)
{
    (void)noSetFMUStatePriorToCurrentPoint; /* no history kept */
    ME_INSTANCE(instance)
    if (!enterEventMode || !terminateSimulation)
        return status_of(instance_error(inst, "fmi3CompletedIntegratorStep: NULL out-argument"));
    return status_of(instance_completed_integrator_step(inst, "fmi3CompletedIntegratorStep",
                                                        enterEventMode, terminateSimulation));
}

fmi3Status fmi3SetTime(fmi3Instance instance, fmi3Float64 time)
{
    ME_INSTANCE(instance)
    TRACE(inst, "fmi3SetTime(%.17g)", time);
    return status_of(instance_set_time(inst, "fmi3SetTime", time));
}

fmi3Status fmi3SetContinuousStates(fmi3Instance instance, const fmi3Float64 continuousStates[],
                                   size_t nContinuousStates)
{
    ME_INSTANCE(instance)
    return status_of(instance_set_continuous_states(inst, "fmi3SetContinuousStates",
                                                    continuousStates, nContinuousStates));
}

#ifndef RTCOSIM_FMU_OMIT_GET_DERIVATIVES
fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance instance, fmi3Float64 derivatives[],
                                             size_t nContinuousStates)
{
    ME_INSTANCE(instance)
    return status_of(instance_get_derivatives(inst, "fmi3GetContinuousStateDerivatives",
                                              derivatives, nContinuousStates));
}
#endif

fmi3Status fmi3GetEventIndicators(fmi3Instance instance, fmi3Float64 eventIndicators[],
                                  size_t nEventIndicators)
{
    ME_INSTANCE(instance)
    return status_of(instance_get_event_indicators(inst, "fmi3GetEventIndicators",
                                                   eventIndicators, nEventIndicators));
}

fmi3Status fmi3GetContinuousStates(fmi3Instance instance, fmi3Float64 continuousStates[],
                                   size_t nContinuousStates)
{
    ME_INSTANCE(instance)
    return status_of(instance_get_continuous_states(inst, "fmi3GetContinuousStates",
                                                    continuousStates, nContinuousStates));
}

fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance instance, fmi3Float64 nominals[],
                                             size_t nContinuousStates)
{
    ME_INSTANCE(instance)
    return status_of(instance_get_nominals(inst, "fmi3GetNominalsOfContinuousStates", nominals,
                                           nContinuousStates));
}

fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance instance, size_t *nEventIndicators)
{
    ME_INSTANCE(instance)
    if (!nEventIndicators)
        return status_of(instance_error(inst, "fmi3GetNumberOfEventIndicators: NULL pointer"));
    *nEventIndicators = inst->model->event_indicator_count;
    return fmi3OK;
}

fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance instance, size_t *nContinuousStates)
{
    ME_INSTANCE(instance)
    if (!nContinuousStates)
        return status_of(instance_error(inst, "fmi3GetNumberOfContinuousStates: NULL pointer"));
    *nContinuousStates = instance_state_count(inst->model);
    return fmi3OK;
}

#ifdef RTCOSIM_FMU_SYMBOL_PREFIX
#define RTCOSIM_PREFIXED__(p, name) p##name
#define RTCOSIM_PREFIXED_(p, name) RTCOSIM_PREFIXED__(p, name)
#define RTCOSIM_EXPORT_PREFIXED_(name)                                                        \
    extern __typeof__(name) RTCOSIM_PREFIXED_(RTCOSIM_FMU_SYMBOL_PREFIX, name)                \
        __attribute__((alias(#name), visibility("default")));
RTCOSIM_FMI3_COMMON_FUNCTIONS(RTCOSIM_EXPORT_PREFIXED_)
RTCOSIM_FMI3_ME_FUNCTIONS(RTCOSIM_EXPORT_PREFIXED_)
RTCOSIM_FMI3_CS_FUNCTIONS(RTCOSIM_EXPORT_PREFIXED_)
#endif
