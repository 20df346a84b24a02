/* FMI 3.0 model exchange (FMI 3.0 chapter 3) for the integrator: the ME
 * instantiation and functions of the binary behind the version-neutral call
 * table of me.h, each call's status mapped (with the time) and traced. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fmi/me.h"

#define NO_TIME NAN

static rtcosim_status me3_instantiate(void *self, const char *instance_name, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    free(f->instance_name);
    f->instance_name = strdup(instance_name);
    if (!f->instance_name)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", instance_name);
    f->instance = f->fmi3.fmi3InstantiateModelExchange(
        instance_name, f->md->instantiation_token, f->resource_location, f->visible,
        f->logging_on, f, rtcosim_fmi3_log_message);
    RTCOSIM_FMU_TRACE(f, "fmi3InstantiateModelExchange", f->instance ? fmi3OK : fmi3Error,
                      "\"%s\", \"%s\", \"%s\", visible=%d, loggingOn=%d", instance_name,
                      f->md->instantiation_token, f->resource_location, f->visible,
                      f->logging_on);
    if (!f->instance)
        return rtcosim_error_set(err, RTCOSIM_ECOMPONENT,
                                 "%s: fmi3InstantiateModelExchange failed (returned NULL)",
                                 instance_name);
    return RTCOSIM_OK;
}

static rtcosim_status set_time(rtcosim_fmu *f, double t, rtcosim_error *err)
{
    fmi3Status s = f->fmi3.fmi3SetTime(f->instance, t);
    RTCOSIM_FMU_TRACE(f, "fmi3SetTime", s, "%.17g", t);
    return rtcosim_fmu_status(f, s, "fmi3SetTime", t, err);
}

/* The calls that pass one array of n Float64 values. */
#define ARRAY_CALL(fn_name, function, qualifier)                                           \
    static rtcosim_status fn_name(rtcosim_fmu *f, qualifier double *x, size_t n,           \
                                  rtcosim_error *err)                                      \
    {                                                                                      \
        fmi3Status s = f->fmi3.function(f->instance, x, n);                                \
        RTCOSIM_FMU_TRACE(f, #function, s, "n=%zu", n);                                    \
        return rtcosim_fmu_status(f, s, #function, NO_TIME, err);                          \
    }
ARRAY_CALL(set_states, fmi3SetContinuousStates, const)
ARRAY_CALL(get_states, fmi3GetContinuousStates, )
ARRAY_CALL(get_derivatives, fmi3GetContinuousStateDerivatives, )
ARRAY_CALL(get_event_indicators, fmi3GetEventIndicators, )
ARRAY_CALL(get_nominals, fmi3GetNominalsOfContinuousStates, )
#undef ARRAY_CALL

static rtcosim_status enter_event_mode(rtcosim_fmu *f, rtcosim_error *err)
{
    fmi3Status s = f->fmi3.fmi3EnterEventMode(f->instance);
    RTCOSIM_FMU_TRACE(f, "fmi3EnterEventMode", s, "%s", "");
    return rtcosim_fmu_status(f, s, "fmi3EnterEventMode", NO_TIME, err);
}

static rtcosim_status enter_continuous_time_mode(rtcosim_fmu *f, rtcosim_error *err)
{
    fmi3Status s = f->fmi3.fmi3EnterContinuousTimeMode(f->instance);
    RTCOSIM_FMU_TRACE(f, "fmi3EnterContinuousTimeMode", s, "%s", "");
    return rtcosim_fmu_status(f, s, "fmi3EnterContinuousTimeMode", NO_TIME, err);
}

static rtcosim_status update_discrete_states(rtcosim_fmu *f, rtcosim_me_event_info *info,
                                             rtcosim_error *err)
{
    fmi3Boolean update = fmi3False, terminate = fmi3False, nominals = fmi3False,
                values = fmi3False, defined = fmi3False;
    fmi3Float64 next = 0;
    fmi3Status s = f->fmi3.fmi3UpdateDiscreteStates(f->instance, &update, &terminate, &nominals,
                                                    &values, &defined, &next);
    RTCOSIM_FMU_TRACE(f, "fmi3UpdateDiscreteStates", s,
                      "-> discreteStatesNeedUpdate=%d, terminateSimulation=%d, "
                      "valuesOfContinuousStatesChanged=%d, nextEventTimeDefined=%d, "
                      "nextEventTime=%.17g",
                      update, terminate, values, defined, next);
    *info = (rtcosim_me_event_info){.discrete_states_need_update = update,
                                    .terminate_simulation = terminate,
                                    .nominals_changed = nominals,
                                    .values_changed = values,
                                    .next_event_time_defined = defined,
                                    .next_event_time = next};
    return rtcosim_fmu_status(f, s, "fmi3UpdateDiscreteStates", NO_TIME, err);
}

static rtcosim_status completed_integrator_step(rtcosim_fmu *f, bool no_prior, bool *enter_event,
                                                bool *terminate, rtcosim_error *err)
{
    fmi3Boolean event = fmi3False, stop = fmi3False;
    fmi3Status s = f->fmi3.fmi3CompletedIntegratorStep(f->instance, no_prior, &event, &stop);
    RTCOSIM_FMU_TRACE(f, "fmi3CompletedIntegratorStep", s,
                      "noSetFMUStatePriorToCurrentPoint=%d -> enterEventMode=%d, "
                      "terminateSimulation=%d",
                      no_prior, event, stop);
    *enter_event = event;
    *terminate = stop;
    return rtcosim_fmu_status(f, s, "fmi3CompletedIntegratorStep", NO_TIME, err);
}

static const rtcosim_me_calls fmi3_me_calls = {
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

rtcosim_status rtcosim_fmi3_me_prepare(rtcosim_fmu *f, const rtcosim_fmu_options *opts,
                                       rtcosim_error *err)
{
#define REQUIRE(name)                                                                      \
    if (!f->fmi3.name)                                                                     \
        return rtcosim_fmu_lacks(f, #name, err);
    REQUIRE(fmi3InstantiateModelExchange)
    REQUIRE(fmi3EnterEventMode)
    REQUIRE(fmi3UpdateDiscreteStates)
    /* The counts come from modelDescription.xml; the two inquiry functions
     * are not called and need not be there. */
    REQUIRE(fmi3EnterContinuousTimeMode)
    REQUIRE(fmi3CompletedIntegratorStep)
    REQUIRE(fmi3SetTime)
    REQUIRE(fmi3SetContinuousStates)
    REQUIRE(fmi3GetContinuousStateDerivatives)
    REQUIRE(fmi3GetEventIndicators)
    REQUIRE(fmi3GetContinuousStates)
    REQUIRE(fmi3GetNominalsOfContinuousStates)
#undef REQUIRE
    f->ops.instantiate = me3_instantiate;
    return rtcosim_me_attach(f, &fmi3_me_calls, opts, err);
}
