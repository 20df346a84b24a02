/* The example vehicle: the control software of four kinds of ECU, written
 * against the ECU emulator, with realistic periods, execution times and CAN
 * payloads packed and read through the CAN database vehicle.dbc (embedded
 * at build time), and the builder that puts N of them on one bus.
 * Driving scenario: idle, accelerate from 1 s, brake hard from 6 s to 7 s,
 * cruise after that; the cabin heater warms from 5 degC towards 21 degC. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtcosim/dbc.h"
#include "vehicle.h"
#include "vehicle_dbc.gen.h" /* vehicle_dbc_text: examples/ecus/vehicle.dbc */

#define CLOCK_HZ_DEFAULT UINT64_C(200000000)

struct rtcosim_ecu_vehicle {
    rtcosim_can_bus *bus;
    rtcosim_ecu **ecus;
    rtcosim_vecu_ecu *firmware; /* the engine on firmware, or NULL; owns its ECU */
    size_t ecu_count;
};

/* ---- signal packing through vehicle.dbc ---- */

/* The database's signals the software uses, resolved once per process (the
 * database is constant; the software blocks stay free of pointers so that
 * their bytes are reproducible for checksums and state saving). */
static struct {
    rtcosim_dbc *dbc;
    const rtcosim_dbc_message *engine_data, *vehicle_speed, *brake, *body, *engine_status;
    const rtcosim_dbc_signal *engine_speed, *engine_torque, *throttle, *engine_counter;
    const rtcosim_dbc_signal *speed, *gear, *trans_engine_speed;
    const rtcosim_dbc_signal *brake_pressure, *brake_demand;
    const rtcosim_dbc_signal *brake_lamp, *cabin_temperature;
    const rtcosim_dbc_signal *coolant_temperature, *status_counter;
    rtcosim_error error;
} db;
static pthread_once_t db_once = PTHREAD_ONCE_INIT;

static const rtcosim_dbc_message *db_message(const char *name)
{
    const rtcosim_dbc_message *m = db.dbc ? rtcosim_dbc_find_message(db.dbc, name) : NULL;
    if (!m && db.error.status == RTCOSIM_OK)
        rtcosim_error_set(&db.error, RTCOSIM_ENOTFOUND, "vehicle.dbc: no message '%s'", name);
    return m;
}

static const rtcosim_dbc_signal *db_signal(const rtcosim_dbc_message *m, const char *name)
{
    const rtcosim_dbc_signal *s = m ? rtcosim_dbc_find_signal(m, name) : NULL;
    if (!s && db.error.status == RTCOSIM_OK)
        rtcosim_error_set(&db.error, RTCOSIM_ENOTFOUND, "vehicle.dbc: no signal '%s'", name);
    return s;
}

const char *rtcosim_ecu_vehicle_dbc_text(size_t *size)
{
    *size = sizeof vehicle_dbc_text;
    return vehicle_dbc_text;
}

static void db_load(void)
{
    if (rtcosim_dbc_parse(vehicle_dbc_text, sizeof vehicle_dbc_text, "vehicle.dbc", &db.dbc,
                          &db.error) != RTCOSIM_OK)
        return;
    db.engine_data = db_message("EngineData");
    db.engine_speed = db_signal(db.engine_data, "EngineSpeed");
    db.engine_torque = db_signal(db.engine_data, "EngineTorque");
    db.throttle = db_signal(db.engine_data, "ThrottlePosition");
    db.engine_counter = db_signal(db.engine_data, "EngineDataCounter");
    db.vehicle_speed = db_message("VehicleSpeed");
    db.speed = db_signal(db.vehicle_speed, "VehicleSpeed");
    db.gear = db_signal(db.vehicle_speed, "Gear");
    db.trans_engine_speed = db_signal(db.vehicle_speed, "TransmissionEngineSpeed");
    db.brake = db_message("Brake");
    db.brake_pressure = db_signal(db.brake, "BrakePressure");
    db.brake_demand = db_signal(db.brake, "BrakeDemand");
    db.body = db_message("Body");
    db.brake_lamp = db_signal(db.body, "BrakeLamp");
    db.cabin_temperature = db_signal(db.body, "CabinTemperature");
    db.engine_status = db_message("EngineStatus");
    db.coolant_temperature = db_signal(db.engine_status, "CoolantTemperature");
    db.status_counter = db_signal(db.engine_status, "EngineStatusCounter");
}

/* As ECU software packs a value: saturated to the signal's raw range, rounded
 * half away from zero. */
static void put(const rtcosim_dbc_signal *s, double value, uint8_t *d, size_t size)
{
    rtcosim_dbc_encode_saturated(s, value, d, size);
}

static double get(const rtcosim_dbc_signal *s, const rtcosim_can_frame *f)
{
    return rtcosim_dbc_decode(s, f->data, f->dlc);
}

static double seconds(const rtcosim_ecu_io *io)
{
    return rtcosim_time_to_seconds(rtcosim_ecu_io_now(io));
}

/* ---- engine ECU: idle/speed governor at 1 ms, engine data at 10 ms ---- */

typedef struct engine_sw {
    uint32_t group;
    uint8_t counter;
    double integral, torque, throttle, rpm;
} engine_sw;

static rtcosim_status engine_control(rtcosim_ecu_io *io, void *software, rtcosim_error *err)
{
    (void)err;
    engine_sw *s = software;
    double t = seconds(io);
    s->rpm = rtcosim_ecu_io_sensor(io, 0) * 60.0 / (2.0 * M_PI);
    double target = t < 1.0 ? 800.0 : t < 6.0 ? 3000.0 : 1800.0;
    rtcosim_can_frame brake;
    if (rtcosim_ecu_io_can_read(io, db.brake->id + s->group, false, &brake) &&
        get(db.brake_pressure, &brake) > 5.0)
        target = 800.0; /* brake override: back to idle */
    double e = target - s->rpm;
    s->integral += e * 1e-3;
    if (s->integral > 300.0)
        s->integral = 300.0;
    if (s->integral < -300.0)
        s->integral = -300.0;
    double throttle = 0.0015 * e + 0.002 * s->integral + 0.04;
    s->throttle = throttle < 0 ? 0 : throttle > 1 ? 1 : throttle;
    s->torque = 250.0 * s->throttle;
    rtcosim_ecu_io_actuate(io, 0, s->throttle);
    return RTCOSIM_OK;
}

static rtcosim_status engine_send(rtcosim_ecu_io *io, void *software, rtcosim_error *err)
{
    engine_sw *s = software;
    uint8_t d[8] = {0};
    put(db.engine_speed, s->rpm, d, sizeof d);
    put(db.engine_torque, s->torque, d, sizeof d);
    put(db.throttle, s->throttle, d, sizeof d);
    put(db.engine_counter, s->counter++, d, sizeof d);
    return rtcosim_ecu_io_can_send(io, db.engine_data->id + s->group, false, d, db.engine_data->dlc,
                                   err);
}

static rtcosim_status engine_status(rtcosim_ecu_io *io, void *software, rtcosim_error *err)
{
    engine_sw *s = software;
    uint8_t d[4] = {0};
    put(db.coolant_temperature, 90.0, d, sizeof d);
    put(db.status_counter, s->counter, d, sizeof d);
    return rtcosim_ecu_io_can_send(io, db.engine_status->id + s->group, false, d,
                                   db.engine_status->dlc, err);
}

/* ---- transmission ECU: engine data by interrupt, gear and wheel force ---- */

typedef struct transmission_sw {
    uint32_t group;
    int gear;
    double engine_rpm, engine_torque, speed;
} transmission_sw;

static const double gear_ratio[6] = {3.8, 2.2, 1.5, 1.1, 0.9, 0.75};

static rtcosim_status transmission_rx(rtcosim_ecu_io *io, void *software,
                                      const rtcosim_can_frame *f, rtcosim_error *err)
{
    (void)io, (void)err;
    transmission_sw *s = software;
    s->engine_rpm = get(db.engine_speed, f);
    s->engine_torque = get(db.engine_torque, f);
    return RTCOSIM_OK;
}

static rtcosim_status transmission_control(rtcosim_ecu_io *io, void *software, rtcosim_error *err)
{
    (void)err;
    transmission_sw *s = software;
    s->speed = rtcosim_ecu_io_sensor(io, 0);
    /* shift on engine speed with hysteresis */
    if (s->engine_rpm > 2800.0 && s->gear < 5)
        s->gear++;
    else if (s->engine_rpm < 1200.0 && s->gear > 0)
        s->gear--;
    const double final_drive = 3.9, efficiency = 0.92, wheel_radius = 0.31;
    /* launch clutch: no drive below 900 rpm */
    double clutch = s->engine_rpm < 900.0    ? 0.0
                    : s->engine_rpm < 1300.0 ? (s->engine_rpm - 900.0) / 400.0
                                             : 1.0;
    double force = clutch * s->engine_torque * gear_ratio[s->gear] * final_drive * efficiency /
                   wheel_radius;
    rtcosim_can_frame brake;
    if (rtcosim_ecu_io_can_read(io, db.brake->id + s->group, false, &brake))
        force -= get(db.brake_pressure, &brake) * 250.0; /* brake force, 250 N per bar */
    rtcosim_ecu_io_actuate(io, 0, force);
    return RTCOSIM_OK;
}

static rtcosim_status transmission_send(rtcosim_ecu_io *io, void *software, rtcosim_error *err)
{
    transmission_sw *s = software;
    uint8_t d[6] = {0};
    put(db.speed, s->speed * 3.6, d, sizeof d); /* km/h */
    put(db.gear, s->gear + 1, d, sizeof d);
    put(db.trans_engine_speed, s->engine_rpm, d, sizeof d);
    return rtcosim_ecu_io_can_send(io, db.vehicle_speed->id + s->group, false, d,
                                   db.vehicle_speed->dlc, err);
}

/* ---- brake ECU: pressure control at 1 ms ---- */

typedef struct brake_sw {
    uint32_t group;
    double integral, pressure, demand, speed_kmh;
} brake_sw;

static rtcosim_status brake_control(rtcosim_ecu_io *io, void *software, rtcosim_error *err)
{
    (void)err;
    brake_sw *s = software;
    double t = seconds(io);
    s->demand = t >= 6.0 && t < 7.0 ? 40.0 : 0.0;
    rtcosim_can_frame speed;
    if (rtcosim_ecu_io_can_read(io, db.vehicle_speed->id + s->group, false, &speed)) {
        s->speed_kmh = get(db.speed, &speed);
        if (s->speed_kmh < 2.0)
            s->demand *= 0.5; /* hold pressure at standstill */
    }
    s->pressure = rtcosim_ecu_io_sensor(io, 0);
    double e = s->demand - s->pressure;
    s->integral += e * 1e-3;
    double cmd = s->demand + 0.5 * e + 2.0 * s->integral;
    rtcosim_ecu_io_actuate(io, 0, cmd < 0 ? 0 : cmd > 180 ? 180 : cmd);
    return RTCOSIM_OK;
}

static rtcosim_status brake_send(rtcosim_ecu_io *io, void *software, rtcosim_error *err)
{
    brake_sw *s = software;
    uint8_t d[4] = {0};
    put(db.brake_pressure, s->pressure, d, sizeof d);
    put(db.brake_demand, s->demand > 0 ? 1 : 0, d, sizeof d);
    return rtcosim_ecu_io_can_send(io, db.brake->id + s->group, false, d, db.brake->dlc, err);
}

/* ---- body ECU: brake lamp by interrupt, cabin heater at 50 ms ---- */

typedef struct body_sw {
    uint32_t group;
    uint8_t brake_lamp;
    double temperature, heater;
} body_sw;

static rtcosim_status body_brake_rx(rtcosim_ecu_io *io, void *software,
                                    const rtcosim_can_frame *f, rtcosim_error *err)
{
    (void)io, (void)err;
    body_sw *s = software;
    s->brake_lamp = get(db.brake_pressure, f) > 2.0;
    return RTCOSIM_OK;
}

static rtcosim_status body_control(rtcosim_ecu_io *io, void *software, rtcosim_error *err)
{
    (void)err;
    body_sw *s = software;
    s->temperature = rtcosim_ecu_io_sensor(io, 0);
    double e = 21.0 - s->temperature;
    s->heater = e > 0 ? (e > 4 ? 3000.0 : 750.0 * e) : 0.0;
    rtcosim_ecu_io_actuate(io, 0, s->heater);
    return RTCOSIM_OK;
}

static rtcosim_status body_send(rtcosim_ecu_io *io, void *software, rtcosim_error *err)
{
    body_sw *s = software;
    uint8_t d[2] = {0};
    put(db.brake_lamp, s->brake_lamp, d, sizeof d);
    put(db.cabin_temperature, s->temperature, d, sizeof d);
    return rtcosim_ecu_io_can_send(io, db.body->id + s->group, false, d, db.body->dlc, err);
}

/* ---- builder ---- */

static rtcosim_status build_ecu(rtcosim_events *sim, rtcosim_ecu_vehicle *v,
                                const rtcosim_ecu_vehicle_config *c, unsigned index,
                                rtcosim_ecu **out, rtcosim_error *err)
{
    static const char *const kinds[4] = {"engine", "transmission", "brake", "body"};
    static const rtcosim_native_model *const plants[4] = {
        &ecus_engine_model, &ecus_car_model, &ecus_brake_model, &ecus_cabin_model};
    unsigned kind = index % 4;
    uint32_t g = index / 4;
    char name[64];
    if (g == 0)
        snprintf(name, sizeof name, "%s", kinds[kind]);
    else
        snprintf(name, sizeof name, "%s%u", kinds[kind], g);
    union {
        engine_sw e;
        transmission_sw t;
        brake_sw b;
        body_sw y;
    } init;
    memset(&init, 0, sizeof init);
    size_t size = kind == 0 ? sizeof init.e : kind == 1 ? sizeof init.t : kind == 2 ? sizeof init.b
                                                                                    : sizeof init.y;
    init.e.group = g; /* every software struct starts with its group */
    rtcosim_ecu_config ec = {.name = name, .clock_hz = c->clock_hz ? c->clock_hz : CLOCK_HZ_DEFAULT,
                             .software_size = size, .software_init = &init, .bus = v->bus,
                             .sensor_count = 1, .actuator_count = 1};
    bool firmware = c->firmware_ecu[0] && strcmp(c->firmware_ecu, name) == 0;
    const char *sil = NULL; /* software in the loop: the ECU's code from a shared object */
    for (unsigned k = 0; k < c->sil_count; k++)
        if (strcmp(c->sil[k].ecu, name) == 0)
            sil = c->sil[k].path;
    if (sil && firmware)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "vehicle: ECU '%s' cannot run both firmware"
                                 " and a shared object (%s)", name, sil);
    if (sil) {
        ec.software_size = 0;
        ec.software_init = NULL;
        ec.shared_object = sil;
    }
    rtcosim_status st;
    if (firmware && (kind != 0 || g != 0))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "vehicle: ECU '%s' has no firmware contract;"
                                 " only 'engine' runs firmware (examples/firmware/engine.c)", name);
    if (firmware) {
        rtcosim_vecu_ecu_config vc;
        rtcosim_ecu_vehicle_engine_firmware(name, c->firmware_path, ec.clock_hz, v->bus, &vc);
        st = rtcosim_vecu_ecu_create(sim, &vc, &v->firmware, err);
        *out = st == RTCOSIM_OK ? rtcosim_vecu_ecu_ecu(v->firmware) : NULL;
    } else {
        st = rtcosim_ecu_create(sim, &ec, out, err);
    }
    if (st != RTCOSIM_OK)
        return st;
    rtcosim_ecu *e = *out;
    const rtcosim_time_ns ms = RTCOSIM_NS_PER_MS;
    /* execution times in cycles at 200 MHz: 1 ms control 40-60 us, CAN
     * packing 10-20 us, interrupts about 10 us. On a shared object (sil) the
     * code of a task is its function named like the task, of an interrupt
     * the one named in `symbol` (examples/ecus/README.md). */
    static const struct {
        const char *name;
        int period_ms, offset_ms;
        uint64_t cycles;
        int priority;
        rtcosim_ecu_task_fn fn;
    } tasks[4][3] = {
        {{"control_1ms", 1, 0, 9000, 1, engine_control},
         {"can_10ms", 10, 2, 3000, 2, engine_send},
         {"status_100ms", 100, 5, 4000, 3, engine_status}},
        {{"control_10ms", 10, 1, 12000, 1, transmission_control},
         {"can_20ms", 20, 3, 2500, 2, transmission_send}},
        {{"control_1ms", 1, 0, 7000, 1, brake_control}, {"can_10ms", 10, 4, 2500, 2, brake_send}},
        {{"control_50ms", 50, 0, 5000, 1, body_control}, {"can_100ms", 100, 7, 2000, 2, body_send}},
    };
    const struct {
        const rtcosim_dbc_message *message;
        uint64_t cycles;
        rtcosim_ecu_isr_fn fn; /* NULL: a mailbox only */
        const char *symbol;
    } rx[4][2] = {
        {{db.brake, 0, NULL, NULL}},
        {{db.engine_data, 2000, transmission_rx, "rx_engine_data"}, {db.brake, 0, NULL, NULL}},
        {{db.vehicle_speed, 0, NULL, NULL}},
        {{db.brake, 1500, body_brake_rx, "rx_brake"}},
    };
    const rtcosim_dbc_message *tx[4][2] = {{db.engine_data, db.engine_status},
                                           {db.vehicle_speed},
                                           {db.brake},
                                           {db.body}};
    for (int k = 0; !firmware && k < 3 && tasks[kind][k].name && st == RTCOSIM_OK; k++) {
        rtcosim_time_ns period = tasks[kind][k].period_ms * ms, offset = tasks[kind][k].offset_ms * ms;
        st = sil ? rtcosim_ecu_add_task_symbol(e, tasks[kind][k].name, period, offset,
                                               tasks[kind][k].cycles, tasks[kind][k].priority,
                                               tasks[kind][k].name, err)
                 : rtcosim_ecu_add_task(e, tasks[kind][k].name, period, offset,
                                        tasks[kind][k].cycles, tasks[kind][k].priority,
                                        tasks[kind][k].fn, err);
    }
    for (int k = 0; !firmware && k < 2 && rx[kind][k].message && st == RTCOSIM_OK; k++) {
        uint32_t id = rx[kind][k].message->id + g;
        st = sil && rx[kind][k].symbol
                 ? rtcosim_ecu_add_can_rx_symbol(e, id, false, rx[kind][k].cycles,
                                                 rx[kind][k].symbol, err)
                 : rtcosim_ecu_add_can_rx(e, id, false, rx[kind][k].cycles, rx[kind][k].fn, err);
    }
    for (int k = 0; !firmware && k < 2 && tx[kind][k] && st == RTCOSIM_OK; k++)
        st = rtcosim_ecu_add_can_tx(e, tx[kind][k]->id + g, false, tx[kind][k]->dlc, err);
    /* the group as calibration: the object computes its identifiers from it */
    if (sil && st == RTCOSIM_OK && (g != 0 || rtcosim_ecu_so_symbol(e, "ecu_group")))
        st = rtcosim_ecu_so_set(e, "ecu_group", &g, sizeof g, err);
    rtcosim_component *plant = NULL;
    if (st == RTCOSIM_OK)
        st = rtcosim_native_create_model(plants[kind], &plant, err);
    const uint32_t sensor = VEHICLE_VR_STATE, actuator = VEHICLE_VR_INPUT;
    if (st == RTCOSIM_OK)
        st = rtcosim_ecu_attach_plant(e, plant, c->plant_mode, c->plant_step ? c->plant_step : ms,
                                      &sensor, &actuator, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_ecu_connect(e, err);
    return st;
}

rtcosim_status rtcosim_ecu_vehicle_build(rtcosim_events *sim, const rtcosim_ecu_vehicle_config *c,
                                     rtcosim_ecu_vehicle **out, rtcosim_error *err)
{
    *out = NULL;
    if ((c->ecus == 0 && !c->attach) || c->ecus > 64)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "vehicle: %u ECUs is not in 1..64", c->ecus);
    pthread_once(&db_once, db_load);
    if (db.error.status != RTCOSIM_OK) {
        if (err)
            *err = db.error;
        return db.error.status;
    }
    rtcosim_ecu_vehicle *v = calloc(1, sizeof *v);
    if (!v || !(v->ecus = calloc(c->ecus ? c->ecus : 1, sizeof *v->ecus))) {
        free(v);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "vehicle: out of memory");
    }
    rtcosim_can_bus_config bc = {.name = c->bus_name ? c->bus_name : "can0", .bitrate = c->bitrate, .stuffing = c->stuffing,
                                 .log_frames = c->log_frames, .log_capacity = c->log_capacity,
                                 .log_digest_only = !c->log_frames, /* for the checksum */
                                 .frame_bytes_reserve = c->frame_bytes_reserve,
                                 .error_every = c->error_every,
                                 .error_code = c->error_code, .fd_bitrate = c->fd_bitrate,
                                 .xl_bitrate = c->xl_bitrate};
    rtcosim_status st = rtcosim_can_bus_create(sim, &bc, &v->bus, err);
    for (unsigned i = 0; i < c->ecus && st == RTCOSIM_OK; i++) {
        st = build_ecu(sim, v, c, i, &v->ecus[i], err);
        if (v->ecus[i])
            v->ecu_count++;
    }
    if (st == RTCOSIM_OK && c->firmware_ecu[0] && !v->firmware)
        st = rtcosim_error_set(err, RTCOSIM_EINVAL, "vehicle: no ECU named '%s' to run firmware"
                               " (the engine firmware replaces 'engine')", c->firmware_ecu);
    for (unsigned k = 0; k < c->sil_count && st == RTCOSIM_OK; k++) {
        bool named = false;
        for (size_t i = 0; i < v->ecu_count && !named; i++)
            named = strcmp(rtcosim_ecu_name(v->ecus[i]), c->sil[k].ecu) == 0;
        if (!named)
            st = rtcosim_error_set(err, RTCOSIM_EINVAL, "vehicle: no ECU named '%s' to run %s"
                                   " (engine, transmission, brake, body; group k > 0 adds k)",
                                   c->sil[k].ecu, c->sil[k].path);
    }
    if (st == RTCOSIM_OK && c->attach)
        st = c->attach(sim, v->bus, c->attach_context, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_can_bus_connect(v->bus, err);
    /* Placement for threads: the ECUs talk to each other through the bus in
     * cycles of one frame plus one interrupt (about 130 us), far shorter than
     * the 1 ms between their events, so splitting them would make threads
     * trade bounds many times per millisecond. The cycle between an ECU and
     * an active plant is a whole plant step: the ECU network shares one
     * thread, the plants another. Stepping the plants costs about three
     * times the ECUs' own work (perf on `bench ecu`, N = 16: the plants'
     * derivatives and steps 55 % of the samples, ECUs, bus and kernel 20 %),
     * so every third plant joins the ECU network's thread to even the
     * threads' loads; its cycle with its ECU then stays inside that thread.
     * An ECU whose response delay is under 1 us (firmware on the emulated
     * core: its shortest job is a few hundred ns) would trade bounds with
     * its plant that often, so its plant joins the ECU network's thread too.
     * The speculative scheduler (pair_plants) trades no bounds: a link across
     * threads costs it rollbacks when its events come late, and predictions.
     * The link between an ECU and its plant carries actuations and sensor
     * values every plant step in both directions, the bus only the frames, so
     * each plant shares its ECU's thread and the threads get whole pairs
     * (measured on `bench speculate` N = 16 under a load of 3: 1.3-1.5x the
     * sequential scheduler against 0.4-0.9x with the network placement, CPU
     * per committed event 1.2-1.5x against 1.8-2.6x the sequential's). */
    rtcosim_lp_id plant_group = RTCOSIM_LP_NO_GROUP;
    for (size_t i = 0; i < v->ecu_count && st == RTCOSIM_OK; i++) {
        rtcosim_lp_id plant = rtcosim_ecu_plant_lp(v->ecus[i]);
        if (plant == RTCOSIM_LP_NO_GROUP)
            continue;
        if (c->pair_plants) {
            st = rtcosim_events_set_group(sim, plant, rtcosim_ecu_lp(v->ecus[i]), err);
            continue;
        }
        st = rtcosim_events_set_group(sim, rtcosim_ecu_lp(v->ecus[i]),
                                      rtcosim_can_bus_lp(v->bus), err);
        bool join = i % 3 == 2 || rtcosim_ecu_response_delay(v->ecus[i]) < RTCOSIM_NS_PER_US;
        if (!join && plant_group == RTCOSIM_LP_NO_GROUP)
            plant_group = plant;
        if (st == RTCOSIM_OK)
            st = rtcosim_events_set_group(sim, plant, join ? rtcosim_can_bus_lp(v->bus)
                                                           : plant_group, err);
    }
    if (st != RTCOSIM_OK) {
        rtcosim_ecu_vehicle_free(v);
        return st;
    }
    *out = v;
    return RTCOSIM_OK;
}

void rtcosim_ecu_vehicle_free(rtcosim_ecu_vehicle *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->ecu_count; i++)
        if (!v->firmware || v->ecus[i] != rtcosim_vecu_ecu_ecu(v->firmware))
            rtcosim_ecu_free(v->ecus[i]);
    rtcosim_vecu_ecu_free(v->firmware);
    free(v->ecus);
    rtcosim_can_bus_free(v->bus);
    free(v);
}

rtcosim_can_bus *rtcosim_ecu_vehicle_bus(const rtcosim_ecu_vehicle *v) { return v->bus; }
size_t rtcosim_ecu_vehicle_ecu_count(const rtcosim_ecu_vehicle *v) { return v->ecu_count; }
rtcosim_ecu *rtcosim_ecu_vehicle_ecu(const rtcosim_ecu_vehicle *v, size_t i)
{
    return i < v->ecu_count ? v->ecus[i] : NULL;
}

static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * UINT64_C(0x100000001B3);
    return h;
}

static uint64_t hash_u64(uint64_t h, uint64_t x) { return fnv1a(h, &x, sizeof x); }

static uint64_t hash_f64(uint64_t h, double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return hash_u64(h, bits);
}

uint64_t rtcosim_ecu_vehicle_checksum(const rtcosim_ecu_vehicle *v)
{
    uint64_t h = UINT64_C(0xCBF29CE484222325);
    for (size_t i = 0; i < v->ecu_count; i++) {
        rtcosim_ecu *e = v->ecus[i];
        /* the software blocks start zeroed, so their padding is stable; a
         * shared object's data holds load addresses (its own pointers, the
         * copy's __dso_handle) that differ between two loads of it, so such
         * an ECU counts by what it does: frames, actuations, jobs */
        if (!rtcosim_ecu_shared_object(e))
            h = fnv1a(h, rtcosim_ecu_software(e), rtcosim_ecu_software_size(e));
        h = hash_f64(h, rtcosim_ecu_sensor(e, 0));
        h = hash_f64(h, rtcosim_ecu_actuator(e, 0));
        rtcosim_ecu_stats st;
        rtcosim_ecu_stats_get(e, &st);
        h = hash_u64(h, st.jobs);
        h = hash_u64(h, st.isr_runs);
        h = hash_u64(h, st.frames_sent);
        h = hash_u64(h, st.frames_received);
        h = hash_u64(h, (uint64_t)st.busy_ns);
        for (size_t k = 0; k < rtcosim_ecu_task_count(e); k++) {
            rtcosim_ecu_task_stats ts;
            rtcosim_ecu_task_stats_get(e, k, &ts);
            h = hash_u64(h, ts.runs);
            h = hash_u64(h, ts.overruns);
            h = hash_u64(h, (uint64_t)ts.last_end);
            h = hash_u64(h, (uint64_t)ts.max_response);
        }
    }
    /* the bus's log by its digest, which every rank of a run over ranks has
     * (the entries only the rank that ran the bus) */
    size_t logged = 0;
    h = hash_u64(h, rtcosim_can_bus_log_digest(v->bus, &logged));
    return hash_u64(h, logged);
}

double rtcosim_ecu_vehicle_worst_error(const rtcosim_ecu_vehicle *v,
                                       const rtcosim_ecu_vehicle *reference,
                                       rtcosim_ecu_vehicle_error_at *at)
{
    double worst = 0.0;
    rtcosim_ecu_vehicle_error_at where = {0};
    for (size_t i = 0; i < v->ecu_count && i < reference->ecu_count; i++) {
        double pairs[2][2] = {
            {rtcosim_ecu_sensor(v->ecus[i], 0), rtcosim_ecu_sensor(reference->ecus[i], 0)},
            {rtcosim_ecu_actuator(v->ecus[i], 0), rtcosim_ecu_actuator(reference->ecus[i], 0)}};
        for (int k = 0; k < 2; k++) {
            double scale = fabs(pairs[k][1]) > 1.0 ? fabs(pairs[k][1]) : 1.0;
            double e = fabs(pairs[k][0] - pairs[k][1]) / scale;
            if (!(e <= worst)) { /* NaN counts as the worst */
                worst = e;
                where = (rtcosim_ecu_vehicle_error_at){.ecu = i, .actuator = k == 1,
                                                       .value = pairs[k][0],
                                                       .reference = pairs[k][1]};
            }
        }
    }
    if (at)
        *at = where;
    return worst;
}

double rtcosim_ecu_vehicle_max_rel_error(const rtcosim_ecu_vehicle *v,
                                         const rtcosim_ecu_vehicle *reference, bool *same_frames)
{
    if (same_frames) { /* (counted whole: one may have written its log as it ran) */
        size_t frames = 0, reference_frames = 0;
        (void)rtcosim_can_bus_log_digest(v->bus, &frames);
        (void)rtcosim_can_bus_log_digest(reference->bus, &reference_frames);
        *same_frames = frames == reference_frames;
    }
    return rtcosim_ecu_vehicle_worst_error(v, reference, NULL);
}
