/* Test firmware that defines only the TIMER0 handler: every other vector is
 * startup.c's Default_Handler (weak aliases), as in firmware that forgot one. */
#include <stdint.h>

volatile uint32_t ticks;

void TIMER0_IRQHandler(void) { ticks++; }
