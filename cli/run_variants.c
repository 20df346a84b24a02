/* rtcosim run --variants: the specs of the command line, the build wrap that
 * loads one instance per variant and makes the component an anytime task,
 * and what the run reports of it (summary lines, report columns). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rtcosim/anytime_component.h"
#include "rtcosim/dcp.h"
#include "rtcosim/master.h"
#include "rtcosim/native.h"
#include "run_args.h"
#include "run_report_columns.h"
#include "run_variants.h"

bool run_variants_active(const run_variants *v) { return v && v->count > 0; }

int run_variants_add(run_variants *v, const char *text)
{
    if (v->count == RUN_VARIANTS_MAX)
        return cli_fail("--variants: at most %d components", RUN_VARIANTS_MAX);
    run_variant_spec *s = &v->specs[v->count];
    memset(s, 0, sizeof *s);
    snprintf(s->text, sizeof s->text, "%s", text);
    const char *eq = strchr(text, '=');
    if (!eq || eq == text || (size_t)(eq - text) >= sizeof s->component)
        return cli_fail("--variants '%s': wants COMP=steps:H1,H2,.. or COMP=solvers:S1,S2,..",
                        text);
    snprintf(s->component, sizeof s->component, "%.*s", (int)(eq - text), text);
    for (size_t i = 0; i < v->count; i++)
        if (strcmp(v->specs[i].component, s->component) == 0)
            return cli_fail("--variants: component '%s' given twice", s->component);
    if (strlen(eq + 1) >= sizeof s->text - 1 - (size_t)(eq - text))
        return cli_fail("--variants '%s': too long", text);
    rtcosim_error err;
    if (rtcosim_anytime_spec_parse(eq + 1, &s->spec, &err) != RTCOSIM_OK)
        return cli_fail("--variants %s: %s", s->component, err.message);
    v->count++;
    return 0;
}

int run_variants_set_strategy(run_variants *v, const char *text)
{
    if (rtcosim_anytime_strategy_parse(text, &v->strategy) != 0)
        return cli_fail("--anytime-strategy: unknown strategy '%s' (escalate, timer, parallel)",
                        text);
    v->has_strategy = true;
    return 0;
}

int run_variants_set_budget(run_variants *v, const char *text)
{
    char *end = NULL;
    double b = strtod(text, &end);
    if (end == text || *end || !(b > 0 && b <= 1))
        return cli_fail("--anytime-budget: '%s' is not a share of the step in (0, 1]", text);
    v->budget = b;
    return 0;
}

static run_variant_spec *find_spec(const run_variants *v, const char *name)
{
    for (size_t i = 0; i < v->count; i++)
        if (strcmp(v->specs[i].component, name) == 0)
            return (run_variant_spec *)&v->specs[i];
    return NULL;
}

int run_variants_prepare(run_variants *v, const rtcosim_system_desc *desc,
                         const rtcosim_fmu_options *fmu)
{
    v->desc = desc;
    v->fmu = fmu;
    /* the system's org.rtcosim.variants annotations, where the command line
     * names no variants for the component */
    for (size_t k = 0; k < rtcosim_system_desc_component_count(desc); k++) {
        const rtcosim_ssd_component *c = rtcosim_system_desc_component(desc, k);
        if (!c->variants || find_spec(v, c->name))
            continue;
        char text[400];
        snprintf(text, sizeof text, "%s=%s", c->name, c->variants);
        if (run_variants_add(v, text))
            return 1;
        run_variant_spec *s = &v->specs[v->count - 1];
        s->has_strategy =
            c->variants_strategy && rtcosim_anytime_strategy_parse(c->variants_strategy,
                                                                   &s->strategy) == 0;
    }
    if ((v->has_strategy || v->budget > 0) && !v->count)
        return cli_fail("run: --anytime-strategy and --anytime-budget need --variants (or a "
                        "component's org.rtcosim.variants annotation)");
    for (size_t i = 0; i < v->count; i++) {
        run_variant_spec *s = &v->specs[i];
        int k = rtcosim_system_desc_find_component(desc, s->component);
        if (k < 0)
            return cli_fail("--variants: %s has no component '%s'", rtcosim_system_desc_file(desc),
                            s->component);
        const rtcosim_ssd_component *c = rtcosim_system_desc_component(desc, (size_t)k);
        if (rtcosim_dcp_is_dcpx(c->path))
            return cli_fail("--variants %s: component '%s' is a remote DCP slave; variants need "
                            "instances in this process",
                            s->text, s->component);
        if (!c->native_type && rtcosim_table_is_source(c->mime_type, c->path))
            return cli_fail("--variants %s: component '%s' is a table: it computes nothing to "
                            "vary", s->text, s->component);
        if (s->spec.model_exchange && c->ecu)
            return cli_fail("--variants %s: solvers: needs an FMU with model exchange; '%s' is "
                            "ECU code as a shared object (give steps:)",
                            s->text, s->component);
        if (s->spec.model_exchange && c->native_type)
            return cli_fail("--variants %s: solvers: needs an FMU with model exchange; '%s' is "
                            "the native model %s (give steps:)",
                            s->text, s->component, c->native_type);
    }
    return 0;
}

/* One instance per variant, as the build would load it (solvers: for model
 * exchange with that solver). */
static rtcosim_status load_instance(const run_variants *v, const rtcosim_ssd_component *c,
                                    const run_variant_spec *s, size_t k,
                                    rtcosim_component **out, rtcosim_error *err)
{
    if (c->native_type)
        return rtcosim_native_create(c->native_type, out, err);
    if (c->ecu)
        return rtcosim_system_load_ecu(c, out, err);
    rtcosim_fmu_options o = v->fmu ? *v->fmu : (rtcosim_fmu_options){0};
    if (s->spec.model_exchange) {
        o.interface_type = RTCOSIM_FMI_MODEL_EXCHANGE;
        o.solver = s->spec.solver[k] == RTCOSIM_ANYTIME_SOLVER_EULER ? RTCOSIM_ME_SOLVER_EULER
                                                                     : RTCOSIM_ME_SOLVER_CVODE;
        o.max_solver_step = s->spec.step_ns[k];
        o.model_exchange_fallback = false;
    }
    return rtcosim_fmu_load(c->path, &o, out, err);
}

rtcosim_status run_variants_wrap(void *context, const char *name, rtcosim_component *component,
                                 rtcosim_component **out, rtcosim_error *err)
{
    run_variants *v = context;
    run_variant_spec *s = find_spec(v, name);
    if (!s) {
        if (v->next)
            return v->next(v->next_context, name, component, out, err);
        *out = component;
        return RTCOSIM_OK;
    }
    const rtcosim_ssd_component *c =
        rtcosim_system_desc_component(v->desc, (size_t)rtcosim_system_desc_find_component(v->desc,
                                                                                          name));
    /* the build's instance tells early whether the model can save its state */
    const rtcosim_capabilities *caps = rtcosim_component_capabilities(component);
    if (!caps->can_get_set_state || !caps->can_serialize_state) {
        rtcosim_status st = rtcosim_error_set(
            err, RTCOSIM_EUNSUPPORTED,
            "--variants %s: model '%s' cannot save and restore its state (FMI "
            "canGetAndSetFMUState and canSerializeFMUState), which a variant abandoned at the "
            "deadline needs",
            s->text, rtcosim_component_model_name(component));
        rtcosim_component_free(component);
        return st;
    }
    rtcosim_component_free(component);
    rtcosim_component *instances[RTCOSIM_ANYTIME_MAX_VARIANTS] = {0};
    rtcosim_anytime_variant_info infos[RTCOSIM_ANYTIME_MAX_VARIANTS];
    char names[RTCOSIM_ANYTIME_MAX_VARIANTS][48];
    rtcosim_status st = RTCOSIM_OK;
    for (size_t k = 0; k < s->spec.count && !st; k++) {
        st = load_instance(v, c, s, k, &instances[k], err);
        double h = rtcosim_time_to_seconds(s->spec.step_ns[k]);
        if (!s->spec.model_exchange)
            snprintf(names[k], sizeof names[k], "h=%.6g", h);
        else if (s->spec.solver[k] == RTCOSIM_ANYTIME_SOLVER_EULER)
            snprintf(names[k], sizeof names[k], "euler:%.6g", h);
        else if (s->spec.step_ns[k])
            snprintf(names[k], sizeof names[k], "cvode:%.6g", h);
        else
            snprintf(names[k], sizeof names[k], "cvode");
        infos[k] = (rtcosim_anytime_variant_info){
            .name = names[k],
            .rank = (int)k + 1,
            /* steps: the set splits each period into micro steps of h;
             * solvers: the FMU's integrator does, one call per period */
            .step_ns = s->spec.model_exchange ? 0 : s->spec.step_ns[k],
            .solver = s->spec.solver[k]};
    }
    if (st) {
        for (size_t k = 0; k < s->spec.count; k++)
            rtcosim_component_free(instances[k]);
        return st;
    }
    rtcosim_anytime_component_options opts;
    rtcosim_anytime_component_options_init(&opts);
    if (s->has_strategy)
        opts.config.strategy = s->strategy;
    if (v->has_strategy)
        opts.config.strategy = v->strategy;
    opts.clock = v->clock;
    /* offline the deadline is a budget: a slow calibration is no refusal */
    opts.config.calibration_advisory = !v->real_time;
    opts.period_ns = v->period_ns;
    if (v->budget > 0)
        opts.budget = v->budget;
    if (v->step_log)
        opts.step_log = v->step_log;
    return rtcosim_anytime_component_from_instances(name, instances, infos, s->spec.count, &opts, out,
                                                    err);
}

void run_variants_find(run_variants *v, const rtcosim_master *const *masters, size_t n)
{
    for (size_t i = 0; i < v->count; i++) {
        v->specs[i].built = NULL;
        for (size_t m = 0; m < n && !v->specs[i].built; m++)
            if (masters[m])
                v->specs[i].built = rtcosim_master_component(masters[m], v->specs[i].component);
    }
}

void run_variants_print(const run_variants *v, FILE *out)
{
    for (size_t i = 0; i < v->count; i++) {
        const run_variant_spec *s = &v->specs[i];
        rtcosim_anytime *set = rtcosim_anytime_component_set(s->built);
        rtcosim_anytime_summary sum;
        if (!set || rtcosim_anytime_summary_get(set, &sum, NULL) != RTCOSIM_OK)
            continue;
        fprintf(out, "variants of %s (%s): %llu periods, %llu missed (late start %llu, stalled "
                     "%llu, strategy %llu); delivered",
                s->component,
                rtcosim_anytime_strategy_name(v->has_strategy ? v->strategy
                                              : s->has_strategy ? s->strategy
                                                                : RTCOSIM_ANYTIME_ESCALATE),
                (unsigned long long)sum.periods, (unsigned long long)sum.misses,
                (unsigned long long)sum.late_starts, (unsigned long long)sum.misses_stalled,
                (unsigned long long)sum.misses_strategy);
        for (size_t k = 0; k < sum.variant_count; k++)
            fprintf(out, "%s %s %.1f %%", k ? "," : "", sum.variants[k].name,
                    100.0 * sum.delivered_share[k]);
        uint64_t abandoned = 0, aborted = 0;
        for (size_t k = 0; k < sum.variant_count; k++) {
            abandoned += sum.variants[k].abandoned;
            aborted += sum.variants[k].aborted;
        }
        fprintf(out, "; aborted %llu, abandoned %llu\n", (unsigned long long)aborted,
                (unsigned long long)abandoned);
    }
}

/* frames.csv with the delivered variant and the miss of each component
 * joined on the frame's time (the step that started at it). */
typedef struct variant_cells {
    const run_variants *v;
    size_t cursor[RUN_VARIANTS_MAX];
} variant_cells;

static void add_variant_cells(void *context, FILE *outf, bool header, double t)
{
    variant_cells *vc = context;
    const run_variants *v = vc->v;
    size_t *cursor = vc->cursor;
    for (size_t i = 0; i < v->count; i++) {
        const run_variant_spec *s = &v->specs[i];
        if (header) {
            fprintf(outf, ",variant.%s,variant_missed.%s", s->component, s->component);
            continue;
        }
        rtcosim_anytime *set = rtcosim_anytime_component_set(s->built);
        size_t n = rtcosim_anytime_component_step_count(s->built);
        /* steps and frames both ascend in time: walk along */
        const rtcosim_anytime_step *step = NULL;
        while (cursor[i] < n) {
            const rtcosim_anytime_step *c = rtcosim_anytime_component_step(s->built, cursor[i]);
            double ct = rtcosim_time_to_seconds(c->t);
            if (fabs(ct - t) <= 1e-9 * fmax(1.0, fabs(t))) {
                step = c;
                break;
            }
            if (ct > t)
                break;
            cursor[i]++;
        }
        if (step && set) {
            rtcosim_anytime_summary sum;
            rtcosim_anytime_summary_get(set, &sum, NULL);
            fprintf(outf, ",%s,%d", sum.variants[step->delivered].name, step->missed);
        } else {
            fputs(",,", outf);
        }
    }
}

static int add_frame_columns(const run_variants *v, const char *dir)
{
    variant_cells vc = {.v = v};
    return cli_frames_csv_add_columns(dir, "variant", add_variant_cells, &vc);
}

int run_variants_report(const run_variants *v, const char *dir)
{
    if (!run_variants_active(v) || !dir)
        return 0;
    int rc = add_frame_columns(v, dir);
    if (rc)
        return rc;
    FILE *f;
    if ((rc = cli_summary_csv_open(dir, "variant", &f)) != 0)
        return rc;
    for (size_t i = 0; i < v->count; i++) {
        const run_variant_spec *s = &v->specs[i];
        rtcosim_anytime *set = rtcosim_anytime_component_set(s->built);
        rtcosim_anytime_summary sum;
        if (!set || rtcosim_anytime_summary_get(set, &sum, NULL) != RTCOSIM_OK)
            continue;
        fprintf(f, "variants.%s.periods,%llu,\n", s->component, (unsigned long long)sum.periods);
        fprintf(f, "variants.%s.misses,%llu,\n", s->component, (unsigned long long)sum.misses);
        fprintf(f, "variants.%s.late_starts,%llu,\n", s->component,
                (unsigned long long)sum.late_starts);
        fprintf(f, "variants.%s.misses_stalled,%llu,\n", s->component,
                (unsigned long long)sum.misses_stalled);
        fprintf(f, "variants.%s.misses_strategy,%llu,\n", s->component,
                (unsigned long long)sum.misses_strategy);
        for (size_t k = 0; k < sum.variant_count; k++)
            fprintf(f, "variants.%s.share.%s,%.6f,\n", s->component, sum.variants[k].name,
                    sum.delivered_share[k]);
    }
    return cli_summary_csv_close(f, dir, "variant");
}

void cli_run_variants_chain(const run_args *a, rtcosim_system_build_options *build,
                            rtcosim_clock *clock)
{
    run_variants *v = a->variants;
    if (!run_variants_active(v))
        return;
    v->next = build->wrap;
    v->next_context = build->wrap_context;
    build->wrap = run_variants_wrap;
    build->wrap_context = v;
    v->clock = clock;
}
