/* mass1 of the two-mass oscillator exported as an FMU (FMI 2.0 / 3.0
 * co-simulation) through the project's shared FMI glue: the same equations as
 * the native model (equations.h), RK4 on 10 us micro steps, input F held
 * over each communication step. */
#include <stddef.h>

#include "equations.h"
#include "model.h"

typedef struct mass1 {
    double x, v, F, m, k, c, x0, v0;
} mass1;

#define VAR(name, vr, causality, variability, initial, field, start, unit, desc)                    \
    {name, vr, MODEL_FLOAT64, causality, variability, initial, offsetof(mass1, field), start, unit, \
     desc, 0, {0, 0}}

static const model_variable variables[] = {
    {"time", 0, MODEL_FLOAT64, MODEL_INDEPENDENT, MODEL_CONTINUOUS, MODEL_INITIAL_DEFAULT, 0, NULL,
     "s", "Simulation time", 0, {0, 0}},
    VAR("x", 1, MODEL_OUTPUT, MODEL_CONTINUOUS, MODEL_INITIAL_CALCULATED, x, NULL, "m", "position of mass 1"),
    VAR("v", 2, MODEL_OUTPUT, MODEL_CONTINUOUS, MODEL_INITIAL_CALCULATED, v, NULL, "m/s", "velocity of mass 1"),
    VAR("F", 3, MODEL_INPUT, MODEL_CONTINUOUS, MODEL_INITIAL_DEFAULT, F, "0", "N", "coupling force on mass 1"),
    VAR("m", 4, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT, m, "1", "kg", "mass"),
    VAR("k", 5, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT, k, "10", "N/m", "spring to the wall"),
    VAR("c", 6, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT, c, "0", "N.s/m", "damper to the wall"),
    VAR("x0", 7, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT, x0, "0", "m", "initial position"),
    VAR("v0", 8, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT, v0, "100", "m/s", "initial velocity"),
};

static model_status check(model_instance *inst, void *data)
{
    const mass1 *d = data;
    if (!(d->m > 0)) {
        model_log(inst, MODEL_LOG_STATUS_ERROR, "m must be > 0, is %g", d->m);
        return MODEL_ERROR;
    }
    return MODEL_OK;
}

static void initialize(model_instance *inst, void *data)
{
    (void)inst;
    mass1 *d = data;
    d->x = d->x0;
    d->v = d->v0;
}

static double accel(const void *ctx, double x, double v)
{
    const mass1 *d = ctx;
    return oscillator_mass1_accel(d->m, d->k, d->c, x, v, d->F);
}

static model_status do_step(model_instance *inst, void *data, double t, double h)
{
    (void)inst, (void)t;
    mass1 *d = data;
    oscillator_rk4(&d->x, &d->v, h, accel, d);
    return MODEL_OK;
}

const model_def model_definition = {
    .model_name = "OscillatorMass1",
    .description = "Mass 1 of the two-mass oscillator (B2): spring to the wall, force input",
    .instantiation_token = "{0e4a1c52-8f3b-4d2e-9b61-5a7c3d2e1f01}",
    .variables = variables,
    .variable_count = sizeof variables / sizeof variables[0],
    .data_size = sizeof(mass1),
    .check = check,
    .initialize = initialize,
    .do_step = do_step,
    .default_start_time = 0.0,
    .default_stop_time = 10.0,
    .default_tolerance = 1e-6,
    .default_step_size = 1e-3,
};
