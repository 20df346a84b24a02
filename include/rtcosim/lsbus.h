/* FMI-LS-BUS 1.0 (the Modelica Association's layered standard for network
 * communication between FMUs), CAN part of the Network Abstraction: the bus
 * operations that travel in the Tx_Data / Rx_Data Binary variables, their
 * encoding into and decoding from an operation buffer, the terminals and
 * manifest an FMU declares, and a bridge that puts LS-BUS CAN nodes on
 * rtcosim's own CAN bus (the "importer with integrated bus simulation"). */
#ifndef RTCOSIM_LSBUS_H
#define RTCOSIM_LSBUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/component.h"
#include "rtcosim/can.h"
#include "rtcosim/events.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- operations (LS-BUS 1.0 section 5.2 "Layered Standard Bus Protocol",
 * 5.5.1.2 CAN operations) ---- */

/* Every operation starts with opCode (uint32) and length (uint32, the
 * operation's total size in bytes, header included), little-endian. */
#define RTCOSIM_LSBUS_HEADER_SIZE 8u

typedef enum rtcosim_lsbus_op_code {
    RTCOSIM_LSBUS_OP_FORMAT_ERROR = 0x0001,
    RTCOSIM_LSBUS_OP_CAN_TRANSMIT = 0x0010,
    RTCOSIM_LSBUS_OP_CANFD_TRANSMIT = 0x0011,
    RTCOSIM_LSBUS_OP_CANXL_TRANSMIT = 0x0012,
    RTCOSIM_LSBUS_OP_CAN_CONFIRM = 0x0020,
    RTCOSIM_LSBUS_OP_CAN_ARBITRATION_LOST = 0x0030,
    RTCOSIM_LSBUS_OP_CAN_BUS_ERROR = 0x0031,
    RTCOSIM_LSBUS_OP_CAN_CONFIGURATION = 0x0040,
    RTCOSIM_LSBUS_OP_CAN_STATUS = 0x0041,
    RTCOSIM_LSBUS_OP_CAN_WAKEUP = 0x0042,
} rtcosim_lsbus_op_code;

/* Configuration parameter kinds (table "available configuration parameters"). */
enum {
    RTCOSIM_LSBUS_CAN_CONFIG_CAN_BAUDRATE = 0x01,
    RTCOSIM_LSBUS_CAN_CONFIG_CANFD_BAUDRATE = 0x02,
    RTCOSIM_LSBUS_CAN_CONFIG_CANXL_BAUDRATE = 0x03,
    RTCOSIM_LSBUS_CAN_CONFIG_ARBITRATION_LOST_BEHAVIOR = 0x04,
};
/* Arbitration Lost Behavior values. */
enum {
    RTCOSIM_LSBUS_CAN_BUFFER_AND_RETRANSMIT = 0x01,
    RTCOSIM_LSBUS_CAN_DISCARD_AND_NOTIFY = 0x02,
};
/* Bus Error codes and error flags. */
enum {
    RTCOSIM_LSBUS_CAN_BIT_ERROR = 0x01,
    RTCOSIM_LSBUS_CAN_BIT_STUFFING_ERROR = 0x02,
    RTCOSIM_LSBUS_CAN_FORM_ERROR = 0x03,
    RTCOSIM_LSBUS_CAN_CRC_ERROR = 0x04,
    RTCOSIM_LSBUS_CAN_ACK_ERROR = 0x05,
    RTCOSIM_LSBUS_CAN_BROKEN_ERROR_FRAME = 0x06,
};
enum {
    RTCOSIM_LSBUS_CAN_PRIMARY_ERROR_FLAG = 0x01,
    RTCOSIM_LSBUS_CAN_SECONDARY_ERROR_FLAG = 0x02,
};
/* Status values (CAN node states). */
enum {
    RTCOSIM_LSBUS_CAN_ERROR_ACTIVE = 0x01,
    RTCOSIM_LSBUS_CAN_ERROR_PASSIVE = 0x02,
    RTCOSIM_LSBUS_CAN_BUS_OFF = 0x03,
};

/* The three Transmit operations in one shape; fields a format lacks are 0.
 * data points into the buffer read (or the caller's bytes when writing). */
typedef struct rtcosim_lsbus_can_transmit {
    uint32_t id;          /* the identifier as a number (no base/extension split) */
    uint8_t ide;          /* 1: extended 29-bit identifier */
    uint8_t rtr;          /* CAN: remote transmission request */
    uint8_t brs, esi;     /* CAN FD: bit rate switch, error state indicator */
    uint8_t sec, sdt, vcid; /* CAN XL: simple extended content, SDU type, virtual CAN id */
    uint32_t af;          /* CAN XL: acceptance field */
    uint16_t data_length; /* bytes of data (not the DLC) */
    const uint8_t *data;
} rtcosim_lsbus_can_transmit;

/* One decoded operation. `bytes`/`length` are the whole operation as found in
 * the buffer (for forwarding a Transmit unchanged, or quoting it in a Format
 * Error). known is false for an op code this layer does not know; only the
 * header is then meaningful. */
typedef struct rtcosim_lsbus_op {
    uint32_t code;
    uint32_t length;
    bool known;
    const uint8_t *bytes;
    union {
        rtcosim_lsbus_can_transmit transmit; /* 0x10, 0x11, 0x12 */
        uint32_t id;                         /* Confirm 0x20, Arbitration Lost 0x30 */
        struct {
            uint32_t id;
            uint8_t error_code, error_flag, is_sender;
        } bus_error; /* 0x31 */
        struct {
            uint8_t kind;     /* RTCOSIM_LSBUS_CAN_CONFIG_* */
            uint32_t baudrate; /* bit/s, baud-rate kinds */
            uint8_t arbitration_lost_behavior;
        } configuration; /* 0x40 */
        uint8_t status; /* 0x41 */
        struct {
            uint16_t data_length;
            const uint8_t *data; /* the corrupt operation's bytes */
        } format_error; /* 0x01 */
    } u;
} rtcosim_lsbus_op;

/* The standard's name of an op code ("CAN Transmit", ...), "unknown" else. */
const char *rtcosim_lsbus_op_name(uint32_t code);

/* Size an operation takes when written (header included). */
size_t rtcosim_lsbus_op_size(const rtcosim_lsbus_op *op);

/* Append op (op->code and its fields; length is computed) to buf[*used ..
 * capacity). Errors (RTCOSIM_EINVAL, *used unchanged): not enough room, an
 * unknown op code or configuration kind, data longer than a 16-bit length. */
rtcosim_status rtcosim_lsbus_write(uint8_t *buf, size_t capacity, size_t *used,
                                   const rtcosim_lsbus_op *op, rtcosim_error *err);

/* Reading a buffer of concatenated operations; no allocation, the ops point
 * into the buffer. */
typedef struct rtcosim_lsbus_reader {
    const uint8_t *buf;
    size_t size, pos;
    uint32_t unknown_ops; /* skipped so far (op codes this layer does not know) */
} rtcosim_lsbus_reader;

void rtcosim_lsbus_reader_init(rtcosim_lsbus_reader *r, const void *buf, size_t size);

/* Next operation: RTCOSIM_OK with *got true and op filled, or *got false at
 * the end of the buffer. An op code this layer does not know is returned
 * with op->known false (its length is trusted to skip it; the standard says
 * the receiver answers such an op with a Format Error), and counted.
 * RTCOSIM_EFORMAT with a one-line message naming the op and the field when a
 * length field lies (shorter than the header, not the size the op's layout
 * gives, or past the end of the buffer) or a Configuration has an unknown
 * kind; the reader then stays at that op (the rest cannot be trusted). */
rtcosim_status rtcosim_lsbus_read(rtcosim_lsbus_reader *r, rtcosim_lsbus_op *op, bool *got,
                                  rtcosim_error *err);

/* ---- terminals and the layered standard's manifest (LS-BUS 1.0 sections 2 and 5.4,
 * FMI 3.0 section 2.4.9 terminalsAndIcons.xml, section 2.6 fmi-ls-manifest.xml) ---- */

#define RTCOSIM_LSBUS_NETWORK_TERMINAL "org.fmi-ls-bus.network-terminal"

typedef struct rtcosim_terminal_member {
    const char *variable_name;
    const char *member_name;   /* may be NULL */
    const char *variable_kind; /* signal, inflow, outflow */
} rtcosim_terminal_member;

typedef struct rtcosim_terminal {
    const char *name;
    const char *kind;          /* terminalKind; may be NULL */
    const char *matching_rule;
    const char *description;   /* may be NULL */
    int depth;                 /* 0 top level, 1 nested in the previous depth-0 one, ... */
    size_t parent;             /* index of the enclosing terminal; SIZE_MAX at depth 0 */
    const rtcosim_terminal_member *members;
    size_t member_count;
} rtcosim_terminal;

typedef struct rtcosim_layered_standard {
    const char *name;          /* fmi-ls-name, e.g. org.fmi-standard.fmi-ls-bus */
    const char *version;       /* fmi-ls-version */
    const char *description;   /* fmi-ls-description */
    const char *folder;        /* the folder under extra/ it was found in */
    bool is_bus_simulation_fmu; /* LS-BUS: isBusSimulationFMU (default false) */
} rtcosim_layered_standard;

typedef struct rtcosim_fmu_extras rtcosim_fmu_extras;

/* Read terminalsAndIcons/terminalsAndIcons.xml and every
 * extra/<folder>/fmi-ls-manifest.xml of an extracted FMU (both optional).
 * Malformed XML or a missing required attribute: RTCOSIM_EFORMAT naming the
 * file ("terminalsAndIcons/terminalsAndIcons.xml: line 3: ..."). */
rtcosim_status rtcosim_fmu_extras_read(const char *extracted_dir, rtcosim_fmu_extras **out,
                                       rtcosim_error *err);
/* The same from memory (fuzzing, tests); either text may be NULL. name is
 * used in messages. */
rtcosim_status rtcosim_terminals_parse(const char *xml, size_t size, const char *name,
                                       rtcosim_fmu_extras *extras, rtcosim_error *err);
rtcosim_status rtcosim_manifest_parse(const char *xml, size_t size, const char *name,
                                      const char *folder, rtcosim_fmu_extras *extras,
                                      rtcosim_error *err);
rtcosim_fmu_extras *rtcosim_fmu_extras_new(void);
void rtcosim_fmu_extras_free(rtcosim_fmu_extras *extras);
size_t rtcosim_fmu_extras_terminal_count(const rtcosim_fmu_extras *extras);
const rtcosim_terminal *rtcosim_fmu_extras_terminal(const rtcosim_fmu_extras *extras, size_t i);
size_t rtcosim_fmu_extras_standard_count(const rtcosim_fmu_extras *extras);
const rtcosim_layered_standard *rtcosim_fmu_extras_standard(const rtcosim_fmu_extras *extras,
                                                            size_t i);

/* ---- integrated bus simulation: LS-BUS CAN nodes on rtcosim's CAN bus
 * (LS-BUS 1.0 section 3.2.3, CAN semantics of section 5.5.1) ---- */

typedef struct rtcosim_lsbus_can_bridge rtcosim_lsbus_can_bridge;

typedef struct rtcosim_lsbus_can_bridge_config {
    const char *name;        /* "can0" */
    uint32_t node_count;
    /* Bit rate when no node configures one; 0 means 500 kbit/s. With
     * force_bitrate the nodes' CAN_BAUDRATE configurations are ignored. */
    uint32_t bitrate;
    /* CAN FD data-phase bit rate when no node configures CANFD_BAUDRATE;
     * 0 means 2 Mbit/s. */
    uint32_t fd_bitrate;
    /* CAN XL data-phase bit rate when no node configures CANXL_BAUDRATE;
     * 0 means 10 Mbit/s. force_bitrate ignores the nodes' rates of all three. */
    uint32_t xl_bitrate;
    bool force_bitrate;
    /* Arbitration Lost Behavior of nodes that configure none (0: buffer and
     * retransmit, which is what a real controller does). */
    uint8_t default_arbitration_lost_behavior;
    /* The nodes' BusNotifications parameter: when false no Confirm, Bus
     * Error or Arbitration Lost is sent (fire and forget; section 5.5.1.3). */
    bool bus_notifications;
    /* Frames buffered per node (0: 64) and the Rx buffer size per node in
     * bytes (0: 4096); both allocated once at create. */
    uint32_t tx_queue_capacity;
    uint32_t rx_buffer_size;
    /* CAN XL frames buffered per node (0: 8), each with a 2048-byte data
     * slot allocated at create; a node's XL Transmit beyond them is dropped
     * (stats.dropped) as a full queue's frame is. */
    uint32_t xl_queue_capacity;
    /* Error injection: every error_every-th frame on the bus (0: never) ends
     * in a Bus Error of kind error_code instead of being delivered. */
    uint32_t error_every;
    uint8_t error_code;
    /* Keep every delivered frame for rtcosim_lsbus_can_bridge_write_log
     * (grown by doubling from 4096 entries: amortized, not per frame). */
    bool log_frames;
    /* With log_frames: when nonzero, the log holds at most this many
     * entries, all allocated at create (nothing allocated per frame, as a
     * paced thread needs); later frames are counted in stats.log_dropped. */
    size_t log_capacity;
    /* With log_capacity: the bytes of CAN FD and XL data the fixed log
     * holds (0: 64 per entry); a frame whose data no longer fits is counted
     * in stats.log_dropped. */
    size_t log_data_capacity;
    /* Optional (NULL: "node i"): the nodes' names for messages, e.g. the
     * component and terminal; must outlive the bridge. */
    const char *const *node_names;
} rtcosim_lsbus_can_bridge_config;

typedef struct rtcosim_lsbus_can_bridge_stats {
    uint64_t frames;           /* delivered */
    uint64_t confirms, arbitration_lost, bus_errors, format_errors;
    uint64_t unknown_ops;      /* ops skipped with an unknown code */
    uint64_t dropped;          /* transmit queue full, or the node reported bus-off */
    uint64_t bus_off_dropped;  /* of those, Transmits of a node in bus-off */
    uint64_t log_dropped;      /* delivered but not logged (config.log_capacity reached) */
    rtcosim_time_ns busy_ns;
} rtcosim_lsbus_can_bridge_stats;

rtcosim_status rtcosim_lsbus_can_bridge_create(const rtcosim_lsbus_can_bridge_config *config,
                                               rtcosim_lsbus_can_bridge **out,
                                               rtcosim_error *err);
void rtcosim_lsbus_can_bridge_free(rtcosim_lsbus_can_bridge *b);

/* A node's Tx_Data at time t (its Tx_Clock ticked): every operation is taken
 * at once: Configuration and Status update the node, Transmit queues a frame
 * for arbitration, Wakeup goes to every other node's Rx; an op code the bus
 * does not know is skipped and answered with a Format Error (counted in the
 * stats). t must not go back before the bridge's time. Errors: a malformed
 * buffer (RTCOSIM_EFORMAT naming the node, op and field), a frame the bus
 * cannot carry (RTCOSIM_EUNSUPPORTED: more than 8 data bytes in a classic
 * frame; RTCOSIM_EINVAL: identifiers out of range, a length CAN FD has no
 * DLC for, a CAN XL length outside 1-2048, a CAN XL Transmit op larger than
 * the nodes' Rx buffers). CAN FD frames take their nominal bits at the CAN
 * rate and, with BRS, their data phase at the CAN FD rate; CAN XL frames
 * their arbitration and end at the CAN rate, their data phase at the CAN XL
 * rate (rtcosim_can_xl_frame_bits). With the same 11-bit identifier a
 * classic frame goes before a CAN FD one, which goes before a CAN XL one
 * (the first bit that differs, FDF or XLF, is dominant in the former). */
rtcosim_status rtcosim_lsbus_can_bridge_push(rtcosim_lsbus_can_bridge *b, uint32_t node,
                                             rtcosim_time_ns t, const void *tx_data,
                                             size_t size, rtcosim_error *err);
/* The next instant the bus has something to do (a frame ends, or queued
 * frames start arbitration); RTCOSIM_TIME_MAX when idle with nothing queued. */
rtcosim_time_ns rtcosim_lsbus_can_bridge_next_event(const rtcosim_lsbus_can_bridge *b);
/* Run the bus up to and including t: frames ending at or before t are
 * delivered to the receivers' Rx buffers (Transmit op) and confirmed to their
 * senders; frames are arbitrated as the bus becomes free. */
rtcosim_status rtcosim_lsbus_can_bridge_advance(rtcosim_lsbus_can_bridge *b, rtcosim_time_ns t,
                                                rtcosim_error *err);
/* A node's pending Rx operations (to set as its Rx_Data and tick Rx_Clock
 * when size > 0); valid until the next call on the bridge. Taking them
 * empties the node's Rx buffer. */
const uint8_t *rtcosim_lsbus_can_bridge_take_rx(rtcosim_lsbus_can_bridge *b, uint32_t node,
                                                size_t *size);
void rtcosim_lsbus_can_bridge_stats_get(const rtcosim_lsbus_can_bridge *b,
                                        rtcosim_lsbus_can_bridge_stats *stats);
/* The frames delivered so far (with log_frames), sender = node index, and
 * the log written as src/can writes it: Vector ASC for a path ending in
 * ".asc", candump -l otherwise (end-of-frame times, can_log.h). */
size_t rtcosim_lsbus_can_bridge_log_count(const rtcosim_lsbus_can_bridge *b);
const struct rtcosim_can_log_entry *rtcosim_lsbus_can_bridge_log(const rtcosim_lsbus_can_bridge *b);
rtcosim_status rtcosim_lsbus_can_bridge_write_log(const rtcosim_lsbus_can_bridge *b,
                                                  const char *path, rtcosim_error *err);
/* With log_frames: each frame goes to `writer` (can_log.h) as it is
 * delivered instead of into the log (none kept: memory flat however long
 * the run, the file whole up to a failure); NULL: kept again. The writer
 * stays the caller's (closed after the run); errors writing it fail the
 * step. How many went to it: rtcosim_lsbus_can_bridge_log_streamed. */
struct rtcosim_can_log_writer;
rtcosim_status rtcosim_lsbus_can_bridge_stream_log(rtcosim_lsbus_can_bridge *b,
                                                   struct rtcosim_can_log_writer *writer,
                                                   rtcosim_error *err);
uint64_t rtcosim_lsbus_can_bridge_log_streamed(const rtcosim_lsbus_can_bridge *b);
/* The bit rate in use (configured by nodes or given). */
uint32_t rtcosim_lsbus_can_bridge_bitrate(const rtcosim_lsbus_can_bridge *b);

/* The bridge as a component of a system (bus_component.c, rtcosim run
 * --can-bus): event mode used; per node i (node_names[i], config->node_count
 * of them) the Binary input "<name>.Tx_Data" (value reference 4i), the
 * triggered input clock "<name>.Tx_Clock" (4i+1), the Binary output
 * "<name>.Rx_Data" (4i+2) and the output clock "<name>.Rx_Clock" (4i+3), to
 * connect with the nodes' terminal members. In each event iteration it
 * pushes the Tx_Data of the nodes whose clock ticked, advances the bus to
 * the instant once no more arrive, and ticks Rx_Clock of the nodes with
 * operations; it announces the bus's next event time. */
rtcosim_status rtcosim_lsbus_can_bus_component_create(const rtcosim_lsbus_can_bridge_config *config,
                                                      const char *const *node_names,
                                                      rtcosim_component **out, rtcosim_error *err);
/* The bridge of such a component (for its log and stats), NULL otherwise. */
rtcosim_lsbus_can_bridge *rtcosim_lsbus_can_bus_component_bridge(rtcosim_component *c);

/* The same component on the event kernel's CAN bus instead of the bridge
 * (`rtcosim run --can-bus NAME=COMP.TERMINAL,...,ecus:N`): the nodes share
 * src/can's bus LP `bus` of `sim` with the LPs already there (native and
 * firmware ECUs). Per node a gateway LP joins the bus before it connects
 * (the caller connects it): it may send any identifier, receives every
 * other node's frame (CAN Transmit op), its own frames' Confirms, a Bus
 * Error per injected error (rtcosim_can_bus_config.error_every) and the
 * other LS-BUS nodes' Wakeups (the bus's lookahead after them); its Status
 * applies on the bus (src/can rtcosim_can_send_state: bus-off drops its
 * Transmits, error-passive ranks its frames after error-active ones). The
 * component steps `sim` (rtcosim_events_begin at setup, _end at terminate):
 * at each instant the Transmits of the nodes' Tx_Data go onto the bus at
 * that instant, then the kernel runs to it; it announces the kernel's next
 * event time (ECU tasks, frame ends), at which macro steps end. With
 * lookahead it announces none: it may return early (earlyReturnAllowed, so
 * every component of the master must vary its step) and runs the kernel
 * inside its step, returning at the first instant that leaves a node
 * something (a frame, Confirm, Bus Error), so macro steps end only there
 * and at the nodes' own events; the frames and deliveries are the same. CAN,
 * CAN FD and CAN XL frames; a Configuration's CAN_BAUDRATE, CANFD_BAUDRATE
 * and CANXL_BAUDRATE must be the bus's. sim and
 * bus must outlive the component. */
rtcosim_status rtcosim_lsbus_can_lp_component_create(rtcosim_events *sim, rtcosim_can_bus *bus,
                                                     const char *const *node_names,
                                                     uint32_t node_count, bool lookahead,
                                                     rtcosim_component **out,
                                                     rtcosim_error *err);
/* The kernel bus of such a component, NULL otherwise. */
rtcosim_can_bus *rtcosim_lsbus_can_lp_component_bus(rtcosim_component *c);
/* Called once when such a component is freed, after its stepped run ended:
 * the owner of sim and bus may free them there (a real-time run's
 * calibration probe: its ECUs and emulated cores gone before the run locks
 * memory). */
void rtcosim_lsbus_can_lp_component_on_free(rtcosim_component *c, void (*release)(void *context),
                                            void *context);

/* The bus's work on the paced thread of a real-time run (either kind of bus
 * component): the time its calls take inside each paced frame, read on the
 * frame's clock (rtcosim_paced_frame_current; the kernel's events, the ECUs'
 * and firmware's handlers, the gateways, the ops written and read). Off
 * until records for `frames` frames are reserved (before the run: nothing is
 * allocated while it runs; frames beyond are counted, not recorded). A
 * frame in which the bus was not called has no record. */
typedef struct rtcosim_lsbus_frame_work {
    rtcosim_time_ns te;      /* the paced frame's simulation time */
    rtcosim_time_ns work_ns; /* the bus's calls inside it, on the frame's clock */
} rtcosim_lsbus_frame_work;
rtcosim_status rtcosim_lsbus_can_component_reserve_work(rtcosim_component *c, size_t frames,
                                                        rtcosim_error *err);
/* The records so far (count in *count), and the frames not recorded. */
const rtcosim_lsbus_frame_work *rtcosim_lsbus_can_component_work(const rtcosim_component *c,
                                                                 size_t *count,
                                                                 uint64_t *not_recorded);

/* ---- an LS-BUS CAN node FMU as an LP of the event kernel (event_node.c) ---- */

/* The node FMU (FMI 3.0 co-simulation with Event Mode) on src/can's bus LP
 * beside native and firmware ECUs (`rtcosim events --lsbus-node`). Its LP
 * steps the FMU to each event: a time event it announced (nextEventTime) or
 * a frame the bus delivers (as a CAN Transmit op in Rx_Data, Rx_Clock
 * ticked); in Event Mode it reads Tx_Clock once and, when it ticked,
 * Tx_Data: each CAN, CAN FD or CAN XL Transmit reaches the bus tx_delay
 * later (the node's lookahead to the bus; the bus's to the node is its
 * shortest frame, as for native ECUs), a Configuration's CAN_BAUDRATE,
 * CANFD_BAUDRATE and CANXL_BAUDRATE must equal the bus's rates. It receives
 * every other node's frame of any format (CAN FD and XL Transmit with their
 * bytes; Rx_Data must hold the largest op, else a one-line error). The bus
 * confirms each of its frames at the frame's end (Confirm) and reports each
 * injected error (rtcosim_can_bus_config.error_every) as a Bus Error (flag
 * primary when this node detected it, is_sender when it sent the frame); it
 * buffers and retransmits frames that lose arbitration (no Arbitration
 * Lost). */
typedef struct rtcosim_lsbus_event_node rtcosim_lsbus_event_node;
typedef struct rtcosim_lsbus_event_node_config {
    const char *name;      /* LP and bus node name */
    const char *fmu_path;
    const char *terminal;  /* the terminal whose members are <terminal>.Tx_Data etc.; NULL: "CAN" */
    /* start values ("name", "value" text as rtcosim simulate --start-value) */
    const char *const *start_names, *const *start_texts;
    size_t start_count;
    rtcosim_time_ns tx_delay;
    /* the frames it may send (the bus's TX database): identifier, DLC;
     * tx_formats (NULL: all classic) a rtcosim_can_format per frame and
     * tx_lengths (NULL: tx_dlcs) the data bytes of CAN FD and XL frames */
    const uint32_t *tx_ids;
    const uint8_t *tx_dlcs;
    const bool *tx_extended;
    const uint8_t *tx_formats;
    const uint16_t *tx_lengths;
    size_t tx_count;
    rtcosim_time_ns start, stop;
    /* Co-simulation: while the FMU announces no next event time, it is
     * stepped on the grid start + k step, so that what it decides in a step
     * (a frame sent as the step reaches its time, as the FMI-LS-BUS demo
     * nodes do) is on time; 0: its DefaultExperiment stepSize, none without
     * one; < 0: only at its events and frames. */
    rtcosim_time_ns step;
    /* Load the FMU for FMI 3.0 scheduled execution (chapter 5) instead:
     * Rx_Clock a triggered input clock (its partition runs at each bus
     * event, after Rx_Data is set), Tx_Clock an output clock; the LP runs
     * the partitions due at each tick of the FMU's own scheduler
     * (rtcosim_fmu_se_run_instant) and sends Tx_Data's frames when Tx_Clock
     * ticked in that instant. */
    bool scheduled_execution;
} rtcosim_lsbus_event_node_config;

/* Load, instantiate and initialize the FMU, add its LP and bus node (it
 * receives every frame another node may send); before the bus connects.
 * Errors name the node and the FMU: no Event Mode, missing terminal members. */
rtcosim_status rtcosim_lsbus_event_node_create(rtcosim_events *sim, rtcosim_can_bus *bus,
                                               const rtcosim_lsbus_event_node_config *config,
                                               rtcosim_lsbus_event_node **out, rtcosim_error *err);
void rtcosim_lsbus_event_node_free(rtcosim_lsbus_event_node *n);
rtcosim_component *rtcosim_lsbus_event_node_component(const rtcosim_lsbus_event_node *n);
const char *rtcosim_lsbus_event_node_name(const rtcosim_lsbus_event_node *n);
void rtcosim_lsbus_event_node_counts(const rtcosim_lsbus_event_node *n, uint64_t *frames_sent,
                                     uint64_t *frames_received);
/* Bus Error operations delivered to the node. */
uint64_t rtcosim_lsbus_event_node_bus_errors(const rtcosim_lsbus_event_node *n);

#ifdef __cplusplus
}
#endif
#endif
