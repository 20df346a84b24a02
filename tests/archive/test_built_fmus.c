/* Every .fmu the build zips (cmake/RtcosimFmu.cmake) is a clean archive:
 * libzip opens it with its strict consistency check (ZIP_CHECKCONS: each local
 * header agrees with the central directory), every entry inflates to its
 * declared size with a matching CRC, and the shared extractor takes it without
 * logging anything. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <zip.h>

#include "archive/archive.h"
#include "rtcosim/log.h"
#include "rtcosim_test_fmus.h"

static int log_messages;

static void count_messages(void *context, rtcosim_log_level level, const char *category,
                           const char *message)
{
    (void)context;
    (void)level;
    (void)category;
    (void)message;
    log_messages++;
}

static void check_archive(const char *path)
{
    int code = 0;
    zip_t *za = zip_open(path, ZIP_RDONLY | ZIP_CHECKCONS, &code);
    if (!za) {
        zip_error_t ze;
        zip_error_init_with_code(&ze, code);
        fail_msg("%s: %s", path, zip_error_strerror(&ze));
    }
    zip_int64_t count = zip_get_num_entries(za, 0);
    assert_true(count >= 2); /* modelDescription.xml and a binary at least */
    static char buf[1 << 16];
    for (zip_int64_t i = 0; i < count; i++) {
        zip_stat_t st;
        assert_int_equal(zip_stat_index(za, (zip_uint64_t)i, 0, &st), 0);
        zip_file_t *zf = zip_fopen_index(za, (zip_uint64_t)i, 0);
        assert_non_null(zf);
        uint64_t total = 0;
        for (zip_int64_t got; (got = zip_fread(zf, buf, sizeof buf)) != 0;) {
            if (got < 0)
                fail_msg("%s: entry '%s': %s", path, st.name, zip_file_strerror(zf));
            total += (uint64_t)got;
        }
        assert_int_equal(total, st.size);
        zip_fclose(zf);
    }
    zip_discard(za);

    log_messages = 0;
    rtcosim_log_set_level(RTCOSIM_LOG_TRACE);
    rtcosim_log_set_handler(count_messages, NULL);
    char *dir = NULL;
    rtcosim_error err;
    const rtcosim_archive_limits limits = {.kind = "FMU"};
    if (rtcosim_archive_extract(path, NULL, &limits, &dir, &err) != RTCOSIM_OK)
        fail_msg("%s", err.message);
    rtcosim_log_set_handler(NULL, NULL);
    assert_int_equal(log_messages, 0);
    rtcosim_archive_remove_dir(dir);
    free(dir);
}

static void every_built_fmu_passes_the_strict_consistency_check(void **unused)
{
    (void)unused;
    DIR *d = opendir(RTCOSIM_FMU_DIR);
    assert_non_null(d);
    int checked = 0;
    bool saw_dahlquist = false;
    char path[4096];
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".fmu") != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", RTCOSIM_FMU_DIR, e->d_name);
        check_archive(path);
        saw_dahlquist |= strcmp(path, RTCOSIM_FMU_DAHLQUIST_FMI2) == 0;
        checked++;
    }
    closedir(d);
    assert_true(saw_dahlquist); /* the directory is the one the build writes to */
    assert_true(checked >= 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_built_fmu_passes_the_strict_consistency_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
