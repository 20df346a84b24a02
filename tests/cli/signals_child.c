/* The signal tests' helpers (signals_child.h). */
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "rtcosim/results.h"
#include "signals_child.h"
#include "util/test_util.h"

bool ignore_hangup_and_interrupt;

child spawn(const char *dir, const char *const *args)
{
    child c;
    snprintf(c.out, sizeof c.out, "%s/stdout.txt", dir);
    snprintf(c.err, sizeof c.err, "%s/stderr.txt", dir);
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s/tmp", dir);
    mkdir(tmp, 0700);
    const char *argv[40];
    tu_cli_argv(argv, 40, RTCOSIM_CLI_PATH, args);
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

void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

void wait_for_size(const char *path, off_t bytes)
{
    for (int i = 0; i < 6000; i++) {
        struct stat st;
        if (stat(path, &st) == 0 && st.st_size >= bytes)
            return;
        sleep_ms(10);
    }
    fail_msg("%s never reached %lld bytes", path, (long long)bytes);
}

void wait_for_text(const char *path, const char *text)
{
    for (int i = 0; i < 6000; i++) {
        const char *have = access(path, F_OK) == 0 ? tu_read_file(path, NULL) : NULL;
        if (have && strstr(have, text))
            return;
        sleep_ms(10);
    }
    fail_msg("no '%s' in %s within 60 s", text, path);
}

bool catches(pid_t pid, int signo)
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

void wait_until(pid_t pid, bool (*ready)(pid_t), const char *what)
{
    for (int i = 0; i < 6000; i++) {
        if (ready(pid))
            return;
        sleep_ms(10);
    }
    fail_msg("rtcosim did not %s within 60 s", what);
}

bool catches_sigint(pid_t pid) { return catches(pid, SIGINT); }

bool hangs_in_the_step(pid_t pid)
{
    if (!catches(pid, SIGTERM) || !tu_sleeps_in_nanosleep(pid))
        return false;
    sleep_ms(20);
    return tu_sleeps_in_nanosleep(pid);
}

bool took_sigint(pid_t pid)
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

int wait_exit(pid_t pid)
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

const char *last_line(const char *path)
{
    size_t size;
    char *text = tu_read_file(path, &size);
    assert_true(size > 0);
    assert_int_equal(text[size - 1], '\n');
    text[size - 1] = '\0';
    char *nl = strrchr(text, '\n');
    return nl ? nl + 1 : text;
}

double reported_time(const char *err, const char *key)
{
    const char *p = strstr(err, key);
    if (!p)
        fail_msg("no '%s' in: %s", key, err);
    return strtod(p + strlen(key), NULL);
}

char *result_as_csv(const char *dir, const char *mf4, size_t *rows)
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
