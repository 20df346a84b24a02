/* FMI 1.0 modelDescription.xml (FMI for Model Exchange 1.0 chapter 2, FMI for
 * Co-Simulation 1.0 section 2.2) into the same facts as 2.0 and 3.0: the
 * modelIdentifier on the root names both interfaces' binary functions
 * (MODELIDENTIFIER_fmiDoStep); an Implementation element (CoSimulation_
 * StandAlone or CoSimulation_Tool) makes it a co-simulation FMU, its absence a
 * model-exchange one; ScalarVariable variability/causality map onto FMI 2.0's
 * terms; alias and negatedAlias variables share their base's value
 * reference, a negated alias reading -x (Boolean: not x). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "fmi/md_internal.h"

static int pick(const char *text, const char *const *words, int count)
{
    for (int i = 0; i < count; i++)
        if (strcmp(text, words[i]) == 0)
            return i;
    return -1;
}

/* variability + causality of 1.0 (ME 1.0 section 2.10) in 2.0's terms:
 * a "parameter" is a parameter (fixed), "constant" a constant; causality
 * input/output stay, internal and none become local. */
static void map_kind(md_parser *p, xmlNode *n, const char *name, rtcosim_variable *v)
{
    static const char *const variabilities[] = {"constant", "parameter", "discrete", "continuous"};
    static const char *const causalities[] = {"input", "output", "internal", "none"};
    xmlChar *vt = xmlGetProp(n, (const xmlChar *)"variability");
    xmlChar *ct = xmlGetProp(n, (const xmlChar *)"causality");
    int var = vt ? pick((const char *)vt, variabilities, 4) : 3;
    int caus = ct ? pick((const char *)ct, causalities, 4) : 2;
    if (var < 0)
        md_violation(p, RTCOSIM_EFORMAT, "variable '%s': unknown variability '%s' (FMI 1.0: "
                                         "constant, parameter, discrete, continuous)",
                     name, (const char *)vt);
    if (caus < 0)
        md_violation(p, RTCOSIM_EFORMAT, "variable '%s': unknown causality '%s' (FMI 1.0: input, "
                                         "output, internal, none)",
                     name, (const char *)ct);
    xmlFree(vt);
    xmlFree(ct);
    if (var < 0 || caus < 0)
        return;
    static const rtcosim_variability variability_of[] = {
        RTCOSIM_VARIABILITY_CONSTANT, RTCOSIM_VARIABILITY_FIXED, RTCOSIM_VARIABILITY_DISCRETE,
        RTCOSIM_VARIABILITY_CONTINUOUS};
    v->variability = variability_of[var];
    if (caus == 0)
        v->causality = RTCOSIM_CAUSALITY_INPUT;
    else if (caus == 1)
        v->causality = RTCOSIM_CAUSALITY_OUTPUT;
    else if (var == 1)
        v->causality = RTCOSIM_CAUSALITY_PARAMETER;
    else
        v->causality = RTCOSIM_CAUSALITY_LOCAL;
    if (v->causality == RTCOSIM_CAUSALITY_INPUT || v->causality == RTCOSIM_CAUSALITY_PARAMETER ||
        var == 0)
        v->initial = v->has_start ? RTCOSIM_INITIAL_EXACT : RTCOSIM_INITIAL_NONE;
    else
        v->initial = v->has_start ? RTCOSIM_INITIAL_APPROX : RTCOSIM_INITIAL_CALCULATED;
}

static const struct {
    const char *element;
    rtcosim_type type;
} types[] = {{"Real", RTCOSIM_TYPE_FLOAT64},
             {"Integer", RTCOSIM_TYPE_INT32},
             {"Boolean", RTCOSIM_TYPE_BOOLEAN},
             {"String", RTCOSIM_TYPE_STRING},
             {"Enumeration", RTCOSIM_TYPE_INT32}};

static void read_scalar(md_parser *p, xmlNode *n, size_t index, bool *negated)
{
    rtcosim_fmi_md *md = p->md;
    rtcosim_variable *v = &md->variables[index];
    v->derivative_of = -1;
    v->name = md_attr(p, n, "name");
    const char *name = v->name ? v->name : "?";
    if (!v->name || !*v->name)
        md_violation(p, RTCOSIM_EFORMAT, "ScalarVariable %zu has no name", index + 1);
    v->description = md_attr(p, n, "description");
    xmlChar *vr = xmlGetProp(n, (const xmlChar *)"valueReference");
    uint64_t r = 0;
    if (!vr || !md_parse_uint((const char *)vr, UINT32_MAX, &r) || r == UINT32_MAX)
        md_violation(p, RTCOSIM_EFORMAT, "variable '%s': bad or missing valueReference '%s'",
                     name, vr ? (const char *)vr : "");
    xmlFree(vr);
    v->value_reference = (uint32_t)r;
    xmlNode *typed = NULL;
    size_t t = 0;
    for (xmlNode *c = n->children; c && !typed; c = c->next)
        for (t = 0; c->type == XML_ELEMENT_NODE && t < sizeof types / sizeof types[0]; t++)
            if (strcmp((const char *)c->name, types[t].element) == 0) {
                typed = c;
                break;
            }
    if (!typed) {
        md_violation(p, RTCOSIM_EFORMAT,
                     "variable '%s': no Real, Integer, Boolean, String or Enumeration element", name);
        return;
    }
    v->type = types[t].type;
    if (v->type == RTCOSIM_TYPE_FLOAT64)
        v->unit = md_attr(p, typed, "unit");
    md_read_range(p, typed, NULL, v);
    xmlChar *alias = xmlGetProp(n, (const xmlChar *)"alias");
    static const char *const aliases[] = {"noAlias", "alias", "negatedAlias"};
    int a = alias ? pick((const char *)alias, aliases, 3) : 0;
    if (a < 0)
        md_violation(p, RTCOSIM_EFORMAT,
                     "variable '%s': unknown alias '%s' (noAlias, alias, negatedAlias)", name,
                     (const char *)alias);
    xmlFree(alias);
    negated[index] = a == 2;
    if (negated[index] && v->type == RTCOSIM_TYPE_STRING)
        md_violation(p, RTCOSIM_EFORMAT, "variable '%s': a String cannot be a negated alias", name);
    /* ME 1.0 section 2.10: an alias has no start value of its own. */
    /* md_attr keeps the text with the description: a String start value
     * points into it for as long as the FMU lives (an xmlGetProp copy freed
     * here left it dangling, and fmiSetString copied freed bytes). */
    const char *start = a > 0 ? NULL : md_attr(p, typed, "start");
    if (start) {
        v->has_start = md_parse_start(p, v->type, start, &v->start);
        if (!v->has_start)
            md_violation(p, RTCOSIM_EFORMAT, "variable '%s': bad start value '%s'", name, start);
    }
    map_kind(p, n, name, v);
}

void md_read_fmi1(md_parser *p, xmlNode *root)
{
    rtcosim_fmi_md *md = p->md;
    md->model_identifier = md_attr(p, root, "modelIdentifier");
    if (!md->model_identifier || !*md->model_identifier)
        md_violation(p, RTCOSIM_EFORMAT, "fmiModelDescription lacks modelIdentifier");
    else
        for (const char *c = md->model_identifier; *c; c++)
            if (!(*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                  (c > md->model_identifier && *c >= '0' && *c <= '9'))) {
                md_violation(p, RTCOSIM_EFORMAT,
                             "modelIdentifier '%s' is not a C identifier (FMI 1.0 section 2.2: "
                             "it prefixes the function names)",
                             md->model_identifier);
                break;
            }
    md->me_model_identifier = md->model_identifier;
    xmlChar *n = xmlGetProp(root, (const xmlChar *)"numberOfContinuousStates");
    xmlChar *e = xmlGetProp(root, (const xmlChar *)"numberOfEventIndicators");
    int64_t v = 0;
    if (n && md_parse_int((const char *)n, 0, INT32_MAX, &v))
        md->state_count = (size_t)v;
    else if (n)
        md_violation(p, RTCOSIM_EFORMAT, "numberOfContinuousStates='%s' is not a count",
                     (const char *)n);
    if (e && md_parse_int((const char *)e, 0, INT32_MAX, &v))
        md->event_indicator_count = (size_t)v;
    else if (e)
        md_violation(p, RTCOSIM_EFORMAT, "numberOfEventIndicators='%s' is not a count",
                     (const char *)e);
    xmlFree(n);
    xmlFree(e);

    /* CS 1.0 section 2.2: Implementation holds CoSimulation_StandAlone or
     * CoSimulation_Tool, each with Capabilities. */
    xmlNode *impl = md_child(root, "Implementation");
    md->has_co_simulation = impl != NULL;
    md->has_model_exchange = impl == NULL;
    if (impl) {
        xmlNode *cs = md_child(impl, "CoSimulation_StandAlone");
        md->fmi1_tool = cs == NULL && (cs = md_child(impl, "CoSimulation_Tool")) != NULL;
        if (!cs)
            md_violation(p, RTCOSIM_EFORMAT, "Implementation without CoSimulation_StandAlone or "
                                             "CoSimulation_Tool");
        xmlNode *caps = cs ? md_child(cs, "Capabilities") : NULL;
        xmlChar *var = caps ? xmlGetProp(caps, (const xmlChar *)"canHandleVariableCommunicationStepSize") : NULL;
        bool b = false;
        md->can_handle_variable_step = var && md_parse_bool((const char *)var, &b) && b;
        xmlFree(var);
    }

    xmlNode *mv = md_child(root, "ModelVariables");
    size_t count = 0;
    for (xmlNode *c = mv ? mv->children : NULL; c; c = c->next)
        count += md_is_element(c, "ScalarVariable");
    md->variables = calloc(count ? count : 1, sizeof *md->variables);
    md->negated = calloc(count ? count : 1, sizeof *md->negated);
    md->output_indices = calloc(count ? count : 1, sizeof *md->output_indices);
    if (!md->variables || !md->negated || !md->output_indices) {
        p->out_of_memory = true;
        return;
    }
    md->variable_count = count;
    size_t i = 0;
    for (xmlNode *c = mv ? mv->children : NULL; c; c = c->next)
        if (md_is_element(c, "ScalarVariable"))
            read_scalar(p, c, i++, md->negated);
    /* No ModelStructure in 1.0: every output is listed, depending on all inputs. */
    for (i = 0; i < count; i++)
        if (md->variables[i].causality == RTCOSIM_CAUSALITY_OUTPUT)
            md->output_indices[md->output_count++] = i;
}
