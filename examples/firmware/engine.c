/* Engine controller firmware for the rtcosim virtual ECU (Cortex-M4): the
 * idle/speed governor of the example vehicle's task-level engine ECU
 * (examples/ecus/vehicle.c) in fixed point, as it would ship on a part
 * without FPU use. 1 ms raster (TIMER0): engine speed from ADC channel 0 in
 * rpm, PI control, throttle to PWM channel 0 (duty 0..10000 = 0..100 %).
 * 10 ms raster (TIMER1): ENGINE_DATA frame; 100 ms (TIMER2): ENGINE_STATUS.
 * CAN RX interrupt: BRAKE frames (pressure, 0.1 bar) override to idle.
 * Speed schedule by the firmware's own 1 ms tick: 800 rpm until 1 s, 3000 rpm
 * until 6 s, then 1800 rpm. */
#include <stdint.h>

#include "rtcosim/vecu_periph.h"

#define ID_ENGINE_DATA 0x0C0u
#define ID_BRAKE 0x220u
#define ID_ENGINE_STATUS 0x5C0u
#define INTEGRAL_MAX 300000 /* rpm.ms: 300 rpm.s, as the task-level ECU */

/* Exported for tests and debugging (read through the ELF's symbols). */
uint32_t engine_ms;         /* 1 ms ticks since reset */
uint32_t engine_rpm;        /* last measured speed */
uint32_t engine_duty;       /* last throttle command, 1/10000 */
int32_t engine_integral;    /* rpm.ms */
uint32_t engine_brake_dbar; /* last brake pressure received, 0.1 bar */
uint32_t engine_frames_rx;
static uint8_t counter;

void TIMER0_IRQHandler(void)
{
    uint32_t t = engine_ms++;
    engine_rpm = VECU_REG(VECU_ADC_DATA(0));
    int32_t target = t < 1000 ? 800 : t < 6000 ? 3000 : 1800;
    if (engine_brake_dbar > 50)
        target = 800; /* brake override: back to idle */
    int32_t e = target - (int32_t)engine_rpm;
    engine_integral += e; /* 1 ms steps */
    if (engine_integral > INTEGRAL_MAX)
        engine_integral = INTEGRAL_MAX;
    if (engine_integral < -INTEGRAL_MAX)
        engine_integral = -INTEGRAL_MAX;
    /* throttle = 0.0015 e + 0.002 integral[rpm.s] + 0.04, in 1/10000 */
    int32_t u = 15 * e + engine_integral / 50 + 400;
    u = u < 0 ? 0 : u > 10000 ? 10000 : u;
    engine_duty = (uint32_t)u;
    VECU_REG(VECU_PWM_DUTY(0)) = engine_duty;
}

void TIMER1_IRQHandler(void)
{
    /* rpm at 0.25, torque + 500 N.m at 0.1 (torque = 250 N.m * throttle),
     * throttle at 1/250, rolling counter: the task-level ECU's packing */
    uint32_t rpm4 = engine_rpm * 4u, torque = engine_duty / 4u + 5000u;
    uint32_t throttle = engine_duty / 40u;
    VECU_REG(VECU_CAN_TX_ID(0)) = ID_ENGINE_DATA;
    VECU_REG(VECU_CAN_TX_DLC(0)) = 8;
    VECU_REG(VECU_CAN_TX_DATA0(0)) = (rpm4 & 0xFFFFu) | (torque & 0xFFFFu) << 16;
    VECU_REG(VECU_CAN_TX_DATA1(0)) = throttle | (uint32_t)counter << 24;
    VECU_REG(VECU_CAN_TX_REQ) = 1u << 0;
    counter++;
}

void TIMER2_IRQHandler(void)
{
    VECU_REG(VECU_CAN_TX_ID(1)) = ID_ENGINE_STATUS;
    VECU_REG(VECU_CAN_TX_DLC(1)) = 4;
    VECU_REG(VECU_CAN_TX_DATA0(1)) = (90u + 40u) | (uint32_t)counter << 24; /* coolant 90 degC */
    VECU_REG(VECU_CAN_TX_REQ) = 1u << 1;
}

void CAN_RX_IRQHandler(void)
{
    while (VECU_REG(VECU_CAN_STATUS) & VECU_CAN_STATUS_RX_COUNT_MASK) {
        if (VECU_REG(VECU_CAN_RX_ID) == ID_BRAKE)
            engine_brake_dbar = VECU_REG(VECU_CAN_RX_DATA0) & 0xFFFFu;
        engine_frames_rx++;
        VECU_REG(VECU_CAN_RX_POP) = 1;
    }
}
