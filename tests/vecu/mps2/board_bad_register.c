/* Firmware that reads MPU_TYPE (0xE000ED90), a system register the board
 * does not model: the run must stop with an error naming it and the PC. */
#include <stdint.h>

#include "mps2_io.h"

extern uint32_t __stack_top;

void Reset_Handler(void)
{
    UART_BAUDDIV = 16;
    UART_CTRL = 1;
    puts0("before\n");
    line("mpu type ", REG(0xE000ED90));
    semihost_exit(0);
}

__attribute__((section(".vectors"), used)) void (*const vectors[2])(void) = {
    (void (*)(void))&__stack_top, Reset_Handler};
