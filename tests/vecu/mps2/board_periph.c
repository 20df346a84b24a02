/* Test firmware for the MPS2+ AN386 peripherals and the parts of the ARMv7-M
 * system the first test (board_test.c) leaves out: the CMSDK ID registers,
 * the dual timer (periodic, one-shot, prescaler, 16/32-bit), the UART's TX
 * interrupt, FPGA I/O counters written and read back, AIRCR priority
 * grouping (subpriority does not preempt), SysTick COUNTFLAG, NVIC ICTR and
 * IABR, semihosting output, and SYS_EXIT (exit code 0). Nothing printed
 * depends on how fast the emulator runs. */
#include <stdbool.h>
#include <stdint.h>

#include "mps2_io.h"

#define SCB_ICSR REG(0xE000ED04)
#define SCB_AIRCR REG(0xE000ED0C)
#define ICTR REG(0xE000E004)
#define SYST_CSR REG(0xE000E010)
#define SYST_RVR REG(0xE000E014)
#define SYST_CVR REG(0xE000E018)
#define NVIC_ISER0 REG(0xE000E100)
#define NVIC_ICER0 REG(0xE000E180)
#define NVIC_ISPR0 REG(0xE000E200)
#define NVIC_ICPR0 REG(0xE000E280)
#define NVIC_IABR0 REG(0xE000E300)
#define NVIC_IPR(n) (*(volatile uint8_t *)(0xE000E400 + (n)))
#define DUAL 0x40002000u
#define DUAL_LOAD(i) REG(DUAL + 0x20 * (i) + 0x00)
#define DUAL_VALUE(i) REG(DUAL + 0x20 * (i) + 0x04)
#define DUAL_CTRL(i) REG(DUAL + 0x20 * (i) + 0x08)
#define DUAL_INTCLR(i) REG(DUAL + 0x20 * (i) + 0x0C)
#define DUAL_RIS(i) REG(DUAL + 0x20 * (i) + 0x10)
#define DUAL_MIS(i) REG(DUAL + 0x20 * (i) + 0x14)
#define TIMER1 0x40001000u
#define FPGAIO 0x40028000u
#define IRQ_UART0_TX 1
#define IRQ_DUAL 10
#define IRQ_P 26
#define IRQ_Q 27

extern uint32_t __stack_top, __data_start, __data_end, __data_load, __bss_start, __bss_end;

static volatile uint32_t dual_irqs, uart_tx_irqs, order[8], order_len, iabr_seen;

/* The fourth periodic interrupt of timer 0 stops it here, before its
 * interrupt is cleared, and drops one the NVIC latched meanwhile: QEMU's
 * timers run on the host's clock, and a host stall of a period (640 us)
 * while this handler runs would otherwise pend a fifth that tail-chains
 * before the wait loop's cpsid. (Timer 0 runs alone then: dual_irqs counts
 * its interrupts.) */
void Dual_Handler(void)
{
    bool last = DUAL_MIS(0) && dual_irqs >= 3;
    if (last)
        DUAL_CTRL(0) = 0;
    for (unsigned i = 0; i < 2; i++)
        if (DUAL_MIS(i) || (last && i == 0))
            DUAL_INTCLR(i) = 1;
    if (last)
        NVIC_ICPR0 = 1u << IRQ_DUAL;
    dual_irqs++;
}

void UART0_TX_Handler(void)
{
    REG(UART0 + 0xC) = 1; /* INTCLEAR TX */
    uart_tx_irqs++;
}

/* P and Q share a group priority and differ in subpriority: P pends Q,
 * which must wait until P returns (B1.5.4). */
void P_Handler(void)
{
    order[order_len++] = 1;
    NVIC_ISPR0 = 1u << IRQ_Q;
    __asm__ volatile("dsb\n isb" ::: "memory");
    iabr_seen = NVIC_IABR0 & (3u << IRQ_P);
    order[order_len++] = 2;
}
void Q_Handler(void) { order[order_len++] = 3; }

void Default_Handler(void)
{
    puts0("unexpected exception\n");
    semihost_exit(1);
}

int main(void);
void Reset_Handler(void)
{
    const uint32_t *src = &__data_load;
    for (uint32_t *dst = &__data_start; dst < &__data_end;)
        *dst++ = *src++;
    for (uint32_t *dst = &__bss_start; dst < &__bss_end;)
        *dst++ = 0;
    if (main() == 0) /* SYS_EXIT with ADP_Stopped_ApplicationExit: status 0 */
        semihost(0x18u, (const void *)0x20026u);
    semihost_exit(1);
}

__attribute__((section(".vectors"), used)) void (*const vectors[16 + 32])(void) = {
    [0] = (void (*)(void))&__stack_top,
    [1] = Reset_Handler,
    [2] = Default_Handler, [3] = Default_Handler, [4] = Default_Handler,
    [5] = Default_Handler, [6] = Default_Handler, [11] = Default_Handler,
    [14] = Default_Handler, [15] = Default_Handler,
    [16 + IRQ_UART0_TX] = UART0_TX_Handler,
    [16 + IRQ_DUAL] = Dual_Handler,
    [16 + IRQ_P] = P_Handler,
    [16 + IRQ_Q] = Q_Handler,
};

static void ids(const char *name, uint32_t base)
{
    puts0(name);
    for (uint32_t off = 0xFD0; off <= 0xFFC; off += 4) {
        putc0(' ');
        putdec((int32_t)REG(base + off));
    }
    putc0('\n');
}

int main(void)
{
    UART_BAUDDIV = 16;
    UART_CTRL = 1;
    puts0("peripherals of mps2-an386\n");
    ids("uart0 ids", UART0);
    ids("timer1 ids", TIMER1);
    ids("dualtimer ids", DUAL);
    line("uart0 ctrl ", UART_CTRL);
    line("uart0 bauddiv ", UART_BAUDDIV);
    line("ictr ", ICTR);
    /* reset values of the system control block, and the priority bits */
    line("ccr ", REG(0xE000ED14));
    line("fpccr ", REG(0xE000EF34));
    line("aircr ", SCB_AIRCR);
    line("shcsr ", REG(0xE000ED24));
    line("syst calib ", REG(0xE000E01C));
    NVIC_IPR(20) = 0xFF;
    line("ipr bits ", NVIC_IPR(20));
    NVIC_IPR(20) = 0;

    /* dual timer: reset state, then periodic 32-bit with prescale 16 */
    line("dual ctrl at reset ", DUAL_CTRL(0));
    line("dual value at reset ", DUAL_VALUE(0));
    NVIC_ISER0 = 1u << IRQ_DUAL;
    DUAL_LOAD(0) = 1000;
    /* Checked with PRIMASK set and stopped before the count is printed: QEMU's
     * timers run on the host's clock, and a stalled emulator must not let a
     * fifth interrupt in between the last check and the stop. */
    __asm__ volatile("cpsid i" ::: "memory");
    DUAL_CTRL(0) = 0x80 | 0x40 | 0x20 | 0x04 | 0x02; /* enable, periodic, inten, /16, 32-bit */
    line("dual load ", DUAL_LOAD(0));
    while (dual_irqs < 4)
        __asm__ volatile("wfi\n cpsie i\n isb\n cpsid i" ::: "memory");
    DUAL_CTRL(0) = 0;
    DUAL_INTCLR(0) = 1;
    NVIC_ICPR0 = 1u << IRQ_DUAL;
    __asm__ volatile("cpsie i" ::: "memory");
    puts0("dual periodic irqs ");
    putdec((int32_t)dual_irqs);
    putc0('\n');
    /* one-shot (16-bit: QEMU 7.2's 32-bit one-shot stops at 1 and never
     * interrupts): one interrupt, then the count stays at zero */
    dual_irqs = 0;
    DUAL_LOAD(1) = 300;
    /* wfi with PRIMASK set: an interrupt between the test and the wfi
     * still wakes it (B1.5.19), so the one interrupt cannot be missed */
    __asm__ volatile("cpsid i" ::: "memory");
    DUAL_CTRL(1) = 0x80 | 0x40 | 0x20 | 0x01;
    while (dual_irqs < 1)
        __asm__ volatile("wfi\n cpsie i\n isb\n cpsid i" ::: "memory");
    __asm__ volatile("cpsie i" ::: "memory");
    for (volatile int i = 0; i < 2000; i++)
        ;
    puts0("dual oneshot irqs ");
    putdec((int32_t)dual_irqs);
    line(" value ", DUAL_VALUE(1));
    line("dual ris ", DUAL_RIS(1));
    DUAL_CTRL(1) = 0;
    NVIC_ICER0 = 1u << IRQ_DUAL;

    /* UART TX interrupt: raised when the buffer empties after a byte */
    NVIC_ISER0 = 1u << IRQ_UART0_TX;
    UART_CTRL = 1 | 4;
    puts0("tx irq on\n");
    UART_CTRL = 1;
    NVIC_ICER0 = 1u << IRQ_UART0_TX;
    puts0(uart_tx_irqs >= 10 ? "tx irqs counted\n" : "tx irqs missing\n");

    /* FPGA I/O: counters take written values; LEDs keep two bits */
    REG(FPGAIO + 0x00) = 0xFF;
    line("leds ", REG(FPGAIO + 0x00));
    REG(FPGAIO + 0x1C) = 1000000;
    line("prescale ", REG(FPGAIO + 0x1C));
    REG(FPGAIO + 0x4C) = 0x5A;
    line("misc ", REG(FPGAIO + 0x4C));
    REG(FPGAIO + 0x10) = 500;
    puts0(REG(FPGAIO + 0x10) - 500 < 2 ? "clk1hz set\n" : "clk1hz wrong\n");

    /* priority grouping: PRIGROUP 5 gives 2 group bits [7:6] */
    SCB_AIRCR = 0x05FA0000u | 5u << 8;
    line("aircr ", SCB_AIRCR);
    NVIC_IPR(IRQ_P) = 0x60; /* group 1, sub 0x20 */
    NVIC_IPR(IRQ_Q) = 0x40; /* group 1, sub 0x00: higher, but same group */
    NVIC_ISER0 = (1u << IRQ_P) | (1u << IRQ_Q);
    NVIC_ISPR0 = 1u << IRQ_P;
    __asm__ volatile("dsb\n isb" ::: "memory");
    puts0("grouping order");
    for (uint32_t i = 0; i < order_len; i++) {
        putc0(' ');
        putdec((int32_t)order[i]);
    }
    line(" iabr ", iabr_seen);
    SCB_AIRCR = 0x12345678u; /* wrong VECTKEY: ignored */
    line("aircr kept ", SCB_AIRCR);
    SCB_AIRCR = 0x05FA0000u;

    /* SysTick COUNTFLAG: set by reaching zero (whether it is set again at
     * the next read depends on speed: not printed) */
    SYST_RVR = 999;
    SYST_CVR = 0;
    SYST_CSR = 5; /* enable, processor clock, no interrupt */
    while (!(SYST_CSR & 1u << 16))
        ;
    puts0("countflag seen\n");
    SYST_CSR = 0;
    line("rvr ", SYST_RVR);

    /* ICSR reports a pending, masked IRQ in VECTPENDING and ISRPENDING */
    __asm__ volatile("cpsid i" ::: "memory");
    NVIC_ISPR0 = 1u << IRQ_Q;
    line("icsr pending ", SCB_ICSR & 0x007FF000u);
    NVIC_ICER0 = 1u << IRQ_Q;
    REG(0xE000E280) = 1u << IRQ_Q; /* ICPR */
    __asm__ volatile("cpsie i" ::: "memory");

    /* UART1 (0x40005000): no serial backend under QEMU -nographic, a file
     * or a callback under rtcosim */
    REG(0x40005000 + 0x10) = 16;
    REG(0x40005000 + 0x8) = 1;
    for (const char *p = "uart1 says hi\n"; *p; p++) {
        while (REG(0x40005000 + 0x4) & 1u)
            ;
        REG(0x40005000) = (uint8_t)*p;
    }
    semihost(0x04, "semihosting write0\n");
    semihost(0x03, "!");
    semihost(0x03, "\n");
    puts0("end\n");
    return 0;
}
