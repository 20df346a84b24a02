/* The two-mass oscillator of benchmark B2: its parameters, the exact solution
 * z(t) = exp(A t) z0 of the monolithic linear system, its energy, and a
 * runner that couples the native mass1/mass2 components through the master
 * and measures the error against the exact solution. Used by the example
 * program, the tests and `rtcosim bench coupling`. */
#ifndef RTCOSIM_OSCILLATOR_H
#define RTCOSIM_OSCILLATOR_H

#include <stdbool.h>

#include "rtcosim/master.h"
#include "rtcosim/native.h"

typedef struct rtcosim_oscillator_params {
    double m1, m2, k1, k2, kc, c1, c2, cc;
    double x1_0, v1_0, x2_0, v2_0;
} rtcosim_oscillator_params;

/* B2 case 1 (undamped), case 2 (all dampers 0.01 N s/m) or case 3 (all
 * dampers 5 N s/m: a transient that decays). */
void rtcosim_oscillator_case(int case_number, rtcosim_oscillator_params *p);

/* The monolithic system z' = A z, z = (x1, v1, x2, v2). */
void rtcosim_oscillator_matrix(const rtcosim_oscillator_params *p, double a[4][4]);
/* exp(M) of a 4x4 matrix by scaling and squaring of the Taylor series
 * (scaled to norm <= 1/2, 24 terms: truncation below 1e-30 relative). */
void rtcosim_expm4(const double m[4][4], double out[4][4]);
/* z(t) = exp(A t) z0. */
void rtcosim_oscillator_exact(const rtcosim_oscillator_params *p, double t, double z[4]);
double rtcosim_oscillator_energy(const rtcosim_oscillator_params *p, const double z[4]);

typedef struct rtcosim_oscillator_setup {
    rtcosim_time_ns macro_step;
    rtcosim_time_ns stop;
    rtcosim_order order;
    rtcosim_coupling_options coupling;
    bool power_bond;         /* declare (mass1.F, mass2.v1) as a power bond */
    unsigned threads;
    rtcosim_step_control step_control; /* .enabled false: fixed step */
    /* Optional: replace a freshly created mass (0: mass1, 1: mass2) by a
     * wrapper of it (e.g. rtcosim_delay_wrap to make it slow), taking
     * ownership of `inner` as rtcosim_delay_wrap does. The masses' direct
     * feedthrough is declared to the master, so it holds for wrappers too. */
    rtcosim_status (*wrap)(void *context, int mass, rtcosim_component *inner,
                           rtcosim_component **out, rtcosim_error *err);
    void *wrap_context;
} rtcosim_oscillator_setup;

/* Defaults: H = 1 ms, 10 s, Jacobi, ZOH without correction, power bond on, 1 thread. */
void rtcosim_oscillator_setup_init(rtcosim_oscillator_setup *s);

/* A master holding mass1 and mass2 with the case's parameters, connected
 * (mass1.x -> mass2.x1, mass1.v -> mass2.v1, mass2.F -> mass1.F) and
 * observing mass1.x, mass1.v, mass2.x, mass2.v; not yet initialized. */
rtcosim_status rtcosim_oscillator_build(const rtcosim_oscillator_params *p,
                                        const rtcosim_oscillator_setup *s,
                                        rtcosim_master **out, rtcosim_error *err);

typedef struct rtcosim_oscillator_result {
    double rms_x1, rms_x2, max_x1, max_x2; /* error against the exact solution, m */
    double rms_error;                      /* sqrt(mean((e_x1^2 + e_x2^2) / 2)) */
    double rms_error_time;                 /* the same weighted by each step's length: the
                                              RMS over time, comparable across step sizes */
    double energy_drift;                   /* |E(T) - E_exact(T)| / E0 (= |E(T) - E0| / E0 in case 1) */
    double final_z[4];
    bool stable;                           /* max error below the exact amplitude */
    uint64_t steps;
    rtcosim_coupling_stats coupling[3];    /* x, v, F connections */
    rtcosim_bond_stats bond;
} rtcosim_oscillator_result;

/* Build, initialize, run to s->stop comparing every macro step with the exact
 * solution, and free. */
rtcosim_status rtcosim_oscillator_run(const rtcosim_oscillator_params *p,
                                      const rtcosim_oscillator_setup *s,
                                      rtcosim_oscillator_result *r, rtcosim_error *err);

#endif
