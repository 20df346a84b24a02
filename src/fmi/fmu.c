/* rtcosim_fmu_load: archive -> modelDescription.xml -> platform binary
 * (fmu_binary.c) -> rtcosim_component (co-simulation, or model exchange
 * wrapped by me_solver.c). Also the helpers both FMI versions share: status
 * mapping, call tracing, FMU log messages, and tearing an FMU down again. */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive/archive.h"
#include "fmi/fmu_internal.h"

const char rtcosim_fmi1_kind[] = "fmi1";
const char rtcosim_fmi2_kind[] = "fmi2";
const char rtcosim_fmi3_kind[] = "fmi3";

static const char *const fmi2_status_names[] = {"fmi2OK",    "fmi2Warning", "fmi2Discard",
                                                "fmi2Error", "fmi2Fatal",   "fmi2Pending"};
static const char *const fmi3_status_names[] = {"fmi3OK", "fmi3Warning", "fmi3Discard",
                                                "fmi3Error", "fmi3Fatal"};

static const char *const fmi1_status_names[] = {"fmiOK",    "fmiWarning", "fmiDiscard",
                                                "fmiError", "fmiFatal",   "fmiPending"};

static const char *status_name(const rtcosim_fmu *f, int s)
{
    if (f->md->version == RTCOSIM_FMI_1)
        return s >= 0 && s <= fmi2Pending ? fmi1_status_names[s] : "(invalid status)";
    if (f->md->version == RTCOSIM_FMI_2)
        return s >= 0 && s <= fmi2Pending ? fmi2_status_names[s] : "(invalid status)";
    return s >= 0 && s <= fmi3Fatal ? fmi3_status_names[s] : "(invalid status)";
}

static const char *who(const rtcosim_fmu *f)
{
    return f->instance_name ? f->instance_name : f->md->model_name;
}

/* FMI 2.0 section 2.1.3: after Fatal "the model computations are
 * irreparably corrupted for all FMU instances", so every instance sharing
 * the binary (dlopen gives them one handle) is left alone from then on: no
 * terminate, no free. A short list, read only at teardown. */
enum { FATAL_LIBRARIES_MAX = 64 };
static void *fatal_libraries[FATAL_LIBRARIES_MAX];
static size_t fatal_library_count;
static pthread_mutex_t fatal_lock = PTHREAD_MUTEX_INITIALIZER;

static void mark_fatal(rtcosim_fmu *f)
{
    f->fatal = true;
    pthread_mutex_lock(&fatal_lock);
    bool known = false;
    for (size_t i = 0; i < fatal_library_count; i++)
        known |= fatal_libraries[i] == f->library;
    if (!known && f->library && fatal_library_count < FATAL_LIBRARIES_MAX)
        fatal_libraries[fatal_library_count++] = f->library;
    pthread_mutex_unlock(&fatal_lock);
}

static bool library_fatal(const rtcosim_fmu *f)
{
    if (f->fatal)
        return true;
    pthread_mutex_lock(&fatal_lock);
    bool fatal = false;
    for (size_t i = 0; i < fatal_library_count && f->library; i++)
        fatal |= fatal_libraries[i] == f->library;
    pthread_mutex_unlock(&fatal_lock);
    return fatal;
}

static rtcosim_status terminate_guarded(void *self, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    if (library_fatal(f))
        return rtcosim_error_set(err, RTCOSIM_EFATAL,
                                 "%s: not terminated: an instance of this FMU returned Fatal",
                                 who(f));
    return f->terminate_unguarded(self, err);
}

rtcosim_status rtcosim_fmu_status_failed(rtcosim_fmu *f, int s, const char *function, double t,
                                         rtcosim_error *err)
{
    char when[48] = "";
    if (!isnan(t))
        snprintf(when, sizeof when, " at t=%.9g", t);
    if (s == fmi2Warning) {
        rtcosim_log(RTCOSIM_LOG_WARNING, who(f), "%s returned %s%s", function, status_name(f, s),
                    when);
        return RTCOSIM_OK;
    }
    if (s == fmi2Fatal) /* the same number in FMI 1.0, 2.0 and 3.0 */
        mark_fatal(f);
    rtcosim_status st = s == fmi2Discard ? RTCOSIM_EDISCARD
                        : s == fmi2Fatal ? RTCOSIM_EFATAL
                                         : RTCOSIM_ECOMPONENT;
    /* The FMU's last messages (oldest first) say why; with --fmu-logging they
     * were shown already as they came. */
    char said[RTCOSIM_ERROR_MESSAGE_MAX] = "";
    size_t used = 0;
    unsigned n = f->recent_log_count, cap = sizeof f->recent_log / sizeof f->recent_log[0];
    for (unsigned k = 0; k < n && !f->fmu_logging && used < sizeof said; k++) {
        const struct rtcosim_fmu_recent_log *m = &f->recent_log[(f->recent_log_next + cap - n + k) % cap];
        int w = snprintf(said + used, sizeof said - used, "%s%s%s%s", k ? "; " : "; the FMU said: ",
                         m->category, *m->category ? ": " : "", m->text);
        used = w < 0 ? sizeof said : used + (size_t)w;
    }
    f->recent_log_count = 0;
    return rtcosim_error_set(err, st, "%s: %s returned %s%s%s", who(f), function, status_name(f, s),
                             when, said);
}

void rtcosim_fmu_log_call(rtcosim_fmu *f, const char *function, int s, const char *fmt, ...)
{
    char args[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    rtcosim_log(RTCOSIM_LOG_DEBUG, "fmi", "%s: %s(%s) -> %s", who(f), function, args,
                status_name(f, s));
}

static int format_one(rtcosim_type type, const void *values, size_t i, char *buf, size_t size)
{
    switch (type) {
    case RTCOSIM_TYPE_FLOAT64: return snprintf(buf, size, "%.17g", ((const double *)values)[i]);
    case RTCOSIM_TYPE_FLOAT32: return snprintf(buf, size, "%.9g", (double)((const float *)values)[i]);
    case RTCOSIM_TYPE_INT8: return snprintf(buf, size, "%d", ((const int8_t *)values)[i]);
    case RTCOSIM_TYPE_UINT8: return snprintf(buf, size, "%u", ((const uint8_t *)values)[i]);
    case RTCOSIM_TYPE_INT16: return snprintf(buf, size, "%d", ((const int16_t *)values)[i]);
    case RTCOSIM_TYPE_UINT16: return snprintf(buf, size, "%u", ((const uint16_t *)values)[i]);
    case RTCOSIM_TYPE_INT32: return snprintf(buf, size, "%" PRId32, ((const int32_t *)values)[i]);
    case RTCOSIM_TYPE_UINT32: return snprintf(buf, size, "%" PRIu32, ((const uint32_t *)values)[i]);
    case RTCOSIM_TYPE_INT64: return snprintf(buf, size, "%" PRId64, ((const int64_t *)values)[i]);
    case RTCOSIM_TYPE_UINT64: return snprintf(buf, size, "%" PRIu64, ((const uint64_t *)values)[i]);
    case RTCOSIM_TYPE_BOOLEAN:
    case RTCOSIM_TYPE_CLOCK:
        return snprintf(buf, size, "%s", ((const bool *)values)[i] ? "true" : "false");
    case RTCOSIM_TYPE_STRING: {
        const char *s = ((const char *const *)values)[i];
        return snprintf(buf, size, "\"%s\"", s ? s : "(null)");
    }
    case RTCOSIM_TYPE_BINARY:
        return snprintf(buf, size, "<%zu bytes>", ((const rtcosim_binary *)values)[i].size);
    default: return snprintf(buf, size, "?");
    }
}

void rtcosim_fmu_format_values(rtcosim_type type, const uint32_t *vrs, size_t n,
                               const void *values, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        int w = snprintf(buf + used, size - used, "%s#%" PRIu32 "=", i ? ", " : "", vrs[i]);
        if (w < 0 || (size_t)w >= size - used)
            break;
        used += (size_t)w;
        if (!values) {
            buf[used - 1] = '\0'; /* no values: just the references */
            used--;
            continue;
        }
        w = format_one(type, values, i, buf + used, size - used);
        if (w < 0 || (size_t)w >= size - used)
            break;
        used += (size_t)w;
    }
    if (used + 1 >= size && size > 4)
        memcpy(buf + size - 4, "...", 4);
}

void rtcosim_fmu_log_message(rtcosim_fmu *f, int s, const char *category, const char *message)
{
    rtcosim_log_level level = s == fmi2OK        ? RTCOSIM_LOG_INFO
                              : s == fmi2Warning || s == fmi2Discard ? RTCOSIM_LOG_WARNING
                                                                     : RTCOSIM_LOG_ERROR;
    if (s != fmi2OK) { /* kept for the error of the call that fails (bounded copies) */
        unsigned cap = sizeof f->recent_log / sizeof f->recent_log[0];
        struct rtcosim_fmu_recent_log *m = &f->recent_log[f->recent_log_next];
        snprintf(m->category, sizeof m->category, "%s", category ? category : "");
        snprintf(m->text, sizeof m->text, "%s", message ? message : "");
        f->recent_log_next = (f->recent_log_next + 1) % cap;
        if (f->recent_log_count < cap)
            f->recent_log_count++;
    }
    if (!f->fmu_logging || !rtcosim_log_enabled(level))
        return;
    bool has_category = category && *category;
    rtcosim_log(level, who(f), "%s%s%s", has_category ? category : "", has_category ? ": " : "",
                message ? message : "");
}

rtcosim_status rtcosim_fmu_wrong_type(rtcosim_fmu *f, rtcosim_type type, rtcosim_error *err)
{
    return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: FMI %s has no %s variables", who(f),
                             f->md->version == RTCOSIM_FMI_1   ? "1.0"
                             : f->md->version == RTCOSIM_FMI_2 ? "2.0"
                                                               : "3.0",
                             rtcosim_type_name(type));
}

rtcosim_status rtcosim_fmu_lacks(rtcosim_fmu *f, const char *function, rtcosim_error *err)
{
    return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "%s: binary lacks %s", f->archive_path,
                             function);
}

/* Instances and binaries left alone after Fatal: neither freed (no call may
 * reach the FMU) nor unloaded (its code may still be referenced), and kept
 * reachable so that leak checkers see them as kept on purpose. */
typedef struct abandoned_fmu {
    struct abandoned_fmu *next;
    void *instance, *library;
} abandoned_fmu;
static abandoned_fmu *abandoned;
static pthread_mutex_t abandoned_lock = PTHREAD_MUTEX_INITIALIZER;

static void abandon(rtcosim_fmu *f)
{
    abandoned_fmu *a = malloc(sizeof *a);
    rtcosim_log(RTCOSIM_LOG_DEBUG, "fmi", "%s: not freed after a Fatal status", who(f));
    if (a) {
        *a = (abandoned_fmu){.instance = f->instance, .library = f->library};
        pthread_mutex_lock(&abandoned_lock);
        a->next = abandoned;
        abandoned = a;
        pthread_mutex_unlock(&abandoned_lock);
    }
    f->instance = NULL;
    f->library = NULL;
}

void rtcosim_fmu_destroy(void *self)
{
    rtcosim_fmu *f = self;
    if (!f)
        return;
    rtcosim_me_free(f->me);
    if (f->instance && library_fatal(f))
        abandon(f);
    rtcosim_fmi1_free(f); /* FMI 1.0: instance and tables; nothing for 2.0/3.0 */
    if (f->instance) {
        if (f->md->version == RTCOSIM_FMI_2)
            f->fmi2.fmi2FreeInstance(f->instance);
        else
            f->fmi3.fmi3FreeInstance(f->instance);
        RTCOSIM_FMU_TRACE(f, f->md->version == RTCOSIM_FMI_2 ? "fmi2FreeInstance"
                                                             : "fmi3FreeInstance",
                          0, "%s", "");
    }
    if (f->library)
        dlclose(f->library);
    if (f->dir && !f->in_place)
        rtcosim_archive_release(f->dir); /* shared or private (load) */
    rtcosim_fmi_md_free(f->md);
    free(f->archive_path);
    free(f->dir);
    free(f->binary_path);
    rtcosim_archive_remove_dir(f->build_dir);
    free(f->build_dir);
    free(f->resource_location);
    free(f->instance_name);
    free(f->bool_scratch);
    free(f->binary_sizes);
    free(f->binary_values);
    free(f->input_derivatives);
    free(f->vr_scratch);
    rtcosim_fmi3_arrays_free(f->arrays);
    rtcosim_fmi3_se_free(f->se);
    rtcosim_fmi3_schedule_free(f->schedule);
    free(f->binary_limits);
    free(f);
}

/* A component read for its description (rtcosim_fmu_describe): every call
 * that would need the binary fails. */
static rtcosim_status no_binary(void *self, rtcosim_error *err)
{
    return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                             "%s: read for its description only: no binary loaded",
                             ((rtcosim_fmu *)self)->archive_path);
}
static rtcosim_status no_binary_instantiate(void *self, const char *name, rtcosim_error *err)
{
    (void)name;
    return no_binary(self, err);
}
static rtcosim_status no_binary_step(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                     rtcosim_step_result *result, rtcosim_error *err)
{
    (void)t, (void)h, (void)result;
    return no_binary(self, err);
}
static rtcosim_status no_binary_get(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                                    void *values, rtcosim_error *err)
{
    (void)type, (void)vrs, (void)n, (void)values;
    return no_binary(self, err);
}
static rtcosim_status no_binary_set(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                                    const void *values, rtcosim_error *err)
{
    (void)type, (void)vrs, (void)n, (void)values;
    return no_binary(self, err);
}

static void describe_only_ops(rtcosim_fmu *f)
{
    f->ops = (rtcosim_component_ops){
        .kind = f->md->version == RTCOSIM_FMI_1   ? rtcosim_fmi1_kind
                : f->md->version == RTCOSIM_FMI_2 ? rtcosim_fmi2_kind
                                                  : rtcosim_fmi3_kind,
        .instantiate = no_binary_instantiate,
        .do_step = no_binary_step,
        .get = no_binary_get,
        .set = no_binary_set,
        .destroy = rtcosim_fmu_destroy,
    };
}

static rtcosim_status seconds_field(rtcosim_fmu *f, const char *what, double s,
                                    rtcosim_time_ns *out, rtcosim_error *err)
{
    if (rtcosim_time_from_seconds(s, out, err) != RTCOSIM_OK)
        return rtcosim_error_prefix(err, "%s: DefaultExperiment %s: ", f->archive_path, what);
    /* rtcosim keeps time in whole nanoseconds: a value finer than that (a
     * step of 2^-10 s) is rounded, and a grid of it drifts from the FMU's */
    if (rtcosim_time_to_seconds(*out) != s)
        rtcosim_log(RTCOSIM_LOG_WARNING, "fmi", "%s: DefaultExperiment %s %.17g s is not a whole "
                    "number of nanoseconds: %.9f s taken", f->archive_path, what, s,
                    rtcosim_time_to_seconds(*out));
    return RTCOSIM_OK;
}

static rtcosim_status describe(rtcosim_fmu *f, rtcosim_component_desc *desc, rtcosim_error *err)
{
    const rtcosim_fmi_md *md = f->md;
    memset(desc, 0, sizeof *desc);
    desc->model_name = md->model_name;
    desc->variables = md->variables;
    desc->variable_count = md->variable_count;
    rtcosim_capabilities *cap = &desc->capabilities;
    cap->can_handle_variable_step = md->can_handle_variable_step;
    cap->can_get_set_state = md->can_get_set_state;
    cap->can_serialize_state = md->can_serialize_state;
    cap->provides_directional_derivatives = md->provides_directional_derivatives;
    /* What the FMU declares, and what this instance was asked to use
     * (rtcosim_fmu_options; checked against the description in
     * fmi3_events.c). */
    cap->can_return_early = md->can_return_early;
    cap->has_event_mode = md->has_event_mode;
    cap->event_mode_used = f->event_mode_used;
    cap->early_return_allowed = f->early_return_allowed;
    cap->max_input_derivative_order = f->max_input_order;
    rtcosim_status st = RTCOSIM_OK;
    if (md->has_start && (st = seconds_field(f, "startTime", md->start, &desc->default_start, err)))
        return st;
    if (md->has_stop && (st = seconds_field(f, "stopTime", md->stop, &desc->default_stop, err)))
        return st;
    if (md->has_step && (st = seconds_field(f, "stepSize", md->step, &desc->default_step, err)))
        return st;
    desc->has_default_start = md->has_start;
    desc->has_default_stop = md->has_stop;
    desc->has_default_step = md->has_step;
    desc->has_default_tolerance = md->has_tolerance;
    desc->default_tolerance = md->tolerance;
    return RTCOSIM_OK;
}

static void fill_info(rtcosim_fmu *f)
{
    const rtcosim_fmi_md *md = f->md;
    rtcosim_fmu_info *i = &f->info;
    i->fmi_version = md->version;
    i->fmi_version_text = md->fmi_version_text;
    i->model_name = md->model_name;
    i->instantiation_token = md->instantiation_token;
    i->description = md->description;
    i->author = md->author;
    i->version = md->model_version;
    i->generation_tool = md->generation_tool;
    i->generation_date = md->generation_date;
    i->model_identifier = f->model_identifier;
    i->interface_type = f->model_exchange ? RTCOSIM_FMI_MODEL_EXCHANGE
                        : f->scheduled    ? RTCOSIM_FMI_SCHEDULED_EXECUTION
                                          : RTCOSIM_FMI_CO_SIMULATION;
    i->state_count = f->model_exchange ? md->state_count : 0;
    i->event_indicator_count = f->model_exchange ? md->event_indicator_count : 0;
    i->extracted_dir = f->dir;
    i->binary_path = f->binary_path;
    i->binary_built_from_sources = f->built_from_sources;
    i->output_indices = md->output_indices;
    i->output_count = md->output_count;
    i->output_dependencies_declared = md->output_dependencies_declared;
    i->output_dependency_start = md->output_dependency_start;
    i->output_dependencies = md->output_dependencies;
    i->model_description_warnings = md->warning_count;
    i->has_co_simulation = md->has_co_simulation;
    i->has_model_exchange = md->has_model_exchange;
    i->has_scheduled_execution = md->has_scheduled_execution;
    if (md->version == RTCOSIM_FMI_1) {
        i->fmi1_kind = f->model_exchange ? "model exchange"
                       : md->fmi1_tool   ? "co-simulation tool"
                                         : "co-simulation stand-alone";
        for (size_t k = 0; k < md->variable_count; k++)
            i->negated_alias_count += md->negated[k];
    }
}

static rtcosim_status load(rtcosim_fmu *f, const rtcosim_fmu_options *opts, bool binary,
                           rtcosim_error *err)
{
    const rtcosim_archive_limits limits = {.kind = "FMU",
                                           .max_unpacked_bytes = opts->max_unpacked_bytes};
    /* An unpacked FMU (a directory, as FMU builds leave them before zipping)
     * is used where it is; an archive is extracted once per file and run:
     * components of the same FMU share its directory and library (issue 12:
     * 2000 components). */
    struct stat sb;
    rtcosim_status st = RTCOSIM_OK;
    if (stat(f->archive_path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        if (!(f->dir = realpath(f->archive_path, NULL)))
            return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot resolve the directory: %s",
                                     f->archive_path, strerror(errno));
        f->in_place = true;
    } else {
        st = rtcosim_archive_extract_shared(f->archive_path, opts->temp_dir, &limits, &f->dir,
                                            err);
    }
    if (st != RTCOSIM_OK)
        return st;
    char *md_path = rtcosim_fmu_join(f->dir, "/modelDescription.xml", "", "");
    if (!md_path)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", f->archive_path);
    char *xml = NULL;
    size_t size = 0;
    st = rtcosim_fmi_read_file(md_path, RTCOSIM_FMI_MD_MAX_SIZE, &xml, &size, err);
    free(md_path);
    /* An FMU that can be instantiated only once per process (FMI 2.0 2.2.4,
     * FMI 3.0 2.4.1) gets a private copy, so that each instance loads its
     * own library (any interface declaring it counts: conservative). */
    bool once = st == RTCOSIM_OK &&
                strstr(xml, "canBeInstantiatedOnlyOncePerProcess=\"true\"") != NULL;
    f->once_per_process = once && f->in_place; /* (checked when its library loads) */
    if (once && !f->in_place) {
        rtcosim_archive_release(f->dir);
        free(f->dir);
        f->dir = NULL;
        st = rtcosim_archive_extract(f->archive_path, opts->temp_dir, &limits, &f->dir, err);
        if (st != RTCOSIM_OK) {
            free(xml);
            return st;
        }
    }
    if (st == RTCOSIM_ENOTFOUND)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, f->in_place
                                 ? "%s: a directory without modelDescription.xml: not an unpacked "
                                   "FMU (give its .fmu archive or the folder holding "
                                   "modelDescription.xml)"
                                 : "%s: no modelDescription.xml in the archive", f->archive_path);
    if (st != RTCOSIM_OK)
        return st;
    rtcosim_fmi_md_options mo = {.interface = f->model_exchange ? RTCOSIM_FMI_MD_MODEL_EXCHANGE
                                              : f->scheduled ? RTCOSIM_FMI_MD_SCHEDULED_EXECUTION
                                                             : RTCOSIM_FMI_MD_CO_SIMULATION,
                                 .strict = opts->strict,
                                 .model_exchange_fallback = opts->model_exchange_fallback};
    st = rtcosim_fmi_md_parse_with(xml, size, "modelDescription.xml", &mo, &f->md, err);
    free(xml);
    if (st != RTCOSIM_OK)
        return rtcosim_error_prefix(err, "%s: ", f->archive_path);
    if (f->md->fell_back_to_model_exchange) {
        f->model_exchange = true;
        rtcosim_log(RTCOSIM_LOG_INFO, "fmi", "%s: model exchange only: loaded for it",
                    f->archive_path);
    }
    if (f->md->fell_back_to_scheduled_execution) {
        f->scheduled = true;
        rtcosim_log(RTCOSIM_LOG_INFO, "fmi", "%s: scheduled execution only: loaded for it",
                    f->archive_path);
    }
    f->model_identifier = f->md->model_identifier;
    if (f->model_exchange) {
        /* The capabilities of the interface in use: rtcosim integrates a
         * model-exchange FMU itself, so any step size works; the FMU's own
         * FMU state is what snapshots build on, and its serialization carries
         * the integrator's fields too (me_solver.c). */
        rtcosim_fmi_md *md = f->md;
        f->model_identifier = md->me_model_identifier;
        md->can_handle_variable_step = true;
        md->can_get_set_state = md->me_can_get_set_state;
        md->can_serialize_state = md->me_can_get_set_state && md->me_can_serialize_state;
        md->can_interpolate_inputs = false;
        md->can_return_early = false;
        md->has_event_mode = false;
    }

    if (f->md->version != RTCOSIM_FMI_3) {
        char *resources = rtcosim_fmu_join(f->dir, "/resources", "", "");
        f->resource_location = resources ? rtcosim_fmu_file_uri(resources) : NULL;
        free(resources);
    } else {
        f->resource_location = rtcosim_fmu_join(f->dir, "/resources/", "", "");
    }
    f->scratch_count = f->md->variable_count ? f->md->variable_count : 1;
    f->bool_scratch = calloc(f->scratch_count, sizeof *f->bool_scratch);
    f->binary_sizes = calloc(f->scratch_count, sizeof *f->binary_sizes);
    f->binary_values = calloc(f->scratch_count, sizeof *f->binary_values);
    f->vr_scratch = calloc(f->scratch_count, sizeof *f->vr_scratch);
    if (!f->resource_location || !f->bool_scratch || !f->binary_sizes || !f->binary_values ||
        !f->vr_scratch)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", f->archive_path);
    if (!binary) {
        describe_only_ops(f);
        return RTCOSIM_OK;
    }
    return rtcosim_fmu_load_binary(f, opts, err);
}

static rtcosim_status open_fmu(const char *path, const rtcosim_fmu_options *opts, bool binary,
                               rtcosim_component **out, rtcosim_error *err)
{
    static const rtcosim_fmu_options defaults;
    *out = NULL;
    if (!path || !*path)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "no FMU path given");
    if (!opts)
        opts = &defaults;
    if (opts->interface_type != RTCOSIM_FMI_CO_SIMULATION &&
        opts->interface_type != RTCOSIM_FMI_MODEL_EXCHANGE &&
        opts->interface_type != RTCOSIM_FMI_SCHEDULED_EXECUTION)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: unknown FMI interface type %d", path,
                                 (int)opts->interface_type);
    rtcosim_fmu *f = calloc(1, sizeof *f);
    if (!f || !(f->archive_path = strdup(path))) {
        free(f);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    }
    f->log_calls = opts->log_fmi_calls;
    f->visible = opts->visible;
    f->fmu_logging = opts->fmu_logging_on;
    f->logging_on = true; /* messages kept for errors even when not shown */
    f->event_mode_used = opts->event_mode_used;
    f->early_return_allowed = opts->early_return_allowed;
    f->event_mode_where_declared = opts->event_mode_where_declared;
    f->early_return_where_declared = opts->early_return_where_declared;
    f->model_exchange = opts->interface_type == RTCOSIM_FMI_MODEL_EXCHANGE;
    f->scheduled = opts->interface_type == RTCOSIM_FMI_SCHEDULED_EXECUTION;
    f->binary_limit_count = SIZE_MAX;
    rtcosim_status st = load(f, opts, binary, err);
    if (st == RTCOSIM_OK && (f->event_mode_used || f->early_return_allowed) &&
        f->md->version != RTCOSIM_FMI_3)
        st = rtcosim_error_set(err, RTCOSIM_EINVAL,
                               "%s: %s needs FMI 3.0 co-simulation; this is an FMI %s FMU", path,
                               f->event_mode_used ? "event mode" : "early return",
                               f->md->version == RTCOSIM_FMI_1 ? "1.0" : "2.0");
    rtcosim_component_desc desc;
    if (st == RTCOSIM_OK)
        st = describe(f, &desc, err);
    if (st != RTCOSIM_OK) {
        rtcosim_fmu_destroy(f);
        return st;
    }
    fill_info(f);
    if (binary && opts && opts->apply_default_start_values)
        rtcosim_fmu_apply_default_starts(f);
    f->terminate_unguarded = f->ops.terminate;
    if (f->ops.terminate)
        f->ops.terminate = terminate_guarded;
    /* On failure rtcosim_component_create has already destroyed f. */
    st = rtcosim_component_create(&f->ops, f, &desc, out, err);
    if (st != RTCOSIM_OK)
        return rtcosim_error_prefix(err, "%s: ", path);
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_fmu_load(const char *path, const rtcosim_fmu_options *opts,
                                rtcosim_component **out, rtcosim_error *err)
{
    return open_fmu(path, opts, true, out, err);
}

rtcosim_status rtcosim_fmu_describe(const char *path, const rtcosim_fmu_options *opts,
                                    rtcosim_component **out, rtcosim_error *err)
{
    return open_fmu(path, opts, false, out, err);
}

const rtcosim_fmu_info *rtcosim_fmu_info_of(const rtcosim_component *c)
{
    if (!c)
        return NULL;
    const char *kind = rtcosim_component_kind(c);
    if (kind != rtcosim_fmi1_kind && kind != rtcosim_fmi2_kind && kind != rtcosim_fmi3_kind)
        return NULL;
    return &((const rtcosim_fmu *)rtcosim_component_impl(c))->info;
}
