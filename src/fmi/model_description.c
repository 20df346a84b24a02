/* Parser and validator for modelDescription.xml (FMI 2.0 chapter 2.2, FMI 3.0
 * chapter 2.4). Reads with libxml2 without network or DTD access, fills the
 * rtcosim variable table with the standard's defaults and reports the first
 * rule violation with the variable's name (later ones go to the log). */
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "fmi/model_description.h"
#include "rtcosim/log.h"

struct rtcosim_fmi_md_string {
    rtcosim_fmi_md_string *next;
    char text[];
};

/* Parsing context: the description being filled and the violation count. */
/* A declared type's unit, for lookups by type name. */
typedef struct type_unit {
    const char *name;
    const char *unit;
} type_unit;

typedef struct md_parser {
    rtcosim_fmi_md *md;
    const char *label;
    rtcosim_error *err;
    unsigned violations;
    bool out_of_memory;
    /* Lookup tables so that large descriptions parse in O(n log n). */
    type_unit *units;       /* TypeDefinitions with a unit, sorted by name */
    size_t unit_count;
    bool units_read;
    size_t *vr_order;       /* FMI 3: variable indices sorted by (vr, index) */
    int interface;          /* rtcosim_fmi_md_interface: the element required */
} md_parser;

/* Per-variable raw facts needed after the whole list is read. */
typedef struct var_extra {
    const char *derivative_text; /* FMI 2: 1-based index; FMI 3: value reference */
    const char *declared_type;
    long alias_of;               /* FMI 3 Alias: index of the variable it names, else -1 */
} var_extra;

static void violation(md_parser *p, rtcosim_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void violation(md_parser *p, rtcosim_status status, const char *fmt, ...)
{
    char text[RTCOSIM_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (p->violations++ == 0)
        rtcosim_error_set(p->err, status, "%s: %s", p->label, text);
    else
        rtcosim_log(RTCOSIM_LOG_WARNING, "fmi", "%s: %s", p->label, text);
}

static const char *keep_n(md_parser *p, const char *text, size_t len)
{
    rtcosim_fmi_md_string *s = malloc(sizeof *s + len + 1);
    if (!s) {
        p->out_of_memory = true;
        return NULL;
    }
    memcpy(s->text, text, len);
    s->text[len] = '\0';
    s->next = p->md->strings;
    p->md->strings = s;
    return s->text;
}

/* An attribute's value copied into the description's storage, or NULL. */
static const char *attr(md_parser *p, xmlNode *node, const char *name)
{
    xmlChar *v = xmlGetProp(node, (const xmlChar *)name);
    if (!v)
        return NULL;
    const char *kept = keep_n(p, (const char *)v, strlen((const char *)v));
    xmlFree(v);
    return kept;
}

static bool is_element(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

static xmlNode *child(xmlNode *parent, const char *name)
{
    for (xmlNode *n = parent->children; n; n = n->next)
        if (is_element(n, name))
            return n;
    return NULL;
}

/* ---- XML Schema value syntax (xs:double, xs:int, xs:boolean), strict and
 * decimal: the generic value parser also takes C's octal and hex forms. ---- */

static bool text_trimmed(const char *text, char *buf, size_t size)
{
    while (*text == ' ' || *text == '\t' || *text == '\n' || *text == '\r')
        text++;
    size_t len = strlen(text);
    while (len && (text[len - 1] == ' ' || text[len - 1] == '\t' || text[len - 1] == '\n' ||
                   text[len - 1] == '\r'))
        len--;
    if (len == 0 || len >= size)
        return false;
    memcpy(buf, text, len);
    buf[len] = '\0';
    return true;
}

static bool parse_double(const char *text, double *out)
{
    char buf[128];
    if (!text_trimmed(text, buf, sizeof buf))
        return false;
    char *end = NULL;
    errno = 0;
    double v = strtod(buf, &end);
    if (end == buf || *end != '\0')
        return false;
    /* Underflow to a subnormal or zero is fine; overflow is not a number we can hold. */
    if (errno == ERANGE && isinf(v))
        return false;
    *out = v;
    return true;
}

static bool parse_int(const char *text, int64_t lo, int64_t hi, int64_t *out)
{
    char buf[64];
    if (!text_trimmed(text, buf, sizeof buf))
        return false;
    char *end = NULL;
    errno = 0;
    long long v = strtoll(buf, &end, 10);
    if (end == buf || *end != '\0' || errno == ERANGE || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

static bool parse_uint(const char *text, uint64_t hi, uint64_t *out)
{
    char buf[64];
    if (!text_trimmed(text, buf, sizeof buf) || buf[0] == '-')
        return false;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(buf, &end, 10);
    if (end == buf || *end != '\0' || errno == ERANGE || v > hi)
        return false;
    *out = v;
    return true;
}

static bool parse_bool(const char *text, bool *out)
{
    char buf[16];
    if (!text_trimmed(text, buf, sizeof buf))
        return false;
    if (strcmp(buf, "true") == 0 || strcmp(buf, "1") == 0)
        *out = true;
    else if (strcmp(buf, "false") == 0 || strcmp(buf, "0") == 0)
        *out = false;
    else
        return false;
    return true;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* FMI 3.0 Binary start values are hex digit pairs (section 2.4.7.6). */
static bool parse_binary(md_parser *p, const char *text, rtcosim_binary *out)
{
    size_t len = strlen(text);
    if (len >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        text += 2;
        len -= 2;
    }
    if (len % 2 != 0)
        return false;
    char *bytes = (char *)keep_n(p, text, len); /* storage of at least len/2 bytes */
    if (!bytes)
        return true; /* out of memory is reported by the caller */
    for (size_t i = 0; i < len / 2; i++) {
        int hi = hex_digit(text[2 * i]), lo = hex_digit(text[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        bytes[i] = (char)(hi * 16 + lo);
    }
    out->data = (const uint8_t *)bytes;
    out->size = len / 2;
    return true;
}

/* Parse a start value of the given type; false when it is not valid for it. */
static bool parse_start(md_parser *p, rtcosim_type type, const char *text, rtcosim_value *out)
{
    switch (type) {
    case RTCOSIM_TYPE_FLOAT64: return parse_double(text, &out->f64);
    case RTCOSIM_TYPE_FLOAT32: {
        double v;
        if (!parse_double(text, &v) || (isfinite(v) && fabs(v) > FLT_MAX))
            return false;
        out->f32 = (float)v;
        return true;
    }
    case RTCOSIM_TYPE_INT8: return parse_int(text, INT8_MIN, INT8_MAX, &out->i64);
    case RTCOSIM_TYPE_INT16: return parse_int(text, INT16_MIN, INT16_MAX, &out->i64);
    case RTCOSIM_TYPE_INT32: return parse_int(text, INT32_MIN, INT32_MAX, &out->i64);
    case RTCOSIM_TYPE_INT64: return parse_int(text, INT64_MIN, INT64_MAX, &out->i64);
    case RTCOSIM_TYPE_UINT8: return parse_uint(text, UINT8_MAX, &out->u64);
    case RTCOSIM_TYPE_UINT16: return parse_uint(text, UINT16_MAX, &out->u64);
    case RTCOSIM_TYPE_UINT32: return parse_uint(text, UINT32_MAX, &out->u64);
    case RTCOSIM_TYPE_UINT64: return parse_uint(text, UINT64_MAX, &out->u64);
    case RTCOSIM_TYPE_BOOLEAN:
    case RTCOSIM_TYPE_CLOCK: return parse_bool(text, &out->b);
    case RTCOSIM_TYPE_STRING: out->s = text; return true;
    case RTCOSIM_TYPE_BINARY: return parse_binary(p, text, &out->bin);
    default: return false;
    }
}

/* ---- Enumerated attributes ---- */

static const char *const causality_words[] = {
    [RTCOSIM_CAUSALITY_PARAMETER] = "parameter",
    [RTCOSIM_CAUSALITY_CALCULATED_PARAMETER] = "calculatedParameter",
    [RTCOSIM_CAUSALITY_INPUT] = "input",
    [RTCOSIM_CAUSALITY_OUTPUT] = "output",
    [RTCOSIM_CAUSALITY_LOCAL] = "local",
    [RTCOSIM_CAUSALITY_INDEPENDENT] = "independent",
    [RTCOSIM_CAUSALITY_STRUCTURAL_PARAMETER] = "structuralParameter",
};
static const char *const variability_words[] = {
    [RTCOSIM_VARIABILITY_CONSTANT] = "constant", [RTCOSIM_VARIABILITY_FIXED] = "fixed",
    [RTCOSIM_VARIABILITY_TUNABLE] = "tunable",   [RTCOSIM_VARIABILITY_DISCRETE] = "discrete",
    [RTCOSIM_VARIABILITY_CONTINUOUS] = "continuous",
};
static const char *const initial_words[] = {
    [RTCOSIM_INITIAL_NONE] = "",
    [RTCOSIM_INITIAL_EXACT] = "exact",
    [RTCOSIM_INITIAL_APPROX] = "approx",
    [RTCOSIM_INITIAL_CALCULATED] = "calculated",
};

static int word_index(const char *text, const char *const *words, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (words[i][0] && strcmp(text, words[i]) == 0)
            return (int)i;
    return -1;
}
#define WORD_INDEX(text, words) word_index(text, words, sizeof words / sizeof words[0])

/* Which `initial` values a causality/variability pair allows (FMI 2.0 section
 * 2.2.7 and FMI 3.0 section 2.4.7.4 tables): cases A-E, or 0 for a pair the
 * standard forbids. 'I' marks the independent variable (no initial, no start). */
static char initial_case(rtcosim_causality c, rtcosim_variability v)
{
    switch (v) {
    case RTCOSIM_VARIABILITY_CONSTANT:
        return (c == RTCOSIM_CAUSALITY_OUTPUT || c == RTCOSIM_CAUSALITY_LOCAL) ? 'A' : 0;
    case RTCOSIM_VARIABILITY_FIXED:
    case RTCOSIM_VARIABILITY_TUNABLE:
        if (c == RTCOSIM_CAUSALITY_PARAMETER || c == RTCOSIM_CAUSALITY_STRUCTURAL_PARAMETER)
            return 'B';
        if (c == RTCOSIM_CAUSALITY_CALCULATED_PARAMETER || c == RTCOSIM_CAUSALITY_LOCAL)
            return 'C';
        return 0;
    case RTCOSIM_VARIABILITY_DISCRETE:
    case RTCOSIM_VARIABILITY_CONTINUOUS:
        if (c == RTCOSIM_CAUSALITY_INPUT)
            return 'D';
        if (c == RTCOSIM_CAUSALITY_OUTPUT || c == RTCOSIM_CAUSALITY_LOCAL)
            return 'E';
        if (c == RTCOSIM_CAUSALITY_INDEPENDENT)
            return v == RTCOSIM_VARIABILITY_CONTINUOUS ? 'I' : 0;
        return 0;
    }
    return 0;
}

static bool initial_allowed(char rule, rtcosim_initial i)
{
    switch (rule) {
    case 'A': return i == RTCOSIM_INITIAL_EXACT;
    case 'B': return i == RTCOSIM_INITIAL_EXACT || i == RTCOSIM_INITIAL_APPROX;
    case 'C': return i == RTCOSIM_INITIAL_APPROX || i == RTCOSIM_INITIAL_CALCULATED;
    case 'E': return i != RTCOSIM_INITIAL_NONE;
    default: return false; /* D, I: no initial attribute */
    }
}

static rtcosim_initial initial_default(char rule)
{
    switch (rule) {
    case 'A':
    case 'B': return RTCOSIM_INITIAL_EXACT;
    case 'C':
    case 'E': return RTCOSIM_INITIAL_CALCULATED;
    default: return RTCOSIM_INITIAL_NONE;
    }
}

/* ---- Types ---- */

typedef struct type_word {
    const char *element;
    rtcosim_type type;
} type_word;

static const type_word fmi2_types[] = {
    {"Real", RTCOSIM_TYPE_FLOAT64},    {"Integer", RTCOSIM_TYPE_INT32},
    {"Boolean", RTCOSIM_TYPE_BOOLEAN}, {"String", RTCOSIM_TYPE_STRING},
    {"Enumeration", RTCOSIM_TYPE_INT32},
};
static const type_word fmi3_types[] = {
    {"Float64", RTCOSIM_TYPE_FLOAT64}, {"Float32", RTCOSIM_TYPE_FLOAT32},
    {"Int8", RTCOSIM_TYPE_INT8},       {"UInt8", RTCOSIM_TYPE_UINT8},
    {"Int16", RTCOSIM_TYPE_INT16},     {"UInt16", RTCOSIM_TYPE_UINT16},
    {"Int32", RTCOSIM_TYPE_INT32},     {"UInt32", RTCOSIM_TYPE_UINT32},
    {"Int64", RTCOSIM_TYPE_INT64},     {"UInt64", RTCOSIM_TYPE_UINT64},
    {"Boolean", RTCOSIM_TYPE_BOOLEAN}, {"String", RTCOSIM_TYPE_STRING},
    {"Binary", RTCOSIM_TYPE_BINARY},   {"Clock", RTCOSIM_TYPE_CLOCK},
    {"Enumeration", RTCOSIM_TYPE_INT64},
};

static const type_word *find_type(const type_word *table, size_t count, const char *element)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(table[i].element, element) == 0)
            return &table[i];
    return NULL;
}

static bool is_float(rtcosim_type t)
{
    return t == RTCOSIM_TYPE_FLOAT64 || t == RTCOSIM_TYPE_FLOAT32;
}

static int by_type_name(const void *a, const void *b)
{
    return strcmp(((const type_unit *)a)->name, ((const type_unit *)b)->name);
}

/* Collect TypeDefinitions units once (FMI 2: SimpleType/Real@unit, FMI 3:
 * Float64Type@unit and Float32Type@unit). */
static void read_units(md_parser *p, xmlNode *root)
{
    p->units_read = true;
    xmlNode *defs = child(root, "TypeDefinitions");
    if (!defs)
        return;
    size_t count = 0;
    for (xmlNode *t = defs->children; t; t = t->next)
        count += t->type == XML_ELEMENT_NODE;
    p->units = calloc(count ? count : 1, sizeof *p->units);
    if (!p->units) {
        p->out_of_memory = true;
        return;
    }
    for (xmlNode *t = defs->children; t; t = t->next) {
        if (t->type != XML_ELEMENT_NODE)
            continue;
        xmlNode *holder = p->md->version == RTCOSIM_FMI_2 ? child(t, "Real") : t;
        const char *name = attr(p, t, "name");
        const char *unit = holder ? attr(p, holder, "unit") : NULL;
        if (name && unit)
            p->units[p->unit_count++] = (type_unit){name, unit};
    }
    qsort(p->units, p->unit_count, sizeof *p->units, by_type_name);
}

/* Unit of a declared type, or NULL. */
static const char *declared_unit(md_parser *p, xmlNode *root, const char *declared_type)
{
    if (!declared_type)
        return NULL;
    if (!p->units_read)
        read_units(p, root);
    type_unit key = {declared_type, NULL};
    const type_unit *hit = p->unit_count ? bsearch(&key, p->units, p->unit_count,
                                                   sizeof *p->units, by_type_name)
                                         : NULL;
    return hit ? hit->unit : NULL;
}

/* ---- Header, capabilities, default experiment ---- */

static long find_vr(const md_parser *p, uint64_t vr);

static bool flag(md_parser *p, xmlNode *node, const char *name, bool *out)
{
    xmlChar *v = xmlGetProp(node, (const xmlChar *)name);
    *out = false;
    if (!v)
        return true;
    bool ok = parse_bool((const char *)v, out);
    if (!ok)
        violation(p, RTCOSIM_EFORMAT, "%s attribute %s='%s' is not a boolean",
                  (const char *)node->name, name, (const char *)v);
    xmlFree(v);
    return ok;
}

static void read_co_simulation(md_parser *p, xmlNode *cs)
{
    rtcosim_fmi_md *md = p->md;
    md->model_identifier = attr(p, cs, "modelIdentifier");
    if (!md->model_identifier || !*md->model_identifier)
        violation(p, RTCOSIM_EFORMAT, "CoSimulation element lacks modelIdentifier");
    else if (strchr(md->model_identifier, '/') || strcmp(md->model_identifier, "..") == 0 ||
             strcmp(md->model_identifier, ".") == 0)
        violation(p, RTCOSIM_EFORMAT, "modelIdentifier '%s' is not a plain file name",
                  md->model_identifier);
    flag(p, cs, "canHandleVariableCommunicationStepSize", &md->can_handle_variable_step);
    if (md->version == RTCOSIM_FMI_2) {
        /* FMI 2.0 spells "FMUstate", FMI 3.0 "FMUState". */
        flag(p, cs, "canGetAndSetFMUstate", &md->can_get_set_state);
        flag(p, cs, "canSerializeFMUstate", &md->can_serialize_state);
        flag(p, cs, "providesDirectionalDerivative", &md->provides_directional_derivatives);
        flag(p, cs, "canInterpolateInputs", &md->can_interpolate_inputs);
    } else {
        flag(p, cs, "canGetAndSetFMUState", &md->can_get_set_state);
        flag(p, cs, "canSerializeFMUState", &md->can_serialize_state);
        flag(p, cs, "providesDirectionalDerivatives", &md->provides_directional_derivatives);
        flag(p, cs, "providesAdjointDerivatives", &md->provides_adjoint_derivatives);
        flag(p, cs, "canReturnEarlyAfterIntermediateUpdate", &md->can_return_early);
        flag(p, cs, "hasEventMode", &md->has_event_mode);
        flag(p, cs, "providesIntermediateUpdate", &md->provides_intermediate_update);
    }
    xmlChar *order = xmlGetProp(cs, (const xmlChar *)"maxOutputDerivativeOrder");
    if (order) {
        int64_t v;
        if (parse_int((const char *)order, 0, INT_MAX, &v))
            md->max_output_derivative_order = (int)v;
        else
            violation(p, RTCOSIM_EFORMAT, "maxOutputDerivativeOrder='%s' is not a count",
                      (const char *)order);
        xmlFree(order);
    }
}

/* FMI 2.0 section 3.3 / FMI 3.0 section 3.3: the ModelExchange element. Its
 * modelIdentifier may differ from the co-simulation one (another binary). */
static void read_model_exchange(md_parser *p, xmlNode *root, xmlNode *me)
{
    rtcosim_fmi_md *md = p->md;
    md->me_model_identifier = attr(p, me, "modelIdentifier");
    if (!md->me_model_identifier || !*md->me_model_identifier)
        violation(p, RTCOSIM_EFORMAT, "ModelExchange element lacks modelIdentifier");
    else if (strchr(md->me_model_identifier, '/') || strcmp(md->me_model_identifier, "..") == 0 ||
             strcmp(md->me_model_identifier, ".") == 0)
        violation(p, RTCOSIM_EFORMAT, "modelIdentifier '%s' is not a plain file name",
                  md->me_model_identifier);
    bool not_needed = false, needed = false;
    if (md->version == RTCOSIM_FMI_2) {
        flag(p, me, "canGetAndSetFMUstate", &md->me_can_get_set_state);
        flag(p, me, "canSerializeFMUstate", &md->me_can_serialize_state);
        flag(p, me, "completedIntegratorStepNotNeeded", &not_needed);
        md->me_needs_completed_integrator_step = !not_needed;
        /* numberOfEventIndicators is an fmiModelDescription attribute in 2.0. */
        xmlChar *n = xmlGetProp(root, (const xmlChar *)"numberOfEventIndicators");
        if (n) {
            int64_t v;
            if (parse_int((const char *)n, 0, INT32_MAX, &v))
                md->event_indicator_count = (size_t)v;
            else
                violation(p, RTCOSIM_EFORMAT, "numberOfEventIndicators='%s' is not a count",
                          (const char *)n);
            xmlFree(n);
        }
    } else {
        flag(p, me, "canGetAndSetFMUState", &md->me_can_get_set_state);
        flag(p, me, "canSerializeFMUState", &md->me_can_serialize_state);
        flag(p, me, "needsCompletedIntegratorStep", &needed);
        md->me_needs_completed_integrator_step = needed;
    }
}

/* The continuous states (one per listed derivative, in the listed order) and,
 * for FMI 3.0, the event indicators (one per EventIndicator element). Each
 * listed derivative must be a float variable with a `derivative` attribute. */
static void read_continuous_structure(md_parser *p, xmlNode *root)
{
    rtcosim_fmi_md *md = p->md;
    xmlNode *ms = child(root, "ModelStructure");
    if (!ms)
        return;
    xmlNode *list = md->version == RTCOSIM_FMI_2 ? child(ms, "Derivatives") : ms;
    const char *item = md->version == RTCOSIM_FMI_2 ? "Unknown" : "ContinuousStateDerivative";
    for (xmlNode *n = list ? list->children : NULL; n; n = n->next) {
        if (!is_element(n, item))
            continue;
        xmlChar *text = xmlGetProp(n, (const xmlChar *)(md->version == RTCOSIM_FMI_2
                                                            ? "index"
                                                            : "valueReference"));
        long index = -1;
        if (md->version == RTCOSIM_FMI_2) {
            int64_t k;
            if (text && parse_int((const char *)text, 1, (int64_t)md->variable_count, &k))
                index = (long)(k - 1);
        } else {
            uint64_t vr;
            if (text && parse_uint((const char *)text, UINT32_MAX, &vr))
                index = find_vr(p, vr);
        }
        if (index < 0 || md->variables[index].derivative_of < 0)
            violation(p, RTCOSIM_EFORMAT,
                      "ModelStructure derivative '%s' refers to no variable with a derivative attribute",
                      text ? (const char *)text : "(missing)");
        else
            md->state_count++;
        xmlFree(text);
    }
    if (md->version == RTCOSIM_FMI_3)
        for (xmlNode *n = ms->children; n; n = n->next)
            md->event_indicator_count += is_element(n, "EventIndicator");
}

static void experiment_value(md_parser *p, xmlNode *de, const char *name, bool *has, double *out)
{
    xmlChar *v = xmlGetProp(de, (const xmlChar *)name);
    if (!v)
        return;
    if (parse_double((const char *)v, out) && isfinite(*out))
        *has = true;
    else
        violation(p, RTCOSIM_EFORMAT, "DefaultExperiment %s='%s' is not a number", name,
                  (const char *)v);
    xmlFree(v);
}

static void read_default_experiment(md_parser *p, xmlNode *root)
{
    xmlNode *de = child(root, "DefaultExperiment");
    if (!de)
        return;
    rtcosim_fmi_md *md = p->md;
    experiment_value(p, de, "startTime", &md->has_start, &md->start);
    experiment_value(p, de, "stopTime", &md->has_stop, &md->stop);
    experiment_value(p, de, "tolerance", &md->has_tolerance, &md->tolerance);
    experiment_value(p, de, "stepSize", &md->has_step, &md->step);
    if (md->has_step && md->step <= 0) {
        violation(p, RTCOSIM_EFORMAT, "DefaultExperiment stepSize=%g is not positive", md->step);
        md->has_step = false;
    }
}

/* ---- Variables ---- */

/* The element holding type facts: FMI 2 ScalarVariable's type child; the
 * variable element itself in FMI 3. NULL when FMI 2 lacks it. */
static xmlNode *fmi2_type_element(xmlNode *sv)
{
    for (xmlNode *n = sv->children; n; n = n->next)
        if (n->type == XML_ELEMENT_NODE &&
            find_type(fmi2_types, sizeof fmi2_types / sizeof fmi2_types[0],
                      (const char *)n->name))
            return n;
    return NULL;
}

static void read_variable(md_parser *p, xmlNode *root, xmlNode *node, size_t index,
                          var_extra *extra)
{
    rtcosim_fmi_md *md = p->md;
    rtcosim_variable *v = &md->variables[index];
    v->derivative_of = -1;
    v->name = attr(p, node, "name");
    if (!v->name || !*v->name) {
        violation(p, RTCOSIM_EFORMAT, "variable #%zu has no name", index + 1);
        v->name = keep_n(p, "?", 1);
        return;
    }
    const char *name = v->name;
    v->description = attr(p, node, "description");

    const char *vr_text = attr(p, node, "valueReference");
    uint64_t vr = 0;
    if (!vr_text || !parse_uint(vr_text, UINT32_MAX, &vr))
        violation(p, RTCOSIM_EFORMAT, "variable '%s': valueReference '%s' is not a 32-bit unsigned number",
                  name, vr_text ? vr_text : "(missing)");
    v->value_reference = (uint32_t)vr;

    xmlNode *typed = node;
    if (md->version == RTCOSIM_FMI_2) {
        typed = fmi2_type_element(node);
        if (!typed) {
            violation(p, RTCOSIM_EFORMAT, "variable '%s': no Real, Integer, Boolean, String or Enumeration element",
                      name);
            return;
        }
        v->type = find_type(fmi2_types, sizeof fmi2_types / sizeof fmi2_types[0],
                            (const char *)typed->name)->type;
    } else {
        const type_word *t = find_type(fmi3_types, sizeof fmi3_types / sizeof fmi3_types[0],
                                       (const char *)node->name);
        v->type = t->type; /* the caller only passes known elements */
        if (child(node, "Dimension")) {
            violation(p, RTCOSIM_EUNSUPPORTED,
                      "variable '%s': array variables (Dimension) are not supported", name);
            return;
        }
    }

    const char *causality = attr(p, node, "causality");
    const char *variability = attr(p, node, "variability");
    const char *initial = attr(p, node, "initial");
    int ci = causality ? WORD_INDEX(causality, causality_words) : RTCOSIM_CAUSALITY_LOCAL;
    if (ci < 0 || (md->version == RTCOSIM_FMI_2 && ci == RTCOSIM_CAUSALITY_STRUCTURAL_PARAMETER)) {
        violation(p, RTCOSIM_EFORMAT, "variable '%s': unknown causality '%s'", name, causality);
        return;
    }
    v->causality = (rtcosim_causality)ci;
    /* Default variability: continuous for Real/Float, discrete otherwise (FMI 3.0
     * section 2.4.7.4; FMI 2.0 only allows continuous for Real). */
    int vi = variability ? WORD_INDEX(variability, variability_words)
                         : (is_float(v->type) ? RTCOSIM_VARIABILITY_CONTINUOUS
                                              : RTCOSIM_VARIABILITY_DISCRETE);
    if (vi < 0) {
        violation(p, RTCOSIM_EFORMAT, "variable '%s': unknown variability '%s'", name, variability);
        return;
    }
    v->variability = (rtcosim_variability)vi;
    if (v->variability == RTCOSIM_VARIABILITY_CONTINUOUS && !is_float(v->type)) {
        violation(p, RTCOSIM_EFORMAT, "variable '%s': variability 'continuous' needs a %s variable",
                  name, md->version == RTCOSIM_FMI_2 ? "Real" : "Float32/Float64");
        return;
    }
    char rule = initial_case(v->causality, v->variability);
    if (!rule) {
        violation(p, RTCOSIM_EFORMAT, "variable '%s': causality '%s' with variability '%s' is not allowed",
                  name, causality_words[v->causality], variability_words[v->variability]);
        return;
    }
    if (initial) {
        int ii = WORD_INDEX(initial, initial_words);
        if (ii < 0) {
            violation(p, RTCOSIM_EFORMAT, "variable '%s': unknown initial '%s'", name, initial);
            return;
        }
        if (!initial_allowed(rule, (rtcosim_initial)ii)) {
            violation(p, RTCOSIM_EFORMAT,
                      "variable '%s': initial '%s' is not allowed with causality '%s' and variability '%s'",
                      name, initial, causality_words[v->causality],
                      variability_words[v->variability]);
            return;
        }
        v->initial = (rtcosim_initial)ii;
    } else {
        v->initial = initial_default(rule);
    }

    /* Start value: attribute, or FMI 3.0 Start children for String/Binary. */
    const char *start = attr(p, typed, "start");
    if (!start && md->version == RTCOSIM_FMI_3) {
        xmlNode *s = child(node, "Start");
        if (s)
            start = attr(p, s, "value");
    }
    bool is_clock = v->type == RTCOSIM_TYPE_CLOCK;
    bool start_required = v->initial == RTCOSIM_INITIAL_EXACT ||
                          v->initial == RTCOSIM_INITIAL_APPROX ||
                          v->causality == RTCOSIM_CAUSALITY_INPUT;
    bool start_forbidden = v->initial == RTCOSIM_INITIAL_CALCULATED ||
                           v->causality == RTCOSIM_CAUSALITY_INDEPENDENT;
    if (start && start_forbidden) {
        violation(p, RTCOSIM_EFORMAT, "variable '%s': a start value is not allowed with %s", name,
                  v->causality == RTCOSIM_CAUSALITY_INDEPENDENT ? "causality 'independent'"
                                                                : "initial 'calculated'");
        return;
    }
    if (!start && start_required && !is_clock) {
        if (v->causality == RTCOSIM_CAUSALITY_INPUT)
            violation(p, RTCOSIM_EFORMAT, "variable '%s': input needs a start value", name);
        else
            violation(p, RTCOSIM_EFORMAT, "variable '%s': initial '%s' needs a start value", name,
                      initial_words[v->initial]);
        return;
    }
    if (start && !is_clock) {
        if (!parse_start(p, v->type, start, &v->start)) {
            violation(p, RTCOSIM_EFORMAT, "variable '%s': start value '%s' is not a valid %s value",
                      name, start, rtcosim_type_name(v->type));
            return;
        }
        v->has_start = true;
    }

    v->unit = attr(p, typed, "unit");
    extra->declared_type = attr(p, typed, "declaredType");
    if (!v->unit && extra->declared_type && is_float(v->type))
        v->unit = declared_unit(p, root, extra->declared_type);
    if (v->type == RTCOSIM_TYPE_INT32 && md->version == RTCOSIM_FMI_2 &&
        strcmp((const char *)typed->name, "Enumeration") == 0 && !extra->declared_type)
        violation(p, RTCOSIM_EFORMAT, "variable '%s': Enumeration without declaredType", name);
    if (is_float(v->type))
        extra->derivative_text = attr(p, typed, "derivative");
}

static int by_vr(const void *a, const void *b, void *table);

/* FMI 3: the first variable (a base, not an alias) with this value
 * reference, or -1; binary search in the (vr, index) order. */
static long find_vr(const md_parser *p, uint64_t vr)
{
    const rtcosim_fmi_md *md = p->md;
    size_t lo = 0, hi = p->vr_order ? md->variable_count : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (md->variables[p->vr_order[mid]].value_reference < vr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < (p->vr_order ? md->variable_count : 0) &&
        md->variables[p->vr_order[lo]].value_reference == vr)
        return (long)p->vr_order[lo];
    return -1;
}

/* Resolve `derivative` attributes: FMI 2 gives the 1-based index of the state
 * in ModelVariables, FMI 3 its value reference. */
static void resolve_derivatives(md_parser *p, const var_extra *extra)
{
    rtcosim_fmi_md *md = p->md;
    for (size_t i = 0; i < md->variable_count; i++) {
        const char *text = extra[i].derivative_text;
        if (!text)
            continue;
        rtcosim_variable *v = &md->variables[i];
        long target = -1;
        if (md->version == RTCOSIM_FMI_2) {
            int64_t k;
            if (parse_int(text, 1, (int64_t)md->variable_count, &k))
                target = (long)(k - 1);
        } else {
            uint64_t vr;
            if (parse_uint(text, UINT32_MAX, &vr))
                target = find_vr(p, vr);
        }
        if (target < 0 || !is_float(md->variables[target].type) || (size_t)target == i) {
            violation(p, RTCOSIM_EFORMAT, "variable '%s': derivative '%s' does not refer to a %s variable",
                      v->name, text, md->version == RTCOSIM_FMI_2 ? "Real" : "float");
            continue;
        }
        v->derivative_of = (int32_t)target;
    }
}

/* Sort keys over an index array; qsort_r keeps concurrent loads independent. */
static int by_name(const void *a, const void *b, void *table)
{
    const rtcosim_fmi_md *md = table;
    return strcmp(md->variables[*(const size_t *)a].name, md->variables[*(const size_t *)b].name);
}

/* FMI 2.0 value references are unique per base type (Integer and Enumeration
 * share the fmi2GetInteger space); FMI 3.0 ones across all variables. */
static int vr_space(const rtcosim_fmi_md *md, const rtcosim_variable *v)
{
    return md->version == RTCOSIM_FMI_2 ? (int)v->type : 0;
}

static int by_vr(const void *a, const void *b, void *table)
{
    const rtcosim_fmi_md *md = table;
    const rtcosim_variable *x = &md->variables[*(const size_t *)a];
    const rtcosim_variable *y = &md->variables[*(const size_t *)b];
    if (vr_space(md, x) != vr_space(md, y))
        return vr_space(md, x) < vr_space(md, y) ? -1 : 1;
    if (x->value_reference != y->value_reference)
        return x->value_reference < y->value_reference ? -1 : 1;
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static bool same_start(const rtcosim_variable *a, const rtcosim_variable *b)
{
    if (a->type == RTCOSIM_TYPE_STRING)
        return strcmp(a->start.s, b->start.s) == 0;
    if (a->type == RTCOSIM_TYPE_FLOAT64)
        return a->start.f64 == b->start.f64;
    return memcmp(&a->start, &b->start, rtcosim_type_size(a->type)) == 0;
}

/* Unique names; unique value references. FMI 2.0 allows aliases (several
 * variables sharing one value reference of one type, section 2.2.7), but an
 * alias set holds one value, so two different start values contradict it. */
static void check_uniqueness(md_parser *p, const var_extra *extra)
{
    rtcosim_fmi_md *md = p->md;
    size_t n = md->variable_count;
    if (n < 2)
        return;
    size_t *order = malloc(n * sizeof *order);
    if (!order) {
        p->out_of_memory = true;
        return;
    }
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    qsort_r(order, n, sizeof *order, by_name, md);
    for (size_t i = 1; i < n; i++)
        if (strcmp(md->variables[order[i - 1]].name, md->variables[order[i]].name) == 0)
            violation(p, RTCOSIM_EFORMAT, "variable '%s': name is not unique",
                      md->variables[order[i]].name);
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    qsort_r(order, n, sizeof *order, by_vr, md);
    for (size_t i = 1; i < n; i++) {
        const rtcosim_variable *a = &md->variables[order[i - 1]], *b = &md->variables[order[i]];
        if (vr_space(md, a) != vr_space(md, b) || a->value_reference != b->value_reference)
            continue;
        size_t ia = order[i - 1], ib = order[i];
        long root_a = extra[ia].alias_of >= 0 ? extra[ia].alias_of : (long)ia;
        long root_b = extra[ib].alias_of >= 0 ? extra[ib].alias_of : (long)ib;
        if (md->version == RTCOSIM_FMI_3 && root_a != root_b)
            violation(p, RTCOSIM_EFORMAT, "variable '%s': valueReference %" PRIu32 " is already used by '%s'",
                      b->name, b->value_reference, a->name);
        else if (a->has_start && b->has_start && !same_start(a, b))
            violation(p, RTCOSIM_EFORMAT,
                      "variable '%s': alias of '%s' (valueReference %" PRIu32 ") with a different start value",
                      b->name, a->name, b->value_reference);
    }
    free(order);
}

/* The next white-space separated token at *c (its length in *len), moving *c
 * past it; NULL at the end. */
static const char *next_token(const char **c, size_t *len)
{
    const char *t = *c + strspn(*c, " \t\r\n");
    *len = strcspn(t, " \t\r\n");
    *c = t + *len;
    return *len ? t : NULL;
}

/* The `dependencies` attribute of the k-th listed output (of `count`):
 * FMI 2.0 section 2.2.8, 1-based ScalarVariable indices; FMI 3.0 section
 * 2.4.8, value references; separated by white space. Absent: the output
 * depends on all knowns (recorded as not declared); present and empty: on
 * none. Kept as indices into the variable table, so that an importer can
 * order its steps without assuming direct feedthrough everywhere. */
static void read_output_dependencies(md_parser *p, xmlNode *item, size_t k, size_t count)
{
    rtcosim_fmi_md *md = p->md;
    if (!md->output_dependency_start) {
        md->output_dependencies_declared = calloc(count ? count : 1, sizeof(bool));
        md->output_dependency_start = calloc(count + 1, sizeof(size_t));
        if (!md->output_dependencies_declared || !md->output_dependency_start) {
            p->out_of_memory = true;
            return;
        }
    }
    size_t first = md->output_dependency_start[k];
    md->output_dependency_start[k + 1] = first;
    xmlChar *text = xmlGetProp(item, (const xmlChar *)"dependencies");
    if (!text)
        return;
    md->output_dependencies_declared[k] = true;
    const char *s = (const char *)text, *c, *token;
    size_t tokens = 0, len;
    for (c = s; (token = next_token(&c, &len)) != NULL;)
        tokens++;
    size_t *grown = tokens ? realloc(md->output_dependencies, (first + tokens) * sizeof(size_t))
                           : md->output_dependencies;
    if (tokens && !grown) {
        p->out_of_memory = true;
        xmlFree(text);
        return;
    }
    md->output_dependencies = grown;
    const char *output = md->variables[md->output_indices[k]].name;
    size_t n = first;
    for (c = s; (token = next_token(&c, &len)) != NULL;) {
        char buf[32];
        uint64_t value = 0;
        long index = -1;
        if (len < sizeof buf) {
            memcpy(buf, token, len);
            buf[len] = '\0';
            if (md->version == RTCOSIM_FMI_2 && parse_uint(buf, md->variable_count, &value) &&
                value >= 1)
                index = (long)(value - 1);
            else if (md->version == RTCOSIM_FMI_3 && parse_uint(buf, UINT32_MAX, &value))
                index = find_vr(p, value);
        }
        if (index < 0)
            violation(p, RTCOSIM_EFORMAT,
                      "ModelStructure output '%s': dependencies entry '%.*s' refers to no variable",
                      output, (int)(len < 64 ? len : 64), token);
        else
            md->output_dependencies[n++] = (size_t)index;
    }
    md->output_dependency_start[k + 1] = n;
    xmlFree(text);
}

/* ModelStructure outputs: FMI 2 Outputs/Unknown@index (1-based), FMI 3
 * Output@valueReference. Each must name an output variable. */
static void read_outputs(md_parser *p, xmlNode *root)
{
    rtcosim_fmi_md *md = p->md;
    xmlNode *ms = child(root, "ModelStructure");
    if (!ms)
        return;
    xmlNode *list = md->version == RTCOSIM_FMI_2 ? child(ms, "Outputs") : ms;
    if (!list)
        return;
    const char *item = md->version == RTCOSIM_FMI_2 ? "Unknown" : "Output";
    const char *key = md->version == RTCOSIM_FMI_2 ? "index" : "valueReference";
    size_t count = 0;
    for (xmlNode *n = list->children; n; n = n->next)
        count += is_element(n, item);
    md->output_indices = calloc(count ? count : 1, sizeof *md->output_indices);
    if (!md->output_indices) {
        p->out_of_memory = true;
        return;
    }
    for (xmlNode *n = list->children; n; n = n->next) {
        if (!is_element(n, item))
            continue;
        xmlChar *text = xmlGetProp(n, (const xmlChar *)key);
        const char *t = text ? (const char *)text : "(missing)";
        long index = -1;
        if (md->version == RTCOSIM_FMI_2) {
            int64_t k;
            if (text && parse_int(t, 1, (int64_t)md->variable_count, &k))
                index = (long)(k - 1);
        } else {
            uint64_t vr;
            if (text && parse_uint(t, UINT32_MAX, &vr))
                index = find_vr(p, vr);
        }
        if (index < 0)
            violation(p, RTCOSIM_EFORMAT, "ModelStructure output %s='%s' refers to no variable",
                      key, t);
        else if (md->variables[index].causality != RTCOSIM_CAUSALITY_OUTPUT)
            violation(p, RTCOSIM_EFORMAT, "ModelStructure output %s='%s' refers to variable '%s', which is not an output",
                      key, t, md->variables[index].name);
        else {
            md->output_indices[md->output_count] = (size_t)index;
            read_output_dependencies(p, n, md->output_count++, count);
        }
        xmlFree(text);
    }
    /* Every output should be listed too; only warn, as exporters often get
     * this wrong and it does not stop a co-simulation. */
    bool *listed = calloc(md->variable_count ? md->variable_count : 1, sizeof *listed);
    if (!listed) {
        p->out_of_memory = true;
        return;
    }
    for (size_t k = 0; k < md->output_count; k++)
        listed[md->output_indices[k]] = true;
    for (size_t j = 0; j < md->variable_count; j++)
        if (md->variables[j].causality == RTCOSIM_CAUSALITY_OUTPUT && !listed[j] &&
            !(md->version == RTCOSIM_FMI_3 && listed[find_vr(p, md->variables[j].value_reference)]))
            rtcosim_log(RTCOSIM_LOG_WARNING, "fmi", "%s: output '%s' is missing from ModelStructure",
                        p->label, md->variables[j].name);
    free(listed);
}

static bool is_variable_element(const rtcosim_fmi_md *md, const xmlNode *n)
{
    if (n->type != XML_ELEMENT_NODE)
        return false;
    if (md->version == RTCOSIM_FMI_2)
        return strcmp((const char *)n->name, "ScalarVariable") == 0;
    return find_type(fmi3_types, sizeof fmi3_types / sizeof fmi3_types[0],
                     (const char *)n->name) != NULL;
}

/* FMI 3.0 section 2.4.7.7: an Alias child gives the variable another name
 * (and description); it shares everything else, value reference included. */
static size_t alias_count(const rtcosim_fmi_md *md, xmlNode *variable)
{
    size_t count = 0;
    if (md->version == RTCOSIM_FMI_3)
        for (xmlNode *a = variable->children; a; a = a->next)
            count += is_element(a, "Alias");
    return count;
}

static size_t read_aliases(md_parser *p, xmlNode *variable, size_t base, var_extra *extra)
{
    rtcosim_fmi_md *md = p->md;
    size_t added = 0;
    for (xmlNode *a = variable->children; a && md->version == RTCOSIM_FMI_3; a = a->next) {
        if (!is_element(a, "Alias"))
            continue;
        size_t i = base + 1 + added++;
        md->variables[i] = md->variables[base];
        extra[i] = extra[base];
        extra[i].alias_of = (long)base;
        md->variables[i].name = attr(p, a, "name");
        if (!md->variables[i].name || !*md->variables[i].name) {
            violation(p, RTCOSIM_EFORMAT, "variable '%s': Alias without a name",
                      md->variables[base].name);
            md->variables[i].name = md->variables[base].name;
        }
        const char *description = attr(p, a, "description");
        if (description)
            md->variables[i].description = description;
    }
    return added;
}

static void read_variables(md_parser *p, xmlNode *root)
{
    rtcosim_fmi_md *md = p->md;
    xmlNode *mv = child(root, "ModelVariables");
    if (!mv) {
        violation(p, RTCOSIM_EFORMAT, "no ModelVariables element");
        return;
    }
    size_t count = 0;
    for (xmlNode *n = mv->children; n; n = n->next) {
        if (is_variable_element(md, n))
            count += 1 + alias_count(md, n);
        else if (n->type == XML_ELEMENT_NODE)
            violation(p, RTCOSIM_EFORMAT, "ModelVariables: unknown element <%s>",
                      (const char *)n->name);
    }
    md->variables = calloc(count ? count : 1, sizeof *md->variables);
    var_extra *extra = calloc(count ? count : 1, sizeof *extra);
    if (!md->variables || !extra) {
        free(extra);
        p->out_of_memory = true;
        return;
    }
    md->variable_count = count;
    size_t i = 0;
    for (xmlNode *n = mv->children; n; n = n->next)
        if (is_variable_element(md, n)) {
            extra[i].alias_of = -1;
            read_variable(p, root, n, i, &extra[i]);
            i += 1 + read_aliases(p, n, i, extra);
        }
    if (md->version == RTCOSIM_FMI_3 && count) {
        p->vr_order = malloc(count * sizeof *p->vr_order);
        if (!p->vr_order) {
            free(extra);
            p->out_of_memory = true;
            return;
        }
        for (size_t k = 0; k < count; k++)
            p->vr_order[k] = k;
        qsort_r(p->vr_order, count, sizeof *p->vr_order, by_vr, md);
    }
    resolve_derivatives(p, extra);
    check_uniqueness(p, extra);
    free(extra);
}

static const char *required(md_parser *p, xmlNode *root, const char *name)
{
    const char *v = attr(p, root, name);
    if (!v || !*v)
        violation(p, RTCOSIM_EFORMAT, "fmiModelDescription lacks the %s attribute", name);
    return v;
}

/* The last libxml2 error of the parse as "line N: message" without newline. */
static void xml_error_text(xmlParserCtxtPtr ctxt, char *buf, size_t size)
{
    const xmlError *e = xmlCtxtGetLastError(ctxt);
    if (!e || !e->message) {
        snprintf(buf, size, "not well-formed");
        return;
    }
    snprintf(buf, size, "line %d: %s", e->line, e->message);
    size_t len = strlen(buf);
    while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
        buf[--len] = '\0';
}

static rtcosim_status read_document(md_parser *p, xmlDoc *doc)
{
    rtcosim_fmi_md *md = p->md;
    if (doc->intSubset || doc->extSubset)
        return rtcosim_error_set(p->err, RTCOSIM_EFORMAT, "%s: DOCTYPE declarations are not allowed",
                                 p->label);
    xmlNode *root = xmlDocGetRootElement(doc);
    if (!root || !is_element(root, "fmiModelDescription"))
        return rtcosim_error_set(p->err, RTCOSIM_EFORMAT, "%s: root element is not fmiModelDescription",
                                 p->label);
    md->fmi_version_text = attr(p, root, "fmiVersion");
    const char *ver = md->fmi_version_text;
    if (!ver)
        return rtcosim_error_set(p->err, RTCOSIM_EFORMAT, "%s: fmiModelDescription lacks fmiVersion",
                                 p->label);
    /* "2.0" and "3.0" as written by FMI 2.0.x and 3.0.x; patch releases keep them. */
    if (strncmp(ver, "2.0", 3) == 0 && (ver[3] == '\0' || ver[3] == '.'))
        md->version = RTCOSIM_FMI_2;
    else if (strncmp(ver, "3.", 2) == 0 && ver[2] >= '0' && ver[2] <= '9')
        md->version = RTCOSIM_FMI_3;
    else
        return rtcosim_error_set(p->err, RTCOSIM_EUNSUPPORTED,
                                 "%s: unsupported fmiVersion '%s' (supported: 2.0, 3.0)", p->label,
                                 ver);

    md->model_name = required(p, root, "modelName");
    md->instantiation_token =
        required(p, root, md->version == RTCOSIM_FMI_2 ? "guid" : "instantiationToken");
    md->description = attr(p, root, "description");
    md->author = attr(p, root, "author");
    md->model_version = attr(p, root, "version");
    md->generation_tool = attr(p, root, "generationTool");
    md->generation_date = attr(p, root, "generationDateAndTime");

    xmlNode *cs = child(root, "CoSimulation");
    xmlNode *me = child(root, "ModelExchange");
    md->has_co_simulation = cs != NULL;
    md->has_model_exchange = me != NULL;
    bool want_me = p->interface == RTCOSIM_FMI_MD_MODEL_EXCHANGE;
    if (!(want_me ? me : cs)) {
        if (p->violations == 0)
            return rtcosim_error_set(p->err, RTCOSIM_EUNSUPPORTED,
                                     want_me ? "%s: the FMU does not support model exchange (no ModelExchange element)"
                                             : "%s: the FMU does not support co-simulation (no CoSimulation element)",
                                     p->label);
        return p->err ? p->err->status : RTCOSIM_EFORMAT;
    }
    if (cs)
        read_co_simulation(p, cs);
    /* The ModelExchange facts matter (and are checked) only when they are used. */
    if (want_me)
        read_model_exchange(p, root, me);
    read_default_experiment(p, root);
    read_variables(p, root);
    if (md->variables) {
        read_outputs(p, root);
        if (want_me)
            read_continuous_structure(p, root);
    }
    if (p->out_of_memory)
        return rtcosim_error_set(p->err, RTCOSIM_ENOMEM, "%s: out of memory", p->label);
    if (p->violations) {
        if (p->violations > 1)
            rtcosim_log(RTCOSIM_LOG_WARNING, "fmi", "%s: %u problems in total", p->label,
                        p->violations);
        return p->err ? p->err->status : RTCOSIM_EFORMAT;
    }
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_fmi_md_parse(const char *xml, size_t size, const char *label,
                                    rtcosim_fmi_md **out, rtcosim_error *err)
{
    return rtcosim_fmi_md_parse_for(xml, size, label, RTCOSIM_FMI_MD_CO_SIMULATION, out, err);
}

rtcosim_status rtcosim_fmi_md_parse_for(const char *xml, size_t size, const char *label,
                                        rtcosim_fmi_md_interface interface,
                                        rtcosim_fmi_md **out, rtcosim_error *err)
{
    *out = NULL;
    if (!label)
        label = "modelDescription.xml";
    if (size > RTCOSIM_FMI_MD_MAX_SIZE)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: %zu bytes is larger than the limit of %u",
                                 label, size, RTCOSIM_FMI_MD_MAX_SIZE);
    xmlInitParser();
    rtcosim_fmi_md *md = calloc(1, sizeof *md);
    xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
    if (!md || !ctxt) {
        free(md);
        xmlFreeParserCtxt(ctxt);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", label);
    }
    /* No network, no DTD loading, no entity substitution: a model description
     * needs none of them and each is an attack surface. */
    xmlDoc *doc = xmlCtxtReadMemory(ctxt, xml, (int)size, label, NULL,
                                    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    rtcosim_status st;
    if (!doc) {
        char text[256];
        xml_error_text(ctxt, text, sizeof text);
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: malformed XML (%s)", label, text);
    } else {
        md_parser p = {.md = md, .label = label, .err = err, .interface = (int)interface};
        rtcosim_error local;
        if (!err)
            p.err = &local;
        st = read_document(&p, doc);
        free(p.units);
        free(p.vr_order);
        xmlFreeDoc(doc);
    }
    xmlFreeParserCtxt(ctxt);
    if (st != RTCOSIM_OK) {
        rtcosim_fmi_md_free(md);
        return st;
    }
    *out = md;
    return RTCOSIM_OK;
}

void rtcosim_fmi_md_free(rtcosim_fmi_md *md)
{
    if (!md)
        return;
    rtcosim_fmi_md_string *s = md->strings;
    while (s) {
        rtcosim_fmi_md_string *next = s->next;
        free(s);
        s = next;
    }
    free(md->variables);
    free(md->output_indices);
    free(md->output_dependencies_declared);
    free(md->output_dependency_start);
    free(md->output_dependencies);
    free(md);
}

bool rtcosim_fmi_md_has_type(const rtcosim_fmi_md *md, rtcosim_type type)
{
    for (size_t i = 0; i < md->variable_count; i++)
        if (md->variables[i].type == type)
            return true;
    return false;
}
