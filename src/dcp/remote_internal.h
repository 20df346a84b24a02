/* The master-side remote slave shared by remote.c (the component, NRT lock
 * step) and remote_srt.c (soft real time): the session object and the
 * request/notification helpers both modes use. */
#ifndef RTCOSIM_DCP_REMOTE_INTERNAL_H
#define RTCOSIM_DCP_REMOTE_INTERNAL_H

#include <pthread.h>

#include "dcp/link.h"
#include "dcp/values.h"
#include "rtcosim/dcp.h"

/* SRT: output payloads of the last DCP_SRT_RING slave steps, by step. */
#define DCP_SRT_RING 64

enum { DATA_ID_INPUTS = 0, DATA_ID_OUTPUTS = 1 };
enum { PARAM_ID_TUNABLES = 0 }; /* DAT_parameter ids are their own space */

typedef struct remote {
    rtcosim_dcp_remote_config cfg;
    char host[64];
    dcp_link link;
    dcp_peer peer;      /* the slave's control port (a connection over TCP) */
    uint16_t data_port; /* where the slave sends outputs */
    uint32_t local_ip; /* host order, for CFG_target_network_information */
    uint32_t slave_ip; /* host order: the control address, where inputs go too */
    rtcosim_variable *vars;
    size_t n_vars;
    rtcosim_value *values; /* one slot per variable (typed as the variable) */
    dcp_bytes *keep;    /* per variable: a String's or Binary's bytes (its slot points here) */
    dcp_bytes *start_keep; /* per variable: its String or Binary start value (vars[].start) */
    uint32_t *max_size; /* per variable: the DCPX's maxSize of a String or Binary (0: none) */
    bool *param_set;
    size_t *in_idx, *out_idx, *tun_idx;
    size_t n_in, n_out, n_tun;
    size_t out_payload; /* with String or Binary outputs: the least */
    bool out_sized;     /* outputs with String or Binary values (payloads vary in size) */
    bool tunables_dirty; /* a tunable parameter changed after configuration */
    uint16_t param_seq;
    uint16_t seq;
    uint8_t slave_state;
    bool registered;
    /* Heartbeat thread: requests are serialized by `lock`; the thread sends
     * INF_state when no call has talked to the slave for heartbeat_ns. */
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t heartbeat;
    bool heartbeat_running, heartbeat_stop;
    rtcosim_time_ns last_send;
    bool in_init, configured, exchanged, inputs_dirty;
    uint16_t in_seq;
    bool out_seen, out_fresh;
    uint32_t outputs_missed; /* in a row, hold_lost_outputs */
    uint16_t out_last_seq;
    uint16_t last_nack;  /* error code of the last RSP_nack */
    bool unanswered;     /* a request went unanswered (or the connection closed): the
                          * slave is gone, so ending the session is best effort */
    uint8_t op_mode;     /* RTCOSIM_DCP_OP_NRT or _SRT, as registered */
    rtcosim_time_ns tick_ns; /* CFG_time_res in ns (cfg.time_res_*; 1 by default) */
    /* SRT: the slave runs on its own clock from the first do_step (STC_run);
     * its k-th output PDU after initialization is its step k. */
    bool srt_running;
    uint64_t srt_newest;            /* newest step received */
    uint64_t *srt_tag;              /* DCP_SRT_RING: step held by each slot (0: none) */
    uint8_t *srt_ring;              /* DCP_SRT_RING payloads, srt_stride bytes apart */
    size_t srt_stride;              /* out_payload; with String or Binary outputs the
                                       largest PDU payload (their sizes vary) */
    size_t *srt_size;               /* DCP_SRT_RING: the payload size in each slot */
    char name[128];
    char model_name[128];
    uint8_t rx[RTCOSIM_DCP_MAX_PDU];
    uint8_t tx[RTCOSIM_DCP_MAX_PDU];
    uint8_t scratch[RTCOSIM_DCP_MAX_PDU]; /* a CFG_parameter's value */
    /* Logging on notification (3.1.23): the DCPX's templates (copied), the
     * newest error-level entry (said with the slave's failure) */
    rtcosim_dcp_log_template *templates;
    size_t n_templates;
    char last_error_log[512];
} remote;


/* remote_protocol.c: the error of a slave that went to ERRORHANDLING or
 * ERRORRESOLVED, with the reason it logged when it did */
rtcosim_status dcp_remote_failed(remote *r, rtcosim_error *err);

/* remote.c */
bool dcp_remote_pump(remote *r, rtcosim_time_ns timeout_ns, rtcosim_dcp_pdu *rsp);
rtcosim_status dcp_remote_request(remote *r, rtcosim_dcp_pdu *p, rtcosim_dcp_pdu *rsp,
                                  rtcosim_error *err);
rtcosim_status dcp_remote_stc_to(remote *r, uint8_t type, uint32_t steps, uint8_t next_state,
                                 rtcosim_error *err);
rtcosim_status dcp_remote_stc(remote *r, uint8_t type, uint32_t steps, rtcosim_error *err);
rtcosim_status dcp_remote_await(remote *r, uint8_t state, bool need_outputs, rtcosim_error *err);
rtcosim_status dcp_remote_send_inputs(remote *r, rtcosim_error *err);
/* Decode an output payload into the output variables' values; the payload
 * was checked when it arrived (its values fill it exactly). */
void dcp_remote_decode_outputs(remote *r, const uint8_t *payload, size_t size);

/* Make a not yet instantiated remote a soft real-time partner (the
 * bindings' wrap for a component whose source is a .dcpx). */
rtcosim_status dcp_remote_make_srt(remote *r, rtcosim_time_ns step_ns, rtcosim_time_ns wait_ns,
                                   rtcosim_error *err);

/* remote_srt.c */
/* Keep an output PDU of the running slave in the ring, by its step. */
void dcp_remote_srt_take(remote *r, const rtcosim_dcp_pdu *p, uint16_t ahead);
rtcosim_status dcp_remote_srt_step(remote *r, rtcosim_time_ns t, rtcosim_time_ns h,
                                   rtcosim_error *err);

#endif
