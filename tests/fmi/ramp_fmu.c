/* A minimal FMI 3.0 co-simulation binary for the input-derivative test: input
 * u with a declared derivative input du (vr 2, derivative of vr 1), output y.
 * A step of size h sets y = u + du * h, i.e. u extrapolated to the step's end
 * with its first derivative, so the test can see which value reached du. */
#include <stdlib.h>

#define RTCOSIM_FMI3_FUNCTION_PROTOTYPES
#include "fmi/api/fmi3.h"

typedef struct ramp {
    double values[4]; /* time, u, du, y by value reference */
} ramp;

fmi3Instance fmi3InstantiateCoSimulation(fmi3String instanceName, fmi3String instantiationToken,
                                         fmi3String resourcePath, fmi3Boolean visible,
                                         fmi3Boolean loggingOn, fmi3Boolean eventModeUsed,
                                         fmi3Boolean earlyReturnAllowed,
                                         const fmi3ValueReference requiredIntermediateVariables[],
                                         size_t nRequiredIntermediateVariables,
                                         fmi3InstanceEnvironment instanceEnvironment,
                                         fmi3LogMessageCallback logMessage,
                                         fmi3IntermediateUpdateCallback intermediateUpdate)
{
    (void)instanceName, (void)instantiationToken, (void)resourcePath, (void)visible;
    (void)loggingOn, (void)eventModeUsed, (void)earlyReturnAllowed;
    (void)requiredIntermediateVariables, (void)nRequiredIntermediateVariables;
    (void)instanceEnvironment, (void)logMessage, (void)intermediateUpdate;
    return calloc(1, sizeof(ramp));
}

void fmi3FreeInstance(fmi3Instance instance) { free(instance); }

fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined,
                                       fmi3Float64 tolerance, fmi3Float64 startTime,
                                       fmi3Boolean stopTimeDefined, fmi3Float64 stopTime)
{
    (void)toleranceDefined, (void)tolerance, (void)stopTimeDefined, (void)stopTime;
    ((ramp *)instance)->values[0] = startTime;
    return fmi3OK;
}

fmi3Status fmi3ExitInitializationMode(fmi3Instance instance) { (void)instance; return fmi3OK; }
fmi3Status fmi3Terminate(fmi3Instance instance) { (void)instance; return fmi3OK; }

fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint,
                      fmi3Float64 communicationStepSize,
                      fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                      fmi3Boolean *eventHandlingNeeded, fmi3Boolean *terminateSimulation,
                      fmi3Boolean *earlyReturn, fmi3Float64 *lastSuccessfulTime)
{
    (void)noSetFMUStatePriorToCurrentPoint;
    ramp *r = instance;
    r->values[3] = r->values[1] + r->values[2] * communicationStepSize;
    r->values[0] = currentCommunicationPoint + communicationStepSize;
    *eventHandlingNeeded = *terminateSimulation = *earlyReturn = fmi3False;
    *lastSuccessfulTime = r->values[0];
    return fmi3OK;
}

fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                          size_t nValueReferences, fmi3Float64 values[], size_t nValues)
{
    if (nValues != nValueReferences)
        return fmi3Error;
    for (size_t i = 0; i < nValueReferences; i++) {
        if (valueReferences[i] > 3)
            return fmi3Error;
        values[i] = ((ramp *)instance)->values[valueReferences[i]];
    }
    return fmi3OK;
}

fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                          size_t nValueReferences, const fmi3Float64 values[], size_t nValues)
{
    if (nValues != nValueReferences)
        return fmi3Error;
    for (size_t i = 0; i < nValueReferences; i++) {
        if (valueReferences[i] != 1 && valueReferences[i] != 2)
            return fmi3Error;
        ((ramp *)instance)->values[valueReferences[i]] = values[i];
    }
    return fmi3OK;
}
