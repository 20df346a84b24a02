/* Native models of the vehicle longitudinal example: a drive scenario, the
 * cruise-control ECU (PI with anti-windup, sampled every 10 ms), a spark-
 * ignition engine (full-load torque map, drag torque, inertia), an automatic
 * transmission (torque converter, 6 gears, shift schedule, clutch-to-clutch
 * shifts, efficiency) and the vehicle body with road load. Parameters are of
 * the published order for a 1.5 t mid-size car with a 2.0 l engine; every one
 * can be set from an .ssv.
 * They register as rtcosim:vehicle.* so that vehicle.ssd can name them. */
#include <math.h>
#include <stddef.h>

#include "rtcosim/native.h"

#define PAR RTCOSIM_CAUSALITY_PARAMETER
#define IN RTCOSIM_CAUSALITY_INPUT
#define OUT RTCOSIM_CAUSALITY_OUTPUT
#define FIXED RTCOSIM_VARIABILITY_FIXED
#define TUNABLE RTCOSIM_VARIABILITY_TUNABLE
#define CONT RTCOSIM_VARIABILITY_CONTINUOUS
#define DISC RTCOSIM_VARIABILITY_DISCRETE
#define RPM_PER_RAD_S (60.0 / (2.0 * M_PI))
#define KMH_PER_M_S 3.6

static double clamp(double x, double lo, double hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

/* Linear interpolation in a table with increasing x, held beyond its ends. */
static double lookup(const double *xs, const double *ys, size_t n, double x)
{
    if (x <= xs[0])
        return ys[0];
    for (size_t i = 1; i < n; i++)
        if (x <= xs[i])
            return ys[i - 1] + (ys[i] - ys[i - 1]) * (x - xs[i - 1]) / (xs[i] - xs[i - 1]);
    return ys[n - 1];
}

/* ---- drive scenario ------------------------------------------------------ */

/* Cruise set-point step (km/h) and a grade section (percent rise over run). */
typedef struct scenario {
    double v_set_initial, v_set_final, t_speed_step;
    double grade_percent, t_grade_start, t_grade_end;
    double v_set, grade;
} scenario;

static void scenario_outputs(void *data, double t)
{
    scenario *s = data;
    s->v_set = t < s->t_speed_step ? s->v_set_initial : s->v_set_final;
    s->grade = t >= s->t_grade_start && t < s->t_grade_end ? s->grade_percent : 0.0;
}

static rtcosim_status scenario_step(void *data, const rtcosim_native_context *ctx, double t,
                                    double h, rtcosim_error *err)
{
    (void)data, (void)ctx, (void)t, (void)h, (void)err;
    return RTCOSIM_OK; /* the outputs are functions of time alone */
}

static const rtcosim_native_variable scenario_vars[] = {
    RTCOSIM_NATIVE_F64(scenario, v_set_initial, 0, PAR, FIXED, 50.0, "km/h", "set speed before the step", NULL),
    RTCOSIM_NATIVE_F64(scenario, v_set_final, 1, PAR, FIXED, 100.0, "km/h", "set speed after the step", NULL),
    RTCOSIM_NATIVE_F64(scenario, t_speed_step, 2, PAR, FIXED, 10.0, "s", "time of the set-speed step", NULL),
    RTCOSIM_NATIVE_F64(scenario, grade_percent, 3, PAR, FIXED, 4.0, "%", "road grade of the hill", NULL),
    RTCOSIM_NATIVE_F64(scenario, t_grade_start, 4, PAR, FIXED, 60.0, "s", "start of the hill", NULL),
    RTCOSIM_NATIVE_F64(scenario, t_grade_end, 5, PAR, FIXED, 90.0, "s", "end of the hill", NULL),
    RTCOSIM_NATIVE_F64(scenario, v_set, 6, OUT, DISC, 50.0, "km/h", "cruise set speed", NULL),
    RTCOSIM_NATIVE_F64(scenario, grade, 7, OUT, DISC, 0.0, "%", "road grade", NULL),
};

static const rtcosim_native_model vehicle_scenario = {
    .name = "vehicle.scenario",
    .description = "cruise set-speed step and a hill",
    .data_size = sizeof(scenario),
    .variables = scenario_vars,
    .variable_count = sizeof scenario_vars / sizeof scenario_vars[0],
    .integrator = RTCOSIM_NATIVE_OWN_STEP,
    .can_handle_variable_step = true,
    .outputs = scenario_outputs,
    .step = scenario_step,
};
RTCOSIM_NATIVE_BUILTIN(vehicle_scenario)

/* ---- cruise-control ECU -------------------------------------------------- */

/* Discrete PI speed controller as it runs in an ECU task: every sample_time
 * it reads the measured and set speed and writes the throttle, which holds
 * until the next sample (zero-order hold). Anti-windup by conditional
 * integration (the integrator freezes while the output is saturated and the
 * error would drive it further into saturation; Astrom & Hagglund, Advanced
 * PID Control, 2006, sec. 3.5). */
typedef struct cruise_ecu {
    double kp, ki, sample_time, throttle_initial;
    double v_set, v;
    double throttle, integral, next_sample;
} cruise_ecu;

static rtcosim_status ecu_init(void *data, const rtcosim_native_context *ctx, rtcosim_error *err)
{
    (void)ctx;
    cruise_ecu *e = data;
    if (!(e->sample_time > 0))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "sample_time must be positive");
    /* Bumpless start: the integrator holds the initial throttle. */
    e->throttle = clamp(e->throttle_initial, 0.0, 1.0);
    e->integral = e->throttle;
    e->next_sample = 0.0;
    return RTCOSIM_OK;
}

static void ecu_sample(cruise_ecu *e)
{
    double error = e->v_set - e->v; /* m/s */
    double unclamped = e->kp * error + e->integral;
    bool saturated_high = unclamped >= 1.0 && error > 0;
    bool saturated_low = unclamped <= 0.0 && error < 0;
    if (!saturated_high && !saturated_low)
        e->integral += e->ki * error * e->sample_time;
    e->throttle = clamp(e->kp * error + e->integral, 0.0, 1.0);
}

static rtcosim_status ecu_step(void *data, const rtcosim_native_context *ctx, double t, double h,
                               rtcosim_error *err)
{
    (void)err;
    cruise_ecu *e = data;
    /* Every sample instant inside [t, t + h), with the inputs of that instant
     * (a tolerance of 1 ns keeps instants on the grid from slipping). */
    while (e->next_sample < t + h - 1e-9) {
        if (e->next_sample >= t - 1e-9) {
            rtcosim_native_inputs_at(ctx, e->next_sample);
            ecu_sample(e);
        }
        e->next_sample += e->sample_time;
    }
    return RTCOSIM_OK;
}

static const rtcosim_native_variable ecu_vars[] = {
    RTCOSIM_NATIVE_F64(cruise_ecu, kp, 0, PAR, TUNABLE, 0.25, "1/(m/s)", "proportional gain", NULL),
    RTCOSIM_NATIVE_F64(cruise_ecu, ki, 1, PAR, TUNABLE, 0.04, "1/m", "integral gain", NULL),
    RTCOSIM_NATIVE_F64(cruise_ecu, sample_time, 2, PAR, FIXED, 0.01, "s", "ECU task period", NULL),
    RTCOSIM_NATIVE_F64(cruise_ecu, throttle_initial, 3, PAR, FIXED, 0.22, "1", "throttle before the first sample", NULL),
    RTCOSIM_NATIVE_F64(cruise_ecu, v_set, 4, IN, DISC, 13.89, "m/s", "set speed", NULL),
    RTCOSIM_NATIVE_F64(cruise_ecu, v, 5, IN, CONT, 13.89, "m/s", "measured vehicle speed", NULL),
    RTCOSIM_NATIVE_F64(cruise_ecu, throttle, 6, OUT, DISC, 0.22, "1", "throttle command 0..1", NULL),
};

static const rtcosim_native_model vehicle_ecu = {
    .name = "vehicle.ecu",
    .description = "cruise control: PI with anti-windup, sampled",
    .data_size = sizeof(cruise_ecu),
    .variables = ecu_vars,
    .variable_count = sizeof ecu_vars / sizeof ecu_vars[0],
    .integrator = RTCOSIM_NATIVE_OWN_STEP,
    .can_handle_variable_step = true,
    .init = ecu_init,
    .step = ecu_step,
};
RTCOSIM_NATIVE_BUILTIN(vehicle_ecu)

/* ---- engine -------------------------------------------------------------- */

/* Full-load (wide-open throttle) torque of a 2.0 l naturally aspirated
 * petrol engine, N m over rpm (peak ~200 N m at 4000-4500 rpm). */
static const double wot_rpm[] = {600, 1000, 1500, 2500, 3500, 4500, 5500, 6500};
static const double wot_torque[] = {95, 130, 155, 185, 200, 198, 182, 150};

/* J dw/dt = T_e - T_load with T_e = thr * T_wot(w) + (1 - thr) * T_drag(w):
 * the throttle blends between the full-load curve and the motoring (friction
 * and pumping) torque T_drag = -(c0 + c1 w), about -25 N m at 3000 rpm for a
 * 2.0 l engine (FMEP ~1.5 bar: T = FMEP Vd / 4 pi). A proportional idle
 * governor keeps the engine above idle speed; a rev limiter cuts at the top. */
typedef struct engine {
    double inertia, drag_c0, drag_c1, idle_rpm, idle_gain, rev_limit_rpm, rpm_initial;
    double throttle, load_torque;
    double torque, rpm, throttle_effective;
    double omega; /* state */
} engine;

static double engine_torque(const engine *e, double omega, double *throttle_effective)
{
    double rpm = omega * RPM_PER_RAD_S;
    double thr = clamp(e->throttle, 0.0, 1.0);
    double idle = clamp(e->idle_gain * (e->idle_rpm - rpm), 0.0, 1.0);
    if (idle > thr)
        thr = idle;
    if (rpm > e->rev_limit_rpm)
        thr = 0.0;
    if (throttle_effective)
        *throttle_effective = thr;
    double wot = lookup(wot_rpm, wot_torque, sizeof wot_rpm / sizeof wot_rpm[0], rpm);
    double drag = -(e->drag_c0 + e->drag_c1 * omega);
    return thr * wot + (1.0 - thr) * drag;
}

static rtcosim_status engine_init(void *data, const rtcosim_native_context *ctx, rtcosim_error *err)
{
    (void)ctx;
    engine *e = data;
    if (!(e->inertia > 0))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "inertia must be positive");
    e->omega = e->rpm_initial / RPM_PER_RAD_S;
    return RTCOSIM_OK;
}

static void engine_derivatives(void *data, double t, const double *x, double *dx)
{
    (void)t;
    engine *e = data;
    dx[0] = (engine_torque(e, x[0], NULL) - e->load_torque) / e->inertia;
}

static void engine_outputs(void *data, double t)
{
    (void)t;
    engine *e = data;
    e->torque = engine_torque(e, e->omega, &e->throttle_effective);
    e->rpm = e->omega * RPM_PER_RAD_S;
}

static const rtcosim_native_variable engine_vars[] = {
    RTCOSIM_NATIVE_F64(engine, inertia, 0, PAR, FIXED, 0.2, "kg.m2", "crankshaft, flywheel and pump inertia", NULL),
    RTCOSIM_NATIVE_F64(engine, drag_c0, 1, PAR, FIXED, 12.0, "N.m", "motoring torque at zero speed", NULL),
    RTCOSIM_NATIVE_F64(engine, drag_c1, 2, PAR, FIXED, 0.04, "N.m.s/rad", "motoring torque per rad/s", NULL),
    RTCOSIM_NATIVE_F64(engine, idle_rpm, 3, PAR, FIXED, 750.0, "rpm", "idle speed", NULL),
    RTCOSIM_NATIVE_F64(engine, idle_gain, 4, PAR, FIXED, 0.005, "1/rpm", "idle governor gain", NULL),
    RTCOSIM_NATIVE_F64(engine, rev_limit_rpm, 5, PAR, FIXED, 6500.0, "rpm", "fuel cut-off speed", NULL),
    RTCOSIM_NATIVE_F64(engine, rpm_initial, 6, PAR, FIXED, 1750.0, "rpm", "speed at start", NULL),
    RTCOSIM_NATIVE_F64(engine, throttle, 7, IN, DISC, 0.22, "1", "throttle 0..1", NULL),
    RTCOSIM_NATIVE_F64(engine, load_torque, 8, IN, CONT, 0.0, "N.m", "torque converter pump torque", NULL),
    RTCOSIM_NATIVE_F64(engine, torque, 9, OUT, CONT, 0.0, "N.m", "indicated minus friction torque", "throttle"),
    RTCOSIM_NATIVE_F64(engine, rpm, 10, OUT, CONT, 1750.0, "rpm", "engine speed", NULL),
    RTCOSIM_NATIVE_F64(engine, throttle_effective, 11, OUT, CONT, 0.22, "1", "throttle after idle governor and rev limiter", "throttle"),
    RTCOSIM_NATIVE_F64(engine, omega, 12, OUT, CONT, 183.26, "rad/s", "engine speed", NULL),
};

static const rtcosim_native_model vehicle_engine = {
    .name = "vehicle.engine",
    .description = "2.0 l petrol engine: torque map, drag, idle governor, inertia",
    .data_size = sizeof(engine),
    .variables = engine_vars,
    .variable_count = sizeof engine_vars / sizeof engine_vars[0],
    .state_count = 1,
    .states_offset = offsetof(engine, omega),
    .integrator = RTCOSIM_NATIVE_RK4,
    .max_micro_step = RTCOSIM_NS_PER_MS / 2,
    .can_handle_variable_step = true,
    .max_input_derivative_order = 2,
    .init = engine_init,
    .derivatives = engine_derivatives,
    .outputs = engine_outputs,
};
RTCOSIM_NATIVE_BUILTIN(vehicle_engine)

/* ---- automatic transmission ---------------------------------------------- */

/* Torque converter characteristics over the speed ratio SR = w_turbine/w_pump:
 * capacity factor K (rpm / sqrt(N m)) with pump torque T_p = (n_p / K)^2, and
 * torque ratio TR = T_turbine / T_p (Kotwicki, SAE 820393, 1982: the usual
 * K-factor model of a converter). K grows without bound towards coupling;
 * the table stops at 0.995. */
static const double tc_sr[] = {0.0, 0.2, 0.4, 0.6, 0.7, 0.8, 0.87, 0.92, 0.96, 0.985, 0.995};
static const double tc_k[] = {130, 131, 133, 138, 143, 152, 165, 190, 250, 420, 800};
static const double tc_tr_sr[] = {0.0, 0.87, 1.0};
static const double tc_tr[] = {2.0, 1.0, 1.0};

#define GEAR_COUNT 6

/* Six-speed automatic (ratios of the Aisin TF-60SN class), final drive,
 * a lumped mechanical efficiency, and a shift schedule over vehicle speed
 * that rises with throttle (later upshifts under load), with hysteresis and a
 * minimum time between shifts so that the gear does not hunt.
 *
 * Shifts are clutch-to-clutch power shifts (Naunheimer, Bertsche, Ryborz,
 * Novak: Automotive Transmissions, 2nd ed., Springer 2011, and
 * Hrovat & Tobler, "Bond graph modeling and computer simulation of
 * automotive torque converters", J. Franklin Inst. 319, 1985, for the
 * turbine side): the gearbox output is rigid with the wheels, and the
 * turbine (with the input shaft and clutch drums, J_t) is rigid with the
 * gearbox input except while a clutch slips. A shift has
 *  - a torque phase (t_tp, ~0.1-0.2 s): at unchanged turbine speed the
 *    turbine torque T_t is handed over linearly from one gear's clutch to the
 *    other's; the output torque moves between T_t i_from and T_t i_to;
 *  - an inertia phase (~0.2-0.5 s): one clutch slips and transmits its
 *    capacity T_c, J_t dw_t/dt = T_t - T_c, while the shift control sets
 *    T_c = T_t - J_t a so that the turbine speed ramps at a = (w_sync,to -
 *    w_t,0) / t_ip towards the new synchronous speed; the clutch locks up
 *    when the turbine reaches it.
 * A clutch passes torque only in the direction of its slip: between the two
 * synchronous speeds the clutch of the higher gear (smaller ratio) can pass
 * only T_c >= 0, that of the lower gear only T_c <= 0. So under drive (T_t >= 0)
 * the higher gear's clutch carries the inertia phase: an upshift does the
 * torque phase first, a (kick)down shift lets the off-going clutch slip at a
 * reduced capacity, the engine flares up to the new synchronous speed, and
 * the torque phase follows. On coast (T_t < 0) it is the other way round.
 * Should the drive reverse mid-shift (throttle lifted during a kickdown flare)
 * so that the turbine stalls between the two speeds, the control engages
 * whichever clutch the ramp needs after twice the inertia phase time. */
typedef struct transmission {
    double ratio_1, ratio_2, ratio_3, ratio_4, ratio_5, ratio_6;
    double final_drive, efficiency, wheel_radius, shift_hysteresis, min_shift_interval;
    double engine_speed, vehicle_speed, throttle;
    double pump_torque, traction_force, gear, turbine_rpm, speed_ratio;
    double turbine_inertia, torque_phase_time, inertia_phase_time, clutch_capacity_max;
    double last_shift_time;
    /* Shift state: phase (SHIFT_*), the gears shifted from and to, the
     * phase's start time, the inertia phase's turbine acceleration and
     * drive sign, the torque the slipping clutch carried at lock-up. */
    double phase, from_gear, phase_start, turbine_accel, drive_sign, handover_torque;
    double turbine_speed; /* state while a clutch slips (rad/s) */
} transmission;

enum { SHIFT_NONE, SHIFT_TORQUE_FIRST, SHIFT_INERTIA, SHIFT_TORQUE_AFTER };

/* Euler sub-step of the turbine during the inertia phase: well below the
 * turbine's time constant J_t / (dT_t/dw_t) of a few ms near coupling. */
#define TURBINE_SUBSTEP 1e-4

static double gear_ratio(const transmission *tr, int gear)
{
    const double ratios[GEAR_COUNT] = {tr->ratio_1, tr->ratio_2, tr->ratio_3,
                                       tr->ratio_4, tr->ratio_5, tr->ratio_6};
    int index = gear < 1 ? 0 : gear > GEAR_COUNT ? GEAR_COUNT - 1 : gear - 1;
    return ratios[index] * tr->final_drive;
}

/* Upshift speed out of `gear` (km/h) at a given throttle. */
static double upshift_kmh(int gear, double throttle)
{
    static const double base[GEAR_COUNT - 1] = {12, 25, 40, 55, 70};
    static const double per_throttle[GEAR_COUNT - 1] = {25, 40, 50, 55, 60};
    return base[gear - 1] + per_throttle[gear - 1] * clamp(throttle, 0.0, 1.0);
}

static int schedule_gear(const transmission *tr, int gear, double v, double throttle)
{
    double kmh = v * KMH_PER_M_S;
    if (gear < GEAR_COUNT && kmh > upshift_kmh(gear, throttle))
        return gear + 1;
    if (gear > 1 && kmh < upshift_kmh(gear - 1, throttle) - tr->shift_hysteresis)
        return gear - 1;
    return gear;
}

/* The gear the schedule gives from first gear at the current inputs: the
 * starting gear, chosen once the inputs (vehicle speed) are known. */
static int starting_gear(const transmission *tr)
{
    int gear = 1;
    for (int g = schedule_gear(tr, gear, tr->vehicle_speed, tr->throttle); g != gear;
         g = schedule_gear(tr, gear, tr->vehicle_speed, tr->throttle))
        gear = g;
    return gear;
}

/* K over the speed ratio; beyond the table's last point (0.995) K grows as
 * 1 / (1 - SR), so that the converter's torque falls to zero at coupling. */
static double capacity_factor(double sr)
{
    size_t n = sizeof tc_sr / sizeof tc_sr[0];
    if (sr > tc_sr[n - 1])
        return tc_k[n - 1] * (1.0 - tc_sr[n - 1]) / fmax(1.0 - sr, 1e-6);
    return lookup(tc_sr, tc_k, n, sr);
}

/* Turbine speed if locked to `gear` at vehicle speed v. */
static double sync_speed(const transmission *tr, int gear, double v)
{
    return v / tr->wheel_radius * gear_ratio(tr, gear);
}

/* Converter torques at pump speed w_pump and turbine speed w_turbine. */
static void converter(double w_pump, double w_turbine, double *pump, double *turbine)
{
    double n_pump = w_pump * RPM_PER_RAD_S;
    double sr = w_turbine / w_pump;
    if (sr <= 1.0) {
        double k = capacity_factor(sr);
        *pump = (n_pump / k) * (n_pump / k);
        *turbine = *pump * lookup(tc_tr_sr, tc_tr, 3, sr);
    } else {
        /* Overrun (engine braking): the turbine drives the pump. The converter
         * works as a fluid coupling in reverse, with the roles of pump and
         * turbine swapped: capacity at the mirrored ratio 1/SR, no torque
         * multiplication. */
        double n_turbine = w_turbine * RPM_PER_RAD_S;
        double k = capacity_factor(1.0 / sr);
        *pump = -(n_turbine / k) * (n_turbine / k);
        *turbine = *pump;
    }
}

/* Torque of the slipping clutch in the inertia phase: the capacity the shift
 * control sets for the turbine ramp, passed only in its slip direction and
 * bounded by the clutch's largest capacity. */
static double slipping_clutch_torque(const transmission *tr, double turbine_torque)
{
    double tc = turbine_torque - tr->turbine_inertia * tr->turbine_accel;
    double lo = tr->drive_sign > 0 ? 0.0 : -tr->clutch_capacity_max;
    double hi = tr->drive_sign < 0 ? 0.0 : tr->clutch_capacity_max;
    return clamp(tc, lo, hi);
}

/* Where the turbine and the output stand at time t with the current inputs. */
typedef struct drive_state {
    double w_turbine, pump, turbine, output; /* output: N m at the wheels, before losses */
    double clutch; /* the slipping clutch's torque in the inertia phase */
} drive_state;

static drive_state drive_at(const transmission *tr, double t)
{
    int to = (int)tr->gear, from = (int)tr->from_gear;
    double v = tr->vehicle_speed, w_pump = fmax(tr->engine_speed, 1e-3);
    double alpha = clamp((t - tr->phase_start) / tr->torque_phase_time, 0.0, 1.0);
    drive_state s = {0};
    switch ((int)tr->phase) {
    case SHIFT_TORQUE_FIRST: /* locked in the old gear, the new clutch takes over */
        s.w_turbine = sync_speed(tr, from, v);
        converter(w_pump, s.w_turbine, &s.pump, &s.turbine);
        s.output = s.turbine * (alpha * gear_ratio(tr, to) + (1.0 - alpha) * gear_ratio(tr, from));
        break;
    case SHIFT_INERTIA: {
        s.w_turbine = tr->turbine_speed;
        converter(w_pump, s.w_turbine, &s.pump, &s.turbine);
        s.clutch = slipping_clutch_torque(tr, s.turbine);
        double i_from = gear_ratio(tr, from), i_to = gear_ratio(tr, to);
        s.output = s.clutch * (s.clutch >= 0 ? fmin(i_from, i_to) : fmax(i_from, i_to));
        break;
    }
    case SHIFT_TORQUE_AFTER: { /* locked in the new gear, the old clutch lets go */
        s.w_turbine = sync_speed(tr, to, v);
        converter(w_pump, s.w_turbine, &s.pump, &s.turbine);
        double old = (1.0 - alpha) * tr->handover_torque;
        s.output = old * gear_ratio(tr, from) + (s.turbine - old) * gear_ratio(tr, to);
        break;
    }
    default:
        s.w_turbine = sync_speed(tr, to, v);
        converter(w_pump, s.w_turbine, &s.pump, &s.turbine);
        s.output = s.turbine * gear_ratio(tr, to);
        break;
    }
    return s;
}

static void transmission_outputs(void *data, double t)
{
    transmission *tr = data;
    drive_state s = drive_at(tr, t);
    /* Losses always take power away: divide by the efficiency on overrun. */
    double wheel_torque = s.output * (s.output >= 0 ? tr->efficiency : 1.0 / tr->efficiency);
    tr->pump_torque = s.pump;
    tr->traction_force = wheel_torque / tr->wheel_radius;
    tr->turbine_rpm = s.w_turbine * RPM_PER_RAD_S;
    tr->speed_ratio = s.w_turbine / fmax(tr->engine_speed, 1e-3);
}

static rtcosim_status transmission_init(void *data, const rtcosim_native_context *ctx,
                                        rtcosim_error *err)
{
    (void)ctx;
    transmission *tr = data;
    if (!(tr->wheel_radius > 0) || !(tr->final_drive > 0) || !(tr->efficiency > 0) ||
        tr->efficiency > 1)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "wheel_radius and final_drive must be positive, efficiency in (0, 1]");
    if (!(tr->turbine_inertia > 0) || !(tr->torque_phase_time > 0) ||
        !(tr->inertia_phase_time > 0) || !(tr->clutch_capacity_max > 0))
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "turbine_inertia, torque_phase_time, inertia_phase_time and "
                                 "clutch_capacity_max must be positive");
    tr->gear = starting_gear(tr);
    tr->from_gear = tr->gear;
    tr->phase = SHIFT_NONE;
    tr->last_shift_time = -1e9;
    return RTCOSIM_OK;
}

/* Start the inertia phase at time t: the turbine leaves the old gear's
 * synchronous speed and ramps to the new one in inertia_phase_time. */
static void start_inertia_phase(transmission *tr, double t)
{
    double v = tr->vehicle_speed;
    tr->turbine_speed = sync_speed(tr, (int)tr->from_gear, v);
    tr->turbine_accel = (sync_speed(tr, (int)tr->gear, v) - tr->turbine_speed) / tr->inertia_phase_time;
    tr->phase = SHIFT_INERTIA;
    tr->phase_start = t;
}

/* Phase changes at time t (inputs already at t). The shift schedule is
 * consulted only at the end of a step (`may_start`), as before shifts had
 * phases, so that the shift instants do not depend on the sub-step. */
static void advance_shift(transmission *tr, double t, bool may_start)
{
    switch ((int)tr->phase) {
    case SHIFT_NONE: {
        if (!may_start || t - tr->last_shift_time < tr->min_shift_interval)
            return;
        int gear = (int)tr->gear;
        int next = schedule_gear(tr, gear, tr->vehicle_speed, tr->throttle);
        if (next == gear)
            return;
        tr->drive_sign = drive_at(tr, t).turbine >= 0 ? 1.0 : -1.0;
        tr->from_gear = gear;
        tr->gear = next;
        tr->last_shift_time = t;
        /* The inertia phase runs on the higher gear's clutch under drive, on
         * the lower gear's on coast: when that is the new gear's clutch it
         * must take over the torque first. */
        bool upshift = next > gear;
        if (upshift == (tr->drive_sign > 0)) {
            tr->phase = SHIFT_TORQUE_FIRST;
            tr->phase_start = t;
        } else {
            start_inertia_phase(tr, t);
        }
        return;
    }
    case SHIFT_TORQUE_FIRST:
        if (t - tr->phase_start >= tr->torque_phase_time)
            start_inertia_phase(tr, t);
        return;
    case SHIFT_INERTIA: {
        double dir = tr->turbine_accel >= 0 ? 1.0 : -1.0;
        double w_to = sync_speed(tr, (int)tr->gear, tr->vehicle_speed);
        double w_from = sync_speed(tr, (int)tr->from_gear, tr->vehicle_speed);
        if (dir * (tr->turbine_speed - w_to) >= 0) { /* synchronized: lock up */
            /* The slipping clutch was the higher gear's if it passed T_c >= 0:
             * if that is the old gear, it still has to hand its torque over. */
            double clutch = drive_at(tr, t).clutch;
            bool slipping_is_old = (clutch >= 0) == (tr->from_gear > tr->gear);
            if (slipping_is_old && clutch != 0) {
                tr->handover_torque = clutch;
                tr->phase = SHIFT_TORQUE_AFTER;
                tr->phase_start = t;
            } else {
                tr->phase = SHIFT_NONE;
                tr->from_gear = tr->gear;
            }
        } else if (dir * (tr->turbine_speed - w_from) < 0) {
            /* Drive reversed mid-shift and the turbine fell back: the old
             * gear's clutch grips again; the shift is abandoned. */
            tr->gear = tr->from_gear;
            tr->phase = SHIFT_NONE;
        } else if (t - tr->phase_start > 2.0 * tr->inertia_phase_time) {
            tr->drive_sign = 0.0; /* stalled: either clutch may act */
        }
        return;
    }
    case SHIFT_TORQUE_AFTER:
        if (t - tr->phase_start >= tr->torque_phase_time) {
            tr->phase = SHIFT_NONE;
            tr->from_gear = tr->gear;
        }
        return;
    default:
        return;
    }
}

static rtcosim_status transmission_step(void *data, const rtcosim_native_context *ctx, double t,
                                        double h, rtcosim_error *err)
{
    (void)err;
    transmission *tr = data;
    /* Explicit Euler on the turbine in sub-steps, the phase logic after each. */
    int n = (int)ceil(h / TURBINE_SUBSTEP - 1e-9);
    if (n < 1)
        n = 1;
    double dt = h / n;
    for (int i = 0; i < n; i++) {
        double ti = t + i * dt;
        if ((int)tr->phase == SHIFT_INERTIA) {
            rtcosim_native_inputs_at(ctx, ti);
            drive_state s = drive_at(tr, ti);
            tr->turbine_speed += dt * (s.turbine - s.clutch) / tr->turbine_inertia;
        }
        rtcosim_native_inputs_at(ctx, ti + dt);
        advance_shift(tr, ti + dt, i == n - 1);
    }
    return RTCOSIM_OK;
}

static const rtcosim_native_variable transmission_vars[] = {
    RTCOSIM_NATIVE_F64(transmission, ratio_1, 0, PAR, FIXED, 4.148, "1", "1st gear ratio", NULL),
    RTCOSIM_NATIVE_F64(transmission, ratio_2, 1, PAR, FIXED, 2.370, "1", "2nd gear ratio", NULL),
    RTCOSIM_NATIVE_F64(transmission, ratio_3, 2, PAR, FIXED, 1.556, "1", "3rd gear ratio", NULL),
    RTCOSIM_NATIVE_F64(transmission, ratio_4, 3, PAR, FIXED, 1.155, "1", "4th gear ratio", NULL),
    RTCOSIM_NATIVE_F64(transmission, ratio_5, 4, PAR, FIXED, 0.859, "1", "5th gear ratio", NULL),
    RTCOSIM_NATIVE_F64(transmission, ratio_6, 5, PAR, FIXED, 0.686, "1", "6th gear ratio", NULL),
    RTCOSIM_NATIVE_F64(transmission, final_drive, 6, PAR, FIXED, 3.460, "1", "final drive ratio", NULL),
    RTCOSIM_NATIVE_F64(transmission, efficiency, 7, PAR, FIXED, 0.95, "1", "gearbox and final drive efficiency", NULL),
    RTCOSIM_NATIVE_F64(transmission, wheel_radius, 8, PAR, FIXED, 0.31, "m", "dynamic rolling radius", NULL),
    RTCOSIM_NATIVE_F64(transmission, shift_hysteresis, 9, PAR, FIXED, 8.0, "km/h", "downshift below upshift speed by", NULL),
    RTCOSIM_NATIVE_F64(transmission, min_shift_interval, 10, PAR, FIXED, 1.0, "s", "shortest time between shifts", NULL),
    RTCOSIM_NATIVE_F64(transmission, engine_speed, 11, IN, CONT, 183.26, "rad/s", "pump (engine) speed", NULL),
    RTCOSIM_NATIVE_F64(transmission, vehicle_speed, 12, IN, CONT, 13.89, "m/s", "vehicle speed", NULL),
    RTCOSIM_NATIVE_F64(transmission, throttle, 13, IN, DISC, 0.22, "1", "throttle (for the shift schedule)", NULL),
    RTCOSIM_NATIVE_F64(transmission, pump_torque, 14, OUT, CONT, 0.0, "N.m", "load torque on the engine", "engine_speed,vehicle_speed"),
    RTCOSIM_NATIVE_F64(transmission, traction_force, 15, OUT, CONT, 0.0, "N", "force at the tyre contact", "engine_speed,vehicle_speed"),
    RTCOSIM_NATIVE_F64(transmission, gear, 16, OUT, DISC, 0.0, "1", "gear engaged or being shifted to (0 until the inputs are known)", "vehicle_speed,throttle"),
    RTCOSIM_NATIVE_F64(transmission, turbine_rpm, 17, OUT, CONT, 0.0, "rpm", "turbine speed", "vehicle_speed"),
    RTCOSIM_NATIVE_F64(transmission, speed_ratio, 18, OUT, CONT, 0.0, "1", "converter speed ratio", "engine_speed,vehicle_speed"),
    RTCOSIM_NATIVE_F64(transmission, turbine_inertia, 19, PAR, FIXED, 0.06, "kg.m2", "turbine, input shaft and clutch drums", NULL),
    RTCOSIM_NATIVE_F64(transmission, torque_phase_time, 20, PAR, FIXED, 0.15, "s", "torque hand-over between the clutches", NULL),
    RTCOSIM_NATIVE_F64(transmission, inertia_phase_time, 21, PAR, FIXED, 0.35, "s", "turbine speed change to the new gear", NULL),
    RTCOSIM_NATIVE_F64(transmission, clutch_capacity_max, 22, PAR, FIXED, 800.0, "N.m", "largest torque a shift clutch can pass", NULL),
};

static const rtcosim_native_model vehicle_transmission = {
    .name = "vehicle.transmission",
    .description = "torque converter and 6-speed automatic with shift schedule and clutch-to-clutch shifts",
    .data_size = sizeof(transmission),
    .variables = transmission_vars,
    .variable_count = sizeof transmission_vars / sizeof transmission_vars[0],
    .integrator = RTCOSIM_NATIVE_OWN_STEP,
    .can_handle_variable_step = true,
    .init = transmission_init,
    .outputs = transmission_outputs,
    .step = transmission_step,
};
RTCOSIM_NATIVE_BUILTIN(vehicle_transmission)

/* ---- vehicle body -------------------------------------------------------- */

/* Longitudinal dynamics (Gillespie, Fundamentals of Vehicle Dynamics, 1992,
 * ch. 4; Guzzella & Sciarretta, Vehicle Propulsion Systems, 2013, eq. 2.1):
 *   m_eff dv/dt = F_traction - 1/2 rho CdA v|v| - Crr m g cos(theta) - m g sin(theta)
 * with m_eff = m + J_wheels / r^2 and theta = atan(grade / 100). Rolling
 * resistance fades smoothly to zero at standstill (tanh over 0.1 m/s) so the
 * car does not roll backwards from it. */
typedef struct body {
    double mass, cda, air_density, crr, gravity, wheel_inertia, wheel_radius, v_initial;
    double traction_force, grade;
    double speed_kmh, acceleration, aero_force, rolling_force, grade_force;
    /* States, published directly as outputs. */
    double speed, distance;
} body;

static void road_load(const body *b, double v, double *aero, double *roll, double *grade)
{
    double theta = atan(b->grade / 100.0);
    *aero = 0.5 * b->air_density * b->cda * v * fabs(v);
    *roll = b->crr * b->mass * b->gravity * cos(theta) * tanh(v / 0.1);
    *grade = b->mass * b->gravity * sin(theta);
}

static double effective_mass(const body *b)
{
    return b->mass + b->wheel_inertia / (b->wheel_radius * b->wheel_radius);
}

static rtcosim_status body_init(void *data, const rtcosim_native_context *ctx, rtcosim_error *err)
{
    (void)ctx;
    body *b = data;
    if (!(b->mass > 0) || !(b->wheel_radius > 0))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "mass and wheel_radius must be positive");
    b->speed = b->v_initial;
    b->distance = 0.0;
    return RTCOSIM_OK;
}

static void body_derivatives(void *data, double t, const double *x, double *dx)
{
    (void)t;
    body *b = data;
    double aero, roll, grade;
    road_load(b, x[0], &aero, &roll, &grade);
    dx[0] = (b->traction_force - aero - roll - grade) / effective_mass(b);
    dx[1] = x[0];
}

static void body_outputs(void *data, double t)
{
    (void)t;
    body *b = data;
    road_load(b, b->speed, &b->aero_force, &b->rolling_force, &b->grade_force);
    b->acceleration =
        (b->traction_force - b->aero_force - b->rolling_force - b->grade_force) / effective_mass(b);
    b->speed_kmh = b->speed * KMH_PER_M_S;
}

static const rtcosim_native_variable body_vars[] = {
    RTCOSIM_NATIVE_F64(body, mass, 0, PAR, FIXED, 1500.0, "kg", "vehicle mass", NULL),
    RTCOSIM_NATIVE_F64(body, cda, 1, PAR, FIXED, 0.7, "m2", "drag coefficient times frontal area", NULL),
    RTCOSIM_NATIVE_F64(body, air_density, 2, PAR, FIXED, 1.2, "kg/m3", "air density", NULL),
    RTCOSIM_NATIVE_F64(body, crr, 3, PAR, FIXED, 0.012, "1", "rolling resistance coefficient", NULL),
    RTCOSIM_NATIVE_F64(body, gravity, 4, PAR, FIXED, 9.81, "m/s2", "gravitational acceleration", NULL),
    RTCOSIM_NATIVE_F64(body, wheel_inertia, 5, PAR, FIXED, 4.0, "kg.m2", "four wheels and driveline after the gearbox", NULL),
    RTCOSIM_NATIVE_F64(body, wheel_radius, 6, PAR, FIXED, 0.31, "m", "dynamic rolling radius", NULL),
    RTCOSIM_NATIVE_F64(body, v_initial, 7, PAR, FIXED, 13.89, "m/s", "speed at start", NULL),
    RTCOSIM_NATIVE_F64(body, traction_force, 8, IN, CONT, 0.0, "N", "force at the tyre contact", NULL),
    RTCOSIM_NATIVE_F64(body, grade, 9, IN, DISC, 0.0, "%", "road grade", NULL),
    RTCOSIM_NATIVE_F64(body, speed, 10, OUT, CONT, 0.0, "m/s", "vehicle speed", NULL),
    RTCOSIM_NATIVE_F64(body, speed_kmh, 11, OUT, CONT, 0.0, "km/h", "vehicle speed", NULL),
    RTCOSIM_NATIVE_F64(body, distance, 12, OUT, CONT, 0.0, "m", "distance travelled", NULL),
    RTCOSIM_NATIVE_F64(body, acceleration, 13, OUT, CONT, 0.0, "m/s2", "acceleration", "traction_force,grade"),
    RTCOSIM_NATIVE_F64(body, aero_force, 14, OUT, CONT, 0.0, "N", "aerodynamic drag", NULL),
    RTCOSIM_NATIVE_F64(body, rolling_force, 15, OUT, CONT, 0.0, "N", "rolling resistance", "grade"),
    RTCOSIM_NATIVE_F64(body, grade_force, 16, OUT, CONT, 0.0, "N", "climbing resistance", "grade"),
};

static const rtcosim_native_model vehicle_body = {
    .name = "vehicle.body",
    .description = "longitudinal vehicle dynamics with road load",
    .data_size = sizeof(body),
    .variables = body_vars,
    .variable_count = sizeof body_vars / sizeof body_vars[0],
    .state_count = 2,
    .states_offset = offsetof(body, speed),
    .integrator = RTCOSIM_NATIVE_RK4,
    .can_handle_variable_step = true,
    .max_input_derivative_order = 2,
    .init = body_init,
    .derivatives = body_derivatives,
    .outputs = body_outputs,
};
RTCOSIM_NATIVE_BUILTIN(vehicle_body)
