/* Inputs of `rtcosim simulate` that an input table keeps as text, every
 * cell decoded once at setup (a bad one named by file, line and column), so
 * that applying inputs per step only copies: Binary from hex cells, as
 * fmusim reads them; Int64 and UInt64 exactly, where a double would round
 * values past 2^53 (9007199254740993 to ...992) and refuse 2^63 - 1. */
#include <stdlib.h>
#include <string.h>

#include "csv/csv_split.h"
#include "csv/csv_values.h"
#include "rtcosim/simulate.h"
#include "simulate/simulate_internal.h"
#include "simulate/text_inputs.h"

/* The elements of the array `column` names (FMI 3.0: its elements are the
 * variables name[i,j]), *count of them; NULL when it names none. */
static const rtcosim_variable *array_elements(const rtcosim_component *c, const char *column,
                                              size_t *count)
{
    *count = 0;
    if (rtcosim_component_find_variable(c, column))
        return NULL;
    return simulate_start_targets(c, column, count);
}

bool rtcosim_simulate_text_column(void *component, const char *column)
{
    const rtcosim_variable *v = rtcosim_component_find_variable(component, column);
    size_t count;
    if (!v && array_elements(component, column, &count))
        return true; /* an array's elements in one cell, split at setup */
    return v && (v->type == RTCOSIM_TYPE_BINARY || v->type == RTCOSIM_TYPE_INT64 ||
                 v->type == RTCOSIM_TYPE_UINT64);
}

rtcosim_status simulate_split_array_inputs(rtcosim_component *c, const rtcosim_csv *in,
                                           rtcosim_csv **out, rtcosim_error *err)
{
    *out = NULL;
    size_t n = rtcosim_csv_column_count(in), arrays = 0;
    size_t *widths = calloc(n + 1, sizeof *widths);
    const char ***names = calloc(n + 1, sizeof *names);
    rtcosim_status st = widths && names ? RTCOSIM_OK
                                        : rtcosim_error_set(err, RTCOSIM_ENOMEM,
                                                            "%s: out of memory",
                                                            rtcosim_csv_name(in));
    for (size_t i = 0; i < n && st == RTCOSIM_OK; i++) {
        size_t count;
        const rtcosim_variable *v = array_elements(c, rtcosim_csv_column_name(in, i), &count);
        if (!v)
            continue;
        if (!rtcosim_csv_text(in, 0, i)) /* (a table read without rtcosim_simulate_text_column) */
            st = rtcosim_error_set(err, RTCOSIM_EINVAL,
                                   "%s: column '%s' names an array: read the table with "
                                   "rtcosim_simulate_text_column to give its elements in one "
                                   "cell, or give a column per element ('%s', ...)",
                                   rtcosim_csv_name(in), v->name, v->name);
        else if (!(names[i] = calloc(count, sizeof *names[i])))
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", rtcosim_csv_name(in));
        for (size_t k = 0; st == RTCOSIM_OK && k < count; k++)
            names[i][k] = v[k].name;
        widths[i] = count;
        arrays++;
    }
    if (st == RTCOSIM_OK && arrays)
        st = csv_split_array_columns(in, widths, (const char *const *const *)names,
                                     rtcosim_simulate_text_column, c, out, err);
    for (size_t i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
    free(widths);
    return st;
}

bool rtcosim_simulate_mapped_text_column(void *map, const char *column)
{
    const rtcosim_simulate_column_map *m = map;
    for (size_t i = 0; i < m->count; i++)
        if (strcmp(m->columns[i], column) == 0 &&
            rtcosim_simulate_text_column(m->component, m->inputs[i]))
            return true;
    return rtcosim_simulate_text_column(m->component, column);
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
