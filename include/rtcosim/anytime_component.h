/* An anytime task as a component of a system (capability C6 inside C2/C4):
 * a variant set behind the one component interface, so that the master, the
 * real-time executor and its Jacobi threads step it like any other part.
 * Every do_step over [t, t+h] is one period of the set: its inputs are the
 * values the system set, its outputs the delivered variant's, and the
 * deadline is
 *   - inside a paced real-time frame (rtcosim_paced_frame_current() on the
 *     stepping thread, on a clock of the same kind as the set's): the frame's
 *     start plus `budget` of the frame (the time to the next frame's start);
 *   - elsewhere (offline runs, Jacobi worker threads): the set's clock at
 *     the call plus `budget` of h, i.e. as if the step ran in real time.
 *
 * Two ways to build one:
 *   - from instances of one model (FMUs at several micro steps or solvers):
 *     the component's variables are the model's; its FLOAT64 inputs feed the
 *     set and its FLOAT64 outputs are delivered; each instance is a
 *     component variant, stepped on its own worker thread and abandoned at
 *     the cutoff when it does not return, the others continuing from the
 *     delivered instance's serialized state (so every instance must be able
 *     to get, set and serialize its state: refused at creation otherwise);
 *   - from a native variant set (rtcosim_anytime_add_native) and names for
 *     its inputs and outputs.
 *
 * The set is started (its calibration runs) at exit_init when the period is
 * known (options.period_ns), else at the first do_step with h. */
#ifndef RTCOSIM_ANYTIME_COMPONENT_H
#define RTCOSIM_ANYTIME_COMPONENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/anytime.h"
#include "rtcosim/component.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rtcosim_anytime_component_options {
    /* Strategy, margins, quantiles (see rtcosim_anytime_config). Counts,
     * names, state and period are filled in by the constructors; a set
     * given to rtcosim_anytime_component_wrap_set keeps its own. */
    rtcosim_anytime_config config;
    /* Not owned; outlives the component. NULL: a monotonic clock of the
     * component's own (instances only). */
    rtcosim_clock *clock;
    /* The macro step, when known at creation; 0: the first do_step's h. */
    rtcosim_time_ns period_ns;
    /* Share of the frame (or of h offline) by which the set must deliver;
     * (0, 1], default 0.8: the rest of the frame is left to the other
     * components and the exchange. */
    double budget;
    /* Steps whose delivered variant and miss are kept for
     * rtcosim_anytime_component_step (from the start; later steps are
     * counted in the set's summary only). */
    size_t step_log;
} rtcosim_anytime_component_options;

/* Defaults: config from rtcosim_anytime_config_init with
 * abandon_on_workers set, budget 0.8, step_log 1000000. */
void rtcosim_anytime_component_options_init(rtcosim_anytime_component_options *opts);

/* A component over n instances of one model (not instantiated yet), minimal
 * variant first, each described by infos[i] (its name, rank, micro step:
 * the set steps instance i over each period in micro steps of
 * infos[i].step_ns, 0: one step). Takes ownership of every instance in every
 * case. Refuses (RTCOSIM_EUNSUPPORTED, naming the model) instances that
 * cannot get, set and serialize their state, instances of different
 * models, and a model without FLOAT64 outputs. `name` names the set. */
rtcosim_status rtcosim_anytime_component_from_instances(
    const char *name, rtcosim_component *const *instances,
    const rtcosim_anytime_variant_info *infos, size_t n,
    const rtcosim_anytime_component_options *opts, rtcosim_component **out, rtcosim_error *err);

/* A component over a native variant set (created, variants added, not
 * started; its clock is the component's): FLOAT64 inputs named
 * input_names[0..input_count) with value references 0.., outputs named
 * output_names[0..output_count) with references input_count... Takes
 * ownership of the set in every case. opts->config and clock are ignored
 * (the set has its own). */
rtcosim_status rtcosim_anytime_component_wrap_set(rtcosim_anytime *set, const char *model_name,
                                                  const char *const *input_names,
                                                  const char *const *output_names,
                                                  const rtcosim_anytime_component_options *opts,
                                                  rtcosim_component **out, rtcosim_error *err);

/* A variant set written as text (rtcosim run --variants COMP=SPEC, the
 * org.rtcosim.variants annotation), minimal variant first:
 *   steps:H1,H2,..            micro steps in seconds, each finer than the one
 *                             before (co-simulation: the period in micro
 *                             steps of H);
 *   solvers:S1,S2,..          model exchange integrated by rtcosim, each
 *                             euler:H (explicit Euler, step H) or cvode[:HMAX]
 *                             (BDF, error-controlled, largest step HMAX). */
typedef struct rtcosim_anytime_spec {
    bool model_exchange; /* solvers: */
    size_t count;
    rtcosim_time_ns step_ns[RTCOSIM_ANYTIME_MAX_VARIANTS]; /* H, HMAX (0: none) */
    /* steps: OTHER; solvers: EULER or VARIABLE (cvode) */
    rtcosim_anytime_solver solver[RTCOSIM_ANYTIME_MAX_VARIANTS];
} rtcosim_anytime_spec;

/* Parse `text`; RTCOSIM_EINVAL with a message quoting it on anything else
 * (unknown kind or solver, a step that is not a positive time, steps not
 * coarsest first, more than RTCOSIM_ANYTIME_MAX_VARIANTS, an empty list). */
rtcosim_status rtcosim_anytime_spec_parse(const char *text, rtcosim_anytime_spec *out,
                                          rtcosim_error *err);

/* The variant set of an anytime component (NULL for any other component or
 * before it exists): for its summary, records and CSV. */
rtcosim_anytime *rtcosim_anytime_component_set(const rtcosim_component *c);

/* What one step delivered. */
typedef struct rtcosim_anytime_step {
    rtcosim_time_ns t; /* start of the step */
    int8_t delivered;  /* variant index */
    bool missed;       /* delivered after the deadline */
} rtcosim_anytime_step;

/* Steps kept (at most step_log) and step i of them, oldest first. */
size_t rtcosim_anytime_component_step_count(const rtcosim_component *c);
const rtcosim_anytime_step *rtcosim_anytime_component_step(const rtcosim_component *c, size_t i);

#ifdef __cplusplus
}
#endif
#endif
