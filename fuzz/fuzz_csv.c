/* Fuzz target for the input CSV reader: arbitrary bytes must give a table or
 * a clean error (no crash, leak or hang), and a table must be interpolable at
 * any time. With text columns, each is also split as an array in fmusim's
 * layout (csv_split_array_columns, as `simulate --input-file` does for an
 * array input) with the first row's count of values: a table of that many
 * columns more, the same rows and times, finite numbers, or a clean error. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "csv/csv_split.h"
#include "rtcosim/component.h"
#include "rtcosim/csv.h"

/* Every other column a text column (Binary inputs' hex cells). */
static bool odd_columns(void *context, const char *column)
{
    size_t *seen = context;
    (void)column;
    return (*seen)++ % 2 == 1;
}

static bool even_elements(void *context, const char *column)
{
    (void)context;
    size_t len = strlen(column);
    return len > 2 && (column[len - 2] - '0') % 2 == 0;
}

static void split_arrays(const rtcosim_csv *table)
{
    size_t cols = rtcosim_csv_column_count(table), total = 0, arrays = 0;
    size_t *widths = calloc(cols + 1, sizeof *widths);
    char ***names = calloc(cols + 1, sizeof *names);
    for (size_t c = 0; widths && names && c < cols; c++) {
        const char *cell = rtcosim_csv_text(table, 0, c);
        char copy[256], *tokens[9];
        if (cell && strlen(cell) < sizeof copy) {
            memcpy(copy, cell, strlen(cell) + 1);
            size_t n = csv_split_blanks(copy, tokens, 9);
            widths[c] = n > 0 && n <= 9 ? n : 0;
        }
        if (widths[c] && (names[c] = calloc(widths[c], sizeof *names[c])))
            for (size_t k = 0; k < widths[c]; k++)
                if ((names[c][k] = malloc(16)))
                    snprintf(names[c][k], 16, "a%zu[%zu]", c, k + 1);
        arrays += widths[c] != 0;
        total += widths[c] ? widths[c] : 1;
    }
    rtcosim_csv *split = NULL;
    rtcosim_error err;
    if (arrays && csv_split_array_columns(table, widths, (const char *const *const *)names,
                                          even_elements, NULL, &split, &err) == RTCOSIM_OK) {
        if (rtcosim_csv_column_count(split) != total ||
            rtcosim_csv_row_count(split) != rtcosim_csv_row_count(table))
            abort();
        for (size_t r = 0; r < rtcosim_csv_row_count(split); r++) {
            if (rtcosim_csv_time(split, r) != rtcosim_csv_time(table, r))
                abort();
            for (size_t c = 0; c < total; c++)
                if (!rtcosim_csv_text(split, r, c) && !isfinite(rtcosim_csv_value(split, r, c)))
                    abort();
        }
    }
    rtcosim_csv_free(split);
    for (size_t c = 0; names && c < cols; c++) {
        for (size_t k = 0; names[c] && k < widths[c]; k++)
            free(names[c][k]);
        free(names[c]);
    }
    free(names);
    free(widths);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rtcosim_csv *table = NULL;
    rtcosim_error err;
    /* The first byte chooses plain numbers or text columns too. */
    bool text = size > 0 && (data[0] & 1);
    size_t seen = 0;
    rtcosim_status st = text ? rtcosim_csv_read_memory_text("fuzz.csv", data + 1, size - 1,
                                                            odd_columns, &seen, &table, &err)
                             : rtcosim_csv_read_memory("fuzz.csv", data, size, &table, &err);
    if (st != RTCOSIM_OK)
        return 0;
    for (size_t c = 0; c < rtcosim_csv_column_count(table); c++) {
        const char *cell = rtcosim_csv_text(table, rtcosim_csv_row_count(table) - 1, c);
        uint8_t bytes[64];
        size_t n, bad;
        if (cell && strlen(cell) < 2 * sizeof bytes)
            (void)rtcosim_binary_from_hex(cell, bytes, &n, &bad);
    }
    if (text)
        split_arrays(table);
    rtcosim_csv_cursor cursor;
    rtcosim_csv_cursor_init(&cursor, table);
    size_t rows = rtcosim_csv_row_count(table);
    for (size_t r = 0; r < rows && r < 64; r++) {
        rtcosim_time_ns t = rtcosim_csv_time(table, r);
        rtcosim_csv_cursor_seek(&cursor, t);
        for (size_t c = 0; c < rtcosim_csv_column_count(table); c++) {
            (void)rtcosim_csv_cursor_linear(&cursor, c);
            (void)rtcosim_csv_cursor_hold(&cursor, c);
        }
    }
    rtcosim_csv_cursor_seek(&cursor, INT64_MIN);
    rtcosim_csv_cursor_seek(&cursor, INT64_MAX);
    rtcosim_csv_free(table);
    return 0;
}
