/* The binaries rtcosim builds from source-code FMUs (fmu_sources.c), kept
 * so that an FMU is compiled once, not at every load: in
 * $RTCOSIM_CACHE_DIR/fmu-builds (default $XDG_CACHE_HOME/rtcosim, else
 * ~/.cache/rtcosim), one folder per key. The key is 128 bits of two FNV-1a
 * hashes over everything the binary depends on: each file under sources/
 * (names and contents, in name order), the description that lists the
 * files, the FMI version, model identifier and platform, rtcosim's FMI
 * headers, and $CC, $CFLAGS, $CXX, $CXXFLAGS. A cache that cannot be read or
 * written is passed over (the FMU is built as without one). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fmi/fmu_internal.h"
#include "rtcosim/log.h"

typedef struct hash2 {
    uint64_t a, b;
} hash2;

static void mix_bytes(hash2 *h, const void *data, size_t size)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < size; i++) {
        h->a = (h->a ^ p[i]) * 0x100000001b3ULL;
        h->b = (h->b ^ p[i] ^ 0x5a) * 0x100000001b3ULL;
    }
}

/* The bytes, then their length ("ab"+"c" and "a"+"bc" differ). */
static void mix(hash2 *h, const void *data, size_t size)
{
    mix_bytes(h, data, size);
    uint64_t n = size;
    mix_bytes(h, &n, sizeof n);
}

static void mix_text(hash2 *h, const char *s)
{
    mix(h, s ? s : "", s ? strlen(s) : 0);
}

static bool mix_file(hash2 *h, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    unsigned char buf[65536];
    ssize_t got;
    uint64_t total = 0;
    while ((got = read(fd, buf, sizeof buf)) > 0) {
        mix_bytes(h, buf, (size_t)got);
        total += (uint64_t)got;
    }
    close(fd);
    mix_bytes(h, &total, sizeof total);
    return got == 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* Every regular file under dir (relative names from `rel`), in name order. */
static bool mix_tree(hash2 *h, const char *dir, const char *rel, int depth)
{
    struct dirent **names = NULL;
    int n = depth > 16 ? -1 : scandir(dir, &names, NULL, by_name);
    if (n < 0)
        return false;
    bool ok = true;
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        if (ok && strcmp(name, ".") != 0 && strcmp(name, "..") != 0) {
            char *path = rtcosim_fmu_join(dir, "/", name, "");
            char *sub = rtcosim_fmu_join(rel, "/", name, "");
            struct stat sb;
            ok = path && sub && lstat(path, &sb) == 0;
            if (ok && S_ISDIR(sb.st_mode)) {
                mix_text(h, "dir");
                mix_text(h, sub);
                ok = mix_tree(h, path, sub, depth + 1);
            } else if (ok && S_ISREG(sb.st_mode)) {
                mix_text(h, "file");
                mix_text(h, sub);
                ok = mix_file(h, path);
            }
            free(path);
            free(sub);
        }
        free(names[i]);
    }
    free(names);
    return ok;
}

static char *cache_root(void)
{
    const char *dir = getenv("RTCOSIM_CACHE_DIR");
    if (dir && dir[0])
        return rtcosim_fmu_join(dir, "/fmu-builds", "", "");
    const char *xdg = getenv("XDG_CACHE_HOME");
    if (xdg && xdg[0] == '/')
        return rtcosim_fmu_join(xdg, "/rtcosim/fmu-builds", "", "");
    const char *home = getenv("HOME");
    return home && home[0] == '/' ? rtcosim_fmu_join(home, "/.cache/rtcosim/fmu-builds", "", "")
                                  : NULL;
}

char *rtcosim_fmu_build_cache_path(const rtcosim_fmu *f, const char *description,
                                   const char *platform, const char *api, size_t api_size)
{
    hash2 h = {0xcbf29ce484222325ULL, 0x84222325cbf29ce4ULL};
    mix_text(&h, "rtcosim fmu build 1");
    mix_text(&h, f->md->fmi_version_text);
    mix_text(&h, f->model_identifier);
    mix_text(&h, platform);
    mix(&h, api, api_size);
    static const char *const vars[] = {"CC", "CFLAGS", "CXX", "CXXFLAGS"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        mix_text(&h, getenv(vars[i]));
    char *sources = rtcosim_fmu_join(f->dir, "/sources", "", "");
    char *desc = rtcosim_fmu_join(f->dir, "/", description, "");
    bool ok = sources && desc && mix_tree(&h, sources, "sources", 0) && mix_file(&h, desc);
    free(sources);
    free(desc);
    char *root = ok ? cache_root() : NULL;
    if (!root)
        return NULL;
    char key[64];
    snprintf(key, sizeof key, "/%016llx%016llx/", (unsigned long long)h.a,
             (unsigned long long)h.b);
    char *path = rtcosim_fmu_join(root, key, f->model_identifier, ".so");
    free(root);
    return path;
}

/* Copies `from` to `to` through a temporary name beside it (rename: a
 * reader sees the whole file or none). */
static bool copy_file(const char *from, const char *to)
{
    char *tmp = rtcosim_fmu_join(to, ".tmp", "", "");
    char tail[32];
    snprintf(tail, sizeof tail, "%ld", (long)getpid());
    char *tmp_pid = tmp ? rtcosim_fmu_join(tmp, tail, "", "") : NULL;
    free(tmp);
    int in = open(from, O_RDONLY | O_CLOEXEC);
    int out = tmp_pid && in >= 0 ? open(tmp_pid, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755)
                                 : -1;
    bool ok = in >= 0 && out >= 0;
    char buf[65536];
    ssize_t got = 0;
    while (ok && (got = read(in, buf, sizeof buf)) > 0)
        ok = write(out, buf, (size_t)got) == got;
    ok = ok && got == 0;
    if (in >= 0)
        close(in);
    if (out >= 0 && close(out) != 0)
        ok = false;
    if (ok)
        ok = rename(tmp_pid, to) == 0;
    if (!ok && tmp_pid)
        unlink(tmp_pid);
    free(tmp_pid);
    return ok;
}

bool rtcosim_fmu_build_cache_get(const char *cached, const char *out)
{
    return access(cached, R_OK) == 0 && copy_file(cached, out);
}

void rtcosim_fmu_build_cache_put(const char *built, const char *cached)
{
    /* the folders: the cache's root (made with its parents) and the key's */
    char *dir = strdup(cached);
    char *slash = dir ? strrchr(dir, '/') : NULL;
    if (!slash) {
        free(dir);
        return;
    }
    *slash = '\0';
    for (char *p = dir + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(dir, 0755) != 0 && errno != EEXIST)
                break;
            *p = '/';
        }
    if ((mkdir(dir, 0755) == 0 || errno == EEXIST) && copy_file(built, cached))
        rtcosim_log(RTCOSIM_LOG_INFO, "fmi", "kept in the build cache: %s", cached);
    free(dir);
}
