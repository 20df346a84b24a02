/* The SSP 1.0 SystemStructureDescription reader: walks ssd:System and builds
 * the validated description of system.h (components, connectors, connections
 * with transformations, parameter bindings, default experiment and the
 * org.rtcosim.master and org.rtcosim.realtime annotations). Every rejection names file and line. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive/archive.h"
#include "rtcosim/realtime.h"
#include "system/system_internal.h"

typedef struct parse_ctx {
    rtcosim_system_desc *d;
    const char *label;
    rtcosim_error *err;
} parse_ctx;

#define FAIL(ctx, node, status, ...) system_fail((ctx)->err, status, (ctx)->label, node, __VA_ARGS__)
#define NOMEM(ctx) rtcosim_error_set((ctx)->err, RTCOSIM_ENOMEM, "%s: out of memory", (ctx)->label)

const char *rtcosim_connector_kind_name(rtcosim_connector_kind kind)
{
    switch (kind) {
    case RTCOSIM_CONNECTOR_INPUT: return "input";
    case RTCOSIM_CONNECTOR_OUTPUT: return "output";
    case RTCOSIM_CONNECTOR_PARAMETER: return "parameter";
    case RTCOSIM_CONNECTOR_CALCULATED_PARAMETER: return "calculatedParameter";
    case RTCOSIM_CONNECTOR_INOUT: return "inout";
    }
    return "unknown";
}

const char *rtcosim_ssp_type_name(rtcosim_ssp_type type)
{
    switch (type) {
    case RTCOSIM_SSP_UNSPECIFIED: return "unspecified";
    case RTCOSIM_SSP_REAL: return "Real";
    case RTCOSIM_SSP_INTEGER: return "Integer";
    case RTCOSIM_SSP_BOOLEAN: return "Boolean";
    case RTCOSIM_SSP_STRING: return "String";
    case RTCOSIM_SSP_ENUMERATION: return "Enumeration";
    case RTCOSIM_SSP_BINARY: return "Binary";
    }
    return "unknown";
}

static const xmlNode *child(const xmlNode *n, const char *ns, const char *local)
{
    for (const xmlNode *c = n->children; c; c = c->next)
        if (system_is(c, ns, local))
            return c;
    return NULL;
}

/* ---- connectors ---------------------------------------------------------- */

static rtcosim_status read_connector(parse_ctx *ctx, const xmlNode *n, rtcosim_ssd_connector *out)
{
    static const char *const kinds[] = {"input", "output", "parameter", "calculatedParameter",
                                        "inout"};
    static const char *const types[] = {NULL, "Real", "Integer", "Boolean", "String",
                                        "Enumeration", "Binary"};
    rtcosim_system_desc *d = ctx->d;
    out->line = (int)xmlGetLineNo(n);
    out->name = system_attr(d, n, "name");
    if (!out->name || !*out->name)
        return FAIL(ctx, n, RTCOSIM_EFORMAT, "ssd:Connector without a name");
    const char *kind = system_attr(d, n, "kind");
    if (!kind)
        return FAIL(ctx, n, RTCOSIM_EFORMAT, "connector '%s' has no kind", out->name);
    size_t k = 0;
    while (k < sizeof kinds / sizeof kinds[0] && strcmp(kinds[k], kind) != 0)
        k++;
    if (k == sizeof kinds / sizeof kinds[0])
        return FAIL(ctx, n, RTCOSIM_EFORMAT,
                    "connector '%s': unknown kind '%s' (input, output, parameter, "
                    "calculatedParameter, inout)",
                    out->name, kind);
    out->kind = (rtcosim_connector_kind)k;
    out->type = RTCOSIM_SSP_UNSPECIFIED;
    for (const xmlNode *t = n->children; t; t = t->next) {
        if (t->type != XML_ELEMENT_NODE || !t->ns ||
            strcmp((const char *)t->ns->href, SSC_NS) != 0)
            continue;
        size_t i = 1;
        while (i < sizeof types / sizeof types[0] && strcmp(types[i], (const char *)t->name) != 0)
            i++;
        if (i == sizeof types / sizeof types[0])
            continue; /* other ssc elements (e.g. geometry) carry no type */
        if (out->type != RTCOSIM_SSP_UNSPECIFIED)
            return FAIL(ctx, t, RTCOSIM_EFORMAT, "connector '%s' has more than one type",
                        out->name);
        out->type = (rtcosim_ssp_type)i;
        if (out->type == RTCOSIM_SSP_REAL)
            out->unit = system_attr(d, t, "unit");
    }
    return RTCOSIM_OK;
}

static rtcosim_status read_connectors(parse_ctx *ctx, const xmlNode *list,
                                      rtcosim_ssd_connector **array, size_t *count, size_t *cap,
                                      const char *owner)
{
    for (const xmlNode *n = list->children; n; n = n->next) {
        if (!system_is(n, SSD_NS, "Connector"))
            continue;
        rtcosim_ssd_connector c = {0};
        rtcosim_status st = read_connector(ctx, n, &c);
        if (st != RTCOSIM_OK)
            return st;
        for (size_t i = 0; i < *count; i++)
            if (strcmp((*array)[i].name, c.name) == 0)
                return FAIL(ctx, n, RTCOSIM_EFORMAT,
                            "%s has two connectors named '%s' (first on line %d)", owner, c.name,
                            (*array)[i].line);
        rtcosim_ssd_connector *slot = system_grow(array, count, cap, sizeof *slot);
        if (!slot)
            return NOMEM(ctx);
        *slot = c;
    }
    return RTCOSIM_OK;
}

/* ---- components ---------------------------------------------------------- */

static const char *join_path(rtcosim_system_desc *d, const char *rel)
{
    if (rel[0] == '/')
        return system_strdup(d, rel);
    return system_printf(d, "%s/%s", d->base_dir, rel);
}

/* Inside a .ssp, a reference must stay in the package (SSP 1.0 section 4:
 * the package is self-contained): not absolute and never climbing above its
 * root through "..". Not checked for a plain .ssd, or with allow_outside. */
static bool escapes_package(const rtcosim_system_desc *d, const char *rel)
{
    if (!d->temp_dir || d->allow_outside)
        return false;
    if (rel[0] == '/' || rel[0] == '\\')
        return true;
    int depth = 0;
    for (const char *p = rel; *p;) {
        size_t n = strcspn(p, "/\\");
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            if (--depth < 0)
                return true;
        } else if (n > 0 && !(n == 1 && p[0] == '.')) {
            depth++;
        }
        p += n;
        if (*p)
            p++;
    }
    return false;
}

static rtcosim_status resolve_source(parse_ctx *ctx, const xmlNode *n, system_component *c)
{
    const char *src = c->pub.source;
    if (strncmp(src, "rtcosim:", 8) == 0) {
        if (!src[8])
            return FAIL(ctx, n, RTCOSIM_EFORMAT, "component '%s': empty native type in source '%s'",
                        c->pub.name, src);
        c->pub.native_type = src + 8;
        return RTCOSIM_OK;
    }
    const char *rel = src;
    if (strncmp(rel, "file://", 7) == 0)
        rel += 7;
    else {
        /* A URI scheme (letters before ':' and no '/' before it) other than
         * file: and rtcosim: cannot be fetched: we never touch the network. */
        const char *colon = strchr(rel, ':');
        const char *slash = strchr(rel, '/');
        if (colon && (!slash || colon < slash))
            return FAIL(ctx, n, RTCOSIM_EUNSUPPORTED,
                        "component '%s': source '%s' uses an unsupported URI scheme", c->pub.name,
                        src);
    }
    if (!*rel)
        return FAIL(ctx, n, RTCOSIM_EFORMAT, "component '%s' has an empty source", c->pub.name);
    if (escapes_package(ctx->d, rel))
        return FAIL(ctx, n, RTCOSIM_EFORMAT,
                    "component '%s': source '%s' is outside the package (refused; "
                    "--allow-outside permits it)",
                    c->pub.name, src);
    c->pub.path = join_path(ctx->d, rel);
    if (!c->pub.path)
        return NOMEM(ctx);
    if (access(c->pub.path, R_OK) != 0)
        return FAIL(ctx, n, RTCOSIM_ENOTFOUND, "component '%s': source '%s' not found (%s)",
                    c->pub.name, src, c->pub.path);
    return RTCOSIM_OK;
}

static rtcosim_status read_elements(parse_ctx *ctx, const xmlNode *elements)
{
    rtcosim_system_desc *d = ctx->d;
    for (const xmlNode *n = elements->children; n; n = n->next) {
        if (system_is(n, SSD_NS, "System"))
            return FAIL(ctx, n, RTCOSIM_EUNSUPPORTED, "nested systems are not supported");
        if (system_is(n, SSD_NS, "SignalDictionaryReference"))
            return FAIL(ctx, n, RTCOSIM_EUNSUPPORTED, "signal dictionaries are not supported");
        if (!system_is(n, SSD_NS, "Component"))
            continue;
        const char *name = system_attr(d, n, "name");
        if (!name || !*name)
            return FAIL(ctx, n, RTCOSIM_EFORMAT, "ssd:Component without a name");
        for (size_t i = 0; i < d->component_count; i++)
            if (strcmp(d->components[i].pub.name, name) == 0)
                return FAIL(ctx, n, RTCOSIM_EFORMAT,
                            "duplicate component name '%s' (first on line %d)", name,
                            d->components[i].pub.line);
        system_component *c =
            system_grow(&d->components, &d->component_count, &d->component_cap, sizeof *c);
        if (!c)
            return NOMEM(ctx);
        c->pub.name = name;
        c->pub.line = (int)xmlGetLineNo(n);
        c->pub.mime_type = system_attr(d, n, "type");
        c->pub.source = system_attr(d, n, "source");
        if (!c->pub.source)
            return FAIL(ctx, n, RTCOSIM_EFORMAT, "component '%s' has no source", name);
        rtcosim_status st = resolve_source(ctx, n, c);
        if (st != RTCOSIM_OK)
            return st;
        const xmlNode *conns = child(n, SSD_NS, "Connectors");
        if (conns) {
            const char *owner = system_printf(d, "component '%s'", name);
            if (!owner)
                return NOMEM(ctx);
            st = read_connectors(ctx, conns, &c->connectors, &c->connector_count,
                                 &c->connector_cap, owner);
            if (st != RTCOSIM_OK)
                return st;
        }
    }
    return RTCOSIM_OK;
}

/* ---- connections --------------------------------------------------------- */

static rtcosim_status resolve_endpoint(parse_ctx *ctx, const xmlNode *n, const char *element,
                                       const char *connector, const char *which,
                                       rtcosim_ssd_endpoint *ep, const rtcosim_ssd_connector **out)
{
    rtcosim_system_desc *d = ctx->d;
    if (!connector || !*connector)
        return FAIL(ctx, n, RTCOSIM_EFORMAT, "connection without %sConnector", which);
    ep->component = element;
    ep->connector = connector;
    const rtcosim_ssd_connector *list;
    size_t count;
    if (element) {
        ep->component_index = rtcosim_system_desc_find_component(d, element);
        if (ep->component_index < 0)
            return FAIL(ctx, n, RTCOSIM_ENOTFOUND, "connection %sElement '%s' is not a component",
                        which, element);
        list = d->components[ep->component_index].connectors;
        count = d->components[ep->component_index].connector_count;
    } else {
        ep->component_index = -1;
        list = d->connectors;
        count = d->connector_count;
    }
    for (size_t i = 0; i < count; i++)
        if (strcmp(list[i].name, connector) == 0) {
            ep->connector_index = (int)i;
            *out = &list[i];
            return RTCOSIM_OK;
        }
    if (element)
        return FAIL(ctx, n, RTCOSIM_ENOTFOUND, "connection: component '%s' has no connector '%s'",
                    element, connector);
    return FAIL(ctx, n, RTCOSIM_ENOTFOUND, "connection: the system has no connector '%s'",
                connector);
}

static bool can_start(const rtcosim_ssd_endpoint *ep, const rtcosim_ssd_connector *c)
{
    if (ep->component_index >= 0)
        return c->kind != RTCOSIM_CONNECTOR_INPUT;
    /* Signals enter the system through its inputs and parameters. */
    return c->kind == RTCOSIM_CONNECTOR_INPUT || c->kind == RTCOSIM_CONNECTOR_PARAMETER ||
           c->kind == RTCOSIM_CONNECTOR_INOUT;
}

static bool can_end(const rtcosim_ssd_endpoint *ep, const rtcosim_ssd_connector *c)
{
    if (ep->component_index >= 0)
        return c->kind == RTCOSIM_CONNECTOR_INPUT || c->kind == RTCOSIM_CONNECTOR_PARAMETER ||
               c->kind == RTCOSIM_CONNECTOR_INOUT;
    return c->kind == RTCOSIM_CONNECTOR_OUTPUT || c->kind == RTCOSIM_CONNECTOR_CALCULATED_PARAMETER ||
           c->kind == RTCOSIM_CONNECTOR_INOUT;
}

static const char *endpoint_text(rtcosim_system_desc *d, const rtcosim_ssd_endpoint *ep)
{
    if (ep->component)
        return system_printf(d, "%s.%s", ep->component, ep->connector);
    return system_printf(d, "system connector %s", ep->connector);
}

static rtcosim_status read_connection(parse_ctx *ctx, const xmlNode *n)
{
    rtcosim_system_desc *d = ctx->d;
    rtcosim_ssd_connection cn = {.factor = 1.0, .offset = 0.0, .line = (int)xmlGetLineNo(n)};
    const rtcosim_ssd_connector *a = NULL, *b = NULL;
    rtcosim_status st = resolve_endpoint(ctx, n, system_attr(d, n, "startElement"),
                                         system_attr(d, n, "startConnector"), "start", &cn.start, &a);
    if (st == RTCOSIM_OK)
        st = resolve_endpoint(ctx, n, system_attr(d, n, "endElement"),
                              system_attr(d, n, "endConnector"), "end", &cn.end, &b);
    if (st != RTCOSIM_OK)
        return st;
    const char *from = endpoint_text(d, &cn.start), *to = endpoint_text(d, &cn.end);
    if (!from || !to)
        return NOMEM(ctx);
    if (!can_start(&cn.start, a))
        return FAIL(ctx, n, RTCOSIM_EFORMAT, "connection %s -> %s starts at an %s connector", from,
                    to, rtcosim_connector_kind_name(a->kind));
    if (!can_end(&cn.end, b))
        return FAIL(ctx, n, RTCOSIM_EFORMAT, "connection %s -> %s ends at an %s connector", from,
                    to, rtcosim_connector_kind_name(b->kind));
    if (a->type != RTCOSIM_SSP_UNSPECIFIED && b->type != RTCOSIM_SSP_UNSPECIFIED &&
        a->type != b->type)
        return FAIL(ctx, n, RTCOSIM_EFORMAT, "connection %s -> %s joins incompatible types %s and %s",
                    from, to, rtcosim_ssp_type_name(a->type), rtcosim_ssp_type_name(b->type));
    for (size_t i = 0; i < d->connection_count; i++) {
        const rtcosim_ssd_connection *o = &d->connections[i];
        if (o->end.component_index == cn.end.component_index &&
            o->end.connector_index == cn.end.connector_index)
            return FAIL(ctx, n, RTCOSIM_EFORMAT, "%s is already driven by the connection on line %d",
                        to, o->line);
    }

    const char *suppress_text = system_attr(d, n, "suppressUnitConversion");
    bool suppress = false;
    if (suppress_text && !system_parse_bool(suppress_text, &suppress))
        return FAIL(ctx, n, RTCOSIM_EFORMAT, "bad suppressUnitConversion \"%s\"", suppress_text);
    for (const xmlNode *t = n->children; t; t = t->next) {
        if (system_is(t, SSC_NS, "LinearTransformation")) {
            const char *factor = system_attr(d, t, "factor"), *offset = system_attr(d, t, "offset");
            if (factor && !system_parse_double(factor, &cn.factor))
                return FAIL(ctx, t, RTCOSIM_EFORMAT, "linear transformation: bad factor \"%s\"",
                            factor);
            if (offset && !system_parse_double(offset, &cn.offset))
                return FAIL(ctx, t, RTCOSIM_EFORMAT, "linear transformation: bad offset \"%s\"",
                            offset);
            if ((a->type != RTCOSIM_SSP_UNSPECIFIED && a->type != RTCOSIM_SSP_REAL) ||
                (b->type != RTCOSIM_SSP_UNSPECIFIED && b->type != RTCOSIM_SSP_REAL))
                return FAIL(ctx, t, RTCOSIM_EFORMAT,
                            "linear transformation on connection %s -> %s between non-Real connectors",
                            from, to);
            cn.has_linear_transformation = true;
        } else if (t->type == XML_ELEMENT_NODE && t->ns &&
                   strcmp((const char *)t->ns->href, SSC_NS) == 0 &&
                   strstr((const char *)t->name, "Transformation")) {
            return FAIL(ctx, t, RTCOSIM_EUNSUPPORTED, "ssc:%s on connections is not supported",
                        (const char *)t->name);
        }
    }
    /* SSP 1.0: differing units of the two ends are converted automatically
     * (both defined in ssd:Units with the same dimension) unless the connection
     * suppresses it; an explicit linear transformation states the mapping itself. */
    if (!cn.has_linear_transformation && !suppress && a->unit && b->unit &&
        strcmp(a->unit, b->unit) != 0) {
        if (!system_unit_conversion(d, a->unit, b->unit, &cn.factor, &cn.offset))
            return FAIL(ctx, n, RTCOSIM_EFORMAT,
                        "connection %s -> %s joins units '%s' and '%s' without a transformation "
                        "(define both in ssd:Units or add ssc:LinearTransformation)",
                        from, to, a->unit, b->unit);
        cn.has_unit_conversion = true;
    }
    rtcosim_ssd_connection *slot =
        system_grow(&d->connections, &d->connection_count, &d->connection_cap, sizeof *slot);
    if (!slot)
        return NOMEM(ctx);
    *slot = cn;
    return RTCOSIM_OK;
}

/* ---- parameter bindings -------------------------------------------------- */

static rtcosim_status read_bindings(parse_ctx *ctx, const xmlNode *owner, int target)
{
    rtcosim_system_desc *d = ctx->d;
    const xmlNode *list = child(owner, SSD_NS, "ParameterBindings");
    if (!list)
        return RTCOSIM_OK;
    for (const xmlNode *b = list->children; b; b = b->next) {
        if (!system_is(b, SSD_NS, "ParameterBinding"))
            continue;
        const char *type = system_attr(d, b, "type");
        if (type && strcmp(type, "application/x-ssp-parameter-set") != 0)
            return FAIL(ctx, b, RTCOSIM_EUNSUPPORTED, "parameter binding of type '%s' is not supported",
                        type);
        const char *base = system_attr(d, b, "sourceBase");
        if (base && strcmp(base, "SSD") != 0)
            return FAIL(ctx, b, RTCOSIM_EUNSUPPORTED,
                        "parameter binding with sourceBase '%s' is not supported (SSD only)", base);
        if (child(b, SSD_NS, "ParameterMapping"))
            return FAIL(ctx, b, RTCOSIM_EUNSUPPORTED, "parameter mappings are not supported");
        const char *prefix = system_attr(d, b, "prefix");
        const char *source = system_attr(d, b, "source");
        const xmlNode *values = child(b, SSD_NS, "ParameterValues");
        if (source && values)
            return FAIL(ctx, b, RTCOSIM_EFORMAT,
                        "parameter binding has both a source and inline ParameterValues");
        rtcosim_status st;
        if (source) {
            const char *rel = strncmp(source, "file://", 7) == 0 ? source + 7 : source;
            if (escapes_package(d, rel))
                return FAIL(ctx, b, RTCOSIM_EFORMAT,
                            "parameter set '%s' is outside the package (refused; "
                            "--allow-outside permits it)",
                            source);
            const char *path = join_path(d, rel);
            if (!path)
                return NOMEM(ctx);
            if (access(path, R_OK) != 0)
                return FAIL(ctx, b, RTCOSIM_ENOTFOUND, "parameter set '%s' not found (%s)", source,
                            path);
            /* Inside a .ssp, name the file as "archive.ssp:name.ssv". */
            const char *shown = d->temp_dir ? system_printf(d, "%s:%s", d->file, rel) : path;
            if (!shown)
                return NOMEM(ctx);
            st = system_apply_parameter_set_file(d, path, shown, prefix, target, ctx->err);
        } else if (values) {
            const xmlNode *set = NULL;
            for (const xmlNode *s = values->children; s && !set; s = s->next)
                if (s->type == XML_ELEMENT_NODE)
                    set = s;
            if (!set)
                return FAIL(ctx, values, RTCOSIM_EFORMAT, "empty ssd:ParameterValues");
            st = system_apply_parameter_set_node(d, set, ctx->label, prefix, target, ctx->err);
        } else {
            return FAIL(ctx, b, RTCOSIM_EFORMAT,
                        "parameter binding has neither a source nor ParameterValues");
        }
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

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

/* rc:RealTime of the org.rtcosim.realtime annotation: the real-time
 * settings (system.h). Values are checked with
 * the real-time layer's own parsers so that errors show here, with the line. */
static rtcosim_status read_realtime(parse_ctx *ctx, const xmlNode *n)
{
    static const char *const attrs[] = {"rtFactor", "overrun", "exchange", "estimator",
                                        "partnerTimeout", "calibrate"};
    rtcosim_system_desc *d = ctx->d;
    rtcosim_ssd_realtime_settings *r = &d->realtime;
    if (r->present)
        return FAIL(ctx, n, RTCOSIM_EFORMAT, "second rtcosim real-time annotation");
    r->present = true;
    r->line = (int)xmlGetLineNo(n);
    for (const xmlAttr *a = n->properties; a; a = a->next)
        if (!a->ns && pick((const char *)a->name, attrs, 6) < 0)
            return FAIL(ctx, n, RTCOSIM_EFORMAT,
                        "rtcosim real-time: unknown attribute '%s' (rtFactor, overrun, exchange, "
                        "estimator, partnerTimeout, calibrate)",
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
        /* A relative map file is resolved against the .ssd's directory. */
        if (strncmp(text, "map:", 4) == 0 && text[4] != '/')
            text = system_printf(d, "map:%s/%s", d->base_dir, text + 4);
        rtcosim_estimator_spec spec;
        if (!text)
            return NOMEM(ctx);
        if (rtcosim_estimator_spec_parse(text, &spec, &e) != RTCOSIM_OK)
            return FAIL(ctx, n, RTCOSIM_EFORMAT, "rtcosim real-time: estimator: %s", e.message);
        r->estimator = text;
    }
    rtcosim_status st = read_positive_time(ctx, n, "partnerTimeout", &r->has_partner_timeout,
                                           &r->partner_timeout);
    if (st != RTCOSIM_OK)
        return st;
    if ((text = system_attr(d, n, "calibrate"))) {
        if (!system_parse_bool(text, &r->calibrate))
            return FAIL(ctx, n, RTCOSIM_EFORMAT, "rtcosim real-time: bad calibrate \"%s\"", text);
        r->has_calibrate = true;
    }
    for (const xmlNode *c = n->children; c; c = c->next) {
        if (!system_is(c, RTCOSIM_MASTER_NS, "NonRealTime"))
            continue;
        const char *name = system_attr(d, c, "component");
        if (rtcosim_system_desc_find_component(d, name ? name : "") < 0)
            return FAIL(ctx, c, RTCOSIM_ENOTFOUND,
                        "rtcosim real-time: NonRealTime names unknown component '%s'",
                        name ? name : "");
        size_t len = strlen(name);
        for (const char *p = r->non_realtime; p && *p;) {
            const char *comma = strchr(p, ',');
            size_t n2 = comma ? (size_t)(comma - p) : strlen(p);
            if (n2 == len && strncmp(p, name, len) == 0)
                return FAIL(ctx, c, RTCOSIM_EFORMAT,
                            "rtcosim real-time: component '%s' marked non-real-time twice", name);
            p = comma ? comma + 1 : NULL;
        }
        r->non_realtime = r->non_realtime ? system_printf(d, "%s,%s", r->non_realtime, name)
                                          : system_strdup(d, name);
        if (!r->non_realtime)
            return NOMEM(ctx);
    }
    return RTCOSIM_OK;
}

static rtcosim_status read_master(parse_ctx *ctx, const xmlNode *m)
{
    static const char *const attrs[] = {"stepSize",  "order",       "coupling", "correction",
                                        "stepInput", "stepControl", "threads",   "isolate"};
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

static rtcosim_status read_annotations(parse_ctx *ctx, const xmlNode *owner)
{
    /* SSP 1.0 files in the wild use both ssd:Annotations and ssc:Annotations. */
    const xmlNode *list = child(owner, SSD_NS, "Annotations");
    if (!list)
        list = child(owner, SSC_NS, "Annotations");
    if (!list)
        return RTCOSIM_OK;
    for (const xmlNode *a = list->children; a; a = a->next) {
        if (!system_is(a, SSC_NS, "Annotation"))
            continue;
        xmlChar *type = xmlGetNoNsProp(a, (const xmlChar *)"type");
        bool ours = type && strcmp((const char *)type, "org.rtcosim.master") == 0;
        bool realtime = type && strcmp((const char *)type, "org.rtcosim.realtime") == 0;
        xmlFree(type);
        if (realtime) {
            const xmlNode *r = child(a, RTCOSIM_MASTER_NS, "RealTime");
            if (!r)
                return FAIL(ctx, a, RTCOSIM_EFORMAT,
                            "org.rtcosim.realtime annotation without a RealTime element in "
                            "namespace %s",
                            RTCOSIM_MASTER_NS);
            rtcosim_status st = read_realtime(ctx, r);
            if (st != RTCOSIM_OK)
                return st;
            continue;
        }
        if (!ours)
            continue;
        const xmlNode *m = child(a, RTCOSIM_MASTER_NS, "Master");
        if (!m)
            return FAIL(ctx, a, RTCOSIM_EFORMAT,
                        "org.rtcosim.master annotation without a Master element in namespace %s",
                        RTCOSIM_MASTER_NS);
        rtcosim_status st = read_master(ctx, m);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

/* ---- the document -------------------------------------------------------- */

static rtcosim_status read_document(parse_ctx *ctx, const xmlNode *root)
{
    rtcosim_system_desc *d = ctx->d;
    if (!system_is(root, SSD_NS, "SystemStructureDescription"))
        return FAIL(ctx, root, RTCOSIM_EFORMAT,
                    "root element is '%s', expected ssd:SystemStructureDescription (namespace %s)",
                    (const char *)root->name, SSD_NS);
    const char *version = system_attr(d, root, "version");
    if (!version)
        return FAIL(ctx, root, RTCOSIM_EFORMAT, "SystemStructureDescription has no version");
    if (strncmp(version, "1.", 2) != 0)
        return FAIL(ctx, root, RTCOSIM_EUNSUPPORTED, "SSP version '%s' is not supported (1.0)",
                    version);
    const xmlNode *units = child(root, SSD_NS, "Units");
    rtcosim_status st = units ? system_read_units(d, units, ctx->label, ctx->err) : RTCOSIM_OK;
    if (st != RTCOSIM_OK)
        return st;
    const xmlNode *sys = child(root, SSD_NS, "System");
    if (!sys)
        return FAIL(ctx, root, RTCOSIM_EFORMAT, "no ssd:System element");
    d->name = system_attr(d, sys, "name");
    if (!d->name || !*d->name)
        return FAIL(ctx, sys, RTCOSIM_EFORMAT, "ssd:System without a name");

    const xmlNode *conns = child(sys, SSD_NS, "Connectors");
    if (conns) {
        st = read_connectors(ctx, conns, &d->connectors, &d->connector_count, &d->connector_cap,
                             "the system");
        if (st != RTCOSIM_OK)
            return st;
    }
    const xmlNode *elements = child(sys, SSD_NS, "Elements");
    if (elements && (st = read_elements(ctx, elements)) != RTCOSIM_OK)
        return st;
    system_sync(d);
    const xmlNode *connections = child(sys, SSD_NS, "Connections");
    for (const xmlNode *c = connections ? connections->children : NULL; c; c = c->next)
        if (system_is(c, SSD_NS, "Connection") && (st = read_connection(ctx, c)) != RTCOSIM_OK)
            return st;

    /* System bindings first, then each component's own (more specific) ones. */
    if ((st = read_bindings(ctx, sys, -1)) != RTCOSIM_OK)
        return st;
    size_t ci = 0;
    for (const xmlNode *n = elements ? elements->children : NULL; n; n = n->next)
        if (system_is(n, SSD_NS, "Component") && (st = read_bindings(ctx, n, (int)ci++)) != RTCOSIM_OK)
            return st;
    if ((st = system_propagate_parameters(d, ctx->err)) != RTCOSIM_OK)
        return st;

    const xmlNode *exp = child(root, SSD_NS, "DefaultExperiment");
    if (exp) {
        if ((st = read_time(ctx, exp, "startTime", &d->has_start, &d->start_ns)) != RTCOSIM_OK ||
            (st = read_time(ctx, exp, "stopTime", &d->has_stop, &d->stop_ns)) != RTCOSIM_OK)
            return st;
        if (d->has_start && d->has_stop && d->stop_ns < d->start_ns)
            return FAIL(ctx, exp, RTCOSIM_EFORMAT, "stopTime is before startTime");
        if ((st = read_annotations(ctx, exp)) != RTCOSIM_OK)
            return st;
    }
    if ((st = read_annotations(ctx, root)) != RTCOSIM_OK ||
        (st = read_annotations(ctx, sys)) != RTCOSIM_OK)
        return st;
    system_sync(d);
    return RTCOSIM_OK;
}

static rtcosim_system_desc *desc_new(const char *file, const char *label, const char *base_dir)
{
    rtcosim_system_desc *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->file = system_strdup(d, file);
    d->label = system_strdup(d, label);
    d->base_dir = system_strdup(d, base_dir);
    if (!d->file || !d->label || !d->base_dir) {
        rtcosim_system_desc_free(d);
        return NULL;
    }
    return d;
}

static rtcosim_status parse_into(rtcosim_system_desc *d, const char *xml, size_t size,
                                 rtcosim_error *err)
{
    xmlDoc *doc = NULL;
    rtcosim_status st = system_read_xml(xml, size, d->label, &doc, err);
    if (st != RTCOSIM_OK)
        return st;
    parse_ctx ctx = {d, d->label, err};
    st = read_document(&ctx, xmlDocGetRootElement(doc));
    xmlFreeDoc(doc);
    return st;
}

rtcosim_status rtcosim_system_desc_parse(const char *xml, size_t size, const char *base_dir,
                                         const char *name, rtcosim_system_desc **out,
                                         rtcosim_error *err)
{
    if (!out || (!xml && size))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "rtcosim_system_desc_parse: NULL argument");
    *out = NULL;
    if (!name)
        name = "SystemStructure.ssd";
    rtcosim_system_desc *d = desc_new(name, name, base_dir ? base_dir : ".");
    if (!d)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", name);
    rtcosim_status st = parse_into(d, xml ? xml : "", size, err);
    if (st != RTCOSIM_OK) {
        rtcosim_system_desc_free(d);
        return st;
    }
    *out = d;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_system_desc_load(const char *path, rtcosim_system_desc **out,
                                        rtcosim_error *err)
{
    return rtcosim_system_desc_load_with(path, NULL, out, err);
}

rtcosim_status rtcosim_system_desc_load_with(const char *path,
                                             const rtcosim_system_load_options *options,
                                             rtcosim_system_desc **out, rtcosim_error *err)
{
    if (!path || !out)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "rtcosim_system_desc_load: NULL argument");
    *out = NULL;
    rtcosim_system_desc *d = NULL;
    char *ssd_path = NULL;
    rtcosim_status st;
    if (rtcosim_archive_is_zip(path)) {
        char *dir = NULL;
        const rtcosim_archive_limits limits = {.kind = "SSP"};
        if ((st = rtcosim_archive_extract(path, NULL, &limits, &dir, err)) != RTCOSIM_OK)
            return st;
        char label[PATH_MAX + 32];
        snprintf(label, sizeof label, "%s:SystemStructure.ssd", path);
        d = desc_new(path, label, dir);
        if (!d) {
            rtcosim_archive_remove_dir(dir);
            free(dir);
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
        }
        d->temp_dir = dir;
        if (asprintf(&ssd_path, "%s/SystemStructure.ssd", dir) < 0) {
            rtcosim_system_desc_free(d);
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
        }
        if (access(ssd_path, R_OK) != 0) {
            free(ssd_path);
            rtcosim_system_desc_free(d);
            return rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                     "%s: archive has no SystemStructure.ssd at its root", path);
        }
    } else {
        const char *slash = strrchr(path, '/');
        char *dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
        if (dir && !*dir) { /* "/x.ssd" */
            free(dir);
            dir = strdup("/");
        }
        d = dir ? desc_new(path, path, dir) : NULL;
        free(dir);
        ssd_path = strdup(path);
        if (!d || !ssd_path) {
            free(ssd_path);
            rtcosim_system_desc_free(d);
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
        }
    }
    d->allow_outside = options && options->allow_outside;
    xmlDoc *doc = NULL;
    st = system_read_xml_file(ssd_path, d->label, &doc, err);
    free(ssd_path);
    if (st == RTCOSIM_OK) {
        parse_ctx ctx = {d, d->label, err};
        st = read_document(&ctx, xmlDocGetRootElement(doc));
        xmlFreeDoc(doc);
    }
    if (st != RTCOSIM_OK) {
        rtcosim_system_desc_free(d);
        return st;
    }
    *out = d;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_system_desc_apply_parameter_set(rtcosim_system_desc *desc,
                                                       const char *ssv_path, rtcosim_error *err)
{
    if (!desc || !ssv_path)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "rtcosim_system_desc_apply_parameter_set: NULL argument");
    if (access(ssv_path, R_OK) != 0)
        return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "%s: parameter set not found", ssv_path);
    rtcosim_status st = system_apply_parameter_set_file(desc, ssv_path, ssv_path, NULL, -1, err);
    if (st == RTCOSIM_OK)
        st = system_propagate_parameters(desc, err);
    return st;
}

void rtcosim_system_desc_free(rtcosim_system_desc *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->component_count; i++) {
        free(d->components[i].connectors);
        free(d->components[i].parameters);
    }
    free(d->components);
    free(d->connectors);
    free(d->parameters);
    free(d->connections);
    free(d->units);
    free(d->rates);
    free(d->bonds);
    if (d->temp_dir) {
        rtcosim_archive_remove_dir(d->temp_dir);
        free(d->temp_dir);
    }
    system_arena_free(d);
    free(d);
}

const char *rtcosim_system_desc_name(const rtcosim_system_desc *d) { return d->name; }
const char *rtcosim_system_desc_file(const rtcosim_system_desc *d) { return d->file; }
const char *rtcosim_system_desc_base_dir(const rtcosim_system_desc *d) { return d->base_dir; }

size_t rtcosim_system_desc_component_count(const rtcosim_system_desc *d)
{
    return d->component_count;
}

const rtcosim_ssd_component *rtcosim_system_desc_component(const rtcosim_system_desc *d,
                                                           size_t index)
{
    return index < d->component_count ? &d->components[index].pub : NULL;
}

int rtcosim_system_desc_find_component(const rtcosim_system_desc *d, const char *name)
{
    for (size_t i = 0; i < d->component_count; i++)
        if (strcmp(d->components[i].pub.name, name) == 0)
            return (int)i;
    return -1;
}

size_t rtcosim_system_desc_connector_count(const rtcosim_system_desc *d)
{
    return d->connector_count;
}

const rtcosim_ssd_connector *rtcosim_system_desc_connector(const rtcosim_system_desc *d,
                                                           size_t index)
{
    return index < d->connector_count ? &d->connectors[index] : NULL;
}

size_t rtcosim_system_desc_parameter_count(const rtcosim_system_desc *d)
{
    return d->parameter_count;
}

const rtcosim_ssd_parameter *rtcosim_system_desc_parameter(const rtcosim_system_desc *d,
                                                           size_t index)
{
    return index < d->parameter_count ? &d->parameters[index] : NULL;
}

size_t rtcosim_system_desc_connection_count(const rtcosim_system_desc *d)
{
    return d->connection_count;
}

const rtcosim_ssd_connection *rtcosim_system_desc_connection(const rtcosim_system_desc *d,
                                                             size_t index)
{
    return index < d->connection_count ? &d->connections[index] : NULL;
}

bool rtcosim_system_desc_start_time(const rtcosim_system_desc *d, rtcosim_time_ns *start)
{
    if (d->has_start && start)
        *start = d->start_ns;
    return d->has_start;
}

bool rtcosim_system_desc_stop_time(const rtcosim_system_desc *d, rtcosim_time_ns *stop)
{
    if (d->has_stop && stop)
        *stop = d->stop_ns;
    return d->has_stop;
}

const rtcosim_ssd_master_settings *rtcosim_system_desc_master(const rtcosim_system_desc *d)
{
    return &d->master;
}

const rtcosim_ssd_realtime_settings *rtcosim_system_desc_realtime(const rtcosim_system_desc *d)
{
    return &d->realtime;
}
