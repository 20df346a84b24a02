/* FMI 1.0 model descriptions (FMI for Model Exchange 1.0 chapter 2, FMI for
 * Co-Simulation 1.0 section 2.2): the root's modelIdentifier and guid, the
 * Implementation element telling co-simulation (stand-alone or tool) from
 * model exchange, ScalarVariable variability/causality in 2.0's terms as the
 * 1.0 tables define them, alias/negatedAlias sharing their base's value
 * reference, DefaultExperiment; and the rule breaks that stop a run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "fmi/model_description.h"

#define ROOT(impl, vars)                                                                     \
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"                                           \
    "<fmiModelDescription fmiVersion=\"1.0\" modelName=\"Decay\" modelIdentifier=\"decay\"" \
    " guid=\"{8c4e810f-3df3-4a00-8276-176fa3c9f000}\" numberOfContinuousStates=\"1\"\n"     \
    " numberOfEventIndicators=\"0\">\n"                                                      \
    " <DefaultExperiment startTime=\"0\" stopTime=\"3\" tolerance=\"1e-6\"/>\n"              \
    " <ModelVariables>\n" vars " </ModelVariables>\n" impl "</fmiModelDescription>\n"

#define VARS                                                                                        \
    "  <ScalarVariable name=\"x\" valueReference=\"0\" causality=\"output\">"                        \
    "<Real start=\"1\" fixed=\"true\" unit=\"m\"/></ScalarVariable>\n"                               \
    "  <ScalarVariable name=\"der(x)\" valueReference=\"1\"><Real/></ScalarVariable>\n"              \
    "  <ScalarVariable name=\"k\" valueReference=\"2\" variability=\"parameter\">"                   \
    "<Real start=\"2\"/></ScalarVariable>\n"                                                         \
    "  <ScalarVariable name=\"minus_x\" valueReference=\"0\" alias=\"negatedAlias\" "                \
    "causality=\"output\"><Real/></ScalarVariable>\n"                                                \
    "  <ScalarVariable name=\"y\" valueReference=\"0\" alias=\"alias\"><Real/></ScalarVariable>\n"   \
    "  <ScalarVariable name=\"u\" valueReference=\"3\" causality=\"input\" variability=\"discrete\">" \
    "<Integer start=\"4\"/></ScalarVariable>\n"                                                      \
    "  <ScalarVariable name=\"on\" valueReference=\"4\" variability=\"discrete\" causality=\"output\">" \
    "<Boolean start=\"true\"/></ScalarVariable>\n"                                                   \
    "  <ScalarVariable name=\"off\" valueReference=\"4\" alias=\"negatedAlias\" variability=\"discrete\">" \
    "<Boolean/></ScalarVariable>\n"                                                                  \
    "  <ScalarVariable name=\"c\" valueReference=\"5\" variability=\"constant\">"                    \
    "<Real start=\"9.81\"/></ScalarVariable>\n"

#define STANDALONE                                                                      \
    " <Implementation><CoSimulation_StandAlone><Capabilities "                          \
    "canHandleVariableCommunicationStepSize=\"true\"/></CoSimulation_StandAlone>"       \
    "</Implementation>\n"
#define TOOL                                                                            \
    " <Implementation><CoSimulation_Tool><Capabilities/><Model entryPoint=\"fmu://m\" " \
    "manualStart=\"false\" type=\"application/x-tool\"/></CoSimulation_Tool>"           \
    "</Implementation>\n"

static rtcosim_status parse(const char *xml, rtcosim_fmi_md_interface interface,
                            rtcosim_fmi_md **md, rtcosim_error *err)
{
    return rtcosim_fmi_md_parse_for(xml, strlen(xml), "modelDescription.xml", interface, md, err);
}

static const rtcosim_variable *var(const rtcosim_fmi_md *md, const char *name, size_t *index)
{
    for (size_t i = 0; i < md->variable_count; i++)
        if (strcmp(md->variables[i].name, name) == 0) {
            *index = i;
            return &md->variables[i];
        }
    fail_msg("no variable '%s'", name);
    return NULL;
}

static void test_co_simulation_stand_alone(void **state)
{
    (void)state;
    rtcosim_fmi_md *md = NULL;
    rtcosim_error err;
    const char *xml = ROOT(STANDALONE, VARS);
    if (parse(xml, RTCOSIM_FMI_MD_CO_SIMULATION, &md, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(md->version, RTCOSIM_FMI_1);
    assert_string_equal(md->model_identifier, "decay");
    assert_string_equal(md->instantiation_token, "{8c4e810f-3df3-4a00-8276-176fa3c9f000}");
    assert_true(md->has_co_simulation && !md->has_model_exchange && !md->fmi1_tool);
    assert_true(md->can_handle_variable_step);
    assert_true(md->has_stop && md->stop == 3 && md->has_tolerance && md->tolerance == 1e-6);
    assert_false(md->has_step); /* FMI 1.0 has no stepSize */
    assert_int_equal(md->variable_count, 9);
    size_t i;
    const rtcosim_variable *v = var(md, "x", &i);
    assert_int_equal(v->causality, RTCOSIM_CAUSALITY_OUTPUT);
    assert_int_equal(v->variability, RTCOSIM_VARIABILITY_CONTINUOUS); /* the default */
    assert_int_equal(v->initial, RTCOSIM_INITIAL_APPROX);
    assert_true(v->has_start && v->start.f64 == 1.0);
    assert_string_equal(v->unit, "m");
    assert_false(md->negated[i]);
    v = var(md, "der(x)", &i); /* causality internal (default) -> local */
    assert_int_equal(v->causality, RTCOSIM_CAUSALITY_LOCAL);
    assert_int_equal(v->initial, RTCOSIM_INITIAL_CALCULATED);
    v = var(md, "k", &i); /* variability parameter, causality internal -> parameter */
    assert_int_equal(v->causality, RTCOSIM_CAUSALITY_PARAMETER);
    assert_int_equal(v->variability, RTCOSIM_VARIABILITY_FIXED);
    assert_int_equal(v->initial, RTCOSIM_INITIAL_EXACT);
    v = var(md, "minus_x", &i);
    assert_int_equal(v->value_reference, 0);
    assert_true(md->negated[i]);
    assert_false(v->has_start);
    v = var(md, "y", &i);
    assert_int_equal(v->value_reference, 0);
    assert_false(md->negated[i]);
    v = var(md, "u", &i);
    assert_int_equal(v->type, RTCOSIM_TYPE_INT32);
    assert_int_equal(v->causality, RTCOSIM_CAUSALITY_INPUT);
    assert_int_equal(v->variability, RTCOSIM_VARIABILITY_DISCRETE);
    assert_true(v->has_start && v->start.i64 == 4);
    v = var(md, "off", &i);
    assert_int_equal(v->type, RTCOSIM_TYPE_BOOLEAN);
    assert_true(md->negated[i]);
    v = var(md, "c", &i);
    assert_int_equal(v->variability, RTCOSIM_VARIABILITY_CONSTANT);
    /* Outputs: x, minus_x, on (document order). */
    assert_int_equal(md->output_count, 3);
    assert_string_equal(md->variables[md->output_indices[2]].name, "on");
    rtcosim_fmi_md_free(md);
}

static void test_tool_and_model_exchange(void **state)
{
    (void)state;
    rtcosim_fmi_md *md = NULL;
    rtcosim_error err;
    assert_int_equal(parse(ROOT(TOOL, VARS), RTCOSIM_FMI_MD_CO_SIMULATION, &md, &err), RTCOSIM_OK);
    assert_true(md->fmi1_tool);
    assert_false(md->can_handle_variable_step);
    rtcosim_fmi_md_free(md);
    /* No Implementation: a model-exchange FMU, its sizes from the root. */
    assert_int_equal(parse(ROOT("", VARS), RTCOSIM_FMI_MD_MODEL_EXCHANGE, &md, &err), RTCOSIM_OK);
    assert_true(md->has_model_exchange && !md->has_co_simulation);
    assert_string_equal(md->me_model_identifier, "decay");
    assert_int_equal(md->state_count, 1);
    assert_int_equal(md->event_indicator_count, 0);
    rtcosim_fmi_md_free(md);
    assert_int_equal(parse(ROOT("", VARS), RTCOSIM_FMI_MD_CO_SIMULATION, &md, &err),
                     RTCOSIM_EUNSUPPORTED);
    assert_string_equal(err.message, "modelDescription.xml: an FMI 1.0 model-exchange FMU (no "
                                     "Implementation element) does not support co-simulation");
}

static void expect_error(const char *xml, const char *message)
{
    rtcosim_fmi_md *md = NULL;
    rtcosim_error err;
    assert_int_equal(parse(xml, RTCOSIM_FMI_MD_CO_SIMULATION, &md, &err), RTCOSIM_EFORMAT);
    assert_null(md);
    if (!strstr(err.message, message))
        fail_msg("got \"%s\", want \"%s\"", err.message, message);
}

static void test_rule_breaks_are_errors(void **state)
{
    (void)state;
    expect_error(ROOT(STANDALONE, "<ScalarVariable name=\"a\" valueReference=\"0\" alias=\"twin\">"
                                  "<Real/></ScalarVariable>"),
                 "variable 'a': unknown alias 'twin' (noAlias, alias, negatedAlias)");
    expect_error(ROOT(STANDALONE, "<ScalarVariable name=\"a\" valueReference=\"0\" causality=\"calculatedParameter\">"
                                  "<Real/></ScalarVariable>"),
                 "variable 'a': unknown causality 'calculatedParameter' (FMI 1.0: input, output, "
                 "internal, none)");
    expect_error(ROOT(STANDALONE, "<ScalarVariable name=\"a\" valueReference=\"x\"><Real/></ScalarVariable>"),
                 "variable 'a': bad or missing valueReference 'x'");
    expect_error(ROOT(STANDALONE, "<ScalarVariable name=\"a\" valueReference=\"0\"><Real start=\"one\"/>"
                                  "</ScalarVariable>"),
                 "variable 'a': bad start value 'one'");
    expect_error(ROOT(STANDALONE, "<ScalarVariable name=\"s\" valueReference=\"0\" alias=\"negatedAlias\">"
                                  "<String/></ScalarVariable>"),
                 "variable 's': a String cannot be a negated alias");
    expect_error("<fmiModelDescription fmiVersion=\"1.0\" modelName=\"M\" modelIdentifier=\"../x\" "
                 "guid=\"g\"><ModelVariables/>" STANDALONE "</fmiModelDescription>",
                 "modelIdentifier '../x' is not a C identifier");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_co_simulation_stand_alone),
        cmocka_unit_test(test_tool_and_model_exchange),
        cmocka_unit_test(test_rule_breaks_are_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
