/* rtcosim_archive_extract on good, hostile and damaged archives: what lands in
 * the private directory (contents and modes compared with what the test wrote),
 * and for each refusal its status, a one-line message naming the archive and
 * the entry, and no directory left behind. Archives are built here with libzip. */
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
#include <zip.h>

#include "archive/archive.h"
#include "util/test_util.h"
#include "rtcosim/log.h"

typedef struct fixture {
    char *work;   /* where the test writes archives */
    char *tmp;    /* parent of the extraction directories */
    char zip[4096];
    char *dir;    /* the last successful extraction, removed in teardown */
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->work = tu_make_dir();
    f->tmp = tu_make_dir();
    snprintf(f->zip, sizeof f->zip, "%s/model.fmu", f->work);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    rtcosim_archive_remove_dir(f->dir);
    free(f->dir);
    tu_drop_dir(f->work);
    tu_drop_dir(f->tmp);
    free(f);
    return 0;
}

static const rtcosim_archive_limits fmu_limits = {.kind = "FMU"};

static void expect_failure_with(fixture *f, const rtcosim_archive_limits *limits,
                                rtcosim_status status, const char *message)
{
    char *dir = (char *)"untouched";
    rtcosim_error err;
    rtcosim_status st = rtcosim_archive_extract(f->zip, f->tmp, limits, &dir, &err);
    if (st != status || !strstr(err.message, message))
        fail_msg("got status %d \"%s\"; want %d \"%s\"", st, st ? err.message : "", status,
                 message);
    assert_null(dir);
    assert_int_equal(strncmp(err.message, f->zip, strlen(f->zip)), 0);
    assert_null(strchr(err.message, '\n'));
    assert_int_equal(tu_count_entries(f->tmp), 0);
}

static void expect_failure(fixture *f, rtcosim_status status, const char *message)
{
    expect_failure_with(f, &fmu_limits, status, message);
}

static const char *extract(fixture *f, const rtcosim_archive_limits *limits)
{
    rtcosim_error err;
    if (rtcosim_archive_extract(f->zip, f->tmp, limits, &f->dir, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    return f->dir;
}

static void files_and_directories_are_extracted_with_their_contents(void **state)
{
    fixture *f = *state;
    tu_entry e[] = {{.name = "modelDescription.xml", .text = "<m/>"},
                    {.name = "resources/", .text = ""},
                    {.name = "resources/empty/", .text = ""},
                    {.name = "resources/deep/er/data.txt", .text = "1 2 3\n", .store = true},
                    {.name = "./documentation/index.html", .text = "<html/>"}};
    tu_zip(f->zip, e, 5);
    const char *dir = extract(f, &fmu_limits);
    assert_string_equal(tu_read_file(tu_path(dir, "modelDescription.xml"), NULL), "<m/>");
    assert_string_equal(tu_read_file(tu_path(dir, "resources/deep/er/data.txt"), NULL), "1 2 3\n");
    assert_string_equal(tu_read_file(tu_path(dir, "documentation/index.html"), NULL), "<html/>");
    struct stat sb;
    assert_int_equal(stat(tu_path(dir, "resources/empty"), &sb), 0);
    assert_true(S_ISDIR(sb.st_mode));
    assert_int_equal(stat(dir, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0700); /* private to the user */
    /* The directory and its owner mark beside it (dir.owner: this pid). */
    assert_int_equal(tu_count_entries(f->tmp), 2);
    char owner[600];
    snprintf(owner, sizeof owner, "%s.owner", dir);
    assert_int_equal(strtol(tu_read_file(owner, NULL), NULL, 10), (long)getpid());
    rtcosim_archive_remove_dir(f->dir);
    assert_int_equal(tu_count_entries(f->tmp), 0);
}

static void the_kind_names_the_temporary_directory(void **state)
{
    fixture *f = *state;
    tu_entry e[] = {{.name = "SystemStructure.ssd", .text = "<s/>"}};
    tu_zip(f->zip, e, 1);
    const rtcosim_archive_limits ssp = {.kind = "SSP"};
    const char *dir = extract(f, &ssp);
    char prefix[4200];
    snprintf(prefix, sizeof prefix, "%s/rtcosim-ssp-", f->tmp);
    assert_int_equal(strncmp(dir, prefix, strlen(prefix)), 0);
    assert_int_equal(strlen(dir), strlen(prefix) + 6); /* mkdtemp's XXXXXX */
}

static void backslash_separated_names_become_directories(void **state)
{
    fixture *f = *state;
    tu_entry e[] = {{.name = "binaries\\win64\\model.dll", .text = "MZ"}};
    tu_zip(f->zip, e, 1);
    const char *dir = extract(f, NULL);
    assert_string_equal(tu_read_file(tu_path(dir, "binaries/win64/model.dll"), NULL), "MZ");
}

static void entry_escaping_the_directory_is_refused(void **state)
{
    fixture *f = *state;
    tu_entry e[] = {{.name = "modelDescription.xml", .text = "<m/>"},
                    {.name = "../evil", .text = "gotcha"}};
    tu_zip(f->zip, e, 2);
    expect_failure(f, RTCOSIM_EFORMAT,
                   "model.fmu: entry '../evil' would be extracted outside the FMU directory");
    assert_int_not_equal(access(tu_path(f->tmp, "../evil"), F_OK), 0);
    assert_int_not_equal(access(tu_path(f->tmp, "evil"), F_OK), 0);
}

static void nested_escape_and_backslash_escape_are_refused(void **state)
{
    fixture *f = *state;
    tu_entry e[] = {{.name = "resources/../../x", .text = "gotcha"}};
    tu_zip(f->zip, e, 1);
    expect_failure(f, RTCOSIM_EFORMAT, "entry 'resources/../../x' would be extracted outside");
    tu_entry w[] = {{.name = "resources\\..\\..\\x", .text = "gotcha"}};
    tu_zip(f->zip, w, 1);
    expect_failure(f, RTCOSIM_EFORMAT, "would be extracted outside the FMU directory");
}

static void absolute_entry_is_refused(void **state)
{
    fixture *f = *state;
    tu_entry e[] = {{.name = "/etc/rtcosim-evil", .text = "gotcha"}};
    tu_zip(f->zip, e, 1);
    expect_failure(f, RTCOSIM_EFORMAT, "entry '/etc/rtcosim-evil' has an absolute path");
    tu_entry w[] = {{.name = "C:\\Windows\\evil.dll", .text = "gotcha"}};
    tu_zip(f->zip, w, 1);
    expect_failure(f, RTCOSIM_EFORMAT, "entry 'C:\\Windows\\evil.dll' has an absolute path");
}

static void empty_path_component_is_refused(void **state)
{
    fixture *f = *state;
    tu_entry e[] = {{.name = "resources//data.txt", .text = "x"}};
    tu_zip(f->zip, e, 1);
    expect_failure(f, RTCOSIM_EFORMAT,
                   "model.fmu: entry 'resources//data.txt' has an empty path component");
}

static void symbolic_link_entry_is_refused(void **state)
{
    fixture *f = *state;
    tu_entry e[] = {{.name = "modelDescription.xml", .text = "<m/>"},
                    {.name = "binaries/linux64/model.so", .text = "/lib/x86_64-linux-gnu/libc.so.6",
                     .symlink = true}};
    tu_zip(f->zip, e, 2);
    expect_failure(f, RTCOSIM_EFORMAT, "entry 'binaries/linux64/model.so' is a symbolic link");
}

/* The check runs on every name before the first byte is written: a bad entry
 * at the end leaves nothing of the good ones before it. */
static void a_bad_last_entry_stops_extraction_before_anything_is_written(void **state)
{
    fixture *f = *state;
    tu_entry e[] = {{.name = "a.txt", .text = "a"},
                    {.name = "b.txt", .text = "b"},
                    {.name = "../c.txt", .text = "c"}};
    tu_zip(f->zip, e, 3);
    expect_failure(f, RTCOSIM_EFORMAT, "entry '../c.txt' would be extracted outside");
    assert_int_not_equal(access(tu_path(f->work, "c.txt"), F_OK), 0);
}

static void file_in_the_way_of_a_directory_is_refused(void **state)
{
    fixture *f = *state;
    tu_entry e[] = {{.name = "resources", .text = "a file"},
                    {.name = "resources/data.txt", .text = "x"}};
    tu_zip(f->zip, e, 2);
    expect_failure(f, RTCOSIM_EFORMAT,
                   "model.fmu: entry 'resources/data.txt' clashes with the file 'resources'");
}

static void file_where_a_directory_was_extracted_is_refused(void **state)
{
    fixture *f = *state;
    tu_entry e[] = {{.name = "data/", .text = ""}, {.name = "data", .text = "x"}};
    tu_zip(f->zip, e, 2);
    expect_failure(f, RTCOSIM_EFORMAT,
                   "model.fmu: entry 'data': appears twice or clashes with a directory");
}

/* The Reference FMUs' Roberts lists its extra/ folder twice with identical
 * entries: the same name, size and CRC-32 is one file. */
static void identical_duplicate_entries_are_extracted_once(void **state)
{
    fixture *f = *state;
    tu_entry e[] = {{.name = "modelDescription.xml", .text = "<m/>"},
                    {.name = "extra/", .text = ""},
                    {.name = "extra/notes.txt", .text = "same bytes\n"},
                    {.name = "extra/", .text = ""},
                    {.name = "extra/notes.txt", .text = "same bytes\n"}};
    tu_zip_raw(f->zip, e, 5);
    const char *dir = extract(f, &fmu_limits);
    assert_string_equal(tu_read_file(tu_path(dir, "extra/notes.txt"), NULL), "same bytes\n");
    assert_int_equal(tu_count_entries(tu_path(dir, "extra")), 1);
    assert_int_equal(tu_count_entries(dir), 2);
}

static void conflicting_duplicate_entries_are_refused(void **state)
{
    fixture *f = *state;
    /* Same size, different bytes (so a different CRC-32). */
    tu_entry e[] = {{.name = "resources/data.txt", .text = "one\n"},
                    {.name = "modelDescription.xml", .text = "<m/>"},
                    {.name = "resources/data.txt", .text = "two\n"}};
    tu_zip_raw(f->zip, e, 3);
    expect_failure(f, RTCOSIM_EFORMAT,
                   "model.fmu: entry 'resources/data.txt' appears twice with different contents "
                   "(4 bytes, CRC-32 ");
    /* Different sizes. */
    tu_entry g[] = {{.name = "a", .text = "1"}, {.name = "a", .text = "12"}};
    tu_zip_raw(f->zip, g, 2);
    expect_failure(f, RTCOSIM_EFORMAT, "model.fmu: entry 'a' appears twice with different contents");
}

static void duplicates_do_not_excuse_escapes(void **state)
{
    fixture *f = *state;
    tu_entry e[] = {{.name = "../evil", .text = "x"}, {.name = "../evil", .text = "x"}};
    tu_zip_raw(f->zip, e, 2);
    expect_failure(f, RTCOSIM_EFORMAT, "model.fmu: entry '../evil' would be extracted outside");
    tu_entry g[] = {{.name = "/etc/evil", .text = "x"}, {.name = "/etc/evil", .text = "x"}};
    tu_zip_raw(f->zip, g, 2);
    expect_failure(f, RTCOSIM_EFORMAT, "model.fmu: entry '/etc/evil'");
}

static void more_entries_than_the_limit_are_refused(void **state)
{
    fixture *f = *state;
    tu_entry e[] = {{.name = "a", .text = "1"}, {.name = "b", .text = "2"}, {.name = "c", .text = "3"}};
    tu_zip(f->zip, e, 3);
    const rtcosim_archive_limits two = {.kind = "FMU", .max_entries = 2};
    expect_failure_with(f, &two, RTCOSIM_EFORMAT,
                        "model.fmu: 3 entries is more than the limit of 2");
    const rtcosim_archive_limits three = {.kind = "FMU", .max_entries = 3};
    extract(f, &three);
}

/* 1 MiB of zeros deflates to about a kilobyte: the declared size is what
 * refuses it, before anything is written. */
static void declared_size_beyond_the_limit_is_refused_up_front(void **state)
{
    fixture *f = *state;
    tu_entry e[] = {{.name = "small.txt", .text = "0123456789"},
                    {.name = "resources/zeros.bin", .zeros = 1 << 20}};
    tu_zip(f->zip, e, 2);
    const rtcosim_archive_limits limit = {.kind = "FMU", .max_unpacked_bytes = (1 << 20) + 9};
    expect_failure_with(f, &limit, RTCOSIM_EFORMAT,
                        "model.fmu: entry 'resources/zeros.bin': archive inflates beyond the "
                        "limit of 1048585 bytes");
    const rtcosim_archive_limits exact = {.kind = "FMU", .max_unpacked_bytes = (1 << 20) + 10};
    const char *dir = extract(f, &exact);
    struct stat sb;
    assert_int_equal(stat(tu_path(dir, "resources/zeros.bin"), &sb), 0);
    assert_int_equal(sb.st_size, 1 << 20);
}

/* Overwrite the declared uncompressed size of entry `name` in its local
 * header (APPNOTE 4.3.7: offset 22) and its central directory record (4.3.12:
 * offset 24), as a lying archiver would. */
static void patch_declared_size(const char *zip_path, const char *name, uint32_t size)
{
    size_t n;
    char *data = tu_read_file(zip_path, &n);
    size_t len = strlen(name);
    int patched = 0;
    for (size_t i = 0; i + 46 + len <= n; i++) {
        if (data[i] != 'P' || data[i + 1] != 'K')
            continue;
        size_t at = 0, name_at = 0;
        if (data[i + 2] == 3 && data[i + 3] == 4)
            at = 22, name_at = 30;
        else if (data[i + 2] == 1 && data[i + 3] == 2)
            at = 24, name_at = 46;
        else
            continue;
        if (memcmp(data + i + name_at, name, len) != 0)
            continue;
        for (int b = 0; b < 4; b++)
            data[i + at + (size_t)b] = (char)((size >> (8 * b)) & 0xff);
        patched++;
    }
    assert_int_equal(patched, 2);
    FILE *out = fopen(zip_path, "wb");
    assert_non_null(out);
    assert_int_equal(fwrite(data, 1, n, out), n);
    fclose(out);
}

/* A size liar: an entry that declares 1000 bytes and inflates to 4 MiB is
 * stopped after at most its declared size plus one copy buffer, whatever
 * the total limit; nothing is left behind. */
static void entry_inflating_past_its_declared_size_is_refused(void **state)
{
    fixture *f = *state;
    tu_entry e[] = {{.name = "modelDescription.xml", .text = "<m/>"},
                    {.name = "binaries/liar.bin", .zeros = 4 << 20}};
    tu_zip(f->zip, e, 2);
    patch_declared_size(f->zip, "binaries/liar.bin", 1000);
    expect_failure(f, RTCOSIM_EFORMAT,
                   "model.fmu: entry 'binaries/liar.bin': inflates past its declared size of "
                   "1000 bytes");
}

static void corrupted_entry_fails_its_checksum(void **state)
{
    fixture *f = *state;
    tu_entry e[] = {{.name = "modelDescription.xml", .text = "<m/>"},
                    {.name = "resources/data.txt", .text = "PAYLOAD-0123456789", .store = true}};
    tu_zip(f->zip, e, 2);
    tu_patch_file(f->zip, "PAYLOAD-0123456789", "PAYLOAD-0123456780");
    expect_failure(f, RTCOSIM_EFORMAT, "model.fmu: entry 'resources/data.txt': CRC error");
}

static void encrypted_entry_is_refused(void **state)
{
    fixture *f = *state;
    if (!zip_encryption_method_supported(ZIP_EM_AES_256, 1))
        skip(); /* this libzip cannot write encrypted entries */
    int code = 0;
    zip_t *za = zip_open(f->zip, ZIP_CREATE | ZIP_TRUNCATE, &code);
    assert_non_null(za);
    zip_int64_t i = zip_file_add(za, "secret.txt", zip_source_buffer(za, "s", 1, 0), 0);
    assert_true(i >= 0);
    assert_int_equal(zip_file_set_encryption(za, (zip_uint64_t)i, ZIP_EM_AES_256, "pw"), 0);
    assert_int_equal(zip_close(za), 0);
    expect_failure(f, RTCOSIM_EUNSUPPORTED, "model.fmu: entry 'secret.txt' is encrypted");
}

static void executable_entries_stay_executable_and_others_do_not(void **state)
{
    fixture *f = *state;
    tu_entry e[] = {{.name = "resources/tool.sh", .text = "#!/bin/sh\n", .mode = 0755},
                    {.name = "resources/table.csv", .text = "t,y\n", .mode = 0644},
                    {.name = "resources/plain.txt", .text = "no Unix attributes"}};
    tu_zip(f->zip, e, 3);
    const char *dir = extract(f, &fmu_limits);
    struct stat sb;
    assert_int_equal(stat(tu_path(dir, "resources/tool.sh"), &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0700);
    assert_int_equal(stat(tu_path(dir, "resources/table.csv"), &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600);
    assert_int_equal(stat(tu_path(dir, "resources/plain.txt"), &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600);
}

static void unusable_temporary_parent_is_an_io_error(void **state)
{
    fixture *f = *state;
    tu_entry e[] = {{.name = "modelDescription.xml", .text = "<m/>"}};
    tu_zip(f->zip, e, 1);
    char *dir = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_archive_extract(f->zip, tu_path(f->tmp, "missing/dir"), &fmu_limits,
                                             &dir, &err),
                     RTCOSIM_EIO);
    assert_null(dir);
    assert_non_null(strstr(err.message, "model.fmu: cannot create a temporary directory in "));
    assert_non_null(strstr(err.message, "missing/dir: No such file or directory"));
}

static void missing_and_non_zip_files_are_told_apart(void **state)
{
    fixture *f = *state;
    expect_failure(f, RTCOSIM_ENOTFOUND, "model.fmu: cannot open archive: ");
    assert_false(rtcosim_archive_is_zip(f->zip));
    tu_write_file(f->zip, "PK but not really a zip archive\n");
    assert_false(rtcosim_archive_is_zip(f->zip));
    expect_failure(f, RTCOSIM_EFORMAT, "model.fmu: not a zip archive");
    tu_entry e[] = {{.name = "a", .text = "1"}};
    tu_zip(f->zip, e, 1);
    assert_true(rtcosim_archive_is_zip(f->zip));
}

/* Local and central headers that disagree (here: the local modification
 * time, which nothing reads) fail libzip's ZIP_CHECKCONS; such archives come
 * out of real tools, so they are extracted anyway and the fact is logged. */
static void inconsistent_headers_are_tolerated_and_logged(void **state)
{
    fixture *f = *state;
    tu_entry e[] = {{.name = "modelDescription.xml", .text = "<m/>"}};
    tu_zip(f->zip, e, 1);
    FILE *fp = fopen(f->zip, "r+b");
    assert_non_null(fp);
    unsigned char time_field[2]; /* APPNOTE 4.3.7: last mod file time at offset 10 */
    assert_int_equal(fseek(fp, 10, SEEK_SET), 0);
    assert_int_equal(fread(time_field, 1, 2, fp), 2);
    time_field[0] ^= 0x01;
    assert_int_equal(fseek(fp, 10, SEEK_SET), 0);
    assert_int_equal(fwrite(time_field, 1, 2, fp), 2);
    assert_int_equal(fclose(fp), 0);
    int code = 0;
    assert_null(zip_open(f->zip, ZIP_RDONLY | ZIP_CHECKCONS, &code));
    assert_int_equal(code, ZIP_ER_INCONS);

    tu_log_capture(RTCOSIM_LOG_INFO);
    const char *dir = extract(f, &fmu_limits);
    assert_string_equal(tu_read_file(tu_path(dir, "modelDescription.xml"), NULL), "<m/>");
    char expected[4200];
    snprintf(expected, sizeof expected, "info|archive|%s: local and central zip headers disagree",
             f->zip);
    assert_non_null(strstr(tu_log_text(), expected));
    rtcosim_log_set_handler(NULL, NULL);
}

/* Removing an extraction directory must not follow a link out of it. */
static void removal_does_not_follow_symbolic_links(void **state)
{
    fixture *f = *state;
    char outside[4200];
    snprintf(outside, sizeof outside, "%s/keep.txt", f->work);
    tu_write_file(outside, "keep");
    tu_entry e[] = {{.name = "a.txt", .text = "a"}};
    tu_zip(f->zip, e, 1);
    const char *dir = extract(f, &fmu_limits);
    assert_int_equal(symlink(f->work, tu_path(dir, "link")), 0);
    rtcosim_archive_remove_dir(f->dir);
    assert_int_not_equal(access(f->dir, F_OK), 0);
    assert_string_equal(tu_read_file(outside, NULL), "keep");
    rtcosim_archive_remove_dir(NULL);
}

/* A directory whose owner mark names a dead process of this pid namespace is
 * removed with its mark; one owned by a live process, one without a mark and
 * one of another namespace stay. */
static void directories_of_killed_runs_are_removed(void **state)
{
    fixture *f = *state;
    pid_t dead = fork();
    assert_true(dead >= 0);
    if (dead == 0)
        _exit(0);
    waitpid(dead, NULL, 0); /* reaped: kill(dead, 0) fails with ESRCH */
    char ns[128] = {0};
    assert_true(readlink("/proc/self/ns/pid", ns, sizeof ns - 1) > 0);
    struct {
        const char *name;
        long pid;
        const char *ns;
        bool removed;
    } cases[] = {
        {"rtcosim-fmu-dead01", (long)dead, ns, true},
        {"rtcosim-fmu-live01", (long)getppid(), ns, false},
        {"rtcosim-fmu-other1", (long)dead, "pid:[1]", false},
        {"rtcosim-fmu-nomark", 0, NULL, false},
    };
    char path[600], text[200];
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s/binaries/x.so", f->tmp, cases[i].name);
        tu_write_file(path, "ELF");
        if (cases[i].ns) {
            snprintf(path, sizeof path, "%s/%s.owner", f->tmp, cases[i].name);
            snprintf(text, sizeof text, "%ld %s\n", cases[i].pid, cases[i].ns);
            tu_write_file(path, text);
        }
    }
    rtcosim_archive_remove_stale(f->tmp);
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", f->tmp, cases[i].name);
        struct stat sb;
        assert_int_equal(stat(path, &sb) != 0, cases[i].removed);
        snprintf(path, sizeof path, "%s/%s.owner", f->tmp, cases[i].name);
        if (cases[i].ns)
            assert_int_equal(stat(path, &sb) != 0, cases[i].removed);
    }
    assert_int_equal(tu_count_entries(f->tmp), 3 + 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
        T(files_and_directories_are_extracted_with_their_contents),
        T(the_kind_names_the_temporary_directory),
        T(backslash_separated_names_become_directories),
        T(entry_escaping_the_directory_is_refused),
        T(nested_escape_and_backslash_escape_are_refused),
        T(absolute_entry_is_refused),
        T(empty_path_component_is_refused),
        T(symbolic_link_entry_is_refused),
        T(a_bad_last_entry_stops_extraction_before_anything_is_written),
        T(file_in_the_way_of_a_directory_is_refused),
        T(file_where_a_directory_was_extracted_is_refused),
        T(identical_duplicate_entries_are_extracted_once),
        T(conflicting_duplicate_entries_are_refused),
        T(duplicates_do_not_excuse_escapes),
        T(more_entries_than_the_limit_are_refused),
        T(declared_size_beyond_the_limit_is_refused_up_front),
        T(entry_inflating_past_its_declared_size_is_refused),
        T(corrupted_entry_fails_its_checksum),
        T(encrypted_entry_is_refused),
        T(executable_entries_stay_executable_and_others_do_not),
        T(unusable_temporary_parent_is_an_io_error),
        T(missing_and_non_zip_files_are_told_apart),
        T(inconsistent_headers_are_tolerated_and_logged),
        T(removal_does_not_follow_symbolic_links),
        T(directories_of_killed_runs_are_removed),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
