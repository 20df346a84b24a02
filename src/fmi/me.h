/* The model-exchange calls of FMI 2.0 and 3.0 behind one version-neutral table,
 * so that the integrator (me_solver.c) is written once: me2.c and me3.c fill
 * the table with thin wrappers that map status codes and trace calls. */
#ifndef RTCOSIM_FMI_ME_H
#define RTCOSIM_FMI_ME_H

#include <stdbool.h>
#include <stddef.h>

#include "fmi/fmu_internal.h"

/* Out-arguments of fmi2NewDiscreteStates / fmi3UpdateDiscreteStates. */
typedef struct rtcosim_me_event_info {
    bool discrete_states_need_update;
    bool terminate_simulation;
    bool nominals_changed;
    bool values_changed;
    bool next_event_time_defined;
    double next_event_time; /* seconds */
} rtcosim_me_event_info;

typedef struct rtcosim_me_calls {
    rtcosim_status (*set_time)(rtcosim_fmu *f, double t, rtcosim_error *err);
    rtcosim_status (*set_states)(rtcosim_fmu *f, const double *x, size_t n, rtcosim_error *err);
    rtcosim_status (*get_states)(rtcosim_fmu *f, double *x, size_t n, rtcosim_error *err);
    rtcosim_status (*get_derivatives)(rtcosim_fmu *f, double *dx, size_t n, rtcosim_error *err);
    rtcosim_status (*get_event_indicators)(rtcosim_fmu *f, double *z, size_t n, rtcosim_error *err);
    rtcosim_status (*get_nominals)(rtcosim_fmu *f, double *nominal, size_t n, rtcosim_error *err);
    rtcosim_status (*enter_event_mode)(rtcosim_fmu *f, rtcosim_error *err);
    rtcosim_status (*update_discrete_states)(rtcosim_fmu *f, rtcosim_me_event_info *info,
                                             rtcosim_error *err);
    rtcosim_status (*enter_continuous_time_mode)(rtcosim_fmu *f, rtcosim_error *err);
    rtcosim_status (*completed_integrator_step)(rtcosim_fmu *f, bool no_set_state_prior,
                                                bool *enter_event_mode, bool *terminate,
                                                rtcosim_error *err);
} rtcosim_me_calls;

/* Wrap f->ops with the integrator driving these calls; allocates every
 * vector and scratch array the steps need (none is allocated per step). */
rtcosim_status rtcosim_me_attach(rtcosim_fmu *f, const rtcosim_me_calls *calls,
                                 const rtcosim_fmu_options *opts, rtcosim_error *err);

#endif
