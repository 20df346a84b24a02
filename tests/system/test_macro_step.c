/* Where the macro step comes from: the build override, then the
 * org.rtcosim.master annotation, then libcosim's FixedStepAlgorithm
 * baseStepSize (OSPAnnotations.xsd), then OMSimulator's FixedStepMaster
 * stepSize, then ssd:DefaultExperiment stepSize, else the smallest
 * default-experiment step of the components (the project's Dahlquist FMU says
 * 1e-4 s, BouncingBall 1e-2 s in their model descriptions). Annotations
 * nobody understands become information lines, never errors. */
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

#define OSP                                                                            \
    "<ssc:Annotation type=\"com.opensimulationplatform\"><osp:Algorithm>"                \
    "<osp:FixedStepAlgorithm baseStepSize=\"2e-4\"/></osp:Algorithm></ssc:Annotation>"
/* As OMSimulator 2.x writes it (oms:Annotations wrapper). */
#define OMS                                                                              \
    "<ssc:Annotation type=\"org.openmodelica\"><oms:Annotations><oms:SimulationInformation>" \
    "<oms:FixedStepMaster description=\"oms-ma\" stepSize=\"3e-4\" "                     \
    "relativeTolerance=\"0.0001\"/></oms:SimulationInformation></oms:Annotations></ssc:Annotation>"
#define OURS "<ssc:Annotation type=\"org.rtcosim.master\"><rc:Master stepSize=\"5e-4\"/></ssc:Annotation>"
#define ALIEN "<ssc:Annotation type=\"com.example.tool\"><x:Whatever xmlns:x=\"urn:x\"/></ssc:Annotation>"

static char *ssd_text(const char *annotations, const char *experiment)
{
    static char text[4096];
    snprintf(text, sizeof text,
             "<?xml version=\"1.0\"?>\n"
             "<ssd:SystemStructureDescription version=\"1.0\" name=\"s\"\n"
             " xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\"\n"
             " xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\"\n"
             " xmlns:osp=\"http://opensimulationplatform.com/SSP/OSPAnnotations\"\n"
             " xmlns:oms=\"https://raw.githubusercontent.com/OpenModelica/OMSimulator/master/schema/oms.xsd\""
             " xmlns:rc=\"https://rtcosim.org/SSP1/Master\">\n"
             " <ssd:System name=\"s\">\n"
             "  <ssd:Elements>\n"
             "   <ssd:Component name=\"ball\" source=\"%s\"/>\n"
             "   <ssd:Component name=\"decay\" source=\"%s\"/>\n"
             "  </ssd:Elements>\n"
             "  <ssd:Annotations>%s</ssd:Annotations>\n"
             " </ssd:System>\n"
             " %s\n"
             "</ssd:SystemStructureDescription>\n",
             RTCOSIM_FMU_BOUNCINGBALL_FMI2, RTCOSIM_FMU_DAHLQUIST_FMI2, annotations, experiment);
    return text;
}

/* Builds the system; returns its macro step and where it came from. */
static rtcosim_time_ns build(const char *annotations, const char *experiment,
                             rtcosim_time_ns override, rtcosim_ssd_step_origin *origin,
                             size_t *infos)
{
    const char *text = ssd_text(annotations, experiment);
    rtcosim_system_desc *d = NULL;
    rtcosim_error err;
    if (rtcosim_system_desc_parse(text, strlen(text), NULL, "s.ssd", &d, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    *infos = rtcosim_system_desc_info_count(d);
    if (*infos)
        assert_non_null(strstr(rtcosim_system_desc_info(d, 0),
                               "s.ssd:12: annotation 'com.example.tool' not understood: ignored"));
    rtcosim_system_build_options opts = {.step_origin = origin};
    opts.overrides.has_step_size = override > 0;
    opts.overrides.step_size_ns = override;
    rtcosim_master *m = NULL;
    if (rtcosim_system_build_master(d, &opts, &m, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    rtcosim_time_ns h = rtcosim_master_next_step(m);
    rtcosim_master_free(m);
    rtcosim_system_desc_free(d);
    return h;
}

static void test_each_source_in_order_of_precedence(void **state)
{
    (void)state;
    rtcosim_ssd_step_origin o = RTCOSIM_STEP_FROM_NONE;
    size_t infos = 0;
    const char *exp = "<ssd:DefaultExperiment stopTime=\"1\" stepSize=\"1e-3\"/>";
    assert_int_equal(build(OURS OSP ALIEN, exp, 7 * RTCOSIM_NS_PER_US, &o, &infos),
                     7 * RTCOSIM_NS_PER_US);
    assert_int_equal(o, RTCOSIM_STEP_FROM_OPTION);
    assert_int_equal(infos, 1);
    assert_int_equal(build(ALIEN OSP OURS, exp, 0, &o, &infos), 500 * RTCOSIM_NS_PER_US);
    assert_int_equal(o, RTCOSIM_STEP_FROM_RTCOSIM_MASTER);
    assert_int_equal(build(ALIEN OMS OSP, exp, 0, &o, &infos), 200 * RTCOSIM_NS_PER_US);
    assert_int_equal(o, RTCOSIM_STEP_FROM_OSP);
    assert_int_equal(build(ALIEN OMS, exp, 0, &o, &infos), 300 * RTCOSIM_NS_PER_US);
    assert_int_equal(o, RTCOSIM_STEP_FROM_OMSIMULATOR);
    assert_int_equal(build("", exp, 0, &o, &infos), RTCOSIM_NS_PER_MS);
    assert_int_equal(o, RTCOSIM_STEP_FROM_DEFAULT_EXPERIMENT);
    assert_int_equal(infos, 0);
    /* Dahlquist's 1e-4 s is smaller than BouncingBall's 1e-2 s. */
    assert_int_equal(build("", "", 0, &o, &infos), 100 * RTCOSIM_NS_PER_US);
    assert_int_equal(o, RTCOSIM_STEP_FROM_COMPONENTS);
    assert_string_equal(rtcosim_ssd_step_origin_name(o), "the smallest component default experiment");
}

static void test_malformed_osp_step_names_file_and_line(void **state)
{
    (void)state;
    static const struct {
        const char *annotation, *message;
        rtcosim_status status;
    } cases[] = {
        {"<ssc:Annotation type=\"com.opensimulationplatform\"><osp:Algorithm>"
         "<osp:FixedStepAlgorithm baseStepSize=\"-1\"/></osp:Algorithm></ssc:Annotation>",
         "s.ssd:12: baseStepSize must be positive", RTCOSIM_EFORMAT},
        {"<ssc:Annotation type=\"com.opensimulationplatform\"><osp:Algorithm>"
         "<osp:FixedStepAlgorithm/></osp:Algorithm></ssc:Annotation>",
         "s.ssd:12: OSP FixedStepAlgorithm without a baseStepSize", RTCOSIM_EFORMAT},
        {"<ssc:Annotation type=\"com.opensimulationplatform\"><osp:Algorithm>"
         "<osp:FixedStepAlgorithm baseStepSize=\"1e-3\" numWorkerThreads=\"zero\"/>"
         "</osp:Algorithm></ssc:Annotation>",
         "s.ssd:12: OSP FixedStepAlgorithm: bad numWorkerThreads \"zero\" (1..1024)",
         RTCOSIM_EFORMAT},
        /* libcosim throws "Unknown algorithm" for anything else. */
        {"<ssc:Annotation type=\"com.opensimulationplatform\"><osp:Algorithm>"
         "<osp:EccoAlgorithm/></osp:Algorithm></ssc:Annotation>",
         "s.ssd:12: OSP algorithm 'EccoAlgorithm' is not supported (FixedStepAlgorithm)",
         RTCOSIM_EUNSUPPORTED},
        {"<ssc:Annotation type=\"org.openmodelica\"><oms:SimulationInformation>"
         "<oms:FixedStepMaster stepSize=\"fast\"/></oms:SimulationInformation></ssc:Annotation>",
         NULL, RTCOSIM_EFORMAT},
        {"<ssc:Annotation type=\"org.openmodelica\"><oms:SimulationInformation>"
         "<oms:VariableStepMaster initialStepSize=\"1e-3\" minimumStepSize=\"1e-2\" "
         "maximumStepSize=\"1e-3\"/></oms:SimulationInformation></ssc:Annotation>",
         "s.ssd:12: OMSimulator VariableStepMaster: maximumStepSize below minimumStepSize",
         RTCOSIM_EFORMAT},
        {"<ssc:Annotation type=\"org.openmodelica\"><oms:SimulationInformation>"
         "<oms:FixedStepMaster stepSize=\"1e-3\" relativeTolerance=\"-1\"/>"
         "</oms:SimulationInformation></ssc:Annotation>",
         "s.ssd:12: OMSimulator FixedStepMaster: bad relativeTolerance \"-1\" (> 0)",
         RTCOSIM_EFORMAT},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *text = ssd_text(cases[i].annotation, "");
        rtcosim_system_desc *d = NULL;
        rtcosim_error err;
        assert_int_equal(rtcosim_system_desc_parse(text, strlen(text), NULL, "s.ssd", &d, &err),
                         cases[i].status);
        if (cases[i].message)
            assert_string_equal(err.message, cases[i].message);
        else
            assert_non_null(strstr(err.message, "s.ssd:12: bad stepSize \"fast\""));
        assert_null(strchr(err.message, '\n'));
    }
}

/* An FMU where a system is expected: one component named after its
 * modelIdentifier, the FMU's default experiment (Dahlquist's model
 * description: start 0, stop 10, step 1e-4 s), and without a default step
 * (the FMI 1.0 Dahlquist declares none) fmusim's (stop - start) / 500. */
static void test_an_fmu_alone_is_a_system_of_one(void **state)
{
    (void)state;
    static const struct {
        const char *path;
        rtcosim_time_ns step;
        rtcosim_ssd_step_origin origin;
    } cases[] = {
        {RTCOSIM_FMU_DAHLQUIST_FMI2, 100 * RTCOSIM_NS_PER_US, RTCOSIM_STEP_FROM_COMPONENTS},
        {RTCOSIM_FMU_DAHLQUIST_FMI3, 100 * RTCOSIM_NS_PER_US, RTCOSIM_STEP_FROM_COMPONENTS},
        {RTCOSIM_FMU_DAHLQUIST_FMI1, 20 * RTCOSIM_NS_PER_MS, RTCOSIM_STEP_FROM_FMU_FALLBACK},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rtcosim_system_desc *d = NULL;
        rtcosim_error err;
        if (rtcosim_system_desc_load(cases[i].path, &d, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        assert_string_equal(rtcosim_system_desc_format(d), "FMU");
        assert_string_equal(rtcosim_system_desc_file(d), cases[i].path);
        assert_int_equal(rtcosim_system_desc_component_count(d), 1);
        assert_string_equal(rtcosim_system_desc_component(d, 0)->name, "Dahlquist");
        rtcosim_time_ns t = -1;
        assert_true(rtcosim_system_desc_start_time(d, &t));
        assert_int_equal(t, 0);
        assert_true(rtcosim_system_desc_stop_time(d, &t));
        assert_int_equal(t, 10 * RTCOSIM_NS_PER_S);
        rtcosim_ssd_step_origin o = RTCOSIM_STEP_FROM_NONE;
        rtcosim_system_build_options opts = {.step_origin = &o};
        rtcosim_master *m = NULL;
        if (rtcosim_system_build_master(d, &opts, &m, &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        assert_int_equal(rtcosim_master_next_step(m), cases[i].step);
        assert_int_equal(o, cases[i].origin);
        /* the only component's variables also by their own names */
        if (rtcosim_master_observe(m, "x", &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        assert_string_equal(rtcosim_master_observed_name(m, 0), "Dahlquist.x");
        assert_int_equal(rtcosim_master_observe(m, "kk", &err), RTCOSIM_ENOTFOUND);
        assert_string_equal(err.message, "observed variable: component 'Dahlquist' (the system's "
                                         "only one) has no variable 'kk'; did you mean 'k'?");
        rtcosim_master_free(m);
        rtcosim_system_desc_free(d);
    }
}

/* The FMU's file name goes into the SSD we write as the component's source:
 * characters XML gives a meaning to (and a tab) must reach the loader as
 * they are, and a name that starts like a URI scheme ("file:") must stay a
 * relative path. */
static void test_an_fmu_alone_under_a_name_xml_would_misread(void **state)
{
    (void)state;
    char *dir = tu_make_dir();
    char path[4096];
    snprintf(path, sizeof path, "%s/file:d&q \"x\" <1>\t'.fmu", dir);
    size_t size = 0;
    char *bytes = tu_read_file(RTCOSIM_FMU_DAHLQUIST_FMI2, &size);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
    free(bytes);
    rtcosim_system_desc *d = NULL;
    rtcosim_error err;
    if (rtcosim_system_desc_load(path, &d, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_string_equal(rtcosim_system_desc_component(d, 0)->name, "Dahlquist");
    rtcosim_master *m = NULL;
    rtcosim_system_build_options opts = {0};
    if (rtcosim_system_build_master(d, &opts, &m, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    rtcosim_master_free(m);
    rtcosim_system_desc_free(d);
    tu_drop_dir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_source_in_order_of_precedence),
        cmocka_unit_test(test_malformed_osp_step_names_file_and_line),
        cmocka_unit_test(test_an_fmu_alone_is_a_system_of_one),
        cmocka_unit_test(test_an_fmu_alone_under_a_name_xml_would_misread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
