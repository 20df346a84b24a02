/* `rtcosim events --board-ecu`: firmware for a real board (mps2-an386) as an
 * LP of the event kernel beside the vehicle (events_board.c). */
#ifndef RTCOSIM_CLI_EVENTS_BOARD_H
#define RTCOSIM_CLI_EVENTS_BOARD_H

#include "rtcosim/vecu_board.h"

#define EVENTS_BOARD_MAX 8

typedef struct events_board {
    char text[EVENTS_BOARD_MAX][1024]; /* each option's text, cut in place */
    const char *name[EVENTS_BOARD_MAX], *board[EVENTS_BOARD_MAX], *elf[EVENTS_BOARD_MAX];
    const char *uart[EVENTS_BOARD_MAX];
    rtcosim_time_ns period[EVENTS_BOARD_MAX];
    rtcosim_board_lp *lps[EVENTS_BOARD_MAX];
    int count;
} events_board;

rtcosim_status events_board_parse(events_board *b, const char *spec, rtcosim_error *err);
rtcosim_status events_board_add(events_board *b, rtcosim_events *sim, rtcosim_error *err);
/* After the run: one summary line per board, and its uart= file. */
rtcosim_status events_board_report(const events_board *b, rtcosim_error *err);
void events_board_free(events_board *b);

#endif
