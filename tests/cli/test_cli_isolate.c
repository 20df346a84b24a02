/* --isolate: an FMU hosted in a child process gives the same results as in
 * process (byte-identical CSV); a crash, abort or exit(0) in its step is an
 * error naming the component, the FMI call, the time and how the child ended,
 * with the rows before it on disk and rtcosim itself unharmed; and a soak of
 * crashing isolated FMUs leaks no process, file descriptor or temporary
 * directory. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    const char *argv[32] = {RTCOSIM_CLI_PATH};
    size_t n = 1;
    while (args[n - 1] && n < 31) {
        argv[n] = args[n - 1];
        n++;
    }
    argv[n] = NULL;
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

static void isolated_results_equal_in_process_results(void **state)
{
    (void)state;
    char *dir = tu_make_dir();
    char a[512], b[512], err[512];
    snprintf(a, sizeof a, "%s/in.csv", dir);
    snprintf(b, sizeof b, "%s/iso.csv", dir);
    snprintf(err, sizeof err, "%s/err.txt", dir);
    /* (Feedthrough has String variables, which are not supported isolated.) */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(isolated_results_equal_in_process_results),
        cmocka_unit_test(crash_abort_exit_of_the_host_are_errors_naming_call_and_time),
        cmocka_unit_test(soak_of_crashing_isolated_fmus_leaks_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
