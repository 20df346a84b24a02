/* The thermal plant's equations (a lumped three-node network, energy
 * balance C dT/dt = sum of heat flows) and its three integration variants.
 * The heater element's small heat capacity makes the system stiff: its time
 * constant is about 2 ms while the coolant's is minutes. */
#include <math.h>
#include <stdlib.h>

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include "thermal.h"

/* Heat capacities J/K, conductances W/K, radiation: Stefan-Boltzmann
 * constant times emissivity-area product (m^2). */
static const double C_HEATER = 0.01, C_HOUSING = 50.0, C_COOLANT = 400.0;
static const double G_HEATER_HOUSING = 5.0, G_HOUSING_COOLANT = 20.0, G_COOLANT_AMBIENT = 8.0;
static const double SIGMA = 5.670374419e-8, EPSILON_AREA = 2e-3;

void thermal_derivative(const double *T, double power_w, double *dT)
{
    double radiation = SIGMA * EPSILON_AREA * (pow(T[0], 4) - pow(T[1], 4));
    double q_hb = G_HEATER_HOUSING * (T[0] - T[1]) + radiation;
    double q_bc = G_HOUSING_COOLANT * (T[1] - T[2]);
    double q_ca = G_COOLANT_AMBIENT * (T[2] - THERMAL_T_AMBIENT);
    dT[0] = (power_w - q_hb) / C_HEATER;
    dT[1] = (q_hb - q_bc) / C_HOUSING;
    dT[2] = (q_bc - q_ca) / C_COOLANT;
}

static void deliver(const thermal_state *s, double *outputs)
{
    outputs[0] = s->T[0];
    outputs[1] = s->T[2];
}

rtcosim_status thermal_euler(void *user, rtcosim_anytime_ctx *ctx, rtcosim_time_ns t,
                             rtcosim_time_ns h, const double *inputs, void *state,
                             double *outputs, rtcosim_error *err)
{
    (void)user, (void)ctx, (void)t, (void)err;
    thermal_state *s = state;
    double dT[THERMAL_STATES], dt = rtcosim_time_to_seconds(h);
    thermal_derivative(s->T, inputs[0], dT);
    for (int i = 0; i < THERMAL_STATES; i++)
        s->T[i] += dt * dT[i];
    deliver(s, outputs);
    return RTCOSIM_OK;
}

rtcosim_status thermal_rk4_tenth(void *user, rtcosim_anytime_ctx *ctx, rtcosim_time_ns t,
                                 rtcosim_time_ns h, const double *inputs, void *state,
                                 double *outputs, rtcosim_error *err)
{
    (void)user, (void)t;
    thermal_state *s = state;
    const int steps = 10;
    double dt = rtcosim_time_to_seconds(h) / steps;
    double k1[3], k2[3], k3[3], k4[3], tmp[3];
    for (int n = 0; n < steps; n++) {
        if (rtcosim_anytime_should_abort(ctx))
            return rtcosim_error_set(err, RTCOSIM_ECANCELED, "rk4 aborted");
        /* classical Runge-Kutta (Butcher tableau 0, 1/2, 1/2, 1) */
        thermal_derivative(s->T, inputs[0], k1);
        for (int i = 0; i < 3; i++)
            tmp[i] = s->T[i] + 0.5 * dt * k1[i];
        thermal_derivative(tmp, inputs[0], k2);
        for (int i = 0; i < 3; i++)
            tmp[i] = s->T[i] + 0.5 * dt * k2[i];
        thermal_derivative(tmp, inputs[0], k3);
        for (int i = 0; i < 3; i++)
            tmp[i] = s->T[i] + dt * k3[i];
        thermal_derivative(tmp, inputs[0], k4);
        for (int i = 0; i < 3; i++)
            s->T[i] += dt / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    }
    deliver(s, outputs);
    return RTCOSIM_OK;
}

struct thermal_cvode {
    SUNContext sun;
    N_Vector y;
    SUNMatrix jacobian;
    SUNLinearSolver linear;
    void *cvode;
    double power_w; /* input held over the period */
    double rtol;
};

static int cvode_rhs(realtype t, N_Vector y, N_Vector ydot, void *user)
{
    (void)t;
    thermal_cvode *solver = user;
    thermal_derivative(N_VGetArrayPointer(y), solver->power_w, N_VGetArrayPointer(ydot));
    return 0;
}

thermal_cvode *thermal_cvode_create(double rtol)
{
    thermal_cvode *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->rtol = rtol;
    if (SUNContext_Create(NULL, &s->sun) != 0)
        goto fail;
    s->y = N_VNew_Serial(THERMAL_STATES, s->sun);
    s->jacobian = SUNDenseMatrix(THERMAL_STATES, THERMAL_STATES, s->sun);
    if (!s->y || !s->jacobian)
        goto fail;
    s->linear = SUNLinSol_Dense(s->y, s->jacobian, s->sun);
    s->cvode = CVodeCreate(CV_BDF, s->sun);
    if (!s->linear || !s->cvode)
        goto fail;
    for (int i = 0; i < THERMAL_STATES; i++)
        NV_Ith_S(s->y, i) = THERMAL_T_AMBIENT;
    if (CVodeInit(s->cvode, cvode_rhs, 0.0, s->y) != CV_SUCCESS ||
        CVodeSetUserData(s->cvode, s) != CV_SUCCESS ||
        CVodeSStolerances(s->cvode, rtol, rtol) != CV_SUCCESS ||
        CVodeSetLinearSolver(s->cvode, s->linear, s->jacobian) != CV_SUCCESS ||
        CVodeSetMaxNumSteps(s->cvode, 100000) != CV_SUCCESS)
        goto fail;
    return s;
fail:
    thermal_cvode_free(s);
    return NULL;
}

void thermal_cvode_free(thermal_cvode *s)
{
    if (!s)
        return;
    if (s->cvode)
        CVodeFree(&s->cvode);
    if (s->linear)
        SUNLinSolFree(s->linear);
    if (s->jacobian)
        SUNMatDestroy(s->jacobian);
    if (s->y)
        N_VDestroy(s->y);
    if (s->sun)
        SUNContext_Free(&s->sun);
    free(s);
}

/* CVODE restarts every period from the committed state (another variant may
 * have produced it), integrates in one-step mode up to the stop time and
 * checks for cancellation between its internal steps. */
rtcosim_status thermal_cvode_step(void *user, rtcosim_anytime_ctx *ctx, rtcosim_time_ns t,
                                  rtcosim_time_ns h, const double *inputs, void *state,
                                  double *outputs, rtcosim_error *err)
{
    thermal_cvode *s = user;
    thermal_state *st = state;
    double t0 = rtcosim_time_to_seconds(t), t1 = rtcosim_time_to_seconds(t + h);
    s->power_w = inputs[0];
    for (int i = 0; i < THERMAL_STATES; i++)
        NV_Ith_S(s->y, i) = st->T[i];
    if (CVodeReInit(s->cvode, t0, s->y) != CV_SUCCESS ||
        CVodeSetStopTime(s->cvode, t1) != CV_SUCCESS)
        return rtcosim_error_set(err, RTCOSIM_ECOMPONENT, "cvode: cannot restart at t = %g s", t0);
    double reached = t0;
    while (reached < t1) {
        if (rtcosim_anytime_should_abort(ctx))
            return rtcosim_error_set(err, RTCOSIM_ECANCELED, "cvode aborted");
        int flag = CVode(s->cvode, t1, s->y, &reached, CV_ONE_STEP);
        if (flag < 0)
            return rtcosim_error_set(err, RTCOSIM_ECOMPONENT, "cvode failed at t = %g s (flag %d)",
                                     reached, flag);
        if (flag == CV_TSTOP_RETURN)
            break;
    }
    for (int i = 0; i < THERMAL_STATES; i++)
        st->T[i] = NV_Ith_S(s->y, i);
    deliver(st, outputs);
    return RTCOSIM_OK;
}
