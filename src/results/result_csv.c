/* A results CSV read back for conversion at close (result_csv.h). */
#include "result_csv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Every column is read as text and converted here: the input-table reader
 * refuses non-finite numbers, but results may hold the recorder's "nan",
 * "inf", "-inf" (strtod reads them back exactly as the CSV has them). */
static bool column_is_text(void *context, const char *name)
{
    (void)context, (void)name;
    return true;
}

rtcosim_status result_csv_read(const char *csv_path, rtcosim_csv **table, rtcosim_error *err)
{
    return rtcosim_csv_read_file_text(csv_path, column_is_text, NULL, table, err);
}

double result_csv_cell(const rtcosim_csv *table, size_t row, size_t column)
{
    const char *text = rtcosim_csv_text(table, row, column);
    char *end = NULL;
    double v = text && *text ? strtod(text, &end) : NAN;
    return end && *end == '\0' ? v : NAN;
}

const rtcosim_column *result_csv_meta(const rtcosim_column *columns, size_t count,
                                      const char *name)
{
    for (size_t i = 0; columns && i < count; i++)
        if (strcmp(columns[i].name, name) == 0)
            return &columns[i];
    return NULL;
}

bool result_csv_is_text(const rtcosim_column *meta)
{
    return meta && (meta->type == RTCOSIM_TYPE_STRING || meta->type == RTCOSIM_TYPE_BINARY);
}
