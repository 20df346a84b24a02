/* What a model for FMI 3.0 scheduled execution (chapter 5) adds to model.h:
 * its clocks (the input clocks are its model partitions), which variables
 * each clock owns, Binary limits, and the partition functions. The glue
 * (fmi3_se_glue.c) and the description writer (describe_se.c) read the same
 * tables, so the XML and the binary agree on clocks as on variables. Clock
 * value references lie above the variable table's (whose references equal
 * their indices). */
#ifndef RTCOSIM_SE_MODEL_H
#define RTCOSIM_SE_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"

typedef struct se_clock_def {
    const char *name;
    uint32_t value_reference;
    bool input;                      /* input: a model partition; else an output clock */
    const char *interval_variability; /* "constant", "countdown", "triggered", ... */
    const char *interval_decimal;    /* NULL: attribute absent */
    const char *shift_decimal;       /* NULL: attribute absent */
    int priority;                    /* < 0: attribute absent (output clocks) */
    const char *description;
} se_clock_def;

/* A clocked variable (FMI 3.0 section 2.4.7.4 `clocks`). */
typedef struct se_clocked_def {
    uint32_t value_reference;
    const char *clocks; /* value references, space separated */
} se_clocked_def;

/* A Binary variable's maxSize and mimeType (section 2.4.7.3). */
typedef struct se_binary_def {
    uint32_t value_reference;
    size_t max_size;
    const char *mime_type;
} se_binary_def;

typedef struct se_model_def {
    const se_clock_def *clocks;
    size_t clock_count;
    const se_clocked_def *clocked;
    size_t clocked_count;
    const se_binary_def *binaries;
    size_t binary_count;
    /* Runs the partition of input clock `clock` at `time` (fmi3ActivateModelPartition). */
    model_status (*activate)(model_instance *inst, void *data, uint32_t clock, double time);
    /* fmi3GetIntervalDecimal of a countdown clock: qualifier 0 not yet
     * known, 1 unchanged, 2 changed (then *interval is set). */
    model_status (*get_interval)(model_instance *inst, void *data, uint32_t clock,
                                 double *interval, int *qualifier);
    /* fmi3GetClock of an output clock: whether it ticked; a read resets it. */
    model_status (*get_clock)(model_instance *inst, void *data, uint32_t clock, bool *ticked);
    /* fmi3SetClock of an input clock in co-simulation Event Mode
     * (fmi3_cs_clocks_glue.c; NULL in scheduled execution). */
    model_status (*set_clock)(model_instance *inst, void *data, uint32_t clock, bool ticked);
} se_model_def;

/* Every SE model.c defines this object besides model_definition. */
extern const se_model_def se_model_definition;

/* Calls from a partition to the importer's callbacks (section 5.2.1). */
void se_clock_update(model_instance *inst);
void se_lock_preemption(model_instance *inst);
void se_unlock_preemption(model_instance *inst);

#endif
