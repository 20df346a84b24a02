/* FP context stacking of the board's exception model (ARMv7-M B1.5.7, FPCCR
 * B3.2.23), lazy as the architecture and QEMU do it when FPCCR.LSPEN is set:
 * entry reserves the frame's FP area and sets LSPACT and FPCAR; the first FP
 * instruction afterwards writes s0-s15 and FPSCR there. That instruction is
 * found by the block hook: while LSPACT is set it looks blocks up in a table
 * of FP-free blocks, so a block with an FP instruction stops the core before
 * it runs. */
#include <string.h>

#include "board_internal.h"

/* An FP instruction (A5.3.18, coprocessor 10/11): first halfword 111x 11xx
 * xxxx xxxx, second halfword xxxx 101x xxxx xxxx. */
bool board_code_has_fp(const unsigned char *p, uint32_t size)
{
    for (uint32_t i = 0; i + 1 < size;) {
        unsigned hw = (unsigned)p[i] | (unsigned)p[i + 1] << 8;
        if ((hw >> 11) < 0x1D) {
            i += 2;
            continue;
        }
        if (i + 3 < size) {
            unsigned hw2 = (unsigned)p[i + 2] | (unsigned)p[i + 3] << 8;
            if ((hw & 0xEC00u) == 0xEC00u && (hw2 & 0x0E00u) == 0x0A00u)
                return true;
        }
        i += 4;
    }
    return false;
}

bool board_fp_store(rtcosim_board *b, uint32_t address)
{
    unsigned char *p = (unsigned char *)board_host_code(b, address, 0x44);
    if (!p)
        return false;
    for (unsigned i = 0; i < 8; i++) {
        double d;
        uc_reg_read(b->uc, UC_ARM_REG_D0 + (int)i, &d);
        memcpy(p + 8 * i, &d, 8); /* s2i in the low word, s2i+1 in the high */
    }
    uint32_t fpscr = 0;
    uc_reg_read(b->uc, UC_ARM_REG_FPSCR, &fpscr);
    memcpy(p + 0x40, &fpscr, 4);
    return true;
}

static bool ready(const rtcosim_board *b, unsigned n, bool enabled, int exec)
{
    return enabled && board_group_priority(b, n) < exec;
}

/* UpdateFPCCR (B1.5.7): which faults the preservation could raise can be
 * taken at the interrupted context's execution priority `exec`. UFRDY (bit
 * 10) as QEMU 7.2 reports it on a Cortex-M4. */
void board_fp_lazy_entry(rtcosim_board *b, uint32_t fp_area, bool thread, int exec)
{
    uint32_t v = b->fpccr & ~0x77Bu;
    v |= 1u; /* LSPACT; USER stays 0: unprivileged thread mode is not modelled */
    if (thread)
        v |= 1u << 3;
    if (ready(b, 3, true, exec))
        v |= 1u << 4;
    if (ready(b, 4, b->shcsr & 1u << 16, exec))
        v |= 1u << 5;
    if (ready(b, 5, b->shcsr & 1u << 17, exec))
        v |= 1u << 6;
    if (ready(b, 12, b->demcr & 1u << 16, exec))
        v |= 1u << 8;
    if (ready(b, 6, b->shcsr & 1u << 18, exec))
        v |= 1u << 10;
    b->fpccr = v;
    b->fpcar = fp_area;
    board_fp_lspact_changed(b);
}

bool board_fp_preserve(rtcosim_board *b)
{
    if (!board_fp_store(b, b->fpcar)) {
        board_fail(b, "lazy FP stacking: FPCAR 0x%08x is outside RAM", (unsigned)b->fpcar);
        return false;
    }
    b->fpccr &= ~1u;
    board_fp_lspact_changed(b);
    return true;
}

void board_fp_lspact_changed(rtcosim_board *b)
{
    b->table = (b->fpccr & 1u) ? b->blocks_nofp : b->blocks;
}
