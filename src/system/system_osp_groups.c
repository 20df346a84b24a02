/* Variable groups of libcosim's OspSystemStructure: a VariableGroupConnection
 * names a group of each simulator's <modelName>_OspModelDescription.xml and
 * becomes the scalar connections between their variables, in libcosim's
 * order (osp_config_parser.cpp: nested groups pairwise, then variables). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "system/system_osp.h"

/* OspModelDescription exists in two namespaces (0.1: .../MSMI/OSPModelDescription,
 * 1.0.0: .../OspModelDescription/1.0.0) and libcosim reads either by element
 * name: so do we. */
static bool named(const xmlNode *n, const char *local)
{
    return n && n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, local) == 0;
}

/* ---- variable groups (OspModelDescription.xml) ----------------------------- */

/* <modelName>_OspModelDescription.xml beside the FMU, else beside the
 * system file (libcosim looks in these two places). */
static rtcosim_status model_doc(osp_ctx *o, const xmlNode *n, int ci, xmlDoc **out)
{
    rtcosim_system_desc *d = o->d;
    if (o->model_docs[ci]) {
        *out = o->model_docs[ci];
        return RTCOSIM_OK;
    }
    const system_component *c = &d->components[ci];
    const char *model = NULL;
    rtcosim_status st = system_model_name(d, c->pub.path, &model, o->err);
    if (st != RTCOSIM_OK)
        return rtcosim_error_prefix(o->err, "%s:%d: ", o->label, (int)xmlGetLineNo(n));
    const char *slash = strrchr(c->pub.path, '/');
    const char *beside_fmu = system_printf(d, "%.*s/%s_OspModelDescription.xml",
                                           slash ? (int)(slash - c->pub.path) : 1,
                                           slash ? c->pub.path : ".", model);
    const char *beside_config = system_printf(d, "%s/%s_OspModelDescription.xml", d->base_dir, model);
    if (!beside_fmu || !beside_config)
        return rtcosim_error_set(o->err, RTCOSIM_ENOMEM, "%s: out of memory", o->label);
    const char *path = access(beside_fmu, R_OK) == 0 ? beside_fmu : beside_config;
    if (access(path, R_OK) != 0)
        return OFAIL(o, n, RTCOSIM_ENOTFOUND,
                     "variable group of simulator '%s': no %s_OspModelDescription.xml beside the "
                     "FMU or the system file",
                     c->pub.name, model);
    const char *label = system_strdup(d, path);
    if (!label)
        return rtcosim_error_set(o->err, RTCOSIM_ENOMEM, "%s: out of memory", o->label);
    if ((st = system_read_xml_file(path, label, out, o->err)) != RTCOSIM_OK)
        return st;
    const xmlNode *root = xmlDocGetRootElement(*out);
    if (!named(root, "OspModelDescription")) {
        xmlFreeDoc(*out);
        *out = NULL;
        return system_fail(o->err, RTCOSIM_EFORMAT, label, root,
                           "root element is not OspModelDescription");
    }
    o->model_docs[ci] = *out;
    return RTCOSIM_OK;
}

static const xmlNode *find_group(const xmlNode *parent, const char *name, int depth)
{
    if (depth > MAX_GROUP_DEPTH)
        return NULL;
    for (const xmlNode *g = parent->children; g; g = g->next) {
        if (g->type != XML_ELEMENT_NODE || strcmp((const char *)g->name, "Variable") == 0)
            continue;
        xmlChar *gn = xmlGetNoNsProp(g, (const xmlChar *)"name");
        bool match = gn && strcmp((const char *)gn, name) == 0;
        xmlFree(gn);
        if (match)
            return g;
    }
    for (const xmlNode *g = parent->children; g; g = g->next) {
        if (g->type != XML_ELEMENT_NODE || strcmp((const char *)g->name, "Variable") == 0)
            continue;
        const xmlNode *inner = find_group(g, name, depth + 1);
        if (inner)
            return inner;
    }
    return NULL;
}

static size_t count_children(const xmlNode *g, bool variables)
{
    size_t n = 0;
    for (const xmlNode *k = g->children; k; k = k->next)
        if (k->type == XML_ELEMENT_NODE &&
            (strcmp((const char *)k->name, "Variable") == 0) == variables)
            n++;
    return n;
}

static const xmlNode *nth_child(const xmlNode *g, bool variables, size_t i)
{
    for (const xmlNode *k = g->children; k; k = k->next)
        if (k->type == XML_ELEMENT_NODE &&
            (strcmp((const char *)k->name, "Variable") == 0) == variables && i-- == 0)
            return k;
    return NULL;
}

/* libcosim's order: nested groups pairwise (recursively), then the group's
 * own variables pairwise; each level must have the same sizes. */
static rtcosim_status connect_groups(osp_ctx *o, const xmlNode *n, rtcosim_ssd_endpoint a,
                                     const xmlNode *ga, rtcosim_ssd_endpoint b, const xmlNode *gb,
                                     int depth, const char **input)
{
    if (depth > MAX_GROUP_DEPTH)
        return OFAIL(o, n, RTCOSIM_EFORMAT, "variable groups nested deeper than %d", MAX_GROUP_DEPTH);
    for (int variables = 0; variables < 2; variables++) {
        size_t na = count_children(ga, variables), nb = count_children(gb, variables);
        if (na != nb)
            return OFAIL(o, n, RTCOSIM_EFORMAT,
                         "variable groups %s:%s and %s:%s differ in size (%zu and %zu %s)",
                         a.component, a.connector, b.component, b.connector, na, nb,
                         variables ? "variables" : "groups");
        for (size_t i = 0; i < na; i++) {
            const xmlNode *ka = nth_child(ga, variables, i), *kb = nth_child(gb, variables, i);
            rtcosim_status st;
            if (!variables) {
                st = connect_groups(o, n, a, ka, b, kb, depth + 1, input);
            } else {
                rtcosim_ssd_endpoint ea = a, eb = b;
                const rtcosim_ssd_connector *ca = NULL, *cb = NULL;
                ea.connector = system_attr(o->d, ka, "ref");
                eb.connector = system_attr(o->d, kb, "ref");
                const system_component *sa = &o->d->components[a.component_index];
                const system_component *sb = &o->d->components[b.component_index];
                for (size_t k = 0; ea.connector && k < sa->connector_count; k++)
                    if (strcmp(sa->connectors[k].name, ea.connector) == 0)
                        ca = &sa->connectors[(ea.connector_index = (int)k)];
                for (size_t k = 0; eb.connector && k < sb->connector_count; k++)
                    if (strcmp(sb->connectors[k].name, eb.connector) == 0)
                        cb = &sb->connectors[(eb.connector_index = (int)k)];
                if (!ca || !cb)
                    return OFAIL(o, n, RTCOSIM_ENOTFOUND,
                                 "variable group %s:%s: simulator '%s' has no variable '%s'",
                                 ca ? b.component : a.component, ca ? b.connector : a.connector,
                                 ca ? b.component : a.component,
                                 (ca ? eb.connector : ea.connector) ? (ca ? eb.connector : ea.connector)
                                                                    : "");
                st = osp_add_connection(o, (int)xmlGetLineNo(n), ea, ca, eb, cb, 1.0, 0.0, false, input);
            }
            if (st != RTCOSIM_OK)
                return st;
        }
    }
    return RTCOSIM_OK;
}

rtcosim_status osp_read_group_connection(osp_ctx *o, const xmlNode *n)
{
    const xmlNode *va, *vb;
    rtcosim_ssd_endpoint a, b;
    xmlDoc *da = NULL, *db = NULL;
    rtcosim_status st = osp_two_children(o, n, "VariableGroup", &va, &vb);
    if (st == RTCOSIM_OK)
        st = osp_endpoint(o, va, &a, NULL, true);
    if (st == RTCOSIM_OK)
        st = osp_endpoint(o, vb, &b, NULL, true);
    if (st == RTCOSIM_OK)
        st = model_doc(o, va, a.component_index, &da);
    if (st == RTCOSIM_OK)
        st = model_doc(o, vb, b.component_index, &db);
    if (st != RTCOSIM_OK)
        return st;
    const xmlNode *groups_a = NULL, *groups_b = NULL;
    for (const xmlNode *k = xmlDocGetRootElement(da)->children; k; k = k->next)
        if (named(k, "VariableGroups"))
            groups_a = k;
    for (const xmlNode *k = xmlDocGetRootElement(db)->children; k; k = k->next)
        if (named(k, "VariableGroups"))
            groups_b = k;
    const xmlNode *ga = groups_a ? find_group(groups_a, a.connector, 0) : NULL;
    const xmlNode *gb = groups_b ? find_group(groups_b, b.connector, 0) : NULL;
    if (!ga || !gb)
        return OFAIL(o, ga ? vb : va, RTCOSIM_ENOTFOUND,
                     "simulator '%s' has no variable group '%s' in its OspModelDescription",
                     ga ? b.component : a.component, ga ? b.connector : a.connector);
    const char *input = NULL;
    st = connect_groups(o, n, a, ga, b, gb, 0, &input);
    return st;
}

