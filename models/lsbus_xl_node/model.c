/* LsBusXlNode: a CAN XL node of FMI-LS-BUS 1.0 (section 5.5.1) as FMI 3.0
 * co-simulation with Event Mode and clocks, terminal "CAN" as LsBusNode's.
 * At its first event it configures CAN_BAUDRATE and, when xl_bitrate > 0,
 * CANXL_BAUDRATE; then at offset + k period it sends a CAN XL Transmit of
 * priority `can_id` with `data_length` bytes (byte i is (7 i + 1 + k) mod
 * 256 for the k-th frame) and its SEC, SDT, VCID, AF. It reports the latest
 * CAN XL frame it received field by field, whether its bytes are the
 * pattern of its length and sequence (rx_data_ok), and its Confirms. Rx_Data
 * and Tx_Data hold 4096 bytes: a 2048-byte frame's op is 2070. With fd = 1
 * it sends CAN FD Transmits (`brs`, the same pattern, 1-64 bytes) and
 * reports received CAN FD frames the same way (SEC, SDT, VCID, AF 0). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lsbus_ops.h"
#include "se_model.h"

#define XL_BUFFER_MAX 4096

typedef struct node {
    int32_t can_id, data_length, sec, sdt, vcid, af, bitrate, xl_bitrate, fd, brs;
    double period, offset;
    int32_t tx_frames, rx_frames, confirms, other_ops, last_rx_id, last_rx_length, last_rx_sec,
        last_rx_sdt, last_rx_vcid, last_rx_af, rx_data_ok;
    double last_rx_time, last_confirm_time;
    model_binary tx_data, rx_data;
    bool tx_clock, rx_clock, tx_read, configured;
    uint32_t sent;
} node;

enum { VR_TX_DATA = 24, VR_RX_DATA = 25, VR_RX_CLOCK = 100, VR_TX_CLOCK = 101 };

#define PAR(vr, name, field, start, description)                                               \
    {name, vr, MODEL_INT32, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT,                 \
     offsetof(node, field), start, NULL, description, 0, {0, 0}}
#define OUT(vr, name, type, field, description)                                                \
    {name, vr, type, MODEL_OUTPUT, MODEL_DISCRETE, MODEL_INITIAL_DEFAULT, offsetof(node, field), \
     NULL, NULL, description, 0, {0, 0}}

static const model_variable variables[] = {
    {"time", 0, MODEL_FLOAT64, MODEL_INDEPENDENT, MODEL_CONTINUOUS, MODEL_INITIAL_DEFAULT, 0,
     NULL, "s", "Simulation time", 0, {0, 0}},
    PAR(1, "can_id", can_id, "1365", "priority identifier of the frames sent (11 bit)"),
    PAR(2, "data_length", data_length, "2048", "data bytes per frame (1..2048)"),
    PAR(3, "sec", sec, "0", "simple extended content bit (0, 1)"),
    PAR(4, "sdt", sdt, "3", "SDU type (0..255)"),
    PAR(5, "vcid", vcid, "69", "virtual CAN network id (0..255)"),
    PAR(6, "af", af, "305419896", "acceptance field (32 bit)"),
    PAR(7, "bitrate", bitrate, "500000", "CAN_BAUDRATE configured (bit/s)"),
    PAR(8, "xl_bitrate", xl_bitrate, "0", "CANXL_BAUDRATE configured (bit/s; 0: none)"),
    {"period", 9, MODEL_FLOAT64, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT,
     offsetof(node, period), "0.001", NULL, "time between frames (s)", 0, {0, 0}},
    {"offset", 10, MODEL_FLOAT64, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT,
     offsetof(node, offset), "0.001", NULL, "time of the first frame (s)", 0, {0, 0}},
    OUT(11, "tx_frames", MODEL_INT32, tx_frames, "CAN XL Transmit ops sent"),
    OUT(12, "rx_frames", MODEL_INT32, rx_frames, "CAN XL Transmit ops received"),
    OUT(13, "confirms", MODEL_INT32, confirms, "Confirm ops received"),
    OUT(14, "other_ops", MODEL_INT32, other_ops, "ops of other codes received"),
    OUT(15, "last_rx_id", MODEL_INT32, last_rx_id, "priority id of the latest frame received"),
    OUT(16, "last_rx_length", MODEL_INT32, last_rx_length, "its data bytes"),
    OUT(17, "last_rx_sec", MODEL_INT32, last_rx_sec, "its SEC"),
    OUT(18, "last_rx_sdt", MODEL_INT32, last_rx_sdt, "its SDT"),
    OUT(19, "last_rx_vcid", MODEL_INT32, last_rx_vcid, "its VCID"),
    OUT(20, "last_rx_af", MODEL_INT32, last_rx_af, "its AF"),
    OUT(21, "rx_data_ok", MODEL_INT32, rx_data_ok,
        "1 when its bytes are the sender's pattern for its length and the frames received"),
    OUT(22, "last_rx_time", MODEL_FLOAT64, last_rx_time, "time of the latest frame received"),
    OUT(23, "last_confirm_time", MODEL_FLOAT64, last_confirm_time, "time of the latest Confirm"),
    {"CAN.Tx_Data", VR_TX_DATA, MODEL_BINARY, MODEL_OUTPUT, MODEL_DISCRETE,
     MODEL_INITIAL_DEFAULT, offsetof(node, tx_data), NULL, NULL,
     "LS-BUS operations to the bus", 0, {0, 0}},
    {"CAN.Rx_Data", VR_RX_DATA, MODEL_BINARY, MODEL_INPUT, MODEL_DISCRETE, MODEL_INITIAL_DEFAULT,
     offsetof(node, rx_data), "", NULL, "LS-BUS operations from the bus", 0, {0, 0}},
    PAR(26, "fd", fd, "0", "1: send CAN FD Transmits instead (data_length a CAN FD length)"),
    PAR(27, "brs", brs, "1", "CAN FD: bit rate switch (0, 1)"),
};

static const se_clock_def clocks[] = {
    {"CAN.Rx_Clock", VR_RX_CLOCK, true, "triggered", NULL, NULL, -1, "Rx_Data is new"},
    {"CAN.Tx_Clock", VR_TX_CLOCK, false, "triggered", NULL, NULL, -1, "Tx_Data is new"},
};
static const se_clocked_def clocked[] = {{VR_TX_DATA, "101"}, {VR_RX_DATA, "100"}};
#define MIME "application/org.fmi-standard.fmi-ls-bus.can; version=\"1.0.0\""
static const se_binary_def binaries[] = {{VR_TX_DATA, XL_BUFFER_MAX, MIME},
                                         {VR_RX_DATA, XL_BUFFER_MAX, MIME}};

static uint8_t pattern_byte(uint32_t i, uint32_t k)
{
    return (uint8_t)(7u * i + 1u + k);
}

/* The ops of one Tx_Clock tick: a buffer the importer read starts over. */
static bool append(model_instance *inst, node *d, const uint8_t *op, size_t size)
{
    uint8_t joined[XL_BUFFER_MAX];
    size_t used = d->tx_read ? 0 : d->tx_data.size;
    if (used + size > sizeof joined)
        used = 0; /* nobody reads Tx_Data: drop what is unread */
    if (size > sizeof joined)
        return false;
    if (used)
        memcpy(joined, d->tx_data.data, used);
    memcpy(joined + used, op, size);
    d->tx_read = false;
    d->tx_clock = true;
    return model_set_binary(inst, &d->tx_data, joined, used + size);
}

static bool configure(model_instance *inst, node *d, uint8_t kind, uint32_t rate)
{
    /* Configuration (0x40), a baud-rate kind: 13 bytes */
    uint8_t op[13];
    lsbus_put_u32(lsbus_put_u32(op, 0x40), sizeof op);
    op[8] = kind;
    lsbus_put_u32(op + 9, rate);
    return append(inst, d, op, sizeof op);
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
        if (code == 0x11 && length >= 17) {
            /* CAN FD Transmit: id u32, ide, brs, esi u8, dataLength u16, data */
            uint32_t n = (uint32_t)p[15] | (uint32_t)p[16] << 8;
            d->last_rx_id = (int32_t)lsbus_get_u32(p + 8);
            d->last_rx_sec = d->last_rx_sdt = d->last_rx_vcid = d->last_rx_af = 0;
            d->last_rx_length = (int32_t)n;
            d->rx_data_ok = 17 + n == length;
            for (uint32_t i = 0; d->rx_data_ok && i < n; i++)
                d->rx_data_ok = p[17 + i] == pattern_byte(i, (uint32_t)d->rx_frames);
            d->rx_frames++;
            d->last_rx_time = time;
        } else if (code == 0x12 && length >= 22) {
            /* CAN XL Transmit: id u32, ide, sec, sdt, vcid u8, af u32,
             * dataLength u16, data */
            uint32_t n = (uint32_t)p[20] | (uint32_t)p[21] << 8;
            d->last_rx_id = (int32_t)lsbus_get_u32(p + 8);
            d->last_rx_sec = p[13];
            d->last_rx_sdt = p[14];
            d->last_rx_vcid = p[15];
            d->last_rx_af = (int32_t)lsbus_get_u32(p + 16);
            d->last_rx_length = (int32_t)n;
            d->rx_data_ok = 22 + n == length;
            for (uint32_t i = 0; d->rx_data_ok && i < n; i++)
                d->rx_data_ok = p[22 + i] == pattern_byte(i, (uint32_t)d->rx_frames);
            d->rx_frames++;
            d->last_rx_time = time;
        } else if (code == 0x20) {
            d->confirms++;
            d->last_confirm_time = time;
        } else {
            d->other_ops++;
        }
        p += length;
        left -= length;
    }
    return MODEL_OK;
}

static bool same_time(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (fabs(a) > 1.0 ? fabs(a) : 1.0);
}

static model_status event_update(model_instance *inst, void *data, model_event_result *result)
{
    node *d = data;
    const double time = model_time(inst);
    if (d->rx_clock) {
        d->rx_clock = false;
        model_status s = receive(inst, d, time);
        if (s != MODEL_OK)
            return s;
    }
    if (!d->configured) {
        if (!configure(inst, d, 0x01, (uint32_t)d->bitrate) ||
            (d->xl_bitrate > 0 && !configure(inst, d, 0x03, (uint32_t)d->xl_bitrate)))
            return MODEL_ERROR;
        d->configured = true;
    }
    double due = d->offset + d->sent * d->period;
    if (time > due || same_time(time, due)) {
        uint8_t op[22 + 2048];
        uint32_t n = (uint32_t)d->data_length;
        if (d->fd) {
            lsbus_put_u32(lsbus_put_u32(op, 0x11), 17 + n);
            lsbus_put_u32(op + 8, (uint32_t)d->can_id);
            op[12] = 0; /* ide */
            op[13] = (uint8_t)d->brs;
            op[14] = 0; /* esi */
            op[15] = (uint8_t)n;
            op[16] = (uint8_t)(n >> 8);
            for (uint32_t i = 0; i < n; i++)
                op[17 + i] = pattern_byte(i, d->sent);
            if (!append(inst, d, op, 17 + n))
                return MODEL_ERROR;
            d->tx_frames++;
            d->sent++;
            result->next_event_time_defined = true;
            result->next_event_time = d->offset + d->sent * d->period;
            return MODEL_OK;
        }
        lsbus_put_u32(lsbus_put_u32(op, 0x12), 22 + n);
        lsbus_put_u32(op + 8, (uint32_t)d->can_id);
        op[12] = 0; /* ide */
        op[13] = (uint8_t)d->sec;
        op[14] = (uint8_t)d->sdt;
        op[15] = (uint8_t)d->vcid;
        lsbus_put_u32(op + 16, (uint32_t)d->af);
        op[20] = (uint8_t)n;
        op[21] = (uint8_t)(n >> 8);
        for (uint32_t i = 0; i < n; i++)
            op[22 + i] = pattern_byte(i, d->sent);
        if (!append(inst, d, op, 22 + n))
            return MODEL_ERROR;
        d->tx_frames++;
        d->sent++;
        due = d->offset + d->sent * d->period;
    }
    result->next_event_time_defined = true;
    result->next_event_time = due;
    return MODEL_OK;
}

static model_status step_to_event(model_instance *inst, void *data, double t, double h,
                                  double *reached, bool *event)
{
    (void)inst;
    node *d = data;
    double due = d->offset + d->sent * d->period;
    *event = due <= t + h || same_time(due, t + h);
    *reached = *event ? (due > t ? due : t) : t + h;
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
        d->tx_read = true;
    d->tx_clock = false;
    return MODEL_OK;
}

static model_status set_clock(model_instance *inst, void *data, uint32_t clock, bool ticked)
{
    (void)inst;
    node *d = data;
    if (clock != VR_RX_CLOCK)
        return MODEL_ERROR;
    d->rx_clock |= ticked;
    return MODEL_OK;
}

static model_status check(model_instance *inst, void *data)
{
    node *d = data;
    if (d->data_length < 1 || d->data_length > 2048 || d->period <= 0 || d->bitrate <= 0 ||
        d->xl_bitrate < 0 || d->can_id < 0 || d->can_id > 0x7FF || d->sec < 0 || d->sec > 1 ||
        d->sdt < 0 || d->sdt > 255 || d->vcid < 0 || d->vcid > 255 || d->fd < 0 || d->fd > 1 ||
        d->brs < 0 || d->brs > 1 || (d->fd && d->data_length > 64)) {
        model_log(inst, MODEL_LOG_STATUS_ERROR,
                  "data_length must be 1..2048 (CAN FD: up to 64), can_id 0..0x7FF, sec, fd and "
                  "brs 0..1, sdt and vcid 0..255, period and bitrate > 0, xl_bitrate >= 0");
        return MODEL_ERROR;
    }
    return MODEL_OK;
}

static void initialize(model_instance *inst, void *data)
{
    (void)inst, (void)data;
}

const model_def model_definition = {
    .model_name = "LsBusXlNode",
    .description = "FMI-LS-BUS CAN XL node: Configuration after initialization, a frame every "
                   "period",
    .instantiation_token = "{5e1f0c3a-7b2d-4e8f-9a6c-0d1b2c3e4f5a}",
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

const se_model_def se_model_definition = {
    .set_clock = set_clock,
    .clocks = clocks,
    .clock_count = sizeof clocks / sizeof clocks[0],
    .clocked = clocked,
    .clocked_count = sizeof clocked / sizeof clocked[0],
    .binaries = binaries,
    .binary_count = sizeof binaries / sizeof binaries[0],
    .get_clock = get_clock,
};
