/* SSD connections: endpoints resolved, kinds/types checked, the linear
 * transformation or automatic unit conversion (SSP 1.0 ssd:Connection). Split
 * from ssd.c; every rejection names file and line. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "system/ssd_internal.h"

/* ---- connections --------------------------------------------------------- */

/* One end of a connection in the system of ctx: a component or nested system
 * of it (element given), else the system's own connector. *sub is the nested
 * system whose connector it is (-1 for a component or the top system). */
static rtcosim_status resolve_endpoint(parse_ctx *ctx, const xmlNode *n, const char *element,
                                       const char *connector, const char *which,
                                       rtcosim_ssd_endpoint *ep, int *sub,
                                       const rtcosim_ssd_connector **out)
{
    rtcosim_system_desc *d = ctx->d;
    if (!connector || !*connector)
        return FAIL(ctx, n, RTCOSIM_EFORMAT, "connection without %sConnector", which);
    ep->connector = connector;
    ep->component_index = -1;
    *sub = -1;
    const rtcosim_ssd_connector *list;
    size_t count;
    if (element) {
        const char *full = system_printf(d, "%s%s", ctx->path, element);
        if (!full)
            return NOMEM(ctx);
        ep->component = full;
        ep->component_index = rtcosim_system_desc_find_component(d, full);
        for (size_t i = 0; ep->component_index < 0 && i < d->subsystem_count; i++)
            if (!d->subsystems[i].dictionary && strcmp(d->subsystems[i].path, full) == 0)
                *sub = (int)i;
        const system_dict_ref *ref =
            ep->component_index < 0 && *sub < 0 ? ssd_find_dictionary_reference(d, full) : NULL;
        if (ref)
            *sub = ref->junction; /* the dictionary: a junction every reference shares */
        if (ep->component_index < 0 && *sub < 0)
            return FAIL(ctx, n, RTCOSIM_ENOTFOUND,
                        "connection %sElement '%s' is not a component, system or signal "
                        "dictionary reference",
                        which, element);
    } else {
        ep->component = NULL;
        *sub = ctx->sub;
    }
    if (ep->component_index >= 0) {
        list = d->components[ep->component_index].connectors;
        count = d->components[ep->component_index].connector_count;
    } else if (*sub >= 0) {
        list = d->subsystems[*sub].connectors;
        count = d->subsystems[*sub].connector_count;
    } else {
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
        return FAIL(ctx, n, RTCOSIM_ENOTFOUND, "connection: %s '%s' has no %s '%s'",
                    *sub < 0                      ? "component"
                    : d->subsystems[*sub].dictionary ? "signal dictionary reference"
                                                    : "system",
                    element, *sub >= 0 && d->subsystems[*sub].dictionary ? "entry" : "connector",
                    connector);
    return FAIL(ctx, n, RTCOSIM_ENOTFOUND, "connection: the system has no connector '%s'",
                connector);
}

/* Seen from outside (an element of the system), signals leave through
 * outputs; seen from inside (the system's own connector) they enter through
 * inputs and parameters. */
static bool can_start(bool inside, const rtcosim_ssd_connector *c)
{
    if (!inside)
        return c->kind != RTCOSIM_CONNECTOR_INPUT;
    return c->kind == RTCOSIM_CONNECTOR_INPUT || c->kind == RTCOSIM_CONNECTOR_PARAMETER ||
           c->kind == RTCOSIM_CONNECTOR_INOUT;
}

static bool can_end(bool inside, const rtcosim_ssd_connector *c)
{
    if (!inside)
        return c->kind == RTCOSIM_CONNECTOR_INPUT || c->kind == RTCOSIM_CONNECTOR_PARAMETER ||
               c->kind == RTCOSIM_CONNECTOR_INOUT;
    return c->kind == RTCOSIM_CONNECTOR_OUTPUT || c->kind == RTCOSIM_CONNECTOR_CALCULATED_PARAMETER ||
           c->kind == RTCOSIM_CONNECTOR_INOUT;
}

static const char *endpoint_text(parse_ctx *ctx, const rtcosim_ssd_endpoint *ep)
{
    if (ep->component)
        return system_printf(ctx->d, "%s.%s", ep->component, ep->connector);
    if (ctx->sub >= 0)
        return system_printf(ctx->d, "system connector %s%s", ctx->path, ep->connector);
    return system_printf(ctx->d, "system connector %s", ep->connector);
}

rtcosim_status ssd_read_connection(parse_ctx *ctx, const xmlNode *n)
{
    rtcosim_system_desc *d = ctx->d;
    system_edge e = {.cn = {.factor = 1.0, .offset = 0.0, .line = (int)xmlGetLineNo(n)}};
    rtcosim_ssd_connection cn = e.cn;
    const rtcosim_ssd_connector *a = NULL, *b = NULL;
    const char *start_el = system_attr(d, n, "startElement"), *end_el = system_attr(d, n, "endElement");
    rtcosim_status st = resolve_endpoint(ctx, n, start_el, system_attr(d, n, "startConnector"),
                                         "start", &cn.start, &e.start_sub, &a);
    if (st == RTCOSIM_OK)
        st = resolve_endpoint(ctx, n, end_el, system_attr(d, n, "endConnector"), "end", &cn.end,
                              &e.end_sub, &b);
    if (st != RTCOSIM_OK)
        return st;
    const char *from = endpoint_text(ctx, &cn.start), *to = endpoint_text(ctx, &cn.end);
    if (!from || !to)
        return NOMEM(ctx);
    if (!can_start(!start_el, a))
        return FAIL(ctx, n, RTCOSIM_EFORMAT, "connection %s -> %s starts at an %s connector", from,
                    to, rtcosim_connector_kind_name(a->kind));
    if (!can_end(!end_el, b))
        return FAIL(ctx, n, RTCOSIM_EFORMAT, "connection %s -> %s ends at an %s connector", from,
                    to, rtcosim_connector_kind_name(b->kind));
    if (a->type != RTCOSIM_SSP_UNSPECIFIED && b->type != RTCOSIM_SSP_UNSPECIFIED &&
        a->type != b->type)
        return FAIL(ctx, n, RTCOSIM_EFORMAT, "connection %s -> %s joins incompatible types %s and %s",
                    from, to, rtcosim_ssp_type_name(a->type), rtcosim_ssp_type_name(b->type));
    for (size_t i = 0; i < d->edge_count; i++) {
        const system_edge *o = &d->edges[i];
        if (o->end_sub == e.end_sub && o->cn.end.component_index == cn.end.component_index &&
            o->cn.end.connector_index == cn.end.connector_index) {
            if (e.end_sub >= 0 && d->subsystems[e.end_sub].dictionary)
                return FAIL(ctx, n, RTCOSIM_EFORMAT,
                            "%s: entry '%s' of signal dictionary '%s' is already written by the "
                            "connection on line %d (one writer per entry)",
                            to, cn.end.connector, d->subsystems[e.end_sub].path, o->cn.line);
            return FAIL(ctx, n, RTCOSIM_EFORMAT, "%s is already driven by the connection on line %d",
                        to, o->cn.line);
        }
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
            if (cn.map_count)
                return FAIL(ctx, t, RTCOSIM_EFORMAT, "connection has more than one transformation");
            cn.has_linear_transformation = true;
        } else if (t->type == XML_ELEMENT_NODE && t->ns &&
                   strcmp((const char *)t->ns->href, SSC_NS) == 0 &&
                   strstr((const char *)t->name, "Transformation")) {
            rtcosim_status st = ssd_read_mapping(ctx, t, a, b, &cn);
            if (st != RTCOSIM_OK)
                return st;
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
    system_edge *slot = system_grow(&d->edges, &d->edge_count, &d->edge_cap, sizeof *slot);
    if (!slot)
        return NOMEM(ctx);
    e.cn = cn;
    *slot = e;
    return RTCOSIM_OK;
}

/* The connection driving the nested system connector (sub, connector), or NULL. */
static const system_edge *driver_of(const rtcosim_system_desc *d, int sub, int connector)
{
    for (size_t i = 0; i < d->edge_count; i++)
        if (d->edges[i].end_sub == sub && d->edges[i].cn.end.connector_index == connector)
            return &d->edges[i];
    return NULL;
}

/* Every connection that ends at a component or a top-system connector is
 * followed back through nested systems' connectors to its source, composing
 * the transformations on the way (end = f2 (f1 x + o1) + o2). A nested
 * connector nobody drives becomes the source itself, named "path.connector"
 * like a system connector, so that values bound to it reach the components. */
rtcosim_status ssd_flatten_connections(parse_ctx *ctx)
{
    rtcosim_system_desc *d = ctx->d;
    for (size_t i = 0; i < d->edge_count; i++) {
        if (d->edges[i].end_sub >= 0)
            continue;
        rtcosim_ssd_connection cn = d->edges[i].cn;
        int sub = d->edges[i].start_sub;
        for (size_t hops = 0; sub >= 0; hops++) {
            const system_edge *up = driver_of(d, sub, cn.start.connector_index);
            if (hops > d->edge_count)
                return rtcosim_error_set(ctx->err, RTCOSIM_EFORMAT,
                                         "%s:%d: connection runs in a loop through system "
                                         "connectors",
                                         ctx->label, cn.line);
            if (!up) {
                const char *name = system_printf(d, "%s.%s", d->subsystems[sub].path,
                                                 cn.start.connector);
                if (!name)
                    return NOMEM(ctx);
                cn.start = (rtcosim_ssd_endpoint){NULL, name, -1, -1};
                break;
            }
            if (ssd_compose_maps(d, &up->cn, &cn) != RTCOSIM_OK)
                return NOMEM(ctx);
            cn.offset = cn.factor * up->cn.offset + cn.offset;
            cn.factor = cn.factor * up->cn.factor;
            cn.has_linear_transformation |= up->cn.has_linear_transformation;
            cn.has_unit_conversion |= up->cn.has_unit_conversion;
            cn.start = up->cn.start;
            sub = up->start_sub;
        }
        rtcosim_ssd_connection *slot =
            system_grow(&d->connections, &d->connection_count, &d->connection_cap, sizeof *slot);
        if (!slot)
            return NOMEM(ctx);
        *slot = cn;
    }
    system_sync(d);
    return RTCOSIM_OK;
}
