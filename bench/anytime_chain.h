/* B5's computation (bench_anytime.c): a nonlinear spring-mass chain of
 * MASSES unit masses, wall - m0 - m1 - ... - m(M-1), springs F(s) = K s +
 * K3 s^3 and damping -C v on each mass, driven by a force on m0 whose
 * position is the output; its variants integrate it with Euler or RK4 in a
 * number of steps per period. */
#ifndef RTCOSIM_BENCH_ANYTIME_CHAIN_H
#define RTCOSIM_BENCH_ANYTIME_CHAIN_H

#include <stdbool.h>

#include "rtcosim/anytime.h"

#define MASSES 128

typedef enum method { EULER, RK4 } method;

typedef struct chain_variant {
    method method;
    int steps; /* per period */
    double k[4][2 * MASSES], tmp[2 * MASSES];
} chain_variant;

/* Advance z over h in the variant's steps; ctx NULL runs without abort
 * checks (the offline reference runs). Returns false when aborted. */
bool chain_integrate(chain_variant *cv, double *z, double u, double h, rtcosim_anytime_ctx *ctx);
/* A small travelling-wave deflection (no subnormal numbers later). */
void chain_initial_state(double *z);
/* The variant function of rtcosim_anytime_add_native (user: the variant). */
rtcosim_status chain_variant_fn(void *user, rtcosim_anytime_ctx *ctx, rtcosim_time_ns t,
                                rtcosim_time_ns h, const double *inputs, void *state,
                                double *outputs, rtcosim_error *err);

#endif
