/* Busy firmware for ARM's MPS2+ AN386 (the board case of `rtcosim bench
 * vecu`): a CRC-32 kernel over 4 KiB, 2000 rounds, with SysTick at 1 kHz
 * and a UART0 line every 200 rounds; it ends itself with a semihosting exit,
 * so QEMU's mps2-an386 can run the same ELF to the same end. */
#include <stdint.h>

#include "mps2_io.h"

#define SYST_CSR REG(0xE000E010)
#define SYST_RVR REG(0xE000E014)
#define SYST_CVR REG(0xE000E018)

extern uint32_t __stack_top;
static volatile uint32_t ticks;
static uint8_t data[4096];

void SysTick_Handler(void) { ticks++; }
void Default_Handler(void) { semihost_exit(1); }

static uint32_t crc32(const uint8_t *p, uint32_t n, uint32_t crc)
{
    crc = ~crc;
    while (n--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++)
            crc = crc & 1u ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
    }
    return ~crc;
}

void Reset_Handler(void)
{
    UART_BAUDDIV = 16;
    UART_CTRL = 1;
    for (uint32_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i * 7u + 1u);
    SYST_RVR = 25000 - 1;
    SYST_CVR = 0;
    SYST_CSR = 7;
    uint32_t crc = 0;
    for (uint32_t round = 1; round <= 2000; round++) {
        crc = crc32(data, sizeof data, crc);
        if (round % 200 == 0)
            line("crc ", crc);
    }
    SYST_CSR = 0;
    semihost_exit(0);
}

__attribute__((section(".vectors"), used)) void (*const vectors[16])(void) = {
    [0] = (void (*)(void))&__stack_top, [1] = Reset_Handler, [2] = Default_Handler,
    [3] = Default_Handler, [11] = Default_Handler, [14] = Default_Handler,
    [15] = SysTick_Handler,
};
