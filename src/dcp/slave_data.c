/* Configuration and data of a DCP slave session: CFG_* PDUs build the
 * input/output/parameter tables (spec 3.3 configuration PDUs), STC_prepare
 * checks them for completeness (INCOMPLETE_CONFIG_* codes), and data PDUs
 * move values between the wire and the component without allocation. */
#include <stdlib.h>
#include <string.h>

#include "dcp/slave_internal.h"
#include "dcp/values.h"
#include "util/le.h"

/* A data id names one payload layout per direction: the same id may be an
 * output of this slave and an input of it (its outputs looped back, as
 * DCPLib's example master configures), so the key is (id, direction). */
static dcp_data_id *find_in(dcp_data_id *t, size_t *n, uint16_t id, bool is_output, bool create)
{
    for (size_t i = 0; i < *n; i++)
        if (t[i].id == id && t[i].is_output == is_output)
            return &t[i];
    if (!create || *n == DCP_MAX_DATA_IDS)
        return NULL;
    dcp_data_id *d = &t[(*n)++];
    memset(d, 0, sizeof *d);
    d->id = id;
    d->is_output = is_output;
    d->target.conn = -1;
    return d;
}

dcp_data_id *dcp_slave_find_id(rtcosim_dcp_slave *s, uint16_t id, bool is_output, bool create)
{
    return find_in(s->ids, &s->n_ids, id, is_output, create);
}

void dcp_slave_clear_config(rtcosim_dcp_slave *s)
{
    for (size_t i = 0; i < s->n_ids; i++)
        dcp_link_close_conn(&s->link, &s->ids[i].target);
    s->n_inputs = s->n_outputs = s->n_params = s->n_tunables = 0;
    s->n_ids = s->n_pids = 0;
    s->params_pending = s->step_held = false;
    s->log_mode = s->log_level = 0;
    s->held_steps = 0;
    s->tick_ns = 0;
    s->rt_steps = 1;
}

static const rtcosim_variable *find_vr(rtcosim_dcp_slave *s, uint64_t vr)
{
    size_t n = rtcosim_component_variable_count(s->probe);
    for (size_t i = 0; i < n; i++) {
        const rtcosim_variable *v = rtcosim_component_variable(s->probe, i);
        if (v->value_reference == vr)
            return v;
    }
    return NULL;
}

/* Room for one more entry: every table holds at most one entry per variable
 * and data id position, so the capacity grows only during configuration.
 * Entries past n keep the buffers of String and Binary values they had. */
static dcp_io *push(dcp_io **table, size_t *n, size_t *cap)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        if (nc > 65536)
            return NULL;
        dcp_io *t = realloc(*table, nc * sizeof *t);
        if (!t)
            return NULL;
        memset(t + *cap, 0, (nc - *cap) * sizeof *t);
        *table = t;
        *cap = nc;
    }
    return &(*table)[(*n)++];
}

/* An entry configured anew, keeping its value buffer. */
static void set_io(dcp_io *io, dcp_io fields)
{
    fields.keep = io->keep;
    *io = fields;
}

static void free_table(dcp_io **table, size_t *n, size_t *cap)
{
    for (size_t i = 0; i < *cap; i++)
        dcp_bytes_free(&(*table)[i].keep);
    free(*table);
    *table = NULL;
    *n = *cap = 0;
}

void dcp_slave_free_tables(rtcosim_dcp_slave *s)
{
    free_table(&s->inputs, &s->n_inputs, &s->cap_inputs);
    free_table(&s->outputs, &s->n_outputs, &s->cap_outputs);
    free_table(&s->params, &s->n_params, &s->cap_params);
    free_table(&s->tunables, &s->n_tunables, &s->cap_tunables);
}

uint16_t dcp_slave_configure_pdu(rtcosim_dcp_slave *s, const rtcosim_dcp_pdu *p)
{
    const rtcosim_variable *v;
    dcp_data_id *d;
    dcp_io *io;
    uint8_t own;
    switch (p->type) {
    case RTCOSIM_DCP_CFG_TIME_RES:
        if (rtcosim_dcp_resolution_to_ns(p->numerator, p->denominator, &s->tick_ns, NULL) != RTCOSIM_OK) {
            s->tick_ns = 0;
            return RTCOSIM_DCP_ERR_INVALID_TIME_RESOLUTION;
        }
        return 0;
    case RTCOSIM_DCP_CFG_STEPS:
        if (p->steps == 0)
            return RTCOSIM_DCP_ERR_INVALID_STEPS;
        if (!(d = dcp_slave_find_id(s, p->data_id, true, true))) /* an output's period */
            return RTCOSIM_DCP_ERR_PROTOCOL_ERROR_GENERIC;
        d->steps = p->steps;
        return 0;
    case RTCOSIM_DCP_CFG_INPUT:
    case RTCOSIM_DCP_CFG_OUTPUT: {
        bool out = p->type == RTCOSIM_DCP_CFG_OUTPUT;
        v = find_vr(s, p->value_reference);
        if (!v || !dcp_type_of(v->type, &own) ||
            v->causality != (out ? RTCOSIM_CAUSALITY_OUTPUT : RTCOSIM_CAUSALITY_INPUT))
            return RTCOSIM_DCP_ERR_INVALID_VALUE_REFERENCE;
        uint8_t wire = out ? own : p->source_data_type;
        if (!out && !dcp_type_converts(wire, v->type))
            return RTCOSIM_DCP_ERR_INVALID_SOURCE_DATA_TYPE;
        if (!(d = dcp_slave_find_id(s, p->data_id, out, true)))
            return RTCOSIM_DCP_ERR_PROTOCOL_ERROR_GENERIC;
        d->count++;
        io = out ? push(&s->outputs, &s->n_outputs, &s->cap_outputs)
                 : push(&s->inputs, &s->n_inputs, &s->cap_inputs);
        if (!io)
            return RTCOSIM_DCP_ERR_PROTOCOL_ERROR_GENERIC;
        set_io(io, (dcp_io){.data_id = p->data_id, .pos = p->pos, .vr = v->value_reference,
                            .type = v->type, .wire_type = wire});
        return 0;
    }
    case RTCOSIM_DCP_CFG_CLEAR:
        dcp_slave_clear_config(s);
        return 0;
    case RTCOSIM_DCP_CFG_TARGET_NETWORK_INFORMATION:
    case RTCOSIM_DCP_CFG_SOURCE_NETWORK_INFORMATION: {
        bool tcp = p->transport_protocol == RTCOSIM_DCP_TCP_IPV4;
        if (!(p->transport_protocol == RTCOSIM_DCP_UDP_IPV4 && s->link.udp_fd >= 0) &&
            !(tcp && s->link.listen_fd >= 0))
            return RTCOSIM_DCP_ERR_NOT_SUPPORTED_TRANSPORT_PROTOCOL;
        bool target = p->type == RTCOSIM_DCP_CFG_TARGET_NETWORK_INFORMATION;
        if (!(d = dcp_slave_find_id(s, p->data_id, target, true)))
            return RTCOSIM_DCP_ERR_PROTOCOL_ERROR_GENERIC;
        if (!target) {
            /* Inputs arrive on the control port (the DCPX offers only it);
             * over TCP on any connection to it. */
            uint16_t control = tcp ? s->link.tcp_port : s->link.udp_port;
            if (p->port != 0 && p->port != control)
                return RTCOSIM_DCP_ERR_INVALID_NETWORK_INFORMATION;
            return 0;
        }
        if (p->port == 0)
            return RTCOSIM_DCP_ERR_INVALID_NETWORK_INFORMATION;
        dcp_link_close_conn(&s->link, &d->target);
        d->has_target = true;
        d->target_protocol = p->transport_protocol;
        d->target_addr = s->master.addr;
        if (p->ip_address != 0)
            d->target_addr.sin_addr.s_addr = htonl(p->ip_address);
        d->target_addr.sin_port = htons(p->port);
        d->target = (dcp_peer){.addr = d->target_addr, .conn = -1};
        return 0;
    }
    case RTCOSIM_DCP_CFG_PARAMETER: {
        v = find_vr(s, p->value_reference);
        if (!v || !dcp_type_of(v->type, &own) ||
            (v->causality != RTCOSIM_CAUSALITY_PARAMETER && v->causality != RTCOSIM_CAUSALITY_INPUT))
            return RTCOSIM_DCP_ERR_INVALID_VALUE_REFERENCE;
        if (!dcp_type_converts(p->source_data_type, v->type))
            return RTCOSIM_DCP_ERR_INVALID_SOURCE_DATA_TYPE;
        /* One value, the whole payload (a string's or binary's length
         * included); a string with a NUL byte is no FMU string either. */
        if (dcp_value_wire_extent(p->source_data_type, p->payload, p->payload_size) !=
            p->payload_size)
            return RTCOSIM_DCP_ERR_INVALID_PAYLOAD;
        if (!(io = push(&s->params, &s->n_params, &s->cap_params)))
            return RTCOSIM_DCP_ERR_PROTOCOL_ERROR_GENERIC;
        set_io(io, (dcp_io){.vr = v->value_reference, .type = v->type,
                            .wire_type = p->source_data_type});
        dcp_decode_result r = dcp_value_decode(p->source_data_type, p->payload, p->payload_size,
                                               v->type, &io->value, &io->keep);
        if (r != DCP_DECODE_OK) {
            s->n_params--;
            return r == DCP_DECODE_NOMEM ? RTCOSIM_DCP_ERR_PROTOCOL_ERROR_GENERIC
                                         : RTCOSIM_DCP_ERR_INVALID_PAYLOAD;
        }
        return 0;
    }
    case RTCOSIM_DCP_CFG_TUNABLE_PARAMETER: {
        /* Only parameters the slave declares tunable (DCPX variability). */
        v = find_vr(s, p->value_reference);
        if (!v || !dcp_type_of(v->type, &own) || v->causality != RTCOSIM_CAUSALITY_PARAMETER ||
            v->variability != RTCOSIM_VARIABILITY_TUNABLE)
            return RTCOSIM_DCP_ERR_INVALID_VALUE_REFERENCE;
        if (!dcp_type_converts(p->source_data_type, v->type))
            return RTCOSIM_DCP_ERR_INVALID_SOURCE_DATA_TYPE;
        if (!(d = find_in(s->pids, &s->n_pids, p->data_id, false, true)))
            return RTCOSIM_DCP_ERR_PROTOCOL_ERROR_GENERIC;
        d->count++;
        if (!(io = push(&s->tunables, &s->n_tunables, &s->cap_tunables)))
            return RTCOSIM_DCP_ERR_PROTOCOL_ERROR_GENERIC;
        set_io(io, (dcp_io){.data_id = p->data_id, .pos = p->pos, .vr = v->value_reference,
                            .type = v->type, .wire_type = p->source_data_type});
        return 0;
    }
    case RTCOSIM_DCP_CFG_PARAM_NETWORK_INFORMATION: {
        /* Where DAT_parameter arrives: the control port, as inputs. */
        bool tcp = p->transport_protocol == RTCOSIM_DCP_TCP_IPV4;
        if (!(p->transport_protocol == RTCOSIM_DCP_UDP_IPV4 && s->link.udp_fd >= 0) &&
            !(tcp && s->link.listen_fd >= 0))
            return RTCOSIM_DCP_ERR_NOT_SUPPORTED_TRANSPORT_PROTOCOL;
        uint16_t control = tcp ? s->link.tcp_port : s->link.udp_port;
        if (p->port != 0 && p->port != control)
            return RTCOSIM_DCP_ERR_INVALID_NETWORK_INFORMATION;
        return find_in(s->pids, &s->n_pids, p->data_id, false, true) ? 0
                                                              : RTCOSIM_DCP_ERR_PROTOCOL_ERROR_GENERIC;
    }
    case RTCOSIM_DCP_CFG_SCOPE:
        return p->scope <= 2 ? 0 : RTCOSIM_DCP_ERR_INVALID_SCOPE;
    case RTCOSIM_DCP_CFG_LOGGING:
        /* the DCPX's one category (or 0: all), levels 0-4 (table 59); log on
         * notification only (canProvideLogOnRequest is false) */
        if (p->log_category != 0 && p->log_category != RTCOSIM_DCP_SLAVE_LOG_CATEGORY)
            return RTCOSIM_DCP_ERR_INVALID_LOG_CATEGORY;
        if (p->log_level > 4)
            return RTCOSIM_DCP_ERR_INVALID_LOG_LEVEL;
        if (p->log_mode > 2)
            return RTCOSIM_DCP_ERR_INVALID_LOG_MODE;
        if (p->log_mode == 1)
            return RTCOSIM_DCP_ERR_NOT_SUPPORTED_LOG_ON_REQUEST;
        s->log_mode = p->log_mode;
        s->log_level = p->log_level;
        return 0;
    default:
        return RTCOSIM_DCP_ERR_NOT_SUPPORTED_PDU;
    }
}

static int by_id_pos(const void *a, const void *b)
{
    const dcp_io *x = a, *y = b;
    if (x->data_id != y->data_id)
        return x->data_id < y->data_id ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Sort one table and fill each data id's range; a position missing or twice
 * is a gap (spec: INCOMPLETE_CONFIG_GAP_*_POS). */
static bool index_table(dcp_data_id *ids, size_t n_ids, dcp_io *t, size_t n, bool is_output)
{
    if (n == 0)
        return true;
    qsort(t, n, sizeof *t, by_id_pos);
    for (size_t i = 0; i < n;) {
        dcp_data_id *d = find_in(ids, &n_ids, t[i].data_id, is_output, false);
        size_t j = i;
        d->first = i;
        d->payload_size = 0;
        d->sized = false;
        for (; j < n && t[j].data_id == t[i].data_id; j++) {
            if (t[j].pos != j - i)
                return false;
            bool sized = dcp_type_is_sized(t[j].wire_type);
            d->sized |= sized;
            d->payload_size += sized ? 4 : rtcosim_dcp_data_type_size(t[j].wire_type);
        }
        d->count = j - i;
        i = j;
    }
    return true;
}

uint16_t dcp_slave_check_config(rtcosim_dcp_slave *s)
{
    if (s->tick_ns <= 0)
        return RTCOSIM_DCP_ERR_INCOMPLETE_CONFIG_TIME_RESOLUTION;
    if (!index_table(s->ids, s->n_ids, s->inputs, s->n_inputs, false))
        return RTCOSIM_DCP_ERR_INCOMPLETE_CONFIG_GAP_INPUT_POS;
    if (!index_table(s->ids, s->n_ids, s->outputs, s->n_outputs, true))
        return RTCOSIM_DCP_ERR_INCOMPLETE_CONFIG_GAP_OUTPUT_POS;
    if (!index_table(s->pids, s->n_pids, s->tunables, s->n_tunables, false))
        return RTCOSIM_DCP_ERR_INCOMPLETE_CONFIG_GAP_TUNABLE_POS;
    uint32_t rt_steps = 0;
    for (size_t i = 0; i < s->n_ids; i++) {
        dcp_data_id *d = &s->ids[i];
        /* (an output id with no output is CFG_steps for an input's id, as
         * a master may send them; DCPLib's slave takes it: nothing to send) */
        if (!d->is_output || d->count == 0)
            continue;
        if (!d->has_target)
            return RTCOSIM_DCP_ERR_INCOMPLETE_CONFIG_NW_INFO_OUTPUT;
        if (s->mode != RTCOSIM_DCP_OP_NRT && d->steps == 0)
            return RTCOSIM_DCP_ERR_INCOMPLETE_CONFIG_STEPS;
        if (d->steps && (rt_steps == 0 || d->steps < rt_steps))
            rt_steps = d->steps;
    }
    s->rt_steps = rt_steps ? rt_steps : 1;
    /* SRT steps on the wall clock, each with its output PDU: a period the
     * loop cannot keep (1 ns, as a master taking the DCPX's first
     * Resolution with CFG_steps 1 asks) would only spin and flood the
     * network. A period past 64-bit ns (CFG_steps times a resolution of
     * hours) is no period either. */
    rtcosim_time_ns period;
    if (s->mode != RTCOSIM_DCP_OP_NRT &&
        (rtcosim_dcp_steps_to_ns(s->rt_steps, s->tick_ns, &period, NULL) != RTCOSIM_OK ||
         period < DCP_MIN_SRT_PERIOD_NS))
        return RTCOSIM_DCP_ERR_INVALID_STEPS;
    return 0;
}

uint16_t dcp_slave_connect_targets(rtcosim_dcp_slave *s)
{
    for (size_t i = 0; i < s->n_ids; i++) {
        dcp_data_id *d = &s->ids[i];
        if (!d->is_output || !d->has_target || d->target_protocol != RTCOSIM_DCP_TCP_IPV4 ||
            (d->target.conn >= 0 && dcp_link_peer_open(&s->link, &d->target)))
            continue;
        /* Over TCP the slave connects to the target as a client (as the
         * reference implementation's connectToConfiguredPorts does). */
        rtcosim_error err;
        if (dcp_link_connect_tcp(&s->link, &d->target_addr, RTCOSIM_NS_PER_S, &d->target, &err) !=
            RTCOSIM_OK)
            return RTCOSIM_DCP_ERR_INVALID_NETWORK_INFORMATION;
    }
    return 0;
}

rtcosim_status dcp_slave_apply_params(rtcosim_dcp_slave *s, rtcosim_error *err)
{
    for (size_t i = 0; i < s->n_params; i++) {
        rtcosim_status st = rtcosim_component_set(s->comp, s->params[i].type, &s->params[i].vr,
                                                  1, &s->params[i].value, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

/* A data PDU of one id: sequence bookkeeping (per id, counting up mod
 * 2^16), then each value decoded into its slot. False when it is dropped:
 * unknown id, duplicate, overtaken by a newer one, or the wrong size (data
 * PDUs are never answered). */
static bool take(rtcosim_dcp_slave *s, dcp_data_id *d, dcp_io *table, const rtcosim_dcp_pdu *p)
{
    if (!d || d->is_output || d->count == 0)
        return false;
    /* The payload first: a PDU of the wrong size, or whose String and
     * Binary lengths do not add up to it, is dropped as if it never came
     * (it must not take the sequence number of the master's next one). */
    if (d->sized ? p->payload_size < d->payload_size : p->payload_size != d->payload_size)
        return false;
    if (d->sized) {
        size_t used = 0;
        for (size_t i = d->first; i < d->first + d->count; i++) {
            size_t extent = dcp_value_wire_extent(table[i].wire_type, p->payload + used,
                                                  p->payload_size - used);
            if (extent == 0)
                return false;
            used += extent;
        }
        if (used != p->payload_size)
            return false;
    }
    if (d->seen) {
        /* An id not ahead of the last one is a duplicate or arrived late
         * behind a newer one. */
        uint16_t ahead = (uint16_t)(p->seq_id - d->last_seq);
        if (ahead == 0 || ahead >= 0x8000)
            return false;
        d->missed_in_row = ahead - 1u;
        if (d->missed_in_row > s->cfg.max_consec_missed_pdus)
            s->error_code = RTCOSIM_DCP_ERR_PROTOCOL_ERROR_PROPERTY_VIOLATED;
    }
    d->seen = true;
    d->last_seq = p->seq_id;
    const uint8_t *at = p->payload;
    for (size_t i = d->first; i < d->first + d->count; i++) {
        dcp_io *io = &table[i];
        size_t extent = dcp_value_wire_extent(io->wire_type, at,
                                              p->payload_size - (size_t)(at - p->payload));
        io->pending = dcp_value_decode(io->wire_type, at, extent, io->type, &io->value,
                                       &io->keep) == DCP_DECODE_OK;
        at += extent;
    }
    d->fresh = true;
    return true;
}

static void apply(rtcosim_dcp_slave *s, dcp_io *io)
{
    rtcosim_error err;
    if (io->pending && rtcosim_component_set(s->comp, io->type, &io->vr, 1, &io->value, &err) !=
                           RTCOSIM_OK &&
        !s->set_failed) {
        s->set_failed = true;
        s->set_error = err;
    }
    io->pending = false;
}

void dcp_slave_take_data(rtcosim_dcp_slave *s, const rtcosim_dcp_pdu *p)
{
    dcp_data_id *d = dcp_slave_find_id(s, p->data_id, false, false);
    if (!take(s, d, s->inputs, p))
        return;
    for (size_t i = d->first; i < d->first + d->count; i++)
        apply(s, &s->inputs[i]);
}

void dcp_slave_take_params(rtcosim_dcp_slave *s, const rtcosim_dcp_pdu *p, bool apply_now)
{
    dcp_data_id *d = find_in(s->pids, &s->n_pids, p->data_id, false, false);
    if (!take(s, d, s->tunables, p))
        return;
    /* The PDU's values come into effect together (spec 3.1.18.3 note). */
    if (apply_now)
        for (size_t i = d->first; i < d->first + d->count; i++)
            apply(s, &s->tunables[i]);
    else
        s->params_pending = true;
}

void dcp_slave_inputs_begin_run(rtcosim_dcp_slave *s)
{
    /* A master that sent inputs in initialization sends them every step. */
    for (size_t i = 0; i < s->n_ids; i++) {
        s->ids[i].per_step = s->ids[i].seen;
        s->ids[i].fresh = false;
    }
}

bool dcp_slave_inputs_ready(const rtcosim_dcp_slave *s)
{
    for (size_t i = 0; i < s->n_ids; i++) {
        const dcp_data_id *d = &s->ids[i];
        if (!d->is_output && d->count > 0 && d->per_step && !d->fresh)
            return false;
    }
    return true;
}

void dcp_slave_inputs_consumed(rtcosim_dcp_slave *s)
{
    for (size_t i = 0; i < s->n_ids; i++) {
        s->ids[i].per_step = s->ids[i].fresh;
        s->ids[i].fresh = false;
    }
}

uint16_t dcp_slave_inputs_missed(rtcosim_dcp_slave *s)
{
    for (size_t i = 0; i < s->n_ids; i++) {
        dcp_data_id *d = &s->ids[i];
        if (d->is_output || d->count == 0 || !d->per_step || d->fresh)
            continue;
        if (++d->missed_in_row > s->cfg.max_consec_missed_pdus)
            return RTCOSIM_DCP_ERR_PROTOCOL_ERROR_PROPERTY_VIOLATED;
        d->last_seq++; /* the lost one; a later arrival of it is stale */
        d->fresh = true; /* the master still sends per step */
    }
    return 0;
}

rtcosim_status dcp_slave_apply_pending(rtcosim_dcp_slave *s, rtcosim_error *err)
{
    if (s->params_pending) {
        for (size_t i = 0; i < s->n_tunables; i++)
            apply(s, &s->tunables[i]);
        s->params_pending = false;
    }
    if (!s->set_failed)
        return RTCOSIM_OK;
    if (err)
        *err = s->set_error;
    return s->set_error.status != RTCOSIM_OK ? s->set_error.status : RTCOSIM_ECOMPONENT;
}

rtcosim_status dcp_slave_send_outputs(rtcosim_dcp_slave *s, uint64_t step_count, rtcosim_error *err)
{
    for (size_t k = 0; k < s->n_ids; k++) {
        dcp_data_id *d = &s->ids[k];
        if (!d->is_output || d->count == 0)
            continue;
        if (s->mode != RTCOSIM_DCP_OP_NRT && s->state != RTCOSIM_DCP_SENDING_I && d->steps &&
            step_count % (d->steps / s->rt_steps ? d->steps / s->rt_steps : 1) != 0)
            continue;
        uint8_t *at = s->tx + 5;
        for (size_t i = d->first; i < d->first + d->count; i++) {
            dcp_io *io = &s->outputs[i];
            rtcosim_value slot = {0};
            rtcosim_status st = rtcosim_component_get(s->comp, io->type, &io->vr, 1, &slot, err);
            if (st != RTCOSIM_OK)
                return st;
            size_t size = dcp_value_wire_size(io->type, &slot);
            if (size > (size_t)(s->tx + sizeof s->tx - at)) {
                const rtcosim_variable *v = find_vr(s, io->vr);
                return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                         "DCP slave: output '%s' (%zu bytes) does not fit in the "
                                         "data PDU of id %u (at most %u bytes, %zu taken before it)",
                                         v ? v->name : "?", size, (unsigned)d->id,
                                         RTCOSIM_DCP_MAX_PDU, (size_t)(at - s->tx));
            }
            at += dcp_value_to_wire(io->type, &slot, at);
        }
        /* DAT_input_output header (spec 3.3): type, pdu_seq_id, data_id. */
        s->tx[0] = RTCOSIM_DCP_DAT_INPUT_OUTPUT;
        le_put16(s->tx + 1, d->send_seq++);
        le_put16(s->tx + 3, d->id);
        dcp_link_send(&s->link, &d->target, s->tx, (size_t)(at - s->tx));
    }
    return RTCOSIM_OK;
}
