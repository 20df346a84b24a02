/* `rtcosim events --lsbus-node`: LS-BUS node FMUs on the vehicle's CAN bus
 * (events_lsbus.c). */
#ifndef RTCOSIM_CLI_EVENTS_LSBUS_H
#define RTCOSIM_CLI_EVENTS_LSBUS_H

#include "rtcosim/lsbus.h"

#define EVENTS_LSBUS_MAX 16
#define EVENTS_LSBUS_STARTS 32

typedef struct events_lsbus_spec {
    char text[2048]; /* the option's text, cut into the fields below */
    char *names[EVENTS_LSBUS_STARTS], *texts[EVENTS_LSBUS_STARTS];
    uint32_t tx_ids[16];
    uint8_t tx_dlcs[16];
    uint8_t tx_formats[16];   /* rtcosim_can_format */
    uint16_t tx_lengths[16];  /* data bytes (classic: the DLC) */
    rtcosim_lsbus_event_node_config config;
} events_lsbus_spec;

typedef struct events_lsbus {
    events_lsbus_spec specs[EVENTS_LSBUS_MAX];
    rtcosim_lsbus_event_node *nodes[EVENTS_LSBUS_MAX];
    int count;
    rtcosim_time_ns start, stop;
} events_lsbus;

rtcosim_status events_lsbus_parse(events_lsbus *l, const char *spec, rtcosim_error *err);
/* The vehicle's attach hook (context: the events_lsbus). */
rtcosim_status events_lsbus_attach(rtcosim_events *sim, rtcosim_can_bus *bus, void *context,
                                   rtcosim_error *err);
void events_lsbus_print(const events_lsbus *l);
void events_lsbus_free(events_lsbus *l);

#endif
