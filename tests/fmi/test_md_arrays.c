/* FMI 3.0 array variables in modelDescription.xml (section 2.4.7.4,
 * <Dimension>): sizes fixed or from structural parameters, elements named
 * name[i,j] (1-based, row-major) with the start list split in that order,
 * value references of their own above every declared one, ModelStructure
 * and derivative references expanded element by element, and the refusals
 * (wrong start count, bad Dimension, Binary arrays, hostile sizes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "fmi/model_description.h"
#include "rtcosim/log.h"

static char doc[8192];

static const char *fmi3_doc(const char *variables, const char *structure)
{
    snprintf(doc, sizeof doc,
             "<fmiModelDescription fmiVersion=\"3.0\" modelName=\"M\" instantiationToken=\"g\">"
             "<CoSimulation modelIdentifier=\"m\"/><ModelVariables>%s</ModelVariables>"
             "<ModelStructure>%s</ModelStructure></fmiModelDescription>",
             variables, structure ? structure : "");
    return doc;
}

static rtcosim_status parse(const char *xml, rtcosim_fmi_md **md, rtcosim_error *err)
{
    return rtcosim_fmi_md_parse(xml, strlen(xml), "modelDescription.xml", md, err);
}

static const char state_space[] =
    "<UInt64 name=\"n\" valueReference=\"2\" causality=\"structuralParameter\" variability=\"fixed\" start=\"2\"/>"
    "<UInt64 name=\"r\" valueReference=\"3\" causality=\"structuralParameter\" variability=\"fixed\" start=\"3\"/>"
    "<Float64 name=\"C\" valueReference=\"6\" causality=\"parameter\" variability=\"tunable\" start=\"1 2 3 4 5 6\">"
    "<Dimension valueReference=\"3\"/><Dimension valueReference=\"2\"/></Float64>"
    "<Float64 name=\"u\" valueReference=\"9\" causality=\"input\" start=\"7 8\"><Dimension start=\"2\"/></Float64>"
    "<Float64 name=\"y\" valueReference=\"10\" causality=\"output\"><Dimension valueReference=\"3\"/></Float64>"
    "<Float64 name=\"x\" valueReference=\"11\"><Dimension valueReference=\"2\"/></Float64>"
    "<Float64 name=\"der(x)\" valueReference=\"12\" derivative=\"11\"><Dimension valueReference=\"2\"/></Float64>"
    "<Float64 name=\"k\" valueReference=\"13\" causality=\"parameter\" variability=\"fixed\" start=\"0.5\"/>";

static void arrays_become_row_major_elements_with_their_start_values(void **state)
{
    (void)state;
    rtcosim_fmi_md *md;
    rtcosim_error err;
    if (parse(fmi3_doc(state_space, "<Output valueReference=\"10\" dependencies=\"9 11\"/>"), &md,
              &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    /* n, r, C (3x2), u (2), y (3), x (2), der(x) (2), k */
    assert_int_equal(md->variable_count, 2 + 6 + 2 + 3 + 2 + 2 + 1);
    const rtcosim_variable *v = md->variables;
    const char *names[] = {"C[1,1]", "C[1,2]", "C[2,1]", "C[2,2]", "C[3,1]", "C[3,2]"};
    for (int e = 0; e < 6; e++) {
        assert_string_equal(v[2 + e].name, names[e]);
        assert_true(v[2 + e].has_start);
        assert_true(v[2 + e].start.f64 == (double)(e + 1)); /* row-major */
    }
    assert_string_equal(v[8].name, "u[1]");
    assert_true(v[9].start.f64 == 8.0);
    assert_string_equal(v[12].name, "y[3]");
    assert_int_equal(v[12].causality, RTCOSIM_CAUSALITY_OUTPUT);
    assert_string_equal(v[15].name, "der(x)[1]");
    assert_int_equal(v[15].derivative_of, 13); /* x[1] */
    assert_int_equal(v[16].derivative_of, 14); /* x[2] */
    assert_string_equal(v[17].name, "k");
    assert_int_equal(v[17].value_reference, 13);
    /* Element references above every declared one (the highest is 13). */
    assert_int_equal(md->element_vr_base, 14);
    assert_int_equal(md->array_count, 5);
    assert_int_equal(md->arrays[0].value_reference, 6);
    assert_int_equal(md->arrays[0].count, 6);
    assert_int_equal(md->arrays[0].first, 2);
    assert_int_equal(v[2].value_reference, md->arrays[0].first_vr);
    assert_int_equal(v[7].value_reference, md->arrays[0].first_vr + 5);
    assert_int_equal(md->element_vr_end, 14 + 6 + 2 + 3 + 2 + 2);
    /* The output array is three outputs, each depending on u and x. */
    assert_int_equal(md->output_count, 3);
    for (int k = 0; k < 3; k++) {
        assert_int_equal(md->output_indices[k], 10 + k);
        assert_true(md->output_dependencies_declared[k]);
        size_t from = md->output_dependency_start[k], to = md->output_dependency_start[k + 1];
        assert_int_equal(to - from, 4);
        assert_int_equal(md->output_dependencies[from], 8);      /* u[1] */
        assert_int_equal(md->output_dependencies[from + 3], 14); /* x[2] */
    }
    rtcosim_fmi_md_free(md);
}

static void expect_error(const char *variables, rtcosim_status status, const char *message)
{
    rtcosim_fmi_md *md = (rtcosim_fmi_md *)1;
    rtcosim_error err;
    rtcosim_status st = parse(fmi3_doc(variables, NULL), &md, &err);
    if (st != status || !strstr(err.message, message))
        fail_msg("got %d \"%s\"; want %d \"%s\"", st, st ? err.message : "", status, message);
    assert_null(md);
}

static void bad_arrays_are_refused_naming_the_variable(void **state)
{
    (void)state;
    rtcosim_log_set_level(RTCOSIM_LOG_ERROR);
    expect_error("<Float64 name=\"a\" valueReference=\"1\" causality=\"parameter\" variability=\"fixed\" "
                 "start=\"1 2 3\"><Dimension start=\"2\"/></Float64>",
                 RTCOSIM_EFORMAT, "variable 'a': 3 start values for 2 elements");
    expect_error("<Float64 name=\"a\" valueReference=\"1\" causality=\"parameter\" variability=\"fixed\" "
                 "start=\"1 x\"><Dimension start=\"2\"/></Float64>",
                 RTCOSIM_EFORMAT, "variable 'a[2]': start value 'x' is not a valid Float64 value");
    expect_error("<Float64 name=\"a\" valueReference=\"1\"><Dimension valueReference=\"7\"/></Float64>",
                 RTCOSIM_EFORMAT, "variable 'a': Dimension valueReference='7' names no integer variable");
    expect_error("<Float64 name=\"a\" valueReference=\"1\"><Dimension/></Float64>", RTCOSIM_EFORMAT,
                 "variable 'a': a Dimension needs exactly one of start and valueReference");
    expect_error("<Binary name=\"b\" valueReference=\"1\"><Dimension start=\"2\"/></Binary>",
                 RTCOSIM_EUNSUPPORTED, "variable 'b': arrays of Binary are not supported");
    expect_error("<Float64 name=\"a\" valueReference=\"1\"><Dimension start=\"65536\"/>"
                 "<Dimension start=\"65536\"/></Float64>",
                 RTCOSIM_EUNSUPPORTED, "variable 'a': more than 4194304 elements");
    expect_error("<Float64 name=\"a\" valueReference=\"4294967295\"><Dimension start=\"2\"/></Float64>",
                 RTCOSIM_EUNSUPPORTED, "no value references left above 4294967295");
    rtcosim_log_set_level(RTCOSIM_LOG_WARNING);
}

static void one_start_value_for_an_array_is_a_warning_and_fills_it(void **state)
{
    (void)state;
    rtcosim_log_set_level(RTCOSIM_LOG_ERROR);
    rtcosim_fmi_md *md;
    rtcosim_error err;
    assert_int_equal(parse(fmi3_doc("<Float64 name=\"a\" valueReference=\"1\" causality=\"parameter\" "
                                    "variability=\"fixed\" start=\"4\"><Dimension start=\"3\"/></Float64>",
                                    NULL),
                           &md, &err),
                     RTCOSIM_OK);
    assert_int_equal(md->warning_count, 1);
    for (int e = 0; e < 3; e++)
        assert_true(md->variables[e].start.f64 == 4.0);
    rtcosim_fmi_md_free(md);
    rtcosim_log_set_level(RTCOSIM_LOG_WARNING);
}

static void empty_and_scalar_descriptions_have_no_arrays(void **state)
{
    (void)state;
    rtcosim_fmi_md *md;
    rtcosim_error err;
    assert_int_equal(parse(fmi3_doc("<Float64 name=\"a\" valueReference=\"1\"><Dimension start=\"0\"/></Float64>"
                                    "<Float64 name=\"b\" valueReference=\"2\"/>",
                                    NULL),
                           &md, &err),
                     RTCOSIM_OK);
    assert_int_equal(md->variable_count, 1); /* a has no elements */
    assert_string_equal(md->variables[0].name, "b");
    rtcosim_fmi_md_free(md);
}

/* Shaped like the Reference FMUs' StateSpace (FMI 3.0, both interfaces):
 * tunable structural parameters m, n, r = 3, matrices sized by them, an
 * output array with dependencies on arrays, der(x) an array derivative. For
 * model exchange its three state elements are the continuous states. */
static void reference_shaped_state_space_parses_for_both_interfaces(void **state)
{
    (void)state;
    static const char xml[] =
        "<fmiModelDescription fmiVersion=\"3.0\" modelName=\"StateSpace\" instantiationToken=\"t\">"
        "<ModelExchange modelIdentifier=\"StateSpace\"/>"
        "<CoSimulation modelIdentifier=\"StateSpace\" canHandleVariableCommunicationStepSize=\"true\" "
        "providesIntermediateUpdate=\"true\" canReturnEarlyAfterIntermediateUpdate=\"true\" "
        "fixedInternalStepSize=\"1\" hasEventMode=\"true\"/>"
        "<DefaultExperiment startTime=\"0\" stopTime=\"10\"/><ModelVariables>"
        "<Float64 name=\"time\" valueReference=\"0\" causality=\"independent\" variability=\"continuous\"/>"
        "<UInt64 name=\"m\" valueReference=\"1\" causality=\"structuralParameter\" variability=\"tunable\" start=\"3\"/>"
        "<UInt64 name=\"n\" valueReference=\"2\" causality=\"structuralParameter\" variability=\"tunable\" start=\"3\"/>"
        "<UInt64 name=\"r\" valueReference=\"3\" causality=\"structuralParameter\" variability=\"tunable\" start=\"3\"/>"
        "<Float64 name=\"A\" valueReference=\"4\" causality=\"parameter\" variability=\"tunable\" start=\"1 0 0 0 1 0 0 0 1\">"
        "<Dimension valueReference=\"2\"/><Dimension valueReference=\"2\"/></Float64>"
        "<Float64 name=\"x0\" valueReference=\"8\" causality=\"parameter\" variability=\"tunable\" start=\"0 0 0\">"
        "<Dimension valueReference=\"2\"/></Float64>"
        "<Float64 name=\"u\" valueReference=\"9\" causality=\"input\" start=\"1 2 3\"><Dimension valueReference=\"1\"/></Float64>"
        "<Float64 name=\"y\" valueReference=\"10\" causality=\"output\"><Dimension valueReference=\"3\"/></Float64>"
        "<Float64 name=\"x\" valueReference=\"11\" causality=\"local\"><Dimension valueReference=\"2\"/></Float64>"
        "<Float64 name=\"der(x)\" valueReference=\"12\" causality=\"local\" derivative=\"11\"><Dimension valueReference=\"2\"/></Float64>"
        "</ModelVariables><ModelStructure>"
        "<Output valueReference=\"10\" dependencies=\"4 9 11\"/>"
        "<ContinuousStateDerivative valueReference=\"12\" dependencies=\"4 9 11\"/>"
        "<InitialUnknown valueReference=\"10\"/></ModelStructure></fmiModelDescription>";
    for (int me = 0; me < 2; me++) {
        rtcosim_fmi_md *md;
        rtcosim_error err;
        rtcosim_fmi_md_options o = {.interface = me ? RTCOSIM_FMI_MD_MODEL_EXCHANGE
                                                    : RTCOSIM_FMI_MD_CO_SIMULATION,
                                    .strict = true};
        if (rtcosim_fmi_md_parse_with(xml, strlen(xml), "modelDescription.xml", &o, &md, &err) !=
            RTCOSIM_OK)
            fail_msg("%s", err.message);
        assert_int_equal(md->variable_count, 4 + 9 + 3 + 3 + 3 + 3 + 3);
        assert_int_equal(md->output_count, 3);
        assert_int_equal(md->output_dependency_start[1] - md->output_dependency_start[0], 9 + 3 + 3);
        if (me)
            assert_int_equal(md->state_count, 3);
        rtcosim_fmi_md_free(md);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(arrays_become_row_major_elements_with_their_start_values),
        cmocka_unit_test(bad_arrays_are_refused_naming_the_variable),
        cmocka_unit_test(one_start_value_for_an_array_is_a_warning_and_fills_it),
        cmocka_unit_test(empty_and_scalar_descriptions_have_no_arrays),
        cmocka_unit_test(reference_shaped_state_space_parses_for_both_interfaces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
