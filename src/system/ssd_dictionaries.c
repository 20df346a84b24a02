/* SSP 1.0 signal dictionaries (sections 5.3.3, 5.5 and 8): a system's
 * ssd:SignalDictionary (inline ssb:SignalDictionary or an .ssb file) is a
 * collection of signals; an ssd:SignalDictionaryReference element of that
 * system, or of a system inside it, names the dictionary (looked up from its
 * own system outwards) and gives access to the entries through its
 * connectors. A connection into a reference's connector writes the entry, one
 * out of it reads the entry; every reference to a dictionary shares its
 * entries. So a dictionary is a junction among d->subsystems whose connectors
 * are its entries, every reference resolves to it, and the flattening of
 * connections (ssd_connections.c) joins each reader to the one writer,
 * composing their transformations; two writers of one entry are refused as
 * two connections driving one connector are. */
#include <stdio.h>
#include <string.h>

#include "system/ssd_internal.h"

#define SSB_NS "http://ssp-standard.org/SSP1/SystemStructureSignalDictionary"

const system_dict_ref *ssd_find_dictionary_reference(const rtcosim_system_desc *d,
                                                     const char *full)
{
    for (size_t i = 0; i < d->dict_ref_count; i++)
        if (strcmp(d->dict_refs[i].path, full) == 0)
            return &d->dict_refs[i];
    return NULL;
}

/* An ssb:SignalDictionary's entries into the junction s; its own Units and
 * Enumerations join the description's. */
static rtcosim_status read_entries(parse_ctx *ctx, const xmlNode *root, const char *label,
                                   void *junction)
{
    system_subsystem *s = junction;
    rtcosim_system_desc *d = ctx->d;
    parse_ctx here = *ctx;
    here.label = label;
    if (!system_is(root, SSB_NS, "SignalDictionary"))
        return FAIL(&here, root, RTCOSIM_EFORMAT,
                    "expected an ssb:SignalDictionary (namespace %s), found '%s'", SSB_NS,
                    (const char *)root->name);
    for (const xmlNode *n = root->children; n; n = n->next) {
        rtcosim_status st = RTCOSIM_OK;
        if (n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, "Units") == 0)
            st = system_read_units(d, n, label, ctx->err);
        else if (n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, "Enumerations") == 0)
            st = ssd_read_enumerations(&here, n);
        if (st != RTCOSIM_OK)
            return st;
    }
    for (const xmlNode *n = root->children; n; n = n->next) {
        if (!system_is(n, SSB_NS, "DictionaryEntry"))
            continue;
        rtcosim_ssd_connector e = {.line = (int)xmlGetLineNo(n),
                                   .name = system_attr(d, n, "name"),
                                   .kind = RTCOSIM_CONNECTOR_INOUT};
        if (!e.name || !*e.name)
            return FAIL(&here, n, RTCOSIM_EFORMAT, "ssb:DictionaryEntry without a name");
        rtcosim_status st = ssd_read_value_type(&here, n, "dictionary entry", &e);
        if (st != RTCOSIM_OK)
            return st;
        if (e.type == RTCOSIM_SSP_UNSPECIFIED)
            return FAIL(&here, n, RTCOSIM_EFORMAT,
                        "dictionary entry '%s' has no type (ssc:Real, ssc:Integer, ...)", e.name);
        for (size_t i = 0; i < s->connector_count; i++)
            if (strcmp(s->connectors[i].name, e.name) == 0)
                return FAIL(&here, n, RTCOSIM_EFORMAT,
                            "signal dictionary '%s' has two entries named '%s' (first on line %d)",
                            s->path, e.name, s->connectors[i].line);
        rtcosim_ssd_connector *slot =
            system_grow(&s->connectors, &s->connector_count, &s->connector_cap, sizeof *slot);
        if (!slot)
            return NOMEM(ctx);
        *slot = e;
    }
    return RTCOSIM_OK;
}

static rtcosim_status read_dictionary(parse_ctx *ctx, const xmlNode *n)
{
    rtcosim_system_desc *d = ctx->d;
    const char *name = system_attr(d, n, "name");
    if (!name || !*name)
        return FAIL(ctx, n, RTCOSIM_EFORMAT, "ssd:SignalDictionary without a name");
    const char *type = system_attr(d, n, "type");
    if (type && strcmp(type, "application/x-ssp-signal-dictionary") != 0)
        return FAIL(ctx, n, RTCOSIM_EUNSUPPORTED, "signal dictionary of type '%s' is not supported",
                    type);
    const char *path = system_printf(d, "%s%s", ctx->path, name);
    if (!path)
        return NOMEM(ctx);
    for (size_t i = 0; i < d->subsystem_count; i++)
        if (d->subsystems[i].dictionary && strcmp(d->subsystems[i].path, path) == 0)
            return FAIL(ctx, n, RTCOSIM_EFORMAT,
                        "two signal dictionaries named '%s' in one system (first on line %d)",
                        name, d->subsystems[i].line);
    system_subsystem *s =
        system_grow(&d->subsystems, &d->subsystem_count, &d->subsystem_cap, sizeof *s);
    if (!s)
        return NOMEM(ctx);
    s->path = path;
    s->line = (int)xmlGetLineNo(n);
    s->dictionary = true;
    const char *what = system_printf(d, "signal dictionary '%s'", name);
    if (!what)
        return NOMEM(ctx);
    return ssd_read_source_or_inline(ctx, n, what, "ssb:SignalDictionary", "signal dictionary",
                                     read_entries, s);
}

rtcosim_status ssd_read_signal_dictionaries(parse_ctx *ctx, const xmlNode *list)
{
    for (const xmlNode *n = list->children; n; n = n->next)
        if (system_is(n, SSD_NS, "SignalDictionary")) {
            rtcosim_status st = read_dictionary(ctx, n);
            if (st != RTCOSIM_OK)
                return st;
        }
    return RTCOSIM_OK;
}

/* The dictionary `name` as seen from the system at `path` ("a.b." ... ""):
 * its own first, then each enclosing one. */
static int find_dictionary(const rtcosim_system_desc *d, const char *path, const char *name)
{
    size_t len = strlen(path);
    for (;;) {
        for (size_t i = 0; i < d->subsystem_count; i++) {
            const system_subsystem *s = &d->subsystems[i];
            if (s->dictionary && strncmp(s->path, path, len) == 0 &&
                strcmp(s->path + len, name) == 0)
                return (int)i;
        }
        if (len == 0)
            return -1;
        /* drop the innermost system: "a.b." -> "a." */
        len--;
        while (len > 0 && path[len - 1] != '.')
            len--;
    }
}

rtcosim_status ssd_read_dictionary_reference(parse_ctx *ctx, const xmlNode *n, const char *full)
{
    rtcosim_system_desc *d = ctx->d;
    const char *dictionary = system_attr(d, n, "dictionary");
    if (!dictionary || !*dictionary)
        return FAIL(ctx, n, RTCOSIM_EFORMAT,
                    "signal dictionary reference '%s' has no dictionary attribute", full);
    int j = find_dictionary(d, ctx->path, dictionary);
    if (j < 0)
        return FAIL(ctx, n, RTCOSIM_ENOTFOUND,
                    "signal dictionary reference '%s': no system from here outwards defines a "
                    "signal dictionary '%s'",
                    full, dictionary);
    /* Its connectors name entries; a declared type must be the entry's. */
    const xmlNode *conns = ssd_child(n, SSD_NS, "Connectors");
    for (const xmlNode *c = conns ? conns->children : NULL; c; c = c->next) {
        if (!system_is(c, SSD_NS, "Connector"))
            continue;
        rtcosim_ssd_connector decl = {.name = system_attr(d, c, "name")};
        if (!decl.name || !*decl.name)
            return FAIL(ctx, c, RTCOSIM_EFORMAT, "ssd:Connector without a name");
        rtcosim_status st = ssd_read_value_type(ctx, c, "connector", &decl);
        if (st != RTCOSIM_OK)
            return st;
        const system_subsystem *s = &d->subsystems[j];
        size_t k = 0;
        while (k < s->connector_count && strcmp(s->connectors[k].name, decl.name) != 0)
            k++;
        if (k == s->connector_count)
            return FAIL(ctx, c, RTCOSIM_ENOTFOUND,
                        "signal dictionary reference '%s': dictionary '%s' has no entry '%s'",
                        full, dictionary, decl.name);
        if (decl.type != RTCOSIM_SSP_UNSPECIFIED && decl.type != s->connectors[k].type)
            return FAIL(ctx, c, RTCOSIM_EFORMAT,
                        "signal dictionary reference '%s': connector '%s' is %s but the entry "
                        "is %s",
                        full, decl.name, rtcosim_ssp_type_name(decl.type),
                        rtcosim_ssp_type_name(s->connectors[k].type));
    }
    system_dict_ref *r = system_grow(&d->dict_refs, &d->dict_ref_count, &d->dict_ref_cap, sizeof *r);
    if (!r)
        return NOMEM(ctx);
    *r = (system_dict_ref){.path = full, .junction = j, .line = (int)xmlGetLineNo(n)};
    return RTCOSIM_OK;
}
