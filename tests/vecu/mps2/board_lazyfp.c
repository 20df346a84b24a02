/* Test firmware for lazy FP context stacking (ARMv7-M B1.5.7, FPCCR B3.2.23)
 * on the MPS2 AN386, compared with QEMU's mps2-an386: an exception taken
 * with an FP context reserves the FP part of its frame and sets FPCCR.LSPACT
 * (with USER, THREAD, HFRDY, MMRDY, BFRDY) and FPCAR; the handler's first FP
 * instruction writes s0-s15 and FPSCR there and clears LSPACT; a return with
 * LSPACT still set leaves the registers as they are. With FPCCR.LSPEN clear
 * the FP state is stacked at entry. The stack below the frame is filled
 * with a pattern first, so the frame shows what was written when. */
#include <stdint.h>

#include "mps2_io.h"

#define SCB_CPACR REG(0xE000ED88)
#define SCB_SHCSR REG(0xE000ED24)
#define FPCCR REG(0xE000EF34)
#define FPCAR REG(0xE000EF38)

extern uint32_t __stack_top;
void Default_Handler(void) { semihost_exit(1); }

static volatile uint32_t use_fp;

/* frame: the stack pointer at entry, the exception frame */
void svc_body(uint32_t *frame)
{
    line("  fpccr at entry ", FPCCR);
    line("  fpcar - frame ", FPCAR - (uint32_t)frame);
    line("  frame s0 ", frame[8]);
    line("  frame fpscr ", frame[24]);
    if (use_fp) {
        __asm__ volatile("vmov.f32 s0, #-2.0\n vmov.f32 s1, #-2.0" ::: "s0", "s1");
        line("  fpccr after vmov ", FPCCR);
        line("  frame s0 ", frame[8]);
        line("  frame s1 ", frame[9]);
        }
}

__attribute__((naked)) void SVC_Handler(void)
{
    __asm__ volatile("mrs r0, msp\n"
                     "push {r0, lr}\n"
                     "bl svc_body\n"
                     "pop {r0, pc}\n");
}

/* a leaf without a stack frame of its own (checked in the disassembly) */
static __attribute__((noinline)) void fill_below_stack(void)
{
    uint32_t sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    for (volatile uint32_t *p = (uint32_t *)(sp - 0x200); p < (uint32_t *)sp; p++)
        *p = 0xA5A5A5A5u;
}

static void call_with_fp(const char *label, uint32_t fp_in_handler)
{
    puts0(label);
    use_fp = fp_in_handler;
    fill_below_stack();
    uint32_t s0, s1;
    __asm__ volatile("vmov.f32 s0, #1.5\n"
                     "vmov.f32 s1, #2.5\n"
                     "svc 0\n"
                     "vmov %0, s0\n"
                     "vmov %1, s1\n"
                     : "=r"(s0), "=r"(s1)::"s0", "s1", "memory");
    line("  thread s0 ", s0);
    line("  thread s1 ", s1);
    line("  fpccr after return ", FPCCR);
}

void Reset_Handler(void)
{
    UART_BAUDDIV = 16;
    UART_CTRL = 1;
    SCB_CPACR |= 0xFu << 20;
    __asm__ volatile("dsb\n isb");
    line("fpccr at reset ", FPCCR);
    call_with_fp("lazy, the handler uses the FPU\n", 1);
    call_with_fp("lazy, the handler does not\n", 0);
    SCB_SHCSR |= 7u << 16; /* MemManage, BusFault, UsageFault enabled: MMRDY, BFRDY */
    call_with_fp("lazy, faults enabled\n", 1);
    FPCCR &= ~(1u << 30); /* LSPEN off: stacked at entry */
    call_with_fp("LSPEN clear\n", 1);
    semihost_exit(0);
}

__attribute__((section(".vectors"), used)) void (*const vectors[16])(void) = {
    [0] = (void (*)(void))&__stack_top, [1] = Reset_Handler, [2] = Default_Handler,
    [3] = Default_Handler, [4] = Default_Handler, [5] = Default_Handler,
    [6] = Default_Handler, [11] = SVC_Handler, [14] = Default_Handler,
    [15] = Default_Handler,
};
