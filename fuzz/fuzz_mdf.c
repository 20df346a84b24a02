/* Fuzz target for MDF 4 and MDF 3 measurement files (src/results/mdf_read.c,
 * mdf4_read.c, mdf3_read.c), as
 * `rtcosim plot` reads them and a stimulus takes them (--input-file, table
 * components). Arbitrary bytes must give a table or a clean one-line error
 * (no crash, leak or hang). The corpus starts from an MDF file the build's
 * CLI writes (binaries are not committed as seeds). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "results/result_table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
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
