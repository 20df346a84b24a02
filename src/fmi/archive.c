/* Unzips an FMU (a zip archive, FMI 2.0 section 2.3 / FMI 3.0 section 2.5) with
 * libzip into a private mkdtemp directory. An archive is untrusted input: every
 * entry name is checked before anything is written, links are refused, and the
 * bytes actually inflated are counted against a limit. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zip.h>

#include "fmi/archive.h"

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

void rtcosim_fmi_remove_tree(const char *dir)
{
    if (dir && *dir)
        nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Why an entry name is unsafe, or NULL when it stays inside the directory.
 * Both '/' and '\\' count as separators so that archives made on Windows
 * cannot sneak a ".." past the check. */
static const char *unsafe_name(const char *name)
{
    if (!*name)
        return "has an empty name";
    if (name[0] == '/' || name[0] == '\\' || (name[0] && name[1] == ':'))
        return "has an absolute path";
    const char *part = name;
    for (const char *c = name;; c++) {
        if (*c == '/' || *c == '\\' || *c == '\0') {
            if (c - part == 2 && part[0] == '.' && part[1] == '.')
                return "would be extracted outside the FMU directory";
            if (*c == '\0')
                break;
            part = c + 1;
        }
    }
    return NULL;
}

/* mkdir -p for the directories leading to `rel` (and `rel` itself when it
 * names a directory, i.e. ends in '/'), below `root`. */
static int make_parents(const char *root, const char *rel, char *path, size_t size)
{
    int n = snprintf(path, size, "%s/%s", root, rel);
    if (n < 0 || (size_t)n >= size)
        return ENAMETOOLONG;
    for (char *c = path + strlen(root) + 1; *c; c++) {
        if (*c != '/')
            continue;
        *c = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST) {
            int e = errno;
            *c = '/';
            return e;
        }
        *c = '/';
    }
    return 0;
}

static rtcosim_status zip_open_error(const char *path, int code, rtcosim_error *err)
{
    zip_error_t ze;
    zip_error_init_with_code(&ze, code);
    rtcosim_status st = code == ZIP_ER_NOENT   ? RTCOSIM_ENOTFOUND
                        : code == ZIP_ER_OPEN || code == ZIP_ER_READ ? RTCOSIM_EIO
                                                                       : RTCOSIM_EFORMAT;
    if (code == ZIP_ER_NOZIP)
        rtcosim_error_set(err, st, "%s: not a zip archive", path);
    else
        rtcosim_error_set(err, st, "%s: cannot open archive: %s", path, zip_error_strerror(&ze));
    zip_error_fini(&ze);
    return st;
}

/* Copy one entry's bytes into a new file, counting against the budget. */
static rtcosim_status extract_entry(const char *path, zip_t *za, zip_uint64_t index,
                                    const char *name, const char *target, uint64_t *budget,
                                    uint64_t limit, char *buf, size_t buf_size,
                                    rtcosim_error *err)
{
    /* Private to the user; executable when the archive says so (tool-coupling
     * FMUs start programs shipped in resources/). */
    zip_uint8_t opsys;
    zip_uint32_t attributes;
    mode_t mode = 0600;
    if (zip_file_get_external_attributes(za, index, 0, &opsys, &attributes) == 0 &&
        opsys == ZIP_OPSYS_UNIX && ((attributes >> 16) & S_IXUSR))
        mode = 0700;
    int fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0)
        return rtcosim_error_set(err, errno == EEXIST ? RTCOSIM_EFORMAT : RTCOSIM_EIO,
                                 "%s: entry '%s': %s", path, name,
                                 errno == EEXIST ? "appears twice or clashes with a directory"
                                                 : strerror(errno));
    zip_file_t *zf = zip_fopen_index(za, index, 0);
    if (!zf) {
        close(fd);
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: entry '%s': %s", path, name,
                                 zip_strerror(za));
    }
    rtcosim_status st = RTCOSIM_OK;
    for (;;) {
        zip_int64_t got = zip_fread(zf, buf, buf_size);
        if (got < 0) {
            st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: entry '%s': %s", path, name,
                                   zip_file_strerror(zf));
            break;
        }
        if (got == 0)
            break;
        if ((uint64_t)got > *budget) {
            st = rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                   "%s: entry '%s': archive inflates beyond the limit of %" PRIu64
                                   " bytes",
                                   path, name, limit);
            break;
        }
        *budget -= (uint64_t)got;
        for (zip_int64_t done = 0; done < got;) {
            ssize_t w = write(fd, buf + done, (size_t)(got - done));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                st = rtcosim_error_set(err, RTCOSIM_EIO, "%s: entry '%s': cannot write: %s", path,
                                       name, strerror(errno));
                break;
            }
            done += w;
        }
        if (st != RTCOSIM_OK)
            break;
    }
    zip_fclose(zf);
    if (close(fd) != 0 && st == RTCOSIM_OK)
        st = rtcosim_error_set(err, RTCOSIM_EIO, "%s: entry '%s': cannot write: %s", path, name,
                               strerror(errno));
    return st;
}

static rtcosim_status extract_all(const char *path, zip_t *za, const char *dir,
                                  uint64_t limit, rtcosim_error *err)
{
    zip_int64_t count = zip_get_num_entries(za, 0);
    if (count < 0 || count > RTCOSIM_FMI_ARCHIVE_MAX_ENTRIES)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: %" PRId64 " entries is more than the limit of %d",
                                 path, (int64_t)count, RTCOSIM_FMI_ARCHIVE_MAX_ENTRIES);
    /* Check every name before writing anything. */
    for (zip_int64_t i = 0; i < count; i++) {
        const char *name = zip_get_name(za, (zip_uint64_t)i, ZIP_FL_ENC_GUESS);
        if (!name)
            return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: entry #%" PRId64 ": %s", path,
                                     (int64_t)i, zip_strerror(za));
        const char *why = unsafe_name(name);
        if (why)
            return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: entry '%s' %s", path, name, why);
        zip_uint8_t opsys;
        zip_uint32_t attributes;
        if (zip_file_get_external_attributes(za, (zip_uint64_t)i, 0, &opsys, &attributes) == 0 &&
            opsys == ZIP_OPSYS_UNIX && S_ISLNK((attributes >> 16) & 0xFFFF))
            return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: entry '%s' is a symbolic link",
                                     path, name);
    }
    size_t buf_size = 64 * 1024;
    char *buf = malloc(buf_size);
    char *target = malloc(PATH_MAX);
    if (!buf || !target) {
        free(buf);
        free(target);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    }
    uint64_t budget = limit;
    rtcosim_status st = RTCOSIM_OK;
    for (zip_int64_t i = 0; i < count && st == RTCOSIM_OK; i++) {
        const char *name = zip_get_name(za, (zip_uint64_t)i, ZIP_FL_ENC_GUESS);
        int e = make_parents(dir, name, target, PATH_MAX);
        if (e) {
            st = rtcosim_error_set(err, RTCOSIM_EIO, "%s: entry '%s': %s", path, name, strerror(e));
            break;
        }
        if (name[strlen(name) - 1] == '/')
            continue; /* a directory entry: created above */
        st = extract_entry(path, za, (zip_uint64_t)i, name, target, &budget, limit, buf, buf_size,
                           err);
    }
    free(buf);
    free(target);
    return st;
}

rtcosim_status rtcosim_fmi_extract(const char *path, const char *parent_dir, uint64_t max_bytes,
                                   char **out_dir, rtcosim_error *err)
{
    *out_dir = NULL;
    int code = 0;
    zip_t *za = zip_open(path, ZIP_RDONLY, &code);
    if (!za)
        return zip_open_error(path, code, err);

    if (!parent_dir || !*parent_dir) {
        parent_dir = getenv("TMPDIR");
        if (!parent_dir || !*parent_dir)
            parent_dir = "/tmp";
    }
    size_t len = strlen(parent_dir) + sizeof "/rtcosim-fmu-XXXXXX";
    char *dir = malloc(len);
    if (!dir) {
        zip_discard(za);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    }
    snprintf(dir, len, "%s/rtcosim-fmu-XXXXXX", parent_dir);
    if (!mkdtemp(dir)) {
        int e = errno;
        free(dir);
        zip_discard(za);
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot create a temporary directory in %s: %s",
                                 path, parent_dir, strerror(e));
    }
    rtcosim_status st = extract_all(path, za, dir,
                                    max_bytes ? max_bytes : RTCOSIM_FMI_ARCHIVE_DEFAULT_LIMIT, err);
    zip_discard(za);
    if (st != RTCOSIM_OK) {
        rtcosim_fmi_remove_tree(dir);
        free(dir);
        return st;
    }
    *out_dir = dir;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_fmi_read_file(const char *path, size_t max_size, char **data,
                                     size_t *size, rtcosim_error *err)
{
    *data = NULL;
    *size = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return rtcosim_error_set(err, errno == ENOENT ? RTCOSIM_ENOTFOUND : RTCOSIM_EIO,
                                 "%s: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: not a regular file", path);
    }
    if ((uint64_t)sb.st_size > max_size) {
        close(fd);
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: %" PRIu64 " bytes is larger than the limit of %zu",
                                 path, (uint64_t)sb.st_size, max_size);
    }
    size_t want = (size_t)sb.st_size;
    char *buf = malloc(want + 1);
    if (!buf) {
        close(fd);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    }
    size_t have = 0;
    while (have < want) {
        ssize_t r = read(fd, buf + have, want - have);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        have += (size_t)r;
    }
    close(fd);
    if (have != want) {
        free(buf);
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: short read", path);
    }
    buf[have] = '\0';
    *data = buf;
    *size = have;
    return RTCOSIM_OK;
}
