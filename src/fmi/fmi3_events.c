/* FMI 3.0 co-simulation with Event Mode and early return (FMI 3.0 sections
 * 4.2.1-4.2.2 and 4.3): the component's event ops (fmi3EnterEventMode,
 * fmi3UpdateDiscreteStates, fmi3EnterStepMode) and the intermediate-update
 * callback given to fmi3InstantiateCoSimulation when early return is allowed. */
#include <math.h>

#include "fmi/fmu_internal.h"

#define NO_TIME NAN

/* rtcosim asks for no early return of its own and sets no intermediate
 * variables: the callback exists so that an FMU with
 * canReturnEarlyAfterIntermediateUpdate may call it (section 4.2.3); the FMU
 * decides itself where it returns early (at its events). */
void rtcosim_fmi3_intermediate_update(fmi3InstanceEnvironment env, fmi3Float64 time,
                                      fmi3Boolean set_requested, fmi3Boolean get_allowed,
                                      fmi3Boolean step_finished, fmi3Boolean can_return_early,
                                      fmi3Boolean *early_return_requested,
                                      fmi3Float64 *early_return_time)
{
    (void)time, (void)set_requested, (void)get_allowed, (void)step_finished;
    (void)can_return_early;
    rtcosim_fmu *f = env;
    if (f)
        f->intermediate_updates++;
    if (early_return_requested)
        *early_return_requested = fmi3False;
    if (early_return_time)
        *early_return_time = time;
}

static rtcosim_status enter_event_mode(void *self, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    fmi3Status s = f->fmi3.fmi3EnterEventMode(f->instance);
    RTCOSIM_FMU_TRACE(f, "fmi3EnterEventMode", s, "%s", "");
    return rtcosim_fmu_status(f, s, "fmi3EnterEventMode", NO_TIME, err);
}

static rtcosim_status enter_step_mode(void *self, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    fmi3Status s = f->fmi3.fmi3EnterStepMode(f->instance);
    RTCOSIM_FMU_TRACE(f, "fmi3EnterStepMode", s, "%s", "");
    return rtcosim_fmu_status(f, s, "fmi3EnterStepMode", NO_TIME, err);
}

/* FMI 3.0 section 2.3.5: fmi3UpdateDiscreteStates evaluates the event
 * equations itself when nothing was got in the instant, and an FMU with
 * providesEvaluateDiscreteStates evaluates them in fmi3EvaluateDiscreteStates.
 * Some evaluate only there (or in a get), the FMI-LS-BUS project's FlexRay
 * demo bus simulation among them: its update drops the ops a node sent, its
 * Rx clock reset unread. So an FMU that provides it is asked to evaluate
 * before its update whenever inputs or clocks were set since it last
 * computed (a get, a step), once: a get after the sets has evaluated already
 * (the demos evaluate in the get of Tx_Data), and a second evaluation would
 * take the ops twice. */
static rtcosim_status evaluate_if_unevaluated(rtcosim_fmu *f, rtcosim_error *err)
{
    if (!f->inputs_unevaluated || !f->md->provides_evaluate_discrete_states ||
        !f->fmi3.fmi3EvaluateDiscreteStates)
        return RTCOSIM_OK;
    fmi3Status s = f->fmi3.fmi3EvaluateDiscreteStates(f->instance);
    RTCOSIM_FMU_TRACE(f, "fmi3EvaluateDiscreteStates", s, "%s", "");
    return rtcosim_fmu_status(f, s, "fmi3EvaluateDiscreteStates", NO_TIME, err);
}

static rtcosim_status update_discrete_states(void *self, rtcosim_event_update *u,
                                             rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    rtcosim_status est = evaluate_if_unevaluated(f, err);
    f->inputs_unevaluated = false; /* (the update computes, evaluated or not) */
    if (est != RTCOSIM_OK)
        return est;
    fmi3Boolean need = fmi3False, terminate = fmi3False, nominals = fmi3False,
                values = fmi3False, next_defined = fmi3False;
    fmi3Float64 next = 0;
    fmi3Status s = f->fmi3.fmi3UpdateDiscreteStates(f->instance, &need, &terminate, &nominals,
                                                    &values, &next_defined, &next);
    RTCOSIM_FMU_TRACE(f, "fmi3UpdateDiscreteStates", s,
                      "-> discreteStatesNeedUpdate=%d, terminateSimulation=%d, "
                      "nominalsOfContinuousStatesChanged=%d, "
                      "valuesOfContinuousStatesChanged=%d, nextEventTimeDefined=%d, "
                      "nextEventTime=%.17g",
                      need, terminate, nominals, values, next_defined, next);
    u->discrete_states_need_update = need;
    u->terminate_requested = terminate;
    u->nominals_changed = nominals;
    u->values_changed = values;
    /* An event time that cannot be a tick (NaN, beyond int64 ns) is
     * reported rather than rounded into a wrong step. */
    if (next_defined && s <= fmi3Warning) {
        rtcosim_error why;
        if (rtcosim_time_from_seconds(next, &u->next_event_time, &why) != RTCOSIM_OK)
            return rtcosim_error_set(err, RTCOSIM_ECOMPONENT,
                                     "%s: fmi3UpdateDiscreteStates announced nextEventTime=%.17g, "
                                     "which is not a time: %s",
                                     f->instance_name, next, why.message);
        u->next_event_time_defined = true;
    }
    return rtcosim_fmu_status(f, s, "fmi3UpdateDiscreteStates", NO_TIME, err);
}

rtcosim_status rtcosim_fmi3_events_prepare(rtcosim_fmu *f, rtcosim_error *err)
{
    const rtcosim_fmi_md *md = f->md;
    /* Event Mode where asked for, and for a co-simulation FMU with clocks:
     * they tick only in Event Mode (FMI 3.0 section 4.2.2), so without it
     * its clocked variables never change hands (an LS-BUS node's frames);
     * such FMUs may refuse to be instantiated without it (the LS-BUS demo
     * nodes do) */
    if ((f->event_mode_where_declared || (md->clock_count > 0 && !f->scheduled)) &&
        md->has_event_mode && !f->model_exchange)
        f->event_mode_used = true;
    if (f->early_return_where_declared && md->can_return_early && !f->model_exchange &&
        !f->scheduled)
        f->early_return_allowed = true;
    if (!f->event_mode_used && !f->early_return_allowed)
        return RTCOSIM_OK;
    const char *flag = f->event_mode_used ? "event mode" : "early return";
    if (f->model_exchange)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "%s: %s is a co-simulation option; this FMU is loaded for "
                                 "model exchange",
                                 f->archive_path, flag);
    /* FMI 3.0 section 4.2.2: eventModeUsed may only be true when the FMU
     * declares hasEventMode; the FMU would fail or misbehave otherwise. */
    if (f->event_mode_used && !md->has_event_mode)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "%s: event mode was asked for (eventModeUsed), but the FMU does "
                                 "not declare CoSimulation hasEventMode=\"true\" (FMI 3.0 "
                                 "section 4.2.2)",
                                 f->archive_path);
    /* fmusim passes earlyReturnAllowed whatever the FMU declares; an FMU
     * without the capability just never returns early. */
    if (f->early_return_allowed && !md->can_return_early)
        rtcosim_log(RTCOSIM_LOG_WARNING, "fmi",
                    "%s: early return allowed, but the FMU does not declare "
                    "canReturnEarlyAfterIntermediateUpdate; its steps will not end early",
                    f->archive_path);
    if (!f->event_mode_used)
        return RTCOSIM_OK;
    if (!f->fmi3.fmi3EnterEventMode)
        return rtcosim_fmu_lacks(f, "fmi3EnterEventMode", err);
    if (!f->fmi3.fmi3UpdateDiscreteStates)
        return rtcosim_fmu_lacks(f, "fmi3UpdateDiscreteStates", err);
    if (!f->fmi3.fmi3EnterStepMode)
        return rtcosim_fmu_lacks(f, "fmi3EnterStepMode", err);
    f->ops.enter_event_mode = enter_event_mode;
    f->ops.update_discrete_states = update_discrete_states;
    f->ops.enter_step_mode = enter_step_mode;
    return RTCOSIM_OK;
}
