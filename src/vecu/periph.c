/* The peripheral block of vecu_periph.h as MMIO callbacks (firmware side)
 * and the host side that the ECU binding and tests use. Its registers live
 * in the data block, so they are saved and restored with RAM. */
#include <string.h>

#include "vecu_internal.h"

static uint32_t can_data_word(const uint8_t *d, unsigned first)
{
    return (uint32_t)d[first] | (uint32_t)d[first + 1] << 8 | (uint32_t)d[first + 2] << 16 |
           (uint32_t)d[first + 3] << 24;
}

uint64_t vecu_periph_read(uc_engine *uc, uint64_t offset, unsigned size, void *user)
{
    rtcosim_vecu *v = user;
    if (size != 4 || offset % 4) { /* the registers are words: a narrower access is a bug */
        vecu_fault_width(v, uc, offset, size, false);
        return 0;
    }
    vecu_periph *p = vecu_periph_of(v);
    uint32_t o = (uint32_t)offset & ~3u;
    if (o >= VECU_ADC_DATA(0) && o < VECU_ADC_DATA(VECU_ADC_CHANNELS))
        return p->adc[(o - VECU_ADC_DATA(0)) / 4];
    if (o >= VECU_PWM_DUTY(0) && o < VECU_PWM_DUTY(VECU_PWM_CHANNELS))
        return p->pwm[(o - VECU_PWM_DUTY(0)) / 4];
    if (o >= VECU_CAN_TX_ID(0) && o < VECU_CAN_TX_ID(VECU_CAN_TX_MAILBOXES)) {
        const vecu_can_slot *m = &p->tx[(o - VECU_CAN_TX_ID(0)) / 16];
        switch ((o - VECU_CAN_TX_ID(0)) % 16) {
        case 0: return m->id;
        case 4: return m->dlc;
        case 8: return m->data[0];
        default: return m->data[1];
        }
    }
    const vecu_can_slot *head = p->rx_count ? &p->rx[p->rx_head] : NULL;
    switch (o) {
    case VECU_SYS_ID: return VECU_ID_VALUE;
    case VECU_SYS_CYCCNT_LO: {
        uint64_t c = vecu_cycle_now(v);
        p->cyccnt_hi_latch = (uint32_t)(c >> 32);
        return (uint32_t)c;
    }
    case VECU_SYS_CYCCNT_HI: return p->cyccnt_hi_latch;
    case VECU_SYS_CLOCK_HZ: return (uint32_t)v->clock_hz;
    case VECU_SYS_IRQ: return p->irq;
    case VECU_DOUT: return p->dout;
    case VECU_CAN_STATUS: return p->can_status | (p->rx_count & VECU_CAN_STATUS_RX_COUNT_MASK);
    case VECU_CAN_RX_ID: return head ? head->id : 0;
    case VECU_CAN_RX_DLC: return head ? head->dlc : 0;
    case VECU_CAN_RX_DATA0: return head ? head->data[0] : 0;
    case VECU_CAN_RX_DATA1: return head ? head->data[1] : 0;
    case VECU_CAN_TX_PENDING: return p->tx_pending;
    default: return 0; /* reserved: reads as zero */
    }
}

void vecu_periph_write(uc_engine *uc, uint64_t offset, unsigned size, uint64_t value, void *user)
{
    rtcosim_vecu *v = user;
    if (size != 4 || offset % 4) {
        vecu_fault_width(v, uc, offset, size, true);
        return;
    }
    vecu_periph *p = vecu_periph_of(v);
    uint32_t o = (uint32_t)offset & ~3u, x = (uint32_t)value;
    if (o >= VECU_PWM_DUTY(0) && o < VECU_PWM_DUTY(VECU_PWM_CHANNELS)) {
        p->pwm[(o - VECU_PWM_DUTY(0)) / 4] = x > VECU_PWM_FULL ? VECU_PWM_FULL : x;
        return;
    }
    if (o >= VECU_CAN_TX_ID(0) && o < VECU_CAN_TX_ID(VECU_CAN_TX_MAILBOXES)) {
        unsigned m = (o - VECU_CAN_TX_ID(0)) / 16;
        if (p->tx_pending & (1u << m))
            return; /* a pending mailbox is locked, as on hardware */
        vecu_can_slot *s = &p->tx[m];
        switch ((o - VECU_CAN_TX_ID(0)) % 16) {
        case 0: s->id = x; break;
        case 4: s->dlc = x > 8 ? 8 : x; break;
        case 8: s->data[0] = x; break;
        default: s->data[1] = x; break;
        }
        return;
    }
    switch (o) {
    case VECU_DOUT: p->dout = x; break;
    case VECU_CAN_CLEAR: p->can_status &= ~x; break;
    case VECU_CAN_RX_POP:
        if (p->rx_count) {
            p->rx_head = (p->rx_head + 1) % VECU_CAN_RX_FIFO_DEPTH;
            p->rx_count--;
        }
        break;
    case VECU_CAN_TX_REQ:
        for (unsigned m = 0; m < VECU_CAN_TX_MAILBOXES; m++) {
            if (!(x & (1u << m)))
                continue;
            if (p->tx_pending & (1u << m))
                p->can_status |= VECU_CAN_STATUS_TX_BUSY;
            else
                p->tx_pending |= 1u << m;
        }
        break;
    default: break; /* read-only or reserved: writes ignored */
    }
}

/* ---- host side ---- */

void rtcosim_vecu_adc_set(rtcosim_vecu *v, unsigned channel, uint32_t counts)
{
    if (channel < VECU_ADC_CHANNELS)
        vecu_periph_of(v)->adc[channel] = counts;
}

uint32_t rtcosim_vecu_pwm(const rtcosim_vecu *v, unsigned channel)
{
    return channel < VECU_PWM_CHANNELS ? ((const vecu_periph *)v->data)->pwm[channel] : 0;
}

uint32_t rtcosim_vecu_dout(const rtcosim_vecu *v) { return ((const vecu_periph *)v->data)->dout; }

bool rtcosim_vecu_can_receive(rtcosim_vecu *v, const rtcosim_can_frame *f)
{
    vecu_periph *p = vecu_periph_of(v);
    if (p->rx_count == VECU_CAN_RX_FIFO_DEPTH) {
        p->can_status |= VECU_CAN_STATUS_RX_OVERRUN;
        return false;
    }
    vecu_can_slot *s = &p->rx[(p->rx_head + p->rx_count) % VECU_CAN_RX_FIFO_DEPTH];
    uint8_t d[8] = {0};
    unsigned n = f->dlc > 8 ? 8 : f->dlc;
    memcpy(d, f->data, n);
    s->id = f->id | (f->extended ? VECU_CAN_ID_EXTENDED : 0);
    s->dlc = n;
    s->data[0] = can_data_word(d, 0);
    s->data[1] = can_data_word(d, 4);
    p->rx_count++;
    return true;
}

bool rtcosim_vecu_can_take(rtcosim_vecu *v, rtcosim_can_frame *f)
{
    vecu_periph *p = vecu_periph_of(v);
    for (unsigned m = 0; m < VECU_CAN_TX_MAILBOXES; m++) {
        if (!(p->tx_pending & (1u << m)))
            continue;
        const vecu_can_slot *s = &p->tx[m];
        memset(f, 0, sizeof *f);
        f->extended = (s->id & VECU_CAN_ID_EXTENDED) != 0;
        f->id = s->id & (f->extended ? 0x1FFFFFFFu : 0x7FFu);
        f->dlc = (uint8_t)s->dlc;
        for (unsigned i = 0; i < 8; i++)
            f->data[i] = (uint8_t)(s->data[i / 4] >> (8 * (i % 4)));
        p->tx_pending &= ~(1u << m);
        return true;
    }
    return false;
}
