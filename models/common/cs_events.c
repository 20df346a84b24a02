/* Co-simulation with Event Mode and early return for the models that locate
 * their own events (model_def.step_to_event; FMI 3.0 sections 4.2.1-4.2.3):
 * the step stops at each event and either hands it to the importer
 * (eventHandlingNeeded, early return) or handles it inside the step. */
#include <math.h>

#include "instance.h"

/* Relative 1e-9, as the glue compares the importer's time with its own. */
static bool same_time(double a, double b)
{
    double magnitude = fabs(a) > 1.0 ? fabs(a) : 1.0;
    return fabs(a - b) <= 1e-9 * magnitude;
}

/* An event handled inside the step (no Event Mode, or one the importer is
 * not told about): the discrete-state update, as model exchange would run it. */
static model_status update_inside(model_instance *inst, double time)
{
    if (!inst->model->event_update)
        return MODEL_OK;
    double saved = inst->time;
    inst->time = time; /* model_time() for the model's messages */
    model_event_result r = {0};
    model_status s = inst->model->event_update(inst, inst->data, &r);
    inst->time = saved;
    return s;
}

/* FMI 3.0 section 4.2.2: with eventModeUsed an event at the end of the step
 * is reported (eventHandlingNeeded) and handled by the importer in Event
 * Mode; one before the end ends the step there when early return is allowed
 * (earlyReturn, lastSuccessfulTime = the event's time), else the FMU handles
 * it itself and goes on, as the Reference FMUs do. Without eventModeUsed
 * every event is handled inside; an allowed early return still ends the step
 * at it (section 4.2.1). */
model_status instance_advance(model_instance *inst, double t, double h)
{
    inst->event_needed = false;
    inst->returned_early = false;
    const double end = t + h;
    double now = t;
    for (unsigned events = 0;; events++) {
        if (events == 100000) /* a model stuck at one instant */
            return instance_error(inst, "fmi3DoStep: more than %u events inside one step",
                                  events);
        double reached = end;
        bool event = false;
        model_status s = inst->model->step_to_event(inst, inst->data, now, end - now, &reached,
                                                   &event);
        if (s > MODEL_WARNING || !event)
            return s;
        bool at_end = reached >= end || same_time(reached, end);
        if (at_end)
            reached = end;
        if (inst->event_mode_used && at_end) {
            inst->event_needed = true;
            return s;
        }
        bool early = inst->early_return_allowed && !at_end;
        if (!early && inst->intermediate_update)
            early = inst->intermediate_update(inst, reached, true) && inst->early_return_allowed;
        if (early) {
            inst->returned_early = true;
            inst->early_time = reached;
            if (inst->event_mode_used) {
                inst->event_needed = true;
                return s;
            }
        }
        model_status u = update_inside(inst, reached);
        if (u > MODEL_WARNING)
            return u;
        if (early || at_end)
            return u > s ? u : s;
        now = reached;
    }
}

model_status instance_enter_step_mode(model_instance *inst, const char *function)
{
    if (!inst->event_mode_used)
        return instance_error(inst, "%s: not available (the instance was not instantiated with "
                                    "eventModeUsed)",
                              function);
    if (!instance_allowed(inst, MODE_EVENT, function))
        return MODEL_ERROR;
    inst->mode = MODE_STEP;
    return MODEL_OK;
}
