/* Other tools' SSP files as rtcosim reads them, reproduced with the project's
 * own FMUs (build/fmus): libcosim's demo.ssp shape (osp:FixedStepAlgorithm
 * baseStepSize 1e-4 in the DefaultExperiment, osp:StepSizeHint as
 * decimation), OMSimulator's VariableStepMaster, components without
 * ssd:Connectors or with untyped connectors (types from the FMU), and the
 * two semantics of several ParameterBindings on one element.
 *
 * Truth: Dahlquist (models/dahlquist) integrates x' = -k x with explicit
 * Euler in micro steps of at most solver_step, so after n communication
 * steps of h (h <= solver_step) x = (1 - k h)^n, by hand; that is within
 * k^2 t h / 2 of the exact exp(-k t). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtcosim/log.h"
#include "rtcosim/master.h"
#include "rtcosim/system.h"
#include "rtcosim_test_fmus.h"
#include "util/test_util.h"

#define HEAD                                                                           \
    "<?xml version=\"1.0\"?>\n"                                                        \
    "<ssd:SystemStructureDescription version=\"1.0\" name=\"demo\""                    \
    " xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\""           \
    " xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\""                \
    " xmlns:ssv=\"http://ssp-standard.org/SSP1/SystemStructureParameterValues\""       \
    " xmlns:osp=\"http://opensimulationplatform.com/SSP/OSPAnnotations\""              \
    " xmlns:oms=\"https://raw.githubusercontent.com/OpenModelica/OMSimulator/master/schema/oms.xsd\">\n"
#define K_EQUALS(v)                                                                    \
    "<ssd:ParameterBindings><ssd:ParameterBinding><ssd:ParameterValues>"               \
    "<ssv:ParameterSet version=\"1.0\" name=\"initialValues\"><ssv:Parameters>"        \
    "<ssv:Parameter name=\"k\"><ssv:Real value=\"" v "\"/></ssv:Parameter>"            \
    "<ssv:Parameter name=\"solver_step\"><ssv:Real value=\"1\"/></ssv:Parameter>"      \
    "</ssv:Parameters></ssv:ParameterSet></ssd:ParameterValues></ssd:ParameterBinding>" \
    "</ssd:ParameterBindings>"

static void near_or_fail(double got, double want, double tol, int line)
{
    if (!(fabs(got - want) <= tol))
        fail_msg("line %d: %.17g, expected %.17g (within %g)", line, got, want, tol);
}
#define assert_near(got, want, tol) near_or_fail((got), (want), (tol), __LINE__)

static rtcosim_system_desc *parse(const char *text, const char *name)
{
    rtcosim_system_desc *d = NULL;
    rtcosim_error err;
    if (rtcosim_system_desc_parse(text, strlen(text), NULL, name, &d, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    return d;
}

static rtcosim_master *build_initialized(const rtcosim_system_desc *d, rtcosim_time_ns stop)
{
    rtcosim_master *m = NULL;
    rtcosim_error err;
    if (rtcosim_system_build_master(d, NULL, &m, &err) != RTCOSIM_OK ||
        rtcosim_master_initialize(m, 0, stop, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    return m;
}

static size_t observed(const rtcosim_master *m, const char *name)
{
    for (size_t i = 0; i < rtcosim_master_observed_count(m); i++)
        if (strcmp(rtcosim_master_observed_name(m, i), name) == 0)
            return i;
    fail_msg("'%s' is not observed", name);
    return 0;
}

/* libcosim's demo.ssp: the base step from osp:FixedStepAlgorithm in the
 * DefaultExperiment (1e-4 s), one component stepping every 10th base step
 * (StepSizeHint 1e-3 s); solver_step 1 makes each communication step one
 * Euler step, so the decimated component shows 1 - k 1e-3 per 1e-3 s, held
 * in between, and the other (1 - k 1e-4)^n. */
static void test_osp_base_step_and_decimation_on_the_euler_grid(void **state)
{
    (void)state;
    static char text[8192];
    snprintf(text, sizeof text,
             HEAD " <ssd:System name=\"s\"><ssd:Elements>\n"
                  "  <ssd:Component name=\"fast\" source=\"%s\">" K_EQUALS("2") "</ssd:Component>\n"
                  "  <ssd:Component name=\"slow\" source=\"%s\">" K_EQUALS("2")
                  "<ssd:Annotations><ssc:Annotation type=\"com.opensimulationplatform\">"
                  "<osp:StepSizeHint value=\"1e-3\"/></ssc:Annotation></ssd:Annotations>"
                  "</ssd:Component>\n"
                  " </ssd:Elements></ssd:System>\n"
                  " <ssd:DefaultExperiment startTime=\"0\" stopTime=\"3e-3\"><ssd:Annotations>"
                  "<ssc:Annotation type=\"com.opensimulationplatform\"><osp:Algorithm>"
                  "<osp:FixedStepAlgorithm baseStepSize=\"1e-4\" numWorkerThreads=\"2\"/>"
                  "</osp:Algorithm></ssc:Annotation></ssd:Annotations></ssd:DefaultExperiment>\n"
                  "</ssd:SystemStructureDescription>\n",
             RTCOSIM_FMU_DAHLQUIST_FMI2, RTCOSIM_FMU_DAHLQUIST_FMI3);
    rtcosim_system_desc *d = parse(text, "demo.ssd");
    rtcosim_time_ns h = 0;
    rtcosim_ssd_step_origin origin;
    assert_true(rtcosim_system_desc_macro_step(d, &h, &origin));
    assert_int_equal(h, 100 * RTCOSIM_NS_PER_US);
    assert_int_equal(origin, RTCOSIM_STEP_FROM_OSP);
    assert_int_equal(rtcosim_system_desc_master(d)->threads, 2); /* numWorkerThreads */
    assert_int_equal(rtcosim_system_desc_component(d, 1)->step_size_hint_ns, RTCOSIM_NS_PER_MS);
    assert_int_equal(rtcosim_system_desc_info_count(d), 0);

    rtcosim_master *m = build_initialized(d, 3 * RTCOSIM_NS_PER_MS);
    size_t fast = observed(m, "fast.x"), slow = observed(m, "slow.x");
    rtcosim_error err;
    for (int n = 1; n <= 30; n++) {
        if (rtcosim_master_step(m, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        const double *v = rtcosim_master_observed_values(m);
        double t = n * 1e-4;
        assert_near(v[fast], pow(1 - 2 * 1e-4, n), 1e-13);
        assert_near(v[slow], pow(1 - 2 * 1e-3, n / 10), 1e-13);
        assert_near(v[fast], exp(-2 * t), 4 * t * 1e-4 / 2 + 1e-15);
        if (n % 10 == 0) /* on its own grid: within the Euler error of h = 1e-3 */
            assert_near(v[slow], exp(-2 * t), 4 * t * 1e-3 / 2 + 1e-15);
    }
    rtcosim_master_free(m);
    rtcosim_system_desc_free(d);
}

/* libcosim's floor(hint / base), at least 1, when the hint is off the grid:
 * 2.5e-4 / 1e-4 steps every 2nd base step, 5e-5 every step. */
static void test_step_size_hint_off_the_grid_rounds_down_as_libcosim(void **state)
{
    (void)state;
    static char text[8192];
    snprintf(text, sizeof text,
             HEAD " <ssd:System name=\"s\"><ssd:Elements>\n"
                  "  <ssd:Component name=\"a\" source=\"%s\">" K_EQUALS("2")
                  "<ssd:Annotations><ssc:Annotation type=\"com.opensimulationplatform\">"
                  "<osp:StepSizeHint value=\"2.5e-4\"/></ssc:Annotation></ssd:Annotations>"
                  "</ssd:Component>\n"
                  "  <ssd:Component name=\"b\" source=\"%s\">" K_EQUALS("2")
                  "<ssd:Annotations><ssc:Annotation type=\"com.opensimulationplatform\">"
                  "<osp:StepSizeHint value=\"5e-5\"/></ssc:Annotation></ssd:Annotations>"
                  "</ssd:Component>\n"
                  " </ssd:Elements></ssd:System>\n"
                  " <ssd:DefaultExperiment stopTime=\"1e-3\"><ssd:Annotations>"
                  "<ssc:Annotation type=\"com.opensimulationplatform\"><osp:Algorithm>"
                  "<osp:FixedStepAlgorithm baseStepSize=\"1e-4\"/>"
                  "</osp:Algorithm></ssc:Annotation></ssd:Annotations></ssd:DefaultExperiment>\n"
                  "</ssd:SystemStructureDescription>\n",
             RTCOSIM_FMU_DAHLQUIST_FMI2, RTCOSIM_FMU_DAHLQUIST_FMI2);
    rtcosim_system_desc *d = parse(text, "hint.ssd");
    tu_log_capture(RTCOSIM_LOG_WARNING);
    rtcosim_master *m = build_initialized(d, RTCOSIM_NS_PER_MS);
    assert_non_null(strstr(tu_log_text(), "step size hint 0.00025 s is no multiple of the macro "
                                          "step 0.0001 s; it steps every 0.0002 s"));
    tu_log_reset();
    size_t a = observed(m, "a.x"), b = observed(m, "b.x");
    rtcosim_error err;
    for (int n = 1; n <= 6; n++) {
        assert_int_equal(rtcosim_master_step(m, &err), RTCOSIM_OK);
        const double *v = rtcosim_master_observed_values(m);
        assert_near(v[a], pow(1 - 2 * 2e-4, n / 2), 1e-13);
        assert_near(v[b], pow(1 - 2 * 1e-4, n), 1e-13);
    }
    rtcosim_master_free(m);
    rtcosim_system_desc_free(d);
}

/* OMSimulator's VariableStepMaster: the run starts at initialStepSize with
 * the adaptive macro step on; its DefaultExperiment SimulationInformation
 * (result file settings) is noted and not used. */
static void test_omsimulator_variable_step_master(void **state)
{
    (void)state;
    static char text[8192];
    snprintf(text, sizeof text,
             HEAD " <ssd:System name=\"s\"><ssd:Elements>\n"
                  "  <ssd:Component name=\"a\" source=\"%s\"/>\n"
                  " </ssd:Elements>\n"
                  " <ssd:Annotations><ssc:Annotation type=\"org.openmodelica\"><oms:Annotations>"
                  "<oms:SimulationInformation><oms:VariableStepMaster description=\"oms-mav\" "
                  "initialStepSize=\"0.000200\" minimumStepSize=\"0.000100\" "
                  "maximumStepSize=\"0.100000\" relativeTolerance=\"0.000100\"/>"
                  "</oms:SimulationInformation></oms:Annotations></ssc:Annotation>"
                  "</ssd:Annotations></ssd:System>\n"
                  " <ssd:DefaultExperiment startTime=\"0\" stopTime=\"1\"><ssd:Annotations>"
                  "<ssc:Annotation type=\"org.openmodelica\"><oms:Annotations>"
                  "<oms:SimulationInformation resultFile=\"x_res.mat\" loggingInterval=\"0\" "
                  "bufferSize=\"10\"/></oms:Annotations></ssc:Annotation></ssd:Annotations>"
                  "</ssd:DefaultExperiment>\n"
                  "</ssd:SystemStructureDescription>\n",
             RTCOSIM_FMU_DAHLQUIST_FMI2);
    rtcosim_system_desc *d = parse(text, "oms.ssd");
    rtcosim_time_ns h = 0;
    rtcosim_ssd_step_origin origin;
    assert_true(rtcosim_system_desc_macro_step(d, &h, &origin));
    assert_int_equal(origin, RTCOSIM_STEP_FROM_OMSIMULATOR);
    assert_int_equal(h, 200 * RTCOSIM_NS_PER_US);
    assert_true(rtcosim_system_desc_master(d)->has_step_control);
    assert_true(rtcosim_system_desc_master(d)->step_control);
    assert_int_equal(rtcosim_system_desc_info_count(d), 1);
    assert_non_null(strstr(rtcosim_system_desc_info(d, 0), "oms.ssd:7: OMSimulator "
                                                           "SimulationInformation (result file"));
    rtcosim_master *m = build_initialized(d, RTCOSIM_NS_PER_S);
    assert_int_equal(rtcosim_master_next_step(m), 200 * RTCOSIM_NS_PER_US);
    rtcosim_master_free(m);
    rtcosim_system_desc_free(d);

    /* A fixed step that comes first (libcosim's here) keeps the run fixed. */
    char *exp = strstr(text, "<ssd:DefaultExperiment");
    assert_non_null(exp);
    static char fixed[8192];
    snprintf(fixed, sizeof fixed,
             "%.*s<ssd:DefaultExperiment stopTime=\"1\"><ssd:Annotations>"
             "<ssc:Annotation type=\"com.opensimulationplatform\"><osp:Algorithm>"
             "<osp:FixedStepAlgorithm baseStepSize=\"1e-3\"/></osp:Algorithm></ssc:Annotation>"
             "</ssd:Annotations></ssd:DefaultExperiment></ssd:SystemStructureDescription>\n",
             (int)(exp - text), text);
    d = parse(fixed, "oms.ssd");
    assert_true(rtcosim_system_desc_macro_step(d, &h, &origin));
    assert_int_equal(origin, RTCOSIM_STEP_FROM_OSP);
    assert_int_equal(h, RTCOSIM_NS_PER_MS);
    assert_false(rtcosim_system_desc_master(d)->has_step_control);
    rtcosim_system_desc_free(d);
}

static const rtcosim_ssd_connector *connector(const rtcosim_ssd_component *c, const char *name)
{
    for (size_t i = 0; i < c->connector_count; i++)
        if (strcmp(c->connectors[i].name, name) == 0)
            return &c->connectors[i];
    return NULL;
}

/* No ssd:Connectors: the FMU's inputs, outputs, parameters and calculated
 * parameters (models/feedthrough declares them; locals and the independent
 * time are none); a connector without a type element gets the variable's,
 * so that a type mismatch is found when the file is read. */
static void test_connectors_and_types_from_the_model(void **state)
{
    (void)state;
    static char text[8192];
    snprintf(text, sizeof text,
             HEAD " <ssd:System name=\"s\"><ssd:Elements>\n"
                  "  <ssd:Component name=\"a\" source=\"%s\"/>\n"
                  "  <ssd:Component name=\"b\" source=\"%s\"><ssd:Connectors>"
                  "<ssd:Connector name=\"Float64_continuous_input\" kind=\"input\"/>"
                  "<ssd:Connector name=\"Int32_input\" kind=\"input\"/></ssd:Connectors>"
                  "</ssd:Component>\n"
                  " </ssd:Elements><ssd:Connections>\n"
                  "  <ssd:Connection startElement=\"a\" startConnector=\"Float64_continuous_output\" "
                  "endElement=\"b\" endConnector=\"Float64_continuous_input\"/>\n"
                  "  %s\n"
                  " </ssd:Connections></ssd:System>\n"
                  "</ssd:SystemStructureDescription>\n",
             RTCOSIM_FMU_FEEDTHROUGH_FMI2, RTCOSIM_FMU_FEEDTHROUGH_FMI2, "");
    rtcosim_system_desc *d = parse(text, "c.ssd");
    const rtcosim_ssd_component *a = rtcosim_system_desc_component(d, 0);
    const rtcosim_ssd_component *b = rtcosim_system_desc_component(d, 1);
    assert_true(a->connectors_from_model);
    assert_false(b->connectors_from_model);
    const rtcosim_ssd_connector *c = connector(a, "Float64_continuous_output");
    assert_non_null(c);
    assert_int_equal(c->kind, RTCOSIM_CONNECTOR_OUTPUT);
    assert_int_equal(c->type, RTCOSIM_SSP_REAL);
    assert_int_equal(connector(a, "Int32_input")->type, RTCOSIM_SSP_INTEGER);
    assert_int_equal(connector(a, "String_parameter")->kind, RTCOSIM_CONNECTOR_PARAMETER);
    assert_int_equal(connector(a, "Float64_calculated_parameter")->kind,
                     RTCOSIM_CONNECTOR_CALCULATED_PARAMETER);
    assert_null(connector(a, "time"));
    assert_int_equal(connector(b, "Float64_continuous_input")->type, RTCOSIM_SSP_REAL);
    assert_int_equal(connector(b, "Int32_input")->type, RTCOSIM_SSP_INTEGER);
    assert_int_equal(rtcosim_system_desc_connection_count(d), 1);
    rtcosim_system_desc_free(d);

    /* FMI 3.0: an array is one connector (its elements "A[i,j]" are not),
     * Binary and the sized integers keep SSP's Binary and Integer. */
    snprintf(text, sizeof text,
             HEAD " <ssd:System name=\"s\"><ssd:Elements>\n"
                  "  <ssd:Component name=\"ss\" source=\"%s\"/>\n"
                  "  <ssd:Component name=\"ft\" source=\"%s\"/>\n"
                  " </ssd:Elements></ssd:System>\n"
                  "</ssd:SystemStructureDescription>\n",
             RTCOSIM_FMU_STATESPACE_FMI3, RTCOSIM_FMU_FEEDTHROUGH_FMI3);
    d = parse(text, "c3.ssd");
    const rtcosim_ssd_component *ss = rtcosim_system_desc_component(d, 0);
    const rtcosim_ssd_component *ft3 = rtcosim_system_desc_component(d, 1);
    assert_non_null(connector(ss, "A"));
    assert_null(connector(ss, "A[1,1]"));
    assert_int_equal(connector(ss, "u")->kind, RTCOSIM_CONNECTOR_INPUT);
    assert_int_equal(connector(ss, "y")->kind, RTCOSIM_CONNECTOR_OUTPUT);
    assert_int_equal(connector(ss, "n")->kind, RTCOSIM_CONNECTOR_PARAMETER); /* structural */
    assert_int_equal(connector(ft3, "Binary_input")->type, RTCOSIM_SSP_BINARY);
    assert_int_equal(connector(ft3, "UInt8_output")->type, RTCOSIM_SSP_INTEGER);
    assert_int_equal(connector(ft3, "Float32_continuous_output")->type, RTCOSIM_SSP_REAL);
    rtcosim_system_desc_free(d);

    /* Float64 into the untyped Int32 input: refused at load, with the line. */
    snprintf(text, sizeof text,
             HEAD " <ssd:System name=\"s\"><ssd:Elements>\n"
                  "  <ssd:Component name=\"a\" source=\"%s\"/>\n"
                  "  <ssd:Component name=\"b\" source=\"%s\"><ssd:Connectors>"
                  "<ssd:Connector name=\"Int32_input\" kind=\"input\"/></ssd:Connectors>"
                  "</ssd:Component>\n"
                  " </ssd:Elements><ssd:Connections>\n"
                  "  <ssd:Connection startElement=\"a\" startConnector=\"Float64_continuous_output\" "
                  "endElement=\"b\" endConnector=\"Int32_input\"/>\n"
                  " </ssd:Connections></ssd:System>\n"
                  "</ssd:SystemStructureDescription>\n",
             RTCOSIM_FMU_FEEDTHROUGH_FMI2, RTCOSIM_FMU_FEEDTHROUGH_FMI2);
    rtcosim_error err;
    assert_int_equal(rtcosim_system_desc_parse(text, strlen(text), NULL, "c.ssd", &d, &err),
                     RTCOSIM_EFORMAT);
    assert_string_equal(err.message, "c.ssd:7: connection a.Float64_continuous_output -> "
                                     "b.Int32_input joins incompatible types Real and Integer");
}

/* Two named sets bound to one component: SSP's document order (later wins)
 * by default, libcosim's choice of one set by name with the load option. */
static void test_parameter_set_semantics(void **state)
{
    (void)state;
    char *dir = tu_make_dir();
    char ssd_path[4096];
    snprintf(ssd_path, sizeof ssd_path, "%s/sets.ssd", dir);
    static char text[8192];
#define NAMED(set, v)                                                                  \
    "<ssd:ParameterBinding><ssd:ParameterValues><ssv:ParameterSet version=\"1.0\" "    \
    "name=\"" set "\"><ssv:Parameters><ssv:Parameter name=\"k\"><ssv:Real value=\"" v  \
    "\"/></ssv:Parameter></ssv:Parameters></ssv:ParameterSet></ssd:ParameterValues>"   \
    "</ssd:ParameterBinding>"
    snprintf(text, sizeof text,
             HEAD " <ssd:System name=\"s\"><ssd:Elements>\n"
                  "  <ssd:Component name=\"a\" source=\"%s\"><ssd:ParameterBindings>"
                  NAMED("slow", "1") NAMED("fast", "3") "</ssd:ParameterBindings></ssd:Component>\n"
                  " </ssd:Elements></ssd:System>\n"
                  "</ssd:SystemStructureDescription>\n",
             RTCOSIM_FMU_DAHLQUIST_FMI2);
    tu_write_file(ssd_path, text);
    static const struct {
        const char *set;
        double k;
    } cases[] = {{NULL, 3}, {"slow", 1}, {"fast", 3}};
    for (size_t i = 0; i < 3; i++) {
        rtcosim_system_load_options o = {.parameter_set = cases[i].set};
        rtcosim_system_desc *d = NULL;
        rtcosim_error err;
        if (rtcosim_system_desc_load_with(ssd_path, &o, &d, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        const rtcosim_ssd_component *c = rtcosim_system_desc_component(d, 0);
        assert_int_equal(c->parameter_count, 1);
        assert_near(c->parameters[0].value.r, cases[i].k, 0);
        rtcosim_system_desc_free(d);
    }
    rtcosim_system_load_options o = {.parameter_set = "medium"};
    rtcosim_system_desc *d = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_system_desc_load_with(ssd_path, &o, &d, &err), RTCOSIM_ENOTFOUND);
    assert_non_null(strstr(err.message, "sets.ssd: no parameter binding carries a set named "
                                        "'medium' (sets: slow,fast)"));
    tu_drop_dir(dir);
}

/* A .ssp as libcosim's demo.ssp is built: SystemStructure.ssd at the root,
 * the FMUs beside it, the base step in the DefaultExperiment annotation. */
static void test_demo_ssp_runs_at_the_base_step(void **state)
{
    (void)state;
    char *dir = tu_make_dir();
    char ssp[4096];
    snprintf(ssp, sizeof ssp, "%s/demo.ssp", dir);
    static const char ssd[] =
        HEAD " <ssd:System name=\"cse-instance\"><ssd:Elements>\n"
             "  <ssd:Component name=\"Source\" source=\"resources/Dahlquist.fmu\">"
             "<ssd:Connectors><ssd:Connector name=\"x\" kind=\"output\"><ssc:Real/></ssd:Connector>"
             "</ssd:Connectors></ssd:Component>\n"
             "  <ssd:Component name=\"Sink\" source=\"resources/Feedthrough.fmu\">"
             "<ssd:Connectors><ssd:Connector name=\"Float64_continuous_input\" kind=\"input\">"
             "<ssc:Real/></ssd:Connector></ssd:Connectors></ssd:Component>\n"
             " </ssd:Elements><ssd:Connections>"
             "<ssd:Connection startElement=\"Source\" startConnector=\"x\" endElement=\"Sink\" "
             "endConnector=\"Float64_continuous_input\"/></ssd:Connections></ssd:System>\n"
             " <ssd:DefaultExperiment startTime=\"0.0\" stopTime=\"2e-4\"><ssd:Annotations>"
             "<ssc:Annotation type=\"com.opensimulationplatform\"><osp:Algorithm>"
             "<osp:FixedStepAlgorithm baseStepSize=\"1e-4\"/></osp:Algorithm></ssc:Annotation>"
             "</ssd:Annotations></ssd:DefaultExperiment>\n"
             "</ssd:SystemStructureDescription>\n";
    const tu_entry entries[] = {{.name = "SystemStructure.ssd", .text = ssd},
                                {.name = "resources/Dahlquist.fmu", .file = RTCOSIM_FMU_DAHLQUIST_FMI2},
                                {.name = "resources/Feedthrough.fmu", .file = RTCOSIM_FMU_FEEDTHROUGH_FMI2}};
    tu_zip(ssp, entries, 3);
    rtcosim_system_desc *d = NULL;
    rtcosim_error err;
    if (rtcosim_system_desc_load(ssp, &d, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(rtcosim_system_desc_info_count(d), 0);
    rtcosim_master *m = build_initialized(d, 200 * RTCOSIM_NS_PER_US);
    assert_int_equal(rtcosim_master_next_step(m), 100 * RTCOSIM_NS_PER_US);
    assert_int_equal(rtcosim_master_run(m, 200 * RTCOSIM_NS_PER_US, NULL, NULL, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_step_count(m), 2);
    rtcosim_master_free(m);
    rtcosim_system_desc_free(d);
    tu_drop_dir(dir);
}

/* The osp: prefix undeclared (libcosim's boost reader matches the written
 * name, so such files work there): still read, hint and base step alike. */
static void test_undeclared_osp_prefix(void **state)
{
    (void)state;
    static char text[4096];
    snprintf(text, sizeof text,
             "<?xml version=\"1.0\"?>\n"
             "<ssd:SystemStructureDescription version=\"1.0\" name=\"demo\""
             " xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\""
             " xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\">\n"
             " <ssd:System name=\"s\"><ssd:Elements>\n"
             "  <ssd:Component name=\"a\" source=\"%s\"><ssd:Annotations>"
             "<ssc:Annotation type=\"com.opensimulationplatform\"><osp:StepSizeHint value=\"4e-4\"/>"
             "</ssc:Annotation></ssd:Annotations></ssd:Component>\n"
             " </ssd:Elements></ssd:System>\n"
             " <ssd:DefaultExperiment><ssd:Annotations><ssc:Annotation type=\"com.opensimulationplatform\">"
             "<osp:Algorithm><osp:FixedStepAlgorithm baseStepSize=\"2e-4\"/></osp:Algorithm>"
             "</ssc:Annotation></ssd:Annotations></ssd:DefaultExperiment>\n"
             "</ssd:SystemStructureDescription>\n",
             RTCOSIM_FMU_DAHLQUIST_FMI2);
    rtcosim_system_desc *d = parse(text, "u.ssd");
    rtcosim_time_ns h = 0;
    assert_true(rtcosim_system_desc_macro_step(d, &h, NULL));
    assert_int_equal(h, 200 * RTCOSIM_NS_PER_US);
    assert_int_equal(rtcosim_system_desc_component(d, 0)->step_size_hint_ns, 400 * RTCOSIM_NS_PER_US);
    rtcosim_system_desc_free(d);
}

/* Connectors from a model that cannot be read: one line naming the SSD's
 * line, the component and the file. */
static void test_unreadable_model_gives_one_line_error(void **state)
{
    (void)state;
    char *dir = tu_make_dir();
    char text_fmu[4096], empty_fmu[4096], bad_md[4096];
    snprintf(text_fmu, sizeof text_fmu, "%s/text.fmu", dir);
    snprintf(empty_fmu, sizeof empty_fmu, "%s/empty.fmu", dir);
    snprintf(bad_md, sizeof bad_md, "%s/bad.fmu", dir);
    tu_write_file(text_fmu, "not a zip\n");
    const tu_entry other = {.name = "readme.txt", .text = "x"};
    tu_zip(empty_fmu, &other, 1);
    const tu_entry md = {.name = "modelDescription.xml", .text = "<fmiModelDescription"};
    tu_zip(bad_md, &md, 1);
    const char *sources[] = {text_fmu, empty_fmu, bad_md, "/dev/zero"};
    const char *problems[] = {"not a readable zip archive", "no modelDescription.xml",
                              "modelDescription.xml", "not a regular file"};
    for (size_t i = 0; i < 4; i++) {
        static char text[8192];
        snprintf(text, sizeof text,
                 HEAD " <ssd:System name=\"s\"><ssd:Elements>\n"
                      "  <ssd:Component name=\"a\" source=\"%s\"/>\n"
                      " </ssd:Elements></ssd:System>\n</ssd:SystemStructureDescription>\n",
                 sources[i]);
        rtcosim_system_desc *d = NULL;
        rtcosim_error err;
        assert_int_not_equal(rtcosim_system_desc_parse(text, strlen(text), NULL, "m.ssd", &d, &err),
                             RTCOSIM_OK);
        assert_non_null(strstr(err.message, "m.ssd:4: component 'a': "));
        assert_non_null(strstr(err.message, problems[i]));
        assert_null(strchr(err.message, '\n'));
    }
    tu_drop_dir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_osp_base_step_and_decimation_on_the_euler_grid),
        cmocka_unit_test(test_step_size_hint_off_the_grid_rounds_down_as_libcosim),
        cmocka_unit_test(test_omsimulator_variable_step_master),
        cmocka_unit_test(test_connectors_and_types_from_the_model),
        cmocka_unit_test(test_parameter_set_semantics),
        cmocka_unit_test(test_demo_ssp_runs_at_the_base_step),
        cmocka_unit_test(test_unreadable_model_gives_one_line_error),
        cmocka_unit_test(test_undeclared_osp_prefix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
