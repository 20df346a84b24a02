/* Virtual ECU: an ARM Cortex-M4 (ARMv7E-M, Thumb-2; the Unicorn engine's
 * cortex-m4 model) running the ECU's own cross-compiled firmware ELF, with
 * the peripherals of vecu_periph.h, time taken from what it executes, and
 * whole-core state save/restore.
 *
 * Calling convention (documented substitute for hardware exception entry):
 * the emulator runs one handler at a time to completion, as the ECU LP's
 * non-preemptive jobs do. A handler is the address in the firmware's vector
 * table (word n = exception n, ARMv7-M B1.5.3); it is entered as an AAPCS
 * function `void handler(void)` with SP = the initial stack pointer (vector
 * word 0), LR = a return trap, Thumb state, thread mode, privileged. Handlers
 * written for hardware work unchanged, since Cortex-M handlers are AAPCS
 * functions and the hardware's stacking of r0-r3, r12, LR, PC, xPSR only
 * preserves state of the interrupted code, of which there is none here. The
 * reset handler (exception 1) must return when initialisation is done (copy
 * .data, zero .bss, set up); the core idles between handlers, as a WFI loop.
 *
 * Time: cycles = executed instructions x CPI at clock_hz. Instructions are
 * counted per translated block (a block hook adds the block's instruction
 * count, decoded once and cached), never per instruction. The cycle
 * counter register (VECU_SYS_CYCCNT_LO) = the handler's start cycle + the
 * cycles before the basic block of the reading instruction: exact across
 * calls, loops and branches, block-granular within straight-line code. A
 * CPI is one figure for all instructions (no per-class costs, no wait
 * states, no pipeline or cache model). */
#ifndef RTCOSIM_VECU_H
#define RTCOSIM_VECU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/can.h"
#include "rtcosim/component.h"
#include "rtcosim/ecu.h"
#include "rtcosim/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rtcosim_vecu rtcosim_vecu;

typedef struct rtcosim_vecu_config {
    const char *name;     /* the ECU's name, used in every error */
    const char *firmware; /* path of the firmware ELF (ARM, 32-bit, little-endian) */
    uint64_t clock_hz;    /* 0: 168 MHz */
    double cpi;           /* cycles per instruction, 0: 1.0 */
    size_t ram_size;      /* 0: 16 KiB; rounded up to 4 KiB */
} rtcosim_vecu_config;

/* Load the firmware: every PT_LOAD segment goes to its physical (load)
 * address, which must lie in flash or RAM; the symbol table names code in
 * errors. Does not run it: see rtcosim_vecu_reset. */
rtcosim_status rtcosim_vecu_create(const rtcosim_vecu_config *config, rtcosim_vecu **out,
                                   rtcosim_error *err);
void rtcosim_vecu_free(rtcosim_vecu *v);
const char *rtcosim_vecu_name(const rtcosim_vecu *v);
uint64_t rtcosim_vecu_clock_hz(const rtcosim_vecu *v);

/* Power-on: RAM and peripherals to zero, segments reloaded, then the reset
 * handler runs (at most max_instructions). */
rtcosim_status rtcosim_vecu_reset(rtcosim_vecu *v, uint64_t max_instructions,
                                  rtcosim_error *err);

/* Run the handler of exception `exception` (16 + IRQ n for interrupts) to
 * its return. `start_cycle` is the core cycle counter at entry (the
 * free-running counter firmware reads); *cycles receives the cycles it ran.
 * More than max_instructions (an endless loop), a fault (access outside the
 * map, write to flash, stack overflow into the guard, undefined
 * instruction) stops it with an error naming the ECU, the PC and the
 * function at the PC; the core state is then undefined until a reset or
 * restore. */
rtcosim_status rtcosim_vecu_run_exception(rtcosim_vecu *v, unsigned exception,
                                          uint64_t start_cycle, uint64_t max_instructions,
                                          uint64_t *cycles, rtcosim_error *err);
/* Instructions executed since creation (all handlers, all resets). */
uint64_t rtcosim_vecu_instructions(const rtcosim_vecu *v);
/* Address of a function or object symbol of the firmware; false if absent. */
bool rtcosim_vecu_symbol(const rtcosim_vecu *v, const char *name, uint32_t *address);
/* Read firmware memory (flash or RAM) into `out`. */
rtcosim_status rtcosim_vecu_read(const rtcosim_vecu *v, uint32_t address, void *out, size_t size,
                                 rtcosim_error *err);

/* ---- peripherals, host side ---- */
void rtcosim_vecu_adc_set(rtcosim_vecu *v, unsigned channel, uint32_t counts);
uint32_t rtcosim_vecu_pwm(const rtcosim_vecu *v, unsigned channel); /* 0..VECU_PWM_FULL */
uint32_t rtcosim_vecu_dout(const rtcosim_vecu *v);
/* Append a received frame to the RX FIFO; false (and the overrun flag) when full. */
bool rtcosim_vecu_can_receive(rtcosim_vecu *v, const rtcosim_can_frame *frame);
/* Take the next requested TX mailbox (lowest number first); false if none. */
bool rtcosim_vecu_can_take(rtcosim_vecu *v, rtcosim_can_frame *frame);

/* ---- state ----
 * The data block: peripheral registers and RAM, everything of the core that
 * survives from one handler to the next. rtcosim_vecu_bind_data moves it to
 * a caller's block of rtcosim_vecu_data_size bytes (copied there), so that
 * an owner can snapshot it with its own state (the ECU LP does). */
size_t rtcosim_vecu_data_size(const rtcosim_vecu *v);
void *rtcosim_vecu_data(rtcosim_vecu *v);
rtcosim_status rtcosim_vecu_bind_data(rtcosim_vecu *v, void *block, rtcosim_error *err);
/* The whole core as a flat snapshot: core registers (r0-r12, SP, LR, PC,
 * xPSR, CONTROL, PRIMASK), the data block and the instruction counter. */
size_t rtcosim_vecu_state_size(const rtcosim_vecu *v);
rtcosim_status rtcosim_vecu_save_state(const rtcosim_vecu *v, void *buffer, size_t size,
                                       rtcosim_error *err);
rtcosim_status rtcosim_vecu_restore_state(rtcosim_vecu *v, const void *buffer, size_t size,
                                          rtcosim_error *err);

/* ---- the virtual ECU as an ECU LP (see ecu.h for the execution model) ----
 * Task rasters raise timer IRQs; every received frame of an RX identifier
 * enters the CAN RX FIFO and raises the CAN RX IRQ. At a job's start the ADC
 * registers take the sensors (counts = round(value * gain + offset), clamped
 * to 0 .. 2^bits - 1); at its end actuator i = PWM_DUTY[i] / VECU_PWM_FULL *
 * scale + offset and the requested TX mailboxes go to the bus. A job takes
 * max(executed cycles + overhead_cycles, its declared minimum +
 * overhead_cycles); the minima bound the ECU's
 * response delay (its lookahead), as a timing analysis' BCET would. */
#define RTCOSIM_VECU_RASTERS_MAX 4
#define RTCOSIM_VECU_CAN_IDS_MAX 16

typedef struct rtcosim_vecu_raster {
    const char *name;
    rtcosim_time_ns period, offset;
    unsigned irq;        /* VECU_IRQ_TIMERn */
    int priority;        /* lower runs first */
    uint64_t min_cycles; /* declared best case, >= 1 */
} rtcosim_vecu_raster;

typedef struct rtcosim_vecu_can_id {
    uint32_t id;
    bool extended;
    uint8_t dlc; /* TX: the declared length */
} rtcosim_vecu_can_id;

typedef struct rtcosim_vecu_ecu_config {
    rtcosim_vecu_config core;
    rtcosim_can_bus *bus; /* NULL: no CAN */
    size_t sensor_count, actuator_count;
    double adc_gain[RTCOSIM_ECU_IO_MAX], adc_offset[RTCOSIM_ECU_IO_MAX];
    unsigned adc_bits[RTCOSIM_ECU_IO_MAX]; /* 0: 12 */
    double pwm_scale[RTCOSIM_ECU_IO_MAX], pwm_offset[RTCOSIM_ECU_IO_MAX];
    const double *actuator_init; /* NULL: zeros */
    rtcosim_vecu_raster rasters[RTCOSIM_VECU_RASTERS_MAX];
    size_t raster_count;
    rtcosim_vecu_can_id rx[RTCOSIM_VECU_CAN_IDS_MAX], tx[RTCOSIM_VECU_CAN_IDS_MAX];
    size_t rx_count, tx_count;
    uint64_t can_rx_min_cycles; /* declared best case of the CAN RX handler */
    /* cycles every job adds to its handler's: exception entry and return
     * (a Cortex-M4 stacks in 12 cycles and unstacks in about 10 with
     * zero-wait-state memory) and any OS dispatch; also part of the minima */
    uint64_t overhead_cycles;
} rtcosim_vecu_ecu_config;

typedef struct rtcosim_vecu_ecu rtcosim_vecu_ecu;

/* Create the ECU LP running the firmware (reset already run), tasks and CAN
 * declared. Attach a plant to rtcosim_vecu_ecu_ecu() and connect it as for a
 * task-level ECU. */
rtcosim_status rtcosim_vecu_ecu_create(rtcosim_events *sim, const rtcosim_vecu_ecu_config *config,
                                       rtcosim_vecu_ecu **out, rtcosim_error *err);
void rtcosim_vecu_ecu_free(rtcosim_vecu_ecu *ve); /* frees the ECU too */
rtcosim_ecu *rtcosim_vecu_ecu_ecu(rtcosim_vecu_ecu *ve);
rtcosim_vecu *rtcosim_vecu_ecu_core(rtcosim_vecu_ecu *ve);

/* ---- the virtual ECU as a co-simulation component ----
 * For SSP systems under the master (no CAN there): FLOAT64 inputs "adc0"..
 * (value references 0..; ADC counts, rounded and clamped to 12 bits), outputs
 * "pwm0".. (100..; duty as a fraction 0..1), "dout" (200; the DOUT bits) and
 * "load" (201; share of the last step the core was busy), and the STRING
 * parameter "firmware" (300), loaded at initialization. A step [t, t+h)
 * runs the raster jobs released in it on the same non-preemptive core as the
 * ECU LP (lowest priority number first, one pending activation per raster);
 * a job samples the inputs when it starts, its outputs appear when it ends
 * and are visible from the first step end at or after that. State
 * snapshots and serialization carry the whole core. */
typedef struct rtcosim_vecu_component_config {
    rtcosim_vecu_config core; /* core.name: the model name (instance names come later) */
    rtcosim_vecu_raster rasters[RTCOSIM_VECU_RASTERS_MAX];
    size_t raster_count;
    size_t adc_count, pwm_count; /* <= 8 each */
    uint64_t overhead_cycles;    /* per job, as in rtcosim_vecu_ecu_config */
} rtcosim_vecu_component_config;

#define RTCOSIM_VECU_VR_ADC 0u
#define RTCOSIM_VECU_VR_PWM 100u
#define RTCOSIM_VECU_VR_DOUT 200u
#define RTCOSIM_VECU_VR_LOAD 201u
#define RTCOSIM_VECU_VR_FIRMWARE 300u /* STRING parameter "firmware" (default: core.firmware) */

/* The firmware is loaded, and its reset handler run, at enter_init. */
rtcosim_status rtcosim_vecu_component_create(const rtcosim_vecu_component_config *config,
                                             rtcosim_component **out, rtcosim_error *err);
/* Register the configuration (copied, strings included) as a native model
 * type, so that an SSP file names it by the source "rtcosim:NAME". */
rtcosim_status rtcosim_vecu_component_register(const char *name,
                                               const rtcosim_vecu_component_config *config,
                                               rtcosim_error *err);

#ifdef __cplusplus
}
#endif
#endif
