/* FMI 2.0 types and function signatures (FMI 2.0.x standard, sections 2.1.2-2.1.10,
 * 3.2 and 4.2), written for rtcosim from the documented signatures.
 * The importer uses the function types through pointers resolved with dlsym; an
 * FMU written in C defines RTCOSIM_FMI2_FUNCTION_PROTOTYPES before including
 * this header so that the compiler checks its definitions of fmi2DoStep etc.
 * against the standard's signatures and exports them. */
#ifndef RTCOSIM_FMI_API_FMI2_H
#define RTCOSIM_FMI_API_FMI2_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Platform types (fmi2TypesPlatform, "default" platform) ---- */
#define fmi2TypesPlatform "default"
#define fmi2Version "2.0"

typedef void *fmi2Component;            /* instance handle, owned by the FMU */
typedef void *fmi2ComponentEnvironment; /* importer's context, handed to callbacks */
typedef void *fmi2FMUstate;             /* state snapshot, owned by the FMU */
typedef unsigned int fmi2ValueReference;
typedef double fmi2Real;
typedef int fmi2Integer;
typedef int fmi2Boolean;
typedef char fmi2Char;
typedef const fmi2Char *fmi2String;
typedef char fmi2Byte;

#define fmi2True 1
#define fmi2False 0

/* ---- Enumerations (section 2.1.3) ---- */
typedef enum fmi2Status {
    fmi2OK,
    fmi2Warning,
    fmi2Discard,
    fmi2Error,
    fmi2Fatal,
    fmi2Pending
} fmi2Status;

typedef enum fmi2Type {
    fmi2ModelExchange,
    fmi2CoSimulation
} fmi2Type;

/* Kinds of status queried with fmi2Get*Status (section 4.2.3). */
typedef enum fmi2StatusKind {
    fmi2DoStepStatus,
    fmi2PendingStatus,
    fmi2LastSuccessfulTime,
    fmi2Terminated
} fmi2StatusKind;

/* ---- Callbacks (section 2.1.5) ---- */
typedef void (*fmi2CallbackLogger)(fmi2ComponentEnvironment componentEnvironment,
                                   fmi2String instanceName, fmi2Status status,
                                   fmi2String category, fmi2String message, ...);
typedef void *(*fmi2CallbackAllocateMemory)(size_t nobj, size_t size);
typedef void (*fmi2CallbackFreeMemory)(void *obj);
typedef void (*fmi2StepFinished)(fmi2ComponentEnvironment componentEnvironment,
                                 fmi2Status status);

typedef struct fmi2CallbackFunctions {
    fmi2CallbackLogger logger;
    fmi2CallbackAllocateMemory allocateMemory;
    fmi2CallbackFreeMemory freeMemory;
    fmi2StepFinished stepFinished;
    fmi2ComponentEnvironment componentEnvironment;
} fmi2CallbackFunctions;

/* Result of fmi2NewDiscreteStates (model exchange, section 3.2.2). */
typedef struct fmi2EventInfo {
    fmi2Boolean newDiscreteStatesNeeded;
    fmi2Boolean terminateSimulation;
    fmi2Boolean nominalsOfContinuousStatesChanged;
    fmi2Boolean valuesOfContinuousStatesChanged;
    fmi2Boolean nextEventTimeDefined;
    fmi2Real nextEventTime;
} fmi2EventInfo;

/* ---- Function types. Use `fmi2XTYPE *` for a pointer to fmi2X. ---- */

/* Common functions (section 2.1) */
typedef const char *fmi2GetTypesPlatformTYPE(void);
typedef const char *fmi2GetVersionTYPE(void);
typedef fmi2Status fmi2SetDebugLoggingTYPE(fmi2Component c, fmi2Boolean loggingOn,
                                           size_t nCategories, const fmi2String categories[]);
typedef fmi2Component fmi2InstantiateTYPE(fmi2String instanceName, fmi2Type fmuType,
                                          fmi2String fmuGUID, fmi2String fmuResourceLocation,
                                          const fmi2CallbackFunctions *functions,
                                          fmi2Boolean visible, fmi2Boolean loggingOn);
typedef void fmi2FreeInstanceTYPE(fmi2Component c);
typedef fmi2Status fmi2SetupExperimentTYPE(fmi2Component c, fmi2Boolean toleranceDefined,
                                           fmi2Real tolerance, fmi2Real startTime,
                                           fmi2Boolean stopTimeDefined, fmi2Real stopTime);
typedef fmi2Status fmi2EnterInitializationModeTYPE(fmi2Component c);
typedef fmi2Status fmi2ExitInitializationModeTYPE(fmi2Component c);
typedef fmi2Status fmi2TerminateTYPE(fmi2Component c);
typedef fmi2Status fmi2ResetTYPE(fmi2Component c);

typedef fmi2Status fmi2GetRealTYPE(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                   fmi2Real value[]);
typedef fmi2Status fmi2GetIntegerTYPE(fmi2Component c, const fmi2ValueReference vr[],
                                      size_t nvr, fmi2Integer value[]);
typedef fmi2Status fmi2GetBooleanTYPE(fmi2Component c, const fmi2ValueReference vr[],
                                      size_t nvr, fmi2Boolean value[]);
typedef fmi2Status fmi2GetStringTYPE(fmi2Component c, const fmi2ValueReference vr[],
                                     size_t nvr, fmi2String value[]);
typedef fmi2Status fmi2SetRealTYPE(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                   const fmi2Real value[]);
typedef fmi2Status fmi2SetIntegerTYPE(fmi2Component c, const fmi2ValueReference vr[],
                                      size_t nvr, const fmi2Integer value[]);
typedef fmi2Status fmi2SetBooleanTYPE(fmi2Component c, const fmi2ValueReference vr[],
                                      size_t nvr, const fmi2Boolean value[]);
typedef fmi2Status fmi2SetStringTYPE(fmi2Component c, const fmi2ValueReference vr[],
                                     size_t nvr, const fmi2String value[]);

/* FMU state (section 2.1.8) */
typedef fmi2Status fmi2GetFMUstateTYPE(fmi2Component c, fmi2FMUstate *FMUstate);
typedef fmi2Status fmi2SetFMUstateTYPE(fmi2Component c, fmi2FMUstate FMUstate);
typedef fmi2Status fmi2FreeFMUstateTYPE(fmi2Component c, fmi2FMUstate *FMUstate);
typedef fmi2Status fmi2SerializedFMUstateSizeTYPE(fmi2Component c, fmi2FMUstate FMUstate,
                                                  size_t *size);
typedef fmi2Status fmi2SerializeFMUstateTYPE(fmi2Component c, fmi2FMUstate FMUstate,
                                             fmi2Byte serializedState[], size_t size);
typedef fmi2Status fmi2DeSerializeFMUstateTYPE(fmi2Component c,
                                               const fmi2Byte serializedState[], size_t size,
                                               fmi2FMUstate *FMUstate);

/* Partial derivatives (section 2.1.9) */
typedef fmi2Status fmi2GetDirectionalDerivativeTYPE(fmi2Component c,
                                                    const fmi2ValueReference vUnknown_ref[],
                                                    size_t nUnknown,
                                                    const fmi2ValueReference vKnown_ref[],
                                                    size_t nKnown, const fmi2Real dvKnown[],
                                                    fmi2Real dvUnknown[]);

/* Model exchange (section 3.2) */
typedef fmi2Status fmi2EnterEventModeTYPE(fmi2Component c);
typedef fmi2Status fmi2NewDiscreteStatesTYPE(fmi2Component c, fmi2EventInfo *fmi2eventInfo);
typedef fmi2Status fmi2EnterContinuousTimeModeTYPE(fmi2Component c);
typedef fmi2Status fmi2CompletedIntegratorStepTYPE(fmi2Component c,
                                                   fmi2Boolean noSetFMUStatePriorToCurrentPoint,
                                                   fmi2Boolean *enterEventMode,
                                                   fmi2Boolean *terminateSimulation);
typedef fmi2Status fmi2SetTimeTYPE(fmi2Component c, fmi2Real time);
typedef fmi2Status fmi2SetContinuousStatesTYPE(fmi2Component c, const fmi2Real x[], size_t nx);
typedef fmi2Status fmi2GetDerivativesTYPE(fmi2Component c, fmi2Real derivatives[], size_t nx);
typedef fmi2Status fmi2GetEventIndicatorsTYPE(fmi2Component c, fmi2Real eventIndicators[],
                                              size_t ni);
typedef fmi2Status fmi2GetContinuousStatesTYPE(fmi2Component c, fmi2Real x[], size_t nx);
typedef fmi2Status fmi2GetNominalsOfContinuousStatesTYPE(fmi2Component c, fmi2Real x_nominal[],
                                                         size_t nx);

/* Co-simulation (section 4.2) */
typedef fmi2Status fmi2SetRealInputDerivativesTYPE(fmi2Component c,
                                                   const fmi2ValueReference vr[], size_t nvr,
                                                   const fmi2Integer order[],
                                                   const fmi2Real value[]);
typedef fmi2Status fmi2GetRealOutputDerivativesTYPE(fmi2Component c,
                                                    const fmi2ValueReference vr[], size_t nvr,
                                                    const fmi2Integer order[],
                                                    fmi2Real value[]);
typedef fmi2Status fmi2DoStepTYPE(fmi2Component c, fmi2Real currentCommunicationPoint,
                                  fmi2Real communicationStepSize,
                                  fmi2Boolean noSetFMUStatePriorToCurrentPoint);
typedef fmi2Status fmi2CancelStepTYPE(fmi2Component c);
typedef fmi2Status fmi2GetStatusTYPE(fmi2Component c, const fmi2StatusKind s,
                                     fmi2Status *value);
typedef fmi2Status fmi2GetRealStatusTYPE(fmi2Component c, const fmi2StatusKind s,
                                         fmi2Real *value);
typedef fmi2Status fmi2GetIntegerStatusTYPE(fmi2Component c, const fmi2StatusKind s,
                                            fmi2Integer *value);
typedef fmi2Status fmi2GetBooleanStatusTYPE(fmi2Component c, const fmi2StatusKind s,
                                            fmi2Boolean *value);
typedef fmi2Status fmi2GetStringStatusTYPE(fmi2Component c, const fmi2StatusKind s,
                                           fmi2String *value);

/* Every FMI 2.0 function by name, for X-macro use (X(name) per function):
 * the importer resolves symbols from these lists, an FMU declares its exports. */
#define RTCOSIM_FMI2_COMMON_FUNCTIONS(X)                                                   \
    X(fmi2GetTypesPlatform) X(fmi2GetVersion) X(fmi2SetDebugLogging) X(fmi2Instantiate)    \
    X(fmi2FreeInstance) X(fmi2SetupExperiment) X(fmi2EnterInitializationMode)              \
    X(fmi2ExitInitializationMode) X(fmi2Terminate) X(fmi2Reset) X(fmi2GetReal)             \
    X(fmi2GetInteger) X(fmi2GetBoolean) X(fmi2GetString) X(fmi2SetReal) X(fmi2SetInteger)  \
    X(fmi2SetBoolean) X(fmi2SetString) X(fmi2GetFMUstate) X(fmi2SetFMUstate)               \
    X(fmi2FreeFMUstate) X(fmi2SerializedFMUstateSize) X(fmi2SerializeFMUstate)             \
    X(fmi2DeSerializeFMUstate) X(fmi2GetDirectionalDerivative)
#define RTCOSIM_FMI2_ME_FUNCTIONS(X)                                                       \
    X(fmi2EnterEventMode) X(fmi2NewDiscreteStates) X(fmi2EnterContinuousTimeMode)          \
    X(fmi2CompletedIntegratorStep) X(fmi2SetTime) X(fmi2SetContinuousStates)              \
    X(fmi2GetDerivatives) X(fmi2GetEventIndicators) X(fmi2GetContinuousStates)            \
    X(fmi2GetNominalsOfContinuousStates)
#define RTCOSIM_FMI2_CS_FUNCTIONS(X)                                                       \
    X(fmi2SetRealInputDerivatives) X(fmi2GetRealOutputDerivatives) X(fmi2DoStep)          \
    X(fmi2CancelStep) X(fmi2GetStatus) X(fmi2GetRealStatus) X(fmi2GetIntegerStatus)       \
    X(fmi2GetBooleanStatus) X(fmi2GetStringStatus)

/* ---- Prototypes for FMU implementations ----
 * An FMU's source defines RTCOSIM_FMI2_FUNCTION_PROTOTYPES before including
 * this header; every exported function is then declared as
 *     fmi2Status fmi2DoStep(fmi2Component, fmi2Real, fmi2Real, fmi2Boolean);
 * (through its function type) with default visibility, so a definition with a
 * wrong signature fails to compile and the symbol is exported even when the
 * FMU is built with -fvisibility=hidden. */
#ifdef RTCOSIM_FMI2_FUNCTION_PROTOTYPES
#if defined(__GNUC__)
#define FMI2_Export __attribute__((visibility("default")))
#else
#define FMI2_Export
#endif
#define RTCOSIM_FMI2_DECLARE_(name) FMI2_Export name##TYPE name;
RTCOSIM_FMI2_COMMON_FUNCTIONS(RTCOSIM_FMI2_DECLARE_)
RTCOSIM_FMI2_ME_FUNCTIONS(RTCOSIM_FMI2_DECLARE_)
RTCOSIM_FMI2_CS_FUNCTIONS(RTCOSIM_FMI2_DECLARE_)
#undef RTCOSIM_FMI2_DECLARE_
#endif

#ifdef __cplusplus
}
#endif
#endif
