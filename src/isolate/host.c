/* The child side of --isolate (`rtcosim host-fmu FD`): load the FMU named in
 * the channel and answer each request with the component's own status and
 * message. Dies with its parent (PR_SET_PDEATHSIG); ignores SIGINT/SIGTERM,
 * which a terminal sends to the whole process group: the parent ends runs. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "isolate/channel.h"
#include "rtcosim/fmu.h"
#include "rtcosim/isolate.h"
#include "rtcosim/log.h"

static size_t align8(size_t n) { return (n + 7) & ~(size_t)7; }

/* The FMU state snapshots the parent holds, by slot (state_id - 1). */
typedef struct state_table {
    rtcosim_state *slots;
    size_t count;
} state_table;

static rtcosim_status state_slot(channel *ch, state_table *t, bool may_create,
                                 rtcosim_state **slot, rtcosim_error *err)
{
    if (ch->state_id == 0 && may_create) {
        size_t i = 0;
        while (i < t->count && t->slots[i])
            i++;
        if (i == t->count) {
            rtcosim_state *grown = realloc(t->slots, (t->count + 8) * sizeof *grown);
            if (!grown)
                return rtcosim_error_set(err, RTCOSIM_ENOMEM, "isolate: out of memory");
            memset(grown + t->count, 0, 8 * sizeof *grown);
            t->slots = grown;
            t->count += 8;
        }
        *slot = &t->slots[i];
        return RTCOSIM_OK;
    }
    if (ch->state_id == 0 || ch->state_id > t->count || !t->slots[ch->state_id - 1])
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "isolate: no FMU state %u", ch->state_id);
    *slot = &t->slots[ch->state_id - 1];
    return RTCOSIM_OK;
}

/* A serialized state of `size` bytes in the channel's data, or why not. */
static rtcosim_status state_fits(uint64_t size, rtcosim_error *err)
{
    if (size <= channel_data_bytes())
        return RTCOSIM_OK;
    return rtcosim_error_set(err, RTCOSIM_EINVAL,
                             "isolate: a state of %llu bytes does not fit the channel",
                             (unsigned long long)size);
}

static rtcosim_status serve_state(channel *ch, rtcosim_component *c, state_table *t,
                                  rtcosim_error *err)
{
    rtcosim_state *slot = NULL;
    bool creates = ch->op == OP_GET_STATE || ch->op == OP_DESERIALIZE;
    rtcosim_status st = state_slot(ch, t, creates, &slot, err);
    if (st != RTCOSIM_OK)
        return st;
    switch ((channel_op)ch->op) {
    case OP_GET_STATE:
        st = rtcosim_component_get_state(c, slot, err);
        break;
    case OP_SET_STATE:
        return rtcosim_component_set_state(c, *slot, err);
    case OP_FREE_STATE:
        rtcosim_component_free_state(c, *slot);
        *slot = NULL;
        return RTCOSIM_OK;
    case OP_STATE_SIZE: {
        size_t size = 0;
        st = rtcosim_component_serialized_state_size(c, *slot, &size, err);
        ch->n = size;
        return st;
    }
    case OP_SERIALIZE:
        if ((st = state_fits(ch->n, err)) != RTCOSIM_OK)
            return st;
        return rtcosim_component_serialize_state(c, *slot, ch->data, ch->n, err);
    case OP_DESERIALIZE:
        st = rtcosim_component_deserialize_state(c, ch->data, ch->n, slot, err);
        break;
    default:
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "isolate: unknown request %u", ch->op);
    }
    if (st == RTCOSIM_OK)
        ch->state_id = (uint32_t)(slot - t->slots) + 1;
    return st;
}

/* A buffer of the host's, grown, never shrunk. */
typedef struct scratch {
    void *at;
    size_t cap; /* bytes */
} scratch;

static rtcosim_status scratch_for(scratch *p, size_t bytes, rtcosim_error *err)
{
    if (bytes <= p->cap)
        return RTCOSIM_OK;
    void *grown = realloc(p->at, bytes);
    if (!grown)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "isolate: out of memory");
    p->at = grown;
    p->cap = bytes;
    return RTCOSIM_OK;
}

/* A get or set's own copies, one set per level of nested callbacks: a get
 * may end an input event, whose observer's gets (served inside it) overwrite
 * the channel's value references and values before the outer get has run. */
typedef struct request_copy {
    scratch vrs, values, ptrs;
} request_copy;

/* OP_GET and OP_SET of String and Binary values (channel.h's records);
 * vrs: the request's value references (a copy). */
static rtcosim_status serve_records(channel *ch, rtcosim_component *c, const uint32_t *vrs,
                                    size_t n, request_copy *copy, rtcosim_error *err)
{
    rtcosim_type type = (rtcosim_type)ch->type;
    size_t limit = channel_data_bytes(), offset = align8(n * sizeof(uint32_t));
    unsigned char *records = ch->data + offset;
    scratch *p = &copy->ptrs;
    rtcosim_status st = scratch_for(p, n * sizeof(rtcosim_binary), err); /* (the larger) */
    if (st != RTCOSIM_OK)
        return st;
    if (ch->op == OP_SET) {
        char why[128];
        if (ch->record_bytes > limit - offset ||
            !channel_records_unpack(records, (size_t)ch->record_bytes, type, n, p->at, why,
                                    sizeof why))
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "isolate: malformed %s values",
                                     rtcosim_type_name(type));
        return rtcosim_component_set(c, type, vrs, n, p->at, err);
    }
    if ((st = rtcosim_component_get(c, type, vrs, n, p->at, err)) != RTCOSIM_OK)
        return st;
    size_t need = channel_records_size(type, p->at, n, limit - offset);
    if (need == SIZE_MAX)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "isolate: %zu %s values do not fit the"
                                 " channel (%zu bytes)", n, rtcosim_type_name(type),
                                 limit - offset);
    channel_records_pack(records, type, p->at, n);
    ch->record_bytes = need;
    return RTCOSIM_OK;
}

enum { MAX_DEPTH = 8 }; /* callbacks inside callbacks */

/* The host's state: the FMU, its snapshots, each callback level's request
 * copies, and the request it answers next (a callback's nested requests
 * move it on). */
typedef struct host {
    channel *ch;
    rtcosim_component *c;
    state_table states;
    request_copy copies[MAX_DEPTH];
    unsigned depth;
    uint32_t seq;
} host;

static rtcosim_status serve(host *h, rtcosim_error *err);

/* Answer the request being served with a callback (channel.h), serve the
 * parent's requests until it says the callback is done, and return its
 * outcome: the parent's observer or input source runs as if the integrator
 * had called it in the parent's process. */
static rtcosim_status call_parent(host *h, channel_callback kind, double time,
                                  rtcosim_error *err)
{
    channel *ch = h->ch;
    ch->callback = kind;
    ch->callback_time = time;
    ch->status = RTCOSIM_OK;
    ch->message[0] = '\0';
    channel_answer(ch, h->seq);
    for (;;) {
        h->seq = channel_next(ch, h->seq);
        uint32_t op = ch->op;
        if (op == OP_CALLBACK_DONE) {
            int32_t st = ch->status;
            if (st == RTCOSIM_OK)
                return RTCOSIM_OK;
            ch->message[sizeof ch->message - 1] = '\0';
            return rtcosim_error_set(err, st > RTCOSIM_OK && st < RTCOSIM_STATUS_COUNT_
                                              ? (rtcosim_status)st
                                              : RTCOSIM_ECOMPONENT, "%s", ch->message);
        }
        rtcosim_error nested;
        rtcosim_error_clear(&nested);
        rtcosim_status st;
        if (op == OP_QUIT)
            st = rtcosim_error_set(&nested, RTCOSIM_ESTATE, "isolate: a quit request inside a"
                                   " callback");
        else if (h->depth + 1 >= MAX_DEPTH)
            st = rtcosim_error_set(&nested, RTCOSIM_ESTATE, "isolate: callbacks nested more"
                                   " than %d deep", MAX_DEPTH);
        else {
            h->depth++;
            st = serve(h, &nested);
            h->depth--;
        }
        ch->status = st;
        snprintf(ch->message, sizeof ch->message, "%s", st == RTCOSIM_OK ? "" : nested.message);
        ch->callback = CALLBACK_NONE;
        channel_answer(ch, h->seq);
    }
}

static rtcosim_status host_event(void *context, double time, bool after, rtcosim_error *err)
{
    return call_parent(context, after ? CALLBACK_EVENT_AFTER : CALLBACK_EVENT_BEFORE, time, err);
}

static rtcosim_status host_inputs(void *context, double time, rtcosim_error *err)
{
    return call_parent(context, CALLBACK_INPUTS, time, err);
}

/* OP_GET and OP_SET: the value references (and a set's values) copied out
 * of the channel first, a get's values put there after the call. */
static rtcosim_status serve_values(host *h, rtcosim_error *err)
{
    channel *ch = h->ch;
    request_copy *copy = &h->copies[h->depth];
    rtcosim_type type = (rtcosim_type)ch->type;
    size_t limit = channel_data_bytes();
    if ((unsigned)type >= RTCOSIM_TYPE_COUNT_)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "isolate: unknown value type %u", ch->type);
    if (ch->n > limit / sizeof(uint32_t))
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "isolate: %llu values do not fit the"
                                 " channel", (unsigned long long)ch->n);
    size_t n = (size_t)ch->n, offset = align8(n * sizeof(uint32_t));
    rtcosim_status st = scratch_for(&copy->vrs, n * sizeof(uint32_t) + 1, err);
    if (st != RTCOSIM_OK)
        return st;
    memcpy(copy->vrs.at, ch->data, n * sizeof(uint32_t));
    const uint32_t *vrs = copy->vrs.at;
    if (channel_has_records(type))
        return serve_records(ch, h->c, vrs, n, copy, err);
    size_t bytes = n * rtcosim_type_size(type);
    if (bytes > limit - offset)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "isolate: %zu values do not fit the"
                                 " channel", n);
    if ((st = scratch_for(&copy->values, bytes + 1, err)) != RTCOSIM_OK)
        return st;
    if (ch->op == OP_SET) {
        memcpy(copy->values.at, ch->data + offset, bytes);
        return rtcosim_component_set(h->c, type, vrs, n, copy->values.at, err);
    }
    if ((st = rtcosim_component_get(h->c, type, vrs, n, copy->values.at, err)) != RTCOSIM_OK)
        return st;
    memcpy(ch->data + offset, copy->values.at, bytes);
    return RTCOSIM_OK;
}

/* The parent loaded this FMU too (for its description: rtcosim_isolate_wrap
 * takes a loaded component), with the same options, and showed that load's
 * warnings (the description's lenient checks, a version mismatch): the
 * host's load keeps its warnings to itself so that each shows once. */
static void load_log_handler(void *context, rtcosim_log_level level, const char *category,
                             const char *message)
{
    if (level != RTCOSIM_LOG_WARNING)
        rtcosim_log_stderr_handler(context, level, category, message);
}

static rtcosim_status serve(host *h, rtcosim_error *err)
{
    channel *ch = h->ch;
    rtcosim_component **c = &h->c;
    state_table *states = &h->states;
    if (ch->op != OP_PING && ch->op != OP_LOAD && !*c)
        return rtcosim_error_set(err, RTCOSIM_ESTATE, "isolate: no FMU loaded");
    if (ch->op == OP_GET || ch->op == OP_SET)
        return serve_values(h, err);
    switch ((channel_op)ch->op) {
    case OP_PING:
        return RTCOSIM_OK;
    case OP_LOAD: {
        /* logging as in the parent (--log-fmi-calls, --log-level): the
         * host's messages go to the stderr it shares */
        if (ch->log_level >= RTCOSIM_LOG_ERROR && ch->log_level <= RTCOSIM_LOG_TRACE)
            rtcosim_log_set_level((rtcosim_log_level)ch->log_level);
        rtcosim_fmu_options fo = ch->options;
        fo.temp_dir = ch->temp_dir[0] ? ch->temp_dir : NULL;
        rtcosim_log_set_handler(load_log_handler, NULL);
        rtcosim_status st = rtcosim_fmu_load(ch->path, &fo, c, err);
        rtcosim_log_set_handler(rtcosim_log_stderr_handler, NULL);
        return st;
    }
    case OP_INSTANTIATE:
        return rtcosim_component_instantiate(*c, ch->path, err);
    case OP_SETUP:
        return rtcosim_component_setup(*c, ch->tolerance, ch->start, ch->stop, err);
    case OP_ENTER_INIT:
        return rtcosim_component_enter_init(*c, err);
    case OP_EXIT_INIT:
        return rtcosim_component_exit_init(*c, err);
    case OP_DO_STEP:
        return rtcosim_component_do_step(*c, ch->t, ch->h, &ch->result, err);
    case OP_GET:
    case OP_SET: /* (serve_values) */
        break;
    case OP_TERMINATE:
        return rtcosim_component_terminate(*c, err);
    case OP_QUIT:
        return RTCOSIM_OK;
    case OP_GET_STATE:
    case OP_SET_STATE:
    case OP_FREE_STATE:
    case OP_STATE_SIZE:
    case OP_SERIALIZE:
    case OP_DESERIALIZE:
        return serve_state(ch, *c, states, err);
    case OP_ME_GET_FMU_STATE: {
        uint8_t *bytes = NULL;
        size_t size = 0;
        rtcosim_status st = rtcosim_fmu_me_get_fmu_state(*c, &bytes, &size, err);
        if (st == RTCOSIM_OK)
            st = state_fits(size, err);
        if (st == RTCOSIM_OK) {
            memcpy(ch->data, bytes, size);
            ch->n = size;
        }
        free(bytes);
        return st;
    }
    case OP_ME_SET_FMU_STATE:
        if (state_fits(ch->n, err) != RTCOSIM_OK)
            return RTCOSIM_EINVAL;
        return rtcosim_fmu_me_set_fmu_state(*c, ch->data, (size_t)ch->n, err);
    case OP_ME_CALLBACKS: {
        rtcosim_status st = rtcosim_fmu_me_observe_events(*c, ch->n & 1 ? host_event : NULL, h,
                                                          err);
        return st != RTCOSIM_OK ? st
                                : rtcosim_fmu_me_input_source(*c, ch->n & 2 ? host_inputs : NULL,
                                                              h, err);
    }
    case OP_ME_INPUT_EVENT:
        return rtcosim_fmu_me_enter_input_event(*c, err);
    case OP_ENTER_EVENT_MODE:
        return rtcosim_component_enter_event_mode(*c, err);
    case OP_UPDATE_DISCRETE_STATES:
        memset(&ch->update, 0, sizeof ch->update);
        return rtcosim_component_update_discrete_states(*c, &ch->update, err);
    case OP_ENTER_STEP_MODE:
        return rtcosim_component_enter_step_mode(*c, err);
    case OP_GET_INTERVAL: {
        rtcosim_interval_qualifier q = RTCOSIM_INTERVAL_NOT_YET_KNOWN;
        ch->interval = 0;
        rtcosim_status st = rtcosim_fmu_get_interval(*c, (size_t)ch->n, &ch->interval, &q, err);
        ch->qualifier = (int32_t)q;
        return st;
    }
    case OP_CALLBACK_DONE: /* (only inside a callback: call_parent) */
        break;
    }
    return rtcosim_error_set(err, RTCOSIM_EINVAL, "isolate: unknown request %u", ch->op);
}

int rtcosim_isolate_host(int fd)
{
    /* Only a channel our parent made (magic word, size, creator's pid): an
     * empty file would be SIGBUS on access, and anything else a wait that
     * nobody ends (SIGTERM is ignored below). */
    char why[160];
    channel *ch = channel_check_and_map(fd, why, sizeof why);
    if (!ch) {
        fprintf(stderr, "rtcosim: host-fmu: %s (an internal command of --isolate)\n", why);
        return 1;
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1 || getppid() != (pid_t)ch->parent) {
        channel_unmap(ch);
        return 1; /* the parent is already gone */
    }
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    /* Die of the FMU's own fatal signal (a sanitizer's handler would turn it
     * into another), so that the parent names the real cause. */
    static const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
        signal(fatal[i], SIG_DFL);
    host h = {.ch = ch, .seq = atomic_load(&ch->response)};
    for (;;) {
        h.seq = channel_next(ch, h.seq);
        /* (a callback's nested requests overwrite op: the request's own) */
        bool quit = ch->op == OP_QUIT;
        rtcosim_error err;
        rtcosim_error_clear(&err);
        rtcosim_status st = serve(&h, &err);
        ch->status = st;
        snprintf(ch->message, sizeof ch->message, "%s", st == RTCOSIM_OK ? "" : err.message);
        ch->callback = CALLBACK_NONE;
        if (quit) {
            for (size_t i = 0; i < h.states.count; i++)
                rtcosim_component_free_state(h.c, h.states.slots[i]);
            free(h.states.slots);
            for (size_t k = 0; k < MAX_DEPTH; k++) {
                free(h.copies[k].vrs.at);
                free(h.copies[k].values.at);
                free(h.copies[k].ptrs.at);
            }
            rtcosim_component_free(h.c);
            h.c = NULL;
        }
        channel_answer(ch, h.seq);
        if (quit)
            break;
    }
    channel_unmap(ch);
    return 0;
}
