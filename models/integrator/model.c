/* An integrator der(x) = u of a continuous input u, y = x: the model with an
 * input and a state that model-exchange importers need to show how they feed
 * inputs to their solver. With u a ramp the solution is known exactly
 * (u = a t gives x = a t^2 / 2): an importer that holds u over a step is
 * off by about a h t / 2, one that interpolates u is exact up to its
 * tolerance. As co-simulation it holds u over the step (x += h u). */
#include <stddef.h>

#include "model.h"

typedef struct integrator {
    double x, der_x, u, x0;
} integrator;

static const model_variable variables[] = {
    {"time", 0, MODEL_FLOAT64, MODEL_INDEPENDENT, MODEL_CONTINUOUS, MODEL_INITIAL_DEFAULT, 0,
     NULL, "s", "Simulation time", 0, {0, 0}},
    {"x", 1, MODEL_FLOAT64, MODEL_OUTPUT, MODEL_CONTINUOUS, MODEL_INITIAL_CALCULATED,
     offsetof(integrator, x), NULL, NULL, "The integral of u, x(start) = x0", 0, {0, 0}},
    {"der(x)", 2, MODEL_FLOAT64, MODEL_LOCAL, MODEL_CONTINUOUS, MODEL_INITIAL_CALCULATED,
     offsetof(integrator, der_x), NULL, NULL, "der(x) = u", 1, {0, 0}},
    {"u", 3, MODEL_FLOAT64, MODEL_INPUT, MODEL_CONTINUOUS, MODEL_INITIAL_DEFAULT,
     offsetof(integrator, u), "0", NULL, "The integrand", 0, {0, 0}},
    {"x0", 4, MODEL_FLOAT64, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT,
     offsetof(integrator, x0), "0", NULL, "Initial value of x", 0, {0, 0}},
};

static void evaluate(model_instance *inst, void *data)
{
    (void)inst;
    integrator *m = data;
    m->der_x = m->u;
}

static void initialize(model_instance *inst, void *data)
{
    integrator *m = data;
    m->x = m->x0;
    evaluate(inst, data);
}

static model_status do_step(model_instance *inst, void *data, double t, double h)
{
    (void)t;
    integrator *m = data;
    m->x += h * m->u; /* u held over the step (co-simulation without derivatives) */
    evaluate(inst, data);
    return MODEL_OK;
}

const model_def model_definition = {
    .model_name = "Integrator",
    .description = "der(x) = u, y = x",
    .instantiation_token = "{6f0b9a2e-3c1d-4e57-9a8b-1d2c3e4f5a11}",
    .variables = variables,
    .variable_count = sizeof variables / sizeof variables[0],
    .data_size = sizeof(integrator),
    .initialize = initialize,
    .evaluate = evaluate,
    .do_step = do_step,
    .model_exchange = true,
    .default_start_time = 0.0,
    .default_stop_time = 1.0,
    .default_tolerance = 1e-8,
    .default_step_size = 0.1,
};
