/* Parser and validator for modelDescription.xml (FMI 2.0 chapter 2.2, FMI 3.0
 * chapter 2.4): the document, its header, the CoSimulation / ModelExchange
 * elements and the default experiment, and the entry points. Reads with
 * libxml2 without network or DTD access; the variables (md_variables.c,
 * md_arrays.c) and the model structure (md_structure.c) have files of their
 * own. Rules whose violation stops a correct run are errors (the first one
 * becomes the error, later ones are logged); rules the Reference FMUs and
 * fmusim do not hold FMUs to are warnings naming the variable, errors only
 * with `strict`. */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "fmi/md_internal.h"
#include "rtcosim/log.h"
#include "util/text.h"
#include "util/xml_read.h"

void md_violation(md_parser *p, rtcosim_status status, const char *fmt, ...)
{
    char text[RTCOSIM_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (p->violations++ == 0)
        rtcosim_error_set(p->err, status, "%s: %s", p->label, text);
    else if (!p->quiet)
        rtcosim_log(RTCOSIM_LOG_WARNING, "fmi", "%s: %s", p->label, text);
}

void md_lenient(md_parser *p, const char *fmt, ...)
{
    char text[RTCOSIM_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (p->strict) {
        /* Messages end in "; <what rtcosim does instead>", which no longer applies. */
        char *consequence = strrchr(text, ';');
        if (consequence)
            *consequence = '\0';
        md_violation(p, RTCOSIM_EFORMAT, "%s", text);
        return;
    }
    p->md->warning_count++;
    if (!p->quiet)
        rtcosim_log(RTCOSIM_LOG_WARNING, "fmi", "%s: %s (accepted; --strict refuses it)", p->label,
                    text);
}

const char *md_keep_n(md_parser *p, const char *text, size_t len)
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
const char *md_attr(md_parser *p, xmlNode *node, const char *name)
{
    xmlChar *v = xmlGetProp(node, (const xmlChar *)name);
    if (!v)
        return NULL;
    const char *kept = md_keep_n(p, (const char *)v, strlen((const char *)v));
    xmlFree(v);
    return kept;
}

bool md_is_element(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

xmlNode *md_child(xmlNode *parent, const char *name)
{
    for (xmlNode *n = parent->children; n; n = n->next)
        if (md_is_element(n, name))
            return n;
    return NULL;
}


/* ---- Header, capabilities, default experiment ---- */

/* Capability flags are xs:boolean (FMI 2.0 section 4.3.1, FMI 3.0 section
 * 4.3.1, 3.3.1): one that is not cannot be trusted either way, and a wrong
 * capability (variable step size, FMU state) makes runs go wrong: an error. */
static bool flag(md_parser *p, xmlNode *node, const char *name, bool *out)
{
    xmlChar *v = xmlGetProp(node, (const xmlChar *)name);
    *out = false;
    if (!v)
        return true;
    bool ok = md_parse_bool((const char *)v, out);
    if (!ok)
        md_violation(p, RTCOSIM_EFORMAT, "%s attribute %s='%s' is not a boolean",
                  (const char *)node->name, name, (const char *)v);
    xmlFree(v);
    return ok;
}

/* The CoSimulation element (FMI 2.0 section 4.3.1, FMI 3.0 section 4.3.1):
 * modelIdentifier is required and names the binary (FMI 2.0 section 2.3,
 * FMI 3.0 section 2.5: a valid C identifier, so never a path): an error. */
static void read_co_simulation(md_parser *p, xmlNode *cs)
{
    rtcosim_fmi_md *md = p->md;
    md->model_identifier = md_attr(p, cs, "modelIdentifier");
    if (!md->model_identifier || !*md->model_identifier)
        md_violation(p, RTCOSIM_EFORMAT, "CoSimulation element lacks modelIdentifier");
    else if (strchr(md->model_identifier, '/') || strcmp(md->model_identifier, "..") == 0 ||
             strcmp(md->model_identifier, ".") == 0)
        md_violation(p, RTCOSIM_EFORMAT, "modelIdentifier '%s' is not a plain file name",
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
        flag(p, cs, "providesEvaluateDiscreteStates", &md->provides_evaluate_discrete_states);
    }
    xmlChar *order = xmlGetProp(cs, (const xmlChar *)"maxOutputDerivativeOrder");
    if (order) {
        int64_t v;
        if (md_parse_int((const char *)order, 0, INT_MAX, &v))
            md->max_output_derivative_order = (int)v;
        else
            /* rtcosim does not ask for output derivatives: taken as 0. */
            md_lenient(p, "maxOutputDerivativeOrder='%s' is not a count (FMI 2.0 section 4.3.1, "
                          "FMI 3.0 section 4.3.1); taken as 0", (const char *)order);
        xmlFree(order);
    }
}

/* FMI 3.0 section 5.4: the ScheduledExecution element; its modelIdentifier
 * names the binary as CoSimulation's does. */
static void read_scheduled_execution(md_parser *p, xmlNode *se)
{
    rtcosim_fmi_md *md = p->md;
    md->se_model_identifier = md_attr(p, se, "modelIdentifier");
    md->model_identifier = md->se_model_identifier;
    if (!md->model_identifier || !*md->model_identifier)
        md_violation(p, RTCOSIM_EFORMAT, "ScheduledExecution element lacks modelIdentifier");
    else if (strchr(md->model_identifier, '/') || strcmp(md->model_identifier, "..") == 0 ||
             strcmp(md->model_identifier, ".") == 0)
        md_violation(p, RTCOSIM_EFORMAT, "modelIdentifier '%s' is not a plain file name",
                     md->model_identifier);
}

/* FMI 2.0 section 3.3 / FMI 3.0 section 3.3: the ModelExchange element. Its
 * modelIdentifier may differ from the co-simulation one (another binary). */
static void read_model_exchange(md_parser *p, xmlNode *root, xmlNode *me)
{
    rtcosim_fmi_md *md = p->md;
    md->me_model_identifier = md_attr(p, me, "modelIdentifier");
    if (!md->me_model_identifier || !*md->me_model_identifier)
        md_violation(p, RTCOSIM_EFORMAT, "ModelExchange element lacks modelIdentifier");
    else if (strchr(md->me_model_identifier, '/') || strcmp(md->me_model_identifier, "..") == 0 ||
             strcmp(md->me_model_identifier, ".") == 0)
        md_violation(p, RTCOSIM_EFORMAT, "modelIdentifier '%s' is not a plain file name",
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
            if (md_parse_int((const char *)n, 0, INT32_MAX, &v))
                md->event_indicator_count = (size_t)v;
            else
                md_violation(p, RTCOSIM_EFORMAT, "numberOfEventIndicators='%s' is not a count",
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

static void experiment_value(md_parser *p, xmlNode *de, const char *name, bool *has, double *out)
{
    xmlChar *v = xmlGetProp(de, (const xmlChar *)name);
    if (!v)
        return;
    if (md_parse_double((const char *)v, out) && isfinite(*out))
        *has = true;
    else
        /* Only a default: the importer's own defaults apply instead. */
        md_lenient(p, "DefaultExperiment %s='%s' is not a number (FMI 2.0 section 2.2.5, FMI 3.0 "
                      "section 2.4.6); ignored", name, (const char *)v);
    xmlFree(v);
}

static void read_default_experiment(md_parser *p, xmlNode *root)
{
    xmlNode *de = md_child(root, "DefaultExperiment");
    if (!de)
        return;
    rtcosim_fmi_md *md = p->md;
    experiment_value(p, de, "startTime", &md->has_start, &md->start);
    experiment_value(p, de, "stopTime", &md->has_stop, &md->stop);
    experiment_value(p, de, "tolerance", &md->has_tolerance, &md->tolerance);
    experiment_value(p, de, "stepSize", &md->has_step, &md->step);
    if (md->has_step && md->step <= 0) {
        md_lenient(p, "DefaultExperiment stepSize=%g is not positive (FMI 2.0 section 2.2.5, FMI 3.0 "
                      "section 2.4.6); ignored", md->step);
        md->has_step = false;
    }
}


/* fmiModelDescription's required attributes (FMI 2.0 section 2.2.1, FMI 3.0
 * section 2.4.1): modelName, and guid / instantiationToken, which
 * instantiation passes to the FMU (a mismatch makes it refuse): errors. */
static const char *required(md_parser *p, xmlNode *root, const char *name)
{
    const char *v = md_attr(p, root, name);
    if (!v || !*v)
        md_violation(p, RTCOSIM_EFORMAT, "fmiModelDescription lacks the %s attribute", name);
    return v;
}

/* The last libxml2 error of the parse as "line N: message" without newline. */
/* The parse's outcome: out of memory, the first violation, or OK. */
static rtcosim_status outcome(md_parser *p)
{
    if (p->out_of_memory)
        return rtcosim_error_set(p->err, RTCOSIM_ENOMEM, "%s: out of memory", p->label);
    if (p->violations) {
        if (p->violations > 1 && !p->quiet)
            rtcosim_log(RTCOSIM_LOG_WARNING, "fmi", "%s: %u problems in total", p->label,
                        p->violations);
        return p->err ? p->err->status : RTCOSIM_EFORMAT;
    }
    return RTCOSIM_OK;
}

/* FMI 1.0 (md_fmi1.c): one description per interface, the Implementation
 * element telling which. */
static rtcosim_status read_fmi1(md_parser *p, xmlNode *root, bool want_me)
{
    rtcosim_fmi_md *md = p->md;
    md_read_fmi1(p, root);
    read_default_experiment(p, root);
    if (!want_me && p->model_exchange_fallback && !md->has_co_simulation &&
        md->has_model_exchange) {
        want_me = true;
        p->interface = RTCOSIM_FMI_MD_MODEL_EXCHANGE;
        md->fell_back_to_model_exchange = true;
    }
    if (p->violations == 0 && !p->out_of_memory &&
        (want_me ? !md->has_model_exchange : !md->has_co_simulation))
        return rtcosim_error_set(p->err, RTCOSIM_EUNSUPPORTED,
                                 want_me ? "%s: an FMI 1.0 co-simulation FMU (Implementation "
                                           "element) does not support model exchange"
                                         : "%s: an FMI 1.0 model-exchange FMU (no Implementation "
                                           "element) does not support co-simulation",
                                 p->label);
    return outcome(p);
}

static rtcosim_status read_document(md_parser *p, xmlDoc *doc)
{
    rtcosim_fmi_md *md = p->md;
    if (doc->intSubset || doc->extSubset)
        return rtcosim_error_set(p->err, RTCOSIM_EFORMAT, "%s: DOCTYPE declarations are not allowed",
                                 p->label);
    xmlNode *root = xmlDocGetRootElement(doc);
    if (!root || !md_is_element(root, "fmiModelDescription"))
        return rtcosim_error_set(p->err, RTCOSIM_EFORMAT, "%s: root element is not fmiModelDescription",
                                 p->label);
    md->fmi_version_text = md_attr(p, root, "fmiVersion");
    const char *ver = md->fmi_version_text;
    if (!ver)
        return rtcosim_error_set(p->err, RTCOSIM_EFORMAT, "%s: fmiModelDescription lacks fmiVersion",
                                 p->label);
    /* "2.0" and "3.0" as written by FMI 2.0.x and 3.0.x; patch releases keep them. */
    if (strcmp(ver, "1.0") == 0)
        md->version = RTCOSIM_FMI_1;
    else if (strncmp(ver, "2.0", 3) == 0 && (ver[3] == '\0' || ver[3] == '.'))
        md->version = RTCOSIM_FMI_2;
    else if (strncmp(ver, "3.", 2) == 0 && ver[2] >= '0' && ver[2] <= '9')
        md->version = RTCOSIM_FMI_3;
    else
        return rtcosim_error_set(p->err, RTCOSIM_EUNSUPPORTED,
                                 "%s: unsupported fmiVersion '%s' (supported: 1.0, 2.0, 3.0)", p->label,
                                 ver);

    md->model_name = required(p, root, "modelName");
    const char *token = md_attr(p, root, "instantiationToken");
    if (md->version == RTCOSIM_FMI_3 && token && !*token) {
        /* Exported virtual ECUs sometimes carry none; the FMU then expects
         * the empty string back, which importers pass as it is. */
        md_lenient(p, "fmiModelDescription has an empty instantiationToken (FMI 3.0 section "
                      "2.4.1 asks for one): passed to the FMU as it is");
        md->instantiation_token = token;
    } else {
        md->instantiation_token =
            required(p, root, md->version == RTCOSIM_FMI_3 ? "instantiationToken" : "guid");
    }
    md->description = md_attr(p, root, "description");
    md->author = md_attr(p, root, "author");
    md->model_version = md_attr(p, root, "version");
    md->generation_tool = md_attr(p, root, "generationTool");
    md->generation_date = md_attr(p, root, "generationDateAndTime");

    bool want_me = p->interface == RTCOSIM_FMI_MD_MODEL_EXCHANGE;
    bool want_se = p->interface == RTCOSIM_FMI_MD_SCHEDULED_EXECUTION;
    if (md->version == RTCOSIM_FMI_1 && !want_se)
        return read_fmi1(p, root, want_me);
    xmlNode *cs = md_child(root, "CoSimulation");
    xmlNode *me = md_child(root, "ModelExchange");
    xmlNode *se = md->version == RTCOSIM_FMI_3 ? md_child(root, "ScheduledExecution") : NULL;
    md->has_co_simulation = cs != NULL;
    md->has_model_exchange = me != NULL;
    md->has_scheduled_execution = se != NULL;
    if (!want_me && !want_se && p->model_exchange_fallback && !cs && me) {
        want_me = true;
        p->interface = RTCOSIM_FMI_MD_MODEL_EXCHANGE;
        md->fell_back_to_model_exchange = true;
    }
    if (!want_me && !want_se && p->model_exchange_fallback && !cs && !me && se) {
        want_se = true;
        p->interface = RTCOSIM_FMI_MD_SCHEDULED_EXECUTION;
        md->fell_back_to_scheduled_execution = true;
    }
    if (want_se) {
        if (!se)
            return rtcosim_error_set(p->err, RTCOSIM_EUNSUPPORTED,
                                     "%s: the FMU does not support scheduled execution (no "
                                     "ScheduledExecution element, FMI 3.0 section 5.4)", p->label);
        read_scheduled_execution(p, se);
    } else if (!(want_me ? me : cs)) {
        /* FMI 3.0 chapter 5: an FMU for scheduled execution only (the
         * Reference FMUs' Clocks) has neither interface rtcosim drives. */
        if (p->violations == 0 && !want_me && !me && se)
            return rtcosim_error_set(p->err, RTCOSIM_EUNSUPPORTED,
                                     "%s: the FMU supports only scheduled execution (FMI 3.0 chapter "
                                     "5): load it with --interface-type se",
                                     p->label);
        if (p->violations == 0)
            return rtcosim_error_set(p->err, RTCOSIM_EUNSUPPORTED,
                                     want_me ? "%s: the FMU does not support model exchange (no ModelExchange element)"
                                             : "%s: the FMU does not support co-simulation (no CoSimulation element)",
                                     p->label);
        return p->err ? p->err->status : RTCOSIM_EFORMAT;
    }
    if (cs && !want_se)
        read_co_simulation(p, cs);
    /* The ModelExchange facts matter (and are checked) only when they are used. */
    if (want_me)
        read_model_exchange(p, root, me);
    read_default_experiment(p, root);
    md_read_variables(p, root);
    md_read_clocks(p, root);
    if (md->variables) {
        md_read_outputs(p, root);
        if (want_me)
            md_read_continuous_structure(p, root);
    }
    if (p->out_of_memory)
        return rtcosim_error_set(p->err, RTCOSIM_ENOMEM, "%s: out of memory", p->label);
    if (p->violations) {
        if (p->violations > 1 && !p->quiet)
            rtcosim_log(RTCOSIM_LOG_WARNING, "fmi", "%s: %u problems in total", p->label,
                        p->violations);
        return p->err ? p->err->status : RTCOSIM_EFORMAT;
    }
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_fmi_md_parse(const char *xml, size_t size, const char *label,
                                    rtcosim_fmi_md **out, rtcosim_error *err)
{
    return rtcosim_fmi_md_parse_with(xml, size, label, NULL, out, err);
}

rtcosim_status rtcosim_fmi_md_parse_for(const char *xml, size_t size, const char *label,
                                        rtcosim_fmi_md_interface interface,
                                        rtcosim_fmi_md **out, rtcosim_error *err)
{
    rtcosim_fmi_md_options o = {.interface = interface};
    return rtcosim_fmi_md_parse_with(xml, size, label, &o, out, err);
}

rtcosim_status rtcosim_fmi_md_parse_with(const char *xml, size_t size, const char *label,
                                         const rtcosim_fmi_md_options *opts,
                                         rtcosim_fmi_md **out, rtcosim_error *err)
{
    rtcosim_fmi_md_options defaults = {0};
    if (!opts)
        opts = &defaults;
    *out = NULL;
    if (!label)
        label = "modelDescription.xml";
    if (size > RTCOSIM_FMI_MD_MAX_SIZE)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: %zu bytes is larger than the limit of %u",
                                 label, size, RTCOSIM_FMI_MD_MAX_SIZE);
    rtcosim_fmi_md *md = calloc(1, sizeof *md);
    if (!md)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", label);
    /* No network, no DTD loading, no entity substitution: a model description
     * needs none of them and each is an attack surface. */
    xmlDoc *doc;
    rtcosim_status st = util_xml_parse(xml, size, label, "malformed XML", &doc, err);
    if (doc) {
        md_parser p = {.md = md, .label = label, .err = err, .interface = (int)opts->interface,
                       .strict = opts->strict,
                       .model_exchange_fallback = opts->model_exchange_fallback,
                       .quiet = opts->quiet};
        rtcosim_error local;
        if (!err)
            p.err = &local;
        st = read_document(&p, doc);
        free(p.units);
        free(p.unit_names);
        free(p.vr_order);
        free(p.declared_vr);
        free(p.first_element);
        free(p.element_count);
        free(p.alias_of);
        xmlFreeDoc(doc);
    }
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
    free(md->negated);
    free(md->output_indices);
    free(md->output_dependencies_declared);
    free(md->output_dependency_start);
    free(md->output_dependencies);
    free(md->arrays);
    free(md->clocks);
    free(md->clocked_start);
    free(md->clocked);
    free(md->binary_max_size);
    free(md->mime_types);
    free(md);
}

bool rtcosim_fmi_md_has_type(const rtcosim_fmi_md *md, rtcosim_type type)
{
    for (size_t i = 0; i < md->variable_count; i++)
        if (md->variables[i].type == type)
            return true;
    return false;
}
