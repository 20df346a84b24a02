/* `rtcosim simulate` and `run` (offline and real time) ended by SIGINT or
 * SIGTERM: exit 128 + signal, the rows so far complete on disk (the last one
 * at the time the message names), the report written, the extracted FMU
 * removed; a second signal ends a run stuck in a step at once; a crashing or
 * exiting FMU leaves its rows and a message naming it. Every wait is
 * bounded and no assertion depends on how fast the machine is. */
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
#include "util/test_util.h"

typedef struct child {
    pid_t pid;
    char out[512], err[512];
} child;

/* spawn's children start with SIGHUP and SIGINT ignored (nohup, a script's
 * background job) when set; with the default dispositions else. */
static bool ignore_hangup_and_interrupt;

/* Start the CLI with args (NULL-terminated); stdout and stderr to files in
 * dir, TMPDIR = dir/tmp (so that extracted FMUs are seen there). */
static child spawn(const char *dir, const char *const *args)
{
    child c;
    snprintf(c.out, sizeof c.out, "%s/stdout.txt", dir);
    snprintf(c.err, sizeof c.err, "%s/stderr.txt", dir);
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s/tmp", dir);
    mkdir(tmp, 0700);
    const char *argv[40] = {RTCOSIM_CLI_PATH};
    size_t n = 1;
    while (args[n - 1] && n < 39) {
        argv[n] = args[n - 1];
        n++;
    }
    argv[n] = NULL;
    c.pid = fork();
    assert_true(c.pid >= 0);
    if (c.pid == 0) {
        int fo = open(c.out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(c.err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0)
            _exit(126);
        dup2(fo, 1);
        dup2(fe, 2);
        setenv("TMPDIR", tmp, 1);
        /* Default dispositions whatever started the test: a shell's
         * background job ignores SIGINT, nohup SIGHUP, and the CLI keeps
         * an ignored one ignored. */
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        if (ignore_hangup_and_interrupt) {
            signal(SIGHUP, SIG_IGN);
            signal(SIGINT, SIG_IGN);
        }
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    return c;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* Wait until path has at least `bytes` bytes (at most 60 s). */
static void wait_for_size(const char *path, off_t bytes)
{
    for (int i = 0; i < 6000; i++) {
        struct stat st;
        if (stat(path, &st) == 0 && st.st_size >= bytes)
            return;
        sleep_ms(10);
    }
    fail_msg("%s never reached %lld bytes", path, (long long)bytes);
}

/* Wait (up to 60 s) until the file at path contains text. */
static void wait_for_text(const char *path, const char *text)
{
    for (int i = 0; i < 6000; i++) {
        const char *have = access(path, F_OK) == 0 ? tu_read_file(path, NULL) : NULL;
        if (have && strstr(have, text))
            return;
        sleep_ms(10);
    }
    fail_msg("no '%s' in %s within 60 s", text, path);
}

/* Whether /proc/PID/status says pid catches signo (SigCgt, a hex mask). */
static bool catches(pid_t pid, int signo)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
    FILE *f = fopen(path, "r");
    unsigned long long mask = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "SigCgt: %llx", &mask) == 1)
            break;
    if (f)
        fclose(f);
    return (mask >> (signo - 1)) & 1;
}

/* Whether a thread of pid other than its main thread is blocked in
 * clock_nanosleep: run --real-time's paced thread waiting for its next frame
 * (with -q nothing else in the CLI sleeps so). */
static bool paced_thread_waits(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/task", (long)pid);
    DIR *d = opendir(path);
    struct dirent *e;
    bool waits = false;
    while (!waits && d && (e = readdir(d))) {
        if (e->d_name[0] == '.' || atol(e->d_name) == (long)pid)
            continue;
        char file[320];
        snprintf(file, sizeof file, "/proc/%ld/task/%s/syscall", (long)pid, e->d_name);
        FILE *f = fopen(file, "r");
        long nr = -1;
        if (f && fscanf(f, "%ld", &nr) == 1)
            waits = nr == SYS_clock_nanosleep;
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    return waits;
}

/* Wait (up to 60 s) until ready(pid) holds. */
static void wait_until(pid_t pid, bool (*ready)(pid_t), const char *what)
{
    for (int i = 0; i < 6000; i++) {
        if (ready(pid))
            return;
        sleep_ms(10);
    }
    fail_msg("rtcosim did not %s within 60 s", what);
}

static bool catches_sigint(pid_t pid) { return catches(pid, SIGINT); }

/* Whether pid hangs in Faulty's step: a thread in nanosleep, with SIGTERM
 * caught, and still so 20 ms later. A short sleep of the start-up (the
 * recorder looks at the CPUs' load up to five times 100 us apart) is no
 * hang: a SIGTERM sent then met the default action (exit 143 with nothing
 * said; seen once under a parallel ctest). */
static bool hangs_in_the_step(pid_t pid)
{
    if (!catches(pid, SIGTERM) || !tu_sleeps_in_nanosleep(pid))
        return false;
    sleep_ms(20);
    return tu_sleeps_in_nanosleep(pid);
}

/* Whether SIGINT has been taken by pid (no longer pending for the process
 * nor its main thread: ShdPnd and SigPnd in /proc/PID/status). */
static bool took_sigint(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
    FILE *f = fopen(path, "r");
    unsigned long long mask = 0, pending = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "ShdPnd: %llx", &mask) == 1 || sscanf(line, "SigPnd: %llx", &mask) == 1)
            pending |= mask;
    if (f)
        fclose(f);
    return !((pending >> (SIGINT - 1)) & 1);
}

/* Exit code (128 + signal when killed); fails after 60 s (and kills it). */
static int wait_exit(pid_t pid)
{
    for (int i = 0; i < 6000; i++) {
        int status;
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        sleep_ms(10);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    fail_msg("rtcosim did not exit within 60 s");
    return -1;
}

/* The last line of a CSV file (complete: the file ends with a newline). */
static const char *last_line(const char *path)
{
    size_t size;
    char *text = tu_read_file(path, &size);
    assert_true(size > 0);
    assert_int_equal(text[size - 1], '\n');
    text[size - 1] = '\0';
    char *nl = strrchr(text, '\n');
    return nl ? nl + 1 : text;
}

/* "at t = X" / "at te = X" in stderr, as a number. */
static double reported_time(const char *err, const char *key)
{
    const char *p = strstr(err, key);
    if (!p)
        fail_msg("no '%s' in: %s", key, err);
    return strtod(p + strlen(key), NULL);
}

/* Dahlquist simulated for 1e7 s at 1 ms into `out` in dir, SIGINT well
 * into the run: exit 130, said so; the time it names. */
static double sigint_a_long_dahlquist_run(const char *dir, const char *out)
{
    const char *args[] = {"simulate", RTCOSIM_FMU_DAHLQUIST_FMI2, "--stop-time", "1e7",
                          "--output-interval", "0.001", "--output-file", out, "-q", NULL};
    child c = spawn(dir, args);
    wait_for_size(out, 100000); /* well into the run */
    kill(c.pid, SIGINT);
    assert_int_equal(wait_exit(c.pid), 130);
    const char *err = tu_read_file(c.err, NULL);
    if (!strstr(err, "interrupted by SIGINT"))
        fail_msg("stderr: %s", err);
    return reported_time(err, "at t = ");
}

static void simulate_sigint_keeps_rows_and_removes_the_extracted_fmu(void **state)
{
    (void)state;
    char *dir = tu_make_dir();
    char csv[512];
    snprintf(csv, sizeof csv, "%s/out.csv", dir);
    /* The last row is complete and is the time the message names. */
    double t_end = sigint_a_long_dahlquist_run(dir, csv);
    const char *last = last_line(csv);
    char *end;
    double t_row = strtod(last, &end);
    assert_int_equal(*end, ',');
    assert_true(t_row == t_end);
    /* Dahlquist x(t) = exp(-k t) with k = 1 decays to about 0 by then; any
     * finite value shows the row was not cut. */
    double x = strtod(end + 1, &end);
    assert_int_equal(*end, '\0');
    assert_true(x >= 0 && x < 1);
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s/tmp", dir);
    assert_int_equal(tu_count_entries(tmp), 0); /* the extracted FMU is gone */
    tu_drop_dir(dir);
}

/* The CSV of an .mf4 or .mat results file (rtcosim_results_convert, as
 * `rtcosim convert` makes it): the text, *rows its rows. */
static char *result_as_csv(const char *dir, const char *mf4, size_t *rows)
{
    char csv[600];
    snprintf(csv, sizeof csv, "%s/from_result.csv", dir);
    rtcosim_results_convert_options o = {.from = NAN, .to = NAN};
    rtcosim_results_convert_stats stats = {0};
    rtcosim_error err = {0};
    if (rtcosim_results_convert(mf4, csv, &o, &stats, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    *rows = stats.rows;
    return strdup(tu_read_file(csv, NULL));
}

/* SIGINT into a long Dahlquist run into `name` (an .mf4 or .mat result,
 * written as the run goes): the file is finalized with every row up to
 * the time named (one per output interval from 0); `magic`, when given,
 * its first bytes. */
static void sigint_finalizes(const char *name, const char *magic)
{
    char *dir = tu_make_dir();
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    double t_end = sigint_a_long_dahlquist_run(dir, path);
    if (magic)
        assert_memory_equal(tu_read_file(path, NULL), magic, strlen(magic));
    size_t rows;
    char *text = result_as_csv(dir, path, &rows);
    assert_int_equal(rows, (size_t)llround(t_end / 0.001) + 1);
    char *last = strrchr(text, '\n');
    assert_non_null(last);
    *last = '\0';
    last = strrchr(text, '\n') + 1;
    assert_true(strtod(last, NULL) == t_end);
    free(text);
    tu_drop_dir(dir);
}

/* `nohup rtcosim simulate ... &`: started with SIGHUP and SIGINT ignored,
 * the run keeps them ignored (a closed terminal or a Ctrl-C meant for the
 * shell's foreground job does not end it); SIGTERM still stops it, rows
 * kept. Truth: the first signal the CLI names is SIGTERM, sent after the
 * other two (which, caught, would have been the first: exit 129 or 130). */
static void an_ignored_hangup_or_interrupt_stays_ignored(void **state)
{
    (void)state;
    char *dir = tu_make_dir();
    char out[512];
    snprintf(out, sizeof out, "%s/nohup.csv", dir);
    const char *args[] = {"simulate", RTCOSIM_FMU_DAHLQUIST_FMI2, "--stop-time", "1e7",
                          "--output-interval", "0.001", "--output-file", out, "-q", NULL};
    ignore_hangup_and_interrupt = true;
    child c = spawn(dir, args);
    ignore_hangup_and_interrupt = false;
    wait_for_size(out, 100000); /* the handlers are in place well before */
    bool hup = catches(c.pid, SIGHUP), intr = catches(c.pid, SIGINT),
         term = catches(c.pid, SIGTERM);
    kill(c.pid, SIGHUP);
    kill(c.pid, SIGINT);
    kill(c.pid, SIGTERM);
    int rc = wait_exit(c.pid); /* (before any assertion: no run left behind) */
    assert_false(hup);
    assert_false(intr);
    assert_true(term);
    assert_int_equal(rc, 128 + SIGTERM);
    const char *err = tu_read_file(c.err, NULL);
    if (!strstr(err, "interrupted by SIGTERM"))
        fail_msg("stderr: %s", err);
    tu_drop_dir(dir);
}

static void simulate_sigint_finalizes_an_mf4_result(void **state)
{
    (void)state;
    sigint_finalizes("out.mf4", "MDF     ");
}

static void simulate_sigint_finalizes_a_mat_result(void **state)
{
    (void)state;
    sigint_finalizes("out.mat", NULL); /* (data_2's count patched in place) */
}

static void offline_run_sigterm_keeps_rows_and_prints_the_summary(void **state)
{
    (void)state;
    char *dir = tu_make_dir();
    char csv[512];
    snprintf(csv, sizeof csv, "%s/out.csv", dir);
    const char *args[] = {"run", SPRINGS_SSD, "--stop-time", "1e6", "--output-file", csv, "-q",
                          NULL};
    child c = spawn(dir, args);
    wait_for_size(csv, 100000);
    kill(c.pid, SIGTERM);
    assert_int_equal(wait_exit(c.pid), 143);
    char *err = strdup(tu_read_file(c.err, NULL));
    if (!strstr(err, "interrupted by SIGTERM"))
        fail_msg("stderr: %s", err);
    double t_end = reported_time(err, "at t = ");
    char *out = strdup(tu_read_file(c.out, NULL));
    assert_non_null(strstr(out, "system 'springs': 2 components"));
    assert_non_null(strstr(out, "wrote "));
    const char *last = last_line(csv);
    assert_true(strtod(last, NULL) == t_end);
    /* time + 4 columns, all present */
    int commas = 0;
    for (const char *p = last; *p; p++)
        commas += *p == ',';
    assert_int_equal(commas, 4);
    free(out);
    free(err);
    tu_drop_dir(dir);
}

static void real_time_run_sigint_writes_results_and_report(void **state)
{
    (void)state;
    char *dir = tu_make_dir();
    char csv[512], report[512], summary[600];
    snprintf(csv, sizeof csv, "%s/out.csv", dir);
    snprintf(report, sizeof report, "%s/report", dir);
    snprintf(summary, sizeof summary, "%s/summary.csv", report);
    const char *args[] = {"run", SPRINGS_SSD, "--stop-time", "600", "--real-time",
                          "--no-calibrate", "--non-realtime", "b", "--output-file", csv,
                          "--rt-report", report, "-q", NULL};
    child c = spawn(dir, args);
    /* Once the paced thread waits for its next frame, frames run (the
     * header alone, written before the system is even built, left none
     * run 300 ms later on a loaded machine: no frame, no report); let
     * some frames run. */
    wait_for_text(c.out, "system 'springs': real-time part");
    wait_until(c.pid, paced_thread_waits, "start pacing frames");
    sleep_ms(300);
    kill(c.pid, SIGINT);
    int rc = wait_exit(c.pid);
    char *err = strdup(tu_read_file(c.err, NULL));
    if (rc != 130 || !strstr(err, "interrupted by SIGINT at te = "))
        fail_msg("exit %d, stderr: %s", rc, err);
    double te = reported_time(err, "at te = ");
    assert_true(te > 0 && te < 600);
    const char *last = last_line(csv);
    assert_true(strtod(last, NULL) == te);
    assert_non_null(strstr(tu_read_file(summary, NULL), "frames,"));
    free(err);
    tu_drop_dir(dir);
}

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

/* `rtcosim events --stop-time 1e6 --scheduler SCHEDULER --can-log LOG` in
 * dir, SIGINT a second into its run (once its handler is in: a fixed delay
 * from the start could signal before it on a loaded machine, killed with no
 * summary): exit 130, "stopped by SIGINT"; the time it names and the frames
 * its summary counts. */
static double interrupted_events(const char *dir, const char *scheduler, const char *log,
                                 long *frames)
{
    const char *args[] = {"events", "--stop-time", "1e6", "--scheduler", scheduler,
                          "--can-log", log, NULL};
    child c = spawn(dir, args);
    wait_until(c.pid, catches_sigint, "catch SIGINT");
    sleep_ms(1000);
    kill(c.pid, SIGINT);
    assert_int_equal(wait_exit(c.pid), 130);
    const char *err = tu_read_file(c.err, NULL);
    if (!strstr(err, "stopped by SIGINT"))
        fail_msg("%s: stderr: %s", scheduler, err);
    double t_end = reported_time(err, "at t = ");
    assert_true(t_end > 0.1 && t_end < 1e6);
    const char *bus = strstr(tu_read_file(c.out, NULL), "can bus");
    assert_non_null(bus);
    *frames = strtol(bus + strlen("can bus"), NULL, 10);
    return t_end;
}

/* `rtcosim events --can-log F` ended by SIGINT, on each scheduler family:
 * exit 130, the summary of the run so far, and F holding the frames so far
 * (they were written only at the end before). Truth: the summary's frame
 * count is F's line count, every line is candump -l, none ends later than
 * one frame time after the time the message names, and EngineData (id 0x0C0, sent every 10 ms as
 * examples/ecus/vehicle.dbc's GenMsgCycleTime says) appears once per 10 ms
 * up to that time. */
static void events_sigint_keeps_the_can_log_and_summary(void **state)
{
    (void)state;
    const char *schedulers[] = {"conservative", "sequential", "speculative"};
    for (size_t k = 0; k < 3; k++) {
        char *dir = tu_make_dir();
        char log[512];
        snprintf(log, sizeof log, "%s/can.log", dir);
        long frames;
        double t_end = interrupted_events(dir, schedulers[k], log, &frames);
        size_t size;
        char *text = tu_read_file(log, &size);
        assert_true(size > 0 && text[size - 1] == '\n');
        long lines = 0, engine = 0;
        double last = 0;
        for (char *line = text; line < text + size; line = strchr(line, '\n') + 1) {
            unsigned long sec, usec;
            char id[16];
            int n = 0;
            if (sscanf(line, "(%10lu.%6lu) can0 %15[0-9A-F]#%n", &sec, &usec, id, &n) != 3 || n == 0)
                fail_msg("%s: not candump -l: %.60s", schedulers[k], line);
            double t = (double)sec + 1e-6 * (double)usec;
            /* a frame on the wire at the stop ends after it: by at most one
             * frame time (an 8-byte frame with worst-case stuffing is 160
             * bits, 320 us at 500 kbit/s) */
            if (!(t >= last && t <= t_end + 320e-6))
                fail_msg("%s: frame at %.6f s after %.6f s or past the end %.6f s", schedulers[k], t, last, t_end);
            last = t;
            lines++;
            engine += strcmp(id, "0C0") == 0;
        }
        assert_int_equal(lines, frames);
        long expected = (long)(t_end / 0.01);
        if (labs(engine - expected) > 2)
            fail_msg("%s: %ld EngineData frames up to t = %g s, expected about %ld", schedulers[k],
                     engine, t_end, expected);
        tu_drop_dir(dir);
    }
}

/* The same into an MDF 4 log, which needs its frame count in its header:
 * written while the run goes, the file is finished at the stop as a log of
 * the frames so far. Truth: the reader takes it, with as many frames as the
 * summary says, in time order, none later than one frame time after the
 * time the message names. */
static void events_sigint_finishes_an_mdf_can_log(void **state)
{
    (void)state;
    char *dir = tu_make_dir();
    char log[512];
    snprintf(log, sizeof log, "%s/can.mf4", dir);
    long frames;
    double t_end = interrupted_events(dir, "speculative", log, &frames);
    rtcosim_can_log *read = NULL;
    rtcosim_error rerr = {0};
    if (rtcosim_can_log_read(log, &read, &rerr) != RTCOSIM_OK)
        fail_msg("%s", rerr.message);
    assert_int_equal(rtcosim_can_log_source(read), RTCOSIM_CAN_LOG_MDF);
    assert_int_equal(rtcosim_can_log_count(read), frames);
    const rtcosim_can_log_record *r = rtcosim_can_log_records(read);
    for (long i = 1; i < frames; i++)
        assert_true(r[i].time >= r[i - 1].time);
    assert_true(frames > 0 && rtcosim_time_to_seconds(r[frames - 1].time) <= t_end + 320e-6);
    rtcosim_can_log_free(read);
    tu_drop_dir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(simulate_sigint_keeps_rows_and_removes_the_extracted_fmu),
        cmocka_unit_test(an_ignored_hangup_or_interrupt_stays_ignored),
        cmocka_unit_test(simulate_sigint_finalizes_an_mf4_result),
        cmocka_unit_test(simulate_sigint_finalizes_a_mat_result),
        cmocka_unit_test(offline_run_sigterm_keeps_rows_and_prints_the_summary),
        cmocka_unit_test(real_time_run_sigint_writes_results_and_report),
        cmocka_unit_test(second_signal_ends_a_run_stuck_in_a_step_at_once),
        cmocka_unit_test(second_signal_leaves_an_unfinalized_mf4_with_the_rows),
        cmocka_unit_test(second_signal_leaves_a_mat_with_the_rows),
        cmocka_unit_test(second_signal_while_compressing_leaves_no_part_file),
        cmocka_unit_test(lone_sigterm_ends_a_run_stuck_in_a_step_after_the_grace),
        cmocka_unit_test(crashing_or_exiting_fmu_keeps_rows_and_is_named),
        cmocka_unit_test(step_timeout_ends_a_hung_step_keeping_rows),
        cmocka_unit_test(a_call_that_does_not_return_on_a_worker_thread_is_named),
        cmocka_unit_test(events_sigint_keeps_the_can_log_and_summary),
        cmocka_unit_test(events_sigint_finishes_an_mdf_can_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
