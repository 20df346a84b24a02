/* util_read_text_file: from a source that is not a regular file a NUL byte
 * ends the read at once (/dev/zero would otherwise be read without end);
 * a regular file is read whole, NUL or not (its reader names the line);
 * util_read_file reads binary data from a pipe to its end. */
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

#include "util/read_file.h"
#include "util/test_util.h"

static void an_endless_binary_source_is_refused_at_once(void **state)
{
    (void)state;
    struct stat sb;
    if (stat("/dev/zero", &sb) != 0)
        skip();
    char *data = (char *)1;
    size_t size = 7;
    rtcosim_error err;
    assert_int_equal(util_read_text_file("/dev/zero", "/dev/zero", "input file", &data, &size,
                                         &err), RTCOSIM_EFORMAT);
    assert_null(data);
    assert_int_equal(size, 0);
    assert_string_equal(err.message, "/dev/zero: not a text input file (a NUL byte at byte 0)");
}

/* A pipe holding text, then binary data: text read whole; with a NUL the
 * text reader stops at it, the plain reader reads every byte. */
static size_t read_pipe(const char *bytes, size_t n, bool text, char **data, rtcosim_status *st)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        _exit(write(fds[1], bytes, n) == (ssize_t)n ? 0 : 1);
    }
    close(fds[1]);
    char path[64];
    snprintf(path, sizeof path, "/dev/fd/%d", fds[0]);
    size_t size = 0;
    rtcosim_error err;
    *st = text ? util_read_text_file(path, "pipe", NULL, data, &size, &err)
               : util_read_file(path, "pipe", NULL, data, &size, &err);
    if (*st != RTCOSIM_OK)
        assert_string_equal(err.message, "pipe: not a text file (a NUL byte at byte 5)");
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    return size;
}

static void a_pipe_is_read_whole_unless_text_meets_a_nul(void **state)
{
    (void)state;
    char *data = NULL;
    rtcosim_status st;
    assert_int_equal(read_pipe("time,u\n0,1\n", 11, true, &data, &st), 11);
    assert_int_equal(st, RTCOSIM_OK);
    assert_memory_equal(data, "time,u\n0,1\n", 11);
    free(data);
    static const char binary[] = {'t', 'i', 'm', 'e', ',', 0, 1, 2};
    assert_int_equal(read_pipe(binary, sizeof binary, false, &data, &st), sizeof binary);
    assert_int_equal(st, RTCOSIM_OK);
    assert_memory_equal(data, binary, sizeof binary);
    free(data);
    data = (char *)1;
    read_pipe(binary, sizeof binary, true, &data, &st);
    assert_int_equal(st, RTCOSIM_EFORMAT);
    assert_null(data);
}

static bool begins_as_blf(const char *data, size_t size)
{
    return size >= 4 && memcmp(data, "LOGG", 4) == 0;
}

/* A pipe holding n bytes, as a path (/dev/fd/N; close fds[0] after). */
static const char *pipe_of(const void *bytes, size_t n, int fds[2], char *path, size_t cap)
{
    assert_int_equal(pipe(fds), 0);
    assert_int_equal(write(fds[1], bytes, n), (ssize_t)n);
    close(fds[1]);
    snprintf(path, cap, "/dev/fd/%d", fds[0]);
    return path;
}

/* util_file_view_open with a binary test: /dev/zero (not binary by it) is
 * text and refused at its first byte; a pipe that begins as binary is read
 * whole, NUL bytes and all; without the test it would be read whole
 * whatever it holds. */
static void a_view_of_a_stream_is_text_unless_it_begins_as_binary(void **state)
{
    (void)state;
    struct stat sb;
    rtcosim_error err;
    util_file_view view;
    if (stat("/dev/zero", &sb) == 0) {
        assert_int_equal(util_file_view_open("/dev/zero", "/dev/zero", "CAN log", begins_as_blf,
                                             &view, &err), RTCOSIM_EFORMAT);
        assert_string_equal(err.message, "/dev/zero: not a text CAN log (a NUL byte at byte 0)");
        assert_null(view.data);
    }
    static const char blf[] = {'L', 'O', 'G', 'G', 0, 0, 1, 0};
    int fds[2];
    char path[64];
    pipe_of(blf, sizeof blf, fds, path, sizeof path);
    assert_int_equal(util_file_view_open(path, "pipe", "CAN log", begins_as_blf, &view, &err),
                     RTCOSIM_OK);
    assert_false(view.mapped);
    assert_int_equal(view.size, sizeof blf);
    assert_memory_equal(view.data, blf, sizeof blf);
    util_file_view_close(&view);
    close(fds[0]);
    static const char candump[] = "(0.000000) can0 123#00\n\0";
    pipe_of(candump, sizeof candump - 1, fds, path, sizeof path);
    assert_int_equal(util_file_view_open(path, "pipe", "CAN log", begins_as_blf, &view, &err),
                     RTCOSIM_EFORMAT);
    assert_string_equal(err.message, "pipe: not a text CAN log (a NUL byte at byte 23)");
    close(fds[0]);
}

/* XML from a stream: /dev/zero refused at its first byte; UTF-16 (its NUL
 * bytes are text) read whole; a binary stream ends past the limit. */
static void an_xml_stream_is_text_unless_utf16_and_a_binary_one_is_bounded(void **state)
{
    (void)state;
    char *data = (char *)1;
    size_t size = 0;
    rtcosim_error err;
    struct stat sb;
    if (stat("/dev/zero", &sb) == 0) {
        assert_int_equal(util_read_xml_file("/dev/zero", "z.ssd", NULL, &data, &size, &err),
                         RTCOSIM_EFORMAT);
        assert_string_equal(err.message, "z.ssd: not a text file (a NUL byte at byte 0)");
        assert_null(data);
        assert_int_equal(util_read_file_limit("/dev/zero", "state", NULL, 100000, &data, &size,
                                              &err), RTCOSIM_EFORMAT);
        assert_string_equal(err.message, "state: more than 100000 bytes from a stream (not a "
                                         "regular file)");
        assert_null(data);
    }
    static const char utf16[] = {'<', 0, 'a', 0, '/', 0, '>', 0};
    int fds[2];
    char path[64];
    pipe_of(utf16, sizeof utf16, fds, path, sizeof path);
    assert_int_equal(util_read_xml_file(path, "pipe", NULL, &data, &size, &err), RTCOSIM_OK);
    assert_int_equal(size, sizeof utf16);
    assert_memory_equal(data, utf16, sizeof utf16);
    free(data);
    close(fds[0]);
}

static void a_regular_file_is_read_whole_nul_or_not(void **state)
{
    (void)state;
    char *dir = tu_make_dir();
    const char *path = tu_path(dir, "nul.csv");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite("time\n\0\n", 1, 7, f), 7);
    assert_int_equal(fclose(f), 0);
    char *data = NULL;
    size_t size = 0;
    rtcosim_error err;
    assert_int_equal(util_read_text_file(path, path, NULL, &data, &size, &err), RTCOSIM_OK);
    assert_int_equal(size, 7);
    free(data);
    tu_drop_dir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(an_endless_binary_source_is_refused_at_once),
        cmocka_unit_test(a_pipe_is_read_whole_unless_text_meets_a_nul),
        cmocka_unit_test(a_view_of_a_stream_is_text_unless_it_begins_as_binary),
        cmocka_unit_test(an_xml_stream_is_text_unless_utf16_and_a_binary_one_is_bounded),
        cmocka_unit_test(a_regular_file_is_read_whole_nul_or_not),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
