/* Building a CAN database (rtcosim_dbc) from another format than the DBC
 * text (dbc.c's own reader uses the same calls): ARXML (arxml.c). */
#ifndef RTCOSIM_DBC_INTERNAL_H
#define RTCOSIM_DBC_INTERNAL_H

#include "rtcosim/dbc.h"

rtcosim_dbc *dbc_new(void); /* NULL: out of memory */
/* A message (name and transmitter copied): 0, -1 out of memory, -2 its id
 * is taken, -3 its name is; *index its index. */
int dbc_add_message(rtcosim_dbc *d, uint32_t id, bool extended, const char *name, uint8_t dlc,
                    const char *transmitter, int line, size_t *index);
/* A signal of message `message` (name copied; its unit and value texts
 * taken over; decimals computed): 0, or -1 out of memory (nothing taken). */
int dbc_add_signal(rtcosim_dbc *d, size_t message, const rtcosim_dbc_signal *signal);
void dbc_set_cycle_time(rtcosim_dbc *d, size_t message, rtcosim_time_ns cycle);
/* After the last message: the signals' pointers and multiplexors set,
 * signals that share bits warned of (file names the source). */
void dbc_finish(rtcosim_dbc *d, const char *file);

#endif
