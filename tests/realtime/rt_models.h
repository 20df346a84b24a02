/* Tiny native models for the real-time tests: an integrator (the plant), a
 * polynomial source of time (a partner whose output is known exactly at any
 * time) and a timer; plus helpers to bring components to step mode and to
 * wrap them with injected compute times. */
#ifndef RTCOSIM_TESTS_RT_MODELS_H
#define RTCOSIM_TESTS_RT_MODELS_H

#include <stdlib.h>
#include <string.h>

#include "rtcosim/component.h"
#include "rtcosim/realtime.h"

/* --- integrator: x' = u (explicit Euler per step, exact for constant u) --- */
typedef struct integrator {
    double u, x;
    rtcosim_time_ns end_time; /* time reached by the last step */
    uint64_t steps;
} integrator;

static rtcosim_status integrator_step(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                      rtcosim_step_result *r, rtcosim_error *err)
{
    (void)r, (void)err;
    integrator *m = self;
    m->x += m->u * rtcosim_time_to_seconds(h);
    m->end_time = t + h;
    m->steps++;
    return RTCOSIM_OK;
}

static rtcosim_status integrator_get(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                                     void *values, rtcosim_error *err)
{
    (void)type, (void)err;
    integrator *m = self;
    for (size_t i = 0; i < n; i++)
        ((double *)values)[i] = vrs[i] == 0 ? m->u : m->x;
    return RTCOSIM_OK;
}

static rtcosim_status integrator_set(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                                     const void *values, rtcosim_error *err)
{
    (void)type, (void)err;
    integrator *m = self;
    for (size_t i = 0; i < n; i++)
        if (vrs[i] == 0)
            m->u = ((const double *)values)[i];
    return RTCOSIM_OK;
}

static rtcosim_status integrator_get_state(void *self, rtcosim_state *state, rtcosim_error *err)
{
    (void)err;
    if (!*state)
        *state = malloc(sizeof(integrator));
    memcpy(*state, self, sizeof(integrator));
    return RTCOSIM_OK;
}

static rtcosim_status integrator_set_state(void *self, rtcosim_state state, rtcosim_error *err)
{
    (void)err;
    memcpy(self, state, sizeof(integrator));
    return RTCOSIM_OK;
}

static void model_free_state(void *self, rtcosim_state state)
{
    (void)self;
    free(state);
}

static const rtcosim_component_ops integrator_ops = {
    .kind = "native", .do_step = integrator_step, .get = integrator_get,
    .set = integrator_set, .get_state = integrator_get_state,
    .set_state = integrator_set_state, .free_state = model_free_state, .destroy = free,
};

static const rtcosim_variable integrator_vars[] = {
    {.name = "u", .value_reference = 0, .type = RTCOSIM_TYPE_FLOAT64,
     .causality = RTCOSIM_CAUSALITY_INPUT, .variability = RTCOSIM_VARIABILITY_CONTINUOUS,
     .derivative_of = -1},
    {.name = "x", .value_reference = 1, .type = RTCOSIM_TYPE_FLOAT64,
     .causality = RTCOSIM_CAUSALITY_OUTPUT, .variability = RTCOSIM_VARIABILITY_CONTINUOUS,
     .derivative_of = -1},
};

/* --- poly: y = a + b*t_ms + c*t_ms^2 at the time reached (t_ms in ms) ---- */
typedef struct poly {
    double a, b, c, w;
    rtcosim_time_ns time;
    uint64_t steps;
} poly;

static double poly_value(const poly *m)
{
    double t = (double)m->time / 1e6;
    return m->a + m->b * t + m->c * t * t;
}

static rtcosim_status poly_step(void *self, rtcosim_time_ns t, rtcosim_time_ns h,
                                rtcosim_step_result *r, rtcosim_error *err)
{
    (void)r, (void)err;
    poly *m = self;
    m->time = t + h;
    m->steps++;
    return RTCOSIM_OK;
}

static rtcosim_status poly_get(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                               void *values, rtcosim_error *err)
{
    (void)type, (void)err;
    poly *m = self;
    for (size_t i = 0; i < n; i++)
        ((double *)values)[i] = vrs[i] == 0 ? m->w : poly_value(m);
    return RTCOSIM_OK;
}

static rtcosim_status poly_set(void *self, rtcosim_type type, const uint32_t *vrs, size_t n,
                               const void *values, rtcosim_error *err)
{
    (void)type, (void)err;
    poly *m = self;
    for (size_t i = 0; i < n; i++)
        if (vrs[i] == 0)
            m->w = ((const double *)values)[i];
    return RTCOSIM_OK;
}

static const rtcosim_component_ops poly_ops = {
    .kind = "native", .do_step = poly_step, .get = poly_get, .set = poly_set, .destroy = free,
};

static const rtcosim_variable poly_vars[] = {
    {.name = "w", .value_reference = 0, .type = RTCOSIM_TYPE_FLOAT64,
     .causality = RTCOSIM_CAUSALITY_INPUT, .variability = RTCOSIM_VARIABILITY_CONTINUOUS,
     .derivative_of = -1},
    {.name = "y", .value_reference = 1, .type = RTCOSIM_TYPE_FLOAT64,
     .causality = RTCOSIM_CAUSALITY_OUTPUT, .variability = RTCOSIM_VARIABILITY_CONTINUOUS,
     .derivative_of = -1},
};

/* --- timer: ms = time reached, in milliseconds ---------------------------- */
static const rtcosim_variable timer_vars[] = {
    {.name = "ms", .value_reference = 1, .type = RTCOSIM_TYPE_FLOAT64,
     .causality = RTCOSIM_CAUSALITY_OUTPUT, .variability = RTCOSIM_VARIABILITY_CONTINUOUS,
     .derivative_of = -1},
};

/* A timer is a poly with b = 1. */
static const rtcosim_component_ops timer_ops = {
    .kind = "native", .do_step = poly_step, .get = poly_get, .set = poly_set, .destroy = free,
};

static inline rtcosim_component *make_model(const rtcosim_component_ops *ops, void *self,
                                     const rtcosim_variable *vars, size_t n, const char *model)
{
    rtcosim_component_desc desc = {.model_name = model, .variables = vars, .variable_count = n,
                                   .capabilities = {.can_handle_variable_step = true,
                                                    .can_get_set_state =
                                                        ops->get_state != NULL}};
    rtcosim_component *c = NULL;
    if (rtcosim_component_create(ops, self, &desc, &c, NULL) != RTCOSIM_OK)
        return NULL;
    return c;
}

static inline rtcosim_component *make_integrator(double u, integrator **impl)
{
    integrator *m = calloc(1, sizeof *m);
    m->u = u;
    if (impl)
        *impl = m;
    return make_model(&integrator_ops, m, integrator_vars, 2, "integrator");
}

static inline rtcosim_component *make_poly(double a, double b, double c, poly **impl)
{
    poly *m = calloc(1, sizeof *m);
    m->a = a, m->b = b, m->c = c;
    if (impl)
        *impl = m;
    return make_model(&poly_ops, m, poly_vars, 2, "poly");
}

static inline rtcosim_component *make_timer(void)
{
    poly *m = calloc(1, sizeof *m);
    m->b = 1;
    return make_model(&timer_ops, m, timer_vars, 1, "timer");
}

/* Wrap with an explicit compute-time schedule (ns per step, cycled). */
static inline rtcosim_component *with_schedule(rtcosim_component *c, rtcosim_clock *clock,
                                        const rtcosim_time_ns *schedule, size_t n)
{
    rtcosim_delay_options o = {.clock = clock, .schedule = schedule, .schedule_length = n};
    rtcosim_component *w = NULL;
    if (rtcosim_delay_wrap(c, &o, &w, NULL) != RTCOSIM_OK)
        return NULL;
    return w;
}

static inline rtcosim_status start_component(rtcosim_component *c, const char *name)
{
    rtcosim_status st = rtcosim_component_instantiate(c, name, NULL);
    if (st == RTCOSIM_OK)
        st = rtcosim_component_setup(c, 0, 0, -1, NULL);
    if (st == RTCOSIM_OK)
        st = rtcosim_component_enter_init(c, NULL);
    if (st == RTCOSIM_OK)
        st = rtcosim_component_exit_init(c, NULL);
    return st;
}

#define MS(x) ((rtcosim_time_ns)((x) * 1e6 + 0.5))

#endif
