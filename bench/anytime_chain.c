/* B5's spring-mass chain and its variants (anytime_chain.h). */
#include "anytime_chain.h"

#include <math.h>

#define K 200.0
#define K3 2e5
#define C 5.0

static double spring(double s)
{
    return K * s + K3 * s * s * s;
}

/* dz/dt for z = (x, v): Newton's second law with unit masses. */
static void chain_derivative(const double *z, double u, double *dz)
{
    const double *x = z, *v = z + MASSES;
    double left = spring(x[0]); /* wall spring */
    for (int i = 0; i < MASSES; i++) {
        double right = i + 1 < MASSES ? spring(x[i + 1] - x[i]) : 0.0;
        dz[i] = v[i];
        dz[MASSES + i] = right - left - C * v[i] + (i == 0 ? u : 0.0);
        left = right;
    }
}

/* Advance z over h in the variant's steps; ctx NULL runs without abort
 * checks (the offline reference runs). Returns false when aborted. */
bool chain_integrate(chain_variant *cv, double *z, double u, double h, rtcosim_anytime_ctx *ctx)
{
    const int n = 2 * MASSES;
    double dt = h / cv->steps;
    for (int s = 0; s < cv->steps; s++) {
        if (ctx && rtcosim_anytime_should_abort(ctx))
            return false;
        if (cv->method == EULER) {
            chain_derivative(z, u, cv->k[0]);
            for (int i = 0; i < n; i++)
                z[i] += dt * cv->k[0][i];
            continue;
        }
        /* classical Runge-Kutta, Butcher tableau 0, 1/2, 1/2, 1 */
        chain_derivative(z, u, cv->k[0]);
        for (int i = 0; i < n; i++)
            cv->tmp[i] = z[i] + 0.5 * dt * cv->k[0][i];
        chain_derivative(cv->tmp, u, cv->k[1]);
        for (int i = 0; i < n; i++)
            cv->tmp[i] = z[i] + 0.5 * dt * cv->k[1][i];
        chain_derivative(cv->tmp, u, cv->k[2]);
        for (int i = 0; i < n; i++)
            cv->tmp[i] = z[i] + dt * cv->k[2][i];
        chain_derivative(cv->tmp, u, cv->k[3]);
        for (int i = 0; i < n; i++)
            z[i] += dt / 6.0 * (cv->k[0][i] + 2 * cv->k[1][i] + 2 * cv->k[2][i] + cv->k[3][i]);
    }
    return true;
}

/* A small travelling-wave deflection: every mass starts in motion, so that
 * no value decays into subnormal numbers, whose arithmetic is many times
 * slower and would distort the variants' costs. */
void chain_initial_state(double *z)
{
    for (int i = 0; i < MASSES; i++) {
        z[i] = 0.01 * sin(0.2 * i);
        z[MASSES + i] = 0.1 * cos(0.2 * i);
    }
}

rtcosim_status chain_variant_fn(void *user, rtcosim_anytime_ctx *ctx, rtcosim_time_ns t,
                                rtcosim_time_ns h, const double *inputs, void *state,
                                double *outputs, rtcosim_error *err)
{
    (void)t;
    double *z = state;
    if (!chain_integrate(user, z, inputs[0], rtcosim_time_to_seconds(h), ctx))
        return rtcosim_error_set(err, RTCOSIM_ECANCELED, "aborted");
    outputs[0] = z[0];
    return RTCOSIM_OK;
}

