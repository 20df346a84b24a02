/* The down-counter every board timer is made of (SysTick, ARMv7-M B3.3; the
 * CMSDK APB timer and dual timer, DDI 0479): it counts one per `divisor`
 * processor cycles from its value at `epoch`; reaching zero is an expiry,
 * and one count later it reloads (wraps) to `reload`. Time is computed from
 * the cycle count on demand, never ticked. */
#include "board_internal.h"

static uint64_t period(const board_counter *c) { return ((uint64_t)c->reload + 1) * c->divisor; }

uint32_t board_counter_value(const board_counter *c, uint64_t now)
{
    if (!c->running)
        return c->value_at_epoch;
    uint64_t ticks = (now - c->epoch) / c->divisor;
    if (ticks <= c->value_at_epoch)
        return c->value_at_epoch - (uint32_t)ticks;
    if (c->oneshot)
        return 0;
    uint64_t since = (ticks - c->value_at_epoch - 1) % ((uint64_t)c->reload + 1);
    return c->reload - (uint32_t)since;
}

uint64_t board_counter_next(const board_counter *c)
{
    if (!c->running || (c->oneshot && c->value_at_epoch == 0))
        return UINT64_MAX;
    if (c->value_at_epoch)
        return c->epoch + (uint64_t)c->value_at_epoch * c->divisor;
    if (c->reload == 0)
        return UINT64_MAX;
    return c->epoch + period(c);
}

unsigned board_counter_advance(board_counter *c, uint64_t now)
{
    unsigned expiries = 0;
    for (uint64_t due; (due = board_counter_next(c)) <= now; expiries++) {
        c->epoch = due;
        c->value_at_epoch = 0; /* a one-shot counter halts here */
    }
    return expiries;
}

void board_counter_set(board_counter *c, uint64_t now, uint32_t value)
{
    c->value_at_epoch = value;
    c->epoch = now;
}

void board_counter_run(board_counter *c, uint64_t now, bool running)
{
    if (running == c->running)
        return;
    board_counter_set(c, now, board_counter_value(c, now));
    c->running = running;
}
