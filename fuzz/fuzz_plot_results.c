/* Fuzz target for the results reader of `rtcosim plot` (src/plot/plot_data.c,
 * plot_csv.c): a CSV whose second row may be a units row ("s","m",...) and
 * whose cells may be "nan"/"inf". Arbitrary bytes must give a table or a
 * clean error (no crash, leak or hang), and the streaming reader
 * (plot_csv_read, a line at a time; and plot_csv_read_kinds, its columns
 * without values) must give what the whole reader
 * (plot_table_read_csv_whole) gives: both succeed or both fail, and then the
 * same rows, names, units, text flags and values bit for bit. The first
 * input byte also picks a selection (every column, or every other one), so
 * that dropping columns while reading is held to dropping them after. The
 * reader takes a path: the bytes go to a file in a private directory made
 * once. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_file.h"
#include "plot/plot_internal.h"
#include "rtcosim/results.h"

static void differ(const char *what)
{
    fprintf(stderr, "streaming and whole CSV readers differ: %s\n", what);
    abort();
}

static bool same_text(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool same_values(const double *a, const double *b, size_t n)
{
    return n == 0 || memcmp(a, b, n * sizeof *a) == 0; /* bitwise: NaN == NaN */
}

static void compare(const plot_table *a, const plot_table *b)
{
    if (a->rows != b->rows)
        differ("rows");
    if (a->column_count != b->column_count)
        differ("column count");
    if (!same_text(a->first_name, b->first_name))
        differ("first column's name");
    if (!same_values(a->time, b->time, a->rows))
        differ("time");
    for (size_t c = 0; c < a->column_count; c++) {
        const plot_column *x = &a->columns[c], *y = &b->columns[c];
        if (!same_text(x->name, y->name))
            differ("a name");
        if (!same_text(x->unit, y->unit))
            differ("a unit");
        if (x->text != y->text)
            differ("a text flag");
        if (x->not_numbers != y->not_numbers)
            differ("a count of cells that are no number");
        if (x->empty != y->empty)
            differ("a flag of a column without a value");
        if (!same_values(x->values, y->values, a->rows))
            differ("a column's values");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file("in.csv", data, size);
    plot_table *t = NULL, *whole = NULL;
    rtcosim_error err, whole_err;
    /* a selection: every other column of the header, by name, when the
     * first byte is odd (names found by the names-only read) */
    static const char *const none[] = {"not a column"};
    plot_table *names = NULL;
    const char **picked = NULL;
    result_select select = {0};
    if (size > 0 && (data[0] & 1) && plot_csv_read_names(path, &names, &err) == RTCOSIM_OK &&
        (picked = calloc(names->column_count + 1, sizeof *picked))) {
        for (size_t c = 0; c < names->column_count; c += 2)
            picked[select.count++] = names->columns[c].name;
        select.names = picked;
        if (select.count == 0)
            select.names = none, select.count = 1;
    }
    rtcosim_status st = plot_csv_read(path, &select, &t, &err);
    rtcosim_status whole_st = plot_table_read_csv_whole(path, &select, &whole, &whole_err);
    if ((st == RTCOSIM_OK) != (whole_st == RTCOSIM_OK)) {
        fprintf(stderr, "streaming: %s\nwhole: %s\n", st == RTCOSIM_OK ? "ok" : err.message,
                whole_st == RTCOSIM_OK ? "ok" : whole_err.message);
        differ("success or failure");
    }
    if (st == RTCOSIM_OK)
        compare(t, whole);
    /* the kinds-only scan (rtcosim convert's first pass): the same verdict,
     * and the same rows, names, units and text columns without values */
    plot_table *kinds = NULL;
    rtcosim_status kinds_st = plot_csv_read_kinds(path, &select, NULL, NULL, &kinds, &err);
    if ((kinds_st == RTCOSIM_OK) != (st == RTCOSIM_OK))
        differ("kinds: success or failure");
    if (kinds_st == RTCOSIM_OK) {
        if (kinds->rows != t->rows || kinds->column_count != t->column_count || kinds->time)
            differ("kinds: rows or columns");
        for (size_t c = 0; c < t->column_count; c++) {
            const result_column *a = &kinds->columns[c], *b = &t->columns[c];
            if (strcmp(a->name, b->name) != 0 || a->text != b->text || a->values ||
                a->not_numbers != b->not_numbers || a->empty != b->empty ||
                (!a->unit != !b->unit) || (a->unit && strcmp(a->unit, b->unit) != 0))
                differ("kinds: a column");
            /* a column convert writes as 64-bit integers: a whole number in
             * every row, one of them past 2^53 (what a double rounds) */
            bool big = false;
            for (size_t r = 0; a->exact != RESULT_EXACT_NONE && r < t->rows; r++) {
                double v = b->values[r];
                if (v != v || isinf(v) || v != nearbyint(v))
                    differ("kinds: an exact column with a cell that is no whole number");
                big = big || v >= 9007199254740992.0 || v <= -9007199254740992.0;
            }
            if (a->exact != RESULT_EXACT_NONE && !big)
                differ("kinds: an exact column a double holds");
        }
    }
    plot_table_free(kinds);
    /* `rtcosim info`'s summary of the file: written, or one line of error */
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (out) {
        rtcosim_status info_st = rtcosim_results_print_table(path, out, &err);
        fclose(out);
        if (info_st != RTCOSIM_OK && strchr(err.message, '\n'))
            differ("info: an error of more than one line");
        free(text);
    }
    free(picked);
    plot_table_free(names);
    plot_table_free(whole);
    if (st != RTCOSIM_OK)
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
