/* Unpacking a .ssp archive (SSP 1.0: a zip with SystemStructure.ssd at the
 * root and resources/) into a private temporary directory. Entry names that
 * are absolute or climb out with ".." are rejected before anything is
 * written, so an archive can never write outside its directory. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zip.h>

#include "system/system_internal.h"

bool system_is_zip(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    unsigned char sig[4] = {0};
    size_t n = fread(sig, 1, 4, f);
    fclose(f);
    return n == 4 && sig[0] == 'P' && sig[1] == 'K' && sig[2] == 3 && sig[3] == 4;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

void system_remove_tree(const char *dir)
{
    if (dir)
        nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A safe entry name: relative, no "..", no empty or "." components other
 * than a trailing slash for directories, no backslashes (zip writers on
 * Windows sometimes use them as separators). */
static bool entry_name_is_safe(const char *name)
{
    if (!*name || name[0] == '/' || strchr(name, '\\'))
        return false;
    const char *p = name;
    while (*p) {
        const char *slash = strchr(p, '/');
        size_t len = slash ? (size_t)(slash - p) : strlen(p);
        if ((len == 2 && p[0] == '.' && p[1] == '.') || (len == 0 && slash))
            return false;
        if (!slash)
            break;
        p = slash + 1;
    }
    return true;
}

/* mkdir -p for the parent directories of rel inside root. */
static bool make_parents(const char *root, const char *rel, bool include_last)
{
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/%s", root, rel);
    if (n < 0 || (size_t)n >= sizeof path)
        return false;
    size_t start = strlen(root) + 1;
    size_t len = strlen(path);
    while (len > start && path[len - 1] == '/')
        path[--len] = '\0';
    for (size_t i = start; i <= len; i++) {
        if (path[i] == '/' || (i == len && include_last)) {
            char saved = path[i];
            path[i] = '\0';
            if (mkdir(path, 0700) != 0 && errno != EEXIST)
                return false;
            path[i] = saved;
        }
    }
    return true;
}

static rtcosim_status extract_entry(zip_t *zip, zip_uint64_t index, const char *name,
                                    const char *dir, const char *label, rtcosim_error *err)
{
    if (!make_parents(dir, name, false))
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot create directory for '%s'", label,
                                 name);
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= sizeof path)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: entry name too long", label);
    zip_file_t *zf = zip_fopen_index(zip, index, 0);
    if (!zf)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: cannot read entry '%s': %s", label,
                                 name, zip_strerror(zip));
    /* O_EXCL: a second entry of the same name is an error, not an overwrite. */
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        zip_fclose(zf);
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: cannot write entry '%s': %s", label,
                                 name, strerror(errno));
    }
    rtcosim_status st = RTCOSIM_OK;
    char buf[65536];
    for (;;) {
        zip_int64_t got = zip_fread(zf, buf, sizeof buf);
        if (got < 0) {
            st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: corrupt entry '%s': %s", label,
                                   name, zip_file_strerror(zf));
            break;
        }
        if (got == 0)
            break;
        for (zip_int64_t off = 0; off < got;) {
            ssize_t w = write(fd, buf + off, (size_t)(got - off));
            if (w < 0) {
                st = rtcosim_error_set(err, RTCOSIM_EIO, "%s: writing '%s': %s", label, name,
                                       strerror(errno));
                break;
            }
            off += w;
        }
        if (st != RTCOSIM_OK)
            break;
    }
    close(fd);
    zip_fclose(zf);
    return st;
}

rtcosim_status system_unpack_ssp(const char *path, char **dir_out, rtcosim_error *err)
{
    *dir_out = NULL;
    int zerr = 0;
    zip_t *zip = zip_open(path, ZIP_RDONLY, &zerr);
    if (!zip) {
        zip_error_t ze;
        zip_error_init_with_code(&ze, zerr);
        rtcosim_status st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: not a valid .ssp archive: %s",
                                              path, zip_error_strerror(&ze));
        zip_error_fini(&ze);
        return st;
    }
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    char *dir = NULL;
    if (asprintf(&dir, "%s/rtcosim-ssp-XXXXXX", tmp) < 0) {
        zip_close(zip);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    }
    if (!mkdtemp(dir)) {
        rtcosim_status st = rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot create temporary directory in %s: %s",
                                              path, tmp, strerror(errno));
        free(dir);
        zip_close(zip);
        return st;
    }
    rtcosim_status st = RTCOSIM_OK;
    zip_int64_t count = zip_get_num_entries(zip, 0);
    for (zip_int64_t i = 0; i < count && st == RTCOSIM_OK; i++) {
        const char *name = zip_get_name(zip, (zip_uint64_t)i, ZIP_FL_ENC_GUESS);
        if (!name) {
            st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: unreadable entry name", path);
            break;
        }
        if (!entry_name_is_safe(name)) {
            st = rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                   "%s: entry '%s' would escape the archive directory", path, name);
            break;
        }
        size_t len = strlen(name);
        if (name[len - 1] == '/') {
            if (!make_parents(dir, name, true))
                st = rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot create directory '%s'", path,
                                       name);
            continue;
        }
        st = extract_entry(zip, (zip_uint64_t)i, name, dir, path, err);
    }
    zip_discard(zip);
    if (st != RTCOSIM_OK) {
        system_remove_tree(dir);
        free(dir);
        return st;
    }
    *dir_out = dir;
    return RTCOSIM_OK;
}
