/* Startup code of rtcosim virtual-ECU firmware: the vector table (initial
 * stack pointer, reset handler, the timer and CAN interrupts of
 * vecu_periph.h) and a reset handler that initialises .data and .bss, calls
 * firmware_init() and returns, as the emulator's calling convention expects
 * (include/rtcosim/vecu.h). Unused vectors trap (UDF), so a stray interrupt
 * is reported with its handler's name. */
#include <stdint.h>

#include "rtcosim/vecu_periph.h"

extern uint32_t __stack_top, __data_start, __data_end, __data_load, __bss_start, __bss_end;

void Reset_Handler(void);
void Default_Handler(void);
void firmware_init(void) __attribute__((weak));
#define WEAK_HANDLER __attribute__((weak, alias("Default_Handler")))
void TIMER0_IRQHandler(void) WEAK_HANDLER;
void TIMER1_IRQHandler(void) WEAK_HANDLER;
void TIMER2_IRQHandler(void) WEAK_HANDLER;
void TIMER3_IRQHandler(void) WEAK_HANDLER;
void IRQ4_Handler(void) WEAK_HANDLER;
void IRQ5_Handler(void) WEAK_HANDLER;
void IRQ6_Handler(void) WEAK_HANDLER;
void IRQ7_Handler(void) WEAK_HANDLER;
void CAN_RX_IRQHandler(void) WEAK_HANDLER;

void Default_Handler(void) { __builtin_trap(); }
void firmware_init(void) {}

void Reset_Handler(void)
{
    const uint32_t *src = &__data_load;
    for (uint32_t *dst = &__data_start; dst < &__data_end;)
        *dst++ = *src++;
    for (uint32_t *dst = &__bss_start; dst < &__bss_end;)
        *dst++ = 0;
    firmware_init();
}

__attribute__((section(".vectors"), used)) void (*const vecu_vectors[16 + 9])(void) = {
    [0] = (void (*)(void))&__stack_top,
    [1] = Reset_Handler,
    [2 ... 15] = Default_Handler,
    [16 + VECU_IRQ_TIMER0] = TIMER0_IRQHandler,
    [16 + VECU_IRQ_TIMER1] = TIMER1_IRQHandler,
    [16 + VECU_IRQ_TIMER2] = TIMER2_IRQHandler,
    [16 + VECU_IRQ_TIMER3] = TIMER3_IRQHandler,
    [16 + 4] = IRQ4_Handler,
    [16 + 5] = IRQ5_Handler,
    [16 + 6] = IRQ6_Handler,
    [16 + 7] = IRQ7_Handler,
    [16 + VECU_IRQ_CAN_RX] = CAN_RX_IRQHandler,
};
