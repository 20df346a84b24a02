/* SSP 1.0 parameter mappings (section 7, ssd:ParameterMapping of a
 * ParameterBinding, section 5.2.3.2), against the standard's text: a
 * MappingEntry gives a parameter of the source the name it is applied as,
 * optionally transforming its value (LinearTransformation after any unit
 * conversion unless suppressUnitConversion; Boolean-, Integer- and
 * EnumerationMappingTransformation by MapEntry); a parameter the mapping does
 * not name is not applied; one source may go to several targets, two sources
 * never to one target. The binding's prefix comes before the mapping; a
 * nested system's path after it. End to end: the project's Dahlquist FMU in
 * an .ssp with an .ssm file, x(1) = x0 (1 - k h)^n by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtcosim/master.h"
#include "rtcosim/system.h"
#include "rtcosim_test_fmus.h"
#include "util/test_util.h"

#define HEAD                                                                                  \
    "<?xml version=\"1.0\"?>\n"                                                              \
    "<ssd:SystemStructureDescription version=\"1.0\" name=\"m\"\n"                           \
    " xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\"\n"               \
    " xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\"\n"                    \
    " xmlns:ssv=\"http://ssp-standard.org/SSP1/SystemStructureParameterValues\"\n"           \
    " xmlns:ssm=\"http://ssp-standard.org/SSP1/SystemStructureParameterMapping\">\n"         \
    " <ssd:System name=\"m\">\n"
#define TAIL " </ssd:System>\n</ssd:SystemStructureDescription>\n"

/* A component "c" (native, no file needed) with the given connectors, one
 * binding with the given parameters and mapping. */
#define ONE_COMPONENT(connectors, params, mapping)                                            \
    HEAD "  <ssd:Elements>\n"                                                                 \
         "   <ssd:Component name=\"c\" source=\"rtcosim:vehicle.body\">\n"                    \
         "    <ssd:Connectors>" connectors "</ssd:Connectors>\n"                              \
         "    <ssd:ParameterBindings><ssd:ParameterBinding>\n"                                \
         "     <ssd:ParameterValues><ssv:ParameterSet version=\"1.0\" name=\"p\">"            \
         "<ssv:Parameters>" params "</ssv:Parameters></ssv:ParameterSet></ssd:ParameterValues>\n" \
         mapping "\n"                                                                         \
         "    </ssd:ParameterBinding></ssd:ParameterBindings>\n"                              \
         "   </ssd:Component>\n"                                                              \
         "  </ssd:Elements>\n" TAIL

static rtcosim_system_desc *parse(const char *xml, rtcosim_error *err)
{
    rtcosim_system_desc *d = NULL;
    rtcosim_status st = rtcosim_system_desc_parse(xml, strlen(xml), "/nonexistent-rtcosim-test",
                                                  "m.ssd", &d, err);
    return st == RTCOSIM_OK ? d : NULL;
}

static const rtcosim_ssd_parameter *param(const rtcosim_system_desc *d, size_t comp,
                                          const char *name)
{
    const rtcosim_ssd_component *c = rtcosim_system_desc_component(d, comp);
    for (size_t i = 0; i < c->parameter_count; i++)
        if (strcmp(c->parameters[i].name, name) == 0)
            return &c->parameters[i];
    return NULL;
}

static void renames_transforms_and_drops_the_unmapped(void **state)
{
    (void)state;
    static const char xml[] = ONE_COMPONENT(
        "",
        "<ssv:Parameter name=\"gain\"><ssv:Real value=\"4\"/></ssv:Parameter>"
        "<ssv:Parameter name=\"mass\"><ssv:Real value=\"1200\"/></ssv:Parameter>"
        "<ssv:Parameter name=\"on\"><ssv:Boolean value=\"true\"/></ssv:Parameter>"
        "<ssv:Parameter name=\"gear\"><ssv:Integer value=\"3\"/></ssv:Parameter>"
        "<ssv:Parameter name=\"mode\"><ssv:Enumeration value=\"eco\"/></ssv:Parameter>"
        "<ssv:Parameter name=\"unmapped\"><ssv:Real value=\"7\"/></ssv:Parameter>",
        "<ssd:ParameterMapping><ssm:ParameterMapping version=\"1.0\">"
        "<ssm:MappingEntry source=\"gain\" target=\"k\">"
        "<ssc:LinearTransformation factor=\"0.5\" offset=\"-1\"/></ssm:MappingEntry>"
        "<ssm:MappingEntry source=\"mass\" target=\"m1\"/>"
        "<ssm:MappingEntry source=\"mass\" target=\"m2\"/>"
        "<ssm:MappingEntry source=\"on\" target=\"off\"><ssc:BooleanMappingTransformation>"
        "<ssc:MapEntry source=\"true\" target=\"false\"/>"
        "<ssc:MapEntry source=\"false\" target=\"true\"/>"
        "</ssc:BooleanMappingTransformation></ssm:MappingEntry>"
        "<ssm:MappingEntry source=\"gear\" target=\"ratio\"><ssc:IntegerMappingTransformation>"
        "<ssc:MapEntry source=\"1\" target=\"10\"/><ssc:MapEntry source=\"3\" target=\"30\"/>"
        "</ssc:IntegerMappingTransformation></ssm:MappingEntry>"
        "<ssm:MappingEntry source=\"mode\" target=\"mode\"><ssc:EnumerationMappingTransformation>"
        "<ssc:MapEntry source=\"eco\" target=\"economy\"/>"
        "</ssc:EnumerationMappingTransformation></ssm:MappingEntry>"
        "</ssm:ParameterMapping></ssd:ParameterMapping>");
    rtcosim_error err;
    rtcosim_system_desc *d = parse(xml, &err);
    if (!d)
        fail_msg("%s", err.message);
    const rtcosim_ssd_parameter *p;
    assert_non_null(p = param(d, 0, "k"));
    assert_true(p->value.r == 0.5 * 4 - 1);
    assert_non_null(p = param(d, 0, "m1"));
    assert_true(p->value.r == 1200);
    assert_non_null(p = param(d, 0, "m2"));
    assert_true(p->value.r == 1200);
    assert_non_null(p = param(d, 0, "off"));
    assert_false(p->value.b);
    assert_non_null(p = param(d, 0, "ratio"));
    assert_int_equal(p->value.i, 30);
    assert_non_null(p = param(d, 0, "mode"));
    assert_string_equal(p->value.s, "economy");
    /* section 7.1: not named by the mapping, not applied, by any name */
    assert_null(param(d, 0, "gain"));
    assert_null(param(d, 0, "unmapped"));
    assert_null(param(d, 0, "mass"));
    assert_int_equal(rtcosim_system_desc_component(d, 0)->parameter_count, 6);
    rtcosim_system_desc_free(d);
}

/* 36 km/h in a connector of m/s: converted (10 m/s) then doubled, or, with
 * suppressUnitConversion, only doubled (72). */
static void linear_after_unit_conversion_unless_suppressed(void **state)
{
    (void)state;
    static const char units[] =
        " <ssd:Units>"
        "<ssc:Unit name=\"m/s\"><ssc:BaseUnit m=\"1\" s=\"-1\"/></ssc:Unit>"
        "<ssc:Unit name=\"km/h\"><ssc:BaseUnit m=\"1\" s=\"-1\" factor=\"0.27777777777777778\"/>"
        "</ssc:Unit></ssd:Units>\n";
    static const char body[] = ONE_COMPONENT(
        "<ssd:Connector name=\"v1\" kind=\"parameter\"><ssc:Real unit=\"m/s\"/></ssd:Connector>"
        "<ssd:Connector name=\"v2\" kind=\"parameter\"><ssc:Real unit=\"m/s\"/></ssd:Connector>",
        "<ssv:Parameter name=\"speed\"><ssv:Real value=\"36\" unit=\"km/h\"/></ssv:Parameter>",
        "<ssd:ParameterMapping><ssm:ParameterMapping version=\"1.0\">"
        "<ssm:MappingEntry source=\"speed\" target=\"v1\">"
        "<ssc:LinearTransformation factor=\"2\"/></ssm:MappingEntry>"
        "<ssm:MappingEntry source=\"speed\" target=\"v2\" suppressUnitConversion=\"true\">"
        "<ssc:LinearTransformation factor=\"2\"/></ssm:MappingEntry>"
        "</ssm:ParameterMapping></ssd:ParameterMapping>");
    /* the Units go after the System element, as SSP 1.0 orders them */
    char xml[sizeof body + sizeof units];
    const char *at = strstr(body, TAIL);
    snprintf(xml, sizeof xml, "%.*s </ssd:System>\n%s</ssd:SystemStructureDescription>\n",
             (int)(at - body), body, units);
    rtcosim_error err;
    rtcosim_system_desc *d = parse(xml, &err);
    if (!d)
        fail_msg("%s", err.message);
    assert_true(fabs(param(d, 0, "v1")->value.r - 20.0) < 1e-12);
    assert_true(param(d, 0, "v2")->value.r == 72.0);
    rtcosim_system_desc_free(d);
}

/* At system level: the binding's prefix comes first ("c." + "k" = "c.k" is
 * what the mapping names), one source goes to two components. */
static void prefix_before_mapping_one_source_two_targets(void **state)
{
    (void)state;
    static const char xml[] =
        HEAD "  <ssd:Elements>\n"
             "   <ssd:Component name=\"a\" source=\"rtcosim:vehicle.body\"/>\n"
             "   <ssd:Component name=\"b\" source=\"rtcosim:vehicle.body\"/>\n"
             "  </ssd:Elements>\n"
             "  <ssd:ParameterBindings><ssd:ParameterBinding prefix=\"set.\">\n"
             "   <ssd:ParameterValues><ssv:ParameterSet version=\"1.0\" name=\"p\">"
             "<ssv:Parameters><ssv:Parameter name=\"mass\"><ssv:Real value=\"900\"/>"
             "</ssv:Parameter></ssv:Parameters></ssv:ParameterSet></ssd:ParameterValues>\n"
             "   <ssd:ParameterMapping><ssm:ParameterMapping version=\"1.0\">"
             "<ssm:MappingEntry source=\"set.mass\" target=\"a.m\"/>"
             "<ssm:MappingEntry source=\"set.mass\" target=\"b.m\"/>"
             "<ssm:MappingEntry source=\"mass\" target=\"b.never\"/>"
             "</ssm:ParameterMapping></ssd:ParameterMapping>\n"
             "  </ssd:ParameterBinding></ssd:ParameterBindings>\n" TAIL;
    rtcosim_error err;
    rtcosim_system_desc *d = parse(xml, &err);
    if (!d)
        fail_msg("%s", err.message);
    assert_true(param(d, 0, "m")->value.r == 900);
    assert_true(param(d, 1, "m")->value.r == 900);
    assert_null(param(d, 1, "never"));
    rtcosim_system_desc_free(d);
}

/* OMSimulator's own test of parameter mappings (testsuite
 * import_parameter_mapping_from_ssm.lua, its .ssv and .ssm as the test prints
 * them; the nested systems' FMUs left out): one source to several names at
 * system level and into nested systems. Its expected output agrees for every
 * mapped name (parameter_1 = -30 and Input_1 = 20 at each level); it also
 * applies parameter_2 = -40 and Input_3 = 50, which no entry names: SSP 1.0
 * section 7.1 says those are not applied, so rtcosim does not, and says so. */
static void omsimulator_import_parameter_mapping(void **state)
{
    (void)state;
#define NESTED(name)                                                                          \
    "   <ssd:System name=\"" name "\"><ssd:Connectors>"                                         \
    "<ssd:Connector name=\"Input_1\" kind=\"input\"><ssc:Real/></ssd:Connector>"              \
    "<ssd:Connector name=\"Input_2\" kind=\"input\"><ssc:Real/></ssd:Connector>"              \
    "<ssd:Connector name=\"parameter_1\" kind=\"parameter\"><ssc:Real/></ssd:Connector>"      \
    "<ssd:Connector name=\"parameter_2\" kind=\"parameter\"><ssc:Real/></ssd:Connector>"      \
    "</ssd:Connectors></ssd:System>\n"
    static const char xml[] =
        HEAD "  <ssd:Connectors>"
             "<ssd:Connector name=\"Input_1\" kind=\"input\"><ssc:Real/></ssd:Connector>"
             "<ssd:Connector name=\"Input_2\" kind=\"input\"><ssc:Real/></ssd:Connector>"
             "<ssd:Connector name=\"Input_3\" kind=\"input\"><ssc:Real/></ssd:Connector>"
             "<ssd:Connector name=\"parameter_1\" kind=\"parameter\"><ssc:Real/></ssd:Connector>"
             "<ssd:Connector name=\"parameter_2\" kind=\"parameter\"><ssc:Real/></ssd:Connector>"
             "</ssd:Connectors>\n"
             "  <ssd:ParameterBindings><ssd:ParameterBinding>\n"
             "   <ssd:ParameterValues><ssv:ParameterSet version=\"1.0\" name=\"parameters\">"
             "<ssv:Parameters>\n"
             "<ssv:Parameter name=\"parameter_2\"><ssv:Real value=\"-40\"/></ssv:Parameter>\n"
             "<ssv:Parameter name=\"cosim_parameters\"><ssv:Real value=\"-30\"/></ssv:Parameter>\n"
             "<ssv:Parameter name=\"cosim_input\"><ssv:Real value=\"20\"/></ssv:Parameter>\n"
             "<ssv:Parameter name=\"Input_3\"><ssv:Real value=\"50\"/></ssv:Parameter>\n"
             "</ssv:Parameters></ssv:ParameterSet></ssd:ParameterValues>\n"
             "   <ssd:ParameterMapping><ssm:ParameterMapping version=\"1.0\">\n"
             "<ssm:MappingEntry source=\"cosim_parameters\" target=\"parameter_1\"/>\n"
             "<ssm:MappingEntry source=\"cosim_parameters\" target=\"System1.parameter_1\"/>\n"
             "<ssm:MappingEntry source=\"cosim_parameters\" target=\"System2.parameter_1\"/>\n"
             "<ssm:MappingEntry source=\"cosim_input\" target=\"Input_1\"/>\n"
             "<ssm:MappingEntry source=\"cosim_input\" target=\"Input_2\"/>\n"
             "<ssm:MappingEntry source=\"cosim_input\" target=\"System1.Input_1\"/>\n"
             "<ssm:MappingEntry source=\"cosim_input\" target=\"System1.Input_2\"/>\n"
             "<ssm:MappingEntry source=\"cosim_input\" target=\"System2.Input_1\"/>\n"
             "<ssm:MappingEntry source=\"cosim_input\" target=\"System2.Input_2\"/>\n"
             "</ssm:ParameterMapping></ssd:ParameterMapping>\n"
             "  </ssd:ParameterBinding></ssd:ParameterBindings>\n"
             "  <ssd:Elements>\n" NESTED("System2") NESTED("System1") "  </ssd:Elements>\n" TAIL;
#undef NESTED
    rtcosim_error err;
    rtcosim_system_desc *d = parse(xml, &err);
    if (!d)
        fail_msg("%s", err.message);
    static const struct {
        const char *name;
        double value;
    } want[] = {{"parameter_1", -30},         {"System1.parameter_1", -30},
                {"System2.parameter_1", -30}, {"Input_1", 20},
                {"Input_2", 20},              {"System1.Input_1", 20},
                {"System1.Input_2", 20},      {"System2.Input_1", 20},
                {"System2.Input_2", 20}};
    size_t n = rtcosim_system_desc_parameter_count(d);
    assert_int_equal(n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        size_t k = 0;
        while (k < n && strcmp(rtcosim_system_desc_parameter(d, k)->name, want[i].name) != 0)
            k++;
        if (k == n)
            fail_msg("no parameter '%s'", want[i].name);
        assert_true(rtcosim_system_desc_parameter(d, k)->value.r == want[i].value);
    }
    int said = 0;
    for (size_t i = 0; i < rtcosim_system_desc_info_count(d); i++) {
        const char *info = rtcosim_system_desc_info(d, i);
        said += strstr(info, "m.ssd:11: warning: parameter 'parameter_2' is named by no entry") != NULL;
        said += strstr(info, "m.ssd:14: warning: parameter 'Input_3' is named by no entry") != NULL;
    }
    assert_int_equal(said, 2);
    rtcosim_system_desc_free(d);
}

static void expect_error(const char *xml, const char *want)
{
    rtcosim_error err;
    rtcosim_system_desc *d = parse(xml, &err);
    if (d)
        fail_msg("accepted; expected \"%s\"", want);
    if (!strstr(err.message, want))
        fail_msg("error \"%s\" lacks \"%s\"", err.message, want);
}

#define BAD(mapping)                                                                          \
    ONE_COMPONENT("", "<ssv:Parameter name=\"gain\"><ssv:Real value=\"4\"/></ssv:Parameter>"  \
                      "<ssv:Parameter name=\"g2\"><ssv:Real value=\"5\"/></ssv:Parameter>",   \
                  mapping)

static void bad_mappings_are_refused_naming_file_and_line(void **state)
{
    (void)state;
    expect_error(BAD("<ssd:ParameterMapping><ssm:ParameterMapping>"
                     "<ssm:MappingEntry source=\"gain\" target=\"k\"/>\n"
                     "<ssm:MappingEntry source=\"g2\" target=\"k\"/>"
                     "</ssm:ParameterMapping></ssd:ParameterMapping>"),
                 "m.ssd:14: parameters 'gain' (line 13) and 'g2' are both mapped to 'k'");
    expect_error(BAD("<ssd:ParameterMapping><ssm:ParameterMapping>"
                     "<ssm:MappingEntry source=\"gain\" target=\"k\">"
                     "<ssc:BooleanMappingTransformation><ssc:MapEntry source=\"true\" "
                     "target=\"false\"/></ssc:BooleanMappingTransformation></ssm:MappingEntry>"
                     "</ssm:ParameterMapping></ssd:ParameterMapping>"),
                 "parameter 'gain' is Real, but mapping entry 'gain' -> 'k' (m.ssd:13) has a "
                 "Boolean mapping transformation");
    expect_error(BAD("<ssd:ParameterMapping><ssm:ParameterMapping>"
                     "<ssm:MappingEntry source=\"gain\"/>"
                     "</ssm:ParameterMapping></ssd:ParameterMapping>"),
                 "m.ssd:13: ssm:MappingEntry needs a source and a target");
    expect_error(BAD("<ssd:ParameterMapping><ssm:ParameterMapping>"
                     "<ssm:MappingEntry source=\"gain\" target=\"k\">"
                     "<ssc:LinearTransformation factor=\"x\"/></ssm:MappingEntry>"
                     "</ssm:ParameterMapping></ssd:ParameterMapping>"),
                 "ssc:LinearTransformation with a bad factor or offset");
    expect_error(BAD("<ssd:ParameterMapping><ssm:ParameterMapping>"
                     "<ssm:MappingEntry source=\"gain\" target=\"k\" suppressUnitConversion=\"maybe\"/>"
                     "</ssm:ParameterMapping></ssd:ParameterMapping>"),
                 "suppressUnitConversion \"maybe\" is not a Boolean");
    expect_error(BAD("<ssd:ParameterMapping><ssm:ParameterMapping>"
                     "<ssm:MappingEntry source=\"gain\" target=\"k\">"
                     "<ssc:LinearTransformation/><ssc:LinearTransformation/></ssm:MappingEntry>"
                     "</ssm:ParameterMapping></ssd:ParameterMapping>"),
                 "mapping entry 'gain' has more than one transformation");
    expect_error(BAD("<ssd:ParameterMapping source=\"none.ssm\"/>"),
                 "parameter mapping 'none.ssm' not found");
    expect_error(BAD("<ssd:ParameterMapping type=\"text/csv\" source=\"m.csv\"/>"),
                 "parameter mapping of type 'text/csv' is not supported");
    expect_error(BAD("<ssd:ParameterMapping/>"),
                 "ssd:ParameterMapping has neither a source nor an ssm:ParameterMapping");
    expect_error(BAD("<ssd:ParameterMapping><ssv:ParameterSet/></ssd:ParameterMapping>"),
                 "expected an ssm:ParameterMapping");
    expect_error(BAD("<ssd:ParameterMapping><ssm:ParameterMapping version=\"3.0\"/>"
                     "</ssd:ParameterMapping>"),
                 "ssm:ParameterMapping version '3.0' is not supported");
}

static rtcosim_status keep_last(void *context, rtcosim_time_ns t, const double *values,
                                size_t count, rtcosim_error *err)
{
    (void)t, (void)err;
    assert_int_equal(count, 1);
    *(double *)context = values[0];
    return RTCOSIM_OK;
}

/* An .ssp whose binding takes its values from params.ssv and its mapping
 * from mapping.ssm (SSP 1.0's own file forms): "rate" 4 halved to k = 2,
 * "initial" to x0 = 3, "dt" to solver_step = 1e-4, and the set's own "k" of
 * 100 not applied: x(1) = 3 (1 - 2e-4)^10000. */
static void ssm_file_in_an_ssp_drives_an_fmu(void **state)
{
    (void)state;
    static const char ssd[] =
        "<?xml version=\"1.0\"?>\n"
        "<ssd:SystemStructureDescription version=\"1.0\" name=\"decay\"\n"
        " xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\"\n"
        " xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\">\n"
        " <ssd:System name=\"decay\"><ssd:Elements>\n"
        "  <ssd:Component name=\"d\" source=\"resources/dahlquist.fmu\">\n"
        "   <ssd:ParameterBindings><ssd:ParameterBinding source=\"params.ssv\">\n"
        "    <ssd:ParameterMapping source=\"mapping.ssm\"/>\n"
        "   </ssd:ParameterBinding></ssd:ParameterBindings>\n"
        "  </ssd:Component>\n"
        " </ssd:Elements></ssd:System>\n"
        "</ssd:SystemStructureDescription>\n";
    static const char ssv[] =
        "<?xml version=\"1.0\"?>\n"
        "<ssv:ParameterSet version=\"1.0\" name=\"p\"\n"
        " xmlns:ssv=\"http://ssp-standard.org/SSP1/SystemStructureParameterValues\">\n"
        " <ssv:Parameters>\n"
        "  <ssv:Parameter name=\"rate\"><ssv:Real value=\"4\"/></ssv:Parameter>\n"
        "  <ssv:Parameter name=\"initial\"><ssv:Real value=\"3\"/></ssv:Parameter>\n"
        "  <ssv:Parameter name=\"dt\"><ssv:Real value=\"1e-4\"/></ssv:Parameter>\n"
        "  <ssv:Parameter name=\"k\"><ssv:Real value=\"100\"/></ssv:Parameter>\n"
        " </ssv:Parameters>\n"
        "</ssv:ParameterSet>\n";
    static const char ssm[] =
        "<?xml version=\"1.0\"?>\n"
        "<ssm:ParameterMapping version=\"1.0\"\n"
        " xmlns:ssm=\"http://ssp-standard.org/SSP1/SystemStructureParameterMapping\"\n"
        " xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\">\n"
        " <ssm:MappingEntry source=\"rate\" target=\"k\"><ssc:LinearTransformation factor=\"0.5\"/>"
        "</ssm:MappingEntry>\n"
        " <ssm:MappingEntry source=\"initial\" target=\"x0\"/>\n"
        " <ssm:MappingEntry source=\"dt\" target=\"solver_step\"/>\n"
        "</ssm:ParameterMapping>\n";
    const char *path = tu_scratch("decay.ssp");
    const tu_entry entries[] = {{.name = "SystemStructure.ssd", .text = ssd},
                                {.name = "params.ssv", .text = ssv},
                                {.name = "mapping.ssm", .text = ssm},
                                {.name = "resources/dahlquist.fmu", .file = RTCOSIM_FMU_DAHLQUIST_FMI3}};
    tu_zip(path, entries, sizeof entries / sizeof entries[0]);
    rtcosim_system_desc *d = NULL;
    rtcosim_error err;
    if (rtcosim_system_desc_load(path, &d, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    const char *observe[] = {"d.x"};
    rtcosim_system_build_options opts = {.observe = observe, .observe_count = 1,
                                         .overrides = {.has_step_size = true,
                                                       .step_size_ns = RTCOSIM_NS_PER_S / 100}};
    rtcosim_master *m = NULL;
    if (rtcosim_system_build_master(d, &opts, &m, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    double x = 0;
    if (rtcosim_master_initialize(m, 0, RTCOSIM_NS_PER_S, &err) != RTCOSIM_OK ||
        rtcosim_master_run(m, RTCOSIM_NS_PER_S, keep_last, &x, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    double exact = 3.0 * pow(1.0 - 2.0 * 1e-4, 10000);
    if (fabs(x - exact) > 1e-9 * exact)
        fail_msg("x(1) = %.17g, expected %.17g", x, exact);
    rtcosim_master_free(m);
    rtcosim_system_desc_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(renames_transforms_and_drops_the_unmapped),
        cmocka_unit_test(linear_after_unit_conversion_unless_suppressed),
        cmocka_unit_test(prefix_before_mapping_one_source_two_targets),
        cmocka_unit_test(omsimulator_import_parameter_mapping),
        cmocka_unit_test(bad_mappings_are_refused_naming_file_and_line),
        cmocka_unit_test(ssm_file_in_an_ssp_drives_an_fmu),
    };
    return cmocka_run_group_tests(tests, tu_scratch_group_setup, tu_scratch_group_teardown);
}
