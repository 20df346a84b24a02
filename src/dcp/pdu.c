/* Encoding and decoding of every DCP 1.0 PDU (spec 3.3). One layout table
 * per type id gives the fixed length; a decoder that checks the length
 * before reading any field cannot read outside the datagram. */
#include <string.h>

#include "dcp/wire.h"
#include "rtcosim/dcp.h"

/* Fixed part of each PDU in bytes; `variable` when a payload may follow.
 * Offsets (spec 3.3): type_id 0; requests pdu_seq_id 1-2, receiver 3;
 * responses resp_seq_id 1-2, sender 3; notifications sender 1; data
 * pdu_seq_id 1-2, data_id/param_id 3-4. */
typedef struct layout {
    uint8_t type;
    uint8_t fixed;
    bool variable;
} layout;

static const layout layouts[] = {
    {RTCOSIM_DCP_STC_REGISTER, 24, false},  {RTCOSIM_DCP_STC_DEREGISTER, 5, false},
    {RTCOSIM_DCP_STC_PREPARE, 5, false},    {RTCOSIM_DCP_STC_CONFIGURE, 5, false},
    {RTCOSIM_DCP_STC_INITIALIZE, 5, false}, {RTCOSIM_DCP_STC_RUN, 13, false},
    {RTCOSIM_DCP_STC_DO_STEP, 9, false},    {RTCOSIM_DCP_STC_SEND_OUTPUTS, 5, false},
    {RTCOSIM_DCP_STC_STOP, 5, false},       {RTCOSIM_DCP_STC_RESET, 5, false},
    {RTCOSIM_DCP_CFG_TIME_RES, 12, false},  {RTCOSIM_DCP_CFG_STEPS, 10, false},
    {RTCOSIM_DCP_CFG_INPUT, 17, false},     {RTCOSIM_DCP_CFG_OUTPUT, 16, false},
    {RTCOSIM_DCP_CFG_CLEAR, 4, false},
    /* Network information: data_id, transport_protocol, then the protocol's
     * own fields (UDP/TCP IPv4: port u16, ip u32 for targets). */
    {RTCOSIM_DCP_CFG_TARGET_NETWORK_INFORMATION, 7, true},
    {RTCOSIM_DCP_CFG_SOURCE_NETWORK_INFORMATION, 7, true},
    {RTCOSIM_DCP_CFG_PARAMETER, 13, true},  {RTCOSIM_DCP_CFG_TUNABLE_PARAMETER, 17, false},
    {RTCOSIM_DCP_CFG_PARAM_NETWORK_INFORMATION, 7, true},
    {RTCOSIM_DCP_CFG_LOGGING, 7, false},    {RTCOSIM_DCP_CFG_SCOPE, 7, false},
    {RTCOSIM_DCP_INF_STATE, 4, false},      {RTCOSIM_DCP_INF_ERROR, 4, false},
    {RTCOSIM_DCP_INF_LOG, 6, false},
    {RTCOSIM_DCP_RSP_ACK, 4, false},        {RTCOSIM_DCP_RSP_NACK, 8, false},
    {RTCOSIM_DCP_RSP_STATE_ACK, 5, false},  {RTCOSIM_DCP_RSP_ERROR_ACK, 6, false},
    {RTCOSIM_DCP_RSP_LOG_ACK, 4, true},
    {RTCOSIM_DCP_NTF_STATE_CHANGED, 3, false}, {RTCOSIM_DCP_NTF_LOG, 11, true},
    {RTCOSIM_DCP_DAT_INPUT_OUTPUT, 5, true}, {RTCOSIM_DCP_DAT_PARAMETER, 5, true},
};

static const layout *find_layout(uint8_t type)
{
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
        if (layouts[i].type == type)
            return &layouts[i];
    return NULL;
}

static bool is_network_info(uint8_t type)
{
    return type == RTCOSIM_DCP_CFG_TARGET_NETWORK_INFORMATION ||
           type == RTCOSIM_DCP_CFG_SOURCE_NETWORK_INFORMATION ||
           type == RTCOSIM_DCP_CFG_PARAM_NETWORK_INFORMATION;
}

/* Bytes of the IPv4 network information after transport_protocol: a source
 * names only the port to listen on, a target port and address. */
static size_t network_info_size(uint8_t type)
{
    return type == RTCOSIM_DCP_CFG_SOURCE_NETWORK_INFORMATION ? 2 : 6;
}

rtcosim_status rtcosim_dcp_pdu_encode(const rtcosim_dcp_pdu *pdu, uint8_t *buf, size_t cap,
                                      size_t *size, rtcosim_error *err)
{
    const layout *l = find_layout(pdu->type);
    if (!l)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "DCP: cannot encode unknown PDU type 0x%02X",
                                 pdu->type);
    size_t n = l->fixed;
    if (is_network_info(pdu->type))
        n += network_info_size(pdu->type);
    else if (l->variable)
        n += pdu->payload_size;
    if (n > cap || n > RTCOSIM_DCP_MAX_PDU)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "DCP: %s of %zu bytes does not fit in %zu",
                                 rtcosim_dcp_pdu_type_name(pdu->type), n, cap);
    memset(buf, 0, n);
    buf[0] = pdu->type;
    uint8_t t = pdu->type;
    if (t == RTCOSIM_DCP_NTF_STATE_CHANGED) {
        buf[1] = pdu->receiver;
        buf[2] = pdu->state_id;
    } else if (t == RTCOSIM_DCP_NTF_LOG) {
        buf[1] = pdu->receiver;
        dcp_put64(buf + 2, (uint64_t)pdu->start_time);
        buf[10] = pdu->log_template_id;
    } else if (t == RTCOSIM_DCP_DAT_INPUT_OUTPUT || t == RTCOSIM_DCP_DAT_PARAMETER) {
        dcp_put16(buf + 1, pdu->seq_id);
        dcp_put16(buf + 3, pdu->data_id);
    } else {
        dcp_put16(buf + 1, pdu->seq_id);
        buf[3] = pdu->receiver;
    }
    switch (t) {
    case RTCOSIM_DCP_STC_REGISTER:
        buf[4] = pdu->state_id;
        memcpy(buf + 5, pdu->uuid, 16);
        buf[21] = pdu->op_mode;
        buf[22] = pdu->major_version;
        buf[23] = pdu->minor_version;
        break;
    case RTCOSIM_DCP_STC_RUN:
        buf[4] = pdu->state_id;
        dcp_put64(buf + 5, (uint64_t)pdu->start_time);
        break;
    case RTCOSIM_DCP_STC_DO_STEP:
        buf[4] = pdu->state_id;
        dcp_put32(buf + 5, pdu->steps);
        break;
    case RTCOSIM_DCP_STC_DEREGISTER: case RTCOSIM_DCP_STC_PREPARE: case RTCOSIM_DCP_STC_CONFIGURE:
    case RTCOSIM_DCP_STC_INITIALIZE: case RTCOSIM_DCP_STC_SEND_OUTPUTS: case RTCOSIM_DCP_STC_STOP:
    case RTCOSIM_DCP_STC_RESET: case RTCOSIM_DCP_RSP_STATE_ACK:
        buf[4] = pdu->state_id;
        break;
    case RTCOSIM_DCP_CFG_TIME_RES:
        dcp_put32(buf + 4, pdu->numerator);
        dcp_put32(buf + 8, pdu->denominator);
        break;
    case RTCOSIM_DCP_CFG_STEPS:
        dcp_put32(buf + 4, pdu->steps);
        dcp_put16(buf + 8, pdu->data_id);
        break;
    case RTCOSIM_DCP_CFG_INPUT: case RTCOSIM_DCP_CFG_TUNABLE_PARAMETER:
        dcp_put16(buf + 4, pdu->data_id);
        dcp_put16(buf + 6, pdu->pos);
        dcp_put64(buf + 8, pdu->value_reference);
        buf[16] = pdu->source_data_type;
        break;
    case RTCOSIM_DCP_CFG_OUTPUT:
        dcp_put16(buf + 4, pdu->data_id);
        dcp_put16(buf + 6, pdu->pos);
        dcp_put64(buf + 8, pdu->value_reference);
        break;
    case RTCOSIM_DCP_CFG_TARGET_NETWORK_INFORMATION: case RTCOSIM_DCP_CFG_SOURCE_NETWORK_INFORMATION:
    case RTCOSIM_DCP_CFG_PARAM_NETWORK_INFORMATION:
        dcp_put16(buf + 4, pdu->data_id);
        buf[6] = pdu->transport_protocol;
        dcp_put16(buf + 7, pdu->port);
        if (network_info_size(t) == 6)
            dcp_put32(buf + 9, pdu->ip_address);
        break;
    case RTCOSIM_DCP_CFG_PARAMETER:
        dcp_put64(buf + 4, pdu->value_reference);
        buf[12] = pdu->source_data_type;
        break;
    case RTCOSIM_DCP_CFG_LOGGING:
        buf[4] = pdu->log_category;
        buf[5] = pdu->log_level;
        buf[6] = pdu->log_mode;
        break;
    case RTCOSIM_DCP_CFG_SCOPE:
        dcp_put16(buf + 4, pdu->data_id);
        buf[6] = pdu->scope;
        break;
    case RTCOSIM_DCP_INF_LOG:
        buf[4] = pdu->log_category;
        buf[5] = pdu->log_max_num;
        break;
    case RTCOSIM_DCP_RSP_NACK:
        dcp_put16(buf + 4, pdu->exp_seq_id);
        dcp_put16(buf + 6, pdu->error_code);
        break;
    case RTCOSIM_DCP_RSP_ERROR_ACK:
        dcp_put16(buf + 4, pdu->error_code);
        break;
    default:
        break;
    }
    if (l->variable && !is_network_info(t) && pdu->payload_size)
        memcpy(buf + l->fixed, pdu->payload, pdu->payload_size);
    *size = n;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_dcp_pdu_decode(const uint8_t *buf, size_t size, rtcosim_dcp_pdu *pdu,
                                      uint16_t *dcp_error, rtcosim_error *err)
{
    memset(pdu, 0, sizeof *pdu);
    if (dcp_error)
        *dcp_error = RTCOSIM_DCP_ERR_NONE;
    if (size < 1) {
        if (dcp_error)
            *dcp_error = RTCOSIM_DCP_ERR_INVALID_LENGTH;
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "DCP: empty PDU");
    }
    uint8_t t = buf[0];
    const layout *l = find_layout(t);
    if (!l) {
        if (dcp_error)
            *dcp_error = RTCOSIM_DCP_ERR_NOT_SUPPORTED_PDU;
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "DCP: unknown PDU type id 0x%02X", t);
    }
    size_t need = l->fixed;
    if (is_network_info(t) && size >= l->fixed) {
        /* Only the IPv4 protocols have a layout we know; others are refused
         * by the slave with NOT_SUPPORTED_TRANSPORT_PROTOCOL. */
        uint8_t proto = buf[6];
        if (proto == RTCOSIM_DCP_UDP_IPV4 || proto == RTCOSIM_DCP_TCP_IPV4)
            need += network_info_size(t);
    }
    if (size < need || (!l->variable && size != need) ||
        (is_network_info(t) && need > l->fixed && size != need)) {
        if (dcp_error)
            *dcp_error = RTCOSIM_DCP_ERR_INVALID_LENGTH;
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "DCP: %s of %zu bytes (expected %s%zu)",
                                 rtcosim_dcp_pdu_type_name(t), size,
                                 l->variable ? "at least " : "", need);
    }
    pdu->type = t;
    if (t == RTCOSIM_DCP_NTF_STATE_CHANGED) {
        pdu->receiver = buf[1];
        pdu->state_id = buf[2];
        return RTCOSIM_OK;
    }
    if (t == RTCOSIM_DCP_NTF_LOG) {
        pdu->receiver = buf[1];
        pdu->start_time = (int64_t)dcp_get64(buf + 2);
        pdu->log_template_id = buf[10];
        pdu->payload = buf + 11;
        pdu->payload_size = size - 11;
        return RTCOSIM_OK;
    }
    pdu->seq_id = dcp_get16(buf + 1);
    if (t == RTCOSIM_DCP_DAT_INPUT_OUTPUT || t == RTCOSIM_DCP_DAT_PARAMETER) {
        pdu->data_id = dcp_get16(buf + 3);
        pdu->payload = buf + 5;
        pdu->payload_size = size - 5;
        return RTCOSIM_OK;
    }
    pdu->receiver = buf[3];
    switch (t) {
    case RTCOSIM_DCP_STC_REGISTER:
        pdu->state_id = buf[4];
        memcpy(pdu->uuid, buf + 5, 16);
        pdu->op_mode = buf[21];
        pdu->major_version = buf[22];
        pdu->minor_version = buf[23];
        break;
    case RTCOSIM_DCP_STC_RUN:
        pdu->state_id = buf[4];
        pdu->start_time = (int64_t)dcp_get64(buf + 5);
        break;
    case RTCOSIM_DCP_STC_DO_STEP:
        pdu->state_id = buf[4];
        pdu->steps = dcp_get32(buf + 5);
        break;
    case RTCOSIM_DCP_STC_DEREGISTER: case RTCOSIM_DCP_STC_PREPARE: case RTCOSIM_DCP_STC_CONFIGURE:
    case RTCOSIM_DCP_STC_INITIALIZE: case RTCOSIM_DCP_STC_SEND_OUTPUTS: case RTCOSIM_DCP_STC_STOP:
    case RTCOSIM_DCP_STC_RESET: case RTCOSIM_DCP_RSP_STATE_ACK:
        pdu->state_id = buf[4];
        break;
    case RTCOSIM_DCP_CFG_TIME_RES:
        pdu->numerator = dcp_get32(buf + 4);
        pdu->denominator = dcp_get32(buf + 8);
        break;
    case RTCOSIM_DCP_CFG_STEPS:
        pdu->steps = dcp_get32(buf + 4);
        pdu->data_id = dcp_get16(buf + 8);
        break;
    case RTCOSIM_DCP_CFG_INPUT: case RTCOSIM_DCP_CFG_TUNABLE_PARAMETER:
        pdu->data_id = dcp_get16(buf + 4);
        pdu->pos = dcp_get16(buf + 6);
        pdu->value_reference = dcp_get64(buf + 8);
        pdu->source_data_type = buf[16];
        break;
    case RTCOSIM_DCP_CFG_OUTPUT:
        pdu->data_id = dcp_get16(buf + 4);
        pdu->pos = dcp_get16(buf + 6);
        pdu->value_reference = dcp_get64(buf + 8);
        break;
    case RTCOSIM_DCP_CFG_TARGET_NETWORK_INFORMATION: case RTCOSIM_DCP_CFG_SOURCE_NETWORK_INFORMATION:
    case RTCOSIM_DCP_CFG_PARAM_NETWORK_INFORMATION:
        pdu->data_id = dcp_get16(buf + 4);
        pdu->transport_protocol = buf[6];
        if (need > l->fixed) {
            pdu->port = dcp_get16(buf + 7);
            if (network_info_size(t) == 6)
                pdu->ip_address = dcp_get32(buf + 9);
        } else {
            pdu->payload = buf + 7;
            pdu->payload_size = size - 7;
        }
        break;
    case RTCOSIM_DCP_CFG_PARAMETER:
        pdu->value_reference = dcp_get64(buf + 4);
        pdu->source_data_type = buf[12];
        pdu->payload = buf + 13;
        pdu->payload_size = size - 13;
        break;
    case RTCOSIM_DCP_CFG_LOGGING:
        pdu->log_category = buf[4];
        pdu->log_level = buf[5];
        pdu->log_mode = buf[6];
        break;
    case RTCOSIM_DCP_CFG_SCOPE:
        pdu->data_id = dcp_get16(buf + 4);
        pdu->scope = buf[6];
        break;
    case RTCOSIM_DCP_INF_LOG:
        pdu->log_category = buf[4];
        pdu->log_max_num = buf[5];
        break;
    case RTCOSIM_DCP_RSP_NACK:
        pdu->exp_seq_id = dcp_get16(buf + 4);
        pdu->error_code = dcp_get16(buf + 6);
        break;
    case RTCOSIM_DCP_RSP_ERROR_ACK:
        pdu->error_code = dcp_get16(buf + 4);
        break;
    case RTCOSIM_DCP_RSP_LOG_ACK:
        pdu->payload = buf + 4;
        pdu->payload_size = size - 4;
        break;
    default:
        break;
    }
    return RTCOSIM_OK;
}
