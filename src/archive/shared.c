/* One extraction per distinct archive file per process: loading the same FMU
 * for 2000 components unpacks it once (and dlopen then maps one library),
 * instead of 2000 directories. Entries are keyed by the file's identity
 * (device, inode, size, modification time), the parent directory and the
 * limits, and reference-counted; the last release removes the directory. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "archive/archive.h"

typedef struct shared_entry {
    struct shared_entry *next;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    char *parent; /* as given ("" for the default) */
    char *kind;
    uint64_t max_bytes, max_entries;
    char *dir;
    size_t refs;
} shared_entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static shared_entry *entries;

static bool same_key(const shared_entry *e, const struct stat *st, const char *parent,
                     const char *kind, const rtcosim_archive_limits *limits)
{
    return e->dev == st->st_dev && e->ino == st->st_ino && e->size == st->st_size &&
           e->mtime.tv_sec == st->st_mtim.tv_sec && e->mtime.tv_nsec == st->st_mtim.tv_nsec &&
           strcmp(e->parent, parent) == 0 && strcmp(e->kind, kind) == 0 &&
           e->max_bytes == (limits ? limits->max_unpacked_bytes : 0) &&
           e->max_entries == (limits ? limits->max_entries : 0);
}

rtcosim_status rtcosim_archive_extract_shared(const char *path, const char *parent_dir,
                                              const rtcosim_archive_limits *limits,
                                              char **extracted_dir, rtcosim_error *err)
{
    *extracted_dir = NULL;
    struct stat st;
    const char *parent = parent_dir ? parent_dir : "";
    const char *kind = limits && limits->kind ? limits->kind : "";
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) /* the extractor words the error */
        return rtcosim_archive_extract(path, parent_dir, limits, extracted_dir, err);
    pthread_mutex_lock(&lock);
    for (shared_entry *e = entries; e; e = e->next)
        if (same_key(e, &st, parent, kind, limits)) {
            char *copy = strdup(e->dir);
            if (copy)
                e->refs++;
            pthread_mutex_unlock(&lock);
            if (!copy)
                return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
            *extracted_dir = copy;
            return RTCOSIM_OK;
        }
    /* Extracted under the lock: a second loader of the same file waits for
     * this one instead of unpacking it again (setup path, not the run). */
    char *dir = NULL;
    rtcosim_status status = rtcosim_archive_extract(path, parent_dir, limits, &dir, err);
    if (status != RTCOSIM_OK) {
        pthread_mutex_unlock(&lock);
        return status;
    }
    shared_entry *e = calloc(1, sizeof *e);
    char *copy = strdup(dir);
    if (e && copy && (e->parent = strdup(parent)) && (e->kind = strdup(kind))) {
        e->dev = st.st_dev;
        e->ino = st.st_ino;
        e->size = st.st_size;
        e->mtime = st.st_mtim;
        e->max_bytes = limits ? limits->max_unpacked_bytes : 0;
        e->max_entries = limits ? limits->max_entries : 0;
        e->dir = dir;
        e->refs = 1;
        e->next = entries;
        entries = e;
        pthread_mutex_unlock(&lock);
        *extracted_dir = copy;
        return RTCOSIM_OK;
    }
    pthread_mutex_unlock(&lock);
    if (e) {
        free(e->parent);
        free(e->kind);
        free(e);
    }
    free(copy);
    rtcosim_archive_remove_dir(dir);
    free(dir);
    return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
}

void rtcosim_archive_release(const char *dir)
{
    if (!dir || !*dir)
        return;
    pthread_mutex_lock(&lock);
    for (shared_entry **p = &entries; *p; p = &(*p)->next) {
        shared_entry *e = *p;
        if (strcmp(e->dir, dir) != 0)
            continue;
        if (--e->refs == 0) {
            *p = e->next;
            pthread_mutex_unlock(&lock);
            rtcosim_archive_remove_dir(e->dir);
            free(e->dir);
            free(e->parent);
            free(e->kind);
            free(e);
            return;
        }
        pthread_mutex_unlock(&lock);
        return;
    }
    pthread_mutex_unlock(&lock);
    rtcosim_archive_remove_dir(dir); /* a private extraction */
}
