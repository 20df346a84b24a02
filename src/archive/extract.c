/* Zip extraction for .fmu (FMI 2.0 section 2.3, FMI 3.0 section 2.5) and .ssp
 * (SSP 1.0 section 4) archives with libzip. An archive is untrusted input: every
 * entry is checked before anything is written, links are refused, files are
 * created without following links, and inflated bytes are counted against a limit. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
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

#include "archive/zip_dl.h"

#include "archive/archive.h"
#include "rtcosim/log.h"

enum { COPY_BUFFER_SIZE = 64 * 1024 };

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

void rtcosim_archive_remove_dir(const char *dir)
{
    if (!dir || !*dir)
        return;
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    char owner[PATH_MAX]; /* the owner mark beside it, if any (write_owner) */
    if (snprintf(owner, sizeof owner, "%s.owner", dir) < (int)sizeof owner)
        unlink(owner);
}

bool rtcosim_archive_is_zip(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    unsigned char sig[4] = {0};
    size_t n = fread(sig, 1, sizeof sig, f);
    fclose(f);
    /* APPNOTE 4.3.7 local file header, 4.3.16 end of central directory. */
    return n == 4 && sig[0] == 'P' && sig[1] == 'K' &&
           ((sig[2] == 3 && sig[3] == 4) || (sig[2] == 5 && sig[3] == 6));
}

/* What is wrong with an entry name, if anything. Both '/' and '\\' count as
 * separators so that archives made on Windows cannot sneak a ".." past. */
typedef enum name_verdict {
    NAME_OK,
    NAME_EMPTY,
    NAME_ABSOLUTE,
    NAME_CLIMBS,
    NAME_EMPTY_COMPONENT
} name_verdict;

static bool is_separator(char c)
{
    return c == '/' || c == '\\';
}

static name_verdict check_name(const char *name)
{
    if (!*name)
        return NAME_EMPTY;
    if (is_separator(name[0]) || name[1] == ':') /* "/x", "\x", "C:x" */
        return NAME_ABSOLUTE;
    const char *part = name;
    for (const char *c = name;; c++) {
        if (!is_separator(*c) && *c != '\0')
            continue;
        if (c - part == 2 && part[0] == '.' && part[1] == '.')
            return NAME_CLIMBS;
        if (*c == '\0')
            return NAME_OK;
        if (c == part) /* "a//b"; a single trailing separator marks a directory */
            return NAME_EMPTY_COMPONENT;
        part = c + 1;
    }
}

static rtcosim_status name_error(const char *path, const char *name, name_verdict verdict,
                                 const char *kind, rtcosim_error *err)
{
    switch (verdict) {
    case NAME_EMPTY:
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: an entry has an empty name", path);
    case NAME_ABSOLUTE:
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: entry '%s' has an absolute path",
                                 path, name);
    case NAME_CLIMBS:
        return rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                 "%s: entry '%s' would be extracted outside the %s directory",
                                 path, name, kind);
    case NAME_EMPTY_COMPONENT:
    default:
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: entry '%s' has an empty path component",
                                 path, name);
    }
}

static bool unix_mode(zip_t *za, zip_uint64_t index, mode_t *mode)
{
    zip_uint8_t opsys;
    zip_uint32_t attributes;
    if (zip_file_get_external_attributes(za, index, 0, &opsys, &attributes) != 0 ||
        opsys != ZIP_OPSYS_UNIX)
        return false;
    *mode = (mode_t)(attributes >> 16); /* APPNOTE 4.4.15: high half is st_mode */
    return true;
}

static rtcosim_status budget_error(const char *path, const char *name, uint64_t limit,
                                   rtcosim_error *err)
{
    return rtcosim_error_set(err, RTCOSIM_EFORMAT,
                             "%s: entry '%s': archive inflates beyond the limit of %" PRIu64
                             " bytes",
                             path, name, limit);
}

/* One entry's identity for the duplicate check. */
typedef struct entry_key {
    const char *name;
    zip_uint64_t index, size;
    zip_uint32_t crc;
} entry_key;

static int by_name_then_index(const void *a, const void *b)
{
    const entry_key *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Entries listed more than once under one name. Identical copies (same size
 * and CRC-32; directories: same name) are one file: later copies are marked
 * in `skip`, as fmusim and common unzip tools treat them (the Reference FMUs'
 * Roberts lists its extra/ folder twice). Copies that differ would make the
 * extracted file depend on the order of extraction: refused. */
static rtcosim_status check_duplicates(const char *path, zip_t *za, zip_uint64_t count,
                                       bool *skip, rtcosim_error *err)
{
    entry_key *keys = malloc((count ? count : 1) * sizeof *keys);
    if (!keys)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    for (zip_uint64_t i = 0; i < count; i++) {
        zip_stat_t st;
        zip_stat_init(&st);
        zip_stat_index(za, i, 0, &st); /* succeeded in check_entries */
        keys[i] = (entry_key){zip_get_name(za, i, ZIP_FL_ENC_GUESS), i,
                              (st.valid & ZIP_STAT_SIZE) ? st.size : 0,
                              (st.valid & ZIP_STAT_CRC) ? st.crc : 0};
    }
    qsort(keys, count, sizeof *keys, by_name_then_index);
    rtcosim_status status = RTCOSIM_OK;
    for (zip_uint64_t i = 1; i < count && status == RTCOSIM_OK; i++) {
        const entry_key *a = &keys[i - 1], *b = &keys[i];
        if (strcmp(a->name, b->name) != 0)
            continue;
        size_t len = strlen(b->name);
        bool dir = len && b->name[len - 1] == '/';
        if (dir || (a->size == b->size && a->crc == b->crc))
            skip[b->index] = true;
        else
            status = rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                       "%s: entry '%s' appears twice with different contents "
                                       "(%" PRIu64 " bytes, CRC-32 %08" PRIx32 " and %" PRIu64
                                       " bytes, CRC-32 %08" PRIx32 ")",
                                       path, b->name, (uint64_t)a->size, (uint32_t)a->crc,
                                       (uint64_t)b->size, (uint32_t)b->crc);
    }
    free(keys);
    return status;
}

/* Everything that can be judged from the central directory, for every entry,
 * before the first byte is written. */
static rtcosim_status check_entries(const char *path, zip_t *za, zip_uint64_t count,
                                    const char *kind, uint64_t max_bytes, bool *skip,
                                    rtcosim_error *err)
{
    uint64_t declared = 0;
    for (zip_uint64_t i = 0; i < count; i++) {
        const char *name = zip_get_name(za, i, ZIP_FL_ENC_GUESS);
        if (!name)
            return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: entry #%" PRIu64 ": %s", path,
                                     (uint64_t)i, zip_strerror(za));
        name_verdict verdict = check_name(name);
        if (verdict != NAME_OK)
            return name_error(path, name, verdict, kind, err);
        mode_t mode;
        if (unix_mode(za, i, &mode) && S_ISLNK(mode))
            return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: entry '%s' is a symbolic link",
                                     path, name);
        zip_stat_t st;
        if (zip_stat_index(za, i, 0, &st) != 0)
            return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: entry '%s': %s", path, name,
                                     zip_strerror(za));
        if ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != ZIP_EM_NONE)
            return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                     "%s: entry '%s' is encrypted", path, name);
        if ((st.valid & ZIP_STAT_COMP_METHOD) && !zip_compression_method_supported(st.comp_method, 0))
            return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                     "%s: entry '%s' uses zip compression method %u, which "
                                     "this libzip cannot inflate",
                                     path, name, (unsigned)st.comp_method);
        if (st.valid & ZIP_STAT_SIZE) {
            if (st.size > max_bytes - declared)
                return budget_error(path, name, max_bytes, err);
            declared += st.size;
        }
    }
    return check_duplicates(path, za, count, skip, err);
}

/* mkdir -p for the directories on the way to `target` (and `target` itself
 * when it names a directory), below the first root_len characters. 0, an
 * errno, or -1 when a file is in the way (its path left in `target`). */
static int make_dirs(char *target, size_t root_len, bool include_target)
{
    for (char *c = target + root_len + 1;; c++) {
        if (*c != '/' && !(*c == '\0' && include_target)) {
            if (*c == '\0')
                return 0;
            continue;
        }
        char saved = *c;
        *c = '\0';
        if (mkdir(target, 0700) != 0) {
            struct stat sb;
            if (errno != EEXIST)
                return errno;
            if (lstat(target, &sb) != 0 || !S_ISDIR(sb.st_mode))
                return -1;
        }
        if (saved == '\0')
            return 0;
        *c = saved;
    }
}

static rtcosim_status copy_entry(const char *path, zip_t *za, zip_uint64_t index,
                                 const char *name, const char *target, mode_t mode,
                                 uint64_t *budget, uint64_t limit, char *buf,
                                 rtcosim_error *err)
{
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
    /* zip_fread checks the CRC-32 once the entry has been read to its end,
     * but not the length: an entry may inflate far past the size it
     * declares (the declared sizes were checked against the limit), so the
     * bytes written are held to it. */
    zip_stat_t zs;
    zip_stat_init(&zs);
    uint64_t declared = zip_stat_index(za, index, 0, &zs) == 0 && (zs.valid & ZIP_STAT_SIZE)
                            ? (uint64_t)zs.size
                            : UINT64_MAX;
    uint64_t inflated = 0;
    rtcosim_status st = RTCOSIM_OK;
    for (;;) {
        zip_int64_t got = zip_fread(zf, buf, COPY_BUFFER_SIZE);
        if (got < 0) {
            st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: entry '%s': %s", path, name,
                                   zip_file_strerror(zf));
            break;
        }
        if (got == 0)
            break;
        inflated += (uint64_t)got;
        if (inflated > declared) {
            st = rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                   "%s: entry '%s': inflates past its declared size of %" PRIu64
                                   " bytes",
                                   path, name, declared);
            break;
        }
        if ((uint64_t)got > *budget) {
            st = budget_error(path, name, limit, err);
            break;
        }
        *budget -= (uint64_t)got;
        for (zip_int64_t done = 0; done < got && st == RTCOSIM_OK;) {
            ssize_t w = write(fd, buf + done, (size_t)(got - done));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                st = rtcosim_error_set(err, RTCOSIM_EIO, "%s: entry '%s': cannot write: %s",
                                       path, name, w < 0 ? strerror(errno) : "disk full");
            else
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

static rtcosim_status extract_all(const char *path, zip_t *za, zip_uint64_t count,
                                  const bool *skip, const char *dir, uint64_t limit,
                                  rtcosim_error *err)
{
    char *buf = malloc(COPY_BUFFER_SIZE);
    char *target = malloc(PATH_MAX);
    if (!buf || !target) {
        free(buf);
        free(target);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    }
    size_t root_len = strlen(dir);
    uint64_t budget = limit;
    rtcosim_status st = RTCOSIM_OK;
    for (zip_uint64_t i = 0; i < count && st == RTCOSIM_OK; i++) {
        if (skip[i])
            continue;
        const char *name = zip_get_name(za, i, ZIP_FL_ENC_GUESS);
        int n = snprintf(target, PATH_MAX, "%s/%s", dir, name);
        if (n < 0 || n >= PATH_MAX) {
            st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: entry '%s': name too long", path,
                                   name);
            break;
        }
        for (char *c = target + root_len; *c; c++)
            if (*c == '\\')
                *c = '/'; /* APPNOTE 4.4.17 wants '/'; some Windows archivers wrote '\' */
        bool is_dir = target[n - 1] == '/';
        if (is_dir)
            target[n - 1] = '\0';
        int e = make_dirs(target, root_len, is_dir);
        if (e == -1) {
            st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: entry '%s' clashes with the file '%s'",
                                   path, name, target + root_len + 1);
            break;
        }
        if (e) {
            st = rtcosim_error_set(err, RTCOSIM_EIO, "%s: entry '%s': %s", path, name,
                                   strerror(e));
            break;
        }
        if (is_dir)
            continue;
        /* Private to the user; executable when the archive says so (tool-coupling
         * FMUs start programs shipped in resources/). */
        mode_t recorded;
        mode_t mode = unix_mode(za, i, &recorded) && (recorded & S_IXUSR) ? 0700 : 0600;
        st = copy_entry(path, za, i, name, target, mode, &budget, limit, buf, err);
    }
    free(buf);
    free(target);
    return st;
}

static rtcosim_status open_error(const char *path, int code, rtcosim_error *err)
{
    if (code == ZIP_ER_NOZIP)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: not a zip archive", path);
    zip_error_t ze;
    zip_error_init_with_code(&ze, code);
    rtcosim_status st = code == ZIP_ER_NOENT                         ? RTCOSIM_ENOTFOUND
                        : code == ZIP_ER_OPEN || code == ZIP_ER_READ ? RTCOSIM_EIO
                                                                     : RTCOSIM_EFORMAT;
    rtcosim_error_set(err, st, "%s: cannot open archive: %s", path, zip_error_strerror(&ze));
    zip_error_fini(&ze);
    return st;
}

/* Strict first, so that a damaged archive is noticed; but tools in the wild
 * (libarchive's zip writer among them) write local headers that disagree with
 * the central directory in harmless ways, and the central directory is what
 * extraction uses, so such an archive is opened again without the check.
 * libzip's strict open also refuses a name listed twice (ZIP_ER_EXISTS);
 * those archives are opened leniently too and check_duplicates judges them. */
static zip_t *open_archive(const char *path, int *code)
{
    zip_t *za = zip_open(path, ZIP_RDONLY | ZIP_CHECKCONS, code);
    if (za || (*code != ZIP_ER_INCONS && *code != ZIP_ER_EXISTS))
        return za;
    bool duplicates = *code == ZIP_ER_EXISTS;
    za = zip_open(path, ZIP_RDONLY, code);
    if (za)
        rtcosim_log(RTCOSIM_LOG_INFO, "archive",
                    duplicates ? "%s: an entry name is listed more than once; extracting by the "
                                 "central directory (every entry's CRC is still checked)"
                               : "%s: local and central zip headers disagree; extracting by the "
                                 "central directory (every entry's CRC is still checked)",
                    path);
    return za;
}

/* --- Owner marks: temporary directories of killed runs --------------------- */

/* Each extraction directory D has a mark D.owner beside it (not inside: the
 * FMU's own tree stays as the archive has it), "<pid> <pid namespace>": a
 * later run (first extraction of a process) removes the directories under
 * the same parent whose owner is dead in the same pid namespace. A missing
 * or unreadable mark (being written, other versions) or another namespace
 * keeps the directory: only what is surely abandoned is removed. */
#define OWNER_SUFFIX ".owner"

static void pid_namespace(char *out, size_t size)
{
    ssize_t n = readlink("/proc/self/ns/pid", out, size - 1);
    out[n > 0 ? n : 0] = '\0';
}

static void write_owner(const char *dir)
{
    char path[PATH_MAX], ns[128], text[192];
    if (snprintf(path, sizeof path, "%s" OWNER_SUFFIX, dir) >= (int)sizeof path)
        return;
    pid_namespace(ns, sizeof ns);
    int n = snprintf(text, sizeof text, "%ld %s\n", (long)getpid(), ns);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    ssize_t ignored = write(fd, text, (size_t)n);
    (void)ignored;
    close(fd);
}

void rtcosim_archive_mark_owner(const char *dir) { write_owner(dir); }

static bool owner_is_dead(const char *dir)
{
    char path[PATH_MAX], text[192] = {0}, ns[128], their_ns[128] = {0};
    if (snprintf(path, sizeof path, "%s" OWNER_SUFFIX, dir) >= (int)sizeof path)
        return false;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    long pid = 0;
    if (n <= 0 || sscanf(text, "%ld %127s", &pid, their_ns) != 2 || pid <= 0)
        return false;
    pid_namespace(ns, sizeof ns);
    if (strcmp(ns, their_ns) != 0 || pid == (long)getpid())
        return false;
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

void rtcosim_archive_remove_stale(const char *parent_dir)
{
    DIR *d = opendir(parent_dir);
    if (!d)
        return;
    struct dirent *e;
    char path[PATH_MAX];
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "rtcosim-", 8) != 0)
            continue;
        if (snprintf(path, sizeof path, "%s/%s", parent_dir, e->d_name) >= (int)sizeof path)
            continue;
        struct stat st;
        if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid())
            continue; /* marks go with their directory */
        if (owner_is_dead(path)) {
            rtcosim_log(RTCOSIM_LOG_INFO, "archive",
                        "removing %s, left behind by a run that was killed", path);
            rtcosim_archive_remove_dir(path);
        }
    }
    closedir(d);
}

/* "rtcosim-<kind>-XXXXXX" with the kind reduced to lower-case letters and digits. */
static char *temp_template(const char *parent, const char *kind)
{
    char tag[16];
    size_t n = 0;
    for (const char *c = kind; *c && n < sizeof tag - 1; c++)
        if (isalnum((unsigned char)*c))
            tag[n++] = (char)tolower((unsigned char)*c);
    tag[n] = '\0';
    size_t len = strlen(parent) + strlen(tag) + sizeof "/rtcosim--XXXXXX" + sizeof "archive";
    char *dir = malloc(len);
    if (dir)
        snprintf(dir, len, "%s/rtcosim-%s-XXXXXX", parent, n ? tag : "archive");
    return dir;
}

rtcosim_status rtcosim_archive_extract(const char *path, const char *parent_dir,
                                       const rtcosim_archive_limits *limits,
                                       char **extracted_dir, rtcosim_error *err)
{
    *extracted_dir = NULL;
    const char *kind = limits && limits->kind && *limits->kind ? limits->kind : "archive";
    uint64_t max_bytes = limits && limits->max_unpacked_bytes ? limits->max_unpacked_bytes
                                                              : RTCOSIM_ARCHIVE_DEFAULT_MAX_BYTES;
    uint64_t max_entries = limits && limits->max_entries ? limits->max_entries
                                                         : RTCOSIM_ARCHIVE_DEFAULT_MAX_ENTRIES;
    rtcosim_status loaded = rtcosim_zip_load(err);
    if (loaded != RTCOSIM_OK)
        return loaded;
    int code = 0;
    zip_t *za = open_archive(path, &code);
    if (!za)
        return open_error(path, code, err);

    zip_int64_t count = zip_get_num_entries(za, 0);
    rtcosim_status st = RTCOSIM_OK;
    bool *skip = NULL;
    if (count < 0 || (uint64_t)count > max_entries)
        st = rtcosim_error_set(err, RTCOSIM_EFORMAT,
                               "%s: %" PRId64 " entries is more than the limit of %" PRIu64, path,
                               (int64_t)count, max_entries);
    else if (!(skip = calloc(count ? (size_t)count : 1, sizeof *skip)))
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    else
        st = check_entries(path, za, (zip_uint64_t)count, kind, max_bytes, skip, err);
    if (st != RTCOSIM_OK) {
        free(skip);
        zip_discard(za);
        return st;
    }

    if (!parent_dir || !*parent_dir) {
        parent_dir = getenv("TMPDIR");
        if (!parent_dir || !*parent_dir)
            parent_dir = "/tmp";
    }
    static atomic_flag swept = ATOMIC_FLAG_INIT;
    if (!atomic_flag_test_and_set(&swept))
        rtcosim_archive_remove_stale(parent_dir);
    char *dir = temp_template(parent_dir, kind);
    if (!dir) {
        free(skip);
        zip_discard(za);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    }
    if (!mkdtemp(dir)) {
        int e = errno;
        free(dir);
        free(skip);
        zip_discard(za);
        return rtcosim_error_set(err, RTCOSIM_EIO,
                                 "%s: cannot create a temporary directory in %s: %s", path,
                                 parent_dir, strerror(e));
    }
    write_owner(dir);
    st = extract_all(path, za, (zip_uint64_t)count, skip, dir, max_bytes, err);
    free(skip);
    zip_discard(za);
    if (st != RTCOSIM_OK) {
        rtcosim_archive_remove_dir(dir);
        free(dir);
        return st;
    }
    *extracted_dir = dir;
    return RTCOSIM_OK;
}
