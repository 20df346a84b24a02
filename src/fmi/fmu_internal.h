/* The loaded-FMU object shared by the loader (fmu.c) and the FMI 2.0 / 3.0
 * component operations (fmi2_ops.c, fmi3_ops.c): resolved function tables,
 * scratch buffers sized at load time, and the status/log helpers both use. */
#ifndef RTCOSIM_FMI_FMU_INTERNAL_H
#define RTCOSIM_FMI_FMU_INTERNAL_H

#include <stdbool.h>

#include "fmi/api/fmi2.h"
#include "fmi/api/fmi3.h"
#include "fmi/model_description.h"
#include "rtcosim/fmu.h"
#include "rtcosim/fmu_clocks.h"
#include "rtcosim/log.h"

typedef struct rtcosim_fmi2_functions {
#define RTCOSIM_FMI_FIELD_(name) name##TYPE *name;
    RTCOSIM_FMI2_COMMON_FUNCTIONS(RTCOSIM_FMI_FIELD_)
    RTCOSIM_FMI2_CS_FUNCTIONS(RTCOSIM_FMI_FIELD_)
    RTCOSIM_FMI2_ME_FUNCTIONS(RTCOSIM_FMI_FIELD_)
} rtcosim_fmi2_functions;

typedef struct rtcosim_fmi3_functions {
    RTCOSIM_FMI3_COMMON_FUNCTIONS(RTCOSIM_FMI_FIELD_)
    RTCOSIM_FMI3_CS_FUNCTIONS(RTCOSIM_FMI_FIELD_)
    RTCOSIM_FMI3_ME_FUNCTIONS(RTCOSIM_FMI_FIELD_)
#undef RTCOSIM_FMI_FIELD_
} rtcosim_fmi3_functions;

typedef struct rtcosim_fmu {
    rtcosim_fmu_info info; /* first, handed out by rtcosim_fmu_info_of */
    rtcosim_component_ops ops; /* per FMU: optional entries NULL when unsupported */
    rtcosim_fmi_md *md;
    char *archive_path;
    char *dir;               /* extraction directory (removed on destroy) */
    /* dir is the user's unpacked FMU, used where it is: never removed; an
     * FMU instantiable once per process is refused there a second time */
    bool in_place, once_per_process;
    char *binary_path;
    char *build_dir; /* a source-code FMU given unpacked: where its binary was built */
    bool built_from_sources; /* fmu_sources.c built the binary */
    /* apply_default_start_values: the version's instantiate (fmu_starts.c) */
    rtcosim_status (*instantiate_plain)(void *self, const char *name, rtcosim_error *err);
    char *resource_location; /* FMI 2: file URI; FMI 3: directory path with '/' */
    void *library;           /* dlopen handle */
    /* The prefix of the library's function names: "" as the standard has it
     * for a binary, or the model identifier and '_' for a library built
     * from sources that define FMI2/3_FUNCTION_PREFIX (rtcosim_fmu_symbol) */
    char symbol_prefix[256];
    void *instance;          /* fmi2Component / fmi3Instance */
    bool model_exchange;     /* loaded through the ModelExchange interface */
    bool scheduled;          /* loaded for scheduled execution (fmi3_se.c) */
    struct rtcosim_fmi3_se *se; /* its callbacks' state; NULL otherwise */
    struct rtcosim_se_schedule *schedule; /* and its scheduler (fmi3_se_schedule.c) */
    /* Binary variables with a maxSize, sorted by value reference (built on
     * the first Binary set, fmi3_clocks.c); count SIZE_MAX: not built yet. */
    struct rtcosim_fmi3_binary_limit *binary_limits;
    size_t binary_limit_count;
    const char *model_identifier; /* of that interface: names the binary */
    struct rtcosim_me *me;   /* model exchange: the integrator (me_solver.c) */
    char *instance_name;
    bool log_calls, visible, fmu_logging;
    /* loggingOn as instantiated: always true, so that an FMU's own words on a
     * failure exist; fmu_logging only decides whether they are shown as they
     * come. The last ones are kept (no allocation: a small ring) and added to
     * the error of a failing call (fmu.c). */
    bool logging_on;
    struct rtcosim_fmu_recent_log {
        char category[32];
        char text[160];
    } recent_log[3];
    unsigned recent_log_next, recent_log_count;
    /* FMI 3.0 co-simulation flags of fmi3InstantiateCoSimulation
     * (rtcosim_fmu_options) and the intermediate updates seen (fmi3_events.c). */
    bool event_mode_used, early_return_allowed, event_mode_where_declared;
    bool early_return_where_declared;
    uint64_t intermediate_updates;
    /* An input or clock was set since the FMU last computed (a get, a step,
     * an update): with providesEvaluateDiscreteStates, fmi3_events.c asks
     * for fmi3EvaluateDiscreteStates before the update. */
    bool inputs_unevaluated;
    /* A function returned Fatal: no further call reaches the FMU, not even
     * the free (FMI 2.0 section 2.1.3, FMI 3.0 section 2.2.3; fmusim
     * frees no instance after Fatal either). */
    bool fatal;
    /* The version's terminate, behind a guard that skips it once any
     * instance of the same binary returned Fatal (fmu.c). */
    rtcosim_status (*terminate_unguarded)(void *self, rtcosim_error *err);

    /* Snapshots made and not yet freed: while there are any, the master may
     * roll back, so doStep may not be told noSetFMUStatePriorToCurrentPoint. */
    size_t live_states;

    /* FMI 3 keeps setup's values for fmi3EnterInitializationMode. */
    bool tolerance_defined, stop_defined;
    double tolerance, start, stop;

    /* Scratch for the types whose layout differs between rtcosim and FMI:
     * FMI 2 Boolean (int) and FMI 3 Binary (separate size and data arrays).
     * Calls with more values than fit are processed in chunks. */
    size_t scratch_count;
    fmi2Boolean *bool_scratch;
    size_t *binary_sizes;
    fmi3Binary *binary_values;

    /* Input derivatives: highest order accepted for every continuous Float64
     * input (0: none). FMI 3 declares them as further inputs (see fmi3_ops.c):
     * base input value reference -> the derivative inputs' references, sorted
     * by base reference, plus value-reference scratch for mapped batches. */
    int max_input_order;
    struct rtcosim_fmi3_input_derivative *input_derivatives;
    size_t input_derivative_count;
    uint32_t *vr_scratch;

    /* FMI 3.0 arrays: element <-> array mapping scratch (fmi3_arrays.c);
     * NULL without arrays. */
    struct rtcosim_fmi3_arrays *arrays;

    /* FMI 1.0: functions, callbacks, negatedAlias mapping (fmi1_ops.c);
     * NULL for 2.0 and 3.0. */
    struct rtcosim_fmi1 *fmi1x;

    fmi2CallbackFunctions fmi2_callbacks; /* must outlive the FMI 2 instance */
    rtcosim_fmi2_functions fmi2;
    rtcosim_fmi3_functions fmi3;
} rtcosim_fmu;

/* Map an FMI status (fmi2Status or fmi3Status, same numbering up to Fatal)
 * to rtcosim: OK/Warning -> OK (warning logged), Discard -> EDISCARD,
 * Error and Pending -> ECOMPONENT, Fatal -> EFATAL. The message names the
 * instance and function, and the time when `t` is not NaN. */
rtcosim_status rtcosim_fmu_status_failed(rtcosim_fmu *f, int fmi_status, const char *function,
                                         double t, rtcosim_error *err);
/* (OK, by far the most common, returns without a call: once per step.) */
static inline rtcosim_status rtcosim_fmu_status(rtcosim_fmu *f, int fmi_status,
                                                const char *function, double t,
                                                rtcosim_error *err)
{
    return fmi_status == 0 ? RTCOSIM_OK : rtcosim_fmu_status_failed(f, fmi_status, function, t, err);
}

/* Log one FMI call at DEBUG, category "fmi" (callers check f->log_calls and
 * rtcosim_log_enabled first, so this costs nothing when off). */
void rtcosim_fmu_log_call(rtcosim_fmu *f, const char *function, int fmi_status,
                          const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
#define RTCOSIM_FMU_TRACE(f, function, status, ...)                                        \
    do {                                                                                   \
        if ((f)->log_calls && rtcosim_log_enabled(RTCOSIM_LOG_DEBUG))                     \
            rtcosim_fmu_log_call((f), (function), (int)(status), __VA_ARGS__);             \
    } while (0)

/* "vr=value, ..." for a batch of values, truncated to fit buf. */
void rtcosim_fmu_format_values(rtcosim_type type, const uint32_t *vrs, size_t n,
                               const void *values, char *buf, size_t size);

/* Log a message from the FMU under its instance name. */
void rtcosim_fmu_log_message(rtcosim_fmu *f, int fmi_status, const char *category,
                             const char *message);

/* Replace FMI 2.0 "#r12#"-style variable references in a log message by
 * the variables' names (section 2.1.5); out always ends up terminated. */
void rtcosim_fmi2_expand_references(const rtcosim_fmi_md *md, const char *in, char *out,
                                    size_t size);

rtcosim_status rtcosim_fmu_wrong_type(rtcosim_fmu *f, rtcosim_type type, rtcosim_error *err);
rtcosim_status rtcosim_fmu_lacks(rtcosim_fmu *f, const char *function, rtcosim_error *err);
/* The library's function `name` (with f->symbol_prefix), NULL if absent. */
void *rtcosim_fmu_symbol(const rtcosim_fmu *f, const char *name);
/* fmu_binary.c: the binary of this platform loaded and prepared (f->dir
 * unpacked, f->md read); a + b + c + d, malloc'd; a path's file: URI
 * (RFC 8089, FMI 2.0 section 2.1.5), malloc'd. */
/* Builds a source-code FMU's binary for `platform` (relative: its path
 * binaries/<platform>/<id>.so), fmu_sources.c; f->binary_path is then it.
 * no_binary: why it needs one, for the message when there is nothing to
 * build from. */
rtcosim_status rtcosim_fmu_build_sources(rtcosim_fmu *f, const rtcosim_fmu_options *opts,
                                         const char *platform, const char *relative,
                                         const char *no_binary, rtcosim_error *err);
/* What rtcosim_fmu_build_sources would build from the unpacked FMU in dir
 * (FMI 3: sources/buildDescription.xml; 2: modelDescription.xml's
 * SourceFiles), read and checked without compiling: *files source files, or
 * the one-line error (for the fuzz target). */
rtcosim_status rtcosim_fmu_sources_read(const char *dir, const char *model_identifier,
                                        int fmi_version, bool model_exchange,
                                        const char *platform, size_t *files, rtcosim_error *err);
/* The build cache of source-code FMUs (fmu_build_cache.c): where the
 * binary of f's sources (description: the file listing them, relative to
 * the unpacked FMU; api: the FMI header its build includes) is kept, NULL
 * without a cache; get copies it to `out` (false: not there), put keeps a
 * binary built (quietly nothing when the cache cannot be written). */
char *rtcosim_fmu_build_cache_path(const rtcosim_fmu *f, const char *description,
                                   const char *platform, const char *api, size_t api_size);
bool rtcosim_fmu_build_cache_get(const char *cached, const char *out);
void rtcosim_fmu_build_cache_put(const char *built, const char *cached);
/* Makes instantiate set the declared start values (fmu_starts.c). */
void rtcosim_fmu_apply_default_starts(rtcosim_fmu *f);
rtcosim_status rtcosim_fmu_load_binary(rtcosim_fmu *f, const rtcosim_fmu_options *opts,
                                       rtcosim_error *err);
char *rtcosim_fmu_join(const char *a, const char *b, const char *c, const char *d);
char *rtcosim_fmu_file_uri(const char *path);

/* Fill the ops of an FMI 2.0 / 3.0 FMU and check that its binary has every
 * function they use (the loader has resolved the tables). */
rtcosim_status rtcosim_fmi2_prepare(rtcosim_fmu *f, rtcosim_error *err);
rtcosim_status rtcosim_fmi3_prepare(rtcosim_fmu *f, rtcosim_error *err);

/* Model exchange: check the binary's ME functions, switch the instantiate
 * call to the ME one, and wrap f->ops (already filled by the version's
 * prepare) with the integrator (me2.c, me3.c, me_solver.c). */
rtcosim_status rtcosim_fmi2_me_prepare(rtcosim_fmu *f, const rtcosim_fmu_options *opts,
                                       rtcosim_error *err);
rtcosim_status rtcosim_fmi3_me_prepare(rtcosim_fmu *f, const rtcosim_fmu_options *opts,
                                       rtcosim_error *err);
void rtcosim_me_free(struct rtcosim_me *me);

/* FMI 3.0 co-simulation Event Mode and early return (fmi3_events.c): check
 * the flags against the description, add the event ops to f->ops; the
 * intermediate-update callback given to fmi3InstantiateCoSimulation. */
rtcosim_status rtcosim_fmi3_events_prepare(rtcosim_fmu *f, rtcosim_error *err);
void rtcosim_fmi3_intermediate_update(fmi3InstanceEnvironment env, fmi3Float64 time,
                                      fmi3Boolean set_requested, fmi3Boolean get_allowed,
                                      fmi3Boolean step_finished, fmi3Boolean can_return_early,
                                      fmi3Boolean *early_return_requested,
                                      fmi3Float64 *early_return_time);

/* The FMI 3.0 logMessage callback (environment: the rtcosim_fmu). */
void rtcosim_fmi3_log_message(fmi3InstanceEnvironment env, fmi3Status status,
                              fmi3String category, fmi3String message);

/* FMI 3.0 get/set of a type whose layout rtcosim shares (numbers, Boolean,
 * String) with nValues given; false when the type is not one (*name NULL) or
 * the binary lacks the function (*name names it). */
bool rtcosim_fmi3_direct_call(rtcosim_fmu *f, bool set, rtcosim_type type, const uint32_t *vrs,
                              size_t nvr, void *values, size_t nvalues, const char **name,
                              fmi3Status *status);

/* FMI 3.0 arrays (fmi3_arrays.c): scratch sized at load; whether a batch
 * names array elements; get/set of such a batch, whole arrays in one call. */
rtcosim_status rtcosim_fmi3_arrays_prepare(rtcosim_fmu *f, rtcosim_error *err);
void rtcosim_fmi3_arrays_free(struct rtcosim_fmi3_arrays *a);
/* After fmi3SetFMUState: the shadow no longer knows the arrays' values. */
void rtcosim_fmi3_arrays_invalidate(struct rtcosim_fmi3_arrays *a);
bool rtcosim_fmi3_has_elements(const rtcosim_fmu *f, const uint32_t *vrs, size_t n);
rtcosim_status rtcosim_fmi3_array_get(rtcosim_fmu *f, rtcosim_type type, const uint32_t *vrs,
                                      size_t n, void *values, rtcosim_error *err);
rtcosim_status rtcosim_fmi3_array_set(rtcosim_fmu *f, rtcosim_type type, const uint32_t *vrs,
                                      size_t n, const void *values, rtcosim_error *err);

/* FMI 3.0 scheduled execution (fmi3_se.c): resolve fmi3ActivateModelPartition,
 * switch instantiate to fmi3InstantiateScheduledExecution, drop do_step. */
rtcosim_status rtcosim_fmi3_se_prepare(rtcosim_fmu *f, rtcosim_error *err);
void rtcosim_fmi3_se_free(struct rtcosim_fmi3_se *se);
/* The clock calls of rtcosim/fmu_clocks.h on the FMU itself (fmi3_clocks.c). */
rtcosim_status rtcosim_fmi3_get_interval(rtcosim_fmu *f, size_t clock, double *interval,
                                         rtcosim_interval_qualifier *qualifier,
                                         rtcosim_error *err);
rtcosim_status rtcosim_fmi3_get_interval_fraction(rtcosim_fmu *f, size_t clock,
                                                  uint64_t *counter, uint64_t *resolution,
                                                  rtcosim_interval_qualifier *qualifier,
                                                  rtcosim_error *err);
rtcosim_status rtcosim_fmi3_get_shift(rtcosim_fmu *f, size_t clock, double *shift,
                                      rtcosim_error *err);
rtcosim_status rtcosim_fmi3_get_shift_fraction(rtcosim_fmu *f, size_t clock, uint64_t *counter,
                                               uint64_t *resolution, rtcosim_error *err);
rtcosim_status rtcosim_fmi3_set_interval(rtcosim_fmu *f, size_t clock, double interval,
                                         rtcosim_error *err);
rtcosim_status rtcosim_fmi3_set_interval_fraction(rtcosim_fmu *f, size_t clock, uint64_t counter,
                                                  uint64_t resolution, rtcosim_error *err);
/* fmi3ActivateModelPartition of input clock `clock` (fmi3_se.c). */
rtcosim_status rtcosim_fmi3_se_activate(rtcosim_fmu *f, size_t clock, rtcosim_time_ns t,
                                        bool *clock_update, rtcosim_error *err);
/* The scheduler of an SE FMU (fmi3_se_schedule.c): made at prepare, its
 * intervals read in Initialization Mode (exit_init), run by do_step or by
 * simulate_se.c through rtcosim/fmu_clocks.h. */
struct rtcosim_se_schedule;
rtcosim_status rtcosim_fmi3_schedule_new(rtcosim_fmu *f, struct rtcosim_se_schedule **out,
                                         rtcosim_error *err);
void rtcosim_fmi3_schedule_free(struct rtcosim_se_schedule *s);
rtcosim_status rtcosim_fmi3_schedule_init(struct rtcosim_se_schedule *s, rtcosim_time_ns start,
                                          rtcosim_error *err);
rtcosim_status rtcosim_fmi3_schedule_step(struct rtcosim_se_schedule *s, rtcosim_time_ns t,
                                          rtcosim_time_ns h, bool first, rtcosim_error *err);
/* A paced frame's step (rtcosim/clock.h): each partition at its tick's
 * release time, preemptible at its preemption points. */
bool rtcosim_fmi3_schedule_paced(const struct rtcosim_se_schedule *s);
/* Called by the lock callbacks where the running partition is preemptible. */
void rtcosim_fmi3_schedule_preemption_point(struct rtcosim_se_schedule *s);
/* The importer set a periodic clock's interval (fmi3SetInterval*). */
void rtcosim_fmi3_schedule_set_interval(struct rtcosim_se_schedule *s, size_t clock,
                                        rtcosim_time_ns interval);
/* A triggered input clock (index into md->clocks) is due at the next instant. */
void rtcosim_fmi3_schedule_trigger(struct rtcosim_se_schedule *s, size_t clock);
/* Whether output clock vr ticked in the last step; false: vr is none. */
bool rtcosim_fmi3_schedule_output_ticked(const struct rtcosim_se_schedule *s, uint32_t vr,
                                         bool *ticked);

/* Binary values longer than their variable's maxSize (fmi3_clocks.c): an
 * error naming the instance and variable, before the FMU sees them. */
rtcosim_status rtcosim_fmi3_check_binary(rtcosim_fmu *f, const uint32_t *vrs, size_t n,
                                         const rtcosim_binary *values, rtcosim_error *err);

/* Frees everything of f (instance, library, directory, tables) and f. */
void rtcosim_fmu_destroy(void *self);

/* FMI 1.0 (fmi1_ops.c): resolve the MODELIDENTIFIER_fmi functions, map
 * negated aliases, fill the ops (model exchange: wrapped by me_solver.c);
 * dir_uri is the fmuLocation of fmiInstantiateSlave. rtcosim_fmi1_free frees
 * the instance and the FMI 1.0 state (before the library is closed). */
rtcosim_status rtcosim_fmi1_prepare(rtcosim_fmu *f, const rtcosim_fmu_options *opts,
                                    const char *dir_uri, rtcosim_error *err);
void rtcosim_fmi1_free(rtcosim_fmu *f);

extern const char rtcosim_fmi1_kind[];
extern const char rtcosim_fmi2_kind[];
extern const char rtcosim_fmi3_kind[];

/* Read a whole (small) file into a malloc'd, NUL-terminated buffer; fails
 * above max_size and on links (read_file.c). */
rtcosim_status rtcosim_fmi_read_file(const char *path, size_t max_size, char **data,
                                     size_t *size, rtcosim_error *err);

#endif
