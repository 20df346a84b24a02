/* --isolate: an FMU hosted in a child process gives the same results as in
 * process (byte-identical CSV); a crash, abort or exit(0) in its step is an
 * error naming the component, the FMI call, the time and how the child ended,
 * with the rows before it on disk and rtcosim itself unharmed; and a soak of
 * crashing isolated FMUs leaks no process, file descriptor or temporary
 * directory. A system run with --isolate (all, or a list) equals the run in
 * process byte for byte; in a real-time run the partner's FMU is isolated by
 * default, so its crash, abort or exit makes the partner lost (exit code 3)
 * while the real-time part finishes with every row. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "rtcosim/fmu.h"
#include "rtcosim/isolate.h"
#include "rtcosim_test_fmus.h"
#include "util/test_util.h"

/* Run the CLI with args (NULL-terminated), stderr into err_path; exit code. */
static int run_cli(const char *err_path, const char *const *args)
{
    const char *argv[32];
    tu_cli_argv(argv, 32, RTCOSIM_CLI_PATH, args);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fe < 0)
            _exit(126);
        dup2(fe, 2);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* A scratch directory with the paths of an in-process CSV, an isolated one
 * and a file for stderr. */
typedef struct pair_files {
    char *dir;
    char a[512], b[512], err[512];
} pair_files;

static void pair_files_make(pair_files *f)
{
    f->dir = tu_make_dir();
    snprintf(f->a, sizeof f->a, "%s/in.csv", f->dir);
    snprintf(f->b, sizeof f->b, "%s/iso.csv", f->dir);
    snprintf(f->err, sizeof f->err, "%s/err.txt", f->dir);
}

/* Run args (NULL-terminated with room for two more after it) in process
 * into `a`, then with --isolate into `b`: the isolated CSV must be the
 * in-process one byte for byte. */
static void assert_isolated_equals_in_process(const char **args, const char *a, const char *b,
                                              const char *err)
{
    size_t end = 0;
    while (args[end])
        end++;
    args[end] = a;
    if (run_cli(err, args) != 0)
        fail_msg("%s: %s", args[1], tu_read_file(err, NULL));
    char *expected = strdup(tu_read_file(a, NULL));
    assert_non_null(expected);
    args[end] = b;
    args[end + 1] = "--isolate";
    int rc = run_cli(err, args);
    if (rc != 0)
        fail_msg("%s --isolate: exit %d: %s", args[1], rc, tu_read_file(err, NULL));
    assert_string_equal(tu_read_file(b, NULL), expected);
    free(expected);
    args[end] = NULL;
    args[end + 1] = NULL;
}

static void isolated_results_equal_in_process_results(void **state)
{
    (void)state;
    pair_files f;
    pair_files_make(&f);
    char *dir = f.dir;
    const char *a = f.a, *b = f.b, *err = f.err;
    const char *fmus[] = {RTCOSIM_FMU_DAHLQUIST_FMI2, RTCOSIM_FMU_BOUNCINGBALL_FMI3};
    for (int i = 0; i < 2; i++) {
        const char *in[] = {"simulate", fmus[i], "--stop-time", "1", "--output-file", a, "-q", NULL};
        const char *iso[] = {"simulate", fmus[i], "--stop-time", "1", "--output-file", b,
                             "--isolate", "-q", NULL};
        assert_int_equal(run_cli(err, in), 0);
        char *expected = strdup(tu_read_file(a, NULL));
        int rc = run_cli(err, iso);
        if (rc != 0)
            fail_msg("%s --isolate: exit %d: %s", fmus[i], rc, tu_read_file(err, NULL));
        assert_string_equal(tu_read_file(b, NULL), expected);
        free(expected);
    }
    tu_drop_dir(dir);
}

/* String and Binary values cross the channel both ways: set as start values,
 * read back as outputs, with NULs inside a Binary, non-ASCII and empty
 * Strings, in FMI 1.0, 2.0 and 3.0 FMUs. */
static void isolated_strings_and_binaries_equal_in_process(void **state)
{
    (void)state;
    pair_files f;
    pair_files_make(&f);
    char *dir = f.dir;
    const char *a = f.a, *b = f.b, *err = f.err;
    const char *feedthrough[] = {
        "simulate", RTCOSIM_FMU_FEEDTHROUGH_FMI3, "--stop-time", "0.003",
        "--start-value", "String_input", "h\xc3\xa9llo, w\xc3\xb6rld",
        "--start-value", "Binary_input", "00ff0010", "--start-value", "String_parameter", "",
        "--output-variable", "String_output", "--output-variable", "Binary_output",
        "--output-variable", "Binary_parameter", "--output-variable", "String_parameter",
        "--output-variable", "Int32_output", "-q", "--output-file", NULL, NULL, NULL};
    const char *strings1[] = {"simulate", RTCOSIM_FMU_STRINGS_FMI1, "--stop-time", "0.3",
                              "-q", "--output-file", NULL, NULL, NULL};
    const char *strings2[] = {"simulate", RTCOSIM_FMU_STRINGS_FMI2, "--stop-time", "0.3",
                              "-q", "--output-file", NULL, NULL, NULL};
    const char **runs[] = {feedthrough, strings1, strings2};
    for (int i = 0; i < 3; i++) {
        assert_isolated_equals_in_process(runs[i], a, b, err);
        if (i == 0) /* what the FMU was given comes back: its outputs equal its inputs */
            assert_non_null(strstr(tu_read_file(b, NULL),
                                   "\n0.001,\"h\xc3\xa9llo, w\xc3\xb6rld\",00ff0010,00ff7f80,\"\","));
        if (i == 2) /* the model's description: "ab" copied, its length, "ab" per step */
            assert_string_equal(tu_read_file(b, NULL),
                                "\"time\",\"String_output\",\"Length_output\",\"Empty_output\","
                                "\"Steps_output\"\n0,\"ab\",2,\"\",\"\"\n0.25,\"ab\",2,\"\","
                                "\"ab\"\n0.3,\"ab\",2,\"\",\"abab\"\n");
    }
    tu_drop_dir(dir);
}

/* x(1) of the Integrator (der(x) = u) from its CSV's last row. */
static double last_x(const char *csv)
{
    const char *text = tu_read_file(csv, NULL);
    const char *last = strrchr(text, '\n');
    assert_non_null(last);
    while (last > text && last[-1] != '\n')
        last--;
    assert_true(strncmp(last, "1,", 2) == 0);
    return strtod(last + 2, NULL);
}

/* Model exchange through the host: the integrator calls the parent back for
 * the rows at events and for the continuous inputs at every solver time, so
 * that an isolated run is the in-process run byte for byte. u = t from the
 * input file into the Integrator gives x(1) = 1/2 with CVODE (inputs held
 * over each 0.1 s output step, as before, gave 0.45) and, with Euler steps
 * of 0.01, the Euler sum 0.01^2 (0 + 1 + ... + 99) = 0.495. FeedthroughME
 * with input jumps on and off the grid takes its input events (Event Mode
 * entered through the host) with the in-process rows. */
static void isolated_model_exchange_equals_in_process(void **state)
{
    (void)state;
    char *dir = tu_make_dir();
    char a[512], b[512], err[512], ramp[512], jumps[512];
    snprintf(a, sizeof a, "%s/in.csv", dir);
    snprintf(b, sizeof b, "%s/iso.csv", dir);
    snprintf(err, sizeof err, "%s/err.txt", dir);
    snprintf(ramp, sizeof ramp, "%s/ramp.csv", dir);
    snprintf(jumps, sizeof jumps, "%s/jumps.csv", dir);
    tu_write_file(ramp, "time,u\n0,0\n1,1\n");
    tu_write_file(jumps, "time,Float64_continuous_input,Float64_discrete_input,Int32_input\n"
                         "0,0,0,0\n0.03,1,0,0\n0.03,2,5,3\n0.5,-1,5,3\n0.77,4,1,7\n");
    const char *cvode[] = {"simulate", RTCOSIM_FMU_INTEGRATOR_FMI3, "--interface-type", "me",
                           "--solver", "cvode", "--input-file", ramp, "--stop-time", "1",
                           "--output-interval", "0.1", "-q", "-o", NULL, NULL, NULL};
    const char *euler[] = {"simulate", RTCOSIM_FMU_INTEGRATOR_FMI3, "--interface-type", "me",
                           "--solver", "euler", "--max-solver-step", "0.01", "--input-file",
                           ramp, "--stop-time", "1", "--output-interval", "0.1", "-q", "-o",
                           NULL, NULL, NULL};
    const char *events[] = {"simulate", RTCOSIM_FMU_FEEDTHROUGHME_FMI3, "--interface-type", "me",
                            "--input-file", jumps, "--stop-time", "1", "--output-interval", "0.1",
                            "--output-variable", "Float64_continuous_output",
                            "--output-variable", "Float64_discrete_output",
                            "--output-variable", "Int32_output", "-q", "-o", NULL, NULL, NULL};
    const char **runs[] = {cvode, euler, events};
    const double x1[] = {0.5, 0.495};
    const double tol[] = {1e-5, 1e-12};
    for (int i = 0; i < 3; i++) {
        assert_isolated_equals_in_process(runs[i], a, b, err);
        if (i < 2)
            assert_true(fabs(last_x(b) - x1[i]) < tol[i]);
        else /* the jump at 0.77 s off the grid: a row before and one after it */
            assert_non_null(strstr(tu_read_file(b, NULL), "\n0.77,4,5,3\n0.77,4,1,7\n"));
    }
    tu_drop_dir(dir);
}

/* An observer whose gets run inside another get: the get that ends an input
 * event calls the observer back for the row after it, whose own get (two
 * Float64 outputs) the host serves before the first one (an Int32 output)
 * has read its value references; each must get its own values (the host
 * copies a request's references before serving nested ones). */
typedef struct nested_rows {
    rtcosim_component *c;
    int after_rows;
    double after[2];
} nested_rows;

static rtcosim_status row_with_a_get(void *context, double time, bool after, rtcosim_error *err)
{
    (void)time;
    nested_rows *n = context;
    if (!after)
        return RTCOSIM_OK;
    static const uint32_t vrs[] = {2, 4}; /* Float64_continuous_output, Float64_discrete_output */
    n->after_rows++;
    return rtcosim_component_get(n->c, RTCOSIM_TYPE_FLOAT64, vrs, 2, n->after, err);
}

static void a_get_inside_a_get_gets_its_own_values(void **state)
{
    (void)state;
    rtcosim_component *inner = NULL, *iso = NULL;
    rtcosim_error err;
    rtcosim_fmu_options fo = {.interface_type = RTCOSIM_FMI_MODEL_EXCHANGE};
    assert_int_equal(rtcosim_fmu_load(RTCOSIM_FMU_FEEDTHROUGHME_FMI3, &fo, &inner, &err),
                     RTCOSIM_OK);
    if (rtcosim_isolate_wrap_options(inner, RTCOSIM_FMU_FEEDTHROUGHME_FMI3, RTCOSIM_CLI_PATH, &fo,
                                     &iso, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    nested_rows rows = {.c = iso};
    assert_int_equal(rtcosim_isolate_me_observe_events(iso, row_with_a_get, &rows, &err),
                     RTCOSIM_OK);
    assert_int_equal(rtcosim_component_instantiate(iso, "ft", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_setup(iso, 0, 0, -1, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_enter_init(iso, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_exit_init(iso, &err), RTCOSIM_OK);
    rtcosim_step_result sr = {0};
    assert_int_equal(rtcosim_component_do_step(iso, 0, 100000000, &sr, &err), RTCOSIM_OK);
    /* an input event at 0.1 s: the discrete inputs set in Event Mode */
    assert_int_equal(rtcosim_isolate_me_enter_input_event(iso, &err), RTCOSIM_OK);
    static const uint32_t f64_in[] = {1, 3}, i32_in = 5, i32_out = 6;
    const double f64[] = {2.5, 7.0};
    const int32_t i32 = 42;
    assert_int_equal(rtcosim_component_set(iso, RTCOSIM_TYPE_FLOAT64, f64_in, 2, f64, &err),
                     RTCOSIM_OK);
    assert_int_equal(rtcosim_component_set(iso, RTCOSIM_TYPE_INT32, &i32_in, 1, &i32, &err),
                     RTCOSIM_OK);
    int32_t got = 0;
    if (rtcosim_component_get(iso, RTCOSIM_TYPE_INT32, &i32_out, 1, &got, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(rows.after_rows, 1); /* the get ended the event: the row after it */
    assert_int_equal(got, 42);
    assert_true(rows.after[0] == 2.5 && rows.after[1] == 7.0);
    assert_int_equal(rtcosim_isolate_me_observe_events(iso, NULL, NULL, &err), RTCOSIM_OK);
    rtcosim_component_free(iso);
    tu_assert_no_child_left();
}

/* FMI 3.0 Event Mode and early return through the host: the Events FMU's
 * ticks, with and without early return, give the in-process rows (the
 * options used to be refused with --isolate). */
static void isolated_event_mode_equals_in_process(void **state)
{
    (void)state;
    pair_files f;
    pair_files_make(&f);
    char *dir = f.dir;
    const char *a = f.a, *b = f.b, *err = f.err;
    const char *events[] = {"simulate", RTCOSIM_FMU_EVENTS_FMI3, "--event-mode-used",
                            "--stop-time", "3", "-q", "-o", NULL, NULL, NULL};
    const char *early[] = {"simulate", RTCOSIM_FMU_EVENTS_FMI3, "--event-mode-used",
                           "--early-return-allowed", "--stop-time", "3", "-q", "-o", NULL, NULL,
                           NULL};
    assert_isolated_equals_in_process(events, a, b, err);
    /* a row before and one after each of the ticks */
    assert_true(tu_count_lines(b) > 4);
    assert_isolated_equals_in_process(early, a, b, err);
    tu_drop_dir(dir);
}

static void crash_abort_exit_of_the_host_are_errors_naming_call_and_time(void **state)
{
    (void)state;
    static const struct {
        const char *mode, *how;
    } cases[] = {{"6", "crashed (SIGSEGV)"}, {"7", "crashed (SIGABRT)"}, {"8", "exited with status 0"}};
    char *dir = tu_make_dir();
    char csv[512], err[512];
    snprintf(csv, sizeof csv, "%s/out.csv", dir);
    snprintf(err, sizeof err, "%s/err.txt", dir);
    for (size_t i = 0; i < 3; i++) {
        const char *args[] = {"simulate", RTCOSIM_FMU_FAULTY_FMI3, "--isolate", "--start-value",
                              "fail_mode", cases[i].mode, "--stop-time", "2",
                              "--output-interval", "0.25", "--output-file", csv, "-q", NULL};
        assert_int_equal(run_cli(err, args), 1); /* rtcosim itself ends normally */
        const char *text = tu_read_file(err, NULL);
        if (!strstr(text, "component 'Faulty' in fmi3DoStep at t = 1 s: its host process") ||
            !strstr(text, cases[i].how))
            fail_msg("mode %s: %s", cases[i].mode, text);
        size_t size;
        const char *rows = tu_read_file(csv, &size);
        size_t lines = 0;
        for (size_t k = 0; k < size; k++)
            lines += rows[k] == '\n';
        assert_int_equal(lines, 6); /* header + t = 0, 0.25, 0.5, 0.75, 1 */
    }
    tu_drop_dir(dir);
}

static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    assert_non_null(d);
    int n = 0;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

/* Isolated loads whose step crashes (30 in CI; RTCOSIM_SOAK_RUNS=1000 for
 * the long soak): after each, no child is left to reap, and at the end the
 * descriptors and the temporary directory are as before. */
static void soak_of_crashing_isolated_fmus_leaks_nothing(void **state)
{
    (void)state;
    char *tmp = tu_make_dir();
    int fds_before = count_fds();
    int runs = getenv("RTCOSIM_SOAK_RUNS") ? atoi(getenv("RTCOSIM_SOAK_RUNS")) : 30;
    for (int i = 0; i < runs; i++) {
        rtcosim_fmu_options fo = {.temp_dir = tmp};
        rtcosim_component *inner = NULL, *c = NULL;
        rtcosim_error err;
        assert_int_equal(rtcosim_fmu_load(RTCOSIM_FMU_FAULTY_FMI2, &fo, &inner, &err), RTCOSIM_OK);
        if (rtcosim_isolate_wrap(inner, RTCOSIM_FMU_FAULTY_FMI2, RTCOSIM_CLI_PATH, false, &c,
                                 &err) != RTCOSIM_OK)
            fail_msg("%s", err.message);
        const uint32_t vr_mode = 7, vr_time = 6;
        int32_t mode = 6;
        double fail_time = 0;
        assert_int_equal(rtcosim_component_instantiate(c, "f", &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_component_setup(c, 0, 0, RTCOSIM_NS_PER_S, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_INT32, &vr_mode, 1, &mode, &err),
                         RTCOSIM_OK);
        assert_int_equal(rtcosim_component_set(c, RTCOSIM_TYPE_FLOAT64, &vr_time, 1, &fail_time,
                                               &err),
                         RTCOSIM_OK);
        assert_int_equal(rtcosim_component_enter_init(c, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
        rtcosim_step_result r;
        assert_int_equal(rtcosim_component_do_step(c, 0, RTCOSIM_NS_PER_S / 10, &r, &err),
                         RTCOSIM_EFATAL);
        assert_non_null(strstr(err.message, "crashed (SIGSEGV)"));
        rtcosim_component_free(c);
        errno = 0;
        assert_int_equal(waitpid(-1, NULL, WNOHANG), -1); /* no child left */
        assert_int_equal(errno, ECHILD);
    }
    assert_int_equal(count_fds(), fds_before);
    assert_int_equal(tu_count_entries(tmp), 0);
    tu_drop_dir(tmp);
}


/* A system: a native mass driven by the Faulty FMU's x, and a bouncing ball
 * (FMI 3) on its own; written into dir/sys.ssd. */
static void write_system(const char *dir, char *path, size_t size)
{
    snprintf(path, size, "%s/sys.ssd", dir);
    char text[4096];
    snprintf(text, sizeof text,
             "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
             "<ssd:SystemStructureDescription version=\"1.0\" name=\"iso\"\n"
             " xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\"\n"
             " xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\"\n"
             " xmlns:rc=\"https://rtcosim.org/SSP1/Master\">\n"
             " <ssd:System name=\"iso\">\n  <ssd:Elements>\n"
             "   <ssd:Component name=\"a\" source=\"rtcosim:oscillator.mass1\"><ssd:Connectors>\n"
             "    <ssd:Connector name=\"x\" kind=\"output\"><ssc:Real/></ssd:Connector>\n"
             "    <ssd:Connector name=\"F\" kind=\"input\"><ssc:Real/></ssd:Connector>\n"
             "   </ssd:Connectors></ssd:Component>\n"
             "   <ssd:Component name=\"f\" source=\"%s\"><ssd:Connectors>\n"
             "    <ssd:Connector name=\"x\" kind=\"output\"><ssc:Real/></ssd:Connector>\n"
             "   </ssd:Connectors></ssd:Component>\n"
             "   <ssd:Component name=\"d\" source=\"%s\"><ssd:Connectors>\n"
             "    <ssd:Connector name=\"h\" kind=\"output\"><ssc:Real/></ssd:Connector>\n"
             "   </ssd:Connectors></ssd:Component>\n"
             "   <ssd:Component name=\"e\" source=\"rtcosim:oscillator.mass1\"><ssd:Connectors>\n"
             "    <ssd:Connector name=\"x\" kind=\"output\"><ssc:Real/></ssd:Connector>\n"
             "    <ssd:Connector name=\"F\" kind=\"input\"><ssc:Real/></ssd:Connector>\n"
             "   </ssd:Connectors></ssd:Component>\n"
             "  </ssd:Elements>\n  <ssd:Connections>\n"
             "   <ssd:Connection startElement=\"f\" startConnector=\"x\" endElement=\"a\" "
             "endConnector=\"F\"/>\n"
             "   <ssd:Connection startElement=\"d\" startConnector=\"h\" endElement=\"e\" "
             "endConnector=\"F\"><ssc:LinearTransformation factor=\"1\"/>"
             "</ssd:Connection>\n"
             "  </ssd:Connections>\n"
             "  <ssd:Annotations><ssc:Annotation type=\"org.rtcosim.master\">\n"
             "   <rc:Master stepSize=\"0.01\" order=\"jacobi\"/></ssc:Annotation></ssd:Annotations>\n"
             " </ssd:System>\n <ssd:DefaultExperiment startTime=\"0\" stopTime=\"2\"/>\n"
             "</ssd:SystemStructureDescription>\n",
             RTCOSIM_FMU_FAULTY_FMI2, RTCOSIM_FMU_BOUNCINGBALL_FMI3);
    tu_write_file(path, text);
}

/* No host process outlived the run: rtcosim reaped its own (with this test a
 * subreaper, one it left would be ours to wait for now). */
static void isolated_system_equals_in_process_system(void **state)
{
    (void)state;
    char *dir = tu_make_dir();
    char ssd[512], a[512], b[512], err[512];
    write_system(dir, ssd, sizeof ssd);
    snprintf(a, sizeof a, "%s/in.csv", dir);
    snprintf(b, sizeof b, "%s/iso.csv", dir);
    snprintf(err, sizeof err, "%s/err.txt", dir);
    const char *in[] = {"run", ssd, "--start-value", "f.fail_time", "100", "--output-file", a,
                        "-q", NULL};
    assert_int_equal(run_cli(err, in), 0);
    char *expected = strdup(tu_read_file(a, NULL));
    assert_int_equal(tu_count_lines(a), 202); /* header + 201 points: the run did run */
    const char *every[] = {"run", ssd, "--isolate", "--start-value", "f.fail_time", "100",
                           "--output-file", b, "-q", NULL};
    const char *listed[] = {"run", ssd, "--isolate", "f,d", "--threads", "2", "--start-value",
                            "f.fail_time", "100", "--output-file", b, "-q", NULL};
    const char *const *runs[] = {every, listed};
    for (int i = 0; i < 2; i++) {
        int rc = run_cli(err, runs[i]);
        if (rc != 0)
            fail_msg("run %d: exit %d: %s", i, rc, tu_read_file(err, NULL));
        assert_string_equal(tu_read_file(b, NULL), expected);
        tu_assert_no_child_left();
    }
    /* A native component cannot be isolated; an unknown name is refused. */
    const char *native[] = {"run", ssd, "--isolate", "a", "-q", NULL};
    assert_int_equal(run_cli(err, native), 1);
    assert_non_null(strstr(tu_read_file(err, NULL), "component 'a' of"));
    const char *unknown[] = {"run", ssd, "--isolate=zz", "-q", NULL};
    assert_int_equal(run_cli(err, unknown), 1);
    assert_non_null(strstr(tu_read_file(err, NULL), "has no component 'zz'"));
    free(expected);
    tu_drop_dir(dir);
}

static void crashing_partner_fmu_is_lost_and_the_real_time_part_finishes(void **state)
{
    (void)state;
    static const struct {
        const char *mode, *how;
    } cases[] = {{"6", "crashed (SIGSEGV)"}, {"7", "crashed (SIGABRT)"}, {"8", "exited with status 0"}};
    char *dir = tu_make_dir();
    char ssd[512], csv[512], err[512], report[512], tmp[512], summary[600];
    write_system(dir, ssd, sizeof ssd);
    snprintf(csv, sizeof csv, "%s/out.csv", dir);
    snprintf(err, sizeof err, "%s/err.txt", dir);
    snprintf(tmp, sizeof tmp, "%s/tmp", dir);
    assert_int_equal(mkdir(tmp, 0700), 0);
    setenv("TMPDIR", tmp, 1); /* the FMUs' extraction directories go here */
    for (size_t i = 0; i < 3; i++) {
        snprintf(report, sizeof report, "%s/report%zu", dir, i);
        const char *args[] = {"run", ssd, "--real-time", "--virtual-clock", "--non-realtime", "f",
                              "--start-value", "f.fail_mode", cases[i].mode, "--output-file",
                              csv, "--rt-report", report, "-q", NULL};
        int rc = run_cli(err, args);
        const char *text = tu_read_file(err, NULL);
        if (rc != 3 || !strstr(text, "non-real-time partner was lost") ||
            !strstr(text, "component 'f' in fmi2DoStep at t = 1 s: its host process") ||
            !strstr(text, cases[i].how))
            fail_msg("mode %s: exit %d: %s", cases[i].mode, rc, text);
        assert_int_equal(tu_count_lines(csv), 202); /* every row to t = 2 s */
        snprintf(summary, sizeof summary, "%s/summary.csv", report);
        assert_true(tu_count_lines(summary) > 1);
        tu_assert_no_child_left();
    }
    /* Two non-real-time parts, each FMU isolated in a host of its own: the
     * crashing f makes its part lost, d's part and the real-time part go on. */
    const char *two[] = {"run", ssd, "--real-time", "--virtual-clock", "--non-realtime", "f",
                         "--non-realtime", "d", "--start-value", "f.fail_mode", "6",
                         "--output-file", csv, "-q", NULL};
    int rc = run_cli(err, two);
    const char *text = tu_read_file(err, NULL);
    if (rc != 3 || !strstr(text, "non-real-time partner was lost") ||
        !strstr(text, "(part f: partner failed at tv = 1.000000 s: component 'f' in fmi2DoStep") ||
        !strstr(text, "crashed (SIGSEGV)"))
        fail_msg("two parts: exit %d: %s", rc, text);
    assert_int_equal(tu_count_lines(csv), 202);
    tu_assert_no_child_left();
    unsetenv("TMPDIR");
    assert_int_equal(tu_count_entries(tmp), 0);
    tu_drop_dir(dir);
}

/* --step-timeout with a hung isolated FMU (Faulty mode 5 never returns from
 * the step at t = 1 s): exit code 5 (1.5 s: generous, as a loaded machine
 * may pause a healthy step long) with the rows to t = 1 s, the host killed
 * and reaped by rtcosim; its temporary directory is marked, and the next run
 * removes it. */
static void step_timeout_kills_a_hung_isolated_host(void **state)
{
    (void)state;
    char *dir = tu_make_dir();
    char ssd[512], csv[512], err[512], tmp[512];
    write_system(dir, ssd, sizeof ssd);
    snprintf(csv, sizeof csv, "%s/out.csv", dir);
    snprintf(err, sizeof err, "%s/err.txt", dir);
    snprintf(tmp, sizeof tmp, "%s/tmp", dir);
    assert_int_equal(mkdir(tmp, 0700), 0);
    setenv("TMPDIR", tmp, 1);
    const char *hang[] = {"run", ssd, "--isolate", "f", "--step-timeout", "1.5",
                          "--start-value", "f.fail_mode", "5", "--output-file", csv, "-q", NULL};
    int rc = run_cli(err, hang);
    if (rc != 5 || !strstr(tu_read_file(err, NULL), "--step-timeout"))
        fail_msg("exit %d: %s", rc, tu_read_file(err, NULL));
    assert_int_equal(tu_count_lines(csv), 102); /* header + t = 0 .. 1 s */
    tu_assert_no_child_left();
    const char *next[] = {"run", ssd, "--isolate", "--start-value", "f.fail_time", "100",
                          "--output-file", csv, "-q", NULL};
    assert_int_equal(run_cli(err, next), 0);
    unsetenv("TMPDIR");
    assert_int_equal(tu_count_entries(tmp), 0);
    tu_drop_dir(dir);
}

/* rc:Master isolate="f" hosts f out of process: its segfault is an error
 * naming it (exit 1, rows to t = 1 s kept); --no-isolate overrides the
 * annotation, and the same segfault then kills rtcosim itself (SIGSEGV). */
static void master_annotation_isolates_and_no_isolate_overrides_it(void **state)
{
    (void)state;
    char *dir = tu_make_dir();
    char ssd[512], annotated[512], csv[512], err[512];
    write_system(dir, ssd, sizeof ssd);
    char *text = strdup(tu_read_file(ssd, NULL));
    char *at = strstr(text, "order=\"jacobi\"");
    assert_non_null(at);
    char edited[4096];
    snprintf(edited, sizeof edited, "%.*sisolate=\"f\" %s", (int)(at - text), text, at);
    snprintf(annotated, sizeof annotated, "%s/annotated.ssd", dir);
    tu_write_file(annotated, edited);
    snprintf(csv, sizeof csv, "%s/out.csv", dir);
    snprintf(err, sizeof err, "%s/err.txt", dir);
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s/tmp", dir); /* what the killed run leaves, removed below */
    assert_int_equal(mkdir(tmp, 0700), 0);
    setenv("TMPDIR", tmp, 1);
    const char *isolated[] = {"run", annotated, "--start-value", "f.fail_mode", "6",
                              "--output-file", csv, "-q", NULL};
    assert_int_equal(run_cli(err, isolated), 1);
    if (!strstr(tu_read_file(err, NULL), "its host process"))
        fail_msg("%s", tu_read_file(err, NULL));
    assert_int_equal(tu_count_lines(csv), 102);
    const char *in_process[] = {"run", annotated, "--no-isolate", "--start-value", "f.fail_mode",
                                "6", "--output-file", csv, "-q", NULL};
    assert_int_equal(run_cli(err, in_process), 128 + SIGSEGV);
    assert_null(strstr(tu_read_file(err, NULL), "its host process"));
    tu_assert_no_child_left();
    unsetenv("TMPDIR");
    free(text);
    tu_drop_dir(dir);
}

/* One FMU's x: step 0 -> 0.1 (x0), snapshot, step to 0.2 (x1), restore and
 * step to 0.2 again (x2), serialize the snapshot, deserialize it into a new
 * one, restore that and step to 0.2 (x3). */
static void rollback_sequence(rtcosim_component *c, double x[4])
{
    const uint32_t vr_x = 1;
    const rtcosim_time_ns h = RTCOSIM_NS_PER_S / 10;
    rtcosim_error err;
    rtcosim_step_result r;
    rtcosim_state s = NULL, copy = NULL;
    assert_int_equal(rtcosim_component_instantiate(c, "d", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_setup(c, 0, 0, RTCOSIM_NS_PER_S, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_enter_init(c, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_exit_init(c, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_do_step(c, 0, h, &r, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &vr_x, 1, &x[0], &err),
                     RTCOSIM_OK);
    if (rtcosim_component_get_state(c, &s, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    for (int k = 0; k < 3; k++) {
        if (k == 1)
            assert_int_equal(rtcosim_component_set_state(c, s, &err), RTCOSIM_OK);
        if (k == 2) {
            size_t size = 0;
            assert_int_equal(rtcosim_component_serialized_state_size(c, s, &size, &err),
                             RTCOSIM_OK);
            uint8_t *bytes = malloc(size);
            assert_non_null(bytes);
            assert_int_equal(rtcosim_component_serialize_state(c, s, bytes, size, &err),
                             RTCOSIM_OK);
            assert_int_equal(rtcosim_component_deserialize_state(c, bytes, size, &copy, &err),
                             RTCOSIM_OK);
            free(bytes);
            assert_int_equal(rtcosim_component_set_state(c, copy, &err), RTCOSIM_OK);
        }
        assert_int_equal(rtcosim_component_do_step(c, h, h, &r, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &vr_x, 1, &x[k + 1],
                                               &err),
                         RTCOSIM_OK);
    }
    /* Overwriting a snapshot in place keeps its handle (no new slot per step). */
    rtcosim_state again = s;
    assert_int_equal(rtcosim_component_get_state(c, &again, &err), RTCOSIM_OK);
    assert_ptr_equal(again, s);
    rtcosim_component_free_state(c, s);
    rtcosim_component_free_state(c, copy);
}

static void isolated_fmu_states_roll_back_like_in_process(void **state)
{
    (void)state;
    const char *fmus[] = {RTCOSIM_FMU_DAHLQUIST_FMI2, RTCOSIM_FMU_DAHLQUIST_FMI3};
    for (int i = 0; i < 2; i++) {
        rtcosim_component *plain = NULL, *inner = NULL, *iso = NULL;
        rtcosim_error err;
        assert_int_equal(rtcosim_fmu_load(fmus[i], NULL, &plain, &err), RTCOSIM_OK);
        assert_int_equal(rtcosim_fmu_load(fmus[i], NULL, &inner, &err), RTCOSIM_OK);
        if (rtcosim_isolate_wrap(inner, fmus[i], RTCOSIM_CLI_PATH, false, &iso, &err) !=
            RTCOSIM_OK)
            fail_msg("%s", err.message);
        double expected[4], got[4];
        rollback_sequence(plain, expected);
        rollback_sequence(iso, got);
        /* Explicit Euler in equal micro steps: x(0.2) = x(0.1)^2 (x0 = 1), and
         * each restored step lands on it again; the isolated FMU bit for bit. */
        assert_true(expected[0] > 0 && expected[0] < 1);
        assert_true(fabs(expected[1] - expected[0] * expected[0]) < 1e-12);
        for (int k = 0; k < 4; k++) {
            assert_true(expected[k] == expected[k > 0 ? 1 : 0]);
            assert_true(got[k] == expected[k]);
        }
        rtcosim_component_free(plain);
        rtcosim_component_free(iso);
        tu_assert_no_child_left();
    }
}

int main(void)
{
    prctl(PR_SET_CHILD_SUBREAPER, 1); /* see assert_no_child_left */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(isolated_results_equal_in_process_results),
        cmocka_unit_test(isolated_strings_and_binaries_equal_in_process),
        cmocka_unit_test(isolated_model_exchange_equals_in_process),
        cmocka_unit_test(a_get_inside_a_get_gets_its_own_values),
        cmocka_unit_test(isolated_event_mode_equals_in_process),
        cmocka_unit_test(crash_abort_exit_of_the_host_are_errors_naming_call_and_time),
        cmocka_unit_test(soak_of_crashing_isolated_fmus_leaks_nothing),
        cmocka_unit_test(isolated_system_equals_in_process_system),
        cmocka_unit_test(crashing_partner_fmu_is_lost_and_the_real_time_part_finishes),
        cmocka_unit_test(step_timeout_kills_a_hung_isolated_host),
        cmocka_unit_test(master_annotation_isolates_and_no_isolate_overrides_it),
        cmocka_unit_test(isolated_fmu_states_roll_back_like_in_process),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
