/* FMI 3.0 types and function signatures (FMI 3.0.x standard, sections 2.2.1-2.3 and
 * 3.2, 4.2, 5.2), written for rtcosim from the documented signatures.
 * The importer uses the function types through pointers resolved with dlsym; an
 * FMU written in C defines RTCOSIM_FMI3_FUNCTION_PROTOTYPES before including
 * this header so that the compiler checks its definitions of fmi3DoStep etc.
 * against the standard's signatures and exports them. */
#ifndef RTCOSIM_FMI_API_FMI3_H
#define RTCOSIM_FMI_API_FMI3_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Platform types (section 2.2.2) ---- */
#define fmi3Version "3.0"

typedef void *fmi3Instance;            /* instance handle, owned by the FMU */
typedef void *fmi3InstanceEnvironment; /* importer's context, handed to callbacks */
typedef void *fmi3FMUState;            /* state snapshot, owned by the FMU */
typedef uint32_t fmi3ValueReference;

typedef float fmi3Float32;
typedef double fmi3Float64;
typedef int8_t fmi3Int8;
typedef uint8_t fmi3UInt8;
typedef int16_t fmi3Int16;
typedef uint16_t fmi3UInt16;
typedef int32_t fmi3Int32;
typedef uint32_t fmi3UInt32;
typedef int64_t fmi3Int64;
typedef uint64_t fmi3UInt64;
typedef bool fmi3Boolean;
typedef char fmi3Char;
typedef const fmi3Char *fmi3String;
typedef uint8_t fmi3Byte;
typedef const fmi3Byte *fmi3Binary;
typedef bool fmi3Clock;

#define fmi3True true
#define fmi3False false
#define fmi3ClockActive true
#define fmi3ClockInactive false

/* ---- Enumerations (section 2.2.3) ---- */
typedef enum fmi3Status {
    fmi3OK,
    fmi3Warning,
    fmi3Discard,
    fmi3Error,
    fmi3Fatal
} fmi3Status;

typedef enum fmi3Type {
    fmi3ModelExchange,
    fmi3CoSimulation,
    fmi3ScheduledExecution
} fmi3Type;

typedef enum fmi3DependencyKind {
    fmi3Independent,
    fmi3Constant,
    fmi3Fixed,
    fmi3Tunable,
    fmi3Discrete,
    fmi3Dependent
} fmi3DependencyKind;

typedef enum fmi3IntervalQualifier {
    fmi3IntervalNotYetKnown,
    fmi3IntervalUnchanged,
    fmi3IntervalChanged
} fmi3IntervalQualifier;

/* ---- Callbacks (section 2.3.1, 4.2.2, 5.2.1) ---- */
typedef void (*fmi3LogMessageCallback)(fmi3InstanceEnvironment instanceEnvironment,
                                       fmi3Status status, fmi3String category,
                                       fmi3String message);
typedef void (*fmi3ClockUpdateCallback)(fmi3InstanceEnvironment instanceEnvironment);
typedef void (*fmi3IntermediateUpdateCallback)(fmi3InstanceEnvironment instanceEnvironment,
                                               fmi3Float64 intermediateUpdateTime,
                                               fmi3Boolean intermediateVariableSetRequested,
                                               fmi3Boolean intermediateVariableGetAllowed,
                                               fmi3Boolean intermediateStepFinished,
                                               fmi3Boolean canReturnEarly,
                                               fmi3Boolean *earlyReturnRequested,
                                               fmi3Float64 *earlyReturnTime);
typedef void (*fmi3LockPreemptionCallback)(void);
typedef void (*fmi3UnlockPreemptionCallback)(void);

/* ---- Function types. Use `fmi3XTYPE *` for a pointer to fmi3X. ---- */

/* Inquire version, logging (section 2.3.2) */
typedef const char *fmi3GetVersionTYPE(void);
typedef fmi3Status fmi3SetDebugLoggingTYPE(fmi3Instance instance, fmi3Boolean loggingOn,
                                           size_t nCategories, const fmi3String categories[]);

/* Creation and destruction (section 2.3.1) */
typedef fmi3Instance fmi3InstantiateModelExchangeTYPE(fmi3String instanceName,
                                                      fmi3String instantiationToken,
                                                      fmi3String resourcePath,
                                                      fmi3Boolean visible,
                                                      fmi3Boolean loggingOn,
                                                      fmi3InstanceEnvironment instanceEnvironment,
                                                      fmi3LogMessageCallback logMessage);
typedef fmi3Instance fmi3InstantiateCoSimulationTYPE(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath,
    fmi3Boolean visible, fmi3Boolean loggingOn, fmi3Boolean eventModeUsed,
    fmi3Boolean earlyReturnAllowed, const fmi3ValueReference requiredIntermediateVariables[],
    size_t nRequiredIntermediateVariables, fmi3InstanceEnvironment instanceEnvironment,
    fmi3LogMessageCallback logMessage, fmi3IntermediateUpdateCallback intermediateUpdate);
typedef fmi3Instance fmi3InstantiateScheduledExecutionTYPE(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath,
    fmi3Boolean visible, fmi3Boolean loggingOn, fmi3InstanceEnvironment instanceEnvironment,
    fmi3LogMessageCallback logMessage, fmi3ClockUpdateCallback clockUpdate,
    fmi3LockPreemptionCallback lockPreemption, fmi3UnlockPreemptionCallback unlockPreemption);
typedef void fmi3FreeInstanceTYPE(fmi3Instance instance);

/* Initialization, termination, reset (section 2.3.3-2.3.4) */
typedef fmi3Status fmi3EnterInitializationModeTYPE(fmi3Instance instance,
                                                   fmi3Boolean toleranceDefined,
                                                   fmi3Float64 tolerance, fmi3Float64 startTime,
                                                   fmi3Boolean stopTimeDefined,
                                                   fmi3Float64 stopTime);
typedef fmi3Status fmi3ExitInitializationModeTYPE(fmi3Instance instance);
typedef fmi3Status fmi3EnterEventModeTYPE(fmi3Instance instance);
typedef fmi3Status fmi3TerminateTYPE(fmi3Instance instance);
typedef fmi3Status fmi3ResetTYPE(fmi3Instance instance);

/* Getting and setting values (section 2.3.5). The getters and setters of the
 * numeric types share one shape; the macro only spells the types out. */
#define RTCOSIM_FMI3_GETSET_TYPES_(T)                                                        \
    typedef fmi3Status fmi3Get##T##TYPE(fmi3Instance instance,                               \
                                        const fmi3ValueReference valueReferences[],          \
                                        size_t nValueReferences, fmi3##T values[],           \
                                        size_t nValues);                                     \
    typedef fmi3Status fmi3Set##T##TYPE(fmi3Instance instance,                               \
                                        const fmi3ValueReference valueReferences[],          \
                                        size_t nValueReferences, const fmi3##T values[],     \
                                        size_t nValues);
RTCOSIM_FMI3_GETSET_TYPES_(Float32)
RTCOSIM_FMI3_GETSET_TYPES_(Float64)
RTCOSIM_FMI3_GETSET_TYPES_(Int8)
RTCOSIM_FMI3_GETSET_TYPES_(UInt8)
RTCOSIM_FMI3_GETSET_TYPES_(Int16)
RTCOSIM_FMI3_GETSET_TYPES_(UInt16)
RTCOSIM_FMI3_GETSET_TYPES_(Int32)
RTCOSIM_FMI3_GETSET_TYPES_(UInt32)
RTCOSIM_FMI3_GETSET_TYPES_(Int64)
RTCOSIM_FMI3_GETSET_TYPES_(UInt64)
RTCOSIM_FMI3_GETSET_TYPES_(Boolean)
RTCOSIM_FMI3_GETSET_TYPES_(String)
#undef RTCOSIM_FMI3_GETSET_TYPES_

typedef fmi3Status fmi3GetBinaryTYPE(fmi3Instance instance,
                                     const fmi3ValueReference valueReferences[],
                                     size_t nValueReferences, size_t valueSizes[],
                                     fmi3Binary values[], size_t nValues);
typedef fmi3Status fmi3SetBinaryTYPE(fmi3Instance instance,
                                     const fmi3ValueReference valueReferences[],
                                     size_t nValueReferences, const size_t valueSizes[],
                                     const fmi3Binary values[], size_t nValues);
typedef fmi3Status fmi3GetClockTYPE(fmi3Instance instance,
                                    const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences, fmi3Clock values[]);
typedef fmi3Status fmi3SetClockTYPE(fmi3Instance instance,
                                    const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences, const fmi3Clock values[]);

/* Variable dependencies (section 2.3.10) */
typedef fmi3Status fmi3GetNumberOfVariableDependenciesTYPE(fmi3Instance instance,
                                                           fmi3ValueReference valueReference,
                                                           size_t *nDependencies);
typedef fmi3Status fmi3GetVariableDependenciesTYPE(fmi3Instance instance,
                                                   fmi3ValueReference dependent,
                                                   size_t elementIndicesOfDependent[],
                                                   fmi3ValueReference independents[],
                                                   size_t elementIndicesOfIndependents[],
                                                   fmi3DependencyKind dependencyKinds[],
                                                   size_t nDependencies);

/* FMU state (section 2.3.8) */
typedef fmi3Status fmi3GetFMUStateTYPE(fmi3Instance instance, fmi3FMUState *FMUState);
typedef fmi3Status fmi3SetFMUStateTYPE(fmi3Instance instance, fmi3FMUState FMUState);
typedef fmi3Status fmi3FreeFMUStateTYPE(fmi3Instance instance, fmi3FMUState *FMUState);
typedef fmi3Status fmi3SerializedFMUStateSizeTYPE(fmi3Instance instance,
                                                  fmi3FMUState FMUState, size_t *size);
typedef fmi3Status fmi3SerializeFMUStateTYPE(fmi3Instance instance, fmi3FMUState FMUState,
                                             fmi3Byte serializedState[], size_t size);
typedef fmi3Status fmi3DeserializeFMUStateTYPE(fmi3Instance instance,
                                               const fmi3Byte serializedState[], size_t size,
                                               fmi3FMUState *FMUState);

/* Partial derivatives (section 2.3.11) */
typedef fmi3Status fmi3GetDirectionalDerivativeTYPE(
    fmi3Instance instance, const fmi3ValueReference unknowns[], size_t nUnknowns,
    const fmi3ValueReference knowns[], size_t nKnowns, const fmi3Float64 seed[], size_t nSeed,
    fmi3Float64 sensitivity[], size_t nSensitivity);
typedef fmi3Status fmi3GetAdjointDerivativeTYPE(
    fmi3Instance instance, const fmi3ValueReference unknowns[], size_t nUnknowns,
    const fmi3ValueReference knowns[], size_t nKnowns, const fmi3Float64 seed[], size_t nSeed,
    fmi3Float64 sensitivity[], size_t nSensitivity);

/* Configuration mode (section 2.3.6) */
typedef fmi3Status fmi3EnterConfigurationModeTYPE(fmi3Instance instance);
typedef fmi3Status fmi3ExitConfigurationModeTYPE(fmi3Instance instance);

/* Clocks (section 2.3.7) */
typedef fmi3Status fmi3GetIntervalDecimalTYPE(fmi3Instance instance,
                                              const fmi3ValueReference valueReferences[],
                                              size_t nValueReferences, fmi3Float64 intervals[],
                                              fmi3IntervalQualifier qualifiers[]);
typedef fmi3Status fmi3GetIntervalFractionTYPE(fmi3Instance instance,
                                               const fmi3ValueReference valueReferences[],
                                               size_t nValueReferences,
                                               fmi3UInt64 counters[], fmi3UInt64 resolutions[],
                                               fmi3IntervalQualifier qualifiers[]);
typedef fmi3Status fmi3GetShiftDecimalTYPE(fmi3Instance instance,
                                           const fmi3ValueReference valueReferences[],
                                           size_t nValueReferences, fmi3Float64 shifts[]);
typedef fmi3Status fmi3GetShiftFractionTYPE(fmi3Instance instance,
                                            const fmi3ValueReference valueReferences[],
                                            size_t nValueReferences, fmi3UInt64 counters[],
                                            fmi3UInt64 resolutions[]);
typedef fmi3Status fmi3SetIntervalDecimalTYPE(fmi3Instance instance,
                                              const fmi3ValueReference valueReferences[],
                                              size_t nValueReferences,
                                              const fmi3Float64 intervals[]);
typedef fmi3Status fmi3SetIntervalFractionTYPE(fmi3Instance instance,
                                               const fmi3ValueReference valueReferences[],
                                               size_t nValueReferences,
                                               const fmi3UInt64 counters[],
                                               const fmi3UInt64 resolutions[]);
typedef fmi3Status fmi3SetShiftDecimalTYPE(fmi3Instance instance,
                                           const fmi3ValueReference valueReferences[],
                                           size_t nValueReferences,
                                           const fmi3Float64 shifts[]);
typedef fmi3Status fmi3SetShiftFractionTYPE(fmi3Instance instance,
                                            const fmi3ValueReference valueReferences[],
                                            size_t nValueReferences,
                                            const fmi3UInt64 counters[],
                                            const fmi3UInt64 resolutions[]);
typedef fmi3Status fmi3EvaluateDiscreteStatesTYPE(fmi3Instance instance);
typedef fmi3Status fmi3UpdateDiscreteStatesTYPE(fmi3Instance instance,
                                                fmi3Boolean *discreteStatesNeedUpdate,
                                                fmi3Boolean *terminateSimulation,
                                                fmi3Boolean *nominalsOfContinuousStatesChanged,
                                                fmi3Boolean *valuesOfContinuousStatesChanged,
                                                fmi3Boolean *nextEventTimeDefined,
                                                fmi3Float64 *nextEventTime);

/* Model exchange (section 3.2) */
typedef fmi3Status fmi3EnterContinuousTimeModeTYPE(fmi3Instance instance);
typedef fmi3Status fmi3CompletedIntegratorStepTYPE(fmi3Instance instance,
                                                   fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                                   fmi3Boolean *enterEventMode,
                                                   fmi3Boolean *terminateSimulation);
typedef fmi3Status fmi3SetTimeTYPE(fmi3Instance instance, fmi3Float64 time);
typedef fmi3Status fmi3SetContinuousStatesTYPE(fmi3Instance instance,
                                               const fmi3Float64 continuousStates[],
                                               size_t nContinuousStates);
typedef fmi3Status fmi3GetContinuousStateDerivativesTYPE(fmi3Instance instance,
                                                         fmi3Float64 derivatives[],
                                                         size_t nContinuousStates);
typedef fmi3Status fmi3GetEventIndicatorsTYPE(fmi3Instance instance,
                                              fmi3Float64 eventIndicators[],
                                              size_t nEventIndicators);
typedef fmi3Status fmi3GetContinuousStatesTYPE(fmi3Instance instance,
                                               fmi3Float64 continuousStates[],
                                               size_t nContinuousStates);
typedef fmi3Status fmi3GetNominalsOfContinuousStatesTYPE(fmi3Instance instance,
                                                         fmi3Float64 nominals[],
                                                         size_t nContinuousStates);
typedef fmi3Status fmi3GetNumberOfEventIndicatorsTYPE(fmi3Instance instance,
                                                      size_t *nEventIndicators);
typedef fmi3Status fmi3GetNumberOfContinuousStatesTYPE(fmi3Instance instance,
                                                       size_t *nContinuousStates);

/* Co-simulation (section 4.2) */
typedef fmi3Status fmi3EnterStepModeTYPE(fmi3Instance instance);
typedef fmi3Status fmi3GetOutputDerivativesTYPE(fmi3Instance instance,
                                                const fmi3ValueReference valueReferences[],
                                                size_t nValueReferences,
                                                const fmi3Int32 orders[], fmi3Float64 values[],
                                                size_t nValues);
typedef fmi3Status fmi3DoStepTYPE(fmi3Instance instance, fmi3Float64 currentCommunicationPoint,
                                  fmi3Float64 communicationStepSize,
                                  fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                  fmi3Boolean *eventHandlingNeeded,
                                  fmi3Boolean *terminateSimulation, fmi3Boolean *earlyReturn,
                                  fmi3Float64 *lastSuccessfulTime);

/* Scheduled execution (section 5.2) */
typedef fmi3Status fmi3ActivateModelPartitionTYPE(fmi3Instance instance,
                                                  fmi3ValueReference clockReference,
                                                  fmi3Float64 activationTime);

/* Every FMI 3.0 function by name, for X-macro use (X(name) per function):
 * the importer resolves symbols from these lists, an FMU declares its exports. */
#define RTCOSIM_FMI3_COMMON_FUNCTIONS(X)                                                   \
    X(fmi3GetVersion) X(fmi3SetDebugLogging) X(fmi3InstantiateModelExchange)               \
    X(fmi3InstantiateCoSimulation) X(fmi3InstantiateScheduledExecution)                    \
    X(fmi3FreeInstance) X(fmi3EnterInitializationMode) X(fmi3ExitInitializationMode)       \
    X(fmi3EnterEventMode) X(fmi3Terminate) X(fmi3Reset)                                     \
    X(fmi3GetFloat32) X(fmi3GetFloat64) X(fmi3GetInt8) X(fmi3GetUInt8) X(fmi3GetInt16)     \
    X(fmi3GetUInt16) X(fmi3GetInt32) X(fmi3GetUInt32) X(fmi3GetInt64) X(fmi3GetUInt64)     \
    X(fmi3GetBoolean) X(fmi3GetString) X(fmi3GetBinary) X(fmi3GetClock)                    \
    X(fmi3SetFloat32) X(fmi3SetFloat64) X(fmi3SetInt8) X(fmi3SetUInt8) X(fmi3SetInt16)     \
    X(fmi3SetUInt16) X(fmi3SetInt32) X(fmi3SetUInt32) X(fmi3SetInt64) X(fmi3SetUInt64)     \
    X(fmi3SetBoolean) X(fmi3SetString) X(fmi3SetBinary) X(fmi3SetClock)                    \
    X(fmi3GetNumberOfVariableDependencies) X(fmi3GetVariableDependencies)                  \
    X(fmi3GetFMUState) X(fmi3SetFMUState) X(fmi3FreeFMUState)                              \
    X(fmi3SerializedFMUStateSize) X(fmi3SerializeFMUState) X(fmi3DeserializeFMUState)      \
    X(fmi3GetDirectionalDerivative) X(fmi3GetAdjointDerivative)                            \
    X(fmi3EnterConfigurationMode) X(fmi3ExitConfigurationMode)                             \
    X(fmi3GetIntervalDecimal) X(fmi3GetIntervalFraction) X(fmi3GetShiftDecimal)            \
    X(fmi3GetShiftFraction) X(fmi3SetIntervalDecimal) X(fmi3SetIntervalFraction)           \
    X(fmi3SetShiftDecimal) X(fmi3SetShiftFraction) X(fmi3EvaluateDiscreteStates)           \
    X(fmi3UpdateDiscreteStates)
#define RTCOSIM_FMI3_ME_FUNCTIONS(X)                                                       \
    X(fmi3EnterContinuousTimeMode) X(fmi3CompletedIntegratorStep) X(fmi3SetTime)           \
    X(fmi3SetContinuousStates) X(fmi3GetContinuousStateDerivatives)                        \
    X(fmi3GetEventIndicators) X(fmi3GetContinuousStates)                                   \
    X(fmi3GetNominalsOfContinuousStates) X(fmi3GetNumberOfEventIndicators)                 \
    X(fmi3GetNumberOfContinuousStates)
#define RTCOSIM_FMI3_CS_FUNCTIONS(X)                                                       \
    X(fmi3EnterStepMode) X(fmi3GetOutputDerivatives) X(fmi3DoStep)
#define RTCOSIM_FMI3_SE_FUNCTIONS(X) X(fmi3ActivateModelPartition)

/* ---- Prototypes for FMU implementations ----
 * An FMU's source defines RTCOSIM_FMI3_FUNCTION_PROTOTYPES before including
 * this header; every exported function is then declared, e.g.
 *     fmi3Status fmi3DoStep(fmi3Instance, fmi3Float64, fmi3Float64, fmi3Boolean,
 *                           fmi3Boolean *, fmi3Boolean *, fmi3Boolean *, fmi3Float64 *);
 * (through its function type) with default visibility, so a definition with a
 * wrong signature fails to compile and the symbol is exported even when the
 * FMU is built with -fvisibility=hidden. */
#ifdef RTCOSIM_FMI3_FUNCTION_PROTOTYPES
#if defined(FMI3_Export)
/* (the FMU's own: a test FMU exporting prefixed aliases hides these) */
#elif defined(__GNUC__)
#define FMI3_Export __attribute__((visibility("default")))
#else
#define FMI3_Export
#endif
#define RTCOSIM_FMI3_DECLARE_(name) FMI3_Export name##TYPE name;
RTCOSIM_FMI3_COMMON_FUNCTIONS(RTCOSIM_FMI3_DECLARE_)
RTCOSIM_FMI3_ME_FUNCTIONS(RTCOSIM_FMI3_DECLARE_)
RTCOSIM_FMI3_CS_FUNCTIONS(RTCOSIM_FMI3_DECLARE_)
RTCOSIM_FMI3_SE_FUNCTIONS(RTCOSIM_FMI3_DECLARE_)
#undef RTCOSIM_FMI3_DECLARE_
#endif

#ifdef __cplusplus
}
#endif
#endif
