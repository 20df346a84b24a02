/* CAN (ISO 11898-1: classic CAN 2.0A/B, CAN FD, CAN XL) as a logical process
 * of the event kernel: frame durations from the bit length including bit stuffing, bitwise
 * arbitration by identifier, per-node transmit queues, acceptance filtering
 * by each node's receive database, bus load statistics and a candump-like
 * log. The shortest frame any node may send is the lookahead from the bus to
 * the nodes, which is what lets ECUs run ahead of each other. */
#ifndef RTCOSIM_CAN_H
#define RTCOSIM_CAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/events.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RTCOSIM_CAN_DATA_MAX 8 /* classic CAN */
#define RTCOSIM_CAN_STD_ID_MAX 0x7FFu
#define RTCOSIM_CAN_EXT_ID_MAX 0x1FFFFFFFu

typedef struct rtcosim_can_frame {
    uint32_t id;     /* 11-bit (standard) or 29-bit (extended) identifier */
    bool extended;
    uint8_t dlc;     /* 0..8 data bytes */
    uint8_t data[RTCOSIM_CAN_DATA_MAX];
} rtcosim_can_frame;

typedef enum rtcosim_can_stuffing {
    /* Stuff bits of the frame's actual bits (SOF through the CRC field,
     * including the CRC-15 of the frame), as a real transceiver sends them. */
    RTCOSIM_CAN_STUFFING_ACTUAL = 0,
    /* The worst case floor((g - 1) / 4) for g stuffable bits (Davis, Burns,
     * Bril, Lukkien, Real-Time Systems 35(3), 2007), as response-time
     * analysis assumes. */
    RTCOSIM_CAN_STUFFING_WORST_CASE
} rtcosim_can_stuffing;

/* Check an identifier and DLC (id range for the format, dlc <= 8). */
rtcosim_status rtcosim_can_frame_check(const rtcosim_can_frame *frame, rtcosim_error *err);
/* CRC-15 (ISO 11898-1 polynomial 0x4599) over SOF through the data field. */
uint16_t rtcosim_can_crc15(const rtcosim_can_frame *frame);
/* Stuff bits the frame contains when sent (SOF through CRC sequence). */
uint32_t rtcosim_can_stuff_bits(const rtcosim_can_frame *frame);
/* Bits on the wire from SOF through the 3-bit intermission: 47 + 8n
 * (standard) or 67 + 8n (extended) plus stuff bits of the chosen kind. */
uint32_t rtcosim_can_frame_bits(const rtcosim_can_frame *frame, rtcosim_can_stuffing stuffing);
/* The arbitration field as the bus sees it, lower wins (dominant 0 first):
 * base ID, RTR (standard, dominant) vs SRR (extended, recessive), IDE, then
 * the extension, so a standard frame beats an extended one of the same base
 * ID. Bit 19 is the RTR/SRR position of a standard frame. */
uint64_t rtcosim_can_arbitration_key(const rtcosim_can_frame *frame);
/* Nanoseconds per bit; the bit rate must divide 1e9 (125k, 250k, 500k, 1M...). */
rtcosim_status rtcosim_can_bit_time(uint32_t bitrate, rtcosim_time_ns *bit_ns,
                                    rtcosim_error *err);

/* A CAN FD frame (ISO 11898-1:2015, FD base and extended formats). */
typedef struct rtcosim_can_fd_frame {
    uint32_t id;
    bool extended;
    bool brs;        /* bit rate switch: the data phase at the data bit rate */
    bool esi;        /* error state indicator (recessive: error passive) */
    uint8_t length;  /* 0-8, 12, 16, 20, 24, 32, 48 or 64 data bytes */
    uint8_t data[64];
} rtcosim_can_fd_frame;

/* The DLC of a CAN FD data length; -1 for a length CAN FD cannot carry. */
int rtcosim_can_fd_dlc(unsigned length);
/* The shortest CAN FD data length that holds `bytes` (0 past 64). */
unsigned rtcosim_can_fd_length(unsigned bytes);
/* Bits a CAN FD frame spends at the nominal bit rate (SOF through BRS, and
 * CRC delimiter through intermission, each switch counted at the nominal
 * rate) and at the data bit rate (ESI through the CRC field), dynamic stuff
 * bits (SOF through data) and the CRC field's fixed stuff bits included.
 * Without BRS every bit is nominal (*data_bits = 0). Errors: a length that
 * is not a CAN FD length, an identifier out of range. */
rtcosim_status rtcosim_can_fd_frame_bits(const rtcosim_can_fd_frame *frame, uint32_t *nominal_bits,
                                         uint32_t *data_bits, rtcosim_error *err);

/* CAN XL (ISO 11898-1:2024): an 11-bit priority identifier, 1-2048 data
 * bytes. Bits the frame spends at the nominal (arbitration) bit rate and at
 * the XL data bit rate, stuff bits included (dynamic in the arbitration
 * phase, fixed in the data phase). Errors: a priority id above 0x7FF, a
 * length of 0 or above 2048. */
#define RTCOSIM_CAN_XL_DATA_MAX 2048
rtcosim_status rtcosim_can_xl_frame_bits(uint32_t priority_id, uint32_t length,
                                         uint32_t *nominal_bits, uint32_t *data_bits,
                                         rtcosim_error *err);

/* ---- the bus LP ---- */

typedef struct rtcosim_can_bus rtcosim_can_bus;

typedef struct rtcosim_can_bus_config {
    const char *name;          /* "can0" */
    uint32_t bitrate;          /* 0 means 500 kbit/s */
    rtcosim_can_stuffing stuffing;
    uint32_t tx_queue_capacity; /* frames per node; 0 means 64 */
    bool log_frames;           /* keep every frame for rtcosim_can_bus_write_log */
    /* 0: the log grows by doubling (amortized); else it holds at most this
     * many frames, allocated at create, and later frames are counted
     * (stats.log_dropped), not logged: nothing allocated per frame, for a
     * bus stepped on a real-time thread. */
    size_t log_capacity;
    /* Log for the digest alone: every frame counts in rtcosim_can_bus_log_digest
     * (implies log_frames), but an entry is dropped once the run commits it
     * (as a log stream would take it), so memory stays bounded however long
     * the run; rtcosim_can_bus_log then holds only the uncommitted few. */
    bool log_digest_only;
    /* Error injection: every error_every-th frame started on the bus (0:
     * never) ends in an error of kind error_code (RTCOSIM_CAN_ERROR_*; 0
     * means CRC) instead of being received: it occupies the bus for its
     * whole length, reaches no receiver, is not confirmed nor logged, and
     * its sender retransmits it automatically (ISO 11898-1: it contends in
     * the next arbitration). Nodes that asked (rtcosim_can_bus_notify_errors)
     * get an RTCOSIM_CAN_EVENT_BUS_ERROR at the frame's end. */
    uint32_t error_every;
    uint8_t error_code;
    /* Data-phase bit rates of CAN FD frames with BRS (0 means 2 Mbit/s, as
     * src/lsbus's bridge) and of CAN XL frames (0 means 10 Mbit/s); at least
     * `bitrate`. Fixed for the run: the bus's lookahead to its nodes (the
     * shortest frame) depends on them. */
    uint32_t fd_bitrate;
    uint32_t xl_bitrate;
    /* CAN FD and XL frame bytes (the out-of-line store their events refer
     * to) allocated at create, rounded up to MiB (at most 64 MiB), and a
     * helper thread that allocates each further MiB before the senders
     * reach it: none are allocated on the run's thread (a bus stepped on a
     * real-time thread). 0: a MiB at a time as the frames come, by the
     * sender. */
    size_t frame_bytes_reserve;
} rtcosim_can_bus_config;

/* Kinds of CAN error (ISO 11898-1 section 10.11), numbered as FMI-LS-BUS
 * 1.0's Bus Error codes (section 5.5.1.2). */
enum {
    RTCOSIM_CAN_ERROR_BIT = 1,
    RTCOSIM_CAN_ERROR_STUFF = 2,
    RTCOSIM_CAN_ERROR_FORM = 3,
    RTCOSIM_CAN_ERROR_CRC = 4,
    RTCOSIM_CAN_ERROR_ACK = 5,
    RTCOSIM_CAN_ERROR_BROKEN_ERROR_FRAME = 6,
};
/* The node that detects an error of this kind first and sends the primary
 * error flag: the transmitter for bit and ACK errors (it compares what it
 * sends and waits for the acknowledgement), else the first receiver (node
 * 0, or 1 when the sender is node 0). */
uint32_t rtcosim_can_error_detector(uint8_t code, uint32_t sender, uint32_t node_count);

/* Event type and payload with which the bus hands a received frame to a
 * node's LP (at the end of the frame, after acceptance filtering). */
#define RTCOSIM_CAN_EVENT_RX 0xCA00u
typedef struct rtcosim_can_rx {
    rtcosim_can_frame frame;     /* classic: the frame; CAN FD / XL: id and extended, dlc 0 */
    uint32_t sender;             /* node index */
    uint8_t format;              /* rtcosim_can_format (RTCOSIM_CAN_FORMAT_CLASSIC = 0) */
    uint8_t flags;               /* CAN FD: RTCOSIM_CAN_FD_BRS | _ESI; CAN XL: RTCOSIM_CAN_XL_SEC */
    uint8_t sdt, vcid;           /* CAN XL: SDU type, virtual CAN network id */
    rtcosim_time_ns start;       /* start of frame on the bus */
    uint32_t af;                 /* CAN XL: acceptance field */
    uint16_t length;             /* CAN FD / XL: data bytes */
    uint16_t reserved_;
    /* CAN FD / XL: `length` bytes in the bus's frame-body arena, valid
     * while the handler that received the event runs (the arena gives its
     * memory back as the run commits: copy what is kept); NULL for classic
     * frames (frame.data) */
    const uint8_t *data;
} rtcosim_can_rx;

/* Event type and payload with which the bus tells a node that asked
 * (rtcosim_can_bus_notify_errors) of an injected error, at the end of the
 * corrupted frame. */
#define RTCOSIM_CAN_EVENT_BUS_ERROR 0xCA04u
typedef struct rtcosim_can_bus_error {
    rtcosim_can_frame frame;     /* the frame that was corrupted */
    uint32_t sender;             /* its transmitter (node index) */
    uint32_t detector;           /* the node with the primary error flag */
    uint8_t code;                /* RTCOSIM_CAN_ERROR_* */
} rtcosim_can_bus_error;

/* The frame formats a log entry (and the LS-BUS layer) carries. */
typedef enum rtcosim_can_format {
    RTCOSIM_CAN_FORMAT_CLASSIC = 0,
    RTCOSIM_CAN_FORMAT_FD = 1,
    RTCOSIM_CAN_FORMAT_XL = 2
} rtcosim_can_format;

typedef struct rtcosim_can_log_entry {
    rtcosim_time_ns start, end;
    /* Classic: the frame. CAN FD: id and extended (dlc 0, data in `data`).
     * CAN XL: id is the 11-bit priority identifier. */
    rtcosim_can_frame frame;
    uint32_t sender;
    uint8_t format;          /* rtcosim_can_format; 0 for classic frames */
    uint8_t flags;           /* CAN FD: RTCOSIM_CAN_FD_BRS | RTCOSIM_CAN_FD_ESI; CAN XL: RTCOSIM_CAN_XL_SEC */
    uint8_t sdt, vcid;       /* CAN XL: SDU type, virtual CAN network id */
    uint32_t af;             /* CAN XL: acceptance field */
    uint16_t length;         /* CAN FD / XL: data bytes */
    const uint8_t *data;     /* CAN FD / XL: `length` bytes, owned by the log's writer (the bus) */
} rtcosim_can_log_entry;
#define RTCOSIM_CAN_FD_BRS 0x01u
#define RTCOSIM_CAN_FD_ESI 0x02u
#define RTCOSIM_CAN_XL_SEC 0x01u

typedef struct rtcosim_can_bus_stats {
    uint64_t frames;            /* transmitted (received by the nodes) */
    uint64_t bus_errors;        /* frames corrupted by error injection (retransmitted) */
    uint64_t dropped;           /* refused: a transmit queue was full, or the node bus-off */
    uint64_t bus_off_dropped;   /* of those, sent while the node reported bus-off (not overload) */
    uint64_t arbitration_lost;  /* discarded after losing (RTCOSIM_CAN_TX_DISCARD_ON_LOST) */
    uint64_t queued_at_end;     /* still waiting when the run ended */
    uint64_t log_dropped;       /* frames not logged: the config's log_capacity was full */
    uint32_t max_queue;         /* longest transmit queue seen */
    rtcosim_time_ns busy_ns;    /* time the bus carried frames */
    rtcosim_time_ns offered_ns; /* duration of every frame requested */
    rtcosim_time_ns max_latency_ns; /* request to end of frame, worst */
    double load;                /* busy / elapsed */
    double offered_load;        /* offered / elapsed; > 1 is an overload */
    bool overloaded;
    /* 1 MiB chunks of CAN FD / XL frame bytes a sending thread allocated
     * itself; with frame_bytes_reserve a helper thread allocates each next
     * one ahead, so a real-time run's is 0 unless the helper fell behind
     * (or a fixed log kept more than the reserve of its frames' bytes) */
    uint64_t frame_bytes_chunks_inline;
    /* 1 MiB chunks of CAN FD / XL frame bytes given back during the run
     * (no event or state could read them any more), and the most held at
     * once: a long run's memory for frame bytes is the latter's */
    uint64_t frame_bytes_chunks_freed;
    uint64_t frame_bytes_chunks_live_max;
} rtcosim_can_bus_stats;

/* Add the bus LP to a simulation. */
rtcosim_status rtcosim_can_bus_create(rtcosim_events *sim, const rtcosim_can_bus_config *config,
                                      rtcosim_can_bus **out, rtcosim_error *err);
void rtcosim_can_bus_free(rtcosim_can_bus *bus);
rtcosim_lp_id rtcosim_can_bus_lp(const rtcosim_can_bus *bus);
const char *rtcosim_can_bus_name(const rtcosim_can_bus *bus);

/* Attach a node whose handlers run in LP `lp`; every frame it sends reaches
 * the bus at least `tx_lookahead` after its clock (its response delay). */
rtcosim_status rtcosim_can_bus_add_node(rtcosim_can_bus *bus, const char *name, rtcosim_lp_id lp,
                                        rtcosim_time_ns tx_lookahead, uint32_t *node,
                                        rtcosim_error *err);
/* The node's transmit and receive databases (like a DBC file's messages). */
rtcosim_status rtcosim_can_bus_add_tx(rtcosim_can_bus *bus, uint32_t node, uint32_t id,
                                      bool extended, uint8_t dlc, rtcosim_error *err);
rtcosim_status rtcosim_can_bus_add_rx(rtcosim_can_bus *bus, uint32_t node, uint32_t id,
                                      bool extended, rtcosim_error *err);
/* Whether a node's TX database holds this identifier (any format): a node
 * of the bus sends it. */
bool rtcosim_can_bus_sends(const rtcosim_can_bus *bus, uint32_t id, bool extended);
/* The bus's bit rate (bit/s). */
uint32_t rtcosim_can_bus_bitrate(const rtcosim_can_bus *bus);
/* The node receives every frame of the other nodes, CAN FD and XL frames
 * too: LS-BUS node FMUs. */
rtcosim_status rtcosim_can_bus_add_rx_all(rtcosim_can_bus *bus, uint32_t node, rtcosim_error *err);
/* The node may send any identifier, length and format, beyond its TX
 * database (LS-BUS node FMUs of a system, whose frames are known only as
 * they come); the bus's lookahead to the nodes is then the shortest frame
 * there is: a standard frame without data, 47 bits, or an empty CAN FD
 * frame with BRS when that is shorter (76 us at 500 kbit/s and 2 Mbit/s
 * against 94 us), or the shortest CAN XL frame. Before connect. */
rtcosim_status rtcosim_can_bus_tx_any(rtcosim_can_bus *bus, uint32_t node, rtcosim_error *err);
/* The node gets each of its own frames back at the frame's end, as an
 * RTCOSIM_CAN_EVENT_RX whose sender is itself (LS-BUS node FMUs: the Confirm
 * of FMI-LS-BUS section 5.5.1.2). Before connect. */
rtcosim_status rtcosim_can_bus_confirm_own(rtcosim_can_bus *bus, uint32_t node,
                                          rtcosim_error *err);
/* The node gets an RTCOSIM_CAN_EVENT_BUS_ERROR for each injected error (LS-BUS
 * node FMUs: the Bus Error operation). Before connect. */
rtcosim_status rtcosim_can_bus_notify_errors(rtcosim_can_bus *bus, uint32_t node,
                                             rtcosim_error *err);
/* Controller states a node reports (the values of LS-BUS 1.0's Status
 * operation, section 5.5.1.2). */
#define RTCOSIM_CAN_STATE_ERROR_ACTIVE 1u
#define RTCOSIM_CAN_STATE_ERROR_PASSIVE 2u
#define RTCOSIM_CAN_STATE_BUS_OFF 3u
/* The node reports its controller state (rtcosim_can_send_state) and sends
 * and receives wake-ups (rtcosim_can_send_wakeup, RTCOSIM_CAN_EVENT_WAKEUP):
 * LS-BUS node FMUs. Before connect. */
rtcosim_status rtcosim_can_bus_node_controls(rtcosim_can_bus *bus, uint32_t node,
                                             rtcosim_error *err);
/* From a node's handler: its controller state reaches the bus `delay` from
 * now (the node's transmit lookahead at least), ordered with its frames sent
 * at that instant as they were sent. While BUS_OFF its new frames are
 * dropped (stats.dropped and stats.bus_off_dropped) and those it queued
 * before do not contend until it reports ERROR_ACTIVE or ERROR_PASSIVE; an
 * ERROR_PASSIVE node's frame goes after any error-active node's (the
 * suspend-transmission time, as src/lsbus's bridge orders them). Errors: a
 * state other than 1-3, a node not declared with rtcosim_can_bus_node_controls. */
rtcosim_status rtcosim_can_send_state(rtcosim_lp *lp, rtcosim_can_bus *bus, uint32_t node,
                                      uint8_t state, rtcosim_time_ns delay, rtcosim_error *err);
/* From a node's handler: a wake-up reaches the bus `delay` from now and
 * every other node declared with rtcosim_can_bus_node_controls the bus's
 * lookahead later (rtcosim_can_bus_min_frame_time: the earliest the bus may
 * reach a node), as an RTCOSIM_CAN_EVENT_WAKEUP whose payload is the
 * sender's node index (uint32_t). */
#define RTCOSIM_CAN_EVENT_WAKEUP 0xCA06u
rtcosim_status rtcosim_can_send_wakeup(rtcosim_lp *lp, rtcosim_can_bus *bus, uint32_t node,
                                       rtcosim_time_ns delay, rtcosim_error *err);
/* Declare the links node -> bus and bus -> node once all nodes and TX
 * databases are known: the bus-to-node lookahead is the duration of the
 * shortest frame any node may send (unstuffed; CAN FD with BRS at the data
 * rate). */
rtcosim_status rtcosim_can_bus_connect(rtcosim_can_bus *bus, rtcosim_error *err);
/* That lookahead (0 before connect). */
rtcosim_time_ns rtcosim_can_bus_min_frame_time(const rtcosim_can_bus *bus);

/* From a node's handler: queue a frame for transmission `delay` from now.
 * Errors: an identifier not in the node's TX database, a DLC above 8 or
 * other than the database's. */
rtcosim_status rtcosim_can_transmit(rtcosim_lp *lp, rtcosim_can_bus *bus, uint32_t node,
                                    const rtcosim_can_frame *frame, rtcosim_time_ns delay,
                                    rtcosim_error *err);
/* rtcosim_can_transmit with flags: RTCOSIM_CAN_TX_DISCARD_ON_LOST drops the
 * frame when it loses an arbitration (it contended as its node's queue head
 * and another frame won) instead of keeping it for the next, and sends the
 * node an RTCOSIM_CAN_EVENT_ARBITRATION_LOST (payload: the frame) at the
 * winning frame's end (LS-BUS 1.0 DISCARD_AND_NOTIFY). */
#define RTCOSIM_CAN_TX_DISCARD_ON_LOST 1u
#define RTCOSIM_CAN_EVENT_ARBITRATION_LOST 0xCA05u
rtcosim_status rtcosim_can_transmit_flags(rtcosim_lp *lp, rtcosim_can_bus *bus, uint32_t node,
                                          const rtcosim_can_frame *frame, rtcosim_time_ns delay,
                                          unsigned flags, rtcosim_error *err);

/* Any frame the bus carries: classic CAN, CAN FD (ISO 11898-1:2015) or CAN
 * XL (ISO 11898-1:2024). Classic: id, extended, length 0..8, data. CAN FD:
 * id, extended, flags RTCOSIM_CAN_FD_BRS / _ESI, a CAN FD length (0-8, 12,
 * ..., 64). CAN XL: id the 11-bit priority identifier (extended false),
 * flags RTCOSIM_CAN_XL_SEC, sdt, vcid, af, 1..2048 bytes. */
typedef struct rtcosim_can_any_frame {
    uint8_t format;      /* rtcosim_can_format */
    uint8_t flags;
    uint8_t sdt, vcid;
    uint32_t id;
    uint32_t af;
    bool extended;
    uint16_t length;
    const uint8_t *data; /* `length` bytes (copied by the call) */
} rtcosim_can_any_frame;

/* rtcosim_can_transmit_flags for any format. A CAN FD or XL frame's bytes
 * are copied into the bus's frame-body arena (events carry 64 bytes at most:
 * they carry its offset); it lasts its nominal bits at the bus's bit rate
 * and its data phase at the FD (with BRS) or XL data rate. Only nodes that
 * receive every frame (rtcosim_can_bus_add_rx_all: LS-BUS nodes) get CAN FD
 * and XL frames; nodes with a receive database are classic controllers
 * that ignore them (as FD-tolerant controllers do). Errors: a length
 * or identifier the format cannot carry; for a node with a TX database, an
 * identifier not in it or of another format or length. */
rtcosim_status rtcosim_can_transmit_any(rtcosim_lp *lp, rtcosim_can_bus *bus, uint32_t node,
                                        const rtcosim_can_any_frame *frame, rtcosim_time_ns delay,
                                        unsigned flags, rtcosim_error *err);
/* A TX database entry of another format (rtcosim_can_bus_add_tx is classic):
 * length the CAN FD or XL data length it sends. */
rtcosim_status rtcosim_can_bus_add_tx_format(rtcosim_can_bus *bus, uint32_t node,
                                             rtcosim_can_format format, uint32_t id,
                                             bool extended, uint16_t length, rtcosim_error *err);
/* A TX database entry whose frames may have any data length the format
 * allows up to max_length (an AUTOSAR dynamic container's frames are as long
 * as their contents). */
rtcosim_status rtcosim_can_bus_add_tx_upto(rtcosim_can_bus *bus, uint32_t node,
                                           rtcosim_can_format format, uint32_t id, bool extended,
                                           uint16_t max_length, rtcosim_error *err);
/* The data-phase bit rates in use (bit/s). */
uint32_t rtcosim_can_bus_fd_bitrate(const rtcosim_can_bus *bus);
uint32_t rtcosim_can_bus_xl_bitrate(const rtcosim_can_bus *bus);
/* From a node's handler receiving RTCOSIM_CAN_EVENT_RX: the frame. */
const rtcosim_can_rx *rtcosim_can_rx_of(const rtcosim_event *ev);
/* From a node's handler receiving RTCOSIM_CAN_EVENT_BUS_ERROR: the error. */
const rtcosim_can_bus_error *rtcosim_can_bus_error_of(const rtcosim_event *ev);

/* Clear statistics and the log before a new run of the same simulation. */
void rtcosim_can_bus_reset(rtcosim_can_bus *bus);
/* Frames transmitted so far, readable from any thread while the bus runs
 * (a live view; includes a speculative run's frames not yet committed). */
uint64_t rtcosim_can_bus_frames_live(const rtcosim_can_bus *bus);
/* Statistics over `elapsed` simulated time (the run's length). */
void rtcosim_can_bus_stats_get(const rtcosim_can_bus *bus, rtcosim_time_ns elapsed,
                               rtcosim_can_bus_stats *stats);
/* The frames logged (log_frames) by this process: over MPI ranks only the
 * rank that ran the bus holds them; with a log stream (can_log.h,
 * rtcosim_can_bus_stream_log) those not yet written to it. */
size_t rtcosim_can_bus_log_count(const rtcosim_can_bus *bus);
const rtcosim_can_log_entry *rtcosim_can_bus_log(const rtcosim_can_bus *bus);
/* A 64-bit FNV-1a digest of the whole log in order (each frame's start and
 * end, id, extended flag, sender, format, data length and bytes) and the
 * frames it covers (*frames, may be NULL): part of the bus's state, so it
 * stays right after rollbacks and reaches rank 0 with the gathered state
 * of a run over ranks, where the entries themselves do not. */
uint64_t rtcosim_can_bus_log_digest(const rtcosim_can_bus *bus, size_t *frames);
/* Write the log (end-of-frame times): Vector ASC when the path ends in
 * ".asc", else candump -l, "(0000000000.000270) can0 0C8#1122334455667788"
 * (can_log.h). */
rtcosim_status rtcosim_can_bus_write_log(const rtcosim_can_bus *bus, const char *path,
                                         rtcosim_error *err);

#ifdef __cplusplus
}
#endif
#endif
