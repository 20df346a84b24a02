/* cli_signals_abandon_on_first (cli/signals.c) for a plot whose part file
 * may or may not have been renamed into place when the signal comes: the
 * handler's line must say what is on disk. Each case runs in a child that
 * raises SIGINT at a chosen point and must _exit(130). */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "signals.h"
#include "util/test_util.h"

/* (signals.c calls it for a bad --step-timeout; main.c has the real one) */
int cli_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    return 1;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* In a child: the output as it stands (previous text or none), the handlers,
 * then (when `renamed`) a new file renamed over it, then SIGINT. Its stderr. */
static void interrupted(const char *out, bool existed, bool renamed, char *said, size_t size)
{
    unlink(out);
    if (existed)
        write_text(out, "previous\n");
    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(pipefd[1], STDERR_FILENO);
        signal(SIGINT, SIG_DFL); /* (an ignored one, inherited, stays ignored) */
        cli_signals_install();
        cli_signals_abandon_on_first("plot", out);
        if (renamed) {
            char part[4096];
            snprintf(part, sizeof part, "%s.part", out);
            FILE *f = fopen(part, "w");
            fputs("<svg/>\n", f);
            fclose(f);
            rename(part, out);
        }
        raise(SIGINT);
        _exit(3); /* (not reached: the handler exits) */
    }
    close(pipefd[1]);
    size_t n = 0;
    ssize_t got;
    while (n + 1 < size && (got = read(pipefd[0], said + n, size - 1 - n)) > 0)
        n += (size_t)got;
    said[n] = '\0';
    close(pipefd[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 128 + SIGINT);
}

static void says_nothing_written_while_the_previous_file_stands(void **state)
{
    (void)state;
    const char *out = tu_scratch("a.svg");
    char said[512];
    interrupted(out, true, false, said, sizeof said);
    assert_string_equal(said, "rtcosim: plot: ended by SIGINT before its file was complete: "
                              "nothing written\n");
    interrupted(out, false, false, said, sizeof said);
    assert_string_equal(said, "rtcosim: plot: ended by SIGINT before its file was complete: "
                              "nothing written\n");
}

static void says_written_whole_once_the_new_file_is_in_place(void **state)
{
    (void)state;
    const char *out = tu_scratch("b.svg");
    char said[512], want[4200];
    snprintf(want, sizeof want, "rtcosim: plot: ended by SIGINT after %s was written whole\n", out);
    interrupted(out, true, true, said, sizeof said); /* replaced the previous file */
    assert_string_equal(said, want);
    interrupted(out, false, true, said, sizeof said); /* a file where there was none */
    assert_string_equal(said, want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(says_nothing_written_while_the_previous_file_stands),
        cmocka_unit_test(says_written_whole_once_the_new_file_is_in_place),
    };
    return cmocka_run_group_tests(tests, tu_scratch_group_setup, tu_scratch_group_teardown);
}
