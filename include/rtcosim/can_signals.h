/* A CAN bus that carries a DBC database's signals between components with
 * plain signal ports (FMUs exported with physical inputs and outputs, as
 * most controller and plant models are): the signals of each message whose
 * transmitter (BO_ ... NODE) is one of the bus's senders are packed into
 * its frame by the DBC's layout, factor and offset every GenMsgCycleTime,
 * the frame arbitrates and takes its time on the bus (src/can's bus LP),
 * and its receivers see the decoded values from the frame's end on:
 * quantization, cycle times, bus latency and arbitration delays enter the
 * control loop as on the vehicle. */
#ifndef RTCOSIM_CAN_SIGNALS_H
#define RTCOSIM_CAN_SIGNALS_H

#include "rtcosim/can.h"
#include "rtcosim/component.h"
#include "rtcosim/dbc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rtcosim_can_signal_bus_config {
    const char *name;            /* the bus: "can0" */
    uint32_t bitrate;            /* 0: 500 kbit/s */
    /* DBC nodes whose messages the bus sends (their transmitters); a
     * message without a GenMsgCycleTime is sent every default_cycle, or
     * with default_cycle 0 on change */
    const char *const *senders;
    size_t sender_count;
    rtcosim_time_ns default_cycle;
    bool log_frames;             /* keep every frame (rtcosim_can_bus_write_log) */
    size_t log_capacity;         /* 0: the log grows; else allocated once (real time) */
    /* A recorded log (candump -l, ASC, BLF, TRC or MDF 4) played onto the bus around
     * the senders (rtcosim_can_replay_add: its frames of ids the senders
     * send are left out), so its other messages reach the rx outputs; NULL:
     * none. replay_bus: which bus of the log (NULL: its only one). */
    const char *replay_path, *replay_bus;
} rtcosim_can_signal_bus_config;

/* A component named by config->name with, per signal S of every message M
 * the senders transmit, a Float64 input "tx.M.S" (the value to send; start:
 * the physical value of raw 0), and per signal of every message of the
 * DBC, a Float64 discrete output "rx.M.S" (the value the last frame of M
 * on the bus carried, from that frame's end; before the first frame the
 * physical value of raw 0). Each message is sent at 0, then every cycle
 * time, with the inputs' values of the last communication point at or
 * before that time (a message due at a step's end goes in the next step,
 * with the values set for it); a message without one (an event-triggered
 * message) at 0 and at each communication point where one of its inputs
 * differs from what it last sent; a
 * multiplexed signal is sent when the multiplexor's value selects it and
 * received when the frame carries it. CAN FD messages (the database's fd
 * flag, or over 8 bytes) go as CAN FD frames, with BRS (2 Mbit/s) as the
 * database says (over 8 bytes without a format: with BRS). Sender names not among the DBC's
 * transmitters are an error naming them. The call
 * takes dbc (freed with the component, or at once on failure); dbc_name
 * names the file in errors. */
rtcosim_status rtcosim_can_signal_bus_create(const rtcosim_can_signal_bus_config *config,
                                             rtcosim_dbc *dbc, const char *dbc_name,
                                             rtcosim_component **out, rtcosim_error *err);
/* The bus inside such a component (statistics, log), else NULL. */
rtcosim_can_bus *rtcosim_can_signal_bus_can(rtcosim_component *c);
/* The component's DBC, else NULL. */
const rtcosim_dbc *rtcosim_can_signal_bus_dbc(rtcosim_component *c);
/* Its replay (config.replay_path), else NULL. */
struct rtcosim_can_replay;
const struct rtcosim_can_replay *rtcosim_can_signal_bus_replay(rtcosim_component *c);
/* Frames the component's receiver got whose id the DBC does not define. */
uint64_t rtcosim_can_signal_bus_unknown(rtcosim_component *c);

#ifdef __cplusplus
}
#endif
#endif
