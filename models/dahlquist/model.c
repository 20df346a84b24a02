/* Dahlquist's test equation der(x) = -k*x as a co-simulation model, stepped by
 * fixed-step explicit Euler. It is the project's per-step overhead benchmark
 * (B1: one million steps), so its step does nothing but the arithmetic. As a
 * model-exchange FMU the importer integrates x itself (evaluate gives der(x)). */
#include <stddef.h>

#include "dahlquist_euler.h"
#include "model.h"

typedef struct dahlquist {
    double x;
    double der_x;
    double k;
    double x0;
    double solver_step;
    dahlquist_split split; /* not a variable: a cache the state carries along */
} dahlquist;

static const model_variable variables[] = {
    {"time", 0, MODEL_FLOAT64, MODEL_INDEPENDENT, MODEL_CONTINUOUS, MODEL_INITIAL_DEFAULT, 0,
     NULL, "s", "Simulation time", 0},
    {"x", 1, MODEL_FLOAT64, MODEL_OUTPUT, MODEL_CONTINUOUS, MODEL_INITIAL_CALCULATED,
     offsetof(dahlquist, x), NULL, NULL, "State, x(start) = x0", 0},
    {"der(x)", 2, MODEL_FLOAT64, MODEL_LOCAL, MODEL_CONTINUOUS, MODEL_INITIAL_CALCULATED,
     offsetof(dahlquist, der_x), NULL, "1/s", "der(x) = -k*x", 1},
    {"k", 3, MODEL_FLOAT64, MODEL_PARAMETER, MODEL_TUNABLE, MODEL_INITIAL_EXACT,
     offsetof(dahlquist, k), "1", "1/s", "Decay rate", 0},
    {"x0", 4, MODEL_FLOAT64, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT,
     offsetof(dahlquist, x0), "1", NULL, "Initial value of x", 0},
    {"solver_step", 5, MODEL_FLOAT64, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT,
     offsetof(dahlquist, solver_step), "1e-4", "s",
     "Largest Euler micro step; a communication step is split into equal micro steps", 0},
};

static model_status check(model_instance *inst, void *data)
{
    const dahlquist *m = data;
    if (!(m->solver_step > 0.0)) {
        model_log(inst, MODEL_LOG_STATUS_ERROR, "solver_step must be > 0, is %g", m->solver_step);
        return MODEL_ERROR;
    }
    return MODEL_OK;
}

static void initialize(model_instance *inst, void *data)
{
    (void)inst;
    dahlquist *m = data;
    m->x = m->x0;
    m->der_x = -m->k * m->x;
}

static void evaluate(model_instance *inst, void *data)
{
    (void)inst;
    dahlquist *m = data;
    m->der_x = -m->k * m->x;
}

static model_status do_step(model_instance *inst, void *data, double t, double h)
{
    (void)inst;
    (void)t;
    dahlquist *m = data;
    m->x = dahlquist_euler(m->x, m->k, h, m->solver_step, &m->split);
    m->der_x = -m->k * m->x;
    return MODEL_OK;
}

const model_def model_definition = {
    .model_name = "Dahlquist",
    .description = "Dahlquist test equation der(x) = -k*x, explicit Euler",
    .instantiation_token = "{6f0b9a2e-3c1d-4e57-9a8b-1d2c3e4f5a01}",
    .variables = variables,
    .variable_count = sizeof variables / sizeof variables[0],
    .data_size = sizeof(dahlquist),
    .check = check,
    .initialize = initialize,
    .evaluate = evaluate,
    .do_step = do_step,
    .model_exchange = true,
    .default_start_time = 0.0,
    .default_stop_time = 10.0,
    .default_tolerance = 1e-6,
    .default_step_size = 1e-4,
};
