/* FMI-LS-BUS 1.0 CAN operations in and out of an operation buffer: the
 * packed little-endian layouts of LS-BUS 1.0 sections 5.2 and 5.5.1.2, written byte by
 * byte (no struct overlays, so alignment and host byte order never matter),
 * and a reader that trusts no length field it has not checked. */
#include <inttypes.h>
#include <string.h>

#include "rtcosim/log.h"
#include "rtcosim/lsbus.h"
#include "lsbus_internal.h"

/* Fixed part of each operation, header included (LS-BUS 1.0 table "Overview
 * of the available operations for CAN, CAN FD and CAN XL"): Transmit is
 * 16 / 17 / 22 + data length, Format Error 10 + data length, Configuration
 * 9 + the parameter (4-byte baud rate or 1-byte behaviour). */
enum {
    SIZE_CAN_TRANSMIT = 16,
    SIZE_CANFD_TRANSMIT = 17,
    SIZE_CANXL_TRANSMIT = 22,
    SIZE_ID_ONLY = 12,
    SIZE_BUS_ERROR = 15,
    SIZE_CONFIG_FIXED = 9,
    SIZE_STATUS = 9,
    SIZE_WAKEUP = 8,
    SIZE_FORMAT_ERROR = 10,
};

const char *rtcosim_lsbus_op_name(uint32_t code)
{
    switch (code) {
    case RTCOSIM_LSBUS_OP_FORMAT_ERROR: return "Format Error";
    case RTCOSIM_LSBUS_OP_CAN_TRANSMIT: return "CAN Transmit";
    case RTCOSIM_LSBUS_OP_CANFD_TRANSMIT: return "CAN FD Transmit";
    case RTCOSIM_LSBUS_OP_CANXL_TRANSMIT: return "CAN XL Transmit";
    case RTCOSIM_LSBUS_OP_CAN_CONFIRM: return "Confirm";
    case RTCOSIM_LSBUS_OP_CAN_ARBITRATION_LOST: return "Arbitration Lost";
    case RTCOSIM_LSBUS_OP_CAN_BUS_ERROR: return "Bus Error";
    case RTCOSIM_LSBUS_OP_CAN_CONFIGURATION: return "Configuration";
    case RTCOSIM_LSBUS_OP_CAN_STATUS: return "Status";
    case RTCOSIM_LSBUS_OP_CAN_WAKEUP: return "Wakeup";
    default: return "unknown";
    }
}

static bool config_is_baudrate(uint8_t kind)
{
    return kind == RTCOSIM_LSBUS_CAN_CONFIG_CAN_BAUDRATE ||
           kind == RTCOSIM_LSBUS_CAN_CONFIG_CANFD_BAUDRATE ||
           kind == RTCOSIM_LSBUS_CAN_CONFIG_CANXL_BAUDRATE;
}

/* Size of an op from its code and the variable parts; 0 for what cannot be
 * written (unknown code or configuration kind). */
static size_t op_size(uint32_t code, uint32_t data_length, uint8_t config_kind)
{
    switch (code) {
    case RTCOSIM_LSBUS_OP_FORMAT_ERROR: return SIZE_FORMAT_ERROR + (size_t)data_length;
    case RTCOSIM_LSBUS_OP_CAN_TRANSMIT: return SIZE_CAN_TRANSMIT + (size_t)data_length;
    case RTCOSIM_LSBUS_OP_CANFD_TRANSMIT: return SIZE_CANFD_TRANSMIT + (size_t)data_length;
    case RTCOSIM_LSBUS_OP_CANXL_TRANSMIT: return SIZE_CANXL_TRANSMIT + (size_t)data_length;
    case RTCOSIM_LSBUS_OP_CAN_CONFIRM:
    case RTCOSIM_LSBUS_OP_CAN_ARBITRATION_LOST: return SIZE_ID_ONLY;
    case RTCOSIM_LSBUS_OP_CAN_BUS_ERROR: return SIZE_BUS_ERROR;
    case RTCOSIM_LSBUS_OP_CAN_CONFIGURATION:
        if (config_is_baudrate(config_kind))
            return SIZE_CONFIG_FIXED + 4;
        if (config_kind == RTCOSIM_LSBUS_CAN_CONFIG_ARBITRATION_LOST_BEHAVIOR)
            return SIZE_CONFIG_FIXED + 1;
        return 0;
    case RTCOSIM_LSBUS_OP_CAN_STATUS: return SIZE_STATUS;
    case RTCOSIM_LSBUS_OP_CAN_WAKEUP: return SIZE_WAKEUP;
    default: return 0;
    }
}

static uint32_t op_data_length(const rtcosim_lsbus_op *op)
{
    switch (op->code) {
    case RTCOSIM_LSBUS_OP_FORMAT_ERROR: return op->u.format_error.data_length;
    case RTCOSIM_LSBUS_OP_CAN_TRANSMIT:
    case RTCOSIM_LSBUS_OP_CANFD_TRANSMIT:
    case RTCOSIM_LSBUS_OP_CANXL_TRANSMIT: return op->u.transmit.data_length;
    default: return 0;
    }
}

size_t rtcosim_lsbus_op_size(const rtcosim_lsbus_op *op)
{
    return op_size(op->code, op_data_length(op), op->u.configuration.kind);
}

static uint8_t *put_u8(uint8_t *p, uint8_t v)
{
    *p = v;
    return p + 1;
}
static uint8_t *put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    return p + 2;
}
static uint8_t *put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
    return p + 4;
}
static uint16_t get_u16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}
static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint8_t *put_data(uint8_t *p, const uint8_t *data, uint16_t n)
{
    p = put_u16(p, n);
    if (n)
        memcpy(p, data, n);
    return p + n;
}

rtcosim_status rtcosim_lsbus_write(uint8_t *buf, size_t capacity, size_t *used,
                                   const rtcosim_lsbus_op *op, rtcosim_error *err)
{
    const char *name = rtcosim_lsbus_op_name(op->code);
    size_t size = rtcosim_lsbus_op_size(op);
    if (size == 0) {
        if (op->code == RTCOSIM_LSBUS_OP_CAN_CONFIGURATION)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "LS-BUS Configuration: unknown"
                                     " parameter kind 0x%02X", op->u.configuration.kind);
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "LS-BUS: cannot write op code 0x%04" PRIX32
                                 " (not a CAN operation of LS-BUS 1.0)", op->code);
    }
    uint32_t data_length = op_data_length(op);
    const uint8_t *data = op->code == RTCOSIM_LSBUS_OP_FORMAT_ERROR ? op->u.format_error.data
                                                                     : op->u.transmit.data;
    if (data_length && !data)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "LS-BUS %s: data length %" PRIu32
                                 " without data", name, data_length);
    if (*used > capacity || capacity - *used < size)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "LS-BUS %s: %zu bytes do not fit in the"
                                 " %zu bytes left of the operation buffer", name, size,
                                 *used > capacity ? 0 : capacity - *used);
    uint8_t *p = buf + *used;
    p = put_u32(p, op->code);
    p = put_u32(p, (uint32_t)size);
    const rtcosim_lsbus_can_transmit *tx = &op->u.transmit;
    switch (op->code) {
    case RTCOSIM_LSBUS_OP_FORMAT_ERROR:
        p = put_data(p, op->u.format_error.data, op->u.format_error.data_length);
        break;
    case RTCOSIM_LSBUS_OP_CAN_TRANSMIT:
        p = put_u32(p, tx->id);
        p = put_u8(p, tx->ide);
        p = put_u8(p, tx->rtr);
        p = put_data(p, tx->data, tx->data_length);
        break;
    case RTCOSIM_LSBUS_OP_CANFD_TRANSMIT:
        p = put_u32(p, tx->id);
        p = put_u8(p, tx->ide);
        p = put_u8(p, tx->brs);
        p = put_u8(p, tx->esi);
        p = put_data(p, tx->data, tx->data_length);
        break;
    case RTCOSIM_LSBUS_OP_CANXL_TRANSMIT:
        p = put_u32(p, tx->id);
        p = put_u8(p, tx->ide);
        p = put_u8(p, tx->sec);
        p = put_u8(p, tx->sdt);
        p = put_u8(p, tx->vcid);
        p = put_u32(p, tx->af);
        p = put_data(p, tx->data, tx->data_length);
        break;
    case RTCOSIM_LSBUS_OP_CAN_CONFIRM:
    case RTCOSIM_LSBUS_OP_CAN_ARBITRATION_LOST:
        p = put_u32(p, op->u.id);
        break;
    case RTCOSIM_LSBUS_OP_CAN_BUS_ERROR:
        p = put_u32(p, op->u.bus_error.id);
        p = put_u8(p, op->u.bus_error.error_code);
        p = put_u8(p, op->u.bus_error.error_flag);
        p = put_u8(p, op->u.bus_error.is_sender);
        break;
    case RTCOSIM_LSBUS_OP_CAN_CONFIGURATION:
        p = put_u8(p, op->u.configuration.kind);
        if (config_is_baudrate(op->u.configuration.kind))
            p = put_u32(p, op->u.configuration.baudrate);
        else
            p = put_u8(p, op->u.configuration.arbitration_lost_behavior);
        break;
    case RTCOSIM_LSBUS_OP_CAN_STATUS:
        p = put_u8(p, op->u.status);
        break;
    default: /* Wakeup: the header alone */
        break;
    }
    *used += (size_t)(p - (buf + *used));
    return RTCOSIM_OK;
}

void rtcosim_lsbus_reader_init(rtcosim_lsbus_reader *r, const void *buf, size_t size)
{
    *r = (rtcosim_lsbus_reader){.buf = buf, .size = buf ? size : 0};
}

/* A variable-length op: its data length field at `offset` must account for
 * the rest of the length field exactly. */
static rtcosim_status read_data(const rtcosim_lsbus_reader *r, const uint8_t *p, uint32_t length,
                                size_t fixed, uint16_t *data_length, const uint8_t **data,
                                rtcosim_error *err)
{
    const char *name = rtcosim_lsbus_op_name(get_u32(p));
    if (length < fixed)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "LS-BUS %s at byte %zu: length field %"
                                 PRIu32 " is shorter than its %zu fixed bytes", name, r->pos,
                                 length, fixed);
    uint16_t n = get_u16(p + fixed - 2);
    if ((size_t)n + fixed != length)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "LS-BUS %s at byte %zu: data length field"
                                 " %u does not match length field %" PRIu32 " (expected %zu)",
                                 name, r->pos, n, length, fixed + (size_t)n);
    *data_length = n;
    *data = n ? p + fixed : NULL;
    return RTCOSIM_OK;
}

static rtcosim_status exact_length(const rtcosim_lsbus_reader *r, uint32_t code, uint32_t length,
                                   size_t expected, rtcosim_error *err)
{
    if (length == expected)
        return RTCOSIM_OK;
    return rtcosim_error_set(err, RTCOSIM_EFORMAT, "LS-BUS %s at byte %zu: length field %" PRIu32
                             " is not the operation's %zu bytes", rtcosim_lsbus_op_name(code),
                             r->pos, length, expected);
}

rtcosim_status rtcosim_lsbus_read(rtcosim_lsbus_reader *r, rtcosim_lsbus_op *op, bool *got,
                                  rtcosim_error *err)
{
    *got = false;
    if (r->pos >= r->size)
        return RTCOSIM_OK;
    size_t left = r->size - r->pos;
    const uint8_t *p = r->buf + r->pos;
    if (left < RTCOSIM_LSBUS_HEADER_SIZE)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "LS-BUS operation at byte %zu: %zu bytes"
                                 " left, fewer than the 8-byte header (opCode, length)", r->pos,
                                 left);
    uint32_t code = get_u32(p), length = get_u32(p + 4);
    const char *name = rtcosim_lsbus_op_name(code);
    if (length < RTCOSIM_LSBUS_HEADER_SIZE)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "LS-BUS %s (op code 0x%04" PRIX32 ") at"
                                 " byte %zu: length field %" PRIu32 " is shorter than the 8-byte"
                                 " header", name, code, r->pos, length);
    if (length > left)
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "LS-BUS %s (op code 0x%04" PRIX32 ") at"
                                 " byte %zu: length field %" PRIu32 " runs past the buffer (%zu"
                                 " bytes left)", name, code, r->pos, length, left);
    memset(op, 0, sizeof *op);
    op->code = code;
    op->length = length;
    op->bytes = p;
    op->known = true;
    rtcosim_lsbus_can_transmit *tx = &op->u.transmit;
    rtcosim_status st = RTCOSIM_OK;
    switch (code) {
    case RTCOSIM_LSBUS_OP_FORMAT_ERROR:
        st = read_data(r, p, length, SIZE_FORMAT_ERROR, &op->u.format_error.data_length,
                       &op->u.format_error.data, err);
        break;
    case RTCOSIM_LSBUS_OP_CAN_TRANSMIT:
        st = read_data(r, p, length, SIZE_CAN_TRANSMIT, &tx->data_length, &tx->data, err);
        if (st == RTCOSIM_OK) {
            tx->id = get_u32(p + 8);
            tx->ide = p[12];
            tx->rtr = p[13];
        }
        break;
    case RTCOSIM_LSBUS_OP_CANFD_TRANSMIT:
        st = read_data(r, p, length, SIZE_CANFD_TRANSMIT, &tx->data_length, &tx->data, err);
        if (st == RTCOSIM_OK) {
            tx->id = get_u32(p + 8);
            tx->ide = p[12];
            tx->brs = p[13];
            tx->esi = p[14];
        }
        break;
    case RTCOSIM_LSBUS_OP_CANXL_TRANSMIT:
        st = read_data(r, p, length, SIZE_CANXL_TRANSMIT, &tx->data_length, &tx->data, err);
        if (st == RTCOSIM_OK) {
            tx->id = get_u32(p + 8);
            tx->ide = p[12];
            tx->sec = p[13];
            tx->sdt = p[14];
            tx->vcid = p[15];
            tx->af = get_u32(p + 16);
        }
        break;
    case RTCOSIM_LSBUS_OP_CAN_CONFIRM:
    case RTCOSIM_LSBUS_OP_CAN_ARBITRATION_LOST:
        st = exact_length(r, code, length, SIZE_ID_ONLY, err);
        if (st == RTCOSIM_OK)
            op->u.id = get_u32(p + 8);
        break;
    case RTCOSIM_LSBUS_OP_CAN_BUS_ERROR:
        st = exact_length(r, code, length, SIZE_BUS_ERROR, err);
        if (st == RTCOSIM_OK) {
            op->u.bus_error.id = get_u32(p + 8);
            op->u.bus_error.error_code = p[12];
            op->u.bus_error.error_flag = p[13];
            op->u.bus_error.is_sender = p[14];
        }
        break;
    case RTCOSIM_LSBUS_OP_CAN_CONFIGURATION: {
        if (length < SIZE_CONFIG_FIXED) {
            st = exact_length(r, code, length, SIZE_CONFIG_FIXED, err);
            break;
        }
        uint8_t kind = p[8];
        size_t expected = op_size(code, 0, kind);
        if (expected == 0) {
            st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "LS-BUS Configuration at byte %zu:"
                                   " parameter type 0x%02X is not one of LS-BUS 1.0 (0x01-0x04)",
                                   r->pos, kind);
            break;
        }
        st = exact_length(r, code, length, expected, err);
        if (st != RTCOSIM_OK)
            break;
        op->u.configuration.kind = kind;
        if (config_is_baudrate(kind))
            op->u.configuration.baudrate = get_u32(p + 9);
        else
            op->u.configuration.arbitration_lost_behavior = p[9];
        break;
    }
    case RTCOSIM_LSBUS_OP_CAN_STATUS:
        st = exact_length(r, code, length, SIZE_STATUS, err);
        if (st == RTCOSIM_OK)
            op->u.status = p[8];
        break;
    case RTCOSIM_LSBUS_OP_CAN_WAKEUP:
        st = exact_length(r, code, length, SIZE_WAKEUP, err);
        break;
    default:
        /* An op of another bus type or a later version: the length field is
         * all that lets a generic parser go on (section 5.2, remarks). */
        op->known = false;
        r->unknown_ops++;
        break;
    }
    if (st != RTCOSIM_OK)
        return st;
    r->pos += length;
    *got = true;
    return RTCOSIM_OK;
}

bool lsbus_op_of_bus_event(uint32_t node, const rtcosim_event *ev, rtcosim_lsbus_op *op)
{
    const rtcosim_can_rx *rx = rtcosim_can_rx_of(ev);
    const rtcosim_can_bus_error *be = rtcosim_can_bus_error_of(ev);
    memset(op, 0, sizeof *op);
    if (ev->type == RTCOSIM_CAN_EVENT_WAKEUP) {
        op->code = RTCOSIM_LSBUS_OP_CAN_WAKEUP;
    } else if (ev->type == RTCOSIM_CAN_EVENT_ARBITRATION_LOST &&
               ev->size == sizeof(rtcosim_can_frame)) {
        rtcosim_can_frame lost;
        memcpy(&lost, ev->payload, sizeof lost);
        op->code = RTCOSIM_LSBUS_OP_CAN_ARBITRATION_LOST;
        op->u.id = lost.id;
    } else if (rx && rx->sender == node) {
        op->code = RTCOSIM_LSBUS_OP_CAN_CONFIRM;
        op->u.id = rx->frame.id;
    } else if (rx && rx->format == RTCOSIM_CAN_FORMAT_FD) {
        op->code = RTCOSIM_LSBUS_OP_CANFD_TRANSMIT;
        op->u.transmit = (rtcosim_lsbus_can_transmit){
            .id = rx->frame.id, .ide = rx->frame.extended,
            .brs = (rx->flags & RTCOSIM_CAN_FD_BRS) != 0,
            .esi = (rx->flags & RTCOSIM_CAN_FD_ESI) != 0,
            .data_length = rx->length, .data = rx->data};
    } else if (rx && rx->format == RTCOSIM_CAN_FORMAT_XL) {
        op->code = RTCOSIM_LSBUS_OP_CANXL_TRANSMIT;
        op->u.transmit = (rtcosim_lsbus_can_transmit){
            .id = rx->frame.id, .sec = (rx->flags & RTCOSIM_CAN_XL_SEC) != 0, .sdt = rx->sdt,
            .vcid = rx->vcid, .af = rx->af, .data_length = rx->length, .data = rx->data};
    } else if (rx) {
        op->code = RTCOSIM_LSBUS_OP_CAN_TRANSMIT;
        op->u.transmit = (rtcosim_lsbus_can_transmit){.id = rx->frame.id,
                                                      .ide = rx->frame.extended,
                                                      .data_length = rx->frame.dlc,
                                                      .data = rx->frame.data};
    } else if (be) {
        op->code = RTCOSIM_LSBUS_OP_CAN_BUS_ERROR;
        op->u.bus_error.id = be->frame.id;
        op->u.bus_error.error_code = be->code;
        op->u.bus_error.error_flag = be->detector == node
                                         ? RTCOSIM_LSBUS_CAN_PRIMARY_ERROR_FLAG
                                         : RTCOSIM_LSBUS_CAN_SECONDARY_ERROR_FLAG;
        op->u.bus_error.is_sender = be->sender == node;
    } else {
        return false;
    }
    return true;
}

/* A Configuration's baud rate against the bus's: one bus, one rate per
 * phase, fixed at its creation (the lookahead to its nodes is its shortest
 * frame); a node configuring another would see other frame times. */
static rtcosim_status check_rate(uint8_t kind, uint32_t configured, const rtcosim_can_bus *bus,
                                 rtcosim_error *err)
{
    static const char *const names[] = {"", "CAN_BAUDRATE", "CANFD_BAUDRATE", "CANXL_BAUDRATE"};
    uint32_t rate = configured;
    if (kind == RTCOSIM_LSBUS_CAN_CONFIG_CAN_BAUDRATE)
        rate = rtcosim_can_bus_bitrate(bus);
    else if (kind == RTCOSIM_LSBUS_CAN_CONFIG_CANFD_BAUDRATE)
        rate = rtcosim_can_bus_fd_bitrate(bus);
    else if (kind == RTCOSIM_LSBUS_CAN_CONFIG_CANXL_BAUDRATE)
        rate = rtcosim_can_bus_xl_bitrate(bus);
    if (configured == rate)
        return RTCOSIM_OK;
    return rtcosim_error_set(err, RTCOSIM_EINVAL,
                             "configures %s %u bit/s, but bus '%s' runs %sat %u bit/s", names[kind],
                             configured, rtcosim_can_bus_name(bus),
                             kind == RTCOSIM_LSBUS_CAN_CONFIG_CAN_BAUDRATE ? ""
                             : kind == RTCOSIM_LSBUS_CAN_CONFIG_CANFD_BAUDRATE
                                 ? "its CAN FD data phase "
                                 : "its CAN XL data phase ",
                             rate);
}

/* A Transmit op as a frame for src/can's bus. */
static rtcosim_status frame_of(const rtcosim_lsbus_op *op, rtcosim_can_any_frame *f,
                               rtcosim_error *err)
{
    const rtcosim_lsbus_can_transmit *t = &op->u.transmit;
    *f = (rtcosim_can_any_frame){.id = t->id, .extended = t->ide != 0,
                                 .length = t->data_length, .data = t->data};
    switch (op->code) {
    case RTCOSIM_LSBUS_OP_CAN_TRANSMIT:
        if (t->data_length > RTCOSIM_CAN_DATA_MAX)
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "CAN Transmit of id 0x%x has %u data bytes (a classic "
                                     "frame carries at most 8)",
                                     t->id, t->data_length);
        f->format = RTCOSIM_CAN_FORMAT_CLASSIC;
        return RTCOSIM_OK;
    case RTCOSIM_LSBUS_OP_CANFD_TRANSMIT:
        f->format = RTCOSIM_CAN_FORMAT_FD;
        f->flags = (uint8_t)((t->brs ? RTCOSIM_CAN_FD_BRS : 0) | (t->esi ? RTCOSIM_CAN_FD_ESI : 0));
        return RTCOSIM_OK;
    default: /* CAN XL */
        f->format = RTCOSIM_CAN_FORMAT_XL;
        f->flags = t->sec ? RTCOSIM_CAN_XL_SEC : 0;
        f->sdt = t->sdt;
        f->vcid = t->vcid;
        f->af = t->af;
        return RTCOSIM_OK;
    }
}

rtcosim_status lsbus_tx_frames(const void *tx, size_t size, const rtcosim_can_bus *bus,
                               const char *node_name, bool *warned, uint8_t *behavior,
                               lsbus_frame_fn fn, lsbus_control_fn control, void *context,
                               rtcosim_error *err)
{
    rtcosim_lsbus_reader r;
    rtcosim_lsbus_reader_init(&r, tx, size);
    for (;;) {
        rtcosim_lsbus_op op;
        bool got = false;
        rtcosim_status st = rtcosim_lsbus_read(&r, &op, &got, err);
        if (st != RTCOSIM_OK || !got)
            return st;
        switch (op.code) {
        case RTCOSIM_LSBUS_OP_CAN_TRANSMIT:
        case RTCOSIM_LSBUS_OP_CANFD_TRANSMIT:
        case RTCOSIM_LSBUS_OP_CANXL_TRANSMIT: {
            rtcosim_can_any_frame f;
            if ((st = frame_of(&op, &f, err)) != RTCOSIM_OK ||
                (st = fn(context, &f, *behavior == RTCOSIM_LSBUS_CAN_DISCARD_AND_NOTIFY, err)) !=
                    RTCOSIM_OK)
                return st;
            break;
        }
        case RTCOSIM_LSBUS_OP_CAN_CONFIGURATION:
            if (op.u.configuration.kind != RTCOSIM_LSBUS_CAN_CONFIG_ARBITRATION_LOST_BEHAVIOR) {
                if ((st = check_rate(op.u.configuration.kind, op.u.configuration.baudrate, bus,
                                     err)) != RTCOSIM_OK)
                    return st;
                break;
            }
            uint8_t v = op.u.configuration.arbitration_lost_behavior;
            if (v != RTCOSIM_LSBUS_CAN_BUFFER_AND_RETRANSMIT &&
                v != RTCOSIM_LSBUS_CAN_DISCARD_AND_NOTIFY)
                return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                         "Configuration ARBITRATION_LOST_BEHAVIOR: value "
                                         "0x%02X is neither BUFFER_AND_RETRANSMIT (1) nor "
                                         "DISCARD_AND_NOTIFY (2)",
                                         v);
            *behavior = v;
            break;
        case RTCOSIM_LSBUS_OP_CAN_STATUS:
            if (op.u.status < RTCOSIM_LSBUS_CAN_ERROR_ACTIVE ||
                op.u.status > RTCOSIM_LSBUS_CAN_BUS_OFF)
                return rtcosim_error_set(err, RTCOSIM_EFORMAT, "Status: value 0x%02X is not one"
                                         " of LS-BUS 1.0 (1-3)", op.u.status);
            if ((st = control(context, op.code, op.u.status, err)) != RTCOSIM_OK)
                return st;
            break;
        case RTCOSIM_LSBUS_OP_CAN_WAKEUP:
            if ((st = control(context, op.code, 0, err)) != RTCOSIM_OK)
                return st;
            break;
        default:
            if (!op.known && !*warned) {
                *warned = true;
                rtcosim_log(RTCOSIM_LOG_WARNING, rtcosim_can_bus_name(bus),
                            "%s sent op code 0x%04" PRIX32 " (%" PRIu32 " bytes), not a CAN "
                            "operation of LS-BUS 1.0: skipped (further ones too, silently)",
                            node_name, op.code, op.length);
            }
            break; /* Confirm, Arbitration Lost, Bus Error, Format Error: the bus's to send */
        }
    }
}
