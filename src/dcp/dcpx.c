/* DCPX slave descriptions (DCP 1.0 dcpSlaveDescription.xsd): a writer for
 * what an rtcosim slave serves and a reader that turns a description into
 * the variable table the master's "dcp" component needs. Element and
 * attribute names are the schema's. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "rtcosim/dcp.h"
#include "util/read_file.h"
#include "util/text.h"
#include "util/xml_read.h"

struct rtcosim_dcpx {
    char *slave_name;
    char *host, *tcp_host;
    uint16_t port, tcp_port;
    bool nrt, srt, hrt;
    bool has_uuid;
    uint8_t uuid[16];
    uint32_t res_num, res_den; /* chosen CFG_time_res */
    rtcosim_variable *vars;
    uint32_t *max_sizes; /* per variable: a String's or Binary's maxSize, 0: none */
    size_t n_vars;
    rtcosim_component_desc desc;
    rtcosim_dcp_log_template *templates; /* Log/Templates */
    size_t n_templates;
    bool log_on_notification;            /* CapabilityFlags canProvideLogOnNotification */
    bool by_rtcosim;                     /* generationTool="rtcosim" */
};

/* Schema element names of the data types and their rtcosim types. */
static const struct { const char *name; rtcosim_type type; } type_names[] = {
    {"Int8", RTCOSIM_TYPE_INT8},     {"Int16", RTCOSIM_TYPE_INT16},   {"Int32", RTCOSIM_TYPE_INT32},
    {"Int64", RTCOSIM_TYPE_INT64},   {"Uint8", RTCOSIM_TYPE_UINT8},   {"Uint16", RTCOSIM_TYPE_UINT16},
    {"Uint32", RTCOSIM_TYPE_UINT32}, {"Uint64", RTCOSIM_TYPE_UINT64}, {"Float32", RTCOSIM_TYPE_FLOAT32},
    {"Float64", RTCOSIM_TYPE_FLOAT64}, {"String", RTCOSIM_TYPE_STRING},   {"Binary", RTCOSIM_TYPE_BINARY},
};

static const char *type_element(rtcosim_type t)
{
    if (t == RTCOSIM_TYPE_BOOLEAN)
        return "Uint8";
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
        if (type_names[i].type == t)
            return type_names[i].name;
    return NULL;
}

static bool named(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

static const xmlNode *child(const xmlNode *n, const char *name)
{
    for (const xmlNode *c = n ? n->children : NULL; c; c = c->next)
        if (named(c, name))
            return c;
    return NULL;
}

static char *attr(const xmlNode *n, const char *name)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
    if (!v)
        return NULL;
    char *s = strdup((const char *)v);
    xmlFree(v);
    return s;
}

static bool parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    if (!s || !*s || *s == '-')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno || v > max)
        return false;
    *out = v;
    return true;
}

void rtcosim_dcpx_free(rtcosim_dcpx *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n_vars; i++) {
        free((char *)d->vars[i].name);
        free((char *)d->vars[i].description);
        if (d->vars[i].has_start && d->vars[i].type == RTCOSIM_TYPE_STRING)
            free((char *)d->vars[i].start.s);
        if (d->vars[i].has_start && d->vars[i].type == RTCOSIM_TYPE_BINARY)
            free((uint8_t *)d->vars[i].start.bin.data);
    }
    free(d->vars);
    free(d->max_sizes);
    for (size_t i = 0; i < d->n_templates; i++)
        free((char *)d->templates[i].msg);
    free(d->templates);
    free(d->slave_name);
    free(d->host);
    free(d->tcp_host);
    free(d);
}

/* A Control element of dcpIPv4Type: host and port attributes, both optional. */
static rtcosim_status parse_control(const xmlNode *control, const char *file, char **host,
                                    uint16_t *port, rtcosim_error *err)
{
    if (!control)
        return RTCOSIM_OK;
    *host = attr(control, "host");
    char *text = attr(control, "port");
    uint64_t p = 0;
    if (text && !parse_u64(text, 65535, &p)) {
        rtcosim_status st = rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                              "%s: Control port '%s' is no port number", file, text);
        free(text);
        return st;
    }
    free(text);
    *port = (uint16_t)p;
    return RTCOSIM_OK;
}

/* An unsigned attribute with the schema's default when absent. */
static bool attr_u32(const xmlNode *n, const char *name, uint32_t fallback, uint32_t *out)
{
    char *text = attr(n, name);
    uint64_t v = fallback;
    bool ok = !text || parse_u64(text, UINT32_MAX, &v);
    free(text);
    *out = (uint32_t)v;
    return ok;
}

/* Keep num/den when it is a whole number of ns finer than the best so far. */
static void consider_resolution(rtcosim_dcpx *d, uint32_t num, uint32_t den, rtcosim_time_ns *best)
{
    rtcosim_time_ns tick;
    if (rtcosim_dcp_resolution_to_ns(num, den, &tick, NULL) == RTCOSIM_OK &&
        (*best == 0 || tick < *best)) {
        *best = tick;
        d->res_num = num;
        d->res_den = den;
    }
}

/* TimeRes (schema: Resolution numerator 1 / denominator 1000 by default, or
 * ResolutionRange numeratorFrom..numeratorTo / denominator): the finest
 * resolution that is a whole number of nanoseconds, so that rtcosim's
 * integer-ns steps map exactly onto the slave's steps. */
static rtcosim_status parse_time_res(rtcosim_dcpx *d, const xmlNode *res, const char *file,
                                     rtcosim_error *err)
{
    d->res_num = 1;
    d->res_den = 1000000000u;
    if (!res)
        return RTCOSIM_OK;
    rtcosim_time_ns best = 0;
    bool any = false;
    for (const xmlNode *r = res->children; r; r = r->next) {
        uint32_t num, den, from, to;
        if (named(r, "Resolution")) {
            any = true;
            if (!attr_u32(r, "numerator", 1, &num) || !attr_u32(r, "denominator", 1000, &den) ||
                num == 0 || den == 0)
                return rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                         "%s: TimeRes/Resolution numerator and denominator must be "
                                         "positive integers", file);
            consider_resolution(d, num, den, &best);
        } else if (named(r, "ResolutionRange")) {
            any = true;
            if (!attr_u32(r, "numeratorFrom", 0, &from) || !attr_u32(r, "numeratorTo", 0, &to) ||
                !attr_u32(r, "denominator", 0, &den) || from == 0 || to < from || den == 0)
                return rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                         "%s: TimeRes/ResolutionRange needs 0 < numeratorFrom <= "
                                         "numeratorTo and a positive denominator", file);
            /* n/den s is a whole number of ns when den / gcd(den, 1e9)
             * divides n: the smallest such n in range is the finest. */
            uint64_t a = den, b = 1000000000u;
            while (b) {
                uint64_t t = a % b;
                a = b;
                b = t;
            }
            uint64_t unit = den / a, n = (from + unit - 1) / unit * unit;
            if (n <= to)
                consider_resolution(d, (uint32_t)n, den, &best);
        }
    }
    if (any && best == 0)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                 "%s: TimeRes offers no resolution of a whole number of "
                                 "nanoseconds (rtcosim steps in integer ns)", file);
    if (!any)
        d->res_num = 1, d->res_den = 1000000000u;
    return RTCOSIM_OK;
}

static rtcosim_status parse_variable(rtcosim_dcpx *d, const xmlNode *v, const char *file,
                                     rtcosim_error *err)
{
    char *name = attr(v, "name"), *vr_text = attr(v, "valueReference");
    uint64_t vr;
    if (!name || !parse_u64(vr_text, UINT32_MAX, &vr)) {
        rtcosim_status st = rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                              "%s: Variable '%s' needs a name and a valueReference "
                                              "(unsigned, at most 4294967295), got '%s'",
                                              file, name ? name : "?", vr_text ? vr_text : "");
        free(name);
        free(vr_text);
        return st;
    }
    free(vr_text);
    rtcosim_causality causality;
    const xmlNode *kind;
    if ((kind = child(v, "Input")))
        causality = RTCOSIM_CAUSALITY_INPUT;
    else if ((kind = child(v, "Output")))
        causality = RTCOSIM_CAUSALITY_OUTPUT;
    else if ((kind = child(v, "Parameter")) || (kind = child(v, "StructuralParameter")))
        causality = RTCOSIM_CAUSALITY_PARAMETER;
    else {
        free(name); /* Local variables do not travel */
        return RTCOSIM_OK;
    }
    const xmlNode *typed = NULL;
    rtcosim_type type = RTCOSIM_TYPE_FLOAT64;
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0] && !typed; i++)
        if ((typed = child(kind, type_names[i].name)))
            type = type_names[i].type;
    if (!typed || child(kind, "Dimensions")) {
        free(name); /* arrays are not exchanged here */
        return RTCOSIM_OK;
    }
    for (size_t i = 0; i < d->n_vars; i++)
        if (d->vars[i].value_reference == vr || strcmp(d->vars[i].name, name) == 0) {
            rtcosim_status st = rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                                  "%s: Variable '%s' repeats a name or valueReference %" PRIu64,
                                                  file, name, vr);
            free(name);
            return st;
        }
    /* maxSize (String and Binary only; the schema has it nowhere else) */
    uint64_t max_size = 0;
    char *max_text = type == RTCOSIM_TYPE_STRING || type == RTCOSIM_TYPE_BINARY
                         ? attr(typed, "maxSize") : NULL;
    if (max_text && !(parse_u64(max_text, UINT32_MAX, &max_size) && max_size > 0)) {
        rtcosim_status st = rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                              "%s: Variable '%s': maxSize '%s' is not a positive "
                                              "32-bit number", file, name, max_text);
        free(max_text);
        free(name);
        return st;
    }
    free(max_text);
    rtcosim_variable *nv = realloc(d->vars, (d->n_vars + 1) * sizeof *nv);
    if (nv)
        d->vars = nv;
    uint32_t *nm = nv ? realloc(d->max_sizes, (d->n_vars + 1) * sizeof *nm) : NULL;
    if (!nm) {
        free(name);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", file);
    }
    d->max_sizes = nm;
    d->max_sizes[d->n_vars] = (uint32_t)max_size;
    rtcosim_variable *var = &d->vars[d->n_vars++];
    memset(var, 0, sizeof *var);
    var->name = name;
    var->description = attr(v, "description");
    var->value_reference = (uint32_t)vr;
    var->type = type;
    var->causality = causality;
    /* variability (dcpVariable): parameters fixed or tunable, inputs and
     * outputs discrete or continuous (the default). */
    char *variability = attr(v, "variability");
    if (causality == RTCOSIM_CAUSALITY_PARAMETER)
        var->variability = variability && strcmp(variability, "tunable") == 0
                               ? RTCOSIM_VARIABILITY_TUNABLE : RTCOSIM_VARIABILITY_FIXED;
    else
        var->variability = variability && strcmp(variability, "discrete") == 0
                               ? RTCOSIM_VARIABILITY_DISCRETE : RTCOSIM_VARIABILITY_CONTINUOUS;
    free(variability);
    var->derivative_of = -1;
    char *start = attr(typed, "start");
    if (start && type == RTCOSIM_TYPE_STRING) {
        var->has_start = true; /* xs:normalizedString, taken whole */
        var->start.s = start;
        return RTCOSIM_OK;
    }
    if (start && type == RTCOSIM_TYPE_BINARY) {
        /* xs:hexBinary: two hex digits a byte */
        uint8_t *bytes = malloc(strlen(start) / 2 + 1);
        size_t size = 0, bad = 0;
        if (!bytes || !rtcosim_binary_from_hex(start, bytes, &size, &bad)) {
            rtcosim_status st =
                bytes ? rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                          "%s: Variable '%s': Binary start '%s' is not hexBinary "
                                          "(two hex digits a byte; at character %zu)",
                                          file, name, start, bad)
                      : rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", file);
            free(bytes);
            free(start);
            return st;
        }
        free(start);
        var->has_start = true;
        var->start.bin = (rtcosim_binary){bytes, size};
        return RTCOSIM_OK;
    }
    if (start) {
        rtcosim_value value;
        /* start is an xs:list: a list of one is a scalar (DCPLib writes
         * "10 "), several values belong to a dimensioned variable. */
        char *save = NULL;
        char *first = strtok_r(start, " \t\r\n", &save);
        bool one = first && !strtok_r(NULL, " \t\r\n", &save);
        if (one && rtcosim_value_parse(type, first, &value, NULL) == RTCOSIM_OK) {
            var->has_start = true;
            var->start = value;
        }
        free(start);
    }
    return RTCOSIM_OK;
}

/* The Log element's templates (section 5.14) and whether the slave logs on
 * notification; a template without id, level or msg, a level above 4
 * (debug) or a repeated id is refused (the master would fill in the wrong
 * message). */
static rtcosim_status parse_log(rtcosim_dcpx *d, const xmlNode *root, const char *file,
                                rtcosim_error *err)
{
    char *tool = attr(root, "generationTool");
    d->by_rtcosim = tool && strcmp(tool, "rtcosim") == 0;
    free(tool);
    char *flag = attr(child(root, "CapabilityFlags"), "canProvideLogOnNotification");
    d->log_on_notification = flag && (strcmp(flag, "true") == 0 || strcmp(flag, "1") == 0);
    free(flag);
    const xmlNode *templates = child(child(root, "Log"), "Templates");
    for (const xmlNode *t = templates ? templates->children : NULL; t; t = t->next) {
        if (!named(t, "Template"))
            continue;
        uint32_t id = 0, category = 0, level = 0;
        bool ok = attr_u32(t, "id", UINT32_MAX, &id) && attr_u32(t, "category", 0, &category) &&
                  attr_u32(t, "level", UINT32_MAX, &level) && id <= 255 && category <= 255 &&
                  level <= 4;
        char *msg = attr(t, "msg");
        for (size_t i = 0; ok && i < d->n_templates; i++)
            ok = d->templates[i].id != id;
        if (!ok || !msg) {
            free(msg);
            return rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                     "%s: Log Template %u: needs a unique id (0-255), a level "
                                     "(0 fatal .. 4 debug) and msg", file, (unsigned)id);
        }
        rtcosim_dcp_log_template *grown =
            realloc(d->templates, (d->n_templates + 1) * sizeof *grown);
        if (!grown) {
            free(msg);
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", file);
        }
        d->templates = grown;
        d->templates[d->n_templates++] =
            (rtcosim_dcp_log_template){(uint8_t)id, (uint8_t)category, (uint8_t)level, msg};
    }
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_dcpx_parse(const char *xml, size_t size, const char *file,
                                  rtcosim_dcpx **out, rtcosim_error *err)
{
    *out = NULL;
    if (size > INT32_MAX)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: too large", file);
    xmlDoc *doc;
    rtcosim_status parsed = util_xml_parse(xml, size, file, "not well-formed XML", &doc, err);
    if (parsed != RTCOSIM_OK)
        return parsed;
    rtcosim_status st = RTCOSIM_OK;
    rtcosim_dcpx *d = calloc(1, sizeof *d);
    const xmlNode *root = xmlDocGetRootElement(doc);
    if (!d) {
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", file);
        goto done;
    }
    if (!root || !named(root, "dcpSlaveDescription")) {
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: root element is not dcpSlaveDescription", file);
        goto done;
    }
    char *major = attr(root, "dcpMajorVersion");
    bool v1 = major && strcmp(major, "1") == 0;
    free(major);
    if (!v1) {
        st = rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "%s: dcpMajorVersion is not 1", file);
        goto done;
    }
    d->slave_name = attr(root, "dcpSlaveName");
    if (!d->slave_name) {
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: dcpSlaveName missing", file);
        goto done;
    }
    const xmlNode *modes = child(root, "OpMode");
    d->hrt = child(modes, "HardRealTime") != NULL;
    d->srt = child(modes, "SoftRealTime") != NULL;
    d->nrt = child(modes, "NonRealTime") != NULL;
    char *uuid = attr(root, "uuid");
    d->has_uuid = rtcosim_dcp_uuid_parse(uuid, d->uuid);
    free(uuid);
    if ((st = parse_time_res(d, child(root, "TimeRes"), file, err)) != RTCOSIM_OK)
        goto done;
    const xmlNode *protocols = child(root, "TransportProtocols");
    if ((st = parse_control(child(child(protocols, "UDP_IPv4"), "Control"), file, &d->host,
                            &d->port, err)) != RTCOSIM_OK ||
        (st = parse_control(child(child(protocols, "TCP_IPv4"), "Control"), file, &d->tcp_host,
                            &d->tcp_port, err)) != RTCOSIM_OK)
        goto done;
    const xmlNode *vars = child(root, "Variables");
    if (!vars) {
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: Variables missing", file);
        goto done;
    }
    for (const xmlNode *v = vars->children; v && st == RTCOSIM_OK; v = v->next)
        if (named(v, "Variable"))
            st = parse_variable(d, v, file, err);
    if (st == RTCOSIM_OK)
        st = parse_log(d, root, file, err);
done:
    xmlFreeDoc(doc);
    if (st != RTCOSIM_OK) {
        rtcosim_dcpx_free(d);
        return st;
    }
    d->desc.model_name = d->slave_name;
    d->desc.variables = d->vars;
    d->desc.variable_count = d->n_vars;
    *out = d;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_dcpx_load(const char *path, rtcosim_dcpx **out, rtcosim_error *err)
{
    *out = NULL;
    char *buf = NULL;
    size_t size = 0;
    rtcosim_status st = util_read_xml_file(path, path, NULL, &buf, &size, err);
    if (st != RTCOSIM_OK)
        return st;
    st = rtcosim_dcpx_parse(buf, size, path, out, err);
    free(buf);
    return st;
}

const char *rtcosim_dcpx_slave_name(const rtcosim_dcpx *d) { return d->slave_name; }
const char *rtcosim_dcpx_host(const rtcosim_dcpx *d) { return d->host; }
uint16_t rtcosim_dcpx_port(const rtcosim_dcpx *d) { return d->port; }
const char *rtcosim_dcpx_tcp_host(const rtcosim_dcpx *d) { return d->tcp_host; }
uint16_t rtcosim_dcpx_tcp_port(const rtcosim_dcpx *d) { return d->tcp_port; }
const rtcosim_component_desc *rtcosim_dcpx_component_desc(const rtcosim_dcpx *d) { return &d->desc; }
const uint32_t *rtcosim_dcpx_max_sizes(const rtcosim_dcpx *d) { return d->max_sizes; }
const rtcosim_dcp_log_template *rtcosim_dcpx_log_templates(const rtcosim_dcpx *d, size_t *count)
{
    *count = d->n_templates;
    return d->templates;
}
bool rtcosim_dcpx_log_on_notification(const rtcosim_dcpx *d) { return d->log_on_notification; }
bool rtcosim_dcpx_by_rtcosim(const rtcosim_dcpx *d) { return d->by_rtcosim; }
bool rtcosim_dcpx_uuid(const rtcosim_dcpx *d, uint8_t uuid[16])
{
    if (d->has_uuid)
        memcpy(uuid, d->uuid, 16);
    return d->has_uuid;
}
void rtcosim_dcpx_time_resolution(const rtcosim_dcpx *d, uint32_t *numerator, uint32_t *denominator)
{
    *numerator = d->res_num;
    *denominator = d->res_den;
}
bool rtcosim_dcpx_supports(const rtcosim_dcpx *d, rtcosim_dcp_op_mode mode)
{
    return mode == RTCOSIM_DCP_OP_NRT ? d->nrt : mode == RTCOSIM_DCP_OP_SRT ? d->srt : d->hrt;
}

static void put_start(FILE *f, const rtcosim_variable *v)
{
    if (!v->has_start)
        return;
    fputs(" start=\"", f);
    switch (v->type) {
    case RTCOSIM_TYPE_FLOAT64: fprintf(f, "%.17g", v->start.f64); break;
    case RTCOSIM_TYPE_FLOAT32: fprintf(f, "%.9g", (double)v->start.f32); break;
    case RTCOSIM_TYPE_BOOLEAN: fputs(v->start.b ? "1" : "0", f); break;
    case RTCOSIM_TYPE_UINT8: case RTCOSIM_TYPE_UINT16: case RTCOSIM_TYPE_UINT32: case RTCOSIM_TYPE_UINT64:
        fprintf(f, "%" PRIu64, v->start.u64);
        break;
    case RTCOSIM_TYPE_STRING: util_xml_put_escaped(f, v->start.s ? v->start.s : ""); break;
    case RTCOSIM_TYPE_BINARY:
        for (size_t i = 0; v->start.bin.data && i < v->start.bin.size; i++)
            fprintf(f, "%02X", v->start.bin.data[i]);
        break;
    default: fprintf(f, "%" PRId64, v->start.i64); break;
    }
    fputc('"', f);
}

/* One transport element of dcpIPv4Type: the control port, which also takes
 * the input data (the only port offered). */
static void put_ipv4(FILE *f, const char *element, const char *host, uint16_t port)
{
    fprintf(f, "    <%s maxPduSize=\"%u\">\n      <Control host=\"", element, RTCOSIM_DCP_MAX_PDU);
    util_xml_put_escaped(f, host);
    fprintf(f, "\" port=\"%u\"/>\n      <DAT_input_output host=\"", (unsigned)port);
    util_xml_put_escaped(f, host);
    fprintf(f, "\">\n        <AvailablePort port=\"%u\"/>\n      </DAT_input_output>\n    </%s>\n",
            (unsigned)port, element);
}

rtcosim_status rtcosim_dcpx_write(const rtcosim_component_desc *desc, const char *slave_name,
                                  const char *host, uint16_t port, const char *tcp_host,
                                  uint16_t tcp_port, rtcosim_time_ns heartbeat_ns, bool srt,
                                  const char *path, rtcosim_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot write: %s", path, strerror(errno));
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<dcpSlaveDescription dcpMajorVersion=\"1\" "
          "dcpMinorVersion=\"0\" dcpSlaveName=\"", f);
    util_xml_put_escaped(f, slave_name);
    /* uuid: a fixed fingerprint of the name, which the slave checks in STC_register. */
    uint8_t uuid[16];
    char uuid_text[37];
    rtcosim_dcp_uuid_of_name(slave_name, uuid);
    rtcosim_dcp_uuid_format(uuid, uuid_text);
    fprintf(f, "\" uuid=\"%s\" generationTool=\"rtcosim\">\n", uuid_text);
    fputs(srt ? "  <OpMode>\n    <SoftRealTime/>\n" : "  <OpMode>\n", f);
    fputs("    <NonRealTime defaultSteps=\"1\" fixedSteps=\"false\" "
          "minSteps=\"1\" maxSteps=\"4294967295\"/>\n  </OpMode>\n", f);
    /* 1 ms first as a (non-fixed, recommended) Resolution: masters that take
     * the first Resolution (the DCPLib examples, in SRT with CFG_steps 1)
     * get a period a slave can keep; the range says any whole number of ns
     * works (rtcosim's master takes 1 ns). The schema's assert allows
     * Resolutions beside ranges only when none is fixed. */
    fputs("  <TimeRes>\n    <Resolution numerator=\"1\" denominator=\"1000\" fixed=\"false\" "
          "recommended=\"true\"/>\n    <ResolutionRange numeratorFrom=\"1\" numeratorTo=\"4294967295\" "
          "denominator=\"1000000000\"/>\n  </TimeRes>\n", f);
    /* Heartbeat interval in whole milliseconds. */
    fprintf(f, "  <Heartbeat>\n    <MaximumPeriodicInterval numerator=\"%" PRId64
               "\" denominator=\"1000\"/>\n  </Heartbeat>\n",
            heartbeat_ns / RTCOSIM_NS_PER_MS);
    /* Schema order: UDP_IPv4 before TCP_IPv4. */
    fputs("  <TransportProtocols>\n", f);
    if (host)
        put_ipv4(f, "UDP_IPv4", host, port);
    if (tcp_host)
        put_ipv4(f, "TCP_IPv4", tcp_host, tcp_port);
    fputs("  </TransportProtocols>\n", f);
    fputs("  <CapabilityFlags canAcceptConfigPdus=\"true\" canHandleReset=\"true\" "
          "canHandleVariableSteps=\"true\" canMonitorHeartbeat=\"true\" "
          "canProvideLogOnNotification=\"true\"/>\n  <Variables>\n", f);
    for (size_t i = 0; i < desc->variable_count; i++) {
        const rtcosim_variable *v = &desc->variables[i];
        const char *elem = type_element(v->type);
        const char *kind = v->causality == RTCOSIM_CAUSALITY_INPUT    ? "Input"
                           : v->causality == RTCOSIM_CAUSALITY_OUTPUT ? "Output"
                           : v->causality == RTCOSIM_CAUSALITY_PARAMETER ? "Parameter"
                                                                         : NULL;
        if (!elem || !kind)
            continue;
        fputs("    <Variable name=\"", f);
        util_xml_put_escaped(f, v->name);
        fprintf(f, "\" valueReference=\"%" PRIu32 "\" variability=\"%s\"", v->value_reference,
                v->causality == RTCOSIM_CAUSALITY_PARAMETER
                    ? (v->variability == RTCOSIM_VARIABILITY_TUNABLE ? "tunable" : "fixed")
                    : (v->variability == RTCOSIM_VARIABILITY_DISCRETE ? "discrete" : "continuous"));
        if (v->description) {
            fputs(" description=\"", f);
            util_xml_put_escaped(f, v->description);
            fputc('"', f);
        }
        fprintf(f, ">\n      <%s>\n        <%s", kind, elem);
        /* A String or Binary: at most what one data PDU carries alone (its
         * 5-byte header and the 4-byte length taken from 65507); without a
         * maxSize DCPLib reserves 4 GiB for each such variable. */
        if (v->type == RTCOSIM_TYPE_STRING || v->type == RTCOSIM_TYPE_BINARY)
            fprintf(f, " maxSize=\"%u\"", RTCOSIM_DCP_MAX_PDU - 9);
        /* Inputs and parameters require a start value in the schema. */
        rtcosim_variable with_start = *v;
        if (!v->has_start && v->causality != RTCOSIM_CAUSALITY_OUTPUT) {
            with_start.has_start = true;
            memset(&with_start.start, 0, sizeof with_start.start);
        }
        put_start(f, &with_start);
        fprintf(f, "/>\n      </%s>\n    </Variable>\n", kind);
    }
    /* Logging on notification (section 3.1.23): why the slave fails (its
     * component's error, a protocol error) as template 1 */
    fprintf(f, "  </Variables>\n  <Log>\n    <Categories>\n      <Category id=\"%u\" "
               "name=\"slave\"/>\n    </Categories>\n    <Templates>\n      <Template id=\"%u\" "
               "category=\"%u\" level=\"1\" msg=\"%%string\"/>\n    </Templates>\n  </Log>\n"
               "</dcpSlaveDescription>\n",
            RTCOSIM_DCP_SLAVE_LOG_CATEGORY, RTCOSIM_DCP_SLAVE_LOG_FAILURE,
            RTCOSIM_DCP_SLAVE_LOG_CATEGORY);
    if (fclose(f) != 0)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: write failed", path);
    return RTCOSIM_OK;
}
