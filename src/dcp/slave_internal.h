/* The DCP slave object shared by its files: the session's state machine
 * (slave.c), its data and configuration (slave_data.c) and the DCPX writer. */
#ifndef RTCOSIM_DCP_SLAVE_INTERNAL_H
#define RTCOSIM_DCP_SLAVE_INTERNAL_H

#include <stdatomic.h>

#include "dcp/link.h"
#include "dcp/values.h"
#include "rtcosim/dcp.h"

#define DCP_MAX_DATA_IDS 64
/* Shortest soft real-time step period a slave accepts (STC_prepare). */
#define DCP_MIN_SRT_PERIOD_NS (100 * RTCOSIM_NS_PER_US)

/* One configured input, output or parameter: where it sits in a data PDU. */
typedef struct dcp_io {
    uint16_t data_id;
    uint16_t pos;
    uint32_t vr;
    rtcosim_type type;    /* the component variable's type */
    uint8_t wire_type;    /* DCP type on the wire (source_data_type for inputs) */
    rtcosim_value value;  /* an input's, CFG_parameter's or DAT_parameter's value to apply */
    bool pending;         /* DAT_parameter in NRT: applied at the next step (spec 3.1.18.3) */
    dcp_bytes keep;       /* a String's or Binary's bytes (value points here); kept with the
                             entry when the table is configured anew */
} dcp_io;

/* Per data_id: direction, sending period and sequence bookkeeping. */
typedef struct dcp_data_id {
    uint16_t id;
    bool is_output;
    bool has_target;
    uint8_t target_protocol;  /* RTCOSIM_DCP_UDP_IPV4 or _TCP_IPV4 */
    struct sockaddr_in target_addr;
    dcp_peer target;          /* TCP: the connection opened at STC_prepare */
    uint32_t steps;       /* CFG_steps (SRT output period in resolution steps) */
    uint16_t send_seq;    /* next pdu_seq_id sent */
    bool seen;            /* a PDU of this id was received */
    uint16_t last_seq;    /* last pdu_seq_id received */
    uint32_t missed_in_row;
    bool fresh;           /* inputs: a PDU newer than the last step's arrived */
    bool per_step;        /* inputs: the master sent fresh data for the last step */
    size_t first, count;  /* range in the sorted inputs/outputs */
    size_t payload_size;  /* with String or Binary values: the least (their lengths) */
    bool sized;           /* holds String or Binary values (payloads vary in size) */
} dcp_data_id;

struct rtcosim_dcp_slave {
    rtcosim_dcp_slave_config cfg;
    char host[64], tcp_host[64];
    char name[128];
    dcp_link link;
    rtcosim_component *probe; /* describes the variables; never stepped */
    atomic_bool stop;
    atomic_uint state_pub;
    atomic_uint sessions;

    /* Session. */
    rtcosim_component *comp;
    uint8_t state;
    uint8_t mode;
    uint8_t before_sending_d; /* state to return to after SENDING_D */
    dcp_peer master;
    uint8_t slave_id;         /* STC_register's receiver: sender of every RSP/NTF (3.4.4) */
    uint8_t uuid[16];         /* expected in STC_register (the DCPX's) */
    bool heartbeat_armed;     /* the master sent INF_state: it monitors (3.4.9) */
    uint32_t session_pdus;    /* PDUs from the master after its STC_register */
    uint32_t idle_logged;     /* link.idle_closed already logged */
    dcp_peer busy_logged;     /* the last other master told "busy" in the log */
    bool have_seq;
    uint16_t last_seq;
    uint8_t last_req_type;
    uint8_t last_rsp[16];
    size_t last_rsp_size;
    uint16_t error_code;
    bool in_init;
    bool stepping;            /* the component left initialization (STC_run) */
    rtcosim_time_ns tick_ns;
    rtcosim_time_ns t;
    rtcosim_time_ns last_heard;
    rtcosim_time_ns next_rt_step; /* SRT: monotonic time of the next step */
    uint32_t rt_steps;            /* SRT: resolution steps per real-time step */
    uint64_t rt_step_count;

    dcp_io *inputs, *outputs, *params, *tunables;
    size_t n_inputs, n_outputs, n_params, n_tunables;
    size_t cap_inputs, cap_outputs, cap_params, cap_tunables;
    dcp_data_id ids[DCP_MAX_DATA_IDS];  /* data_id of DAT_input_output */
    size_t n_ids;
    dcp_data_id pids[DCP_MAX_DATA_IDS]; /* param_id of DAT_parameter (own id space) */
    size_t n_pids;
    bool params_pending;
    /* The first input or parameter the component refused (an input PDU has
     * no answer): the session's failure names it, not what failed after. */
    bool set_failed;
    rtcosim_error set_error;
    /* CFG_logging (3.1.23): on notification (mode 2) up to log_level, or none */
    uint8_t log_mode, log_level;
    /* NRT: an STC_do_step held until its input data arrived (see step_ready). */
    bool step_held;
    uint32_t held_steps;
    rtcosim_time_ns held_since;
    /* Added to the monotonic clock (dcp_slave_now): 0 in service; the
     * fuzzer moves the slave's clock ahead with it. */
    rtcosim_time_ns clock_skew;

    uint8_t rx[RTCOSIM_DCP_MAX_PDU];
    uint8_t tx[RTCOSIM_DCP_MAX_PDU];
    uint8_t payload[RTCOSIM_DCP_MAX_PDU];
};

/* slave_data.c */
void dcp_slave_clear_config(rtcosim_dcp_slave *s);
/* Free the tables (with the bytes of their String and Binary values). */
void dcp_slave_free_tables(rtcosim_dcp_slave *s);
uint16_t dcp_slave_configure_pdu(rtcosim_dcp_slave *s, const rtcosim_dcp_pdu *p);
uint16_t dcp_slave_check_config(rtcosim_dcp_slave *s);
/* Open the TCP connections of the configured outputs (STC_prepare). */
uint16_t dcp_slave_connect_targets(rtcosim_dcp_slave *s);
rtcosim_status dcp_slave_apply_params(rtcosim_dcp_slave *s, rtcosim_error *err);
void dcp_slave_take_data(rtcosim_dcp_slave *s, const rtcosim_dcp_pdu *p);
/* DAT_parameter: values of tunable parameters, applied at once in SRT and in
 * initialization, at the next step in NRT (spec 3.1.18.3). */
void dcp_slave_take_params(rtcosim_dcp_slave *s, const rtcosim_dcp_pdu *p, bool apply_now);
/* NRT input order (spec 3.2.3.5 assumes DAT before STC_do_step; UDP does not
 * keep it): a step is ready when every input id whose master sent fresh data
 * for the previous step has fresh data again. */
void dcp_slave_inputs_begin_run(rtcosim_dcp_slave *s);
bool dcp_slave_inputs_ready(const rtcosim_dcp_slave *s);
void dcp_slave_inputs_consumed(rtcosim_dcp_slave *s);
/* The held step's missing inputs are lost: 0, or PROPERTY_VIOLATED when an
 * id lost more than maxConsecMissedPdus in a row. */
uint16_t dcp_slave_inputs_missed(rtcosim_dcp_slave *s);
/* Apply DAT_parameter values waiting for the next step. */
rtcosim_status dcp_slave_apply_pending(rtcosim_dcp_slave *s, rtcosim_error *err);
rtcosim_status dcp_slave_send_outputs(rtcosim_dcp_slave *s, uint64_t step_count, rtcosim_error *err);
dcp_data_id *dcp_slave_find_id(rtcosim_dcp_slave *s, uint16_t id, bool is_output, bool create);

/* slave.c: the two halves of rtcosim_dcp_slave_run's loop, also driven
 * directly by fuzz/fuzz_dcp_slave.c (a hostile master's PDUs, a fake clock).
 * handle_datagram: one received PDU (copied into s->rx; empty or larger than
 * RTCOSIM_DCP_MAX_PDU: ignored) from `from`, answered through the link.
 * timers: what is due at monotonic time `now` (heartbeat loss, a held NRT
 * step's input wait, the next SRT step): true when it did something (call
 * again), else false with *timeout lowered to the time until the next one. */
/* The slave's clock: dcp_now_ns() + clock_skew. */
rtcosim_time_ns dcp_slave_now(const rtcosim_dcp_slave *s);
void dcp_slave_handle_datagram(rtcosim_dcp_slave *s, const uint8_t *data, size_t size,
                               const dcp_peer *from);
bool dcp_slave_timers(rtcosim_dcp_slave *s, rtcosim_time_ns now, rtcosim_time_ns *timeout);

#endif
