/* SSP 1.0 parameter mappings (section 7; ssd:ParameterMapping, section
 * 5.2.3.2): an ssm:ParameterMapping of ssm:MappingEntry elements, each
 * mapping a name of the parameter source to the name it is applied as, with
 * an optional ssc:LinearTransformation or Boolean-, Integer- or
 * EnumerationMappingTransformation of the value. Read inline or from an
 * .ssm file's root; applied by ssv.c. */
#include <stdio.h>
#include <string.h>

#include "system/ssd_internal.h"

static const struct {
    const char *element;
    system_map_kind kind;
} transformations[] = {
    {"LinearTransformation", SYSTEM_MAP_LINEAR},
    {"BooleanMappingTransformation", SYSTEM_MAP_BOOLEAN},
    {"IntegerMappingTransformation", SYSTEM_MAP_INTEGER},
    {"EnumerationMappingTransformation", SYSTEM_MAP_ENUMERATION},
};

static rtcosim_status read_map_entries(rtcosim_system_desc *d, const xmlNode *t, const char *label,
                                       system_map_entry *e, rtcosim_error *err)
{
    size_t n = 0;
    for (const xmlNode *m = t->children; m; m = m->next)
        n += system_is(m, SSC_NS, "MapEntry");
    e->map_from = system_alloc(d, (n ? n : 1) * 2 * sizeof *e->map_from);
    if (!e->map_from)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", label);
    e->map_to = e->map_from + n;
    for (const xmlNode *m = t->children; m; m = m->next) {
        if (!system_is(m, SSC_NS, "MapEntry"))
            continue;
        const char *from = system_attr(d, m, "source"), *to = system_attr(d, m, "target");
        if (!from || !to)
            return system_fail(err, RTCOSIM_EFORMAT, label, m,
                               "mapping entry '%s': ssc:MapEntry needs source and target",
                               e->source);
        bool b;
        int64_t i;
        if ((e->kind == SYSTEM_MAP_BOOLEAN &&
             !(system_parse_bool(from, &b) && system_parse_bool(to, &b))) ||
            (e->kind == SYSTEM_MAP_INTEGER &&
             !(system_parse_int64(from, &i) && system_parse_int64(to, &i))))
            return system_fail(err, RTCOSIM_EFORMAT, label, m,
                               "mapping entry '%s': ssc:MapEntry \"%s\" -> \"%s\" is not %s",
                               e->source, from, to,
                               e->kind == SYSTEM_MAP_BOOLEAN ? "Boolean" : "integer");
        for (size_t k = 0; k < e->map_count; k++)
            if (strcmp(e->map_from[k], from) == 0)
                return system_fail(err, RTCOSIM_EFORMAT, label, m,
                                   "mapping entry '%s': ssc:MapEntry source \"%s\" given twice",
                                   e->source, from);
        e->map_from[e->map_count] = from;
        e->map_to[e->map_count++] = to;
    }
    return RTCOSIM_OK;
}

static rtcosim_status read_transformation(rtcosim_system_desc *d, const xmlNode *entry,
                                          const char *label, system_map_entry *e,
                                          rtcosim_error *err)
{
    for (const xmlNode *t = entry->children; t; t = t->next) {
        if (t->type != XML_ELEMENT_NODE)
            continue;
        size_t k = 0;
        while (k < sizeof transformations / sizeof transformations[0] &&
               !system_is(t, SSC_NS, transformations[k].element))
            k++;
        if (k == sizeof transformations / sizeof transformations[0])
            continue; /* annotations and the like */
        if (e->kind != SYSTEM_MAP_NONE)
            return system_fail(err, RTCOSIM_EFORMAT, label, t,
                               "mapping entry '%s' has more than one transformation", e->source);
        e->kind = transformations[k].kind;
        if (e->kind != SYSTEM_MAP_LINEAR) {
            rtcosim_status st = read_map_entries(d, t, label, e, err);
            if (st != RTCOSIM_OK)
                return st;
            continue;
        }
        const char *factor = system_attr(d, t, "factor"), *offset = system_attr(d, t, "offset");
        e->factor = 1.0;
        e->offset = 0.0;
        if ((factor && !system_parse_double(factor, &e->factor)) ||
            (offset && !system_parse_double(offset, &e->offset)))
            return system_fail(err, RTCOSIM_EFORMAT, label, t,
                               "mapping entry '%s': ssc:LinearTransformation with a bad factor "
                               "or offset",
                               e->source);
    }
    return RTCOSIM_OK;
}

rtcosim_status system_read_parameter_mapping(rtcosim_system_desc *d, const xmlNode *root,
                                             const char *label, system_param_map *out,
                                             rtcosim_error *err)
{
    if (!system_is(root, SSM_NS, "ParameterMapping"))
        return system_fail(err, RTCOSIM_EFORMAT, label, root,
                           "expected an ssm:ParameterMapping (namespace %s), found '%s'", SSM_NS,
                           (const char *)root->name);
    const char *version = system_attr(d, root, "version");
    if (version && strncmp(version, "1.", 2) != 0 && strncmp(version, "2.", 2) != 0)
        return system_fail(err, RTCOSIM_EUNSUPPORTED, label, root,
                           "ssm:ParameterMapping version '%s' is not supported (1.0, 2.0)",
                           version);
    size_t n = 0;
    for (const xmlNode *e = root->children; e; e = e->next)
        n += system_is(e, SSM_NS, "MappingEntry");
    *out = (system_param_map){.entries = system_alloc(d, (n ? n : 1) * sizeof *out->entries)};
    if (!out->entries)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", label);
    for (const xmlNode *x = root->children; x; x = x->next) {
        if (!system_is(x, SSM_NS, "MappingEntry"))
            continue;
        system_map_entry e = {
            .source = system_attr(d, x, "source"),
            .target = system_attr(d, x, "target"),
            .origin = label,
            .line = (int)xmlGetLineNo(x),
        };
        if (!e.source || !*e.source || !e.target || !*e.target)
            return system_fail(err, RTCOSIM_EFORMAT, label, x,
                               "ssm:MappingEntry needs a source and a target");
        const char *suppress = system_attr(d, x, "suppressUnitConversion");
        if (suppress && !system_parse_bool(suppress, &e.suppress_unit_conversion))
            return system_fail(err, RTCOSIM_EFORMAT, label, x,
                               "mapping entry '%s': suppressUnitConversion \"%s\" is not a Boolean",
                               e.source, suppress);
        rtcosim_status st = read_transformation(d, x, label, &e, err);
        if (st != RTCOSIM_OK)
            return st;
        /* Section 7.1: implementations MUST NOT map multiple parameters to
         * the same name (one may go to several). */
        for (size_t k = 0; k < out->count; k++)
            if (strcmp(out->entries[k].target, e.target) == 0 &&
                strcmp(out->entries[k].source, e.source) != 0)
                return system_fail(err, RTCOSIM_EFORMAT, label, x,
                                   "parameters '%s' (line %d) and '%s' are both mapped to '%s' "
                                   "(SSP 1.0 section 7.1)",
                                   out->entries[k].source, out->entries[k].line, e.source,
                                   e.target);
        out->entries[out->count++] = e;
    }
    return RTCOSIM_OK;
}

static rtcosim_status read_mapping(parse_ctx *ctx, const xmlNode *root, const char *label,
                                   void *out)
{
    return system_read_parameter_mapping(ctx->d, root, label, out, ctx->err);
}

rtcosim_status ssd_read_binding_mapping(parse_ctx *ctx, const xmlNode *n, system_param_map *out)
{
    rtcosim_system_desc *d = ctx->d;
    const char *type = system_attr(d, n, "type");
    if (type && strcmp(type, "application/x-ssp-parameter-mapping") != 0)
        return FAIL(ctx, n, RTCOSIM_EUNSUPPORTED, "parameter mapping of type '%s' is not supported",
                    type);
    const char *base = system_attr(d, n, "sourceBase");
    if (base && strcmp(base, "SSD") != 0)
        return FAIL(ctx, n, RTCOSIM_EUNSUPPORTED,
                    "parameter mapping with sourceBase '%s' is not supported (SSD only)", base);
    return ssd_read_source_or_inline(ctx, n, "ssd:ParameterMapping", "ssm:ParameterMapping",
                                     "parameter mapping", read_mapping, out);
}
