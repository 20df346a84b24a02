/* `rtcosim run`'s command line (run_args.c) shared by its plain run
 * (cmd_run.c) and its real-time run (run_realtime.c). */
#ifndef RTCOSIM_CLI_RUN_ARGS_H
#define RTCOSIM_CLI_RUN_ARGS_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "run_can_bus.h"
#include "run_distribute.h"
#include "run_isolate.h"
#include "run_serve.h"
#include "run_speculate.h"
#include "run_variants.h"
#include "rtcosim/dcp.h"
#include "rtcosim/fmu.h"
#include "rtcosim/system.h"
#include "rtcosim/system_rt.h"

typedef struct run_args {
    const char *system;
    bool has_start, has_stop, has_interval;
    rtcosim_time_ns start, stop, interval;
    rtcosim_system_build_options build;
    rtcosim_fmu_options fmu_options; /* build.fmu points here when given */
    rtcosim_dcp_bindings *dcp; /* --dcp */
    const char **parameter_sets;
    size_t parameter_set_count;
    /* --parameter-set NAME (no .ssv ending): libcosim's choice of one named
     * set among the system's bindings (rtcosim_system_load_options). */
    const char *parameter_set_name;
    const char **start_names, **start_values;
    size_t start_count;
    const char **observe;
    size_t observe_count;
    const char *output_file;
    const char *input_file; /* --input-file (an FMU run alone) */
    /* --input-column INPUT=COLUMN: the input file's columns kept (columns)
     * and the inputs they drive (inputs, owned) */
    const char **input_columns;
    char **input_inputs;
    size_t input_column_count;
    char default_output[256]; /* <system>_out.csv when no --output-file */
    const char *coupling_stats; /* --coupling-stats FILE: per macro step CSV */
    double step_timeout; /* s; 0: none */
    bool allow_outside;  /* a .ssp may reference files outside the package */
    bool csv_units;      /* --csv-units: a units row under the CSV header */
    int writer_thread;   /* --writer-thread 1, --no-writer-thread 0, else -1: decided */
    /* Real time. */
    bool real_time, virtual_clock, no_calibrate, quiet;
    const char *dcp_mode; /* --dcp-mode: "srt", "nrt" or NULL */
    bool threads_auto; /* --threads auto */
    bool given_factor, given_overrun, given_timeout, given_window; /* over the annotation */
    /* --priority or --rt-option priority/lock-memory given: no automatic
     * SCHED_FIFO and memory locking (--priority 0: normal scheduling). */
    bool given_scheduling;
    rtcosim_rt_options rt;
    char non_realtime[4096];
    char exchange[256];
    const char *estimator; /* the last --estimator (any given) */
    const char *estimators[64]; /* every --estimator: SPEC or SIGNAL=SPEC */
    size_t estimator_count;
    rtcosim_system_rt_delay *delays;
    rtcosim_time_ns **schedules;
    size_t delay_count;
    cli_speculate speculate;
    cli_distribute distribute; /* --distribute over the ranks of mpirun, --place COMP=RANK */
    bool isolate, no_isolate;  /* --isolate [C,..], --no-isolate */
    run_isolation *isolation;  /* the selection (mutable: the build's wrap context) */
    cli_can_buses can;         /* --can-bus and its options */
    cli_serve serve;           /* --serve and its options */
    run_variants *variants;    /* --variants, --anytime-strategy, --anytime-budget */
} run_args;

void cli_run_usage(FILE *out);
/* Parses argv into *a (its arrays sized argc by the caller); non-zero on a
 * bad command line (message printed). */
int cli_run_parse_args(int argc, char **argv, run_args *a);
/* --real-time: runs desc paced from start to stop; returns the exit code. */
int cli_run_real_time(const run_args *a, const rtcosim_system_desc *desc, rtcosim_time_ns start,
                      rtcosim_time_ns stop);

static inline double cli_wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The order, per-step sequence and coupling defaults a master chose, one line
 * each, prefixed by label (cmd_run.c). */
struct rtcosim_master;
void cli_print_master_plan(const struct rtcosim_master *m, const char *label);

/* One of the final values a run prints, "  name  value", as a person reads
 * it: an Int64 or UInt64 from `exact` (when not NULL) whole, other
 * integers and Booleans (v's type) whole, floats to 9 digits (cmd_run.c). */
void cli_print_final_value(const char *name, const rtcosim_variable *v, double x,
                           const rtcosim_value *exact);

#endif
