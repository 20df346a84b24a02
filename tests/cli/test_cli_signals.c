/* `rtcosim simulate`, `run` (offline and real time) and `events` ended by
 * SIGINT or SIGTERM: exit 128 + signal, the rows so far complete on disk
 * (the last one at the time the message names), the report written, the
 * extracted FMU removed, the CAN log finished (runs stuck in a step:
 * test_cli_signals_hang.c). Every wait is bounded and no assertion depends
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
    /* (with -q nothing else in the CLI sleeps in clock_nanosleep) */
    wait_until(c.pid, tu_other_thread_in_clock_nanosleep, "start pacing frames");
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
        cmocka_unit_test(events_sigint_keeps_the_can_log_and_summary),
        cmocka_unit_test(events_sigint_finishes_an_mdf_can_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

