/* libcosim's own system format, OspSystemStructure.xml (namespace
 * http://opensimulationplatform.com/MSMI/OSPSystemStructure, version 0.1), as
 * a second way into rtcosim_system_desc: simulators with their sources, step
 * size hints and initial values; variable connections, variable-group
 * connections (through the FMUs' <model>_OspModelDescription.xml) and
 * LinearTransformation functions as far as they map to scalar connections;
 * start/end time and base step (groups: system_osp_groups.c). Every
 * rejection names file and line. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "system/system_osp.h"

rtcosim_status osp_line_fail(osp_ctx *o, int line, rtcosim_status status, const char *fmt, ...)
{
    char text[RTCOSIM_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return rtcosim_error_set(o->err, status, "%s:%d: %s", o->label, line, text);
}

bool system_is_osp(const xmlNode *root)
{
    return root && root->type == XML_ELEMENT_NODE &&
           strcmp((const char *)root->name, "OspSystemStructure") == 0;
}

bool osp_is(const xmlNode *n, const char *local) { return system_is(n, OSP_STRUCTURE_NS, local); }

/* The element's text, white space trimmed (arena string). */
static const char *text_of(osp_ctx *o, const xmlNode *n)
{
    xmlChar *raw = xmlNodeGetContent(n);
    const char *s = raw ? (const char *)raw : "";
    while (isspace((unsigned char)*s))
        s++;
    size_t len = strlen(s);
    while (len && isspace((unsigned char)s[len - 1]))
        len--;
    const char *copy = system_strndup(o->d, s, len);
    xmlFree(raw);
    return copy;
}

static rtcosim_status read_seconds(osp_ctx *o, const xmlNode *n, const char *text, const char *what,
                                   bool positive, rtcosim_time_ns *out)
{
    rtcosim_error e;
    if (!text || rtcosim_time_parse_seconds(text, out, &e) != RTCOSIM_OK)
        return OFAIL(o, n, RTCOSIM_EFORMAT, "bad %s \"%s\"", what, text ? text : "");
    if (positive && *out <= 0)
        return OFAIL(o, n, RTCOSIM_EFORMAT, "%s must be positive", what);
    return RTCOSIM_OK;
}

/* ---- simulators ------------------------------------------------------------ */

static rtcosim_status read_initial_value(osp_ctx *o, system_component *c, const xmlNode *n)
{
    rtcosim_system_desc *d = o->d;
    const char *name = system_attr(d, n, "variable");
    if (!name || !*name)
        return OFAIL(o, n, RTCOSIM_EFORMAT, "InitialValue without a variable");
    const xmlNode *v = NULL;
    for (const xmlNode *k = n->children; k; k = k->next)
        if (k->type == XML_ELEMENT_NODE) {
            if (v)
                return OFAIL(o, k, RTCOSIM_EFORMAT, "InitialValue '%s' has more than one value", name);
            v = k;
        }
    if (!v)
        return OFAIL(o, n, RTCOSIM_EFORMAT, "InitialValue '%s' has no value", name);
    const char *value = system_attr(d, v, "value");
    if (!value)
        return OFAIL(o, v, RTCOSIM_EFORMAT, "InitialValue '%s': %s without a value attribute", name,
                     (const char *)v->name);
    rtcosim_ssd_parameter p = {.name = name, .origin = o->label, .line = (int)xmlGetLineNo(v)};
    bool ok = true;
    if (osp_is(v, "Real")) {
        p.type = RTCOSIM_SSP_REAL;
        ok = system_parse_double(value, &p.value.r);
    } else if (osp_is(v, "Integer")) {
        p.type = RTCOSIM_SSP_INTEGER;
        ok = system_parse_int64(value, &p.value.i) && p.value.i >= INT32_MIN && p.value.i <= INT32_MAX;
    } else if (osp_is(v, "Boolean")) {
        /* xs:boolean: true, false, 1, 0 (libcosim reads all four). */
        p.type = RTCOSIM_SSP_BOOLEAN;
        ok = system_parse_bool(value, &p.value.b);
    } else if (osp_is(v, "String")) {
        p.type = RTCOSIM_SSP_STRING;
        p.value.s = value;
    } else {
        return OFAIL(o, v, RTCOSIM_EFORMAT,
                     "InitialValue '%s': unknown value element '%s' (Real, Integer, Boolean, String)",
                     name, (const char *)v->name);
    }
    if (!ok)
        return OFAIL(o, v, RTCOSIM_EFORMAT, "InitialValue '%s': bad %s value \"%s\"", name,
                     (const char *)v->name, value);
    for (size_t i = 0; i < c->parameter_count; i++)
        if (strcmp(c->parameters[i].name, name) == 0)
            return OFAIL(o, n, RTCOSIM_EFORMAT, "InitialValue '%s' given twice (first on line %d)",
                         name, c->parameters[i].line);
    rtcosim_ssd_parameter *slot =
        system_grow(&c->parameters, &c->parameter_count, &c->parameter_cap, sizeof *slot);
    if (!slot)
        return rtcosim_error_set(o->err, RTCOSIM_ENOMEM, "%s: out of memory", o->label);
    *slot = p;
    return RTCOSIM_OK;
}

/* A relative path, or a file:// URI; other schemes (libcosim's proxyfmu://,
 * fmu-proxy) name remote FMUs rtcosim does not reach. rtcosim:NAME names a
 * native model, as in an SSD. */
static rtcosim_status resolve_source(osp_ctx *o, const xmlNode *n, system_component *c)
{
    const char *src = c->pub.source;
    if (strncmp(src, "rtcosim:", 8) == 0 && src[8]) {
        c->pub.native_type = src + 8;
        return RTCOSIM_OK;
    }
    const char *rel = strncmp(src, "file://", 7) == 0 ? src + 7 : src;
    const char *colon = strchr(rel, ':'), *slash = strchr(rel, '/');
    if (rel == src && colon && (!slash || colon < slash))
        return OFAIL(o, n, RTCOSIM_EUNSUPPORTED,
                     "simulator '%s': source '%s' uses an unsupported URI scheme", c->pub.name, src);
    if (!*rel)
        return OFAIL(o, n, RTCOSIM_EFORMAT, "simulator '%s' has an empty source", c->pub.name);
    c->pub.path = rel[0] == '/' ? system_strdup(o->d, rel)
                                : system_printf(o->d, "%s/%s", o->d->base_dir, rel);
    if (!c->pub.path)
        return rtcosim_error_set(o->err, RTCOSIM_ENOMEM, "%s: out of memory", o->label);
    if (access(c->pub.path, R_OK) != 0)
        return OFAIL(o, n, RTCOSIM_ENOTFOUND, "simulator '%s': source '%s' not found (%s)",
                     c->pub.name, src, c->pub.path);
    return RTCOSIM_OK;
}

static rtcosim_status read_simulator(osp_ctx *o, const xmlNode *n)
{
    rtcosim_system_desc *d = o->d;
    const char *name = system_attr(d, n, "name"), *source = system_attr(d, n, "source");
    if (!name || !*name)
        return OFAIL(o, n, RTCOSIM_EFORMAT, "Simulator without a name");
    if (!source)
        return OFAIL(o, n, RTCOSIM_EFORMAT, "Simulator '%s' has no source", name);
    int other = rtcosim_system_desc_find_component(d, name);
    if (other >= 0)
        return OFAIL(o, n, RTCOSIM_EFORMAT, "duplicate Simulator name '%s' (first on line %d)", name,
                     d->components[other].pub.line);
    system_component *c =
        system_grow(&d->components, &d->component_count, &d->component_cap, sizeof *c);
    if (!c)
        return rtcosim_error_set(o->err, RTCOSIM_ENOMEM, "%s: out of memory", o->label);
    c->pub.name = name;
    c->pub.source = source;
    c->pub.line = (int)xmlGetLineNo(n);
    rtcosim_status st = resolve_source(o, n, c);
    if (st != RTCOSIM_OK)
        return st;
    const char *step = system_attr(d, n, "stepSize");
    if (step && (st = read_seconds(o, n, step, "stepSize", true, &c->pub.step_size_hint_ns)) != RTCOSIM_OK)
        return st;
    for (const xmlNode *k = n->children; k; k = k->next) {
        if (k->type != XML_ELEMENT_NODE)
            continue;
        if (!osp_is(k, "InitialValues"))
            return OFAIL(o, k, RTCOSIM_EFORMAT, "Simulator '%s': unknown element '%s'", name,
                         (const char *)k->name);
        for (const xmlNode *v = k->children; v; v = v->next) {
            if (v->type != XML_ELEMENT_NODE)
                continue;
            if (!osp_is(v, "InitialValue"))
                return OFAIL(o, v, RTCOSIM_EFORMAT, "unknown element '%s' in InitialValues",
                             (const char *)v->name);
            if ((st = read_initial_value(o, c, v)) != RTCOSIM_OK)
                return st;
        }
    }
    /* The connectors are the FMU's variables (the format declares none). */
    if ((st = system_model_connectors(d, c, true, o->err)) != RTCOSIM_OK)
        return rtcosim_error_prefix(o->err, "%s:%d: simulator '%s': ", o->label, c->pub.line, name);
    system_sync(d);
    return RTCOSIM_OK;
}

/* ---- connections ----------------------------------------------------------- */

/* A Variable / VariableGroup endpoint: simulator and name. */
rtcosim_status osp_endpoint(osp_ctx *o, const xmlNode *n, rtcosim_ssd_endpoint *ep,
                               const rtcosim_ssd_connector **conn, bool group)
{
    rtcosim_system_desc *d = o->d;
    const char *sim = system_attr(d, n, "simulator"), *name = system_attr(d, n, "name");
    if (!sim || !name)
        return OFAIL(o, n, RTCOSIM_EFORMAT, "%s needs simulator and name", (const char *)n->name);
    int ci = rtcosim_system_desc_find_component(d, sim);
    if (ci < 0)
        return OFAIL(o, n, RTCOSIM_ENOTFOUND, "%s names unknown simulator '%s'",
                     (const char *)n->name, sim);
    *ep = (rtcosim_ssd_endpoint){.component = d->components[ci].pub.name, .connector = name,
                                 .component_index = ci, .connector_index = -1};
    if (group)
        return RTCOSIM_OK;
    const system_component *c = &d->components[ci];
    for (size_t i = 0; i < c->connector_count; i++)
        if (strcmp(c->connectors[i].name, name) == 0) {
            ep->connector_index = (int)i;
            *conn = &c->connectors[i];
            return RTCOSIM_OK;
        }
    return OFAIL(o, n, RTCOSIM_ENOTFOUND,
                 "simulator '%s' has no input, output or parameter '%s'", sim, name);
}

bool osp_drives(const rtcosim_ssd_connector *c)
{
    return c->kind == RTCOSIM_CONNECTOR_OUTPUT || c->kind == RTCOSIM_CONNECTOR_CALCULATED_PARAMETER;
}

/* Add the connection from -> to (the output end first, as libcosim orders a
 * VariableConnection by the causality of its first variable). */
rtcosim_status osp_add_connection(osp_ctx *o, int line, rtcosim_ssd_endpoint a,
                                     const rtcosim_ssd_connector *ca, rtcosim_ssd_endpoint b,
                                     const rtcosim_ssd_connector *cb, double factor, double offset,
                                     bool transformed, const char **input)
{
    rtcosim_system_desc *d = o->d;
    if (osp_drives(ca) == osp_drives(cb))
        return osp_line_fail(o, line, RTCOSIM_EFORMAT,
                         "connection %s.%s - %s.%s joins %s and %s (one output, one input)",
                         a.component, a.connector, b.component, b.connector,
                         rtcosim_connector_kind_name(ca->kind), rtcosim_connector_kind_name(cb->kind));
    if (!osp_drives(ca)) {
        rtcosim_ssd_endpoint t = a;
        a = b;
        b = t;
        const rtcosim_ssd_connector *tc = ca;
        ca = cb;
        cb = tc;
    }
    if (ca->type != cb->type)
        return osp_line_fail(o, line, RTCOSIM_EFORMAT,
                         "connection %s.%s -> %s.%s joins incompatible types %s and %s", a.component,
                         a.connector, b.component, b.connector, rtcosim_ssp_type_name(ca->type),
                         rtcosim_ssp_type_name(cb->type));
    for (size_t i = 0; i < d->connection_count; i++)
        if (d->connections[i].end.component_index == b.component_index &&
            strcmp(d->connections[i].end.connector, b.connector) == 0)
            return osp_line_fail(o, line, RTCOSIM_EFORMAT,
                             "%s.%s is already driven by the connection on line %d", b.component,
                             b.connector, d->connections[i].line);
    rtcosim_ssd_connection *cn =
        system_grow(&d->connections, &d->connection_count, &d->connection_cap, sizeof *cn);
    if (!cn)
        return rtcosim_error_set(o->err, RTCOSIM_ENOMEM, "%s: out of memory", o->label);
    *cn = (rtcosim_ssd_connection){.start = a, .end = b, .factor = factor, .offset = offset,
                                   .has_linear_transformation = transformed,
                                   .line = line};
    if (input)
        *input = system_printf(d, "%s.%s", b.component, b.connector);
    return RTCOSIM_OK;
}

static rtcosim_status note_bond(osp_ctx *o, const xmlNode *n, const char *input)
{
    const char *bond = system_attr(o->d, n, "powerBond");
    if (!bond)
        return RTCOSIM_OK;
    osp_bond_end *slot =
        system_grow(&o->bond_ends, &o->bond_end_count, &o->bond_end_cap, sizeof *slot);
    if (!slot || !input)
        return rtcosim_error_set(o->err, RTCOSIM_ENOMEM, "%s: out of memory", o->label);
    *slot = (osp_bond_end){bond, input, (int)xmlGetLineNo(n)};
    return RTCOSIM_OK;
}

/* The two endpoint children (Variable or VariableGroup) of a connection. */
rtcosim_status osp_two_children(osp_ctx *o, const xmlNode *n, const char *local,
                                   const xmlNode **a, const xmlNode **b)
{
    *a = *b = NULL;
    for (const xmlNode *k = n->children; k; k = k->next) {
        if (k->type != XML_ELEMENT_NODE)
            continue;
        if (!osp_is(k, local) || *b)
            return OFAIL(o, k, RTCOSIM_EFORMAT, "%s takes exactly two %s elements, found '%s'",
                         (const char *)n->name, local, (const char *)k->name);
        *(*a ? b : a) = k;
    }
    if (!*b)
        return OFAIL(o, n, RTCOSIM_EFORMAT, "%s takes exactly two %s elements",
                     (const char *)n->name, local);
    return RTCOSIM_OK;
}

static rtcosim_status read_variable_connection(osp_ctx *o, const xmlNode *n)
{
    const xmlNode *va, *vb;
    rtcosim_ssd_endpoint a, b;
    const rtcosim_ssd_connector *ca = NULL, *cb = NULL;
    const char *input = NULL;
    rtcosim_status st = osp_two_children(o, n, "Variable", &va, &vb);
    if (st == RTCOSIM_OK)
        st = osp_endpoint(o, va, &a, &ca, false);
    if (st == RTCOSIM_OK)
        st = osp_endpoint(o, vb, &b, &cb, false);
    if (st == RTCOSIM_OK)
        st = osp_add_connection(o, (int)xmlGetLineNo(n), a, ca, b, cb, 1.0, 0.0, false, &input);
    return st == RTCOSIM_OK ? note_bond(o, n, input) : st;
}

/* ---- functions and signals ------------------------------------------------- */

static rtcosim_status read_functions(osp_ctx *o, const xmlNode *list)
{
    rtcosim_system_desc *d = o->d;
    for (const xmlNode *f = list->children; f; f = f->next) {
        if (f->type != XML_ELEMENT_NODE)
            continue;
        const char *name = system_attr(d, f, "name");
        if (!osp_is(f, "LinearTransformation"))
            return OFAIL(o, f, RTCOSIM_EUNSUPPORTED,
                         "OSP function %s '%s' is not supported (LinearTransformation only)",
                         (const char *)f->name, name ? name : "");
        if (!name || !*name)
            return OFAIL(o, f, RTCOSIM_EFORMAT, "LinearTransformation without a name");
        osp_function fn = {.name = name, .factor = 1.0, .offset = 0.0, .line = (int)xmlGetLineNo(f)};
        const char *factor = system_attr(d, f, "factor"), *offset = system_attr(d, f, "offset");
        if ((factor && !system_parse_double(factor, &fn.factor)) ||
            (offset && !system_parse_double(offset, &fn.offset)))
            return OFAIL(o, f, RTCOSIM_EFORMAT, "LinearTransformation '%s': bad %s \"%s\"", name,
                         factor && !system_parse_double(factor, &fn.factor) ? "factor" : "offset",
                         factor && !system_parse_double(factor, &fn.factor) ? factor : offset);
        for (size_t i = 0; i < o->function_count; i++)
            if (strcmp(o->functions[i].name, name) == 0)
                return OFAIL(o, f, RTCOSIM_EFORMAT, "duplicate function name '%s'", name);
        osp_function *slot =
            system_grow(&o->functions, &o->function_count, &o->function_cap, sizeof *slot);
        if (!slot)
            return rtcosim_error_set(o->err, RTCOSIM_ENOMEM, "%s: out of memory", o->label);
        *slot = fn;
    }
    return RTCOSIM_OK;
}

/* A SignalConnection: a simulator variable to a function's "in", or its
 * "out" to a variable. */
static rtcosim_status read_signal_connection(osp_ctx *o, const xmlNode *n)
{
    const xmlNode *var = NULL, *sig = NULL;
    for (const xmlNode *k = n->children; k; k = k->next) {
        if (k->type != XML_ELEMENT_NODE)
            continue;
        if (osp_is(k, "Variable") && !var)
            var = k;
        else if (osp_is(k, "Signal") && !sig)
            sig = k;
        else
            return OFAIL(o, k, RTCOSIM_EFORMAT, "SignalConnection takes one Variable and one Signal");
    }
    if (!var || !sig)
        return OFAIL(o, n, RTCOSIM_EFORMAT, "SignalConnection takes one Variable and one Signal");
    const char *fname = system_attr(o->d, sig, "function"), *sname = system_attr(o->d, sig, "name");
    osp_function *fn = NULL;
    for (size_t i = 0; fname && i < o->function_count; i++)
        if (strcmp(o->functions[i].name, fname) == 0)
            fn = &o->functions[i];
    if (!fn)
        return OFAIL(o, sig, RTCOSIM_ENOTFOUND, "Signal names unknown function '%s'",
                     fname ? fname : "");
    bool in = sname && strcmp(sname, "in") == 0, out = sname && strcmp(sname, "out") == 0;
    if (!in && !out)
        return OFAIL(o, sig, RTCOSIM_EFORMAT, "LinearTransformation '%s' has no signal '%s' (in, out)",
                     fname, sname ? sname : "");
    if (in ? fn->in != NULL : fn->out != NULL)
        return OFAIL(o, sig, RTCOSIM_EFORMAT, "signal %s:%s is connected twice", fname, sname);
    rtcosim_ssd_endpoint *ep = system_alloc(o->d, sizeof *ep);
    if (!ep)
        return rtcosim_error_set(o->err, RTCOSIM_ENOMEM, "%s: out of memory", o->label);
    const rtcosim_ssd_connector *c = NULL;
    rtcosim_status st = osp_endpoint(o, var, ep, &c, false);
    if (st != RTCOSIM_OK)
        return st;
    if (c->type != RTCOSIM_SSP_REAL)
        return OFAIL(o, var, RTCOSIM_EFORMAT, "LinearTransformation '%s': '%s.%s' is %s, not Real",
                     fname, ep->component, ep->connector, rtcosim_ssp_type_name(c->type));
    *(in ? &fn->in : &fn->out) = ep;
    return RTCOSIM_OK;
}

/* A LinearTransformation with its in and out connected is one connection
 * with the transformation: out = factor * in + offset. */
static rtcosim_status finish_functions(osp_ctx *o)
{
    rtcosim_system_desc *d = o->d;
    for (size_t i = 0; i < o->function_count; i++) {
        osp_function *fn = &o->functions[i];
        if (!fn->in || !fn->out) {
            const char *text = system_printf(d, "LinearTransformation '%s' has no %s connection: "
                                                "ignored", fn->name, fn->in ? "out" : "in");
            rtcosim_status st = text ? system_add_info(d, o->label, fn->line, text, o->err)
                                     : rtcosim_error_set(o->err, RTCOSIM_ENOMEM, "out of memory");
            if (st != RTCOSIM_OK)
                return st;
            continue;
        }
        const rtcosim_ssd_connector *ca = &d->components[fn->in->component_index].connectors[fn->in->connector_index];
        const rtcosim_ssd_connector *cb = &d->components[fn->out->component_index].connectors[fn->out->connector_index];
        if (!osp_drives(ca) || osp_drives(cb))
            return osp_line_fail(o, fn->line, RTCOSIM_EFORMAT,
                             "LinearTransformation '%s' must read an output and drive an input",
                             fn->name);
        rtcosim_status st = osp_add_connection(o, fn->line, *fn->in, ca, *fn->out, cb, fn->factor,
                                           fn->offset, true, NULL);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

/* Power bonds: the two VariableConnections that carry one powerBond name
 * (libcosim refuses any other count), effort and flow by their input ends. */
static rtcosim_status finish_bonds(osp_ctx *o)
{
    rtcosim_system_desc *d = o->d;
    for (size_t i = 0; i < o->bond_end_count; i++) {
        const osp_bond_end *e = &o->bond_ends[i];
        size_t count = 0, partner = 0, first = i;
        for (size_t k = 0; k < o->bond_end_count; k++)
            if (strcmp(o->bond_ends[k].bond, e->bond) == 0) {
                if (count == 0)
                    first = k;
                else if (k != i)
                    partner = k;
                count++;
            }
        if (count != 2)
            return osp_line_fail(o, e->line, RTCOSIM_EFORMAT,
                             "power bond '%s' has %zu connections (two make a bond)", e->bond, count);
        if (first != i)
            continue;
        rtcosim_ssd_power_bond *slot = system_grow(&d->bonds, &d->bond_count, &d->bond_cap, sizeof *slot);
        if (!slot)
            return rtcosim_error_set(o->err, RTCOSIM_ENOMEM, "%s: out of memory", o->label);
        *slot = (rtcosim_ssd_power_bond){e->input, o->bond_ends[partner].input, e->line};
    }
    return RTCOSIM_OK;
}

/* ---- the document ---------------------------------------------------------- */

static rtcosim_status read_connections(osp_ctx *o, const xmlNode *list)
{
    for (const xmlNode *n = list->children; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        rtcosim_status st;
        if (osp_is(n, "VariableConnection"))
            st = read_variable_connection(o, n);
        else if (osp_is(n, "VariableGroupConnection"))
            st = osp_read_group_connection(o, n);
        else if (osp_is(n, "SignalConnection"))
            st = read_signal_connection(o, n);
        else if (osp_is(n, "SignalGroupConnection"))
            st = OFAIL(o, n, RTCOSIM_EUNSUPPORTED,
                       "SignalGroupConnection is not supported (VectorSum functions are not)");
        else
            st = OFAIL(o, n, RTCOSIM_EFORMAT, "unknown connection element '%s'", (const char *)n->name);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

static rtcosim_status read_root(osp_ctx *o, const xmlNode *root)
{
    rtcosim_system_desc *d = o->d;
    if (!root->ns || strcmp((const char *)root->ns->href, OSP_STRUCTURE_NS) != 0)
        return OFAIL(o, root, RTCOSIM_EFORMAT, "OspSystemStructure is not in namespace %s",
                     OSP_STRUCTURE_NS);
    const char *version = system_attr(d, root, "version");
    if (!version)
        return OFAIL(o, root, RTCOSIM_EFORMAT, "OspSystemStructure has no version");
    if (strcmp(version, "0.1") != 0)
        return OFAIL(o, root, RTCOSIM_EUNSUPPORTED, "OspSystemStructure version '%s' is not "
                     "supported (0.1)", version);
    d->format = "OspSystemStructure";
    d->name = "OspSystemStructure";
    const xmlNode *simulators = NULL, *functions = NULL, *connections = NULL, *ecco = NULL;
    const char *algorithm = NULL;
    const xmlNode *algorithm_node = root;
    rtcosim_status st = RTCOSIM_OK;
    for (const xmlNode *n = root->children; n && st == RTCOSIM_OK; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        const char *text = NULL;
        if (osp_is(n, "StartTime") || osp_is(n, "EndTime") || osp_is(n, "BaseStepSize") || osp_is(n, "Algorithm")) {
            if (!(text = text_of(o, n)))
                return rtcosim_error_set(o->err, RTCOSIM_ENOMEM, "%s: out of memory", o->label);
        }
        if (osp_is(n, "StartTime")) {
            st = read_seconds(o, n, text, "StartTime", false, &d->start_ns);
            d->has_start = true;
        } else if (osp_is(n, "EndTime")) {
            st = read_seconds(o, n, text, "EndTime", false, &d->stop_ns);
            d->has_stop = true;
        } else if (osp_is(n, "BaseStepSize")) {
            st = read_seconds(o, n, text, "BaseStepSize", true, &d->osp_step_ns);
            d->osp_has_step = true;
            d->osp_step_line = (int)xmlGetLineNo(n);
        } else if (osp_is(n, "Algorithm")) {
            algorithm = text;
            algorithm_node = n;
        } else if (osp_is(n, "Simulators")) {
            simulators = n;
        } else if (osp_is(n, "Functions")) {
            functions = n;
        } else if (osp_is(n, "Connections")) {
            connections = n;
        } else if (osp_is(n, "EccoConfiguration")) {
            ecco = n;
        } else {
            st = OFAIL(o, n, RTCOSIM_EFORMAT, "unknown element '%s' in OspSystemStructure",
                       (const char *)n->name);
        }
    }
    if (st != RTCOSIM_OK)
        return st;
    if (d->has_start && d->has_stop && d->stop_ns < d->start_ns)
        return OFAIL(o, root, RTCOSIM_EFORMAT, "EndTime is before StartTime");
    /* libcosim: "fixedStep" (the default) or "ecco", in any case. */
    if (algorithm && strcasecmp(algorithm, "fixedStep") != 0)
        return OFAIL(o, algorithm_node, strcasecmp(algorithm, "ecco") == 0 ? RTCOSIM_EUNSUPPORTED
                                                                          : RTCOSIM_EFORMAT,
                     "Algorithm '%s' is not supported (fixedStep)", algorithm);
    if (ecco && (st = system_add_info(d, o->label, xmlGetLineNo(ecco),
                                      "EccoConfiguration of a fixedStep system: ignored", o->err)) !=
                    RTCOSIM_OK)
        return st;
    if (!d->osp_has_step) {
        /* libcosim's default base step when the file gives none. */
        d->osp_has_step = true;
        d->osp_step_ns = 100 * RTCOSIM_NS_PER_MS;
        if ((st = system_add_info(d, o->label, xmlGetLineNo(root),
                                  "no BaseStepSize: libcosim's default 0.1 s", o->err)) != RTCOSIM_OK)
            return st;
    }
    if (!simulators)
        return OFAIL(o, root, RTCOSIM_EFORMAT, "OspSystemStructure without Simulators");
    for (const xmlNode *n = simulators->children; n && st == RTCOSIM_OK; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        st = osp_is(n, "Simulator") ? read_simulator(o, n)
                                : OFAIL(o, n, RTCOSIM_EFORMAT, "unknown element '%s' in Simulators",
                                        (const char *)n->name);
    }
    if (st == RTCOSIM_OK && functions)
        st = read_functions(o, functions);
    if (st != RTCOSIM_OK)
        return st;
    o->model_docs = calloc(d->component_count ? d->component_count : 1, sizeof *o->model_docs);
    if (!o->model_docs)
        return rtcosim_error_set(o->err, RTCOSIM_ENOMEM, "%s: out of memory", o->label);
    if (connections)
        st = read_connections(o, connections);
    if (st == RTCOSIM_OK)
        st = finish_functions(o);
    if (st == RTCOSIM_OK)
        st = finish_bonds(o);
    return st;
}

rtcosim_status system_read_osp(rtcosim_system_desc *d, const xmlNode *root, rtcosim_error *err)
{
    osp_ctx o = {.d = d, .label = d->label, .err = err};
    rtcosim_status st = read_root(&o, root);
    for (size_t i = 0; o.model_docs && i < d->component_count; i++)
        xmlFreeDoc(o.model_docs[i]);
    free(o.model_docs);
    free(o.functions);
    free(o.bond_ends);
    system_sync(d);
    return st;
}
