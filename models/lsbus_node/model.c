/* LsBusNode: a CAN node of FMI-LS-BUS 1.0 (network abstraction, section 5.5.1)
 * as FMI 3.0 co-simulation with Event Mode and clocks: terminal "CAN" with
 * CAN.Tx_Data / CAN.Tx_Clock (output Binary and triggered output clock) and
 * CAN.Rx_Data / CAN.Rx_Clock (input). At its first event (right after
 * initialization) it sends a Configuration op with its bit rate, then a CAN
 * Transmit of `can_id` with the first `data_length` bytes of 11 22 .. 88 at
 * offset + k period; it counts what arrives (Transmit, Confirm, Arbitration
 * Lost, Bus Error) and the time of the latest of each. With `format` 1 it
 * sends CAN FD Transmits (BRS as `brs`; `data_length` a CAN FD length, the
 * bytes 11 22 .. 88 repeated) and configures CANFD_BAUDRATE `fd_bitrate`
 * when positive, with 2 CAN XL Transmits (1..2048 bytes, SEC, SDT, VCID, AF
 * as `sec`, `sdt`, `vcid`, `af`) and configures CANXL_BAUDRATE `xl_bitrate`
 * when positive (LsBusNodeLarge has the buffers for the largest). `pattern`
 * 1 makes byte i of the k-th frame (7 i + 1 + k) mod 256 instead, a pattern
 * that tells frames and byte positions apart. Of the latest Transmit
 * received it keeps the op code, identifier, data length, the sum of the
 * data bytes, the CAN XL fields, and whether the bytes are `pattern`'s for
 * the number of frames received before it (rx_data_ok: the peer sends the
 * same pattern, so its k-th frame is this node's k-th). With `wakeup_with`,
 * `bus_off_from` and `bus_off_to` (frame numbers, 1 the first) it sends a
 * Wakeup, a Status BUS_OFF (or `bus_off_status`) and a Status ERROR_ACTIVE
 * before that frame's Transmit; it counts the Wakeups it gets. Op layouts: LS-BUS 1.0
 * tables of section 5.5.1.2 (8-byte header opCode, length; little-endian). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lsbus_ops.h"
#include "se_model.h"

/* no_token.c builds the node with an empty instantiationToken. */
#ifndef LSBUS_NODE_RX_MAX
#define LSBUS_NODE_RX_MAX 48
#endif
#ifndef LSBUS_NODE_TOKEN
#define LSBUS_NODE_TOKEN "{8c2d9e41-5a3b-4f6c-b7d8-e9f0a1b2c3d4}"
#endif

typedef struct node {
    int32_t can_id, data_length, bitrate, corrupt, arbitration_lost_behavior;
    int32_t format, brs, fd_bitrate, last_rx_length, last_rx_sum, last_rx_code;
    int32_t wakeup_with, bus_off_from, bus_off_to, bus_off_status, wakeups;
    int32_t sec, sdt, vcid, af, xl_bitrate, pattern;
    int32_t last_rx_sec, last_rx_sdt, last_rx_vcid, last_rx_af, rx_data_ok;
    double last_wakeup_time;
    double period, offset;
    int32_t tx_frames, rx_frames, confirms, arbitration_lost, bus_errors, unknown_ops, last_rx_id;
    int32_t tx_lost; /* LSBUS_NODE_AT_STEP_END: ticks not read before the update */
    int32_t announce;
    double last_rx_time, last_confirm_time;
    model_binary tx_data, rx_data;
    bool tx_clock, rx_clock, tx_read, configured;
    uint32_t sent; /* frames composed so far: the next is due at offset + sent * period */
    /* Scheduled execution: the transmit task's countdown interval to the
     * next due time, and whether the importer has yet to read it. */
    double tx_interval;
    bool tx_interval_new, tx_interval_told;
} node;

enum { VR_RX_CLOCK = 100, VR_TX_CLOCK = 101, VR_TX_DATA = 16, VR_RX_DATA = 17 };

#define PAR(vr, name, type, field, start, description)                                       \
    {name, vr, type, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT, offsetof(node, field), \
     start, NULL, description, 0, {0, 0}}
#define OUT(vr, name, type, field, description)                                             \
    {name, vr, type, MODEL_OUTPUT, MODEL_DISCRETE, MODEL_INITIAL_DEFAULT, offsetof(node, field), \
     NULL, NULL, description, 0, {0, 0}}

static const model_variable variables[] = {
    {"time", 0, MODEL_FLOAT64, MODEL_INDEPENDENT, MODEL_CONTINUOUS, MODEL_INITIAL_DEFAULT, 0,
     NULL, "s", "Simulation time", 0, {0, 0}},
    PAR(1, "can_id", MODEL_INT32, can_id, "200", "identifier of the frames sent (11 bit)"),
    PAR(2, "data_length", MODEL_INT32, data_length, "0",
        "data bytes per frame (0..8; CAN FD: its lengths; CAN XL: 1..2048)"),
    PAR(3, "bitrate", MODEL_INT32, bitrate, "500000", "CAN_BAUDRATE configured (bit/s)"),
    PAR(4, "period", MODEL_FLOAT64, period, "0.001", "time between frames (s)"),
    PAR(5, "offset", MODEL_FLOAT64, offset, "0.001", "time of the first frame (s)"),
    OUT(6, "tx_frames", MODEL_INT32, tx_frames, "CAN Transmit ops sent"),
    OUT(7, "rx_frames", MODEL_INT32, rx_frames, "CAN Transmit ops received"),
    OUT(8, "confirms", MODEL_INT32, confirms, "Confirm ops received"),
    OUT(9, "arbitration_lost", MODEL_INT32, arbitration_lost, "Arbitration Lost ops received"),
    OUT(10, "bus_errors", MODEL_INT32, bus_errors, "Bus Error ops received"),
    OUT(11, "unknown_ops", MODEL_INT32, unknown_ops, "ops of other codes received"),
    OUT(12, "last_rx_id", MODEL_INT32, last_rx_id, "identifier of the latest frame received"),
    OUT(13, "last_rx_time", MODEL_FLOAT64, last_rx_time, "time of the latest frame received"),
    OUT(14, "last_confirm_time", MODEL_FLOAT64, last_confirm_time, "time of the latest Confirm"),
    {"frames_composed", 15, MODEL_INT32, MODEL_LOCAL, MODEL_DISCRETE, MODEL_INITIAL_DEFAULT,
     offsetof(node, sent), NULL, NULL, "frames composed", 0, {0, 0}},
    {"CAN.Tx_Data", VR_TX_DATA, MODEL_BINARY, MODEL_OUTPUT, MODEL_DISCRETE,
     MODEL_INITIAL_DEFAULT, offsetof(node, tx_data), NULL, NULL,
     "LS-BUS operations to the bus", 0, {0, 0}},
    {"CAN.Rx_Data", VR_RX_DATA, MODEL_BINARY, MODEL_INPUT, MODEL_DISCRETE, MODEL_INITIAL_DEFAULT,
     offsetof(node, rx_data), "", NULL, "LS-BUS operations from the bus", 0, {0, 0}},
    PAR(18, "corrupt", MODEL_INT32, corrupt, "0",
        "bad input for importers: 1 a Transmit whose length field says 4 bytes more than it "
        "has, 2 an op of the unknown code 0x0777 after each Transmit"),
    PAR(19, "arbitration_lost_behavior", MODEL_INT32, arbitration_lost_behavior, "0",
        "configured with the bit rate: 1 buffer and retransmit, 2 discard and notify, 0 none"),
    PAR(20, "format", MODEL_INT32, format, "0", "frames sent: 0 classic, 1 CAN FD, 2 CAN XL"),
    PAR(21, "brs", MODEL_INT32, brs, "0", "CAN FD: 1 switches to the data bit rate (BRS)"),
    PAR(22, "fd_bitrate", MODEL_INT32, fd_bitrate, "0",
        "CANFD_BAUDRATE configured when positive (bit/s)"),
    OUT(23, "last_rx_length", MODEL_INT32, last_rx_length,
        "data bytes of the latest frame received"),
    OUT(24, "last_rx_sum", MODEL_INT32, last_rx_sum, "sum of those bytes"),
    OUT(25, "last_rx_code", MODEL_INT32, last_rx_code,
        "op code of the latest Transmit received (0x10 CAN, 0x11 CAN FD, 0x12 CAN XL)"),
    PAR(26, "wakeup_with", MODEL_INT32, wakeup_with, "0",
        "a Wakeup op before the Transmit of this frame (1: the first; 0: none)"),
    PAR(27, "bus_off_from", MODEL_INT32, bus_off_from, "0",
        "a Status op of value bus_off_status before the Transmit of this frame (0: none)"),
    PAR(28, "bus_off_to", MODEL_INT32, bus_off_to, "0",
        "a Status op ERROR_ACTIVE (1) before the Transmit of this frame (0: none)"),
    PAR(29, "bus_off_status", MODEL_INT32, bus_off_status, "3",
        "the value of the first Status op: 3 BUS_OFF, 2 ERROR_PASSIVE (others: bad input)"),
    OUT(30, "wakeups", MODEL_INT32, wakeups, "Wakeup ops received"),
    OUT(31, "last_wakeup_time", MODEL_FLOAT64, last_wakeup_time,
        "time of the latest Wakeup received"),
    PAR(32, "sec", MODEL_INT32, sec, "0", "CAN XL: simple extended content bit (0, 1)"),
    PAR(33, "sdt", MODEL_INT32, sdt, "0", "CAN XL: SDU type (0..255)"),
    PAR(34, "vcid", MODEL_INT32, vcid, "0", "CAN XL: virtual CAN network id (0..255)"),
    PAR(35, "af", MODEL_INT32, af, "0", "CAN XL: acceptance field (32 bit)"),
    PAR(36, "xl_bitrate", MODEL_INT32, xl_bitrate, "0",
        "CANXL_BAUDRATE configured when positive (bit/s)"),
    PAR(37, "pattern", MODEL_INT32, pattern, "0",
        "data bytes: 0 11 22 .. 88 repeated, 1 byte i of the k-th frame (7 i + 1 + k) mod 256"),
    OUT(38, "last_rx_sec", MODEL_INT32, last_rx_sec,
        "SEC of the latest frame received (0 unless CAN XL)"),
    OUT(39, "last_rx_sdt", MODEL_INT32, last_rx_sdt, "its SDT (0 unless CAN XL)"),
    OUT(40, "last_rx_vcid", MODEL_INT32, last_rx_vcid, "its VCID (0 unless CAN XL)"),
    OUT(41, "last_rx_af", MODEL_INT32, last_rx_af, "its AF (0 unless CAN XL)"),
    OUT(42, "rx_data_ok", MODEL_INT32, rx_data_ok,
        "1 when its bytes are pattern's for its length and the frames received before it"),
    OUT(43, "tx_lost", MODEL_INT32, tx_lost,
        "LsBusNodeStepEnd: Tx_Clock ticks the importer had not read before "
        "fmi3UpdateDiscreteStates (their ops are dropped)"),
    PAR(44, "announce", MODEL_INT32, announce, "1",
        "1 announces the next frame's time (nextEventTime); 0 does not, as the FMI-LS-BUS "
        "demo nodes: the importer must step it to each frame's time"),
};

#ifdef LSBUS_NODE_SE
/* Scheduled execution (se.c): two model partitions, the receive interrupt
 * (Rx_Clock, triggered, priority 1) and the transmit task (priority 2), an
 * input countdown clock: it ticks at the start (interval 0: the
 * Configuration, and a frame when offset is 0), then at each frame's due
 * time offset + k period, the FMU announcing the interval to the next one
 * with clockUpdate after each tick (FMI 3.0 sections 2.2.8, 5.2.2). */
enum { VR_TX_TASK = 102 };
static const se_clock_def clocks[] = {
    {"CAN.Rx_Clock", VR_RX_CLOCK, true, "triggered", NULL, NULL, 1, "Rx_Data is new"},
    {"CAN.Tx_Clock", VR_TX_CLOCK, false, "triggered", NULL, NULL, -1, "Tx_Data is new"},
    {"tx_task", VR_TX_TASK, true, "countdown", NULL, NULL, 2,
     "composes a frame at offset + k period"},
};
#else
static const se_clock_def clocks[] = {
    {"CAN.Rx_Clock", VR_RX_CLOCK, true, "triggered", NULL, NULL, -1, "Rx_Data is new"},
    {"CAN.Tx_Clock", VR_TX_CLOCK, false, "triggered", NULL, NULL, -1, "Tx_Data is new"},
};
#endif

static const se_clocked_def clocked[] = {{VR_TX_DATA, "101"}, {VR_RX_DATA, "100"}};

/* LS-BUS 1.0 section 5.2.1: the buffers hold the ops of one tick. Rx_Data
 * takes 48 bytes: two peers' Transmits without data (16 each) and a Confirm
 * (12) fit, two peers' 8-byte frames (24 each) do not, which the importer
 * refuses (maxSize, FMI 3.0 section 2.4.7.3): a test of that path. */
#define MIME "application/org.fmi-standard.fmi-ls-bus.can; version=\"1.0.0\""
static const se_binary_def binaries[] = {{VR_TX_DATA, LSBUS_BUFFER_MAX, MIME},
                                         {VR_RX_DATA, LSBUS_NODE_RX_MAX, MIME}};

static bool append(model_instance *inst, node *d, const uint8_t *op, size_t size)
{
    d->tx_clock = true;
    return lsbus_append(inst, &d->tx_data, &d->tx_read, op, size);
}

/* Byte i of the k-th frame (0 the first) of `pattern`. */
static uint8_t data_byte(const node *d, size_t i, uint32_t k)
{
    return d->pattern ? (uint8_t)(7u * i + 1u + k) : (uint8_t)(0x11 * (i % 8 + 1));
}

/* Section 5.5.1.2 Configuration: kind u8, then a u32 baud rate (13 bytes)
 * or a one-byte value (10 bytes, ARBITRATION_LOST_BEHAVIOR). */
static bool configure(model_instance *inst, node *d, uint8_t kind, uint32_t value, size_t size)
{
    uint8_t op[13];
    lsbus_put_u32(lsbus_put_u32(op, 0x40), (uint32_t)size);
    op[8] = kind;
    lsbus_put_u32(op + 9, value); /* little-endian: a one-byte value is op[9] */
    return append(inst, d, op, size);
}

static bool same_time(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (fabs(a) > 1.0 ? fabs(a) : 1.0);
}

static model_status receive(model_instance *inst, node *d, double time)
{
    const uint8_t *p = d->rx_data.data;
    size_t left = d->rx_data.size;
    while (left >= 8) {
        uint32_t code = lsbus_get_u32(p), length = lsbus_get_u32(p + 4);
        if (length < 8 || length > left) {
            model_log(inst, MODEL_LOG_STATUS_ERROR,
                      "Rx_Data: op 0x%04x at byte %zu has length %u past the buffer's %zu bytes",
                      code, d->rx_data.size - left, length, d->rx_data.size);
            return MODEL_ERROR;
        }
        switch (code) {
        case 0x10: /* CAN Transmit: id u32, ide u8, rtr u8, dataLength u16, data */
        case 0x11: /* CAN FD Transmit: id u32, ide u8, brs u8, esi u8, dataLength u16, data */
        case 0x12: { /* CAN XL Transmit: id u32, ide, sec, sdt, vcid u8, af u32,
                        dataLength u16, data */
            size_t at = code == 0x10 ? 14 : code == 0x11 ? 15 : 20;
            const uint32_t k = (uint32_t)d->rx_frames++;
            d->last_rx_id = length >= 12 ? (int32_t)lsbus_get_u32(p + 8) : -1;
            d->last_rx_time = time;
            d->last_rx_code = (int32_t)code;
            d->last_rx_sec = d->last_rx_sdt = d->last_rx_vcid = d->last_rx_af = 0;
            if (code == 0x12 && length >= 20) {
                d->last_rx_sec = p[13];
                d->last_rx_sdt = p[14];
                d->last_rx_vcid = p[15];
                d->last_rx_af = (int32_t)lsbus_get_u32(p + 16);
            }
            d->last_rx_length = 0;
            d->last_rx_sum = 0;
            d->rx_data_ok = 0;
            if (length >= at + 2) {
                size_t n = (size_t)(p[at] | p[at + 1] << 8);
                /* a length field that disagrees with the op's is not the pattern */
                d->rx_data_ok = at + 2 + n == length;
                for (size_t i = 0; i < n && at + 2 + i < length; i++) {
                    d->last_rx_sum += p[at + 2 + i];
                    d->rx_data_ok = d->rx_data_ok && p[at + 2 + i] == data_byte(d, i, k);
                }
                d->last_rx_length = (int32_t)n;
            }
            break;
        }
        case 0x20: /* Confirm: id u32 */
            d->confirms++;
            d->last_confirm_time = time;
            break;
        case 0x30: d->arbitration_lost++; break;
        case 0x40: break; /* a peer's Configuration (direct communication): for a bus */
        case 0x31: d->bus_errors++; break;
        case 0x42: /* Wakeup: the header alone */
            d->wakeups++;
            d->last_wakeup_time = time;
            break;
        default: d->unknown_ops++; break;
        }
        p += length;
        left -= length;
    }
    return MODEL_OK;
}

static model_status compose_due(model_instance *inst, node *d, double time);

static model_status event_update(model_instance *inst, void *data, model_event_result *result)
{
    node *d = data;
    const double time = model_time(inst);
#ifdef LSBUS_NODE_AT_STEP_END
    /* as the FMI-LS-BUS demo nodes: Tx_Clock and Tx_Data were to be read
     * before fmi3UpdateDiscreteStates, which deactivates the clock; what
     * was not is lost */
    if (d->tx_clock) {
        d->tx_clock = false;
        d->tx_read = true;
        d->tx_lost++;
    }
#endif
    if (d->rx_clock) {
        d->rx_clock = false;
        model_status s = receive(inst, d, time);
        if (s != MODEL_OK)
            return s;
    }
    if (!d->configured) {
        /* kinds CAN_BAUDRATE 0x01, ARBITRATION_LOST_BEHAVIOR 0x04,
         * CANFD_BAUDRATE 0x02, CANXL_BAUDRATE 0x03 */
        if (!configure(inst, d, 0x01, (uint32_t)d->bitrate, 13) ||
            (d->arbitration_lost_behavior &&
             !configure(inst, d, 0x04, (uint32_t)d->arbitration_lost_behavior, 10)) ||
            (d->fd_bitrate > 0 && !configure(inst, d, 0x02, (uint32_t)d->fd_bitrate, 13)) ||
            (d->xl_bitrate > 0 && !configure(inst, d, 0x03, (uint32_t)d->xl_bitrate, 13)))
            return MODEL_ERROR;
        d->configured = true;
    }
#ifdef LSBUS_NODE_AT_STEP_END
    /* (composed at the step's end, read before this update or lost) */
#else
    if (compose_due(inst, d, time) != MODEL_OK)
        return MODEL_ERROR;
#endif
    result->next_event_time_defined = d->announce != 0;
    result->next_event_time = d->offset + d->sent * d->period;
    return MODEL_OK;
}

/* The frame due at `time` (offset + sent period), if it is. */
static model_status compose_due(model_instance *inst, node *d, double time)
{
    double due = d->offset + d->sent * d->period;
    if (time > due || same_time(time, due)) {
        /* Status (section 5.5.1.2: status u8, 9 bytes) and Wakeup (8 bytes)
         * before the Transmit of frame number sent + 1 */
        const int32_t number = (int32_t)d->sent + 1;
        if (number == d->bus_off_from || number == d->bus_off_to) {
            uint8_t status[9];
            lsbus_put_u32(lsbus_put_u32(status, 0x41), sizeof status);
            status[8] = (uint8_t)(number == d->bus_off_from ? d->bus_off_status : 1);
            if (!append(inst, d, status, sizeof status))
                return MODEL_ERROR;
        }
        if (number == d->wakeup_with) {
            uint8_t wakeup[8];
            lsbus_put_u32(lsbus_put_u32(wakeup, 0x42), sizeof wakeup);
            if (!append(inst, d, wakeup, sizeof wakeup))
                return MODEL_ERROR;
        }
        uint8_t op[22 + 2048];
        size_t n = (size_t)d->data_length;
        /* the fixed part: 16 (CAN), 17 (CAN FD), 22 (CAN XL) bytes */
        size_t fixed = d->format == 1 ? 17 : d->format == 2 ? 22 : 16;
        memset(op, 0, fixed);
        lsbus_put_u32(lsbus_put_u32(op, 0x10u + (uint32_t)d->format),
                      (uint32_t)(fixed + n + (d->corrupt == 1 ? 4 : 0)));
        lsbus_put_u32(op + 8, (uint32_t)d->can_id);
        /* ide 0; CAN: rtr 0; CAN FD: brs, esi 0; CAN XL: sec, sdt, vcid u8, af u32 */
        if (d->format == 1)
            op[13] = (uint8_t)(d->brs != 0);
        if (d->format == 2) {
            op[13] = (uint8_t)d->sec;
            op[14] = (uint8_t)d->sdt;
            op[15] = (uint8_t)d->vcid;
            lsbus_put_u32(op + 16, (uint32_t)d->af);
        }
        op[fixed - 2] = (uint8_t)n;
        op[fixed - 1] = (uint8_t)(n >> 8);
        for (size_t i = 0; i < n; i++)
            op[fixed + i] = data_byte(d, i, d->sent);
        if (!append(inst, d, op, fixed + n))
            return MODEL_ERROR;
        if (d->corrupt == 2) {
            uint8_t unknown[12] = {0};
            lsbus_put_u32(lsbus_put_u32(unknown, 0x0777), sizeof unknown);
            if (!append(inst, d, unknown, sizeof unknown))
                return MODEL_ERROR;
        }
        d->tx_frames++;
        d->sent++;
    }
    return MODEL_OK;
}

/* Nothing continuous: a step ends early only at the next frame's time. */
static model_status step_to_event(model_instance *inst, void *data, double t, double h,
                                  double *reached, bool *event)
{
    (void)inst;
    node *d = data;
    double due = d->offset + d->sent * d->period;
    *event = due <= t + h || same_time(due, t + h);
    *reached = *event ? (due > t ? due : t) : t + h;
#ifdef LSBUS_NODE_AT_STEP_END
    /* the frame composed and Tx_Clock ticked at the step's end, as the
     * FMI-LS-BUS demo nodes do in fmi3DoStep */
    if (*event && d->configured)
        return compose_due(inst, d, *reached);
#else
    (void)inst;
#endif
    return MODEL_OK;
}

static model_status do_step(model_instance *inst, void *data, double t, double h)
{
    (void)inst, (void)data, (void)t, (void)h;
    return MODEL_OK; /* not used: step_to_event is set */
}

static model_status get_clock(model_instance *inst, void *data, uint32_t clock, bool *ticked)
{
    (void)inst;
    node *d = data;
    if (clock != VR_TX_CLOCK)
        return MODEL_ERROR;
    *ticked = d->tx_clock;
    if (d->tx_clock)
        d->tx_read = true; /* Tx_Data is read with it; the next op starts a new buffer */
    d->tx_clock = false;
    return MODEL_OK;
}

#ifndef LSBUS_NODE_SE
static model_status set_clock(model_instance *inst, void *data, uint32_t clock, bool ticked)
{
    (void)inst;
    node *d = data;
    if (clock != VR_RX_CLOCK)
        return MODEL_ERROR;
    d->rx_clock |= ticked;
    return MODEL_OK;
}
#endif

static model_status check(model_instance *inst, void *data)
{
    node *d = data;
    static const int32_t fd_lengths[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 20, 24, 32, 48, 64};
    bool length_ok = d->format == 0 ? d->data_length >= 0 && d->data_length <= 8
                     : d->format == 2 ? d->data_length >= 1 && d->data_length <= 2048
                                      : false;
    for (size_t i = 0; d->format == 1 && i < sizeof fd_lengths / sizeof *fd_lengths; i++)
        length_ok = length_ok || d->data_length == fd_lengths[i];
    if (!length_ok || d->format < 0 || d->format > 2) {
        model_log(inst, MODEL_LOG_STATUS_ERROR,
                  "format must be 0 (classic), 1 (CAN FD) or 2 (CAN XL), data_length 0..8, a CAN "
                  "FD length or 1..2048 for it");
        return MODEL_ERROR;
    }
    if (d->period <= 0 || d->bitrate <= 0 ||
        d->can_id < 0 || d->can_id > 0x7FF || d->arbitration_lost_behavior < 0 ||
        d->arbitration_lost_behavior > 2) {
        model_log(inst, MODEL_LOG_STATUS_ERROR,
                  "can_id must be 0..0x7FF, arbitration_lost_behavior 0..2, period and "
                  "bitrate > 0");
        return MODEL_ERROR;
    }
    if (d->sec < 0 || d->sec > 1 || d->sdt < 0 || d->sdt > 255 || d->vcid < 0 || d->vcid > 255 ||
        d->xl_bitrate < 0 || d->pattern < 0 || d->pattern > 1) {
        model_log(inst, MODEL_LOG_STATUS_ERROR,
                  "sec must be 0..1, sdt and vcid 0..255, xl_bitrate >= 0, pattern 0..1");
        return MODEL_ERROR;
    }
    return MODEL_OK;
}

static void initialize(model_instance *inst, void *data)
{
    (void)inst, (void)data;
}

const model_def model_definition = {
    .model_name = "LsBusNode",
    .description = "FMI-LS-BUS CAN node: Configuration after initialization, a frame every period",
    .instantiation_token = LSBUS_NODE_TOKEN,
    .variables = variables,
    .variable_count = sizeof variables / sizeof variables[0],
    .data_size = sizeof(node),
    .check = check,
    .initialize = initialize,
    .do_step = do_step,
    .event_update = event_update,
    .step_to_event = step_to_event,
    .default_start_time = 0.0,
    .default_stop_time = 0.01,
    .default_step_size = 0.001,
};

#ifdef LSBUS_NODE_SE
/* The partitions: the receive interrupt counts what Rx_Data brings; the
 * transmit task composes what event_update composes at a time event (the
 * Configuration at its first tick, then a Transmit per tick) and ticks
 * Tx_Clock through clockUpdate (FMI 3.0 section 5.2.2). */
static model_status activate(model_instance *inst, void *data, uint32_t clock, double time)
{
    node *d = data;
    if (clock == VR_RX_CLOCK)
        return receive(inst, d, time);
    if (clock != VR_TX_TASK)
        return MODEL_ERROR;
    model_event_result r = {0};
    model_status s = event_update(inst, data, &r);
    if (s > MODEL_WARNING)
        return s;
    /* the next due time, offset + sent * period, is after this tick */
    d->tx_interval = r.next_event_time > time ? r.next_event_time - time : 0.0;
    d->tx_interval_new = true;
    se_clock_update(inst); /* Tx_Clock and the countdown's new interval */
    return s;
}

/* fmi3GetIntervalDecimal of tx_task: 0 in Initialization Mode (the first
 * tick at the start), then the interval announced by the latest tick, once
 * (qualifier 2 changed, then 1 unchanged). */
static model_status get_interval(model_instance *inst, void *data, uint32_t clock,
                                 double *interval, int *qualifier)
{
    (void)inst;
    node *d = data;
    if (clock != VR_TX_TASK)
        return MODEL_ERROR;
    if (!d->tx_interval_told) {
        d->tx_interval_told = true;
        *interval = 0.0;
        *qualifier = 2;
    } else if (d->tx_interval_new) {
        d->tx_interval_new = false;
        *interval = d->tx_interval;
        *qualifier = 2;
    } else {
        *qualifier = 1;
    }
    return MODEL_OK;
}
#endif

const se_model_def se_model_definition = {
#ifdef LSBUS_NODE_SE
    .activate = activate,
    .get_interval = get_interval,
#else
    .set_clock = set_clock,
#endif
    .clocks = clocks,
    .clock_count = sizeof clocks / sizeof clocks[0],
    .clocked = clocked,
    .clocked_count = sizeof clocked / sizeof clocked[0],
    .binaries = binaries,
    .binary_count = sizeof binaries / sizeof binaries[0],
    .get_clock = get_clock,
};
