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

/* Table 63 ("Allowed PDUs per State") with the reference implementation's
 * readings where the table is narrower than the transitions of 3.2.5:
 * STC_run also in SYNCHRONIZED (SYNCHRONIZED -> RUNNING; DCPLib's table and
 * example master), STC_do_step also in SYNCHRONIZING and SYNCHRONIZED (NRT
 * steps of the Run superstate, as DCPLib), CFG_steps in NRT too (DCPLib
 * refuses STC_prepare without steps for every output, INCOMPLETE_CONFIG_STEPS).
 * INF_log has no state here: without logging it is an unsupported PDU. */
bool rtcosim_dcp_request_allowed(uint8_t state, uint8_t type, uint8_t mode)
{
    if (state >= RTCOSIM_DCP_STATE_COUNT_)
        return false;
    uint32_t in = 1u << state;
    switch (type) {
    case RTCOSIM_DCP_INF_STATE:
        return true;
    case RTCOSIM_DCP_INF_ERROR: return in & (S(ERRORHANDLING) | S(ERRORRESOLVED));
    case RTCOSIM_DCP_INF_LOG: return !(in & S(ALIVE));
    case RTCOSIM_DCP_STC_REGISTER: return in & S(ALIVE);
    case RTCOSIM_DCP_STC_DEREGISTER: return in & (S(CONFIGURATION) | S(STOPPED) | S(ERRORRESOLVED));
    case RTCOSIM_DCP_STC_PREPARE: return in & S(CONFIGURATION);
    case RTCOSIM_DCP_STC_CONFIGURE: return in & S(PREPARED);
    case RTCOSIM_DCP_STC_INITIALIZE: return in & S(CONFIGURED);
    case RTCOSIM_DCP_STC_SEND_OUTPUTS:
        return (in & S(INITIALIZED)) || (mode == RTCOSIM_DCP_OP_NRT && (in & S(COMPUTED)));
    /* synchronize: CONFIGURED -> SYNCHRONIZING (3.2.5.20); run: -> RUNNING. */
    case RTCOSIM_DCP_STC_RUN: return in & (S(CONFIGURED) | S(SYNCHRONIZED));
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
