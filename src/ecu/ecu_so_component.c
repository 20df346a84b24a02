/* ECU application code compiled for the host as a shared object (contract:
 * rtcosim/ecu_so.h) as a co-simulation component, so that it sits in a
 * system of `rtcosim run` beside its plant: sensors are FLOAT64 inputs,
 * actuators FLOAT64 outputs, periodic tasks run on one non-preemptive core
 * inside each step, outputs appear at a job's end. Its state is captured as
 * the ECU LP captures it (ecu_so.c): the object's writable data, copied into
 * every snapshot with the component's own bookkeeping, so that the
 * speculative master rolls it back like an FMU with canGetAndSetFMUState. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ecu_internal.h"
#include "rtcosim/ecu_so.h"

#define VR_ACTUATOR RTCOSIM_ECU_IO_MAX /* actuator i: VR_ACTUATOR + i; sensor i: i */

typedef void (*so_task_fn)(const rtcosim_ecu_so_io *io);

/* Everything of the wrapper that changes during a run (part of snapshots,
 * before the object's data). */
typedef struct so_run {
    rtcosim_time_ns next_release[RTCOSIM_ECU_SO_TASKS_MAX];
    bool pending[RTCOSIM_ECU_SO_TASKS_MAX];
    rtcosim_time_ns busy_until;
    bool out_pending;
    rtcosim_time_ns out_at;
    double out_actuators[RTCOSIM_ECU_IO_MAX];
    double actuators[RTCOSIM_ECU_IO_MAX]; /* visible outputs */
    double sensors[RTCOSIM_ECU_IO_MAX];   /* inputs */
    uint64_t jobs, overruns;
} so_run;

typedef struct so_comp {
    char *name;
    ecu_so *so;
    rtcosim_ecu_so_task tasks[RTCOSIM_ECU_SO_TASKS_MAX];
    so_task_fn code[RTCOSIM_ECU_SO_TASKS_MAX];
    size_t task_count, sensor_count, actuator_count;
    rtcosim_time_ns start;
    so_run run;
    char *names[2 * RTCOSIM_ECU_IO_MAX];
    rtcosim_variable vars[2 * RTCOSIM_ECU_IO_MAX];
} so_comp;

/* A job's view: what io->context points to. */
typedef struct so_job {
    so_comp *c;
    rtcosim_time_ns now;
} so_job;

static double io_now(const rtcosim_ecu_so_io *io)
{
    return rtcosim_time_to_seconds(((const so_job *)io->context)->now);
}

static double io_sensor(const rtcosim_ecu_so_io *io, unsigned index)
{
    const so_comp *c = ((const so_job *)io->context)->c;
    return index < c->sensor_count ? c->run.sensors[index] : 0.0;
}

static void io_actuate(const rtcosim_ecu_so_io *io, unsigned index, double value)
{
    so_comp *c = ((so_job *)io->context)->c;
    if (index < c->actuator_count)
        c->run.out_actuators[index] = value;
}

/* A system of components has no CAN bus: nothing arrives, nothing is sent. */
static int io_can_read(const rtcosim_ecu_so_io *io, uint32_t id, uint8_t data[8])
{
    (void)io, (void)id, (void)data;
    return -1;
}

static int io_can_send(const rtcosim_ecu_so_io *io, uint32_t id, const uint8_t *data,
                       unsigned dlc)
{
    (void)io, (void)id, (void)data, (void)dlc;
    return -1;
}

static void io_set_cycles(const rtcosim_ecu_so_io *io, uint64_t cycles)
{
    (void)io, (void)cycles; /* the declared execution time stands */
}

static rtcosim_status s_instantiate(void *self, const char *instance, rtcosim_error *err)
{
    (void)self, (void)instance, (void)err;
    return RTCOSIM_OK;
}

/* A run starts from the object's image after loading, then its ecu_init. */
static rtcosim_status s_setup(void *self, double tol, rtcosim_time_ns start, rtcosim_time_ns stop,
                              rtcosim_error *err)
{
    (void)tol, (void)stop, (void)err;
    so_comp *c = self;
    c->start = start;
    double sensors[RTCOSIM_ECU_IO_MAX];
    memcpy(sensors, c->run.sensors, sizeof sensors);
    memset(&c->run, 0, sizeof c->run);
    memcpy(c->run.sensors, sensors, sizeof sensors);
    for (size_t k = 0; k < c->task_count; k++)
        c->run.next_release[k] = start + c->tasks[k].offset;
    c->run.busy_until = start;
    ecu_so_scatter(c->so, c->so->start_image);
    ecu_so_run_init(c->so);
    return RTCOSIM_OK;
}

static rtcosim_status s_nothing(void *self, rtcosim_error *err)
{
    (void)self, (void)err;
    return RTCOSIM_OK;
}

static void apply_outputs(so_run *r, rtcosim_time_ns until)
{
    if (r->out_pending && r->out_at <= until) {
        memcpy(r->actuators, r->out_actuators, sizeof r->actuators);
        r->out_pending = false;
    }
}

/* The jobs released before t + h, in priority order whenever the core is
 * free (OSEK non-preemptive: one activation pending per task, a release
 * while pending is an overrun); each job's code runs at its start with the
 * sensors of this step and its outputs appear `execution` later. */
static rtcosim_status s_do_step(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                rtcosim_step_result *result, rtcosim_error *err)
{
    (void)err;
    so_comp *c = self;
    so_run *r = &c->run;
    rtcosim_time_ns end = t + h;
    for (;;) {
        apply_outputs(r, r->busy_until);
        rtcosim_time_ns s = RTCOSIM_TIME_MAX;
        for (size_t k = 0; k < c->task_count; k++) {
            rtcosim_time_ns ready = r->pending[k] ? r->busy_until : r->next_release[k];
            if (ready < s)
                s = ready;
        }
        if (s < r->busy_until)
            s = r->busy_until;
        for (size_t k = 0; k < c->task_count; k++)
            while (r->next_release[k] <= s && r->next_release[k] < end) {
                if (r->pending[k])
                    r->overruns++;
                r->pending[k] = true;
                r->next_release[k] += c->tasks[k].period;
            }
        if (s >= end)
            break;
        long best = -1;
        for (size_t k = 0; k < c->task_count; k++)
            if (r->pending[k] && (best < 0 || c->tasks[k].priority < c->tasks[best].priority))
                best = (long)k;
        if (best < 0)
            break;
        r->pending[best] = false;
        memcpy(r->out_actuators, r->actuators, sizeof r->actuators);
        so_job job = {.c = c, .now = s};
        const rtcosim_ecu_so_io io = {.version = RTCOSIM_ECU_SO_VERSION, .context = &job,
                                      .now = io_now, .sensor = io_sensor,
                                      .actuate = io_actuate, .can_read = io_can_read,
                                      .can_send = io_can_send, .set_cycles = io_set_cycles};
        c->code[best](&io);
        r->jobs++;
        r->busy_until = s + c->tasks[best].execution;
        r->out_pending = true;
        r->out_at = r->busy_until;
    }
    apply_outputs(r, end);
    if (result)
        *result = (rtcosim_step_result){.last_successful_time = end};
    return RTCOSIM_OK;
}

static double *slot(so_comp *c, uint32_t vr, bool input)
{
    if (vr < c->sensor_count)
        return &c->run.sensors[vr];
    if (!input && vr >= VR_ACTUATOR && vr < VR_ACTUATOR + c->actuator_count)
        return &c->run.actuators[vr - VR_ACTUATOR];
    return NULL;
}

static rtcosim_status s_get(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                            void *values, rtcosim_error *err)
{
    so_comp *c = self;
    for (size_t i = 0; i < n; i++) {
        double *p = type == RTCOSIM_TYPE_FLOAT64 ? slot(c, vrs[i], false) : NULL;
        if (!p)
            return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "ecu '%s': no %s variable with"
                                     " value reference %" PRIu32, c->name,
                                     rtcosim_type_name(type), vrs[i]);
        ((double *)values)[i] = *p;
    }
    return RTCOSIM_OK;
}

static rtcosim_status s_set(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                            const void *values, rtcosim_error *err)
{
    so_comp *c = self;
    for (size_t i = 0; i < n; i++) {
        double *p = type == RTCOSIM_TYPE_FLOAT64 ? slot(c, vrs[i], true) : NULL;
        if (!p)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "ecu '%s': value reference %" PRIu32
                                     " is not a sensor (FLOAT64 input)", c->name, vrs[i]);
        *p = ((const double *)values)[i];
    }
    return RTCOSIM_OK;
}

/* A snapshot: the run, the object's load address, its writable data. */
#define DATA_AT (sizeof(so_run) + sizeof(uint64_t))

static size_t snapshot_size(const so_comp *c) { return DATA_AT + c->so->size; }

static rtcosim_status s_get_state(void *self, rtcosim_state *state, rtcosim_error *err)
{
    so_comp *c = self;
    if (!*state && !(*state = malloc(snapshot_size(c))))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "ecu '%s': out of memory", c->name);
    uint64_t base = c->so->base;
    memcpy(*state, &c->run, sizeof c->run);
    memcpy((unsigned char *)*state + sizeof c->run, &base, sizeof base);
    ecu_so_gather(c->so, (unsigned char *)*state + DATA_AT);
    return RTCOSIM_OK;
}

static rtcosim_status s_set_state(void *self, rtcosim_state state, rtcosim_error *err)
{
    (void)err;
    so_comp *c = self;
    memcpy(&c->run, state, sizeof c->run);
    ecu_so_scatter(c->so, (const unsigned char *)state + DATA_AT);
    return RTCOSIM_OK;
}

static void s_free_state(void *self, rtcosim_state state)
{
    (void)self;
    free(state);
}

static rtcosim_status s_serialized_size(void *self, rtcosim_state state, size_t *size,
                                        rtcosim_error *err)
{
    (void)state, (void)err;
    *size = snapshot_size(self);
    return RTCOSIM_OK;
}

static rtcosim_status s_serialize(void *self, rtcosim_state state, uint8_t *buffer, size_t size,
                                  rtcosim_error *err)
{
    so_comp *c = self;
    if (size < snapshot_size(c))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "ecu '%s': its state needs %zu bytes",
                                 c->name, snapshot_size(c));
    memcpy(buffer, state, snapshot_size(c));
    return RTCOSIM_OK;
}

/* A state of another instance (anytime variants move states between their
 * instances, each a load of its own) has the pointers of that load: they are
 * moved to this one (ecu_so_rebase). */
static rtcosim_status s_deserialize(void *self, const uint8_t *buffer, size_t size,
                                    rtcosim_state *state, rtcosim_error *err)
{
    so_comp *c = self;
    if (size != snapshot_size(c))
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "ecu '%s': a state of %zu bytes does not"
                                 " fit (%zu expected)", c->name, size, snapshot_size(c));
    if (!*state && !(*state = malloc(size)))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "ecu '%s': out of memory", c->name);
    memcpy(*state, buffer, size);
    uint64_t from, base = c->so->base;
    memcpy(&from, (unsigned char *)*state + sizeof(so_run), sizeof from);
    ecu_so_rebase(c->so, (unsigned char *)*state + DATA_AT, (uintptr_t)from);
    memcpy((unsigned char *)*state + sizeof(so_run), &base, sizeof base);
    return RTCOSIM_OK;
}

static void s_destroy(void *self)
{
    so_comp *c = self;
    ecu_so_close(c->so);
    for (size_t i = 0; i < 2 * RTCOSIM_ECU_IO_MAX; i++)
        free(c->names[i]);
    free(c->name);
    free(c);
}

static const rtcosim_component_ops so_ops = {
    .kind = "ecu-so", .instantiate = s_instantiate, .setup = s_setup,
    .enter_init = s_nothing, .exit_init = s_nothing, .do_step = s_do_step,
    .get = s_get, .set = s_set, .get_state = s_get_state, .set_state = s_set_state,
    .free_state = s_free_state, .serialized_state_size = s_serialized_size,
    .serialize_state = s_serialize, .deserialize_state = s_deserialize,
    .terminate = s_nothing, .destroy = s_destroy,
};

static rtcosim_status check_config(const rtcosim_ecu_so_component_config *cf, const char *name,
                                   rtcosim_error *err)
{
    if (!cf->shared_object || !*cf->shared_object)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "ecu '%s': no shared object", name);
    if (cf->sensor_count > RTCOSIM_ECU_IO_MAX || cf->actuator_count > RTCOSIM_ECU_IO_MAX)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "ecu '%s': at most %d sensors and %d"
                                 " actuators", name, RTCOSIM_ECU_IO_MAX, RTCOSIM_ECU_IO_MAX);
    if (cf->task_count == 0 || cf->task_count > RTCOSIM_ECU_SO_TASKS_MAX)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "ecu '%s': 1..%d tasks are required", name,
                                 RTCOSIM_ECU_SO_TASKS_MAX);
    for (size_t k = 0; k < cf->task_count; k++) {
        const rtcosim_ecu_so_task *t = &cf->tasks[k];
        if (!t->entry || !*t->entry || t->period <= 0 || t->offset < 0 || t->execution < 0)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "ecu '%s': task %zu needs an entry"
                                     " point, a period > 0, an offset and an execution time"
                                     " >= 0", name, k + 1);
    }
    const char *const *lists[2] = {cf->sensors, cf->actuators};
    size_t counts[2] = {cf->sensor_count, cf->actuator_count};
    for (size_t a = 0; a < 2; a++)
        for (size_t i = 0; i < counts[a]; i++) {
            const char *v = lists[a][i];
            if (!v || !*v)
                return rtcosim_error_set(err, RTCOSIM_EINVAL, "ecu '%s': %s %zu has no name",
                                         name, a ? "actuator" : "sensor", i);
            for (size_t b = 0; b <= a; b++)
                for (size_t j = 0; j < (b == a ? i : counts[b]); j++)
                    if (strcmp(lists[b][j], v) == 0)
                        return rtcosim_error_set(err, RTCOSIM_EINVAL, "ecu '%s': '%s' is named"
                                                 " twice among its sensors and actuators",
                                                 name, v);
        }
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_ecu_so_component_create(const rtcosim_ecu_so_component_config *config,
                                               rtcosim_component **out, rtcosim_error *err)
{
    *out = NULL;
    const char *name = config->name && *config->name ? config->name : "ecu";
    rtcosim_status st = check_config(config, name, err);
    if (st != RTCOSIM_OK)
        return st;
    so_comp *c = calloc(1, sizeof *c);
    if (!c || !(c->name = strdup(name))) {
        free(c);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "ecu: out of memory");
    }
    char owner[160];
    snprintf(owner, sizeof owner, "ecu '%s'", name);
    st = ecu_so_load(config->shared_object, owner, &c->so, err);
    if (st != RTCOSIM_OK) {
        s_destroy(c);
        return rtcosim_error_prefix(err, "ecu '%s': ", name);
    }
    c->task_count = config->task_count;
    for (size_t k = 0; k < c->task_count; k++) {
        c->tasks[k] = config->tasks[k];
        c->tasks[k].entry = NULL; /* not kept: the code pointer is */
        void *code = ecu_so_entry(c->so, config->tasks[k].entry);
        if (!code) {
            st = rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "ecu '%s': %s: no entry point '%s'"
                                   " (an exported function, see rtcosim/ecu_so.h)", name,
                                   config->shared_object, config->tasks[k].entry);
            s_destroy(c);
            return st;
        }
        *(void **)&c->code[k] = code;
    }
    c->sensor_count = config->sensor_count;
    c->actuator_count = config->actuator_count;
    size_t n = 0;
    for (size_t i = 0; i < c->sensor_count + c->actuator_count; i++) {
        bool input = i < c->sensor_count;
        const char *v = input ? config->sensors[i] : config->actuators[i - c->sensor_count];
        if (!(c->names[i] = strdup(v))) {
            s_destroy(c);
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "ecu: out of memory");
        }
        c->vars[n++] = (rtcosim_variable){
            .name = c->names[i],
            .value_reference = input ? (uint32_t)i
                                     : VR_ACTUATOR + (uint32_t)(i - c->sensor_count),
            .type = RTCOSIM_TYPE_FLOAT64,
            .causality = input ? RTCOSIM_CAUSALITY_INPUT : RTCOSIM_CAUSALITY_OUTPUT,
            .variability = input ? RTCOSIM_VARIABILITY_CONTINUOUS : RTCOSIM_VARIABILITY_DISCRETE,
            .initial = input ? RTCOSIM_INITIAL_NONE : RTCOSIM_INITIAL_EXACT,
            .has_start = true, .derivative_of = -1};
    }
    bool capturable = ecu_so_capturable(c->so, NULL);
    rtcosim_component_desc d = {
        .model_name = c->name, .variables = c->vars, .variable_count = n,
        .capabilities = {.can_handle_variable_step = true, .can_get_set_state = capturable,
                         .can_serialize_state = capturable}};
    return rtcosim_component_create(&so_ops, c, &d, out, err); /* destroys c on failure */
}
