/* Test firmware for AIRCR.SYSRESETREQ on the MPS2 AN386, compared with
 * QEMU's mps2-an386, which resets the whole machine and loads the image
 * again: a boot count kept in RAM that no segment of the ELF covers (a reset
 * leaves it), .data's initial value in the image back after the boot
 * before overwrote it there, and the registers the boot
 * before changed (VTOR, AIRCR.PRIGROUP, SHPR3, NVIC ISER, SysTick, UART0,
 * timer 0, FPGA LEDs, PRIMASK, IPSR) back at their reset values. The second
 * reset is requested from inside the SVCall handler. */
#include <stdint.h>

#include "mps2_io.h"

#define BOOTS REG(0x20300000) /* SSRAM2, 1 MiB below the stack top, outside every segment */
#define SCB_VTOR REG(0xE000ED08)
#define SCB_AIRCR REG(0xE000ED0C)
#define SCB_SHPR3 REG(0xE000ED20)
#define NVIC_ISER0 REG(0xE000E100)
#define SYST_CSR REG(0xE000E010)
#define SYST_RVR REG(0xE000E014)
#define TIMER0_CTRL REG(0x40000008)
#define FPGA_LED REG(0x40028000)

extern uint32_t __stack_top, __data_start, __data_end, __data_load, __bss_start, __bss_end;
static volatile uint32_t initialised = 100; /* .data */
static volatile uint32_t cleared;           /* .bss */
static uint32_t ram_vectors[48] __attribute__((aligned(256)));

void Default_Handler(void) { semihost_exit(1); }

static void request_reset(void)
{
    SCB_AIRCR = 0x05FA0000u | 4u; /* VECTKEY, SYSRESETREQ */
    for (;;)
        ;
}

void SVC_Handler(void) { request_reset(); }

static void app(void)
{
    uint32_t boot = BOOTS + 1;
    BOOTS = boot;
    uint32_t uart_ctrl = UART_CTRL; /* before enabling it again */
    UART_BAUDDIV = 16;
    UART_CTRL = 1;
    uint32_t ipsr, primask;
    __asm__ volatile("mrs %0, ipsr\n mrs %1, primask" : "=r"(ipsr), "=r"(primask));
    line("boot ", boot);
    line(".data ", initialised);
    line(".bss ", cleared);
    line("uart0 ctrl ", uart_ctrl);
    line("vtor ", SCB_VTOR);
    line("aircr ", SCB_AIRCR);
    line("shpr3 ", SCB_SHPR3);
    line("iser0 ", NVIC_ISER0);
    line("systick csr ", SYST_CSR);
    line("timer0 ctrl ", TIMER0_CTRL);
    line("leds ", FPGA_LED);
    line("ipsr ", ipsr);
    line("primask ", primask);
    if (boot == 3) {
        puts0("done\n");
        semihost_exit(0);
    }
    /* change everything the reset must put back */
    initialised = 200 + boot;
    cleared = 300 + boot;
    __data_load = 400 + boot; /* the image's copy of .data in SSRAM1: loaded again */
    const uint32_t *rom = 0;
    for (unsigned i = 0; i < 48; i++)
        ram_vectors[i] = rom[i];
    SCB_VTOR = (uint32_t)ram_vectors;
    SCB_AIRCR = 0x05FA0000u | 5u << 8;
    SCB_SHPR3 = 0x40800000u;
    NVIC_ISER0 = 1u << 8;
    SYST_RVR = 1000000;
    SYST_CSR = 5; /* enabled, no interrupt */
    TIMER0_CTRL = 1;
    FPGA_LED = 3;
    if (boot == 1) {
        __asm__ volatile("cpsid i");
        request_reset();
    }
    __asm__ volatile("svc 0");
    puts0("no reset\n");
    semihost_exit(1);
}

void Reset_Handler(void)
{
    uint32_t *d = &__data_start;
    for (const uint32_t *s = &__data_load; d < &__data_end;)
        *d++ = *s++;
    for (uint32_t *z = &__bss_start; z < &__bss_end;)
        *z++ = 0;
    app();
}

__attribute__((section(".vectors"), used)) void (*const vectors[16])(void) = {
    [0] = (void (*)(void))&__stack_top, [1] = Reset_Handler, [2] = Default_Handler,
    [3] = Default_Handler, [11] = SVC_Handler, [14] = Default_Handler, [15] = Default_Handler,
};
