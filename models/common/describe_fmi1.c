/* The FMI 1.0 modelDescription.xml of a model (FMI for Model Exchange 1.0
 * section 2, FMI for Co-Simulation 1.0 section 2): one file per interface,
 * since 1.0 tells co-simulation apart by its Implementation element. Time is
 * implicit in 1.0 (no independent variable); parameters are internal
 * variables of variability "parameter". */
#include <stdlib.h>
#include <string.h>

#include "describe.h"
#include "describe_units.h"
#include "instance.h"

static const model_def *const M = &model_definition;

static const char *type_name(model_type t)
{
    switch (t) {
    case MODEL_FLOAT64: return "Real";
    case MODEL_INT32: return "Integer";
    case MODEL_BOOLEAN: return "Boolean";
    case MODEL_STRING: return "String";
    default: return NULL; /* not in FMI 1.0: left out */
    }
}

static const char *causality_name(model_causality c)
{
    return c == MODEL_INPUT ? "input" : c == MODEL_OUTPUT ? "output" : "internal";
}

static const char *variability_name(model_variability v)
{
    static const char *const names[] = {"constant", "parameter", "parameter", "discrete",
                                        "continuous"};
    return names[v];
}

static bool calculated(const model_variable *v)
{
    return v->initial == MODEL_INITIAL_CALCULATED ||
           (v->initial == MODEL_INITIAL_DEFAULT &&
            (v->causality == MODEL_OUTPUT || v->causality == MODEL_LOCAL ||
             v->causality == MODEL_CALCULATED_PARAMETER));
}

static void put_variable(const model_variable *v, const char *name, const char *alias)
{
    fputs("    <ScalarVariable", out);
    attr("name", name);
    fprintf(out, " valueReference=\"%u\"", (unsigned)v->value_reference);
    attr("description", v->description);
    attr("variability", variability_name(v->variability));
    attr("causality", causality_name(v->causality));
    attr("alias", alias);
    fprintf(out, ">\n      <%s", type_name(v->type));
    if (v->type == MODEL_FLOAT64)
        attr("unit", v->unit);
    attr_range(v->value_reference);
    /* ME 1.0 section 2.10: an alias has no start value of its own. */
    if (!alias && v->start && !calculated(v)) {
        attr("start", v->start);
        attr("fixed", "true");
    }
    fputs("/>\n    </ScalarVariable>\n", out);
}

/* The variables whose unit FMI 1.0 declares: Real ones but time. */
static bool fmi1_has_unit(const model_variable *v)
{
    return v->type == MODEL_FLOAT64 && v->causality != MODEL_INDEPENDENT;
}

void describe_fmi1(const char *model_identifier, bool model_exchange)
{
    if (model_exchange && !M->model_exchange)
        fail("FMI 1.0 model exchange requested, but the model has no model-exchange part");
    size_t states = 0;
    for (size_t i = 0; i < M->variable_count; i++)
        states += M->variables[i].derivative_of != 0;
    char count[32];
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<fmiModelDescription", out);
    attr("fmiVersion", "1.0");
    attr("modelName", M->model_name);
    attr("modelIdentifier", model_identifier);
    attr("guid", M->instantiation_token);
    attr("description", M->description);
    attr("generationTool", "rtcosim models");
    attr("variableNamingConvention", "structured");
    snprintf(count, sizeof count, "%zu", M->model_exchange ? states : 0);
    attr("numberOfContinuousStates", count);
    snprintf(count, sizeof count, "%zu", M->model_exchange ? M->event_indicator_count : 0);
    attr("numberOfEventIndicators", count);
    fputs(">\n", out);

    /* Section 2.4: units are BaseUnit elements. */
    describe_units_as(out, M, fmi1_has_unit, attr, "BaseUnit", "unit");

    fputs("  <DefaultExperiment", out);
    attr_double("startTime", M->default_start_time);
    attr_double("stopTime", M->default_stop_time);
    attr_double("tolerance", M->default_tolerance);
    fputs("/>\n  <ModelVariables>\n", out);
    for (size_t i = 0; i < M->variable_count; i++) {
        const model_variable *v = &M->variables[i];
        if (v->causality != MODEL_INDEPENDENT && type_name(v->type))
            put_variable(v, v->name, NULL);
    }
#ifdef RTCOSIM_FMU_FMI1_NEGATED_ALIASES
    /* Test variant: every Real output and parameter also as "minus_<name>",
     * a negated alias sharing its value reference (reads -value, sets
     * value = -given). */
    for (size_t i = 0; i < M->variable_count; i++) {
        const model_variable *v = &M->variables[i];
        if ((v->causality != MODEL_OUTPUT && v->causality != MODEL_PARAMETER) ||
            v->type != MODEL_FLOAT64)
            continue;
        char name[256];
        snprintf(name, sizeof name, "minus_%s", v->name);
        put_variable(v, name, "negatedAlias");
    }
#endif
    fputs("  </ModelVariables>\n", out);
    if (!model_exchange)
        fputs("  <Implementation>\n    <CoSimulation_StandAlone>\n      <Capabilities"
              " canHandleVariableCommunicationStepSize=\"true\" canHandleEvents=\"true\""
              " canRejectSteps=\"false\" canInterpolateInputs=\"false\""
              " maxOutputDerivativeOrder=\"0\" canRunAsynchronuously=\"false\""
              " canSignalEvents=\"false\" canBeInstantiatedOnlyOncePerProcess=\"false\""
              " canNotUseMemoryManagementFunctions=\"false\"/>\n"
              "    </CoSimulation_StandAlone>\n  </Implementation>\n",
              out);
    fputs("</fmiModelDescription>\n", out);
}
