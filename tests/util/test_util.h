/* Helpers shared by the test programs: scratch directories, files written and
 * read back, zip archives built at test time with libzip (no binary test
 * archives in the repository), and a log handler that keeps the messages for
 * assertions. Every helper fails the running cmocka test on an I/O error. */
#ifndef RTCOSIM_TESTS_UTIL_TEST_UTIL_H
#define RTCOSIM_TESTS_UTIL_TEST_UTIL_H

#include <sys/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/csv.h"

typedef struct tu_entry {
    const char *name;    /* name inside the archive */
    const char *text;    /* contents, or NULL */
    const char *file;    /* or: copy this file's bytes */
    bool symlink;        /* mark the entry as a Unix symbolic link */
    size_t zeros;        /* or: this many zero bytes (compresses very well) */
    bool store;          /* store uncompressed (so that a test can corrupt it) */
    unsigned mode;       /* Unix permission bits to record (e.g. 0755), 0: none */
} tu_entry;

/* A fresh empty directory (under $TMPDIR or /tmp); free() the result. */
char *tu_make_dir(void);
/* Remove a tree and free the path. */
void tu_drop_dir(char *dir);
/* cmocka setup/teardown pair: *state is a fresh scratch directory
 * (tu_make_dir) for the test's files, removed with everything in it after the
 * test, whether it passed or not. Tests never write into the working
 * directory. */
int tu_scratch_setup(void **state);
int tu_scratch_teardown(void **state);
/* The same for a whole group (cmocka_run_group_tests(tests, tu_scratch_group_setup,
 * tu_scratch_group_teardown)): tu_scratch(name) is "dir/name" in the group's
 * directory, in one of 8 rotating buffers (so a call may use several). */
int tu_scratch_group_setup(void **state);
int tu_scratch_group_teardown(void **state);
const char *tu_scratch(const char *name);
/* Number of entries in a directory (without . and ..), -1 if unreadable. */
int tu_count_entries(const char *dir);
/* Whether a thread of process pid is blocked in (clock_)nanosleep, read
 * from /proc: a child has reached a sleep the test waits for. */
bool tu_sleeps_in_nanosleep(pid_t pid);
/* Whether a thread of pid other than its main thread is blocked in
 * clock_nanosleep (a paced thread waiting for its next frame). */
bool tu_other_thread_in_clock_nanosleep(pid_t pid);
/* The number of lines of a file (its newlines). */
size_t tu_count_lines(const char *path);
/* No child process is left: whatever the test started reaped its own (with
 * the test a subreaper, one left would be the test's to wait for now). */
void tu_assert_no_child_left(void);
/* "dir/name" in a static buffer (one at a time). */
const char *tu_path(const char *dir, const char *name);
/* Write an archive; aborts the test on failure. */
void tu_zip(const char *zip_path, const tu_entry *entries, size_t n);
/* Write an archive of stored entries (text or file only) exactly as listed,
 * written here byte by byte (APPNOTE 4.3) without libzip, which refuses to
 * write one name twice: for archives with duplicate entries. */
void tu_zip_raw(const char *zip_path, const tu_entry *entries, size_t n);
/* Write text to path, creating missing parent directories. */
/* argv for execv into argv[0..cap): cli, then the NULL-terminated args (at
 * most cap - 2 of them), then NULL. */
void tu_cli_argv(const char **argv, size_t cap, const char *cli, const char *const *args);

void tu_write_file(const char *path, const char *text);
/* An SSD at path: Strings' Steps_output (grows "ab" a step) into component
 * f's String_input and Notes' trail (grows a byte a step) into its
 * Binary_input; f is `consumer` (an FMU or a .dcpx); Jacobi by default. */
void tu_write_text_chain_ssd(const char *path, const char *strings_fmu, const char *notes_fmu,
                             const char *consumer, double stop_time);
/* The whole file, NUL-terminated, in a buffer the helper owns and reuses:
 * valid until the next call. *size (if not NULL) gets its length in bytes. */
char *tu_read_file(const char *path, size_t *size);
/* A table read from text (named "in.csv" in messages); fails the test if
 * the reader refuses it. */
rtcosim_csv *tu_csv(const char *text);
/* Overwrite the first occurrence of `find` in a file with `replace` (same length). */
void tu_patch_file(const char *path, const char *find, const char *replace);

/* CLOCK_MONOTONIC in ns (wall-clock waits and time limits in tests). */
int64_t tu_now_ns(void);

/* Log capture: every message at or above `level` goes into one buffer as
 * "level|category|message\n" lines. */
void tu_log_capture(int level);
const char *tu_log_text(void);
void tu_log_reset(void);

#endif
