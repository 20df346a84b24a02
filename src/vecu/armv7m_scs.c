/* The ARMv7-M private peripheral bus as firmware sees it (ARMv7-M
 * Architecture Reference Manual, chapter B3): the system control block,
 * SysTick, the NVIC, the FP extension's registers and DWT CYCCNT. Registers
 * of the system control space the model lacks end the run with an error
 * naming address and PC; the debug components around it (ITM, FPB, TPIU,
 * ROM table) read as zero with one warning, as QEMU's PPB does. */
#include <inttypes.h>

#include "board_internal.h"
#include "rtcosim/log.h"

#define PPB_BASE 0xE0000000u
#define SCS 0xE000E000u

void board_scs_reset(rtcosim_board *b)
{
    b->ccr = 1u << 9;  /* STKALIGN: Cortex-M4 resets with 8-byte frame alignment */
    b->fpccr = 3u << 30; /* ASPEN | LSPEN (B3.2.23) */
    b->systick.divisor = 1;
}

int board_priority(const rtcosim_board *b, unsigned n)
{
    switch (n) {
    case 1: return -3; /* Reset */
    case 2: return -2; /* NMI */
    case 3: return -1; /* HardFault */
    default: return b->priority[n];
    }
}

/* B1.5.4: PRIGROUP splits a priority into group priority and subpriority;
 * only the group priority takes part in preemption. */
int board_group_priority(const rtcosim_board *b, unsigned n)
{
    int p = board_priority(b, n);
    if (p < 0)
        return p;
    uint32_t mask = 0xFFu << (b->prigroup + 1) & 0xFFu;
    return (int)((uint32_t)p & mask);
}

/* ---- SysTick (B3.3): CSR.ENABLE runs the counter; reaching zero sets
 * COUNTFLAG and, with TICKINT, pends exception 15 ---- */
uint64_t board_systick_update(rtcosim_board *b, uint64_t now)
{
    if (board_counter_advance(&b->systick, now)) {
        b->syst_csr |= 1u << 16;
        if (b->syst_csr & 2u)
            b->pending[15] = true;
    }
    return board_counter_next(&b->systick);
}

/* ---- registers ---- */

static uint32_t shpr_read(const rtcosim_board *b, unsigned first)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < 4; i++)
        v |= (uint32_t)b->priority[first + i] << (8 * i);
    return v;
}

static uint32_t icsr_read(rtcosim_board *b)
{
    uint32_t v = b->current & 0x1FFu;
    unsigned pending = 0;
    int best = 1 << 30;
    for (unsigned n = 2; n < 16 + b->desc->irq_count; n++)
        if (b->pending[n] && board_priority(b, n) < best)
            best = board_priority(b, n), pending = n;
    v |= pending << 12;
    if (pending >= 16)
        v |= 1u << 22; /* ISRPENDING */
    unsigned nactive = 0;
    for (unsigned n = 1; n < BOARD_EXCEPTIONS; n++)
        nactive += b->active[n];
    if (nactive <= 1)
        v |= 1u << 11; /* RETTOBASE */
    if (b->pending[14])
        v |= 1u << 28;
    if (b->pending[15])
        v |= 1u << 26;
    if (b->pending[2])
        v |= 1u << 31;
    return v;
}

static uint32_t shcsr_read(const rtcosim_board *b)
{
    uint32_t v = b->shcsr & (7u << 16); /* enables */
    v |= b->active[4] << 0 | b->active[5] << 1 | b->active[6] << 3 | b->active[11] << 7 |
         b->active[12] << 8 | b->active[14] << 10 | b->active[15] << 11;
    v |= b->pending[6] << 12 | b->pending[4] << 13 | b->pending[5] << 14 | b->pending[11] << 15;
    return v;
}

static bool scs_read(rtcosim_board *b, uint32_t a, uint32_t *out)
{
    unsigned irqs = b->desc->irq_count;
    if (a >= 0xE000E100u && a < 0xE000E500u) { /* NVIC: one bit or byte per IRQ */
        uint32_t off = a - 0xE000E100u, v = 0;
        if (off < 0x300u) {
            unsigned first = (off & 0x7Fu) / 4 * 32, kind = off / 0x80u;
            for (unsigned i = 0; i < 32 && first + i < irqs; i++) {
                unsigned n = 16 + first + i;
                bool bit = kind == 0 || kind == 1 ? b->enabled[n]
                           : kind == 2 || kind == 3 ? b->pending[n]
                           : kind == 4 ? b->active[n] : false;
                v |= (uint32_t)bit << i;
            }
        } else {
            unsigned first = off - 0x300u;
            for (unsigned i = 0; i < 4; i++)
                if (first + i < irqs)
                    v |= (uint32_t)b->priority[16 + first + i] << (8 * i);
        }
        *out = v;
        return true;
    }
    switch (a) {
    case 0xE000E004u: *out = (irqs + 31) / 32 - 1; return true; /* ICTR */
    case 0xE000E010u: {
        board_systick_update(b, board_cycle_now(b));
        *out = b->syst_csr;
        b->syst_csr &= ~(1u << 16); /* COUNTFLAG clears on read */
        return true;
    }
    case 0xE000E014u: *out = b->systick.reload; return true;
    case 0xE000E018u: *out = board_counter_value(&b->systick, board_cycle_now(b)); return true;
    case 0xE000E01Cu: /* CALIB: TENMS from the reference clock, or NOREF */
        *out = b->desc->refclk_hz ? (uint32_t)(b->desc->refclk_hz / 100 - 1) : 1u << 31;
        return true;
    case 0xE000ED00u: *out = b->desc->cpuid; return true;
    case 0xE000ED04u: *out = icsr_read(b); return true;
    case 0xE000ED08u: *out = b->vtor; return true;
    case 0xE000ED0Cu: *out = 0xFA050000u | b->prigroup << 8; return true;
    case 0xE000ED10u: *out = b->scr; return true;
    case 0xE000ED14u: *out = b->ccr; return true;
    case 0xE000ED18u: *out = shpr_read(b, 4); return true;
    case 0xE000ED1Cu: *out = shpr_read(b, 8); return true;
    case 0xE000ED20u: *out = shpr_read(b, 12); return true;
    case 0xE000ED24u: *out = shcsr_read(b); return true;
    case 0xE000ED28u: *out = b->cfsr; return true;
    case 0xE000ED2Cu: *out = b->hfsr; return true;
    case 0xE000ED30u: *out = 0; return true; /* DFSR */
    case 0xE000ED34u: *out = b->mmfar; return true;
    case 0xE000ED38u: *out = b->bfar; return true;
    case 0xE000ED3Cu: *out = 0; return true; /* AFSR */
    case 0xE000ED88u: *out = b->cpacr; return true;
    case 0xE000EDFCu: *out = b->demcr; return true;
    case 0xE000EF34u: *out = b->fpccr; return true;
    case 0xE000EF38u: *out = b->fpcar; return true;
    case 0xE000EF3Cu: *out = b->fpdscr; return true;
    /* Cortex-M4 feature registers (ID_PFR0.. MVFR1) read as its TRM gives them */
    case 0xE000ED40u: *out = 0x00000030u; return true;
    case 0xE000ED44u: *out = 0x00000200u; return true;
    case 0xE000EF40u: *out = 0x10110021u; return true;
    case 0xE000EF44u: *out = 0x11000011u; return true;
    }
    return false;
}

static void nvic_bits(rtcosim_board *b, unsigned kind, unsigned first, uint32_t v)
{
    for (unsigned i = 0; i < 32 && first + i < b->desc->irq_count; i++) {
        if (!(v >> i & 1u))
            continue;
        unsigned n = 16 + first + i;
        switch (kind) {
        case 0: b->enabled[n] = true; break;
        case 1: b->enabled[n] = false; break;
        case 2: b->pending[n] = true; break;
        case 3: b->pending[n] = false; break;
        }
    }
}

static bool scs_write(rtcosim_board *b, uint32_t a, unsigned size, uint32_t v)
{
    unsigned irqs = b->desc->irq_count;
    if (a >= 0xE000E100u && a < 0xE000E500u) {
        uint32_t off = a - 0xE000E100u;
        if (off < 0x200u) {
            nvic_bits(b, off / 0x80u, (off & 0x7Fu) / 4 * 32, v);
        } else if (off >= 0x300u) {
            unsigned first = off - 0x300u;
            for (unsigned i = 0; i < size; i++)
                if (first + i < irqs)
                    b->priority[16 + first + i] = (uint8_t)(v >> (8 * i));
        } /* IABR is read-only */
        board_reschedule(b);
        return true;
    }
    uint64_t now = board_cycle_now(b);
    switch (a) {
    case 0xE000E010u:
        board_systick_update(b, now);
        board_counter_run(&b->systick, now, false);
        /* CLKSOURCE 0: the reference clock, a whole divisor of the core's */
        b->systick.divisor = (v & 4u) || !b->desc->refclk_hz
                                 ? 1u : (uint32_t)(b->desc->clock_hz / b->desc->refclk_hz);
        board_counter_run(&b->systick, now, v & 1u);
        b->syst_csr = (b->syst_csr & (1u << 16)) | (v & 7u);
        board_reschedule(b);
        return true;
    case 0xE000E014u:
        board_systick_update(b, now);
        b->systick.reload = v & 0xFFFFFFu;
        board_reschedule(b);
        return true;
    case 0xE000E018u: /* any write clears the counter and COUNTFLAG */
        board_systick_update(b, now);
        board_counter_set(&b->systick, now, 0);
        b->syst_csr &= ~(1u << 16);
        board_reschedule(b);
        return true;
    case 0xE000ED04u:
        if (v & 1u << 31) b->pending[2] = true;
        if (v & 1u << 28) b->pending[14] = true;
        if (v & 1u << 27) b->pending[14] = false;
        if (v & 1u << 26) b->pending[15] = true;
        if (v & 1u << 25) b->pending[15] = false;
        board_reschedule(b);
        return true;
    case 0xE000ED08u: b->vtor = v & 0xFFFFFF80u; return true;
    case 0xE000ED0Cu:
        if ((v >> 16) != 0x05FAu) /* VECTKEY: other writes are ignored (B3.2.6) */
            return true;
        b->prigroup = v >> 8 & 7u;
        if (v & 4u) { /* SYSRESETREQ: the board resets after this block (board.c) */
            b->reset_requested = true;
            board_reschedule(b);
        }
        return true;
    case 0xE000ED10u: b->scr = v & 0x16u; return true;
    case 0xE000ED14u: b->ccr = v & 0x31Bu; return true;
    case 0xE000ED18u: case 0xE000ED1Cu: case 0xE000ED20u:
        for (unsigned i = 0; i < size; i++) {
            unsigned n = 4 + (a - 0xE000ED18u) + i;
            if (n >= 4 && n != 7 && n != 8 && n != 9 && n != 10 && n != 13)
                b->priority[n] = (uint8_t)(v >> (8 * i));
        }
        board_reschedule(b);
        return true;
    case 0xE000ED24u:
        b->shcsr = v & (7u << 16);
        b->active[4] = v & 1u, b->active[5] = v >> 1 & 1u, b->active[6] = v >> 3 & 1u;
        b->active[11] = v >> 7 & 1u, b->active[14] = v >> 10 & 1u, b->active[15] = v >> 11 & 1u;
        b->pending[6] = v >> 12 & 1u, b->pending[4] = v >> 13 & 1u, b->pending[5] = v >> 14 & 1u;
        b->pending[11] = v >> 15 & 1u;
        board_reschedule(b);
        return true;
    case 0xE000ED28u: b->cfsr &= ~v; return true; /* W1C */
    case 0xE000ED2Cu: b->hfsr &= ~v; return true;
    case 0xE000ED30u: return true;
    case 0xE000ED34u: b->mmfar = v; return true;
    case 0xE000ED38u: b->bfar = v; return true;
    case 0xE000ED88u: b->cpacr = v & (0xFu << 20); return true;
    case 0xE000EDFCu: b->demcr = v; return true;
    case 0xE000EF00u: /* STIR */
        if ((v & 0x1FFu) < irqs)
            b->pending[16 + (v & 0x1FFu)] = true;
        board_reschedule(b);
        return true;
    case 0xE000EF34u: /* ASPEN, LSPEN, MONRDY, BFRDY, MMRDY, HFRDY, THREAD, USER, LSPACT;
                       * a write clears the rest (UFRDY too, as QEMU 7.2 does) */
        b->fpccr = v & 0xC000017Bu;
        board_fp_lspact_changed(b);
        return true;
    case 0xE000EF38u: b->fpcar = v & ~7u; return true;
    case 0xE000EF3Cu: b->fpdscr = v & 0x07C00000u; return true;
    }
    return false;
}

/* DWT (C1.8.1): CYCCNT counts processor cycles while DWT_CTRL.CYCCNTENA
 * (and DEMCR.TRCENA) are set. */
static uint32_t cyccnt(rtcosim_board *b, uint64_t now)
{
    if ((b->dwt_ctrl & 1u) && (b->demcr & 1u << 24))
        return b->cyccnt_at_epoch + (uint32_t)(now - b->cyccnt_epoch);
    return b->cyccnt_at_epoch;
}

static void warn_ppb(rtcosim_board *b, uint32_t a)
{
    if (!b->warned_ppb)
        rtcosim_log(RTCOSIM_LOG_WARNING, "board", "board '%s': debug register 0x%08" PRIx32 " in %s is not"
                    " modelled: reads as zero, writes ignored (warned once)", b->desc->name, a,
                    board_where(b));
    b->warned_ppb = true;
}

uint64_t board_ppb_read(uc_engine *uc, uint64_t offset, unsigned size, void *user)
{
    (void)uc;
    rtcosim_board *b = user;
    uint32_t a = PPB_BASE + (uint32_t)offset, aligned = a & ~3u, v = 0;
    if (aligned == 0xE0001000u) {
        v = b->dwt_ctrl;
    } else if (aligned == 0xE0001004u) {
        v = cyccnt(b, board_cycle_now(b));
    } else if (a >= SCS && a < SCS + 0x1000u) {
        if (!scs_read(b, aligned, &v)) {
            board_fail(b, "read of unmodelled system register 0x%08" PRIx32 " in %s", a,
                       board_where(b));
            return 0;
        }
    } else {
        warn_ppb(b, a);
        return 0;
    }
    v >>= 8 * (a & 3u);
    return size >= 4 ? v : v & ((1u << (8 * size)) - 1u);
}

void board_ppb_write(uc_engine *uc, uint64_t offset, unsigned size, uint64_t value, void *user)
{
    (void)uc;
    rtcosim_board *b = user;
    uint32_t a = PPB_BASE + (uint32_t)offset, v = (uint32_t)value;
    if (a == 0xE0001000u) {
        uint64_t now = board_cycle_now(b);
        b->cyccnt_at_epoch = cyccnt(b, now);
        b->cyccnt_epoch = now;
        b->dwt_ctrl = v;
        return;
    }
    if (a == 0xE0001004u) {
        b->cyccnt_at_epoch = v;
        b->cyccnt_epoch = board_cycle_now(b);
        return;
    }
    if (a >= SCS && a < SCS + 0x1000u) {
        /* byte and halfword writes reach the priority registers and the
         * NVIC at their own address; other registers take words */
        bool bytewise = (a >= 0xE000E400u && a < 0xE000E500u) ||
                        (a >= 0xE000ED18u && a < 0xE000ED24u);
        bool ok = bytewise ? scs_write(b, a, size, v)
                           : (size == 4 || (a & 3u) == 0) && scs_write(b, a & ~3u, 4, v);
        if (!ok)
            board_fail(b, "write of unmodelled system register 0x%08" PRIx32 " in %s", a,
                       board_where(b));
        return;
    }
    warn_ppb(b, a);
}
