/* FMI 1.0 model exchange (FMI for Model Exchange 1.0 chapter 3) for the
 * integrator: the binary's fmi* functions behind the version-neutral table of
 * me.h. FMI 1.0 has no Event/Continuous-Time modes: fmiEventUpdate is the
 * event iteration, fmiInitialize's own event info answers the first one. */
#include <math.h>

#include "fmi/fmi1_internal.h"
#include "fmi/me.h"

#define NO_TIME NAN

static rtcosim_status set_time(rtcosim_fmu *f, double t, rtcosim_error *err)
{
    fmi1Status s = f->fmi1x->fn.SetTime(f->instance, t);
    RTCOSIM_FMU_TRACE(f, "fmiSetTime", s, "%.17g", t);
    return rtcosim_fmu_status(f, s, "fmiSetTime", t, err);
}

#define ARRAY_CALL(fn_name, function, qualifier)                                           \
    static rtcosim_status fn_name(rtcosim_fmu *f, qualifier double *x, size_t n,           \
                                  rtcosim_error *err)                                      \
    {                                                                                      \
        fmi1Status s = f->fmi1x->fn.function(f->instance, x, n);                           \
        RTCOSIM_FMU_TRACE(f, "fmi" #function, s, "n=%zu", n);                              \
        return rtcosim_fmu_status(f, s, "fmi" #function, NO_TIME, err);                    \
    }
ARRAY_CALL(set_states, SetContinuousStates, const)
ARRAY_CALL(get_states, GetContinuousStates, )
ARRAY_CALL(get_derivatives, GetDerivatives, )
ARRAY_CALL(get_event_indicators, GetEventIndicators, )
ARRAY_CALL(get_nominals, GetNominalContinuousStates, )
#undef ARRAY_CALL

/* No mode switches in FMI 1.0. */
static rtcosim_status no_mode_switch(rtcosim_fmu *f, rtcosim_error *err)
{
    (void)f;
    (void)err;
    return RTCOSIM_OK;
}

static void convert(const fmi1EventInfo *e, rtcosim_me_event_info *info)
{
    *info = (rtcosim_me_event_info){
        .discrete_states_need_update = e->iterationConverged == fmi1False,
        .terminate_simulation = e->terminateSimulation != fmi1False,
        .nominals_changed = e->stateValueReferencesChanged != fmi1False,
        .values_changed = e->stateValuesChanged != fmi1False,
        .next_event_time_defined = e->upcomingTimeEvent != fmi1False,
        .next_event_time = e->nextEventTime};
}

static rtcosim_status update_discrete_states(rtcosim_fmu *f, rtcosim_me_event_info *info,
                                             rtcosim_error *err)
{
    rtcosim_fmi1 *x = f->fmi1x;
    if (x->init_info_pending) {
        /* fmiInitialize iterated already (ME 1.0 section 3.4); its event
         * info stands unless it did not converge. */
        x->init_info_pending = false;
        if (x->init_info.iterationConverged != fmi1False) {
            convert(&x->init_info, info);
            return RTCOSIM_OK;
        }
    }
    fmi1EventInfo e = {0};
    /* intermediateResults = false: iterate to the end inside the FMU. */
    fmi1Status s = x->fn.EventUpdate(f->instance, fmi1False, &e);
    RTCOSIM_FMU_TRACE(f, "fmiEventUpdate", s,
                      "intermediateResults=0 -> iterationConverged=%d, stateValuesChanged=%d, "
                      "terminateSimulation=%d, upcomingTimeEvent=%d, nextEventTime=%.17g",
                      e.iterationConverged, e.stateValuesChanged, e.terminateSimulation,
                      e.upcomingTimeEvent, e.nextEventTime);
    convert(&e, info);
    return rtcosim_fmu_status(f, s, "fmiEventUpdate", NO_TIME, err);
}

static rtcosim_status completed_integrator_step(rtcosim_fmu *f, bool no_prior, bool *enter_event,
                                                bool *terminate, rtcosim_error *err)
{
    (void)no_prior;
    fmi1Boolean call_event_update = fmi1False;
    fmi1Status s = f->fmi1x->fn.CompletedIntegratorStep(f->instance, &call_event_update);
    RTCOSIM_FMU_TRACE(f, "fmiCompletedIntegratorStep", s, "-> callEventUpdate=%d",
                      call_event_update);
    *enter_event = call_event_update != fmi1False;
    *terminate = false; /* FMI 1.0 asks to terminate only from fmiEventUpdate */
    return rtcosim_fmu_status(f, s, "fmiCompletedIntegratorStep", NO_TIME, err);
}

static const rtcosim_me_calls fmi1_me_calls = {
    .set_time = set_time,
    .set_states = set_states,
    .get_states = get_states,
    .get_derivatives = get_derivatives,
    .get_event_indicators = get_event_indicators,
    .get_nominals = get_nominals,
    .enter_event_mode = no_mode_switch,
    .update_discrete_states = update_discrete_states,
    .enter_continuous_time_mode = no_mode_switch,
    .completed_integrator_step = completed_integrator_step,
};

rtcosim_status rtcosim_fmi1_me_prepare(rtcosim_fmu *f, const rtcosim_fmu_options *opts,
                                       rtcosim_error *err)
{
    return rtcosim_me_attach(f, &fmi1_me_calls, opts, err);
}
