/* Fuzz target for the input CSV reader: arbitrary bytes must give a table or
 * a clean error (no crash, leak or hang), and a table must be interpolable at
 * any time. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rtcosim/component.h"
#include "rtcosim/csv.h"

/* Every other column a text column (Binary inputs' hex cells). */
static bool odd_columns(void *context, const char *column)
{
    size_t *seen = context;
    (void)column;
    return (*seen)++ % 2 == 1;
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
