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
#include <sys/stat.h>
#include <cmocka.h>
#include <zip.h>

#include "archive/archive.h"
#include "util/test_util.h"
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

void tu_write_file(const char *path, const char *text)
{
    make_parents(path);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
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

/* CRC-32 of APPNOTE 4.4.7 (reflected polynomial 0xEDB88320), bit by bit. */
static uint32_t crc32_of(const unsigned char *data, size_t size)
{
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < size; i++) {
        crc ^= data[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static void put16(FILE *f, unsigned v)
{
    fputc((int)(v & 0xFF), f);
    fputc((int)((v >> 8) & 0xFF), f);
}

static void put32(FILE *f, uint32_t v)
{
    put16(f, v & 0xFFFF);
    put16(f, v >> 16);
}

void tu_zip_raw(const char *zip_path, const tu_entry *entries, size_t n)
{
    FILE *f = fopen(zip_path, "wb");
    assert_non_null(f);
    assert_true(n < 256);
    uint32_t offsets[256], sizes[256], crcs[256];
    for (size_t i = 0; i < n; i++) {
        const tu_entry *e = &entries[i];
        size_t size = 0;
        char *copy = NULL;
        if (e->file) {
            char *data = tu_read_file(e->file, &size);
            copy = malloc(size ? size : 1);
            assert_non_null(copy);
            memcpy(copy, data, size);
        } else {
            const char *text = e->text ? e->text : "";
            size = strlen(text);
            copy = malloc(size + 1);
            assert_non_null(copy);
            memcpy(copy, text, size + 1);
        }
        offsets[i] = (uint32_t)ftell(f);
        sizes[i] = (uint32_t)size;
        crcs[i] = crc32_of((const unsigned char *)copy, size);
        put32(f, 0x04034b50u); /* local file header */
        put16(f, 20);          /* version needed */
        put16(f, 0);           /* flags */
        put16(f, 0);           /* stored */
        put16(f, 0);           /* time */
        put16(f, 0x21);        /* date 1980-01-01 */
        put32(f, crcs[i]);
        put32(f, sizes[i]);
        put32(f, sizes[i]);
        put16(f, (unsigned)strlen(e->name));
        put16(f, 0);
        fwrite(e->name, 1, strlen(e->name), f);
        fwrite(copy, 1, size, f);
        free(copy);
    }
    uint32_t central = (uint32_t)ftell(f);
    for (size_t i = 0; i < n; i++) {
        put32(f, 0x02014b50u); /* central directory header */
        put16(f, 20);
        put16(f, 20);
        put16(f, 0);
        put16(f, 0);
        put16(f, 0);
        put16(f, 0x21);
        put32(f, crcs[i]);
        put32(f, sizes[i]);
        put32(f, sizes[i]);
        put16(f, (unsigned)strlen(entries[i].name));
        put16(f, 0); /* extra */
        put16(f, 0); /* comment */
        put16(f, 0); /* disk */
        put16(f, 0); /* internal attributes */
        put32(f, 0); /* external attributes */
        put32(f, offsets[i]);
        fwrite(entries[i].name, 1, strlen(entries[i].name), f);
    }
    uint32_t end = (uint32_t)ftell(f);
    put32(f, 0x06054b50u); /* end of central directory */
    put16(f, 0);
    put16(f, 0);
    put16(f, (unsigned)n);
    put16(f, (unsigned)n);
    put32(f, end - central);
    put32(f, central);
    put16(f, 0);
    assert_int_equal(fclose(f), 0);
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
