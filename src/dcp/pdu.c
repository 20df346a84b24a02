/* Encoding and decoding of every DCP 1.0 PDU (spec 3.3). One layout table
 * per type id gives the fixed length; a decoder that checks the length
 * before reading any field cannot read outside the datagram. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/le.h"
#include "rtcosim/dcp.h"

/* Fixed part of each PDU in bytes; `variable` when a payload may follow.
 * `fields` names the fields of the fixed part with the byte after each
 * (spec 3.3.7 tables; IPv4 network information 4.2.1.2 tables 133-135),
 * for errors that say which field a short PDU cuts. */
typedef struct layout {
    uint8_t type;
    uint8_t fixed;
    bool variable;
    const char *fields;
} layout;

#define REQ "type_id:1 pdu_seq_id:3 receiver:4 "
#define RSP "type_id:1 resp_seq_id:3 sender:4 "
#define NET REQ "data_id:6 transport_protocol:7 port:9 ip_address:13"
static const layout layouts[] = {
    {RTCOSIM_DCP_STC_REGISTER, 24, false,
     REQ "state_id:5 slave_uuid:21 op_mode:22 major_version:23 minor_version:24"},
    {RTCOSIM_DCP_STC_DEREGISTER, 5, false, REQ "state_id:5"},
    {RTCOSIM_DCP_STC_PREPARE, 5, false, REQ "state_id:5"},
    {RTCOSIM_DCP_STC_CONFIGURE, 5, false, REQ "state_id:5"},
    {RTCOSIM_DCP_STC_INITIALIZE, 5, false, REQ "state_id:5"},
    {RTCOSIM_DCP_STC_RUN, 13, false, REQ "state_id:5 time:13"},
    {RTCOSIM_DCP_STC_DO_STEP, 9, false, REQ "state_id:5 steps:9"},
    {RTCOSIM_DCP_STC_SEND_OUTPUTS, 5, false, REQ "state_id:5"},
    {RTCOSIM_DCP_STC_STOP, 5, false, REQ "state_id:5"},
    {RTCOSIM_DCP_STC_RESET, 5, false, REQ "state_id:5"},
    {RTCOSIM_DCP_CFG_TIME_RES, 12, false, REQ "numerator:8 denominator:12"},
    {RTCOSIM_DCP_CFG_STEPS, 10, false, REQ "steps:8 data_id:10"},
    {RTCOSIM_DCP_CFG_INPUT, 17, false, REQ "data_id:6 pos:8 target_vr:16 source_data_type:17"},
    {RTCOSIM_DCP_CFG_OUTPUT, 16, false, REQ "data_id:6 pos:8 source_vr:16"},
    {RTCOSIM_DCP_CFG_CLEAR, 4, false, REQ},
    /* Network information: data_id, transport_protocol, then the protocol's
     * own fields; for UDP and TCP over IPv4 port u16 and ip_address u32 in
     * all three (tables 133-135; DCPLib's IPv4 network PDUs are 13 bytes). */
    {RTCOSIM_DCP_CFG_TARGET_NETWORK_INFORMATION, 7, true, NET},
    {RTCOSIM_DCP_CFG_SOURCE_NETWORK_INFORMATION, 7, true, NET},
    {RTCOSIM_DCP_CFG_PARAMETER, 13, true, REQ "parameter_vr:12 source_data_type:13"},
    {RTCOSIM_DCP_CFG_TUNABLE_PARAMETER, 17, false,
     REQ "param_id:6 pos:8 parameter_vr:16 source_data_type:17"},
    {RTCOSIM_DCP_CFG_PARAM_NETWORK_INFORMATION, 7, true,
     REQ "param_id:6 transport_protocol:7 port:9 ip_address:13"},
    {RTCOSIM_DCP_CFG_LOGGING, 7, false, REQ "log_category:5 log_level:6 log_mode:7"},
    {RTCOSIM_DCP_CFG_SCOPE, 7, false, REQ "data_id:6 scope:7"},
    {RTCOSIM_DCP_INF_STATE, 4, false, REQ},
    {RTCOSIM_DCP_INF_ERROR, 4, false, REQ},
    {RTCOSIM_DCP_INF_LOG, 6, false, REQ "log_category:5 log_max_num:6"},
    {RTCOSIM_DCP_RSP_ACK, 4, false, RSP},
    {RTCOSIM_DCP_RSP_NACK, 8, false, RSP "exp_seq_id:6 error_code:8"},
    {RTCOSIM_DCP_RSP_STATE_ACK, 5, false, RSP "state_id:5"},
    {RTCOSIM_DCP_RSP_ERROR_ACK, 6, false, RSP "error_code:6"},
    {RTCOSIM_DCP_RSP_LOG_ACK, 4, true, RSP},
    {RTCOSIM_DCP_NTF_STATE_CHANGED, 3, false, "type_id:1 sender:2 state_id:3"},
    {RTCOSIM_DCP_NTF_LOG, 11, true, "type_id:1 sender:2 time:10 log_template_id:11"},
    {RTCOSIM_DCP_DAT_INPUT_OUTPUT, 5, true, "type_id:1 pdu_seq_id:3 data_id:5"},
    {RTCOSIM_DCP_DAT_PARAMETER, 5, true, "type_id:1 pdu_seq_id:3 param_id:5"},
};
#undef REQ
#undef RSP
#undef NET

/* The field a PDU of `size` bytes ends inside (copied into name), or the
 * last field when the PDU is longer than its fixed part. */
static void field_at(const layout *l, size_t size, char *name, size_t cap)
{
    const char *at = l->fields;
    name[0] = '\0';
    while (*at) {
        const char *colon = strchr(at, ':');
        char *end;
        unsigned long stop = strtoul(colon + 1, &end, 10);
        size_t len = (size_t)(colon - at) < cap - 1 ? (size_t)(colon - at) : cap - 1;
        memcpy(name, at, len);
        name[len] = '\0';
        if (stop > size)
            return;
        at = *end ? end + 1 : end;
    }
}

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

/* Bytes of the IPv4 network information after transport_protocol: port
 * and ip_address (tables 133-135; a source's address is not used). */
#define IPV4_NETWORK_INFO 6u

rtcosim_status rtcosim_dcp_pdu_encode(const rtcosim_dcp_pdu *pdu, uint8_t *buf, size_t cap,
                                      size_t *size, rtcosim_error *err)
{
    const layout *l = find_layout(pdu->type);
    if (!l)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "DCP: cannot encode unknown PDU type 0x%02X",
                                 pdu->type);
    size_t n = l->fixed;
    if (is_network_info(pdu->type))
        n += IPV4_NETWORK_INFO;
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
        le_put64(buf + 2, (uint64_t)pdu->start_time);
        buf[10] = pdu->log_template_id;
    } else if (t == RTCOSIM_DCP_DAT_INPUT_OUTPUT || t == RTCOSIM_DCP_DAT_PARAMETER) {
        le_put16(buf + 1, pdu->seq_id);
        le_put16(buf + 3, pdu->data_id);
    } else {
        le_put16(buf + 1, pdu->seq_id);
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
        le_put64(buf + 5, (uint64_t)pdu->start_time);
        break;
    case RTCOSIM_DCP_STC_DO_STEP:
        buf[4] = pdu->state_id;
        le_put32(buf + 5, pdu->steps);
        break;
    case RTCOSIM_DCP_STC_DEREGISTER: case RTCOSIM_DCP_STC_PREPARE: case RTCOSIM_DCP_STC_CONFIGURE:
    case RTCOSIM_DCP_STC_INITIALIZE: case RTCOSIM_DCP_STC_SEND_OUTPUTS: case RTCOSIM_DCP_STC_STOP:
    case RTCOSIM_DCP_STC_RESET: case RTCOSIM_DCP_RSP_STATE_ACK:
        buf[4] = pdu->state_id;
        break;
    case RTCOSIM_DCP_CFG_TIME_RES:
        le_put32(buf + 4, pdu->numerator);
        le_put32(buf + 8, pdu->denominator);
        break;
    case RTCOSIM_DCP_CFG_STEPS:
        le_put32(buf + 4, pdu->steps);
        le_put16(buf + 8, pdu->data_id);
        break;
    case RTCOSIM_DCP_CFG_INPUT: case RTCOSIM_DCP_CFG_TUNABLE_PARAMETER:
        le_put16(buf + 4, pdu->data_id);
        le_put16(buf + 6, pdu->pos);
        le_put64(buf + 8, pdu->value_reference);
        buf[16] = pdu->source_data_type;
        break;
    case RTCOSIM_DCP_CFG_OUTPUT:
        le_put16(buf + 4, pdu->data_id);
        le_put16(buf + 6, pdu->pos);
        le_put64(buf + 8, pdu->value_reference);
        break;
    case RTCOSIM_DCP_CFG_TARGET_NETWORK_INFORMATION: case RTCOSIM_DCP_CFG_SOURCE_NETWORK_INFORMATION:
    case RTCOSIM_DCP_CFG_PARAM_NETWORK_INFORMATION:
        le_put16(buf + 4, pdu->data_id);
        buf[6] = pdu->transport_protocol;
        le_put16(buf + 7, pdu->port);
        le_put32(buf + 9, pdu->ip_address);
        break;
    case RTCOSIM_DCP_CFG_PARAMETER:
        le_put64(buf + 4, pdu->value_reference);
        buf[12] = pdu->source_data_type;
        break;
    case RTCOSIM_DCP_CFG_LOGGING:
        buf[4] = pdu->log_category;
        buf[5] = pdu->log_level;
        buf[6] = pdu->log_mode;
        break;
    case RTCOSIM_DCP_CFG_SCOPE:
        le_put16(buf + 4, pdu->data_id);
        buf[6] = pdu->scope;
        break;
    case RTCOSIM_DCP_INF_LOG:
        buf[4] = pdu->log_category;
        buf[5] = pdu->log_max_num;
        break;
    case RTCOSIM_DCP_RSP_NACK:
        le_put16(buf + 4, pdu->exp_seq_id);
        le_put16(buf + 6, pdu->error_code);
        break;
    case RTCOSIM_DCP_RSP_ERROR_ACK:
        le_put16(buf + 4, pdu->error_code);
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
            need += IPV4_NETWORK_INFO;
    }
    if (size < need || (!l->variable && size != need) ||
        (is_network_info(t) && need > l->fixed && size != need)) {
        if (dcp_error)
            *dcp_error = RTCOSIM_DCP_ERR_INVALID_LENGTH;
        char field[32];
        field_at(l, size, field, sizeof field);
        return rtcosim_error_set(err, RTCOSIM_EFORMAT,
                                 "DCP: %s of %zu bytes (expected %s%zu): %s field %s", rtcosim_dcp_pdu_type_name(t),
                                 size, l->variable && !is_network_info(t) ? "at least " : "", need,
                                 size < need ? "cut inside" : "bytes after", field);
    }
    pdu->type = t;
    if (t == RTCOSIM_DCP_NTF_STATE_CHANGED) {
        pdu->receiver = buf[1];
        pdu->state_id = buf[2];
        return RTCOSIM_OK;
    }
    if (t == RTCOSIM_DCP_NTF_LOG) {
        pdu->receiver = buf[1];
        pdu->start_time = (int64_t)le_get64(buf + 2);
        pdu->log_template_id = buf[10];
        pdu->payload = buf + 11;
        pdu->payload_size = size - 11;
        return RTCOSIM_OK;
    }
    pdu->seq_id = le_get16(buf + 1);
    if (t == RTCOSIM_DCP_DAT_INPUT_OUTPUT || t == RTCOSIM_DCP_DAT_PARAMETER) {
        pdu->data_id = le_get16(buf + 3);
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
        pdu->start_time = (int64_t)le_get64(buf + 5);
        break;
    case RTCOSIM_DCP_STC_DO_STEP:
        pdu->state_id = buf[4];
        pdu->steps = le_get32(buf + 5);
        break;
    case RTCOSIM_DCP_STC_DEREGISTER: case RTCOSIM_DCP_STC_PREPARE: case RTCOSIM_DCP_STC_CONFIGURE:
    case RTCOSIM_DCP_STC_INITIALIZE: case RTCOSIM_DCP_STC_SEND_OUTPUTS: case RTCOSIM_DCP_STC_STOP:
    case RTCOSIM_DCP_STC_RESET: case RTCOSIM_DCP_RSP_STATE_ACK:
        pdu->state_id = buf[4];
        break;
    case RTCOSIM_DCP_CFG_TIME_RES:
        pdu->numerator = le_get32(buf + 4);
        pdu->denominator = le_get32(buf + 8);
        break;
    case RTCOSIM_DCP_CFG_STEPS:
        pdu->steps = le_get32(buf + 4);
        pdu->data_id = le_get16(buf + 8);
        break;
    case RTCOSIM_DCP_CFG_INPUT: case RTCOSIM_DCP_CFG_TUNABLE_PARAMETER:
        pdu->data_id = le_get16(buf + 4);
        pdu->pos = le_get16(buf + 6);
        pdu->value_reference = le_get64(buf + 8);
        pdu->source_data_type = buf[16];
        break;
    case RTCOSIM_DCP_CFG_OUTPUT:
        pdu->data_id = le_get16(buf + 4);
        pdu->pos = le_get16(buf + 6);
        pdu->value_reference = le_get64(buf + 8);
        break;
    case RTCOSIM_DCP_CFG_TARGET_NETWORK_INFORMATION: case RTCOSIM_DCP_CFG_SOURCE_NETWORK_INFORMATION:
    case RTCOSIM_DCP_CFG_PARAM_NETWORK_INFORMATION:
        pdu->data_id = le_get16(buf + 4);
        pdu->transport_protocol = buf[6];
        if (need > l->fixed) {
            pdu->port = le_get16(buf + 7);
            pdu->ip_address = le_get32(buf + 9);
        } else {
            pdu->payload = buf + 7;
            pdu->payload_size = size - 7;
        }
        break;
    case RTCOSIM_DCP_CFG_PARAMETER:
        pdu->value_reference = le_get64(buf + 4);
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
        pdu->data_id = le_get16(buf + 4);
        pdu->scope = buf[6];
        break;
    case RTCOSIM_DCP_INF_LOG:
        pdu->log_category = buf[4];
        pdu->log_max_num = buf[5];
        break;
    case RTCOSIM_DCP_RSP_NACK:
        pdu->exp_seq_id = le_get16(buf + 4);
        pdu->error_code = le_get16(buf + 6);
        break;
    case RTCOSIM_DCP_RSP_ERROR_ACK:
        pdu->error_code = le_get16(buf + 4);
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
