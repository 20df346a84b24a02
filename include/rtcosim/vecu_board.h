/* Boards: firmware built for a real board (its memory map, peripherals and
 * the ARMv7-M system control space) running alone on the emulated core, from
 * its reset vector until it ends itself through semihosting or a stop time.
 * Board descriptions are data (vecu/board.c); `rtcosim firmware run` uses
 * this API. */
#ifndef RTCOSIM_VECU_BOARD_H
#define RTCOSIM_VECU_BOARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/events.h"
#include "rtcosim/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rtcosim_board rtcosim_board;

/* A byte the firmware sent on UART `uart` (0-based) or through semihosting
 * (`uart` = RTCOSIM_BOARD_SEMIHOSTING). Called on the emulating thread. */
#define RTCOSIM_BOARD_SEMIHOSTING 0xFFu
typedef void (*rtcosim_board_output_fn)(void *user, unsigned uart, unsigned char byte);

typedef struct rtcosim_board_config {
    const char *board;        /* "mps2-an386"; NULL: that one */
    const char *firmware;     /* ELF path */
    int64_t stop_time_ns;     /* end of the run if the firmware does not end it; 0: none */
    rtcosim_board_output_fn output; /* may be NULL */
    void *user;
} rtcosim_board_config;

typedef struct rtcosim_board_result {
    bool exited;          /* the firmware ended by semihosting SYS_EXIT */
    int exit_code;        /* its code (as QEMU reports it) */
    int64_t time_ns;      /* simulated time at the end */
    uint64_t instructions;
} rtcosim_board_result;

/* Board names, NULL past the last; `summary` gets a one-line description. */
const char *rtcosim_board_name(size_t index, const char **summary);

/* Map the board, load the ELF (every PT_LOAD segment must lie in its
 * memory), check the vector table. Errors: unknown board, an ELF for another
 * memory map, vectors outside the boot memory. */
rtcosim_status rtcosim_board_create(const rtcosim_board_config *config, rtcosim_board **out,
                                    rtcosim_error *err);
/* Run from reset to the semihosting exit or the stop time. A lockup, a fault
 * the firmware cannot take, an access to an unmodelled system register: an
 * error naming the address and the PC. */
rtcosim_status rtcosim_board_run(rtcosim_board *b, rtcosim_board_result *result,
                                 rtcosim_error *err);
/* Run (from reset on the first call, then on from where the last call
 * stopped) until simulated time `until_ns` or the firmware's exit; a run that
 * ended stays ended. The co-simulation component steps a board this way. */
rtcosim_status rtcosim_board_run_until(rtcosim_board *b, int64_t until_ns,
                                       rtcosim_board_result *result, rtcosim_error *err);
void rtcosim_board_free(rtcosim_board *b);

/* A board as a logical process of the event kernel (vecu/board_lp.c): an
 * event every `period_ns` runs the board to that time with
 * rtcosim_board_run_until and samples its outputs, the UART0 bytes (kept in
 * order) and the FPGA LEDs (each change with the event time that saw it).
 * It talks to no other LP (a CAN bridge is not modelled), so its results do
 * not depend on the scheduler or thread count. The emulated machine cannot
 * save its state cheaply: the LP declares no state saving, and the
 * speculative scheduler runs it conservatively, never speculated on. The
 * firmware's exit ends the LP's events, not the run. */
typedef struct rtcosim_board_lp rtcosim_board_lp;

typedef struct rtcosim_board_lp_config {
    const char *name;     /* LP name */
    const char *board;    /* NULL: mps2-an386 */
    const char *firmware; /* ELF path */
    int64_t period_ns;    /* sampling period; 0: 1 ms */
} rtcosim_board_lp_config;

typedef struct rtcosim_board_lp_stats {
    uint64_t samples, instructions, led_changes;
    uint32_t leds;        /* FPGA LEDs at the last sample */
    bool exited;
    int exit_code;
    int64_t time_ns;      /* board time at the last sample */
    size_t uart0_bytes;
    uint64_t checksum;    /* FNV-1a of UART0 bytes, LED trace, instructions, exit */
} rtcosim_board_lp_stats;

rtcosim_status rtcosim_board_lp_create(rtcosim_events *sim, const rtcosim_board_lp_config *config,
                                       rtcosim_board_lp **out, rtcosim_error *err);
/* UART0's bytes so far (not NUL-terminated), *size of them. */
const unsigned char *rtcosim_board_lp_uart0(const rtcosim_board_lp *lp, size_t *size);
void rtcosim_board_lp_stats_get(const rtcosim_board_lp *lp, rtcosim_board_lp_stats *out);
void rtcosim_board_lp_free(rtcosim_board_lp *lp);

#ifdef __cplusplus
}
#endif

#endif
