/* Internals of the board machine (include/rtcosim/vecu_board.h): the board
 * descriptions as data, the machine state shared by the run loop and
 * exception model (board.c), the system control space (armv7m_scs.c) and the
 * CMSDK peripherals of the MPS2 boards (cmsdk.c). */
#ifndef RTCOSIM_VECU_BOARD_INTERNAL_H
#define RTCOSIM_VECU_BOARD_INTERNAL_H

#include "rtcosim/vecu_board.h"
#include "vecu_internal.h"

#define BOARD_MAX_RAM 8
#define BOARD_MAX_UART 5
#define BOARD_MAX_TIMER 2
#define BOARD_MAX_RAZ_WI 12
#define BOARD_EXCEPTIONS (16 + 256)

typedef struct board_ram {
    const char *name;
    uint32_t base, size;
    int alias_of; /* -1, or the index of the region it mirrors */
} board_ram;

typedef struct board_range {
    uint32_t base, size;
} board_range;

/* A board as data: what QEMU's machine model or the board's manual says. */
typedef struct board_desc {
    const char *name, *summary;
    uint64_t clock_hz;
    uint64_t refclk_hz;      /* SysTick's external reference clock (CLKSOURCE = 0), 0: none */
    uint32_t cpuid;
    unsigned irq_count;      /* external interrupts of the NVIC */
    board_ram ram[BOARD_MAX_RAM];
    unsigned ram_count;
    unsigned uart_count;
    struct { uint32_t base; int irq_rx, irq_tx; } uart[BOARD_MAX_UART];
    unsigned timer_count;
    struct { uint32_t base; int irq; } timer[BOARD_MAX_TIMER];
    uint32_t dualtimer_base;
    int dualtimer_irq;
    uint32_t fpgaio_base;
    board_range raz_wi[BOARD_MAX_RAZ_WI]; /* read-as-zero, write-ignored, as QEMU's mps2 machines have them */
    unsigned raz_wi_count;
} board_desc;

typedef struct board_uart {
    uint32_t state, ctrl, intstatus, bauddiv;
    uint8_t rxbuf;
} board_uart;

/* A down-counter (board_counter.c) */
typedef struct board_counter {
    uint32_t value_at_epoch, reload;
    uint64_t epoch;    /* cycle at which value_at_epoch held */
    uint32_t divisor;  /* cycles per count, >= 1 */
    bool running, oneshot;
} board_counter;

uint32_t board_counter_value(const board_counter *c, uint64_t now);
/* Cycle of the next expiry (the count reaching zero), UINT64_MAX if none. */
uint64_t board_counter_next(const board_counter *c);
/* Apply the expiries up to `now`; how many there were. */
unsigned board_counter_advance(board_counter *c, uint64_t now);
void board_counter_set(board_counter *c, uint64_t now, uint32_t value);
void board_counter_run(board_counter *c, uint64_t now, bool running);

typedef struct board_timer {
    uint32_t ctrl, intstatus;
    board_counter count;
} board_timer;

/* One half of the CMSDK dual timer (DDI 0479 4.4; SP804-like) */
typedef struct board_dualtimer {
    uint32_t ctrl, load, intstatus, value_high; /* upper half kept in 16-bit mode */
    board_counter count;
} board_dualtimer;

/* The MMIO callbacks of one read-as-zero, write-ignored range know their base */
typedef struct board_raz_wi_ctx {
    struct rtcosim_board *board;
    uint32_t base;
} board_raz_wi_ctx;

/* The instruction count of a translated block, keyed by its start address
 * and size together (a block can be retranslated shorter, e.g. after a
 * fault), so the hook compares one word. */
typedef struct board_block {
    uint64_t key; /* size << 32 | address */
    uint32_t count, reserved;
} board_block;
#define BOARD_BLOCK_CACHE 4096u

struct rtcosim_board {
    /* the block hook's fields first, on one cache line */
    uint64_t instructions, limit;
    board_block *table;       /* blocks, or blocks_nofp while FPCCR.LSPACT is set */
    const board_block *block; /* the block the hook saw last */
    const board_desc *desc;
    char *path;
    uc_engine *uc;
    uc_hook block_hook, invalid_hook, intr_hook;
    vecu_elf elf;
    unsigned char *ram[BOARD_MAX_RAM];
    rtcosim_board_output_fn output;
    void *user;
    int64_t stop_time_ns;
    /* time: one cycle per instruction at the board's clock (instructions) */
    board_block blocks[BOARD_BLOCK_CACHE];
    board_block blocks_nofp[BOARD_BLOCK_CACHE]; /* only blocks without FP instructions */
    bool lazy_fp_hit; /* the core stopped before an FP instruction with LSPACT set */
    /* why the engine stopped */
    bool stop_requested;
    int intno;                  /* -1, or the exception number Unicorn reported */
    bool mem_fault;
    int mem_kind;
    uint64_t mem_address;
    char error[320];            /* set by an MMIO callback: the run ends with it */
    bool exited, started, reset_requested;
    int exit_code;
    /* The machine's state, from here to `warned_raz_wi`, zeroed by a system
     * reset before the reset values are set (board_system_reset). */
    /* exception model (ARMv7-M B1.5) */
    bool pending[BOARD_EXCEPTIONS], active[BOARD_EXCEPTIONS], enabled[BOARD_EXCEPTIONS];
    bool level[BOARD_EXCEPTIONS]; /* interrupt lines held high by peripherals */
    uint8_t priority[BOARD_EXCEPTIONS];
    unsigned current;             /* IPSR */
    uint32_t vtor, prigroup, scr, ccr, shcsr, cfsr, hfsr, mmfar, bfar, cpacr;
    uint32_t fpccr, fpcar, fpdscr;
    /* SysTick (B3.3): counts processor cycles */
    uint32_t syst_csr;
    board_counter systick;
    /* DWT (C1.8) */
    uint32_t dwt_ctrl, demcr, cyccnt_at_epoch;
    uint64_t cyccnt_epoch;
    /* CMSDK peripherals */
    board_uart uart[BOARD_MAX_UART];
    board_timer timer[BOARD_MAX_TIMER];
    board_dualtimer dual[2];
    uint32_t led, switches, misc;
    uint32_t clk1hz_at_epoch, clk100hz_at_epoch;
    uint64_t clk1hz_epoch, clk100hz_epoch;
    uint32_t prescale, pscntr, counter; /* FPGA I/O prescaled counter at counter_sync */
    uint64_t counter_sync;
    bool warned_raz_wi, warned_ppb;
    char where[160];
    board_raz_wi_ctx raz_wi_ctx[BOARD_MAX_RAZ_WI];
};

/* board.c */
uint64_t board_cycle_now(rtcosim_board *b);
/* Start address and size of the block the hook saw last. */
static inline uint32_t board_block_address(const rtcosim_board *b) { return (uint32_t)b->block->key; }
static inline uint32_t board_block_size(const rtcosim_board *b) { return (uint32_t)(b->block->key >> 32); }
/* An MMIO access the machine cannot serve: record the error and stop. */
void board_fail(rtcosim_board *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Re-examine pending exceptions and timer deadlines after this block. */
void board_reschedule(rtcosim_board *b);
/* A peripheral's interrupt line (IRQ n, 0-based); a rising edge pends it. */
void board_set_irq(rtcosim_board *b, int irq, bool high);
uint32_t board_pc(rtcosim_board *b);
/* "the block at PC 0x... (function+0x..)": inside MMIO callbacks Unicorn
 * reports the PC of the block's start, not of the accessing instruction. */
const char *board_where(rtcosim_board *b);

/* Host pointer to `size` bytes of board memory at `address`, NULL if none. */
const unsigned char *board_host_code(rtcosim_board *b, uint32_t address, uint32_t size);
/* board_fault_pc.c: the faulting load/store's PC in the block at block_pc */
uint32_t board_fault_pc(rtcosim_board *b, uint32_t block_pc, uint32_t address);

/* board_semihost.c: the semihosting call at a BKPT 0xAB at pc; false when
 * the run ends (exit or an unsupported operation) */
bool board_semihosting(rtcosim_board *b, uint32_t pc);

/* board_fp.c: FP context stacking (B1.5.7) */
bool board_code_has_fp(const unsigned char *p, uint32_t size);
/* s0-s15 and FPSCR to the frame's FP area at `address`; false if outside RAM */
bool board_fp_store(rtcosim_board *b, uint32_t address);
/* Exception entry with lazy stacking: FPCAR, FPCCR.LSPACT and its ready bits */
void board_fp_lazy_entry(rtcosim_board *b, uint32_t fp_area, bool thread, int exec);
/* The first FP instruction with LSPACT set: the registers to FPCAR */
bool board_fp_preserve(rtcosim_board *b);
/* The block hook's table follows FPCCR.LSPACT */
void board_fp_lspact_changed(rtcosim_board *b);

/* armv7m_scs.c: the private peripheral bus at 0xE0000000 (1 MiB) */
uint64_t board_ppb_read(uc_engine *uc, uint64_t offset, unsigned size, void *user);
void board_ppb_write(uc_engine *uc, uint64_t offset, unsigned size, uint64_t value, void *user);
void board_scs_reset(rtcosim_board *b);
/* Group priority of exception n as the execution priority uses it. */
int board_group_priority(const rtcosim_board *b, unsigned n);
int board_priority(const rtcosim_board *b, unsigned n);
/* Cycle of the next SysTick wrap, UINT64_MAX if none; a wrap at or before
 * `now` is applied (COUNTFLAG, pending). */
uint64_t board_systick_update(rtcosim_board *b, uint64_t now);

/* cmsdk.c: MPS2 peripherals at 0x40000000 */
uint64_t board_apb_read(uc_engine *uc, uint64_t offset, unsigned size, void *user);
void board_apb_write(uc_engine *uc, uint64_t offset, unsigned size, uint64_t value, void *user);
uint64_t board_raz_wi_read(uc_engine *uc, uint64_t offset, unsigned size, void *user);
void board_raz_wi_write(uc_engine *uc, uint64_t offset, unsigned size, uint64_t value, void *user);
uint64_t board_timers_update(rtcosim_board *b, uint64_t now);
void board_apb_reset(rtcosim_board *b);

#endif
