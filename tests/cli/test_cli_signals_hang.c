/* Runs stuck in an FMU's step (the Faulty test FMU): a second signal ends
 * one at once, whatever the result format, leaving the rows so far; a lone
 * SIGTERM after a grace; --step-timeout a step that never returns, on the
 * stepping thread or a worker; a crashing or exiting FMU leaves its rows
 * and a message naming it. Every wait is bounded and no assertion depends
 * on how fast the machine is. */
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
#include <dirent.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "rtcosim/can_log.h"
#include "rtcosim/results.h"
#include "rtcosim_test_fmus.h"
#include "signals_child.h"
#include "util/test_util.h"
/* Faulty (fail_mode 5: the first step, t >= fail_time = 0, never returns)
 * simulated into `out` in dir, and two SIGINTs: the first waits for the step
 * boundary, the second ends the run at once (exit 130, said so). */
static void two_sigints_end_a_stuck_step(const char *dir, const char *out, const char *writer)
{
    const char *args[] = {"simulate", RTCOSIM_FMU_FAULTY_FMI2, "--start-value", "fail_mode", "5",
                          "--start-value", "fail_time", "0", "--stop-time", "2",
                          "--output-interval", "0.25", "--output-file", out, "-q", writer, NULL};
    child c = spawn(dir, args);
    /* The step hangs: Faulty sleeps in it (nothing else in the CLI sleeps).
     * A fixed delay after the header could signal before the step began. */
    wait_until(c.pid, hangs_in_the_step, "hang in Faulty's step");
    kill(c.pid, SIGINT);
    /* Taken before the second is sent: two SIGINTs pending at once are one
     * (a starved CLI that had not run between them saw a single signal). */
    wait_until(c.pid, took_sigint, "take the first SIGINT");
    sleep_ms(200);
    /* Still running: the first signal waits for the step boundary. */
    assert_int_equal(waitpid(c.pid, NULL, WNOHANG), 0);
    kill(c.pid, SIGINT);
    assert_int_equal(wait_exit(c.pid), 130);
    assert_non_null(strstr(tu_read_file(c.err, NULL), "second signal"));
}

static void second_signal_ends_a_run_stuck_in_a_step_at_once(void **state)
{
    (void)state;
    char *dir = tu_make_dir();
    char csv[512];
    /* The row at t = 0 (x = 1), buffered when the step hung, was written by
     * the handler: from the stepping thread's buffer, and through the
     * writer thread (its ring, its buffer). */
    const char *writers[] = {"--no-writer-thread", "--writer-thread"};
    for (int w = 0; w < 2; w++) {
        snprintf(csv, sizeof csv, "%s/out%d.csv", dir, w);
        two_sigints_end_a_stuck_step(dir, csv, writers[w]);
        assert_string_equal(tu_read_file(csv, NULL), "\"time\",\"x\"\n0,1\n");
    }
    tu_drop_dir(dir);
}

/* The same with an .mf4 result: the handler writes the buffered record, the
 * file stays unfinalized as a logger's that stopped (ASAM MDF 4.1's
 * "UnFinMF "), and reads back to that row. */
static void second_signal_leaves_an_unfinalized_mf4_with_the_rows(void **state)
{
    (void)state;
    char *dir = tu_make_dir();
    char mf4[512];
    snprintf(mf4, sizeof mf4, "%s/out.mf4", dir);
    two_sigints_end_a_stuck_step(dir, mf4, "--writer-thread");
    assert_memory_equal(tu_read_file(mf4, NULL), "UnFinMF ", 8);
    size_t rows;
    char *text = result_as_csv(dir, mf4, &rows);
    assert_int_equal(rows, 1);
    assert_string_equal(text, "\"time\",\"x\"\n0,1\n");
    free(text);
    tu_drop_dir(dir);
}

/* And with a .mat result: the handler writes the buffered time point and
 * data_2's count, so the file reads back to that row. */
static void second_signal_leaves_a_mat_with_the_rows(void **state)
{
    (void)state;
    char *dir = tu_make_dir();
    char mat[512];
    snprintf(mat, sizeof mat, "%s/out.mat", dir);
    two_sigints_end_a_stuck_step(dir, mat, "--writer-thread");
    size_t rows;
    char *text = result_as_csv(dir, mat, &rows);
    assert_int_equal(rows, 1);
    assert_string_equal(text, "\"time\",\"x\"\n0,1\n");
    free(text);
    tu_drop_dir(dir);
}

/* A second signal while close compresses an .mf4 result's records into
 * <file>.dz.part: the handler removes the half-written copy, and the file
 * stays as close had finalized it (records uncompressed, all there). */
static void second_signal_while_compressing_leaves_no_part_file(void **state)
{
    (void)state;
    char *dir = tu_make_dir();
    char mf4[512], part[600];
    snprintf(mf4, sizeof mf4, "%s/out.mf4", dir);
    snprintf(part, sizeof part, "%s.dz.part", mf4);
    const char *args[] = {"simulate", RTCOSIM_FMU_DAHLQUIST_FMI2, "--stop-time", "1e7",
                          "--output-interval", "1e-4", "--output-file", mf4, "-q", NULL};
    child c = spawn(dir, args);
    wait_for_size(mf4, 40 * 1000 * 1000); /* 2.5 M records: compressed in about 0.5 s */
    kill(c.pid, SIGINT);
    int polls = 0;
    while (access(part, F_OK) != 0 && polls++ < 60000)
        sleep_ms(1);
    assert_int_equal(access(part, F_OK), 0);
    kill(c.pid, SIGINT);
    assert_int_equal(wait_exit(c.pid), 130);
    const char *err = tu_read_file(c.err, NULL);
    if (!strstr(err, "second signal"))
        fail_msg("stderr: %s", err); /* (the copy was not finished when it came) */
    assert_int_not_equal(access(part, F_OK), 0);
    size_t size;
    const char *file = tu_read_file(mf4, &size);
    assert_memory_equal(file, "MDF     ", 8); /* finalized before the copy began */
    assert_true(size >= 40 * 1000 * 1000);
    tu_drop_dir(dir);
}

/* A system of Faulty (FMI 2.0) as component f, after a component a of
 * `first` when given; stop time 2 s. */
static void write_hang_ssd(const char *path, const char *first)
{
    char a[1024] = "";
    if (first)
        snprintf(a, sizeof a, "<ssd:Component name=\"a\" source=\"file://%s\"/>\n", first);
    char text[3072];
    snprintf(text, sizeof text,
             "<?xml version=\"1.0\"?>\n"
             "<ssd:SystemStructureDescription version=\"1.0\" name=\"hang\" "
             "xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\">\n"
             "<ssd:System name=\"hang\"><ssd:Elements>\n%s"
             "<ssd:Component name=\"f\" source=\"file://%s\"/>\n"
             "</ssd:Elements></ssd:System>\n"
             "<ssd:DefaultExperiment startTime=\"0\" stopTime=\"2\"/>\n"
             "</ssd:SystemStructureDescription>\n",
             a, RTCOSIM_FMU_FAULTY_FMI2);
    tu_write_file(path, text);
}

/* A lone SIGTERM (a supervisor's, no second one coming) at a run whose step
 * never returns: CLI_STOP_GRACE_S later the rows so far are written with
 * one line naming the component and its call, exit 143. Before, the run
 * stayed in the step for good. In `run` too, with the FMU as a system's one
 * component. */
static void lone_sigterm_ends_a_run_stuck_in_a_step_after_the_grace(void **state)
{
    (void)state;
    char *dir = tu_make_dir();
    char csv[512], ssd[512];
    snprintf(csv, sizeof csv, "%s/out.csv", dir);
    snprintf(ssd, sizeof ssd, "%s/hang.ssd", dir);
    write_hang_ssd(ssd, NULL);
    const char *simulate[] = {"simulate", RTCOSIM_FMU_FAULTY_FMI2, "--start-value", "fail_mode",
                              "5", "--start-value", "fail_time", "0", "--stop-time", "2",
                              "--output-interval", "0.25", "--output-file", csv, "-q", NULL};
    const char *run[] = {"run", ssd, "--start-value", "f.fail_mode", "5", "--start-value",
                         "f.fail_time", "0", "--step-size", "0.25", "--output-file", csv,
                         "--output-variable", "f.x", "-q", NULL};
    for (int v = 0; v < 2; v++) {
        child c = spawn(dir, v == 0 ? simulate : run);
        wait_until(c.pid, hangs_in_the_step, "hang in Faulty's step");
        kill(c.pid, SIGTERM);
        assert_int_equal(wait_exit(c.pid), 143);
        const char *err = tu_read_file(c.err, NULL);
        const char *want = v == 0 ? "component 'Faulty' in fmi2DoStep: did not return within 5 s "
                                    "of SIGTERM; the rows computed so far are in the results file"
                                  : "component 'f' in fmi2DoStep: did not return within 5 s of "
                                    "SIGTERM; the rows computed so far are in the results file";
        if (!strstr(err, want))
            fail_msg("%s: stderr: %s", v == 0 ? "simulate" : "run", err);
        /* the row at t = 0 (x = 1), buffered when the step hung */
        const char *rows = tu_read_file(csv, NULL);
        assert_non_null(strstr(rows, "\n0,1\n"));
    }
    tu_drop_dir(dir);
}

/* Faulty's fail_mode 6 (SIGSEGV), 7 (abort) and 8 (exit(0)) in the step at
 * t = fail_time = 1 s: the rows 0, 0.25, ..., 1 s are on disk, one line names
 * the component and the FMI call; the process dies of the signal (139, 134)
 * or, for exit(0), exits with 1, never 0; the next run removes the extracted
 * FMU it left behind. */
static void crashing_or_exiting_fmu_keeps_rows_and_is_named(void **state)
{
    (void)state;
    static const struct {
        const char *mode;
        int exit_code;
        const char *message;
    } cases[] = {
        {"6", 128 + SIGSEGV, "component 'Faulty' in fmi2DoStep: crashed (SIGSEGV)"},
        {"7", 128 + SIGABRT, "component 'Faulty' in fmi2DoStep: aborted (SIGABRT)"},
        {"8", 1, "component 'Faulty' in fmi2DoStep: called exit()"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *dir = tu_make_dir();
        char csv[512];
        snprintf(csv, sizeof csv, "%s/out.csv", dir);
        const char *args[] = {"simulate", RTCOSIM_FMU_FAULTY_FMI2, "--start-value", "fail_mode",
                              cases[i].mode, "--stop-time", "2", "--output-interval", "0.25",
                              "--output-file", csv, "-q", NULL};
        child c = spawn(dir, args);
        assert_int_equal(wait_exit(c.pid), cases[i].exit_code);
        const char *err = tu_read_file(c.err, NULL);
        if (!strstr(err, cases[i].message))
            fail_msg("mode %s: stderr: %s", cases[i].mode, err);
        size_t size;
        const char *text = tu_read_file(csv, &size);
        size_t lines = 0;
        for (size_t k = 0; k < size; k++)
            lines += text[k] == '\n';
        assert_int_equal(lines, 6); /* header + t = 0, 0.25, 0.5, 0.75, 1 */
        assert_true(strtod(last_line(csv), NULL) == 1.0);
        /* The dead run's extracted FMU (and its owner mark) are left in
         * TMPDIR; the next run removes them and its own. */
        char tmp[512];
        snprintf(tmp, sizeof tmp, "%s/tmp", dir);
        assert_int_equal(tu_count_entries(tmp), 2);
        const char *again[] = {"simulate", RTCOSIM_FMU_DAHLQUIST_FMI2, "--stop-time", "0.1",
                               "--output-file", csv, "-q", NULL};
        assert_int_equal(wait_exit(spawn(dir, again).pid), 0);
        assert_int_equal(tu_count_entries(tmp), 0);
        tu_drop_dir(dir);
    }
}

/* --step-timeout: the step at t = fail_time = 0.5 s never returns (mode 5);
 * after 1 s without a step boundary the run ends with exit code 5, the
 * rows 0, 0.25, 0.5 on disk and one line naming the component and its call.
 * (0.3 s fired outside any call on a loaded machine: the watchdog measures
 * wall time, and a starved process can miss a boundary for that long.) */
static void step_timeout_ends_a_hung_step_keeping_rows(void **state)
{
    (void)state;
    const char *variants[] = {"simulate", "run"};
    for (size_t v = 0; v < 2; v++) {
        char *dir = tu_make_dir();
        char csv[512], ssd[512];
        snprintf(csv, sizeof csv, "%s/out.csv", dir);
        snprintf(ssd, sizeof ssd, "%s/hang.ssd", dir);
        if (v == 1) {
            /* The same FMU as the one component of an SSP system. */
            char text[2048];
            snprintf(text, sizeof text,
                     "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                     "<ssd:SystemStructureDescription version=\"1.0\" name=\"hang\" "
                     "xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\" "
                     "xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\">\n"
                     "<ssd:System name=\"hang\"><ssd:Elements>\n"
                     "<ssd:Component name=\"f\" source=\"file://%s\">\n"
                     "<ssd:Connectors><ssd:Connector name=\"x\" kind=\"output\"><ssc:Real/>"
                     "</ssd:Connector></ssd:Connectors></ssd:Component>\n"
                     "</ssd:Elements></ssd:System>\n"
                     "<ssd:DefaultExperiment startTime=\"0\" stopTime=\"2\"/>\n"
                     "</ssd:SystemStructureDescription>\n",
                     RTCOSIM_FMU_FAULTY_FMI3);
            tu_write_file(ssd, text);
        }
        const char *args_simulate[] = {"simulate", RTCOSIM_FMU_FAULTY_FMI3, "--start-value",
                                       "fail_mode", "5", "--start-value", "fail_time", "0.5",
                                       "--stop-time", "2", "--output-interval", "0.25",
                                       "--output-file", csv, "--step-timeout", "1", "-q", NULL};
        const char *args_run[] = {"run", ssd, "--start-value", "f.fail_mode", "5",
                                  "--start-value", "f.fail_time", "0.5", "--step-size", "0.25",
                                  "--output-file", csv, "--step-timeout", "1", "-q", NULL};
        child c = spawn(dir, v == 0 ? args_simulate : args_run);
        assert_int_equal(wait_exit(c.pid), 5);
        const char *err = tu_read_file(c.err, NULL);
        const char *expected = v == 0 ? "component 'Faulty' in fmi3DoStep: did not return within 1 s"
                                      : "component 'f' in fmi3DoStep: did not return within 1 s";
        if (!strstr(err, expected))
            fail_msg("%s: stderr: %s", variants[v], err);
        const char *text = tu_read_file(csv, NULL);
        const char *rows = strchr(text, '\n');
        assert_non_null(rows);
        /* Rows at t = 0 (x = 1), 0.25 and 0.5 s (x close to exp(-t)), none
         * after the hung step. */
        assert_true(strncmp(rows + 1, "0,1\n0.25,", 9) == 0);
        const char *third = strchr(rows + 10, '\n');
        assert_non_null(third);
        assert_true(strncmp(third + 1, "0.5,", 4) == 0);
        assert_true(fabs(strtod(third + 5, NULL) - exp(-0.5)) < 1e-3);
        assert_string_equal(strchr(third + 1, '\n'), "\n");
        tu_drop_dir(dir);
    }
}

/* The same when the call that does not return is on another thread than
 * the main one: under --speculate --threads 2 the second component steps on
 * the worker thread (the main thread runs the first and then waits), so a
 * lone SIGTERM and --step-timeout, both handled on the main thread, must
 * find the worker's call. Before, the lone SIGTERM left the run waiting for
 * good and the timeout said "outside any component call". */
static void a_call_that_does_not_return_on_a_worker_thread_is_named(void **state)
{
    (void)state;
    char *dir = tu_make_dir();
    char csv[512], ssd[512];
    snprintf(csv, sizeof csv, "%s/out.csv", dir);
    snprintf(ssd, sizeof ssd, "%s/hang2.ssd", dir);
    write_hang_ssd(ssd, RTCOSIM_FMU_DAHLQUIST_FMI2);
    for (int v = 0; v < 2; v++) {
        const char *args[] = {"run", ssd, "--start-value", "f.fail_mode", "5", "--start-value",
                              "f.fail_time", "0.5", "--step-size", "0.25", "--speculate",
                              "--threads", "2", "--output-file", csv, "-q",
                              v == 0 ? NULL : "--step-timeout", "1", NULL};
        child c = spawn(dir, args);
        if (v == 0) {
            wait_until(c.pid, hangs_in_the_step, "hang in Faulty's step");
            /* f hangs on the worker as soon as it reaches 0.5; a, on the main
             * thread, may still be on its way there (once, under ASan and
             * load, the signal came before a's step to 0.25 and only the
             * row at 0 had been computed): give it time to get there */
            struct timespec grace = {0, 300000000};
            nanosleep(&grace, NULL);
            kill(c.pid, SIGTERM);
        }
        assert_int_equal(wait_exit(c.pid), v == 0 ? 143 : 5);
        const char *err = tu_read_file(c.err, NULL);
        const char *want = v == 0 ? "component 'f' in fmi2DoStep: did not return within 5 s of "
                                    "SIGTERM; the rows computed so far are in the results file"
                                  : "component 'f' in fmi2DoStep: did not return within 1 s "
                                    "(--step-timeout)";
        if (!strstr(err, want))
            fail_msg("%s: stderr: %s", v == 0 ? "SIGTERM" : "--step-timeout", err);
        /* the rows before the hung step: t = 0, 0.25, 0.5 (a.x = f.x = 1 at 0) */
        const char *rows = tu_read_file(csv, NULL);
        if (!strstr(rows, "\n0,1,1\n0.25,") || !strstr(rows, "\n0.5,"))
            fail_msg("%s: rows: %s", v == 0 ? "SIGTERM" : "--step-timeout", rows);
    }
    tu_drop_dir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(second_signal_ends_a_run_stuck_in_a_step_at_once),
        cmocka_unit_test(second_signal_leaves_an_unfinalized_mf4_with_the_rows),
        cmocka_unit_test(second_signal_leaves_a_mat_with_the_rows),
        cmocka_unit_test(second_signal_while_compressing_leaves_no_part_file),
        cmocka_unit_test(lone_sigterm_ends_a_run_stuck_in_a_step_after_the_grace),
        cmocka_unit_test(crashing_or_exiting_fmu_keeps_rows_and_is_named),
        cmocka_unit_test(step_timeout_ends_a_hung_step_keeping_rows),
        cmocka_unit_test(a_call_that_does_not_return_on_a_worker_thread_is_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
