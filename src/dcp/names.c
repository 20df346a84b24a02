/* Names of DCP PDU types, states and error codes exactly as the
 * specification spells them, for messages and logs. */
#include "rtcosim/dcp.h"

const char *rtcosim_dcp_pdu_type_name(uint8_t type)
{
    switch (type) {
    case RTCOSIM_DCP_STC_REGISTER: return "STC_register";
    case RTCOSIM_DCP_STC_DEREGISTER: return "STC_deregister";
    case RTCOSIM_DCP_STC_PREPARE: return "STC_prepare";
    case RTCOSIM_DCP_STC_CONFIGURE: return "STC_configure";
    case RTCOSIM_DCP_STC_INITIALIZE: return "STC_initialize";
    case RTCOSIM_DCP_STC_RUN: return "STC_run";
    case RTCOSIM_DCP_STC_DO_STEP: return "STC_do_step";
    case RTCOSIM_DCP_STC_SEND_OUTPUTS: return "STC_send_outputs";
    case RTCOSIM_DCP_STC_STOP: return "STC_stop";
    case RTCOSIM_DCP_STC_RESET: return "STC_reset";
    case RTCOSIM_DCP_CFG_TIME_RES: return "CFG_time_res";
    case RTCOSIM_DCP_CFG_STEPS: return "CFG_steps";
    case RTCOSIM_DCP_CFG_INPUT: return "CFG_input";
    case RTCOSIM_DCP_CFG_OUTPUT: return "CFG_output";
    case RTCOSIM_DCP_CFG_CLEAR: return "CFG_clear";
    case RTCOSIM_DCP_CFG_TARGET_NETWORK_INFORMATION: return "CFG_target_network_information";
    case RTCOSIM_DCP_CFG_SOURCE_NETWORK_INFORMATION: return "CFG_source_network_information";
    case RTCOSIM_DCP_CFG_PARAMETER: return "CFG_parameter";
    case RTCOSIM_DCP_CFG_TUNABLE_PARAMETER: return "CFG_tunable_parameter";
    case RTCOSIM_DCP_CFG_PARAM_NETWORK_INFORMATION: return "CFG_param_network_information";
    case RTCOSIM_DCP_CFG_LOGGING: return "CFG_logging";
    case RTCOSIM_DCP_CFG_SCOPE: return "CFG_scope";
    case RTCOSIM_DCP_INF_STATE: return "INF_state";
    case RTCOSIM_DCP_INF_ERROR: return "INF_error";
    case RTCOSIM_DCP_INF_LOG: return "INF_log";
    case RTCOSIM_DCP_RSP_ACK: return "RSP_ack";
    case RTCOSIM_DCP_RSP_NACK: return "RSP_nack";
    case RTCOSIM_DCP_RSP_STATE_ACK: return "RSP_state_ack";
    case RTCOSIM_DCP_RSP_ERROR_ACK: return "RSP_error_ack";
    case RTCOSIM_DCP_RSP_LOG_ACK: return "RSP_log_ack";
    case RTCOSIM_DCP_NTF_STATE_CHANGED: return "NTF_state_changed";
    case RTCOSIM_DCP_NTF_LOG: return "NTF_log";
    case RTCOSIM_DCP_DAT_INPUT_OUTPUT: return "DAT_input_output";
    case RTCOSIM_DCP_DAT_PARAMETER: return "DAT_parameter";
    default: return "unknown";
    }
}

const char *rtcosim_dcp_state_name(uint8_t state)
{
    static const char *const names[RTCOSIM_DCP_STATE_COUNT_] = {
        "ALIVE", "CONFIGURATION", "PREPARING", "PREPARED", "CONFIGURING", "CONFIGURED",
        "INITIALIZING", "INITIALIZED", "SENDING_I", "SYNCHRONIZING", "SYNCHRONIZED", "RUNNING",
        "COMPUTING", "COMPUTED", "SENDING_D", "STOPPING", "STOPPED", "ERRORHANDLING",
        "ERRORRESOLVED"};
    return state < RTCOSIM_DCP_STATE_COUNT_ ? names[state] : "unknown";
}

const char *rtcosim_dcp_error_code_name(uint16_t code)
{
    switch (code) {
    case 0x0000: return "NONE";
    case 0x1001: return "PROTOCOL_ERROR_GENERIC";
    case 0x1002: return "PROTOCOL_ERROR_HEARTBEAT_MISSED";
    case 0x1003: return "PROTOCOL_ERROR_PDU_NOT_ALLOWED_IN_THIS_STATE";
    case 0x1004: return "PROTOCOL_ERROR_PROPERTY_VIOLATED";
    case 0x1005: return "PROTOCOL_ERROR_STATE_TRANSITION_IN_PROGRESS";
    case 0x2001: return "INVALID_LENGTH";
    case 0x2002: return "INVALID_LOG_CATEGORY";
    case 0x2003: return "INVALID_LOG_LEVEL";
    case 0x2004: return "INVALID_LOG_MODE";
    case 0x2005: return "INVALID_MAJOR_VERSION";
    case 0x2006: return "INVALID_MINOR_VERSION";
    case 0x2007: return "INVALID_NETWORK_INFORMATION";
    case 0x2008: return "INVALID_OP_MODE";
    case 0x2009: return "INVALID_PAYLOAD";
    case 0x200A: return "INVALID_SCOPE";
    case 0x200B: return "INVALID_SOURCE_DATA_TYPE";
    case 0x200C: return "INVALID_START_TIME";
    case 0x200D: return "INVALID_STATE_ID";
    case 0x200E: return "INVALID_STEPS";
    case 0x200F: return "INVALID_TIME_RESOLUTION";
    case 0x2010: return "INVALID_TRANSPORT_PROTOCOL";
    case 0x2011: return "INVALID_UUID";
    case 0x2012: return "INVALID_VALUE_REFERENCE";
    case 0x2013: return "INVALID_SEQUENCE_ID";
    case 0x3001: return "INCOMPLETE_CONFIG_GAP_INPUT_POS";
    case 0x3002: return "INCOMPLETE_CONFIG_GAP_OUTPUT_POS";
    case 0x3003: return "INCOMPLETE_CONFIG_GAP_TUNABLE_POS";
    case 0x3004: return "INCOMPLETE_CONFIG_NW_INFO_INPUT";
    case 0x3005: return "INCOMPLETE_CONFIG_NW_INFO_OUTPUT";
    case 0x3006: return "INCOMPLETE_CONFIG_NW_INFO_TUNABLE";
    case 0x3007: return "INCOMPLETE_CONFIG_SCOPE";
    case 0x3008: return "INCOMPLETE_CONFIG_STEPS";
    case 0x3009: return "INCOMPLETE_CONFIG_TIME_RESOLUTION";
    case 0x300A: return "INCOMPLETE_CONFIGURATION";
    case 0x4001: return "NOT_SUPPORTED_LOG_ON_NOTIFICATION";
    case 0x4002: return "NOT_SUPPORTED_LOG_ON_REQUEST";
    case 0x4003: return "NOT_SUPPORTED_VARIABLE_STEPS";
    case 0x4004: return "NOT_SUPPORTED_TRANSPORT_PROTOCOL";
    case 0x4005: return "NOT_SUPPORTED_PDU";
    case 0x4006: return "NOT_SUPPORTED_PDU_SIZE";
    default: return "unknown";
    }
}

size_t rtcosim_dcp_data_type_size(uint8_t type)
{
    static const uint8_t sizes[] = {1, 2, 4, 8, 1, 2, 4, 8, 4, 8};
    return type < sizeof sizes ? sizes[type] : 0;
}
