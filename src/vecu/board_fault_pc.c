/* The precise PC of a data access that faulted. Unicorn 2.0.1 reports the
 * PC of the translated block's start when an access faults, while a precise
 * BusFault stacks the faulting instruction's own address (ARMv7-M B1.5.6).
 * The instructions before it in the block have run and it has not, so the
 * registers now hold what it saw: the first load/store of the block whose
 * address, computed from them, covers the fault address is the one. */
#include "board_internal.h"

static const int gpr[16] = {UC_ARM_REG_R0,  UC_ARM_REG_R1,  UC_ARM_REG_R2,  UC_ARM_REG_R3,
                            UC_ARM_REG_R4,  UC_ARM_REG_R5,  UC_ARM_REG_R6,  UC_ARM_REG_R7,
                            UC_ARM_REG_R8,  UC_ARM_REG_R9,  UC_ARM_REG_R10, UC_ARM_REG_R11,
                            UC_ARM_REG_R12, UC_ARM_REG_SP,  UC_ARM_REG_LR,  UC_ARM_REG_PC};

static uint32_t r(rtcosim_board *b, unsigned n)
{
    uint32_t v = 0;
    uc_reg_read(b->uc, gpr[n & 15u], &v);
    return v;
}

static unsigned popcount16(uint32_t v) { return (unsigned)__builtin_popcount(v & 0xFFFFu); }

/* [lo, hi) touched by the load/store hw[, hw2] (ARMv7-M A5.2/A5.3 encodings),
 * false if it is none of them. */
static bool access_range(rtcosim_board *b, uint16_t hw, uint16_t hw2,
                         uint32_t *lo, uint32_t *hi)
{
    unsigned op = hw >> 11;
    uint32_t size = 4;
    if (op >= 0x0C && op <= 0x11) { /* LDR/STR(B/H) immediate, T16 */
        uint32_t imm = hw >> 6 & 31u;
        if (op <= 0x0D) imm *= 4;
        else if (op <= 0x0F) size = 1;
        else size = 2, imm *= 2;
        *lo = r(b, hw >> 3 & 7u) + imm;
    } else if (op == 0x0A || op == 0x0B) { /* register offset, T16 */
        unsigned opb = hw >> 9 & 7u;
        size = opb == 0 || opb == 4 ? 4 : opb == 2 || opb == 3 || opb == 6 ? 1 : 2;
        *lo = r(b, hw >> 3 & 7u) + r(b, hw >> 6 & 7u);
    } else if (op == 0x12 || op == 0x13) { /* SP-relative */
        *lo = r(b, 13) + (hw & 0xFFu) * 4;
    } else if ((hw & 0xF600u) == 0xB400u) { /* PUSH / POP */
        unsigned n = popcount16(hw & 0xFFu) + (hw >> 8 & 1u);
        *lo = hw & 0x0800u ? r(b, 13) : r(b, 13) - 4 * n;
        size = 4 * n;
    } else if (op == 0x18 || op == 0x19) { /* STM / LDM, T16 */
        *lo = r(b, hw >> 8 & 7u);
        size = 4 * popcount16(hw & 0xFFu);
    } else if ((hw & 0xFE00u) == 0xF800u) { /* load/store single, T32 */
        unsigned sz = hw >> 5 & 3u;
        size = sz == 0 ? 1 : sz == 1 ? 2 : 4;
        uint32_t base = r(b, hw & 15u);
        if ((hw & 15u) == 15u)
            return false; /* literal: inside the image */
        if (hw & 0x80u)
            *lo = base + (hw2 & 0xFFFu);
        else if (hw2 & 0x800u) { /* imm8 with P, U, W */
            uint32_t imm = hw2 & 0xFFu;
            uint32_t offset_addr = hw2 & 0x200u ? base + imm : base - imm;
            *lo = hw2 & 0x400u ? offset_addr : base;
        } else
            *lo = base + (r(b, hw2 & 15u) << (hw2 >> 4 & 3u));
    } else if ((hw & 0xFE40u) == 0xE840u) { /* LDRD/STRD */
        uint32_t imm = (hw2 & 0xFFu) * 4, base = r(b, hw & 15u);
        uint32_t offset_addr = hw & 0x80u ? base + imm : base - imm;
        *lo = hw & 0x100u ? offset_addr : base;
        size = 8;
    } else if ((hw & 0xFE40u) == 0xE800u) { /* LDM/STM, T32 */
        uint32_t base = r(b, hw & 15u), n = popcount16(hw2);
        *lo = (hw >> 7 & 3u) == 2 ? base - 4 * n : base; /* DB : IA */
        size = 4 * n;
    } else {
        return false;
    }
    *hi = *lo + size;
    return true;
}

uint32_t board_fault_pc(rtcosim_board *b, uint32_t block_pc, uint32_t address)
{
    uint32_t end = board_block_address(b) + board_block_size(b);
    if (block_pc != board_block_address(b))
        return block_pc;
    for (uint32_t pc = block_pc; pc < end;) {
        const unsigned char *p = board_host_code(b, pc, 2);
        if (!p)
            break;
        uint16_t hw = (uint16_t)(p[0] | p[1] << 8), hw2 = 0;
        bool wide = (hw >> 11) >= 0x1D;
        if (wide) {
            const unsigned char *q = board_host_code(b, pc + 2, 2);
            if (!q)
                break;
            hw2 = (uint16_t)(q[0] | q[1] << 8);
        }
        uint32_t lo, hi;
        if (access_range(b, hw, hw2, &lo, &hi) && address >= lo && address < hi)
            return pc;
        pc += wide ? 4 : 2;
    }
    return block_pc;
}
