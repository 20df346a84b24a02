/* An FMI 3.0 FMU for scheduled execution (FMI 3.0 chapter 5): instantiated with
 * fmi3InstantiateScheduledExecution and its three callbacks, driven by
 * fmi3ActivateModelPartition instead of fmi3DoStep. The callbacks only record
 * what the FMU asked (no FMI call from inside them): the caller reads output
 * clocks and countdown intervals after the activation returns, which on one
 * thread is the same instant the standard's Clock Update Mode refers to. */
#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fmi/fmu_internal.h"

struct rtcosim_fmi3_se {
    fmi3ActivateModelPartitionTYPE *activate;
    bool clock_update;  /* set by the callback during an activation */
    bool stepped;       /* do_step ran: the start time's instant is done */
    rtcosim_se_stats stats;
    /* The co-simulation ops the SE ones wrap (fmi3_ops.c). */
    rtcosim_status (*exit_init)(void *self, rtcosim_error *err);
    rtcosim_status (*get)(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                          void *values, rtcosim_error *err);
    rtcosim_status (*set)(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                          const void *values, rtcosim_error *err);
};

/* lockPreemption/unlockPreemption carry no instance (section 5.2.1): they
 * bracket the sections of a partition that a partition of the same FMU must
 * not preempt. rtcosim activates the partitions of one FMU on one thread, so
 * there is nothing to lock; outside a paced frame the depth per thread only
 * catches an FMU that unlocks more than it locked. Inside a paced frame the
 * brackets are the preemption points (fmi3_se_schedule.c): entering a
 * critical section from depth 0, and leaving the outermost one, the running
 * partition is preemptible, and a higher-priority partition released since
 * runs right there, nested on this thread; never at depth > 0. */
static _Thread_local int preemption_depth;
static _Thread_local rtcosim_se_stats *active_stats;
static _Thread_local struct rtcosim_se_schedule *active_schedule; /* paced only */

static void lock_preemption(void)
{
    if (preemption_depth == 0 && active_schedule)
        rtcosim_fmi3_schedule_preemption_point(active_schedule);
    preemption_depth++;
    if (active_stats)
        active_stats->preemption_locks++;
}

static void unlock_preemption(void)
{
    if (preemption_depth > 0) {
        if (--preemption_depth == 0 && active_schedule)
            rtcosim_fmi3_schedule_preemption_point(active_schedule);
    } else if (active_stats) {
        active_stats->unbalanced_unlocks++;
    }
}

static void clock_update(fmi3InstanceEnvironment env)
{
    rtcosim_fmu *f = env;
    if (f && f->se) {
        f->se->clock_update = true;
        f->se->stats.clock_updates++;
    }
}

static rtcosim_status se_instantiate(void *self, const char *instance_name, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    free(f->instance_name);
    f->instance_name = strdup(instance_name);
    if (!f->instance_name)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", instance_name);
    f->instance = f->fmi3.fmi3InstantiateScheduledExecution(
        instance_name, f->md->instantiation_token, f->resource_location, f->visible,
        f->logging_on, f, rtcosim_fmi3_log_message, clock_update, lock_preemption,
        unlock_preemption);
    RTCOSIM_FMU_TRACE(f, "fmi3InstantiateScheduledExecution", f->instance ? fmi3OK : fmi3Error,
                      "\"%s\", \"%s\", \"%s\", visible=%d, loggingOn=%d", instance_name,
                      f->md->instantiation_token, f->resource_location, f->visible,
                      f->logging_on);
    if (!f->instance)
        return rtcosim_error_set(err, RTCOSIM_ECOMPONENT,
                                 "%s: fmi3InstantiateScheduledExecution failed (returned NULL)",
                                 instance_name);
    return RTCOSIM_OK;
}

/* The scheduler reads intervals in Initialization Mode (section 2.2.8). */
static rtcosim_status se_exit_init(void *self, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    rtcosim_time_ns start = 0;
    rtcosim_status st = rtcosim_time_from_seconds(f->start, &start, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_fmi3_schedule_init(f->schedule, start, err);
    f->se->stepped = false;
    return st == RTCOSIM_OK ? f->se->exit_init(self, err) : st;
}

/* In a system: the partitions ticking in the macro step, in time and
 * priority order (the start time's on the first step). */
static rtcosim_status se_do_step(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                 rtcosim_step_result *result, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    result->last_successful_time = t + h;
    rtcosim_status st = rtcosim_fmi3_schedule_step(f->schedule, t, h, !f->se->stepped, err);
    f->se->stepped = true;
    return st;
}

/* An output clock read through the component says whether it ticked in the
 * last step: the FMU's own fmi3GetClock resets it and is the scheduler's. */
static rtcosim_status se_get(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                             void *values, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    if (type != RTCOSIM_TYPE_CLOCK)
        return f->se->get(self, type, vrs, n, values, err);
    bool *ticked = values;
    for (size_t i = 0; i < n; i++)
        if (!rtcosim_fmi3_schedule_output_ticked(f->schedule, vrs[i], &ticked[i]))
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "%s: value reference %u is not an output clock",
                                     f->instance_name, (unsigned)vrs[i]);
    return RTCOSIM_OK;
}

/* Setting a triggered input clock true ticks it at the next step's start
 * (section 5.2.2: input clocks tick by activation, never by fmi3SetClock). */
static rtcosim_status se_set(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                             const void *values, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    if (type != RTCOSIM_TYPE_CLOCK)
        return f->se->set(self, type, vrs, n, values, err);
    const bool *tick = values;
    for (size_t i = 0; i < n; i++) {
        long clock = -1;
        for (size_t k = 0; k < f->md->clock_count && clock < 0; k++)
            if (f->md->variables[f->md->clocks[k].variable].value_reference == vrs[i])
                clock = (long)k;
        if (clock < 0 || f->md->clocks[clock].kind != RTCOSIM_FMI_CLOCK_TRIGGERED ||
            f->md->variables[f->md->clocks[clock].variable].causality != RTCOSIM_CAUSALITY_INPUT)
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "%s: value reference %u is not a triggered input clock "
                                     "(FMI 3.0 section 2.2.8)",
                                     f->instance_name, (unsigned)vrs[i]);
        if (tick[i])
            rtcosim_fmi3_schedule_trigger(f->schedule, (size_t)clock);
    }
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_fmi3_se_prepare(rtcosim_fmu *f, rtcosim_error *err)
{
    if (!f->fmi3.fmi3InstantiateScheduledExecution)
        return rtcosim_fmu_lacks(f, "fmi3InstantiateScheduledExecution", err);
    fmi3ActivateModelPartitionTYPE *activate =
        (fmi3ActivateModelPartitionTYPE *)rtcosim_fmu_symbol(f, "fmi3ActivateModelPartition");
    if (!activate)
        return rtcosim_fmu_lacks(f, "fmi3ActivateModelPartition", err);
    /* Chapter 5: input clocks are the partitions, ordered by priority,
     * which is mandatory for them there (section 2.4.7.3). */
    const rtcosim_fmi_md *md = f->md;
    for (size_t i = 0; i < md->clock_count; i++) {
        const rtcosim_fmu_clock *k = &md->clocks[i];
        const rtcosim_variable *v = &md->variables[k->variable];
        if (v->causality == RTCOSIM_CAUSALITY_INPUT && !k->has_priority)
            return rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                     "%s: modelDescription.xml: clock '%s': an input clock needs "
                                     "a priority in scheduled execution (FMI 3.0 section 2.4.7.3)",
                                     f->archive_path, v->name);
        if (v->causality == RTCOSIM_CAUSALITY_INPUT && k->kind == RTCOSIM_FMI_CLOCK_CHANGING &&
            !f->fmi3.fmi3GetIntervalDecimal)
            return rtcosim_fmu_lacks(f, "fmi3GetIntervalDecimal", err);
        if (v->causality == RTCOSIM_CAUSALITY_INPUT && k->kind == RTCOSIM_FMI_CLOCK_COUNTDOWN &&
            !f->fmi3.fmi3GetIntervalDecimal)
            return rtcosim_fmu_lacks(f, "fmi3GetIntervalDecimal", err);
    }
    f->se = calloc(1, sizeof *f->se);
    if (!f->se)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", f->archive_path);
    f->se->activate = activate;
    rtcosim_status st = rtcosim_fmi3_schedule_new(f, &f->schedule, err);
    if (st != RTCOSIM_OK)
        return st;
    f->se->exit_init = f->ops.exit_init;
    f->se->get = f->ops.get;
    f->se->set = f->ops.set;
    f->ops.instantiate = se_instantiate;
    f->ops.exit_init = se_exit_init;
    f->ops.do_step = se_do_step;
    f->ops.get = se_get;
    f->ops.set = se_set;
    f->ops.get_state = NULL; /* FMU state is not for partitions in flight (5.2.2) */
    f->ops.set_state = NULL;
    f->ops.free_state = NULL;
    f->ops.serialized_state_size = NULL;
    f->ops.serialize_state = NULL;
    f->ops.deserialize_state = NULL;
    f->ops.set_input_derivatives = NULL;
    return RTCOSIM_OK;
}

void rtcosim_fmi3_se_free(struct rtcosim_fmi3_se *se)
{
    free(se);
}

static rtcosim_fmu *se_fmu(const rtcosim_component *c)
{
    if (!c || rtcosim_component_kind(c) != rtcosim_fmi3_kind)
        return NULL;
    rtcosim_fmu *f = rtcosim_component_impl(c);
    return f->se ? f : NULL;
}

bool rtcosim_fmu_is_scheduled(const rtcosim_component *c)
{
    return se_fmu(c) != NULL;
}

rtcosim_status rtcosim_fmu_se_activate(rtcosim_component *c, size_t clock, rtcosim_time_ns t,
                                       bool *clock_updated, rtcosim_error *err)
{
    rtcosim_fmu *f = se_fmu(c);
    if (!f)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: not an FMU in scheduled execution",
                                 c ? rtcosim_component_instance_name(c) : "?");
    return rtcosim_fmi3_se_activate(f, clock, t, clock_updated, err);
}

rtcosim_status rtcosim_fmi3_se_activate(rtcosim_fmu *f, size_t clock, rtcosim_time_ns t,
                                        bool *clock_updated, rtcosim_error *err)
{
    if (clock >= f->md->clock_count ||
        f->md->variables[f->md->clocks[clock].variable].causality != RTCOSIM_CAUSALITY_INPUT)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "%s: fmi3ActivateModelPartition needs an input clock (FMI 3.0 "
                                 "section 5.2.2)", f->instance_name);
    const rtcosim_variable *v = &f->md->variables[f->md->clocks[clock].variable];
    double t_s = rtcosim_time_to_seconds(t);
    /* A preempting activation nests inside another one's callback: keep the
     * outer one's state and give it back. */
    bool outer_update = f->se->clock_update;
    rtcosim_se_stats *outer_stats = active_stats;
    struct rtcosim_se_schedule *outer_schedule = active_schedule;
    f->se->clock_update = false;
    active_stats = &f->se->stats;
    active_schedule = rtcosim_fmi3_schedule_paced(f->schedule) ? f->schedule : NULL;
    int depth = preemption_depth;
    preemption_depth = 0;
    fmi3Status s = f->se->activate(f->instance, v->value_reference, t_s);
    active_stats = outer_stats;
    active_schedule = outer_schedule;
    f->se->stats.activations++;
    if (preemption_depth != 0) {
        rtcosim_log(RTCOSIM_LOG_WARNING, "fmi",
                    "%s: partition '%s' returned with preemption still locked (FMI 3.0 section "
                    "5.2.1)", f->instance_name, v->name);
    }
    preemption_depth = depth;
    RTCOSIM_FMU_TRACE(f, "fmi3ActivateModelPartition", s, "%s (vr %u), activationTime=%.17g%s",
                      v->name, (unsigned)v->value_reference, t_s,
                      f->se->clock_update ? " -> clockUpdate" : "");
    *clock_updated = f->se->clock_update;
    f->se->clock_update = outer_update;
    /* Section 5.2: Discard is treated like Error in scheduled execution. */
    if (s == fmi3Discard)
        s = fmi3Error;
    return rtcosim_fmu_status(f, s, "fmi3ActivateModelPartition", t_s, err);
}

rtcosim_status rtcosim_fmu_se_stats(const rtcosim_component *c, rtcosim_se_stats *out,
                                    rtcosim_error *err)
{
    rtcosim_fmu *f = se_fmu(c);
    if (!f)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: not an FMU in scheduled execution",
                                 c ? rtcosim_component_instance_name(c) : "?");
    *out = f->se->stats;
    return RTCOSIM_OK;
}
