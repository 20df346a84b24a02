/* Coupling of one connection between components: extrapolation of the
 * exchanged signal over a macro step (ZOH/FOH/SOH), the energy-preserving
 * correction that feeds the previous steps' integrated extrapolation error
 * back into the next steps' input (after Benedikt, Watzenig, Hofer: NEPCE,
 * 2013), power bonds, and the PI controller of the adaptive macro step.
 * The master uses these per connection; they are public so that other layers
 * (late-partner estimation) and tests can use the same estimators. */
#ifndef RTCOSIM_COUPLING_H
#define RTCOSIM_COUPLING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/status.h"
#include "rtcosim/time.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Extrapolation order of the input estimate over a macro step. */
typedef enum rtcosim_extrapolation {
    RTCOSIM_EXTRAPOLATION_ZOH = 0, /* hold the last exchanged value */
    RTCOSIM_EXTRAPOLATION_FOH = 1, /* line through the last two exchanged values */
    RTCOSIM_EXTRAPOLATION_SOH = 2  /* parabola through the last three */
} rtcosim_extrapolation;

/* Correction system turning the integrated extrapolation error into the
 * correction signal of the next step(s). */
typedef enum rtcosim_correction {
    RTCOSIM_CORRECTION_NONE = 0,
    /* Dead-time element: the last step's integrated error E_k is released
     * evenly over the next step: c = E_k / H_{k+1}. */
    RTCOSIM_CORRECTION_DEAD_TIME,
    /* Integrator of the undelivered error with a stability factor and an
     * exponential shaping block (see rtcosim_correction_release). */
    RTCOSIM_CORRECTION_INTEGRATOR
} rtcosim_correction;

/* What a faster consumer sees of a slower producer between the producer's
 * exchanges (multi-rate). */
typedef enum rtcosim_multirate_input {
    RTCOSIM_MULTIRATE_INTERPOLATE = 0, /* the producer's estimate evaluated over each fast step */
    RTCOSIM_MULTIRATE_HOLD             /* the last exchanged value, held */
} rtcosim_multirate_input;

/* How the true signal is integrated over an interval to measure the
 * extrapolation error from the exchanged samples. The trapezoid has a local
 * error of h^3 y''/12, which caps corrected FOH/SOH at second order; the
 * parabola through the last three samples (h/12 (5 y_k+1 + 8 y_k - y_k-1) on
 * an even grid, Adams-Moulton 3) is exact for quadratics and lets them reach
 * third order. For ZOH the trapezoid is as good (measured in B2). */
typedef enum rtcosim_error_quadrature {
    RTCOSIM_QUADRATURE_AUTO = 0,  /* trapezoid for ZOH, quadratic for FOH and SOH */
    RTCOSIM_QUADRATURE_TRAPEZOID,
    RTCOSIM_QUADRATURE_QUADRATIC
} rtcosim_error_quadrature;

/* What a consumer that cannot take input derivatives (a black box: FMI 2.0
 * without canInterpolateInputs, FMI 3.0 without providesIntermediateUpdate
 * of inputs) receives of a FOH/SOH estimate p over its step [t, t + h]: one
 * constant value per step. ZOH estimates are constant, so both give the held
 * sample itself, bit for bit. */
typedef enum rtcosim_step_input {
    /* The mean (1/h) * integral of p over the step: c0 + c1 h/2 + c2 h^2/3.
     * The constant with the estimate's impulse; no O(h) lag on a sloped
     * signal (default). */
    RTCOSIM_STEP_INPUT_MEAN = 0,
    /* p(t), the estimate's value at the step start (what a tool that samples
     * its inputs at the communication point gives); lags a sloped signal by
     * h/2 on average. The error signal and the correction then measure
     * against this held value, since it is what the consumer received. */
    RTCOSIM_STEP_INPUT_START
} rtcosim_step_input;

typedef struct rtcosim_coupling_options {
    rtcosim_extrapolation extrapolation;
    rtcosim_correction correction;
    /* Integrator correction: time constant of the release, in units of the
     * master's base macro step (tau = stability_factor * H). <= 0: 1. */
    double stability_factor;
    rtcosim_multirate_input multirate;
    /* SSP-style linear transformation input = factor * output + offset. Needed
     * to connect variables with different declared units. */
    bool has_transformation;
    double factor, offset;
    rtcosim_error_quadrature quadrature;
    rtcosim_step_input step_input; /* black-box consumers of FOH/SOH estimates */
    /* Integer, enumeration and Boolean connections: the value map of an SSP
     * 1.0 Integer/Enumeration/BooleanMappingTransformation. An output value
     * map_from[i] arrives at the input as map_to[i]; a value not in the map
     * passes unchanged. The master copies the table at connect. */
    const int64_t *map_from, *map_to;
    size_t map_count;
} rtcosim_coupling_options;

/* Defaults: ZOH, no correction, stability factor 1, interpolate, no
 * transformation, automatic quadrature, step mean for black boxes. */
void rtcosim_coupling_options_init(rtcosim_coupling_options *opts);

/* Parse "zoh"/"foh"/"soh" and "none"/"dead-time"/"integrator" (as used on the
 * command line). Return RTCOSIM_EINVAL naming the text when unknown. */
rtcosim_status rtcosim_extrapolation_parse(const char *text, rtcosim_extrapolation *out,
                                           rtcosim_error *err);
rtcosim_status rtcosim_correction_parse(const char *text, rtcosim_correction *out,
                                        rtcosim_error *err);
const char *rtcosim_extrapolation_name(rtcosim_extrapolation e);
const char *rtcosim_correction_name(rtcosim_correction c);
/* "mean" / "start" (rtcosim_step_input); RTCOSIM_EINVAL naming the text when unknown. */
rtcosim_status rtcosim_step_input_parse(const char *text, rtcosim_step_input *out,
                                        rtcosim_error *err);
const char *rtcosim_step_input_name(rtcosim_step_input s);

/* A polynomial in s = t - t0 (seconds) over one step: p(s) = c0 + c1 s + c2 s^2. */
typedef struct rtcosim_poly {
    double c[3];
} rtcosim_poly;

/* The polynomial through the last min(order + 1, n) samples (times in ns, in
 * increasing order, the most recent last), expressed around t0. With the
 * latest sample at t0 this extrapolates; with later samples it interpolates.
 * Exact for polynomials of degree <= the order used. n >= 1. */
void rtcosim_poly_fit(rtcosim_extrapolation order, const rtcosim_time_ns *times,
                      const double *values, size_t n, rtcosim_time_ns t0, rtcosim_poly *out);
/* p(s); a constant p gives c0 bit for bit (see rtcosim_poly_mean). */
static inline double rtcosim_poly_eval(const rtcosim_poly *p, double s)
{
    double tail = s * (p->c[1] + s * p->c[2]);
    return tail != 0 ? p->c[0] + tail : p->c[0];
}
/* Mean of p over [0, h] seconds: c0 + h (c1/2 + h c2/3). For a constant p it
 * is c0 itself, bit for bit: the tail is added only when it is not zero,
 * because c0 + (+0) turns a -0 into +0 (the select costs no division and no
 * branch misprediction). Computing the mean as integral / h instead would
 * round twice ((h c0) / h != c0 for most c0, e.g. 1.9998 at h = 1 ms), so a
 * pass-through would not pass its signal unchanged. */
static inline double rtcosim_poly_mean(const rtcosim_poly *p, double h)
{
    double tail = h * (p->c[1] / 2 + h * p->c[2] / 3);
    return tail != 0 ? p->c[0] + tail : p->c[0];
}
/* Integral of p over [0, h] seconds (h times the mean). */
static inline double rtcosim_poly_integral(const rtcosim_poly *p, double h)
{
    return h * rtcosim_poly_mean(p, h);
}
/* The polynomial shifted to a new origin: q(s) = p(s + ds). */
void rtcosim_poly_shift(const rtcosim_poly *p, double ds, rtcosim_poly *out);

/* The state of one connection's correction system. */
typedef struct rtcosim_correction_state {
    rtcosim_correction kind;
    double tau;            /* integrator time constant in seconds */
    double pending;        /* error impulse not yet released (integrator state) */
    double last_error;     /* E_k of the last reconciled interval */
} rtcosim_correction_state;

void rtcosim_correction_init(rtcosim_correction_state *s, rtcosim_correction kind, double tau);
/* Feed the integrated extrapolation error E_k of the interval just finished
 * (true integral minus the integral of the plain estimate). */
void rtcosim_correction_feed(rtcosim_correction_state *s, double error_integral);
/* The constant correction to add to the estimate over the next step of h
 * seconds (the integral it releases is removed from the pending error).
 * Dead time: E_k / h, once. Integrator: pending * (1 - exp(-h/tau)) / h. */
double rtcosim_correction_release(rtcosim_correction_state *s, double h);

/* Adaptive macro step (PI controller).
 *
 * The master's error norm of a step of h is, over the corrected continuous
 * connections, |E| / (h * (atol + rtol * max|y|)) * (h / h_mean)^2 (h_mean
 * a moving mean of the last ~100 steps) and, over the uncorrected ones and
 * power bonds, the same without that factor. E is the integrated
 * extrapolation error of the step. Why the factor: a correction gives E back
 * one step later, so what is left of it in the trajectory is E times that
 * delay, and the steps that spend the fewest for a given global error make
 * E h the same in every step (minimise sum 1/h under sum E h = const), not
 * E / h: the step varies less over an oscillation (B2 case 1: as few steps
 * as a fixed run of equal accuracy; with E / h, twice as many). Without a
 * correction E itself stays in the trajectory. The norm stays the mean
 * extrapolation error against the tolerance at the mean step, so that rtol
 * keeps its meaning whatever the initial step. */
typedef struct rtcosim_step_control {
    bool enabled;
    double rtol, atol;           /* tolerances of the norm above */
    rtcosim_time_ns min_step, max_step;
    rtcosim_time_ns resolution;  /* steps are multiples of this (default 1 us) */
    double target;               /* the norm the controller steers to, in (0, 1]; default 0.5 */
    double max_increase;         /* default 2 */
    double max_decrease;         /* default 0.2 (smallest factor) */
    double order;                /* k, the norm ~ h^k; 0 (default): the master's, from the
                                    extrapolation and correction of the connections */
    double beta_i, beta_p;       /* PI gains; 0 (default): 0.3 / k and 0.2 / k */
} rtcosim_step_control;

/* Defaults: disabled, rtol 1e-4, atol 1e-6, min = max = 0 (master: H/1000
 * and 10 H), resolution 1 us, target 0.5, increase 2, decrease 0.2, k and
 * the gains 0 (chosen by the master, see above). */
void rtcosim_step_control_init(rtcosim_step_control *sc);

typedef struct rtcosim_step_controller {
    rtcosim_step_control opts;
    double last_norm; /* err_{n-1}; the target before the first step */
    bool settled;     /* a norm has reached the target: the PI law from then on */
    uint64_t steps;
} rtcosim_step_controller;

void rtcosim_step_controller_init(rtcosim_step_controller *ctl, const rtcosim_step_control *opts);
/* The next step from the error norm of the step just taken (PI law of
 * Gustafsson, Lundh and Soederlind 1988, in Soederlind's form with the
 * target in both factors, so that a steady error settles at the target
 * whatever the gains; Hairer & Wanner's form with a safety factor settles at
 * safety^(1/(beta_i - beta_p)), which for gentle gains is far below it):
 *   h_{n+1} = h_n * min(inc, max(dec, (target/err_n)^beta_i * (err_{n-1}/target)^beta_p))
 * then clamped to [min_step, max_step] and rounded down to the resolution.
 * Gentle gains (0.3/k, 0.2/k) keep the step from following each swing of an
 * oscillation's error, which costs steps (B2 case 1). Until a norm first
 * reaches the target, the elementary law (target/err_n)^(1/k) grows a too
 * small initial step as fast as the cap allows. */
rtcosim_time_ns rtcosim_step_controller_next(rtcosim_step_controller *ctl, double err_norm,
                                             rtcosim_time_ns h);

/* Per-connection coupling statistics over a run. The error is E_k, the
 * integrated extrapolation error per reconciled interval. */
typedef struct rtcosim_coupling_stats {
    uint64_t intervals;
    double error_rms, error_max; /* of E_k, in (unit of the signal) * s */
    double last_error;
    bool corrected;              /* the connection has a correction */
} rtcosim_coupling_stats;

/* Per power bond: energy that the coupling created (positive) or destroyed. */
typedef struct rtcosim_bond_stats {
    uint64_t intervals;
    double energy_residual;       /* sum over the run, J for force/velocity */
    double energy_residual_max;   /* largest |residual| of one interval */
    double last_residual;
    /* The part of the residual the corrections injected (the rest comes from
     * the plain estimates): sum over the run and the last interval, J. */
    double correction_energy, last_correction_energy;
} rtcosim_bond_stats;

#ifdef __cplusplus
}
#endif
#endif
