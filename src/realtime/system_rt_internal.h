/* Internals of real-time system runs shared by their files: setup
 * (system_rt.c), a part's master as one group component (system_rt_group.c)
 * and calibration and the run (system_rt_run.c). */
#ifndef RTCOSIM_SYSTEM_RT_INTERNAL_H
#define RTCOSIM_SYSTEM_RT_INTERNAL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtcosim/log.h"
#include "rtcosim/master.h"
#include "rtcosim/results.h"
#include "rtcosim/system_rt.h"

#define LOG_CATEGORY "realtime"
#define NAME_LEN 512

/* One variable of a group: an inner component's variable. Inputs apply the
 * connection's transformation (end = factor * start + offset, SSP 1.0
 * ssc:LinearTransformation or unit conversion) to the value received. */
/* Bytes of a String column's last value kept for the summary. */
#define SYSTEM_RT_LAST_TEXT 64

typedef struct group_var {
    rtcosim_component *inner;
    uint32_t inner_vr;
    double factor, offset;
    double raw; /* inputs: the last value received, before transformation */
    size_t observed; /* outputs: index among the part master's observed values */
    double held; /* outputs: the value at the master's time before its last step */
} group_var;

typedef struct group {
    rtcosim_master *master;
    /* The end of the last frame the part stepped: the executor's time. The
     * master may be ahead of it, at its next communication point, when every
     * component of the part steps a multiple of the macro step (a tick
     * advances to the earliest next communication point, step.c). */
    rtcosim_time_ns time;
    rtcosim_variable *vars; /* vr = index */
    group_var *links;
    size_t count;
    struct rtcosim_system_rt *srt;
    bool records; /* the real-time group records the results */
    bool runs_ahead; /* a tick of the master spans more than one macro step */
} group;

/* The real-time part and up to RTCOSIM_SYSTEM_RT_PARTS_MAX non-real-time ones. */
#define SRT_PARTS (RTCOSIM_SYSTEM_RT_PARTS_MAX + 1)

struct rtcosim_system_rt {
    const rtcosim_system_desc *desc;
    rtcosim_system_rt_options options;
    rtcosim_time_ns macro_step;
    int *part_of; /* per description component: 0 real-time, p >= 1 non-real-time part p */
    int part_count; /* 1 + non-real-time parts */
    rtcosim_master *parts[SRT_PARTS];
    group groups[SRT_PARTS];
    rtcosim_component *group_components[SRT_PARTS];
    rtcosim_rt *rt;
    rtcosim_clock *owned_pacing, *owned_partner_clocks[SRT_PARTS];
    rtcosim_clock *delay_clocks[SRT_PARTS];
    char *part_names[SRT_PARTS]; /* components of each part, ", "-joined */
    char *group_labels[SRT_PARTS]; /* each part's group: "realtime", its components '+'-joined */
    char *nonrt_names; /* every non-real-time part's names, parts " | "-separated */
    /* Start values of the inputs fed across the parts (from the whole
     * system's initialization), as "component.variable" and %.17g text. */
    char **cross_names, **cross_values;
    size_t cross_count;
    /* Results. */
    char **columns;
    size_t column_count;
    size_t numeric_column_count; /* the String and Binary columns follow these */
    long *column_rt_index;   /* index among the real-time master's observed, or -1 */
    long *column_input;      /* else the real-time group's input carrying it */
    long *column_text;       /* else its index among the master's text observed */
    rtcosim_value *row;
    double *last_values;     /* NaN in a String or Binary column */
    /* The numeric columns of Int64 and UInt64 outputs of the real-time part,
     * recorded exactly (row holds their i64 / u64, not a rounded double). */
    bool *column_exact;
    size_t *exact_columns, exact_count;
    rtcosim_value *text_values; /* the master's text observed, read per recorded row */
    char (*last_text)[SYSTEM_RT_LAST_TEXT]; /* per column: the last String (cut) or
                                               Binary size, for the summary */
    rtcosim_recorder *recorder;
    uint64_t rows_written;
    rtcosim_time_ns last_row_time;
    bool any_row;
    rtcosim_status record_status;
    rtcosim_error record_error;
    /* Completing the non-real-time parts after the run (see finish_partner):
     * the connections and the time of the last exchange. */
    rtcosim_rt_connection *conns;
    size_t conn_count;
    rtcosim_time_ns last_exchange;
};

#pragma GCC visibility push(hidden)

/* system_rt_group.c */
extern const rtcosim_component_ops system_rt_group_ops;
rtcosim_status system_rt_group_get(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                                   void *values, rtcosim_error *err);
rtcosim_status system_rt_group_set(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                                   const void *values, rtcosim_error *err);
rtcosim_status system_rt_group_step(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                    rtcosim_step_result *result, rtcosim_error *err);
/* Adds a variable (an inner component's) to a group; its index, or -1. */
long system_rt_group_add(group *g, size_t capacity, rtcosim_master *m, const char *component,
                         const char *variable, rtcosim_causality causality, double factor,
                         double offset, const char *file, int line, rtcosim_error *err);
void system_rt_group_free(group *g);
/* Records the row at t from the paced thread (always: the final row). */
void system_rt_record(rtcosim_system_rt *srt, rtcosim_time_ns t, bool always);

/* system_rt.c */
rtcosim_status system_rt_build_part(rtcosim_system_rt *srt, int part, rtcosim_master **out,
                                    rtcosim_error *err);
/* system_rt_results.c: the results file, when the options name one */
rtcosim_status system_rt_open_results(rtcosim_system_rt *srt, rtcosim_error *err);

#pragma GCC visibility pop

#endif
