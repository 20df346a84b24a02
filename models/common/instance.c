/* The FMI-version-neutral glue: instance lifecycle and mode rules, value
 * access through the model's variable table, logging, and the instance-owned
 * Strings and Binaries. Written once so that the FMI 2.0 and FMI 3.0 wrappers
 * of every model behave the same way (FMU state lives in fmu_state.c). */
#include "instance.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const model_log_category_names[MODEL_LOG_CATEGORY_COUNT] = {
    "logEvents", "logStatusWarning", "logStatusDiscard", "logStatusError", "logStatusFatal",
    "logFmiCalls"};
const char *const model_log_category_descriptions[MODEL_LOG_CATEGORY_COUNT] = {
    "Events the model handles inside a step (impacts, ...)",
    "Messages of calls that return Warning",
    "Messages of calls that return Discard",
    "Messages of calls that return Error",
    "Messages of calls that return Fatal",
    "Every FMI call with its arguments (not enabled by loggingOn alone)"};

static const model_status category_status[MODEL_LOG_CATEGORY_COUNT] = {
    MODEL_OK, MODEL_WARNING, MODEL_DISCARD, MODEL_ERROR, MODEL_FATAL, MODEL_OK};

#define CATEGORY_BIT(c) (1u << (c))
#define STATUS_CATEGORIES                                                                  \
    (CATEGORY_BIT(MODEL_LOG_STATUS_WARNING) | CATEGORY_BIT(MODEL_LOG_STATUS_DISCARD) |        \
     CATEGORY_BIT(MODEL_LOG_STATUS_ERROR) | CATEGORY_BIT(MODEL_LOG_STATUS_FATAL))
#define ALL_CATEGORIES ((1u << MODEL_LOG_CATEGORY_COUNT) - 1u)

double model_time(const model_instance *inst) { return inst->time; }

void model_discard_recoverable(model_instance *inst) { inst->discard_recoverable = true; }

/* ---- Logging ---- */

bool instance_log_enabled(const model_instance *inst, model_log_category category)
{
    return (inst->log_mask & CATEGORY_BIT(category)) != 0;
}

static void vlog(model_instance *inst, model_log_category category, const char *fmt, va_list ap)
{
    char message[1024];
    vsnprintf(message, sizeof message, fmt, ap);
    inst->emit(inst, category_status[category], model_log_category_names[category], message);
}

void model_log(model_instance *inst, model_log_category category, const char *fmt, ...)
{
    if (!instance_log_enabled(inst, category))
        return;
    va_list ap;
    va_start(ap, fmt);
    vlog(inst, category, fmt, ap);
    va_end(ap);
}

model_status instance_error(model_instance *inst, const char *fmt, ...)
{
    if (instance_log_enabled(inst, MODEL_LOG_STATUS_ERROR)) {
        va_list ap;
        va_start(ap, fmt);
        vlog(inst, MODEL_LOG_STATUS_ERROR, fmt, ap);
        va_end(ap);
    }
    return MODEL_ERROR;
}

model_status instance_set_debug_logging(model_instance *inst, bool logging_on,
                                        size_t n_categories, const char *const categories[])
{
    /* FMI 2.0 section 2.1.5 / FMI 3.0 section 2.3.2: no categories means all. */
    uint32_t selected = n_categories == 0 ? ALL_CATEGORIES : 0;
    for (size_t i = 0; i < n_categories; i++) {
        size_t c = 0;
        while (c < MODEL_LOG_CATEGORY_COUNT &&
               !(categories[i] && strcmp(categories[i], model_log_category_names[c]) == 0))
            c++;
        if (c == MODEL_LOG_CATEGORY_COUNT)
            return instance_error(inst, "SetDebugLogging: unknown log category \"%s\"",
                                  categories[i] ? categories[i] : "(null)");
        selected |= CATEGORY_BIT(c);
    }
    if (logging_on)
        inst->log_mask |= selected;
    else
        inst->log_mask &= ~selected;
    return MODEL_OK;
}

const char *instance_mode_name(instance_mode mode)
{
    switch (mode) {
    case MODE_INSTANTIATED: return "Instantiated";
    case MODE_INITIALIZATION: return "Initialization Mode";
    case MODE_STEP: return "Step Mode";
    case MODE_TERMINATED: return "Terminated";
    case MODE_ERROR: return "the error state";
    case MODE_FATAL: return "the fatal state";
    case MODE_EVENT: return "Event Mode";
    case MODE_CONTINUOUS_TIME: return "Continuous-Time Mode";
    }
    return "an unknown mode";
}

bool instance_refuse_(model_instance *inst, const char *function)
{
    /* The Reference FMUs say "Illegal call sequence"; importers' tests look for it. */
    instance_error(inst, "%s: Illegal call sequence: not allowed in %s", function,
                   instance_mode_name(inst->mode));
    return false;
}

/* ---- Owned storage: Strings and Binaries ---- */

static char *dup_string(model_instance *inst, const char *s)
{
    size_t n = strlen(s) + 1;
    char *copy = inst->calloc_fn(n, 1);
    if (copy)
        memcpy(copy, s, n);
    return copy;
}

bool model_set_string(model_instance *inst, char **field, const char *value)
{
    if (*field && strcmp(*field, value) == 0)
        return true;
    char *copy = dup_string(inst, value);
    if (!copy)
        return false;
    inst->free_fn(*field);
    *field = copy;
    return true;
}

bool model_set_binary(model_instance *inst, model_binary *field, const void *data, size_t size)
{
    if (field->size == size && (size == 0 || memcmp(field->data, data, size) == 0))
        return true; /* unchanged */
    if (size <= field->capacity) {
        /* fits the buffer it has: no allocation per value (a bus node's
         * Tx_Data/Rx_Data change at every frame) */
        if (size)
            memmove(field->data, data, size);
        field->size = size;
        return true;
    }
    unsigned char *copy = inst->calloc_fn(size, 1);
    if (!copy)
        return false;
    memcpy(copy, data, size);
    inst->free_fn(field->data);
    field->data = copy;
    field->size = field->capacity = size;
    return true;
}

bool instance_type_is_owned(model_type type)
{
    return type == MODEL_STRING || type == MODEL_BINARY;
}

/* Frees every String and Binary held in data and clears the fields. */
void instance_free_owned(model_instance *inst, unsigned char *data)
{
    const model_def *m = inst->model;
    for (size_t i = 0; i < m->variable_count; i++) {
        const model_variable *v = &m->variables[i];
        if (v->causality == MODEL_INDEPENDENT || !instance_type_is_owned(v->type))
            continue;
        if (v->type == MODEL_STRING) {
            char **s = (char **)(data + v->offset);
            inst->free_fn(*s);
            *s = NULL;
        } else {
            model_binary *b = (model_binary *)(data + v->offset);
            inst->free_fn(b->data);
            *b = (model_binary){0, NULL, 0};
        }
    }
}

/* dst = src with Strings and Binaries duplicated; dst holds nothing owned
 * before. On failure dst holds nothing owned either. */
bool instance_copy_data(model_instance *inst, unsigned char *dst, const unsigned char *src)
{
    const model_def *m = inst->model;
    memcpy(dst, src, m->data_size);
    for (size_t i = 0; i < m->variable_count; i++) {
        const model_variable *v = &m->variables[i];
        if (v->causality == MODEL_INDEPENDENT || !instance_type_is_owned(v->type))
            continue;
        if (v->type == MODEL_STRING)
            *(char **)(dst + v->offset) = NULL;
        else
            *(model_binary *)(dst + v->offset) = (model_binary){0, NULL, 0};
    }
    for (size_t i = 0; i < m->variable_count; i++) {
        const model_variable *v = &m->variables[i];
        if (v->causality == MODEL_INDEPENDENT || !instance_type_is_owned(v->type))
            continue;
        bool ok;
        if (v->type == MODEL_STRING) {
            ok = model_set_string(inst, (char **)(dst + v->offset),
                                  *(char *const *)(src + v->offset));
        } else {
            const model_binary *b = (const model_binary *)(src + v->offset);
            model_binary *d = (model_binary *)(dst + v->offset);
            ok = model_set_binary(inst, d, b->data, b->size);
        }
        if (!ok) {
            instance_free_owned(inst, dst);
            return false;
        }
    }
    return true;
}

/* ---- Start values ---- */

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Parses an FMI 3.0 Binary start value (hex digits, two per byte). */
static bool parse_hex(model_instance *inst, const char *text, model_binary *out)
{
    size_t len = strlen(text);
    if (len % 2 != 0)
        return false;
    unsigned char *bytes = NULL;
    if (len > 0 && !(bytes = inst->calloc_fn(len / 2, 1)))
        return false;
    for (size_t i = 0; i < len / 2; i++) {
        int hi = hex_digit(text[2 * i]), lo = hex_digit(text[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            inst->free_fn(bytes);
            return false;
        }
        bytes[i] = (unsigned char)(hi * 16 + lo);
    }
    out->data = bytes;
    out->size = out->capacity = len / 2;
    return true;
}

static bool apply_number(model_type type, const char *s, void *field);
static size_t type_size(model_type type);

size_t model_value_count(const model_instance *inst, const model_variable *v)
{
    size_t count = 1;
    for (int d = 0; d < 2 && v->dimensions[d]; d++)
        count *= (size_t)*(const uint64_t *)(inst->data +
                                             inst->model->variables[v->dimensions[d]].offset);
    return count;
}

/* An array's start value: one number per element, white-space separated. */
static bool apply_array_start(model_instance *inst, const model_variable *v, unsigned char *data)
{
    size_t count = 1;
    for (int d = 0; d < 2 && v->dimensions[d]; d++)
        count *= (size_t)*(const uint64_t *)(data + inst->model->variables[v->dimensions[d]].offset);
    const char *s = v->start;
    if (!s)
        return true; /* data is zeroed */
    for (size_t k = 0; k < count; k++) {
        char token[64];
        s += strspn(s, " ");
        size_t len = strcspn(s, " ");
        if (len == 0 || len >= sizeof token)
            return false;
        memcpy(token, s, len);
        token[len] = '\0';
        s += len;
        if (!apply_number(v->type, token, data + v->offset + k * type_size(v->type)))
            return false;
    }
    return s[strspn(s, " ")] == '\0';
}

/* Writes v's start value (or the type's zero/empty value) into data. */
static bool apply_start(model_instance *inst, const model_variable *v, unsigned char *data)
{
    void *field = data + v->offset;
    const char *s = v->start;
    if (v->dimensions[0])
        return apply_array_start(inst, v, data);
    if (v->type == MODEL_STRING)
        return model_set_string(inst, field, s ? s : "");
    if (v->type == MODEL_BINARY)
        return s ? parse_hex(inst, s, field) : true;
    if (!s)
        return true; /* data is zeroed */
    return apply_number(v->type, s, field);
}

/* A number of the type from s (the whole text) into field. */
static bool apply_number(model_type type, const char *s, void *field)
{
    char *end = NULL;
    switch (type) {
    case MODEL_FLOAT32: *(float *)field = strtof(s, &end); break;
    case MODEL_FLOAT64: *(double *)field = strtod(s, &end); break;
    case MODEL_INT8: *(int8_t *)field = (int8_t)strtoll(s, &end, 10); break;
    case MODEL_UINT8: *(uint8_t *)field = (uint8_t)strtoull(s, &end, 10); break;
    case MODEL_INT16: *(int16_t *)field = (int16_t)strtoll(s, &end, 10); break;
    case MODEL_UINT16: *(uint16_t *)field = (uint16_t)strtoull(s, &end, 10); break;
    case MODEL_INT32: *(int32_t *)field = (int32_t)strtoll(s, &end, 10); break;
    case MODEL_UINT32: *(uint32_t *)field = (uint32_t)strtoull(s, &end, 10); break;
    case MODEL_INT64: *(int64_t *)field = strtoll(s, &end, 10); break;
    case MODEL_UINT64: *(uint64_t *)field = strtoull(s, &end, 10); break;
    case MODEL_BOOLEAN:
        *(bool *)field = strcmp(s, "true") == 0 || strcmp(s, "1") == 0;
        return strcmp(s, "true") == 0 || strcmp(s, "false") == 0 || strcmp(s, "1") == 0 ||
               strcmp(s, "0") == 0;
    case MODEL_STRING:
    case MODEL_BINARY: break;
    }
    return end && end != s && *end == '\0';
}

static bool apply_start_values(model_instance *inst, unsigned char *data)
{
    const model_def *m = inst->model;
    for (size_t i = 0; i < m->variable_count; i++) {
        const model_variable *v = &m->variables[i];
        if (v->causality == MODEL_INDEPENDENT)
            continue;
        if (!apply_start(inst, v, data)) {
            instance_error(inst, "variable %s: cannot apply start value \"%s\"", v->name,
                           v->start ? v->start : "");
            return false;
        }
    }
    return true;
}

/* ---- Lifecycle ---- */

static void reset_fields(model_instance *inst)
{
    inst->mode = MODE_INSTANTIATED;
    inst->time = inst->model->default_start_time;
    inst->start_time = inst->time;
    inst->stop_time = inst->model->default_stop_time;
    inst->stop_time_defined = false;
    inst->tolerance = inst->model->default_tolerance;
    inst->tolerance_defined = false;
    inst->dirty = true;
    inst->terminate_requested = false;
    inst->last_successful_time = inst->time;
}

bool instance_init(model_instance *inst, const char *name, const char *resource_location,
                   bool fmi2, bool logging_on)
{
    inst->model = &model_definition;
    inst->fmi2 = fmi2;
    for (size_t i = 0; i < inst->model->variable_count; i++)
        inst->has_arrays = inst->has_arrays || inst->model->variables[i].dimensions[0] != 0;
    /* loggingOn enables every category but the per-call trace, which would
     * flood a log at one line per step. FMI 2.0 only calls that "debug
     * logging", so its error messages are on even without it. */
    if (logging_on)
        inst->log_mask = ALL_CATEGORIES & ~CATEGORY_BIT(MODEL_LOG_CALLS);
    else
        inst->log_mask = fmi2 ? STATUS_CATEGORIES : 0;
    inst->name = dup_string(inst, name);
    inst->resource_location = resource_location ? dup_string(inst, resource_location) : NULL;
    inst->data = inst->calloc_fn(1, inst->model->data_size);
    if (!inst->name || (resource_location && !inst->resource_location) || !inst->data) {
        instance_error(inst, "out of memory instantiating %s", name);
        return false;
    }
    reset_fields(inst);
    return apply_start_values(inst, inst->data);
}

void instance_destroy(model_instance *inst)
{
    /* FMI 2.0 section 2.1.3: after Fatal no function may be called, the free
     * included (fmusim frees nothing then); say so, then free anyway. */
    if (inst->mode == MODE_FATAL)
        instance_error(inst, "FreeInstance: Illegal call sequence: not allowed in %s",
                       instance_mode_name(inst->mode));
    if (inst->data) {
        instance_free_owned(inst, inst->data);
        inst->free_fn(inst->data);
    }
    inst->free_fn(inst->resource_location);
    inst->free_fn(inst->name);
    inst->free_fn(inst);
}

model_status instance_reset(model_instance *inst)
{
    instance_free_owned(inst, inst->data);
    memset(inst->data, 0, inst->model->data_size);
    reset_fields(inst);
    if (!apply_start_values(inst, inst->data)) {
        inst->mode = MODE_FATAL;
        return MODEL_FATAL;
    }
    return MODEL_OK;
}

model_status instance_setup(model_instance *inst, bool tolerance_defined, double tolerance,
                            double start_time, bool stop_time_defined, double stop_time)
{
    if (!isfinite(start_time))
        return instance_error(inst, "startTime must be finite, is %g", start_time);
    if (stop_time_defined && !(stop_time >= start_time))
        return instance_error(inst, "stopTime %.17g is before startTime %.17g", stop_time,
                              start_time);
    if (tolerance_defined && !(tolerance > 0.0))
        return instance_error(inst, "tolerance must be > 0, is %g", tolerance);
    inst->tolerance_defined = tolerance_defined;
    if (tolerance_defined)
        inst->tolerance = tolerance;
    inst->start_time = start_time;
    inst->time = start_time;
    inst->last_successful_time = start_time;
    inst->stop_time_defined = stop_time_defined;
    if (stop_time_defined)
        inst->stop_time = stop_time;
    return MODEL_OK;
}

model_status instance_enter_initialization(model_instance *inst, const char *function)
{
    if (!instance_allowed(inst, MODE_INSTANTIATED, function))
        return MODEL_ERROR;
    model_status s = inst->model->enter_initialization
                         ? inst->model->enter_initialization(inst, inst->data)
                         : MODEL_OK;
    if (s > MODEL_WARNING) {
        inst->mode = s == MODEL_FATAL ? MODE_FATAL : MODE_ERROR;
        return s;
    }
    inst->mode = MODE_INITIALIZATION;
    inst->dirty = true;
    return s;
}

model_status instance_exit_initialization(model_instance *inst, const char *function)
{
    if (!instance_allowed(inst, MODE_INITIALIZATION, function))
        return MODEL_ERROR;
    if (inst->model->check && inst->model->check(inst, inst->data) != MODEL_OK) {
        inst->mode = MODE_ERROR;
        return MODEL_ERROR;
    }
    if (inst->model->initialize)
        inst->model->initialize(inst, inst->data);
    inst->dirty = false;
    /* Model exchange continues in Event Mode (FMI 2.0 section 3.2.3), and so
     * does co-simulation with eventModeUsed (FMI 3.0 section 4.2.2). */
    inst->mode = inst->model_exchange || inst->event_mode_used ? MODE_EVENT : MODE_STEP;
    return MODEL_OK;
}

model_status instance_terminate(model_instance *inst, const char *function)
{
    if (!instance_allowed(inst, MODE_RUNNING, function))
        return MODEL_ERROR;
    inst->mode = MODE_TERMINATED;
    return MODEL_OK;
}

model_status instance_do_step(model_instance *inst, double t, double h, const char *function)
{
    if (!instance_allowed(inst, MODE_STEP, function))
        return MODEL_ERROR;
    if (!(h > 0.0) || !isfinite(h))
        return instance_error(inst, "%s: communicationStepSize must be > 0, is %g", function, h);
    /* The importer and the FMU count time separately; they must agree to
     * rounding (relative 1e-9), otherwise steps were skipped or repeated. */
    const double magnitude = fabs(inst->time) > 1.0 ? fabs(inst->time) : 1.0;
    if (fabs(t - inst->time) > 1e-9 * magnitude)
        return instance_error(inst,
                              "%s: currentCommunicationPoint %.17g is not the FMU's time %.17g",
                              function, t, inst->time);
    if (inst->stop_time_defined &&
        t + h > inst->stop_time + 1e-9 * (fabs(inst->stop_time) > 1.0 ? fabs(inst->stop_time) : 1.0))
        return instance_error(inst, "%s: step to %.17g goes past stopTime %.17g", function, t + h,
                              inst->stop_time);
    inst->discard_recoverable = false;
    model_status status = inst->model->step_to_event ? instance_advance(inst, t, h)
                                                     : inst->model->do_step(inst, inst->data, t, h);
    switch (status) {
    case MODEL_OK:
    case MODEL_WARNING:
        inst->time = inst->returned_early ? inst->early_time : t + h;
        inst->last_successful_time = inst->time;
        inst->terminate_requested = false;
        inst->dirty = false;
        break;
    case MODEL_DISCARD:
        /* FMI 2.0 section 4.2.3 fmi2Terminated, FMI 3.0 section 4.2.1
         * terminateSimulation: a discarded step asks to end the run unless
         * the model said it could be retried. */
        inst->last_successful_time = t;
        inst->terminate_requested = !inst->discard_recoverable;
        break;
    case MODEL_ERROR: inst->mode = MODE_ERROR; break;
    case MODEL_FATAL: inst->mode = MODE_FATAL; break;
    }
    return status;
}

/* ---- Values ---- */

static size_t type_size(model_type type)
{
    switch (type) {
    case MODEL_FLOAT32: return sizeof(float);
    case MODEL_FLOAT64: return sizeof(double);
    case MODEL_INT8:
    case MODEL_UINT8: return 1;
    case MODEL_INT16:
    case MODEL_UINT16: return 2;
    case MODEL_INT32:
    case MODEL_UINT32: return 4;
    case MODEL_INT64:
    case MODEL_UINT64: return 8;
    case MODEL_BOOLEAN: return sizeof(bool);
    case MODEL_STRING: return sizeof(char *);
    case MODEL_BINARY: return sizeof(model_binary);
    }
    return 0;
}

static const char *type_name(model_type type)
{
    static const char *const names[] = {"Float32", "Float64", "Int8",   "UInt8",  "Int16",
                                        "UInt16",  "Int32",   "UInt32", "Int64",  "UInt64",
                                        "Boolean", "String",  "Binary"};
    return names[type];
}

/* FMI 2.0 names the types Real and Integer. */
static const char *versioned_type_name(const model_instance *inst, model_type type)
{
    if (inst->fmi2 && type == MODEL_FLOAT64)
        return "Real";
    if (inst->fmi2 && type == MODEL_INT32)
        return "Integer";
    return type_name(type);
}

/* The variable with value reference vr if it has the expected type; else
 * logs why not and returns NULL. */
static const model_variable *lookup(model_instance *inst, const char *function, uint32_t vr,
                                    model_type type)
{
    const model_def *m = inst->model;
    if (vr < m->variable_count && m->variables[vr].type == type)
        return &m->variables[vr];
    if (vr >= m->variable_count || (inst->fmi2 && !model_type_in_fmi2(m->variables[vr].type)))
        instance_error(inst, "%s: no variable with value reference %u", function, (unsigned)vr);
    else
        instance_error(inst, "%s: variable %s (value reference %u) is of type %s, not %s",
                       function, m->variables[vr].name, (unsigned)vr,
                       versioned_type_name(inst, m->variables[vr].type),
                       versioned_type_name(inst, type));
    return NULL;
}

/* Brings calculated values up to date before a get. */
static void update_if_dirty(model_instance *inst)
{
    if (!inst->dirty)
        return;
    if (inst->mode == MODE_INITIALIZATION || inst->mode == MODE_INSTANTIATED) {
        if (inst->model->initialize)
            inst->model->initialize(inst, inst->data);
    } else if (inst->model->evaluate) {
        inst->model->evaluate(inst, inst->data);
    }
    inst->dirty = false;
}

/* Test variant RTCOSIM_FMU_REFUSE_INPUT_GET: like FMUs some tools export,
 * refuse a get of an input or a structural parameter (an error, logged). */
static const model_variable *lookup_get(model_instance *inst, const char *function, uint32_t vr,
                                        model_type type)
{
    const model_variable *v = lookup(inst, function, vr, type);
#ifdef RTCOSIM_FMU_REFUSE_INPUT_GET
    if (v && (v->causality == MODEL_INPUT || v->causality == MODEL_STRUCTURAL_PARAMETER)) {
        instance_error(inst, "%s: %s cannot be read", function, v->name);
        return NULL;
    }
#endif
    return v;
}

model_status instance_get(model_instance *inst, const char *function, const uint32_t vr[],
                          size_t n, model_type type, void *values)
{
    update_if_dirty(inst);
    if (type == MODEL_FLOAT64) { /* the hot path of every co-simulation step */
        double *out = values;
        size_t k = 0; /* values written: an array writes all its elements */
        for (size_t i = 0; i < n; i++) {
            const model_variable *v = lookup_get(inst, function, vr[i], type);
            if (!v)
                return MODEL_ERROR;
            if (v->causality == MODEL_INDEPENDENT) {
                out[k++] = inst->time;
            } else if (!v->dimensions[0]) {
                out[k++] = *(const double *)(inst->data + v->offset);
            } else {
                size_t count = model_value_count(inst, v);
                memcpy(out + k, inst->data + v->offset, count * sizeof *out);
                k += count;
            }
        }
        return MODEL_OK;
    }
    const size_t size = type_size(type);
    unsigned char *out = values;
    size_t k = 0; /* values written: an array writes all its elements */
    for (size_t i = 0; i < n; i++) {
        const model_variable *v = lookup_get(inst, function, vr[i], type);
        if (!v)
            return MODEL_ERROR;
        if (v->causality == MODEL_INDEPENDENT) {
            memcpy(out + k++ * size, &inst->time, sizeof inst->time);
        } else if (!v->dimensions[0]) {
            memcpy(out + k++ * size, inst->data + v->offset, size);
        } else {
            size_t count = model_value_count(inst, v);
            memcpy(out + k * size, inst->data + v->offset, count * size);
            k += count;
        }
    }
    return MODEL_OK;
}

/* FMI 2.0 sections 3.2.3/4.2.4, FMI 3.0 section 2.3.5: before the end of
 * initialization, variables with a start value the importer may choose
 * (parameters, inputs, initial exact/approx); in Step Mode, inputs and tunable
 * parameters only. */
static bool settable(model_instance *inst, const char *function, const model_variable *v)
{
    if (v->causality == MODEL_STRUCTURAL_PARAMETER) {
        instance_error(inst, "%s: structural parameter %s can only be set in Configuration "
                             "Mode, which this FMU does not support", function, v->name);
        return false;
    }
    if (v->causality == MODEL_INDEPENDENT || v->variability == MODEL_CONSTANT) {
        instance_error(inst, "%s: variable %s is %s and cannot be set", function, v->name,
                       v->causality == MODEL_INDEPENDENT ? "the independent variable"
                                                         : "a constant");
        return false;
    }
    bool ok;
    if (inst->mode == MODE_CONTINUOUS_TIME && v->variability != MODEL_CONTINUOUS && !inst->fmi1) {
        /* FMI 2.0 section 3.2.3, FMI 3.0 section 3.2.3: only continuous
         * inputs change outside events (the Reference FMUs refuse the rest;
         * FMI 1.0 has no modes: fmiEventUpdate follows such a set). */
        instance_error(inst, "%s: variable %s is not continuous and can only be set in "
                             "Event Mode, not in Continuous-Time Mode", function, v->name);
        return false;
    }
    if (inst->mode & MODE_RUNNING)
        ok = v->causality == MODEL_INPUT ||
             (v->causality == MODEL_PARAMETER && v->variability == MODEL_TUNABLE);
    else
        ok = v->causality == MODEL_INPUT || v->causality == MODEL_PARAMETER ||
             v->initial == MODEL_INITIAL_EXACT || v->initial == MODEL_INITIAL_APPROX;
    if (!ok)
        instance_error(inst, "%s: variable %s cannot be set in %s", function, v->name,
                       instance_mode_name(inst->mode));
    return ok;
}

size_t instance_value_count(model_instance *inst, const uint32_t vr[], size_t n)
{
    const model_def *m = inst->model;
    if (!inst->has_arrays) /* every variable a scalar: skip the walk on the step path */
        return n;
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += vr[i] < m->variable_count ? model_value_count(inst, &m->variables[vr[i]]) : 1;
    return total;
}

model_status instance_check_set(model_instance *inst, const char *function, const uint32_t vr[],
                                size_t n, model_type type)
{
    for (size_t i = 0; i < n; i++) {
        const model_variable *v = lookup(inst, function, vr[i], type);
        if (!v || !settable(inst, function, v))
            return MODEL_ERROR;
    }
    return MODEL_OK;
}

model_status instance_set(model_instance *inst, const char *function, const uint32_t vr[],
                          size_t n, model_type type, const void *values)
{
    /* Check every reference first so that a bad one changes nothing. */
    if (instance_check_set(inst, function, vr, n, type) != MODEL_OK)
        return MODEL_ERROR;
    for (size_t i = 0; type == MODEL_STRING && i < n; i++)
        if (((const char *const *)values)[i] == NULL)
            return instance_error(inst, "%s: value of %s is a NULL string", function,
                                  inst->model->variables[vr[i]].name);
#ifdef RTCOSIM_FMU_MAX_STRING
    /* Test variant: refuse a longer String, as the Reference FMUs do (their
     * message) */
    for (size_t i = 0; type == MODEL_STRING && i < n; i++)
        if (strlen(((const char *const *)values)[i]) > RTCOSIM_FMU_MAX_STRING)
            return instance_error(inst, "Max. string length is %d bytes.", RTCOSIM_FMU_MAX_STRING);
#endif
    const size_t size = type_size(type);
    const unsigned char *in = values;
    size_t k = 0; /* values read: an array takes all its elements */
    for (size_t i = 0; i < n; i++) {
        const model_variable *v = &inst->model->variables[vr[i]];
        if (type == MODEL_STRING) {
            if (!model_set_string(inst, (char **)(inst->data + v->offset),
                                  ((const char *const *)values)[k++]))
                return instance_error(inst, "%s: out of memory copying %s", function, v->name);
        } else if (!v->dimensions[0]) {
            memcpy(inst->data + v->offset, in + k++ * size, size);
        } else {
            size_t count = model_value_count(inst, v);
            memcpy(inst->data + v->offset, in + k * size, count * size);
            k += count;
        }
    }
    inst->dirty = true;
    return MODEL_OK;
}

model_status instance_get_binary(model_instance *inst, const char *function, const uint32_t vr[],
                                 size_t n, size_t sizes[], const unsigned char *values[])
{
    update_if_dirty(inst);
    static const unsigned char empty[1] = {0};
    for (size_t i = 0; i < n; i++) {
        const model_variable *v = lookup(inst, function, vr[i], MODEL_BINARY);
        if (!v)
            return MODEL_ERROR;
        const model_binary *b = (const model_binary *)(inst->data + v->offset);
        sizes[i] = b->size;
        values[i] = b->data ? b->data : empty;
    }
    return MODEL_OK;
}

model_status instance_set_binary(model_instance *inst, const char *function, const uint32_t vr[],
                                 size_t n, const size_t sizes[],
                                 const unsigned char *const values[])
{
    for (size_t i = 0; i < n; i++) {
        const model_variable *v = lookup(inst, function, vr[i], MODEL_BINARY);
        if (!v || !settable(inst, function, v))
            return MODEL_ERROR;
        if (sizes[i] > 0 && values[i] == NULL)
            return instance_error(inst, "%s: value of %s is NULL with size %zu", function,
                                  v->name, sizes[i]);
    }
    for (size_t i = 0; i < n; i++) {
        const model_variable *v = &inst->model->variables[vr[i]];
        if (!model_set_binary(inst, (model_binary *)(inst->data + v->offset), values[i], sizes[i]))
            return instance_error(inst, "%s: out of memory copying %s", function, v->name);
    }
    inst->dirty = true;
    return MODEL_OK;
}
