/* ModelVariables of modelDescription.xml (FMI 2.0 section 2.2.7, FMI 3.0
 * section 2.4.7) into the rtcosim variable table, with the standard's
 * defaults for causality, variability and initial. FMI 3.0 arrays (variables
 * with <Dimension>) become their elements, `name[i,j]` (1-based, row-major),
 * each with a value reference of its own above every declared one; the
 * description's `arrays` table maps them back to the FMU's array. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/tree.h>

#include "fmi/md_internal.h"
#include "rtcosim/log.h"



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

/* `initial` as written where the table (FMI 2.0 section 2.2.7 / FMI 3.0
 * section 2.4.7.4, cases A-E) does not list it. initial="exact" on an input
 * (the Reference FMUs' Feedthrough, FMI 3.0) or on the independent variable
 * says no more than the standard's own default does (an input's start value
 * is used until it is set), and on a calculated parameter or a fixed/tunable
 * local it means the start value is used: a warning, taken as the nearest
 * allowed value. Anything else changes what a start value means: an error. */
static bool initial_tolerated(md_parser *p, rtcosim_variable *v, char rule, rtcosim_initial i)
{
    if (i != RTCOSIM_INITIAL_EXACT || (rule != 'D' && rule != 'I' && rule != 'C'))
        return false;
    rtcosim_initial taken = rule == 'C' ? RTCOSIM_INITIAL_APPROX : RTCOSIM_INITIAL_NONE;
    md_lenient(p, "variable '%s': initial 'exact' is not allowed with causality '%s' and variability "
                  "'%s' (FMI 2.0 section 2.2.7, FMI 3.0 section 2.4.7.4); taken as %s",
               v->name, causality_words[v->causality], variability_words[v->variability],
               taken == RTCOSIM_INITIAL_APPROX ? "'approx'" : "absent");
    v->initial = taken;
    return true;
}

/* Causality, variability and initial with the standard's defaults and rules
 * (FMI 2.0 section 2.2.7, FMI 3.0 section 2.4.7.4 and its table of
 * combinations). An unknown word or a forbidden causality/variability pair
 * leaves the variable's meaning open (is it set? when?): an error. False when
 * the variable cannot be used. */
static bool read_kind(md_parser *p, xmlNode *node, rtcosim_variable *v)
{
    const rtcosim_fmi_md *md = p->md;
    const char *name = v->name;
    const char *causality = md_attr(p, node, "causality");
    const char *variability = md_attr(p, node, "variability");
    const char *initial = md_attr(p, node, "initial");
    int ci = causality ? WORD_INDEX(causality, causality_words) : RTCOSIM_CAUSALITY_LOCAL;
    if (ci < 0 || (md->version == RTCOSIM_FMI_2 && ci == RTCOSIM_CAUSALITY_STRUCTURAL_PARAMETER)) {
        md_violation(p, RTCOSIM_EFORMAT, "variable '%s': unknown causality '%s'", name, causality);
        return false;
    }
    v->causality = (rtcosim_causality)ci;
    /* Default variability: continuous for Real/Float, discrete otherwise (FMI 3.0
     * section 2.4.7.4; FMI 2.0 section 2.2.7 only allows continuous for Real). */
    int vi = variability ? WORD_INDEX(variability, variability_words)
                         : (is_float(v->type) ? RTCOSIM_VARIABILITY_CONTINUOUS
                                              : RTCOSIM_VARIABILITY_DISCRETE);
    if (vi < 0) {
        md_violation(p, RTCOSIM_EFORMAT, "variable '%s': unknown variability '%s'", name, variability);
        return false;
    }
    v->variability = (rtcosim_variability)vi;
    if (v->variability == RTCOSIM_VARIABILITY_CONTINUOUS && !is_float(v->type)) {
        /* Only how inputs are interpolated depends on it: held like the
         * discrete variable it must be. */
        md_lenient(p, "variable '%s': variability 'continuous' needs a %s variable (FMI 2.0 section "
                      "2.2.7, FMI 3.0 section 2.4.7.4); taken as 'discrete'",
                   name, md->version == RTCOSIM_FMI_2 ? "Real" : "Float32/Float64");
        v->variability = RTCOSIM_VARIABILITY_DISCRETE;
    }
    char rule = initial_case(v->causality, v->variability);
    if (!rule) {
        md_violation(p, RTCOSIM_EFORMAT, "variable '%s': causality '%s' with variability '%s' is not allowed",
                     name, causality_words[v->causality], variability_words[v->variability]);
        return false;
    }
    v->initial = initial_default(rule);
    if (!initial)
        return true;
    int ii = WORD_INDEX(initial, initial_words);
    if (ii < 0) {
        md_violation(p, RTCOSIM_EFORMAT, "variable '%s': unknown initial '%s'", name, initial);
        return false;
    }
    if (initial_allowed(rule, (rtcosim_initial)ii)) {
        v->initial = (rtcosim_initial)ii;
        return true;
    }
    if (initial_tolerated(p, v, rule, (rtcosim_initial)ii))
        return true;
    md_violation(p, RTCOSIM_EFORMAT,
                 "variable '%s': initial '%s' is not allowed with causality '%s' and variability '%s'",
                 name, initial, causality_words[v->causality], variability_words[v->variability]);
    return false;
}

/* Which start values the variable must or must not have (FMI 2.0 section
 * 2.2.7, FMI 3.0 section 2.4.7.5): rtcosim sets start values only when the
 * user gives them, so a missing or superfluous one cannot make a run go
 * wrong; a warning (a superfluous one is ignored). False: none to parse. */
static bool start_rules(md_parser *p, rtcosim_variable *v, bool present)
{
    if (v->type == RTCOSIM_TYPE_CLOCK)
        return false;
    bool required = v->initial == RTCOSIM_INITIAL_EXACT || v->initial == RTCOSIM_INITIAL_APPROX ||
                    v->causality == RTCOSIM_CAUSALITY_INPUT;
    bool forbidden = v->initial == RTCOSIM_INITIAL_CALCULATED ||
                     v->causality == RTCOSIM_CAUSALITY_INDEPENDENT;
    if (present && forbidden) {
        md_lenient(p, "variable '%s': a start value is not allowed with %s (FMI 2.0 section 2.2.7, "
                      "FMI 3.0 section 2.4.7.5); ignored",
                   v->name, v->causality == RTCOSIM_CAUSALITY_INDEPENDENT ? "causality 'independent'"
                                                                          : "initial 'calculated'");
        return false;
    }
    if (!present && required) {
        if (v->causality == RTCOSIM_CAUSALITY_INPUT)
            md_lenient(p, "variable '%s': input needs a start value (FMI 2.0 section 2.2.7, FMI 3.0 "
                          "section 2.4.7.5)", v->name);
        else
            md_lenient(p, "variable '%s': initial '%s' needs a start value (FMI 2.0 section 2.2.7, "
                          "FMI 3.0 section 2.4.7.5)", v->name, initial_words[v->initial]);
    }
    return present;
}

/* One variable (FMI 2.0 section 2.2.7 ScalarVariable, FMI 3.0 section 2.4.7
 * <Float64> ...): name and valueReference are required, and the type (FMI 2.0
 * the child element) decides how the value is exchanged: errors. A start
 * value that does not parse as the type would be set wrong: an error. */
/* A variable with exactly one <Dimension start="1"/> (a one-element array). */
static bool one_element_array(xmlNode *node)
{
    int dims = 0;
    bool one = false;
    for (xmlNode *d = node->children; d; d = d->next) {
        if (!md_is_element(d, "Dimension"))
            continue;
        dims++;
        xmlChar *start = xmlGetProp(d, (const xmlChar *)"start");
        xmlChar *vr = xmlGetProp(d, (const xmlChar *)"valueReference");
        one = start && !vr && strcmp((const char *)start, "1") == 0;
        xmlFree(start);
        xmlFree(vr);
    }
    return dims == 1 && one;
}

static void read_variable(md_parser *p, xmlNode *node, size_t index,
                          var_extra *extra)
{
    rtcosim_fmi_md *md = p->md;
    rtcosim_variable *v = &md->variables[index];
    v->derivative_of = -1;
    extra->node = node;
    v->name = md_attr(p, node, "name");
    if (!v->name || !*v->name) {
        md_violation(p, RTCOSIM_EFORMAT, "variable #%zu has no name", index + 1);
        v->name = md_keep_n(p, "?", 1);
        return;
    }
    const char *name = v->name;
    v->description = md_attr(p, node, "description");

    const char *vr_text = md_attr(p, node, "valueReference");
    uint64_t vr = 0;
    if (!vr_text || !md_parse_uint(vr_text, UINT32_MAX, &vr))
        md_violation(p, RTCOSIM_EFORMAT, "variable '%s': valueReference '%s' is not a 32-bit unsigned number",
                     name, vr_text ? vr_text : "(missing)");
    v->value_reference = (uint32_t)vr;

    xmlNode *typed = node;
    if (md->version == RTCOSIM_FMI_2) {
        typed = fmi2_type_element(node);
        if (!typed) {
            md_violation(p, RTCOSIM_EFORMAT, "variable '%s': no Real, Integer, Boolean, String or Enumeration element",
                         name);
            return;
        }
        v->type = find_type(fmi2_types, sizeof fmi2_types / sizeof fmi2_types[0],
                            (const char *)typed->name)->type;
    } else {
        const type_word *t = find_type(fmi3_types, sizeof fmi3_types / sizeof fmi3_types[0],
                                       (const char *)node->name);
        v->type = t->type; /* the caller only passes known elements */
        extra->is_array = md_child(node, "Dimension") != NULL;
        if (extra->is_array && v->type == RTCOSIM_TYPE_BINARY && one_element_array(node)) {
            /* Exported LS-BUS nodes declare Rx_Data so; the importers the
             * issue lists connect it to a scalar Binary output. */
            md_lenient(p, "variable '%s': a Binary declared as a one-element array "
                          "(<Dimension start=\"1\"/>) is taken as a scalar", name);
            extra->is_array = false;
        }
        if (extra->is_array &&
            (v->type == RTCOSIM_TYPE_BINARY || v->type == RTCOSIM_TYPE_CLOCK)) {
            md_violation(p, RTCOSIM_EUNSUPPORTED,
                         "variable '%s': arrays of %s are not supported", name,
                         rtcosim_type_name(v->type));
            return;
        }
    }
    extra->typed = typed;
    if (!read_kind(p, node, v))
        return;

    /* Start value: attribute, or FMI 3.0 Start children for String/Binary. */
    const char *start = md_attr(p, typed, "start");
    if (!start && md->version == RTCOSIM_FMI_3) {
        xmlNode *s = md_child(node, "Start");
        if (s)
            start = md_attr(p, s, "value");
    }
    if (start_rules(p, v, start != NULL)) {
        if (extra->is_array) {
            extra->start_wanted = true; /* a list: parsed per element */
        } else if (!md_parse_start(p, v->type, start, &v->start)) {
            md_violation(p, RTCOSIM_EFORMAT, "variable '%s': start value '%s' is not a valid %s value",
                         name, start, rtcosim_type_name(v->type));
            return;
        } else {
            v->has_start = true;
        }
    }

    v->unit = md_attr(p, typed, "unit");
    extra->declared_type = md_attr(p, typed, "declaredType");
    const md_type_unit *declared =
        md_variable_units(p, typed, name, v->unit, extra->declared_type);
    if (!v->unit && declared && is_float(v->type))
        v->unit = declared->unit;
    md_read_range(p, typed, declared, v);
    if (v->type == RTCOSIM_TYPE_INT32 && md->version == RTCOSIM_FMI_2 &&
        strcmp((const char *)typed->name, "Enumeration") == 0 && !extra->declared_type)
        md_lenient(p, "variable '%s': Enumeration without declaredType (FMI 2.0 section 2.2.7); "
                      "used as an Integer", name);
    if (is_float(v->type))
        extra->derivative_text = md_attr(p, typed, "derivative");
}

/* FMI 2.0 value references are unique per base type (Integer and Enumeration
 * share the fmi2GetInteger space); FMI 3.0 ones across all variables. */
static int vr_space(const rtcosim_fmi_md *md, const rtcosim_variable *v)
{
    return md->version == RTCOSIM_FMI_2 ? (int)v->type : 0;
}

/* Sort keys over an index array of the declared table; qsort_r keeps
 * concurrent loads independent. */
static int by_name(const void *a, const void *b, void *table)
{
    const rtcosim_fmi_md *md = table;
    return strcmp(md->variables[*(const size_t *)a].name, md->variables[*(const size_t *)b].name);
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

/* The declared variable (a base, not an alias) with this value reference. */
long md_find_declared(const md_parser *p, uint64_t vr)
{
    size_t lo = 0, hi = p->vr_order ? p->declared_count : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->declared_vr[p->vr_order[mid]] < vr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < (p->vr_order ? p->declared_count : 0) && p->declared_vr[p->vr_order[lo]] == vr)
        return (long)p->vr_order[lo];
    return -1;
}

long md_find_vr(const md_parser *p, uint64_t vr, size_t *count)
{
    long d = md_find_declared(p, vr);
    /* An array of size 0 has no element a reference could name: its first
     * element would be past the table. */
    if (d < 0 || p->element_count[d] == 0)
        return -1;
    if (count)
        *count = p->element_count[d];
    return (long)p->first_element[d];
}

static bool same_start(const rtcosim_variable *a, const rtcosim_variable *b)
{
    if (a->type == RTCOSIM_TYPE_STRING)
        return strcmp(a->start.s, b->start.s) == 0;
    if (a->type == RTCOSIM_TYPE_FLOAT64)
        return a->start.f64 == b->start.f64;
    return memcmp(&a->start, &b->start, rtcosim_type_size(a->type)) == 0;
}

/* Unique names (the table is looked up by name: an error); unique value
 * references (FMI 3.0 section 2.4.7: an error, values would be mixed up).
 * FMI 2.0 allows aliases (several variables sharing one value reference of
 * one type, section 2.2.7), but an alias set holds one value, so two
 * different start values contradict it: a warning, as rtcosim sets only the
 * start values a user gives. */
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
            md_violation(p, RTCOSIM_EFORMAT, "variable '%s': name is not unique",
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
            md_violation(p, RTCOSIM_EFORMAT, "variable '%s': valueReference %" PRIu32 " is already used by '%s'",
                         b->name, b->value_reference, a->name);
        else if (a->has_start && b->has_start && !same_start(a, b))
            md_lenient(p, "variable '%s': alias of '%s' (valueReference %" PRIu32 ") with a different "
                          "start value (FMI 2.0 section 2.2.7)",
                       b->name, a->name, b->value_reference);
    }
    free(order);
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
            count += md_is_element(a, "Alias");
    return count;
}

static size_t read_aliases(md_parser *p, xmlNode *variable, size_t base, var_extra *extra)
{
    rtcosim_fmi_md *md = p->md;
    size_t added = 0;
    for (xmlNode *a = variable->children; a && md->version == RTCOSIM_FMI_3; a = a->next) {
        if (!md_is_element(a, "Alias"))
            continue;
        size_t i = base + 1 + added++;
        md->variables[i] = md->variables[base];
        extra[i] = extra[base];
        extra[i].alias_of = (long)base;
        md->variables[i].name = md_attr(p, a, "name");
        if (!md->variables[i].name || !*md->variables[i].name) {
            md_violation(p, RTCOSIM_EFORMAT, "variable '%s': Alias without a name",
                         md->variables[base].name);
            md->variables[i].name = md->variables[base].name;
        }
        const char *description = md_attr(p, a, "description");
        if (description)
            md->variables[i].description = description;
    }
    return added;
}

/* Resolve `derivative` attributes: FMI 2 gives the 1-based index of the state
 * in ModelVariables, FMI 3 its value reference; an array derivative is the
 * derivative of the array it names, element by element. One that names no
 * float variable breaks model exchange (an error there); co-simulation does
 * not use it (a warning, ignored). */
static void resolve_derivatives(md_parser *p, const var_extra *extra)
{
    rtcosim_fmi_md *md = p->md;
    for (size_t i = 0; i < p->declared_count; i++) {
        const char *text = extra[i].derivative_text;
        if (!text)
            continue;
        size_t first = p->first_element[i], count = p->element_count[i], target_count = 1;
        long target = -1;
        if (md->version == RTCOSIM_FMI_2) {
            int64_t k;
            if (md_parse_int(text, 1, (int64_t)md->variable_count, &k))
                target = (long)(k - 1);
        } else {
            uint64_t vr;
            if (md_parse_uint(text, UINT32_MAX, &vr))
                target = md_find_vr(p, vr, &target_count);
        }
        if (target >= 0 && count == 0 && target_count == 0)
            continue; /* a zero-size array: no element to resolve (and none at target) */
        const char *name = count ? md->variables[first].name : "?";
        if (target < 0 || target_count != count || (size_t)target >= md->variable_count ||
            !is_float(md->variables[target].type) ||
            (size_t)target == first) {
            if (p->interface == RTCOSIM_FMI_MD_MODEL_EXCHANGE)
                md_violation(p, RTCOSIM_EFORMAT,
                             "variable '%s': derivative '%s' does not refer to a %s variable%s", name,
                             text, md->version == RTCOSIM_FMI_2 ? "Real" : "float",
                             target >= 0 && target_count != count ? " of the same size" : "");
            else
                md_lenient(p, "variable '%s': derivative '%s' does not refer to a %s variable (FMI 2.0 "
                              "section 2.2.7, FMI 3.0 section 2.4.7.5); ignored",
                           name, text, md->version == RTCOSIM_FMI_2 ? "Real" : "float");
            continue;
        }
        for (size_t e = 0; e < count; e++)
            md->variables[first + e].derivative_of = (int32_t)((size_t)target + e);
    }
}

void md_read_variables(md_parser *p, xmlNode *root)
{
    rtcosim_fmi_md *md = p->md;
    md_read_definitions(p, root);
    xmlNode *mv = md_child(root, "ModelVariables");
    if (!mv) {
        md_violation(p, RTCOSIM_EFORMAT, "no ModelVariables element");
        return;
    }
    size_t count = 0;
    for (xmlNode *n = mv->children; n; n = n->next) {
        if (is_variable_element(md, n))
            count += 1 + alias_count(md, n);
        else if (n->type == XML_ELEMENT_NODE)
            md_lenient(p, "ModelVariables: unknown element <%s> (FMI %s schema); ignored",
                       (const char *)n->name, md->version == RTCOSIM_FMI_2 ? "2.0" : "3.0");
    }
    md->variables = calloc(count ? count : 1, sizeof *md->variables);
    var_extra *extra = calloc(count ? count : 1, sizeof *extra);
    p->declared_vr = malloc((count ? count : 1) * sizeof *p->declared_vr);
    p->vr_order = malloc((count ? count : 1) * sizeof *p->vr_order);
    if (!md->variables || !extra || !p->declared_vr || !p->vr_order) {
        free(extra);
        p->out_of_memory = true;
        return;
    }
    md->variable_count = count;
    p->declared_count = count;
    size_t i = 0;
    for (xmlNode *n = mv->children; n; n = n->next)
        if (is_variable_element(md, n)) {
            extra[i].alias_of = -1;
            read_variable(p, n, i, &extra[i]);
            i += 1 + read_aliases(p, n, i, extra);
        }
    for (size_t k = 0; k < count; k++) {
        p->declared_vr[k] = md->variables[k].value_reference;
        p->vr_order[k] = k;
    }
    if (md->version == RTCOSIM_FMI_3) /* FMI 2 refers by index, never by value reference */
        qsort_r(p->vr_order, count, sizeof *p->vr_order, by_vr, md);
    check_uniqueness(p, extra);
    md_expand_arrays(p, extra);
    if (p->first_element && !p->out_of_memory)
        resolve_derivatives(p, extra);
    free(extra);
}
