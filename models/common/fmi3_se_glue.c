/* FMI 3.0 scheduled execution (chapter 5) for the project's SE models: the
 * co-simulation glue (fmi3_glue.c) is compiled into this file for the
 * lifecycle and the values, with its clock and scheduled-execution stubs
 * renamed out of the way, and this file exports the real ones:
 * fmi3InstantiateScheduledExecution with its callbacks, fmi3ActivateModelPartition,
 * fmi3GetClock for output clocks, and fmi3GetIntervalDecimal/fmi3GetShiftDecimal
 * from the model's clock table (se_model.h). */
#define fmi3InstantiateScheduledExecution fmi3_cs_unused_InstantiateScheduledExecution
#define fmi3GetClock fmi3_cs_unused_GetClock
#define fmi3SetClock fmi3_cs_unused_SetClock
#define fmi3GetIntervalDecimal fmi3_cs_unused_GetIntervalDecimal
#define fmi3GetShiftDecimal fmi3_cs_unused_GetShiftDecimal
#define fmi3SetIntervalDecimal fmi3_cs_unused_SetIntervalDecimal
#define fmi3ActivateModelPartition fmi3_cs_unused_ActivateModelPartition
#include "fmi3_glue.c"
#undef fmi3InstantiateScheduledExecution
#undef fmi3GetClock
#undef fmi3SetClock
#undef fmi3GetIntervalDecimal
#undef fmi3GetShiftDecimal
#undef fmi3SetIntervalDecimal
#undef fmi3ActivateModelPartition

#include <limits.h>
#include <stdlib.h>

#include "se_model.h"

FMI3_Export fmi3InstantiateScheduledExecutionTYPE fmi3InstantiateScheduledExecution;
FMI3_Export fmi3GetClockTYPE fmi3GetClock;
FMI3_Export fmi3SetClockTYPE fmi3SetClock;
FMI3_Export fmi3GetIntervalDecimalTYPE fmi3GetIntervalDecimal;
FMI3_Export fmi3GetShiftDecimalTYPE fmi3GetShiftDecimal;
FMI3_Export fmi3SetIntervalDecimalTYPE fmi3SetIntervalDecimal;
FMI3_Export fmi3ActivateModelPartitionTYPE fmi3ActivateModelPartition;

static const se_model_def *const S = &se_model_definition;

#define SE_MAX_CLOCKS 16

typedef struct se_instance {
    fmi3_instance fi; /* first: an fmi3Instance is a model_instance * */
    double interval[SE_MAX_CLOCKS]; /* fixed/tunable clocks: the importer's interval */
    bool interval_set[SE_MAX_CLOCKS];
    fmi3ClockUpdateCallback clock_update;
    fmi3LockPreemptionCallback lock_preemption;
    fmi3UnlockPreemptionCallback unlock_preemption;
    /* The priority of the partition running now (INT_MAX: none). Only a
     * partition of higher priority (smaller value) may preempt it, nested in
     * one of its lockPreemption/unlockPreemption callbacks (FMI 3.0 chapter 5). */
    int running_priority;
} se_instance;

void se_clock_update(model_instance *inst)
{
    se_instance *si = (se_instance *)inst;
    if (si->clock_update)
        si->clock_update(si->fi.environment);
}

void se_lock_preemption(model_instance *inst)
{
    se_instance *si = (se_instance *)inst;
    if (si->lock_preemption)
        si->lock_preemption();
}

void se_unlock_preemption(model_instance *inst)
{
    se_instance *si = (se_instance *)inst;
    if (si->unlock_preemption)
        si->unlock_preemption();
}

fmi3Instance fmi3InstantiateScheduledExecution(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath,
    fmi3Boolean visible, fmi3Boolean loggingOn, fmi3InstanceEnvironment instanceEnvironment,
    fmi3LogMessageCallback logMessage, fmi3ClockUpdateCallback clockUpdate,
    fmi3LockPreemptionCallback lockPreemption, fmi3UnlockPreemptionCallback unlockPreemption)
{
    (void)visible;
    const model_def *m = &model_definition;
    if (!instanceName || !*instanceName || !instantiationToken ||
        strcmp(instantiationToken, m->instantiation_token) != 0) {
        log_refusal(loggingOn, instanceEnvironment, logMessage,
                    "fmi3InstantiateScheduledExecution: missing name or wrong instantiationToken");
        return NULL;
    }
    if (!clockUpdate) {
        /* Section 5.2.1: the FMU tells countdown intervals and output ticks
         * only through it. */
        log_refusal(loggingOn, instanceEnvironment, logMessage,
                    "fmi3InstantiateScheduledExecution: clockUpdate is required");
        return NULL;
    }
    se_instance *si = calloc(1, sizeof *si);
    if (!si)
        return NULL;
    si->fi.environment = instanceEnvironment;
    si->fi.log_message = logMessage;
    si->fi.base.calloc_fn = calloc;
    si->fi.base.free_fn = free;
    si->fi.base.emit = emit;
    si->clock_update = clockUpdate;
    si->lock_preemption = lockPreemption;
    si->unlock_preemption = unlockPreemption;
    si->running_priority = INT_MAX;
    if (!instance_init(&si->fi.base, instanceName, resourcePath, false, loggingOn)) {
        instance_destroy(&si->fi.base);
        return NULL;
    }
    TRACE(&si->fi.base, "fmi3InstantiateScheduledExecution(%s, token %s)", instanceName,
          instantiationToken);
    return si;
}

static const se_clock_def *find_clock(uint32_t vr)
{
    for (size_t i = 0; i < S->clock_count; i++)
        if (S->clocks[i].value_reference == vr)
            return &S->clocks[i];
    return NULL;
}

/* Every reference must name a clock of the wanted direction. */
static bool check_clocks(model_instance *inst, const char *function, const fmi3ValueReference vr[],
                         size_t n, int input)
{
    if (!inst || !instance_allowed(inst, MODE_ANY_BUT_FATAL, function))
        return false;
    if (n > 0 && !vr) {
        instance_error(inst, "%s: valueReferences is NULL", function);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        const se_clock_def *c = find_clock(vr[i]);
        if (!c || (input >= 0 && c->input != (input != 0))) {
            instance_error(inst, "%s: value reference %u is not an %s clock", function,
                           (unsigned)vr[i], input ? "input" : "output");
            return false;
        }
    }
    return true;
}

fmi3Status fmi3GetClock(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                        size_t nValueReferences, fmi3Clock values[])
{
    model_instance *inst = instance;
    if (!check_clocks(inst, "fmi3GetClock", valueReferences, nValueReferences, 0))
        return fmi3Error;
    for (size_t i = 0; i < nValueReferences; i++) {
        bool ticked = false;
        model_status s = S->get_clock(inst, inst->data, valueReferences[i], &ticked);
        if (s != MODEL_OK)
            return status_of(s);
        values[i] = ticked;
    }
    return fmi3OK;
}

/* Section 5.2.2: in scheduled execution input clocks tick by activation. */
fmi3Status fmi3SetClock(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                        size_t nValueReferences, const fmi3Clock values[])
{
    (void)values;
    model_instance *inst = instance;
    if (!check_clocks(inst, "fmi3SetClock", valueReferences, nValueReferences, 1))
        return fmi3Error;
    return nValueReferences == 0
               ? fmi3OK
               : status_of(instance_error(inst, "fmi3SetClock: input clocks tick through "
                                                "fmi3ActivateModelPartition in scheduled execution"));
}

fmi3Status fmi3GetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                  size_t nValueReferences, fmi3Float64 intervals[],
                                  fmi3IntervalQualifier qualifiers[])
{
    model_instance *inst = instance;
    if (!check_clocks(inst, "fmi3GetIntervalDecimal", valueReferences, nValueReferences, 1))
        return fmi3Error;
    for (size_t i = 0; i < nValueReferences; i++) {
        const se_clock_def *c = find_clock(valueReferences[i]);
        size_t k = (size_t)(c - S->clocks);
        if (c->interval_decimal) {
            se_instance *si = (se_instance *)inst;
            intervals[i] = k < SE_MAX_CLOCKS && si->interval_set[k] ? si->interval[k]
                                                                    : strtod(c->interval_decimal, NULL);
            qualifiers[i] = fmi3IntervalUnchanged;
            continue;
        }
        int q = 0;
        model_status s = S->get_interval(inst, inst->data, valueReferences[i], &intervals[i], &q);
        if (s != MODEL_OK)
            return status_of(s);
        qualifiers[i] = (fmi3IntervalQualifier)q;
    }
    return fmi3OK;
}

fmi3Status fmi3GetShiftDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                               size_t nValueReferences, fmi3Float64 shifts[])
{
    model_instance *inst = instance;
    if (!check_clocks(inst, "fmi3GetShiftDecimal", valueReferences, nValueReferences, 1))
        return fmi3Error;
    for (size_t i = 0; i < nValueReferences; i++) {
        const se_clock_def *c = find_clock(valueReferences[i]);
        shifts[i] = c->shift_decimal ? strtod(c->shift_decimal, NULL) : 0.0;
    }
    return fmi3OK;
}

/* Section 2.2.8's table: the importer sets the interval of a fixed clock in
 * Initialization Mode, of a tunable one also later; both must declare one. */
fmi3Status fmi3SetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                  size_t nValueReferences, const fmi3Float64 intervals[])
{
    model_instance *inst = instance;
    if (!check_clocks(inst, "fmi3SetIntervalDecimal", valueReferences, nValueReferences, 1))
        return fmi3Error;
    se_instance *si = (se_instance *)inst;
    for (size_t i = 0; i < nValueReferences; i++) {
        const se_clock_def *c = find_clock(valueReferences[i]);
        size_t k = (size_t)(c - S->clocks);
        bool fixed = strcmp(c->interval_variability, "fixed") == 0;
        bool tunable = strcmp(c->interval_variability, "tunable") == 0;
        if (!c->interval_decimal || k >= SE_MAX_CLOCKS || !(fixed || tunable) ||
            (fixed && inst->mode != MODE_INITIALIZATION))
            return status_of(instance_error(inst, "fmi3SetIntervalDecimal: the interval of clock "
                                                  "%s cannot be set now", c->name));
        if (!(intervals[i] > 0))
            return status_of(instance_error(inst, "fmi3SetIntervalDecimal: interval %g of clock "
                                                  "%s is not positive", intervals[i], c->name));
        si->interval[k] = intervals[i];
        si->interval_set[k] = true;
    }
    return fmi3OK;
}

fmi3Status fmi3ActivateModelPartition(fmi3Instance instance, fmi3ValueReference clockReference,
                                      fmi3Float64 activationTime)
{
    model_instance *inst = instance;
    if (!inst || !instance_allowed(inst, MODE_STEP, "fmi3ActivateModelPartition"))
        return fmi3Error;
    const se_clock_def *c = find_clock(clockReference);
    if (!c || !c->input)
        return status_of(instance_error(inst, "fmi3ActivateModelPartition: value reference %u "
                                              "is not an input clock",
                                        (unsigned)clockReference));
    se_instance *si = (se_instance *)inst;
    int outer = si->running_priority;
    if (c->priority >= outer)
        return status_of(instance_error(inst, "fmi3ActivateModelPartition: %s (priority %d) "
                                              "called from inside a partition of priority %d "
                                              "(only a higher priority preempts)",
                                        c->name, c->priority, outer));
    TRACE(inst, "fmi3ActivateModelPartition(%s, %.17g)", c->name, activationTime);
    si->running_priority = c->priority;
    double outer_time = inst->time;
    inst->time = activationTime;
    model_status s = S->activate(inst, inst->data, clockReference, activationTime);
    if (outer != INT_MAX)
        inst->time = outer_time; /* the preempted partition's time again */
    si->running_priority = outer;
    return status_of(s);
}
