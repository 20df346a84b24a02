/* ARM semihosting for board firmware (semihosting specification 2.0, BKPT
 * 0xAB in Thumb state): the output and exit calls test firmware needs to
 * end itself and print beside its UARTs, as QEMU's `-semihosting` serves
 * them. Split from board.c, which traps the BKPT. */
#include <inttypes.h>
#include <string.h>

#include "board_internal.h"

static bool read_word(rtcosim_board *b, uint32_t a, uint32_t *v)
{
    const unsigned char *p = board_host_code(b, a, 4);
    if (!p)
        return false;
    memcpy(v, p, 4);
    return true;
}

bool board_semihosting(rtcosim_board *b, uint32_t pc)
{
    uint32_t op = 0, arg = 0, w = 0;
    uc_reg_read(b->uc, UC_ARM_REG_R0, &op);
    uc_reg_read(b->uc, UC_ARM_REG_R1, &arg);
    switch (op) {
    case 0x03: { /* SYS_WRITEC */
        const unsigned char *p = board_host_code(b, arg, 1);
        if (p && b->output)
            b->output(b->user, RTCOSIM_BOARD_SEMIHOSTING, *p);
        break;
    }
    case 0x04: /* SYS_WRITE0 */
        for (const unsigned char *p; (p = board_host_code(b, arg, 1)) && *p; arg++)
            if (b->output)
                b->output(b->user, RTCOSIM_BOARD_SEMIHOSTING, *p);
        break;
    case 0x18: /* SYS_EXIT: r1 is the reason on AArch32 */
        b->exited = true;
        b->exit_code = arg == 0x20026u ? 0 : 1;
        return false;
    case 0x20: /* SYS_EXIT_EXTENDED: [reason, subcode] */
        b->exited = true;
        b->exit_code = 1;
        if (read_word(b, arg, &w) && w == 0x20026u && read_word(b, arg + 4, &w))
            b->exit_code = (int)w;
        return false;
    default:
        board_fail(b, "semihosting operation 0x%02" PRIx32 " at PC 0x%08" PRIx32 " is not"
                   " supported (SYS_WRITEC, SYS_WRITE0, SYS_EXIT, SYS_EXIT_EXTENDED are)", op, pc);
        return false;
    }
    uint32_t next = (pc + 2) | 1u;
    uc_reg_write(b->uc, UC_ARM_REG_PC, &next);
    return true;
}
