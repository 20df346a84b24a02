/* FMI 3.0 co-simulation with Event Mode and clocks (sections 2.2.8, 4.2.2)
 * for the project's models that have clocks but no scheduled execution (the
 * LS-BUS nodes and bus simulation of models/lsbus): the co-simulation glue
 * (fmi3_glue.c) compiled in with its clock stubs renamed away, and real
 * fmi3GetClock (output clocks, a read resets them) and fmi3SetClock (input
 * clocks, allowed in Event Mode only) and fmi3GetIntervalDecimal (countdown
 * clocks, section 2.2.8) from the model's clock table (se_model.h, whose
 * get_clock, set_clock and get_interval it calls). */
#define fmi3GetClock fmi3_cs_unused_GetClock
#define fmi3SetClock fmi3_cs_unused_SetClock
#define fmi3GetIntervalDecimal fmi3_cs_unused_GetIntervalDecimal
#include "fmi3_glue.c"
#undef fmi3GetClock
#undef fmi3SetClock
#undef fmi3GetIntervalDecimal

#include "se_model.h"

FMI3_Export fmi3GetClockTYPE fmi3GetClock;
FMI3_Export fmi3SetClockTYPE fmi3SetClock;
FMI3_Export fmi3GetIntervalDecimalTYPE fmi3GetIntervalDecimal;

static const se_model_def *const S = &se_model_definition;

/* The models call no scheduled-execution callback in co-simulation. */
void se_clock_update(model_instance *inst) { (void)inst; }
void se_lock_preemption(model_instance *inst) { (void)inst; }
void se_unlock_preemption(model_instance *inst) { (void)inst; }

/* Every reference must name a clock of the wanted direction; clocks are
 * read and set in Event Mode only (section 4.2.2 state machine). */
static bool check_clocks(model_instance *inst, const char *function, const fmi3ValueReference vr[],
                         size_t n, bool input)
{
    if (!inst || !instance_allowed(inst, MODE_EVENT, function))
        return false;
    if (n > 0 && !vr) {
        instance_error(inst, "%s: valueReferences is NULL", function);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        const se_clock_def *c = NULL;
        for (size_t j = 0; j < S->clock_count && !c; j++)
            if (S->clocks[j].value_reference == vr[i])
                c = &S->clocks[j];
        if (!c || c->input != input) {
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
    if (!check_clocks(inst, "fmi3GetClock", valueReferences, nValueReferences, false))
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

fmi3Status fmi3SetClock(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                        size_t nValueReferences, const fmi3Clock values[])
{
    model_instance *inst = instance;
    if (!check_clocks(inst, "fmi3SetClock", valueReferences, nValueReferences, true))
        return fmi3Error;
    for (size_t i = 0; i < nValueReferences; i++) {
        model_status s = S->set_clock(inst, inst->data, valueReferences[i], values[i]);
        if (s != MODEL_OK)
            return status_of(s);
    }
    return fmi3OK;
}

fmi3Status fmi3GetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                  size_t nValueReferences, fmi3Float64 intervals[],
                                  fmi3IntervalQualifier qualifiers[])
{
    model_instance *inst = instance;
    if (!check_clocks(inst, "fmi3GetIntervalDecimal", valueReferences, nValueReferences, true))
        return fmi3Error;
    for (size_t i = 0; i < nValueReferences; i++) {
        int q = 0;
        intervals[i] = 0;
        if (S->get_interval) {
            model_status s = S->get_interval(inst, inst->data, valueReferences[i], &intervals[i], &q);
            if (s != MODEL_OK)
                return status_of(s);
        }
        qualifiers[i] = (fmi3IntervalQualifier)q;
    }
    return fmi3OK;
}
