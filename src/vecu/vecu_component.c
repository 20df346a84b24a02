/* The virtual ECU as a co-simulation component (rtcosim_component), so that
 * firmware can sit in an SSP system under the master: ADC inputs and PWM /
 * DOUT outputs as variables, the raster jobs of each step run on a
 * non-preemptive core with outputs at job end, whole-core snapshots. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtcosim/native.h"
#include "vecu_internal.h"

#define MAX_IO 8

/* Everything of the wrapper that changes during a run (part of snapshots). */
typedef struct comp_run {
    rtcosim_time_ns next_release[RTCOSIM_VECU_RASTERS_MAX];
    bool pending[RTCOSIM_VECU_RASTERS_MAX];
    rtcosim_time_ns busy_until;
    bool out_pending;
    rtcosim_time_ns out_at;
    double out_pwm[MAX_IO], out_dout;
    double pwm[MAX_IO], dout, load; /* visible outputs */
    double adc[MAX_IO];             /* inputs */
    uint64_t overruns;
} comp_run;

typedef struct comp {
    rtcosim_vecu_component_config config;
    char *name, *firmware, *instance;
    char *raster_names[RTCOSIM_VECU_RASTERS_MAX];
    char default_firmware[1024]; /* the firmware variable's start value */
    rtcosim_vecu *core;
    rtcosim_time_ns start;
    comp_run run;
    rtcosim_variable vars[2 * MAX_IO + 3];
    char var_names[2 * MAX_IO][24];
    size_t var_count;
} comp;

static rtcosim_time_ns cycles_ns(const comp *c, uint64_t cycles)
{
    uint64_t hz = c->core->clock_hz; /* rounded up, as the ECU LP */
    return (rtcosim_time_ns)((cycles * (uint64_t)RTCOSIM_NS_PER_S + hz - 1) / hz);
}

static rtcosim_status c_instantiate(void *self, const char *instance, rtcosim_error *err)
{
    comp *c = self;
    char *copy = strdup(instance && *instance ? instance : c->name);
    if (!copy)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "vecu: out of memory");
    free(c->instance);
    c->instance = copy;
    return RTCOSIM_OK;
}

static rtcosim_status c_setup(void *self, double tol, rtcosim_time_ns start, rtcosim_time_ns stop,
                              rtcosim_error *err)
{
    (void)tol, (void)stop, (void)err;
    ((comp *)self)->start = start;
    return RTCOSIM_OK;
}

/* The firmware parameter is final here: load it and run its reset handler. */
static rtcosim_status c_enter_init(void *self, rtcosim_error *err)
{
    comp *c = self;
    if (c->core)
        return RTCOSIM_OK;
    rtcosim_vecu_config vc = c->config.core;
    vc.name = c->instance ? c->instance : c->name;
    vc.firmware = c->firmware;
    rtcosim_status st = rtcosim_vecu_create(&vc, &c->core, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_vecu_reset(c->core, vecu_cycle_at(100 * RTCOSIM_NS_PER_MS, c->core->clock_hz),
                                err);
    return st;
}

static rtcosim_status c_exit_init(void *self, rtcosim_error *err)
{
    (void)err;
    comp *c = self;
    double adc[MAX_IO];
    memcpy(adc, c->run.adc, sizeof adc);
    memset(&c->run, 0, sizeof c->run);
    memcpy(c->run.adc, adc, sizeof adc);
    for (size_t k = 0; k < c->config.raster_count; k++)
        c->run.next_release[k] = c->start + c->config.rasters[k].offset;
    c->run.busy_until = c->start;
    return RTCOSIM_OK;
}

static void apply_outputs(comp *c, rtcosim_time_ns until)
{
    comp_run *r = &c->run;
    if (r->out_pending && r->out_at <= until) {
        memcpy(r->pwm, r->out_pwm, sizeof r->pwm);
        r->dout = r->out_dout;
        r->out_pending = false;
    }
}

static rtcosim_status c_do_step(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                rtcosim_step_result *result, rtcosim_error *err)
{
    comp *c = self;
    comp_run *r = &c->run;
    const rtcosim_vecu_component_config *cf = &c->config;
    rtcosim_time_ns end = t + h, busy = 0;
    for (;;) {
        apply_outputs(c, r->busy_until);
        /* the next instant the core can start a job */
        rtcosim_time_ns s = RTCOSIM_TIME_MAX;
        for (size_t k = 0; k < cf->raster_count; k++) {
            rtcosim_time_ns ready = r->pending[k] ? r->busy_until : r->next_release[k];
            if (ready < s)
                s = ready;
        }
        if (s < r->busy_until)
            s = r->busy_until;
        for (size_t k = 0; k < cf->raster_count; k++)
            while (r->next_release[k] <= s && r->next_release[k] < end) {
                if (r->pending[k])
                    r->overruns++; /* OSEK: one activation at a time */
                r->pending[k] = true;
                r->next_release[k] += cf->rasters[k].period;
            }
        if (s >= end)
            break;
        long best = -1;
        for (size_t k = 0; k < cf->raster_count; k++)
            if (r->pending[k] && (best < 0 || cf->rasters[k].priority < cf->rasters[best].priority))
                best = (long)k;
        if (best < 0)
            break;
        r->pending[best] = false;
        for (size_t i = 0; i < cf->adc_count; i++) {
            double x = nearbyint(r->adc[i]);
            rtcosim_vecu_adc_set(c->core, (unsigned)i,
                                 (uint32_t)(x > 0 ? (x < 4095.0 ? x : 4095.0) : 0));
        }
        const rtcosim_vecu_raster *ra = &cf->rasters[best];
        uint64_t cycles = 0;
        rtcosim_status st = rtcosim_vecu_run_exception(
            c->core, 16 + ra->irq, vecu_cycle_at(s, c->core->clock_hz),
            (uint64_t)((double)vecu_cycle_at(ra->period, c->core->clock_hz) / c->core->cpi), &cycles,
            err);
        if (st != RTCOSIM_OK)
            return st;
        cycles += cf->overhead_cycles;
        if (cycles < ra->min_cycles + cf->overhead_cycles)
            cycles = ra->min_cycles + cf->overhead_cycles;
        rtcosim_time_ns job_end = s + cycles_ns(c, cycles);
        busy += (job_end < end ? job_end : end) - s;
        r->busy_until = job_end;
        r->out_pending = true;
        r->out_at = job_end;
        for (size_t i = 0; i < cf->pwm_count; i++)
            r->out_pwm[i] = (double)rtcosim_vecu_pwm(c->core, (unsigned)i) / VECU_PWM_FULL;
        r->out_dout = (double)rtcosim_vecu_dout(c->core);
    }
    apply_outputs(c, end);
    r->load = h > 0 ? (double)busy / (double)h : 0.0;
    if (result)
        *result = (rtcosim_step_result){.last_successful_time = end};
    return RTCOSIM_OK;
}

static double *slot(comp *c, uint32_t vr, bool input)
{
    if (input)
        return vr < c->config.adc_count ? &c->run.adc[vr] : NULL;
    if (vr >= RTCOSIM_VECU_VR_PWM && vr < RTCOSIM_VECU_VR_PWM + c->config.pwm_count)
        return &c->run.pwm[vr - RTCOSIM_VECU_VR_PWM];
    if (vr == RTCOSIM_VECU_VR_DOUT)
        return &c->run.dout;
    if (vr == RTCOSIM_VECU_VR_LOAD)
        return &c->run.load;
    return vr < c->config.adc_count ? &c->run.adc[vr] : NULL;
}

static rtcosim_status c_get(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                            void *values, rtcosim_error *err)
{
    comp *c = self;
    if (type == RTCOSIM_TYPE_STRING && n == 1 && vrs[0] == RTCOSIM_VECU_VR_FIRMWARE) {
        ((const char **)values)[0] = c->firmware;
        return RTCOSIM_OK;
    }
    if (type != RTCOSIM_TYPE_FLOAT64)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "vecu '%s': only FLOAT64 variables and"
                                 " the firmware string", c->name);
    for (size_t i = 0; i < n; i++) {
        double *p = slot(c, vrs[i], false);
        if (!p)
            return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "vecu '%s': no variable with value"
                                     " reference %" PRIu32, c->name, vrs[i]);
        ((double *)values)[i] = *p;
    }
    return RTCOSIM_OK;
}

static rtcosim_status c_set(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                            const void *values, rtcosim_error *err)
{
    comp *c = self;
    if (type == RTCOSIM_TYPE_STRING && n == 1 && vrs[0] == RTCOSIM_VECU_VR_FIRMWARE) {
        const char *path = ((const char *const *)values)[0];
        if (c->core)
            return rtcosim_error_set(err, RTCOSIM_ESTATE, "vecu '%s': the firmware is loaded;"
                                     " set it before initialization", c->name);
        char *copy = path ? strdup(path) : NULL;
        if (!copy)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "vecu '%s': no firmware path", c->name);
        free(c->firmware);
        c->firmware = copy;
        return RTCOSIM_OK;
    }
    for (size_t i = 0; i < n; i++) {
        double *p = type == RTCOSIM_TYPE_FLOAT64 ? slot(c, vrs[i], true) : NULL;
        if (!p)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "vecu '%s': value reference %" PRIu32
                                     " is not a FLOAT64 input", c->name, vrs[i]);
        *p = ((const double *)values)[i];
    }
    return RTCOSIM_OK;
}

/* A snapshot: the run, then the whole core. */
static size_t snapshot_size(const comp *c)
{
    return sizeof(comp_run) + rtcosim_vecu_state_size(c->core);
}

static rtcosim_status no_core(const comp *c, rtcosim_error *err)
{
    return rtcosim_error_set(err, RTCOSIM_ESTATE, "vecu '%s': no state before initialization",
                             c->name);
}

static rtcosim_status c_get_state(void *self, rtcosim_state *state, rtcosim_error *err)
{
    comp *c = self;
    if (!c->core)
        return no_core(c, err);
    if (!*state && !(*state = malloc(snapshot_size(c))))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "vecu: out of memory");
    memcpy(*state, &c->run, sizeof c->run);
    return rtcosim_vecu_save_state(c->core, (unsigned char *)*state + sizeof c->run,
                                   rtcosim_vecu_state_size(c->core), err);
}

static rtcosim_status c_set_state(void *self, rtcosim_state state, rtcosim_error *err)
{
    comp *c = self;
    if (!c->core)
        return no_core(c, err);
    memcpy(&c->run, state, sizeof c->run);
    return rtcosim_vecu_restore_state(c->core, (const unsigned char *)state + sizeof c->run,
                                      rtcosim_vecu_state_size(c->core), err);
}

static void c_free_state(void *self, rtcosim_state state)
{
    (void)self;
    free(state);
}

static rtcosim_status c_serialized_size(void *self, rtcosim_state state, size_t *size,
                                        rtcosim_error *err)
{
    (void)state;
    if (!((comp *)self)->core)
        return no_core(self, err);
    *size = snapshot_size(self);
    return RTCOSIM_OK;
}

static rtcosim_status c_serialize(void *self, rtcosim_state state, uint8_t *buffer, size_t size,
                                  rtcosim_error *err)
{
    comp *c = self;
    if (size < snapshot_size(c))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "vecu '%s': state needs %zu bytes",
                                 c->name, snapshot_size(c));
    memcpy(buffer, state, snapshot_size(c));
    return RTCOSIM_OK;
}

static rtcosim_status c_deserialize(void *self, const uint8_t *buffer, size_t size,
                                    rtcosim_state *state, rtcosim_error *err)
{
    comp *c = self;
    if (!c->core)
        return no_core(c, err);
    if (size != snapshot_size(c))
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "vecu '%s': a state of %zu bytes does not"
                                 " fit (%zu expected)", c->name, size, snapshot_size(c));
    if (!*state && !(*state = malloc(size)))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "vecu: out of memory");
    memcpy(*state, buffer, size);
    return RTCOSIM_OK;
}

static rtcosim_status c_terminate(void *self, rtcosim_error *err)
{
    (void)self, (void)err;
    return RTCOSIM_OK;
}

static void c_destroy(void *self)
{
    comp *c = self;
    rtcosim_vecu_free(c->core);
    for (size_t k = 0; k < RTCOSIM_VECU_RASTERS_MAX; k++)
        free(c->raster_names[k]);
    free(c->name);
    free(c->firmware);
    free(c->instance);
    free(c);
}

static const rtcosim_component_ops comp_ops = {
    .kind = "vecu", .instantiate = c_instantiate, .setup = c_setup,
    .enter_init = c_enter_init, .exit_init = c_exit_init, .do_step = c_do_step,
    .get = c_get, .set = c_set, .get_state = c_get_state, .set_state = c_set_state,
    .free_state = c_free_state, .serialized_state_size = c_serialized_size,
    .serialize_state = c_serialize, .deserialize_state = c_deserialize,
    .terminate = c_terminate, .destroy = c_destroy,
};

static void add_var(comp *c, const char *name, uint32_t vr, rtcosim_causality causality,
                    rtcosim_variability variability)
{
    rtcosim_variable *v = &c->vars[c->var_count++];
    *v = (rtcosim_variable){.name = name, .value_reference = vr, .type = RTCOSIM_TYPE_FLOAT64,
                            .causality = causality, .variability = variability,
                            .derivative_of = -1};
    if (causality == RTCOSIM_CAUSALITY_INPUT) {
        v->has_start = true;
        v->start.f64 = 0.0;
    }
}

rtcosim_status rtcosim_vecu_component_create(const rtcosim_vecu_component_config *config,
                                             rtcosim_component **out, rtcosim_error *err)
{
    *out = NULL;
    const char *name = config->core.name && *config->core.name ? config->core.name : "vecu";
    if (!config->core.firmware || strlen(config->core.firmware) >= 1024 ||
        config->adc_count > MAX_IO || config->pwm_count > MAX_IO ||
        config->raster_count == 0 || config->raster_count > RTCOSIM_VECU_RASTERS_MAX)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "vecu '%s': a firmware, 1..%d rasters and"
                                 " at most %d ADC and PWM channels are required", name,
                                 RTCOSIM_VECU_RASTERS_MAX, MAX_IO);
    for (size_t k = 0; k < config->raster_count; k++)
        if (config->rasters[k].period <= 0 || config->rasters[k].offset < 0 ||
            config->rasters[k].irq > VECU_IRQ_TIMER3)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "vecu '%s': raster %zu needs a positive"
                                     " period, an offset >= 0 and a timer IRQ 0..3", name, k);
    comp *c = calloc(1, sizeof *c);
    if (!c)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "vecu: out of memory");
    c->config = *config;
    c->name = strdup(name);
    c->firmware = strdup(config->core.firmware);
    snprintf(c->default_firmware, sizeof c->default_firmware, "%s", config->core.firmware);
    bool ok = c->name && c->firmware;
    for (size_t k = 0; k < config->raster_count && ok; k++) {
        c->raster_names[k] = strdup(config->rasters[k].name ? config->rasters[k].name : "raster");
        c->config.rasters[k].name = c->raster_names[k];
        ok = c->raster_names[k] != NULL;
    }
    c->config.core.name = c->name;
    c->config.core.firmware = c->firmware;
    if (!ok) {
        c_destroy(c);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "vecu: out of memory");
    }
    for (size_t i = 0; i < config->adc_count; i++) {
        snprintf(c->var_names[i], sizeof c->var_names[i], "adc%zu", i);
        add_var(c, c->var_names[i], RTCOSIM_VECU_VR_ADC + (uint32_t)i, RTCOSIM_CAUSALITY_INPUT,
                RTCOSIM_VARIABILITY_CONTINUOUS);
    }
    for (size_t i = 0; i < config->pwm_count; i++) {
        snprintf(c->var_names[MAX_IO + i], sizeof c->var_names[0], "pwm%zu", i);
        add_var(c, c->var_names[MAX_IO + i], RTCOSIM_VECU_VR_PWM + (uint32_t)i,
                RTCOSIM_CAUSALITY_OUTPUT, RTCOSIM_VARIABILITY_DISCRETE);
    }
    add_var(c, "dout", RTCOSIM_VECU_VR_DOUT, RTCOSIM_CAUSALITY_OUTPUT,
            RTCOSIM_VARIABILITY_DISCRETE);
    add_var(c, "load", RTCOSIM_VECU_VR_LOAD, RTCOSIM_CAUSALITY_OUTPUT,
            RTCOSIM_VARIABILITY_DISCRETE);
    rtcosim_variable *fw = &c->vars[c->var_count++];
    *fw = (rtcosim_variable){.name = "firmware", .value_reference = RTCOSIM_VECU_VR_FIRMWARE,
                             .type = RTCOSIM_TYPE_STRING, .causality = RTCOSIM_CAUSALITY_PARAMETER,
                             .variability = RTCOSIM_VARIABILITY_FIXED,
                             .initial = RTCOSIM_INITIAL_EXACT, .has_start = true,
                             .derivative_of = -1};
    fw->start.s = c->default_firmware;
    rtcosim_component_desc d = {
        .model_name = c->name, .variables = c->vars, .variable_count = c->var_count,
        .capabilities = {.can_handle_variable_step = true, .can_get_set_state = true,
                         .can_serialize_state = true}};
    return rtcosim_component_create(&comp_ops, c, &d, out, err);
}

/* ---- registration: the registry keeps the copied configuration for the
 * life of the process, as it keeps every factory ---- */
typedef struct registered {
    rtcosim_vecu_component_config config;
    char strings[RTCOSIM_VECU_RASTERS_MAX + 2][256];
} registered;

static rtcosim_status registered_factory(void *context, rtcosim_component **out,
                                         rtcosim_error *err)
{
    return rtcosim_vecu_component_create(&((registered *)context)->config, out, err);
}

rtcosim_status rtcosim_vecu_component_register(const char *name,
                                               const rtcosim_vecu_component_config *config,
                                               rtcosim_error *err)
{
    if (!name || !config->core.firmware || config->raster_count > RTCOSIM_VECU_RASTERS_MAX ||
        strlen(config->core.firmware) >= 256)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "vecu: registration needs a name, a"
                                 " firmware path under 256 bytes and at most %d rasters",
                                 RTCOSIM_VECU_RASTERS_MAX);
    registered *r = calloc(1, sizeof *r);
    if (!r)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "vecu: out of memory");
    r->config = *config;
    snprintf(r->strings[0], sizeof r->strings[0], "%s", config->core.name ? config->core.name
                                                                          : name);
    snprintf(r->strings[1], sizeof r->strings[1], "%s", config->core.firmware);
    r->config.core.name = r->strings[0];
    r->config.core.firmware = r->strings[1];
    for (size_t k = 0; k < config->raster_count; k++) {
        snprintf(r->strings[2 + k], sizeof r->strings[0], "%s",
                 config->rasters[k].name ? config->rasters[k].name : "raster");
        r->config.rasters[k].name = r->strings[2 + k];
    }
    rtcosim_status st = rtcosim_native_register(name, registered_factory, r, err);
    if (st != RTCOSIM_OK)
        free(r);
    return st;
}
