/* FMU state for every model: snapshots of an instance (mode, time, model data
 * with its Strings and Binaries deep-copied) that FMI GetFMUState/SetFMUState
 * hand out, and their serialization to bytes and back, checked on the way in
 * so that corrupt or foreign bytes are refused instead of trusted. */
#include <stdlib.h>
#include <string.h>

#include "instance.h"

typedef struct snapshot {
    const model_def *model; /* a snapshot belongs to one model */
    instance_mode mode;
    double time;
    double start_time;
    double stop_time;
    bool stop_time_defined;
    bool dirty;
    bool terminate_requested;
    double last_successful_time;
    unsigned char *data;
} snapshot;

static void capture(const model_instance *inst, snapshot *s)
{
    s->model = inst->model;
    s->mode = inst->mode;
    s->time = inst->time;
    s->start_time = inst->start_time;
    s->stop_time = inst->stop_time;
    s->stop_time_defined = inst->stop_time_defined;
    s->dirty = inst->dirty;
    s->terminate_requested = inst->terminate_requested;
    s->last_successful_time = inst->last_successful_time;
}

static void free_snapshot(model_instance *inst, snapshot *s)
{
    if (!s)
        return;
    if (s->data) {
        instance_free_owned(inst, s->data);
        inst->free_fn(s->data);
    }
    inst->free_fn(s);
}

model_status instance_get_state(model_instance *inst, void **state)
{
    if (!state)
        return instance_error(inst, "GetFMUState: FMUState pointer is NULL");
    unsigned char *data = inst->calloc_fn(1, inst->model->data_size);
    if (!data || !instance_copy_data(inst, data, inst->data)) {
        inst->free_fn(data);
        return instance_error(inst, "GetFMUState: out of memory");
    }
    snapshot *s = *state;
    if (s) { /* overwrite the given snapshot (FMI 2.0 section 2.1.8) */
        if (s->model != inst->model) {
            instance_free_owned(inst, data);
            inst->free_fn(data);
            return instance_error(inst, "GetFMUState: FMUState belongs to another model");
        }
        instance_free_owned(inst, s->data);
        inst->free_fn(s->data);
    } else if (!(s = inst->calloc_fn(1, sizeof *s))) {
        instance_free_owned(inst, data);
        inst->free_fn(data);
        return instance_error(inst, "GetFMUState: out of memory");
    }
    capture(inst, s);
    s->data = data;
    *state = s;
    return MODEL_OK;
}

model_status instance_set_state(model_instance *inst, const void *state)
{
    const snapshot *s = state;
    if (!s || s->model != inst->model)
        return instance_error(inst, "SetFMUState: %s", s ? "FMUState belongs to another model"
                                                         : "FMUState is NULL");
    unsigned char *data = inst->calloc_fn(1, inst->model->data_size);
    if (!data || !instance_copy_data(inst, data, s->data)) {
        inst->free_fn(data);
        return instance_error(inst, "SetFMUState: out of memory");
    }
    instance_free_owned(inst, inst->data);
    inst->free_fn(inst->data);
    inst->data = data;
    inst->mode = s->mode;
    inst->time = s->time;
    inst->start_time = s->start_time;
    inst->stop_time = s->stop_time;
    inst->stop_time_defined = s->stop_time_defined;
    inst->dirty = s->dirty;
    inst->terminate_requested = s->terminate_requested;
    inst->last_successful_time = s->last_successful_time;
    return MODEL_OK;
}

model_status instance_free_state(model_instance *inst, void **state)
{
    if (state) {
        free_snapshot(inst, *state);
        *state = NULL;
    }
    return MODEL_OK;
}

/* Serialized layout (host byte order; a state is only meaningful to the same
 * FMU binary, and the checks below catch mix-ups and damage to the framing,
 * not deliberate edits of a model's own fields): magic "RTCS", format version, instantiation token, the scalar
 * fields of the snapshot, data_size and the raw data struct with owned
 * pointers zeroed, then the bytes of each String (without its NUL) and Binary
 * in variable table order, each preceded by its length. */
static const char serial_magic[4] = {'R', 'T', 'C', 'S'};
enum { SERIAL_FORMAT = 1 };

typedef struct serial_cursor {
    unsigned char *out;     /* NULL when only measuring */
    const unsigned char *in;
    size_t pos;
    size_t size;
    bool ok;
} serial_cursor;

static void put(serial_cursor *c, const void *bytes, size_t n)
{
    if (c->out && n > 0)
        memcpy(c->out + c->pos, bytes, n);
    c->pos += n;
}

static void put_u64(serial_cursor *c, uint64_t v) { put(c, &v, sizeof v); }

static const unsigned char *take(serial_cursor *c, size_t n)
{
    if (!c->ok || n > c->size - c->pos) {
        c->ok = false;
        return NULL;
    }
    const unsigned char *p = c->in + c->pos;
    c->pos += n;
    return p;
}

static uint64_t take_u64(serial_cursor *c)
{
    uint64_t v = 0;
    const unsigned char *p = take(c, sizeof v);
    if (p)
        memcpy(&v, p, sizeof v);
    return v;
}

static double take_f64(serial_cursor *c)
{
    double v = 0;
    const unsigned char *p = take(c, sizeof v);
    if (p)
        memcpy(&v, p, sizeof v);
    return v;
}

static void put_snapshot(model_instance *inst, const snapshot *s, serial_cursor *c)
{
    const model_def *m = inst->model;
    const char *token = m->instantiation_token;
    put(c, serial_magic, sizeof serial_magic);
    put_u64(c, SERIAL_FORMAT);
    put_u64(c, strlen(token));
    put(c, token, strlen(token));
    put_u64(c, (uint64_t)s->mode);
    put(c, &s->time, sizeof s->time);
    put(c, &s->start_time, sizeof s->start_time);
    put(c, &s->stop_time, sizeof s->stop_time);
    put(c, &s->last_successful_time, sizeof s->last_successful_time);
    put_u64(c, (uint64_t)s->stop_time_defined | (uint64_t)s->dirty << 1 |
                   (uint64_t)s->terminate_requested << 2);
    put_u64(c, m->data_size);
    size_t data_pos = c->pos;
    put(c, s->data, m->data_size);
    void *const no_address = NULL; /* pointers are written as null */
    for (size_t i = 0; i < m->variable_count; i++) {
        const model_variable *v = &m->variables[i];
        if (v->causality == MODEL_INDEPENDENT || !instance_type_is_owned(v->type))
            continue;
        if (v->type == MODEL_STRING) {
            const char *str = *(char *const *)(s->data + v->offset);
            put_u64(c, strlen(str));
            put(c, str, strlen(str));
            if (c->out) /* no addresses in the bytes */
                memcpy(c->out + data_pos + v->offset, &no_address, sizeof no_address);
        } else {
            const model_binary *b = (const model_binary *)(s->data + v->offset);
            put_u64(c, b->size);
            put(c, b->data, b->size);
            if (c->out) { /* no address, and no capacity (it depends on the history) */
                static const size_t none = 0;
                memcpy(c->out + data_pos + v->offset + offsetof(model_binary, data), &no_address,
                       sizeof no_address);
                memcpy(c->out + data_pos + v->offset + offsetof(model_binary, capacity), &none,
                       sizeof none);
            }
        }
    }
}

model_status instance_serialized_size(model_instance *inst, const void *state, size_t *size)
{
    const snapshot *s = state;
    if (!s || s->model != inst->model || !size)
        return instance_error(inst, "SerializedFMUStateSize: %s",
                              !size ? "size pointer is NULL" : "FMUState is not of this model");
    serial_cursor c = {.out = NULL};
    put_snapshot(inst, s, &c);
    *size = c.pos;
    return MODEL_OK;
}

model_status instance_serialize(model_instance *inst, const void *state, unsigned char *buffer,
                                size_t size)
{
    size_t needed = 0;
    if (instance_serialized_size(inst, state, &needed) != MODEL_OK)
        return MODEL_ERROR;
    if (!buffer || size < needed)
        return instance_error(inst, "SerializeFMUState: buffer of %zu bytes, %zu needed", size,
                              needed);
    serial_cursor c = {.out = buffer};
    put_snapshot(inst, state, &c);
    return MODEL_OK;
}

model_status instance_deserialize(model_instance *inst, const unsigned char *buffer, size_t size,
                                  void **state)
{
    const model_def *m = inst->model;
    if (!buffer || !state)
        return instance_error(inst, "DeserializeFMUState: NULL %s", buffer ? "FMUState" : "buffer");
    serial_cursor c = {.in = buffer, .size = size, .ok = true};
    const unsigned char *magic = take(&c, sizeof serial_magic);
    uint64_t format = take_u64(&c);
    if (!magic || memcmp(magic, serial_magic, sizeof serial_magic) != 0 || format != SERIAL_FORMAT)
        return instance_error(inst, "DeserializeFMUState: not a serialized state of this FMU");
    uint64_t token_len = take_u64(&c);
    const unsigned char *token = take(&c, token_len);
    if (!token || token_len != strlen(m->instantiation_token) ||
        memcmp(token, m->instantiation_token, token_len) != 0)
        return instance_error(inst, "DeserializeFMUState: state of another model (token differs)");
    snapshot *s = inst->calloc_fn(1, sizeof *s);
    unsigned char *data = inst->calloc_fn(1, m->data_size);
    if (!s || !data) {
        inst->free_fn(s);
        inst->free_fn(data);
        return instance_error(inst, "DeserializeFMUState: out of memory");
    }
    s->model = m;
    s->data = data;
    uint64_t mode = take_u64(&c);
    s->time = take_f64(&c);
    s->start_time = take_f64(&c);
    s->stop_time = take_f64(&c);
    s->last_successful_time = take_f64(&c);
    uint64_t flags = take_u64(&c);
    uint64_t data_size = take_u64(&c);
    const unsigned char *raw = take(&c, data_size);
    const char *problem = NULL;
    if (!c.ok)
        problem = "truncated";
    else if (data_size != m->data_size)
        problem = "data size differs";
    else if (mode == 0 || mode > MODE_LAST || (mode & (mode - 1)) != 0 || flags > 7)
        problem = "corrupt header";
    if (!problem) {
        s->mode = (instance_mode)mode;
        s->stop_time_defined = flags & 1;
        s->dirty = (flags >> 1) & 1;
        s->terminate_requested = (flags >> 2) & 1;
        memcpy(data, raw, m->data_size);
        /* Owned pointers in the raw bytes are meaningless: clear them first so
         * that a failure below frees only what was allocated here. */
        for (size_t i = 0; i < m->variable_count; i++) {
            const model_variable *v = &m->variables[i];
            if (v->causality == MODEL_INDEPENDENT || !instance_type_is_owned(v->type))
                continue;
            if (v->type == MODEL_STRING)
                *(char **)(data + v->offset) = NULL;
            else
                *(model_binary *)(data + v->offset) = (model_binary){0, NULL, 0};
        }
        for (size_t i = 0; i < m->variable_count && !problem; i++) {
            const model_variable *v = &m->variables[i];
            if (v->causality == MODEL_INDEPENDENT || !instance_type_is_owned(v->type))
                continue;
            uint64_t len = take_u64(&c);
            const unsigned char *bytes = take(&c, len);
            if (!bytes) {
                problem = "truncated";
            } else if (v->type == MODEL_STRING) {
                char *str = memchr(bytes, '\0', len) ? NULL : inst->calloc_fn(len + 1, 1);
                if (!str)
                    problem = "bad or unallocatable String";
                else
                    memcpy(str, bytes, len);
                *(char **)(data + v->offset) = str;
            } else if (!model_set_binary(inst, (model_binary *)(data + v->offset), bytes, len)) {
                problem = "out of memory";
            }
        }
        if (!problem && c.pos != size)
            problem = "trailing bytes";
    }
    if (problem) {
        free_snapshot(inst, s);
        return instance_error(inst, "DeserializeFMUState: %s", problem);
    }
    *state = s; /* a new snapshot, whatever *state held (FMI 2.0 section 2.1.8) */
    return MODEL_OK;
}
