/* SSP 1.0 mapping transformations on connections (ssc:IntegerMapping-,
 * BooleanMapping- and EnumerationMappingTransformation, each a list of
 * ssc:MapEntry source/target) and the ssd:Enumerations that give enumeration
 * items their values, so that the master maps plain integers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "system/ssd_internal.h"

rtcosim_status ssd_read_enumerations(parse_ctx *ctx, const xmlNode *list)
{
    rtcosim_system_desc *d = ctx->d;
    for (const xmlNode *e = list->children; e; e = e->next) {
        if (!system_is(e, SSC_NS, "Enumeration"))
            continue;
        const char *name = system_attr(d, e, "name");
        if (!name || !*name)
            return FAIL(ctx, e, RTCOSIM_EFORMAT, "ssc:Enumeration without a name");
        for (const xmlNode *it = e->children; it; it = it->next) {
            if (!system_is(it, SSC_NS, "Item"))
                continue;
            system_enum_item item = {name, system_attr(d, it, "name"), 0};
            const char *value = system_attr(d, it, "value");
            if (!item.item || !value || !system_parse_int64(value, &item.value))
                return FAIL(ctx, it, RTCOSIM_EFORMAT,
                            "enumeration '%s': ssc:Item needs a name and an integer value", name);
            system_enum_item *slot =
                system_grow(&d->enum_items, &d->enum_item_count, &d->enum_item_cap, sizeof *slot);
            if (!slot)
                return NOMEM(ctx);
            *slot = item;
        }
    }
    return RTCOSIM_OK;
}

/* The value of item `item` of the enumeration named by connector c. */
static rtcosim_status enum_value(parse_ctx *ctx, const xmlNode *n, const rtcosim_ssd_connector *c,
                                 const char *item, int64_t *out)
{
    const rtcosim_system_desc *d = ctx->d;
    if (!c->enumeration)
        return FAIL(ctx, n, RTCOSIM_EFORMAT,
                    "enumeration mapping: connector '%s' names no enumeration (ssc:Enumeration "
                    "name=...)",
                    c->name);
    for (size_t i = 0; i < d->enum_item_count; i++)
        if (strcmp(d->enum_items[i].enumeration, c->enumeration) == 0 &&
            strcmp(d->enum_items[i].item, item) == 0) {
            *out = d->enum_items[i].value;
            return RTCOSIM_OK;
        }
    return FAIL(ctx, n, RTCOSIM_ENOTFOUND,
                "enumeration mapping: '%s' is no item of enumeration '%s' in ssd:Enumerations", item,
                c->enumeration);
}

static rtcosim_status entry_value(parse_ctx *ctx, const xmlNode *n, const char *kind,
                                  const rtcosim_ssd_connector *c, const char *text, int64_t *out)
{
    bool b;
    if (strcmp(kind, "Enumeration") == 0)
        return enum_value(ctx, n, c, text, out);
    if (strcmp(kind, "Boolean") == 0 ? system_parse_bool(text, &b) && ((*out = b), true)
                                     : system_parse_int64(text, out))
        return RTCOSIM_OK;
    return FAIL(ctx, n, RTCOSIM_EFORMAT, "%s mapping: bad value \"%s\"", kind, text);
}

rtcosim_status ssd_read_mapping(parse_ctx *ctx, const xmlNode *t, const rtcosim_ssd_connector *a,
                                const rtcosim_ssd_connector *b, rtcosim_ssd_connection *cn)
{
    static const char *const kinds[] = {"Integer", "Boolean", "Enumeration"};
    static const rtcosim_ssp_type types[] = {RTCOSIM_SSP_INTEGER, RTCOSIM_SSP_BOOLEAN,
                                             RTCOSIM_SSP_ENUMERATION};
    rtcosim_system_desc *d = ctx->d;
    size_t k = 0;
    while (k < 3 && !(strncmp((const char *)t->name, kinds[k], strlen(kinds[k])) == 0 &&
                      strcmp((const char *)t->name + strlen(kinds[k]), "MappingTransformation") == 0))
        k++;
    if (k == 3)
        return FAIL(ctx, t, RTCOSIM_EUNSUPPORTED, "ssc:%s on connections is not supported",
                    (const char *)t->name);
    if (cn->map_count || cn->has_linear_transformation)
        return FAIL(ctx, t, RTCOSIM_EFORMAT, "connection has more than one transformation");
    if ((a->type != RTCOSIM_SSP_UNSPECIFIED && a->type != types[k]) ||
        (b->type != RTCOSIM_SSP_UNSPECIFIED && b->type != types[k]))
        return FAIL(ctx, t, RTCOSIM_EFORMAT, "ssc:%s between connectors of type %s and %s",
                    (const char *)t->name, rtcosim_ssp_type_name(a->type),
                    rtcosim_ssp_type_name(b->type));
    size_t n = 0;
    for (const xmlNode *e = t->children; e; e = e->next)
        n += system_is(e, SSC_NS, "MapEntry");
    int64_t *from = system_alloc(d, (n ? n : 1) * 2 * sizeof *from);
    if (!from)
        return NOMEM(ctx);
    int64_t *to = from + n;
    size_t i = 0;
    for (const xmlNode *e = t->children; e; e = e->next) {
        if (!system_is(e, SSC_NS, "MapEntry"))
            continue;
        const char *src = system_attr(d, e, "source"), *dst = system_attr(d, e, "target");
        if (!src || !dst)
            return FAIL(ctx, e, RTCOSIM_EFORMAT, "ssc:MapEntry needs source and target");
        rtcosim_status st = entry_value(ctx, e, kinds[k], a, src, &from[i]);
        if (st == RTCOSIM_OK)
            st = entry_value(ctx, e, kinds[k], b, dst, &to[i]);
        if (st != RTCOSIM_OK)
            return st;
        for (size_t j = 0; j < i; j++)
            if (from[j] == from[i])
                return FAIL(ctx, e, RTCOSIM_EFORMAT, "ssc:MapEntry source \"%s\" given twice", src);
        i++;
    }
    cn->map_from = from;
    cn->map_to = to;
    cn->map_count = n;
    return RTCOSIM_OK;
}

/* down(up(x)) as one map: up's entries sent through down, then down's
 * entries for values up lets pass unchanged. */
rtcosim_status ssd_compose_maps(rtcosim_system_desc *d, const rtcosim_ssd_connection *up,
                                rtcosim_ssd_connection *down)
{
    if (!up->map_count)
        return RTCOSIM_OK;
    size_t cap = up->map_count + down->map_count, n = 0;
    int64_t *from = system_alloc(d, 2 * cap * sizeof *from);
    if (!from)
        return RTCOSIM_ENOMEM;
    int64_t *to = from + cap;
    for (size_t i = 0; i < up->map_count; i++) {
        int64_t v = up->map_to[i];
        for (size_t j = 0; j < down->map_count; j++)
            if (down->map_from[j] == v) {
                v = down->map_to[j];
                break;
            }
        from[n] = up->map_from[i];
        to[n++] = v;
    }
    for (size_t j = 0; j < down->map_count; j++) {
        bool shadowed = false;
        for (size_t i = 0; i < up->map_count; i++)
            shadowed |= up->map_from[i] == down->map_from[j];
        if (!shadowed) {
            from[n] = down->map_from[j];
            to[n++] = down->map_to[j];
        }
    }
    memmove(from + n, to, n * sizeof *to); /* to[] right after from[n] */
    down->map_from = from;
    down->map_to = from + n;
    down->map_count = n;
    return RTCOSIM_OK;
}
