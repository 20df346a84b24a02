/* Fuzz target for MDF 4 and MDF 3 measurement files (src/results/mdf_read.c,
 * mdf4_read.c, mdf3_read.c), as
 * `rtcosim plot` reads them and a stimulus takes them (--input-file, table
 * components). Arbitrary bytes must give a table or a clean one-line error
 * (no crash, leak or hang). `info` of the file (mdf_info.c), which walks an
 * MDF 4 file's records a block at a time, says what it says read whole
 * (RTCOSIM_MDF_INFO_WHOLE=1), or both fail. The selected read
 * (result_table_read_mdf_select: only the groups of the channels asked for
 * walked) of the first channel, and of every other one, gives the whole
 * read's columns with the rest dropped (names, units, own samples bit for
 * bit, held values at the rows it has), and fails only where the whole
 * read fails; the same selection streamed (result_mdf_stream_select, as
 * `convert` reads) gives the selected table itself where that is one
 * group's records as they are. The corpus starts from an MDF file the build's CLI writes
 * (binaries are not committed as seeds). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_file.h"
#include "results/result_table.h"
#include "results/table_match.h"
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

static bool same_text(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* The selected read of names[0..n) against the whole read with the rest
 * dropped (whole: read again here, as keeping takes it apart). */
static void check_selected(const uint8_t *data, size_t size, const char **names, size_t n)
{
    result_select sel = {names, n};
    result_table *w = NULL, *s = NULL;
    rtcosim_error err;
    rtcosim_status st = result_table_read_mdf_bytes_select(data, size, "in.mf4", &sel, &s, &err);
    if (st != RTCOSIM_OK && strchr(err.message, '\n'))
        abort(); /* errors are one line */
    if (result_table_read_mdf_bytes(data, size, "in.mf4", &w, &err) != RTCOSIM_OK)
        __builtin_trap(); /* (it read before) */
    if (st != RTCOSIM_OK)
        __builtin_trap(); /* the whole read read it: a part of it reads */
    result_table_keep(w, &sel);
    if (s->column_count != w->column_count || !same_text(s->first_name, w->first_name))
        __builtin_trap();
    for (size_t r = 0; r < s->rows; r++)
        if (table_row_at(w, s->time[r]) < 0)
            __builtin_trap(); /* a time the whole read has not */
    for (size_t c = 0; c < s->column_count; c++) {
        const result_column *a = &s->columns[c], *b = &w->columns[c];
        if (strcmp(a->name, b->name) != 0 || !same_text(a->unit, b->unit))
            __builtin_trap();
        size_t an = a->own_time ? a->own_rows : s->rows, bn = b->own_time ? b->own_rows : w->rows;
        const double *at = a->own_time ? a->own_time : s->time,
                     *av = a->own_time ? a->own_values : a->values,
                     *bt = b->own_time ? b->own_time : w->time,
                     *bv = b->own_time ? b->own_values : b->values;
        if (an != bn)
            __builtin_trap();
        for (size_t k = 0; k < an; k++)
            if (!table_same_value(at[k], bt[k]) || !table_same_value(av[k], bv[k]))
                __builtin_trap(); /* its own samples differ */
        for (size_t r = 0; a->own_time && b->own_time && r < s->rows; r++)
            if (!table_same_value(a->values[r], b->values[table_row_at(w, s->time[r])]))
                __builtin_trap(); /* a value held otherwise */
    }
    /* the same selection handed over a record at a time (convert's way):
     * s itself where one group's rows are it */
    table_gather g = {0};
    result_row_sink sink = {&g, table_gather_columns, table_gather_row};
    result_stream_outcome outcome;
    st = result_mdf_stream_bytes_select(data, size, "in.mf4", &sel, &sink, &outcome, &err);
    if (st != RTCOSIM_OK && !g.failed)
        __builtin_trap(); /* the table was read: its records stream */
    if (st == RTCOSIM_OK && table_stream_mismatch(&g, outcome, s))
        __builtin_trap();
    if (g.bits_differ)
        __builtin_trap(); /* a 64-bit integer's exact bits are not its value */
    result_table_free(g.t);
    result_table_free(w);
    result_table_free(s);
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
    /* the selected read: the first channel, then every other one */
    size_t n = t->column_count, k = 0;
    const char **names = malloc((n ? n : 1) * sizeof *names);
    if (!names)
        abort();
    for (size_t c = 0; c < n; c += 2)
        names[k++] = t->columns[c].name;
    if (n)
        check_selected(data, size, names, 1);
    if (k > 1)
        check_selected(data, size, names, k);
    free(names);
    result_table_free(t);
    return sum < 0;
}
