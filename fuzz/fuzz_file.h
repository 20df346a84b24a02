/* For fuzz targets whose reader takes a path: the input's bytes written to a
 * file `name` in a private directory made at the first call (both removed at
 * exit). Returns the file's path; aborts when it cannot be written. */
#ifndef RTCOSIM_FUZZ_FILE_H
#define RTCOSIM_FUZZ_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static char fuzz_dir[] = "/tmp/rtcosim-fuzz-XXXXXX";
static char fuzz_path[96];

static void fuzz_remove_file(void)
{
    remove(fuzz_path);
    remove(fuzz_dir);
}

static const char *fuzz_file(const char *name, const uint8_t *data, size_t size)
{
    if (!fuzz_path[0]) {
        if (!mkdtemp(fuzz_dir))
            abort();
        snprintf(fuzz_path, sizeof fuzz_path, "%s/%s", fuzz_dir, name);
        atexit(fuzz_remove_file);
    }
    FILE *f = fopen(fuzz_path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    return fuzz_path;
}

#endif
