/* Internals of the virtual ECU shared by the ELF reader (elf.c), the core
 * (core.c), the peripherals (periph.c) and the ECU LP binding (vecu_ecu.c). */
#ifndef RTCOSIM_VECU_INTERNAL_H
#define RTCOSIM_VECU_INTERNAL_H

#include "unicorn_api.h"

#include "rtcosim/vecu.h"
#include "rtcosim/vecu_periph.h"

/* ---- ELF image ---- */
typedef struct vecu_segment {
    uint32_t address; /* physical (load) address */
    uint32_t file_size, mem_size;
    unsigned char *data; /* file_size bytes */
} vecu_segment;

typedef struct vecu_symbol {
    uint32_t address, size; /* Thumb bit cleared */
    char *name;
} vecu_symbol;

typedef struct vecu_elf {
    uint32_t entry;
    vecu_segment *segments;
    size_t segment_count;
    vecu_symbol *symbols; /* functions and objects, sorted by address */
    size_t symbol_count;
} vecu_elf;

/* Parse an ELF image in memory (32-bit little-endian ARM executable);
 * `origin` names it in errors. */
rtcosim_status vecu_elf_parse(const void *data, size_t size, const char *origin, vecu_elf *out,
                              rtcosim_error *err);
rtcosim_status vecu_elf_load_file(const char *path, vecu_elf *out, rtcosim_error *err);
void vecu_elf_free(vecu_elf *elf);
/* The symbol containing `address` (or the nearest one below it), NULL if none. */
const vecu_symbol *vecu_elf_symbol_at(const vecu_elf *elf, uint32_t address);

/* ---- peripheral state: part of the data block, saved with RAM ---- */
typedef struct vecu_can_slot {
    uint32_t id, dlc, data[2];
} vecu_can_slot;

typedef struct vecu_periph {
    uint32_t adc[VECU_ADC_CHANNELS];
    uint32_t pwm[VECU_PWM_CHANNELS];
    uint32_t dout;
    uint32_t can_status; /* sticky bits */
    vecu_can_slot rx[VECU_CAN_RX_FIFO_DEPTH];
    uint32_t rx_head, rx_count;
    vecu_can_slot tx[VECU_CAN_TX_MAILBOXES];
    uint32_t tx_pending;
    uint32_t cyccnt_hi_latch;
    uint32_t irq;     /* running handler */
    uint32_t reserved;
} vecu_periph;

/* Data block layout: the peripherals, padded to 64 bytes, then RAM. */
#define VECU_PERIPH_BLOCK ((sizeof(vecu_periph) + 63u) & ~(size_t)63u)

/* Instruction counts of translated blocks, keyed by block address. */
#define VECU_BLOCK_CACHE 4096u
typedef struct vecu_block_entry {
    uint32_t address, size, count;
} vecu_block_entry;

/* A peripheral register accessed with another width than its 32 bits. */
#define VECU_FAULT_WIDTH (-2)
/* Record the first fault of a run (MMIO side: periph.c) and stop the core. */
void vecu_fault_width(rtcosim_vecu *v, uc_engine *uc, uint64_t offset, unsigned size, bool write);

struct rtcosim_vecu {
    char *name;
    uint64_t clock_hz;
    double cpi;
    size_t ram_size;
    uc_engine *uc;
    uc_hook block_hook, invalid_hook, intr_hook;
    vecu_elf elf;
    uint32_t default_handler;    /* address of Default_Handler (startup.c), 0: none */
    unsigned char *flash;        /* VECU_FLASH_SIZE bytes, mapped */
    unsigned char *own_data;     /* the data block while not bound */
    unsigned char *data;         /* current data block */
    /* per run */
    uint64_t instructions;       /* total */
    uint64_t run_start;          /* instructions at handler entry */
    uint64_t run_limit;          /* stop past this total */
    uint64_t start_cycle;
    uint32_t block_address, block_size;
    /* fault record */
    bool faulted, over_limit;
    int fault_kind; /* uc_mem_type, -1: exception, VECU_FAULT_WIDTH: see fault_width */
    unsigned fault_width;        /* VECU_FAULT_WIDTH: bytes of the access (write if fault_write) */
    bool fault_write;
    uint64_t fault_address;
    uint32_t fault_pc;
    int fault_intno;
    vecu_block_entry blocks[VECU_BLOCK_CACHE];
};

static inline vecu_periph *vecu_periph_of(rtcosim_vecu *v) { return (vecu_periph *)v->data; }
static inline unsigned char *vecu_ram_of(rtcosim_vecu *v) { return v->data + VECU_PERIPH_BLOCK; }

/* Core cycle counter at a simulated time: floor(t * f), without overflow
 * for any t of a run and f up to 100 GHz. */
static inline uint64_t vecu_cycle_at(int64_t t_ns, uint64_t hz)
{
    uint64_t s = (uint64_t)t_ns / 1000000000u, ns = (uint64_t)t_ns % 1000000000u;
    return s * hz + (uint64_t)(((unsigned __int128)ns * hz) / 1000000000u);
}

/* periph.c: MMIO callbacks of the peripheral block */
uint64_t vecu_periph_read(uc_engine *uc, uint64_t offset, unsigned size, void *user);
void vecu_periph_write(uc_engine *uc, uint64_t offset, unsigned size, uint64_t value, void *user);
/* The core cycle counter now (at the current instruction). */
uint64_t vecu_cycle_now(rtcosim_vecu *v);
/* Instructions in [address, address+size) of Thumb code at host memory p. */
uint32_t vecu_count_thumb(const unsigned char *p, uint32_t size);

#endif
