/* SSP 1.0 parameter sets (.ssv files and inline ssv:ParameterSet): reading
 * typed values and binding them to component variables or system connectors,
 * converting units where the target connector declares a different one. */
#include <stdio.h>
#include <string.h>

#include "system/system_internal.h"

static const rtcosim_ssd_connector *find_connector(const rtcosim_ssd_connector *list, size_t n,
                                                   const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i].name, name) == 0)
            return &list[i];
    return NULL;
}

static rtcosim_status convert_unit(const rtcosim_system_desc *d, rtcosim_ssd_parameter *p,
                                   const rtcosim_ssd_connector *c, const char *where,
                                   rtcosim_error *err)
{
    double factor, offset;
    if (!system_unit_conversion(d, p->unit, c->unit, &factor, &offset))
        return rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                 "%s: parameter '%s' has unit '%s' but connector '%s' has unit "
                                 "'%s' and no conversion is defined in the Units",
                                 where, p->name, p->unit, c->name, c->unit);
    p->value.r = factor * p->value.r + offset;
    p->unit = c->unit;
    return RTCOSIM_OK;
}

/* Check a value against the connector it lands on (if any) and convert its
 * unit, unless the mapping entry e suppresses that; then e's linear
 * transformation (SSP 1.0 section 7.1.1: after any unit conversion). */
static rtcosim_status fit_to_connector(const rtcosim_system_desc *d, rtcosim_ssd_parameter *p,
                                       const rtcosim_ssd_connector *c,
                                       const system_map_entry *e, const char *where,
                                       rtcosim_error *err)
{
    rtcosim_status st = RTCOSIM_OK;
    if (e && e->suppress_unit_conversion)
        p->unit = NULL; /* the value is taken in the target's unit */
    if (c && c->type != RTCOSIM_SSP_UNSPECIFIED && c->type != p->type)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                 "%s: parameter '%s' is %s but connector '%s' is %s", where,
                                 p->name, rtcosim_ssp_type_name(p->type), c->name,
                                 rtcosim_ssp_type_name(c->type));
    if (c && p->type == RTCOSIM_SSP_REAL && p->unit && c->unit && strcmp(p->unit, c->unit) != 0)
        st = convert_unit(d, p, c, where, err);
    if (st == RTCOSIM_OK && e && e->kind == SYSTEM_MAP_LINEAR)
        p->value.r = e->factor * p->value.r + e->offset;
    return st;
}

/* Add or replace (same name) a parameter in a list. */
static rtcosim_status store_parameter(rtcosim_ssd_parameter **list, size_t *count, size_t *cap,
                                      const rtcosim_ssd_parameter *p, rtcosim_error *err)
{
    for (size_t i = 0; i < *count; i++)
        if (strcmp((*list)[i].name, p->name) == 0) {
            (*list)[i] = *p;
            return RTCOSIM_OK;
        }
    rtcosim_ssd_parameter *slot = system_grow(list, count, cap, sizeof *slot);
    if (!slot)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    *slot = *p;
    return RTCOSIM_OK;
}

static rtcosim_status bind_to_component(rtcosim_system_desc *d, system_component *c,
                                        rtcosim_ssd_parameter *p, const system_map_entry *e,
                                        const char *where, rtcosim_error *err)
{
    rtcosim_status st = fit_to_connector(
        d, p, find_connector(c->connectors, c->connector_count, p->name), e, where, err);
    if (st == RTCOSIM_OK)
        st = store_parameter(&c->parameters, &c->parameter_count, &c->parameter_cap, p, err);
    return st;
}

/* A name bound at system level: a system connector, or component.variable
 * (component names may themselves contain dots, so every split is tried). */
static rtcosim_status bind_to_system(rtcosim_system_desc *d, rtcosim_ssd_parameter *p,
                                     const system_map_entry *e, const char *where,
                                     rtcosim_error *err)
{
    const rtcosim_ssd_connector *sc = find_connector(d->connectors, d->connector_count, p->name);
    if (!sc)
        sc = system_find_boundary(d, p->name); /* "path.connector" of a nested system */
    if (sc) {
        rtcosim_status st = fit_to_connector(d, p, sc, e, where, err);
        if (st == RTCOSIM_OK)
            st = store_parameter(&d->parameters, &d->parameter_count, &d->parameter_cap, p, err);
        return st;
    }
    for (const char *dot = strchr(p->name, '.'); dot; dot = strchr(dot + 1, '.')) {
        size_t len = (size_t)(dot - p->name);
        for (size_t i = 0; i < d->component_count; i++) {
            const char *cname = d->components[i].pub.name;
            if (strlen(cname) == len && strncmp(cname, p->name, len) == 0) {
                rtcosim_ssd_parameter local = *p;
                local.name = dot + 1;
                return bind_to_component(d, &d->components[i], &local, e, where, err);
            }
        }
    }
    return rtcosim_error_set(err, RTCOSIM_ENOTFOUND,
                             "%s: parameter '%s' names no component variable "
                             "(component.variable) and no system connector",
                             where, p->name);
}

static rtcosim_status read_value(rtcosim_system_desc *d, const xmlNode *v, const char *label,
                                 rtcosim_ssd_parameter *p, rtcosim_error *err)
{
    const char *text = system_attr(d, v, "value");
    const char *tname = (const char *)v->name;
    if (!text)
        return system_fail(err, RTCOSIM_EFORMAT, label, v, "parameter '%s': ssv:%s without a value",
                           p->name, tname);
    bool ok = true;
    if (strcmp(tname, "Real") == 0) {
        p->type = RTCOSIM_SSP_REAL;
        ok = system_parse_double(text, &p->value.r);
        p->unit = system_attr(d, v, "unit");
    } else if (strcmp(tname, "Integer") == 0) {
        p->type = RTCOSIM_SSP_INTEGER;
        ok = system_parse_int64(text, &p->value.i);
    } else if (strcmp(tname, "Boolean") == 0) {
        p->type = RTCOSIM_SSP_BOOLEAN;
        ok = system_parse_bool(text, &p->value.b);
    } else if (strcmp(tname, "String") == 0) {
        p->type = RTCOSIM_SSP_STRING;
        p->value.s = text;
    } else if (strcmp(tname, "Enumeration") == 0) {
        p->type = RTCOSIM_SSP_ENUMERATION;
        p->value.s = text;
    } else {
        return system_fail(err, RTCOSIM_EUNSUPPORTED, label, v,
                           "parameter '%s': ssv:%s values are not supported", p->name, tname);
    }
    if (!ok)
        return system_fail(err, RTCOSIM_EFORMAT, label, v, "parameter '%s': bad %s value \"%s\"",
                           p->name, tname, text);
    return RTCOSIM_OK;
}

rtcosim_status system_add_info(rtcosim_system_desc *d, const char *label, long line,
                               const char *text, rtcosim_error *err)
{
    const char **slot = system_grow(&d->infos, &d->info_count, &d->info_cap, sizeof *slot);
    if (!slot || !(*slot = system_printf(d, "%s:%ld: %s", label, line, text)))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", label);
    return RTCOSIM_OK;
}

/* Whether an earlier ssv:Parameter of the same ssv:Parameters has this name:
 * SSP 1.0 names each parameter once; the later value wins, with a warning. */
static bool given_before(rtcosim_system_desc *d, const xmlNode *pn, const char *name)
{
    for (const xmlNode *q = pn->prev; q; q = q->prev)
        if (system_is(q, SSV_NS, "Parameter")) {
            const char *other = system_attr(d, q, "name");
            if (other && strcmp(other, name) == 0)
                return true;
        }
    return false;
}

bool system_parameter_set_selected(rtcosim_system_desc *d, const char *name)
{
    if (!d->parameter_set)
        return true;
    const char *shown = name ? name : "(unnamed)";
    bool seen = false;
    for (const char *p = d->set_names; p && *p && !seen;) {
        size_t n = strcspn(p, ",");
        seen = n == strlen(shown) && strncmp(p, shown, n) == 0;
        p += n + (p[n] == ',');
    }
    if (!seen) {
        const char *names = d->set_names ? system_printf(d, "%s,%s", d->set_names, shown)
                                         : system_strdup(d, shown);
        if (names)
            d->set_names = names;
    }
    if (!name || strcmp(name, d->parameter_set) != 0)
        return false;
    d->parameter_set_matched = true;
    return true;
}

static const char *kind_name(system_map_kind k)
{
    static const char *const names[] = {"no", "a linear", "a Boolean mapping", "an integer mapping",
                                        "an enumeration mapping"};
    return names[k];
}

/* A mapping entry's value transformation other than the linear one (that
 * comes after unit conversion, fit_to_connector): the MapEntry whose source
 * equals the value gives the new value; no entry, no change. */
static rtcosim_status map_value(const system_map_entry *e, rtcosim_ssd_parameter *p,
                                const char *where, rtcosim_error *err)
{
    static const rtcosim_ssp_type wants[] = {RTCOSIM_SSP_UNSPECIFIED, RTCOSIM_SSP_REAL,
                                             RTCOSIM_SSP_BOOLEAN, RTCOSIM_SSP_INTEGER,
                                             RTCOSIM_SSP_ENUMERATION};
    if (e->kind == SYSTEM_MAP_NONE)
        return RTCOSIM_OK;
    if (p->type != wants[e->kind])
        return rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                 "%s: parameter '%s' is %s, but mapping entry '%s' -> '%s' (%s:%d) "
                                 "has %s transformation",
                                 where, e->source, rtcosim_ssp_type_name(p->type), e->source,
                                 e->target, e->origin, e->line, kind_name(e->kind));
    for (size_t k = 0; k < e->map_count; k++) {
        bool hit;
        if (e->kind == SYSTEM_MAP_BOOLEAN) {
            bool from = false;
            hit = system_parse_bool(e->map_from[k], &from) && from == p->value.b;
            if (hit)
                (void)system_parse_bool(e->map_to[k], &p->value.b);
        } else if (e->kind == SYSTEM_MAP_INTEGER) {
            int64_t from = 0;
            hit = system_parse_int64(e->map_from[k], &from) && from == p->value.i;
            if (hit)
                (void)system_parse_int64(e->map_to[k], &p->value.i);
        } else {
            hit = e->kind == SYSTEM_MAP_ENUMERATION && strcmp(e->map_from[k], p->value.s) == 0;
            if (hit)
                p->value.s = e->map_to[k];
        }
        if (hit)
            break;
    }
    return RTCOSIM_OK;
}

static rtcosim_status bind(rtcosim_system_desc *d, const system_binding *b,
                           rtcosim_ssd_parameter *p, const system_map_entry *e, const char *where,
                           rtcosim_error *err)
{
    return b->target >= 0 ? bind_to_component(d, &d->components[b->target], p, e, where, err)
                          : bind_to_system(d, p, e, where, err);
}

/* One parameter of the source, named `name` there (prefix applied): as it
 * is, or through every mapping entry naming it (SSP 1.0 section 7.1: one the
 * mapping does not name is not applied); the name then gets the binding's
 * system path. */
static rtcosim_status apply_parameter(rtcosim_system_desc *d, const system_binding *b,
                                      const rtcosim_ssd_parameter *p, const char *where,
                                      rtcosim_error *err)
{
    const char *path = b->path ? b->path : "";
    if (!b->map) {
        rtcosim_ssd_parameter q = *p;
        if (*path && !(q.name = system_printf(d, "%s%s", path, p->name)))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", where);
        return bind(d, b, &q, NULL, where, err);
    }
    bool mapped = false;
    for (size_t i = 0; i < b->map->count; i++) {
        const system_map_entry *e = &b->map->entries[i];
        if (strcmp(e->source, p->name) != 0)
            continue;
        mapped = true;
        rtcosim_ssd_parameter q = *p;
        if (!(q.name = *path ? system_printf(d, "%s%s", path, e->target) : e->target))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", where);
        rtcosim_status st = map_value(e, &q, where, err);
        if (st == RTCOSIM_OK)
            st = bind(d, b, &q, e, where, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    if (mapped)
        return RTCOSIM_OK;
    /* Said, since OMSimulator (2.1) applies such a parameter by its own name. */
    char text[RTCOSIM_ERROR_MESSAGE_MAX / 2];
    snprintf(text, sizeof text,
             "warning: parameter '%s' is named by no entry of the binding's parameter mapping: "
             "not applied (SSP 1.0 section 7.1)",
             p->name);
    return system_add_info(d, p->origin, p->line, text, err);
}

rtcosim_status system_apply_parameter_set_node(rtcosim_system_desc *d, const xmlNode *set,
                                               const char *label, const system_binding *b,
                                               rtcosim_error *err)
{
    const char *prefix = b->prefix;
    if (!system_is(set, SSV_NS, "ParameterSet"))
        return system_fail(err, RTCOSIM_EFORMAT, label, set,
                           "expected an ssv:ParameterSet (namespace %s), found '%s'", SSV_NS,
                           (const char *)set->name);
    /* libcosim's choice (load option parameter_set): only the set of that
     * name among an element's bindings. */
    if (!system_parameter_set_selected(d, system_attr(d, set, "name")))
        return RTCOSIM_OK;
    /* Units first: parameters may use units declared after them. */
    for (const xmlNode *n = set->children; n; n = n->next)
        if (system_is(n, SSV_NS, "Units")) {
            rtcosim_status st = system_read_units(d, n, label, err);
            if (st != RTCOSIM_OK)
                return st;
        }
    for (const xmlNode *ps = set->children; ps; ps = ps->next) {
        if (!system_is(ps, SSV_NS, "Parameters"))
            continue;
        for (const xmlNode *pn = ps->children; pn; pn = pn->next) {
            if (!system_is(pn, SSV_NS, "Parameter"))
                continue;
            const char *name = system_attr(d, pn, "name");
            if (!name || !*name)
                return system_fail(err, RTCOSIM_EFORMAT, label, pn, "ssv:Parameter without a name");
            rtcosim_ssd_parameter p = {
                .name = prefix && *prefix ? system_printf(d, "%s%s", prefix, name) : name,
                .origin = label,
                .line = (int)xmlGetLineNo(pn),
            };
            if (!p.name)
                return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", label);
            const xmlNode *value = NULL;
            for (const xmlNode *v = pn->children; v; v = v->next)
                if (v->type == XML_ELEMENT_NODE && v->ns && v->ns->href &&
                    strcmp((const char *)v->ns->href, SSV_NS) == 0) {
                    value = v;
                    break;
                }
            if (!value)
                return system_fail(err, RTCOSIM_EFORMAT, label, pn, "parameter '%s' has no value",
                                   name);
            rtcosim_status st = read_value(d, value, label, &p, err);
            if (st != RTCOSIM_OK)
                return st;
            char text[RTCOSIM_ERROR_MESSAGE_MAX / 2];
            if (given_before(d, pn, name)) {
                snprintf(text, sizeof text,
                         "warning: parameter '%s' is given more than once; the later value wins",
                         name);
                if ((st = system_add_info(d, label, p.line, text, err)) != RTCOSIM_OK)
                    return st;
            }
            if (p.unit && !system_unit_known(d, p.unit)) {
                snprintf(text, sizeof text,
                         "warning: parameter '%s': unit '%s' is declared by no ssc:Unit "
                         "(taken as the connector's unit where it has none)",
                         name, p.unit);
                if ((st = system_add_info(d, label, p.line, text, err)) != RTCOSIM_OK)
                    return st;
            }
            char where[RTCOSIM_ERROR_MESSAGE_MAX / 2];
            snprintf(where, sizeof where, "%s:%d", label, p.line);
            st = apply_parameter(d, b, &p, where, err);
            if (st != RTCOSIM_OK)
                return st;
        }
    }
    system_sync(d);
    return RTCOSIM_OK;
}

rtcosim_status system_apply_parameter_set_file(rtcosim_system_desc *d, const char *path,
                                               const char *shown_path, const system_binding *b,
                                               rtcosim_error *err)
{
    const char *label = system_strdup(d, shown_path);
    if (!label)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    xmlDoc *doc = NULL;
    rtcosim_status st = system_read_xml_file(path, label, &doc, err);
    if (st != RTCOSIM_OK)
        return st;
    st = system_apply_parameter_set_node(d, xmlDocGetRootElement(doc), label, b, err);
    xmlFreeDoc(doc);
    return st;
}

rtcosim_status system_propagate_parameters(rtcosim_system_desc *d, rtcosim_error *err)
{
    for (size_t i = 0; i < d->parameter_count; i++) {
        const rtcosim_ssd_parameter *sp = &d->parameters[i];
        for (size_t k = 0; k < d->connection_count; k++) {
            const rtcosim_ssd_connection *cn = &d->connections[k];
            if (cn->start.component_index >= 0 || cn->end.component_index < 0 ||
                strcmp(cn->start.connector, sp->name) != 0)
                continue;
            rtcosim_ssd_parameter p = *sp;
            p.name = cn->end.connector;
            if (p.type == RTCOSIM_SSP_REAL) {
                p.value.r = cn->factor * p.value.r + cn->offset;
                p.unit = NULL; /* already in the end connector's unit */
            }
            system_component *c = &d->components[cn->end.component_index];
            char where[RTCOSIM_ERROR_MESSAGE_MAX / 2];
            snprintf(where, sizeof where, "%s:%d", sp->origin, sp->line);
            rtcosim_status st = bind_to_component(d, c, &p, NULL, where, err);
            if (st != RTCOSIM_OK)
                return st;
        }
    }
    system_sync(d);
    return RTCOSIM_OK;
}
