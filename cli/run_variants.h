/* rtcosim run --variants COMP=SPEC: a component of the system made an
 * anytime task (rtcosim/anytime_component.h) by a build wrap: its FMU (or
 * native model) loaded once per variant, at several micro steps (steps:H,..)
 * or model-exchange solvers (solvers:euler:H,cvode[:HMAX],..), the
 * strategy from --anytime-strategy or the component's org.rtcosim.variants
 * annotation. After the run: per component the delivered shares and misses,
 * and in a real-time report a per-frame column of the delivered variant. */
#ifndef RTCOSIM_CLI_RUN_VARIANTS_H
#define RTCOSIM_CLI_RUN_VARIANTS_H

#include <stdbool.h>
#include <stdio.h>

#include "rtcosim/anytime.h"
#include "rtcosim/anytime_component.h"
#include "rtcosim/clock.h"
#include "rtcosim/fmu.h"
#include "rtcosim/system.h"

#define RUN_VARIANTS_MAX 16

typedef struct run_variant_spec {
    char component[128];
    char text[256]; /* as given, for messages */
    rtcosim_anytime_spec spec;
    bool has_strategy;
    rtcosim_anytime_strategy strategy;
    rtcosim_component *built; /* the anytime component of the run (run_variants_find) */
} run_variant_spec;

typedef struct run_variants {
    run_variant_spec specs[RUN_VARIANTS_MAX];
    size_t count;
    bool has_strategy; /* --anytime-strategy */
    rtcosim_anytime_strategy strategy;
    double budget; /* --anytime-budget; 0: the default */
    /* set by the runner before the build */
    const rtcosim_system_desc *desc;
    const rtcosim_fmu_options *fmu;
    rtcosim_clock *clock; /* NULL: each component's own monotonic clock */
    rtcosim_time_ns period_ns; /* the macro step when known, else 0 */
    bool real_time;            /* --real-time: calibration may refuse the run */
    size_t step_log;
    rtcosim_status (*next)(void *context, const char *name, rtcosim_component *component,
                           rtcosim_component **out, rtcosim_error *err);
    void *next_context;
} run_variants;

/* --variants COMP=SPEC (repeatable). 0, or 1 after a one-line error. */
int run_variants_add(run_variants *v, const char *text);
/* --anytime-strategy NAME, --anytime-budget SHARE. 0 or 1 (printed). */
int run_variants_set_strategy(run_variants *v, const char *text);
int run_variants_set_budget(run_variants *v, const char *text);
bool run_variants_active(const run_variants *v);

/* The annotations' variant sets, then checks every spec against the system
 * (the component exists; steps: on an FMU or native model, solvers: on an
 * FMU) before anything is loaded. 0, or 1 after a one-line error. */
int run_variants_prepare(run_variants *v, const rtcosim_system_desc *desc,
                         const rtcosim_fmu_options *fmu);

/* rtcosim_system_build_options.wrap; context is the run_variants. Chains to
 * next for every component it does not replace. */
rtcosim_status run_variants_wrap(void *context, const char *name, rtcosim_component *component,
                                 rtcosim_component **out, rtcosim_error *err);

struct run_args;
/* A real-time run: make run_variants_wrap the build's first wrap (chaining
 * to the one there) with the run's clock (NULL: monotonic). */
void cli_run_variants_chain(const struct run_args *a, rtcosim_system_build_options *build,
                            rtcosim_clock *clock);

struct rtcosim_master;
/* After the run: find each component in the run's masters (builds made and
 * freed on the way, e.g. a calibration probe, do not count). */
void run_variants_find(run_variants *v, const struct rtcosim_master *const *masters, size_t n);

/* Per component: strategy, periods, misses, delivered share per variant. */
void run_variants_print(const run_variants *v, FILE *out);
/* A real-time report: the column variant.COMP (delivered variant's name)
 * and variant_missed.COMP added to DIR/frames.csv by frame time, and
 * variants.COMP.* rows appended to DIR/summary.csv. 0 or 1 (printed). */
int run_variants_report(const run_variants *v, const char *dir);

#endif
