/* A board (vecu_board.h) as a logical process of the event kernel, so that
 * firmware for a real board runs beside the vehicle's ECUs in `rtcosim
 * events --board-ecu`: each event runs the board to its time and samples the
 * UART0 bytes and FPGA LEDs. No state saving (a whole machine per event
 * would cost more than the events): the speculative scheduler runs it
 * conservatively. */
#include <stdlib.h>
#include <string.h>

#include "board_internal.h"

struct rtcosim_board_lp {
    rtcosim_board *machine;
    rtcosim_time_ns period, start;
    unsigned char *uart0;
    size_t uart0_size, uart0_cap;
    bool out_of_memory;
    rtcosim_board_lp_stats stats;
    uint64_t trace_hash; /* FNV-1a of the (time, LEDs) changes */
};

static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * UINT64_C(0x100000001B3);
    return h;
}

/* On the emulating thread, inside rtcosim_board_run_until: the buffer grows
 * by doubling, so appends are amortized constant. */
static void on_output(void *user, unsigned uart, unsigned char byte)
{
    rtcosim_board_lp *l = user;
    if (uart != 0 || l->out_of_memory)
        return;
    if (l->uart0_size == l->uart0_cap) {
        size_t cap = l->uart0_cap ? 2 * l->uart0_cap : 4096;
        unsigned char *p = realloc(l->uart0, cap);
        if (!p) {
            l->out_of_memory = true;
            return;
        }
        l->uart0 = p;
        l->uart0_cap = cap;
    }
    l->uart0[l->uart0_size++] = byte;
}

static rtcosim_status lp_init(rtcosim_lp *lp, void *state, rtcosim_error *err)
{
    rtcosim_board_lp *l = state;
    l->start = rtcosim_lp_now(lp);
    return rtcosim_lp_send(lp, rtcosim_lp_self(lp), l->period, 0, 0, NULL, 0, err);
}

static rtcosim_status lp_event(rtcosim_lp *lp, void *state, const rtcosim_event *ev,
                               rtcosim_error *err)
{
    (void)ev;
    rtcosim_board_lp *l = state;
    rtcosim_board_result r;
    rtcosim_time_ns now = rtcosim_lp_now(lp);
    rtcosim_status st = rtcosim_board_run_until(l->machine, now - l->start, &r, err);
    if (st != RTCOSIM_OK)
        return st;
    if (l->out_of_memory)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "board '%s': out of memory for UART0",
                                 rtcosim_lp_name(lp));
    rtcosim_board_lp_stats *s = &l->stats;
    s->samples++;
    s->instructions = r.instructions;
    s->time_ns = r.time_ns;
    s->exited = r.exited;
    s->exit_code = r.exit_code;
    if (l->machine->led != s->leds) {
        s->leds = l->machine->led;
        s->led_changes++;
        int64_t t = now;
        l->trace_hash = fnv1a(l->trace_hash, &t, sizeof t);
        l->trace_hash = fnv1a(l->trace_hash, &s->leds, sizeof s->leds);
    }
    if (r.exited)
        return RTCOSIM_OK; /* a run that ended stays ended: no more samples */
    return rtcosim_lp_send(lp, rtcosim_lp_self(lp), l->period, 0, 0, NULL, 0, err);
}

static const rtcosim_lp_model board_lp_model = {
    .kind = "board", .init = lp_init, .event = lp_event,
    /* no state_size, no save/restore: never speculated on */
};

rtcosim_status rtcosim_board_lp_create(rtcosim_events *sim, const rtcosim_board_lp_config *config,
                                       rtcosim_board_lp **out, rtcosim_error *err)
{
    *out = NULL;
    if (config->period_ns < 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "board '%s': negative sampling period",
                                 config->name ? config->name : "?");
    rtcosim_board_lp *l = calloc(1, sizeof *l);
    if (!l)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "board: out of memory");
    l->period = config->period_ns ? config->period_ns : RTCOSIM_NS_PER_MS;
    l->trace_hash = UINT64_C(0xCBF29CE484222325);
    rtcosim_board_config bc = {.board = config->board, .firmware = config->firmware,
                               .output = on_output, .user = l};
    rtcosim_lp_id id;
    rtcosim_status st = rtcosim_board_create(&bc, &l->machine, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_events_add_lp(sim, config->name ? config->name : "board", &board_lp_model, l,
                                   RTCOSIM_LP_NO_GROUP, &id, err);
    if (st != RTCOSIM_OK) {
        rtcosim_board_lp_free(l);
        return st;
    }
    *out = l;
    return RTCOSIM_OK;
}

const unsigned char *rtcosim_board_lp_uart0(const rtcosim_board_lp *l, size_t *size)
{
    *size = l->uart0_size;
    return l->uart0;
}

void rtcosim_board_lp_stats_get(const rtcosim_board_lp *l, rtcosim_board_lp_stats *out)
{
    *out = l->stats;
    out->uart0_bytes = l->uart0_size;
    uint64_t h = fnv1a(l->trace_hash, l->uart0, l->uart0_size);
    h = fnv1a(h, &l->stats.instructions, sizeof l->stats.instructions);
    int64_t code = l->stats.exited ? l->stats.exit_code : -1;
    out->checksum = fnv1a(h, &code, sizeof code);
}

void rtcosim_board_lp_free(rtcosim_board_lp *l)
{
    if (!l)
        return;
    rtcosim_board_free(l->machine);
    free(l->uart0);
    free(l);
}
