/* String and Binary outputs in `rtcosim run` results (run_text_columns.c). */
#ifndef RTCOSIM_CLI_RUN_TEXT_COLUMNS_H
#define RTCOSIM_CLI_RUN_TEXT_COLUMNS_H

#include "rtcosim/master.h"
#include "rtcosim/results.h"

typedef struct run_text_columns {
    size_t count;
    rtcosim_component **components;
    uint32_t *vrs;
    rtcosim_type *types;
    char **names; /* "comp.var" */
} run_text_columns;

/* The master's String and Binary observations; 0, or a CLI exit code. */
int run_text_columns_init(run_text_columns *t, const rtcosim_master *m);
/* Reads each into row[i] (strings and bytes valid until the next call into
 * that component). */
rtcosim_status run_text_columns_read(const run_text_columns *t, rtcosim_value *row,
                                     rtcosim_error *err);
void run_text_columns_free(run_text_columns *t);

#endif
