/* The example vehicle's engine ECU (examples/ecus/vehicle.c) as ordinary
 * application C for software in the loop: its state in static variables,
 * no save/restore code, its CAN frames packed by hand as vehicle.dbc lays
 * them out (Intel byte order, raw = round((value - offset) / factor),
 * saturated to the raw range), built as a shared object against the
 * contract rtcosim/ecu_so.h only. It computes what the built-in engine does,
 * bit for bit, which is what tests/ecu/test_ecu_so.c checks.
 *
 * Variants for importers' bad-input paths: ECU_HEAP keeps its integrator in
 * a heap cell (state outside the object: never speculated on), ECU_TLS in a
 * thread-local variable (refused), ECU_NO_ENTRY exports no task. ECU_POINTER
 * reaches its integrator through a static pointer (into its own data,
 * relocated at load), which a state moved to another load must follow. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "rtcosim/ecu_so.h"

#define ID_ENGINE_DATA 0x0C0u
#define ID_BRAKE 0x220u
#define ID_ENGINE_STATUS 0x5C0u

/* Calibration: the vehicle's group k sends base + k (set by rtcosim). */
uint32_t ecu_group;

static uint8_t counter;
static double torque, throttle, rpm;
#if defined(ECU_HEAP)
static double *integral_cell;
#define integral (*integral_cell)
#elif defined(ECU_POINTER)
/* exported, so that the compiler cannot fold the pointer away */
static double integral_store;
double *ecu_integral_at = &integral_store;
#define integral (*ecu_integral_at)
#elif defined(ECU_TLS)
static _Thread_local double integral;
#else
static double integral;
#endif

#ifdef ECU_HEAP
/* The cell is allocated at load, before rtcosim takes the start image, and
 * freed at unload; its contents are not part of any snapshot. */
__attribute__((constructor)) static void allocate(void)
{
    integral_cell = malloc(sizeof *integral_cell);
}

__attribute__((destructor)) static void release(void)
{
    free(integral_cell);
}

void ecu_init(void)
{
    if (integral_cell)
        *integral_cell = 0;
}
#endif

static void put(uint8_t *d, unsigned start, unsigned length, double factor, double offset,
                double value)
{
    double raw = round((value - offset) / factor), hi = ldexp(1, (int)length) - 1;
    raw = raw != raw ? 0 : raw < 0 ? 0 : raw > hi ? hi : raw;
    uint64_t bits = (uint64_t)raw;
    for (unsigned k = 0; k < length; k++) {
        unsigned pos = start + k;
        d[pos / 8] = (uint8_t)((d[pos / 8] & ~(1u << (pos % 8))) | ((bits >> k) & 1u) << (pos % 8));
    }
}

#ifdef ECU_NO_ENTRY
#define ENTRY static __attribute__((unused))
#else
#define ENTRY
#endif

/* 1 ms: idle/speed governor, brake override from the Brake frame. */
ENTRY void control_1ms(const rtcosim_ecu_so_io *io)
{
    double t = io->now(io);
    rpm = io->sensor(io, 0) * 60.0 / (2.0 * M_PI);
    double target = t < 1.0 ? 800.0 : t < 6.0 ? 3000.0 : 1800.0;
    uint8_t brake[8];
    if (io->can_read(io, ID_BRAKE + ecu_group, brake) >= 2 &&
        (double)(brake[0] | brake[1] << 8) * 0.1 > 5.0)
        target = 800.0;
    double e = target - rpm;
    integral += e * 1e-3;
    if (integral > 300.0)
        integral = 300.0;
    if (integral < -300.0)
        integral = -300.0;
    double u = 0.0015 * e + 0.002 * integral + 0.04;
    throttle = u < 0 ? 0 : u > 1 ? 1 : u;
    torque = 250.0 * throttle;
    io->actuate(io, 0, throttle);
}

/* 10 ms: EngineData (speed 0.25 rpm, torque 0.1 N.m - 500, throttle 0.004,
 * counter in byte 7). */
ENTRY void can_10ms(const rtcosim_ecu_so_io *io)
{
    uint8_t d[8] = {0};
    put(d, 0, 16, 0.25, 0, rpm);
    put(d, 16, 16, 0.1, -500, torque);
    put(d, 32, 8, 0.004, 0, throttle);
    put(d, 56, 8, 1, 0, counter++);
    io->can_send(io, ID_ENGINE_DATA + ecu_group, d, 8);
}

/* 100 ms: EngineStatus (coolant 90 degC, offset -40; the counter in byte 3). */
ENTRY void status_100ms(const rtcosim_ecu_so_io *io)
{
    uint8_t d[4] = {0};
    put(d, 0, 8, 1, -40, 90.0);
    put(d, 24, 8, 1, 0, counter);
    io->can_send(io, ID_ENGINE_STATUS + ecu_group, d, 4);
}
