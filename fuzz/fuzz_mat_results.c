/* Fuzz target for MAT result files read back (src/results/result_table.c: the
 * Modelica/Dymola layout through libmatio), as `rtcosim plot` reads them and
 * a table component takes them as a stimulus (src/system/table.c). Arbitrary
 * bytes must give a table or a clean one-line error (no crash, leak or
 * hang); the slab reader, the whole one and the rows streamed to convert
 * give the same values. The corpus starts from a result file the build writes (binaries are
 * not committed as seeds). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_file.h"
#include "results/result_table.h"
#include "results/table_match.h"
#include "rtcosim/system.h"

/* libmatio allocates what a matrix header says and checks the result (the
 * reader bounds what it can, but not the headers inside a compressed
 * variable): a huge size must come back NULL, as malloc gives it outside
 * ASan, not stop the run as ASan's default does. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }

/* Table b is table a with only the columns `s` names: the same rows, times,
 * and those columns' names, units and values bit for bit. */
static void same_table(const result_table *a, const result_table *b, const result_select *s)
{
    if (a->rows != b->rows)
        __builtin_trap();
    for (size_t r = 0; r < a->rows; r++)
        if (!table_same_value(a->time[r], b->time[r]))
            __builtin_trap();
    size_t k = 0;
    for (size_t c = 0; c < a->column_count; c++) {
        if (!result_select_has(s, a->columns[c].name))
            continue;
        const result_column *x = &a->columns[c], *y = &b->columns[k++];
        if (k > b->column_count || strcmp(x->name, y->name) != 0 ||
            (x->unit == NULL) != (y->unit == NULL) || (x->unit && strcmp(x->unit, y->unit) != 0))
            __builtin_trap();
        for (size_t r = 0; r < a->rows; r++)
            if (!table_same_value(x->values[r], y->values[r]))
                __builtin_trap();
    }
    if (k != b->column_count)
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file("in.mat", data, size);
    result_table *t = NULL;
    rtcosim_error err;
    /* data_2 read whole (the reference), then a slab at a time */
    setenv("RTCOSIM_MAT_WHOLE", "1", 1);
    rtcosim_status whole = result_table_read_mat(path, &t, &err);
    unsetenv("RTCOSIM_MAT_WHOLE");
    result_table *u = NULL;
    rtcosim_error err2;
    if ((result_table_read_mat(path, &u, &err2) == RTCOSIM_OK) != (whole == RTCOSIM_OK))
        __builtin_trap();
    if (whole != RTCOSIM_OK) {
        if (strchr(err.message, '\n') || strchr(err2.message, '\n'))
            abort(); /* errors are one line */
        return 0;
    }
    same_table(t, u, NULL);
    result_table_free(u);
    /* handed over a slab of time points at a time (convert's way): the same
     * rows where it streams */
    table_gather g = {0};
    result_row_sink sink = {&g, table_gather_columns, table_gather_row};
    result_stream_outcome outcome;
    rtcosim_status st = result_mat_stream_select(path, NULL, &sink, &outcome, &err2);
    if (st != RTCOSIM_OK && !g.failed)
        __builtin_trap(); /* the table was read: its rows stream */
    if (st == RTCOSIM_OK && outcome == RESULT_STREAMED)
        same_table(t, g.t, NULL);
    result_table_free(g.t);
    /* every other variable alone */
    const char **names = calloc(t->column_count + 1, sizeof *names);
    size_t n = 0;
    for (size_t c = 0; names && c < t->column_count; c += 2)
        names[n++] = t->columns[c].name;
    result_select sel = {names, n};
    if (names && n && result_table_read_mat_select(path, &sel, &u, &err2) == RTCOSIM_OK) {
        same_table(t, u, &sel);
        result_table_free(u);
    } else if (names && n) {
        __builtin_trap(); /* (the whole read went through) */
    }
    free(names);
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
