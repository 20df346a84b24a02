/* libFuzzer target for archive extraction (src/archive, shared by the FMU
 * loader and the SSP reader). Input that starts with "PK" is
 * taken as a zip file as is; other input describes an archive as text (entries
 * separated by "\n--\n", each "name\ncontents", a name prefixed "@" marks a
 * symbolic link; a name may repeat), which lets the fuzzer reach entry names
 * and the duplicate-entry rules directly. Oracle:
 * no crash or leak, and nothing is left in (or written beside) the private
 * extraction directory once it is removed. */
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive/archive.h"
#include "util/raw_zip.h"

static char parent[64];
static char zip_path[96];

static int entries_in(const char *dir)
{
    DIR *d = opendir(dir);
    int count = 0;
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));)
        count += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return count;
}

static void remove_parent(void)
{
    unlink(zip_path);
    rmdir(parent);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(parent, sizeof parent, "/tmp/rtcosim-fuzz-XXXXXX");
    if (!mkdtemp(parent))
        abort();
    /* The archive lives beside the parent, so the parent holds only what the
     * extractor creates. */
    snprintf(zip_path, sizeof zip_path, "%s.zip", parent);
    atexit(remove_parent);
    return 0;
}

/* Build a zip of stored entries from the text description, exactly as
 * listed (raw_zip.c, not libzip, so that a name may appear twice and the
 * duplicate-entry rules are reached). */
static bool build_archive(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    size_t cap = 1;
    for (size_t i = 0; i + 3 < size; i++)
        cap += memcmp(data + i, "\n--\n", 4) == 0;
    raw_zip_entry *entries = calloc(cap, sizeof *entries);
    if (!text || !entries) {
        free(text);
        free(entries);
        return false;
    }
    memcpy(text, data, size);
    text[size] = '\0';
    size_t n = 0;
    for (char *entry = text; entry && n < cap;) {
        char *next = strstr(entry, "\n--\n");
        if (next) {
            *next = '\0';
            next += 4;
        }
        char *contents = strchr(entry, '\n');
        if (contents)
            *contents++ = '\0';
        else
            contents = entry + strlen(entry);
        bool link = entry[0] == '@';
        entries[n++] = (raw_zip_entry){entry + link, contents, strlen(contents),
                                       link ? (uint32_t)(S_IFLNK | 0777) : 0};
        entry = next;
    }
    bool ok = raw_zip_write(zip_path, entries, n);
    free(entries);
    free(text);
    if (!ok)
        unlink(zip_path);
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size >= 2 && data[0] == 'P' && data[1] == 'K') {
        FILE *f = fopen(zip_path, "wb");
        if (!f || fwrite(data, 1, size, f) != size) {
            if (f)
                fclose(f);
            return 0;
        }
        fclose(f);
    } else if (!build_archive(data, size)) {
        return 0;
    }
    char *dir = NULL;
    rtcosim_error err;
    const rtcosim_archive_limits limits = {.kind = "FMU", .max_unpacked_bytes = 1 << 20};
    if (rtcosim_archive_extract(zip_path, parent, &limits, &dir, &err) == RTCOSIM_OK) {
        rtcosim_archive_remove_dir(dir);
        free(dir);
    }
    if (entries_in(parent) != 0)
        abort(); /* something escaped the extraction directory or was left behind */
    unlink(zip_path);
    return 0;
}
