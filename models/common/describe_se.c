/* Build-time generator of modelDescription.xml for an FMI 3.0 scheduled-execution
 * model (chapter 5) from its variable table (model.h) and its clock tables
 * (se_model.h): a ScheduledExecution element, the variables with their
 * `clocks` and Binary maxSize/mimeType, and the <Clock> variables. It checks
 * the tables first (references, priorities, clocked references) and fails the
 * build on a mistake. Usage: describe_se MODEL_IDENTIFIER OUTPUT.xml */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "describe_units.h"
#include "instance.h"
#include "se_model.h"

/* Built with DESCRIBE_COSIMULATION=1 for a co-simulation model with Event
 * Mode and clocks (fmi3_cs_clocks_glue.c): a CoSimulation element instead. */
#ifndef DESCRIBE_COSIMULATION
#define DESCRIBE_COSIMULATION 0
#endif

static const model_def *const M = &model_definition;
static const se_model_def *const S = &se_model_definition;
static FILE *xml;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "describe_se %s: ", M->model_name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static void attr(const char *name, const char *value)
{
    if (!value)
        return;
    fprintf(xml, " %s=\"", name);
    for (const char *c = value; *c; c++)
        switch (*c) {
        case '&': fputs("&amp;", xml); break;
        case '<': fputs("&lt;", xml); break;
        case '"': fputs("&quot;", xml); break;
        default: fputc(*c, xml);
        }
    fputc('"', xml);
}

static const se_clock_def *clock_of(uint32_t vr)
{
    for (size_t i = 0; i < S->clock_count; i++)
        if (S->clocks[i].value_reference == vr)
            return &S->clocks[i];
    return NULL;
}

static void check_tables(void)
{
    if (M->variable_count == 0 || strcmp(M->variables[0].name, "time") != 0)
        fail("variable 0 must be the independent Float64 \"time\"");
    for (size_t i = 0; i < M->variable_count; i++) {
        const model_variable *v = &M->variables[i];
        if (v->value_reference != i)
            fail("variable %s: value reference %u is not its index %zu", v->name,
                 (unsigned)v->value_reference, i);
        if (v->dimensions[0])
            fail("variable %s: arrays are not written for scheduled execution", v->name);
    }
    for (size_t i = 0; i < S->clock_count; i++) {
        const se_clock_def *c = &S->clocks[i];
        if (c->value_reference < M->variable_count || clock_of(c->value_reference) != c)
            fail("clock %s: value reference %u is taken", c->name, (unsigned)c->value_reference);
        if (!DESCRIBE_COSIMULATION && c->input != (c->priority >= 0))
            fail("clock %s: input clocks need a priority, output clocks have none (FMI 3.0 "
                 "section 2.4.7.3)", c->name);
    }
    for (size_t i = 0; i < S->clocked_count; i++) {
        const se_clocked_def *d = &S->clocked[i];
        if (d->value_reference >= M->variable_count)
            fail("clocked: value reference %u is no variable", (unsigned)d->value_reference);
        const char *p = d->clocks;
        char *end;
        for (unsigned long vr; (vr = strtoul(p, &end, 10)), end != p; p = end)
            if (!clock_of((uint32_t)vr))
                fail("variable %s: clock %lu does not exist", M->variables[d->value_reference].name,
                     vr);
    }
    for (size_t i = 0; i < S->binary_count; i++)
        if (S->binaries[i].value_reference >= M->variable_count ||
            M->variables[S->binaries[i].value_reference].type != MODEL_BINARY)
            fail("binaries: value reference %u is not a Binary variable",
                 (unsigned)S->binaries[i].value_reference);
}

/* The partitions are linked but never run here. */
#if !DESCRIBE_COSIMULATION
void se_clock_update(model_instance *inst) { (void)inst; }
void se_lock_preemption(model_instance *inst) { (void)inst; }
void se_unlock_preemption(model_instance *inst) { (void)inst; }
#endif

static const char *const type_names[] = {"Float32", "Float64", "Int8",   "UInt8",   "Int16",
                                         "UInt16",  "Int32",   "UInt32", "Int64",   "UInt64",
                                         "Boolean", "String",  "Binary"};
static const char *const causality_names[] = {"parameter", "calculatedParameter", "input",
                                              "output",    "local",               "independent",
                                              "structuralParameter"};
static const char *const variability_names[] = {"constant", "fixed", "tunable", "discrete",
                                                "continuous"};
static const char *const initial_names[] = {NULL, "exact", "approx", "calculated"};

static void write_variable(const model_variable *v)
{
    fprintf(xml, "    <%s", type_names[v->type]);
    attr("name", v->name);
    fprintf(xml, " valueReference=\"%u\"", (unsigned)v->value_reference);
    attr("description", v->description);
    attr("causality", causality_names[v->causality]);
    attr("variability", variability_names[v->variability]);
    attr("initial", initial_names[v->initial]);
    for (size_t i = 0; i < S->clocked_count; i++)
        if (S->clocked[i].value_reference == v->value_reference)
            attr("clocks", S->clocked[i].clocks);
    for (size_t i = 0; i < S->binary_count; i++)
        if (S->binaries[i].value_reference == v->value_reference) {
            fprintf(xml, " maxSize=\"%zu\"", S->binaries[i].max_size);
            attr("mimeType", S->binaries[i].mime_type);
        }
    if (v->type == MODEL_BINARY && v->start) {
        fprintf(xml, ">\n      <Start");
        attr("value", v->start);
        fprintf(xml, "/>\n    </Binary>\n");
        return;
    }
    attr("unit", v->unit);
    attr("start", v->start);
    fprintf(xml, "/>\n");
}

static bool every_variable(const model_variable *v)
{
    (void)v;
    return true;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        fail("usage: describe_se MODEL_IDENTIFIER OUTPUT.xml");
    check_tables();
    xml = fopen(argv[2], "w");
    if (!xml)
        fail("cannot write %s", argv[2]);
    fprintf(xml, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<fmiModelDescription fmiVersion=\"3.0\"");
    attr("modelName", M->model_name);
    attr("description", M->description);
    attr("instantiationToken", M->instantiation_token);
    fprintf(xml, " generationTool=\"rtcosim models/common/describe_se.c\">\n");
    fprintf(xml, DESCRIBE_COSIMULATION ? "  <CoSimulation" : "  <ScheduledExecution");
    attr("modelIdentifier", argv[1]);
    if (DESCRIBE_COSIMULATION)
        fprintf(xml, " canHandleVariableCommunicationStepSize=\"true\" hasEventMode=\"true\"");
    if (DESCRIBE_COSIMULATION && M->evaluate_discrete_states)
        fprintf(xml, " providesEvaluateDiscreteStates=\"true\"");
    fprintf(xml, "/>\n");
    describe_unit_definitions(xml, M, every_variable, attr);
    fprintf(xml, "  <LogCategories>\n");
    for (int c = 0; c < MODEL_LOG_CATEGORY_COUNT; c++) {
        fprintf(xml, "    <Category");
        attr("name", model_log_category_names[c]);
        attr("description", model_log_category_descriptions[c]);
        fprintf(xml, "/>\n");
    }
    fprintf(xml, "  </LogCategories>\n  <DefaultExperiment startTime=\"%.17g\" stopTime=\"%.17g\" "
                 "stepSize=\"%.17g\"/>\n  <ModelVariables>\n",
            M->default_start_time, M->default_stop_time, M->default_step_size);
    for (size_t i = 0; i < M->variable_count; i++)
        write_variable(&M->variables[i]);
    for (size_t i = 0; i < S->clock_count; i++) {
        const se_clock_def *c = &S->clocks[i];
        fprintf(xml, "    <Clock");
        attr("name", c->name);
        fprintf(xml, " valueReference=\"%u\"", (unsigned)c->value_reference);
        attr("description", c->description);
        attr("causality", c->input ? "input" : "output");
        attr("intervalVariability", c->interval_variability);
        attr("intervalDecimal", c->interval_decimal);
        attr("shiftDecimal", c->shift_decimal);
        if (c->priority >= 0)
            fprintf(xml, " priority=\"%d\"", c->priority);
        fprintf(xml, "/>\n");
    }
    fprintf(xml, "  </ModelVariables>\n  <ModelStructure>\n");
    for (size_t i = 0; i < M->variable_count; i++)
        if (M->variables[i].causality == MODEL_OUTPUT)
            fprintf(xml, "    <Output valueReference=\"%u\"/>\n", (unsigned)i);
    for (size_t i = 0; i < S->clock_count; i++)
        if (!S->clocks[i].input)
            fprintf(xml, "    <Output valueReference=\"%u\"/>\n",
                    (unsigned)S->clocks[i].value_reference);
    fprintf(xml, "  </ModelStructure>\n</fmiModelDescription>\n");
    if (fclose(xml) != 0)
        fail("cannot write %s", argv[2]);
    return 0;
}
