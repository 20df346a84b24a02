/* FMI 1.0 types and function signatures (FMI for Model Exchange 1.0, sections
 * 3.2-3.4, and FMI for Co-Simulation 1.0, sections 3.3-3.5), written for
 * rtcosim from the documented signatures. The type names carry "fmi1" so that
 * they never clash with the 2.0 header; the ABI is the standard's. An FMI 1.0
 * binary exports every function as MODELIDENTIFIER_fmiName (e.g.
 * "dahlquist_fmiDoStep"): the X-macro lists give the name after the prefix. */
#ifndef RTCOSIM_FMI_API_FMI1_H
#define RTCOSIM_FMI_API_FMI1_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Platform types (fmiPlatformTypes.h / fmiModelTypes.h, "standard32") ---- */
#define fmi1Platform "standard32"
#define fmi1Version "1.0"

typedef void *fmi1Component;
typedef unsigned int fmi1ValueReference;
typedef double fmi1Real;
typedef int fmi1Integer;
typedef char fmi1Boolean; /* a char in FMI 1.0 (int in 2.0) */
typedef const char *fmi1String;

#define fmi1True 1
#define fmi1False 0
#define fmi1UndefinedValueReference ((fmi1ValueReference)(-1))

/* fmiStatus: fmiPending only in co-simulation (asynchronous doStep). */
typedef enum fmi1Status {
    fmi1OK,
    fmi1Warning,
    fmi1Discard,
    fmi1Error,
    fmi1Fatal,
    fmi1Pending
} fmi1Status;

/* Callbacks. The logger is variadic: the message is a printf format. */
typedef void (*fmi1CallbackLogger)(fmi1Component c, fmi1String instanceName, fmi1Status status,
                                   fmi1String category, fmi1String message, ...);
typedef void *(*fmi1CallbackAllocateMemory)(size_t nobj, size_t size);
typedef void (*fmi1CallbackFreeMemory)(void *obj);
typedef void (*fmi1StepFinished)(fmi1Component c, fmi1Status status);

/* Model exchange passes three callbacks, co-simulation four (both by value). */
typedef struct fmi1MECallbackFunctions {
    fmi1CallbackLogger logger;
    fmi1CallbackAllocateMemory allocateMemory;
    fmi1CallbackFreeMemory freeMemory;
} fmi1MECallbackFunctions;

typedef struct fmi1CallbackFunctions {
    fmi1CallbackLogger logger;
    fmi1CallbackAllocateMemory allocateMemory;
    fmi1CallbackFreeMemory freeMemory;
    fmi1StepFinished stepFinished;
} fmi1CallbackFunctions;

/* Model exchange: filled by fmiInitialize and fmiEventUpdate. */
typedef struct fmi1EventInfo {
    fmi1Boolean iterationConverged;
    fmi1Boolean stateValueReferencesChanged;
    fmi1Boolean stateValuesChanged;
    fmi1Boolean terminateSimulation;
    fmi1Boolean upcomingTimeEvent;
    fmi1Real nextEventTime;
} fmi1EventInfo;

/* Co-simulation: what fmiGetXxxStatus asks about. */
typedef enum fmi1StatusKind {
    fmi1DoStepStatus,
    fmi1PendingStatus,
    fmi1LastSuccessfulTime
} fmi1StatusKind;

/* ---- Functions common to both interfaces ---- */
typedef const char *fmi1GetVersionTYPE(void);
typedef fmi1Status fmi1SetDebugLoggingTYPE(fmi1Component c, fmi1Boolean loggingOn);
typedef fmi1Status fmi1SetRealTYPE(fmi1Component c, const fmi1ValueReference vr[], size_t nvr,
                                   const fmi1Real value[]);
typedef fmi1Status fmi1SetIntegerTYPE(fmi1Component c, const fmi1ValueReference vr[], size_t nvr,
                                      const fmi1Integer value[]);
typedef fmi1Status fmi1SetBooleanTYPE(fmi1Component c, const fmi1ValueReference vr[], size_t nvr,
                                      const fmi1Boolean value[]);
typedef fmi1Status fmi1SetStringTYPE(fmi1Component c, const fmi1ValueReference vr[], size_t nvr,
                                     const fmi1String value[]);
typedef fmi1Status fmi1GetRealTYPE(fmi1Component c, const fmi1ValueReference vr[], size_t nvr,
                                   fmi1Real value[]);
typedef fmi1Status fmi1GetIntegerTYPE(fmi1Component c, const fmi1ValueReference vr[], size_t nvr,
                                      fmi1Integer value[]);
typedef fmi1Status fmi1GetBooleanTYPE(fmi1Component c, const fmi1ValueReference vr[], size_t nvr,
                                      fmi1Boolean value[]);
typedef fmi1Status fmi1GetStringTYPE(fmi1Component c, const fmi1ValueReference vr[], size_t nvr,
                                     fmi1String value[]);

/* ---- Co-simulation (FMI for Co-Simulation 1.0, section 3.4-3.5) ---- */
typedef const char *fmi1GetTypesPlatformTYPE(void);
typedef fmi1Component fmi1InstantiateSlaveTYPE(fmi1String instanceName, fmi1String fmuGUID,
                                               fmi1String fmuLocation, fmi1String mimeType,
                                               fmi1Real timeout, fmi1Boolean visible,
                                               fmi1Boolean interactive,
                                               fmi1CallbackFunctions functions,
                                               fmi1Boolean loggingOn);
typedef fmi1Status fmi1InitializeSlaveTYPE(fmi1Component c, fmi1Real tStart,
                                           fmi1Boolean StopTimeDefined, fmi1Real tStop);
typedef fmi1Status fmi1TerminateSlaveTYPE(fmi1Component c);
typedef fmi1Status fmi1ResetSlaveTYPE(fmi1Component c);
typedef void fmi1FreeSlaveInstanceTYPE(fmi1Component c);
typedef fmi1Status fmi1SetRealInputDerivativesTYPE(fmi1Component c, const fmi1ValueReference vr[],
                                                   size_t nvr, const fmi1Integer order[],
                                                   const fmi1Real value[]);
typedef fmi1Status fmi1GetRealOutputDerivativesTYPE(fmi1Component c, const fmi1ValueReference vr[],
                                                    size_t nvr, const fmi1Integer order[],
                                                    fmi1Real value[]);
typedef fmi1Status fmi1CancelStepTYPE(fmi1Component c);
typedef fmi1Status fmi1DoStepTYPE(fmi1Component c, fmi1Real currentCommunicationPoint,
                                  fmi1Real communicationStepSize, fmi1Boolean newStep);
typedef fmi1Status fmi1GetStatusTYPE(fmi1Component c, const fmi1StatusKind s, fmi1Status *value);
typedef fmi1Status fmi1GetRealStatusTYPE(fmi1Component c, const fmi1StatusKind s, fmi1Real *value);
typedef fmi1Status fmi1GetIntegerStatusTYPE(fmi1Component c, const fmi1StatusKind s,
                                            fmi1Integer *value);
typedef fmi1Status fmi1GetBooleanStatusTYPE(fmi1Component c, const fmi1StatusKind s,
                                            fmi1Boolean *value);
typedef fmi1Status fmi1GetStringStatusTYPE(fmi1Component c, const fmi1StatusKind s,
                                           fmi1String *value);

/* ---- Model exchange (FMI for Model Exchange 1.0, section 3.3-3.4) ---- */
typedef const char *fmi1GetModelTypesPlatformTYPE(void);
typedef fmi1Component fmi1InstantiateModelTYPE(fmi1String instanceName, fmi1String GUID,
                                               fmi1MECallbackFunctions functions,
                                               fmi1Boolean loggingOn);
typedef void fmi1FreeModelInstanceTYPE(fmi1Component c);
typedef fmi1Status fmi1SetTimeTYPE(fmi1Component c, fmi1Real time);
typedef fmi1Status fmi1SetContinuousStatesTYPE(fmi1Component c, const fmi1Real x[], size_t nx);
typedef fmi1Status fmi1CompletedIntegratorStepTYPE(fmi1Component c, fmi1Boolean *callEventUpdate);
typedef fmi1Status fmi1InitializeTYPE(fmi1Component c, fmi1Boolean toleranceControlled,
                                      fmi1Real relativeTolerance, fmi1EventInfo *eventInfo);
typedef fmi1Status fmi1GetDerivativesTYPE(fmi1Component c, fmi1Real derivatives[], size_t nx);
typedef fmi1Status fmi1GetEventIndicatorsTYPE(fmi1Component c, fmi1Real eventIndicators[],
                                              size_t ni);
typedef fmi1Status fmi1EventUpdateTYPE(fmi1Component c, fmi1Boolean intermediateResults,
                                       fmi1EventInfo *eventInfo);
typedef fmi1Status fmi1GetContinuousStatesTYPE(fmi1Component c, fmi1Real states[], size_t nx);
typedef fmi1Status fmi1GetNominalContinuousStatesTYPE(fmi1Component c, fmi1Real x_nominal[],
                                                      size_t nx);
typedef fmi1Status fmi1GetStateValueReferencesTYPE(fmi1Component c, fmi1ValueReference vrx[],
                                                   size_t nx);
typedef fmi1Status fmi1TerminateTYPE(fmi1Component c);

/* X-macro lists: X(Name) for the function type fmi1NameTYPE exported as
 * MODELIDENTIFIER_fmiName. */
#define RTCOSIM_FMI1_COMMON_FUNCTIONS(X)                                                   \
    X(GetVersion) X(SetDebugLogging) X(SetReal) X(SetInteger) X(SetBoolean) X(SetString) \
    X(GetReal) X(GetInteger) X(GetBoolean) X(GetString)

#define RTCOSIM_FMI1_CS_FUNCTIONS(X)                                                        \
    X(GetTypesPlatform) X(InstantiateSlave) X(InitializeSlave) X(TerminateSlave)            \
    X(ResetSlave) X(FreeSlaveInstance) X(SetRealInputDerivatives)                           \
    X(GetRealOutputDerivatives) X(CancelStep) X(DoStep) X(GetStatus) X(GetRealStatus)       \
    X(GetIntegerStatus) X(GetBooleanStatus) X(GetStringStatus)

#define RTCOSIM_FMI1_ME_FUNCTIONS(X)                                                        \
    X(GetModelTypesPlatform) X(InstantiateModel) X(FreeModelInstance) X(SetTime)            \
    X(SetContinuousStates) X(CompletedIntegratorStep) X(Initialize) X(GetDerivatives)       \
    X(GetEventIndicators) X(EventUpdate) X(GetContinuousStates)                             \
    X(GetNominalContinuousStates) X(GetStateValueReferences) X(Terminate)

/* ---- Prototypes for FMU implementations ----
 * An FMI 1.0 FMU's source defines RTCOSIM_FMI1_MODEL_IDENTIFIER (a C
 * identifier) and RTCOSIM_FMI1_FUNCTION_PROTOTYPES before including this
 * header; RTCOSIM_FMI1_NAME(DoStep) then spells MODELIDENTIFIER_fmiDoStep and
 * each function is declared through its type with default visibility, so a
 * wrong signature fails to compile and the symbol is exported. */
#define RTCOSIM_FMI1_PASTE_(a, b) a##_fmi##b
#define RTCOSIM_FMI1_PASTE(a, b) RTCOSIM_FMI1_PASTE_(a, b)
#ifdef RTCOSIM_FMI1_MODEL_IDENTIFIER
#define RTCOSIM_FMI1_NAME(name) RTCOSIM_FMI1_PASTE(RTCOSIM_FMI1_MODEL_IDENTIFIER, name)
#endif
#if defined(RTCOSIM_FMI1_FUNCTION_PROTOTYPES) && defined(RTCOSIM_FMI1_MODEL_IDENTIFIER)
#define RTCOSIM_FMI1_PROTOTYPE_(name) \
    __attribute__((visibility("default"))) fmi1##name##TYPE RTCOSIM_FMI1_NAME(name);
RTCOSIM_FMI1_COMMON_FUNCTIONS(RTCOSIM_FMI1_PROTOTYPE_)
RTCOSIM_FMI1_CS_FUNCTIONS(RTCOSIM_FMI1_PROTOTYPE_)
RTCOSIM_FMI1_ME_FUNCTIONS(RTCOSIM_FMI1_PROTOTYPE_)
#undef RTCOSIM_FMI1_PROTOTYPE_
#endif

#ifdef __cplusplus
}
#endif

#endif
