/* Results that cannot be written are reported, never announced as written:
 * `run` (offline and real time) into /dev/full (every write fails with
 * ENOSPC) exits 1 naming the file and prints no "wrote N rows"; a report
 * directory that cannot be created is refused before the run starts; a
 * command whose printed result (info, compare) or plot cannot be written
 * exits 1. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/test_util.h"

/* Run the CLI with args (NULL-terminated); stdout (into `stdout_to` when
 * given, then *out is empty) and stderr into dir; exit code. */
static int run_cli_to(const char *dir, const char *const *args, const char *stdout_to, char **out,
                      char **err)
{
    char out_path[512], err_path[512];
    snprintf(out_path, sizeof out_path, "%s/stdout.txt", dir);
    snprintf(err_path, sizeof err_path, "%s/stderr.txt", dir);
    const char *argv[32];
    tu_cli_argv(argv, 32, RTCOSIM_CLI_PATH, args);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fo = open(stdout_to ? stdout_to : out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0)
            _exit(126);
        dup2(fo, 1);
        dup2(fe, 2);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    *out = strdup(stdout_to ? "" : tu_read_file(out_path, NULL));
    *err = strdup(tu_read_file(err_path, NULL));
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static int run_cli(const char *dir, const char *const *args, char **out, char **err)
{
    return run_cli_to(dir, args, NULL, out, err);
}

/* What a command prints is its result: `info`'s description and
 * `compare`'s verdict into a full disk are an error, exit 1. */
static void a_result_printed_or_plotted_into_a_full_disk_is_an_error(void **state)
{
    (void)state;
    struct stat sb;
    if (stat("/dev/full", &sb) != 0)
        skip();
    char *dir = tu_make_dir();
    char csv[600];
    snprintf(csv, sizeof csv, "%s/r.csv", dir);
    tu_write_file(csv, "time,y\n0,1\n1,2\n");
    /* a plot into a full disk: PLplot's own writes (the stream it is given) */
    for (int k = 0; k < 3; k++) {
        static const char *const names[] = {"full.svg", "full.png", "full.pdf"};
        char link[600];
        snprintf(link, sizeof link, "%s/%s", dir, names[k]);
        assert_int_equal(symlink("/dev/full", link), 0);
        const char *plot[] = {"plot", csv, "-o", link, NULL};
        char *out, *err;
        int rc = run_cli(dir, plot, &out, &err);
        if (rc != 1 || !strstr(err, "writing the plot failed: No space left on device"))
            fail_msg("%s: exit %d, stderr: %s", names[k], rc, err);
        free(out);
        free(err);
        unlink(link);
    }
    const char *info[] = {"info", SPRINGS_SSD, NULL};
    const char *compare[] = {"compare", csv, csv, NULL};
    const char *const *cases[] = {info, compare};
    for (size_t i = 0; i < 2; i++) {
        char *out, *err;
        assert_int_equal(run_cli_to(dir, cases[i], "/dev/full", &out, &err), 1);
        if (!strstr(err, "writing standard output failed: No space left on device"))
            fail_msg("stderr: %s", err);
        free(out);
        free(err);
        assert_int_equal(run_cli(dir, cases[i], &out, &err), 0); /* (a file: fine) */
        free(out);
        free(err);
    }
    tu_drop_dir(dir);
}

static void results_into_a_full_disk_are_an_error_not_rows_written(void **state)
{
    (void)state;
    struct stat sb;
    if (stat("/dev/full", &sb) != 0)
        skip();
    char *dir = tu_make_dir();
    const char *offline[] = {"run", SPRINGS_SSD, "--output-file", "/dev/full", "-q", NULL};
    const char *real_time[] = {"run", SPRINGS_SSD, "--real-time", "--virtual-clock",
                               "--stop-time", "0.2", "--output-file", "/dev/full", "-q", NULL};
    const char *const *cases[] = {offline, real_time};
    for (size_t i = 0; i < 2; i++) {
        char *out, *err;
        assert_int_equal(run_cli(dir, cases[i], &out, &err), 1);
        if (!strstr(err, "/dev/full: writing results failed: No space left on device"))
            fail_msg("stderr: %s", err);
        if (strstr(out, "wrote "))
            fail_msg("stdout announces rows: %s", out);
        free(out);
        free(err);
    }
    tu_drop_dir(dir);
}

static void impossible_report_directory_is_refused_before_the_run(void **state)
{
    (void)state;
    char *dir = tu_make_dir();
    char file[512], report[600];
    snprintf(file, sizeof file, "%s/plain", dir);
    tu_write_file(file, "x");
    snprintf(report, sizeof report, "%s/report", file); /* under a plain file */
    const char *args[] = {"run", SPRINGS_SSD, "--real-time", "--virtual-clock", "--stop-time",
                          "0.2", "--rt-report", report, "-q", NULL};
    char *out, *err;
    assert_int_equal(run_cli(dir, args, &out, &err), 1);
    if (!strstr(err, "--rt-report ") || !strstr(err, "plain is not a directory"))
        fail_msg("stderr: %s", err);
    assert_string_equal(out, ""); /* nothing ran */
    free(out);
    free(err);
    /* An existing plain file as the directory itself. */
    const char *args2[] = {"run", SPRINGS_SSD, "--real-time", "--virtual-clock", "--stop-time",
                           "0.2", "--rt-report", file, "-q", NULL};
    assert_int_equal(run_cli(dir, args2, &out, &err), 1);
    assert_non_null(strstr(err, "exists and is not a directory"));
    assert_string_equal(out, "");
    free(out);
    free(err);
    tu_drop_dir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(results_into_a_full_disk_are_an_error_not_rows_written),
        cmocka_unit_test(impossible_report_directory_is_refused_before_the_run),
        cmocka_unit_test(a_result_printed_or_plotted_into_a_full_disk_is_an_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
