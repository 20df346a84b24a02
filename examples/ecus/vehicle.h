/* The example vehicle of `rtcosim events` and benchmark B7: N ECUs cycling
 * through engine, transmission, brake and body controllers (the k-th group of
 * four uses CAN identifiers base + k), each with its plant, on one CAN bus. */
#ifndef RTCOSIM_EXAMPLE_VEHICLE_H
#define RTCOSIM_EXAMPLE_VEHICLE_H

#include "rtcosim/can.h"
#include "rtcosim/ecu.h"
#include "rtcosim/events.h"
#include "rtcosim/native.h"
#include "rtcosim/vecu.h"

#define VEHICLE_VR_STATE 0u /* every plant: its one state is output vr 0 */
#define VEHICLE_VR_INPUT 1u /* and its one input vr 1 */

extern const rtcosim_native_model ecus_engine_model, ecus_car_model,
    ecus_brake_model, ecus_cabin_model;

/* CAN identifiers (standard) of group 0; group k adds k. The frames are
 * defined by vehicle.dbc (ids, sizes, signals, cycle times), which the ECU
 * software packs and reads through; these names are for code that refers to
 * them (tests/can/test_dbc.c checks that they agree). */
enum {
    VEHICLE_ID_ENGINE_DATA = 0x0C0,  /* engine, 10 ms, 8 bytes: rpm, torque, throttle */
    VEHICLE_ID_VEHICLE_SPEED = 0x1A0, /* transmission, 20 ms, 6 bytes: speed, gear */
    VEHICLE_ID_BRAKE = 0x220,         /* brake, 10 ms, 4 bytes: pressure, status */
    VEHICLE_ID_BODY = 0x3C0,          /* body, 100 ms, 2 bytes: lamps, cabin temp */
    VEHICLE_ID_ENGINE_STATUS = 0x5C0, /* engine, 100 ms, 4 bytes */
};

#define RTCOSIM_VEHICLE_SIL_MAX 8

typedef struct rtcosim_ecu_vehicle_config {
    unsigned ecus;                  /* 1..64; 0 (a bus alone): with attach only */
    const char *bus_name;           /* NULL: "can0" */
    uint32_t bitrate;               /* 0: 500 kbit/s */
    uint32_t fd_bitrate, xl_bitrate; /* CAN FD / XL data phases; 0: 2 / 10 Mbit/s */
    rtcosim_can_stuffing stuffing;
    rtcosim_plant_mode plant_mode;
    rtcosim_time_ns plant_step;     /* 0: 1 ms */
    uint64_t clock_hz;              /* 0: 200 MHz */
    /* every frame kept (rtcosim_can_bus_log); without, the bus keeps only
     * their digest, for the checksum */
    bool log_frames;
    size_t log_capacity; /* 0: the log grows; else fixed (rtcosim_can_bus_config) */
    size_t frame_bytes_reserve; /* CAN FD/XL bytes allocated at create (rtcosim_can_bus_config) */
    /* Error injection on the bus (rtcosim_can_bus_config): every
     * error_every-th frame corrupted with error_code; 0: none. */
    uint32_t error_every;
    uint8_t error_code;
    /* Placement for the speculative scheduler: each plant shares its ECU's
     * thread and the ECUs are not kept with the bus (see vehicle.c); false:
     * the placement for the conservative scheduler. Results are the same. */
    bool pair_plants;
    /* an ECU running firmware instead of task functions (only "engine",
     * group 0, has a firmware contract); empty: none */
    char firmware_ecu[64], firmware_path[1024];
    /* ECUs whose code is application C built for the host as a shared object
     * (software in the loop, rtcosim/ecu_so.h): exported functions named
     * like the ECU's tasks and interrupts (examples/ecus/README.md), its
     * state captured from its writable data, so it speculates too. */
    struct {
        char ecu[64], path[1024];
    } sil[RTCOSIM_VEHICLE_SIL_MAX];
    unsigned sil_count;
    /* More nodes on the bus, added after the ECUs and before the bus
     * connects (rtcosim events --lsbus-node); NULL: none. */
    rtcosim_status (*attach)(rtcosim_events *sim, rtcosim_can_bus *bus, void *context,
                             rtcosim_error *err);
    void *attach_context;
} rtcosim_ecu_vehicle_config;

typedef struct rtcosim_ecu_vehicle rtcosim_ecu_vehicle;

/* Add the bus, ECUs and plants to an empty simulation and connect them. */
rtcosim_status rtcosim_ecu_vehicle_build(rtcosim_events *sim, const rtcosim_ecu_vehicle_config *config,
                                     rtcosim_ecu_vehicle **out, rtcosim_error *err);
void rtcosim_ecu_vehicle_free(rtcosim_ecu_vehicle *v);
rtcosim_can_bus *rtcosim_ecu_vehicle_bus(const rtcosim_ecu_vehicle *v);
size_t rtcosim_ecu_vehicle_ecu_count(const rtcosim_ecu_vehicle *v);
rtcosim_ecu *rtcosim_ecu_vehicle_ecu(const rtcosim_ecu_vehicle *v, size_t index);
/* A hash of every ECU's emulator state and of the bus's frames (their
 * digest, the same with log_frames or without): equal hashes after two runs
 * mean identical results. */
uint64_t rtcosim_ecu_vehicle_checksum(const rtcosim_ecu_vehicle *v);
/* The largest relative difference between two runs' results (every ECU's
 * final sensor and actuator values, |a - b| / max(|b|, 1)), and whether
 * their CAN logs hold the same number of frames; for a speculative run with
 * a threshold against a reference run. The vehicles must match in size. */
double rtcosim_ecu_vehicle_max_rel_error(const rtcosim_ecu_vehicle *v,
                                         const rtcosim_ecu_vehicle *reference, bool *same_frames);
/* Where that largest difference is: the ECU (its index), whether the
 * actuator or the sensor, and both runs' values (all zero when the runs
 * agree exactly or have no ECU). */
typedef struct rtcosim_ecu_vehicle_error_at {
    size_t ecu;
    bool actuator;
    double value, reference;
} rtcosim_ecu_vehicle_error_at;
double rtcosim_ecu_vehicle_worst_error(const rtcosim_ecu_vehicle *v,
                                       const rtcosim_ecu_vehicle *reference,
                                       rtcosim_ecu_vehicle_error_at *at);

/* The CAN database of a vehicle of `ecus` ECUs (vehicle_dbc.c): vehicle.dbc
 * with each group's messages at their ids + the group, as the ECUs send
 * them; *out NUL-terminated, the caller frees it. */
rtcosim_status rtcosim_ecu_vehicle_dbc(size_t ecus, char **out, rtcosim_error *err);
/* The same written to path (rtcosim events --dbc-out); EIO names the path. */
rtcosim_status rtcosim_ecu_vehicle_write_dbc(const char *path, size_t ecus, rtcosim_error *err);
/* vehicle.dbc as embedded (its bytes, not NUL-terminated). */
const char *rtcosim_ecu_vehicle_dbc_text(size_t *size);

/* The I/O contract of the engine firmware (examples/firmware/engine.c) as a
 * virtual-ECU configuration; name and path are referenced, not copied. */
/* Add `ECU=PATH.so` to config->sil (rtcosim events --sil, the INI's sil key;
 * PATH as given). EINVAL for a malformed value, a ninth one or an ECU named
 * twice, the message starting with `origin`. */
rtcosim_status rtcosim_ecu_vehicle_add_sil(rtcosim_ecu_vehicle_config *config, const char *value,
                                           const char *origin, rtcosim_error *err);

void rtcosim_ecu_vehicle_engine_firmware(const char *name, const char *path, uint64_t clock_hz,
                                         rtcosim_can_bus *bus, rtcosim_vecu_ecu_config *c);

/* A vehicle system file: INI text with a [vehicle] section (ecus, bitrate,
 * stuffing = actual|worst-case, plants = active|passive, plant_step,
 * clock_hz, firmware = ECU=PATH.elf and, repeatable, sil = ECU=PATH.so, with
 * PATH relative to the file's folder) and a [run] section (scheduler, threads, stop_time, seed).
 * '#' or ';' start comments. Given values override *config and *run; an
 * unknown section or key, or a bad value, is an error naming file and line. */
rtcosim_status rtcosim_ecu_vehicle_load(const char *path, rtcosim_ecu_vehicle_config *config,
                                    rtcosim_run_options *run, rtcosim_error *err);
rtcosim_status rtcosim_ecu_vehicle_parse(const char *text, size_t size, const char *origin,
                                     rtcosim_ecu_vehicle_config *config, rtcosim_run_options *run,
                                     rtcosim_error *err);

#endif
