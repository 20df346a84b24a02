/* The engine ECU of the example vehicle as a virtual ECU running the engine
 * controller firmware (examples/firmware/engine.c): its I/O contract (ADC 0
 * = engine speed in rpm, 12 bits; PWM 0 = throttle; rasters 1/10/100 ms on
 * TIMER0..2 with the task-level ECU's offsets; CAN as the task-level
 * engine), so `rtcosim events --firmware engine=engine.elf` swaps it in. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rtcosim/vecu_periph.h"
#include "vehicle.h"

void rtcosim_ecu_vehicle_engine_firmware(const char *name, const char *path, uint64_t clock_hz,
                                         rtcosim_can_bus *bus, rtcosim_vecu_ecu_config *c)
{
    memset(c, 0, sizeof *c);
    const rtcosim_time_ns ms = RTCOSIM_NS_PER_MS;
    c->core = (rtcosim_vecu_config){.name = name, .firmware = path, .clock_hz = clock_hz,
                                    .cpi = 1.0};
    c->bus = bus;
    c->sensor_count = c->actuator_count = 1;
    c->adc_gain[0] = 60.0 / (2.0 * M_PI); /* rad/s -> rpm counts */
    c->adc_bits[0] = 12;
    c->pwm_scale[0] = 1.0; /* duty -> throttle 0..1 */
    /* declared minima: at most the handlers' shortest paths (measured with
     * gcc 12 -O2: control 46, CAN 29, status 13, CAN RX 5 instructions with
     * an empty FIFO); they bound the response delay. Plus exception entry
     * and return, 12 + 10 cycles on a Cortex-M4. */
    c->overhead_cycles = 22;
    c->rasters[0] = (rtcosim_vecu_raster){"control_1ms", ms, 0, VECU_IRQ_TIMER0, 1, 40};
    c->rasters[1] = (rtcosim_vecu_raster){"can_10ms", 10 * ms, 2 * ms, VECU_IRQ_TIMER1, 2, 25};
    c->rasters[2] = (rtcosim_vecu_raster){"status_100ms", 100 * ms, 5 * ms, VECU_IRQ_TIMER2, 3, 12};
    c->raster_count = 3;
    if (bus) {
        c->rx[0] = (rtcosim_vecu_can_id){VEHICLE_ID_BRAKE, false, 4};
        c->rx_count = 1;
        c->tx[0] = (rtcosim_vecu_can_id){VEHICLE_ID_ENGINE_DATA, false, 8};
        c->tx[1] = (rtcosim_vecu_can_id){VEHICLE_ID_ENGINE_STATUS, false, 4};
        c->tx_count = 2;
        c->can_rx_min_cycles = 5;
    }
}

/* The engine firmware as a co-simulation component for SSP systems,
 * "rtcosim:vecu.engine" (examples/firmware/engine_loop.ssd): ADC 0 in, PWM 0
 * out, the 1 ms control raster; its "firmware" parameter defaults to the
 * ELF this build cross-compiled. */
#ifndef RTCOSIM_ENGINE_FIRMWARE_DEFAULT
#define RTCOSIM_ENGINE_FIRMWARE_DEFAULT "engine.elf"
#endif
#ifndef RTCOSIM_ENGINE_FIRMWARE_INSTALLED
#define RTCOSIM_ENGINE_FIRMWARE_INSTALLED RTCOSIM_ENGINE_FIRMWARE_DEFAULT
#endif

/* The engine firmware a system gets without a "firmware" parameter: the one
 * installed beside the running binary (<bindir>/../share/rtcosim/examples/
 * firmware, so that a moved or --prefix installation uses its own), else
 * this build's, else the configured installation's. */
static const char *default_engine_firmware(void)
{
    static char path[PATH_MAX + 64];
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *slash = len > 0 ? (exe[len] = '\0', strrchr(exe, '/')) : NULL;
    if (slash) {
        *slash = '\0';
        snprintf(path, sizeof path, "%s/../share/rtcosim/examples/firmware/engine.elf", exe);
        if (access(path, R_OK) == 0)
            return path;
    }
    return access(RTCOSIM_ENGINE_FIRMWARE_DEFAULT, R_OK) == 0 ? RTCOSIM_ENGINE_FIRMWARE_DEFAULT
                                                              : RTCOSIM_ENGINE_FIRMWARE_INSTALLED;
}

__attribute__((constructor)) static void register_engine_component(void)
{
    rtcosim_vecu_component_config cc = {
        .core = {.name = "vecu.engine", .firmware = default_engine_firmware(),
                 .clock_hz = 200000000, .cpi = 1.0},
        .rasters = {{"control_1ms", RTCOSIM_NS_PER_MS, 0, VECU_IRQ_TIMER0, 1, 40}},
        .raster_count = 1, .adc_count = 1, .pwm_count = 1, .overhead_cycles = 22};
    rtcosim_vecu_component_register("vecu.engine", &cc, NULL);
}
