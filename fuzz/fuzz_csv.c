/* Fuzz target for the input CSV reader: arbitrary bytes must give a table or
 * a clean error (no crash, leak or hang), and a table must be interpolable at
 * any time. */
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/csv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rtcosim_csv *table = NULL;
    rtcosim_error err;
    if (rtcosim_csv_read_memory("fuzz.csv", data, size, &table, &err) != RTCOSIM_OK)
        return 0;
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
