/* Test firmware of the virtual-ECU tests: hand-counted instruction loops,
 * cycle counter reads, peripheral semantics and one fault per handler. */
#include <stdint.h>

#include "rtcosim/vecu_periph.h"

uint32_t cyc_first, cyc_delta, seen_rx, seen_status, data_value = 0x12345678u;
volatile uint32_t sink;

/* 1 + 100 * 2 + 1 = 202 instructions: movs; 100 x (subs, bne); bx lr */
__attribute__((naked)) void TIMER0_IRQHandler(void)
{
    __asm__ volatile("movs r0, #100\n"
                     "1: subs r0, r0, #1\n"
                     "bne 1b\n"
                     "bx lr\n");
}

/* CYCCNT read, a call of the 202-instruction loop, CYCCNT read again. The
 * counter has the resolution of a basic block: a read returns the count at
 * the start of its block, here the handler's entry (block: push, ldr, ldr,
 * bl) and the return point after 4 + 202 instructions. */
__attribute__((naked)) void TIMER1_IRQHandler(void)
{
    __asm__ volatile("push {r4, lr}\n"
                     "ldr r4, =0x40000004\n"
                     "ldr r1, [r4]\n"
                     "bl TIMER0_IRQHandler\n"
                     "ldr r2, [r4]\n"
                     "ldr r3, =cyc_first\n"
                     "str r1, [r3]\n"
                     "subs r2, r2, r1\n"
                     "ldr r3, =cyc_delta\n"
                     "str r2, [r3]\n"
                     "pop {r4, pc}\n"
                     ".ltorg\n");
}

/* ADC in, PWM and DOUT out, with float arithmetic on the FPU */
void TIMER2_IRQHandler(void)
{
    VECU_REG(VECU_PWM_DUTY(0)) = VECU_REG(VECU_ADC_DATA(0)) * 2u;
    VECU_REG(VECU_PWM_DUTY(1)) = 20000u; /* clamped to VECU_PWM_FULL */
    VECU_REG(VECU_DOUT) = VECU_REG(VECU_ADC_DATA(1));
    /* single-precision FPU (built with -mfloat-abi=hard) */
    float x = (float)VECU_REG(VECU_ADC_DATA(0));
    VECU_REG(VECU_PWM_DUTY(2)) = (uint32_t)(x * 1.5f + 0.25f);
}

/* CAN: echo the oldest frame with id + 1 and inverted data on mailbox 0,
 * request mailbox 0 twice (the second sets TX_BUSY) */
void CAN_RX_IRQHandler(void)
{
    seen_rx = VECU_REG(VECU_CAN_STATUS) & VECU_CAN_STATUS_RX_COUNT_MASK;
    VECU_REG(VECU_CAN_TX_ID(0)) = VECU_REG(VECU_CAN_RX_ID) + 1u;
    VECU_REG(VECU_CAN_TX_DLC(0)) = VECU_REG(VECU_CAN_RX_DLC);
    VECU_REG(VECU_CAN_TX_DATA0(0)) = ~VECU_REG(VECU_CAN_RX_DATA0);
    VECU_REG(VECU_CAN_TX_DATA1(0)) = ~VECU_REG(VECU_CAN_RX_DATA1);
    VECU_REG(VECU_CAN_RX_POP) = 1;
    VECU_REG(VECU_CAN_TX_REQ) = 1;
    VECU_REG(VECU_CAN_TX_REQ) = 1;
    seen_status = VECU_REG(VECU_CAN_STATUS);
}

/* faults, each in a function of its own name */
__attribute__((noinline)) void bad_write(void) { *(volatile uint32_t *)0x30000000u = 1; }
void TIMER3_IRQHandler(void) { bad_write(); }

__attribute__((noinline)) void undefined_instruction(void) { __asm__ volatile(".short 0xde42"); }
void IRQ4_Handler(void) { undefined_instruction(); }

__attribute__((noinline)) uint32_t deep_recursion(uint32_t n)
{
    volatile uint32_t frame[64];
    frame[n % 64] = n;
    return n == 0 ? 0 : deep_recursion(n - 1) + frame[n % 64];
}
void IRQ5_Handler(void) { sink = deep_recursion(100000); }

__attribute__((noinline)) void flash_write(void) { *(volatile uint32_t *)0x00002000u = 1; }
void IRQ6_Handler(void) { flash_write(); }

__attribute__((noinline)) void spin_forever(void)
{
    for (;;)
        sink++;
}
void IRQ7_Handler(void) { spin_forever(); }
