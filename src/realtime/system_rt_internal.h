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

struct rtcosim_system_rt {
    const rtcosim_system_desc *desc;
    rtcosim_system_rt_options options;
    rtcosim_time_ns macro_step;
    bool *is_partner; /* per description component */
    rtcosim_master *parts[2];   /* real-time, non-real-time */
    group groups[2];
    rtcosim_component *group_components[2];
    rtcosim_rt *rt;
    rtcosim_clock *owned_pacing, *owned_partner_clock;
    rtcosim_clock *delay_clocks[2];
    char *part_names[2];
    /* Start values of the inputs fed across the parts (from the whole
     * system's initialization), as "component.variable" and %.17g text. */
    char **cross_names, **cross_values;
    size_t cross_count;
    /* Results. */
    char **columns;
    size_t column_count;
    long *column_rt_index;   /* index among the real-time master's observed, or -1 */
    long *column_input;      /* else the real-time group's input carrying it */
    rtcosim_value *row;
    double *last_values;
    rtcosim_recorder *recorder;
    uint64_t rows_written;
    rtcosim_time_ns last_row_time;
    bool any_row;
    rtcosim_status record_status;
    rtcosim_error record_error;
    /* Completing the non-real-time part after the run (see finish_partner):
     * the connections, the time of the last exchange and the real-time
     * outputs sent then. */
    rtcosim_rt_connection *conns;
    size_t conn_count;
    rtcosim_time_ns last_exchange;
    double *last_sent; /* per real-time group variable */
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

#pragma GCC visibility pop

#endif
