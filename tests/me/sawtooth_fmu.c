/* A minimal FMI 2.0 model-exchange binary for the integrator's event tests:
 * der(x) = 1; time events every `period` reset x to 0 (nextEventTime), a step
 * event (CompletedIntegratorStep) resets x once it exceeds `limit`, and at
 * `stop_at` the model asks to terminate. Value references: 0 time, 1 x,
 * 2 der(x), 3 period, 4 limit, 5 stop_at (0 disables each feature). */
#include <math.h>
#include <stdlib.h>

#define RTCOSIM_FMI2_FUNCTION_PROTOTYPES
#include "fmi/api/fmi2.h"

enum { TIME, X, DER_X, PERIOD, LIMIT, STOP_AT, COUNT };

typedef struct sawtooth {
    double v[COUNT];
    double next_reset;
} sawtooth;

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation,
                              const fmi2CallbackFunctions *functions, fmi2Boolean visible,
                              fmi2Boolean loggingOn)
{
    (void)instanceName, (void)fmuGUID, (void)fmuResourceLocation, (void)functions;
    (void)visible, (void)loggingOn;
    if (fmuType != fmi2ModelExchange)
        return NULL;
    sawtooth *s = calloc(1, sizeof *s);
    if (s)
        s->v[DER_X] = 1.0;
    return s;
}

void fmi2FreeInstance(fmi2Component c) { free(c); }

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined, fmi2Real tolerance,
                               fmi2Real startTime, fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
    (void)toleranceDefined, (void)tolerance, (void)stopTimeDefined, (void)stopTime;
    ((sawtooth *)c)->v[TIME] = startTime;
    return fmi2OK;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c)
{
    (void)c;
    return fmi2OK;
}

fmi2Status fmi2ExitInitializationMode(fmi2Component c)
{
    sawtooth *s = c;
    s->next_reset = s->v[TIME] + s->v[PERIOD];
    return fmi2OK;
}

fmi2Status fmi2Terminate(fmi2Component c)
{
    (void)c;
    return fmi2OK;
}

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       fmi2Real value[])
{
    for (size_t i = 0; i < nvr; i++) {
        if (vr[i] >= COUNT)
            return fmi2Error;
        value[i] = ((sawtooth *)c)->v[vr[i]];
    }
    return fmi2OK;
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       const fmi2Real value[])
{
    for (size_t i = 0; i < nvr; i++) {
        if (vr[i] < PERIOD || vr[i] >= COUNT)
            return fmi2Error;
        ((sawtooth *)c)->v[vr[i]] = value[i];
    }
    return fmi2OK;
}

fmi2Status fmi2SetTime(fmi2Component c, fmi2Real time)
{
    ((sawtooth *)c)->v[TIME] = time;
    return fmi2OK;
}

fmi2Status fmi2SetContinuousStates(fmi2Component c, const fmi2Real x[], size_t nx)
{
    if (nx != 1)
        return fmi2Error;
    ((sawtooth *)c)->v[X] = x[0];
    return fmi2OK;
}

fmi2Status fmi2GetContinuousStates(fmi2Component c, fmi2Real x[], size_t nx)
{
    if (nx != 1)
        return fmi2Error;
    x[0] = ((sawtooth *)c)->v[X];
    return fmi2OK;
}

fmi2Status fmi2GetDerivatives(fmi2Component c, fmi2Real derivatives[], size_t nx)
{
    if (nx != 1)
        return fmi2Error;
    derivatives[0] = ((sawtooth *)c)->v[DER_X];
    return fmi2OK;
}

fmi2Status fmi2GetEventIndicators(fmi2Component c, fmi2Real eventIndicators[], size_t ni)
{
    (void)c, (void)eventIndicators;
    return ni == 0 ? fmi2OK : fmi2Error;
}

fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component c, fmi2Real x_nominal[], size_t nx)
{
    (void)c;
    for (size_t i = 0; i < nx; i++)
        x_nominal[i] = 1.0;
    return fmi2OK;
}

fmi2Status fmi2EnterEventMode(fmi2Component c)
{
    (void)c;
    return fmi2OK;
}

fmi2Status fmi2EnterContinuousTimeMode(fmi2Component c)
{
    (void)c;
    return fmi2OK;
}

fmi2Status fmi2NewDiscreteStates(fmi2Component c, fmi2EventInfo *info)
{
    sawtooth *s = c;
    const double t = s->v[TIME];
    *info = (fmi2EventInfo){0};
    if (s->v[STOP_AT] > 0 && t >= s->v[STOP_AT]) {
        info->terminateSimulation = fmi2True;
        return fmi2OK;
    }
    if ((s->v[PERIOD] > 0 && t >= s->next_reset) || (s->v[LIMIT] > 0 && s->v[X] > s->v[LIMIT])) {
        s->v[X] = 0.0;
        info->valuesOfContinuousStatesChanged = fmi2True;
    }
    while (s->v[PERIOD] > 0 && s->next_reset <= t)
        s->next_reset += s->v[PERIOD];
    double next = s->v[PERIOD] > 0 ? s->next_reset : INFINITY;
    if (s->v[STOP_AT] > 0 && s->v[STOP_AT] < next)
        next = s->v[STOP_AT];
    info->nextEventTimeDefined = isfinite(next);
    info->nextEventTime = isfinite(next) ? next : 0.0;
    return fmi2OK;
}

fmi2Status fmi2CompletedIntegratorStep(fmi2Component c,
                                       fmi2Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi2Boolean *enterEventMode, fmi2Boolean *terminateSimulation)
{
    (void)noSetFMUStatePriorToCurrentPoint;
    sawtooth *s = c;
    *enterEventMode = s->v[LIMIT] > 0 && s->v[X] > s->v[LIMIT];
    *terminateSimulation = fmi2False;
    return fmi2OK;
}
