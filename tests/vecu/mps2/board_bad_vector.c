/* Firmware whose reset vector points outside the board's memory (0x90000000,
 * external memory the MPS2 board does not have): refused before running. */
#include <stdint.h>

extern uint32_t __stack_top;

__attribute__((section(".vectors"), used)) const uint32_t vectors[2] = {
    (uint32_t)&__stack_top, 0x90000001u};

/* the linker script's entry symbol; the vector table does not point to it */
void Reset_Handler(void)
{
    for (;;)
        ;
}
