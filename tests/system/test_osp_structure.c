/* libcosim's OspSystemStructure.xml as a system format, reproduced with the
 * project's FMUs and files written here: the elements of libcosim's
 * OspSystemStructure.xsd (StartTime, EndTime, BaseStepSize, Algorithm,
 * Simulators with stepSize and InitialValues, VariableConnection in either
 * order, VariableGroupConnection through <model>_OspModelDescription.xml,
 * LinearTransformation through SignalConnections, powerBond), run against
 * values worked out by hand, and each malformed file refused with one line
 * naming file, line and element or attribute. */
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

#define OSP_HEAD                                                                       \
    "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"                                     \
    "<OspSystemStructure xmlns=\"http://opensimulationplatform.com/MSMI/OSPSystemStructure\" " \
    "version=\"0.1\">\n"

static char *dir;

static int setup(void **state)
{
    (void)state;
    dir = tu_make_dir();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tu_drop_dir(dir);
    return 0;
}

static const char *write_osp(const char *body)
{
    static char path[4096];
    static char text[16384];
    snprintf(path, sizeof path, "%s/OspSystemStructure.xml", dir);
    snprintf(text, sizeof text, "%s%s</OspSystemStructure>\n", OSP_HEAD, body);
    tu_write_file(path, text);
    return path;
}

static rtcosim_system_desc *load(const char *path)
{
    rtcosim_system_desc *d = NULL;
    rtcosim_error err;
    if (rtcosim_system_desc_load(path, &d, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    return d;
}

static void near_or_fail(double got, double want, double tol, int line)
{
    if (!(fabs(got - want) <= tol))
        fail_msg("line %d: %.17g, expected %.17g (within %g)", line, got, want, tol);
}
#define assert_near(got, want, tol) near_or_fail((got), (want), (tol), __LINE__)

static size_t observed(const rtcosim_master *m, const char *name)
{
    for (size_t i = 0; i < rtcosim_master_observed_count(m); i++)
        if (strcmp(rtcosim_master_observed_name(m, i), name) == 0)
            return i;
    fail_msg("'%s' is not observed", name);
    return 0;
}

/* libcosim's OspSystemStructure_Dahlquist shape with a decimated simulator:
 * base step 1e-4 s, the Dahlquist FMU at stepSize 1e-3 s with k = 2 and one
 * Euler step per communication step (solver_step 1): x = (1 - 2e-3)^m at
 * t = m * 1e-3, held between; a Feedthrough reading it (connection written
 * input first, libcosim orders it by causality) through a
 * LinearTransformation 10 x + 1 sees it one base step later (Jacobi). */
static void test_runs_with_decimation_initial_values_and_transformation(void **state)
{
    (void)state;
    char body[8192];
    snprintf(body, sizeof body,
             "  <StartTime>0.0</StartTime>\n"
             "  <EndTime>3e-3</EndTime>\n"
             "  <BaseStepSize>1e-4</BaseStepSize>\n"
             "  <Algorithm>fixedStep</Algorithm>\n"
             "  <Simulators>\n"
             "    <Simulator name=\"dq\" source=\"%s\" stepSize=\"1e-3\">\n"
             "      <InitialValues>\n"
             "        <InitialValue variable=\"k\"><Real value=\"2\"/></InitialValue>\n"
             "        <InitialValue variable=\"solver_step\"><Real value=\"1\"/></InitialValue>\n"
             "      </InitialValues>\n"
             "    </Simulator>\n"
             "    <Simulator name=\"ft\" source=\"%s\">\n"
             "      <InitialValues><InitialValue variable=\"Boolean_parameter\">"
             "<Boolean value=\"0\"/></InitialValue></InitialValues>\n"
             "    </Simulator>\n"
             "    <Simulator name=\"copy\" source=\"%s\"/>\n"
             "  </Simulators>\n"
             "  <Functions><LinearTransformation name=\"scale\" factor=\"10\" offset=\"1\"/></Functions>\n"
             "  <Connections>\n"
             "    <SignalConnection><Variable simulator=\"dq\" name=\"x\"/>"
             "<Signal function=\"scale\" name=\"in\"/></SignalConnection>\n"
             "    <SignalConnection><Signal function=\"scale\" name=\"out\"/>"
             "<Variable simulator=\"ft\" name=\"Float64_continuous_input\"/></SignalConnection>\n"
             "    <VariableConnection>\n"
             "      <Variable simulator=\"copy\" name=\"Float64_continuous_input\"/>\n"
             "      <Variable simulator=\"dq\" name=\"x\"/>\n"
             "    </VariableConnection>\n"
             "  </Connections>\n",
             RTCOSIM_FMU_DAHLQUIST_FMI2, RTCOSIM_FMU_FEEDTHROUGH_FMI2, RTCOSIM_FMU_FEEDTHROUGH_FMI2);
    rtcosim_system_desc *d = load(write_osp(body));
    assert_string_equal(rtcosim_system_desc_format(d), "OspSystemStructure");
    rtcosim_time_ns h = 0, stop = 0;
    rtcosim_ssd_step_origin origin;
    assert_true(rtcosim_system_desc_macro_step(d, &h, &origin));
    assert_int_equal(h, 100 * RTCOSIM_NS_PER_US);
    assert_int_equal(origin, RTCOSIM_STEP_FROM_OSP);
    assert_true(rtcosim_system_desc_stop_time(d, &stop));
    assert_int_equal(stop, 3 * RTCOSIM_NS_PER_MS);
    assert_int_equal(rtcosim_system_desc_connection_count(d), 2);
    const rtcosim_ssd_connection *copy = rtcosim_system_desc_connection(d, 0);
    assert_string_equal(copy->start.component, "dq"); /* ordered by causality */
    assert_string_equal(copy->end.component, "copy");
    const rtcosim_ssd_connection *scaled = rtcosim_system_desc_connection(d, 1);
    assert_true(scaled->has_linear_transformation);
    assert_near(scaled->factor, 10, 0);
    assert_near(scaled->offset, 1, 0);
    const rtcosim_ssd_component *ft = rtcosim_system_desc_component(d, 1);
    assert_int_equal(ft->parameter_count, 1);
    assert_false(ft->parameters[0].value.b);

    rtcosim_master *m = NULL;
    rtcosim_error err;
    if (rtcosim_system_build_master(d, NULL, &m, &err) != RTCOSIM_OK ||
        rtcosim_master_initialize(m, 0, stop, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    size_t x = observed(m, "dq.x"), y = observed(m, "ft.Float64_continuous_output"),
           c = observed(m, "copy.Float64_continuous_output");
    for (int n = 1; n <= 30; n++) {
        if (rtcosim_master_step(m, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        const double *v = rtcosim_master_observed_values(m);
        double now = pow(1 - 2e-3, n / 10), before = pow(1 - 2e-3, (n - 1) / 10);
        assert_near(v[x], now, 1e-13);
        assert_near(v[c], before, 1e-13);
        assert_near(v[y], 10 * before + 1, 1e-12);
    }
    rtcosim_master_free(m);
    rtcosim_system_desc_free(d);
}

/* Variable groups as libcosim resolves them: the group's nested groups
 * pairwise, then its own variables pairwise (here a "port" of two
 * variables and a nested group of one on each side), from
 * <modelName>_OspModelDescription.xml beside the system file (here in the
 * 0.1 namespace libcosim's msmi test data uses; the malformed cases below
 * use the 1.0.0 one); and a power
 * bond of two VariableConnections running in opposite directions (as in
 * libcosim's quarter_truck), effort and flow named by their input ends. */
static void test_variable_groups_and_power_bonds(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/Feedthrough_OspModelDescription.xml", dir);
    tu_write_file(path,
                  "<?xml version=\"1.0\"?>\n"
                  "<OspModelDescription xmlns=\"http://opensimulationplatform.com/MSMI/"
                  "OSPModelDescription\" version=\"0.1\">\n"
                  " <VariableGroups>\n"
                  "  <Generic name=\"outs\">\n"
                  "   <Generic name=\"flag out\"><Variable ref=\"Boolean_output\"/></Generic>\n"
                  "   <Variable ref=\"Float64_continuous_output\"/><Variable ref=\"Int32_output\"/>\n"
                  "  </Generic>\n"
                  "  <Generic name=\"ins\">\n"
                  "   <Generic name=\"flag in\"><Variable ref=\"Boolean_input\"/></Generic>\n"
                  "   <Variable ref=\"Float64_continuous_input\"/><Variable ref=\"Int32_input\"/>\n"
                  "  </Generic>\n"
                  " </VariableGroups>\n"
                  "</OspModelDescription>\n");
    char body[8192];
    snprintf(body, sizeof body,
             "  <BaseStepSize>1e-3</BaseStepSize>\n"
             "  <Simulators>\n"
             "    <Simulator name=\"a\" source=\"%s\"/>\n"
             "    <Simulator name=\"b\" source=\"%s\"/>\n"
             "  </Simulators>\n"
             "  <Connections>\n"
             "    <VariableGroupConnection>\n"
             "      <VariableGroup simulator=\"a\" name=\"outs\"/>\n"
             "      <VariableGroup simulator=\"b\" name=\"ins\"/>\n"
             "    </VariableGroupConnection>\n"
             "    <VariableConnection powerBond=\"pb\"><Variable simulator=\"b\" "
             "name=\"Float64_continuous_output\" causality=\"output\"/><Variable simulator=\"a\" "
             "name=\"Float64_continuous_input\" causality=\"input\"/></VariableConnection>\n"
             "    <VariableConnection powerBond=\"pb\"><Variable simulator=\"b\" "
             "name=\"Float64_discrete_input\"/><Variable simulator=\"a\" "
             "name=\"Float64_discrete_output\"/></VariableConnection>\n"
             "  </Connections>\n",
             RTCOSIM_FMU_FEEDTHROUGH_FMI2, RTCOSIM_FMU_FEEDTHROUGH_FMI2);
    rtcosim_system_desc *d = load(write_osp(body));
    static const char *const expected[][2] = {
        {"a.Boolean_output", "b.Boolean_input"},
        {"a.Float64_continuous_output", "b.Float64_continuous_input"},
        {"a.Int32_output", "b.Int32_input"},
        {"b.Float64_continuous_output", "a.Float64_continuous_input"},
        {"a.Float64_discrete_output", "b.Float64_discrete_input"},
    };
    assert_int_equal(rtcosim_system_desc_connection_count(d), 5);
    for (size_t i = 0; i < 5; i++) {
        const rtcosim_ssd_connection *cn = rtcosim_system_desc_connection(d, i);
        char from[256], to[256];
        snprintf(from, sizeof from, "%s.%s", cn->start.component, cn->start.connector);
        snprintf(to, sizeof to, "%s.%s", cn->end.component, cn->end.connector);
        assert_string_equal(from, expected[i][0]);
        assert_string_equal(to, expected[i][1]);
    }
    const rtcosim_ssd_master_settings *s = rtcosim_system_desc_master(d);
    assert_int_equal(s->bond_count, 1);
    assert_string_equal(s->bonds[0].effort, "a.Float64_continuous_input");
    assert_string_equal(s->bonds[0].flow, "b.Float64_discrete_input");
    /* The master takes all of it. */
    rtcosim_master *m = NULL;
    rtcosim_error err;
    if (rtcosim_system_build_master(d, NULL, &m, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(rtcosim_master_connection_count(m), 5);
    rtcosim_master_free(m);
    rtcosim_system_desc_free(d);
}

/* A directory is read as libcosim reads one: its OspSystemStructure.xml. */
static void test_directory_and_default_base_step(void **state)
{
    (void)state;
    char body[4096];
    snprintf(body, sizeof body,
             "  <Simulators><Simulator name=\"dq\" source=\"%s\"/></Simulators>\n",
             RTCOSIM_FMU_DAHLQUIST_FMI2);
    write_osp(body);
    rtcosim_system_desc *d = load(dir);
    rtcosim_time_ns h = 0;
    assert_true(rtcosim_system_desc_macro_step(d, &h, NULL));
    assert_int_equal(h, 100 * RTCOSIM_NS_PER_MS); /* libcosim's default 0.1 s */
    assert_int_equal(rtcosim_system_desc_info_count(d), 1);
    assert_non_null(strstr(rtcosim_system_desc_info(d, 0), "no BaseStepSize: libcosim's default 0.1 s"));
    rtcosim_system_desc_free(d);
}

static void test_malformed_files_give_one_line_errors(void **state)
{
    (void)state;
    char sim[2048];
    snprintf(sim, sizeof sim,
             "  <Simulators>\n    <Simulator name=\"a\" source=\"%s\"/>\n"
             "    <Simulator name=\"b\" source=\"%s\"/>\n  </Simulators>\n",
             RTCOSIM_FMU_FEEDTHROUGH_FMI2, RTCOSIM_FMU_FEEDTHROUGH_FMI2);
    char md[4096];
    snprintf(md, sizeof md, "%s/Feedthrough_OspModelDescription.xml", dir);
    tu_write_file(md, "<?xml version=\"1.0\"?>\n"
                      "<OspModelDescription xmlns=\"https://open-simulation-platform.com/"
                      "OspModelDescription/1.0.0\" version=\"1.0\"><VariableGroups>"
                      "<Generic name=\"pair\"><Variable ref=\"Int32_output\"/>"
                      "<Variable ref=\"Boolean_output\"/></Generic>"
                      "<Generic name=\"single\"><Variable ref=\"Int32_input\"/></Generic>"
                      "</VariableGroups></OspModelDescription>\n");
    static const struct {
        const char *body;     /* %s: the two simulators (lines 3-6) */
        const char *message;  /* after "DIR/OspSystemStructure.xml:" */
        rtcosim_status status;
    } cases[] = {
        {"  <BaseStepSize>-1e-4</BaseStepSize>\n%s", "3: BaseStepSize must be positive",
         RTCOSIM_EFORMAT},
        {"  <BaseStepSize>fast</BaseStepSize>\n%s", "3: bad BaseStepSize \"fast\"", RTCOSIM_EFORMAT},
        {"  <StartTime>1</StartTime><EndTime>0.5</EndTime>\n%s", "2: EndTime is before StartTime",
         RTCOSIM_EFORMAT},
        {"  <Algorithm>ecco</Algorithm>\n%s", "3: Algorithm 'ecco' is not supported (fixedStep)",
         RTCOSIM_EUNSUPPORTED},
        {"  <Solver/>\n%s", "3: unknown element 'Solver' in OspSystemStructure", RTCOSIM_EFORMAT},
        {"  <Simulators><Simulator name=\"a\"/></Simulators>\n", "3: Simulator 'a' has no source",
         RTCOSIM_EFORMAT},
        {"  <Simulators><Simulator name=\"a\" source=\"proxyfmu://localhost?file=a.fmu\"/>"
         "</Simulators>\n",
         "3: simulator 'a': source 'proxyfmu://localhost?file=a.fmu' uses an unsupported URI scheme",
         RTCOSIM_EUNSUPPORTED},
        {"  <Simulators><Simulator name=\"a\" source=\"missing.fmu\"/></Simulators>\n",
         "3: simulator 'a': source 'missing.fmu' not found", RTCOSIM_ENOTFOUND},
        {"%s  <Connections><VariableConnection><Variable simulator=\"c\" name=\"x\"/>"
         "<Variable simulator=\"a\" name=\"Int32_input\"/></VariableConnection></Connections>\n",
         "7: Variable names unknown simulator 'c'", RTCOSIM_ENOTFOUND},
        {"%s  <Connections><VariableConnection><Variable simulator=\"a\" name=\"nothing\"/>"
         "<Variable simulator=\"b\" name=\"Int32_input\"/></VariableConnection></Connections>\n",
         "7: simulator 'a' has no input, output or parameter 'nothing'", RTCOSIM_ENOTFOUND},
        {"%s  <Connections><VariableConnection><Variable simulator=\"a\" name=\"Int32_input\"/>"
         "</VariableConnection></Connections>\n",
         "7: VariableConnection takes exactly two Variable elements", RTCOSIM_EFORMAT},
        {"%s  <Connections><VariableConnection><Variable simulator=\"a\" name=\"Int32_output\"/>"
         "<Variable simulator=\"b\" name=\"Float64_continuous_input\"/></VariableConnection>"
         "</Connections>\n",
         "7: connection a.Int32_output -> b.Float64_continuous_input joins incompatible types "
         "Integer and Real", RTCOSIM_EFORMAT},
        {"%s  <Connections><VariableConnection><Variable simulator=\"a\" name=\"Int32_input\"/>"
         "<Variable simulator=\"b\" name=\"Int32_input\"/></VariableConnection></Connections>\n",
         "7: connection a.Int32_input - b.Int32_input joins input and input (one output, one input)",
         RTCOSIM_EFORMAT},
        {"%s  <Functions><Sum name=\"s\" inputCount=\"2\"/></Functions>\n",
         "7: OSP function Sum 's' is not supported (LinearTransformation only)", RTCOSIM_EUNSUPPORTED},
        {"%s  <Functions><LinearTransformation name=\"t\" factor=\"x2\"/></Functions>\n",
         "7: LinearTransformation 't': bad factor \"x2\"", RTCOSIM_EFORMAT},
        {"%s  <Connections><SignalConnection><Variable simulator=\"a\" name=\"Int32_output\"/>"
         "<Signal function=\"none\" name=\"in\"/></SignalConnection></Connections>\n",
         "7: Signal names unknown function 'none'", RTCOSIM_ENOTFOUND},
        {"%s  <Connections><VariableGroupConnection><VariableGroup simulator=\"a\" name=\"g\"/>"
         "<VariableGroup simulator=\"b\" name=\"g\"/></VariableGroupConnection></Connections>\n",
         "7: simulator 'a' has no variable group 'g' in its OspModelDescription", RTCOSIM_ENOTFOUND},
        {"%s  <Connections><VariableGroupConnection><VariableGroup simulator=\"a\" name=\"pair\"/>"
         "<VariableGroup simulator=\"b\" name=\"single\"/></VariableGroupConnection></Connections>\n",
         "7: variable groups a:pair and b:single differ in size (2 and 1 variables)", RTCOSIM_EFORMAT},
        {"%s  <Connections><VariableConnection powerBond=\"p\"><Variable simulator=\"a\" "
         "name=\"Int32_output\"/><Variable simulator=\"b\" name=\"Int32_input\"/>"
         "</VariableConnection></Connections>\n",
         "7: power bond 'p' has 1 connections (two make a bond)", RTCOSIM_EFORMAT},
        {"  <Simulators><Simulator name=\"a\" source=\"" RTCOSIM_FMU_FEEDTHROUGH_FMI2 "\">"
         "<InitialValues><InitialValue variable=\"Int32_input\"><Integer value=\"1.5\"/>"
         "</InitialValue></InitialValues></Simulator></Simulators>\n",
         "3: InitialValue 'Int32_input': bad Integer value \"1.5\"", RTCOSIM_EFORMAT},
        {"  <Simulators><Simulator name=\"a\" source=\"" RTCOSIM_FMU_FEEDTHROUGH_FMI2 "\">"
         "<InitialValues><InitialValue variable=\"x\"><Double value=\"1\"/>"
         "</InitialValue></InitialValues></Simulator></Simulators>\n",
         "3: InitialValue 'x': unknown value element 'Double' (Real, Integer, Boolean, String)",
         RTCOSIM_EFORMAT},
        {"  <StartTime>0</StartTime>\n", "2: OspSystemStructure without Simulators", RTCOSIM_EFORMAT},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char body[8192];
        snprintf(body, sizeof body, cases[i].body, sim);
        const char *path = write_osp(body);
        rtcosim_system_desc *d = NULL;
        rtcosim_error err;
        rtcosim_status st = rtcosim_system_desc_load(path, &d, &err);
        char want[8192];
        snprintf(want, sizeof want, "%s:%s", path, cases[i].message);
        if (st != cases[i].status || strncmp(err.message, want, strlen(want)) != 0)
            fail_msg("case %zu: status %d\n got      '%s'\n expected '%s'", i, (int)st,
                     st == RTCOSIM_OK ? "(loaded)" : err.message, want);
        assert_null(strchr(err.message, '\n'));
    }

    /* Without the OspModelDescription a group cannot be resolved. */
    remove(md);
    char body[8192];
    snprintf(body, sizeof body,
             "%s  <Connections><VariableGroupConnection><VariableGroup simulator=\"a\" name=\"g\"/>"
             "<VariableGroup simulator=\"b\" name=\"g\"/></VariableGroupConnection></Connections>\n",
             sim);
    const char *osp = write_osp(body);
    rtcosim_system_desc *dm = NULL;
    rtcosim_error em;
    assert_int_equal(rtcosim_system_desc_load(osp, &dm, &em), RTCOSIM_ENOTFOUND);
    assert_non_null(strstr(em.message, "OspSystemStructure.xml:7: variable group of simulator 'a': "
                                       "no Feedthrough_OspModelDescription.xml beside the FMU or "
                                       "the system file"));

    /* Namespace and version of the root. */
    char path[4096];
    snprintf(path, sizeof path, "%s/other.xml", dir);
    tu_write_file(path, "<?xml version=\"1.0\"?>\n<OspSystemStructure version=\"0.1\"/>\n");
    rtcosim_system_desc *d = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_system_desc_load(path, &d, &err), RTCOSIM_EFORMAT);
    assert_non_null(strstr(err.message, "other.xml:2: OspSystemStructure is not in namespace "
                                        "http://opensimulationplatform.com/MSMI/OSPSystemStructure"));
    tu_write_file(path, "<?xml version=\"1.0\"?>\n<OspSystemStructure xmlns=\"http://"
                        "opensimulationplatform.com/MSMI/OSPSystemStructure\" version=\"0.2\"/>\n");
    assert_int_equal(rtcosim_system_desc_load(path, &d, &err), RTCOSIM_EUNSUPPORTED);
    assert_non_null(strstr(err.message, "other.xml:2: OspSystemStructure version '0.2' is not "
                                        "supported (0.1)"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runs_with_decimation_initial_values_and_transformation),
        cmocka_unit_test(test_variable_groups_and_power_bonds),
        cmocka_unit_test(test_directory_and_default_base_step),
        cmocka_unit_test(test_malformed_files_give_one_line_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
