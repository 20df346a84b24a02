/* DCP 1.0 (Modelica Association Distributed Co-Simulation Protocol): PDU
 * encoding and decoding, the slave state machine, time resolution, a slave
 * that serves any rtcosim component over UDP/IPv4, and a master session that
 * drives a remote slave as an rtcosim component. Byte layouts, state ids,
 * error codes and type ids follow the DCP 1.0 specification (sections 3.2
 * state machine, 3.3 PDUs); all integers on the wire are little-endian. */
#ifndef RTCOSIM_DCP_H
#define RTCOSIM_DCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtcosim/component.h"
#include "rtcosim/status.h"
#include "rtcosim/time.h"

#ifdef __cplusplus
extern "C" {
#endif

/* PDU type ids (spec 3.3). */
typedef enum rtcosim_dcp_pdu_type {
    RTCOSIM_DCP_STC_REGISTER = 0x01,
    RTCOSIM_DCP_STC_DEREGISTER = 0x02,
    RTCOSIM_DCP_STC_PREPARE = 0x03,
    RTCOSIM_DCP_STC_CONFIGURE = 0x04,
    RTCOSIM_DCP_STC_INITIALIZE = 0x05,
    RTCOSIM_DCP_STC_RUN = 0x06,
    RTCOSIM_DCP_STC_DO_STEP = 0x07,
    RTCOSIM_DCP_STC_SEND_OUTPUTS = 0x08,
    RTCOSIM_DCP_STC_STOP = 0x09,
    RTCOSIM_DCP_STC_RESET = 0x0A,
    RTCOSIM_DCP_CFG_TIME_RES = 0x20,
    RTCOSIM_DCP_CFG_STEPS = 0x21,
    RTCOSIM_DCP_CFG_INPUT = 0x22,
    RTCOSIM_DCP_CFG_OUTPUT = 0x23,
    RTCOSIM_DCP_CFG_CLEAR = 0x24,
    RTCOSIM_DCP_CFG_TARGET_NETWORK_INFORMATION = 0x25,
    RTCOSIM_DCP_CFG_SOURCE_NETWORK_INFORMATION = 0x26,
    RTCOSIM_DCP_CFG_PARAMETER = 0x27,
    RTCOSIM_DCP_CFG_TUNABLE_PARAMETER = 0x28,
    RTCOSIM_DCP_CFG_PARAM_NETWORK_INFORMATION = 0x29,
    RTCOSIM_DCP_CFG_LOGGING = 0x2A,
    RTCOSIM_DCP_CFG_SCOPE = 0x2B,
    RTCOSIM_DCP_INF_STATE = 0x80,
    RTCOSIM_DCP_INF_ERROR = 0x81,
    RTCOSIM_DCP_INF_LOG = 0x82,
    RTCOSIM_DCP_RSP_ACK = 0xB0,
    RTCOSIM_DCP_RSP_NACK = 0xB1,
    RTCOSIM_DCP_RSP_STATE_ACK = 0xB2,
    RTCOSIM_DCP_RSP_ERROR_ACK = 0xB3,
    RTCOSIM_DCP_RSP_LOG_ACK = 0xB4,
    RTCOSIM_DCP_NTF_STATE_CHANGED = 0xE0,
    RTCOSIM_DCP_NTF_LOG = 0xE1,
    RTCOSIM_DCP_DAT_INPUT_OUTPUT = 0xF0,
    RTCOSIM_DCP_DAT_PARAMETER = 0xF1
} rtcosim_dcp_pdu_type;

/* The 19 slave states and their ids (spec 3.2.4, table 13). */
typedef enum rtcosim_dcp_state {
    RTCOSIM_DCP_ALIVE = 0x00,
    RTCOSIM_DCP_CONFIGURATION = 0x01,
    RTCOSIM_DCP_PREPARING = 0x02,
    RTCOSIM_DCP_PREPARED = 0x03,
    RTCOSIM_DCP_CONFIGURING = 0x04,
    RTCOSIM_DCP_CONFIGURED = 0x05,
    RTCOSIM_DCP_INITIALIZING = 0x06,
    RTCOSIM_DCP_INITIALIZED = 0x07,
    RTCOSIM_DCP_SENDING_I = 0x08,
    RTCOSIM_DCP_SYNCHRONIZING = 0x09,
    RTCOSIM_DCP_SYNCHRONIZED = 0x0A,
    RTCOSIM_DCP_RUNNING = 0x0B,
    RTCOSIM_DCP_COMPUTING = 0x0C,
    RTCOSIM_DCP_COMPUTED = 0x0D,
    RTCOSIM_DCP_SENDING_D = 0x0E,
    RTCOSIM_DCP_STOPPING = 0x0F,
    RTCOSIM_DCP_STOPPED = 0x10,
    RTCOSIM_DCP_ERRORHANDLING = 0x11,
    RTCOSIM_DCP_ERRORRESOLVED = 0x12,
    RTCOSIM_DCP_STATE_COUNT_ = 0x13
} rtcosim_dcp_state;

/* Error codes carried by RSP_nack and RSP_error_ack (spec 3.3). */
typedef enum rtcosim_dcp_error_code {
    RTCOSIM_DCP_ERR_NONE = 0x0000,
    RTCOSIM_DCP_ERR_PROTOCOL_ERROR_GENERIC = 0x1001,
    RTCOSIM_DCP_ERR_PROTOCOL_ERROR_HEARTBEAT_MISSED = 0x1002,
    RTCOSIM_DCP_ERR_PROTOCOL_ERROR_PDU_NOT_ALLOWED_IN_THIS_STATE = 0x1003,
    RTCOSIM_DCP_ERR_PROTOCOL_ERROR_PROPERTY_VIOLATED = 0x1004,
    RTCOSIM_DCP_ERR_PROTOCOL_ERROR_STATE_TRANSITION_IN_PROGRESS = 0x1005,
    RTCOSIM_DCP_ERR_INVALID_LENGTH = 0x2001,
    RTCOSIM_DCP_ERR_INVALID_LOG_CATEGORY = 0x2002,
    RTCOSIM_DCP_ERR_INVALID_LOG_LEVEL = 0x2003,
    RTCOSIM_DCP_ERR_INVALID_LOG_MODE = 0x2004,
    RTCOSIM_DCP_ERR_INVALID_MAJOR_VERSION = 0x2005,
    RTCOSIM_DCP_ERR_INVALID_MINOR_VERSION = 0x2006,
    RTCOSIM_DCP_ERR_INVALID_NETWORK_INFORMATION = 0x2007,
    RTCOSIM_DCP_ERR_INVALID_OP_MODE = 0x2008,
    RTCOSIM_DCP_ERR_INVALID_PAYLOAD = 0x2009,
    RTCOSIM_DCP_ERR_INVALID_SCOPE = 0x200A,
    RTCOSIM_DCP_ERR_INVALID_SOURCE_DATA_TYPE = 0x200B,
    RTCOSIM_DCP_ERR_INVALID_START_TIME = 0x200C,
    RTCOSIM_DCP_ERR_INVALID_STATE_ID = 0x200D,
    RTCOSIM_DCP_ERR_INVALID_STEPS = 0x200E,
    RTCOSIM_DCP_ERR_INVALID_TIME_RESOLUTION = 0x200F,
    RTCOSIM_DCP_ERR_INVALID_TRANSPORT_PROTOCOL = 0x2010,
    RTCOSIM_DCP_ERR_INVALID_UUID = 0x2011,
    RTCOSIM_DCP_ERR_INVALID_VALUE_REFERENCE = 0x2012,
    RTCOSIM_DCP_ERR_INVALID_SEQUENCE_ID = 0x2013,
    RTCOSIM_DCP_ERR_INCOMPLETE_CONFIG_GAP_INPUT_POS = 0x3001,
    RTCOSIM_DCP_ERR_INCOMPLETE_CONFIG_GAP_OUTPUT_POS = 0x3002,
    RTCOSIM_DCP_ERR_INCOMPLETE_CONFIG_GAP_TUNABLE_POS = 0x3003,
    RTCOSIM_DCP_ERR_INCOMPLETE_CONFIG_NW_INFO_INPUT = 0x3004,
    RTCOSIM_DCP_ERR_INCOMPLETE_CONFIG_NW_INFO_OUTPUT = 0x3005,
    RTCOSIM_DCP_ERR_INCOMPLETE_CONFIG_NW_INFO_TUNABLE = 0x3006,
    RTCOSIM_DCP_ERR_INCOMPLETE_CONFIG_SCOPE = 0x3007,
    RTCOSIM_DCP_ERR_INCOMPLETE_CONFIG_STEPS = 0x3008,
    RTCOSIM_DCP_ERR_INCOMPLETE_CONFIG_TIME_RESOLUTION = 0x3009,
    RTCOSIM_DCP_ERR_INCOMPLETE_CONFIGURATION = 0x300A,
    RTCOSIM_DCP_ERR_NOT_SUPPORTED_LOG_ON_NOTIFICATION = 0x4001,
    RTCOSIM_DCP_ERR_NOT_SUPPORTED_LOG_ON_REQUEST = 0x4002,
    RTCOSIM_DCP_ERR_NOT_SUPPORTED_VARIABLE_STEPS = 0x4003,
    RTCOSIM_DCP_ERR_NOT_SUPPORTED_TRANSPORT_PROTOCOL = 0x4004,
    RTCOSIM_DCP_ERR_NOT_SUPPORTED_PDU = 0x4005,
    RTCOSIM_DCP_ERR_NOT_SUPPORTED_PDU_SIZE = 0x4006
} rtcosim_dcp_error_code;

typedef enum rtcosim_dcp_op_mode {
    RTCOSIM_DCP_OP_HRT = 0, /* hard real time */
    RTCOSIM_DCP_OP_SRT = 1, /* soft real time */
    RTCOSIM_DCP_OP_NRT = 2  /* non-real time */
} rtcosim_dcp_op_mode;

/* Data type ids used in source_data_type fields. */
typedef enum rtcosim_dcp_data_type {
    RTCOSIM_DCP_UINT8 = 0, RTCOSIM_DCP_UINT16 = 1, RTCOSIM_DCP_UINT32 = 2,
    RTCOSIM_DCP_UINT64 = 3, RTCOSIM_DCP_INT8 = 4, RTCOSIM_DCP_INT16 = 5,
    RTCOSIM_DCP_INT32 = 6, RTCOSIM_DCP_INT64 = 7, RTCOSIM_DCP_FLOAT32 = 8,
    RTCOSIM_DCP_FLOAT64 = 9, RTCOSIM_DCP_STRING = 10, RTCOSIM_DCP_BINARY = 11
} rtcosim_dcp_data_type;

typedef enum rtcosim_dcp_transport {
    RTCOSIM_DCP_UDP_IPV4 = 0,
    RTCOSIM_DCP_BLUETOOTH = 1,
    RTCOSIM_DCP_CAN = 2,
    RTCOSIM_DCP_USB = 3,
    RTCOSIM_DCP_TCP_IPV4 = 4
} rtcosim_dcp_transport;

/* Largest PDU this implementation sends or accepts (one UDP datagram). */
#define RTCOSIM_DCP_MAX_PDU 65507u

/* TCP/IPv4 (transport protocol 0x04) carries PDUs in a byte stream, each
 * behind its size as a 4-byte little-endian unsigned integer that does not
 * count itself (length-prefix framing, DCP 1.0 section 4.2.3.2). */
#define RTCOSIM_DCP_TCP_PREFIX 4u
/* Look at the start of a received stream: 1 when it holds a whole frame
 * (*pdu_size is the PDU's size, the PDU starts RTCOSIM_DCP_TCP_PREFIX bytes
 * in), 0 when more bytes are needed, -1 when the length is 0 or larger than
 * max_pdu (the stream cannot be resynchronized and must be closed). */
int rtcosim_dcp_tcp_frame(const uint8_t *buf, size_t size, size_t max_pdu, size_t *pdu_size);

/* A decoded PDU. Fields not used by `type` are zero. Variable-length parts
 * (`payload`) point into the decoded buffer. */
typedef struct rtcosim_dcp_pdu {
    uint8_t type;        /* rtcosim_dcp_pdu_type */
    uint16_t seq_id;     /* pdu_seq_id, or resp_seq_id of RSP_* */
    uint8_t receiver;    /* requests: receiver; RSP_* and NTF_*: sender */
    uint8_t state_id;    /* STC_*, RSP_state_ack, NTF_state_changed */
    uint8_t uuid[16];    /* STC_register slave_uuid */
    uint8_t op_mode, major_version, minor_version; /* STC_register */
    int64_t start_time;  /* STC_run (absolute time, seconds since epoch) */
    uint32_t steps;      /* STC_do_step, CFG_steps */
    uint32_t numerator, denominator; /* CFG_time_res */
    uint16_t data_id;    /* CFG_steps/input/output/network/scope, DAT_*; param_id too */
    uint16_t pos;        /* CFG_input/output/tunable_parameter */
    uint64_t value_reference; /* target_vr, source_vr, parameter_vr */
    uint8_t source_data_type;
    uint8_t transport_protocol;
    uint16_t port;       /* network information */
    uint32_t ip_address; /* network information, host order (a.b.c.d = a<<24|..) */
    uint8_t log_category, log_level, log_mode, log_max_num, log_template_id;
    uint8_t scope;
    uint16_t exp_seq_id; /* RSP_nack */
    uint16_t error_code; /* RSP_nack, RSP_error_ack */
    const uint8_t *payload; /* CFG_parameter value, DAT_* payload, logs */
    size_t payload_size;
} rtcosim_dcp_pdu;

const char *rtcosim_dcp_pdu_type_name(uint8_t type);   /* "STC_register"; "unknown" */
const char *rtcosim_dcp_state_name(uint8_t state);     /* "ALIVE"; "unknown" */
const char *rtcosim_dcp_error_code_name(uint16_t code);/* "INVALID_LENGTH"; "unknown" */
/* Byte size of one value of a fixed-size data type; 0 for string/binary/unknown. */
size_t rtcosim_dcp_data_type_size(uint8_t type);

/* Encode `pdu` into buf (capacity cap). Writes *size. RTCOSIM_EINVAL for an
 * unknown type or a buffer too small. */
rtcosim_status rtcosim_dcp_pdu_encode(const rtcosim_dcp_pdu *pdu, uint8_t *buf, size_t cap,
                                      size_t *size, rtcosim_error *err);
/* Decode one PDU. Never reads outside [buf, buf+size). On failure *dcp_error
 * (may be NULL) receives the spec's code: NOT_SUPPORTED_PDU for an unknown
 * type id, INVALID_LENGTH for a length that does not match the type. */
rtcosim_status rtcosim_dcp_pdu_decode(const uint8_t *buf, size_t size, rtcosim_dcp_pdu *pdu,
                                      uint16_t *dcp_error, rtcosim_error *err);

/* True when a request PDU of `type` is allowed in `state` for a slave in
 * `mode` (spec 3.2.5 transitions; INF_* in every state; CFG_* only in
 * CONFIGURATION; STC_do_step only in NRT). Data PDUs: true where the slave
 * takes data (they are never answered, only dropped elsewhere). */
bool rtcosim_dcp_request_allowed(uint8_t state, uint8_t type, uint8_t mode);

/* slave_uuid (spec 3.3.3.22): the 16 bytes in the order the RFC 4122 string
 * "8-4-4-4-12" shows them, as the reference implementation sends them.
 * parse: false unless text is exactly that form (either case). */
bool rtcosim_dcp_uuid_parse(const char *text, uint8_t uuid[16]);
void rtcosim_dcp_uuid_format(const uint8_t uuid[16], char text[37]);
bool rtcosim_dcp_uuid_is_nil(const uint8_t uuid[16]);
/* The uuid an rtcosim slave of this dcpSlaveName writes into its DCPX and
 * expects in STC_register (a fixed fingerprint of the name). */
void rtcosim_dcp_uuid_of_name(const char *name, uint8_t uuid[16]);

/* Time resolution numerator/denominator seconds to nanosecond ticks: exact or
 * RTCOSIM_EUNSUPPORTED naming the fraction (e.g. 1/3 s is no whole number of
 * ns); zero values give RTCOSIM_EINVAL. */
rtcosim_status rtcosim_dcp_resolution_to_ns(uint32_t numerator, uint32_t denominator,
                                            rtcosim_time_ns *tick_ns, rtcosim_error *err);
/* steps * tick, with an overflow check. */
rtcosim_status rtcosim_dcp_steps_to_ns(uint64_t steps, rtcosim_time_ns tick_ns,
                                       rtcosim_time_ns *out, rtcosim_error *err);

/* ---- Slave ---- */

typedef struct rtcosim_dcp_slave rtcosim_dcp_slave; /* opaque */

/* Makes a fresh component for each session (STC_register). */
typedef rtcosim_status (*rtcosim_dcp_component_factory)(void *context, rtcosim_component **out,
                                                        rtcosim_error *err);

typedef struct rtcosim_dcp_slave_config {
    const char *host;  /* UDP: IPv4 address to bind, e.g. "127.0.0.1"; NULL: no UDP */
    uint16_t port;     /* UDP: 0: any free port (see rtcosim_dcp_slave_port) */
    /* TCP/IPv4 control port, served beside UDP on the same epoll loop
     * (NULL: no TCP; port 0: any free port, see rtcosim_dcp_slave_tcp_port). */
    const char *tcp_host;
    uint16_t tcp_port;
    rtcosim_dcp_component_factory factory;
    void *factory_context;
    /* Heartbeat (spec 3.4.9.2): once the registered master has sent INF_state,
     * a silence this long (no PDU at all) is PROTOCOL_ERROR_HEARTBEAT_MISSED:
     * ERRORHANDLING, ERRORRESOLVED, then ALIVE for the next master (0: 2 s).
     * A master that never sent INF_state has configured no heartbeat and is
     * never declared lost for silence (the DCPLib master sends none). */
    rtcosim_time_ns heartbeat_timeout_ns;
    /* Data PDUs of one data_id lost in a row before the slave goes to
     * ERRORHANDLING with PROTOCOL_ERROR_PROPERTY_VIOLATED (0: 10). */
    uint32_t max_consec_missed_pdus;
    /* Busy-poll this long before sleeping in epoll (0: 200 us; the kernel
     * wake-up costs ~50 us on this machine, BENCHMARKS.md). */
    rtcosim_time_ns spin_ns;
    const char *name;  /* dcpSlaveName; NULL: the component's model name */
    /* NRT: UDP may deliver STC_do_step before the DAT_input_output sent
     * ahead of it. A master that sent fresh inputs for the previous step is
     * waited for this long (0: 10 ms; reordering on a network is far
     * shorter, and a soft real-time partner must not stall on a lost PDU)
     * for the next ones; then they count as lost (maxConsecMissedPdus) and
     * the step uses the inputs it has. */
    rtcosim_time_ns input_wait_ns;
    /* Offer NRT only: STC_register in SRT gets RSP_nack INVALID_OP_MODE and
     * the DCPX lists only NonRealTime (as a slave without a real-time clock). */
    bool nrt_only;
} rtcosim_dcp_slave_config;

/* Creates a probe component to learn the variables, binds the UDP socket
 * and/or listens on the TCP port (at least one of them). */
rtcosim_status rtcosim_dcp_slave_create(const rtcosim_dcp_slave_config *config,
                                        rtcosim_dcp_slave **out, rtcosim_error *err);
uint16_t rtcosim_dcp_slave_port(const rtcosim_dcp_slave *slave);     /* UDP; 0 without */
uint16_t rtcosim_dcp_slave_tcp_port(const rtcosim_dcp_slave *slave); /* TCP; 0 without */
/* Serve sessions one after another until rtcosim_dcp_slave_stop (from any
 * thread or a signal handler). Returns RTCOSIM_OK after stop. */
rtcosim_status rtcosim_dcp_slave_run(rtcosim_dcp_slave *slave, rtcosim_error *err);
void rtcosim_dcp_slave_stop(rtcosim_dcp_slave *slave);
uint8_t rtcosim_dcp_slave_state(const rtcosim_dcp_slave *slave); /* thread-safe read */
uint32_t rtcosim_dcp_slave_sessions(const rtcosim_dcp_slave *slave); /* registrations so far */
/* Write the slave's DCPX description (dcpSlaveDescription 1.0) to path. */
rtcosim_status rtcosim_dcp_slave_write_dcpx(const rtcosim_dcp_slave *slave, const char *path,
                                            rtcosim_error *err);
void rtcosim_dcp_slave_free(rtcosim_dcp_slave *slave);

/* ---- Master side: a remote slave as an rtcosim component ---- */

typedef struct rtcosim_dcp_remote_config {
    const char *host;  /* slave's IPv4 address */
    uint16_t port;     /* slave's control port */
    /* RTCOSIM_DCP_UDP_IPV4 (0, the default) or RTCOSIM_DCP_TCP_IPV4: the
     * master connects to the control port, sends inputs on that connection
     * and listens on a port of its own for the slave's output connection
     * (CFG_target_network_information, as the reference implementation). */
    uint8_t transport;
    /* Per request: retransmit after this long without an answer (0: 100 ms),
     * give up after `attempts` sends (0: 20) with RTCOSIM_ETIMEOUT. */
    rtcosim_time_ns retry_ns;
    uint32_t attempts;
    rtcosim_time_ns spin_ns; /* as in the slave config (0: 200 us) */
    /* While the master is idle between calls (other components computing,
     * a paused run), INF_state goes out this often so that the slave's
     * heartbeat monitor keeps the session (0: 500 ms; < 0: never). */
    rtcosim_time_ns heartbeat_ns;
    /* For a non-real-time partner of a real-time run: a step whose output
     * DAT_input_output is lost (DCP 1.0 cannot ask for it again) ends after
     * one retry_ns with the outputs of the step before held, as soft real
     * time treats lost data; more than max_missed_outputs (0: 10, the spec's
     * maxConsecMissedPdus default) lost in a row fail the step. false: a lost
     * output fails the step after `attempts` waits (NRT lock step). */
    bool hold_lost_outputs;
    uint32_t max_missed_outputs;
    /* Soft real time (DCP 1.0 SRT) for a real-time run's partner: STC_register
     * with op mode SRT, CFG_steps of srt_step_ns, STC_run at the first
     * do_step; the slave then steps on its own clock and sends its outputs
     * every step, the master sends the inputs as DAT_input_output at each
     * do_step, never STC_do_step. do_step(t, h) (h must be srt_step_ns)
     * waits for the slave's step (t + h) / h: its output PDU (a lost one: the
     * newest step before it), at most srt_wait_ns (0: retry_ns * attempts),
     * then fails. A slave that refuses SRT (RSP_nack INVALID_OP_MODE) or
     * whose DCPX offers none (no_srt) is driven in NRT lock step instead,
     * with an info line (log category "dcp"). */
    bool soft_real_time;
    bool no_srt;
    rtcosim_time_ns srt_step_ns;
    rtcosim_time_ns srt_wait_ns;
    /* STC_register's slave_uuid (the DCPX's uuid); all zero when unknown
     * (--dcp HOST:PORT without a DCPX): an rtcosim slave accepts that with a
     * warning, a slave that checks it (DCPLib) refuses with INVALID_UUID. */
    uint8_t uuid[16];
    /* CFG_time_res (the DCPX's TimeRes, see rtcosim_dcpx_time_resolution);
     * 0/0: 1/1000000000 s. Steps of do_step must be whole multiples of it. */
    uint32_t time_res_numerator, time_res_denominator;
    /* Per variable of the description (same order), the DCPX's maxSize of a
     * String or Binary (0: none); NULL: none at all. A value longer than
     * maxSize - 4 bytes is refused when set, naming the variable: DCPLib's
     * slave counts the 4-byte length in maxSize and, given more, cuts the
     * value and reads the rest of the PDU from the wrong offset. */
    const uint32_t *max_sizes;
    /* The slave's log templates (its DCPX's Log element; copied). With any,
     * and log_on_notification, the master configures logging on
     * notification for every category up to the information level
     * (CFG_logging) and logs each NTF_log with its template filled in; an
     * error-level entry is added to the error of a slave that fails. */
    const struct rtcosim_dcp_log_template *log_templates;
    size_t log_template_count;
    bool log_on_notification;
} rtcosim_dcp_remote_config;

/* The operating mode a "dcp" component was registered in (RTCOSIM_DCP_OP_NRT
 * or _SRT); NRT before instantiate. */
uint8_t rtcosim_dcp_remote_op_mode(const rtcosim_component *component);

/* A component of kind "dcp" that drives the slave in NRT lock step (or in
 * soft real time, see rtcosim_dcp_remote_config.soft_real_time). Its
 * variables are `variables` (usually the local description of the component
 * the slave serves, or a DCPX); value references are the slave's. instantiate
 * registers, exit_init configures (inputs, outputs, parameters set so far),
 * initializes and runs; each do_step sends the inputs, STC_do_step and
 * STC_send_outputs and waits for the outputs; terminate stops and
 * deregisters. The variable table is copied. */
rtcosim_status rtcosim_dcp_remote_create(const rtcosim_dcp_remote_config *config,
                                         const rtcosim_component_desc *desc,
                                         rtcosim_component **out, rtcosim_error *err);

/* Is this component source a DCP slave description (ends in .dcpx, ASCII
 * case ignored): a remote slave, not a file to load? NULL: false. */
bool rtcosim_dcp_is_dcpx(const char *path);

/* The remote slave a DCPX file describes, as a "dcp" component (an SSD
 * component whose source is a .dcpx): UDP_IPv4 Control host/port if given,
 * else TCP_IPv4's; neither: instantiate fails asking for --dcp. */
rtcosim_status rtcosim_dcp_remote_from_dcpx(const char *path, rtcosim_component **out,
                                            rtcosim_error *err);

/* Components of a system bound to remote slaves ("COMPONENT=HOST:PORT"), for
 * rtcosim_system_build_options.wrap: the loaded component of that name is
 * replaced by a "dcp" component with its description (the same model served
 * by the slave) and freed. */
typedef struct rtcosim_dcp_bindings rtcosim_dcp_bindings;
/* An empty list (for the wrap of components from a .dcpx in real-time runs). */
rtcosim_status rtcosim_dcp_bindings_create(rtcosim_dcp_bindings **bindings, rtcosim_error *err);
/* *bindings NULL creates the list. A malformed spec fails naming it. */
rtcosim_status rtcosim_dcp_bindings_add(rtcosim_dcp_bindings **bindings, const char *spec,
                                        rtcosim_error *err);
/* The wrap callback; context is the bindings. With soft_real_time set, a
 * component from a .dcpx (kind "dcp") that no binding names becomes a soft
 * real-time partner too; a rebound one keeps its DCPX's SRT capability. */
rtcosim_status rtcosim_dcp_bindings_wrap(void *context, const char *name,
                                         rtcosim_component *component, rtcosim_component **out,
                                         rtcosim_error *err);
/* RTCOSIM_ENOTFOUND naming a bound component that the system did not have. */
rtcosim_status rtcosim_dcp_bindings_check_used(const rtcosim_dcp_bindings *bindings,
                                               rtcosim_error *err);
/* Make the remote slaves of later builds hold lost outputs
 * (rtcosim_dcp_remote_config.hold_lost_outputs): a real-time run's partner. */
void rtcosim_dcp_bindings_hold_lost_outputs(rtcosim_dcp_bindings *bindings, bool hold);
/* Make the remote slaves of later builds soft real-time partners
 * (rtcosim_dcp_remote_config.soft_real_time). */
void rtcosim_dcp_bindings_soft_real_time(rtcosim_dcp_bindings *bindings, bool srt);
/* For rtcosim_system_rt_options.partner_prepare (context: the bindings): the
 * real-time run's macro step is the SRT step; the partner timeout bounds how
 * long a step waits for the slave's outputs. */
void rtcosim_dcp_bindings_partner_prepare(void *context, rtcosim_time_ns macro_step,
                                          rtcosim_time_ns partner_timeout);
/* The bound components' names, in the order given. */
size_t rtcosim_dcp_bindings_count(const rtcosim_dcp_bindings *bindings);
const char *rtcosim_dcp_bindings_component(const rtcosim_dcp_bindings *bindings, size_t index);
/* The first bound component no build has replaced yet; NULL when all were. */
const char *rtcosim_dcp_bindings_unused(const rtcosim_dcp_bindings *bindings);
void rtcosim_dcp_bindings_free(rtcosim_dcp_bindings *bindings);

/* ---- DCPX slave descriptions (dcpSlaveDescription, DCP 1.0 XSD) ---- */

typedef struct rtcosim_dcpx rtcosim_dcpx; /* opaque parsed description */

/* Parse DCPX text; file_name names the source in errors. Variables with a
 * scalar Input, Output or Parameter of a numeric type become component
 * variables; String/Binary and dimensioned variables are skipped. */
rtcosim_status rtcosim_dcpx_parse(const char *xml, size_t size, const char *file_name,
                                  rtcosim_dcpx **out, rtcosim_error *err);
rtcosim_status rtcosim_dcpx_load(const char *path, rtcosim_dcpx **out, rtcosim_error *err);
void rtcosim_dcpx_free(rtcosim_dcpx *d);
const char *rtcosim_dcpx_slave_name(const rtcosim_dcpx *d);
/* UDP_IPv4 Control host and port (host NULL, port 0 when absent). */
const char *rtcosim_dcpx_host(const rtcosim_dcpx *d);
uint16_t rtcosim_dcpx_port(const rtcosim_dcpx *d);
/* TCP_IPv4 Control host and port (host NULL, port 0 when absent). */
const char *rtcosim_dcpx_tcp_host(const rtcosim_dcpx *d);
uint16_t rtcosim_dcpx_tcp_port(const rtcosim_dcpx *d);
bool rtcosim_dcpx_supports(const rtcosim_dcpx *d, rtcosim_dcp_op_mode mode);
/* The dcpSlaveDescription's uuid attribute as bytes; false when absent or
 * not in RFC 4122 form. */
bool rtcosim_dcpx_uuid(const rtcosim_dcpx *d, uint8_t uuid[16]);
/* The time resolution the master configures (CFG_time_res) from TimeRes: 1 ns
 * when a Resolution or ResolutionRange allows it, else the finest one that is
 * a whole number of nanoseconds; no TimeRes: 1/1000000000. (The DCPX reader
 * refuses a TimeRes of which nothing is a whole number of ns.) */
void rtcosim_dcpx_time_resolution(const rtcosim_dcpx *d, uint32_t *numerator,
                                  uint32_t *denominator);
/* The variables as a component description (for rtcosim_dcp_remote_create). */
const rtcosim_component_desc *rtcosim_dcpx_component_desc(const rtcosim_dcpx *d);
/* Per variable of that description, its String's or Binary's maxSize (0:
 * none declared), for rtcosim_dcp_remote_config.max_sizes. */
const uint32_t *rtcosim_dcpx_max_sizes(const rtcosim_dcpx *d);
/* The Log element's templates (DCP 1.0 section 5.14): id, category, level
 * (0 fatal, 1 error, 2 warning, 3 information, 4 debug) and the message,
 * whose placeholders are "%" and a data type name ("%string", "%float64";
 * "%%" is a percent sign). */
typedef struct rtcosim_dcp_log_template {
    uint8_t id, category, level;
    const char *msg;
} rtcosim_dcp_log_template;
const rtcosim_dcp_log_template *rtcosim_dcpx_log_templates(const rtcosim_dcpx *d, size_t *count);
/* The log category and the template (level error, msg "%string") of an
 * rtcosim slave's failures, as its DCPX declares them. */
#define RTCOSIM_DCP_SLAVE_LOG_CATEGORY 1
#define RTCOSIM_DCP_SLAVE_LOG_FAILURE 1
/* CapabilityFlags canProvideLogOnNotification. */
bool rtcosim_dcpx_log_on_notification(const rtcosim_dcpx *d);
/* Whether rtcosim wrote the description (generationTool="rtcosim"). */
bool rtcosim_dcpx_by_rtcosim(const rtcosim_dcpx *d);
/* A log entry's text: the template's message with the arguments (NTF_log's
 * log_arg_val: each placeholder's value in order, numbers little-endian,
 * string and binary as a uint32 length and the bytes; a binary shown in
 * hex) filled in, into out (capacity cap, always terminated). false when
 * the arguments do not fit the placeholders (what fits is shown, then
 * "<?>"). */
bool rtcosim_dcp_log_format(const char *msg, const uint8_t *args, size_t size, char *out,
                            size_t cap);
/* Write a DCPX for `desc` served at host:port (UDP_IPv4; host NULL: none)
 * and tcp_host:tcp_port (TCP_IPv4; NULL: none), NRT (and SRT when srt), resolution
 * range 1 ns ... 4.29 s, heartbeat `heartbeat_ns`. */
rtcosim_status rtcosim_dcpx_write(const rtcosim_component_desc *desc, const char *slave_name,
                                  const char *host, uint16_t port, const char *tcp_host,
                                  uint16_t tcp_port, rtcosim_time_ns heartbeat_ns, bool srt,
                                  const char *path, rtcosim_error *err);

#ifdef __cplusplus
}
#endif
#endif
