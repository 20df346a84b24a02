/* Fuzz target for the results reader of `rtcosim plot` (src/plot/plot_data.c):
 * a CSV whose second row may be a units row ("s","m",...) and whose cells
 * may be "nan"/"inf". Arbitrary bytes must give a table or a clean error
 * (no crash, leak or hang). The reader takes a path: the bytes go to a
 * file in a private directory made once. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_file.h"
#include "plot/plot_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file("in.csv", data, size);
    plot_table *t = NULL;
    rtcosim_error err;
    if (plot_table_read(path, &t, &err) != RTCOSIM_OK)
        return 0;
    /* every cell readable, names and units terminated */
    double sum = 0;
    for (size_t c = 0; c < t->column_count; c++) {
        sum += (double)strlen(t->columns[c].name) + (t->columns[c].unit ? strlen(t->columns[c].unit) : 0);
        for (size_t r = 0; r < t->rows; r++)
            sum += t->columns[c].values[r] == 0;
    }
    for (size_t r = 0; r < t->rows; r++)
        sum += t->time[r] == 0;
    plot_table_free(t);
    return sum < 0;
}
