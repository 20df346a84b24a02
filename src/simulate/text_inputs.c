/* Inputs of `rtcosim simulate` that an input table keeps as text, every
 * cell decoded once at setup (a bad one named by file, line and column), so
 * that applying inputs per step only copies: Binary from hex cells, as
 * fmusim reads them; Int64 and UInt64 exactly, where a double would round
 * values past 2^53 (9007199254740993 to ...992) and refuse 2^63 - 1. */
#include <stdlib.h>
#include <string.h>

#include "csv/csv_values.h"
#include "rtcosim/simulate.h"
#include "simulate/text_inputs.h"

bool rtcosim_simulate_text_column(void *component, const char *column)
{
    const rtcosim_variable *v = rtcosim_component_find_variable(component, column);
    return v && (v->type == RTCOSIM_TYPE_BINARY || v->type == RTCOSIM_TYPE_INT64 ||
                 v->type == RTCOSIM_TYPE_UINT64);
}

bool rtcosim_simulate_binary_column(void *component, const char *column)
{
    return rtcosim_simulate_text_column(component, column);
}

rtcosim_status simulate_integer_decode(const rtcosim_csv *table, size_t column,
                                       const rtcosim_variable *v, uint64_t **cells,
                                       rtcosim_error *err)
{
    size_t rows = rtcosim_csv_row_count(table);
    if (!(*cells = malloc((rows + 1) * sizeof **cells)))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory reading %s inputs",
                                 rtcosim_type_name(v->type));
    return csv_column_read_integers(table, column, v->name, v->type, *cells, err);
}

rtcosim_status simulate_binary_decode(const rtcosim_csv *table, const size_t *columns,
                                      const char *const *names, size_t count,
                                      rtcosim_binary **cells, uint8_t **bytes, rtcosim_error *err)
{
    size_t rows = rtcosim_csv_row_count(table), total = 0;
    for (size_t k = 0; k < count; k++) {
        if (!rtcosim_csv_text(table, 0, columns[k]))
            return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                     "%s: column '%s': Binary inputs need the table read with "
                                     "rtcosim_csv_read_file_text (hex cells)",
                                     rtcosim_csv_name(table), names[k]);
        for (size_t r = 0; r < rows; r++)
            total += strlen(rtcosim_csv_text(table, r, columns[k])) / 2 + 1;
    }
    *cells = calloc(rows * count + 1, sizeof **cells);
    *bytes = malloc(total + 1);
    if (!*cells || !*bytes)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory reading Binary inputs");
    uint8_t *at = *bytes;
    for (size_t r = 0; r < rows; r++)
        for (size_t k = 0; k < count; k++) {
            const char *text = rtcosim_csv_text(table, r, columns[k]);
            size_t size = 0, bad = 0;
            if (!rtcosim_binary_from_hex(text, at, &size, &bad))
                return rtcosim_error_set(
                    err, RTCOSIM_EINVAL,
                    bad == strlen(text)
                        ? "%s:%zu: column '%s': '%.40s' is not a Binary value (an odd number of "
                          "hex digits; two per byte)"
                        : "%s:%zu: column '%s': '%.40s' is not a Binary value (hex digits only, "
                          "two per byte)",
                    rtcosim_csv_name(table), rtcosim_csv_line(table, r), names[k], text);
            (*cells)[r * count + k] = (rtcosim_binary){.data = size ? at : NULL, .size = size};
            at += size;
        }
    return RTCOSIM_OK;
}
