/* A stiff nonlinear thermal plant (electric heater element in a housing with
 * coolant, radiation between element and housing) and three anytime variants
 * computing one period of it: explicit Euler in one step (minimal), RK4 at a
 * tenth of the period (medium) and CVODE BDF at tight tolerance (accurate). */
#ifndef THERMAL_H
#define THERMAL_H

#include "rtcosim/anytime.h"

/* State: temperatures in K of heater element, housing, coolant. */
#define THERMAL_STATES 3

typedef struct thermal_state {
    double T[THERMAL_STATES];
} thermal_state;

/* Ambient temperature, also the initial temperature of every node. */
#define THERMAL_T_AMBIENT 300.0

/* dT/dt for heater power `power_w` (the input). */
void thermal_derivative(const double *T, double power_w, double *dT);

typedef struct thermal_cvode thermal_cvode; /* the accurate variant's solver */

/* Tolerance rtol (atol = rtol K). Returns NULL when SUNDIALS fails. */
thermal_cvode *thermal_cvode_create(double rtol);
void thermal_cvode_free(thermal_cvode *solver);

/* Variants (rtcosim_anytime_fn); inputs[0] is the power, outputs are the
 * heater and coolant temperatures. Euler and RK4 take user = NULL, the CVODE
 * variant its thermal_cvode. */
rtcosim_status thermal_euler(void *user, rtcosim_anytime_ctx *ctx, rtcosim_time_ns t,
                             rtcosim_time_ns h, const double *inputs, void *state,
                             double *outputs, rtcosim_error *err);
rtcosim_status thermal_rk4_tenth(void *user, rtcosim_anytime_ctx *ctx, rtcosim_time_ns t,
                                 rtcosim_time_ns h, const double *inputs, void *state,
                                 double *outputs, rtcosim_error *err);
rtcosim_status thermal_cvode_step(void *user, rtcosim_anytime_ctx *ctx, rtcosim_time_ns t,
                                  rtcosim_time_ns h, const double *inputs, void *state,
                                  double *outputs, rtcosim_error *err);

#endif
