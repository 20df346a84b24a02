/* Dahlquist's test equation der(x) = -k*x, integrated by explicit Euler: the
 * state, its variables and its callbacks, shared by the Dahlquist and Faulty
 * models so that both describe and step the equation identically. A
 * communication step h is split into n = ceil(h / max_step) equal micro
 * steps, so that the step ends exactly at t + h whatever h is. */
#ifndef RTCOSIM_DAHLQUIST_MODEL_H
#define RTCOSIM_DAHLQUIST_MODEL_H

#include <math.h>
#include <stddef.h>

#include "model.h"

/* How one communication step is split; kept between steps so that a run of
 * equal steps (the usual case) pays no division. */
typedef struct dahlquist_split {
    double h;        /* the step this split is for; 0: none yet */
    double max_step;
    double dt;       /* h / n */
    long n;          /* micro steps */
} dahlquist_split;

/* Returns x after h seconds. The relative slack 1e-9 keeps h = 10*max_step
 * at 10 micro steps although 1e-3/1e-4 rounds to 10.000000000000002. */
static inline double dahlquist_euler(double x, double k, double h, double max_step,
                                     dahlquist_split *split)
{
    if (h != split->h || max_step != split->max_step) {
        double n = ceil(h / max_step - 1e-9);
        if (n < 1.0)
            n = 1.0;
        split->h = h;
        split->max_step = max_step;
        split->n = (long)n;
        split->dt = h / n;
    }
    const double dt = split->dt;
    for (long i = 0; i < split->n; i++)
        x += dt * (-k * x); /* x_{i+1} = x_i + dt * f(x_i), f(x) = -k*x */
    return x;
}

/* The model data of Dahlquist, and the first member of every model built on
 * it (the callbacks below take the model data as a dahlquist_state). */
typedef struct dahlquist_state {
    double x;
    double der_x;
    double k;
    double x0;
    double solver_step;
    dahlquist_split split; /* not a variable: a cache the state carries along */
} dahlquist_state;

/* Value references 0..5: time, the state, its derivative and the parameters. */
#define DAHLQUIST_VARIABLES                                                                       \
    {"time", 0, MODEL_FLOAT64, MODEL_INDEPENDENT, MODEL_CONTINUOUS, MODEL_INITIAL_DEFAULT, 0,     \
     NULL, "s", "Simulation time", 0, {0, 0}},                                                            \
    {"x", 1, MODEL_FLOAT64, MODEL_OUTPUT, MODEL_CONTINUOUS, MODEL_INITIAL_CALCULATED,             \
     offsetof(dahlquist_state, x), NULL, NULL, "State, x(start) = x0", 0, {0, 0}},                        \
    {"der(x)", 2, MODEL_FLOAT64, MODEL_LOCAL, MODEL_CONTINUOUS, MODEL_INITIAL_CALCULATED,         \
     offsetof(dahlquist_state, der_x), NULL, "1/s", "der(x) = -k*x", 1, {0, 0}},                          \
    {"k", 3, MODEL_FLOAT64, MODEL_PARAMETER, MODEL_TUNABLE, MODEL_INITIAL_EXACT,                  \
     offsetof(dahlquist_state, k), "1", "1/s", "Decay rate", 0, {0, 0}},                                  \
    {"x0", 4, MODEL_FLOAT64, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT,                   \
     offsetof(dahlquist_state, x0), "1", NULL, "Initial value of x", 0, {0, 0}},                          \
    {"solver_step", 5, MODEL_FLOAT64, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT,          \
     offsetof(dahlquist_state, solver_step), "1e-4", "s",                                         \
     "Largest Euler micro step; a communication step is split into equal micro steps", 0, {0, 0}}

static inline model_status dahlquist_check(model_instance *inst, void *data)
{
    const dahlquist_state *m = data;
    if (!(m->solver_step > 0.0)) {
        model_log(inst, MODEL_LOG_STATUS_ERROR, "solver_step must be > 0, is %g", m->solver_step);
        return MODEL_ERROR;
    }
    return MODEL_OK;
}

static inline void dahlquist_evaluate(model_instance *inst, void *data)
{
    (void)inst;
    dahlquist_state *m = data;
    m->der_x = -m->k * m->x;
}

static inline void dahlquist_initialize(model_instance *inst, void *data)
{
    dahlquist_state *m = data;
    m->x = m->x0;
    dahlquist_evaluate(inst, data);
}

static inline model_status dahlquist_do_step(model_instance *inst, void *data, double t, double h)
{
    (void)t;
    dahlquist_state *m = data;
    m->x = dahlquist_euler(m->x, m->k, h, m->solver_step, &m->split);
    dahlquist_evaluate(inst, data);
    return MODEL_OK;
}

#endif
