/* An input file's columns mapped to the inputs they drive (`run
 * --input-column INPUT=COLUMN`, rtcosim_system_load_options.input_columns):
 * the table keeps only those columns, each under its input's name. Shared
 * by the table component (table.c) and the system's input table
 * (input_table.c, system_model.c). Not part of the public API. */
#ifndef RTCOSIM_SYSTEM_TABLE_MAP_H
#define RTCOSIM_SYSTEM_TABLE_MAP_H

#include <stdbool.h>
#include <stddef.h>

#include "rtcosim/component.h"
#include "rtcosim/csv.h"
#include "rtcosim/system.h"

#pragma GCC visibility push(hidden)

typedef struct table_map {
    size_t count;               /* 0: every column under its own name */
    const char *const *column;  /* the file's column ... */
    const char *const *input;   /* ... drives this input */
} table_map;

/* The input file at path (rtcosim_csv_read_input_file, the file's columns
 * for which is_text(context, column) holds kept as text; is_text NULL:
 * none) with map applied (NULL or count 0: as it is). */
rtcosim_status table_map_read(const char *path, const table_map *map,
                              bool (*is_text)(void *context, const char *column), void *context,
                              rtcosim_csv **out, rtcosim_error *err);
/* rtcosim_table_component_load_columns on that table. */
rtcosim_status table_component_load_mapped(const char *path, const table_map *map,
                                           const rtcosim_table_column *columns,
                                           size_t column_count, rtcosim_component **out,
                                           rtcosim_error *err);

#pragma GCC visibility pop

#endif
