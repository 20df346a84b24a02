/* The plants of the example vehicle as native models, one state each, plain
 * equations integrated with RK4:
 *   engine:   J dw/dt = Tmax * throttle - c w - T_load        (crankshaft)
 *   vehicle:  m dv/dt = F_drive - 1/2 rho CdA v|v| - Crr m g   (longitudinal)
 *   brake:    tau dp/dt = p_cmd - p                            (hydraulics)
 *   cabin:    C dT/dt = Q_heater - k (T - T_ambient)           (thermal)
 * with RK4 on 50 us micro steps. */
#include <math.h>
#include <stddef.h>

#include "rtcosim/native.h"
#include "vehicle.h"

/* RK4 micro steps of 50 us: the plants are simple, but a plant model of a
 * test bench integrates this finely, and its cost is what the ECUs' event
 * handling runs in parallel with. */
#define VEHICLE_PLANT_MICRO_STEP (50 * RTCOSIM_NS_PER_US)

#define P RTCOSIM_CAUSALITY_PARAMETER
#define IN RTCOSIM_CAUSALITY_INPUT
#define OUT RTCOSIM_CAUSALITY_OUTPUT
#define FIX RTCOSIM_VARIABILITY_FIXED
#define CONT RTCOSIM_VARIABILITY_CONTINUOUS

typedef struct engine_data {
    double w;        /* state: crankshaft speed (rad/s) */
    double throttle; /* 0..1 */
    double J, Tmax, c, T_load;
} engine_data;

static const rtcosim_native_variable engine_vars[] = {
    RTCOSIM_NATIVE_F64(engine_data, w, VEHICLE_VR_STATE, OUT, CONT, 84.0, "rad/s", "engine speed", NULL),
    RTCOSIM_NATIVE_F64(engine_data, throttle, VEHICLE_VR_INPUT, IN, CONT, 0, "1", "throttle", NULL),
    RTCOSIM_NATIVE_F64(engine_data, J, 2, P, FIX, 0.25, "kg.m2", "inertia", NULL),
    RTCOSIM_NATIVE_F64(engine_data, Tmax, 3, P, FIX, 250, "N.m", "full-load torque", NULL),
    RTCOSIM_NATIVE_F64(engine_data, c, 4, P, FIX, 0.12, "N.m.s", "friction", NULL),
    RTCOSIM_NATIVE_F64(engine_data, T_load, 5, P, FIX, 8, "N.m", "accessory load", NULL),
};

static void engine_der(void *data, double t, const double *x, double *dx)
{
    (void)t;
    const engine_data *d = data;
    dx[0] = (d->Tmax * d->throttle - d->c * x[0] - d->T_load) / d->J;
}

const rtcosim_native_model ecus_engine_model = {
    .name = "ecus.engine", .description = "crankshaft dynamics",
    .data_size = sizeof(engine_data), .variables = engine_vars,
    .variable_count = sizeof engine_vars / sizeof engine_vars[0], .state_count = 1,
    .states_offset = offsetof(engine_data, w), .integrator = RTCOSIM_NATIVE_RK4,
    .max_micro_step = VEHICLE_PLANT_MICRO_STEP,
    .derivatives = engine_der,
};

typedef struct car_data {
    double v;       /* state: vehicle speed (m/s) */
    double F_drive; /* wheel force (N) */
    double m, CdA, Crr;
} car_data;

static const rtcosim_native_variable car_vars[] = {
    RTCOSIM_NATIVE_F64(car_data, v, VEHICLE_VR_STATE, OUT, CONT, 0, "m/s", "vehicle speed", NULL),
    RTCOSIM_NATIVE_F64(car_data, F_drive, VEHICLE_VR_INPUT, IN, CONT, 0, "N", "wheel force", NULL),
    RTCOSIM_NATIVE_F64(car_data, m, 2, P, FIX, 1500, "kg", "mass", NULL),
    RTCOSIM_NATIVE_F64(car_data, CdA, 3, P, FIX, 0.65, "m2", "drag area", NULL),
    RTCOSIM_NATIVE_F64(car_data, Crr, 4, P, FIX, 0.012, "1", "rolling resistance", NULL),
};

static void car_der(void *data, double t, const double *x, double *dx)
{
    (void)t;
    const car_data *d = data;
    double v = x[0];
    /* rolling resistance acts against motion and vanishes at standstill */
    double rolling = d->Crr * d->m * 9.81 * tanh(v / 0.1);
    double drag = 0.5 * 1.2 * d->CdA * v * fabs(v);
    dx[0] = (d->F_drive - drag - rolling) / d->m;
}

const rtcosim_native_model ecus_car_model = {
    .name = "ecus.longitudinal", .description = "longitudinal vehicle dynamics",
    .data_size = sizeof(car_data), .variables = car_vars,
    .variable_count = sizeof car_vars / sizeof car_vars[0], .state_count = 1,
    .states_offset = offsetof(car_data, v), .integrator = RTCOSIM_NATIVE_RK4,
    .max_micro_step = VEHICLE_PLANT_MICRO_STEP,
    .derivatives = car_der,
};

typedef struct brake_data {
    double p;     /* state: brake pressure (bar) */
    double p_cmd; /* valve command (bar) */
    double tau;
} brake_data;

static const rtcosim_native_variable brake_vars[] = {
    RTCOSIM_NATIVE_F64(brake_data, p, VEHICLE_VR_STATE, OUT, CONT, 0, "bar", "brake pressure", NULL),
    RTCOSIM_NATIVE_F64(brake_data, p_cmd, VEHICLE_VR_INPUT, IN, CONT, 0, "bar", "valve command", NULL),
    RTCOSIM_NATIVE_F64(brake_data, tau, 2, P, FIX, 0.04, "s", "time constant", NULL),
};

static void brake_der(void *data, double t, const double *x, double *dx)
{
    (void)t;
    const brake_data *d = data;
    dx[0] = (d->p_cmd - x[0]) / d->tau;
}

const rtcosim_native_model ecus_brake_model = {
    .name = "ecus.brake", .description = "brake hydraulics",
    .data_size = sizeof(brake_data), .variables = brake_vars,
    .variable_count = sizeof brake_vars / sizeof brake_vars[0], .state_count = 1,
    .states_offset = offsetof(brake_data, p), .integrator = RTCOSIM_NATIVE_RK4,
    .max_micro_step = VEHICLE_PLANT_MICRO_STEP,
    .derivatives = brake_der,
};

typedef struct cabin_data {
    double T;      /* state: cabin temperature (degC) */
    double heater; /* heater power (W) */
    double C, k, T_ambient;
} cabin_data;

static const rtcosim_native_variable cabin_vars[] = {
    RTCOSIM_NATIVE_F64(cabin_data, T, VEHICLE_VR_STATE, OUT, CONT, 5, "degC", "cabin temperature", NULL),
    RTCOSIM_NATIVE_F64(cabin_data, heater, VEHICLE_VR_INPUT, IN, CONT, 0, "W", "heater power", NULL),
    RTCOSIM_NATIVE_F64(cabin_data, C, 2, P, FIX, 20000, "J/K", "heat capacity", NULL),
    RTCOSIM_NATIVE_F64(cabin_data, k, 3, P, FIX, 60, "W/K", "heat loss", NULL),
    RTCOSIM_NATIVE_F64(cabin_data, T_ambient, 4, P, FIX, 5, "degC", "ambient temperature", NULL),
};

static void cabin_der(void *data, double t, const double *x, double *dx)
{
    (void)t;
    const cabin_data *d = data;
    dx[0] = (d->heater - d->k * (x[0] - d->T_ambient)) / d->C;
}

const rtcosim_native_model ecus_cabin_model = {
    .name = "ecus.cabin", .description = "cabin thermal model",
    .data_size = sizeof(cabin_data), .variables = cabin_vars,
    .variable_count = sizeof cabin_vars / sizeof cabin_vars[0], .state_count = 1,
    .states_offset = offsetof(cabin_data, T), .integrator = RTCOSIM_NATIVE_RK4,
    .max_micro_step = VEHICLE_PLANT_MICRO_STEP,
    .derivatives = cabin_der,
};

RTCOSIM_NATIVE_BUILTIN(ecus_engine_model)
RTCOSIM_NATIVE_BUILTIN(ecus_car_model)
RTCOSIM_NATIVE_BUILTIN(ecus_brake_model)
RTCOSIM_NATIVE_BUILTIN(ecus_cabin_model)
