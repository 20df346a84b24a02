/* The generic wrapper that turns a native model (data struct + variable table
 * + equations, see native.h) into an rtcosim_component: value access by value
 * reference, built-in fixed-step integrators with polynomial inputs (input
 * derivatives), state snapshots as byte copies, and serialization. Written
 * once so that each model is only its equations. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rtcosim/native.h"

#define MAX_VALUE_REFERENCE 65535u
#define STATE_MAGIC UINT32_C(0x4e415453) /* "NATS" */

struct rtcosim_native_context {
    struct native_impl *impl;
};

typedef struct native_impl {
    const rtcosim_native_model *model;
    rtcosim_native_context ctx;
    unsigned char *data;
    rtcosim_variable *vars;        /* the component's variable table */
    int32_t *vr_to_var;            /* value reference -> variable index, -1 */
    size_t vr_count;
    /* FLOAT64 inputs and their polynomial over the current step. */
    size_t *input_vars;
    size_t input_count;
    double *input_base, *input_d1, *input_d2;
    uint32_t *input_slot_of_var;   /* variable index -> input slot, UINT32_MAX */
    /* Direct-feedthrough pairs (output variable, input variable). */
    size_t (*deps)[2];
    size_t dep_count;
    double *work;                  /* integrator stages: 6 * state_count */
    double step_start;             /* seconds */
    double time;                   /* seconds */
    bool outputs_dirty;
    bool initialized;
    const char *instance_name;
} native_impl;

/* A snapshot: the data struct and the input polynomials, byte-copyable. */
typedef struct native_snapshot {
    uint32_t magic;
    uint32_t data_size;
    uint32_t input_count;
    uint32_t reserved;
    double time;
    double step_start;
    unsigned char bytes[]; /* data, then base, d1, d2 */
} native_snapshot;

static size_t snapshot_size(const native_impl *n)
{
    return sizeof(native_snapshot) + n->model->data_size + 3 * n->input_count * sizeof(double);
}

static const char *label(const native_impl *n)
{
    return n->instance_name ? n->instance_name : n->model->name;
}

/* ---- typed access to a field of the data struct ---- */

static bool native_type_supported(rtcosim_type type)
{
    return type <= RTCOSIM_TYPE_BOOLEAN;
}

static void store_double(rtcosim_type type, double v, void *slot)
{
    switch (type) {
    case RTCOSIM_TYPE_FLOAT64: *(double *)slot = v; break;
    case RTCOSIM_TYPE_FLOAT32: *(float *)slot = (float)v; break;
    case RTCOSIM_TYPE_INT8: *(int8_t *)slot = (int8_t)v; break;
    case RTCOSIM_TYPE_UINT8: *(uint8_t *)slot = (uint8_t)v; break;
    case RTCOSIM_TYPE_INT16: *(int16_t *)slot = (int16_t)v; break;
    case RTCOSIM_TYPE_UINT16: *(uint16_t *)slot = (uint16_t)v; break;
    case RTCOSIM_TYPE_INT32: *(int32_t *)slot = (int32_t)v; break;
    case RTCOSIM_TYPE_UINT32: *(uint32_t *)slot = (uint32_t)v; break;
    case RTCOSIM_TYPE_INT64: *(int64_t *)slot = (int64_t)v; break;
    case RTCOSIM_TYPE_UINT64: *(uint64_t *)slot = (uint64_t)v; break;
    case RTCOSIM_TYPE_BOOLEAN: *(bool *)slot = v != 0; break;
    default: break;
    }
}

static rtcosim_value start_value(rtcosim_type type, double v)
{
    rtcosim_value out;
    memset(&out, 0, sizeof out);
    switch (type) {
    case RTCOSIM_TYPE_FLOAT64: out.f64 = v; break;
    case RTCOSIM_TYPE_FLOAT32: out.f32 = (float)v; break;
    case RTCOSIM_TYPE_UINT8: case RTCOSIM_TYPE_UINT16: case RTCOSIM_TYPE_UINT32:
    case RTCOSIM_TYPE_UINT64: out.u64 = (uint64_t)v; break;
    case RTCOSIM_TYPE_BOOLEAN: out.b = v != 0; break;
    default: out.i64 = (int64_t)v; break;
    }
    return out;
}

/* ---- inputs as polynomials in time ---- */

void rtcosim_native_inputs_at(const rtcosim_native_context *ctx, double t)
{
    native_impl *n = ctx->impl;
    double s = t - n->step_start;
    for (size_t i = 0; i < n->input_count; i++) {
        double *field = (double *)(n->data + n->model->variables[n->input_vars[i]].offset);
        /* The tail only when it is not zero: base + (+0) would turn an
         * input of -0 into +0, and a held input must reach the model as set. */
        double tail = s * (n->input_d1[i] + 0.5 * s * n->input_d2[i]);
        *field = tail != 0 ? n->input_base[i] + tail : n->input_base[i];
    }
}

/* ---- built-in integrators ---- */

static void eval_derivatives(native_impl *n, double t, const double *x, double *dx)
{
    rtcosim_native_inputs_at(&n->ctx, t);
    n->model->derivatives(n->data, t, x, dx);
}

/* One micro step of length dt from t of the chosen explicit scheme; the
 * states live in the data struct and are updated in place. */
static void micro_step(native_impl *n, double t, double dt)
{
    const rtcosim_native_model *m = n->model;
    size_t ns = m->state_count;
    double *x = (double *)(n->data + m->states_offset);
    double *k1 = n->work, *k2 = k1 + ns, *k3 = k2 + ns, *k4 = k3 + ns, *xt = k4 + ns,
           *x0 = xt + ns;
    memcpy(x0, x, ns * sizeof *x);
    switch (m->integrator) {
    case RTCOSIM_NATIVE_EULER:
        eval_derivatives(n, t, x0, k1);
        for (size_t i = 0; i < ns; i++)
            x[i] = x0[i] + dt * k1[i];
        break;
    case RTCOSIM_NATIVE_HEUN:
        eval_derivatives(n, t, x0, k1);
        for (size_t i = 0; i < ns; i++)
            xt[i] = x0[i] + dt * k1[i];
        eval_derivatives(n, t + dt, xt, k2);
        for (size_t i = 0; i < ns; i++)
            x[i] = x0[i] + 0.5 * dt * (k1[i] + k2[i]);
        break;
    default: /* RK4 */
        eval_derivatives(n, t, x0, k1);
        for (size_t i = 0; i < ns; i++)
            xt[i] = x0[i] + 0.5 * dt * k1[i];
        eval_derivatives(n, t + 0.5 * dt, xt, k2);
        for (size_t i = 0; i < ns; i++)
            xt[i] = x0[i] + 0.5 * dt * k2[i];
        eval_derivatives(n, t + 0.5 * dt, xt, k3);
        for (size_t i = 0; i < ns; i++)
            xt[i] = x0[i] + dt * k3[i];
        eval_derivatives(n, t + dt, xt, k4);
        for (size_t i = 0; i < ns; i++)
            x[i] = x0[i] + dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        break;
    }
}

/* ---- component ops ---- */

/* Outputs on demand. Until initialization ends the model's init callback
 * runs first, so that a get after setting parameters or inputs (in or before
 * initialization mode) returns consistent initial values, never the outputs
 * of uninitialized model data (errors of init are reported by exit_init,
 * which runs it again). */
static void compute_outputs(native_impl *n)
{
    if (!n->outputs_dirty)
        return;
    n->outputs_dirty = false;
    if (!n->initialized && n->model->init) {
        rtcosim_error ignored;
        n->model->init(n->data, &n->ctx, &ignored);
    }
    if (n->model->outputs) {
        rtcosim_native_inputs_at(&n->ctx, n->time);
        n->model->outputs(n->data, n->time);
    }
}

static rtcosim_status native_enter_init(void *self, rtcosim_error *err)
{
    (void)err;
    native_impl *n = self;
    n->outputs_dirty = true;
    return RTCOSIM_OK;
}

static rtcosim_status native_instantiate(void *self, const char *instance_name, rtcosim_error *err)
{
    (void)err;
    native_impl *n = self;
    n->instance_name = instance_name;
    return RTCOSIM_OK;
}

static rtcosim_status native_setup(void *self, double tolerance, rtcosim_time_ns start,
                                   rtcosim_time_ns stop, rtcosim_error *err)
{
    (void)tolerance, (void)stop, (void)err;
    native_impl *n = self;
    n->time = rtcosim_time_to_seconds(start);
    n->step_start = n->time;
    return RTCOSIM_OK;
}

static rtcosim_status native_exit_init(void *self, rtcosim_error *err)
{
    native_impl *n = self;
    if (n->model->init) {
        rtcosim_status st = n->model->init(n->data, &n->ctx, err);
        if (st != RTCOSIM_OK)
            return rtcosim_error_prefix(err, "%s: ", label(n));
    }
    n->outputs_dirty = true;
    compute_outputs(n);
    n->initialized = true;
    return RTCOSIM_OK;
}

static rtcosim_status native_do_step(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                     rtcosim_step_result *result, rtcosim_error *err)
{
    native_impl *n = self;
    const rtcosim_native_model *m = n->model;
    double t0 = rtcosim_time_to_seconds(t), hs = rtcosim_time_to_seconds(h);
    n->step_start = t0;
    if (m->integrator == RTCOSIM_NATIVE_OWN_STEP) {
        rtcosim_status st = m->step(n->data, &n->ctx, t0, hs, err);
        if (st != RTCOSIM_OK)
            return rtcosim_error_prefix(err, "%s: step at t = %.9g s: ", label(n), t0);
    } else {
        int64_t micro_steps = 1;
        if (m->max_micro_step > 0)
            micro_steps = (h + m->max_micro_step - 1) / m->max_micro_step;
        double dt = hs / (double)micro_steps;
        for (int64_t i = 0; i < micro_steps; i++)
            micro_step(n, t0 + (double)i * dt, dt);
    }
    /* The inputs keep their end-of-step values; the polynomial applied to this
     * step only (input derivatives are set per step). */
    rtcosim_native_inputs_at(&n->ctx, t0 + hs);
    for (size_t i = 0; i < n->input_count; i++) {
        n->input_base[i] = *(double *)(n->data + m->variables[n->input_vars[i]].offset);
        n->input_d1[i] = n->input_d2[i] = 0;
    }
    n->time = rtcosim_time_to_seconds(t + h);
    n->step_start = n->time;
    n->outputs_dirty = true;
    compute_outputs(n);
    if (m->event) {
        bool terminate = false;
        result->event_handling_needed = m->event(n->data, n->time, &terminate);
        result->terminate_requested = terminate;
    }
    return RTCOSIM_OK;
}

static const rtcosim_native_variable *lookup(native_impl *n, uint32_t vr, rtcosim_type type,
                                             int32_t *index, rtcosim_error *err)
{
    int32_t i = vr < n->vr_count ? n->vr_to_var[vr] : -1;
    if (i < 0) {
        rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "%s: no variable with value reference %u",
                          label(n), (unsigned)vr);
        return NULL;
    }
    const rtcosim_native_variable *v = &n->model->variables[i];
    if (v->type != type) {
        rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: variable '%s' is %s, not %s", label(n),
                          v->name, rtcosim_type_name(v->type), rtcosim_type_name(type));
        return NULL;
    }
    *index = i;
    return v;
}

/* Any type, each value reference checked; the error names the variable. Out
 * of line, so that the Float64 fast paths below stay lean. */
static __attribute__((noinline)) rtcosim_status get_checked(native_impl *n, rtcosim_type type,
                                                            const uint32_t *vrs, size_t count,
                                                            void *values, rtcosim_error *err)
{
    size_t size = rtcosim_type_size(type);
    for (size_t i = 0; i < count; i++) {
        int32_t k;
        const rtcosim_native_variable *v = lookup(n, vrs[i], type, &k, err);
        if (!v)
            return err ? err->status : RTCOSIM_EINVAL;
        memcpy((unsigned char *)values + i * size, n->data + v->offset, size);
    }
    return RTCOSIM_OK;
}

static rtcosim_status native_get(void *self, rtcosim_type type, const uint32_t *vrs, size_t count,
                                 void *values, rtcosim_error *err)
{
    native_impl *n = self;
    if (n->outputs_dirty)
        compute_outputs(n);
    if (type == RTCOSIM_TYPE_FLOAT64) {
        /* The common case, kept to a tight loop. */
        double *out = values;
        for (size_t i = 0; i < count; i++) {
            int32_t k = vrs[i] < n->vr_count ? n->vr_to_var[vrs[i]] : -1;
            if (k < 0 || n->model->variables[k].type != RTCOSIM_TYPE_FLOAT64)
                break;
            out[i] = *(const double *)(n->data + n->model->variables[k].offset);
            if (i + 1 == count)
                return RTCOSIM_OK;
        }
    }
    return get_checked(n, type, vrs, count, values, err);
}

/* Any type, each variable checked for being settable now. */
static __attribute__((noinline)) rtcosim_status set_checked(native_impl *n, rtcosim_type type,
                                                            const uint32_t *vrs, size_t count,
                                                            const void *values, rtcosim_error *err)
{
    size_t size = rtcosim_type_size(type);
    for (size_t i = 0; i < count; i++) {
        int32_t k;
        const rtcosim_native_variable *v = lookup(n, vrs[i], type, &k, err);
        if (!v)
            return err ? err->status : RTCOSIM_EINVAL;
        bool is_input = v->causality == RTCOSIM_CAUSALITY_INPUT;
        bool tunable = v->variability == RTCOSIM_VARIABILITY_TUNABLE;
        bool settable = is_input || ((v->causality == RTCOSIM_CAUSALITY_PARAMETER ||
                                      v->causality == RTCOSIM_CAUSALITY_LOCAL) &&
                                     (!n->initialized || tunable));
        if (!settable || v->variability == RTCOSIM_VARIABILITY_CONSTANT)
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "%s: variable '%s' (%s, %s) cannot be set %s", label(n),
                                     v->name, rtcosim_causality_name(v->causality),
                                     rtcosim_variability_name(v->variability),
                                     n->initialized ? "after initialization" : "");
        const unsigned char *src = (const unsigned char *)values + i * size;
        memcpy(n->data + v->offset, src, size);
        uint32_t slot = n->input_slot_of_var[k];
        if (slot != UINT32_MAX) {
            memcpy(&n->input_base[slot], src, sizeof(double));
            n->input_d1[slot] = n->input_d2[slot] = 0;
        }
    }
    n->outputs_dirty = true;
    return RTCOSIM_OK;
}

static rtcosim_status native_set(void *self, rtcosim_type type, const uint32_t *vrs, size_t count,
                                 const void *values, rtcosim_error *err)
{
    native_impl *n = self;
    n->outputs_dirty = true;
    if (type == RTCOSIM_TYPE_FLOAT64) {
        /* The common case: Float64 inputs, straight into field and polynomial. */
        const double *in = values;
        size_t i = 0;
        for (; i < count; i++) {
            int32_t k = vrs[i] < n->vr_count ? n->vr_to_var[vrs[i]] : -1;
            uint32_t slot = k >= 0 ? n->input_slot_of_var[k] : UINT32_MAX;
            if (slot == UINT32_MAX)
                break;
            *(double *)(n->data + n->model->variables[k].offset) = in[i];
            n->input_base[slot] = in[i];
            n->input_d1[slot] = n->input_d2[slot] = 0;
        }
        if (i == count)
            return RTCOSIM_OK;
    }
    return set_checked(n, type, vrs, count, values, err);
}

static rtcosim_status native_set_input_derivatives(void *self, const uint32_t *vrs, size_t count,
                                                   int order, const double *values,
                                                   rtcosim_error *err)
{
    native_impl *n = self;
    if (order < 1 || order > n->model->max_input_derivative_order)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: input derivative order %d not accepted",
                                 label(n), order);
    for (size_t i = 0; i < count; i++) {
        int32_t k;
        if (!lookup(n, vrs[i], RTCOSIM_TYPE_FLOAT64, &k, err))
            return err ? err->status : RTCOSIM_EINVAL;
        uint32_t slot = n->input_slot_of_var[k];
        if (slot == UINT32_MAX)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: '%s' is not a Float64 input",
                                     label(n), n->model->variables[k].name);
        (order == 1 ? n->input_d1 : n->input_d2)[slot] = values[i];
    }
    return RTCOSIM_OK;
}

static void write_snapshot(const native_impl *n, native_snapshot *s)
{
    s->magic = STATE_MAGIC;
    s->data_size = (uint32_t)n->model->data_size;
    s->input_count = (uint32_t)n->input_count;
    s->reserved = 0;
    s->time = n->time;
    s->step_start = n->step_start;
    size_t in_bytes = n->input_count * sizeof(double);
    unsigned char *p = s->bytes;
    memcpy(p, n->data, n->model->data_size);
    p += n->model->data_size;
    if (in_bytes) {
        memcpy(p, n->input_base, in_bytes);
        memcpy(p + in_bytes, n->input_d1, in_bytes);
        memcpy(p + 2 * in_bytes, n->input_d2, in_bytes);
    }
}

static rtcosim_status native_get_state(void *self, rtcosim_state *state, rtcosim_error *err)
{
    native_impl *n = self;
    if (!*state) {
        *state = malloc(snapshot_size(n));
        if (!*state)
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory for a state", label(n));
    }
    write_snapshot(n, *state);
    return RTCOSIM_OK;
}

static bool snapshot_fits(const native_impl *n, const native_snapshot *s)
{
    return s->magic == STATE_MAGIC && s->data_size == n->model->data_size &&
           s->input_count == n->input_count;
}

static rtcosim_status native_set_state(void *self, rtcosim_state state, rtcosim_error *err)
{
    native_impl *n = self;
    const native_snapshot *s = state;
    if (!s || !snapshot_fits(n, s))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: state snapshot belongs to another model",
                                 label(n));
    size_t in_bytes = n->input_count * sizeof(double);
    const unsigned char *p = s->bytes;
    memcpy(n->data, p, n->model->data_size);
    p += n->model->data_size;
    if (in_bytes) {
        memcpy(n->input_base, p, in_bytes);
        memcpy(n->input_d1, p + in_bytes, in_bytes);
        memcpy(n->input_d2, p + 2 * in_bytes, in_bytes);
    }
    n->time = s->time;
    n->step_start = s->step_start;
    n->outputs_dirty = true;
    return RTCOSIM_OK;
}

static void native_free_state(void *self, rtcosim_state state)
{
    (void)self;
    free(state);
}

static rtcosim_status native_serialized_size(void *self, rtcosim_state state, size_t *size,
                                             rtcosim_error *err)
{
    (void)state, (void)err;
    *size = snapshot_size(self);
    return RTCOSIM_OK;
}

static rtcosim_status native_serialize(void *self, rtcosim_state state, uint8_t *buffer,
                                       size_t size, rtcosim_error *err)
{
    native_impl *n = self;
    if (size < snapshot_size(n))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: buffer of %zu bytes too small for state",
                                 label(n), size);
    if (!state || !snapshot_fits(n, state))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: state snapshot belongs to another model",
                                 label(n));
    memcpy(buffer, state, snapshot_size(n));
    return RTCOSIM_OK;
}

static rtcosim_status native_deserialize(void *self, const uint8_t *buffer, size_t size,
                                         rtcosim_state *state, rtcosim_error *err)
{
    native_impl *n = self;
    native_snapshot header;
    if (size != snapshot_size(n))
        return rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                 "%s: serialized state has %zu bytes, expected %zu", label(n),
                                 size, snapshot_size(n));
    memcpy(&header, buffer, sizeof header);
    if (!snapshot_fits(n, &header))
        return rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                 "%s: serialized state belongs to another model", label(n));
    /* A snapshot of this model given: overwrite it in place (same size by
     * snapshot_fits), so that moving states every period never allocates. */
    native_snapshot *s = *state && snapshot_fits(n, *state) ? *state : malloc(size);
    if (!s)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory for a state", label(n));
    memcpy(s, buffer, size);
    *state = s;
    return RTCOSIM_OK;
}

static void native_destroy(void *self)
{
    native_impl *n = self;
    free(n->data);
    free(n->vars);
    free(n->vr_to_var);
    free(n->input_vars);
    free(n->input_base);
    free(n->input_d1);
    free(n->input_d2);
    free(n->input_slot_of_var);
    free(n->deps);
    free(n->work);
    free(n);
}

static const rtcosim_component_ops native_ops = {
    .kind = "native",
    .instantiate = native_instantiate,
    .setup = native_setup,
    .enter_init = native_enter_init,
    .exit_init = native_exit_init,
    .do_step = native_do_step,
    .get = native_get,
    .set = native_set,
    .set_input_derivatives = native_set_input_derivatives,
    .get_state = native_get_state,
    .set_state = native_set_state,
    .free_state = native_free_state,
    .serialized_state_size = native_serialized_size,
    .serialize_state = native_serialize,
    .deserialize_state = native_deserialize,
    .destroy = native_destroy,
};

/* ---- creation: check the table, build the component's tables ---- */

static int32_t find_by_name(const rtcosim_native_model *m, const char *name, size_t len)
{
    for (size_t i = 0; i < m->variable_count; i++)
        if (strlen(m->variables[i].name) == len && strncmp(m->variables[i].name, name, len) == 0)
            return (int32_t)i;
    return -1;
}

static rtcosim_status check_model(const rtcosim_native_model *m, rtcosim_error *err)
{
    const char *name = m->name ? m->name : "?";
    if (!m->name || !m->variables || m->data_size == 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "native model '%s': name, variables and data_size are required", name);
    if (m->integrator == RTCOSIM_NATIVE_OWN_STEP && !m->step)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "native model '%s': own-step integrator without a step callback", name);
    if (m->integrator != RTCOSIM_NATIVE_OWN_STEP &&
        (!m->derivatives || m->state_count == 0 ||
         m->states_offset + m->state_count * sizeof(double) > m->data_size))
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "native model '%s': built-in integrator needs derivatives and "
                                 "states inside the data struct", name);
    if (m->max_input_derivative_order < 0 || m->max_input_derivative_order > 2)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "native model '%s': input derivative order must be 0..2", name);
    for (size_t i = 0; i < m->variable_count; i++) {
        const rtcosim_native_variable *v = &m->variables[i];
        if (!v->name || !*v->name)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "native model '%s': variable %zu has no name",
                                     name, i);
        if (!native_type_supported(v->type) ||
            v->offset + rtcosim_type_size(v->type) > m->data_size)
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "native model '%s': variable '%s': unsupported type or offset "
                                     "outside the data struct", name, v->name);
        if (v->value_reference > MAX_VALUE_REFERENCE)
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "native model '%s': variable '%s': value reference above %u",
                                     name, v->name, MAX_VALUE_REFERENCE);
        for (size_t j = 0; j < i; j++)
            if (m->variables[j].value_reference == v->value_reference)
                return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                         "native model '%s': variables '%s' and '%s' share value "
                                         "reference %u", name, m->variables[j].name, v->name,
                                         (unsigned)v->value_reference);
        if (v->depends_on && v->causality != RTCOSIM_CAUSALITY_OUTPUT)
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "native model '%s': '%s' declares dependencies but is not an output",
                                     name, v->name);
    }
    return RTCOSIM_OK;
}

/* Parse every output's depends_on list into (output, input) index pairs. */
static rtcosim_status build_dependencies(native_impl *n, rtcosim_error *err)
{
    const rtcosim_native_model *m = n->model;
    size_t cap = 0;
    for (size_t i = 0; i < m->variable_count; i++)
        if (m->variables[i].depends_on)
            for (const char *p = m->variables[i].depends_on; *p; p++)
                cap += *p == ',';
    for (size_t i = 0; i < m->variable_count; i++)
        cap += m->variables[i].depends_on != NULL;
    n->deps = calloc(cap ? cap : 1, sizeof *n->deps);
    if (!n->deps)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    for (size_t i = 0; i < m->variable_count; i++) {
        const char *p = m->variables[i].depends_on;
        while (p && *p) {
            while (*p == ' ' || *p == ',')
                p++;
            size_t len = strcspn(p, ", ");
            if (len == 0)
                break;
            int32_t k = find_by_name(m, p, len);
            if (k < 0 || m->variables[k].causality != RTCOSIM_CAUSALITY_INPUT)
                return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                         "native model '%s': output '%s' depends on '%.*s', which "
                                         "is not an input", m->name, m->variables[i].name,
                                         (int)len, p);
            n->deps[n->dep_count][0] = i;
            n->deps[n->dep_count][1] = (size_t)k;
            n->dep_count++;
            p += len;
        }
    }
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_native_create_model(const rtcosim_native_model *m, rtcosim_component **out,
                                           rtcosim_error *err)
{
    *out = NULL;
    if (!m)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "native model descriptor is NULL");
    rtcosim_status st = check_model(m, err);
    if (st != RTCOSIM_OK)
        return st;
    native_impl *n = calloc(1, sizeof *n);
    if (!n)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    n->model = m;
    n->ctx.impl = n;
    size_t nv = m->variable_count;
    uint32_t max_vr = 0;
    for (size_t i = 0; i < nv; i++) {
        if (m->variables[i].value_reference > max_vr)
            max_vr = m->variables[i].value_reference;
        if (m->variables[i].causality == RTCOSIM_CAUSALITY_INPUT &&
            m->variables[i].type == RTCOSIM_TYPE_FLOAT64)
            n->input_count++;
    }
    n->vr_count = (size_t)max_vr + 1;
    size_t nin = n->input_count ? n->input_count : 1;
    n->data = calloc(1, m->data_size);
    n->vars = calloc(nv ? nv : 1, sizeof *n->vars);
    n->vr_to_var = malloc(n->vr_count * sizeof *n->vr_to_var);
    n->input_vars = calloc(nin, sizeof *n->input_vars);
    n->input_base = calloc(nin, sizeof(double));
    n->input_d1 = calloc(nin, sizeof(double));
    n->input_d2 = calloc(nin, sizeof(double));
    n->input_slot_of_var = malloc((nv ? nv : 1) * sizeof *n->input_slot_of_var);
    n->work = calloc(6 * (m->state_count ? m->state_count : 1), sizeof(double));
    if (!n->data || !n->vars || !n->vr_to_var || !n->input_vars || !n->input_base ||
        !n->input_d1 || !n->input_d2 || !n->input_slot_of_var || !n->work) {
        native_destroy(n);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "out of memory");
    }
    st = build_dependencies(n, err);
    if (st != RTCOSIM_OK) {
        native_destroy(n);
        return st;
    }
    for (size_t i = 0; i < n->vr_count; i++)
        n->vr_to_var[i] = -1;
    size_t slot = 0;
    for (size_t i = 0; i < nv; i++) {
        const rtcosim_native_variable *v = &m->variables[i];
        n->vr_to_var[v->value_reference] = (int32_t)i;
        store_double(v->type, v->start, n->data + v->offset);
        n->input_slot_of_var[i] = UINT32_MAX;
        if (v->causality == RTCOSIM_CAUSALITY_INPUT && v->type == RTCOSIM_TYPE_FLOAT64) {
            n->input_vars[slot] = i;
            n->input_base[slot] = v->start;
            n->input_slot_of_var[i] = (uint32_t)slot++;
        }
        rtcosim_variable *cv = &n->vars[i];
        cv->name = v->name;
        cv->description = v->description;
        cv->unit = v->unit;
        cv->value_reference = v->value_reference;
        cv->type = v->type;
        cv->causality = v->causality;
        cv->variability = v->variability;
        bool calculated = v->causality == RTCOSIM_CAUSALITY_OUTPUT ||
                          v->causality == RTCOSIM_CAUSALITY_CALCULATED_PARAMETER;
        cv->initial = calculated ? RTCOSIM_INITIAL_CALCULATED : RTCOSIM_INITIAL_EXACT;
        cv->has_start = !calculated;
        cv->start = start_value(v->type, v->start);
        cv->derivative_of = -1;
    }
    n->outputs_dirty = true;
    rtcosim_component_desc desc = {
        .model_name = m->name,
        .variables = n->vars,
        .variable_count = nv,
        .capabilities = {
            .can_handle_variable_step = m->can_handle_variable_step,
            .can_get_set_state = true,
            .can_serialize_state = true,
            .max_input_derivative_order = m->max_input_derivative_order,
        },
    };
    return rtcosim_component_create(&native_ops, n, &desc, out, err);
}

bool rtcosim_native_is_native(const rtcosim_component *c)
{
    return c && rtcosim_component_kind(c) == native_ops.kind;
}

void *rtcosim_native_data(rtcosim_component *c)
{
    return rtcosim_native_is_native(c) ? ((native_impl *)rtcosim_component_impl(c))->data : NULL;
}

bool rtcosim_native_depends(const rtcosim_component *c, size_t output_index, size_t input_index)
{
    if (!rtcosim_native_is_native(c))
        return true;
    const native_impl *n = rtcosim_component_impl(c);
    for (size_t i = 0; i < n->dep_count; i++)
        if (n->deps[i][0] == output_index && n->deps[i][1] == input_index)
            return true;
    return false;
}
