/* Fuzz target for MDF 4 and MDF 3 measurement files (src/results/mdf_read.c,
 * mdf4_read.c, mdf3_read.c), as
 * `rtcosim plot` reads them and a stimulus takes them (--input-file, table
 * components). Arbitrary bytes must give a table or a clean one-line error
 * (no crash, leak or hang). `info` of the file (mdf_info.c), which walks an
 * MDF 4 file's records a block at a time, says what it says read whole
 * (RTCOSIM_MDF_INFO_WHOLE=1), or both fail. The corpus starts from an MDF
 * file the build's CLI writes (binaries are not committed as seeds). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_file.h"
#include "results/result_table.h"
#include "rtcosim/results.h"

/* info of the file into a string (NULL: it failed). */
static char *info_of(const char *path, bool whole)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    if (whole)
        setenv("RTCOSIM_MDF_INFO_WHOLE", "1", 1);
    rtcosim_error err;
    rtcosim_status st = rtcosim_results_print_mdf(path, f, &err);
    unsetenv("RTCOSIM_MDF_INFO_WHOLE");
    fclose(f);
    if (st != RTCOSIM_OK) {
        if (strchr(err.message, '\n'))
            abort(); /* errors are one line */
        free(text);
        return NULL;
    }
    return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file("in.mf4", data, size);
    char *streamed = info_of(path, false), *whole = info_of(path, true);
    if (!streamed != !whole || (streamed && strcmp(streamed, whole) != 0))
        __builtin_trap(); /* info walking the records says otherwise than read whole */
    free(streamed);
    free(whole);
    result_table *t = NULL;
    rtcosim_error err;
    if (result_table_read_mdf_bytes(data, size, "in.mf4", &t, &err) != RTCOSIM_OK) {
        if (strchr(err.message, '\n'))
            abort(); /* errors are one line */
        return 0;
    }
    double sum = 0;
    for (size_t c = 0; c < t->column_count; c++)
        for (size_t r = 0; r < t->rows; r++)
            sum += t->columns[c].values[r] == 0;
    result_table_free(t);
    return sum < 0;
}
