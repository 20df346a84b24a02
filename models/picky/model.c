/* An accumulator that refuses inputs outside its valid range, as models
 * guarding their equations do (a height or a pressure below zero, a table's
 * domain): each step adds u * h to y, or, when u lies outside [u_min,
 * u_max], returns Error and stays where it was. No evaluate and no
 * continuous state: y changes only in a step, so the description says it
 * depends on no input (no direct feedthrough), and a master may speculate
 * on its input. Under `rtcosim run --speculate` a predicted input that
 * overshoots the range makes a step fail that the real input would not: the
 * speculation must take it back and run it again on the real input
 * (tests/master: a bouncing ball's height, never below 0, into u with u_min
 * 0; extrapolated across a bounce it is). */
#include <stddef.h>

#include "model.h"

typedef struct picky {
    double u, y, u_min, u_max;
    int32_t refused; /* steps refused so far */
} picky;

#define VAR(vr, name, type, causality, variability, initial, field, start, unit, description) \
    {name, vr, type, causality, variability, initial, offsetof(picky, field), start, unit,    \
     description, 0, {0, 0}}

static const model_variable variables[] = {
    {"time", 0, MODEL_FLOAT64, MODEL_INDEPENDENT, MODEL_CONTINUOUS, MODEL_INITIAL_DEFAULT, 0,
     NULL, "s", "Simulation time", 0, {0, 0}},
    VAR(1, "u", MODEL_FLOAT64, MODEL_INPUT, MODEL_CONTINUOUS, MODEL_INITIAL_DEFAULT, u, "0",
        NULL, "Input, valid in [u_min, u_max]"),
    VAR(2, "y", MODEL_FLOAT64, MODEL_OUTPUT, MODEL_DISCRETE, MODEL_INITIAL_EXACT, y, "0", NULL,
        "Sum of u * h over the steps taken"),
    VAR(3, "u_min", MODEL_FLOAT64, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT, u_min,
        "-1e300", NULL, "Smallest valid u: a step with a smaller one fails (Error)"),
    VAR(4, "u_max", MODEL_FLOAT64, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT, u_max,
        "1e300", NULL, "Largest valid u: a step with a larger one fails (Error)"),
    VAR(5, "refused", MODEL_INT32, MODEL_OUTPUT, MODEL_DISCRETE, MODEL_INITIAL_EXACT, refused, "0",
        NULL, "Steps refused so far (an importer that goes back to a saved state undoes them)"),
};

static model_status check(model_instance *inst, void *data)
{
    const picky *m = data;
    if (!(m->u_min <= m->u_max)) {
        model_log(inst, MODEL_LOG_STATUS_ERROR, "u_min = %g must not exceed u_max = %g",
                  m->u_min, m->u_max);
        return MODEL_ERROR;
    }
    return MODEL_OK;
}

static model_status do_step(model_instance *inst, void *data, double t, double h)
{
    picky *m = data;
    if (!(m->u >= m->u_min && m->u <= m->u_max)) {
        m->refused++;
        model_log(inst, MODEL_LOG_STATUS_ERROR,
                  "u = %.17g at t = %.17g is outside [u_min, u_max] = [%.17g, %.17g]", m->u, t,
                  m->u_min, m->u_max);
        return MODEL_ERROR;
    }
    m->y += m->u * h;
    return MODEL_OK;
}

const model_def model_definition = {
    .model_name = "Picky",
    .description = "Accumulator whose steps fail on an input outside [u_min, u_max]",
    .instantiation_token = "{6f0b9a2e-3c1d-4e57-9a8b-1d2c3e4f5c01}",
    .variables = variables,
    .variable_count = sizeof variables / sizeof variables[0],
    .data_size = sizeof(picky),
    .check = check,
    .do_step = do_step,
    .default_start_time = 0.0,
    .default_stop_time = 1.0,
    .default_tolerance = 1e-6,
    .default_step_size = 0.01,
};
