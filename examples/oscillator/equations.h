/* The equations of the two-mass oscillator halves, shared by the native
 * models (models.c) and the FMU exports (fmu_mass1.c, fmu_mass2.c) so that
 * both kinds compute exactly the same physics. */
#ifndef RTCOSIM_OSCILLATOR_EQUATIONS_H
#define RTCOSIM_OSCILLATOR_EQUATIONS_H

#include <math.h>

/* Coupling force on mass 1 from the spring kc and damper cc to mass 2. */
static inline double oscillator_coupling_force(double kc, double cc, double x2, double v2,
                                               double x1, double v1)
{
    return kc * (x2 - x1) + cc * (v2 - v1);
}

/* m1 x1'' = -k1 x1 - c1 x1' + F */
static inline double oscillator_mass1_accel(double m, double k, double c, double x, double v,
                                            double force)
{
    return (-k * x - c * v + force) / m;
}

/* m2 x2'' = -k2 x2 - c2 x2' - F(x1, v1, x2, v2) */
static inline double oscillator_mass2_accel(double m, double k, double c, double kc, double cc,
                                            double x, double v, double x1, double v1)
{
    return (-k * x - c * v - oscillator_coupling_force(kc, cc, x, v, x1, v1)) / m;
}

/* Largest RK4 micro step of both halves (10 us). */
#define OSCILLATOR_MICRO_STEP 1e-5

/* Classical RK4 of x' = v, v' = accel(ctx, x, v) over h in equal micro steps
 * of at most OSCILLATOR_MICRO_STEP, inputs held; the FMU exports use it (the
 * native models get the same scheme from the native wrapper, with polynomial
 * inputs). */
static inline void oscillator_rk4(double *x, double *v, double h,
                                  double (*accel)(const void *ctx, double x, double v),
                                  const void *ctx)
{
    int n = (int)ceil(h / OSCILLATOR_MICRO_STEP * (1 - 1e-12));
    if (n < 1)
        n = 1;
    double dt = h / n;
    for (int i = 0; i < n; i++) {
        double x0 = *x, v0 = *v;
        double k1x = v0, k1v = accel(ctx, x0, v0);
        double k2x = v0 + 0.5 * dt * k1v, k2v = accel(ctx, x0 + 0.5 * dt * k1x, k2x);
        double k3x = v0 + 0.5 * dt * k2v, k3v = accel(ctx, x0 + 0.5 * dt * k2x, k3x);
        double k4x = v0 + dt * k3v, k4v = accel(ctx, x0 + dt * k3x, k4x);
        *x = x0 + dt / 6 * (k1x + 2 * k2x + 2 * k3x + k4x);
        *v = v0 + dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v);
    }
}

#endif
