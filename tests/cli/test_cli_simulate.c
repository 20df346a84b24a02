/* End-to-end `rtcosim simulate` with the project's FMUs: Dahlquist (FMI 2.0
 * and 3.0) against its analytic Euler solution and exp(-k*t), start values,
 * a Feedthrough FMU driven by an input CSV, and a Faulty FMU whose failing
 * step must give a non-zero exit while the rows before it stay in the file;
 * an FMU that refuses gets of its inputs records only what it gives. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>

#include "rtcosim_test_fmus.h"
#include "util/test_util.h"

/* Run the CLI with argv (NULL-terminated), stderr to a file; exit code. */
static int run_cli(const char *stderr_file, const char *const *args)
{
    const char *argv[32];
    tu_cli_argv(argv, 32, RTCOSIM_CLI_PATH, args);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = open(stderr_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0)
            dup2(fd, 2);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* Rows of a two-column results file ("time","x"). */
static size_t read_time_x(const char *path, const char *header, double *t, double *x, size_t max)
{
    char *text = tu_read_file(path, NULL);
    char *line = strtok(text, "\n");
    assert_non_null(line);
    assert_string_equal(line, header);
    size_t n = 0;
    while ((line = strtok(NULL, "\n")) && n < max) {
        char *end;
        t[n] = strtod(line, &end);
        assert_int_equal(*end, ',');
        x[n] = strtod(end + 1, &end);
        assert_int_equal(*end, '\0');
        n++;
    }
    return n;
}

/* Dahlquist: der(x) = -k*x by explicit Euler with micro step 1e-4 s, so
 * x(t) = x0 * (1 - k*1e-4)^(t/1e-4); its relative distance to x0*exp(-k*t)
 * is about k^2 * 1e-4 * t / 2 (the Euler truncation error summed over t). */
static void check_dahlquist_with(const char *command, const char *fmu, const char *out,
                                 const char *k_text, double k)
{
    bool run = strcmp(command, "run") == 0; /* columns component.variable */
    const char *args[] = {command, fmu, "--stop-time", "1", "--output-interval", "0.1",
                          "--output-file", out, "--start-value", "k", k_text, "--quiet", NULL};
    if (run_cli(tu_scratch("dahlquist.err"), args) != 0)
        fail_msg("%s %s: %s", command, fmu, tu_read_file(tu_scratch("dahlquist.err"), NULL));
    double t[32], x[32];
    size_t n = read_time_x(out, run ? "\"time\",\"Dahlquist.x\"" : "\"time\",\"x\"", t, x, 32);
    assert_int_equal(n, 11);
    for (size_t i = 0; i < n; i++) {
        assert_true(t[i] == (double)i / 10);
        double euler = pow(1 - k * 1e-4, (double)i * 1000);
        assert_true(fabs(x[i] - euler) <= 1e-12 * euler);
        assert_true(fabs(x[i] - exp(-k * t[i])) <= k * k * 1e-4 * t[i] * exp(-k * t[i]));
    }
}

static void check_dahlquist(const char *fmu, const char *out, const char *k_text, double k)
{
    check_dahlquist_with("simulate", fmu, out, k_text, k);
}

/* `rtcosim run` on an FMU alone: a system of that one component (columns
 * Dahlquist.x, the start value by the variable's own name), the same Euler
 * solution, for FMI 1.0 (no default step: (stop - start) / 500 = 0.02 s, a
 * divisor of the output interval), 2.0 and 3.0. */
static void run_on_an_fmu_alone_matches_euler_and_exp(void **state)
{
    (void)state;
    check_dahlquist_with("run", RTCOSIM_FMU_DAHLQUIST_FMI1, tu_scratch("run_dq1.csv"), "2", 2.0);
    check_dahlquist_with("run", RTCOSIM_FMU_DAHLQUIST_FMI2, tu_scratch("run_dq2.csv"), "2", 2.0);
    check_dahlquist_with("run", RTCOSIM_FMU_DAHLQUIST_FMI3, tu_scratch("run_dq3.csv"), "1", 1.0);
}

/* `run FMU --input-file`: the input table as a table component feeding the
 * Picky accumulator (y += u h each step), whose u ramps 0 -> 10 over [0, 1],
 * jumps to 20 at 1 s (the later row) and falls to -4 at 2 s. y after n steps
 * of h = 1/8 is h times the sum of u at the steps' starts, u(t) = 10 t before
 * 1 s and 20 - 24 (t - 1) from it on: the same as `simulate` (fmusim's
 * semantics: each step on the input at its start), bit for bit. */
static void run_input_file_drives_an_fmu_alone(void **state)
{
    (void)state;
    char in[4096], out_run[4096], out_sim[4096];
    snprintf(in, sizeof in, "%s", tu_scratch("picky_in.csv")); /* (its buffer is reused) */
    snprintf(out_run, sizeof out_run, "%s", tu_scratch("picky_run.csv"));
    snprintf(out_sim, sizeof out_sim, "%s", tu_scratch("picky_sim.csv"));
    tu_write_file(in, "time,u\n0,0\n1,10\n1,20\n2,-4\n");
    const char *fmus[] = {RTCOSIM_FMU_PICKY_FMI2, RTCOSIM_FMU_PICKY_FMI3};
    for (int f = 0; f < 2; f++) {
        const char *run[] = {"run", fmus[f], "--input-file", in, "--stop-time", "2",
                             "--step-size", "0.125", "--output-variable", "y",
                             "--output-file", out_run, "--quiet", NULL};
        if (run_cli(tu_scratch("picky.err"), run) != 0)
            fail_msg("%s", tu_read_file(tu_scratch("picky.err"), NULL));
        const char *sim[] = {"simulate", fmus[f], "--input-file", in, "--stop-time", "2",
                             "--output-interval", "0.125", "--output-variable", "y",
                             "--output-file", out_sim, NULL};
        assert_int_equal(run_cli(tu_scratch("picky.err"), sim), 0);
        double t[32], y[32], ts[32], ys[32];
        size_t n = read_time_x(out_run, "\"time\",\"Picky.y\"", t, y, 32);
        assert_int_equal(read_time_x(out_sim, "\"time\",\"y\"", ts, ys, 32), n);
        assert_int_equal(n, 17);
        double sum = 0;
        for (size_t i = 0; i < n; i++) {
            assert_true(t[i] == ts[i] && y[i] == ys[i]);
            if (fabs(y[i] - sum) > 1e-12)
                fail_msg("y(%g) = %.17g, expected %.17g", t[i], y[i], sum);
            double u = t[i] < 1 ? 10 * t[i] : 20 - 24 * (t[i] - 1);
            sum += u * 0.125;
        }
    }
}

static void dahlquist_fmi2_matches_euler_and_exp(void **state)
{
    (void)state;
    check_dahlquist(RTCOSIM_FMU_DAHLQUIST_FMI2, tu_scratch("dahlquist2.csv"), "1", 1.0);
}

static void dahlquist_fmi3_matches_euler_and_exp(void **state)
{
    (void)state;
    check_dahlquist(RTCOSIM_FMU_DAHLQUIST_FMI3, tu_scratch("dahlquist3.csv"), "1", 1.0);
}

static void start_value_changes_the_decay_rate(void **state)
{
    (void)state;
    check_dahlquist(RTCOSIM_FMU_DAHLQUIST_FMI2, tu_scratch("dahlquist2_k2.csv"), "2", 2.0);
}

static void feedthrough_output_follows_the_interpolated_input(void **state)
{
    (void)state;
    tu_write_file(tu_scratch("ramp_in.csv"), "time,Float64_continuous_input\n0,0\n1,10\n");
    const char *args[] = {"simulate", RTCOSIM_FMU_FEEDTHROUGH_FMI3, "--stop-time", "1",
                          "--output-interval", "0.25", "--input-file", tu_scratch("ramp_in.csv"),
                          "--output-variable", "Float64_continuous_output",
                          "--output-file", tu_scratch("ramp_out.csv"), NULL};
    assert_int_equal(run_cli(tu_scratch("ramp.err"), args), 0);
    double t[16], y[16];
    size_t n = read_time_x(tu_scratch("ramp_out.csv"), "\"time\",\"Float64_continuous_output\"",
                           t, y, 16);
    assert_int_equal(n, 5);
    /* u(t) = 10 t; a row is taken right after the step, before the input of
     * its time is set, so it shows u of the step's start (fmusim, FMPy):
     * 0, 0, 2.5, 5, 7.5. */
    assert_true(y[0] == 0.0);
    for (size_t i = 1; i < n; i++)
        assert_true(y[i] == 2.5 * (double)(i - 1));
}

static void faulty_step_exits_nonzero_and_keeps_rows_before_it(void **state)
{
    (void)state;
    const char *fmus[] = {RTCOSIM_FMU_FAULTY_FMI2, RTCOSIM_FMU_FAULTY_FMI3};
    for (int i = 0; i < 2; i++) {
        /* The FMU fails steps starting at t >= 1 s (its fail_time). */
        const char *args[] = {"simulate", fmus[i], "--stop-time", "2", "--output-interval", "0.25",
                              "--output-file", tu_scratch("faulty.csv"), NULL};
        assert_int_equal(run_cli(tu_scratch("faulty.err"), args), 1);
        char *err = tu_read_file(tu_scratch("faulty.err"), NULL);
        if (!strstr(err, "rtcosim: ") || !strstr(err, "simulation stopped at t = 1 s"))
            fail_msg("unexpected stderr: %s", err);
        double t[16], x[16];
        size_t n = read_time_x(tu_scratch("faulty.csv"), "\"time\",\"x\"", t, x, 16);
        assert_int_equal(n, 5); /* 0, 0.25, 0.5, 0.75, 1 */
        assert_true(t[4] == 1.0);
        assert_true(fabs(x[4] - exp(-1.0)) < 1e-4);
    }
}

/* FeedthroughNoInputGet returns Error from fmi3Get* of an input: the run goes
 * on, warns once per input, and leaves the inputs' cells empty. The outputs by
 * hand: Float64 interpolated linearly between (0, 1) and (0.2, 2), held after
 * the last row; Int32 (discrete) held: 3 until 0.2 s, then 4; each row shows
 * the inputs of the step's start (taken before the inputs of its time). */
static void refused_input_gets_leave_empty_cells(void **state)
{
    (void)state;
    tu_write_file(tu_scratch("refuse_in.csv"),
                  "time,Float64_continuous_input,Int32_input\n0,1,3\n0.2,2,4\n");
    const char *expected = "\"time\",\"Float64_continuous_input\",\"Float64_continuous_output\","
                           "\"Int32_input\",\"Int32_output\"\n"
                           "0,,1,,3\n0.1,,1,,3\n0.2,,1.5,,3\n0.3,,2,,4\n";
    for (int threaded = 0; threaded < 2; threaded++) {
        const char *args[] = {"simulate", RTCOSIM_FMU_FEEDTHROUGHNOINPUTGET_FMI3, "--stop-time", "0.3",
                              "--output-interval", "0.1", "--input-file", tu_scratch("refuse_in.csv"),
                              "--output-variable", "Float64_continuous_input",
                              "--output-variable", "Float64_continuous_output",
                              "--output-variable", "Int32_input", "--output-variable", "Int32_output",
                              "--output-file", tu_scratch("refuse_out.csv"), "-q",
                              threaded ? "--writer-thread" : NULL, NULL};
        assert_int_equal(run_cli(tu_scratch("refuse.err"), args), 0);
        assert_string_equal(tu_read_file(tu_scratch("refuse_out.csv"), NULL), expected);
        char *err = tu_read_file(tu_scratch("refuse.err"), NULL);
        const char *names[] = {"'Float64_continuous_input'", "'Int32_input'"};
        for (int i = 0; i < 2; i++) {
            const char *at = strstr(err, names[i]);
            if (!at || !strstr(err, "refuses") || strstr(at + 1, names[i]))
                fail_msg("expected one warning for %s, stderr: %s", names[i], err);
        }
    }
}

/* The same FMU in `rtcosim run`: a.Int32_input = 7 passes a's Int32_output to
 * b's Int32_input, so b.Int32_output is 7 at every step; b's Float64 input
 * keeps its start value 2.5 and so does its output. The refused inputs of b
 * are warned about once each and left empty; a's (which gives it) stays. */
static void run_records_only_what_the_fmu_gives(void **state)
{
    (void)state;
    char ssd[4096];
    snprintf(ssd, sizeof ssd,
             "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
             "<ssd:SystemStructureDescription version=\"1.0\" name=\"refuse\" "
             "xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\" "
             "xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\">\n"
             "<ssd:System name=\"refuse\"><ssd:Elements>\n"
             "<ssd:Component name=\"a\" source=\"%s\"><ssd:Connectors>"
             "<ssd:Connector name=\"Int32_output\" kind=\"output\"><ssc:Integer/></ssd:Connector>"
             "</ssd:Connectors></ssd:Component>\n"
             "<ssd:Component name=\"b\" source=\"%s\"><ssd:Connectors>"
             "<ssd:Connector name=\"Int32_input\" kind=\"input\"><ssc:Integer/></ssd:Connector>"
             "</ssd:Connectors></ssd:Component>\n"
             "</ssd:Elements><ssd:Connections><ssd:Connection startElement=\"a\" "
             "startConnector=\"Int32_output\" endElement=\"b\" endConnector=\"Int32_input\"/>"
             "</ssd:Connections></ssd:System>\n"
             "<ssd:DefaultExperiment startTime=\"0\" stopTime=\"0.3\"/>\n"
             "</ssd:SystemStructureDescription>\n",
             RTCOSIM_FMU_FEEDTHROUGH_FMI3, RTCOSIM_FMU_FEEDTHROUGHNOINPUTGET_FMI3);
    tu_write_file(tu_scratch("refuse.ssd"), ssd);
    const char *args[] = {"run", tu_scratch("refuse.ssd"), "--step-size", "0.1",
                          "--start-value", "a.Int32_input", "7",
                          "--start-value", "b.Float64_continuous_input", "2.5",
                          "--output-variable", "b.Int32_input", "--output-variable", "b.Int32_output",
                          "--output-variable", "b.Float64_continuous_input",
                          "--output-variable", "b.Float64_continuous_output",
                          "--output-variable", "a.Int32_input",
                          "--output-file", tu_scratch("refuse_run.csv"), "-q", NULL};
    assert_int_equal(run_cli(tu_scratch("refuse_run.err"), args), 0);
    assert_string_equal(tu_read_file(tu_scratch("refuse_run.csv"), NULL),
                        "\"time\",\"b.Int32_input\",\"b.Int32_output\",\"b.Float64_continuous_input\","
                        "\"b.Float64_continuous_output\",\"a.Int32_input\"\n"
                        "0,,7,,2.5,7\n0.1,,7,,2.5,7\n0.2,,7,,2.5,7\n0.3,,7,,2.5,7\n");
    char *err = tu_read_file(tu_scratch("refuse_run.err"), NULL);
    const char *names[] = {"'Int32_input'", "'Float64_continuous_input'"};
    for (int i = 0; i < 2; i++) {
        const char *at = strstr(err, names[i]);
        if (!at || !strstr(err, "b.") || strstr(at + 1, names[i]))
            fail_msg("expected one warning for %s, stderr: %s", names[i], err);
    }
}

/* fmusim's logging options work as in fmusim: --fmi-log-file gets every FMI
 * call, one per line (two steps: two fmi2DoStep lines), --log-file the other
 * messages; --logging-on, --set-stop-time and --log-level ok are taken. */
static void fmusim_log_options_write_their_files(void **state)
{
    (void)state;
    const char *args[] = {"simulate", RTCOSIM_FMU_DAHLQUIST_FMI2, "--stop-time", "0.002",
                          "--output-interval", "0.001", "--set-stop-time", "--logging-on",
                          "--log-level", "ok", "--log-file", tu_scratch("sim.log"),
                          "--fmi-log-file", tu_scratch("fmi.log"),
                          "-o", tu_scratch("log_out.csv"), "-q", NULL};
    assert_int_equal(run_cli(tu_scratch("log.err"), args), 0);
    char *calls = tu_read_file(tu_scratch("fmi.log"), NULL);
    size_t steps = 0, lines = 0;
    for (const char *p = calls; (p = strchr(p, '\n')); p++)
        lines++;
    for (const char *p = calls; (p = strstr(p, "fmi2DoStep(")); p++)
        steps++;
    assert_int_equal(steps, 2);
    assert_true(lines >= 8); /* instantiate, setup, init, steps, terminate, free */
    assert_non_null(strstr(calls, "fmi2Instantiate("));
    assert_null(strstr(tu_read_file(tu_scratch("sim.log"), NULL), "fmi2DoStep("));
    assert_string_equal(tu_read_file(tu_scratch("log.err"), NULL), "");
    const char *csv = tu_read_file(tu_scratch("log_out.csv"), NULL);
    assert_non_null(strstr(csv, "0.002,0.998001"));
}

/* What rtcosim does not do is said, not taken for an unknown option; a log
 * file that cannot be opened is an error naming it. */
static void unsupported_fmusim_options_are_refused_by_name(void **state)
{
    (void)state;
    const char *options[] = {"--record-intermediate-values"};
    for (int i = 0; i < 1; i++) {
        const char *args[] = {"simulate", RTCOSIM_FMU_DAHLQUIST_FMI2, options[i], "x.bin", NULL};
        assert_int_equal(run_cli(tu_scratch("opt.err"), args), 2);
        char *err = tu_read_file(tu_scratch("opt.err"), NULL);
        if (!strstr(err, options[i]) || !strstr(err, "not supported") || strchr(err, '\n') != strrchr(err, '\n'))
            fail_msg("stderr: %s", err);
    }
    const char *args[] = {"simulate", RTCOSIM_FMU_DAHLQUIST_FMI2, "--log-file",
                          tu_scratch("no/such/dir/x.log"), "-o", tu_scratch("x.csv"), NULL};
    assert_int_equal(run_cli(tu_scratch("open.err"), args), 1);
    assert_non_null(strstr(tu_read_file(tu_scratch("open.err"), NULL),
                           "--log-file: cannot open"));
}

/* fmusim's FMU state files: a run to 1 s saves the FMU's serialized state, a
 * run from it to 2 s gives the rows of one run from 0 to 2 s, digit for digit
 * (FMI 2.0 and 3.0). fmusim reads rtcosim's file and rtcosim fmusim's with
 * the same rows (Reference FMUs' Dahlquist and BouncingBall, checked by hand:
 * src/simulate/README.md). */
static void a_saved_fmu_state_continues_the_run(void **state)
{
    (void)state;
    const char *fmus[] = {RTCOSIM_FMU_DAHLQUIST_FMI2, RTCOSIM_FMU_DAHLQUIST_FMI3};
    for (int i = 0; i < 2; i++) {
        const char *first[] = {"simulate", fmus[i], "--stop-time", "1", "--output-interval",
                               "0.25", "--final-fmu-state-file", tu_scratch("s.bin"), "-o",
                               tu_scratch("first.csv"), "-q", NULL};
        assert_int_equal(run_cli(tu_scratch("s.err"), first), 0);
        const char *rest[] = {"simulate", fmus[i], "--start-time", "1", "--stop-time", "2",
                              "--output-interval", "0.25", "--initial-fmu-state-file",
                              tu_scratch("s.bin"), "-o", tu_scratch("rest.csv"), "-q", NULL};
        assert_int_equal(run_cli(tu_scratch("s.err"), rest), 0);
        const char *whole[] = {"simulate", fmus[i], "--stop-time", "2", "--output-interval",
                               "0.25", "-o", tu_scratch("whole.csv"), "-q", NULL};
        assert_int_equal(run_cli(tu_scratch("s.err"), whole), 0);
        char rest_rows[512], whole_rows[512];
        snprintf(rest_rows, sizeof rest_rows, "%s", tu_read_file(tu_scratch("rest.csv"), NULL));
        snprintf(whole_rows, sizeof whole_rows, "%s", tu_read_file(tu_scratch("whole.csv"), NULL));
        const char *from_1 = strstr(whole_rows, "\n1,");
        const char *rest_1 = strstr(rest_rows, "\n1,");
        assert_non_null(from_1);
        assert_non_null(rest_1);
        assert_string_equal(rest_1, from_1);
        /* x(2) = (1 - k dt)^n with the FMU's Euler micro steps: e^-2 to 1e-4. */
        assert_true(fabs(strtod(strrchr(rest_rows, ',') + 1, NULL) - exp(-2.0)) < 1e-4);
    }
}

/* A run continued from a state saved at 1 s gives the rows of one
 * uninterrupted run from 1 s on, byte for byte; the continued rows contain
 * `also` (NULL: no check) and are at least min_bytes long. */
static void assert_rows_from_1_equal(const char *whole_csv, const char *rest_csv,
                                     const char *also, size_t min_bytes)
{
    /* (the helper's buffer is reused: a copy of each) */
    char *rest_rows = strdup(tu_read_file(rest_csv, NULL));
    char *whole_rows = strdup(tu_read_file(whole_csv, NULL));
    assert_non_null(rest_rows);
    assert_non_null(whole_rows);
    const char *from_1 = strstr(whole_rows, "\n1,");
    const char *rest_1 = strstr(rest_rows, "\n1,");
    assert_non_null(from_1);
    assert_non_null(rest_1);
    assert_string_equal(rest_1, from_1);
    assert_true(strlen(rest_1) >= min_bytes);
    if (also)
        assert_non_null(strstr(rest_1, also));
    free(rest_rows);
    free(whole_rows);
}

/* Model exchange, as fmusim: the file holds the FMU's own serialized state
 * (the test FMUs' "RTCS" format, not rtcosim's integrator snapshot "RTME"),
 * and a run continued from it with explicit Euler gives the uninterrupted
 * run's rows from there on, byte for byte (BouncingBall, its bounces
 * included; Ticker, its time events included); with CVODE, Dahlquist's
 * x(2) = e^-2 within the tolerance. The same files were read and written by
 * fmusim (src/simulate/README.md). */
/* Euler runs of fmu with model exchange to 1 s (saving the FMU state) and
 * from it to `stop`, and one from 0 to `stop`, every `interval` s: the CSVs
 * at rest.csv and whole.csv. */
static void save_and_continue(const char *fmu, const char *stop, const char *interval)
{
    const char *first[] = {"simulate", fmu, "--interface-type", "me", "--solver", "euler",
                           "--stop-time", "1", "--output-interval", interval,
                           "--final-fmu-state-file", tu_scratch("me.bin"), "-o",
                           tu_scratch("first.csv"), "-q", NULL};
    assert_int_equal(run_cli(tu_scratch("s.err"), first), 0);
    size_t size = 0;
    const char *bytes = tu_read_file(tu_scratch("me.bin"), &size);
    assert_true(size > 4);
    assert_memory_equal(bytes, "RTCS", 4);
    const char *rest[] = {"simulate", fmu, "--interface-type", "me", "--solver", "euler",
                          "--start-time", "1", "--stop-time", stop, "--output-interval", interval,
                          "--initial-fmu-state-file", tu_scratch("me.bin"), "-o",
                          tu_scratch("rest.csv"), "-q", NULL};
    assert_int_equal(run_cli(tu_scratch("s.err"), rest), 0);
    const char *whole[] = {"simulate", fmu, "--interface-type", "me", "--solver", "euler",
                           "--stop-time", stop, "--output-interval", interval, "-o",
                           tu_scratch("whole.csv"), "-q", NULL};
    assert_int_equal(run_cli(tu_scratch("s.err"), whole), 0);
}

static void a_saved_fmu_state_continues_a_model_exchange_run(void **state)
{
    (void)state;
    const char *fmus[] = {RTCOSIM_FMU_BOUNCINGBALL_FMI2, RTCOSIM_FMU_BOUNCINGBALL_FMI3};
    for (int i = 0; i < 2; i++) {
        save_and_continue(fmus[i], "2", "0.05");
        /* 21 grid rows and the bounces' */
        assert_rows_from_1_equal(tu_scratch("whole.csv"), tu_scratch("rest.csv"), NULL, 200);
    }
    /* Time events after the restore: Ticker counts at 0.75, 1.5, 2.25 and
     * 3 s (announced through nextEventTime, kept in the FMU's state). The
     * file holds no event information, so the restored run asks the FMU in
     * an event iteration; without it (as fmusim) the counter stayed 1 from
     * t = 1 on. The rows from 1 s equal the uninterrupted run's, the ticks'
     * before and after rows among them. */
    const char *tickers[] = {RTCOSIM_FMU_TICKER_FMI2, RTCOSIM_FMU_TICKER_FMI3};
    for (int i = 0; i < 2; i++) {
        save_and_continue(tickers[i], "3", "0.25");
        /* time, x, counter, ticks_x: the tick at 1.5 and the last at 3 */
        assert_rows_from_1_equal(tu_scratch("whole.csv"), tu_scratch("rest.csv"),
                                 "\n1.5,1.5,1,0.75\n1.5,1.5,2,1.5\n", 100);
        assert_non_null(strstr(tu_read_file(tu_scratch("rest.csv"), NULL), "\n3,3,4,3\n"));
    }
    const char *first[] = {"simulate", RTCOSIM_FMU_DAHLQUIST_FMI3, "--interface-type", "me",
                           "--stop-time", "1", "--final-fmu-state-file", tu_scratch("d.bin"),
                           "-o", tu_scratch("d1.csv"), "-q", NULL};
    assert_int_equal(run_cli(tu_scratch("s.err"), first), 0);
    const char *rest[] = {"simulate", RTCOSIM_FMU_DAHLQUIST_FMI3, "--interface-type", "me",
                          "--start-time", "1", "--stop-time", "2", "--output-interval", "0.5",
                          "--initial-fmu-state-file", tu_scratch("d.bin"), "-o",
                          tu_scratch("d2.csv"), "-q", NULL};
    assert_int_equal(run_cli(tu_scratch("s.err"), rest), 0);
    double t[8], x[8];
    size_t n = read_time_x(tu_scratch("d2.csv"), "\"time\",\"x\"", t, x, 8);
    assert_int_equal(n, 3);
    for (size_t i = 0; i < n; i++) {
        assert_true(t[i] == 1 + 0.5 * (double)i);
        assert_true(fabs(x[i] - exp(-t[i])) <= 1e-3 * exp(-t[i]));
    }
}

/* the numeric outputs (an isolated FMU gives no strings) */
#define OUTPUTS                                                                                    \
    "--output-variable", "Float64_continuous_output", "--output-variable",                        \
        "Float64_discrete_output", "--output-variable", "Int32_output"

/* A discrete input the state holds is no input event when the input file
 * sets it to the same value again: after the restore the integrator reads
 * the discrete inputs back from the FMU (it used to forget them, and the
 * first step made an event: a pair of rows at 1.25 s the uninterrupted run
 * does not have). With and without --isolate. */

static void a_restored_discrete_input_is_no_input_event(void **state)
{
    (void)state;
    tu_write_file(tu_scratch("in.csv"),
                  "time,Float64_continuous_input,Float64_discrete_input,Int32_input\n"
                  "0,0,0,0\n0.03,1,0,0\n0.03,2,5,3\n0.06,2,5,3\n");
    const char *isolate[] = {NULL, "--isolate"};
    for (int k = 0; k < 2; k++) {
        const char *first[] = {"simulate", RTCOSIM_FMU_FEEDTHROUGHME_FMI3, "--interface-type",
                               "me", "--input-file", tu_scratch("in.csv"), "--stop-time", "1",
                               "--output-interval", "0.25", "--final-fmu-state-file",
                               tu_scratch("ft.bin"), "-o", tu_scratch("f1.csv"), "-q",
                               OUTPUTS, isolate[k], NULL};
        if (run_cli(tu_scratch("s.err"), first) != 0)
            fail_msg("%s", tu_read_file(tu_scratch("s.err"), NULL));
        const char *rest[] = {"simulate", RTCOSIM_FMU_FEEDTHROUGHME_FMI3, "--interface-type",
                              "me", "--input-file", tu_scratch("in.csv"), "--start-time", "1",
                              "--stop-time", "2", "--output-interval", "0.25",
                              "--initial-fmu-state-file", tu_scratch("ft.bin"), "-o",
                              tu_scratch("f2.csv"), "-q", OUTPUTS, isolate[k], NULL};
        assert_int_equal(run_cli(tu_scratch("s.err"), rest), 0);
        const char *whole[] = {"simulate", RTCOSIM_FMU_FEEDTHROUGHME_FMI3, "--interface-type",
                               "me", "--input-file", tu_scratch("in.csv"), "--stop-time", "2",
                               "--output-interval", "0.25", "-o", tu_scratch("fw.csv"), "-q",
                               OUTPUTS, isolate[k], NULL};
        assert_int_equal(run_cli(tu_scratch("s.err"), whole), 0);
        /* the inputs held to the end */
        assert_rows_from_1_equal(tu_scratch("fw.csv"), tu_scratch("f2.csv"), "\n2,2,5,3\n", 0);
    }
}

/* Through --isolate the host integrates with the options given (it used to
 * load the FMU with CVODE whatever --solver said): with explicit Euler its
 * rows are the in-process run's, the bounces' event rows included, its final
 * state file is the same bytes, and a run continued from it through
 * --isolate gives the uninterrupted isolated run's rows. */
static void isolated_model_exchange_takes_the_solver_and_state_files(void **state)
{
    (void)state;
    const char *inproc[] = {"simulate", RTCOSIM_FMU_BOUNCINGBALL_FMI3, "--interface-type", "me",
                            "--solver", "euler", "--stop-time", "1", "--output-interval",
                            "0.05", "--final-fmu-state-file", tu_scratch("in.bin"), "-o",
                            tu_scratch("in.csv"), "-q", NULL};
    assert_int_equal(run_cli(tu_scratch("s.err"), inproc), 0);
    const char *isolated[] = {"simulate", RTCOSIM_FMU_BOUNCINGBALL_FMI3, "--isolate",
                              "--interface-type", "me", "--solver", "euler", "--stop-time", "1",
                              "--output-interval", "0.05", "--final-fmu-state-file",
                              tu_scratch("iso.bin"), "-o", tu_scratch("iso.csv"), "-q", NULL};
    assert_int_equal(run_cli(tu_scratch("s.err"), isolated), 0);
    size_t n_in = 0, n_iso = 0;
    char *in_state = tu_read_file(tu_scratch("in.bin"), &n_in);
    char *copy = malloc(n_in ? n_in : 1);
    assert_non_null(copy);
    memcpy(copy, in_state, n_in);
    const char *iso_state = tu_read_file(tu_scratch("iso.bin"), &n_iso);
    assert_true(n_in > 4 && n_in == n_iso);
    assert_memory_equal(copy, iso_state, n_in);
    free(copy);
    /* the same rows, the bounces' event rows included (the host calls the
     * observer back: it used to write none) */
    char *in_rows = strdup(tu_read_file(tu_scratch("in.csv"), NULL));
    assert_non_null(in_rows);
    assert_string_equal(tu_read_file(tu_scratch("iso.csv"), NULL), in_rows);
    free(in_rows);
    const char *rest[] = {"simulate", RTCOSIM_FMU_BOUNCINGBALL_FMI3, "--isolate",
                          "--interface-type", "me", "--solver", "euler", "--start-time", "1",
                          "--stop-time", "2", "--output-interval", "0.05",
                          "--initial-fmu-state-file", tu_scratch("iso.bin"), "-o",
                          tu_scratch("rest.csv"), "-q", NULL};
    assert_int_equal(run_cli(tu_scratch("s.err"), rest), 0);
    const char *whole[] = {"simulate", RTCOSIM_FMU_BOUNCINGBALL_FMI3, "--isolate",
                           "--interface-type", "me", "--solver", "euler", "--stop-time", "2",
                           "--output-interval", "0.05", "-o", tu_scratch("whole.csv"), "-q",
                           NULL};
    assert_int_equal(run_cli(tu_scratch("s.err"), whole), 0);
    assert_rows_from_1_equal(tu_scratch("whole.csv"), tu_scratch("rest.csv"), NULL, 200);
}

/* The default columns are ModelStructure's outputs, with and without
 * --isolate: BouncingBallAlias's h has an <Alias> h_ft that is no output of
 * its own (fmusim writes "time","h","v" for it); the isolated run used to add
 * a column h_ft. */
static void default_columns_are_the_modelstructure_outputs_isolated_too(void **state)
{
    (void)state;
    for (int k = 0; k < 2; k++) {
        const char *args[] = {"simulate", RTCOSIM_FMU_BOUNCINGBALLALIAS_FMI3, "--stop-time",
                              "0.02", "-o", tu_scratch("alias.csv"), "-q",
                              k ? "--isolate" : NULL, NULL};
        assert_int_equal(run_cli(tu_scratch("s.err"), args), 0);
        const char *rows = tu_read_file(tu_scratch("alias.csv"), NULL);
        assert_memory_equal(rows, "\"time\",\"h\",\"v\"\n", 15);
    }
}

/* A state file's errors: none there, empty, an FMU that cannot serialize
 * its state (FMI 1.0), and a start value the state would overwrite. */
static void state_file_errors_are_named(void **state)
{
    (void)state;
    /* (paths of their own: tu_scratch's buffers rotate, and a reused one
     * once made --final-fmu-state-file the -o file below) */
    char *none = strdup(tu_scratch("none.bin")), *empty = strdup(tu_scratch("empty.bin")),
         *me = strdup(tu_scratch("me.bin")), *x = strdup(tu_scratch("x.csv"));
    tu_write_file(empty, "");
    struct {
        const char *args[12];
        const char *message;
    } cases[] = {
        {{"simulate", RTCOSIM_FMU_DAHLQUIST_FMI2, "--initial-fmu-state-file", none, NULL},
         "none.bin: cannot open"},
        {{"simulate", RTCOSIM_FMU_DAHLQUIST_FMI2, "--initial-fmu-state-file", empty, NULL},
         "empty.bin: empty: no FMU state"},
        {{"simulate", RTCOSIM_FMU_BOUNCINGBALL_FMI1ME, "--interface-type", "me",
          "--final-fmu-state-file", me, NULL},
         "needs an FMU that can serialize its state"},
        {{"simulate", RTCOSIM_FMU_DAHLQUIST_FMI2, "--start-value", "x0", "2",
          "--initial-fmu-state-file", empty, NULL},
         "start value 'x0': the run starts from the state in"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char **a = cases[i].args;
        size_t n = 0;
        while (a[n])
            n++;
        a[n++] = "-o";
        a[n++] = x;
        a[n] = NULL;
        assert_int_equal(run_cli(tu_scratch("e.err"), a), 1);
        char *err = tu_read_file(tu_scratch("e.err"), NULL);
        if (!strstr(err, cases[i].message) || strchr(err, '\n') != strrchr(err, '\n'))
            fail_msg("case %zu: stderr: %s", i, err);
    }
    free(none);
    free(empty);
    free(me);
    free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dahlquist_fmi2_matches_euler_and_exp),
        cmocka_unit_test(dahlquist_fmi3_matches_euler_and_exp),
        cmocka_unit_test(start_value_changes_the_decay_rate),
        cmocka_unit_test(run_on_an_fmu_alone_matches_euler_and_exp),
        cmocka_unit_test(run_input_file_drives_an_fmu_alone),
        cmocka_unit_test(feedthrough_output_follows_the_interpolated_input),
        cmocka_unit_test(faulty_step_exits_nonzero_and_keeps_rows_before_it),
        cmocka_unit_test(refused_input_gets_leave_empty_cells),
        cmocka_unit_test(run_records_only_what_the_fmu_gives),
        cmocka_unit_test(fmusim_log_options_write_their_files),
        cmocka_unit_test(unsupported_fmusim_options_are_refused_by_name),
        cmocka_unit_test(a_saved_fmu_state_continues_the_run),
        cmocka_unit_test(a_saved_fmu_state_continues_a_model_exchange_run),
        cmocka_unit_test(isolated_model_exchange_takes_the_solver_and_state_files),
        cmocka_unit_test(a_restored_discrete_input_is_no_input_event),
        cmocka_unit_test(default_columns_are_the_modelstructure_outputs_isolated_too),
        cmocka_unit_test(state_file_errors_are_named),
    };
    return cmocka_run_group_tests(tests, tu_scratch_group_setup, tu_scratch_group_teardown);
}
