/* modelDescription.xml parsing and validation: hand-written FMI 2.0 and 3.0
 * descriptions come out as the variables the standard defines (defaults from
 * its tables included); every rule whose violation stops a correct run
 * rejects a violating description with the variable's name in the message,
 * and every rule the Reference FMUs and fmusim do not enforce warns naming
 * the variable and rejects only with strict parsing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fmi/fmu_internal.h"
#include "fmi/model_description.h"
#include "util/test_util.h"
#include "rtcosim/log.h"

static rtcosim_status parse(const char *xml, rtcosim_fmi_md **md, rtcosim_error *err)
{
    return rtcosim_fmi_md_parse(xml, strlen(xml), "modelDescription.xml", md, err);
}

static const char fmi2_tank[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"Tank\" guid=\"{abc}\"\n"
    "  description=\"A tank\" author=\"Ann\" version=\"1.2\" generationTool=\"handwritten\"\n"
    "  generationDateAndTime=\"2024-01-02T03:04:05Z\">\n"
    "  <CoSimulation modelIdentifier=\"tank\" canHandleVariableCommunicationStepSize=\"true\"\n"
    "    canGetAndSetFMUstate=\"true\" canSerializeFMUstate=\"false\"\n"
    "    providesDirectionalDerivative=\"true\" canInterpolateInputs=\"1\"\n"
    "    maxOutputDerivativeOrder=\"2\"/>\n"
    "  <UnitDefinitions><Unit name=\"m\"/></UnitDefinitions>\n"
    "  <TypeDefinitions>\n"
    "    <SimpleType name=\"Length\"><Real quantity=\"Length\" unit=\"m\"/></SimpleType>\n"
    "    <SimpleType name=\"Mode\"><Enumeration><Item name=\"off\" value=\"1\"/>"
    "<Item name=\"on\" value=\"2\"/></Enumeration></SimpleType>\n"
    "  </TypeDefinitions>\n"
    "  <DefaultExperiment startTime=\"0.5\" stopTime=\"10\" tolerance=\"1e-6\" stepSize=\"0.01\"/>\n"
    "  <ModelVariables>\n"
    "    <ScalarVariable name=\"time\" valueReference=\"0\" causality=\"independent\" variability=\"continuous\"><Real/></ScalarVariable>\n"
    "    <ScalarVariable name=\"h\" valueReference=\"1\" causality=\"output\" initial=\"exact\" description=\"level\"><Real declaredType=\"Length\" start=\"2.5\"/></ScalarVariable>\n"
    "    <ScalarVariable name=\"der(h)\" valueReference=\"2\"><Real derivative=\"2\" unit=\"m/s\"/></ScalarVariable>\n"
    "    <ScalarVariable name=\"inflow\" valueReference=\"3\" causality=\"input\"><Real start=\"-1e-3\"/></ScalarVariable>\n"
    "    <ScalarVariable name=\"count\" valueReference=\"0\" causality=\"parameter\" variability=\"fixed\"><Integer start=\"010\"/></ScalarVariable>\n"
    "    <ScalarVariable name=\"full\" valueReference=\"0\" causality=\"output\"><Boolean/></ScalarVariable>\n"
    "    <ScalarVariable name=\"label\" valueReference=\"0\" causality=\"parameter\" variability=\"tunable\"><String start=\"tank &amp; co\"/></ScalarVariable>\n"
    "    <ScalarVariable name=\"mode\" valueReference=\"1\" causality=\"parameter\" variability=\"fixed\"><Enumeration declaredType=\"Mode\" start=\"2\"/></ScalarVariable>\n"
    "    <ScalarVariable name=\"h_alias\" valueReference=\"1\"><Real/></ScalarVariable>\n"
    "  </ModelVariables>\n"
    "  <ModelStructure>\n"
    "    <Outputs><Unknown index=\"2\"/><Unknown index=\"6\"/></Outputs>\n"
    "    <Derivatives><Unknown index=\"3\"/></Derivatives>\n"
    "  </ModelStructure>\n"
    "</fmiModelDescription>\n";

static void fmi2_description_gives_identity_capabilities_and_experiment(void **state)
{
    (void)state;
    rtcosim_fmi_md *md;
    rtcosim_error err;
    assert_int_equal(parse(fmi2_tank, &md, &err), RTCOSIM_OK);
    assert_int_equal(md->version, RTCOSIM_FMI_2);
    assert_string_equal(md->fmi_version_text, "2.0");
    assert_string_equal(md->model_name, "Tank");
    assert_string_equal(md->instantiation_token, "{abc}");
    assert_string_equal(md->description, "A tank");
    assert_string_equal(md->author, "Ann");
    assert_string_equal(md->model_version, "1.2");
    assert_string_equal(md->generation_tool, "handwritten");
    assert_string_equal(md->generation_date, "2024-01-02T03:04:05Z");
    assert_string_equal(md->model_identifier, "tank");
    assert_true(md->can_handle_variable_step);
    assert_true(md->can_get_set_state);
    assert_false(md->can_serialize_state);
    assert_true(md->provides_directional_derivatives);
    assert_true(md->can_interpolate_inputs);
    assert_int_equal(md->max_output_derivative_order, 2);
    assert_true(md->has_start && md->has_stop && md->has_tolerance && md->has_step);
    assert_true(md->start == 0.5 && md->stop == 10.0 && md->tolerance == 1e-6 && md->step == 0.01);
    rtcosim_fmi_md_free(md);
}

static void fmi2_variables_get_standard_defaults(void **state)
{
    (void)state;
    rtcosim_fmi_md *md;
    rtcosim_error err;
    assert_int_equal(parse(fmi2_tank, &md, &err), RTCOSIM_OK);
    assert_int_equal(md->variable_count, 9);
    const rtcosim_variable *v = md->variables;

    assert_string_equal(v[0].name, "time");
    assert_int_equal(v[0].causality, RTCOSIM_CAUSALITY_INDEPENDENT);
    assert_int_equal(v[0].initial, RTCOSIM_INITIAL_NONE);
    assert_false(v[0].has_start);

    assert_string_equal(v[1].name, "h");
    assert_int_equal(v[1].type, RTCOSIM_TYPE_FLOAT64);
    assert_int_equal(v[1].value_reference, 1);
    assert_int_equal(v[1].causality, RTCOSIM_CAUSALITY_OUTPUT);
    assert_int_equal(v[1].variability, RTCOSIM_VARIABILITY_CONTINUOUS);
    assert_int_equal(v[1].initial, RTCOSIM_INITIAL_EXACT);
    assert_true(v[1].has_start && v[1].start.f64 == 2.5);
    assert_string_equal(v[1].unit, "m"); /* from the declared type Length */
    assert_string_equal(v[1].description, "level");
    assert_int_equal(v[1].derivative_of, -1);

    /* No causality/variability/initial: local, continuous, calculated. */
    assert_string_equal(v[2].name, "der(h)");
    assert_int_equal(v[2].causality, RTCOSIM_CAUSALITY_LOCAL);
    assert_int_equal(v[2].variability, RTCOSIM_VARIABILITY_CONTINUOUS);
    assert_int_equal(v[2].initial, RTCOSIM_INITIAL_CALCULATED);
    assert_int_equal(v[2].derivative_of, 1);
    assert_string_equal(v[2].unit, "m/s");

    assert_int_equal(v[3].causality, RTCOSIM_CAUSALITY_INPUT);
    assert_int_equal(v[3].initial, RTCOSIM_INITIAL_NONE);
    assert_true(v[3].has_start && v[3].start.f64 == -1e-3);

    /* xs:int is decimal: "010" is ten, not octal eight. */
    assert_int_equal(v[4].type, RTCOSIM_TYPE_INT32);
    assert_int_equal(v[4].initial, RTCOSIM_INITIAL_EXACT);
    assert_int_equal(v[4].start.i64, 10);

    /* A Boolean output without variability is discrete. */
    assert_int_equal(v[5].type, RTCOSIM_TYPE_BOOLEAN);
    assert_int_equal(v[5].variability, RTCOSIM_VARIABILITY_DISCRETE);
    assert_int_equal(v[5].initial, RTCOSIM_INITIAL_CALCULATED);

    assert_int_equal(v[6].type, RTCOSIM_TYPE_STRING);
    assert_string_equal(v[6].start.s, "tank & co");

    assert_int_equal(v[7].type, RTCOSIM_TYPE_INT32); /* Enumeration */
    assert_int_equal(v[7].start.i64, 2);

    /* An alias of h (same Real value reference) is accepted. */
    assert_string_equal(v[8].name, "h_alias");
    assert_int_equal(v[8].value_reference, 1);

    assert_int_equal(md->output_count, 2);
    assert_int_equal(md->output_indices[0], 1);
    assert_int_equal(md->output_indices[1], 5);
    rtcosim_fmi_md_free(md);
}

static const char fmi3_mix[] =
    "<fmiModelDescription fmiVersion=\"3.0\" modelName=\"Mix\" instantiationToken=\"{tok}\">\n"
    "  <CoSimulation modelIdentifier=\"mix\" canHandleVariableCommunicationStepSize=\"true\"\n"
    "    canGetAndSetFMUState=\"true\" canSerializeFMUState=\"true\"\n"
    "    providesDirectionalDerivatives=\"false\" canReturnEarlyAfterIntermediateUpdate=\"true\"\n"
    "    hasEventMode=\"true\" providesIntermediateUpdate=\"false\"/>\n"
    "  <TypeDefinitions>\n"
    "    <Float64Type name=\"Temp\" unit=\"K\"/>\n"
    "    <EnumerationType name=\"Mode\"><Item name=\"a\" value=\"3\"/></EnumerationType>\n"
    "  </TypeDefinitions>\n"
    "  <DefaultExperiment stopTime=\"2\"/>\n"
    "  <ModelVariables>\n"
    "    <Float64 name=\"time\" valueReference=\"0\" causality=\"independent\" variability=\"continuous\"/>\n"
    "    <Float64 name=\"T\" valueReference=\"1\" causality=\"output\" declaredType=\"Temp\" initial=\"exact\" start=\"293.15\"/>\n"
    "    <Float64 name=\"der(T)\" valueReference=\"2\" derivative=\"1\"/>\n"
    "    <Float32 name=\"gain\" valueReference=\"3\" causality=\"parameter\" variability=\"tunable\" start=\"0.5\"/>\n"
    "    <Int8 name=\"i8\" valueReference=\"4\" causality=\"input\" start=\"-128\"/>\n"
    "    <UInt64 name=\"big\" valueReference=\"5\" causality=\"parameter\" variability=\"fixed\" start=\"18446744073709551615\"/>\n"
    "    <Boolean name=\"on\" valueReference=\"6\" causality=\"input\" start=\"true\"/>\n"
    "    <String name=\"tag\" valueReference=\"7\" causality=\"parameter\" variability=\"fixed\"><Start value=\"hello\"/></String>\n"
    "    <Binary name=\"blob\" valueReference=\"8\" causality=\"parameter\" variability=\"fixed\"><Start value=\"0A0bFF\"/></Binary>\n"
    "    <Clock name=\"tick\" valueReference=\"9\" causality=\"input\" intervalVariability=\"triggered\"/>\n"
    "    <Enumeration name=\"mode\" valueReference=\"10\" declaredType=\"Mode\" causality=\"parameter\" variability=\"fixed\" start=\"3\"/>\n"
    "    <UInt16 name=\"count\" valueReference=\"11\" causality=\"output\"><Alias name=\"n\" description=\"another name\"/></UInt16>\n"
    "  </ModelVariables>\n"
    "  <ModelStructure>\n"
    "    <Output valueReference=\"1\"/><Output valueReference=\"11\"/>\n"
    "    <ContinuousStateDerivative valueReference=\"2\"/>\n"
    "  </ModelStructure>\n"
    "</fmiModelDescription>\n";

static void fmi3_description_gives_every_scalar_type(void **state)
{
    (void)state;
    rtcosim_fmi_md *md;
    rtcosim_error err;
    assert_int_equal(parse(fmi3_mix, &md, &err), RTCOSIM_OK);
    assert_int_equal(md->version, RTCOSIM_FMI_3);
    assert_string_equal(md->instantiation_token, "{tok}");
    assert_string_equal(md->model_identifier, "mix");
    assert_true(md->can_get_set_state && md->can_serialize_state);
    assert_true(md->can_return_early && md->has_event_mode);
    assert_false(md->provides_intermediate_update || md->provides_directional_derivatives);
    assert_false(md->has_start);
    assert_true(md->has_stop && md->stop == 2.0);
    const rtcosim_variable *v = md->variables;
    assert_string_equal(v[1].unit, "K");
    assert_true(v[1].start.f64 == 293.15);
    assert_int_equal(v[2].derivative_of, 1); /* derivative="1" is T's value reference */
    assert_int_equal(v[3].type, RTCOSIM_TYPE_FLOAT32);
    assert_true(v[3].start.f32 == 0.5f);
    assert_int_equal(v[3].variability, RTCOSIM_VARIABILITY_TUNABLE);
    assert_int_equal(v[4].type, RTCOSIM_TYPE_INT8);
    assert_int_equal(v[4].start.i64, -128);
    assert_int_equal(v[4].variability, RTCOSIM_VARIABILITY_DISCRETE);
    assert_int_equal(v[5].type, RTCOSIM_TYPE_UINT64);
    assert_true(v[5].start.u64 == UINT64_MAX);
    assert_int_equal(v[6].type, RTCOSIM_TYPE_BOOLEAN);
    assert_true(v[6].start.b);
    assert_int_equal(v[7].type, RTCOSIM_TYPE_STRING);
    assert_string_equal(v[7].start.s, "hello");
    assert_int_equal(v[8].type, RTCOSIM_TYPE_BINARY);
    assert_int_equal(v[8].start.bin.size, 3);
    assert_int_equal(v[8].start.bin.data[0], 0x0A);
    assert_int_equal(v[8].start.bin.data[1], 0x0B);
    assert_int_equal(v[8].start.bin.data[2], 0xFF);
    assert_int_equal(v[9].type, RTCOSIM_TYPE_CLOCK);
    assert_int_equal(v[9].causality, RTCOSIM_CAUSALITY_INPUT);
    assert_false(v[9].has_start);
    assert_int_equal(v[10].type, RTCOSIM_TYPE_INT64); /* FMI 3 Enumeration */
    assert_int_equal(v[10].start.i64, 3);
    assert_int_equal(v[11].type, RTCOSIM_TYPE_UINT16);
    assert_int_equal(v[11].initial, RTCOSIM_INITIAL_CALCULATED);
    /* The Alias child is one more variable: same reference, own name. */
    assert_int_equal(md->variable_count, 13);
    assert_string_equal(v[12].name, "n");
    assert_string_equal(v[12].description, "another name");
    assert_int_equal(v[12].value_reference, 11);
    assert_int_equal(v[12].type, RTCOSIM_TYPE_UINT16);
    assert_int_equal(v[12].causality, RTCOSIM_CAUSALITY_OUTPUT);
    assert_int_equal(md->output_count, 2);
    assert_int_equal(md->output_indices[0], 1);
    assert_int_equal(md->output_indices[1], 11);
    rtcosim_fmi_md_free(md);
}

/* ---- Rejections ---- */

static char doc[16384];

static const char *fmi2_doc(const char *variables, const char *outputs)
{
    snprintf(doc, sizeof doc,
             "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"M\" guid=\"g\">"
             "<CoSimulation modelIdentifier=\"m\"/><ModelVariables>%s</ModelVariables>"
             "<ModelStructure><Outputs>%s</Outputs></ModelStructure></fmiModelDescription>",
             variables, outputs ? outputs : "");
    return doc;
}

static const char *fmi3_doc(const char *variables, const char *structure)
{
    snprintf(doc, sizeof doc,
             "<fmiModelDescription fmiVersion=\"3.0\" modelName=\"M\" instantiationToken=\"g\">"
             "<CoSimulation modelIdentifier=\"m\"/><ModelVariables>%s</ModelVariables>"
             "<ModelStructure>%s</ModelStructure></fmiModelDescription>",
             variables, structure ? structure : "");
    return doc;
}

typedef struct rejection {
    const char *what;
    int version;
    const char *variables;
    const char *structure;
    rtcosim_status status;
    const char *message; /* expected substring */
} rejection;

#define SV(attrs, type_element) "<ScalarVariable " attrs ">" type_element "</ScalarVariable>"

static const rejection rejections[] = {
    {"duplicate name", 2,
     SV("name=\"x\" valueReference=\"1\"", "<Real/>") SV("name=\"x\" valueReference=\"2\"", "<Real/>"),
     NULL, RTCOSIM_EFORMAT, "variable 'x': name is not unique"},
    {"FMI 3 value reference used twice across types", 3,
     "<Float64 name=\"a\" valueReference=\"7\"/><Int32 name=\"b\" valueReference=\"7\" causality=\"output\"/>",
     "<Output valueReference=\"7\"/>", RTCOSIM_EFORMAT, "variable 'b': valueReference 7 is already used by 'a'"},
    {"parameter that is continuous", 2,
     SV("name=\"p\" valueReference=\"1\" causality=\"parameter\" variability=\"continuous\"", "<Real start=\"1\"/>"),
     NULL, RTCOSIM_EFORMAT, "variable 'p': causality 'parameter' with variability 'continuous' is not allowed"},
    {"input that is constant", 2,
     SV("name=\"u\" valueReference=\"1\" causality=\"input\" variability=\"constant\"", "<Real start=\"1\"/>"),
     NULL, RTCOSIM_EFORMAT, "variable 'u': causality 'input' with variability 'constant'"},
    {"parameter with initial calculated", 2,
     SV("name=\"p\" valueReference=\"1\" causality=\"parameter\" variability=\"fixed\" initial=\"calculated\"", "<Real/>"),
     NULL, RTCOSIM_EFORMAT, "variable 'p': initial 'calculated' is not allowed"},
    {"unknown causality", 2, SV("name=\"q\" valueReference=\"1\" causality=\"sideways\"", "<Real/>"),
     NULL, RTCOSIM_EFORMAT, "variable 'q': unknown causality 'sideways'"},
    {"Real start that is not a number", 2,
     SV("name=\"k\" valueReference=\"1\" causality=\"parameter\" variability=\"fixed\"", "<Real start=\"abc\"/>"),
     NULL, RTCOSIM_EFORMAT, "variable 'k': start value 'abc' is not a valid Float64 value"},
    {"Integer start beyond 32 bits", 2,
     SV("name=\"n\" valueReference=\"1\" causality=\"parameter\" variability=\"fixed\"", "<Integer start=\"3000000000\"/>"),
     NULL, RTCOSIM_EFORMAT, "variable 'n': start value '3000000000' is not a valid Int32 value"},
    {"Boolean start that is not a boolean", 2,
     SV("name=\"b\" valueReference=\"1\" causality=\"parameter\" variability=\"fixed\"", "<Boolean start=\"yes\"/>"),
     NULL, RTCOSIM_EFORMAT, "variable 'b': start value 'yes' is not a valid Boolean value"},
    {"Int8 start out of range", 3,
     "<Int8 name=\"i\" valueReference=\"1\" causality=\"parameter\" variability=\"fixed\" start=\"128\"/>",
     NULL, RTCOSIM_EFORMAT, "variable 'i': start value '128' is not a valid Int8 value"},
    {"UInt8 start negative", 3,
     "<UInt8 name=\"u\" valueReference=\"1\" causality=\"parameter\" variability=\"fixed\" start=\"-1\"/>",
     NULL, RTCOSIM_EFORMAT, "variable 'u': start value '-1' is not a valid UInt8 value"},
    {"Float32 start beyond its range", 3,
     "<Float32 name=\"f\" valueReference=\"1\" causality=\"parameter\" variability=\"fixed\" start=\"1e39\"/>",
     NULL, RTCOSIM_EFORMAT, "variable 'f': start value '1e39' is not a valid Float32 value"},
    {"Binary start with odd hex digits", 3,
     "<Binary name=\"b\" valueReference=\"1\" causality=\"parameter\" variability=\"fixed\"><Start value=\"ABC\"/></Binary>",
     NULL, RTCOSIM_EFORMAT, "variable 'b': start value 'ABC' is not a valid Binary value"},
    {"missing value reference", 2, SV("name=\"x\"", "<Real/>"), NULL, RTCOSIM_EFORMAT,
     "variable 'x': valueReference '(missing)'"},
};

/* Rules the standard states whose violation does not stop a correct run
 * (the Reference FMUs and fmusim accept such descriptions): a warning
 * naming the variable by default, an error with strict parsing. */
static const rejection lenients[] = {
    {"FMI 2 alias with a different start", 2,
     SV("name=\"a\" valueReference=\"1\" causality=\"parameter\" variability=\"fixed\"", "<Real start=\"1\"/>")
     SV("name=\"b\" valueReference=\"1\" causality=\"parameter\" variability=\"fixed\"", "<Real start=\"2\"/>"),
     NULL, RTCOSIM_EFORMAT, "variable 'b': alias of 'a'"},
    {"continuous Integer", 2,
     SV("name=\"n\" valueReference=\"1\" variability=\"continuous\"", "<Integer/>"), NULL,
     RTCOSIM_EFORMAT, "variable 'n': variability 'continuous' needs a Real variable"},
    {"input with initial", 2,
     SV("name=\"u\" valueReference=\"1\" causality=\"input\" initial=\"exact\"", "<Real start=\"1\"/>"),
     NULL, RTCOSIM_EFORMAT, "variable 'u': initial 'exact' is not allowed"},
    {"input without start", 2, SV("name=\"u\" valueReference=\"1\" causality=\"input\"", "<Real/>"),
     NULL, RTCOSIM_EFORMAT, "variable 'u': input needs a start value"},
    {"parameter without start", 2,
     SV("name=\"p\" valueReference=\"1\" causality=\"parameter\" variability=\"fixed\"", "<Real/>"),
     NULL, RTCOSIM_EFORMAT, "variable 'p': initial 'exact' needs a start value"},
    {"approx local without start", 2,
     SV("name=\"z\" valueReference=\"1\" initial=\"approx\"", "<Real/>"), NULL, RTCOSIM_EFORMAT,
     "variable 'z': initial 'approx' needs a start value"},
    {"calculated output with start", 2,
     SV("name=\"y\" valueReference=\"1\" causality=\"output\"", "<Real start=\"0\"/>"),
     "<Unknown index=\"1\"/>", RTCOSIM_EFORMAT,
     "variable 'y': a start value is not allowed with initial 'calculated'"},
    {"independent with start", 2,
     SV("name=\"t\" valueReference=\"1\" causality=\"independent\"", "<Real start=\"0\"/>"), NULL,
     RTCOSIM_EFORMAT, "variable 't': a start value is not allowed with causality 'independent'"},
    {"FMI 2 derivative index out of range", 2,
     SV("name=\"d\" valueReference=\"1\"", "<Real derivative=\"5\"/>"), NULL, RTCOSIM_EFORMAT,
     "variable 'd': derivative '5' does not refer to a Real variable"},
    {"FMI 2 derivative of an Integer", 2,
     SV("name=\"n\" valueReference=\"1\"", "<Integer/>") SV("name=\"d\" valueReference=\"2\"", "<Real derivative=\"1\"/>"),
     NULL, RTCOSIM_EFORMAT, "variable 'd': derivative '1' does not refer to a Real variable"},
    {"FMI 3 derivative of an unknown value reference", 3,
     "<Float64 name=\"d\" valueReference=\"1\" derivative=\"99\"/>", NULL, RTCOSIM_EFORMAT,
     "variable 'd': derivative '99' does not refer to a float variable"},
    {"FMI 2 output list naming a local", 2, SV("name=\"x\" valueReference=\"1\"", "<Real/>"),
     "<Unknown index=\"1\"/>", RTCOSIM_EFORMAT,
     "ModelStructure output index='1' refers to variable 'x', which is not an output"},
    {"FMI 2 output list index out of range", 2,
     SV("name=\"y\" valueReference=\"1\" causality=\"output\"", "<Real/>"), "<Unknown index=\"2\"/>",
     RTCOSIM_EFORMAT, "ModelStructure output index='2' refers to no variable"},
    {"FMI 3 output list with unknown reference", 3,
     "<Float64 name=\"y\" valueReference=\"1\" causality=\"output\"/>",
     "<Output valueReference=\"4\"/>", RTCOSIM_EFORMAT,
     "ModelStructure output valueReference='4' refers to no variable"},
    {"FMI 3 input with initial exact (the Reference FMUs' Feedthrough)", 3,
     "<Float64 name=\"u\" valueReference=\"1\" causality=\"input\" variability=\"continuous\" initial=\"exact\" start=\"0\"/>",
     NULL, RTCOSIM_EFORMAT, "variable 'u': initial 'exact' is not allowed with causality 'input'"},
    {"calculated parameter with initial exact (taken as approx)", 3,
     "<Float64 name=\"c\" valueReference=\"1\" causality=\"calculatedParameter\" variability=\"fixed\" initial=\"exact\" start=\"2\"/>",
     NULL, RTCOSIM_EFORMAT, "variable 'c': initial 'exact' is not allowed with causality 'calculatedParameter' and variability 'fixed'"},
    {"FMI 2 Enumeration without declaredType", 2,
     SV("name=\"e\" valueReference=\"1\" causality=\"parameter\" variability=\"fixed\"", "<Enumeration start=\"1\"/>"),
     NULL, RTCOSIM_EFORMAT, "variable 'e': Enumeration without declaredType"},
    {"unknown element in ModelVariables", 3,
     "<Float64 name=\"x\" valueReference=\"1\"/><Vendor name=\"v\"/>", NULL, RTCOSIM_EFORMAT,
     "ModelVariables: unknown element <Vendor>"},
    {"FMI 2 unit without UnitDefinitions (fmusim refuses it)", 2,
     SV("name=\"h\" valueReference=\"1\"", "<Real unit=\"m\"/>"), NULL, RTCOSIM_EFORMAT,
     "variable 'h': unit 'm' is not defined in UnitDefinitions"},
    {"FMI 3 unit without UnitDefinitions (the LS-BUS test FMUs had it)", 3,
     "<Float64 name=\"time\" valueReference=\"0\" causality=\"independent\" unit=\"s\"/>", NULL,
     RTCOSIM_EFORMAT, "variable 'time': unit 's' is not defined in UnitDefinitions"},
    {"FMI 3 declaredType that TypeDefinitions lacks", 3,
     "<Float64 name=\"p\" valueReference=\"1\" declaredType=\"Pressure\"/>", NULL, RTCOSIM_EFORMAT,
     "variable 'p': declaredType 'Pressure' is not defined in TypeDefinitions"},
    {"FMI 3 displayUnit without a unit", 3,
     "<Float64 name=\"v\" valueReference=\"1\" displayUnit=\"km/h\"/>", NULL, RTCOSIM_EFORMAT,
     "variable 'v': displayUnit 'km/h' without a unit"},
    {"dependencies entry naming no variable", 3,
     "<Float64 name=\"u\" valueReference=\"1\" causality=\"input\" start=\"0\"/>"
     "<Float64 name=\"y\" valueReference=\"2\" causality=\"output\"/>",
     "<Output valueReference=\"2\" dependencies=\"1 7\"/>", RTCOSIM_EFORMAT,
     "ModelStructure output 'y': dependencies entry '7' refers to no variable"},
};

static void every_validation_rule_rejects_with_the_variable_name(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof rejections / sizeof rejections[0]; i++) {
        const rejection *r = &rejections[i];
        const char *xml = r->version == 2 ? fmi2_doc(r->variables, r->structure)
                                          : fmi3_doc(r->variables, r->structure);
        rtcosim_fmi_md *md = (rtcosim_fmi_md *)1;
        rtcosim_error err;
        rtcosim_status st = parse(xml, &md, &err);
        if (st != r->status || !strstr(err.message, r->message) ||
            strncmp(err.message, "modelDescription.xml: ", 22) != 0 || strchr(err.message, '\n'))
            fail_msg("%s: got status %d, message \"%s\"; want %d, \"%s\"", r->what, st,
                     st ? err.message : "", r->status, r->message);
        assert_null(md);
    }
}

static void lenient_rules_warn_naming_the_variable_and_strict_refuses(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof lenients / sizeof lenients[0]; i++) {
        const rejection *r = &lenients[i];
        const char *xml = r->version == 2 ? fmi2_doc(r->variables, r->structure)
                                          : fmi3_doc(r->variables, r->structure);
        tu_log_capture(RTCOSIM_LOG_WARNING);
        rtcosim_fmi_md *md = NULL;
        rtcosim_error err;
        if (parse(xml, &md, &err) != RTCOSIM_OK)
            fail_msg("%s: refused by default: %s", r->what, err.message);
        char want[512];
        snprintf(want, sizeof want, "warning|fmi|modelDescription.xml: %s", r->message);
        if (!strstr(tu_log_text(), want) || !strstr(tu_log_text(), "--strict refuses it"))
            fail_msg("%s: log lacks \"%s\": %s", r->what, want, tu_log_text());
        assert_true(md->warning_count >= 1);
        rtcosim_fmi_md_free(md);
        rtcosim_log_set_handler(NULL, NULL);
        rtcosim_fmi_md_options strict = {.strict = true};
        md = (rtcosim_fmi_md *)1;
        rtcosim_status st = rtcosim_fmi_md_parse_with(xml, strlen(xml), "modelDescription.xml",
                                                      &strict, &md, &err);
        if (st != r->status || !strstr(err.message, r->message))
            fail_msg("%s (strict): got status %d, message \"%s\"; want %d, \"%s\"", r->what, st,
                     st ? err.message : "", r->status, r->message);
        assert_null(md);
    }
}

/* Units, display units and declared types defined where the standard puts
 * them (FMI 3.0 sections 2.4.3 and 2.4.4): no warning, and a variable takes
 * its declared type's unit; the same names misspelt are each a warning. */
static void defined_units_and_types_pass(void **state)
{
    (void)state;
    static const char head[] =
        "<fmiModelDescription fmiVersion=\"3.0\" modelName=\"M\" instantiationToken=\"g\">"
        "<CoSimulation modelIdentifier=\"m\"/>"
        "<UnitDefinitions><Unit name=\"m/s\"><BaseUnit m=\"1\" s=\"-1\"/>"
        "<DisplayUnit name=\"km/h\" factor=\"3.6\"/></Unit><Unit name=\"Pa\"/></UnitDefinitions>"
        "<TypeDefinitions><Float64Type name=\"Pressure\" unit=\"Pa\"/></TypeDefinitions>"
        "<ModelVariables>";
    char xml[2048];
    snprintf(xml, sizeof xml, "%s%s", head,
             "<Float64 name=\"v\" valueReference=\"1\" unit=\"m/s\" displayUnit=\"km/h\"/>"
             "<Float64 name=\"p\" valueReference=\"2\" declaredType=\"Pressure\"/>"
             "<Float64 name=\"q\" valueReference=\"3\" declaredType=\"Pressure\" "
             "displayUnit=\"Pa\"/></ModelVariables><ModelStructure/></fmiModelDescription>");
    rtcosim_fmi_md_options strict = {.strict = true};
    rtcosim_fmi_md *md = NULL;
    rtcosim_error err;
    /* (a DisplayUnit named like its unit is none: q's "Pa" is refused below) */
    assert_int_equal(rtcosim_fmi_md_parse_with(xml, strlen(xml), "modelDescription.xml", &strict,
                                               &md, &err),
                     RTCOSIM_EFORMAT);
    assert_non_null(strstr(err.message, "variable 'q': displayUnit 'Pa' is not a DisplayUnit of "
                                        "its unit 'Pa'"));
    snprintf(xml, sizeof xml, "%s%s", head,
             "<Float64 name=\"v\" valueReference=\"1\" unit=\"m/s\" displayUnit=\"km/h\"/>"
             "<Float64 name=\"p\" valueReference=\"2\" declaredType=\"Pressure\"/>"
             "</ModelVariables><ModelStructure/></fmiModelDescription>");
    if (rtcosim_fmi_md_parse_with(xml, strlen(xml), "modelDescription.xml", &strict, &md, &err) !=
        RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(md->warning_count, 0);
    assert_string_equal(md->variables[0].unit, "m/s");
    assert_string_equal(md->variables[1].unit, "Pa");
    rtcosim_fmi_md_free(md);
    /* misspelt: the unit, the display unit and the declared type, each said */
    snprintf(xml, sizeof xml, "%s%s", head,
             "<Float64 name=\"v\" valueReference=\"1\" unit=\"m/S\" displayUnit=\"km/h\"/>"
             "<Float64 name=\"w\" valueReference=\"2\" unit=\"m/s\" displayUnit=\"mph\"/>"
             "<Float64 name=\"p\" valueReference=\"3\" declaredType=\"Presure\"/>"
             "</ModelVariables><ModelStructure/></fmiModelDescription>");
    tu_log_capture(RTCOSIM_LOG_WARNING);
    assert_int_equal(parse(xml, &md, &err), RTCOSIM_OK);
    const char *log = tu_log_text();
    assert_non_null(strstr(log, "variable 'v': unit 'm/S' is not defined in UnitDefinitions"));
    assert_non_null(strstr(log, "variable 'v': displayUnit 'km/h' is not a DisplayUnit of its unit 'm/S'"));
    assert_non_null(strstr(log, "variable 'w': displayUnit 'mph' is not a DisplayUnit of its unit 'm/s'"));
    assert_non_null(strstr(log, "variable 'p': declaredType 'Presure' is not defined in TypeDefinitions"));
    assert_int_equal(md->warning_count, 4);
    rtcosim_fmi_md_free(md);
    rtcosim_log_set_handler(NULL, NULL);
}

/* A declared type of another kind than the variable (a Float64 declaring an
 * Int32Type, an FMI 2.0 Real a SimpleType of an Integer) is said and its
 * unit not taken; a type's undefined unit is said whether a variable
 * declares the type or not (it was read only on a first declaredType). */
static void declared_types_of_another_kind_and_unused_types(void **state)
{
    (void)state;
    static const char fmi3[] =
        "<fmiModelDescription fmiVersion=\"3.0\" modelName=\"M\" instantiationToken=\"g\">"
        "<CoSimulation modelIdentifier=\"m\"/>"
        "<UnitDefinitions><Unit name=\"m\"/></UnitDefinitions>"
        "<TypeDefinitions><Int32Type name=\"Count\" unit=\"m\"/>"
        "<Float64Type name=\"Unused\" unit=\"bogus\"/></TypeDefinitions>"
        "<ModelVariables><Float64 name=\"h\" valueReference=\"1\" declaredType=\"Count\"/>"
        "</ModelVariables><ModelStructure/></fmiModelDescription>";
    static const char fmi2[] =
        "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"M\" guid=\"g\">"
        "<CoSimulation modelIdentifier=\"m\"/>"
        "<UnitDefinitions><Unit name=\"m\"/></UnitDefinitions>"
        "<TypeDefinitions><SimpleType name=\"Count\"><Integer/></SimpleType></TypeDefinitions>"
        "<ModelVariables><ScalarVariable name=\"h\" valueReference=\"1\">"
        "<Real declaredType=\"Count\"/></ScalarVariable></ModelVariables>"
        "<ModelStructure/></fmiModelDescription>";
    rtcosim_fmi_md *md = NULL;
    rtcosim_error err;
    tu_log_capture(RTCOSIM_LOG_WARNING);
    assert_int_equal(parse(fmi3, &md, &err), RTCOSIM_OK);
    assert_non_null(strstr(tu_log_text(), "type 'Unused': unit 'bogus' is not defined in "
                                          "UnitDefinitions"));
    assert_non_null(strstr(tu_log_text(), "variable 'h': declaredType 'Count' is of kind "
                                          "Int32Type, not Float64Type"));
    assert_null(md->variables[0].unit); /* (the Int32Type's "m" not taken) */
    assert_int_equal(md->warning_count, 2);
    rtcosim_fmi_md_free(md);
    assert_int_equal(parse(fmi2, &md, &err), RTCOSIM_OK);
    assert_non_null(strstr(tu_log_text(), "variable 'h': declaredType 'Count' is of kind "
                                          "Integer, not Real"));
    rtcosim_fmi_md_free(md);
    rtcosim_log_set_handler(NULL, NULL);
    rtcosim_fmi_md_options strict = {.strict = true};
    md = (rtcosim_fmi_md *)1;
    assert_int_equal(rtcosim_fmi_md_parse_with(fmi3, sizeof fmi3 - 1, "modelDescription.xml",
                                               &strict, &md, &err),
                     RTCOSIM_EFORMAT);
    assert_null(md);
}

/* The definitions themselves (fmusim checks a type's displayUnit too): a
 * Unit without a name, a unit or display unit or type defined twice, a
 * type's displayUnit that is none of its unit's; each said once, whether a
 * variable uses them or not. */
static void unit_and_type_definitions_themselves(void **state)
{
    (void)state;
    static const char fmi3[] =
        "<fmiModelDescription fmiVersion=\"3.0\" modelName=\"M\" instantiationToken=\"g\">"
        "<CoSimulation modelIdentifier=\"m\"/>"
        "<UnitDefinitions><Unit name=\"m\"><DisplayUnit name=\"mm\"/><DisplayUnit name=\"mm\"/>"
        "</Unit><Unit name=\"m\"/><Unit/></UnitDefinitions>"
        "<TypeDefinitions><Float64Type name=\"L\" unit=\"m\" displayUnit=\"km\"/>"
        "<Float64Type name=\"L\" unit=\"m\" displayUnit=\"mm\"/></TypeDefinitions>"
        "<ModelVariables><Float64 name=\"x\" valueReference=\"1\"/></ModelVariables>"
        "<ModelStructure/></fmiModelDescription>";
    rtcosim_fmi_md *md = NULL;
    rtcosim_error err;
    tu_log_capture(RTCOSIM_LOG_WARNING);
    assert_int_equal(parse(fmi3, &md, &err), RTCOSIM_OK);
    const char *log = tu_log_text();
    assert_non_null(strstr(log, "UnitDefinitions: a Unit without a name"));
    assert_non_null(strstr(log, "UnitDefinitions: unit 'm' is defined twice"));
    assert_non_null(strstr(log, "UnitDefinitions: display unit 'mm' is defined twice"));
    assert_non_null(strstr(log, "type 'L': displayUnit 'km' is not a DisplayUnit of its unit 'm'"));
    assert_non_null(strstr(log, "TypeDefinitions: type 'L' is defined twice"));
    assert_int_equal(md->warning_count, 5);
    rtcosim_fmi_md_free(md);
    rtcosim_log_set_handler(NULL, NULL);
}

/* A derivative that names no float variable is harmless in co-simulation (a
 * warning) but breaks model exchange, where it is an error. */
static void bad_derivative_is_an_error_for_model_exchange(void **state)
{
    (void)state;
    const char *xml = "<fmiModelDescription fmiVersion=\"3.0\" modelName=\"M\" instantiationToken=\"g\">"
                      "<CoSimulation modelIdentifier=\"m\"/><ModelExchange modelIdentifier=\"m\"/>"
                      "<ModelVariables><Float64 name=\"d\" valueReference=\"1\" derivative=\"99\"/>"
                      "</ModelVariables><ModelStructure/></fmiModelDescription>";
    rtcosim_fmi_md *md;
    rtcosim_error err;
    assert_int_equal(rtcosim_fmi_md_parse_for(xml, strlen(xml), "modelDescription.xml",
                                              RTCOSIM_FMI_MD_MODEL_EXCHANGE, &md, &err),
                     RTCOSIM_EFORMAT);
    assert_non_null(strstr(err.message, "variable 'd': derivative '99' does not refer to a float variable"));
}

/* FMI 3.0 chapter 5: an FMU for scheduled execution only (the Reference
 * FMUs' Clocks) is not a co-simulation FMU; the error says how to run it. */
static void scheduled_execution_only_is_refused_clearly(void **state)
{
    (void)state;
    const char *xml = "<fmiModelDescription fmiVersion=\"3.0\" modelName=\"Clocks\" instantiationToken=\"g\">"
                      "<ScheduledExecution modelIdentifier=\"Clocks\"/><ModelVariables/></fmiModelDescription>";
    rtcosim_fmi_md *md;
    rtcosim_error err;
    assert_int_equal(parse(xml, &md, &err), RTCOSIM_EUNSUPPORTED);
    assert_non_null(strstr(err.message, "supports only scheduled execution (FMI 3.0 chapter 5): "
                                        "load it with --interface-type se"));
}

/* What a tolerated initial becomes: an input's is absent (the standard's
 * default), a calculated parameter's approx, which keeps its start value. */
static void tolerated_initial_takes_the_nearest_allowed_value(void **state)
{
    (void)state;
    rtcosim_log_set_level(RTCOSIM_LOG_ERROR);
    rtcosim_fmi_md *md;
    rtcosim_error err;
    assert_int_equal(parse(fmi3_doc("<Float64 name=\"u\" valueReference=\"1\" causality=\"input\" initial=\"exact\" start=\"3\"/>"
                                    "<Float64 name=\"c\" valueReference=\"2\" causality=\"calculatedParameter\" "
                                    "variability=\"fixed\" initial=\"exact\" start=\"2\"/>",
                                    NULL),
                           &md, &err),
                     RTCOSIM_OK);
    assert_int_equal(md->variables[0].initial, RTCOSIM_INITIAL_NONE);
    assert_true(md->variables[0].has_start && md->variables[0].start.f64 == 3.0);
    assert_int_equal(md->variables[1].initial, RTCOSIM_INITIAL_APPROX);
    assert_true(md->variables[1].has_start && md->variables[1].start.f64 == 2.0);
    assert_int_equal(md->warning_count, 2);
    rtcosim_fmi_md_free(md);
    rtcosim_log_set_level(RTCOSIM_LOG_WARNING);
}

static void valid_fragments_of_the_rejection_table_pass(void **state)
{
    (void)state;
    /* The same documents with the offending part fixed parse: the rules do
     * not fire on the surrounding boilerplate. */
    rtcosim_fmi_md *md;
    rtcosim_error err;
    assert_int_equal(parse(fmi2_doc(SV("name=\"x\" valueReference=\"1\"", "<Real/>"), NULL), &md, &err),
                     RTCOSIM_OK);
    rtcosim_fmi_md_free(md);
    assert_int_equal(parse(fmi3_doc("<Float64 name=\"y\" valueReference=\"1\" causality=\"output\"/>",
                                    "<Output valueReference=\"1\"/>"),
                           &md, &err),
                     RTCOSIM_OK);
    rtcosim_fmi_md_free(md);
}

static void unsupported_fmi_version_is_named(void **state)
{
    (void)state;
    rtcosim_fmi_md *md;
    rtcosim_error err;
    const char *xml = "<fmiModelDescription fmiVersion=\"0.9\" modelName=\"M\" guid=\"g\"/>";
    assert_int_equal(parse(xml, &md, &err), RTCOSIM_EUNSUPPORTED);
    assert_non_null(strstr(err.message, "unsupported fmiVersion '0.9' (supported: 1.0, 2.0, 3.0)"));
}

static void malformed_xml_gives_line_and_reason(void **state)
{
    (void)state;
    rtcosim_fmi_md *md;
    rtcosim_error err;
    const char *xml = "<fmiModelDescription fmiVersion=\"2.0\">\n<ModelVariables>\n"
                      "</fmiModelDescription>";
    assert_int_equal(parse(xml, &md, &err), RTCOSIM_EFORMAT);
    assert_non_null(strstr(err.message, "modelDescription.xml: malformed XML (line 3"));
    assert_null(strchr(err.message, '\n'));
    /* libxml2's message for a byte that is not UTF-8 has a line break
     * inside ("... indicate encoding !\nBytes: 0xF2 ..."): still one line */
    const char *bad = "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"m\xF2iab\"/>";
    assert_int_equal(parse(bad, &md, &err), RTCOSIM_EFORMAT);
    assert_non_null(strstr(err.message, "not proper UTF-8"));
    assert_null(strchr(err.message, '\n'));
}

static void doctype_and_entities_are_refused(void **state)
{
    (void)state;
    rtcosim_fmi_md *md;
    rtcosim_error err;
    const char *xml = "<!DOCTYPE fmiModelDescription [<!ENTITY a \"aaaaaaaaaa\">"
                      "<!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">]>"
                      "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"&b;\" guid=\"g\">"
                      "<CoSimulation modelIdentifier=\"m\"/><ModelVariables/></fmiModelDescription>";
    assert_int_equal(parse(xml, &md, &err), RTCOSIM_EFORMAT);
    assert_non_null(strstr(err.message, "DOCTYPE declarations are not allowed"));
}

static void model_exchange_only_fmu_is_unsupported(void **state)
{
    (void)state;
    rtcosim_fmi_md *md;
    rtcosim_error err;
    const char *xml = "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"M\" guid=\"g\">"
                      "<ModelExchange modelIdentifier=\"m\"/><ModelVariables/></fmiModelDescription>";
    assert_int_equal(parse(xml, &md, &err), RTCOSIM_EUNSUPPORTED);
    assert_non_null(strstr(err.message, "does not support co-simulation"));
}

static void model_identifier_must_be_a_plain_file_name(void **state)
{
    (void)state;
    rtcosim_fmi_md *md;
    rtcosim_error err;
    const char *xml = "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"M\" guid=\"g\">"
                      "<CoSimulation modelIdentifier=\"../../lib/evil\"/><ModelVariables/>"
                      "</fmiModelDescription>";
    assert_int_equal(parse(xml, &md, &err), RTCOSIM_EFORMAT);
    assert_non_null(strstr(err.message, "modelIdentifier '../../lib/evil' is not a plain file name"));
}

static void first_violation_is_the_error_and_later_ones_are_logged(void **state)
{
    (void)state;
    tu_log_capture(RTCOSIM_LOG_WARNING);
    rtcosim_fmi_md *md;
    rtcosim_error err;
    const char *xml = fmi2_doc(SV("name=\"u\" valueReference=\"1\" causality=\"sideways\"", "<Real/>")
                                   SV("name=\"k\" valueReference=\"2\" causality=\"parameter\" variability=\"fixed\"",
                                      "<Real start=\"x\"/>"),
                               NULL);
    assert_int_equal(parse(xml, &md, &err), RTCOSIM_EFORMAT);
    assert_non_null(strstr(err.message, "variable 'u': unknown causality 'sideways'"));
    assert_null(strstr(err.message, "'k'"));
    assert_non_null(strstr(tu_log_text(), "warning|fmi|modelDescription.xml: variable 'k': start value 'x'"));
    rtcosim_log_set_handler(NULL, NULL);
}

static void fmi2_log_references_become_variable_names(void **state)
{
    (void)state;
    rtcosim_fmi_md *md;
    rtcosim_error err;
    assert_int_equal(parse(fmi2_tank, &md, &err), RTCOSIM_OK);
    char out[128];
    /* Real 1 is h (its alias h_alias comes later), Integer 0 is count,
     * Boolean 0 is full, String 0 is label; Real 99 does not exist. */
    rtcosim_fmi2_expand_references(md, "#r1# > #i0#, #b0#, #s0#, ## #r99# #r1 #x1#", out, sizeof out);
    assert_string_equal(out, "h > count, full, label, # #r99# #r1 #x1#");
    /* Truncation keeps the buffer terminated. */
    rtcosim_fmi2_expand_references(md, "#s0##s0##s0#", out, 8);
    assert_string_equal(out, "labella");
    rtcosim_fmi_md_free(md);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fmi2_description_gives_identity_capabilities_and_experiment),
        cmocka_unit_test(fmi2_variables_get_standard_defaults),
        cmocka_unit_test(fmi3_description_gives_every_scalar_type),
        cmocka_unit_test(every_validation_rule_rejects_with_the_variable_name),
        cmocka_unit_test(lenient_rules_warn_naming_the_variable_and_strict_refuses),
        cmocka_unit_test(defined_units_and_types_pass),
        cmocka_unit_test(declared_types_of_another_kind_and_unused_types),
        cmocka_unit_test(unit_and_type_definitions_themselves),
        cmocka_unit_test(bad_derivative_is_an_error_for_model_exchange),
        cmocka_unit_test(tolerated_initial_takes_the_nearest_allowed_value),
        cmocka_unit_test(scheduled_execution_only_is_refused_clearly),
        cmocka_unit_test(valid_fragments_of_the_rejection_table_pass),
        cmocka_unit_test(unsupported_fmi_version_is_named),
        cmocka_unit_test(malformed_xml_gives_line_and_reason),
        cmocka_unit_test(doctype_and_entities_are_refused),
        cmocka_unit_test(model_exchange_only_fmu_is_unsupported),
        cmocka_unit_test(model_identifier_must_be_a_plain_file_name),
        cmocka_unit_test(first_violation_is_the_error_and_later_ones_are_logged),
        cmocka_unit_test(fmi2_log_references_become_variable_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
