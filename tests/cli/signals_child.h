/* The helpers of the signal tests (test_cli_signals.c, test_cli_signals_hang.c):
 * the CLI spawned as a child with its output in files, and bounded waits on
 * its files, its signal dispositions and its threads' states. */
#ifndef RTCOSIM_TEST_SIGNALS_CHILD_H
#define RTCOSIM_TEST_SIGNALS_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct child {
    pid_t pid;
    char out[512], err[512];
} child;

/* spawn's children start with SIGHUP and SIGINT ignored (nohup, a script's
 * background job) when set; with the default dispositions else. */
extern bool ignore_hangup_and_interrupt;

/* Start the CLI with args (NULL-terminated); stdout and stderr to files in
 * dir, TMPDIR = dir/tmp (so that extracted FMUs are seen there). */
child spawn(const char *dir, const char *const *args);

void sleep_ms(long ms);

/* Wait until path has at least `bytes` bytes (at most 60 s). */
void wait_for_size(const char *path, off_t bytes);

/* Wait (up to 60 s) until the file at path contains text. */
void wait_for_text(const char *path, const char *text);

/* Whether /proc/PID/status says pid catches signo (SigCgt, a hex mask). */
bool catches(pid_t pid, int signo);

/* Wait (up to 60 s) until ready(pid) holds. */
void wait_until(pid_t pid, bool (*ready)(pid_t), const char *what);

bool catches_sigint(pid_t pid);

/* Whether pid hangs in Faulty's step: a thread in nanosleep, with SIGTERM
 * caught, and still so 20 ms later. A short sleep of the start-up (the
 * recorder looks at the CPUs' load up to five times 100 us apart) is no
 * hang: a SIGTERM sent then met the default action (exit 143 with nothing
 * said; seen once under a parallel ctest). */
bool hangs_in_the_step(pid_t pid);

/* Whether SIGINT has been taken by pid (no longer pending for the process
 * nor its main thread: ShdPnd and SigPnd in /proc/PID/status). */
bool took_sigint(pid_t pid);

/* Exit code (128 + signal when killed); fails after 60 s (and kills it). */
int wait_exit(pid_t pid);

/* The last line of a CSV file (complete: the file ends with a newline). */
const char *last_line(const char *path);

/* "at t = X" / "at te = X" in stderr, as a number. */
double reported_time(const char *err, const char *key);

/* The CSV of an .mf4 or .mat results file (rtcosim_results_convert, as
 * `rtcosim convert` makes it): the text, *rows its rows. */
char *result_as_csv(const char *dir, const char *mf4, size_t *rows);

#endif
