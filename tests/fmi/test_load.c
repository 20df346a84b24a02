/* Loading bad FMU archives: each kind of broken or hostile archive fails with
 * its own status and a one-line message naming the archive and the problem,
 * writes nothing outside the private directory, and leaves no temporary
 * directory behind. Archives are built here with libzip. What the extractor
 * itself refuses (hostile names, links, CRC errors, ...) is tested once, in
 * tests/archive/test_extract.c; here only that its verdicts reach the caller. */
#include <elf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/test_util.h"
#include "rtcosim/fmu.h"

typedef struct fixture {
    char *work;   /* where the test writes archives */
    char *tmp;    /* parent of the loader's extraction directories */
    char fmu[4096];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->work = tu_make_dir();
    f->tmp = tu_make_dir();
    snprintf(f->fmu, sizeof f->fmu, "%s/model.fmu", f->work);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    tu_drop_dir(f->work);
    tu_drop_dir(f->tmp);
    free(f);
    return 0;
}

static const char fmi2_md[] =
    "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"M\" guid=\"g\">"
    "<CoSimulation modelIdentifier=\"model\"/><ModelVariables>"
    "<ScalarVariable name=\"y\" valueReference=\"0\" causality=\"output\"><Real/></ScalarVariable>"
    "</ModelVariables><ModelStructure><Outputs><Unknown index=\"1\"/></Outputs></ModelStructure>"
    "</fmiModelDescription>";

static const char fmi3_md[] =
    "<fmiModelDescription fmiVersion=\"3.0\" modelName=\"M\" instantiationToken=\"g\">"
    "<CoSimulation modelIdentifier=\"model\"/><ModelVariables/></fmiModelDescription>";

/* Load f->fmu, expect failure with status and message substring, and check
 * that the message is one line starting with the archive path and that no
 * extraction directory is left. */
static void expect_failure(fixture *f, rtcosim_status status, const char *message)
{
    rtcosim_fmu_options opts = {.temp_dir = f->tmp};
    rtcosim_component *c = (rtcosim_component *)1;
    rtcosim_error err;
    rtcosim_status st = rtcosim_fmu_load(f->fmu, &opts, &c, &err);
    if (st != status || !strstr(err.message, message))
        fail_msg("got status %d \"%s\"; want %d \"%s\"", st, st ? err.message : "", status,
                 message);
    assert_null(c);
    assert_int_equal(strncmp(err.message, f->fmu, strlen(f->fmu)), 0);
    assert_null(strchr(err.message, '\n'));
    assert_int_equal(tu_count_entries(f->tmp), 0);
}

static void missing_file_is_not_found(void **state)
{
    fixture *f = *state;
    expect_failure(f, RTCOSIM_ENOTFOUND, "cannot open archive");
}

static void text_file_is_not_a_zip(void **state)
{
    fixture *f = *state;
    tu_write_file(f->fmu, "this is not a zip archive\n");
    expect_failure(f, RTCOSIM_EFORMAT, "model.fmu: not a zip archive");
}

static void zip_without_model_description_is_rejected(void **state)
{
    fixture *f = *state;
    tu_entry e[] = {{.name = "resources/data.txt", .text = "1 2 3"}};
    tu_zip(f->fmu, e, 1);
    expect_failure(f, RTCOSIM_EFORMAT, "model.fmu: no modelDescription.xml in the archive");
}

static void malformed_model_description_is_rejected(void **state)
{
    fixture *f = *state;
    tu_entry e[] = {{.name = "modelDescription.xml", .text = "<fmiModelDescription fmiVersion="}};
    tu_zip(f->fmu, e, 1);
    expect_failure(f, RTCOSIM_EFORMAT, "model.fmu: modelDescription.xml: malformed XML");
}

#define FMI1_CS_MD                                                                         \
    "<fmiModelDescription fmiVersion=\"1.0\" modelName=\"M\" "                               \
    "modelIdentifier=\"M\" guid=\"g\"><ModelVariables/>"                                    \
    "<Implementation><CoSimulation_StandAlone><Capabilities/>"                             \
    "</CoSimulation_StandAlone></Implementation></fmiModelDescription>"

/* FMI 1.0 uses 2.0's platform folders (binaries/linux64/<modelIdentifier>.so). */
static void fmi1_without_linux_binary_names_the_expected_path(void **state)
{
    fixture *f = *state;
    tu_entry e[] = {{.name = "modelDescription.xml", .text = FMI1_CS_MD}};
    tu_zip(f->fmu, e, 1);
    expect_failure(f, RTCOSIM_EUNSUPPORTED,
                   "model.fmu: no binary for this platform (x86_64 Linux): expected "
                   "binaries/linux64/M.so");
}

/* A binary without the M_fmi* functions (here an FMI 2.0 one): every
 * missing function the interface needs is named in the one message. */
static void fmi1_binary_lacking_functions_names_each(void **state)
{
    fixture *f = *state;
    tu_entry e[] = {{.name = "modelDescription.xml", .text = FMI1_CS_MD},
                    {.name = "binaries/linux64/M.so", .file = PARTIAL_FMU_PATH}};
    tu_zip(f->fmu, e, 2);
    expect_failure(f, RTCOSIM_ENOTFOUND,
                   "model.fmu: binary lacks M_fmiGetReal, M_fmiGetInteger, M_fmiGetBoolean, "
                   "M_fmiGetString, M_fmiSetReal, M_fmiSetInteger, M_fmiSetBoolean, "
                   "M_fmiSetString, M_fmiInstantiateSlave, M_fmiInitializeSlave, "
                   "M_fmiTerminateSlave, M_fmiFreeSlaveInstance, M_fmiDoStep");
}

static void fmi2_without_linux_binary_names_the_expected_path(void **state)
{
    fixture *f = *state;
    tu_entry e[] = {{.name = "modelDescription.xml", .text = fmi2_md},
                    {.name = "binaries/win64/model.dll", .text = "MZ"}};
    tu_zip(f->fmu, e, 2);
    expect_failure(f, RTCOSIM_EUNSUPPORTED,
                   "model.fmu: no binary for this platform (x86_64 Linux): expected "
                   "binaries/linux64/model.so; it holds win64");
}

static void fmi3_without_linux_binary_names_the_expected_path(void **state)
{
    fixture *f = *state;
    tu_entry e[] = {{.name = "modelDescription.xml", .text = fmi3_md}};
    tu_zip(f->fmu, e, 1);
    expect_failure(f, RTCOSIM_EUNSUPPORTED,
                   "no binary for this platform (x86_64 Linux): expected "
                   "binaries/x86_64-linux/model.so; it holds no binaries");
}

/* A source FMU (FMI 3.0 2.5.1: sources/ and no binary for this platform)
 * without the build description that would say how to build it: the
 * message says what it holds and what is missing. */
static void fmi3_with_sources_only_says_so(void **state)
{
    fixture *f = *state;
    tu_entry e[] = {{.name = "modelDescription.xml", .text = fmi3_md},
                    {.name = "sources/model.c", .text = "int x;\n"}};
    tu_zip(f->fmu, e, 2);
    expect_failure(f, RTCOSIM_EUNSUPPORTED,
                   "expected binaries/x86_64-linux/model.so; it holds sources, and no "
                   "sources/buildDescription.xml to build one from");
}

/* An FMU built for other platforms is described from its XML alone
 * (rtcosim_fmu_describe: `rtcosim info` of a Windows or macOS FMU): its
 * variables and facts, the platforms it holds binaries for in name order
 * (then its sources), no binary, and every call that would need one fails
 * naming the archive. Nothing is left of the extraction after the free. */
static void fmu_for_other_platforms_is_described(void **state)
{
    fixture *f = *state;
    tu_entry e[] = {{.name = "modelDescription.xml", .text = fmi2_md},
                    {.name = "binaries/win64/model.dll", .text = "MZ"},
                    {.name = "binaries/darwin64/model.dylib", .text = "\xcf\xfa\xed\xfe"},
                    {.name = "sources/model.c", .text = "int x;\n"}};
    tu_zip(f->fmu, e, 4);
    expect_failure(f, RTCOSIM_EUNSUPPORTED,
                   "expected binaries/linux64/model.so; it holds darwin64, win64, sources");
    rtcosim_fmu_options opts = {.temp_dir = f->tmp};
    rtcosim_component *c = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_fmu_describe(f->fmu, &opts, &c, &err), RTCOSIM_OK);
    const rtcosim_fmu_info *info = rtcosim_fmu_info_of(c);
    assert_non_null(info);
    assert_string_equal(info->model_name, "M");
    assert_string_equal(info->instantiation_token, "g");
    assert_null(info->binary_path);
    assert_int_equal(rtcosim_component_variable_count(c), 1);
    assert_string_equal(rtcosim_component_variable(c, 0)->name, "y");
    char text[64];
    assert_int_equal(rtcosim_fmu_platforms(info->extracted_dir, text, sizeof text),
                     strlen("darwin64, win64, sources"));
    assert_string_equal(text, "darwin64, win64, sources");
    /* (a short buffer: truncated, the whole length returned) */
    char small[8];
    assert_int_equal(rtcosim_fmu_platforms(info->extracted_dir, small, sizeof small), 24);
    assert_string_equal(small, "darwin6");
    assert_int_equal(rtcosim_component_instantiate(c, "m", &err), RTCOSIM_EUNSUPPORTED);
    assert_non_null(strstr(err.message, "model.fmu: read for its description only"));
    rtcosim_component_free(c);
    assert_int_equal(tu_count_entries(f->tmp), 0);
}

static void archive_inflating_beyond_the_limit_is_refused(void **state)
{
    fixture *f = *state;
    tu_entry e[] = {{.name = "modelDescription.xml", .text = fmi2_md},
                    {.name = "resources/zeros.bin", .zeros = 1 << 20}};
    tu_zip(f->fmu, e, 2);
    rtcosim_fmu_options opts = {.temp_dir = f->tmp, .max_unpacked_bytes = 64 * 1024};
    rtcosim_component *c;
    rtcosim_error err;
    assert_int_equal(rtcosim_fmu_load(f->fmu, &opts, &c, &err), RTCOSIM_EFORMAT);
    assert_non_null(strstr(err.message, "entry 'resources/zeros.bin': archive inflates beyond "
                                        "the limit of 65536 bytes"));
    assert_int_equal(tu_count_entries(f->tmp), 0);
}

static void binary_that_is_not_a_shared_object_fails_to_load(void **state)
{
    fixture *f = *state;
    tu_entry e[] = {{.name = "modelDescription.xml", .text = fmi2_md},
                    {.name = "binaries/linux64/model.so", .text = "not an ELF file"}};
    tu_zip(f->fmu, e, 2);
    expect_failure(f, RTCOSIM_EUNSUPPORTED,
                   "model.fmu: binaries/linux64/model.so: not an ELF shared library");
}

/* A real library cut short (a broken download): glibc's dlopen would map
 * pages past the file's end and die of SIGBUS touching them; the load is an
 * error naming the file instead, whether the cut leaves the program headers
 * or not even the ELF header. */
static void truncated_binary_is_an_error_not_a_crash(void **state)
{
    fixture *f = *state;
    size_t size = 0;
    const char *whole = tu_read_file(PARTIAL_FMU_PATH, &size);
    /* where its loadable segments end, by its program headers (a Debug
     * build's library keeps debug sections after them: half the file may
     * hold them all) */
    Elf64_Ehdr eh;
    assert_true(size >= sizeof eh);
    memcpy(&eh, whole, sizeof eh);
    uint64_t end = 0;
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        assert_true(eh.e_phoff + (i + 1) * sizeof ph <= size);
        memcpy(&ph, whole + eh.e_phoff + i * sizeof ph, sizeof ph);
        if (ph.p_type == PT_LOAD && ph.p_offset + ph.p_filesz > end)
            end = ph.p_offset + ph.p_filesz;
    }
    assert_true(end > 4096 && end <= size);
    char *dir = tu_make_dir();
    const size_t cuts[] = {(size_t)end - 1, 4096, 40};
    const char *why[] = {"truncated: a segment needs bytes", "truncated: a segment needs bytes",
                         "truncated: its ELF header needs 64 bytes, the file has 40"};
    for (size_t k = 0; k < 3; k++) {
        assert_true(cuts[k] < size);
        const char *cut = tu_path(dir, "cut.so");
        FILE *out = fopen(cut, "wb");
        assert_non_null(out);
        assert_int_equal(fwrite(whole, 1, cuts[k], out), cuts[k]);
        assert_int_equal(fclose(out), 0);
        tu_entry e[] = {{.name = "modelDescription.xml", .text = fmi2_md},
                        {.name = "binaries/linux64/model.so", .file = cut}};
        tu_zip(f->fmu, e, 2);
        expect_failure(f, RTCOSIM_EUNSUPPORTED, why[k]);
    }
    tu_drop_dir(dir);
}

static void binary_lacking_a_function_is_named(void **state)
{
    fixture *f = *state;
    tu_entry e[] = {{.name = "modelDescription.xml", .text = fmi2_md},
                    {.name = "binaries/linux64/model.so", .file = PARTIAL_FMU_PATH}};
    tu_zip(f->fmu, e, 2);
    expect_failure(f, RTCOSIM_ENOTFOUND, "model.fmu: binary lacks fmi2DoStep");
}

static const char ramp_md[] =
    "<fmiModelDescription fmiVersion=\"3.0\" modelName=\"Ramp\" instantiationToken=\"r\">"
    "<CoSimulation modelIdentifier=\"model\" canHandleVariableCommunicationStepSize=\"true\"/>"
    "<ModelVariables>"
    "<Float64 name=\"time\" valueReference=\"0\" causality=\"independent\" variability=\"continuous\"/>"
    "<Float64 name=\"u\" valueReference=\"1\" causality=\"input\" start=\"0\"><Alias name=\"u2\"/></Float64>"
    "<Float64 name=\"der(u)\" valueReference=\"2\" causality=\"input\" derivative=\"1\" start=\"0\"/>"
    "<Float64 name=\"y\" valueReference=\"3\" causality=\"output\"/>"
    "</ModelVariables><ModelStructure><Output valueReference=\"3\"/></ModelStructure>"
    "</fmiModelDescription>";

/* FMI 3.0 input derivatives are inputs declared with `derivative`: setting
 * derivative 1 of u must reach der(u). The ramp FMU computes y = u + du * h.
 * u's alias u2 (same reference, no derivative of its own) changes nothing. */
static void fmi3_input_derivative_goes_to_the_declared_derivative_input(void **state)
{
    fixture *f = *state;
    tu_entry e[] = {{.name = "modelDescription.xml", .text = ramp_md},
                    {.name = "binaries/x86_64-linux/model.so", .file = RAMP_FMU_PATH}};
    tu_zip(f->fmu, e, 2);
    rtcosim_fmu_options opts = {.temp_dir = f->tmp};
    rtcosim_component *c;
    rtcosim_error err;
    assert_int_equal(rtcosim_fmu_load(f->fmu, &opts, &c, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_capabilities(c)->max_input_derivative_order, 1);
    assert_int_equal(rtcosim_component_instantiate(c, "ramp", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_setup(c, 0, 0, -1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_enter_init(c, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
    uint32_t u = 1, y = 3;
    double u_value = 1.0, slope = 2.0, out = 0;
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &u, 1, &u_value, &err), 0);
    assert_int_equal(rtcosim_component_set_input_derivatives(c, &u, 1, 1, &slope, &err), 0);
    assert_int_equal(rtcosim_component_do_step(c, 0, RTCOSIM_NS_PER_S / 2, NULL, &err), 0);
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &y, 1, &out, &err), 0);
    assert_true(out == 1.0 + 2.0 * 0.5);
    assert_int_equal(rtcosim_component_set_input_derivatives(c, &u, 1, 2, &slope, &err),
                     RTCOSIM_EUNSUPPORTED); /* only the first derivative is declared */
    assert_int_equal(rtcosim_component_set_input_derivatives(c, &y, 1, 1, &slope, &err),
                     RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "ramp: value reference 3 is not a continuous Float64 input"));
    rtcosim_component_free(c);
    assert_int_equal(tu_count_entries(f->tmp), 0);
}

static void info_of_a_non_fmu_component_is_null(void **state)
{
    (void)state;
    assert_null(rtcosim_fmu_info_of(NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(missing_file_is_not_found, setup, teardown),
        cmocka_unit_test_setup_teardown(text_file_is_not_a_zip, setup, teardown),
        cmocka_unit_test_setup_teardown(zip_without_model_description_is_rejected, setup, teardown),
        cmocka_unit_test_setup_teardown(malformed_model_description_is_rejected, setup, teardown),
        cmocka_unit_test_setup_teardown(fmi1_without_linux_binary_names_the_expected_path, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(fmi1_binary_lacking_functions_names_each, setup, teardown),
        cmocka_unit_test_setup_teardown(fmi2_without_linux_binary_names_the_expected_path, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(fmi3_without_linux_binary_names_the_expected_path, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(fmi3_with_sources_only_says_so, setup, teardown),
        cmocka_unit_test_setup_teardown(fmu_for_other_platforms_is_described, setup, teardown),
        cmocka_unit_test_setup_teardown(archive_inflating_beyond_the_limit_is_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(truncated_binary_is_an_error_not_a_crash, setup, teardown),
        cmocka_unit_test_setup_teardown(binary_that_is_not_a_shared_object_fails_to_load, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(binary_lacking_a_function_is_named, setup, teardown),
        cmocka_unit_test_setup_teardown(fmi3_input_derivative_goes_to_the_declared_derivative_input,
                                        setup, teardown),
        cmocka_unit_test(info_of_a_non_fmu_component_is_null),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
