/* The two halves of the two-mass oscillator (benchmark B2) as native models:
 * mass1 (m1, spring k1 to the wall, damper c1, input force F) and mass2 (m2,
 * spring k2 to the wall, damper c2, and the coupling spring kc / damper cc to
 * mass1, inputs x1 and v1, output the coupling force F on mass1). Each
 * integrates its own dynamics with RK4 on 10 us micro steps, with its inputs
 * as polynomials in time, so that the coupling error dominates. */
#include <stddef.h>

#include "equations.h"
#include "rtcosim/native.h"

typedef struct mass1_data {
    double x, v;    /* states (outputs) */
    double F;       /* coupling force from mass2 */
    double m, k, c; /* parameters */
    double x0, v0;  /* initial position and velocity */
} mass1_data;

typedef struct mass2_data {
    double x, v;         /* states (outputs) */
    double x1, v1;       /* mass1's position and velocity */
    double F;            /* coupling force on mass1: kc (x - x1) + cc (v - v1) */
    double m, k, c, kc, cc;
    double x0, v0;
} mass2_data;

#define P RTCOSIM_CAUSALITY_PARAMETER
#define IN RTCOSIM_CAUSALITY_INPUT
#define OUT RTCOSIM_CAUSALITY_OUTPUT
#define FIX RTCOSIM_VARIABILITY_FIXED
#define CONT RTCOSIM_VARIABILITY_CONTINUOUS

static const rtcosim_native_variable mass1_vars[] = {
    RTCOSIM_NATIVE_F64(mass1_data, x, 0, OUT, CONT, 0, "m", "position of mass 1", NULL),
    RTCOSIM_NATIVE_F64(mass1_data, v, 1, OUT, CONT, 0, "m/s", "velocity of mass 1", NULL),
    RTCOSIM_NATIVE_F64(mass1_data, F, 2, IN, CONT, 0, "N", "coupling force on mass 1", NULL),
    RTCOSIM_NATIVE_F64(mass1_data, m, 3, P, FIX, 1, "kg", "mass", NULL),
    RTCOSIM_NATIVE_F64(mass1_data, k, 4, P, FIX, 10, "N/m", "spring to the wall", NULL),
    RTCOSIM_NATIVE_F64(mass1_data, c, 5, P, FIX, 0, "N.s/m", "damper to the wall", NULL),
    RTCOSIM_NATIVE_F64(mass1_data, x0, 6, P, FIX, 0, "m", "initial position", NULL),
    RTCOSIM_NATIVE_F64(mass1_data, v0, 7, P, FIX, 100, "m/s", "initial velocity", NULL),
};

static const rtcosim_native_variable mass2_vars[] = {
    RTCOSIM_NATIVE_F64(mass2_data, x, 0, OUT, CONT, 0, "m", "position of mass 2", NULL),
    RTCOSIM_NATIVE_F64(mass2_data, v, 1, OUT, CONT, 0, "m/s", "velocity of mass 2", NULL),
    RTCOSIM_NATIVE_F64(mass2_data, x1, 2, IN, CONT, 0, "m", "position of mass 1", NULL),
    RTCOSIM_NATIVE_F64(mass2_data, v1, 3, IN, CONT, 0, "m/s", "velocity of mass 1", NULL),
    RTCOSIM_NATIVE_F64(mass2_data, F, 4, OUT, CONT, 0, "N", "coupling force on mass 1", "x1,v1"),
    RTCOSIM_NATIVE_F64(mass2_data, m, 5, P, FIX, 1, "kg", "mass", NULL),
    RTCOSIM_NATIVE_F64(mass2_data, k, 6, P, FIX, 1000, "N/m", "spring to the wall", NULL),
    RTCOSIM_NATIVE_F64(mass2_data, c, 7, P, FIX, 0, "N.s/m", "damper to the wall", NULL),
    RTCOSIM_NATIVE_F64(mass2_data, kc, 8, P, FIX, 100, "N/m", "coupling spring", NULL),
    RTCOSIM_NATIVE_F64(mass2_data, cc, 9, P, FIX, 0, "N.s/m", "coupling damper", NULL),
    RTCOSIM_NATIVE_F64(mass2_data, x0, 10, P, FIX, 0, "m", "initial position", NULL),
    RTCOSIM_NATIVE_F64(mass2_data, v0, 11, P, FIX, -100, "m/s", "initial velocity", NULL),
};

static rtcosim_status mass1_init(void *data, const rtcosim_native_context *ctx, rtcosim_error *err)
{
    (void)ctx;
    mass1_data *d = data;
    if (!(d->m > 0))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "parameter m = %g must be positive", d->m);
    d->x = d->x0;
    d->v = d->v0;
    return RTCOSIM_OK;
}

static void mass1_derivatives(void *data, double t, const double *x, double *dx)
{
    (void)t;
    const mass1_data *d = data;
    dx[0] = x[1];
    dx[1] = oscillator_mass1_accel(d->m, d->k, d->c, x[0], x[1], d->F);
}

static rtcosim_status mass2_init(void *data, const rtcosim_native_context *ctx, rtcosim_error *err)
{
    (void)ctx;
    mass2_data *d = data;
    if (!(d->m > 0))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "parameter m = %g must be positive", d->m);
    d->x = d->x0;
    d->v = d->v0;
    return RTCOSIM_OK;
}

static void mass2_derivatives(void *data, double t, const double *x, double *dx)
{
    (void)t;
    const mass2_data *d = data;
    dx[0] = x[1];
    dx[1] = oscillator_mass2_accel(d->m, d->k, d->c, d->kc, d->cc, x[0], x[1], d->x1, d->v1);
}

static void mass2_outputs(void *data, double t)
{
    (void)t;
    mass2_data *d = data;
    d->F = oscillator_coupling_force(d->kc, d->cc, d->x, d->v, d->x1, d->v1);
}

static const rtcosim_native_model oscillator_mass1 = {
    .name = "oscillator.mass1",
    .description = "mass 1 of the two-mass oscillator (B2): spring k to the wall, force input",
    .data_size = sizeof(mass1_data),
    .variables = mass1_vars,
    .variable_count = sizeof mass1_vars / sizeof mass1_vars[0],
    .state_count = 2,
    .states_offset = offsetof(mass1_data, x),
    .integrator = RTCOSIM_NATIVE_RK4,
    .max_micro_step = 10 * RTCOSIM_NS_PER_US,
    .can_handle_variable_step = true,
    .max_input_derivative_order = 2,
    .init = mass1_init,
    .derivatives = mass1_derivatives,
};

static const rtcosim_native_model oscillator_mass2 = {
    .name = "oscillator.mass2",
    .description = "mass 2 of the two-mass oscillator (B2) with the coupling spring and damper",
    .data_size = sizeof(mass2_data),
    .variables = mass2_vars,
    .variable_count = sizeof mass2_vars / sizeof mass2_vars[0],
    .state_count = 2,
    .states_offset = offsetof(mass2_data, x),
    .integrator = RTCOSIM_NATIVE_RK4,
    .max_micro_step = 10 * RTCOSIM_NS_PER_US,
    .can_handle_variable_step = true,
    .max_input_derivative_order = 2,
    .init = mass2_init,
    .derivatives = mass2_derivatives,
    .outputs = mass2_outputs,
};

RTCOSIM_NATIVE_BUILTIN(oscillator_mass1)
RTCOSIM_NATIVE_BUILTIN(oscillator_mass2)
