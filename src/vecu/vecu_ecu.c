/* The virtual ECU as an ECU LP: task rasters and CAN reception of a
 * task-level ECU (ecu.c) whose code runs the firmware's handlers on the
 * emulated core, with sensors into the ADC, PWM out to the actuators, the
 * CAN mailboxes to the bus, and the job's executed cycles as its time. The
 * core's data block (peripherals + RAM) is the ECU's software block, so the
 * ECU's snapshots (checkpoints, rollback) carry the whole firmware state. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vecu_internal.h"

struct rtcosim_vecu_ecu {
    rtcosim_vecu *core;
    rtcosim_ecu *ecu;
    rtcosim_vecu_ecu_config config;
    uint64_t raster_limit[RTCOSIM_VECU_RASTERS_MAX], can_limit;
};

static rtcosim_status run_job(rtcosim_ecu_io *io, unsigned exception, uint64_t limit,
                              rtcosim_error *err)
{
    rtcosim_vecu_ecu *ve = rtcosim_ecu_io_user(io);
    const rtcosim_vecu_ecu_config *c = &ve->config;
    for (size_t i = 0; i < c->sensor_count; i++) {
        unsigned bits = c->adc_bits[i] ? c->adc_bits[i] : 12;
        double full = ldexp(1.0, (int)bits) - 1.0;
        double x = nearbyint(rtcosim_ecu_io_sensor(io, i) * c->adc_gain[i] + c->adc_offset[i]);
        x = x > 0 ? (x < full ? x : full) : 0; /* also maps NaN to 0 */
        rtcosim_vecu_adc_set(ve->core, (unsigned)i, (uint32_t)x);
    }
    uint64_t cycles = 0;
    rtcosim_status st = rtcosim_vecu_run_exception(
        ve->core, exception, vecu_cycle_at(rtcosim_ecu_io_now(io), ve->core->clock_hz), limit, &cycles,
        err);
    if (st != RTCOSIM_OK)
        return st;
    rtcosim_ecu_io_set_cycles(io, cycles + c->overhead_cycles);
    for (size_t i = 0; i < c->actuator_count; i++) {
        double u = (double)rtcosim_vecu_pwm(ve->core, (unsigned)i) / VECU_PWM_FULL *
                       c->pwm_scale[i] + c->pwm_offset[i];
        if (u != rtcosim_ecu_actuator(ve->ecu, i))
            rtcosim_ecu_io_actuate(io, i, u);
    }
    rtcosim_can_frame f;
    while (st == RTCOSIM_OK && rtcosim_vecu_can_take(ve->core, &f))
        st = rtcosim_ecu_io_can_send(io, f.id, f.extended, f.data, f.dlc, err);
    return st;
}

#define RASTER_FN(k)                                                                       \
    static rtcosim_status raster##k(rtcosim_ecu_io *io, void *software, rtcosim_error *err) \
    {                                                                                      \
        (void)software;                                                                    \
        rtcosim_vecu_ecu *ve = rtcosim_ecu_io_user(io);                                    \
        return run_job(io, 16 + ve->config.rasters[k].irq, ve->raster_limit[k], err);      \
    }
RASTER_FN(0)
RASTER_FN(1)
RASTER_FN(2)
RASTER_FN(3)
static const rtcosim_ecu_task_fn raster_fns[RTCOSIM_VECU_RASTERS_MAX] = {raster0, raster1,
                                                                        raster2, raster3};

static rtcosim_status can_isr(rtcosim_ecu_io *io, void *software, const rtcosim_can_frame *frame,
                              rtcosim_error *err)
{
    (void)software;
    rtcosim_vecu_ecu *ve = rtcosim_ecu_io_user(io);
    rtcosim_vecu_can_receive(ve->core, frame); /* a full FIFO sets the overrun flag */
    return run_job(io, 16 + VECU_IRQ_CAN_RX, ve->can_limit, err);
}

static rtcosim_status declare(rtcosim_vecu_ecu *ve, rtcosim_error *err)
{
    const rtcosim_vecu_ecu_config *c = &ve->config;
    uint64_t hz = ve->core->clock_hz;
    rtcosim_status st = RTCOSIM_OK;
    rtcosim_time_ns shortest = RTCOSIM_TIME_MAX;
    for (size_t k = 0; k < c->raster_count && st == RTCOSIM_OK; k++) {
        const rtcosim_vecu_raster *r = &c->rasters[k];
        if (r->irq > VECU_IRQ_TIMER3 || r->min_cycles == 0)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "vecu '%s': raster %zu needs a timer IRQ"
                                     " 0..3 and a minimum of at least 1 cycle", ve->core->name, k);
        /* a job may use its whole period, no more */
        ve->raster_limit[k] = (uint64_t)((double)vecu_cycle_at(r->period, hz) / ve->core->cpi);
        if (r->period < shortest)
            shortest = r->period;
        char name[64];
        snprintf(name, sizeof name, "%s", r->name ? r->name : "raster");
        st = rtcosim_ecu_add_task(ve->ecu, name, r->period, r->offset,
                                  r->min_cycles + c->overhead_cycles, r->priority, raster_fns[k],
                                  err);
    }
    ve->can_limit = (uint64_t)((double)vecu_cycle_at(shortest == RTCOSIM_TIME_MAX ? RTCOSIM_NS_PER_MS
                                                                             : shortest, hz) /
                               ve->core->cpi);
    for (size_t i = 0; i < c->rx_count && st == RTCOSIM_OK; i++)
        st = rtcosim_ecu_add_can_rx(ve->ecu, c->rx[i].id, c->rx[i].extended,
                                    (c->can_rx_min_cycles ? c->can_rx_min_cycles : 1) +
                                        c->overhead_cycles,
                                    can_isr, err);
    for (size_t i = 0; i < c->tx_count && st == RTCOSIM_OK; i++)
        st = rtcosim_ecu_add_can_tx(ve->ecu, c->tx[i].id, c->tx[i].extended, c->tx[i].dlc, err);
    return st;
}

rtcosim_status rtcosim_vecu_ecu_create(rtcosim_events *sim, const rtcosim_vecu_ecu_config *config,
                                       rtcosim_vecu_ecu **out, rtcosim_error *err)
{
    *out = NULL;
    if (config->raster_count > RTCOSIM_VECU_RASTERS_MAX ||
        config->rx_count > RTCOSIM_VECU_CAN_IDS_MAX || config->tx_count > RTCOSIM_VECU_CAN_IDS_MAX ||
        config->sensor_count > RTCOSIM_ECU_IO_MAX || config->actuator_count > RTCOSIM_ECU_IO_MAX)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "vecu '%s': at most %d rasters, %d CAN ids"
                                 " each way, %d sensors and actuators",
                                 config->core.name ? config->core.name : "?",
                                 RTCOSIM_VECU_RASTERS_MAX, RTCOSIM_VECU_CAN_IDS_MAX,
                                 RTCOSIM_ECU_IO_MAX);
    rtcosim_vecu_ecu *ve = calloc(1, sizeof *ve);
    if (!ve)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "vecu: out of memory");
    ve->config = *config;
    rtcosim_status st = rtcosim_vecu_create(&config->core, &ve->core, err);
    if (st == RTCOSIM_OK) /* reset: a generous 100 ms of instructions */
        st = rtcosim_vecu_reset(ve->core, vecu_cycle_at(100 * RTCOSIM_NS_PER_MS, ve->core->clock_hz),
                                err);
    if (st == RTCOSIM_OK) {
        rtcosim_ecu_config ec = {.name = ve->core->name, .clock_hz = ve->core->clock_hz,
                                 .software_size = rtcosim_vecu_data_size(ve->core),
                                 .software_init = rtcosim_vecu_data(ve->core), .bus = config->bus,
                                 .sensor_count = config->sensor_count,
                                 .actuator_count = config->actuator_count,
                                 .actuator_init = config->actuator_init, .user = ve};
        st = rtcosim_ecu_create(sim, &ec, &ve->ecu, err);
    }
    if (st == RTCOSIM_OK)
        st = rtcosim_vecu_bind_data(ve->core, rtcosim_ecu_software(ve->ecu), err);
    if (st == RTCOSIM_OK)
        st = declare(ve, err);
    /* the caller's strings are not kept: the ECU and the core copied them */
    ve->config.core.name = ve->config.core.firmware = NULL;
    for (size_t k = 0; k < RTCOSIM_VECU_RASTERS_MAX; k++)
        ve->config.rasters[k].name = NULL;
    if (st != RTCOSIM_OK) {
        rtcosim_vecu_ecu_free(ve);
        return st;
    }
    *out = ve;
    return RTCOSIM_OK;
}

void rtcosim_vecu_ecu_free(rtcosim_vecu_ecu *ve)
{
    if (!ve)
        return;
    rtcosim_vecu_free(ve->core); /* before the ECU: its RAM is the ECU's software block */
    rtcosim_ecu_free(ve->ecu);
    free(ve);
}

rtcosim_ecu *rtcosim_vecu_ecu_ecu(rtcosim_vecu_ecu *ve) { return ve->ecu; }
rtcosim_vecu *rtcosim_vecu_ecu_core(rtcosim_vecu_ecu *ve) { return ve->core; }
