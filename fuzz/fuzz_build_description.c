/* Fuzz target for a source-code FMU's build description (src/fmi/
 * fmu_sources.c): the input, after its first byte, is FMI 3.0's
 * sources/buildDescription.xml (first byte even) or FMI 2.0's
 * modelDescription.xml with SourceFiles (odd), of an unpacked FMU whose
 * modelIdentifier is "M" and whose sources/ holds a.c, b.c and include/.
 * The description is read and checked as the build would (nothing is
 * compiled). Oracle: no crash, leak or hang; a refusal is one line; an
 * accepted description names at least one source file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fmi/fmu_internal.h"

static char dir[] = "/tmp/rtcosim-fuzz-XXXXXX";
static char path[2][128];

static void put(const char *name, const void *data, size_t size)
{
    char p[160];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
}

static void remove_all(void)
{
    static const char *const names[] = {"sources/a.c", "sources/b.c", "sources/buildDescription.xml",
                                        "modelDescription.xml", "sources/include", "sources"};
    char p[160];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        remove(p);
    }
    remove(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!path[0][0]) {
        char p[160];
        if (!mkdtemp(dir))
            abort();
        atexit(remove_all);
        snprintf(p, sizeof p, "%s/sources", dir);
        mkdir(p, 0700);
        snprintf(p, sizeof p, "%s/sources/include", dir);
        mkdir(p, 0700);
        put("sources/a.c", "", 0);
        put("sources/b.c", "", 0);
        snprintf(path[0], sizeof path[0], "sources/buildDescription.xml");
        snprintf(path[1], sizeof path[1], "modelDescription.xml");
    }
    if (size == 0)
        return 0;
    int v = data[0] & 1 ? 2 : 3;
    put(path[v == 2], data + 1, size - 1);
    size_t files = 0;
    rtcosim_error err;
    rtcosim_status st = rtcosim_fmu_sources_read(dir, "M", v, data[0] & 2, "x86_64-linux", &files,
                                                 &err);
    if (st != RTCOSIM_OK && (strchr(err.message, '\n') || !err.message[0]))
        abort();
    if (st == RTCOSIM_OK && files == 0)
        abort();
    return 0;
}
