/* mass2 of the two-mass oscillator exported as an FMU (FMI 2.0 / 3.0
 * co-simulation): the same equations as the native model (equations.h), RK4
 * on 10 us micro steps, inputs x1 and v1 held over each communication step;
 * the coupling force output F depends directly on them. */
#include <stddef.h>

#include "equations.h"
#include "model.h"

typedef struct mass2 {
    double x, v, x1, v1, F, m, k, c, kc, cc, x0, v0;
} mass2;

#define VAR(name, vr, causality, variability, initial, field, start, unit, desc)                    \
    {name, vr, MODEL_FLOAT64, causality, variability, initial, offsetof(mass2, field), start, unit, \
     desc, 0, {0, 0}}

static const model_variable variables[] = {
    {"time", 0, MODEL_FLOAT64, MODEL_INDEPENDENT, MODEL_CONTINUOUS, MODEL_INITIAL_DEFAULT, 0, NULL,
     "s", "Simulation time", 0, {0, 0}},
    VAR("x", 1, MODEL_OUTPUT, MODEL_CONTINUOUS, MODEL_INITIAL_CALCULATED, x, NULL, "m", "position of mass 2"),
    VAR("v", 2, MODEL_OUTPUT, MODEL_CONTINUOUS, MODEL_INITIAL_CALCULATED, v, NULL, "m/s", "velocity of mass 2"),
    VAR("x1", 3, MODEL_INPUT, MODEL_CONTINUOUS, MODEL_INITIAL_DEFAULT, x1, "0", "m", "position of mass 1"),
    VAR("v1", 4, MODEL_INPUT, MODEL_CONTINUOUS, MODEL_INITIAL_DEFAULT, v1, "0", "m/s", "velocity of mass 1"),
    VAR("F", 5, MODEL_OUTPUT, MODEL_CONTINUOUS, MODEL_INITIAL_CALCULATED, F, NULL, "N", "coupling force on mass 1"),
    VAR("m", 6, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT, m, "1", "kg", "mass"),
    VAR("k", 7, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT, k, "1000", "N/m", "spring to the wall"),
    VAR("c", 8, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT, c, "0", "N.s/m", "damper to the wall"),
    VAR("kc", 9, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT, kc, "100", "N/m", "coupling spring"),
    VAR("cc", 10, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT, cc, "0", "N.s/m", "coupling damper"),
    VAR("x0", 11, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT, x0, "0", "m", "initial position"),
    VAR("v0", 12, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT, v0, "-100", "m/s", "initial velocity"),
};

static model_status check(model_instance *inst, void *data)
{
    const mass2 *d = data;
    if (!(d->m > 0)) {
        model_log(inst, MODEL_LOG_STATUS_ERROR, "m must be > 0, is %g", d->m);
        return MODEL_ERROR;
    }
    return MODEL_OK;
}

static void evaluate(model_instance *inst, void *data)
{
    (void)inst;
    mass2 *d = data;
    d->F = oscillator_coupling_force(d->kc, d->cc, d->x, d->v, d->x1, d->v1);
}

static void initialize(model_instance *inst, void *data)
{
    mass2 *d = data;
    d->x = d->x0;
    d->v = d->v0;
    evaluate(inst, data);
}

static double accel(const void *ctx, double x, double v)
{
    const mass2 *d = ctx;
    return oscillator_mass2_accel(d->m, d->k, d->c, d->kc, d->cc, x, v, d->x1, d->v1);
}

static model_status do_step(model_instance *inst, void *data, double t, double h)
{
    (void)t;
    mass2 *d = data;
    oscillator_rk4(&d->x, &d->v, h, accel, d);
    evaluate(inst, data);
    return MODEL_OK;
}

/* The coupling force depends directly on mass 1's position and velocity;
 * the states x and v do not depend on any input. */
static const uint32_t force_inputs[] = {3, 4};
static const model_dependency dependencies[] = {{5, force_inputs, 2}};

const model_def model_definition = {
    .model_name = "OscillatorMass2",
    .description = "Mass 2 of the two-mass oscillator (B2) with the coupling spring and damper",
    .instantiation_token = "{0e4a1c52-8f3b-4d2e-9b61-5a7c3d2e1f02}",
    .variables = variables,
    .variable_count = sizeof variables / sizeof variables[0],
    .data_size = sizeof(mass2),
    .check = check,
    .initialize = initialize,
    .evaluate = evaluate,
    .do_step = do_step,
    .default_start_time = 0.0,
    .default_stop_time = 10.0,
    .default_tolerance = 1e-6,
    .default_step_size = 1e-3,
    .dependencies = dependencies,
    .dependency_count = sizeof dependencies / sizeof dependencies[0],
};
