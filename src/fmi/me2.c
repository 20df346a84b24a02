/* FMI 2.0 model exchange (FMI 2.0 chapter 3) for the integrator: the ME
 * functions of the binary behind the version-neutral call table of me.h,
 * each call's status mapped (with the time) and optionally traced. */
#include <math.h>

#include "fmi/me.h"

#define NO_TIME NAN

static rtcosim_status set_time(rtcosim_fmu *f, double t, rtcosim_error *err)
{
    fmi2Status s = f->fmi2.fmi2SetTime(f->instance, t);
    RTCOSIM_FMU_TRACE(f, "fmi2SetTime", s, "%.17g", t);
    return rtcosim_fmu_status(f, s, "fmi2SetTime", t, err);
}

/* The calls that pass one array of n reals. */
#define ARRAY_CALL(fn_name, function, qualifier)                                           \
    static rtcosim_status fn_name(rtcosim_fmu *f, qualifier double *x, size_t n,           \
                                  rtcosim_error *err)                                      \
    {                                                                                      \
        fmi2Status s = f->fmi2.function(f->instance, x, n);                                \
        RTCOSIM_FMU_TRACE(f, #function, s, "n=%zu", n);                                    \
        return rtcosim_fmu_status(f, s, #function, NO_TIME, err);                          \
    }
ARRAY_CALL(set_states, fmi2SetContinuousStates, const)
ARRAY_CALL(get_states, fmi2GetContinuousStates, )
ARRAY_CALL(get_derivatives, fmi2GetDerivatives, )
ARRAY_CALL(get_event_indicators, fmi2GetEventIndicators, )
ARRAY_CALL(get_nominals, fmi2GetNominalsOfContinuousStates, )
#undef ARRAY_CALL

static rtcosim_status enter_event_mode(rtcosim_fmu *f, rtcosim_error *err)
{
    fmi2Status s = f->fmi2.fmi2EnterEventMode(f->instance);
    RTCOSIM_FMU_TRACE(f, "fmi2EnterEventMode", s, "%s", "");
    return rtcosim_fmu_status(f, s, "fmi2EnterEventMode", NO_TIME, err);
}

static rtcosim_status enter_continuous_time_mode(rtcosim_fmu *f, rtcosim_error *err)
{
    fmi2Status s = f->fmi2.fmi2EnterContinuousTimeMode(f->instance);
    RTCOSIM_FMU_TRACE(f, "fmi2EnterContinuousTimeMode", s, "%s", "");
    return rtcosim_fmu_status(f, s, "fmi2EnterContinuousTimeMode", NO_TIME, err);
}

static rtcosim_status update_discrete_states(rtcosim_fmu *f, rtcosim_me_event_info *info,
                                             rtcosim_error *err)
{
    fmi2EventInfo e = {0};
    fmi2Status s = f->fmi2.fmi2NewDiscreteStates(f->instance, &e);
    RTCOSIM_FMU_TRACE(f, "fmi2NewDiscreteStates", s,
                      "-> newDiscreteStatesNeeded=%d, terminateSimulation=%d, "
                      "valuesOfContinuousStatesChanged=%d, nextEventTimeDefined=%d, "
                      "nextEventTime=%.17g",
                      e.newDiscreteStatesNeeded, e.terminateSimulation,
                      e.valuesOfContinuousStatesChanged, e.nextEventTimeDefined, e.nextEventTime);
    *info = (rtcosim_me_event_info){
        .discrete_states_need_update = e.newDiscreteStatesNeeded != fmi2False,
        .terminate_simulation = e.terminateSimulation != fmi2False,
        .nominals_changed = e.nominalsOfContinuousStatesChanged != fmi2False,
        .values_changed = e.valuesOfContinuousStatesChanged != fmi2False,
        .next_event_time_defined = e.nextEventTimeDefined != fmi2False,
        .next_event_time = e.nextEventTime};
    return rtcosim_fmu_status(f, s, "fmi2NewDiscreteStates", NO_TIME, err);
}

static rtcosim_status completed_integrator_step(rtcosim_fmu *f, bool no_prior, bool *enter_event,
                                                bool *terminate, rtcosim_error *err)
{
    fmi2Boolean event = fmi2False, stop = fmi2False;
    fmi2Status s = f->fmi2.fmi2CompletedIntegratorStep(f->instance, no_prior, &event, &stop);
    RTCOSIM_FMU_TRACE(f, "fmi2CompletedIntegratorStep", s,
                      "noSetFMUStatePriorToCurrentPoint=%d -> enterEventMode=%d, "
                      "terminateSimulation=%d",
                      no_prior, event, stop);
    *enter_event = event != fmi2False;
    *terminate = stop != fmi2False;
    return rtcosim_fmu_status(f, s, "fmi2CompletedIntegratorStep", NO_TIME, err);
}

static const rtcosim_me_calls fmi2_me_calls = {
    .set_time = set_time,
    .set_states = set_states,
    .get_states = get_states,
    .get_derivatives = get_derivatives,
    .get_event_indicators = get_event_indicators,
    .get_nominals = get_nominals,
    .enter_event_mode = enter_event_mode,
    .update_discrete_states = update_discrete_states,
    .enter_continuous_time_mode = enter_continuous_time_mode,
    .completed_integrator_step = completed_integrator_step,
};

rtcosim_status rtcosim_fmi2_me_prepare(rtcosim_fmu *f, const rtcosim_fmu_options *opts,
                                       rtcosim_error *err)
{
#define REQUIRE(name)                                                                      \
    if (!f->fmi2.name)                                                                     \
        return rtcosim_fmu_lacks(f, #name, err);
    RTCOSIM_FMI2_ME_FUNCTIONS(REQUIRE)
#undef REQUIRE
    return rtcosim_me_attach(f, &fmi2_me_calls, opts, err);
}
