/* A deliberately incomplete FMI 2.0 binary: it exports the lifecycle and Real
 * functions but not fmi2DoStep, so that the loader's "binary lacks" check has
 * something real to find. None of its functions is ever called. */
#define RTCOSIM_FMI2_FUNCTION_PROTOTYPES
#include "fmi/api/fmi2.h"

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation,
                              const fmi2CallbackFunctions *functions, fmi2Boolean visible,
                              fmi2Boolean loggingOn)
{
    (void)instanceName, (void)fmuType, (void)fmuGUID, (void)fmuResourceLocation;
    (void)functions, (void)visible, (void)loggingOn;
    return 0;
}

void fmi2FreeInstance(fmi2Component c) { (void)c; }

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined, fmi2Real tolerance,
                               fmi2Real startTime, fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
    (void)c, (void)toleranceDefined, (void)tolerance, (void)startTime, (void)stopTimeDefined;
    (void)stopTime;
    return fmi2Error;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c) { (void)c; return fmi2Error; }
fmi2Status fmi2ExitInitializationMode(fmi2Component c) { (void)c; return fmi2Error; }
fmi2Status fmi2Terminate(fmi2Component c) { (void)c; return fmi2Error; }

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       fmi2Real value[])
{
    (void)c, (void)vr, (void)nvr, (void)value;
    return fmi2Error;
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       const fmi2Real value[])
{
    (void)c, (void)vr, (void)nvr, (void)value;
    return fmi2Error;
}
