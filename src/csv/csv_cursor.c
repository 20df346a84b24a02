/* Interpolation in an input table at a moving time. Seeking forward walks
 * row by row from the last position (O(1) amortized over a run); seeking back
 * falls back to a binary search. Nothing is allocated. */
#include "csv/csv_values.h"
#include "rtcosim/csv.h"

void rtcosim_csv_cursor_init(rtcosim_csv_cursor *c, const rtcosim_csv *table)
{
    c->table = table;
    c->row = 0;
    c->weight = 0.0;
}

/* Index of the last row with time <= t, or 0 when t precedes every row. */
static size_t last_row_at_or_before(const rtcosim_csv *table, size_t hint, rtcosim_time_ns t)
{
    size_t n = rtcosim_csv_row_count(table);
    size_t row = hint;
    if (rtcosim_csv_time(table, row) > t) {
        size_t lo = 0, hi = row; /* answer in [lo, hi) unless t precedes row 0 */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (rtcosim_csv_time(table, mid) <= t)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo ? lo - 1 : 0;
    }
    while (row + 1 < n && rtcosim_csv_time(table, row + 1) <= t)
        row++;
    return row;
}

void rtcosim_csv_cursor_seek(rtcosim_csv_cursor *c, rtcosim_time_ns t)
{
    const rtcosim_csv *table = c->table;
    size_t row = last_row_at_or_before(table, c->row, t);
    c->row = row;
    c->weight = 0.0;
    rtcosim_time_ns t0 = rtcosim_csv_time(table, row);
    /* Between two rows (t0 <= t < t1, t1 > t0 since row is the last at or
     * before t): weight of the next row in linear interpolation. Before the
     * first row and after the last one the weight stays 0 (hold). */
    if (t >= t0 && row + 1 < rtcosim_csv_row_count(table)) {
        rtcosim_time_ns t1 = rtcosim_csv_time(table, row + 1);
        /* Unsigned differences: exact even when t1 - t0 exceeds INT64_MAX. */
        c->weight = (double)((uint64_t)t - (uint64_t)t0) / (double)((uint64_t)t1 - (uint64_t)t0);
    }
}

void rtcosim_csv_cursor_seek_before(rtcosim_csv_cursor *c, rtcosim_time_ns t)
{
    rtcosim_csv_cursor_seek(c, t);
    while (c->row > 0 && rtcosim_csv_time(c->table, c->row) == t &&
           rtcosim_csv_time(c->table, c->row - 1) == t)
        c->row--;
}

double rtcosim_csv_cursor_hold(const rtcosim_csv_cursor *c, size_t column)
{
    return rtcosim_csv_value(c->table, c->row, column);
}

double rtcosim_csv_cursor_linear(const rtcosim_csv_cursor *c, size_t column)
{
    double v0 = csv_linear_value(c->table, c->row, column);
    if (c->weight == 0.0)
        return v0;
    double v1 = csv_linear_value(c->table, c->row + 1, column);
    return v0 + c->weight * (v1 - v0);
}
