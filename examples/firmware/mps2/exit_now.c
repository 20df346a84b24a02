/* Firmware that exits through semihosting at once: `rtcosim bench vecu`
 * times QEMU starting and stopping with it, to take that from QEMU's time on
 * crc_busy.elf. */
#include <stdint.h>

#include "mps2_io.h"

extern uint32_t __stack_top;

void Reset_Handler(void) { semihost_exit(0); }

__attribute__((section(".vectors"), used)) void (*const vectors[2])(void) = {
    (void (*)(void))&__stack_top, Reset_Handler};
