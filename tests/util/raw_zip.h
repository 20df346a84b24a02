/* A zip writer of stored (uncompressed) entries, byte by byte after APPNOTE
 * 4.3, writing the entries exactly as listed: unlike libzip it writes one
 * name twice, which the tests and the archive fuzzer need for archives with
 * duplicate entries. No cmocka: the fuzz targets use it too. */
#ifndef RTCOSIM_TESTS_UTIL_RAW_ZIP_H
#define RTCOSIM_TESTS_UTIL_RAW_ZIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct raw_zip_entry {
    const char *name;
    const void *data;
    size_t size;
    uint32_t unix_mode; /* st_mode to record (e.g. S_IFLNK | 0777); 0: none */
} raw_zip_entry;

/* False when the file cannot be written or an entry is too large. */
bool raw_zip_write(const char *path, const raw_zip_entry *entries, size_t n);

#endif
