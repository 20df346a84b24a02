/* SSD elements: connectors, components (sources resolved) and the
 * parameter bindings of a system or component (SSP 1.0 section 5). Split from
 * ssd.c; every rejection names file and line. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "system/ssd_internal.h"

/* ---- connectors ---------------------------------------------------------- */

static rtcosim_status read_connector(parse_ctx *ctx, const xmlNode *n, rtcosim_ssd_connector *out)
{
    static const char *const kinds[] = {"input", "output", "parameter", "calculatedParameter",
                                        "inout"};
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
    return ssd_read_value_type(ctx, n, "connector", out);
}

rtcosim_status ssd_read_value_type(parse_ctx *ctx, const xmlNode *n, const char *what,
                                   rtcosim_ssd_connector *out)
{
    static const char *const types[] = {NULL, "Real", "Integer", "Boolean", "String",
                                        "Enumeration", "Binary"};
    rtcosim_system_desc *d = ctx->d;
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
            return FAIL(ctx, t, RTCOSIM_EFORMAT, "%s '%s' has more than one type", what,
                        out->name);
        out->type = (rtcosim_ssp_type)i;
        if (out->type == RTCOSIM_SSP_REAL)
            out->unit = system_attr(d, t, "unit");
        if (out->type == RTCOSIM_SSP_ENUMERATION)
            out->enumeration = system_attr(d, t, "name");
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

const xmlNode *ssd_child(const xmlNode *n, const char *ns, const char *local)
{
    for (const xmlNode *c = n->children; c; c = c->next)
        if (system_is(c, ns, local))
            return c;
    return NULL;
}

const char *ssd_join_path(rtcosim_system_desc *d, const char *rel)
{
    if (rel[0] == '/')
        return system_strdup(d, rel);
    return system_printf(d, "%s/%s", d->base_dir, rel);
}

/* Inside a .ssp, a reference must stay in the package (SSP 1.0 section 4:
 * the package is self-contained): not absolute and never climbing above its
 * root through "..". Not checked for a plain .ssd, or with allow_outside. */
bool ssd_escapes_package(const rtcosim_system_desc *d, const char *rel)
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
    if (ssd_escapes_package(ctx->d, rel))
        return FAIL(ctx, n, RTCOSIM_EFORMAT,
                    "component '%s': source '%s' is outside the package (refused; "
                    "--allow-outside permits it)",
                    c->pub.name, src);
    c->pub.path = ssd_join_path(ctx->d, rel);
    if (!c->pub.path)
        return NOMEM(ctx);
    if (access(c->pub.path, R_OK) != 0)
        return FAIL(ctx, n, RTCOSIM_ENOTFOUND, "component '%s': source '%s' not found (%s)",
                    c->pub.name, src, c->pub.path);
    return RTCOSIM_OK;
}

/* An element name must be unique among the components and nested systems
 * of its system (they share the dotted name space of results). */
static rtcosim_status check_unique(parse_ctx *ctx, const xmlNode *n, const char *full)
{
    rtcosim_system_desc *d = ctx->d;
    for (size_t i = 0; i < d->component_count; i++)
        if (strcmp(d->components[i].pub.name, full) == 0)
            return FAIL(ctx, n, RTCOSIM_EFORMAT, "duplicate %s name '%s' (first on line %d)",
                        system_is(n, SSD_NS, "Component") ? "component" : "element", full,
                        d->components[i].pub.line);
    for (size_t i = 0; i < d->subsystem_count; i++)
        if (!d->subsystems[i].dictionary && strcmp(d->subsystems[i].path, full) == 0)
            return FAIL(ctx, n, RTCOSIM_EFORMAT, "duplicate element name '%s' (first on line %d)",
                        full, d->subsystems[i].line);
    const system_dict_ref *r = ssd_find_dictionary_reference(d, full);
    if (r)
        return FAIL(ctx, n, RTCOSIM_EFORMAT, "duplicate element name '%s' (first on line %d)",
                    full, r->line);
    return RTCOSIM_OK;
}

static rtcosim_status read_component(parse_ctx *ctx, const xmlNode *n, const char *full)
{
    rtcosim_system_desc *d = ctx->d;
    system_component *c =
        system_grow(&d->components, &d->component_count, &d->component_cap, sizeof *c);
    if (!c)
        return NOMEM(ctx);
    c->pub.name = full;
    c->pub.line = (int)xmlGetLineNo(n);
    c->pub.mime_type = system_attr(d, n, "type");
    c->pub.source = system_attr(d, n, "source");
    if (!c->pub.source)
        return FAIL(ctx, n, RTCOSIM_EFORMAT, "component '%s' has no source", full);
    rtcosim_status st = resolve_source(ctx, n, c);
    if (st == RTCOSIM_OK)
        st = ssd_read_component_annotations(ctx, n, &c->pub);
    if (st == RTCOSIM_OK)
        st = ssd_check_ecu(ctx, n, &c->pub);
    if (st != RTCOSIM_OK)
        return st;
    /* SSP 1.0 makes ssd:Connectors and a connector's type optional; as
     * OMSimulator does, rtcosim then takes them from the model. */
    const xmlNode *conns = ssd_child(n, SSD_NS, "Connectors");
    if (conns) {
        const char *owner = system_printf(d, "component '%s'", full);
        if (!owner)
            return NOMEM(ctx);
        st = read_connectors(ctx, conns, &c->connectors, &c->connector_count, &c->connector_cap,
                             owner);
        if (st != RTCOSIM_OK)
            return st;
    }
    if ((st = system_model_connectors(d, c, !conns, ctx->err)) != RTCOSIM_OK)
        return rtcosim_error_prefix(ctx->err, "%s:%d: component '%s': ", ctx->label, c->pub.line,
                                    full);
    return RTCOSIM_OK;
}

/* A nested ssd:System: recorded with its connectors, then read like the top
 * system with its dotted path as the prefix of every name inside. */
static rtcosim_status read_subsystem(parse_ctx *ctx, const xmlNode *n, const char *full)
{
    rtcosim_system_desc *d = ctx->d;
    system_subsystem *s =
        system_grow(&d->subsystems, &d->subsystem_count, &d->subsystem_cap, sizeof *s);
    if (!s)
        return NOMEM(ctx);
    s->path = full;
    s->line = (int)xmlGetLineNo(n);
    parse_ctx inner = *ctx;
    inner.sub = (int)(d->subsystem_count - 1);
    inner.path = system_printf(d, "%s.", full);
    if (!inner.path)
        return NOMEM(ctx);
    return ssd_read_system(&inner, n);
}

static rtcosim_status read_elements(parse_ctx *ctx, const xmlNode *elements)
{
    rtcosim_system_desc *d = ctx->d;
    for (const xmlNode *n = elements->children; n; n = n->next) {
        bool sys = system_is(n, SSD_NS, "System");
        bool ref = system_is(n, SSD_NS, "SignalDictionaryReference");
        if (!sys && !ref && !system_is(n, SSD_NS, "Component"))
            continue;
        const char *name = system_attr(d, n, "name");
        if (!name || !*name)
            return FAIL(ctx, n, RTCOSIM_EFORMAT, "ssd:%s without a name", (const char *)n->name);
        const char *full = system_printf(d, "%s%s", ctx->path, name);
        if (!full)
            return NOMEM(ctx);
        rtcosim_status st = check_unique(ctx, n, full);
        if (st == RTCOSIM_OK)
            st = ref   ? ssd_read_dictionary_reference(ctx, n, full)
                 : sys ? read_subsystem(ctx, n, full)
                       : read_component(ctx, n, full);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

rtcosim_status ssd_read_system(parse_ctx *ctx, const xmlNode *sys)
{
    rtcosim_system_desc *d = ctx->d;
    rtcosim_status st = RTCOSIM_OK;
    const xmlNode *conns = ssd_child(sys, SSD_NS, "Connectors");
    if (conns && ctx->sub < 0)
        st = read_connectors(ctx, conns, &d->connectors, &d->connector_count, &d->connector_cap,
                             "the system");
    else if (conns) {
        system_subsystem *s = &d->subsystems[ctx->sub];
        const char *owner = system_printf(d, "system '%s'", s->path);
        st = owner ? read_connectors(ctx, conns, &s->connectors, &s->connector_count,
                                     &s->connector_cap, owner)
                   : NOMEM(ctx);
    }
    if (st != RTCOSIM_OK)
        return st;
    /* dictionaries before the elements whose references name them */
    const xmlNode *dictionaries = ssd_child(sys, SSD_NS, "SignalDictionaries");
    if (dictionaries && (st = ssd_read_signal_dictionaries(ctx, dictionaries)) != RTCOSIM_OK)
        return st;
    const xmlNode *elements = ssd_child(sys, SSD_NS, "Elements");
    if (elements && (st = read_elements(ctx, elements)) != RTCOSIM_OK)
        return st;
    system_sync(d);
    const xmlNode *connections = ssd_child(sys, SSD_NS, "Connections");
    for (const xmlNode *c = connections ? connections->children : NULL; c; c = c->next)
        if (system_is(c, SSD_NS, "Connection") && (st = ssd_read_connection(ctx, c)) != RTCOSIM_OK)
            return st;
    return RTCOSIM_OK;
}

const rtcosim_ssd_connector *system_find_boundary(const rtcosim_system_desc *d,
                                                  const char *full_name)
{
    for (size_t i = 0; i < d->subsystem_count; i++) {
        const system_subsystem *s = &d->subsystems[i];
        size_t len = strlen(s->path);
        if (strncmp(full_name, s->path, len) != 0 || full_name[len] != '.')
            continue;
        for (size_t k = 0; k < s->connector_count; k++)
            if (strcmp(s->connectors[k].name, full_name + len + 1) == 0)
                return &s->connectors[k];
    }
    return NULL;
}

rtcosim_status ssd_resolve_source(parse_ctx *ctx, const xmlNode *n, const char *source,
                                  const char *what, const char **path, const char **label)
{
    rtcosim_system_desc *d = ctx->d;
    const char *rel = strncmp(source, "file://", 7) == 0 ? source + 7 : source;
    if (ssd_escapes_package(d, rel))
        return FAIL(ctx, n, RTCOSIM_EFORMAT,
                    "%s '%s' is outside the package (refused; --allow-outside permits it)", what,
                    source);
    if (!(*path = ssd_join_path(d, rel)))
        return NOMEM(ctx);
    if (access(*path, R_OK) != 0)
        return FAIL(ctx, n, RTCOSIM_ENOTFOUND, "%s '%s' not found (%s)", what, source, *path);
    /* Inside a .ssp, name the file as "archive.ssp:name.ext". */
    *label = d->temp_dir ? system_printf(d, "%s:%s", d->file, rel) : *path;
    return *label ? RTCOSIM_OK : NOMEM(ctx);
}

rtcosim_status ssd_read_source_or_inline(parse_ctx *ctx, const xmlNode *n, const char *what,
                                         const char *inline_name, const char *kind,
                                         ssd_content_reader read, void *arg)
{
    const xmlNode *inline_root = NULL;
    for (const xmlNode *c = n->children; c && !inline_root; c = c->next)
        if (c->type == XML_ELEMENT_NODE)
            inline_root = c;
    const char *source = system_attr(ctx->d, n, "source");
    if (source && inline_root)
        return FAIL(ctx, n, RTCOSIM_EFORMAT, "%s has both a source and inline content", what);
    if (!source) {
        if (!inline_root)
            return FAIL(ctx, n, RTCOSIM_EFORMAT, "%s has neither a source nor an %s", what,
                        inline_name);
        return read(ctx, inline_root, ctx->label, arg);
    }
    const char *file, *label;
    rtcosim_status st = ssd_resolve_source(ctx, n, source, kind, &file, &label);
    if (st != RTCOSIM_OK)
        return st;
    xmlDoc *doc = NULL;
    if ((st = system_read_xml_file(file, label, &doc, ctx->err)) != RTCOSIM_OK)
        return st;
    st = read(ctx, xmlDocGetRootElement(doc), label, arg);
    xmlFreeDoc(doc);
    return st;
}

/* ---- parameter bindings -------------------------------------------------- */

static rtcosim_status read_bindings(parse_ctx *ctx, const xmlNode *owner, int target,
                                    const char *path)
{
    rtcosim_system_desc *d = ctx->d;
    const xmlNode *list = ssd_child(owner, SSD_NS, "ParameterBindings");
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
        system_param_map map;
        system_binding how = {.path = path, .prefix = system_attr(d, b, "prefix"),
                              .target = target};
        const xmlNode *mapping = ssd_child(b, SSD_NS, "ParameterMapping");
        if (mapping) {
            rtcosim_status st = ssd_read_binding_mapping(ctx, mapping, &map);
            if (st != RTCOSIM_OK)
                return st;
            how.map = &map;
        }
        const char *source = system_attr(d, b, "source");
        const xmlNode *values = ssd_child(b, SSD_NS, "ParameterValues");
        if (source && values)
            return FAIL(ctx, b, RTCOSIM_EFORMAT,
                        "parameter binding has both a source and inline ParameterValues");
        rtcosim_status st;
        if (source) {
            const char *path, *shown;
            if ((st = ssd_resolve_source(ctx, b, source, "parameter set", &path, &shown)) !=
                RTCOSIM_OK)
                return st;
            st = system_apply_parameter_set_file(d, path, shown, &how, ctx->err);
        } else if (values) {
            const xmlNode *set = NULL;
            for (const xmlNode *s = values->children; s && !set; s = s->next)
                if (s->type == XML_ELEMENT_NODE)
                    set = s;
            if (!set)
                return FAIL(ctx, values, RTCOSIM_EFORMAT, "empty ssd:ParameterValues");
            st = system_apply_parameter_set_node(d, set, ctx->label, &how, ctx->err);
        } else {
            return FAIL(ctx, b, RTCOSIM_EFORMAT,
                        "parameter binding has neither a source nor ParameterValues");
        }
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

/* SSP 1.0 names inside a nested system's bindings are relative to it: they
 * get its dotted path in front (after the binding's own prefix is applied). */
rtcosim_status ssd_read_system_bindings(parse_ctx *ctx, const xmlNode *sys)
{
    rtcosim_system_desc *d = ctx->d;
    rtcosim_status st = read_bindings(ctx, sys, -1, ctx->path);
    const xmlNode *elements = ssd_child(sys, SSD_NS, "Elements");
    for (const xmlNode *n = elements ? elements->children : NULL; n && st == RTCOSIM_OK;
         n = n->next) {
        bool sys_el = system_is(n, SSD_NS, "System");
        if (!sys_el && !system_is(n, SSD_NS, "Component"))
            continue;
        const char *full = system_printf(d, "%s%s", ctx->path, system_attr(d, n, "name"));
        if (!full)
            return NOMEM(ctx);
        if (!sys_el) {
            st = read_bindings(ctx, n, rtcosim_system_desc_find_component(d, full), NULL);
            continue;
        }
        parse_ctx inner = *ctx;
        inner.path = system_printf(d, "%s.", full);
        if (!inner.path)
            return NOMEM(ctx);
        st = ssd_read_system_bindings(&inner, n);
    }
    return st;
}
