/* The explicit Euler integration of Dahlquist's test equation der(x) = -k*x,
 * shared by the Dahlquist and Faulty models so that both step identically.
 * A communication step h is split into n = ceil(h / max_step) equal micro
 * steps, so that the step ends exactly at t + h whatever h is. */
#ifndef RTCOSIM_DAHLQUIST_EULER_H
#define RTCOSIM_DAHLQUIST_EULER_H

#include <math.h>

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

#endif
