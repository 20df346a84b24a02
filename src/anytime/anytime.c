/* The anytime variant set: configuration, creation, the variants added to
 * it, and teardown. Running one variant (variant.c), starting the set with
 * its calibration (start.c) and one period with its three strategies
 * (period.c) live beside it; the object layout is in anytime_private.h. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "anytime/anytime_internal.h"
#include "anytime/anytime_private.h"

/* ---- configuration ---------------------------------------------------- */

void rtcosim_anytime_config_init(rtcosim_anytime_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->name = "anytime";
    cfg->minimal_max_share = 0.5;
    cfg->calibration_runs = 20;
    cfg->stats_window = 64;
    cfg->quantile = 0.95;
    cfg->forget_after_periods = 50;
    cfg->idle_reserve = -1; /* derived at start */
    cfg->start_quantile = 0.999;
    cfg->first_start_quantile = 0.5;
    cfg->wakeup_samples = 200;
    cfg->wakeup_quantile = 0.99;
    cfg->repair = true;
    cfg->timer_upgrade = true;
}

const char *rtcosim_anytime_outcome_name(rtcosim_anytime_outcome outcome)
{
    static const char *const names[] = {"not run", "completed", "aborted",
                                        "abandoned", "busy", "failed"};
    return (unsigned)outcome < sizeof names / sizeof names[0] ? names[outcome] : "?";
}

const char *rtcosim_anytime_miss_name(rtcosim_anytime_miss miss)
{
    static const char *const names[] = {"on time", "late start", "stalled", "strategy"};
    return (unsigned)miss < sizeof names / sizeof names[0] ? names[miss] : "?";
}

static const char *const strategy_names[] = {"escalate", "timer", "parallel"};

const char *rtcosim_anytime_strategy_name(rtcosim_anytime_strategy strategy)
{
    return (unsigned)strategy < 3 ? strategy_names[strategy] : "?";
}

int rtcosim_anytime_strategy_parse(const char *text, rtcosim_anytime_strategy *out)
{
    for (int i = 0; i < 3; i++)
        if (text && strcmp(text, strategy_names[i]) == 0) {
            *out = (rtcosim_anytime_strategy)i;
            return 0;
        }
    return -1;
}

rtcosim_status rtcosim_anytime_create(const rtcosim_anytime_config *cfg, rtcosim_clock *clock,
                                      rtcosim_anytime **out, rtcosim_error *err)
{
    if (!out)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "anytime: no output handle given");
    *out = NULL;
    if (!cfg || !clock)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "anytime: configuration or clock missing");
    const char *name = cfg->name && *cfg->name ? cfg->name : "anytime";
    for (size_t i = 0; cfg->output_names && i < cfg->output_count; i++)
        if (cfg->output_names[i] && strpbrk(cfg->output_names[i], ",\"\n\r"))
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "anytime set '%s': output name '%s' contains a comma, quote "
                                     "or line break",
                                     name, cfg->output_names[i]);
    if (cfg->period_ns <= 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime set '%s': period %" PRId64 " ns must be positive", name,
                                 cfg->period_ns);
    if ((unsigned)cfg->strategy > RTCOSIM_ANYTIME_PARALLEL)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "anytime set '%s': unknown strategy %d",
                                 name, (int)cfg->strategy);
    if ((unsigned)cfg->criterion > RTCOSIM_ANYTIME_PICK_SOLVER)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "anytime set '%s': unknown criterion %d",
                                 name, (int)cfg->criterion);
    if (cfg->safety_margin_ns < 0 || cfg->safety_margin_ns >= cfg->period_ns)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime set '%s': safety margin %" PRId64
                                 " ns must be in [0, period %" PRId64 " ns)",
                                 name, cfg->safety_margin_ns, cfg->period_ns);
    if (!(cfg->minimal_max_share > 0 && cfg->minimal_max_share <= 1))
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime set '%s': minimal_max_share %g must be in (0, 1]", name,
                                 cfg->minimal_max_share);
    if (!(cfg->idle_reserve < 1) || (cfg->idle_reserve >= 0 &&
                                     cfg->safety_margin_ns +
                                             anytime_idle_reserve_ns(cfg->idle_reserve,
                                                                     cfg->period_ns) >=
                                         cfg->period_ns))
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime set '%s': idle_reserve %g must be below 1 (negative: "
                                 "derived at start) and leave time for work after the safety "
                                 "margin",
                                 name, cfg->idle_reserve);
    if (!(cfg->quantile > 0 && cfg->quantile <= 1))
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime set '%s': quantile %g must be in (0, 1]", name,
                                 cfg->quantile);
    if (!(cfg->start_quantile > 0 && cfg->start_quantile <= 1) ||
        !(cfg->first_start_quantile > 0 && cfg->first_start_quantile <= 1))
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime set '%s': start_quantile %g and first_start_quantile %g "
                                 "must be in (0, 1]",
                                 name, cfg->start_quantile, cfg->first_start_quantile);
    if (cfg->wakeup_samples < 0 || cfg->wakeup_samples > 100000 ||
        !(cfg->wakeup_quantile > 0 && cfg->wakeup_quantile <= 1))
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime set '%s': wakeup_samples %d must be 0..100000 and "
                                 "wakeup_quantile %g in (0, 1]",
                                 name, cfg->wakeup_samples, cfg->wakeup_quantile);
    if (cfg->calibration_runs < 1 || cfg->stats_window < 1 || cfg->calibration_limit_ns < 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime set '%s': calibration_runs and stats_window must be at "
                                 "least 1 and calibration_limit_ns not negative",
                                 name);
    if (cfg->output_count == 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime set '%s': a computation needs at least one output", name);

    rtcosim_anytime *set = calloc(1, sizeof *set);
    if (!set)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "anytime set '%s': out of memory", name);
    set->cfg = *cfg;
    snprintf(set->name, sizeof set->name, "%s", name);
    set->cfg.name = set->name;
    set->cfg.output_names = NULL;
    set->clock = clock;
    if (set->cfg.safety_margin_ns == 0)
        set->cfg.safety_margin_ns = cfg->period_ns / 20;
    if (set->cfg.calibration_limit_ns == 0)
        set->cfg.calibration_limit_ns = 10 * cfg->period_ns;
    if (set->cfg.forget_after_periods == 0)
        set->cfg.forget_after_periods = 50;
    set->period_ns = cfg->period_ns;
    set->sim_time = cfg->start_time_ns;
    set->state = calloc(1, cfg->state_size ? cfg->state_size : 1);
    set->outputs = calloc(cfg->output_count, sizeof *set->outputs);
    set->inputs = calloc(cfg->input_count ? cfg->input_count : 1, sizeof *set->inputs);
    set->repair_state = calloc(1, cfg->state_size ? cfg->state_size : 1);
    set->repair_inputs = calloc(cfg->input_count ? cfg->input_count : 1, sizeof *set->inputs);
    bool ok = set->state && set->outputs && set->inputs && set->repair_state && set->repair_inputs;
    if (ok && cfg->state_size && cfg->initial_state)
        memcpy(set->state, cfg->initial_state, cfg->state_size);
    if (ok && cfg->output_names) {
        set->output_names = calloc(cfg->output_count, sizeof *set->output_names);
        ok = set->output_names != NULL;
        for (size_t i = 0; ok && i < cfg->output_count; i++) {
            set->output_names[i] = strdup(cfg->output_names[i] ? cfg->output_names[i] : "");
            ok = set->output_names[i] != NULL;
        }
    }
    if (ok && cfg->record_capacity) {
        set->records = calloc(cfg->record_capacity, sizeof *set->records);
        set->record_outputs = calloc(cfg->record_capacity * cfg->output_count, sizeof(double));
        ok = set->records && set->record_outputs;
    }
    if (!ok) {
        rtcosim_anytime_free(set);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "anytime set '%s': out of memory", name);
    }
    atomic_init(&set->pending_period_ns, 0);
    set->margin_min = INFINITY;
    set->margin_max = -INFINITY;
    *out = set;
    return RTCOSIM_OK;
}

/* ---- variants ---------------------------------------------------------- */

static rtcosim_status check_variant_info(rtcosim_anytime *set,
                                         const rtcosim_anytime_variant_info *info,
                                         rtcosim_error *err)
{
    if (!set)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "anytime: no variant set given");
    if (!info || !info->name || !*info->name)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "anytime set '%s': a variant needs a name",
                                 set->name);
    if (strpbrk(info->name, ",\"\n\r") || strlen(info->name) >= sizeof set->variants[0].name)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime set '%s': variant name '%s' is too long or contains "
                                 "a comma, quote or line break",
                                 set->name, info->name);
    if (set->started)
        return rtcosim_error_set(err, RTCOSIM_ESTATE,
                                 "anytime set '%s': variant '%s' added after start", set->name,
                                 info->name);
    if (set->variant_count == RTCOSIM_ANYTIME_MAX_VARIANTS)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime set '%s': variant '%s' exceeds the maximum of %d variants",
                                 set->name, info->name, RTCOSIM_ANYTIME_MAX_VARIANTS);
    if (info->step_ns < 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime set '%s': variant '%s' has a negative step", set->name,
                                 info->name);
    for (size_t i = 0; i < set->variant_count; i++)
        if (strcmp(set->variants[i].name, info->name) == 0)
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "anytime set '%s': two variants are named '%s'", set->name,
                                     info->name);
    return RTCOSIM_OK;
}

static rtcosim_status variant_init(rtcosim_anytime *set, const rtcosim_anytime_variant_info *info,
                                   variant **out, rtcosim_error *err)
{
    variant *v = &set->variants[set->variant_count];
    memset(v, 0, sizeof *v);
    snprintf(v->name, sizeof v->name, "%s", info->name);
    v->index = set->variant_count;
    v->rank = info->rank;
    v->step_ns = info->step_ns;
    v->solver = info->solver;
    v->set = set;
    v->ctx.set = set;
    v->ctx.index = v->index;
    atomic_init(&v->ctx.cancel, false);
    atomic_init(&v->running, false);
    v->state = calloc(1, set->cfg.state_size ? set->cfg.state_size : 1);
    v->inputs = calloc(set->cfg.input_count ? set->cfg.input_count : 1, sizeof *v->inputs);
    v->outputs = calloc(set->cfg.output_count, sizeof *v->outputs);
    if (!v->state || !v->inputs || !v->outputs ||
        !anytime_stats_init(&v->stats, set->cfg.stats_window)) {
        variant_release(v);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "anytime set '%s': out of memory",
                                 set->name);
    }
    *out = v;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_anytime_add_native(rtcosim_anytime *set,
                                          const rtcosim_anytime_variant_info *info,
                                          rtcosim_anytime_fn fn, void *user, rtcosim_error *err)
{
    rtcosim_status st = check_variant_info(set, info, err);
    if (st)
        return st;
    if (!fn)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime set '%s': native variant '%s' has no function",
                                 set->name, info->name);
    variant *v;
    if ((st = variant_init(set, info, &v, err)))
        return st;
    v->fn = fn;
    v->user = user;
    set->variant_count++;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_anytime_add_component(rtcosim_anytime *set,
                                             const rtcosim_anytime_variant_info *info,
                                             rtcosim_component *component,
                                             const uint32_t *input_vrs,
                                             const uint32_t *output_vrs, rtcosim_error *err)
{
    rtcosim_status st = check_variant_info(set, info, err);
    if (st)
        return st;
    if (!component || !output_vrs || (set->cfg.input_count && !input_vrs))
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "anytime set '%s': component variant '%s' needs a component, "
                                 "%zu input and %zu output value references",
                                 set->name, info->name, set->cfg.input_count,
                                 set->cfg.output_count);
    variant *v;
    if ((st = variant_init(set, info, &v, err)))
        return st;
    v->component = component;
    v->input_vrs = calloc(set->cfg.input_count ? set->cfg.input_count : 1, sizeof(uint32_t));
    v->output_vrs = calloc(set->cfg.output_count, sizeof(uint32_t));
    if (!v->input_vrs || !v->output_vrs) {
        variant_release(v);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "anytime set '%s': out of memory",
                                 set->name);
    }
    if (set->cfg.input_count)
        memcpy(v->input_vrs, input_vrs, set->cfg.input_count * sizeof(uint32_t));
    memcpy(v->output_vrs, output_vrs, set->cfg.output_count * sizeof(uint32_t));
    set->variant_count++;
    return RTCOSIM_OK;
}

/* ---- teardown ---------------------------------------------------------- */

void variant_release(variant *v)
{
    if (v->snapshot)
        rtcosim_component_free_state(v->component, v->snapshot);
    if (v->loaded)
        rtcosim_component_free_state(v->component, v->loaded);
    v->snapshot = v->loaded = NULL;
    free(v->state);
    free(v->inputs);
    free(v->outputs);
    free(v->input_vrs);
    free(v->output_vrs);
    free(v->sync_bytes);
    v->sync_bytes = NULL;
    v->state = NULL;
    v->inputs = v->outputs = NULL;
    v->input_vrs = v->output_vrs = NULL;
    anytime_stats_release(&v->stats);
}

void anytime_stop_workers(rtcosim_anytime *set)
{
    for (size_t i = 0; i < set->variant_count; i++) {
        variant *v = &set->variants[i];
        if (v->worker_started) {
            atomic_store_explicit(&v->ctx.cancel, true, memory_order_relaxed);
            atomic_store_explicit(&v->quit, true, memory_order_release);
            sem_post(&v->go);
            pthread_join(v->thread, NULL);
            v->worker_started = false;
        }
    }
    set->running = false;
}

void rtcosim_anytime_free(rtcosim_anytime *set)
{
    if (!set)
        return;
    anytime_stop_workers(set);
    for (size_t i = 0; i < set->variant_count; i++) {
        variant *v = &set->variants[i];
        if (v->go_ready)
            sem_destroy(&v->go);
        variant_release(v);
    }
    if (set->done_ready)
        sem_destroy(&set->done);
    if (set->output_names)
        for (size_t i = 0; i < set->cfg.output_count; i++)
            free(set->output_names[i]);
    free(set->output_names);
    free(set->committed_bytes);
    free(set->records);
    free(set->record_outputs);
    free(set->state);
    free(set->outputs);
    free(set->inputs);
    free(set->repair_state);
    free(set->repair_inputs);
    free(set);
}
