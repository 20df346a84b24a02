/* The MPS2 boards' APB peripherals as QEMU's mps2 machines model them: CMSDK
 * APB UARTs (Cortex-M System Design Kit TRM, ARM DDI 0479; register
 * behaviour as qemu hw/char/cmsdk-apb-uart.c: transmit is immediate, TX
 * disabled keeps the byte), CMSDK APB timers (DDI 0479 ch. 4) and the FPGA
 * I/O block (LEDs, buttons, 1 Hz / 100 Hz counters). The rest of the region
 * is read-as-zero, write-ignored, as on QEMU's mps2 machines (where the
 * board puts nothing but a logging placeholder there). */
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

/* CoreSight-style ID registers at 0xFD0..0xFFC: PID4-7, PID0-3, CID0-3 of
 * the CMSDK parts; PID0 tells the part (UART 0x21, timer 0x22, dual 0x23). */
static uint32_t timer_id(uint32_t off, uint8_t pid0)
{
    static const uint8_t ids[12] = {0x04, 0x00, 0x00, 0x00, 0x00, 0xb8,
                                    0x1b, 0x00, 0x0d, 0xf0, 0x05, 0xb1};
    unsigned i = (off - 0xFD0) / 4;
    return i == 4 ? pid0 : ids[i];
}

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
        return timer_id(off, 0x21);
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

/* ---- APB timers (DDI 0479 4.3): VALUE counts down one per PCLK (= the
 * core clock), reloads from RELOAD after zero, INTSTATUS set on reaching
 * zero when CTRL.IRQEN (bit 3); RELOAD writes also load VALUE ---- */
static uint32_t timer_read(rtcosim_board *b, unsigned i, uint32_t off)
{
    board_timer *t = &b->timer[i];
    uint64_t now = board_cycle_now(b);
    board_timers_update(b, now);
    switch (off) {
    case 0x0: return t->ctrl;
    case 0x4: return board_counter_value(&t->count, now);
    case 0x8: return t->count.reload;
    case 0xC: return t->intstatus;
    }
    return off >= 0xFD0 && off <= 0xFFC ? timer_id(off, 0x22) : 0;
}

static void timer_write(rtcosim_board *b, unsigned i, uint32_t off, uint32_t v)
{
    board_timer *t = &b->timer[i];
    uint64_t now = board_cycle_now(b);
    board_timers_update(b, now);
    switch (off) {
    case 0x0:
        t->ctrl = v & 0xFu;
        board_counter_run(&t->count, now, v & 1u);
        break;
    case 0x4: board_counter_set(&t->count, now, v); break;
    case 0x8:
        t->count.reload = v;
        board_counter_set(&t->count, now, v);
        break;
    case 0xC: t->intstatus &= ~(v & 1u); break;
    default: return;
    }
    board_set_irq(b, b->desc->timer[i].irq, t->intstatus);
    board_reschedule(b);
}

/* ---- dual timer (DDI 0479 4.4): two counters at 0x00 and 0x20 with one
 * combined interrupt. CONTROL: ONESHOT 0, SIZE (32-bit) 1, PRESCALE 3:2
 * (1/16/256), INTEN 5, MODE (periodic) 6, ENABLE 7; reset state INTEN,
 * free-running, 16-bit, VALUE 0xFFFFFFFF (as QEMU resets it). ---- */
static uint32_t dual_mask(const board_dualtimer *d) { return d->ctrl & 2u ? 0xFFFFFFFFu : 0xFFFFu; }

static void dual_configure(board_dualtimer *d)
{
    static const uint32_t divisors[4] = {1, 16, 256, 256};
    d->count.divisor = divisors[d->ctrl >> 2 & 3u];
    d->count.oneshot = d->ctrl & 1u;
    d->count.reload = d->ctrl & 0x40u ? d->load & dual_mask(d) : dual_mask(d);
}

static void dual_update_irq(rtcosim_board *b)
{
    bool any = false;
    for (unsigned i = 0; i < 2; i++)
        any = any || (b->dual[i].intstatus && (b->dual[i].ctrl & 0x20u));
    board_set_irq(b, b->desc->dualtimer_irq, any);
}

static uint32_t dual_read(rtcosim_board *b, uint32_t off)
{
    if (off >= 0xFD0 && off <= 0xFFC)
        return timer_id(off, 0x23);
    if (off >= 0x40)
        return 0;
    board_dualtimer *d = &b->dual[off >> 5];
    uint64_t now = board_cycle_now(b);
    board_timers_update(b, now);
    switch (off & 0x1Fu) {
    case 0x00: case 0x18: return d->load;
    case 0x04: {
        uint32_t v = board_counter_value(&d->count, now);
        return d->ctrl & 2u ? v : (d->value_high & 0xFFFF0000u) | (v & 0xFFFFu);
    }
    case 0x08: return d->ctrl;
    case 0x10: return d->intstatus;
    case 0x14: return d->intstatus && (d->ctrl & 0x20u);
    }
    return 0;
}

static void dual_write(rtcosim_board *b, uint32_t off, uint32_t v)
{
    if (off >= 0x40)
        return;
    board_dualtimer *d = &b->dual[off >> 5];
    uint64_t now = board_cycle_now(b);
    board_timers_update(b, now);
    switch (off & 0x1Fu) {
    case 0x00: /* LOAD: the limit, and the count at once */
        d->load = v;
        d->value_high = v;
        dual_configure(d);
        board_counter_set(&d->count, now, v & dual_mask(d));
        break;
    case 0x18: /* BGLOAD: the limit from the next reload on */
        d->load = v;
        dual_configure(d);
        break;
    case 0x08: {
        uint32_t value = board_counter_value(&d->count, now);
        if ((d->ctrl ^ v) & 2u & ~v) /* 32 -> 16 bit: the upper half stays */
            d->value_high = value;
        d->ctrl = v & 0xEFu;
        dual_configure(d);
        board_counter_set(&d->count, now, value & dual_mask(d));
        d->count.running = d->ctrl & 0x80u;
        break;
    }
    case 0x0C: d->intstatus = 0; break;
    default: return;
    }
    dual_update_irq(b);
    board_reschedule(b);
}

/* Apply expiries up to `now`; the next one, UINT64_MAX if none. */
uint64_t board_timers_update(rtcosim_board *b, uint64_t now)
{
    uint64_t next = UINT64_MAX;
    for (unsigned i = 0; i < b->desc->timer_count; i++) {
        board_timer *t = &b->timer[i];
        if (board_counter_advance(&t->count, now) && (t->ctrl & 8u)) {
            t->intstatus = 1;
            board_set_irq(b, b->desc->timer[i].irq, true);
        }
        uint64_t due = board_counter_next(&t->count);
        next = due < next ? due : next;
    }
    if (b->desc->dualtimer_base) {
        for (unsigned i = 0; i < 2; i++) {
            board_dualtimer *d = &b->dual[i];
            if (board_counter_advance(&d->count, now))
                d->intstatus = 1;
            uint64_t due = board_counter_next(&d->count);
            next = due < next ? due : next;
        }
        dual_update_irq(b);
    }
    return next;
}

/* ---- FPGA I/O (AN385/AN386; QEMU hw/misc/mps2-fpgaio.c): LED0 (two
 * LEDs), BUTTON (reads 0), CLK1HZ/CLK100HZ (counting since reset, writable),
 * COUNTER incremented whenever PSCNTR, counting down at 25 MHz, reloads from
 * PRESCALE one count after zero; MISC reads as written ---- */
static void fpgaio_sync(rtcosim_board *b, uint64_t now)
{
    uint64_t ticks = now - b->counter_sync;
    b->counter_sync = now;
    if (ticks < b->pscntr) {
        b->pscntr -= (uint32_t)ticks;
    } else if (b->prescale == 0) {
        b->counter += (uint32_t)(ticks - b->pscntr);
        b->pscntr = 0;
    } else {
        /* k counts past zero: reloads (and increments) at k = 1, 1 + (p+1), ... */
        uint64_t k = ticks - b->pscntr, p1 = (uint64_t)b->prescale + 1;
        b->counter += (uint32_t)((k + b->prescale) / p1);
        b->pscntr = k ? b->prescale - (uint32_t)((k - 1) % p1) : 0;
    }
}

static uint32_t clock_count(uint64_t now, uint64_t epoch, uint32_t at_epoch, uint64_t hz,
                            uint64_t rate)
{
    return at_epoch + (uint32_t)((now - epoch) * rate / hz);
}

static uint32_t fpgaio_read(rtcosim_board *b, uint32_t off)
{
    uint64_t now = board_cycle_now(b), hz = b->desc->clock_hz;
    switch (off) {
    case 0x00: return b->led;
    case 0x08: return 0;
    case 0x10: return clock_count(now, b->clk1hz_epoch, b->clk1hz_at_epoch, hz, 1);
    case 0x14: return clock_count(now, b->clk100hz_epoch, b->clk100hz_at_epoch, hz, 100);
    case 0x18: fpgaio_sync(b, now); return b->counter;
    case 0x1C: return b->prescale;
    case 0x20: fpgaio_sync(b, now); return b->pscntr;
    case 0x4C: return b->misc;
    }
    return 0;
}

static void fpgaio_write(rtcosim_board *b, uint32_t off, uint32_t v)
{
    uint64_t now = board_cycle_now(b);
    switch (off) {
    case 0x00: b->led = v & 3u; break;
    case 0x10: b->clk1hz_at_epoch = v, b->clk1hz_epoch = now; break;
    case 0x14: b->clk100hz_at_epoch = v, b->clk100hz_epoch = now; break;
    case 0x18: fpgaio_sync(b, now), b->counter = v; break;
    case 0x1C: fpgaio_sync(b, now), b->prescale = v; break;
    case 0x20: fpgaio_sync(b, now), b->pscntr = v; break;
    case 0x4C: b->misc = v; break;
    }
}

void board_apb_reset(rtcosim_board *b)
{
    for (unsigned i = 0; i < b->desc->timer_count; i++)
        b->timer[i].count.divisor = 1;
    for (unsigned i = 0; i < 2; i++) {
        board_dualtimer *d = &b->dual[i];
        d->ctrl = 0x20u;
        d->value_high = 0xFFFFFFFFu;
        dual_configure(d);
        d->count.value_at_epoch = 0xFFFFu;
    }
}

/* ---- dispatch ---- */
static void warn_raz_wi(rtcosim_board *b, uint32_t a)
{
    if (!b->warned_raz_wi)
        rtcosim_log(RTCOSIM_LOG_WARNING, "board", "board '%s': an access to 0x%08" PRIx32 " in %s reaches"
                    " a read-as-zero, write-ignored address (as on QEMU's mps2 machine): reads as zero,"
                    " writes ignored (warned once)",
                    b->desc->name, a, board_where(b));
    b->warned_raz_wi = true;
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
    if (b->desc->dualtimer_base && page == b->desc->dualtimer_base)
        return dual_read(b, off);
    if (b->desc->fpgaio_base && page == b->desc->fpgaio_base)
        return fpgaio_read(b, off);
    warn_raz_wi(b, a);
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
    if (b->desc->dualtimer_base && page == b->desc->dualtimer_base) {
        dual_write(b, off, (uint32_t)value);
        return;
    }
    if (b->desc->fpgaio_base && page == b->desc->fpgaio_base) {
        fpgaio_write(b, off, (uint32_t)value);
        return;
    }
    warn_raz_wi(b, a);
}

uint64_t board_raz_wi_read(uc_engine *uc, uint64_t offset, unsigned size, void *user)
{
    (void)uc, (void)size;
    board_raz_wi_ctx *c = user;
    warn_raz_wi(c->board, c->base + (uint32_t)offset);
    return 0;
}

void board_raz_wi_write(uc_engine *uc, uint64_t offset, unsigned size, uint64_t value, void *user)
{
    (void)uc, (void)size, (void)value;
    board_raz_wi_ctx *c = user;
    warn_raz_wi(c->board, c->base + (uint32_t)offset);
}
