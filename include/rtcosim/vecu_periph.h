/* Memory and peripheral register map of the rtcosim virtual ECU (vecu.h),
 * shared by the emulator and the firmware that runs on it: firmware includes
 * this header (plain C, no rtcosim dependencies) and reaches its peripherals
 * through the VECU_REG macros. All registers are 32 bits wide, word access. */
#ifndef RTCOSIM_VECU_PERIPH_H
#define RTCOSIM_VECU_PERIPH_H

#include <stdint.h>

/* Memory map. Flash (read + execute) holds the vector table at 0; RAM (read,
 * write, execute) starts at VECU_RAM_BASE. The page below RAM is left
 * unmapped as the stack guard: firmware that puts its stack at the bottom
 * of RAM (as examples/firmware/vecu.ld does) turns a stack overflow into a
 * guard fault instead of silently corrupting .data. Every other address
 * outside flash, RAM and the peripheral block stops the ECU with an error. */
#define VECU_FLASH_BASE 0x00000000u
#define VECU_FLASH_SIZE 0x00040000u /* 256 KiB */
#define VECU_RAM_BASE 0x20000000u   /* size: the emulator's ram_size (default 16 KiB) */
#define VECU_GUARD_SIZE 0x00001000u /* unmapped, just below VECU_RAM_BASE */
#define VECU_PERIPH_BASE 0x40000000u
#define VECU_PERIPH_SIZE 0x00001000u

/* Exception numbers (vector table index, ARMv7-M B1.5.2): 0 holds the
 * initial stack pointer, 1 the reset handler; external interrupt n is
 * exception 16 + n. The emulator uses these IRQ numbers by default. */
#define VECU_EXC_RESET 1u
#define VECU_IRQ_TIMER0 0u /* fastest task raster (e.g. 1 ms) */
#define VECU_IRQ_TIMER1 1u /* second raster (e.g. 10 ms) */
#define VECU_IRQ_TIMER2 2u /* third raster (e.g. 100 ms) */
#define VECU_IRQ_TIMER3 3u
#define VECU_IRQ_CAN_RX 8u /* a frame entered the receive FIFO */

/* ---- system block ---- */
#define VECU_SYS_ID 0x000u        /* RO: VECU_ID_VALUE */
#define VECU_SYS_CYCCNT_LO 0x004u /* RO: free-running core cycle counter, low word;
                                     reading it latches the high word */
#define VECU_SYS_CYCCNT_HI 0x008u /* RO: high word latched by the last LO read */
#define VECU_SYS_CLOCK_HZ 0x00Cu  /* RO: core clock frequency */
#define VECU_SYS_IRQ 0x010u       /* RO: IRQ number of the running handler (0xFF: reset) */
#define VECU_ID_VALUE 0x55434556u /* "VECU" */

/* ---- ADC: channel n (n < VECU_ADC_CHANNELS), RO, right-aligned counts of
 * the conversion sampled when the running handler started ---- */
#define VECU_ADC_CHANNELS 8u
#define VECU_ADC_DATA(n) (0x100u + 4u * (n))

/* ---- PWM and digital outputs (RW); the plant sees them when the handler
 * ends (ECU output timing) ---- */
#define VECU_PWM_CHANNELS 8u
#define VECU_PWM_FULL 10000u /* duty of 100 %; larger values are clamped */
#define VECU_PWM_DUTY(n) (0x200u + 4u * (n))
#define VECU_DOUT 0x240u /* digital outputs, one per bit */

/* ---- CAN controller (classic CAN) ----
 * Receive FIFO: CAN_STATUS bits 0-7 = frames waiting; CAN_RX_* show the
 * oldest one; writing CAN_RX_POP removes it. A frame arriving with the FIFO
 * full is dropped and sets CAN_STATUS_RX_OVERRUN (sticky; write
 * CAN_STATUS_RX_OVERRUN to CAN_CLEAR to clear).
 * Transmit mailboxes m < VECU_CAN_TX_MAILBOXES: write ID, DLC, DATA0 (bytes
 * 0-3, little-endian), DATA1 (bytes 4-7), then bit m to CAN_TX_REQ. The frame
 * goes to the bus when the handler ends; until then bit m is set in
 * CAN_TX_PENDING and a second request of the mailbox sets
 * CAN_STATUS_TX_BUSY (sticky) and is ignored. */
#define VECU_CAN_RX_FIFO_DEPTH 16u
#define VECU_CAN_TX_MAILBOXES 4u
#define VECU_CAN_STATUS 0x300u
#define VECU_CAN_STATUS_RX_COUNT_MASK 0xFFu
#define VECU_CAN_STATUS_RX_OVERRUN (1u << 8)
#define VECU_CAN_STATUS_TX_BUSY (1u << 9)
#define VECU_CAN_CLEAR 0x304u  /* W1C of the sticky status bits */
#define VECU_CAN_RX_ID 0x310u  /* identifier; bit 31: extended (29-bit) */
#define VECU_CAN_RX_DLC 0x314u
#define VECU_CAN_RX_DATA0 0x318u
#define VECU_CAN_RX_DATA1 0x31Cu
#define VECU_CAN_RX_POP 0x320u
#define VECU_CAN_TX_REQ 0x330u
#define VECU_CAN_TX_PENDING 0x334u
#define VECU_CAN_TX_ID(m) (0x340u + 0x10u * (m))
#define VECU_CAN_TX_DLC(m) (0x344u + 0x10u * (m))
#define VECU_CAN_TX_DATA0(m) (0x348u + 0x10u * (m))
#define VECU_CAN_TX_DATA1(m) (0x34Cu + 0x10u * (m))
#define VECU_CAN_ID_EXTENDED (1u << 31)

/* Firmware access. */
#define VECU_REG(offset) (*(volatile uint32_t *)(VECU_PERIPH_BASE + (offset)))

#endif
