/* Fuzz target for MAT result files read back (src/results/result_table.c: the
 * Modelica/Dymola layout through libmatio), as `rtcosim plot` reads them and
 * a table component takes them as a stimulus (src/system/table.c). Arbitrary
 * bytes must give a table or a clean one-line error (no crash, leak or
 * hang). The corpus starts from a result file the build writes (binaries are
 * not committed as seeds). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_file.h"
#include "results/result_table.h"
#include "rtcosim/system.h"

/* libmatio allocates what a matrix header says and checks the result (the
 * reader bounds what it can, but not the headers inside a compressed
 * variable): a huge size must come back NULL, as malloc gives it outside
 * ASan, not stop the run as ASan's default does. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file("in.mat", data, size);
    result_table *t = NULL;
    rtcosim_error err;
    if (result_table_read_mat(path, &t, &err) != RTCOSIM_OK) {
        if (strchr(err.message, '\n'))
            abort(); /* errors are one line */
        return 0;
    }
    double sum = 0;
    for (size_t c = 0; c < t->column_count; c++) {
        sum += (double)strlen(t->columns[c].name);
        for (size_t r = 0; r < t->rows; r++)
            sum += t->columns[c].values[r] == 0;
    }
    result_table_free(t);
    /* the same file as a table component */
    rtcosim_component *c = NULL;
    if (rtcosim_table_component_load(path, &c, &err) == RTCOSIM_OK)
        rtcosim_component_free(c);
    else if (strchr(err.message, '\n'))
        abort();
    return sum < 0;
}
