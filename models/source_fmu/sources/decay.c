/* DecaySource: x(t) = x0 exp(-k t), an FMU shipped as source code only
 * (models/source_fmu/CMakeLists.txt packs it without a binary), written
 * against the standard's header names, fmi2Functions.h and fmi3Functions.h,
 * which the importer provides (FMI 2.0 section 2.3, FMI 3.0 section
 * 2.5.1.5). FMI_VERSION picks the interface; for FMI 3.0 the build
 * description gives it, the function prefix and the include directory of
 * decay_config.h, and links libm for decay_math.c (another SourceFileSet,
 * whose definitions must not reach this file). */
#ifndef DECAY_CONFIG_H
#include "decay_config.h"
#endif
#ifdef DECAY_MATH_SET
#error "a definition of decay_math.c's SourceFileSet reached decay.c"
#endif
#include <string.h>

#include "decay_math.h"

enum { VR_TIME = 0, VR_X = 1, VR_K = 2, VR_X0 = 3 };

typedef struct decay {
    double time, k, x0;
} decay;

static void decay_init(decay *d)
{
    d->time = 0;
    d->k = DECAY_DEFAULT_K;
    d->x0 = DECAY_DEFAULT_X0;
}

/* 0 on success, -1 for an unknown value reference */
static int decay_get(const decay *d, unsigned vr, double *v)
{
    switch (vr) {
    case VR_TIME: *v = d->time; return 0;
    case VR_X: *v = decay_value(d->x0, d->k, d->time); return 0;
    case VR_K: *v = d->k; return 0;
    case VR_X0: *v = d->x0; return 0;
    default: return -1;
    }
}

static int decay_set(decay *d, unsigned vr, double v)
{
    switch (vr) {
    case VR_K: d->k = v; return 0;
    case VR_X0: d->x0 = v; return 0;
    default: return -1;
    }
}

#if FMI_VERSION == 3
#include "fmi3Functions.h"

const char *fmi3GetVersion(void) { return fmi3Version; }

fmi3Status fmi3SetDebugLogging(fmi3Instance instance, fmi3Boolean loggingOn, size_t nCategories,
                               const fmi3String categories[])
{
    (void)instance, (void)loggingOn, (void)nCategories, (void)categories;
    return fmi3OK;
}

fmi3Instance fmi3InstantiateCoSimulation(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath,
    fmi3Boolean visible, fmi3Boolean loggingOn, fmi3Boolean eventModeUsed,
    fmi3Boolean earlyReturnAllowed, const fmi3ValueReference requiredIntermediateVariables[],
    size_t nRequiredIntermediateVariables, fmi3InstanceEnvironment instanceEnvironment,
    fmi3LogMessageCallback logMessage, fmi3IntermediateUpdateCallback intermediateUpdate)
{
    (void)instanceName, (void)resourcePath, (void)visible, (void)loggingOn;
    (void)earlyReturnAllowed, (void)requiredIntermediateVariables;
    (void)nRequiredIntermediateVariables, (void)instanceEnvironment, (void)logMessage;
    (void)intermediateUpdate;
    if (eventModeUsed || strcmp(instantiationToken, DECAY_TOKEN) != 0)
        return NULL;
    decay *d = calloc(1, sizeof *d);
    if (d)
        decay_init(d);
    return d;
}

void fmi3FreeInstance(fmi3Instance instance) { free(instance); }

fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined,
                                       fmi3Float64 tolerance, fmi3Float64 startTime,
                                       fmi3Boolean stopTimeDefined, fmi3Float64 stopTime)
{
    (void)toleranceDefined, (void)tolerance, (void)stopTimeDefined, (void)stopTime;
    ((decay *)instance)->time = startTime;
    return fmi3OK;
}

fmi3Status fmi3ExitInitializationMode(fmi3Instance instance)
{
    (void)instance;
    return fmi3OK;
}

fmi3Status fmi3Terminate(fmi3Instance instance)
{
    (void)instance;
    return fmi3OK;
}

fmi3Status fmi3Reset(fmi3Instance instance)
{
    decay_init(instance);
    return fmi3OK;
}

fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                          size_t nValueReferences, fmi3Float64 values[], size_t nValues)
{
    if (nValues != nValueReferences)
        return fmi3Error;
    for (size_t i = 0; i < nValueReferences; i++)
        if (decay_get(instance, valueReferences[i], &values[i]) != 0)
            return fmi3Error;
    return fmi3OK;
}

fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                          size_t nValueReferences, const fmi3Float64 values[], size_t nValues)
{
    if (nValues != nValueReferences)
        return fmi3Error;
    for (size_t i = 0; i < nValueReferences; i++)
        if (decay_set(instance, valueReferences[i], values[i]) != 0)
            return fmi3Error;
    return fmi3OK;
}

fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint,
                      fmi3Float64 communicationStepSize,
                      fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                      fmi3Boolean *eventHandlingNeeded, fmi3Boolean *terminateSimulation,
                      fmi3Boolean *earlyReturn, fmi3Float64 *lastSuccessfulTime)
{
    (void)noSetFMUStatePriorToCurrentPoint;
    decay *d = instance;
    d->time = currentCommunicationPoint + communicationStepSize;
    *eventHandlingNeeded = fmi3False;
    *terminateSimulation = fmi3False;
    *earlyReturn = fmi3False;
    *lastSuccessfulTime = d->time;
    return fmi3OK;
}

#elif FMI_VERSION == 2
#include "fmi2Functions.h"

const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }
const char *fmi2GetVersion(void) { return fmi2Version; }

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t nCategories,
                               const fmi2String categories[])
{
    (void)c, (void)loggingOn, (void)nCategories, (void)categories;
    return fmi2OK;
}

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation,
                              const fmi2CallbackFunctions *functions, fmi2Boolean visible,
                              fmi2Boolean loggingOn)
{
    (void)instanceName, (void)fmuResourceLocation, (void)functions, (void)visible;
    (void)loggingOn;
    if (fmuType != fmi2CoSimulation || strcmp(fmuGUID, DECAY_TOKEN) != 0)
        return NULL;
    decay *d = calloc(1, sizeof *d);
    if (d)
        decay_init(d);
    return d;
}

void fmi2FreeInstance(fmi2Component c) { free(c); }

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined,
                               fmi2Real tolerance, fmi2Real startTime,
                               fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
    (void)toleranceDefined, (void)tolerance, (void)stopTimeDefined, (void)stopTime;
    ((decay *)c)->time = startTime;
    return fmi2OK;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c)
{
    (void)c;
    return fmi2OK;
}

fmi2Status fmi2ExitInitializationMode(fmi2Component c)
{
    (void)c;
    return fmi2OK;
}

fmi2Status fmi2Terminate(fmi2Component c)
{
    (void)c;
    return fmi2OK;
}

fmi2Status fmi2Reset(fmi2Component c)
{
    decay_init(c);
    return fmi2OK;
}

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       fmi2Real value[])
{
    for (size_t i = 0; i < nvr; i++)
        if (decay_get(c, vr[i], &value[i]) != 0)
            return fmi2Error;
    return fmi2OK;
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       const fmi2Real value[])
{
    for (size_t i = 0; i < nvr; i++)
        if (decay_set(c, vr[i], value[i]) != 0)
            return fmi2Error;
    return fmi2OK;
}

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint,
                      fmi2Real communicationStepSize, fmi2Boolean noSetFMUStatePriorToCurrentPoint)
{
    (void)noSetFMUStatePriorToCurrentPoint;
    ((decay *)c)->time = currentCommunicationPoint + communicationStepSize;
    return fmi2OK;
}
#else
#error "FMI_VERSION must be 2 or 3"
#endif
