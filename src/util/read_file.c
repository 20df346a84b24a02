/* Reads a whole file into a growing heap buffer, or maps it (see
 * read_file.h). Setup-time code only: the readers call it once per file,
 * never while a run steps. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/read_file.h"

/* A stream (not a regular file) read as binary data ends as an error past
 * this: /dev/zero is not read until memory runs out. */
#define STREAM_LIMIT ((size_t)UTIL_READ_STREAM_LIMIT_MIB << 20)

/* The rest of f into a malloc'd buffer (messages as util_read_file's);
 * text: a NUL byte ends it as an error at once (binary data, or an endless
 * source such as /dev/zero, is not read to its end first); binary (not
 * text): text unless binary() takes its first bytes for binary data; limit:
 * more bytes than this are an error (0: none). */
static rtcosim_status read_all(FILE *f, const char *label, const char *kind, bool text,
                               util_is_binary_fn *binary, size_t limit, char **data,
                               size_t *size, rtcosim_error *err)
{
    const char *space = kind ? " " : "";
    kind = kind ? kind : "";
    char *buffer = NULL;
    size_t used = 0, cap = 0;
    rtcosim_status st = RTCOSIM_OK;
    for (;;) {
        if (used == cap) {
            size_t new_cap = cap ? cap * 2 : 65536;
            char *bigger = realloc(buffer, new_cap);
            if (!bigger) {
                st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", label);
                break;
            }
            buffer = bigger;
            cap = new_cap;
        }
        size_t got = fread(buffer + used, 1, cap - used, f);
        if (used == 0 && binary && !binary(buffer, got))
            text = true;
        const char *nul = text ? memchr(buffer + used, '\0', got) : NULL;
        if (nul) {
            st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: not a text %s%s(a NUL byte at byte"
                                   " %zu)", label, *kind ? kind : "file", *kind ? " " : " ",
                                   (size_t)(nul - buffer));
            break;
        }
        used += got;
        if (limit && used > limit) {
            bool mib = limit >= (1u << 20);
            st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: more than %zu %s from a stream "
                                   "(not a regular file)%s%s", label, mib ? limit >> 20 : limit,
                                   mib ? "MiB" : "bytes", *kind ? ": no " : "", kind);
            break;
        }
        if (got == 0) {
            if (ferror(f))
                st = rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot read%s%s: %s", label, space,
                                       kind, strerror(errno));
            break;
        }
    }
    if (st != RTCOSIM_OK) {
        free(buffer);
        return st;
    }
    *data = buffer;
    *size = used;
    return RTCOSIM_OK;
}

/* path opened and read whole; a non-regular source: text stops at a NUL
 * (binary data, when binary() takes its first bytes for it, does not),
 * anything else at STREAM_LIMIT. */
static rtcosim_status read_path(const char *path, const char *label, const char *kind,
                                bool text, util_is_binary_fn *binary, size_t stream_limit,
                                char **data, size_t *size, rtcosim_error *err)
{
    *data = NULL;
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return rtcosim_error_set(err, errno == ENOENT ? RTCOSIM_ENOTFOUND : RTCOSIM_EIO,
                                 "%s: cannot open%s%s: %s", label, kind ? " " : "",
                                 kind ? kind : "", strerror(errno));
    struct stat sb;
    /* a regular file is read whole: its reader names the line of a NUL */
    bool endless = fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode);
    rtcosim_status st = read_all(f, label, kind, text && endless,
                                 endless ? binary : NULL, endless && !text ? stream_limit : 0,
                                 data, size, err);
    fclose(f);
    return st;
}

rtcosim_status util_read_file(const char *path, const char *label, const char *kind,
                              char **data, size_t *size, rtcosim_error *err)
{
    return read_path(path, label, kind, false, NULL, STREAM_LIMIT, data, size, err);
}

rtcosim_status util_read_file_limit(const char *path, const char *label, const char *kind,
                                    size_t stream_limit, char **data, size_t *size,
                                    rtcosim_error *err)
{
    return read_path(path, label, kind, false, NULL, stream_limit, data, size, err);
}

rtcosim_status util_read_text_file(const char *path, const char *label, const char *kind,
                                   char **data, size_t *size, rtcosim_error *err)
{
    return read_path(path, label, kind, true, NULL, 0, data, size, err);
}

/* XML in UTF-16 holds NUL bytes: a '<' or a byte-order mark with a NUL beside
 * it (XML 1.0 appendix F) says which; UTF-8 and ASCII XML is text. */
static bool xml_is_utf16(const char *data, size_t size)
{
    if (size < 2)
        return false;
    unsigned char a = (unsigned char)data[0], b = (unsigned char)data[1];
    return (a == 0xFF && b == 0xFE) || (a == 0xFE && b == 0xFF) || (a == '<' && b == 0) ||
           (a == 0 && b == '<');
}

rtcosim_status util_read_xml_file(const char *path, const char *label, const char *kind,
                                  char **data, size_t *size, rtcosim_error *err)
{
    return read_path(path, label, kind, false, xml_is_utf16, STREAM_LIMIT, data, size, err);
}

rtcosim_status util_file_view_open(const char *path, const char *label, const char *kind,
                                   util_is_binary_fn *binary, util_file_view *view,
                                   rtcosim_error *err)
{
    *view = (util_file_view){0};
    /* opened once: a named pipe opened a second time would wait for a
     * writer that has gone */
    FILE *f = fopen(path, "rb");
    if (!f)
        return rtcosim_error_set(err, errno == ENOENT ? RTCOSIM_ENOTFOUND : RTCOSIM_EIO,
                                 "%s: cannot open%s%s: %s", label, kind ? " " : "",
                                 kind ? kind : "", strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (uintmax_t)st.st_size <= SIZE_MAX) {
        void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fileno(f), 0);
        if (p != MAP_FAILED) {
            fclose(f);
            (void)madvise(p, (size_t)st.st_size, MADV_SEQUENTIAL); /* (read ahead, drop behind) */
            *view = (util_file_view){.data = p, .size = (size_t)st.st_size, .mapped = true};
            return RTCOSIM_OK;
        }
    }
    char *data = NULL;
    size_t size = 0;
    rtcosim_status s = read_all(f, label, kind, false, binary, 0, &data, &size, err);
    fclose(f);
    if (s == RTCOSIM_OK)
        *view = (util_file_view){.data = data, .size = size};
    return s;
}

void util_file_view_close(util_file_view *view)
{
    if (view->mapped)
        munmap((void *)view->data, view->size);
    else
        free((void *)view->data);
    *view = (util_file_view){0};
}

void util_file_view_done(util_file_view *view, size_t upto)
{
    enum { CHUNK = 8u << 20 }; /* given back 8 MiB at a time */
    if (!view || !view->mapped || upto > view->size || upto < view->released + CHUNK)
        return;
    size_t page = (size_t)sysconf(_SC_PAGESIZE), end = upto / page * page;
    (void)madvise((char *)view->data + view->released, end - view->released, MADV_DONTNEED);
    view->released = end;
}
