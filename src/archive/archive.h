/* One zip extractor for every archive the library reads (.fmu, .ssp): unpack
 * into a fresh private temporary directory, treating the archive as untrusted
 * input. Internal header (src/), not part of the public API. */
#ifndef RTCOSIM_ARCHIVE_ARCHIVE_H
#define RTCOSIM_ARCHIVE_ARCHIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "rtcosim/status.h"

/* Defaults for a zero field of rtcosim_archive_limits. */
#define RTCOSIM_ARCHIVE_DEFAULT_MAX_BYTES (UINT64_C(4) * 1024 * 1024 * 1024)
#define RTCOSIM_ARCHIVE_DEFAULT_MAX_ENTRIES UINT64_C(100000)

typedef struct rtcosim_archive_limits {
    const char *kind;            /* "FMU", "SSP": names the directory in messages ("outside the
                                    FMU directory") and, lower case, the temporary directory
                                    ("rtcosim-fmu-XXXXXX"); NULL: "archive" */
    uint64_t max_unpacked_bytes; /* bytes actually inflated, all entries together; 0: default */
    uint64_t max_entries;        /* 0: default */
} rtcosim_archive_limits;

/* Extract the zip archive `path` into a new directory (mode 0700) under
 * `parent_dir` (NULL or "": $TMPDIR, else /tmp). limits may be NULL.
 *
 * Refused before anything is written (RTCOSIM_EFORMAT): more entries than the
 * limit; an entry with an empty or absolute name ("/x", "\x", "C:x"), a ".."
 * component or an empty component ('/' and '\' both count as separators), a
 * symbolic link, encryption, a compression method libzip cannot inflate, or
 * declared sizes beyond the byte limit, an entry listed twice with different
 * size or CRC-32 (identical copies are extracted once). While extracting:
 * bytes inflated beyond the limit or past the entry's declared size (declared
 * sizes can lie: at most one copy buffer more is ever written), a CRC mismatch, or
 * a file/directory clash. Backslashes in names become directory separators;
 * entries marked executable by a Unix archiver are created 0700, others 0600.
 *
 * A file that is not a zip is RTCOSIM_EFORMAT "not a zip archive", a missing
 * one RTCOSIM_ENOTFOUND, unreadable ones or a failing parent RTCOSIM_EIO. An
 * archive whose local and central headers disagree (libzip's ZIP_CHECKCONS)
 * is still extracted, with a warning logged (category "archive").
 *
 * Every message is one line starting with `path` and, where one is to blame,
 * naming the entry. On success *extracted_dir is a malloc'd path: remove it
 * with rtcosim_archive_remove_dir and free it. On failure *extracted_dir is
 * NULL and nothing is left behind. */
rtcosim_status rtcosim_archive_extract(const char *path, const char *parent_dir,
                                       const rtcosim_archive_limits *limits,
                                       char **extracted_dir, rtcosim_error *err);

/* rtcosim_archive_extract, shared: the same archive file (device, inode,
 * size, modification time) with the same parent_dir and limits gets the
 * directory of its first extraction while any user holds it (thread-safe).
 * *extracted_dir is the caller's malloc'd copy; give it back with
 * rtcosim_archive_release (then free it). For archives whose contents each
 * user must have on its own (an FMU that can be instantiated only once per
 * process, loaded as separate library copies), use rtcosim_archive_extract. */
rtcosim_status rtcosim_archive_extract_shared(const char *path, const char *parent_dir,
                                              const rtcosim_archive_limits *limits,
                                              char **extracted_dir, rtcosim_error *err);
/* Drop one use of a shared extraction (the last removes the directory); a
 * directory that is not shared (rtcosim_archive_extract) is removed at once. */
void rtcosim_archive_release(const char *dir);

/* Remove the rtcosim-* directories under parent_dir whose owner mark (each
 * extraction directory D has D.owner beside it: pid and pid namespace) names
 * a dead process of this pid namespace: what killed runs left behind. The
 * first extraction of each process calls it for its parent directory. */
void rtcosim_archive_remove_stale(const char *parent_dir);

/* Give a temporary directory of our own (not an extraction) the owner mark
 * that lets rtcosim_archive_remove_stale remove it once this process is dead;
 * its name must start with "rtcosim-". */
void rtcosim_archive_mark_owner(const char *dir);

/* Remove a directory tree without following symbolic links, and its owner
 * mark (dir.owner) if any. NULL is a no-op. */
void rtcosim_archive_remove_dir(const char *dir);

/* True when the file starts like a zip archive (a local file header, or the
 * end record of an empty archive). False for missing or unreadable files. */
bool rtcosim_archive_is_zip(const char *path);

#endif
