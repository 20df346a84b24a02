/* A .ssp archive holding an FMU (the project's Dahlquist test FMU, FMI 2.0
 * and 3.0) and its parameter set, zipped at test time, loaded, built into a
 * master and run: x(1) must equal the closed form of the FMU's explicit
 * Euler, x0 (1 - k h)^n, with the .ssv's k and x0 (not the FMU's defaults),
 * and the archive's extraction directory must be gone after free. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rtcosim/master.h"
#include "rtcosim/system.h"
#include "rtcosim_test_fmus.h"
#include "util/test_util.h"

static const char ssd[] =
    "<?xml version=\"1.0\"?>\n"
    "<ssd:SystemStructureDescription version=\"1.0\" name=\"decay\"\n"
    " xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\"\n"
    " xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\"\n"
    " xmlns:rc=\"https://rtcosim.org/SSP1/Master\">\n"
    " <ssd:System name=\"decay\">\n"
    "  <ssd:Elements>\n"
    "   <ssd:Component name=\"d\" source=\"resources/dahlquist.fmu\" type=\"application/x-fmu-sharedlibrary\">\n"
    "    <ssd:Connectors><ssd:Connector name=\"x\" kind=\"output\"><ssc:Real/></ssd:Connector>\n"
    "     <ssd:Connector name=\"k\" kind=\"parameter\"><ssc:Real unit=\"1/s\"/></ssd:Connector></ssd:Connectors>\n"
    "    <ssd:ParameterBindings><ssd:ParameterBinding source=\"params.ssv\"/></ssd:ParameterBindings>\n"
    "   </ssd:Component>\n"
    "  </ssd:Elements>\n"
    "  <ssd:Annotations><ssc:Annotation type=\"org.rtcosim.master\">\n"
    "   <rc:Master stepSize=\"0.01\"/></ssc:Annotation></ssd:Annotations>\n"
    " </ssd:System>\n"
    " <ssd:DefaultExperiment stopTime=\"1\"/>\n"
    "</ssd:SystemStructureDescription>\n";

static const char ssv[] =
    "<?xml version=\"1.0\"?>\n"
    "<ssv:ParameterSet version=\"1.0\" name=\"p\"\n"
    " xmlns:ssv=\"http://ssp-standard.org/SSP1/SystemStructureParameterValues\">\n"
    " <ssv:Parameters>\n"
    "  <ssv:Parameter name=\"k\"><ssv:Real value=\"2\" unit=\"1/s\"/></ssv:Parameter>\n"
    "  <ssv:Parameter name=\"x0\"><ssv:Real value=\"1.5\"/></ssv:Parameter>\n"
    "  <ssv:Parameter name=\"solver_step\"><ssv:Real value=\"1e-4\"/></ssv:Parameter>\n"
    " </ssv:Parameters>\n"
    "</ssv:ParameterSet>\n";

static rtcosim_status keep_last(void *context, rtcosim_time_ns t, const double *values,
                                size_t count, rtcosim_error *err)
{
    (void)t, (void)err;
    assert_int_equal(count, 1);
    *(double *)context = values[0];
    return RTCOSIM_OK;
}

static void run_ssp_with_fmu(const char *fmu)
{
    char path[512];
    snprintf(path, sizeof path, "%s/rtcosim-test-decay-%d.ssp",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
    const tu_entry entries[] = {{.name = "SystemStructure.ssd", .text = ssd},
                                {.name = "params.ssv", .text = ssv},
                                {.name = "resources/dahlquist.fmu", .file = fmu}};
    tu_zip(path, entries, sizeof entries / sizeof entries[0]);

    rtcosim_system_desc *d = NULL;
    rtcosim_error err;
    if (rtcosim_system_desc_load(path, &d, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    char base[512];
    snprintf(base, sizeof base, "%s", rtcosim_system_desc_base_dir(d));
    const char *observe[] = {"d.x"};
    rtcosim_system_build_options opts = {.observe = observe, .observe_count = 1};
    rtcosim_master *m = NULL;
    if (rtcosim_system_build_master(d, &opts, &m, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    double x = 0;
    if (rtcosim_master_initialize(m, 0, RTCOSIM_NS_PER_S, &err) != RTCOSIM_OK ||
        rtcosim_master_run(m, RTCOSIM_NS_PER_S, keep_last, &x, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    double exact = 1.5 * pow(1.0 - 2.0 * 1e-4, 10000); /* 10000 Euler steps of 1e-4 s */
    if (fabs(x - exact) > 1e-9 * exact)
        fail_msg("%s: x(1) = %.17g, expected %.17g", fmu, x, exact);
    rtcosim_master_free(m);
    rtcosim_system_desc_free(d);
    assert_int_not_equal(access(base, F_OK), 0);
    unlink(path);
}

static void test_ssp_with_fmi2_fmu_runs_with_bound_parameters(void **state)
{
    (void)state;
    run_ssp_with_fmu(RTCOSIM_FMU_DAHLQUIST_FMI2);
}

static void test_ssp_with_fmi3_fmu_runs_with_bound_parameters(void **state)
{
    (void)state;
    run_ssp_with_fmu(RTCOSIM_FMU_DAHLQUIST_FMI3);
}

/* The SSD of `ssd` with the component's source replaced (and no binding). */
static void write_ssp_with_source(const char *path, const char *source, const char *fmu)
{
    char text[4096];
    const char *at = strstr(ssd, "resources/dahlquist.fmu");
    const char *binding = strstr(ssd, "    <ssd:ParameterBindings>");
    const char *binding_end = strstr(binding, "\n") + 1;
    snprintf(text, sizeof text, "%.*s%s%.*s%s", (int)(at - ssd), ssd, source,
             (int)(binding - (at + strlen("resources/dahlquist.fmu"))),
             at + strlen("resources/dahlquist.fmu"), binding_end);
    const tu_entry entries[] = {{.name = "SystemStructure.ssd", .text = text},
                                {.name = "resources/dahlquist.fmu", .file = fmu}};
    tu_zip(path, entries, 2);
}

/* A .ssp never reaches outside its package: absolute paths, file:// URIs and
 * ".." that climbs above the root are refused naming the source, unless
 * allow_outside; ".." that stays inside is fine. The outside FMU exists (so
 * the refusal is not a missing file). */
static void ssp_references_outside_the_package_are_refused(void **state)
{
    (void)state;
    char *dir = tu_make_dir();
    char path[600], outside_abs[600], file_uri[700];
    snprintf(path, sizeof path, "%s/pkg/sys.ssp", dir);
    tu_write_file(path, "");
    snprintf(outside_abs, sizeof outside_abs, "%s", RTCOSIM_FMU_DAHLQUIST_FMI2);
    snprintf(file_uri, sizeof file_uri, "file://%s", RTCOSIM_FMU_DAHLQUIST_FMI2);
    const char *refused[] = {outside_abs, file_uri, "../../x.fmu", "resources/../../x.fmu"};
    for (size_t i = 0; i < 4; i++) {
        write_ssp_with_source(path, refused[i], RTCOSIM_FMU_DAHLQUIST_FMI2);
        rtcosim_system_desc *d = NULL;
        rtcosim_error err;
        assert_int_equal(rtcosim_system_desc_load(path, &d, &err), RTCOSIM_EFORMAT);
        if (!strstr(err.message, "is outside the package") || !strstr(err.message, refused[i]))
            fail_msg("%s: %s", refused[i], err.message);
        assert_null(d);
    }
    /* Allowed on request: the absolute path loads. */
    write_ssp_with_source(path, outside_abs, RTCOSIM_FMU_DAHLQUIST_FMI2);
    const rtcosim_system_load_options allow = {.allow_outside = true};
    rtcosim_system_desc *d = NULL;
    rtcosim_error err;
    if (rtcosim_system_desc_load_with(path, &allow, &d, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    rtcosim_system_desc_free(d);
    /* Inside: "resources/./sub/../dahlquist.fmu" names the packaged FMU. */
    write_ssp_with_source(path, "resources/./sub/../dahlquist.fmu", RTCOSIM_FMU_DAHLQUIST_FMI2);
    d = NULL;
    if (rtcosim_system_desc_load(path, &d, &err) != RTCOSIM_OK &&
        strstr(err.message, "outside the package"))
        fail_msg("%s", err.message);
    rtcosim_system_desc_free(d);
    tu_drop_dir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ssp_with_fmi2_fmu_runs_with_bound_parameters),
        cmocka_unit_test(test_ssp_with_fmi3_fmu_runs_with_bound_parameters),
        cmocka_unit_test(ssp_references_outside_the_package_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
