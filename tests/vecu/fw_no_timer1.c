/* Test firmware without a TIMER1 handler: that vector is startup.c's
 * Default_Handler (weak aliases), as in firmware that forgot one; and two
 * handlers that misuse the core (a byte write to a peripheral, WFI). */
#include <stdint.h>

volatile uint32_t ticks;

void TIMER0_IRQHandler(void) { ticks++; }

/* A byte written to a peripheral register (PWM 0 at 0x40000200): a width fault. */
void TIMER2_IRQHandler(void) { *(volatile uint8_t *)0x40000200u = 1; }

/* WFI in a handler: there is no next interrupt to wake it while handlers run
 * to completion. */
void TIMER3_IRQHandler(void) { __asm__ volatile("wfi"); }
