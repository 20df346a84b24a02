/* `rtcosim events --board-ecu NAME=BOARD:ELF[,uart=FILE][,period=T]`: the
 * option's parsing, the board LPs (vecu/board_lp.c) added to the vehicle's
 * simulation, and their summary lines and UART0 files after the run. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "events_board.h"

rtcosim_status events_board_parse(events_board *b, const char *spec, rtcosim_error *err)
{
    if (b->count == EVENTS_BOARD_MAX)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: more than %d --board-ecu options",
                                 EVENTS_BOARD_MAX);
    int k = b->count;
    char *t = b->text[k];
    if (strlen(spec) >= sizeof b->text[k])
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: --board-ecu: '%s' is too long",
                                 spec);
    strcpy(t, spec);
    char *eq = strchr(t, '='), *colon = eq ? strchr(eq + 1, ':') : NULL;
    if (!eq || eq == t || !colon || colon == eq + 1 || !colon[1] || colon[1] == ',')
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: --board-ecu needs"
                                 " NAME=BOARD:ELF[,uart=FILE][,period=T], got '%s'", spec);
    *eq = *colon = '\0';
    b->name[k] = t;
    b->board[k] = eq + 1;
    b->elf[k] = colon + 1;
    b->uart[k] = NULL;
    b->period[k] = 0;
    for (int j = 0; j < k; j++)
        if (strcmp(b->name[j], t) == 0)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: --board-ecu '%s' given twice",
                                     t);
    char *key = strchr(colon + 1, ',');
    while (key) {
        *key++ = '\0';
        char *next = strchr(key, ',');
        if (next)
            *next = '\0';
        if (strncmp(key, "uart=", 5) == 0 && key[5]) {
            b->uart[k] = key + 5;
        } else if (strncmp(key, "period=", 7) == 0) {
            if (rtcosim_time_parse_seconds(key + 7, &b->period[k], err) != RTCOSIM_OK ||
                b->period[k] <= 0)
                return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: --board-ecu '%s': period"
                                         " needs a positive number of seconds, got '%s'",
                                         b->name[k], key + 7);
        } else {
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: --board-ecu '%s': unknown"
                                     " key '%s' (uart=FILE, period=T)", b->name[k], key);
        }
        if (next)
            *next = ',';
        key = next;
    }
    b->count++;
    return RTCOSIM_OK;
}

rtcosim_status events_board_add(events_board *b, rtcosim_events *sim, rtcosim_error *err)
{
    for (int k = 0; k < b->count; k++) {
        rtcosim_board_lp_config c = {.name = b->name[k], .board = b->board[k],
                                     .firmware = b->elf[k], .period_ns = b->period[k]};
        rtcosim_status st = rtcosim_board_lp_create(sim, &c, &b->lps[k], err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

rtcosim_status events_board_report(const events_board *b, rtcosim_error *err)
{
    for (int k = 0; k < b->count; k++) {
        rtcosim_board_lp_stats s;
        rtcosim_board_lp_stats_get(b->lps[k], &s);
        printf("board %-12s %s, %" PRIu64 " samples, %" PRIu64 " instructions, uart0 %zu bytes,"
               " leds 0x%02" PRIx32 " (changed %" PRIu64 "x), ", b->name[k], b->board[k],
               s.samples, s.instructions, s.uart0_bytes, s.leds, s.led_changes);
        if (s.exited)
            printf("exited with %d at %.6f s", s.exit_code, (double)s.time_ns / 1e9);
        else
            printf("running at %.6f s", (double)s.time_ns / 1e9);
        printf(", checksum %016" PRIx64 "\n", s.checksum);
        if (!b->uart[k])
            continue;
        size_t n;
        const unsigned char *bytes = rtcosim_board_lp_uart0(b->lps[k], &n);
        FILE *f = fopen(b->uart[k], "wb");
        if (!f)
            return rtcosim_error_set(err, RTCOSIM_EIO, "events: --board-ecu '%s': cannot open %s:"
                                     " %s", b->name[k], b->uart[k], strerror(errno));
        bool ok = fwrite(bytes, 1, n, f) == n;
        if (fclose(f) != 0 || !ok)
            return rtcosim_error_set(err, RTCOSIM_EIO, "events: --board-ecu '%s': writing %s"
                                     " failed", b->name[k], b->uart[k]);
    }
    return RTCOSIM_OK;
}

void events_board_free(events_board *b)
{
    for (int k = 0; k < b->count; k++) {
        rtcosim_board_lp_free(b->lps[k]);
        b->lps[k] = NULL;
    }
}
