/* Scratch directories, files, test-time zip archives and log capture shared
 * by the test programs (see test_util.h). */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <cmocka.h>
#include <zip.h>

#include "archive/archive.h"
#include "util/test_util.h"
#include "util/raw_zip.h"
#include "rtcosim/log.h"

char *tu_make_dir(void)
{
    const char *parent = getenv("TMPDIR");
    if (!parent || !*parent)
        parent = "/tmp";
    char *dir = malloc(strlen(parent) + 32);
    assert_non_null(dir);
    sprintf(dir, "%s/rtcosim-test-XXXXXX", parent);
    assert_non_null(mkdtemp(dir));
    return dir;
}

void tu_drop_dir(char *dir)
{
    rtcosim_archive_remove_dir(dir);
    free(dir);
}

int tu_scratch_setup(void **state)
{
    *state = tu_make_dir();
    return 0;
}

int tu_scratch_teardown(void **state)
{
    tu_drop_dir(*state);
    *state = NULL;
    return 0;
}

static char *group_dir;

int tu_scratch_group_setup(void **state)
{
    (void)state;
    group_dir = tu_make_dir();
    return 0;
}

int tu_scratch_group_teardown(void **state)
{
    (void)state;
    tu_drop_dir(group_dir);
    group_dir = NULL;
    return 0;
}

const char *tu_scratch(const char *name)
{
    static char bufs[8][4096];
    static unsigned next;
    assert_non_null(group_dir);
    char *buf = bufs[next++ % 8];
    snprintf(buf, sizeof bufs[0], "%s/%s", group_dir, name);
    return buf;
}

int tu_count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int count = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            count++;
    closedir(d);
    return count;
}

const char *tu_path(const char *dir, const char *name)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", dir, name);
    return buf;
}

static void make_parents(const char *path)
{
    char parent[4096];
    snprintf(parent, sizeof parent, "%s", path);
    for (char *slash = strchr(parent + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        mkdir(parent, 0700); /* an existing directory is fine; fopen reports the rest */
        *slash = '/';
    }
}

void tu_cli_argv(const char **argv, size_t cap, const char *cli, const char *const *args)
{
    size_t n = 0;
    argv[n++] = cli;
    for (; args[n - 1] && n + 1 < cap; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
}

void tu_write_file(const char *path, const char *text)
{
    make_parents(path);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

void tu_write_text_chain_ssd(const char *path, const char *strings_fmu, const char *notes_fmu,
                             const char *consumer, double stop_time)
{
    char text[4096];
    snprintf(text, sizeof text,
             "<?xml version=\"1.0\"?>\n"
             "<ssd:SystemStructureDescription version=\"1.0\" name=\"s\" "
             "xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\">\n"
             "<ssd:System name=\"s\"><ssd:Elements>\n"
             "<ssd:Component name=\"g\" source=\"file://%s\"/>\n"
             "<ssd:Component name=\"n\" source=\"file://%s\"/>\n"
             "<ssd:Component name=\"f\" source=\"file://%s\"/>\n"
             "</ssd:Elements><ssd:Connections>\n"
             "<ssd:Connection startElement=\"g\" startConnector=\"Steps_output\" "
             "endElement=\"f\" endConnector=\"String_input\"/>\n"
             "<ssd:Connection startElement=\"n\" startConnector=\"trail\" "
             "endElement=\"f\" endConnector=\"Binary_input\"/>\n"
             "</ssd:Connections></ssd:System>\n"
             "<ssd:DefaultExperiment startTime=\"0\" stopTime=\"%.17g\"/>\n"
             "</ssd:SystemStructureDescription>\n",
             strings_fmu, notes_fmu, consumer, stop_time);
    tu_write_file(path, text);
}

char *tu_read_file(const char *path, size_t *size)
{
    static char *text;
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("%s: cannot open for reading", path);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long length = ftell(f);
    assert_true(length >= 0);
    assert_int_equal(fseek(f, 0, SEEK_SET), 0);
    char *bigger = realloc(text, (size_t)length + 1);
    assert_non_null(bigger);
    text = bigger;
    assert_int_equal(fread(text, 1, (size_t)length, f), (size_t)length);
    fclose(f);
    text[length] = '\0';
    if (size)
        *size = (size_t)length;
    return text;
}

rtcosim_csv *tu_csv(const char *text)
{
    rtcosim_csv *table = NULL;
    rtcosim_error err;
    if (rtcosim_csv_read_memory("in.csv", text, strlen(text), &table, &err) != RTCOSIM_OK)
        fail_msg("unexpected error: %s", err.message);
    return table;
}

void tu_patch_file(const char *path, const char *find, const char *replace)
{
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    char buf[65536];
    size_t n = fread(buf, 1, sizeof buf, f);
    size_t len = strlen(find);
    assert_int_equal(strlen(replace), len);
    char *hit = NULL;
    for (size_t i = 0; i + len <= n && !hit; i++)
        if (memcmp(buf + i, find, len) == 0)
            hit = buf + i;
    assert_non_null(hit);
    assert_int_equal(fseek(f, (long)(hit - buf), SEEK_SET), 0);
    assert_int_equal(fwrite(replace, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

void tu_zip(const char *zip_path, const tu_entry *entries, size_t n)
{
    int code = 0;
    zip_t *za = zip_open(zip_path, ZIP_CREATE | ZIP_TRUNCATE, &code);
    assert_non_null(za);
    void *zero_buffers[16] = {0};
    size_t zero_count = 0;
    for (size_t i = 0; i < n; i++) {
        const tu_entry *e = &entries[i];
        zip_source_t *src;
        if (e->file) {
            src = zip_source_file(za, e->file, 0, 0);
        } else if (e->zeros) {
            assert_true(zero_count < 16);
            void *z = calloc(1, e->zeros);
            assert_non_null(z);
            zero_buffers[zero_count++] = z;
            src = zip_source_buffer(za, z, e->zeros, 0);
        } else {
            const char *text = e->text ? e->text : "";
            src = zip_source_buffer(za, text, strlen(text), 0);
        }
        assert_non_null(src);
        zip_int64_t index = zip_file_add(za, e->name, src, ZIP_FL_OVERWRITE);
        if (index < 0)
            zip_source_free(src);
        assert_true(index >= 0);
        if (e->store)
            assert_int_equal(zip_set_file_compression(za, (zip_uint64_t)index, ZIP_CM_STORE, 0), 0);
        if (e->mode)
            assert_int_equal(zip_file_set_external_attributes(za, (zip_uint64_t)index, 0,
                                                              ZIP_OPSYS_UNIX,
                                                              (zip_uint32_t)(S_IFREG | e->mode) << 16),
                             0);
        if (e->symlink)
            assert_int_equal(zip_file_set_external_attributes(za, (zip_uint64_t)index, 0,
                                                              ZIP_OPSYS_UNIX,
                                                              (zip_uint32_t)(S_IFLNK | 0777) << 16),
                             0);
    }
    assert_int_equal(zip_close(za), 0);
    for (size_t i = 0; i < zero_count; i++)
        free(zero_buffers[i]);
}

void tu_zip_raw(const char *zip_path, const tu_entry *entries, size_t n)
{
    raw_zip_entry *raw = calloc(n ? n : 1, sizeof *raw);
    char **copies = calloc(n ? n : 1, sizeof *copies);
    assert_non_null(raw);
    assert_non_null(copies);
    for (size_t i = 0; i < n; i++) {
        size_t size = 0;
        const char *data = entries[i].text ? entries[i].text : "";
        if (entries[i].file)
            data = tu_read_file(entries[i].file, &size); /* reused buffer: copy it */
        else
            size = strlen(data);
        copies[i] = malloc(size ? size : 1);
        assert_non_null(copies[i]);
        memcpy(copies[i], data, size);
        raw[i] = (raw_zip_entry){entries[i].name, copies[i], size, 0};
    }
    assert_true(raw_zip_write(zip_path, raw, n));
    for (size_t i = 0; i < n; i++)
        free(copies[i]);
    free(copies);
    free(raw);
}

int64_t tu_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static char log_buffer[65536];
static size_t log_used;

static void capture(void *context, rtcosim_log_level level, const char *category,
                    const char *message)
{
    (void)context;
    int w = snprintf(log_buffer + log_used, sizeof log_buffer - log_used, "%s|%s|%s\n",
                     rtcosim_log_level_name(level), category ? category : "", message);
    if (w > 0 && (size_t)w < sizeof log_buffer - log_used)
        log_used += (size_t)w;
}

void tu_log_capture(int level)
{
    tu_log_reset();
    rtcosim_log_set_level((rtcosim_log_level)level);
    rtcosim_log_set_handler(capture, NULL);
}

const char *tu_log_text(void) { return log_buffer; }

void tu_log_reset(void)
{
    log_used = 0;
    log_buffer[0] = '\0';
}

/* Whether a thread of pid (not its main thread: other_only) is blocked in
 * clock_nanosleep, or also in nanosleep (plain_too); the kernel's
 * /proc/PID/task/TID/syscall starts with the number of the system call a
 * blocked thread is in. */
static bool thread_sleeps(pid_t pid, bool other_only, bool plain_too)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/task", (long)pid);
    DIR *d = opendir(path);
    struct dirent *e;
    bool sleeping = false;
    while (!sleeping && d && (e = readdir(d))) {
        if (e->d_name[0] == '.' || (other_only && atol(e->d_name) == (long)pid))
            continue;
        char file[320];
        snprintf(file, sizeof file, "/proc/%ld/task/%s/syscall", (long)pid, e->d_name);
        FILE *f = fopen(file, "r");
        long nr = -1;
        if (f && fscanf(f, "%ld", &nr) == 1)
            sleeping = nr == SYS_clock_nanosleep
#ifdef SYS_nanosleep
                       || (plain_too && nr == SYS_nanosleep)
#endif
                ;
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    return sleeping;
}

bool tu_sleeps_in_nanosleep(pid_t pid) { return thread_sleeps(pid, false, true); }

bool tu_other_thread_in_clock_nanosleep(pid_t pid) { return thread_sleeps(pid, true, false); }

size_t tu_count_lines(const char *path)
{
    size_t size, lines = 0;
    const char *text = tu_read_file(path, &size);
    for (size_t k = 0; k < size; k++)
        lines += text[k] == '\n';
    return lines;
}

void tu_assert_no_child_left(void)
{
    errno = 0;
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
}
