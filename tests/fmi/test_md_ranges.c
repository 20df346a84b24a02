/* Declared ranges (min/max) from modelDescription.xml: FMI 1.0, 2.0 and 3.0
 * variables get the bounds written on them, or those of their declared
 * type (FMI 2.0 section 2.2.3, FMI 3.0 section 2.4.4: a variable's own
 * attribute overrides the type's); values are checked against them in the
 * variable's own type (hand-picked values on both sides of each bound). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fmi/model_description.h"

static const char fmi2[] =
    "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"R\" guid=\"{g}\">\n"
    "  <CoSimulation modelIdentifier=\"r\"/>\n"
    "  <TypeDefinitions>\n"
    "    <SimpleType name=\"Ratio\"><Real min=\"0\" max=\"1\"/></SimpleType>\n"
    "    <SimpleType name=\"Gear\"><Integer min=\"-1\" max=\"5\"/></SimpleType>\n"
    "  </TypeDefinitions>\n"
    "  <ModelVariables>\n"
    "    <ScalarVariable name=\"e\" valueReference=\"1\" causality=\"parameter\" variability=\"fixed\"><Real declaredType=\"Ratio\" start=\"0.7\"/></ScalarVariable>\n"
    "    <ScalarVariable name=\"f\" valueReference=\"2\" causality=\"parameter\" variability=\"fixed\"><Real declaredType=\"Ratio\" max=\"0.5\" start=\"0.1\"/></ScalarVariable>\n"
    "    <ScalarVariable name=\"gear\" valueReference=\"3\" causality=\"input\"><Integer declaredType=\"Gear\" start=\"0\"/></ScalarVariable>\n"
    "    <ScalarVariable name=\"u\" valueReference=\"4\" causality=\"input\"><Real min=\"-2.5\" start=\"0\"/></ScalarVariable>\n"
    "    <ScalarVariable name=\"free\" valueReference=\"5\" causality=\"input\"><Real start=\"0\"/></ScalarVariable>\n"
    "  </ModelVariables>\n"
    "  <ModelStructure/>\n"
    "</fmiModelDescription>\n";

static const char fmi3[] =
    "<fmiModelDescription fmiVersion=\"3.0\" modelName=\"R\" instantiationToken=\"{g}\">\n"
    "  <CoSimulation modelIdentifier=\"r\"/>\n"
    "  <TypeDefinitions><Float32Type name=\"Ratio\" min=\"0\" max=\"0.1\"/></TypeDefinitions>\n"
    "  <ModelVariables>\n"
    "    <Float32 name=\"r\" valueReference=\"1\" causality=\"input\" declaredType=\"Ratio\" start=\"0\"/>\n"
    "    <Int64 name=\"n\" valueReference=\"2\" causality=\"input\" min=\"-9223372036854775807\" max=\"9223372036854775806\" start=\"0\"/>\n"
    "    <UInt8 name=\"b\" valueReference=\"3\" causality=\"input\" min=\"10\" max=\"200\" start=\"10\"/>\n"
    "  </ModelVariables>\n"
    "</fmiModelDescription>\n";

static const char fmi1[] =
    "<fmiModelDescription fmiVersion=\"1.0\" modelName=\"R\" modelIdentifier=\"r\" guid=\"{g}\""
    " numberOfContinuousStates=\"0\" numberOfEventIndicators=\"0\">\n"
    " <ModelVariables>\n"
    "  <ScalarVariable name=\"e\" valueReference=\"0\" variability=\"parameter\"><Real min=\"0\" max=\"1\" start=\"0.7\"/></ScalarVariable>\n"
    " </ModelVariables>\n"
    " <Implementation><CoSimulation_StandAlone><Capabilities/></CoSimulation_StandAlone></Implementation>\n"
    "</fmiModelDescription>\n";

static const rtcosim_variable *var(const rtcosim_fmi_md *md, const char *name)
{
    for (size_t i = 0; i < md->variable_count; i++)
        if (strcmp(md->variables[i].name, name) == 0)
            return &md->variables[i];
    fail_msg("no variable %s", name);
    return NULL;
}

static bool f64_in(const rtcosim_variable *v, double x, char *why, size_t size)
{
    rtcosim_value value = {.f64 = x};
    return rtcosim_variable_in_range(v, &value, why, size);
}

static void fmi2_ranges_come_from_the_variable_or_its_declared_type(void **state)
{
    (void)state;
    rtcosim_fmi_md *md = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_fmi_md_parse(fmi2, strlen(fmi2), "md.xml", &md, &err), RTCOSIM_OK);
    const rtcosim_variable *e = var(md, "e"), *f = var(md, "f"), *gear = var(md, "gear"),
                           *u = var(md, "u"), *free_ = var(md, "free");
    assert_true(e->has_min && e->has_max);
    assert_true(e->min.f64 == 0.0 && e->max.f64 == 1.0);
    assert_true(f->has_min && f->has_max); /* own max over the type's */
    assert_true(f->min.f64 == 0.0 && f->max.f64 == 0.5);
    assert_true(gear->has_min && gear->has_max);
    assert_int_equal(gear->min.i64, -1);
    assert_int_equal(gear->max.i64, 5);
    assert_true(u->has_min && !u->has_max);
    assert_false(free_->has_min || free_->has_max);

    char why[160] = "";
    assert_true(f64_in(e, 0.0, why, sizeof why));
    assert_true(f64_in(e, 1.0, why, sizeof why));
    assert_false(f64_in(e, 2.0, why, sizeof why));
    assert_string_equal(why, "2 is outside the declared range [0, 1]");
    assert_false(f64_in(f, 0.6, why, sizeof why));
    assert_string_equal(why, "0.6 is outside the declared range [0, 0.5]");
    assert_false(f64_in(u, -2.6, why, sizeof why));
    assert_string_equal(why, "-2.6 is outside the declared range [-2.5, inf]");
    assert_true(f64_in(u, 1e300, why, sizeof why));
    assert_true(f64_in(free_, -1e300, why, sizeof why));
    rtcosim_value g = {.i64 = 6};
    assert_false(rtcosim_variable_in_range(gear, &g, why, sizeof why));
    assert_string_equal(why, "6 is outside the declared range [-1, 5]");
    g.i64 = -1;
    assert_true(rtcosim_variable_in_range(gear, &g, NULL, 0));
    rtcosim_fmi_md_free(md);
}

static void fmi3_ranges_compare_in_the_variables_type(void **state)
{
    (void)state;
    rtcosim_fmi_md *md = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_fmi_md_parse(fmi3, strlen(fmi3), "md.xml", &md, &err), RTCOSIM_OK);
    const rtcosim_variable *r = var(md, "r"), *n = var(md, "n"), *b = var(md, "b");
    char why[160];
    /* Float32: 0.1f is the bound itself; the next float above is outside. */
    rtcosim_value x = {.f32 = 0.1f};
    assert_true(rtcosim_variable_in_range(r, &x, why, sizeof why));
    x.f32 = 0.10000001f;
    assert_false(rtcosim_variable_in_range(r, &x, why, sizeof why));
    assert_string_equal(why, "0.10000001 is outside the declared range [0, 0.1]");
    /* Int64 bounds one inside the type's limits: exact, no rounding to double. */
    x.i64 = INT64_MAX - 1;
    assert_true(rtcosim_variable_in_range(n, &x, why, sizeof why));
    x.i64 = INT64_MAX;
    assert_false(rtcosim_variable_in_range(n, &x, why, sizeof why));
    assert_string_equal(why, "9223372036854775807 is outside the declared range "
                             "[-9223372036854775807, 9223372036854775806]");
    x.i64 = INT64_MIN;
    assert_false(rtcosim_variable_in_range(n, &x, NULL, 0));
    x.u64 = 9;
    assert_false(rtcosim_variable_in_range(b, &x, why, sizeof why));
    assert_string_equal(why, "9 is outside the declared range [10, 200]");
    x.u64 = 200;
    assert_true(rtcosim_variable_in_range(b, &x, why, sizeof why));
    rtcosim_fmi_md_free(md);
}

static void fmi1_ranges_are_read(void **state)
{
    (void)state;
    rtcosim_fmi_md *md = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_fmi_md_parse(fmi1, strlen(fmi1), "md.xml", &md, &err), RTCOSIM_OK);
    const rtcosim_variable *e = var(md, "e");
    assert_true(e->has_min && e->has_max && e->min.f64 == 0.0 && e->max.f64 == 1.0);
    char why[160];
    assert_false(f64_in(e, -0.25, why, sizeof why));
    assert_string_equal(why, "-0.25 is outside the declared range [0, 1]");
    rtcosim_fmi_md_free(md);
}

static void unreadable_bound_is_lenient_and_strict_refuses(void **state)
{
    (void)state;
    const char *xml = "<fmiModelDescription fmiVersion=\"3.0\" modelName=\"M\" instantiationToken=\"g\">"
                      "<CoSimulation modelIdentifier=\"m\"/><ModelVariables>"
                      "<Float64 name=\"x\" valueReference=\"1\" causality=\"input\" min=\"zero\" start=\"0\"/>"
                      "</ModelVariables></fmiModelDescription>";
    rtcosim_fmi_md *md = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_fmi_md_parse(xml, strlen(xml), "md.xml", &md, &err), RTCOSIM_OK);
    assert_false(var(md, "x")->has_min);
    assert_int_equal(md->warning_count, 1);
    rtcosim_fmi_md_free(md);
    rtcosim_fmi_md_options strict = {.strict = true};
    assert_int_not_equal(rtcosim_fmi_md_parse_with(xml, strlen(xml), "md.xml", &strict, &md, &err),
                         RTCOSIM_OK);
    assert_non_null(strstr(err.message, "variable 'x': min 'zero' is not a valid Float64 value"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fmi2_ranges_come_from_the_variable_or_its_declared_type),
        cmocka_unit_test(fmi3_ranges_compare_in_the_variables_type),
        cmocka_unit_test(fmi1_ranges_are_read),
        cmocka_unit_test(unreadable_bound_is_lenient_and_strict_refuses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
