/* Which request PDU the slave accepts in which state: the transitions of
 * DCP 1.0 section 3.2.5 (register, prepare, configure, initialize,
 * send_outputs_i/_d, synchronize/run, do_step, stop, reset, deregister),
 * plus INF_* in every state. A request outside this table is answered with
 * RSP_nack PROTOCOL_ERROR_PDU_NOT_ALLOWED_IN_THIS_STATE. */
#include "rtcosim/dcp.h"

#define S(x) (1u << RTCOSIM_DCP_##x)

/* STC_stop leaves every state of the Normal Operation superstate but ALIVE,
 * CONFIGURATION, STOPPING and STOPPED (3.2.5.13). */
static const uint32_t stoppable =
    S(PREPARING) | S(PREPARED) | S(CONFIGURING) | S(CONFIGURED) | S(INITIALIZING) |
    S(INITIALIZED) | S(SENDING_I) | S(SYNCHRONIZING) | S(SYNCHRONIZED) | S(RUNNING) |
    S(COMPUTING) | S(COMPUTED) | S(SENDING_D);

/* States in which input data are taken (Initialization and Run superstates). */
static const uint32_t takes_data =
    S(CONFIGURED) | S(INITIALIZING) | S(INITIALIZED) | S(SENDING_I) | S(SYNCHRONIZING) |
    S(SYNCHRONIZED) | S(RUNNING) | S(COMPUTED) | S(SENDING_D) | S(COMPUTING);

bool rtcosim_dcp_request_allowed(uint8_t state, uint8_t type, uint8_t mode)
{
    if (state >= RTCOSIM_DCP_STATE_COUNT_)
        return false;
    uint32_t in = 1u << state;
    switch (type) {
    case RTCOSIM_DCP_INF_STATE: case RTCOSIM_DCP_INF_ERROR: case RTCOSIM_DCP_INF_LOG:
        return true;
    case RTCOSIM_DCP_STC_REGISTER: return in & S(ALIVE);
    case RTCOSIM_DCP_STC_DEREGISTER: return in & (S(CONFIGURATION) | S(STOPPED) | S(ERRORRESOLVED));
    case RTCOSIM_DCP_STC_PREPARE: return in & S(CONFIGURATION);
    case RTCOSIM_DCP_STC_CONFIGURE: return in & S(PREPARED);
    case RTCOSIM_DCP_STC_INITIALIZE: return in & S(CONFIGURED);
    case RTCOSIM_DCP_STC_SEND_OUTPUTS: return in & (S(INITIALIZED) | S(COMPUTED));
    /* synchronize: CONFIGURED -> SYNCHRONIZING (3.2.5.20); run: -> RUNNING. */
    case RTCOSIM_DCP_STC_RUN: return in & (S(CONFIGURED) | S(SYNCHRONIZING) | S(SYNCHRONIZED));
    case RTCOSIM_DCP_STC_DO_STEP:
        return mode == RTCOSIM_DCP_OP_NRT && (in & (S(SYNCHRONIZING) | S(SYNCHRONIZED) | S(RUNNING)));
    case RTCOSIM_DCP_STC_STOP: return in & stoppable;
    case RTCOSIM_DCP_STC_RESET: return in & (S(STOPPED) | S(ERRORRESOLVED));
    case RTCOSIM_DCP_CFG_TIME_RES: case RTCOSIM_DCP_CFG_STEPS: case RTCOSIM_DCP_CFG_INPUT:
    case RTCOSIM_DCP_CFG_OUTPUT: case RTCOSIM_DCP_CFG_CLEAR:
    case RTCOSIM_DCP_CFG_TARGET_NETWORK_INFORMATION: case RTCOSIM_DCP_CFG_SOURCE_NETWORK_INFORMATION:
    case RTCOSIM_DCP_CFG_PARAMETER: case RTCOSIM_DCP_CFG_TUNABLE_PARAMETER:
    case RTCOSIM_DCP_CFG_PARAM_NETWORK_INFORMATION: case RTCOSIM_DCP_CFG_LOGGING:
    case RTCOSIM_DCP_CFG_SCOPE:
        return in & S(CONFIGURATION);
    case RTCOSIM_DCP_DAT_INPUT_OUTPUT: return in & takes_data;
    case RTCOSIM_DCP_DAT_PARAMETER: return in & (takes_data | S(CONFIGURED));
    default:
        return false;
    }
}
