/* The MPS2 boards' APB peripherals as QEMU's mps2 machines model them: CMSDK
 * APB UARTs (Cortex-M System Design Kit TRM, ARM DDI 0479; register
 * behaviour as qemu hw/char/cmsdk-apb-uart.c: transmit is immediate, TX
 * disabled keeps the byte), CMSDK APB timers (DDI 0479 ch. 4) and the FPGA
 * I/O block (LEDs, buttons, 1 Hz / 100 Hz counters). The rest of the region
 * reads as zero, as QEMU's unimplemented-device placeholders do. */
#include <inttypes.h>

#include "board_internal.h"
#include "rtcosim/log.h"

#define APB_BASE 0x40000000u

/* ---- UART ---- */
enum { UART_TXFULL = 1, UART_RXFULL = 2, UART_TXOVR = 4, UART_RXOVR = 8 };

static void uart_update(rtcosim_board *b, unsigned i)
{
    board_uart *u = &b->uart[i];
    /* overrun interrupt bits mirror STATE & their enables */
    u->intstatus = (u->intstatus & 3u) | (u->state & (u->ctrl >> 2) & 0xCu);
    board_set_irq(b, b->desc->uart[i].irq_tx, u->intstatus & 1u);
    board_set_irq(b, b->desc->uart[i].irq_rx, u->intstatus & 2u);
}

static void uart_transmit(rtcosim_board *b, unsigned i, uint8_t byte)
{
    board_uart *u = &b->uart[i];
    if (!(u->ctrl & 1u)) /* TX disabled: the byte waits in the buffer */
        return;
    if (b->output)
        b->output(b->user, i, byte);
    u->state &= ~(uint32_t)UART_TXFULL;
    if (u->ctrl & 4u) /* TX empty after full raises the TX interrupt */
        u->intstatus |= 1u;
}

static const uint8_t uart_id[12] = {0x04, 0x00, 0x00, 0x00, 0x21, 0xb8,
                                    0x1b, 0x00, 0x0d, 0xf0, 0x05, 0xb1};

static uint32_t uart_read(rtcosim_board *b, unsigned i, uint32_t off)
{
    board_uart *u = &b->uart[i];
    switch (off) {
    case 0x0:
        u->state &= ~(uint32_t)UART_RXFULL;
        uart_update(b, i);
        return u->rxbuf;
    case 0x4: return u->state;
    case 0x8: return u->ctrl;
    case 0xC: return u->intstatus;
    case 0x10: return u->bauddiv;
    }
    if (off >= 0xFD0 && off <= 0xFFC)
        return uart_id[(off - 0xFD0) / 4];
    return 0;
}

static void uart_write(rtcosim_board *b, unsigned i, uint32_t off, uint32_t v)
{
    board_uart *u = &b->uart[i];
    switch (off) {
    case 0x0:
        if (u->state & UART_TXFULL) {
            u->state |= UART_TXOVR;
        } else {
            u->state |= UART_TXFULL;
            uart_transmit(b, i, (uint8_t)v);
        }
        break;
    case 0x4: u->state &= ~(v & 0xCu); break;
    case 0x8:
        u->ctrl = v & 0x7Fu;
        if ((u->ctrl & 1u) && (u->state & UART_TXFULL))
            uart_transmit(b, i, 0);
        break;
    case 0xC:
        u->state &= ~(v & 0xCu);
        u->intstatus &= ~v;
        break;
    case 0x10: u->bauddiv = v & 0xFFFFFu; break;
    default: return;
    }
    uart_update(b, i);
}

/* ---- timers: VALUE counts down one per PCLK (= the core clock), reloads
 * from RELOAD after zero and raises INTSTATUS when IRQ-enabled ---- */
static uint32_t timer_value(const board_timer *t, uint64_t now)
{
    if (!(t->ctrl & 1u))
        return t->value_at_epoch;
    uint64_t elapsed = now - t->epoch;
    if (elapsed <= t->value_at_epoch)
        return t->value_at_epoch - (uint32_t)elapsed;
    if (t->reload == 0)
        return 0;
    uint64_t since = (elapsed - t->value_at_epoch - 1) % ((uint64_t)t->reload + 1);
    return t->reload - (uint32_t)since;
}

/* Apply expiries up to `now`; the next one, UINT64_MAX if none. */
uint64_t board_timers_update(rtcosim_board *b, uint64_t now)
{
    uint64_t next = UINT64_MAX;
    for (unsigned i = 0; i < b->desc->timer_count; i++) {
        board_timer *t = &b->timer[i];
        if (!(t->ctrl & 1u) || (t->reload == 0 && t->value_at_epoch == 0))
            continue;
        uint64_t due = t->epoch + (t->value_at_epoch ? t->value_at_epoch
                                                     : (uint64_t)t->reload + 1);
        while (due <= now) {
            if (t->ctrl & 8u)
                t->intstatus = 1;
            t->epoch = due;
            t->value_at_epoch = 0;
            if (t->reload == 0) {
                due = UINT64_MAX;
                break;
            }
            due = t->epoch + (uint64_t)t->reload + 1;
        }
        board_set_irq(b, b->desc->timer[i].irq, t->intstatus);
        if (due < next)
            next = due;
    }
    return next;
}

static uint32_t timer_read(rtcosim_board *b, unsigned i, uint32_t off)
{
    board_timer *t = &b->timer[i];
    board_timers_update(b, board_cycle_now(b));
    switch (off) {
    case 0x0: return t->ctrl;
    case 0x4: return timer_value(t, board_cycle_now(b));
    case 0x8: return t->reload;
    case 0xC: return t->intstatus;
    }
    return 0;
}

static void timer_write(rtcosim_board *b, unsigned i, uint32_t off, uint32_t v)
{
    board_timer *t = &b->timer[i];
    uint64_t now = board_cycle_now(b);
    board_timers_update(b, now);
    uint32_t value = timer_value(t, now);
    switch (off) {
    case 0x0: t->ctrl = v & 0xFu; break;
    case 0x4: value = v; break;
    case 0x8: t->reload = v; value = v; break; /* RELOAD also loads VALUE */
    case 0xC: t->intstatus &= ~(v & 1u); break;
    default: return;
    }
    t->value_at_epoch = value;
    t->epoch = now;
    board_set_irq(b, b->desc->timer[i].irq, t->intstatus);
    board_reschedule(b);
}

/* ---- FPGA I/O ---- */
static uint32_t fpgaio_read(rtcosim_board *b, uint32_t off)
{
    uint64_t now = board_cycle_now(b), hz = b->desc->clock_hz;
    switch (off) {
    case 0x00: return b->led;
    case 0x08: return b->switches;
    case 0x10: return (uint32_t)(now / hz);
    case 0x14: return (uint32_t)(now / (hz / 100));
    case 0x18: return (uint32_t)(now / ((uint64_t)b->prescale + 1));
    case 0x1C: return b->prescale;
    case 0x20: return b->prescale - (uint32_t)(now % ((uint64_t)b->prescale + 1));
    }
    return 0;
}

static void fpgaio_write(rtcosim_board *b, uint32_t off, uint32_t v)
{
    if (off == 0x00)
        b->led = v & 3u; /* two LEDs on AN385/AN386 */
    else if (off == 0x1C)
        b->prescale = v;
}

/* ---- dispatch ---- */
static void warn_unimp(rtcosim_board *b, uint32_t a)
{
    if (!b->warned_unimp)
        rtcosim_log(RTCOSIM_LOG_WARNING, "board", "board '%s': 0x%08" PRIx32 " (PC 0x%08" PRIx32 ") is"
                    " an unimplemented device: reads as zero, writes ignored (warned once)",
                    b->desc->name, a, board_pc(b));
    b->warned_unimp = true;
}

uint64_t board_apb_read(uc_engine *uc, uint64_t offset, unsigned size, void *user)
{
    (void)uc, (void)size;
    rtcosim_board *b = user;
    uint32_t a = APB_BASE + (uint32_t)offset, page = a & ~0xFFFu, off = a & 0xFFFu;
    for (unsigned i = 0; i < b->desc->uart_count; i++)
        if (page == b->desc->uart[i].base)
            return uart_read(b, i, off);
    for (unsigned i = 0; i < b->desc->timer_count; i++)
        if (page == b->desc->timer[i].base)
            return timer_read(b, i, off);
    if (b->desc->fpgaio_base && page == b->desc->fpgaio_base)
        return fpgaio_read(b, off);
    warn_unimp(b, a);
    return 0;
}

void board_apb_write(uc_engine *uc, uint64_t offset, unsigned size, uint64_t value, void *user)
{
    (void)uc, (void)size;
    rtcosim_board *b = user;
    uint32_t a = APB_BASE + (uint32_t)offset, page = a & ~0xFFFu, off = a & 0xFFFu;
    for (unsigned i = 0; i < b->desc->uart_count; i++)
        if (page == b->desc->uart[i].base) {
            uart_write(b, i, off, (uint32_t)value);
            return;
        }
    for (unsigned i = 0; i < b->desc->timer_count; i++)
        if (page == b->desc->timer[i].base) {
            timer_write(b, i, off, (uint32_t)value);
            return;
        }
    if (b->desc->fpgaio_base && page == b->desc->fpgaio_base) {
        fpgaio_write(b, off, (uint32_t)value);
        return;
    }
    warn_unimp(b, a);
}

uint64_t board_unimp_read(uc_engine *uc, uint64_t offset, unsigned size, void *user)
{
    (void)uc, (void)offset, (void)size;
    rtcosim_board *b = user;
    warn_unimp(b, board_pc(b));
    return 0;
}

void board_unimp_write(uc_engine *uc, uint64_t offset, unsigned size, uint64_t value, void *user)
{
    (void)uc, (void)offset, (void)size, (void)value;
    rtcosim_board *b = user;
    warn_unimp(b, board_pc(b));
}
