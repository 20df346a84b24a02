/* SSD annotations and the default experiment: start/stop times, the
 * org.rtcosim.master and org.rtcosim.realtime annotations (system.h), and
 * the annotations libcosim and OMSimulator write for their masters. Split
 * from ssd.c; every rejection names file and line. */
#include "rtcosim/anytime_component.h"
#include "rtcosim/realtime.h"
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "system/ssd_internal.h"

/* ---- default experiment and master annotation ---------------------------- */

static rtcosim_status read_time(parse_ctx *ctx, const xmlNode *n, const char *attr, bool *has,
                                rtcosim_time_ns *out)
{
    const char *text = system_attr(ctx->d, n, attr);
    if (!text)
        return RTCOSIM_OK;
    rtcosim_error e;
    if (rtcosim_time_parse_seconds(text, out, &e) != RTCOSIM_OK)
        return FAIL(ctx, n, RTCOSIM_EFORMAT, "bad %s \"%s\": %s", attr, text, e.message);
    *has = true;
    return RTCOSIM_OK;
}

static rtcosim_status read_positive_time(parse_ctx *ctx, const xmlNode *n, const char *attr,
                                         bool *has, rtcosim_time_ns *out)
{
    rtcosim_status st = read_time(ctx, n, attr, has, out);
    if (st == RTCOSIM_OK && *has && *out <= 0)
        return FAIL(ctx, n, RTCOSIM_EFORMAT, "%s must be positive", attr);
    return st;
}

static int pick(const char *text, const char *const *names, int count)
{
    for (int i = 0; i < count; i++)
        if (strcmp(text, names[i]) == 0)
            return i;
    return -1;
}

static rtcosim_status read_choice(parse_ctx *ctx, const xmlNode *n, const char *attr,
                                  const char *const *names, int count, int *out)
{
    const char *text = system_attr(ctx->d, n, attr);
    if (!text)
        return RTCOSIM_OK;
    int i = pick(text, names, count);
    if (i < 0) {
        char allowed[128] = "";
        for (int k = 0; k < count; k++)
            snprintf(allowed + strlen(allowed), sizeof allowed - strlen(allowed), "%s%s",
                     k ? ", " : "", names[k]);
        return FAIL(ctx, n, RTCOSIM_EFORMAT, "rtcosim master: bad %s \"%s\" (%s)", attr, text,
                    allowed);
    }
    *out = i + 1; /* 0 is DEFAULT in every enum */
    return RTCOSIM_OK;
}

/* An estimator spec with a relative map file resolved against the .ssd's
 * directory (NULL: out of memory). */
static const char *resolve_estimator(rtcosim_system_desc *d, const char *spec)
{
    if (strncmp(spec, "map:", 4) == 0 && spec[4] != '/')
        return system_printf(d, "map:%s/%s", d->base_dir, spec + 4);
    return spec;
}

/* <rc:Estimator signal="component.variable" spec="SPEC"/>: one signal's
 * estimator, as --estimator SIGNAL=SPEC; kept as that text. */
static rtcosim_status read_signal_estimator(parse_ctx *ctx, const xmlNode *c,
                                            rtcosim_ssd_realtime_settings *r)
{
    rtcosim_system_desc *d = ctx->d;
    for (const xmlAttr *a = c->properties; a; a = a->next)
        if (!a->ns && strcmp((const char *)a->name, "signal") != 0 &&
            strcmp((const char *)a->name, "spec") != 0)
            return FAIL(ctx, c, RTCOSIM_EFORMAT,
                        "rtcosim real-time: Estimator: unknown attribute '%s' (signal, spec)",
                        (const char *)a->name);
    const char *signal = system_attr(d, c, "signal");
    const char *spec = system_attr(d, c, "spec");
    if (!signal || !*signal || !spec || !*spec)
        return FAIL(ctx, c, RTCOSIM_EFORMAT,
                    "rtcosim real-time: Estimator needs signal=\"component.variable\" and "
                    "spec=\"SPEC\"");
    if (strcspn(signal, "=,:") != strlen(signal))
        return FAIL(ctx, c, RTCOSIM_EFORMAT,
                    "rtcosim real-time: Estimator: signal '%s' holds '=', ',' or ':'", signal);
    /* The signal is "component.variable": a component of the system, a dot. */
    bool known = false;
    for (size_t i = 0; i < rtcosim_system_desc_component_count(d) && !known; i++) {
        const char *comp = rtcosim_system_desc_component(d, i)->name;
        size_t len = strlen(comp);
        known = strncmp(signal, comp, len) == 0 && signal[len] == '.' && signal[len + 1];
    }
    if (!known)
        return FAIL(ctx, c, RTCOSIM_ENOTFOUND,
                    "rtcosim real-time: Estimator: signal '%s' is not component.variable of a "
                    "component of the system",
                    signal);
    size_t slen = strlen(signal);
    for (size_t i = 0; i < d->rt_estimator_count; i++)
        if (strncmp(d->rt_estimators[i], signal, slen) == 0 && d->rt_estimators[i][slen] == '=')
            return FAIL(ctx, c, RTCOSIM_EFORMAT,
                        "rtcosim real-time: Estimator of '%s' given twice", signal);
    if (!(spec = resolve_estimator(d, spec)))
        return NOMEM(ctx);
    rtcosim_error e;
    if (rtcosim_estimator_spec_parse(spec, &(rtcosim_estimator_spec){0}, &e) != RTCOSIM_OK)
        return FAIL(ctx, c, RTCOSIM_EFORMAT, "rtcosim real-time: Estimator of '%s': %s", signal,
                    e.message);
    const char *text = system_printf(d, "%s=%s", signal, spec);
    const char **slot = text ? system_grow(&d->rt_estimators, &d->rt_estimator_count,
                                           &d->rt_estimator_cap, sizeof *slot)
                             : NULL;
    if (!slot)
        return NOMEM(ctx);
    *slot = text;
    r->signal_estimators = d->rt_estimators;
    r->signal_estimator_count = d->rt_estimator_count;
    return RTCOSIM_OK;
}

/* rc:RealTime of the org.rtcosim.realtime annotation: the real-time
 * settings (system.h). Values are checked with
 * the real-time layer's own parsers so that errors show here, with the line. */
static rtcosim_status read_realtime(parse_ctx *ctx, const xmlNode *n)
{
    static const char *const attrs[] = {"rtFactor",       "overrun",   "exchange",
                                        "estimator",      "partnerTimeout", "calibrate",
                                        "partnerWindow"};
    rtcosim_system_desc *d = ctx->d;
    rtcosim_ssd_realtime_settings *r = &d->realtime;
    if (r->present)
        return FAIL(ctx, n, RTCOSIM_EFORMAT, "second rtcosim real-time annotation");
    r->present = true;
    r->line = (int)xmlGetLineNo(n);
    for (const xmlAttr *a = n->properties; a; a = a->next)
        if (!a->ns && pick((const char *)a->name, attrs, 7) < 0)
            return FAIL(ctx, n, RTCOSIM_EFORMAT,
                        "rtcosim real-time: unknown attribute '%s' (rtFactor, overrun, exchange, "
                        "estimator, partnerTimeout, partnerWindow, calibrate)",
                        (const char *)a->name);
    rtcosim_error e;
    const char *text = system_attr(d, n, "rtFactor");
    if (text) {
        if (!system_parse_double(text, &r->rt_factor) || !(r->rt_factor > 0))
            return FAIL(ctx, n, RTCOSIM_EFORMAT, "rtcosim real-time: bad rtFactor \"%s\" (> 0)",
                        text);
        r->has_rt_factor = true;
    }
    if ((text = system_attr(d, n, "overrun"))) {
        rtcosim_overrun_policy policy;
        if (rtcosim_overrun_policy_parse(text, &policy, &e) != RTCOSIM_OK)
            return FAIL(ctx, n, RTCOSIM_EFORMAT, "rtcosim real-time: %s", e.message);
        r->has_overrun = true;
        r->overrun = (int)policy;
    }
    if ((text = system_attr(d, n, "exchange"))) {
        char *spelled = (char *)system_strdup(d, text);
        if (!spelled)
            return NOMEM(ctx);
        for (char *p = spelled; *p; p++)
            if (*p == ',')
                *p = '-';
        rtcosim_exchange_pattern pattern;
        if (rtcosim_exchange_pattern_parse(spelled, &pattern, &e) != RTCOSIM_OK)
            return FAIL(ctx, n, RTCOSIM_EFORMAT, "rtcosim real-time: exchange: %s", e.message);
        r->exchange = spelled;
    }
    if ((text = system_attr(d, n, "estimator"))) {
        if (!(text = resolve_estimator(d, text)))
            return NOMEM(ctx);
        if (rtcosim_estimator_spec_parse(text, &(rtcosim_estimator_spec){0}, &e) != RTCOSIM_OK)
            return FAIL(ctx, n, RTCOSIM_EFORMAT, "rtcosim real-time: estimator: %s", e.message);
        r->estimator = text;
    }
    rtcosim_status st = read_positive_time(ctx, n, "partnerTimeout", &r->has_partner_timeout,
                                           &r->partner_timeout);
    if (st == RTCOSIM_OK)
        st = read_positive_time(ctx, n, "partnerWindow", &r->has_partner_window,
                                &r->partner_window);
    if (st != RTCOSIM_OK)
        return st;
    if ((text = system_attr(d, n, "calibrate"))) {
        if (!system_parse_bool(text, &r->calibrate))
            return FAIL(ctx, n, RTCOSIM_EFORMAT, "rtcosim real-time: bad calibrate \"%s\"", text);
        r->has_calibrate = true;
    }
    /* The parts: NonRealTime elements of one part="NAME" form that part;
     * those without a part form one part together, the first. */
    const char *unnamed = NULL, *named = NULL; /* "a,b" and "x,y;z" */
    const char *part_labels[64] = {0};
    const char *part_lists[64] = {0};
    size_t part_count = 0;
    for (const xmlNode *c = n->children; c; c = c->next) {
        if (system_is(c, RTCOSIM_MASTER_NS, "Estimator")) {
            st = read_signal_estimator(ctx, c, r);
            if (st != RTCOSIM_OK)
                return st;
            continue;
        }
        if (!system_is(c, RTCOSIM_MASTER_NS, "NonRealTime"))
            continue;
        const char *name = system_attr(d, c, "component");
        const char *part = system_attr(d, c, "part");
        if (rtcosim_system_desc_find_component(d, name ? name : "") < 0)
            return FAIL(ctx, c, RTCOSIM_ENOTFOUND,
                        "rtcosim real-time: NonRealTime names unknown component '%s'",
                        name ? name : "");
        if (part && !*part)
            return FAIL(ctx, c, RTCOSIM_EFORMAT, "rtcosim real-time: NonRealTime: empty part");
        size_t len = strlen(name);
        for (size_t k = 0; k <= part_count; k++) {
            const char *list = k < part_count ? part_lists[k] : unnamed;
            for (const char *p = list; p && *p;) {
                const char *comma = strchr(p, ',');
                size_t n2 = comma ? (size_t)(comma - p) : strlen(p);
                if (n2 == len && strncmp(p, name, len) == 0)
                    return FAIL(ctx, c, RTCOSIM_EFORMAT,
                                "rtcosim real-time: component '%s' marked non-real-time twice",
                                name);
                p = comma ? comma + 1 : NULL;
            }
        }
        const char **list = &unnamed;
        if (part) {
            size_t k = 0;
            while (k < part_count && strcmp(part_labels[k], part) != 0)
                k++;
            if (k == part_count) {
                if (part_count == sizeof part_labels / sizeof part_labels[0])
                    return FAIL(ctx, c, RTCOSIM_EFORMAT, "rtcosim real-time: too many parts");
                part_labels[part_count++] = part;
            }
            list = &part_lists[k];
        }
        *list = *list ? system_printf(d, "%s,%s", *list, name) : system_strdup(d, name);
        if (!*list)
            return NOMEM(ctx);
    }
    for (size_t k = 0; k < part_count; k++) {
        named = named ? system_printf(d, "%s;%s", named, part_lists[k]) : part_lists[k];
        if (!named)
            return NOMEM(ctx);
    }
    r->non_realtime = unnamed && named ? system_printf(d, "%s;%s", unnamed, named)
                                       : unnamed ? unnamed : named;
    if ((unnamed || named) && !r->non_realtime)
        return NOMEM(ctx);
    return RTCOSIM_OK;
}

bool rtcosim_ssd_parse_tolerance(const char *text, double *rtol, double *atol)
{
    char buf[128];
    if (!text || strlen(text) >= sizeof buf)
        return false;
    snprintf(buf, sizeof buf, "%s", text);
    char *comma = strchr(buf, ',');
    if (comma)
        *comma++ = '\0';
    *atol = 0;
    if (!system_parse_double(buf, rtol) || !(*rtol > 0) || !isfinite(*rtol))
        return false;
    return !comma || (system_parse_double(comma, atol) && *atol > 0 && isfinite(*atol));
}

/* stepTolerance, minStepSize, maxStepSize of the master annotation. */
static rtcosim_status read_step_bounds(parse_ctx *ctx, const xmlNode *m,
                                       rtcosim_ssd_master_settings *s)
{
    const char *tol = system_attr(ctx->d, m, "stepTolerance");
    if (tol && !rtcosim_ssd_parse_tolerance(tol, &s->step_rtol, &s->step_atol))
        return FAIL(ctx, m, RTCOSIM_EFORMAT,
                    "rtcosim master: bad stepTolerance \"%s\" (REL[,ABS], both > 0)", tol);
    bool has = false;
    rtcosim_status st = read_positive_time(ctx, m, "minStepSize", &has, &s->min_step_ns);
    if (st == RTCOSIM_OK)
        st = read_positive_time(ctx, m, "maxStepSize", &has, &s->max_step_ns);
    if (st == RTCOSIM_OK && s->min_step_ns && s->max_step_ns && s->min_step_ns > s->max_step_ns)
        return FAIL(ctx, m, RTCOSIM_EFORMAT, "rtcosim master: minStepSize above maxStepSize");
    return st;
}

static rtcosim_status read_master(parse_ctx *ctx, const xmlNode *m)
{
    static const char *const attrs[] = {"stepSize",      "order",       "coupling",
                                        "correction",    "stepInput",   "stepControl",
                                        "threads",       "isolate",     "stepTolerance",
                                        "minStepSize",   "maxStepSize"};
    static const char *const step_inputs[] = {"mean", "start"};
    static const char *const orders[] = {"jacobi", "gauss-seidel"};
    static const char *const couplings[] = {"zoh", "foh", "soh"};
    static const char *const corrections[] = {"none", "dead-time", "integrator"};
    rtcosim_system_desc *d = ctx->d;
    rtcosim_ssd_master_settings *s = &d->master;
    if (s->present)
        return FAIL(ctx, m, RTCOSIM_EFORMAT, "second rtcosim master annotation");
    s->present = true;
    for (const xmlAttr *a = m->properties; a; a = a->next)
        if (!a->ns && pick((const char *)a->name, attrs, (int)(sizeof attrs / sizeof *attrs)) < 0)
            return FAIL(ctx, m, RTCOSIM_EFORMAT, "rtcosim master: unknown attribute '%s'",
                        (const char *)a->name);
    int order = 0, coupling = 0, correction = 0, step_input = 0;
    rtcosim_status st = read_positive_time(ctx, m, "stepSize", &s->has_step_size, &s->step_size_ns);
    if (st == RTCOSIM_OK)
        st = read_choice(ctx, m, "order", orders, 2, &order);
    if (st == RTCOSIM_OK)
        st = read_choice(ctx, m, "coupling", couplings, 3, &coupling);
    if (st == RTCOSIM_OK)
        st = read_choice(ctx, m, "stepInput", step_inputs, 2, &step_input);
    const char *correction_text = system_attr(d, m, "correction");
    if (st == RTCOSIM_OK && correction_text && strcmp(correction_text, "energy") == 0)
        correction = RTCOSIM_SSD_CORRECTION_DEAD_TIME; /* the plain energy-preserving correction */
    else if (st == RTCOSIM_OK)
        st = read_choice(ctx, m, "correction", corrections, 3, &correction);
    if (st != RTCOSIM_OK)
        return st;
    s->order = (rtcosim_ssd_order)order;
    s->coupling = (rtcosim_ssd_coupling)coupling;
    s->correction = (rtcosim_ssd_correction)correction;
    s->step_input = (rtcosim_ssd_step_input)step_input;
    const char *sc = system_attr(d, m, "stepControl");
    if (sc) {
        if (!system_parse_bool(sc, &s->step_control))
            return FAIL(ctx, m, RTCOSIM_EFORMAT, "rtcosim master: bad stepControl \"%s\"", sc);
        s->has_step_control = true;
    }
    if ((st = read_step_bounds(ctx, m, s)) != RTCOSIM_OK)
        return st;
    const char *threads = system_attr(d, m, "threads");
    if (threads) {
        int64_t t = 0;
        if (!system_parse_int64(threads, &t) || t < 1 || t > 1024)
            return FAIL(ctx, m, RTCOSIM_EFORMAT, "rtcosim master: bad threads \"%s\" (1..1024)",
                        threads);
        s->threads = (int)t;
    }
    s->isolate = system_attr(d, m, "isolate");
    if (s->isolate && !*s->isolate)
        return FAIL(ctx, m, RTCOSIM_EFORMAT,
                    "rtcosim master: empty isolate (\"all\" or component names)");
    for (const xmlNode *c = m->children; c; c = c->next) {
        if (system_is(c, RTCOSIM_MASTER_NS, "PowerBond")) {
            rtcosim_ssd_power_bond bond = {system_attr(d, c, "effort"), system_attr(d, c, "flow"),
                                           (int)xmlGetLineNo(c)};
            if (!bond.effort || !bond.flow || !strchr(bond.effort, '.') || !strchr(bond.flow, '.'))
                return FAIL(ctx, c, RTCOSIM_EFORMAT,
                            "rtcosim master: PowerBond needs effort and flow as component.variable");
            rtcosim_ssd_power_bond *slot =
                system_grow(&d->bonds, &d->bond_count, &d->bond_cap, sizeof *slot);
            if (!slot)
                return NOMEM(ctx);
            *slot = bond;
            continue;
        }
        if (!system_is(c, RTCOSIM_MASTER_NS, "Component"))
            continue;
        const char *name = system_attr(d, c, "name");
        int idx = name ? rtcosim_system_desc_find_component(d, name) : -1;
        if (idx < 0)
            return FAIL(ctx, c, RTCOSIM_ENOTFOUND, "rtcosim master: unknown component '%s'",
                        name ? name : "");
        for (size_t i = 0; i < d->rate_count; i++)
            if (d->rates[i].component_index == idx)
                return FAIL(ctx, c, RTCOSIM_EFORMAT, "rtcosim master: component '%s' given twice",
                            name);
        rtcosim_ssd_component_rate rate = {.component = d->components[idx].pub.name,
                                           .component_index = idx};
        bool has_step = false;
        st = read_positive_time(ctx, c, "stepSize", &has_step, &rate.step_ns);
        if (st != RTCOSIM_OK)
            return st;
        const char *mult = system_attr(d, c, "stepMultiple");
        if (mult && (!system_parse_int64(mult, &rate.multiple) || rate.multiple < 1))
            return FAIL(ctx, c, RTCOSIM_EFORMAT, "rtcosim master: bad stepMultiple \"%s\"", mult);
        if (has_step == (mult != NULL))
            return FAIL(ctx, c, RTCOSIM_EFORMAT,
                        "rtcosim master: component '%s' needs exactly one of stepSize and stepMultiple",
                        name);
        rtcosim_ssd_component_rate *slot =
            system_grow(&d->rates, &d->rate_count, &d->rate_cap, sizeof *slot);
        if (!slot)
            return NOMEM(ctx);
        *slot = rate;
    }
    return RTCOSIM_OK;
}

/* First child element with this local name, in any namespace: other
 * masters' annotations are identified by their type, their namespace URIs
 * differ between tool versions, and their readers (boost property trees,
 * pugixml) match the written name: an "osp:Algorithm" whose prefix is not
 * declared (libxml2 then keeps the whole name) counts too. */
static const xmlNode *child_named(const xmlNode *n, const char *local)
{
    for (const xmlNode *c = n ? n->children : NULL; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        const char *name = (const char *)c->name, *colon = strchr(name, ':');
        if (strcmp(name, local) == 0 || (!c->ns && colon && strcmp(colon + 1, local) == 0))
            return c;
    }
    return NULL;
}

/* libcosim's annotation (type "com.opensimulationplatform", OSPAnnotations.xsd
 * of libcosim; its ssp_parser reads it in ssd:DefaultExperiment):
 * osp:Algorithm/osp:FixedStepAlgorithm baseStepSize="H" [numWorkerThreads="N"].
 * libcosim refuses any other algorithm element, and so do we: running it
 * with another algorithm would give other results. */
static rtcosim_status read_osp(parse_ctx *ctx, const xmlNode *a)
{
    rtcosim_system_desc *d = ctx->d;
    const xmlNode *algorithm = child_named(a, "Algorithm");
    if (!algorithm)
        return ssd_info(ctx, a, "annotation 'com.opensimulationplatform' without osp:Algorithm: "
                                "ignored");
    const xmlNode *fixed = NULL;
    for (const xmlNode *c = algorithm->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        const char *colon = strchr((const char *)c->name, ':');
        const char *name = !c->ns && colon ? colon + 1 : (const char *)c->name;
        if (strcmp(name, "FixedStepAlgorithm") != 0)
            return FAIL(ctx, c, RTCOSIM_EUNSUPPORTED,
                        "OSP algorithm '%s' is not supported (FixedStepAlgorithm)",
                        (const char *)c->name);
        fixed = c;
    }
    if (!fixed)
        return FAIL(ctx, algorithm, RTCOSIM_EFORMAT, "osp:Algorithm without FixedStepAlgorithm");
    if (d->osp_has_step)
        return FAIL(ctx, fixed, RTCOSIM_EFORMAT,
                    "second OSP FixedStepAlgorithm (first on line %d)", d->osp_step_line);
    if (!system_attr(d, fixed, "baseStepSize"))
        return FAIL(ctx, fixed, RTCOSIM_EFORMAT, "OSP FixedStepAlgorithm without a baseStepSize");
    d->osp_step_line = (int)xmlGetLineNo(fixed);
    rtcosim_status st =
        read_positive_time(ctx, fixed, "baseStepSize", &d->osp_has_step, &d->osp_step_ns);
    const char *threads = system_attr(d, fixed, "numWorkerThreads");
    int64_t t = 0;
    if (st == RTCOSIM_OK && threads) {
        if (!system_parse_int64(threads, &t) || t < 1 || t > 1024)
            return FAIL(ctx, fixed, RTCOSIM_EFORMAT, "OSP FixedStepAlgorithm: bad numWorkerThreads "
                        "\"%s\" (1..1024)", threads);
        d->osp_threads = (int)t;
    }
    return st;
}

/* rc:Variants of the org.rtcosim.variants annotation on a component: the
 * component runs as an anytime task (rtcosim run --variants), its spec and
 * strategy checked here so that a bad one names this line. */
static rtcosim_status read_variants(parse_ctx *ctx, const xmlNode *a, rtcosim_ssd_component *c)
{
    const xmlNode *n = ssd_child(a, RTCOSIM_MASTER_NS, "Variants");
    if (!n)
        return FAIL(ctx, a, RTCOSIM_EFORMAT,
                    "org.rtcosim.variants annotation without a Variants element in namespace %s",
                    RTCOSIM_MASTER_NS);
    if (c->variants)
        return FAIL(ctx, n, RTCOSIM_EFORMAT, "component '%s': second variants annotation",
                    c->name);
    for (const xmlAttr *at = n->properties; at; at = at->next)
        if (!at->ns && strcmp((const char *)at->name, "spec") != 0 &&
            strcmp((const char *)at->name, "strategy") != 0)
            return FAIL(ctx, n, RTCOSIM_EFORMAT,
                        "rtcosim variants: unknown attribute '%s' (spec, strategy)",
                        (const char *)at->name);
    const char *spec = system_attr(ctx->d, n, "spec");
    if (!spec)
        return FAIL(ctx, n, RTCOSIM_EFORMAT, "rtcosim variants: no spec (steps:H1,H2,.. or "
                                             "solvers:euler:H,cvode,..)");
    rtcosim_anytime_spec parsed;
    rtcosim_error e;
    if (rtcosim_anytime_spec_parse(spec, &parsed, &e) != RTCOSIM_OK)
        return FAIL(ctx, n, RTCOSIM_EFORMAT, "rtcosim variants: %s", e.message);
    const char *strategy = system_attr(ctx->d, n, "strategy");
    rtcosim_anytime_strategy chosen;
    if (strategy && rtcosim_anytime_strategy_parse(strategy, &chosen) != 0)
        return FAIL(ctx, n, RTCOSIM_EFORMAT,
                    "rtcosim variants: unknown strategy \"%s\" (escalate, timer, parallel)",
                    strategy);
    c->variants = system_strdup(ctx->d, spec);
    c->variants_strategy = strategy ? system_strdup(ctx->d, strategy) : NULL;
    if (!c->variants || (strategy && !c->variants_strategy))
        return NOMEM(ctx);
    return RTCOSIM_OK;
}

/* libcosim's osp:StepSizeHint value="h" in a component's annotation: the
 * component steps every floor(h / base step) base steps (at least one). */
rtcosim_status ssd_read_component_annotations(parse_ctx *ctx, const xmlNode *n,
                                              rtcosim_ssd_component *c)
{
    const xmlNode *list = ssd_child(n, SSD_NS, "Annotations");
    if (!list)
        list = ssd_child(n, SSC_NS, "Annotations");
    for (const xmlNode *a = list ? list->children : NULL; a; a = a->next) {
        if (!system_is(a, SSC_NS, "Annotation"))
            continue;
        const char *type = system_attr(ctx->d, a, "type");
        if (type && strcmp(type, "org.rtcosim.variants") == 0) {
            rtcosim_status st = read_variants(ctx, a, c);
            if (st != RTCOSIM_OK)
                return st;
            continue;
        }
        if (type && strcmp(type, "org.rtcosim.ecu") == 0) {
            rtcosim_status st = ssd_read_ecu(ctx, a, c);
            if (st != RTCOSIM_OK)
                return st;
            continue;
        }
        const xmlNode *hint = type && strcmp(type, "com.opensimulationplatform") == 0
                                  ? child_named(a, "StepSizeHint")
                                  : NULL;
        if (!hint)
            continue; /* geometry, other tools: nothing rtcosim uses */
        if (!system_attr(ctx->d, hint, "value"))
            return FAIL(ctx, hint, RTCOSIM_EFORMAT, "osp:StepSizeHint without a value");
        bool has = false;
        rtcosim_status st = read_positive_time(ctx, hint, "value", &has, &c->step_size_hint_ns);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

/* OMSimulator's annotation (type "org.openmodelica"), as OMSimulator writes
 * it on ssd:System: oms:Annotations (absent in older files, which put the
 * content straight into ssc:Annotation)/oms:SimulationInformation with
 * oms:FixedStepMaster stepSize or oms:VariableStepMaster initialStepSize,
 * minimumStepSize, maximumStepSize; relativeTolerance and absoluteTolerance
 * on either. The SimulationInformation of ssd:DefaultExperiment (resultFile,
 * loggingInterval, bufferSize, signalFilter) is OMSimulator's own output
 * setting: noted, not used. Element names are matched without namespace, as
 * OMSimulator (pugixml) reads them. */
static rtcosim_status read_oms(parse_ctx *ctx, const xmlNode *a)
{
    rtcosim_system_desc *d = ctx->d;
    const xmlNode *wrapper = child_named(a, "Annotations");
    const xmlNode *info = child_named(wrapper ? wrapper : a, "SimulationInformation");
    if (!info)
        return ssd_info(ctx, a, "annotation 'org.openmodelica' without SimulationInformation: "
                                "ignored");
    const xmlNode *fixed = child_named(info, "FixedStepMaster");
    const xmlNode *variable = child_named(info, "VariableStepMaster");
    const xmlNode *master = fixed ? fixed : variable;
    if (fixed && variable)
        return FAIL(ctx, variable, RTCOSIM_EFORMAT,
                    "OMSimulator SimulationInformation with both FixedStepMaster and "
                    "VariableStepMaster");
    if (!master) {
        if (child_named(info, "VariableStepSolver") || child_named(info, "FixedStepSolver"))
            return ssd_info(ctx, info, "OMSimulator solver of a strongly coupled system: not "
                                       "used (rtcosim integrates model exchange FMUs itself)");
        return ssd_info(ctx, info, "OMSimulator SimulationInformation (result file, logging "
                                   "settings): not used");
    }
    if (d->oms_has_step)
        return FAIL(ctx, master, RTCOSIM_EFORMAT, "second OMSimulator master (first on line %d)",
                    d->oms_step_line);
    d->oms_step_line = (int)xmlGetLineNo(master);
    rtcosim_status st;
    bool has = false;
    if (fixed) {
        if (!system_attr(d, fixed, "stepSize"))
            return FAIL(ctx, fixed, RTCOSIM_EFORMAT, "OMSimulator FixedStepMaster without a stepSize");
        st = read_positive_time(ctx, fixed, "stepSize", &d->oms_has_step, &d->oms_step_ns);
    } else {
        /* OMSimulator starts its adaptive master at initialStepSize. */
        if (!system_attr(d, variable, "initialStepSize"))
            return FAIL(ctx, variable, RTCOSIM_EFORMAT,
                        "OMSimulator VariableStepMaster without an initialStepSize");
        d->oms_variable_step = true;
        st = read_positive_time(ctx, variable, "initialStepSize", &d->oms_has_step, &d->oms_step_ns);
        if (st == RTCOSIM_OK)
            st = read_positive_time(ctx, variable, "minimumStepSize", &has, &d->oms_min_step);
        if (st == RTCOSIM_OK)
            st = read_positive_time(ctx, variable, "maximumStepSize", &has, &d->oms_max_step);
        if (st == RTCOSIM_OK && d->oms_min_step && d->oms_max_step && d->oms_max_step < d->oms_min_step)
            return FAIL(ctx, variable, RTCOSIM_EFORMAT,
                        "OMSimulator VariableStepMaster: maximumStepSize below minimumStepSize");
    }
    static const char *const tolerances[] = {"relativeTolerance", "absoluteTolerance"};
    double *slots[] = {&d->oms_rtol, &d->oms_atol};
    for (int i = 0; st == RTCOSIM_OK && i < 2; i++) {
        const char *text = system_attr(d, master, tolerances[i]);
        if (text && (!system_parse_double(text, slots[i]) || !(*slots[i] > 0)))
            return FAIL(ctx, master, RTCOSIM_EFORMAT, "OMSimulator %s: bad %s \"%s\" (> 0)",
                        (const char *)master->name, tolerances[i], text);
    }
    return st;
}

rtcosim_status ssd_info(parse_ctx *ctx, const xmlNode *node, const char *fmt, ...)
{
    char text[RTCOSIM_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return system_add_info(ctx->d, ctx->label, node ? xmlGetLineNo(node) : 0L, text, ctx->err);
}

rtcosim_status ssd_read_annotations(parse_ctx *ctx, const xmlNode *owner)
{
    /* SSP 1.0 files in the wild use both ssd:Annotations and ssc:Annotations. */
    const xmlNode *list = ssd_child(owner, SSD_NS, "Annotations");
    if (!list)
        list = ssd_child(owner, SSC_NS, "Annotations");
    if (!list)
        return RTCOSIM_OK;
    for (const xmlNode *a = list->children; a; a = a->next) {
        if (!system_is(a, SSC_NS, "Annotation"))
            continue;
        xmlChar *type = xmlGetNoNsProp(a, (const xmlChar *)"type");
        bool ours = type && strcmp((const char *)type, "org.rtcosim.master") == 0;
        bool realtime = type && strcmp((const char *)type, "org.rtcosim.realtime") == 0;
        bool osp = type && strcmp((const char *)type, "com.opensimulationplatform") == 0;
        bool oms = type && strcmp((const char *)type, "org.openmodelica") == 0;
        const char *type_text = type ? system_strdup(ctx->d, (const char *)type) : "";
        xmlFree(type);
        if (!type_text)
            return NOMEM(ctx);
        rtcosim_status st;
        if (osp || oms) {
            if ((st = osp ? read_osp(ctx, a) : read_oms(ctx, a)) != RTCOSIM_OK)
                return st;
            continue;
        }
        if (realtime) {
            const xmlNode *r = ssd_child(a, RTCOSIM_MASTER_NS, "RealTime");
            if (!r)
                return FAIL(ctx, a, RTCOSIM_EFORMAT,
                            "org.rtcosim.realtime annotation without a RealTime element in "
                            "namespace %s",
                            RTCOSIM_MASTER_NS);
            if ((st = read_realtime(ctx, r)) != RTCOSIM_OK)
                return st;
            continue;
        }
        if (!ours) {
            /* SSP 1.0: a tool ignores annotations it does not understand. */
            if ((st = ssd_info(ctx, a, "annotation '%s' not understood: ignored", type_text)) !=
                RTCOSIM_OK)
                return st;
            continue;
        }
        const xmlNode *m = ssd_child(a, RTCOSIM_MASTER_NS, "Master");
        if (!m)
            return FAIL(ctx, a, RTCOSIM_EFORMAT,
                        "org.rtcosim.master annotation without a Master element in namespace %s",
                        RTCOSIM_MASTER_NS);
        if ((st = read_master(ctx, m)) != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

rtcosim_status ssd_read_default_experiment(parse_ctx *ctx, const xmlNode *exp)
{
    rtcosim_system_desc *d = ctx->d;
    rtcosim_status st;
    if ((st = read_time(ctx, exp, "startTime", &d->has_start, &d->start_ns)) != RTCOSIM_OK ||
        (st = read_time(ctx, exp, "stopTime", &d->has_stop, &d->stop_ns)) != RTCOSIM_OK)
        return st;
    if (d->has_start && d->has_stop && d->stop_ns < d->start_ns)
        return FAIL(ctx, exp, RTCOSIM_EFORMAT, "stopTime is before startTime");
    /* stepSize is not in SSP 1.0's ssd:DefaultExperiment, but exporters
     * write it (as FMI's DefaultExperiment has it): read when present. */
    if ((st = read_positive_time(ctx, exp, "stepSize", &d->exp_has_step, &d->exp_step_ns)) !=
        RTCOSIM_OK)
        return st;
    return ssd_read_annotations(ctx, exp);
}
