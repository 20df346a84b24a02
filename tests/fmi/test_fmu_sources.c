/* Source-code FMUs (src/fmi/fmu_sources.c): DecaySource (models/source_fmu)
 * ships only sources, written against the standard's header names; loading
 * it builds its binary, and its output is x0 exp(-k t), computed here. FMI
 * 3.0 through sources/buildDescription.xml (two SourceFileSets with their
 * own definitions and languages, an include directory, the function prefix,
 * libm, a BuildConfiguration of another platform passed over), FMI 2.0
 * through the SourceFiles of its CoSimulation element; an unpacked FMU is
 * not written to. Broken descriptions, sources that do not compile or link,
 * a compiler that cannot run: one line naming the FMU and the problem. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "rtcosim/fmu.h"
#include "rtcosim/log.h"
#include "rtcosim_test_fmus.h"
#include "util/test_util.h"

static char *tmp_dir;

static int group_setup(void **state)
{
    (void)state;
    tmp_dir = tu_make_dir();
    /* a build cache of the test's own (the user's stays untouched) */
    setenv("RTCOSIM_CACHE_DIR", tu_path(tmp_dir, "cache"), 1);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    tu_drop_dir(tmp_dir);
    return 0;
}

static bool default_starts; /* rtcosim_fmu_options.apply_default_start_values */

static rtcosim_status load(const char *path, rtcosim_component **c, rtcosim_error *err)
{
    rtcosim_fmu_options opts = {.temp_dir = tmp_dir, .apply_default_start_values = default_starts};
    return rtcosim_fmu_load(path, &opts, c, err);
}

/* x at t = 0, 0.5, .. 2 with k and x0 set (k < 0: not set, the FMU's own
 * -k): x0 exp(-k t) bit for bit (the FMU computes it with the same libm). */
static void expect_decay(const char *path, double k, double x0)
{
    const bool set_k = k >= 0;
    k = set_k ? k : -k;
    rtcosim_component *c = NULL;
    rtcosim_error err;
    if (load(path, &c, &err) != RTCOSIM_OK)
        fail_msg("loading %s: %s", path, err.message);
    assert_int_equal(rtcosim_component_instantiate(c, "decay", &err), RTCOSIM_OK);
    uint32_t vk = rtcosim_component_find_variable(c, "k")->value_reference;
    uint32_t vx0 = rtcosim_component_find_variable(c, "x0")->value_reference;
    uint32_t vx = rtcosim_component_find_variable(c, "x")->value_reference;
    assert_int_equal(rtcosim_component_setup(c, 0, 0, -1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_enter_init(c, &err), RTCOSIM_OK);
    if (set_k)
        assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &vk, 1, &k, &err),
                         RTCOSIM_OK);
    assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &vx0, 1, &x0, &err),
                     RTCOSIM_OK);
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
    for (int i = 0; i <= 4; i++) {
        double x = 0;
        assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &vx, 1, &x, &err),
                         RTCOSIM_OK);
        double expected = x0 * exp(-k * 0.5 * i);
        if (x != expected)
            fail_msg("%s: x(%g) = %.17g, expected %.17g", path, 0.5 * i, x, expected);
        if (i < 4) {
            rtcosim_step_result r;
            assert_int_equal(rtcosim_component_do_step(c, (rtcosim_time_ns)i * 500000000,
                                                    500000000, &r, &err),
                             RTCOSIM_OK);
        }
    }
    rtcosim_component_free(c);
}

static void fmi3_sources_are_built_from_the_build_description(void **state)
{
    (void)state;
    expect_decay(RTCOSIM_FMU_DECAYSOURCE_FMI3, 0.5, 2.0);
    expect_decay(RTCOSIM_FMU_DECAYSOURCE_FMI3, 1.5, -3.0);
}

static void fmi2_sources_are_built_from_the_source_files_element(void **state)
{
    (void)state;
    expect_decay(RTCOSIM_FMU_DECAYSOURCE_FMI2, 0.5, 2.0);
    expect_decay(RTCOSIM_FMU_DECAYSOURCE_FMI2, 0.25, 4.0);
}

/* The build cache: the first load builds and keeps the binary, the next
 * takes it (the same x); a changed source, or other $CFLAGS, is built anew. */
static void a_binary_built_once_is_taken_from_the_cache(void **state)
{
    (void)state;
    setenv("RTCOSIM_CACHE_DIR", tu_path(tmp_dir, "cache2"), 1);
    tu_log_capture(RTCOSIM_LOG_INFO);
    expect_decay(RTCOSIM_FMU_DECAYSOURCE_FMI2, 0.5, 2.0);
    assert_non_null(strstr(tu_log_text(), "built binaries/linux64/DecaySource.so from its 2 "
                                          "source files"));
    assert_non_null(strstr(tu_log_text(), "kept in the build cache: "));
    assert_int_equal(tu_count_entries(tu_path(tmp_dir, "cache2/fmu-builds")), 1);
    tu_log_reset();
    expect_decay(RTCOSIM_FMU_DECAYSOURCE_FMI2, 0.5, 2.0);
    assert_null(strstr(tu_log_text(), "built binaries"));
    assert_non_null(strstr(tu_log_text(), "from its sources, built before ("));
    tu_log_reset();
    setenv("CFLAGS", "-DDECAY_UNUSED=1", 1);
    expect_decay(RTCOSIM_FMU_DECAYSOURCE_FMI2, 0.5, 2.0);
    unsetenv("CFLAGS");
    assert_non_null(strstr(tu_log_text(), "built binaries/linux64/DecaySource.so"));
    assert_int_equal(tu_count_entries(tu_path(tmp_dir, "cache2/fmu-builds")), 2);
    rtcosim_log_set_handler(NULL, NULL);
    rtcosim_log_set_level(RTCOSIM_LOG_WARNING);
    setenv("RTCOSIM_CACHE_DIR", tu_path(tmp_dir, "cache"), 1);
}

/* The FMU unpacked (the build's layout directory): built elsewhere, the
 * directory left as it was, the build directory gone with the FMU. */
static void an_unpacked_fmu_is_not_written_to(void **state)
{
    (void)state;
    int before = tu_count_entries(RTCOSIM_FMU_DECAYSOURCE_FMI3_DIR);
    expect_decay(RTCOSIM_FMU_DECAYSOURCE_FMI3_DIR, 0.5, 2.0); /* (the build cache made) */
    int temp_before = tu_count_entries(tmp_dir);
    expect_decay(RTCOSIM_FMU_DECAYSOURCE_FMI3_DIR, 0.5, 2.0);
    assert_int_equal(tu_count_entries(RTCOSIM_FMU_DECAYSOURCE_FMI3_DIR), before);
    struct stat sb;
    assert_int_not_equal(stat(RTCOSIM_FMU_DECAYSOURCE_FMI3_DIR "/binaries", &sb), 0);
    assert_int_equal(tu_count_entries(tmp_dir), temp_before);
}

/* DecaySource-fmi3 as an archive with `build` as its build description (or
 * none), decay.c replaced by `decay_c` when given. */
static const char *variant(const char *name, const char *build, const char *decay_c)
{
#define L(f) RTCOSIM_FMU_DECAYSOURCE_FMI3_DIR "/" f
    tu_entry e[] = {
        {.name = "modelDescription.xml", .file = L("modelDescription.xml")},
        {.name = "sources/decay.c", .text = decay_c, .file = decay_c ? NULL : L("sources/decay.c")},
        {.name = "sources/decay_math.c", .file = L("sources/decay_math.c")},
        {.name = "sources/decay_math.h", .file = L("sources/decay_math.h")},
        {.name = "sources/include/decay_config.h", .file = L("sources/include/decay_config.h")},
        {.name = "sources/buildDescription.xml", .text = build},
    };
#undef L
    static char path[512];
    snprintf(path, sizeof path, "%s/%s.fmu", tmp_dir, name);
    tu_zip(path, e, build ? 6 : 5);
    return path;
}

static void expect_load_error(const char *path, const char *message)
{
    rtcosim_component *c = NULL;
    rtcosim_error err;
    rtcosim_status st = load(path, &c, &err);
    if (st == RTCOSIM_OK)
        fail_msg("%s loaded; expected: %s", path, message);
    if (!strstr(err.message, message) || strchr(err.message, '\n') ||
        strncmp(err.message, path, strlen(path)) != 0)
        fail_msg("expected one line starting with %s and holding\n%s\ngot\n%s", path, message,
                 err.message);
}

#define BUILD(body)                                                                          \
    "<?xml version=\"1.0\"?>\n<fmiBuildDescription fmiVersion=\"3.0\">"                        \
    "<BuildConfiguration modelIdentifier=\"DecaySource\">" body                              \
    "</BuildConfiguration></fmiBuildDescription>\n"
#define SETS(first)                                                                          \
    "<SourceFileSet language=\"C99\"><SourceFile name=\"decay.c\"/>"                          \
    "<PreprocessorDefinition name=\"FMI_VERSION\" value=\"3\"/>" first "</SourceFileSet>"        \
    "<SourceFileSet><SourceFile name=\"decay_math.c\"/>"                                      \
    "<PreprocessorDefinition name=\"DECAY_MATH_SET\"/></SourceFileSet>"

static void bad_build_descriptions_are_one_line_errors(void **state)
{
    (void)state;
    expect_load_error(variant("none", NULL, NULL),
                      "no binary for this platform (x86_64 Linux): expected "
                      "binaries/x86_64-linux/DecaySource.so; it holds sources, and no "
                      "sources/buildDescription.xml to build one from");
    expect_load_error(variant("xml", "<fmiBuildDescription><Build", NULL),
                      "sources/buildDescription.xml: not well-formed XML");
    expect_load_error(variant("other", "<?xml version=\"1.0\"?><fmiBuildDescription "
                                       "fmiVersion=\"3.0\"><BuildConfiguration modelIdentifier="
                                       "\"Other\"/></fmiBuildDescription>", NULL),
                      "sources/buildDescription.xml: no BuildConfiguration for the "
                      "modelIdentifier 'DecaySource'");
    expect_load_error(variant("outside", BUILD("<SourceFileSet><SourceFile name=\"../../x.c\"/>"
                                               "</SourceFileSet>"), NULL),
                      "a source file outside sources/ '../../x.c'");
    expect_load_error(variant("absent", BUILD("<SourceFileSet><SourceFile name=\"gone.c\"/>"
                                              "</SourceFileSet>"), NULL),
                      "a source file the archive does not hold 'gone.c'");
    expect_load_error(variant("define", BUILD("<SourceFileSet><SourceFile name=\"decay.c\"/>"
                                              "<PreprocessorDefinition name=\"A B\"/>"
                                              "</SourceFileSet>"), NULL),
                      "a PreprocessorDefinition whose name is no identifier 'A B'");
    expect_load_error(variant("library", BUILD(SETS("") "<Library name=\"-rf\"/>"), NULL),
                      "a Library whose name is not one word '-rf'");
    expect_load_error(variant("fortran", BUILD("<SourceFileSet language=\"Fortran77\">"
                                               "<SourceFile name=\"decay.c\"/></SourceFileSet>"),
                              NULL),
                      "a SourceFileSet language rtcosim does not build 'Fortran77'");
    expect_load_error(variant("empty", BUILD(""), NULL),
                      "no SourceFile in the BuildConfiguration of 'DecaySource'");
}

static void sources_that_do_not_build_are_one_line_errors(void **state)
{
    (void)state;
    /* the include directory left out: the compiler's error, first file */
    expect_load_error(variant("noinclude", BUILD(SETS("")), NULL),
                      "building it from its sources failed at sources/decay.c: ");
    expect_load_error(variant("noinclude", BUILD(SETS("")), NULL), "decay_config.h");
    /* the files compile side by side: a failure of the second is named as
     * such, and of two failures the first in the description's order */
    expect_load_error(variant("second", BUILD("<SourceFileSet language=\"C99\">"
                                              "<SourceFile name=\"decay.c\"/>"
                                              "<PreprocessorDefinition name=\"FMI_VERSION\" "
                                              "value=\"3\"/><IncludeDirectory name=\"include\"/>"
                                              "</SourceFileSet><SourceFileSet>"
                                              "<SourceFile name=\"decay_math.c\"/>"
                                              "</SourceFileSet>"), NULL),
                      "failed at sources/decay_math.c: ");
    expect_load_error(variant("both", BUILD("<SourceFileSet><SourceFile name=\"decay_math.c\"/>"
                                            "<SourceFile name=\"decay.c\"/></SourceFileSet>"),
                              NULL),
                      "failed at sources/decay_math.c: ");
    /* the other set's definition given to decay.c: its #error */
    expect_load_error(variant("leak", BUILD(SETS("<IncludeDirectory name=\"include\"/>"
                                                 "<PreprocessorDefinition name=\"DECAY_MATH_SET\"/>")),
                              NULL),
                      "a definition of decay_math.c's SourceFileSet reached decay.c");
    /* a function this platform names otherwise: the link names it, $CFLAGS
     * mends it (as the FMI-LS-BUS demos' _strdup) */
    const char *text = tu_read_file(RTCOSIM_FMU_DECAYSOURCE_FMI3_DIR "/sources/decay.c", NULL);
    char *windows = malloc(strlen(text) + 200);
    sprintf(windows, "%s\nchar *_strdup(const char *);\nchar *decay_name(void) "
                     "{ return _strdup(\"decay\"); }\n", text);
    const char *good = BUILD(SETS("<IncludeDirectory name=\"include\"/>") "<Library name=\"m\"/>");
    const char *fmu = variant("strdup", good, windows);
    expect_load_error(fmu, "undefined reference to `_strdup'");
    expect_load_error(fmu, "$CFLAGS can define what the sources lack");
    setenv("CFLAGS", "-D_strdup=strdup", 1);
    fmu = variant("strdup", good, windows);
    expect_decay(fmu, 0.5, 2.0);
    unsetenv("CFLAGS");
    free(windows);
    /* a compiler that is not there */
    setenv("CC", "/nonexistent/cc", 1);
    expect_load_error(variant("cc", good, NULL), "cannot run '/nonexistent/cc'");
    /* one that never finishes (sources can make a real one run without end,
     * an #include of /dev/zero): stopped after $RTCOSIM_BUILD_TIMEOUT, no
     * process left behind */
    const char *script = tu_path(tmp_dir, "hang-cc");
    tu_write_file(script, "#!/bin/sh\nexec sleep 60\n");
    chmod(script, 0755);
    setenv("CC", script, 1);
    setenv("RTCOSIM_BUILD_TIMEOUT", "0.5", 1);
    int64_t t0 = tu_now_ns();
    expect_load_error(variant("hang", good, NULL), "did not finish within 0.5 s "
                                                   "($RTCOSIM_BUILD_TIMEOUT) and was stopped");
    assert_true(tu_now_ns() - t0 < 30000000000); /* (far from the 60 s it would take) */
    tu_assert_no_child_left();
    unsetenv("RTCOSIM_BUILD_TIMEOUT");
    unsetenv("CC");
}

/* An FMU that starts from its own defaults, not from the start values it
 * declares (DecaySource's k declared 1.5 while its code starts with 0.5, as
 * the FMI-LS-BUS FlexRay demo node's IsSecondNode): 0.5 by default, 1.5
 * with apply_default_start_values, and a start value set after that wins. */
static void declared_start_values_are_applied_when_asked(void **state)
{
    (void)state;
    char *md = strdup(tu_read_file(RTCOSIM_FMU_DECAYSOURCE_FMI3_DIR "/modelDescription.xml", NULL));
    char *k = strstr(md, "variability=\"fixed\" start=\"0.5\"");
    assert_non_null(k);
    memcpy(strstr(k, "0.5"), "1.5", 3);
    const char *build = tu_read_file(RTCOSIM_FMU_DECAYSOURCE_FMI3_DIR "/sources/buildDescription.xml",
                                     NULL);
    char *bd = strdup(build);
#define L(f) RTCOSIM_FMU_DECAYSOURCE_FMI3_DIR "/" f
    tu_entry e[] = {
        {.name = "modelDescription.xml", .text = md},
        {.name = "sources/decay.c", .file = L("sources/decay.c")},
        {.name = "sources/decay_math.c", .file = L("sources/decay_math.c")},
        {.name = "sources/decay_math.h", .file = L("sources/decay_math.h")},
        {.name = "sources/include/decay_config.h", .file = L("sources/include/decay_config.h")},
        {.name = "sources/buildDescription.xml", .text = bd},
    };
#undef L
    const char *fmu = tu_path(tmp_dir, "starts.fmu");
    tu_zip(fmu, e, 6);
    expect_decay(fmu, -0.5, 2.0); /* its own 0.5 */
    default_starts = true;
    expect_decay(fmu, -1.5, 2.0); /* the declared 1.5 */
    expect_decay(fmu, 0.25, 2.0); /* set later: wins */
    default_starts = false;
    free(md);
    free(bd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fmi3_sources_are_built_from_the_build_description),
        cmocka_unit_test(fmi2_sources_are_built_from_the_source_files_element),
        cmocka_unit_test(a_binary_built_once_is_taken_from_the_cache),
        cmocka_unit_test(declared_start_values_are_applied_when_asked),
        cmocka_unit_test(an_unpacked_fmu_is_not_written_to),
        cmocka_unit_test(bad_build_descriptions_are_one_line_errors),
        cmocka_unit_test(sources_that_do_not_build_are_one_line_errors),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
