/* Test firmware for time on the emulated MPS2 board, checked against counts
 * worked out by hand from the instructions (one cycle per instruction at
 * 25 MHz, src/vecu/README.md), not against QEMU (its DWT has no CYCCNT):
 * DWT CYCCNT across a straight run of 100 NOPs, SysTick driving wfi, and
 * the dual timer's prescaler. Also linked for another board's memory map
 * (other_board.ld), which the board must refuse. */
#include <stdint.h>

#include "mps2_io.h"

#define DEMCR REG(0xE000EDFC)
#define DWT_CTRL REG(0xE0001000)
#define DWT_CYCCNT REG(0xE0001004)
#define SYST_CSR REG(0xE000E010)
#define SYST_RVR REG(0xE000E014)
#define SYST_CVR REG(0xE000E018)

extern uint32_t __stack_top;
static volatile uint32_t ticks;
void SysTick_Handler(void) { ticks++; }
void Default_Handler(void) { semihost_exit(1); }

int main(void)
{
    UART_BAUDDIV = 16;
    UART_CTRL = 1;
    DEMCR |= 1u << 24;
    DWT_CYCCNT = 0;
    DWT_CTRL |= 1;
    /* both reads start a translated block (a branch target), so each sees
     * the count before it: ldr + 100 nop + b = 102 instructions apart */
    uint32_t c0, c1;
    __asm__ volatile("ldr r3, =0xE0001004\n"
                     "b 1f\n"
                     "1: ldr %0, [r3]\n"
                     ".rept 100\n nop\n .endr\n"
                     "b 2f\n"
                     "2: ldr %1, [r3]\n"
                     : "=&r"(c0), "=&r"(c1)::"r3", "memory");
    line("cyccnt over 100 nops ", c1 - c0);

    /* SysTick every 25000 cycles (1 ms at 25 MHz); wfi sleeps to each tick,
     * so 10 ticks take 250000 cycles plus the few instructions around them */
    SYST_RVR = 25000 - 1;
    SYST_CVR = 0;
    uint32_t start = DWT_CYCCNT;
    SYST_CSR = 7;
    while (ticks < 10)
        __asm__ volatile("wfi");
    uint32_t slept = DWT_CYCCNT - start;
    SYST_CSR = 0;
    puts0(slept >= 250000 && slept < 250000 + 400 ? "10 ticks in 10 ms\n" : "ticks off\n");
    line("cycles for 10 ticks ", slept);

    /* the same 1 ms from the 1 MHz reference clock (CLKSOURCE = 0): 1000
     * counts of 25 cycles */
    ticks = 0;
    SYST_RVR = 1000 - 1;
    SYST_CVR = 0;
    start = DWT_CYCCNT;
    SYST_CSR = 3;
    while (ticks < 10)
        __asm__ volatile("wfi");
    slept = DWT_CYCCNT - start;
    SYST_CSR = 0;
    puts0(slept >= 250000 && slept < 250000 + 400 ? "10 reference ticks in 10 ms\n"
                                                   : "reference ticks off\n");
    semihost_exit(0);
    return 0;
}

void Reset_Handler(void) { main(); }

__attribute__((section(".vectors"), used)) void (*const vectors[16])(void) = {
    [0] = (void (*)(void))&__stack_top, [1] = Reset_Handler, [2] = Default_Handler,
    [3] = Default_Handler, [11] = Default_Handler, [14] = Default_Handler,
    [15] = SysTick_Handler,
};
