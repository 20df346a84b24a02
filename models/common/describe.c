/* Build-time generator of a model's modelDescription.xml (FMI 1.0, 2.0 or 3.0) from
 * the same variable table the FMU binary is compiled from, so the XML and the
 * binary agree by construction. It first checks the table (value references,
 * start values, derivatives) and fails the build on a mistake.
 * Usage: describe 1|1me|2|3 MODEL_IDENTIFIER OUTPUT.xml (1: FMI 1.0 co-simulation,
 * 1me: FMI 1.0 model exchange; describe_fmi1.c writes those). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "describe.h"
#include "describe_units.h"
#include "instance.h"

static const model_def *const M = &model_definition;
static int fmi_version;

static bool visible(const model_variable *v)
{
    return fmi_version == 3 || model_type_in_fmi2(v->type);
}

void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "describe %s: ", M->model_name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static void emit_to_stderr(model_instance *inst, model_status status, const char *category,
                           const char *message)
{
    (void)inst, (void)status;
    fprintf(stderr, "describe %s: %s: %s\n", M->model_name, category, message);
}

/* The rules the glue relies on and the standard demands (FMI 2.0 section
 * 2.2.7, FMI 3.0 section 2.4.7): checked here once instead of at run time. */
static void check_table(void)
{
    if (M->variable_count == 0 || M->variables[0].causality != MODEL_INDEPENDENT ||
        M->variables[0].type != MODEL_FLOAT64 || strcmp(M->variables[0].name, "time") != 0)
        fail("variable 0 must be the independent Float64 \"time\"");
    for (size_t i = 0; i < M->variable_count; i++) {
        const model_variable *v = &M->variables[i];
        if (v->value_reference != i)
            fail("variable %s: value reference %u is not its index %zu", v->name,
                 (unsigned)v->value_reference, i);
        for (size_t j = 0; j < i; j++)
            if (strcmp(M->variables[j].name, v->name) == 0)
                fail("variable name %s used twice", v->name);
        if (i > 0 && v->causality == MODEL_INDEPENDENT)
            fail("variable %s: only \"time\" may be independent", v->name);
        const bool calculated = v->initial == MODEL_INITIAL_CALCULATED ||
                                (v->initial == MODEL_INITIAL_DEFAULT &&
                                 (v->causality == MODEL_OUTPUT || v->causality == MODEL_LOCAL ||
                                  v->causality == MODEL_CALCULATED_PARAMETER));
        if (calculated && v->start)
            fail("variable %s: a calculated variable must not have a start value", v->name);
        if (!calculated && i > 0 && !v->start)
            fail("variable %s: needs a start value", v->name);
        if (v->derivative_of && M->model_exchange && v->variability != MODEL_CONTINUOUS)
            fail("variable %s: a state derivative must be continuous", v->name);
        if (v->causality == MODEL_STRUCTURAL_PARAMETER &&
            (fmi_version != 3 || v->type != MODEL_UINT64 || !v->start))
            fail("variable %s: a structural parameter must be an FMI 3.0 UInt64 with a start value",
                 v->name);
        for (int d = 0; d < 2 && v->dimensions[d]; d++)
            if (fmi_version != 3 || v->dimensions[d] >= i ||
                M->variables[v->dimensions[d]].causality != MODEL_STRUCTURAL_PARAMETER)
                fail("variable %s: dimension %d is not an earlier structural parameter (FMI 3.0 "
                     "only)", v->name, d + 1);
        if (v->dimensions[0] && (v->type == MODEL_STRING || v->type == MODEL_BINARY))
            fail("variable %s: the glue has numeric and Boolean arrays only", v->name);
        if (v->derivative_of) {
            if (v->derivative_of >= M->variable_count ||
                M->variables[v->derivative_of].type != MODEL_FLOAT64 || v->type != MODEL_FLOAT64)
                fail("variable %s: derivative of a variable that is not a Float64 state", v->name);
        }
    }
    for (size_t k = 0; M->model_exchange && k < M->event_indicator_count; k++)
        if (M->event_indicators[k] >= M->variable_count ||
            M->variables[M->event_indicators[k]].type != MODEL_FLOAT64 ||
            M->event_indicators[k] == 0)
            fail("event indicator %zu is not a Float64 variable", k);
    for (size_t i = 0; i < M->dependency_count; i++) {
        const model_dependency *d = &M->dependencies[i];
        if (d->output >= M->variable_count || M->variables[d->output].causality != MODEL_OUTPUT)
            fail("dependencies: value reference %u is not an output", (unsigned)d->output);
        for (size_t j = 0; j < d->input_count; j++)
            if (d->inputs[j] >= M->variable_count ||
                M->variables[d->inputs[j]].causality != MODEL_INPUT)
                fail("dependencies of %s: value reference %u is not an input",
                     M->variables[d->output].name, (unsigned)d->inputs[j]);
    }
    /* Start values parse the way the glue parses them. */
    model_instance inst = {.calloc_fn = calloc, .free_fn = free, .emit = emit_to_stderr};
    model_instance *heap = calloc(1, sizeof inst);
    if (!heap)
        fail("out of memory");
    *heap = inst;
    bool ok = instance_init(heap, "describe", NULL, false, true);
    instance_destroy(heap);
    if (!ok)
        fail("start values do not parse");
}

FILE *out;

void put_escaped(const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(*s, out);
        }
    }
}

void attr(const char *name, const char *value)
{
    if (!value)
        return;
    fprintf(out, " %s=\"", name);
    put_escaped(value);
    fputc('"', out);
}

void attr_range(uint32_t value_reference)
{
    for (size_t i = 0; i < M->range_count; i++)
        if (M->ranges[i].value_reference == value_reference) {
            attr("min", M->ranges[i].min);
            attr("max", M->ranges[i].max);
        }
}

/* Shortest decimal text that reads back as the same double. */
void attr_double(const char *name, double value)
{
    char text[40];
    if (value == floor(value) && fabs(value) < 1e15) { /* "10", not "1e+01" */
        snprintf(text, sizeof text, "%.0f", value);
        attr(name, text);
        return;
    }
    for (int precision = 1; precision <= 17; precision++) {
        snprintf(text, sizeof text, "%.*g", precision, value);
        if (strtod(text, NULL) == value)
            break;
    }
    attr(name, text);
}

static const char *causality_name(model_causality c)
{
    static const char *const names[] = {"parameter", "calculatedParameter", "input",
                                        "output",    "local",               "independent",
                                        "structuralParameter"};
    return names[c];
}

static const char *variability_name(model_variability v)
{
    static const char *const names[] = {"constant", "fixed", "tunable", "discrete", "continuous"};
    return names[v];
}

static const char *initial_name(model_initial i)
{
    static const char *const names[] = {NULL, "exact", "approx", "calculated"};
    return names[i];
}

static const char *fmi3_type_name(model_type t)
{
    static const char *const names[] = {"Float32", "Float64", "Int8",   "UInt8",  "Int16",
                                        "UInt16",  "Int32",   "UInt32", "Int64",  "UInt64",
                                        "Boolean", "String",  "Binary"};
    return names[t];
}

static const char *fmi2_type_name(model_type t)
{
    switch (t) {
    case MODEL_FLOAT64: return "Real";
    case MODEL_INT32: return "Integer";
    case MODEL_BOOLEAN: return "Boolean";
    default: return "String";
    }
}

/* FMI 2.0 refers to variables by 1-based position among those it lists. */
static size_t fmi2_index(uint32_t vr)
{
    size_t index = 0;
    for (size_t i = 0; i <= vr; i++)
        if (visible(&M->variables[i]))
            index++;
    return index;
}

static bool is_derivative(const model_variable *v) { return v->derivative_of != 0; }

static bool is_state(uint32_t vr)
{
    for (size_t i = 0; i < M->variable_count; i++)
        if (M->variables[i].derivative_of == vr)
            return true;
    return false;
}

/* FMI 2.0 section 2.2.8 / FMI 3.0 section 2.4.8: InitialUnknowns are the
 * outputs, calculated parameters, states and derivatives whose initial value
 * the FMU computes. */
static bool is_initial_unknown(const model_variable *v)
{
    const bool computed = v->initial == MODEL_INITIAL_CALCULATED ||
                          v->initial == MODEL_INITIAL_APPROX ||
                          (v->initial == MODEL_INITIAL_DEFAULT &&
                           (v->causality == MODEL_OUTPUT ||
                            v->causality == MODEL_CALCULATED_PARAMETER));
    return computed && (v->causality == MODEL_OUTPUT || v->causality == MODEL_CALCULATED_PARAMETER ||
                        is_derivative(v) || is_state(v->value_reference));
}

static void put_header(const char *model_identifier)
{
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<fmiModelDescription", out);
    attr("fmiVersion", fmi_version == 2 ? "2.0" : "3.0");
    attr("modelName", M->model_name);
    attr(fmi_version == 2 ? "guid" : "instantiationToken", M->instantiation_token);
    attr("description", M->description);
    attr("generationTool", "rtcosim models");
    attr("variableNamingConvention", "structured");
    if (fmi_version == 2) {
        char count[32];
        snprintf(count, sizeof count, "%zu", M->model_exchange ? M->event_indicator_count : 0);
        attr("numberOfEventIndicators", count);
    }
    fputs(">\n", out);
    if (M->model_exchange) {
        /* FMI 2.0 section 3.3 / FMI 3.0 section 3.3: the same binary. */
        fputs("  <ModelExchange", out);
        attr("modelIdentifier", model_identifier);
        attr(fmi_version == 2 ? "canGetAndSetFMUstate" : "canGetAndSetFMUState", "true");
        attr(fmi_version == 2 ? "canSerializeFMUstate" : "canSerializeFMUState", "true");
        if (fmi_version == 2)
            attr("completedIntegratorStepNotNeeded", "true");
        fputs("/>\n", out);
    }
#ifndef RTCOSIM_FMU_MODEL_EXCHANGE_ONLY /* test variant: no CoSimulation element */
    fputs("  <CoSimulation", out);
    attr("modelIdentifier", model_identifier);
#ifdef RTCOSIM_FMU_FIXED_COMMUNICATION_STEP /* test variant: refuses step control */
    attr("canHandleVariableCommunicationStepSize", "false");
#else
    attr("canHandleVariableCommunicationStepSize", "true");
#endif
#ifdef RTCOSIM_FMU_ONCE_PER_PROCESS /* test variant: one instance per loaded library */
    attr("canBeInstantiatedOnlyOncePerProcess", "true");
#endif
    attr(fmi_version == 2 ? "canGetAndSetFMUstate" : "canGetAndSetFMUState", "true");
    attr(fmi_version == 2 ? "canSerializeFMUstate" : "canSerializeFMUState", "true");
    if (fmi_version == 3) {
        /* cs_events.c: models with step_to_event stop at their events. */
        attr("hasEventMode", M->step_to_event ? "true" : "false");
        if (M->step_to_event)
            attr("canReturnEarlyAfterIntermediateUpdate", "true");
        attr("providesIntermediateUpdate", "false");
        if (M->evaluate_discrete_states)
            attr("providesEvaluateDiscreteStates", "true");
    }
    fputs("/>\n", out);
#endif

    describe_unit_definitions(out, M, visible, attr);

    fputs("  <LogCategories>\n", out);
    for (int c = 0; c < MODEL_LOG_CATEGORY_COUNT; c++) {
        fputs("    <Category", out);
        attr("name", model_log_category_names[c]);
        attr("description", model_log_category_descriptions[c]);
        fputs("/>\n", out);
    }
    fputs("  </LogCategories>\n  <DefaultExperiment", out);
    attr_double("startTime", M->default_start_time);
    attr_double("stopTime", M->default_stop_time);
    attr_double("tolerance", M->default_tolerance);
    attr_double("stepSize", M->default_step_size);
    fputs("/>\n", out);
}

static void put_common_attributes(const model_variable *v)
{
    attr("name", v->name);
    fprintf(out, " valueReference=\"%u\"", (unsigned)v->value_reference);
    attr("description", v->description);
    attr("causality", causality_name(v->causality));
    attr("variability", variability_name(v->variability));
    attr("initial", initial_name(v->initial));
}

static void put_variable_fmi2(const model_variable *v)
{
    fputs("    <ScalarVariable", out);
    put_common_attributes(v);
    fprintf(out, ">\n      <%s", fmi2_type_name(v->type));
    if (v->type == MODEL_FLOAT64)
        attr("unit", v->unit);
    attr_range(v->value_reference);
    attr("start", v->start);
    if (v->derivative_of)
        fprintf(out, " derivative=\"%zu\"", fmi2_index(v->derivative_of));
    fputs("/>\n    </ScalarVariable>\n", out);
}

static void put_variable_fmi3(const model_variable *v)
{
    fprintf(out, "    <%s", fmi3_type_name(v->type));
    put_common_attributes(v);
    if (v->type == MODEL_FLOAT64 || v->type == MODEL_FLOAT32)
        attr("unit", v->unit);
    attr_range(v->value_reference);
    if (v->derivative_of)
        fprintf(out, " derivative=\"%u\"", (unsigned)v->derivative_of);
    /* String and Binary start values are elements (they may be arrays). */
    if ((v->type == MODEL_STRING || v->type == MODEL_BINARY) && v->start) {
        fputs(">\n      <Start", out);
        attr("value", v->start);
        fprintf(out, "/>\n    </%s>\n", fmi3_type_name(v->type));
        return;
    }
    attr("start", v->start);
    size_t aliases = 0;
    for (size_t a = 0; a < M->alias_count; a++)
        aliases += M->aliases[a].value_reference == v->value_reference;
    if (!v->dimensions[0] && !aliases) {
        fputs("/>\n", out);
        return;
    }
    fputs(">\n", out);
    for (size_t a = 0; a < M->alias_count; a++) /* (the schema: Alias before Dimension) */
        if (M->aliases[a].value_reference == v->value_reference) {
            fputs("      <Alias", out);
            attr("name", M->aliases[a].name);
            fputs("/>\n", out);
        }
    for (int d = 0; d < 2 && v->dimensions[d]; d++)
        fprintf(out, "      <Dimension valueReference=\"%u\"/>\n", (unsigned)v->dimensions[d]);
    fprintf(out, "    </%s>\n", fmi3_type_name(v->type));
}

/* An output's direct feedthrough as the `dependencies` attribute (FMI 2.0
 * section 2.2.8: ScalarVariable indices; FMI 3.0 section 2.4.8: value
 * references); see model_def.dependencies for when it is written. */
static void put_output_dependencies(const model_variable *v)
{
    for (size_t i = 0; i < M->variable_count; i++)
        if (M->variables[i].derivative_of)
            return;
    const model_dependency *d = NULL;
    for (size_t i = 0; i < M->dependency_count; i++)
        if (M->dependencies[i].output == v->value_reference)
            d = &M->dependencies[i];
    if (!M->dependencies && M->evaluate)
        return;
    fputs(" dependencies=\"", out);
    for (size_t j = 0; d && j < d->input_count; j++) {
        size_t ref = fmi_version == 2 ? fmi2_index(d->inputs[j]) : d->inputs[j];
        fprintf(out, "%s%zu", j ? " " : "", ref);
    }
    fputc('"', out);
}

static void put_unknown(const char *fmi3_element, const model_variable *v)
{
    if (fmi_version == 2)
        fprintf(out, "      <Unknown index=\"%zu\"", fmi2_index(v->value_reference));
    else
        fprintf(out, "    <%s valueReference=\"%u\"", fmi3_element, (unsigned)v->value_reference);
    if (strcmp(fmi3_element, "Output") == 0)
        put_output_dependencies(v);
    fputs("/>\n", out);
}

/* Writes one ModelStructure list; FMI 2.0 wraps it in an element, FMI 3.0
 * repeats the element per variable. */
static void put_structure_list(const char *fmi2_list, const char *fmi3_element,
                               bool (*member)(const model_variable *))
{
    bool any = false;
    for (size_t i = 0; i < M->variable_count; i++) {
        const model_variable *v = &M->variables[i];
        if (!visible(v) || !member(v))
            continue;
        if (!any && fmi_version == 2)
            fprintf(out, "    <%s>\n", fmi2_list);
        any = true;
        put_unknown(fmi3_element, v);
    }
    if (any && fmi_version == 2)
        fprintf(out, "    </%s>\n", fmi2_list);
}

static bool is_output(const model_variable *v) { return v->causality == MODEL_OUTPUT; }

int main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[1], "1") != 0 && strcmp(argv[1], "1me") != 0 &&
                      strcmp(argv[1], "2") != 0 && strcmp(argv[1], "3") != 0))
        fail("usage: describe 1|1me|2|3 MODEL_IDENTIFIER OUTPUT.xml");
    fmi_version = atoi(argv[1]);
    check_table();
    out = fopen(argv[3], "w");
    if (!out)
        fail("cannot write %s", argv[3]);
    if (fmi_version == 1) {
        describe_fmi1(argv[2], strcmp(argv[1], "1me") == 0);
        if (fclose(out) != 0)
            fail("cannot write %s", argv[3]);
        return 0;
    }
    put_header(argv[2]);
    fputs("  <ModelVariables>\n", out);
    for (size_t i = 0; i < M->variable_count; i++) {
        const model_variable *v = &M->variables[i];
        if (!visible(v))
            continue;
        if (fmi_version == 2)
            put_variable_fmi2(v);
        else
            put_variable_fmi3(v);
    }
    fputs("  </ModelVariables>\n  <ModelStructure>\n", out);
    put_structure_list("Outputs", "Output", is_output);
    put_structure_list("Derivatives", "ContinuousStateDerivative", is_derivative);
    put_structure_list("InitialUnknowns", "InitialUnknown", is_initial_unknown);
    /* FMI 3.0 lists event indicators as variables (section 2.4.8); FMI 2.0
     * only counts them (numberOfEventIndicators). */
    if (fmi_version == 3 && M->model_exchange)
        for (size_t k = 0; k < M->event_indicator_count; k++)
            fprintf(out, "    <EventIndicator valueReference=\"%u\"/>\n",
                    (unsigned)M->event_indicators[k]);
    fputs("  </ModelStructure>\n</fmiModelDescription>\n", out);
    if (fclose(out) != 0)
        fail("cannot write %s", argv[3]);
    return 0;
}
