/* A board running its firmware from the reset vector: the board descriptions
 * (data), the memory map on Unicorn, and the ARMv7-M exception model done
 * here rather than in Unicorn (which has no NVIC): entry pushes the frame and
 * switches to handler mode (B1.5.6), a branch to EXC_RETURN traps as a fetch
 * from 0xFFFFFFxx and unstacks (B1.5.8), SVC, BKPT (semihosting), undefined
 * instructions and bus errors become SVCall, UsageFault, BusFault or
 * HardFault with their status bits. Time: one cycle per instruction. */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board_internal.h"

/* ARM MPS2+ with the AN386 FPGA image (Cortex-M4) as QEMU's mps2-an386 machine
 * builds it (qemu hw/arm/mps2.c): 25 MHz SYSCLK, 32 NVIC interrupts. */
static const board_desc boards[] = {
    {
        .name = "mps2-an386",
        .summary = "ARM MPS2+ AN386 (Cortex-M4, 25 MHz) as QEMU's mps2-an386",
        .clock_hz = 25000000,
        .refclk_hz = 1000000, /* QEMU 7.2's mps2 SysTick reference clock: CALIB 0x270F */
        .cpuid = 0x410FC240u, /* Cortex-M4 r0p0, the value QEMU's cortex-m4 reports */
        .irq_count = 32,
        .ram = {{"ZBT SSRAM1", 0x00000000u, 0x400000u, -1},
                {"ZBT SSRAM1 mirror", 0x00400000u, 0x400000u, 0},
                {"block RAM", 0x01000000u, 0x4000u, -1},
                {"block RAM mirror 1", 0x01004000u, 0x4000u, 2},
                {"block RAM mirror 2", 0x01008000u, 0x4000u, 2},
                {"block RAM mirror 3", 0x0100C000u, 0x4000u, 2},
                {"ZBT SSRAM2/3", 0x20000000u, 0x400000u, -1},
                {"ZBT SSRAM2/3 mirror", 0x20400000u, 0x400000u, 6}},
        .ram_count = 8,
        .uart_count = 5,
        .uart = {{0x40004000u, 0, 1}, {0x40005000u, 2, 3}, {0x40006000u, 4, 5},
                 {0x40007000u, 18, 19}, {0x40009000u, 20, 21}},
        .timer_count = 2,
        .timer = {{0x40000000u, 8}, {0x40001000u, 9}},
        .dualtimer_base = 0x40002000u,
        .dualtimer_irq = 10,
        .fpgaio_base = 0x40028000u,
        .raz_wi = {{0x00800000u, 0x00800000u}, {0x01010000u, 0x1EFF0000u},
                          {0x20800000u, 0x00800000u}, {0x40030000u, 0x001D0000u},
                          {0x41000000u, 0x00200000u}},
        .raz_wi_count = 5,
    },
};
#define BOARD_COUNT (sizeof boards / sizeof boards[0])
#define PSRAM_BASE 0x21000000u
#define PSRAM_SIZE 0x01000000u
#define APB_BASE 0x40000000u
#define APB_SIZE 0x00030000u
#define PPB_BASE 0xE0000000u
#define PPB_SIZE 0x00100000u

const char *rtcosim_board_name(size_t index, const char **summary)
{
    if (index >= BOARD_COUNT)
        return NULL;
    if (summary)
        *summary = boards[index].summary;
    return boards[index].name;
}

/* ---- time ---- */

const unsigned char *board_host_code(rtcosim_board *b, uint32_t address, uint32_t size)
{
    for (unsigned i = 0; i < b->desc->ram_count; i++) {
        const board_ram *r = &b->desc->ram[i];
        if (address >= r->base && (uint64_t)address + size <= (uint64_t)r->base + r->size)
            return b->ram[r->alias_of < 0 ? i : (unsigned)r->alias_of] + (address - r->base);
    }
    return NULL;
}

/* A block the table does not know yet (or retranslated): count its
 * instructions from its code. Kept out of line so the hook's fast path
 * needs no stack frame. */
static __attribute__((noinline)) void count_block(rtcosim_board *b, board_block *e, uint64_t key)
{
    uint32_t address = (uint32_t)key, size = (uint32_t)(key >> 32);
    const unsigned char *p = board_host_code(b, address, size);
    if (e >= b->blocks_nofp && e < b->blocks_nofp + BOARD_BLOCK_CACHE && p &&
        board_code_has_fp(p, size)) { /* lazy FP stacking is due before it runs */
        b->lazy_fp_hit = b->stop_requested = true;
        uc_emu_stop(b->uc);
        return;
    }
    e->key = key;
    e->count = p ? vecu_count_thumb(p, size) : (size + 1) / 2;
    b->block = e;
    b->instructions += e->count;
}

/* The only hook on the hot path, once per executed block: its cost is most
 * of the emulator's, so it does one table look-up and one add. A stop
 * requested here takes effect before the block runs (Unicorn checks at the
 * block's start), so a block is counted only when it will run. */
static void on_block(uc_engine *uc, uint64_t address, uint32_t size, void *user)
{
    rtcosim_board *b = user;
    if (__builtin_expect(b->instructions >= b->limit, 0)) {
        uc_emu_stop(uc);
        return;
    }
    uint64_t key = (uint64_t)size << 32 | (uint32_t)address;
    board_block *e = &b->table[(address >> 1) & (BOARD_BLOCK_CACHE - 1)];
    if (__builtin_expect(e->key != key, 0)) {
        count_block(b, e, key);
        return;
    }
    b->block = e;
    b->instructions += e->count;
}

uint32_t board_pc(rtcosim_board *b)
{
    uint32_t pc = 0;
    uc_reg_read(b->uc, UC_ARM_REG_PC, &pc);
    return pc;
}

const char *board_where(rtcosim_board *b)
{
    uint32_t pc = board_pc(b);
    const vecu_symbol *sym = vecu_elf_symbol_at(&b->elf, pc);
    if (sym && (pc < sym->address + sym->size || sym->size == 0))
        snprintf(b->where, sizeof b->where, "the block at PC 0x%08" PRIx32 " (%s+0x%" PRIx32 ")",
                 pc, sym->name, pc - sym->address);
    else
        snprintf(b->where, sizeof b->where, "the block at PC 0x%08" PRIx32, pc);
    return b->where;
}

uint64_t board_cycle_now(rtcosim_board *b)
{
    /* The block hook counted the whole block; inside MMIO callbacks Unicorn
     * reports the block's start, so this resolves to it (as core.c). */
    uint32_t pc = board_pc(b);
    uint64_t n = b->instructions;
    uint32_t start = board_block_address(b), size = board_block_size(b);
    if (pc >= start && pc < start + size) {
        const unsigned char *p = board_host_code(b, start, size);
        if (p)
            n -= vecu_count_thumb(p + (pc - start), start + size - pc);
    }
    return n;
}

void board_fail(rtcosim_board *b, const char *fmt, ...)
{
    if (!b->error[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(b->error, sizeof b->error, fmt, ap);
        va_end(ap);
    }
    board_reschedule(b);
}

/* Called from MMIO callbacks: uc_emu_stop there leaves the PC at the start
 * of the block (Unicorn 2.0.1), so the stop happens at the next block. */
void board_reschedule(rtcosim_board *b)
{
    b->stop_requested = true;
    b->limit = 0;
}

void board_set_irq(rtcosim_board *b, int irq, bool high)
{
    if (irq < 0 || (unsigned)irq >= b->desc->irq_count)
        return;
    unsigned n = 16 + (unsigned)irq;
    if (high && !b->level[n]) {
        b->pending[n] = true;
        board_reschedule(b);
    }
    b->level[n] = high;
}

static bool on_invalid(uc_engine *uc, uc_mem_type type, uint64_t address, int size,
                       int64_t value, void *user)
{
    (void)uc, (void)size, (void)value;
    rtcosim_board *b = user;
    if (!b->mem_fault) {
        b->mem_fault = true;
        b->mem_kind = (int)type;
        b->mem_address = address;
    }
    return false;
}

static void on_interrupt(uc_engine *uc, uint32_t intno, void *user)
{
    rtcosim_board *b = user;
    b->intno = (int)intno;
    uc_emu_stop(uc);
}

/* ---- creation ---- */

static rtcosim_status uc_fail(rtcosim_board *b, uc_err e, const char *what, rtcosim_error *err)
{
    return rtcosim_error_set(err, RTCOSIM_EFATAL, "board '%s': %s: %s", b->desc->name, what,
                             uc_strerror(e));
}

static rtcosim_status map_board(rtcosim_board *b, rtcosim_error *err)
{
    rtcosim_status st = vecu_unicorn_load(err);
    if (st != RTCOSIM_OK)
        return st;
    uc_err e = uc_open(UC_ARCH_ARM, UC_MODE_THUMB | UC_MODE_MCLASS, &b->uc);
    if (e != UC_ERR_OK)
        return uc_fail(b, e, "opening the Unicorn engine", err);
    if ((e = uc_ctl_set_cpu_model(b->uc, UC_CPU_ARM_CORTEX_M4)) != UC_ERR_OK)
        return uc_fail(b, e, "selecting the Cortex-M4 model", err);
    for (unsigned i = 0; i < b->desc->ram_count; i++) {
        const board_ram *r = &b->desc->ram[i];
        if (r->alias_of < 0 && !(b->ram[i] = calloc(1, r->size)))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "board: out of memory");
        unsigned char *mem = b->ram[r->alias_of < 0 ? i : (unsigned)r->alias_of];
        if ((e = uc_mem_map_ptr(b->uc, r->base, r->size, UC_PROT_ALL, mem)) != UC_ERR_OK)
            return uc_fail(b, e, r->name, err);
    }
    if ((e = uc_mem_map(b->uc, PSRAM_BASE, PSRAM_SIZE, UC_PROT_ALL)) != UC_ERR_OK)
        return uc_fail(b, e, "mapping PSRAM", err);
    if ((e = uc_mmio_map(b->uc, APB_BASE, APB_SIZE, board_apb_read, b, board_apb_write, b)) ||
        (e = uc_mmio_map(b->uc, PPB_BASE, PPB_SIZE, board_ppb_read, b, board_ppb_write, b)))
        return uc_fail(b, e, "mapping the peripherals", err);
    for (unsigned i = 0; i < b->desc->raz_wi_count; i++) {
        const board_range *r = &b->desc->raz_wi[i];
        b->raz_wi_ctx[i] = (board_raz_wi_ctx){b, r->base};
        if ((e = uc_mmio_map(b->uc, r->base, r->size, board_raz_wi_read, &b->raz_wi_ctx[i],
                             board_raz_wi_write, &b->raz_wi_ctx[i])))
            return uc_fail(b, e, "mapping the read-as-zero, write-ignored ranges", err);
    }
    if ((e = uc_hook_add(b->uc, &b->block_hook, UC_HOOK_BLOCK, (void *)on_block, b, 1, 0)) ||
        (e = uc_hook_add(b->uc, &b->invalid_hook, UC_HOOK_MEM_INVALID, (void *)on_invalid, b, 1,
                         0)) ||
        (e = uc_hook_add(b->uc, &b->intr_hook, UC_HOOK_INTR, (void *)on_interrupt, b, 1, 0)))
        return uc_fail(b, e, "adding hooks", err);
    return RTCOSIM_OK;
}

static rtcosim_status load_firmware(rtcosim_board *b, rtcosim_error *err)
{
    for (size_t i = 0; i < b->elf.segment_count; i++) {
        const vecu_segment *s = &b->elf.segments[i];
        unsigned char *dst = s->mem_size ? (unsigned char *)board_host_code(b, s->address, s->mem_size)
                                         : NULL;
        if (s->mem_size && !dst)
            return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: segment at 0x%08" PRIx32 " of %"
                                     PRIu32 " bytes is outside the memory of board '%s' (built"
                                     " for another memory map?)", b->path, s->address,
                                     s->mem_size, b->desc->name);
        if (dst) {
            memcpy(dst, s->data, s->file_size);
            memset(dst + s->file_size, 0, s->mem_size - s->file_size);
        }
    }
    /* the vector table at 0 (VTOR resets to 0): initial SP and reset vector */
    uint32_t vec[2];
    memcpy(vec, b->ram[0], sizeof vec);
    if (!board_host_code(b, vec[1] & ~1u, 2) || !(vec[1] & 1u))
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: reset vector 0x%08" PRIx32 " is not"
                                 " a Thumb address in the memory of board '%s' (vector table"
                                 " missing at 0?)", b->path, vec[1], b->desc->name);
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_board_create(const rtcosim_board_config *config, rtcosim_board **out,
                                    rtcosim_error *err)
{
    *out = NULL;
    const char *name = config->board ? config->board : boards[0].name;
    const board_desc *desc = NULL;
    for (size_t i = 0; i < BOARD_COUNT; i++)
        if (strcmp(boards[i].name, name) == 0)
            desc = &boards[i];
    if (!desc)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "unknown board '%s' (known: mps2-an386)",
                                 name);
    if (!config->firmware)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "board '%s': no firmware given", name);
    if (config->stop_time_ns < 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "board '%s': negative stop time", name);
    rtcosim_board *b = calloc(1, sizeof *b);
    if (!b)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "board: out of memory");
    b->desc = desc;
    b->output = config->output;
    b->user = config->user;
    b->stop_time_ns = config->stop_time_ns;
    b->path = strdup(config->firmware);
    for (size_t i = 0; i < BOARD_BLOCK_CACHE; i++)
        b->blocks[i].key = b->blocks_nofp[i].key = UINT64_MAX;
    b->block = b->table = b->blocks;
    rtcosim_status st = b->path ? RTCOSIM_OK
                                : rtcosim_error_set(err, RTCOSIM_ENOMEM, "board: out of memory");
    if (st == RTCOSIM_OK)
        st = vecu_elf_load_file(config->firmware, &b->elf, err);
    if (st == RTCOSIM_OK)
        st = map_board(b, err);
    if (st == RTCOSIM_OK)
        st = load_firmware(b, err);
    if (st != RTCOSIM_OK) {
        rtcosim_board_free(b);
        return st;
    }
    board_scs_reset(b);
    board_apb_reset(b);
    *out = b;
    return RTCOSIM_OK;
}

void rtcosim_board_free(rtcosim_board *b)
{
    if (!b)
        return;
    if (b->uc)
        uc_close(b->uc);
    vecu_elf_free(&b->elf);
    for (unsigned i = 0; i < BOARD_MAX_RAM; i++)
        free(b->ram[i]);
    free(b->path);
    free(b);
}

/* ---- exception model (B1.5) ---- */

enum { EXC_HARDFAULT = 3, EXC_MEMMANAGE = 4, EXC_BUSFAULT = 5, EXC_USAGEFAULT = 6,
       EXC_SVCALL = 11, EXC_PENDSV = 14, EXC_SYSTICK = 15 };

static uint32_t reg(rtcosim_board *b, int id)
{
    uint32_t v = 0;
    uc_reg_read(b->uc, id, &v);
    return v;
}

static void set_reg(rtcosim_board *b, int id, uint32_t v) { uc_reg_write(b->uc, id, &v); }

static bool read_word(rtcosim_board *b, uint32_t a, uint32_t *v)
{
    const unsigned char *p = board_host_code(b, a, 4);
    if (!p)
        return false;
    memcpy(v, p, 4);
    return true;
}

static bool write_word(rtcosim_board *b, uint32_t a, uint32_t v)
{
    unsigned char *p = (unsigned char *)board_host_code(b, a, 4);
    if (!p)
        return false;
    memcpy(p, &v, 4);
    return true;
}

/* B1.5.4: the execution priority, from the active exceptions and the masks */
static int execution_priority(rtcosim_board *b)
{
    int prio = 256;
    for (unsigned n = 1; n < 16 + b->desc->irq_count; n++)
        if (b->active[n] && board_group_priority(b, n) < prio)
            prio = board_group_priority(b, n);
    uint32_t basepri = reg(b, UC_ARM_REG_BASEPRI) & 0xFFu;
    if (basepri) {
        uint32_t mask = 0xFFu << (b->prigroup + 1) & 0xFFu;
        if ((int)(basepri & mask) < prio)
            prio = (int)(basepri & mask);
    }
    if ((reg(b, UC_ARM_REG_PRIMASK) & 1u) && prio > 0)
        prio = 0;
    if ((reg(b, UC_ARM_REG_FAULTMASK) & 1u) && prio > -1)
        prio = -1;
    return prio;
}

/* The pending exception that would be taken now, 0 if none. */
static unsigned next_exception(rtcosim_board *b)
{
    unsigned best = 0;
    int best_prio = 1 << 30;
    for (unsigned n = 2; n < 16 + b->desc->irq_count; n++) {
        if (!b->pending[n] || (n >= 16 && !b->enabled[n]))
            continue;
        int p = board_priority(b, n);
        if (p < best_prio)
            best_prio = p, best = n;
    }
    if (best && board_group_priority(b, best) < execution_priority(b))
        return best;
    return 0;
}

static bool any_pending(const rtcosim_board *b)
{
    for (unsigned n = 2; n < 16 + b->desc->irq_count; n++)
        if (b->pending[n] && (n < 16 || b->enabled[n]))
            return true;
    return false;
}

/* Switch Unicorn's view of mode and stacks: IPSR 0 while CONTROL.SPSEL is
 * written (QEMU ignores SPSEL writes in handler mode), then the stack
 * pointers into their banks, then the exception number. */
static void set_mode(rtcosim_board *b, unsigned ipsr, bool spsel, bool fpca, uint32_t msp,
                     uint32_t psp)
{
    set_reg(b, UC_ARM_REG_IPSR, 0);
    uint32_t control = reg(b, UC_ARM_REG_CONTROL) & ~6u;
    control |= (spsel ? 2u : 0u) | (fpca ? 4u : 0u);
    set_reg(b, UC_ARM_REG_CONTROL, control);
    set_reg(b, UC_ARM_REG_MSP, msp);
    set_reg(b, UC_ARM_REG_PSP, psp);
    set_reg(b, UC_ARM_REG_IPSR, ipsr);
    b->current = ipsr;
}

static const int frame_regs[] = {UC_ARM_REG_R0, UC_ARM_REG_R1, UC_ARM_REG_R2, UC_ARM_REG_R3,
                                 UC_ARM_REG_R12, UC_ARM_REG_LR};

/* B1.5.6 PushStack and ExceptionTaken; the FP part of the frame is written
 * at entry (lazy stacking done eagerly: the same memory once the handler
 * touches the FPU, and FPCCR.LSPACT reads 0). */
static bool exception_entry(rtcosim_board *b, unsigned n, uint32_t return_address)
{
    uint32_t control = reg(b, UC_ARM_REG_CONTROL);
    if (control & 1u) { /* Unicorn ignores our SPSEL writes from unprivileged code */
        board_fail(b, "exception %u in unprivileged thread mode (CONTROL.nPRIV set at PC 0x%08"
                   PRIx32 ") is not supported", n, return_address);
        return false;
    }
    bool handler = b->current != 0;
    bool on_psp = !handler && (control & 2u);
    bool fp = (control & 4u) != 0;
    uint32_t msp = reg(b, UC_ARM_REG_MSP), psp = reg(b, UC_ARM_REG_PSP);
    uint32_t sp = on_psp ? psp : msp;
    uint32_t size = fp ? 0x68u : 0x20u;
    bool align = (b->ccr & 1u << 9) && (sp & 4u);
    uint32_t frame = (sp - size) & ((b->ccr & 1u << 9) ? ~7u : ~3u);
    uint32_t xpsr = reg(b, UC_ARM_REG_XPSR);
    uint32_t apsr = reg(b, UC_ARM_REG_APSR);
    xpsr = (apsr & 0xF80F0000u) | (xpsr & 0x0600FC00u) | 1u << 24 | b->current;
    if (align)
        xpsr |= 1u << 9;
    bool ok = true;
    for (unsigned i = 0; i < 6; i++)
        ok = ok && write_word(b, frame + 4 * i, reg(b, frame_regs[i]));
    ok = ok && write_word(b, frame + 24, return_address & ~1u) && write_word(b, frame + 28, xpsr);
    bool lazy = fp && (b->fpccr & 1u << 30); /* LSPEN */
    if (fp && !lazy)
        ok = ok && board_fp_store(b, frame + 0x20);
    if (!ok) {
        board_fail(b, "stacking for exception %u: stack pointer 0x%08" PRIx32 " is outside RAM"
                   " at PC 0x%08" PRIx32, n, sp, return_address);
        return false;
    }
    if (lazy) /* the ready bits from the interrupted context's priority */
        board_fp_lazy_entry(b, frame + 0x20, !handler, execution_priority(b));
    uint32_t exc_return = handler ? 0xFFFFFFF1u : on_psp ? 0xFFFFFFFDu : 0xFFFFFFF9u;
    if (fp)
        exc_return &= ~0x10u;
    if (on_psp)
        psp = frame;
    else
        msp = frame;
    uint32_t vector;
    if (!read_word(b, b->vtor + 4 * n, &vector) || !(vector & 1u) ||
        !board_host_code(b, vector & ~1u, 2)) {
        board_fail(b, "vector %u at 0x%08" PRIx32 " (VTOR 0x%08" PRIx32 ") is not a Thumb"
                   " handler address in memory (PC 0x%08" PRIx32 ")", n, b->vtor + 4 * n, b->vtor,
                   return_address);
        return false;
    }
    set_mode(b, n, false, false, msp, psp);
    set_reg(b, UC_ARM_REG_LR, exc_return);
    set_reg(b, UC_ARM_REG_PC, vector);
    b->pending[n] = false;
    b->active[n] = true;
    return true;
}

/* B1.5.8: a branch to EXC_RETURN in handler mode */
static bool exception_return(rtcosim_board *b, uint32_t exc_return)
{
    unsigned n = b->current;
    if (n == 0 || (exc_return & 0x0FFFFFE0u) != 0x0FFFFFE0u ||
        ((exc_return & 0xFu) != 1u && (exc_return & 0xFu) != 9u && (exc_return & 0xFu) != 0xDu)) {
        board_fail(b, "branch to 0x%08" PRIx32 " is not a valid EXC_RETURN (in %s)", exc_return,
                   n ? "handler mode" : "thread mode");
        return false;
    }
    b->active[n] = false;
    if (n >= 16 && b->level[n])
        b->pending[n] = true; /* a line still high pends again */
    bool to_thread = exc_return & 8u, use_psp = to_thread && (exc_return & 4u);
    bool fp = !(exc_return & 0x10u);
    uint32_t msp = reg(b, UC_ARM_REG_MSP), psp = reg(b, UC_ARM_REG_PSP);
    uint32_t frame = use_psp ? psp : msp, w[8];
    for (unsigned i = 0; i < 8; i++)
        if (!read_word(b, frame + 4 * i, &w[i])) {
            board_fail(b, "unstacking: frame at 0x%08" PRIx32 " is outside RAM", frame);
            return false;
        }
    if (fp && (b->fpccr & 1u)) { /* LSPACT: never stacked, the registers hold it */
        b->fpccr &= ~1u;
        board_fp_lspact_changed(b);
    } else if (fp) {
        for (unsigned i = 0; i < 8; i++) {
            uint32_t lo = 0, hi = 0;
            read_word(b, frame + 0x20 + 8 * i, &lo);
            read_word(b, frame + 0x24 + 8 * i, &hi);
            uint64_t bits = (uint64_t)hi << 32 | lo;
            double d;
            memcpy(&d, &bits, 8);
            uc_reg_write(b->uc, UC_ARM_REG_D0 + (int)i, &d);
        }
        uint32_t fpscr = 0;
        read_word(b, frame + 0x60, &fpscr);
        set_reg(b, UC_ARM_REG_FPSCR, fpscr);
    }
    uint32_t sp = frame + (fp ? 0x68u : 0x20u) + ((w[7] & 1u << 9) && (b->ccr & 1u << 9) ? 4u : 0u);
    if (use_psp)
        psp = sp;
    else
        msp = sp;
    unsigned ipsr = to_thread ? 0 : (w[7] & 0x1FFu);
    set_mode(b, ipsr, use_psp, fp, msp, psp);
    for (unsigned i = 0; i < 6; i++)
        set_reg(b, frame_regs[i], w[i]);
    set_reg(b, UC_ARM_REG_XPSR_NZCVQG, (w[7] & ~0x3FFu & ~(1u << 9)) | ipsr);
    set_reg(b, UC_ARM_REG_PC, w[6] | 1u);
    return true;
}

/* A synchronous fault: its own handler if enabled and able to preempt,
 * otherwise HardFault with HFSR.FORCED (B1.5.11 priority escalation). */
static bool take_fault(rtcosim_board *b, unsigned n, uint32_t cfsr_bits, uint32_t pc,
                       const char *what)
{
    bool enabled = n == EXC_SVCALL || (n == EXC_MEMMANAGE && (b->shcsr & 1u << 16)) ||
                   (n == EXC_BUSFAULT && (b->shcsr & 1u << 17)) ||
                   (n == EXC_USAGEFAULT && (b->shcsr & 1u << 18));
    b->cfsr |= cfsr_bits;
    int exec = execution_priority(b);
    if (!enabled || board_group_priority(b, n) >= exec) {
        if (exec <= -1) {
            board_fail(b, "lockup: %s at PC 0x%08" PRIx32 " while the HardFault handler runs",
                       what, pc);
            return false;
        }
        b->hfsr |= 1u << 30; /* FORCED */
        n = EXC_HARDFAULT;
    }
    return exception_entry(b, n, pc);
}

static uint16_t halfword_at(rtcosim_board *b, uint32_t a)
{
    const unsigned char *p = board_host_code(b, a, 2);
    return p ? (uint16_t)(p[0] | p[1] << 8) : 0;
}

/* B1.5.5: the main stack pointer and PC from the vector table at 0 */
static void start_from_reset(rtcosim_board *b)
{
    uint32_t sp0 = 0, reset = 0;
    read_word(b, 0, &sp0);
    read_word(b, 4, &reset);
    set_mode(b, 0, false, false, sp0 & ~3u, 0);
    set_reg(b, UC_ARM_REG_LR, 0xFFFFFFFFu);
    set_reg(b, UC_ARM_REG_PC, reset);
    b->started = true;
}

/* AIRCR.SYSRESETREQ (B3.2.6) as QEMU's mps2 does it: the whole machine
 * resets and its image is loaded again (QEMU's ROM blobs), RAM outside the
 * image keeps its contents, time goes on. Unicorn's translations of the
 * reloaded memory are dropped with the block counts. */
static void system_reset(rtcosim_board *b)
{
    uint64_t now = b->instructions;
    size_t from = offsetof(rtcosim_board, pending), to = offsetof(rtcosim_board, warned_raz_wi);
    memset((char *)b + from, 0, to - from);
    board_scs_reset(b);
    board_apb_reset(b);
    b->cyccnt_epoch = b->clk1hz_epoch = b->clk100hz_epoch = b->counter_sync = now;
    rtcosim_error err = {0};
    load_firmware(b, &err); /* it fitted at creation */
    uc_ctl_flush_tlb(b->uc); /* UC_CTL_TB_FLUSH: the translated blocks */
    for (size_t i = 0; i < BOARD_BLOCK_CACHE; i++)
        b->blocks[i].key = b->blocks_nofp[i].key = UINT64_MAX;
    b->block = b->table = b->blocks;
    for (int r = UC_ARM_REG_R0; r <= UC_ARM_REG_R12; r++)
        set_reg(b, r, 0);
    set_reg(b, UC_ARM_REG_PRIMASK, 0);
    set_reg(b, UC_ARM_REG_BASEPRI, 0);
    set_reg(b, UC_ARM_REG_FAULTMASK, 0);
    set_reg(b, UC_ARM_REG_FPSCR, 0);
    for (int r = 0; r < 16; r++) {
        double zero = 0;
        uc_reg_write(b->uc, UC_ARM_REG_D0 + r, &zero);
    }
    set_mode(b, 0, false, false, 0, 0);
    b->intno = -1;
    b->lazy_fp_hit = b->reset_requested = false;
    b->started = false;
}

/* ---- the run ---- */

rtcosim_status rtcosim_board_run(rtcosim_board *b, rtcosim_board_result *result,
                                 rtcosim_error *err)
{
    return rtcosim_board_run_until(b, b->stop_time_ns ? b->stop_time_ns : INT64_MAX, result, err);
}

rtcosim_status rtcosim_board_run_until(rtcosim_board *b, int64_t until_ns,
                                       rtcosim_board_result *result, rtcosim_error *err)
{
    memset(result, 0, sizeof *result);
    uint64_t hz = b->desc->clock_hz;
    uint64_t stop_cycle = until_ns == INT64_MAX ? UINT64_MAX : vecu_cycle_at(until_ns, hz);
    rtcosim_status st = RTCOSIM_OK;
    for (;;) {
        if (b->reset_requested)
            system_reset(b);
        if (!b->started)
            start_from_reset(b);
        uint64_t now = b->instructions;
        uint64_t next = board_systick_update(b, now);
        uint64_t t = board_timers_update(b, now);
        if (t < next)
            next = t;
        if (b->error[0] || b->exited)
            break;
        if (now >= stop_cycle)
            break;
        unsigned n = next_exception(b);
        if (n) {
            if (!exception_entry(b, n, board_pc(b)))
                break;
            continue;
        }
        uint32_t pc = board_pc(b);
        /* wfi/wfe ended the last run: sleep until the next event */
        if (b->intno == -2) {
            b->intno = -1;
            if (any_pending(b)) /* a pending interrupt wakes wfi, even masked */
                continue;
            if (next == UINT64_MAX && stop_cycle == UINT64_MAX) {
                board_fail(b, "wfi at PC 0x%08" PRIx32 " with no interrupt to come", pc - 2);
                break;
            }
            if (next > stop_cycle) { /* still asleep when this run ends */
                b->instructions = stop_cycle;
                b->intno = -2;
                continue;
            }
            b->instructions = next;
            continue;
        }
        b->limit = next < stop_cycle ? next : stop_cycle;
        /* a pending exception masked by PRIMASK/BASEPRI: look again each block */
        if (any_pending(b) && b->limit > now + 1)
            b->limit = now + 1;
        b->intno = -1;
        b->mem_fault = b->stop_requested = false;
        uc_err e = uc_emu_start(b->uc, pc | 1u, 0, 0, 0);
        pc = board_pc(b);
        if (b->error[0] || b->exited)
            break;
        if (b->lazy_fp_hit) { /* stopped before a block with an FP instruction */
            b->lazy_fp_hit = false;
            if (!board_fp_preserve(b))
                break;
            continue;
        }
        if (b->mem_fault) {
            uint32_t a = (uint32_t)b->mem_address;
            b->mem_fault = false;
            if (b->mem_kind == UC_MEM_FETCH_UNMAPPED && a >= 0xFFFFFF00u) {
                if (!exception_return(b, a | 1u))
                    break;
                continue;
            }
            if (b->mem_kind == UC_MEM_FETCH_UNMAPPED || b->mem_kind == UC_MEM_FETCH_PROT) {
                if (!take_fault(b, EXC_BUSFAULT, 1u << 8, a, "instruction fetch bus error"))
                    break;
                continue;
            }
            b->bfar = a;
            pc = board_fault_pc(b, pc, a);
            if (!take_fault(b, EXC_BUSFAULT, 1u << 9 | 1u << 15, pc, "precise bus error"))
                break;
            continue;
        }
        if (e == UC_ERR_INSN_INVALID) {
            uint16_t hw = halfword_at(b, pc);
            if (hw == 0xBF30u || hw == 0xBF20u) { /* WFI, WFE (QEMU's yield) */
                set_reg(b, UC_ARM_REG_PC, (pc + 2) | 1u);
                b->intno = -2;
                continue;
            }
            if (!take_fault(b, EXC_USAGEFAULT, 1u << 16, pc, "undefined instruction"))
                break;
            continue;
        }
        if (e == UC_ERR_EXCEPTION) {
            if (!take_fault(b, EXC_USAGEFAULT, 1u << 17, pc, "invalid state"))
                break;
            continue;
        }
        if (e != UC_ERR_OK) {
            board_fail(b, "the core stopped: %s at PC 0x%08" PRIx32, uc_strerror(e), pc);
            break;
        }
        switch (b->intno) {
        case -1:
            /* wfi makes Unicorn return with the PC after it */
            if (!b->stop_requested && b->instructions < b->limit &&
                halfword_at(b, pc - 2) == 0xBF30u)
                b->intno = -2;
            break;
        case 2: /* SVC: PC is past the instruction */
            b->pending[EXC_SVCALL] = false;
            if (!take_fault(b, EXC_SVCALL, 0, pc, "SVC"))
                goto out;
            break;
        case 7: /* BKPT: semihosting when its immediate is 0xAB */
            if (halfword_at(b, pc) == 0xBEABu) {
                if (!board_semihosting(b, pc))
                    goto out;
            } else {
                board_fail(b, "breakpoint (BKPT) at PC 0x%08" PRIx32 " without a debugger", pc);
                goto out;
            }
            break;
        case 8: /* EXC_RETURN recognised by Unicorn itself */
            if (!exception_return(b, pc | 1u))
                goto out;
            break;
        default:
            if (!take_fault(b, EXC_USAGEFAULT, b->intno == 17 ? 1u << 19 : 1u << 16, pc,
                            "processor exception"))
                goto out;
            break;
        }
    }
out:
    result->exited = b->exited;
    result->exit_code = b->exit_code;
    result->instructions = b->instructions;
    result->time_ns = (int64_t)((long double)b->instructions * 1e9L / (long double)hz);
    if (b->error[0] && !b->exited)
        st = rtcosim_error_set(err, RTCOSIM_EFATAL, "board '%s' running %s: %s", b->desc->name,
                               b->path, b->error);
    return st;
}
