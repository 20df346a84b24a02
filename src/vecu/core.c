/* The emulated Cortex-M4 on Unicorn: memory map (flash, RAM bound to the
 * data block, peripheral MMIO, an unmapped stack guard below RAM), firmware
 * loading, handler calls with instruction counting per translated block,
 * faults turned into errors naming ECU, PC and function, whole-core state. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vecu_internal.h"

/* Handlers return here: LR = trap | 1. The page holds BKPT #0 (0xBE00), so a
 * return is caught even if the `until` stop were missed. */
#define VECU_TRAP_BASE 0x10000000u
#define VECU_TRAP_SIZE 0x1000u
#define VECU_DEFAULT_CLOCK UINT64_C(168000000)
#define VECU_DEFAULT_RAM ((size_t)16384)
#define VECU_MAX_RAM ((size_t)1 << 24)

/* Length of a Thumb instruction from its first halfword (ARMv7-M A5.1):
 * bits 15-11 of 0b11101, 0b11110 or 0b11111 start a 32-bit instruction. */
uint32_t vecu_count_thumb(const unsigned char *p, uint32_t size)
{
    uint32_t n = 0, i = 0;
    while (i + 1 < size) {
        unsigned hw = (unsigned)p[i] | (unsigned)p[i + 1] << 8;
        i += (hw >> 11) >= 0x1D ? 4 : 2;
        n++;
    }
    return n;
}

static const unsigned char *host_code(rtcosim_vecu *v, uint64_t address, uint32_t size)
{
    if (address + size <= VECU_FLASH_BASE + VECU_FLASH_SIZE)
        return v->flash + (address - VECU_FLASH_BASE);
    if (address >= VECU_RAM_BASE && address + size <= VECU_RAM_BASE + v->ram_size)
        return vecu_ram_of(v) + (address - VECU_RAM_BASE);
    return NULL;
}

/* The only hook on the hot path: once per executed translated block. */
static void on_block(uc_engine *uc, uint64_t address, uint32_t size, void *user)
{
    rtcosim_vecu *v = user;
    vecu_block_entry *e = &v->blocks[(address >> 1) & (VECU_BLOCK_CACHE - 1)];
    if (e->address != (uint32_t)address || e->size != size) {
        const unsigned char *p = host_code(v, address, size);
        e->address = (uint32_t)address;
        e->size = size;
        e->count = p ? vecu_count_thumb(p, size) : (size + 1) / 2;
    }
    v->block_address = (uint32_t)address;
    v->block_size = size;
    v->instructions += e->count;
    if (v->instructions > v->run_limit) {
        v->over_limit = true;
        uc_emu_stop(uc);
    }
}

uint64_t vecu_cycle_now(rtcosim_vecu *v)
{
    /* the block hook counted the whole current block: take back the
     * instructions from the PC on. Inside MMIO callbacks Unicorn 2.0.1
     * reports the PC of the block's start, so reads resolve to the block
     * start (documented in vecu.h); a precise PC would make this exact. */
    uint32_t pc = 0;
    uc_reg_read(v->uc, UC_ARM_REG_PC, &pc);
    uint64_t n = v->instructions;
    if (pc >= v->block_address && pc < v->block_address + v->block_size) {
        const unsigned char *p = host_code(v, v->block_address, v->block_size);
        if (p)
            n -= vecu_count_thumb(p + (pc - v->block_address), v->block_address + v->block_size - pc);
    }
    uint64_t run = n - v->run_start;
    return v->start_cycle + (uint64_t)ceil((double)run * v->cpi - 1e-9);
}

static bool on_invalid(uc_engine *uc, uc_mem_type type, uint64_t address, int size,
                       int64_t value, void *user)
{
    (void)size, (void)value;
    rtcosim_vecu *v = user;
    if (!v->faulted) {
        v->faulted = true;
        v->fault_kind = (int)type;
        v->fault_address = address;
        uint32_t pc = 0;
        uc_reg_read(uc, UC_ARM_REG_PC, &pc);
        v->fault_pc = type == UC_MEM_FETCH_UNMAPPED || type == UC_MEM_FETCH_PROT
                          ? (uint32_t)address : pc;
    }
    return false;
}

void vecu_fault_width(rtcosim_vecu *v, uc_engine *uc, uint64_t offset, unsigned size, bool write)
{
    if (!v->faulted) {
        uint32_t pc = 0;
        uc_reg_read(uc, UC_ARM_REG_PC, &pc);
        v->faulted = true;
        v->fault_kind = VECU_FAULT_WIDTH;
        v->fault_address = VECU_PERIPH_BASE + offset;
        v->fault_width = size;
        v->fault_write = write;
        v->fault_pc = pc;
    }
    uc_emu_stop(uc);
}

static void on_interrupt(uc_engine *uc, uint32_t intno, void *user)
{
    rtcosim_vecu *v = user;
    uint32_t pc = 0;
    uc_reg_read(uc, UC_ARM_REG_PC, &pc);
    if (!v->faulted) {
        v->faulted = true;
        v->fault_kind = -1;
        v->fault_intno = (int)intno;
        v->fault_pc = pc;
    }
    uc_emu_stop(uc);
}

static rtcosim_status uc_fail(const rtcosim_vecu *v, uc_err e, const char *what,
                              rtcosim_error *err)
{
    return rtcosim_error_set(err, RTCOSIM_EFATAL, "vecu '%s': %s: %s", v->name, what,
                             uc_strerror(e));
}

static rtcosim_status map_data(rtcosim_vecu *v, rtcosim_error *err)
{
    uc_err e = uc_mem_map_ptr(v->uc, VECU_RAM_BASE, v->ram_size, UC_PROT_ALL, vecu_ram_of(v));
    return e == UC_ERR_OK ? RTCOSIM_OK : uc_fail(v, e, "mapping RAM", err);
}

static rtcosim_status open_engine(rtcosim_vecu *v, rtcosim_error *err)
{
    rtcosim_status st = vecu_unicorn_load(err);
    if (st != RTCOSIM_OK)
        return st;
    uc_err e = uc_open(UC_ARCH_ARM, UC_MODE_THUMB | UC_MODE_MCLASS, &v->uc);
    if (e != UC_ERR_OK)
        return uc_fail(v, e, "opening the Unicorn engine", err);
    if ((e = uc_ctl_set_cpu_model(v->uc, UC_CPU_ARM_CORTEX_M4)) != UC_ERR_OK)
        return uc_fail(v, e, "selecting the Cortex-M4 model", err);
    if ((e = uc_mem_map_ptr(v->uc, VECU_FLASH_BASE, VECU_FLASH_SIZE,
                            UC_PROT_READ | UC_PROT_EXEC, v->flash)) != UC_ERR_OK)
        return uc_fail(v, e, "mapping flash", err);
    if ((e = uc_mem_map(v->uc, VECU_TRAP_BASE, VECU_TRAP_SIZE, UC_PROT_READ | UC_PROT_EXEC)) !=
        UC_ERR_OK)
        return uc_fail(v, e, "mapping the return trap", err);
    unsigned char bkpt[VECU_TRAP_SIZE];
    for (size_t i = 0; i + 1 < sizeof bkpt; i += 2)
        bkpt[i] = 0x00, bkpt[i + 1] = 0xBE;
    uc_mem_write(v->uc, VECU_TRAP_BASE, bkpt, sizeof bkpt);
    if ((e = uc_mmio_map(v->uc, VECU_PERIPH_BASE, VECU_PERIPH_SIZE, vecu_periph_read, v,
                         vecu_periph_write, v)) != UC_ERR_OK)
        return uc_fail(v, e, "mapping the peripherals", err);
    st = map_data(v, err);
    if (st != RTCOSIM_OK)
        return st;
    if ((e = uc_hook_add(v->uc, &v->block_hook, UC_HOOK_BLOCK, (void *)on_block, v, 1, 0)) ||
        (e = uc_hook_add(v->uc, &v->invalid_hook, UC_HOOK_MEM_INVALID, (void *)on_invalid, v, 1,
                         0)) ||
        (e = uc_hook_add(v->uc, &v->intr_hook, UC_HOOK_INTR, (void *)on_interrupt, v, 1, 0)))
        return uc_fail(v, e, "adding hooks", err);
    return RTCOSIM_OK;
}

/* Copy the segments to flash and RAM (RAM segments only with `ram`). */
static rtcosim_status load_segments(rtcosim_vecu *v, const char *path, rtcosim_error *err)
{
    for (size_t i = 0; i < v->elf.segment_count; i++) {
        const vecu_segment *s = &v->elf.segments[i];
        uint64_t end = (uint64_t)s->address + s->mem_size;
        unsigned char *dst;
        if (end <= VECU_FLASH_BASE + VECU_FLASH_SIZE)
            dst = v->flash + (s->address - VECU_FLASH_BASE);
        else if (s->address >= VECU_RAM_BASE && end <= VECU_RAM_BASE + v->ram_size)
            dst = vecu_ram_of(v) + (s->address - VECU_RAM_BASE);
        else
            return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: segment at 0x%08" PRIx32 " of %"
                                     PRIu32 " bytes lies outside flash (0x%08x, %u KiB) and RAM"
                                     " (0x%08x, %zu KiB)", path, s->address, s->mem_size,
                                     VECU_FLASH_BASE, VECU_FLASH_SIZE / 1024, VECU_RAM_BASE,
                                     v->ram_size / 1024);
        memcpy(dst, s->data, s->file_size);
        memset(dst + s->file_size, 0, s->mem_size - s->file_size);
    }
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_vecu_create(const rtcosim_vecu_config *config, rtcosim_vecu **out,
                                   rtcosim_error *err)
{
    *out = NULL;
    const char *name = config->name && *config->name ? config->name : NULL;
    if (!name || !config->firmware)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "vecu: a name and a firmware are required");
    size_t ram = config->ram_size ? config->ram_size : VECU_DEFAULT_RAM;
    ram = (ram + 4095) & ~(size_t)4095;
    if (ram > VECU_MAX_RAM)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "vecu '%s': RAM of %zu bytes exceeds 16 MiB",
                                 name, ram);
    double cpi = config->cpi > 0 ? config->cpi : 1.0;
    if (!(cpi <= 1000.0))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "vecu '%s': CPI %g is not in (0, 1000]",
                                 name, config->cpi);
    rtcosim_vecu *v = calloc(1, sizeof *v);
    if (!v)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "vecu: out of memory");
    v->name = strdup(name);
    v->clock_hz = config->clock_hz ? config->clock_hz : VECU_DEFAULT_CLOCK;
    v->cpi = cpi;
    v->ram_size = ram;
    v->flash = calloc(1, VECU_FLASH_SIZE);
    v->own_data = calloc(1, VECU_PERIPH_BLOCK + ram);
    v->data = v->own_data;
    for (size_t i = 0; i < VECU_BLOCK_CACHE; i++)
        v->blocks[i].address = UINT32_MAX;
    rtcosim_status st = RTCOSIM_OK;
    if (!v->name || !v->flash || !v->own_data)
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "vecu: out of memory");
    if (st == RTCOSIM_OK)
        st = vecu_elf_load_file(config->firmware, &v->elf, err);
    for (size_t i = 0; st == RTCOSIM_OK && i < v->elf.symbol_count; i++)
        if (strcmp(v->elf.symbols[i].name, "Default_Handler") == 0)
            v->default_handler = v->elf.symbols[i].address & ~1u;
    if (st == RTCOSIM_OK)
        st = load_segments(v, config->firmware, err);
    if (st == RTCOSIM_OK)
        st = open_engine(v, err);
    if (st != RTCOSIM_OK) {
        rtcosim_vecu_free(v);
        return st;
    }
    *out = v;
    return RTCOSIM_OK;
}

void rtcosim_vecu_free(rtcosim_vecu *v)
{
    if (!v)
        return;
    if (v->uc)
        uc_close(v->uc);
    vecu_elf_free(&v->elf);
    free(v->flash);
    free(v->own_data);
    free(v->name);
    free(v);
}

const char *rtcosim_vecu_name(const rtcosim_vecu *v) { return v->name; }
uint64_t rtcosim_vecu_clock_hz(const rtcosim_vecu *v) { return v->clock_hz; }
uint64_t rtcosim_vecu_instructions(const rtcosim_vecu *v) { return v->instructions; }

bool rtcosim_vecu_symbol(const rtcosim_vecu *v, const char *name, uint32_t *address)
{
    for (size_t i = 0; i < v->elf.symbol_count; i++)
        if (strcmp(v->elf.symbols[i].name, name) == 0) {
            *address = v->elf.symbols[i].address;
            return true;
        }
    return false;
}

rtcosim_status rtcosim_vecu_read(const rtcosim_vecu *v, uint32_t address, void *out, size_t size,
                                 rtcosim_error *err)
{
    uint64_t end = (uint64_t)address + size;
    if (end <= VECU_FLASH_BASE + VECU_FLASH_SIZE)
        memcpy(out, v->flash + address, size);
    else if (address >= VECU_RAM_BASE && end <= VECU_RAM_BASE + v->ram_size)
        memcpy(out, v->data + VECU_PERIPH_BLOCK + (address - VECU_RAM_BASE), size);
    else
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "vecu '%s': 0x%08" PRIx32 " + %zu is not in"
                                 " flash or RAM", v->name, address, size);
    return RTCOSIM_OK;
}

/* ---- running handlers ---- */

static void where(const rtcosim_vecu *v, uint32_t pc, char *buf, size_t size)
{
    const vecu_symbol *s = vecu_elf_symbol_at(&v->elf, pc);
    if (s && (pc < s->address + s->size || s->size == 0))
        snprintf(buf, size, "PC 0x%08" PRIx32 " in %s+0x%" PRIx32, pc, s->name, pc - s->address);
    else
        snprintf(buf, size, "PC 0x%08" PRIx32 " (no symbol)", pc);
}

static const char *exception_text(int intno)
{
    /* QEMU's EXCP_* numbers, which Unicorn passes to interrupt hooks */
    switch (intno) {
    case 1: return "undefined instruction";
    case 2: return "supervisor call (SVC) without an OS";
    case 7: return "breakpoint (BKPT)";
    case 17: return "coprocessor instruction with the coprocessor disabled";
    case 18: return "invalid state (branch to ARM state or bad EXC_RETURN)";
    case 19: return "stack limit exceeded";
    case 22: return "unaligned access";
    default: return "processor exception";
    }
}

static rtcosim_status fault_error(rtcosim_vecu *v, unsigned exception, uc_err e,
                                  rtcosim_error *err)
{
    char at[160];
    uint32_t pc = 0;
    if (v->faulted)
        pc = v->fault_pc;
    else
        uc_reg_read(v->uc, UC_ARM_REG_PC, &pc);
    where(v, pc, at, sizeof at);
    char handler[32];
    if (exception == VECU_EXC_RESET)
        snprintf(handler, sizeof handler, "reset handler");
    else
        snprintf(handler, sizeof handler, "handler of IRQ %u", exception - 16);
    if (v->over_limit)
        return rtcosim_error_set(err, RTCOSIM_ETIMEOUT, "ecu '%s': %s did not return within %"
                                 PRIu64 " instructions (endless loop?), %s", v->name, handler,
                                 v->run_limit - v->run_start, at);
    if (v->faulted && v->fault_kind == VECU_FAULT_WIDTH)
        return rtcosim_error_set(err, RTCOSIM_EFATAL, "ecu '%s': %u-byte %s peripheral register"
                                 " 0x%08" PRIx64 " (its registers are 32-bit words) in %s at %s",
                                 v->name, v->fault_width, v->fault_write ? "write to" : "read of",
                                 v->fault_address, handler, at);
    if (v->faulted && v->fault_kind == -1)
        return rtcosim_error_set(err, RTCOSIM_EFATAL, "ecu '%s': %s in %s at %s", v->name,
                                 exception_text(v->fault_intno), handler, at);
    if (v->faulted) {
        uint64_t a = v->fault_address;
        const char *what;
        switch (v->fault_kind) {
        case UC_MEM_READ_UNMAPPED: what = "read of unmapped address"; break;
        case UC_MEM_WRITE_UNMAPPED: what = "write to unmapped address"; break;
        case UC_MEM_FETCH_UNMAPPED: what = "jump to unmapped address"; break;
        case UC_MEM_WRITE_PROT: what = "write to read-only flash at"; break;
        default: what = "access violation at"; break;
        }
        if (a >= VECU_RAM_BASE - VECU_GUARD_SIZE && a < VECU_RAM_BASE &&
            v->fault_kind != UC_MEM_FETCH_UNMAPPED)
            return rtcosim_error_set(err, RTCOSIM_EFATAL, "ecu '%s': stack overflow into the"
                                     " guard below RAM (access to 0x%08" PRIx64 ") in %s at %s",
                                     v->name, a, handler, at);
        return rtcosim_error_set(err, RTCOSIM_EFATAL, "ecu '%s': %s 0x%08" PRIx64 " in %s at %s",
                                 v->name, what, a, handler, at);
    }
    uint16_t last = 0; /* Unicorn ends a run at WFI/WFE without an error */
    if (e == UC_ERR_OK && pc >= 2 && pc <= VECU_FLASH_SIZE)
        memcpy(&last, v->flash + pc - 2, sizeof last); /* flash is at address 0 */
    if (last == 0xBF30 || last == 0xBF20) /* WFI, WFE (Thumb T1 encodings) */
        return rtcosim_error_set(err, RTCOSIM_EFATAL, "ecu '%s': %s in %s at %s: it would sleep"
                                 " until the next interrupt, which is taken only after this handler"
                                 " returns (handlers run to completion): return instead", v->name,
                                 last == 0xBF30 ? "WFI" : "WFE", handler, at);
    if (e == UC_ERR_INSN_INVALID)
        return rtcosim_error_set(err, RTCOSIM_EFATAL, "ecu '%s': undefined instruction in %s at"
                                 " %s", v->name, handler, at);
    return rtcosim_error_set(err, RTCOSIM_EFATAL, "ecu '%s': %s stopped: %s, at %s", v->name,
                             handler, uc_strerror(e), at);
}

rtcosim_status rtcosim_vecu_run_exception(rtcosim_vecu *v, unsigned exception,
                                          uint64_t start_cycle, uint64_t max_instructions,
                                          uint64_t *cycles, rtcosim_error *err)
{
    if (cycles)
        *cycles = 0;
    if (exception == 0 || exception >= 16 + 240)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "ecu '%s': exception %u is not in 1..255",
                                 v->name, exception);
    uint32_t vec[2];
    memcpy(&vec[0], v->flash, 4);
    memcpy(&vec[1], v->flash + 4 * exception, 4);
    if ((vec[1] & 1u) == 0 || vec[1] == 1u)
        return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "ecu '%s': vector %u of the firmware is"
                                 " 0x%08" PRIx32 ", not a Thumb handler address", v->name,
                                 exception, vec[1]);
    /* startup.c points every vector the firmware does not define at
     * Default_Handler (weak aliases, so any alias's name would be misleading) */
    if (v->default_handler && (vec[1] & ~1u) == v->default_handler && exception >= 16)
        return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "ecu '%s': no handler for IRQ %u"
                                 " (its vector is Default_Handler)", v->name, exception - 16);
    if (vec[0] <= VECU_RAM_BASE || vec[0] > VECU_RAM_BASE + v->ram_size)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "ecu '%s': initial SP 0x%08" PRIx32
                                 " (vector 0) outside RAM 0x%08" PRIx32 "..0x%08" PRIx32,
                                 v->name, vec[0], VECU_RAM_BASE,
                                 (uint32_t)(VECU_RAM_BASE + v->ram_size));
    uint32_t sp = vec[0], lr = VECU_TRAP_BASE | 1u, pc = vec[1];
    uint32_t control = 0, primask = 0;
    uc_reg_write(v->uc, UC_ARM_REG_CONTROL, &control);
    uc_reg_write(v->uc, UC_ARM_REG_PRIMASK, &primask);
    uc_reg_write(v->uc, UC_ARM_REG_SP, &sp);
    uc_reg_write(v->uc, UC_ARM_REG_LR, &lr);
    vecu_periph_of(v)->irq = exception >= 16 ? exception - 16 : 0xFF;
    v->faulted = v->over_limit = false;
    v->run_start = v->instructions;
    v->run_limit = v->instructions + max_instructions;
    v->start_cycle = start_cycle;
    v->block_address = v->block_size = 0;
    uc_err e = uc_emu_start(v->uc, pc, VECU_TRAP_BASE, 0, 0);
    uint32_t end_pc = 0;
    uc_reg_read(v->uc, UC_ARM_REG_PC, &end_pc);
    bool returned = (end_pc & ~1u) == VECU_TRAP_BASE && !v->over_limit &&
                    (!v->faulted || (v->fault_kind == -1 && v->fault_intno == 7 &&
                                     (v->fault_pc & ~1u) == VECU_TRAP_BASE));
    if (e != UC_ERR_OK || !returned)
        return fault_error(v, exception, e, err);
    if (cycles)
        *cycles = (uint64_t)ceil((double)(v->instructions - v->run_start) * v->cpi - 1e-9);
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_vecu_reset(rtcosim_vecu *v, uint64_t max_instructions, rtcosim_error *err)
{
    memset(v->data, 0, VECU_PERIPH_BLOCK + v->ram_size);
    rtcosim_status st = load_segments(v, v->name, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_vecu_run_exception(v, VECU_EXC_RESET, 0, max_instructions, NULL, err);
    return st;
}

/* ---- state ---- */

size_t rtcosim_vecu_data_size(const rtcosim_vecu *v) { return VECU_PERIPH_BLOCK + v->ram_size; }
void *rtcosim_vecu_data(rtcosim_vecu *v) { return v->data; }

rtcosim_status rtcosim_vecu_bind_data(rtcosim_vecu *v, void *block, rtcosim_error *err)
{
    if (block == v->data)
        return RTCOSIM_OK;
    memcpy(block, v->data, rtcosim_vecu_data_size(v));
    uc_err e = uc_mem_unmap(v->uc, VECU_RAM_BASE, v->ram_size);
    if (e != UC_ERR_OK)
        return uc_fail(v, e, "unmapping RAM", err);
    v->data = block;
    return map_data(v, err);
}

static const int core_regs[] = {
    UC_ARM_REG_R0,  UC_ARM_REG_R1,  UC_ARM_REG_R2,  UC_ARM_REG_R3,   UC_ARM_REG_R4,
    UC_ARM_REG_R5,  UC_ARM_REG_R6,  UC_ARM_REG_R7,  UC_ARM_REG_R8,   UC_ARM_REG_R9,
    UC_ARM_REG_R10, UC_ARM_REG_R11, UC_ARM_REG_R12, UC_ARM_REG_SP,   UC_ARM_REG_LR,
    UC_ARM_REG_PC,  UC_ARM_REG_XPSR, UC_ARM_REG_CONTROL, UC_ARM_REG_PRIMASK,
};
#define CORE_REG_COUNT (sizeof core_regs / sizeof core_regs[0])

size_t rtcosim_vecu_state_size(const rtcosim_vecu *v)
{
    return CORE_REG_COUNT * sizeof(uint32_t) + sizeof(uint64_t) + rtcosim_vecu_data_size(v);
}

rtcosim_status rtcosim_vecu_save_state(const rtcosim_vecu *v, void *buffer, size_t size,
                                       rtcosim_error *err)
{
    if (size < rtcosim_vecu_state_size(v))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "vecu '%s': state needs %zu bytes, got %zu",
                                 v->name, rtcosim_vecu_state_size(v), size);
    unsigned char *p = buffer;
    for (size_t i = 0; i < CORE_REG_COUNT; i++) {
        uint32_t r = 0;
        uc_reg_read(v->uc, core_regs[i], &r);
        memcpy(p, &r, sizeof r);
        p += sizeof r;
    }
    memcpy(p, &v->instructions, sizeof v->instructions);
    p += sizeof v->instructions;
    memcpy(p, v->data, rtcosim_vecu_data_size(v));
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_vecu_restore_state(rtcosim_vecu *v, const void *buffer, size_t size,
                                          rtcosim_error *err)
{
    if (size != rtcosim_vecu_state_size(v))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "vecu '%s': a state of %zu bytes does not"
                                 " fit (%zu expected)", v->name, size, rtcosim_vecu_state_size(v));
    const unsigned char *p = buffer;
    for (size_t i = 0; i < CORE_REG_COUNT; i++) {
        uint32_t r;
        memcpy(&r, p, sizeof r);
        p += sizeof r;
        uc_reg_write(v->uc, core_regs[i], &r);
    }
    memcpy(&v->instructions, p, sizeof v->instructions);
    p += sizeof v->instructions;
    memcpy(v->data, p, rtcosim_vecu_data_size(v));
    return RTCOSIM_OK;
}
