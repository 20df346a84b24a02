/* ModelStructure output dependencies (FMI 2.0 section 2.2.8, FMI 3.0 section
 * 2.4.8) parsed from hand-written descriptions: an absent attribute means
 * "depends on all knowns", an empty one "on none", a list names variables by
 * 1-based index (2.0) or value reference (3.0); a dangling entry makes the
 * output depend on everything (the safe reading) with a warning naming the
 * output and the entry, and is refused with strict parsing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fmi/model_description.h"
#include "rtcosim/log.h"

static rtcosim_status parse(const char *xml, rtcosim_fmi_md **md, rtcosim_error *err)
{
    return rtcosim_fmi_md_parse(xml, strlen(xml), "modelDescription.xml", md, err);
}

#define FMI2_HEAD                                                                          \
    "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"M\" guid=\"g\">"                  \
    "<CoSimulation modelIdentifier=\"m\"/><ModelVariables>"                                \
    "<ScalarVariable name=\"u1\" valueReference=\"10\" causality=\"input\"><Real start=\"0\"/></ScalarVariable>" \
    "<ScalarVariable name=\"u2\" valueReference=\"11\" causality=\"input\"><Real start=\"0\"/></ScalarVariable>" \
    "<ScalarVariable name=\"y1\" valueReference=\"12\" causality=\"output\"><Real/></ScalarVariable>" \
    "<ScalarVariable name=\"y2\" valueReference=\"13\" causality=\"output\"><Real/></ScalarVariable>" \
    "<ScalarVariable name=\"y3\" valueReference=\"14\" causality=\"output\"><Real/></ScalarVariable>" \
    "</ModelVariables><ModelStructure><Outputs>"
#define FMI2_TAIL "</Outputs></ModelStructure></fmiModelDescription>"

#define FMI3_HEAD                                                                          \
    "<fmiModelDescription fmiVersion=\"3.0\" modelName=\"M\" instantiationToken=\"g\">"    \
    "<CoSimulation modelIdentifier=\"m\"/><ModelVariables>"                                \
    "<Float64 name=\"u1\" valueReference=\"10\" causality=\"input\" start=\"0\"/>"         \
    "<Float64 name=\"u2\" valueReference=\"11\" causality=\"input\" start=\"0\"/>"         \
    "<Float64 name=\"y1\" valueReference=\"12\" causality=\"output\"/>"                    \
    "<Float64 name=\"y2\" valueReference=\"13\" causality=\"output\"/>"                    \
    "<Float64 name=\"y3\" valueReference=\"14\" causality=\"output\"/>"                    \
    "</ModelVariables><ModelStructure>"
#define FMI3_TAIL "</ModelStructure></fmiModelDescription>"

/* Outputs y1 (indices 2), y2 (3), y3 (4) with: absent, empty, "u2 u1". */
static void check_three(const rtcosim_fmi_md *md)
{
    assert_int_equal(md->output_count, 3);
    assert_false(md->output_dependencies_declared[0]);
    assert_true(md->output_dependencies_declared[1]);
    assert_int_equal(md->output_dependency_start[1], md->output_dependency_start[2]);
    assert_true(md->output_dependencies_declared[2]);
    assert_int_equal(md->output_dependency_start[3] - md->output_dependency_start[2], 2);
    assert_int_equal(md->output_dependencies[md->output_dependency_start[2]], 1);
    assert_int_equal(md->output_dependencies[md->output_dependency_start[2] + 1], 0);
}

static void fmi2_dependencies_absent_empty_and_listed(void **state)
{
    (void)state;
    rtcosim_fmi_md *md = NULL;
    rtcosim_error err = {0};
    const char *xml = FMI2_HEAD "<Unknown index=\"3\"/><Unknown index=\"4\" dependencies=\"\"/>"
                                "<Unknown index=\"5\" dependencies=\" 2  1 \"/>" FMI2_TAIL;
    if (parse(xml, &md, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    check_three(md);
    rtcosim_fmi_md_free(md);
}

static void fmi3_dependencies_absent_empty_and_listed(void **state)
{
    (void)state;
    rtcosim_fmi_md *md = NULL;
    rtcosim_error err = {0};
    const char *xml = FMI3_HEAD "<Output valueReference=\"12\"/><Output valueReference=\"13\" "
                                "dependencies=\"\"/><Output valueReference=\"14\" "
                                "dependencies=\"11 10\"/>" FMI3_TAIL;
    if (parse(xml, &md, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    check_three(md);
    rtcosim_fmi_md_free(md);
}

static void expect_refused(const char *xml, const char *text)
{
    rtcosim_fmi_md *md = NULL;
    rtcosim_error err = {0};
    /* Default: accepted, the output's dependencies taken as undeclared. */
    assert_int_equal(parse(xml, &md, &err), RTCOSIM_OK);
    assert_int_equal(md->output_count, 1);
    assert_false(md->output_dependencies_declared[0]);
    assert_int_equal(md->output_dependency_start[1], md->output_dependency_start[0]);
    assert_int_equal(md->warning_count, 1);
    rtcosim_fmi_md_free(md);
    /* Strict: refused naming the output and the entry. */
    rtcosim_fmi_md_options strict = {.strict = true};
    md = NULL;
    assert_int_equal(rtcosim_fmi_md_parse_with(xml, strlen(xml), "modelDescription.xml", &strict,
                                               &md, &err),
                     RTCOSIM_EFORMAT);
    assert_null(md);
    if (!strstr(err.message, text))
        fail_msg("message '%s' lacks '%s'", err.message, text);
}

static void dangling_dependency_means_all_and_strict_refuses_it(void **state)
{
    (void)state;
    rtcosim_log_set_level(RTCOSIM_LOG_ERROR); /* the warnings are expected */
    expect_refused(FMI2_HEAD "<Unknown index=\"3\" dependencies=\"1 6\"/>" FMI2_TAIL,
                   "output 'y1': dependencies entry '6' refers to no variable");
    expect_refused(FMI2_HEAD "<Unknown index=\"3\" dependencies=\"0\"/>" FMI2_TAIL,
                   "output 'y1': dependencies entry '0' refers to no variable");
    expect_refused(FMI2_HEAD "<Unknown index=\"4\" dependencies=\"x\"/>" FMI2_TAIL,
                   "output 'y2': dependencies entry 'x' refers to no variable");
    expect_refused(FMI3_HEAD "<Output valueReference=\"14\" dependencies=\"10 99\"/>" FMI3_TAIL,
                   "output 'y3': dependencies entry '99' refers to no variable");
    rtcosim_log_set_level(RTCOSIM_LOG_WARNING);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fmi2_dependencies_absent_empty_and_listed),
        cmocka_unit_test(fmi3_dependencies_absent_empty_and_listed),
        cmocka_unit_test(dangling_dependency_means_all_and_strict_refuses_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
